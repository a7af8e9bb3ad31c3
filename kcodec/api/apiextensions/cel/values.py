"""CEL values of JSON data under a structural schema (Go: k8s.io/apiserver
``pkg/cel/common/values.go`` and ``valuesunstructured.go``: objects, maps, lists,
int-or-string, ``format`` strings as durations, timestamps and bytes, and the set and map
list types with their equality and concatenation), with cel-go's heterogeneous equality
(``common/types``) and optional values (``common/types/optional.go``).
"""
from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from kcodec.api.apiextensions.cel import loader
from kcodec.api.apiextensions.cel.escaping import escape
from kcodec.api.apiextensions.cel.model import _additional, _fields, _is_dyn

__all__: list[str] = []


class _EvalError(Exception):
    """A rule failed to evaluate; the text is Go's."""


# cel-go common/types/err.go: the error of a call no overload accepts
_NO_OVERLOAD = "no such overload"


def _overload() -> _EvalError:
    return _EvalError(_NO_OVERLOAD)


def _set_list(items: list[Any]) -> Any:
    """A list with x-kubernetes-list-type set: compared and concatenated as a set
    (apiserver common/valuesunstructured.go unstructuredSetList)."""
    return _celpy_list_class("set")(items)


def _map_list_value(items: list[Any], keys: list[str]) -> Any:
    """A list with x-kubernetes-list-type map: compared by key, and concatenation replaces
    items with the same keys (unstructuredMapList)."""
    v = _celpy_list_class("map")(items)
    v.keys = tuple(escape(k) or k for k in keys)
    return v


# The set and map list classes, made once celpy is loaded (they subclass its ListType).
_LIST_CLASSES: dict[str, type] = {}


def _celpy_list_class(kind: str) -> type:
    cls = _LIST_CLASSES.get(kind)
    if cls is None:
        base = loader.celpy.celtypes.ListType
        attrs: dict[str, Any] = {"__slots__": () if kind == "set" else ("keys",), "list_type": kind}
        cls = type("SetList" if kind == "set" else "MapList", (base,), attrs)
        _LIST_CLASSES[kind] = cls
    return cls


def _member(value: Any, s: Mapping[str, Any] | None, is_resource: bool) -> Any:
    """A field, item or map value: data that does not fit its schema is an error value, which
    fails only the rules that read it (valuesunstructured.go returns types.Err there)."""
    try:
        return _to_cel(value, s, is_resource)
    except _EvalError as exc:
        return loader.celpy.evaluation.CELEvalError(str(exc))


def _to_cel(value: Any, s: Mapping[str, Any] | None, is_resource: bool = False) -> Any:
    celpy = loader.celpy
    ct = celpy.celtypes
    if value is None:
        if s is not None and not s.get("nullable") and not _is_dyn(s):
            raise _EvalError("invalid data, got null for schema with nullable=false")
        return None
    if s is not None and s.get("x-kubernetes-int-or-string") and not s.get("type"):
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise _EvalError("invalid data, expected XIntOrString value to be either a string or integer")
        return ct.IntType(value) if isinstance(value, int) else ct.StringType(value)
    if s is None or _is_dyn(s):
        return _json_to_cel(value)
    t = s.get("type")
    if t == "object":
        if not isinstance(value, Mapping):
            raise _EvalError("invalid data, expected a map for the provided schema with type=object")
        fields = _fields(s, is_resource)
        if fields is None:
            ap = _additional(s)
            emb = bool(ap and ap.get("x-kubernetes-embedded-resource"))
            return ct.MapType({ct.StringType(k): _member(v, ap, emb) for k, v in value.items()})
        out = {}
        declared = set()
        for esc, (name, sub) in fields.items():
            declared.add(name)
            if value.get(name) is not None:
                out[ct.StringType(esc)] = _member(value[name], sub, bool(sub.get("x-kubernetes-embedded-resource")))
        # Fields the type does not declare cannot be selected (the compile checks refuse
        # them) but are part of the value, as in Go's unstructured objects: equality sees them.
        for name, v in value.items():
            if name not in declared and name not in out and not (is_resource and name == "metadata"):
                out[ct.StringType(name)] = _json_to_cel(v)
        return ct.MapType(out)
    if t == "array":
        if not isinstance(value, list):
            raise _EvalError("invalid data, expected an array for the provided schema with type=array")
        items = s.get("items") if isinstance(s.get("items"), Mapping) else None
        emb = bool(items and items.get("x-kubernetes-embedded-resource"))
        converted = [_member(v, items, emb) for v in value]
        list_type = s.get("x-kubernetes-list-type")
        if list_type == "set":
            return _set_list(converted)
        if list_type == "map":
            return _map_list_value(converted, list(s.get("x-kubernetes-list-map-keys") or ()))
        return ct.ListType(converted)
    if t == "string":
        if not isinstance(value, str):
            raise _EvalError(f"invalid data, expected string, got {_go_type(value)}")
        fmt = s.get("format")
        if fmt == "duration":
            try:
                return ct.DurationType(value)
            except Exception:  # noqa: BLE001 - celpy raises ValueError or its own errors
                raise _EvalError(f"Invalid duration {value}") from None
        if fmt in ("date", "date-time"):
            try:
                return ct.TimestampType(value if fmt == "date-time" else value + "T00:00:00Z")
            except Exception:  # noqa: BLE001
                raise _EvalError(f"Invalid {fmt} formatted string {value}") from None
        if fmt == "byte":
            try:
                return ct.BytesType(base64.b64decode(value, validate=True))
            except (binascii.Error, ValueError):
                raise _EvalError(f"Invalid byte formatted string {value}") from None
        return ct.StringType(value)
    if t == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _EvalError(f"invalid data, expected float, got {_go_type(value)}")
        return ct.DoubleType(float(value))
    if t == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _EvalError(f"invalid data, expected int, got {_go_type(value)}")
        return ct.IntType(value)
    if t == "boolean":
        if not isinstance(value, bool):
            raise _EvalError(f"invalid data, expected bool, got {_go_type(value)}")
        return ct.BoolType(value)
    return _json_to_cel(value)


def _go_type(v: Any) -> str:
    return {bool: "bool", int: "int64", float: "float64", str: "string", list: "[]interface {}",
            dict: "map[string]interface {}"}.get(type(v), type(v).__name__)


def _json_to_cel(value: Any) -> Any:
    ct = loader.celpy.celtypes
    if value is None:
        return None
    if isinstance(value, bool):
        return ct.BoolType(value)
    if isinstance(value, int):
        return ct.IntType(value)
    if isinstance(value, float):
        return ct.DoubleType(value)
    if isinstance(value, str):
        return ct.StringType(value)
    if isinstance(value, list):
        return ct.ListType([_json_to_cel(v) for v in value])
    if isinstance(value, Mapping):
        return ct.MapType({ct.StringType(k): _json_to_cel(v) for k, v in value.items()})
    return value


class _Optional:
    """cel-go's optional value (``optional.of(x)``, ``optional.none()``): the type of
    ``oldSelf`` in a rule with optionalOldSelf, and of the format library's results."""

    __slots__ = ("v", "present")

    def __init__(self, v: Any, present: bool = True) -> None:
        self.v = v
        self.present = present

    def __repr__(self) -> str:
        return f"optional.of({self.v!r})" if self.present else "optional.none()"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Optional) or self.present != other.present:
            return False
        return not self.present or _cel_equal(self.v, other.v)

    def __hash__(self) -> int:
        return hash(("optional", self.present))


_NONE = _Optional(None, False)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _key_of(item: Any, keys: tuple[str, ...]) -> Any:
    if not isinstance(item, Mapping):
        return None
    return tuple(repr(item.get(k)) for k in keys)


def _cel_equal(a: Any, b: Any) -> bool:
    """cel-go's heterogeneous equality: numbers by value, values of different types are
    unequal (not an error), lists of type set or map compare without order."""
    if _is_num(a) and _is_num(b):
        # celpy's numeric types refuse to compare across types; cel-go compares values
        if isinstance(a, float) or isinstance(b, float):
            return float(a) == float(b)
        return int(a) == int(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and bool(a) == bool(b)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) and isinstance(b, list):
        kind = getattr(a, "list_type", None) or getattr(b, "list_type", None)
        if len(a) != len(b):
            return False
        if kind == "set":
            return all(any(_cel_equal(x, y) for y in b) for x in a) and all(any(_cel_equal(y, x) for x in a) for y in b)
        if kind == "map":
            keys = getattr(a, "keys", None) or getattr(b, "keys", None) or ()
            bm = {_key_of(y, keys): y for y in b}
            return all(_key_of(x, keys) in bm and _cel_equal(x, bm[_key_of(x, keys)]) for x in a)
        return all(_cel_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_cel_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, Mapping)) or isinstance(b, (list, Mapping)):
        return False
    if isinstance(a, _Optional) or isinstance(b, _Optional):
        return a == b
    if type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - celpy's own comparisons raise on odd pairs
        return False


def _concat(a: Any, b: Any) -> Any:
    """``_+_`` of lists with set and map semantics (the left list's type decides)."""
    kind = getattr(a, "list_type", None)
    if kind == "set":
        out = list(a)
        for x in b:
            if not any(_cel_equal(x, y) for y in out):
                out.append(x)
        return _set_list(out)
    if kind == "map":
        keys = a.keys
        index = {_key_of(x, keys): i for i, x in enumerate(a)}
        out = list(a)
        for y in b:
            k = _key_of(y, keys)
            if k in index:
                out[index[k]] = y
            else:
                index[k] = len(out)
                out.append(y)
        return _map_list_value(out, list(keys))
    return loader.celpy.celtypes.ListType(list(a) + list(b))
