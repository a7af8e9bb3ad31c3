"""Hostile input: every public decoder fails with a kcodec error that says what and where.

Decoders under test: ``codecs.universal_deserializer()``, the JSON / YAML / protobuf
serializers of ``codecs.supported_media_types()`` (plain and strict), their stream forms
through :class:`kcodec.serializer.streaming.StreamDecoder`, and the Unstructured JSON scheme.

A crafted table pins the error class and message (with its field path or byte offset) for
each kind of damage; hypothesis then throws random bytes and mutated Pod fixtures at every
decoder and checks that only :class:`kcodec.errors.KCodecError` subclasses escape, and that
anything that does decode can be encoded again.
"""
from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import fixtures_dir
from kcodec.api import codecs
from kcodec.api.apps.v1 import ControllerRevision
from kcodec.api.core.v1 import Pod
from kcodec.errors import (
    DecodeError,
    EncodeError,
    KCodecError,
    MissingKindError,
    NotRegisteredError,
    StrictDecodingError,
)
from kcodec.runtime import Unstructured
from kcodec.api.meta.unstructured import UNSTRUCTURED_JSON_SCHEME
from kcodec.schema import GroupVersionKind
from kcodec.serializer.framing import JSON_FRAMER, LENGTH_DELIMITED_FRAMER, YAML_FRAMER
from kcodec.serializer.streaming import StreamDecoder

_INFOS = {i.media_type: i for i in codecs.supported_media_types()}
_JSON = _INFOS["application/json"]
_YAML = _INFOS["application/yaml"]
_PB = _INFOS["application/vnd.kubernetes.protobuf"]
POD_GVK = GroupVersionKind("", "v1", "Pod")


def _stream(framer: Any, serializer: Any, *, defaults: Any = None, into: Callable[[], Any] | None = None):
    """Decode every frame of ``data`` (at most 20) as a watch client would."""

    def decode(data: bytes) -> list[Any]:
        out = []
        with StreamDecoder(io.BytesIO(data), framer, serializer) as dec:
            for _ in range(20):
                try:
                    obj, _ = dec.decode(defaults, into() if into else None)
                except EOFError:
                    break
                out.append(obj)
        return out

    return decode


DECODERS: dict[str, Callable[[bytes], Any]] = {
    "universal": lambda d: codecs.universal_deserializer().decode(d)[0],
    "json": lambda d: _JSON.serializer.decode(d)[0],
    "json-strict": lambda d: _JSON.strict_serializer.decode(d)[0],
    "yaml": lambda d: _YAML.serializer.decode(d)[0],
    "yaml-strict": lambda d: _YAML.strict_serializer.decode(d)[0],
    "protobuf": lambda d: _PB.serializer.decode(d)[0],
    "unstructured": lambda d: UNSTRUCTURED_JSON_SCHEME.decode(d)[0],
    "json-into-unstructured": lambda d: _JSON.serializer.decode(d, None, Unstructured())[0],
    "json-stream": _stream(JSON_FRAMER, _JSON.stream_serializer.serializer),
    "yaml-stream": _stream(YAML_FRAMER, _YAML.serializer),
    "protobuf-stream": _stream(LENGTH_DELIMITED_FRAMER, _PB.stream_serializer.serializer,
                               defaults=POD_GVK, into=Pod),
}


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _ld(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def envelope(body: bytes, api_version: str = "v1", kind: str = "Pod") -> bytes:
    """``k8s\\x00`` + runtime.Unknown{typeMeta, raw=body, contentEncoding, contentType}."""
    type_meta = _ld(1, api_version.encode()) + _ld(2, kind.encode())
    return b"k8s\x00" + _ld(1, type_meta) + _ld(2, body) + b"\x1a\x00\x22\x00"


def pod_json(body: str) -> bytes:
    return ('{"apiVersion":"v1","kind":"Pod",' + body + "}").encode()


def pod_yaml(body: str) -> bytes:
    return ("apiVersion: v1\nkind: Pod\n" + body).encode()


def _port(value: str) -> str:
    return '"spec":{"containers":[{"name":"c","ports":[{"containerPort":' + value + "}]}]}"


PORT_PATH = "ContainerPort.spec.containers.ports.containerPort"  # Go's context: no indexes
CPU = '"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":%s}}}]}'
CPU_PATH = "| spec.containers[0].resources.limits[cpu] |"  # field_path
PROBE = '"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":%s}}}]}'
PROBE_PATH = "Pod.spec.containers[0].livenessProbe.httpGet.port"
DEEP = 10001


# (id, decoder, input, expected error class, message fragments: what, then where)
CASES: list[tuple[str, str, bytes, type[Exception], tuple[str, ...]]] = [
    # ---- wrong JSON types and out-of-range numbers: the field path says where
    ("string-into-int32", "json", pod_json(_port('"80"')), DecodeError,
     (f"json: cannot unmarshal string into Go struct field {PORT_PATH} of type int32",)),
    ("int32-overflow", "json", pod_json(_port("3000000000")), DecodeError,
     (f"cannot unmarshal number 3000000000 into Go struct field {PORT_PATH} of type int32",)),
    ("int32-underflow", "json", pod_json(_port("-2147483649")), DecodeError,
     (f"number -2147483649 into Go struct field {PORT_PATH} of type int32",)),
    ("fraction-into-int32", "json", pod_json(_port("1.5")), DecodeError,
     (f"cannot unmarshal number 1.5 into Go struct field {PORT_PATH} of type int32",)),
    ("bool-into-int32", "universal", pod_json(_port("true")), DecodeError,
     (f"cannot unmarshal bool into Go struct field {PORT_PATH} of type int32",)),
    ("int64-overflow", "json", pod_json('"spec":{"activeDeadlineSeconds":9223372036854775808}'), DecodeError,
     ("into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64",)),
    ("string-into-int64", "json-strict", pod_json('"metadata":{"generation":"1"}'), DecodeError,
     ("cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64",)),
    ("array-into-struct", "json", pod_json('"metadata":[]'), DecodeError,
     ("cannot unmarshal array into Go struct field Pod.metadata of type v1.ObjectMeta",)),
    ("object-into-list", "json", pod_json('"spec":{"containers":{}}'), DecodeError,
     ("cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container",)),
    ("number-into-map-value", "json", pod_json('"metadata":{"labels":{"app":1}}'), DecodeError,
     ("cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",)),
    ("string-into-bool", "json", pod_json('"spec":{"hostNetwork":"true"}'), DecodeError,
     ("cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool",)),
    ("float-overflow-into-int", "json", pod_json('"metadata":{"generation":1e999}'), DecodeError,
     ("cannot unmarshal number 1e999")),
    ("bad-base64", "json", b'{"apiVersion":"v1","kind":"Secret","data":{"k":"!!!"}}', DecodeError,
     ("illegal base64 data at input byte 0",)),
    ("unpadded-base64", "yaml", b"apiVersion: v1\nkind: Secret\ndata:\n  k: YQ\n", DecodeError,
     ("illegal base64 data at input byte 0",)),
    # ---- malformed times and quantities, and IntOrString of the wrong kind
    ("time-with-space", "json", pod_json('"metadata":{"creationTimestamp":"2020-01-01 00:00:00Z"}'), DecodeError,
     ('parsing time "2020-01-01 00:00:00Z" as "2006-01-02T15:04:05Z07:00"', "| metadata.creationTimestamp |")),
    ("time-no-offset", "json", pod_json('"metadata":{"creationTimestamp":"2020-01-01T00:00:00"}'), DecodeError,
     ("parsing time", "| metadata.creationTimestamp |")),
    ("time-number", "json", pod_json('"metadata":{"creationTimestamp":5}'), DecodeError,
     # Time.UnmarshalJSON's json.Unmarshal error in the field's context (addErrorContext).
     ("json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string",
      "| metadata.creationTimestamp |")),
    ("time-month-13", "yaml", pod_yaml('metadata:\n  creationTimestamp: "2020-13-01T00:00:00Z"\n'), DecodeError,
     ("month out of range", "| metadata.creationTimestamp |")),
    ("microtime-five-digits", "json",
     b'{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","spec":{"renewTime":"2020-01-01T00:00:00.12345Z"}}',
     DecodeError, ("parsing time", "| spec.renewTime |")),
    ("quantity-syntax", "json", pod_json(CPU % '"1.1.M"'), DecodeError,
     ("quantities must match the regular expression", CPU_PATH)),
    ("quantity-suffix", "json", pod_json(CPU % '"0.1mi"'), DecodeError,
     ("unable to parse quantity's suffix", CPU_PATH)),
    ("quantity-empty", "json", pod_json(CPU % '""'), DecodeError,
     ("quantities must match the regular expression", CPU_PATH)),
    ("quantity-object", "yaml", pod_yaml("spec:\n  overhead:\n    cpu: {a: 1}\n"), DecodeError,
     ("| spec.overhead[cpu] |",)),
    # IntOrString's own json.Unmarshal error, given the outer decoder's context (Go's
    # addErrorContext; ProbeHandler is embedded in Probe).
    ("intorstring-fraction", "json", pod_json(PROBE % "5.5"), DecodeError,
     ("json: cannot unmarshal number 5.5 into Go struct field "
      "HTTPGetAction.spec.containers.livenessProbe.ProbeHandler.httpGet.port of type int32",)),
    ("intorstring-bool", "json", pod_json(PROBE % "true"), DecodeError,
     ("json: cannot unmarshal bool into Go struct field "
      "HTTPGetAction.spec.containers.livenessProbe.ProbeHandler.httpGet.port of type int32",)),
    ("duration-in-unstructured-ok-typed-bad", "json",
     b'{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","spec":{"leaseDurationSeconds":"15s"}}',
     DecodeError, ("LeaseSpec.spec.leaseDurationSeconds of type int32",)),
    # ---- JSON syntax: the byte offset says where
    ("truncated-json", "json", pod_json('"metadata":{"name":"x"')[:-1], DecodeError,
     ("unexpected end of JSON input",)),
    ("trailing-garbage", "json", pod_json('"metadata":{}') + b"x", DecodeError,
     ("invalid character 'x' after top-level value")),
    ("bad-literal", "unstructured", b'{"kind":"A","x":tru}', DecodeError,
     ("invalid character '}' in literal true (expecting 'e')")),
    ("control-character-in-string", "json-strict", b'{"kind":"A\x01","apiVersion":"v1"}', DecodeError,
     ("invalid character '\\x01' in string literal",)),
    ("deep-json", "json", b"[" * DEEP + b"]" * DEEP, DecodeError,
     ("exceeded max depth")),
    ("deep-json-in-field", "unstructured", b'{"kind":"A","a":' + b"[" * DEEP + b"]" * DEEP + b"}", DecodeError,
     ("exceeded max depth")),  # the outer object counts as one level
    ("huge-float", "unstructured", b'{"kind":"A","x":1e400}', DecodeError,
     ("cannot unmarshal number 1e400 into Go value of type float64",)),
    ("items-not-a-list", "unstructured", b'{"kind":"PodList","items":5}', DecodeError,
     ("cannot unmarshal number into Go struct field decodeList.items of type []json.RawMessage",)),
    ("top-level-array", "unstructured", b"[1]", DecodeError,
     ("cannot unmarshal array into Go value of type unstructured.detector",)),
    ("kind-not-a-string", "json", b'{"apiVersion":"v1","kind":5}', DecodeError,
     ("json: cannot unmarshal number into Go struct field .kind of type string",)),
    # ---- YAML
    ("yaml-type-error", "yaml", pod_yaml("spec:\n  containers:\n  - name: c\n    ports:\n    - containerPort: x\n"),
     DecodeError, (f"cannot unmarshal string into Go struct field {PORT_PATH} of type int32",)),
    ("yaml-int32-overflow", "yaml-strict", pod_yaml("spec:\n  containers:\n  - name: c\n    ports:\n"
                                                    "    - containerPort: 0x100000000\n"),
     DecodeError, (f"number 4294967296 into Go struct field {PORT_PATH} of type int32",)),
    ("yaml-tab-indent", "yaml", b"apiVersion: v1\nkind: Pod\nmetadata: x\n\tname: y\n", DecodeError,
     ("yaml: line 4: found a tab character that violates indentation",)),
    ("yaml-tab-start", "yaml", b"apiVersion: v1\nkind: Pod\nmetadata:\n\tname: x\n", DecodeError,
     ("yaml: line 4: found character that cannot start any token",)),
    ("yaml-unclosed-flow", "universal", b"apiVersion: v1\nkind: Pod\nmetadata: {name: x\n", DecodeError,
     ("yaml: line",)),
    ("yaml-alias-bomb", "yaml", (
        b'apiVersion: v1\nkind: ConfigMap\na: &a ["x","x","x","x","x","x","x","x","x"]\n'
        + b"".join(b"%c: &%c [%s]\n" % (c, c, b",".join([b"*" + bytes([c - 1])] * 9)) for c in range(ord("b"), ord("j")))),
     DecodeError, ("yaml: document contains excessive aliasing",)),
    ("yaml-recursive-alias", "yaml-strict", b"apiVersion: v1\nkind: ConfigMap\na: &a [*a]\n", DecodeError,
     ("anchor 'a' value contains itself",)),
    ("yaml-deep", "yaml", b"a: " + b"[" * DEEP + b"]" * DEEP + b"\n", DecodeError,
     ("exceeded max depth of 10000",)),
    ("yaml-unknown-anchor", "yaml", b"apiVersion: v1\nkind: Pod\nmetadata: *nope\n", DecodeError,
     ("unknown anchor 'nope' referenced",)),
    ("yaml-bad-key", "yaml", b"apiVersion: v1\nkind: ConfigMap\ndata:\n  ? [1, 2]\n  : x\n", DecodeError,
     ("invalid map key",)),
    ("yaml-strict-duplicate", "yaml-strict", b"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: one\n  a: two\n",
     StrictDecodingError, ('line 5: key "a" already set in map',)),
    ("json-strict-unknown", "json-strict", pod_json('"spec":{"containers":[{"name":"c","bogus":1}]}'),
     StrictDecodingError, ('unknown field "spec.containers[0].bogus"',)),
    ("json-strict-duplicate", "json-strict", pod_json('"metadata":{"name":"a","name":"b"}'),
     StrictDecodingError, ('duplicate field "metadata.name"',)),
    # ---- kind/version problems (the whole document is the place)
    ("missing-kind", "json", b'{"apiVersion":"v1"}', MissingKindError, ("Object 'Kind' is missing in",)),
    ("unknown-kind", "universal", b'{"apiVersion":"v1","kind":"NoSuchKind"}', NotRegisteredError,
     ('no kind "NoSuchKind" is registered for version "v1"',)),
    # ---- protobuf envelope: byte offsets into the input
    ("pb-magic-only", "protobuf", b"k8s\x00", DecodeError, ("empty body",)),
    ("pb-bad-magic", "protobuf", b"k8s\x01\x0a\x00", DecodeError,
     ("provided data does not appear to be a protobuf message",)),
    ("pb-truncated-envelope", "protobuf", envelope(b"")[:9], DecodeError, ("unexpected EOF | None | 9",)),
    ("pb-huge-length-envelope", "protobuf", b"k8s\x00\x0a\xff\xff\xff\xff\x0f", DecodeError,
     ("unexpected EOF | None | 10",)),
    ("pb-overlong-varint-envelope", "protobuf", b"k8s\x00\x0a" + b"\xff" * 10 + b"\x01", DecodeError,
     ("proto: integer overflow | None | 5",)),
    # runtime.Unknown's generated Unmarshal, case 1: Go's text; the offset is data.
    ("pb-envelope-wire-type", "protobuf", b"k8s\x00\x0b", DecodeError,
     ("proto: wrong wireType = 3 for field TypeMeta | None | 4",)),
    # ---- protobuf body: field path, and byte offset within the body
    ("pb-truncated-nested", "protobuf", envelope(b"\x0a\x10\x0a\x00"), DecodeError,
     ("unexpected EOF | metadata |",)),
    ("pb-huge-length-nested", "protobuf", envelope(_ld(1, b"\x0a\xff\xff\xff\xff\x0f")), DecodeError,
     ("unexpected EOF | metadata.name |",)),
    ("pb-huge-length-64bit", "protobuf", envelope(_ld(1, b"\x0a" + b"\xff" * 9 + b"\x01")), DecodeError,
     ("proto: negative length found during unmarshaling | metadata.name |",)),
    ("pb-overlong-varint-body", "protobuf", envelope(_ld(1, b"\x38" + b"\xff" * 10 + b"\x01")), DecodeError,
     ("proto: integer overflow | metadata.generation | 3",)),
    ("pb-truncated-varint", "protobuf", envelope(_ld(1, b"\x38\xff\xff")), DecodeError,
     ("unexpected EOF | metadata.generation | 3",)),
    ("pb-wrong-wire-type", "protobuf", envelope(b"\x08\x01"), DecodeError,
     # gogo (core/v1 generated.pb.go, Pod.Unmarshal case 1): the Go field name, no place.
     ("proto: wrong wireType = 0 for field ObjectMeta | metadata | 0",)),
    ("pb-wrong-wire-scalar", "protobuf", envelope(_ld(1, _ld(7, b"x"))), DecodeError,
     ("proto: wrong wireType = 2 for field Generation | metadata.generation | 2",)),
    ("pb-tag-zero", "protobuf", envelope(b"\x00\x00"), DecodeError, ("proto: Pod: illegal tag 0 (wire type 0) | None | 0",)),
    # Go skips an unknown group (skipGenerated); this one never ends.
    ("pb-group-wire-type", "protobuf", envelope(b"\xfb\x07"), DecodeError, ("unexpected EOF",)),
    ("pb-truncated-fixed64", "protobuf", envelope(b"\xf9\x07\x00"), DecodeError, ("unexpected EOF",)),
    ("pb-bad-time", "protobuf", envelope(_ld(1, _ld(8, b"\x08\x80"))), DecodeError,
     ("| metadata.creationTimestamp |",)),
    ("pb-bad-quantity", "protobuf", envelope(_ld(2, _ld(32, _ld(1, b"cpu") + _ld(2, _ld(1, b"1.1.M"))))), DecodeError,
     ("quantities must match the regular expression", "| spec.overhead[cpu] |")),
    ("pb-bad-map-entry", "protobuf", envelope(_ld(1, _ld(11, b"\x0a\x05ab"))), DecodeError,
     ("unexpected EOF | metadata.labels |",)),
    ("pb-bad-intorstring", "protobuf",
     envelope(_ld(2, _ld(2, _ld(1, b"") + _ld(10, _ld(1, _ld(2, _ld(2, b"\x08"))))))), DecodeError,
     ("| spec.containers[0].livenessProbe.httpGet.port |",)),
    ("pb-deep-nesting-cap", "protobuf",
     envelope(_ld(2, _ld(18, _ld(1, _ld(1, _ld(1, _ld(1, b"\x00\x00"))))))), DecodeError,
     ("illegal tag 0",)),
    ("pb-unknown-kind", "protobuf", envelope(b"", kind="NoSuchKind"), NotRegisteredError,
     ('no kind "NoSuchKind" is registered',)),
    ("pb-missing-kind", "protobuf", envelope(b"", kind=""), MissingKindError, ("Object 'Kind' is missing",)),
    # ---- streams
    ("stream-frame-too-large", "protobuf-stream", b"\xff\xff\xff\xff" + b"\x00" * 8, DecodeError,
     ("object to decode was longer than maximum allowed size",)),
    ("stream-truncated-header", "protobuf-stream", b"\x00\x00", DecodeError,
     ("unexpected EOF | None | 2",)),
    ("stream-truncated-frame", "protobuf-stream", b"\x00\x00\x00\x10\x0a\x00", DecodeError,
     ("unexpected EOF | None | 6",)),
    ("stream-bad-frame-body", "protobuf-stream", b"\x00\x00\x00\x02\x0a\x10", DecodeError,
     ("unexpected EOF | metadata |",)),
    ("json-stream-garbage", "json-stream", pod_json('"metadata":{}') + b"\n}{", DecodeError,
     ("invalid character '}' looking for beginning of value | None |",)),
    ("json-stream-second-object-bad", "json-stream", pod_json('"metadata":{}') + pod_json(_port('"x"')), DecodeError,
     (PORT_PATH,)),
    ("yaml-stream-second-document-bad", "yaml-stream", pod_yaml("metadata: {}\n") + b"---\n" + pod_yaml("metadata: []\n"),
     DecodeError, ("cannot unmarshal array into Go struct field Pod.metadata of type v1.ObjectMeta",)),
]


@pytest.mark.parametrize(("decoder", "data", "error", "fragments"),
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_crafted_input(decoder, data, error, fragments):
    with pytest.raises(error) as caught:
        DECODERS[decoder](data)
    # Go's text, then the location kcodec keeps as data: "<message> | <field_path> | <offset>".
    message = (f"{caught.value} | {getattr(caught.value, 'field_path', None)} | "
               f"{getattr(caught.value, 'offset', None)}")
    assert isinstance(caught.value, KCodecError)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


# ------------------------------------------------------------------ accepted oddities (Go accepts them too)


def test_invalid_utf8_in_json_strings_becomes_replacement_characters():
    data = b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a\xff\xfeb"}}'
    for name in ("json", "json-strict", "universal"):
        assert DECODERS[name](data).metadata.name == "a\ufffd\ufffdb"


def test_invalid_utf8_in_protobuf_strings_survives_a_protobuf_round_trip():
    # Go's generated proto2 code does not check UTF-8: the bytes come back unchanged.
    pod, _ = _PB.serializer.decode(envelope(_ld(1, _ld(1, b"a\xff\xfeb"))))
    assert _ld(1, b"a\xff\xfeb") in _PB.serializer.encode(pod)
    # JSON cannot carry them: Go's encoder writes U+FFFD for each invalid byte
    assert b'"name":"a\\ufffd\\ufffdb"' in _JSON.serializer.encode(pod)


def test_overlong_but_terminated_varints_are_accepted():
    # Go's decoder accepts non-minimal varints of up to 10 bytes.
    pod, _ = _PB.serializer.decode(envelope(_ld(1, b"\x38\x85\x80\x80\x00")))
    assert pod.metadata.generation == 5


def test_ten_byte_varint_keeps_low_64_bits():
    pod, _ = _PB.serializer.decode(envelope(_ld(1, b"\x38" + b"\xff" * 9 + b"\x7f")))
    assert pod.metadata.generation == -1
    assert _JSON.serializer.encode(pod).count(b'"generation":-1') == 1


def test_int32_field_keeps_low_32_bits_of_a_protobuf_varint():
    pod, _ = _PB.serializer.decode(envelope(_ld(2, _ld(2, _ld(1, b"c") + _ld(6, b"\x18\x80\x80\x80\x80\x10")))))
    assert pod.spec.containers[0].ports[0].container_port == 0


def test_nesting_below_the_limit_decodes_and_encodes_without_recursion_error():
    depth = 3000  # Go accepts up to 10000; anything past Python's recursion limit proves the point
    data = (b'{"apiVersion":"apps/v1","kind":"ControllerRevision","data":'
            + b'{"a":' * depth + b"1" + b"}" * depth + b',"revision":1}')
    for name in ("json", "json-strict", "universal", "unstructured", "json-into-unstructured"):
        _reencode(DECODERS[name](data), _source_format(name, data))
    rev = DECODERS["json"](data)
    assert isinstance(rev, ControllerRevision)
    d = rev.to_dict()
    node, seen = d["data"], 0
    while isinstance(node, dict):
        node, seen = node["a"], seen + 1
    assert seen == depth and node == 1
    assert rev.deep_copy() == rev
    yaml_data = b"apiVersion: apps/v1\nkind: ControllerRevision\ndata: " + b"[" * depth + b"]" * depth + b"\n"
    for name in ("yaml", "yaml-strict"):
        _reencode(DECODERS[name](yaml_data), name)


@pytest.mark.parametrize("data", [
    envelope(_ld(1, b"\x0a\xff\xff\xff\xff\x07")),
    b"k8s\x00\x0a\xff\xff\xff\xff\x0f",
    b"\x00\xff\xff\xff" + b"\x00" * 16,
    pod_json('"metadata":{"generation":' + "9" * 3000 + "}"),
], ids=["nested-length", "envelope-length", "frame-length", "long-number"])
def test_length_prefixes_do_not_drive_allocation(data):
    decoders = ["protobuf", "universal", "protobuf-stream", "json"]
    tracemalloc.start()
    try:
        for name in decoders:
            try:
                DECODERS[name](data)
            except KCodecError:
                pass
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, f"peak allocation {peak} bytes for a {len(data)}-byte input"


@pytest.mark.parametrize(("fmt", "decoders"), [("json", ["json", "universal", "unstructured"]),
                                               ("pb", ["protobuf", "universal"])])
def test_a_truncated_document_never_decodes_to_a_partial_object(fmt, decoders):
    # A prefix of a JSON document, or of a protobuf envelope cut inside its body, is
    # incomplete: decoding must fail rather than return what was read so far. (A YAML
    # prefix cut at a line end is a valid smaller document, and so is an envelope cut
    # after the body, before its optional trailing fields: Go accepts those too.)
    data = _pod_fixture(fmt)
    end = len(data) - (4 if fmt == "pb" else 0)  # pb: the trailing 1a00 2200
    cuts = sorted(set(range(0, end, 1999)) | set(range(max(0, end - 12), end)))
    for cut in cuts:
        for name in decoders:
            with pytest.raises(KCodecError):
                DECODERS[name](data[:cut])


def test_yaml_integer_with_thousands_of_digits():
    # Too big for int64/uint64, so go-yaml does not read it as an int; the typed
    # decode then rejects the resulting float for an int64 field.
    data = pod_yaml("metadata:\n  generation: " + "1" * 5000 + "\n")
    with pytest.raises(DecodeError):
        DECODERS["yaml"](data)


def test_yaml_float_key_beyond_float32_range():
    # go-yaml formats float keys at 32-bit precision: 4e42 overflows to +Inf.
    tree = DECODERS["yaml"](b"apiVersion: v1\nkind: ConfigMap\ndata:\n  4e42: x\n")
    assert tree.data == {".inf": "x"}


# ------------------------------------------------------------------ hypothesis: random and mutated input


_SAME_FORMAT = {
    "json": _JSON.serializer, "json-strict": _JSON.serializer, "json-stream": _JSON.serializer,
    "unstructured": UNSTRUCTURED_JSON_SCHEME, "json-into-unstructured": _JSON.serializer,
    "yaml": _YAML.serializer, "yaml-strict": _YAML.serializer, "yaml-stream": _YAML.serializer,
    "protobuf": _PB.serializer, "protobuf-stream": _PB.stream_serializer.serializer,
}


def _reencode(obj: Any, source: str | None = None) -> None:
    """A decoded object encodes again: always in the format it came from, and in the
    others unless Go refuses too (EncodeError: protobuf for unstructured objects, JSON for
    a RawExtension/FieldsV1 whose protobuf bytes are not JSON, an IntOrString whose
    protobuf type is neither 0 nor 1)."""
    if source is not None:
        _SAME_FORMAT[source].encode(obj)
    for info in (_JSON, _YAML, _PB):
        try:
            info.serializer.encode(obj)
        except EncodeError:
            pass


def _source_format(name: str, data: bytes) -> str:
    if name != "universal":
        return name
    if data[:4] == b"k8s\x00":
        return "protobuf"
    return "json" if data.lstrip(b" \t\r\n")[:1] == b"{" else "yaml"


def _only_kcodec_errors(name: str, data: bytes) -> None:
    try:
        obj = DECODERS[name](data)
    except KCodecError as err:
        assert str(err), f"{name}: empty error message"
        return
    source = _source_format(name, data)
    for item in obj if isinstance(obj, list) else [obj]:
        _reencode(item, source)


_FIXTURES: dict[str, bytes] = {}


def _pod_fixture(ext: str) -> bytes:
    if ext not in _FIXTURES:
        _FIXTURES[ext] = (fixtures_dir() / f"core.v1.Pod.{ext}").read_bytes()
    return _FIXTURES[ext]


_MUTATION = st.one_of(
    st.tuples(st.just("truncate"), st.integers(0, 10**6)),
    st.tuples(st.just("flip"), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=4)),
    st.tuples(st.just("splice"), st.integers(0, 10**6), st.integers(0, 10**6), st.integers(1, 64)),
    st.tuples(st.just("delete"), st.integers(0, 10**6), st.integers(1, 32)),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.binary(min_size=1, max_size=8)),
)


def mutate(data: bytes, mutation: tuple) -> bytes:
    buf = bytearray(data)
    n = len(buf)
    kind = mutation[0]
    if kind == "truncate":
        return bytes(buf[: mutation[1] % (n + 1)])
    if kind == "insert":
        at = mutation[1] % (n + 1)
        buf[at:at] = mutation[2]
        return bytes(buf)
    if not n:
        return b""
    if kind == "flip":
        for pos, value in mutation[1]:
            buf[pos % n] = value
    elif kind == "splice":
        src = mutation[2] % n
        chunk = buf[src: src + mutation[3]]
        at = mutation[1] % (n + 1)
        buf[at:at] = chunk
    else:
        at = mutation[1] % n
        del buf[at: at + mutation[2]]
    return bytes(buf)


_BY_FORMAT = {
    "json": ["universal", "json", "json-strict", "unstructured", "json-into-unstructured", "json-stream"],
    "yaml": ["universal", "yaml", "yaml-strict", "yaml-stream"],
    "pb": ["universal", "protobuf"],
}
_SETTINGS = settings(max_examples=40, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("fmt", ["json", "yaml", "pb"])
@_SETTINGS
@given(mutations=st.lists(_MUTATION, min_size=1, max_size=3))
def test_mutated_pod_fixture(fmt, mutations):
    data = _pod_fixture(fmt)
    for m in mutations:
        data = mutate(data, m)
    for name in _BY_FORMAT[fmt]:
        _only_kcodec_errors(name, data)


@_SETTINGS
@given(mutations=st.lists(_MUTATION, min_size=1, max_size=3))
def test_mutated_protobuf_stream(mutations):
    # A watch-style stream: 4-byte big-endian lengths, each frame a bare Pod message.
    pod = _PB.serializer.decode(_pod_fixture("pb"))[0]
    frame = _PB.stream_serializer.serializer.encode(pod)
    data = (len(frame).to_bytes(4, "big") + frame) * 2
    for m in mutations:
        data = mutate(data, m)
    _only_kcodec_errors("protobuf-stream", data)


_ALPHABETS = st.sampled_from([
    bytes(range(256)),
    b'{}[]":,0123456789-.eE truefalsn\\u\n',
    b"apiVersion: v1\nkind: Pod\n-:{}[]&*!|>'\"#%@` \t\n0123456789.eE",
])


@st.composite
def random_input(draw):
    alphabet = draw(_ALPHABETS)
    body = bytes(draw(st.lists(st.sampled_from(alphabet), max_size=120)))
    prefix = draw(st.sampled_from([b"", b'{"apiVersion":"v1","kind":"Pod",', b"apiVersion: v1\nkind: Pod\n",
                                   b"k8s\x00", b"k8s\x00\x0a\x09\x0a\x02v1\x12\x03Pod\x12"]))
    return prefix + body


@_SETTINGS
@given(data=st.one_of(st.binary(max_size=200), random_input()))
def test_random_bytes_every_decoder(data):
    for name in DECODERS:
        _only_kcodec_errors(name, data)


def _paths(tree: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(tree, dict):
        for k, v in tree.items():
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out.extend(_paths(v, prefix + (i,)))
    return out


# Printable text only: the same JSON is also fed to the YAML decoder, and YAML (go-yaml as
# well) refuses control and format characters anywhere in a document.
_PRINTABLE = st.text(st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn")), max_size=6)


def _containers(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(inner, max_size=3) | st.dictionaries(_PRINTABLE, inner, max_size=3)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | _PRINTABLE,
    _containers,
    max_leaves=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_wrong_json_types_in_pod_fields_name_the_field(data):
    tree = json.loads(_pod_fixture("json"))
    paths = [p for p in _paths(tree) if p and p[0] not in ("apiVersion", "kind")]
    path = data.draw(st.sampled_from(paths))
    value = data.draw(_JSON_VALUES)
    node = tree
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    # Raw UTF-8, not \\ud800-style escapes: YAML (in Go as here) rejects escaped surrogates.
    encoded = json.dumps(tree, ensure_ascii=False).encode()
    name = data.draw(st.sampled_from(["json", "json-strict", "yaml"]))
    try:
        obj = DECODERS[name](encoded)
    except StrictDecodingError:
        return
    except DecodeError as err:
        message = str(err)
        # the message (Go's, without indexes) or the error's field_path names the damaged
        # field or one of its parents
        where = message + " " + str(err.field_path)
        assert any((f"[{p}]" if isinstance(p, int) else str(p)) in where for p in path), (path, message)
        assert ("Pod." in message or "Go struct field" in message or err.offset is not None
                or err.field_path is not None), message
        return
    _JSON.serializer.encode(obj)


# ------------------------------------------------------------------ Go's exact texts
# Each expected text is derived from the Go source that writes it: encoding/json's
# UnmarshalTypeError.Error() as vendored by sigs.k8s.io/json (internal/golang/encoding/json/
# decode.go: "json: cannot unmarshal " + Value + " into Go struct field " + Struct + "." +
# Field + " of type " + Type.String(), Field being the JSON names and, since Go 1.24, the
# names of the embedded structs a promoted field is reached through), the Go types of the
# fields in k8s.io/api v0.36.3 (core/v1/types.go, apimachinery pkg/apis/meta/v1/types.go),
# and gogo's generated Unmarshal in k8s.io/api core/v1/generated.pb.go (fmt.Errorf("proto:
# wrong wireType = %d for field ContainerPort", wireType), "proto: Pod: illegal tag %d (wire
# type %d)" with int32(wire>>3) and the whole tag varint, "proto: Pod: wiretype end group for
# non-group", checked first). kcodec's place is data: field_path (JSON's spelling, indexes
# kept) and offset.

_POD_PORT = _ld(1, b"c") + _ld(6, b"\x1a\x00")  # Container{name: c, ports: [ContainerPort{containerPort: <wire type 2>}]}

GO_TEXTS = [
    # A named string type: reflect prints its package and name.
    ("uid", "json", pod_json('"metadata":{"uid":1}'),
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID",
     "metadata.uid"),
    ("protocol", "yaml", b"apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    ports:\n    - protocol: 1\n",
     "json: cannot unmarshal number into Go struct field ContainerPort.spec.containers.ports.protocol of type v1.Protocol",
     "spec.containers[0].ports[0].protocol"),
    ("pull-policy", "json", pod_json('"spec":{"containers":[{"name":"a","imagePullPolicy":true}]}'),
     "json: cannot unmarshal bool into Go struct field Container.spec.containers.imagePullPolicy of type v1.PullPolicy",
     "spec.containers[0].imagePullPolicy"),
    ("reclaim-policy", "json",
     b'{"apiVersion":"v1","kind":"PersistentVolume","spec":{"persistentVolumeReclaimPolicy":1}}',
     "json: cannot unmarshal number into Go struct field PersistentVolumeSpec.spec.persistentVolumeReclaimPolicy "
     "of type v1.PersistentVolumeReclaimPolicy", "spec.persistentVolumeReclaimPolicy"),
    # A pointer to a named type: the decoder allocates it first, the pointed-to type is named.
    ("preemption-policy", "json", pod_json('"spec":{"preemptionPolicy":[]}'),
     "json: cannot unmarshal array into Go struct field PodSpec.spec.preemptionPolicy of type v1.PreemptionPolicy",
     "spec.preemptionPolicy"),
    # A named map type, and the element of a slice of a named type.
    ("resource-list", "json", pod_json('"spec":{"containers":[{"name":"a","resources":{"limits":"x"}}]}'),
     "json: cannot unmarshal string into Go struct field ResourceRequirements.spec.containers.resources.limits "
     "of type v1.ResourceList", "spec.containers[0].resources.limits"),
    ("access-mode", "json", b'{"apiVersion":"v1","kind":"PersistentVolume","spec":{"accessModes":[1]}}',
     "json: cannot unmarshal number into Go struct field PersistentVolumeSpec.spec.accessModes "
     "of type v1.PersistentVolumeAccessMode", "spec.accessModes[0]"),
    ("containers", "json", pod_json('"spec":{"containers":"x"}'),
     "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container",
     "spec.containers"),
    ("labels", "json", pod_json('"metadata":{"labels":"x"}'),
     "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string",
     "metadata.labels"),
    # TypeMeta is embedded in DeleteOptions: Go names it in the field context.
    ("typemeta-kind", "json", b'{"apiVersion":"policy/v1","kind":"Eviction","deleteOptions":{"kind":1}}',
     "json: cannot unmarshal number into Go struct field DeleteOptions.deleteOptions.TypeMeta.kind of type string",
     "deleteOptions.kind"),
    # The top-level kind is read first by the JSON serializer's meta factory
    # (runtime/serializer/json/meta.go, std encoding/json into an anonymous struct).
    ("meta-factory-kind", "json", b'{"kind": 1, "apiVersion": "v1"}',
     "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field "
     ".kind of type string", None),
    # gogo-protobuf texts: Go field names, no place in the message.
    ("pb-wrong-wire-message", "protobuf", envelope(b"\x08\x01"),
     "proto: wrong wireType = 0 for field ObjectMeta", "metadata"),
    ("pb-wrong-wire-nested", "protobuf", envelope(_ld(2, _ld(2, _POD_PORT))),
     "proto: wrong wireType = 2 for field ContainerPort", "spec.containers[0].ports[0].containerPort"),
    ("pb-wrong-wire-name", "protobuf", envelope(_ld(1, b"\x08\x01")),
     "proto: wrong wireType = 0 for field Name", "metadata.name"),
    ("pb-wrong-wire-uid", "protobuf", envelope(_ld(1, b"\x28\x01")),
     "proto: wrong wireType = 0 for field UID", "metadata.uid"),
    ("pb-illegal-tag", "protobuf", envelope(b"\x00"), "proto: Pod: illegal tag 0 (wire type 0)", None),
    ("pb-illegal-tag-wire", "protobuf", envelope(b"\x02\x00"), "proto: Pod: illegal tag 0 (wire type 2)", None),
    # int32(wire >> 3) of a 2**31 field number is negative; the whole tag is printed.
    ("pb-illegal-tag-negative", "protobuf", envelope(b"\x80\x80\x80\x80\x40"),
     "proto: Pod: illegal tag -2147483648 (wire type 17179869184)", None),
    ("pb-illegal-tag-nested", "protobuf", envelope(_ld(1, b"\x00")),
     "proto: ObjectMeta: illegal tag 0 (wire type 0)", "metadata"),
    ("pb-end-group", "protobuf", envelope(b"\x0c"), "proto: Pod: wiretype end group for non-group", None),
    ("pb-end-group-nested", "protobuf", envelope(_ld(2, b"\x04")),
     "proto: PodSpec: wiretype end group for non-group", "spec"),
]


@pytest.mark.parametrize(("decoder", "data", "text", "field_path"),
                         [pytest.param(*c[1:], id=c[0]) for c in GO_TEXTS])
def test_go_error_text(decoder, data, text, field_path):
    with pytest.raises(DecodeError) as caught:
        DECODERS[decoder](data)
    assert str(caught.value) == text
    assert caught.value.field_path == field_path


def test_protobuf_map_entry_reads_by_type_whatever_the_wire_type():
    # gogo's map entry code switches on the field number only (core/v1 generated.pb.go,
    # ConfigMap.Unmarshal case 2): a value tagged with wire type 0 is still read as a string.
    entry = b"\x08\x01k" + b"\x10\x01v"
    obj = _PB.serializer.decode(envelope(_ld(2, entry), kind="ConfigMap"))[0]
    assert obj.data == {"k": "v"}


@pytest.mark.parametrize(("body", "text", "offset"), [
    (b"\x08\x01", "proto: wrong wireType = 0 for field Raw", 0),
    (b"\x00", "proto: RawExtension: illegal tag 0 (wire type 0)", 0),
    (b"\x0a\x00\x0c", "proto: RawExtension: wiretype end group for non-group", 2),
])
def test_raw_extension_protobuf_errors_are_gogo_texts(body, text, offset):
    # apimachinery runtime/generated.pb.go, RawExtension.Unmarshal; ControllerRevision.data
    # (field 2) is a RawExtension.
    from kcodec.runtime import RawExtension

    with pytest.raises(DecodeError) as caught:
        RawExtension._from_proto_body(body, "data")
    assert (str(caught.value), caught.value.field_path, caught.value.offset) == (text, "data", offset)
    data = envelope(_ld(2, body), api_version="apps/v1", kind="ControllerRevision")
    with pytest.raises(DecodeError) as caught:
        DECODERS["protobuf"](data)
    assert (str(caught.value), caught.value.field_path) == (text, "data")
