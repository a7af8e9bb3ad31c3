"""The model layer (kcodec.model) against small test types: Go struct semantics in Python.

The types below mirror a Go struct with every kind of field the generated Kubernetes
types use: value scalars (zero values, always written by protobuf), pointers (``X | None``,
written only when set), nil-able lists/maps/bytes (``None`` kept apart from empty), a
value struct, a pointer struct, an embedded (inline) struct, string-keyed maps, bytes
(base64 in JSON), and the custom values Time / Quantity / IntOrString. Expected bytes are
written out by hand from the Go rules (Go: k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (Decode); k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (Encode); the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime; k8s.io/apimachinery/pkg/apis/meta/v1 and util/intstr), not copied from output.
"""
from __future__ import annotations

import base64
import copy
import json
import math
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kcodec.api.meta.v1 import Time
from kcodec.errors import DecodeError, EncodeError, NotMarshalableError
from kcodec.model import (
    Int32,
    Struct,
    Wrapped,
    field,
    fields_of,
    from_proto,
    from_tree,
    is_protobuf_struct,
    to_proto,
)
from kcodec.runtime import Object, Scheme
from kcodec.schema import GroupVersion
from kcodec.serializer.json import Serializer as JSONSerializer
from kcodec.serializer.protobuf import Serializer as ProtobufSerializer
from kcodec.types import IntOrString, Quantity

GV = GroupVersion("model.kcodec.test", "v1")
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class Port(Struct):
    name: str = field(1, "name", omitempty=True)
    number: Int32 = field(2, "number")
    protocol: str | None = field(3, "protocol", omitempty=True)


class Source(Struct):
    """Embedded in Widget: Go's anonymous struct field, JSON-flattened into the parent."""

    path: str = field(1, "path", omitempty=True)
    read_only: bool = field(2, "readOnly", omitempty=True)


class Widget(Object):
    name: str = field(1, "name")
    enabled: bool = field(2, "enabled")
    count: Int32 = field(3, "count")
    total: int = field(4, "total")
    ratio: float = field(5, "ratio")
    payload: bytes | None = field(6, "payload")
    note: str | None = field(7, "note", omitempty=True)
    limit: Int32 | None = field(8, "limit", omitempty=True)
    size: int | None = field(9, "size", omitempty=True)
    flag: bool | None = field(10, "flag", omitempty=True)
    main: Port = field(11, "main")
    extra: Port | None = field(12, "extra", omitempty=True)
    ports: list[Port] | None = field(13, "ports")
    tags: list[str] | None = field(14, "tags", omitempty=True)
    labels: dict[str, str] | None = field(15, "labels", omitempty=True)
    named: dict[str, Port] | None = field(16, "named", omitempty=True)
    source: Source = field(17, "", inline=True)
    numbers: list[int] | None = field(18, "numbers", omitempty=True)
    data: dict[str, bytes] | None = field(19, "data", omitempty=True)
    when: Time = field(20, "when", omitempty=True, omitzero=True)
    amount: Quantity | None = field(21, "amount", omitempty=True)
    target: IntOrString = field(22, "target")
    ids: list[str] | None = field(23, "ids", omitzero=True)
    verbs: Annotated[list[str], Wrapped] | None = field(24, "verbs")


class Loose(Object):
    """JSON-only: an untyped value (interface{}) and a field hidden from JSON."""

    value: Any = field(0, "value", omitempty=True)
    hidden: str = field(0, "-")
    count: Int32 = field(0, "count", omitempty=True)


class Mixed(Struct):
    """Has proto numbers but also an untyped field, which protobuf cannot write."""

    name: str = field(1, "name")
    value: Any = field(2, "value")


class Defaults(Struct):
    label: str = field(1, "label", default="unnamed")
    items: list[str] | None = field(2, "items", default=lambda: [])


def _scheme() -> Scheme:
    s = Scheme("model-test")
    s.add_known_types(GV, Widget, Loose)
    return s


SCHEME = _scheme()
JSON = JSONSerializer(SCHEME, SCHEME)
PRETTY = JSONSerializer(SCHEME, SCHEME, pretty=True)
YAML = JSONSerializer(SCHEME, SCHEME, yaml=True)
PROTO = ProtobufSerializer(SCHEME, SCHEME)
FORMATS = {"json": JSON, "yaml": YAML, "pb": PROTO}


def widget(**kw: Any) -> Widget:
    w = Widget(**kw)
    w.api_version, w.kind = "model.kcodec.test/v1", "Widget"
    return w


# ------------------------------------------------------------------ declaration and compile


def test_fields_become_slots_and_instances_have_no_dict():
    assert Port.__slots__ == ("name", "number", "protocol")
    p = Port()
    assert not hasattr(p, "__dict__")
    with pytest.raises(AttributeError):
        p.nmae = "typo"  # type: ignore[attr-defined]


def test_compiled_table_in_declaration_order_with_go_types():
    rows = fields_of(Widget)
    assert [f.name for f in rows[:4]] == ["kind", "api_version", "name", "enabled"]
    by_name = {f.name: f for f in rows}
    assert by_name["count"].go_name() == "int32"
    assert by_name["total"].go_name() == "int64"
    assert by_name["limit"].go_name() == "*int32"
    assert by_name["note"].go_name() == "*string"
    assert by_name["extra"].pointer and not by_name["main"].pointer
    assert by_name["ports"].go_name() == "[]test_model.Port"
    assert by_name["named"].go_name() == "map[string]test_model.Port"
    assert by_name["data"].go_name() == "map[string][]uint8"
    # nil-able kinds are not pointers: "| None" only documents nil.
    assert not by_name["tags"].pointer and not by_name["payload"].pointer
    numbers = [f.number for f in Widget.__kc_pb__]
    assert numbers == sorted(numbers) and 0 not in numbers
    # the embedded struct's JSON keys are reachable from the parent
    assert [f.name for f in Widget.__kc_json__["readOnly"]] == ["source", "read_only"]
    assert "" not in Widget.__kc_json__


def test_protobuf_capability():
    assert is_protobuf_struct(Widget)
    assert not is_protobuf_struct(Loose)  # no field has a number
    with pytest.raises(NotMarshalableError) as err:
        to_proto(Loose())
    assert "test_model.Loose" in str(err.value)
    with pytest.raises(EncodeError, match="interface"):
        to_proto(Mixed(name="x", value={"a": 1}))


def test_unsupported_annotations_are_rejected_at_compile():
    class BadKey(Struct):
        m: dict[int, str] = field(1, "m")

    class BadUnion(Struct):
        u: int | str = field(1, "u")

    with pytest.raises(TypeError, match="map keys must be str"):
        BadKey()
    with pytest.raises(TypeError, match="unions"):
        BadUnion()
    with pytest.raises(TypeError, match="proto_number"):
        field(-1, "x")


# ------------------------------------------------------------------ construction, zero values


def test_zero_values():
    w = Widget()
    assert (w.name, w.enabled, w.count, w.total, w.ratio) == ("", False, 0, 0, 0.0)
    assert w.payload is None and w.note is None and w.limit is None and w.flag is None
    assert w.main == Port() and w.extra is None
    assert w.ports is None and w.tags is None and w.labels is None and w.data is None
    assert w.source == Source()
    assert w.when.is_zero() and w.amount is None
    assert w.target == IntOrString(0)


def test_value_structs_are_fresh_per_instance():
    a, b = Widget(), Widget()
    a.main.number = 5
    a.source.path = "/a"
    assert b.main.number == 0 and b.source.path == ""


def test_constructor_positional_keyword_and_errors():
    p = Port("http", 80)
    assert (p.name, p.number, p.protocol) == ("http", 80, None)
    assert Port(number=443, protocol="TCP") == Port("", 443, "TCP")
    with pytest.raises(TypeError, match="unexpected keyword argument 'nmae'"):
        Port(nmae="x")
    with pytest.raises(TypeError, match="multiple values"):
        Port("a", name="b")
    with pytest.raises(TypeError, match="at most 3"):
        Port("a", 1, "TCP", "extra")


def test_python_defaults_do_not_change_the_go_zero_value():
    d = Defaults()
    assert d.label == "unnamed" and d.items == []
    assert Defaults().items is not d.items  # a callable default runs per instance
    # decoding starts from Go's zero value, not from Python-side defaults
    assert from_tree(Defaults, {}).label == ""
    assert from_tree(Defaults, {}).items is None


# ------------------------------------------------------------------ equality, repr, copy


def test_value_equality():
    assert Port("a", 1) == Port("a", 1)
    assert Port("a", 1) != Port("a", 2)
    assert Port("a", 1, None) != Port("a", 1, "")  # nil pointer vs pointer to ""
    assert Widget(tags=None) != Widget(tags=[])
    assert Widget(labels=None) != Widget(labels={})
    assert Widget(payload=None) != Widget(payload=b"")
    assert Widget(ports=[Port("a")]) == Widget(ports=[Port("a")])
    assert Port() != Source()  # different types never compare equal
    assert (Port() == 1) is False
    with pytest.raises(TypeError):
        hash(Port())


def test_repr_shows_only_non_zero_fields():
    assert repr(Port()) == "Port()"
    assert repr(Port("http", 80)) == "Port(name='http', number=80)"
    assert repr(Port(protocol="")) == "Port(protocol='')"  # a set pointer is shown
    assert repr(Widget(tags=[], count=3)) == "Widget(count=3, tags=[])"
    assert repr(Widget(main=Port(number=1))) == "Widget(main=Port(number=1))"


def test_deep_copy_shares_no_mutable_state():
    w = widget(
        name="w", ports=[Port("a", 1)], tags=["x"], labels={"k": "v"},
        named={"n": Port("b", 2)}, numbers=[1], data={"d": b"\x00"},
        main=Port("m", 3), extra=Port("e", 4), amount=Quantity("1Gi"),
    )
    c = w.deep_copy()
    assert c == w and c is not w
    c.ports[0].number = 99
    c.tags.append("y")
    c.labels["k2"] = "v2"
    c.named["n"].name = "changed"
    c.numbers.append(2)
    c.main.name = "changed"
    c.extra.number = 0
    c.source.path = "/p"
    assert w.ports[0].number == 1 and w.tags == ["x"] and w.labels == {"k": "v"}
    assert w.named["n"].name == "b" and w.numbers == [1] and w.main.name == "m"
    assert w.extra.number == 4 and w.source.path == ""
    assert c != w
    # None and empty survive the copy as they are
    z = Widget(tags=[], labels=None).deep_copy()
    assert z.tags == [] and z.labels is None


def test_deep_copy_of_untyped_values():
    obj = Loose(value={"a": [1, {"b": None}]})
    c = obj.deep_copy()
    c.value["a"][1]["b"] = 2
    assert obj.value == {"a": [1, {"b": None}]}


# ------------------------------------------------------------------ to_dict / from_dict


def test_to_dict_of_zero_value_follows_omitempty_and_omitzero():
    # Go: value scalars always written, nil list/bytes without omitempty -> null, value
    # struct always written (omitempty never drops structs), Time with omitzero dropped,
    # nil pointers with omitempty dropped, the embedded struct's empty fields dropped.
    assert Widget().to_dict() == {
        "name": "",
        "enabled": False,
        "count": 0,
        "total": 0,
        "ratio": 0.0,
        "payload": None,
        "main": {"number": 0},
        "ports": None,
        "target": 0,
        "verbs": None,
    }


def test_to_dict_keeps_nil_and_empty_apart():
    d = Widget(ports=[], tags=[], labels={}, ids=[], payload=b"", verbs=[]).to_dict()
    assert d["ports"] == []  # no omitempty: empty list is written as []
    assert "tags" not in d and "labels" not in d  # omitempty drops empty lists and maps
    assert d["ids"] == []  # omitzero drops only nil
    assert "ids" not in Widget(ids=None).to_dict()
    assert d["payload"] == ""
    assert d["verbs"] == []


def test_to_dict_set_pointers_are_written_even_when_zero():
    d = Widget(note="", limit=0, size=0, flag=False, extra=Port()).to_dict()
    assert d["note"] == "" and d["limit"] == 0 and d["size"] == 0 and d["flag"] is False
    assert d["extra"] == {"number": 0}


def test_to_dict_inline_bytes_maps_and_custom_values():
    w = Widget(
        source=Source("/data", True),
        payload=bytes([0, 1, 2, 255]),
        data={"b": b"hello", "a": b""},
        labels={"z": "1", "a": "2", "M": "3"},
        when=Time.unix(894344705),
        amount=Quantity("1024Mi"),
        target=IntOrString.from_string("50%"),
    )
    d = w.to_dict()
    assert d["path"] == "/data" and d["readOnly"] is True
    assert d["payload"] == "AAEC/w=="
    assert d["data"] == {"a": "", "b": "aGVsbG8="}
    assert list(d["labels"]) == ["M", "a", "z"]
    assert d["when"] == "1998-05-05T05:05:05Z"
    assert d["amount"] == "1Gi"
    assert d["target"] == "50%"


def test_from_dict_roundtrip_and_types():
    src = {
        "name": "w", "enabled": True, "count": -5, "total": INT64_MAX, "ratio": 1,
        "payload": "AAEC/w==", "note": "", "limit": 0, "flag": False,
        "main": {"name": "m", "number": 8080}, "extra": {},
        "ports": [], "tags": ["a"], "labels": {"k": "v"}, "named": {"x": {"number": 1}},
        "path": "/p", "readOnly": True, "numbers": [INT64_MIN], "data": {"k": "aGk="},
        "when": "1998-05-05T01:05:05-04:00", "amount": "0.5", "target": 80, "ids": [],
    }
    w = Widget.from_dict(src)
    assert w.ratio == 1.0 and type(w.ratio) is float
    assert w.payload == bytes([0, 1, 2, 255])
    assert w.note == "" and w.limit == 0 and w.flag is False and w.size is None
    assert w.extra == Port() and w.ports == [] and w.tags == ["a"]
    assert w.named == {"x": Port(number=1)}
    assert w.source == Source("/p", True)
    assert w.data == {"k": b"hi"}
    assert w.when == Time.unix(894344705)
    assert str(w.amount) == "500m"
    assert w.target == IntOrString(80)
    back = Widget.from_dict(w.to_dict())
    assert back == w


def test_from_dict_null_gives_nil_for_nilable_and_zero_for_values():
    w = Widget.from_dict({"name": None, "count": None, "payload": None, "ports": None,
                          "note": None, "main": None, "extra": None, "labels": None, "when": None})
    assert w == Widget()


def test_from_tree_into_merges_and_null_leaves_values_alone():
    # Go's json.Unmarshal into an existing struct: absent keys keep their values; null
    # clears pointers, slices and maps but is ignored for scalar and struct values.
    w = Widget(name="keep", count=7, note="n", tags=["t"], labels={"a": "1"}, main=Port("m", 1))
    from_tree(Widget, {"name": None, "count": None, "note": None, "tags": None,
                       "labels": {"b": "2"}, "main": {"number": 2}, "total": 3}, into=w)
    assert w.name == "keep" and w.count == 7
    assert w.note is None and w.tags is None
    assert w.labels == {"a": "1", "b": "2"}  # maps merge key by key
    assert w.main == Port("m", 2)  # struct fields merge
    assert w.total == 3


def test_json_keys_match_case_sensitively_and_unknown_keys_are_dropped():
    w = Widget.from_dict({"Name": "x", "NAME": "y", "bogus": 1, "name": "z"})
    assert w.name == "z"
    strict: list[str] = []
    from_tree(Widget, {"Name": "x", "main": {"Number": 1}, "ports": [{"nme": ""}]}, strict=strict)
    assert strict == ['unknown field "Name"', 'unknown field "main.Number"', 'unknown field "ports[0].nme"']


@pytest.mark.parametrize(
    ("tree", "message"),
    [
        ({"count": "1"}, "json: cannot unmarshal string into Go struct field Widget.count of type int32"),
        ({"count": 2**31}, "json: cannot unmarshal number 2147483648 into Go struct field Widget.count of type int32"),
        ({"count": 1.5}, "json: cannot unmarshal number 1.5 into Go struct field Widget.count of type int32"),
        ({"total": 2**63}, "into Go struct field Widget.total of type int64"),
        ({"limit": True}, "json: cannot unmarshal bool into Go struct field Widget.limit of type int32"),
        # Go names a number's text only when an integer or float target refused it.
        ({"enabled": 1}, "json: cannot unmarshal number into Go struct field Widget.enabled of type bool"),
        ({"ratio": "1"}, "json: cannot unmarshal string into Go struct field Widget.ratio of type float64"),
        ({"name": 5}, "json: cannot unmarshal number into Go struct field Widget.name of type string"),
        ({"main": []}, "json: cannot unmarshal array into Go struct field Widget.main of type test_model.Port"),
        ({"extra": 1}, "json: cannot unmarshal number into Go struct field Widget.extra of type test_model.Port"),
        ({"ports": {}}, "json: cannot unmarshal object into Go struct field Widget.ports of type []test_model.Port"),
        # Go's context: the innermost struct's name, then the JSON names without indexes or
        # map keys, embedded structs by their Go name.
        ({"ports": [{"number": "x"}]}, "json: cannot unmarshal string into Go struct field Port.ports.number of type int32"),
        ({"labels": {"a": 1}}, "json: cannot unmarshal number into Go struct field Widget.labels of type string"),
        ({"named": {"k": {"number": []}}}, "json: cannot unmarshal array into Go struct field Port.named.number of type int32"),
        ({"readOnly": "yes"}, "json: cannot unmarshal string into Go struct field Widget.Source.readOnly of type bool"),
        # encoding/json reports base64's own error, no field; kcodec keeps it as field_path.
        ({"payload": "AAEC/w"}, "illegal base64 data at input byte 4"),
        ({"payload": "AAEC_w=="}, "illegal base64 data at input byte 4"),
        ({"data": {"k": "é"}}, "illegal base64 data at input byte 0"),
        ({"when": "1998-05-05 05:05:05Z"}, 'parsing time "1998-05-05 05:05:05Z"'),
        ({"amount": "1.1.M"}, "quantities must match the regular expression"),
        ({"target": 5.5}, "Widget.target"),
        ({"verbs": "get"}, "Go struct field Widget.verbs of type []string"),
    ],
)
def test_from_dict_type_errors_name_the_field(tree, message):
    with pytest.raises(DecodeError) as err:
        Widget.from_dict(tree)
    assert message in str(err.value)


def test_from_dict_of_non_object():
    with pytest.raises(DecodeError, match="cannot unmarshal array into Go value of type test_model.Widget"):
        from_tree(Widget, [1])
    assert from_tree(Widget, None) == Widget()


def _depth(v: Any) -> int:
    n = 0
    while isinstance(v, list) and v:
        v, n = v[0], n + 1
    return n


def test_deep_untyped_values_stay_below_the_recursion_limit():
    # Go accepts nesting up to 10000 levels; Python's recursion limit is 1000.
    depth = 3000
    data = (b'{"kind":"Loose","apiVersion":"model.kcodec.test/v1","value":'
            + b"[" * depth + b"1" + b"]" * depth + b"}")
    obj, _ = JSON.decode(data)
    assert _depth(obj.value) == depth
    assert _depth(obj.deep_copy().value) == depth
    assert _depth(obj.to_dict()["value"]) == depth
    assert JSON.encode(obj) == data + b"\n"
    assert _depth(YAML.decode(YAML.encode(obj))[0].value) == depth


def test_untyped_and_hidden_fields():
    obj = Loose(value={"b": [1, 2.5, None, True, "s"]}, hidden="secret", count=0)
    assert obj.to_dict() == {"value": {"b": [1, 2.5, None, True, "s"]}}
    back = Loose.from_dict({"value": [1], "hidden": "x", "-": "y"})
    assert back.value == [1] and back.hidden == ""


# ------------------------------------------------------------------ protobuf wire rules (Go: the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime)

ZERO_WIDGET_PB = bytes.fromhex(
    "0a00"  # 1 name "" (value: always)
    "1000"  # 2 enabled false
    "1800"  # 3 count 0
    "2000"  # 4 total 0
    "290000000000000000"  # 5 ratio 0.0 (fixed64)
    # 6 payload nil, 7-10 nil pointers: absent
    "5a04" "0a00" "1000"  # 11 main: value struct, always (its own zero fields inside)
    # 12 extra nil, 13-16 nil list/maps: absent
    "8a01" "04" "0a00" "1000"  # 17 embedded struct, always
    # 18, 19 nil: absent
    "a201" "00"  # 20 when: zero Time is an empty message
    # 21 amount nil pointer: absent
    "b201" "06" "0800" "1000" "1a00"  # 22 target: IntOrString, all three fields always
    # 23 ids nil, 24 verbs nil: absent
)


def test_protobuf_zero_value_writes_every_value_field():
    assert to_proto(Widget()) == ZERO_WIDGET_PB
    assert from_proto(Widget, ZERO_WIDGET_PB) == Widget()


def test_protobuf_pointers_written_only_when_set_even_to_zero():
    w = Widget(note="", limit=0, size=0, flag=False, extra=Port())
    body = to_proto(w)
    assert bytes.fromhex("3a00" "4000" "4800" "5000") in body
    assert bytes.fromhex("6204" "0a00" "1000") in body  # 12 extra: empty Port
    back = from_proto(Widget, body)
    assert back.note == "" and back.limit == 0 and back.size == 0 and back.flag is False
    assert back.extra == Port()
    assert from_proto(Widget, to_proto(Widget())).note is None


def test_protobuf_negative_varints_take_ten_bytes():
    body = to_proto(Widget(count=-1, total=INT64_MIN))
    assert bytes.fromhex("18ffffffffffffffffff01") in body
    assert bytes.fromhex("2080808080808080808001") in body
    back = from_proto(Widget, body)
    assert back.count == -1 and back.total == INT64_MIN


def test_protobuf_lists_maps_bytes():
    w = Widget(
        ports=[Port("a", 1), Port()],
        tags=["x", ""],
        labels={"b": "2", "a": ""},
        numbers=[1, -1],
        data={"k": b"", "j": b"\x00"},
        payload=b"",
        verbs=["get", "list"],
    )
    body = to_proto(w)
    # one tag per element, message elements length-prefixed
    assert bytes.fromhex("6a05" "0a0161" "1001" "6a04" "0a00" "1000") in body
    assert bytes.fromhex("7201" "78" "7200") in body
    # map entries sorted by key; both key and value written even when ""
    assert bytes.fromhex("7a05" "0a0161" "1200" "7a06" "0a0162" "120132") in body
    assert bytes.fromhex("9001" "01" "9001" "ffffffffffffffffff01") in body
    assert bytes.fromhex("9a01" "06" "0a016a" "120100" "9a01" "05" "0a016b" "1200") in body
    assert bytes.fromhex("3200") in body  # empty non-nil bytes: tag and zero length
    # a Go named slice: one message {repeated string items = 1}
    assert bytes.fromhex("c201" "0b" "0a03676574" "0a046c697374") in body
    back = from_proto(Widget, body)
    assert back == w
    assert back.payload == b""


def test_protobuf_empty_lists_and_maps_decode_as_nil():
    back = from_proto(Widget, to_proto(Widget(ports=[], tags=[], labels={}, numbers=[])))
    assert back.ports is None and back.tags is None and back.labels is None and back.numbers is None
    # a Wrapped list is a message: empty is still written, and comes back empty
    assert from_proto(Widget, to_proto(Widget(verbs=[]))).verbs == []


def test_protobuf_decoder_accepts_packed_scalars_unknown_fields_and_repeats():
    packed = bytes.fromhex("9201" "03" "01" "02" "03")  # 18 numbers, packed form
    assert from_proto(Widget, packed).numbers == [1, 2, 3]
    unknown = bytes.fromhex("f807" "05" "fa07" "02" "0000" "fd07" "00000000" "f907" "0000000000000000")
    assert from_proto(Widget, unknown + bytes.fromhex("0a0178")) == Widget(name="x")
    # the last value of a repeated scalar field wins; repeated value structs merge
    twice = bytes.fromhex("0a0161" "0a0162" "5a03" "0a0163" "5a02" "1005")
    back = from_proto(Widget, twice)
    assert back.name == "b" and back.main == Port("c", 5)


def test_protobuf_repeated_pointer_message_merges():
    # gogo's generated Unmarshal allocates a pointer message only when it is nil, so a
    # second occurrence merges into the first, exactly as for a value message.
    back = from_proto(Widget, bytes.fromhex("6203" "0a0164" "6202" "1006"))
    assert back.extra == Port("d", 6)


def test_protobuf_map_entry_missing_key_or_value_uses_zero():
    body = bytes.fromhex("7a03" "120131" "8201" "03" "0a0178")
    back = from_proto(Widget, body)
    assert back.labels == {"": "1"}
    assert back.named == {"x": Port()}


def test_protobuf_int32_keeps_low_32_bits_like_go():
    # Go's generated decoder: m.X |= int32(b&0x7F) << shift, so high bits are dropped.
    body = bytes.fromhex("18" "8080808010")  # 2**32
    assert from_proto(Widget, body).count == 0
    body = bytes.fromhex("18" "ffffffff0f")  # 2**32 - 1
    assert from_proto(Widget, body).count == -1


def test_protobuf_varint_keeps_64_bits_like_go():
    # A 10-byte varint carries 70 bits; Go keeps the low 64, so this is -1 and a
    # re-encode writes the canonical form back.
    body = bytes.fromhex("20" "ffffffffffffffffff7f")
    back = from_proto(Widget, body)
    assert back.total == -1
    assert bytes.fromhex("20ffffffffffffffffff01") in to_proto(back)
    with pytest.raises(DecodeError, match="^proto: integer overflow$") as info:
        from_proto(Widget, bytes.fromhex("20" "ffffffffffffffffffff01"))
    assert info.value.offset == 1


def test_protobuf_float_is_fixed64_little_endian():
    body = to_proto(Widget(ratio=1.5))
    assert bytes.fromhex("29000000000000f83f") in body
    assert from_proto(Widget, body).ratio == 1.5


# ------------------------------------------------------------------ through the serializers


def test_json_serializer_bytes_of_zero_and_full_widget():
    assert JSON.encode(widget()) == (
        b'{"kind":"Widget","apiVersion":"model.kcodec.test/v1","name":"","enabled":false,'
        b'"count":0,"total":0,"ratio":0,"payload":null,"main":{"number":0},"ports":null,'
        b'"target":0,"verbs":null}\n'
    )
    w = widget(name="<w&>", ratio=1e21, payload=b"\xff", note="", ports=[Port("p", 1)],
               labels={"b": "", "a": "x"}, source=Source("/s"), amount=Quantity("1.5"),
               target=IntOrString.from_string("123"), ids=[], verbs=["get"])
    assert JSON.encode(w) == (
        b'{"kind":"Widget","apiVersion":"model.kcodec.test/v1",'
        b'"name":"\\u003cw\\u0026\\u003e","enabled":false,"count":0,"total":0,"ratio":1e+21,'
        b'"payload":"/w==","note":"","main":{"number":0},"ports":[{"name":"p","number":1}],'
        b'"labels":{"a":"x","b":""},"path":"/s","amount":"1500m","target":"123","ids":[],'
        b'"verbs":["get"]}\n'
    )


def test_pretty_and_yaml_serializer_forms():
    w = widget(name="w", ports=[], tags=["a"], labels={})
    assert PRETTY.encode(w) == (
        b'{\n  "kind": "Widget",\n  "apiVersion": "model.kcodec.test/v1",\n  "name": "w",\n'
        b'  "enabled": false,\n  "count": 0,\n  "total": 0,\n  "ratio": 0,\n  "payload": null,\n'
        b'  "main": {\n    "number": 0\n  },\n  "ports": [],\n  "tags": [\n    "a"\n  ],\n'
        b'  "target": 0,\n  "verbs": null\n}'
    )
    assert YAML.encode(w) == (
        b"apiVersion: model.kcodec.test/v1\ncount: 0\nenabled: false\nkind: Widget\nmain:\n"
        b"  number: 0\nname: w\npayload: null\nports: []\nratio: 0\ntags:\n- a\ntarget: 0\n"
        b"total: 0\nverbs: null\n"
    )


def test_protobuf_serializer_envelope_around_the_body():
    out = PROTO.encode(widget())
    type_meta = b"\x0a\x14model.kcodec.test/v1\x12\x06Widget"
    assert out == (b"k8s\x00" + b"\x0a" + bytes([len(type_meta)]) + type_meta
                   + b"\x12" + bytes([len(ZERO_WIDGET_PB)]) + ZERO_WIDGET_PB + b"\x1a\x00\x22\x00")


@pytest.mark.parametrize("fmt", ["json", "yaml", "pb"])
def test_nil_and_empty_through_each_format(fmt):
    s = FORMATS[fmt]
    w = widget(ports=[], tags=[], payload=b"", ids=[], verbs=[])
    back, _ = s.decode(s.encode(w))
    # protobuf cannot tell an empty repeated field from an absent one
    assert back.ports == (None if fmt == "pb" else [])
    assert back.tags is None  # omitempty (JSON) / nothing written (protobuf)
    assert back.payload == b""
    assert back.ids == (None if fmt == "pb" else [])
    assert back.verbs == []
    nil, _ = s.decode(s.encode(widget()))
    assert nil.ports is None and nil.payload is None and nil.ids is None and nil.verbs is None


# ------------------------------------------------------------------ hypothesis round trips

# Strings Go's YAML output keeps: sigs.k8s.io/yaml reads json.Marshal's text with go-yaml,
# whose reader refuses DEL, the C1 controls and U+FFFE/U+FFFF, and reads NEL as a line
# break (readerc.go, scannerc.go; tests/test_go_behaviour.py has those cases).
_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x7f\ufffe\uffff" + "".join(
    chr(c) for c in range(0x80, 0xA0))), max_size=12)
_i32 = st.integers(INT32_MIN, INT32_MAX)
_i64 = st.integers(INT64_MIN, INT64_MAX)
_floats = st.floats(allow_nan=False, allow_infinity=False)


_ports = st.builds(Port, _text, _i32, st.none() | _text)
_quantities = st.sampled_from(["0", "1", "100m", "1Gi", "1500m", "5G", "-3", "1e3", "2n", "123456789"]).map(Quantity)
_targets = st.one_of(_i32.map(IntOrString.from_int), _text.map(IntOrString.from_string))
# Seconds between years 1 and 9999: the range RFC3339 text can carry.
_times = st.one_of(st.just(Time()), st.integers(-62135596799, 253402300799).map(Time.unix))


@st.composite
def widgets(draw, *, json_only: bool = False):
    """Random widgets in the canonical form of the formats under test.

    In all three formats an empty list/map is indistinguishable from nil for omitempty
    fields and for protobuf, so those are generated as None or non-empty; ``json_only``
    also uses empty lists where JSON keeps them.
    """
    lists = (lambda s: st.lists(s, max_size=3)) if json_only else (lambda s: st.lists(s, min_size=1, max_size=3))
    w = widget(
        name=draw(_text),
        enabled=draw(st.booleans()),
        count=draw(_i32),
        total=draw(_i64),
        ratio=draw(_floats),
        payload=draw(st.none() | st.binary(max_size=8)),
        note=draw(st.none() | _text),
        limit=draw(st.none() | _i32),
        size=draw(st.none() | _i64),
        flag=draw(st.none() | st.booleans()),
        main=draw(_ports),
        extra=draw(st.none() | _ports),
        ports=draw(st.none() | lists(_ports)),
        tags=draw(st.none() | st.lists(_text, min_size=1, max_size=3)),
        labels=draw(st.none() | st.dictionaries(_text, _text, min_size=1, max_size=3)),
        named=draw(st.none() | st.dictionaries(_text, _ports, min_size=1, max_size=2)),
        source=Source(draw(_text), draw(st.booleans())),
        numbers=draw(st.none() | st.lists(_i64, min_size=1, max_size=3)),
        data=draw(st.none() | st.dictionaries(_text, st.binary(max_size=6), min_size=1, max_size=2)),
        when=draw(_times),
        amount=draw(st.none() | _quantities),
        target=draw(_targets),
        ids=draw(st.none() | lists(_text)),
        verbs=draw(st.none() | st.lists(_text, max_size=3)),
    )
    return w


@pytest.mark.parametrize("fmt", ["json", "yaml", "pb"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=widgets())
def test_roundtrip_identity_all_formats(fmt, w):
    s = FORMATS[fmt]
    data = s.encode(w)
    back, gvk = s.decode(data)
    assert gvk == GV.with_kind("Widget")
    assert back == w
    assert s.encode(back) == data


@settings(max_examples=60, deadline=None)
@given(w=widgets(json_only=True))
def test_roundtrip_json_keeps_empty_lists(w):
    back, _ = JSON.decode(JSON.encode(w))
    assert back == w


@settings(max_examples=60, deadline=None)
@given(w=widgets())
def test_dict_roundtrip_and_copy(w):
    d = w.to_dict()
    assert json.loads(json.dumps(d)) == d  # plain JSON-compatible values only
    assert Widget.from_dict(d) == w
    c = w.deep_copy()
    assert c == w
    assert to_proto(c) == to_proto(w)


@settings(max_examples=40, deadline=None)
@given(w=widgets())
def test_formats_agree_on_the_decoded_object(w):
    decoded = [s.decode(s.encode(w))[0] for s in FORMATS.values()]
    assert decoded[0] == decoded[1] == decoded[2]


@settings(max_examples=60, deadline=None)
@given(x=_floats)
def test_float_fields_roundtrip_bit_exact_except_negative_zero(x):
    w = widget(ratio=x)
    for s in FORMATS.values():
        back = s.decode(s.encode(w))[0].ratio
        assert back == x
        if x != 0:
            assert math.copysign(1, back) == math.copysign(1, x)


def test_copy_deepcopy_gives_an_independent_object():
    w = Widget(ports=[Port("a")])
    c = copy.deepcopy(w)
    c.ports[0].name = "b"
    assert w.ports[0].name == "a"


def test_base64_matches_the_standard_alphabet():
    raw = bytes(range(256))
    assert Widget(payload=raw).to_dict()["payload"] == base64.b64encode(raw).decode()


def test_field_go_names_name_elements_and_pointers():
    # field(go=...) spells reflect.Type.String(); a named slice/map's underlying type names
    # its elements (a JSON type error on an element names the element's type).
    class GoNamed(Struct):
        extra: dict[str, list[str]] | None = field(
            1, "extra", go="map[string]v1.ExtraValue=[]string")
        policy: str | None = field(2, "policy", go="*v1.PreemptionPolicy")
        limits: dict[str, Quantity] | None = field(
            3, "limits", go="v1.ResourceList=map[v1.ResourceName]resource.Quantity")
        plain: list[str] | None = field(4, "plainItems")
        uid: str = field(5, "uid", go="types.UID", go_field="UID")

    f = {x.name: x for x in fields_of(GoNamed)}
    assert f["extra"].go_name() == "map[string]v1.ExtraValue"
    assert f["extra"].elem.go_name() == "v1.ExtraValue"
    assert f["extra"].elem.elem.go_name() == "string"
    assert f["policy"].go_name() == "*v1.PreemptionPolicy"
    assert (f["limits"].go_name(), f["limits"].elem.go_name()) == ("v1.ResourceList", "resource.Quantity")
    assert f["plain"].go_name() == "[]string"
    assert (f["plain"].go_field(), f["uid"].go_field()) == ("PlainItems", "UID")
    with pytest.raises(DecodeError) as info:
        from_tree(GoNamed, {"policy": 1})
    assert str(info.value) == ("json: cannot unmarshal number into Go struct field GoNamed.policy "
                               "of type v1.PreemptionPolicy")
    with pytest.raises(DecodeError) as info:
        from_tree(GoNamed, {"extra": {"a": "x"}})
    assert str(info.value) == ("json: cannot unmarshal string into Go struct field GoNamed.extra "
                               "of type v1.ExtraValue")
    assert info.value.field_path == "extra[a]"


class _Node(Struct):
    name: str = field(1, "name")
    child: _Node | None = field(2, "child", omitempty=True)


def test_protobuf_nesting_bound_keeps_the_place_as_data():
    # Go's generated code recurses without a bound; kcodec's bound keeps the place in
    # field_path, out of the text.
    body = b""
    for _ in range(120):
        body = b"\x12" + _varint_bytes(len(body)) + body
    with pytest.raises(DecodeError) as info:
        from_proto(_Node, body)
    assert str(info.value) == "proto: exceeded max nesting depth 100"
    assert info.value.field_path.startswith("child.child.")


def _varint_bytes(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)
