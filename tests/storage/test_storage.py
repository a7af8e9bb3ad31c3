"""The storage codec of kube-apiserver (apiserver pkg/server/storage/storage_codec.go NewStorageCodec) and Go's mime.ParseMediaType.

The codec picks the serializer of the storage media type, encodes to the storage version
through a multi-group versioner (storage group and memory group accepted), and decodes
with [chosen serializer, universal deserializer, base64 + universal] to the memory version
through a *coercing* multi-group versioner (current apiserver; the 2018 seed used the plain
one, which cannot read data left in a group the resource has moved out of).
"""
from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest

from _types import (
    ExtensionA,
    ExternalComplex,
    ExternalSimple,
    InternalComplex,
    InternalSimple,
    register_conversions,
)
from conftest import fixtures_dir
from kcodec.conversion import Scope, copy_fields
from kcodec.errors import DecodeError, EncodeError, KCodecError, NotRegisteredError
from kcodec.model import Int32, field
from kcodec.runtime import Base64Serializer, Object, Scheme
from kcodec.schema import APIVersionInternal, GroupVersion, GroupVersionKind, MultiGroupVersioner
from kcodec.serializer import CodecFactory, serializer_info_for_media_type
from kcodec.serializer.recognizer import RecognizerDecoder
from kcodec.storage import StorageCodec, StorageCodecConfig, new_storage_codec, parse_media_type

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
APPS_V1 = GroupVersion("apps", "v1")


# ----------------------------------------------------------------------- test kinds


class InternalWidget(Object):
    """A protobuf-capable internal kind."""

    name: str = field(1, "name", omitempty=True)
    replicas: Int32 = field(2, "replicas", omitempty=True)


class ExternalWidget(Object):
    """Its external form (same wire shape)."""

    name: str = field(1, "name", omitempty=True)
    replicas: Int32 = field(2, "replicas", omitempty=True)


MEM = GroupVersion("test.group", APIVersionInternal)
STORE = GroupVersion("test.group", "v1")


def widget_scheme() -> Scheme:
    s = Scheme("widget-scheme")
    s.add_known_type_with_name(MEM.with_kind("Widget"), InternalWidget)
    s.add_known_type_with_name(STORE.with_kind("Widget"), ExternalWidget)
    s.add_known_type_with_name(GroupVersion("test.group", "v2").with_kind("Widget"), ExternalWidget)

    def copy(src: Any, dst: Any, scope: Scope) -> None:
        copy_fields(src, dst, scope)

    s.add_conversion_func(InternalWidget, ExternalWidget, copy)
    s.add_conversion_func(ExternalWidget, InternalWidget, copy)
    return s


def widget_codec(media_type: str = JSON, **kw: Any) -> StorageCodec:
    return new_storage_codec(StorageCodecConfig(media_type, CodecFactory(widget_scheme()), STORE, MEM, **kw))


STORED_JSON = b'{"kind":"Widget","apiVersion":"test.group/v1","name":"w","replicas":3}\n'
STORED_PB = (b"k8s\x00"
             b"\x0a\x17\x0a\x0dtest.group/v1\x12\x06Widget"
             b"\x12\x05\x0a\x01w\x10\x03"
             b"\x1a\x00\x22\x00")


# ----------------------------------------------------------------------- internal memory version


def test_encode_internal_to_storage_version_json() -> None:
    codec = widget_codec(JSON)
    obj = InternalWidget(name="w", replicas=3)
    assert codec.encode(obj) == STORED_JSON
    assert obj == InternalWidget(name="w", replicas=3)
    buf = io.BytesIO()
    codec.encode(obj, buf)
    assert buf.getvalue() == STORED_JSON


def test_encode_internal_to_storage_version_protobuf() -> None:
    assert widget_codec(PROTOBUF).encode(InternalWidget(name="w", replicas=3)) == STORED_PB


def test_encode_internal_to_storage_version_yaml() -> None:
    assert widget_codec(YAML).encode(InternalWidget(name="w", replicas=3)) == (
        b"apiVersion: test.group/v1\nkind: Widget\nname: w\nreplicas: 3\n")


@pytest.mark.parametrize("media_type", [JSON, YAML, PROTOBUF])
@pytest.mark.parametrize("stored", [
    STORED_JSON,
    b'{\n  "kind": "Widget",\n  "apiVersion": "test.group/v1",\n  "name": "w",\n  "replicas": 3\n}',
    b"apiVersion: test.group/v1\nkind: Widget\nname: w\nreplicas: 3\n",
    STORED_PB,
    base64.b64encode(STORED_PB),
    base64.b64encode(STORED_JSON),
    # another external version of the same group is read too
    b'{"kind":"Widget","apiVersion":"test.group/v2","name":"w","replicas":3}',
], ids=["json", "pretty-json", "yaml", "protobuf", "base64-protobuf", "base64-json", "other-version"])
def test_decode_any_stored_form_to_memory_version(media_type: str, stored: bytes) -> None:
    obj, gvk = widget_codec(media_type).decode(stored)
    assert type(obj) is InternalWidget
    assert obj == InternalWidget(name="w", replicas=3)
    assert obj.kind == "" and obj.api_version == ""
    assert gvk.kind == "Widget" and gvk.group == "test.group"


def test_decode_into_memory_object() -> None:
    into = InternalWidget()
    obj, gvk = widget_codec().decode(STORED_PB, None, into)
    assert obj is into
    assert into.name == "w" and into.replicas == 3
    assert gvk == STORE.with_kind("Widget")


def test_memory_version_may_be_external() -> None:
    v2 = GroupVersion("test.group", "v2")
    codec = new_storage_codec(StorageCodecConfig(JSON, CodecFactory(widget_scheme()), STORE, v2))
    obj, gvk = codec.decode(STORED_JSON)
    assert obj == ExternalWidget(kind="Widget", api_version="test.group/v2", name="w", replicas=3)
    assert gvk == STORE.with_kind("Widget")
    assert codec.encode(obj) == STORED_JSON


def test_undecodable_data_reports_last_error() -> None:
    codec = widget_codec()
    with pytest.raises(DecodeError, match="illegal base64 data"):
        codec.decode(b"k8s")
    with pytest.raises(KCodecError):
        codec.decode(b'{"kind":"Widget"}')


def test_protobuf_storage_of_kind_without_protobuf_form_fails() -> None:
    s = Scheme("simple")
    s.add_known_type_with_name(MEM.with_kind("Simple"), InternalSimple)
    s.add_known_type_with_name(STORE.with_kind("Simple"), ExternalSimple)
    register_conversions(s)
    codec = new_storage_codec(StorageCodecConfig(PROTOBUF, CodecFactory(s), STORE, MEM))
    with pytest.raises(EncodeError):
        codec.encode(InternalSimple(test_string="x"))
    # JSON written earlier is still read
    obj, _ = codec.decode(b'{"kind":"Simple","apiVersion":"test.group/v1","testString":"x"}')
    assert obj == InternalSimple(test_string="x")


# ----------------------------------------------------------------------- built-in kinds


@pytest.mark.parametrize("media_type", [JSON, PROTOBUF, YAML])
def test_builtin_deployment(media_type: str) -> None:
    from kcodec.api import codecs

    folder = fixtures_dir()
    raw = {ext: (folder / f"apps.v1.Deployment.{ext}").read_bytes() for ext in ("json", "yaml", "pb")}
    codec = new_storage_codec(StorageCodecConfig(media_type, codecs, APPS_V1, APPS_V1))
    expected, _ = codecs.universal_deserializer().decode(raw["json"])
    written = {
        JSON: json.dumps(json.loads(raw["json"]), separators=(",", ":"), ensure_ascii=False).encode() + b"\n",
        PROTOBUF: raw["pb"],
        YAML: raw["yaml"],
    }[media_type]
    assert codec.encode(expected) == written
    for data in (raw["json"], raw["yaml"], raw["pb"], base64.b64encode(raw["pb"]), written):
        obj, gvk = codec.decode(data)
        assert gvk == APPS_V1.with_kind("Deployment")
        assert obj == expected


def test_builtin_encode_relabels_unlabelled_object() -> None:
    from kcodec.api import codecs
    from kcodec.api.core.v1 import ConfigMap
    from kcodec.api.meta.v1 import ObjectMeta

    core = GroupVersion("", "v1")
    codec = new_storage_codec(StorageCodecConfig(JSON, codecs, core, core))
    cm = ConfigMap(metadata=ObjectMeta(name="c"), data={"k": "v"})
    assert codec.encode(cm) == b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"},"data":{"k":"v"}}\n'
    assert cm.kind == "" and cm.api_version == ""


# ----------------------------------------------------------------------- two groups


def two_group_scheme() -> Scheme:
    mem, store, legacy = (GroupVersion("mem.group", APIVersionInternal), GroupVersion("store.group", "v1"),
                          GroupVersion("legacy.group", "v1"))
    s = Scheme("two-groups")
    s.add_known_type_with_name(mem.with_kind("Simple"), InternalSimple)
    s.add_known_type_with_name(store.with_kind("Simple"), ExternalSimple)
    s.add_known_type_with_name(GroupVersion("mem.group", "v1").with_kind("Simple"), ExternalSimple)
    s.add_known_type_with_name(mem.with_kind("Complex"), InternalComplex)
    # Complex was only ever stored in a group the resource has left
    s.add_known_type_with_name(legacy.with_kind("Complex"), ExternalComplex)
    s.add_known_type_with_name(GroupVersion("other.group", "v1").with_kind("A"), ExtensionA)
    register_conversions(s)
    return s


def two_group_codec(media_type: str = JSON) -> StorageCodec:
    return new_storage_codec(StorageCodecConfig(media_type, CodecFactory(two_group_scheme()),
                                                GroupVersion("store.group", "v1"),
                                                GroupVersion("mem.group", APIVersionInternal)))


def test_two_groups_encode_to_storage_group() -> None:
    codec = two_group_codec()
    assert codec.encode(InternalSimple(test_string="x")) == (
        b'{"kind":"Simple","apiVersion":"store.group/v1","testString":"x"}\n')
    # an external object of the memory group is moved to the storage group as well
    assert codec.encode(ExternalSimple(test_string="y")) == (
        b'{"kind":"Simple","apiVersion":"store.group/v1","testString":"y"}\n')


def test_two_groups_decode_to_memory_group() -> None:
    codec = two_group_codec()
    for data in (b'{"kind":"Simple","apiVersion":"store.group/v1","testString":"x"}',
                 b'{"kind":"Simple","apiVersion":"mem.group/v1","testString":"x"}'):
        obj, gvk = codec.decode(data)
        assert obj == InternalSimple(test_string="x")
        assert gvk.kind == "Simple"


def test_two_groups_decode_coerces_third_group() -> None:
    obj, gvk = two_group_codec().decode(b'{"kind":"Complex","apiVersion":"legacy.group/v1","string":"s","int":4}')
    assert obj == InternalComplex(string="s", integer=4)
    assert gvk == GroupVersionKind("legacy.group", "v1", "Complex")


def test_two_groups_encode_errors() -> None:
    codec = two_group_codec()
    # the storage group has no Complex kind
    with pytest.raises(NotRegisteredError, match='no kind "Complex" is registered for version "store.group/v1"'):
        codec.encode(InternalComplex(string="s"))
    # a kind of a group that is neither the storage nor the memory group is refused
    with pytest.raises(NotRegisteredError, match='^_types.ExtensionA is not suitable for converting to '):
        codec.encode(ExtensionA(test_string="a"))


def test_versioners() -> None:
    codec = two_group_codec()
    ev = codec.encode_versioner
    assert isinstance(ev, MultiGroupVersioner)
    assert ev.identifier() == ('{"accepted":".store.group,.mem.group","coerce":"false","name":"multi",'
                               '"target":"store.group/v1"}')
    assert codec.decoder.decode_version.identifier() == (
        '{"accepted":".mem.group,.store.group","coerce":"true","name":"multi","target":"mem.group/__internal"}')
    assert codec.identifier() == (
        '{"encodeGV":"{\\"accepted\\":\\".store.group,.mem.group\\",\\"coerce\\":\\"false\\",\\"name\\":\\"multi\\",'
        '\\"target\\":\\"store.group/v1\\"}","encoder":"{\\"name\\":\\"json\\",\\"pretty\\":\\"false\\",'
        '\\"strict\\":\\"false\\",\\"yaml\\":\\"false\\"}","name":"versioning"}')
    # one group: still a multi-group versioner (two accepted group-kinds of the same group)
    assert widget_codec().encode_versioner.identifier() == (
        '{"accepted":".test.group,.test.group","coerce":"false","name":"multi","target":"test.group/v1"}')
    assert ev.kind_for_group_version_kinds([GroupVersionKind("mem.group", APIVersionInternal, "Simple")]) == \
        GroupVersionKind("store.group", "v1", "Simple")


# ----------------------------------------------------------------------- media types


def test_unknown_media_type() -> None:
    with pytest.raises(KCodecError) as info:
        widget_codec("application/cbor")
    assert str(info.value) == ('unable to find serializer for "application/cbor", supported media types: '
                               "[application/json application/yaml application/vnd.kubernetes.protobuf]")
    # a type without subtype is a valid media type, but no serializer has it
    with pytest.raises(KCodecError, match='^unable to find serializer for "application", supported'):
        widget_codec("application")


@pytest.mark.parametrize("value", ["", "   ", "application/", "/json", "a/b/c", "application/json;", "x y/z",
                                   "text/plain; charset", "text/plain; charset=", "application/json; a=1; a=2",
                                   'text/plain; a="unterminated', "appl\u00e9/json"])
def test_invalid_mime_type(value: str) -> None:
    if value == "application/json;":
        # a trailing semicolon is accepted
        assert widget_codec(value).encode(InternalWidget(name="w", replicas=3)) == STORED_JSON
        return
    with pytest.raises(KCodecError) as info:
        widget_codec(value)
    assert str(info.value) == json.dumps(value, ensure_ascii=False) + " is not a valid mime-type"


def test_media_type_is_case_and_space_insensitive() -> None:
    for value in ("Application/JSON", " application/json ", "application/json; charset=utf-8",
                  'application/json;charset="utf-8"; q=1'):
        assert widget_codec(value).encode(InternalWidget(name="w", replicas=3)) == STORED_JSON


def test_parse_media_type() -> None:
    assert parse_media_type("Text/HTML; Charset=UTF-8") == ("text/html", {"charset": "UTF-8"})
    assert parse_media_type('a/b; x="q \\"s\\" \\\\"; y=z;') == ("a/b", {"x": 'q "s" \\', "y": "z"})
    assert parse_media_type("attachment") == ("attachment", {})
    assert parse_media_type("a/b; x=1; x=1") == ("a/b", {"x": "1"})
    assert parse_media_type('a/b; p="C:\\dir\\f"') == ("a/b", {"p": "C:\\dir\\f"})
    for value, message in (("", "mime: no media type"), ("a b", "mime: expected slash after first token"),
                           ("a/", "mime: expected token after slash"),
                           ("a/b/c", "mime: unexpected content after media subtype"),
                           ("a/b; x", "mime: invalid media parameter"),
                           ("a/b; x=1; x=2", "mime: duplicate parameter name")):
        with pytest.raises(DecodeError, match=f"^{message}$"):
            parse_media_type(value)


# ----------------------------------------------------------------------- decorators


class RecordingEncoder:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seen: list[Any] = []

    def encode(self, obj: Any, stream: Any = None) -> bytes:
        self.seen.append(obj)
        return self.inner.encode(obj, stream)

    def identifier(self) -> str:
        return "recording"


def test_encoder_decorator_wraps_chosen_serializer() -> None:
    factory = CodecFactory(widget_scheme())
    wrapped: list[RecordingEncoder] = []

    def decorate(encoder: Any) -> Any:
        assert encoder is serializer_info_for_media_type(factory.supported_media_types(), PROTOBUF).serializer
        wrapped.append(RecordingEncoder(encoder))
        return wrapped[0]

    codec = new_storage_codec(StorageCodecConfig(PROTOBUF, factory, STORE, MEM, encoder_decorator=decorate))
    assert codec.encode(InternalWidget(name="w", replicas=3)) == STORED_PB
    # the decorated encoder sees the object already converted to the storage version
    assert wrapped[0].seen == [ExternalWidget(kind="Widget", api_version="test.group/v1", name="w", replicas=3)]
    assert codec.identifier() == ('{"encodeGV":"{\\"accepted\\":\\".test.group,.test.group\\",\\"coerce\\":'
                                  '\\"false\\",\\"name\\":\\"multi\\",\\"target\\":\\"test.group/v1\\"}",'
                                  '"encoder":"recording","name":"versioning"}')


def test_decoder_decorator_replaces_decoder_list() -> None:
    factory = CodecFactory(widget_scheme())
    got: list[list[Any]] = []

    def only_chosen(decoders: list[Any]) -> list[Any]:
        got.append(list(decoders))
        return decoders[:1]

    codec = new_storage_codec(StorageCodecConfig(JSON, factory, STORE, MEM, decoder_decorator=only_chosen))
    chosen, universal, b64 = got[0]
    assert chosen is serializer_info_for_media_type(factory.supported_media_types(), JSON).serializer
    assert universal is factory.universal_deserializer()
    assert isinstance(b64, Base64Serializer) and b64.encoder is None and b64.decoder is universal
    assert isinstance(codec.decoder.decoder, RecognizerDecoder)
    assert codec.decoder.decoder.decoders == [chosen]
    assert codec.decode(STORED_JSON)[0] == InternalWidget(name="w", replicas=3)
    # protobuf and base64 are no longer understood
    with pytest.raises(KCodecError):
        codec.decode(STORED_PB)
    with pytest.raises(KCodecError):
        codec.decode(base64.b64encode(STORED_JSON))


def test_decoder_decorator_may_add_decoders() -> None:
    class Legacy:
        def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> Any:
            if not data.startswith(b"legacy:"):
                raise DecodeError("not legacy")
            return ExternalWidget(name=data[7:].decode()), STORE.with_kind("Widget")

    codec = widget_codec(decoder_decorator=lambda decoders: decoders + [Legacy()])
    assert codec.decode(b"legacy:old")[0] == InternalWidget(name="old")
    assert codec.decode(STORED_JSON)[0] == InternalWidget(name="w", replicas=3)


def test_storage_codec_repr_and_parts() -> None:
    codec = widget_codec()
    assert "StorageCodec" in repr(codec)
    assert codec.encoder.encode_version is codec.encode_versioner
    # coercing: a kind of any group is read as the memory version
    assert codec.decoder.decode_version.kind_for_group_version_kinds([GroupVersionKind("x", "v1", "Y")]) == \
        MEM.with_kind("Y")
