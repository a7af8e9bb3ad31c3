"""``Object``: a top-level kind carrying Go's metav1.TypeMeta."""
from __future__ import annotations

from kcodec.model import Struct, field
from kcodec.schema import GroupVersionKind, from_api_version_and_kind

__all__ = ["Object"]


class Object(Struct):
    """A top-level API kind: a struct with ``kind`` and ``api_version`` (TypeMeta, inline).

    TypeMeta has no protobuf number: the protobuf envelope carries it. The object is its
    own ``ObjectKind``: ``get_object_kind()`` returns ``self``.
    """

    # Go's error context names the embedded TypeMeta: "Go struct field Pod.TypeMeta.kind".
    kind: str = field(0, "kind", omitempty=True, via="TypeMeta")
    api_version: str = field(0, "apiVersion", omitempty=True, via="TypeMeta")

    def get_object_kind(self) -> Object:
        """The object's kind accessor (itself)."""
        return self

    def group_version_kind(self) -> GroupVersionKind:
        """The GVK parsed from ``api_version`` and ``kind``."""
        return from_api_version_and_kind(self.api_version, self.kind)

    def set_group_version_kind(self, gvk: GroupVersionKind) -> None:
        """Set ``api_version``/``kind`` from ``gvk`` (empty GVK clears both)."""
        api_version, kind = gvk.to_api_version_and_kind()
        object.__setattr__(self, "api_version", api_version)
        object.__setattr__(self, "kind", kind)
