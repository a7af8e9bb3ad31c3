"""The versioning codec (Go: k8s.io/apimachinery/pkg/runtime/serializer/versioning/versioning.go; k8s.io/apimachinery/pkg/runtime/scheme.go (Convert), Go: k8s.io/apimachinery/pkg/runtime/embedded.go).

Ports Go's versioning_test.go / versioning_unstructured_test.go (mock serializer, typer and
convertors) and the codec cases of runtime/scheme_test.go and embedded_test.go.

Go's runtime/testing types embed ``runtime.TypeMeta``, whose JSON order is apiVersion before
kind (metav1.TypeMeta, used by ``tests/_types.py``'s Object family, is kind first). The
byte-exact ports below therefore declare their own small ``runtime.TypeMeta`` family.
"""
from __future__ import annotations

import io
from typing import Any

import pytest

from _types import (
    EmbeddedTest,
    EmbeddedTestExternal,
    ObjectTest,
    ObjectTestExternal,
    TestType1,
    register_conversions,
)
from kcodec.conversion import Scope, copy_fields
from kcodec.errors import (
    ConversionError,
    DecodeError,
    EncodeError,
    KCodecError,
    NotRegisteredError,
    StrictDecodingError,
)
from kcodec.model import Struct, field
from kcodec.runtime import (
    DISABLED_GROUP_VERSIONER,
    INTERNAL_GROUP_VERSIONER,
    Scheme,
    Unknown,
    Unstructured,
    UnstructuredList,
    WithVersionEncoder,
    decode,
    decode_into,
    encode,
)
from kcodec.runtime.scheme import convert_object_to_raw_extension, convert_raw_extension_to_object
from kcodec.runtime.types import RawExtension
from kcodec.schema import (
    APIVersionInternal,
    GroupVersion,
    GroupVersionKind,
    GroupVersions,
    from_api_version_and_kind,
)
from kcodec.serializer import CodecFactory, serializer_info_for_media_type
from kcodec.serializer.versioning import (
    UnsafeObjectConvertor,
    VersioningCodec,
    identifier,
    new_codec,
    new_defaulting_codec_for_scheme,
)

INTERNAL_GV = GroupVersion("test.group", APIVersionInternal)
EXTERNAL_GV = GroupVersion("test.group", "testExternal")
JSON_ID = '{"name":"json","pretty":"false","strict":"false","yaml":"false"}'


# ----------------------------------------------------------------------- runtime.TypeMeta family


class RObject(Struct):
    """A kind embedding Go's runtime.TypeMeta (apiVersion first)."""

    api_version: str = field(0, "apiVersion", omitempty=True)
    kind: str = field(0, "kind", omitempty=True)

    def get_object_kind(self) -> RObject:
        return self

    def group_version_kind(self) -> GroupVersionKind:
        return from_api_version_and_kind(self.api_version, self.kind)

    def set_group_version_kind(self, gvk: GroupVersionKind) -> None:
        self.api_version, self.kind = gvk.to_api_version_and_kind()


class InternalSimple(RObject):
    test_string: str = field(0, "testString")


class ExternalSimple(RObject):
    test_string: str = field(0, "testString")


class ExtensionA(RObject):
    test_string: str = field(0, "testString")


class ExtensionB(RObject):
    test_string: str = field(0, "testString")


class InternalExtensionType(RObject):
    extension: Any = field(0, "extension")


class ExternalExtensionType(RObject):
    extension: RawExtension = field(0, "extension")


class InternalOptionalExtensionType(RObject):
    extension: Any = field(0, "extension", omitempty=True)


class ExternalOptionalExtensionType(RObject):
    extension: RawExtension = field(0, "extension", omitempty=True)


def _copy(src: Any, dst: Any, scope: Scope) -> None:
    copy_fields(src, dst, scope)


def _ext_to_raw(src: Any, dst: Any, scope: Scope) -> None:
    ext = RawExtension()
    convert_object_to_raw_extension(src.extension, ext, scope)
    dst.extension = ext


def _raw_to_ext(src: Any, dst: Any, scope: Scope) -> None:
    dst.extension = convert_raw_extension_to_object(src.extension, None, scope)


def _register_r_conversions(s: Scheme) -> None:
    s.add_conversion_func(InternalSimple, ExternalSimple, _copy)
    s.add_conversion_func(ExternalSimple, InternalSimple, _copy)
    for internal, external in ((InternalExtensionType, ExternalExtensionType),
                               (InternalOptionalExtensionType, ExternalOptionalExtensionType)):
        s.add_conversion_func(internal, external, lambda a, b, sc: copy_fields(a, b, sc, {"extension": _ext_to_raw}))
        s.add_conversion_func(external, internal, lambda a, b, sc: copy_fields(a, b, sc, {"extension": _raw_to_ext}))


def _simple_scheme() -> Scheme:
    s = Scheme("simple-scheme")
    s.add_known_type_with_name(INTERNAL_GV.with_kind("Simple"), InternalSimple)
    s.add_known_type_with_name(EXTERNAL_GV.with_kind("Simple"), ExternalSimple)
    _register_r_conversions(s)
    return s


def _encodable(codec: Any, obj: Any) -> Unknown:
    """Go's runtime.NewEncodable: an embedded object written with ``codec``."""
    return Unknown(raw=codec.encode(obj), content_type="application/json")


# ----------------------------------------------------------------------- mocks (versioning_test.go)


class Decodable:
    """testDecodable: its own kind accessor; deep copy returns itself (identity checks)."""

    def __init__(self) -> None:
        self.gvk = GroupVersionKind()

    def get_object_kind(self) -> Decodable:
        return self

    def group_version_kind(self) -> GroupVersionKind:
        return self.gvk

    def set_group_version_kind(self, gvk: GroupVersionKind) -> None:
        self.gvk = gvk

    def deep_copy(self) -> Decodable:
        return self


class NestedDecodable(Decodable):
    """testNestedDecodable: records nested hook calls and raises ``nested_err`` from them."""

    def __init__(self, nested_err: Exception | None = None) -> None:
        super().__init__()
        self.nested_called = False
        self.nested_err = nested_err
        self.nested_codec: Any = None

    def encode_nested_objects(self, encoder: Any) -> None:
        self.nested_called = True
        self.nested_codec = encoder
        if self.nested_err is not None:
            raise self.nested_err

    def decode_nested_objects(self, decoder: Any) -> None:
        self.nested_called = True
        self.nested_codec = decoder
        if self.nested_err is not None:
            raise self.nested_err


class MockSerializer:
    def __init__(self, obj: Any = None, actual: GroupVersionKind | None = None, err: Exception | None = None):
        self.obj = obj
        self.actual = actual
        self.err = err
        self.defaults: Any = None
        self.into: Any = None
        self.encoding_gvk: GroupVersionKind | None = None
        self.encode_calls = 0

    def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> tuple[Any, Any]:
        self.defaults = defaults
        self.into = into
        if self.err is not None:
            raise self.err
        return self.obj, self.actual

    def encode(self, obj: Any, stream: Any = None) -> bytes:
        self.encode_calls += 1
        self.obj = obj
        self.encoding_gvk = obj.get_object_kind().group_version_kind()
        if self.err is not None:
            raise self.err
        if stream is not None:
            stream.write(b"mock")
        return b"mock"

    def identifier(self) -> str:
        return "mock"


class MockTyper:
    def __init__(self, gvks: list[GroupVersionKind] | None = None, unversioned: bool = False,
                 err: Exception | None = None) -> None:
        self.gvks = gvks or []
        self.unversioned = unversioned
        self.err = err

    def object_kinds(self, obj: Any) -> tuple[list[GroupVersionKind], bool]:
        if self.err is not None:
            raise self.err
        return self.gvks, self.unversioned

    def recognizes(self, gvk: GroupVersionKind) -> bool:
        return True


class CheckConvertor:
    """Checks the arguments of the one conversion it expects and answers ``obj``."""

    def __init__(self, obj: Any = None, in_: Any = None, group_version: Any = None, direct_convert: bool = False,
                 err: Exception | None = None) -> None:
        self.obj = obj
        self.in_ = in_
        self.group_version = group_version
        self.direct_convert = direct_convert
        self.err = err

    def convert(self, src: Any, dst: Any, context: Any = None) -> None:
        if not self.direct_convert:
            raise AssertionError("unexpected call to convert")
        assert self.in_ is None or self.in_ is src
        assert self.obj is None or self.obj is dst
        if self.err is not None:
            raise self.err

    def convert_to_version(self, obj: Any, target: Any) -> Any:
        if self.direct_convert:
            raise AssertionError("unexpected call to convert_to_version")
        assert self.in_ is None or self.in_ is obj
        if self.err is not None:
            raise self.err
        assert self.group_version == target, (self.group_version, target)
        return self.obj


class RelabelConvertor:
    """mockConvertor: relabels the object with the versioner's pick, no new object."""

    def convert(self, src: Any, dst: Any, context: Any = None) -> None:
        raise AssertionError("unexpected call to convert")

    def convert_to_version(self, obj: Any, target: Any) -> Any:
        kind = obj.get_object_kind()
        out = target.kind_for_group_version_kinds([kind.group_version_kind()])
        if out is None:
            raise ConversionError("unexpected conversion")
        kind.set_group_version_kind(out)
        return obj


GVK1 = GroupVersionKind("other", "blah", "Test")


# ----------------------------------------------------------------------- decode (mocks)


def test_decode_converts_to_decode_version() -> None:
    d1, d2 = Decodable(), Decodable()
    internal = GroupVersion("other", APIVersionInternal)
    ser = MockSerializer(d1, GVK1)
    codec = new_codec(ser, ser, CheckConvertor(d2, in_=d1, group_version=internal), None, None, None,
                      None, internal, "mock")
    obj, gvk = codec.decode(b"{}")
    assert obj is d2
    assert gvk == GVK1
    assert ser.into is None and ser.defaults is None


def test_decode_nothing_decoded_converts_nothing() -> None:
    internal = GroupVersion("other", APIVersionInternal)
    ser = MockSerializer(None, GVK1)
    codec = new_codec(ser, ser, CheckConvertor(group_version=internal), None, None, None, None, internal)
    assert codec.decode(b"{}") == (None, GVK1)


def test_decode_defaults_are_passed_to_the_decoder() -> None:
    d1, d2 = Decodable(), Decodable()
    force = GroupVersion("force", APIVersionInternal)
    ser = MockSerializer(d1, GVK1)
    codec = new_codec(ser, ser, CheckConvertor(d2, in_=d1, group_version=force), None, None, None, None, force)
    defaults = GroupVersionKind("force", "", "")
    obj, gvk = codec.decode(b"{}", defaults)
    assert obj is d2 and gvk == GVK1
    assert ser.defaults == defaults


def test_decode_into_other_object_uses_direct_convert() -> None:
    d1, d3 = Decodable(), Decodable()
    ser = MockSerializer(d1, GVK1)
    codec = new_codec(ser, ser, CheckConvertor(d3, in_=d1, direct_convert=True), None, None, None, None, None)
    obj, gvk = codec.decode(b"{}", None, d3)
    assert obj is d3 and gvk == GVK1
    assert ser.into is d3


def test_decode_into_same_version_keeps_object() -> None:
    d1 = Decodable()
    versions = GroupVersions([GVK1.group_version()])
    ser = MockSerializer(d1, GVK1)
    codec = new_codec(ser, ser, CheckConvertor(d1, in_=d1, group_version=versions), None, None, None, None,
                      versions)
    obj, gvk = codec.decode(b"{}")
    assert obj is d1 and gvk == GVK1


def test_decode_into_returned_object_skips_conversion() -> None:
    d1 = Decodable()
    ser = MockSerializer(d1, GVK1)
    codec = new_codec(ser, ser, CheckConvertor(err=AssertionError("no conversion expected")), None, None, None,
                      None, INTERNAL_GROUP_VERSIONER)
    assert codec.decode(b"{}", None, d1) == (d1, GVK1)


def test_decode_defaulter_runs_before_conversion() -> None:
    d1, d2 = Decodable(), Decodable()
    seen: list[Any] = []

    class Defaulter:
        def default(self, obj: Any) -> None:
            seen.append(obj)

    internal = GroupVersion("other", APIVersionInternal)
    ser = MockSerializer(d1, GVK1)
    codec = new_codec(ser, ser, CheckConvertor(d2, in_=d1, group_version=internal), None, None, Defaulter(),
                      None, internal)
    assert codec.decode(b"{}")[0] is d2
    codec.decode(b"{}", None, d1)
    assert seen == [d1, d1]


def test_decode_error_is_raised() -> None:
    ser = MockSerializer(err=DecodeError("boom"))
    codec = new_codec(ser, ser, CheckConvertor(), None, None, None, None, INTERNAL_GROUP_VERSIONER)
    with pytest.raises(DecodeError, match="^boom$"):
        codec.decode(b"{}")


def test_nested_decode_error_is_raised() -> None:
    n = NestedDecodable(DecodeError("unable to decode"))
    codec = new_codec(None, MockSerializer(n), None, None, None, None, None, None, "TestNestedDecode")
    with pytest.raises(DecodeError) as info:
        codec.decode(b"{}", None, n)
    assert info.value is n.nested_err
    assert n.nested_called


def test_nested_decode_strict_error_keeps_object() -> None:
    n = NestedDecodable(StrictDecodingError(["duplicate field"]))
    codec = new_codec(None, MockSerializer(n), None, None, None, None, None, None, "TestNestedDecode")
    with pytest.raises(StrictDecodingError) as info:
        codec.decode(b"{}", None, n)
    assert info.value.errors == ["duplicate field"]
    assert info.value.obj is n
    assert n.nested_called


def test_nested_decoder_drops_kinds() -> None:
    inner = Decodable()
    n = NestedDecodable()
    codec = new_codec(None, MockSerializer(n), None, None, None, None, None, None)
    codec.decode(b"{}", None, n)
    inner.set_group_version_kind(GVK1)
    n.nested_codec.decoder.obj = inner
    n.nested_codec.decoder.actual = GVK1
    obj, gvk = n.nested_codec.decode(b"{}")
    assert obj is inner and gvk == GVK1
    assert inner.group_version_kind() == GroupVersionKind()


def test_strict_errors_of_decoder_and_nested_objects_are_aggregated() -> None:
    n = NestedDecodable(StrictDecodingError(['unknown field "b"']))
    out = Decodable()
    ser = MockSerializer(err=StrictDecodingError(['duplicate field "a"'], n, GVK1))
    internal = GroupVersion("other", APIVersionInternal)
    codec = new_codec(ser, ser, CheckConvertor(out, in_=n, group_version=internal), None, None, None, None,
                      internal)
    with pytest.raises(StrictDecodingError) as info:
        codec.decode(b"{}")
    err = info.value
    assert str(err) == 'strict decoding error: duplicate field "a", unknown field "b"'
    assert err.errors == ['duplicate field "a"', 'unknown field "b"']
    assert err.obj is out
    assert err.gvk == GVK1


def test_strict_error_without_object_is_raised_unchanged() -> None:
    strict = StrictDecodingError(["bad"])
    ser = MockSerializer(err=strict)
    codec = new_codec(ser, ser, CheckConvertor(), None, None, None, None, INTERNAL_GROUP_VERSIONER)
    with pytest.raises(StrictDecodingError) as info:
        codec.decode(b"{}")
    assert info.value is strict


def test_codec_without_decoder_or_encoder() -> None:
    codec = new_codec(None, None, None, None, None, None, None, None)
    with pytest.raises(DecodeError):
        codec.decode(b"{}")
    with pytest.raises(EncodeError):
        codec.encode(Decodable())


# ----------------------------------------------------------------------- encode (mocks)


def test_nested_encode_uses_converted_object() -> None:
    n = NestedDecodable(EncodeError("unable to decode"))
    n2 = NestedDecodable(EncodeError("unable to decode 2"))
    codec = new_codec(MockSerializer(n), None, CheckConvertor(n2, group_version=GroupVersion("other", "")),
                      None, MockTyper([GroupVersionKind(kind="test")]), None, GroupVersion("other", ""), None,
                      "TestNestedEncode")
    with pytest.raises(EncodeError) as info:
        codec.encode(n)
    assert info.value is n2.nested_err
    assert not n.nested_called and n2.nested_called
    assert isinstance(n2.nested_codec, WithVersionEncoder)
    assert n2.nested_codec.version == GroupVersion("other", "")


def test_nested_encode_error_restores_kind() -> None:
    gvk1 = GroupVersionKind("other", "v1", "test")
    gvk2 = GroupVersionKind("other", "v2", "test")
    n = NestedDecodable(EncodeError("unable to encode"))
    n.set_group_version_kind(gvk1)
    codec = new_codec(MockSerializer(n), None, RelabelConvertor(), None, MockTyper([gvk1, gvk2]), None,
                      GroupVersion("other", "v2"), None, "TestNestedEncodeError")
    with pytest.raises(EncodeError) as info:
        codec.encode(n)
    assert info.value is n.nested_err
    assert n.group_version_kind() == gvk1


def test_encode_error_restores_kind() -> None:
    gvk1 = GroupVersionKind("other", "v1", "test")
    obj = Decodable()
    obj.set_group_version_kind(gvk1)
    ser = MockSerializer(err=EncodeError("write failed"))
    codec = new_codec(ser, None, RelabelConvertor(), None, MockTyper([gvk1]), None, GroupVersion("other", "v2"),
                      None)
    with pytest.raises(EncodeError, match="write failed"):
        codec.encode(obj)
    assert ser.encoding_gvk == GroupVersionKind("other", "v2", "test")
    assert obj.group_version_kind() == gvk1


def test_typer_error_is_raised() -> None:
    ser = MockSerializer()
    codec = new_codec(ser, None, RelabelConvertor(), None, MockTyper(err=NotRegisteredError("s", type=Decodable)),
                      None, GroupVersion("other", "v2"), None)
    with pytest.raises(NotRegisteredError):
        codec.encode(Decodable())
    assert ser.encode_calls == 0


def test_unversioned_or_unconverting_encode_labels_with_first_kind() -> None:
    gvks = [GroupVersionKind("a", "v1", "K"), GroupVersionKind("a", "v2", "K")]
    for version, unversioned in ((None, False), (GroupVersion("a", "v2"), True)):
        obj = NestedDecodable()
        ser = MockSerializer()
        codec = new_codec(ser, None, CheckConvertor(err=AssertionError("no conversion expected")), None,
                          MockTyper(gvks, unversioned), None, version, None)
        assert codec.encode(obj) == b"mock"
        assert ser.encoding_gvk == gvks[0]
        assert obj.group_version_kind() == GroupVersionKind()
        assert obj.nested_called
        assert isinstance(obj.nested_codec, WithVersionEncoder) and obj.nested_codec.version is None


def test_encode_unknown_passes_through() -> None:
    unk = Unknown(api_version="v9", kind="Whatever", raw=b'{"a":1}', content_type="application/json")
    ser = MockSerializer()
    codec = new_codec(ser, None, CheckConvertor(err=AssertionError("no conversion")), None,
                      MockTyper(err=AssertionError("no typing")), None, GroupVersion("other", "v1"), None)
    codec.encode(unk)
    assert ser.obj is unk
    assert ser.encoding_gvk == GroupVersionKind("", "v9", "Whatever")


def test_encode_writes_to_stream() -> None:
    ser = MockSerializer()
    codec = new_codec(ser, None, RelabelConvertor(), None, MockTyper([GVK1]), None, GVK1.group_version(), None)
    buf = io.BytesIO()
    obj = Decodable()
    obj.set_group_version_kind(GVK1)
    assert codec.encode(obj, buf) == b"mock"
    assert buf.getvalue() == b"mock"


# ----------------------------------------------------------------------- CacheableObject


class MockCacheableObject:
    """runtimetesting.MockCacheableObject: records the identifiers it is asked to encode for."""

    def __init__(self, run_encode: bool, return_self: bool = False, result: bytes = b"",
                 error: Exception | None = None) -> None:
        self.gvk = GroupVersionKind("group", "version1", "MockCacheableObject")
        self.run_encode = run_encode
        self.return_self = return_self
        self.result = result
        self.error = error
        self.intercepted: list[str] = []

    def get_object_kind(self) -> MockCacheableObject:
        return self

    def group_version_kind(self) -> GroupVersionKind:
        return self.gvk

    def set_group_version_kind(self, gvk: GroupVersionKind) -> None:
        self.gvk = gvk

    def cache_encode(self, ident: str, encode_fn: Any, stream: Any) -> bytes:
        self.intercepted.append(ident)
        if self.run_encode:
            return encode_fn(self.get_object(), stream)
        if stream is not None:
            stream.write(self.result)
        if self.error is not None:
            raise self.error
        return self.result

    def get_object(self) -> Any:
        if self.return_self:
            return self
        inner = Decodable()
        inner.set_group_version_kind(GroupVersionKind("group", "version", "noncacheableTestObject"))
        return inner


@pytest.mark.parametrize("case", ["delegate", "delegate return self", "cached success", "cached failure"])
def test_cacheable_object(case: str) -> None:
    gvk1 = GroupVersionKind("group", "version1", "MockCacheableObject")
    gvk2 = GroupVersionKind("group", "version2", "MockCacheableObject")
    ser = MockSerializer()
    codec = new_codec(ser, ser, RelabelConvertor(), None, MockTyper([gvk1, gvk2]), None,
                      gvk1.group_version(), gvk2.group_version(), "TestCacheableObject")
    obj = {
        "delegate": lambda: MockCacheableObject(True),
        "delegate return self": lambda: MockCacheableObject(True, return_self=True),
        "cached success": lambda: MockCacheableObject(False, result=b"result"),
        "cached failure": lambda: MockCacheableObject(False, error=EncodeError("encoding error")),
    }[case]()
    buf = io.BytesIO()
    if case == "cached failure":
        with pytest.raises(EncodeError, match="encoding error"):
            codec.encode(obj, buf)
    else:
        codec.encode(obj, buf)
    assert obj.intercepted == [codec.identifier()]
    assert buf.getvalue() == (b"mock" if obj.run_encode else obj.result)
    if case == "delegate return self":
        assert ser.obj is obj
    elif case == "delegate":
        assert isinstance(ser.obj, Decodable)
    else:
        assert ser.encode_calls == 0


# ----------------------------------------------------------------------- unstructured (mocks)


def _u(gvk: GroupVersionKind) -> Unstructured:
    u = Unstructured({})
    u.set_group_version_kind(gvk)
    return u


def _ul(gvk: GroupVersionKind) -> UnstructuredList:
    u = UnstructuredList()
    u.set_group_version_kind(gvk)
    return u


V1 = GroupVersionKind("crispy", "v1", "Noxu")
V2 = GroupVersionKind("crispy", "v2", "Noxu")
ELSE = GroupVersionKind("crispy2", "else", "Noxu")
NOXU_INTERNAL = GroupVersionKind("crispy", APIVersionInternal, "Noxu")


def test_encode_unstructured_converts_to_other_version() -> None:
    v1u, v2u = _u(V1), _u(V2)
    ser = MockSerializer()
    codec = new_codec(ser, ser, CheckConvertor(v2u, group_version=V2.group_version()), None, MockTyper([V1]),
                      None, V2.group_version(), None, "noxu-scheme")
    codec.encode(v1u)
    assert ser.obj is v2u


def test_encode_unstructured_in_target_version_bypasses_typer_and_convertor() -> None:
    v1u = _u(V1)
    ser = MockSerializer()
    codec = new_codec(ser, ser, CheckConvertor(err=AssertionError("unexpected conversion")), None,
                      MockTyper(err=AssertionError("unexpected typer call")), None, V1.group_version(), None,
                      "noxu-scheme")
    codec.encode(v1u)
    assert ser.obj is v1u


def test_encode_unstructured_without_version_is_written_as_is() -> None:
    u = Unstructured({"kind": "Noxu", "spec": {}})
    ser = MockSerializer()
    codec = new_codec(ser, ser, CheckConvertor(err=AssertionError("unexpected conversion")), None,
                      MockTyper(err=AssertionError("unexpected typer call")), None, V1.group_version(), None)
    codec.encode(u)
    assert ser.obj is u


def test_encode_unstructured_of_other_group_is_not_registered() -> None:
    ser = MockSerializer()
    codec = new_codec(ser, ser, None, None, None, None, V1.group_version(), None, "noxu-scheme")
    with pytest.raises(NotRegisteredError) as info:
        codec.encode(_u(ELSE))
    err = info.value
    assert err.gvk == ELSE and err.target == V1.group_version()
    assert str(err) == '"crispy2/else" is not suitable for converting to "crispy/v1" in scheme "noxu-scheme"'
    assert ser.encode_calls == 0


def test_encode_unstructured_list_always_goes_through_conversion() -> None:
    lst = _ul(ELSE)
    out = _ul(V1)
    ser = MockSerializer()
    codec = new_codec(ser, ser, CheckConvertor(out, in_=lst, group_version=ELSE.group_version()), None,
                      MockTyper([ELSE]), None, ELSE.group_version(), None)
    codec.encode(lst)
    assert ser.obj is out


def test_encode_unstructured_typer_error_fails() -> None:
    codec = new_codec(MockSerializer(), None, None, None, MockTyper(err=NotRegisteredError("s", gvk=V1)), None,
                      V1.group_version(), None)
    lst = _ul(ELSE)
    with pytest.raises(NotRegisteredError):
        codec.encode(lst)


def test_encode_map_backed_objects_are_unstructured() -> None:
    from _types import TestUnstructured

    u = TestUnstructured({"apiVersion": "crispy/v1", "kind": "Noxu"})
    ser = MockSerializer()
    codec = new_codec(ser, ser, CheckConvertor(err=AssertionError("unexpected conversion")), None,
                      MockTyper(err=AssertionError("unexpected typer call")), None, V1.group_version(), None)
    codec.encode(u)
    assert ser.obj is u


class UnstructuredNopConvertor:
    """mockUnstructuredNopConvertor: relabels unstructured copies for the kinds it claims."""

    def __init__(self, claiming: list[GroupVersionKind]) -> None:
        self.claiming = claiming

    def _check(self, gvk: GroupVersionKind) -> None:
        if gvk not in self.claiming:
            raise ConversionError(f"unrecognized gvk {gvk}")

    def convert(self, src: Unstructured, dst: Unstructured, context: Any = None) -> None:
        out_gvk = dst.group_version_kind()
        self._check(out_gvk)
        dst.set_unstructured_content(src.deep_copy().unstructured_content())
        dst.set_group_version_kind(out_gvk)

    def convert_to_version(self, obj: Unstructured, target: Any) -> Unstructured:
        out = obj.deep_copy()
        picked = target.kind_for_group_version_kinds([obj.group_version_kind()])
        if picked is None:
            raise ConversionError("attempt to convert to mismatched gv")
        self._check(picked)
        out.set_group_version_kind(picked)
        return out


def test_decode_unstructured_into_other_version() -> None:
    v1u, v2u = _u(V1), _u(V2)
    ser = MockSerializer(v1u, V1)
    codec = new_codec(ser, ser, UnstructuredNopConvertor([V1, V2]), None, None, None, None, V2.group_version(),
                      "noxu-scheme")
    obj, gvk = codec.decode(b"{}", None, v2u)
    assert obj is v2u and gvk == V1
    assert obj == _u(V2)
    # the inner decoder got a fresh instance, never the named target
    assert isinstance(ser.into, Unstructured) and ser.into is not v2u
    assert ser.into.unstructured_content() == {}


def test_decode_unstructured_without_into() -> None:
    ser = MockSerializer(_u(V1), V1)
    codec = new_codec(ser, ser, UnstructuredNopConvertor([V1, V2]), None, None, None, None, V2.group_version())
    obj, gvk = codec.decode(b"{}")
    assert obj == _u(V2) and gvk == V1


def test_decode_unstructured_to_unclaimed_internal_version_fails() -> None:
    for into in (_u(NOXU_INTERNAL), None):
        ser = MockSerializer(_u(V1), V1)
        codec = new_codec(ser, ser, UnstructuredNopConvertor([V1, V2]), None, None, None, None,
                          NOXU_INTERNAL.group_version())
        with pytest.raises(ConversionError, match="crispy/__internal, Kind=Noxu"):
            codec.decode(b"{}", None, into)


def test_decode_unstructured_same_object_skips_conversion() -> None:
    v1u = _u(V1)
    ser = MockSerializer(v1u, V1)
    codec = new_codec(ser, ser, CheckConvertor(err=AssertionError("unexpected conversion")), None, None, None,
                      None, NOXU_INTERNAL.group_version())
    # an unstructured target without a group/version is handed to the decoder itself
    empty = Unstructured({})
    ser.obj = empty
    assert codec.decode(b"{}", None, empty) == (empty, V1)
    assert ser.into is empty


def test_decode_unstructured_conversion_error_is_raised() -> None:
    v1u = _u(V1)
    ser = MockSerializer(v1u, V1)
    codec = new_codec(ser, ser, CheckConvertor(in_=v1u, group_version=NOXU_INTERNAL.group_version(),
                                               err=ConversionError("no matching decode version")),
                      None, None, None, None, NOXU_INTERNAL.group_version())
    with pytest.raises(ConversionError, match="^no matching decode version$"):
        codec.decode(b"{}")


# ----------------------------------------------------------------------- identifier


def test_identifier() -> None:
    cf = CodecFactory(_simple_scheme())
    assert cf.legacy_codec(EXTERNAL_GV).identifier() == (
        '{"encodeGV":"[test.group/testExternal]","encoder":' + _quoted(JSON_ID) + ',"name":"versioning"}')
    json_s = serializer_info_for_media_type(cf.supported_media_types(), "application/json").serializer
    assert cf.encoder_for_version(json_s, INTERNAL_GROUP_VERSIONER).identifier() == (
        '{"encodeGV":"internal","encoder":' + _quoted(JSON_ID) + ',"name":"versioning"}')
    assert cf.encoder_for_version(json_s, EXTERNAL_GV).identifier() == (
        '{"encodeGV":"test.group/testExternal","encoder":' + _quoted(JSON_ID) + ',"name":"versioning"}')
    assert cf.universal_decoder().identifier() == '{"encodeGV":"disabled","name":"versioning"}'
    assert new_codec(None, None, None, None, None, None, None, None).identifier() == '{"name":"versioning"}'
    assert identifier(GroupVersions([]), MockSerializer()) == '{"encodeGV":"[]","encoder":"mock","name":"versioning"}'
    assert identifier(DISABLED_GROUP_VERSIONER, None) == '{"encodeGV":"disabled","name":"versioning"}'


def test_identifier_escapes_like_go() -> None:
    class Odd:
        def identifier(self) -> str:
            return "<a&b>"

    assert identifier(None, Odd()) == '{"encoder":"\\u003ca\\u0026b\\u003e","name":"versioning"}'


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '\\"') + '"'


# ----------------------------------------------------------------------- real schemes


def test_legacy_codec_simple_roundtrip() -> None:
    s = _simple_scheme()
    codec = CodecFactory(s).legacy_codec(EXTERNAL_GV)
    simple = InternalSimple(test_string="foo")
    data = encode(codec, simple)
    assert data == b'{"apiVersion":"test.group/testExternal","kind":"Simple","testString":"foo"}\n'
    assert simple == InternalSimple(test_string="foo")
    obj, gvk = codec.decode(data)
    assert type(obj) is InternalSimple
    assert obj == InternalSimple(test_string="foo")
    assert gvk == EXTERNAL_GV.with_kind("Simple")

    into = InternalSimple()
    decode_into(codec, data, into)
    # Convert copies TypeMeta as the conversion function does; only conversion to a
    # version clears it.
    assert into == InternalSimple(api_version="test.group/testExternal", kind="Simple", test_string="foo")

    info = serializer_info_for_media_type(CodecFactory(s).supported_media_types(), "application/json")
    assert decode(info.serializer, data) == ExternalSimple(api_version="test.group/testExternal", kind="Simple",
                                                            test_string="foo")


def test_encode_restores_kind_of_input() -> None:
    codec = CodecFactory(_simple_scheme()).legacy_codec(EXTERNAL_GV)
    simple = InternalSimple(api_version="stale/v0", kind="Stale", test_string="x")
    assert encode(codec, simple) == b'{"apiVersion":"test.group/testExternal","kind":"Simple","testString":"x"}\n'
    assert simple.group_version_kind() == GroupVersionKind("stale", "v0", "Stale")
    # the external object is already in the target version: relabelled in place, restored after
    ext = ExternalSimple(test_string="y")
    assert encode(codec, ext) == b'{"apiVersion":"test.group/testExternal","kind":"Simple","testString":"y"}\n'
    assert ext == ExternalSimple(test_string="y")


def test_encode_error_restores_kind_of_input() -> None:
    s = Scheme("t")
    s.add_known_types(GroupVersion("", APIVersionInternal), TestType1)
    codec = CodecFactory(s).encoder_for_version(
        serializer_info_for_media_type(CodecFactory(s).supported_media_types(), "application/json").serializer,
        GroupVersion("", "v3"))
    obj = TestType1(a="x")
    obj.set_group_version_kind(GroupVersionKind("", "v9", "Old"))
    with pytest.raises(NotRegisteredError, match='no kind "TestType1" is registered for version "v3"'):
        codec.encode(obj)
    assert obj.group_version_kind() == GroupVersionKind("", "v9", "Old")


def test_unversioned_types() -> None:
    other = GroupVersion("group", "other")
    s = Scheme("unversioned")
    s.add_unversioned_types(EXTERNAL_GV, InternalSimple)
    s.add_known_type_with_name(INTERNAL_GV.with_kind("Simple"), InternalSimple)
    s.add_known_type_with_name(EXTERNAL_GV.with_kind("Simple"), ExternalSimple)
    s.add_known_type_with_name(other.with_kind("Simple"), ExternalSimple)
    _register_r_conversions(s)
    assert s.is_unversioned(InternalSimple()) == (True, True)
    assert s.object_kinds(InternalSimple())[0][0] == EXTERNAL_GV.with_kind("InternalSimple")

    cf = CodecFactory(s)
    test = InternalSimple(test_string="I'm the same")
    expected = b'{"apiVersion":"test.group/testExternal","kind":"InternalSimple","testString":"I\'m the same"}\n'
    data = encode(cf.legacy_codec(EXTERNAL_GV), test)
    assert data == expected
    obj, gvk = cf.legacy_codec(EXTERNAL_GV).decode(data)
    assert type(obj) is InternalSimple and obj == test
    assert gvk == EXTERNAL_GV.with_kind("InternalSimple")
    # another group: still written in the group/version it was declared unversioned in
    assert encode(cf.legacy_codec(other), test) == expected
    assert test == InternalSimple(test_string="I'm the same")


def _extension_scheme() -> Scheme:
    s = Scheme("extension-scheme")
    s.add_known_type_with_name(INTERNAL_GV.with_kind("ExtensionType"), InternalExtensionType)
    s.add_known_type_with_name(INTERNAL_GV.with_kind("OptionalExtensionType"), InternalOptionalExtensionType)
    s.add_known_type_with_name(EXTERNAL_GV.with_kind("ExtensionType"), ExternalExtensionType)
    s.add_known_type_with_name(EXTERNAL_GV.with_kind("OptionalExtensionType"), ExternalOptionalExtensionType)
    # external first, so the shared classes report the external kind first
    s.add_known_type_with_name(EXTERNAL_GV.with_kind("A"), ExtensionA)
    s.add_known_type_with_name(EXTERNAL_GV.with_kind("B"), ExtensionB)
    s.add_known_type_with_name(INTERNAL_GV.with_kind("A"), ExtensionA)
    s.add_known_type_with_name(INTERNAL_GV.with_kind("B"), ExtensionB)
    _register_r_conversions(s)
    return s


@pytest.mark.parametrize("kind,cls,value", [("A", ExtensionA, "foo"), ("B", ExtensionB, "bar")])
def test_extension_mapping(kind: str, cls: type, value: str) -> None:
    codec = CodecFactory(_extension_scheme()).legacy_codec(EXTERNAL_GV)
    nested = ('{"apiVersion":"test.group/testExternal","kind":"%s","testString":"%s"}' % (kind, value)).encode()
    wire = b'{"apiVersion":"test.group/testExternal","kind":"ExtensionType","extension":' + nested + b"}\n"
    obj = InternalExtensionType(extension=_encodable(codec, cls(test_string=value)))
    assert encode(codec, obj) == wire
    decoded = decode(codec, wire)
    assert type(decoded) is InternalExtensionType
    assert decoded.api_version == "" and decoded.kind == ""
    unk = decoded.extension
    assert isinstance(unk, Unknown)
    assert unk.raw == nested
    assert unk.content_type == "application/json"
    assert unk.api_version == "" and unk.kind == ""
    # the embedded bytes decode to the internal form of the nested kind
    assert decode(codec, unk.raw) == cls(test_string=value)


def test_extension_mapping_nil() -> None:
    codec = CodecFactory(_extension_scheme()).legacy_codec(EXTERNAL_GV)
    wire = b'{"apiVersion":"test.group/testExternal","kind":"ExtensionType","extension":null}\n'
    assert encode(codec, InternalExtensionType(extension=None)) == wire
    assert decode(codec, wire) == InternalExtensionType(extension=None)
    assert decode(codec, b'{"kind":"OptionalExtensionType","apiVersion":"test.group/testExternal"}') == \
        InternalOptionalExtensionType(extension=None)


def test_extension_embedded_live_object_is_written_without_kind() -> None:
    # Without the encodable wrapper nothing labels the embedded object (as in Go).
    codec = CodecFactory(_extension_scheme()).legacy_codec(EXTERNAL_GV)
    obj = InternalExtensionType(extension=ExtensionA(test_string="foo"))
    assert encode(codec, obj) == (
        b'{"apiVersion":"test.group/testExternal","kind":"ExtensionType","extension":{"testString":"foo"}}\n')
    assert obj.extension == ExtensionA(test_string="foo")


def test_decode_empty_raw_extension_as_unknown() -> None:
    external_gv = GroupVersion("test.group", "v1test")
    s = Scheme("embedded")
    s.add_known_types(INTERNAL_GV, ObjectTest)
    s.add_known_type_with_name(external_gv.with_kind("ObjectTest"), ObjectTestExternal)
    register_conversions(s)
    codec = CodecFactory(s).legacy_codec(external_gv)

    obj, gvk = codec.decode(b'{"kind":"ObjectTest","apiVersion":"test.group/v1test","items":[{}]}')
    assert gvk == external_gv.with_kind("ObjectTest")
    item = obj.items[0]
    assert isinstance(item, Unknown)
    assert (item.kind, item.api_version, item.raw, item.content_type) == ("", "", b"{}", "application/json")

    obj, _ = codec.decode(b'{"kind":"ObjectTest","apiVersion":"test.group/v1test",'
                          b'"items":[{"kind":"Other","apiVersion":"v1"}]}')
    item = obj.items[0]
    assert isinstance(item, Unknown)
    assert (item.kind, item.api_version) == ("", "")
    assert item.raw == b'{"kind":"Other","apiVersion":"v1"}'
    assert item.content_type == "application/json"


def test_nested_object_roundtrip() -> None:
    external_gv = GroupVersion("test.group", "v1test")
    s = Scheme("nested")
    s.add_known_types(INTERNAL_GV, EmbeddedTest)
    s.add_known_type_with_name(external_gv.with_kind("EmbeddedTest"), EmbeddedTestExternal)
    register_conversions(s)
    codec = CodecFactory(s).legacy_codec(external_gv)
    inner = EmbeddedTest(id="inner")
    outer = EmbeddedTest(id="outer", object=_encodable(codec, inner))
    wire = encode(codec, outer)
    # (_types' TypeMeta writes kind first; empty non-pointer RawExtensions are written as null)
    assert wire == (b'{"kind":"EmbeddedTest","apiVersion":"test.group/v1test","id":"outer",'
                    b'"object":{"kind":"EmbeddedTest","apiVersion":"test.group/v1test","id":"inner",'
                    b'"object":null,"emptyObject":null},"emptyObject":null}\n')
    decoded = decode(codec, wire)
    assert isinstance(decoded.object, Unknown)
    assert decoded.empty_object is None
    decoded.object = decode(codec, decoded.object.raw)
    assert decoded == EmbeddedTest(id="outer", object=EmbeddedTest(id="inner"))


# ----------------------------------------------------------------------- Go: k8s.io/apimachinery/pkg/runtime/scheme.go (Convert) test


def test_conversion_function_call_counts() -> None:
    s = _simple_scheme()
    calls = {"to_external": 0, "to_internal": 0}

    def to_external(src: Any, dst: Any, scope: Scope) -> None:
        copy_fields(src, dst, scope)
        calls["to_external"] += 1

    def to_internal(src: Any, dst: Any, scope: Scope) -> None:
        copy_fields(src, dst, scope)
        calls["to_internal"] += 1

    s.add_conversion_func(InternalSimple, ExternalSimple, to_external)
    s.add_conversion_func(ExternalSimple, InternalSimple, to_internal)
    codec = CodecFactory(s).legacy_codec(EXTERNAL_GV)

    data = encode(codec, InternalSimple(test_string="foo"))
    decode(codec, data)
    decode_into(codec, data, InternalSimple())
    external = ExternalSimple()
    s.convert(InternalSimple(test_string="foo"), external)
    assert external.test_string == "foo"
    u = Unstructured({})
    s.convert(InternalSimple(test_string="foo"), u, EXTERNAL_GV)
    assert u.unstructured_content()["testString"] == "foo"
    assert u.group_version_kind() == EXTERNAL_GV.with_kind("Simple")
    assert calls == {"to_external": 3, "to_internal": 2}


# ----------------------------------------------------------------------- Unknown and unstructured, real scheme


def test_unknown_is_written_verbatim() -> None:
    codec = CodecFactory(_simple_scheme()).legacy_codec(EXTERNAL_GV)
    unk = Unknown(raw=b'{"apiVersion":"x/v1","kind":"Y","z":1}', content_type="application/json")
    assert encode(codec, unk) == b'{"apiVersion":"x/v1","kind":"Y","z":1}\n'


def test_unstructured_in_target_version_is_written_as_is() -> None:
    codec = CodecFactory(_simple_scheme()).legacy_codec(EXTERNAL_GV)
    u = Unstructured({"kind": "Simple", "apiVersion": "test.group/testExternal", "testString": "a", "extra": 1})
    # written untouched, keys sorted: the unregistered field survives
    assert encode(codec, u) == (
        b'{"apiVersion":"test.group/testExternal","extra":1,"kind":"Simple","testString":"a"}\n')
    with pytest.raises(NotRegisteredError, match='"other/v1" is not suitable for converting to '
                                                 '"\\[test.group/testExternal\\]" in scheme "simple-scheme"'):
        encode(codec, Unstructured({"kind": "Simple", "apiVersion": "other/v1"}))


def test_decode_into_unstructured_converts() -> None:
    cf = CodecFactory(_simple_scheme())
    codec = cf.universal_decoder(EXTERNAL_GV)
    data = b'{"apiVersion":"test.group/testExternal","kind":"Simple","testString":"x"}'
    u = Unstructured({"apiVersion": "test.group/testExternal", "kind": "Simple"})
    obj, gvk = codec.decode(data, None, u)
    assert obj is u and gvk == EXTERNAL_GV.with_kind("Simple")
    assert u.unstructured_content() == {"apiVersion": "test.group/testExternal", "kind": "Simple",
                                        "testString": "x"}


# ----------------------------------------------------------------------- strict decoding, real scheme


def test_strict_errors_are_aggregated_and_object_returned() -> None:
    codec = CodecFactory(_simple_scheme(), strict=True).legacy_codec(EXTERNAL_GV)
    data = b'{"apiVersion":"test.group/testExternal","kind":"Simple","testString":"a","testString":"b","x":1}'
    with pytest.raises(StrictDecodingError) as info:
        codec.decode(data)
    err = info.value
    assert sorted(err.errors) == ['duplicate field "testString"', 'unknown field "x"']
    assert str(err).startswith("strict decoding error: ")
    assert err.obj == InternalSimple(test_string="b")
    assert err.gvk == EXTERNAL_GV.with_kind("Simple")
    # the non-strict codec accepts the same data
    assert decode(CodecFactory(_simple_scheme()).legacy_codec(EXTERNAL_GV), data) == InternalSimple(test_string="b")


# ----------------------------------------------------------------------- helpers


def test_unsafe_object_convertor_reuses_object() -> None:
    s = _simple_scheme()
    conv = UnsafeObjectConvertor(s)
    ext = ExternalSimple(test_string="x")
    assert conv.convert_to_version(ext, EXTERNAL_GV) is ext
    assert ext.group_version_kind() == EXTERNAL_GV.with_kind("Simple")
    assert s.convert_to_version(ext, EXTERNAL_GV) is not ext
    out = InternalSimple()
    conv.convert(ext, out)
    assert out.test_string == "x"


def test_new_defaulting_codec_for_scheme_uses_scheme() -> None:
    s = _simple_scheme()
    defaulted: list[Any] = []
    s.add_type_defaulting_func(ExternalSimple, lambda o: defaulted.append(o.test_string))
    cf = CodecFactory(s)
    codec = new_defaulting_codec_for_scheme(s, None, cf.universal_deserializer(), None, INTERNAL_GROUP_VERSIONER)
    assert isinstance(codec, VersioningCodec)
    assert codec.original_scheme_name == "simple-scheme"
    obj, _ = codec.decode(b'{"apiVersion":"test.group/testExternal","kind":"Simple","testString":"d"}')
    assert obj == InternalSimple(test_string="d")
    assert defaulted == ["d"]


def test_errors_are_kcodec_errors() -> None:
    codec = CodecFactory(_simple_scheme()).legacy_codec(EXTERNAL_GV)
    for bad in (b"{", b"[1]", b'{"apiVersion":"a/b/c","kind":"X"}', b"\x00\x01"):
        with pytest.raises(KCodecError):
            codec.decode(bad)
