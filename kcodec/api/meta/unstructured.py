"""Map-backed API objects (Go's ``unstructured.Unstructured``) and their JSON scheme (Go: k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructured.go).

An :class:`Unstructured` wraps a JSON tree: ``dict`` / ``list`` / ``str`` / ``int`` (int64) /
``float`` (float64) / ``bool`` / ``None``. The nested helpers (``nested_string``...) read and
write such trees by key path and return ``(value, found)`` tuples; where Go returns an error
they raise :class:`kcodec.errors.KCodecError` with Go's message text, printing values and
types the way Go's ``fmt`` prints their Go counterparts (``[]interface {}``, ``map[a:1]``).

``UNSTRUCTURED_JSON_SCHEME`` is the codec Go calls ``UnstructuredJSONScheme``: it decodes
any JSON object to :class:`Unstructured` (or :class:`UnstructuredList` when a top-level
``items`` key is present) and encodes them with sorted keys.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from typing import Any, BinaryIO

from kcodec.errors import DecodeError, KCodecError, MissingKindError
from kcodec.gofmt import format_g as _go_float, quote as _go_quote
from kcodec.runtime.types import Unknown
from kcodec.schema import GroupVersionKind, parse_group_version

__all__ = [
    "Unstructured",
    "UnstructuredList",
    "UnstructuredJSONScheme",
    "UNSTRUCTURED_JSON_SCHEME",
    "deep_copy_json",
    "deep_copy_json_value",
    "nested_field_no_copy",
    "nested_field_copy",
    "nested_string",
    "nested_bool",
    "nested_float64",
    "nested_int64",
    "nested_number_as_float64",
    "nested_string_slice",
    "nested_slice",
    "nested_string_map",
    "nested_null_coercing_string_map",
    "nested_map",
    "set_nested_field",
    "set_nested_string_slice",
    "set_nested_slice",
    "set_nested_string_map",
    "set_nested_map",
    "remove_nested_field",
]

# Far deeper than anything the JSON decoder accepts (Go's limit is 10000): only a cyclic or
# absurdly nested structure built in Python gets there; stop instead of allocating forever.
MAX_COPY_DEPTH = 100_000

_EMPTY_GVK = GroupVersionKind("", "", "")


# ---------------------------------------------------------------------------------------
# Go fmt renderings used in error messages


def _go_type(x: Any) -> str:
    """Go's ``%T`` of the Go value a JSON tree value stands for."""
    if x is None:
        return "<nil>"
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int64"
    if isinstance(x, float):
        return "float64"
    if isinstance(x, str):
        return "string"
    if isinstance(x, dict):
        return "map[string]interface {}"
    if isinstance(x, list):
        return "[]interface {}"
    return type(x).__qualname__


class _Lit:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _go_v(x: Any) -> str:
    """Go's ``%v`` of a JSON tree value (maps print ``map[k:v ...]`` with sorted keys).

    Iterative so that deep trees in error messages cannot exhaust the Python stack.
    """
    out: list[str] = []
    stack: list[Any] = [x]
    while stack:
        item = stack.pop()
        if type(item) is _Lit:
            out.append(item.text)
        elif item is None:
            out.append("<nil>")
        elif isinstance(item, bool):
            out.append("true" if item else "false")
        elif isinstance(item, str):
            out.append(item)
        elif isinstance(item, int):
            out.append(str(item))
        elif isinstance(item, float):
            out.append(_go_float(item))
        elif isinstance(item, dict):
            pending: list[Any] = [_Lit("]")]
            keys = sorted(item, key=str)
            for i in range(len(keys) - 1, -1, -1):
                k = keys[i]
                pending.append(item[k])
                pending.append(_Lit(("" if i == 0 else " ") + str(k) + ":"))
            pending.append(_Lit("map["))
            stack.extend(pending)
        elif isinstance(item, list):
            pending = [_Lit("]")]
            for i in range(len(item) - 1, -1, -1):
                pending.append(item[i])
                if i:
                    pending.append(_Lit(" "))
            pending.append(_Lit("["))
            stack.extend(pending)
        else:
            out.append(str(item))
    return "".join(out)


def _json_path(fields: Iterable[str]) -> str:
    return "." + ".".join(fields)


# ---------------------------------------------------------------------------------------
# Deep copy (runtime.DeepCopyJSON)


def deep_copy_json_value(x: Any) -> Any:
    """Deep-copy a JSON tree value (Go's ``runtime.DeepCopyJSONValue``).

    Only ``dict`` (string keys), ``list``, ``str``, ``int``, ``float``, ``bool`` and ``None``
    are allowed; anything else raises :class:`KCodecError` ``cannot deep copy <T>``.
    Iterative: depth is bounded by :data:`MAX_COPY_DEPTH` (a cyclic structure raises).
    """
    root = _copy_node(x)
    if root is x:
        return x
    stack: list[tuple[Any, Any, int]] = [(x, root, 0)]
    while stack:
        src, dst, depth = stack.pop()
        if depth >= MAX_COPY_DEPTH:
            raise KCodecError(f"cannot deep copy: nesting exceeds {MAX_COPY_DEPTH} levels")
        if isinstance(dst, dict):
            for k, v in src.items():
                if type(k) is not str and not isinstance(k, str):
                    raise KCodecError(f"cannot deep copy {_go_type(k)}")
                if v is None or type(v) in _SCALARS:
                    dst[k] = v
                else:
                    c = _copy_node(v)
                    dst[k] = c
                    if c is not v:
                        stack.append((v, c, depth + 1))
        else:
            for v in src:
                if v is None or type(v) in _SCALARS:
                    dst.append(v)
                else:
                    c = _copy_node(v)
                    dst.append(c)
                    if c is not v:
                        stack.append((v, c, depth + 1))
    return root


_SCALARS = frozenset((str, int, float, bool))


def _copy_node(x: Any) -> Any:
    """A new empty container for a dict/list, the value itself for a scalar."""
    if isinstance(x, dict):
        return {}
    if isinstance(x, list):
        return []
    if x is None or isinstance(x, (str, int, float)):
        return x
    raise KCodecError(f"cannot deep copy {_go_type(x)}")


def deep_copy_json(x: dict[str, Any] | None) -> dict[str, Any] | None:
    """Deep-copy a JSON object (Go's ``runtime.DeepCopyJSON``); ``None`` stays ``None``."""
    if x is None:
        return None
    return deep_copy_json_value(x)


# ---------------------------------------------------------------------------------------
# Nested field helpers


def nested_field_no_copy(obj: Mapping[str, Any] | None, *fields: str) -> tuple[Any, bool]:
    """Return ``(value, found)`` at ``fields`` without copying (the value is shared).

    A missing key or a ``None`` on the way gives ``(None, False)``; a present ``None`` leaf
    gives ``(None, True)``. A non-map on the way raises :class:`KCodecError`
    ``.a.d.foo accessor error: [foo] is of the type []interface {}, expected map[string]interface{}``.
    Keys are plain keys: ``"e[0]"`` is not an index.
    """
    val: Any = obj
    for i, key in enumerate(fields):
        if val is None:
            return None, False
        if isinstance(val, dict):
            try:
                val = val[key]
            except KeyError:
                return None, False
        else:
            raise KCodecError(
                f"{_json_path(fields[: i + 1])} accessor error: {_go_v(val)} is of the type "
                f"{_go_type(val)}, expected map[string]interface{{}}"
            )
    return val, True


def nested_field_copy(obj: Mapping[str, Any] | None, *fields: str) -> tuple[Any, bool]:
    """Like :func:`nested_field_no_copy` but returns a deep copy of the value."""
    val, found = nested_field_no_copy(obj, *fields)
    if not found:
        return None, False
    return deep_copy_json_value(val), True


def _type_error(fields: tuple[str, ...], val: Any, expected: str) -> KCodecError:
    return KCodecError(
        f"{_json_path(fields)} accessor error: {_go_v(val)} is of the type {_go_type(val)}, expected {expected}"
    )


def nested_string(obj: Mapping[str, Any] | None, *fields: str) -> tuple[str, bool]:
    """``(str value, found)``; a non-string value raises :class:`KCodecError`."""
    val, found = nested_field_no_copy(obj, *fields)
    if not found:
        return "", False
    if not isinstance(val, str):
        raise _type_error(fields, val, "string")
    return val, True


def nested_bool(obj: Mapping[str, Any] | None, *fields: str) -> tuple[bool, bool]:
    """``(bool value, found)``; a non-bool value raises :class:`KCodecError`."""
    val, found = nested_field_no_copy(obj, *fields)
    if not found:
        return False, False
    if not isinstance(val, bool):
        raise _type_error(fields, val, "bool")
    return val, True


def nested_float64(obj: Mapping[str, Any] | None, *fields: str) -> tuple[float, bool]:
    """``(float value, found)``; anything but a float (an int included) raises."""
    val, found = nested_field_no_copy(obj, *fields)
    if not found:
        return 0.0, False
    if not isinstance(val, float):
        raise _type_error(fields, val, "float64")
    return val, True


def nested_int64(obj: Mapping[str, Any] | None, *fields: str) -> tuple[int, bool]:
    """``(int value, found)``; anything but an int (a float or bool included) raises."""
    val, found = nested_field_no_copy(obj, *fields)
    if not found:
        return 0, False
    if not isinstance(val, int) or isinstance(val, bool):
        raise _type_error(fields, val, "int64")
    return val, True


def nested_number_as_float64(obj: Mapping[str, Any] | None, *fields: str) -> tuple[float, bool]:
    """A float as is, or an int converted when the conversion is exact; else raises."""
    val, found = nested_field_no_copy(obj, *fields)
    if not found:
        return 0.0, False
    if isinstance(val, float):
        return val, True
    if isinstance(val, int) and not isinstance(val, bool):
        try:
            f = float(val)
        except OverflowError:
            f = math.inf
        if math.isinf(f) or int(f) != val:
            raise KCodecError(
                f"{_json_path(fields)} accessor error: int64 value {val} cannot be losslessly converted to float64"
            )
        return f, True
    raise _type_error(fields, val, "float64 or int64")


def nested_string_slice(obj: Mapping[str, Any] | None, *fields: str) -> tuple[list[str] | None, bool]:
    """A copy of a list of strings; a non-list or a non-string element raises."""
    val, found = nested_field_no_copy(obj, *fields)
    if not found:
        return None, False
    if not isinstance(val, list):
        raise _type_error(fields, val, "[]interface{}")
    for v in val:
        if not isinstance(v, str):
            raise KCodecError(
                f"{_json_path(fields)} accessor error: contains non-string key in the slice: "
                f"{_go_v(v)} is of the type {_go_type(v)}, expected string"
            )
    return list(val), True


def nested_slice(obj: Mapping[str, Any] | None, *fields: str) -> tuple[list[Any] | None, bool]:
    """A deep copy of a list; a non-list raises."""
    val, found = nested_field_no_copy(obj, *fields)
    if not found:
        return None, False
    if not isinstance(val, list):
        raise _type_error(fields, val, "[]interface{}")
    return deep_copy_json_value(val), True


def _nested_map_no_copy(
    obj: Mapping[str, Any] | None, tolerate_none: bool, fields: tuple[str, ...]
) -> tuple[dict[str, Any] | None, bool]:
    val, found = nested_field_no_copy(obj, *fields)
    if not found:
        return None, False
    if val is None and tolerate_none:
        return None, True
    if not isinstance(val, dict):
        raise _type_error(fields, val, "map[string]interface{}")
    return val, True


def _string_map(fields: tuple[str, ...], m: dict[str, Any], coerce_none: bool) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in m.items():
        if isinstance(v, str):
            out[k] = v
        elif v is None and coerce_none:
            out[k] = ""
        else:
            raise KCodecError(
                f"{_json_path(fields)} accessor error: contains non-string value in the map under key "
                f"{_go_quote(str(k))}: {_go_v(v)} is of the type {_go_type(v)}, expected string"
            )
    return out


def nested_string_map(obj: Mapping[str, Any] | None, *fields: str) -> tuple[dict[str, str] | None, bool]:
    """A copy of a map of strings; a non-map or a non-string value raises."""
    m, found = _nested_map_no_copy(obj, False, fields)
    if not found:
        return None, False
    assert m is not None
    return _string_map(fields, m, False), True


def nested_null_coercing_string_map(
    obj: Mapping[str, Any] | None, *fields: str
) -> tuple[dict[str, str] | None, bool]:
    """Like :func:`nested_string_map`, but a ``None`` map gives ``(None, True)`` and ``None``
    values read as ``""`` (as JSON decoding into ``map[string]string`` does)."""
    m, found = _nested_map_no_copy(obj, True, fields)
    if not found or m is None:
        return None, found
    return _string_map(fields, m, True), True


def nested_map(obj: Mapping[str, Any] | None, *fields: str) -> tuple[dict[str, Any] | None, bool]:
    """A deep copy of a map; a non-map raises."""
    m, found = _nested_map_no_copy(obj, False, fields)
    if not found:
        return None, False
    return deep_copy_json_value(m), True


def _try_set(obj: dict[str, Any], value: Any, fields: tuple[str, ...]) -> str | None:
    """Store ``value`` (not copied) at ``fields``; return Go's error text instead of raising."""
    if not fields:
        return "value cannot be set because no field path was given"
    if not isinstance(obj, dict):
        return "value cannot be set because . is not a map[string]interface{}"
    m = obj
    for i in range(len(fields) - 1):
        key = fields[i]
        if key in m:
            nxt = m[key]
            if not isinstance(nxt, dict):
                return f"value cannot be set because {_json_path(fields[: i + 1])} is not a map[string]interface{{}}"
            m = nxt
        else:
            nxt = {}
            m[key] = nxt
            m = nxt
    m[fields[-1]] = value
    return None


def _set_no_copy(obj: dict[str, Any], value: Any, fields: tuple[str, ...]) -> None:
    err = _try_set(obj, value, fields)
    if err is not None:
        raise KCodecError(err)


def set_nested_field(obj: dict[str, Any], value: Any, *fields: str) -> None:
    """Store a deep copy of ``value`` at ``fields``, creating missing maps on the way.

    A non-map on the way raises :class:`KCodecError`
    ``value cannot be set because .x.y is not a map[string]interface{}``.
    """
    _set_no_copy(obj, deep_copy_json_value(value), fields)


def set_nested_string_slice(obj: dict[str, Any], value: Iterable[str], *fields: str) -> None:
    """Store a list copy of the strings ``value`` at ``fields``."""
    _set_no_copy(obj, list(value), fields)


def set_nested_slice(obj: dict[str, Any], value: list[Any], *fields: str) -> None:
    """Store a deep copy of the list ``value`` at ``fields``."""
    set_nested_field(obj, value, *fields)


def set_nested_string_map(obj: dict[str, Any], value: Mapping[str, str], *fields: str) -> None:
    """Store a dict copy of the string map ``value`` at ``fields``."""
    _set_no_copy(obj, dict(value), fields)


def set_nested_map(obj: dict[str, Any], value: Mapping[str, Any], *fields: str) -> None:
    """Store a deep copy of the map ``value`` at ``fields``."""
    set_nested_field(obj, value, *fields)


def remove_nested_field(obj: dict[str, Any] | None, *fields: str) -> None:
    """Delete the leaf at ``fields``; a missing path (or a non-map on the way) is a no-op."""
    if not fields:
        raise KCodecError("cannot remove a field: no field path was given")
    m: Any = obj
    for key in fields[:-1]:
        if not isinstance(m, dict):
            return
        m = m.get(key)
    if isinstance(m, dict):
        m.pop(fields[-1], None)


def _get_string(obj: Mapping[str, Any] | None, *fields: str) -> str:
    try:
        val, found = nested_string(obj, *fields)
    except KCodecError:
        return ""
    return val if found else ""


def _get_int64(obj: Mapping[str, Any] | None, *fields: str) -> int | None:
    try:
        val, found = nested_int64(obj, *fields)
    except KCodecError:
        return None
    return val if found else None


def _get_bool(obj: Mapping[str, Any] | None, *fields: str) -> bool | None:
    try:
        val, found = nested_bool(obj, *fields)
    except KCodecError:
        return None
    return val if found else None


# ---------------------------------------------------------------------------------------
# Timestamps (metav1.Time as a query parameter: RFC3339 UTC, seconds precision)

_ZERO_DATETIME = datetime(1, 1, 1, tzinfo=timezone.utc)


def _time_class() -> Any:
    # Imported on first use so that importing kcodec.runtime does not load kcodec.api.
    from kcodec.api.meta._values import Time

    return Time


def _read_time(s: str) -> Any:
    """Go's Time.UnmarshalQueryParameter with its error ignored: bad text reads as zero."""
    time_cls = _time_class()
    if not s or s == "null":
        return time_cls._zero()
    try:
        return time_cls.parse(s)
    except (KCodecError, ValueError):
        return time_cls._zero()


def _time_is_zero(t: Any) -> bool:
    if t is None:
        return True
    if isinstance(t, datetime):
        return _as_utc(t) == _ZERO_DATETIME
    return bool(t._is_zero())


def _as_utc(t: datetime) -> datetime:
    # A naive datetime is taken as UTC: Go times always carry a zone.
    if t.tzinfo is None:
        return t.replace(tzinfo=timezone.utc)
    return t.astimezone(timezone.utc)


def _format_time(t: Any) -> str:
    """Go's Time.MarshalQueryParameter: ``""`` for zero, else RFC3339 UTC seconds."""
    if _time_is_zero(t):
        return ""
    if isinstance(t, datetime):
        u = _as_utc(t)
        return f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}:{u.second:02d}Z"
    return str(t.rfc3339())


def _meta_v1() -> Any:
    import kcodec.api.meta.v1 as meta_v1

    return meta_v1


def _owner_reference_to_map(ref: Any) -> dict[str, Any]:
    if isinstance(ref, Mapping):
        return deep_copy_json_value(dict(ref))
    out: dict[str, Any] = {
        "apiVersion": ref.api_version,
        "kind": ref.kind,
        "name": ref.name,
        "uid": ref.uid,
    }
    if ref.controller is not None:
        out["controller"] = ref.controller
    if ref.block_owner_deletion is not None:
        out["blockOwnerDeletion"] = ref.block_owner_deletion
    return out


# ---------------------------------------------------------------------------------------
# Unstructured


class _UnstructuredBase:
    """Shared kind/apiVersion and list-metadata accessors of Unstructured and UnstructuredList."""

    __slots__ = ("object",)

    object: dict[str, Any] | None

    def get_object_kind(self) -> Any:
        """The object's kind accessor: the object itself."""
        return self

    def _set(self, value: Any, *fields: str) -> None:
        # Go's setters ignore a failed set (a non-map on the path): so do these.
        if self.object is None:
            self.object = {}
        _try_set(self.object, deep_copy_json_value(value), fields)

    def get_api_version(self) -> str:
        """``apiVersion`` ("" when missing or not a string)."""
        return _get_string(self.object, "apiVersion")

    def set_api_version(self, version: str) -> None:
        """Write ``apiVersion`` (also when empty)."""
        self._set(version, "apiVersion")

    def get_kind(self) -> str:
        """``kind`` ("" when missing or not a string)."""
        return _get_string(self.object, "kind")

    def set_kind(self, kind: str) -> None:
        """Write ``kind`` (also when empty)."""
        self._set(kind, "kind")

    def group_version_kind(self) -> GroupVersionKind:
        """The GVK from ``apiVersion``/``kind``; an unparsable apiVersion gives the empty GVK."""
        try:
            gv = parse_group_version(self.get_api_version())
        except (KCodecError, ValueError):
            return _EMPTY_GVK
        return GroupVersionKind(gv.group, gv.version, self.get_kind())

    def set_group_version_kind(self, gvk: GroupVersionKind) -> None:
        """Write ``apiVersion`` and ``kind`` from ``gvk`` (both written even when empty)."""
        self.set_api_version(str(gvk.group_version()))
        self.set_kind(gvk.kind)

    def get_resource_version(self) -> str:
        """``metadata.resourceVersion``."""
        return _get_string(self.object, "metadata", "resourceVersion")

    def get_self_link(self) -> str:
        """``metadata.selfLink``."""
        return _get_string(self.object, "metadata", "selfLink")

    def get_continue(self) -> str:
        """``metadata.continue``."""
        return _get_string(self.object, "metadata", "continue")

    def get_remaining_item_count(self) -> int | None:
        """``metadata.remainingItemCount`` when it is an int, else None."""
        return _get_int64(self.object, "metadata", "remainingItemCount")

    def set_remaining_item_count(self, count: int | None) -> None:
        """Write ``metadata.remainingItemCount``; None removes it."""
        if count is None:
            remove_nested_field(self.object, "metadata", "remainingItemCount")
        else:
            self._set(count, "metadata", "remainingItemCount")

    def marshal_json(self) -> bytes:
        """The object's JSON as :data:`UNSTRUCTURED_JSON_SCHEME` writes it (with ``\\n``)."""
        return UNSTRUCTURED_JSON_SCHEME.encode(self)

    def unmarshal_json(self, data: bytes) -> None:
        """Replace the content with the decoded ``data`` (kind required)."""
        UNSTRUCTURED_JSON_SCHEME.decode(data, None, self)


class Unstructured(_UnstructuredBase):
    """An API object held as a JSON tree (Go's ``unstructured.Unstructured``).

    ``object`` is the underlying dict (shared, not copied); ``None`` is Go's nil map.
    Metadata setters given a zero value ("" / 0 / None) remove the key, leaving an empty
    ``metadata`` dict behind; getters never raise and read wrong-typed values as zero.
    """

    __slots__ = ()

    def __init__(self, content: dict[str, Any] | None = None) -> None:
        self.object = content

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.object == other.object  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Unstructured({self.object!r})"

    # -- content ------------------------------------------------------------------------

    def unstructured_content(self) -> dict[str, Any]:
        """The underlying dict; a new empty dict (not stored) when there is none."""
        if self.object is None:
            return {}
        return self.object

    def set_unstructured_content(self, content: dict[str, Any] | None) -> None:
        """Replace the underlying dict (not copied)."""
        self.object = content

    def is_list(self) -> bool:
        """True when ``items`` exists and is a list."""
        return self.object is not None and isinstance(self.object.get("items"), list)

    def each_list_item(self, fn: Callable[[Unstructured], Any]) -> None:
        """Call ``fn`` with an :class:`Unstructured` sharing each item's dict.

        Raises :class:`KCodecError` ``content is not a list`` (no ``items``),
        ``content is not a list: <T>`` (``items`` not a list) or
        ``items member is not an object: map[string]interface {}`` (a non-object item;
        Go prints the type of its failed conversion, which is always the map type).
        """
        obj = self.object
        if obj is None or "items" not in obj:
            raise KCodecError("content is not a list")
        items = obj["items"]
        if not isinstance(items, list):
            raise KCodecError(f"content is not a list: {_go_type(items)}")
        for item in items:
            if not isinstance(item, dict):
                raise KCodecError("items member is not an object: map[string]interface {}")
            fn(Unstructured(item))

    each_list_item_with_alloc = each_list_item

    def to_list(self) -> UnstructuredList:
        """An :class:`UnstructuredList` sharing this object's dict (and its items' dicts)."""
        if not self.is_list():
            return UnstructuredList(self.object)
        ret = UnstructuredList(self.object)
        self.each_list_item(ret.items.append)
        return ret

    def new_empty_instance(self) -> Unstructured:
        """A new Unstructured holding only this object's ``apiVersion`` and ``kind``."""
        out = Unstructured()
        out.set_group_version_kind(self.group_version_kind())
        return out

    def deep_copy(self) -> Unstructured:
        """A deep copy (see :func:`deep_copy_json_value` for the accepted value types)."""
        return Unstructured(deep_copy_json(self.object))

    # -- metadata -----------------------------------------------------------------------

    def _set_or_remove(self, value: str, key: str) -> None:
        if not value:
            remove_nested_field(self.object, "metadata", key)
        else:
            self._set(value, "metadata", key)

    def get_namespace(self) -> str:
        """``metadata.namespace``."""
        return _get_string(self.object, "metadata", "namespace")

    def set_namespace(self, namespace: str) -> None:
        """Write ``metadata.namespace``; "" removes it."""
        self._set_or_remove(namespace, "namespace")

    def get_name(self) -> str:
        """``metadata.name``."""
        return _get_string(self.object, "metadata", "name")

    def set_name(self, name: str) -> None:
        """Write ``metadata.name``; "" removes it."""
        self._set_or_remove(name, "name")

    def get_generate_name(self) -> str:
        """``metadata.generateName``."""
        return _get_string(self.object, "metadata", "generateName")

    def set_generate_name(self, generate_name: str) -> None:
        """Write ``metadata.generateName``; "" removes it."""
        self._set_or_remove(generate_name, "generateName")

    def get_uid(self) -> str:
        """``metadata.uid``."""
        return _get_string(self.object, "metadata", "uid")

    def set_uid(self, uid: str) -> None:
        """Write ``metadata.uid``; "" removes it."""
        self._set_or_remove(uid, "uid")

    def set_resource_version(self, resource_version: str) -> None:
        """Write ``metadata.resourceVersion``; "" removes it."""
        self._set_or_remove(resource_version, "resourceVersion")

    def set_self_link(self, self_link: str) -> None:
        """Write ``metadata.selfLink``; "" removes it."""
        self._set_or_remove(self_link, "selfLink")

    def set_continue(self, value: str) -> None:
        """Write ``metadata.continue``; "" removes it."""
        self._set_or_remove(value, "continue")

    def get_generation(self) -> int:
        """``metadata.generation`` when it is an int, else 0."""
        return _get_int64(self.object, "metadata", "generation") or 0

    def set_generation(self, generation: int) -> None:
        """Write ``metadata.generation``; 0 removes it."""
        if generation == 0:
            remove_nested_field(self.object, "metadata", "generation")
        else:
            self._set(generation, "metadata", "generation")

    def get_creation_timestamp(self) -> Any:
        """``metadata.creationTimestamp`` as a Time (zero Time when missing or unparsable)."""
        return _read_time(_get_string(self.object, "metadata", "creationTimestamp"))

    def set_creation_timestamp(self, timestamp: Any) -> None:
        """Write ``metadata.creationTimestamp`` (RFC3339 UTC); a zero time removes it.

        Accepts a ``kcodec.api.meta.v1.Time``, a ``datetime`` (naive means UTC) or None.
        """
        text = _format_time(timestamp)
        if not text:
            remove_nested_field(self.object, "metadata", "creationTimestamp")
        else:
            self._set(text, "metadata", "creationTimestamp")

    def get_deletion_timestamp(self) -> Any:
        """``metadata.deletionTimestamp`` as a Time, or None when missing or zero."""
        t = _read_time(_get_string(self.object, "metadata", "deletionTimestamp"))
        return None if _time_is_zero(t) else t

    def set_deletion_timestamp(self, timestamp: Any) -> None:
        """Write ``metadata.deletionTimestamp``; None removes it (a zero Time writes "")."""
        if timestamp is None:
            remove_nested_field(self.object, "metadata", "deletionTimestamp")
        else:
            self._set(_format_time(timestamp), "metadata", "deletionTimestamp")

    def get_deletion_grace_period_seconds(self) -> int | None:
        """``metadata.deletionGracePeriodSeconds`` when it is an int, else None."""
        return _get_int64(self.object, "metadata", "deletionGracePeriodSeconds")

    def set_deletion_grace_period_seconds(self, seconds: int | None) -> None:
        """Write ``metadata.deletionGracePeriodSeconds``; None removes it."""
        if seconds is None:
            remove_nested_field(self.object, "metadata", "deletionGracePeriodSeconds")
        else:
            self._set(seconds, "metadata", "deletionGracePeriodSeconds")

    def _get_string_map(self, key: str) -> dict[str, str] | None:
        try:
            return nested_null_coercing_string_map(self.object, "metadata", key)[0]
        except KCodecError:
            return None

    def _set_string_map(self, value: Mapping[str, str] | None, key: str) -> None:
        if value is None:
            remove_nested_field(self.object, "metadata", key)
        else:
            self._set(dict(value), "metadata", key)

    def get_labels(self) -> dict[str, str] | None:
        """``metadata.labels`` (null values read as ""; any other non-string gives None)."""
        return self._get_string_map("labels")

    def set_labels(self, labels: Mapping[str, str] | None) -> None:
        """Write ``metadata.labels``; None removes it."""
        self._set_string_map(labels, "labels")

    def get_annotations(self) -> dict[str, str] | None:
        """``metadata.annotations`` (null values read as ""; any other non-string gives None)."""
        return self._get_string_map("annotations")

    def set_annotations(self, annotations: Mapping[str, str] | None) -> None:
        """Write ``metadata.annotations``; None removes it."""
        self._set_string_map(annotations, "annotations")

    def get_finalizers(self) -> list[str] | None:
        """``metadata.finalizers``, or None when missing or not a list of strings."""
        try:
            return nested_string_slice(self.object, "metadata", "finalizers")[0]
        except KCodecError:
            return None

    def set_finalizers(self, finalizers: Iterable[str] | None) -> None:
        """Write ``metadata.finalizers``; None removes it."""
        if finalizers is None:
            remove_nested_field(self.object, "metadata", "finalizers")
        else:
            self._set(list(finalizers), "metadata", "finalizers")

    def get_owner_references(self) -> list[Any] | None:
        """``metadata.ownerReferences`` as ``kcodec.api.meta.v1.OwnerReference`` values.

        None when missing, not a list, or when any member is not an object. ``controller``
        and ``block_owner_deletion`` are set only when the entry holds a bool there.
        """
        try:
            field, found = nested_field_no_copy(self.object, "metadata", "ownerReferences")
        except KCodecError:
            return None
        if not found or not isinstance(field, list):
            return None
        owner_reference = _meta_v1().OwnerReference
        ret = []
        for o in field:
            if not isinstance(o, dict):
                return None
            ret.append(
                owner_reference(
                    api_version=_get_string(o, "apiVersion"),
                    kind=_get_string(o, "kind"),
                    name=_get_string(o, "name"),
                    uid=_get_string(o, "uid"),
                    controller=_get_bool(o, "controller"),
                    block_owner_deletion=_get_bool(o, "blockOwnerDeletion"),
                )
            )
        return ret

    def set_owner_references(self, references: Iterable[Any] | None) -> None:
        """Write ``metadata.ownerReferences`` from OwnerReference values (or plain dicts);
        None removes it."""
        if references is None:
            remove_nested_field(self.object, "metadata", "ownerReferences")
            return
        self._set([_owner_reference_to_map(r) for r in references], "metadata", "ownerReferences")

    def get_managed_fields(self) -> list[Any] | None:
        """``metadata.managedFields`` as ``kcodec.api.meta.v1.ManagedFieldsEntry`` values.

        None when missing, not a list, or when any entry is not an object or fails to
        convert (Go logs and drops the whole list).
        """
        try:
            v, found = nested_field_no_copy(self.object, "metadata", "managedFields")
        except KCodecError:
            return None
        if not found or not isinstance(v, list):
            return None
        entry_cls = _meta_v1().ManagedFieldsEntry
        out = []
        for item in v:
            if not isinstance(item, dict):
                return None
            try:
                out.append(entry_cls.from_dict(item))
            except (KCodecError, ValueError, TypeError):
                return None
        return out

    def set_managed_fields(self, managed_fields: Iterable[Any] | None) -> None:
        """Write ``metadata.managedFields`` from ManagedFieldsEntry values (or plain dicts);
        None removes it."""
        if managed_fields is None:
            remove_nested_field(self.object, "metadata", "managedFields")
            return
        items = []
        for entry in managed_fields:
            items.append(dict(entry) if isinstance(entry, Mapping) else entry.to_dict())
        self._set(items, "metadata", "managedFields")


class UnstructuredList(_UnstructuredBase):
    """A list held as a JSON tree plus its items (Go's ``unstructured.UnstructuredList``).

    ``object`` holds the list's own fields (``apiVersion``, ``kind``, ``metadata``...);
    ``items`` is a Python list of :class:`Unstructured`. List metadata setters write even
    empty strings (unlike :class:`Unstructured`).
    """

    __slots__ = ("items",)

    items: list[Unstructured]

    def __init__(
        self,
        content: dict[str, Any] | None = None,
        items: Iterable[Unstructured | dict[str, Any]] | None = None,
    ) -> None:
        self.object = content
        self.items = [i if isinstance(i, Unstructured) else Unstructured(i) for i in items or ()]

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.object == other.object and self.items == other.items  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"UnstructuredList({self.object!r}, items={[i.object for i in self.items]!r})"

    def is_list(self) -> bool:
        """Always True."""
        return True

    def each_list_item(self, fn: Callable[[Unstructured], Any]) -> None:
        """Call ``fn`` with each item (the stored :class:`Unstructured` itself)."""
        for item in self.items:
            fn(item)

    def each_list_item_with_alloc(self, fn: Callable[[Unstructured], Any]) -> None:
        """Call ``fn`` with a new :class:`Unstructured` sharing each item's dict."""
        for item in self.items:
            fn(Unstructured(item.object))

    def unstructured_content(self) -> dict[str, Any]:
        """A shallow copy of ``object`` with ``items`` set to the items' dicts (always present)."""
        out = dict(self.object) if self.object else {}
        out["items"] = [i.unstructured_content() for i in self.items]
        return out

    def set_unstructured_content(self, content: dict[str, Any] | None) -> None:
        """Take ``content`` as the list: items are its ``items`` entries that are dicts.

        ``content["items"]`` is rewritten to that filtered list; None clears the items.
        """
        self.object = content
        if content is None:
            self.items = []
            return
        raw = content.get("items")
        kept = [i for i in raw if isinstance(i, dict)] if isinstance(raw, list) else []
        self.items = [Unstructured(i) for i in kept]
        content["items"] = kept

    def new_empty_instance(self) -> UnstructuredList:
        """A new list holding only this list's ``apiVersion`` and ``kind``."""
        out = UnstructuredList()
        out.set_group_version_kind(self.group_version_kind())
        return out

    def deep_copy(self) -> UnstructuredList:
        """A deep copy of the list fields and of every item."""
        out = UnstructuredList(deep_copy_json(self.object))
        out.items = [i.deep_copy() for i in self.items]
        return out

    def set_resource_version(self, version: str) -> None:
        """Write ``metadata.resourceVersion`` (also when empty)."""
        self._set(version, "metadata", "resourceVersion")

    def set_self_link(self, self_link: str) -> None:
        """Write ``metadata.selfLink`` (also when empty)."""
        self._set(self_link, "metadata", "selfLink")

    def set_continue(self, value: str) -> None:
        """Write ``metadata.continue`` (also when empty)."""
        self._set(value, "metadata", "continue")


# ---------------------------------------------------------------------------------------
# UnstructuredJSONScheme

_JSON_KIND = {dict: "object", list: "array", str: "string", bool: "bool", int: "number", float: "number"}


def _json_kind(v: Any) -> str:
    for t, name in _JSON_KIND.items():
        if isinstance(v, t):
            return name
    return type(v).__qualname__


def _is_unknown(obj: Any) -> bool:
    # Also accept look-alikes of runtime.Unknown (same class name and attributes), so a
    # wrapper or a second copy of the class is written verbatim too.
    if isinstance(obj, Unknown):
        return True
    return type(obj).__name__ == "Unknown" and all(
        hasattr(obj, a) for a in ("raw", "content_type", "api_version", "kind")
    )


def _as_bytes(data: Any) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8")
    return bytes(data)


class UnstructuredJSONScheme:
    """Go's ``UnstructuredJSONScheme``: JSON <-> :class:`Unstructured` / :class:`UnstructuredList`.

    Use the module singleton :data:`UNSTRUCTURED_JSON_SCHEME`.
    """

    __slots__ = ()

    def identifier(self) -> str:
        """``"unstructuredJSON"``."""
        return "unstructuredJSON"

    def decode(
        self, data: bytes, defaults: GroupVersionKind | None = None, into: Any = None
    ) -> tuple[Any, GroupVersionKind]:
        """Decode JSON ``data`` and return ``(obj, gvk)``; ``defaults`` is ignored.

        Without ``into``: a top-level ``items`` key (any value) gives an
        :class:`UnstructuredList`, else an :class:`Unstructured`. List items with neither
        ``kind`` nor ``apiVersion`` get the list's apiVersion and its kind minus a trailing
        ``List``. An :class:`Unstructured` ``into`` has its content replaced; an
        :class:`UnstructuredList` ``into`` has its fields merged and items replaced; any
        other ``into`` is filled as a typed object. A decoded object without ``kind`` raises
        :class:`MissingKindError` (with the computed GVK in ``.gvk``); apiVersion is optional.
        """
        from kcodec import gojson as _gojson

        raw = _as_bytes(data)
        tree = _gojson.loads(raw)
        obj: Any
        if into is None:
            if tree is not None and not isinstance(tree, dict):
                raise DecodeError(
                    f"json: cannot unmarshal {_json_kind(tree)} into Go value of type unstructured.detector"
                )
            if tree is not None and "items" in tree:
                obj = UnstructuredList()
                self._fill_list(tree, obj)
            else:
                obj = Unstructured(self._to_map(tree))
        elif isinstance(into, Unstructured):
            into.object = self._to_map(tree)
            obj = into
        elif isinstance(into, UnstructuredList):
            self._fill_list(tree, into)
            obj = into
        elif _is_unknown(into):
            into.raw = raw
            into.api_version = ""
            into.kind = ""
            into.content_encoding = ""
            into.content_type = "application/json"
            obj = into
        else:
            from kcodec.model import from_tree

            obj = from_tree(type(into), tree, into=into)
        gvk = obj.get_object_kind().group_version_kind()
        if not gvk.kind:
            err = MissingKindError(raw)
            err.gvk = gvk  # type: ignore[attr-defined]
            raise err
        return obj, gvk

    @staticmethod
    def _to_map(tree: Any) -> dict[str, Any] | None:
        if tree is None or isinstance(tree, dict):
            return tree
        raise DecodeError(
            f"json: cannot unmarshal {_json_kind(tree)} into Go value of type map[string]interface {{}}"
        )

    def _fill_list(self, tree: Any, lst: UnstructuredList) -> None:
        if tree is not None and not isinstance(tree, dict):
            raise DecodeError(
                f"json: cannot unmarshal {_json_kind(tree)} into Go value of type unstructured.decodeList"
            )
        raw_items = tree.get("items") if tree is not None else None
        if raw_items is not None and not isinstance(raw_items, list):
            raise DecodeError(
                f"json: cannot unmarshal {_json_kind(raw_items)} into Go struct field "
                "decodeList.items of type []json.RawMessage"
            )
        if tree is None:
            lst.object = None
        elif lst.object is None:
            lst.object = tree
        else:
            # Go unmarshals into the existing map: keys absent from the data survive.
            lst.object.update(tree)
        if lst.object is not None:
            lst.object.pop("items", None)
        api_version = lst.get_api_version()
        kind = lst.get_kind()
        item_kind = kind[:-4] if kind.endswith("List") else kind
        items: list[Unstructured] = []
        for entry in raw_items or ():
            item = Unstructured(self._to_map(entry))
            if not item.get_kind() and not item.get_api_version():
                item.set_kind(item_kind)
                item.set_api_version(api_version)
            items.append(item)
        lst.items = items

    def encode(self, obj: Any, stream: BinaryIO | None = None) -> bytes:
        """Encode ``obj`` as JSON and return the bytes (also written to ``stream`` if given).

        Unstructured: its dict with sorted keys plus ``\\n`` (``null\\n`` when it has none);
        UnstructuredList: its fields plus ``items`` (the list is not modified); Unknown: its
        raw bytes verbatim; anything else: its typed JSON plus ``\\n``.
        """
        from kcodec import gojson as _gojson

        if isinstance(obj, Unstructured):
            data = _gojson.dumps(obj.object, sort_keys=True) + b"\n"
        elif isinstance(obj, UnstructuredList):
            list_obj = dict(obj.object) if obj.object else {}
            list_obj["items"] = [i.object for i in obj.items]
            data = _gojson.dumps(list_obj, sort_keys=True) + b"\n"
        elif _is_unknown(obj):
            data = bytes(obj.raw or b"")
        else:
            from kcodec.model import to_tree

            data = _gojson.dumps(to_tree(obj)) + b"\n"
        if stream is not None:
            stream.write(data)
        return data

    def __repr__(self) -> str:
        return "UNSTRUCTURED_JSON_SCHEME"


UNSTRUCTURED_JSON_SCHEME = UnstructuredJSONScheme()
"""The shared :class:`UnstructuredJSONScheme` instance."""
