"""Stream framers: cut a byte stream into frames and write frames to a stream (Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go (splitYAMLDocument); k8s.io/apimachinery/pkg/util/framer/framer.go).

Three framers, each with ``new_frame_reader(stream)`` and ``new_frame_writer(stream)``:

* :data:`LENGTH_DELIMITED_FRAMER` -- a 4-byte big-endian length, then the body (protobuf
  streams).
* :data:`JSON_FRAMER` -- successive top-level JSON values, whitespace between them dropped.
* :data:`YAML_FRAMER` -- documents separated by ``\\n---`` lines; the writer puts ``---\\n``
  before every document.

Streams are binary file-like objects (``io.BytesIO``, ``socket.makefile("rb")``, files).

Frame readers offer two ways to read:

* ``read_frame(max_size)`` returns one whole frame as ``bytes`` (``for frame in reader``
  does the same); a frame longer than ``max_size`` raises ``DecodeError("object to decode
  was longer than maximum allowed size")`` and is skipped, so the next call returns the
  next frame.
* ``readinto(buf) -> (n, short)`` mirrors Go's ``io.Reader`` on a frame reader: it copies
  up to ``len(buf)`` bytes of the current frame and says with ``short=True`` that the frame
  goes on (Go's ``io.ErrShortBuffer``); the next call continues the same frame.

The end of the stream raises :class:`EOFError` (at a frame boundary only); a stream that
stops inside a frame raises :class:`kcodec.errors.DecodeError` ``unexpected EOF`` (``offset`` N)
(Go's ``io.ErrUnexpectedEOF``). When ``readinto`` had already copied part of the frame, the
error carries that count in its ``n`` attribute.
"""
from __future__ import annotations

import abc
import re
from typing import Any, BinaryIO, Iterator

from kcodec import gojson, speedups
from kcodec.errors import DecodeError, EncodeError
from kcodec.runtime.interfaces import MAX_FRAME_SIZE, FrameReader, FrameWriter, Framer

__all__ = [
    "MAX_FRAME_SIZE",
    "MAX_YAML_DOCUMENT_SIZE",
    "MAX_JSON_DEPTH",
    "ERR_OBJECT_TOO_LARGE",
    "FrameReader",
    "FrameWriter",
    "Framer",
    "LengthDelimitedFramer",
    "LengthDelimitedFrameReader",
    "LengthDelimitedFrameWriter",
    "JSONFramer",
    "JSONFrameReader",
    "PassThroughFrameWriter",
    "YAMLFramer",
    "YAMLDocumentReader",
    "YAMLFrameWriter",
    "split_yaml_document",
    "LENGTH_DELIMITED_FRAMER",
    "JSON_FRAMER",
    "YAML_FRAMER",
]

MAX_YAML_DOCUMENT_SIZE = 5 * 1024 * 1024
"""Largest chunk the YAML document splitter buffers (Go's ``bufio.Scanner`` limit there)."""

MAX_JSON_DEPTH = 10000
"""Deepest nesting the JSON frame scanner accepts (Go's encoding/json limit)."""

ERR_OBJECT_TOO_LARGE = "object to decode was longer than maximum allowed size"

_CHUNK = 64 * 1024


# The framer contracts (Framer, FrameReader, FrameWriter) and MAX_FRAME_SIZE are stated
# once, in kcodec.runtime.interfaces; they are re-exported here for the framers' users.
# The readers below also offer ``readinto`` (Go's io.Reader with ErrShortBuffer) beside the
# contract's ``read_frame``.


def _unexpected_eof(offset: int, n: int = 0) -> DecodeError:
    """io.ErrUnexpectedEOF, as Go's frame readers return it; where the stream ended is the
    error's offset and ``n`` the bytes handed out before it."""
    err = DecodeError("unexpected EOF", offset=offset)
    err.n = n  # type: ignore[attr-defined]
    return err


def _read_some(stream: Any, n: int) -> bytes:
    """Up to ``n`` bytes, without waiting for more than the stream has ready when it can."""
    read1 = getattr(stream, "read1", None)
    chunk = read1(n) if read1 is not None else stream.read(n)
    if chunk is None:
        raise DecodeError("stream has no data ready: non-blocking streams are not supported")
    return chunk


def _read_exact(stream: Any, n: int) -> bytes:
    """Exactly ``n`` bytes, or fewer only when the stream ends."""
    data = stream.read(n)
    if data is None:
        raise DecodeError("stream has no data ready: non-blocking streams are not supported")
    if len(data) == n or not data:
        return data
    parts = bytearray(data)
    while len(parts) < n:
        more = stream.read(n - len(parts))
        if more is None:
            raise DecodeError("stream has no data ready: non-blocking streams are not supported")
        if not more:
            break
        parts += more
    return bytes(parts)


def _close(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if close is not None:
        close()


# --------------------------------------------------------------------------------------
# length-delimited


class LengthDelimitedFrameReader:
    """Reads frames made of a 4-byte big-endian length and that many body bytes."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._remaining = 0  # body bytes of the current frame not read yet
        self._discard = False  # the current frame was too large: drop its rest
        self._offset = 0  # stream bytes consumed, for error positions

    def _header(self) -> int:
        head = _read_exact(self._stream, 4)
        if not head:
            raise EOFError("end of stream")
        self._offset += len(head)
        if len(head) < 4:
            raise _unexpected_eof(self._offset)
        return int.from_bytes(head, "big")

    def _drop_rest(self) -> None:
        stream = self._stream
        while self._remaining:
            chunk = _read_exact(stream, min(self._remaining, _CHUNK))
            self._offset += len(chunk)
            self._remaining -= len(chunk)
            if not chunk:
                raise _unexpected_eof(self._offset)
        self._discard = False

    def read_frame(self, max_size: int = MAX_FRAME_SIZE) -> bytes:
        """The next whole frame (or the rest of one ``readinto`` started).

        A frame longer than ``max_size`` raises ``object to decode was longer than maximum
        allowed size`` before its body is read; the next call skips that body.
        """
        if self._discard:
            self._drop_rest()
        if self._remaining:
            size = self._remaining
        else:
            size = self._header()
            if size > max_size:
                self._remaining = size
                self._discard = True
                raise DecodeError(ERR_OBJECT_TOO_LARGE)
        body = _read_exact(self._stream, size) if size else b""
        self._offset += len(body)
        self._remaining = size - len(body)
        if self._remaining:
            self._remaining = 0
            raise _unexpected_eof(self._offset)
        return body

    def readinto(self, buf: bytearray | memoryview) -> tuple[int, bool]:
        """Copy up to ``len(buf)`` bytes of the current frame; ``short`` if it goes on."""
        if self._discard:
            self._drop_rest()
        if not self._remaining:
            self._remaining = self._header()
            if not self._remaining:
                return 0, False
        want = min(self._remaining, len(buf))
        view = memoryview(buf)[:want]
        n = 0
        readinto = getattr(self._stream, "readinto", None)
        while n < want:
            if readinto is not None:
                got = readinto(view[n:])
                if got is None:
                    raise DecodeError("stream has no data ready: non-blocking streams are not supported")
            else:
                chunk = _read_exact(self._stream, want - n)
                got = len(chunk)
                view[n : n + got] = chunk
            if not got:
                break
            n += got
        self._offset += n
        self._remaining -= n
        if n < want:
            self._remaining = 0
            raise _unexpected_eof(self._offset, n)
        return n, self._remaining > 0

    def __iter__(self) -> Iterator[bytes]:
        while True:
            try:
                frame = self.read_frame()
            except EOFError:
                return
            yield frame

    def close(self) -> None:
        """Close the underlying stream."""
        _close(self._stream)


class LengthDelimitedFrameWriter:
    """Writes each ``write(data)`` as a 4-byte big-endian length followed by ``data``."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        """Write one frame; returns ``len(data)``."""
        n = len(data)
        if n > 0xFFFFFFFF:
            raise EncodeError(f"frame of {n} bytes does not fit a 4-byte length")
        self._stream.write(n.to_bytes(4, "big"))
        if n:
            self._stream.write(data)
        return n

    def flush(self) -> None:
        """Flush the underlying stream when it buffers."""
        flush = getattr(self._stream, "flush", None)
        if flush is not None:
            flush()


class LengthDelimitedFramer:
    """Framer for protobuf streams (4-byte big-endian length prefix)."""

    def new_frame_reader(self, stream: BinaryIO) -> LengthDelimitedFrameReader:
        """A reader of length-delimited frames from ``stream``."""
        return LengthDelimitedFrameReader(stream)

    def new_frame_writer(self, stream: BinaryIO) -> LengthDelimitedFrameWriter:
        """A writer that length-prefixes every write."""
        return LengthDelimitedFrameWriter(stream)

    def __repr__(self) -> str:
        return "LENGTH_DELIMITED_FRAMER"


# --------------------------------------------------------------------------------------
# readers that hand out whole frames through readinto


class _WholeFrameReader(abc.ABC):
    """``readinto``/iteration on top of a ``_next_frame(max_size)`` primitive."""

    _max_size: int

    def __init__(self) -> None:
        self._pending: memoryview | None = None
        self._pending_pos = 0

    @abc.abstractmethod
    def _next_frame(self, max_size: int) -> bytes:
        """The next whole frame; EOFError at the end of the stream."""

    def read_frame(self, max_size: int = MAX_FRAME_SIZE) -> bytes:
        """The next whole frame (or the rest of one ``readinto`` started)."""
        if self._pending is not None:
            rest = bytes(self._pending[self._pending_pos :])
            self._pending = None
            return rest
        return self._next_frame(max_size)

    def readinto(self, buf: bytearray | memoryview) -> tuple[int, bool]:
        """Copy up to ``len(buf)`` bytes of the current frame; ``short`` if it goes on."""
        if self._pending is None:
            self._pending = memoryview(self._next_frame(self._max_size))
            self._pending_pos = 0
        pending = self._pending
        pos = self._pending_pos
        n = min(len(buf), len(pending) - pos)
        memoryview(buf)[:n] = pending[pos : pos + n]
        pos += n
        if pos < len(pending):
            self._pending_pos = pos
            return n, True
        self._pending = None
        return n, False

    def __iter__(self) -> Iterator[bytes]:
        while True:
            try:
                frame = self.read_frame()
            except EOFError:
                return
            yield frame


# --------------------------------------------------------------------------------------
# JSON

_NON_WS = re.compile(rb"[^ \t\r\n]")
_NUMBER_END = re.compile(rb"[^0-9eE+\-.]")
_LITERAL_END = re.compile(rb"[^a-z]")
_NUMBER_START = b"-0123456789"

_K_CONTAINER = 1
_K_STRING = 2
_K_NUMBER = 3
_K_LITERAL = 4


class JSONFrameReader(_WholeFrameReader):
    """Splits a stream into successive top-level JSON values.

    As Go's framer (k8s.io/apimachinery/pkg/util/framer/framer.go NewJSONFramedReader: a
    json.Decoder reading json.RawMessage values), values end where Go's scanner ends them: a string or container at its closing byte, a
    number at the first byte that cannot continue it, a literal after its last letter; what
    follows starts the next value, so ``01`` is the frames ``0`` and ``1``, and ``1x`` the
    frame ``1`` and then the error for ``x``. Errors are Go's encoding/json scanner texts
    (kcodec.gojson), with Go's ``SyntaxError.Offset`` as ``offset``: bytes of the stream
    read up to and including the offending one. The end of the stream inside a value is
    ``unexpected EOF`` (Go's io.ErrUnexpectedEOF), its offset where the stream ended. A
    scan error ends the stream: every later read raises it again, as Go's json.Decoder
    does.

    Containers and strings are followed by a bracket scanner (nesting up to
    :data:`MAX_JSON_DEPTH`, strings and escapes) and fully scanned only when it meets a
    fault or the stream ends inside them, to find Go's first error. A balanced container
    with a fault inside (``{"a" 1}``) is handed out as a frame and the decoder that
    receives it reports Go's text with the offset in the frame: the complete scan of every
    frame would cost more than decoding a watch event does.
    """

    def __init__(self, stream: BinaryIO, max_frame_size: int = MAX_FRAME_SIZE) -> None:
        super().__init__()
        self._stream = stream
        self._max_size = max_frame_size
        self._buf = bytearray()
        self._base = 0  # stream offset of self._buf[0]
        self._pos = 0  # scan position in self._buf
        self._eof = False
        self._err: DecodeError | None = None
        # state of the value being scanned
        self._kind = 0  # 0: between values
        self._start = 0
        self._stack = bytearray()  # expected closing brackets
        self._in_str = False
        self._discard = False

    def _fail(self, err: DecodeError | None, start: int) -> DecodeError:
        """Keep ``err`` (a gojson error placed in the text from ``buf[start]``) as the
        stream's error, its offset moved into the stream; None is an unexpected EOF."""
        if err is None:
            self._err = _unexpected_eof(self._base + len(self._buf))
        else:
            self._err = gojson.JSONSyntaxError(err.msg, self._base + start + (err.offset or 0))
        return self._err

    def _fill(self) -> None:
        """Read more input, dropping what is no longer needed first."""
        # An oversized value being skipped keeps nothing of itself, only the scan state.
        keep = self._start if (self._kind and not self._discard) else self._pos
        if keep >= _CHUNK or (keep and keep == len(self._buf)):
            del self._buf[:keep]
            self._base += keep
            self._pos -= keep
            self._start = max(0, self._start - keep)
        chunk = _read_some(self._stream, _CHUNK)
        if chunk:
            self._buf += chunk
        else:
            self._eof = True

    def _begin(self) -> bool:
        """Find the first byte of the next value; False when more input is needed."""
        buf = self._buf
        m = _NON_WS.search(buf, self._pos)
        if m is None:
            self._pos = len(buf)
            return False
        pos = m.start()
        c = buf[pos]
        self._start = pos
        if c == 0x7B or c == 0x5B:  # { [
            self._kind = _K_CONTAINER
            self._stack = bytearray((c + 2,))  # } and ] are two code points after { and [
            self._in_str = False
            self._pos = pos + 1
        elif c == 0x22:
            self._kind = _K_STRING
            self._in_str = True
            self._pos = pos + 1
        elif c in _NUMBER_START:
            self._kind = _K_NUMBER
            self._pos = pos + 1
        elif c in b"tfn":
            self._kind = _K_LITERAL
            self._pos = pos + 1
        else:
            raise self._fail(gojson.prefix_error(buf[pos : pos + 1]), pos)
        return True

    def _scan(self) -> int:
        """End offset of the current value in the buffer, or -1 when more input is needed."""
        buf = self._buf
        pos = self._pos
        kind = self._kind
        if kind == _K_CONTAINER or kind == _K_STRING:
            status, pos, in_str = speedups.json_container_scan(
                buf, pos, self._stack, self._in_str, kind == _K_STRING, MAX_JSON_DEPTH)
            self._in_str = in_str
            self._pos = pos
            if status == 1:
                return pos
            if status < 0:
                # Too deep (-1) or a closing bracket that does not match (-2) at pos: Go's
                # scanner stops at the first fault, which may come earlier.
                raise self._fail(gojson.prefix_error(buf[self._start : pos + 1]), self._start)
            return -1
        pattern = _NUMBER_END if kind == _K_NUMBER else _LITERAL_END
        m = pattern.search(buf, pos)
        if m is None:
            self._pos = len(buf)
            if not self._eof:
                return -1
            end = len(buf)
        else:
            end = m.start()
        if self._discard:
            self._pos = end
            return end
        # The run of number (or letter) bytes and the byte after it, or at the end of the
        # stream a NUL, which ends every number and literal in an error: an error there only
        # means the stream ended inside the value.
        start = self._start
        text = bytes(buf[start : end + 1]) if end < len(buf) else bytes(buf[start:end]) + b"\x00"
        try:
            stop = start + gojson.scalar_end(text)
        except gojson.JSONSyntaxError as err:
            if end == len(buf) and err.offset is not None and err.offset > end - start:
                raise self._fail(None, start) from None
            raise self._fail(err, start) from None
        self._pos = stop
        return stop

    def _next_frame(self, max_size: int) -> bytes:
        if self._err is not None:
            raise self._err
        while True:
            if not self._kind:
                if not self._begin():
                    if self._eof:
                        raise EOFError("end of stream")
                    self._fill()
                    continue
            end = self._scan()
            if end < 0:
                if self._pos - self._start > max_size and not self._discard:
                    self._discard = True
                    raise DecodeError(ERR_OBJECT_TOO_LARGE)
                if self._eof:
                    # Go reports a fault before the end ahead of io.ErrUnexpectedEOF.
                    # (A value too large to keep has lost its beginning: EOF it is.)
                    start = self._start
                    err = None if self._discard else gojson.prefix_error(self._buf[start:])
                    raise self._fail(err, start)
                self._fill()
                continue
            self._kind = 0
            start = self._start
            if self._discard:
                self._discard = False
                continue
            if end - start > max_size:
                raise DecodeError(ERR_OBJECT_TOO_LARGE)
            # One copy (slicing the bytearray first would make two); the view is released
            # before the buffer is resized again.
            with memoryview(self._buf) as view:
                return view[start:end].tobytes()

    def close(self) -> None:
        """Close the underlying stream."""
        _close(self._stream)


class PassThroughFrameWriter:
    """Writes data unchanged: JSON values frame themselves."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        """Write ``data`` as is; returns ``len(data)``."""
        self._stream.write(data)
        return len(data)

    def flush(self) -> None:
        """Flush the underlying stream when it buffers."""
        flush = getattr(self._stream, "flush", None)
        if flush is not None:
            flush()


class JSONFramer:
    """Framer for JSON streams: values are self-delimiting."""

    def new_frame_reader(self, stream: BinaryIO) -> JSONFrameReader:
        """A reader that returns one top-level JSON value per frame."""
        return JSONFrameReader(stream)

    def new_frame_writer(self, stream: BinaryIO) -> PassThroughFrameWriter:
        """A writer that passes encoded objects through (each already ends in a newline)."""
        return PassThroughFrameWriter(stream)

    def __repr__(self) -> str:
        return "JSON_FRAMER"


# --------------------------------------------------------------------------------------
# YAML

_YAML_SEPARATOR = b"\n---"


def split_yaml_document(data: bytes | bytearray, at_eof: bool) -> tuple[int, bytes | None]:
    """One step of the YAML document splitter (Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go (splitYAMLDocument)): ``(advance, token)``.

    ``token`` is None when more data is needed (``advance`` is then 0). A chunk ends at the
    first ``\\n---``; the rest of that separator line is consumed and belongs to neither
    chunk. A ``---`` at byte 0 is not a separator (no newline before it).
    """
    if at_eof and not data:
        return 0, None
    i = data.find(_YAML_SEPARATOR)
    if i >= 0:
        after = i + 4
        if after == len(data):
            if at_eof:
                return len(data), bytes(data[:i])
            return 0, None
        j = data.find(b"\n", after)
        if j >= 0:
            return j + 1, bytes(data[:i])
        return 0, None
    if at_eof:
        return len(data), bytes(data)
    return 0, None


class YAMLDocumentReader(_WholeFrameReader):
    """Splits a stream into YAML document chunks as Go's ``yaml.NewDocumentDecoder``.

    Buffers at most :data:`MAX_YAML_DOCUMENT_SIZE` bytes of unsplit input; a chunk that
    needs more raises ``bufio.Scanner: token too long`` and ends the stream (later reads
    raise it again). As in Go, input left over at the end of the stream that the splitter
    cannot cut (a separator ``\\n---`` followed by text but no newline) is dropped.
    """

    def __init__(self, stream: BinaryIO, max_document_size: int = MAX_YAML_DOCUMENT_SIZE) -> None:
        super().__init__()
        self._stream = stream
        self._limit = max_document_size
        self._max_size = max_document_size
        self._buf = bytearray()
        self._start = 0
        self._eof = False
        self._done = False
        self._err: DecodeError | None = None
        self._search = 0  # where the separator search resumes

    def _split(self) -> tuple[int, bytes | None]:
        buf = self._buf
        start = self._start
        n = len(buf)
        if self._eof and start == n:
            return 0, None
        i = buf.find(_YAML_SEPARATOR, max(start, self._search))
        if i >= 0:
            self._search = i
            after = i + 4
            if after == n:
                if self._eof:
                    return n - start, bytes(buf[start:i])
                return 0, None
            j = buf.find(b"\n", after)
            if j >= 0:
                return j + 1 - start, bytes(buf[start:i])
            return 0, None
        self._search = max(start, n - 3)
        if self._eof:
            return n - start, bytes(buf[start:])
        return 0, None

    def _next_frame(self, max_size: int) -> bytes:
        if self._err is not None:
            raise self._err
        if self._done:
            raise EOFError("end of stream")
        while True:
            if len(self._buf) > self._start or self._eof:
                advance, token = self._split()
                if token is not None:
                    self._start += advance
                    self._search = self._start
                    if len(token) > max_size:
                        raise DecodeError(ERR_OBJECT_TOO_LARGE)
                    return token
            if self._eof:
                self._done = True
                self._buf = bytearray()
                raise EOFError("end of stream")
            if self._start:
                del self._buf[: self._start]
                self._search = max(0, self._search - self._start)
                self._start = 0
            room = self._limit - len(self._buf)
            if room <= 0:
                self._err = DecodeError("bufio.Scanner: token too long")
                raise self._err
            chunk = _read_some(self._stream, min(room, _CHUNK))
            if chunk:
                self._buf += chunk
            else:
                self._eof = True

    def close(self) -> None:
        """Close the underlying stream."""
        _close(self._stream)


class YAMLFrameWriter:
    """Writes ``---\\n`` before every document (the first one included)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        """Write the separator line, then ``data``; returns ``len(data)``."""
        self._stream.write(b"---\n")
        self._stream.write(data)
        return len(data)

    def flush(self) -> None:
        """Flush the underlying stream when it buffers."""
        flush = getattr(self._stream, "flush", None)
        if flush is not None:
            flush()


class YAMLFramer:
    """Framer for YAML streams: documents separated by ``---`` lines."""

    def new_frame_reader(self, stream: BinaryIO) -> YAMLDocumentReader:
        """A reader that returns one YAML document chunk per frame."""
        return YAMLDocumentReader(stream)

    def new_frame_writer(self, stream: BinaryIO) -> YAMLFrameWriter:
        """A writer that starts every document with ``---\\n``."""
        return YAMLFrameWriter(stream)

    def __repr__(self) -> str:
        return "YAML_FRAMER"


LENGTH_DELIMITED_FRAMER = LengthDelimitedFramer()
"""4-byte big-endian length-prefixed frames (protobuf streams)."""

JSON_FRAMER = JSONFramer()
"""Top-level JSON values; the writer passes data through."""

YAML_FRAMER = YAMLFramer()
"""``---``-separated YAML documents."""
