"""Conversion functions between Python types, keyed by (source class, destination class).

This is kcodec's counterpart of Go's ``k8s.io/apimachinery/pkg/conversion`` (Go: k8s.io/apimachinery/pkg/conversion/converter.go). Go keys
its functions by pointer types; here a Python class stands for "pointer to that type", and a
conversion receives two *instances* and fills the second from the first. Go values that are
not structs (``[]string``, ``string``, ``*bool``, ``[]byte``, ``runtime.Object`` held in a
variable...) are represented by small mutable holders, the :class:`Ref` subclasses, so that a
function can write into them exactly as Go writes through a pointer.

There is deliberately no reflective fallback: a pair with no registered function fails with
Go's ``converting (<Src>) to (<Dst>): unknown conversion``. :func:`generated_conversion` is
kcodec's conversion-gen: a conversion function for two struct classes that copies same-named
fields through a :class:`ConversionPlan` compiled once per class pair (the per-object work is
the ``convert_fields`` kernel); :func:`copy_fields` runs the same machinery from inside a
hand-written function.

Nested conversions are bounded: a chain of ``scope.convert`` calls deeper than
:data:`MAX_CONVERSION_DEPTH` (a cyclic object, or hostile nesting) raises
:class:`~kcodec.errors.ConversionError` instead of exhausting the stack.
"""
from __future__ import annotations

import re
from typing import Any, Callable, ClassVar, Mapping

from kcodec import speedups
from kcodec._kinds import MAX_CONVERSION_DEPTH, PLAN_CONVERT, PLAN_OVERRIDE, PLAN_SHARE
from kcodec.errors import ConversionError, DecodeError, type_name
from kcodec.gofmt import quote as _go_quote
from kcodec.fieldtable import StructBase
from kcodec.model import MISSING, Struct, fields_of

__all__ = [
    "ConversionFunc",
    "ConversionFuncs",
    "Converter",
    "Meta",
    "Scope",
    "Ref",
    "StringSliceRef",
    "StringRef",
    "IntRef",
    "Int64Ref",
    "BoolRef",
    "BoolPointerRef",
    "Int64PointerRef",
    "BytesRef",
    "ObjectRef",
    "go_type_name",
    "enforce_ptr",
    "copy_fields",
    "generated_conversion",
    "GeneratedConversion",
    "ConversionPlan",
    "PlanRow",
    "conversion_plan",
    "MAX_CONVERSION_DEPTH",
    "convert_strings",
    "string_slice_to_string",
    "string_slice_to_int",
    "string_slice_to_int64",
    "string_slice_to_bool",
    "string_slice_to_bool_pointer",
    "string_slice_to_int64_pointer",
    "parse_int64",
    "register_string_conversions",
]


# --------------------------------------------------------------------------------------------
# Holders for Go values that are not structs
# --------------------------------------------------------------------------------------------

_UNSET: Any = object()


class Ref:
    """A mutable cell standing for a Go pointer to a non-struct value (``*[]string``, ``*int``...).

    Subclasses name the Go type in ``go_type`` (used in error messages) and its zero value in
    ``zero``. ``Ref()`` holds the zero value; ``Ref(v)`` holds ``v``.
    """

    __slots__ = ("value",)
    go_type: ClassVar[str] = "interface {}"
    zero: ClassVar[Any] = None

    def __init__(self, value: Any = _UNSET) -> None:
        self.value = self.zero if value is _UNSET else value

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.value == self.value  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"


class StringSliceRef(Ref):
    """Go ``*[]string``: ``value`` is a ``list[str]`` or None (nil)."""

    __slots__ = ()
    go_type = "[]string"


class StringRef(Ref):
    """Go ``*string``: ``value`` is a ``str``."""

    __slots__ = ()
    go_type = "string"
    zero = ""


class IntRef(Ref):
    """Go ``*int`` (64-bit): ``value`` is an ``int``."""

    __slots__ = ()
    go_type = "int"
    zero = 0


class Int64Ref(Ref):
    """Go ``*int64``: ``value`` is an ``int``."""

    __slots__ = ()
    go_type = "int64"
    zero = 0


class BoolRef(Ref):
    """Go ``*bool``: ``value`` is a ``bool``."""

    __slots__ = ()
    go_type = "bool"
    zero = False


class BoolPointerRef(Ref):
    """Go ``**bool``: ``value`` is a ``bool`` or None (nil)."""

    __slots__ = ()
    go_type = "*bool"


class Int64PointerRef(Ref):
    """Go ``**int64``: ``value`` is an ``int`` or None (nil)."""

    __slots__ = ()
    go_type = "*int64"


class BytesRef(Ref):
    """Go ``*[]byte``: ``value`` is ``bytes``/``bytearray`` or None (nil)."""

    __slots__ = ()
    go_type = "[]uint8"


class ObjectRef(Ref):
    """Go ``*runtime.Object``: ``value`` is an object or None (a nil interface)."""

    __slots__ = ()
    go_type = "runtime.Object"


# Built-in Python values are Go non-pointer values; they have no identity to write through.
_BUILTIN_GO_NAMES: dict[type, str] = {
    bool: "bool",
    int: "int",
    float: "float64",
    complex: "complex128",
    str: "string",
    bytes: "[]uint8",
    bytearray: "[]uint8",
    list: "[]interface {}",
    tuple: "[]interface {}",
    dict: "map[string]interface {}",
    set: "map[interface {}]struct {}",
    frozenset: "map[interface {}]struct {}",
}


def go_type_name(t: Any) -> str:
    """Go-like name of a class or of an instance's class (``v1.Pod``, ``[]string``, ``int``)."""
    if not isinstance(t, type):
        t = type(t)
    go = getattr(t, "go_type", None)
    if isinstance(go, str) and issubclass(t, Ref):
        return go
    for base in t.__mro__:
        name = _BUILTIN_GO_NAMES.get(base)
        if name is not None:
            return name
    return type_name(t)


def _is_builtin_value(x: Any) -> bool:
    return isinstance(x, tuple(_BUILTIN_GO_NAMES))


def _is_builtin_class(t: type) -> bool:
    return t is type(None) or issubclass(t, tuple(_BUILTIN_GO_NAMES))


def enforce_ptr(obj: Any) -> Any:
    """Go ``EnforcePtr``: return ``obj`` when it can be written through, else raise.

    None and classes (Go's typed nil pointer) fail with ``expected pointer, but got nil``;
    built-in values (``int``, ``str``, ``list``...) with ``expected pointer, but got <T> type``.
    """
    if obj is None or isinstance(obj, type):
        raise ConversionError("expected pointer, but got nil")
    if _is_builtin_value(obj):
        raise ConversionError(f"expected pointer, but got {go_type_name(obj)} type")
    return obj


def _pointer_class(x: Any) -> type | None:
    """The class standing for a Go pointer type, or None when ``x`` names no pointer type."""
    if isinstance(x, type):
        t = x
    elif x is None:
        return None
    else:
        t = type(x)
    # Registering the legacy scheme asks this for ~6000 classes; plain classes (Structs,
    # Refs) that inherit from no built-in value type are pointers, found from their MRO.
    if not _BUILTIN_BASES.intersection(t.__mro__):
        return t
    for base in _BUILTIN_GO_NAMES:
        if issubclass(t, base):
            return None
    if t is type(None):
        return None
    return t


_BUILTIN_BASES = frozenset(_BUILTIN_GO_NAMES) | {type(None)}


# --------------------------------------------------------------------------------------------
# Meta, Scope, function tables
# --------------------------------------------------------------------------------------------


class Meta:
    """Context handed to every conversion function of one ``convert`` call.

    ``context`` is whatever the caller passed (the Scheme passes the target group versioner).
    """

    __slots__ = ("context",)

    def __init__(self, context: Any = None) -> None:
        self.context = context

    def __repr__(self) -> str:
        return f"Meta(context={self.context!r})"


class Scope:
    """What a conversion function receives: recurse with :meth:`convert`, read :meth:`meta`.

    ``depth`` counts the ``convert`` calls between the top-level conversion and this scope.
    """

    __slots__ = ("_converter", "_meta", "_depth")

    def __init__(self, converter: Converter, meta: Meta | None, depth: int = 0) -> None:
        self._converter = converter
        self._meta = meta
        self._depth = depth

    def convert(self, src: Any, dst: Any) -> None:
        """Convert ``src`` into ``dst`` with the same converter and the same meta."""
        self._converter._convert_at(src, dst, self._meta, self._depth + 1)

    def meta(self) -> Meta | None:
        """The meta of the ongoing conversion (None when the caller gave none)."""
        return self._meta


ConversionFunc = Callable[[Any, Any, Scope], None]
"""``fn(src, dst, scope)``: fill ``dst`` from ``src``; raise on failure."""


#: Bumped by every registration (``add_untyped``, ignored pairs). The compiled kernel keeps,
#: per plan row, the plan a nested pair resolved to, and trusts it only while this count is
#: unchanged and the converter is the same (handed to the kernels with the classes below).
_registrations = [0]


class ConversionFuncs:
    """A table of conversion functions keyed by (source class, destination class)."""

    __slots__ = ("untyped",)

    def __init__(self, untyped: Mapping[tuple[type, type], ConversionFunc] | None = None) -> None:
        self.untyped: dict[tuple[type, type], ConversionFunc] = dict(untyped or {})

    def add_untyped(self, a: Any, b: Any, fn: ConversionFunc) -> None:
        """Register ``fn`` for converting ``a`` into ``b`` (classes, or instances of them)."""
        ta, tb = _pointer_class(a), _pointer_class(b)
        if ta is None:
            raise ConversionError(
                f"the type {go_type_name(a)} must be a pointer to register as an untyped conversion"
            )
        if tb is None:
            raise ConversionError(
                f"the type {go_type_name(b)} must be a pointer to register as an untyped conversion"
            )
        self.untyped[(ta, tb)] = fn
        _registrations[0] += 1

    def merge(self, other: ConversionFuncs) -> ConversionFuncs:
        """A new table with this table's entries overridden by ``other``'s."""
        merged = ConversionFuncs(self.untyped)
        merged.untyped.update(other.untyped)
        return merged


class Converter:
    """Runs registered conversion functions (Go: k8s.io/apimachinery/pkg/conversion/converter.go).

    Lookup order for ``convert(src, dst)``: an ignored pair succeeds doing nothing; then a manual
    function; then a generated one; otherwise an error. ``[]byte -> []byte`` (:class:`BytesRef`)
    is registered from the start.
    """

    __slots__ = ("_funcs", "_generated", "_ignored")

    def __init__(self) -> None:
        self._funcs = ConversionFuncs()
        self._generated = ConversionFuncs()
        self._ignored: set[tuple[type, type]] = set()
        self._funcs.add_untyped(BytesRef, BytesRef, _convert_bytes)

    def register_untyped_conversion_func(self, a: Any, b: Any, fn: ConversionFunc) -> None:
        """Register a manual conversion ``fn(a_instance, b_instance, scope)``; replaces any earlier one."""
        self._funcs.add_untyped(a, b, fn)

    def register_generated_untyped_conversion_func(self, a: Any, b: Any, fn: ConversionFunc) -> None:
        """Register a generated conversion; a manual function for the same pair takes precedence."""
        self._generated.add_untyped(a, b, fn)

    def register_ignored_conversion(self, src: Any, dst: Any) -> None:
        """Make converting ``src`` into ``dst`` a successful no-op (beats every function)."""
        tf, tt = _pointer_class(src), _pointer_class(dst)
        if tf is None:
            raise ConversionError(f"expected pointer arg for 'from' param 0, got: {go_type_name(src)}")
        if tt is None:
            raise ConversionError(f"expected pointer arg for 'to' param 1, got: {go_type_name(dst)}")
        self._ignored.add((tf, tt))
        _registrations[0] += 1

    def with_conversions(
        self, extra: ConversionFuncs | Mapping[tuple[type, type], ConversionFunc]
    ) -> Converter:
        """A copy of this converter whose manual functions are overridden by ``extra``.

        The receiver is left unchanged; generated functions and ignored pairs are shared as
        Go shares them (they are read-only after set-up).
        """
        if not isinstance(extra, ConversionFuncs):
            table = ConversionFuncs()
            for (a, b), fn in extra.items():
                table.add_untyped(a, b, fn)
            extra = table
        copied = Converter.__new__(Converter)
        copied._funcs = self._funcs.merge(extra)
        copied._generated = self._generated
        copied._ignored = self._ignored
        return copied

    def default_meta(self, t: Any = None) -> Meta:
        """A fresh, empty :class:`Meta`."""
        return Meta()

    def has_conversion(self, src_type: type, dst_type: type) -> bool:
        """True when a pair is ignored or has a manual or generated function."""
        pair = (src_type, dst_type)
        return pair in self._ignored or pair in self._funcs.untyped or pair in self._generated.untyped

    def convert(self, src: Any, dst: Any, meta: Meta | None = None) -> None:
        """Fill ``dst`` from ``src`` with the function registered for their classes."""
        self._convert_at(src, dst, meta, 0)

    def _convert_at(self, src: Any, dst: Any, meta: Meta | None, depth: int) -> None:
        # The compiled convert_fields kernel mirrors this lookup for nested values
        # (kcodec/_speedups/_convert.pyx, _nested): keep the two in step.
        pair = (type(src), type(dst))
        if pair in self._ignored:
            return
        fn = self._funcs.untyped.get(pair)
        if fn is None:
            fn = self._generated.untyped.get(pair)
        if fn is not None:
            if depth > MAX_CONVERSION_DEPTH:
                raise depth_error(src, dst)
            fn(src, dst, Scope(self, meta, depth))
            return
        enforce_ptr(dst)
        enforce_ptr(src)
        raise ConversionError(
            f"converting ({go_type_name(src)}) to ({go_type_name(dst)}): unknown conversion"
        )


def depth_error(src: Any, dst: Any) -> ConversionError:
    """The error for a conversion nested deeper than :data:`MAX_CONVERSION_DEPTH`."""
    return ConversionError(
        f"converting ({go_type_name(src)}) to ({go_type_name(dst)}): "
        f"exceeded max nesting depth {MAX_CONVERSION_DEPTH}"
    )


def _convert_bytes(src: BytesRef, dst: BytesRef, scope: Scope) -> None:
    dst.value = None if src.value is None else bytes(src.value)


# --------------------------------------------------------------------------------------------
# []string -> scalar conversions (Go: k8s.io/apimachinery/pkg/runtime/conversion.go)
# --------------------------------------------------------------------------------------------

_INT_RE = re.compile(r"[+-]?[0-9]+\Z")
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def parse_int64(s: str, func: str = "ParseInt") -> int:
    """Go ``strconv.ParseInt(s, 10, 64)``: optional sign and ASCII digits only.

    Raises :class:`kcodec.errors.DecodeError` with Go's text
    (``strconv.ParseInt: parsing "x": invalid syntax`` / ``value out of range``).
    """
    if not _INT_RE.match(s):
        raise DecodeError(f"strconv.{func}: parsing {_go_quote(s)}: invalid syntax")
    n = int(s)
    if n < _INT64_MIN or n > _INT64_MAX:
        raise DecodeError(f"strconv.{func}: parsing {_go_quote(s)}: value out of range")
    return n


def _go_bool(first: str) -> bool:
    return not (first == "0" or first.lower() == "false")


def string_slice_to_string(values: list[str] | None) -> str:
    """First element, or ``""`` for an empty list."""
    return values[0] if values else ""


def string_slice_to_int(values: list[str] | None) -> int:
    """First element parsed as a base-10 ``int`` (Go ``strconv.Atoi``), or 0 for an empty list."""
    return parse_int64(values[0], "Atoi") if values else 0


def string_slice_to_int64(values: list[str] | None) -> int:
    """First element parsed as a base-10 ``int64``, or 0 for an empty list."""
    return parse_int64(values[0]) if values else 0


def string_slice_to_bool(values: list[str] | None) -> bool:
    """False for an empty list, ``"0"`` or any case of ``"false"``; True for anything else (even ``""``)."""
    return _go_bool(values[0]) if values else False


def string_slice_to_bool_pointer(values: list[str] | None) -> bool:
    """As :func:`string_slice_to_bool`; Go returns a pointer, which is never nil (empty -> false)."""
    return string_slice_to_bool(values)


def string_slice_to_int64_pointer(values: list[str] | None) -> int | None:
    """First element as ``int64``, or None (nil) for an empty list."""
    return parse_int64(values[0]) if values else None


_STRING_TARGETS: dict[str, Callable[[list[str] | None], Any]] = {
    "string": string_slice_to_string,
    "int": string_slice_to_int,
    "int64": string_slice_to_int64,
    "bool": string_slice_to_bool,
    "*bool": string_slice_to_bool_pointer,
    "*int64": string_slice_to_int64_pointer,
}


def convert_strings(values: list[str] | None, target: str) -> Any:
    """Convert query values to one Go scalar kind: ``string``, ``int``, ``int64``, ``bool``,
    ``*bool`` or ``*int64`` (Go: k8s.io/apimachinery/pkg/runtime/conversion.go)."""
    try:
        fn = _STRING_TARGETS[target]
    except KeyError:
        raise ConversionError(
            f"converting ([]string) to ({target}): unknown conversion"
        ) from None
    return fn(values)


def _ref_converter(fn: Callable[[list[str] | None], Any]) -> ConversionFunc:
    def convert(src: Ref, dst: Ref, scope: Scope) -> None:
        dst.value = fn(src.value)

    convert.__name__ = f"convert_{fn.__name__}"
    return convert


def register_string_conversions(register: Callable[[Any, Any, ConversionFunc], None]) -> None:
    """Register ``[]string`` -> ``string``/``int``/``bool``/``int64`` through ``register(a, b, fn)``
    (a Scheme's ``add_conversion_func`` or a Converter's ``register_untyped_conversion_func``)."""
    register(StringSliceRef, StringRef, _ref_converter(string_slice_to_string))
    register(StringSliceRef, IntRef, _ref_converter(string_slice_to_int))
    register(StringSliceRef, BoolRef, _ref_converter(string_slice_to_bool))
    register(StringSliceRef, Int64Ref, _ref_converter(string_slice_to_int64))


# --------------------------------------------------------------------------------------------
# Field copying for generated conversions: plans compiled once per class pair
# --------------------------------------------------------------------------------------------

# Plan row actions (PLAN_SHARE, PLAN_CONVERT, PLAN_OVERRIDE) are defined in kcodec._kinds,
# beside the other codes the kernels switch on.


def _fields(cls: type) -> tuple[Any, ...]:
    return fields_of(cls)


_FIELD_NAMES: dict[type, dict[str, Any]] = {}


def _field_map(cls: type) -> dict[str, Any]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = {fi.name: fi for fi in _fields(cls)}
        _FIELD_NAMES[cls] = names
    return names


def _dst_class(fi: Any) -> type | None:
    """The Struct/CustomValue class a destination field (or its elements) holds, if any."""
    elem = getattr(fi, "elem", None)
    if elem is not None:
        cls = getattr(elem, "cls", None)
        if cls is not None:
            return cls
    return getattr(fi, "cls", None)


def _always_instances(sf: Any, df: Any, cls: type) -> bool:
    """Whether the source field's declared type guarantees values that are already ``cls``
    (or lists/maps of it), so the value can be shared without a per-value check."""
    if sf.kind != df.kind:
        return False
    if df.elem is not None:
        se, de = sf.elem, df.elem
        if se is None or se.kind != de.kind:
            return False
        sc = se.cls
    else:
        sc = sf.cls
    return isinstance(sc, type) and issubclass(sc, cls)


def _fresh_is_new_zero(cls: type) -> bool:
    """Whether ``cls()`` equals ``cls._new_zero()`` (no Python defaults, stock constructors),
    so the kernels may allocate fresh destination values the fast way."""
    if not (isinstance(cls, type) and issubclass(cls, Struct)):
        return False
    if cls.__init__ is not Struct.__init__:
        return False
    if getattr(cls._new_zero, "__func__", None) is not StructBase.__dict__["_new_zero"].__func__:
        return False
    return all(f.default is MISSING for f in _fields(cls))


class PlanRow:
    """One destination field of a :class:`ConversionPlan`.

    ``action`` is ``PLAN_SHARE``, ``PLAN_CONVERT`` or ``PLAN_OVERRIDE``; ``name`` the Python
    field name on both sides; ``cls`` the destination class values are converted to
    (``PLAN_CONVERT``); ``new_zero`` whether a fresh destination value is ``cls._new_zero()``
    (equal to ``cls()`` and cheaper) rather than ``cls()``.
    """

    __slots__ = ("action", "name", "cls", "new_zero")

    def __init__(self, action: int, name: str, cls: type | None = None, new_zero: bool = False) -> None:
        self.action = action
        self.name = name
        self.cls = cls
        self.new_zero = new_zero

    def __repr__(self) -> str:
        if self.action == PLAN_SHARE:
            return f"PlanRow(share {self.name!r})"
        if self.action == PLAN_CONVERT:
            return f"PlanRow(convert {self.name!r} -> {go_type_name(self.cls)})"
        return f"PlanRow(override {self.name!r})"


class ConversionPlan:
    """What a generated conversion does per object, worked out once per class pair.

    ``rows`` follow the destination class's declaration order and cover each destination
    field that the source class also declares (by Python name) or that has an override;
    other fields are left alone, as Go's generated code drops fields one side lacks.
    ``direct_src``/``direct_dst`` tell the compiled kernel that plain slot access is what
    ``getattr``/``setattr`` would do (no custom ``__getattribute__``/``__setattr__``).
    """

    __slots__ = ("src_cls", "dst_cls", "rows", "override_names", "direct_src", "direct_dst", "_kernel")

    def __init__(self, src_cls: type, dst_cls: type, override_names: Any = ()) -> None:
        names = frozenset(override_names)
        src_fields = _field_map(src_cls)
        rows: list[PlanRow] = []
        for name, fi in _field_map(dst_cls).items():
            if name in names:
                rows.append(PlanRow(PLAN_OVERRIDE, name))
                continue
            sf = src_fields.get(name)
            if sf is None:
                continue
            cls = _dst_class(fi)
            if cls is None or _always_instances(sf, fi, cls):
                rows.append(PlanRow(PLAN_SHARE, name))
            else:
                rows.append(PlanRow(PLAN_CONVERT, name, cls, _fresh_is_new_zero(cls)))
        self.src_cls = src_cls
        self.dst_cls = dst_cls
        self.rows: tuple[PlanRow, ...] = tuple(rows)
        self.override_names = names
        self.direct_src = src_cls.__getattribute__ is object.__getattribute__
        from kcodec.model import Struct

        # Struct's own __setattr__ only checks value types, which a conversion already
        # produces right: setting the slot directly is what it would do.
        self.direct_dst = dst_cls.__setattr__ in (object.__setattr__, Struct.__setattr__)
        self._kernel: Any = None  # the compiled kernel's own form of this plan, built on first use

    def __repr__(self) -> str:
        return (f"ConversionPlan({go_type_name(self.src_cls)} -> {go_type_name(self.dst_cls)}, "
                f"{len(self.rows)} rows)")


_PLANS: dict[tuple[type, type, tuple[str, ...]], ConversionPlan] = {}


def conversion_plan(src_cls: type, dst_cls: type, override_names: Any = ()) -> ConversionPlan:
    """The (cached) :class:`ConversionPlan` copying ``src_cls`` into ``dst_cls``.

    ``override_names`` are the destination fields handled by override functions.
    """
    key = (src_cls, dst_cls, tuple(override_names))
    plan = _PLANS.get(key)
    if plan is None:
        plan = ConversionPlan(src_cls, dst_cls, key[2])
        _PLANS[key] = plan
    return plan


def copy_fields(
    src: Any,
    dst: Any,
    scope: Scope,
    overrides: Mapping[str, Callable[[Any, Any, Scope], None] | None] | None = None,
) -> None:
    """Copy every field of ``dst``'s class that ``src``'s class also declares, by Python name.

    Values of the same class are shared (as Go's generated code shares identical memory
    layouts; ``Scheme.convert_to_version`` copies its input first), including lists and maps
    whose declared element class is the same. Struct values whose classes differ are
    converted through ``scope.convert`` into a fresh destination instance, element by element
    for lists and maps. ``overrides`` maps a field name to ``fn(src, dst, scope)`` that
    handles that field itself, or to None to leave the destination field untouched.
    Fields only one side declares are left alone (Go's generated code drops them).
    The work per class pair is compiled once (:func:`conversion_plan`).
    """
    key = (type(src), type(dst), tuple(overrides) if overrides else ())
    plan = _PLANS.get(key)
    if plan is None:
        plan = conversion_plan(key[0], key[1], key[2])
    speedups.convert_fields(plan, src, dst, scope, overrides)


class GeneratedConversion:
    """A generated (conversion-gen style) conversion function for one struct class pair.

    Call it as any conversion function: ``fn(src, dst, scope)``. Same-named fields are copied
    as :func:`copy_fields` does; ``overrides`` name the fields that differ, each mapped to a
    hand-written ``fn(src, dst, scope)`` or to None (leave the destination field alone). The
    plan is compiled on the first call; when the compiled kernels are in use, nested struct
    pairs whose registered function is also a ``GeneratedConversion`` are converted without
    going back through Python.
    """

    __slots__ = ("src_cls", "dst_cls", "overrides", "_plan")

    def __init__(
        self,
        src_cls: type,
        dst_cls: type,
        overrides: Mapping[str, ConversionFunc | None] | None = None,
    ) -> None:
        for what, cls in (("source", src_cls), ("destination", dst_cls)):
            if not (isinstance(cls, type) and hasattr(cls, "__kc_decls__")):
                raise ConversionError(f"generated_conversion: {what} must be a Struct class, got {cls!r}")
        table = dict(overrides or {})
        for name, fn in table.items():
            if not isinstance(name, str):
                raise ConversionError(f"generated_conversion: override keys must be field names, got {name!r}")
            if fn is not None and not callable(fn):
                raise ConversionError(
                    f"generated_conversion: override for {name!r} must be callable or None, got {fn!r}"
                )
        self.src_cls = src_cls
        self.dst_cls = dst_cls
        self.overrides: dict[str, ConversionFunc | None] = table
        self._plan: ConversionPlan | None = None

    @property
    def plan(self) -> ConversionPlan:
        """The plan for ``src_cls -> dst_cls`` (compiled and checked on first use)."""
        plan = self._plan
        if plan is None:
            plan = self._build_plan()
        return plan

    def _build_plan(self) -> ConversionPlan:
        known = _field_map(self.dst_cls)
        for name in self.overrides:
            if name not in known:
                raise ConversionError(
                    f"generated_conversion({go_type_name(self.src_cls)} -> {go_type_name(self.dst_cls)}): "
                    f"override for unknown field {name!r}"
                )
        plan = conversion_plan(self.src_cls, self.dst_cls, tuple(self.overrides))
        self._plan = plan
        return plan

    def __call__(self, src: Any, dst: Any, scope: Scope) -> None:
        plan = self._plan
        if plan is None:
            plan = self._build_plan()
        if type(src) is not plan.src_cls or type(dst) is not plan.dst_cls:
            plan = conversion_plan(type(src), type(dst), tuple(self.overrides))
        speedups.convert_fields(plan, src, dst, scope, self.overrides)

    def __repr__(self) -> str:
        parts = []
        for name, fn in self.overrides.items():
            label = "None" if fn is None else getattr(fn, "__qualname__", None) or repr(fn)
            parts.append(f"{name}={label}")
        extra = f", overrides: {', '.join(parts)}" if parts else ""
        return f"<generated conversion {go_type_name(self.src_cls)} -> {go_type_name(self.dst_cls)}{extra}>"


def generated_conversion(
    src_cls: type,
    dst_cls: type,
    overrides: Mapping[str, ConversionFunc | None] | None = None,
) -> GeneratedConversion:
    """A plan-backed conversion function ``src_cls -> dst_cls`` (Go's ``autoConvert_A_To_B``).

    Register it with ``Scheme.add_generated_conversion_func(src_cls, dst_cls, fn)`` (or
    ``add_conversion_func``), or call it from a hand-written function, as Go's manual
    ``Convert_A_To_B`` calls ``autoConvert_A_To_B``. ``overrides`` maps destination field
    names to ``fn(src, dst, scope)`` for the fields whose shapes differ, or to None to skip
    a field; an unknown name raises :class:`~kcodec.errors.ConversionError` on first use.
    """
    return GeneratedConversion(src_cls, dst_cls, overrides)


# The conversion kernels sit below this module: hand them the classes whose exact types
# select their fast path, once, instead of letting them import this module.
speedups.bind_conversion(
    scope=Scope,
    converter=Converter,
    generated=GeneratedConversion,
    depth_error=depth_error,
    go_type_name=go_type_name,
    registrations=_registrations,
)
