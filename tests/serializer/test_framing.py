"""Framers: length-delimited, JSON and YAML (Go: k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (RecognizesData); k8s.io/apimachinery/pkg/util/yaml/decoder.go (splitYAMLDocument); k8s.io/apimachinery/pkg/util/framer/framer.go (lengthDelimitedFrameReader); k8s.io/apimachinery/pkg/util/framer/framer.go (jsonFrameReader))."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcodec import speedups
from kcodec.errors import DecodeError
from kcodec.serializer import framing
from kcodec.serializer.framing import (
    ERR_OBJECT_TOO_LARGE,
    JSON_FRAMER,
    LENGTH_DELIMITED_FRAMER,
    MAX_YAML_DOCUMENT_SIZE,
    YAML_FRAMER,
    split_yaml_document,
)

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "k8s-api-v0.36.3" / "HEAD"


class Trickle(io.RawIOBase):
    """A raw stream handing out at most ``step`` bytes per read, like a slow socket."""

    def __init__(self, data: bytes, step: int = 1) -> None:
        self._data = data
        self._pos = 0
        self._step = step

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = min(len(b), self._step, len(self._data) - self._pos)
        b[:n] = self._data[self._pos : self._pos + n]
        self._pos += n
        return n


def read_all_into(reader, size):
    """Go-style reads with a fixed buffer: [(bytes, short), ...] until EOF."""
    out = []
    buf = bytearray(size)
    while True:
        try:
            n, short = reader.readinto(buf)
        except EOFError:
            return out
        out.append((bytes(buf[:n]), short))


# ---------------------------------------------------------------------------- length-delimited


def test_length_delimited_writer():
    out = io.BytesIO()
    writer = LENGTH_DELIMITED_FRAMER.new_frame_writer(out)
    for frame in (b"\x01\x02\x03\x04", b"\x05\x06\x07", b"", b"\x08"):
        assert writer.write(frame) == len(frame)
    assert out.getvalue().hex() == "00000004010203040000000305060700000000" "0000000108"


STREAM = bytes.fromhex("000000040102030400000003050607000000000000000108")


def test_length_delimited_reader_small_buffer():
    reader = LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(STREAM))
    assert read_all_into(reader, 3) == [
        (b"\x01\x02\x03", True),
        (b"\x04", False),
        (b"\x05\x06\x07", False),
        (b"", False),
        (b"\x08", False),
    ]
    with pytest.raises(EOFError):
        reader.readinto(bytearray(3))


@pytest.mark.parametrize("stream", [lambda d: io.BytesIO(d), lambda d: Trickle(d, 1), lambda d: io.BufferedReader(Trickle(d, 2))])
def test_length_delimited_read_frame_and_iter(stream):
    assert list(LENGTH_DELIMITED_FRAMER.new_frame_reader(stream(STREAM))) == [
        b"\x01\x02\x03\x04",
        b"\x05\x06\x07",
        b"",
        b"\x08",
    ]


def test_length_delimited_mixed_reads():
    reader = LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(STREAM))
    assert reader.readinto(bytearray(1)) == (1, True)
    assert reader.read_frame() == b"\x02\x03\x04"  # the rest of the started frame
    assert reader.read_frame() == b"\x05\x06\x07"


def test_length_delimited_empty_stream():
    reader = LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(b""))
    with pytest.raises(EOFError):
        reader.read_frame()
    assert list(LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(b""))) == []


def test_length_delimited_truncated_body():
    # header says 4, only 2 body bytes: partial data then unexpected EOF
    reader = LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(b"\x00\x00\x00\x04\x01\x02"))
    buf = bytearray(10)
    with pytest.raises(DecodeError, match=r"^unexpected EOF$") as info:
        reader.readinto(buf)
    assert (info.value.n, info.value.offset) == (2, 6)
    assert buf[:2] == b"\x01\x02"
    reader = LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(b"\x00\x00\x00\x04\x01\x02"))
    with pytest.raises(DecodeError, match="unexpected EOF"):
        reader.read_frame()
    with pytest.raises(EOFError):
        reader.read_frame()


@pytest.mark.parametrize("header", [b"\x00", b"\x00\x00", b"\x00\x00\x00"])
def test_length_delimited_partial_header(header):
    reader = LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(STREAM[:4 + 4] + header))
    assert reader.read_frame() == b"\x01\x02\x03\x04"
    with pytest.raises(DecodeError, match=r"^unexpected EOF$") as info:
        reader.read_frame()
    assert info.value.offset == 8 + len(header)
    reader = LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(header))
    with pytest.raises(DecodeError, match="unexpected EOF"):
        reader.readinto(bytearray(4))


def test_length_delimited_huge_length_does_not_allocate():
    data = b"\xff\xff\xff\xff" + b"abc"
    reader = LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(data))
    with pytest.raises(DecodeError, match=ERR_OBJECT_TOO_LARGE):
        reader.read_frame()
    # skipping the announced 4 GiB body runs into the end of the stream
    with pytest.raises(DecodeError, match="unexpected EOF"):
        reader.read_frame()


def test_length_delimited_oversized_frame_is_skipped():
    out = io.BytesIO()
    writer = LENGTH_DELIMITED_FRAMER.new_frame_writer(out)
    writer.write(b"x" * 100)
    writer.write(b"ok")
    reader = LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(out.getvalue()))
    with pytest.raises(DecodeError, match=ERR_OBJECT_TOO_LARGE):
        reader.read_frame(max_size=99)
    assert reader.read_frame(max_size=99) == b"ok"


@given(st.lists(st.binary(max_size=300), max_size=8), st.integers(min_value=1, max_value=40))
@settings(max_examples=100, deadline=None)
def test_length_delimited_roundtrip(frames, bufsize):
    out = io.BytesIO()
    writer = LENGTH_DELIMITED_FRAMER.new_frame_writer(out)
    for frame in frames:
        writer.write(frame)
    assert list(LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(out.getvalue()))) == frames
    # reassembling Go-style short reads gives the same frames
    got, current = [], b""
    for chunk, short in read_all_into(LENGTH_DELIMITED_FRAMER.new_frame_reader(io.BytesIO(out.getvalue())), bufsize):
        current += chunk
        if not short:
            got.append(current)
            current = b""
    assert got == frames


def test_frame_reader_close_closes_stream():
    for framer in (LENGTH_DELIMITED_FRAMER, JSON_FRAMER, YAML_FRAMER):
        stream = io.BytesIO(b"")
        framer.new_frame_reader(stream).close()
        assert stream.closed


# ---------------------------------------------------------------------------- JSON


def test_json_frames():
    reader = JSON_FRAMER.new_frame_reader(io.BytesIO(b'{"test":true}\n1\n["a"]'))
    assert reader.read_frame() == b'{"test":true}'
    assert reader.read_frame() == b"1"
    assert reader.read_frame() == b'["a"]'
    with pytest.raises(EOFError):
        reader.read_frame()


def test_json_frames_small_buffer():
    reader = JSON_FRAMER.new_frame_reader(io.BytesIO(b'{"test":true}\n1\n["a"]'))
    assert read_all_into(reader, 3) == [
        (b'{"t', True),
        (b"est", True),
        (b'":t', True),
        (b"rue", True),
        (b"}", False),
        (b"1", False),
        (b'["a', True),
        (b'"]', False),
    ]


@pytest.mark.parametrize(
    "data, frames",
    [
        (b"", []),
        (b" \n\t\r ", []),
        (b"{}{}", [b"{}", b"{}"]),
        (b'{"1":2}{"3":4}', [b'{"1":2}', b'{"3":4}']),
        (b'  {"a": "}]{[\\"\\\\"} [1, [2, {}]]\n"s\\"}" null true false -1.5e+3 0',
         [b'{"a": "}]{[\\"\\\\"}', b"[1, [2, {}]]", b'"s\\"}"', b"null", b"true", b"false", b"-1.5e+3", b"0"]),
        (b'{"k":"\xe2\x82\xac"}\n', [b'{"k":"\xe2\x82\xac"}']),
    ],
)
def test_json_frame_splitting(data, frames):
    assert list(JSON_FRAMER.new_frame_reader(io.BytesIO(data))) == frames
    # one byte at a time exercises every resume point of the scanner
    assert list(JSON_FRAMER.new_frame_reader(Trickle(data, 1))) == frames


# Go's texts and offsets: encoding/json scanner.go (the texts, SyntaxError.Offset = bytes
# read through the offending one) as stream.go's Decoder.readValue runs it for
# k8s.io/apimachinery/pkg/util/framer/framer.go NewJSONFramedReader. ``good`` frames come
# first; readValue leaves the byte that ends a scalar for the next value, so a fault right
# after one is met at the beginning of the next.
@pytest.mark.parametrize(
    "data, pattern, offset, good",
    [
        (b"x", r"^invalid character 'x' looking for beginning of value$", 1, 0),
        (b'{"a":1} ]', r"^invalid character '\]' looking for beginning of value$", 9, 1),
        (b"[1}", r"^invalid character '\}' after array element$", 3, 0),
        (b"[}", r"^invalid character '\}' looking for beginning of value$", 2, 0),
        (b'{"a":[1,}]', r"^invalid character '\}' looking for beginning of value$", 9, 0),
        # the first fault wins, even before a bracket that does not match
        (b'{"a" 1]', r"^invalid character '1' after object key$", 6, 0),
        (b"1x", r"^invalid character 'x' looking for beginning of value$", 2, 1),
        (b"truex", r"^invalid character 'x' looking for beginning of value$", 5, 1),
        (b"trux", r"^invalid character 'x' in literal true \(expecting 'e'\)$", 4, 0),
        (b"nul1", r"^invalid character '1' in literal null \(expecting 'l'\)$", 4, 0),
        (b"-x", r"^invalid character 'x' in numeric literal$", 2, 0),
        (b"1.x", r"^invalid character 'x' after decimal point in numeric literal$", 3, 0),
        (b"1e+ ", r"^invalid character ' ' in exponent of numeric literal$", 4, 0),
        (b"1.5.3", r"^invalid character '\.' looking for beginning of value$", 4, 1),
        (b"[" * 10001, r"^invalid character '\[' exceeded max depth$", 10001, 0),
        (b"[" * 10000 + b"x" + b"[", r"^invalid character 'x' looking for beginning of value$", 10001, 0),
        # the end of the stream inside a value is io.ErrUnexpectedEOF (offset: where it ended)
        (b'{"a":', r"^unexpected EOF$", 5, 0),
        (b'"abc', r"^unexpected EOF$", 4, 0),
        (b"tru", r"^unexpected EOF$", 3, 0),
        (b"1 -", r"^unexpected EOF$", 3, 1),
        (b"1.", r"^unexpected EOF$", 2, 0),
        (b'["a\\', r"^unexpected EOF$", 4, 0),
        (b'["\x01', r"^invalid character '\\x01' in string literal$", 3, 0),
    ],
)
def test_json_malformed_ends_stream(data, pattern, offset, good):
    reader = JSON_FRAMER.new_frame_reader(io.BytesIO(data))
    for _ in range(good):
        reader.read_frame()
    # The stream offset is data on the error, not text (Go's json.SyntaxError.Offset).
    with pytest.raises(DecodeError, match=pattern) as info:
        reader.read_frame()
    assert info.value.offset == offset
    # the error is sticky, as Go's json.Decoder
    with pytest.raises(DecodeError, match=pattern):
        reader.read_frame()


@pytest.mark.parametrize(
    "data, frames",
    [
        # stream.go readValue: a value ends where the scanner says, not at whitespace
        (b"01", [b"0", b"1"]),
        (b'"a""b"', [b'"a"', b'"b"']),
        (b"truefalse", [b"true", b"false"]),
        (b"1-2", [b"1", b"-2"]),
        (b"[]{}7", [b"[]", b"{}", b"7"]),
        (b" 1.5e+3\n", [b"1.5e+3"]),
    ],
)
def test_json_values_end_where_go_scanner_ends_them(data, frames):
    assert list(JSON_FRAMER.new_frame_reader(io.BytesIO(data))) == frames
    assert list(JSON_FRAMER.new_frame_reader(Trickle(data, 1))) == frames


def test_json_fault_in_balanced_container_is_left_to_the_decoder():
    # The framer hands the value out; the JSON decoder reports Go's text (offset in the
    # frame) and the stream goes on.
    reader = JSON_FRAMER.new_frame_reader(io.BytesIO(b'{"a" 1}\n"a\x01"\n{"b":2}'))
    assert list(reader) == [b'{"a" 1}', b'"a\x01"', b'{"b":2}']


def test_json_depth_limit_ok():
    data = b"[" * 10000 + b"]" * 10000
    assert list(JSON_FRAMER.new_frame_reader(io.BytesIO(data))) == [data]


def test_json_oversized_value_is_skipped():
    big = b'{"a":"' + b"x" * 300_000 + b'"}'
    data = big + b'\n{"b":1}'
    for stream in (io.BytesIO(data), io.BufferedReader(Trickle(data, 7000))):
        reader = JSON_FRAMER.new_frame_reader(stream)
        with pytest.raises(DecodeError, match=ERR_OBJECT_TOO_LARGE):
            reader.read_frame(max_size=1000)
        assert reader.read_frame(max_size=1000) == b'{"b":1}'
        assert len(reader._buf) < 200_000  # the skipped value was not kept whole


@given(st.lists(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
), max_size=5), st.sampled_from(["", " ", "\n", "\r\n\t "]), st.integers(min_value=1, max_value=9))
@settings(max_examples=60, deadline=None)
def test_json_roundtrip(values, sep, step):
    texts = [json.dumps(v, ensure_ascii=False).encode() for v in values]
    data = (sep.encode() or b" ").join(texts) + sep.encode()
    frames = list(JSON_FRAMER.new_frame_reader(Trickle(data, step)))
    assert frames == texts
    assert [json.loads(f) for f in frames] == values


def test_json_fixture_stream():
    files = sorted(FIXTURES.glob("*.json")) if FIXTURES.is_dir() else []
    if not files:
        pytest.skip(f"Go fixtures not found at {FIXTURES}")
    docs = [f.read_bytes() for f in files]
    frames = list(JSON_FRAMER.new_frame_reader(io.BytesIO(b"".join(docs))))
    assert frames == [d.strip() for d in docs]


def test_json_writer_passes_through():
    out = io.BytesIO()
    writer = JSON_FRAMER.new_frame_writer(out)
    assert writer.write(b'{"a":1}\n') == 8
    writer.write(b'{"b":2}\n')
    assert out.getvalue() == b'{"a":1}\n{"b":2}\n'


# ---------------------------------------------------------------------------- YAML


@pytest.mark.parametrize(
    "data, at_eof, expected",
    [
        (b"foo", True, (3, b"foo")),
        (b"---", True, (3, b"---")),
        (b"---\n", True, (4, b"---\n")),
        (b"\n---\n", False, (5, b"")),
        (b"abc\n---\ndef", True, (8, b"abc")),
        (b"def", True, (3, b"def")),
        (b"fo", False, (0, None)),
        (b"", True, (0, None)),
        (b"abc\n---", False, (0, None)),
        (b"abc\n---", True, (7, b"abc")),
        (b"abc\n--- # c\nx", False, (12, b"abc")),
        (b"abc\n---x", False, (0, None)),
    ],
)
def test_yaml_splitter_table(data, at_eof, expected):
    assert split_yaml_document(data, at_eof) == expected


def test_yaml_reader_short_buffer():
    reader = YAML_FRAMER.new_frame_reader(io.BytesIO(b"---\nstuff: 1\n\ttest-foo: 1"))
    buf = bytearray(12)
    assert reader.readinto(buf) == (12, True)
    assert buf == b"---\nstuff: 1"
    buf = bytearray(13)
    assert reader.readinto(buf) == (13, False)
    assert buf == b"\n\ttest-foo: 1"
    with pytest.raises(EOFError):
        reader.readinto(buf)


@pytest.mark.parametrize(
    "data, docs",
    [
        (b"", []),
        (b"a: 1\n---\nb: 2\n", [b"a: 1", b"b: 2\n"]),
        (b"---\na: 1\n---\nb: 2\n", [b"---\na: 1", b"b: 2\n"]),
        (b"a: 1\n---   # comment\nb: 2", [b"a: 1", b"b: 2"]),
        (b"\n---\n\n---\n", [b"", b""]),
        (b"a\n---", [b"a"]),
        # Go's scanner gives up on a separator line cut off by the end of the stream
        (b"a\n---b", []),
        (b"x\n---\na\n---b", [b"x"]),
    ],
)
def test_yaml_reader_documents(data, docs):
    assert list(YAML_FRAMER.new_frame_reader(io.BytesIO(data))) == docs
    assert list(YAML_FRAMER.new_frame_reader(Trickle(data, 1))) == docs


def test_yaml_writer_prefixes_every_document():
    out = io.BytesIO()
    writer = YAML_FRAMER.new_frame_writer(out)
    writer.write(b"a: 1\n")
    writer.write(b"b: 2\n")
    assert out.getvalue() == b"---\na: 1\n---\nb: 2\n"
    # what the writer produces the reader splits back (the first chunk keeps its ---)
    assert list(YAML_FRAMER.new_frame_reader(io.BytesIO(out.getvalue()))) == [b"---\na: 1", b"b: 2\n"]


def test_yaml_token_too_long():
    big = b"a" * MAX_YAML_DOCUMENT_SIZE
    reader = YAML_FRAMER.new_frame_reader(io.BytesIO(b"x: 1\n---\n" + big + b"\n---\ny: 2\n"))
    assert reader.read_frame() == b"x: 1"
    with pytest.raises(DecodeError, match=r"^bufio.Scanner: token too long$"):
        reader.read_frame()
    with pytest.raises(DecodeError, match="token too long"):
        reader.read_frame()


def test_yaml_limit_boundary():
    # like Go's bufio.Scanner, a final chunk shorter than the limit fits; the limit itself does not
    limit = 64
    fits = framing.YAMLDocumentReader(io.BytesIO(b"a" * (limit - 1)), max_document_size=limit)
    assert fits.read_frame() == b"a" * (limit - 1)
    full = framing.YAMLDocumentReader(io.BytesIO(b"a" * limit), max_document_size=limit)
    with pytest.raises(DecodeError, match="token too long"):
        full.read_frame()
    # a separator line must end within the limit too
    doc = b"a" * 10 + b"\n---\n"
    ok = framing.YAMLDocumentReader(io.BytesIO(doc + b"b"), max_document_size=len(doc))
    assert list(ok) == [b"a" * 10, b"b"]


def test_yaml_fixture_documents():
    files = sorted(FIXTURES.glob("*.yaml"))[:40] if FIXTURES.is_dir() else []
    if not files:
        pytest.skip(f"Go fixtures not found at {FIXTURES}")
    out = io.BytesIO()
    writer = YAML_FRAMER.new_frame_writer(out)
    for f in files:
        writer.write(f.read_bytes())
    chunks = list(YAML_FRAMER.new_frame_reader(io.BytesIO(out.getvalue())))
    expected = [f.read_bytes() for f in files]
    assert chunks[0] == b"---\n" + expected[0][:-1]
    assert chunks[1:-1] == [d[:-1] for d in expected[1:-1]]
    assert chunks[-1] == expected[-1]


_SCAN_TEXT = st.text(alphabet='{}[]"\\ab ,:', max_size=80).map(str.encode)


@pytest.mark.skipif(not speedups.available(), reason="the compiled kernels are not built")
@settings(max_examples=400, deadline=None)
@given(_SCAN_TEXT, st.data())
def test_json_container_scan_twins_agree(text: bytes, data: st.DataObject) -> None:
    """The JSON frame reader's inner scan: compiled and pure twins give the same status,
    position, string state and bracket stack on any buffer, from any resume point."""
    from kcodec import _native, _speedups

    string_only = data.draw(st.booleans())
    stack = bytes(data.draw(st.lists(st.sampled_from([0x7D, 0x5D]), min_size=0 if string_only else 1,
                                     max_size=5)))
    pos = data.draw(st.integers(0, len(text)))
    in_str = string_only or data.draw(st.booleans())
    depth = data.draw(st.integers(len(stack), len(stack) + 3))
    out = []
    for kernel in (_native, _speedups):
        s = bytearray(stack)
        out.append((kernel.json_container_scan(bytearray(text), pos, s, in_str, string_only, depth), bytes(s)))
    assert out[0] == out[1]


# Long enough for the compiled scan's 64-byte blocks, with runs of backslashes and
# quotes cut at any block edge and deep nesting (its first stack buffer holds 64).
_BLOCK_TEXT = st.lists(
    st.sampled_from([b"{", b"}", b"[", b"]", b'"', b"\\", b"a", b" ", b":", b",",
                     b'"abcdefghijklmnopqrstuvwxyz0123456789"', b"\\\\\\", b"[" * 70,
                     b'"[{\\"}]"', b"{}" * 20]),
    max_size=60,
).map(b"".join)


@pytest.mark.skipif(not speedups.available(), reason="the compiled kernels are not built")
@settings(max_examples=400, deadline=None)
@given(_BLOCK_TEXT, st.data())
def test_json_container_scan_twins_agree_on_long_buffers(text: bytes, data: st.DataObject) -> None:
    """The compiled scan's block path gives the pure twin's answer on buffers of many
    64-byte blocks, from any resume point, at any depth limit."""
    from kcodec import _native, _speedups

    stack = bytes(data.draw(st.lists(st.sampled_from([0x7D, 0x5D]), min_size=1, max_size=5)))
    pos = data.draw(st.integers(0, len(text)))
    in_str = data.draw(st.booleans())
    depth = data.draw(st.sampled_from([len(stack), len(stack) + 3, 70, 200, 1000]))
    out = []
    for kernel in (_native, _speedups):
        s = bytearray(stack)
        out.append((kernel.json_container_scan(bytearray(text), pos, s, in_str, False, depth), bytes(s)))
    assert out[0] == out[1]


def test_json_container_scan_block_edges() -> None:
    """Escapes and closing brackets on the compiled scan's 64-byte block edges."""
    from kcodec import _native, _speedups

    cases = []
    for k in range(56, 72):
        cases.append(b'{"' + b"a" * k + b'\\"' + b"b" * 70 + b'"}')
        cases.append(b'{"' + b"a" * k + b'\\\\"' + b'}' + b" " * 70)
        cases.append(b"[" * k + b"]" * k + b" " * 64)
        cases.append(b'{"a":' + b"x" * k + b'\\"}' + b"]" * 70)
    for text in cases:
        for in_str in (False, True):
            got = []
            for kernel in (_native, _speedups) if speedups.available() else (_native,):
                s = bytearray(b"}")
                got.append((kernel.json_container_scan(bytearray(text), 1, s, in_str, False, 1000),
                            bytes(s)))
            assert got[0] == got[-1], (text, in_str)


def test_json_frames_across_reads_and_deep_stacks() -> None:
    """Values split across many small reads, escapes cut at a read boundary and nesting
    deeper than the scan's first stack buffer frame the same in both modes."""
    deep = b"[" * 300 + b'"x\\"y"' + b"]" * 300
    doc = b'{"a":"b\\\\","c":[1,{"d":"}"}]} ' + deep + b' "s\\"t" 12'
    class Trickle(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self.data, self.pos = data, 0

        def readable(self) -> bool:
            return True

        def readinto(self, b: bytearray) -> int:
            n = min(3, len(b), len(self.data) - self.pos)
            b[:n] = self.data[self.pos:self.pos + n]
            self.pos += n
            return n

    frames = list(JSON_FRAMER.new_frame_reader(Trickle(doc)))
    assert frames == [b'{"a":"b\\\\","c":[1,{"d":"}"}]}', deep, b'"s\\"t"', b"12"]
