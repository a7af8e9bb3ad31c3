"""The hand-marshalled value types of apiextensions.k8s.io v1 and v1beta1.

Upstream gives four structs of ``types_jsonschema.go`` their own JSON forms in
``marshal.go`` (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/{v1,v1beta1}); their
protobuf forms are the ordinary generated messages (``generated.proto``):

========================== =================================== ==============================
type                       JSON                                protobuf message
========================== =================================== ==============================
JSON                       the raw JSON text; ``null`` if none ``bytes raw = 1``
JSONSchemaPropsOrBool      a schema object, or ``true``/``false`` ``bool allows = 1``,
                                                               ``JSONSchemaProps schema = 2``
JSONSchemaPropsOrArray     a schema object, or an array of them ``schema = 1``,
                                                               ``repeated jSONSchemas = 2``
JSONSchemaPropsOrStringArray a schema object, or a string array ``schema = 1``,
                                                               ``repeated string property = 2``
========================== =================================== ==============================

The generated modules subclass these (``class JSON(_values.JSON)``); the schema class a
value holds is the ``JSONSchemaProps`` of the subclass's own module, looked up on first use.
"""
from __future__ import annotations

import functools
import re
import sys
import threading
from typing import Any

from kcodec.errors import DecodeError, EncodeError
from kcodec.errors import json_kind as _json_kind
from kcodec.model import CustomValue, RawJSON, Struct, StructMeta
from kcodec.wire import read_varint as _read_varint
from kcodec.wire import skip_field as _skip
from kcodec.wire import varint as _varint
from kcodec.wire import end_group_error, go_field_number, illegal_tag_error, wrong_wire_error
from kcodec.model import field, from_proto, from_tree, to_proto, to_tree

__all__ = ["JSON", "JSONSchemaPropsOrBool", "JSONSchemaPropsOrArray", "JSONSchemaPropsOrStringArray"]

_SCHEMA_EXPECTED = "boolean or JSON schema expected"
# A JSON string with nothing to unescape or check: printable ASCII but quote and backslash.
_PLAIN_STRING = re.compile(rb'"[\x20\x21\x23-\x5b\x5d-\x7e]*"')


def _located(error: type, msg: str, path: str) -> Any:
    """``error(msg)`` (Go's text) with the place kept as data in ``field_path``."""
    exc = error(msg)
    if path:
        exc.field_path = path
    return exc


#: How many hand-marshalled values may nest inside one another (``items`` in ``items``...).
#: Go has no such limit below its JSON depth of 10000; kcodec decodes these values with
#: Python recursion, so it stops far earlier, with a DecodeError, where real schemas never go.
MAX_SCHEMA_NESTING = 64

_nesting = threading.local()


def _nested(error: type, what: str) -> Any:
    """Count nested calls of a value's decoder (or encoder) and bound them: past
    MAX_SCHEMA_NESTING, or when Python's own stack runs out, raise *error* naming the path."""

    def wrap(fn: Any) -> Any:
        @functools.wraps(fn)
        def run(owner: Any, value: Any, path: str = "") -> Any:
            depth = getattr(_nesting, "depth", 0)
            if depth >= MAX_SCHEMA_NESTING:
                raise _located(error, f"{what}: exceeded max nesting depth {MAX_SCHEMA_NESTING}", path)
            _nesting.depth = depth + 1
            try:
                return fn(owner, value, path)
            except RecursionError:
                raise _located(error, f"{what}: schema nested too deeply", path) from None
            finally:
                _nesting.depth = depth

        return run

    return wrap


_decode_guard = _nested(DecodeError, "json schema")


def _encode_guard(fn: Any) -> Any:
    """The encoders' bound: the same depth as decoding accepts, as an EncodeError."""

    @functools.wraps(fn)
    def run(self: Any) -> Any:
        depth = getattr(_nesting, "depth", 0)
        if depth >= MAX_SCHEMA_NESTING:
            raise EncodeError(f"json schema: exceeded max nesting depth {MAX_SCHEMA_NESTING}")
        _nesting.depth = depth + 1
        try:
            return fn(self)
        except RecursionError:
            raise EncodeError("json schema: schema nested too deeply") from None
        finally:
            _nesting.depth = depth

    return run


def _props_class(cls: type) -> Any:
    """The JSONSchemaProps class of the generated module that declares ``cls``."""
    found = cls.__dict__.get("_kc_props")
    if found is None:
        found = sys.modules[cls.__module__].JSONSchemaProps
        setattr(cls, "_kc_props", found)
    return found


# One small struct per JSONSchemaProps class, holding a schema (`one`) or a list of them
# (`many`): decoding a schema as a member of it lets the kernels build the schema itself,
# where decoding it at the top would first make its zero value in Python (44 fields).
_BOXES: dict[type, Any] = {}


def _box(props: type) -> Any:
    box = _BOXES.get(props)
    if box is None:
        ns = {"__annotations__": {"one": props | None, "many": list[props] | None},  # type: ignore[operator,valid-type]
              "__module__": __name__, "__qualname__": f"_SchemaBox[{props.__module__}]",
              "__protobuf__": True, "one": field(1, "one"), "many": field(2, "many")}
        box = StructMeta("_SchemaBox", (Struct,), ns)
        _BOXES[props] = box
    return box


def new_schema(props: type) -> Any:
    """A zero JSONSchemaProps of class *props* (built by the kernels)."""
    return from_proto(_box(props), b"\x0a\x00").one


def _boxed_tree(props: type, member: str, value: Any, path: str) -> Any:
    try:
        return getattr(from_tree(_box(props), {member: value}, path=path), member)
    except DecodeError as exc:
        if getattr(exc, "go_type_error", None) is not None:
            raise  # the decoder around this value gives it Go's context
        # The box is ours, not Go's: name the value's own path in the message.
        raise DecodeError(str(exc).replace(f"{path}.{member}", path)) from None


def _boxed_proto(props: type, data: bytes, path: str) -> Any:
    framed = b"\x0a" + _varint(len(data)) + bytes(data)
    try:
        return from_proto(_box(props), framed, path=path).one
    except DecodeError as exc:
        raise DecodeError(str(exc).replace(f"{path}.one", path)) from None


def _fields(data: bytes, path: str, message: str) -> list[tuple[int, int, Any]]:
    """``(number, wire, value)`` of each field of a ``message`` body (bytes for wire 2)."""
    out: list[tuple[int, int, Any]] = []
    pos, end = 0, len(data)
    while pos < end:
        start = pos
        key, pos = _read_varint(data, pos, end, path)
        wire = key & 7
        if wire == 4:
            raise end_group_error(message, path, start)
        number = go_field_number(key)
        if number <= 0:
            raise illegal_tag_error(message, key, path, start)
        if wire == 0:
            value, pos = _read_varint(data, pos, end, path)
        elif wire == 2:
            n, pos = _read_varint(data, pos, end, path)
            if n < 0 or pos + n > end:
                raise DecodeError("unexpected EOF", field_path=path or None, offset=pos)
            value = data[pos:pos + n]
            pos += n
        else:
            pos = _skip(data, wire, pos, end, path)
            continue
        out.append((number, wire, value))
    return out


def _message(number: int, body: bytes) -> bytes:
    return _varint((number << 3) | 2) + _varint(len(body)) + body


def _untranscode(value: Any) -> Any:
    """A RawJSON handed in by a decoder that transcoded the value to JSON text (the CBOR
    decoder does so for JSON-unmarshalled types), read back as a tree."""
    if isinstance(value, RawJSON):
        from kcodec.gojson import loads

        return loads(value.data)
    return value


def _schema_from_tree(cls: type, value: Any, path: str) -> Any:
    return _boxed_tree(_props_class(cls), "one", value, path)


def _merge(props: type, schema: Any, data: bytes, path: str) -> Any:
    """A repeated message field merges into the value read so far (Go's generated code)."""
    if schema is None:
        return _boxed_proto(props, data, path)
    return from_proto(props, bytes(data), into=schema, path=path)


def _check_wire(wire: int, want: int, path: str, name: str) -> None:
    if wire != want:
        raise wrong_wire_error(wire, name, path)


class JSON(CustomValue):
    """Any JSON value, kept as its JSON text in ``raw`` (Go ``apiextensions.JSON``).

    ``raw`` None or empty writes ``null``; decoding ``null`` leaves ``raw`` None.
    """

    __slots__ = ("raw",)

    def __init__(self, raw: bytes | None = None) -> None:
        self.raw = raw

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JSON):
            return NotImplemented
        return self.raw == other.raw

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(raw={self.raw!r})"

    def deep_copy(self) -> JSON:
        return type(self)(self.raw)

    @classmethod
    def _zero(cls) -> JSON:
        return cls()

    def _is_zero(self) -> bool:
        return self.raw is None

    def value(self) -> Any:
        """The JSON value ``raw`` holds, as a tree (None for ``null`` or no value)."""
        raw = self.raw
        if not raw:
            return None
        if raw == b"true" or raw == b"false":
            return raw == b"true"
        if raw[0] == 0x22 and raw[-1] == 0x22 and len(raw) > 1 and _PLAIN_STRING.fullmatch(raw):
            return raw[1:-1].decode("utf-8")
        from kcodec.gojson import loads

        return loads(raw)

    @classmethod
    def from_value(cls, value: Any) -> JSON:
        """A JSON holding the Go text of a tree value (None gives an empty JSON)."""
        if value is None:
            return cls()
        t = type(value)
        # Scalars (most enum members) skip the general writer: same text, a tenth the time.
        if t is str:
            from kcodec.gojson import escape_string

            return cls(escape_string(value).encode("utf-8"))
        if t is bool:
            return cls(b"true" if value else b"false")
        if t is int:
            return cls(str(value).encode())
        from kcodec.gojson import dumps

        return cls(dumps(value))

    def _to_tree(self) -> Any:
        # MarshalJSON: the raw bytes (compacted by encoding/json), or null.
        return RawJSON(self.raw) if self.raw else None

    @classmethod
    def _from_tree(cls, value: Any, path: str) -> JSON:
        # UnmarshalJSON keeps the value's text, and nothing for null.
        if isinstance(value, RawJSON):
            from kcodec.gojson import compact

            raw = compact(value.data)
            return cls(raw if raw != b"null" else None)
        return cls.from_value(value)

    def _proto_body(self) -> bytes:
        return _message(1, bytes(self.raw)) if self.raw is not None else b""

    @classmethod
    def _from_proto_body(cls, data: bytes, path: str) -> JSON:
        raw = None
        for number, wire, value in _fields(data, path, "JSON"):
            if number == 1:
                _check_wire(wire, 2, path, "Raw")
                raw = bytes(value)
        return cls(raw)


class _SchemaHolder(CustomValue):
    """Shared parts of the three schema-holding values (equality, copies, repr)."""

    __slots__ = ()
    _names: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._names)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._names)
        return f"{type(self).__name__}({parts})"

    @classmethod
    def _zero(cls) -> Any:
        return cls()

    def _is_zero(self) -> bool:
        return all(not getattr(self, n) for n in self._names)


class JSONSchemaPropsOrBool(_SchemaHolder):
    """``additionalProperties`` / ``additionalItems``: a schema, or ``true``/``false``.

    JSON writes the schema when there is one, else ``allows``; decoding a schema sets
    ``allows`` too (as upstream's UnmarshalJSON does).
    """

    __slots__ = ("allows", "schema")
    _names = ("allows", "schema")

    def __init__(self, allows: bool = False, schema: Any = None) -> None:
        self.allows = allows
        self.schema = schema

    def deep_copy(self) -> JSONSchemaPropsOrBool:
        return type(self)(self.allows, self.schema.deep_copy() if self.schema is not None else None)

    @_encode_guard
    def _to_tree(self) -> Any:
        if self.schema is not None:
            return to_tree(self.schema)
        return bool(self.allows)

    @classmethod
    @_decode_guard
    def _from_tree(cls, value: Any, path: str) -> JSONSchemaPropsOrBool:
        value = _untranscode(value)
        # null is refused too; a null member never gets here (the pointer stays nil).
        if isinstance(value, dict):
            return cls(True, _schema_from_tree(cls, value, path))
        if value is True or value is False:
            return cls(value)
        raise _located(DecodeError, _SCHEMA_EXPECTED, path)

    @_encode_guard
    def _proto_body(self) -> bytes:
        out = b"\x08\x01" if self.allows else b"\x08\x00"
        if self.schema is not None:
            out += _message(2, to_proto(self.schema))
        return out

    @classmethod
    @_decode_guard
    def _from_proto_body(cls, data: bytes, path: str) -> JSONSchemaPropsOrBool:
        allows, schema = False, None
        for number, wire, value in _fields(data, path, "JSONSchemaPropsOrBool"):
            if number == 1:
                _check_wire(wire, 0, path, "Allows")
                allows = value != 0
            elif number == 2:
                _check_wire(wire, 2, path, "Schema")
                schema = _merge(_props_class(cls), schema, value, path)
        return cls(allows, schema)


class JSONSchemaPropsOrArray(_SchemaHolder):
    """``items``: one schema (``schema``) or an array of schemas (``json_schemas``)."""

    __slots__ = ("schema", "json_schemas")
    _names = ("schema", "json_schemas")

    def __init__(self, schema: Any = None, json_schemas: list[Any] | None = None) -> None:
        self.schema = schema
        self.json_schemas = json_schemas

    def deep_copy(self) -> JSONSchemaPropsOrArray:
        return type(self)(self.schema.deep_copy() if self.schema is not None else None,
                          [s.deep_copy() for s in self.json_schemas]
                          if self.json_schemas is not None else None)

    @_encode_guard
    def _to_tree(self) -> Any:
        if self.json_schemas:
            return [to_tree(s) for s in self.json_schemas]
        return to_tree(self.schema) if self.schema is not None else None

    @classmethod
    @_decode_guard
    def _from_tree(cls, value: Any, path: str) -> JSONSchemaPropsOrArray:
        value = _untranscode(value)
        # Upstream looks at the first byte only: anything but an object or array is empty.
        if isinstance(value, dict):
            return cls(_schema_from_tree(cls, value, path))
        if isinstance(value, list):
            return cls(None, _boxed_tree(_props_class(cls), "many", value, path))
        return cls()

    @_encode_guard
    def _proto_body(self) -> bytes:
        out = b""
        if self.schema is not None:
            out += _message(1, to_proto(self.schema))
        for s in self.json_schemas or ():
            out += _message(2, to_proto(s))
        return out

    @classmethod
    @_decode_guard
    def _from_proto_body(cls, data: bytes, path: str) -> JSONSchemaPropsOrArray:
        props = _props_class(cls)
        schema, schemas = None, None
        for number, wire, value in _fields(data, path, "JSONSchemaPropsOrArray"):
            if number == 1:
                _check_wire(wire, 2, path, "Schema")
                schema = _merge(props, schema, value, path)
            elif number == 2:
                _check_wire(wire, 2, path, "JSONSchemas")
                if schemas is None:
                    schemas = []
                schemas.append(_boxed_proto(props, value, f"{path}[{len(schemas)}]"))
        return cls(schema, schemas)


class JSONSchemaPropsOrStringArray(_SchemaHolder):
    """A ``dependencies`` entry: a schema (``schema``) or property names (``property``)."""

    __slots__ = ("schema", "property")
    _names = ("schema", "property")

    def __init__(self, schema: Any = None, property: list[str] | None = None) -> None:  # noqa: A002
        self.schema = schema
        self.property = property

    def deep_copy(self) -> JSONSchemaPropsOrStringArray:
        return type(self)(self.schema.deep_copy() if self.schema is not None else None,
                          list(self.property) if self.property is not None else None)

    @_encode_guard
    def _to_tree(self) -> Any:
        if self.property:
            return list(self.property)
        return to_tree(self.schema) if self.schema is not None else None

    @classmethod
    @_decode_guard
    def _from_tree(cls, value: Any, path: str) -> JSONSchemaPropsOrStringArray:
        value = _untranscode(value)
        if isinstance(value, dict):
            return cls(_schema_from_tree(cls, value, path))
        if isinstance(value, list):
            for i, v in enumerate(value):
                if not isinstance(v, str):
                    raise _located(DecodeError,
                                   f"json: cannot unmarshal {_json_kind(v)} into Go value of type string",
                                   f"{path}[{i}]")
            return cls(None, list(value))
        return cls()

    @_encode_guard
    def _proto_body(self) -> bytes:
        out = b""
        if self.schema is not None:
            out += _message(1, to_proto(self.schema))
        for p in self.property or ():
            out += _message(2, p.encode("utf-8", "surrogateescape"))
        return out

    @classmethod
    @_decode_guard
    def _from_proto_body(cls, data: bytes, path: str) -> JSONSchemaPropsOrStringArray:
        schema, prop = None, None
        for number, wire, value in _fields(data, path, "JSONSchemaPropsOrStringArray"):
            if number == 1:
                _check_wire(wire, 2, path, "Schema")
                schema = _merge(_props_class(cls), schema, value, path)
            elif number == 2:
                _check_wire(wire, 2, path, "Property")
                if prop is None:
                    prop = []
                prop.append(bytes(value).decode("utf-8", "surrogateescape"))
        return cls(schema, prop)
