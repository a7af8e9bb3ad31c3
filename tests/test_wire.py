"""Protobuf wire kernels and the k8s envelope (Go: k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go (the k8s\x00 envelope); k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go (Decode); the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime; k8s.io/apimachinery/pkg/runtime/types.go (Unknown))."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcodec import wire as pure
from kcodec.errors import DecodeError, EncodeError
from kcodec import speedups as wrapped

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "k8s-api-v0.36.3" / "HEAD"

IMPLS = pytest.mark.parametrize("w", [pure, wrapped], ids=["native", "bound"])

NOT_PROTOBUF = "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"


# ---------------------------------------------------------------------------- varints


@IMPLS
@pytest.mark.parametrize(
    "value, hexed",
    [
        (0, "00"),
        (1, "01"),
        (127, "7f"),
        (128, "8001"),
        (300, "ac02"),
        (16383, "ff7f"),
        (16384, "808001"),
        (894344705, "81bcbaaa03"),
        (2**63 - 1, "ffffffffffffffff7f"),
        (2**64 - 1, "ffffffffffffffffff01"),
        (-1, "ffffffffffffffffff01"),
        (-2, "feffffffffffffffff01"),
        (-(2**63), "80808080808080808001"),
    ],
)
def test_encode_varint_known(w, value, hexed):
    assert w.encode_varint(value).hex() == hexed


@IMPLS
def test_negative_varint_is_ten_bytes(w):
    # DeletionGracePeriodSeconds=-1 -> 50 ff ff ff ff ff ff ff ff ff 01 (Go: the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime)
    assert (b"\x50" + w.encode_varint(-1)).hex() == "50ffffffffffffffffff01"
    for n in (-1, -5, -(2**31), -(2**63)):
        assert len(w.encode_varint(n)) == 10


@IMPLS
def test_encode_varint_out_of_range(w):
    with pytest.raises(EncodeError):
        w.encode_varint(2**64)
    with pytest.raises(EncodeError):
        w.encode_varint(-(2**63) - 1)


@IMPLS
@given(st.integers(min_value=0, max_value=2**64 - 1))
@settings(max_examples=300, deadline=None)
def test_varint_roundtrip_unsigned(w, n):
    data = b"\xaa" + w.encode_varint(n) + b"\xbb"
    value, pos = w.decode_varint(data, 1)
    assert value == n
    assert data[pos] == 0xBB


@IMPLS
@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
@settings(max_examples=300, deadline=None)
def test_varint_roundtrip_signed(w, n):
    data = w.encode_varint(n)
    assert w.decode_signed_varint(data, 0) == (n, len(data))


def test_varint_matches_google_protobuf():
    encoder = pytest.importorskip("google.protobuf.internal.encoder")
    for n in (0, 1, 127, 128, 255, 300, 2**32, 2**63 - 1, 2**64 - 1):
        assert pure.encode_varint(n) == encoder._VarintBytes(n)


@IMPLS
def test_decode_varint_truncated(w):
    # io.ErrUnexpectedEOF's text, as the generated code returns it; where the input ran
    # out is the error's offset.
    for args, offset in (((b"", 0), 0), ((b"\x01\x80\x80", 1), 3),
                         # the explicit end bounds the read even though the buffer goes on
                         ((b"\x80\x80\x01", 0, 2), 2)):
        with pytest.raises(DecodeError, match=r"^unexpected EOF$") as info:
            w.decode_varint(*args)
        assert info.value.offset == offset


@IMPLS
def test_decode_varint_overflow(w):
    # ErrIntOverflowGenerated; the offset is where the varint starts.
    with pytest.raises(DecodeError, match=r"^proto: integer overflow$") as info:
        w.decode_varint(b"\x00\x00" + b"\xff" * 10 + b"\x01", 2)
    assert info.value.offset == 2
    # an 11th byte is an overflow even when the buffer ends there (Go checks it first)
    with pytest.raises(DecodeError, match=r"^proto: integer overflow$"):
        w.decode_varint(b"\xff" * 10, 0)
    # 10 bytes are fine; bits beyond 64 are dropped as Go's uint64 shift does
    assert w.decode_varint(b"\xff" * 9 + b"\x7f", 0) == (2**64 - 1, 10)


# ---------------------------------------------------------------------------- fields


@IMPLS
def test_iter_fields_all_wire_types(w):
    data = (
        b"\x08\x96\x01"  # 1: varint 150
        + b"\x11" + (7).to_bytes(8, "little")  # 2: fixed64
        + b"\x1a\x03abc"  # 3: bytes
        + b"\x25" + (9).to_bytes(4, "little")  # 4: fixed32
        + b"\x8a\x01\x00"  # 17: empty bytes (tag 8a 01 as managedFields)
    )
    assert list(w.iter_fields(data)) == [
        (1, 0, 150),
        (2, 1, 7),
        (3, 2, (14, 17)),
        (4, 5, 9),
        (17, 2, (25, 25)),
    ]


@IMPLS
def test_iter_fields_skips_groups_as_go(w):
    # Go's generated Unmarshal hands a group of an unknown field to skipGenerated
    # (k8s.io/api/core/v1/generated.pb.go): nested groups are counted and the field numbers
    # inside (0 here) never checked; the fields around it are read as usual.
    data = (
        b"\x08\x01"  # 1: varint 1
        + b"\x13"  # 2: start group
        + b"\x00\x05\x1b\x0a\x01x\x1c"  # tag 0 varint 5, nested group 3 with bytes
        + b"\x14"  # 2: end group
        + b"\x18\x07"  # 3: varint 7
    )
    assert list(w.iter_fields(data)) == [(1, 0, 1), (3, 0, 7)]
    assert list(w.iter_fields(b"\x0b\x0c")) == []


@IMPLS
def test_iter_fields_sub_range(w):
    data = b"XX\x0a\x02\x08\x05YY"
    ((f, wt, (s, e)),) = list(w.iter_fields(data, 2, 6))
    assert (f, wt) == (1, 2)
    assert list(w.iter_fields(data, s, e)) == [(1, 0, 5)]


@IMPLS
def test_iter_fields_huge_length_raises_without_allocating(w):
    data = b"\x0a" + w.encode_varint(2**62) + b"abc"
    with pytest.raises(DecodeError, match=r"^unexpected EOF$"):
        list(w.iter_fields(data))
    data = b"\x0a" + w.encode_varint(2**64 - 1)
    with pytest.raises(DecodeError, match="negative length"):
        list(w.iter_fields(data))


@IMPLS
@pytest.mark.parametrize(
    "data, pattern",
    [
        (b"\x0a\x05ab", r"^unexpected EOF$"),
        (b"\x09\x01\x02", r"^unexpected EOF$"),
        (b"\x0d\x01", r"^unexpected EOF$"),
        (b"\x08", r"^unexpected EOF$"),
        # An unterminated group runs out of bytes in skipGenerated.
        (b"\x08\x01\x0b", r"^unexpected EOF$"),
        (b"\x0b\x0b\x0c", r"^unexpected EOF$"),
        # The generated Unmarshal checks the end group before the field number.
        (b"\x0c", r"^proto: wiretype end group for non-group$"),
        (b"\x04", r"^proto: wiretype end group for non-group$"),
        (b"\x0b\x0e\x0c", r"^proto: illegal wireType 6$"),
        (b"\x0e", r"^proto: illegal wireType 6$"),
        (b"\x03\x04", r"^proto: illegal tag 0 \(wire type 3\)$"),
        (b"\x00\x01", r"^proto: illegal tag 0 \(wire type 0\)$"),
        (b"\x80", r"^unexpected EOF$"),
    ],
)
def test_iter_fields_errors(w, data, pattern):
    with pytest.raises(DecodeError, match=pattern):
        list(w.iter_fields(data))


@IMPLS
@given(st.binary(max_size=64))
@settings(max_examples=400, deadline=None)
def test_iter_fields_never_crashes(w, data):
    try:
        for _, wt, value in w.iter_fields(data):
            if wt == 2:
                s, e = value
                assert 0 <= s <= e <= len(data)
    except DecodeError:
        pass


# ---------------------------------------------------------------------------- Unknown


@IMPLS
def test_marshal_unknown_example(w):
    # Go: k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go (the k8s\x00 envelope): Unknown{group/version, Unknown, Raw "hello world"}
    body = w.marshal_unknown("group/version", "Unknown", b"hello world", "", "")
    assert body.hex() == (
        "0a180a0d67726f75702f76657273696f6e1207556e6b6e6f776e"
        "120b68656c6c6f20776f726c641a002200"
    )


@IMPLS
def test_marshal_unknown_raw_presence(w):
    # nil raw -> field 2 absent; empty raw -> 12 00; typeMeta always, even empty
    assert w.marshal_unknown("", "", None, "", "").hex() == "0a040a0012001a002200"
    assert w.marshal_unknown("", "", b"", "", "").hex() == "0a040a00120012001a002200"
    body = w.marshal_unknown("v1", "Pod", b"\x01", "gzip", "application/json")
    assert w.unmarshal_unknown(body) == ("v1", "Pod", b"\x01", "gzip", "application/json")


@IMPLS
def test_unmarshal_unknown_raw_none_vs_empty(w):
    assert w.unmarshal_unknown(b"") == ("", "", None, "", "")
    assert w.unmarshal_unknown(b"\x12\x00") == ("", "", b"", "", "")


@IMPLS
def test_unmarshal_unknown_skips_unknown_fields_and_merges_typemeta(w):
    data = (
        b"\x0a\x04\x0a\x02v1"  # typeMeta{apiVersion v1}
        + b"\x28\x05"  # unknown varint field 5
        + b"\x0a\x05\x12\x03Pod"  # typeMeta{kind Pod}: merged with the first one
        + b"\x31" + b"\x00" * 8  # unknown fixed64 field 6
        + b"\x3d" + b"\x00" * 4  # unknown fixed32 field 7
        + b"\x42\x01z"  # unknown bytes field 8
        + b"\x12\x01a\x12\x01b"  # raw twice: last wins
    )
    assert w.unmarshal_unknown(data) == ("v1", "Pod", b"b", "", "")


@IMPLS
@pytest.mark.parametrize(
    "data, pattern",
    [
        (b"\x08\x01", r"^proto: wrong wireType = 0 for field TypeMeta$"),
        (b"\x10\x01", r"wrong wireType = 0 for field Raw"),
        (b"\x18\x01", r"wrong wireType = 0 for field ContentEncoding"),
        (b"\x20\x01", r"wrong wireType = 0 for field ContentType"),
        (b"\x0a\x02\x08\x01", r"^proto: wrong wireType = 0 for field APIVersion$"),
        (b"\x0a\x02\x10\x01", r"wrong wireType = 0 for field Kind"),
        (b"\x12\x05abc", r"^unexpected EOF$"),
        (b"\x0a\x05\x0a\x05ab", r"^unexpected EOF$"),
        (b"\x0a\x02\x0a\x05ab", r"^unexpected EOF$"),
        (b"\x00", r"illegal tag 0"),
        # Go skips groups (skipGenerated); an unterminated one runs out of bytes.
        (b"\x2b", r"^unexpected EOF$"),
        (b"\x2b\x1e\x2c", r"^proto: illegal wireType 6$"),
        (b"\x2c", r"^proto: Unknown: wiretype end group for non-group$"),
    ],
)
def test_unmarshal_unknown_errors(w, data, pattern):
    with pytest.raises(DecodeError, match=pattern):
        w.unmarshal_unknown(data)


@IMPLS
@given(
    st.text(max_size=20),
    st.text(max_size=20),
    st.none() | st.binary(max_size=300),
    st.text(max_size=10),
    st.text(max_size=10),
)
@settings(max_examples=200, deadline=None)
def test_unknown_roundtrip(w, av, kind, raw, ce, ct):
    body = w.marshal_unknown(av, kind, raw, ce, ct)
    assert w.unmarshal_unknown(body) == (av, kind, raw, ce, ct)
    assert w.envelope_decode(w.envelope_encode(av, kind, raw, ce, ct)) == (av, kind, raw, ce, ct)


@IMPLS
def test_unknown_invalid_utf8_roundtrips(w):
    body = b"\x0a\x04\x0a\x02\xff\xfe\x1a\x00\x22\x00"
    av, *_ = w.unmarshal_unknown(body)
    assert w.marshal_unknown(av, "", None, "", "").hex() == "0a060a02fffe12001a002200"


@IMPLS
@given(st.binary(max_size=80))
@settings(max_examples=400, deadline=None)
def test_unmarshal_unknown_fuzz(w, data):
    try:
        w.unmarshal_unknown(data)
    except DecodeError:
        pass


# ---------------------------------------------------------------------------- envelope


@IMPLS
def test_envelope_examples(w):
    assert pure.PROTO_MAGIC == b"k8s\x00" == bytes([107, 56, 115, 0])
    assert w.envelope_encode("group/version", "Unknown", b"hello world").hex() == (
        "6b3873000a180a0d67726f75702f76657273696f6e1207556e6b6e6f776e"
        "120b68656c6c6f20776f726c641a002200"
    )
    # Go: k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go (the k8s\x00 envelope) typed example: group/version Carp, body B
    body = b"\x0a\x00"
    data = w.envelope_encode("group/version", "Carp", body)
    assert data.hex() == "6b3873000a150a0d67726f75702f76657273696f6e12044361727012020a001a002200"
    # empty GVK, empty typed body
    assert w.envelope_encode("", "", b"").hex() == "6b3873000a040a00120012001a002200"


@IMPLS
@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty data"),
        (b"k", NOT_PROTOBUF),
        (b"k8s", NOT_PROTOBUF),
        (b"k8s\x01", NOT_PROTOBUF),
        (b"{\"kind\":\"Pod\"}", NOT_PROTOBUF),
        (b"k8s\x00", "empty body"),
    ],
)
def test_envelope_decode_errors(w, data, message):
    with pytest.raises(DecodeError) as info:
        w.envelope_decode(data)
    assert str(info.value) == message


@IMPLS
def test_envelope_decode_offsets_count_the_magic(w):
    with pytest.raises(DecodeError, match=r"^unexpected EOF$") as info:
        w.envelope_decode(b"k8s\x00\x12\x09abc")
    assert info.value.offset == 9


@IMPLS
def test_envelope_decode_accepts_bytes_like(w):
    data = w.envelope_encode("v1", "Pod", b"x")
    assert w.envelope_decode(bytearray(data)) == ("v1", "Pod", b"x", "", "")
    assert w.envelope_decode(memoryview(data)) == ("v1", "Pod", b"x", "", "")
    assert w.unmarshal_unknown(memoryview(data)[4:]) == ("v1", "Pod", b"x", "", "")


def _fixture_pbs():
    if not FIXTURES.is_dir():
        return []
    return sorted(FIXTURES.glob("*.pb"))


def test_envelope_on_go_fixtures():
    files = _fixture_pbs()
    if not files:
        pytest.skip(f"Go fixtures not found at {FIXTURES}")
    for path in files:
        data = path.read_bytes()
        av, kind, raw, ce, ct = pure.envelope_decode(data)
        group_version, expected_kind = path.name[: -len(".pb")].rsplit(".", 1)
        group, version = group_version.rsplit(".", 1)
        if expected_kind == "WatchEvent":
            # Go writes watch events with an empty TypeMeta in the envelope
            assert (av, kind) == ("", ""), path.name
        else:
            assert kind == expected_kind, path.name
            assert av == (version if group == "core" else f"{group}/{version}"), path.name
        assert (ce, ct) == ("", ""), path.name
        assert raw is not None
        # byte-identical re-encoding, and the typed body is a well-formed message
        assert pure.envelope_encode(av, kind, raw) == data, path.name
        assert wrapped.envelope_encode(av, kind, raw, "", "") == data, path.name
        for _ in pure.iter_fields(raw):
            pass
