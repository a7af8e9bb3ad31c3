# cython: language_level=3
"""Compiled JSON kernels: bytes straight into typed objects, typed objects straight to bytes.

Twins of ``kcodec._native.json`` (``json_fill``, ``json_fill_vouched``, ``json_encode``,
``json_container_scan``). They walk the compiled
field tables of :mod:`kcodec._speedups._tables` and never build the intermediate tree,
except for the one value a ``CustomValue`` hook or an untyped (``K_ANY``) field needs.

Exactness contract: the pure twins are the specification. Whatever the direct paths here do
not handle natively - any syntax error, type error, hook error, duplicate key, number
outside float64, nesting beyond the native limit, non-``str`` map key, NaN... - makes the
kernel give up and run the pure twin on the same input, so errors (class, text, byte
offset) and results are the pure ones by construction. The decoder fills the caller's
object in place; before it starts it takes a deep copy, and when it gives up it puts the
copy's fields back first, so the pure run starts from the untouched object.

Every read of the input is bounds-checked explicitly against its length.
"""
cimport cython
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF, Py_DECREF, Py_XDECREF
from cpython.dict cimport PyDict_SetItem, PyDict_Size
from cpython.list cimport PyList_Append
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.string cimport memcmp, memcpy, memset
from libc.stdlib cimport malloc, calloc, free, realloc
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.math cimport isinf, isnan
from kcodec._speedups._bytebuf cimport bytebuf_free, bytebuf_grow, bytebuf_new, bytebuf_take
from kcodec._speedups._jsonblock cimport kc_prefix_xor
from kcodec import _kinds

from kcodec._speedups._tables cimport (
    Table, TypeRow, FieldRow, table_of, get_field, set_field, is_zero_value,
    gc_pause, gc_resume, untrack, StrCache, strcache_init, strcache_ascii, strcache_clear,
    new_time, kc_prefetch, check_scalar, time_frac_for, time_from_text,
)

__all__ = ["json_fill", "json_fill_vouched", "json_encode", "json_container_scan"]

# Kind codes (equal to kcodec._kinds; _tables checks them at import).
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
    # Native nesting limit: deeper input goes to the pure twin (iterative parser, Go's
    # 10000 limit) instead of risking the C stack of a thread (a few hundred KB at most).
    MAX_DEPTH = 256
    # Longest string the decoder shares through its cache.
    SHORT_STR = 64
    # Kinds of path segments.
    SEG_FIELD = 0
    SEG_INDEX = 1
    SEG_KEY = 2
    # Scanner flags of one string literal.
    S_ESC = 1
    S_HIGH = 2
    HOOK_CACHE_MAX = 4096
    # Writer flags of one field.
    F_OMITEMPTY = 1
    F_OMITZERO = 2
    F_POINTER = 4
    F_INLINE = 8
    F_HIDDEN = 16

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void* PyUnicode_DATA(object o)
    int PyUnicode_KIND(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    bint PyUnicode_IS_ASCII(object o)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)
    double PyOS_string_to_double(const char* s, char** endptr, PyObject* overflow_exception) except? -1.0
    long long PyLong_AsLongLongAndOverflow(object o, int* overflow) except? -1
    object PyBytes_FromStringAndSize(const char* s, Py_ssize_t n)
    int _PyBytes_Resize(PyObject** b, Py_ssize_t n) except -1
    PyObject* PyDict_GetItemWithError(object d, object key) except? NULL
    PyTypeObject PyUnicode_Type
    PyTypeObject PyLong_Type
    PyTypeObject PyFloat_Type
    PyTypeObject PyList_Type
    PyTypeObject* Py_TYPE(PyObject* o)
    Py_ssize_t PyList_GET_SIZE(PyObject* o)
    PyObject* PyList_GET_ITEM(PyObject* o, Py_ssize_t i)
    bint PyType_IsSubtype(PyTypeObject* a, PyTypeObject* b)
    bint PyLong_CheckExact(object o)
    bint PyUnicode_CheckExact(object o)
    bint PyDict_Check(object o)
    PyObject* Py_None
    PyObject* Py_True
    PyObject* Py_False
    # Borrowed-pointer spellings for the writer's hot path (no refcount traffic).
    Py_ssize_t _ulen "PyUnicode_GET_LENGTH"(PyObject* o)
    bint _uascii "PyUnicode_IS_ASCII"(PyObject* o)
    void* _udata "PyUnicode_DATA"(PyObject* o)
    int _ukind "PyUnicode_KIND"(PyObject* o)
    long long _as_longlong "PyLong_AsLongLongAndOverflow"(PyObject* o, int* overflow) except? -1

# Python-level collaborators, bound on first use: this module is imported while
# kcodec.model is still initialising (model -> speedups -> _speedups).
cdef bint _ready = False

# Go's zero time (0001-01-01T00:00:00Z) and the bounds of four-digit years, in Unix seconds.
cdef long long _ZERO_UNIX_SEC = -62135596800LL
cdef long long _YEAR0_UNIX_SEC = -62167219200LL
cdef long long _YEAR10000_UNIX_SEC = 253402300800LL
cdef object _b64decode
cdef object _b2a_base64
cdef object _JSONNumber
cdef object _format_float
cdef object _compact
cdef object _indent
cdef object _escape_string
cdef object _RawJSON
cdef object _Struct
cdef object _StructMeta
# Go's per-byte U+FFFD replacement of invalid UTF-8 (registered by _gojson at import).
cdef const char* _DECODE_ERRORS = b"kcodec-gojson-replace"
cdef str _JTAB = "__kc_jtab__"
# Bumped by every top-level call: a cached class table is re-validated (class recompiled?)
# once per call, not once per object.
cdef unsigned long _epoch = 1

# The pure twin (kcodec._native.json), imported on first need: it decides whatever the
# direct reader and writer hand over (errors and their texts, shapes they do not take on),
# so compiled mode never loads it for an ordinary document.
cdef object _pure_mod = None


cdef object _twin():
    global _pure_mod
    if _pure_mod is None:
        from kcodec._native import json
        _pure_mod = json
    return _pure_mod


cdef object _pure_json_fill(obj, cls, data, strict, path):
    return _twin().json_fill(obj, cls, data, strict, path)


cdef object _pure_json_encode(obj, pretty, newline):
    return _twin().json_encode(obj, pretty, newline)


cdef object _pure_struct_to_tree(obj):
    # The tree walker the pure encoder writes from, for a class whose JSON names collide.
    from kcodec._native.codec import struct_to_tree
    return struct_to_tree(obj)


cdef int _setup() except -1:
    global _ready, _b64decode
    global _b2a_base64, _format_float, _compact, _indent, _escape_string, _RawJSON, _Struct
    global _StructMeta, _JSONNumber
    import binascii
    from kcodec import fieldtable as model
    from kcodec import gojson as _gojson
    _b64decode = _gojson.b64decode
    _JSONNumber = model.JSONNumber
    _b2a_base64 = binascii.b2a_base64
    _format_float = _gojson.format_float
    _compact = _gojson.compact
    _indent = _gojson.indent
    _escape_string = _gojson.escape_string
    _RawJSON = model.RawJSON
    _Struct = model.StructBase
    _StructMeta = model.StructMeta
    _ready = True
    return 0


class _GiveUp(Exception):
    """The fast path met something only the pure twin handles exactly."""


cdef int MAX_ENCODE_DEPTH = _kinds.MAX_ENCODE_DEPTH


cdef int _give_up() except -1:
    raise _GiveUp()


# ----------------------------------------------------------------------------------------
# Byte classes.

# String bodies: 0 = plain byte; 1 = '"' or '\\' or control (stop); 2 = high byte.
cdef unsigned char _STR_CLASS[256]
# Bytes the writer escapes (controls, " \\ < > &) or treats as non-ASCII: 1.
cdef unsigned char _ESC_ASCII[256]
cdef unsigned char _HEXVAL[256]
cdef const char* _HEXDIGITS = b"0123456789abcdef"


cdef void _init_classes():
    cdef int i
    for i in range(256):
        _STR_CLASS[i] = 0
        _ESC_ASCII[i] = 0
        _HEXVAL[i] = 0xFF
    for i in range(0x20):
        _STR_CLASS[i] = 1
        _ESC_ASCII[i] = 1
    _STR_CLASS[0x22] = 1
    _STR_CLASS[0x5C] = 1
    for i in range(0x80, 256):
        _STR_CLASS[i] = 2
        _ESC_ASCII[i] = 1
    for i in (0x22, 0x5C, 0x3C, 0x3E, 0x26):
        _ESC_ASCII[i] = 1
    for i in range(10):
        _HEXVAL[0x30 + i] = i
    for i in range(6):
        _HEXVAL[0x41 + i] = 10 + i
        _HEXVAL[0x61 + i] = 10 + i


_init_classes()


# ----------------------------------------------------------------------------------------
# Per-class JSON tables (beside the shared field Table): raw key bytes for matching without
# building key strings, the inline chains, and flat C rows for the writer.

ctypedef struct EField:
    Py_ssize_t offset       # slot offset, -1: read with getattr
    PyObject* row           # borrowed FieldRow (kept alive by _JTab.efields)
    const char* key         # ',"key":' (kept alive by _JTab.ekey)
    Py_ssize_t keylen
    int kind
    int ekind               # element kind of a list/map, else 0
    int flags               # F_*
    PyObject* sub           # borrowed _JTab of the struct (or element struct) class, or NULL


@cython.final
cdef class _JTab:
    cdef Table table
    cdef object cls
    cdef bint direct
    cdef unsigned long epoch     # the call that last validated this table
    # decoding: one entry per JSON key (Table.json order == declaration order)
    cdef Py_ssize_t nkeys
    cdef const char** kptr
    cdef Py_ssize_t* klen
    cdef PyObject** ksub         # borrowed _JTab of the entry's struct / element struct, or NULL
    cdef set subs                # keeps the ksub / ef.sub tables alive (and visible to the GC)
    cdef PyObject** kfield_p     # borrowed FieldRow per entry (kept alive by kfield)
    cdef PyObject** kstr_p       # borrowed key str per entry (kept alive by kstr)
    cdef PyObject** kchain_p     # borrowed chain tuple per entry or NULL (kept alive by kchain)
    cdef list kbytes             # bytes objects the kptr point into
    cdef bint kplain             # every key is printable ASCII without quote or backslash
    cdef list kstr               # key str, per entry
    cdef list kfield             # FieldRow (last hop), per entry
    cdef list kchain             # None or tuple of (FieldRow hop, Table of the hop's class)
    cdef dict kindex             # key str -> entry index
    cdef bint meta_keys_exact    # no key but kind/apiVersion folds to one (json_fill_vouched)
    # encoding
    cdef Py_ssize_t nfields
    cdef EField* ef
    cdef list efields            # FieldRow, declaration order
    cdef list ekey               # b'"key"'
    cdef bint collide            # inline flattening meets a key twice: use the pure tree walk
    cdef Py_ssize_t size_hint    # about the size of the last encoding of this class

    def __dealloc__(self):
        free(self.ksub)
        free(self.kfield_p)
        free(self.kstr_p)
        free(self.kchain_p)
        free(self.ef)
        free(self.kptr)
        free(self.klen)

    cdef init(self, Table table):
        cdef Py_ssize_t i
        cdef FieldRow f
        cdef EField* e
        self.table = table
        self.cls = table.cls
        self.direct = table.direct
        items = list(table.json.items())
        self.nkeys = len(items)
        self.subs = set()
        self.kptr = <const char**>calloc(self.nkeys + 1, sizeof(char*))
        self.klen = <Py_ssize_t*>calloc(self.nkeys + 1, sizeof(Py_ssize_t))
        self.ksub = <PyObject**>calloc(self.nkeys + 1, sizeof(PyObject*))
        self.kfield_p = <PyObject**>calloc(self.nkeys + 1, sizeof(PyObject*))
        self.kstr_p = <PyObject**>calloc(self.nkeys + 1, sizeof(PyObject*))
        self.kchain_p = <PyObject**>calloc(self.nkeys + 1, sizeof(PyObject*))
        if (self.kptr == NULL or self.klen == NULL or self.ksub == NULL or self.kfield_p == NULL
                or self.kstr_p == NULL or self.kchain_p == NULL):
            raise MemoryError()
        self.kbytes = []
        self.kstr = []
        self.kfield = []
        self.kchain = []
        self.kindex = {}
        self.kplain = True
        for i in range(self.nkeys):
            key, chain = items[i]
            b = (<str>key).encode("utf-8", "surrogatepass")
            if not all(0x20 <= c < 0x7F and c != 0x22 and c != 0x5C for c in b):
                self.kplain = False
            self.kbytes.append(b)
            self.kptr[i] = PyBytes_AS_STRING(b)
            self.klen[i] = PyBytes_GET_SIZE(b)
            self.kstr.append(key)
            self.kfield.append(chain[len(chain) - 1])
            if len(chain) > 1:
                self.kchain.append(tuple((hop, table_of((<FieldRow>hop).cls)) for hop in chain[:len(chain) - 1]))
            else:
                self.kchain.append(None)
            self.kindex[key] = i
        # Go's MetaFactory matches kind/apiVersion case-insensitively (EqualFold, with the
        # Kelvin sign and long s); a class with, say, "Kind" beside "kind" is never vouched for.
        self.meta_keys_exact = True
        for key in self.kindex:
            if key != "kind" and key != "apiVersion":
                folded = (<str>key).replace("\u212a", "k").replace("\u017f", "s").lower()
                if folded == "kind" or folded == "apiversion":
                    self.meta_keys_exact = False
        for i in range(self.nkeys):
            self.kfield_p[i] = <PyObject*>self.kfield[i]
            self.kstr_p[i] = <PyObject*>self.kstr[i]
            self.kchain_p[i] = NULL if self.kchain[i] is None else <PyObject*>self.kchain[i]
        self.efields = list(table.fields)
        self.nfields = len(self.efields)
        self.ef = <EField*>calloc(self.nfields + 1, sizeof(EField))
        if self.ef == NULL:
            raise MemoryError()
        self.ekey = []
        for i in range(self.nfields):
            f = <FieldRow>self.efields[i]
            # Stored as ',"key":' so compact output writes separator, key and colon at once.
            kb = b"," + _escape_string(f.json).encode("utf-8", "kcodec-gojson-escape") + b":"
            self.ekey.append(kb)
            e = &self.ef[i]
            e.offset = f.offset if table.direct else -1
            e.row = <PyObject*>f
            e.key = PyBytes_AS_STRING(kb)
            e.keylen = PyBytes_GET_SIZE(kb)
            e.kind = f.kind
            e.ekind = f.elem.kind if f.elem is not None else 0
            e.flags = 0
            if f.omitempty:
                e.flags |= F_OMITEMPTY
            if f.omitzero:
                e.flags |= F_OMITZERO
            if f.pointer:
                e.flags |= F_POINTER
            if f.inline and f.kind == K_STRUCT:
                e.flags |= F_INLINE
            elif f.json == "-":
                e.flags |= F_HIDDEN
            e.sub = NULL
        emitted = []
        _emitted_keys(table, emitted)
        self.collide = len(emitted) != len(set(emitted))


cdef inline bint _plain8(const unsigned char* p) noexcept nogil:
    """Whether the 8 bytes at ``p`` hold no quote, backslash, byte < 0x20 or >= 0x80
    (SWAR: a zero byte of ``x`` sets its high bit in ``(x - 0x01..) & ~x & 0x80..``;
    borrows only cause false alarms, which the byte loop then settles)."""
    cdef uint64_t w, lo = 0x0101010101010101ULL, hi = 0x8080808080808080ULL
    cdef uint64_t q, bs
    memcpy(&w, p, 8)
    q = w ^ (lo * 0x22)
    bs = w ^ (lo * 0x5C)
    return ((w | ((w - lo * 0x20) & ~w) | ((q - lo) & ~q) | ((bs - lo) & ~bs)) & hi) == 0


cdef inline bint _plain8_out(uint64_t w) noexcept nogil:
    """Whether none of the 8 ASCII bytes in ``w`` is one Go's encoder escapes: controls,
    quote, backslash and the HTML-unsafe ``<``, ``>``, ``&`` (false alarms are allowed, as
    in :func:`_plain8`)."""
    cdef uint64_t lo = 0x0101010101010101ULL, hi = 0x8080808080808080ULL
    cdef uint64_t q = w ^ (lo * 0x22), bs = w ^ (lo * 0x5C), lt = w ^ (lo * 0x3C)
    cdef uint64_t gt = w ^ (lo * 0x3E), am = w ^ (lo * 0x26)
    return (((w - lo * 0x20) & ~w) | ((q - lo) & ~q) | ((bs - lo) & ~bs) | ((lt - lo) & ~lt)
            | ((gt - lo) & ~gt) | ((am - lo) & ~am)) & hi == 0


cdef inline bint _same(const char* a, const char* b, Py_ssize_t n) noexcept:
    """memcmp(a, b, n) == 0 without a call, for the short keys of Go structs: whole words,
    the last one overlapping the previous instead of a byte loop (never past ``n``)."""
    cdef uint64_t x, y
    cdef uint32_t u, v
    cdef Py_ssize_t i = 0
    if n >= 8:
        if n > 32:
            return memcmp(a, b, n) == 0
        while i + 8 <= n:
            memcpy(&x, a + i, 8)
            memcpy(&y, b + i, 8)
            if x != y:
                return False
            i += 8
        if i == n:
            return True
        memcpy(&x, a + n - 8, 8)
        memcpy(&y, b + n - 8, 8)
        return x == y
    if n >= 4:
        memcpy(&u, a, 4)
        memcpy(&v, b, 4)
        if u != v:
            return False
        memcpy(&u, a + n - 4, 4)
        memcpy(&v, b + n - 4, 4)
        return u == v
    for i in range(n):
        if a[i] != b[i]:
            return False
    return True


cdef _emitted_keys(Table table, list out):
    cdef FieldRow f
    for f in table.fields:
        if f.inline and f.kind == K_STRUCT:
            _emitted_keys(table_of(f.cls), out)
        elif f.json != "-":
            out.append(f.json)


cdef _JTab jtab_of(object cls):
    """The JSON table of Struct class ``cls``, checked against the class's current field
    table (rebuilt when the class was recompiled)."""
    cdef Table table = table_of(cls)
    cdef PyObject* p = PyDict_GetItemWithError(<object>(<PyTypeObject*>cls).tp_dict, _JTAB)
    cdef _JTab jt
    if p != NULL and type(<object>p) is _JTab and (<_JTab>p).table is table:
        jt = <_JTab>p
    else:
        jt = _JTab.__new__(_JTab)
        jt.init(table)
        type.__setattr__(cls, _JTAB, jt)
    jt.epoch = _epoch
    return jt


cdef inline _JTab cached_jtab(_JTab owner, PyObject** slot, object cls):
    """``jtab_of(cls)`` remembered in ``slot`` of ``owner``, validated once per call.

    The slot is a borrowed pointer; ``owner.subs`` holds the reference, so a table stays
    alive as long as any slot may point at it and recursive types make ordinary cycles the
    collector can see."""
    cdef _JTab jt
    if slot[0] != NULL:
        jt = <_JTab>slot[0]
        if jt.cls is cls and jt.epoch == _epoch:
            return jt
    jt = jtab_of(cls)
    owner.subs.add(jt)
    slot[0] = <PyObject*>jt
    return jt


# ----------------------------------------------------------------------------------------
# Hook results of immutable custom values, shared between equal inputs (a PodList repeats
# the same quantities and timestamps over and over). Bounded: cleared when full.

cdef dict _hook_cache = {}

# How often each kernel handed an input over to its pure twin (tests check that the
# fast paths really run on ordinary documents).
cdef Py_ssize_t _decode_handovers = 0
cdef Py_ssize_t _encode_handovers = 0


def _handovers():
    """(decode, encode) counts of inputs left to the pure twins since import."""
    return _decode_handovers, _encode_handovers


# ----------------------------------------------------------------------------------------
# Decoder.

cdef inline int _mark_seen(Py_ssize_t idx, uint64_t* small, unsigned char* big) except -1:
    """Note that key ``idx`` of an object was met (in ``big`` when the table has over 64
    keys, else in the bits of ``small``); a repeated key gives up: the pure twin keeps only
    the last."""
    if big != NULL:
        if big[idx]:
            _give_up()
        big[idx] = 1
    else:
        if small[0] & ((<uint64_t>1) << idx):
            _give_up()
        small[0] |= (<uint64_t>1) << idx
    return 0


@cython.final
cdef class _Dec:
    cdef object data            # the bytes being parsed (kept alive)
    cdef const unsigned char* buf
    cdef Py_ssize_t n
    cdef Py_ssize_t pos
    cdef bint strict
    cdef list msgs
    cdef set msgset
    cdef object root
    cdef int depth
    # A top-level key that was not the exact, unescaped name of a field (json_fill_vouched).
    cdef bint top_odd
    cdef int nseg
    cdef unsigned char segk[MAX_DEPTH + 8]
    cdef PyObject* sego[MAX_DEPTH + 8]
    cdef Py_ssize_t segi[MAX_DEPTH + 8]
    # Direct-mapped cache of short plain strings: a list of similar objects repeats most
    # of its strings, and sharing one immutable str per value saves an allocation each
    # time and most of the decoded result's memory. Sized on first use from the input.
    cdef StrCache strs

    def __dealloc__(self):
        strcache_clear(&self.strs)

    # -- path of the value being decoded (only turned into text when a hook or a strict
    #    message needs it)

    cdef inline int push(self, unsigned char kind, PyObject* o, Py_ssize_t i) except -1:
        if self.nseg >= MAX_DEPTH + 4:
            _give_up()
        self.segk[self.nseg] = kind
        self.sego[self.nseg] = o
        self.segi[self.nseg] = i
        self.nseg += 1
        return 0

    cdef str spath(self):
        parts = []
        cdef int i
        cdef unsigned char k
        for i in range(self.nseg):
            k = self.segk[i]
            if k == SEG_FIELD:
                if i:
                    parts.append(".")
                parts.append(<str>self.sego[i])
            elif k == SEG_INDEX:
                parts.append(f"[{self.segi[i]}]")
            else:
                parts.append("[")
                parts.append(<str>self.sego[i])
                parts.append("]")
        return "".join(parts)

    cdef str fullpath(self):
        if self.nseg == 0:
            return self.root
        return f"{self.root}.{self.spath()}"

    # -- lexing

    cdef inline void ws(self) noexcept:
        cdef Py_ssize_t p = self.pos
        cdef const unsigned char* b = self.buf
        cdef Py_ssize_t n = self.n
        cdef unsigned char c
        while p < n:
            c = b[p]
            if c == 0x20 or c == 0x0A or c == 0x0D or c == 0x09:
                p += 1
            else:
                break
        self.pos = p

    cdef inline unsigned char peek(self) except 0:
        """The byte at pos (0 would only come from a NUL, itself a syntax error)."""
        if self.pos >= self.n:
            _give_up()
        if self.buf[self.pos] == 0:
            _give_up()
        return self.buf[self.pos]

    cdef int scan_str(self, Py_ssize_t* start, Py_ssize_t* end) except -1:
        """Validate the string literal at pos (opening quote); return its flags."""
        cdef const unsigned char* b = self.buf
        cdef Py_ssize_t n = self.n
        cdef Py_ssize_t i = self.pos + 1
        cdef int flags = 0
        cdef unsigned char c, cls
        cdef int j
        while True:
            # Eight bytes at a time while none is a quote, a backslash, a control or a
            # non-ASCII byte (the usual case), then byte by byte from the first that may be.
            while i + 8 <= n and _plain8(b + i):
                i += 8
            while i < n and _STR_CLASS[b[i]] == 0:
                i += 1
            if i >= n:
                _give_up()
            c = b[i]
            cls = _STR_CLASS[c]
            if cls == 2:
                flags |= S_HIGH
                i += 1
                continue
            if c == 0x22:
                break
            if c == 0x5C:
                flags |= S_ESC
                if i + 1 >= n:
                    _give_up()
                c = b[i + 1]
                if c == 0x75:
                    if i + 5 >= n:
                        _give_up()
                    for j in range(2, 6):
                        if _HEXVAL[b[i + j]] == 0xFF:
                            _give_up()
                    i += 6
                    continue
                if (c == 0x22 or c == 0x5C or c == 0x2F or c == 0x62 or c == 0x66
                        or c == 0x6E or c == 0x72 or c == 0x74):
                    i += 2
                    continue
                _give_up()
            _give_up()  # control character
        start[0] = self.pos + 1
        end[0] = i
        self.pos = i + 1
        return flags

    cdef object make_str(self, Py_ssize_t s, Py_ssize_t e, int flags):
        cdef object u
        if flags == 0:
            if 0 < e - s <= SHORT_STR:
                return self.short_str(self.buf + s, e - s)
            u = PyUnicode_New(e - s, 127)
            memcpy(PyUnicode_DATA(u), self.buf + s, e - s)
            return u
        if not (flags & S_ESC):
            return PyUnicode_DecodeUTF8(<const char*>self.buf + s, e - s, _DECODE_ERRORS)
        return self.unescape(s, e)

    cdef object short_str(self, const unsigned char* a, Py_ssize_t n):
        """The str of the ASCII bytes ``a[0:n]`` (1 <= n <= SHORT_STR), from the cache."""
        cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t>n
        cdef uint64_t chunk
        cdef Py_ssize_t i = 0
        if self.strs.tab == NULL:
            strcache_init(&self.strs, self.n)
        while i + 8 <= n:
            memcpy(&chunk, a + i, 8)
            h = (h ^ chunk) * 0x100000001B3ULL
            h ^= h >> 32
            i += 8
        if i < n:
            # Only whole words inside the string are loaded; the tail is copied.
            chunk = 0
            memcpy(&chunk, a + i, n - i)
            h = (h ^ chunk) * 0x100000001B3ULL
            h ^= h >> 32
        return strcache_ascii(&self.strs, a, n, h ^ (h >> 17))

    cdef object unescape(self, Py_ssize_t s, Py_ssize_t e):
        """Escapes resolved as Go does (surrogate pairs joined, lone surrogates U+FFFD),
        raw bytes kept, then one UTF-8 decode with Go's replacement of invalid bytes."""
        cdef const unsigned char* b = self.buf
        cdef unsigned char* out = <unsigned char*>malloc(e - s + 4)
        cdef Py_ssize_t i = s, o = 0
        cdef unsigned char c
        cdef unsigned int cp, lo
        if out == NULL:
            raise MemoryError()
        try:
            while i < e:
                c = b[i]
                if c != 0x5C:
                    out[o] = c
                    o += 1
                    i += 1
                    continue
                c = b[i + 1]  # scan_str proved the escape is complete
                i += 2
                if c == 0x75:
                    cp = ((_HEXVAL[b[i]] << 12) | (_HEXVAL[b[i + 1]] << 8)
                          | (_HEXVAL[b[i + 2]] << 4) | _HEXVAL[b[i + 3]])
                    i += 4
                    if 0xD800 <= cp < 0xDC00:
                        if i + 6 <= e and b[i] == 0x5C and b[i + 1] == 0x75:
                            lo = ((_HEXVAL[b[i + 2]] << 12) | (_HEXVAL[b[i + 3]] << 8)
                                  | (_HEXVAL[b[i + 4]] << 4) | _HEXVAL[b[i + 5]])
                            if 0xDC00 <= lo < 0xE000:
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                                i += 6
                            else:
                                cp = 0xFFFD
                        else:
                            cp = 0xFFFD
                    elif 0xDC00 <= cp < 0xE000:
                        cp = 0xFFFD
                    if cp < 0x80:
                        out[o] = <unsigned char>cp
                        o += 1
                    elif cp < 0x800:
                        out[o] = <unsigned char>(0xC0 | (cp >> 6))
                        out[o + 1] = <unsigned char>(0x80 | (cp & 0x3F))
                        o += 2
                    elif cp < 0x10000:
                        out[o] = <unsigned char>(0xE0 | (cp >> 12))
                        out[o + 1] = <unsigned char>(0x80 | ((cp >> 6) & 0x3F))
                        out[o + 2] = <unsigned char>(0x80 | (cp & 0x3F))
                        o += 3
                    else:
                        out[o] = <unsigned char>(0xF0 | (cp >> 18))
                        out[o + 1] = <unsigned char>(0x80 | ((cp >> 12) & 0x3F))
                        out[o + 2] = <unsigned char>(0x80 | ((cp >> 6) & 0x3F))
                        out[o + 3] = <unsigned char>(0x80 | (cp & 0x3F))
                        o += 4
                    continue
                if c == 0x62:
                    c = 0x08
                elif c == 0x66:
                    c = 0x0C
                elif c == 0x6E:
                    c = 0x0A
                elif c == 0x72:
                    c = 0x0D
                elif c == 0x74:
                    c = 0x09
                out[o] = c
                o += 1
            return PyUnicode_DecodeUTF8(<const char*>out, o, _DECODE_ERRORS)
        finally:
            free(out)

    cdef inline object parse_str(self):
        cdef Py_ssize_t s, e
        cdef int flags = self.scan_str(&s, &e)
        return self.make_str(s, e, flags)

    cdef int literal(self, const char* word, Py_ssize_t wl) except -1:
        if self.pos + wl > self.n or memcmp(self.buf + self.pos, word, wl) != 0:
            _give_up()
        self.pos += wl
        return 0

    cdef int scan_number(self, Py_ssize_t* start, Py_ssize_t* int_end) except -1:
        """Validate the number at pos; return 1 for an integer literal, 0 otherwise."""
        cdef const unsigned char* b = self.buf
        cdef Py_ssize_t n = self.n
        cdef Py_ssize_t i = self.pos
        cdef int integer = 1
        start[0] = i
        if b[i] == 0x2D:
            i += 1
        if i >= n:
            _give_up()
        if b[i] == 0x30:
            i += 1
        elif 0x31 <= b[i] <= 0x39:
            i += 1
            while i < n and 0x30 <= b[i] <= 0x39:
                i += 1
        else:
            _give_up()
        int_end[0] = i
        if i < n and b[i] == 0x2E:
            i += 1
            if i >= n or not (0x30 <= b[i] <= 0x39):
                _give_up()
            while i < n and 0x30 <= b[i] <= 0x39:
                i += 1
            integer = 0
        if i < n and (b[i] == 0x65 or b[i] == 0x45):
            i += 1
            if i < n and (b[i] == 0x2B or b[i] == 0x2D):
                i += 1
            if i >= n or not (0x30 <= b[i] <= 0x39):
                _give_up()
            while i < n and 0x30 <= b[i] <= 0x39:
                i += 1
            integer = 0
        self.pos = i
        return integer

    cdef double to_double(self, Py_ssize_t s, Py_ssize_t e) except? -1.0:
        """float64 of the validated number text [s, e); out of range gives up (the pure
        parser reports it)."""
        cdef char* endp = NULL
        cdef double d = PyOS_string_to_double(<const char*>self.buf + s, &endp, NULL)
        if endp != <char*>self.buf + e or isinf(d) or isnan(d):
            _give_up()
        return d

    cdef int int_value(self, Py_ssize_t s, Py_ssize_t e, int64_t* out) except -1:
        """The int64 of an integer literal [s, e); 0 when it does not fit int64."""
        cdef const unsigned char* b = self.buf
        cdef bint neg = b[s] == 0x2D
        cdef uint64_t acc = 0, d
        cdef Py_ssize_t i = s + 1 if neg else s
        if e - i > 20:
            return 0
        while i < e:
            d = b[i] - 0x30
            if acc > (<uint64_t>0xFFFFFFFFFFFFFFFF - d) // 10:
                return 0
            acc = acc * 10 + d
            i += 1
        if neg:
            if acc > (<uint64_t>1 << 63):
                return 0
            out[0] = <int64_t>(0 - acc)
        else:
            if acc > (<uint64_t>0x7FFFFFFFFFFFFFFF):
                return 0
            out[0] = <int64_t>acc
        return 1

    cdef object number_value(self):
        """Go's rule for untyped numbers: an integer literal that fits int64 is int,
        anything else float."""
        cdef Py_ssize_t s, ie
        cdef int64_t v
        if self.scan_number(&s, &ie) and self.int_value(s, self.pos, &v):
            return v
        return self.to_double(s, self.pos)

    cdef int skip_number(self) except -1:
        cdef Py_ssize_t s, ie
        cdef int integer = self.scan_number(&s, &ie)
        cdef Py_ssize_t i
        if not integer:
            # A float is only out of range with an exponent or very many digits.
            for i in range(s, self.pos):
                if self.buf[i] == 0x65 or self.buf[i] == 0x45:
                    self.to_double(s, self.pos)
                    return 0
        if self.pos - s > 300:
            self.to_double(s, self.pos)
        return 0

    # -- generic values

    cdef object tree(self):
        """The JSON tree value at pos (what the pure parser builds)."""
        cdef unsigned char c = self.peek()
        cdef Py_ssize_t s, e
        cdef int flags
        cdef Py_ssize_t size
        if c == 0x22:
            return self.parse_str()
        if c == 0x7B:
            self.depth += 1
            if self.depth > MAX_DEPTH:
                _give_up()
            d = {}
            self.pos += 1
            self.ws()
            if self.peek() == 0x7D:
                self.pos += 1
                self.depth -= 1
                return d
            while True:
                if self.peek() != 0x22:
                    _give_up()
                key = self.parse_str()
                self.ws()
                if self.peek() != 0x3A:
                    _give_up()
                self.pos += 1
                self.ws()
                size = PyDict_Size(d)
                PyDict_SetItem(d, key, self.tree())
                if PyDict_Size(d) == size:
                    _give_up()  # repeated key: strict mode marks it, let the pure twin
                self.ws()
                c = self.peek()
                if c == 0x2C:
                    self.pos += 1
                    self.ws()
                    continue
                if c == 0x7D:
                    self.pos += 1
                    break
                _give_up()
            self.depth -= 1
            return d
        if c == 0x5B:
            self.depth += 1
            if self.depth > MAX_DEPTH:
                _give_up()
            lst = []
            self.pos += 1
            self.ws()
            if self.peek() == 0x5D:
                self.pos += 1
                self.depth -= 1
                return lst
            while True:
                PyList_Append(lst, self.tree())
                self.ws()
                c = self.peek()
                if c == 0x2C:
                    self.pos += 1
                    self.ws()
                    continue
                if c == 0x5D:
                    self.pos += 1
                    break
                _give_up()
            self.depth -= 1
            return lst
        if c == 0x74:
            self.literal(b"true", 4)
            return True
        if c == 0x66:
            self.literal(b"false", 5)
            return False
        if c == 0x6E:
            self.literal(b"null", 4)
            return None
        if c == 0x2D or 0x30 <= c <= 0x39:
            return self.number_value()
        _give_up()

    cdef int skip(self) except -1:
        """Validate and step over the value at pos (an unknown field's)."""
        cdef unsigned char c = self.peek()
        cdef Py_ssize_t s, e
        if c == 0x22:
            self.scan_str(&s, &e)
            return 0
        if c == 0x7B or c == 0x5B:
            self.depth += 1
            if self.depth > MAX_DEPTH:
                _give_up()
            self.pos += 1
            self.ws()
            if c == 0x7B:
                if self.peek() == 0x7D:
                    self.pos += 1
                else:
                    while True:
                        if self.peek() != 0x22:
                            _give_up()
                        self.scan_str(&s, &e)
                        self.ws()
                        if self.peek() != 0x3A:
                            _give_up()
                        self.pos += 1
                        self.ws()
                        self.skip()
                        self.ws()
                        c = self.peek()
                        if c == 0x2C:
                            self.pos += 1
                            self.ws()
                            continue
                        if c == 0x7D:
                            self.pos += 1
                            break
                        _give_up()
            else:
                if self.peek() == 0x5D:
                    self.pos += 1
                else:
                    while True:
                        self.skip()
                        self.ws()
                        c = self.peek()
                        if c == 0x2C:
                            self.pos += 1
                            self.ws()
                            continue
                        if c == 0x5D:
                            self.pos += 1
                            break
                        _give_up()
            self.depth -= 1
            return 0
        if c == 0x74:
            return self.literal(b"true", 4)
        if c == 0x66:
            return self.literal(b"false", 5)
        if c == 0x6E:
            return self.literal(b"null", 4)
        if c == 0x2D or 0x30 <= c <= 0x39:
            return self.skip_number()
        _give_up()

    # -- typed values

    cdef object hook(self, TypeRow t, object v):
        """``t.cls._from_tree(v, path)``; results of immutable types are shared."""
        cdef PyObject* p
        cdef dict cache
        if t.shareable and PyUnicode_CheckExact(v):
            p = PyDict_GetItemWithError(_hook_cache, t.cls)
            if p == NULL:
                cache = {}
                _hook_cache[t.cls] = cache
            else:
                cache = <dict>p
                p = PyDict_GetItemWithError(cache, v)
                if p != NULL:
                    return <object>p
            r = time_from_text(t.cls, v)
            if r is None:
                r = t.cls._from_tree(v, self.fullpath())
            if PyDict_Size(cache) >= HOOK_CACHE_MAX:
                cache.clear()
            cache[v] = r
            return r
        return t.cls._from_tree(v, self.fullpath())

    cdef object value(self, TypeRow t, object old, _JTab owner, PyObject** jslot):
        """The new value of a slot of type ``t`` holding ``old`` (None when fresh).

        ``jslot`` (in ``owner``) caches the JSON table of the struct class below the slot."""
        cdef unsigned char c = self.peek()
        cdef int k = t.kind
        cdef Py_ssize_t s, ie
        cdef int64_t iv
        cdef int integer
        if c == 0x6E:
            self.literal(b"null", 4)
            if t.pointer or k == K_LIST or k == K_MAP or k == K_BYTES or k == K_ANY:
                return None
            if k == K_CUSTOM:
                return self.hook(t, None)
            if k == K_STRUCT:
                return old if old is not None else t.struct_table().new_zero_untracked()
            return old if old is not None else t.zero()
        if k == K_STR:
            if c != 0x22:
                _give_up()
            return self.parse_str()
        if k == K_STRUCT:
            if c != 0x7B:
                _give_up()
            sub = old if old is not None else t.struct_table().new_zero_untracked()
            self.fill(sub, cached_jtab(owner, jslot, t.cls))
            return sub
        if k == K_LIST:
            if c != 0x5B:
                _give_up()
            if old is not None and len(old) and t.elem.kind in (K_STRUCT, K_MAP, K_LIST):
                _give_up()  # Go decodes into the existing elements: the pure twin merges them
            return self.list_value(t.elem, owner, jslot)
        if k == K_INT32 or k == K_INT64:
            if not (c == 0x2D or 0x30 <= c <= 0x39):
                _give_up()
            if not self.scan_number(&s, &ie) or not self.int_value(s, self.pos, &iv):
                _give_up()
            if k == K_INT32 and not (-2147483648 <= iv <= 2147483647):
                _give_up()
            return iv
        if k == K_BOOL:
            if c == 0x74:
                self.literal(b"true", 4)
                return True
            if c == 0x66:
                self.literal(b"false", 5)
                return False
            _give_up()
        if k == K_CUSTOM:
            if c == 0x2D or 0x30 <= c <= 0x39:
                # Go hands the hook the number's own text (a Quantity keeps "1e3").
                integer = self.scan_number(&s, &ie)
                if integer and self.int_value(s, self.pos, &iv):
                    return self.hook(t, iv)
                self.to_double(s, self.pos)  # out of float64 range: the pure twin reports it
                return self.hook(t, _JSONNumber(PyUnicode_DecodeUTF8(<const char*>self.buf + s,
                                                                      self.pos - s, NULL)))
            if (c == 0x7B or c == 0x5B) and t.cls.__dict__.get("_KC_RAW_JSON"):
                # UnmarshalJSON keeps the value's own text (RawExtension, FieldsV1).
                s = self.pos
                self.skip()
                return self.hook(t, _RawJSON(PyBytes_FromStringAndSize(<const char*>self.buf + s,
                                                                       self.pos - s)))
            return self.hook(t, self.tree())
        if k == K_MAP:
            if c != 0x7B:
                _give_up()
            m = self.map_value(t.elem, owner, jslot)
            if old is not None:
                old.update(m)
                return old
            return m
        if k == K_FLOAT:
            if not (c == 0x2D or 0x30 <= c <= 0x39):
                _give_up()
            integer = self.scan_number(&s, &ie)
            if integer and self.int_value(s, self.pos, &iv):
                return <double>iv
            return self.to_double(s, self.pos)
        if k == K_BYTES:
            if c != 0x22:
                _give_up()
            text = self.parse_str()
            # Go's rule raises DecodeError; the pure twin then reports it with the path.
            return _b64decode(text)
        return self.tree()  # K_ANY

    cdef object list_value(self, TypeRow e, _JTab owner, PyObject** jslot):
        cdef unsigned char c
        cdef Py_ssize_t i = 0
        lst = []
        # Decoded containers are left to reference counting, as the protobuf kernel
        # does (the reasoning is in _tables.pyx): lists stay untracked as they grow.
        untrack(lst)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            _give_up()
        self.pos += 1
        self.ws()
        if self.peek() == 0x5D:
            self.pos += 1
            self.depth -= 1
            return lst
        self.push(SEG_INDEX, NULL, 0)
        while True:
            self.segi[self.nseg - 1] = i
            PyList_Append(lst, self.value(e, None, owner, jslot))
            self.ws()
            c = self.peek()
            if c == 0x2C:
                self.pos += 1
                self.ws()
                i += 1
                continue
            if c == 0x5D:
                self.pos += 1
                break
            _give_up()
        self.nseg -= 1
        self.depth -= 1
        return lst

    cdef object map_value(self, TypeRow e, _JTab owner, PyObject** jslot):
        cdef unsigned char c
        cdef Py_ssize_t size
        d = {}
        self.depth += 1
        if self.depth > MAX_DEPTH:
            _give_up()
        self.pos += 1
        self.ws()
        if self.peek() == 0x7D:
            self.pos += 1
            self.depth -= 1
            untrack(d)
            return d
        while True:
            if self.peek() != 0x22:
                _give_up()
            key = self.parse_str()
            self.ws()
            if self.peek() != 0x3A:
                _give_up()
            self.pos += 1
            self.ws()
            self.push(SEG_KEY, <PyObject*>key, 0)
            v = self.value(e, None, owner, jslot)
            self.nseg -= 1
            size = PyDict_Size(d)
            PyDict_SetItem(d, key, v)
            if PyDict_Size(d) == size:
                _give_up()  # repeated key
            self.ws()
            c = self.peek()
            if c == 0x2C:
                self.pos += 1
                self.ws()
                continue
            if c == 0x7D:
                self.pos += 1
                break
            _give_up()
        self.depth -= 1
        untrack(d)
        return d

    cdef int unknown(self, object key) except -1:
        """Strict mode: record ``unknown field "<path>"``."""
        self.push(SEG_FIELD, <PyObject*>key, 0)
        msg = f'unknown field "{self.spath()}"'
        self.nseg -= 1
        if msg not in self.msgset:
            self.msgset.add(msg)
            self.msgs.append(msg)
        return 0

    cdef int fill(self, object obj, _JTab jt) except -1:
        """Merge the JSON object at pos into struct ``obj`` (Go's decode-into semantics)."""
        cdef Py_ssize_t s, e, idx
        cdef Py_ssize_t nk = jt.nkeys
        cdef int flags
        cdef unsigned char c
        cdef Py_ssize_t expect = 0
        cdef uint64_t seen_small = 0
        cdef unsigned char* seen_big = NULL
        cdef bint direct = jt.direct and type(obj) is jt.cls
        cdef set seen_unknown = None
        self.depth += 1
        if self.depth > MAX_DEPTH:
            _give_up()
        self.pos += 1
        self.ws()
        if self.peek() == 0x7D:
            self.pos += 1
            self.depth -= 1
            return 0
        if nk > 64:
            seen_big = <unsigned char*>malloc(nk)
            if seen_big == NULL:
                raise MemoryError()
            memset(seen_big, 0, nk)
        try:
            while True:
                idx = self.member_key(jt, &expect, &s, &e, &flags)
                if self.depth == 1 and (idx < 0 or flags != 0):
                    self.top_odd = True
                self.ws()
                if self.peek() != 0x3A:
                    _give_up()
                self.pos += 1
                self.ws()
                if idx < 0:
                    seen_unknown = self.unknown_member(s, e, flags, seen_unknown)
                else:
                    _mark_seen(idx, &seen_small, seen_big)
                    self.fill_member(obj, jt, idx, direct)
                self.ws()
                c = self.peek()
                if c == 0x2C:
                    self.pos += 1
                    self.ws()
                    continue
                if c == 0x7D:
                    self.pos += 1
                    break
                _give_up()
        finally:
            if seen_big != NULL:
                free(seen_big)
        self.depth -= 1
        return 0

    cdef inline Py_ssize_t member_key(self, _JTab jt, Py_ssize_t* expect, Py_ssize_t* ks,
                                      Py_ssize_t* ke, int* kflags) except -2:
        """Read the member key at pos (a string, or give up) and answer its index in ``jt``'s
        keys, or -1 when it names no field; ``ks``/``ke``/``kflags`` locate its text (as
        scan_str does). ``expect`` is the index after the last match, tried first: Go writes
        keys in declaration order."""
        cdef const unsigned char* b = self.buf
        cdef Py_ssize_t nk = jt.nkeys
        cdef Py_ssize_t i, j, kl, s, e
        cdef int flags
        cdef PyObject* p
        if self.peek() != 0x22:
            _give_up()
        # When the text right after the quote is the expected key and a quote follows, that
        # is the whole literal (table keys hold no quote, backslash or control byte), so the
        # general scan is not needed.
        i = expect[0] if expect[0] < nk else 0
        kl = jt.klen[i] if nk else -1
        s = self.pos + 1
        if (jt.kplain and kl > 0 and s + kl < self.n and b[s + kl] == 0x22
                and _same(jt.kptr[i], <const char*>b + s, kl)):
            self.pos = s + kl + 1
            ks[0], ke[0], kflags[0] = s, s + kl, 0
            expect[0] = i + 1
            return i
        flags = self.scan_str(&s, &e)
        ks[0], ke[0], kflags[0] = s, e, flags
        if flags != 0:
            # Escapes or non-ASCII bytes: the decoded key, looked up by value.
            key = self.make_str(s, e, flags)
            p = PyDict_GetItemWithError(jt.kindex, key)
            return <Py_ssize_t>(<object>p) if p != NULL else -1
        # The one after the last match first, then the rest in order.
        kl = e - s
        i = expect[0]
        for j in range(nk):
            if i >= nk:
                i = 0
            if jt.klen[i] == kl and _same(jt.kptr[i], <const char*>b + s, kl):
                expect[0] = i + 1
                return i
            i += 1
        return -1

    cdef set unknown_member(self, Py_ssize_t s, Py_ssize_t e, int flags, set seen):
        """Skip the value of a key (text at ``s``..``e``) that names no field; strict mode
        records it. ``seen`` holds the unknown keys of this object so far (None until the
        first): returned, as it grew."""
        if self.strict:
            key = self.make_str(s, e, flags)
            # A repeated unknown key is also a duplicate: the pure twin reports both, in its
            # order.
            if seen is None:
                seen = set()
            if key in seen:
                _give_up()
            seen.add(key)
            self.unknown(key)
        self.skip()
        return seen

    cdef inline int fill_member(self, object obj, _JTab jt, Py_ssize_t idx, bint direct) except -1:
        """Decode the value at pos into the field of key ``idx`` of ``jt``, through the inline
        structs that lead to it (made zero where absent), as the pure _fill does."""
        cdef FieldRow f = <FieldRow>jt.kfield_p[idx]
        cdef FieldRow hop
        cdef Table htab
        cdef bint tdirect = direct
        cdef unsigned char c
        target = obj
        if jt.kchain_p[idx] != NULL:
            for link in <tuple>jt.kchain_p[idx]:
                hop = <FieldRow>(<tuple>link)[0]
                htab = <Table>(<tuple>link)[1]
                sub = get_field(target, hop, tdirect)
                if sub is None:
                    sub = hop.struct_table().new_zero_untracked()
                    set_field(target, hop, sub, tdirect)
                target = sub
                tdirect = htab.direct and type(target) is htab.cls
        if f.kind == K_STR:
            # A struct's string field: null clears a pointer and leaves a value as it was,
            # whatever it holds (the pure _fill).
            c = self.peek()
            if c == 0x22:
                set_field(target, f, self.parse_str(), tdirect)
            elif c == 0x6E:
                self.literal(b"null", 4)
                if f.pointer:
                    set_field(target, f, None, tdirect)
            else:
                _give_up()
            return 0
        self.push(SEG_FIELD, jt.kstr_p[idx], 0)
        set_field(target, f, self.value(f, get_field(target, f, tdirect), jt, &jt.ksub[idx]), tdirect)
        self.nseg -= 1
        return 0

    cdef int run(self, object obj, _JTab jt) except -1:
        self.ws()
        cdef unsigned char c = self.peek()
        if c == 0x6E:
            self.literal(b"null", 4)
        elif c == 0x7B:
            self.fill(obj, jt)
        else:
            _give_up()
        self.ws()
        if self.pos != self.n:
            _give_up()
        return 0


# ----------------------------------------------------------------------------------------
# Deep copy: the pristine state the decoder puts back before handing over to the pure twin
# (same values as ``Struct.deep_copy``).

cdef object _copy_any(object v):
    if PyDict_Check(v):
        return {k: _copy_any(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy_any(x) for x in v]
    return v


cdef object _copy_value(TypeRow t, object v):
    cdef int k
    cdef TypeRow e
    if v is None:
        return None
    k = t.kind
    if k == K_STRUCT:
        return _copy_struct(v)
    if k == K_CUSTOM:
        return v if t.shareable else v.deep_copy()
    if k == K_LIST:
        e = t.elem
        if e.kind <= K_FLOAT or e.kind == K_BYTES:
            return list(v)
        return [_copy_value(e, x) for x in v]
    if k == K_MAP:
        e = t.elem
        if e.kind <= K_FLOAT or e.kind == K_BYTES:
            return dict(v)
        return {key: _copy_value(e, x) for key, x in v.items()}
    if k == K_ANY:
        return _copy_any(v)
    return v


cdef object _copy_struct(object obj):
    cdef object tp = type(obj)
    cdef Table table = table_of(tp)
    cdef bint direct = table.direct and table.owns(obj)
    cdef FieldRow f
    new = object.__new__(tp)
    for f in table.fields:
        set_field(new, f, _copy_value(f, get_field(obj, f, direct)), direct)
    return new


cdef int _restore(object obj, object backup) except -1:
    cdef Table table = table_of(type(obj))
    cdef bint direct = table.direct and table.owns(obj)
    cdef FieldRow f
    for f in table.fields:
        set_field(obj, f, get_field(backup, f, direct), direct)
    return 0


# ----------------------------------------------------------------------------------------
# Decoding entry point.

cdef object _to_bytes(object data):
    if type(data) is bytes:
        return data
    if isinstance(data, str):
        return (<str>data).encode("utf-8", "surrogatepass")
    return bytes(data)


cdef _Dec _new_dec(bytes raw, bint strict, object root):
    cdef _Dec dec = _Dec.__new__(_Dec)
    dec.data = raw
    dec.buf = <const unsigned char*>PyBytes_AS_STRING(raw)
    dec.n = PyBytes_GET_SIZE(raw)
    dec.pos = 0
    dec.strict = strict
    dec.msgs = []
    dec.msgset = set()
    dec.root = root
    dec.depth = 0
    dec.nseg = 0
    dec.top_odd = False
    return dec


cdef bint _run_dec(_Dec dec, object obj, _JTab jt):
    """Fill ``obj`` with the collector paused: a large list makes hundreds of thousands of
    containers that allocation-triggered collections would walk over and over. False when
    the parse gave up or anything it called raised."""
    gc_pause()
    try:
        dec.run(obj, jt)
        return True
    except Exception:
        return False
    finally:
        gc_resume()


def json_fill(obj, cls, data, strict, path):
    """Parse JSON ``data`` and fill ``obj`` (a compiled ``cls`` instance), Go-style (merge).

    Same contract and results as ``kcodec._native.json.json_fill``. The collector is
    paused while the objects are built: a large list makes hundreds of thousands of
    containers, and allocation-triggered collections would walk them over and over (more
    than doubling the time); they are tracked and collected as usual afterwards.
    """
    global _decode_handovers, _epoch
    cdef _Dec dec
    cdef _JTab jt
    cdef bint ok = False
    if not _ready:
        _setup()
    if not isinstance(cls, _StructMeta) or not isinstance(obj, cls):
        return _pure_json_fill(obj, cls, data, strict, path)
    raw = _to_bytes(data)
    _epoch += 1
    try:
        jt = jtab_of(cls)
        backup = _copy_struct(obj)
    except Exception:
        # An object the fast path cannot snapshot (unset slots, odd values): the pure
        # twin decides what happens.
        _decode_handovers += 1
        return _pure_json_fill(obj, cls, data, strict, path)
    dec = _new_dec(raw, strict is not None, path)
    # False on _GiveUp, or when a hook / merge target raised: the pure twin raises the same,
    # from the untouched object.
    ok = _run_dec(dec, obj, jt)
    if ok:
        for msg in dec.msgs:
            if msg not in strict:
                strict.append(msg)
        return None
    _decode_handovers += 1
    _restore(obj, backup)
    return _pure_json_fill(obj, cls, data, strict, path)


def json_fill_vouched(obj, cls, data, Py_ssize_t start=0, end=None):
    """Fill a fresh ``obj`` (exactly of compiled ``cls``) from JSON ``data[start:end]``, for
    a decode that guessed ``cls`` before Go's MetaFactory pass; answer how far the result
    stands. The span is read in place (a watch event's object is read inside its frame).

    2: the whole text was valid JSON, the fill completed, and every top-level key was the
    exact, unescaped name of a field of ``cls`` with no other key that Go's case-insensitive
    ``apiVersion``/``kind`` match could take; so the apiVersion and kind ``obj`` holds are
    what the MetaFactory would read. 1: the fill completed as ``json_fill`` would have done
    it, but the top-level keys are not vouched for (the caller must read the kind itself).
    0: nothing is vouched for; ``obj`` may be partly filled and must be discarded. Never
    raises for bad input: the caller's general path reports errors with Go's texts.
    """
    global _epoch
    cdef _Dec dec
    cdef _JTab jt
    if not _ready:
        _setup()
    cdef Py_ssize_t stop
    if type(data) is not bytes or not isinstance(cls, _StructMeta) or type(obj) is not cls:
        return 0
    stop = PyBytes_GET_SIZE(data) if end is None else end
    if start < 0 or stop < start or stop > PyBytes_GET_SIZE(data):
        raise ValueError(f"json_fill_vouched: span [{start}:{stop}] outside {PyBytes_GET_SIZE(data)} bytes")
    _epoch += 1
    try:
        jt = jtab_of(cls)
    except Exception:
        return 0
    dec = _new_dec(data, False, cls.__name__)
    dec.pos = start
    dec.n = stop
    # On _GiveUp or a hook's error the general path decides, with Go's error text.
    if not _run_dec(dec, obj, jt):
        return 0
    return 1 if dec.top_odd or not jt.meta_keys_exact else 2


# ----------------------------------------------------------------------------------------
# Encoder.

@cython.final
cdef class _Enc:
    cdef PyObject* out          # bytes object used as the growing buffer (owned)
    cdef char* buf
    cdef Py_ssize_t len
    cdef Py_ssize_t cap
    cdef bint pretty
    cdef int depth
    cdef dict custom_cache      # id -> (value, bytes) of immutable custom values

    cdef inline int nest(self) except -1:
        """One level deeper; past MAX_ENCODE_DEPTH (this writer recurses in C, whatever
        Python's recursion limit) the pure twin takes over and raises its EncodeError."""
        self.depth += 1
        if self.depth > MAX_ENCODE_DEPTH:
            _give_up()
        return 0

    def __dealloc__(self):
        bytebuf_free(&self.out)

    cdef int start(self, Py_ssize_t cap) except -1:
        bytebuf_new(&self.out, &self.buf, &self.cap, cap)
        self.len = 0
        return 0

    cdef object finish(self):
        return bytebuf_take(&self.out, self.len)

    cdef int grow(self, Py_ssize_t extra) except -1:
        return bytebuf_grow(&self.out, &self.buf, &self.cap, self.len + extra)

    cdef inline int reserve(self, Py_ssize_t extra) except -1:
        if self.len + extra > self.cap:
            self.grow(extra)
        return 0

    cdef inline int put(self, const char* s, Py_ssize_t n) except -1:
        cdef char* o
        cdef Py_ssize_t i
        if self.len + n > self.cap:
            self.grow(n)
        o = self.buf + self.len
        # Keys and short literals: two overlapping fixed-size copies instead of a loop or
        # a call (every read and write stays inside [0, n)).
        if n >= 8:
            if n <= 16:
                memcpy(o, s, 8)
                memcpy(o + n - 8, s + n - 8, 8)
            else:
                memcpy(o, s, n)
        elif n >= 4:
            memcpy(o, s, 4)
            memcpy(o + n - 4, s + n - 4, 4)
        else:
            for i in range(n):
                o[i] = s[i]
        self.len += n
        return 0

    cdef inline int put1(self, char c) except -1:
        if self.len + 1 > self.cap:
            self.grow(1)
        self.buf[self.len] = c
        self.len += 1
        return 0

    cdef inline int put_bytes(self, bytes b) except -1:
        return self.put(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b))

    cdef int newline(self) except -1:
        cdef Py_ssize_t n = 1 + 2 * self.depth
        self.reserve(n)
        self.buf[self.len] = 10
        memset(self.buf + self.len + 1, 0x20, n - 1)
        self.len += n
        return 0

    cdef inline int sep(self, int* count) except -1:
        """Before a member or element: the comma and, when pretty, the line break."""
        if count[0]:
            self.put1(0x2C)
        count[0] += 1
        if self.pretty:
            self.newline()
        return 0

    cdef inline int put_key(self, EField* e, int* count) except -1:
        """Separator, key and colon of struct field ``e`` (``e.key`` is ',"key":')."""
        cdef Py_ssize_t n = e.keylen
        if self.pretty:
            return self.put_key_pretty(e, count)
        if self.len + n > self.cap:
            self.grow(n)
        if count[0]:
            memcpy(self.buf + self.len, e.key, n)
            self.len += n
        else:
            memcpy(self.buf + self.len, e.key + 1, n - 1)
            self.len += n - 1
        count[0] += 1
        return 0

    cdef int put_key_pretty(self, EField* e, int* count) except -1:
        self.sep(count)
        self.put(e.key + 1, e.keylen - 2)
        return self.put(b": ", 2)

    cdef inline int colon(self) except -1:
        if self.pretty:
            return self.put(b": ", 2)
        return self.put1(0x3A)

    cdef int close(self, char opener, char closer, int count) except -1:
        """End a container opened with ``opener`` that got ``count`` members."""
        self.depth -= 1
        if count == 0:
            return self.put1(closer)
        if self.pretty:
            self.newline()
        return self.put1(closer)

    # -- scalars

    cdef inline int put_str(self, object s) except -1:
        return self.put_str_p(<PyObject*>s)

    cdef int put_str_p(self, PyObject* s) except -1:
        """Go's string literal: raw UTF-8, short escapes, HTML-safe <>&, U+2028/2029
        escaped, unpaired surrogates as \\ufffd (what the pure writer emits).

        ``s`` is an exact str, borrowed: nothing here runs Python code."""
        cdef Py_ssize_t n = _ulen(s)
        cdef Py_ssize_t i, run
        cdef const unsigned char* a
        cdef int kind
        cdef void* data
        cdef Py_UCS4 ch
        cdef char* o
        cdef Py_ssize_t need = 6 * n + 2
        cdef uint64_t w
        if n > 4096 and _uascii(s):
            # A long text: reserve what it needs, not six bytes per character.
            a = <const unsigned char*>_udata(s)
            need = n + 2
            for i in range(n):
                if _ESC_ASCII[a[i]]:
                    need += 5
        if self.len + need > self.cap:
            self.grow(need)
        o = self.buf + self.len
        o[0] = 0x22
        o += 1
        if _uascii(s):
            a = <const unsigned char*>_udata(s)
            i = 0
            while i < n:
                # Whole words while none of their bytes needs an escape (the output has
                # room: six bytes per character were reserved), then one byte.
                while i + 8 <= n:
                    memcpy(&w, a + i, 8)
                    if not _plain8_out(w):
                        break
                    memcpy(o, &w, 8)
                    o += 8
                    i += 8
                if i >= n:
                    break
                if _ESC_ASCII[a[i]]:
                    o = _esc_ascii(o, a[i])
                else:
                    o[0] = <char>a[i]
                    o += 1
                i += 1
        else:
            kind = _ukind(s)
            data = _udata(s)
            for i in range(n):
                ch = PyUnicode_READ(kind, data, i)
                if ch < 0x80:
                    if _ESC_ASCII[ch]:
                        o = _esc_ascii(o, <unsigned char>ch)
                    else:
                        o[0] = <char>ch
                        o += 1
                elif ch < 0x800:
                    o[0] = <char>(0xC0 | (ch >> 6))
                    o[1] = <char>(0x80 | (ch & 0x3F))
                    o += 2
                elif ch < 0x10000:
                    if 0xD800 <= ch < 0xE000:
                        memcpy(o, b"\\ufffd", 6)
                        o += 6
                    elif ch == 0x2028 or ch == 0x2029:
                        memcpy(o, b"\\u202", 5)
                        o[5] = <char>(0x38 if ch == 0x2028 else 0x39)
                        o += 6
                    else:
                        o[0] = <char>(0xE0 | (ch >> 12))
                        o[1] = <char>(0x80 | ((ch >> 6) & 0x3F))
                        o[2] = <char>(0x80 | (ch & 0x3F))
                        o += 3
                else:
                    o[0] = <char>(0xF0 | (ch >> 18))
                    o[1] = <char>(0x80 | ((ch >> 12) & 0x3F))
                    o[2] = <char>(0x80 | ((ch >> 6) & 0x3F))
                    o[3] = <char>(0x80 | (ch & 0x3F))
                    o += 4
        o[0] = 0x22
        o += 1
        self.len = o - self.buf
        return 0

    cdef inline int put_int(self, object v) except -1:
        return self.put_int_p(<PyObject*>v)

    cdef int put_int_p(self, PyObject* v) except -1:
        """An exact int, borrowed."""
        cdef int overflow = 0
        cdef long long x = _as_longlong(v, &overflow)
        cdef char tmp[24]
        cdef int i = 24
        cdef unsigned long long u
        if overflow:
            return self.put_ascii(int.__repr__(<object>v))
        if x < 0:
            u = <unsigned long long>0 - <unsigned long long>x
        else:
            u = <unsigned long long>x
        while True:
            i -= 1
            tmp[i] = <char>(0x30 + u % 10)
            u //= 10
            if u == 0:
                break
        if x < 0:
            i -= 1
            tmp[i] = 0x2D
        return self.put(tmp + i, 24 - i)

    cdef int put_ascii(self, str s) except -1:
        return self.put_bytes(s.encode("ascii"))

    # -- generic trees (custom values, K_ANY fields)

    cdef int put_tree(self, object v) except -1:
        cdef int count = 0
        cdef PyTypeObject* tp = Py_TYPE(<PyObject*>v)
        if tp == &PyUnicode_Type:
            return self.put_str(v)
        if <PyObject*>v == Py_None:
            return self.put(b"null", 4)
        if <PyObject*>v == Py_True:
            return self.put(b"true", 4)
        if <PyObject*>v == Py_False:
            return self.put(b"false", 5)
        if tp == &PyLong_Type:
            return self.put_int(v)
        if tp == &PyFloat_Type:
            return self.put_ascii(_format_float(v))
        if PyDict_Check(v):
            self.put1(0x7B)
            self.nest()
            for key, x in v.items():
                if not PyUnicode_CheckExact(key):
                    _give_up()  # the pure writer's key coercions
                self.sep(&count)
                self.put_str(key)
                self.colon()
                self.put_tree(x)
            return self.close(0x7B, 0x7D, count)
        if isinstance(v, (list, tuple)):
            self.put1(0x5B)
            self.nest()
            for x in v:
                self.sep(&count)
                self.put_tree(x)
            return self.close(0x5B, 0x5D, count)
        if type(v) is _RawJSON:
            return self.put_raw(v)
        if isinstance(v, str):
            return self.put_str(str(v))
        if isinstance(v, int) and not isinstance(v, bool):
            return self.put_ascii(int.__repr__(v))
        if isinstance(v, float):
            return self.put_ascii(_format_float(float(v)))
        _give_up()

    cdef int put_raw(self, object raw) except -1:
        cdef bytes data = raw.data
        if self.pretty:
            return self.put_bytes(_indent(_compact(data), self.depth))
        if _valid_json(data):
            return self.put_compact(data)
        return self.put_bytes(_compact(data))

    cdef int put_compact(self, bytes data) except -1:
        """Go's Compact + HTML escaping of valid JSON text: whitespace outside strings
        dropped, <>& and U+2028/2029 written as \\u escapes, other bytes verbatim."""
        cdef const unsigned char* a = <const unsigned char*>PyBytes_AS_STRING(data)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
        cdef Py_ssize_t i = 0
        cdef bint instr = False
        cdef unsigned char c
        cdef char* o
        self.reserve(6 * n)
        o = self.buf + self.len
        while i < n:
            c = a[i]
            if instr:
                if c == 0x5C:
                    o[0] = <char>c
                    o[1] = <char>a[i + 1]  # valid JSON: an escape is complete
                    o += 2
                    i += 2
                    continue
                if c == 0x22:
                    instr = False
                elif c == 0xE2 and i + 2 < n and a[i + 1] == 0x80 and (a[i + 2] == 0xA8 or a[i + 2] == 0xA9):
                    memcpy(o, b"\\u202", 5)
                    o[5] = <char>(0x38 if a[i + 2] == 0xA8 else 0x39)
                    o += 6
                    i += 3
                    continue
                elif c == 0x3C or c == 0x3E or c == 0x26:
                    o = _esc_ascii(o, c)
                    i += 1
                    continue
            elif c == 0x20 or c == 0x0A or c == 0x0D or c == 0x09:
                i += 1
                continue
            elif c == 0x22:
                instr = True
            o[0] = <char>c
            o += 1
            i += 1
        self.len = o - self.buf
        return 0

    # -- typed values

    cdef int put_time(self, object v, int frac) except -1:
        """A metav1 Time/MicroTime as its JSON text, as ``v._to_tree()`` would give it
        (``null`` for the zero time, else UTC RFC3339 with ``frac`` fraction digits).

        Returns 0 when the value is outside years 0-9999 (or not plainly built) and the
        caller must ask the Python method instead."""
        cdef long long sec, nsec, days, rem, y, m, d, era, doe, yoe, doy, mp, hh, mm, ss, f
        cdef int overflow = 0, i, k
        cdef char* o
        sv = getattr(v, "_sec", None)
        nv = getattr(v, "_nsec", None)
        if type(sv) is not int or type(nv) is not int:
            return 0
        sec = PyLong_AsLongLongAndOverflow(sv, &overflow)
        if overflow:
            return 0
        nsec = PyLong_AsLongLongAndOverflow(nv, &overflow)
        if overflow or nsec < 0 or nsec >= 1000000000:
            return 0
        if sec == _ZERO_UNIX_SEC and nsec == 0:
            self.put(b"null", 4)
            return 1
        if sec < _YEAR0_UNIX_SEC or sec >= _YEAR10000_UNIX_SEC:
            return 0
        # Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil_from_days).
        days = sec // 86400
        rem = sec - days * 86400
        if rem < 0:
            days -= 1
            rem += 86400
        days += 719468
        era = (days if days >= 0 else days - 146096) // 146097
        doe = days - era * 146097
        yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
        y = yoe + era * 400
        doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
        mp = (5 * doy + 2) // 153
        d = doy - (153 * mp + 2) // 5 + 1
        m = mp + 3 if mp < 10 else mp - 9
        if m <= 2:
            y += 1
        if y < 0 or y > 9999:
            return 0
        hh = rem // 3600
        mm = (rem // 60) % 60
        ss = rem % 60
        self.reserve(32)
        o = self.buf + self.len
        o[0] = 0x22
        o[1] = <char>(0x30 + y // 1000)
        o[2] = <char>(0x30 + (y // 100) % 10)
        o[3] = <char>(0x30 + (y // 10) % 10)
        o[4] = <char>(0x30 + y % 10)
        o[5] = 0x2D
        o[6] = <char>(0x30 + m // 10)
        o[7] = <char>(0x30 + m % 10)
        o[8] = 0x2D
        o[9] = <char>(0x30 + d // 10)
        o[10] = <char>(0x30 + d % 10)
        o[11] = 0x54
        o[12] = <char>(0x30 + hh // 10)
        o[13] = <char>(0x30 + hh % 10)
        o[14] = 0x3A
        o[15] = <char>(0x30 + mm // 10)
        o[16] = <char>(0x30 + mm % 10)
        o[17] = 0x3A
        o[18] = <char>(0x30 + ss // 10)
        o[19] = <char>(0x30 + ss % 10)
        i = 20
        if frac > 0:
            o[i] = 0x2E
            f = nsec
            # The first ``frac`` of nine zero-padded digits, as the Python formatter cuts them.
            for k in range(9 - frac):
                f //= 10
            for k in range(frac, 0, -1):
                o[i + k] = <char>(0x30 + f % 10)
                f //= 10
            i += frac + 1
        o[i] = 0x5A
        o[i + 1] = 0x22
        self.len += i + 2
        return 1

    cdef int put_custom(self, TypeRow t, object v) except -1:
        cdef PyObject* p
        cdef Py_ssize_t start
        cdef int frac
        frac = time_frac_for(type(v))
        if frac >= 0 and self.put_time(v, frac):
            return 0
        if not t.shareable:
            return self.put_tree(v._to_tree())
        key = id(v)
        p = PyDict_GetItemWithError(self.custom_cache, key)
        if p != NULL:
            return self.put_bytes(<bytes>(<tuple>p)[1])
        tree = v._to_tree()
        start = self.len
        self.put_tree(tree)
        if tree is None or PyUnicode_CheckExact(tree) or PyLong_CheckExact(tree):
            # Scalars only: their text does not depend on the indentation depth.
            self.custom_cache[key] = (v, PyBytes_FromStringAndSize(self.buf + start, self.len - start))
        return 0

    cdef int put_struct(self, object obj, object declared, _JTab owner, PyObject** jslot) except -1:
        """A struct value: its own class's members (the pure walker uses ``type(v)``)."""
        cdef _JTab jt
        cdef int count = 0
        cdef object tp = type(obj)
        if tp is declared and jslot != NULL:
            jt = cached_jtab(owner, jslot, tp)
        else:
            if not PyType_IsSubtype(<PyTypeObject*>tp, <PyTypeObject*>_Struct):
                _give_up()
            jt = jtab_of(tp)
        if jt.collide:
            return self.put_tree(_pure_struct_to_tree(obj))
        self.put1(0x7B)
        self.nest()
        self.members(obj, jt, &count)
        return self.close(0x7B, 0x7D, count)

    cdef int put_value(self, TypeRow t, object v, _JTab owner, PyObject** jslot) except -1:
        cdef int k = t.kind
        cdef TypeRow e
        cdef int count = 0
        cdef Py_ssize_t j
        cdef PyTypeObject* tp = Py_TYPE(<PyObject*>v)
        if <PyObject*>v == Py_None:
            return self.put(b"null", 4)
        if k == K_STR:
            if tp == &PyUnicode_Type:
                return self.put_str(v)
            check_scalar(k, v)
            return self.put_tree(v)
        if k == K_STRUCT:
            return self.put_struct(v, t.cls, owner, jslot)
        if k == K_LIST:
            e = t.elem
            self.put1(0x5B)
            self.nest()
            if tp == &PyList_Type:
                # Index the list (its size read anew each time, so a list changed by a custom
                # value's encoder stays in bounds) to ask for the next item while this one
                # is written.
                j = 0
                while j < PyList_GET_SIZE(<PyObject*>v):
                    if j + 1 < PyList_GET_SIZE(<PyObject*>v):
                        kc_prefetch(PyList_GET_ITEM(<PyObject*>v, j + 1))
                    x = <object>PyList_GET_ITEM(<PyObject*>v, j)
                    self.sep(&count)
                    self.put_value(e, x, owner, jslot)
                    j += 1
                return self.close(0x5B, 0x5D, count)
            for x in v:
                self.sep(&count)
                self.put_value(e, x, owner, jslot)
            return self.close(0x5B, 0x5D, count)
        if k == K_CUSTOM:
            return self.put_custom(t, v)
        if k <= K_FLOAT:
            check_scalar(k, v)
            return self.put_tree(v)
        if k == K_MAP:
            e = t.elem
            self.put1(0x7B)
            self.nest()
            for key in sorted(v):
                if not PyUnicode_CheckExact(key):
                    _give_up()
                self.sep(&count)
                self.put_str(key)
                self.colon()
                self.put_value(e, v[key], owner, jslot)
            return self.close(0x7B, 0x7D, count)
        if k == K_BYTES:
            b64 = _b2a_base64(v, newline=False)
            self.put1(0x22)
            self.put_bytes(b64)
            return self.put1(0x22)
        return self.put_tree(v)  # K_ANY

    cdef int members(self, object obj, _JTab jt, int* count) except -1:
        """Write the members of struct ``obj`` (and of its inline structs) into the JSON
        object being written, which already has ``count`` members."""
        cdef bint direct = jt.direct and type(obj) is jt.cls
        cdef const char* base = <const char*><PyObject*>obj
        cdef EField* e
        cdef PyObject* p
        cdef Py_ssize_t i
        cdef int k, fl
        cdef FieldRow row
        cdef PyTypeObject* tp
        cdef object v
        if direct:
            # Ask for every value's first line before writing any: the encoder is bound by
            # cache misses on the values of a decoded tree, and these overlap.
            for i in range(jt.nfields):
                if jt.ef[i].offset >= 0:
                    kc_prefetch((<PyObject**>(base + jt.ef[i].offset))[0])
        for i in range(jt.nfields):
            e = &jt.ef[i]
            fl = e.flags
            if fl & F_HIDDEN:
                continue
            k = e.kind
            # Most fields are skipped: look at the slot through a borrowed pointer (no
            # refcount write on values never emitted); take a reference before any call.
            p = NULL
            if direct and e.offset >= 0:
                p = (<PyObject**>(base + e.offset))[0]
            if p == NULL:
                v = getattr(obj, (<FieldRow>e.row).name)
                p = <PyObject*>v
            if p == Py_None:
                if fl & (F_OMITEMPTY | F_OMITZERO | F_INLINE):
                    continue
                self.put_key(e, count)
                self.put(b"null", 4)
                continue
            tp = Py_TYPE(p)
            if fl & F_OMITEMPTY:
                # Go's isEmptyValue: empty slices/maps/bytes, zero non-pointer scalars;
                # structs are never empty.
                if k == K_LIST or k == K_MAP or k == K_BYTES or (k <= K_FLOAT and not (fl & F_POINTER)):
                    if tp == &PyUnicode_Type:
                        if _ulen(p) == 0:
                            continue
                    elif tp == &PyList_Type:
                        if PyList_GET_SIZE(p) == 0:
                            continue
                    elif p == Py_False:
                        continue
                    else:
                        v = <object>p
                        if not v:
                            continue
            if k == K_STR and tp == &PyUnicode_Type and not (fl & (F_INLINE | F_OMITZERO)):
                # The common case, straight from the borrowed slot value.
                self.put_key(e, count)
                self.put_str_p(p)
                continue
            if (k == K_INT32 or k == K_INT64) and tp == &PyLong_Type and not (fl & (F_INLINE | F_OMITZERO)):
                self.put_key(e, count)
                self.put_int_p(p)
                continue
            v = <object>p
            if fl & F_INLINE:
                row = <FieldRow>e.row
                if type(v) is not row.cls:
                    _give_up()  # another class could bring other keys
                self.members(v, cached_jtab(jt, &e.sub, row.cls), count)
                continue
            if (fl & F_OMITZERO) and not (fl & F_POINTER) and is_zero_value(<FieldRow>e.row, v):
                continue
            self.put_key(e, count)
            if k == K_STR and tp == &PyUnicode_Type:
                self.put_str(v)
            elif k == K_STRUCT:
                self.put_struct(v, (<FieldRow>e.row).cls, jt, &e.sub)
            elif (k == K_INT32 or k == K_INT64) and tp == &PyLong_Type:
                self.put_int(v)
            elif k == K_BOOL and (p == Py_True or p == Py_False):
                if p == Py_True:
                    self.put(b"true", 4)
                else:
                    self.put(b"false", 5)
            else:
                self.put_value(<FieldRow>e.row, v, jt, &e.sub)
        return 0


cdef bint _valid_json(bytes data) except -1:
    """Whether ``data`` is one JSON value the native scanner accepts (anything it does not
    handle natively counts as invalid here: the caller then asks the pure helpers)."""
    cdef _Dec dec = _Dec.__new__(_Dec)
    dec.data = data
    dec.buf = <const unsigned char*>PyBytes_AS_STRING(data)
    dec.n = PyBytes_GET_SIZE(data)
    dec.pos = 0
    dec.depth = 0
    try:
        dec.ws()
        dec.skip()
        dec.ws()
    except _GiveUp:
        return False
    return dec.pos == dec.n


cdef inline char* _esc_ascii(char* o, unsigned char c):
    if c == 0x22:
        o[0] = 0x5C
        o[1] = 0x22
        return o + 2
    if c == 0x5C:
        o[0] = 0x5C
        o[1] = 0x5C
        return o + 2
    if c == 0x0A:
        o[0] = 0x5C
        o[1] = 0x6E
        return o + 2
    if c == 0x0D:
        o[0] = 0x5C
        o[1] = 0x72
        return o + 2
    if c == 0x09:
        o[0] = 0x5C
        o[1] = 0x74
        return o + 2
    if c == 0x08:
        o[0] = 0x5C
        o[1] = 0x62
        return o + 2
    if c == 0x0C:
        o[0] = 0x5C
        o[1] = 0x66
        return o + 2
    # other controls, < > &
    o[0] = 0x5C
    o[1] = 0x75
    o[2] = 0x30
    o[3] = 0x30
    o[4] = _HEXDIGITS[c >> 4]
    o[5] = _HEXDIGITS[c & 0xF]
    return o + 6


def json_encode(obj, pretty, newline=False):
    """Typed struct -> Go's JSON bytes (compact or pretty), plus ``\\n`` when ``newline``.

    Same output and errors as ``kcodec._native.json.json_encode``: anything the direct
    writer does not handle natively (including every error) is left to the pure twin.
    """
    global _encode_handovers, _epoch
    cdef _Enc enc
    cdef _JTab jt
    if not _ready:
        _setup()
    _epoch += 1
    enc = _Enc.__new__(_Enc)
    enc.pretty = bool(pretty)
    enc.depth = 0
    enc.custom_cache = {}
    try:
        if not PyType_IsSubtype(Py_TYPE(<PyObject*>obj), <PyTypeObject*>_Struct):
            _give_up()
        jt = jtab_of(type(obj))
        enc.start(jt.size_hint if jt.size_hint > 256 else 256)
        enc.put_struct(obj, type(obj), None, NULL)
    except Exception:
        _encode_handovers += 1
        return _pure_json_encode(obj, pretty, newline)
    if newline:
        enc.put(b"\n", 1)
    # The next encode of this class starts with a buffer of this size: what this one
    # needed, not more. Asking the allocator for the same size again lets glibc hand back
    # the memory this result occupied once it is freed; a larger request (beyond its
    # 32 MiB mmap ceiling) maps fresh pages every call, and faulting in 31 MB of them cost
    # a PodList(1000) encode a quarter of its time.
    jt.size_hint = enc.len + 64
    return enc.finish()


# --------------------------------------------------------------------- JSON frame scanning

cdef extern from "Python.h":
    char* PyByteArray_AS_STRING(object o)
    Py_ssize_t PyByteArray_GET_SIZE(object o)
    int PyByteArray_Resize(object o, Py_ssize_t size) except -1


# A watch stream's frames are found by this scan, one event at a time over its whole text:
# byte by byte it cost a fifth of decoding the events. kc_scan_blocks classifies 64 bytes at
# a time (quotes, backslashes, brackets as bit masks, strings by a running xor of the quote
# bits) and visits only the brackets outside strings. Inputs where a backslash stands
# outside a string (not JSON; the bit masks would let it escape a quote) go to the
# byte-by-byte loop, whose reading is the pure twin's.
cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #define KC_SCAN_BLOCKS 1

    /* kc_mask16 and kc_prefix_xor: _jsonblock.pxd (shared with the GVK sniff). */

    /* Scans whole 64-byte blocks of b from i. *status: 1 the value ends before the
       returned index; -1 an opening bracket there nests deeper than max_depth; -2 the
       bracket there does not close the innermost one; 3 the stack (cap entries) is full
       at the opening bracket there; 2 a backslash outside a string in the block starting
       there (the caller reads on byte by byte); 0 fewer than 64 bytes are left from there.
       *in_str is the string state at the returned index. */
    static Py_ssize_t kc_scan_blocks(const unsigned char* b, Py_ssize_t i, Py_ssize_t n,
                                     unsigned char* st, Py_ssize_t* depth_io, Py_ssize_t cap,
                                     Py_ssize_t max_depth, int* in_str_io, int* status) {
        Py_ssize_t depth = *depth_io;
        int in_str = *in_str_io;
        const __m128i q = _mm_set1_epi8(0x22), bsl = _mm_set1_epi8(0x5C);
        const __m128i o = _mm_set1_epi8(0x7B), c = _mm_set1_epi8(0x7D);
        *status = 0;
        while (i + 64 <= n) {
            uint64_t qm = 0, bsm = 0, brm = 0, esc = 0, m, s, b1, b2;
            Py_ssize_t step = 64;
            int k;
            for (k = 0; k < 4; k++) {
                __m128i v = _mm_loadu_si128((const __m128i*)(b + i + 16 * k));
                qm |= kc_mask16(v, q, bsl, o, c, &b1, &b2) << (16 * k);
                bsm |= b1 << (16 * k);
                brm |= b2 << (16 * k);
            }
            if (bsm) {
                /* Each backslash not itself escaped escapes the byte after it. One ending
                   the block is left for the next block, which starts at it. */
                uint64_t rem = bsm;
                while (rem) {
                    int j = __builtin_ctzll(rem);
                    rem &= rem - 1;
                    if ((esc >> j) & 1) continue;
                    if (j == 63) { step = 63; break; }
                    esc |= 1ULL << (j + 1);
                }
            }
            m = qm & ~esc;
            /* Bit j: inside a string after byte j (an opening quote's bit is set, a
               closing quote's is clear). */
            m = kc_prefix_xor(m);
            if (in_str) m = ~m;
            if (bsm & ~m) { *status = 2; break; }
            s = brm & ~m;
            while (s) {
                int j = __builtin_ctzll(s);
                unsigned char ch = b[i + j];
                s &= s - 1;
                if (ch == 0x7B || ch == 0x5B) {
                    if (depth >= max_depth) { *status = -1; in_str = 0; i += j; goto done; }
                    if (depth == cap) { *status = 3; in_str = 0; i += j; goto done; }
                    st[depth++] = (unsigned char)(ch + 2);
                } else if (depth && ch == st[depth - 1]) {
                    depth--;
                    if (depth == 0) { *status = 1; in_str = 0; i += j + 1; goto done; }
                } else {
                    *status = -2; in_str = 0; i += j; goto done;
                }
            }
            /* The byte before the next start decides: a block cut before its last
               backslash leaves the string state after byte 62. */
            in_str = (int)((m >> (step - 1)) & 1);
            i += step;
        }
    done:
        *depth_io = depth;
        *in_str_io = in_str;
        return i;
    }
    #else
    #define KC_SCAN_BLOCKS 0
    static Py_ssize_t kc_scan_blocks(const unsigned char* b, Py_ssize_t i, Py_ssize_t n,
                                     unsigned char* st, Py_ssize_t* depth_io, Py_ssize_t cap,
                                     Py_ssize_t max_depth, int* in_str_io, int* status) {
        *status = 2;
        return i;
    }
    #endif
    """
    Py_ssize_t kc_scan_blocks(const unsigned char* b, Py_ssize_t i, Py_ssize_t n,
                              unsigned char* st, Py_ssize_t* depth_io, Py_ssize_t cap,
                              Py_ssize_t max_depth, int* in_str_io, int* status) noexcept nogil


def json_container_scan(bytearray buf, Py_ssize_t pos, bytearray stack, bint in_str, bint string_only,
                        Py_ssize_t max_depth):
    """Compiled twin of ``kcodec._native.json.json_container_scan`` (same arguments, same
    ``(status, pos, in_str)``, ``stack`` updated in place). The bracket stack is kept in a C
    buffer during the scan and written back once."""
    cdef const unsigned char* b = <const unsigned char*>PyByteArray_AS_STRING(buf)
    cdef Py_ssize_t n = PyByteArray_GET_SIZE(buf)
    cdef Py_ssize_t depth = PyByteArray_GET_SIZE(stack)
    cdef Py_ssize_t cap = depth + 64
    cdef unsigned char* st
    cdef unsigned char* grown
    cdef unsigned char c
    cdef int status = 0
    cdef int bstatus = 0
    cdef int bin_str
    # A lone string ends at its closing quote, which the block scan does not look for.
    cdef bint blocks = not string_only
    if pos < 0 or pos > n:
        raise ValueError(f"json_container_scan: position {pos} outside the buffer of {n} bytes")
    st = <unsigned char*>malloc(cap)
    if st == NULL:
        raise MemoryError()
    try:
        if depth:
            memcpy(st, PyByteArray_AS_STRING(stack), depth)
        while True:
            if blocks and pos + 64 <= n:
                bin_str = in_str
                pos = kc_scan_blocks(b, pos, n, st, &depth, cap, max_depth, &bin_str, &bstatus)
                in_str = bin_str
                if bstatus == 1 or bstatus == -1 or bstatus == -2:
                    status = bstatus
                    break
                if bstatus == 3:
                    cap *= 2
                    grown = <unsigned char*>realloc(st, cap)
                    if grown == NULL:
                        raise MemoryError()
                    st = grown
                    continue
                if bstatus == 2:
                    blocks = False
            if in_str:
                while pos < n and b[pos] != 0x22 and b[pos] != 0x5C:
                    pos += 1
                if pos >= n:
                    break
                if b[pos] == 0x22:
                    in_str = False
                    pos += 1
                    if string_only:
                        status = 1
                        break
                elif pos + 1 < n:
                    pos += 2
                else:
                    break  # the escaped byte is not here yet
            else:
                while pos < n:
                    c = b[pos]
                    if c == 0x22 or c == 0x7B or c == 0x5B or c == 0x7D or c == 0x5D:
                        break
                    pos += 1
                if pos >= n:
                    break
                c = b[pos]
                if c == 0x22:
                    in_str = True
                    pos += 1
                elif c == 0x7B or c == 0x5B:
                    if depth >= max_depth:
                        status = -1
                        break
                    if depth == cap:
                        cap *= 2
                        grown = <unsigned char*>realloc(st, cap)
                        if grown == NULL:
                            raise MemoryError()
                        st = grown
                    st[depth] = c + 2  # } and ] are two code points after { and [
                    depth += 1
                    pos += 1
                elif depth and c == st[depth - 1]:
                    depth -= 1
                    pos += 1
                    if depth == 0:
                        status = 1
                        break
                else:
                    status = -2
                    break
        PyByteArray_Resize(stack, depth)
        if depth:
            memcpy(PyByteArray_AS_STRING(stack), st, depth)
    finally:
        free(st)
    return status, pos, in_str
