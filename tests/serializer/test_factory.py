"""CodecFactory (Go: k8s.io/apimachinery/pkg/runtime/serializer/codec_factory.go; k8s.io/apimachinery/pkg/runtime/helper.go).

Ports Go's serializer/codec_test.go and sparse_test.go. Go's codec tests sniff the kind with
a meta factory reading ``myVersionKey`` / ``myKindKey``; :class:`WeirdMetaFactory` is its
Python twin, handed to the factory with ``meta_factory=``.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from _types import (
    ExternalInternalSame,
    ExternalTestType1,
    ExternalTestType2,
    TestType1,
    TestType2,
    UnversionedType,
    register_conversions,
)
from conftest import fixtures_dir
from kcodec.api.meta.v1 import ObjectMeta
from kcodec.errors import (
    DecodeError,
    KCodecError,
    MissingKindError,
    MissingVersionError,
    NotRegisteredError,
    StrictDecodingError,
)
from kcodec.model import field
from kcodec.runtime import (
    INTERNAL_GROUP_VERSIONER,
    Object,
    Scheme,
    WithoutVersionDecoder,
    WithVersionEncoder,
    decode,
    decode_into,
    encode,
)
from kcodec.schema import APIVersionInternal, GroupVersion, GroupVersionKind, parse_group_version
from kcodec.serializer import (
    ClientNegotiator,
    CodecFactory,
    SerializerInfo,
    StreamSerializerInfo,
    WithoutConversionCodecFactory,
    serializer_info_for_media_type,
)
from kcodec import gojson as _gojson
from kcodec.serializer import json as json_serializer
from kcodec.serializer.framing import JSON_FRAMER, LENGTH_DELIMITED_FRAMER
from kcodec.serializer.protobuf import RawSerializer
from kcodec.serializer.protobuf import Serializer as ProtobufSerializer
from kcodec.serializer.recognizer import RecognizerDecoder
from kcodec.serializer.versioning import VersioningCodec

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
INTERNAL = GroupVersion("", APIVersionInternal)
V1 = GroupVersion("", "v1")
V2 = GroupVersion("", "v2")


class WeirdMetaFactory:
    """Go's testMetaFactory: the kind lives under ``myVersionKey`` / ``myKindKey``."""

    def interpret(self, data: bytes) -> GroupVersionKind:
        tree = _gojson.loads(data) if data.strip() else None
        if not isinstance(tree, dict):
            tree = {}
        gv = parse_group_version(tree.get("myVersionKey", ""))
        return GroupVersionKind(gv.group, gv.version, tree.get("myKindKey", ""))


def codec_test_scheme() -> Scheme:
    """GetTestScheme() of codec_test.go."""
    s = Scheme("codec-test")
    s.add_known_types(INTERNAL, TestType1, TestType2, ExternalInternalSame)
    s.add_known_types(V1, ExternalInternalSame)
    s.add_known_type_with_name(V1.with_kind("TestType1"), ExternalTestType1)
    s.add_known_type_with_name(V1.with_kind("TestType2"), ExternalTestType2)
    s.add_known_type_with_name(INTERNAL.with_kind("TestType3"), TestType1)
    s.add_known_type_with_name(V1.with_kind("TestType3"), ExternalTestType1)
    s.add_known_type_with_name(V2.with_kind("TestType1"), ExternalTestType1)
    s.add_unversioned_types(V1, UnversionedType)
    register_conversions(s)
    return s


def weird_factory(scheme: Scheme | None = None, strict: bool = True) -> CodecFactory:
    return CodecFactory(scheme or codec_test_scheme(), strict=strict, meta_factory=WeirdMetaFactory())


def json_of(cf: Any) -> Any:
    return serializer_info_for_media_type(cf.supported_media_types(), JSON).serializer


def populated() -> TestType1:
    return TestType1(
        a="a", b=-2, e=7, f=1 << 40, l=True, m={"x": 1, "y": -1},
        n={"k": TestType2(a="na", b=1)}, o=TestType2(a="oa", b=2), p=[TestType2(a="pa"), TestType2(b=9)],
    )


def without_kind(obj: Any) -> Any:
    out = obj.deep_copy()
    out.api_version, out.object_kind = "", ""
    return out


# ----------------------------------------------------------------------- Go: k8s.io/apimachinery/pkg/runtime/serializer/codec_factory.go (SupportedMediaTypes) supported media types


def test_supported_media_types_default_options() -> None:
    scheme = codec_test_scheme()
    infos = CodecFactory(scheme).supported_media_types()
    assert [i.media_type for i in infos] == [JSON, YAML, PROTOBUF]
    assert [(i.media_type_type, i.media_type_subtype) for i in infos] == [
        ("application", "json"), ("application", "yaml"), ("application", "vnd.kubernetes.protobuf")]
    assert [i.encodes_as_text for i in infos] == [True, True, False]
    j, y, p = infos
    assert j.serializer.identifier() == '{"name":"json","pretty":"false","strict":"false","yaml":"false"}'
    assert j.pretty_serializer.identifier() == '{"name":"json","pretty":"true","strict":"false","yaml":"false"}'
    assert j.strict_serializer.identifier() == '{"name":"json","pretty":"false","strict":"true","yaml":"false"}'
    assert j.stream_serializer == StreamSerializerInfo(True, j.serializer, JSON_FRAMER)
    assert y.serializer.identifier() == '{"name":"json","pretty":"false","strict":"false","yaml":"true"}'
    assert y.pretty_serializer is None
    assert y.strict_serializer.identifier() == '{"name":"json","pretty":"false","strict":"true","yaml":"true"}'
    assert y.stream_serializer is None
    assert isinstance(p.serializer, ProtobufSerializer) and p.serializer.identifier() == "protobuf"
    assert p.pretty_serializer is None
    assert p.strict_serializer is p.serializer
    assert p.stream_serializer.encodes_as_text is False
    assert isinstance(p.stream_serializer.serializer, RawSerializer)
    assert p.stream_serializer.serializer.identifier() == "raw-protobuf"
    assert p.stream_serializer.framer is LENGTH_DELIMITED_FRAMER


def test_pretty_serializer_writes_two_space_indent() -> None:
    cf = weird_factory(strict=False)
    pretty = serializer_info_for_media_type(cf.supported_media_types(), JSON).pretty_serializer
    out = pretty.encode(ExternalTestType1(api_version="v1", object_kind="TestType1", a="x"))
    assert out == b'{\n  "myVersionKey": "v1",\n  "myKindKey": "TestType1",\n  "A": "x"\n}'


def test_options_strict_and_pretty() -> None:
    infos = CodecFactory(codec_test_scheme(), strict=True, pretty=False).supported_media_types()
    j, y, _ = infos
    assert j.pretty_serializer is None
    assert j.serializer.identifier() == '{"name":"json","pretty":"false","strict":"true","yaml":"false"}'
    assert y.serializer.identifier() == '{"name":"json","pretty":"false","strict":"true","yaml":"true"}'
    assert j.stream_serializer.serializer is j.serializer
    strict_pretty = CodecFactory(codec_test_scheme(), strict=True).supported_media_types()[0].pretty_serializer
    assert strict_pretty.identifier() == '{"name":"json","pretty":"true","strict":"true","yaml":"false"}'


def test_extra_serializers_are_appended_once_per_media_type() -> None:
    scheme = codec_test_scheme()

    class Tagged:
        def __init__(self, tag: str) -> None:
            self.tag = tag

        def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> Any:
            if data == self.tag.encode():
                return TestType1(a=self.tag), GroupVersionKind("", APIVersionInternal, "TestType1")
            raise DecodeError("not mine")

        def encode(self, obj: Any, stream: Any = None) -> bytes:
            return self.tag.encode()

        def identifier(self) -> str:
            return self.tag

    extra = SerializerInfo("application/x-extra", "application", "x-extra", True, Tagged("extra"))
    shadowed = SerializerInfo(JSON, "application", "json", True, Tagged("shadow"))
    cf = CodecFactory(scheme, extra_serializers=[extra, shadowed])
    infos = cf.supported_media_types()
    assert [i.media_type for i in infos] == [JSON, YAML, PROTOBUF, "application/x-extra"]
    assert infos[0].serializer.identifier().startswith('{"name":"json"')
    assert infos[3] is extra
    # the universal deserializer still tries every serializer, the shadowed one included
    assert cf.universal_deserializer().decode(b"shadow")[0] == TestType1(a="shadow")
    assert cf.universal_deserializer().decode(b"extra")[0] == TestType1(a="extra")
    assert [type(d) for d in cf.universal_deserializer().decoders][:3] == [
        json_serializer.Serializer, json_serializer.Serializer, ProtobufSerializer]


def test_cbor_is_not_a_default_media_type() -> None:
    types = [i.media_type for i in CodecFactory(codec_test_scheme()).supported_media_types()]
    assert "application/cbor" not in types


# ----------------------------------------------------------------------- Go: k8s.io/apimachinery/pkg/runtime/serializer/codec_factory.go lookups


def test_serializer_info_for_media_type() -> None:
    infos = CodecFactory(codec_test_scheme()).supported_media_types()
    assert serializer_info_for_media_type(infos, YAML) is infos[1]
    assert serializer_info_for_media_type(infos, PROTOBUF) is infos[2]
    assert serializer_info_for_media_type(infos, "application/json; charset=utf-8") is None
    assert serializer_info_for_media_type(infos, "APPLICATION/JSON") is None
    assert serializer_info_for_media_type(infos, "text/plain") is None
    catch_all = SerializerInfo("", "", "", True, infos[0].serializer)
    assert serializer_info_for_media_type(infos + [catch_all], "text/plain") is catch_all
    assert serializer_info_for_media_type([catch_all] + infos, JSON) is infos[0]
    assert serializer_info_for_media_type([], JSON) is None


def test_client_negotiator() -> None:
    cf = weird_factory()
    neg = ClientNegotiator(cf, V1)
    enc = neg.encoder(JSON)
    assert isinstance(enc, VersioningCodec) and enc.encoder is json_of(cf)
    assert enc.encode(TestType1(a="x")) == b'{"myVersionKey":"v1","myKindKey":"TestType1","A":"x"}\n'
    # the empty content type means the first media type
    assert neg.encoder("", {}).encoder is json_of(cf)
    dec = neg.decoder(YAML)
    assert dec.decoder is cf.supported_media_types()[1].serializer
    assert dec.decode(b'{"myVersionKey":"v1","myKindKey":"TestType1","A":"y"}')[0] == TestType1(a="y")

    with pytest.raises(KCodecError, match="^no serializers registered for application/unknown$"):
        neg.encoder("application/unknown")
    with pytest.raises(KCodecError, match="^no serializers registered for application/unknown$"):
        neg.decoder("application/unknown", {"a": "b"})
    with pytest.raises(KCodecError, match="^no serializers registered for application/json; charset=utf-8$"):
        neg.decoder("application/json; charset=utf-8")


def test_client_negotiator_stream_decoder() -> None:
    cf = weird_factory()
    neg = ClientNegotiator(cf, V1)
    decoder, serializer, framer = neg.stream_decoder(PROTOBUF)
    info = cf.supported_media_types()[2]
    assert decoder.decoder is info.serializer
    assert serializer is info.stream_serializer.serializer and framer is LENGTH_DELIMITED_FRAMER
    decoder, serializer, framer = neg.stream_decoder("")
    assert serializer is json_of(cf) and framer is JSON_FRAMER
    with pytest.raises(KCodecError, match="^no stream serializers registered for application/yaml$"):
        neg.stream_decoder(YAML)
    with pytest.raises(KCodecError, match="^no stream serializers registered for text/plain$"):
        neg.stream_decoder("text/plain")


def test_client_negotiator_without_media_types() -> None:
    class Empty:
        def supported_media_types(self) -> list[SerializerInfo]:
            return []

    neg = ClientNegotiator(Empty())
    with pytest.raises(KCodecError, match="^no serializers registered for $"):
        neg.encoder("")
    with pytest.raises(KCodecError, match="^no stream serializers registered for $"):
        neg.stream_decoder("")


# ----------------------------------------------------------------------- Go: k8s.io/apimachinery/pkg/runtime/serializer/codec_factory.go codecs


def test_types_roundtrip_through_legacy_codec() -> None:
    codec = weird_factory().legacy_codec(V1)
    for source in (populated(), TestType1(), ExternalInternalSame(a=TestType2(a="s", b=3))):
        data = encode(codec, source)
        obj = decode(codec, data)
        assert type(obj) is type(source)
        assert without_kind(obj) == without_kind(source)
        into = type(source)()
        decode_into(codec, data, into)
        assert without_kind(into) == without_kind(source)


def test_legacy_codec_wire_form() -> None:
    codec = weird_factory().legacy_codec(V1)
    assert encode(codec, TestType1(a="x", m={"b": 2, "a": 1})) == (
        b'{"myVersionKey":"v1","myKindKey":"TestType1","A":"x","M":{"a":1,"b":2}}\n')


def test_encoder_for_version() -> None:
    cf = weird_factory()
    serializer = json_of(cf)
    out = encode(cf.encoder_for_version(serializer, V2), TestType1())
    assert out == b'{"myVersionKey":"v2","myKindKey":"TestType1"}\n'
    with pytest.raises(NotRegisteredError,
                       match='no kind "TestType1" is registered for version "v3" in scheme "codec-test"'):
        encode(cf.encoder_for_version(serializer, GroupVersion("", "v3")), TestType1())
    # internal output carries no kind at all
    assert encode(cf.encoder_for_version(serializer, INTERNAL_GROUP_VERSIONER), TestType1()) == b"{}\n"


def test_multiple_names() -> None:
    codec = weird_factory().legacy_codec(V1)
    obj, gvk = codec.decode(b'{"myKindKey":"TestType3","myVersionKey":"v1","A":"value"}')
    assert obj == TestType1(a="value")
    assert gvk == V1.with_kind("TestType3")
    assert b'"myKindKey":"TestType1"' in encode(codec, obj)


def test_strict_option() -> None:
    dup = b'{"myKindKey":"TestType3","myVersionKey":"v1","myVersionKey":"v1","A":"value"}'
    with pytest.raises(StrictDecodingError) as info:
        weird_factory(strict=True).legacy_codec().decode(dup)
    assert info.value.errors == ['duplicate field "myVersionKey"']
    assert info.value.obj == TestType1(a="value")
    obj, _ = weird_factory(strict=False).legacy_codec().decode(dup)
    assert obj == TestType1(a="value")


def test_convert_types_when_default_names_match() -> None:
    s = Scheme("names")
    s.add_known_type_with_name(INTERNAL.with_kind("TestType1"), TestType1)
    s.add_known_type_with_name(INTERNAL.with_kind("OtherType1"), TestType1)
    s.add_known_type_with_name(V1.with_kind("TestType1"), ExternalTestType1)
    s.add_known_type_with_name(V1.with_kind("OtherType1"), ExternalTestType1)
    register_conversions(s)
    data = b'{"myVersionKey":"v1","myKindKey":"OtherType1","A":"test"}'
    codec = weird_factory(s).legacy_codec(V1)
    assert without_kind(decode(codec, data)) == TestType1(a="test")
    into = TestType1()
    decode_into(codec, data, into)
    assert without_kind(into) == TestType1(a="test")


@pytest.mark.parametrize("data", [
    b'{"myVersionKey":"v1"}',
    b'{"myVersionKey":"v1","myKindKey":"bar"}',
    b'{"myVersionKey":"bar","myKindKey":"TestType1"}',
    b'{"myKindKey":"TestType1"}',
    b"",
])
def test_bad_json_rejection(data: bytes) -> None:
    with pytest.raises(KCodecError):
        decode(weird_factory().legacy_codec(V1), data)


def test_bad_json_rejection_messages() -> None:
    codec = weird_factory().legacy_codec(V1)
    with pytest.raises(MissingKindError, match="^Object 'Kind' is missing in '\\{\"myVersionKey\":\"v1\"\\}'$"):
        decode(codec, b'{"myVersionKey":"v1"}')
    with pytest.raises(NotRegisteredError,
                       match='^no kind "bar" is registered for version "v1" in scheme "codec-test"$'):
        decode(codec, b'{"myVersionKey":"v1","myKindKey":"bar"}')
    with pytest.raises(NotRegisteredError, match='^no kind "TestType1" is registered for version "bar"'):
        decode(codec, b'{"myVersionKey":"bar","myKindKey":"TestType1"}')
    with pytest.raises(MissingVersionError, match="^Object 'apiVersion' is missing in"):
        decode(codec, b'{"myKindKey":"TestType1"}')


def test_decode_into() -> None:
    codec = weird_factory().legacy_codec(V1)
    # the kind is set but names another type: converting into it fails
    with pytest.raises(KCodecError, match="ExternalInternalSame.*TestType1"):
        decode_into(codec, b'{"myVersionKey":"v1","myKindKey":"ExternalInternalSame"}', TestType1())
    into = TestType1(a="kept")
    decode_into(codec, b"", into)
    assert into == TestType1(a="kept")


def test_decode_into_rejects_other_object() -> None:
    class Passthrough:
        def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> Any:
            return TestType1(), V1.with_kind("TestType1")

    with pytest.raises(DecodeError, match=r"^unable to decode /v1, Kind=TestType1 into \*_types\.TestType1$"):
        decode_into(Passthrough(), b"{}", TestType1())


@pytest.mark.parametrize("data,defaults,ok", [
    (b"", GroupVersionKind(kind="ExternalInternalSame"), False),
    (b'{"myVersionKey":"v1"}', GroupVersionKind(kind="ExternalInternalSame"), True),
    (b'{"myKindKey":"ExternalInternalSame"}', GroupVersionKind(version="v1"), True),
    (b"", GroupVersionKind("", "v1", "ExternalInternalSame"), True),
    (b"", None, False),
])
def test_legacy_codec_with_defaults(data: bytes, defaults: GroupVersionKind | None, ok: bool) -> None:
    codec = weird_factory().legacy_codec(V1)
    if not ok:
        with pytest.raises(KCodecError):
            codec.decode(data, defaults)
        return
    obj, gvk = codec.decode(data, defaults)
    assert type(obj) is ExternalInternalSame
    assert gvk == V1.with_kind("ExternalInternalSame")


def test_legacy_codec_without_versions_cannot_encode() -> None:
    codec = weird_factory().legacy_codec()
    with pytest.raises(NotRegisteredError, match='is not suitable for converting to "\\[\\]"'):
        encode(codec, TestType1())
    # but it decodes to the internal version
    assert decode(codec, b'{"myVersionKey":"v1","myKindKey":"TestType1","A":"x"}') == TestType1(a="x")


def test_universal_deserializer_keeps_serialized_version() -> None:
    cf = weird_factory()
    d = cf.universal_deserializer()
    assert isinstance(d, RecognizerDecoder)
    obj, gvk = d.decode(b'{"myVersionKey":"v2","myKindKey":"TestType1","A":"x"}')
    assert obj == ExternalTestType1(api_version="v2", object_kind="TestType1", a="x")
    assert gvk == V2.with_kind("TestType1")
    # YAML too, and without defaulting
    s = codec_test_scheme()
    s.add_type_defaulting_func(ExternalTestType1, lambda o: setattr(o, "b", 42))
    obj, _ = weird_factory(s).universal_deserializer().decode(b"myVersionKey: v1\nmyKindKey: TestType1\nA: why\n")
    assert obj.a == "why" and obj.b == 0


def test_universal_decoder_converts_and_defaults() -> None:
    s = codec_test_scheme()
    s.add_type_defaulting_func(ExternalTestType1, lambda o: setattr(o, "b", 42))
    cf = weird_factory(s)
    data = b'{"myVersionKey":"v1","myKindKey":"TestType1","A":"x"}'
    obj, gvk = cf.universal_decoder().decode(data)
    assert obj == TestType1(a="x", b=42)
    assert gvk == V1.with_kind("TestType1")
    obj, _ = cf.universal_decoder(V2).decode(data)
    assert obj == ExternalTestType1(api_version="v2", object_kind="TestType1", a="x", b=42)
    obj, _ = cf.universal_decoder(V1).decode(b"myVersionKey: v1\nmyKindKey: TestType1\nA: why\n")
    assert obj == ExternalTestType1(api_version="v1", object_kind="TestType1", a="why", b=42)


def test_universal_decoder_rejects_groups_outside_the_list() -> None:
    cf = weird_factory()
    decoder = cf.universal_decoder(GroupVersion("other", "v1"))
    with pytest.raises(NotRegisteredError, match='^_types.ExternalTestType1 is not suitable for converting to '
                                                 '"\\[other/v1\\]" in scheme "codec-test"$'):
        decoder.decode(b'{"myVersionKey":"v1","myKindKey":"TestType1"}')
    # unversioned types pass
    obj, _ = decoder.decode(b'{"myVersionKey":"v1","myKindKey":"UnversionedType","A":"u"}')
    assert obj == UnversionedType(api_version="v1", object_kind="UnversionedType", a="u")


def test_universal_decoder_never_encodes() -> None:
    with pytest.raises(KCodecError):
        weird_factory().universal_decoder().encode(TestType1())


def test_codec_for_versions_defaults() -> None:
    cf = weird_factory()
    codec = cf.codec_for_versions(json_of(cf), cf.universal_deserializer())
    assert codec.identifier().startswith('{"encodeGV":"disabled",')
    # disabled encoding converts nothing, so a versioned type cannot be written
    with pytest.raises(NotRegisteredError, match="not suitable"):
        codec.encode(TestType1())
    # an unversioned one is written in its own version
    assert codec.encode(UnversionedType(a="u")) == b'{"myVersionKey":"v1","myKindKey":"UnversionedType","A":"u"}\n'
    assert codec.decode(b'{"myVersionKey":"v1","myKindKey":"TestType1"}')[0] == TestType1()
    dec = cf.decoder_to_version(json_of(cf), V2)
    assert dec.decode(b'{"myVersionKey":"v1","myKindKey":"TestType1"}')[0] == ExternalTestType1(
        api_version="v2", object_kind="TestType1")


def test_without_conversion() -> None:
    s = Scheme("direct")
    s.add_known_types(INTERNAL, TestType1)
    s.add_known_types(V1, ExternalTestType1)
    register_conversions(s)
    cf = weird_factory(s)
    df = cf.without_conversion()
    assert isinstance(df, WithoutConversionCodecFactory)
    assert df.supported_media_types() == cf.supported_media_types()
    assert df.universal_deserializer() is cf.universal_deserializer()
    ignored = parse_group_version("ignored group/ignored version")
    enc = df.encoder_for_version(json_of(cf), ignored)
    dec = df.decoder_to_version(json_of(cf), ignored)
    assert isinstance(enc, WithVersionEncoder) and isinstance(dec, WithoutVersionDecoder)
    obj = ExternalTestType1()
    out = encode(enc, obj)
    assert out == b'{"myVersionKey":"v1","myKindKey":"ExternalTestType1"}\n'
    assert obj == ExternalTestType1()
    decoded, gvk = dec.decode(out)
    assert decoded == ExternalTestType1()
    assert gvk == V1.with_kind("ExternalTestType1")
    # an internal object is not converted, only labelled with its own kind
    assert encode(enc, TestType1(a="i")) == b'{"myVersionKey":"__internal","myKindKey":"TestType1","A":"i"}\n'
    # the other methods are the converting ones of the wrapped factory
    assert isinstance(df.legacy_codec(V1), VersioningCodec)
    converted, _ = df.universal_decoder(V1).decode(b'{"myVersionKey":"v1","myKindKey":"ExternalTestType1","A":"c"}')
    assert converted == ExternalTestType1(api_version="v1", object_kind="ExternalTestType1", a="c")
    with pytest.raises(NotRegisteredError, match='no kind "TestType1" is registered for version "v1"'):
        df.legacy_codec(V1).encode(TestType1(a="c"))


# ----------------------------------------------------------------------- sparse versions


class FakeV1Obj(Object):
    metadata: ObjectMeta = field(0, "", inline=True)


class FakeV2DifferentObj(Object):
    metadata: ObjectMeta = field(0, "", inline=True)


def test_sparse_versions() -> None:
    v1 = GroupVersion("mygroup", "v1")
    v2 = GroupVersion("mygroup", "v2")
    s = Scheme("sparse")
    s.add_known_types(v1, FakeV1Obj)
    s.add_known_types(v2, FakeV2DifferentObj)
    cf = CodecFactory(s)
    encoder = cf.legacy_codec(v2, v1)
    decoder = cf.universal_decoder(v2, v1)
    src1 = FakeV1Obj(metadata=ObjectMeta(name="foo"))
    src2 = FakeV2DifferentObj(metadata=ObjectMeta(name="foo"))
    b1 = encode(encoder, src1)
    b2 = encode(encoder, src2)
    assert b1 == b'{"kind":"FakeV1Obj","apiVersion":"mygroup/v1","name":"foo"}\n'
    assert b2 == b'{"kind":"FakeV2DifferentObj","apiVersion":"mygroup/v2","name":"foo"}\n'
    d1 = decode(decoder, b1)
    d2 = decode(decoder, b2)
    assert type(d1) is FakeV1Obj and type(d2) is FakeV2DifferentObj
    assert d1.group_version_kind() == v1.with_kind("FakeV1Obj")
    d1.set_group_version_kind(GroupVersionKind())
    d2.set_group_version_kind(GroupVersionKind())
    assert d1 == src1 and d2 == src2


# ----------------------------------------------------------------------- built-in kinds, every format


@pytest.mark.parametrize("name,gv", [("apps.v1.Deployment", GroupVersion("apps", "v1")),
                                     ("core.v1.Pod", GroupVersion("", "v1"))])
def test_builtin_kinds_through_factory(name: str, gv: GroupVersion) -> None:
    from kcodec.api import codecs

    folder = fixtures_dir()
    raw = {ext: (folder / f"{name}.{ext}").read_bytes() for ext in ("json", "yaml", "pb")}
    decoder = codecs.universal_decoder(gv)
    objs = {ext: decoder.decode(data) for ext, data in raw.items()}
    kind = name.rsplit(".", 1)[1]
    for obj, gvk in objs.values():
        assert gvk == gv.with_kind(kind)
        assert obj.group_version_kind() == gv.with_kind(kind)
    assert objs["json"][0] == objs["yaml"][0] == objs["pb"][0]
    obj = objs["json"][0]
    compact = json.dumps(json.loads(raw["json"]), separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
    assert codecs.legacy_codec(gv).encode(obj) == compact
    infos = codecs.supported_media_types()
    for media_type, ext in ((PROTOBUF, "pb"), (YAML, "yaml")):
        serializer = serializer_info_for_media_type(infos, media_type).serializer
        assert codecs.encoder_for_version(serializer, gv).encode(obj) == raw[ext]
    assert codecs.encoder_for_version(infos[0].pretty_serializer, gv).encode(obj) == raw["json"]
