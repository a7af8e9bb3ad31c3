"""k8s.io/apimachinery/pkg/util/yaml: JSON/YAML sniffing, YAML document streams, decoders (Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go).

* :func:`is_json_buffer` / :func:`to_json` - Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go (IsJSONBuffer).
* :class:`YAMLReader` - line-based document reader with Go's ``---`` separator rules (Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go (YAMLReader)).
* :class:`YAMLToJSONDecoder` - one JSON tree per YAML document (Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go (YAMLReader)).
* :class:`YAMLOrJSONDecoder` - sniffs JSON vs YAML and falls back from JSON to YAML after at
  most one JSON object (Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go (YAMLOrJSONDecoder)).

Decoders return JSON trees (``dict``/``list``/``str``/``int``/``float``/``bool``/``None``
with Go's number rule) and raise :class:`EOFError` at the end of the stream.
"""
from __future__ import annotations

import io
import json as _stdjson
from typing import IO, Any, Callable, Iterator

from kcodec.errors import DecodeError
from kcodec import gojson as _gojson
from kcodec.gofmt import quote_char
from kcodec.goyaml import _go_replace_invalid, yaml_to_json, yaml_to_tree

__all__ = [
    "is_json_buffer",
    "to_json",
    "YAMLSyntaxError",
    "JSONSyntaxError",
    "YAMLReader",
    "YAMLToJSONDecoder",
    "YAMLOrJSONDecoder",
]

_CHUNK = 64 * 1024
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


class YAMLSyntaxError(DecodeError):
    """A YAML document of a stream is malformed (Go's YAMLSyntaxError; same message)."""


class JSONSyntaxError(DecodeError):
    """A JSON value of a stream is malformed: ``json: offset <n>: <problem>``.

    ``offset`` counts the bytes the JSON decoder had read, up to and including the bad one.
    """

    def __init__(self, offset: int, message: str) -> None:
        self.offset = offset
        self.problem = message
        super().__init__(f"json: offset {offset}: {message}")


# Unicode White_Space as Go's unicode.IsSpace sees it, for byte-level trimming.
_SPACE_CHARS = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                         "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def _lstrip_go_space(data: bytes) -> bytes:
    data = data.lstrip(b" \t\n\v\f\r")
    while data and data[0] >= 0x80:
        for width in (2, 3):
            ch = data[:width].decode("utf-8", "ignore")
            if len(ch) == 1 and len(ch.encode("utf-8")) == width:
                break
        else:
            return data
        if ch not in _SPACE_CHARS:
            return data
        data = data[width:].lstrip(b" \t\n\v\f\r")
    return data


def is_json_buffer(data: bytes) -> bool:
    """True when the first non-whitespace byte is ``{`` (arrays do not count, Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go (IsJSONBuffer))."""
    return _lstrip_go_space(bytes(data)).startswith(b"{")


def _dumps(tree: Any) -> bytes:
    return _gojson.dumps(tree, sort_keys=True)


def to_json(data: bytes) -> bytes:
    """Go's yaml.ToJSON: JSON-looking input is returned untouched, anything else goes YAML -> JSON.

    The YAML conversion yields compact JSON with sorted keys; malformed YAML raises a
    :class:`kcodec.errors.DecodeError` with go-yaml's message.
    """
    data = bytes(data)
    if is_json_buffer(data):
        return data
    return yaml_to_json(data)[0]


# ---------------------------------------------------------------------------------------------
# Byte source shared by the JSON and YAML halves of YAMLOrJSONDecoder

class _Source:
    """Unconsumed stream bytes plus the rest of the stream (Go's StreamReader + bufio)."""

    def __init__(self, stream: Any) -> None:
        if isinstance(stream, (bytes, bytearray, memoryview)):
            stream = io.BytesIO(bytes(stream))
        self.stream: IO[bytes] | None = stream
        self.buf = bytearray()
        self.pos = 0  # start of unconsumed data in buf

    def fill(self, want: int = _CHUNK) -> bool:
        """Read more from the stream; False at EOF."""
        if self.stream is None:
            return False
        chunk = self.stream.read(max(want, 1))
        if not chunk:
            self.stream = None
            return False
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8")
        if self.pos > _CHUNK and self.pos * 2 > len(self.buf):
            del self.buf[: self.pos]
            self.pos = 0
        self.buf += chunk
        return True

    def available(self) -> int:
        return len(self.buf) - self.pos

    def peek(self, n: int) -> bytes:
        while self.available() < n and self.fill(n - self.available()):
            pass
        return bytes(self.buf[self.pos:self.pos + n])

    def readline(self) -> tuple[bytes, bool]:
        """bufio.Reader.ReadLine: (line without its \\n or \\r\\n, at_eof)."""
        start = self.pos
        while True:
            i = self.buf.find(b"\n", start)
            if i >= 0:
                line = bytes(self.buf[self.pos:i])
                self.pos = i + 1
                if line.endswith(b"\r"):
                    line = line[:-1]
                return line, False
            start = len(self.buf)
            if not self.fill():
                line = bytes(self.buf[self.pos:])
                self.pos = len(self.buf)
                return line, not line


# ---------------------------------------------------------------------------------------------
# YAML documents

class YAMLReader:
    """Split a stream into YAML documents at lines starting with ``---`` (Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go (YAMLReader)).

    Only whitespace or a ``#`` comment may follow the separator; anything else raises
    :class:`YAMLSyntaxError` ``invalid Yaml document separator: ...``. Empty documents are
    skipped. Lines are returned with ``\\n`` endings (``\\r\\n`` normalised).
    """

    def __init__(self, stream: Any) -> None:
        self._src = stream if isinstance(stream, _Source) else _Source(stream)

    def read(self) -> bytes:
        """The next non-empty document's bytes; raises :class:`EOFError` at the end."""
        buffer = bytearray()
        while True:
            line, eof = self._src.readline()
            line += b"\n"
            if line.startswith(b"---"):
                trimmed = line[3:].decode("utf-8", "replace").strip()
                if trimmed and trimmed[0] != "#":
                    raise YAMLSyntaxError(f"invalid Yaml document separator: {trimmed}")
                if buffer:
                    return bytes(buffer)
                if eof:
                    raise EOFError
            if eof:
                if buffer:
                    return bytes(buffer)
                raise EOFError
            buffer += line


class YAMLToJSONDecoder:
    """Decode each YAML document of a stream to a JSON tree (Go's YAMLToJSONDecoder).

    ``decode()`` returns the next document's tree (``None`` for a document holding only
    whitespace or comments) and raises :class:`EOFError` after the last one. YAML errors
    are raised as :class:`YAMLSyntaxError` with go-yaml's text (``yaml: line 3: ...``).
    """

    def __init__(self, stream: Any, *, fast_tree: Callable[[bytes], Any] | None = None) -> None:
        self._reader = YAMLReader(stream)
        self.input_offset = 0
        # A reader that returns a document's tree or None ("not handled"), tried before
        # yaml_to_tree: speedups.yaml_block_tree, handed down by callers above the kernels
        # (this module sits below them and cannot import them).
        self._fast_tree = fast_tree

    def decode(self) -> Any:
        """Return the next document as a JSON tree."""
        data = self._reader.read()
        tree = self._fast_tree(data) if self._fast_tree is not None else None
        try:
            if tree is None:
                tree = yaml_to_tree(data)
        except DecodeError as err:
            raise YAMLSyntaxError(str(err)) from None
        self.input_offset += len(data)
        return tree

    def __iter__(self) -> Iterator[Any]:
        while True:
            try:
                yield self.decode()
            except EOFError:
                return


# ---------------------------------------------------------------------------------------------
# JSON values (encoding/json.Decoder framing and syntax errors)

class _Incomplete(Exception):
    pass


class _JSONError(Exception):
    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


_WS = b" \t\n\r"
_HEX = frozenset(b"0123456789abcdefABCDEF")
_DIGITS = frozenset(b"0123456789")


def _scan_value(buf: bytearray, i: int, eof: bool) -> int:
    """End index of the JSON value starting at ``buf[i]`` (Go scanner rules and messages).

    Raises _Incomplete when more input is needed, _JSONError for a syntax error.
    """
    n = len(buf)
    stack: list[int] = []  # 0 = object, 1 = array

    def need(j: int) -> None:
        if j >= n:
            raise _Incomplete

    def err(j: int, ctx: str) -> _JSONError:
        return _JSONError(j, f"invalid character {quote_char(buf[j])} {ctx}")

    def skip_ws(j: int) -> int:
        while True:
            need(j)
            if buf[j] not in _WS:
                return j
            j += 1

    state = "value"
    while True:
        if state == "value":
            i = skip_ws(i)
            c = buf[i]
            if c == 0x7B:  # {
                stack.append(0)
                i = skip_ws(i + 1)
                if buf[i] == 0x7D:
                    stack.pop()
                    i += 1
                    state = "after"
                    continue
                if buf[i] != 0x22:
                    raise err(i, "looking for beginning of object key string")
                i = _scan_string(buf, i, need, err)
                i = skip_ws(i)
                if buf[i] != 0x3A:
                    raise err(i, "after object key")
                i += 1
                continue
            if c == 0x5B:  # [
                stack.append(1)
                i = skip_ws(i + 1)
                if buf[i] == 0x5D:
                    stack.pop()
                    i += 1
                    state = "after"
                continue
            if c == 0x22:
                i = _scan_string(buf, i, need, err)
            elif c == 0x2D or c in _DIGITS:
                i = _scan_number(buf, i, need, err, eof or bool(stack))
            elif c in b"tfn":
                word = {0x74: b"true", 0x66: b"false", 0x6E: b"null"}[c]
                for k in range(1, len(word)):
                    need(i + k)
                    if buf[i + k] != word[k]:
                        raise err(i + k, f"in literal {word.decode()} (expecting {quote_char(word[k])})")
                i += len(word)
            else:
                raise err(i, "looking for beginning of value")
            state = "after"
            continue
        # after a complete value
        if not stack:
            return i
        i = skip_ws(i)
        c = buf[i]
        if stack[-1] == 0:
            if c == 0x2C:
                i = skip_ws(i + 1)
                if buf[i] != 0x22:
                    raise err(i, "looking for beginning of object key string")
                i = _scan_string(buf, i, need, err)
                i = skip_ws(i)
                if buf[i] != 0x3A:
                    raise err(i, "after object key")
                i += 1
                state = "value"
            elif c == 0x7D:
                stack.pop()
                i += 1
            else:
                raise err(i, "after object key:value pair")
        else:
            if c == 0x2C:
                i += 1
                state = "value"
            elif c == 0x5D:
                stack.pop()
                i += 1
            else:
                raise err(i, "after array element")


def _scan_string(buf: bytearray, i: int, need: Any, err: Any) -> int:
    i += 1
    while True:
        need(i)
        c = buf[i]
        if c == 0x22:
            return i + 1
        if c == 0x5C:
            need(i + 1)
            e = buf[i + 1]
            if e == 0x75:
                for k in range(2, 6):
                    need(i + k)
                    if buf[i + k] not in _HEX:
                        raise err(i + k, "in \\u hexadecimal character escape")
                i += 6
                continue
            if e not in b'"\\/bfnrt':
                raise err(i + 1, "in string escape code")
            i += 2
            continue
        if c < 0x20:
            raise err(i, "in string literal")
        i += 1


def _scan_number(buf: bytearray, i: int, need: Any, err: Any, may_end: bool) -> int:
    n = len(buf)

    def at(j: int) -> int | None:
        if j < n:
            return buf[j]
        if may_end:
            return None
        raise _Incomplete

    if buf[i] == 0x2D:
        i += 1
        need(i)
        if buf[i] not in _DIGITS:
            raise err(i, "in numeric literal")
    if buf[i] == 0x30:
        i += 1
    else:
        while (c := at(i)) is not None and c in _DIGITS:
            i += 1
    c = at(i)
    if c == 0x2E:
        i += 1
        need(i)
        if buf[i] not in _DIGITS:
            raise err(i, "after decimal point in numeric literal")
        while (c := at(i)) is not None and c in _DIGITS:
            i += 1
    if c in (0x65, 0x45):
        i += 1
        need(i)
        if buf[i] in (0x2B, 0x2D):
            i += 1
            need(i)
        if buf[i] not in _DIGITS:
            raise err(i, "in exponent of numeric literal")
        while (c := at(i)) is not None and c in _DIGITS:
            i += 1
    return i


def _go_int(s: str) -> Any:
    v = int(s)
    return v if _INT64_MIN <= v <= _INT64_MAX else float(s)


def _parse_json_value(data: bytes) -> Any:
    try:
        from kcodec import gojson as _gojson
    except ImportError:
        return _stdjson.loads(_go_replace_invalid(data), parse_int=_go_int)
    return _gojson.loads(data)


class YAMLOrJSONDecoder:
    """Decode a stream of JSON values or YAML documents (Go's NewYAMLOrJSONDecoder, Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go (YAMLOrJSONDecoder)).

    The first ``peek_size`` bytes decide: JSON when the first non-space is ``{``, else
    YAML. In JSON mode concatenated values are decoded one by one; when one fails after at
    most one decoded object the rest of the stream is re-read as YAML (after skipping the
    whitespace up to the next newline). YAML mode never switches back. ``decode()``
    returns the next tree and raises :class:`EOFError` at the end of the stream.
    """

    def __init__(self, stream: Any, peek_size: int = 4096, *,
                 fast_tree: Callable[[bytes], Any] | None = None) -> None:
        self._src = _Source(stream)
        head = self._src.peek(peek_size if peek_size > 0 else 4096)
        self._json = is_json_buffer(head)
        self._fast_tree = fast_tree
        self._yaml: YAMLToJSONDecoder | None = (
            None if self._json else YAMLToJSONDecoder(self._src, fast_tree=fast_tree))
        self._json_consumed = 0
        self._count = 0
        self._failed = False

    @property
    def is_json(self) -> bool:
        """Whether the decoder is (still) reading JSON values."""
        return self._json

    def decode(self) -> Any:
        """Return the next JSON tree from the stream."""
        first_err: DecodeError | None = None
        if self._json:
            try:
                value = self._decode_json()
            except EOFError:
                raise
            except DecodeError as err:
                if self._count > 1:
                    raise DecodeError(getattr(err, "problem", str(err))) from None
                first_err = err
                self._json = False
                if self._consume_whitespace():
                    self._yaml = YAMLToJSONDecoder(self._src, fast_tree=self._fast_tree)
            else:
                self._count += 1
                return value
        if self._yaml is not None:
            try:
                value = self._yaml.decode()
            except EOFError:
                raise
            except DecodeError as err:
                raise (first_err or err) from None
            self._count += 1
            return value
        if first_err is not None:
            raise first_err
        raise DecodeError("decoding failed as both JSON and YAML")

    def __iter__(self) -> Iterator[Any]:
        while True:
            try:
                yield self.decode()
            except EOFError:
                return

    def _decode_json(self) -> Any:
        src = self._src
        while True:
            start = src.pos
            j = start
            buf = src.buf
            while j < len(buf) and buf[j] in _WS:
                j += 1
            if j == len(buf):
                if src.fill():
                    continue
                raise EOFError
            try:
                end = _scan_value(buf, j, src.stream is None)
            except _Incomplete:
                if src.fill():
                    continue
                raise DecodeError("unexpected EOF") from None
            except _JSONError as e:
                raise JSONSyntaxError(self._json_consumed + (e.index - start) + 1, e.message) from None
            value = _parse_json_value(bytes(buf[j:end]))
            self._json_consumed += end - start
            src.pos = end
            return value

    def _consume_whitespace(self) -> bool:
        """Skip Unicode spaces through the first newline; False at EOF or on invalid UTF-8."""
        src = self._src
        while True:
            head = src.peek(4)
            if not head:
                return False
            ch = None
            for width in range(1, min(4, len(head)) + 1):
                try:
                    ch = head[:width].decode("utf-8")
                    break
                except UnicodeDecodeError:
                    continue
            if ch is None or len(ch) != 1:
                return False
            if ch not in _SPACE_CHARS:
                return True
            src.pos += width
            if ch == "\n":
                return True
