"""util/yaml behaviour of kcodec.yamlutil (Go: k8s.io/apimachinery/pkg/util/yaml/decoder.go (IsJSONBuffer); k8s.io/apimachinery/pkg/util/yaml/decoder.go; k8s.io/apimachinery/pkg/util/yaml/decoder.go (YAMLReader); k8s.io/apimachinery/pkg/util/yaml/decoder.go (YAMLOrJSONDecoder))."""
from __future__ import annotations

import io
import json

import pytest

from kcodec.errors import DecodeError
from kcodec.yamlutil import (
    JSONSyntaxError,
    YAMLOrJSONDecoder,
    YAMLReader,
    YAMLSyntaxError,
    YAMLToJSONDecoder,
    is_json_buffer,
    to_json,
)


@pytest.mark.parametrize("data, expected", [
    (b" \n{}", True), (b"{", True), (b"\t\r\n {\"a\":1}", True), (b"\xc2\xa0{", True),
    (b"[1]", False), (b"", False), (b"a: b", False), (b"  x{", False),
])
def test_is_json_buffer(data: bytes, expected: bool) -> None:
    assert is_json_buffer(data) is expected


def test_to_json() -> None:
    assert to_json(b' {"x": 1}') == b' {"x": 1}'  # JSON passes through untouched
    out = to_json(b"b: [x, 1.5, 1e21, 0.0000001]\na: 1\n'<': '&'\n")
    assert out == b'{"\\u003c":"\\u0026","a":1,"b":["x",1.5,1e+21,1e-7]}'
    assert json.loads(to_json(b"replicas: 1")) == {"replicas": 1}
    assert to_json(b"- 1\n- 2") == b"[1,2]"
    with pytest.raises(DecodeError, match="yaml: "):
        to_json(b"a: b: c")


def _all(decoder: object) -> list[object]:
    return list(decoder)  # type: ignore[call-overload]


def test_yaml_reader_documents() -> None:
    r = YAMLReader(io.BytesIO(b"---\nstuff: 1\n\n---   \n  \r\n---\n---\nlast"))
    # A separator met with an empty buffer stays in the document, as in Go.
    assert r.read() == b"---\nstuff: 1\n\n"
    assert r.read() == b"  \n"
    assert r.read() == b"---\nlast\n"
    with pytest.raises(EOFError):
        r.read()


def test_yaml_to_json_decoder() -> None:
    d = YAMLToJSONDecoder(io.BytesIO(b"---\nstuff: 1\n\n---   \n  "))
    assert d.decode() == {"stuff": 1}
    assert d.decode() is None  # whitespace-only document: JSON null, an untouched {} in Go
    with pytest.raises(EOFError):
        d.decode()


def test_separator_validation() -> None:
    d = YAMLToJSONDecoder(io.BytesIO(
        b"---\nstuff: 1\n---    # Make sure termination happen with inline comment\nstuff: 2\n---\nstuff: 3\n"
        b"--- Make sure uncommented content results YAMLSyntaxError\n\n "))
    assert d.decode() == {"stuff": 1}
    assert d.decode() == {"stuff": 2}
    with pytest.raises(YAMLSyntaxError) as info:
        d.decode()
    assert str(info.value) == "invalid Yaml document separator: Make sure uncommented content results YAMLSyntaxError"


def test_broken_yaml_is_yaml_syntax_error() -> None:
    d = YAMLOrJSONDecoder(io.BytesIO(b"---\nstuff: 1\n\t\ttest-foo: 1\n\n---\n  "), 100)
    with pytest.raises(YAMLSyntaxError) as info:
        d.decode()
    assert "yaml: line 3:" in str(info.value)


def test_broken_json_is_json_syntax_error() -> None:
    d = YAMLOrJSONDecoder(io.BytesIO(b'{\n\t"foo": {\n\t\t"stuff": 1\n\t\t"otherStuff": 2\n\t}\n}\n  '), 100)
    with pytest.raises(JSONSyntaxError) as info:
        d.decode()
    assert str(info.value) == "json: offset 28: invalid character '\"' after object key:value pair"
    assert info.value.offset == 28


@pytest.mark.parametrize("data, peek, is_json, objs, err", [
    (' {"1":2}{"3":4}', 2, True, [{"1": 2}, {"3": 4}], None),
    (" \n{}", 3, True, [{}], None),
    (" \na: b", 2, False, [{"a": "b"}], None),
    (' \n{"a": "b"}', 2, False, [{"a": "b"}], None),
    (' \n{"a": "b"}', 3, True, [{"a": "b"}], None),
    ('   {"a":"b"}', 100, True, [{"a": "b"}], None),
    ("", 1, False, [], None),
    ("foo: bar\n---\nbaz: biz", 100, False, [{"foo": "bar"}, {"baz": "biz"}], None),
    ("---\nfoo: bar\n--- # with Comment\nbaz: biz", 100, False, [{"foo": "bar"}, {"baz": "biz"}], None),
    ("foo:\n  field: bar\n---\nbaz:\n  field: biz", 100, False, [{"foo": {"field": "bar"}}, {"baz": {"field": "biz"}}], None),
    ("foo: bar\n---\n", 100, False, [{"foo": "bar"}], None),
    ("foo: bar\n---", 100, False, [{"foo": "bar"}], None),
    ("foo: bar\n--", 100, False, [], "yaml: line 3: could not find expected ':'"),
    ("foo: bar\n-", 100, False, [], "yaml: line 1: did not find expected key"),
    ('{"foo": "bar"}\n---\n{baz: biz}', 100, False, [{"foo": "bar"}, {"baz": "biz"}], None),
    ('{"foo": "bar"}\n---\na: b', 100, False, [{"foo": "bar"}, {"a": "b"}], None),
    ('{"foo": "bar"}    \n---\na: b', 100, False, [{"foo": "bar"}, {"a": "b"}], None),
    ('{"foo": "bar"}\n---\n{baz: biz0123456780123456780123456780123456780123456789}', 20, False,
     [{"foo": "bar"}, {"baz": "biz0123456780123456780123456780123456780123456789"}], None),
    ('{"foo": "bar"}    \n---\n{baz: biz}', 100, False, [{"foo": "bar"}, {"baz": "biz"}], None),
    ('{foo: bar}\n---\n{"baz": "biz"}', 100, False, [{"foo": "bar"}, {"baz": "biz"}], None),
    ('{\n  "foo": "bar"\n}\n---\n{\n  baz: biz\n}', 100, False, [{"foo": "bar"}, {"baz": "biz"}], None),
    ('{\n\t"foo": "bar"\n}\n---\n{\n\tbaz: biz\n}', 100, False, [{"foo": "bar"}, {"baz": "biz"}], None),
    # after two JSON objects the stream stays JSON and the raw JSON error is returned
    ('{"foo": "bar"}\n{"baz": "biz"}\n---\n{qux: zrb}', 100, True, [{"foo": "bar"}, {"baz": "biz"}],
     "invalid character '-' in numeric literal"),
    ('{"a": 1, "b": [1.5, 12345678901234567890]}', 100, True, [{"a": 1, "b": [1.5, 12345678901234567890.0]}], None),
])
def test_yaml_or_json_decoder(data: str, peek: int, is_json: bool, objs: list, err: str | None) -> None:
    d = YAMLOrJSONDecoder(io.BytesIO(data.encode()), peek)
    got = []
    if err is None:
        got = _all(d)
    else:
        with pytest.raises(DecodeError) as info:
            while True:
                got.append(d.decode())
        assert str(info.value) == err
    assert got == objs
    assert d.is_json is is_json


def test_json_value_split_across_reads() -> None:
    class Trickle(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self.data = data

        def read(self, n: int = -1) -> bytes:
            chunk, self.data = self.data[:3], self.data[3:]
            return chunk

    d = YAMLOrJSONDecoder(Trickle(b'{"a": [1, 2, {"b": "c\\"d"}]} 12 {"e": true}'), 4)
    assert _all(d) == [{"a": [1, 2, {"b": 'c"d'}]}, 12, {"e": True}]


def test_truncated_json_falls_back_to_yaml_error() -> None:
    d = YAMLOrJSONDecoder(b'{"a": ', 100)
    with pytest.raises(DecodeError, match="unexpected EOF"):
        d.decode()
