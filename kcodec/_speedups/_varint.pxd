# cython: language_level=3
"""Varint arithmetic shared by the wire and struct kernels (inline only: no module)."""
from libc.stdint cimport uint64_t


cdef inline Py_ssize_t uvarint_size(uint64_t n) noexcept nogil:
    """Bytes in the base-128 varint of ``n``."""
    cdef Py_ssize_t s = 1
    while n >= 0x80:
        n >>= 7
        s += 1
    return s
