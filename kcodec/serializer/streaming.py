"""Object streams over a framer (Go: k8s.io/apimachinery/pkg/runtime/serializer/streaming/streaming.go): many encoded objects on one byte stream.

:class:`StreamDecoder` reads one frame at a time and hands it to a decoder (anything with
``decode(data, defaults=None, into=None) -> (obj, gvk)``); :class:`StreamEncoder` encodes
each object and writes it as one frame. Use the framers of
:mod:`kcodec.serializer.framing`: JSON values, ``---`` YAML documents, or 4-byte length
prefixed protobuf (with the raw protobuf serializer, Go: k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go (RawSerializer)).

    decoder = StreamDecoder(sock.makefile("rb"), LENGTH_DELIMITED_FRAMER, raw_serializer)
    for obj, gvk in decoder:
        ...
"""
from __future__ import annotations

from types import TracebackType
from typing import Any, BinaryIO, Iterator

from kcodec.errors import KCodecError, NotRegisteredError
from kcodec.runtime.interfaces import MAX_FRAME_SIZE, Decoder, Encoder, FrameReader, Framer

__all__ = ["StreamDecoder", "StreamEncoder", "MAX_FRAME_SIZE"]


class StreamDecoder:
    """Decodes successive objects from the frames of ``stream``.

    ``decode()`` returns the next ``(obj, gvk)`` and raises :class:`EOFError` at the end of
    the stream; iterating yields ``(obj, gvk)`` pairs lazily until the end. A frame longer
    than ``max_frame_size`` (16 MiB) raises :class:`~kcodec.errors.DecodeError` ``object
    to decode was longer than maximum allowed size`` and is skipped: the next call decodes
    the following frame. Errors of the wrapped decoder propagate unchanged, and a zero
    length frame is passed to it as ``b""``.

    A frame whose kind the decoder does not know (``NotRegisteredError``) is decoded again
    into an :class:`~kcodec.runtime.Unstructured`, as kubectl reads manifests of kinds it has
    no types for, so one unknown kind does not end the stream; ``unknown_as_unstructured=
    False`` raises the error instead (Go's watch decoder). A decoder that cannot fill an
    Unstructured (protobuf) raises the original error.
    """

    def __init__(
        self,
        stream: BinaryIO,
        framer: Framer,
        decoder: Decoder,
        *,
        max_frame_size: int = MAX_FRAME_SIZE,
        unknown_as_unstructured: bool = True,
    ) -> None:
        reader = framer.new_frame_reader(stream)
        if not isinstance(reader, FrameReader):
            raise TypeError(
                f"{framer!r}.new_frame_reader returned {type(reader).__name__}, which does not keep "
                "the kcodec.runtime.interfaces.FrameReader contract (read_frame, close)"
            )
        self._reader = reader
        self._unknown_as_unstructured = unknown_as_unstructured
        self._decoder = decoder
        self._max = max_frame_size

    def next_frame(self) -> bytes:
        """The next raw frame, undecoded (EOFError at the end of the stream)."""
        return self._reader.read_frame(self._max)

    def decode(self, defaults: Any = None, into: Any = None) -> tuple[Any, Any]:
        """Decode the next object: ``(obj, gvk)``; :class:`EOFError` at the end."""
        frame = self.next_frame()
        return self._decode_frame(frame, defaults, into)

    def _decode_frame(self, frame: bytes, defaults: Any, into: Any) -> tuple[Any, Any]:
        try:
            return self._decoder.decode(frame, defaults, into)
        except NotRegisteredError as err:
            if not self._unknown_as_unstructured or into is not None:
                raise
            from kcodec.runtime import Unstructured

            try:
                return self._decoder.decode(frame, defaults, Unstructured())
            except KCodecError:
                raise err from None

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        return self

    def __next__(self) -> tuple[Any, Any]:
        try:
            frame = self.next_frame()
        except EOFError:
            raise StopIteration from None
        return self._decode_frame(frame, None, None)

    def close(self) -> None:
        """Close the frame reader and its stream."""
        close = getattr(self._reader, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> StreamDecoder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class StreamEncoder:
    """Encodes objects onto ``stream``, one framed write per object.

    The stream stays the caller's: leaving a ``with StreamEncoder(...)`` block flushes it and
    leaves it open (Go's streaming encoder has no Close at all), so a socket or
    ``sys.stdout.buffer`` can be written on afterwards; :meth:`close` closes it explicitly.
    """

    def __init__(self, stream: BinaryIO, framer: Framer, encoder: Encoder) -> None:
        self._stream = stream
        self._writer = framer.new_frame_writer(stream)
        self._encoder = encoder

    def encode(self, obj: Any) -> None:
        """Encode ``obj`` completely, then write it as one frame.

        An encoding error leaves the stream untouched.
        """
        data = self._encoder.encode(obj)
        self._writer.write(data)

    def flush(self) -> None:
        """Flush the underlying stream (for buffered files and sockets)."""
        flush = getattr(self._stream, "flush", None)
        if flush is not None:
            flush()

    def close(self) -> None:
        """Flush and close the underlying stream."""
        self.flush()
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> StreamEncoder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # The encoder did not open the stream, so it does not close it.
        self.flush()
