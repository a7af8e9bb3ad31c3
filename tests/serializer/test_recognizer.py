"""RecognizerDecoder: the two passes, strict errors as success, the fallback error, and the
default JSON/YAML/protobuf chain (Go: k8s.io/apimachinery/pkg/runtime/serializer/recognizer/recognizer.go; k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (RecognizesData))."""
from __future__ import annotations

from typing import Any

import pytest

from kcodec.api import codecs
from kcodec.api import scheme as api_scheme
from kcodec.api.core import v1 as corev1
from kcodec.errors import DecodeError, KCodecError, MissingKindError, StrictDecodingError
from kcodec.schema import GroupVersionKind
from kcodec.serializer.json import Serializer as JSONSerializer
from kcodec.serializer.protobuf import Serializer as ProtobufSerializer
from kcodec.serializer.recognizer import NO_MATCH_MESSAGE, RecognizerDecoder

GVK = GroupVersionKind
RESULT_GVK = GVK("g", "v", "K")
SNIFF_ARRAY = (
    "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type "
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
)


class Plain:
    """A decoder without ``recognizes_data``: always queued for the second pass."""

    def __init__(self, name: str, calls: list[str], result: Any = None, err: Exception | None = None) -> None:
        self.name = name
        self.calls = calls
        self.result = result if result is not None else name
        self.err = err

    def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> tuple[Any, GroupVersionKind]:
        self.calls.append(self.name)
        if self.err is not None:
            raise self.err
        return self.result, RESULT_GVK


class Recognizing(Plain):
    def __init__(self, name: str, calls: list[str], ok: bool = False, unknown: bool = False,
                 probe_err: Exception | None = None, **kw: Any) -> None:
        super().__init__(name, calls, **kw)
        self.ok = ok
        self.unknown = unknown
        self.probe_err = probe_err

    def recognizes_data(self, data: bytes) -> tuple[bool, bool]:
        if self.probe_err is not None:
            raise self.probe_err
        return self.ok, self.unknown


# ------------------------------------------------------------------------------ pass one


def test_first_recognizing_decoder_wins() -> None:
    calls: list[str] = []
    d = RecognizerDecoder(Recognizing("a", calls), Recognizing("b", calls, ok=True), Recognizing("c", calls, ok=True))
    assert d.decode(b"x") == ("b", RESULT_GVK)
    assert calls == ["b"]


def test_recognized_decoders_error_is_final() -> None:
    calls: list[str] = []
    boom = DecodeError("b failed")
    d = RecognizerDecoder(Plain("plain", calls), Recognizing("b", calls, ok=True, err=boom),
                          Recognizing("c", calls, unknown=True))
    with pytest.raises(DecodeError) as ei:
        d.decode(b"x")
    assert ei.value is boom
    assert calls == ["b"]


def test_defaults_and_into_are_passed_on() -> None:
    seen: list[Any] = []

    class Spy(Recognizing):
        def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> tuple[Any, GroupVersionKind]:
            seen.append((data, defaults, into))
            return "spy", RESULT_GVK

    into = object()
    RecognizerDecoder(Spy("s", [], ok=True)).decode(b"d", RESULT_GVK, into)
    assert seen == [(b"d", RESULT_GVK, into)]


# ------------------------------------------------------------------------------ pass two


def test_unknown_and_plain_decoders_tried_in_order() -> None:
    calls: list[str] = []
    d = RecognizerDecoder(
        Recognizing("u1", calls, unknown=True, err=DecodeError("u1 failed")),
        Recognizing("no", calls),
        Plain("p", calls, err=DecodeError("p failed")),
        Recognizing("u2", calls, unknown=True),
        Plain("p2", calls),
    )
    assert d.decode(b"x") == ("u2", RESULT_GVK)
    assert calls == ["u1", "p", "u2"]


def test_last_error_when_nothing_succeeds() -> None:
    calls: list[str] = []
    last = DecodeError("second")
    d = RecognizerDecoder(Plain("a", calls, err=DecodeError("first")), Recognizing("b", calls, unknown=True, err=last))
    with pytest.raises(DecodeError) as ei:
        d.decode(b"x")
    assert ei.value is last
    assert calls == ["a", "b"]


def test_strict_error_with_object_counts_as_success() -> None:
    calls: list[str] = []
    strict = StrictDecodingError(['unknown field "x"'], obj="decoded", gvk=RESULT_GVK)
    d = RecognizerDecoder(Plain("a", calls, err=strict), Plain("b", calls))
    with pytest.raises(StrictDecodingError) as ei:
        d.decode(b"x")
    assert ei.value is strict and ei.value.obj == "decoded"
    assert calls == ["a"]


def test_strict_error_without_object_is_just_an_error() -> None:
    calls: list[str] = []
    d = RecognizerDecoder(Plain("a", calls, err=StrictDecodingError(["x"])), Plain("b", calls))
    assert d.decode(b"x") == ("b", RESULT_GVK)
    assert calls == ["a", "b"]


def test_recognition_error_is_remembered() -> None:
    calls: list[str] = []
    probe = KCodecError("cannot tell")
    d = RecognizerDecoder(Recognizing("a", calls, probe_err=probe), Recognizing("b", calls))
    with pytest.raises(KCodecError) as ei:
        d.decode(b"x")
    assert ei.value is probe
    assert calls == []
    # A later decoder's failure replaces it.
    later = DecodeError("later")
    d = RecognizerDecoder(Recognizing("a", calls, probe_err=probe), Plain("p", calls, err=later))
    with pytest.raises(DecodeError) as ei2:
        d.decode(b"x")
    assert ei2.value is later


@pytest.mark.parametrize("members", [0, 1])
def test_no_format_matched(members: int) -> None:
    calls: list[str] = []
    d = RecognizerDecoder(*[Recognizing(f"n{i}", calls) for i in range(members)])
    with pytest.raises(DecodeError) as ei:
        d.decode(b"x")
    assert str(ei.value) == NO_MATCH_MESSAGE == "no serialization format matched the provided data"
    assert calls == []


# ------------------------------------------------------------------------ recognizes_data


def test_composite_recognizes_data() -> None:
    calls: list[str] = []
    assert RecognizerDecoder(Recognizing("a", calls), Recognizing("b", calls, ok=True)).recognizes_data(b"") == (True, False)
    assert RecognizerDecoder(Recognizing("a", calls), Recognizing("b", calls, unknown=True)).recognizes_data(b"") == (False, True)
    assert RecognizerDecoder(Recognizing("a", calls)).recognizes_data(b"") == (False, False)
    assert RecognizerDecoder().recognizes_data(b"") == (False, False)
    # Plain decoders are not consulted.
    assert RecognizerDecoder(Plain("p", calls)).recognizes_data(b"") == (False, False)
    assert calls == []


def test_composite_recognizes_data_errors() -> None:
    calls: list[str] = []
    probe = KCodecError("cannot tell")
    # A member that recognizes wins over another's error.
    d = RecognizerDecoder(Recognizing("a", calls, probe_err=probe), Recognizing("b", calls, ok=True))
    assert d.recognizes_data(b"") == (True, False)
    # Otherwise Go returns the error beside (false, anyUnknown): raised when nobody is unsure.
    with pytest.raises(KCodecError) as ei:
        RecognizerDecoder(Recognizing("a", calls, probe_err=probe), Recognizing("b", calls)).recognizes_data(b"")
    assert ei.value is probe
    d = RecognizerDecoder(Recognizing("a", calls, probe_err=probe), Recognizing("b", calls, unknown=True))
    assert d.recognizes_data(b"") == (False, True)


# ------------------------------------------------------------------------ the default chain


CM_JSON = b'{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"b"}}'
CM_PRETTY = b'{\n  "kind": "ConfigMap",\n  "apiVersion": "v1",\n  "data": {\n    "a": "b"\n  }\n}'
CM_YAML = b"kind: ConfigMap\napiVersion: v1\ndata:\n  a: b\n"


def chain(strict: bool = False) -> tuple[RecognizerDecoder, list[str]]:
    used: list[str] = []

    def spy(name: str, serializer: Any) -> Any:
        class Spy:
            def recognizes_data(self, data: bytes) -> tuple[bool, bool]:
                return serializer.recognizes_data(data)

            def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> Any:
                used.append(name)
                return serializer.decode(data, defaults, into)

        return Spy()

    return RecognizerDecoder(
        spy("json", JSONSerializer(api_scheme, api_scheme, strict=strict)),
        spy("yaml", JSONSerializer(api_scheme, api_scheme, yaml=True, strict=strict)),
        spy("protobuf", ProtobufSerializer(api_scheme, api_scheme)),
    ), used


@pytest.mark.parametrize(
    "data, decoders",
    [
        (CM_JSON, ["json"]),
        (CM_PRETTY, ["json"]),
        (b"  \n" + CM_JSON, ["json"]),
        (CM_YAML, ["yaml"]),
    ],
)
def test_default_chain_picks_the_format(data: bytes, decoders: list[str]) -> None:
    d, used = chain()
    obj, gvk = d.decode(data)
    assert gvk == GVK("", "v1", "ConfigMap")
    assert obj == corev1.ConfigMap(kind="ConfigMap", api_version="v1", data={"a": "b"})
    assert used == decoders


def test_default_chain_protobuf() -> None:
    cm = corev1.ConfigMap(kind="ConfigMap", api_version="v1", data={"a": "b"})
    data = ProtobufSerializer(api_scheme, api_scheme).encode(cm)
    d, used = chain()
    assert d.decode(data) == (cm, GVK("", "v1", "ConfigMap"))
    assert used == ["protobuf"]


def test_default_chain_array_only_tried_by_yaml() -> None:
    d, used = chain()
    with pytest.raises(DecodeError) as ei:
        d.decode(b"[1]")
    assert str(ei.value) == SNIFF_ARRAY
    assert used == ["yaml"]


def test_default_chain_recognized_json_error_is_final() -> None:
    d, used = chain()
    with pytest.raises(MissingKindError):
        d.decode(b'{"apiVersion":"v1"}')
    assert used == ["json"]


def test_default_chain_strict_yaml_error_returned_with_object() -> None:
    d, used = chain(strict=True)
    with pytest.raises(StrictDecodingError) as ei:
        d.decode(CM_YAML + b"bogus: 1\n")
    assert ei.value.errors == ['unknown field "bogus"']
    assert ei.value.obj.data == {"a": "b"}
    assert used == ["yaml"]


def test_universal_deserializer() -> None:
    d = codecs.universal_deserializer()
    a, _ = d.decode(CM_YAML)
    b, _ = d.decode(CM_PRETTY)
    assert a == b
    with pytest.raises(DecodeError) as ei:
        d.decode(b"[1]")
    assert str(ei.value) == SNIFF_ARRAY
    assert d.recognizes_data(b"{}") == (True, False)
    assert d.recognizes_data(b"k8s\x00") == (True, False)
    assert d.recognizes_data(b"kind: A") == (False, True)
