"""Validation and defaulting of custom resources by their CRD's structural schema.

- :func:`validate_custom_resource`: k8s.io/apiextensions-apiserver
  ``pkg/apiserver/validation/validation.go`` (``ValidateCustomResource`` and
  ``kubeOpenAPIResultToFieldErrors``) over k8s.io/kube-openapi ``pkg/validation/validate``
  (the type, string, format, number, slice, common (enum) and object validators, in that
  order, with the ``in body`` message texts of ``pkg/validation/errors``);
- :func:`validate_list_sets_and_maps`: ``pkg/apiserver/schema/listtype/validation.go``;
- :func:`default_custom_resource`: ``pkg/apiserver/schema/defaulting/algorithm.go``.

Schemas and objects are JSON trees (the ``openAPIV3Schema`` of a CRD version as
``to_dict()`` gives it, and ``Unstructured`` content). Go walks an object's properties in
map order, which varies from run to run; here they are walked in sorted order.
"""
from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import math
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from kcodec.gofmt import format_g
from kcodec.validation import field
from kcodec.validation.field import ErrorList

__all__ = ["validate_custom_resource", "validate_list_sets_and_maps", "default_custom_resource", "SUPPORTED_FORMATS"]

_IN = "body"

#: apiextensions-apiserver validation/formats.go: the string formats a CRD may use (others
#: are stripped, after go-openapi's normalisation that drops "-").
SUPPORTED_FORMATS = frozenset({
    "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3", "uuid4", "uuid5",
    "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte", "password", "date",
    "duration", "datetime", "k8s-short-name", "k8s-long-name",
})

# Go's validation error codes that kubeOpenAPIResultToFieldErrors maps to field errors.
_REQUIRED, _ENUM, _TOO_LONG, _MAX_ITEMS, _TOO_MANY_PROPS, _INVALID_TYPE, _OTHER = range(7)


class _Err:
    __slots__ = ("code", "name", "message", "value", "valid", "values")

    def __init__(self, code: int, name: str, message: str, value: Any = None, valid: Any = None,
                 values: list[Any] | None = None) -> None:
        self.code, self.name, self.message = code, name, message
        self.value, self.valid, self.values = value, valid, values


def _go_v(v: Any) -> str:
    """fmt's %v of a JSON value (strings bare, floats %g, maps map[k:v], slices [a b])."""
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return format_g(v)
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "[" + " ".join(_go_v(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "map[" + " ".join(f"{k}:{_go_v(v[k])}" for k in sorted(v)) + "]"
    return str(v)


def _go_q(s: str) -> str:
    from kcodec.gofmt import quote

    return quote(s)


def _schema_type(data: Any) -> str:
    # typeValidator.schemaInfoForType over JSON values
    if isinstance(data, bool):
        return "boolean"
    if isinstance(data, int):
        return "integer"
    if isinstance(data, float):
        return "number"
    if isinstance(data, str):
        return "string"
    if isinstance(data, list):
        return "array"
    return "object"


def _types(s: Mapping[str, Any]) -> list[str]:
    if s.get("x-kubernetes-int-or-string"):
        return ["integer", "string"]  # ConvertJSONSchemaProps
    t = s.get("type")
    if isinstance(t, list):  # a JSON Schema type array (CRDs name one type)
        return [str(x) for x in t]
    return [t] if t else []


def _format(s: Mapping[str, Any]) -> str:
    # StripUnsupportedFormatsPostProcessorForVersion
    fmt = s.get("format") or ""
    t = _types(s)
    kind = t[0] if len(t) == 1 else ""
    if kind in ("", "string"):
        return fmt if fmt.replace("-", "") in SUPPORTED_FORMATS or fmt in SUPPORTED_FORMATS else ""
    if kind == "integer":
        return fmt if fmt in ("int32", "int64") else ""
    if kind == "number":
        return fmt if fmt in ("float", "double") else ""
    return fmt


def _invalid_type(name: str, type_name: str, value: Any) -> _Err:
    if isinstance(value, str):
        msg = f"{name} in {_IN} must be of type {type_name}: {_go_q(value)}"
    else:
        msg = f"{name} in {_IN} must be of type {type_name}"
    return _Err(_INVALID_TYPE, name, msg, value)


def _is_json_integer(x: float) -> bool:
    return math.isfinite(x) and x == math.floor(x) and abs(x) < 2 ** 63


def _type_errors(s: Mapping[str, Any], path: str, data: Any) -> list[_Err]:
    types = _types(s)
    fmt = _format(s)
    if not types and not fmt:
        return []
    if data is None:
        if types and "null" not in types and not s.get("nullable"):
            return [_invalid_type(path, ",".join(types), "null")]
        return []
    sch = _schema_type(data)
    fmt_of = {"integer": "int64", "number": "float64"}.get(sch, "")
    float_int = sch == "number" and _is_json_integer(data) and "integer" in types
    int_float = sch == "integer" and "number" in types
    lower = (fmt == "int64" and fmt_of == "int32") or (fmt == "float64" and fmt_of == "float32")
    if not isinstance(data, (str, list)) and fmt and not (sch in types or fmt_of == fmt or float_int
                                                         or int_float or lower):
        return [_invalid_type(path, fmt, fmt_of)]
    if not ("number" in types or "integer" in types) and fmt and isinstance(data, (str, list)):
        return []
    if not (sch in types or float_int or int_float):
        return [_invalid_type(path, ",".join(types), sch)]
    return []


def _string_errors(s: Mapping[str, Any], path: str, data: str) -> list[_Err]:
    n = len(data)
    max_len = s.get("maxLength")
    if max_len is not None and n > max_len:
        return [_Err(_TOO_LONG, path, f"{path} in {_IN} should be at most {max_len} chars long", data, max_len)]
    min_len = s.get("minLength")
    if min_len is not None and n < min_len:
        return [_Err(_OTHER, path, f"{path} in {_IN} should be at least {min_len} chars long", data, min_len)]
    pattern = s.get("pattern")
    if pattern:
        try:
            ok = re.search(pattern, data) is not None
        except re.error as exc:
            return [_Err(_OTHER, path, f"{path} in {_IN} should match '{pattern}, but pattern is invalid: "
                                       f"{exc}'", data)]
        if not ok:
            return [_Err(_OTHER, path, f"{path} in {_IN} should match '{pattern}'", data)]
    return []


_HOSTNAME = re.compile(r"^([a-zA-Z0-9]((-?[a-zA-Z0-9]{0,62})?)|([a-zA-Z0-9](([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.)){1,}"
                       r"([a-zA-Z]){2,63})$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
_MAC = re.compile(r"^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$|^([0-9A-Fa-f]{4}\.){2}([0-9A-Fa-f]{4})$")
_UUID = {
    "uuid": r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
    "uuid3": r"^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
    "uuid4": r"^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
    "uuid5": r"^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
}
_DURATION = re.compile(r"^(\d+(\.\d+)?(ns|us|µs|μs|ms|s|m|h))+$|^\d+\s*(ns|us|ms|s|m|h|d|w|"
                       r"nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$")


def _format_ok(fmt: str, v: str) -> bool:
    f = fmt.replace("-", "")
    try:
        if f == "datetime":
            if not _DATETIME.match(v):
                return False
            datetime.fromisoformat(v[:19].replace("t", "T").replace(" ", "T"))
            return True
        if f == "date":
            datetime.strptime(v, "%Y-%m-%d")
            return True
        if f == "byte":
            base64.b64decode(v, validate=True)
            return True
        if f in _UUID:
            return re.match(_UUID[f], v, re.I) is not None
        if f == "ipv4":
            return isinstance(ipaddress.ip_address(v), ipaddress.IPv4Address)
        if f == "ipv6":
            return isinstance(ipaddress.ip_address(v), ipaddress.IPv6Address)
        if f == "cidr":
            ipaddress.ip_network(v, strict=False)
            return "/" in v
        if f == "mac":
            return _MAC.match(v) is not None
        if f == "hostname":
            return _HOSTNAME.match(v) is not None
        if f == "email":
            return _EMAIL.match(v) is not None
        if f == "uri":
            return v.startswith("/") or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", v) is not None
        if f == "duration":
            return _DURATION.match(v) is not None
        if f == "k8s-short-name":
            return re.match(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", v) is not None and len(v) <= 63
        if f == "k8s-long-name":
            return re.match(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", v) is not None \
                and len(v) <= 253
    except (ValueError, binascii.Error):
        return False
    return True  # password, bsonobjectid and the rest accept any string here


def _number_errors(s: Mapping[str, Any], path: str, data: int | float) -> list[_Err]:
    out: list[_Err] = []
    types = _types(s)
    type_name = types[0] if len(types) == 1 else ""
    fmt = _format(s)
    if type_name == "integer" and fmt == "int32" and isinstance(data, int) and not -2**31 <= data < 2**31:
        out.append(_Err(_OTHER, "", f"Checked value must be of type integer with format int32 in {path}"))
    multiple = s.get("multipleOf")
    if multiple is not None:
        if multiple <= 0:
            out.append(_Err(_OTHER, path, f"factor MultipleOf declared for {path} must be positive: "
                                          f"{_go_v(float(multiple))}", multiple))
        elif isinstance(data, int) and float(multiple).is_integer():
            if data % int(multiple):
                out.append(_Err(_OTHER, path, f"{path} in {_IN} should be a multiple of {int(multiple)}", data))
        else:
            q = data / multiple
            if not math.isclose(q, round(q), abs_tol=1e-9):
                out.append(_Err(_OTHER, path, f"{path} in {_IN} should be a multiple of {_go_v(float(multiple))}",
                                data))
    for key, excl, word, cmp in (("minimum", "exclusiveMinimum", "greater", lambda a, b, e: a <= b if e else a < b),
                                 ("maximum", "exclusiveMaximum", "less", lambda a, b, e: a >= b if e else a > b)):
        bound = s.get(key)
        if bound is None:
            continue
        exclusive = bool(s.get(excl))
        if isinstance(data, int):
            b = int(bound)
            if cmp(data, b, exclusive):
                shown = str(b)
            else:
                continue
        else:
            if cmp(float(data), float(bound), exclusive):
                shown = _go_v(float(bound))
            else:
                continue
        rel = f"should be {word} than {shown}" if exclusive else f"should be {word} than or equal to {shown}"
        out.append(_Err(_OTHER, path, f"{path} in {_IN} {rel}", data))
    # numberValidator merges multipleOf, then minimum, then maximum
    return out


def _unique(data: list[Any]) -> bool:
    seen: list[str] = []
    for v in data:
        text = json.dumps(v, sort_keys=True)
        if text in seen:
            return False
        seen.append(text)
    return True


def _validate(s: Mapping[str, Any] | None, path: str, data: Any, out: list[_Err]) -> None:
    if not isinstance(s, Mapping):
        return
    out.extend(_type_errors(s, path, data))
    if data is None:
        _enum(s, path, data, out)
        return
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in s.get(key) or []:
            if key == "allOf":
                _validate(sub, path, data, out)
    if isinstance(data, str):
        out.extend(_string_errors(s, path, data))
        fmt = _format(s)
        if fmt and not _format_ok(fmt, data):
            out.append(_invalid_type(path, fmt, data))
    elif isinstance(data, (int, float)) and not isinstance(data, bool):
        out.extend(_number_errors(s, path, data))
    elif isinstance(data, list):
        items = s.get("items")
        if isinstance(items, Mapping):
            for i, v in enumerate(data):
                _validate(items, f"{path}[{i}]", v, out)
        n = len(data)
        if s.get("minItems") is not None and n < s["minItems"]:
            out.append(_Err(_OTHER, path, f"{path} in {_IN} should have at least {s['minItems']} items", n))
        if s.get("maxItems") is not None and n > s["maxItems"]:
            out.append(_Err(_MAX_ITEMS, path, f"{path} in {_IN} should have at most {s['maxItems']} items", n,
                            s["maxItems"]))
        if s.get("uniqueItems") and not _unique(data):
            out.append(_Err(_OTHER, path, f"{path} in {_IN} shouldn't contain duplicates"))
    _enum(s, path, data, out)
    if isinstance(data, Mapping):
        _object(s, path, data, out)


def _enum(s: Mapping[str, Any], path: str, data: Any, out: list[_Err]) -> None:
    enum = s.get("enum")
    if not enum:
        return
    for allowed in enum:
        if _json_equal(allowed, data):
            return
    out.append(_Err(_ENUM, path, f"{path} in {_IN} should be one of {_go_v(list(enum))}", data, values=list(enum)))


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True) or (
        isinstance(a, (int, float)) and isinstance(b, (int, float)) and a == b)


def _object(s: Mapping[str, Any], path: str, data: Mapping[str, Any], out: list[_Err]) -> None:
    n = len(data)
    if s.get("minProperties") is not None and n < s["minProperties"]:
        out.append(_Err(_OTHER, path, f"{path} in {_IN} should have at least {s['minProperties']} properties", n))
    if s.get("maxProperties") is not None and n > s["maxProperties"]:
        out.append(_Err(_TOO_MANY_PROPS, path, f"{path} in {_IN} should have at most {s['maxProperties']} properties",
                        n, s["maxProperties"]))
    props = s.get("properties") or {}
    extra = s.get("additionalProperties")
    if extra is False:
        for k in sorted(data):
            if k not in props:
                out.append(_Err(_OTHER, path, f"{path}.{k} in {_IN} is a forbidden property", k))
    elif isinstance(extra, Mapping):
        for k in sorted(data):
            if k not in props:
                _validate(extra, f"{path}.{k}", data[k], out)
    for name in sorted(props):
        if name in data:
            _validate(props[name], f"{path}.{name}" if path else name, data[name], out)
    for name in s.get("required") or []:
        if name not in data:
            out.append(_Err(_REQUIRED, f"{path}.{name}", f"{path}.{name} in {_IN} is required"))


def validate_custom_resource(obj: Any, schema: Mapping[str, Any] | None, path: Any = None) -> ErrorList:
    """The field errors of ``obj`` against a structural schema (ValidateCustomResource)."""
    if not schema:
        return ErrorList()
    errs: list[_Err] = []
    _validate(schema, "", obj, errs)
    out = ErrorList()
    for e in errs:
        name = e.name[1:] if e.name.startswith(".") else e.name
        p = _child(path, name) if name and name != "." else path
        if e.code == _REQUIRED:
            out.append(field.required(p, ""))
        elif e.code == _ENUM:
            values = [v if isinstance(v, str) else json.dumps(v, separators=(",", ":")) for v in e.values or []]
            out.append(field.not_supported(p, e.value, values))
        elif e.code == _TOO_LONG:
            out.append(field.too_long(p, "", int(e.valid) if isinstance(e.valid, int) else -1))
        elif e.code in (_MAX_ITEMS, _TOO_MANY_PROPS):
            out.append(field.too_many(p, int(e.value) if isinstance(e.value, int) else -1,
                                      int(e.valid) if isinstance(e.valid, int) else -1))
        elif e.code == _INVALID_TYPE:
            out.append(field.type_invalid(p, e.value if e.value is not None else "", e.message))
        else:
            out.append(field.invalid(p, e.value if e.value is not None else "", e.message))
    return out


def _child(path: Any, name: str) -> Any:
    if path is None:
        return field.Path(name)
    if isinstance(path, str):
        return field.Path(path).child(name) if path else field.Path(name)
    return path.child(name)


def validate_list_sets_and_maps(path: Any, schema: Mapping[str, Any] | None, obj: Any) -> ErrorList:
    """listtype/validation.go ``ValidateListSetsAndMaps``: duplicates in ``x-kubernetes-list-type``
    set and map lists."""
    out = ErrorList()
    if not schema or not isinstance(obj, Mapping):
        return out
    _list_walk_object(_as_path(path), schema, obj, out)
    return out


def _as_path(path: Any) -> Any:
    if path is None or isinstance(path, field.Path):
        return path
    return field.Path(path) if path else None


def _sub(path: Any, name: str) -> Any:
    return field.Path(name) if path is None else path.child(name)


def _list_walk_object(path: Any, s: Mapping[str, Any], obj: Mapping[str, Any], out: ErrorList) -> None:
    extra = s.get("additionalProperties")
    if isinstance(extra, Mapping):
        for k in sorted(obj):
            _list_walk(path.key(k) if path is not None else field.Path("").key(k), extra, obj[k], out)
    props = s.get("properties") or {}
    for k in sorted(obj):
        if k in props:
            _list_walk(_sub(path, k), props[k], obj[k], out)


def _list_walk(path: Any, s: Mapping[str, Any], obj: Any, out: ErrorList) -> None:
    if isinstance(obj, list):
        list_type = s.get("x-kubernetes-list-type")
        if list_type == "set":
            for i in _non_unique(obj):
                out.append(field.duplicate(path.index(i), obj[i]))
        elif list_type == "map":
            out.extend(_list_map(path, s, obj))
        items = s.get("items")
        if isinstance(items, Mapping):
            for i, x in enumerate(obj):
                _list_walk(path.index(i), items, x, out)
    elif isinstance(obj, Mapping):
        _list_walk_object(path, s, obj, out)


def _non_unique(values: list[Any]) -> list[int]:
    seen: dict[str, int] = {}
    out = []
    for i, x in enumerate(values):
        key = json.dumps(x, sort_keys=True) if isinstance(x, (dict, list)) else repr((type(x).__name__, x))
        times = seen.get(key, 0)
        seen[key] = times + 1
        if times == 1:
            out.append(i)
    return out


def _list_map(path: Any, s: Mapping[str, Any], obj: list[Any]) -> list[Any]:
    for i, x in enumerate(obj):
        if x is not None and not isinstance(x, Mapping):
            return [field.invalid(path.index(i), x, "must be an object for an array of list-type map")]
    if len(obj) <= 1:
        return []
    keys_fields = list(s.get("x-kubernetes-list-map-keys") or [])
    keys: list[Any] = []
    for x in obj:
        key = {k: x[k] for k in keys_fields if x is not None and k in x}
        keys.append(key)
    errs = []
    for i in _non_unique(keys):
        errs.append(field.duplicate(path.index(i), keys[i]))
    return errs


def _nonnullable_null(x: Any, s: Mapping[str, Any] | None) -> bool:
    return x is None and s is not None and not s.get("nullable", False)


def default_custom_resource(x: Any, s: Mapping[str, Any] | None) -> None:
    """defaulting/algorithm.go ``Default``: fill missing (or non-nullable null) properties with
    their schema ``default``, in place, recursively."""
    if not isinstance(s, Mapping):
        return
    if isinstance(x, dict):
        props = s.get("properties") or {}
        for k, prop in props.items():
            if "default" not in prop:
                continue
            if k not in x or _nonnullable_null(x[k], prop):
                x[k] = json.loads(json.dumps(prop["default"]))
        extra = s.get("additionalProperties")
        for k in list(x):
            if k in props:
                default_custom_resource(x[k], props[k])
            elif isinstance(extra, Mapping):
                if _nonnullable_null(x[k], extra) and "default" in extra:
                    x[k] = json.loads(json.dumps(extra["default"]))
                default_custom_resource(x[k], extra)
    elif isinstance(x, list):
        items = s.get("items")
        if not isinstance(items, Mapping):
            return
        for i in range(len(x)):
            if _nonnullable_null(x[i], items) and "default" in items:
                x[i] = json.loads(json.dumps(items["default"]))
            default_custom_resource(x[i], items)

