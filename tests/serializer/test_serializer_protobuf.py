"""The protobuf serializer (``k8s\\x00`` + runtime.Unknown envelope) and the raw protobuf
serializer: bytes, decode errors, defaulting, ``into`` handling, reset semantics
(Go: k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go; k8s.io/apimachinery/pkg/runtime/helper.go; Go apimachinery)."""
from __future__ import annotations

import io
from typing import Any

import pytest
from google.protobuf import struct_pb2, timestamp_pb2

from conftest import fixtures_dir
from kcodec.api import scheme as api_scheme
from kcodec.api.core import v1 as corev1
from kcodec.api.meta import v1 as metav1
from kcodec.errors import (
    DecodeError,
    EncodeError,
    KCodecError,
    MissingKindError,
    MissingVersionError,
    NotMarshalableError,
    NotRegisteredError,
    is_missing_kind,
    is_missing_version,
    is_not_marshalable,
)
from kcodec.model import Int32, field, to_proto
from kcodec.runtime.object import Object
from kcodec.runtime.scheme import Scheme
from kcodec.runtime.types import CONTENT_TYPE_PROTOBUF, Unknown
from kcodec.api.meta.unstructured import Unstructured
from kcodec.schema import GroupVersionKind
from kcodec.serializer.framing import LENGTH_DELIMITED_FRAMER
from kcodec.serializer.json import Serializer as JSONSerializer
from kcodec.serializer.json import gvk_with_defaults
from kcodec.serializer.protobuf import (
    PROTO_MAGIC,
    RawSerializer,
    Serializer,
    gvk_with_proto_defaults,
)

import _types

GVK = GroupVersionKind
EMPTY = GVK("", "", "")
CARP_GVK = GVK("group", "version", "Carp")
MAGIC = bytes.fromhex("6b387300")
NOT_PROTOBUF = "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"


class Carp(Object):
    name: str = field(1, "name")
    count: Int32 = field(2, "count", omitempty=True)


class Optional(Object):
    """Only a pointer field: an unset one has a zero-length body."""

    opt: str | None = field(1, "opt", omitempty=True)


class UnregisteredCarp(Object):
    name: str = field(1, "name")
    count: Int32 = field(2, "count", omitempty=True)


class NoNumbers(Object):
    """No protobuf field numbers: not protobuf-encodable."""

    name: str = field(0, "name", omitempty=True)


def make_scheme() -> Scheme:
    s = Scheme("protobuf-test")
    s.add_known_type_with_name(CARP_GVK, Carp)
    s.add_known_type_with_name(GVK("group", "version", "Optional"), Optional)
    return s


SCHEME = make_scheme()
PB = Serializer(SCHEME, SCHEME)
RAW = RawSerializer(SCHEME, SCHEME)
API_PB = Serializer(api_scheme, api_scheme)
API_RAW = RawSerializer(api_scheme, api_scheme)


def envelope(api_version: str = "", kind: str = "", raw: bytes | None = b"",
             content_encoding: str = "", content_type: str = "") -> bytes:
    """Envelope bytes of an Unknown (the serializer writes an Unknown verbatim)."""
    return PB.encode(Unknown(api_version, kind, raw, content_encoding, content_type))


class FakeTyper:
    def __init__(self, kinds: list[GroupVersionKind]) -> None:
        self.kinds = kinds

    def object_kinds(self, obj: Any) -> tuple[list[GroupVersionKind], bool]:
        return list(self.kinds), False

    def recognizes(self, gvk: GroupVersionKind) -> bool:
        return True


class FakeCreater:
    def new(self, gvk: GroupVersionKind) -> Any:
        return Carp()


# ---------------------------------------------------------------------------------- encode


def test_carp_envelope_bytes() -> None:
    obj = Carp(kind="Carp", api_version="group/version", name="x")
    body = bytes.fromhex("0a0178" "1000")  # zero non-pointer scalars are written too
    assert to_proto(obj) == body
    want = (MAGIC + bytes.fromhex("0a15") + bytes.fromhex("0a0d") + b"group/version"
            + bytes.fromhex("1204") + b"Carp" + bytes([0x12, len(body)]) + body + bytes.fromhex("1a002200"))
    assert PB.encode(obj) == want


def test_empty_gvk_envelope() -> None:
    assert PB.encode(Carp(name="x")) == MAGIC + bytes.fromhex("0a040a001200" "12050a01781000" "1a002200")


def test_zero_values_and_empty_body_are_written() -> None:
    # Non-pointer scalars are always written; an empty body still gets its raw field.
    assert PB.encode(Carp()) == MAGIC + bytes.fromhex("0a040a001200" "12040a001000" "1a002200")
    assert PB.encode(Optional()) == MAGIC + bytes.fromhex("0a040a001200" "1200" "1a002200")


def test_core_group_api_version() -> None:
    cm = corev1.ConfigMap(kind="ConfigMap", api_version="v1")
    out = API_PB.encode(cm)
    assert out.startswith(MAGIC + bytes.fromhex("0a0f0a02") + b"v1" + bytes.fromhex("1209") + b"ConfigMap")
    assert out.endswith(bytes.fromhex("1a002200"))


def test_unknown_envelope_bytes() -> None:
    u = Unknown(api_version="group/version", kind="Unknown", raw=b"hello world")
    assert PB.encode(u) == bytes.fromhex(
        "6b387300 0a18 0a0d 67726f75702f76657273696f6e 12 07 556e6b6e6f776e 12 0b 68656c6c6f20776f726c64 1a00 2200"
    )


def test_unknown_written_verbatim() -> None:
    u = Unknown(api_version="v1", kind="X", raw=None, content_encoding="gzip", content_type="application/json")
    out = PB.encode(u)
    assert out == MAGIC + bytes.fromhex("0a070a02") + b"v1" + bytes.fromhex("1201") + b"X" + (
        bytes.fromhex("1a04") + b"gzip" + bytes.fromhex("2210") + b"application/json"
    )


def test_google_message_encodes_with_empty_gvk() -> None:
    ts = timestamp_pb2.Timestamp(seconds=5, nanos=7)
    assert PB.encode(ts) == MAGIC + bytes.fromhex("0a040a001200" "120408051007" "1a002200")


def test_encode_to_stream() -> None:
    buf = io.BytesIO()
    out = PB.encode(Carp(name="x"), buf)
    assert buf.getvalue() == out


@pytest.mark.parametrize(
    "obj, shown",
    [
        (Unstructured({"apiVersion": "v1", "kind": "A"}), "Unstructured"),
        (_types.ExternalSimple(test_string="x"), "ExternalSimple"),
        (NoNumbers(name="n"), "NoNumbers"),
    ],
)
def test_not_marshalable(obj: Any, shown: str) -> None:
    for serializer in (PB, RAW):
        with pytest.raises(NotMarshalableError) as ei:
            serializer.encode(obj)
        msg = str(ei.value)
        assert msg.startswith("object ")
        assert msg.endswith(f"{shown} does not implement the protobuf marshalling interface and "
                            "cannot be encoded to a protobuf message")
        assert ei.value.code == 406 and ei.value.reason == "NotAcceptable"
        assert is_not_marshalable(ei.value) and isinstance(ei.value, EncodeError)


def test_identifiers_and_framers() -> None:
    assert PB.identifier() == "protobuf"
    assert RAW.identifier() == "raw-protobuf"
    assert PB.framer is LENGTH_DELIMITED_FRAMER and RAW.framer is LENGTH_DELIMITED_FRAMER
    assert PROTO_MAGIC == MAGIC


@pytest.mark.parametrize(
    "data, ok",
    [(MAGIC, True), (MAGIC + b"\x0a", True), (b"k8s", False), (b"k8s\x01", False), (b"{}", False), (b"", False)],
)
def test_recognizes_data(data: bytes, ok: bool) -> None:
    assert PB.recognizes_data(data) == (ok, False)


# ---------------------------------------------------------------------------- decode errors


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty data"),
        (b"k8s", NOT_PROTOBUF),
        (b"abcd", NOT_PROTOBUF),
        (b"k8s\x01\x0a\x00", NOT_PROTOBUF),
        (b'{"kind":"Carp"}', NOT_PROTOBUF),
        (MAGIC, "empty body"),
    ],
)
def test_decode_errors(data: bytes, message: str) -> None:
    with pytest.raises(DecodeError) as ei:
        PB.decode(data)
    assert str(ei.value) == message
    assert getattr(ei.value, "gvk", None) is None


@pytest.mark.parametrize("body", ["0a05", "0a050a03", "12", "1a8080", "0f"])
def test_malformed_envelope(body: str) -> None:
    with pytest.raises(DecodeError):
        PB.decode(MAGIC + bytes.fromhex(body))


def test_missing_kind_message() -> None:
    with pytest.raises(MissingKindError) as ei:
        PB.decode(envelope())
    assert str(ei.value) == "Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:\"\", Kind:\"\"}'"
    assert ei.value.gvk == EMPTY and is_missing_kind(ei.value)


def test_missing_kind_message_quotes_like_go() -> None:
    with pytest.raises(MissingKindError) as ei:
        PB.decode(envelope(api_version='a"b\n'))
    assert str(ei.value) == "Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:\"a\\\"b\\n\", Kind:\"\"}'"


def test_missing_version_message() -> None:
    with pytest.raises(MissingVersionError) as ei:
        PB.decode(envelope("other/", "Foo"))
    assert str(ei.value) == "Object 'apiVersion' is missing in 'runtime.TypeMeta{APIVersion:\"other/\", Kind:\"Foo\"}'"
    assert ei.value.gvk == GVK("other", "", "Foo") and is_missing_version(ei.value)


def test_unregistered_kind() -> None:
    with pytest.raises(NotRegisteredError) as ei:
        API_PB.decode(envelope("v1", "Nope"))
    assert ei.value.gvk == GVK("", "v1", "Nope")


# ------------------------------------------------------------------------------- defaulting


@pytest.mark.parametrize(
    "api_version, kind, default, want",
    [
        ("", "", GVK("other", "blah", "Test"), GVK("other", "blah", "Test")),
        # The default's group replaces the envelope's whenever the version is missing.
        ("other1/", "", GVK("other", "blah", "Test"), GVK("other", "blah", "Test")),
        ("v2", "", GVK("other", "blah", "Test"), GVK("", "v2", "Test")),
        ("other1/blah1", "K", GVK("other", "blah", "Test"), GVK("other1", "blah1", "K")),
        ("", "", GVK("other", "", "Test"), GVK("", "", "Test")),
        ("other1/", "", GVK("", "v1", ""), GVK("", "v1", "")),
    ],
)
def test_proto_defaulting(api_version: str, kind: str, default: GroupVersionKind, want: GroupVersionKind) -> None:
    into = Unknown()
    obj, gvk = PB.decode(envelope(api_version, kind), default, into)
    assert obj is into and gvk == want
    # The Unknown holds the envelope as sent, not the defaulted kind.
    assert (into.api_version, into.kind) == (api_version, kind)


def test_proto_and_json_defaulting_differ() -> None:
    actual = GVK("other1", "", "")
    default = GVK("other", "blah", "Test")
    assert gvk_with_proto_defaults(actual, default) == GVK("other", "blah", "Test")
    assert gvk_with_defaults(actual, default) == GVK("other1", "", "Test")


def test_defaults_from_into() -> None:
    into = Carp(name="old")
    obj, gvk = PB.decode(envelope(raw=bytes.fromhex("0a0178")), None, into)
    assert obj is into and gvk == CARP_GVK
    assert into == Carp(kind="Carp", api_version="group/version", name="x")


def test_group_from_into_when_still_empty() -> None:
    s = Serializer(FakeCreater(), FakeTyper([GVK("grp", "", "Carp")]))
    with pytest.raises(MissingVersionError) as ei:
        s.decode(envelope(), None, Carp())
    assert ei.value.gvk == GVK("grp", "", "Carp")
    assert str(ei.value) == "Object 'apiVersion' is missing in 'runtime.TypeMeta{APIVersion:\"\", Kind:\"\"}'"


# ---------------------------------------------------------------------------- into Unknown


def test_into_unknown_takes_the_whole_envelope() -> None:
    data = envelope("a/b", "K", b"xyz", "gzip", "application/foo")
    into = Unknown(raw=b"old", content_type="old")
    obj, gvk = PB.decode(data, None, into)
    assert obj is into and gvk == GVK("a", "b", "K")
    assert into == Unknown("a/b", "K", b"xyz", "gzip", "application/foo")


def test_into_unknown_magic_prefixed_raw() -> None:
    inner = PB.encode(Carp(kind="Carp", api_version="group/version", name="x"))
    obj, _ = PB.decode(envelope("v1", "List", inner, "", "something/else"), None, Unknown())
    assert obj.raw == inner
    assert obj.content_type == CONTENT_TYPE_PROTOBUF


def test_into_unknown_typed_payload_has_empty_content_type() -> None:
    cm = corev1.ConfigMap(kind="ConfigMap", api_version="v1", data={"a": "b"})
    obj, gvk = API_PB.decode(API_PB.encode(cm), None, Unknown())
    assert gvk == GVK("", "v1", "ConfigMap")
    assert obj == Unknown("v1", "ConfigMap", to_proto(cm), "", "")


def test_into_unknown_needs_no_kind() -> None:
    obj, gvk = PB.decode(envelope(), None, Unknown())
    assert gvk == EMPTY and obj == Unknown("", "", b"", "", "")


def test_into_unknown_absent_raw() -> None:
    obj, _ = PB.decode(envelope("v1", "K", None), None, Unknown())
    assert obj.raw is None


# ---------------------------------------------------------------------- into unregistered


def test_into_unregistered_struct_is_reset_then_filled() -> None:
    into = UnregisteredCarp(kind="Old", api_version="x/y", name="old", count=5)
    data = PB.encode(Carp(kind="Carp", api_version="group/version", name="x"))
    obj, gvk = PB.decode(data, None, into)
    assert obj is into and gvk == CARP_GVK
    # Reset clears everything, TypeMeta included; the unregistered path stamps no kind.
    assert into == UnregisteredCarp(name="x")


def test_into_unregistered_google_timestamp() -> None:
    into = timestamp_pb2.Timestamp(seconds=99, nanos=1)
    data = envelope("v1", "Timestamp", timestamp_pb2.Timestamp(seconds=5).SerializeToString())
    obj, gvk = PB.decode(data, None, into)
    assert obj is into and gvk == GVK("", "v1", "Timestamp")
    assert (into.seconds, into.nanos) == (5, 0)


def test_into_unregistered_google_value() -> None:
    into = struct_pb2.Value(number_value=3)
    obj, _ = PB.decode(PB.encode(struct_pb2.Value(string_value="a")), None, into)
    assert obj is into
    assert into.WhichOneof("kind") == "string_value" and into.string_value == "a"


def test_into_unregistered_google_message_bad_bytes() -> None:
    with pytest.raises(DecodeError):
        PB.decode(envelope("v1", "T", b"\x0a\x05"), None, timestamp_pb2.Timestamp())


def test_into_unregistered_not_unmarshalable() -> None:
    with pytest.raises(NotMarshalableError) as ei:
        PB.decode(envelope("v1", "X", b""), None, NoNumbers())
    assert ei.value.gvk == GVK("", "v1", "X")
    assert ei.value.code == 406


def test_into_registered_unstructured_is_not_unmarshalable() -> None:
    with pytest.raises(NotMarshalableError) as ei:
        API_PB.decode(API_PB.encode(corev1.ConfigMap(kind="ConfigMap", api_version="v1")), None,
                      Unstructured({"apiVersion": "v1", "kind": "ConfigMap"}))
    assert "Unstructured does not implement the protobuf marshalling interface" in str(ei.value)
    assert ei.value.gvk == GVK("", "v1", "ConfigMap")


# ------------------------------------------------------------------------ into registered


def test_reset_before_decode_unlike_json_merge() -> None:
    cm = corev1.ConfigMap(kind="ConfigMap", api_version="v1", data={"a": "b"})
    data = API_PB.encode(cm)

    # into is reused when registered as the decoded kind, whatever its TypeMeta says; it is
    # reset first, then stamped with the decoded kind.
    into = corev1.ConfigMap(kind="qq", api_version="zz/v9", binary_data={"k": b"v"})
    obj, gvk = API_PB.decode(data, None, into)
    assert obj is into and gvk == GVK("", "v1", "ConfigMap")
    assert into == cm

    # JSON merges into the object and leaves its TypeMeta as the data had it.
    json_into = corev1.ConfigMap(kind="qq", api_version="zz/v9", binary_data={"k": b"v"})
    JSONSerializer(api_scheme, api_scheme).decode(b'{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"b"}}',
                                                  None, json_into)
    assert json_into.binary_data == {"k": b"v"} and json_into.data == {"a": "b"}
    assert (json_into.kind, json_into.api_version) == ("ConfigMap", "v1")


def test_gvk_stamped_after_decode() -> None:
    body = to_proto(corev1.ConfigMap(data={"a": "b"}))
    obj, gvk = API_PB.decode(envelope(raw=body), GVK("", "v1", "ConfigMap"))
    assert isinstance(obj, corev1.ConfigMap)
    assert (obj.kind, obj.api_version) == ("ConfigMap", "v1")
    # JSON leaves TypeMeta as the data had it.
    jobj, _ = JSONSerializer(api_scheme, api_scheme).decode(b'{"data":{"a":"b"}}', GVK("", "v1", "ConfigMap"))
    assert (jobj.kind, jobj.api_version) == ("", "")


def test_into_of_another_kind_is_not_touched() -> None:
    into = Optional(opt="keep")
    obj, gvk = PB.decode(PB.encode(Carp(kind="Carp", api_version="group/version", name="x")), None, into)
    assert isinstance(obj, Carp) and obj.name == "x" and gvk == CARP_GVK
    assert into == Optional(opt="keep")


def test_real_pod_roundtrip() -> None:
    data = (fixtures_dir() / "core.v1.Pod.pb").read_bytes()
    obj, gvk = API_PB.decode(data)
    assert gvk == GVK("", "v1", "Pod") and isinstance(obj, corev1.Pod)
    assert API_PB.encode(obj) == data
    unknown, _ = API_PB.decode(data, None, Unknown())
    assert unknown.raw == to_proto(obj) and unknown.content_type == ""


def test_status_roundtrip() -> None:
    st = metav1.Status(kind="Status", api_version="v1", status="Failure", message="m", reason="NotFound", code=404)
    obj, gvk = API_PB.decode(API_PB.encode(st))
    assert obj == st and gvk == GVK("", "v1", "Status")


# ---------------------------------------------------------------------------- raw serializer


def test_raw_encode_is_body_only() -> None:
    cm = corev1.ConfigMap(kind="ConfigMap", api_version="v1", data={"a": "b"})
    assert API_RAW.encode(cm) == to_proto(cm)
    assert API_RAW.encode(cm) == API_RAW.encode(corev1.ConfigMap(data={"a": "b"}))
    buf = io.BytesIO()
    assert API_RAW.encode(cm, buf) == buf.getvalue()


def test_raw_encode_unknown_writes_the_message() -> None:
    u = Unknown(api_version="v1", kind="X", raw=b"zz")
    assert RAW.encode(u) == bytes.fromhex("0a070a02") + b"v1" + bytes.fromhex("1201") + b"X" + (
        bytes.fromhex("1202") + b"zz" + bytes.fromhex("1a002200")
    )
    assert MAGIC + RAW.encode(u) == PB.encode(u)


def test_raw_decode_requires_into() -> None:
    with pytest.raises(DecodeError) as ei:
        RAW.decode(b"\x0a\x00")
    assert str(ei.value).startswith("this serializer requires an object to decode into: ")


def test_raw_decode_empty() -> None:
    with pytest.raises(DecodeError) as ei:
        RAW.decode(b"", None, Carp())
    assert str(ei.value) == "empty data"


def test_raw_into_unknown() -> None:
    into = Unknown(api_version="x", kind="y", content_encoding="gzip", content_type="a/b")
    obj, gvk = RAW.decode(b"\x0a\x01x", GVK("g", "v", "K"), into)
    assert obj is into and gvk == GVK("g", "v", "K")
    assert into == Unknown("g/v", "K", b"\x0a\x01x", "", CONTENT_TYPE_PROTOBUF)
    obj, gvk = RAW.decode(b"\x0a\x01x", None, Unknown())
    assert gvk == EMPTY and obj == Unknown("", "", b"\x0a\x01x", "", CONTENT_TYPE_PROTOBUF)


def test_raw_decode_kind_from_into_and_stamped() -> None:
    into = Carp(kind="Old", count=3)
    obj, gvk = RAW.decode(b"\x0a\x01x", None, into)
    assert obj is into and gvk == CARP_GVK
    assert into == Carp(kind="Carp", api_version="group/version", name="x")


def test_raw_decode_defaults_win() -> None:
    obj, gvk = RAW.decode(b"\x0a\x01x", GVK("group", "version", "Optional"), Carp())
    assert isinstance(obj, Optional) and gvk == GVK("group", "version", "Optional")
    assert obj.opt == "x" and (obj.kind, obj.api_version) == ("Optional", "group/version")


@pytest.mark.parametrize(
    "kinds, error, what",
    [
        ([GVK("g", "v", "")], MissingKindError, "Kind"),
        ([GVK("", "", "K")], MissingVersionError, "apiVersion"),
    ],
)
def test_raw_missing_kind_or_version(kinds: list[GroupVersionKind], error: type, what: str) -> None:
    s = RawSerializer(FakeCreater(), FakeTyper(kinds))
    with pytest.raises(error) as ei:
        s.decode(b"\x0a\x00", None, Carp())
    assert str(ei.value) == f"Object '{what}' is missing in '<protobuf encoded body - must provide default type>'"


def test_raw_into_unregistered_google_message() -> None:
    into = timestamp_pb2.Timestamp(seconds=1, nanos=2)
    obj, gvk = RAW.decode(timestamp_pb2.Timestamp(seconds=7).SerializeToString(), None, into)
    assert obj is into and gvk == EMPTY and (into.seconds, into.nanos) == (7, 0)


def test_raw_into_unregistered_not_unmarshalable() -> None:
    with pytest.raises(NotMarshalableError):
        RAW.decode(b"\x0a\x00", None, NoNumbers())


def test_raw_real_pod_body_roundtrip() -> None:
    envelope_bytes = (fixtures_dir() / "core.v1.Pod.pb").read_bytes()
    unknown, _ = API_PB.decode(envelope_bytes, None, Unknown())
    pod, gvk = API_RAW.decode(unknown.raw, None, corev1.Pod())
    assert gvk == GVK("", "v1", "Pod") and (pod.kind, pod.api_version) == ("Pod", "v1")
    assert API_RAW.encode(pod) == unknown.raw


def test_errors_are_kcodec_errors() -> None:
    for data in (b"", b"abcd", MAGIC, MAGIC + b"\x0a\x05"):
        with pytest.raises(KCodecError):
            PB.decode(data)


def test_factory_strict_protobuf_serializer_is_the_same_object() -> None:
    from kcodec.api import codecs

    info = next(i for i in codecs.supported_media_types() if i.media_type == CONTENT_TYPE_PROTOBUF)
    assert info.strict_serializer is info.serializer
    assert info.stream_serializer.serializer.identifier() == "raw-protobuf"
