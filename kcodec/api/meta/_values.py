"""metav1 leaf value types: Time, MicroTime, Duration and FieldsV1 (Go: k8s.io/apimachinery/pkg/apis/meta/v1/time.go; k8s.io/apimachinery/pkg/apis/meta/v1/duration.go; the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime; k8s.io/apimachinery/pkg/conversion/queryparams/convert.go).

Times are kept as Unix seconds plus nanoseconds (Python ints), so every instant Go can hold
(years 0 and beyond 9999 included) round-trips; ``.datetime`` converts on demand. Parsing
reproduces Go's ``time.Parse`` for the two layouts Kubernetes uses, error texts included,
and Duration follows ``time.ParseDuration`` / ``Duration.String``.
"""
from __future__ import annotations

import json
import time as _time
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any

from kcodec.errors import DecodeError, EncodeError
from kcodec.gofmt import time_quote as _time_quote
from kcodec.model import CustomValue, RawJSON
from kcodec.types import (
    _I64_MAX,
    _I64_MIN,
    _decode_error,
    _json_kind,
    _pb_fields,
    _put_bytes_field,
    _put_tag,
    _put_uvarint,
    _wrap32,
    _wrap64,
    _wrong_wire,
)

__all__ = ["Time", "MicroTime", "Duration", "FieldsV1", "RFC3339", "RFC3339_MICRO"]

RFC3339 = "2006-01-02T15:04:05Z07:00"
"""Go's time.RFC3339 layout, the JSON form of Time."""
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"
"""metav1.RFC3339Micro, the JSON form of MicroTime."""

_NS = 1_000_000_000
# Go's zero time.Time is 0001-01-01T00:00:00Z.
_ZERO_UNIX = -62135596800


# --------------------------------------------------------------------------------------
# calendar arithmetic (proleptic Gregorian, any year)


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return y + (m <= 2), m, d


def _days_in(month: int, year: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _format_utc(sec: int, nsec: int, frac_digits: int) -> str:
    days, rem = divmod(sec, 86400)
    y, mo, d = _civil_from_days(days)
    hh, rem = divmod(rem, 3600)
    mm, ss = divmod(rem, 60)
    year = f"-{-y:04d}" if y < 0 else f"{y:04d}"
    frac = ""
    if frac_digits:
        frac = "." + f"{nsec:09d}"[:frac_digits]
    return f"{year}-{mo:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}{frac}Z"


# --------------------------------------------------------------------------------------
# time.Parse for the RFC3339 layouts


class _TimeParseError(Exception):
    pass


def _cannot(layout: str, value: str, value_elem: str, layout_elem: str) -> _TimeParseError:
    return _TimeParseError(
        f"parsing time {_time_quote(value)} as {_time_quote(layout)}: cannot parse "
        f"{_time_quote(value_elem)} as {_time_quote(layout_elem)}"
    )


def _message(value: str, message: str) -> _TimeParseError:
    return _TimeParseError(f"parsing time {_time_quote(value)}{message}")


def _isdigit(s: str, i: int) -> bool:
    return i < len(s) and "0" <= s[i] <= "9"


def _getnum(s: str, fixed: bool) -> tuple[int, str] | None:
    if not _isdigit(s, 0):
        return None
    if not _isdigit(s, 1):
        if fixed:
            return None
        return ord(s[0]) - 48, s[1:]
    return (ord(s[0]) - 48) * 10 + ord(s[1]) - 48, s[2:]


def _atoi(s: str) -> int | None:
    neg = False
    if s and s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if not s or not all("0" <= c <= "9" for c in s):
        return None
    v = int(s)
    if v > _I64_MAX:
        return None
    return -v if neg else v


def _parse_nanoseconds(value: str, nbytes: int) -> tuple[int, str]:
    """(nanoseconds, range error name or ""); None-like failure raised as ValueError."""
    if value[0] not in ".,":
        raise ValueError
    if nbytes > 10:
        value = value[:10]
        nbytes = 10
    ns = _atoi(value[1:nbytes])
    if ns is None:
        raise ValueError
    if ns < 0:
        return 0, "fractional second"
    return ns * 10 ** (10 - nbytes), ""


# (prefix, std name, std text) chunks of the two layouts, as Go's nextStdChunk splits them.
_RFC3339_CHUNKS = (
    ("", "year", "2006"),
    ("-", "month", "01"),
    ("-", "day", "02"),
    ("T", "hour", "15"),
    (":", "minute", "04"),
    (":", "second", "05"),
    ("", "tz", "Z07:00"),
)
_MICRO_CHUNKS = _RFC3339_CHUNKS[:6] + (("", "frac6", ".000000"),) + _RFC3339_CHUNKS[6:]


def _go_parse(layout: str, chunks: tuple, value: str) -> tuple[int, int, int | None]:
    """Go time.Parse for a layout made of ``chunks``: (unix seconds, nanos, zone offset or None for Z)."""
    orig = value
    year = -1
    clock = {"month": -1, "day": -1, "hour": 0, "minute": 0, "second": 0}
    nsec = 0
    offset: int | None = None
    for index, (prefix, std, stdstr) in enumerate(chunks):
        if prefix:
            if not value.startswith(prefix):
                raise _cannot(layout, orig, value, prefix)
            value = value[len(prefix):]
        hold = value
        range_err = ""
        if std == "year":
            y = _atoi(value[:4]) if len(value) >= 4 and _isdigit(value, 0) else None
            ok = y is not None
            if y is not None:
                year, value = y, value[4:]
        elif std == "frac6":
            ok, range_err, value, nsec = _parse_frac6(value)
        elif std == "tz":
            ok, range_err, value, offset = _parse_zone(value)
        else:
            following = chunks[index + 1][1] if index + 1 < len(chunks) else ""
            ok, range_err, value, n, frac = _parse_clock_number(std, value, following == "frac6")
            clock[std] = n
            if frac is not None:
                nsec = frac
        if range_err:
            raise _message(orig, f": {range_err} out of range")
        if not ok:
            raise _cannot(layout, orig, hold, stdstr)
    if value:
        raise _message(orig, f": extra text: {_time_quote(value)}")
    month, day = clock["month"], clock["day"]
    if day < 1 or day > _days_in(month, year):
        raise _message(orig, ": day out of range")
    unix = (_days_from_civil(year, month, day) * 86400 + clock["hour"] * 3600 + clock["minute"] * 60
            + clock["second"])
    if offset is not None:
        unix -= offset
    return unix, nsec, offset


def _parse_clock_number(std: str, value: str, frac_next: bool) -> tuple[bool, str, str, int, int | None]:
    """A ``month``, ``day``, ``hour``, ``minute`` or ``second`` at the start of ``value``, as
    Go's time.Parse reads stdZeroMonth, stdZeroDay, stdHour, stdZeroMinute, stdZeroSecond:
    (ok, range error name or "", the rest, the number, nanoseconds of a fraction read after
    the seconds or None). A fraction after the seconds is read here unless the layout's next
    chunk is one (``frac_next``)."""
    got = _getnum(value, std != "hour")
    if got is None:
        return False, "", value, -1, None
    n, value = got
    if std == "month":
        return True, ("month" if n <= 0 or n > 12 else ""), value, n, None
    if std == "hour" or std == "minute":
        return True, (std if n >= (24 if std == "hour" else 60) else ""), value, n, None
    if std == "day":
        return True, "", value, n, None
    if n >= 60:
        return True, "second", value, n, None
    if frac_next or not (len(value) >= 2 and value[0] in ".," and _isdigit(value, 1)):
        return True, "", value, n, None
    # A fraction the layout does not mention is still accepted.
    n_end = 2
    while n_end < len(value) and _isdigit(value, n_end):
        n_end += 1
    try:
        nsec, range_err = _parse_nanoseconds(value, n_end)
    except ValueError:
        return False, "", value[n_end:], n, None
    return True, range_err, value[n_end:], n, nsec


def _parse_frac6(value: str) -> tuple[bool, str, str, int]:
    """The ``.000000`` chunk (stdFracSecond0, six digits) at the start of ``value``: (ok,
    range error name or "", the rest, nanoseconds)."""
    ndigit = 7
    if len(value) < ndigit:
        return False, "", value, 0
    try:
        nsec, range_err = _parse_nanoseconds(value, ndigit)
    except ValueError:
        return False, "", value, 0
    return True, range_err, value[ndigit:], nsec


def _parse_zone(value: str) -> tuple[bool, str, str, int | None]:
    """The ``Z07:00`` chunk (stdISO8601ColonTZ) at the start of ``value``: (ok, range error
    name or "", the rest, offset in seconds east of UTC or None for Z)."""
    if value[:1] == "Z":
        return True, "", value[1:], None
    if len(value) < 6 or value[3] != ":":
        return False, "", value, None
    sign, hh, mi, rest = value[0], value[1:3], value[4:6], value[6:]
    hr = _getnum(hh, True)
    mn = _getnum(mi, True) if hr is not None else None
    if hr is None or mn is None or hr[1] or mn[1]:
        return False, "", rest, None
    range_err = ""
    if hr[0] > 24:
        range_err = "time zone offset hour"
    if mn[0] > 60:
        range_err = "time zone offset minute"
    off = (hr[0] * 60 + mn[0]) * 60
    if sign == "+":
        return True, range_err, rest, off
    if sign == "-":
        return True, range_err, rest, -off
    return False, range_err, rest, None


# --------------------------------------------------------------------------------------
# Time and MicroTime


class _TimeBase(CustomValue):
    """Shared implementation of an instant with nanosecond precision and Go's zero value."""

    __slots__ = ("_sec", "_nsec", "_tz")

    _LAYOUT = RFC3339
    _CHUNKS = _RFC3339_CHUNKS
    _FRAC = 0  # fraction digits written in JSON

    @classmethod
    def _coerce(cls, value: Any) -> Any:
        """A datetime, or RFC 3339 text, given where a time is expected."""
        if isinstance(value, datetime):
            return cls(value)
        if isinstance(value, str):
            return cls.parse(value)
        return NotImplemented

    def __init__(self, value: datetime | None = None, *, nanosecond: int | None = None) -> None:
        """Zero (``None``), or the instant of ``value``.

        A naive datetime is taken as local time. ``nanosecond`` (0..999999999) replaces the
        sub-second part, which a datetime can only give to the microsecond.
        """
        if value is None:
            self._sec, self._nsec, self._tz = _ZERO_UNIX, 0, timezone.utc
            if nanosecond:
                self._nsec = self._check_nanos(nanosecond)
            return
        if not isinstance(value, datetime):
            raise DecodeError(f"{type(self).__name__} needs a datetime, got {type(value).__name__}")
        if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
            value = value.astimezone()
        delta = value - datetime(1970, 1, 1, tzinfo=timezone.utc)
        self._sec = delta.days * 86400 + delta.seconds
        self._nsec = delta.microseconds * 1000
        self._tz = value.tzinfo
        if nanosecond is not None:
            self._nsec = self._check_nanos(nanosecond)

    @staticmethod
    def _check_nanos(n: int) -> int:
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < _NS:
            raise DecodeError(f"nanosecond must be in [0, 999999999], got {n!r}")
        return n

    @classmethod
    def _at(cls, sec: int, nsec: int, tz: tzinfo | None = None) -> Any:
        sec += nsec // _NS
        nsec %= _NS
        t = cls.__new__(cls)
        t._sec, t._nsec, t._tz = sec, nsec, tz
        return t

    # -- constructors ------------------------------------------------------------------

    @classmethod
    def now(cls) -> Any:
        """The current time with nanoseconds (Go Now)."""
        ns = _time.time_ns()
        return cls._at(ns // _NS, ns % _NS)

    @classmethod
    def from_datetime(cls, dt: datetime) -> Any:
        """The instant of ``dt`` (naive = local time)."""
        return cls(dt)

    @classmethod
    def unix(cls, sec: int, nsec: int = 0) -> Any:
        """The instant ``sec`` seconds + ``nsec`` nanoseconds after the Unix epoch (Go Unix)."""
        return cls._at(int(sec), int(nsec))

    @classmethod
    def parse(cls, text: str) -> Any:
        """Parse the layout of this type (RFC3339, or RFC3339 with exactly 6 fraction digits).

        The fraction is kept to the nanosecond; raises DecodeError with Go's time.Parse text.
        """
        try:
            sec, nsec, _ = _go_parse(cls._LAYOUT, cls._CHUNKS, text)
        except _TimeParseError as exc:
            raise DecodeError(str(exc)) from None
        return cls._at(sec, nsec)

    @classmethod
    def from_query_value(cls, text: str) -> Any:
        """Go UnmarshalQueryParameter: "" and "null" are zero, otherwise :meth:`parse`."""
        if text == "" or text == "null":
            return cls()
        return cls.parse(text)

    # -- accessors ---------------------------------------------------------------------

    def is_zero(self) -> bool:
        """True for Go's zero time (0001-01-01T00:00:00Z, however it was made)."""
        return self._sec == _ZERO_UNIX and self._nsec == 0

    @property
    def nanosecond(self) -> int:
        """Nanoseconds within the second, 0..999999999."""
        return self._nsec

    def unix_seconds(self) -> int:
        """Whole seconds since the Unix epoch (Go Unix(), floor for negative times)."""
        return self._sec

    def unix_nano(self) -> int:
        """Nanoseconds since the Unix epoch."""
        return self._sec * _NS + self._nsec

    @property
    def datetime(self) -> datetime | None:
        """An aware datetime (microsecond precision) in the zone it was made with, or local
        time for decoded values; None for the zero Time. DecodeError when the year lies
        outside Python's 1..9999."""
        if self.is_zero():
            return None
        try:
            utc = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(
                seconds=self._sec, microseconds=self._nsec // 1000
            )
            return utc.astimezone(self._tz) if self._tz is not None else utc.astimezone()
        except (OverflowError, ValueError):
            raise DecodeError(f"{self.rfc3339()} is outside the range of datetime") from None

    def rfc3339(self) -> str:
        """UTC RFC3339 text, seconds precision: ``1998-05-05T05:05:05Z``."""
        return _format_utc(self._sec, self._nsec, 0)

    def _text(self) -> str:
        return _format_utc(self._sec, self._nsec, self._FRAC)

    def _query_value(self) -> str:
        """Go MarshalQueryParameter: "" for zero, else the JSON text unquoted."""
        return "" if self.is_zero() else self._text()

    def before(self, other: "_TimeBase") -> bool:
        """True when self is earlier than ``other``."""
        return (self._sec, self._nsec) < (other._sec, other._nsec)

    # -- CustomValue protocol ----------------------------------------------------------

    def _to_tree(self) -> str | None:
        return None if self.is_zero() else self._text()

    @classmethod
    def _from_tree(cls, value: Any, path: str) -> Any:
        if value is None:
            return cls()
        if not isinstance(value, str):
            raise _decode_error(f"json: cannot unmarshal {_json_kind(value)} into Go value of type string", path)
        try:
            sec, nsec, _ = _go_parse(cls._LAYOUT, cls._CHUNKS, value)
        except _TimeParseError as exc:
            raise _decode_error(str(exc), path) from None
        return cls._at(sec, nsec)

    def _proto_nanos(self) -> int:
        return 0

    def _proto_body(self) -> bytes:
        if self.is_zero():
            return b""
        out = bytearray()
        _put_tag(out, 1, 0)
        _put_uvarint(out, _wrap64(self._sec))
        _put_tag(out, 2, 0)
        _put_uvarint(out, self._proto_nanos())
        return bytes(out)

    @classmethod
    def _read_timestamp(cls, data: bytes, path: str) -> tuple[int, int]:
        seconds = nanos = 0
        for number, wire, value in _pb_fields(data, path, "Timestamp"):
            if number == 1:
                if wire != 0:
                    raise _wrong_wire(wire, "Seconds", path)
                seconds = _wrap64(value)
            elif number == 2:
                if wire != 0:
                    raise _wrong_wire(wire, "Nanos", path)
                nanos = _wrap32(value)
        return seconds, nanos

    @classmethod
    def _from_proto_body(cls, data: bytes, path: str) -> Any:
        if len(data) == 0:
            return cls()
        seconds, _ = cls._read_timestamp(data, path)
        return cls._at(seconds, 0)

    @classmethod
    def _zero(cls) -> Any:
        return cls()

    def _is_zero(self) -> bool:
        return self.is_zero()

    # Immutable: the copy is the value itself. Inherited, not redefined, so the compiled
    # deep_copy recognises it and skips a Python call per value.
    deep_copy = CustomValue.deep_copy

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _TimeBase):
            return NotImplemented
        return self._sec == other._sec and self._nsec == other._nsec

    def __lt__(self, other: "_TimeBase") -> bool:
        return self.before(other)

    def __hash__(self) -> int:
        return hash((self._sec, self._nsec))

    def __repr__(self) -> str:
        if self.is_zero():
            return f"{type(self).__name__}()"
        name = type(self).__name__
        if self._FRAC == 0 or self._nsec % 1000 == 0:
            digits = 9 if self._FRAC == 0 else self._FRAC
            return f"{name}.parse({_format_utc(self._sec, self._nsec, digits)!r})"
        return f"{name}.unix({self._sec}, {self._nsec})"


class Time(_TimeBase):
    """metav1.Time: JSON is UTC RFC3339 to the second (zero -> null); protobuf keeps seconds only.

    Immutable; equality and hashing follow the instant (Go ``Time.Equal``).
    """

    __go_name__ = "v1.Time"

    __slots__ = ()

    #: The compiled encoders write this class's values themselves, exactly as ``_to_tree``
    #: (JSON, with this many fraction digits) and ``_proto_body`` (Timestamp, nanos rounded
    #: down to this unit; 0 drops them) would; subclasses do not inherit the shortcut.
    _KC_JSON_TIME_FRAC = 0
    _KC_PB_TIME_UNIT = 0


class MicroTime(_TimeBase):
    """metav1.MicroTime: JSON ``...05.000000Z`` (exactly 6 fraction digits); protobuf keeps
    microseconds (nanos truncated)."""

    __go_name__ = "v1.MicroTime"

    __slots__ = ()

    _LAYOUT = RFC3339_MICRO
    _CHUNKS = _MICRO_CHUNKS
    _FRAC = 6
    _KC_JSON_TIME_FRAC = 6
    _KC_PB_TIME_UNIT = 1000

    def _proto_nanos(self) -> int:
        return self._nsec - self._nsec % 1000

    @classmethod
    def _from_proto_body(cls, data: bytes, path: str) -> "MicroTime":
        if len(data) == 0:
            return cls()
        seconds, nanos = cls._read_timestamp(data, path)
        # Duration.Truncate rounds toward zero, then time.Unix normalises.
        whole = abs(nanos) // 1000 * 1000
        nanos = whole if nanos >= 0 else -whole
        return cls._at(seconds, nanos)


# --------------------------------------------------------------------------------------
# Duration

_UNITS = {
    b"ns": 1,
    b"us": 1000,
    "µs".encode(): 1000,  # U+00B5 micro sign
    "μs".encode(): 1000,  # U+03BC greek mu
    b"ms": 1_000_000,
    b"s": _NS,
    b"m": 60 * _NS,
    b"h": 3600 * _NS,
}
_HALF = 1 << 63


def _parse_duration(text: str) -> int:
    """Go time.ParseDuration; raises DecodeError with Go's message."""
    orig = text
    s = text.encode("utf-8", "surrogatepass")
    invalid = f"time: invalid duration {_time_quote(orig)}"
    neg = False
    if s and s[0] in b"+-":
        neg = s[0] == 45
        s = s[1:]
    if s == b"0":
        return 0
    if not s:
        raise DecodeError(invalid)
    total = 0
    while s:
        c = s[0]
        if not (c == 46 or 48 <= c <= 57):
            raise DecodeError(invalid)
        i = 0
        v = 0
        while i < len(s) and 48 <= s[i] <= 57:
            if v > _HALF // 10:
                raise DecodeError(invalid)
            v = v * 10 + s[i] - 48
            if v > _HALF:
                raise DecodeError(invalid)
            i += 1
        pre = i > 0
        s = s[i:]
        f, scale, post = 0, 1.0, False
        if s and s[0] == 46:
            s = s[1:]
            i = 0
            overflow = False
            while i < len(s) and 48 <= s[i] <= 57:
                if not overflow:
                    if f > (_HALF - 1) // 10:
                        overflow = True
                    else:
                        y = f * 10 + s[i] - 48
                        if y > _HALF:
                            overflow = True
                        else:
                            f = y
                            scale *= 10
                i += 1
            post = i > 0
            s = s[i:]
        if not pre and not post:
            raise DecodeError(invalid)
        i = 0
        while i < len(s) and not (s[i] == 46 or 48 <= s[i] <= 57):
            i += 1
        if i == 0:
            raise DecodeError(f"time: missing unit in duration {_time_quote(orig)}")
        unit_bytes, s = s[:i], s[i:]
        unit = _UNITS.get(unit_bytes)
        if unit is None:
            raise DecodeError(
                f"time: unknown unit {_time_quote(unit_bytes.decode('utf-8', 'replace'))} "
                f"in duration {_time_quote(orig)}"
            )
        if v > _HALF // unit:
            raise DecodeError(invalid)
        v *= unit
        if f > 0:
            # Go computes the fraction in float64; int() truncates like uint64(float64).
            v += int(float(f) * (float(unit) / scale))
            if v > _HALF:
                raise DecodeError(invalid)
        total += v
        if total > _HALF:
            raise DecodeError(invalid)
    if neg:
        return _wrap64(-total)
    if total > _I64_MAX:
        raise DecodeError(invalid)
    return total


def _frac_text(v: int, prec: int) -> tuple[str, int]:
    """Go fmtFrac: ('.ddd' without trailing zeros or '', v // 10**prec)."""
    digits = []
    printed = False
    for _ in range(prec):
        d = v % 10
        printed = printed or d != 0
        if printed:
            digits.append(str(d))
        v //= 10
    text = "." + "".join(reversed(digits)) if printed else ""
    return text, v


def _format_duration(ns: int) -> str:
    """Go Duration.String: ``1h2m0.5s``, ``1.5ms``, ``0s``."""
    neg = ns < 0
    u = -ns if neg else ns
    if u < _NS:
        if u == 0:
            return "0s"
        if u < 1000:
            prec, unit = 0, "ns"
        elif u < 1_000_000:
            prec, unit = 3, "µs"
        else:
            prec, unit = 6, "ms"
        frac, u = _frac_text(u, prec)
        out = f"{u}{frac}{unit}"
    else:
        frac, u = _frac_text(u, 9)
        out = f"{u % 60}{frac}s"
        u //= 60
        if u > 0:
            out = f"{u % 60}m" + out
            u //= 60
            if u > 0:
                out = f"{u}h" + out
    return "-" + out if neg else out


class Duration(CustomValue):
    """metav1.Duration: an int64 count of nanoseconds; JSON is Go's duration string.

    Immutable. ``Duration(5 * 10**9)`` is 5s; :meth:`parse` reads ``"1h0m0.003s"``.
    """

    __go_name__ = "v1.Duration"

    __slots__ = ("_ns",)

    def __init__(self, nanoseconds: int = 0) -> None:
        """``nanoseconds`` must fit in int64."""
        if isinstance(nanoseconds, bool) or not isinstance(nanoseconds, int):
            raise DecodeError(f"Duration needs an int of nanoseconds, got {nanoseconds!r}")
        if not _I64_MIN <= nanoseconds <= _I64_MAX:
            raise DecodeError(f"Duration {nanoseconds} overflows int64 nanoseconds")
        self._ns = nanoseconds

    @classmethod
    def _coerce(cls, value: Any) -> Any:
        """Go duration text (``"1h30m"``) or a ``timedelta`` given where a Duration is expected."""
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, timedelta):
            return cls((value.days * 86400 + value.seconds) * 10**9 + value.microseconds * 1000)
        return NotImplemented

    @classmethod
    def parse(cls, text: str) -> "Duration":
        """Go time.ParseDuration (units ns, us, µs, μs, ms, s, m, h)."""
        return cls(_parse_duration(text))

    @classmethod
    def from_timedelta(cls, td: timedelta) -> "Duration":
        """The duration of ``td`` (microsecond precision)."""
        return cls((td.days * 86400 + td.seconds) * _NS + td.microseconds * 1000)

    @property
    def nanoseconds(self) -> int:
        """The duration in nanoseconds."""
        return self._ns

    @property
    def timedelta(self) -> timedelta:
        """As a timedelta (sub-microsecond part truncated toward zero)."""
        us = abs(self._ns) // 1000
        return timedelta(microseconds=-us if self._ns < 0 else us)

    def seconds(self) -> float:
        """The duration in seconds as a float."""
        return self._ns / _NS

    def __str__(self) -> str:
        return _format_duration(self._ns)

    def _to_tree(self) -> str:
        return _format_duration(self._ns)

    @classmethod
    def _from_tree(cls, value: Any, path: str) -> "Duration":
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise _decode_error(f"json: cannot unmarshal {_json_kind(value)} into Go value of type string", path)
        try:
            return cls(_parse_duration(value))
        except DecodeError as exc:
            raise _decode_error(str(exc), path) from None

    def _proto_body(self) -> bytes:
        out = bytearray()
        _put_tag(out, 1, 0)
        _put_uvarint(out, self._ns)
        return bytes(out)

    @classmethod
    def _from_proto_body(cls, data: bytes, path: str) -> "Duration":
        ns = 0
        for number, wire, value in _pb_fields(data, path, "Duration"):
            if number == 1:
                if wire != 0:
                    raise _wrong_wire(wire, "Duration", path)
                ns = _wrap64(value)
        return cls(ns)

    @classmethod
    def _zero(cls) -> "Duration":
        return cls(0)

    def _is_zero(self) -> bool:
        return self._ns == 0

    def deep_copy(self) -> "Duration":
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Duration):
            return NotImplemented
        return self._ns == other._ns

    def __hash__(self) -> int:
        return hash(self._ns)

    def __repr__(self) -> str:
        return f"Duration.parse({str(self)!r})"


# --------------------------------------------------------------------------------------
# FieldsV1


def _looks_cbor(raw: bytes) -> bool:
    p = raw[0]
    if p in b"n{\t\r\n ":
        return False
    return p == 0xF6 or 0xA0 <= p <= 0xBF or 0xC6 <= p <= 0xDB


# One encoder for every FieldsV1 decoded from a tree: json.dumps would build it again per
# value, and a PodList has a few of these per item.
_FIELDS_TEXT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _fields_raw(raw: Any) -> bytes | None:
    """FieldsV1.raw as kept: None, or bytes (str is encoded as UTF-8)."""
    if raw is None or type(raw) is bytes:
        return raw
    if isinstance(raw, str):
        return raw.encode("utf-8")
    if isinstance(raw, (bytes, bytearray, memoryview)):
        return bytes(raw)
    raise TypeError(f"FieldsV1.raw must be bytes, str or None, not {type(raw).__name__}")


class FieldsV1(CustomValue):
    """metav1.FieldsV1: managed-fields sets kept as raw JSON bytes.

    ``raw`` is None (Go nil) or bytes; JSON writes them verbatim (null when empty),
    protobuf as ``{1: raw}`` (omitted when empty). Mutable like Go's struct.
    """

    __go_name__ = "v1.FieldsV1"

    __slots__ = ("raw",)
    # A JSON decoder hands _from_tree an object or array as RawJSON of its source text.
    _KC_RAW_JSON = True
    #: The compiled protobuf encoder writes this class's body itself, exactly as
    #: ``_proto_body`` would, when ``raw`` is None or bytes; subclasses do not inherit it.
    _KC_PB_RAW_FIELD = True

    raw: bytes | None

    def __init__(self, raw: bytes | str | None = None) -> None:
        """``raw`` JSON text (bytes or str) or None."""
        object.__setattr__(self, "raw", _fields_raw(raw))

    def __setattr__(self, name: str, value: Any) -> None:
        # Assigned text is kept as bytes, as the constructor keeps it; the encoders would
        # otherwise meet a str or an int where Go has []byte.
        object.__setattr__(self, name, _fields_raw(value) if name == "raw" else value)

    def _invalid_reason(self) -> str | None:
        try:
            raw = self.raw
        except AttributeError:
            return "FieldsV1.raw is not set"
        if raw is None or type(raw) is bytes:
            return None
        return f"FieldsV1.raw holds {type(raw).__name__}, not bytes"

    def __str__(self) -> str:
        return (self.raw or b"").decode("utf-8", "replace")

    def _to_tree(self) -> RawJSON | None:
        raw = self.raw
        if not raw:
            return None
        if _looks_cbor(raw):
            raise EncodeError("metav1.FieldsV1 cbor invalid: CBOR-encoded managed fields cannot be written as JSON by kcodec")
        return RawJSON(raw)

    @classmethod
    def _from_tree(cls, value: Any, path: str) -> "FieldsV1":
        if value is None:
            return cls()
        if isinstance(value, RawJSON):
            return cls(value.data)
        try:
            text = _FIELDS_TEXT.encode(value)
        except (TypeError, ValueError) as exc:
            raise _decode_error(f"metav1.FieldsV1: cannot keep value as JSON: {exc}", path) from None
        return cls(text.encode("utf-8", "surrogatepass"))

    def _proto_body(self) -> bytes:
        if not self.raw:
            return b""
        out = bytearray()
        _put_bytes_field(out, 1, self.raw)
        return bytes(out)

    @classmethod
    def _from_proto_body(cls, data: bytes, path: str) -> "FieldsV1":
        raw = None
        for number, wire, value in _pb_fields(data, path, "FieldsV1"):
            if number == 1:
                if wire != 2:
                    raise _wrong_wire(wire, "Raw", path)
                raw = bytes(value)
        return cls(raw)

    @classmethod
    def _zero(cls) -> "FieldsV1":
        return cls()

    def _is_zero(self) -> bool:
        return self.raw is None

    def deep_copy(self) -> "FieldsV1":
        return FieldsV1(self.raw)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldsV1):
            return NotImplemented
        return (self.raw or b"") == (other.raw or b"")

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"FieldsV1({self.raw!r})"
