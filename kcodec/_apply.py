"""Offline server-side apply: :func:`apply` and :func:`extract`.

:func:`apply` does what kube-apiserver does for ``PATCH`` with
``application/apply-patch+yaml`` (k8s.io/apiserver pkg/endpoints/handlers/patch.go
``applyPatcher`` over the field manager of :mod:`kcodec.managedfields`): the applied
configuration is merged into the live object, the manager owns what it applied, fields it
applied before and stopped applying are removed when nobody else owns them, and changes to
fields other managers own are conflicts unless ``force``. The merged object is defaulted
as the API server defaults it. :func:`extract` is client-go's ``Extract<Kind>``
(apimachinery pkg/util/managedfields/extract.go ``ExtractInto``).
"""
from __future__ import annotations

import json
from typing import Any

from kcodec.errors import ApplyConflictError, KCodecError
from kcodec.managedfields.fieldmanager import FieldManager, conflict_message, print_manager
from kcodec.managedfields.fieldpath import Set, path_string
from kcodec.managedfields.merge import Conflicts, MissingVersionError
from kcodec.managedfields.schema import DEDUCED, custom_resource_type, model_schema
from kcodec.managedfields.typed import copy_tree, extract_items
from kcodec.schema import GroupVersionKind, parse_group_version

__all__ = ["apply", "extract"]


def _as_tree(obj: Any, what: str) -> tuple[dict[str, Any], Any]:
    """(JSON tree, the class to give results back as, or None for plain trees)."""
    if isinstance(obj, dict):
        return copy_tree(obj), None
    if isinstance(obj, (bytes, bytearray, str)):
        from kcodec.goyaml import yaml_to_tree

        data = obj.encode("utf-8") if isinstance(obj, str) else bytes(obj)
        tree = yaml_to_tree(data)
        if not isinstance(tree, dict):
            raise KCodecError(f"{what} must be one object, got {type(tree).__name__}")
        return tree, None
    content = getattr(obj, "unstructured_content", None)
    if callable(content):
        return copy_tree(content()), type(obj)
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        tree = to_dict()
        if not tree.get("kind") or not tree.get("apiVersion"):
            from kcodec.api import scheme

            kinds, _ = scheme.object_kinds(obj)
            tree["apiVersion"], tree["kind"] = str(kinds[0].group_version()), kinds[0].kind
        return tree, type(obj)
    raise TypeError(f"{what} must be a kcodec object, a dict or a manifest, not {type(obj).__name__}")


def _model_class(api_version: str, kind: str) -> Any:
    from kcodec.api import scheme

    gv = parse_group_version(api_version)
    try:
        return type(scheme.new(GroupVersionKind(gv.group, gv.version, kind)))
    except KCodecError:
        return None  # a custom resource: its content is typed by deduction


def _converter(kind: str) -> Any:
    def convert(tree: Any, version: str) -> Any:
        from kcodec.legacyscheme import convert as convert_version

        cls = _model_class(tree.get("apiVersion", ""), kind) if isinstance(tree, dict) else None
        if cls is None:
            raise MissingVersionError(f"no conversion of {kind} to {version}")
        try:
            out = convert_version(cls.from_dict(tree), version)
        except KCodecError as exc:
            raise MissingVersionError(str(exc)) from None
        return out.to_dict()
    return convert


def _back(tree: dict[str, Any], cls: Any) -> Any:
    if cls is None:
        return tree
    if hasattr(cls, "from_dict"):
        return cls.from_dict(tree)
    return cls(tree)


def _finish(tree: dict[str, Any], model: Any, out_cls: Any) -> Any:
    """The merged tree defaulted as the API server defaults it (structuredmerge.go Apply
    defaults the merged object before it is stored), given back as ``out_cls``."""
    if model is None or not hasattr(model, "from_dict"):
        return _back(tree, out_cls)
    from kcodec import legacyscheme

    # Defaulting never touches managedFields: they are set aside, not written to FieldsV1
    # raw bytes by the model and parsed back.
    meta = tree.get("metadata")
    managed = meta.get("managedFields") if isinstance(meta, dict) else None
    if managed is not None and isinstance(meta, dict):
        obj = model.from_dict({**tree, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}})
    else:
        obj = model.from_dict(tree)
    try:
        legacyscheme.scheme.default(obj)
    except KCodecError:
        return _back(tree, out_cls)
    if out_cls is model and getattr(obj, "metadata", None) is not None:
        # the defaulted object itself, not its tree read back
        if managed is not None:
            from kcodec.api.meta.v1 import ManagedFieldsEntry

            obj.metadata.managed_fields = [ManagedFieldsEntry.from_dict(e) for e in managed]
        return obj
    out = obj.to_dict()
    if managed is not None:
        # ObjectMeta's last field: where the model would have written it.
        out.setdefault("metadata", {})["managedFields"] = managed
    return _back(out, out_cls)


def _type_ref(schema: Any, model: Any, api_version: str, crd: Any) -> Any:
    if model is not None:
        return schema.type_ref_for(model)
    if crd is None:
        return DEDUCED  # unknown content is typed by deduction (granular maps, atomic lists)
    tree = crd.to_dict() if hasattr(crd, "to_dict") else crd
    version = api_version.rpartition("/")[2]
    for v in (tree.get("spec") or {}).get("versions") or []:
        if v.get("name") == version:
            return custom_resource_type(schema, ((v.get("schema") or {}).get("openAPIV3Schema")))
    raise KCodecError(f"the CustomResourceDefinition has no version {version!r}")


def apply(live: Any, applied: Any, manager: str, *, force: bool = False, crd: Any = None) -> Any:
    """Server-side apply of ``applied`` (an object, a dict or a manifest's text) by
    ``manager`` onto ``live`` (``None`` to create).

    Returns the merged object, with ``metadata.managedFields`` as kube-apiserver records
    them, of ``live``'s type (on create: ``applied``'s type, the kind's model for a manifest's
    text, a dict for a dict). Raises
    :class:`~kcodec.errors.ApplyConflictError` (Go's message and the conflicting fields)
    when other managers own fields the configuration changes and ``force`` is false, and
    :class:`~kcodec.errors.KCodecError` for an invalid configuration. ``crd`` (a v1
    CustomResourceDefinition, object or dict) types a custom resource by its version's schema
    (``x-kubernetes-list-type`` and friends); without it, custom content is deduced.
    """
    if not manager:
        raise KCodecError("PATCH, application/apply-patch+yaml requires fieldManager parameter")
    config, applied_cls = _as_tree(applied, "applied configuration")
    api_version, kind = config.get("apiVersion", ""), config.get("kind", "")
    if not api_version or not kind:
        raise KCodecError("applied configuration must set apiVersion and kind")
    model = _model_class(api_version, kind)
    # A tree written from a model of the applied kind fits its schema by construction: the
    # field manager skips validating it (dicts and manifests are validated).
    typed = live is None
    if live is None:
        # A manifest's text comes back typed when its kind is known, as kcodec.load reads it.
        live_tree = {"apiVersion": api_version, "kind": kind}
        out_cls = applied_cls if not isinstance(applied, (bytes, bytearray, str)) else model
    else:
        live_tree, out_cls = _as_tree(live, "live object")
        typed = model is not None and isinstance(live, model)
        if live_tree.get("apiVersion") != api_version and live_tree.get("kind") == kind:
            live_tree = _converter(kind)(live_tree, api_version)
    schema = model_schema()
    type_ref = _type_ref(schema, model, api_version, crd)
    fm = FieldManager(schema, type_ref, api_version, kind, converter=_converter(kind))
    try:
        # both trees are this call's own copies (_as_tree)
        merged = fm.apply(live_tree, config, manager, force, typed=typed, owned=True)
    except Conflicts as exc:
        raise ApplyConflictError(conflict_message(exc), [(print_manager(c.manager), path_string(c.path))
                                                         for c in exc.conflicts]) from None
    return _finish(merged, model, out_cls)


def extract(obj: Any, manager: str, *, subresource: str = "", crd: Any = None) -> Any:
    """The applied configuration ``manager`` owns in ``obj`` (client-go's ``Extract<Kind>``):
    a dict holding apiVersion, kind and exactly the fields of that manager's Apply entry
    (empty but for apiVersion/kind when it has none)."""
    tree, _ = _as_tree(obj, "object")
    api_version, kind = tree.get("apiVersion", ""), tree.get("kind", "")
    entry = None
    for mf in (tree.get("metadata") or {}).get("managedFields") or []:
        if mf.get("manager") == manager and mf.get("operation") == "Apply" and \
                mf.get("subresource", "") == subresource:
            entry = mf
            break
    out: dict[str, Any] = {}
    if entry is not None:
        model = _model_class(api_version, kind)
        schema = model_schema()
        type_ref = _type_ref(schema, model, api_version, crd)
        fields = Set.from_json(json.dumps(entry.get("fieldsV1") or {}))
        extracted = extract_items(schema, type_ref, tree, fields.leaves())
        out = extracted if isinstance(extracted, dict) else {}
    if "kind" not in out and kind:
        out["kind"] = kind
        out["apiVersion"] = api_version
    return out
