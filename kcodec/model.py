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

import base64
import binascii
import sys
import types
import typing
from typing import Annotated, Any, ClassVar, TypeVar

from kcodec.errors import DecodeError, EncodeError

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
]

T = TypeVar("T")

#: ``int32`` in Go: range-checked on decode.
Int32 = Annotated[int, "int32"]
#: ``int64`` in Go (plain ``int`` means the same).
Int64 = Annotated[int, "int64"]


class _WrappedMarker:
    """Marks a Go named slice that protobuf writes as ``message {repeated T items = 1}``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Wrapped"


#: Use as ``Annotated[list[str], Wrapped]`` (metav1.Verbs, authentication ExtraValue).
Wrapped = _WrappedMarker()


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

# Kind codes of the field tables. Plain ints so the Cython kernels can switch on them.
K_STR = 1
K_BOOL = 2
K_INT32 = 3
K_INT64 = 4
K_FLOAT = 5
K_BYTES = 6
K_STRUCT = 7
K_CUSTOM = 8
K_LIST = 9
K_MAP = 10
K_ANY = 11

# Protobuf wire types.
WT_VARINT = 0
WT_FIXED64 = 1
WT_BYTES = 2

_GO_NAMES = {
    K_STR: "string",
    K_BOOL: "bool",
    K_INT32: "int32",
    K_INT64: "int64",
    K_FLOAT: "float64",
    K_BYTES: "[]uint8",
    K_ANY: "interface {}",
}

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class RawJSON:
    """JSON text to be emitted verbatim (after Go's compaction and HTML escaping)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = bytes(data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RawJSON) and other.data == self.data

    def __hash__(self) -> int:
        return hash(self.data)

    def __repr__(self) -> str:
        return f"RawJSON({self.data!r})"


class CustomValue:
    """Base of leaf value types with their own wire forms (Time, Quantity, IntOrString...).

    The protocol (see docs/design.md): ``_to_tree``, ``_from_tree(value, path)``,
    ``_proto_body``, ``_from_proto_body(data, path)``, ``_zero``, ``_is_zero``,
    ``deep_copy``. Subclasses implement all of them.
    """

    __slots__ = ()

    def _to_tree(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement _to_tree")

    @classmethod
    def _from_tree(cls, value: Any, path: str) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError(f"{cls.__name__} must implement _from_tree")

    def _proto_body(self) -> bytes:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement _proto_body")

    @classmethod
    def _from_proto_body(cls, data: bytes, path: str) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError(f"{cls.__name__} must implement _from_proto_body")

    @classmethod
    def _zero(cls) -> Any:
        return cls()

    def _is_zero(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement _is_zero")

    def deep_copy(self) -> Any:
        return self


class _FieldDecl:
    """What ``field()`` returns: the declaration before the class is compiled."""

    __slots__ = ("number", "json_name", "omitempty", "omitzero", "inline", "default")

    def __init__(self, number: int, json_name: str | None, omitempty: bool, omitzero: bool,
                 inline: bool, default: Any) -> None:
        self.number = number
        self.json_name = json_name
        self.omitempty = omitempty
        self.omitzero = omitzero
        self.inline = inline
        self.default = default


def field(
    proto_number: int = 0,
    json_name: str | None = None,
    *,
    omitempty: bool = False,
    omitzero: bool = False,
    inline: bool = False,
    default: Any = MISSING,
) -> Any:
    """Declare a struct field.

    ``proto_number`` is the protobuf field number (0: not written by protobuf);
    ``json_name`` the Go JSON name (defaults to the attribute name; ``"-"`` hides the field
    from JSON); ``omitempty``/``omitzero`` follow Go's ``encoding/json`` options;
    ``inline=True`` marks a Go embedded struct whose fields JSON flattens into the parent;
    ``default`` overrides the Go zero value for Python construction only.
    """
    if not isinstance(proto_number, int) or proto_number < 0:
        raise TypeError(f"proto_number must be a non-negative int, got {proto_number!r}")
    return _FieldDecl(proto_number, json_name, omitempty, omitzero, inline, default)


class TypeInfo:
    """A compiled type: kind code, nested class, element type, protobuf wrapping."""

    __slots__ = ("kind", "cls", "elem", "wrapped", "pointer", "wire")

    def __init__(self, kind: int, cls: Any = None, elem: TypeInfo | None = None,
                 wrapped: bool = False, pointer: bool = False) -> None:
        self.kind = kind
        self.cls = cls
        self.elem = elem
        self.wrapped = wrapped
        self.pointer = pointer
        if kind in (K_BOOL, K_INT32, K_INT64):
            self.wire = WT_VARINT
        elif kind == K_FLOAT:
            self.wire = WT_FIXED64
        else:
            self.wire = WT_BYTES

    def go_name(self) -> str:
        k = self.kind
        if k in _GO_NAMES:
            base = _GO_NAMES[k]
        elif k in (K_STRUCT, K_CUSTOM):
            base = go_type_name(self.cls)
        elif k == K_LIST:
            base = "[]" + self.elem.go_name()  # type: ignore[union-attr]
        else:
            base = "map[string]" + self.elem.go_name()  # type: ignore[union-attr]
        return ("*" + base) if self.pointer else base

    def __repr__(self) -> str:
        return f"TypeInfo({self.go_name()})"


class FieldInfo(TypeInfo):
    """One row of a compiled field table."""

    __slots__ = ("name", "json", "number", "omitempty", "omitzero", "inline", "default")

    def __init__(self, name: str, decl: _FieldDecl, t: TypeInfo) -> None:
        super().__init__(t.kind, t.cls, t.elem, t.wrapped, t.pointer)
        self.name = name
        self.json = decl.json_name if decl.json_name is not None else name
        self.number = decl.number
        self.omitempty = decl.omitempty
        self.omitzero = decl.omitzero
        self.inline = decl.inline
        self.default = decl.default

    def __repr__(self) -> str:
        return f"FieldInfo({self.name!r}, json={self.json!r}, number={self.number}, type={self.go_name()})"


class StructMeta(type):
    """Turns annotated fields into ``__slots__``; compiles the field table on first use."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kw: Any) -> Any:
        annotations = ns.get("__annotations__", {})
        decls: list[tuple[str, _FieldDecl]] = []
        for attr in list(annotations):
            value = ns.get(attr, MISSING)
            ann = annotations[attr]
            if isinstance(ann, str) and ann.startswith("ClassVar"):
                continue
            if ann is ClassVar or typing.get_origin(ann) is ClassVar:
                continue
            if isinstance(value, _FieldDecl):
                decl = ns.pop(attr)
            else:
                if value is not MISSING:
                    ns.pop(attr)
                decl = _FieldDecl(0, None, False, False, False, value)
            decls.append((attr, decl))
        if "__slots__" not in ns:
            ns["__slots__"] = tuple(a for a, _ in decls)
        ns["__kc_decls__"] = tuple(decls)
        cls = super().__new__(mcls, name, bases, ns, **kw)
        cls.__kc_compiled__ = False  # type: ignore[attr-defined]
        return cls


def _all_decls(cls: type) -> list[tuple[str, _FieldDecl, type]]:
    out: list[tuple[str, _FieldDecl, type]] = []
    for klass in reversed(cls.__mro__):
        for attr, decl in klass.__dict__.get("__kc_decls__", ()):
            out.append((attr, decl, klass))
    return out


def _resolve_type(ann: Any, owner: type, attr: str) -> TypeInfo:
    pointer = False
    wrapped = False
    origin = typing.get_origin(ann)
    if origin is Annotated:
        args = typing.get_args(ann)
        base, extras = args[0], args[1:]
        if "int32" in extras:
            return TypeInfo(K_INT32)
        if any(e is Wrapped for e in extras):
            wrapped = True
        ann = base
        origin = typing.get_origin(ann)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        if len(args) != len(typing.get_args(ann)):
            pointer = True
        if len(args) != 1:
            raise TypeError(f"{owner.__name__}.{attr}: unions other than X | None are not supported")
        t = _resolve_type(args[0], owner, attr)
        if t.kind in (K_LIST, K_MAP, K_BYTES, K_ANY):
            return t  # always nil-able; "| None" only documents it
        t.pointer = pointer
        return t
    if ann is str:
        return TypeInfo(K_STR)
    if ann is bool:
        return TypeInfo(K_BOOL)
    if ann is int:
        return TypeInfo(K_INT64)
    if ann is float:
        return TypeInfo(K_FLOAT)
    if ann is bytes:
        return TypeInfo(K_BYTES)
    if ann is Any or ann is object:
        return TypeInfo(K_ANY)
    if origin is list:
        (elem,) = typing.get_args(ann) or (Any,)
        return TypeInfo(K_LIST, elem=_resolve_type(elem, owner, attr), wrapped=wrapped)
    if origin is dict:
        key, elem = typing.get_args(ann) or (str, Any)
        if key is not str:
            raise TypeError(f"{owner.__name__}.{attr}: map keys must be str")
        return TypeInfo(K_MAP, elem=_resolve_type(elem, owner, attr))
    if isinstance(ann, type):
        if issubclass(ann, CustomValue):
            return TypeInfo(K_CUSTOM, cls=ann)
        if isinstance(ann, StructMeta):
            return TypeInfo(K_STRUCT, cls=ann)
    raise TypeError(f"{owner.__name__}.{attr}: unsupported field type {ann!r}")


def _compile(cls: Any) -> None:
    """Build ``__kc_fields__`` (declaration order) and the derived lookup tables."""
    if cls.__dict__.get("__kc_compiled__"):
        return
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if "__kc_decls__" not in klass.__dict__ or not klass.__dict__["__kc_decls__"]:
            continue
        module = sys.modules.get(klass.__module__)
        globalns = dict(vars(module)) if module else {}
        localns = {klass.__name__: klass}
        raw = klass.__dict__.get("__annotations__", {})
        for attr, _decl in klass.__dict__["__kc_decls__"]:
            ann = raw[attr]
            if isinstance(ann, str):
                try:
                    ann = eval(ann, globalns, localns)  # noqa: S307 - our own annotations
                except Exception as exc:  # pragma: no cover - declaration bug
                    raise TypeError(f"{klass.__name__}.{attr}: cannot resolve annotation {ann!r}: {exc}") from exc
            hints[attr] = (ann, klass)
    fields: list[FieldInfo] = []
    for attr, decl, klass in _all_decls(cls):
        ann, owner = hints[attr]
        fields.append(FieldInfo(attr, decl, _resolve_type(ann, owner, attr)))
    cls.__kc_fields__ = tuple(fields)
    cls.__kc_pb__ = tuple(sorted((f for f in fields if f.number > 0), key=lambda f: f.number))
    cls.__kc_bynum__ = {f.number: f for f in fields if f.number > 0}
    json_map: dict[str, tuple[FieldInfo, ...]] = {}
    for f in fields:
        if f.inline and f.kind == K_STRUCT:
            _compile(f.cls)
            for key, chain in f.cls.__kc_json__.items():
                json_map.setdefault(key, (f,) + chain)
        elif f.json != "-":
            json_map[f.json] = (f,)
    cls.__kc_json__ = json_map
    explicit = cls.__dict__.get("__protobuf__", None)
    if explicit is None:
        for klass in cls.__mro__:
            if "__protobuf__" in klass.__dict__ and klass is not cls:
                explicit = klass.__dict__["__protobuf__"]
                break
    cls.__kc_proto_ok__ = bool(cls.__kc_pb__) if explicit is None else bool(explicit)
    cls.__kc_compiled__ = True


def fields_of(cls: Any) -> tuple[FieldInfo, ...]:
    """The compiled field table of a Struct class, in declaration order."""
    if not cls.__dict__.get("__kc_compiled__"):
        _compile(cls)
    return cls.__kc_fields__


def is_protobuf_struct(cls: Any) -> bool:
    """Whether instances of ``cls`` have a protobuf form."""
    if not cls.__dict__.get("__kc_compiled__"):
        _compile(cls)
    return cls.__kc_proto_ok__


def go_type_name(cls: Any) -> str:
    """Go-like short type name (``v1.Pod``) used in error messages."""
    return f"{cls.__module__.rsplit('.', 1)[-1]}.{cls.__qualname__}"


def _zero_of(f: TypeInfo) -> Any:
    if f.pointer:
        return None
    k = f.kind
    if k == K_STR:
        return ""
    if k in (K_INT32, K_INT64):
        return 0
    if k == K_BOOL:
        return False
    if k == K_FLOAT:
        return 0.0
    if k == K_STRUCT:
        return f.cls._new_zero()
    if k == K_CUSTOM:
        return f.cls._zero()
    return None


class Struct(metaclass=StructMeta):
    """Base of typed API structs: slotted, compared by value, copyable, Go-encodable."""

    __slots__ = ()
    __kc_fields__: ClassVar[tuple[FieldInfo, ...]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        if not cls.__dict__.get("__kc_compiled__"):
            _compile(cls)
        fields = cls.__kc_fields__
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes at most {len(fields)} positional arguments")
        for i, f in enumerate(fields):
            if i < len(args):
                value = args[i]
                if f.name in kwargs:
                    raise TypeError(f"{cls.__name__}() got multiple values for argument {f.name!r}")
            elif f.name in kwargs:
                value = kwargs.pop(f.name)
            elif f.default is not MISSING:
                value = f.default() if callable(f.default) and not isinstance(f.default, type) else f.default
            else:
                value = _zero_of(f)
            object.__setattr__(self, f.name, value)
        if len(args) < len(fields):
            for name in kwargs:
                if not any(f.name == name for f in fields):
                    raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")

    @classmethod
    def _new_zero(cls: type[T]) -> T:
        """A Go zero value of this struct (ignores Python-side ``default=``)."""
        c: Any = cls
        if not c.__dict__.get("__kc_compiled__"):
            _compile(c)
        obj = object.__new__(cls)
        for f in c.__kc_fields__:
            object.__setattr__(obj, f.name, _zero_of(f))
        return obj

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        for f in fields_of(type(self)):
            if getattr(self, f.name) != getattr(other, f.name):
                return False
        return True

    __hash__ = None  # type: ignore[assignment]  # mutable, like Go structs

    def __repr__(self) -> str:
        parts = []
        for f in fields_of(type(self)):
            v = getattr(self, f.name)
            if _is_zero_value(f, v):
                continue
            parts.append(f"{f.name}={v!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def deep_copy(self: T) -> T:
        """A copy sharing no mutable state with this object."""
        return _copy_struct(self)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-compatible dict Go's ``encoding/json`` would produce for this struct."""
        return _expand_raw(to_tree(self))

    @classmethod
    def from_dict(cls: type[T], data: dict[str, Any]) -> T:
        """Build an instance from a JSON-compatible dict (as ``json.loads`` gives)."""
        return from_tree(cls, data)


def _is_zero_value(f: TypeInfo, v: Any) -> bool:
    if v is None:
        return True
    if f.pointer:
        return False
    k = f.kind
    if k in (K_STR, K_INT32, K_INT64, K_BOOL, K_FLOAT):
        return not v
    if k == K_STRUCT:
        return all(_is_zero_value(g, getattr(v, g.name)) for g in fields_of(type(v)))
    if k == K_CUSTOM:
        return v._is_zero()
    return False


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
    if isinstance(v, dict):
        return {k: _copy_any(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy_any(x) for x in v]
    return v


def _copy_struct(obj: Any) -> Any:
    cls = type(obj)
    new = object.__new__(cls)
    for f in fields_of(cls):
        object.__setattr__(new, f.name, _copy_value(f, getattr(obj, f.name)))
    return new


# --------------------------------------------------------------------------- JSON tree


def to_tree(obj: Any) -> dict[str, Any]:
    """Typed struct -> JSON tree (declaration order, sorted maps, omitempty/omitzero)."""
    cls = type(obj)
    if not cls.__dict__.get("__kc_compiled__"):
        _compile(cls)
    out: dict[str, Any] = {}
    _struct_into(obj, cls.__kc_fields__, out)
    return out


def _struct_into(obj: Any, fields: tuple[FieldInfo, ...], out: dict[str, Any]) -> None:
    for f in fields:
        v = getattr(obj, f.name)
        if f.inline and f.kind == K_STRUCT:
            if v is not None:
                sub: dict[str, Any] = {}
                _struct_into(v, fields_of(type(v)), sub)
                for key, val in sub.items():
                    out.setdefault(key, val)
            continue
        if f.json == "-":
            continue
        if v is None:
            if f.omitempty or f.omitzero:
                continue
            out[f.json] = None
            continue
        k = f.kind
        if f.omitempty and not v:
            # Go's isEmptyValue: empty slices/maps/bytes (nil or not) and zero scalars; a
            # set pointer is never empty, and structs never are.
            if k == K_LIST or k == K_MAP or k == K_BYTES or (k <= K_FLOAT and not f.pointer):
                continue
        if f.omitzero and not f.pointer and _is_zero_value(f, v):
            continue
        out[f.json] = _value_tree(f, v)


def _value_tree(t: TypeInfo, v: Any) -> Any:
    if v is None:
        return None
    k = t.kind
    if k <= K_FLOAT:
        return v
    if k == K_STRUCT:
        sub: dict[str, Any] = {}
        _struct_into(v, fields_of(type(v)), sub)
        return sub
    if k == K_CUSTOM:
        return v._to_tree()
    if k == K_BYTES:
        return base64.b64encode(v).decode("ascii")
    if k == K_LIST:
        e = t.elem
        if e.kind <= K_FLOAT:  # type: ignore[union-attr]
            return list(v)
        return [_value_tree(e, x) for x in v]  # type: ignore[arg-type]
    if k == K_MAP:
        e = t.elem
        if e.kind <= K_FLOAT:  # type: ignore[union-attr]
            return {key: v[key] for key in sorted(v)}
        return {key: _value_tree(e, v[key]) for key in sorted(v)}  # type: ignore[arg-type]
    return v  # K_ANY: already a tree


def _expand_raw(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {k: _expand_raw(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_expand_raw(v) for v in tree]
    if isinstance(tree, RawJSON):
        import json

        return json.loads(tree.data) if tree.data.strip() else None
    return tree


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        from kcodec.serializer._gojson import format_float

        return "number " + (str(v) if isinstance(v, int) else format_float(v))
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def _type_error(v: Any, t: TypeInfo, path: str) -> DecodeError:
    return DecodeError(f"json: cannot unmarshal {_json_type(v)} into Go struct field {path} of type {t.go_name()}")


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
    if path is None:
        path = c.__name__
    obj = into if into is not None else c._new_zero()
    if tree is None:
        return obj
    if not isinstance(tree, dict):
        raise DecodeError(f"json: cannot unmarshal {_json_type(tree)} into Go value of type {go_type_name(c)}")
    _fill(obj, c, tree, strict, path, "")
    return obj


def _fill(obj: Any, cls: Any, tree: dict[str, Any], strict: list[str] | None, path: str, spath: str) -> None:
    jmap = cls.__kc_json__
    if strict is not None:
        dups = getattr(tree, "duplicates", None)
        if dups:
            for key in dups:
                msg = f'duplicate field "{spath}{key}"'
                if msg not in strict:
                    strict.append(msg)
    for key, v in tree.items():
        chain = jmap.get(key)
        if chain is None:
            if strict is not None:
                msg = f'unknown field "{spath}{key}"'
                if msg not in strict:
                    strict.append(msg)
            continue
        target = obj
        for inl in chain[:-1]:
            sub = getattr(target, inl.name)
            if sub is None:
                sub = inl.cls._new_zero()
                object.__setattr__(target, inl.name, sub)
            target = sub
        f = chain[-1]
        fpath = path + "." + key
        k = f.kind
        if k == K_STR:
            if type(v) is str:
                object.__setattr__(target, f.name, v)
            elif v is None:
                object.__setattr__(target, f.name, None if f.pointer else "")
            else:
                raise _type_error(v, f, fpath)
        else:
            object.__setattr__(target, f.name,
                               _decode_value(f, v, getattr(target, f.name), strict, fpath, spath + key))


def _decode_value(t: TypeInfo, v: Any, old: Any, strict: list[str] | None, path: str, spath: str) -> Any:
    k = t.kind
    if v is None:
        if t.pointer or k in (K_LIST, K_MAP, K_BYTES, K_ANY):
            return None
        if k == K_CUSTOM:
            return t.cls._from_tree(None, path)
        if k == K_STRUCT:
            return old if old is not None else t.cls._new_zero()
        return _zero_of(t)
    if k == K_STR:
        if type(v) is str:
            return v
        raise _type_error(v, t, path)
    if k == K_INT32 or k == K_INT64:
        if type(v) is int:
            if k == K_INT32:
                if INT32_MIN <= v <= INT32_MAX:
                    return v
            elif INT64_MIN <= v <= INT64_MAX:
                return v
        raise _type_error(v, t, path)
    if k == K_BOOL:
        if v is True or v is False:
            return v
        raise _type_error(v, t, path)
    if k == K_STRUCT:
        if type(v) is not dict and not isinstance(v, dict):
            raise _type_error(v, t, path)
        sub = old if old is not None else t.cls._new_zero()
        cls = t.cls
        if not cls.__dict__.get("__kc_compiled__"):
            _compile(cls)
        _fill(sub, cls, v, strict, path, spath + ".")
        return sub
    if k == K_LIST:
        if type(v) is not list:
            raise _type_error(v, t, path)
        e = t.elem
        ek = e.kind  # type: ignore[union-attr]
        if ek == K_STR:
            for x in v:
                if type(x) is not str:
                    break
            else:
                return v
        out = []
        for i, x in enumerate(v):
            out.append(_decode_value(e, x, None, strict, f"{path}[{i}]", f"{spath}[{i}]"))  # type: ignore[arg-type]
        return out
    if k == K_MAP:
        if not isinstance(v, dict):
            raise _type_error(v, t, path)
        e = t.elem
        if e.kind == K_STR:  # type: ignore[union-attr]
            for x in v.values():
                if type(x) is not str:
                    break
            else:
                out_map = dict(v)
                if old is not None:
                    old.update(out_map)
                    return old
                return out_map
        out_map = {}
        for key, x in v.items():
            out_map[key] = _decode_value(e, x, None, strict, f"{path}[{key}]", f"{spath}[{key}]")  # type: ignore[arg-type]
        if old is not None:
            old.update(out_map)
            return old
        return out_map
    if k == K_CUSTOM:
        return t.cls._from_tree(v, path)
    if k == K_BYTES:
        if type(v) is not str:
            raise _type_error(v, t, path)
        try:
            return base64.b64decode(v.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
            raise DecodeError(f"illegal base64 data in Go struct field {path}: {exc}") from None
    if k == K_FLOAT:
        if type(v) in (int, float):
            return float(v)
        raise _type_error(v, t, path)
    return v  # K_ANY


# --------------------------------------------------------------------------- protobuf

def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint((number << 3) | wire)


def to_proto(obj: Any) -> bytes:
    """Typed struct -> protobuf message body, exactly as the Go generated marshallers."""
    cls = type(obj)
    if not cls.__dict__.get("__kc_compiled__"):
        _compile(cls)
    if not cls.__kc_proto_ok__:
        from kcodec.errors import NotMarshalableError

        raise NotMarshalableError(cls)
    out = bytearray()
    _proto_struct(obj, cls, out)
    return bytes(out)


def _proto_struct(obj: Any, cls: Any, out: bytearray) -> None:
    if not cls.__dict__.get("__kc_compiled__"):
        _compile(cls)
    for f in cls.__kc_pb__:
        v = getattr(obj, f.name)
        if v is None:
            continue
        k = f.kind
        if k == K_LIST and not f.wrapped:
            e = f.elem
            key = _key(f.number, e.wire if e.kind in (K_BOOL, K_INT32, K_INT64, K_FLOAT) else WT_BYTES)  # type: ignore[union-attr]
            for x in v:
                out += key
                _proto_value(e, x, out)  # type: ignore[arg-type]
            continue
        if k == K_MAP:
            if not v:
                continue
            key = _key(f.number, WT_BYTES)
            e = f.elem
            for mk in sorted(v):
                entry = bytearray(b"\x0a")
                kb = mk.encode("utf-8", "surrogateescape")
                entry += _varint(len(kb))
                entry += kb
                mv = v[mk]
                if mv is not None or e.kind not in (K_BYTES,):  # type: ignore[union-attr]
                    entry += _key(2, e.wire)  # type: ignore[union-attr]
                    _proto_value(e, mv, entry)  # type: ignore[arg-type]
                out += key
                out += _varint(len(entry))
                out += entry
            continue
        out += _key(f.number, f.wire)
        _proto_value(f, v, out)


def _proto_value(t: TypeInfo, v: Any, out: bytearray) -> None:
    """Append the payload of one value (varint, fixed64 or length + bytes)."""
    k = t.kind
    if k == K_STR:
        b = v.encode("utf-8", "surrogateescape")
        out += _varint(len(b))
        out += b
    elif k == K_INT32 or k == K_INT64:
        out += _varint(v)
    elif k == K_BOOL:
        out.append(1 if v else 0)
    elif k == K_STRUCT:
        sub = bytearray()
        if v is not None:
            _proto_struct(v, type(v), sub)
        out += _varint(len(sub))
        out += sub
    elif k == K_CUSTOM:
        b = v._proto_body() if v is not None else b""
        out += _varint(len(b))
        out += b
    elif k == K_BYTES:
        b = v if v is not None else b""
        out += _varint(len(b))
        out += b
    elif k == K_LIST:  # wrapped list: message { repeated elem items = 1 }
        sub = bytearray()
        e = t.elem
        key = _key(1, e.wire if e.kind in (K_BOOL, K_INT32, K_INT64, K_FLOAT) else WT_BYTES)  # type: ignore[union-attr]
        for x in v or ():
            sub += key
            _proto_value(e, x, sub)  # type: ignore[arg-type]
        out += _varint(len(sub))
        out += sub
    elif k == K_FLOAT:
        import struct as _st

        out += _st.pack("<d", v)
    else:
        raise EncodeError(f"cannot encode {t.go_name()} as protobuf")


def _read_varint(buf: bytes, pos: int, end: int, path: str) -> tuple[int, int]:
    result = 0
    shift = 0
    start = pos
    while True:
        if pos >= end:
            raise DecodeError(f"proto: {path}: unexpected EOF in varint at byte {start}")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise DecodeError(f"proto: {path}: varint overflow at byte {start}")


def _skip(buf: bytes, wire: int, pos: int, end: int, path: str) -> int:
    if wire == WT_VARINT:
        return _read_varint(buf, pos, end, path)[1]
    if wire == WT_FIXED64:
        pos += 8
    elif wire == WT_BYTES:
        n, pos = _read_varint(buf, pos, end, path)
        pos += n
    elif wire == 5:
        pos += 4
    else:
        raise DecodeError(f"proto: {path}: illegal wire type {wire} at byte {pos}")
    if pos > end:
        raise DecodeError(f"proto: {path}: unexpected EOF at byte {end}")
    return pos


def from_proto(cls: type[T], data: bytes, *, into: Any = None, path: str | None = None) -> T:
    """Protobuf message body -> typed struct (unknown fields skipped, bounds-checked)."""
    c: Any = cls
    if not c.__dict__.get("__kc_compiled__"):
        _compile(c)
    obj = into if into is not None else c._new_zero()
    buf = bytes(data)
    _proto_fill(obj, c, buf, 0, len(buf), path or c.__name__, 0)
    return obj


_MAX_DEPTH = 100


def _proto_fill(obj: Any, cls: Any, buf: bytes, pos: int, end: int, path: str, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise DecodeError(f"proto: {path}: exceeded max nesting depth {_MAX_DEPTH}")
    if not cls.__dict__.get("__kc_compiled__"):
        _compile(cls)
    bynum = cls.__kc_bynum__
    while pos < end:
        tag_pos = pos
        key, pos = _read_varint(buf, pos, end, path)
        num = key >> 3
        wire = key & 7
        f = bynum.get(num)
        if num == 0:
            raise DecodeError(f"proto: {path}: illegal tag 0 at byte {tag_pos}")
        if f is None:
            pos = _skip(buf, wire, pos, end, path)
            continue
        fpath = path + "." + f.json
        k = f.kind
        if k == K_LIST and not f.wrapped:
            e = f.elem
            lst = getattr(obj, f.name)
            if lst is None:
                lst = []
                object.__setattr__(obj, f.name, lst)
            if wire == WT_BYTES and e.wire != WT_BYTES:  # type: ignore[union-attr]
                n, pos = _read_varint(buf, pos, end, fpath)
                stop = pos + n
                if stop > end:
                    raise DecodeError(f"proto: {fpath}: length {n} at byte {pos} exceeds message end {end}")
                while pos < stop:
                    x, pos = _proto_read(e, wire=e.wire, buf=buf, pos=pos, end=stop, path=fpath, depth=depth)  # type: ignore[union-attr]
                    lst.append(x)
                continue
            x, pos = _proto_read(e, wire, buf, pos, end, f"{fpath}[{len(lst)}]", depth)  # type: ignore[arg-type]
            lst.append(x)
            continue
        if k == K_MAP:
            if wire != WT_BYTES:
                raise DecodeError(f"proto: {fpath}: wrong wire type {wire} at byte {tag_pos}")
            n, pos = _read_varint(buf, pos, end, fpath)
            stop = pos + n
            if stop > end:
                raise DecodeError(f"proto: {fpath}: length {n} at byte {pos} exceeds message end {end}")
            e = f.elem
            mk = ""
            mv = None
            have_v = False
            while pos < stop:
                ekey, pos = _read_varint(buf, pos, stop, fpath)
                enum, ewire = ekey >> 3, ekey & 7
                if enum == 1 and ewire == WT_BYTES:
                    ln, pos = _read_varint(buf, pos, stop, fpath)
                    if pos + ln > stop:
                        raise DecodeError(f"proto: {fpath}: map key length {ln} at byte {pos} exceeds entry")
                    mk = buf[pos:pos + ln].decode("utf-8", "surrogateescape")
                    pos += ln
                elif enum == 2:
                    mv, pos = _proto_read(e, ewire, buf, pos, stop, f"{fpath}[{mk}]", depth)  # type: ignore[arg-type]
                    have_v = True
                else:
                    pos = _skip(buf, ewire, pos, stop, fpath)
            if not have_v:
                mv = _zero_of(e) if e.kind not in (K_STRUCT,) else e.cls._new_zero()  # type: ignore[union-attr]
                if e.kind == K_BYTES:  # type: ignore[union-attr]
                    mv = None
            m = getattr(obj, f.name)
            if m is None:
                m = {}
                object.__setattr__(obj, f.name, m)
            m[mk] = mv
            continue
        if k == K_STRUCT and not f.pointer:
            if wire != WT_BYTES:
                raise DecodeError(f"proto: {fpath}: wrong wire type {wire} at byte {tag_pos}")
            n, pos = _read_varint(buf, pos, end, fpath)
            stop = pos + n
            if stop > end:
                raise DecodeError(f"proto: {fpath}: length {n} at byte {pos} exceeds message end {end}")
            sub = getattr(obj, f.name)
            _proto_fill(sub, f.cls, buf, pos, stop, fpath, depth + 1)
            pos = stop
            continue
        val, pos = _proto_read(f, wire, buf, pos, end, fpath, depth)
        object.__setattr__(obj, f.name, val)


def _proto_read(t: TypeInfo, wire: int, buf: bytes, pos: int, end: int, path: str, depth: int) -> tuple[Any, int]:
    k = t.kind
    if wire != t.wire:
        raise DecodeError(f"proto: {path}: wrong wire type {wire} for {t.go_name()} at byte {pos}")
    if wire == WT_VARINT:
        v, pos = _read_varint(buf, pos, end, path)
        if k == K_BOOL:
            return v != 0, pos
        if k == K_INT32:
            v &= 0xFFFFFFFF
            if v >= 1 << 31:
                v -= 1 << 32
            return v, pos
        if v >= 1 << 63:
            v -= 1 << 64
        return v, pos
    if wire == WT_FIXED64:
        if pos + 8 > end:
            raise DecodeError(f"proto: {path}: unexpected EOF at byte {pos}")
        import struct as _st

        return _st.unpack_from("<d", buf, pos)[0], pos + 8
    n, pos = _read_varint(buf, pos, end, path)
    stop = pos + n
    if stop > end:
        raise DecodeError(f"proto: {path}: length {n} at byte {pos} exceeds message end {end}")
    if k == K_STR:
        return buf[pos:stop].decode("utf-8", "surrogateescape"), stop
    if k == K_STRUCT:
        sub = t.cls._new_zero()
        _proto_fill(sub, t.cls, buf, pos, stop, path, depth + 1)
        return sub, stop
    if k == K_CUSTOM:
        return t.cls._from_proto_body(buf[pos:stop], path), stop
    if k == K_BYTES:
        return buf[pos:stop], stop
    if k == K_LIST:  # wrapped
        holder: list[Any] = []
        e = t.elem
        p = pos
        while p < stop:
            ekey, p = _read_varint(buf, p, stop, path)
            if ekey >> 3 == 1:
                x, p = _proto_read(e, ekey & 7, buf, p, stop, f"{path}[{len(holder)}]", depth)  # type: ignore[arg-type]
                holder.append(x)
            else:
                p = _skip(buf, ekey & 7, p, stop, path)
        return holder, stop
    raise DecodeError(f"proto: {path}: cannot decode {t.go_name()}")
