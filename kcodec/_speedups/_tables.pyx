# cython: language_level=3
"""Compiled field tables: the C-level mirror of ``kcodec.model``'s FieldInfo rows.

See ``_tables.pxd`` for the API the kernels ``cimport``. A table is built once per Struct
class from its ``__kc_fields__`` / ``__kc_pb__`` / ``__kc_json__`` and cached on the class
as ``__kc_ctable__``. Besides the rows it records, per field, the byte offset of the slot
that holds the value, so kernels read and write fields without attribute lookups, and it
allocates zero instances with ``tp_alloc`` instead of ``object.__new__`` + setattr.

Why direct slot access is sound: the offset comes from the class's own member descriptor
(a ``T_OBJECT_EX`` slot made by ``__slots__``), and it is only used on objects whose type
is exactly that class (``Table.owns``), so the layout is the one the descriptor describes.
Every write INCREFs the new value before it replaces (and XDECREFs) the old one, exactly
as the descriptor's own setter does.
"""
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_DECREF
from cpython.dict cimport PyDict_GetItem
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.string cimport memcpy, memset

import types as _pytypes

from kcodec import _kinds
from kcodec import fieldtable as _model

__all__ = []

cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        const char* name
        int type
        Py_ssize_t offset
        int flags
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    ctypedef PyObject* (*allocfunc)(PyTypeObject*, Py_ssize_t)
    PyObject* PyType_GenericAlloc(PyTypeObject* t, Py_ssize_t n) except NULL
    PyObject* _PyObject_GC_New(PyTypeObject* t)
    unsigned long PyType_GetFlags(PyTypeObject* t)
    unsigned long Py_TPFLAGS_IS_ABSTRACT
    int PyGC_Enable()
    int PyGC_Disable()
    void PyObject_GC_UnTrack(void* op)
    bint PyObject_IS_GC(object o)
    # the time parser (time_from_text)
    PyObject* PyDict_GetItemWithError(object d, object key) except? NULL
    bint PyUnicode_CheckExact(object o)
    bint PyUnicode_IS_ASCII(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    void* PyUnicode_DATA(object o)

cdef extern from *:
    """
    #define KC_TP_ALLOC(t) (((PyTypeObject*)(t))->tp_alloc)
    #define KC_TP_NEW_IS_OBJECTS(t) (((PyTypeObject*)(t))->tp_new == PyBaseObject_Type.tp_new)
    #define KC_TP_DICT(t) (((PyTypeObject*)(t))->tp_dict)
    #define KC_T_OBJECT_EX 16
    #define KC_READONLY 1
    """
    allocfunc KC_TP_ALLOC(object t)
    bint KC_TP_NEW_IS_OBJECTS(object t)
    PyObject* KC_TP_DICT(object t)
    int KC_T_OBJECT_EX
    int KC_READONLY



# Lean deallocation of decoded structs
# -------------------------------------
# Freeing a decoded PodList costs as much as decoding it: CPython's generic slot
# deallocator (subtype_dealloc) releases a struct's slots one after another, and each
# release waits for the child's header to come from memory before the next begins. A
# struct class whose layout is nothing but object slots (checked by _lean_layout) gets
# kc_struct_dealloc instead: it asks for every child header at once, and for the children
# of the structs and the item arrays of the lists it alone holds, then releases them, so
# the misses overlap and one level is always on its way; such a list is released inline
# (kc_list_release) and blocks go to PyObject_Free directly (kc_gc_free). It does what
# subtype_dealloc does for such a layout (untrack, trashcan for deep trees, clear the
# slots, tp_free, release the heap type) and nothing it skips applies: no __dict__, no
# __weakref__, no finalizer (a __del__ assigned to the class later is still run).
# Subclasses keep CPython's subtype_dealloc, which clears their own slots and then calls
# this one as the base deallocator (so the type found from Py_TYPE is walked up to the
# class that owns it).
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define KC_PREFETCH_W(p) __builtin_prefetch((const void*)(p), 1)
    #else
    #define KC_PREFETCH_W(p) ((void)0)
    #endif
    /* A GC object dies soon: ask for the 64 bytes from its GC header on (the header,
       which pymalloc's free writes, the type and the first slots), two lines at most. */
    #define KC_PREFETCH_OBJ(o) do { KC_PREFETCH_W((char *)(o) - 16); \
                                    KC_PREFETCH_W((char *)(o) + 47); } while (0)
    #ifndef Py_TPFLAGS_MANAGED_DICT
    #define Py_TPFLAGS_MANAGED_DICT 0
    #endif
    #ifndef Py_TPFLAGS_MANAGED_WEAKREF
    #define Py_TPFLAGS_MANAGED_WEAKREF 0
    #endif
    #if defined(Py_GIL_DISABLED) || !defined(Py_TRASHCAN_BEGIN)
    #define KC_LEAN_DEALLOC 0
    #else
    #define KC_LEAN_DEALLOC 1
    #endif

    #define KC_SHALLOW_DEALLOC 64
    static int kc_dealloc_depth = 0;
    static void kc_struct_dealloc(PyObject *self);
    static void kc_struct_dealloc_flat(PyObject *self);
    #define KC_IS_LEAN_DEALLOC(d) ((d) == kc_struct_dealloc || (d) == kc_struct_dealloc_flat)

    /* tp_free of self, an untracked instance of tp whose tp_free is PyObject_GC_Del. On
       the layouts kc_gc_new_untracked knows (GC header, no managed dict) the block starts
       two words before self: freed directly, without PyObject_GC_Del's tracked test and
       its young-generation count, which decoded objects never added to (the count only
       schedules collections; an object made by tp_alloc and freed here leaves it one
       higher, a collection that much sooner). */
    static inline __attribute__((always_inline)) void
    kc_gc_free(PyObject *self, PyTypeObject *tp)
    {
    #if KC_BARE_GC_ALLOC
        if (tp->tp_free == PyObject_GC_Del
                && !(tp->tp_flags & (Py_TPFLAGS_MANAGED_DICT | Py_TPFLAGS_MANAGED_WEAKREF))) {
            PyObject_Free((char *)self - 2 * sizeof(void *));
            return;
        }
    #endif
        tp->tp_free(self);
    }

    #ifdef Py_REF_DEBUG
    /* Debug builds count every reference in _Py_RefTotal: leave lists to Py_DECREF. */
    #define KC_INLINE_LIST_RELEASE 0
    #else
    #define KC_INLINE_LIST_RELEASE 1
    #endif

    /* The last reference to lst, an exact list, dies: what list_dealloc does, inline in
       the struct deallocator that held it. Items go first to last (the order they were
       allocated, so pymalloc's pools are walked forward; list_dealloc goes last to first,
       and nothing may rely on either) with headers requested 16 items ahead; no trashcan
       of its own, as the struct deallocators around it bound the C depth (one frame per
       struct level, none for the list). */
    static inline __attribute__((always_inline)) void
    kc_list_release(PyObject *lst)
    {
        PyObject **items = ((PyListObject *)lst)->ob_item;
        Py_ssize_t n = PyList_GET_SIZE(lst), i;
        Py_SET_REFCNT(lst, 0);
    #if KC_BARE_GC_ALLOC
        if (((uintptr_t *)lst)[-2] != 0)
    #endif
            PyObject_GC_UnTrack(lst);
        if (items != NULL) {
            for (i = 0; i < n; i++) {
                if (i + 16 < n) {
                    KC_PREFETCH_OBJ(items[i + 16]);
                }
                Py_XDECREF(items[i]);
            }
            PyMem_Free(items);
        }
        kc_gc_free(lst, &PyList_Type);
    }

    /* Release every slot of self, an instance of own (or of a subclass of it). lists: own
       may hold lists in its slots (a constant in each deallocator below). */
    static inline __attribute__((always_inline)) void
    kc_struct_clear(PyObject *self, PyTypeObject *own, const int lists)
    {
        PyObject **slot = (PyObject **)((char *)self + sizeof(PyObject));
        PyObject **end = (PyObject **)((char *)self + own->tp_basicsize);
        PyObject *value;
        for (PyObject **q = slot; q < end; q++) {
            if (*q != NULL) {
                KC_PREFETCH_OBJ(*q);
            }
        }
        /* Structs this struct alone holds die next: ask for their children too (their
           own deallocators ask again, by then for lines on the way). */
        for (PyObject **q = slot; q < end; q++) {
            value = *q;
            if (value != NULL && Py_REFCNT(value) == 1
                    && KC_IS_LEAN_DEALLOC(Py_TYPE(value)->tp_dealloc)) {
                PyObject **c = (PyObject **)((char *)value + sizeof(PyObject));
                PyObject **cend = (PyObject **)((char *)value + Py_TYPE(value)->tp_basicsize);
                for (; c < cend; c++) {
                    if (*c != NULL) {
                        KC_PREFETCH_W(*c);
                    }
                }
            }
        }
        /* Lists this struct alone holds die next: ask for their item arrays, then for
           the items' headers (each pass reads what the one before asked for). */
        if (lists) {
            for (PyObject **q = slot; q < end; q++) {
                value = *q;
                if (value != NULL && Py_TYPE(value) == &PyList_Type && Py_REFCNT(value) == 1) {
                    KC_PREFETCH_W(((PyListObject *)value)->ob_item);
                }
            }
            for (PyObject **q = slot; q < end; q++) {
                value = *q;
                if (value != NULL && Py_TYPE(value) == &PyList_Type && Py_REFCNT(value) == 1) {
                    Py_ssize_t n = PyList_GET_SIZE(value);
                    PyObject **items = ((PyListObject *)value)->ob_item;
                    for (Py_ssize_t i = 0; i < n && i < 16; i++) {
                        KC_PREFETCH_OBJ(items[i]);
                    }
                }
            }
        }
        for (; slot < end; slot++) {
            value = *slot;
            if (value != NULL) {
                *slot = NULL;
                if (lists && KC_INLINE_LIST_RELEASE && Py_TYPE(value) == &PyList_Type
                        && Py_REFCNT(value) == 1) {
                    kc_list_release(value);
                } else {
                    Py_DECREF(value);
                }
            }
        }
    }


    static inline __attribute__((always_inline)) void
    kc_struct_dealloc_body(PyObject *self, const int lists)
    {
    #if KC_LEAN_DEALLOC
        PyTypeObject *tp = Py_TYPE(self);
        PyTypeObject *own = tp;
        while (!KC_IS_LEAN_DEALLOC(own->tp_dealloc)) {
            own = own->tp_base;
        }
        /* A __del__ assigned to the class after this deallocator was installed: run it as
           subtype_dealloc would (subclasses run their own before calling this one). */
        if (tp == own && tp->tp_finalize != NULL) {
            if (PyObject_CallFinalizerFromDealloc(self) < 0) {
                return;  /* resurrected */
            }
        }
        /* Decoded structs are never tracked: on the layouts kc_gc_new_untracked knows,
           read the GC header's link word instead of calling PyObject_GC_UnTrack. */
    #if KC_BARE_GC_ALLOC
        if (((uintptr_t *)self)[-2] != 0)
    #endif
            PyObject_GC_UnTrack(self);
        /* The trashcan bounds C recursion when freeing deep trees, at three calls per
           object; the shallow levels, which are all a decoded object has, skip it. The
           count is shared under the GIL and balanced per call: a switch to another
           thread's deallocation at worst makes that thread use the trashcan sooner. */
        if (kc_dealloc_depth < KC_SHALLOW_DEALLOC) {
            kc_dealloc_depth++;
            kc_struct_clear(self, own, lists);
            kc_gc_free(self, tp);
            Py_DECREF(tp);
            kc_dealloc_depth--;
            return;
        }
        Py_TRASHCAN_BEGIN(self, (lists ? kc_struct_dealloc : kc_struct_dealloc_flat))
        kc_struct_clear(self, own, lists);
        tp->tp_free(self);
        Py_DECREF(tp);
        Py_TRASHCAN_END
    #endif
    }

    static void kc_struct_dealloc(PyObject *self)
    {
        kc_struct_dealloc_body(self, 1);
    }

    /* For classes none of whose fields holds a list (most structs of a Pod): the same
       without the pass that looks for lists among the slots. */
    static void kc_struct_dealloc_flat(PyObject *self)
    {
        kc_struct_dealloc_body(self, 0);
    }

    /* 1: installed (or already), 0: the class does not qualify. lists: which of the two;
       a class that has one already is switched (both free its instances alike). */
    static int kc_install_dealloc(PyTypeObject *tp, destructor generic, int lists)
    {
        destructor lean = lists ? kc_struct_dealloc : kc_struct_dealloc_flat;
        const unsigned long need = Py_TPFLAGS_HEAPTYPE | Py_TPFLAGS_HAVE_GC;
        const unsigned long refuse = Py_TPFLAGS_MANAGED_DICT | Py_TPFLAGS_MANAGED_WEAKREF;
        if (!KC_LEAN_DEALLOC) {
            return 0;
        }
        if (KC_IS_LEAN_DEALLOC(tp->tp_dealloc)) {
            tp->tp_dealloc = lean;
            return 1;
        }
        if (generic == NULL || tp->tp_dealloc != generic
                || (tp->tp_flags & need) != need || (tp->tp_flags & refuse)
                || tp->tp_itemsize != 0 || tp->tp_dictoffset != 0
                || tp->tp_weaklistoffset != 0 || tp->tp_finalize != NULL
                || tp->tp_del != NULL || tp->tp_free != PyObject_GC_Del) {
            return 0;
        }
        tp->tp_dealloc = lean;
        return 1;
    }
    #define KC_TP_BASICSIZE(t) (((PyTypeObject*)(t))->tp_basicsize)
    #define KC_TP_DEALLOC(t) ((void*)((PyTypeObject*)(t))->tp_dealloc)
    #define KC_IS_LEAN(t) KC_IS_LEAN_DEALLOC(((PyTypeObject*)(t))->tp_dealloc)
    #define KC_IS_FLAT(t) (((PyTypeObject*)(t))->tp_dealloc == kc_struct_dealloc_flat)
    """
    ctypedef void (*destructor)(PyObject*)
    int kc_install_dealloc(PyTypeObject* tp, destructor generic, int lists)
    Py_ssize_t KC_TP_BASICSIZE(object t)
    void* KC_TP_DEALLOC(object t)
    bint KC_IS_LEAN(object t)
    bint KC_IS_FLAT(object t)


class _DeallocProbe:
    """A plain slotted class: its deallocator is CPython's generic one (subtype_dealloc)."""

    __slots__ = ("a",)


cdef destructor _generic_dealloc = <destructor>KC_TP_DEALLOC(_DeallocProbe)


cdef bint _lean_layout(object cls) except -1:
    """Whether every word of a ``cls`` instance after the object header is a plain object
    slot of some class in its MRO, and nothing else (no dict, weakref or C-level fields)."""
    cdef PyMemberDescrObject* d
    cdef Py_ssize_t word = sizeof(void*), start = sizeof(PyObject)
    cdef Py_ssize_t size = KC_TP_BASICSIZE(cls)
    mro = cls.__mro__
    if mro[len(mro) - 1] is not object or (size - start) % word:
        return False
    seen = set()
    for klass in mro[:len(mro) - 1]:
        if KC_TP_DEALLOC(klass) != <void*>_generic_dealloc and not KC_IS_LEAN(klass):
            return False
        for descr in klass.__dict__.values():
            if type(descr) is not _MemberDescriptorType:
                continue
            d = <PyMemberDescrObject*>descr
            if d.d_member.type != KC_T_OBJECT_EX or (d.d_member.flags & KC_READONLY):
                return False
            seen.add(d.d_member.offset)
    return seen == set(range(start, size, word))


cdef bint use_lean_dealloc(object cls, bint lists) except -1:
    """Give ``cls`` the lean deallocator when its layout allows; whether it has it. ``lists``:
    a slot may hold a list (the variant that prefetches list items before freeing them)."""
    if not KC_IS_LEAN(cls) and not _lean_layout(cls):
        return False
    return kc_install_dealloc(<PyTypeObject*>cls, _generic_dealloc, lists) == 1


def _lean_dealloc(cls):
    """Whether instances of ``cls`` are freed by the lean deallocator (for tests)."""
    return bool(KC_IS_LEAN(cls))


def _flat_dealloc(cls):
    """Whether that lean deallocator is the one without the list pass (for tests)."""
    return bool(KC_IS_FLAT(cls))


if (K_STR, K_BOOL, K_INT32, K_INT64, K_FLOAT, K_BYTES, K_STRUCT, K_CUSTOM, K_LIST, K_MAP, K_ANY,
        WT_VARINT, WT_FIXED64, WT_BYTES) != (
        _kinds.K_STR, _kinds.K_BOOL, _kinds.K_INT32, _kinds.K_INT64, _kinds.K_FLOAT,
        _kinds.K_BYTES, _kinds.K_STRUCT, _kinds.K_CUSTOM, _kinds.K_LIST, _kinds.K_MAP,
        _kinds.K_ANY, _kinds.WT_VARINT, _kinds.WT_FIXED64, _kinds.WT_BYTES):
    raise ImportError("kcodec._speedups._tables: kind codes differ from kcodec._kinds; rebuild")

cdef object _object_setattr = object.__setattr__
cdef object _object_new = object.__new__
cdef object _MemberDescriptorType = _pytypes.MemberDescriptorType
cdef object _struct_new_zero = _model.StructBase.__dict__["_new_zero"].__func__
cdef object _compile = _model._compile
cdef str _CTABLE = "__kc_ctable__"
cdef str _FIELDS = "__kc_fields__"
# Numbers above this go to a dict instead of the dense list.
cdef Py_ssize_t _DENSE_MAX = 4096


cdef int generic_setattr(object obj, str name, object value) except -1:
    _object_setattr(obj, name, value)
    return 0


cdef extern from "Python.h":
    int PyObject_GenericSetAttr(object o, object name, object value) except -1

cdef str _S_SEC = "_sec"
cdef str _S_NSEC = "_nsec"
cdef str _S_TZ = "_tz"


cdef object new_time(object cls, long long sec, long long nsec):
    """``cls._at(sec, nsec)`` of a metav1 Time/MicroTime class, without the Python call:
    the instant normalised so that 0 <= nsec < 1e9, and no zone.

    Only for classes that opt in (``_KC_JSON_TIME_FRAC`` / ``_KC_PB_TIME_UNIT``) and keep
    object's allocation; anything else goes through ``_at`` itself."""
    cdef PyObject* raw
    cdef long long q
    if not KC_TP_NEW_IS_OBJECTS(cls):
        return cls._at(sec, nsec)
    # Floor division, as _at's Python arithmetic does.
    q = nsec // 1000000000
    if nsec - q * 1000000000 < 0:
        q -= 1
    raw = KC_TP_ALLOC(cls)(<PyTypeObject*>cls, 0)
    if raw == NULL:
        raise MemoryError()
    obj = <object>raw
    Py_DECREF(obj)  # <object> took a second reference
    PyObject_GenericSetAttr(obj, _S_SEC, sec + q)
    PyObject_GenericSetAttr(obj, _S_NSEC, nsec - q * 1000000000)
    PyObject_GenericSetAttr(obj, _S_TZ, None)
    return obj


# Custom value type -> fraction digits of the UTC RFC3339 text the encoder writes for it
# itself (``_KC_JSON_TIME_FRAC``: metav1.Time 0, MicroTime 6), or -1. Formatting a time
# in Python was a quarter of encoding a single Pod (8 times at about 2 us each).
cdef dict _time_frac = {}


cdef inline int _two(const unsigned char* s, Py_ssize_t i) noexcept:
    """The two decimal digits at ``s[i]``, or -1."""
    if s[i] < 0x30 or s[i] > 0x39 or s[i + 1] < 0x30 or s[i + 1] > 0x39:
        return -1
    return (s[i] - 0x30) * 10 + (s[i + 1] - 0x30)


cdef int time_frac_for(object tp) except -2:
    """Fraction digits of the canonical JSON text of custom type ``tp`` (see
    ``_time_frac``), or -1 when the compiled code does not handle its times."""
    cdef PyObject* p = PyDict_GetItemWithError(_time_frac, tp)
    if p != NULL:
        return <int><object>p
    # Only where the class itself says so: a subclass may parse and format differently.
    fv = tp.__dict__.get("_KC_JSON_TIME_FRAC")
    frac = fv if type(fv) is int and 0 <= fv <= 9 else -1
    _time_frac[tp] = frac
    return frac


cdef object time_from_text(object cls, object v):
    """``cls._from_tree(v, path)`` for the canonical UTC text the encoder writes
    (``2006-01-02T15:04:05Z``, with exactly the type's fraction digits), or None.

    Anything else - offsets, other fraction lengths, out-of-range fields, which Go either
    parses differently or rejects with its own message - is left to the Python parser."""
    cdef int frac = time_frac_for(cls)
    cdef Py_ssize_t n, i
    cdef const unsigned char* s
    cdef int y, mo, d, hh, mi, ss, hi, lo, mdays
    cdef long long days, yy, era, yoe, doy, doe, nsec = 0
    if frac < 0 or not PyUnicode_CheckExact(v) or not PyUnicode_IS_ASCII(v):
        return None
    n = PyUnicode_GET_LENGTH(v)
    if n != 20 + (frac + 1 if frac else 0):
        return None
    s = <const unsigned char*>PyUnicode_DATA(v)
    if s[4] != 0x2D or s[7] != 0x2D or s[10] != 0x54 or s[13] != 0x3A or s[16] != 0x3A \
            or s[n - 1] != 0x5A:
        return None
    hi = _two(s, 0)
    lo = _two(s, 2)
    mo = _two(s, 5)
    d = _two(s, 8)
    hh = _two(s, 11)
    mi = _two(s, 14)
    ss = _two(s, 17)
    if hi < 0 or lo < 0 or mo < 1 or mo > 12 or d < 1 or hh < 0 or hh > 23 or mi < 0 \
            or mi > 59 or ss < 0 or ss > 59:
        return None
    y = hi * 100 + lo
    if mo == 2:
        mdays = 29 if (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)) else 28
    elif mo == 4 or mo == 6 or mo == 9 or mo == 11:
        mdays = 30
    else:
        mdays = 31
    if d > mdays:
        return None
    if frac:
        if s[19] != 0x2E:
            return None
        for i in range(20, 20 + frac):
            if s[i] < 0x30 or s[i] > 0x39:
                return None
            nsec = nsec * 10 + (s[i] - 0x30)
        for i in range(frac, 9):
            nsec *= 10
    # Proleptic Gregorian date to days since 1970-01-01 (Howard Hinnant's days_from_civil).
    yy = y - 1 if mo <= 2 else y
    era = (yy if yy >= 0 else yy - 399) // 400
    yoe = yy - era * 400
    doy = (153 * (mo - 3 if mo > 2 else mo + 9) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    days = era * 146097 + doe - 719468
    return new_time(cls, days * 86400 + hh * 3600 + mi * 60 + ss, nsec)


cdef bytes _varint_bytes(unsigned long long n):
    cdef unsigned char buf[10]
    cdef int i = 0
    while n >= 0x80:
        buf[i] = <unsigned char>((n & 0x7F) | 0x80)
        n >>= 7
        i += 1
    buf[i] = <unsigned char>n
    return (<char*>buf)[:i + 1]


cdef class TypeRow:
    def __init__(self, info):
        self.info = info
        self.kind = info.kind
        self.wire = info.wire
        self.pointer = bool(info.pointer)
        self.wrapped = bool(info.wrapped)
        self.cls = info.cls
        self.elem = TypeRow(info.elem) if info.elem is not None else None
        self.elem_scalar = self.elem is not None and self.elem.kind <= K_FLOAT
        self.shareable = False
        self.pb_time_unit = -1
        self.sec_offset = -1
        self.nsec_offset = -1
        if self.kind == K_CUSTOM:
            # Only where the class itself says so: a subclass may encode differently.
            uv = self.cls.__dict__.get("_KC_PB_TIME_UNIT")
            if type(uv) is int and 0 <= uv <= 1000000000:
                self.pb_time_unit = uv
                self.sec_offset = _slot_offset(self.cls, "_sec")
                self.nsec_offset = _slot_offset(self.cls, "_nsec")
        if self.kind == K_CUSTOM:
            zero = self.cls._zero()
            # Immutable values (deep_copy() is identity) can be shared between objects.
            if zero.deep_copy() is zero:
                self.shareable = True
                self._zero_shared = zero

    cdef Table _resolve_table(self):
        if self._table is None:
            self._table = table_of(self.cls)
        return self._table

    cdef object zero(self):
        cdef int k
        if self.pointer:
            return None
        k = self.kind
        if k == K_STR:
            return ""
        if k == K_INT32 or k == K_INT64:
            return 0
        if k == K_BOOL:
            return False
        if k == K_FLOAT:
            return 0.0
        if k == K_STRUCT:
            return self.struct_table().new_zero()
        if k == K_CUSTOM:
            if self.shareable:
                return self._zero_shared
            return self.cls._zero()
        return None

    def __repr__(self):
        return f"{type(self).__name__}({self.info!r})"


cdef Py_ssize_t _slot_offset(object cls, str name) except -2:
    """Byte offset of the plain object slot ``name`` of ``cls`` instances, or -1."""
    cdef PyMemberDescrObject* d
    for klass in cls.__mro__:
        descr = klass.__dict__.get(name)
        if descr is None:
            continue
        if type(descr) is not _MemberDescriptorType:
            return -1
        d = <PyMemberDescrObject*>descr
        if d.d_member.type != KC_T_OBJECT_EX or (d.d_member.flags & KC_READONLY):
            return -1
        if d.d_member.offset <= 0:
            return -1
        return d.d_member.offset
    return -1


cdef class FieldRow(TypeRow):
    def __init__(self, info, owner):
        TypeRow.__init__(self, info)
        self.name = info.name
        self.json = info.json
        self.number = info.number
        self.omitempty = bool(info.omitempty)
        self.omitzero = bool(info.omitzero)
        self.inline = bool(info.inline)
        self.offset = _slot_offset(owner, self.name)
        cdef int wire = self.wire
        if self.kind == K_LIST and not self.wrapped:
            wire = self.elem.wire
        elif self.kind == K_MAP:
            wire = WT_BYTES
        self.pbkey = _varint_bytes((<unsigned long long>self.number << 3) | <unsigned long long>wire) \
            if self.number > 0 else b""


cdef class Table:
    def __init__(self, cls):
        cdef FieldRow row
        self.cls = cls
        self.src_fields = cls.__kc_fields__
        rows = []
        by_info = {}
        for info in self.src_fields:
            row = FieldRow(info, cls)
            rows.append(row)
            by_info[id(info)] = row
        self.fields = tuple(rows)
        self.pb = tuple(by_info[id(info)] for info in cls.__kc_pb__)
        self.proto_ok = bool(cls.__kc_proto_ok__)
        maxnum = 0
        for row in self.pb:
            if row.number > maxnum:
                maxnum = row.number
        if maxnum <= _DENSE_MAX:
            self._bynum = [None] * (maxnum + 1)
            for row in self.pb:
                if self._bynum[row.number] is None:
                    self._bynum[row.number] = row
            self.nbynum = maxnum + 1
        else:
            self.nbynum = 0
        self._bydict = {}
        for number, info in cls.__kc_bynum__.items():
            self._bydict[number] = by_info[id(info)]
        if self.nbynum:
            # __kc_bynum__ keeps the last field declared with a number: mirror it exactly.
            for number, row in self._bydict.items():
                self._bynum[number] = row
        json_map = {}
        for key, chain in cls.__kc_json__.items():
            json_map[key] = _chain_rows(cls, chain, by_info)
        self.json = json_map
        self._new_zero_py = cls._new_zero
        direct = getattr(cls._new_zero, "__func__", None) is _struct_new_zero
        if direct:
            direct = (KC_TP_ALLOC(cls) == <allocfunc>PyType_GenericAlloc
                      and not (PyType_GetFlags(<PyTypeObject*>cls) & Py_TPFLAGS_IS_ABSTRACT))
        if direct:
            for row in self.fields:
                if row.offset < 0:
                    direct = False
                    break
        self.direct = direct
        # Fields that cover every slot word exactly once (the lean layout) let decoders
        # allocate with _PyObject_GC_New: uninitialised, untracked, then every word set.
        slot_words = (KC_TP_BASICSIZE(cls) - <Py_ssize_t>sizeof(PyObject)) // <Py_ssize_t>sizeof(void*)
        covered = (len(self.fields) == slot_words
                   and len({row.offset for row in self.fields}) == slot_words)
        # Only list and interface fields can hold a list, and only when the fields are
        # every slot (a slot outside them could hold anything).
        lists = not covered or any(row.kind == K_LIST or row.kind == K_ANY for row in self.fields)
        self.lean_dealloc = direct and use_lean_dealloc(cls, lists)
        self._build_arrays()
        self.bare_alloc = self.lean_dealloc and self.nfields == slot_words and covered
        if self.bare_alloc:
            self._build_template()

    cdef int _build_template(self) except -1:
        """A zero instance is one copy of ``tmpl`` over its slot words, one reference added
        per slot to each shared zero value (a handful of distinct objects: None, "", 0,
        False, immutable custom zeros), then a fresh value in each dynamic slot: instead of
        one store and one reference per field."""
        cdef Py_ssize_t i, j, word, n = self.nfields
        cdef PyObject* z
        self.tmpl = <PyObject**>PyMem_Malloc(sizeof(PyObject*) * (n + 1))
        self.tmpl_objs = <PyObject**>PyMem_Malloc(sizeof(PyObject*) * (n + 1))
        self.tmpl_counts = <Py_ssize_t*>PyMem_Malloc(sizeof(Py_ssize_t) * (n + 1))
        self.dyn_fields = <Py_ssize_t*>PyMem_Malloc(sizeof(Py_ssize_t) * (n + 1))
        if self.tmpl == NULL or self.tmpl_objs == NULL or self.tmpl_counts == NULL or self.dyn_fields == NULL:
            raise MemoryError()
        self.ntmpl_objs = 0
        self.ndyn = 0
        for i in range(n):
            word = (self.offsets[i] - <Py_ssize_t>sizeof(PyObject)) // <Py_ssize_t>sizeof(void*)
            if self.dynamic[i]:
                self.tmpl[word] = NULL
                self.dyn_fields[self.ndyn] = i
                self.ndyn += 1
                continue
            z = self.zero_ptrs[i]
            self.tmpl[word] = z
            for j in range(self.ntmpl_objs):
                if self.tmpl_objs[j] == z:
                    self.tmpl_counts[j] += 1
                    break
            else:
                self.tmpl_objs[self.ntmpl_objs] = z
                self.tmpl_counts[self.ntmpl_objs] = 1
                self.ntmpl_objs += 1
        return 0

    cdef int _build_arrays(self) except -1:
        cdef Py_ssize_t i, n = len(self.fields)
        cdef int wire
        cdef FieldRow row
        self.nfields = n
        zeros = []
        self.offsets = <Py_ssize_t*>PyMem_Malloc(sizeof(Py_ssize_t) * (n + 1))
        self.zero_ptrs = <PyObject**>PyMem_Malloc(sizeof(PyObject*) * (n + 1))
        self.dynamic = <unsigned char*>PyMem_Malloc(n + 1)
        self.bynum_ptrs = <PyObject**>PyMem_Malloc(sizeof(PyObject*) * (self.nbynum + 1))
        if self.offsets == NULL or self.zero_ptrs == NULL or self.dynamic == NULL or self.bynum_ptrs == NULL:
            raise MemoryError()
        for i in range(n):
            row = self.fields[i]
            self.offsets[i] = row.offset
            # Struct values and mutable custom values need a fresh zero per instance.
            dyn = (not row.pointer) and (row.kind == K_STRUCT or (row.kind == K_CUSTOM and not row.shareable))
            self.dynamic[i] = 1 if dyn else 0
            zeros.append(None if dyn else row.zero())
        self._zeros = tuple(zeros)
        for i in range(n):
            self.zero_ptrs[i] = <PyObject*>self._zeros[i]
        self.bynum_c = <FieldC*>PyMem_Malloc(sizeof(FieldC) * (self.nbynum + 1))
        if self.bynum_c == NULL:
            raise MemoryError()
        self.npb = len(self.pb)
        self.pb_c = <FieldC*>PyMem_Malloc(sizeof(FieldC) * (self.npb + 1))
        if self.pb_c == NULL:
            raise MemoryError()
        for i in range(self.npb):
            fill_field_c(<FieldRow>self.pb[i], &self.pb_c[i])
        for i in range(self.nbynum):
            item = self._bynum[i]
            self.bynum_ptrs[i] = NULL if item is None else <PyObject*>item
            if item is None:
                self.bynum_c[i].row = NULL
            else:
                fill_field_c(<FieldRow>item, &self.bynum_c[i])
        memset(self.tag1, 0, sizeof(self.tag1))
        for i in range(1, min(self.nbynum, 16)):
            wire = self.bynum_c[i].wire
            if self.bynum_c[i].row != NULL and 0 <= wire <= 7 and wire != 4:
                self.tag1[(i << 3) | wire] = <unsigned char>i
        return 0

    def __dealloc__(self):
        PyMem_Free(self.tmpl)
        PyMem_Free(self.tmpl_objs)
        PyMem_Free(self.tmpl_counts)
        PyMem_Free(self.dyn_fields)
        PyMem_Free(self.offsets)
        PyMem_Free(self.zero_ptrs)
        PyMem_Free(self.dynamic)
        PyMem_Free(self.bynum_ptrs)
        PyMem_Free(self.bynum_c)
        PyMem_Free(self.pb_c)

    cdef PyObject* _sparse_ptr(self, unsigned long long num) noexcept:
        # PyDict_GetItem never raises; an int key cannot fail to hash.
        return PyDict_GetItem(self._bydict, num)

    cdef FieldRow by_number(self, unsigned long long num):
        cdef PyObject* p = self.field_ptr(num)
        if p == NULL:
            return None
        return <FieldRow>p

    cdef object new_zero(self):
        cdef PyObject* raw
        cdef PyObject* value
        cdef PyObject** pp
        cdef Py_ssize_t i
        if not self.direct:
            return self._new_zero_py()
        raw = KC_TP_ALLOC(self.cls)(<PyTypeObject*>self.cls, 0)
        if raw == NULL:
            raise MemoryError()
        obj = <object>raw
        Py_DECREF(obj)  # <object> took a second reference
        for i in range(self.nfields):
            pp = <PyObject**>((<char*>raw) + self.offsets[i])
            if self.dynamic[i]:
                dyn = (<FieldRow>self.fields[i]).zero()
                Py_INCREF(dyn)
                pp[0] = <PyObject*>dyn
            else:
                value = self.zero_ptrs[i]
                Py_INCREF(<object>value)
                pp[0] = value
        return obj

    cdef object new_zero_untracked(self):
        """new_zero() whose struct (and nested value structs) the collector does not track."""
        cdef PyObject* raw
        cdef PyObject* value
        cdef PyObject** pp
        cdef Py_ssize_t i, j
        if not self.direct:
            return self._new_zero_py()
        if self.bare_alloc:
            # Every word after the header is one of the fields: the object skips the
            # track/untrack round trip of tp_alloc and takes the zero template whole. Its
            # dynamic slots are NULL until filled, so a failure while making a nested zero
            # value frees a well-formed object.
            raw = kc_gc_new_untracked_raw(<PyTypeObject_*>self.cls)
            memcpy((<char*>raw) + sizeof(PyObject), self.tmpl, sizeof(PyObject*) * self.nfields)
            for j in range(self.ntmpl_objs):
                kc_incref_n(self.tmpl_objs[j], self.tmpl_counts[j])
            obj = <object>raw
            Py_DECREF(obj)  # <object> took a second reference
            for j in range(self.ndyn):
                i = self.dyn_fields[j]
                dyn = _dynamic_zero_untracked(<FieldRow>self.fields[i])
                Py_INCREF(dyn)
                (<PyObject**>((<char*>raw) + self.offsets[i]))[0] = <PyObject*>dyn
            return obj
        raw = KC_TP_ALLOC(self.cls)(<PyTypeObject*>self.cls, 0)
        if raw == NULL:
            raise MemoryError()
        obj = <object>raw
        Py_DECREF(obj)  # <object> took a second reference
        PyObject_GC_UnTrack(<void*>raw)
        for i in range(self.nfields):
            pp = <PyObject**>((<char*>raw) + self.offsets[i])
            if self.dynamic[i]:
                dyn = _dynamic_zero_untracked(<FieldRow>self.fields[i])
                Py_INCREF(dyn)
                pp[0] = <PyObject*>dyn
            else:
                value = self.zero_ptrs[i]
                Py_INCREF(<object>value)
                pp[0] = value
        return obj

    def __repr__(self):
        return f"Table({self.cls.__qualname__}, {len(self.fields)} fields, direct={self.direct})"


cdef inline object _dynamic_zero_untracked(FieldRow row):
    """A fresh zero value for a dynamic slot (a value struct, untracked, or a mutable
    custom value)."""
    if row.kind == K_STRUCT:
        return row.struct_table().new_zero_untracked()
    return row.zero()


cdef tuple _chain_rows(object cls, tuple chain, dict by_info):
    """FieldRows of an inline chain (``__kc_json__`` value): each hop lives in the previous
    hop's struct class."""
    cdef Table t
    out = [by_info[id(chain[0])]]
    owner = chain[0].cls
    for info in chain[1:]:
        t = table_of(owner)
        for row in t.fields:
            if (<FieldRow>row).info is info:
                out.append(row)
                break
        else:
            raise TypeError(f"{cls.__qualname__}: inline field {info.name!r} not found in {owner.__qualname__}")
        owner = info.cls
    return tuple(out)


cdef Table table_of(object cls):
    cdef PyObject* d
    cdef PyObject* p
    cdef PyObject* fields
    cdef Table t
    if not isinstance(cls, type):
        raise TypeError(f"expected a Struct class, got {type(cls).__name__}")
    d = KC_TP_DICT(cls)
    p = PyDict_GetItem(<object>d, _CTABLE)
    if p != NULL:
        fields = PyDict_GetItem(<object>d, _FIELDS)
        if fields != NULL and (<Table>p).src_fields is <object>fields:
            return <Table>p
    if not cls.__dict__.get("__kc_compiled__"):
        _compile(cls)
    t = Table(cls)
    type.__setattr__(cls, _CTABLE, t)
    return t


cdef bint is_zero_value(TypeRow t, object v) except -1:
    cdef int k
    cdef Table tab
    cdef bint direct
    cdef FieldRow g
    if v is None:
        return True
    if t.pointer:
        return False
    k = t.kind
    if k <= K_FLOAT:
        return not v
    if k == K_STRUCT:
        tab = table_of(type(v))
        direct = tab.owns(v)
        for g in tab.fields:
            if not is_zero_value(g, get_field(v, g, direct)):
                return False
        return True
    if k == K_CUSTOM:
        return bool(v._is_zero())
    return False


cdef void fill_field_c(FieldRow row, FieldC* out) noexcept:
    out.row = <PyObject*>row
    out.json = <PyObject*>row.json
    out.offset = row.offset
    out.kind = row.kind
    out.wire = row.wire
    out.pointer = row.pointer
    out.wrapped = row.wrapped
    out.inline_ = row.inline
    cdef Py_ssize_t n = len(row.pbkey)
    if n > 6:
        n = 0
    out.keylen = <int>n
    if n:
        memcpy(out.key, <char*>row.pbkey, n)
    if row.elem is not None:
        out.elem_kind = row.elem.kind
        out.elem_wire = row.elem.wire
    else:
        out.elem_kind = -1
        out.elem_wire = -1


# Untracked decoded objects
# --------------------------
# Decoders build large trees of fresh structs, lists and dicts. Left tracked, the cycle
# collector traverses every one of them at least three times as they age through its
# generations (one traversal of a decoded 1000-Pod list costs about as much as decoding
# it). Untracking them is memory-safe: an untracked object is simply never examined by
# the collector; references it holds count as external references, so nothing reachable
# from it can be freed early, and reference counting still frees the tree normally
# (every dealloc path tolerates an untracked object). The one consequence is that a
# reference cycle running through an untracked object is never collected. A decoded tree
# has no cycles; one could only appear if user code later stores an ancestor inside a
# decoded struct, list or dict, which for these typed Go structs means breaking their
# field types (CPython takes the same stance when it untracks tuples and dicts that hold
# only atomic values). Only objects a decoder creates are untracked, never the object a
# caller passes in, so a caller-owned root stays tracked and collectable.

cdef void untrack(object container) noexcept:
    if PyObject_IS_GC(container):
        PyObject_GC_UnTrack(<void*>container)


cdef Py_ssize_t _gc_depth = 0
cdef bint _gc_was_enabled = False


cdef int gc_pause() except -1:
    global _gc_depth, _gc_was_enabled
    if _gc_depth == 0:
        _gc_was_enabled = PyGC_Disable()
    _gc_depth += 1
    return 0


cdef int gc_resume() except -1:
    global _gc_depth
    if _gc_depth <= 0:
        return 0
    _gc_depth -= 1
    if _gc_depth == 0 and _gc_was_enabled:
        PyGC_Enable()
    return 0


def _table(cls):
    """The compiled table of ``cls`` (for tests and debugging)."""
    return table_of(cls)


def _new_zero(cls):
    """``table_of(cls).new_zero()`` (for tests: must equal ``cls._new_zero()``)."""
    return table_of(cls).new_zero()
