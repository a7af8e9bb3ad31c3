"""streaming.StreamDecoder / StreamEncoder (Go: k8s.io/apimachinery/pkg/runtime/serializer/streaming/streaming.go)."""
from __future__ import annotations

import io
import json

import pytest

from kcodec.errors import DecodeError, EncodeError
from kcodec.serializer.framing import (
    ERR_OBJECT_TOO_LARGE,
    JSON_FRAMER,
    LENGTH_DELIMITED_FRAMER,
    MAX_FRAME_SIZE,
    YAML_FRAMER,
)
from kcodec.runtime import DEFAULT_FRAMER
from kcodec.serializer.streaming import StreamDecoder, StreamEncoder


class FakeDecoder:
    """Records what it is given; the "object" is the frame itself."""

    def __init__(self) -> None:
        self.calls = []

    def decode(self, data, defaults=None, into=None):
        self.calls.append((len(data), defaults, into))
        if data == b"bad":
            raise DecodeError("bad frame")
        return data, defaults


class FakeEncoder:
    def encode(self, obj, stream=None):
        if obj is None:
            raise EncodeError("cannot encode None")
        data = json.dumps(obj, separators=(",", ":")).encode() + b"\n"
        if stream is not None:
            stream.write(data)
        return data

    def identifier(self):
        return "fake"


class CountingStream(io.BytesIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, b):
        self.writes += 1
        return super().write(b)


def framed(*frames: bytes) -> bytes:
    out = io.BytesIO()
    writer = LENGTH_DELIMITED_FRAMER.new_frame_writer(out)
    for frame in frames:
        writer.write(frame)
    return out.getvalue()


@pytest.mark.parametrize("framer", [LENGTH_DELIMITED_FRAMER, DEFAULT_FRAMER], ids=["length-delimited", "default"])
def test_empty_stream_is_eof(framer):
    decoder = StreamDecoder(io.BytesIO(b""), framer, FakeDecoder())
    with pytest.raises(EOFError):
        decoder.decode()
    assert list(StreamDecoder(io.BytesIO(b""), framer, FakeDecoder())) == []


def test_frames_of_various_sizes(framer=LENGTH_DELIMITED_FRAMER):
    frames = [b"a" * 1025, b"b" * 5 * 1024, b"", b"c"]
    inner = FakeDecoder()
    decoder = StreamDecoder(io.BytesIO(framed(*frames)), framer, inner)
    assert decoder.decode("defaults", "into") == (frames[0], "defaults")
    assert inner.calls[0] == (1025, "defaults", "into")
    assert [obj for obj, _ in decoder] == frames[1:]
    # a zero-length frame reaches the inner decoder as empty input
    assert inner.calls[2][0] == 0
    with pytest.raises(EOFError):
        decoder.decode()


def test_oversized_frame_is_skipped(framer=LENGTH_DELIMITED_FRAMER):
    big = b"x" * (MAX_FRAME_SIZE + 1024 * 1024)  # 17 MiB
    limit = b"y" * MAX_FRAME_SIZE  # exactly the limit is accepted
    data = framed(b"first", big, b"next", limit)
    decoder = StreamDecoder(io.BytesIO(data), framer, FakeDecoder())
    assert decoder.decode()[0] == b"first"
    with pytest.raises(DecodeError) as info:
        decoder.decode()
    assert str(info.value) == ERR_OBJECT_TOO_LARGE
    assert decoder.decode()[0] == b"next"
    assert len(decoder.decode()[0]) == MAX_FRAME_SIZE
    with pytest.raises(EOFError):
        decoder.decode()


def test_max_frame_size_option():
    data = framed(b"12345", b"123")
    decoder = StreamDecoder(io.BytesIO(data), LENGTH_DELIMITED_FRAMER, FakeDecoder(), max_frame_size=4)
    with pytest.raises(DecodeError, match=ERR_OBJECT_TOO_LARGE):
        next(decoder)
    assert next(decoder)[0] == b"123"


def test_inner_errors_propagate_and_stream_goes_on():
    decoder = StreamDecoder(io.BytesIO(framed(b"bad", b"good")), LENGTH_DELIMITED_FRAMER, FakeDecoder())
    with pytest.raises(DecodeError, match="bad frame"):
        decoder.decode()
    assert decoder.decode()[0] == b"good"


def test_truncated_stream_raises_unexpected_eof():
    decoder = StreamDecoder(io.BytesIO(framed(b"abcd")[:-2]), LENGTH_DELIMITED_FRAMER, FakeDecoder())
    with pytest.raises(DecodeError, match="unexpected EOF"):
        decoder.decode()


def test_json_framer_errors_pass_through_unwrapped():
    # Go's streaming.go Decode returns the frame reader's error as it is (no wrapping), and
    # the framer's are encoding/json's scanner texts with the stream offset.
    decoder = StreamDecoder(io.BytesIO(b'{"a":1}\n{"a":[1}]'), JSON_FRAMER, FakeDecoder())
    assert decoder.decode()[0] == b'{"a":1}'
    with pytest.raises(DecodeError, match=r"^invalid character '\}' after array element$") as info:
        decoder.decode()
    assert info.value.offset == 16
    with pytest.raises(DecodeError, match=r"^invalid character '\}' after array element$"):
        decoder.decode()


def test_frame_reader_outside_the_contract_is_refused():
    class GoReadOnly:  # Go's io.Reader shape, without the read_frame contract
        def readinto(self, buf):
            return 0, True

    class OldFramer:
        def new_frame_reader(self, stream):
            return GoReadOnly()

    with pytest.raises(TypeError, match="kcodec.runtime.interfaces.FrameReader"):
        StreamDecoder(io.BytesIO(b""), OldFramer(), FakeDecoder())


def test_json_and_yaml_streams():
    decoder = StreamDecoder(io.BytesIO(b'{"a":1}\n{"b":2}\n'), JSON_FRAMER, FakeDecoder())
    assert [obj for obj, _ in decoder] == [b'{"a":1}', b'{"b":2}']
    decoder = StreamDecoder(io.BytesIO(b"---\na: 1\n---\nb: 2\n"), YAML_FRAMER, FakeDecoder())
    assert [obj for obj, _ in decoder] == [b"---\na: 1", b"b: 2\n"]


@pytest.mark.parametrize(
    "framer, expected",
    [
        (JSON_FRAMER, b'{"a":1}\n[2]\n'),
        (YAML_FRAMER, b'---\n{"a":1}\n---\n[2]\n'),
        (LENGTH_DELIMITED_FRAMER, b'\x00\x00\x00\x08{"a":1}\n\x00\x00\x00\x04[2]\n'),
    ],
)
def test_encoder_writes_framed_objects(framer, expected):
    out = io.BytesIO()
    encoder = StreamEncoder(out, framer, FakeEncoder())
    encoder.encode({"a": 1})
    encoder.encode([2])
    assert out.getvalue() == expected


def test_encoder_error_writes_nothing():
    out = CountingStream()
    encoder = StreamEncoder(out, JSON_FRAMER, FakeEncoder())
    with pytest.raises(EncodeError):
        encoder.encode(None)
    assert out.writes == 0
    encoder.encode(1)
    assert out.writes == 1  # one write per object through a pass-through framer


def test_encode_then_decode_roundtrip():
    out = io.BytesIO()
    with StreamEncoder(io.BufferedWriter(_Keep(out)), LENGTH_DELIMITED_FRAMER, FakeEncoder()) as encoder:
        for i in range(50):
            encoder.encode({"i": i})
    data = out.getvalue()
    with StreamDecoder(io.BytesIO(data), LENGTH_DELIMITED_FRAMER, FakeDecoder()) as decoder:
        assert [json.loads(obj) for obj, _ in decoder] == [{"i": i} for i in range(50)]


class _Keep(io.RawIOBase):
    """A raw sink that survives close() of the buffered writer around it."""

    def __init__(self, target: io.BytesIO) -> None:
        self._target = target

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        return self._target.write(bytes(b))


def test_stream_decoder_over_default_framer():
    """runtime.DEFAULT_FRAMER keeps the one frame-reader contract (chunks, EOFError at the end)."""
    decoder = StreamDecoder(io.BytesIO(b"abc"), DEFAULT_FRAMER, FakeDecoder())
    assert decoder.decode()[0] == b"abc"
    with pytest.raises(EOFError):
        decoder.decode()
