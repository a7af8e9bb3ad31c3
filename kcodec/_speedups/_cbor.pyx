# cython: language_level=3
"""Compiled twins of the CBOR kernels of ``kcodec._native.cbor``.

``cbor_encode`` walks the compiled tables of ``_tables`` with a per-class plan of the fields
in Go's key order (encoded key bytes sorted bytewise) and writes into one growable buffer;
``cbor_item_end`` is the well-formedness scan in C (an explicit stack, Go's limits);
``cbor_fill`` runs that scan, then fills the object through a ``const unsigned char*`` on
the shapes Go writes: definite lengths, byte/text strings, keys in Go's order. Anything
else (indefinite lengths, tags, keys out of order -- where duplicates could hide --, type
mismatches, invalid UTF-8) makes it start over in the pure walker, which decides the
outcome and raises Go's error texts with their paths; a fill repeated over a partly filled
object gives the same result, since every field it reaches is overwritten or merged with
the same values.

Deliberate differences from the pure walkers, invisible to ``==``: custom values
(Time, Quantity, IntOrString, FieldsV1...) are decoded once per distinct encoded item per
call (immutable ones shared, mutable ones deep-copied) and encoded once per value object
per call; decoded structs are untracked by the cycle collector, which is paused during the
fill (see ``_tables.pyx``); equal short ASCII strings of one document are one str object.
``cbor_loads`` (Unstructured content, Go's decode into interface{}) runs the scan, then a C
walker over the buffer that builds the tree and raises what the pure ``_Dec.any`` raises
(overflowing integers, invalid UTF-8, duplicate and non-string keys), in the same order;
``cbor_encode_tree`` writes exact str/dict/list/tuple/int/float/bool/None in C (map keys
sorted by their encoded bytes, shorter first, ties in dict order as the pure stable sort
keeps them) and hands any other value to the pure ``_put_tree`` at the same depth. Both
count one recursion level per container, as the pure walkers' frames do, so deep nesting
ends in the same "exceeded max nested level" error. ``cbor_type_meta`` walks the top-level
map in C and falls back to the pure walker on any other shape.
"""
from libc.stdint cimport uint64_t, int64_t, uint32_t, uint16_t
from libc.string cimport memcpy, memmove, memcmp
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.math cimport INFINITY, NAN, ldexp, frexp, signbit
from cpython.object cimport PyObject
from kcodec._speedups._bytebuf cimport bytebuf_free, bytebuf_grow, bytebuf_new, bytebuf_take
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE, PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_DecodeUTF8
from cpython.long cimport PyLong_FromUnsignedLongLong, PyLong_FromLongLong, PyLong_FromVoidPtr
from cpython.list cimport PyList_Append
from cpython.dict cimport PyDict_GetItem, PyDict_SetItem, PyDict_Contains
from cpython.float cimport PyFloat_FromDouble
from kcodec._speedups._tables cimport (
    kc_prefetch, Table, TypeRow, FieldRow, table_of, is_zero_value, gc_pause, gc_resume, untrack,
    StrCache, strcache_init, strcache_ascii, strcache_clear, slot_get, slot_set, get_field,
    K_STR, K_BOOL, K_INT32, K_INT64, K_FLOAT, K_BYTES, K_STRUCT, K_CUSTOM, K_LIST, K_MAP, K_ANY,
)

import base64 as _base64
import binascii as _binascii

from kcodec import fieldtable as _m
from kcodec.fieldtable import RawJSON as _RawJSON
from kcodec.gojson import dumps as _gojson_dumps, loads as _gojson_loads
from kcodec.errors import DecodeError, EncodeError
# fxamacker/cbor prints a duplicate key with %#v: strconv.Quote's form.
from kcodec.gofmt import quote as _gofmt_quote

__all__ = ["cbor_encode", "cbor_encode_tree", "cbor_fill", "cbor_loads", "cbor_item_end", "cbor_type_meta"]


cdef extern from "Python.h":
    int _PyBytes_Resize(PyObject** bytes, Py_ssize_t newsize) except -1
    bint PyUnicode_IS_ASCII(object u)
    Py_ssize_t PyUnicode_GET_LENGTH(object u)
    void* PyUnicode_DATA(object u)
    object PyUnicode_AsEncodedString(object u, const char* encoding, const char* errors)
    long long PyLong_AsLongLongAndOverflow(object v, int* overflow) except? -1
    double PyFloat_AS_DOUBLE(object v)
    int PyDict_Next(object d, Py_ssize_t* pos, PyObject** key, PyObject** value)
    int PyUnicode_Compare(object a, object b) except? -1
    int Py_EnterRecursiveCall(const char* where) noexcept
    void Py_LeaveRecursiveCall()
    object PyList_New(Py_ssize_t n)
    void PyList_SET_ITEM(object lst, Py_ssize_t i, object x)
    void Py_INCREF(object o)


cdef inline int _enter(const char* where) except -1:
    """Py_EnterRecursiveCall, whose failure is a nonzero return (1) with RecursionError set."""
    if Py_EnterRecursiveCall(where):
        return -1
    return 0


cdef int MAX_NESTED_LEVELS = 10000
cdef uint64_t MAX_ARRAY_ELEMENTS = 2147483647
cdef uint64_t MAX_MAP_PAIRS = 2097152
cdef object _object_setattr = object.__setattr__
# fxamacker/cbor's cborType names (decode.go, cborType.String()), as the pure twin's
# _TYPE_NAMES: error texts name the major type with them.
cdef tuple _TYPE_NAMES = ("positive integer", "negative integer", "byte string", "UTF-8 text string",
                          "array", "map", "tag", "primitives")
# Tag 55799, self-described CBOR (the pure twin's SELF_DESCRIBED).
cdef bytes _SELF_DESCRIBED = b"\xd9\xd9\xf7"

# The pure twin (kcodec._native.cbor), imported on first need: it writes and reads the rare
# shapes this module hands it (floats in typed fields, untyped values, tagged custom items,
# map keys that are not ASCII) and words the errors, so compiled mode never loads it for
# ordinary objects.
cdef object _pure_mod = None


cdef object _twin():
    global _pure_mod
    if _pure_mod is None:
        from kcodec._native import cbor
        _pure_mod = cbor
    return _pure_mod


cdef object _PureDec(object data, Py_ssize_t pos, object strict, object transcode):
    """A decoder of the pure twin (its ``_Dec``) at ``pos``."""
    return _twin()._Dec(data, pos, strict, transcode)


cdef bytes _head_bytes(int major, uint64_t n):
    """The pure twin's ``_head``: a CBOR head as bytes (for the key rows of a plan)."""
    cdef int m = major << 5
    if n < 24:
        return bytes((m | <int>n,))
    if n < 0x100:
        return bytes((m | 24, <int>n))
    if n < 0x10000:
        return bytes((m | 25,)) + (<object>n).to_bytes(2, "big")
    if n < 0x100000000:
        return bytes((m | 26,)) + (<object>n).to_bytes(4, "big")
    return bytes((m | 27,)) + (<object>n).to_bytes(8, "big")


cdef object _custom_from_tree(object cls, object tree, str path):
    """The pure twin's ``_custom`` at the top of a value: a scalar (a Quantity's or a Time's
    text) is the class's JSON form as it is; a map or a list (FieldsV1) is re-encoded as
    JSON first, as Go's transcodeRawTypes has encoding/json do (map keys sorted)."""
    if type(tree) is dict or type(tree) is list:
        try:
            text = _gojson_dumps(tree, sort_keys=True)
        except (ValueError, TypeError) as exc:
            raise DecodeError(f"cbor: cannot transcode {path} to JSON: {exc}") from None
        return cls._from_tree(_RawJSON(text), path)
    return cls._from_tree(tree, path)
cdef object _b64decode = _base64.b64decode


class _Fallback(Exception):
    """The compiled fill met a shape it leaves to the pure walker."""


# ============================================================================ writer


cdef struct _IdEnt:
    void* key         # the value object's address (NULL: free)
    PyObject* enc     # its encoded bytes, borrowed (kept alive by _Writer.keep)


cdef class _Writer:
    """A growable output buffer: the result bytes object itself, trimmed at the end."""
    cdef PyObject* out
    cdef unsigned char* buf
    cdef Py_ssize_t n
    cdef Py_ssize_t cap
    cdef dict custom  # (type, raw) -> (value, encoded bytes) for FieldsV1-like values
    # Immutable custom values (Time, Quantity, IntOrString), encoded once per value object
    # per call: an open-addressing table keyed by address (a PodList(1000) meets ~90000 of
    # them; a dict keyed by id() cost an int object and a lookup each).
    cdef _IdEnt* ids
    cdef Py_ssize_t ids_mask
    cdef Py_ssize_t ids_used
    cdef list keep    # (value, bytes) of every ids entry: alive, so no address is reused

    cdef PyObject* id_get(self, void* key) noexcept:
        cdef size_t h
        if self.ids == NULL:
            return NULL
        h = ((<size_t>key) >> 4) * <size_t>0x9E3779B97F4A7C15
        h = (h >> 20) & <size_t>self.ids_mask
        while self.ids[h].key != NULL:
            if self.ids[h].key == key:
                return self.ids[h].enc
            h = (h + 1) & <size_t>self.ids_mask
        return NULL

    cdef int id_put(self, object v, bytes b) except -1:
        cdef Py_ssize_t i, size
        cdef _IdEnt* old
        cdef Py_ssize_t oldn
        cdef size_t h
        if self.ids == NULL or (self.ids_used + 1) * 2 > self.ids_mask + 1:
            old = self.ids
            oldn = 0 if old == NULL else self.ids_mask + 1
            size = 256 if oldn == 0 else oldn * 2
            self.ids = <_IdEnt*>calloc(size, sizeof(_IdEnt))
            if self.ids == NULL:
                self.ids = old
                raise MemoryError()
            self.ids_mask = size - 1
            for i in range(oldn):
                if old[i].key != NULL:
                    h = ((<size_t>old[i].key) >> 4) * <size_t>0x9E3779B97F4A7C15
                    h = (h >> 20) & <size_t>self.ids_mask
                    while self.ids[h].key != NULL:
                        h = (h + 1) & <size_t>self.ids_mask
                    self.ids[h] = old[i]
            free(old)
        self.keep.append((v, b))
        h = ((<size_t><PyObject*>v) >> 4) * <size_t>0x9E3779B97F4A7C15
        h = (h >> 20) & <size_t>self.ids_mask
        while self.ids[h].key != NULL:
            h = (h + 1) & <size_t>self.ids_mask
        self.ids[h].key = <void*><PyObject*>v
        self.ids[h].enc = <PyObject*>b
        self.ids_used += 1
        return 0

    def __cinit__(self, Py_ssize_t size):
        bytebuf_new(&self.out, <char**>&self.buf, &self.cap, size if size > 256 else 256)
        self.n = 0
        self.custom = {}
        self.keep = []

    def __dealloc__(self):
        free(self.ids)
        self.ids = NULL
        bytebuf_free(&self.out)

    cdef int grow(self, Py_ssize_t extra) except -1:
        return bytebuf_grow(&self.out, <char**>&self.buf, &self.cap, self.n + extra)

    cdef inline int put_byte(self, unsigned char b) except -1:
        if self.n + 1 > self.cap:
            self.grow(1)
        self.buf[self.n] = b
        self.n += 1
        return 0

    cdef inline int put_raw(self, const void* data, Py_ssize_t size) except -1:
        if self.n + size > self.cap:
            self.grow(size)
        memcpy(self.buf + self.n, data, size)
        self.n += size
        return 0

    cdef inline int put_head(self, unsigned char major, uint64_t v) except -1:
        cdef unsigned char m = major << 5
        cdef unsigned char* p
        cdef int i
        if self.n + 9 > self.cap:
            self.grow(9)
        p = self.buf + self.n
        if v < 24:
            p[0] = m | <unsigned char>v
            self.n += 1
        elif v < 0x100:
            p[0] = m | 24
            p[1] = <unsigned char>v
            self.n += 2
        elif v < 0x10000:
            p[0] = m | 25
            p[1] = <unsigned char>(v >> 8)
            p[2] = <unsigned char>v
            self.n += 3
        elif v < 0x100000000:
            p[0] = m | 26
            p[1] = <unsigned char>(v >> 24)
            p[2] = <unsigned char>(v >> 16)
            p[3] = <unsigned char>(v >> 8)
            p[4] = <unsigned char>v
            self.n += 5
        else:
            p[0] = m | 27
            for i in range(8):
                p[1 + i] = <unsigned char>(v >> (56 - 8 * i))
            self.n += 9
        return 0

    cdef bytes result(self):
        return <bytes>bytebuf_take(&self.out, self.n)


cdef extern from "Python.h":
    void Py_XDECREF_ "Py_XDECREF"(PyObject* o)


cdef int _put_str(_Writer w, object v) except -1:
    cdef Py_ssize_t n
    if type(v) is str and PyUnicode_IS_ASCII(v):
        n = PyUnicode_GET_LENGTH(v)
        w.put_head(2, <uint64_t>n)
        return w.put_raw(PyUnicode_DATA(v), n)
    if type(v) is str:
        b = PyUnicode_AsEncodedString(v, "utf-8", "surrogateescape")
    else:
        b = _twin()._str_bytes(v)
    w.put_head(2, <uint64_t>PyBytes_GET_SIZE(b))
    return w.put_raw(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b))


cdef int _put_int(_Writer w, object v) except -1:
    cdef int overflow = 0
    cdef long long x
    if type(v) is int or type(v) is bool:
        x = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow == 0:
            if x >= 0:
                return w.put_head(0, <uint64_t>x)
            return w.put_head(1, <uint64_t>(-1 - x))
    return _put_py(w, _twin()._put_int, v)


cdef int _put_py(_Writer w, object fn, object v, int depth=0) except -1:
    """Write what a pure helper writes for ``v`` (rare shapes: floats, big ints, trees)."""
    cdef bytearray tmp = bytearray()
    if depth:
        fn(tmp, v, depth)
    else:
        fn(tmp, v)
    b = bytes(tmp)
    return w.put_raw(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b))


cdef class _Plan:
    """A struct class's fields in Go's CBOR key order: encoded keys and inline chains, with
    C mirrors for the encode loop (borrowed pointers kept alive by the tuples)."""
    cdef tuple keys    # bytes: head + key
    cdef tuple chains  # tuple of FieldRow (inline chain ending in the field)
    cdef tuple rows    # the last FieldRow of each chain
    cdef tuple rawkeys  # bytes: the key alone
    cdef Py_ssize_t n
    cdef PyObject** row_ptrs
    cdef const char** key_ptrs
    cdef Py_ssize_t* key_lens
    cdef Py_ssize_t* offsets   # slot offset; -1: getattr; -2: inline chain
    cdef int* kinds
    cdef const unsigned char** raw_ptrs  # the key's UTF-8 bytes (after the head)
    cdef Py_ssize_t* raw_lens
    cdef unsigned char* keys16  # encoded keys of up to 16 bytes, each in a zero-padded 16-byte cell

    def __dealloc__(self):
        free(self.keys16)
        free(self.row_ptrs)
        free(self.key_ptrs)
        free(self.key_lens)
        free(self.offsets)
        free(self.kinds)
        free(self.raw_ptrs)
        free(self.raw_lens)


cdef dict _plans = {}


# A direct-mapped front of _plans keyed by the Table's address (a dict lookup per struct
# written was ~3% of a PodList encode). Entries are borrowed: every Table and _Plan in it
# is held by _plans, and the front is wiped whenever _plans is cleared, so a cached Table
# address is never a reused one.
cdef enum:
    _PLAN_FRONT = 256
cdef void* _front_tab[256]
cdef void* _front_plan[256]


cdef inline _Plan _plan_of(Table t):
    cdef size_t h = ((<size_t><PyObject*>t) >> 5) & (_PLAN_FRONT - 1)
    if _front_tab[h] == <void*>t:
        return <_Plan>_front_plan[h]
    return _plan_slow(t, h)


cdef _Plan _plan_slow(Table t, size_t h):
    cdef _Plan p
    cdef PyObject* hit = PyDict_GetItem(_plans, t)
    cdef Py_ssize_t i
    cdef FieldRow f
    cdef bytes kb
    if hit != NULL:
        _front_tab[h] = <void*>t
        _front_plan[h] = <void*>hit
        return <_Plan>hit
    rows = []
    for key, chain in t.json.items():
        # The pure twin's _str_bytes: invalid UTF-8 read into a str keeps its bytes.
        kb = PyUnicode_AsEncodedString(key, "utf-8", "surrogateescape")
        rows.append((_head_bytes(2, <uint64_t>len(kb)) + kb, chain, kb))
    rows.sort(key=lambda r: r[0])
    p = _Plan()
    p.rawkeys = tuple(r[2] for r in rows)
    p.keys = tuple(r[0] for r in rows)
    p.chains = tuple(r[1] for r in rows)
    p.rows = tuple(r[1][-1] for r in rows)
    p.n = len(rows)
    p.row_ptrs = <PyObject**>malloc(sizeof(PyObject*) * (p.n + 1))
    p.key_ptrs = <const char**>malloc(sizeof(char*) * (p.n + 1))
    p.key_lens = <Py_ssize_t*>malloc(sizeof(Py_ssize_t) * (p.n + 1))
    p.offsets = <Py_ssize_t*>malloc(sizeof(Py_ssize_t) * (p.n + 1))
    p.kinds = <int*>malloc(sizeof(int) * (p.n + 1))
    p.raw_ptrs = <const unsigned char**>malloc(sizeof(char*) * (p.n + 1))
    p.raw_lens = <Py_ssize_t*>malloc(sizeof(Py_ssize_t) * (p.n + 1))
    p.keys16 = <unsigned char*>calloc(p.n + 1, 16)
    if not (p.keys16 and p.row_ptrs and p.key_ptrs and p.key_lens and p.offsets and p.kinds and p.raw_ptrs and p.raw_lens):
        raise MemoryError()
    for i in range(p.n):
        f = <FieldRow>p.rows[i]
        kb = <bytes>p.keys[i]
        p.row_ptrs[i] = <PyObject*>f
        p.key_ptrs[i] = PyBytes_AS_STRING(kb)
        p.key_lens[i] = PyBytes_GET_SIZE(kb)
        if p.key_lens[i] <= 16:
            memcpy(p.keys16 + 16 * i, PyBytes_AS_STRING(kb), p.key_lens[i])
        p.offsets[i] = -2 if len(p.chains[i]) > 1 else f.offset
        p.kinds[i] = f.kind
        p.raw_lens[i] = PyBytes_GET_SIZE(<bytes>p.rawkeys[i])
        p.raw_ptrs[i] = <const unsigned char*>PyBytes_AS_STRING(<bytes>p.rawkeys[i])
    if len(_plans) > 4096:
        for i in range(_PLAN_FRONT):
            _front_tab[i] = NULL
            _front_plan[i] = NULL
        _plans.clear()
    _plans[t] = p
    _front_tab[h] = <void*>t
    _front_plan[h] = <void*>p
    return p


cdef inline Table _table_for(TypeRow t, object v):
    if type(v) is t.cls:
        return t.struct_table()
    return table_of(type(v))


cdef int _put_struct(_Writer w, object obj, Table t, int depth) except -1:
    if depth > MAX_NESTED_LEVELS:
        raise EncodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}")
    _enter(" while encoding a struct as CBOR")
    try:
        return _put_struct_body(w, obj, t, depth)
    finally:
        Py_LeaveRecursiveCall()


cdef object _SKIP = object()


cdef object _pick(_Plan plan, Py_ssize_t i, object obj, bint owned):
    """The value of plan entry ``i`` of ``obj``, or _SKIP when Go leaves it out."""
    cdef FieldRow f = <FieldRow>plan.row_ptrs[i]
    cdef Py_ssize_t off = plan.offsets[i]
    cdef Py_ssize_t j, nchain
    cdef PyObject* p
    cdef tuple chain
    cdef FieldRow hop
    cdef bint tdirect
    cdef int k
    if off >= 0 and owned:
        p = (<PyObject**>((<char*><PyObject*>obj) + off))[0]
        if p == NULL:
            v = getattr(obj, f.name)
        else:
            v = <object>p
    elif off == -2:
        # An inline chain: each hop's row lives in the previous hop's struct class, so its
        # slot offset holds where the target is exactly that class (a Probe's handler, a
        # Volume's source: ~100 such fields per Pod, two getattr calls each before).
        chain = <tuple>plan.chains[i]
        nchain = len(chain)
        target = obj
        tdirect = owned
        for j in range(nchain - 1):
            hop = <FieldRow>chain[j]
            target = get_field(target, hop, tdirect)
            if target is None:
                return _SKIP
            tdirect = type(target) is hop.cls
        v = get_field(target, f, tdirect)
    else:
        v = getattr(obj, f.name)
    if v is None:
        if f.omitempty or f.omitzero:
            return _SKIP
        return v
    k = plan.kinds[i]
    if f.omitempty:
        # Go's isEmptyValue, asked only where it can hold: structs and custom values are
        # never empty.
        if k == K_STR:
            if not f.pointer and type(v) is str and PyUnicode_GET_LENGTH(v) == 0:
                return _SKIP
        elif k == K_LIST or k == K_MAP or k == K_BYTES:
            if len(v) == 0:
                return _SKIP
        elif k <= K_FLOAT and not f.pointer and not v:
            return _SKIP
    if f.omitzero and not f.pointer and is_zero_value(f, v):
        return _SKIP
    return v


cdef int _put_struct_body(_Writer w, object obj, Table t, int depth) except -1:
    cdef _Plan plan = _plan_of(t)
    cdef Py_ssize_t i, count = 0, off, kl
    cdef bint owned = t.owns(obj)
    cdef PyObject* p
    cdef const char* kp
    if owned:
        # Encoding is bound by memory latency: ask for every field value at once rather
        # than waiting for each in turn (as _codec's protobuf encoder does).
        for i in range(plan.n):
            off = plan.offsets[i]
            if off >= 0:
                p = (<PyObject**>((<char*><PyObject*>obj) + off))[0]
                if p != NULL and p != <PyObject*>None:
                    kc_prefetch(p)
    # A one-byte head, patched once the count is known; the rare struct writing 24 fields
    # or more gets a wider head by moving its body (one pass over the fields either way).
    count = w.n
    w.put_byte(0)
    cdef Py_ssize_t written = 0
    for i in range(plan.n):
        v = _pick(plan, i, obj, owned)
        if v is _SKIP:
            continue
        kl = plan.key_lens[i]
        kp = plan.key_ptrs[i]
        if kl <= 16:
            # One fixed 16-byte copy (two moves) of the padded key; the bytes past the key
            # lie inside the buffer's capacity and are overwritten or trimmed.
            if w.n + 16 > w.cap:
                w.grow(16)
            memcpy(w.buf + w.n, plan.keys16 + 16 * i, 16)
            w.n += kl
        else:
            w.put_raw(kp, kl)
        if plan.kinds[i] == K_STR and v is not None:
            _put_str(w, v)
        else:
            _put_value(w, <FieldRow>plan.row_ptrs[i], v, depth + 1)
        written += 1
    if written < 24:
        w.buf[count] = 0xA0 | <unsigned char>written
        return 0
    kl = 2 if written < 0x100 else (3 if written < 0x10000 else 5)
    if w.n + kl - 1 > w.cap:
        w.grow(kl - 1)
    memmove(w.buf + count + kl, w.buf + count + 1, w.n - count - 1)
    off = w.n + kl - 1
    w.n = count  # the body holds at least 48 bytes: the head fits before it without growing
    w.put_head(5, <uint64_t>written)
    w.n = off
    return 0


cdef bint _sorted_cbor_keys(dict d) except -1:
    """Whether every key is an ASCII str and they already ascend in Go's CBOR order."""
    cdef Py_ssize_t pos = 0
    cdef PyObject* k
    cdef PyObject* val
    cdef PyObject* prev = NULL
    cdef Py_ssize_t pl = 0, kl
    while PyDict_Next(d, &pos, &k, &val):
        if type(<object>k) is not str or not PyUnicode_IS_ASCII(<object>k):
            return False
        kl = PyUnicode_GET_LENGTH(<object>k)
        if prev != NULL:
            if kl < pl or (kl == pl and PyUnicode_Compare(<object>prev, <object>k) >= 0):
                return False
        prev = k
        pl = kl
    return True


cdef object _ascii_items_in_cbor_order(dict d):
    """(length, key, value) of a dict with ASCII str keys, in Go's CBOR key order (shorter
    keys first, then bytewise); None when a key is anything else."""
    cdef list items = []
    for k, val in d.items():
        if type(k) is not str or not PyUnicode_IS_ASCII(k):
            return None
        items.append((PyUnicode_GET_LENGTH(k), k, val))
    items.sort()  # keys are distinct: values are never compared
    return items


cdef int _put_value(_Writer w, TypeRow t, object v, int depth) except -1:
    cdef int k
    cdef TypeRow e
    if v is None:
        return w.put_byte(0xF6)
    k = t.kind
    if k == K_STR:
        return _put_str(w, v)
    if k == K_INT32 or k == K_INT64:
        return _put_int(w, v)
    if k == K_BOOL:
        return w.put_byte(0xF5 if v else 0xF4)
    if k == K_STRUCT:
        return _put_struct(w, v, _table_for(t, v), depth)
    if k == K_LIST:
        e = t.elem
        w.put_head(4, <uint64_t>len(v))
        if e.kind == K_STR:
            for x in v:
                if x is None:
                    w.put_byte(0xF6)
                else:
                    _put_str(w, x)
        else:
            for x in v:
                _put_value(w, e, x, depth + 1)
        return 0
    if k == K_MAP:
        e = t.elem
        w.put_head(5, <uint64_t>len(v))
        if type(v) is dict and _sorted_cbor_keys(<dict>v):
            for mk, mv in (<dict>v).items():
                _put_str(w, mk)
                _put_value(w, e, mv, depth + 1)
            return 0
        items = _ascii_items_in_cbor_order(v) if type(v) is dict else None
        if items is not None:
            for item in <list>items:
                _put_str(w, (<tuple>item)[1])
                _put_value(w, e, (<tuple>item)[2], depth + 1)
        else:
            for kb, key in _twin()._sorted_keys(v):
                w.put_head(2, <uint64_t>PyBytes_GET_SIZE(kb))
                w.put_raw(PyBytes_AS_STRING(kb), PyBytes_GET_SIZE(kb))
                _put_value(w, e, v[key], depth + 1)
        return 0
    if k == K_CUSTOM:
        return _put_custom(w, t, v, depth)
    if k == K_BYTES:
        w.put_byte(0xD6)
        if type(v) is not bytes:
            v = bytes(v)
        w.put_head(2, <uint64_t>PyBytes_GET_SIZE(v))
        return w.put_raw(PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v))
    if k == K_FLOAT:
        return _put_py(w, _twin()._put_float, float(v))
    return _put_tree(w, v, depth)


cdef int _put_custom(_Writer w, TypeRow t, object v, int depth) except -1:
    """A custom value through its JSON form, once per value object when immutable, once
    per raw content for FieldsV1-like values holding bytes."""
    cdef PyObject* hit
    cdef bytes b
    cdef Py_ssize_t start
    if t.shareable and type(v) is t.cls:
        hit = w.id_get(<void*>v)
        if hit != NULL:
            return w.put_raw(PyBytes_AS_STRING(<object>hit), PyBytes_GET_SIZE(<object>hit))
        start = w.n
        _put_custom_value(w, v, depth)
        b = PyBytes_FromStringAndSize(<const char*>(w.buf + start), w.n - start)
        return w.id_put(v, b)
    else:
        raw = getattr(v, "raw", None)
        if type(raw) is not bytes:
            return _put_custom_value(w, v, depth)
        key = (type(v), raw)
    hit = PyDict_GetItem(w.custom, key)
    if hit != NULL:
        b = <bytes>(<tuple>hit)[1]
        return w.put_raw(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b))
    start = w.n
    _put_custom_value(w, v, depth)
    b = PyBytes_FromStringAndSize(<const char*>(w.buf + start), w.n - start)
    # The value is kept alive with its bytes, so its address is not reused meanwhile.
    w.custom[key] = (v, b)
    return 0


cdef int _put_custom_value(_Writer w, object v, int depth) except -1:
    """The pure ``_put_custom``: CBOR held by RawExtension/FieldsV1 as it is (Go's
    MarshalCBOR returns it), anything else through its JSON-shaped form."""
    cdef bytes b
    raw = getattr(v, "raw", None)
    if type(raw) is bytes and PyBytes_GET_SIZE(raw) and (raw.startswith(_SELF_DESCRIBED)
                                                        or 0xA0 <= (<bytes>raw)[0] <= 0xBF):
        b = <bytes>raw
        return w.put_raw(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b))
    return _put_tree(w, v._to_tree(), depth)


cdef dict _size_hint = {}


def cbor_encode(obj, prefix=b""):
    """``prefix`` + the CBOR encoding of a typed struct, as Go's ``modes.Encode``."""
    cls = type(obj)
    hint = _size_hint.get(cls, 0)
    cdef bytes pre = prefix if type(prefix) is bytes else bytes(prefix)
    # Room for what the last encode of this class wrote plus the slack put_head asks for
    # (9 bytes) near the end: a buffer exactly as large doubled on its last heads, and the
    # doubled size (past glibc's 32 MiB mmap ceiling for a PodList(1000)) mapped and faulted
    # in fresh pages on every call. The same size again lets glibc reuse the freed memory.
    cdef _Writer w = _Writer(PyBytes_GET_SIZE(pre) + <Py_ssize_t>hint + 64)
    w.put_raw(PyBytes_AS_STRING(pre), PyBytes_GET_SIZE(pre))
    try:
        _put_struct(w, obj, table_of(cls), 1)
    except RecursionError:
        raise EncodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}") from None
    if len(_size_hint) >= 512:
        _size_hint.clear()
    _size_hint[cls] = w.n
    return w.result()


# ============================================================================ trees: encoding
# The pure ``_put_tree`` in C for the JSON-shaped types (exact str, dict, list, tuple, int,
# float, bool, None); any other value (RawJSON, bytes, structs, custom values, subclasses)
# is written by the pure walker at the same depth, so its rules and errors stay one.


cdef struct _KeyRef:
    PyObject* key
    PyObject* value
    const unsigned char* data  # the key's UTF-8 bytes
    Py_ssize_t size
    Py_ssize_t index           # position in the dict: ties (equal encodings) keep it


cdef inline bint _key_before(_KeyRef* a, _KeyRef* b) noexcept:
    """Go's order of definite-length string keys: shorter first, then bytewise."""
    cdef int c
    if a.size != b.size:
        return a.size < b.size
    c = memcmp(a.data, b.data, a.size)
    if c != 0:
        return c < 0
    return a.index < b.index


cdef int _keyref_cmp(const void* x, const void* y) noexcept nogil:
    cdef _KeyRef* a = <_KeyRef*>x
    cdef _KeyRef* b = <_KeyRef*>y
    cdef int c
    if a.size != b.size:
        return -1 if a.size < b.size else 1
    c = memcmp(a.data, b.data, a.size)
    if c != 0:
        return c
    return -1 if a.index < b.index else (1 if a.index > b.index else 0)


cdef extern from "stdlib.h":
    void qsort(void* base, size_t n, size_t size, int (*cmp)(const void*, const void*) noexcept nogil) nogil


cdef int _put_float_tree(_Writer w, double v) except -1:
    """ShortestFloat16: the narrowest IEEE width that gives ``v`` back (as ``_put_float``)."""
    cdef float f
    cdef uint32_t f32
    cdef uint64_t f64
    cdef int e, hb
    cdef double m, a, q
    cdef unsigned char* out
    if v != v:
        raise EncodeError("cbor: unsupported value: floating-point NaN")
    if v - v != 0.0:
        raise EncodeError("cbor: unsupported value: floating-point infinity")
    f = <float>v
    if f - f != 0.0 or <double>f != v:
        # Out of float32's range or not exact in it.
        memcpy(&f64, &v, 8)
        return _put_be(w, 0xFB, f64, 8)
    # float16 when exact: 1 + 10 bits of mantissa, exponents -14..15, subnormals down to 2**-24.
    hb = -1
    if v == 0.0:
        hb = 0x8000 if signbit(v) else 0
    else:
        a = -v if v < 0 else v
        m = frexp(a, &e)  # a = m * 2**e, 0.5 <= m < 1
        if e - 1 <= 15:
            if e - 1 >= -14:
                q = ldexp(m, 11)
                if q == <double>(<long long>q):
                    hb = ((e - 1 + 15) << 10) | (<int>q - 1024)
            else:
                q = ldexp(a, 24)
                if q == <double>(<long long>q):
                    hb = <int>q
        if hb >= 0 and v < 0:
            hb |= 0x8000
    if hb >= 0:
        return _put_be(w, 0xF9, <uint64_t>hb, 2)
    memcpy(&f32, &f, 4)
    return _put_be(w, 0xFA, f32, 4)


cdef inline int _put_be(_Writer w, unsigned char ib, uint64_t v, int n) except -1:
    cdef int i
    if w.n + 1 + n > w.cap:
        w.grow(1 + n)
    w.buf[w.n] = ib
    for i in range(n):
        w.buf[w.n + 1 + i] = <unsigned char>(v >> (8 * (n - 1 - i)))
    w.n += 1 + n
    return 0


cdef int _put_tree(_Writer w, object v, int depth) except -1:
    cdef int overflow = 0
    cdef long long x
    if depth > MAX_NESTED_LEVELS:
        raise EncodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}")
    t = type(v)
    if t is str:
        return _put_str(w, v)
    if t is dict or t is list or t is tuple:
        # One recursion level per container, counted as the pure walker's frames are.
        _enter(" while encoding a tree as CBOR")
        try:
            if t is dict:
                return _put_tree_map(w, <dict>v, depth)
            w.put_head(4, <uint64_t>len(v))
            for item in v:
                _put_tree(w, item, depth + 1)
            return 0
        finally:
            Py_LeaveRecursiveCall()
    if v is None:
        return w.put_byte(0xF6)
    if v is True:
        return w.put_byte(0xF5)
    if v is False:
        return w.put_byte(0xF4)
    if t is int:
        x = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow:
            raise EncodeError(f"cbor: unsupported value: integer {v} overflows int64")
        if x >= 0:
            return w.put_head(0, <uint64_t>x)
        return w.put_head(1, <uint64_t>(-1 - x))
    if t is float:
        return _put_float_tree(w, PyFloat_AS_DOUBLE(v))
    if isinstance(v, _RawJSON):
        # A json.Marshaler's output (FieldsV1, RawExtension) goes through Go's
        # TranscodeFromJSON: parsed with int64-preserving numbers, then written as CBOR.
        data = (<object>v).data
        if not data.strip():
            raise EncodeError("cbor: error transcoding JSON: unexpected end of JSON input")
        try:
            tree = _gojson_loads(data)
        except DecodeError as exc:
            raise EncodeError(f"cbor: error transcoding JSON: {exc}") from None
        return _put_tree(w, tree, depth)
    return _put_py(w, _twin()._put_tree, v, depth)


cdef int _put_tree_map(_Writer w, dict d, int depth) except -1:
    cdef Py_ssize_t n = len(d), i, j, pos = 0
    cdef PyObject* k
    cdef PyObject* val
    # Kept small: this frame is on the C stack once per nesting level (10000 deep).
    cdef _KeyRef small[8]
    cdef _KeyRef* refs = small
    cdef _KeyRef tmp
    cdef Py_ssize_t got = 0
    cdef bint simple = True
    cdef list held = None  # UTF-8 encodings of non-ASCII keys, alive while used
    w.put_head(5, <uint64_t>n)
    if n == 0:
        return 0
    while PyDict_Next(d, &pos, &k, &val):
        if type(<object>k) is not str:
            simple = False
            break
    if not simple:
        # Keys that are not plain str: the pure order (and its errors).
        for kb, key in _twin()._sorted_keys(d):
            w.put_head(2, <uint64_t>PyBytes_GET_SIZE(kb))
            w.put_raw(PyBytes_AS_STRING(kb), PyBytes_GET_SIZE(kb))
            _put_tree(w, d[key], depth + 1)
        return 0
    if n > 8:
        refs = <_KeyRef*>malloc(sizeof(_KeyRef) * n)
        if refs == NULL:
            raise MemoryError()
    pos = 0
    try:
        while got < n and PyDict_Next(d, &pos, &k, &val):
            # Strong references: writing a value may run code (custom values, RawJSON).
            Py_INCREF(<object>k)
            Py_INCREF(<object>val)
            refs[got].key = k
            refs[got].value = val
            refs[got].index = got
            got += 1
            if PyUnicode_IS_ASCII(<object>k):
                refs[got - 1].data = <const unsigned char*>PyUnicode_DATA(<object>k)
                refs[got - 1].size = PyUnicode_GET_LENGTH(<object>k)
            else:
                # As _str_bytes: strings decoded from invalid UTF-8 keep their bytes.
                kb = PyUnicode_AsEncodedString(<object>k, "utf-8", "surrogateescape")
                if held is None:
                    held = []
                held.append(kb)
                refs[got - 1].data = <const unsigned char*>PyBytes_AS_STRING(kb)
                refs[got - 1].size = PyBytes_GET_SIZE(kb)
        n = got
        if n <= 8:
            for i in range(1, n):
                tmp = refs[i]
                j = i - 1
                while j >= 0 and _key_before(&tmp, &refs[j]):
                    refs[j + 1] = refs[j]
                    j -= 1
                refs[j + 1] = tmp
        else:
            qsort(refs, <size_t>n, sizeof(_KeyRef), _keyref_cmp)
        for i in range(n):
            w.put_head(2, <uint64_t>refs[i].size)
            w.put_raw(refs[i].data, refs[i].size)
            _put_tree(w, <object>refs[i].value, depth + 1)
    finally:
        for j in range(got):
            Py_XDECREF_(refs[j].key)
            Py_XDECREF_(refs[j].value)
        if refs != small:
            free(refs)
    return 0


def cbor_encode_tree(tree, prefix=b""):
    """``prefix`` + the CBOR encoding of a JSON-shaped tree (Unstructured content)."""
    cdef bytes pre = prefix if type(prefix) is bytes else bytes(prefix)
    cdef _Writer w = _Writer(PyBytes_GET_SIZE(pre))
    w.put_raw(PyBytes_AS_STRING(pre), PyBytes_GET_SIZE(pre))
    try:
        _put_tree(w, tree, 1)
    except RecursionError:
        raise EncodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}") from None
    return w.result()


# ============================================================================ well-formedness


cdef struct Frame:
    int64_t left   # items left; -1: indefinite
    int major
    uint64_t count  # items read of an indefinite container


cdef inline double _half(uint16_t h) noexcept:
    cdef int e = (h >> 10) & 0x1F
    cdef int m = h & 0x3FF
    cdef double v
    if e == 0:
        v = ldexp(<double>m, -24)
    elif e == 31:
        v = INFINITY if m == 0 else NAN
    else:
        v = ldexp(<double>(1024 + m), e - 25)
    return -v if h & 0x8000 else v


cdef inline bint _finite(double d) noexcept:
    return d == d and d - d == 0.0


cdef inline int _head_arg(const unsigned char* p, Py_ssize_t* pos, Py_ssize_t end, unsigned char ai,
                          uint64_t* val) noexcept:
    """The argument of a head with additional information ``ai`` (below 28) whose initial
    byte was read: ``ai`` itself, or the 1/2/4/8 big-endian bytes at ``pos``, which moves
    past them. -1 when those bytes run past ``end`` (nothing read), else 0."""
    cdef int i, n
    cdef uint64_t v = 0
    if ai < 24:
        val[0] = ai
        return 0
    n = 1 << (ai - 24)
    if n > end - pos[0]:
        return -1
    for i in range(n):
        v = (v << 8) | p[pos[0] + i]
    pos[0] += n
    val[0] = v
    return 0


cdef Py_ssize_t _skip_chunks(const unsigned char* p, Py_ssize_t pos, Py_ssize_t end, unsigned char major) except -2:
    """Past the chunks and the break of an indefinite-length byte or text string (major
    ``major``) whose head ended at ``pos``; -1 when the buffer ends first. fxamacker's
    wellformedIndefiniteString: each chunk a definite string of the same major type."""
    cdef unsigned char cmaj, cai
    cdef uint64_t cval
    while True:
        if pos >= end:
            return -1
        if p[pos] == 0xFF:
            return pos + 1
        cmaj = p[pos] >> 5
        cai = p[pos] & 0x1F
        pos += 1
        if cmaj != major:
            raise DecodeError(f"cbor: wrong element type {_TYPE_NAMES[cmaj]} "
                              f"for indefinite-length {_TYPE_NAMES[major]}")
        if cai == 31:
            raise DecodeError(f"cbor: indefinite-length {_TYPE_NAMES[major]} chunk is not definite-length")
        if cai > 27:
            raise DecodeError(f"cbor: invalid additional information {cai} for type {_TYPE_NAMES[cmaj]}")
        if _head_arg(p, &pos, end, cai, &cval) < 0:
            return -1
        if cval > <uint64_t>(end - pos):
            return -1
        pos += <Py_ssize_t>cval


cdef int _check_primitive(unsigned char ai, uint64_t val) except -1:
    """Go's limits on a major type 7 item with argument ``val``: simple values other than
    false/true/null are refused, and so are NaN and the infinities."""
    cdef uint32_t f32
    cdef uint64_t f64
    cdef float fv
    cdef double dv
    if ai <= 24:
        if val < 20 or val > 22:
            raise DecodeError("cbor: data item of cbor type primitives is not accepted by protocol: "
                              f"simple value {val} is not recognized")
        return 0
    if ai == 25:
        dv = _half(<uint16_t>val)
    elif ai == 26:
        f32 = <uint32_t>val
        memcpy(&fv, &f32, 4)
        dv = fv
    else:
        f64 = val
        memcpy(&dv, &f64, 8)
    if not _finite(dv):
        _twin()._check_float(dv)
    return 0


cdef enum:
    FRAME_EOF = -2


cdef inline int64_t _frame_items(unsigned char major, unsigned char ai, uint64_t val, Py_ssize_t room) except -3:
    """The items a container head opens (a tag: its one content; ``ai`` 31: -1, the
    indefinite length; an array ``val``, a map ``2 * val``; 0 for an empty one), with Go's
    limits, or FRAME_EOF when the ``room`` left cannot hold that many (each takes a byte)."""
    cdef uint64_t n
    if major == 6:
        if val == 2 or val == 3:
            raise DecodeError("cbor: bignum tags are forbidden")
        return 1
    if ai == 31:
        return -1
    if major == 4:
        if val > MAX_ARRAY_ELEMENTS:
            raise DecodeError(f"cbor: exceeded max number of elements {MAX_ARRAY_ELEMENTS} for CBOR array")
        n = val
    else:
        if val > MAX_MAP_PAIRS:
            raise DecodeError(f"cbor: exceeded max number of key-value pairs {MAX_MAP_PAIRS} for CBOR map")
        n = val * 2
    if n > <uint64_t>room:
        return FRAME_EOF
    return <int64_t>n


cdef Py_ssize_t _item_end(const unsigned char* p, Py_ssize_t pos, Py_ssize_t end, int base=0) except -2:
    """End of the well-formed data item at ``pos``, found ``base`` levels deep; -1 for
    "unexpected EOF" (the caller raises); DecodeError for anything else."""
    cdef Frame* stack = NULL
    cdef Py_ssize_t depth = 0
    cdef unsigned char ib, major, ai
    cdef uint64_t val
    cdef int64_t left
    cdef Frame* grown
    cdef Py_ssize_t cap = 32
    if pos >= end:
        raise DecodeError("EOF")
    # Grown on demand up to Go's nesting limit: most items are a few levels deep.
    stack = <Frame*>malloc(sizeof(Frame) * cap)
    if stack == NULL:
        raise MemoryError()
    try:
        while True:
            if depth and stack[depth - 1].left < 0:
                if pos >= end:
                    return -1
                if p[pos] == 0xFF:
                    depth -= 1
                    if stack[depth].major == 5 and stack[depth].count % 2:
                        raise DecodeError('cbor: unexpected "break" code')
                    pos += 1
                    if not _done(stack, &depth):
                        return pos
                    continue
            # head
            if pos >= end:
                return -1
            ib = p[pos]
            major = ib >> 5
            ai = ib & 0x1F
            pos += 1
            if ai <= 27:
                if _head_arg(p, &pos, end, ai, &val) < 0:
                    return -1
                if ai == 24 and major == 7 and val < 32:
                    raise DecodeError(f"cbor: invalid simple value {val} for type primitives")
            elif ai == 31:
                if major == 0 or major == 1 or major == 6:
                    raise DecodeError(f"cbor: invalid additional information 31 for type {_TYPE_NAMES[major]}")
                if major == 7:
                    raise DecodeError('cbor: unexpected "break" code')
                val = 0
            else:
                raise DecodeError(f"cbor: invalid additional information {ai} for type {_TYPE_NAMES[major]}")
            if major <= 1:
                pass
            elif major <= 3:
                if ai == 31:
                    pos = _skip_chunks(p, pos, end, major)
                    if pos < 0:
                        return -1
                else:
                    if val > <uint64_t>(end - pos):
                        return -1
                    pos += <Py_ssize_t>val
            elif major <= 6:
                if depth + base >= MAX_NESTED_LEVELS:
                    raise DecodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}")
                left = _frame_items(major, ai, val, end - pos)
                if left == FRAME_EOF:
                    return -1
                if left:
                    if depth == cap:
                        grown = <Frame*>realloc(stack, sizeof(Frame) * cap * 2)
                        if grown == NULL:
                            raise MemoryError()
                        stack = grown
                        cap *= 2
                    stack[depth].left = left
                    stack[depth].major = major
                    stack[depth].count = 0
                    depth += 1
                    continue
            elif ai > 24 or val < 20 or val > 22:  # false, true and null need no check
                _check_primitive(ai, val)
            if not _done(stack, &depth):
                return pos
    finally:
        free(stack)


cdef bint _done(Frame* stack, Py_ssize_t* depth) except -1:
    cdef Frame* top
    while depth[0]:
        top = &stack[depth[0] - 1]
        if top.left < 0:
            top.count += 1
            if top.major == 4 and top.count > MAX_ARRAY_ELEMENTS:
                raise DecodeError(f"cbor: exceeded max number of elements {MAX_ARRAY_ELEMENTS} for CBOR array")
            if top.major == 5 and top.count > 2 * MAX_MAP_PAIRS:
                raise DecodeError(f"cbor: exceeded max number of key-value pairs {MAX_MAP_PAIRS} for CBOR map")
            return True
        top.left -= 1
        if top.left:
            return True
        depth[0] -= 1
    return False


def cbor_item_end(data, Py_ssize_t pos=0, Py_ssize_t end=-1):
    """Check the data item at ``pos`` for well-formedness (and Go's limits); return where
    it ends. Raises ``DecodeError`` ("unexpected EOF" when it is cut short)."""
    cdef bytes b = data if type(data) is bytes else bytes(data)
    if end < 0 or end > PyBytes_GET_SIZE(b):
        end = PyBytes_GET_SIZE(b)
    if pos < 0:
        pos = 0
    r = _item_end(<const unsigned char*>PyBytes_AS_STRING(b), pos, end)
    if r < 0:
        raise DecodeError("unexpected EOF")
    return r


cdef int _check_whole(bytes data, Py_ssize_t start, Py_ssize_t end) except -1:
    cdef Py_ssize_t stop = _item_end(<const unsigned char*>PyBytes_AS_STRING(data), start, end)
    if stop < 0:
        raise DecodeError("unexpected EOF")
    if stop != end:
        raise DecodeError(f"cbor: {end - stop} bytes of extraneous data starting at index {stop - start}")
    return 0


# ============================================================================ decoding


cdef class _Reader:
    cdef bytes data
    cdef const unsigned char* p
    cdef Py_ssize_t pos
    cdef Py_ssize_t end
    cdef bint transcode
    cdef StrCache strings
    cdef dict customs  # (class, item bytes) -> decoded custom value

    def __dealloc__(self):
        strcache_clear(&self.strings)


cdef inline int _head(_Reader r, unsigned char* major, uint64_t* val) except -1:
    """Read a definite head: ai 31, the reserved 28-30, tags and a head cut short by the
    buffer's end fall back (to the full scan, which raises Go's error for them).

    cbor_type_meta calls this before anything checked the item, so every byte it reads
    is bounded by ``r.end`` here."""
    cdef const unsigned char* p = r.p
    cdef unsigned char ib
    cdef unsigned char ai
    cdef uint64_t v
    cdef int i, n
    if r.pos >= r.end:
        raise _Fallback()
    ib = p[r.pos]
    ai = ib & 0x1F
    major[0] = ib >> 5
    if ai < 24:
        r.pos += 1
        val[0] = ai
        return 0
    if ai > 27 or major[0] == 6:
        raise _Fallback()
    n = 1 << (ai - 24)
    if n >= r.end - r.pos:
        raise _Fallback()
    r.pos += 1
    v = 0
    for i in range(n):
        v = (v << 8) | p[r.pos + i]
    r.pos += n
    val[0] = v
    return 0


cdef inline object _ascii_str(StrCache* cache, const unsigned char* s, Py_ssize_t n):
    """The str of ``s[0:n]`` when it is ASCII (short ones shared through ``cache``), else None."""
    cdef uint64_t h = 1469598103934665603ULL
    cdef uint64_t w, acc = 0
    cdef Py_ssize_t i = 0
    if n <= 64:
        # One pass: ASCII check and the cache hash, a word at a time.
        while i + 8 <= n:
            memcpy(&w, s + i, 8)
            acc |= w
            h = (h ^ w) * 1099511628211ULL
            i += 8
        while i < n:
            acc |= s[i]
            h = (h ^ s[i]) * 1099511628211ULL
            i += 1
        if (acc & 0x8080808080808080ULL) == 0:
            h ^= h >> 32
            h *= 0x9E3779B97F4A7C15ULL
            return strcache_ascii(cache, s, n, h ^ (h >> 29))
        return None
    while i + 8 <= n:
        memcpy(&w, s + i, 8)
        if w & 0x8080808080808080ULL:
            return None
        i += 8
    while i < n:
        if s[i] >= 0x80:
            return None
        i += 1
    return PyUnicode_DecodeUTF8(<const char*>s, n, NULL)


cdef object _string(_Reader r, unsigned char major, Py_ssize_t n):
    cdef const unsigned char* s = r.p + r.pos
    r.pos += n
    u = _ascii_str(&r.strings, s, n)
    if u is not None:
        return u
    if major == 3:
        try:
            return PyUnicode_DecodeUTF8(<const char*>s, n, NULL)
        except UnicodeDecodeError:
            raise _Fallback()
    return PyUnicode_DecodeUTF8(<const char*>s, n, "surrogateescape")


cdef int _key_after(const unsigned char* prev, Py_ssize_t pn, const unsigned char* cur, Py_ssize_t cn) noexcept:
    """1 when ``cur`` comes strictly after ``prev`` in Go's key order (length, then bytes)."""
    cdef Py_ssize_t i
    if prev == NULL:
        return 1
    if cn != pn:
        return cn > pn
    for i in range(cn):
        if cur[i] != prev[i]:
            return cur[i] > prev[i]
    return 0


cdef int _fill_map(_Reader r, object obj, Table t, uint64_t n, int depth) except -1:
    cdef _Plan plan = _plan_of(t)
    cdef uint64_t i, klen
    cdef unsigned char major
    cdef const unsigned char* ks
    cdef Py_ssize_t j = 0, pl, off, nchain, m
    cdef int c
    cdef tuple chain
    cdef FieldRow f
    cdef FieldRow inl
    cdef bint direct = t.owns(obj)
    if depth > MAX_NESTED_LEVELS:
        raise _Fallback()
    for i in range(n):
        _head(r, &major, &klen)
        if major != 2 and major != 3:
            raise _Fallback()
        ks = r.p + r.pos
        # Go writes the keys in the plan's order: one merge pass finds every field without
        # building key strings. A key not met this way (unknown, duplicated, out of order)
        # goes to the pure walker.
        while j < plan.n:
            pl = plan.raw_lens[j]
            if pl < <Py_ssize_t>klen:
                j += 1
                continue
            if pl > <Py_ssize_t>klen:
                raise _Fallback()
            c = memcmp(plan.raw_ptrs[j], ks, pl)
            if c < 0:
                j += 1
                continue
            if c > 0:
                raise _Fallback()
            break
        else:
            raise _Fallback()
        r.pos += <Py_ssize_t>klen
        f = <FieldRow>plan.row_ptrs[j]
        off = plan.offsets[j]
        if off >= 0 and direct:
            old = slot_get(obj, off, f.name)
            slot_set(obj, off, f.name, _value(r, f, old, depth + 1), None)
        elif off == -2:
            chain = <tuple>plan.chains[j]
            nchain = len(chain)
            target = obj
            for m in range(nchain - 1):
                inl = <FieldRow>chain[m]
                sub = getattr(target, inl.name)
                if sub is None:
                    sub = inl.cls._new_zero()
                    _object_setattr(target, inl.name, sub)
                target = sub
            old = getattr(target, f.name)
            _object_setattr(target, f.name, _value(r, f, old, depth + 1))
        else:
            old = getattr(obj, f.name)
            _object_setattr(obj, f.name, _value(r, f, old, depth + 1))
        j += 1
    return 0


cdef object _value(_Reader r, TypeRow t, object old, int depth):
    cdef int k = t.kind
    cdef unsigned char major
    cdef uint64_t val, i
    cdef unsigned char ib = r.p[r.pos]
    cdef long long x
    cdef Table st
    cdef TypeRow e
    if ib == 0xF6:
        r.pos += 1
        if t.pointer or k == K_LIST or k == K_MAP or k == K_BYTES or k == K_ANY:
            return None
        if k == K_CUSTOM:
            return _custom(r, t, r.pos - 1, depth)
        if k == K_STRUCT:
            return old if old is not None else t.struct_table().new_zero()
        return old if old is not None else t.zero()
    if k == K_STR:
        _head(r, &major, &val)
        if major != 2 and major != 3:
            raise _Fallback()
        return _string(r, major, <Py_ssize_t>val)
    if k == K_CUSTOM:
        return _custom(r, t, r.pos, depth)
    if k == K_INT32 or k == K_INT64:
        _head(r, &major, &val)
        if major == 0:
            if val > <uint64_t>(2147483647 if k == K_INT32 else 9223372036854775807):
                raise _Fallback()
            return PyLong_FromUnsignedLongLong(val)
        if major == 1:
            if val > <uint64_t>(2147483647 if k == K_INT32 else 9223372036854775807):
                raise _Fallback()
            x = -1 - <long long>val
            return PyLong_FromLongLong(x)
        raise _Fallback()
    if k == K_BOOL:
        if ib == 0xF5:
            r.pos += 1
            return True
        if ib == 0xF4:
            r.pos += 1
            return False
        raise _Fallback()
    if k == K_STRUCT:
        _head(r, &major, &val)
        if major != 5:
            raise _Fallback()
        st = t.struct_table()
        if old is None:
            old = st.new_zero_untracked()
        elif type(old) is not st.cls:
            st = table_of(type(old))
        _fill_map(r, old, st, val, depth)
        return old
    if k == K_LIST:
        _head(r, &major, &val)
        if major != 4:
            raise _Fallback()
        e = t.elem
        out = PyList_New(<Py_ssize_t>val)
        for i in range(val):
            x_obj = _value(r, e, None, depth + 1)
            Py_INCREF(x_obj)
            PyList_SET_ITEM(out, <Py_ssize_t>i, x_obj)
        # Decoded containers hold strings, numbers and untracked structs only: the cycle
        # collector need not track them (see "Untracked decoded objects" in _tables.pyx).
        if e.kind != K_ANY and e.kind != K_CUSTOM:
            untrack(out)
        return out
    if k == K_MAP:
        _head(r, &major, &val)
        if major != 5:
            raise _Fallback()
        return _map(r, t.elem, old, val, depth)
    if k == K_BYTES:
        _head(r, &major, &val)
        if major == 6 and val == 22:
            _head(r, &major, &val)
            if major != 2:
                raise _Fallback()
            b = PyBytes_FromStringAndSize(<const char*>(r.p + r.pos), <Py_ssize_t>val)
            r.pos += <Py_ssize_t>val
            return b
        raise _Fallback()
    if k == K_FLOAT:
        if ib == 0xF9 or ib == 0xFA or ib == 0xFB or ib < 0x40:
            return _pure_value(r, t, old, depth)
        raise _Fallback()
    if k == K_ANY:
        return _pure_value(r, t, old, depth)
    raise _Fallback()


cdef object _map(_Reader r, TypeRow e, object old, uint64_t n, int depth):
    cdef uint64_t i, klen
    cdef unsigned char major
    cdef const unsigned char* prev = NULL
    cdef Py_ssize_t pn = 0
    cdef const unsigned char* ks
    cdef dict out = {}
    for i in range(n):
        _head(r, &major, &klen)
        if major != 2 and major != 3:
            raise _Fallback()
        ks = r.p + r.pos
        if not _key_after(prev, pn, ks, <Py_ssize_t>klen):
            raise _Fallback()
        prev = ks
        pn = <Py_ssize_t>klen
        key = _string(r, major, <Py_ssize_t>klen)
        PyDict_SetItem(out, key, _value(r, e, None, depth + 1))
    if old is not None:
        old.update(out)
        return old
    if e.kind != K_ANY and e.kind != K_CUSTOM:
        untrack(out)
    return out


cdef object _pure_value(_Reader r, TypeRow t, object old, int depth):
    """One value through the pure walker (floats, untyped values: rare in API objects)."""
    d = _PureDec(r.data, r.pos, None, r.transcode)
    v = d.value(t.info, old, "", "", depth)
    r.pos = d.pos
    return v


cdef object _custom(_Reader r, TypeRow t, Py_ssize_t start, int depth):
    """A custom value, decoded once per distinct encoded item in this call."""
    cdef Py_ssize_t stop
    cdef PyObject* hit
    if r.p[start] == 0xF6:
        r.pos = start + 1
        if t.pointer:
            return None
        return t.cls._from_tree(None, "")
    stop = _item_end(r.p, start, r.end)
    key = (t.cls, PyBytes_FromStringAndSize(<const char*>(r.p + start), stop - start))
    hit = PyDict_GetItem(r.customs, key)
    if hit != NULL:
        r.pos = stop
        v = <object>hit
        return v if t.shareable or v is None else v.deep_copy()
    if (r.p[start] >> 5) != 6 and (r.transcode or "raw" not in getattr(t.cls, "__slots__", ())):
        # The pure walker's own path for an untagged item: its interface{} tree, then the
        # class's JSON form. Its errors name the field only in the pure walker: let it decide.
        r.pos = start
        try:
            v = _custom_from_tree(t.cls, _tree_any(r), "")
        except DecodeError:
            raise _Fallback()
    else:
        d = _PureDec(r.data, start, None, r.transcode)
        v = d.value(t.info, None, "", "", depth)
        r.pos = d.pos
    r.customs[key] = v
    return v.deep_copy() if not t.shareable and v is not None else v


def cbor_fill(obj, cls, data, strict, path, Py_ssize_t start=0, Py_ssize_t end=-1, transcode=True,
              checked=False):
    """Fill typed ``obj`` (of class ``cls``) from the CBOR map ``data[start:end]``.

    ``transcode`` False keeps RawExtension/FieldsV1 values as CBOR bytes instead of JSON;
    ``checked`` says the caller already had ``cbor_type_meta`` accept the same span."""
    cdef bytes b = data if type(data) is bytes else bytes(data)
    cdef _Reader r
    cdef unsigned char major
    cdef uint64_t n
    cdef Table t
    if end < 0 or end > PyBytes_GET_SIZE(b):
        end = PyBytes_GET_SIZE(b)
    if not checked:
        _check_whole(b, start, end)
    if strict is None:
        r = _Reader()
        r.data = b
        r.p = <const unsigned char*>PyBytes_AS_STRING(b)
        r.pos = start
        r.end = end
        r.transcode = bool(transcode)
        r.customs = {}
        strcache_init(&r.strings, end - start)
        t = table_of(cls)
        gc_pause()
        try:
            # Skip the self-described tag Go puts first.
            if end - start >= 3 and r.p[start] == 0xD9 and r.p[start + 1] == 0xD9 and r.p[start + 2] == 0xF7:
                r.pos += 3
            _head(r, &major, &n)
            if major == 5 and type(obj) is t.cls:
                _fill_map(r, obj, t, n, 1)
                return None
        except _Fallback:
            pass
        finally:
            gc_resume()
    # The pure walker decides every other case (and raises Go's errors with paths).
    d = _PureDec(b, start, strict, bool(transcode))
    try:
        d.struct(obj, cls, path, "", 1)
    except RecursionError:
        raise DecodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}") from None
    return None


def cbor_type_meta(data, Py_ssize_t start=0, Py_ssize_t end=-1):
    """(apiVersion, kind) of the CBOR map ``data[start:end]`` (see the pure twin).

    The top-level map is walked here and every other value skipped with the C scan, so the
    whole item is checked for well-formedness once, in document order as Go checks it;
    any other shape goes through the full scan and the pure walker."""
    cdef bytes b = data if type(data) is bytes else bytes(data)
    cdef _Reader r
    cdef unsigned char major
    cdef uint64_t n, i, klen
    cdef const unsigned char* prev = NULL
    cdef const unsigned char* ks
    cdef Py_ssize_t pn = 0, stop
    cdef str api_version = ""
    cdef str kind = ""
    cdef int base = 1  # the top-level map's own level
    if end < 0 or end > PyBytes_GET_SIZE(b):
        end = PyBytes_GET_SIZE(b)
    r = _Reader()
    r.data = b
    r.p = <const unsigned char*>PyBytes_AS_STRING(b)
    r.pos = start
    r.end = end
    strcache_init(&r.strings, 0)
    try:
        if end - start >= 3 and r.p[start] == 0xD9 and r.p[start + 1] == 0xD9 and r.p[start + 2] == 0xF7:
            r.pos += 3
            base = 2  # the tag is a level too, as the full scan counts it
        if r.pos >= end:
            raise _Fallback()
        _head(r, &major, &n)
        if major != 5 or n > MAX_MAP_PAIRS or n * 2 > <uint64_t>(end - r.pos):
            raise _Fallback()
        for i in range(n):
            if r.pos >= end:
                raise _Fallback()
            _head(r, &major, &klen)
            if (major != 2 and major != 3) or klen > <uint64_t>(end - r.pos):
                raise _Fallback()
            ks = r.p + r.pos
            if not _key_after(prev, pn, ks, <Py_ssize_t>klen):
                raise _Fallback()
            prev = ks
            pn = <Py_ssize_t>klen
            if r.pos + <Py_ssize_t>klen >= end:
                raise _Fallback()
            if major == 3 or (klen == 4 and memcmp(ks, b"kind", 4) == 0) or \
                    (klen == 10 and memcmp(ks, b"apiVersion", 10) == 0):
                stop = _item_end(r.p, r.pos + <Py_ssize_t>klen, end, base)
                if stop < 0:
                    raise _Fallback()
                if major == 3 and not _is_utf8(ks, <Py_ssize_t>klen):
                    raise _Fallback()
                r.pos += <Py_ssize_t>klen
                if klen == 4 and memcmp(ks, b"kind", 4) == 0:
                    kind = _type_meta_string(r)
                elif klen == 10 and memcmp(ks, b"apiVersion", 10) == 0:
                    api_version = _type_meta_string(r)
                else:
                    r.pos = stop
                if r.pos != stop:
                    raise _Fallback()
            else:
                r.pos += <Py_ssize_t>klen
                stop = _item_end(r.p, r.pos, end, base)
                if stop < 0:
                    raise DecodeError("unexpected EOF")
                r.pos = stop
        if r.pos != end:
            raise _Fallback()
        return api_version, kind
    except _Fallback:
        _check_whole(b, start, end)
        return _twin()._type_meta_checked(b, start, end)


cdef bint _is_utf8(const unsigned char* s, Py_ssize_t n) except -1:
    try:
        PyUnicode_DecodeUTF8(<const char*>s, n, NULL)
    except UnicodeDecodeError:
        return False
    return True


cdef str _type_meta_string(_Reader r):
    cdef unsigned char major
    cdef uint64_t n
    if r.pos < r.end and r.p[r.pos] == 0xF6:
        r.pos += 1
        return ""
    _head(r, &major, &n)
    if major != 2 and major != 3:
        raise _Fallback()
    return _string(r, major, <Py_ssize_t>n)


# ============================================================================ trees: decoding
# Go's decode into interface{} (DefaultMapType map[string]interface{}), the pure
# ``_Dec.any`` in C. It runs after the well-formedness scan accepted the item, so every
# rejection the scan makes (truncation, limits, NaN/Inf, bignums, undefined, break codes)
# has already been raised in Go's order; the walker still checks each length against the
# end of the buffer before reading, and raises what the pure walker raises for the rest
# (integer overflow, invalid UTF-8, duplicate or non-string keys) in document order.


cdef object _later_text(object b, object tag):
    """A byte string under an expected-later-encoding tag (21, 22, 23) as the pure twin
    writes it into a tree (rare: only untyped values carry such tags)."""
    return _twin()._later_text(b, tag)
cdef object _go_quote = _gofmt_quote


cdef inline int _tree_head(_Reader r, unsigned char* major, unsigned char* ai, uint64_t* val) except -1:
    """One head, bounds-checked; ``ai`` 31 (indefinite length) gives ``val`` 0."""
    cdef Py_ssize_t pos = r.pos
    cdef unsigned char ib, a
    cdef int i, n
    cdef uint64_t v
    if pos >= r.end:
        raise DecodeError("unexpected EOF")
    ib = r.p[pos]
    a = ib & 0x1F
    major[0] = ib >> 5
    ai[0] = a
    pos += 1
    if a < 24:
        val[0] = a
    elif a <= 27:
        n = 1 << (a - 24)
        if n > r.end - pos:
            raise DecodeError("unexpected EOF")
        v = 0
        for i in range(n):
            v = (v << 8) | r.p[pos + i]
        pos += n
        val[0] = v
    elif a == 31:
        val[0] = 0
    else:
        raise DecodeError(f"cbor: invalid additional information {a} for type {_TYPE_NAMES[major[0]]}")
    r.pos = pos
    return 0


cdef inline bint _tree_break(_Reader r) except -1:
    """At the break code closing an indefinite-length container: consume it."""
    if r.pos >= r.end:
        raise DecodeError("unexpected EOF")
    if r.p[r.pos] == 0xFF:
        r.pos += 1
        return True
    return False


cdef object _tree_text(_Reader r, unsigned char major, const unsigned char* s, Py_ssize_t n,
                       uint64_t later):
    """The Go string of a byte (2) or text (3) string's content."""
    if major == 2 and later:
        return _later_text(PyBytes_FromStringAndSize(<const char*>s, n), later)
    u = _ascii_str(&r.strings, s, n)
    if u is not None:
        return u
    if major == 3:
        try:
            return PyUnicode_DecodeUTF8(<const char*>s, n, NULL)
        except UnicodeDecodeError:
            raise DecodeError("cbor: invalid UTF-8 string") from None
    # A byte string is a Go string of any bytes: invalid UTF-8 is kept as surrogate escapes
    # (the encoders write them back as the same bytes).
    return PyUnicode_DecodeUTF8(<const char*>s, n, "surrogateescape")


cdef object _tree_string(_Reader r, unsigned char major, unsigned char ai, uint64_t n, uint64_t later):
    cdef const unsigned char* s
    cdef unsigned char cmajor, cai
    cdef uint64_t cn
    if ai != 31:
        if n > <uint64_t>(r.end - r.pos):
            raise DecodeError("unexpected EOF")
        s = r.p + r.pos
        r.pos += <Py_ssize_t>n
        return _tree_text(r, major, s, <Py_ssize_t>n, later)
    # Indefinite length: definite chunks of the same major type up to a break, joined.
    parts = bytearray()
    while not _tree_break(r):
        _tree_head(r, &cmajor, &cai, &cn)
        if cmajor != major:
            raise DecodeError(f"cbor: wrong element type {_TYPE_NAMES[cmajor]} "
                              f"for indefinite-length {_TYPE_NAMES[major]}")
        if cai == 31:
            raise DecodeError(f"cbor: indefinite-length {_TYPE_NAMES[major]} chunk is not definite-length")
        if cn > <uint64_t>(r.end - r.pos):
            raise DecodeError("unexpected EOF")
        parts += PyBytes_FromStringAndSize(<const char*>(r.p + r.pos), <Py_ssize_t>cn)
        r.pos += <Py_ssize_t>cn
    b = bytes(parts)
    return _tree_text(r, major, <const unsigned char*>PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b), later)


cdef object _tree_key(_Reader r):
    """A map key: a byte or text string (tags skipped), as the pure ``any_key``."""
    cdef unsigned char major, ai
    cdef uint64_t val, later = 0
    _tree_head(r, &major, &ai, &val)
    while major == 6:
        if val == 21 or val == 22 or val == 23:
            later = val
        _tree_head(r, &major, &ai, &val)
    if major == 2 or major == 3:
        return _tree_string(r, major, ai, val, later)
    raise DecodeError(f"cbor: cannot unmarshal {_TYPE_NAMES[major]} into Go value of type string")


cdef object _tree_any(_Reader r):
    cdef unsigned char major, ai
    cdef uint64_t val, later = 0
    cdef uint32_t f32
    cdef float fv
    cdef double dv
    _tree_head(r, &major, &ai, &val)
    while major == 6:
        # Tags are dropped; an expected-later-encoding tag (21, 22, 23) shapes the byte
        # string it ends up on.
        if val == 21 or val == 22 or val == 23:
            later = val
        _tree_head(r, &major, &ai, &val)
    if major == 0:
        if val > <uint64_t>9223372036854775807ULL:
            raise DecodeError(f"cbor: cannot unmarshal positive integer into Go value of type int64 "
                              f"({PyLong_FromUnsignedLongLong(val)} overflows)")
        return PyLong_FromLongLong(<long long>val)
    if major == 1:
        if val > <uint64_t>9223372036854775807ULL:
            raise DecodeError(f"cbor: cannot unmarshal negative integer into Go value of type int64 "
                              f"(-{PyLong_FromUnsignedLongLong(val) + 1} overflows Go's int64)")
        return PyLong_FromLongLong(-1 - <long long>val)
    if major == 2 or major == 3:
        return _tree_string(r, major, ai, val, later)
    if major == 4 or major == 5:
        # One recursion level per container, counted as the pure walker's frames are.
        _enter(" while decoding CBOR")
        try:
            if major == 4:
                return _tree_array(r, ai, val)
            return _tree_map(r, ai, val)
        finally:
            Py_LeaveRecursiveCall()
    if major == 7:
        if ai == 25:
            dv = _half(<uint16_t>val)
        elif ai == 26:
            f32 = <uint32_t>val
            memcpy(&fv, &f32, 4)
            dv = fv
        elif ai == 27:
            memcpy(&dv, &val, 8)
        elif val == 20:
            return False
        elif val == 21:
            return True
        else:
            return None
        if not _finite(dv):
            _twin()._check_float(dv)
        return PyFloat_FromDouble(dv)
    raise DecodeError("cbor: unexpected data item")


cdef object _tree_array(_Reader r, unsigned char ai, uint64_t n):
    cdef uint64_t i
    if ai == 31:
        out = []
        while not _tree_break(r):
            PyList_Append(out, _tree_any(r))
        return out
    # Every item takes at least one byte: a count beyond the data never allocates.
    if n > <uint64_t>(r.end - r.pos):
        raise DecodeError("unexpected EOF")
    out = PyList_New(<Py_ssize_t>n)
    for i in range(n):
        x = _tree_any(r)
        Py_INCREF(x)
        PyList_SET_ITEM(out, <Py_ssize_t>i, x)
    return out


cdef object _tree_map(_Reader r, unsigned char ai, uint64_t n):
    cdef dict out = {}
    cdef uint64_t i = 0
    if ai != 31 and n > <uint64_t>(r.end - r.pos):
        raise DecodeError("unexpected EOF")
    while True:
        if ai == 31:
            if _tree_break(r):
                break
        elif i == n:
            break
        key = _tree_key(r)
        if PyDict_Contains(out, key):
            raise DecodeError(f"cbor: found duplicate map key {_go_quote(key)} at map element index {i}")
        PyDict_SetItem(out, key, _tree_any(r))
        i += 1
    return out


def cbor_loads(data, Py_ssize_t start=0, Py_ssize_t end=-1):
    """CBOR item ``data[start:end]`` -> JSON-shaped tree (Go's decode into interface{})."""
    cdef bytes b = data if type(data) is bytes else bytes(data)
    cdef _Reader r
    if end < 0 or end > PyBytes_GET_SIZE(b):
        end = PyBytes_GET_SIZE(b)
    _check_whole(b, start, end)
    r = _Reader()
    r.data = b
    r.p = <const unsigned char*>PyBytes_AS_STRING(b)
    r.pos = start
    r.end = end
    strcache_init(&r.strings, end - start)
    gc_pause()
    try:
        return _tree_any(r)
    except RecursionError:
        raise DecodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}") from None
    finally:
        gc_resume()
