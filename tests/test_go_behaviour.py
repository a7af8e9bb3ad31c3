"""Go's exact behaviour where kcodec used to differ (issue 11, item 5).

Each case states an input and what Go apimachinery v0.36.3 (sigs.k8s.io/yaml over go-yaml
v2, sigs.k8s.io/json over encoding/json, gogo protobuf) does with it, found by a
differential run against Go and by reading upstream's rules.
"""
from __future__ import annotations

import pytest

from kcodec.errors import DecodeError


@pytest.fixture(scope="module")
def codecs():
    from kcodec.api import scheme
    from kcodec.serializer.json import Serializer as JSONSerializer
    from kcodec.serializer.protobuf import Serializer as ProtobufSerializer

    return {
        "json": JSONSerializer(scheme, scheme),
        "yaml": JSONSerializer(scheme, scheme, yaml=True),
        "pb": ProtobufSerializer(scheme, scheme),
    }


def _json_of(codecs, fmt: str, data: bytes) -> bytes:
    obj, _ = codecs[fmt].decode(data)
    return codecs["json"].encode(obj)


# ---------------------------------------------------------------------------------------
# YAML: go-yaml v2's scanner and parser


def test_yaml_backslash_apostrophe_is_an_apostrophe(codecs) -> None:
    from kcodec.goyaml import yaml_to_tree

    assert yaml_to_tree(b'a: "it\\\'s"\n') == {"a": "it's"}
    assert yaml_to_tree(b'a: "\\\'\\\'"\nb: "x\\\'"\n') == {"a": "''", "b": "x'"}
    # Outside double quotes a backslash is just a character.
    assert yaml_to_tree(b"a: 'it\\'\n") == {"a": "it\\"}
    out = _json_of(codecs, "yaml", b'apiVersion: v1\nkind: ConfigMap\ndata:\n  k: "it\\\'s"\n')
    assert b'"data":{"k":"it\'s"}' in out


@pytest.mark.parametrize("doc, want", [
    (b'k: "\\/x"\n', "yaml: found unknown escape character"),
    (b'a: 1\nk: "\\/x"\n', "yaml: line 2: found unknown escape character"),
    (b'a: 1\nk: "abc\n  d\\/x"\n', "yaml: line 3: found unknown escape character"),
    (b'a: "it\\\'s"\nk: "\\/"\n', "yaml: line 2: found unknown escape character"),
])
def test_yaml_backslash_slash_is_refused(doc: bytes, want: str) -> None:
    from kcodec.goyaml import yaml_to_tree

    with pytest.raises(DecodeError) as info:
        yaml_to_tree(doc)
    assert str(info.value) == want


def test_yaml_escaped_backslash_before_slash_is_fine() -> None:
    from kcodec.goyaml import yaml_to_tree

    assert yaml_to_tree(b'a: "\\\\/"\n') == {"a": "\\/"}


@pytest.mark.parametrize("doc, want", [
    (b"%YAML 1.2\n---\na: 1\n", "yaml: found incompatible YAML document"),
    (b"%YAML 1.0\n---\na: 1\n", "yaml: found incompatible YAML document"),
    (b"# c\n%YAML 1.2\n---\na: 1\n", "yaml: line 1: found incompatible YAML document"),
])
def test_yaml_directive_other_than_1_1_is_refused(doc: bytes, want: str, codecs) -> None:
    with pytest.raises(DecodeError) as info:
        codecs["yaml"].decode(doc)
    assert str(info.value) == want


def test_yaml_directive_1_1_is_read() -> None:
    from kcodec.goyaml import yaml_to_tree

    assert yaml_to_tree(b"%YAML 1.1\n---\na: 1\n") == {"a": 1}


def test_json_scanner_names_a_backslash_as_go_does() -> None:
    import io

    from kcodec.serializer.framing import JSONFrameReader

    reader = JSONFrameReader(io.BytesIO(b'{"a":1}\\'))
    assert reader.read_frame() == b'{"a":1}'
    with pytest.raises(DecodeError) as info:
        reader.read_frame()
    assert "invalid character '\\\\' looking for beginning of value" in str(info.value)
