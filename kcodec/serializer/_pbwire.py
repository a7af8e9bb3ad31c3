"""Protobuf wire helpers for the serializers (ref §12, §13).

Thin wrappers over the wire kernels: each call uses the kernel currently bound in
:mod:`kcodec.speedups` (compiled or pure, switchable at run time) and falls back to the
pure twin in :mod:`kcodec._native.pbwire` when the switch does not carry the name.
Hot loops should fetch a kernel once with :func:`kernel` instead of calling the wrappers
per item.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

from kcodec._native import pbwire as _pure

__all__ = [
    "PROTO_MAGIC",
    "kernel",
    "encode_varint",
    "decode_varint",
    "decode_signed_varint",
    "iter_fields",
    "marshal_unknown",
    "unmarshal_unknown",
    "envelope_encode",
    "envelope_decode",
    "envelope_span",
    "envelope_parts",
]

PROTO_MAGIC: bytes = _pure.PROTO_MAGIC


def kernel(name: str) -> Callable[..., Any]:
    """The wire kernel ``name`` of the mode in force (compiled when enabled, else pure)."""
    from kcodec import speedups  # at call time: the active mode may change after import

    fn = getattr(speedups, name, None)
    if fn is None:
        fn = getattr(_pure, name)
    return fn


def encode_varint(n: int) -> bytes:
    """Base-128 varint of ``n``; negative values take 10 bytes (two's complement)."""
    return kernel("encode_varint")(n)


def decode_varint(buf: bytes, pos: int, end: int = -1) -> tuple[int, int]:
    """``(value, new_pos)`` of the unsigned varint at ``buf[pos]`` (bounded by ``end``)."""
    return kernel("decode_varint")(buf, pos, end)


def decode_signed_varint(buf: bytes, pos: int, end: int = -1) -> tuple[int, int]:
    """``(value, new_pos)`` of the varint at ``buf[pos]`` read as a Go int64."""
    return kernel("decode_signed_varint")(buf, pos, end)


def iter_fields(
    buf: bytes, start: int = 0, end: int = -1
) -> Iterator[tuple[int, int, int | tuple[int, int]]]:
    """``(field_number, wire_type, value_or_(start, end))`` for each field of a message."""
    return kernel("iter_fields")(buf, start, end)


def marshal_unknown(
    api_version: str, kind: str, raw: bytes | None, content_encoding: str, content_type: str
) -> bytes:
    """Bytes of a ``runtime.Unknown`` message (raw omitted only when None)."""
    return kernel("marshal_unknown")(api_version, kind, raw, content_encoding, content_type)


def unmarshal_unknown(buf: bytes) -> tuple[str, str, bytes | None, str, str]:
    """``(api_version, kind, raw, content_encoding, content_type)`` of an Unknown message."""
    return kernel("unmarshal_unknown")(buf)


def envelope_encode(
    api_version: str,
    kind: str,
    raw: bytes | None,
    content_encoding: str = "",
    content_type: str = "",
) -> bytes:
    """``k8s\\x00`` + ``runtime.Unknown``: the protobuf serializer's output."""
    return kernel("envelope_encode")(api_version, kind, raw, content_encoding, content_type)


def envelope_decode(data: bytes) -> tuple[str, str, bytes | None, str, str]:
    """Check the magic and parse the envelope; Go's error texts (ref §12.2)."""
    return kernel("envelope_decode")(data)


def envelope_span(data: bytes) -> tuple[str, str, tuple[int, int] | None, str, str]:
    """:func:`envelope_decode` with the raw body as ``(start, end)`` offsets in ``data``
    (``bytes`` only), so a large body is decoded in place rather than copied out first."""
    return kernel("envelope_span")(data)


def envelope_parts(
    api_version: str, kind: str, content_encoding: str = "", content_type: str = ""
) -> tuple[bytes, bytes]:
    """``(head, tail)``: ``head + uvarint(len(raw)) + raw + tail`` equals
    :func:`envelope_encode` of the same arguments (the body is written between them)."""
    return _pure.envelope_parts(api_version, kind, content_encoding, content_type)
