"""Go-identical JSON text layer (Go: k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (Decode); k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (strict mode); k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (Encode); k8s.io/apimachinery/pkg/runtime/types.go (Unknown); k8s.io/apimachinery/pkg/runtime/extension.go (RawExtension); Go's encoding/json encoder; Go apimachinery)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcodec.errors import DecodeError, EncodeError
from kcodec.model import RawJSON
from kcodec import gojson as gj
from kcodec.gojson import (
    DupDict,
    JSONSyntaxError,
    compact,
    dumps,
    escape_string,
    format_float,
    indent,
    loads,
)

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "k8s-api-v0.36.3" / "HEAD"


def _fixture_files() -> list[Path]:
    if not FIXTURES.is_dir():
        return []
    return sorted(FIXTURES.glob("*.json"))


# ---------------------------------------------------------------------------- fixtures

@pytest.mark.skipif(not _fixture_files(), reason=f"Go fixtures not found under {FIXTURES}")
def test_fixtures_round_trip_byte_identical() -> None:
    files = _fixture_files()
    assert len(files) >= 100
    for f in files:
        data = f.read_bytes()
        assert not data.endswith(b"\n"), f.name
        tree = loads(data)
        assert dumps(tree, pretty=True) == data, f.name
        flat = dumps(tree)
        assert b"\n" not in flat
        assert compact(data) == flat, f.name
        assert indent(flat) == data, f.name
        assert loads(flat) == tree, f.name
        # the exact parser agrees with the fast one
        assert gj._slow_parse(data) == tree, f.name


# ---------------------------------------------------------------------------- numbers

@pytest.mark.parametrize(
    "value, text",
    [
        (1.0, "1"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (1e-5, "0.00001"),
        (0.0001, "0.0001"),
        (-0.0, "0"),
        (0.0, "0"),
        (1.5, "1.5"),
        (-2.5, "-2.5"),
        (0.1, "0.1"),
        (100.0, "100"),
        (1e16, "10000000000000000"),
        (-1.5e16, "-15000000000000000"),
        (123456789.125, "123456789.125"),
        (2.5e-8, "2.5e-8"),
        (1e-10, "1e-10"),
        (1.5e300, "1.5e+300"),
        (-1e21, "-1e+21"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (9223372036854776000.0, "9223372036854776000"),
    ],
)
def test_format_float_table(value: float, text: str) -> None:
    assert format_float(value) == text
    assert dumps([value]) == f"[{text}]".encode()
    assert dumps({"a": value}, pretty=True) == f'{{\n  "a": {text}\n}}'.encode()
    assert dumps(value) == text.encode()


@pytest.mark.parametrize("value, name", [(math.nan, "NaN"), (math.inf, "+Inf"), (-math.inf, "-Inf")])
def test_non_finite_floats_rejected(value: float, name: str) -> None:
    for tree in (value, [value], {"a": {"b": value}}):
        for pretty in (False, True):
            with pytest.raises(EncodeError, match=f"^json: unsupported value: {name.replace('+', '[+]')}$"):
                dumps(tree, pretty=pretty)


def test_untyped_number_rule() -> None:
    tree = loads(b'[1, 1.0, 1e3, 1E3, -0, 9223372036854775807, -9223372036854775808, '
                 b'9223372036854775808, 12345678901234567890, -1.5e-3]')
    assert tree == [1, 1.0, 1000.0, 1000.0, 0, 2**63 - 1, -(2**63), 9.223372036854775808e18,
                    1.2345678901234567e19, -0.0015]
    assert [type(v) for v in tree] == [int, float, float, float, int, int, int, float, float, float]


def test_int_float_round_trip_rule() -> None:
    # Go: k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (Encode): an integral float encodes as an integer literal and decodes back as int
    assert loads(dumps({"a": 1.0, "b": 1.5, "c": 9223372036854776000.0})) == {
        "a": 1, "b": 1.5, "c": 9223372036854775808.0}
    assert type(loads(dumps(1.0))) is int


def test_number_out_of_float_range() -> None:
    with pytest.raises(DecodeError, match="json: cannot unmarshal number 1e1000 into Go value of type float64"):
        loads(b'{"interface":1e1000}')
    with pytest.raises(DecodeError, match="cannot unmarshal number"):
        loads(b"1" * 400)
    assert loads(b'{"a":1e1000,"b":-1e999}', allow_inf=True) == {"a": math.inf, "b": -math.inf}
    # syntax errors win over the range error, as Go validates first
    with pytest.raises(JSONSyntaxError, match="invalid character 'x'"):
        loads(b"[1e1000, x]")
    assert loads(b"1e-400") == 0.0


def test_huge_integer_literal_is_float() -> None:
    assert loads(b"1" + b"0" * 5000, allow_inf=True) == math.inf
    assert loads(b"1" + b"0" * 300) == 1e300


# ---------------------------------------------------------------------------- strings

@pytest.mark.parametrize(
    "s, out",
    [
        ("<a>&b", r'"\u003ca\u003e\u0026b"'),
        ("\u2028\u2029", r'"\u2028\u2029"'),
        ("\b\f\n\r\t", r'"\b\f\n\r\t"'),
        ("\x00\x01\x1f\x7f", '"\\u0000\\u0001\\u001f\x7f"'),
        ('"\\/', r'"\"\\/"'),
        ("héllo ☃ 😀", '"héllo ☃ 😀"'),
        ("\ud800x\udfff", r'"\ufffdx\ufffd"'),
        ("\ufffd", '"\ufffd"'),
    ],
)
def test_string_escaping(s: str, out: str) -> None:
    assert escape_string(s) == out
    assert dumps(s) == out.encode("utf-8")
    assert dumps([s]) == ("[" + out + "]").encode("utf-8")
    assert dumps({s: 1}) == ("{" + out + ":1}").encode("utf-8")
    assert dumps({s: [s]}, pretty=True) == ("{\n  " + out + ": [\n    " + out + "\n  ]\n}").encode("utf-8")


def test_invalid_utf8_becomes_replacement_per_byte() -> None:
    assert loads(b'"a\xffb"') == "a\ufffdb"
    assert loads(b'"\xe2\x82"') == "\ufffd\ufffd"  # truncated sequence: one per byte, as Go
    assert loads(b'"\xed\xa0\x80"') == "\ufffd" * 3  # encoded surrogate
    assert loads(b'{"\xc0\x80":"\xf4\x90\x80\x80"}') == {"\ufffd\ufffd": "\ufffd" * 4}


def test_surrogate_escapes() -> None:
    assert loads(rb'"\ud83d\ude00"') == "😀"
    assert loads(rb'"\ud800"') == "\ufffd"
    assert loads(rb'"\ud800\u0041"') == "\ufffdA"
    assert loads(rb'"\udc00\ud800"') == "\ufffd\ufffd"
    assert loads(rb'{"\uD800":"\\ud800"}') == {"\ufffd": "\\ud800"}


# ---------------------------------------------------------------------------- syntax errors

@pytest.mark.parametrize(
    "data, msg, offset",
    [
        (b"{} x", "invalid character 'x' after top-level value", 4),
        (b"", "unexpected end of JSON input", 0),
        (b"   ", "unexpected end of JSON input", 3),
        (b"{", "unexpected end of JSON input", 1),
        (b'{"a":', "unexpected end of JSON input", 5),
        (b'"abc', "unexpected end of JSON input", 4),
        (b"[1", "unexpected end of JSON input", 2),
        (b"foo", "invalid character 'o' in literal false (expecting 'a')", 2),
        (b"tru", "invalid character ' ' in literal true (expecting 'e')", 3),
        (b"nulx", "invalid character 'x' in literal null (expecting 'l')", 4),
        (b"[1,]", "invalid character ']' looking for beginning of value", 4),
        (b'{"a":1,}', "invalid character '}' looking for beginning of object key string", 8),
        (b"{1:2}", "invalid character '1' looking for beginning of object key string", 2),
        (b'{"a" 1}', "invalid character '1' after object key", 6),
        (b'{"a":1 "b":2}', "invalid character '\"' after object key:value pair", 8),
        (b"[1 2]", "invalid character '2' after array element", 4),
        (b"01", "invalid character '1' after top-level value", 2),
        (b"-", "invalid character ' ' in numeric literal", 1),
        (b"-x", "invalid character 'x' in numeric literal", 2),
        (b"1.", "invalid character ' ' after decimal point in numeric literal", 2),
        (b"1.e5", "invalid character 'e' after decimal point in numeric literal", 3),
        (b"1e", "invalid character ' ' in exponent of numeric literal", 2),
        (b"1e+x", "invalid character 'x' in exponent of numeric literal", 4),
        (rb'"\x"', "invalid character 'x' in string escape code", 3),
        (rb'"\u12G4"', "invalid character 'G' in \\u hexadecimal character escape", 6),
        (b'"a\nb"', "invalid character '\\n' in string literal", 3),
        (b'"\x01"', "invalid character '\\x01' in string literal", 2),
        (b"\xef\xbb\xbf{}", "invalid character '\u00ef' looking for beginning of value", 1),
        (b"\xff", "invalid character '\u00ff' looking for beginning of value", 1),
        (b"NaN", "invalid character 'N' looking for beginning of value", 1),
        (b'{"a":Infinity}', "invalid character 'I' looking for beginning of value", 6),
        (b"'a'", "invalid character '\\'' looking for beginning of value", 1),
        (b"[1]\x00", "invalid character '\\x00' after top-level value", 4),
    ],
)
def test_syntax_errors(data: bytes, msg: str, offset: int) -> None:
    for strict in (False, True):
        with pytest.raises(JSONSyntaxError) as info:
            loads(data, strict=strict)
        assert info.value.msg == msg
        assert info.value.offset == offset
        assert str(info.value) == msg  # Go prints the offset nowhere; it is data
        assert isinstance(info.value, DecodeError)
    with pytest.raises(JSONSyntaxError, match="^" + msg.replace("\\", "\\\\").replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        gj.validate(data)


def test_nesting_depth_limit_is_gos() -> None:
    ok = b"[" * 10000 + b"]" * 10000
    tree = loads(ok)
    assert dumps(tree) == ok
    assert dumps(tree, pretty=True).count(b"\n") == 2 * 9999
    mixed = b'{"a":' * 3000 + b"1" + b"}" * 3000
    assert dumps(loads(mixed, strict=True)) == mixed
    with pytest.raises(JSONSyntaxError, match="^invalid character '\\[' exceeded max depth$") as info:
        loads(b"[" * 10001 + b"]" * 10001)
    assert info.value.offset == 10001
    with pytest.raises(JSONSyntaxError, match="exceeded max depth"):
        loads(b"[" * 200000)


# ---------------------------------------------------------------------------- strict mode

def test_strict_duplicates() -> None:
    tree = loads(b'{"value":1,"value":2,"x":{"a":1,"a":2,"a":3,"b":1,"b":1},"y":[{"k":1,"k":1}],"z":{}}', strict=True)
    assert tree == {"value": 2, "x": {"a": 3, "b": 1}, "y": [{"k": 1}], "z": {}}
    assert type(tree) is DupDict and tree.duplicates == ["value"]
    assert tree["x"].duplicates == ["a", "b"]
    assert tree["y"][0].duplicates == ["k"]
    assert type(tree["z"]) is dict
    plain = loads(b'{"value":1,"value":2}')
    assert type(plain) is dict and plain == {"value": 2}
    # the exact parser (deep input) reports the same
    deep = loads(b'{"a":1,"a":2,"d":' + b"[" * 2000 + b"]" * 2000 + b"}", strict=True)
    assert type(deep) is DupDict and deep.duplicates == ["a"]


# ---------------------------------------------------------------------------- writing

def test_pretty_layout() -> None:
    tree = {"a": {}, "b": [1, 2], "c": [], "d": None}
    assert dumps(tree, pretty=True) == b'{\n  "a": {},\n  "b": [\n    1,\n    2\n  ],\n  "c": [],\n  "d": null\n}'
    assert dumps(tree) == b'{"a":{},"b":[1,2],"c":[],"d":null}'
    assert dumps({"kind": "Pod", "apiVersion": "v1"}) == b'{"kind":"Pod","apiVersion":"v1"}'
    assert dumps({}, pretty=True) == b"{}"
    assert dumps([], pretty=True) == b"[]"
    assert dumps([True, False, None, "x"], pretty=True) == b'[\n  true,\n  false,\n  null,\n  "x"\n]'


def test_sort_keys_bytewise() -> None:
    tree = {"metadata": 1, "kind": 2, "apiVersion": 3, "Z": 4, "é": 5, "\U0001f600": 6, "\uffff": 7, "a": {"b": 1, "a": 2}}
    assert dumps(tree, sort_keys=True) == (
        '{"Z":4,"a":{"a":2,"b":1},"apiVersion":3,"kind":2,"metadata":1,"é":5,"\uffff":7,"\U0001f600":6}'.encode()
    )
    assert list(loads(dumps(tree, sort_keys=True))) == sorted(tree, key=lambda k: k.encode())


def test_raw_json_compacted_escaped_and_indented() -> None:
    raw = RawJSON(b' { "a" : "<" , "n": 1.50E+3, "e": {}, "l": [ ] , "s": "x y\\"" } ')
    assert dumps({"r": raw}) == b'{"r":{"a":"\\u003c","n":1.50E+3,"e":{},"l":[],"s":"x y\\""}}'
    assert dumps({"r": raw, "q": [raw]}, pretty=True) == (
        b'{\n  "r": {\n    "a": "\\u003c",\n    "n": 1.50E+3,\n    "e": {},\n    "l": [],\n'
        b'    "s": "x y\\""\n  },\n  "q": [\n    {\n      "a": "\\u003c",\n      "n": 1.50E+3,\n'
        b'      "e": {},\n      "l": [],\n      "s": "x y\\""\n    }\n  ]\n}'
    )
    assert dumps(RawJSON(b'"foo"')) == b'"foo"'
    assert dumps(RawJSON(b"null"), pretty=True) == b"null"
    # a raw value next to floats that need the Python writer
    assert dumps({"f": 1.0, "r": RawJSON(b"[1, 2]")}) == b'{"f":1,"r":[1,2]}'
    # invalid UTF-8 inside raw strings is kept byte for byte, as Go's compaction does
    assert dumps([RawJSON(b'"\xff"')]) == b'["\xff"]'


def test_raw_json_invalid() -> None:
    with pytest.raises(EncodeError, match="^json: error calling MarshalJSON for type RawJSON: invalid character 'x' looking for beginning of value$"):
        dumps({"a": RawJSON(b"x")})
    with pytest.raises(EncodeError, match="unexpected end of JSON input"):
        dumps([RawJSON(b"[")], pretty=True)
    with pytest.raises(EncodeError, match="looking for beginning of object key string"):
        dumps([RawJSON(b"{{")])
    with pytest.raises(EncodeError, match="after top-level value"):
        dumps([RawJSON(b"{} {}")])


def test_compact_and_indent_helpers() -> None:
    assert compact(b' [ 1 , { "a b" : "<&>\xe2\x80\xa8" } ] ') == b'[1,{"a b":"\\u003c\\u0026\\u003e\\u2028"}]'
    assert compact(b' { "a" : "<" } ', escape_html=False) == b'{"a":"<"}'
    with pytest.raises(JSONSyntaxError):
        compact(b"[1,]")
    assert indent(b'{"a":[1,{}],"b":[]}') == b'{\n  "a": [\n    1,\n    {}\n  ],\n  "b": []\n}'
    assert indent(b'{"a":1}', 2) == b'{\n      "a": 1\n    }'
    assert indent(b'"x"', 3) == b'"x"'


def test_unsupported_types() -> None:
    with pytest.raises(EncodeError, match="unsupported type"):
        dumps({"a": object()})
    with pytest.raises(EncodeError, match="unsupported type"):
        dumps({"a": object()}, pretty=True)


def test_tuples_and_subclasses() -> None:
    assert dumps((1, "a", (2.0,))) == b'[1,"a",[2]]'
    assert dumps(DupDict({"a": 1}, duplicates=["a"])) == b'{"a":1}'


def test_large_document_with_rare_float_uses_exact_writer() -> None:
    items = [{"name": f"p{i}", "v": i, "s": "10.0.0.1", "t": "a:1.0,"} for i in range(2000)]
    tree = {"items": items}
    fast = dumps(tree)
    assert fast == json.dumps(tree, separators=(",", ":")).encode()
    items[1500]["f"] = 3.0
    out = dumps(tree)
    assert b'"f":3}' in out and b'"t":"a:1.0,"' in out
    assert loads(out) == tree


# ---------------------------------------------------------------------------- properties

_keys = st.text(max_size=8)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
_trees = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_keys, inner, max_size=5),
    max_leaves=30,
)


def _scrub(x: object) -> object:
    """What a value reads back as: lone surrogates become U+FFFD; numbers compare as
    float64 (an integral float may read back as the int its shortest text spells)."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    if isinstance(x, str):
        return gj._SURROGATES.sub("\ufffd", x)
    if isinstance(x, list):
        return [_scrub(v) for v in x]
    if isinstance(x, dict):
        return {_scrub(k): _scrub(v) for k, v in x.items()}
    return x


@settings(max_examples=120, deadline=None)
@given(_trees, st.booleans(), st.booleans())
def test_round_trip(tree: object, pretty: bool, sort_keys: bool) -> None:
    text = dumps(tree, pretty=pretty, sort_keys=sort_keys)
    back = loads(text)
    assert _scrub(back) == _scrub(tree)
    assert loads(text, strict=True) == back
    # the exact parser and the C fast path agree; so do the two writers
    assert gj._slow_parse(text) == back
    raws = gj._Raws()
    assert gj._finish(gj._py_write(tree, pretty, sort_keys, raws), raws, pretty) == text
    if not pretty:
        assert compact(dumps(tree, pretty=True, sort_keys=sort_keys)) == text
        assert indent(text) == dumps(tree, pretty=True, sort_keys=sort_keys)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_text_round_trips(x: float) -> None:
    text = format_float(x)
    assert float(text) == x
    assert "e-0" not in text and not text.endswith(".0")
    a = abs(x)
    if a != 0 and (a < 1e-6 or a >= 1e21):
        assert "e" in text
    else:
        assert "e" not in text


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=30))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    for strict in (False, True):
        try:
            loads(data, strict=strict)
        except DecodeError:
            pass


# Go's json.Decoder over a stream (encoding/json stream.go readValue with scanner.go's
# states): a scalar ends at the first byte that cannot continue it, and a prefix of a value
# is only faulty where a byte is.
@pytest.mark.parametrize(
    "data, end",
    [(b"0 ", 1), (b"01", 1), (b"-12.5e+3,", 8), (b"1-", 1), (b"truex", 4), (b"null\x00", 4)],
)
def test_scalar_end(data: bytes, end: int) -> None:
    assert gj.scalar_end(data) == end


@pytest.mark.parametrize(
    "data, msg, offset",
    [
        (b"-x", "invalid character 'x' in numeric literal", 2),
        (b"1.e", "invalid character 'e' after decimal point in numeric literal", 3),
        (b"1e+x", "invalid character 'x' in exponent of numeric literal", 4),
        (b"fals ", "invalid character ' ' in literal false (expecting 'e')", 5),
        (b"nu", "invalid character ' ' in literal null (expecting 'l')", 2),
    ],
)
def test_scalar_end_errors(data: bytes, msg: str, offset: int) -> None:
    with pytest.raises(JSONSyntaxError) as info:
        gj.scalar_end(data)
    assert str(info.value) == msg and info.value.offset == offset


@pytest.mark.parametrize(
    "data, msg, offset",
    [
        (b'{"a":', None, None),
        (b'{"a":[1,2', None, None),
        (b'["x\\', None, None),
        (b"[tr", None, None),
        (b"[1}", "invalid character '}' after array element", 3),
        (b'{"a" 1]', "invalid character '1' after object key", 6),
        (b'["\x01', "invalid character '\\x01' in string literal", 3),
        (b"[" * 10001, "invalid character '[' exceeded max depth", 10001),
        (b"x", "invalid character 'x' looking for beginning of value", 1),
    ],
)
def test_prefix_error(data: bytes, msg: str | None, offset: int | None) -> None:
    err = gj.prefix_error(data)
    if msg is None:
        assert err is None
    else:
        assert err is not None and str(err) == msg and err.offset == offset
