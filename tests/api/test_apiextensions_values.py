"""The hand-marshalled values of apiextensions.k8s.io (upstream marshal.go), byte for byte.

Cases follow upstream's marshal_test.go (k8s.io/apiextensions-apiserver v0.36.3,
pkg/apis/apiextensions/v1), written anew: each value is placed in a CRD's schema and goes
through the JSON serializer (the kernels of the mode under test) and through protobuf.
"""
from __future__ import annotations

import math

import pytest

from kcodec.errors import DecodeError, EncodeError


@pytest.fixture(scope="module")
def sers():
    from kcodec.api import scheme
    from kcodec.serializer.json import Serializer
    from kcodec.serializer.protobuf import Serializer as PB

    return Serializer(scheme, scheme), PB(scheme, scheme)


def _doc(version: str, member: str, text: str) -> bytes:
    return (f'{{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/{version}",'
            f'"metadata":{{"name":"x"}},"spec":{{"group":"g","names":{{"plural":"p","kind":"K"}},'
            f'"scope":"Namespaced","versions":[{{"name":"v1","served":true,"storage":true,'
            f'"schema":{{"openAPIV3Schema":{{"{member}":{text}}}}}}}]}},'
            f'"status":{{"conditions":null,"acceptedNames":{{"plural":"","kind":""}},"storedVersions":null}}}}\n'
            ).encode()


def _schema(obj):
    return obj.spec.versions[0].schema.open_apiv3_schema


def _round_trip(sers, member, text, expect_text=None):
    js, pb = sers
    data = _doc("v1", member, text)
    obj, _ = js.decode(data)
    out = js.encode(obj)
    assert out == _doc("v1", member, expect_text if expect_text is not None else text)
    # protobuf: the same bytes again, and the same object (but for Go's own nil-versus-empty
    # difference: a decoded JSON [] is an empty list, protobuf has no way to say it)
    wire = pb.encode(obj)
    again, _ = pb.decode(wire)
    assert pb.encode(again) == wire
    assert js.encode(again) == out
    return _schema(obj)


# --------------------------------------------------------------------------- OrBool


@pytest.mark.parametrize("text,allows,has_schema", [
    ("false", False, False),
    ("true", True, False),
    ('{"type":"string"}', True, True),
    ("{}", True, True),                       # "legacy behavior": an empty schema allows
])
def test_or_bool(sers, text, allows, has_schema):
    s = _round_trip(sers, "additionalProperties", text)
    assert s.additional_properties.allows is allows
    assert (s.additional_properties.schema is not None) is has_schema


def test_or_bool_schema_wins_and_zero_is_false():
    from kcodec.api.apiextensions import v1
    from kcodec.model import to_tree

    assert v1.JSONSchemaPropsOrBool()._to_tree() is False
    v = v1.JSONSchemaPropsOrBool(allows=False, schema=v1.JSONSchemaProps(type="string"))
    assert v._to_tree() == {"type": "string"}
    assert to_tree(v1.JSONSchemaProps(additional_items=v1.JSONSchemaPropsOrBool())) == {"additionalItems": False}


@pytest.mark.parametrize("text", ["42", '"yes"', "[]"])
def test_or_bool_rejects_other_values(sers, text):
    with pytest.raises(DecodeError, match="boolean or JSON schema expected"):
        sers[0].decode(_doc("v1", "additionalProperties", text))


def test_or_bool_null_member_is_absent(sers):
    # A nil pointer: Go never calls UnmarshalJSON for null there.
    obj, _ = sers[0].decode(_doc("v1", "additionalItems", "null"))
    assert _schema(obj).additional_items is None
    from kcodec.api.apiextensions import v1

    with pytest.raises(DecodeError, match="boolean or JSON schema expected"):
        v1.JSONSchemaPropsOrBool._from_tree(None, "x")


def test_or_bool_protobuf_always_writes_allows():
    from kcodec.api.apiextensions import v1

    assert v1.JSONSchemaPropsOrBool()._proto_body() == b"\x08\x00"
    from kcodec.model import to_proto

    inner = to_proto(v1.JSONSchemaProps(type="s"))
    body = v1.JSONSchemaPropsOrBool(True, v1.JSONSchemaProps(type="s"))._proto_body()
    assert body == b"\x08\x01\x12" + bytes([len(inner)]) + inner
    assert v1.JSONSchemaPropsOrBool._from_proto_body(body, "x") == v1.JSONSchemaPropsOrBool(
        True, v1.JSONSchemaProps(type="s"))


# --------------------------------------------------------------------------- OrArray


@pytest.mark.parametrize("text,single,count", [
    ("{}", True, None),
    ('{"type":"string"}', True, None),
    ("[{}]", False, 1),
    ('[{},{"type":"string"}]', False, 2),
])
def test_or_array(sers, text, single, count):
    s = _round_trip(sers, "items", text)
    assert (s.items.schema is not None) is single
    assert (len(s.items.json_schemas) if s.items.json_schemas is not None else None) == count


@pytest.mark.parametrize("text", ["42", '"x"', "true"])
def test_or_array_ignores_other_values(sers, text):
    # Upstream looks at the first byte only; anything else leaves the value empty (null).
    s = _round_trip(sers, "items", text, "null")
    assert s.items.schema is None and s.items.json_schemas is None


# --------------------------------------------------------------------------- OrStringArray


@pytest.mark.parametrize("text,expect,prop", [
    ('["string"]', None, ["string"]),
    ("[]", "null", []),
    ('{"type":"props"}', None, None),
    ("42", "null", None),
])
def test_or_string_array(sers, text, expect, prop):
    s = _round_trip(sers, "dependencies", '{"d":' + text + "}",
                    None if expect is None else '{"d":' + expect + "}")
    assert s.dependencies["d"].property == prop


def test_or_string_array_property_wins():
    from kcodec.api.apiextensions import v1

    v = v1.JSONSchemaPropsOrStringArray(schema=v1.JSONSchemaProps(type="props"), property=["string"])
    assert v._to_tree() == ["string"]
    with pytest.raises(DecodeError, match="cannot unmarshal number into Go value of type string"):
        v1.JSONSchemaPropsOrStringArray._from_tree(["a", 1], "d")


# --------------------------------------------------------------------------- JSON


@pytest.mark.parametrize("text", ['"string"', "42.01", "true", "[1,2,3]", '{"foo":"bar"}',
                                  '{"b":1,"a":"\\u003c"}'])
def test_json_keeps_the_text(sers, text):
    s = _round_trip(sers, "default", text)
    assert s.default.raw == text.encode()


@pytest.mark.parametrize("raw", [None, b""])
def test_json_empty_is_null(raw):
    from kcodec.api.apiextensions import v1
    from kcodec.model import to_tree

    assert to_tree(v1.JSONSchemaProps(default=v1.JSON(raw))) == {"default": None}
    assert to_tree(v1.JSONSchemaProps(enum=[v1.JSON(raw)])) == {"enum": [None]}


def test_json_null_member_and_elements(sers):
    obj, _ = sers[0].decode(_doc("v1", "enum", '[null,"a"]'))
    enum = _schema(obj).enum
    assert [e.raw for e in enum] == [None, b'"a"']
    obj, _ = sers[0].decode(_doc("v1", "example", "null"))
    assert _schema(obj).example is None


def test_json_protobuf_keeps_empty_apart_from_nil():
    from kcodec.api.apiextensions import v1

    assert v1.JSON()._proto_body() == b""
    assert v1.JSON(b"")._proto_body() == b"\x0a\x00"
    assert v1.JSON._from_proto_body(b"\x0a\x00", "x").raw == b""
    assert v1.JSON._from_proto_body(b"", "x").raw is None


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("member", ["additionalProperties", "items", "dependencies"])
def test_unsupported_float_fails_to_encode(sers, member):
    from kcodec.api.apiextensions import v1

    bad = v1.JSONSchemaProps(maximum=math.nan)
    wrap = {
        "additionalProperties": lambda: v1.JSONSchemaProps(additional_properties=v1.JSONSchemaPropsOrBool(True, bad)),
        "items": lambda: v1.JSONSchemaProps(items=v1.JSONSchemaPropsOrArray(bad)),
        "dependencies": lambda: v1.JSONSchemaProps(dependencies={"d": v1.JSONSchemaPropsOrStringArray(bad)}),
    }[member]()
    crd = v1.CustomResourceDefinition(spec=v1.CustomResourceDefinitionSpec(versions=[
        v1.CustomResourceDefinitionVersion(name="v1", schema=v1.CustomResourceValidation(open_apiv3_schema=wrap))]))
    with pytest.raises(EncodeError, match="unsupported value: NaN"):
        sers[0].encode(crd)


@pytest.mark.parametrize("body", [b"\x12\x05\x2a", b"\x08", b"\x00\x01", b"\x0a\x80"])
def test_truncated_protobuf_bodies(body):
    from kcodec.api.apiextensions import v1

    for cls in (v1.JSONSchemaPropsOrBool, v1.JSONSchemaPropsOrArray, v1.JSONSchemaPropsOrStringArray, v1.JSON):
        with pytest.raises(DecodeError):
            cls._from_proto_body(body, "f")


def test_broken_nested_schema():
    from kcodec.api.apiextensions import v1

    body = b"\x12\x03\x2a\x05s"  # field 2 holds a schema whose string runs past its end
    for cls in (v1.JSONSchemaPropsOrBool, v1.JSONSchemaPropsOrArray):
        with pytest.raises(DecodeError):
            cls._from_proto_body(body, "f")


def test_wrong_wire_type():
    from kcodec.api.apiextensions import v1

    with pytest.raises(DecodeError, match="wrong wireType"):
        v1.JSONSchemaPropsOrBool._from_proto_body(b"\x0a\x00", "f")


def test_deep_schemas_round_trip(sers):
    text = "{}"
    for _ in range(40):
        text = '{"items":' + text + "}"
    s = _round_trip(sers, "items", text)
    depth = 0
    while s.items is not None and s.items.schema is not None:
        s, depth = s.items.schema, depth + 1
    assert depth == 41


def test_v1beta1_values_are_their_own_classes(sers):
    from kcodec.api.apiextensions import v1, v1beta1

    js, _ = sers
    obj, _ = js.decode(_doc("v1beta1", "additionalProperties", '{"type":"string"}'))
    ap = _schema(obj).additional_properties
    assert type(ap) is v1beta1.JSONSchemaPropsOrBool and type(ap.schema) is v1beta1.JSONSchemaProps
    assert v1beta1.JSONSchemaPropsOrBool(True) != v1.JSONSchemaPropsOrBool(True)


STRICT_CRD = b"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: a}
spec:
  group: g
  names: {kind: K, plural: ks}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        bogusTop: 1
        properties:
          a: {type: string, bogusProp: 1}
          b:
            type: array
            items: {type: string, bogusItems: 1}
"""


def test_strict_decoding_stops_at_hand_unmarshalled_values():
    # Upstream's UnmarshalJSON methods decode nested schemas with the non-strict decoder, so
    # an unknown field below `items` (or additionalProperties...) is not reported; one below
    # `properties` (a plain map of schemas) is.
    from kcodec.api import scheme
    from kcodec.errors import StrictDecodingError
    from kcodec.serializer.json import Serializer

    with pytest.raises(StrictDecodingError) as info:
        Serializer(scheme, scheme, yaml=True, strict=True).decode(STRICT_CRD)
    assert info.value.errors == [
        'unknown field "spec.versions[0].schema.openAPIV3Schema.bogusTop"',
        'unknown field "spec.versions[0].schema.openAPIV3Schema.properties.a.bogusProp"',
    ]


def test_external_scheme_registers_the_external_versions_only():
    from kcodec.api import api_modules, scheme
    from kcodec.schema import GroupVersionKind as GVK

    for gv in ("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"):
        group, version = gv.split("/")
        for kind in ("CustomResourceDefinition", "CustomResourceDefinitionList", "ConversionReview",
                     "WatchEvent", "ListOptions"):
            assert scheme.recognizes(GVK(group, version, kind)), (gv, kind)
    for version in ("v1", "v1beta1"):
        assert scheme.recognizes(GVK("apiregistration.k8s.io", version, "APIService"))
        assert scheme.recognizes(GVK("apiregistration.k8s.io", version, "APIServiceList"))
    # (metav1.AddToGroupVersion puts the internal WatchEvent there, as in Go; nothing else)
    assert not scheme.recognizes(GVK("apiextensions.k8s.io", "__internal", "CustomResourceDefinition"))
    assert not scheme.recognizes(GVK("apiregistration.k8s.io", "__internal", "APIService"))
    assert not [m for m in api_modules() if m.endswith(".internal")]


@pytest.mark.parametrize("value", ["a<b&c>", "é\u2028\u2029x", '\x01"\\\x7f', "x\udcff", "", True, False,
                                   0, -5, 2**63 - 1, 1.5, [1, "<"], {"b": None, "a": [{}]}])
def test_json_from_value_writes_go_text(value):
    from kcodec.api.apiextensions import v1
    from kcodec.gojson import dumps

    assert v1.JSON.from_value(value).raw == dumps(value)


def test_repeated_schema_field_merges():
    # protobuf: a message field met twice is merged into one value, as Go's Unmarshal does.
    from kcodec.api.apiextensions import v1
    from kcodec.model import to_proto

    a = to_proto(v1.JSONSchemaProps(type="a"))
    d = b"\x22\x01d"  # description (4) = "d" only
    body = b"\x08\x01\x12" + bytes([len(a)]) + a + b"\x12" + bytes([len(d)]) + d
    got = v1.JSONSchemaPropsOrBool._from_proto_body(body, "f")
    assert got.schema.type == "a" and got.schema.description == "d"


@pytest.mark.parametrize("items,text", [
    # UnmarshalJSON's inner type error takes the outer context (Go's addErrorContext): the
    # field holding the value, the inner type.
    ('{"type":5}', "json: cannot unmarshal number into Go struct field "
                   "JSONSchemaProps.spec.versions.schema.openAPIV3Schema.items of type string"),
    ('[{},{"minimum":"no"}]', "json: cannot unmarshal string into Go struct field "
                              "JSONSchemaProps.spec.versions.schema.openAPIV3Schema.items of type float64"),
])
def test_errors_inside_values_name_the_value(sers, items, text):
    with pytest.raises(DecodeError) as info:
        sers[0].decode(_doc("v1", "items", items))
    assert str(info.value) == text
    assert ".one" not in str(info.value) and ".many" not in str(info.value)


@pytest.mark.parametrize("raw", [b'"abc"', b'"a\\nb"', '"é"'.encode(), b"true", b"false", b'""', b'"<&>"',
                                 b"12", b"-1.5e3", b'{"a":[1,null]}', b'"\\u00e9"', b" true"])
def test_json_value_reads_go_values(raw):
    from kcodec.api.apiextensions import v1
    from kcodec.gojson import loads

    assert v1.JSON(raw).value() == loads(raw)


@pytest.mark.parametrize("member", ["items", "additionalProperties", "additionalItems"])
def test_hostile_nesting_is_a_decode_error(sers, member):
    from kcodec.api.apiextensions import _values

    text = "{}"
    for _ in range(3000):
        text = '{"%s":%s}' % (member, text)
    with pytest.raises(DecodeError, match="exceeded max nesting depth"):
        sers[0].decode(_doc("v1", member, text))
    # just inside the bound: fine, both ways, in both formats
    ok = "{}"
    for _ in range(_values.MAX_SCHEMA_NESTING - 1):
        ok = '{"%s":%s}' % (member, ok)
    _round_trip(sers, member, ok)


def test_hostile_protobuf_nesting_is_a_decode_error():
    from kcodec.api.apiextensions import _values, v1
    from kcodec.model import to_proto

    body = b""
    for _ in range(200):
        schema = b"" if not body else b"\xc2\x01" + _values._varint(len(body)) + body  # items (24)
        body = b"\x0a" + _values._varint(len(schema)) + schema  # JSONSchemaPropsOrArray.schema
    with pytest.raises(DecodeError, match="nesting depth"):
        v1.JSONSchemaPropsOrArray._from_proto_body(body, "x")
    assert to_proto(v1.JSONSchemaProps()) is not None


def test_deep_objects_built_in_python_fail_to_encode(sers):
    from kcodec.api.apiextensions import _values, v1

    s = v1.JSONSchemaProps()
    for _ in range(_values.MAX_SCHEMA_NESTING + 5):
        s = v1.JSONSchemaProps(items=v1.JSONSchemaPropsOrArray(s))
    crd = v1.CustomResourceDefinition(spec=v1.CustomResourceDefinitionSpec(versions=[
        v1.CustomResourceDefinitionVersion(name="v1", schema=v1.CustomResourceValidation(open_apiv3_schema=s))]))
    for ser in sers:
        with pytest.raises(EncodeError, match="nesting depth"):
            ser.encode(crd)


def test_transcoded_values_are_read(sers):
    # A decoder may hand a value over as JSON text (RawJSON), as the CBOR decoder does for
    # JSON-unmarshalled types: the result is the same as from the tree.
    from kcodec.api.apiextensions import v1
    from kcodec.model import RawJSON

    leaf = {"type": "string", "enum": ["a<b"]}
    for cls, tree in ((v1.JSONSchemaPropsOrArray, [leaf, {}]), (v1.JSONSchemaPropsOrArray, leaf),
                      (v1.JSONSchemaPropsOrBool, leaf), (v1.JSONSchemaPropsOrStringArray, ["x", "y"]),
                      (v1.JSONSchemaPropsOrStringArray, leaf), (v1.JSON, {"b": [1, "<"], "a": None})):
        from kcodec.gojson import dumps

        text = dumps(tree, sort_keys=True)
        assert cls._from_tree(RawJSON(text), "x") == cls._from_tree(tree, "x") or cls is v1.JSON
    assert v1.JSON._from_tree(RawJSON(b'{"a": null, "b": [1, "\\u003c"]}'), "x").raw == b'{"a":null,"b":[1,"\\u003c"]}'
    assert v1.JSON._from_tree(RawJSON(b"null"), "x").raw is None


def test_cbor_round_trip_of_the_fixtures():
    from kcodec.api import scheme
    from kcodec.serializer.json import Serializer

    cbor = pytest.importorskip("kcodec.serializer.cbor")
    folder = pytest.importorskip("conftest").SHARED / "fixtures" / "apiextensions-apiserver-v0.36.3" / "HEAD"
    if not folder.is_dir():
        pytest.skip("fixtures not found")
    js, cb = Serializer(scheme, scheme), cbor.Serializer(scheme, scheme)
    for path in sorted(folder.glob("*.json")):
        obj, _ = js.decode(path.read_bytes())
        data = cb.encode(obj)
        again, _ = cb.decode(data)
        # A RawExtension keeps the fixture's pretty bytes (UnmarshalJSON), and CBOR
        # transcodes them to compact JSON on the way back, as in Go: compare the JSON.
        assert js.encode(again) == js.encode(obj), path.name
        assert cb.encode(again) == data, path.name


def test_or_bool_error_is_go_text_with_the_place_as_data():
    # apiextensions v1 marshal.go, JSONSchemaPropsOrBool.UnmarshalJSON: the text alone;
    # kcodec's location is field_path.
    from kcodec.api.apiextensions import v1

    with pytest.raises(DecodeError) as info:
        v1.JSONSchemaPropsOrBool._from_tree(42, "spec.x")
    assert str(info.value) == "boolean or JSON schema expected"
    assert info.value.field_path == "spec.x"


def test_props_protobuf_illegal_tag_is_gogo_text():
    # apiextensions v1 generated.pb.go, JSONSchemaPropsOrBool.Unmarshal: fieldNum <= 0.
    from kcodec.api.apiextensions import v1

    with pytest.raises(DecodeError) as info:
        v1.JSONSchemaPropsOrBool._from_proto_body(b"\x00", "spec.x")
    assert str(info.value) == "proto: JSONSchemaPropsOrBool: illegal tag 0 (wire type 0)"
    assert info.value.field_path == "spec.x"
