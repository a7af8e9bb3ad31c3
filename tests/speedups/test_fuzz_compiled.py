"""Bounded fuzzing of the compiled decoders (hypothesis): hostile bytes must end in a
``kcodec.errors`` exception or a result, never in another exception, a crash or a hang.

Inputs are random bytes and mutations (flips, cuts, splices, inserted huge varints) of
every Go fixture: the 185 ``.pb`` files for the protobuf decoders and the ``.json`` files
for the GVK sniffer and the tree filler. Example counts are modest so CI stays within
minutes; a crash of the C code takes the whole test process down, which fails the run.
"""
from __future__ import annotations

import os
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from kcodec import model, speedups
from kcodec.errors import KCodecError

if not speedups.available():
    pytest.skip("the compiled kernels are not built or KCODEC_PURE=1 keeps them off", allow_module_level=True)

from kcodec import _speedups as compiled  # noqa: E402

PB = sorted(FIXTURES.glob("*.pb")) if FIXTURES.is_dir() else []
JSON = sorted(FIXTURES.glob("*.json")) if FIXTURES.is_dir() else []

# KCODEC_FUZZ_EXAMPLES raises the budget for a longer local campaign.
FUZZ = settings(max_examples=int(os.environ.get("KCODEC_FUZZ_EXAMPLES", "250")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(autouse=True)
def kcodec_mode():
    """Overrides conftest's two-mode fixture: only the compiled kernels are fuzzed here."""
    yield "compiled"


def survives(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a decoder; a kcodec error is a pass, anything else propagates and fails."""
    try:
        result = fn(*args)
        if hasattr(result, "__next__"):
            result = list(result)
        return result
    except KCodecError:
        return None


def _outcome(fn: Callable[..., Any], *args: Any) -> Any:
    """``"ok"``, or the kcodec error's class and text (anything else propagates)."""
    try:
        fn(*args)
    except KCodecError as err:
        return (type(err), str(err))
    return "ok"


def _kind_type(path: Any) -> Any:
    from kcodec.api import scheme
    from kcodec.schema import GroupVersionKind

    group, version, kind = path.name.rsplit(".", 1)[0].rsplit(".", 2)
    cls = type(scheme.new(GroupVersionKind("" if group == "core" else group, version, kind)))
    model.fields_of(cls)
    return cls


_cache: dict[Any, tuple[Any, bytes, bytes]] = {}


def _fixture(path: Any) -> tuple[Any, bytes, bytes]:
    if path not in _cache:
        data = path.read_bytes()
        raw = compiled.envelope_decode(data)[2] if path.suffix == ".pb" else b""
        _cache[path] = (_kind_type(path), data, raw)
    return _cache[path]


# A mutation: (operation, position fraction, payload).
_MUTATION = st.tuples(
    st.sampled_from(["flip", "insert", "delete", "cut", "varint", "splice"]),
    st.floats(min_value=0, max_value=1, allow_nan=False),
    st.binary(min_size=1, max_size=6),
)


def mutate(data: bytes, ops: list[tuple[str, float, bytes]]) -> bytes:
    buf = bytearray(data)
    for op, where, payload in ops:
        i = min(int(where * len(buf)), max(len(buf) - 1, 0))
        if op == "flip" and buf:
            buf[i] ^= payload[0] or 0x80
        elif op == "insert":
            buf[i:i] = payload
        elif op == "delete":
            del buf[i:i + len(payload)]
        elif op == "cut":
            del buf[i:]
        elif op == "varint":
            buf[i:i] = b"\xff" * (payload[0] % 12) + b"\x01"
        elif op == "splice" and buf:
            j = (payload[0] * 7919) % len(buf)
            buf[i:i] = buf[j:j + 1 + payload[-1] % 32]
    return bytes(buf)


needs_fixtures = pytest.mark.skipif(not PB, reason="Go fixtures not found beside the checkout")


@needs_fixtures
@FUZZ
@given(st.sampled_from(PB or [None]), st.lists(_MUTATION, min_size=1, max_size=4))
def test_fuzz_protobuf_envelopes(path: Any, ops: list[tuple[str, float, bytes]]) -> None:
    _, data, raw = _fixture(path)
    bad = mutate(data, ops)
    survives(compiled.envelope_decode, bad)
    spans = survives(compiled.envelope_span, bad)
    if spans is not None and spans[2] is not None:
        cls, _, _ = _fixture(path)
        start, end = spans[2]
        survives(compiled.fill_from_proto, cls._new_zero(), cls, bad, cls.__name__, start, end)
    survives(compiled.unmarshal_unknown, bad[4:])
    survives(compiled.iter_fields, bad, 4)
    survives(compiled.iter_fields, mutate(raw, ops))


@needs_fixtures
@FUZZ
@given(st.sampled_from(PB or [None]), st.lists(_MUTATION, min_size=1, max_size=4))
def test_fuzz_typed_protobuf_decode(path: Any, ops: list[tuple[str, float, bytes]]) -> None:
    cls, _, raw = _fixture(path)
    bad = mutate(raw, ops)
    survives(compiled.fill_from_proto, cls._new_zero(), cls, bad, cls.__name__)
    # The same bytes decoded as an unrelated kind reach other field types and wire types.
    other, _, _ = _fixture(PB[(len(bad) * 31) % len(PB)])
    survives(compiled.fill_from_proto, other._new_zero(), other, bad, other.__name__)
    # Decoded in place between foreign bytes, the body must read exactly as on its own:
    # nothing before start or after end may be looked at.
    alone, framed = cls._new_zero(), cls._new_zero()
    pad = b"\x0a\xff\xff\x12\x07" * 3
    a = _outcome(compiled.fill_from_proto, alone, cls, bad, cls.__name__)
    b = _outcome(compiled.fill_from_proto, framed, cls, pad + bad + pad, cls.__name__, len(pad), len(pad) + len(bad))
    assert a == b
    if a == "ok":
        assert alone == framed


@needs_fixtures
@FUZZ
@given(st.sampled_from(PB or [None]), st.binary(max_size=200))
def test_fuzz_typed_protobuf_random_bytes(path: Any, data: bytes) -> None:
    cls, _, _ = _fixture(path)
    survives(compiled.fill_from_proto, cls._new_zero(), cls, data, cls.__name__)
    survives(compiled.envelope_decode, b"k8s\x00" + data)
    survives(compiled.iter_fields, data)
    for pos in range(0, min(len(data), 12)):
        survives(compiled.decode_varint, data, pos)
        survives(compiled.decode_signed_varint, data, pos, len(data))


@needs_fixtures
@FUZZ
@given(st.sampled_from(JSON or [None]), st.lists(_MUTATION, min_size=1, max_size=4))
def test_fuzz_gvk_sniffing(path: Any, ops: list[tuple[str, float, bytes]]) -> None:
    from kcodec._speedups import _wire

    _, data, _ = _fixture(path)
    bad = mutate(data, ops)
    survives(compiled.interpret_gvk, bad)
    survives(_wire._interpret_gvk_scanner, bad)


@FUZZ
@given(st.binary(max_size=120))
def test_fuzz_gvk_random_bytes(data: bytes) -> None:
    from kcodec._speedups import _wire

    survives(compiled.interpret_gvk, data)
    survives(compiled.interpret_gvk, b'{"kind":' + data)
    survives(_wire._interpret_gvk_scanner, b'{"a":[' + data)


_TREE = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@needs_fixtures
@FUZZ
@given(st.sampled_from(JSON or [None]), st.data())
def test_fuzz_tree_fill(path: Any, data: st.DataObject) -> None:
    """Fixture trees with one value replaced by a random JSON value, strict and not."""
    from kcodec import gojson as _gojson

    cls, raw, _ = _fixture(path)
    tree = _gojson.loads(raw)
    node = tree
    for _ in range(data.draw(st.integers(0, 4))):
        if isinstance(node, dict) and node:
            key = data.draw(st.sampled_from(sorted(node)))
            if not isinstance(node[key], (dict, list)) or not node[key]:
                break
            node = node[key]
        elif isinstance(node, list) and node:
            idx = data.draw(st.integers(0, len(node) - 1))
            if not isinstance(node[idx], (dict, list)) or not node[idx]:
                break
            node = node[idx]
    value = data.draw(_TREE)
    if isinstance(node, dict):
        node[data.draw(st.sampled_from(sorted(node) or ["x"]) | st.text(max_size=6))] = value
    elif isinstance(node, list) and node:
        node[data.draw(st.integers(0, len(node) - 1))] = value
    for strict in (None, []):
        survives(compiled.fill_from_tree, cls._new_zero(), cls, tree, strict, cls.__name__)


YAML = sorted(FIXTURES.glob("*.yaml")) if FIXTURES.is_dir() else []


@needs_fixtures
@FUZZ
@given(st.sampled_from(YAML or [None]), st.lists(_MUTATION, min_size=1, max_size=4))
def test_fuzz_yaml_block_reader(path: Any, ops: list[tuple[str, float, bytes]]) -> None:
    from kcodec import goyaml
    from kcodec._native import yaml as pure_yaml

    bad = mutate(path.read_bytes(), ops)
    # Never raises: a tree, or None for "take the libyaml route"; the same answer as the pure twin.
    tree = compiled.yaml_block_tree(bad)
    assert tree == pure_yaml.yaml_block_tree(bad)
    if tree is not None:
        assert tree == goyaml.yaml_to_tree(bad)
