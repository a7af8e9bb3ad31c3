"""metav1 Time, MicroTime, Duration and FieldsV1 wire forms (Go: k8s.io/apimachinery/pkg/apis/meta/v1/time.go; k8s.io/apimachinery/pkg/apis/meta/v1/duration.go; the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime; k8s.io/apimachinery/pkg/conversion/queryparams/convert.go)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kcodec.api.meta._values import Duration, FieldsV1, MicroTime, Time
from kcodec.errors import DecodeError, EncodeError
from kcodec.model import RawJSON

LAYOUT = '"2006-01-02T15:04:05Z07:00"'
MICRO_LAYOUT = '"2006-01-02T15:04:05.000000Z07:00"'
T0 = 894344705  # 1998-05-05T05:05:05Z


# ---------------------------------------------------------------------------- Time


def test_time_json_encode() -> None:
    assert Time()._to_tree() is None
    assert Time.unix(T0, 50)._to_tree() == "1998-05-05T05:05:05Z"
    minus4 = timezone(timedelta(hours=-4))
    assert Time.from_datetime(datetime(1998, 5, 5, 1, 5, 5, tzinfo=minus4))._to_tree() == "1998-05-05T05:05:05Z"
    assert Time.unix(0)._to_tree() == "1970-01-01T00:00:00Z"
    assert Time.parse("0000-03-01T00:00:00Z")._to_tree() == "0000-03-01T00:00:00Z"
    assert Time.unix(253402300800)._to_tree() == "10000-01-01T00:00:00Z"


def test_time_json_decode() -> None:
    assert Time._from_tree(None, "p").is_zero()
    t = Time._from_tree("1998-05-05T05:05:05.123456789Z", "p")
    assert t.nanosecond == 123456789 and t.unix_seconds() == T0
    assert Time._from_tree("1998-05-05T01:05:05-04:00", "p") == Time.unix(T0)
    assert Time._from_tree("1998-05-05T06:35:05+01:30", "p") == Time.unix(T0)
    assert Time._from_tree("1998-05-05T5:05:05Z", "p") == Time.unix(T0)  # Go's parser takes a 1-digit hour
    assert Time._from_tree("0001-01-01T00:00:00Z", "p").is_zero()


@pytest.mark.parametrize(
    "text, tail",
    [
        ("1998-05-05 05:05:05Z", 'cannot parse " 05:05:05Z" as "T"'),
        ("1998-05-05T05:05:05z", 'cannot parse "z" as "Z07:00"'),
        ("1998-05-05T05:05:05", 'cannot parse "" as "Z07:00"'),
        ("98-05-05T05:05:05Z", 'cannot parse "98-05-05T05:05:05Z" as "2006"'),
        ("1998-5-05T05:05:05Z", 'cannot parse "5-05T05:05:05Z" as "01"'),
    ],
)
def test_time_parse_errors(text: str, tail: str) -> None:
    with pytest.raises(DecodeError) as info:
        Time._from_tree(text, "metadata.creationTimestamp")
    msg = str(info.value)
    assert msg.startswith(f'parsing time "{text}" as {LAYOUT}: {tail}')
    assert info.value.field_path == "metadata.creationTimestamp"  # the place is data


@pytest.mark.parametrize(
    "text, message",
    [
        ("1998-13-05T05:05:05Z", ": month out of range"),
        ("1998-02-29T05:05:05Z", ": day out of range"),
        ("1998-05-05T24:05:05Z", ": hour out of range"),
        ("1998-05-05T05:05:05Zabc", ': extra text: "abc"'),
    ],
)
def test_time_parse_range_errors(text: str, message: str) -> None:
    with pytest.raises(DecodeError) as info:
        Time.parse(text)
    assert str(info.value) == f'parsing time "{text}"{message}'


def test_time_json_type_error() -> None:
    with pytest.raises(DecodeError, match="cannot unmarshal number into Go value of type string"):
        Time._from_tree(5, "p")


def test_time_protobuf() -> None:
    assert Time()._proto_body() == b""
    assert Time.unix(0)._proto_body() == bytes.fromhex("08001000")
    assert Time.unix(T0, 999)._proto_body() == bytes.fromhex("0881bcbaaa031000")
    assert Time.unix(-1)._proto_body() == bytes.fromhex("08ffffffffffffffffff011000")
    assert Time._from_proto_body(b"", "p").is_zero()
    decoded = Time._from_proto_body(bytes.fromhex("0881bcbaaa03107b"), "p")
    assert decoded == Time.unix(T0) and decoded.nanosecond == 0  # nanos ignored on read
    assert Time._from_proto_body(bytes.fromhex("0881bcbaaa031000"), "p") == Time.unix(T0)
    with pytest.raises(DecodeError, match="^unexpected EOF$") as info:
        Time._from_proto_body(b"\x08", "p")
    assert info.value.field_path == "p"
    with pytest.raises(DecodeError, match="wrong wireType = 2 for field Seconds"):
        Time._from_proto_body(b"\x0a\x00", "p")


def test_time_query_parameter() -> None:
    assert Time()._query_value() == ""
    assert Time.parse("2000-01-01T12:34:56+01:00")._query_value() == "2000-01-01T11:34:56Z"
    assert Time.from_query_value("").is_zero()
    assert Time.from_query_value("null").is_zero()
    assert Time.from_query_value("2000-01-01T12:34:56Z") == Time.unix(946730096)


def test_time_helpers() -> None:
    now = Time.now()
    assert not now.is_zero()
    assert abs(now.datetime.timestamp() - datetime.now(timezone.utc).timestamp()) < 60
    dt = datetime(2020, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc)
    t = Time.from_datetime(dt)
    assert t.datetime == dt and t.nanosecond == 678901000
    assert Time(dt, nanosecond=5).nanosecond == 5
    assert Time().datetime is None and Time()._is_zero() and Time._zero().is_zero()
    assert t.rfc3339() == "2020-01-02T03:04:05Z"
    assert t.deep_copy() == t and hash(t) == hash(Time.unix(t.unix_seconds(), t.nanosecond))
    assert Time.unix(1) < Time.unix(2)
    assert eval(repr(t), {"Time": Time}) == t  # noqa: S307 - repr round trip
    with pytest.raises(DecodeError):
        Time.parse("0000-01-01T00:00:00Z").datetime


@given(st.integers(-62135596800 + 1, 253402300799), st.integers(0, 999_999_999))
def test_time_roundtrips(sec: int, nsec: int) -> None:
    t = Time.unix(sec, nsec)
    assert Time._from_tree(t._to_tree(), "p") == Time.unix(sec)
    assert Time._from_proto_body(t._proto_body(), "p") == Time.unix(sec)
    assert Time.parse(t._to_tree()).datetime == datetime.fromtimestamp(sec, timezone.utc)


# ----------------------------------------------------------------------- MicroTime


def test_microtime_json() -> None:
    assert MicroTime()._to_tree() is None
    assert MicroTime.unix(T0)._to_tree() == "1998-05-05T05:05:05.000000Z"
    assert MicroTime.unix(T0, 5050)._to_tree() == "1998-05-05T05:05:05.000005Z"
    t = MicroTime._from_tree("1998-05-05T05:05:05.123456+01:00", "p")
    assert t == MicroTime.unix(T0 - 3600, 123456000)
    assert MicroTime._from_tree(None, "p").is_zero()
    assert MicroTime.from_query_value("").is_zero()
    assert MicroTime.unix(T0, 7000)._query_value() == "1998-05-05T05:05:05.000007Z"


@pytest.mark.parametrize(
    "text, tail",
    [
        ("1998-05-05T05:05:05Z", 'cannot parse "Z" as ".000000"'),
        ("1998-05-05T05:05:05.123Z", 'cannot parse ".123Z" as ".000000"'),
        ("1998-05-05T05:05:05.1234567Z", 'cannot parse "7Z" as "Z07:00"'),
    ],
)
def test_microtime_parse_errors(text: str, tail: str) -> None:
    with pytest.raises(DecodeError) as info:
        MicroTime._from_tree(text, "p")
    assert str(info.value).startswith(f'parsing time "{text}" as {MICRO_LAYOUT}: {tail}')


def test_microtime_protobuf() -> None:
    assert MicroTime()._proto_body() == b""
    assert MicroTime.unix(T0, 5050)._proto_body() == bytes.fromhex("0881bcbaaa03108827")
    back = MicroTime._from_proto_body(bytes.fromhex("0881bcbaaa0310ba27"), "p")  # nanos 5050
    assert back == MicroTime.unix(T0, 5000)
    negative = MicroTime._from_proto_body(bytes.fromhex("0881bcbaaa0310a4f4ffffffffffffff01"), "p")  # -1500
    assert negative == MicroTime.unix(T0, -1000)


@given(st.integers(-62135596800 + 1, 253402300799), st.integers(0, 999_999_999))
def test_microtime_roundtrips(sec: int, nsec: int) -> None:
    t = MicroTime.unix(sec, nsec)
    micro = MicroTime.unix(sec, nsec - nsec % 1000)
    assert MicroTime._from_tree(t._to_tree(), "p") == micro
    assert MicroTime._from_proto_body(t._proto_body(), "p") == micro


# ------------------------------------------------------------------------ Duration

S = 1_000_000_000


@pytest.mark.parametrize(
    "ns, text",
    [
        (5 * S, "5s"), (120 * S, "2m0s"), (3600 * S + 3_000_000, "1h0m0.003s"), (0, "0s"), (1_500_000, "1.5ms"),
        (-90 * S, "-1m30s"), (36 * 3600 * S, "36h0m0s"), (1, "1ns"), (1500, "1.5µs"), (S + 1, "1.000000001s"),
        (-(2**63), "-2562047h47m16.854775808s"), (2**63 - 1, "2562047h47m16.854775807s"),
    ],
)
def test_duration_format(ns: int, text: str) -> None:
    d = Duration(ns)
    assert str(d) == text and d._to_tree() == text
    assert Duration._from_tree(text, "p") == d


@pytest.mark.parametrize(
    "text, ns",
    [("2m", 120 * S), ("1h0.003s", 3600 * S + 3_000_000), ("1.5h", 5400 * S), ("300ms", 300_000_000),
     ("-1.5h", -5400 * S), ("+5s", 5 * S), ("0", 0), ("-0", 0), ("1µs", 1000), ("1μs", 1000), ("1us", 1000),
     (".5s", S // 2), ("1.s", S), ("1h1m1s1ms1us1ns", 3661 * S + 1_001_001), ("-9223372036854775808ns", -(2**63))],
)
def test_duration_parse(text: str, ns: int) -> None:
    assert Duration.parse(text).nanoseconds == ns


@pytest.mark.parametrize(
    "text, message",
    [
        ("1", 'time: missing unit in duration "1"'),
        ("1d", 'time: unknown unit "d" in duration "1d"'),
        ("", 'time: invalid duration ""'),
        (".s", 'time: invalid duration ".s"'),
        ("-", 'time: invalid duration "-"'),
        ("s", 'time: invalid duration "s"'),
        ("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
        ("3000000h", 'time: invalid duration "3000000h"'),
        ("1é", 'time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"'),
    ],
)
def test_duration_parse_errors(text: str, message: str) -> None:
    with pytest.raises(DecodeError) as info:
        Duration.parse(text)
    assert str(info.value) == message


def test_duration_json_null_and_types() -> None:
    with pytest.raises(DecodeError, match='time: invalid duration ""'):
        Duration._from_tree(None, "spec.timeout")
    with pytest.raises(DecodeError, match="cannot unmarshal number into Go value of type string"):
        Duration._from_tree(5, "spec.timeout")


def test_duration_protobuf() -> None:
    assert Duration(5 * S)._proto_body() == bytes.fromhex("0880e497d012")
    assert Duration(0)._proto_body() == bytes.fromhex("0800")
    assert Duration._from_proto_body(bytes.fromhex("0880e497d012"), "p") == Duration(5 * S)
    assert Duration._from_proto_body(b"", "p") == Duration(0)
    assert Duration._from_proto_body(Duration(-1)._proto_body(), "p") == Duration(-1)


def test_duration_helpers() -> None:
    assert Duration.from_timedelta(timedelta(seconds=1.5)) == Duration(1_500_000_000)
    assert Duration(-1_500).timedelta == timedelta(microseconds=-1)
    assert Duration(5 * S).seconds() == 5.0
    assert Duration._zero()._is_zero() and not Duration(1)._is_zero()
    assert repr(Duration(S)) == "Duration.parse('1s')"
    with pytest.raises(DecodeError):
        Duration(2**63)


@given(st.integers(-(2**63), 2**63 - 1))
def test_duration_roundtrips(ns: int) -> None:
    d = Duration(ns)
    assert Duration.parse(str(d)) == d
    assert Duration._from_proto_body(d._proto_body(), "p") == d


# ------------------------------------------------------------------------ FieldsV1


def test_fieldsv1_json() -> None:
    assert FieldsV1()._to_tree() is None
    assert FieldsV1(b"")._to_tree() is None
    assert FieldsV1(b'{"f:a":{}}')._to_tree() == RawJSON(b'{"f:a":{}}')
    assert FieldsV1._from_tree({}, "p").raw == b"{}"
    assert FieldsV1._from_tree({"f:metadata": {"f:name": {}, "f:é": {}}}, "p").raw == (
        '{"f:metadata":{"f:name":{},"f:é":{}}}'.encode()
    )
    assert FieldsV1._from_tree(None, "p").raw is None
    assert FieldsV1._from_tree(RawJSON(b'{"x":1}'), "p").raw == b'{"x":1}'
    with pytest.raises(EncodeError, match="cbor"):
        FieldsV1(b"\xa1\x41a\xa0")._to_tree()


def test_fieldsv1_protobuf() -> None:
    assert FieldsV1()._proto_body() == b""
    assert FieldsV1(b"{}")._proto_body() == bytes.fromhex("0a027b7d")
    assert FieldsV1._from_proto_body(bytes.fromhex("0a027b7d"), "p") == FieldsV1(b"{}")
    assert FieldsV1._from_proto_body(b"", "p").raw is None
    with pytest.raises(DecodeError, match="unexpected EOF"):
        FieldsV1._from_proto_body(bytes.fromhex("0a057b7d"), "p")


def test_fieldsv1_value_semantics() -> None:
    f = FieldsV1(b"{}")
    c = f.deep_copy()
    assert c == f and c is not f
    c.raw = b'{"a":{}}'
    assert f.raw == b"{}"
    assert FieldsV1()._is_zero() and not FieldsV1(b"")._is_zero()
    assert str(FieldsV1('{"a":{}}')) == '{"a":{}}'


# ------------------------------------------------------------------------ fixtures

FIXTURES = __import__("pathlib").Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "k8s-api-v0.36.3" / "HEAD"
_STAMP = __import__("re").compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z\Z")


def _strings(node: object):
    if isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)
    elif isinstance(node, str):
        yield node


def test_fixture_timestamps_reencode_identically() -> None:
    import json

    if not FIXTURES.is_dir():
        pytest.skip(f"Go fixtures not found at {FIXTURES}")
    seen = 0
    for path in sorted(FIXTURES.glob("*.json")):
        for text in _strings(json.loads(path.read_bytes())):
            if _STAMP.match(text):
                cls = MicroTime if "." in text else Time
                assert cls._from_tree(text, path.name)._to_tree() == text
                seen += 1
    assert seen > 0
