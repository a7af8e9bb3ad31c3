"""The JSON/YAML serializer: decode order, defaulting, ``into`` handling, strict mode,
encoding, identifiers and data recognition (Go: k8s.io/apimachinery/pkg/runtime/serializer/json/meta.go (SimpleMetaFactory); k8s.io/apimachinery/pkg/runtime/serializer/json/json.go; k8s.io/apimachinery/pkg/runtime/helper.go; k8s.io/apimachinery/pkg/runtime/types.go (Unknown); Go apimachinery)."""
from __future__ import annotations

import io
from typing import Any

import pytest

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
    NotRegisteredError,
    StrictDecodingError,
    is_missing_kind,
    is_missing_version,
    is_strict_decoding_error,
)
from kcodec.model import Int32, Struct, field
from kcodec.runtime.helpers import decode_into
from kcodec.runtime.object import Object
from kcodec.runtime.scheme import Scheme
from kcodec.runtime.types import CONTENT_TYPE_JSON, RawExtension, Unknown
from kcodec.api.meta.unstructured import Unstructured, UnstructuredList
from kcodec.schema import GroupVersion, GroupVersionKind, from_api_version_and_kind
from kcodec.serializer.json import Serializer, gvk_with_defaults
from kcodec.serializer.recognizer import RecognizerDecoder
from kcodec.types import Quantity

import _types

GVK = GroupVersionKind
EMPTY = GVK("", "", "")
TEST_GVK = GVK("other", "blah", "Test")


# ---------------------------------------------------------------------------------- types


class Nested(Struct):
    foo: str = field(1, "foo", omitempty=True)
    bar: int = field(2, "bar", omitempty=True)


class Letters(Struct):
    """Go's case-sensitivity test struct: fields A, B, h, i."""

    a: int = field(0, "A", omitempty=True)
    b: int = field(0, "B", omitempty=True)
    h: int = field(0, "h", omitempty=True)
    i: int = field(0, "i", omitempty=True)


class Decodable(Object):
    value: int = field(0, "value", omitempty=True)
    other: str = field(0, "Other", omitempty=True)
    iface: Any = field(0, "interface", omitempty=True)
    spec: Nested | None = field(0, "spec", omitempty=True)
    items: list[Nested] | None = field(0, "items", omitempty=True)
    nested: dict[str, Nested] | None = field(0, "m", omitempty=True)
    labels: dict[str, str] | None = field(0, "labels", omitempty=True)
    i32: Int32 = field(0, "i32", omitempty=True)
    float_: float = field(0, "float", omitempty=True)
    bool_: bool = field(0, "bool", omitempty=True)
    string: str = field(0, "string", omitempty=True)
    array: list[str] | None = field(0, "array", omitempty=True)
    map_: dict[str, int] | None = field(0, "map", omitempty=True)
    struct: Nested = field(0, "struct")
    letters: Letters | None = field(0, "letters", omitempty=True)
    quantity: Quantity | None = field(0, "quantity", omitempty=True)
    ext: RawExtension = field(0, "ext", omitempty=True)


class Other2(Object):
    value: int = field(0, "value", omitempty=True)


class A3(Object):
    value: int = field(0, "value", omitempty=True)


class Unregistered(Object):
    value: int = field(0, "value", omitempty=True)
    other: str = field(0, "Other", omitempty=True)


class Bare(Object):
    """Only TypeMeta."""


def make_scheme() -> Scheme:
    s = Scheme("json-test")
    s.add_known_type_with_name(TEST_GVK, Decodable)
    s.add_known_type_with_name(GVK("other", "blah", "Other2"), Other2)
    s.add_known_type_with_name(GVK("b1", "c1", "a3"), A3)
    s.add_known_type_with_name(GVK("", "v1", "Foo"), Decodable)
    return s


SCHEME = make_scheme()


def ser(**kw: Any) -> Serializer:
    return Serializer(SCHEME, SCHEME, **kw)


class FakeTyper:
    """A typer answering fixed kinds (or raising), as Go's test typers do."""

    def __init__(self, kinds: list[GroupVersionKind] | None = None, err: Exception | None = None) -> None:
        self.kinds = kinds
        self.err = err

    def object_kinds(self, obj: Any) -> tuple[list[GroupVersionKind], bool]:
        if self.err is not None:
            raise self.err
        return list(self.kinds or ()), False

    def recognizes(self, gvk: GroupVersionKind) -> bool:
        return True


class FakeCreater:
    def __init__(self, obj: Any = None, err: Exception | None = None) -> None:
        self.obj = obj
        self.err = err

    def new(self, gvk: GroupVersionKind) -> Any:
        if self.err is not None:
            raise self.err
        return self.obj


# ----------------------------------------------------------------------------- defaulting


@pytest.mark.parametrize(
    "data, default, want",
    [
        (b"{}", TEST_GVK, TEST_GVK),
        (b'{"apiVersion":"blah"}', TEST_GVK, GVK("", "blah", "Test")),
        (b'{"apiVersion":"other/"}', TEST_GVK, TEST_GVK),
        (b'{"apiVersion":"other1/blah1"}', TEST_GVK, GVK("other1", "blah1", "Test")),
        (b'{"kind":"Test","apiVersion":"other/blah"}', GVK("other1", "blah1", "Test1"), TEST_GVK),
        (b'{"kind":"Foo"}', TEST_GVK, GVK("other", "blah", "Foo")),
        (b'{"apiVersion":"other2/"}', TEST_GVK, GVK("other2", "", "Test")),
    ],
)
def test_defaulting_table(data: bytes, default: GroupVersionKind, want: GroupVersionKind) -> None:
    obj, gvk = ser().decode(data, default, Unknown())
    assert gvk == want
    assert obj.group_version_kind() == want
    assert gvk_with_defaults(ser().meta.interpret(data), default) == want


def test_defaults_win_over_into() -> None:
    # data > explicit defaults > into's registered kind
    into = Decodable()
    obj, gvk = ser().decode(b'{"value":3}', GVK("other", "blah", "Other2"), into)
    assert gvk == GVK("other", "blah", "Other2")
    assert isinstance(obj, Other2) and obj is not into and obj.value == 3


def test_defaulting_from_into_registered_kind() -> None:
    into = Decodable()
    obj, gvk = ser().decode(b'{"value":3}', None, into)
    assert obj is into and gvk == TEST_GVK and into.value == 3
    # Defaulted parts are not written into the object.
    assert into.kind == "" and into.api_version == ""


# ------------------------------------------------------------------------------- into=Unknown


def test_into_unknown_keeps_original_bytes() -> None:
    obj, gvk = ser().decode(b"{}", None, Unknown())
    assert gvk == EMPTY
    assert obj == Unknown(raw=b"{}", content_type=CONTENT_TYPE_JSON)


def test_into_unknown_takes_defaults() -> None:
    data = b'{"test":"object"}'
    into = Unknown()
    obj, gvk = ser().decode(data, TEST_GVK, into)
    assert obj is into and gvk == TEST_GVK
    assert (obj.api_version, obj.kind, obj.raw, obj.content_type) == ("other/blah", "Test", data, "application/json")


def test_into_unknown_yaml_keeps_yaml_and_says_json() -> None:
    data = b"kind: Foo\napiVersion: v1\nvalue: 1\n"
    obj, gvk = ser(yaml=True).decode(data, None, Unknown())
    assert gvk == GVK("", "v1", "Foo")
    assert obj.raw == data
    assert obj.content_type == "application/json"
    assert (obj.api_version, obj.kind) == ("v1", "Foo")


def test_into_unknown_leaves_content_encoding_alone() -> None:
    obj, _ = ser().decode(b'{"kind":"X"}', None, Unknown(content_encoding="gzip", content_type="x/y"))
    assert obj.content_encoding == "gzip"
    assert obj.content_type == CONTENT_TYPE_JSON


# ----------------------------------------------------------------------- into unregistered


def test_into_unregistered_typed_is_filled() -> None:
    into = Unregistered()
    obj, gvk = ser().decode(b'{"kind":"Test","apiVersion":"other/blah","value":1,"Other":"test"}', None, into)
    assert obj is into and gvk == TEST_GVK
    assert into == Unregistered(kind="Test", api_version="other/blah", value=1, other="test")


def test_into_unregistered_needs_no_kind() -> None:
    into = Unregistered(value=9, other="keep")
    obj, gvk = ser().decode(b'{"value":1}', None, into)
    assert obj is into and gvk == EMPTY
    assert into.value == 1 and into.other == "keep"


def test_into_unregistered_strict_error_returns_into() -> None:
    into = Unregistered()
    with pytest.raises(StrictDecodingError) as ei:
        ser(strict=True).decode(b'{"value":1,"nope":2}', None, into)
    assert ei.value.errors == ['unknown field "nope"']
    assert ei.value.obj is into and into.value == 1


# ---------------------------------------------------------------------------- unstructured


def test_unstructured_prior_content_replaced() -> None:
    into = Unstructured({"apiVersion": "into/v1", "kind": "Into", "extra": 1})
    obj, gvk = ser().decode(b'{"kind":"Foo"}', None, into)
    assert obj is into
    assert into.object == {"kind": "Foo"}
    assert gvk == GVK("", "", "Foo")


def test_unstructured_gvk_read_back() -> None:
    obj, gvk = ser().decode(b'{"apiVersion":"apps/v1","kind":"Deployment","spec":{}}', TEST_GVK, Unstructured())
    assert gvk == GVK("apps", "v1", "Deployment")
    assert obj.object == {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {}}


@pytest.mark.parametrize("strict", [False, True])
def test_unstructured_missing_kind(strict: bool) -> None:
    with pytest.raises(MissingKindError) as ei:
        ser(strict=strict).decode(b'{"apiVersion":"foo/v1"}', None, Unstructured())
    assert str(ei.value) == "Object 'Kind' is missing in '{\"apiVersion\":\"foo/v1\"}'"
    assert ei.value.gvk == GVK("foo", "v1", "")


def test_unstructured_numbers() -> None:
    data = b'{"kind":"N","i":1,"f":1.0,"e":1e3,"big":12345678901234567890,"neg":-9223372036854775808}'
    obj, _ = ser().decode(data, None, Unstructured())
    c = obj.object
    assert type(c["i"]) is int and c["i"] == 1
    assert type(c["f"]) is float and c["f"] == 1.0
    assert type(c["e"]) is float and c["e"] == 1000.0
    assert type(c["big"]) is float
    assert c["neg"] == -(1 << 63) and type(c["neg"]) is int


def test_unstructured_list_items_take_list_kind() -> None:
    data = b'{"apiVersion":"v1","kind":"PodList","metadata":{},"items":[{"metadata":{"name":"a"}},{"kind":"X"}]}'
    into = UnstructuredList()
    obj, gvk = ser().decode(data, None, into)
    assert obj is into and gvk == GVK("", "v1", "PodList")
    assert [i.object for i in into.items] == [
        {"metadata": {"name": "a"}, "kind": "Pod", "apiVersion": "v1"},
        {"kind": "X"},
    ]


def test_unstructured_yaml_floats_become_ints() -> None:
    obj, _ = ser(yaml=True).decode(b"kind: A\nf: 1.0\ng: 1.5\n", None, Unstructured())
    assert obj.object == {"kind": "A", "f": 1, "g": 1.5}
    assert type(obj.object["f"]) is int


def test_unstructured_not_an_object() -> None:
    with pytest.raises(DecodeError):
        ser().decode(b"[1]", TEST_GVK, Unstructured())


def test_duck_typed_unstructured_is_treated_as_unstructured() -> None:
    into = _types.TestUnstructured({"old": True})
    obj, gvk = ser(strict=True).decode(b'{"apiVersion":"v1","kind":"K","a":{"b":1}}', None, into)
    assert obj is into and gvk == GVK("", "v1", "K")
    assert into.object == {"apiVersion": "v1", "kind": "K", "a": {"b": 1}}


# ---------------------------------------------------------------------- into registered


def test_into_registered_merges() -> None:
    into = Decodable(kind="Test", api_version="other/blah", value=5, other="keep", labels={"a": "1"})
    obj, gvk = ser().decode(b'{"apiVersion":"other/blah","kind":"Test","value":7,"labels":{"b":"2"}}', None, into)
    assert obj is into and gvk == TEST_GVK
    assert into.value == 7 and into.other == "keep"
    # Go decodes into the existing map.
    assert into.labels == {"a": "1", "b": "2"}


def test_into_registered_keeps_typemeta_kind() -> None:
    into = A3(kind="a3", api_version="b1/c1")
    obj, gvk = ser().decode(b'{"apiVersion":"b1/c1"}', None, into)
    assert obj is into and gvk == GVK("b1", "c1", "a3")
    assert (into.kind, into.api_version) == ("a3", "b1/c1")


def test_into_registered_other_kind_creates_new_object() -> None:
    into = Decodable(value=5)
    obj, gvk = ser().decode(b'{"apiVersion":"other/blah","kind":"Other2","value":7}', None, into)
    assert isinstance(obj, Other2) and obj.value == 7
    assert gvk == GVK("other", "blah", "Other2")
    assert into.value == 5


def test_into_registered_without_version() -> None:
    s = Serializer(FakeCreater(Decodable()), FakeTyper([GVK("other", "", "Test")]))
    with pytest.raises(MissingVersionError) as ei:
        s.decode(b"{}", None, Decodable())
    assert ei.value.gvk == GVK("other", "", "Test")


def test_other_typer_errors_are_returned() -> None:
    boom = KCodecError("typer exploded")
    s = Serializer(FakeCreater(Decodable()), FakeTyper(err=boom))
    with pytest.raises(KCodecError) as ei:
        s.decode(b'{"apiVersion":"other/blah","kind":"Test"}', None, Decodable())
    assert ei.value is boom
    assert ei.value.gvk == TEST_GVK


def test_creater_error_passed_through() -> None:
    boom = KCodecError("fake error")
    s = Serializer(FakeCreater(err=boom), FakeTyper([TEST_GVK]))
    with pytest.raises(KCodecError) as ei:
        s.decode(b'{"kind":"Test"}', GVK("other", "blah", ""), None)
    assert str(ei.value) == "fake error"
    assert ei.value.gvk == TEST_GVK


# ---------------------------------------------------------------------------------- errors


@pytest.mark.parametrize("creater", [SCHEME, FakeCreater(Unstructured())])
@pytest.mark.parametrize(
    "data, error, gvk",
    [
        (b"{}", MissingKindError, EMPTY),
        (b'{"kind":"Foo"}', MissingVersionError, GVK("", "", "Foo")),
        (b'{"apiVersion":"foo/v1"}', MissingKindError, GVK("foo", "v1", "")),
    ],
)
def test_missing_kind_or_version(creater: Any, data: bytes, error: type, gvk: GroupVersionKind) -> None:
    with pytest.raises(error) as ei:
        Serializer(creater, SCHEME).decode(data)
    assert ei.value.gvk == gvk
    assert ei.value.data == data
    what = "Kind" if error is MissingKindError else "apiVersion"
    assert str(ei.value) == f"Object '{what}' is missing in '{data.decode()}'"
    assert is_missing_kind(ei.value) == (error is MissingKindError)
    assert is_missing_version(ei.value) == (error is MissingVersionError)


def test_missing_kind_message_has_the_full_yaml() -> None:
    data = b"apiVersion: v1\nmetadata:\n  name: x\n"
    with pytest.raises(MissingKindError) as ei:
        ser(yaml=True).decode(data)
    assert str(ei.value) == f"Object 'Kind' is missing in '{data.decode()}'"
    assert ei.value.gvk == GVK("", "v1", "")


def test_real_scheme_errors() -> None:
    s = Serializer(api_scheme, api_scheme)
    with pytest.raises(MissingVersionError):
        s.decode(b'{"kind":"bar"}')
    with pytest.raises(NotRegisteredError) as ei:
        s.decode(b'{"apiVersion":"v1","kind":"bar"}')
    assert ei.value.gvk == GVK("", "v1", "bar")
    assert 'no kind "bar" is registered for version "v1"' in str(ei.value)


def test_sniff_errors_carry_no_gvk() -> None:
    with pytest.raises(DecodeError) as ei:
        ser().decode(b"[]")
    assert str(ei.value).startswith("couldn't get version/kind; json parse error: json: cannot unmarshal array")
    assert getattr(ei.value, "gvk", None) is None
    with pytest.raises(DecodeError) as ei:
        ser().decode(b'{"apiVersion":"a/b/c"}')
    assert str(ei.value) == "unexpected GroupVersion string: a/b/c"


def test_yaml_conversion_errors_carry_no_gvk() -> None:
    with pytest.raises(DecodeError) as ei:
        ser(yaml=True).decode(b"a: [\n")
    assert getattr(ei.value, "gvk", None) is None


def test_typemeta_left_as_data_had_it() -> None:
    obj, gvk = ser().decode(b'{"apiVersion":"/v1","kind":"Foo"}')
    assert isinstance(obj, Decodable)
    assert gvk == GVK("", "v1", "Foo")
    assert obj.api_version == "/v1" and obj.kind == "Foo"


# ------------------------------------------------------------------------- body decoding


def decode_test(body: str, **kw: Any) -> Decodable:
    data = ('{"apiVersion":"other/blah","kind":"Test"' + ("," + body if body else "") + "}").encode()
    obj, _ = ser(**kw).decode(data)
    return obj


def test_keys_are_case_sensitive() -> None:
    obj = decode_test('"VaLue":1,"letters":{"A":1,"b":2,"h":3,"I":4}')
    assert obj.value == 0
    assert obj.letters == Letters(a=1, h=3)


def test_duplicate_keys_last_wins() -> None:
    assert decode_test('"value":1,"value":2').value == 2
    assert decode_test('"unknown":1,"value":3').value == 3


def test_untyped_numbers() -> None:
    obj = decode_test('"interface":[1,1.0,1e3,12345678901234567890,-0,9223372036854775807]')
    values = obj.iface
    assert [type(v) for v in values] == [int, float, float, float, int, int]
    assert values[:3] == [1, 1.0, 1000.0]
    assert values[5] == (1 << 63) - 1


def test_nulls_leave_zero_values() -> None:
    obj = decode_test('"bool":null,"i32":null,"float":null,"string":null,"array":null,"map":null,"struct":null,"spec":null')
    assert obj == Decodable(kind="Test", api_version="other/blah")


def test_empty_containers_are_not_nil() -> None:
    obj = decode_test('"array":[],"map":{},"struct":{}')
    assert obj.array == [] and obj.map_ == {} and obj.struct == Nested()


def test_integer_literal_into_float() -> None:
    assert decode_test('"float":3').float_ == 3.0


@pytest.mark.parametrize(
    "body, message",
    [
        ('"value":1.5', "json: cannot unmarshal number 1.5 into Go struct field Decodable.value of type int64"),
        ('"i32":3000000000', "json: cannot unmarshal number 3000000000 into Go struct field Decodable.i32 of type int32"),
        ('"value":"1"', "json: cannot unmarshal string into Go struct field Decodable.value of type int64"),
    ],
)
def test_body_type_errors(body: str, message: str) -> None:
    with pytest.raises(DecodeError) as ei:
        decode_test(body)
    assert str(ei.value) == message
    assert ei.value.gvk == TEST_GVK


def test_body_errors_are_fatal_in_strict_mode_too() -> None:
    with pytest.raises(DecodeError) as ei:
        decode_test('"unknown":1,"value":1.5', strict=True)
    assert not is_strict_decoding_error(ei.value)


def test_number_out_of_range_into_interface() -> None:
    with pytest.raises(DecodeError) as ei:
        decode_test('"interface":1e1000')
    assert "cannot unmarshal number 1e1000 into Go" in str(ei.value)
    assert "of type float64" in str(ei.value)


# ---------------------------------------------------------------------------- strict mode


def strict_errors(body: str, **kw: Any) -> StrictDecodingError:
    with pytest.raises(StrictDecodingError) as ei:
        decode_test(body, strict=True, **kw)
    return ei.value


@pytest.mark.parametrize(
    "body, errors",
    [
        ('"unknown":1', ['unknown field "unknown"']),
        ('"spec":{"foo":"a","Foo":"b"}', ['unknown field "spec.Foo"']),
        ('"items":[{"bar":1},{"bar":2,"baz":3}]', ['unknown field "items[1].baz"']),
        ('"VaLue":1', ['unknown field "VaLue"']),
        ('"value":1,"value":1', ['duplicate field "value"']),
        ('"value":1,"value":2,"value":3', ['duplicate field "value"']),
        ('"x":1,"x":2', ['unknown field "x"']),
        ('"items":[{"baz":1},{"baz":1}]', ['unknown field "items[0].baz"', 'unknown field "items[1].baz"']),
        ('"m":{"k":{"zz":1,"foo":"a","foo":"b"}}', ['unknown field "m.k.zz"', 'duplicate field "m.k.foo"']),
        ('"labels":{"a":"1","a":"2"}', ['duplicate field "labels.a"']),
        ('"interface":{"x":1,"x":2,"y":[{"z":1,"z":2}]}',
         ['duplicate field "interface.x"', 'duplicate field "interface.y[0].z"']),
        ('"ext":{"a":1,"a":2,"zz":3}', []),
        ('"quantity":"1Gi","quantity":"2Gi"', ['duplicate field "quantity"']),
        ('"we\\"ird\\n":1', ['unknown field "we\\"ird\\n"']),
    ],
)
def test_strict_errors(body: str, errors: list[str]) -> None:
    if not errors:
        obj = decode_test(body, strict=True)
        assert obj.ext.raw is not None
        return
    err = strict_errors(body)
    assert err.errors == errors
    assert str(err) == "strict decoding error: " + ", ".join(errors)
    assert err.gvk == TEST_GVK
    assert isinstance(err.obj, Decodable)
    assert is_strict_decoding_error(err)
    # Non-strict mode never reports them.
    assert isinstance(decode_test(body), Decodable)


def test_strict_errors_in_document_order_with_object_still_decoded() -> None:
    err = strict_errors('"VaLue":2,"spec":{"foo":"a","Foo":"b"},"items":[{"bar":1,"baz":2}],"value":1,"value":1')
    assert err.errors == [
        'unknown field "VaLue"',
        'unknown field "spec.Foo"',
        'unknown field "items[0].baz"',
        'duplicate field "value"',
    ]
    assert err.obj == Decodable(kind="Test", api_version="other/blah", value=1, spec=Nested(foo="a"),
                                items=[Nested(bar=1)])


def test_strict_error_count_is_capped_at_100() -> None:
    body = ",".join(f'"u{i}":1' for i in range(150))
    err = strict_errors(body)
    assert len(err.errors) == 100
    assert err.errors[0] == 'unknown field "u0"' and err.errors[-1] == 'unknown field "u99"'


def test_strict_into_unstructured_duplicates() -> None:
    with pytest.raises(StrictDecodingError) as ei:
        ser(strict=True).decode(b'{"kind":"Custom","value":1,"value":1,"a":{"b":1,"b":2}}', None, Unstructured())
    assert ei.value.errors == ['duplicate field "value"', 'duplicate field "a.b"']
    assert ei.value.gvk == GVK("", "", "Custom")
    assert ei.value.obj.object == {"kind": "Custom", "value": 1, "a": {"b": 2}}


def test_strict_into_unstructured_accepts_any_key() -> None:
    obj, _ = ser(strict=True).decode(b'{"kind":"Custom","whatever":{"X":1}}', None, Unstructured())
    assert obj.object["whatever"] == {"X": 1}


def test_strict_syntax_error_stays_fatal() -> None:
    with pytest.raises(DecodeError) as ei:
        ser(strict=True).decode(b"foo", None, Unstructured())
    assert not is_strict_decoding_error(ei.value)
    assert "invalid character 'o' in literal false (expecting 'a')" in str(ei.value)


def test_strict_deeply_nested_document() -> None:
    depth = 3000
    body = '"interface":' + '{"a":' * depth + '{"d":1,"d":2}' + "}" * depth
    err = strict_errors(body)
    assert err.errors == ['duplicate field "interface' + ".a" * depth + '.d"']


def test_strict_yaml_duplicates_and_unknowns() -> None:
    data = b"apiVersion: other/blah\nkind: Test\nvalue: 1\nvalue: 1\nunknown: 1\n"
    with pytest.raises(StrictDecodingError) as ei:
        ser(yaml=True, strict=True).decode(data)
    assert ei.value.errors == [
        'yaml: unmarshal errors:\n  line 4: key "value" already set in map',
        'unknown field "unknown"',
    ]
    assert str(ei.value) == (
        'strict decoding error: yaml: unmarshal errors:\n  line 4: key "value" already set in map, '
        'unknown field "unknown"'
    )
    assert ei.value.obj.value == 1


def test_strict_yaml_unknown_fields_in_sorted_order() -> None:
    # Go checks the JSON that YAML converts to, whose keys are sorted.
    data = b"apiVersion: other/blah\nkind: Test\nzeta: 1\nspec:\n  zz: 1\nalpha: 2\n"
    with pytest.raises(StrictDecodingError) as ei:
        ser(yaml=True, strict=True).decode(data)
    assert ei.value.errors == ['unknown field "alpha"', 'unknown field "spec.zz"', 'unknown field "zeta"']


def test_strict_yaml_duplicate_into_unstructured() -> None:
    with pytest.raises(StrictDecodingError) as ei:
        ser(yaml=True, strict=True).decode(b"kind: X\nvalue: 1\nvalue: 2\n", None, Unstructured())
    assert ei.value.errors == ['yaml: unmarshal errors:\n  line 3: key "value" already set in map']
    assert ei.value.obj.object == {"kind": "X", "value": 2}


def test_non_strict_yaml_duplicate_last_wins() -> None:
    obj, _ = ser(yaml=True).decode(b"apiVersion: other/blah\nkind: Test\nvalue: 1\nvalue: 2\nunknown: 1\n")
    assert obj.value == 2


# Realistic objects: Go-written fixtures hold Time, Quantity, IntOrString, RawExtension and
# FieldsV1 values, none of which strict mode looks into.
STRICT_FIXTURES = [
    "core.v1.Pod", "core.v1.ConfigMap", "core.v1.Service", "apps.v1.Deployment",
    "admissionregistration.k8s.io.v1.ValidatingWebhookConfiguration", "batch.v1.CronJob",
    "core.v1.PersistentVolume", "core.v1.Status", "networking.k8s.io.v1.Ingress",
    "admission.k8s.io.v1.AdmissionReview",
]


@pytest.mark.parametrize("name", STRICT_FIXTURES)
def test_strict_decode_of_real_objects(name: str) -> None:
    folder = fixtures_dir()
    json_obj, _ = Serializer(api_scheme, api_scheme, strict=True).decode((folder / f"{name}.json").read_bytes())
    yaml_obj, _ = Serializer(api_scheme, api_scheme, yaml=True, strict=True).decode((folder / f"{name}.yaml").read_bytes())
    # RawExtension keeps the bytes it was read from (pretty JSON, YAML's compact JSON).
    plain = Serializer(api_scheme, api_scheme)
    assert plain.encode(json_obj) == plain.encode(yaml_obj)


def test_strict_unknown_field_in_real_pod() -> None:
    data = (b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"},"bogus":1},'
            b'"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":"1"}},"imagePull":"x"}]}}')
    with pytest.raises(StrictDecodingError) as ei:
        Serializer(api_scheme, api_scheme, strict=True).decode(data)
    assert ei.value.errors == ['unknown field "metadata.bogus"', 'unknown field "spec.containers[0].imagePull"']
    assert isinstance(ei.value.obj, corev1.Pod)
    assert ei.value.obj.spec.containers[0].resources.limits == {"cpu": Quantity("1")}


# ------------------------------------------------------------------------------- YAML mode


def test_yaml_decode_with_defaults() -> None:
    obj, gvk = ser(yaml=True).decode(b"value: 1234\n", TEST_GVK)
    assert gvk == TEST_GVK and obj.value == 1234


def test_yaml_float_into_int() -> None:
    obj, _ = ser(yaml=True).decode(b"value: 1.0\n", TEST_GVK)
    assert obj.value == 1


def test_yaml_scalars_are_not_coerced() -> None:
    with pytest.raises(DecodeError) as ei:
        ser(yaml=True).decode(b"Other: 123\n", TEST_GVK)
    assert "cannot unmarshal number" in str(ei.value)
    assert "Decodable.Other of type string" in str(ei.value)


def test_yaml_only_first_document() -> None:
    obj, _ = ser(yaml=True).decode(b"apiVersion: other/blah\nkind: Test\nvalue: 1\n---\nvalue: 2\n")
    assert obj.value == 1


def test_yaml_and_json_give_same_object() -> None:
    a, ga = ser(yaml=True).decode(b"kind: Test\napiVersion: other/blah\nspec:\n  foo: x\n")
    b, gb = ser().decode(b'{\n  "kind": "Test",\n  "apiVersion": "other/blah",\n  "spec": {"foo": "x"}\n}')
    assert a == b and ga == gb


class WeirdMetaFactory:
    """Go's testMetaFactory: the kind lives under myVersionKey / myKindKey."""

    def interpret(self, data: bytes) -> GroupVersionKind:
        import json

        doc = json.loads(data) or {}
        return from_api_version_and_kind(doc.get("myVersionKey", ""), doc.get("myKindKey", ""))


@pytest.mark.parametrize("yaml", [False, True])
def test_custom_meta_factory(yaml: bool) -> None:
    s = _types.get_test_scheme()
    data = (b"myVersionKey: v1\nmyKindKey: TestType1\nA: x\nB: 2\n" if yaml
            else b'{"myVersionKey":"v1","myKindKey":"TestType1","A":"x","B":2}')
    obj, gvk = Serializer(s, s, yaml=yaml, meta_factory=WeirdMetaFactory()).decode(data)
    assert gvk == GVK("", "v1", "TestType1")
    assert isinstance(obj, _types.ExternalTestType1)
    assert (obj.a, obj.b, obj.api_version, obj.object_kind) == ("x", 2, "v1", "TestType1")


# ---------------------------------------------------------------------------------- encode


def test_compact_encode_ends_with_newline() -> None:
    assert ser().encode(Bare(kind="Pod", api_version="v1")) == b'{"kind":"Pod","apiVersion":"v1"}\n'


def test_pretty_encode_has_no_newline() -> None:
    u = Unstructured({"a": {}, "b": [1, 2], "c": [], "d": None})
    assert ser(pretty=True).encode(u) == b'{\n  "a": {},\n  "b": [\n    1,\n    2\n  ],\n  "c": [],\n  "d": null\n}'
    assert ser().encode(u) == b'{"a":{},"b":[1,2],"c":[],"d":null}\n'


def test_yaml_encode_sorts_and_quotes() -> None:
    cm = corev1.ConfigMap(kind="ConfigMap", api_version="v1", data={"b": "2", "a": "1: x", "c": "true"})
    assert ser(yaml=True).encode(cm) == (
        b"apiVersion: v1\ndata:\n  a: '1: x'\n  b: \"2\"\n  c: \"true\"\nkind: ConfigMap\nmetadata: {}\n"
    )


def test_yaml_ignores_pretty() -> None:
    obj = Bare(kind="Pod", api_version="v1")
    assert ser(yaml=True, pretty=True).encode(obj) == b"apiVersion: v1\nkind: Pod\n"


def test_typed_member_order_and_html_escaping() -> None:
    st = metav1.Status(kind="Status", api_version="v1", status="Failure", code=404, message="<x>&")
    assert ser().encode(st) == (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        b'"message":"\\u003cx\\u003e\\u0026","code":404}\n'
    )


def test_encode_writes_the_objects_own_typemeta() -> None:
    cm = corev1.ConfigMap(kind="Zzz", api_version="weird/v9")
    assert ser().encode(cm) == b'{"kind":"Zzz","apiVersion":"weird/v9","metadata":{}}\n'
    assert ser().encode(corev1.ConfigMap()) == b'{"metadata":{}}\n'


def test_unstructured_encode_sorted_and_integral_floats() -> None:
    u = Unstructured({"metadata": {"name": "x"}, "kind": "K", "apiVersion": "v1",
                      "f": 1.0, "g": 1.5, "h": 9223372036854776000.0})
    out = ser().encode(u)
    assert out == (b'{"apiVersion":"v1","f":1,"g":1.5,"h":9223372036854776000,"kind":"K",'
                   b'"metadata":{"name":"x"}}\n')
    back, _ = ser().decode(out, None, Unstructured())
    assert type(back.object["f"]) is int and back.object["f"] == 1
    assert type(back.object["g"]) is float
    assert type(back.object["h"]) is float


def test_encode_to_stream() -> None:
    buf = io.BytesIO()
    out = ser().encode(Bare(kind="A"), buf)
    assert buf.getvalue() == out == b'{"kind":"A"}\n'
    buf = io.BytesIO()
    out = ser(yaml=True).encode(Unstructured({"kind": "A"}), buf)
    assert buf.getvalue() == out == b"kind: A\n"


def test_encode_unknown() -> None:
    assert ser().encode(Unknown(raw=b'{ "a" : "<" }')) == b'{"a":"\\u003c"}\n'
    assert ser(pretty=True).encode(Unknown(raw=b'{ "a" : [1] }')) == b'{\n  "a": [\n    1\n  ]\n}'
    assert ser(yaml=True).encode(Unknown(raw=b'{"a":"<"}')) == b"a: <\n"
    assert ser().encode(Unknown(raw=None)) == b"null\n"
    assert ser().encode(Unknown(raw=b"{}", content_type="application/json")) == b"{}\n"
    with pytest.raises(EncodeError) as ei:
        ser().encode(Unknown(raw=b"{}", content_type="application/yaml"))
    assert str(ei.value) == "runtime.Unknown: MarshalJSON on non-json data"
    with pytest.raises(EncodeError) as ei:
        ser().encode(Unknown(raw=b"{"))
    assert str(ei.value) == "json: error calling MarshalJSON for type *runtime.Unknown: unexpected end of JSON input"


class WithExt(Object):
    ext: RawExtension = field(0, "Ext")


class WithOptionalExt(Object):
    ext: RawExtension = field(0, "extension", omitempty=True)


def test_raw_extension_json() -> None:
    assert ser().encode(WithExt(ext=RawExtension(raw=b'{"foo":"bar"}'))) == b'{"Ext":{"foo":"bar"}}\n'
    assert ser().encode(WithExt(ext=RawExtension(raw=b' [ 1 ]'))) == b'{"Ext":[1]}\n'
    assert ser().encode(WithExt()) == b'{"Ext":null}\n'
    # A non-pointer RawExtension is a struct: omitempty never drops it.
    assert ser().encode(WithOptionalExt()) == b'{"extension":null}\n'
    assert ser().encode(WithExt(ext=RawExtension(object=Bare(kind="A")))) == b'{"Ext":{"kind":"A"}}\n'
    with pytest.raises(EncodeError) as ei:
        ser().encode(WithExt(ext=RawExtension(raw=b"\x01\x02")))
    assert str(ei.value) == "cannot convert RawExtension with unrecognized content type to unstructured"


def test_raw_extension_null_roundtrips_as_empty() -> None:
    s = Scheme("ext")
    s.add_known_type_with_name(GVK("", "v1", "WithExt"), WithExt)
    j = Serializer(s, s)
    obj, _ = j.decode(b'{"apiVersion":"v1","kind":"WithExt","Ext":null}')
    assert obj.ext == RawExtension()
    assert j.encode(obj) == b'{"kind":"WithExt","apiVersion":"v1","Ext":null}\n'
    obj, _ = j.decode(b'{"apiVersion":"v1","kind":"WithExt","Ext":{"a":[1,2]}}')
    assert obj.ext.raw is not None
    assert j.encode(obj) == b'{"kind":"WithExt","apiVersion":"v1","Ext":{"a":[1,2]}}\n'


def test_decode_encode_roundtrip_of_real_pod() -> None:
    path = fixtures_dir() / "core.v1.Pod.json"
    data = path.read_bytes()
    s = Serializer(api_scheme, api_scheme, pretty=True)
    obj, gvk = s.decode(data)
    assert gvk == GVK("", "v1", "Pod") and isinstance(obj, corev1.Pod)
    assert s.encode(obj) == data


# ----------------------------------------------------------------------------- identifiers


@pytest.mark.parametrize(
    "kw, ident",
    [
        ({}, '{"name":"json","pretty":"false","strict":"false","yaml":"false"}'),
        ({"pretty": True}, '{"name":"json","pretty":"true","strict":"false","yaml":"false"}'),
        ({"strict": True}, '{"name":"json","pretty":"false","strict":"true","yaml":"false"}'),
        ({"yaml": True}, '{"name":"json","pretty":"false","strict":"false","yaml":"true"}'),
        ({"yaml": True, "pretty": True, "strict": True}, '{"name":"json","pretty":"true","strict":"true","yaml":"true"}'),
    ],
)
def test_identifier(kw: dict[str, bool], ident: str) -> None:
    assert ser(**kw).identifier() == ident


# ---------------------------------------------------------------------------- recognition


@pytest.mark.parametrize(
    "data, ok",
    [
        (b" \n{}", True),
        (b"{", True),
        (b"[1]", False),
        (b"", False),
        (b"   ", False),
        (b"\t\r\v\f{}", True),
        (b"\xc2\x85\xc2\xa0{}", True),          # NEL, NO-BREAK SPACE
        (b"\xe2\x80\x83\xe3\x80\x80{}", True),  # EM SPACE, IDEOGRAPHIC SPACE
        (b"\x1c{}", False),                     # a separator Python calls space, Go does not
        (b"\xe2\x80\x8b{}", False),             # ZERO WIDTH SPACE is no space
        (b"\xff{}", False),
        (b"\xef\xbb\xbf{}", False),             # a BOM is not trimmed
        (b"kind: A\n", False),
        (b"k8s\x00", False),
    ],
)
def test_json_recognizes_data(data: bytes, ok: bool) -> None:
    assert ser().recognizes_data(data) == (ok, False)


@pytest.mark.parametrize("data", [b"{}", b"kind: A", b"", b"k8s\x00"])
def test_yaml_recognizes_nothing(data: bytes) -> None:
    assert ser(yaml=True).recognizes_data(data) == (False, True)


# ------------------------------------------------------------------------------ DecodeInto


def test_decode_into_fills_the_object() -> None:
    into = Decodable()
    decode_into(ser(), b'{"apiVersion":"other/blah","kind":"Test","value":4}', into)
    assert into.value == 4


def test_decode_into_refuses_another_kind() -> None:
    with pytest.raises(DecodeError) as ei:
        decode_into(ser(), b'{"apiVersion":"other/blah","kind":"Other2","value":4}', Decodable())
    assert str(ei.value).startswith("unable to decode other/blah, Kind=Other2 into *")
    assert "Decodable" in str(ei.value)


def test_json_serializer_in_recognizer_keeps_strict_object() -> None:
    d = RecognizerDecoder(ser(strict=True), ser(yaml=True, strict=True))
    with pytest.raises(StrictDecodingError) as ei:
        d.decode(b"apiVersion: other/blah\nkind: Test\nvalue: 2\nnope: 1\n")
    assert ei.value.obj.value == 2
    assert ei.value.errors == ['unknown field "nope"']


def test_registered_gv_scheme_sanity() -> None:
    assert SCHEME.object_kinds(Decodable())[0][0] == TEST_GVK
    assert SCHEME.is_version_registered(GroupVersion("other", "blah"))


def test_framers() -> None:
    from kcodec.serializer.framing import JSON_FRAMER, YAML_FRAMER

    assert ser().framer is JSON_FRAMER
    assert ser(yaml=True).framer is YAML_FRAMER
