"""Go's text rules for quoting and number formatting, each written once.

Error messages copied from Go spell values the way Go's ``strconv`` and ``fmt`` packages
print them, so every module that builds such a message calls these functions instead of
keeping its own copy. The rules follow Go's standard library:

- :func:`quote`: ``strconv.Quote`` (what ``%q`` and ``%#v`` print for a string);
- :func:`quote_char`: encoding/json's ``quoteChar`` (how its scanner names an offending byte);
- :func:`time_quote`: the time package's own ``quote`` (parse errors of ``time.Parse``);
- :func:`format_g`: ``strconv.FormatFloat(x, 'g', -1, bits)``, which is also ``%v`` of a float.

Python strings stand for Go strings here. A Go string may hold bytes that are not UTF-8;
kcodec carries those as surrogate escapes (U+DC80..U+DCFF, Python's ``surrogateescape``),
which these functions print the way Go prints the raw byte. This module is pure Python and
imports nothing from kcodec, so every layer may use it.
"""
from __future__ import annotations

import math
import struct

__all__ = ["quote", "quote_char", "time_quote", "format_g", "shortest_digits", "shortest_digits32"]

# strconv's short escapes for non-printable runes.
_SHORT = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _escape_rune(ch: str) -> str:
    """strconv.appendEscapedRune for a rune that is not printable, inside double quotes."""
    short = _SHORT.get(ch)
    if short is not None:
        return short
    o = ord(ch)
    if 0xDC80 <= o <= 0xDCFF:  # a byte that was not UTF-8: Go prints it as \xNN
        return f"\\x{o - 0xDC00:02x}"
    if o < 0x20 or o == 0x7F:
        return f"\\x{o:02x}"
    if 0xD800 <= o <= 0xDFFF:  # not a valid rune: Go writes the replacement character
        return "\\ufffd"
    if o < 0x10000:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def quote(s: str) -> str:
    """``strconv.Quote(s)``: a double-quoted Go string literal.

    ``"`` and ``\\`` get a backslash, printable runes (Go's ``unicode.IsPrint``: letters,
    marks, numbers, punctuation, symbols and the ASCII space) stay as they are, and the rest
    become ``\\a``..``\\v``, ``\\xNN`` (controls and bytes that are not UTF-8), ``\\uNNNN``
    or ``\\UNNNNNNNN``.
    """
    if s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'
    out = ['"']
    for ch in s:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(_escape_rune(ch))
    out.append('"')
    return "".join(out)


def quote_char(c: int) -> str:
    """encoding/json's ``quoteChar(c)`` for the byte ``c``: ``'x'``, ``'\\''``, ``'"'``,
    ``'\\\\'``, ``'\\n'``, ``'\\x01'``, ``'\\u0080'``.

    Go converts the byte to the rune of the same number (so 0xE9 prints as ``'é'``) and
    quotes it with strconv.Quote's rules between single quotes.
    """
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    return "'" + quote(chr(c))[1:-1] + "'"


def time_quote(s: str) -> str:
    """The time package's ``quote``: printable ASCII kept (``"`` and ``\\`` escaped), every
    other byte of the UTF-8 text as ``\\xNN`` (what ``time.Parse`` errors show)."""
    out = ['"']
    for ch in s:
        c = ord(ch)
        if 0xDC80 <= c <= 0xDCFF:
            out.append(f"\\x{c - 0xDC00:02x}")
        elif c >= 0x80 or c < 0x20:
            for b in ch.encode("utf-8", "surrogatepass"):
                out.append(f"\\x{b:02x}")
        else:
            if ch == '"' or ch == "\\":
                out.append("\\")
            out.append(ch)
    out.append('"')
    return "".join(out)


def shortest_digits(x: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits of |x| (x != 0) and the decimal point position."""
    r = repr(abs(x))
    mant, _, exp = r.partition("e")
    ip, _, fp = mant.partition(".")
    allds = ip + fp
    digits = allds.lstrip("0")
    dp = len(ip) + (int(exp) if exp else 0) - (len(allds) - len(digits))
    return digits.rstrip("0") or "0", dp


def shortest_digits32(x: float) -> tuple[str, int]:
    for prec in range(1, 10):
        s = "%.*e" % (prec - 1, x)
        if struct.unpack("f", struct.pack("f", float(s)))[0] == x:
            mant, _, exp = s.partition("e")
            digits = mant.replace(".", "").lstrip("-").rstrip("0") or "0"
            return digits, int(exp) + 1
    return shortest_digits(x)


def format_g(x: float, bits: int = 64) -> str:
    """``strconv.FormatFloat(x, 'g', -1, bits)``, i.e. Go's ``%v`` of a float.

    Shortest digits that read back as the same float64 (float32 when ``bits == 32``);
    exponent form (``1e+06``, ``1.5e-05``, ``1.23456789e+08``) when the decimal exponent
    is below -4 or at least 6;
    ``NaN``, ``+Inf``, ``-Inf``; negative zero is ``-0``.
    """
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if bits == 32:
        x = struct.unpack("f", struct.pack("f", x))[0]
        if math.isinf(x):
            return "+Inf" if x > 0 else "-Inf"
    neg = "-" if math.copysign(1.0, x) < 0 else ""
    if x == 0:
        return neg + "0"
    digits, dp = shortest_digits32(x) if bits == 32 else shortest_digits(x)
    exp = dp - 1
    # strconv/ftoa.go: with the shortest digits Go decides between %e and %f with
    # precision 6, whatever the number of digits.
    if exp < -4 or exp >= 6:
        mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{neg}{mant}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if dp <= 0:
        return f"{neg}0.{'0' * -dp}{digits}"
    if dp >= len(digits):
        return neg + digits + "0" * (dp - len(digits))
    return f"{neg}{digits[:dp]}.{digits[dp:]}"
