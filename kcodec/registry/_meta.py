"""Go's ``meta.Accessor`` for the registry: one interface over typed objects (whose
``metadata`` is a ``kcodec.api.meta.v1.ObjectMeta``, internal and external versions alike)
and ``Unstructured`` ones (custom resources), which already have these accessor methods.
"""
from __future__ import annotations

import datetime
from typing import Any

__all__ = ["accessor", "now", "object_meta_of", "is_unstructured"]


def is_unstructured(obj: Any) -> bool:
    return hasattr(obj, "unstructured_content")


def now() -> Any:
    """Go's ``metav1.Now()`` as kube-apiserver stores it: whole seconds (metav1.Time's
    JSON and protobuf forms both drop the fraction, so the object read back equals it)."""
    from kcodec.api.meta.v1 import Time

    return Time.from_datetime(datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0))


class _Typed:
    """The accessor of a typed object (Go's ``metav1.ObjectMeta`` methods)."""

    __slots__ = ("obj", "meta")

    def __init__(self, obj: Any) -> None:
        meta = getattr(obj, "metadata", None)
        if meta is None:
            from kcodec.api.meta.v1 import ObjectMeta

            meta = ObjectMeta()
            obj.metadata = meta
        self.obj = obj
        self.meta = meta

    def get_name(self) -> str:
        return self.meta.name or ""

    def set_name(self, v: str) -> None:
        self.meta.name = v

    def get_generate_name(self) -> str:
        return self.meta.generate_name or ""

    def set_generate_name(self, v: str) -> None:
        self.meta.generate_name = v

    def get_namespace(self) -> str:
        return self.meta.namespace or ""

    def set_namespace(self, v: str) -> None:
        self.meta.namespace = v

    def get_uid(self) -> str:
        return self.meta.uid or ""

    def set_uid(self, v: str) -> None:
        self.meta.uid = v

    def get_resource_version(self) -> str:
        return self.meta.resource_version or ""

    def set_resource_version(self, v: str) -> None:
        self.meta.resource_version = v

    def set_self_link(self, v: str) -> None:
        self.meta.self_link = v

    def get_generation(self) -> int:
        return self.meta.generation or 0

    def set_generation(self, v: int) -> None:
        self.meta.generation = v

    def get_creation_timestamp(self) -> Any:
        return self.meta.creation_timestamp

    def set_creation_timestamp(self, v: Any) -> None:
        if v is None:
            from kcodec.api.meta.v1 import Time

            v = Time()
        self.meta.creation_timestamp = v

    def get_deletion_timestamp(self) -> Any:
        t = self.meta.deletion_timestamp
        return None if t is None else t

    def set_deletion_timestamp(self, v: Any) -> None:
        self.meta.deletion_timestamp = v

    def get_deletion_grace_period_seconds(self) -> int | None:
        return self.meta.deletion_grace_period_seconds

    def set_deletion_grace_period_seconds(self, v: int | None) -> None:
        self.meta.deletion_grace_period_seconds = v

    def get_labels(self) -> dict[str, str] | None:
        return self.meta.labels

    def set_labels(self, v: dict[str, str] | None) -> None:
        self.meta.labels = v

    def get_annotations(self) -> dict[str, str] | None:
        return self.meta.annotations

    def set_annotations(self, v: dict[str, str] | None) -> None:
        self.meta.annotations = v

    def get_finalizers(self) -> list[str]:
        return list(self.meta.finalizers or ())

    def set_finalizers(self, v: list[str] | None) -> None:
        self.meta.finalizers = list(v) if v else None

    def get_owner_references(self) -> list[Any]:
        return list(self.meta.owner_references or ())

    def get_managed_fields(self) -> Any:
        return self.meta.managed_fields

    def set_managed_fields(self, v: Any) -> None:
        self.meta.managed_fields = v


class _Unstructured:
    """The accessor of an Unstructured object: its own methods, with Go's nil-vs-empty
    conventions where the registry relies on them."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __getattr__(self, name: str) -> Any:
        return getattr(self.obj, name)

    def get_finalizers(self) -> list[str]:
        return list(self.obj.get_finalizers() or ())

    def set_finalizers(self, v: list[str] | None) -> None:
        self.obj.set_finalizers(list(v) if v else None)

    def get_owner_references(self) -> list[Any]:
        return list(self.obj.get_owner_references() or ())

    def get_creation_timestamp(self) -> Any:
        return self.obj.get_creation_timestamp()


def accessor(obj: Any) -> Any:
    """Go's ``meta.Accessor(obj)``: get_/set_ methods for the object's metadata."""
    if is_unstructured(obj):
        return _Unstructured(obj)
    return _Typed(obj)


def object_meta_of(obj: Any) -> Any:
    """The object's ``ObjectMeta`` (for Unstructured, a copy decoded from its metadata),
    what the metadata validation functions take."""
    if is_unstructured(obj):
        from kcodec.api.meta.v1 import ObjectMeta

        meta = obj.unstructured_content().get("metadata")
        return ObjectMeta.from_dict(meta if isinstance(meta, dict) else {})
    meta = getattr(obj, "metadata", None)
    if meta is None:
        from kcodec.api.meta.v1 import ObjectMeta

        meta = obj.metadata = ObjectMeta()
    return meta
