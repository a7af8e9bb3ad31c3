"""resource.Quantity: parsing, canonical form, JSON and protobuf forms (Go: k8s.io/apimachinery/pkg/api/resource/quantity.go)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcodec.errors import DecodeError
from kcodec.fieldtable import JSONNumber
from kcodec.types import (
    BinarySI,
    DecimalExponent,
    DecimalSI,
    Format,
    Quantity,
    must_parse,
    new_milli_quantity,
    new_quantity,
    new_scaled_quantity,
    parse_quantity,
)

FORMAT_ERR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_ERR = "unable to parse quantity's suffix"


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("1024Mi", "1Gi"),
        ("1000M", "1G"),
        ("0.5", "500m"),
        ("1.5", "1500m"),
        ("1.5Gi", "1536Mi"),
        ("5", "5"),
        ("1025", "1025"),
        ("300Mi", "300Mi"),
        ("307200Ki", "300Mi"),
        ("1e9", "1e9"),
        ("0.001e0", "1e-3"),
        ("80e-3", "80e-3"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
        ("3.001n", "4n"),
        ("0.00000012345", "124n"),
        ("0.00000012354", "124n"),
        ("0.0000000001", "1n"),
        ("0.0000000005", "1n"),
        ("0.9n", "1n"),
        ("9Ei", "9223372036854775807"),
        ("9223372036854775807Ki", "9223372036854775807"),
        ("-1Gi", "-1Gi"),
        ("0Ki", "0"),
        ("0M", "0"),
        ("0n", "0"),
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1Gi", "1Gi"),
        ("100.035k", "100.035k"),  # canonical-looking: echoed verbatim, like Go
        ("10.035M", "10.035M"),
        ("1.2e3", "1200"),  # DecimalExponent: 12e2 -> 1200e0
        ("100.035Ki", "102435840m"),
        ("0.5Mi", "512Ki"),
        ("1.", "1."),  # Go keeps this canonical-looking text too
        ("1.G", "1.G"),
        (".0001k", "100m"),
        ("-0.000000000001Ki", "-2n"),
        ("1e2147483647", "10e2147483646"),
    ],
)
def test_parse_canonical(text: str, canonical: str) -> None:
    assert str(parse_quantity(text)) == canonical


@pytest.mark.parametrize(
    "text, fmt",
    [
        ("0", DecimalSI), ("0Ki", BinarySI), ("1", DecimalSI), ("8Ki", BinarySI), ("5n", DecimalSI),
        ("1E-3", DecimalExponent), ("1e3", DecimalExponent), ("12E", DecimalSI),
        ("0.000000000001Ki", DecimalSI), ("100.035Ki", BinarySI), ("9Ei", BinarySI),
    ],
)
def test_parse_format(text: str, fmt: str) -> None:
    assert parse_quantity(text).format == fmt


# Go TestQuantityParse: input -> (value as m * 10**e)
PARSE_TABLE = [
    ("0", 0, 0), ("0n", 0, 0), ("0Ti", 0, 0), ("1", 1, 0), ("1Ki", 1024, 0), ("8Ki", 8 * 1024, 0),
    ("7Mi", 7 * 1024**2, 0), ("6Gi", 6 * 1024**3, 0), ("5Ti", 5 * 1024**4, 0), ("4Pi", 4 * 1024**5, 0),
    ("3Ei", 3 * 1024**6, 0), ("100Ti", 100 * 1024**4, 0), ("5n", 5, -9), ("4u", 4, -6), ("3m", 3, -3),
    ("8k", 8, 3), ("50k", 5, 4), ("7M", 7, 6), ("6G", 6, 9), ("5T", 5, 12), ("40T", 4, 13), ("2P", 2, 15),
    ("1E", 1, 18), ("1E-3", 1, -3), ("1E18", 1, 18), ("1e14", 1, 14), ("100.035k", 100035, 0),
    ("0.001", 1, -3), ("0.0005k", 5, -1), ("0.00050k", 5, -1), ("0.50000", 5, -1), ("0.5e-2", 5, -3),
    ("1.3E+6", 13, 5), ("1.40e9", 14, 8), ("1.7E18", 17, 17), ("9.01", 901, -2), ("8.1k", 81, 2),
    ("7.123456M", 7123456, 0), ("6.987654321G", 6987654321, 0), ("5.444T", 5444, 9), ("300.2T", 3002, 11),
    ("1.01E", 101, 16), ("3.001n", 4, -9), ("1.1E-9", 2, -9), ("0.5e-9", 1, -9), ("12E", 12, 18),
    ("100.035Ki", 10243584, -2), ("0.5Mi", 512 * 1024, 0), ("0.05Gi", 536870912, -1),
    ("0.025Ti", 274877906944, -1), ("0.000000000001Ki", 2, -9), (".001", 1, -3), (".0001k", 100, -3),
    ("1.", 1, 0), ("1.G", 1, 9), ("9Ei", 2**63 - 1, 0),
]


@pytest.mark.parametrize("text, m, e", PARSE_TABLE)
def test_parse_values_signed(text: str, m: int, e: int) -> None:
    expect = new_scaled_quantity(m, e) if abs(m) < 2**63 else None
    assert expect is not None
    assert parse_quantity(text).cmp(expect) == 0
    assert parse_quantity("+" + text).cmp(expect) == 0
    assert parse_quantity("+" + text).format == parse_quantity(text).format
    neg = parse_quantity("-" + text)
    assert neg.cmp(new_scaled_quantity(-m, e)) == 0
    assert neg.format == parse_quantity(text).format


@pytest.mark.parametrize(
    "text, err",
    [
        ("", FORMAT_ERR), (" 1", FORMAT_ERR), ("1 ", FORMAT_ERR), ("1.1.M", FORMAT_ERR), ("1+1.0M", FORMAT_ERR),
        ("0.1am", FORMAT_ERR), ("aoeu", FORMAT_ERR), ("0.1mi", SUFFIX_ERR), ("1i", SUFFIX_ERR), (".5i", SUFFIX_ERR),
        ("-3.01i", SUFFIX_ERR), ("-3.01e-", SUFFIX_ERR), ("1e99999999999999999999", SUFFIX_ERR),
        (".e-10", "unable to parse numeric part of quantity"),
    ],
)
def test_parse_errors(text: str, err: str) -> None:
    with pytest.raises(DecodeError) as info:
        parse_quantity(text)
    assert str(info.value) == err


def test_must_parse() -> None:
    assert str(must_parse("0")) == "0"
    with pytest.raises(DecodeError, match="cannot parse 'Non-Numeric'"):
        must_parse("Non-Numeric")
    assert str(Quantity("2Gi")) == "2Gi"


@pytest.mark.parametrize(
    "m, e, fmt, expect, alternate",
    [
        (1024**3, 0, BinarySI, "1Gi", "1024Mi"),
        (300 * 1024**2, 0, BinarySI, "300Mi", "307200Ki"),
        (6 * 1024, 0, BinarySI, "6Ki", ""),
        (1001 * 1024**3, 0, BinarySI, "1001Gi", "1025024Mi"),
        (1024**4, 0, BinarySI, "1Ti", "1024Gi"),
        (5, 0, BinarySI, "5", "5000m"),
        (500, -3, BinarySI, "500m", "0.5"),
        (1, 9, DecimalSI, "1G", "1000M"),
        (1000, 6, DecimalSI, "1G", "0.001T"),
        (1000000, 3, DecimalSI, "1G", ""),
        (1, -3, DecimalSI, "1m", "1000u"),
        (80, -3, DecimalSI, "80m", ""),
        (1080, -3, DecimalSI, "1080m", "1.08"),
        (108, -2, DecimalSI, "1080m", "1080000000n"),
        (10800, -4, DecimalSI, "1080m", ""),
        (300, 6, DecimalSI, "300M", ""),
        (1234567, 6, DecimalSI, "1234567M", ""),
        (1234567, -3, BinarySI, "1234567m", ""),
        (3, 3, DecimalSI, "3k", ""),
        (1025, 0, BinarySI, "1025", ""),
        (1, 9, DecimalExponent, "1e9", ".001e12"),
        (1, -3, DecimalExponent, "1e-3", "0.001e0"),
        (1, -9, DecimalExponent, "1e-9", "1000e-12"),
        (80, -3, DecimalExponent, "80e-3", ""),
        (300, 6, DecimalExponent, "300e6", ""),
        (3, 3, DecimalExponent, "3e3", ""),
        (1, -9, DecimalSI, "1n", ""),
        (1080, -9, DecimalSI, "1080n", ""),
        (108, -8, DecimalSI, "1080n", ""),
        (1080, -6, DecimalSI, "1080u", ""),
    ],
)
def test_string_table(m: int, e: int, fmt: str, expect: str, alternate: str) -> None:
    q = Quantity._make(m, e, fmt, False)
    assert str(q) == expect
    assert str(Quantity._make(-m, e, fmt, True)) == "-" + expect
    again = parse_quantity(expect)
    assert again._s == expect  # canonical input is remembered verbatim
    if alternate:
        alt = parse_quantity(alternate)
        assert alt._s is None
        assert str(alt) == expect


def test_zero_forms() -> None:
    for fmt in (DecimalSI, BinarySI, DecimalExponent):
        assert str(new_quantity(0, fmt)) == "0"
    assert str(Quantity()) == "0"
    assert Quantity().is_zero()
    assert str(parse_quantity("00")) == "0"


def test_canonical_echo_rule() -> None:
    assert str(parse_quantity("+1")) == "+1"  # canonical-looking input kept byte for byte
    assert str(parse_quantity("100m")) == "100m"
    assert str(parse_quantity("1000m")) == "1"
    assert str(parse_quantity("8Ki")) == "8Ki"
    assert str(parse_quantity("1024Ki")) == "1Mi"


def test_new_quantity() -> None:
    assert str(new_quantity(5 * 1024**3, BinarySI)) == "5Gi"
    assert str(new_quantity(5 * 10**9, DecimalSI)) == "5G"
    assert str(new_milli_quantity(5300, DecimalSI)) == "5300m"
    for value, fmt, expect in [
        (1, DecimalSI, "1"), (1000, DecimalSI, "1k"), (1234000, DecimalSI, "1234k"), (1024, BinarySI, "1Ki"),
        (1000000, "invalidFormatDefaultsToExponent", "1e6"), (1024 * 1024, BinarySI, "1Mi"),
    ]:
        q = new_quantity(value, fmt)
        assert str(q) == expect
        assert parse_quantity(str(q)).value() == value
    for value, fmt, expect in [
        (1, DecimalSI, "1m"), (1000, DecimalSI, "1"), (1234000, DecimalSI, "1234"), (1024, BinarySI, "1024m"),
        (1000000, "invalidFormatDefaultsToExponent", "1e3"), (1024 * 1024, BinarySI, "1048576m"),
    ]:
        assert str(new_milli_quantity(value, fmt)) == expect
    assert parse_quantity("1234").milli_value() == 1234000
    assert Format.BINARY_SI == BinarySI == "BinarySI"


def test_scaled_values() -> None:
    for frm, to, expect in [(-9, -9, 1), (-9, 0, 1), (-6, -9, 1000), (-3, -6, 1000), (0, -9, 10**9), (2, -2, 10**4)]:
        assert new_scaled_quantity(1, frm).scaled_value(to) == expect
    assert parse_quantity("0.5").value() == 1
    assert parse_quantity("1.5").value() == 2
    assert parse_quantity("-1.5").value() == -2
    assert parse_quantity("1Gi").value() == 1024**3
    assert parse_quantity("100m").milli_value() == 100
    assert parse_quantity("9Ei").value() == 2**63 - 1
    assert parse_quantity("1e2147483647").value() == 0  # overflow of the int64 path yields 0
    assert Quantity().value() == 0 and Quantity().milli_value() == 0


@pytest.mark.parametrize(
    "x, y, expect",
    [("0", "0", 0), ("100m", "50m", 1), ("50m", "100m", -1), ("10000T", "100Gi", 1), ("1Gi", "1024Mi", 0),
     ("-1", "1n", -1), ("1e2147483647", "9Ei", 1), ("1000000000000000000000000", "1E", 1)],
)
def test_cmp(x: str, y: str, expect: int) -> None:
    assert parse_quantity(x).cmp(parse_quantity(y)) == expect
    assert parse_quantity(y).cmp(parse_quantity(x)) == -expect
    assert (parse_quantity(x) == parse_quantity(y)) == (expect == 0)


def test_hash_follows_value() -> None:
    assert hash(parse_quantity("1Gi")) == hash(parse_quantity("1024Mi"))
    assert len({parse_quantity("1"), parse_quantity("1000m"), parse_quantity("2")}) == 2


@pytest.mark.parametrize(
    "tree, expect",
    [(" 1", "1"), ("1.", "1."),  # Go keeps this canonical-looking text too (1, "1"), (10, "10"), (-1, "-1"), (" -1", "-1"), (None, "0"), (1.5, "1500m"),
     ("100m", "100m"),
         # A float64 reaches Quantity as encoding/json writes it; a JSON literal as written.
         (1e21, "1e+21"), (JSONNumber("1e21"), "1e21"), (JSONNumber("1E+2"), "100")],
)
def test_json_tree(tree: object, expect: str) -> None:
    q = Quantity._from_tree(tree, "spec.x")
    assert str(q) == expect
    assert q._to_tree() == expect


def test_json_tree_errors() -> None:
    for bad in (True, [1], {"a": 1}, "abc", ""):
        with pytest.raises(DecodeError) as info:
            Quantity._from_tree(bad, "spec.cpu")
        assert info.value.field_path == "spec.cpu"  # Go's text; the place is data


def test_protobuf() -> None:
    assert parse_quantity("100m")._proto_body() == bytes.fromhex("0a0431 30306d".replace(" ", ""))
    assert Quantity()._proto_body() == bytes.fromhex("0a0130")
    assert str(Quantity._from_proto_body(bytes.fromhex("0a0431 30306d".replace(" ", "")), "p")) == "100m"
    assert Quantity._from_proto_body(b"", "p").is_zero()
    # unknown field 2 (varint) skipped
    assert str(Quantity._from_proto_body(bytes.fromhex("0a02316b1005"), "p")) == "1k"
    for bad in (b"\x0a", b"\x0a\x05ab", b"\x08", b"\x0a\x02zz", b"\xff" * 11):
        with pytest.raises(DecodeError) as info:
            Quantity._from_proto_body(bad, "p")
        assert info.value.field_path == "p"
    # A group is skipped as Go's skipGenerated does; one that never ends is Go's EOF, the
    # place kept on the error.
    assert str(Quantity._from_proto_body(bytes.fromhex("0a02316b 1b 0805 1c".replace(" ", "")), "p")) == "1k"
    with pytest.raises(DecodeError, match="^unexpected EOF$") as info:
        Quantity._from_proto_body(b"\x1b", "p")
    assert info.value.field_path == "p"


def test_protocol_bits() -> None:
    q = parse_quantity("1Gi")
    assert q.deep_copy() is q
    assert Quantity._zero().is_zero() and Quantity._zero()._is_zero()
    assert not q._is_zero()
    assert repr(q) == "Quantity('1Gi')"


_quantities = st.one_of(
    st.builds(
        lambda m, e, f: Quantity._make(m, e, f, False),
        st.integers(-(2**63) + 1, 2**63 - 1),
        st.integers(-9, 18),
        st.sampled_from([DecimalSI, DecimalExponent]),
    ),
    st.builds(lambda m: new_quantity(m, BinarySI), st.integers(-(2**63) + 1, 2**63 - 1)),
    st.builds(lambda m, k: new_quantity(m << (10 * k), BinarySI), st.integers(-1023, 1023), st.integers(0, 5)),
    st.builds(lambda m: new_milli_quantity(m, BinarySI), st.integers(-(2**40), 2**40)),
)


@settings(max_examples=300, deadline=None)
@given(_quantities)
def test_roundtrip_canonical(q: Quantity) -> None:
    # The text may change once, as in Go: a BinarySI integer such as 91161000 prints
    # without suffix and parses back as DecimalSI ("91161k"); 10^21 has no suffix and
    # prints as "1"; values finer than a nano print rounded up. After one parse the
    # text is a fixed point.
    again = parse_quantity(str(q))
    assert str(parse_quantity(str(again))) == str(again)


@settings(max_examples=100, deadline=None)
@given(st.from_regex(r"\A[+-]?[0-9]{0,25}(\.[0-9]{0,12})?(|n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|e-?[0-9]{1,2})\Z"))
def test_parse_never_crashes(text: str) -> None:
    try:
        q = parse_quantity(text)
    except DecodeError:
        return
    canonical = str(q)
    assert str(parse_quantity(canonical)) == canonical
