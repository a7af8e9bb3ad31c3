"""Structural schemas of CustomResourceDefinitions (Go: k8s.io/apiextensions-apiserver
``pkg/apiserver/schema``: ``NewStructural``'s refusals, ``ValidateStructural``'s invariants
and completeness; ``pkg/apiserver/schema/defaulting`` ``ValidateDefaults`` with
``schema/objectmeta`` Coerce and Validate and ``schema/pruning``), on the JSON tree of a
schema's v1 form. Used by :mod:`kcodec.api.apiextensions.validation`; Go walks properties in
map order, here they are sorted.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from kcodec.validation import field, names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = ["validate_structural"]

_META_FIELDS = ("metadata", "kind", "apiVersion")


def _dns1035(value: str) -> str:
    return ",".join(names.is_dns1035_label(value))


# --------------------------------------------------------------------------- schema trees


def _items(s: Mapping[str, Any]) -> Mapping[str, Any] | None:
    items = s.get("items")
    return items if isinstance(items, Mapping) else None


def _additional(s: Mapping[str, Any]) -> tuple[bool, Mapping[str, Any] | None]:
    """(present, schema) of additionalProperties (``false`` and ``true`` are present, schemaless)."""
    if "additionalProperties" not in s or s["additionalProperties"] is None:
        return False, None
    ap = s["additionalProperties"]
    return True, ap if isinstance(ap, Mapping) else None


def _subschemas(s: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every schema directly below *s* (Go's SchemaHas walk)."""
    out: list[Mapping[str, Any]] = []
    items = s.get("items")
    if isinstance(items, Mapping):
        out.append(items)
    elif isinstance(items, list):
        out.extend(x for x in items if isinstance(x, Mapping))
    for key in ("allOf", "anyOf", "oneOf"):
        out.extend(x for x in s.get(key) or () if isinstance(x, Mapping))
    if isinstance(s.get("not"), Mapping):
        out.append(s["not"])
    for key in ("properties", "patternProperties", "definitions"):
        out.extend(x for x in (s.get(key) or {}).values() if isinstance(x, Mapping))
    for key in ("additionalProperties", "additionalItems"):
        if isinstance(s.get(key), Mapping):
            out.append(s[key])
    out.extend(x for x in (s.get("dependencies") or {}).values() if isinstance(x, Mapping))
    return out


def _schema_has(s: Mapping[str, Any] | None, pred: Any) -> bool:
    stack = [s] if isinstance(s, Mapping) else []
    while stack:
        cur = stack.pop()
        if pred(cur):
            return True
        stack.extend(_subschemas(cur))
    return False


# --------------------------------------------------------------------------- Go regexp


# RE2's parse errors as Go's regexp/syntax words them.
_RE2_TO_GO = {
    "missing )": "missing closing )", "missing ]": "missing closing ]",
    "unexpected )": "unexpected )", "bad repetition operator": "invalid nested repetition operator",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid character class range": "invalid character class range",
    "invalid character class": "invalid character class", "invalid escape sequence": "invalid escape sequence",
    "trailing \\": "trailing backslash at end of expression", "invalid named capture group": "invalid named capture",
    "invalid perl operator": "invalid or unsupported Perl syntax", "bad repetition argument": "invalid repeat count",
    "invalid UTF-8": "invalid UTF-8", "duplicate capture group name": "duplicate capture group name",
}


def _go_regexp_error(pattern: str) -> str | None:
    """Go's ``regexp.Compile`` error text for *pattern*, None when it compiles."""
    try:
        import re2
    except ImportError:  # pragma: no cover - google-re2 comes with the cel extra
        import re

        try:
            re.compile(pattern)
        except re.error as exc:
            return f"error parsing regexp: {exc}"
        return None
    options = re2.Options()
    options.log_errors = False  # the error is the client's, reported in the response; no server log line
    try:
        re2.compile(pattern, options)
    except Exception as exc:  # noqa: BLE001 - re2 raises its own error type
        msg = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        code, _, arg = msg.partition(": ")
        return f"error parsing regexp: {_RE2_TO_GO.get(code, code)}: `{arg}`"
    return None


# --------------------------------------------------------------------------- structural schemas


def _new_structural_error(s: Mapping[str, Any]) -> str | None:
    """The error of Go's ``NewStructural`` (unsupported fields, array items), None when it builds."""
    stack: list[Mapping[str, Any]] = [s]
    while stack:
        cur = stack.pop()
        for key, what in (("id", "id"), ("$schema", "schema"), ("$ref", "$ref"), ("patternProperties", "patternProperties"),
                          ("dependencies", "dependencies"), ("additionalItems", "additionalItems"),
                          ("definitions", "definitions")):
            v = cur.get(key)
            # additionalItems is a pointer in Go (any value counts), the others count when non-empty
            if (v is not None) if key == "additionalItems" else bool(v):
                return f"OpenAPIV3Schema '{what}' is not supported"
        if isinstance(cur.get("items"), list):
            return "OpenAPIV3Schema 'items' must be a schema, but is an array"
        if cur.get("x-kubernetes-preserve-unknown-fields") is False:
            return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
        stack.extend(_subschemas(cur))
    return None


_ROOT, _ITEM, _FIELD = range(3)

_INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]


def _is_int_or_string_any_of(s: Mapping[str, Any]) -> bool:
    return list(s.get("anyOf") or ()) == _INT_OR_STRING_ANY_OF


def _is_int_or_string_all_of(s: Mapping[str, Any]) -> bool:
    all_of: list[Any] = list(s.get("allOf") or ())
    return bool(all_of) and isinstance(all_of[0], Mapping) and _is_int_or_string_any_of(all_of[0])


def validate_structural(path: Path | None, s: Mapping[str, Any]) -> ErrorList:
    """Go ``ValidateStructural`` on a schema tree: the invariants and the completeness of
    the value validations, sorted by their text as Go sorts them."""
    errs = ErrorList()
    _structural_invariants(s, _ROOT, path, errs)
    _value_validation_completeness(s, s, path, path, errs)
    return ErrorList(sorted(errs, key=str))


def _child(path: Path | None, *names_: str) -> Path:
    if path is None:
        return Path(*names_)
    return path.child(*names_)


def _structural_invariants(s: Mapping[str, Any] | None, lvl: int, path: Path | None, errs: ErrorList) -> None:
    if not isinstance(s, Mapping):
        return
    typ = s.get("type") or ""
    items = _items(s)
    if typ == "array" and items is None:
        errs.append(field.required(_child(path, "items"), "must be specified"))
    _structural_invariants(items, _ITEM, _child(path, "items"), errs)
    props = s.get("properties") or {}
    for k in sorted(props):
        _structural_invariants(props[k], _FIELD, _child(path, "properties").key(k), errs)
    has_ap, ap = _additional(s)
    if has_ap:
        if lvl == _ROOT:
            errs.append(field.forbidden(_child(path, "additionalProperties"), "must not be used at the root"))
        if ap is not None:
            _structural_invariants(ap, _FIELD, _child(path, "additionalProperties"), errs)
    ios, embedded = bool(s.get("x-kubernetes-int-or-string")), bool(s.get("x-kubernetes-embedded-resource"))
    pres = bool(s.get("x-kubernetes-preserve-unknown-fields"))
    if ios and pres:
        errs.append(field.invalid(_child(path, "x-kubernetes-preserve-unknown-fields"), True,
                                  "must be false if x-kubernetes-int-or-string is true"))
    if ios and embedded:
        errs.append(field.invalid(_child(path, "x-kubernetes-embedded-resource"), True,
                                  "must be false if x-kubernetes-int-or-string is true"))
    _value_validation(s, _is_int_or_string_any_of(s), _is_int_or_string_all_of(s), lvl, path, False, errs)
    check_metadata = lvl == _ROOT or embedded
    if embedded and typ != "object":
        if not typ:
            errs.append(field.required(_child(path, "type"), "must be object if x-kubernetes-embedded-resource is true"))
        else:
            errs.append(field.invalid(_child(path, "type"), typ, "must be object if x-kubernetes-embedded-resource is true"))
    elif not typ and not ios and not pres:
        detail = {_ROOT: "must not be empty at the root", _ITEM: "must not be empty for specified array items",
                  _FIELD: "must not be empty for specified object fields"}[lvl]
        errs.append(field.required(_child(path, "type"), detail))
    if embedded and has_ap:
        errs.append(field.forbidden(_child(path, "additionalProperties"),
                                    "must not be used if x-kubernetes-embedded-resource is set"))
    if lvl == _ROOT and typ and typ != "object":
        errs.append(field.invalid(_child(path, "type"), typ, "must be object at the root"))
    for name in ("kind", "apiVersion"):
        if name in props and check_metadata:
            t = props[name].get("type") or "" if isinstance(props[name], Mapping) else ""
            if t != "string":
                errs.append(field.invalid(_child(path, "properties").key(name).child("type"), t, "must be string"))
    if "metadata" in props and isinstance(props["metadata"], Mapping):
        _metadata_invariants(props["metadata"], check_metadata, lvl, _child(path, "properties").key("metadata"), errs)
    if embedded and not pres and not props:
        errs.append(field.required(_child(path, "properties"),
                                   "must not be empty if x-kubernetes-embedded-resource is true without "
                                   "x-kubernetes-preserve-unknown-fields"))


def _metadata_invariants(s: Mapping[str, Any], check: bool, lvl: int, path: Path, errs: ErrorList) -> None:
    typ = s.get("type") or ""
    if check and typ != "object":
        errs.append(field.invalid(path.child("type"), typ, "must be object"))
    if lvl != _ROOT:
        return
    rest = {k: v for k, v in s.items() if k not in ("type", "default") and v not in (None, False, "", [], {})}
    props = rest.get("properties")
    if props is not None and set(props) <= {"name", "generateName"}:
        del rest["properties"]
    if rest:
        errs.append(field.forbidden(path, "must not specify anything other than name and generateName, but "
                                          "metadata is implicitly specified"))


def _value_validation(s: Mapping[str, Any], skip_any_of: bool, skip_first_all_of_any_of: bool, lvl: int,
                      path: Path | None, allow_x_validations: bool, errs: ErrorList) -> None:
    if not skip_any_of:
        for i, sub in enumerate(s.get("anyOf") or ()):
            _nested_value_validation(sub, False, lvl, _child(path, "anyOf").index(i), False, errs)
    for i, sub in enumerate(s.get("allOf") or ()):
        _nested_value_validation(sub, skip_first_all_of_any_of and i == 0, lvl, _child(path, "allOf").index(i),
                                 allow_x_validations, errs)
    for i, sub in enumerate(s.get("oneOf") or ()):
        _nested_value_validation(sub, False, lvl, _child(path, "oneOf").index(i), False, errs)
    if isinstance(s.get("not"), Mapping):
        _nested_value_validation(s["not"], False, lvl, _child(path, "not"), False, errs)
    pattern = s.get("pattern")
    if pattern:
        err = _go_regexp_error(pattern)
        if err is not None:
            errs.append(field.invalid(_child(path, "pattern"), pattern,
                                      f"must be a valid regular expression, but isn't: {err}"))


def _nested_value_validation(v: Any, skip_any_of: bool, lvl: int, path: Path, allow_x_validations: bool,
                             errs: ErrorList) -> None:
    """Go ``validateNestedValueValidation`` (ValidateStructural's options: no nested
    additionalProperties, no nested x-kubernetes-validations)."""
    if not isinstance(v, Mapping):
        return
    _value_validation(v, skip_any_of, False, lvl, path, False, errs)
    if _items(v) is not None:
        _nested_value_validation(_items(v), False, lvl, path.child("items"), False, errs)
    props = v.get("properties") or {}
    for k in sorted(props):
        _nested_value_validation(props[k], False, _FIELD, path.child("properties").key(k), False, errs)
    if v.get("type"):
        errs.append(field.forbidden(path.child("type"), "must be empty to be structural"))
    ap = v.get("additionalProperties")
    if isinstance(ap, Mapping) or ap is True:
        errs.append(field.forbidden(path.child("additionalProperties"), "must be undefined to be structural"))
    if "default" in v:
        errs.append(field.forbidden(path.child("default"), "must be undefined to be structural"))
    for key, detail in (("title", "must be empty to be structural"), ("description", "must be empty to be structural"),
                        ("nullable", "must be false to be structural"),
                        ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
                        ("x-kubernetes-embedded-resource", "must be false to be structural"),
                        ("x-kubernetes-int-or-string", "must be false to be structural"),
                        ("x-kubernetes-list-map-keys", "must be empty to be structural")):
        if v.get(key):
            errs.append(field.forbidden(path.child(key), detail))
    for key in ("x-kubernetes-list-type", "x-kubernetes-map-type"):
        if v.get(key) is not None:
            errs.append(field.forbidden(path.child(key), "must be undefined to be structural"))
    if v.get("x-kubernetes-validations") and not allow_x_validations:
        errs.append(field.forbidden(path.child("x-kubernetes-validations"), "must be empty to be structural"))
    if "metadata" in props:
        errs.append(field.forbidden(path.child("properties").key("metadata"), "must not be specified in a nested context"))


def _value_validation_completeness(v: Mapping[str, Any], s: Mapping[str, Any] | None, s_path: Path | None,
                                   v_path: Path | None, errs: ErrorList) -> None:
    """Go ``validateValueValidationCompleteness``: what allOf/anyOf/oneOf/not speak of must
    be specified in the structural part of the schema."""
    if isinstance(v.get("not"), Mapping):
        _nested_completeness(v["not"], s, s_path, _child(v_path, "not"), errs)
    for key in ("allOf", "anyOf", "oneOf"):
        for i, sub in enumerate(v.get(key) or ()):
            _nested_completeness(sub, s, s_path, _child(v_path, key).index(i), errs)


def _nested_completeness(v: Any, s: Mapping[str, Any] | None, s_path: Path | None, v_path: Path,
                         errs: ErrorList) -> None:
    if not isinstance(v, Mapping):
        return
    if s is None:
        errs.append(field.required(s_path, f"because it is defined in {v_path}"))
        return
    _value_validation_completeness(v, s, s_path, v_path, errs)
    if _items(v) is not None:
        _nested_completeness(_items(v), _items(s), _child(s_path, "items"), v_path.child("items"), errs)
    s_props = s.get("properties") or {}
    for k in sorted(v.get("properties") or {}):
        sub = v["properties"][k]
        if k not in s_props:
            errs.append(field.required(_child(s_path, "properties").key(k),
                                       f"because it is defined in {v_path.child('properties').key(k)}"))
        else:
            _nested_completeness(sub, s_props[k], _child(s_path, "properties").key(k),
                                 v_path.child("properties").key(k), errs)


# --------------------------------------------------------------------------- defaults


def _prune(x: Any, s: Mapping[str, Any] | None, embedded: bool) -> None:
    """pruning.Prune on a JSON tree (the default value of a schema node)."""
    if s is None:
        stack = [x]
        while stack:
            v = stack.pop()
            if isinstance(v, dict):
                v.clear()
            elif isinstance(v, list):
                stack.extend(v)
        return
    preserve = bool(s.get("x-kubernetes-preserve-unknown-fields"))
    if isinstance(x, dict):
        props = s.get("properties") or {}
        has_ap, ap = _additional(s)
        for k in list(x):
            if embedded and k in _META_FIELDS:
                continue
            if k in props:
                _prune(x[k], props[k], bool(props[k].get("x-kubernetes-embedded-resource")))
            elif has_ap:
                _prune(x[k], ap, bool(ap and ap.get("x-kubernetes-embedded-resource")))
            elif not preserve:
                del x[k]
    elif isinstance(x, list):
        item = _items(s)
        if item is None and preserve:
            return
        for v in x:
            _prune(v, item, bool(item and item.get("x-kubernetes-embedded-resource")))


def _default_rule_errors(s: Mapping[str, Any], value: Any, path: Path, root: bool) -> ErrorList:
    """The x-kubernetes-validations of a node run on its default (Go: the default as self and
    oldSelf, then, when that passes, without oldSelf as ratcheting's second pass)."""
    from kcodec.api.apiextensions import cel

    if not cel.has_validation_rules(s) or not cel.cel_available():
        return ErrorList()
    validator = cel.new_validator(s, root)
    if validator is None:
        return ErrorList()
    errs = validator.validate(value, copy.deepcopy(value), path)
    if not errs:
        errs = validator.validate(value, None, path)
    return errs


def _validate_defaults(s: Mapping[str, Any] | None, path: Path, root: bool, inside_meta: bool,
                       require_pruned: bool, errs: ErrorList, root_schema: Mapping[str, Any] | None = None,
                       meta_path: tuple[Any, ...] = ()) -> None:
    """Go defaulting ``ValidateDefaults``: each default must survive pruning, give valid
    embedded-resource metadata (a default inside ``metadata``, ``apiVersion`` or ``kind`` is
    checked in the object it would build), and pass its node's schema and rules.
    *meta_path* is the place below the nearest resource root (Go's SurroundingObjectFunc):
    keys, and None for an array item."""
    from kcodec.api.apiextensions._validation import validate_custom_resource

    if not isinstance(s, Mapping):
        return
    embedded = root or bool(s.get("x-kubernetes-embedded-resource"))
    if embedded:
        inside_meta, root_schema, meta_path = False, s, ()
    if "default" in s:
        value = s["default"]
        dpath = path.child("default")
        node = {k: v for k, v in s.items() if k != "default"}
        if inside_meta:
            obj = _surrounding_object(meta_path, copy.deepcopy(value))
            err = _coerce_meta(None, obj, root_schema, True)
            merrs = ErrorList() if err is not None else _validate_meta(None, obj, root_schema, True)
            if err is not None:
                errs.append(field.invalid(dpath, value, f"must result in valid metadata: {err}"))
            elif merrs:
                errs.append(field.invalid(dpath, value, f"must result in valid metadata: {merrs.to_aggregate()}"))
            else:
                value_errs = validate_custom_resource(value, node, dpath)
                errs.extend(value_errs or _default_rule_errors(node, value, dpath, embedded))
        else:
            if require_pruned:
                pruned = copy.deepcopy(value)
                _prune(pruned, s, embedded)
                if pruned != value:
                    errs.append(field.invalid(dpath, value, "must not have unknown fields"))
            err = _coerce_meta(dpath, value, s, embedded)
            merrs = ErrorList() if err is not None else _validate_meta(dpath, value, s, embedded)
            if err is not None:
                errs.append(err)
            elif merrs:
                errs.extend(merrs)
            else:
                value_errs = validate_custom_resource(value, node, dpath)
                errs.extend(value_errs or _default_rule_errors(node, value, dpath, embedded))
    items = _items(s)
    if items is not None:
        _validate_defaults(items, path.child("items"), False, inside_meta, require_pruned, errs, root_schema,
                           meta_path + (None,))
    props = s.get("properties") or {}
    for k in sorted(props):
        _validate_defaults(props[k], path.child("properties").key(k), False,
                           inside_meta or (embedded and k in _META_FIELDS), require_pruned, errs, root_schema,
                           meta_path + (k,))


def _surrounding_object(meta_path: tuple[Any, ...], value: Any) -> Any:
    """defaulting surroundingobject.go: the resource a default at *meta_path* builds, with
    the TypeMeta validation/v1 Validation where the default does not set it."""
    for step in reversed(meta_path):
        value = [value] if step is None else {step: value}
    if isinstance(value, dict):
        value.setdefault("kind", "Validation")
        value.setdefault("apiVersion", "validation/v1")
    return value


def _object_meta(x: Mapping[str, Any]) -> tuple[Any, str | None]:
    """objectmeta.GetObjectMeta (no dropping): the ObjectMeta of x["metadata"] and Go's
    json.Unmarshal error text."""
    from kcodec.api.meta import v1 as metav1
    from kcodec.errors import KCodecError
    from kcodec.model import from_tree

    try:
        return from_tree(metav1.ObjectMeta, x["metadata"]), None
    except KCodecError as exc:
        return None, str(exc)


def _coerce_meta(path: Path | None, x: Any, s: Mapping[str, Any] | None, resource_root: bool) -> Any:
    """objectmeta.Coerce without dropping: the first field error of an embedded resource's
    apiVersion, kind or metadata, None when there is none."""
    if not isinstance(s, Mapping):
        return None
    embedded = resource_root or bool(s.get("x-kubernetes-embedded-resource"))
    if isinstance(x, dict):
        props = s.get("properties") or {}
        has_ap, ap = _additional(s)
        for k in sorted(x):
            v = x[k]
            if embedded and k in ("apiVersion", "kind") and not isinstance(v, str):
                return field.invalid(_child(path, k), v, "must be a string")
            if embedded and k == "metadata":
                _, err = _object_meta(x)
                if err is not None:
                    return field.invalid(_child(path, "metadata"), v, err)
            if k in props:
                sub_err = _coerce_meta(_child(path, k), v, props[k], False)
            elif has_ap:
                sub_err = _coerce_meta(path.key(k) if path is not None else Path("").key(k), v, ap, False)
            else:
                sub_err = None
            if sub_err is not None:
                return sub_err
    elif isinstance(x, list):
        for i, v in enumerate(x):
            sub_err = _coerce_meta(path.index(i) if path is not None else Path("").index(i), v, _items(s), False)
            if sub_err is not None:
                return sub_err
    return None


def _validate_meta(path: Path | None, x: Any, s: Mapping[str, Any] | None, resource_root: bool) -> ErrorList:
    """objectmeta.Validate: the apiVersion, kind and metadata of every embedded resource."""
    errs = ErrorList()
    if not isinstance(s, Mapping):
        return errs
    embedded = resource_root or bool(s.get("x-kubernetes-embedded-resource"))
    if isinstance(x, dict):
        if embedded:
            errs.extend(_validate_embedded_resource(path, x))
        props = s.get("properties") or {}
        has_ap, ap = _additional(s)
        for k in sorted(x):
            if k in props:
                errs.extend(_validate_meta(_child(path, k), x[k], props[k], False))
            elif has_ap:
                errs.extend(_validate_meta(path.key(k) if path is not None else Path("").key(k), x[k], ap, False))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            errs.extend(_validate_meta(path.index(i) if path is not None else Path("").index(i), v, _items(s), False))
    return errs


def _validate_embedded_resource(path: Path | None, x: Mapping[str, Any]) -> ErrorList:
    """objectmeta validateEmbeddedResource."""
    errs = ErrorList()
    for k in ("apiVersion", "kind"):
        if k not in x:
            errs.append(field.required(_child(path, k), ""))
    if "apiVersion" in x:
        v = x["apiVersion"]
        if not isinstance(v, str):
            errs.append(field.invalid(_child(path, "apiVersion"), v, "must be a string"))
        elif not v:
            errs.append(field.invalid(_child(path, "apiVersion"), v, "must not be empty"))
        elif v != "/" and v.count("/") > 1:
            errs.append(field.invalid(_child(path, "apiVersion"), v, f"unexpected GroupVersion string: {v}"))
    if "kind" in x:
        v = x["kind"]
        if not isinstance(v, str):
            errs.append(field.invalid(_child(path, "kind"), v, "must be a string"))
        elif not v:
            errs.append(field.invalid(_child(path, "kind"), v, "must not be empty"))
        elif _dns1035(v.lower()):
            errs.append(field.invalid(_child(path, "kind"), v,
                                      "may have mixed case, but should otherwise match: " + _dns1035(v.lower())))
    if "metadata" in x:
        meta, err = _object_meta(x)
        if err is not None:
            errs.append(field.invalid(_child(path, "metadata"), x["metadata"], err))
        else:
            if not meta.name:
                meta.name = "fakename"  # as Go: something to avoid the required-name error
            errs.extend(om.validate_object_meta(meta, bool(meta.namespace), names.validate_path_segment_name,
                                                _child(path, "metadata")))
    return errs
