"""Field tables: what a typed struct is made of, compiled once per class.

This is the layer the codec kernels stand on. Go's ``encoding/json`` and the gogo-protobuf
generated marshallers both walk a struct's fields through reflection or generated code; kcodec
compiles each class once into a flat tuple of :class:`FieldInfo` (JSON name, protobuf number
and wire type, kind code, omitempty/omitzero, pointer-ness, nested class) and both the pure
and the compiled kernels walk only that tuple. :class:`StructBase` holds what a struct is
without any codec (slots, zero values, equality, repr); :class:`kcodec.model.Struct` adds the
codec methods on top. :class:`CustomValue` is the contract of leaf values with their own wire
forms, and :class:`RawJSON` the verbatim JSON text that raw fields carry.
"""
from __future__ import annotations

import abc
import inspect
import sys
import types
import typing
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, TypeVar, Union

from kcodec._kinds import (
    _GO_NAMES, K_ANY, K_BOOL, K_BYTES, K_CUSTOM, K_FLOAT,
    K_INT32, K_INT64, K_LIST, K_MAP, K_STR, K_STRUCT, WT_BYTES, WT_FIXED64, WT_VARINT,
    INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN,
)

__all__ = [
    "JSONNumber",
    "StructBase",
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
    "compile_struct",
    "fields_of",
    "is_protobuf_struct",
    "go_type_name",
    "struct_type_of",
    "zero_of",
    "is_zero_value",
    "walk_tree",
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


class JSONNumber(float):
    """A JSON number that is not an int64 integer literal, with the text it was written as.

    It is the float64 Go's untyped decode makes of it, so the tree treats it as a float;
    ``text`` is kept because Go reads some targets from the literal itself: a Quantity parses
    it (``1e3`` stays ``1e3``), an integer field refuses it naming it (``number 1E+2``).
    """

    __slots__ = ("text",)

    def __new__(cls, text: str) -> "JSONNumber":
        self = float.__new__(cls, text)
        self.text = text
        return self

    def __reduce__(self) -> Any:
        return (JSONNumber, (self.text,))

    def __repr__(self) -> str:
        return f"JSONNumber({self.text!r})"


class CustomValue(abc.ABC):
    """Base of leaf value types with their own wire forms (Time, Quantity, IntOrString...).

    The protocol (see docs/design.md): ``_to_tree``, ``_from_tree(value, path)``,
    ``_proto_body``, ``_from_proto_body(data, path)``, ``_zero``, ``_is_zero``,
    ``deep_copy``. A subclass missing one of the abstract methods cannot be instantiated.
    """

    __slots__ = ()

    @abc.abstractmethod
    def _to_tree(self) -> Any:
        """The JSON tree value (str, int, None, RawJSON...)."""

    @classmethod
    @abc.abstractmethod
    def _from_tree(cls, value: Any, path: str) -> Any:
        """Build from a parsed JSON value; raise DecodeError naming ``path``."""

    @abc.abstractmethod
    def _proto_body(self) -> bytes:
        """The protobuf message body (no tag, no length)."""

    @classmethod
    @abc.abstractmethod
    def _from_proto_body(cls, data: bytes, path: str) -> Any:
        """Build from a protobuf message body; raise DecodeError naming ``path``."""

    @classmethod
    def _zero(cls) -> Any:
        return cls()

    @classmethod
    def _coerce(cls, value: Any) -> Any:
        """An instance for a plain Python ``value`` given to a constructor or assignment
        (``"500m"`` for a Quantity...), or :data:`NotImplemented` when there is none."""
        return NotImplemented

    @abc.abstractmethod
    def _is_zero(self) -> bool:
        """Go's IsZero, for omitzero."""

    def _invalid_reason(self) -> str | None:
        """Why this value cannot be encoded (a slot set past its checks, with
        ``object.__setattr__``), or None; EncodeError texts name the field with it."""
        return None

    def deep_copy(self) -> Any:
        return self


class _FieldDecl:
    """What ``field()`` returns: the declaration before the class is compiled."""

    __slots__ = ("number", "json_name", "omitempty", "omitzero", "inline", "default", "go", "via",
                 "go_field", "tags")

    def __init__(self, number: int, json_name: str | None, omitempty: bool, omitzero: bool,
                 inline: bool, default: Any, go: str | None = None, via: str | None = None,
                 go_field: str | None = None, tags: str | None = None) -> None:
        self.number = number
        self.json_name = json_name
        self.omitempty = omitempty
        self.omitzero = omitzero
        self.inline = inline
        self.default = default
        self.go = go
        self.via = via
        self.go_field = go_field
        self.tags = tags


def field(
    proto_number: int = 0,
    json_name: str | None = None,
    *,
    omitempty: bool = False,
    omitzero: bool = False,
    inline: bool = False,
    default: Any = MISSING,
    go: str | None = None,
    via: str | None = None,
    go_field: str | None = None,
    tags: str | None = None,
) -> Any:
    """Declare a struct field.

    ``proto_number`` is the protobuf field number (0: not written by protobuf);
    ``json_name`` the Go JSON name (defaults to the attribute name; ``"-"`` hides the field
    from JSON); ``omitempty``/``omitzero`` follow Go's ``encoding/json`` options;
    ``inline=True`` marks a Go embedded struct whose fields JSON flattens into the parent;
    ``default`` overrides the Go zero value for Python construction only.
    ``go`` is the Go type as ``reflect.Type.String()`` spells it, for error texts, when the
    annotation does not say it (a named type: ``"types.UID"``, ``"[]v1.Protocol"``); a named
    slice or map is written ``"v1.ResourceList=map[v1.ResourceName]resource.Quantity"`` so
    its elements are named too. ``via`` is the Go name of the embedded struct the field is
    promoted from when the Python class flattens it (``"TypeMeta"``), which Go's error
    context names. ``go_field`` is the Go field name when it is not the JSON name with its
    first letter upper-cased (``"ObjectMeta"`` for ``metadata``), for gogo-protobuf's texts.
    ``tags`` holds the Go field's merge tags as ``key=value`` pairs joined by ``;``
    (``"patchStrategy=merge;patchMergeKey=name;listType=map;listMapKey=name,protocol"``):
    kept as written and parsed only when asked (:meth:`FieldInfo.patch_strategy` and the
    other accessors), as the Go type names are.
    """
    if not isinstance(proto_number, int) or proto_number < 0:
        raise TypeError(f"proto_number must be a non-negative int, got {proto_number!r}")
    if tags is not None and not isinstance(tags, str):
        raise TypeError(f"tags must be a str, got {tags!r}")
    return _FieldDecl(proto_number, json_name, omitempty, omitzero, inline, default, go, via, go_field,
                      tags)


class TypeInfo:
    """A compiled type: kind code, nested class, element type, protobuf wrapping."""

    __slots__ = ("kind", "cls", "elem", "wrapped", "pointer", "wire", "goname")

    def __init__(self, kind: int, cls: Any = None, elem: TypeInfo | None = None,
                 wrapped: bool = False, pointer: bool = False) -> None:
        self.kind = kind
        self.cls = cls
        self.elem = elem
        self.wrapped = wrapped
        self.pointer = pointer
        self.goname: str | None = None  # Go's name of a named type (set from field(go=...))
        if kind in (K_BOOL, K_INT32, K_INT64):
            self.wire = WT_VARINT
        elif kind == K_FLOAT:
            self.wire = WT_FIXED64
        else:
            self.wire = WT_BYTES

    def go_name(self) -> str:
        """The Go type as ``reflect.Type.String()`` prints it (encoding/json's type errors)."""
        if self.goname is not None:
            return ("*" + self.goname) if self.pointer else self.goname
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

    __slots__ = ("name", "json", "number", "omitempty", "omitzero", "inline", "default", "via",
                 "_go_field", "_tags")

    def __init__(self, name: str, decl: _FieldDecl, t: TypeInfo) -> None:
        super().__init__(t.kind, t.cls, t.elem, t.wrapped, t.pointer)
        if decl.go is not None:
            _name_go_types(self, decl.go)
        self.name = name
        self.json = decl.json_name if decl.json_name is not None else name
        self.number = decl.number
        self.omitempty = decl.omitempty
        self.omitzero = decl.omitzero
        self.inline = decl.inline
        self.default = decl.default
        self.via = decl.via
        self._go_field = decl.go_field
        self._tags: Any = decl.tags  # the field(tags=...) text until an accessor parses it

    def tags(self) -> dict[str, str]:
        """The Go merge tags of the field, ``{key: value}`` (empty when it has none): the
        struct tags ``patchStrategy`` and ``patchMergeKey`` and the markers ``+listType``,
        ``+listMapKey`` (several: one comma-separated value), ``+mapType``, ``+structType``."""
        t = self._tags
        if t is None:
            return {}
        if type(t) is str:
            t = self._tags = _parse_tags(t)
        return t

    @property
    def patch_strategy(self) -> str:
        """The ``patchStrategy`` struct tag (``"merge"``, ``"replace"``, ``"retainKeys"``,
        ``"merge,retainKeys"``), ``""`` when absent (strategicpatch's default: replace)."""
        return self.tags().get("patchStrategy", "")

    @property
    def patch_strategies(self) -> tuple[str, ...]:
        """``patch_strategy`` split at commas, as strategicpatch's LookupPatchMetadata does."""
        ps = self.tags().get("patchStrategy", "")
        return tuple(ps.split(",")) if ps else ()

    @property
    def patch_merge_key(self) -> str:
        """The ``patchMergeKey`` struct tag, ``""`` when absent."""
        return self.tags().get("patchMergeKey", "")

    @property
    def list_type(self) -> str:
        """The ``+listType`` marker (``"atomic"``, ``"set"``, ``"map"``), ``""`` when absent."""
        return self.tags().get("listType", "")

    @property
    def list_map_keys(self) -> tuple[str, ...]:
        """The ``+listMapKey`` markers in source order (``("containerPort", "protocol")``)."""
        keys = self.tags().get("listMapKey", "")
        return tuple(keys.split(",")) if keys else ()

    @property
    def map_type(self) -> str:
        """The ``+mapType`` marker (``"atomic"``, ``"granular"``), ``""`` when absent."""
        return self.tags().get("mapType", "")

    @property
    def struct_type(self) -> str:
        """The ``+structType`` marker of the field (``"atomic"``, ``"granular"``), else that of
        its struct type (:func:`struct_type_of`), ``""`` when neither says."""
        st = self.tags().get("structType", "")
        if not st and self.kind == K_STRUCT:
            st = struct_type_of(self.cls)
        return st

    def go_field(self) -> str:
        """The Go struct field name (gogo-protobuf's "wrong wireType ... for field X")."""
        if self._go_field is not None:
            return self._go_field
        if not self.json or self.json == "-":
            return self.cls.__name__ if self.cls is not None else self.name
        return self.json[:1].upper() + self.json[1:]

    def __repr__(self) -> str:
        return f"FieldInfo({self.name!r}, json={self.json!r}, number={self.number}, type={self.go_name()})"


def _parse_tags(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in text.split(";"):
        key, eq, value = part.partition("=")
        if not eq or not key or not value:
            raise ValueError(f"malformed field tags {text!r}")
        out[key] = value
    return out


def struct_type_of(cls: Any) -> str:
    """The ``+structType`` marker on a struct's Go type declaration (``"atomic"`` for
    ``v1.ObjectReference``, recorded by tools/gen_api.py as ``__go_tags__``), ``""`` when absent."""
    text = getattr(cls, "__go_tags__", None)
    if not text:
        return ""
    return _parse_tags(text).get("structType", "")


def _name_go_types(t: TypeInfo, spelled: str) -> None:
    """Give ``t`` and its elements the Go names of ``spelled`` (``field(go=...)``'s form)."""
    if spelled[:1] == "*":
        spelled = spelled[1:]  # the pointer is the annotation's "| None"
    t.goname = spelled.partition("=")[0]
    shape = spelled
    if not spelled.startswith(("[]", "map[")):
        shape = spelled.partition("=")[2]  # a named slice/map: its underlying names the elements
    if t.elem is None:
        return
    if shape.startswith("[]"):
        _name_go_types(t.elem, shape[2:])
    elif shape.startswith("map["):
        _name_go_types(t.elem, shape[shape.index("]") + 1:])


class StructMeta(type):
    """Turns annotated fields into ``__slots__``; compiles the field table on first use."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kw: Any) -> Any:
        if "__kc_decls__" in ns:
            # Already done: type.__new__ calls the most derived metaclass's __new__ again with
            # this namespace when the one called is a base of it (StructMeta(name, (Struct,), ns)).
            return super().__new__(mcls, name, bases, ns, **kw)
        ns = dict(ns)  # the caller's namespace is left as it was given
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
        # CustomValue is an ABC: telling a struct class it is not one walks every registered
        # custom value class (a tenth of building kcodec.legacyscheme). Structs are never
        # custom values, so the MRO answers for them.
        if CustomValue in ann.__mro__ or (not isinstance(ann, StructMeta) and issubclass(ann, CustomValue)):
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
    cls.__kc_byname__ = {f.name: f for f in fields}
    # What constructors and assignments accept without the full check (see _exact_type).
    cls.__kc_exact__ = tuple(_exact_type(f) for f in fields)
    cls.__kc_exact_byname__ = {f.name: _exact_type(f) for f in fields}
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
    """Go-like short type name (``v1.Pod``) used in error messages: the class's own
    ``__go_name__`` when its module is not named as the Go package is (``resource.Quantity``)."""
    go = cls.__dict__.get("__go_name__")
    if go is not None:
        return go
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


_PY_NAMES = {K_STR: "str", K_BOOL: "bool", K_INT32: "int", K_INT64: "int", K_FLOAT: "float",
             K_BYTES: "bytes", K_LIST: "list", K_MAP: "dict"}


class _Repr:
    """A map key in a value's place (``where``), shown as ``repr`` only when an error names it."""

    __slots__ = ("key",)

    def __init__(self, key: Any) -> None:
        self.key = key

    def __str__(self) -> str:
        return repr(self.key)


Where = Union[str, tuple]
"""Where a checked value goes: the text itself, or its parts (joined only for an error
message: checks that pass, nearly all of them, never format it)."""


def _where_text(where: Where) -> str:
    if type(where) is str:
        return where
    return "".join(_where_text(p) if type(p) is tuple else str(p) for p in where)


#: Field kinds whose values are accepted as they are when of exactly this type (what
#: _checked returns unchanged for them), so constructors skip the full check.
_EXACT = {K_STR: str, K_BOOL: bool, K_FLOAT: float}


def _exact_type(t: TypeInfo) -> type | None:
    """The one type whose values of ``t`` _checked would hand back unchanged, or None."""
    if t.kind == K_STRUCT:
        return t.cls
    return _EXACT.get(t.kind)


def _type_error(where: Where, t: TypeInfo, value: Any) -> TypeError:
    if t.kind in (K_STRUCT, K_CUSTOM):
        want = t.cls.__name__
    else:
        want = t.go_name().lstrip("*")
        py = _PY_NAMES.get(t.kind, "")
        if py and py != want:
            want = f"{want} ({py})"
    if t.pointer or t.kind in (K_LIST, K_MAP, K_BYTES, K_ANY):
        want += " or None"
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return TypeError(f"{_where_text(where)}: expected {want}, got {type(value).__name__} {shown}")


def _checked(t: TypeInfo, value: Any, where: Where) -> Any:
    """``value`` as field type ``t`` holds it, or TypeError/ValueError naming ``where``.

    Only constructors and attribute assignment call this: decoders and conversions build
    values of the right types and set slots directly, so they never pay for the check.
    """
    k = t.kind
    if value is None:
        if t.pointer or k in (K_LIST, K_MAP, K_BYTES, K_ANY):
            return None
        raise _type_error(where, t, value)
    if k == K_STR:
        if type(value) is str or isinstance(value, str):
            return value
    elif k in (K_INT32, K_INT64):
        if isinstance(value, int) and not isinstance(value, bool):
            lo, hi = (INT32_MIN, INT32_MAX) if k == K_INT32 else (INT64_MIN, INT64_MAX)
            if not lo <= value <= hi:
                raise ValueError(f"{_where_text(where)}: {value} is out of range for {_GO_NAMES[k]}")
            return value
    elif k == K_BOOL:
        if isinstance(value, bool):
            return value
    elif k == K_FLOAT:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif k == K_BYTES:
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
    elif k == K_STRUCT:
        if isinstance(value, t.cls):
            return value
        if isinstance(value, dict):
            raise TypeError(
                f"{_where_text(where)}: expected {t.cls.__name__}, got dict "
                f"(build it with {t.cls.__name__}(...) or {t.cls.__name__}.from_dict(...))"
            )
    elif k == K_CUSTOM:
        if isinstance(value, t.cls):
            return value
        try:
            made = t.cls._coerce(value)
        except ValueError as err:
            raise ValueError(f"{_where_text(where)}: {err}") from None
        if made is not NotImplemented:
            return made
    elif k == K_LIST:
        # The caller's list is kept (not copied) unless an element had to be converted.
        if isinstance(value, (list, tuple)):
            elem = t.elem
            exact = _exact_type(elem)  # type: ignore[arg-type]
            if type(value) is list and exact is not None:
                for v in value:
                    if type(v) is not exact:
                        break
                else:
                    return value
            items = [_checked(elem, v, (where, "[", i, "]")) for i, v in enumerate(value)]  # type: ignore[arg-type]
            if type(value) is list and all(a is b for a, b in zip(items, value)):
                return value
            return items
    elif k == K_MAP:
        if isinstance(value, dict):
            elem = t.elem
            exact = _exact_type(elem)  # type: ignore[arg-type]
            if exact is not None:
                for key, v in value.items():
                    if type(key) is not str or type(v) is not exact:
                        break
                else:
                    return value
            changed = False
            out = {}
            for key, v in value.items():
                if not isinstance(key, str):
                    raise TypeError(
                        f"{_where_text(where)}: map keys must be str, got {type(key).__name__} {key!r}")
                c = out[key] = _checked(elem, v, (where, "[", _Repr(key), "]"))  # type: ignore[arg-type]
                changed = changed or c is not v
            return out if changed else value
    else:
        return value
    raise _type_error(where, t, value)


if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # pragma: no cover - type checkers read typing_extensions' marker; at run time it only marks
    def dataclass_transform(**_kwargs: Any) -> Any:
        return lambda cls: cls


_NOT_A_FIELD = object()


# No field_specifiers: a type checker then takes each `= field(...)` as the attribute's
# default (field() returns Any), which is the truth here: every field has a Go zero value,
# so every constructor argument is optional.
@dataclass_transform(kw_only_default=True)
class _CheckedStructMeta(StructMeta):
    """StructMeta as type checkers see it (PEP 681): a dataclass-like class whose fields
    are optional keyword arguments of its constructor, typed as annotated."""

    @property
    def __signature__(cls) -> inspect.Signature:
        """The constructor's parameters, for ``help()`` and ``inspect.signature``."""
        raw: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            raw.update(klass.__dict__.get("__annotations__", {}))
        params = []
        for f in fields_of(cls):
            default = f.default if f.default is not MISSING else _zero_of(f)
            params.append(inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                            default=default, annotation=raw.get(f.name, Any)))
        return inspect.Signature(params, return_annotation=None)


class StructBase(metaclass=_CheckedStructMeta):
    """A struct without codecs: slots, Go zero values, checked construction, equality, repr.

    Constructors and attribute assignment check each value against the field's Go type and
    raise :class:`TypeError` naming the field; decoders, conversions and copies set slots
    directly and never pay for the check. :class:`kcodec.model.Struct` is the base API types
    use; the kernels only need this."""

    __slots__ = ()
    __kc_fields__: ClassVar[tuple[FieldInfo, ...]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        if not cls.__dict__.get("__kc_compiled__"):
            _compile(cls)
        fields = cls.__kc_fields__
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes at most {len(fields)} positional arguments")
        exact = cls.__kc_exact__
        for i, f in enumerate(fields):
            if i < len(args):
                value = args[i]
                if type(value) is not exact[i]:
                    value = _checked(f, value, (cls.__name__, ".", f.name))
                if f.name in kwargs:
                    raise TypeError(f"{cls.__name__}() got multiple values for argument {f.name!r}")
            elif f.name in kwargs:
                value = kwargs.pop(f.name)
                if type(value) is not exact[i]:
                    value = _checked(f, value, (cls.__name__, ".", f.name))
            elif f.default is not MISSING:
                value = f.default() if callable(f.default) and not isinstance(f.default, type) else f.default
            else:
                value = _zero_of(f)
            object.__setattr__(self, f.name, value)
        if len(args) < len(fields):
            for name in kwargs:
                if not any(f.name == name for f in fields):
                    raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")

    if not TYPE_CHECKING:
        # Hidden from type checkers: a __setattr__ taking any name would make them accept
        # every attribute assignment, misspelled fields included; they check each field's
        # annotation instead.
        def __setattr__(self, name: str, value: Any) -> None:
            cls = type(self)
            if not cls.__dict__.get("__kc_compiled__"):
                _compile(cls)
            exact = cls.__kc_exact_byname__.get(name, _NOT_A_FIELD)
            if exact is not _NOT_A_FIELD and type(value) is not exact:
                value = _checked(cls.__kc_byname__[name], value, (cls.__name__, ".", name))
            object.__setattr__(self, name, value)

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


def _walk_tree(tree: Any, leaf: Any) -> Any:
    """Copy the dicts and lists of an untyped tree, mapping other values through ``leaf``.

    Iterative: untyped values may nest as deep as the JSON/YAML depth limit (10000),
    far beyond Python's recursion limit.
    """
    stack: list[tuple[Any, Any]] = []

    def one(v: Any) -> Any:
        if isinstance(v, dict):
            d: dict[str, Any] = {}
            stack.append((v, d))
            return d
        if isinstance(v, list):
            lst: list[Any] = [None] * len(v)
            stack.append((v, lst))
            return lst
        return leaf(v) if leaf is not None else v

    out = one(tree)
    while stack:
        src, dst = stack.pop()
        if isinstance(dst, dict):
            for k, x in src.items():
                dst[k] = one(x)
        else:
            for i, x in enumerate(src):
                dst[i] = one(x)
    return out


# The names the kernels use (kept short and private-looking in the model's old spelling too).
compile_struct = _compile
zero_of = _zero_of
is_zero_value = _is_zero_value
walk_tree = _walk_tree
