"""The compiled JSON kernels (kcodec._speedups._json) against their pure twins.

``json_fill`` / ``json_encode`` of ``kcodec._native.codec`` are the specification: for every
input the compiled twins must give the same object (or the same exception class and text,
leaving the object in the same state) and the same bytes. The tests call both twins
directly, so the module runs once, not once per mode.
"""
from __future__ import annotations

import copy
import enum
import functools
import gc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, fixtures_dir

from kcodec.api.meta._values import Duration, FieldsV1, MicroTime, Time
from kcodec.errors import DecodeError, EncodeError
from kcodec.model import Int32, RawJSON, Struct, field
from kcodec.runtime.types import RawExtension
from kcodec.types import IntOrString, Quantity

C = pytest.importorskip("kcodec._speedups._json", reason="compiled JSON kernels not built")
from kcodec._native import json as P  # noqa: E402


@pytest.fixture(autouse=True)
def kcodec_mode():
    """Overrides conftest's two-mode fixture: these tests call both twins themselves."""
    yield "both"


class Inner(Struct):
    a: str = field(1, "a", omitempty=True)
    n: Int32 = field(2, "n")


class Emb(Struct):
    e: str = field(1, "e", omitempty=True)
    en: int = field(2, "en", omitempty=True)


class Kitchen(Struct):
    """One field of every kind and option the kernels distinguish."""

    s: str = field(1, "s")
    ps: str | None = field(2, "ps", omitempty=True)
    i32: Int32 = field(3, "i32")
    i64: int = field(4, "i64", omitempty=True)
    b: bool = field(5, "b", omitempty=True)
    f: float = field(6, "f", omitempty=True)
    by: bytes | None = field(7, "by", omitempty=True)
    inner: Inner = field(8, "inner")
    pinner: Inner | None = field(9, "pinner", omitempty=True)
    lst: list[str] | None = field(10, "lst", omitempty=True)
    li: list[Inner] | None = field(11, "li")
    m: dict[str, str] | None = field(12, "m", omitempty=True)
    mi: dict[str, Inner] | None = field(13, "mi", omitempty=True)
    ll: list[list[int]] | None = field(14, "ll", omitempty=True)
    anyv: Any = field(0, "any", omitempty=True)
    t: Time = field(15, "t")
    pt: Time | None = field(16, "pt", omitempty=True)
    q: Quantity = field(17, "q", omitzero=True)
    ios: IntOrString = field(18, "ios", omitzero=True)
    raw: RawExtension = field(19, "raw", omitzero=True)
    fv: FieldsV1 | None = field(20, "fv", omitempty=True)
    emb: Emb = field(0, "", inline=True)
    pemb: Emb | None = field(0, "", inline=True)
    hidden: str = field(0, "-")
    iz: Inner = field(21, "iz", omitzero=True)
    pf: float | None = field(22, "pf", omitempty=True)
    mt: MicroTime | None = field(23, "mt", omitempty=True)
    d: Duration | None = field(24, "d", omitempty=True)
    mb: dict[str, bytes] | None = field(25, "mb", omitempty=True)


def _id(data: Any) -> str:
    text = repr(data)
    return text if len(text) <= 48 else f"{text[:40]}...[{len(data)}]"


def _fill(fill: Any, data: Any, init: Any, strict: bool, cls: Any = Kitchen) -> tuple[Any, Any, Any]:
    obj = copy.deepcopy(init) if init is not None else cls._new_zero()
    collected: list[str] | None = [] if strict else None
    try:
        fill(obj, cls, data, collected, cls.__name__)
        err = None
    except Exception as exc:  # noqa: BLE001 - compared below
        err = (type(exc), str(exc))
    return err, obj, collected


def assert_same_decode(data: Any, init: Any = None, strict: bool = False, cls: Any = Kitchen) -> tuple[Any, Any, Any]:
    want = _fill(P.json_fill, data, init, strict, cls)
    got = _fill(C.json_fill, data, init, strict, cls)
    assert got[0] == want[0], f"exception differs for {data!r}"
    assert got[1] == want[1], f"object differs for {data!r}"
    assert got[2] == want[2], f"strict errors differ for {data!r}"
    return got


def _encode(fn: Any, obj: Any, pretty: bool) -> Any:
    try:
        return fn(obj, pretty)
    except Exception as exc:  # noqa: BLE001 - compared below
        return (type(exc), str(exc))


def assert_same_encode(obj: Any) -> tuple[Any, Any]:
    out = []
    for pretty in (False, True):
        want = _encode(P.json_encode, obj, pretty)
        got = _encode(C.json_encode, obj, pretty)
        assert got == want, f"pretty={pretty}"
        out.append(got)
    return out[0], out[1]


# ----------------------------------------------------------------------------- fixtures

FIXTURE_NAMES = sorted(p.name[:-5] for p in FIXTURES.glob("*.json")) if FIXTURES.is_dir() else []


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_parity(name: str) -> None:
    from kcodec.api import scheme
    from kcodec.schema import GroupVersionKind

    data = (fixtures_dir() / f"{name}.json").read_bytes()
    group, version, kind = name.rsplit(".", 2)
    cls = type(scheme.new(GroupVersionKind("" if group == "core" else group, version, kind)))
    before = C._handovers()
    want = _fill(P.json_fill, data, None, True, cls)
    got = _fill(C.json_fill, data, None, True, cls)
    assert want[0] is None and got[0] is None
    assert got[1] == want[1]
    assert got[2] == want[2] == []
    compact = C.json_encode(got[1], False)
    pretty = C.json_encode(got[1], True)
    assert compact == P.json_encode(want[1], False)
    # The fixture is Go's pretty output (the serializer adds no newline in pretty mode).
    assert pretty == P.json_encode(want[1], True) == data.rstrip(b"\n")
    # Go's documents must not need the pure twins at all.
    assert C._handovers() == before
    # Compact text decodes back to the same object (RawExtension/FieldsV1 keep the bytes
    # they were read from, as Go's do: compared as JSON).
    again = _fill(C.json_fill, compact, None, False, cls)[1]
    assert C.json_encode(again, False) == compact


# ----------------------------------------------------------------------------- decoding

SYNTAX_ERRORS = [
    b"", b" ", b"{", b"}", b"{}}", b"{} x", b"[1]", b'"s"', b"1", b"true", b"nul",
    b'{"s":"x",', b'{"a" 1}', b'{"a":1,}', b"{,}", b'{"a":[1,]}', b"{'a':1}", b'{"a":tru}',
    b'{"a":nul}', b'{"a":01}', b'{"a":1.}', b'{"a":-}', b'{"a":1e}', b'{"a":1e+}', b'{"a":.5}',
    b'{"s":"\x01"}', b'{"s":"\\q"}', b'{"s":"\\u12G4"}', b'{"s":"\\u12', b'{"s":"abc',
    b"\xef\xbb\xbf{}", b'{"s":"a"}\x00', b'{"zz":"\x00"}', b"{\xff:1}", b'{"a":1}\xff',
    b'{"inner":{"n":1}', b'{"li":[{"a":"x"},{"a":"y"}', b'{"zz":' + b"[" * 10001 + b"]" * 10001 + b"}",
    b'{"any":' + b"{\"a\":" * 10001 + b"1" + b"}" * 10001 + b"}",
    # A number out of float64 range is Go's UnmarshalTypeError, wherever it is.
    b'{"f":1e400}', b'{"any":1' + b"0" * 400 + b"}",
]


@pytest.mark.parametrize("data", SYNTAX_ERRORS, ids=_id)
def test_syntax_errors_match(data: bytes) -> None:
    err, obj, _ = assert_same_decode(data)
    assert err is not None and issubclass(err[0], DecodeError)
    # Syntax is checked before anything is stored (Go's up-front validity scan).
    if "unmarshal" not in err[1]:
        assert obj == Kitchen._new_zero()


def test_number_past_float64_in_an_unknown_field_is_not_read() -> None:
    # encoding/json decode.go value(): an unknown field's value is decoded into an invalid
    # reflect.Value, so its literals never reach literalStore, and no error is saved.
    err, obj, _ = assert_same_decode(b'{"zz":[1,2,-1e999]}')
    assert err is None and obj == Kitchen._new_zero()


def test_syntax_error_leaves_merge_target_untouched() -> None:
    init = Kitchen(s="keep", m={"old": "1"}, inner=Inner(a="ia", n=3), li=[Inner(a="x")])
    data = b'{"s":"new","m":{"new":"2"},"inner":{"n":4},"li":[],"t":"2024-01-02T03:04:05Z"  ,}'
    err, obj, _ = assert_same_decode(data, init=init)
    assert err[1] == "invalid character '}' looking for beginning of object key string"
    assert obj == init


TYPE_ERRORS = [
    (b'{"s":1}', "json: cannot unmarshal number into Go struct field Kitchen.s of type string"),
    (b'{"i32":1.5}', "json: cannot unmarshal number 1.5 into Go struct field Kitchen.i32 of type int32"),
    (b'{"i32":3000000000}', None),
    (b'{"i64":9223372036854775808}', None),
    (b'{"b":"true"}', None),
    (b'{"b":1}', None),
    (b'{"inner":[]}', None),
    (b'{"li":{}}', None),
    (b'{"li":[{"n":"x"}]}', "json: cannot unmarshal string into Go struct field Inner.li.n of type int32"),
    (b'{"mi":{"k":{"n":"x"}}}', "json: cannot unmarshal string into Go struct field Inner.mi.n of type int32"),
    (b'{"ll":[[1,"x"]]}', None),
    (b'{"m":{"a":1}}', None),
    (b'{"lst":[1]}', None),
    (b'{"t":"garbage"}', None),
    (b'{"t":5}', None),
    (b'{"q":"1.2.3"}', None),
    (b'{"ios":true}', None),
    (b'{"ios":2147483648}', None),
    (b'{"by":"AAEC/w"}', None),
    (b'{"by":"-_"}', None),
    (b'{"by":5}', None),
    (b'{"mb":{"x":"!"}}', None),
    (b'{"d":"bogus"}', None),
    (b'{"e":5}', None),
    (b'{"s":"a","i32":"b"}', None),
]


@pytest.mark.parametrize("data,message", TYPE_ERRORS, ids=[_id(d) for d, _ in TYPE_ERRORS])
def test_type_errors_match(data: bytes, message: str | None) -> None:
    err, _, _ = assert_same_decode(data)
    assert err is not None and issubclass(err[0], DecodeError)
    if message is not None:
        assert err[1] == message


# Valid documents the compiled decoder handles without the pure twin.
NATIVE = [
    b"{}", b"null", b" \t\r\n{ } \n", b'{"s":"a","i32":-2147483648,"i64":-9223372036854775808,"b":true,"f":-0}',
    b'{"f":12345678901234567890123}', b'{"f":1e-400}', b'{"f":2.5e+3}', b'{"pf":null}',
    b'{"S":"x","Inner":{},"\\u0073":"escaped key"}',
    b'{"s":"\\ud83d\\ude00 \\ud800 \\udc00 \\ud800\\u0041 \\udbff\\udfff \xff\xfe \xe2\x82 \xed\xa0\x80 \xf0\x9f\x98"}',
    b'{"s":"\\u00e9\\u2028<>&\\/\\b\\f\\n\\r\\t\\"\\\\ \xe2\x80\xa8 \\u0000"}',
    b'{"any":{"a":[1,1.0,1e3,12345678901234567890,9223372036854775807,-0,-0.0,true,null,"x",{}]}}',
    b'{"zz":1,"zz":2,"zy":{"a":[1,{"b":null}]}}',
    b'{"t":"2024-01-02T03:04:05Z","pt":"2024-01-02T03:04:05+02:00","mt":"2024-01-02T03:04:05.123456Z"}',
    b'{"t":null,"pt":null,"q":null,"ios":null,"raw":null,"fv":null}',
    b'{"q":"100m","ios":"http","d":"1h2m3s"}', b'{"q":1.5,"ios":80}', b'{"q":12345678901234567890}',
    b'{"raw":{"b":1,"a":[1,2.50,"<"]},"fv":{"f:x":{},".":{"k":1e3}}}', b'{"raw":[1],"fv":[]}',
    b'{"fv":"str","raw":"s"}', b'{"pemb":1,"emb":2}',
    b'{"by":"AAEC/w==","mb":{"x":"AA==","y":null,"z":""}}', b'{"by":null}', b'{"by":""}',
    b'{"li":[{"a":"x","n":1},null,{}],"mi":{"k":{"n":2},"j":null}}', b'{"ll":[[1,2],[],null]}',
    b'{"e":"emb","en":3}', b'{"hidden":"h","-":"h"}', b'{"lst":null,"li":[],"m":{}}',
    b'{"inner":null,"pinner":null,"s":null,"i32":null,"b":null,"f":null,"lst":[null,"x"]}',
]
# Valid documents it leaves to the pure twin: repeated keys (the last one wins, without
# merging the earlier one) and nesting beyond the native limit.
HANDED_OVER = [
    b'{"pf":null,"pf":1}', b'{"s":"a","s":"b"}', b'{"inner":{"a":"x"},"inner":{"n":1}}',
    b'{"m":{"a":"1","a":"2"}}', b'{"any":{"x":1,"x":2}}', b'{"mi":{"k":{"a":"1"},"k":{"n":1}}}',
    b'{"li":[{"zz":1,"a":"x","zz":2}],"mi":{"k":{"q":1}},"any":{"x":1,"x":2}}',
    b'{"any":' + b"[" * 600 + b"]" * 600 + b"}", b'{"zz":' + b"[" * 600 + b"]" * 600 + b"}",
]
VALID = NATIVE + HANDED_OVER


@pytest.mark.parametrize("strict", [False, True], ids=["lax", "strict"])
@pytest.mark.parametrize("data", VALID, ids=_id)
def test_valid_inputs_match(data: bytes, strict: bool) -> None:
    err, _, _ = assert_same_decode(data, strict=strict)
    assert err is None


MERGES = [
    b'{"m":{"new":"2"},"inner":{"n":4},"pinner":{"n":9},"lst":["y"],"mi":{"n":{"a":"n"}}}',
    b'{"s":null,"i32":null,"inner":null,"m":null,"pinner":null,"q":null}',
    b'{"e":"x"}', b'{}', b"null", b'{"mi":{"n":{"a":1}}}', b'{"inner":{"n":"bad"}}', b'{"s":"x",',
    b'{"inner":{"a":"1"},"inner":{"n":2}}',
]


@pytest.mark.parametrize("data", MERGES, ids=_id)
def test_merge_into_existing_object(data: bytes) -> None:
    init = Kitchen(s="keep", i32=5, m={"old": "1"}, mi={"o": Inner(a="o")}, inner=Inner(a="ia", n=3),
                   pinner=Inner(a="p"), lst=["x"], q=Quantity("1"), emb=Emb(e="e0", en=1))
    assert_same_decode(data, init=init)


def test_go_values() -> None:
    """Concrete Go results, not only agreement with the pure twin."""
    _, obj, _ = assert_same_decode(
        b'{"s":"\\ud800\\udc00\\ud800x\xff","any":[1,1.0,12345678901234567890,-0],'
        b'"inner":{"n":7},"m":{"k":"v"},"f":3}')
    assert obj.s == "\U00010000\ufffdx\ufffd"
    assert obj.anyv == [1, 1.0, 12345678901234567890.0, 0]
    assert [type(v) for v in obj.anyv] == [int, float, float, int]
    assert obj.inner == Inner(n=7) and obj.m == {"k": "v"} and obj.f == 3.0 and type(obj.f) is float
    init = Kitchen(s="old", m={"a": "1"}, lst=["x"])
    _, obj, _ = assert_same_decode(b'{"m":{"b":"2"},"lst":["y"],"s":null}', init=init)
    assert obj.m == {"a": "1", "b": "2"} and obj.lst == ["y"] and obj.s == "old"
    _, _, strict = assert_same_decode(b'{"VaLue":1,"inner":{"zz":1},"li":[{"q":2}],"s":"a","s":"b"}', strict=True)
    assert strict == ['duplicate field "s"', 'unknown field "VaLue"', 'unknown field "inner.zz"',
                      'unknown field "li[0].q"']


def test_null_for_a_string_field_leaves_whatever_it_holds() -> None:
    init = Kitchen._new_zero()
    object.__setattr__(init, "s", None)
    _, obj, _ = assert_same_decode(b'{"s":null,"lst":[null],"ps":null}', init=init)
    assert obj.s is None and obj.lst == [""] and obj.ps is None
    _, obj, _ = assert_same_decode(b'{"s":null}', init=Kitchen(s="x"))
    assert obj.s == "x"


@pytest.mark.parametrize("data", [
    '{"s":"text é"}', bytearray(b'{"s":"ba"}'), memoryview(b'{"s":"mv"}'), '{"s":"\udcff"}',
])
def test_input_types(data: Any) -> None:
    err, obj, _ = assert_same_decode(data)
    assert err is None


def test_fast_path_handles_unusual_but_valid_text() -> None:
    before = C._handovers()
    for data in NATIVE:
        obj = Kitchen._new_zero()
        C.json_fill(obj, Kitchen, data, None, "Kitchen")
    assert C._handovers() == before


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("data", [b'{"li":[{"a":"x"}]}', b'{"li":[{"a":1}]}', b'{"li":['])
def test_collector_state_restored(enabled: bool, data: bytes) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        try:
            C.json_fill(Kitchen._new_zero(), Kitchen, data, None, "Kitchen")
        except DecodeError:
            pass
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_shared_immutable_values_are_equal_not_aliased_mutables() -> None:
    data = b'{"li":[],"q":"100m","t":"2024-01-02T03:04:05Z","raw":{"a":1},"fv":{"f:a":{}}}'
    a, b = Kitchen._new_zero(), Kitchen._new_zero()
    C.json_fill(a, Kitchen, data, None, "Kitchen")
    C.json_fill(b, Kitchen, data, None, "Kitchen")
    assert a == b
    # Mutable custom values are never shared between decoded objects.
    assert a.raw is not b.raw and a.fv is not b.fv
    # Many distinct quantities (the result cache is bounded) still decode right.
    for i in range(5000):
        obj = Kitchen._new_zero()
        C.json_fill(obj, Kitchen, b'{"q":"%dm"}' % i, None, "Kitchen")
        assert str(obj.q) == f"{i}m" if i % 1000 else True


def test_short_strings_are_shared_within_one_document() -> None:
    """The compiled decoder hands out one str per distinct short value (the memory of a
    decoded list is mostly its repeated strings); values stay equal to the pure twin's."""
    long = "x" * 65
    data = (b'{"li":[{"a":"same"},{"a":"same"},{"a":"%s"},{"a":"%s"}],"lst":["same","same\\n"],'
            b'"m":{"same":"same"}}' % (long.encode(), long.encode()))
    obj, ref = Kitchen._new_zero(), Kitchen._new_zero()
    C.json_fill(obj, Kitchen, data, None, "Kitchen")
    P.json_fill(ref, Kitchen, data, None, "Kitchen")
    assert obj == ref
    assert obj.li[0].a is obj.li[1].a is obj.lst[0] is obj.m["same"]
    assert next(iter(obj.m)) is obj.lst[0]
    assert obj.lst[1] == "same\n"  # escaped text is built, not shared
    assert obj.li[2].a == obj.li[3].a == long
    # Hash collisions only replace cache entries: thousands of distinct short values decode.
    many = b'{"lst":[%s]}' % b",".join(b'"v%d"' % i for i in range(20000))
    out = Kitchen._new_zero()
    C.json_fill(out, Kitchen, many, None, "Kitchen")
    assert out.lst == [f"v{i}" for i in range(20000)]


# ----------------------------------------------------------------------------- encoding

def _unchecked(cls, **values):
    """An instance holding exactly ``values``, past the constructor's type checks: these
    cases feed the encoders what only code that bypasses the checks can build."""
    obj = cls._new_zero()
    for name, value in values.items():
        object.__setattr__(obj, name, value)
    return obj


class _IE(enum.IntEnum):
    A = 7


class _S(str):
    pass


ENCODE_CASES = {
    "zero": Kitchen._new_zero(),
    "full": _unchecked(Kitchen, 
        s="a<b>&\u2028\u2029\x00\x1f\x7f\ud800 é 😀 \"\\\n\r\t\b\f", ps="", i32=-5, i64=2**70, b=True,
        f=1e21, by=b"\x00\x01\xff", lst=[], li=[Inner(), None], m={"b": "1", "a": "2", "é": "", "Z": "<"},
        mi={"z": Inner(a="z"), "a": None}, ll=[[1, 2], []],
        anyv={"x": [1, 2.5, None, True, RawJSON(b' { "a" : [ 1 , 2 ] , "h":"<&>\xe2\x80\xa8\\"" } ')], "y": {}},
        t=Time.unix(1700000000), pt=Time.unix(0), q=Quantity("1.5Gi"), ios=IntOrString.from_string("http"),
        raw=RawExtension(b'{"a":1}'), fv=FieldsV1(b'{"f:a" : {}}'), emb=Emb(e="e", en=2), hidden="h",
        iz=Inner(), pf=0.0, mt=MicroTime.unix(5, 123456000), d=Duration(90 * 10**9), mb={"k": b"", "j": None}),
    "subclasses": _unchecked(Kitchen, s=_S("sub"), i32=_IE.A, i64=True, m={"a": _S("x")}),
    "non-str key": _unchecked(Kitchen, m={1: "x"}),
    "int in str map": _unchecked(Kitchen, m={"a": 1}),
    "object in any": _unchecked(Kitchen, anyv={"k": object()}),
    "bad raw": _unchecked(Kitchen, fv=FieldsV1(b"{bad")),
    "raw with big number": _unchecked(Kitchen, fv=FieldsV1(b'{"a": 1e999}')),
    "empties": _unchecked(Kitchen, anyv=[[], {}, [{}], {"a": []}, ()]),
    "tuple list": _unchecked(Kitchen, li=(Inner(a="t"),)),
    "None value struct": _unchecked(Kitchen, inner=None),
    "pointer inline": _unchecked(Kitchen, pemb=Emb(e="p")),
    "raw any": _unchecked(Kitchen, anyv=RawJSON(b'{"deep":{"x":[1,{"y":2}],"e":{},"l":[]}}'), li=[Inner(a="q")]),
    "struct in any": _unchecked(Kitchen, anyv=Inner()),
    "wrong struct": _unchecked(Kitchen, inner={"a": 1}),
    "bytes not bytes": _unchecked(Kitchen, by="text"),
}
ENCODE_CASES.update({f"float {x!r}": _unchecked(Kitchen, f=x) for x in (
    0.1, 1e-7, 1e20, 1e21, 5e-324, -0.0, 1e-6, 123456789.0, 1.5e300, -1e-5, 1e16, float("nan"),
    float("inf"), float("-inf"))})


@pytest.mark.parametrize("name", list(ENCODE_CASES))
def test_encode_parity(name: str) -> None:
    assert_same_encode(ENCODE_CASES[name])


def test_encode_go_text() -> None:
    compact, pretty = assert_same_encode(Kitchen(s="<é\u2028\ud800", f=1e21, m={"b": "", "a": "x"},
                                                 anyv=RawJSON(b'{ "k" : [1, 2] }'), lst=["x"]))
    assert compact == (b'{"s":"\\u003c\xc3\xa9\\u2028\\ufffd","i32":0,"f":1e+21,"inner":{"n":0},'
                       b'"lst":["x"],"li":null,"m":{"a":"x","b":""},"any":{"k":[1,2]},"t":null}')
    assert pretty.startswith(b'{\n  "s": "\\u003c')
    assert b'\n  "any": {\n    "k": [\n      1,\n      2\n    ]\n  },\n' in pretty
    with pytest.raises(EncodeError, match="unsupported value: NaN"):
        C.json_encode(Kitchen(f=float("nan")), False)


# ----------------------------------------------------------------------------- random

_text = st.text(st.characters(blacklist_categories=("Cs",)) | st.sampled_from("<>&\u2028\x00\"\\"), max_size=8)
_inner = st.builds(Inner, a=_text, n=st.integers(-(2**31), 2**31 - 1))
_json_leaf = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | _text
_json_tree = st.recursive(_json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
                          max_leaves=8)
_kitchens = st.builds(
    functools.partial(_unchecked, Kitchen),  # nil elements and other shapes only kernels see
    s=_text, ps=st.none() | _text, i32=st.integers(-(2**31), 2**31 - 1), i64=st.integers(-(2**63), 2**63 - 1),
    b=st.booleans(), f=st.floats(allow_nan=False, allow_infinity=False), by=st.none() | st.binary(max_size=6),
    inner=_inner, pinner=st.none() | _inner, lst=st.none() | st.lists(_text, max_size=3),
    li=st.none() | st.lists(st.none() | _inner, max_size=3), m=st.none() | st.dictionaries(_text, _text, max_size=3),
    mi=st.none() | st.dictionaries(_text, st.none() | _inner, max_size=2),
    ll=st.none() | st.lists(st.none() | st.lists(st.integers(-5, 2**40), max_size=2), max_size=2),
    anyv=_json_tree, q=st.sampled_from([Quantity(), Quantity("100m"), Quantity("1.5Gi"), Quantity("12e3")]),
    ios=st.sampled_from([IntOrString(0), IntOrString(8080), IntOrString.from_string("http")]),
    emb=st.builds(Emb, e=_text, en=st.integers(-3, 3)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_kitchens)
def test_random_objects_roundtrip(obj: Kitchen) -> None:
    compact, _ = assert_same_encode(obj)
    err, back, _ = assert_same_decode(compact, strict=True)
    assert err is None


_docs = st.sampled_from([v for v in VALID if len(v) < 400] + [b'{"li":[{"a":"x","n":1}],"mi":{"k":{"n":2}},"q":"1"}'])


@settings(max_examples=300, deadline=None)
@given(_docs, st.integers(0, 400), st.binary(min_size=0, max_size=3), st.integers(0, 3))
def test_random_corruptions(doc: bytes, at: int, insert: bytes, drop: int) -> None:
    at = at % (len(doc) + 1)
    data = doc[:at] + insert + doc[at + drop:]
    assert_same_decode(data)
    assert_same_decode(data, strict=True)
