"""The field manager over typed objects, as an API server holds them.

kube-apiserver keeps objects in their internal version and runs the field manager on the
request's version (k8s.io/apimachinery pkg/util/managedfields/internal/structuredmerge.go
converts with ``toVersioned``/``toUnversioned``; k8s.io/apiserver
pkg/endpoints/handlers/create.go, update.go and patch.go call ``UpdateNoErrors`` on every
write and ``Apply`` for apply patches). :class:`ObjectFieldManager` does that for one served
kind: objects in and out are whatever the registry holds (internal or external); the
merge itself runs on the served version's JSON tree through :class:`FieldManager`.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kcodec.errors import KCodecError
from kcodec.managedfields.fieldmanager import FieldManager
from kcodec.managedfields.fieldpath import Set, make_path
from kcodec.managedfields.merge import MissingVersionError
from kcodec.managedfields.schema import DEDUCED, custom_resource_type, model_schema
from kcodec.managedfields.typed import copy_tree

__all__ = ["ObjectFieldManager"]


def _tree(obj: Any) -> dict[str, Any]:
    content = getattr(obj, "unstructured_content", None)
    if callable(content):
        return copy_tree(content())
    return obj.to_dict()


class ObjectFieldManager:
    """Managed fields of one kind served at ``gvk``.

    ``scheme`` converts between the registry's objects and ``gvk``'s version (Go's object
    convertor); ``model`` is the served version's class (``None`` for a custom resource,
    typed by ``openapi_v3``, its CRD version's schema); ``reset_fields`` lists, per API
    version, the top-level paths the strategy resets (``["status"]`` on a main resource,
    ``["spec"]`` on ``/status``), which no manager is recorded as owning.
    """

    def __init__(self, scheme: Any, gvk: Any, *, model: Any = None, openapi_v3: Mapping[str, Any] | None = None,
                 subresource: str = "", reset_fields: Mapping[str, Iterable[Iterable[str]]] | None = None) -> None:
        self.scheme = scheme
        self.gvk = gvk
        self.model = model
        self.api_version = str(gvk.group_version())
        schema = model_schema()
        if model is not None:
            type_ref: Any = schema.type_ref_for(model)
        elif openapi_v3 is not None:
            type_ref = custom_resource_type(schema, openapi_v3)
        else:
            type_ref = DEDUCED
        resets = {v: Set([make_path(*p) for p in paths]) for v, paths in (reset_fields or {}).items()}
        self.manager = FieldManager(schema, type_ref, self.api_version, gvk.kind, subresource=subresource,
                                    converter=self._convert_tree, reset_fields=resets)

    def __repr__(self) -> str:
        return f"ObjectFieldManager({self.gvk})"

    # -------------------------------------------------------------- conversions

    def _versioned_tree(self, obj: Any) -> dict[str, Any]:
        if obj is None:
            return {"apiVersion": self.api_version, "kind": self.gvk.kind}
        if getattr(obj, "unstructured_content", None) is None and self.model is not None \
                and not isinstance(obj, self.model):
            obj = self.scheme.convert_to_version(obj, self.gvk.group_version())
        tree = _tree(obj)
        tree["apiVersion"], tree["kind"] = self.api_version, self.gvk.kind
        return tree

    def _convert_tree(self, tree: Any, version: str) -> Any:
        if self.model is None:
            raise MissingVersionError(f"no conversion of {self.gvk.kind} to {version}")
        from kcodec.schema import parse_group_version

        try:
            obj = self.model.from_dict(tree)
            out = self.scheme.convert_to_version(self.scheme.convert_to_version(
                obj, _internal(self.gvk.group)), parse_group_version(version))
        except KCodecError as exc:
            raise MissingVersionError(str(exc)) from None
        return out.to_dict()

    def _is_model(self, obj: Any) -> bool:
        """Whether ``obj``'s tree is written from a model of the kind (or is the empty object of
        a create), which fits the schema by construction."""
        if obj is None:
            return True
        return self.model is not None and getattr(obj, "unstructured_content", None) is None

    @staticmethod
    def _set_managed_fields(obj: Any, entries: list[dict[str, Any]] | None) -> None:
        if hasattr(obj, "set_managed_fields"):  # Unstructured
            obj.set_managed_fields(entries)
            return
        from kcodec.api.meta.v1 import ManagedFieldsEntry

        obj.metadata.managed_fields = [ManagedFieldsEntry.from_dict(e) for e in entries] if entries else None

    # -------------------------------------------------------------- operations

    def update(self, live: Any, new: Any, manager: str) -> Any:
        """Go's ``UpdateNoErrors``: ``new`` with the managedFields of ``manager``'s update of
        ``live`` (``None`` on create); on any failure the live object's managedFields are kept,
        as Go restores them."""
        try:
            out = self.manager.update(self._versioned_tree(live), self._versioned_tree(new), manager,
                                      typed=self._is_model(live) and self._is_model(new))
            entries = (out.get("metadata") or {}).get("managedFields")
        except KCodecError:
            live_tree = self._versioned_tree(live) if live is not None else {}
            entries = (live_tree.get("metadata") or {}).get("managedFields")
        self._set_managed_fields(new, entries)
        return new

    def apply(self, live: Any, patch: Mapping[str, Any], manager: str, force: bool = False) -> Any:
        """Go's ``FieldManager.Apply``: the applied object in the registry's version, with its
        managedFields. Raises :class:`~kcodec.managedfields.merge.Conflicts` and
        :class:`~kcodec.managedfields.fieldmanager.ManagedFieldsError` as Go fails."""
        merged = self.manager.apply(self._versioned_tree(live), copy_tree(patch), manager, force,
                                    typed=self._is_model(live), owned=True)
        if self.model is None:
            return merged
        obj = self.model.from_dict(merged)
        # structuredmerge.go: the merged object is defaulted, then converted to the hub.
        self.scheme.default(obj)
        return obj


def _internal(group: str) -> Any:
    from kcodec.schema import GroupVersion

    return GroupVersion(group, "__internal")
