"""Go's exact behaviour where kcodec used to differ (each case names the Go source it follows).

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


# ---------------------------------------------------------------------------------------
# Protobuf: gogo's generated skipGenerated and Unmarshal prologue

# Field 99 start group { 1: varint 5, field 2 start group { 3: "hi", 4: fixed32 } end,
# 5: fixed64 } end group: proto2 groups no Kubernetes message has, which Go skips.
_GROUP = (
    b"\x9b\x06" + b"\x08\x05"
    + b"\x13" + b"\x1a\x02hi" + b"\x25\x01\x02\x03\x04" + b"\x14"
    + b"\x29" + bytes(8)
    + b"\x9c\x06"
)


def _pod_and_meta():
    from kcodec.api.core.v1 import Pod
    from kcodec.api.meta.v1 import ObjectMeta
    from kcodec.model import to_proto

    meta = ObjectMeta(name="p", namespace="n", labels={"a": "b"})
    pod = Pod(api_version="v1", kind="Pod", metadata=meta)
    return pod, to_proto(pod), to_proto(meta)


def _framed(number: int, body: bytes) -> bytes:
    from kcodec.wire import encode_varint

    return encode_varint(number << 3 | 2) + encode_varint(len(body)) + body


@pytest.mark.parametrize("group", [
    _GROUP,
    b"\xa3\x06\xa4\x06",                         # empty group, field 100
    b"\x9b\x06\x3c",                             # Go never compares the end group's number
    b"\x9b\x06\x03\x08\x01\x04\x9c\x06",         # field number 0 inside a group is not checked
    b"\x9b\x06" + b"\x13" * 40 + b"\x14" * 40 + b"\x9c\x06",   # deep nesting counts, no recursion
])
def test_protobuf_unknown_groups_are_skipped(group: bytes) -> None:
    from kcodec.api.core.v1 import Pod
    from kcodec.api.meta.v1 import ObjectMeta
    from kcodec.model import from_proto

    pod, body, meta_body = _pod_and_meta()
    pod = Pod(metadata=pod.metadata)  # a protobuf body carries no TypeMeta
    assert from_proto(Pod, body + group) == pod
    assert from_proto(Pod, group + body) == pod
    assert from_proto(ObjectMeta, meta_body + group) == pod.metadata
    # Inside a nested message and inside a map entry (labels, ObjectMeta field 11).
    nested = _framed(1, meta_body + group) + body[len(_framed(1, meta_body)):]
    assert from_proto(Pod, nested) == pod
    entry = _framed(11, b"\x0a\x01a" + group + b"\x12\x01b")
    assert from_proto(ObjectMeta, _framed(1, b"p") + entry).labels == {"a": "b"}


def test_protobuf_groups_through_the_serializer(codecs) -> None:
    from kcodec.wire import envelope_decode, envelope_encode

    pod, body, _ = _pod_and_meta()
    av, kind, raw, ce, ct = envelope_decode(codecs["pb"].encode(pod))
    data = envelope_encode(av, kind, raw + _GROUP, ce, ct)
    obj, _ = codecs["pb"].decode(data)
    assert obj == pod
    # A group among the envelope's own (runtime.Unknown) fields, and in its TypeMeta.
    data = envelope_encode(av, kind, raw, ce, ct) + _GROUP
    assert codecs["pb"].decode(data)[0] == pod
    tm = b"\x0a\x02v1" + _GROUP + b"\x12\x03Pod"
    data = b"k8s\x00" + _framed(1, tm) + _framed(2, body) + _GROUP
    assert codecs["pb"].decode(data)[0] == pod


@pytest.mark.parametrize("tail, want", [
    # An end group where no group is open: the message prologue refuses it first.
    (b"\x9c\x06", "proto: ObjectMeta: wiretype end group for non-group"),
    (b"\x0c", "proto: ObjectMeta: wiretype end group for non-group"),
    (b"\x04", "proto: ObjectMeta: wiretype end group for non-group"),
    # A group that never ends, or whose inner field runs past the message.
    (b"\x9b\x06\x08\x05", "unexpected EOF"),
    (b"\x9b\x06", "unexpected EOF"),
    (b"\x9b\x06\x29\x01", "unexpected EOF"),
    (b"\x9b\x06\x1a\x05hi", "unexpected EOF"),
    (b"\x9b\x06\x13\x14", "unexpected EOF"),
    (b"\x9b\x06\x1e\x9c\x06", "proto: illegal wireType 6"),
    (b"\x9b\x06\x1a" + b"\xff" * 9 + b"\x01", "proto: negative length found during unmarshaling"),
    (b"\x9b\x06\x08" + b"\xff" * 10 + b"\x01", "proto: integer overflow"),
    (b"\x9b\x06" + b"\xff" * 10 + b"\x01", "proto: integer overflow"),
    # An unknown field of wire type 6 or 7 outside a group.
    (b"\x9f\x06", "proto: illegal wireType 7"),
])
def test_protobuf_bad_groups_raise_go_text(tail: bytes, want: str) -> None:
    from kcodec.api.meta.v1 import ObjectMeta
    from kcodec.model import from_proto

    _, _, meta_body = _pod_and_meta()
    with pytest.raises(DecodeError) as info:
        from_proto(ObjectMeta, meta_body + tail)
    assert str(info.value) == want
    assert info.value.offset is not None and info.value.offset >= len(meta_body)


def test_protobuf_end_group_in_a_map_entry() -> None:
    # Map entries have no prologue check: their skip meets the end group.
    from kcodec.api.core.v1 import Pod
    from kcodec.model import from_proto

    entry = _framed(11, b"\x0a\x01a\x1c\x12\x01b")
    with pytest.raises(DecodeError) as info:
        from_proto(Pod, _framed(1, entry))
    assert str(info.value) == "proto: unexpected end of group"
    assert info.value.field_path.endswith("metadata.labels")


def test_protobuf_end_group_in_the_envelope(codecs) -> None:
    pod, body, _ = _pod_and_meta()
    with pytest.raises(DecodeError) as info:
        codecs["pb"].decode(b"k8s\x00" + _framed(2, body) + b"\x0c")
    assert str(info.value) == "proto: Unknown: wiretype end group for non-group"
    tm = b"\x0a\x02v1\x14"
    with pytest.raises(DecodeError) as info:
        codecs["pb"].decode(b"k8s\x00" + _framed(1, tm) + _framed(2, body))
    assert str(info.value) == "proto: TypeMeta: wiretype end group for non-group"


# ---------------------------------------------------------------------------------------
# []byte: encoding/json's base64.StdEncoding


@pytest.mark.parametrize("text, want", [
    ("Ag==\\n", b"\x02"),
    ("\\r\\nQUJD\\nRA=\\r\\n=\\n", b"ABCD"),   # CR and LF anywhere, padding split included
    ("QR==", b"A"),                           # StdEncoding is not Strict: unused bits ignored
    ("QUI=", b"AB"),
    ("", b""),
    ("\\n", b""),
])
def test_secret_base64_go_accepts(codecs, text: str, want: bytes) -> None:
    doc = b'{"apiVersion":"v1","kind":"Secret","data":{"k":"%s"}}' % text.encode()
    obj, _ = codecs["json"].decode(doc)
    assert obj.data == {"k": want}
    yobj, _ = codecs["yaml"].decode(b'apiVersion: v1\nkind: Secret\ndata:\n  k: "%s"\n' % text.encode())
    assert yobj.data == {"k": want}


@pytest.mark.parametrize("text, offset", [
    ("A", 0),            # a quantum cut short is corrupt at its start
    ("QUJDR", 4),
    ("QQ=", 3),          # one padding character where two are due: the end of the input
    ("QQ=x", 2),         # ... another byte instead of the second: Go names the byte before
    ("QQ==QQ==", 4),     # data after the padding
    ("QUJD=", 4),
    ("Q===", 1),
    ("QQ==\\nx", 5),
    ("QU!D", 2),
    ("\\u00e9QQ==", 0),  # offsets count UTF-8 bytes
    ("QQ\\u00e9==", 2),
])
def test_secret_base64_error_is_go_text(codecs, text: str, offset: int) -> None:
    doc = b'{"apiVersion":"v1","kind":"Secret","data":{"a":"QQ==","k":"%s"}}' % text.encode()
    with pytest.raises(DecodeError) as info:
        codecs["json"].decode(doc)
    assert str(info.value) == f"illegal base64 data at input byte {offset}"
    assert info.value.offset == offset
    assert info.value.field_path.endswith("data[k]")


def test_base64_rule_is_gos_on_random_input() -> None:
    # Every string over a small alphabet: the fast C decoder and Go's quantum walk agree.
    import itertools

    from kcodec.gojson import _b64_go, b64decode

    for n in range(7):
        for chars in itertools.product("AQ=\n!", repeat=n):
            data = "".join(chars).encode()
            out, offset = _b64_go(data)
            if offset is None:
                assert b64decode(data) == out
            else:
                with pytest.raises(DecodeError, match=f"^illegal base64 data at input byte {offset}$"):
                    b64decode(data)


# Every escape go-yaml v2's double-quoted scanner knows (scannerc.go, yaml_parser_scan_flow_scalar),
# and a few it does not (v3 added '\/'; v2 refuses it like any other unknown letter).
@pytest.mark.parametrize("escape, want", [
    ("\\0", "\x00"), ("\\a", "\x07"), ("\\b", "\x08"), ("\\t", "\t"), ("\\\t", "\t"),
    ("\\n", "\n"), ("\\v", "\x0b"), ("\\f", "\x0c"), ("\\r", "\r"), ("\\e", "\x1b"),
    ("\\ ", " "), ('\\"', '"'), ("\\'", "'"), ("\\\\", "\\"), ("\\N", "\x85"),
    ("\\_", "\xa0"), ("\\L", "\u2028"), ("\\P", "\u2029"), ("\\x41", "A"),
    ("\\u00e9", "\xe9"), ("\\U0001F600", "\U0001F600"),
    ("\\/", None), ("\\q", None), ("\\%", None), ("\\u", None),
])
def test_yaml_double_quoted_escapes(escape: str, want: str | None) -> None:
    from kcodec.goyaml import yaml_to_tree

    doc = b'a: 1\nk: "<' + escape.encode() + b'>"\n'
    if want is None:
        with pytest.raises(DecodeError) as info:
            yaml_to_tree(doc)
        assert str(info.value).startswith("yaml: line 2: ")
    else:
        assert yaml_to_tree(doc) == {"a": 1, "k": f"<{want}>"}


# ---------------------------------------------------------------------------------------
# Numbers: Go decodes from the literal's text, never from a float64 respelled


def _pod_json(spec: bytes) -> bytes:
    return b'{"apiVersion":"v1","kind":"Pod","spec":{' + spec + b"}}"


@pytest.mark.parametrize("literal", [
    "1e3", "1E+2", "1.50", "1e21", "9223372036854775808", "100", "0.1", "-1e-3", "12e-1",
])
def test_json_quantity_number_is_parsed_from_its_text(codecs, literal: str) -> None:
    # Quantity.UnmarshalJSON strips the quotes of a string and parses the rest: a number
    # and the same text quoted give the same Quantity ("1e3" stays "1e3").
    lit = literal.encode()
    as_number = _json_of(codecs, "json", _pod_json(b'"overhead":{"cpu":' + lit + b"}"))
    as_string = _json_of(codecs, "json", _pod_json(b'"overhead":{"cpu":"' + lit + b'"}'))
    assert as_number == as_string


def test_json_quantity_1e3_stays_1e3(codecs) -> None:
    out = _json_of(codecs, "json", _pod_json(b'"overhead":{"cpu":1e3,"memory":9223372036854775808}'))
    assert b'"overhead":{"cpu":"1e3","memory":"9223372036854775808"}' in out


@pytest.mark.parametrize("literal", ["1E+2", "1.0", "9223372036854775808", "-9223372036854775809", "1e3"])
def test_json_integer_field_names_the_literal(codecs, literal: str) -> None:
    with pytest.raises(DecodeError) as info:
        codecs["json"].decode(_pod_json(b'"activeDeadlineSeconds":' + literal.encode()))
    assert f"json: cannot unmarshal number {literal} into Go struct field " in str(info.value)
    assert str(info.value).endswith(" of type int64")


def test_json_intorstring_names_the_literal(codecs) -> None:
    doc = (b'{"apiVersion":"apps/v1","kind":"Deployment","spec":{"strategy":'
           b'{"rollingUpdate":{"maxSurge":1.50}}}}')
    with pytest.raises(DecodeError) as info:
        codecs["json"].decode(doc)
    # IntOrString.UnmarshalJSON's json.Unmarshal error, given the outer decoder's context.
    assert str(info.value) == ("json: cannot unmarshal number 1.50 into Go struct field "
                               "RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32")
    assert info.value.field_path == "spec.strategy.rollingUpdate.maxSurge"


def test_untyped_values_hold_float64(codecs) -> None:
    # interface{} keeps a float64: the literal is gone, re-encoding writes Go's float form.
    from kcodec.api.meta.unstructured import Unstructured

    obj, _ = codecs["json"].decode(b'{"apiVersion":"x/v1","kind":"K","a":1.50,"b":1e3}', into=Unstructured())
    assert type(obj.object["a"]) is float and type(obj.object["b"]) is float
    assert codecs["json"].encode(obj) == b'{"a":1.5,"apiVersion":"x/v1","b":1000,"kind":"K"}\n'


# YAML numbers: go-yaml v2 resolves an integer beyond int64 to uint64 if it fits, else to
# float64 (resolve.go); sigs.k8s.io/yaml then json.Marshals it, and the typed decode reads
# that JSON text.
def _pod_yaml(spec: bytes) -> bytes:
    return b"apiVersion: v1\nkind: Pod\nspec:\n" + spec


@pytest.mark.parametrize("literal, text", [
    # float64 -2^63, which encoding/json writes in its shortest form: beyond int64.
    ("-9223372036854775809", "-9223372036854776000"),
    ("9223372036854775808", "9223372036854775808"),     # uint64 keeps its digits
    ("18446744073709551616", "18446744073709552000"),   # beyond uint64: float64
    ("0x8000000000000000", "9223372036854775808"),
    ("1.5", "1.5"),
])
def test_yaml_integer_beyond_int64_is_refused(codecs, literal: str, text: str) -> None:
    with pytest.raises(DecodeError) as info:
        codecs["yaml"].decode(_pod_yaml(b"  activeDeadlineSeconds: " + literal.encode() + b"\n"))
    assert f"json: cannot unmarshal number {text} into Go struct field " in str(info.value)
    assert str(info.value).endswith(" of type int64")


@pytest.mark.parametrize("literal, value", [
    ("-9223372036854775808", -9223372036854775808),
    ("9223372036854775807", 9223372036854775807),
    ("2.0", 2),                                   # float64 2 is written 2
    ("123456789012345678.0", 123456789012345680),  # ... and this one in its shortest digits
    ("1e3", 1000),
])
def test_yaml_numbers_an_int64_field_takes(codecs, literal: str, value: int) -> None:
    obj, _ = codecs["yaml"].decode(_pod_yaml(b"  activeDeadlineSeconds: " + literal.encode() + b"\n"))
    assert obj.spec.active_deadline_seconds == value


@pytest.mark.parametrize("literal, want", [
    ("9223372036854775808", "9223372036854775808"),
    ("18446744073709551615", "18446744073709551615"),
    ("1e3", "1k"),          # float64 1000, written 1000
    ("1.5", "1500m"),
    ("0x10", "16"),
    ("1e21", "1e+21"),      # float64 written in exponent form, which ParseQuantity keeps
])
def test_yaml_quantity_number(codecs, literal: str, want: str) -> None:
    out = _json_of(codecs, "yaml", _pod_yaml(b"  overhead:\n    cpu: " + literal.encode() + b"\n"))
    assert b'"overhead":{"cpu":"' + want.encode() + b'"}' in out


def test_yaml_to_json_text_is_gos() -> None:
    from kcodec.goyaml import yaml_to_tree
    from kcodec.yamlutil import to_json

    doc = b"b: 9223372036854775808\na: -9223372036854775809\nc: 1.0\nd: 1e3\n"
    assert to_json(doc) == b'{"a":-9223372036854776000,"b":9223372036854775808,"c":1,"d":1000}'
    # The untyped tree is that text decoded again: beyond int64 is a float64.
    tree = yaml_to_tree(doc)
    assert tree == {"a": -9223372036854775808.0, "b": 9223372036854775808.0, "c": 1, "d": 1000}
    assert type(tree["a"]) is float and type(tree["b"]) is float


# ---------------------------------------------------------------------------------------
# A repeated JSON key: encoding/json decodes every value, in order, into the same target


@pytest.mark.parametrize("spec, want", [
    # struct: merged, the fields the second object leaves out are kept
    (b'"metadata":{"name":"a","namespace":"n"},"metadata":{"name":"b"}',
     b'"metadata":{"name":"b","namespace":"n"}'),
    # map: the existing map is kept and the keys added
    (b'"metadata":{"labels":{"a":"1","b":"2"},"labels":{"b":"3","c":"4"}}',
     b'"metadata":{"labels":{"a":"1","b":"3","c":"4"}}'),
    # pointer to struct: decoded into the existing one; null clears it
    (b'"spec":{"securityContext":{"runAsUser":1}},"spec":{"securityContext":{"runAsGroup":2}}',
     b'"securityContext":{"runAsUser":1,"runAsGroup":2}'),
    (b'"spec":{"securityContext":{"runAsUser":1},"securityContext":null}',
     b'"spec":{"containers":null},'),
    # slice: element i is decoded into element i, then the slice is cut to the new length
    (b'"spec":{"containers":[{"name":"a","image":"x"},{"name":"z"}]},"spec":{"containers":[{"name":"b"}]}',
     b'"containers":[{"name":"b","image":"x","resources":{}}]'),
    (b'"spec":{"containers":[{"name":"a"}],"containers":[]}', b'"containers":[]'),
    # map values are decoded fresh: the last one stands
    (b'"spec":{"nodeSelector":{"k":"1","k":"2"}}', b'"nodeSelector":{"k":"2"}'),
    # scalars: the last value; null leaves a non-pointer scalar as it was
    (b'"spec":{"restartPolicy":"Always","restartPolicy":"Never"}', b'"restartPolicy":"Never"'),
])
def test_json_repeated_key_merges(codecs, spec: bytes, want: bytes) -> None:
    doc = b'{"apiVersion":"v1","kind":"Pod",' + spec + b"}"
    out = _json_of(codecs, "json", doc)
    assert want in out, out


def test_json_repeated_key_every_value_is_decoded(codecs) -> None:
    # Go decodes the overwritten value too, so its error is reported.
    doc = b'{"apiVersion":"v1","kind":"Pod","spec":{"overhead":{"cpu":"x"}},"spec":{"overhead":{"cpu":"1"}}}'
    with pytest.raises(DecodeError, match="quantities must match the regular expression"):
        codecs["json"].decode(doc)


def test_json_repeated_key_in_untyped_value_keeps_last(codecs) -> None:
    # interface{} gets a fresh map per object: the last value of a key stands.
    from kcodec.api.meta.unstructured import Unstructured

    doc = b'{"apiVersion":"x/v1","kind":"K","spec":{"a":{"x":1},"a":{"y":2}}}'
    obj, _ = codecs["json"].decode(doc, into=Unstructured())
    assert obj.object["spec"] == {"a": {"y": 2}}


def test_json_repeated_key_strict_still_reports(codecs) -> None:
    from kcodec.api import scheme
    from kcodec.errors import StrictDecodingError
    from kcodec.serializer.json import Serializer

    strict = Serializer(scheme, scheme, strict=True)
    doc = b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"n"},"metadata":{"name":"b"}}'
    with pytest.raises(StrictDecodingError) as info:
        strict.decode(doc)
    assert info.value.errors == ['duplicate field "metadata"']
    assert (info.value.obj.metadata.name, info.value.obj.metadata.namespace) == ("b", "n")


def test_yaml_repeated_key_keeps_the_last(codecs) -> None:
    # go-yaml v2 (non-strict) keeps the last value in its map before JSON is written.
    doc = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  namespace: n\nmetadata:\n  name: b\n"
    out = _json_of(codecs, "yaml", doc)
    assert b'"metadata":{"name":"b"}' in out


def test_decode_into_existing_object_merges_list_elements(codecs) -> None:
    from kcodec.api.core.v1 import Container, Pod, PodSpec

    into = Pod(spec=PodSpec(containers=[Container(name="a", image="x")]))
    obj, _ = codecs["json"].decode(
        b'{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"b"}]}}', into=into)
    assert [(c.name, c.image) for c in obj.spec.containers] == [("b", "x")]


# ---------------------------------------------------------------------------------------
# IntOrString's StrVal from protobuf is a Go string: any bytes


def _service_with_bad_utf8(codecs):
    from kcodec.api.core.v1 import Service, ServicePort, ServiceSpec
    from kcodec.types import IntOrString

    svc = Service(api_version="v1", kind="Service", spec=ServiceSpec(
        ports=[ServicePort(port=1, name="ab", target_port=IntOrString.from_string("cd"))]))
    data = codecs["pb"].encode(svc)
    return data.replace(b"\x02ab", b"\x02\xff\xfe").replace(b"\x02cd", b"\x02\xc3\x28")


def test_intorstring_invalid_utf8_json_is_ufffd(codecs) -> None:
    data = _service_with_bad_utf8(codecs)
    obj, _ = codecs["pb"].decode(data)
    out = codecs["json"].encode(obj)
    # encoding/json writes each invalid byte as the escape \ufffd, for a field as for StrVal.
    assert b'"name":"\\ufffd\\ufffd"' in out
    assert b'"targetPort":"\\ufffd("' in out
    # The bytes survive a protobuf round trip, as Go's string keeps them.
    assert codecs["pb"].encode(obj) == data


# ---------------------------------------------------------------------------------------
# RawExtension, FieldsV1: UnmarshalJSON keeps the value's own bytes


_PRETTY_LIST = b"""{
  "apiVersion": "v1",
  "kind": "List",
  "metadata": {},
  "items": [
    {
      "apiVersion": "v1",
      "kind": "ConfigMap",
      "metadata": {"name": "a", "annotations": {"x": "\\u00e9\\/"}},
      "data": {"n": "1"}
    },
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b"}, "x": 1.0, "x": 2E+1}
  ]
}
"""


def test_list_items_keep_their_pretty_bytes(codecs) -> None:
    obj, _ = codecs["json"].decode(_PRETTY_LIST)
    first = _PRETTY_LIST.index(b'{\n      "apiVersion"')
    first = _PRETTY_LIST[first:_PRETTY_LIST.index(b"\n    },") + len(b"\n    }")]
    second = _PRETTY_LIST[_PRETTY_LIST.index(b'{"apiVersion": "v1", "kind": "Secret"'):]
    second = second[:second.index(b"}\n  ]") + 1]
    assert [item.raw for item in obj.items] == [first, second]
    # Protobuf writes the bytes as they are; JSON compacts them and keeps the literals.
    pb = codecs["pb"].encode(obj)
    assert first in pb and second in pb
    out = codecs["json"].encode(obj)
    assert b'"annotations":{"x":"\\u00e9\\/"}' in out
    assert b'"x":1.0,"x":2E+1}' in out


def test_fields_v1_keeps_its_bytes(codecs) -> None:
    fields = b'{"f:metadata": {"f:labels": {".": {}}}}'
    doc = (b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","managedFields":'
           b'[{"manager":"m","fieldsType":"FieldsV1","fieldsV1":' + fields + b"}]}}")
    obj, _ = codecs["json"].decode(doc)
    assert obj.metadata.managed_fields[0].fields_v1.raw == fields
    assert fields in codecs["pb"].encode(obj)


def test_raw_extension_from_yaml_is_the_json_text(codecs) -> None:
    # Go's YAML path decodes sigs.k8s.io/yaml's compact JSON: that is the raw text.
    doc = b"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  data:\n    b: p\n    a: q\n"
    obj, _ = codecs["yaml"].decode(doc)
    assert obj.items[0].raw == b'{"apiVersion":"v1","data":{"a":"q","b":"p"},"kind":"ConfigMap"}'


# ---------------------------------------------------------------------------------------
# Error texts: Go's, with kcodec's location kept as data


@pytest.mark.parametrize("doc, text, offset", [
    (b'{"apiVersion":"v1","kind":"Pod"', "unexpected end of JSON input", 31),
    (b'{"apiVersion":"v1","kind":"Pod"} x', "invalid character 'x' after top-level value", 34),
    (b'{"apiVersion":"v1","kind":"Pod","a":tru}', "invalid character '}' in literal true (expecting 'e')", 40),
])
def test_json_syntax_error_has_no_location_in_text(codecs, doc: bytes, text: str, offset: int) -> None:
    with pytest.raises(DecodeError) as info:
        codecs["json"].decode(doc)
    assert str(info.value) == "couldn't get version/kind; json parse error: " + text
    assert info.value.offset == offset


@pytest.mark.parametrize("spec, text, field_path", [
    (b'"volumes":[{"name":"v","fc":{"lun":"x"}}]',
     "json: cannot unmarshal string into Go struct field FCVolumeSource.spec.volumes.VolumeSource.fc.lun"
     " of type int32", "spec.volumes[0].fc.lun"),
    (b'"volumes":[{"name":"v","fc":5}]',
     "json: cannot unmarshal number into Go struct field Volume.spec.volumes.VolumeSource.fc"
     " of type v1.FCVolumeSource", "spec.volumes[0].fc"),
    (b'"containers":[{"name":1}]',
     "json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string",
     "spec.containers[0].name"),
    (b'"activeDeadlineSeconds":3.0',
     "json: cannot unmarshal number 3.0 into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64",
     "spec.activeDeadlineSeconds"),
    (b'"hostNetwork":1E+2',
     "json: cannot unmarshal number into Go struct field PodSpec.spec.hostNetwork of type bool",
     "spec.hostNetwork"),
    (b'"nodeSelector":{"a":1}',
     "json: cannot unmarshal number into Go struct field PodSpec.spec.nodeSelector of type string",
     "spec.nodeSelector[a]"),
])
def test_json_type_error_is_gos_text(codecs, spec: bytes, text: str, field_path: str) -> None:
    with pytest.raises(DecodeError) as info:
        codecs["json"].decode(_pod_json(spec))
    assert str(info.value) == text
    assert info.value.field_path == field_path
    # The same error from a tree (from_dict), whichever kernel walks it.
    import json

    from kcodec.api.core.v1 import Pod

    # (json.loads respells numbers, so only the part after "into" is compared.)
    with pytest.raises(DecodeError) as info:
        Pod.from_dict(json.loads(b'{"spec":{' + spec + b"}}"))
    assert str(info.value).split(" into ")[1] == text.split(" into ")[1]


def test_custom_value_type_error_takes_the_outer_context_in_both_walkers(codecs) -> None:
    # From JSON text (the JSON kernels) and from a tree (the tree walkers) alike.
    from kcodec.api.apps.v1 import Deployment

    want = ("json: cannot unmarshal bool into Go struct field "
            "RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32")
    with pytest.raises(DecodeError) as info:
        Deployment.from_dict({"spec": {"strategy": {"rollingUpdate": {"maxSurge": True}}}})
    assert str(info.value) == want
    assert info.value.field_path == "spec.strategy.rollingUpdate.maxSurge"
    doc = b'{"apiVersion":"apps/v1","kind":"Deployment","spec":{"strategy":{"rollingUpdate":{"maxSurge":true}}}}'
    with pytest.raises(DecodeError) as info:
        codecs["json"].decode(doc)
    assert str(info.value) == want


@pytest.mark.parametrize("body, text, field_path", [
    (b"\x0a\x10\x0a\x00", "unexpected EOF", "metadata"),                      # length past the end
    (b"\x0a\x0b\x0a" + b"\xff" * 9 + b"\x01", "proto: negative length found during unmarshaling",
     "metadata.name"),                                                          # length beyond int64
    (b"\x0a\x0c\x38" + b"\xff" * 10 + b"\x01", "proto: integer overflow", "metadata.generation"),
    (b"\x0a\x03\x38\xff\xff", "unexpected EOF", "metadata.generation"),        # truncated varint
])
def test_protobuf_errors_are_gos_generated_texts(body: bytes, text: str, field_path: str) -> None:
    from kcodec.api.core.v1 import Pod
    from kcodec.model import from_proto

    with pytest.raises(DecodeError) as info:
        from_proto(Pod, body)
    assert str(info.value) == text
    assert info.value.field_path.endswith(field_path)


@pytest.mark.parametrize("value, text", [
    (b'"1998-05-05 05:05:05Z"',
     'parsing time "1998-05-05 05:05:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 05:05:05Z" as "T"'),
    (b"5", "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp"
           " of type string"),
])
def test_custom_value_errors_carry_no_location_in_text(codecs, value: bytes, text: str) -> None:
    doc = b'{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":' + value + b"}}"
    with pytest.raises(DecodeError) as info:
        codecs["json"].decode(doc)
    assert str(info.value) == text
    assert info.value.field_path == "metadata.creationTimestamp"


# ---------------------------------------------------------------------------------------
# gogo map entries: k8s.io/api core/v1 generated.pb.go, ResourceRequirements.Unmarshal
# (Limits, a map<string, Quantity>). Inside an entry, every length and varint is checked
# against l, the message's end (``if postStringIndexmapkey > l``), not against the entry's
# postIndex; after the entry loop ``iNdEx = postIndex`` resumes at the entry's end, and only
# an unknown field's skip is held to the entry (``if (iNdEx + skippy) > postIndex``).


@pytest.mark.parametrize("body, limits", [
    # Entry [2:5] = 0a 05 63: the key's length 5 runs 2 bytes past the entry into the
    # message; the bytes after the entry are then read again as the message's own fields
    # (70 75: unknown field 14, varint; 78 00: unknown field 15, varint), skipped.
    (bytes.fromhex("0a030a056370757800"), {"cpux\x00": "0"}),
    # The same, then a well-formed entry mem: 1.
    (bytes.fromhex("0a030a0563707578000a0a0a036d656d12030a0131"), {"cpux\x00": "0", "mem": "1"}),
    # A value whose length (2) runs past its entry: read from the message (78 00, a
    # Quantity body holding only unknown field 15), then read again as the message's own.
    (bytes.fromhex("0a070a036370751202" "7800"), {"cpu": "0"}),
])
def test_gogo_map_entry_reads_past_its_entry(body: bytes, limits: dict) -> None:
    from kcodec.api.core.v1 import ResourceRequirements
    from kcodec.model import from_proto

    got = from_proto(ResourceRequirements, body)
    assert {k: str(v) for k, v in got.limits.items()} == limits


@pytest.mark.parametrize("body", [
    bytes.fromhex("0a030a0563707578"),        # the key runs past the message's end
    bytes.fromhex("0a030a0563"),
    bytes.fromhex("0a0370060a0563707578"),    # unknown field 14 in the entry, skipped past it
])
def test_gogo_map_entry_bounded_by_the_message(body: bytes) -> None:
    from kcodec.api.core.v1 import ResourceRequirements
    from kcodec.model import from_proto

    with pytest.raises(DecodeError, match="^unexpected EOF$"):
        from_proto(ResourceRequirements, body)


# ---------------------------------------------------------------------------------------
# YAML output: sigs.k8s.io/yaml Marshal = json.Marshal, then JSONToYAML (yaml.go), which
# reads that JSON text with go-yaml v2 (go.yaml.in/yaml/v2 v2.4.2, as go-yaml/yaml v2:
# readerc.go, scannerc.go, parserc.go) and writes the value with its emitter (emitterc.go).


def _cm(data: dict):
    from kcodec.api.core.v1 import ConfigMap
    from kcodec.api.meta.v1 import ObjectMeta

    return ConfigMap(metadata=ObjectMeta(name="a"), data=data)


@pytest.mark.parametrize("value, written", [
    # emitterc.go yaml_emitter_analyze_scalar: U+00A0 and U+2028/U+2029 are printable
    # (is_printable tests the lead byte), U+2028/U+2029 are breaks (multiline, no plain),
    # so single quotes with the raw characters; a break in single quotes is followed by
    # the indent (yaml_emitter_write_single_quoted_scalar).
    (" \u00a0\u2028\u2029", "' \u00a0\u2028\u2029'"),
    ("\u00a0", "\u00a0"),
    ("a\u2028b", "'a\u2028    b'"),  # the scalar's indent: its mapping's (2) + 2
    ("x\u2029", "'x\u2029'"),
    # NEL: json.Marshal writes it raw and go-yaml's reader takes it for a line break, which
    # a double-quoted scalar folds into a space (scannerc.go yaml_parser_scan_flow_scalar)
    # before the emitter sees the string: Go writes ' \u00a0\u2028\u2029' for this one.
    ("\x85\u00a0\u2028\u2029", "' \u00a0\u2028\u2029'"),
    ("a\x85b", "a b"),
    ("\x85", "' '"),
])
def test_yaml_quotes_unicode_breaks_as_go_yaml(value: str, written: str) -> None:
    import kcodec

    out = kcodec.dump(_cm({"k": value}), "yaml").decode("utf-8")
    assert f"\n  k: {written}\n" in out
    # A key with a break is no simple key (yaml_emitter_check_simple_key): "? key".
    if any(c in value for c in "\u2028\u2029") and "\x85" not in value and "    " not in written:
        out = kcodec.dump(_cm({value: "v"}), "yaml").decode("utf-8")
        assert f"\n  ? {written}\n  : v\n" in out


def test_yaml_output_with_nel_in_a_key() -> None:
    # The key's NEL ends its line in go-yaml's reading of json.Marshal's text, so the flow
    # mapping misses its ',' (parserc.go yaml_parser_parse_flow_mapping_key).
    import kcodec
    from kcodec.errors import EncodeError

    with pytest.raises(EncodeError, match=r"^yaml: line 1: did not find expected ',' or '}'$"):
        kcodec.dump(_cm({"a\x85b": "v"}), "yaml")


@pytest.mark.parametrize("value, text", [
    # readerc.go yaml_parser_update_buffer: json.Marshal writes these raw, go-yaml refuses them.
    ("x\x7fy", "yaml: control characters are not allowed"),
    ("\x80", "yaml: control characters are not allowed"),
    ("\ufffe", "yaml: control characters are not allowed"),
    ("\uffff", "yaml: control characters are not allowed"),
])
def test_yaml_output_fails_where_go_yaml_reads_no_json(value: str, text: str) -> None:
    import kcodec
    from kcodec.errors import EncodeError

    with pytest.raises(EncodeError) as info:
        kcodec.dump(_cm({"k": value}), "yaml")
    assert str(info.value) == text
    # JSON has no such rule.
    assert kcodec.load(kcodec.dump(_cm({"k": value}), "json")).data == {"k": value}


@pytest.mark.parametrize("item, text", [
    # Raw JSON (a v1 List's RawExtension items) reaches go-yaml as json.Marshal's compact
    # copy of the bytes: invalid UTF-8 (readerc.go) and escapes go-yaml's double-quoted
    # scanner lacks or refuses (scannerc.go yaml_parser_scan_flow_scalar).
    (b'{"a":"\xff"}', "yaml: invalid leading UTF-8 octet"),
    (b'{"a":"\xc3("}', "yaml: invalid trailing UTF-8 octet"),
    (b'{"a":"x\\/y"}', "yaml: found unknown escape character"),
    (b'{"a":"\\ud83d\\ude00"}', "yaml: found invalid Unicode character escape code"),
])
def test_yaml_output_of_raw_items_go_yaml_cannot_read(item: bytes, text: str) -> None:
    import kcodec
    from kcodec.errors import EncodeError

    doc = b'{"apiVersion":"v1","kind":"List","items":[' + item + b"]}"
    with pytest.raises(EncodeError) as info:
        kcodec.dump(kcodec.load(doc), "yaml")
    assert str(info.value) == text


@pytest.mark.parametrize("n, ok", [(1022, True), (1023, False)])
def test_yaml_output_with_a_key_past_1024_characters(n: int, ok: bool) -> None:
    # scannerc.go yaml_simple_key_is_valid: the ':' of a key more than 1024 characters
    # after its start (the opening quote of json.Marshal's "k...k") ends the simple key;
    # parserc.go yaml_parser_parse_flow_mapping_key then misses the ','. Escapes count as
    # written: json.Marshal writes '<' as \u003c (6 characters).
    import kcodec
    from kcodec.errors import EncodeError

    for key in ("k" * n, "<" * ((n - 4) // 6) + "k" * (n - 6 * ((n - 4) // 6))):
        if ok:
            assert kcodec.dump(_cm({key: "v"}), "yaml").startswith(b"apiVersion: v1\ndata:\n  ? ")
        else:
            with pytest.raises(EncodeError, match=r"^yaml: did not find expected ',' or '}'$"):
                kcodec.dump(_cm({key: "v"}), "yaml")


def test_yaml_output_keeps_integers_past_int64() -> None:
    # go-yaml resolves 12345678901234567890 (past int64, within uint64) to a uint64 and
    # writes it back as such; past uint64 a float64, written with FormatFloat 'g'.
    import kcodec

    doc = (b'{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap",'
           b'"metadata":{"name":"a"},"big":12345678901234567890,"bigger":123456789012345678901,'
           b'"max":18446744073709551615,"neg":-9223372036854775808}]}')
    out = kcodec.dump(kcodec.load(doc), "yaml")
    assert b"  big: 12345678901234567890\n" in out
    assert b"  bigger: 1.2345678901234568e+20\n" in out
    assert b"  max: 18446744073709551615\n" in out
    assert b"  neg: -9223372036854775808\n" in out


# ---------------------------------------------------------------------------------------
# encoding/json's error precedence (decode.go, as sigs.k8s.io/json forks it): a type
# mismatch is saved (d.saveError keeps the first) and decoding goes on; an Unmarshaler's
# error (literalStore returns it) ends the decode and wins over the saved one.

_QUANTITY_TEXT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


@pytest.mark.parametrize("doc, text", [
    # A wrong-typed metadata.name, then an invalid quantity: the quantity's error
    # (k8s.io/apimachinery pkg/api/resource quantity.go ErrFormatWrong).
    (b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":5},"spec":{"containers":[{"name":"a",'
     b'"resources":{"limits":{"cpu":"bad"}}}]}}', _QUANTITY_TEXT),
    # The same across list elements.
    (b'{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":1},{"name":"b",'
     b'"resources":{"limits":{"cpu":"bad"}}}]}}', _QUANTITY_TEXT),
    # metav1.Time's UnmarshalJSON (time.Parse's text) after a mismatch.
    (b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":5,"creationTimestamp":"bad"}}',
     'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"'),
    # Two mismatches: the first is kept.
    (b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":5,"labels":{"a":1}}}',
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"),
    # An Unmarshaler error before a mismatch ends the decode before it.
    (b'{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"bad","name":5}}',
     'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"'),
    # A bad base64 string is saved like a mismatch (literalStore: d.saveError).
    (b'{"apiVersion":"v1","kind":"ConfigMap","binaryData":{"b":"!!"},"metadata":{"creationTimestamp":"bad"}}',
     'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"'),
])
def test_json_unmarshaler_errors_outrank_saved_type_errors(doc: bytes, text: str) -> None:
    import kcodec

    with pytest.raises(DecodeError) as info:
        kcodec.load(doc)
    assert str(info.value) == text


def test_yaml_documents_keep_json_error_precedence() -> None:
    # sigs.k8s.io/yaml Unmarshal: YAMLToJSON, then the same JSON decoder.
    import kcodec

    doc = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: 5\nspec:\n  containers:\n  - name: a\n    resources:\n      limits:\n        cpu: bad\n"
    with pytest.raises(DecodeError) as info:
        kcodec.load(doc)
    assert str(info.value) == _QUANTITY_TEXT


@pytest.mark.parametrize("doc, text", [
    # decode.go literalStore: strconv.ParseInt fails on the literal, saved with its text.
    (b'{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":1e400}}',
     "json: cannot unmarshal number 1e400 into Go struct field DeploymentSpec.spec.replicas of type int32"),
    # strconv.ParseFloat overflows for a float64 field.
    (b'{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"versions":'
     b'[{"schema":{"openAPIV3Schema":{"maximum":1e400}}}]}}',
     "json: cannot unmarshal number 1e400 into Go struct field "
     "JSONSchemaProps.spec.versions.schema.openAPIV3Schema.maximum of type float64"),
    (b'{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":-1e400}}',
     "json: cannot unmarshal number -1e400 into Go struct field DeploymentSpec.spec.replicas of type int32"),
])
def test_json_number_past_float64_names_its_field(doc: bytes, text: str) -> None:
    import kcodec

    with pytest.raises(DecodeError) as info:
        kcodec.load(doc)
    assert str(info.value) == text


def test_not_registered_kind_is_quoted_as_go_quotes() -> None:
    # k8s.io/apimachinery pkg/runtime/error.go notRegisteredErr.Error(): %q is strconv.Quote.
    from kcodec.api import scheme
    from kcodec.errors import NotRegisteredError
    from kcodec.schema import GroupVersionKind

    with pytest.raises(NotRegisteredError) as info:
        scheme.new(GroupVersionKind("", "v1", "literal\ntext\n"))
    assert str(info.value) == 'no kind "literal\\ntext\\n" is registered for version "v1" in scheme "kcodec.api.scheme"'
    with pytest.raises(NotRegisteredError) as info:
        scheme.new(GroupVersionKind("", "v1", 'a"\x01\u00e9'))
    assert str(info.value) == 'no kind "a\\"\\x01\u00e9" is registered for version "v1" in scheme "kcodec.api.scheme"'


def test_yaml_null_map_key_text() -> None:
    # sigs.k8s.io/yaml yaml.go convertToJSONableObject: "unsupported map key of type: %s,
    # key: %+#v, value: %+#v" with reflect.TypeOf(nil), a nil reflect.Type: "%!s(<nil>)".
    import kcodec

    with pytest.raises(DecodeError) as info:
        kcodec.load(b"apiVersion: v1\nkind: ConfigMap\ndata:\n  ~: a\n")
    assert str(info.value) == 'unsupported map key of type: %!s(<nil>), key: <nil>, value: "a"'
