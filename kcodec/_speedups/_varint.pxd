# cython: language_level=3
"""Varint arithmetic and the one varint reader shared by the wire and struct kernels (inline only: no module)."""
from libc.stdint cimport uint64_t


cdef inline Py_ssize_t uvarint_size(uint64_t n) noexcept nogil:
    """Bytes in the base-128 varint of ``n``."""
    cdef Py_ssize_t s = 1
    while n >= 0x80:
        n >>= 7
        s += 1
    return s


cdef enum:
    VARINT_OK = 0
    VARINT_EOF = 1
    VARINT_OVERFLOW = 2


cdef inline int read_uvarint(const unsigned char* p, Py_ssize_t* pos, Py_ssize_t end,
                             uint64_t* out) noexcept nogil:
    """Base-128 varint at ``p[pos[0]]`` below ``end``; bits beyond 64 are dropped.

    The pure kernels' rule (kcodec.wire.read_uvarint): EOF before a final byte, overflow
    when a 10th byte still has its continuation bit. ``pos`` moves only on success.
    """
    cdef Py_ssize_t i = pos[0]
    cdef uint64_t r = 0
    cdef unsigned int shift = 0
    cdef unsigned char b
    while True:
        if i >= end:
            return VARINT_EOF
        b = p[i]
        i += 1
        r |= (<uint64_t>(b & 0x7F)) << shift
        if b < 0x80:
            pos[0] = i
            out[0] = r
            return VARINT_OK
        shift += 7
        if shift >= 70:
            return VARINT_OVERFLOW
