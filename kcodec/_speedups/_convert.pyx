# cython: language_level=3
"""Compiled twins of ``kcodec._native.convert``: ``convert_fields`` and ``deep_copy``.

``convert_fields`` turns each :class:`kcodec.conversion.ConversionPlan` into a C-side form
once (cached on the plan as ``plan._kernel``): per row the action, the slot offsets of the
field in the source and destination classes, the destination class. Fields are read and
written through those offsets when ``getattr``/``setattr`` would reach the same slot. A
nested value whose pair's registered function is itself a ``GeneratedConversion`` is
converted by running that function's plan here directly, with the same ignored-pair, lookup
and depth rules as ``Converter._convert_at``; anything else goes through ``scope.convert``
(hand-written functions, Go's error texts). The ``Scope`` a nested override receives is only
built when an override or a hand-written function needs one.

``deep_copy`` builds nested structs of bare_alloc tables by recursion (deeper than
RECURSE_DEPTH, and other tables, through an explicit stack of blank instances filled
field by field): the slot words are taken whole with a reference each, then the values
that are not shared are replaced by copies, in protobuf field order (see ``_CopyPlan``).
Custom values whose class keeps ``CustomValue.deep_copy`` (which returns self) are shared
without the call; the pure twin calls it and gets the same object.

Both kernels pause the cycle collector while they run (``gc_pause``/``gc_resume``), and
``convert_fields`` leaves the structs, lists and maps it creates untracked by it, as the
decoders do and for the same reason ("Untracked decoded objects" in ``_tables.pyx``): a
converted tree is as large as a decoded one, has no cycles of its own, and tracked it costs
the collector as much as the conversion (about a fifth of a PodList's). The destination a
caller passes in stays tracked. ``deep_copy`` does the same below the root it returns: a
copy is a fresh tree without cycles (a cyclic source fails on the depth bound first), and
left tracked it is traversed by every collection the next allocations trigger (kcodec.convert
of 1000 Deployments spent a third of its time there).
"""
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_DECREF
from cpython.dict cimport PyDict_GetItem, PyDict_SetItem, PyDict_Copy, PyDict_Next
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.string cimport memcpy, memset
from cpython.list cimport PyList_Append, PyList_SET_ITEM

from kcodec._speedups._tables cimport (
    Table, TypeRow, FieldRow, table_of, get_field, set_field, slot_get, slot_set, gc_pause, gc_resume,
    untrack, kc_gc_new_untracked, kc_gc_new_untracked_raw, kc_list_new_untracked, PyTypeObject_,
    K_BYTES, K_STRUCT, K_CUSTOM, K_LIST, K_MAP, K_ANY,
)

from kcodec import _kinds
from kcodec import fieldtable as _model
from kcodec.errors import ConversionError, KCodecError

__all__ = ["convert_fields", "deep_copy", "new_zero"]

cdef extern from "Python.h":
    ctypedef PyObject* (*allocfunc)(PyTypeObject*, Py_ssize_t)
    void Py_INCREF(object o)
    void Py_XDECREF(PyObject* o)
    void Py_SET_SIZE(object o, Py_ssize_t n)
    PyObject* _list_item "PyList_GET_ITEM"(object o, Py_ssize_t i)
    Py_ssize_t _list_size "PyList_GET_SIZE"(object o)
    PyTypeObject* Py_TYPE(PyObject* o)

cdef extern from *:
    """
    #define KCV_TP_ALLOC(t) (((PyTypeObject*)(t))->tp_alloc)
    #define KCV_GENERIC_GETATTR(t) (((PyTypeObject*)(t))->tp_getattro == PyObject_GenericGetAttr)
    #if defined(__GNUC__) || defined(__clang__)
    #define KCV_PREFETCH_W(p) __builtin_prefetch((const void*)(p), 1)
    #else
    #define KCV_PREFETCH_W(p) ((void)0)
    #endif
    """
    allocfunc KCV_TP_ALLOC(object t)
    bint KCV_GENERIC_GETATTR(object t)
    void KCV_PREFETCH_W(void* p) noexcept

cdef enum:
    A_SHARE = 0
    A_CONVERT = 1
    A_OVERRIDE = 2

if (A_SHARE, A_CONVERT, A_OVERRIDE) != (_kinds.PLAN_SHARE, _kinds.PLAN_CONVERT, _kinds.PLAN_OVERRIDE):
    raise ImportError("kcodec._speedups._convert: plan actions differ from kcodec._kinds; rebuild")

cdef Py_ssize_t MAX_COPY_DEPTH = _kinds.MAX_COPY_DEPTH
cdef Py_ssize_t MAX_VALUE_NESTING = _kinds.MAX_VALUE_NESTING
cdef Py_ssize_t MAX_CONVERSION_DEPTH = _kinds.MAX_CONVERSION_DEPTH

# Handed over once by kcodec.conversion through kcodec.speedups.bind_conversion: this
# kernel sits below the conversion layer and never imports it. None until then (no Scope
# can exist before kcodec.conversion is imported).
cdef object _Scope = None
cdef object _Converter = None
cdef object _GeneratedConversion = None
cdef object _depth_error = None
cdef object _go_type_name = None
cdef list _registrations = [0]

# The pure twin (kcodec._native.convert), imported on first need: it words the errors of
# nesting and depth limits, which no well-formed object reaches, so compiled mode never
# loads it for ordinary conversions and copies.
cdef object _pure_mod = None


cdef object _twin():
    global _pure_mod
    if _pure_mod is None:
        from kcodec._native import convert
        _pure_mod = convert
    return _pure_mod


def bind_conversion(*, scope, converter, generated, depth_error, go_type_name, registrations=None):
    """Receive the conversion layer's classes and helpers (called by kcodec.speedups)."""
    global _Scope, _Converter, _GeneratedConversion, _depth_error, _go_type_name, _registrations
    if registrations is not None:
        _registrations = registrations
    _Scope = scope
    _Converter = converter
    _GeneratedConversion = generated
    _depth_error = depth_error
    _go_type_name = go_type_name
cdef object _object_new = object.__new__
cdef object _base_deep_copy = _model.CustomValue.deep_copy
# class -> True when its deep_copy is CustomValue's (returns self): skip the call.
cdef dict _identity_copy = {}


# ------------------------------------------------------------------------- convert_fields


cdef class _Row:
    cdef int action
    cdef readonly str name     # read by the shared error helper of the pure twin
    cdef Py_ssize_t src_off
    cdef Py_ssize_t dst_off
    cdef readonly object cls
    cdef bint new_zero
    cdef Table ztable
    # What _fast_nested resolved for this row last time: with converter ``seen_conv`` at
    # registration count ``seen_regs``, a source of class ``seen_src`` runs plan ``seen_cp``
    # (None: take the general path). Nested values of one row nearly always have one class.
    cdef object seen_conv
    cdef Py_ssize_t seen_regs
    cdef object seen_src
    cdef object seen_cp
    # A class whose instances are known not to be ``cls`` instances (see _plain_isinstance):
    # isinstance() is skipped for it, as it is the costly part of converting a value of
    # another class (type.__instancecheck__, then a getattr of __class__ on the value).
    cdef object not_cls


cdef class _CPlan:
    cdef object src_cls
    cdef object dst_cls
    cdef bint direct_src
    cdef bint direct_dst
    cdef tuple rows
    # Destination fields every run writes (share/convert rows), by the dst table's field
    # order; a fresh destination needs zero values only for the others (see _fresh_for).
    cdef bytes covered
    cdef Table dst_table
    cdef object overrides      # the GeneratedConversion's overrides (set by _fast_nested)


# GeneratedConversion -> its _CPlan, for the nested fast path (functions are registered once
# and their plans never change, so the entry stays right for the function's lifetime).
cdef dict _fn_plans = {}


cdef dict _offsets(object cls):
    cdef FieldRow f
    out = {}
    for f in table_of(cls).fields:
        out[f.name] = f.offset
    return out


cdef _CPlan _cplan(object plan):
    cdef _CPlan cp
    cdef _Row r
    k = plan._kernel
    if type(k) is _CPlan:
        return <_CPlan>k
    cp = _CPlan.__new__(_CPlan)
    cp.src_cls = plan.src_cls
    cp.dst_cls = plan.dst_cls
    cp.direct_src = bool(plan.direct_src)
    cp.direct_dst = bool(plan.direct_dst)
    src_off = _offsets(cp.src_cls) if cp.direct_src else {}
    dst_off = _offsets(cp.dst_cls) if cp.direct_dst else {}
    rows = []
    for row in plan.rows:
        r = _Row.__new__(_Row)
        r.action = row.action
        r.name = row.name
        r.src_off = src_off.get(r.name, -1)
        r.dst_off = dst_off.get(r.name, -1)
        r.cls = row.cls
        r.new_zero = bool(row.new_zero)
        rows.append(r)
    cp.rows = tuple(rows)
    cp.covered = None
    if cp.direct_dst:
        t = table_of(cp.dst_cls)
        if t.direct:
            written = {row.name for row in plan.rows if row.action != A_OVERRIDE}
            cp.dst_table = t
            cp.covered = bytes([f.name in written for f in t.fields])
    plan._kernel = cp
    return cp


cdef object _fresh_for(_CPlan cp):
    """A new destination for ``cp``: Go zero values in the fields its rows do not write, None
    (a placeholder the rows overwrite before anyone sees it) in the others. Equal to
    ``new_zero()`` once the rows ran, without building nested zero structs only to drop them."""
    cdef Table t = cp.dst_table
    cdef PyObject* raw
    cdef PyObject* value
    cdef PyObject** pp
    cdef Py_ssize_t i
    cdef const unsigned char* cov = cp.covered
    cdef FieldRow row
    raw = KCV_TP_ALLOC(t.cls)(<PyTypeObject*>t.cls, 0)
    if raw == NULL:
        raise MemoryError()
    obj = <object>raw
    Py_DECREF(obj)  # <object> took a second reference
    untrack(obj)
    for i in range(t.nfields):
        pp = <PyObject**>((<char*>raw) + t.offsets[i])
        if cov[i]:
            Py_INCREF(None)
            pp[0] = <PyObject*>None
        elif t.dynamic[i]:
            row = <FieldRow>t.fields[i]
            dyn = row.struct_table().new_zero_untracked() if row.kind == K_STRUCT else row.zero()
            Py_INCREF(dyn)
            pp[0] = <PyObject*>dyn
        else:
            value = t.zero_ptrs[i]
            Py_INCREF(<object>value)
            pp[0] = value
    return obj


cdef class _Ctx:
    """One nesting level of a conversion: what ``Scope(converter, meta, depth)`` holds,
    plus the converter's tables for the nested-pair fast path."""
    cdef object scope
    cdef object conv
    cdef object meta
    cdef Py_ssize_t depth
    cdef bint fast
    cdef Py_ssize_t regs
    cdef object ignored
    cdef dict funcs
    cdef dict generated
    cdef _Ctx _child

    cdef object get_scope(self):
        if self.scope is None:
            self.scope = _Scope(self.conv, self.meta, self.depth)
        return self.scope

    cdef _Ctx child(self):
        cdef _Ctx c = self._child
        if c is None:
            c = _Ctx.__new__(_Ctx)
            c.conv = self.conv
            c.meta = self.meta
            c.depth = self.depth + 1
            c.fast = True
            c.regs = self.regs
            c.ignored = self.ignored
            c.funcs = self.funcs
            c.generated = self.generated
            self._child = c
        return c


cdef _Ctx _top_ctx(object scope):
    cdef _Ctx ctx = _Ctx.__new__(_Ctx)
    ctx.scope = scope
    ctx.fast = False
    if type(scope) is _Scope:
        conv = scope._converter
        if type(conv) is _Converter:
            funcs = conv._funcs.untyped
            generated = conv._generated.untyped
            if type(funcs) is dict and type(generated) is dict:
                ctx.conv = conv
                ctx.meta = scope._meta
                ctx.depth = scope._depth
                ctx.ignored = conv._ignored
                ctx.funcs = funcs
                ctx.generated = generated
                ctx.regs = _registrations[0]
                ctx.fast = True
    return ctx


cdef inline object _read(object obj, _Row r, bint direct):
    return slot_get(obj, r.src_off if direct else -1, r.name)


# Bound once: Cython looks a builtin passed as a value up in the builtins module at each
# use (a dict miss and a module getattr: a third of converting a Deployment).
cdef object _setattr = setattr


cdef inline int _write(object obj, _Row r, object value, bint direct) except -1:
    return slot_set(obj, r.dst_off if direct else -1, r.name, value, _setattr)


cdef int _run(_CPlan cp, object src, object dst, _Ctx ctx, object overrides) except -1:
    cdef _Row r
    cdef bint ds = cp.direct_src and type(src) is cp.src_cls
    cdef bint dd = cp.direct_dst and type(dst) is cp.dst_cls
    cdef char* base
    cdef PyObject* p
    if ds:
        # Sharing a value increfs it, and the values of a large decoded tree are spread
        # over more memory than the caches hold: ask for all of this struct's values first,
        # so their cache misses overlap instead of stalling the rows one after another
        # (most of a PodList conversion's time otherwise).
        base = <char*><PyObject*>src
        for r in cp.rows:
            if r.action != A_OVERRIDE and r.src_off >= 0:
                p = (<PyObject**>(base + r.src_off))[0]
                if p != NULL:
                    KCV_PREFETCH_W(p)
    for r in cp.rows:
        if r.action == A_SHARE:
            _write(dst, r, _read(src, r, ds), dd)
        elif r.action == A_CONVERT:
            _write(dst, r, _convert_value(_read(src, r, ds), r, ctx, 0), dd)
        else:
            fn = overrides[r.name]
            if fn is not None:
                fn(src, dst, ctx.get_scope())
    return 0


cdef object _mro_lookup(object t, str name):
    for k in t.__mro__:
        d = k.__dict__
        if name in d:
            return d[name]
    return None


cdef object _object_class = object.__dict__["__class__"]
cdef object _type_instancecheck = type.__dict__["__instancecheck__"]


cdef bint _plain_isinstance(object vt, object cls):
    """Whether ``isinstance(v, cls)`` is ``issubclass(vt, cls)`` for every ``v`` of exact class
    ``vt``: ``cls``'s metaclass keeps type's ``__instancecheck__`` and ``vt`` the attribute
    lookup and ``__class__`` of object (Python's isinstance consults ``v.__class__`` when
    the class test fails). Then one instance of ``vt`` answering False answers for all."""
    return (KCV_GENERIC_GETATTR(vt)
            and _mro_lookup(vt, "__class__") is _object_class
            and _mro_lookup(type(cls), "__instancecheck__") is _type_instancecheck)


cdef object _convert_value(object value, _Row r, _Ctx ctx, Py_ssize_t nest):
    cls = r.cls
    if value is None:
        return value
    vt = type(value)
    if vt is cls:
        return value
    if vt is not r.not_cls:
        if isinstance(value, cls):
            return value
        if _plain_isinstance(vt, cls):
            r.not_cls = vt
    if isinstance(value, list):
        if nest >= MAX_VALUE_NESTING:
            raise _twin()._nesting_error(r)
        out = []
        for v in value:
            KCV_PREFETCH_W(<PyObject*>v)
        for v in value:
            PyList_Append(out, _convert_value(v, r, ctx, nest + 1))
        untrack(out)
        return out
    if isinstance(value, dict):
        if nest >= MAX_VALUE_NESTING:
            raise _twin()._nesting_error(r)
        d = {}
        for k, v in value.items():
            d[k] = _convert_value(v, r, ctx, nest + 1)
        untrack(d)
        return d
    if r.new_zero and ctx.fast:
        out = _fast_nested(value, r, ctx)
        if out is not None:
            return out
    if r.new_zero:
        if r.ztable is None:
            r.ztable = table_of(cls)
        out = r.ztable.new_zero_untracked()
    else:
        out = cls()
    untrack(out)
    _nested(value, out, ctx)
    return out


cdef object _fast_nested(object value, _Row r, _Ctx ctx):
    """Convert ``value`` into a fresh ``r.cls`` when a plan-backed function handles the pair
    and its plan can build the destination itself; None to take the general path."""
    cdef _CPlan cp
    cdef _Ctx child
    src = type(value)
    if r.seen_src is src and r.seen_conv is ctx.conv and r.seen_regs == ctx.regs:
        found = r.seen_cp
    else:
        found = _nested_plan(src, r.cls, ctx)
        r.seen_src = src
        r.seen_conv = ctx.conv
        r.seen_regs = ctx.regs
        r.seen_cp = found
    if found is None:
        return None
    cp = <_CPlan>found
    child = ctx.child()
    if child.depth > MAX_CONVERSION_DEPTH:
        raise _depth_error(value, r.cls)
    out = _fresh_for(cp)
    _run(cp, value, out, child, cp.overrides)
    return out


cdef object _nested_plan(object src, object cls, _Ctx ctx):
    """The _CPlan that converts a ``src`` into a fresh ``cls`` under ``ctx``'s converter,
    or None when the pair is ignored, unknown, hand-written or not buildable by a plan."""
    cdef PyObject* p
    cdef _CPlan cp
    pair = (src, cls)
    if pair in ctx.ignored:
        return None
    p = PyDict_GetItem(ctx.funcs, pair)
    if p == NULL:
        p = PyDict_GetItem(ctx.generated, pair)
    if p == NULL:
        return None
    q = PyDict_GetItem(_fn_plans, <object>p)
    if q != NULL:
        cp = <_CPlan>q
    else:
        if type(<object>p) is not _GeneratedConversion:
            return None
        fn = <object>p
        plan = fn._plan
        if plan is None:
            plan = fn._build_plan()
        cp = _cplan(plan)
        cp.overrides = fn.overrides
        # a GeneratedConversion never changes its plan once built: remember it by function
        # (bounded: a process that keeps making new functions only loses the shortcut)
        if len(_fn_plans) >= 8192:
            _fn_plans.clear()
        PyDict_SetItem(_fn_plans, fn, cp)
    if cp.src_cls is not src or cp.dst_cls is not cls or cp.covered is None:
        return None
    return cp


cdef int _nested(object value, object out, _Ctx ctx) except -1:
    """``scope.convert(value, out)``, running plan-backed functions here."""
    cdef PyObject* p
    cdef _Ctx child
    if not ctx.fast:
        ctx.get_scope().convert(value, out)
        return 0
    # Same lookup as Converter._convert_at.
    pair = (type(value), type(out))
    if pair in ctx.ignored:
        return 0
    p = PyDict_GetItem(ctx.funcs, pair)
    if p == NULL:
        p = PyDict_GetItem(ctx.generated, pair)
    if p == NULL:
        ctx.get_scope().convert(value, out)  # raises Go's error
        return 0
    fn = <object>p
    child = ctx.child()
    if child.depth > MAX_CONVERSION_DEPTH:
        raise _depth_error(value, out)
    if type(fn) is _GeneratedConversion:
        plan = fn._plan
        if plan is None:
            plan = fn._build_plan()
        if plan.src_cls is type(value) and plan.dst_cls is type(out):
            _run(_cplan(plan), value, out, child, fn.overrides)
            return 0
    fn(value, out, child.get_scope())
    return 0


def convert_fields(plan, src, dst, scope, overrides):
    """Fill ``dst`` from ``src`` following ``plan``'s rows (see ``kcodec.conversion.copy_fields``)."""
    cdef _CPlan cp = _cplan(plan)
    cdef _Ctx ctx = _top_ctx(scope)
    gc_pause()
    try:
        _run(cp, src, dst, ctx, overrides)
    finally:
        gc_resume()


def new_zero(cls):
    """Go's zero value of Struct class ``cls`` (``cls._new_zero()``), built from its compiled
    table: what a decoder asks the scheme for before filling an object of a named kind (the
    per-object cost of decoding a watch stream, where every event is a fresh top-level object)."""
    return table_of(cls).new_zero()


# ------------------------------------------------------------------------------ deep copy


cdef object _blank(Table t, bint root):
    """A new instance of ``t.cls`` with every slot unset (``object.__new__(cls)``); below the
    root, untracked by the collector (see the module docstring)."""
    cdef PyObject* raw
    if t.direct:
        raw = KCV_TP_ALLOC(t.cls)(<PyTypeObject*>t.cls, 0)
        if raw == NULL:
            raise MemoryError()
        obj = <object>raw
        Py_DECREF(obj)  # <object> took a second reference
    else:
        obj = _object_new(t.cls)
    if not root:
        untrack(obj)
    return obj


cdef object _push(object v, Py_ssize_t depth, list stack):
    cdef Table t
    if depth > MAX_COPY_DEPTH:
        raise _twin()._depth_error(v)
    t = table_of(type(v))
    new = _blank(t, depth == 0)
    PyList_Append(stack, (v, new, t, depth))
    return new


cdef object _copy_custom(object v):
    if _identity_class(type(v)):
        return v
    return v.deep_copy()


# Nested structs down to this depth are copied by recursion, built as a decoder builds them
# (one untracked allocation, slots filled directly, no queue entry); deeper ones go through
# the explicit stack, which bounds the C stack whatever the input's depth.
DEF RECURSE_DEPTH = 48

# How the recursive copy treats one slot of a bare_alloc table (see _CopyPlan).
cdef enum:
    OP_SHARE = 0       # scalars and bytes: the value itself
    OP_CUSTOM_ID = 1   # a custom class keeping CustomValue.deep_copy: shared when exactly it
    OP_STRUCT = 2      # a nested struct: _copy_struct
    OP_COPY = 3        # lists, maps, untyped values, other customs: _copy


cdef struct CopySlot:
    Py_ssize_t offset
    int op
    PyObject* row      # the FieldRow (borrowed: the table's fields tuple holds it)
    PyObject* cls      # row.cls for OP_CUSTOM_ID (borrowed from the row)


cdef class _CopyPlan:
    """Per bare_alloc table, what deep_copy does with each slot, in C arrays: the copy of
    a struct then costs a few instructions per scalar slot (a Pod has about 1800 slots,
    most of them strings, ints and bools) instead of a FieldRow fetched, checked and
    reference-counted per slot. Cached on ``Table.copy_plan``."""
    cdef Py_ssize_t n
    cdef CopySlot* slots
    # indices into slots of the fields that may need _copy (op != OP_SHARE), in field order
    cdef Py_ssize_t ndyn
    cdef Py_ssize_t* dyn

    def __dealloc__(self):
        PyMem_Free(self.slots)
        PyMem_Free(self.dyn)


cdef _CopyPlan _copy_plan(Table t):
    cdef _CopyPlan cp = _CopyPlan()
    cdef Py_ssize_t i, n = t.nfields
    cdef FieldRow f
    cp.slots = <CopySlot*>PyMem_Malloc(sizeof(CopySlot) * (n + 1))
    cp.dyn = <Py_ssize_t*>PyMem_Malloc(sizeof(Py_ssize_t) * (n + 1))
    if cp.slots == NULL or cp.dyn == NULL:
        raise MemoryError()
    cp.n = n
    cp.ndyn = 0
    index = {}
    for i in range(n):
        f = <FieldRow>t.fields[i]
        index[id(f)] = i
        cp.slots[i].offset = t.offsets[i]
        cp.slots[i].row = <PyObject*>f
        cp.slots[i].cls = NULL
        if f.kind < K_STRUCT:
            cp.slots[i].op = OP_SHARE
        elif f.kind == K_CUSTOM and _identity_class(f.cls):
            cp.slots[i].op = OP_CUSTOM_ID
            cp.slots[i].cls = <PyObject*>f.cls
        elif f.kind == K_STRUCT:
            cp.slots[i].op = OP_STRUCT
        else:
            cp.slots[i].op = OP_COPY
    # Values are copied in protobuf field order, then the fields without a number: the
    # order a protobuf decoder built them in, so a copy of a decoded tree reads its source
    # (far larger than the caches) in the order it lies in memory, and lays the copy out
    # the same way. Declaration order jumps about (PodSpec's numbers do).
    order = [index[id(f)] for f in t.pb]
    order += [i for i in range(n) if i not in set(order)]
    for i in order:
        if cp.slots[i].op != OP_SHARE:
            cp.dyn[cp.ndyn] = i
            cp.ndyn += 1
    t.copy_plan = cp
    return cp


cdef bint _identity_class(object cls) except -1:
    """Whether ``cls`` keeps CustomValue.deep_copy (which returns self): its values are
    shared without the call (cached per class, as the pure twin's call gives the same)."""
    cdef PyObject* p = PyDict_GetItem(_identity_copy, cls)
    if p == NULL:
        same = getattr(cls, "deep_copy", None) is _base_deep_copy
        PyDict_SetItem(_identity_copy, cls, same)
        p = PyDict_GetItem(_identity_copy, cls)
    return <object>p is True


cdef object _copy_struct(TypeRow row, object v, Py_ssize_t depth, list stack):
    """Copy of struct ``v`` (a value of ``row``) at nesting ``depth``: built here when its
    table allows a bare allocation (every word after the header is a field slot) and every
    slot is set, else queued on ``stack`` or built field by field."""
    cdef Table t
    cdef _CopyPlan cp
    cdef Py_ssize_t i, j, n
    cdef PyObject* raw
    cdef PyObject* p
    cdef PyObject** words
    cdef PyObject** src
    cdef CopySlot* s
    if depth > RECURSE_DEPTH:
        return _push(v, depth, stack)
    # The row's own table when ``v`` is of the declared class (as the decoders take it):
    # two dict lookups fewer per struct than table_of.
    t = row.struct_table() if type(v) is row.cls else table_of(type(v))
    if not t.bare_alloc:
        return _push(v, depth, stack)
    if t.copy_plan is None:
        _copy_plan(t)
    cp = <_CopyPlan>t.copy_plan
    n = cp.n
    # The slots are the words after the header (bare_alloc) in both objects: take them
    # whole with a reference each, as if every value were shared. The reference updates
    # are independent, so their cache misses overlap without a prefetch pass.
    src = <PyObject**>((<char*><PyObject*>v) + sizeof(PyObject))
    raw = kc_gc_new_untracked_raw(<PyTypeObject_*>t.cls)
    words = <PyObject**>((<char*>raw) + sizeof(PyObject))
    memcpy(words, src, n * sizeof(PyObject*))
    for i in range(n):
        p = words[i]
        if p == NULL:
            # An unset slot: undo, and let the field by field copy raise getattr's error
            # in field order.
            for j in range(i):
                Py_DECREF(<object>words[j])
            memset(words, 0, n * sizeof(PyObject*))
            Py_DECREF(<object>raw)
            return _copy_struct_fields(t, v, depth, stack)
        Py_INCREF(<object>p)
    new = <object>raw
    Py_DECREF(new)  # <object> took a second reference
    # Then the values that are not shared are replaced by copies, in field order (the
    # first error is the one the field by field copy meets first). Until replaced a slot
    # holds the source's value with its own reference: a failure frees a whole object.
    for j in range(cp.ndyn):
        s = &cp.slots[cp.dyn[j]]
        p = (<PyObject**>((<char*>raw) + s.offset))[0]
        if p == <PyObject*>None:
            continue
        if s.op == OP_STRUCT:
            val = _copy_struct(<TypeRow>s.row, <object>p, depth + 1, stack)
        elif s.op == OP_CUSTOM_ID and <PyObject*>Py_TYPE(p) == s.cls:
            continue
        else:
            val = _copy(<TypeRow>s.row, <object>p, depth, stack)
        Py_INCREF(val)
        (<PyObject**>((<char*>raw) + s.offset))[0] = <PyObject*>val
        Py_DECREF(<object>p)
    return new


cdef object _copy_struct_fields(Table t, object v, Py_ssize_t depth, list stack):
    """_copy_struct of a struct with an unset slot: field by field, reading each through
    getattr when its slot is empty (its AttributeError, or a class's own __getattr__)."""
    cdef Py_ssize_t i, off
    cdef PyObject* raw
    cdef PyObject* p
    cdef PyObject** dst
    cdef char* base = <char*><PyObject*>v
    cdef FieldRow f
    # Every word zero until filled: a failure below frees a well-formed object.
    raw = kc_gc_new_untracked(<PyTypeObject_*>t.cls)
    new = <object>raw
    Py_DECREF(new)  # <object> took a second reference
    for i in range(t.nfields):
        f = <FieldRow>t.fields[i]
        off = t.offsets[i]
        p = (<PyObject**>(base + off))[0]
        val = <object>p if p != NULL else getattr(v, f.name)
        if val is not None and f.kind >= K_STRUCT:
            val = _copy(f, val, depth, stack)
        Py_INCREF(val)
        dst = <PyObject**>((<char*>raw) + off)
        Py_XDECREF(dst[0])
        dst[0] = <PyObject*>val
    return new


cdef object _copy_scalar_list(object v):
    """An untracked copy of a list of scalars (shared values): one allocation of the final
    size, without the generic list constructor's iteration."""
    cdef Py_ssize_t i, n
    cdef PyObject* item
    if type(v) is not list or _list_size(v) == 0:
        out = list(v)
        untrack(out)
        return out
    n = _list_size(v)
    out = kc_list_new_untracked(n)
    for i in range(n):
        item = _list_item(v, i)
        Py_INCREF(<object>item)
        PyList_SET_ITEM(out, i, <object>item)
    Py_SET_SIZE(out, n)
    return out


cdef object _copy_list(TypeRow e, object v, Py_ssize_t depth, list stack):
    """Copy of list ``v`` whose items (of ``e``, not scalars) are copied: preallocated
    untracked, each item in place as it is made (the list is whole at every step)."""
    cdef Py_ssize_t i, n
    if type(v) is not list:
        out = []
        for y in v:
            PyList_Append(out, None if y is None else _copy(e, y, depth, stack))
        untrack(out)
        return out
    n = _list_size(v)
    if n == 0:
        out = []
        untrack(out)
        return out
    out = kc_list_new_untracked(n)
    i = 0
    # Both bounds: a custom deep_copy (Python code) could shorten or grow the source.
    while i < n and i < _list_size(v):
        xo = <object>_list_item(v, i)  # a reference held while the item is copied
        y = None if xo is None else _copy(e, xo, depth, stack)
        Py_INCREF(y)
        PyList_SET_ITEM(out, i, y)
        i += 1
        Py_SET_SIZE(out, i)
    return out


cdef bint _shared_values(TypeRow e, dict v) except -1:
    """Whether every value of map ``v`` (of ``e``) is shared by its copy: None or exactly a
    custom class keeping CustomValue.deep_copy (Quantity in a ResourceList). The map is
    then copied whole instead of key by key."""
    cdef Py_ssize_t pos = 0
    cdef PyObject* key
    cdef PyObject* x
    if e.kind != K_CUSTOM or not _identity_class(e.cls):
        return False
    cls = e.cls
    while PyDict_Next(v, &pos, &key, &x):
        if x != <PyObject*>None and <PyObject*>Py_TYPE(x) != <PyObject*>cls:
            return False
    return True


cdef object _copy(TypeRow t, object v, Py_ssize_t depth, list stack):
    cdef int k = t.kind
    cdef TypeRow e
    if k == K_STRUCT:
        return _copy_struct(t, v, depth + 1, stack)
    if k == K_LIST:
        e = t.elem
        if e.kind <= K_BYTES:
            return _copy_scalar_list(v)
        return _copy_list(e, v, depth, stack)
    if k == K_CUSTOM:
        return _copy_custom(v)
    if k == K_MAP:
        e = t.elem
        if type(v) is dict and (e.kind <= K_BYTES or _shared_values(e, v)):
            d = PyDict_Copy(v)
        elif e.kind <= K_BYTES:
            d = dict(v)
        else:
            d = {}
            for key, x in v.items():
                d[key] = None if x is None else _copy(e, x, depth, stack)
        untrack(d)
        return d
    if k == K_ANY:
        return _copy_any(v, depth)
    return v


cdef object _any_node(object v, Py_ssize_t d, list work):
    if isinstance(v, dict):
        if d > MAX_COPY_DEPTH:
            raise _twin()._depth_error(v)
        out = {}
        PyList_Append(work, (v, out, d))
        return out
    if isinstance(v, list):
        if d > MAX_COPY_DEPTH:
            raise _twin()._depth_error(v)
        lst = [None] * len(v)
        PyList_Append(work, (v, lst, d))
        return lst
    return v


cdef object _copy_any(object tree, Py_ssize_t depth):
    cdef list work = []
    cdef Py_ssize_t d, i
    root = _any_node(tree, depth + 1, work)
    while work:
        src, dst, d = work.pop()
        if isinstance(dst, dict):
            for key, x in src.items():
                dst[key] = _any_node(x, d + 1, work)
        else:
            i = 0
            for x in src:
                dst[i] = _any_node(x, d + 1, work)
                i += 1
    return root


cdef int _fill(object src, object dst, Table t, Py_ssize_t depth, list stack) except -1:
    cdef FieldRow f
    cdef Py_ssize_t i
    cdef PyObject* p
    cdef char* base = <char*><PyObject*>src
    # Copying takes a reference to every value of the source, each a likely cache miss on
    # its reference count: ask for all of a struct's values first so the misses overlap
    # (as convert_fields does), which made a copy cost twice a protobuf decode otherwise.
    for i in range(t.nfields):
        if t.offsets[i] >= 0:
            p = (<PyObject**>(base + t.offsets[i]))[0]
            if p != NULL:
                KCV_PREFETCH_W(p)
    for f in t.fields:
        v = get_field(src, f, True)
        if v is not None and f.kind >= K_STRUCT:
            v = _copy(f, v, depth, stack)
        set_field(dst, f, v, True)
    return 0


def deep_copy(obj):
    """A copy of Struct ``obj`` sharing no mutable state with it (see the pure twin)."""
    cdef list stack = []
    cdef tuple item
    gc_pause()
    try:
        root = _push(obj, 0, stack)
        while stack:
            item = stack.pop()
            _fill(item[0], item[1], <Table>item[2], <Py_ssize_t>item[3], stack)
    finally:
        gc_resume()
    return root
