"""Kubernetes leaf value types: ``resource.Quantity`` and ``intstr.IntOrString``.

Both follow Go's ``k8s.io/apimachinery`` behaviour byte for byte on the wire (Go: k8s.io/apimachinery/pkg/util/intstr/intstr.go; k8s.io/apimachinery/pkg/api/resource/quantity.go): JSON tree forms, protobuf bodies, parse rules and error texts. Arithmetic is exact
(Python ints); where Go works on int64 or int32 and silently wraps, the wrap is reproduced.
"""
from __future__ import annotations

import decimal
import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Generic, Iterator, Optional, TypeVar, overload

from kcodec.errors import DecodeError, EncodeError
from kcodec.gofmt import quote as _go_quote
from kcodec.gojson import number_text as _number_text
from kcodec.errors import json_kind as _json_kind
from kcodec.model import CustomValue
from kcodec.wire import end_group_error, go_field_number, illegal_tag_error, read_go_uvarint, skip_field, wrong_wire_error

__all__ = [
    "IntOrStringField",
    "OptionalIntOrString",
    "QuantityField",
    "OptionalQuantity",
    "ResourceList",
    "Format",
    "DecimalExponent",
    "BinarySI",
    "DecimalSI",
    "Quantity",
    "parse_quantity",
    "must_parse",
    "new_quantity",
    "new_milli_quantity",
    "new_scaled_quantity",
    "IntOrString",
    "INT",
    "STRING",
    "get_scaled_value_from_int_or_percent",
    "get_value_from_int_or_percent",
    "value_or_default",
]


# --------------------------------------------------------------------------------------
# shared private helpers (also used by kcodec.api.meta._values)

_U64 = (1 << 64) - 1
_I64_MIN = -(1 << 63)
_I64_MAX = (1 << 63) - 1
_I32_MIN = -(1 << 31)
_I32_MAX = (1 << 31) - 1


def _wrap64(v: int) -> int:
    v &= _U64
    return v - (1 << 64) if v >> 63 else v


def _wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def _go_low_int64(n: int) -> int:
    """big.Int.Int64(): the low 64 bits of the magnitude, then the sign applied."""
    v = _wrap64(abs(n))
    return _wrap64(-v) if n < 0 else v


_GO_VALUE_TYPE_ERROR = re.compile(r"json: cannot unmarshal (.+) into Go value of type (\S+)")


def _decode_error(msg: str, path: str, offset: int | None = None) -> DecodeError:
    """Go's text; the place is kept as ``field_path`` and ``offset`` (docs/design.md, Errors)."""
    err = DecodeError(msg, field_path=path or None, offset=offset)
    m = _GO_VALUE_TYPE_ERROR.fullmatch(msg)
    if m is not None:
        # An UnmarshalJSON's inner json.Unmarshal error: the decoder around it gives it
        # the field's context, as encoding/json's addErrorContext does.
        err.go_type_error = (m.group(1), m.group(2))  # type: ignore[attr-defined]
    return err


_MAX_QUANTITY_TEXT = 4300


def _int_from_digits(digits: str) -> int:
    # int(str) refuses more than 4300 digits by default; Decimal has no such limit.
    if len(digits) <= 4000:
        return int(digits)
    return int(decimal.Decimal(digits))


def _digits_of(n: int) -> str:
    """Decimal text of a non-negative int of any size."""
    if n.bit_length() <= 13000:
        return str(n)
    return format(decimal.Decimal(n), "f")


def _put_uvarint(out: bytearray, v: int) -> None:
    v &= _U64
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def _put_tag(out: bytearray, number: int, wire: int) -> None:
    _put_uvarint(out, (number << 3) | wire)


def _put_bytes_field(out: bytearray, number: int, data: bytes) -> None:
    _put_tag(out, number, 2)
    _put_uvarint(out, len(data))
    out += data


def _pb_fields(data: bytes, path: str, message: str) -> Iterator[tuple[int, int, Any]]:
    """Yield ``(number, wire_type, value)`` for each field of a protobuf message body.

    Varint and fixed values come as unsigned ints, length-delimited ones as bytes. Groups
    are skipped (they never belong to a Kubernetes message); malformed input raises
    DecodeError with Go's message, the byte offset and ``path``.
    """
    data = bytes(data)
    n = len(data)
    pos = 0
    while pos < n:
        start = pos
        key, pos = read_go_uvarint(data, pos, len(data), path)
        wire = key & 7
        if wire == 4:
            raise end_group_error(message, path, start)
        number = go_field_number(key)
        if number <= 0:
            raise illegal_tag_error(message, key, path, start)
        if wire == 0:
            value, pos = read_go_uvarint(data, pos, len(data), path)
            yield number, wire, value
        elif wire == 1:
            if pos + 8 > n:
                raise _decode_error("unexpected EOF", path, n)
            yield number, wire, int.from_bytes(data[pos:pos + 8], "little")
            pos += 8
        elif wire == 5:
            if pos + 4 > n:
                raise _decode_error("unexpected EOF", path, n)
            yield number, wire, int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
        elif wire == 2:
            length, pos = read_go_uvarint(data, pos, len(data), path)
            if length > _I64_MAX:
                raise _decode_error("proto: negative length found during unmarshaling", path, start)
            if pos + length > n:
                raise _decode_error("unexpected EOF", path, n)
            yield number, wire, data[pos:pos + length]
            pos += length
        elif wire == 3:
            pos = skip_field(data, 3, pos, n, path)
        else:
            raise _decode_error(f"proto: illegal wireType {wire}", path, start)


def _wrong_wire(wire: int, field: str, path: str) -> DecodeError:
    return wrong_wire_error(wire, field, path)


# Go's unicode.IsSpace set, which strings.TrimSpace strips.
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


# --------------------------------------------------------------------------------------
# Quantity


class Format(str):
    """A Quantity's serialization format (Go ``resource.Format``, a plain string).

    The known formats are the class attributes ``DECIMAL_EXPONENT``, ``BINARY_SI`` and
    ``DECIMAL_SI``; any other value canonicalises like ``DecimalExponent``.
    """

    __slots__ = ()

    DECIMAL_EXPONENT: "Format"
    BINARY_SI: "Format"
    DECIMAL_SI: "Format"


Format.DECIMAL_EXPONENT = Format("DecimalExponent")
Format.BINARY_SI = Format("BinarySI")
Format.DECIMAL_SI = Format("DecimalSI")

DecimalExponent = Format.DECIMAL_EXPONENT  # e.g. 12e6
BinarySI = Format.BINARY_SI  # e.g. 12Mi (12 * 2^20)
DecimalSI = Format.DECIMAL_SI  # e.g. 12M (12 * 10^6)

_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_ERR_FORMAT = "quantities must match the regular expression '" + _SPLIT_RE + "'"
_ERR_NUMERIC = "unable to parse numeric part of quantity"
_ERR_SUFFIX = "unable to parse quantity's suffix"

_DEC_SUFFIX = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DEC_SUFFIX_BY_EXP = {v: k for k, v in _DEC_SUFFIX.items()}
_BIN_SUFFIX_BY_EXP = {v: k for k, v in _BIN_SUFFIX.items()}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_INT_RE = re.compile(r"[+-]?[0-9]+\Z")
_MAX_ALLOWED = _I64_MAX


class _ParseFailure(Exception):
    pass


def _split_quantity(s: str) -> tuple[bool, str, str, str, str]:
    """Go's parseQuantityString: (positive, value, num, denom, suffix)."""
    positive = True
    pos = 0
    end = len(s)
    if pos < end and s[0] in "+-":
        positive = s[0] == "+"
        pos += 1
    while True:
        if pos >= end:
            return positive, "0", "0", "", ""
        if s[pos] != "0":
            break
        pos += 1
    i = pos
    while i < end and "0" <= s[i] <= "9":
        i += 1
    if i >= end:
        return positive, s, s[pos:end], "", ""
    num = s[pos:i] or "0"
    pos = i
    denom = ""
    if s[pos] == ".":
        pos += 1
        i = pos
        while i < end and "0" <= s[i] <= "9":
            i += 1
        denom = s[pos:i]
        if i >= end:
            return positive, s, num, denom, ""
        pos = i
    value = s[:pos]
    suffix_start = pos
    i = pos
    while i < end and s[i] in _SUFFIX_CHARS:
        i += 1
    if i >= end:
        return positive, value, num, denom, s[suffix_start:]
    pos = i
    if s[pos] in "+-":
        pos += 1
    i = pos
    while i < end and "0" <= s[i] <= "9":
        i += 1
    if i >= end:
        return positive, value, num, denom, s[suffix_start:]
    raise _ParseFailure(_ERR_FORMAT)


def _interpret_suffix(suffix: str) -> tuple[int, int, Format]:
    """(base, exponent, format) of a suffix, or _ParseFailure(_ERR_SUFFIX)."""
    if suffix in _DEC_SUFFIX:
        return 10, _DEC_SUFFIX[suffix], DecimalSI
    if suffix in _BIN_SUFFIX:
        return 2, _BIN_SUFFIX[suffix], BinarySI
    if len(suffix) > 1 and suffix[0] in "eE":
        text = suffix[1:]
        if _INT_RE.match(text):
            parsed = int(text)
            if _I64_MIN <= parsed <= _I64_MAX:
                return 10, _wrap32(parsed), DecimalExponent
    raise _ParseFailure(_ERR_SUFFIX)


def _fits_int64(v: int) -> bool:
    return _I64_MIN <= v <= _I64_MAX


def _positive_scale_int64(base: int, scale: int) -> tuple[int, bool]:
    """base * 10**scale in int64, Go's overflow rule (failure yields 0)."""
    if scale == 0:
        return base, True
    if base == 0:
        return 0, True
    if base == _I64_MIN:
        return 0, False
    if scale > 19:
        return 0, False
    v = base * 10 ** scale
    return (v, True) if _fits_int64(v) else (0, False)


def _negative_scale_int64(base: int, scale: int) -> tuple[int, bool]:
    """base / 10**scale rounded away from zero, with exactness."""
    if scale == 0:
        return base, True
    mag = abs(base)
    if scale > 19:
        q, r = 0, mag
    else:
        q, r = divmod(mag, 10 ** scale)
    if r == 0:
        result = q
    elif q == 0:
        result = 1
    else:
        result = q + 1
    return (-result if base < 0 else result), r == 0


def _ndigits(n: int) -> int:
    n = abs(n)
    if n == 0:
        return 0
    # bit_length gives a cheap estimate; fix it up exactly with one comparison.
    est = int(n.bit_length() * 0.30102999566398120) + 1
    if est <= 4000:
        lo = 10 ** (est - 1)
        if n < lo:
            return est - 1
        if n >= lo * 10:
            return est + 1
        return est
    return len(_digits_of(n))


def _cmp_exact(m1: int, e1: int, m2: int, e2: int) -> int:
    """Compare m1*10**e1 with m2*10**e2 without building huge powers."""
    s1 = (m1 > 0) - (m1 < 0)
    s2 = (m2 > 0) - (m2 < 0)
    if s1 != s2:
        return -1 if s1 < s2 else 1
    if s1 == 0:
        return 0
    a, b = abs(m1), abs(m2)
    ma, mb = _ndigits(a) + e1, _ndigits(b) + e2
    if ma != mb:
        c = 1 if ma > mb else -1
    else:
        if e1 >= e2:
            a *= 10 ** (e1 - e2)
        else:
            b *= 10 ** (e2 - e1)
        c = (a > b) - (a < b)
    return c * s1


class Quantity(CustomValue):
    """A fixed-point number with a unit suffix: Go ``resource.Quantity``.

    Immutable. ``str(q)`` is the canonical form (or the parsed input string when that was
    already canonical). Build with :func:`parse_quantity`, :func:`must_parse`,
    :func:`new_quantity`, :func:`new_milli_quantity`; ``Quantity()`` is zero.
    """

    __go_name__ = "resource.Quantity"

    __slots__ = ("_m", "_e", "_dec", "_format", "_s")

    def __init__(self, text: str | None = None) -> None:
        """Zero, or ``text`` parsed as by :func:`parse_quantity`."""
        if text is not None and not isinstance(text, str):
            # Go's resource.MustParse takes a string too; a number has a format to choose.
            raise TypeError(
                f"Quantity() takes a string such as '500m' or '1Gi', got {type(text).__name__} "
                f"{text!r}: write Quantity({str(text)!r}), or new_quantity({text!r}, DecimalSI)"
                if isinstance(text, int) and not isinstance(text, bool) else
                f"Quantity() takes a string such as '500m' or '1Gi', got {type(text).__name__} {text!r}")
        self._m = 0  # value is _m * 10**_e
        self._e = 0
        self._dec = False  # True: Go holds an inf.Dec (rounded to scale 9); False: int64Amount
        self._format: str = ""
        self._s: str | None = None
        if text is not None:
            parsed = Quantity.parse(text)
            self._m, self._e, self._dec = parsed._m, parsed._e, parsed._dec
            self._format, self._s = parsed._format, parsed._s

    @classmethod
    def _make(cls, m: int, e: int, fmt: str, dec: bool, s: str | None = None) -> "Quantity":
        q = cls.__new__(cls)
        q._m = m
        q._e = e
        q._dec = dec
        q._format = fmt
        q._s = s
        return q

    # -- construction ------------------------------------------------------------------

    @classmethod
    def _coerce(cls, value: Any) -> Any:
        """``"500m"`` or an int given where a Quantity is expected."""
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return cls.parse(str(value))
        return NotImplemented

    @classmethod
    def parse(cls, s: str) -> "Quantity":
        """Go ParseQuantity; raises DecodeError with Go's message on bad input."""
        try:
            return cls._parse(s)
        except _ParseFailure as exc:
            raise DecodeError(str(exc)) from None

    @classmethod
    def _parse(cls, s: str) -> "Quantity":
        if not isinstance(s, str):
            raise _ParseFailure(_ERR_FORMAT)
        if len(s) == 0:
            raise _ParseFailure(_ERR_FORMAT)
        if len(s) > _MAX_QUANTITY_TEXT:
            # Go parses any length; exact decimal arithmetic here is quadratic in the
            # digits, so hostile input is refused rather than allowed to stall a decoder
            # (the same trade Python makes for int()).
            raise _ParseFailure(f"quantity text is {len(s)} characters long, longer than the {_MAX_QUANTITY_TEXT} kcodec accepts")
        if s == "0":
            return cls._make(0, 0, DecimalSI, False, "0")
        positive, value, num, denom, suf = _split_quantity(s)
        base, exponent, fmt = _interpret_suffix(suf)

        precision = 0
        scale = 0
        mantissa = 1
        if fmt == BinarySI:
            if exponent >= 0 and not denom:
                mantissa = 1 << exponent
                precision = 15 - len(num) - (exponent * 3) // 10 - 1
            else:
                precision = -1
        else:
            scale = exponent
            precision = 18 - (len(num) + len(denom))

        if precision >= 0:
            scale = _wrap32(scale - len(denom))
            if scale >= -9:
                shifted = num + denom
                v = int(shifted)
                if not _fits_int64(v):
                    raise _ParseFailure(_ERR_NUMERIC)
                result = v * mantissa
                if _fits_int64(result):
                    if not positive:
                        result = -result
                    keep = None
                    if fmt == BinarySI:
                        if exponent % 10 == 0 and (v & 0x07) != 0:
                            keep = s
                    elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                        keep = s
                    return cls._make(result, scale, fmt, False, keep)

        # Arbitrary precision path (Go's inf.Dec).
        digits = value.lstrip("+-").replace(".", "", 1)
        if not digits or not digits.isdigit() or not digits.isascii():
            raise _ParseFailure(_ERR_NUMERIC)
        frac = value.split(".", 1)[1] if "." in value else ""
        m = _int_from_digits(digits)
        e = -len(frac)
        if base == 10:
            e += exponent
        else:
            m <<= exponent
        if m != 0:
            if e < -9:
                shift = -9 - e
                if shift > _ndigits(m) + 1:
                    m = 1
                else:
                    m = -(-m // 10 ** shift)
                e = -9
            if fmt == BinarySI and _cmp_exact(m, e, _MAX_ALLOWED, 0) > 0:
                m, e = _MAX_ALLOWED, 0
            if fmt == BinarySI and _cmp_exact(m, e, 1, 0) < 0:
                fmt = DecimalSI
        if not positive:
            m = -m
        return cls._make(m, e, fmt, True)

    # -- accessors ---------------------------------------------------------------------

    @property
    def format(self) -> str:
        """The Format this quantity canonicalises to (``""`` for a bare zero value)."""
        return self._format

    def is_zero(self) -> bool:
        """True when the value is zero."""
        return self._m == 0

    def sign(self) -> int:
        """-1, 0 or 1."""
        return (self._m > 0) - (self._m < 0)

    def cmp(self, other: "Quantity") -> int:
        """-1, 0 or 1 as self is less than, equal to or greater than ``other``."""
        return _cmp_exact(self._m, self._e, other._m, other._e)

    def value(self) -> int:
        """The value rounded up to an integer (Go Value)."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """The value in thousandths, rounded up (Go MilliValue)."""
        return self.scaled_value(-3)

    def scaled_value(self, scale: int) -> int:
        """The value as an int64 at 10**scale units, with Go's rounding and int64 wrap."""
        if not self._dec:
            if self._e < scale:
                return _negative_scale_int64(self._m, scale - self._e)[0]
            return _positive_scale_int64(self._m, self._e - scale)[0]
        return self._dec_scaled_value(scale)

    def _dec_scaled_value(self, scale: int) -> int:
        m, e = self._m, self._e
        if m == 0:
            return 0
        # Go's inf.Dec holds unscaled U at scale 9 (value = U / 10**9), U = m * 10**(e+9).
        k = e + 9
        dif = 9 + scale
        if dif <= 0:
            low = _go_low_int64(m * 10 ** k) if k <= 64 else 0
            # int64(math.Pow10(n)) is exact up to n=18; beyond it amd64 yields the int64 minimum.
            return _wrap64(low * (10 ** (-dif) if -dif <= 18 else _I64_MIN))
        if k >= dif:
            # Exact division: U / 10**dif = m * 10**(k-dif); only its low 64 bits survive.
            p = k - dif
            low = (abs(m) * pow(10, p, 1 << 64)) & _U64
            return _go_low_int64(-low if m < 0 else low)
        u = m * 10 ** k
        div = 10 ** dif
        if u < _I64_MAX and dif < 19:
            q = abs(u) // div
            r = abs(u) % div
            q = -q if u < 0 else q
            return q + 1 if r else q
        q, r = divmod(u, div)
        return _wrap64(_go_low_int64(q) + (1 if r else 0))

    def as_int64(self) -> tuple[int, bool]:
        """(value, True) when the quantity is an integral int64 held without loss."""
        if self._dec:
            return 0, False
        if self._e == 0:
            return self._m, True
        if self._e < 0:
            return 0, False
        return _positive_scale_int64(self._m, self._e)

    # -- canonical form ----------------------------------------------------------------

    def __str__(self) -> str:
        if self._s is None:
            self._s = self._canonical()
        return self._s

    def _canonical(self) -> str:
        if self._m == 0:
            return "0"
        fmt = self._format
        if fmt not in (DecimalExponent, DecimalSI, BinarySI):
            fmt = DecimalExponent
        if fmt == BinarySI:
            if _cmp_exact(self._m, self._e, -1024, 0) > 0 and _cmp_exact(self._m, self._e, 1024, 0) < 0:
                fmt = DecimalSI
            else:
                integral = self._rounded_integer()
                if integral is None:
                    fmt = DecimalSI
                else:
                    neg = integral < 0
                    v = abs(integral)
                    times = 0
                    while v >= 1024 and v % 1024 == 0:
                        v //= 1024
                        times += 1
                    suffix = _BIN_SUFFIX_BY_EXP.get(times * 10, "")
                    return ("-" if neg else "") + _digits_of(v) + suffix
        neg = self._m < 0
        text = _digits_of(abs(self._m))
        stripped = text.rstrip("0")
        exponent = _wrap32(self._e + (len(text) - len(stripped)))
        text = stripped
        while exponent % 3 != 0:
            text += "0"
            exponent = _wrap32(exponent - 1)
        if fmt == DecimalSI:
            suffix = _DEC_SUFFIX_BY_EXP.get(exponent, "")
        else:
            suffix = "" if exponent == 0 else f"e{exponent}"
        return ("-" if neg else "") + text + suffix

    def _rounded_integer(self) -> int | None:
        """The value as an integer when it is integral, else None (Go AsScale(0) exactness)."""
        m, e = self._m, self._e
        if e >= 0:
            return m * 10 ** e
        q, r = divmod(abs(m), 10 ** (-e))
        if r:
            return None
        return -q if m < 0 else q

    # -- CustomValue protocol ----------------------------------------------------------

    def _to_tree(self) -> str:
        return str(self)

    @classmethod
    def _from_tree(cls, value: Any, path: str) -> "Quantity":
        if value is None:
            return cls()
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            text = "true" if value is True else "false" if value is False else _json_kind(value)
        elif isinstance(value, str):
            text = value
        else:
            # Go parses the number's own text: a JSON 1e3 stays "1e3".
            text = _number_text(value)
        try:
            return cls._parse(text.strip(_GO_SPACE))
        except _ParseFailure as exc:
            raise _decode_error(str(exc), path) from None

    def _proto_body(self) -> bytes:
        out = bytearray()
        _put_bytes_field(out, 1, str(self).encode("utf-8"))
        return bytes(out)

    @classmethod
    def _from_proto_body(cls, data: bytes, path: str) -> "Quantity":
        q = cls()
        for number, wire, value in _pb_fields(data, path, "Quantity"):
            if number == 1:
                if wire != 2:
                    raise _wrong_wire(wire, "String_", path)
                text = value.decode("utf-8", "replace")
                try:
                    q = cls._parse(text)
                except _ParseFailure as exc:
                    raise _decode_error(str(exc), path) from None
        return q

    @classmethod
    def _zero(cls) -> "Quantity":
        return cls()

    def _is_zero(self) -> bool:
        return self._m == 0

    # Immutable: the copy is the value itself. Inherited, not redefined, so the compiled
    # deep_copy recognises it and skips a Python call per value.
    deep_copy = CustomValue.deep_copy

    def _key(self) -> tuple[int, int]:
        if self._m == 0:
            return 0, 0
        text = _digits_of(abs(self._m))
        stripped = text.rstrip("0")
        m = _int_from_digits(stripped)
        return (-m if self._m < 0 else m), self._e + len(text) - len(stripped)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.cmp(other) == 0

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"


def parse_quantity(s: str) -> Quantity:
    """Parse a quantity string (Go ParseQuantity); DecodeError on malformed input."""
    return Quantity.parse(s)


def must_parse(s: str) -> Quantity:
    """Parse a quantity that is known to be valid; raises DecodeError ``cannot parse '<s>': ...``."""
    try:
        return Quantity._parse(s)
    except _ParseFailure as exc:
        raise DecodeError(f"cannot parse '{s}': {exc}") from None


def _check_int64(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not _fits_int64(value):
        raise DecodeError(f"{what} must be an int64, got {value!r}")
    return value


def new_quantity(value: int, format: str) -> Quantity:  # noqa: A002 - Go's parameter name
    """A quantity of ``value`` units in the given Format (Go NewQuantity)."""
    return Quantity._make(_check_int64(value, "value"), 0, format, False)


def new_milli_quantity(value: int, format: str) -> Quantity:  # noqa: A002
    """A quantity of ``value`` thousandths in the given Format (Go NewMilliQuantity)."""
    return Quantity._make(_check_int64(value, "value"), -3, format, False)


def new_scaled_quantity(value: int, scale: int) -> Quantity:
    """``value * 10**scale`` in DecimalSI (Go NewScaledQuantity)."""
    return Quantity._make(_check_int64(value, "value"), _wrap32(scale), DecimalSI, False)


# --------------------------------------------------------------------------------------
# IntOrString

INT = 0
"""IntOrString.type of the integer form."""
STRING = 1
"""IntOrString.type of the string form."""


def _go_atoi(s: str) -> tuple[int, str | None]:
    """strconv.Atoi: (value, error text or None); out-of-range values are clamped."""
    if not _INT_RE.match(s) or not s.isascii():
        return 0, f"strconv.Atoi: parsing {_go_quote(s)}: invalid syntax"
    v = int(s)
    if v > _I64_MAX:
        return _I64_MAX, f"strconv.Atoi: parsing {_go_quote(s)}: value out of range"
    if v < _I64_MIN:
        return _I64_MIN, f"strconv.Atoi: parsing {_go_quote(s)}: value out of range"
    return v, None


class IntOrString(CustomValue):
    """An int32 or a string (Go ``intstr.IntOrString``); immutable.

    ``type`` is :data:`INT` (0) or :data:`STRING` (1). JSON: a bare number or a string
    (``"123"`` stays a string). Protobuf: ``{1 type, 2 intVal, 3 strVal}``.
    """

    __go_name__ = "intstr.IntOrString"

    __slots__ = ("_type", "_int", "_str")

    def __init__(self, int_val: int = 0, *, type: int = INT, str_val: str = "") -> None:  # noqa: A002
        if isinstance(int_val, bool) or not isinstance(int_val, int):
            raise DecodeError(f"IntOrString int_val must be an int, got {int_val!r}")
        if not isinstance(str_val, str):
            raise DecodeError(f"IntOrString str_val must be a str, got {str_val!r}")
        self._type = int(type)
        self._int = _wrap32(int_val)
        self._str = str_val

    @classmethod
    def _coerce(cls, value: Any) -> Any:
        """An int or a str given where an IntOrString is expected (``8080``, ``"25%"``)."""
        if isinstance(value, int) and not isinstance(value, bool):
            return cls.from_int(value)
        if isinstance(value, str):
            return cls.from_string(value)
        return NotImplemented

    @classmethod
    def from_int(cls, value: int) -> "IntOrString":
        """The int form; values beyond int32 wrap as Go's ``int32(val)`` does."""
        return cls(value)

    @classmethod
    def from_string(cls, value: str) -> "IntOrString":
        """The string form."""
        return cls(0, type=STRING, str_val=value)

    @classmethod
    def parse(cls, value: str) -> "IntOrString":
        """Int form when ``value`` is a base-10 int32, else the string form."""
        if _INT_RE.match(value) and value.isascii():
            v = int(value)
            if _I32_MIN <= v <= _I32_MAX:
                return cls(v)
        return cls.from_string(value)

    @property
    def type(self) -> int:
        """0 (INT) or 1 (STRING)."""
        return self._type

    @property
    def int_val(self) -> int:
        """The int32 value (0 in the string form)."""
        return self._int

    @property
    def str_val(self) -> str:
        """The string value ("" in the int form)."""
        return self._str

    def int_value(self) -> int:
        """The int value; the string form is parsed with Atoi (0 when not a number)."""
        if self._type == STRING:
            return _go_atoi(self._str)[0]
        return self._int

    def __str__(self) -> str:
        if self._type == STRING:
            return self._str
        return str(self.int_value())

    # -- CustomValue protocol ----------------------------------------------------------

    def _to_tree(self) -> int | str:
        if self._type == INT:
            return self._int
        if self._type == STRING:
            return self._str
        raise EncodeError("impossible IntOrString.Type")

    @classmethod
    def _from_tree(cls, value: Any, path: str) -> "IntOrString":
        if isinstance(value, str):
            return cls.from_string(value)
        if value is None:
            return cls(0)
        if isinstance(value, int) and not isinstance(value, bool) and _I32_MIN <= value <= _I32_MAX:
            return cls(value)
        # UnmarshalJSON decodes anything else into its int32 with json.Unmarshal.
        if isinstance(value, bool):
            what = "bool"
        elif isinstance(value, (int, float)):
            what = f"number {_number_text(value)}"
        else:
            what = _json_kind(value)
        raise _decode_error(f"json: cannot unmarshal {what} into Go value of type int32", path)

    def _proto_body(self) -> bytes:
        out = bytearray()
        _put_tag(out, 1, 0)
        _put_uvarint(out, self._type)
        _put_tag(out, 2, 0)
        _put_uvarint(out, self._int)
        _put_bytes_field(out, 3, self._str.encode("utf-8", "surrogateescape"))
        return bytes(out)

    @classmethod
    def _from_proto_body(cls, data: bytes, path: str) -> "IntOrString":
        typ, ival, sval = 0, 0, ""
        for number, wire, value in _pb_fields(data, path, "IntOrString"):
            if number == 1:
                if wire != 0:
                    raise _wrong_wire(wire, "Type", path)
                typ = _wrap64(value)
            elif number == 2:
                if wire != 0:
                    raise _wrong_wire(wire, "IntVal", path)
                ival = _wrap32(value)
            elif number == 3:
                if wire != 2:
                    raise _wrong_wire(wire, "StrVal", path)
                # Go's string keeps the bytes: invalid UTF-8 survives a protobuf round trip,
                # and only the JSON encoder writes it as \ufffd (as for any string field).
                sval = value.decode("utf-8", "surrogateescape")
        return cls(ival, type=typ, str_val=sval)

    @classmethod
    def _zero(cls) -> "IntOrString":
        return cls(0)

    def _is_zero(self) -> bool:
        return self._type == 0 and self._int == 0 and self._str == ""

    # Immutable: the copy is the value itself. Inherited, not redefined, so the compiled
    # deep_copy recognises it and skips a Python call per value.
    deep_copy = CustomValue.deep_copy

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IntOrString):
            return NotImplemented
        return (self._type, self._int, self._str) == (other._type, other._int, other._str)

    def __hash__(self) -> int:
        return hash((self._type, self._int, self._str))

    def __repr__(self) -> str:
        if self._type == INT:
            return f"IntOrString({self._int})"
        if self._type == STRING:
            return f"IntOrString.from_string({self._str!r})"
        return f"IntOrString({self._int}, type={self._type}, str_val={self._str!r})"


def value_or_default(int_or_percent: IntOrString | None, default: IntOrString) -> IntOrString:
    """``int_or_percent`` unless it is None, then ``default``."""
    return default if int_or_percent is None else int_or_percent


def _scale_percent(value: int, total: int, round_up: bool) -> int:
    x = float(value) * float(total) / 100
    return int(math.ceil(x) if round_up else math.floor(x))


def get_scaled_value_from_int_or_percent(int_or_percent: IntOrString | None, total: int, round_up: bool) -> int:
    """An int as is, or a strict ``"<n>%"`` of ``total`` rounded up or down.

    Raises DecodeError: ``nil value for IntOrString`` or ``invalid value for IntOrString: ...``.
    """
    if int_or_percent is None:
        raise DecodeError("nil value for IntOrString")
    ios = int_or_percent
    if ios.type == INT:
        return ios.int_value()
    if ios.type == STRING:
        s = ios.str_val
        if not s.endswith("%"):
            raise DecodeError("invalid value for IntOrString: invalid type: string is not a percentage")
        v, err = _go_atoi(s[:-1])
        if err is not None:
            raise DecodeError(f"invalid value for IntOrString: invalid value {_go_quote(s)}: {err}")
        return _scale_percent(v, total, round_up)
    raise DecodeError("invalid value for IntOrString: invalid type: neither int nor percentage")


def get_value_from_int_or_percent(int_or_percent: IntOrString | None, total: int, round_up: bool) -> int:
    """The lenient (deprecated in Go) variant: every ``%`` is removed before parsing."""
    if int_or_percent is None:
        raise DecodeError("nil value for IntOrString")
    ios = int_or_percent
    if ios.type == INT:
        return ios.int_value()
    if ios.type == STRING:
        v, err = _go_atoi(ios.str_val.replace("%", ""))
        if err is not None:
            raise DecodeError(f"invalid value for IntOrString: invalid value {_go_quote(ios.str_val)}: {err}")
        return _scale_percent(v, total, round_up)
    raise DecodeError("invalid value for IntOrString: invalid type: neither int nor percentage")


# ------------------------------------------------------------------ field annotations
# Fields of these types accept more than they hold: a constructor or an assignment takes
# ``"25%"`` or ``8080`` for an IntOrString and ``"500m"`` or ``2`` for a Quantity and
# converts it (the struct's checked setters), while reading the field gives the value class.
# Generated models annotate such fields with the names below. At run time they are the plain
# annotations (the field machinery reads them); type checkers see a descriptor whose
# ``__set__`` takes the wider type, which PEP 681 (dataclass_transform) also applies to the
# constructor's parameter.

_Get = TypeVar("_Get")
_Set = TypeVar("_Set")

if TYPE_CHECKING:
    class Settable(Generic[_Get, _Set]):
        """A field read as ``_Get`` and set (or passed to the constructor) as ``_Set``."""

        @overload
        def __get__(self, obj: None, owner: Any) -> Settable[_Get, _Set]: ...
        @overload
        def __get__(self, obj: object, owner: Any) -> _Get: ...
        def __get__(self, obj: Any, owner: Any) -> Any: ...
        def __set__(self, obj: Any, value: _Set) -> None: ...

    IntOrStringField = Settable[IntOrString, IntOrString | int | str]
    OptionalIntOrString = Settable[Optional[IntOrString], Optional[IntOrString | int | str]]
    QuantityField = Settable[Quantity, Quantity | str | int]
    OptionalQuantity = Settable[Optional[Quantity], Optional[Quantity | str | int]]
    ResourceList = Settable[Optional[dict[str, Quantity]], Optional[Mapping[str, Quantity | str | int]]]
else:
    IntOrStringField = IntOrString
    OptionalIntOrString = Optional[IntOrString]
    QuantityField = Quantity
    OptionalQuantity = Optional[Quantity]
    ResourceList = Optional[dict[str, Quantity]]
