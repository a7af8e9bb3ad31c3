"""Custom resources: teach a scheme the kinds a CustomResourceDefinition defines, and prune
or report the fields its structural schema does not declare.

An API server serves a CRD's resources as unstructured objects (Go
``unstructured.Unstructured``); :func:`add_custom_resource_definition` registers, for each
served version, the kind and the list kind as :class:`~kcodec.runtime.Unstructured` /
:class:`~kcodec.runtime.UnstructuredList`, so decoders build unstructured objects for them and
still refuse kinds and versions the CRD does not define (``NotRegisteredError``).

:func:`prune` follows k8s.io/apiextensions-apiserver v0.36.3
``pkg/apiserver/schema/pruning/algorithm.go``: fields that the version's schema does not
declare are removed (unless ``x-kubernetes-preserve-unknown-fields`` or
``additionalProperties`` keeps them), ``apiVersion``/``kind``/``metadata`` stay at the root and
in embedded resources, and the removed paths are returned sorted (``spec.foo``,
``spec.items[0].bar``), as the API server reports them for ``fieldValidation=Warn`` and
``Strict``. Unknown ``metadata`` members at the root are reported too (``metadata.foo``).
"""
from __future__ import annotations

from typing import Any

from kcodec.errors import DecodeError, NotRegisteredError, StrictDecodingError
from kcodec.runtime import Unstructured, UnstructuredList
from kcodec.schema import GroupVersionKind

from kcodec.api.apiextensions import v1, v1beta1
from kcodec.api.meta import v1 as metav1

__all__ = [
    "add_custom_resource_definition",
    "custom_resource_kinds",
    "structural_schema",
    "prune",
    "check_custom_resource",
    "as_v1_definition",
]

_META_FIELDS = frozenset(("apiVersion", "kind", "metadata"))
_CRD_V1 = "apiextensions.k8s.io/v1"
_CRD_V1BETA1 = "apiextensions.k8s.io/v1beta1"


def _as_v1(crd: Any) -> v1.CustomResourceDefinition:
    """The CRD as a v1 object: v1 as is, v1beta1 through the internal version (with
    v1beta1's defaults, as an API server stores it), unstructured or dict forms decoded."""
    if isinstance(crd, v1.CustomResourceDefinition):
        return crd
    if isinstance(crd, Unstructured):
        crd = crd.unstructured_content()
    if isinstance(crd, dict):
        api_version = crd.get("apiVersion")
        if crd.get("kind") != "CustomResourceDefinition" or api_version not in (_CRD_V1, _CRD_V1BETA1):
            raise DecodeError(f"not a CustomResourceDefinition of {_CRD_V1} or {_CRD_V1BETA1}: "
                              f"apiVersion={api_version!r}, kind={crd.get('kind')!r}")
        cls = v1.CustomResourceDefinition if api_version == _CRD_V1 else v1beta1.CustomResourceDefinition
        crd = cls.from_dict(crd)
        if isinstance(crd, v1.CustomResourceDefinition):
            return crd
    if isinstance(crd, v1beta1.CustomResourceDefinition):
        return _v1beta1_to_v1(crd)
    raise TypeError(f"expected a CustomResourceDefinition, got {type(crd).__name__}")


_CONVERTER: Any = None


def _v1beta1_to_v1(crd: v1beta1.CustomResourceDefinition) -> v1.CustomResourceDefinition:
    global _CONVERTER
    from kcodec.schema import GroupVersion

    if _CONVERTER is None:
        from kcodec.runtime.scheme import Scheme

        from kcodec.api.apiextensions import _install

        s = Scheme("kcodec.api.apiextensions (v1beta1 -> v1)")
        _install.install(s)
        _CONVERTER = s
    s = _CONVERTER
    crd = crd.deep_copy()
    s.default(crd)
    mid = s.convert_to_version(crd, GroupVersion("apiextensions.k8s.io", "__internal"))
    return s.convert_to_version(mid, GroupVersion("apiextensions.k8s.io", "v1"))


def custom_resource_kinds(crd: Any, *, served_only: bool = True) -> list[GroupVersionKind]:
    """The kinds a CRD defines: for each (served) version its kind, then its list kind."""
    c = _as_v1(crd)
    names = c.spec.names
    if not c.spec.group or not names.kind:
        raise DecodeError(f"CustomResourceDefinition {c.metadata.name!r}: spec.group and "
                          "spec.names.kind are required")
    list_kind = names.list_kind or names.kind + "List"
    out = []
    for v in c.spec.versions or ():
        if served_only and not v.served:
            continue
        out.append(GroupVersionKind(c.spec.group, v.name, names.kind))
        out.append(GroupVersionKind(c.spec.group, v.name, list_kind))
    return out


def add_custom_resource_definition(scheme: Any, crd: Any, *, served_only: bool = True
                                   ) -> list[GroupVersionKind]:
    """Register the kinds *crd* defines (v1 or v1beta1; typed, unstructured or a dict) with
    *scheme*: each served version's kind as Unstructured, its list kind as UnstructuredList.

    Returns the registered kinds. Registering the same CRD twice changes nothing; a kind
    already registered with a typed class raises the scheme's double-registration error.
    """
    kinds = custom_resource_kinds(crd, served_only=served_only)
    for i, gvk in enumerate(kinds):
        scheme.add_known_type_with_name(gvk, Unstructured if i % 2 == 0 else UnstructuredList)
    return kinds


def structural_schema(crd: Any, version: str) -> v1.JSONSchemaProps | None:
    """The ``openAPIV3Schema`` of *version* of *crd* (None when it has none)."""
    c = _as_v1(crd)
    for v in c.spec.versions or ():
        if v.name == version:
            if v.schema is None:
                return None
            return v.schema.open_apiv3_schema
    raise NotRegisteredError(f"CustomResourceDefinition {c.metadata.name}",
                             gvk=GroupVersionKind(c.spec.group, version, c.spec.names.kind))


# --------------------------------------------------------------------------- pruning


def _properties(s: v1.JSONSchemaProps) -> dict[str, v1.JSONSchemaProps]:
    return s.properties or {}


def _additional(s: v1.JSONSchemaProps) -> tuple[bool, v1.JSONSchemaProps | None]:
    """(present, schema) of additionalProperties, as the structural schema keeps it."""
    ap = s.additional_properties
    if ap is None:
        return False, None
    return True, ap.schema


def _items(s: v1.JSONSchemaProps | None) -> v1.JSONSchemaProps | None:
    if s is None or s.items is None:
        return None
    return s.items.schema


class _Pruner:
    """One pruning walk; ``paths`` collects the removed fields' paths."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    def record(self, path: str, key: str) -> None:
        self.paths.append(f"{path}.{key}" if path else key)

    def prune(self, x: Any, s: v1.JSONSchemaProps | None, path: str, embedded: bool) -> None:
        if s is None:
            self.prune_nil(x, path)
            return
        if s.x_preserve_unknown_fields:
            self.skip(x, s, path, embedded)
            return
        if isinstance(x, dict):
            props = _properties(s)
            has_ap, ap = _additional(s)
            for k in list(x):
                if embedded and k in _META_FIELDS:
                    continue
                sub = f"{path}.{k}" if path else k
                if k in props:
                    p = props[k]
                    self.prune(x[k], p, sub, p.x_embedded_resource)
                elif has_ap:
                    self.prune(x[k], ap, sub, ap is not None and ap.x_embedded_resource)
                else:
                    if k not in _META_FIELDS or path:
                        self.record(path, k)
                    del x[k]
        elif isinstance(x, list):
            item = _items(s)
            for i, v in enumerate(x):
                self.prune(v, item, f"{path}[{i}]", item is not None and item.x_embedded_resource)

    def prune_nil(self, x: Any, path: str) -> None:
        """No schema: every member of an object goes, arrays are walked (iteratively: the
        value may nest as deep as the decoder allowed)."""
        stack = [(x, path)]
        while stack:
            v, p = stack.pop()
            if isinstance(v, dict):
                for k in list(v):
                    self.record(p, k)
                    del v[k]
            elif isinstance(v, list):
                stack.extend((e, f"{p}[{i}]") for i, e in enumerate(v))

    def skip(self, x: Any, s: v1.JSONSchemaProps | None, path: str, embedded: bool) -> None:
        if s is None:
            return
        if isinstance(x, dict):
            props = _properties(s)
            has_ap, ap = _additional(s)
            for k in list(x):
                if embedded and k in _META_FIELDS:
                    continue
                sub = f"{path}.{k}" if path else k
                if k in props:
                    p = props[k]
                    self.prune(x[k], p, sub, p.x_embedded_resource)
                elif has_ap:
                    self.prune(x[k], ap, sub, ap is not None and ap.x_embedded_resource)
        elif isinstance(x, list):
            item = _items(s)
            for i, v in enumerate(x):
                self.skip(v, item, f"{path}[{i}]", item is not None and item.x_embedded_resource)


_OBJECT_META_KEYS: frozenset[str] | None = None


def _object_meta_keys() -> frozenset[str]:
    global _OBJECT_META_KEYS
    if _OBJECT_META_KEYS is None:
        from kcodec.model import fields_of

        _OBJECT_META_KEYS = frozenset(f.json for f in fields_of(metav1.ObjectMeta))
    return _OBJECT_META_KEYS


def _content_and_version(obj: Any) -> tuple[dict[str, Any], str]:
    content = obj.unstructured_content() if isinstance(obj, Unstructured) else obj
    if not isinstance(content, dict):
        raise TypeError(f"expected an Unstructured object or a dict, got {type(obj).__name__}")
    api_version = content.get("apiVersion")
    version = api_version.rsplit("/", 1)[-1] if isinstance(api_version, str) else ""
    return content, version


def as_v1_definition(crd: Any) -> v1.CustomResourceDefinition:
    """*crd* (v1 or v1beta1; typed, Unstructured or dict) as a typed v1 CRD, converted as an
    API server would store it. Convert once and pass the result when checking many objects."""
    return _as_v1(crd)


def _definition_for(content: dict[str, Any], crds: Any) -> v1.CustomResourceDefinition:
    """The CRD among *crds* (one CRD, or a list/tuple of them) that defines *content*'s kind."""
    if not isinstance(crds, (list, tuple)):
        return _as_v1(crds)
    api_version = content.get("apiVersion")
    kind = content.get("kind")
    group = api_version.rsplit("/", 1)[0] if isinstance(api_version, str) and "/" in api_version else ""
    for crd in crds:
        c = _as_v1(crd)
        names = c.spec.names
        if c.spec.group == group and kind in (names.kind, names.list_kind or names.kind + "List"):
            return c
    version = api_version.rsplit("/", 1)[-1] if isinstance(api_version, str) else ""
    raise NotRegisteredError("the given CustomResourceDefinitions",
                             gvk=GroupVersionKind(group, version, str(kind or "")))


def prune(obj: Any, crd: Any) -> list[str]:
    """Remove, in place, the fields of custom resource *obj* (Unstructured, UnstructuredList
    or dict) that its version's schema in *crd* does not declare; return their paths, sorted.

    *crd* is one CRD or a list of them (the one defining *obj*'s group and kind is used).
    Nothing is pruned when the CRD keeps unknown fields (``preserveUnknownFields: true``).
    Unknown members of the root ``metadata`` are dropped and reported as well. The items of a
    list are pruned one by one, their paths prefixed with ``items[i].``.
    """
    if isinstance(obj, UnstructuredList):
        head = obj.unstructured_content()
        c = _definition_for(head, crd)
        _, version = _content_and_version(head)
        paths = []
        for i, item in enumerate(obj.items):
            content = item.unstructured_content()
            for p in _prune_one(content, c, _content_and_version(content)[1] or version):
                paths.append(f"items[{i}].{p}")
        return paths
    content, version = _content_and_version(obj)
    return _prune_one(content, _definition_for(content, crd), version)


def _prune_one(content: dict[str, Any], c: v1.CustomResourceDefinition, version: str) -> list[str]:
    pruner = _Pruner()
    if not c.spec.preserve_unknown_fields:
        schema = structural_schema(c, version)
        root = schema if schema is not None else v1.JSONSchemaProps()
        pruner.prune(content, root, "", True)
    meta = content.get("metadata")
    if isinstance(meta, dict):
        known = _object_meta_keys()
        for k in [k for k in meta if k not in known]:
            pruner.paths.append(f"metadata.{k}")
            del meta[k]
    return sorted(pruner.paths)


def check_custom_resource(obj: Any, crd: Any, *, strict: bool = False) -> list[str]:
    """Prune *obj* against *crd* (see :func:`prune`) and return Go's warnings
    (``unknown field "spec.foo"``); with ``strict`` raise them as a
    :class:`~kcodec.errors.StrictDecodingError` instead (``fieldValidation=Strict``), the
    pruned object in its ``obj``."""
    paths = prune(obj, crd)
    errors = [f'unknown field "{p}"' for p in paths]
    if strict and errors:
        gvk = obj.group_version_kind() if isinstance(obj, (Unstructured, UnstructuredList)) else None
        raise StrictDecodingError(errors, obj, gvk)
    return errors
