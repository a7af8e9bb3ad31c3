"""How a structural schema is seen as CEL types: which properties are fields, which nodes
are maps or dyn, and a resource's implicit apiVersion, kind and metadata (Go:
k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel/model/schemas.go`` and
k8s.io/apiserver ``pkg/cel/common/schemas.go``, ``SchemaDeclType``)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kcodec.api.apiextensions.cel.escaping import _LEXER_KEYWORDS, _RESERVED, escape

__all__ = ["has_validation_rules"]

_META_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}}

_STRING = {"type": "string"}


def _rules(s: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(s.get("x-kubernetes-validations") or [])


def _additional(s: Mapping[str, Any]) -> Mapping[str, Any] | None:
    ap = s.get("additionalProperties")
    return ap if isinstance(ap, Mapping) else None


def _is_dyn(s: Mapping[str, Any]) -> bool:
    """No type: int-or-string, or anything under x-kubernetes-preserve-unknown-fields."""
    return not s.get("type")


def _with_type_and_object_meta(s: Mapping[str, Any]) -> Mapping[str, Any]:
    """model.WithTypeAndObjectMeta: a resource's schema with apiVersion and kind strings and a
    metadata of name and generateName only, unless it declares all of those already."""
    props = s.get("properties") or {}
    meta = props.get("metadata") or {}
    meta_props = meta.get("properties") or {}
    if ((props.get("kind") or {}).get("type") == "string" and (props.get("apiVersion") or {}).get("type") == "string"
            and meta.get("type") == "object" and (meta_props.get("name") or {}).get("type") == "string"
            and (meta_props.get("generateName") or {}).get("type") == "string"):
        return s
    return {**s, "type": s.get("type") or "object",
            "properties": {**props, "kind": _STRING, "apiVersion": _STRING, "metadata": _META_SCHEMA}}


def _has_decl_type(s: Any) -> bool:
    """Whether model.SchemaDeclType gives *s* a CEL type: a value of no type is one only when
    it is int-or-string; lists and maps need typed items. Properties without one cannot be
    selected (they are left out of their object's type)."""
    if not isinstance(s, Mapping):
        return False
    t = s.get("type")
    if not t:
        return bool(s.get("x-kubernetes-int-or-string"))
    if t == "array":
        return _has_decl_type(s.get("items"))
    if t == "object" and not s.get("properties") and _additional(s) is not None:
        return _has_decl_type(_additional(s))
    return True


def _fields(s: Mapping[str, Any], is_resource: bool) -> dict[str, tuple[str, Mapping[str, Any]]] | None:
    """CEL field name -> (property, schema) of an object type; None for a map or dyn."""
    if is_resource:
        s = _with_type_and_object_meta(s)
    if _is_dyn(s) or s.get("type") != "object" or (_additional(s) is not None and not s.get("properties")):
        return None
    out: dict[str, tuple[str, Mapping[str, Any]]] = {}
    for name, sub in (s.get("properties") or {}).items():
        esc = escape(name)
        if esc is not None and _has_decl_type(sub):
            out[esc] = (name, sub)
            if name in _RESERVED and name not in _LEXER_KEYWORDS:
                out[name] = (name, sub)  # cel-go also selects a reserved word unescaped after a '.'
    return out


def has_validation_rules(schema: Mapping[str, Any] | None) -> bool:
    """Whether *schema* (a JSON schema tree) has an x-kubernetes-validations rule anywhere
    (Go ``hasXValidations``, also under allOf as the CRD validator sees them)."""
    if not isinstance(schema, Mapping):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    if has_validation_rules(schema.get("items")) or has_validation_rules(_additional(schema)):
        return True
    if any(has_validation_rules(p) for p in (schema.get("properties") or {}).values()):
        return True
    return any(has_validation_rules(a) for a in (schema.get("allOf") or ()))
