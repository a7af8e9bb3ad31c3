"""Pure-Python protobuf wire kernels (the twins of ``kcodec/_speedups/_wire.pyx``, named as a kernel set by ``kcodec._native.wire``).

Everything here is flat and bytes-in/bytes-out so the Cython twin can mirror it line for
line: varints, a bounds-checked field iterator, the ``runtime.Unknown`` message and the
``k8s\\x00`` envelope of the Kubernetes protobuf serializer (Go: k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go; the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime).

Every decoding error is a :class:`kcodec.errors.DecodeError`; errors about a position name
the byte offset inside the buffer that was passed in.
"""
from __future__ import annotations

from typing import Any, Iterator

from kcodec._kinds import WT_BYTES, WT_FIXED64, WT_VARINT
from kcodec.errors import DecodeError, EncodeError

__all__ = [
    "varint",
    "read_varint",
    "skip_field",
    "read_go_uvarint",
    "length_error",
    "go_field_number",
    "end_group_error",
    "illegal_tag_error",
    "wrong_wire_error",
    "PROTO_MAGIC",
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

PROTO_MAGIC = b"k8s\x00"

_MASK64 = 0xFFFFFFFFFFFFFFFF
_SIGN64 = 0x8000000000000000
_TWO64 = 0x10000000000000000
# One-byte varints are by far the most common (tags, short lengths): hand out shared objects.
_ONE_BYTE = tuple(bytes((i,)) for i in range(128))

_UNKNOWN_FIELDS = {0x0A: "TypeMeta", 0x12: "Raw", 0x1A: "ContentEncoding", 0x22: "ContentType"}

_NOT_PROTOBUF = (
    "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
)


def encode_varint(n: int) -> bytes:
    """Encode ``n`` as a protobuf base-128 varint.

    Negative values (Go int32/int64) are written as their 64-bit two's complement, which
    always takes 10 bytes, as Go's generated marshallers do (Go: the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime).
    """
    if n >= 0:
        if n < 0x80:
            return _ONE_BYTE[n]
        if n < 0x4000:
            return bytes(((n & 0x7F) | 0x80, n >> 7))
        if n > _MASK64:
            raise EncodeError(f"varint value {n} does not fit in 64 bits")
    else:
        if n < -_SIGN64:
            raise EncodeError(f"varint value {n} does not fit in 64 bits")
        n &= _MASK64
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def decode_varint(buf: bytes, pos: int, end: int = -1) -> tuple[int, int]:
    """Read an unsigned varint from ``buf`` at ``pos``; return ``(value, new_pos)``.

    ``end`` bounds the read (``-1``: the end of ``buf``). A varint cut short raises Go's
    ``unexpected EOF`` (``offset``: where the input ended); one longer than 10 bytes raises
    ``proto: integer overflow`` (``offset``: where the varint starts), the texts of the
    generated code. Bits beyond 64 are dropped, as in Go.
    """
    if end < 0:
        end = len(buf)
    if pos < end:
        b = buf[pos]
        if b < 0x80:
            return b, pos + 1
    else:
        raise DecodeError("unexpected EOF", offset=pos)
    start = pos
    result = b & 0x7F
    shift = 7
    pos += 1
    while True:
        if shift >= 70:
            raise DecodeError("proto: integer overflow", offset=start)
        if pos >= end:
            raise DecodeError("unexpected EOF", offset=pos)
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & _MASK64, pos
        shift += 7


def decode_signed_varint(buf: bytes, pos: int, end: int = -1) -> tuple[int, int]:
    """Like :func:`decode_varint` but read the 64 bits as a Go ``int64``."""
    value, pos = decode_varint(buf, pos, end)
    if value >= _SIGN64:
        value -= _TWO64
    return value, pos


def iter_fields(
    buf: bytes, start: int = 0, end: int = -1
) -> Iterator[tuple[int, int, int | tuple[int, int]]]:
    """Walk the fields of the protobuf message ``buf[start:end]`` (``end=-1``: to the end).

    Yields ``(field_number, wire_type, value)``: for wire type 0 the varint as an unsigned
    int, for 1 and 5 the little-endian fixed64/fixed32 as an unsigned int, for 2 the
    ``(start, end)`` offsets of the bytes in ``buf`` (never a copy). Lengths are checked
    against the message bounds before anything is read, so a huge length prefix raises
    instead of allocating.

    A group (wire type 3) is skipped to its matching end group and not yielded, as every
    generated Unmarshal hands it to skipGenerated (:func:`skip_field`): no Kubernetes
    message has a group field, so a caller could do nothing with one. An end group with
    no open group is refused before the field number is looked at, and wire types 6/7
    raise, with the generated code's texts less the message name, which a generic walker
    does not know.
    """
    if end < 0:
        end = len(buf)
    pos = start
    while pos < end:
        tag_pos = pos
        b = buf[pos]
        if b < 0x80:
            tag = b
            pos += 1
        else:
            tag, pos = decode_varint(buf, pos, end)
        wt = tag & 7
        if wt == 4:
            raise DecodeError("proto: wiretype end group for non-group", offset=tag_pos)
        # Go reads the field number as an int32: keep its truncation.
        fnum = go_field_number(tag)
        if fnum <= 0:
            raise DecodeError(f"proto: illegal tag {fnum} (wire type {tag})", offset=tag_pos)
        if wt == 2:
            if pos < end and buf[pos] < 0x80:
                n = buf[pos]
                pos += 1
            else:
                n, pos = decode_varint(buf, pos, end)
            if n > end - pos:
                if n >= _SIGN64:
                    raise DecodeError("proto: negative length found during unmarshaling", offset=tag_pos)
                raise DecodeError("unexpected EOF", offset=end)
            yield fnum, 2, (pos, pos + n)
            pos += n
        elif wt == 0:
            value, pos = decode_varint(buf, pos, end)
            yield fnum, 0, value
        elif wt == 1:
            if end - pos < 8:
                raise DecodeError("unexpected EOF", offset=end)
            yield fnum, 1, int.from_bytes(buf[pos : pos + 8], "little")
            pos += 8
        elif wt == 5:
            if end - pos < 4:
                raise DecodeError("unexpected EOF", offset=end)
            yield fnum, 5, int.from_bytes(buf[pos : pos + 4], "little")
            pos += 4
        else:
            pos = skip_field(buf, wt, pos, end, "")


def _unknown_parts(
    api_version: str, kind: str, raw: bytes | None, content_encoding: str, content_type: str
) -> list[bytes]:
    av = api_version.encode("utf-8", "surrogateescape")
    k = kind.encode("utf-8", "surrogateescape")
    la = len(av)
    lk = len(k)
    tm_len = 2 + la + lk + (1 if la < 0x80 else len(encode_varint(la))) + (
        1 if lk < 0x80 else len(encode_varint(lk))
    )
    parts = [
        b"\x0a", encode_varint(tm_len),
        b"\x0a", encode_varint(la), av,
        b"\x12", encode_varint(lk), k,
    ]
    if raw is not None:
        parts += (b"\x12", encode_varint(len(raw)), raw)
    ce = content_encoding.encode("utf-8", "surrogateescape")
    ct = content_type.encode("utf-8", "surrogateescape")
    parts += (b"\x1a", encode_varint(len(ce)), ce, b"\x22", encode_varint(len(ct)), ct)
    return parts


def marshal_unknown(
    api_version: str, kind: str, raw: bytes | None, content_encoding: str, content_type: str
) -> bytes:
    """Marshal a ``runtime.Unknown`` message body as Go's generated code does.

    Field 1 (typeMeta {1 apiVersion, 2 kind}) is always written, field 2 (raw) only when
    ``raw`` is not None (an empty non-None raw is ``12 00``), fields 3 and 4 always.
    Strings are UTF-8; lone surrogates from :func:`unmarshal_unknown` round-trip the
    original bytes.
    """
    return b"".join(_unknown_parts(api_version, kind, raw, content_encoding, content_type))


def _read_str_field(buf: bytes, pos: int, end: int, tag_pos: int) -> tuple[int, int]:
    """Bounds of a length-delimited field whose tag ended at ``pos``."""
    if pos < end and buf[pos] < 0x80:
        n = buf[pos]
        pos += 1
    else:
        n, pos = decode_varint(buf, pos, end)
    if n > end - pos:
        if n >= _SIGN64:
            raise DecodeError("proto: negative length found during unmarshaling", offset=tag_pos)
        raise DecodeError("unexpected EOF", offset=end)
    return pos, pos + n


def _skip_field(buf: bytes, pos: int, end: int, wt: int, fnum: int, tag_pos: int) -> int:
    if wt == 0:
        return decode_varint(buf, pos, end)[1]
    if wt == 2:
        return _read_str_field(buf, pos, end, tag_pos)[1]
    if wt == 1:
        if end - pos < 8:
            raise DecodeError("unexpected EOF", offset=end)
        return pos + 8
    if wt == 5:
        if end - pos < 4:
            raise DecodeError("unexpected EOF", offset=end)
        return pos + 4
    # Groups and wire types 6/7: Go's generated skip decides.
    return skip_field(buf, wt, pos, end, "")


def _read_tag(buf: bytes, pos: int, end: int, msg: str) -> tuple[int, int, int]:
    tag_pos = pos
    b = buf[pos]
    if b < 0x80:
        tag = b
        pos += 1
    else:
        tag, pos = decode_varint(buf, pos, end)
    if tag & 7 == 4:
        # Checked before the field number, as every generated Unmarshal does.
        raise end_group_error(msg, None, tag_pos)
    fnum = go_field_number(tag)
    if fnum <= 0:
        raise illegal_tag_error(msg, tag, None, tag_pos)
    return fnum, tag & 7, pos


def _wrong_wire(field: str, wt: int, tag_pos: int) -> DecodeError:
    return wrong_wire_error(wt, field, None, tag_pos)


def _decode_type_meta(
    buf: bytes, pos: int, end: int, av: bytes, kind: bytes
) -> tuple[bytes, bytes]:
    """Fields of a typeMeta message merged over ``av``/``kind`` (repeats merge in Go)."""
    while pos < end:
        tag_pos = pos
        tag = buf[pos]
        if tag == 0x0A or tag == 0x12:
            pos += 1
            if pos < end and buf[pos] < 0x80:
                n = buf[pos]
                pos += 1
            else:
                n, pos = decode_varint(buf, pos, end)
            if n > end - pos:
                _read_str_field(buf, tag_pos + 1, end, tag_pos)
            if tag == 0x0A:
                av = buf[pos : pos + n]
            else:
                kind = buf[pos : pos + n]
            pos += n
            continue
        fnum, wt, pos = _read_tag(buf, pos, end, "TypeMeta")
        if fnum == 1 or fnum == 2:
            raise _wrong_wire("APIVersion" if fnum == 1 else "Kind", wt, tag_pos)
        pos = _skip_field(buf, pos, end, wt, fnum, tag_pos)
    return av, kind


def _decode_unknown(buf: bytes, pos: int, end: int, span: bool = False) -> tuple[str, str, Any, str, str]:
    """The Unknown's fields; with ``span`` the raw body is its ``(start, end)`` in ``buf``."""
    av = kind = ce = ct = b""
    raw: Any = None
    while pos < end:
        tag_pos = pos
        tag = buf[pos]
        # Fields 1-4 with the expected wire type 2 are single-byte tags 0a 12 1a 22.
        if tag == 0x12 or tag == 0x0A or tag == 0x1A or tag == 0x22:
            pos += 1
            if pos < end and buf[pos] < 0x80:
                n = buf[pos]
                pos += 1
            else:
                n, pos = decode_varint(buf, pos, end)
            if n > end - pos:
                _read_str_field(buf, tag_pos + 1, end, tag_pos)
            start = pos
            pos += n
            if tag == 0x12:
                raw = (start, pos) if span else buf[start:pos]
            elif tag == 0x0A:
                av, kind = _decode_type_meta(buf, start, pos, av, kind)
            elif tag == 0x1A:
                ce = buf[start:pos]
            else:
                ct = buf[start:pos]
            continue
        fnum, wt, pos = _read_tag(buf, pos, end, "Unknown")
        if 1 <= fnum <= 4:
            raise _wrong_wire(_UNKNOWN_FIELDS[(fnum << 3) | 2], wt, tag_pos)
        pos = _skip_field(buf, pos, end, wt, fnum, tag_pos)
    return (
        av.decode("utf-8", "surrogateescape") if av else "",
        kind.decode("utf-8", "surrogateescape") if kind else "",
        raw,
        ce.decode("utf-8", "surrogateescape") if ce else "",
        ct.decode("utf-8", "surrogateescape") if ct else "",
    )


def unmarshal_unknown(buf: bytes) -> tuple[str, str, bytes | None, str, str]:
    """Parse a ``runtime.Unknown`` message body.

    Returns ``(api_version, kind, raw, content_encoding, content_type)``; ``raw`` is None
    when field 2 is absent and ``b""`` when present but empty. Unknown fields are skipped;
    strings that are not valid UTF-8 keep their bytes as lone surrogates
    (``surrogateescape``), since Go does not validate them either.
    """
    if type(buf) is not bytes:
        buf = bytes(buf)
    return _decode_unknown(buf, 0, len(buf))


def envelope_encode(
    api_version: str,
    kind: str,
    raw: bytes | None,
    content_encoding: str = "",
    content_type: str = "",
) -> bytes:
    """The protobuf serializer's wire form: ``k8s\\x00`` followed by a ``runtime.Unknown``."""
    parts = _unknown_parts(api_version, kind, raw, content_encoding, content_type)
    parts.insert(0, PROTO_MAGIC)
    return b"".join(parts)


def envelope_decode(data: bytes) -> tuple[str, str, bytes | None, str, str]:
    """Check the magic prefix and parse the ``runtime.Unknown`` after it.

    Returns ``(api_version, kind, raw, content_encoding, content_type)``. Raises
    ``empty data`` for no bytes, Go's ``provided data does not appear to be a protobuf
    message, expected prefix [107 56 115 0]`` for a short or foreign prefix and
    ``empty body`` for the bare magic; byte offsets in parse errors count from the start
    of ``data`` (the magic included).
    """
    if type(data) is not bytes:
        data = bytes(data)
    return _decode_unknown(data, 4, _check_magic(data))


def _check_magic(data: bytes) -> int:
    """The length of ``data`` once it is known to hold the magic and a body."""
    n = len(data)
    if n == 0:
        raise DecodeError("empty data")
    if n < 4 or data[:4] != PROTO_MAGIC:
        raise DecodeError(_NOT_PROTOBUF)
    if n == 4:
        raise DecodeError("empty body")
    return n


def envelope_span(data: bytes) -> tuple[str, str, tuple[int, int] | None, str, str]:
    """:func:`envelope_decode` with the raw body as its ``(start, end)`` offsets in
    ``data`` (None when absent) instead of a copy: a 13 MB list is decoded in place.

    ``data`` must be ``bytes`` (the offsets index it)."""
    if type(data) is not bytes:
        raise TypeError(f"envelope_span needs bytes, not {type(data).__name__}")
    return _decode_unknown(data, 4, _check_magic(data), span=True)


def envelope_parts(
    api_version: str, kind: str, content_encoding: str = "", content_type: str = ""
) -> tuple[bytes, bytes]:
    """``(head, tail)`` around a raw body: ``head + uvarint(len(raw)) + raw + tail`` is
    ``envelope_encode(api_version, kind, raw, content_encoding, content_type)``, so an
    encoder can write the body straight into the envelope instead of copying it in."""
    parts = _unknown_parts(api_version, kind, None, content_encoding, content_type)
    return PROTO_MAGIC + b"".join(parts[:8]) + b"\x12", b"".join(parts[8:])


# ----------------------------------------------------------- field helpers for typed bodies
# The message walkers of kcodec._native.codec and the custom values' own bodies (Time,
# Quantity, RawExtension...) read and write fields with these.


def varint(n: int) -> bytes:
    """Protobuf varint of ``n`` (negative numbers as 10-byte two's complement, as Go)."""
    if n < 0:
        n += 1 << 64
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read_varint(buf: bytes, pos: int, end: int, path: str) -> tuple[int, int]:
    """``(value, new_pos)`` of the varint at ``buf[pos]``; errors name the message ``path``."""
    result = 0
    shift = 0
    start = pos
    while True:
        if pos >= end:
            raise DecodeError("unexpected EOF", field_path=path, offset=start)
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            # Go keeps only 64 bits of a 10-byte varint; an out-of-range int64 must not
            # survive into the object.
            return result & 0xFFFFFFFFFFFFFFFF, pos
        shift += 7
        if shift >= 70:
            raise DecodeError("proto: integer overflow", field_path=path, offset=start)


def length_error(n: int, path: str, pos: int) -> DecodeError:
    """Go's error for a length prefix ``n`` at ``pos`` that does not fit its message: the
    generated code reads it into an int, so beyond int64 it is negative."""
    if n >= _SIGN64:
        return DecodeError("proto: negative length found during unmarshaling", field_path=path, offset=pos)
    return DecodeError("unexpected EOF", field_path=path, offset=pos)


def go_field_number(key: int) -> int:
    """The field number gogo's generated Unmarshal reads from tag ``key``:
    ``fieldNum := int32(wire >> 3)``, the low 32 bits as a signed int."""
    n = (key >> 3) & 0xFFFFFFFF
    return n - 0x100000000 if n >= 0x80000000 else n


# The three texts of every gogo-generated Unmarshal (k8s.io/api/*/generated.pb.go). They
# hold the Go message and field names only; the place goes into field_path and offset.

def end_group_error(message: str, path: str | None, offset: int) -> DecodeError:
    """A tag of wire type 4 (checked first, before the field number)."""
    return DecodeError(f"proto: {message}: wiretype end group for non-group",
                       field_path=path or None, offset=offset)


def illegal_tag_error(message: str, key: int, path: str | None, offset: int) -> DecodeError:
    """A field number <= 0. Go formats the whole tag varint as the "wire type"."""
    return DecodeError(f"proto: {message}: illegal tag {go_field_number(key)} (wire type {key})",
                       field_path=path or None, offset=offset)


def wrong_wire_error(wire: int, field: str, path: str | None, offset: int | None = None) -> DecodeError:
    """A known field (Go field name ``field``) with a wire type its type cannot have."""
    return DecodeError(f"proto: wrong wireType = {wire} for field {field}",
                       field_path=path or None, offset=offset)


def _skip_error(msg: str, path: str, pos: int) -> DecodeError:
    return DecodeError(msg, field_path=path or None, offset=pos)


def skip_field(buf: bytes, wire: int, pos: int, end: int, path: str) -> int:
    """Position after an unknown field whose tag, of wire type ``wire``, ended at ``pos``.

    Go's generated skipGenerated: a start group (3) runs to the end group (4) that brings
    the depth back to zero, groups nested in it counted and the field numbers inside never
    checked (proto2 groups are unknown to every Kubernetes message, yet Go accepts them). An
    end group with no open group, or wire type 6/7, is an error. Messages are Go's texts;
    ``path`` and the offset are kept on the exception.
    """
    depth = 0
    while True:
        if wire == WT_VARINT:
            pos = read_go_uvarint(buf, pos, end, path)[1]
        elif wire == WT_BYTES:
            length, pos = read_go_uvarint(buf, pos, end, path)
            # Go reads the length into an int: beyond int64 it is negative, and so is an
            # index it pushes past int64.
            if length >= _SIGN64 or pos + length >= _SIGN64:
                raise _skip_error("proto: negative length found during unmarshaling", path, pos)
            pos += length
        elif wire == 3:
            depth += 1
        elif wire == 4:
            if depth == 0:
                raise _skip_error("proto: unexpected end of group", path, pos)
            depth -= 1
        elif wire == WT_FIXED64:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            raise _skip_error(f"proto: illegal wireType {wire}", path, pos)
        if depth == 0:
            break
        if pos >= end:
            raise _skip_error("unexpected EOF", path, end)
        tag, pos = read_go_uvarint(buf, pos, end, path)
        wire = tag & 7
    if pos > end:
        raise _skip_error("unexpected EOF", path, end)
    return pos


def read_go_uvarint(buf: bytes, pos: int, end: int, path: str) -> tuple[int, int]:
    """A varint as gogo's generated code reads it (64-bit wrap, an 11th byte is an overflow),
    with Go's texts; ``path`` and the offset go on the DecodeError."""
    value = 0
    shift = 0
    while True:
        if shift >= 64:
            raise _skip_error("proto: integer overflow", path, pos)
        if pos >= end:
            raise _skip_error("unexpected EOF", path, pos)
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value & _MASK64, pos
        shift += 7
