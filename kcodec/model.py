"""Declarative typed structs with Go semantics.

A :class:`Struct` subclass declares its fields as annotated class attributes::

    class ContainerPort(Struct):
        name: str = field(4, "name", omitempty=True)
        host_port: Int32 = field(1, "hostPort", omitempty=True)
        container_port: Int32 = field(2, "containerPort")

Go's distinctions survive: ``X | None`` is a pointer (absent when None, written by protobuf
only when set), a plain annotation is a value with a zero value (protobuf always writes it),
and lists, maps and bytes keep nil (``None``) apart from empty. Each class is compiled once,
on first use, into a flat table of :class:`FieldInfo` that the JSON and protobuf codecs walk
(and that the Cython kernels mirror) without per-call introspection.
"""
from __future__ import annotations

from typing import Any, TypeVar

from kcodec import speedups
from kcodec._kinds import K_ANY, K_BOOL, K_BYTES, K_CUSTOM, K_FLOAT, K_INT32, K_INT64, K_LIST, K_MAP, K_STR, K_STRUCT
from kcodec.errors import DecodeError, EncodeError, NotMarshalableError
from kcodec.errors import json_kind as _json_kind
from kcodec.fieldtable import (
    MISSING,
    CustomValue,
    FieldInfo,
    Int32,
    Int64,
    RawJSON,
    StructBase,
    StructMeta,
    TypeInfo,
    Wrapped,
    _checked,
    _compile,
    _is_zero_value,
    _type_error,
    _walk_tree,
    _zero_of,
    field,
    fields_of,
    go_type_name,
    is_protobuf_struct,
)

__all__ = [
    "Struct",
    "StructMeta",
    "field",
    "FieldInfo",
    "TypeInfo",
    "CustomValue",
    "RawJSON",
    "Int32",
    "Int64",
    "Wrapped",
    "MISSING",
    "to_tree",
    "from_tree",
    "to_proto",
    "from_proto",
    "fields_of",
    "is_protobuf_struct",
    "go_type_name",
    "invalid_value_error",
    "ENCODE_FAULTS",
    "unencodable_reason",
]

T = TypeVar("T")


class Struct(StructBase):
    """Base of typed API structs: slotted, compared by value, copyable, Go-encodable.

    Constructors and attribute assignment check each value against the field's Go type and
    raise :class:`TypeError` naming the field (``DeploymentSpec.replicas: expected int32
    (int) or None, got str 'three'``); strings with an obvious Go text form are converted
    (``"500m"`` for a Quantity, ``"25%"`` or ``8080`` for an IntOrString, RFC 3339 text or
    a ``datetime`` for a Time). Decoders never pay for the check.

    The field machinery (slots, zero values, checks, the compiled table) is
    :class:`kcodec.fieldtable.StructBase`; this class adds copies and the codec entry points.
    """

    __slots__ = ()

    def deep_copy(self: T) -> T:
        """A copy sharing no mutable state with this object."""
        return speedups.deep_copy(self)

    def __deepcopy__(self: T, memo: dict[int, Any]) -> T:
        return speedups.deep_copy(self)

    def __copy__(self: T) -> T:
        new = object.__new__(type(self))
        for f in fields_of(type(self)):
            object.__setattr__(new, f.name, getattr(self, f.name))
        return new

    def __setstate__(self, state: Any) -> None:
        # Unpickling restores what was pickled, which the constructor checked once already.
        slots = state[1] if isinstance(state, tuple) else state
        for name, value in (slots or {}).items():
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-compatible dict Go's ``encoding/json`` would produce for this struct."""
        return _expand_raw(to_tree(self))

    @classmethod
    def from_dict(cls: type[T], data: dict[str, Any]) -> T:
        """Build an instance from a JSON-compatible dict (as ``json.loads`` gives)."""
        return from_tree(cls, data)


# --------------------------------------------------------------------------- codecs
# The walkers live in kcodec._native.codec and their Cython twins in kcodec._speedups;
# speedups binds one set. These wrappers only compile the class and check arguments.


def to_tree(obj: Any) -> dict[str, Any]:
    """Typed struct -> JSON tree (declaration order, sorted maps, omitempty/omitzero)."""
    cls = type(obj)
    if not cls.__dict__.get("__kc_compiled__"):
        _compile(cls)
    try:
        return speedups.struct_to_tree(obj)
    except ENCODE_FAULTS as exc:
        raise invalid_value_error(obj, exc) from exc


#: What a kernel raises when an object holds a value of the wrong Python type (possible only
#: past the constructors' checks: object.__setattr__, or a list or dict mutated in place).
ENCODE_FAULTS = (TypeError, AttributeError, OverflowError, UnicodeEncodeError)


def unencodable_reason(s: str) -> str | None:
    """Why the encoders that write a string's UTF-8 bytes (protobuf, CBOR) cannot write
    ``s``, or None. Strings decoded from invalid UTF-8 hold their bytes as surrogate
    escapes (U+DC80-U+DCFF) and are written back as those bytes; any other surrogate has
    no UTF-8 form and no Go string holds it. JSON and YAML write U+FFFD for it, as Go's
    encoding/json does for invalid UTF-8."""
    try:
        s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        return f"string holds U+{ord(s[exc.start]):04X}, a lone surrogate, which UTF-8 cannot encode"
    return None


def _invalid_in(obj: Any, path: str, depth: int) -> tuple[str, str] | None:
    """The first value of ``obj`` (depth first, declaration order) its field's Go type
    cannot hold, as (JSON field path, reason), or None."""
    if depth > 10_000:
        return path, "nested too deeply"
    for f in fields_of(type(obj)):
        value = getattr(obj, f.name, MISSING)
        name = f.json if f.json not in ("", "-") else f.name
        where = f"{path}.{name}" if path else name
        if value is MISSING:
            return where, "field is not set"
        found = _invalid_value(f, value, where, depth)
        if found is not None:
            return found
    return None


def _invalid_value(t: TypeInfo, value: Any, where: str, depth: int) -> tuple[str, str] | None:
    if value is None:
        if t.pointer or t.kind in (K_LIST, K_MAP, K_BYTES, K_ANY) or t.kind == K_STRUCT:
            return None
    elif t.kind == K_CUSTOM and not isinstance(value, t.cls):
        return where, str(_type_error(where, t, value)).split(": ", 1)[1]
    elif t.kind == K_CUSTOM:
        reason = value._invalid_reason()
        return None if reason is None else (where, reason)
    elif t.kind == K_STR and isinstance(value, str):
        reason = unencodable_reason(value)
        return None if reason is None else (where, reason)
    elif t.kind == K_LIST and isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _invalid_value(t.elem, v, f"{where}[{i}]", depth + 1)  # type: ignore[arg-type]
            if found is not None:
                return found
        return None
    elif t.kind == K_MAP and isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return where, f"map key {k!r} is not a str"
            reason = unencodable_reason(k)
            if reason is not None:
                return where, f"map key: {reason}"
            found = _invalid_value(t.elem, v, f"{where}[{k}]", depth + 1)  # type: ignore[arg-type]
            if found is not None:
                return found
        return None
    try:
        _checked(t, value, where)
    except (TypeError, ValueError) as err:
        return where, str(err).split(": ", 1)[1]
    if t.kind == K_STRUCT and value is not None:
        return _invalid_in(value, where, depth + 1)
    return None


def invalid_value_error(obj: Any, cause: BaseException) -> EncodeError:
    """The :class:`~kcodec.errors.EncodeError` for an encoder that failed on ``obj``:
    names the first field holding a value its Go type cannot hold (``.field_path``), or
    keeps the kernel's words when no such field is found."""
    found = _invalid_in(obj, "", 0) if isinstance(obj, Struct) else None
    name = go_type_name(type(obj))
    if found is None:
        err = EncodeError(f"cannot encode {name}: {cause}")
        err.field_path = None  # type: ignore[attr-defined]
    else:
        path, reason = found
        err = EncodeError(f"cannot encode {name}: {path}: {reason}")
        err.field_path = path  # type: ignore[attr-defined]
    return err




def from_tree(cls: type[T], tree: Any, *, into: Any = None, strict: list[str] | None = None,
              path: str | None = None) -> T:
    """JSON tree -> typed struct.

    ``into`` is filled in place (fields absent from the tree keep their values, as Go's
    ``json.Unmarshal`` does). ``strict``, when a list, collects unknown/duplicate field
    errors. Type errors raise :class:`DecodeError` naming the field path.
    """
    c: Any = cls
    if not c.__dict__.get("__kc_compiled__"):
        _compile(c)
    obj = into if into is not None else c._new_zero()
    if tree is None:
        return obj
    if not isinstance(tree, dict):
        raise DecodeError(f"json: cannot unmarshal {_json_kind(tree)} into Go value of type {go_type_name(c)}")
    speedups.fill_from_tree(obj, c, tree, strict, path if path is not None else c.__name__)
    return obj


def to_proto(obj: Any, *, prefix: bytes | None = None, suffix: bytes = b"") -> bytes:
    """Typed struct -> protobuf message body, exactly as the Go generated marshallers.

    With ``prefix`` the body comes framed: ``prefix + uvarint(len(body)) + body + suffix``
    (the protobuf serializer writes its envelope this way, without copying the body)."""
    cls = type(obj)
    if not cls.__dict__.get("__kc_compiled__"):
        _compile(cls)
    if not cls.__kc_proto_ok__:
        raise NotMarshalableError(cls)
    try:
        if prefix is None:
            return speedups.struct_to_proto(obj)
        return speedups.struct_to_proto(obj, prefix, suffix)
    except ENCODE_FAULTS as exc:
        raise invalid_value_error(obj, exc) from exc


def from_proto(cls: type[T], data: bytes, *, into: Any = None, path: str | None = None,
               start: int = 0, end: int = -1) -> T:
    """Protobuf message body ``data[start:end]`` -> typed struct (unknown fields skipped,
    bounds-checked; ``end`` -1 is the end of ``data``, error offsets count from ``start``)."""
    c: Any = cls
    if not c.__dict__.get("__kc_compiled__"):
        _compile(c)
    obj = into if into is not None else c._new_zero()
    if type(data) is not bytes:
        data = bytes(data)
    if path is not None:
        speedups.fill_from_proto(obj, c, data, path, start, end)
        return obj
    root = c.__name__
    try:
        speedups.fill_from_proto(obj, c, data, root, start, end)
    except DecodeError as exc:
        # The kernels name places from the class; field_path is written as JSON's is
        # (``spec.containers[0].ports``), without it.
        fp = exc.field_path
        if fp is not None and fp.startswith(root):
            rest = fp[len(root):]
            exc.field_path = rest[1:] if rest[:1] == "." else (rest or None)
        raise
    return obj



def _expand_raw(tree: Any) -> Any:
    return speedups.expand_raw_tree(tree)


# The plain-Python deep copy: the reference the copy kernels are tested against.


def _copy_value(t: TypeInfo, v: Any) -> Any:
    if v is None:
        return None
    k = t.kind
    if k == K_STRUCT:
        return _copy_struct(v)
    if k == K_CUSTOM:
        return v.deep_copy()
    if k == K_LIST:
        e = t.elem
        if e.kind in (K_STR, K_INT32, K_INT64, K_BOOL, K_FLOAT, K_BYTES):  # type: ignore[union-attr]
            return list(v)
        return [_copy_value(e, x) for x in v]  # type: ignore[arg-type]
    if k == K_MAP:
        e = t.elem
        if e.kind in (K_STR, K_INT32, K_INT64, K_BOOL, K_FLOAT, K_BYTES):  # type: ignore[union-attr]
            return dict(v)
        return {key: _copy_value(e, x) for key, x in v.items()}  # type: ignore[arg-type]
    if k == K_ANY:
        return _copy_any(v)
    return v


def _copy_any(v: Any) -> Any:
    return _walk_tree(v, None)


def _copy_struct(obj: Any) -> Any:
    cls = type(obj)
    new = object.__new__(cls)
    for f in fields_of(cls):
        object.__setattr__(new, f.name, _copy_value(f, getattr(obj, f.name)))
    return new
