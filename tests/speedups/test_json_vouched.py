"""The one-pass JSON decode (``Serializer._decode_one_pass`` + ``json_fill_vouched``).

Go reads apiVersion/kind in a validating pass over the whole text and then decodes it into
the type they name; kcodec guesses the type from the opening keys and decodes once, keeping
the result only when the kernel vouches for it. These tests hold the one-pass decode to the
two-pass one: same object, same kind, or the same error with the same text, on the Go
fixtures, on documents built to make the guess wrong, and on mutated fixtures.
"""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import fixtures_dir
from kcodec import speedups
from kcodec.api import scheme
from kcodec.api.core import v1 as corev1
from kcodec.serializer import json as kjson

SER = kjson.new_serializer(scheme, scheme)
STRICT = kjson.Serializer(scheme, scheme, strict=True)


def _outcome(data: bytes, defaults: Any = None) -> tuple[Any, ...]:
    """What a decode gives: the object's type, kind and JSON bytes, or the error and its text."""
    try:
        obj, gvk = SER.decode(data, defaults)
    except Exception as err:  # noqa: BLE001 - the error itself is the outcome compared
        return ("error", type(err), str(err))
    return ("ok", type(obj), gvk, SER.encode(obj))


def _both(data: bytes, defaults: Any = None) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(one-pass outcome, two-pass outcome) of the same input."""
    fast = _outcome(data, defaults)
    original = kjson.Serializer._decode_one_pass
    kjson.Serializer._decode_one_pass = lambda self, data, defaults: None  # type: ignore[method-assign]
    try:
        slow = _outcome(data, defaults)
    finally:
        kjson.Serializer._decode_one_pass = original  # type: ignore[method-assign]
    return fast, slow


POD = b'{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}'


def _fixture_json() -> list[Any]:
    return sorted(fixtures_dir().glob("*.json"))


def test_fixtures_decode_alike_in_one_pass(kcodec_mode: str) -> None:
    """Every Go-written JSON fixture: one pass and two passes give the same object and bytes."""
    paths = _fixture_json()
    assert len(paths) >= 185
    decoded = vouched = 0
    for path in paths:
        data = path.read_bytes()
        fast, slow = _both(data)
        assert fast == slow, path.name
        if fast[0] != "ok":  # a WatchEvent names no kind: the same error both ways
            continue
        decoded += 1
        obj = scheme.new(fast[2])
        answer = speedups.json_fill_vouched(obj, type(obj), data)
        assert answer == (2 if kcodec_mode == "compiled" else 1), path.name
        vouched += answer == 2
    # The compiled kernel vouches for every fixture that names its kind (each opens with
    # kind and apiVersion and has only known top-level fields); the pure twin only fills.
    assert decoded >= 180
    assert vouched == (decoded if kcodec_mode == "compiled" else 0)


def test_vouched_fill_equals_plain_fill(kcodec_mode: str) -> None:
    data = (fixtures_dir() / "core.v1.Pod.json").read_bytes()
    a, b = corev1.Pod(), corev1.Pod()
    said = speedups.json_fill_vouched(a, corev1.Pod, data)
    speedups.json_fill(b, corev1.Pod, data, None, "Pod")
    assert said == (2 if kcodec_mode == "compiled" else 1)
    assert a == b


def test_unvouched_keys_still_fill(kcodec_mode: str) -> None:
    """A case-variant or unknown top-level key: the object is filled (1), not vouched for."""
    for extra in (b',"KIND":"Service"}', b',"extra":{"a":[1]}}'):
        obj = corev1.Pod()
        assert speedups.json_fill_vouched(obj, corev1.Pod, POD + extra) == 1
        assert obj.metadata.name == "p"
    obj = corev1.Pod()
    assert speedups.json_fill_vouched(obj, corev1.Pod, POD + b',}') == 0


@pytest.mark.parametrize("data", [
    # Go's MetaFactory matches keys case-insensitively and keeps the last: a Service.
    POD + b',"KIND":"Service"}',
    POD + b',"ApiVersion":"apps/v1","Kind":"Deployment"}',
    # An escaped key is the same key to Go: kind Service, and a repeated field.
    POD + b',"\\u006bind":"Service"}',
    # U+212A KELVIN SIGN folds to k in Go's EqualFold.
    POD + ',"\u212aind":"Service"}'.encode(),
    # A plain repeat: the last one wins.
    POD + b',"kind":"Service"}',
    POD + b',"apiVersion":"v2"}',
    POD + b',"apiVersion":"a/b/c"}',
    POD + b',"kind":null}',
    POD + b',"kind":5}',
    # Unknown top-level field (skipped by both, but not vouched for).
    POD + b',"extra":{"kind":"Service","x":[1,2,{"y":null}]}}',
    # Malformed text after a good start: the MetaFactory's error must win.
    POD + b',}',
    POD + b'}}',
    POD + b'} x',
    POD + b',"spec":{"containers":[{"name":"c",}]}}',
    POD + b',"spec":{"containers":[{"name":"c","image":"i\\q"}]}}',
    POD + b',"spec":{"containers":[{"name":7}]}}',
    POD + b',"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1x"}}}]}}',
    POD + b',"metadata":{"creationTimestamp":"yesterday"}}',
    POD + b',"spec":' + b'[' * 300 + b']' * 300 + b'}',
    POD + b',"extra":' + b'[' * 10001 + b']' * 10001 + b'}',
    POD + b',"status":{"phase":"\xff\xfe"}}',
    # Guesses that name nothing, or something unregistered.
    b'{"kind":"","apiVersion":"v1"}',
    b'{"kind":"Pod","apiVersion":""}',
    b'{"kind":"NoSuchKind","apiVersion":"v1"}',
    b'{"kind":"Pod","apiVersion":"nosuch.example.com/v1"}',
    b'{"kind":"Pod","kind":"Pod"}',
    b'\xef\xbb\xbf{"kind":"Pod","apiVersion":"v1"}',
    b'  {\n "apiVersion" : "v1" ,\t"kind":"Pod"}\n',
])
def test_wrong_guesses_fall_back_to_go(data: bytes) -> None:
    fast, slow = _both(data)
    assert fast == slow


def test_defaults_apply_as_in_two_passes() -> None:
    from kcodec.schema import GroupVersionKind

    data = b'{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}'
    for defaults in (GroupVersionKind("", "v1", "Pod"), GroupVersionKind("apps", "v1", "Deployment")):
        fast, slow = _both(data, defaults)
        assert fast == slow and fast[0] == "ok"


def test_strict_and_into_keep_two_passes() -> None:
    """Strict decoding and decoding into a given object never take the one-pass route."""
    from kcodec.errors import StrictDecodingError

    # Go: the MetaFactory reads kind Service (case-insensitive, last wins); the strict
    # decode into a Service then reports the key it did not take.
    with pytest.raises(StrictDecodingError, match='^strict decoding error: unknown field "KIND"$'):
        STRICT.decode(POD + b',"KIND":"Service"}')
    into = corev1.Pod()
    obj, gvk = SER.decode(b'{"kind":"Pod","apiVersion":"v1","metadata":{"name":"q"}}', None, into)
    assert obj is into and obj.metadata.name == "q" and gvk.kind == "Pod"


_POD_BYTES: list[bytes] = []


def _pod_bytes() -> bytes:
    if not _POD_BYTES:
        _POD_BYTES.append((fixtures_dir() / "core.v1.Pod.json").read_bytes())
    return _POD_BYTES[0]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_mutated_pods_decode_alike(data: st.DataObject) -> None:
    """Byte edits anywhere in the fixture Pod (kept opening with its kind and apiVersion):
    one pass and two passes agree on every outcome, object or error text."""
    doc = bytearray(_pod_bytes())
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(40, len(doc) - 1))
        op = data.draw(st.sampled_from(["flip", "drop", "insert"]))
        byte = data.draw(st.sampled_from(list(b'{}[]",:\\0 9aZ\x00\xff')))
        if op == "flip":
            doc[at] = byte
        elif op == "drop":
            del doc[at]
        else:
            doc.insert(at, byte)
    fast, slow = _both(bytes(doc))
    assert fast == slow


def _span_outcome(frame: bytes, start: int, end: int) -> tuple[Any, ...]:
    try:
        obj, gvk = SER.decode_span(frame, start, end)
    except Exception as err:  # noqa: BLE001 - the error itself is the outcome compared
        return ("error", type(err), str(err))
    return ("ok", type(obj), gvk, SER.encode(obj))


def _in_frame(doc: bytes) -> tuple[bytes, int, int]:
    head = b'{"type":"ADDED","object":'
    return head + doc + b"}", len(head), len(head) + len(doc)


def test_span_decodes_as_its_slice(kcodec_mode: str) -> None:
    """A document read in place inside a watch frame decodes as the same bytes on their
    own: the Go fixtures, and documents the one pass declines or rejects."""
    docs = [p.read_bytes() for p in _fixture_json()[::7]]
    docs += [POD + b"}", POD + b',"spec":{}}', POD + b"} x", POD, b'{"kind":"Nope","apiVersion":"v1"}',
             b'{"apiVersion":"v1","kind":"Pod","Kind":"Service"}', b"null"]
    for doc in docs:
        frame, start, end = _in_frame(doc)
        assert _span_outcome(frame, start, end) == _outcome(doc), doc[:80]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_mutated_pod_spans_decode_as_slices(data: st.DataObject) -> None:
    """Byte edits in a Pod read in place inside its frame: the outcome, object or error
    text, is that of the edited Pod decoded on its own."""
    doc = bytearray(_pod_bytes())
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(40, len(doc) - 1))
        doc[at] = data.draw(st.sampled_from(list(b'{}[]",:\\0 9aZ\x00\xff')))
    frame, start, end = _in_frame(bytes(doc))
    assert _span_outcome(frame, start, end) == _outcome(bytes(doc))


def test_vouched_span_outside_data_raises(kcodec_mode: str) -> None:
    data = POD + b"}"
    for start, end in ((-1, 3), (5, 4), (0, len(data) + 1)):
        with pytest.raises(ValueError, match="outside"):
            speedups.json_fill_vouched(corev1.Pod(), corev1.Pod, data, start, end)
    pod = corev1.Pod()
    assert speedups.json_fill_vouched(pod, corev1.Pod, b"  " + data + b"xx", 2, len(data) + 2) >= 1
    assert pod.metadata.name == "p"
