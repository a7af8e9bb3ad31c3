"""Pure-Python kernels: the twins of the Cython kernels in ``kcodec._speedups``.

Each name in ``__all__`` exists in both packages with the same signature and behaviour;
:mod:`kcodec.speedups` binds one set or the other.
"""
from kcodec._native.pbwire import (
    decode_signed_varint,
    decode_varint,
    encode_varint,
    envelope_decode,
    envelope_encode,
    iter_fields,
    marshal_unknown,
    unmarshal_unknown,
)

__all__ = [
    "decode_signed_varint",
    "decode_varint",
    "encode_varint",
    "envelope_decode",
    "envelope_encode",
    "iter_fields",
    "marshal_unknown",
    "unmarshal_unknown",
]
