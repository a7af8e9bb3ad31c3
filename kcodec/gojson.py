"""Go ``encoding/json``-identical JSON text: parse to a tree, write a tree, compact/indent.

The tree is described in docs/design.md ("The JSON tree"). Both directions run on the C
``json`` module for the common case and fall back to exact (slower) pure-Python code only
when the fast path cannot be proven Go-identical: syntax errors (to produce Go's messages
and byte offsets), nesting deeper than the C recursion limit, ``\\uD8xx`` escapes, a UTF-8
BOM, out-of-range numbers, floats that Python prints differently from Go, and so on.

Error messages are Go's texts (Go: k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (Decode); Go's encoding/json encoder), byte
for byte; Go's ``SyntaxError.Offset`` (bytes read when the fault was seen) is the error's
``offset`` attribute, not part of the text.
"""
from __future__ import annotations

import binascii
import codecs
import json
import os
import re
from json.decoder import scanstring as _c_scanstring
from json.encoder import encode_basestring as _c_encode_basestring
from operator import itemgetter
from typing import Any

from kcodec.errors import DecodeError, EncodeError
from kcodec.gofmt import quote_char
from kcodec.fieldtable import JSONNumber, RawJSON

__all__ = [
    "DupDict",
    "JSONSyntaxError",
    "MAX_NESTING_DEPTH",
    "loads",
    "dumps",
    "compact",
    "indent",
    "validate",
    "format_float",
    "escape_string",
    "top_level_members",
    "scalar_end",
    "prefix_error",
    "MemberList",
    "Repeated",
    "b64decode",
    "JSONNumber",
    "number_text",
]

MAX_NESTING_DEPTH = 10000
"""Go's scanner limit on nested arrays/objects; one more level is a syntax error."""

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_INF = float("inf")


class DupDict(dict):  # type: ignore[type-arg]
    """A dict parsed in strict mode from an object that repeated some keys.

    The last value of a repeated key wins (as in Go); ``duplicates`` lists every repeated
    key once, in the order the repetitions were met.
    """

    __slots__ = ("duplicates",)

    def __init__(self, *args: Any, duplicates: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.duplicates: list[str] = list(duplicates or ())

    def __reduce__(self) -> Any:
        return (_make_dupdict, (dict(self), self.duplicates))


def _make_dupdict(items: dict, duplicates: list[str]) -> DupDict:  # type: ignore[type-arg]
    return DupDict(items, duplicates=duplicates)


class Repeated(list):  # type: ignore[type-arg]
    """Every value of a key an object repeated, in order (``loads(..., repeats=True)``).

    encoding/json decodes each one into the same target, so a typed decode merges them the
    way Go does (a struct keeps the fields the last object left out); an untyped value keeps
    only the last.
    """

    __slots__ = ()


class MemberList(list):  # type: ignore[type-arg]
    """The ordered (key, value) pairs of a top-level object (see :func:`top_level_members`)."""

    __slots__ = ()


class JSONSyntaxError(DecodeError):
    """Malformed JSON text; ``msg`` is Go's text and ``offset`` Go's byte offset."""

    def __init__(self, msg: str, offset: int) -> None:
        self.msg = msg
        # Go's SyntaxError.Error() is the message alone; the offset is data, as in Go.
        super().__init__(msg, offset=offset)


# --------------------------------------------------------------------------------------
# Codec error handlers: Go's treatment of invalid UTF-8 / unpaired surrogates.

def _go_replace_decode(exc: UnicodeError) -> tuple[str, int]:
    # Go's decoder turns every byte of an invalid sequence into its own U+FFFD, while
    # Python's "replace" emits one per maximal invalid subpart.
    if isinstance(exc, UnicodeDecodeError):
        return "\ufffd" * (exc.end - exc.start), exc.end
    raise exc


def _go_escape_encode(exc: UnicodeError) -> tuple[str, int]:
    # A surrogate can only sit inside a string literal; Go writes invalid text as \ufffd.
    if isinstance(exc, UnicodeEncodeError):
        return "\\ufffd" * (exc.end - exc.start), exc.end
    raise exc


_DECODE_ERRORS = "kcodec-gojson-replace"
_ENCODE_ERRORS = "kcodec-gojson-escape"
codecs.register_error(_DECODE_ERRORS, _go_replace_decode)
codecs.register_error(_ENCODE_ERRORS, _go_escape_encode)

_SURROGATES = re.compile("[\ud800-\udfff]")


def _to_bytes(data: Any) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    return bytes(data)


# --------------------------------------------------------------------------------------
# Exact (Go scanner-faithful) parser.

class _TypeErr(Exception):
    """Non-fatal decode problem (Go's saved UnmarshalTypeError)."""

    def __init__(self, msg: str) -> None:
        super().__init__(msg)
        self.msg = msg


_WS = re.compile(rb"[ \t\n\r]*").match
_STR_BODY = re.compile(rb'[^"\\\x00-\x1f]*').match
_INT_PART = re.compile(rb"-?(?:0|[1-9][0-9]*)").match
_FRAC_PART = re.compile(rb"\.[0-9]+").match
_EXP_PART = re.compile(rb"[eE][-+]?[0-9]+").match
_HEX = frozenset(b"0123456789abcdefABCDEF")
_SIMPLE_ESC = frozenset(b'bfnrt\\/"')
_LITERALS = {0x74: (b"true", True), 0x66: (b"false", False), 0x6E: (b"null", None)}


def _syntax(c: int, context: str, offset: int) -> JSONSyntaxError:
    return JSONSyntaxError(f"invalid character {quote_char(c)} {context}", offset)


def _eof(n: int) -> JSONSyntaxError:
    return JSONSyntaxError("unexpected end of JSON input", n)


def _scan_string(data: bytes, i: int, n: int, build: bool) -> tuple[Any, int]:
    """Scan the string literal opening at ``data[i]``; return (value or None, end)."""
    j = i + 1
    escaped = False
    while True:
        j = _STR_BODY(data, j).end()
        if j >= n:
            raise _eof(n)
        c = data[j]
        if c == 0x22:
            break
        if c == 0x5C:
            escaped = True
            if j + 1 >= n:
                # Go's end-of-input step feeds a space to the escape state.
                raise _syntax(0x20, "in string escape code", n)
            e = data[j + 1]
            if e in _SIMPLE_ESC:
                j += 2
                continue
            if e == 0x75:
                for k in range(j + 2, j + 6):
                    if k >= n:
                        raise _syntax(0x20, "in \\u hexadecimal character escape", n)
                    if data[k] not in _HEX:
                        raise _syntax(data[k], "in \\u hexadecimal character escape", k + 1)
                j += 6
                continue
            raise _syntax(e, "in string escape code", j + 2)
        raise _syntax(c, "in string literal", j + 1)
    if not build:
        return None, j + 1
    text = data[i + 1 : j].decode("utf-8", _DECODE_ERRORS)
    if escaped:
        text = _c_scanstring('"' + text + '"', 1, True)[0]
        if _SURROGATES.search(text):
            text = _SURROGATES.sub("\ufffd", text)
    return text, j + 1


def _scan_number(data: bytes, i: int, n: int) -> tuple[int, bool]:
    """Scan the number at ``data[i]``; return (end, is_integer_literal)."""
    m = _INT_PART(data, i)
    if m is None:
        # Only a lone '-' gets here.
        if i + 1 >= n:
            raise _syntax(0x20, "in numeric literal", n)
        raise _syntax(data[i + 1], "in numeric literal", i + 2)
    j = m.end()
    integer = True
    if j < n and data[j] == 0x2E:
        m = _FRAC_PART(data, j)
        if m is None:
            if j + 1 >= n:
                raise _syntax(0x20, "after decimal point in numeric literal", n)
            raise _syntax(data[j + 1], "after decimal point in numeric literal", j + 2)
        j = m.end()
        integer = False
    if j < n and data[j] in (0x65, 0x45):
        m = _EXP_PART(data, j)
        if m is None:
            k = j + 1
            if k < n and data[k] in (0x2B, 0x2D):
                k += 1
            if k >= n:
                raise _syntax(0x20, "in exponent of numeric literal", n)
            raise _syntax(data[k], "in exponent of numeric literal", k + 1)
        j = m.end()
        integer = False
    return j, integer


def _scan_literal(data: bytes, i: int, n: int) -> tuple[int, Any]:
    """Scan the true/false/null at ``data[i]`` (its first letter already checked)."""
    word, value = _LITERALS[data[i]]
    for k in range(1, len(word)):
        p = i + k
        if p >= n:
            raise _syntax(0x20, f"in literal {word.decode()} (expecting '{chr(word[k])}')", n)
        if data[p] != word[k]:
            raise _syntax(data[p], f"in literal {word.decode()} (expecting '{chr(word[k])}')", p + 1)
    return i + len(word), value


def _number_value(text: bytes, integer: bool, allow_inf: bool, literals: bool) -> int | float:
    if integer:
        if len(text) < 19:
            return int(text)
        if len(text) <= 20:
            v = int(text)
            if _INT64_MIN <= v <= _INT64_MAX:
                return v
    f = JSONNumber(text.decode("ascii")) if literals else float(text)
    if (f == _INF or f == -_INF) and not allow_inf:
        raise _TypeErr(
            f"json: cannot unmarshal number {text.decode('ascii')} into Go value of type float64"
        )
    return f


def _finish_object(frame: list) -> Any:  # type: ignore[type-arg]
    obj = frame[0]
    dups = frame[2]
    if dups:
        return DupDict(obj, duplicates=dups)
    return obj


def _object_key(data: bytes, i: int, n: int, build: bool) -> tuple[Any, int]:
    """The member key whose opening quote should be at ``i``, and where its value starts
    (after the colon and white space); Go's texts for anything else."""
    if data[i] != 0x22:
        raise _syntax(data[i], "looking for beginning of object key string", i + 1)
    key, i = _scan_string(data, i, n, build)
    i = _WS(data, i).end()
    if i >= n:
        raise _eof(n)
    if data[i] != 0x3A:
        raise _syntax(data[i], "after object key", i + 1)
    return key, _WS(data, i + 1).end()


def _set_member(frame: list, value: Any, strict: bool, repeats: bool) -> None:  # type: ignore[type-arg]
    """Store ``value`` under the frame's current key: in order for a top-level
    MemberList; a repeated key is recorded (``strict``) and, with ``repeats``, its values
    are kept together as a :class:`Repeated`, else the last one wins (Go's behaviour)."""
    obj, key = frame[0], frame[1]
    if type(obj) is MemberList:
        obj.append((key, value))
    elif (strict or repeats) and key in obj:
        if frame[2] is None:
            frame[2] = []
        if key not in frame[2]:
            frame[2].append(key)
        prev = obj[key]
        if not repeats:
            obj[key] = value
        elif type(prev) is Repeated:  # only ever made here, for this key
            prev.append(value)
        else:
            obj[key] = Repeated((prev, value))
    else:
        obj[key] = value


def _scalar(data: bytes, i: int, n: int, build: bool, allow_inf: bool,
            literals: bool) -> tuple[Any, int, _TypeErr | None]:
    """The string, number or literal at ``i``: ``(value, end, error)``, where ``error`` is
    a number out of float64 range (Go reports it only once the whole text is well-formed)."""
    c = data[i]
    if c == 0x22:
        value, i = _scan_string(data, i, n, build)
        return value, i, None
    if c == 0x2D or 0x30 <= c <= 0x39:
        start = i
        i, integer = _scan_number(data, i, n)
        if build:
            try:
                return _number_value(data[start:i], integer, allow_inf, literals), i, None
            except _TypeErr as e:
                e.offset = i  # type: ignore[attr-defined]
                return None, i, e
        return None, i, None
    if c in _LITERALS:
        i, value = _scan_literal(data, i, n)
        return value, i, None
    raise _syntax(c, "looking for beginning of value", i + 1)


def _slow_parse(
    data: bytes,
    *,
    strict: bool = False,
    allow_inf: bool = False,
    build: bool = True,
    top_pairs: bool = False,
    literals: bool = False,
    repeats: bool = False,
    spans: dict[int, tuple[int, int]] | None = None,
) -> Any:
    """Parse (or, with ``build=False``, only validate) exactly as Go does.

    With ``spans`` every object and array built is recorded as ``id(node) -> (start, end)``
    of its text (valid while the tree is alive).

    Syntax errors are raised at once, as Go's up-front validity scan would; a number out of
    float64 range is remembered and raised after the whole text proved well-formed. With
    ``top_pairs`` a top-level object is returned as its ordered list of (key, value)
    pairs, duplicates included.
    """
    n = len(data)
    stack: list[list] = []  # type: ignore[type-arg]  # [container, key, dups, is_dict, start]
    pending: _TypeErr | None = None
    i = _WS(data, 0).end()
    value: Any = None
    while True:
        # ---- one value starting at i (containers push a frame and restart here)
        if i >= n:
            raise _eof(n)
        c = data[i]
        if c == 0x7B or c == 0x5B:
            if len(stack) >= MAX_NESTING_DEPTH:
                raise _syntax(c, "exceeded max depth", i + 1)
            close = 0x7D if c == 0x7B else 0x5D
            open_at = i
            i = _WS(data, i + 1).end()
            if i >= n:
                raise _eof(n)
            if data[i] == close:
                i += 1
                if not build:
                    value = None
                elif c == 0x7B:
                    value = MemberList() if (top_pairs and not stack) else {}
                else:
                    value = []
                if spans is not None:
                    spans[id(value)] = (open_at, i)
            elif c == 0x5B:
                stack.append([[] if build else None, None, None, False, open_at])
                continue
            else:
                key, i = _object_key(data, i, n, build)
                container: Any = None
                if build:
                    container = MemberList() if (top_pairs and not stack) else {}
                stack.append([container, key, None, True, open_at])
                continue
        else:
            value, i, error = _scalar(data, i, n, build, allow_inf, literals)
            if pending is None:
                pending = error

        # ---- after a value: attach it and find what comes next
        while True:
            i = _WS(data, i).end()
            if not stack:
                if i < n:
                    raise _syntax(data[i], "after top-level value", i + 1)
                if pending is not None:
                    raise DecodeError(pending.msg, offset=pending.offset)  # type: ignore[attr-defined]
                return value
            frame = stack[-1]
            is_object = frame[3]
            if build:
                if is_object:
                    _set_member(frame, value, strict, repeats)
                else:
                    frame[0].append(value)
            if i >= n:
                raise _eof(n)
            c = data[i]
            if c == 0x2C:
                if is_object:
                    frame[1], i = _object_key(data, _expect_more(data, i + 1, n), n, build)
                else:
                    i = _WS(data, i + 1).end()
                break
            if c == (0x7D if is_object else 0x5D):
                stack.pop()
                if not build:
                    value = None
                else:
                    value = _finish_object(frame) if is_object else frame[0]
                i += 1
                if spans is not None:
                    spans[id(value)] = (frame[4], i)
                continue
            raise _syntax(c, "after object key:value pair" if is_object else "after array element", i + 1)


def _expect_more(data: bytes, i: int, n: int) -> int:
    """The first non-space position at or after ``i``, which must exist (after a comma)."""
    i = _WS(data, i).end()
    if i >= n:
        raise _eof(n)
    return i


def validate(data: bytes) -> None:
    """Raise :class:`JSONSyntaxError` (Go's text and offset) unless ``data`` is valid JSON."""
    data = _to_bytes(data)
    try:
        text = data.decode("utf-8")
        if text[:1] != "\ufeff":
            _VALIDATOR.decode(text)
            return
    except (ValueError, RecursionError, _Reject):
        pass
    _slow_parse(data, build=False)


# Go's json.Decoder (encoding/json stream.go readValue) runs the same scanner over a stream
# one value at a time: a value ends where the scanner says so (a number at the first byte
# that cannot continue it, a literal after its last letter), the byte after it is left for
# the next value, and the end of the stream inside a value is io.ErrUnexpectedEOF rather
# than a syntax error. The two helpers below give the stream framer those rules; offsets
# are Go's (bytes read up to and including the offending byte, from data[0]).

def scalar_end(data: bytes) -> int:
    """Where the number or literal (``true``/``false``/``null``) at ``data[0]`` ends.

    ``data`` must go on at least one byte past the value (the byte that ends it); a fault
    raises :class:`JSONSyntaxError` with Go's text, one met only at the end of ``data`` as
    if a space followed.
    """
    n = len(data)
    if data[:1] in (b"t", b"f", b"n"):
        return _scan_literal(data, 0, n)[0]
    if data[:1] == b"-" or data[:1].isdigit():
        return _scan_number(data, 0, n)[0]
    raise _syntax(data[0], "looking for beginning of value", 1) if n else _eof(0)


def prefix_error(data: bytes) -> JSONSyntaxError | None:
    """The first syntax error Go's scanner meets in ``data``, read as the start of a JSON
    value that may go on past it (part of a stream), or None when ``data`` could begin a
    valid value (running out of data is no error here).

    The scan is the exact pure one: meant for input already known to be faulty, whose
    error has to be placed.
    """
    # A NUL ends every state in an error, so the scan never stops for want of data, and an
    # error at the NUL (offset past ``data``) only means that ``data`` ran out.
    try:
        _slow_parse(bytes(data) + b"\x00", build=False)
    except JSONSyntaxError as err:
        if err.offset is not None and err.offset <= len(data):
            return err
    return None


def top_level_members(data: bytes) -> Any:
    """Parse ``data`` exactly; a top-level object comes back as a :class:`MemberList` of
    its ordered (key, value) pairs (repeated keys kept), any other value as itself.

    Numbers out of float64 range become ``inf`` here: callers that only look at a few
    members must not fail on values Go would skip.
    """
    return _slow_parse(_to_bytes(data), allow_inf=True, top_pairs=True)


# --------------------------------------------------------------------------------------
# Fast parser (C json) with Go's number rule.

class _Reject(Exception):
    """Raised from C-scanner hooks to send the input to the exact parser."""


def _reject_constant(name: str) -> Any:
    raise _Reject(name)


def _float_checked(s: str) -> float:
    f = float(s)
    if f == _INF or f == -_INF:
        raise _Reject(s)
    return f


def _float_inf_ok(s: str) -> float:
    return float(s)


def _literal_checked(s: str) -> float:
    f = JSONNumber(s)
    if f == _INF or f == -_INF:
        raise _Reject(s)
    return f


def _make_int_hook(to_float: Any) -> Any:
    def go_int(s: str) -> int | float:
        if len(s) < 19:
            return int(s)
        if len(s) <= 20:
            v = int(s)
            if _INT64_MIN <= v <= _INT64_MAX:
                return v
        return to_float(s)

    return go_int


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict:  # type: ignore[type-arg]
    d = dict(pairs)
    if len(d) == len(pairs):
        return d
    seen: set[str] = set()
    dups: list[str] = []
    for k, _ in pairs:
        if k in seen:
            if k not in dups:
                dups.append(k)
        else:
            seen.add(k)
    return DupDict(d, duplicates=dups)


def _repeats_hook(pairs: list[tuple[str, Any]]) -> dict:  # type: ignore[type-arg]
    d = dict(pairs)
    if len(d) == len(pairs):
        return d
    d = {}
    dups: list[str] = []
    for k, v in pairs:
        if k in d:
            if k not in dups:
                dups.append(k)
                d[k] = Repeated((d[k], v))
            else:
                d[k].append(v)
        else:
            d[k] = v
    return DupDict(d, duplicates=dups)


def _decoder(strict: bool, allow_inf: bool, literals: bool) -> json.JSONDecoder:
    if literals:
        to_float = JSONNumber if allow_inf else _literal_checked
    else:
        to_float = _float_inf_ok if allow_inf else _float_checked
    return json.JSONDecoder(
        parse_int=_make_int_hook(to_float),
        parse_float=to_float,
        parse_constant=_reject_constant,
        # A typed decode (literals) sees every value of a repeated key, as Go does.
        object_pairs_hook=_repeats_hook if literals else (_pairs_hook if strict else None),
    )


_DECODERS = {
    (s, a, n): _decoder(s, a, n) for s in (False, True) for a in (False, True) for n in (False, True)
}
_VALIDATOR = json.JSONDecoder(parse_int=len, parse_float=len, parse_constant=_reject_constant)


def loads(
    data: bytes,
    *,
    strict: bool = False,
    allow_inf: bool = False,
    literals: bool = False,
    spans: dict[int, tuple[int, int]] | None = None,
) -> Any:
    """Parse JSON text into a tree with Go's rules.

    Untyped numbers: an integer literal (no ``.``/``e``/``E``) that fits int64 is an
    ``int``, anything else a ``float`` (with ``literals``, a :class:`JSONNumber`: a float
    keeping its literal, for a typed decode that reads it as Go does, and a repeated key holds
    :class:`Repeated` values; ``spans``, a dict, is filled as :func:`_slow_parse` fills it,
    by the exact parser); a number beyond float64 range raises DecodeError
    (Go: ``cannot unmarshal number ... into Go value of type float64``) unless
    ``allow_inf`` is set, which keeps it as ``±inf`` so a typed decoder can name the field.
    Invalid UTF-8 and unpaired surrogate escapes in strings become U+FFFD. In ``strict``
    mode an object that repeated keys is a :class:`DupDict`. Malformed input raises
    :class:`JSONSyntaxError` with Go's message and byte offset.
    """
    raw = _to_bytes(data)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", _DECODE_ERRORS)
    # A BOM and \uD800-\uDFFF escapes are handled differently by Go; send them (rare) to
    # the exact parser rather than fixing the fast result up.
    if spans is None and text[:1] != "\ufeff" and "\\ud" not in text and "\\uD" not in text:
        try:
            return _DECODERS[(strict, allow_inf, literals)].decode(text)
        except (ValueError, RecursionError, _Reject):
            pass
    return _slow_parse(raw, strict=strict, allow_inf=allow_inf, literals=literals, repeats=literals,
                       spans=spans)


# --------------------------------------------------------------------------------------
# Writing.

def format_float(x: float) -> str:
    """Go's JSON text for a float64 (Go: Go's encoding/json encoder).

    Shortest round-trip digits; plain notation for 1e-6 <= |x| < 1e21, exponent form
    (``1e+21``, ``1e-7``) otherwise; integral values carry no ``.0``; -0.0 is ``0``.
    NaN and infinities raise EncodeError (``json: unsupported value: NaN``).
    """
    if x != x:
        raise EncodeError("json: unsupported value: NaN")
    if x == _INF:
        raise EncodeError("json: unsupported value: +Inf")
    if x == -_INF:
        raise EncodeError("json: unsupported value: -Inf")
    if x == 0:
        return "0"
    r = float.__repr__(x)
    a = -x if x < 0 else x
    if 1e-6 <= a < 1e21:
        if "e" not in r:
            return r[:-2] if r.endswith(".0") else r
        mant, _, exp = r.partition("e")
        sign = ""
        if mant[0] == "-":
            sign, mant = "-", mant[1:]
        intpart, _, frac = mant.partition(".")
        digits = intpart + frac
        point = len(intpart) + int(exp)
        if point >= len(digits):
            return sign + digits + "0" * (point - len(digits))
        if point <= 0:
            return sign + "0." + "0" * (-point) + digits
        return sign + digits[:point] + "." + digits[point:]
    if "e-0" in r:
        r = r.replace("e-0", "e-")
    return r


def number_text(v: int | float) -> str:
    """The JSON text of a number as Go's decoder saw it: the source literal when the tree
    kept it (:class:`JSONNumber`), else what Go's encoder writes for the value."""
    if type(v) is JSONNumber:
        return v.text  # type: ignore[union-attr]
    if isinstance(v, int):
        return int.__repr__(v)
    return format_float(v)


def escape_string(s: str) -> str:
    """Go's JSON string literal (with quotes) for ``s``: raw UTF-8, HTML-safe escapes,
    ``\\u2028``/``\\u2029``, short or ``\\u00XX`` control escapes, ``\\ufffd`` for
    unpaired surrogates."""
    out = _html_escape(_c_encode_basestring(s))
    if _SURROGATES.search(out):
        out = _SURROGATES.sub(lambda m: "\\ufffd", out)
    return out


def _html_escape(s: str) -> str:
    if "<" in s:
        s = s.replace("<", "\\u003c")
    if ">" in s:
        s = s.replace(">", "\\u003e")
    if "&" in s:
        s = s.replace("&", "\\u0026")
    if "\u2028" in s:
        s = s.replace("\u2028", "\\u2028")
    if "\u2029" in s:
        s = s.replace("\u2029", "\\u2029")
    return s


# A float whose Python repr differs from Go's text ends in ".0" (integral or zero),
# "e+16".."e+20" (Go writes those in full) or "e-05".."e-09" (Go: plain, or e-7 unpadded).
# In compact C output every number inside a container is followed by , ] or }.
_FLOAT_SUSPECT = re.compile(r"\.0[,\]}]|\+(?:1[6-9]|20)[,\]}]|-0[5-9][,\]}]")


class _Unsupported(Exception):
    def __init__(self, obj: Any) -> None:
        super().__init__(obj)
        self.obj = obj


class _Raws:
    """RawJSON values met while writing, replaced by unique string placeholders."""

    def __init__(self) -> None:
        self.nonce = "kcraw" + os.urandom(10).hex() + "_"
        self.items: list[tuple[RawJSON, int]] = []

    def add(self, raw: RawJSON, depth: int) -> str:
        self.items.append((raw, depth))
        return f"{self.nonce}{len(self.items) - 1}"


def _key_text(k: Any) -> str:
    # Same coercions as the C encoder, so both writers agree on non-str keys.
    if type(k) is str or isinstance(k, str):
        return str(k)
    if k is True:
        return "true"
    if k is False:
        return "false"
    if k is None:
        return "null"
    if isinstance(k, int):
        return int.__repr__(k)
    if isinstance(k, float):
        return format_float(k)
    raise EncodeError(f"json: unsupported type: map key of type {type(k).__name__}")


def _unsupported(v: Any) -> EncodeError:
    return EncodeError(f"json: unsupported type: {type(v).__name__}")


_END = object()


def _py_write(tree: Any, pretty: bool, sort_keys: bool, raws: _Raws) -> str:
    """Iterative writer (no recursion limit): Go float text, RawJSON placeholders."""
    parts: list[str] = []
    app = parts.append
    enc = _c_encode_basestring
    kv = ": " if pretty else ":"
    indents = ["\n"]
    stack: list[list] = []  # type: ignore[type-arg]  # [iterator, is_dict, count]
    depth = 0
    v = tree
    while True:
        t = type(v)
        if t is str:
            app(enc(v))
        elif v is None:
            app("null")
        elif v is True:
            app("true")
        elif v is False:
            app("false")
        elif t is int:
            app(int.__repr__(v))
        elif t is float:
            app(format_float(v))
        elif isinstance(v, dict):
            if not v:
                app("{}")
            else:
                app("{")
                items = sorted(v.items(), key=itemgetter(0)) if sort_keys else v.items()
                stack.append([iter(items), True, 0])
                depth += 1
        elif isinstance(v, (list, tuple)):
            if not v:
                app("[]")
            else:
                app("[")
                stack.append([iter(v), False, 0])
                depth += 1
        elif isinstance(v, RawJSON):
            app('"' + raws.add(v, depth) + '"')
        elif isinstance(v, str):
            app(enc(str(v)))
        elif isinstance(v, int):
            app(int.__repr__(v))
        elif isinstance(v, float):
            app(format_float(float(v)))
        else:
            raise _unsupported(v)
        # advance to the next value to write
        while True:
            if not stack:
                return "".join(parts)
            frame = stack[-1]
            nxt = next(frame[0], _END)
            if nxt is _END:
                stack.pop()
                depth -= 1
                if pretty:
                    app(indents[depth])
                app("}" if frame[1] else "]")
                continue
            if frame[2]:
                app(",")
            frame[2] += 1
            if pretty:
                while len(indents) <= depth:
                    indents.append(indents[-1] + "  ")
                app(indents[depth])
            if frame[1]:
                k, v = nxt
                app(enc(k if type(k) is str else _key_text(k)))
                app(kv)
            else:
                v = nxt
            break


def _c_write(tree: Any, sort_keys: bool, raws: _Raws) -> str | None:
    """Compact text from the C encoder, or None when it is not provably Go-identical."""

    def default(o: Any) -> Any:
        if isinstance(o, RawJSON):
            return raws.add(o, 0)
        raise _Unsupported(o)

    enc = json.JSONEncoder(
        ensure_ascii=False,
        separators=(",", ":"),
        allow_nan=False,
        sort_keys=sort_keys,
        check_circular=False,
        default=default,
    )
    try:
        s = enc.encode(tree)
    except _Unsupported as e:
        raise _unsupported(e.obj) from None
    except (ValueError, RecursionError, TypeError):
        return None
    if _FLOAT_SUSPECT.search(s):
        return None
    return s


def _finish(s: str, raws: _Raws, pretty: bool) -> bytes | None:
    out = _html_escape(s).encode("utf-8", _ENCODE_ERRORS)
    if not raws.items:
        return out
    marker = ('"' + raws.nonce).encode()
    if out.count(marker) != len(raws.items):
        return None  # a string happened to contain the nonce: retry with another one
    pattern = re.compile(re.escape(marker) + rb'(\d+)"')
    items = raws.items

    def substitute(m: re.Match[bytes]) -> bytes:
        raw, depth = items[int(m.group(1))]
        try:
            text = compact(raw.data)
        except DecodeError as e:
            name = getattr(type(raw), "go_type", type(raw).__name__)
            gist = e.msg if isinstance(e, JSONSyntaxError) else str(e)
            raise EncodeError(f"json: error calling MarshalJSON for type {name}: {gist}") from None
        return indent(text, depth) if pretty else text

    return pattern.sub(substitute, out)


def dumps(tree: Any, *, pretty: bool = False, sort_keys: bool = False) -> bytes:
    """Write a tree as Go's ``encoding/json`` would (no trailing newline).

    ``pretty`` gives Go's ``json.Indent`` form (two spaces, ``": "``, empty ``{}``/``[]``
    kept compact). ``sort_keys`` orders every dict's keys bytewise (code point order).
    :class:`~kcodec.model.RawJSON` values are compacted, HTML-escaped and, when pretty,
    re-indented in place; invalid raw text raises EncodeError. NaN/±Inf raise EncodeError.
    """
    if type(tree) is float:
        return format_float(tree).encode()
    for _ in range(4):
        raws = _Raws()
        s = None if pretty else _c_write(tree, sort_keys, raws)
        if s is None:
            raws = _Raws()
            s = _py_write(tree, pretty, sort_keys, raws)
        out = _finish(s, raws, pretty)
        if out is not None:
            return out
    raise EncodeError("json: could not allocate unique RawJSON placeholders")


# --------------------------------------------------------------------------------------
# Raw JSON helpers.

_WS_OUTSIDE_STRINGS = re.compile(rb'("[^"\\]*(?:\\.[^"\\]*)*")|[ \t\n\r]+', re.S)


def compact(raw: bytes, *, escape_html: bool = True) -> bytes:
    """Go's ``json.Compact`` (plus the encoder's HTML escaping when ``escape_html``).

    Whitespace outside strings is removed; strings and number text are kept byte for byte
    except that ``<`` ``>`` ``&`` U+2028 U+2029 become ``\\u`` escapes. Invalid JSON raises
    :class:`JSONSyntaxError`.
    """
    raw = _to_bytes(raw)
    validate(raw)
    if b" " in raw or b"\n" in raw or b"\t" in raw or b"\r" in raw:
        raw = _WS_OUTSIDE_STRINGS.sub(rb"\1", raw)
    if escape_html:
        if b"<" in raw:
            raw = raw.replace(b"<", b"\\u003c")
        if b">" in raw:
            raw = raw.replace(b">", b"\\u003e")
        if b"&" in raw:
            raw = raw.replace(b"&", b"\\u0026")
        if b"\xe2\x80\xa8" in raw:
            raw = raw.replace(b"\xe2\x80\xa8", b"\\u2028")
        if b"\xe2\x80\xa9" in raw:
            raw = raw.replace(b"\xe2\x80\xa9", b"\\u2029")
    return raw


_INDENT_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^"{}\[\],:]+', re.S)


def indent(raw: bytes, prefix_depth: int = 0) -> bytes:
    """Go's ``json.Indent`` (two spaces) of compact JSON embedded ``prefix_depth`` levels
    deep: nested lines are indented by ``prefix_depth`` extra levels, the first line is not.
    Empty objects and arrays stay ``{}``/``[]``."""
    raw = _to_bytes(raw)
    if b"{" not in raw and b"[" not in raw:
        return raw
    out: list[bytes] = []
    app = out.append
    depth = prefix_depth
    pending_open = False
    for m in _INDENT_TOKENS.finditer(raw):
        tok = m.group()
        c = tok[0]
        if pending_open:
            pending_open = False
            if c == 0x7D or c == 0x5D:
                depth -= 1
                app(tok)
                continue
            app(b"\n" + b"  " * depth)
        if c == 0x7B or c == 0x5B:
            app(tok)
            depth += 1
            pending_open = True
        elif c == 0x7D or c == 0x5D:
            depth -= 1
            app(b"\n" + b"  " * depth)
            app(tok)
        elif c == 0x2C:
            app(b",\n" + b"  " * depth)
        elif c == 0x3A:
            app(b": ")
        else:
            app(tok)
    return b"".join(out)


# ---------------------------------------------------------------------------------------
# []byte values: encoding/json decodes their string with base64.StdEncoding.

_B64_VALUE = [-1] * 256
for _i, _c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"):
    _B64_VALUE[_c] = _i
del _i, _c


def _b64_go(src: bytes) -> tuple[bytes, int | None]:
    """Go's base64.StdEncoding.Decode: the decoded bytes, and the offset of a
    CorruptInputError or None.

    Quanta of four alphabet characters, CR and LF skipped anywhere, padding mandatory, the
    unused bits of a short quantum never checked (StdEncoding is not Strict). Offsets are
    Go's, odd ones included: a second padding character replaced by another byte reports
    the byte before it.
    """
    out = bytearray()
    n = len(src)
    si = 0
    while si < n:
        vals: list[int] = []
        while len(vals) < 4:
            if si == n:
                if not vals:
                    return bytes(out), None
                return bytes(out), si - len(vals)
            c = src[si]
            si += 1
            v = _B64_VALUE[c]
            if v >= 0:
                vals.append(v)
                continue
            if c == 0x0A or c == 0x0D:
                continue
            if c != 0x3D or len(vals) < 2:  # not '=', or padding too early
                return bytes(out), si - 1
            if len(vals) == 2:
                while si < n and (src[si] == 0x0A or src[si] == 0x0D):
                    si += 1
                if si == n:
                    return bytes(out), n
                if src[si] != 0x3D:
                    return bytes(out), si - 1
                si += 1
            while si < n and (src[si] == 0x0A or src[si] == 0x0D):
                si += 1
            if si < n:
                return bytes(out), si  # trailing data after the padding
            break
        word = 0
        for v in vals:
            word = word << 6 | v
        word <<= 6 * (4 - len(vals))
        out += word.to_bytes(3, "big")[: len(vals) - 1]
    return bytes(out), None


def b64decode(data: bytes | str) -> bytes:
    """Decode a JSON string bound for a Go ``[]byte`` as encoding/json does.

    Raises Go's ``illegal base64 data at input byte N`` (N counts the string's UTF-8 bytes).
    """
    if type(data) is str:
        data = data.encode("utf-8", "surrogateescape")
    if b"\n" in data or b"\r" in data:
        cleaned = data.replace(b"\n", b"").replace(b"\r", b"")
    else:
        cleaned = data
    # The strict C decoder accepts a subset of what Go accepts (it also takes '=' after a
    # complete quantum, hence the length and '===' checks); everything else takes Go's rule.
    if not len(cleaned) & 3 and not cleaned.endswith(b"==="):
        try:
            return binascii.a2b_base64(cleaned, strict_mode=True)
        except binascii.Error:
            pass
    out, offset = _b64_go(data)
    if offset is not None:
        raise DecodeError(f"illegal base64 data at input byte {offset}", offset=offset)
    return out

