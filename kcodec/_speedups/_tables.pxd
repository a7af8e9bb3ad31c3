# cython: language_level=3
"""Compiled field tables and fast object construction shared by the Cython kernels.

API (stable; ``cimport`` it as ``from kcodec._speedups._tables cimport ...``):

``Table table_of(object cls)``
    The compiled table of a Struct class (compiles the class through ``kcodec.model`` first
    when needed). Cached on the class as ``cls.__kc_ctable__``; rebuilt when the class's
    ``__kc_fields__`` tuple is replaced.

``Table``: ``cls``, ``fields`` (FieldRow tuple, declaration order == ``__kc_fields__``),
    ``pb`` (FieldRow tuple by proto number == ``__kc_pb__``), ``json`` (dict json key ->
    tuple of FieldRow, the inline chain == ``__kc_json__``), ``proto_ok``, ``direct`` (every
    field has a slot offset and instances can be allocated without Python calls),
    ``by_number(num)`` (FieldRow or None), ``new_zero()`` (== ``cls._new_zero()``),
    ``owns(obj)`` (True when the slot offsets of this table may be used on ``obj``: its type
    is exactly ``cls``; anything else must go through get_field/set_field with
    ``direct=False``, i.e. getattr / ``object.__setattr__``).

``TypeRow`` (a list/map element, or the type part of a FieldRow): ``kind`` (K_* below),
    ``wire`` (protobuf wire type of one value), ``pointer``, ``wrapped``, ``cls`` (nested
    Struct/CustomValue class or None), ``elem`` (TypeRow or None), ``info`` (the
    ``kcodec.model.TypeInfo`` mirrored: use ``info.go_name()`` in error texts),
    ``shareable`` (K_CUSTOM whose instances are immutable, ``deep_copy()`` returning self:
    equal values may be shared between objects), ``struct_table()`` (the Table of ``cls``
    for K_STRUCT, resolved lazily so recursive types work), ``zero()`` (the Go zero value,
    == ``model._zero_of(info)``; shared for shareable customs), ``elem_scalar`` (the element
    kind is <= K_FLOAT).

``FieldRow(TypeRow)``: ``name``, ``json``, ``number``, ``omitempty``, ``omitzero``,
    ``inline``, ``offset`` (byte offset of the slot in instances of the owning class, -1
    when the attribute is not a plain slot), ``pbkey`` (bytes of the protobuf tag
    ``number << 3 | wire`` for a non-list field; for an unwrapped list the element's tag).

``get_field(obj, f, direct)`` / ``set_field(obj, f, value, direct)``
    Read / write one field: a direct slot access when ``direct`` (pass ``table.owns(obj)``)
    and the field has an offset, else ``getattr`` / ``object.__setattr__`` (so errors are
    Python's own). get_field on an unset slot falls back to getattr (AttributeError).

``slot_get(obj, offset, name)`` / ``slot_set(obj, offset, name, value, setter)``
    The same by byte offset and attribute name, for kernels with tables of their own
    (offset < 0: ``getattr`` / ``setter(obj, name, value)``).

``StrCache`` with ``strcache_init`` / ``strcache_ascii`` / ``strcache_clear``: the
    per-call cache decoders share equal short ASCII strings through (a direct-mapped
    table: a collision replaces the entry, so its size is bounded by the input's).

``bint is_zero_value(TypeRow t, object v) except -1``: ``model._is_zero_value``.

``Table.field_ptr(num)``: borrowed ``PyObject*`` of the FieldRow for ``num`` or NULL (the
    refcount-free by_number for decode loops).

``Table.field_c(num, &scratch)``: the packed ``FieldC`` of the row for ``num`` (NULL when
    absent); hot fields of a row in one struct. ``Table.pb_c[0:npb]``: the rows of ``pb``
    packed. ``fill_field_c(row, &out)`` packs a row.
``Table.tag1[b]``: for a one-byte protobuf tag ``b`` (< 0x80) of a field present with its
    own wire type, the field's number (its ``bynum_c`` index); 0 otherwise.

``Table.copy_plan``: a slot for ``_convert``'s deep copy plan of the table (None until built).

``Table.new_zero_untracked()`` / ``untrack(container)``: decoders build trees the cycle
    collector need not track; see "Untracked decoded objects" in ``_tables.pyx`` for why
    that is safe and when to use it (never on objects the caller passed in). Tables whose
    fields cover every slot (``bare_alloc``) build them from a template of zero slots.

``kc_gc_new_untracked(tp)`` / ``kc_list_new_untracked(n)`` (C): a new untracked GC object
    with its words after the header zero / an empty untracked list with room for ``n``
    items; allocated directly on CPython 3.11-3.13 GIL builds (``KC_BARE_GC_ALLOC``).

``gc_pause()`` / ``gc_resume()``: bracket a kernel that builds many objects (``try:
    gc_pause() ... finally: gc_resume()``). Nesting- and thread-safe (a counter under the
    GIL): the collector is disabled while any bracket is open and re-enabled afterwards
    only if it was enabled when the outermost bracket opened.

Kind codes and wire types below equal ``kcodec._kinds`` (checked when _tables is imported).
"""
from cpython.object cimport PyObject


cdef enum:
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

cdef enum:
    WT_VARINT = 0
    WT_FIXED64 = 1
    WT_BYTES = 2


from cpython.mem cimport PyMem_Calloc, PyMem_Free
from libc.stdint cimport uint64_t
from libc.string cimport memcpy


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define kc_prefetch(p) __builtin_prefetch((const void*)(p))
    #else
    #define kc_prefetch(p) ((void)0)
    #endif
    """
    # A hint that the object at ``p`` is needed soon: kernels walking decoded trees ask
    # for many objects at once, so their cache misses overlap instead of queueing.
    void kc_prefetch(const void* p) noexcept nogil


cdef extern from "Python.h":
    void Py_INCREF(object o)
    void Py_XDECREF(PyObject* o)
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void* PyUnicode_DATA(object u)


cdef extern from *:
    """
    #include <string.h>
    /* Decoders allocate hundreds of thousands of structs and lists that are never tracked
       by the cycle collector. On CPython 3.11-3.13 (GIL builds) a GC object without a
       managed dict or weakref (the lean struct layout; lists) is preceded by two header
       words, both zero while untracked: such an object is allocated here directly, as
       _PyObject_GC_New does minus linking it into the young generation's count (it is
       never tracked, and decoders pause the collector anyway). PyObject_GC_Del, every
       such type's tp_free, frees it like any other. Elsewhere _PyObject_GC_New does it. */
    #if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030E0000 \
        && !defined(Py_GIL_DISABLED) && !defined(Py_TRACE_REFS)
    #define KC_BARE_GC_ALLOC 1
    #else
    #define KC_BARE_GC_ALLOC 0
    #endif

    /* PyObject_Init of a fresh block. Before 3.13 (which added reference tracers to
       _Py_NewReference) and outside debug builds (which count references) that is the
       type, a reference to a heap type and a count of one: stored inline. tracemalloc
       already traced the block when PyObject_Malloc made it. */
    static inline PyObject *kc_object_init(PyObject *op, PyTypeObject *tp)
    {
    #if PY_VERSION_HEX < 0x030D0000 && !defined(Py_REF_DEBUG)
        Py_SET_TYPE(op, tp);
        if (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) {
            Py_INCREF((PyObject *)tp);
        }
        Py_SET_REFCNT(op, 1);
        return op;
    #else
        return PyObject_Init(op, tp);
    #endif
    }

    /* A new, untracked instance of GC type tp whose words after the object header are
       left for the caller to set (every one of them, before anything can fail). */
    static inline PyObject *kc_gc_new_untracked_raw(PyTypeObject *tp)
    {
    #if KC_BARE_GC_ALLOC
        size_t pre = 2 * sizeof(void *);
        char *mem = (char *)PyObject_Malloc(pre + (size_t)tp->tp_basicsize);
        if (mem == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        memset(mem, 0, pre);
        return kc_object_init((PyObject *)(mem + pre), tp);
    #else
        return _PyObject_GC_New(tp);
    #endif
    }

    /* n more references to o at once (Py_INCREF n times; immortal objects are left be). */
    static inline void kc_incref_n(PyObject *o, Py_ssize_t n)
    {
    #if PY_VERSION_HEX >= 0x030C0000
        if (_Py_IsImmortal(o)) {
            return;
        }
    #endif
        Py_SET_REFCNT(o, Py_REFCNT(o) + n);
    }

    /* A new, untracked instance of GC type tp with every word after its header zero. */
    static inline PyObject *kc_gc_new_untracked(PyTypeObject *tp)
    {
        PyObject *op;
    #if KC_BARE_GC_ALLOC
        size_t pre = 2 * sizeof(void *);
        char *mem = (char *)PyObject_Malloc(pre + (size_t)tp->tp_basicsize);
        if (mem == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        memset(mem, 0, pre + (size_t)tp->tp_basicsize);
        op = kc_object_init((PyObject *)(mem + pre), tp);
    #else
        op = _PyObject_GC_New(tp);
        if (op != NULL) {
            memset((char *)op + sizeof(PyObject), 0, (size_t)tp->tp_basicsize - sizeof(PyObject));
        }
    #endif
        return op;
    }

    /* A new, untracked, empty list whose items array has room for n (> 0) items. */
    static inline PyObject *kc_list_new_untracked(Py_ssize_t n)
    {
        PyObject *op;
        PyObject **items;
        if ((size_t)n > (size_t)PY_SSIZE_T_MAX / sizeof(PyObject *)) {
            return PyErr_NoMemory();
        }
    #if KC_BARE_GC_ALLOC
        op = kc_gc_new_untracked(&PyList_Type);
        if (op == NULL) {
            return NULL;
        }
        /* Only the first Py_SIZE items are ever read: the room needs no clearing. */
        items = (PyObject **)PyMem_Malloc((size_t)n * sizeof(PyObject *));
        if (items == NULL) {
            Py_DECREF(op);
            return PyErr_NoMemory();
        }
        ((PyListObject *)op)->ob_item = items;
        ((PyListObject *)op)->allocated = n;
    #else
        op = PyList_New(n);
        if (op == NULL) {
            return NULL;
        }
        Py_SET_SIZE((PyVarObject *)op, 0);
        PyObject_GC_UnTrack(op);
    #endif
        return op;
    }
    """
    ctypedef struct PyTypeObject_ "PyTypeObject":
        pass
    PyObject* kc_gc_new_untracked(PyTypeObject_* tp) except NULL
    PyObject* kc_gc_new_untracked_raw(PyTypeObject_* tp) except NULL
    void kc_incref_n(PyObject* o, Py_ssize_t n) noexcept
    object kc_list_new_untracked(Py_ssize_t n)


cdef class Table


cdef struct FieldC:
    # Packed hot data of one FieldRow, for decode loops: one cache line instead of a
    # Python object spread over several. Pointers are borrowed from the row.
    PyObject* row        # the FieldRow; NULL: no field has this number
    PyObject* json       # row.json
    Py_ssize_t offset    # row.offset
    int kind
    int wire
    bint pointer
    bint wrapped
    bint inline_
    int elem_kind        # -1 without element
    int elem_wire
    unsigned char key[6] # row.pbkey (protobuf tag bytes; numbers < 2**29 fit)
    int keylen


cdef class TypeRow:
    cdef readonly int kind
    cdef readonly int wire
    cdef readonly bint pointer
    cdef readonly bint wrapped
    cdef readonly bint shareable
    cdef readonly bint elem_scalar
    cdef readonly object cls
    cdef readonly TypeRow elem
    cdef readonly object info
    cdef object _zero_shared
    cdef Table _table
    # K_CUSTOM whose class opts in to the compiled Timestamp (``_KC_PB_TIME_UNIT`` in its
    # own __dict__): that unit, and the slot offsets of ``_sec``/``_nsec`` (-1 when they
    # are not plain slots); pb_time_unit is -1 for every other row.
    cdef readonly long long pb_time_unit
    cdef readonly Py_ssize_t sec_offset
    cdef readonly Py_ssize_t nsec_offset

    cdef inline Table struct_table(self):
        # Inline where it is used (once per decoded struct): only the first use resolves.
        if self._table is not None:
            return self._table
        return self._resolve_table()
    cdef Table _resolve_table(self)
    cdef object zero(self)


cdef class FieldRow(TypeRow):
    cdef readonly str name
    cdef readonly str json
    cdef readonly int number
    cdef readonly bint omitempty
    cdef readonly bint omitzero
    cdef readonly bint inline
    cdef readonly Py_ssize_t offset
    cdef readonly bytes pbkey


cdef class Table:
    cdef readonly object cls
    cdef readonly tuple fields
    cdef readonly tuple pb
    cdef readonly dict json
    cdef readonly bint proto_ok
    cdef readonly bint direct
    cdef readonly bint lean_dealloc
    cdef readonly bint bare_alloc
    cdef readonly tuple src_fields
    cdef Py_ssize_t nbynum
    cdef list _bynum
    cdef dict _bydict
    cdef object _new_zero_py
    # Owned by kcodec._speedups._convert: deep_copy's per-slot plan for this table, built
    # on the first copy of an instance (None until then). A new Table gets a new plan.
    cdef object copy_plan

    cdef FieldRow by_number(self, unsigned long long num)
    cdef object new_zero(self)
    cdef inline bint owns(self, object obj) noexcept:
        return type(obj) is self.cls
    # C mirrors of the rows for the hot loops (borrowed pointers kept alive by the tuples).
    cdef tuple _zeros
    cdef Py_ssize_t nfields
    cdef Py_ssize_t* offsets
    cdef PyObject** zero_ptrs
    cdef unsigned char* dynamic
    cdef PyObject** bynum_ptrs

    cdef inline PyObject* field_ptr(self, unsigned long long num) noexcept:
        """Borrowed FieldRow for proto number ``num``, or NULL (by_number without refcounts)."""
        if num < <unsigned long long>self.nbynum:
            return self.bynum_ptrs[num]
        if self.nbynum:
            return NULL
        return self._sparse_ptr(num)
    cdef PyObject* _sparse_ptr(self, unsigned long long num) noexcept
    cdef FieldC* bynum_c   # nbynum entries indexed by proto number
    # One-byte tags (fields 1-15) of a field present with its own wire type: tag -> the
    # field's number (its bynum_c index), 0 for every other byte (read the general way).
    cdef unsigned char tag1[128]
    cdef FieldC* pb_c      # the rows of ``pb`` (proto number order), packed
    cdef Py_ssize_t npb
    cdef object new_zero_untracked(self)
    # bare_alloc tables: the slot words of a zero instance (NULL where a fresh dynamic value
    # goes), the distinct shared zero values with how many slots hold each, and the field
    # indices of the dynamic slots. See _build_template in _tables.pyx.
    cdef PyObject** tmpl
    cdef PyObject** tmpl_objs
    cdef Py_ssize_t* tmpl_counts
    cdef Py_ssize_t ntmpl_objs
    cdef Py_ssize_t* dyn_fields
    cdef Py_ssize_t ndyn
    cdef int _build_template(self) except -1

    cdef inline const FieldC* field_c(self, unsigned long long num, FieldC* scratch) noexcept:
        """Packed row for ``num`` or NULL; sparse tables fill ``scratch``."""
        cdef PyObject* p
        if num < <unsigned long long>self.nbynum:
            if self.bynum_c[num].row == NULL:
                return NULL
            return &self.bynum_c[num]
        if self.nbynum:
            return NULL
        p = self._sparse_ptr(num)
        if p == NULL:
            return NULL
        fill_field_c(<FieldRow>p, scratch)
        return scratch
    cdef int _build_arrays(self) except -1


cdef Table table_of(object cls)
cdef bint is_zero_value(TypeRow t, object v) except -1
cdef int gc_pause() except -1
cdef void fill_field_c(FieldRow row, FieldC* out) noexcept
cdef void untrack(object container) noexcept
cdef int gc_resume() except -1
cdef int generic_setattr(object obj, str name, object value) except -1
cdef object new_time(object cls, long long sec, long long nsec)
cdef int time_frac_for(object tp) except -2
cdef object time_from_text(object cls, object v)


cdef inline int check_scalar(int k, object v) except -1:
    """TypeError unless ``v`` is a value of scalar kind ``k`` as the checked setters keep
    it (an int for an integer field...). Encoders meet anything else only past those
    checks (``object.__setattr__``); the caller's EncodeError then names the field."""
    cdef object tp = type(v)
    if k == K_STR:
        if tp is str or isinstance(v, str):
            return 0
    elif k == K_INT32 or k == K_INT64:
        if tp is int or (isinstance(v, int) and tp is not bool):
            return 0
    elif k == K_BOOL:
        if tp is bool:
            return 0
    elif k == K_FLOAT:
        if tp is float or tp is int or (isinstance(v, (int, float)) and tp is not bool):
            return 0
    else:
        return 0
    raise TypeError(f"cannot encode a {type(v).__name__} value as kind {k}")


cdef inline object slot_get(object obj, Py_ssize_t offset, str name):
    cdef PyObject* p
    if offset >= 0:
        p = (<PyObject**>((<char*><PyObject*>obj) + offset))[0]
        if p != NULL:
            return <object>p
    return getattr(obj, name)


cdef inline int slot_set(object obj, Py_ssize_t offset, str name, object value,
                         object setter) except -1:
    cdef PyObject** pp
    cdef PyObject* old
    if offset >= 0:
        pp = <PyObject**>((<char*><PyObject*>obj) + offset)
        old = pp[0]
        Py_INCREF(value)
        pp[0] = <PyObject*>value
        Py_XDECREF(old)
        return 0
    setter(obj, name, value)
    return 0


cdef inline object get_field(object obj, FieldRow f, bint direct):
    return slot_get(obj, f.offset if direct else -1, f.name)


cdef inline int set_field(object obj, FieldRow f, object value, bint direct) except -1:
    if direct and f.offset >= 0:
        return slot_set(obj, f.offset, f.name, value, None)
    return generic_setattr(obj, f.name, value)


cdef struct StrCache:
    PyObject** tab
    Py_ssize_t mask


cdef inline int strcache_init(StrCache* c, Py_ssize_t input_size) except -1:
    """Size the table for an input of ``input_size`` bytes (256 to 16384 entries)."""
    cdef Py_ssize_t n = 256
    while n < input_size // 32 and n < 16384:
        n *= 2
    c.tab = <PyObject**>PyMem_Calloc(n, sizeof(PyObject*))
    if c.tab == NULL:
        raise MemoryError()
    c.mask = n - 1
    return 0


cdef inline void strcache_clear(StrCache* c) noexcept:
    cdef Py_ssize_t i
    if c.tab != NULL:
        for i in range(c.mask + 1):
            Py_XDECREF(c.tab[i])
        PyMem_Free(c.tab)
        c.tab = NULL


cdef extern from *:
    """
    #include <string.h>
    #include <stdint.h>
    /* Equality of two short byte runs of length n, by overlapping word loads that stay
       inside [0, n) of both: cheaper than a memcmp call for the keys and values that
       decoders meet (mostly under 32 bytes). */
    static inline int kc_same_bytes(const unsigned char *a, const unsigned char *b, Py_ssize_t n)
    {
        uint64_t x, y;
        uint32_t p, q;
        Py_ssize_t i;
        if (n >= 8) {
            for (i = 0; i + 8 < n; i += 8) {
                memcpy(&x, a + i, 8);
                memcpy(&y, b + i, 8);
                if (x != y) {
                    return 0;
                }
            }
            memcpy(&x, a + n - 8, 8);
            memcpy(&y, b + n - 8, 8);
            return x == y;
        }
        if (n >= 4) {
            memcpy(&p, a, 4);
            memcpy(&q, b, 4);
            if (p != q) {
                return 0;
            }
            memcpy(&p, a + n - 4, 4);
            memcpy(&q, b + n - 4, 4);
            return p == q;
        }
        for (i = 0; i < n; i++) {
            if (a[i] != b[i]) {
                return 0;
            }
        }
        return 1;
    }
    """
    bint kc_same_bytes(const unsigned char* a, const unsigned char* b, Py_ssize_t n) noexcept nogil
    Py_ssize_t _kc_ulen "PyUnicode_GET_LENGTH"(PyObject* o)
    void* _kc_udata "PyUnicode_DATA"(PyObject* o)


cdef inline object strcache_ascii(StrCache* c, const unsigned char* s, Py_ssize_t n, uint64_t h):
    """The str of the ASCII bytes ``s[0:n]`` (``h`` their hash): the cached one when equal,
    else a new one that replaces the entry."""
    cdef Py_ssize_t slot = <Py_ssize_t>(h & <uint64_t>c.mask)
    cdef PyObject* cur = c.tab[slot]
    if cur != NULL and _kc_ulen(cur) == n \
            and kc_same_bytes(<const unsigned char*>_kc_udata(cur), s, n):
        return <object>cur
    u = PyUnicode_New(n, 127)
    memcpy(PyUnicode_DATA(u), s, n)
    Py_INCREF(u)
    c.tab[slot] = <PyObject*>u
    Py_XDECREF(cur)
    return u
