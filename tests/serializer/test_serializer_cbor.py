"""CBOR serializer (application/cbor) against Go's bytes: ../shared/fixtures/k8s-api-v0.36.3/cbor-go
holds what k8s.io/apimachinery's CBOR serializer wrote for every HEAD fixture object.

Runs in both modes (see conftest.py).
"""
from __future__ import annotations

import io
import struct

import pytest

from conftest import FIXTURES, SHARED

CBOR_GO = SHARED / "fixtures" / "k8s-api-v0.36.3" / "cbor-go"
NAMES = sorted(p.name[: -len(".cbor")] for p in CBOR_GO.glob("*.cbor")) if CBOR_GO.is_dir() else []


def _folder():
    if not CBOR_GO.is_dir():
        pytest.skip(f"Go CBOR fixtures not found at {CBOR_GO}")
    return CBOR_GO


def _gvk(name: str):
    from kcodec.schema import GroupVersionKind

    group, version, kind = name.rsplit(".", 2)
    return GroupVersionKind("" if group == "core" else group, version, kind)


@pytest.fixture(scope="module")
def s():
    from kcodec.api import scheme
    from kcodec.serializer.cbor import Serializer

    return Serializer(scheme, scheme)


@pytest.fixture(scope="module")
def pb():
    from kcodec.api import scheme
    from kcodec.serializer.protobuf import Serializer

    return Serializer(scheme, scheme)


def _fixture_object(pb, name: str):
    _folder()  # skips, naming it, without the Go-written CBOR beside the fixtures
    obj, _ = pb.decode((FIXTURES / f"{name}.pb").read_bytes(), _gvk(name))
    return obj


def test_every_head_fixture_has_go_cbor():
    _folder()
    assert len(NAMES) == 185
    assert {p.name.rsplit(".", 1)[0] for p in FIXTURES.glob("*.json")} == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_encode_is_byte_identical_to_go(name: str, s, pb) -> None:
    want = (_folder() / f"{name}.cbor").read_bytes()
    assert s.encode(_fixture_object(pb, name)) == want


@pytest.mark.parametrize("name", NAMES)
def test_decode_go_bytes_equals_fixture(name: str, s, pb) -> None:
    data = (_folder() / f"{name}.cbor").read_bytes()
    obj, gvk = s.decode(data, _gvk(name))
    assert gvk == _gvk(name)
    assert obj == _fixture_object(pb, name)
    out = io.BytesIO()
    assert s.encode(obj, out) == data and out.getvalue() == data


@pytest.mark.parametrize("name", [n for n in NAMES if not n.endswith("WatchEvent")])
def test_unstructured_matches_json_tree(name: str, s) -> None:
    from kcodec.api import scheme
    from kcodec.api.meta.unstructured import Unstructured
    from kcodec.serializer.json import Serializer as JSONSerializer

    want = Unstructured()
    JSONSerializer(scheme, scheme).decode((FIXTURES / f"{name}.json").read_bytes(), None, want)
    got = Unstructured()
    obj, gvk = s.decode((_folder() / f"{name}.cbor").read_bytes(), None, got)
    assert obj is got and got.object == want.object
    assert gvk == _gvk(name)
    again = Unstructured()
    s.decode(s.encode(got), None, again)
    assert again.object == want.object


def test_unstructured_encoding_matches_typed_without_bytes(s, pb) -> None:
    from kcodec.api.meta.unstructured import Unstructured

    data = (_folder() / "apps.v1.Deployment.cbor").read_bytes()
    u = Unstructured()
    s.decode(data, None, u)
    assert s.encode(u) == data


def test_unstructured_list(s) -> None:
    from kcodec.api.meta.unstructured import UnstructuredList

    tree = {"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": {"resourceVersion": "7"},
            "items": [{"metadata": {"name": "a"}}, {"apiVersion": "example.com/v2", "kind": "Widget", "spec": {"x": 1.5}}]}
    from kcodec import speedups

    data = speedups.cbor_encode_tree(tree, b"\xd9\xd9\xf7")
    lst = UnstructuredList()
    obj, gvk = s.decode(data, None, lst)
    assert (gvk.group, gvk.version, gvk.kind) == ("example.com", "v1", "WidgetList")
    assert [i.object["kind"] for i in lst.items] == ["Widget", "Widget"]
    assert lst.items[0].object["apiVersion"] == "example.com/v1"
    assert lst.items[1].object == {"apiVersion": "example.com/v2", "kind": "Widget", "spec": {"x": 1.5}}
    assert "items" not in lst.object
    bad = speedups.cbor_encode_tree({"apiVersion": "v1", "kind": "List", "items": {"a": 1}}, b"")
    from kcodec.errors import DecodeError

    with pytest.raises(DecodeError, match="items field of UnstructuredList"):
        s.decode(bad, None, UnstructuredList())


# --------------------------------------------------------------------------- encoding rules


@pytest.mark.parametrize("value,hexed", [
    (0, "00"), (23, "17"), (24, "1818"), (255, "18ff"), (256, "190100"), (65536, "1a00010000"),
    (1 << 32, "1b0000000100000000"), (-1, "20"), (-25, "3818"), (-(1 << 63), "3b7fffffffffffffff"),
    (1.5, "f93e00"), (-0.0, "f98000"), (65504.0, "f97bff"), (100000.0, "fa47c35000"),
    (0.1, "fb3fb999999999999a"), (5.960464477539063e-08, "f90001"), (1e300, "fb7e37e43c8800759c"),
    ("", "40"), ("é", "42c3a9"), (True, "f5"), (False, "f4"), (None, "f6"), ([], "80"),
    ({"bb": 1, "a": 2, "c": 3}, "a3416102416303426262" + "01"),
])
def test_tree_encoding(value, hexed) -> None:
    from kcodec import speedups

    assert speedups.cbor_encode_tree(value).hex() == hexed


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 1 << 63])
def test_tree_encoding_rejects(value) -> None:
    from kcodec import speedups
    from kcodec.errors import EncodeError

    with pytest.raises(EncodeError):
        speedups.cbor_encode_tree({"x": [value]})


def test_bytes_are_tag_22_and_strings_byte_strings(s) -> None:
    from kcodec.api.core.v1 import Secret

    sec = Secret(data={"k": b"\x00\x01"}, string_data={"s": "v"})
    sec.api_version, sec.kind = "v1", "Secret"
    data = s.encode(sec)
    assert b"\x41k\xd6\x42\x00\x01" in data
    assert b"\x41s\x41v" in data
    back, _ = s.decode(data)
    assert back == sec


# --------------------------------------------------------------------------- decoding rules


def _pod_bytes() -> bytes:
    return (_folder() / "core.v1.Pod.cbor").read_bytes()


def _map(*pairs: bytes) -> bytes:
    assert len(pairs) % 2 == 0
    return bytes([0xA0 + len(pairs) // 2]) + b"".join(pairs)


def _t(s: str) -> bytes:
    b = s.encode()
    return bytes([0x60 + len(b)]) + b


def _cm(*extra: bytes) -> bytes:
    return b"\xd9\xd9\xf7" + _map(_t("apiVersion"), _t("v1"), _t("kind"), _t("ConfigMap"), *extra)


def test_text_and_byte_strings_both_decode(s) -> None:
    obj, _ = s.decode(_cm(_t("data"), _map(b"\x41a", b"\x41b")))
    assert obj.data == {"a": "b"}


@pytest.mark.parametrize("name", ["core.v1.Pod", "apps.v1.Deployment", "core.v1.Secret"])
def test_shapes_go_never_writes_decode_the_same(name: str, s, pb) -> None:
    """Unknown trailing keys, an indefinite-length top-level map and keys out of Go's
    order all decode to the fixture object (the compiled kernel hands such input to the
    pure walker after a partial fill; the result must not show it)."""
    data = (_folder() / f"{name}.cbor").read_bytes()
    want = _fixture_object(pb, name)
    head = data[3]
    assert 0xA0 <= head <= 0xB7
    body = data[4:]
    unknown = bytes([head + 1]) + body + _t("zzzzzzzzzzzzzzzzzzzz") + b"\x01"
    assert s.decode(b"\xd9\xd9\xf7" + unknown)[0] == want
    indefinite = b"\xd9\xd9\xf7\xbf" + body + b"\xff"
    assert s.decode(indefinite)[0] == want
    from kcodec import speedups

    pairs = []
    pos = 4
    for _ in range(head - 0xA0):
        k_end = speedups.cbor_item_end(data, pos)
        v_end = speedups.cbor_item_end(data, k_end)
        pairs.append(data[pos:v_end])
        pos = v_end
    shuffled = b"\xd9\xd9\xf7" + bytes([head]) + b"".join(reversed(pairs))
    assert s.decode(shuffled)[0] == want


def test_indefinite_lengths_accepted(s) -> None:
    data = b"\xd9\xd9\xf7\xbf" + _t("apiVersion") + b"\x7f\x61v\x61\x31\xff" + _t("kind") + _t("ConfigMap") + \
        _t("data") + b"\xbf\x41a\x5f\x41b\x41c\xff\xff" + _t("immutable") + b"\xf5\xff"
    obj, _ = s.decode(data)
    assert obj.data == {"a": "bc"} and obj.immutable is True


def test_tags_skipped_and_expected_encoding_applied(s) -> None:
    # tag 22 around a byte string decoded into a string: the base64 text of the bytes.
    obj, _ = s.decode(_cm(_t("data"), _map(_t("a"), b"\xd6\x42\x00\xff", _t("b"), b"\xd8\x64" + _t("x"))))
    assert obj.data == {"a": "AP8=", "b": "x"}


def test_untagged_byte_string_into_bytes_is_base64(s) -> None:
    obj, _ = s.decode(_cm(_t("binaryData"), _map(_t("a"), b"\x44AP8=", _t("b"), b"\xd6\x42\x00\xff")))
    assert obj.binary_data == {"a": b"\x00\xff", "b": b"\x00\xff"}


@pytest.mark.parametrize("data,message", [
    (b"", "EOF"),
    (b"\xd9\xd9\xf7", "unexpected EOF"),
    (b"\xd9\xd9\xf7\xa1", "unexpected EOF"),
    (b"\xd9\xd9\xf7\xbb\xff\xff\xff\xff\xff\xff\xff\xff", "exceeded max number of key-value pairs"),
    (b"\xd9\xd9\xf7\xba\x00\x30\x00\x00", "exceeded max number of key-value pairs"),
    (b"\xd9\xd9\xf7\xba\x00\x10\x00\x00", "unexpected EOF"),
    (b"\xd9\xd9\xf7\x9b\x7f\xff\xff\xff\xff\xff\xff\xff", "exceeded max number of elements"),
    (b"\xd9\xd9\xf7\x5b\xff\xff\xff\xff\xff\xff\xff\xff", "unexpected EOF"),
    (b"\xd9\xd9\xf7\xa1\x41a\x1c", "invalid additional information 28"),
    (b"\xd9\xd9\xf7\xff", 'unexpected "break" code'),
    (b"\xd9\xd9\xf7\xa1\x41a\xf7", "simple value 23"),
    (b"\xd9\xd9\xf7\xa1\x41a\xe0", "simple value 0"),
    (b"\xd9\xd9\xf7\xa1\x41a\xf8\x10", "invalid simple value 16"),
    (b"\xd9\xd9\xf7\xa1\x41a\xf9\x7e\x00", "NaN"),
    (b"\xd9\xd9\xf7\xa1\x41a\xfa\x7f\x80\x00\x00", "infinity"),
    (b"\xd9\xd9\xf7\xa1\x41a\xc2\x41\x01", "bignum"),
    (b"\xd9\xd9\xf7\xa1\x41a\xc3\x41\x01", "bignum"),
    (b"\xd9\xd9\xf7\xa1\x41a\x5f\x61b\xff", "wrong element type"),
    (b"\xd9\xd9\xf7\xa1\x41a\x5f\x5f\xff\xff", "chunk is not definite-length"),
    (b"\xd9\xd9\xf7\xa1\x41a\x01\x00", "1 bytes of extraneous data"),
    (b"\xd9\xd9\xf7\xa2\x41a\x01\x41a\x02", "duplicate map key"),
    (b"\xd9\xd9\xf7\xa1\x01\x01", "cannot unmarshal positive integer into Go value of type string"),
    (b"\xd9\xd9\xf7\xa1\x62\xc3\x28\x01", "invalid UTF-8"),
    (b"\xd9\xd9\xf7\xa1\x41a\x1b\xff\xff\xff\xff\xff\xff\xff\xff", "overflows"),
    (b"\xd9\xd9\xf7" + b"\x81" * 10001 + b"\x80", "exceeded max nested level 10000"),
    (b"\xd9\xd9\xf7" + b"\xc6" * 10001 + b"\x80", "exceeded max nested level 10000"),
    (b"\xd9\xd9\xf7" + b"\x9f" * 20000, "exceeded max nested level 10000"),
])
def test_hostile_input_is_decode_error(data: bytes, message: str, s) -> None:
    from kcodec.errors import DecodeError
    from kcodec.api.meta.unstructured import Unstructured

    with pytest.raises(DecodeError, match=message.replace("(", r"\(")):
        s.decode(data, None, Unstructured())
    with pytest.raises(DecodeError):
        s.decode(data)


@pytest.mark.parametrize("data,message", [
    # A head whose argument bytes (1/2/4/8, additional information 24-27) run past the
    # buffer, the reserved 28-30, and the same as a map key's head: the GVK sniffer read
    # them without a bound (an over-read AddressSanitizer reports; tools/fuzz_asan.py).
    # Texts: fxamacker/cbor v2 decode.go (wellformed: io.ErrUnexpectedEOF,
    # "invalid additional information"), as k8s.io/apimachinery runtime/serializer/cbor
    # returns them through kcodec.load's "unable to determine group/version/kind".
    (b"\xd9\xd9\xf7\x1b", "unexpected EOF"),
    (b"\xd9\xd9\xf7\x1a\x00", "unexpected EOF"),
    (b"\xd9\xd9\xf7\x19", "unexpected EOF"),
    (b"\xd9\xd9\xf7\x18", "unexpected EOF"),
    (b"\xd9\xd9\xf7\x9e", "cbor: invalid additional information 30 for type array"),
    (b"\xd9\xd9\xf7\xbc", "cbor: invalid additional information 28 for type map"),
    (b"\xd9\xd9\xf7\xa1\x7b\x00", "unexpected EOF"),
    (b"\xd9\xd9\xf7\xa1\x5a\x00\x00", "unexpected EOF"),
    (b"\xd9\xd9\xf7\xa1\x7d\x00\x00", "cbor: invalid additional information 29 for type UTF-8 text string"),
    (b"\xd9\xd9\xf7\xa2\x44kind\x41a\x7b\x00", "unexpected EOF"),
    (b"\xd9\xd9\xf7\xa1\x44kind", "unexpected EOF"),
])
def test_cut_heads_are_bounded_by_the_buffer(data: bytes, message: str, s) -> None:
    import kcodec
    from kcodec import speedups
    from kcodec.errors import DecodeError

    with pytest.raises(DecodeError, match=message):
        kcodec.load(data)
    with pytest.raises(DecodeError, match=message):
        speedups.cbor_type_meta(data)
    # The same bytes at the very end of a larger buffer, read as a span ending there.
    padded = b"\x00" * 7 + data
    with pytest.raises(DecodeError, match=message):
        speedups.cbor_type_meta(padded, 7, len(padded))


@pytest.mark.parametrize("depth,ok", [(9997, True), (9998, False)])
def test_nesting_limit_counts_tag_and_top_map(depth: int, ok: bool, s) -> None:
    # d9d9f7 (level 1), the top map (level 2), ``depth`` arrays and an empty one (levels
    # 3 to depth + 3) in an unknown field: 10000 levels at most.
    from kcodec.errors import DecodeError

    data = _cm(_t("x"), b"\x81" * depth + b"\x80")
    if ok:
        assert s.decode(data)[0].kind == "ConfigMap"
    else:
        with pytest.raises(DecodeError, match="exceeded max nested level 10000"):
            s.decode(data)


def test_nesting_within_limit_decodes(s) -> None:
    from kcodec.api.meta.unstructured import Unstructured

    depth = 200
    data = _cm(_t("x"), b"\x81" * depth + b"\x80")
    u = Unstructured()
    s.decode(data, None, u)
    v = u.object["x"]
    for _ in range(depth):
        v = v[0]
    assert v == []


@pytest.mark.parametrize("data,message", [
    (_cm(_t("data"), _map(_t("a"), b"\x01")), "cannot unmarshal positive integer into Go struct field ConfigMap.data\\[a\\] of type string"),
    (_cm(_t("data"), _map(_t("a"), _t("b"), _t("a"), _t("c"))), 'duplicate map key "a"'),
    (_cm(_t("data"), b"\x80"), "cannot unmarshal array"),
    (_cm(_t("immutable"), b"\x01"), "of type bool"),
    (_cm(_t("binaryData"), _map(_t("a"), b"\x43!!!")), "failed to decode base64"),
    (_cm(_t("binaryData"), _map(_t("a"), _t("AA=="))), "cannot unmarshal UTF-8 text string"),
    (_cm(_t("kind"), _t("x")), 'duplicate map key "kind"'),
    (b"\xd9\xd9\xf7\x80", "unable to determine group/version/kind: cbor: cannot unmarshal array into Go value of type v1.TypeMeta"),
    (b"\xd9\xd9\xf7" + _map(_t("kind"), b"\x01"), "TypeMeta.kind of type string"),
])
def test_typed_decode_errors(data: bytes, message: str, s) -> None:
    from kcodec.errors import DecodeError

    with pytest.raises(DecodeError, match=message):
        s.decode(data)


@pytest.mark.parametrize("field,value,message", [
    ("metadata", {"name": "p", "creationTimestamp": "yesterday"}, r'parsing time "yesterday"'),
    ("spec", {"containers": [{"name": "c", "resources": {"limits": {"cpu": "abc"}}}]},
     r"quantities must match"),
])
def test_custom_value_errors_name_the_field(field: str, value, message: str, s) -> None:
    # The compiled fill decodes custom values itself and leaves their errors to the pure
    # walker, which names the field: both modes give the same text.
    from kcodec import speedups
    from kcodec.errors import DecodeError

    data = speedups.cbor_encode_tree({"apiVersion": "v1", "kind": "Pod", field: value}, b"\xd9\xd9\xf7")
    with pytest.raises(DecodeError, match=message) as info:
        s.decode(data)
    # Go's text; the field is kept as data
    assert info.value.field_path.endswith(
        "metadata.creationTimestamp" if field == "metadata" else "spec.containers[0].resources.limits[cpu]")


def test_int32_overflow(s) -> None:
    from kcodec.errors import DecodeError

    data = b"\xd9\xd9\xf7" + _map(_t("apiVersion"), _t("apps/v1"), _t("kind"), _t("Deployment"),
                                  _t("spec"), _map(_t("replicas"), b"\x1a\x80\x00\x00\x00"))
    with pytest.raises(DecodeError, match="overflows"):
        s.decode(data)


def test_truncated_fixture_is_decode_error(s) -> None:
    from kcodec.errors import DecodeError

    data = _pod_bytes()
    for cut in range(3, len(data), max(1, len(data) // 150)):
        with pytest.raises(DecodeError):
            s.decode(data[:cut])


def test_missing_kind_and_version(s) -> None:
    from kcodec.errors import MissingKindError, MissingVersionError

    with pytest.raises(MissingKindError):
        s.decode(b"\xd9\xd9\xf7" + _map(_t("apiVersion"), _t("v1")))
    with pytest.raises(MissingVersionError):
        s.decode(b"\xd9\xd9\xf7" + _map(_t("kind"), _t("Pod")))


def test_strict_reports_unknown_fields() -> None:
    from kcodec.api import scheme
    from kcodec.errors import StrictDecodingError
    from kcodec.serializer.cbor import Serializer

    data = _cm(_t("data"), _map(_t("a"), _t("b")), _t("bogus"), b"\x01")
    obj, _ = Serializer(scheme, scheme).decode(data)
    assert obj.data == {"a": "b"}
    with pytest.raises(StrictDecodingError, match='unknown field "bogus"') as info:
        Serializer(scheme, scheme, strict=True).decode(data)
    assert info.value.obj.data == {"a": "b"}


def test_raw_extension_transcoded_to_json_or_kept() -> None:
    from kcodec.api import scheme
    from kcodec.serializer.cbor import Serializer

    data = (_folder() / "core.v1.WatchEvent.cbor").read_bytes()
    obj, _ = Serializer(scheme, scheme).decode(data, _gvk("core.v1.WatchEvent"))
    assert obj.object.raw == (b'{"apiVersion":"example.com/v1","kind":"CustomType",'
                              b'"spec":{"replicas":1},"status":{"available":1}}')
    kept, _ = Serializer(scheme, scheme, transcode=False).decode(data, _gvk("core.v1.WatchEvent"))
    assert kept.object.raw.startswith(b"\xd9\xd9\xf7")
    # CBOR held by a RawExtension is written back as it is, self-described tag included
    # (Go's MarshalCBOR returns the raw bytes).
    again = Serializer(scheme, scheme).encode(kept)
    assert kept.object.raw in again and len(again) == len(data) + 3
    assert Serializer(scheme, scheme).decode(again, _gvk("core.v1.WatchEvent"))[0] == obj


# --------------------------------------------------------------------------- factory, recognizer


def test_factory_offers_cbor_only_when_asked() -> None:
    from kcodec.api import scheme
    from kcodec.errors import DecodeError
    from kcodec.serializer.factory import CodecFactory

    plain = CodecFactory(scheme)
    assert "application/cbor" not in [i.media_type for i in plain.supported_media_types()]
    with pytest.raises(DecodeError):
        plain.universal_deserializer().decode(_pod_bytes())
    f = CodecFactory(scheme, cbor=True)
    infos = {i.media_type: i for i in f.supported_media_types()}
    info = infos["application/cbor"]
    assert not info.encodes_as_text and info.serializer.identifier() == "cbor"
    assert info.strict_serializer.strict and info.stream_serializer.framer.__class__.__name__ == "CBORSeqFramer"
    obj, gvk = f.universal_deserializer().decode(_pod_bytes())
    assert (gvk.version, gvk.kind) == ("v1", "Pod") and type(obj).__name__ == "Pod"
    assert f.universal_deserializer().recognizes_data(_pod_bytes()) == (True, False)


def test_versioning_codec_encodes_cbor(pb) -> None:
    from kcodec.api import scheme
    from kcodec.schema import GroupVersion
    from kcodec.serializer.factory import CodecFactory

    f = CodecFactory(scheme, cbor=True)
    info = {i.media_type: i for i in f.supported_media_types()}["application/cbor"]
    codec = f.codec_for_versions(info.serializer, info.serializer, GroupVersion("apps", "v1"),
                                 GroupVersion("apps", "v1"))
    data = (_folder() / "apps.v1.Deployment.cbor").read_bytes()
    obj = codec.decode(data)
    obj = obj[0] if isinstance(obj, tuple) else obj
    assert obj == _fixture_object(pb, "apps.v1.Deployment")
    assert codec.encode(obj) == data


def test_client_negotiator_cbor_seq() -> None:
    from kcodec.api import scheme
    from kcodec.errors import KCodecError
    from kcodec.serializer.cbor import CBOR_SEQ_FRAMER
    from kcodec.serializer.factory import ClientNegotiator, CodecFactory

    n = ClientNegotiator(CodecFactory(scheme, cbor=True))
    _, stream_s, framer = n.stream_decoder("application/cbor-seq")
    assert framer is CBOR_SEQ_FRAMER and stream_s.transcode is False
    with pytest.raises(KCodecError, match="no stream serializers registered for application/cbor"):
        n.stream_decoder("application/cbor")
    assert n.decoder("application/cbor") is not None


# --------------------------------------------------------------------------- cbor-seq streams


def test_cbor_seq_stream_round_trip(s, pb) -> None:
    from kcodec.serializer.cbor import CBOR_SEQ_FRAMER
    from kcodec.serializer.streaming import StreamDecoder, StreamEncoder

    names = ["core.v1.Pod", "apps.v1.Deployment", "core.v1.Secret", "core.v1.ConfigMap"]
    objs = [_fixture_object(pb, n) for n in names]
    buf = io.BytesIO()
    enc = StreamEncoder(buf, CBOR_SEQ_FRAMER, s)
    for o in objs:
        enc.encode(o)
    assert buf.getvalue() == b"".join((_folder() / f"{n}.cbor").read_bytes() for n in names)
    buf.seek(0)
    got = [o for o, _ in StreamDecoder(buf, CBOR_SEQ_FRAMER, s)]
    assert got == objs


class _Trickle(io.RawIOBase):
    """A stream that returns at most 7 bytes a read."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = min(7, len(b), len(self._data) - self._pos)
        b[:n] = self._data[self._pos:self._pos + n]
        self._pos += n
        return n


def test_cbor_seq_frames_from_slow_stream_and_errors() -> None:
    from kcodec.errors import DecodeError
    from kcodec.serializer.cbor import CBOR_SEQ_FRAMER

    a = (_folder() / "core.v1.ConfigMap.cbor").read_bytes()
    b = (_folder() / "core.v1.Namespace.cbor").read_bytes()
    r = CBOR_SEQ_FRAMER.new_frame_reader(_Trickle(a + b + b"\x01" + b"\xa1"))
    assert r.read_frame() == a
    buf = bytearray(10)
    n, short = r.readinto(buf)
    assert (n, short) == (10, True) and bytes(buf) == b[:10]
    assert r.read_frame() == b[10:]
    assert r.read_frame() == b"\x01"
    # The text is io.ErrUnexpectedEOF's; where the stream ended is the offset.
    with pytest.raises(DecodeError, match="^unexpected EOF$") as info:
        r.read_frame()
    assert info.value.offset == len(a) + len(b) + 2
    with pytest.raises(DecodeError, match="^unexpected EOF$"):
        r.read_frame()
    empty = CBOR_SEQ_FRAMER.new_frame_reader(io.BytesIO(b""))
    with pytest.raises(EOFError):
        empty.read_frame()
    bad = CBOR_SEQ_FRAMER.new_frame_reader(io.BytesIO(a + b"\x1c"))
    assert bad.read_frame() == a
    with pytest.raises(DecodeError, match="invalid additional information") as info:
        bad.read_frame()
    assert (str(info.value), info.value.offset) == (
        "cbor: invalid additional information 28 for type positive integer", len(a))


def test_cbor_seq_frame_size_limit() -> None:
    from kcodec.errors import DecodeError
    from kcodec.serializer.cbor import CBORFrameReader

    big = b"\x5a" + struct.pack(">I", 100000) + b"x" * 100000
    # Too long while still incomplete: the stream ends there (nothing past the limit is kept).
    r = CBORFrameReader(io.BytesIO(big + b"\x01"), max_frame_size=1000)
    with pytest.raises(DecodeError, match="longer than maximum allowed size"):
        r.read_frame(1000)
    with pytest.raises(DecodeError, match="longer than maximum allowed size"):
        r.read_frame(1000)
    # Too long but already whole: skipped, the next frame follows.
    small = b"\x45hello"
    r = CBORFrameReader(io.BytesIO(small + b"\x01"))
    with pytest.raises(DecodeError, match="longer than maximum allowed size"):
        r.read_frame(3)
    assert r.read_frame(3) == b"\x01"


# --------------------------------------------------------------------------- int64 heads, deep typed structs


def test_int64_values_beyond_32_bits(s) -> None:
    # Heads with an 8-byte argument (values of 2**32 and more), as Go writes int64 fields.
    from kcodec.api.core.v1 import ConfigMap

    cm = ConfigMap(data={"a": "b"})
    cm.api_version, cm.kind = "v1", "ConfigMap"
    cm.metadata.name = "big"
    cm.metadata.generation = 1 << 40
    data = s.encode(cm)
    assert _t("generation").replace(b"\x6a", b"\x4a") + b"\x1b\x00\x00\x01\x00\x00\x00\x00\x00" in data
    assert s.decode(data)[0] == cm
    from kcodec import speedups

    tree = {"n": (1 << 63) - 1, "m": -(1 << 63), "k": 1 << 32, "j": -(1 << 32) - 1}
    assert speedups.cbor_loads(speedups.cbor_encode_tree(tree)) == tree


def test_deeply_nested_typed_struct_is_encode_error() -> None:
    from kcodec import speedups
    from kcodec.api.apiextensions.v1 import JSONSchemaProps
    from kcodec.errors import EncodeError

    # Past fxamacker/cbor's 10000 levels: the bound, not Python's recursion limit (which a
    # warmed-up compiled encoder never meets), is what refuses it.
    p = JSONSchemaProps(type="object")
    for _ in range(12000):
        p = JSONSchemaProps(not_=p)
    with pytest.raises(EncodeError, match="exceeded max nested level 10000"):
        speedups.cbor_encode(p)


# --------------------------------------------------------------------------- compiled tree kernels = pure ones
# The compiled cbor_loads / cbor_encode_tree (kcodec/_speedups/_cbor.pyx) against their pure
# twins (kcodec/_native/cbor.py, the reference): equal trees (types and dict order included),
# equal bytes, equal errors (class and text).


def _twins():
    from kcodec import speedups

    if not speedups.available():
        pytest.skip("the compiled kernels are not built or KCODEC_PURE=1 keeps them off")
    from kcodec._native import cbor as pure
    from kcodec._speedups import _cbor as compiled

    return pure, compiled


def _shape(v):
    """``v`` with every type and dict order visible (1, 1.0 and True differ; so do 0.0 and -0.0)."""
    t = type(v)
    if t is dict:
        return ("dict", tuple((_shape(k), _shape(x)) for k, x in v.items()))
    if t is list:
        return ("list", tuple(_shape(x) for x in v))
    if t is float:
        return ("float", v.hex())
    return (t.__name__, v)


def _outcome(fn, *args):
    try:
        got = fn(*args)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return ("error", type(exc), str(exc))
    return ("ok", got if type(got) is bytes else _shape(got))


def _same(name: str, *args):
    pure, compiled = _twins()
    want = _outcome(getattr(pure, name), *args)
    assert _outcome(getattr(compiled, name), *args) == want, args[0][:64] if isinstance(args[0], bytes) else args[0]
    return want


def _same_loads(data: bytes, start: int = 0, end: int = -1):
    return _same("cbor_loads", data, start, end)


class TestTreeKernelParity:
    """Runs once (both kernel sets called directly), not once per mode."""

    @pytest.fixture(autouse=True)
    def kcodec_mode(self):
        yield "both"

    @pytest.mark.parametrize("name", NAMES)
    def test_go_fixture(self, name: str) -> None:
        pure, compiled = _twins()
        data = (_folder() / f"{name}.cbor").read_bytes()
        kind, tree = _same_loads(data)
        assert kind == "ok"
        assert _same_loads(data, 3, len(data)) == (kind, tree)  # without the self-described tag
        content = pure.cbor_loads(data)
        encoded = _same("cbor_encode_tree", content, b"\xd9\xd9\xf7")[1]
        assert _shape(compiled.cbor_loads(encoded)) == tree
        if name == "apps.v1.Deployment":
            assert encoded == data  # no []byte fields: Go's bytes
        for cut in range(1, len(data), max(1, len(data) // 40)):
            assert _same_loads(data[:cut])[0] == "error"

    def test_custom_resource_list(self) -> None:
        import sys
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "asv_bench"))
        from benchmarks.bench_crd import custom_resource_list

        pure, compiled = _twins()
        tree = custom_resource_list(200)
        data = _same("cbor_encode_tree", tree, b"\xd9\xd9\xf7")[1]
        assert _same_loads(data)[0] == "ok"
        assert compiled.cbor_loads(data) == tree
        # The same list as Go orders a map's keys: decoding keeps that order, encoding sorts again.
        assert list(compiled.cbor_loads(data)["items"][0]) == ["kind", "spec", "metadata", "apiVersion"]
        assert compiled.cbor_encode_tree(compiled.cbor_loads(data), b"\xd9\xd9\xf7") == data

    @pytest.mark.parametrize("value", [
        0, 23, 24, 255, 256, 65535, 65536, (1 << 32) - 1, 1 << 32, (1 << 63) - 1, -1, -24, -25, -(1 << 63),
        1 << 63, -(1 << 63) - 1, 1 << 64, True, False, None, "", "é", "a" * 100, "é" * 100, "\udcff",
        "\ud800", 0.0, -0.0, 1.5, 65504.0, 65505.0, 65520.0, 5.960464477539063e-08, 2.98e-08, 6.103515625e-05,
        1e-40, 3.4028234663852886e38, 3.4028235677973366e38, 1e300, 0.1, float("nan"), float("inf"),
        -float("inf"), [], (), (1, "x"), {}, {"bb": 1, "a": 2, "c": 3}, {"é": 1, "z": 2, "ab": 3},
        # Two keys with one encoding (the second from invalid UTF-8 bytes): kept in dict order.
        {"é": 1, "\udcc3\udca9": 2}, {"\udcc3\udca9": 1, "é": 2},
        {f"k{i:03d}": i for i in range(60, 0, -1)}, {chr(0x400 + i) * (i % 3 + 1): i for i in range(40)},
        {1: 2}, {"a": 1, 2: 3}, {None: 1}, b"\x00\x01", bytearray(b"\x02"), object(), {"x": [object()]},
        {"x": [1, {"y": float("nan")}]}, {"x": [1 << 70]},
    ])
    def test_encode_value(self, value) -> None:
        _same("cbor_encode_tree", value, b"")

    def test_encode_subclasses_and_custom_values(self) -> None:
        import enum

        from kcodec.fieldtable import RawJSON
        from kcodec.types import IntOrString, Quantity

        class Key(str):
            pass

        class Num(enum.IntEnum):
            ONE = 1

        class F(float):
            pass

        class D(dict):
            pass

        class L(list):
            pass

        for value in ({Key("b"): 1, "a": 2}, {"n": Num.ONE, "f": F(0.5), "d": D(z=1, a=2), "l": L([1, 2])},
                      {"q": Quantity.parse("1500m"), "i": IntOrString(3), "s": IntOrString(type=1, str_val="50%")},
                      {"raw": RawJSON(b'{"b":1,"a":[1.5,null]}')}, {"raw": RawJSON(b"  ")},
                      {"raw": RawJSON(b"{bad")}):
            _same("cbor_encode_tree", value, b"\xd9\xd9\xf7")

    def test_deep_nesting(self) -> None:
        for depth in (100, 3000, 20000):
            nested: list = []
            for _ in range(depth):
                nested = [nested]
            _same("cbor_encode_tree", nested, b"")
            m: dict = {}
            for _ in range(depth):
                m = {"a": m}
            _same("cbor_encode_tree", m, b"")
            for data in (b"\x81" * depth + b"\x80", b"\xa1\x41a" * depth + b"\xa0", b"\x9f" * depth + b"\xff" * depth,
                         b"\xbf\x41a" * depth + b"\xf6" + b"\xff" * depth, b"\xc6" * depth + b"\x80",
                         b"\xd9\xd9\xf7" + b"\x81" * depth + b"\x80"):
                _same_loads(data)

    @pytest.mark.parametrize("data", [
        b"", b"\xd9\xd9\xf7", b"\xa1", b"\xa1\x41a", b"\x18", b"\x19\x01", b"\x5a\x00\x00\x00\x10a",
        b"\xbb\xff\xff\xff\xff\xff\xff\xff\xff", b"\xba\x00\x30\x00\x00", b"\xba\x00\x10\x00\x00",
        b"\x9b\x7f\xff\xff\xff\xff\xff\xff\xff", b"\x9a\xff\xff\xff\xff", b"\x5b\xff\xff\xff\xff\xff\xff\xff\xff",
        b"\x7b\x00\x00\x00\x00\x00\x00\x00\x02a", b"\x1c", b"\xff", b"\xf7", b"\xe0", b"\xf8\x10", b"\xf8\x20",
        b"\xf9\x7e\x00", b"\xf9\x7c\x00", b"\xf9\xfc\x00", b"\xfa\x7f\x80\x00\x00", b"\xfb\x7f\xf8\x00\x00\x00\x00\x00\x00",
        b"\xf9\x3c\x00", b"\xf9\x80\x00", b"\xf9\x00\x01", b"\xfa\x47\xc3\x50\x00", b"\xfb\x3f\xb9\x99\x99\x99\x99\x99\x9a",
        b"\xc2\x41\x01", b"\xc3\x41\x01", b"\xd9\xd9\xf7\xc2\x41\x01", b"\x5f\x61b\xff", b"\x5f\x5f\xff\xff",
        b"\x5f\x41a\x41b\xff", b"\x7f\x61a\x62\xc3\xa9\xff", b"\x7f\x61\xc3\x61\xa9\xff", b"\x7f\xff", b"\x5f",
        b"\x01\x00", b"\xa1\x41a\x01\x00", b"\xa2\x41a\x01\x41a\x02", b"\xa2\x41a\x01\x61a\x02",
        b"\xbf\x41a\x01\x41a\x02\xff", b"\xbf\x41a\x01\xff", b"\xbf\x41a\xff", b"\xa2\x62\xc3\xa9\x01\x42\xc3\xa9\x02",
        b"\xa1\x01\x01", b"\xa1\x80\x01", b"\xa1\xf6\x01", b"\xa1\xa0\x01", b"\xa1\xd9\xd9\xf7\x41a\x01",
        b"\xa1\xd6\x42\x00\xff\x01", b"\xa2\xd6\x42\x00\xff\x01\x64AP8=\x02", b"\xa1\x62\xc3\x28\x01",
        b"\xa1\x41a\x62\xc3\x28", b"\xa1\x42\xc3\x28\x62\xc3\x28", b"\xa1\x42\xc3\x28\x42\xc3\x28",
        b"\x1b\xff\xff\xff\xff\xff\xff\xff\xff", b"\x1b\x80\x00\x00\x00\x00\x00\x00\x00", b"\x1b\x7f\xff\xff\xff\xff\xff\xff\xff",
        b"\x3b\xff\xff\xff\xff\xff\xff\xff\xff", b"\x3b\x80\x00\x00\x00\x00\x00\x00\x00", b"\x3b\x7f\xff\xff\xff\xff\xff\xff\xff",
        b"\xd6\x42\x00\xff", b"\xd5\x42\x00\xff", b"\xd7\x42\x00\xff", b"\xd6\xd8\x64\x42\x00\xff",
        b"\xd8\x64\xd6\x42\x00\xff", b"\xd6\x62\x00\xff", b"\xd6\x5f\x41\x00\x41\xff\xff", b"\xc1\x1a\x00\x00\x00\x01",
        b"\xc0\x74" + b"2024-01-01T00:00:00Z", b"\xd6\x81\x42\x00\xff", b"\xd8\x20\xa1\x41a\x01", b"\x82\x01\xf5\xf4",
        b"\x83\xf6\xf5\xf4", b"\x99\x00\x02\x01\x02", b"\xb9\x00\x01\x41a\x01", b"\x98\x01\x01",
        b"\x81" * 10001 + b"\x80", b"\xc6" * 10001 + b"\x80", b"\x9f" * 20000, b"\x81" * 9998 + b"\x80",
    ])
    def test_hostile_decode(self, data: bytes) -> None:
        _same_loads(data)
        _same_loads(b"\xd9\xd9\xf7" + data)
        _same_loads(b"\xa1\x41a" + data)

    def test_span_arguments(self) -> None:
        data = b"junk" + b"\xa1\x41a\x82\x01\x02" + b"tail"
        assert _same_loads(data, 4, 10) == ("ok", _shape({"a": [1, 2]}))
        _same_loads(data, 4, 9)
        _same_loads(data, 4, 11)
        _same_loads(data, 4, 4)


def _json_trees():
    from hypothesis import strategies as st

    keys = st.one_of(st.text(max_size=8), st.sampled_from(["a", "b", "aa", "apiVersion", "kind", "é", "z" * 30]))
    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1),
        st.floats(allow_nan=False, allow_infinity=False), st.floats(width=16, allow_nan=False, allow_infinity=False),
        st.floats(width=32, allow_nan=False, allow_infinity=False), st.text(max_size=80),
    )
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=8), st.dictionaries(keys, inner, max_size=30)), max_leaves=60)


def _hypothesis_settings():
    from hypothesis import HealthCheck, settings

    return settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class TestTreeKernelProperties:
    @pytest.fixture(autouse=True)
    def kcodec_mode(self):
        yield "both"

    def test_random_trees_round_trip_with_equal_bytes(self) -> None:
        from hypothesis import given

        pure, compiled = _twins()

        @_hypothesis_settings()
        @given(_json_trees())
        def check(tree) -> None:
            data = compiled.cbor_encode_tree(tree, b"\xd9\xd9\xf7")
            assert data == pure.cbor_encode_tree(tree, b"\xd9\xd9\xf7")
            back = compiled.cbor_loads(data)
            assert _shape(back) == _shape(pure.cbor_loads(data))
            assert back == tree
            assert compiled.cbor_encode_tree(back, b"\xd9\xd9\xf7") == data

        check()

    def test_mutated_items_give_equal_outcomes(self) -> None:
        from hypothesis import given
        from hypothesis import strategies as st

        pure, compiled = _twins()
        seeds = [pure.cbor_encode_tree(t) for t in (
            {"apiVersion": "v1", "kind": "X", "spec": {"a": [1, -2, 1.5, None, True], "é": "s" * 30}},
            [{"a": {"b": {"c": [[], {}]}}}, 1 << 40, -(1 << 40), 0.1],
        )]
        if CBOR_GO.is_dir():
            seeds.append((CBOR_GO / "core.v1.ConfigMap.cbor").read_bytes())

        @_hypothesis_settings()
        @given(st.sampled_from(seeds), st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), max_size=4),
               st.integers(0, 1 << 16))
        def check(seed: bytes, edits, cut: int) -> None:
            data = bytearray(seed)
            for at, byte in edits:
                data[at % len(data)] = byte
            _same_loads(bytes(data))
            _same_loads(bytes(data[: cut % (len(data) + 1)]))

        check()


@pytest.mark.parametrize("data, text", [
    (b"\x7f?", "cbor: wrong element type negative integer for indefinite-length UTF-8 text string"),
    (b"\x5f\x3f\xff", "cbor: wrong element type negative integer for indefinite-length byte string"),
    (b"\x7f\x7f\xff", "cbor: indefinite-length UTF-8 text string chunk is not definite-length"),
])
def test_indefinite_string_chunk_type_is_checked_before_its_head(data: bytes, text: str) -> None:
    """fxamacker/cbor's wellformedIndefiniteString peeks at a chunk's initial byte: a chunk of
    the wrong major type is reported as such even when its head is malformed (hypothesis found
    the pure twin reading the head first)."""
    from kcodec import speedups
    from kcodec.errors import DecodeError

    with pytest.raises(DecodeError) as err:
        speedups.cbor_loads(data)
    assert str(err.value) == text


def test_base64_byte_string_error_is_go_text_with_the_place_as_data(s) -> None:
    # fxamacker/cbor ByteStringExpectedFormatError ("cbor: failed to decode base64 from byte
    # string: %s") around encoding/base64's CorruptInputError ("illegal base64 data at input
    # byte %d"); kcodec keeps the field and offset as data, not in the text.
    from kcodec.errors import DecodeError

    with pytest.raises(DecodeError) as info:
        s.decode(_cm(_t("binaryData"), _map(_t("a"), b"\x43!!!")))
    assert str(info.value) == "cbor: failed to decode base64 from byte string: illegal base64 data at input byte 0"
    assert info.value.field_path is not None and info.value.field_path.endswith("binaryData[a]")
    assert info.value.offset == 0
