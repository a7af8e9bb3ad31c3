"""intstr.IntOrString: JSON, protobuf and helper behaviour (Go: k8s.io/apimachinery/pkg/util/intstr/intstr.go)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kcodec.errors import DecodeError
from kcodec.types import (
    INT,
    STRING,
    IntOrString,
    get_scaled_value_from_int_or_percent,
    get_value_from_int_or_percent,
    value_or_default,
)


def test_constructors() -> None:
    i = IntOrString(5)
    assert (i.type, i.int_val, i.str_val) == (INT, 5, "")
    s = IntOrString.from_string("50%")
    assert (s.type, s.int_val, s.str_val) == (STRING, 0, "50%")
    assert IntOrString.from_int(7) == IntOrString(7)
    assert IntOrString() == IntOrString(0)
    assert IntOrString.from_int(2**31).int_val == -(2**31)  # int32(val) wraps like Go


def test_json_tree() -> None:
    assert IntOrString(123)._to_tree() == 123
    assert IntOrString.from_string("123")._to_tree() == "123"
    decoded = IntOrString._from_tree("123", "p")
    assert decoded.type == STRING and decoded.str_val == "123"
    assert IntOrString._from_tree(123, "p") == IntOrString(123)
    assert IntOrString._from_tree(None, "p") == IntOrString(0)
    assert IntOrString._from_tree(-(2**31), "p").int_val == -(2**31)


@pytest.mark.parametrize(
    "tree, message",
    [
        (5.5, "json: cannot unmarshal number 5.5 into Go value of type int32"),
        (True, "json: cannot unmarshal bool into Go value of type int32"),
        (2**31, "json: cannot unmarshal number 2147483648 into Go value of type int32"),
        ([1], "json: cannot unmarshal array into Go value of type int32"),
        ({}, "json: cannot unmarshal object into Go value of type int32"),
    ],
)
def test_json_tree_errors(tree: object, message: str) -> None:
    with pytest.raises(DecodeError) as info:
        IntOrString._from_tree(tree, "spec.port")
    assert str(info.value) == message  # Go's text; the place is data
    assert info.value.field_path == "spec.port"


def test_protobuf() -> None:
    assert IntOrString(5)._proto_body() == bytes.fromhex("080010051a00")
    assert IntOrString.from_string("50%")._proto_body() == bytes.fromhex("080110001a03353025")
    assert IntOrString(-1)._proto_body() == bytes.fromhex("080010ffffffffffffffffff011a00")
    assert IntOrString._from_proto_body(bytes.fromhex("080010051a00"), "p") == IntOrString(5)
    assert IntOrString._from_proto_body(bytes.fromhex("080110001a03353025"), "p") == IntOrString.from_string("50%")
    assert IntOrString._from_proto_body(b"", "p") == IntOrString(0)
    assert IntOrString._from_proto_body(bytes.fromhex("10ffffffffffffffffff01"), "p").int_val == -1
    # unknown field 4 (bytes) skipped, fixed32 field 5 skipped
    assert IntOrString._from_proto_body(bytes.fromhex("1007220178 2d01020304".replace(" ", "")), "p") == IntOrString(7)
    for bad, text in [
        (b"\x08", "unexpected EOF"),
        (b"\x1a\x05ab", "unexpected EOF"),
        (b"\x0a\x00", "wrong wireType = 2 for field Type"),
        (b"\x0c", "wiretype end group"),
        (b"\x00", "illegal tag 0"),
        (b"\x08" + b"\xff" * 10, "integer overflow"),
        (b"\x0f", "illegal wireType 7"),
    ]:
        with pytest.raises(DecodeError) as info:
            IntOrString._from_proto_body(bad, "spec.port")
        assert text in str(info.value) and info.value.field_path == "spec.port"


@given(st.one_of(st.integers(-(2**31), 2**31 - 1).map(IntOrString), st.text().map(IntOrString.from_string)))
def test_roundtrips(v: IntOrString) -> None:
    assert IntOrString._from_tree(v._to_tree(), "p") == v
    assert IntOrString._from_proto_body(v._proto_body(), "p") == v
    assert hash(IntOrString._from_tree(v._to_tree(), "p")) == hash(v)


def test_helpers() -> None:
    assert str(IntOrString(12)) == "12"
    assert str(IntOrString.from_string("x")) == "x"
    assert IntOrString.from_string("x").int_value() == 0
    assert IntOrString.from_string("42").int_value() == 42
    assert IntOrString.from_string("99999999999999999999").int_value() == 2**63 - 1
    assert IntOrString.parse("12") == IntOrString(12)
    assert IntOrString.parse("x") == IntOrString.from_string("x")
    assert IntOrString.parse("2147483648") == IntOrString.from_string("2147483648")
    assert IntOrString.parse("-5") == IntOrString(-5)
    assert value_or_default(None, IntOrString(3)) == IntOrString(3)
    assert value_or_default(IntOrString(1), IntOrString(3)) == IntOrString(1)
    assert repr(IntOrString(3)) == "IntOrString(3)"
    assert IntOrString(3).deep_copy() == IntOrString(3)
    assert IntOrString()._is_zero() and not IntOrString.from_string("")._is_zero()


def test_scaled_value_from_int_or_percent() -> None:
    f = get_scaled_value_from_int_or_percent
    assert f(IntOrString.from_string("40%"), 100, True) == 40
    assert f(IntOrString.from_string("90%"), 95, True) == 86
    assert f(IntOrString.from_string("90%"), 95, False) == 85
    assert f(IntOrString(123), 10, True) == 123
    with pytest.raises(DecodeError) as info:
        f(None, 100, True)
    assert str(info.value) == "nil value for IntOrString"
    for bad in ("200", "30%0", "40#"):
        with pytest.raises(DecodeError) as info:
            f(IntOrString.from_string(bad), 100, True)
        assert str(info.value) == "invalid value for IntOrString: invalid type: string is not a percentage"
    for bad, inner in (("%", ""), ("a%", "a"), ("40%%", "40%")):
        with pytest.raises(DecodeError) as info:
            f(IntOrString.from_string(bad), 100, True)
        assert str(info.value) == (
            f'invalid value for IntOrString: invalid value "{bad}": strconv.Atoi: parsing "{inner}": invalid syntax'
        )
    with pytest.raises(DecodeError, match="neither int nor percentage"):
        f(IntOrString(0, type=2), 100, True)


def test_lenient_value_from_int_or_percent() -> None:
    g = get_value_from_int_or_percent
    assert g(IntOrString.from_string("40%%"), 100, True) == 40
    assert g(IntOrString.from_string("200"), 50, True) == 100  # treated as 200%
    with pytest.raises(DecodeError, match='invalid value "a%"'):
        g(IntOrString.from_string("a%"), 100, True)
