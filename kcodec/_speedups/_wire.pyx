# cython: language_level=3
"""Compiled twins of ``kcodec._native.wire``: ``kcodec.wire``'s kernels and ``interpret_gvk``.

Every kernel reads the input through a ``const unsigned char*`` with explicit bounds
checks. Successful results are computed here; whenever the C path meets something it does
not accept (a decode error, an argument type other than the common one, an index that the
pure code would resolve with Python's negative indexing), it hands the same arguments to
the pure twin, which then raises, or returns, exactly what pure mode does. Errors are rare
and never on a hot path, so this costs nothing and keeps the two modes identical by
construction rather than by duplicated message formatting.
"""
from libc.stdint cimport uint64_t, int64_t, uint32_t
from libc.string cimport memcpy, memcmp
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE, PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_DecodeUTF8
from cpython.long cimport PyLong_FromUnsignedLongLong, PyLong_FromLongLong
from cpython.object cimport PyObject

from kcodec._speedups._varint cimport VARINT_OK, read_uvarint, uvarint_size
from kcodec._speedups._jsonblock cimport kc_prefix_xor

from kcodec import wire as _pure
from kcodec.schema import GroupVersionKind, parse_group_version

__all__ = [
    "encode_varint",
    "decode_varint",
    "decode_signed_varint",
    "iter_fields",
    "marshal_unknown",
    "unmarshal_unknown",
    "envelope_encode",
    "envelope_decode",
    "envelope_span",
    "interpret_gvk",
]

PROTO_MAGIC = _pure.PROTO_MAGIC

cdef extern from "Python.h":
    long long PyLong_AsLongLongAndOverflow(object o, int* overflow) except? -1
    PyObject* PyDict_GetItem(object d, object key)
    object PyUnicode_AsEncodedString(object u, const char* encoding, const char* errors)

cdef object _pure_encode_varint = _pure.encode_varint
cdef object _pure_decode_varint = _pure.decode_varint
cdef object _pure_decode_signed_varint = _pure.decode_signed_varint
cdef object _pure_iter_fields = _pure.iter_fields
cdef object _pure_marshal_unknown = _pure.marshal_unknown
cdef object _pure_unmarshal_unknown = _pure.unmarshal_unknown
cdef object _pure_envelope_encode = _pure.envelope_encode
cdef object _pure_envelope_decode = _pure.envelope_decode
cdef object _pure_envelope_span = _pure.envelope_span
cdef object _EMPTY_GVK = GroupVersionKind("", "", "")
# The pure twin's interpret_gvk (kcodec._native.wire), imported on first need: it answers
# the documents the scanners hand on (malformed JSON and its error texts, non-string
# members, input that is not bytes), so compiled mode never loads it for a valid document.
cdef object _twin_interpret_gvk = None


cdef object _pure_interpret_gvk(object data):
    global _twin_interpret_gvk
    if _twin_interpret_gvk is None:
        from kcodec._native.wire import interpret_gvk
        _twin_interpret_gvk = interpret_gvk
    return _twin_interpret_gvk(data)


# (apiVersion, kind) -> GroupVersionKind (an immutable tuple) of the documents sniffed so
# far: building it in Python (parse_group_version) cost as much as scanning a 2 kB
# document. Bounded: cleared when full.
cdef dict _gvk_cache = {}

cdef bytes _MAGIC = b"k8s\x00"
# Shared one-byte varints, as the pure twin hands out.
cdef tuple _ONE_BYTE = tuple(bytes((i,)) for i in range(128))

cdef inline Py_ssize_t put_uvarint(unsigned char* out, uint64_t n) noexcept nogil:
    cdef Py_ssize_t i = 0
    while n >= 0x80:
        out[i] = <unsigned char>((n & 0x7F) | 0x80)
        n >>= 7
        i += 1
    out[i] = <unsigned char>n
    return i + 1


# --------------------------------------------------------------------------- varints

def encode_varint(n):
    """Encode ``n`` as a protobuf base-128 varint (negative: 10-byte two's complement)."""
    cdef int overflow = 0
    cdef long long v
    cdef unsigned char buf[10]
    cdef Py_ssize_t size
    if type(n) is not int:
        return _pure_encode_varint(n)
    v = PyLong_AsLongLongAndOverflow(n, &overflow)
    if overflow != 0:
        # Beyond int64: uint64 values or an error; both are the pure twin's business.
        return _pure_encode_varint(n)
    if 0 <= v < 0x80:
        return _ONE_BYTE[v]
    size = put_uvarint(buf, <uint64_t>v)
    return PyBytes_FromStringAndSize(<char*>buf, size)


cdef inline bint _plain_args(object buf, object pos, object end):
    """Whether the C path applies: bytes, int positions, no negative indexing, no reads
    past the object."""
    cdef Py_ssize_t p, e, n
    if type(buf) is not bytes or type(pos) is not int or type(end) is not int:
        return False
    n = PyBytes_GET_SIZE(buf)
    try:
        p = pos
        e = end
    except OverflowError:
        return False
    if p < 0 or e > n:
        return False
    return True


def decode_varint(buf, pos, end=-1):
    """``(value, new_pos)`` of the unsigned varint at ``buf[pos]`` (bounded by ``end``)."""
    cdef Py_ssize_t p, e
    cdef uint64_t v
    if not _plain_args(buf, pos, end):
        return _pure_decode_varint(buf, pos, end)
    p = pos
    e = end
    if e < 0:
        e = PyBytes_GET_SIZE(buf)
    if read_uvarint(<const unsigned char*>PyBytes_AS_STRING(buf), &p, e, &v) != VARINT_OK:
        return _pure_decode_varint(buf, pos, end)
    return PyLong_FromUnsignedLongLong(v), p


def decode_signed_varint(buf, pos, end=-1):
    """Like :func:`decode_varint` but read the 64 bits as a Go ``int64``."""
    cdef Py_ssize_t p, e
    cdef uint64_t v
    if not _plain_args(buf, pos, end):
        return _pure_decode_signed_varint(buf, pos, end)
    p = pos
    e = end
    if e < 0:
        e = PyBytes_GET_SIZE(buf)
    if read_uvarint(<const unsigned char*>PyBytes_AS_STRING(buf), &p, e, &v) != VARINT_OK:
        return _pure_decode_signed_varint(buf, pos, end)
    return PyLong_FromLongLong(<int64_t>v), p


# --------------------------------------------------------------------------- fields

def iter_fields(buf, start=0, end=-1):
    """``(field_number, wire_type, value_or_(start, end))`` for each field of a message.

    Lazy like the pure generator: nothing is checked before the first ``next()``. At the
    first field the C path refuses, the pure generator takes over from that field.
    """
    cdef const unsigned char* p
    cdef Py_ssize_t pos, e, tag_pos
    cdef uint64_t tag, fnum, n, value
    cdef unsigned int wt
    if not _plain_args(buf, start, end):
        yield from _pure_iter_fields(buf, start, end)
        return
    pos = start
    e = end
    if e < 0:
        e = PyBytes_GET_SIZE(buf)
    p = <const unsigned char*>PyBytes_AS_STRING(buf)
    while pos < e:
        tag_pos = pos
        if read_uvarint(p, &pos, e, &tag) != VARINT_OK:
            break
        fnum = tag >> 3
        if fnum > 0x7FFFFFFF:
            fnum &= 0xFFFFFFFFULL
        if fnum == 0 or fnum > 0x7FFFFFFF:
            break
        wt = <unsigned int>(tag & 7)
        if wt == 2:
            if read_uvarint(p, &pos, e, &n) != VARINT_OK:
                break
            if n > <uint64_t>(e - pos):
                break
            yield fnum, 2, (pos, pos + <Py_ssize_t>n)
            # The buffer is immutable bytes held by this frame: p stays valid across yields.
            pos += <Py_ssize_t>n
        elif wt == 0:
            if read_uvarint(p, &pos, e, &value) != VARINT_OK:
                break
            yield fnum, 0, PyLong_FromUnsignedLongLong(value)
        elif wt == 1:
            if e - pos < 8:
                break
            value = 0
            memcpy(&value, p + pos, 8)
            value = _le64(value)
            pos += 8
            yield fnum, 1, PyLong_FromUnsignedLongLong(value)
        elif wt == 5:
            if e - pos < 4:
                break
            value = <uint64_t>p[pos] | (<uint64_t>p[pos + 1] << 8) | (<uint64_t>p[pos + 2] << 16) \
                | (<uint64_t>p[pos + 3] << 24)
            pos += 4
            yield fnum, 5, PyLong_FromUnsignedLongLong(value)
        elif wt == 3:
            # Skipped unseen as Go's skipGenerated does (see the pure twin).
            if _skip_group(p, &pos, e) < 0:
                break
        else:
            break
    else:
        return
    # The field at tag_pos is malformed: the pure generator raises its exact error.
    yield from _pure_iter_fields(buf, tag_pos, end)


cdef inline uint64_t _le64(uint64_t raw) noexcept nogil:
    cdef const unsigned char* b = <const unsigned char*>&raw
    return (<uint64_t>b[0] | (<uint64_t>b[1] << 8) | (<uint64_t>b[2] << 16) | (<uint64_t>b[3] << 24)
            | (<uint64_t>b[4] << 32) | (<uint64_t>b[5] << 40) | (<uint64_t>b[6] << 48)
            | (<uint64_t>b[7] << 56))


# --------------------------------------------------------------------------- Unknown

cdef bytes _utf8(object s):
    return PyUnicode_AsEncodedString(s, "utf-8", "surrogateescape")


cdef bytes _unknown_bytes(bint magic, object api_version, object kind, object raw,
                          object content_encoding, object content_type):
    cdef bytes av = _utf8(api_version)
    cdef bytes k = _utf8(kind)
    cdef bytes ce = _utf8(content_encoding)
    cdef bytes ct = _utf8(content_type)
    cdef Py_ssize_t la = len(av), lk = len(k), lr = 0, lce = len(ce), lct = len(ct)
    cdef Py_ssize_t tm_len, total, i
    cdef bint has_raw = raw is not None
    if has_raw:
        lr = len(<bytes>raw)
    tm_len = 2 + la + lk + uvarint_size(la) + uvarint_size(lk)
    total = (4 if magic else 0) + 1 + uvarint_size(tm_len) + tm_len \
        + 1 + uvarint_size(lce) + lce + 1 + uvarint_size(lct) + lct
    if has_raw:
        total += 1 + uvarint_size(lr) + lr
    out = PyBytes_FromStringAndSize(NULL, total)
    cdef unsigned char* o = <unsigned char*>PyBytes_AS_STRING(out)
    i = 0
    if magic:
        memcpy(o, b"k8s\x00", 4)
        i = 4
    o[i] = 0x0A
    i += 1
    i += put_uvarint(o + i, tm_len)
    o[i] = 0x0A
    i += 1
    i += put_uvarint(o + i, la)
    memcpy(o + i, PyBytes_AS_STRING(av), la)
    i += la
    o[i] = 0x12
    i += 1
    i += put_uvarint(o + i, lk)
    memcpy(o + i, PyBytes_AS_STRING(k), lk)
    i += lk
    if has_raw:
        o[i] = 0x12
        i += 1
        i += put_uvarint(o + i, lr)
        memcpy(o + i, PyBytes_AS_STRING(raw), lr)
        i += lr
    o[i] = 0x1A
    i += 1
    i += put_uvarint(o + i, lce)
    memcpy(o + i, PyBytes_AS_STRING(ce), lce)
    i += lce
    o[i] = 0x22
    i += 1
    i += put_uvarint(o + i, lct)
    memcpy(o + i, PyBytes_AS_STRING(ct), lct)
    i += lct
    if i != total:
        raise AssertionError("kcodec._speedups._wire: Unknown size mismatch")
    return out


cdef inline bint _plain_unknown(object api_version, object kind, object raw,
                                object content_encoding, object content_type):
    return (type(api_version) is str and type(kind) is str and type(content_encoding) is str
            and type(content_type) is str and (raw is None or type(raw) is bytes))


def marshal_unknown(api_version, kind, raw, content_encoding, content_type):
    """Marshal a ``runtime.Unknown`` message body as Go's generated code does."""
    if not _plain_unknown(api_version, kind, raw, content_encoding, content_type):
        return _pure_marshal_unknown(api_version, kind, raw, content_encoding, content_type)
    return _unknown_bytes(False, api_version, kind, raw, content_encoding, content_type)


def envelope_encode(api_version, kind, raw, content_encoding="", content_type=""):
    """The protobuf serializer's wire form: ``k8s\\x00`` followed by a ``runtime.Unknown``."""
    if not _plain_unknown(api_version, kind, raw, content_encoding, content_type):
        return _pure_envelope_encode(api_version, kind, raw, content_encoding, content_type)
    return _unknown_bytes(True, api_version, kind, raw, content_encoding, content_type)


cdef inline int _skip_field(const unsigned char* p, Py_ssize_t* pos, Py_ssize_t end,
                            unsigned int wt) noexcept nogil:
    """0 on success, -1 where the pure code raises."""
    cdef uint64_t n
    if wt == 0:
        return 0 if read_uvarint(p, pos, end, &n) == VARINT_OK else -1
    if wt == 2:
        if read_uvarint(p, pos, end, &n) != VARINT_OK:
            return -1
        if n > <uint64_t>(end - pos[0]):
            return -1
        pos[0] += <Py_ssize_t>n
        return 0
    if wt == 1:
        if end - pos[0] < 8:
            return -1
        pos[0] += 8
        return 0
    if wt == 5:
        if end - pos[0] < 4:
            return -1
        pos[0] += 4
        return 0
    if wt == 3:
        return _skip_group(p, pos, end)
    return -1


cdef int _skip_group(const unsigned char* p, Py_ssize_t* pos, Py_ssize_t end) noexcept nogil:
    """Past the end group matching a start group whose tag ended at ``pos`` (kcodec.wire.
    skip_field: Go's skipGenerated counts nested groups and checks no field number)."""
    cdef Py_ssize_t depth = 1
    cdef uint64_t tag
    cdef unsigned int wt
    while depth > 0:
        if pos[0] >= end or read_uvarint(p, pos, end, &tag) != VARINT_OK:
            return -1
        wt = <unsigned int>(tag & 7)
        if wt == 3:
            depth += 1
        elif wt == 4:
            depth -= 1
        elif _skip_field(p, pos, end, wt) < 0:
            return -1
    return 0


cdef inline int _other_field(const unsigned char* p, Py_ssize_t* pos, Py_ssize_t end,
                             uint64_t reserved) noexcept nogil:
    """Skip a field that is not one of the expected single-byte tags (0 ok, -1 error).

    Fields 1..reserved reaching here carry a wrong wire type or a non-minimal tag: the pure code
    raises for them, as Go does.
    """
    cdef uint64_t tag, fnum
    if read_uvarint(p, pos, end, &tag) != VARINT_OK:
        return -1
    fnum = tag >> 3
    if fnum > 0x7FFFFFFF:
        fnum &= 0xFFFFFFFFULL
    if fnum == 0 or fnum > 0x7FFFFFFF:
        return -1
    if 1 <= fnum <= reserved:
        return -1
    return _skip_field(p, pos, end, <unsigned int>(tag & 7))


cdef inline int _len_field(const unsigned char* p, Py_ssize_t* pos, Py_ssize_t end,
                           Py_ssize_t* start) noexcept nogil:
    cdef uint64_t n
    if read_uvarint(p, pos, end, &n) != VARINT_OK:
        return -1
    if n > <uint64_t>(end - pos[0]):
        return -1
    start[0] = pos[0]
    pos[0] += <Py_ssize_t>n
    return 0


cdef inline object _str_or_empty(const unsigned char* p, Py_ssize_t a, Py_ssize_t b):
    if b <= a:
        return ""
    return PyUnicode_DecodeUTF8(<const char*>p + a, b - a, "surrogateescape")


cdef object _decode_unknown(bytes buf, Py_ssize_t pos, Py_ssize_t end, bint span=False):
    """The Unknown fields, or None where the pure code raises; with ``span`` the raw body
    is its ``(start, end)`` in ``buf``."""
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(buf)
    cdef Py_ssize_t av0 = 0, av1 = 0, k0 = 0, k1 = 0, ce0 = 0, ce1 = 0, ct0 = 0, ct1 = 0
    cdef Py_ssize_t r0 = 0, r1 = 0, start = 0, tpos, tend
    cdef bint has_raw = False
    cdef unsigned char tag
    while pos < end:
        tag = p[pos]
        if tag == 0x12 or tag == 0x0A or tag == 0x1A or tag == 0x22:
            pos += 1
            if _len_field(p, &pos, end, &start) < 0:
                return None
            if tag == 0x12:
                r0 = start
                r1 = pos
                has_raw = True
            elif tag == 0x0A:
                tpos = start
                tend = pos
                while tpos < tend:
                    tag = p[tpos]
                    if tag == 0x0A or tag == 0x12:
                        tpos += 1
                        if _len_field(p, &tpos, tend, &start) < 0:
                            return None
                        if tag == 0x0A:
                            av0 = start
                            av1 = tpos
                        else:
                            k0 = start
                            k1 = tpos
                    elif _other_field(p, &tpos, tend, 2) < 0:
                        return None
            elif tag == 0x1A:
                ce0 = start
                ce1 = pos
            else:
                ct0 = start
                ct1 = pos
            continue
        if _other_field(p, &pos, end, 4) < 0:
            return None
    return (
        _str_or_empty(p, av0, av1),
        _str_or_empty(p, k0, k1),
        ((r0, r1) if span else PyBytes_FromStringAndSize(<char*>p + r0, r1 - r0)) if has_raw else None,
        _str_or_empty(p, ce0, ce1),
        _str_or_empty(p, ct0, ct1),
    )


def unmarshal_unknown(buf):
    """Parse a ``runtime.Unknown`` message body: ``(api_version, kind, raw, ce, ct)``."""
    if type(buf) is not bytes:
        buf = bytes(buf)
    out = _decode_unknown(buf, 0, PyBytes_GET_SIZE(buf))
    if out is None:
        return _pure_unmarshal_unknown(buf)
    return out


def envelope_decode(data):
    """Check the ``k8s\\x00`` prefix and parse the ``runtime.Unknown`` after it."""
    cdef Py_ssize_t n
    if type(data) is not bytes:
        data = bytes(data)
    n = PyBytes_GET_SIZE(data)
    if n <= 4 or memcmp(PyBytes_AS_STRING(data), b"k8s\x00", 4) != 0:
        return _pure_envelope_decode(data)
    out = _decode_unknown(data, 4, n)
    if out is None:
        return _pure_envelope_decode(data)
    return out


def envelope_span(data):
    """``envelope_decode`` with the raw body as its ``(start, end)`` offsets in ``data``."""
    cdef Py_ssize_t n
    if type(data) is not bytes:
        return _pure_envelope_span(data)
    n = PyBytes_GET_SIZE(data)
    if n <= 4 or memcmp(PyBytes_AS_STRING(data), b"k8s\x00", 4) != 0:
        return _pure_envelope_span(data)
    out = _decode_unknown(data, 4, n, True)
    if out is None:
        return _pure_envelope_span(data)
    return out


# --------------------------------------------------------------------------- GVK sniffing
#
# One pass of a strict validator of Go's JSON grammar over the whole document, recording
# the top-level members whose key folds to "apiVersion" or "kind". It answers only in
# the plain case: a top-level object (or null), ASCII keys without escapes, matching
# values that are null or ASCII strings without escapes, nesting below KC_MAX_DEPTH.
# Anything else (errors, a BOM, escapes or non-ASCII where they matter, wrong value
# types) goes to the pure kernel, which implements every Go rule and error text.
#
# The scanner is plain C: a goto state machine over local variables with an explicit
# container stack, and SSE2 (16 bytes at a time) through string text and indentation.
# (C rather than Cython so that the hot loop has no per-token calls or state dispatch.)

cdef extern from *:
    """
    #include <string.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    #define KC_MAX_DEPTH 1000

    typedef struct { Py_ssize_t av0, av1, k0, k1; int av_seen, k_seen; } kc_gvk_out;

    /* Whitespace bytes: space, tab, newline, carriage return. */
    static const unsigned char kc_ws_tab[256] = {
        [0x09] = 1, [0x0A] = 1, [0x0D] = 1, [0x20] = 1,
    };

    static inline int kc_is_ws(unsigned char c) { return kc_ws_tab[c]; }

    /* The first index at or after i that is not JSON whitespace (n when none). Pretty
       printers put one byte (a space after a colon, a newline) or a newline and a run of
       spaces between tokens: two bytes are tried one by one, then runs of spaces are
       skipped 16 at a time, checking only the byte where a run stops. */
    static inline __attribute__((always_inline)) Py_ssize_t kc_skip_ws(const unsigned char* p, Py_ssize_t i, Py_ssize_t n) {
        if (i >= n || !kc_ws_tab[p[i]]) return i;
        i++;
        for (;;) {
            if (i >= n || !kc_ws_tab[p[i]]) return i;
            i++;
    #if defined(__SSE2__)
            while (i + 16 <= n) {
                __m128i v = _mm_loadu_si128((const __m128i*)(p + i));
                unsigned m = (~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x20)))) & 0xFFFFu;
                if (m) { i += __builtin_ctz(m); break; }
                i += 16;
            }
    #endif
        }
    }

    /* The first index at or after i holding a quote, a backslash, a byte below 0x20 or
       a byte from 0x80 (n when none): where plain string text stops. */
    static inline __attribute__((always_inline)) Py_ssize_t kc_string_stop(const unsigned char* p, Py_ssize_t i, Py_ssize_t n) {
    #if defined(__SSE2__)
        while (i + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i*)(p + i));
            /* Signed compare: bytes 0x00-0x1f and 0x80-0xff are both below 0x20. */
            __m128i sp = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x22)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x5C))),
                _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
            unsigned m = (unsigned)_mm_movemask_epi8(sp);
            if (m) return i + __builtin_ctz(m);
            i += 16;
        }
    #endif
        while (i < n) {
            unsigned char c = p[i];
            if (c == 0x22 || c == 0x5C || c < 0x20 || c >= 0x80) return i;
            i++;
        }
        return n;
    }

    static inline int kc_hex(unsigned char c) {
        return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
    }

    /* i is at an opening quote: the index past the closing quote, or -1 for invalid
       text. *flags: 1 when escapes were seen, 2 when bytes from 0x80 were. */
    static inline __attribute__((always_inline)) Py_ssize_t kc_scan_string(const unsigned char* p, Py_ssize_t i, Py_ssize_t n,
                                            int* flags) {
        int f = 0;
        i += 1;
        for (;;) {
            unsigned char c;
            i = kc_string_stop(p, i, n);
            if (i >= n) return -1;
            c = p[i];
            if (c == 0x22) { *flags = f; return i + 1; }
            if (c == 0x5C) {
                f |= 1;
                if (i + 1 >= n) return -1;
                c = p[i + 1];
                if (c == 0x75) {
                    if (i + 5 >= n) return -1;
                    if (!(kc_hex(p[i + 2]) && kc_hex(p[i + 3]) && kc_hex(p[i + 4]) && kc_hex(p[i + 5])))
                        return -1;
                    i += 6;
                } else if (c == 0x22 || c == 0x5C || c == 0x2F || c == 0x62 || c == 0x66 || c == 0x6E
                           || c == 0x72 || c == 0x74) {
                    i += 2;
                } else {
                    return -1;
                }
            } else if (c < 0x20) {
                return -1;
            } else {
                f |= 2;
                i += 1;
            }
        }
    }

    static inline int kc_digit(unsigned char c) { return c >= 0x30 && c <= 0x39; }

    /* A JSON number at i: the index past it, or -1. */
    static Py_ssize_t kc_scan_number(const unsigned char* p, Py_ssize_t i, Py_ssize_t n) {
        if (i < n && p[i] == 0x2D) i++;
        if (i >= n) return -1;
        if (p[i] == 0x30) i++;
        else if (p[i] >= 0x31 && p[i] <= 0x39) { while (i < n && kc_digit(p[i])) i++; }
        else return -1;
        if (i < n && p[i] == 0x2E) {
            i++;
            if (i >= n || !kc_digit(p[i])) return -1;
            while (i < n && kc_digit(p[i])) i++;
        }
        if (i < n && (p[i] == 0x65 || p[i] == 0x45)) {
            i++;
            if (i < n && (p[i] == 0x2B || p[i] == 0x2D)) i++;
            if (i >= n || !kc_digit(p[i])) return -1;
            while (i < n && kc_digit(p[i])) i++;
        }
        return i;
    }

    static inline Py_ssize_t kc_scan_lit(const unsigned char* p, Py_ssize_t i, Py_ssize_t n,
                                         const char* word, Py_ssize_t len) {
        if (n - i < len || memcmp(p + i, word, (size_t)len) != 0) return -1;
        return i + len;
    }

    /* 1 for a key folding to apiVersion, 2 for kind, 0 otherwise (ASCII keys). */
    static int kc_fold_key(const unsigned char* p, Py_ssize_t a, Py_ssize_t b) {
        const char* target;
        Py_ssize_t k, len = b - a;
        if (len == 10) target = "apiversion";
        else if (len == 4) target = "kind";
        else return 0;
        for (k = 0; k < len; k++) {
            unsigned char c = p[a + k];
            if (c >= 0x41 && c <= 0x5A) c += 0x20;
            if (c != (unsigned char)target[k]) return 0;
        }
        return len == 10 ? 1 : 2;
    }

    /* 0: a valid top-level object (matching members recorded in *out); 1: a top-level
       null; -1: anything else (the caller asks the exact parser). */
    static int kc_gvk_scan(const unsigned char* p, Py_ssize_t n, kc_gvk_out* out) {
        unsigned char stack[KC_MAX_DEPTH];   /* 1: object, 0: array */
        int depth, flags = 0, want;
        Py_ssize_t i, j, ka;
        unsigned char c;
        i = kc_skip_ws(p, 0, n);
        if (i >= n) return -1;
        if (p[i] != 0x7B) {
            i = kc_scan_lit(p, i, n, "null", 4);
            if (i < 0 || kc_skip_ws(p, i, n) != n) return -1;
            return 1;
        }
        stack[0] = 1;
        depth = 1;
        i = kc_skip_ws(p, i + 1, n);
        if (i < n && p[i] == 0x7D) { i++; depth = 0; goto after_value; }
    object_key:
        if (i >= n || p[i] != 0x22) return -1;
        ka = i + 1;
        j = kc_scan_string(p, i, n, &flags);
        if (j < 0) return -1;
        want = 0;
        if (depth == 1) {
            /* An escaped or non-ASCII key may still fold to a field name. */
            if (flags) return -1;
            want = kc_fold_key(p, ka, j - 1);
        }
        i = j;
        if (i < n && kc_is_ws(p[i])) i = kc_skip_ws(p, i, n);
        if (i >= n || p[i] != 0x3A) return -1;
        i = kc_skip_ws(p, i + 1, n);
        if (want) {
            if (i >= n) return -1;
            if (p[i] == 0x22) {
                j = kc_scan_string(p, i, n, &flags);
                if (j < 0 || flags) return -1;
                if (want == 1) { out->av0 = i + 1; out->av1 = j - 1; out->av_seen = 1; }
                else { out->k0 = i + 1; out->k1 = j - 1; out->k_seen = 1; }
                i = j;
            } else if (p[i] == 0x6E) {
                /* null leaves the field alone */
                i = kc_scan_lit(p, i, n, "null", 4);
                if (i < 0) return -1;
            } else {
                return -1;
            }
            goto after_value;
        }
    value:
        if (i >= n) return -1;
        c = p[i];
        if (c == 0x22) {
            i = kc_scan_string(p, i, n, &flags);
            if (i < 0) return -1;
            goto after_value;
        }
        if (c == 0x7B || c == 0x5B) {
            if (depth >= KC_MAX_DEPTH) return -1;
            stack[depth++] = (c == 0x7B);
            i = kc_skip_ws(p, i + 1, n);
            if (i < n && p[i] == (c == 0x7B ? 0x7D : 0x5D)) { i++; depth--; goto after_value; }
            if (c == 0x7B) goto object_key;
            goto value;
        }
        if (c == 0x74) i = kc_scan_lit(p, i, n, "true", 4);
        else if (c == 0x66) i = kc_scan_lit(p, i, n, "false", 5);
        else if (c == 0x6E) i = kc_scan_lit(p, i, n, "null", 4);
        else i = kc_scan_number(p, i, n);
        if (i < 0) return -1;
    after_value:
        if (depth == 0) return kc_skip_ws(p, i, n) == n ? 0 : -1;
        if (i < n && kc_is_ws(p[i])) i = kc_skip_ws(p, i, n);
        if (i >= n) return -1;
        c = p[i];
        if (c == 0x2C) {
            i = kc_skip_ws(p, i + 1, n);
            if (stack[depth - 1]) goto object_key;
            goto value;
        }
        if (c == (stack[depth - 1] ? 0x7D : 0x5D)) { i++; depth--; goto after_value; }
        return -1;
    }
    """
    ctypedef struct kc_gvk_out:
        Py_ssize_t av0
        Py_ssize_t av1
        Py_ssize_t k0
        Py_ssize_t k1
        int av_seen
        int k_seen
    int kc_gvk_scan(const unsigned char* p, Py_ssize_t n, kc_gvk_out* out) noexcept nogil


# Two-stage sniff of plain documents. The scanner above waits on each token before it can
# look at the next (22 us for the 59 kB fixture Pod, 40e8dfa's simdjson took 13 us). Here
# stage 1 classifies 64-byte blocks into bit masks (_jsonblock.pxd) and lists the
# positions of the structural bytes outside strings, of the opening quotes and of the
# bytes starting a number or literal, a chunk at a time; stage 2 walks only those
# positions to check the grammar and nesting. Every byte between two listed positions is
# whitespace, string text or the rest of a number/literal (which stage 2 reads to its end
# and checks that whitespace or a structural byte follows it), so each byte is judged.
#
# It answers only for the plain case and returns -1 otherwise: control bytes in strings,
# backslashes outside strings, bytes other than whitespace outside strings and scalars,
# escapes or non-ASCII in top-level keys or in the matched values, and any error; the
# scanner above then reads the document (and hands errors on to the pure kernel, for Go's
# texts). The block classifier is picked once at import: AVX-512 (F, BW, VBMI2), AVX2,
# SSE2, or none (the portable one is slower than the scanner above).
cdef extern from *:
    """
    #define KC_CHUNK 4096
    /* A chunk lists at most one position per byte, the flattening writes up to fifteen
       more, and the end of the text adds one. */
    #define KC_IDX_CAP (KC_CHUNK + 64)

    typedef struct {
        const unsigned char* p;
        Py_ssize_t n, pos;         /* pos: the first byte stage 1 has not classified */
        uint64_t in_str;           /* all ones when pos is inside a string */
        uint64_t prev_scalar;      /* 1 when the byte before pos is part of a number/literal run */
        uint64_t esc_carry;        /* 1 when the byte at pos is escaped by a backslash before it */
        int bad;                   /* not the plain case */
    } kc_s1;

    typedef Py_ssize_t (*kc_fill_fn)(kc_s1* s, uint32_t* idx);

    /* Bytes that may follow a number or literal: whitespace and structural bytes. */
    static unsigned char kc_term_tab[256];

    static inline Py_ssize_t kc_ctz(uint64_t x) {
        /* The top bit keeps the argument non-zero once x runs out of bits (the positions
           written then are overwritten or past the count). */
        return __builtin_ctzll(x | 0x8000000000000000ULL);
    }

    typedef struct { uint64_t esc; int carry, bad; } kc_esc;

    /* The bytes of block b escaped by a backslash (carry: bit 0 is), left to right: a
       backslash not itself escaped escapes the next byte (bit 0 of the next block when it
       ends this one), which must be one of " \\ / b f n r t, or u and four hex digits.
       Read so everywhere, a backslash must then lie inside a string (kc_block checks),
       which makes this reading the text's. Out of line: most blocks have no backslash. */
    static __attribute__((noinline)) kc_esc kc_escapes(uint64_t bs, uint64_t carry,
                                                     const unsigned char* b, Py_ssize_t avail) {
        kc_esc r;
        uint64_t esc = carry, rem = bs & ~carry;
        r.carry = 0; r.bad = 0;
        while (rem) {
            Py_ssize_t j = __builtin_ctzll(rem);
            unsigned char e;
            if (j + 1 >= avail) { r.bad = 1; break; }
            e = b[j + 1];
            if (e == 0x75) {
                if (j + 5 >= avail || !(kc_hex(b[j + 2]) && kc_hex(b[j + 3]) && kc_hex(b[j + 4])
                                        && kc_hex(b[j + 5]))) { r.bad = 1; break; }
            } else if (!(e == 0x22 || e == 0x5C || e == 0x2F || e == 0x62 || e == 0x66
                         || e == 0x6E || e == 0x72 || e == 0x74)) {
                r.bad = 1; break;
            }
            if (j == 63) r.carry = 1;
            else esc |= 1ULL << (j + 1);
            rem &= rem - 1;
            rem &= ~esc;
        }
        r.esc = esc;
        return r;
    }

    /* Block b's positions to list, or 0 with *bad set; avail: the bytes of the text from
       b (at least 64, or fewer in the padded last block). The state lives in the caller's
       locals: through kc_s1 every idx store (the build's -fno-strict-aliasing) made the
       compiler reload it. */
    static inline __attribute__((always_inline)) uint64_t kc_block(
            const kc_blk* k, const unsigned char* b, Py_ssize_t avail, uint64_t* in_str,
            uint64_t* prev_scalar, uint64_t* esc_carry, int* bad) {
        uint64_t instr, tail, scalar, nq, starts, m, q = k->q;
        if (__builtin_expect((k->bs | *esc_carry) != 0, 0)) {
            kc_esc r = kc_escapes(k->bs, *esc_carry, b, avail);
            if (r.bad) { *bad = 1; return 0; }
            *esc_carry = r.carry;
            q &= ~r.esc;
        }
        /* Bit j: byte j is an opening quote or inside a string. */
        instr = kc_prefix_xor(q) ^ *in_str;
        *in_str = (uint64_t)((int64_t)instr >> 63);
        /* Outside strings a control or non-ASCII byte is not JSON unless whitespace, and a
           backslash never is. */
        if ((k->lo & ~k->ws & ~instr) | (k->bs & ~instr)) { *bad = 1; return 0; }
        m = k->lo & instr;
        while (m) {
            /* Inside strings non-ASCII is text, control bytes (tab and newline too) are not. */
            if (b[__builtin_ctzll(m)] < 0x20) { *bad = 1; return 0; }
            m &= m - 1;
        }
        /* String text and closing quotes. */
        tail = instr ^ q;
        /* A run of bytes that are neither whitespace nor structural is one token; it
           starts where the byte before is not such a byte (a quote before it counts as a
           boundary: "a"x lists x, and the grammar rejects it). */
        scalar = ~(k->op | k->ws);
        nq = scalar & ~q;
        starts = scalar & ~((nq << 1) | *prev_scalar);
        *prev_scalar = nq >> 63;
        return (k->op | starts) & ~tail;
    }

    /* Appends the positions base + j of the set bits j of m after idx[cnt]; the new
       count. Four at a time (the stores past the count are overwritten later). */
    static inline __attribute__((always_inline)) Py_ssize_t kc_flatten(
            uint64_t m, Py_ssize_t base, uint32_t* idx, Py_ssize_t cnt) {
        if (m) {
            uint32_t* o = idx + cnt;
            uint32_t at = (uint32_t)base;
            Py_ssize_t t, pc = __builtin_popcountll(m);
            for (t = 0; t < pc; t += 4) {
                o[t] = at + (uint32_t)kc_ctz(m); m &= m - 1;
                o[t + 1] = at + (uint32_t)kc_ctz(m); m &= m - 1;
                o[t + 2] = at + (uint32_t)kc_ctz(m); m &= m - 1;
                o[t + 3] = at + (uint32_t)kc_ctz(m); m &= m - 1;
            }
            cnt += pc;
        }
        return cnt;
    }

    /* The last bytes of the text (fewer than 64), padded with spaces. */
    static Py_ssize_t kc_block_tail(kc_s1* s, uint32_t* idx, Py_ssize_t cnt) {
        unsigned char pad[64];
        kc_blk k;
        Py_ssize_t left = s->n - s->pos;
        uint64_t in_str = s->in_str, prev = s->prev_scalar, esc = s->esc_carry, m;
        int bad = 0;
        memset(pad, 0x20, sizeof pad);
        memcpy(pad, s->p + s->pos, (size_t)left);
        kc_classify64_scalar(pad, &k);
        m = kc_block(&k, pad, left, &in_str, &prev, &esc, &bad);
        cnt = kc_flatten(m, s->pos, idx, cnt);
        s->in_str = in_str; s->prev_scalar = prev; s->esc_carry = esc; s->bad = bad;
        s->pos = s->n;
        return cnt;
    }

    /* One chunk of at most KC_CHUNK bytes from s->pos. */
    #define KC_FILL(CLASSIFY, FLATTEN) \\
        const unsigned char* p = s->p; \\
        Py_ssize_t cnt = 0, pos = s->pos, n = s->n; \\
        Py_ssize_t stop = (n - pos > KC_CHUNK ? pos + KC_CHUNK : n); \\
        uint64_t in_str = s->in_str, prev = s->prev_scalar, esc = s->esc_carry, m; \\
        int bad = 0; \\
        kc_blk k; \\
        while (pos + 64 <= stop) { \\
            CLASSIFY(p + pos, &k); \\
            m = kc_block(&k, p + pos, n - pos, &in_str, &prev, &esc, &bad); \\
            if (bad) break; \\
            cnt = FLATTEN(m, pos, idx, cnt); \\
            pos += 64; \\
        } \\
        s->pos = pos; s->in_str = in_str; s->prev_scalar = prev; s->esc_carry = esc; s->bad = bad; \\
        if (!bad && pos < stop) cnt = kc_block_tail(s, idx, cnt); \\
        return cnt;

    static Py_ssize_t kc_fill_scalar(kc_s1* s, uint32_t* idx) { KC_FILL(kc_classify64_scalar, kc_flatten) }
    #if defined(__SSE2__)
    static Py_ssize_t kc_fill_sse2(kc_s1* s, uint32_t* idx) { KC_FILL(kc_classify64_sse2, kc_flatten) }
    #endif
    #if KC_HAVE_AVX2_TARGET
    __attribute__((target("avx2,popcnt,bmi")))
    static Py_ssize_t kc_fill_avx2(kc_s1* s, uint32_t* idx) { KC_FILL(kc_classify64_avx2, kc_flatten) }
    #endif

    /* gcc learnt the VBMI2 target (vpcompressb) in version 8. */
    #if KC_HAVE_AVX2_TARGET && (defined(__clang__) || __GNUC__ >= 8)
    #define KC_HAVE_AVX512_TARGET 1
    #else
    #define KC_HAVE_AVX512_TARGET 0
    #endif

    #if KC_HAVE_AVX512_TARGET
    /* AVX-512 (VBMI2): vpcompressb packs the offsets of the set bits into bytes, widened
       to 32 bits sixteen at a time (stores past the count are overwritten later). */
    #define KC_AVX512 "avx512f,avx512bw,avx512vbmi2,popcnt,bmi"
    __attribute__((target(KC_AVX512))) static inline Py_ssize_t kc_flatten_avx512(
            uint64_t m, Py_ssize_t base, uint32_t* idx, Py_ssize_t cnt) {
        if (m) {
            const __m512i iota = _mm512_set_epi8(
                63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48,
                47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32,
                31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16,
                15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
            const __m512i at = _mm512_set1_epi32((int)base);
            __m512i packed = _mm512_maskz_compress_epi8((__mmask64)m, iota);
            uint32_t* o = idx + cnt;
            Py_ssize_t pc = __builtin_popcountll(m);
            _mm512_storeu_si512((void*)o, _mm512_add_epi32(at, _mm512_cvtepu8_epi32(_mm512_castsi512_si128(packed))));
            if (pc > 16) {
                int t;
                for (t = 1; t * 16 < pc; t++) {
                    __m128i part = _mm_loadu_si128((const __m128i*)((const unsigned char*)&packed + 16 * t));
                    _mm512_storeu_si512((void*)(o + 16 * t), _mm512_add_epi32(at, _mm512_cvtepu8_epi32(part)));
                }
            }
            cnt += pc;
        }
        return cnt;
    }

    __attribute__((target(KC_AVX512))) static inline void kc_classify64_avx512(const unsigned char* b, kc_blk* o) {
        const __m512i wst = _mm512_broadcast_i32x4(_mm_setr_epi8(
            0x20, -128, -128, -128, -128, -128, -128, -128, -128, 0x09, 0x0A, -128, -128, 0x0D, -128, -128));
        const __m512i opt = _mm512_broadcast_i32x4(_mm_setr_epi8(
            -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, 0x3A, 0x7B, 0x2C, 0x7D, -128, -128));
        const __m512i sp = _mm512_set1_epi8(0x20);
        const __m512i v = _mm512_loadu_si512((const void*)b);
        /* The same tables as kc_classify64_avx2. */
        o->q = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x22));
        o->bs = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x5C));
        o->op = _mm512_cmpeq_epi8_mask(_mm512_or_si512(v, sp), _mm512_shuffle_epi8(opt, v));
        o->ws = _mm512_cmpeq_epi8_mask(v, _mm512_shuffle_epi8(wst, v));
        o->lo = _mm512_cmplt_epi8_mask(v, sp);
    }

    __attribute__((target(KC_AVX512)))
    static Py_ssize_t kc_fill_avx512(kc_s1* s, uint32_t* idx) { KC_FILL(kc_classify64_avx512, kc_flatten_avx512) }
    #endif

    /* Levels: 0 the scanner above only, 1 portable, 2 SSE2, 3 AVX2, 4 AVX-512
       (kc_gvk_levels[l] is NULL where the build or the CPU lacks it). */
    static kc_fill_fn kc_gvk_levels[5];
    static int kc_gvk_level = 0;

    static void kc_gvk_fast_init(void) {
        int c;
        kc_blk_tab_init();
        for (c = 0; c < 256; c++) kc_term_tab[c] = (kc_blk_tab[c] & 12) != 0;
        /* The portable classifier (a table lookup per byte) is slower than the one-pass
           scanner: it is there for the tests and for other platforms to build on. */
        kc_gvk_levels[1] = kc_fill_scalar;
        kc_gvk_level = 0;
    #if defined(__SSE2__)
        kc_gvk_levels[2] = kc_fill_sse2;
        kc_gvk_level = 2;
    #endif
    #if KC_HAVE_AVX2_TARGET
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")
                && __builtin_cpu_supports("bmi")) {
            kc_gvk_levels[3] = kc_fill_avx2;
            kc_gvk_level = 3;
    #if KC_HAVE_AVX512_TARGET
            if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
                    && __builtin_cpu_supports("avx512vbmi2")) {
                kc_gvk_levels[4] = kc_fill_avx512;
                kc_gvk_level = 4;
            }
    #endif
        }
    #endif
    }

    /* The next chunk of positions; at the end of the text the count includes n itself
       (p[n] is the NUL every bytes object ends with), so it is never 0. */
    static Py_ssize_t kc_refill(kc_s1* s, uint32_t* idx, kc_fill_fn fill) {
        Py_ssize_t cnt = 0;
        while (cnt == 0 && !s->bad && s->pos < s->n) cnt = fill(s, idx);
        if (s->pos >= s->n && !s->bad) {
            if (s->in_str) s->bad = 1;   /* an unterminated string */
            idx[cnt++] = (uint32_t)s->n;
        }
        return cnt;
    }

    /* The text of the string opening at i when it is ASCII: its end (the closing quote),
       or -1. Stage 1 has not necessarily reached the closing quote yet; a backslash
       before it makes a later chunk give up, which discards this reading. */
    static inline Py_ssize_t kc_ascii_string_end(const unsigned char* p, Py_ssize_t i, Py_ssize_t n) {
        Py_ssize_t j = kc_string_stop(p, i + 1, n);
        return (j < n && p[j] == 0x22) ? j : -1;
    }

    /* Fills the stack below the caller with junk, so that a kc_gvk_fast called next
       (tests only) cannot read positions a previous call left in its idx by chance. */
    static __attribute__((noinline)) void kc_poison_stack(void) {
        unsigned char junk[KC_IDX_CAP * 4 + KC_MAX_DEPTH + 1024];
        memset(junk, 0xA5, sizeof junk);
        __asm__ volatile("" : : "r"(junk) : "memory");
    }

    /* 0: a valid top-level object (matching members recorded in *out); 1: a top-level
       null; -1: not the plain case, or not JSON. */
    static int kc_gvk_fast(const unsigned char* p, Py_ssize_t n, kc_fill_fn fill, kc_gvk_out* out) {
        uint32_t idx[KC_IDX_CAP];
        unsigned char stack[KC_MAX_DEPTH];   /* 1: object, 0: array */
        kc_s1 s;
        Py_ssize_t k = 0, cnt = 0, i, j;
        int depth, want;
        unsigned char c;
        s.p = p; s.n = n; s.pos = 0; s.in_str = 0; s.prev_scalar = 0; s.esc_carry = 0; s.bad = 0;
    #define KC_NEXT() do { \\
            if (k == cnt) { cnt = kc_refill(&s, idx, fill); k = 0; if (s.bad) return -1; } \\
            i = idx[k++]; c = p[i]; \\
        } while (0)
    /* A number or literal at i, then whitespace, a structural byte or the end. */
    #define KC_SCALAR_END(j) if ((j) < 0 || ((j) < n && !kc_term_tab[p[j]])) return -1
        KC_NEXT();
        if (c != 0x7B) {
            if (c != 0x6E) return -1;
            j = kc_scan_lit(p, i, n, "null", 4);
            KC_SCALAR_END(j);
            KC_NEXT();
            return i == n ? 1 : -1;
        }
        stack[0] = 1;
        depth = 1;
    object_open:
        KC_NEXT();
        if (c == 0x7D) goto close;
        goto key;
    object_key:
        KC_NEXT();
    key:
        if (c != 0x22) return -1;
        want = 0;
        if (depth == 1) {
            j = kc_ascii_string_end(p, i, n);
            if (j < 0) return -1;
            want = kc_fold_key(p, i + 1, j);
        }
        KC_NEXT();
        if (c != 0x3A) return -1;
        KC_NEXT();
        if (want) {
            if (c == 0x22) {
                j = kc_ascii_string_end(p, i, n);
                if (j < 0) return -1;
                if (want == 1) { out->av0 = i + 1; out->av1 = j; out->av_seen = 1; }
                else { out->k0 = i + 1; out->k1 = j; out->k_seen = 1; }
            } else if (c == 0x6E) {
                /* null leaves the field alone */
                j = kc_scan_lit(p, i, n, "null", 4);
                KC_SCALAR_END(j);
            } else {
                return -1;
            }
            goto after_value;
        }
    value:
        switch (c) {
        case 0x22:
            goto after_value;
        case 0x7B:
            if (depth >= KC_MAX_DEPTH) return -1;
            stack[depth++] = 1;
            goto object_open;
        case 0x5B:
            if (depth >= KC_MAX_DEPTH) return -1;
            stack[depth++] = 0;
            KC_NEXT();
            if (c == 0x5D) goto close;
            goto value;
        case 0x74: j = kc_scan_lit(p, i, n, "true", 4); break;
        case 0x66: j = kc_scan_lit(p, i, n, "false", 5); break;
        case 0x6E: j = kc_scan_lit(p, i, n, "null", 4); break;
        case 0x2D: case 0x30: case 0x31: case 0x32: case 0x33: case 0x34:
        case 0x35: case 0x36: case 0x37: case 0x38: case 0x39:
            j = kc_scan_number(p, i, n); break;
        default:
            return -1;
        }
        KC_SCALAR_END(j);
    after_value:
        KC_NEXT();
        if (c == 0x2C) {
            if (stack[depth - 1]) goto object_key;
            KC_NEXT();
            goto value;
        }
    close:
        if (c != (stack[depth - 1] ? 0x7D : 0x5D)) return -1;
        if (--depth) goto after_value;
        KC_NEXT();
        return i == n ? 0 : -1;
    #undef KC_NEXT
    #undef KC_SCALAR_END
    }
    """
    ctypedef Py_ssize_t (*kc_fill_fn)(void* s, uint32_t* idx) noexcept nogil
    void kc_poison_stack() noexcept nogil
    kc_fill_fn kc_gvk_levels[5]
    int kc_gvk_level
    void kc_gvk_fast_init() noexcept nogil
    int kc_gvk_fast(const unsigned char* p, Py_ssize_t n, kc_fill_fn fill, kc_gvk_out* out) noexcept nogil


kc_gvk_fast_init()


def interpret_gvk(data):
    """Group, version and kind named by a JSON document's ``apiVersion`` and ``kind``."""
    if type(data) is not bytes:
        return _pure_interpret_gvk(data)
    return _scanned_gvk(data, kc_gvk_level)


cdef inline void _clear_out(kc_gvk_out* out) noexcept nogil:
    out.av0 = out.av1 = out.k0 = out.k1 = 0
    out.av_seen = out.k_seen = 0


cdef int _check_level(int level, int lowest) except -1:
    if level < lowest or level > 4 or (level > 0 and kc_gvk_levels[level] == NULL):
        raise ValueError(f"sniff level {level} is not available")
    return 0


def _gvk_levels():
    """The sniff levels this build and CPU offer (0: the one-pass scanner only; 1, 2, 3, 4:
    the two-stage sniff with the portable, SSE2, AVX2, AVX-512 block classifier), for the
    tests."""
    return [lv for lv in range(5) if lv == 0 or kc_gvk_levels[lv] != NULL]


def _interpret_gvk_scanner(data, int level=-1):
    """interpret_gvk through this module's scanners at every size (for the parity tests),
    at sniff ``level`` (see _gvk_levels; -1: the default)."""
    if level < 0:
        level = kc_gvk_level
    _check_level(level, 0)
    if type(data) is not bytes:
        return _pure_interpret_gvk(data)
    return _scanned_gvk(data, level)


def _gvk_fast_rc(bytes data, int level):
    """The two-stage sniff's own answer at ``level`` (0: an object, 1: null, -1: handed
    on), for the tests: it must answer plain documents and never accept broken ones. The
    stack is filled with junk first: a position the scan forgot to write must not be
    found there, left by an earlier call on the same document."""
    cdef kc_gvk_out out
    _check_level(level, 1)
    _clear_out(&out)
    kc_poison_stack()
    return kc_gvk_fast(<const unsigned char*>PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data),
                       kc_gvk_levels[level], &out)


cdef object _scanned_gvk(bytes data, int level):
    cdef kc_gvk_out out
    cdef int rc = -1
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef kc_fill_fn fill = kc_gvk_levels[level] if level > 0 else NULL
    _clear_out(&out)
    with nogil:
        # Positions are 32-bit; p[n] is the bytes object's terminating NUL.
        if fill != NULL and n < 0x7FFFFFFF:
            rc = kc_gvk_fast(p, n, fill, &out)
        if rc < 0:
            _clear_out(&out)  # the one-pass scanner starts afresh on what the sniff handed on
            rc = kc_gvk_scan(p, n, &out)
    if rc < 0:
        return _pure_interpret_gvk(data)
    if rc == 1 or (not out.av_seen and not out.k_seen):
        return _EMPTY_GVK
    # A missing member reads as "" (the struct field keeps its zero value).
    api_version = PyUnicode_DecodeUTF8(<const char*>p + out.av0, out.av1 - out.av0, NULL) if out.av_seen else ""
    kind = PyUnicode_DecodeUTF8(<const char*>p + out.k0, out.k1 - out.k0, NULL) if out.k_seen else ""
    key = (api_version, kind)
    cached = PyDict_GetItem(_gvk_cache, key)
    if cached != NULL:
        return <object>cached
    # Both members are strings here (the pure twin's _from_members with nothing to
    # reject). Errors (an apiVersion with two slashes) raise here and are not cached.
    if not api_version and not kind:
        return _EMPTY_GVK
    group, version = parse_group_version(api_version)
    gvk = GroupVersionKind(group, version, kind)
    if len(_gvk_cache) >= 512:
        _gvk_cache.clear()
    _gvk_cache[key] = gvk
    return gvk
