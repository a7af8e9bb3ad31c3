"""Pure-Python conversion kernels: per-object work of generated conversions, and deep copy.

``convert_fields(plan, src, dst, scope, overrides)`` runs one
:class:`kcodec.conversion.ConversionPlan` (built once per class pair by
``kcodec.conversion``) on one object. ``deep_copy(obj)`` copies a Struct as
``Struct.deep_copy`` promises. Their compiled twins are in ``kcodec/_speedups/_convert.pyx``.
"""
from __future__ import annotations

import gc
from types import SimpleNamespace
from typing import Any

from kcodec import fieldtable as _m
from kcodec._kinds import (
    K_ANY, K_BYTES, K_CUSTOM, K_LIST, K_MAP, K_STRUCT, MAX_CONVERSION_DEPTH, MAX_COPY_DEPTH, MAX_VALUE_NESTING,
    PLAN_CONVERT, PLAN_OVERRIDE, PLAN_SHARE,
)
from kcodec.errors import ConversionError, KCodecError, type_name

__all__ = ["convert_fields", "deep_copy", "new_zero"]

_SHARE = PLAN_SHARE
_CONVERT = PLAN_CONVERT
_OVERRIDE = PLAN_OVERRIDE

#: What kcodec.conversion hands over once (see :func:`bind_conversion`): the exact Scope,
#: Converter and GeneratedConversion classes whose instances take the direct path, and its
#: error and naming helpers. Empty until kcodec.conversion is imported; no Scope exists then.
_conv = SimpleNamespace(
    Scope=None, Converter=None, GeneratedConversion=None, depth_error=None, go_type_name=None,
    registrations=None,
)


def bind_conversion(*, scope: Any, converter: Any, generated: Any, depth_error: Any,
                    go_type_name: Any, registrations: Any = None) -> None:
    """Receive the conversion layer's classes and helpers (called by kcodec.speedups).
    ``registrations`` is the conversion layer's registration count (a one-item list); the
    pure kernel looks every nested pair up and does not need it."""
    _conv.Scope = scope
    _conv.Converter = converter
    _conv.GeneratedConversion = generated
    _conv.depth_error = depth_error
    _conv.go_type_name = go_type_name
    _conv.registrations = registrations



def convert_fields(plan: Any, src: Any, dst: Any, scope: Any, overrides: Any) -> None:
    """Fill ``dst`` from ``src`` following ``plan``'s rows (see ``kcodec.conversion.copy_fields``).

    As the compiled twin, the outermost call pauses the cycle collector: a conversion makes
    as many objects as a decode, and left running the collector walks the growing tree
    (and everything older) again and again while it is built."""
    global _gc_depth
    if _gc_depth:
        _gc_depth += 1
        try:
            _convert_fields(plan, src, dst, scope, overrides)
        finally:
            _gc_depth -= 1
        return
    was_enabled = gc.isenabled()
    gc.disable()
    _gc_depth = 1
    try:
        _convert_fields(plan, src, dst, scope, overrides)
    finally:
        _gc_depth = 0
        if was_enabled:
            gc.enable()


_gc_depth = 0


def _convert_fields(plan: Any, src: Any, dst: Any, scope: Any, overrides: Any) -> None:
    # As the compiled twin: slots are set directly when the class's __setattr__ would only
    # set them (or check types a conversion already gets right).
    set_ = object.__setattr__ if plan.direct_dst and type(dst) is plan.dst_cls else setattr
    for row in plan.rows:
        action = row.action
        name = row.name
        if action == _SHARE:
            set_(dst, name, getattr(src, name))
        elif action == _CONVERT:
            set_(dst, name, _convert_value(getattr(src, name), row, scope, 0))
        else:
            fn = overrides[name]
            if fn is not None:
                fn(src, dst, scope)


def _convert_value(value: Any, row: Any, scope: Any, nest: int) -> Any:
    cls = row.cls
    if value is None or isinstance(value, cls):
        return value
    if isinstance(value, list):
        if nest >= MAX_VALUE_NESTING:
            raise _nesting_error(row)
        return [_convert_value(v, row, scope, nest + 1) for v in value]
    if isinstance(value, dict):
        if nest >= MAX_VALUE_NESTING:
            raise _nesting_error(row)
        return {k: _convert_value(v, row, scope, nest + 1) for k, v in value.items()}
    if row.new_zero:
        out = _fast_nested(value, cls, scope)
        if out is not None:
            return out
    out = cls._new_zero() if row.new_zero else cls()
    _nested(value, out, scope)
    return out


def _fast_nested(value: Any, cls: Any, scope: Any) -> Any:
    """A fresh ``cls`` converted from ``value`` when a plan-backed function handles the pair
    and can build it (see the compiled twin's ``_fast_nested``); None otherwise. The new
    object gets zero values only in the fields the plan's rows do not write, as the
    compiled kernel builds it: the rows overwrite the others, so ``_new_zero``'s nested
    zero structs would be built only to be dropped."""
    if type(scope) is not _conv.Scope or type(scope._converter) is not _conv.Converter:
        return None
    conv = scope._converter
    pair = (type(value), cls)
    if pair in conv._ignored:
        return None
    fn = conv._funcs.untyped.get(pair)
    if fn is None:
        fn = conv._generated.untyped.get(pair)
    if type(fn) is not _conv.GeneratedConversion:
        return None
    plan = fn._plan
    if plan is None:
        plan = fn._build_plan()
    if plan.src_cls is not pair[0] or plan.dst_cls is not cls or not plan.direct_dst:
        return None
    depth = scope._depth + 1
    if depth > MAX_CONVERSION_DEPTH:
        raise _conv.depth_error(value, cls)
    out = _fresh_for(plan)
    _convert_fields(plan, value, out, _conv.Scope(conv, scope._meta, depth), fn.overrides)
    return out


# plan -> ((field name, zero maker or None) in table order): None marks a field the plan's
# share/convert rows always write (a placeholder until they do, as in the compiled twin).
_FRESH: dict[Any, tuple[tuple[str, Any], ...]] = {}


def _fresh_for(plan: Any) -> Any:
    rows = _FRESH.get(plan)
    if rows is None:
        written = {r.name for r in plan.rows if r.action != _OVERRIDE}
        rows = tuple((f.name, None if f.name in written else f) for f in _m.fields_of(plan.dst_cls))
        _FRESH[plan] = rows
    set_ = object.__setattr__
    out = object.__new__(plan.dst_cls)
    zero = _m._zero_of
    for name, f in rows:
        set_(out, name, None if f is None else zero(f))
    return out


def _nested(value: Any, out: Any, scope: Any) -> None:
    """``scope.convert(value, out)``, running plan-backed functions here directly.

    The same lookup, ignored pairs and depth rule as ``Converter._convert_at``, minus the
    calls in between; any other scope, converter or function goes the ordinary way.
    """
    if type(scope) is not _conv.Scope or type(scope._converter) is not _conv.Converter:
        scope.convert(value, out)
        return
    conv = scope._converter
    pair = (type(value), type(out))
    if pair in conv._ignored:
        return
    fn = conv._funcs.untyped.get(pair)
    if fn is None:
        fn = conv._generated.untyped.get(pair)
    if fn is None:
        scope.convert(value, out)  # raises Go's error
        return
    depth = scope._depth + 1
    if depth > MAX_CONVERSION_DEPTH:
        raise _conv.depth_error(value, out)
    child = _conv.Scope(conv, scope._meta, depth)
    if type(fn) is _conv.GeneratedConversion:
        plan = fn._plan
        if plan is None:
            plan = fn._build_plan()
        if plan.src_cls is pair[0] and plan.dst_cls is pair[1]:
            convert_fields(plan, value, out, child, fn.overrides)
            return
    fn(value, out, child)


def _nesting_error(row: Any) -> ConversionError:
    return ConversionError(
        f"converting field {row.name!r} to ({_conv.go_type_name(row.cls)}): "
        f"lists or maps nested deeper than {MAX_VALUE_NESTING} levels"
    )


def new_zero(cls: Any) -> Any:
    """Go's zero value of Struct class ``cls`` (its ``_new_zero``); the compiled twin builds
    it from the class's compiled table."""
    return cls._new_zero()


# --------------------------------------------------------------------------- deep copy


def deep_copy(obj: Any) -> Any:
    """A copy of Struct ``obj`` sharing no mutable state with it.

    Lists and maps are new; nested structs are copied field by field; custom values are
    asked for ``deep_copy()``; untyped (``Any``) trees have their dicts and lists copied;
    scalars, bytes and None are shared. Iterative, so depth is bounded only by
    :data:`MAX_COPY_DEPTH` (a cycle raises :class:`~kcodec.errors.KCodecError`).
    """
    stack: list[tuple[Any, Any, Any, int]] = []
    root = _push(obj, 0, stack)
    setattr_ = object.__setattr__
    # The collector is paused while the copy is built, as the compiled twin pauses it (and
    # as convert_fields does, for the same reason).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        while stack:
            src, dst, rows, depth = stack.pop()
            for name, f in rows:
                v = getattr(src, name)
                if f is not None and v is not None:
                    v = _copy(f, v, depth, stack)
                setattr_(dst, name, v)
    finally:
        if was_enabled:
            gc.enable()
    return root


# class -> (its field table, the table as (name, FieldInfo if the value needs copying else
# None)); rebuilt when the class's table is replaced, as the compiled tables are.
_COPY_ROWS: dict[type, tuple[Any, tuple[tuple[str, Any], ...]]] = {}


def _copy_rows(cls: type) -> tuple[tuple[str, Any], ...]:
    fields = _m.fields_of(cls)
    entry = _COPY_ROWS.get(cls)
    if entry is None or entry[0] is not fields:
        entry = (fields, tuple((f.name, f if f.kind >= K_STRUCT else None) for f in fields))
        _COPY_ROWS[cls] = entry
    return entry[1]


def _push(v: Any, depth: int, stack: list[tuple[Any, Any, Any, int]]) -> Any:
    """A blank instance of ``type(v)``, queued to be filled from ``v``."""
    if depth > MAX_COPY_DEPTH:
        raise _depth_error(v)
    cls = type(v)
    rows = _copy_rows(cls)
    new = object.__new__(cls)
    stack.append((v, new, rows, depth))
    return new


def _depth_error(v: Any) -> KCodecError:
    # Deep copy runs without the conversion layer loaded: name the value here (a struct, or
    # an untyped map or slice, spelled as Go's reflect would).
    if isinstance(v, dict):
        name = "map[string]interface {}"
    elif isinstance(v, list):
        name = "[]interface {}"
    else:
        name = type_name(v)
    return KCodecError(f"cannot deep copy {name}: nesting exceeds {MAX_COPY_DEPTH} levels")


def _copy(t: Any, v: Any, depth: int, stack: list[tuple[Any, Any, Any, int]]) -> Any:
    """Copy non-None ``v`` of type ``t`` (a kind >= K_STRUCT); nested structs are queued."""
    k = t.kind
    if k == K_STRUCT:
        return _push(v, depth + 1, stack)
    if k == K_CUSTOM:
        return v.deep_copy()
    if k == K_LIST:
        e = t.elem
        if e.kind <= K_BYTES:
            return list(v)
        return [None if x is None else _copy(e, x, depth, stack) for x in v]
    if k == K_MAP:
        e = t.elem
        if e.kind <= K_BYTES:
            return dict(v)
        return {key: None if x is None else _copy(e, x, depth, stack) for key, x in v.items()}
    if k == K_ANY:
        return _copy_any(v, depth)
    return v


def _copy_any(tree: Any, depth: int) -> Any:
    """Copy the dicts and lists of an untyped value; other values are shared."""
    work: list[tuple[Any, Any, int]] = []

    def one(v: Any, d: int) -> Any:
        if isinstance(v, dict):
            if d > MAX_COPY_DEPTH:
                raise _depth_error(v)
            out: dict[Any, Any] = {}
            work.append((v, out, d))
            return out
        if isinstance(v, list):
            if d > MAX_COPY_DEPTH:
                raise _depth_error(v)
            lst: list[Any] = [None] * len(v)
            work.append((v, lst, d))
            return lst
        return v

    root = one(tree, depth + 1)
    while work:
        src, dst, d = work.pop()
        if isinstance(dst, dict):
            for key, x in src.items():
                dst[key] = one(x, d + 1)
        else:
            for i, x in enumerate(src):
                dst[i] = one(x, d + 1)
    return root
