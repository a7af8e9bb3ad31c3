"""Parity of the compiled kernels (kcodec._speedups) with their pure twins (kcodec._native).

Both kernel sets get identical inputs - every Go fixture, random typed objects, hostile
bytes - and must agree on the result (bytes, objects) or on the error (class and text).
Each test calls both kernel sets directly, so the module runs once, not once per mode.
"""
from __future__ import annotations

import random
import struct
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from kcodec import _native, model, speedups
from kcodec._kinds import (
    K_ANY, K_BOOL, K_BYTES, K_CUSTOM, K_FLOAT, K_INT32, K_INT64, K_LIST, K_MAP, K_STR, K_STRUCT,
)
from kcodec.errors import DecodeError
from kcodec.model import Int32, Struct, Wrapped, field
from kcodec.api.meta.v1 import FieldsV1
from kcodec.types import IntOrString, Quantity

if not speedups.available():
    pytest.skip("the compiled kernels are not built or KCODEC_PURE=1 keeps them off", allow_module_level=True)

from kcodec import _speedups as compiled  # noqa: E402
from kcodec._speedups import _tables  # noqa: E402

pure = _native

PB_FIXTURES = sorted(FIXTURES.glob("*.pb")) if FIXTURES.is_dir() else []
JSON_FIXTURES = sorted(FIXTURES.glob("*.json")) if FIXTURES.is_dir() else []
needs_fixtures = pytest.mark.skipif(not PB_FIXTURES, reason="Go fixtures not found beside the checkout")


@pytest.fixture(autouse=True)
def kcodec_mode():
    """Overrides conftest's two-mode fixture: these tests call both kernel sets themselves."""
    yield "both"


def outcome(fn: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    try:
        return ("ok", fn(*args))
    except Exception as exc:  # noqa: BLE001 - the exception itself is what is compared
        return ("error", type(exc), str(exc))


def same(name: str, *args: Any) -> tuple[Any, ...]:
    """Run kernel ``name`` of both sets on ``args``; assert equal outcomes; return one."""
    a = outcome(getattr(pure, name), *args)
    b = outcome(getattr(compiled, name), *args)
    if name == "interpret_gvk":
        # The compiled kernel hands documents its scanners give up on (rc < 0) to the pure
        # parser: check the scanners themselves on every input too, the two-stage sniff
        # with each block classifier the build and CPU offer and the one-pass scanner alone.
        from kcodec._speedups import _wire

        for level in _wire._gvk_levels():
            c = outcome(_wire._interpret_gvk_scanner, *args, level)
            assert a == c, f"scanner level {level} {args!r:.200}: pure {a!r:.300} != scanner {c!r:.300}"
    if a[0] == "ok" and b[0] == "ok" and name == "iter_fields":
        a, b = ("ok", list(a[1])), ("ok", list(b[1]))
    assert a == b, f"{name}{args!r:.200}: pure {a!r:.300} != compiled {b!r:.300}"
    return a


def iter_outcome(kernels: Any, *args: Any) -> tuple[Any, ...]:
    """Fields until the error, then the error: a generator may fail half-way."""
    got: list[Any] = []
    try:
        for item in kernels.iter_fields(*args):
            got.append(item)
    except Exception as exc:  # noqa: BLE001
        return ("error", got, type(exc), str(exc))
    return ("ok", got)


def mutations(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    """Hostile variants of ``data``: truncations, flipped and inserted bytes, huge varints."""
    out = [b"", data[:1], data[: len(data) // 2], data[:-1]]
    for _ in range(count):
        buf = bytearray(data)
        kind = rng.randrange(5)
        if not buf:
            buf = bytearray(b"\x0a")
        i = rng.randrange(len(buf))
        if kind == 0:
            buf[i] = rng.randrange(256)
        elif kind == 1:
            buf[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4)))
        elif kind == 2:
            del buf[i:i + rng.randrange(1, 8)]
        elif kind == 3:
            buf[i:i] = b"\xff" * rng.randrange(1, 12) + b"\x01"
        else:
            j = rng.randrange(len(buf))
            buf[i:i] = buf[j:j + rng.randrange(1, 16)]
        out.append(bytes(buf))
    return out


def kind_of(path: Path) -> tuple[str, str, str]:
    group, version, kind = path.name.rsplit(".", 1)[0].rsplit(".", 2)
    return ("" if group == "core" else group), version, kind


def type_of(path: Path) -> Any:
    from kcodec.api import scheme
    from kcodec.schema import GroupVersionKind

    return type(scheme.new(GroupVersionKind(*kind_of(path))))


# ------------------------------------------------------------------------ the export lists


def test_every_kernel_has_a_compiled_twin() -> None:
    assert set(compiled.__all__) == set(pure.__all__), (
        f"missing: {set(pure.__all__) - set(compiled.__all__)}, "
        f"extra: {set(compiled.__all__) - set(pure.__all__)}")


def test_a_fresh_import_binds_every_compiled_kernel() -> None:
    # The kernels sit below kcodec.speedups and never import it (tests/test_layers.py), so
    # one import binds everything once, whatever is imported first.
    import os
    import subprocess
    import sys

    # Every kernel name must be bound to its compiled twin, not only ENABLED set.
    code = ("import kcodec.api.apps.v1\nfrom kcodec import speedups, _native, _speedups\n"
            "names = set(_native.__all__)\n"
            "assert names and set(speedups.KERNELS) == names, speedups.KERNELS\n"
            "wrong = [n for n in names if hasattr(_speedups, n) and getattr(speedups, n) is not getattr(_speedups, n)]\n"
            "assert not wrong, wrong\n"
            "print(speedups.ENABLED)")
    env = {k: v for k, v in os.environ.items() if k != "KCODEC_PURE"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_each_module_lists_what_it_provides() -> None:
    from kcodec._speedups import _codec, _wire

    assert set(_wire.__all__) == {
        "encode_varint", "decode_varint", "decode_signed_varint", "iter_fields", "marshal_unknown",
        "unmarshal_unknown", "envelope_encode", "envelope_decode", "envelope_span", "interpret_gvk"}
    assert set(_codec.__all__) == {"struct_to_tree", "fill_from_tree", "struct_to_proto", "fill_from_proto",
                                   "expand_raw_tree", "copy_plain_tree"}
    for mod in (_wire, _codec):
        for name in mod.__all__:
            assert callable(getattr(mod, name))


def _compiled_kernel_modules() -> list[str]:
    """The compiled modules that export kernels (``_arena``, ``_tables`` support the rest)."""
    import importlib

    names = []
    for pyx in sorted((Path(__file__).resolve().parents[2] / "kcodec" / "_speedups").glob("_*.pyx")):
        mod = importlib.import_module(f"kcodec._speedups.{pyx.stem}")
        if set(getattr(mod, "__all__", ())) & set(pure.__all__):
            names.append(pyx.stem)
    return names


def test_twins_pair_file_to_file() -> None:
    """``kcodec/_speedups/_X.pyx`` and ``kcodec/_native/X.py`` export the same kernels, with
    the same parameters (names, kinds, defaults), and every kernel lives in one such pair."""
    import importlib
    import inspect

    modules = _compiled_kernel_modules()
    assert set(modules) == {"_cbor", "_codec", "_convert", "_json", "_smd", "_wire", "_yaml"}
    seen: list[str] = []
    for stem in modules:
        cmod = importlib.import_module(f"kcodec._speedups.{stem}")
        pmod = importlib.import_module(f"kcodec._native.{stem[1:]}")
        kernels = set(pmod.__all__) & set(pure.__all__)
        assert set(cmod.__all__) == kernels, (stem, set(cmod.__all__) ^ kernels)
        for name in sorted(kernels):
            got = [(p.name, p.kind, p.default) for p in inspect.signature(getattr(cmod, name)).parameters.values()]
            want = [(p.name, p.kind, p.default) for p in inspect.signature(getattr(pmod, name)).parameters.values()]
            assert got == want, f"{stem}.{name}{inspect.signature(getattr(cmod, name))} against the pure twin's {want}"
            assert getattr(pure, name) is getattr(pmod, name)
        seen.extend(kernels)
    assert sorted(seen) == sorted(pure.__all__)


# ------------------------------------------------------------------------------ varints


@pytest.mark.parametrize("value", [
    0, 1, 127, 128, 300, 16383, 16384, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64,
    2**70, -1, -2, -(2**31), -(2**63), -(2**63) - 1, True, False, 1.5, "7", None,
])
def test_encode_varint(value: Any) -> None:
    same("encode_varint", value)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-(2**64), max_value=2**65))
def test_encode_varint_random(value: int) -> None:
    same("encode_varint", value)


@pytest.mark.parametrize("data", [
    b"", b"\x00", b"\x7f", b"\x80", b"\x80\x01", b"\xac\x02", b"\xff" * 9 + b"\x01", b"\xff" * 9 + b"\x7f",
    b"\xff" * 10 + b"\x01", b"\xff" * 11, b"\x80" * 10, b"\x80" * 9 + b"\x00",
])
@pytest.mark.parametrize("name", ["decode_varint", "decode_signed_varint"])
def test_decode_varint_edges(name: str, data: bytes) -> None:
    for pos in range(-2, len(data) + 2):
        for end in (-1, 0, 1, len(data), len(data) + 1):
            same(name, data, pos, end)
    same(name, bytearray(data), 0, -1)
    same(name, memoryview(data), 0)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=24), st.integers(-3, 26), st.integers(-2, 26))
def test_decode_varint_random(data: bytes, pos: int, end: int) -> None:
    same("decode_varint", data, pos, end)
    same("decode_signed_varint", data, pos, end)


# ------------------------------------------------------------------ fields and envelopes


def check_iter(data: Any, start: int = 0, end: int = -1) -> None:
    a = iter_outcome(pure, data, start, end)
    b = iter_outcome(compiled, data, start, end)
    assert a == b, f"iter_fields({data!r:.120}, {start}, {end}): {a!r:.300} != {b!r:.300}"


def check_unknown(data: bytes) -> None:
    res = same("envelope_decode", data)
    spans = same("envelope_span", data)
    # The span form fails exactly when the copying form does, and points at the same body.
    if res[0] == "error":
        assert spans == res
    else:
        av, kind, span, ce, ct = spans[1]
        assert (av, kind, ce, ct) == (res[1][0], res[1][1], res[1][3], res[1][4])
        assert (None if span is None else data[span[0]:span[1]]) == res[1][2]
    same("unmarshal_unknown", data[4:])
    same("unmarshal_unknown", bytearray(data[4:]))
    check_iter(data, 4)
    if res[0] == "ok":
        av, kind, raw, ce, ct = res[1]
        enc = same("envelope_encode", av, kind, raw, ce, ct)
        same("marshal_unknown", av, kind, raw, ce, ct)
        assert enc[0] == "ok"


@needs_fixtures
def test_envelopes_of_every_fixture() -> None:
    for path in PB_FIXTURES:
        data = path.read_bytes()
        check_unknown(data)
        av, kind, raw, ce, ct = compiled.envelope_decode(data)
        assert compiled.envelope_encode(av, kind, raw, ce, ct) == data
        check_iter(raw)


@needs_fixtures
def test_envelopes_of_hostile_bytes() -> None:
    rng = random.Random(1234)
    for path in PB_FIXTURES[::3]:
        data = path.read_bytes()
        for bad in mutations(data, rng, 12):
            check_unknown(bad)
        raw = compiled.envelope_decode(data)[2]
        for bad in mutations(raw, rng, 6):
            check_iter(bad)
            check_iter(bad, 1, len(bad) - 1)


@pytest.mark.parametrize("data", [
    b"", b"k", b"k8s", b"k8s\x00", b"k8s\x01x", b"K8s\x00\x0a\x00", b"k8s\x00\x0a\x00",
    b"k8s\x00\x12\x00", b"k8s\x00\x12", b"k8s\x00\x12\x05abc", b"k8s\x00\x12\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
    b"k8s\x00\x0a\x04\x0a\x02v1", b"k8s\x00\x0a\x04\x1a\x02v1", b"k8s\x00\x0a\x04\x08\x01\x12\x00",
    b"k8s\x00\x0a\x02\x0a\x05", b"k8s\x00\x08\x01", b"k8s\x00\x1d\x00\x00\x00\x00", b"k8s\x00\x8a\x00\x00",
    b"k8s\x00\x2a\x01x\x22\x02ab", b"k8s\x00\x00", b"k8s\x00\x0b", b"k8s\x00\x0c", b"k8s\x00\x0f",
    b"k8s\x00\x1a\x02\xff\xfe", b"k8s\x00\x09abcdefgh", b"k8s\x00\x09abc", b"k8s\x00\x0d\x01\x02",
    b"k8s\x00\xf8\xff\xff\xff\x0f\x00", b"k8s\x00\x80\x80\x80\x80\x80\x80\x80\x80\x80\x02\x00",
])
def test_envelope_edges(data: bytes) -> None:
    check_unknown(data)
    check_iter(data)
    check_iter(data, 4)


@pytest.mark.parametrize("args", [
    ("v1", "Pod", b"", "", ""), ("v1", "Pod", None, "", ""), ("", "", None, "", ""),
    ("a" * 200, "K" * 130, b"x" * 300, "gzip", "application/json"), ("\udcff", "\u00e9", b"\x00", "", ""),
    ("v1", "Pod", bytearray(b"ab"), "", ""), ("v1", 5, b"", "", ""), ("v1", "Pod", "raw", "", ""),
])
def test_marshal_unknown_edges(args: tuple[Any, ...]) -> None:
    same("marshal_unknown", *args)
    same("envelope_encode", *args)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_unknown_random_bytes(data: bytes) -> None:
    check_unknown(b"k8s\x00" + data)
    check_unknown(data)
    check_iter(data)


# ------------------------------------------------------------------------------ GVK


GVK_CASES = [
    b"", b" ", b"null", b" null ", b"nul", b"nullx", b"{}", b"{", b"[]", b"\"s\"", b"1", b"true",
    b'{"apiVersion":"1","kind":"object"}', b'{"apiVersion":"apps/v1","kind":"Deployment"}',
    b'{"apiVersion":"/v1","kind":"Foo"}', b'{"apiVersion":null}', b'{"Kind":"Pod","APIVERSION":"v1"}',
    b'{"kind":"A","kind":"B"}', b'{"kind":1}', b'{} x', b'{"apiVersion":"a/b/c"}', b'{"kind":"A",}',
    b'{"kind":"A" "x":1}', b'{"kind":"\\u0041"}', b'{"k\\u0069nd":"A"}', b'{"\xe2\x84\xaaind":"A"}',
    b'{"kind":"\xff"}', b'{"x":"\xff","kind":"A"}', b'{"x":[1,2,{"y":null}],"kind":"A"}',
    b'{"x":01}', b'{"x":-}', b'{"x":1.}', b'{"x":1e}', b'{"x":1e+5,"kind":"K"}', b'{"x":-0.5E-3}',
    b'{"x":"\\x"}', b'{"x":"\\u12"}', b'{"x":"a\x01b"}', b'\xef\xbb\xbf{"kind":"A"}', b'{"kind":true}',
    b'{"kind":null,"kind":"B"}', b'{"kind":"B","kind":null}', b'{"kind":{}}', b'{"kind":[]}',
    b'{"apiVersion":"v1","kind":"","x":1e1000}', b'[' * 2000 + b']' * 2000, b'{"a":' * 1100 + b'1' + b'}' * 1100,
    b'{"a":' * 20000 + b'1' + b'}' * 20000, b'\t\n\r {"kind" : "Pod" }\r\n', b'{"kInD":"x","ApIvErSiOn":"g/v"}',
    b'{"kind":"A"}garbage', b'{"kind":"A"}}', b'{"kind":"A"]', b'{"kind"}', b'{"kind":}', b'{:"A"}',
    b'{"apiversion":"v1"}', b'{"apiVersion":"","kind":""}', b'{"apiVersion":"g/","kind":"K"}',
    b'truex', b'{"x":tru}', b'{"x":nul}', b'{"x":fals}', b'{"x":falsey}', b'{"a":"\\ud800"}',
]


@pytest.mark.parametrize("data", GVK_CASES, ids=range(len(GVK_CASES)))
def test_interpret_gvk_edges(data: bytes) -> None:
    same("interpret_gvk", data)


@needs_fixtures
def test_interpret_gvk_fixtures_and_mutations() -> None:
    rng = random.Random(99)
    for path in JSON_FIXTURES:
        data = path.read_bytes()
        res = same("interpret_gvk", data)
        assert res[0] == "ok"
        same("interpret_gvk", bytearray(data))
    # Past the size where the compiled kernel scans by itself again.
    pod = (FIXTURES / "core.v1.Pod.json").read_bytes()
    items = b",".join([pod] * (4 * 1024 * 1024 // len(pod) + 2))
    big = b'{"items":[' + items + b'],"kind":"PodList","apiVersion":"v1"}'
    assert same("interpret_gvk", big)[0] == "ok"
    same("interpret_gvk", big[:-2])
    for path in JSON_FIXTURES[::9]:
        data = path.read_bytes()
        for cut in range(0, len(data), max(1, len(data) // 40)):
            same("interpret_gvk", data[:cut])
        for bad in mutations(data, rng, 20):
            same("interpret_gvk", bad)


# Whitespace runs and strings placed so that they start and stop at every offset of the
# scanner's 16-byte blocks (and across the 64-byte blocks other JSON scanners use).
_WS_FILLERS = [b" ", b"\t", b"\n", b"\r", b"\n  ", b" \t"]
_NOT_WS = [b"\x0b", b"\x0c", b"\x00", b"\x1f", b"\x85", b"\xa0", b"x"]


def gvk_whitespace_documents() -> list[bytes]:
    docs = []
    for run in range(71):
        for filler in _WS_FILLERS:
            ws = (filler * run)[:run]
            docs.append(b'{"a":1,' + ws + b'"kind":' + ws + b'"Pod"' + ws + b"}")
            docs.append(ws + b'{"x":[' + ws + b"1" + ws + b"]," + ws + b'"apiVersion"' + ws + b':"v1"}' + ws)
        # A non-whitespace byte where a run of spaces stops, or inside it.
        for bad in _NOT_WS:
            docs.append(b'{"kind":' + b" " * run + bad + b'"Pod"}')
            docs.append(b'{"kind":"Pod"' + b" " * run + bad + b"}")
            docs.append(b'{"kind":"Pod",\n' + b" " * (run // 2) + bad + b" " * (run - run // 2) + b'"x":1}')
        # Runs of spaces broken by one other whitespace byte at every position.
        for other in (b"\t", b"\n", b"\r"):
            ws = b" " * run + other + b" " * (70 - run)
            docs.append(b'{"kind":' + ws + b'"Pod",' + ws + b'"apiVersion":"v1"}')
    return docs


def gvk_string_documents() -> list[bytes]:
    docs = []
    for lead in range(0, 70, 3):
        pad = b"y" * lead
        for inner in (b"", b"abc", b"\\\"", b"\\\\", b"\\u00e9", b"\\n", b"\xc3\xa9", b"\x01", b"\x1f",
                      b"\x7f", b"\\", b"\\x", b"\\u12g4", b"\xff", b"\t"):
            for tail in range(0, 20, 5):
                value = pad + inner + b"z" * tail
                docs.append(b'{"x":"' + value + b'","kind":"Pod"}')
                docs.append(b'{"kind":"' + value + b'"}')
                docs.append(b'{"' + value + b'":"a","apiVersion":"v1"}')
    return docs


def test_interpret_gvk_block_edges() -> None:
    for data in gvk_whitespace_documents() + gvk_string_documents():
        same("interpret_gvk", data)
        for cut in range(len(data) - 1, max(-1, len(data) - 20), -1):
            same("interpret_gvk", data[:cut])


@needs_fixtures
def test_interpret_gvk_pretty_fixture_reindented() -> None:
    # The pretty Pod with its indentation runs lengthened, shortened and retyped.
    pod = (FIXTURES / "core.v1.Pod.json").read_bytes()
    for step in range(0, 40, 3):
        for unit in (b" ", b"\t", b"\r\n"):
            lines = pod.split(b"\n")
            data = b"\n".join(unit * (len(line) - len(line.lstrip(b" ")) + step) + line.lstrip(b" ")
                              for line in lines)
            assert same("interpret_gvk", data)[0] == "ok"
            same("interpret_gvk", data[: len(data) * 2 // 3])


@settings(max_examples=300, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(
        st.sampled_from(["kind", "apiVersion", "Kind", "APIVERSION", "x", "k", "KIND"]) | st.text(max_size=5),
        children, max_size=4),
    max_leaves=12))
def test_interpret_gvk_random_documents(doc: Any) -> None:
    import json

    data = json.dumps(doc, ensure_ascii=False).encode()
    same("interpret_gvk", data)
    same("interpret_gvk", json.dumps(doc, indent=1).encode())


def _fast_levels() -> list[int]:
    from kcodec._speedups import _wire

    return [lv for lv in _wire._gvk_levels() if lv > 0]


def check_fast_sniff(data: bytes) -> None:
    """Parity at every level, and the two-stage sniff itself never accepts a document the
    pure kernel rejects, nor answers differently from it."""
    from kcodec._speedups import _wire

    res = same("interpret_gvk", data)
    for level in _fast_levels():
        rc = _wire._gvk_fast_rc(data, level)
        if res[0] == "error" and "json parse error" in res[2] and "cannot unmarshal" not in res[2]:
            assert rc == -1, f"level {level} accepted {data!r:.300}: {res!r:.200}"


@needs_fixtures
def test_gvk_fast_sniff_answers_plain_documents() -> None:
    # The fast path must really run: every fixture is answered by it at every level.
    from kcodec._speedups import _wire

    for path in JSON_FIXTURES:
        data = path.read_bytes()
        for level in _fast_levels():
            assert _wire._gvk_fast_rc(data, level) == 0, (path.name, level)
    # Escapes inside strings below the top level (and in top-level values of other keys)
    # are read by the block scan too, wherever they fall in the 64-byte blocks.
    for lead in range(0, 140, 3):
        for esc in (b'\\"', b"\\\\", b"\\u00e9", b"\\n\\t\\/", b'\\\\\\"', b"\\ud800x"):
            for data in (b'{"kind":"Pod","x":"' + b"y" * lead + esc + b'","apiVersion":"v1"}',
                         b'{"x":{"' + b"y" * lead + esc + b'":["' + esc + b'","' + esc + b'"]},'
                         b'"kind":"Pod"}'):
                assert same("interpret_gvk", data)[0] == "ok"
                for level in _fast_levels():
                    assert _wire._gvk_fast_rc(data, level) == 0, (data, level)
    for data in (b"null", b" null\n", b"{}", b'{"kind":"Pod","apiVersion":"v1","x":[1,-2.5e3,true,false,null,{}]}'):
        for level in _fast_levels():
            assert _wire._gvk_fast_rc(data, level) >= 0, (data, level)


def test_gvk_cache_of_built_kinds() -> None:
    # The compiled kernel keeps the GroupVersionKind built per (apiVersion, kind): answers
    # stay those of the pure kernel on repeats, past the cache's bound, and for the
    # apiVersion that raises (never cached).
    docs = [b'{"apiVersion":"g%d/v1","kind":"K%d"}' % (i % 700, i) for i in range(1500)]
    docs += [b'{"kind":"Pod"}', b'{"apiVersion":"v1"}', b'{"apiVersion":"","kind":""}', b'{"apiVersion":"a/b/c","kind":"K"}']
    for _ in range(2):
        for data in docs:
            same("interpret_gvk", data)


def test_gvk_fast_sniff_dense_blocks() -> None:
    # Blocks where most or all 64 bytes are listed positions (the flattening writes them
    # 4 or 16 at a time), at every offset, whole and cut.
    for lead in range(0, 66, 5):
        for body in (b"[]," * 40 + b"[]", b"0," * 60 + b"0", b"{}," * 40 + b"{}", b"[[[[[[[[]]]]]]]]," * 8 + b"1"):
            data = b'{"kind":"Pod","x":[' + b" " * lead + body + b'],"apiVersion":"v1"}'
            assert same("interpret_gvk", data)[0] == "ok"
            for level in _fast_levels():
                from kcodec._speedups import _wire

                assert _wire._gvk_fast_rc(data, level) == 0
            for cut in range(len(data) - 80, len(data), 7):
                check_fast_sniff(data[:cut])


# Bytes that matter to the block classifiers, the number and literal readers and the grammar.
_SPLICE = [b'"', b"\\", b"{", b"}", b"[", b"]", b":", b",", b" ", b"\t", b"\n", b"\r", b"\x00", b"\x0c",
           b"\x1a", b"\x1f", b"\x7f", b"\x80", b"\xff", b"\xc3\xa9", b"0", b"-", b"1e", b".5", b"x", b"n",
           b"true", b"nul", b"null", b"ka", b"\\u00", b'""', b"{}", b"[]", b'"kind":', b" " * 70]

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(max_codepoint=0x2FF), max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["kind", "apiVersion", "Kind", "APIVERSION", "x", "k"]) | st.text(max_size=5),
        children, max_size=4),
    max_leaves=20)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json_values, st.sampled_from([None, 0, 1, 2, 7]), st.booleans(),
       st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 3), st.sampled_from(_SPLICE)), max_size=3),
       st.integers(0, 130))
def test_gvk_fast_sniff_generated_and_broken(doc: Any, indent: Any, ascii_only: bool,
                                              edits: list[tuple[int, int, bytes]], lead: int) -> None:
    # Generated JSON (compact or indented, some with a leading run of whitespace that moves
    # every byte across the 64-byte blocks), then broken by splicing, replacing or cutting
    # bytes: compiled (every sniff level) and pure agree on results and on error texts.
    import json

    data = b" " * lead + json.dumps({"kind": "Pod", "x": doc, "apiVersion": "v1"} if lead % 3 else doc,
                                    indent=indent, ensure_ascii=ascii_only).encode()
    check_fast_sniff(data)
    for at, how, piece in edits:
        i = at % (len(data) + 1)
        if how == 0:
            data = data[:i] + piece + data[i:]
        elif how == 1:
            data = data[:i] + piece + data[i + len(piece):]
        elif how == 2:
            data = data[:i] + data[i + len(piece):]
        else:
            data = data[:i]
        check_fast_sniff(data)


# ------------------------------------------------------------------ typed structs


class Leaf(Struct):
    name: str = field(1, "name", omitempty=True)
    size: Int32 = field(2, "size")
    ratio: float = field(3, "ratio", omitempty=True)


class Base(Struct):
    base_note: str = field(20, "baseNote", omitempty=True)
    base_flag: bool = field(21, "baseFlag")


class Kitchen(Struct):
    """Every kind of field the tables know."""

    s: str = field(1, "s")
    ps: str | None = field(2, "ps", omitempty=True)
    b: bool = field(3, "b", omitempty=True)
    pb: bool | None = field(4, "pb", omitempty=True)
    i32: Int32 = field(5, "i32", omitempty=True)
    i64: int = field(6, "i64")
    pi64: int | None = field(7, "pi64", omitempty=True)
    f: float = field(8, "f", omitempty=True)
    raw: bytes | None = field(9, "raw", omitempty=True)
    leaf: Leaf = field(10, "leaf")
    pleaf: Leaf | None = field(11, "pleaf", omitempty=True)
    leaves: list[Leaf] | None = field(12, "leaves", omitempty=True)
    names: list[str] | None = field(13, "names")
    nums: list[int] | None = field(14, "nums", omitempty=True)
    flags: list[bool] | None = field(15, "flags", omitempty=True)
    floats: list[float] | None = field(16, "floats", omitempty=True)
    blobs: list[bytes] | None = field(17, "blobs", omitempty=True)
    verbs: Annotated_verbs = field(18, "verbs", omitempty=True)  # type: ignore[valid-type]  # noqa: F821
    labels: dict[str, str] | None = field(19, "labels", omitempty=True)
    counts: dict[str, Int32] | None = field(22, "counts", omitempty=True)
    sub: dict[str, Leaf] | None = field(23, "sub", omitempty=True)
    bmap: dict[str, bytes] | None = field(24, "bmap", omitempty=True)
    qty: Quantity = field(25, "qty", omitzero=True)
    pqty: Quantity | None = field(26, "pqty", omitempty=True)
    ios: IntOrString = field(27, "ios")
    qmap: dict[str, Quantity] | None = field(28, "qmap", omitempty=True)
    qlist: list[Quantity] | None = field(29, "qlist", omitempty=True)
    base: Base = field(0, "", inline=True)
    anything: Any = field(0, "anything", omitempty=True)
    hidden: str = field(0, "-")
    wrapped_map: dict[str, Annotated_verbs] | None = field(30, "wrappedMap", omitempty=True)  # type: ignore[valid-type]  # noqa: F821
    big: Int32 = field(3000, "big", omitempty=True)
    pf: float | None = field(31, "pf", omitempty=True)


# The wrapped-list annotation is resolved lazily by name from this module's globals.
from typing import Annotated  # noqa: E402

Annotated_verbs = Annotated[list[str], Wrapped]


_QUANTITIES = ["0", "1", "100m", "1.5Gi", "128Mi", "2k", "1e3", "-7", "12345678901234567890"]
_LEAF_NAMES = st.sampled_from(["", "a", "pod", "é", "\udcff", "x" * 70, "web-1"])


def leaf_strategy() -> st.SearchStrategy[Leaf]:
    return st.builds(Leaf, name=_LEAF_NAMES, size=st.integers(-(2**31), 2**31 - 1),
                     ratio=st.floats(allow_nan=False))


def kitchen_strategy() -> st.SearchStrategy[Kitchen]:
    opt = lambda s: st.none() | s  # noqa: E731
    text = st.text(max_size=12) | _LEAF_NAMES
    return st.builds(
        Kitchen,
        s=text, ps=opt(text), b=st.booleans(), pb=opt(st.booleans()),
        i32=st.integers(-(2**31), 2**31 - 1), i64=st.integers(-(2**63), 2**63 - 1),
        pi64=opt(st.integers(-(2**63), 2**63 - 1)), f=st.floats(allow_nan=False),
        raw=opt(st.binary(max_size=8)), leaf=leaf_strategy(), pleaf=opt(leaf_strategy()),
        leaves=opt(st.lists(leaf_strategy(), max_size=3)), names=opt(st.lists(text, max_size=3)),
        nums=opt(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3)),
        flags=opt(st.lists(st.booleans(), max_size=3)),
        floats=opt(st.lists(st.floats(allow_nan=False), max_size=3)),
        blobs=opt(st.lists(st.binary(max_size=4), max_size=3)),
        verbs=opt(st.lists(text, max_size=3)),
        labels=opt(st.dictionaries(text, text, max_size=3)),
        counts=opt(st.dictionaries(text, st.integers(-(2**31), 2**31 - 1), max_size=3)),
        sub=opt(st.dictionaries(text, leaf_strategy(), max_size=2)),
        bmap=opt(st.dictionaries(text, st.none() | st.binary(max_size=4), max_size=2)),
        qty=st.sampled_from(_QUANTITIES).map(Quantity),
        pqty=opt(st.sampled_from(_QUANTITIES).map(Quantity)),
        ios=st.integers(-5, 5).map(IntOrString.from_int) | text.map(IntOrString.from_string),
        qmap=opt(st.dictionaries(text, st.sampled_from(_QUANTITIES).map(Quantity), max_size=2)),
        qlist=opt(st.lists(st.sampled_from(_QUANTITIES).map(Quantity), max_size=2)),
        base=st.builds(Base, base_note=text, base_flag=st.booleans()),
        anything=st.none() | st.integers() | st.lists(st.text(max_size=3), max_size=2),
        hidden=text,
        wrapped_map=opt(st.dictionaries(text, st.lists(text, max_size=2), max_size=2)),
        big=st.integers(-(2**31), 2**31 - 1), pf=opt(st.floats(allow_nan=False)),
    )


def decode_both(cls: Any, data: bytes, path: str = "T", into: Callable[[], Any] | None = None) -> Any:
    model.fields_of(cls)
    objs = []
    results = []
    for kernels in (pure, compiled):
        obj = into() if into is not None else cls._new_zero()
        results.append(outcome(kernels.fill_from_proto, obj, cls, data, path))
        objs.append(obj)
    assert results[0] == results[1], f"{cls.__name__} {data!r:.200}: {results[0]!r:.300} != {results[1]!r:.300}"
    if results[0][0] == "ok":
        assert objs[0] == objs[1]
        return objs[0]
    return None


def encode_both(obj: Any) -> tuple[Any, ...]:
    model.fields_of(type(obj))
    return same("struct_to_proto", obj)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kitchen_strategy())
def test_random_objects_encode_decode_and_tree(obj: Kitchen) -> None:
    enc = encode_both(obj)
    tree = same("struct_to_tree", obj)
    if enc[0] == "ok":
        back = decode_both(Kitchen, enc[1], "Kitchen")
        assert back is not None
    if tree[0] == "ok":
        for strict in (None, []):
            objs = []
            for kernels in (pure, compiled):
                target = Kitchen._new_zero()
                s = None if strict is None else []
                res = outcome(kernels.fill_from_tree, target, Kitchen, model._expand_raw(tree[1]), s, "Kitchen")
                objs.append((res, target, s))
            assert objs[0] == objs[1]


def _nested(depth: int) -> Any:
    tree: Any = {"leaf": model.RawJSON(b'{"deep": [1, 2.5]}')}
    for i in range(depth):
        tree = {"k": [tree, i]} if i % 2 else [tree]
    return tree


def _plain_nested(depth: int) -> Any:
    tree: Any = {"leaf": [1, "x", None]}
    for i in range(depth):
        tree = {"k": [tree, i]} if i % 2 else [tree]
    return tree


class _Labels(dict):  # a dict subclass: walked through its own items()
    pass


@pytest.mark.parametrize("tree", [
    {"a": 1, "b": [True, None, 2.5, "s"], "c": {}},
    {"raw": model.RawJSON(b'{"x": {"y": [1, "two"]}}'), "blank": model.RawJSON(b"  "), "n": None},
    [model.RawJSON(b"12345678901234567890"), model.RawJSON(b'"text"')],
    model.RawJSON(b"[1, 2]"),
    {"bad": model.RawJSON(b"{not json")},
    {"sub": _Labels(a=model.RawJSON(b"1")), "tuple": (1, 2)},
    _nested(150),
], ids=["plain", "raw", "raw-list", "raw-root", "raw-invalid", "subclass", "nested-150"])
def test_expand_raw_tree_alike(tree: Any) -> None:
    res = same("expand_raw_tree", tree)
    if res[0] == "ok" and isinstance(tree, dict) and tree:
        assert res[1] is not tree  # a copy: the model's untyped values are never shared


@pytest.mark.parametrize("tree", [
    {"a": 1, "b": [True, None, 2.5, "s", [[]]], "c": {}, "d": {"e": {"f": -1}}},
    [1, {"x": [{}]}],
    "scalar",
    {"t": (1, 2)},
    {1: "a"},
    {"sub": _Labels(a=1)},
    [model.RawJSON(b"1")],
    _plain_nested(150),
    _plain_nested(5000),  # past the recursion limit in both
], ids=["plain", "list", "scalar", "tuple", "int-key", "subclass", "raw", "nested-150", "nested-5000"])
def test_copy_plain_tree_alike(tree: Any) -> None:
    res = same("copy_plain_tree", tree)
    if res[0] == "ok" and isinstance(tree, (dict, list)) and tree:
        assert res[1] is not tree


def test_copy_plain_tree_of_every_json_fixture_alike() -> None:
    import json

    for path in JSON_FIXTURES:
        tree = json.loads(path.read_bytes())
        res = same("copy_plain_tree", tree)
        assert res == ("ok", tree), path.name


def test_expand_raw_tree_deeper_than_the_recursion_limit() -> None:
    # Beyond the compiled walk's C recursion the iterative walk takes over; compared as
    # Go's JSON text, whose writer is iterative too (== on such trees overflows).
    from kcodec import gojson

    tree = _nested(5000)
    a, b = pure.expand_raw_tree(tree), compiled.expand_raw_tree(tree)
    assert gojson.dumps(a) == gojson.dumps(b)
    leaf = b
    while not (isinstance(leaf, dict) and "leaf" in leaf):
        leaf = leaf[0] if isinstance(leaf, list) else leaf["k"]
    assert leaf["leaf"] == {"deep": [1, 2.5]}


def test_struct_without_protobuf_number_for_untyped_value_fails_alike() -> None:
    class Loose(Struct):
        a: Any = field(1, "a")

    obj = Loose(a={"x": 1})
    res = encode_both(obj)
    assert res[0] == "error"


@needs_fixtures
def test_every_pb_fixture_decodes_and_reencodes_alike() -> None:
    for path in PB_FIXTURES:
        cls = type_of(path)
        raw = compiled.envelope_decode(path.read_bytes())[2]
        obj = decode_both(cls, raw, cls.__name__)
        assert obj is not None, path.name
        enc = encode_both(obj)
        assert enc == ("ok", raw), path.name
        same("struct_to_tree", obj)


@needs_fixtures
def test_pb_fixtures_decode_in_place_and_encode_into_the_envelope() -> None:
    from kcodec import wire as _pbwire

    for path in PB_FIXTURES:
        cls = type_of(path)
        data = path.read_bytes()
        av, kind, span, ce, ct = compiled.envelope_span(data)
        raw = data[span[0]:span[1]]
        objs = []
        for kernels in (pure, compiled):
            obj = cls._new_zero()
            kernels.fill_from_proto(obj, cls, data, cls.__name__, span[0], span[1])
            objs.append(obj)
        assert objs[0] == objs[1] == decode_both(cls, raw, cls.__name__), path.name
        head, tail = _pbwire.envelope_parts(av, kind, ce, ct)
        for kernels in (pure, compiled):
            assert kernels.struct_to_proto(objs[0], head, tail) == data, path.name


@needs_fixtures
def test_truncated_bodies_leave_the_same_partial_object() -> None:
    # A failed decode leaves the caller's object partly filled (lists attached before
    # their runs end, nested structs half read): the compiled walker must leave exactly
    # what the pure one leaves, and every field must still hold a value.
    path = FIXTURES / "core.v1.Pod.pb"
    cls = type_of(path)
    raw = compiled.envelope_decode(path.read_bytes())[2]
    failed = 0
    for cut in range(1, len(raw), 5):
        objs = []
        for kernels in (pure, compiled):
            obj = cls._new_zero()
            res = outcome(kernels.fill_from_proto, obj, cls, raw[:cut], cls.__name__)
            objs.append((res[1:] if res[0] == "error" else None, obj))
        (err_a, a), (err_b, b) = objs
        assert err_a == err_b, cut
        failed += err_a is not None
        assert a == b, cut
        assert compiled.struct_to_proto(b) == pure.struct_to_proto(a), cut
    assert failed > len(raw) // 10


def test_every_one_byte_tag_decodes_alike() -> None:
    """The compiled walker reads a one-byte tag of a known field with its own wire type
    through a per-table lookup and everything else the general way: every tag byte, with
    a few payloads, at the top and inside a nested struct, must give the pure walker's
    object or error (unknown fields skipped, wrong wire types, end groups, field 0)."""
    payloads = (b"", b"\x01", b"\x03abc", b"\x00" * 8, b"\x02\x08\x01", b"\x81")
    for tag in range(128):
        for payload in payloads:
            body = bytes([tag]) + payload
            decode_both(Kitchen, body, "Kitchen")
            decode_both(Leaf, body, "Leaf")
            decode_both(Kitchen, b"\x52" + bytes([len(body)]) + body, "Kitchen")
            # After a valid first field, so that the tag is not the first byte read.
            decode_both(Kitchen, b"\x0a\x01s" + body, "Kitchen")


def test_span_errors_count_from_the_span_start_in_both_twins() -> None:
    body = compiled.struct_to_proto(Kitchen(s="x", names=["n"], labels={"a": "b"}, leaf=Leaf(size=2)))
    cut = body[:-1]
    padded = b"\xff" * 7 + cut + b"\xff" * 3
    whole = outcome(pure.fill_from_proto, Kitchen._new_zero(), Kitchen, cut, "K")
    assert whole[0] == "error"
    for kernels in (pure, compiled):
        got = outcome(kernels.fill_from_proto, Kitchen._new_zero(), Kitchen, padded, "K", 7, 7 + len(cut))
        assert got == whole
        for start, end in ((-1, 3), (5, 2), (0, len(padded) + 1)):
            bad = outcome(kernels.fill_from_proto, Kitchen._new_zero(), Kitchen, padded, "K", start, end)
            assert bad[:2] == ("error", ValueError)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kitchen_strategy(), st.binary(max_size=6), st.binary(max_size=4))
def test_framed_encoding_matches_in_both_twins(obj: Kitchen, prefix: bytes, suffix: bytes) -> None:
    model.fields_of(Kitchen)
    plain = outcome(pure.struct_to_proto, obj)
    if plain[0] != "ok":
        return
    from kcodec.wire import encode_varint

    want = prefix + encode_varint(len(plain[1])) + plain[1] + suffix
    assert same("struct_to_proto", obj, prefix, suffix) == ("ok", want)


@needs_fixtures
def test_every_json_fixture_fills_alike() -> None:
    from kcodec import gojson as _gojson

    for path in JSON_FIXTURES:
        cls = type_of(path)
        model.fields_of(cls)
        for strict in (False, True):
            tree = _gojson.loads(path.read_bytes(), strict=strict)
            runs = []
            for kernels in (pure, compiled):
                obj = cls._new_zero()
                errs: list[str] | None = [] if strict else None
                runs.append((outcome(kernels.fill_from_tree, obj, cls, tree, errs, cls.__name__), obj, errs))
            assert runs[0] == runs[1], path.name
            assert runs[0][0][0] == "ok", runs[0][0]


@needs_fixtures
def test_hostile_protobuf_bodies() -> None:
    rng = random.Random(4321)
    for path in PB_FIXTURES[::2]:
        cls = type_of(path)
        raw = compiled.envelope_decode(path.read_bytes())[2]
        for bad in mutations(raw, rng, 8):
            decode_both(cls, bad, cls.__name__)


HOSTILE_BODIES = [
    b"\x00", b"\x08", b"\x08\x80", b"\x08" + b"\xff" * 10, b"\x08" + b"\xff" * 9 + b"\x01", b"\x0a\x05ab",
    b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x0b", b"\x0c", b"\x0f", b"\x0d\x00\x00",
    b"\x09\x00", b"\x41" + b"\x00" * 7, b"\x41" + b"\x00" * 8, b"\x52\x02\x08\x01", b"\x52\x03\x08\x80",
    b"\x52\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", b"\x62\x04\x0a\x02ab", b"\x62\x03\x0a\x05a",
    b"\x72\x03\x01\x80\x01", b"\x72\x02\x01\x80", b"\x70\x05\x70\xff\xff\xff\xff\x0f", b"\x7a\x02\x08\x00",
    b"\x82\x01\x02\x01\x02", b"\x8a\x01\x06\x08\x01\x10\x00\x18\x01", b"\x92\x01\x04\x0a\x02ab",
    b"\x9a\x01\x07\x0a\x01k\x12\x02\x08\x01", b"\x9a\x01\x03\x12\x01x", b"\x9a\x01\x02\x0a\x05",
    b"\x9a\x01\x04\x08\x01\x0a\x00", b"\xb2\x01\x05\x0a\x01k\x10\x07", b"\xba\x01\x03\x0a\x01k",
    b"\xc2\x01\x03\x0a\x01k", b"\xca\x01\x04\x0a\x02\xff\xfe", b"\xca\x01\x03\x0a\x01z", b"\xd2\x01\x00",
    b"\xda\x01\x05\x08\x01\x10\x09", b"\xea\x01\x05\x0a\x01\x31\x0a\x00", b"\xf2\x01\x00", b"\xc0\xbb\x01\x05",
    b"\xc0\xbb\x01\xff\xff\xff\xff\x0f", b"\xc5\xbb\x01\x00\x00\x00\x00", b"\xfa\x01\x04\x0a\x01k\x12\x00",
    b"\xa2\x01\x02\x08\x01", b"\xa8\x01\x01", b"\xaa\x01\x00", b"\x0a\x02\xed\xa0", b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01\x00",
    b"\xf8\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00", b"\xfa\x01\x05\x0a\x01k\x12\x05", b"\x82\x01\x01\x03",
    b"\xfa\x01\x08\x0a\x01k\x12\x03\x0a\x01x", b"\xfa\x01\x03\x12\x01\x0a",
]


@pytest.mark.parametrize("data", HOSTILE_BODIES, ids=range(len(HOSTILE_BODIES)))
def test_hostile_kitchen_bodies(data: bytes) -> None:
    decode_both(Kitchen, data, "Kitchen")
    decode_both(Kitchen, bytearray(data), "Kitchen")


class Deep(Struct):
    child: Deep | None = field(1, "child", omitempty=True)
    n: int = field(2, "n")


def test_nesting_depth_limit_alike() -> None:
    body = b"\x10\x01"
    for _ in range(120):
        body = b"\x0a" + compiled.encode_varint(len(body)) + body
    decode_both(Deep, body, "Deep")
    for depth in (99, 100, 101, 102):
        msg = b"\x10\x05"
        for _ in range(depth):
            msg = b"\x0a" + compiled.encode_varint(len(msg)) + msg
        obj = decode_both(Deep, msg, "Deep")
        if obj is not None:
            encode_both(obj)
            same("struct_to_tree", obj)


def test_merging_into_existing_objects_alike() -> None:
    def into() -> Kitchen:
        return Kitchen(s="old", names=["kept"], labels={"a": "1"}, leaves=[Leaf(name="L")],
                       leaf=Leaf(name="n", size=3), sub={"x": Leaf()}, verbs=["get"])

    body = compiled.struct_to_proto(Kitchen(s="new", names=["n2"], labels={"b": "2"}, leaves=[Leaf(size=1)],
                                            leaf=Leaf(ratio=2.5), sub={"x": Leaf(size=9)}, verbs=["list"]))
    obj = decode_both(Kitchen, body, "Kitchen", into)
    assert obj.names == ["kept", "n2"] and obj.labels == {"a": "1", "b": "2"}
    # Value scalars are always on the wire: the nested message overwrites them.
    assert obj.leaf == Leaf(ratio=2.5) and obj.verbs == ["list"]
    tree = {"s": None, "ps": None, "names": None, "labels": {"c": "3"}, "leaf": {"size": 7}, "i64": None,
            "sub": {"y": {"name": "q"}}, "baseNote": "inl", "nums": [1, 2], "raw": "AAE=", "f": None}
    runs = []
    for kernels in (pure, compiled):
        target = into()
        runs.append((outcome(kernels.fill_from_tree, target, Kitchen, tree, [], "Kitchen"), target))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("tree", [
    {"s": 1}, {"i32": 2**31}, {"i32": 1.5}, {"i64": "1"}, {"b": 1}, {"leaf": []}, {"leaf": {"size": "x"}},
    {"names": {}}, {"names": [1]}, {"labels": []}, {"labels": {"a": 1}}, {"counts": {"a": 2**40}},
    {"raw": "!!"}, {"raw": 5}, {"raw": "\u00e9"}, {"f": "1"}, {"f": True}, {"qty": "bogus"}, {"ios": True},
    {"leaves": [{"name": 3}]}, {"sub": {"k": {"size": None}}}, {"unknown": 1, "s": "x"}, {"ps": 5},
    {"pb": "x"}, {"pleaf": 3}, {"baseFlag": "no"}, {"verbs": [1]}, {"wrappedMap": {"a": [2]}},
])
def test_tree_type_errors_alike(tree: dict[str, Any]) -> None:
    for strict in (None, []):
        runs = []
        for kernels in (pure, compiled):
            target = Kitchen._new_zero()
            s = None if strict is None else []
            runs.append((outcome(kernels.fill_from_tree, target, Kitchen, tree, s, "Kitchen"), target, s))
        assert runs[0] == runs[1]


@pytest.mark.parametrize("setup", ["unset", "wrong_type", "subclass", "bad_list", "bad_custom"])
def test_unusual_objects_alike(setup: str) -> None:
    """Objects the slot offsets must not be used on, and values of the wrong type."""

    class Sub(Kitchen):
        extra: str = field(40, "extra", omitempty=True)

    def make() -> Any:
        if setup == "unset":
            return object.__new__(Kitchen)
        if setup == "wrong_type":
            k = Kitchen()
            object.__setattr__(k, "s", 5)
            object.__setattr__(k, "i32", "x")
            return k
        if setup == "subclass":
            return Sub(s="sub", extra="e", names=["a"])
        if setup == "bad_list":
            k = Kitchen()
            object.__setattr__(k, "names", ("t", "u"))
            object.__setattr__(k, "labels", {"k": 3})
            return k
        k = Kitchen()
        object.__setattr__(k, "qty", "notaquantity")
        return k

    model.fields_of(Sub)
    for fn in ("struct_to_proto", "struct_to_tree"):
        a = outcome(getattr(pure, fn), make())
        b = outcome(getattr(compiled, fn), make())
        assert a == b
    body = compiled.struct_to_proto(Kitchen(s="x", names=["n"], labels={"a": "b"}, leaf=Leaf(size=2)))
    runs = []
    for kernels in (pure, compiled):
        target = make()
        res = outcome(kernels.fill_from_proto, target, Kitchen, body, "Kitchen")
        runs.append((res, repr(res[2]) if res[0] == "error" else model.to_tree(target) if setup != "unset" else None))
    assert runs[0][0][:2] == runs[1][0][:2]
    assert runs[0] == runs[1]


def test_table_mirrors_the_model() -> None:
    from kcodec.api.core import v1

    for cls in (Kitchen, Leaf, v1.Pod, v1.PodSpec, v1.Container):
        table = _tables._table(cls)
        assert [r.name for r in table.fields] == [f.name for f in model.fields_of(cls)]
        assert [r.number for r in table.pb] == [f.number for f in cls.__kc_pb__]
        assert set(table.json) == set(cls.__kc_json__)
        assert table.direct
        fast = _tables._new_zero(cls)
        assert type(fast) is cls
        assert fast == model.Struct._new_zero.__func__(cls)
        for row in table.fields:
            assert row.offset > 0
            assert getattr(fast, row.name) == model._zero_of(row.info)
            # Value structs get their own zero instance; nothing mutable is shared.
            if row.kind == K_STRUCT and not row.pointer:
                assert getattr(fast, row.name) is not getattr(_tables._new_zero(cls), row.name)
        assert _tables._table(cls) is table


def test_decoded_immutable_values_are_shared_but_equal() -> None:
    k = Kitchen(qlist=[Quantity("1Gi"), Quantity("1Gi")], qmap={"a": Quantity("1Gi")})
    body = compiled.struct_to_proto(k)
    a = Kitchen._new_zero()
    b = Kitchen._new_zero()
    pure.fill_from_proto(a, Kitchen, body, "K")
    compiled.fill_from_proto(b, Kitchen, body, "K")
    assert a == b
    assert b.qlist[0] is b.qlist[1] is b.qmap["a"]
    assert a.qlist[0] is not a.qlist[1]


class Managed(Struct):
    entries: list[FieldsV1] | None = field(1, "entries")
    one: FieldsV1 | None = field(2, "one", omitempty=True)


def test_repeated_mutable_custom_values_are_not_shared() -> None:
    model.fields_of(Managed)
    fv = FieldsV1(b'{"f:metadata":{}}')
    body = compiled.struct_to_proto(Managed(entries=[fv, fv, FieldsV1(b"{}")], one=fv))
    obj = decode_both(Managed, body, "Managed")
    got = Managed._new_zero()
    compiled.fill_from_proto(got, Managed, body, "Managed")
    assert got == obj
    assert got.entries[0] == got.entries[1] == got.one and got.entries[0] is not got.entries[1]
    got.entries[0].raw = b"{}"
    assert got.entries[1].raw == b'{"f:metadata":{}}' and got.one.raw == b'{"f:metadata":{}}'


class _BracedFields(FieldsV1):
    """A subclass with its own body: the compiled encoder must ask it."""

    __slots__ = ()

    def _proto_body(self) -> bytes:
        return b"\x12\x01x" + super()._proto_body()


def _fields_with_raw(raw: Any) -> FieldsV1:
    fv = FieldsV1()
    object.__setattr__(fv, "raw", raw)  # past the coercion to bytes of __init__ and assignment
    return fv


@pytest.mark.parametrize("entries", [
    [FieldsV1(), FieldsV1(b""), FieldsV1(b"{}"), FieldsV1(b'{"f:a":{}}' * 40)],
    [FieldsV1(b"x" * 125), FieldsV1(b"x" * 126), FieldsV1(b"y" * 16383), FieldsV1(b"y" * 16384)],
    [_BracedFields(b"{}"), _BracedFields(), FieldsV1(b"{}")],
    [_fields_with_raw(bytearray(b"{}")), _fields_with_raw(bytearray())],
    [_fields_with_raw("{}")],
    [_fields_with_raw(7)],
    [FieldsV1.__new__(FieldsV1)],  # raw never set
], ids=["plain", "length-edges", "subclass", "bytearray", "str", "int", "unset"])
def test_fields_v1_bodies_encode_alike(entries: list[FieldsV1]) -> None:
    """The compiled encoder writes FieldsV1 bodies itself (``_KC_PB_RAW_FIELD``); any raw
    it does not take, and any subclass, go through ``_proto_body`` as in pure mode."""
    got = encode_both(Managed(entries=entries, one=entries[0]))
    if got[0] == "ok" and type(entries[0].raw) is bytes and type(entries[0]) is FieldsV1:
        assert entries[0]._proto_body() in got[1]


def test_gc_state_is_restored() -> None:
    import gc

    body = compiled.struct_to_proto(Kitchen(leaves=[Leaf()] * 3))
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            compiled.fill_from_proto(Kitchen._new_zero(), Kitchen, body, "K")
            with pytest.raises(DecodeError):
                compiled.fill_from_proto(Kitchen._new_zero(), Kitchen, b"\x0a\x05", "K")
            compiled.struct_to_tree(Kitchen())
            assert gc.isenabled() is enabled
        finally:
            gc.enable()


def test_decoded_containers_are_untracked_but_caller_objects_are_not() -> None:
    import gc

    body = compiled.struct_to_proto(Kitchen(
        names=["n"], leaves=[Leaf(name="a")], sub={"x": Leaf()}, qmap={"q": Quantity("1")},
        labels={"a": "b"}, pleaf=Leaf(size=1)))
    into = Kitchen(names=["kept"])
    compiled.fill_from_proto(into, Kitchen, body, "Kitchen")
    assert into.names == ["kept", "n"]
    # The caller's objects keep their tracking; what the decoder built is not tracked.
    assert gc.is_tracked(into) and gc.is_tracked(into.names) and gc.is_tracked(into.leaf)
    # (Maps held directly by the caller's object may be tracked again by CPython when a
    # struct value goes in; the decoder only re-untracks maps of structs it built.)
    for built in (into.leaves, into.leaves[0], into.sub["x"], into.pleaf):
        assert not gc.is_tracked(built), built
    fresh = Kitchen._new_zero()
    compiled.fill_from_proto(fresh, Kitchen, body, "Kitchen")
    assert not gc.is_tracked(fresh.names) and gc.is_tracked(fresh)
    del into, fresh
    gc.collect()


class Pantry(Struct):
    kitchens: list[Kitchen] | None = field(1, "kitchens")
    kitchen: Kitchen | None = field(2, "kitchen", omitempty=True)


class Shelf(Struct):
    pantries: list[Pantry] | None = field(1, "pantries")


def test_maps_of_decoded_structs_are_untracked_after_every_entry() -> None:
    """A struct or custom value put into a dict makes CPython track the dict; the decoder
    untracks the maps of the structs it builds again (list elements, nested structs), also
    when a built struct arrives twice and its second maps merge into the first's."""
    import gc

    kitchen = Kitchen(sub={"x": Leaf(), "y": Leaf(name="y")}, qmap={"q": Quantity("1")},
                      labels={"a": "b"}, counts={"c": 1})
    body = compiled.struct_to_proto(Pantry(kitchens=[kitchen, kitchen], kitchen=kitchen))
    again = compiled.struct_to_proto(Pantry(kitchen=Kitchen(sub={"z": Leaf()}, qmap={"r": Quantity("2")})))
    pantry = body + again
    assert 128 <= len(pantry) < 16384
    # One Shelf whose single pantry (built by the decoder) holds its kitchen twice.
    shelf = bytes([0x0A, 0x80 | (len(pantry) & 0x7F), len(pantry) >> 7]) + pantry
    got = Shelf._new_zero()
    compiled.fill_from_proto(got, Shelf, shelf, "Shelf")
    (p,) = got.pantries
    assert sorted(p.kitchen.sub) == ["x", "y", "z"] and sorted(p.kitchen.qmap) == ["q", "r"]
    for k in (*p.kitchens, p.kitchen):
        for m in (k.sub, k.qmap, k.labels, k.counts):
            assert m and not gc.is_tracked(m), m
    assert p.kitchens[0].sub["y"].name == "y"
    del got, p
    gc.collect()


def test_decoded_lists_and_structs_behave_as_ordinary_objects() -> None:
    """The compiled decoder allocates its lists (items array sized to the run, never
    cleared past the items) and lean structs itself: they grow, shrink, copy, size, pickle
    and free as ordinary ones, and allocating ordinary lists afterwards is unaffected."""
    import copy
    import gc
    import pickle
    import sys

    body = compiled.struct_to_proto(Kitchen(names=["a", "b", "c"], leaves=[Leaf(name="x"), Leaf(size=2)]))
    for _ in range(3):  # later rounds reuse lists CPython's free list kept from earlier ones
        got = Kitchen._new_zero()
        compiled.fill_from_proto(got, Kitchen, body, "K")
        names, leaves = got.names, got.leaves
        assert names == ["a", "b", "c"] and not gc.is_tracked(names) and not gc.is_tracked(leaves[0])
        assert sys.getsizeof(names) >= sys.getsizeof([])
        names.extend(str(i) for i in range(100))
        names.insert(0, "z")
        del names[50:]
        assert names[:4] == ["z", "a", "b", "c"] and len(names) == 50
        assert list(reversed(names))[-1] == "z" and names.copy() == names
        assert copy.deepcopy(got) == got and pickle.loads(pickle.dumps(got)) == got
        leaves.append(Leaf(name="y"))
        assert leaves[2].name == "y" and gc.collect() >= 0
        del got, names, leaves
        fresh = [[] for _ in range(200)]
        assert all(x == [] and gc.is_tracked(x) for x in fresh)


def test_two_strings_sharing_a_cache_slot_are_both_kept() -> None:
    """Equal short ASCII strings of one document are one object even when two distinct
    strings land in the same slot of the compiled decoder's string cache and alternate
    (as a field's value and its neighbour's do in every item of a list): among 2000 pairs
    some share a slot of the 256 a small document gets."""
    model.fields_of(Kitchen)
    for i in range(2000):
        a, b = f"name-{i}".encode(), f"other-{i * 7919}".encode()
        body = b"".join(_pb_bytes(13, x) for x in (a, b, a, b))
        got = Kitchen._new_zero()
        compiled.fill_from_proto(got, Kitchen, body, "K")
        assert got.names[0] is got.names[2] and got.names[1] is got.names[3], (a, b)


class Holder(Struct):
    q: Quantity = field(1, "q")
    q2: Quantity = field(2, "q2")
    leaf: Leaf = field(3, "leaf")
    name: str = field(4, "name", omitempty=True)


class Rack(Struct):
    holders: list[Holder] | None = field(1, "holders")


def test_decoded_zero_structs_take_one_reference_per_slot() -> None:
    """Zero structs the compiled decoder builds (here list elements with empty bodies) copy
    a template of shared zero values and add each value's references at once: exactly one
    per slot, given back when they are freed; value-struct slots get fresh structs."""
    import sys

    model.fields_of(Rack)
    body = b"\x0a\x00" * 50
    assert decode_both(Rack, body, "Rack") == Rack(holders=[Holder() for _ in range(50)])
    got = Rack._new_zero()
    compiled.fill_from_proto(got, Rack, body, "Rack")
    zero = got.holders[0].q
    assert got.holders[1].q is zero and got.holders[1].q2 == zero
    before = sys.getrefcount(zero)
    again = Rack._new_zero()
    compiled.fill_from_proto(again, Rack, body, "Rack")
    assert sys.getrefcount(zero) == before + 50
    assert again.holders[0].leaf is not again.holders[1].leaf
    again.holders[0].leaf.size = 3
    assert again.holders[1].leaf.size == 0 and Holder().leaf.size == 0
    del again
    assert sys.getrefcount(zero) == before


def test_float_bits_alike() -> None:
    for value in (0.0, -0.0, 1e308, 5e-324, float("inf"), float("-inf"), 1.5):
        k = Kitchen(f=value, floats=[value], pf=value)
        assert encode_both(k)[0] == "ok"
        decode_both(Kitchen, compiled.struct_to_proto(k), "K")
    for bits in (b"\x00\x00\x00\x00\x00\x00\xf8\x7f", b"\x01\x00\x00\x00\x00\x00\xf0\xff"):
        got = []
        for kernels in (pure, compiled):
            obj = Kitchen._new_zero()
            kernels.fill_from_proto(obj, Kitchen, b"\x41" + bits, "K")
            got.append(struct.pack("<d", obj.f))
            got.append(kernels.struct_to_proto(obj))
        assert got[0] == got[2] == bits and got[1] == got[3]


class _Key(str):
    """A str subclass: the compiled encoder's in-order walk only takes exact str keys."""


@pytest.mark.parametrize("labels", [
    {"a": "1", "b": "2", "c": "3"},          # already ascending: walked in place
    {"c": "3", "a": "1", "b": "2"},          # out of order: sorted first
    {"b": "2", "a": "1", "a\u00e9": "x", "\U0001F600": "y", "Z": "z"},
    {_Key("b"): "2", "a": "1"},
    {"a": "1", _Key("b"): "2"},
    {"only": ""},
    {"a": "1", "a\x00": "2", "": "e"},
    {"": "e", "a": "1", "a\x00": "2", "ab": "3", "b": "4"},   # ascending ASCII, prefixes
    {"a": "1", "ab": "3", "a\x00": "2"},                    # a prefix out of order
    {"a": "1", "b": "\u00e9", "c": "3"},                    # ascending, a non-ASCII value
    {"a": "1", "\u00e9": "2", "\u00e9\u00e9": "3"},           # ascending, non-ASCII keys
    {"\u00e9": "2", "a": "1"},
    {"a": "1", "b": _Key("2")},
    {"a": "1", "b": b"2"},                                 # not a str: as the pure walker
    {"k" * 130: "v" * 16384, "l": "w" * 127},              # two- and three-byte lengths
])
def test_map_entries_are_written_in_key_order(labels: dict[str, str]) -> None:
    obj = Kitchen(labels={})
    obj.labels.update(labels)  # past the constructor's checks
    result = encode_both(obj)
    if type(labels.get("b")) is bytes:
        assert result[0] == "error"
        return
    back = Kitchen()
    pure.fill_from_proto(back, Kitchen, result[1], "K")
    assert back.labels == labels
    assert list(back.labels) == sorted(labels)


class _Qty(Quantity):
    """A Quantity subclass: the compiled map writer leaves its values to the general path."""

    __slots__ = ()


@pytest.mark.parametrize("qmap", [
    {"cpu": Quantity("100m"), "memory": Quantity("1Gi")},                 # ascending
    {"memory": Quantity("1Gi"), "cpu": Quantity("100m")},                 # sorted first
    {"a": Quantity("1"), "b": None, "c": Quantity("2")},
    {"a": _Qty("1"), "b": Quantity("1")},
    {"a": Quantity("1"), "b": Quantity("1"), "\u00e9": Quantity("3")},
    {"a": Quantity("1" * 200), "b": Quantity("1")},
    {"a": Quantity("1"), "b": "2"},                                       # not a Quantity
])
def test_quantity_maps_encode_alike(qmap: dict[str, Any]) -> None:
    obj = Kitchen(qmap={})
    obj.qmap.update(qmap)  # past the constructor's checks
    result = encode_both(obj)
    if result[0] == "ok" and all(type(q) is Quantity for q in qmap.values()):
        back = Kitchen()
        pure.fill_from_proto(back, Kitchen, result[1], "K")
        assert list(back.qmap) == sorted(qmap) and back.qmap == qmap


_Q100 = Quantity("100m")
_QLONG = Quantity("1" * 200)


@pytest.mark.parametrize("fields", [
    {"qty": _Q100, "pqty": _Q100},                        # the second from the call's cache
    {"qty": _QLONG, "pqty": _QLONG},                      # a two-byte length
    {"qty": _Q100, "pqty": _Qty("100m")},                 # a subclass: its own method
    {"qty": _Q100, "pqty": _Q100, "qlist": [_Q100, _Q100], "qmap": {"a": _Q100}},
    {"ios": IntOrString.from_int(8080), "qty": _Q100, "pqty": _Q100},
])
def test_shared_custom_values_encode_alike(fields: dict[str, Any]) -> None:
    obj = Kitchen(**fields)
    result = encode_both(obj)
    assert result[0] == "ok"
    back = Kitchen()
    pure.fill_from_proto(back, Kitchen, result[1], "K")
    for name, value in fields.items():
        assert getattr(back, name) == value


def test_a_shared_custom_body_that_is_not_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cached body of a repeated value is copied directly only when it is exact bytes;
    other bodies take the general path (bytes-like accepted there, as by the pure walker)."""
    body = Quantity._proto_body
    monkeypatch.setattr(Quantity, "_proto_body", lambda self: bytearray(body(self)))
    q = Quantity("2Gi")
    result = encode_both(Kitchen(qty=q, pqty=q, qlist=[q]))
    assert result[0] == "ok"
    monkeypatch.undo()
    assert result[1] == encode_both(Kitchen(qty=q, pqty=q, qlist=[q]))[1]


@pytest.mark.parametrize("framed", [False, True])
def test_an_equal_message_is_written_without_growing_the_buffer(framed: bool) -> None:
    """The compiled writer starts at the size of the last message of the class, with room
    for its checks: writing an equal one again must not double (copy) the buffer."""
    import tracemalloc

    obj = Kitchen(s="x" * 200_000)
    args = (obj, b"k8s\x00", b"\x1a\x00") if framed else (obj,)
    first = compiled.struct_to_proto(*args)
    tracemalloc.start()
    try:
        again = compiled.struct_to_proto(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert again == first
    assert peak < len(first) * 1.5


@pytest.mark.parametrize("n", [0, 1, -1, 5, -5, 2**30 - 1, -(2**30 - 1), 2**30, -(2**30), 2**31 - 1,
                               -(2**31), 2**63 - 1, -(2**63)])
def test_int_fields_encode_alike(n: int) -> None:
    """One-digit ints are read in place by the compiled encoder, longer ones by CPython."""
    i32 = n if -(2**31) <= n < 2**31 else 0
    got = encode_both(Kitchen(i32=i32, i64=n, pi64=n, nums=[n, 0, n]))
    assert got[0] == "ok"


def test_encoder_output_after_a_larger_message_of_the_same_class() -> None:
    """The compiled writer starts at the previous size of the class; smaller messages that
    follow must still come out exactly."""
    big = Kitchen(names=["n" * 1000] * 50)
    small = Kitchen(s="x")
    assert encode_both(big) == encode_both(big)
    assert encode_both(small)[1] == pure.struct_to_proto(small)


# Nested body sizes around the widths of their length prefixes (1, 2, 3 bytes): the
# compiled writer reserves as many bytes as the last body under the same field needed.
_BODY_SIZES = [0, 120, 125, 126, 127, 200, 3, 16377, 16378, 16379, 16380, 40, 20000, 16378, 125, 127]


def test_nested_lengths_alike_whatever_the_previous_body_under_the_field() -> None:
    leaves = [Leaf(name="n" * (n - 2 if n > 2 else 0), size=1) for n in _BODY_SIZES]
    objs = [Kitchen(leaf=leaf, leaves=leaves[i:] + leaves[:i], pleaf=leaves[-1 - i])
            for i, leaf in enumerate(leaves)]
    for obj in objs + objs[::-1]:
        got = encode_both(obj)
        assert got[0] == "ok"
    assert encode_both(Kitchen(leaves=[Leaf(name="x" * 300), Leaf(name="y")] * 3))[0] == "ok"


class _Times(Struct):
    at: "Time" = field(1, "at")
    micro: "MicroTime" = field(2, "micro")
    many: "list[Time] | None" = field(3, "many", omitempty=True)


from kcodec.api.meta.v1 import MicroTime, Time  # noqa: E402

_Times.__annotations__.update(at=Time, micro=MicroTime, many=list[Time] | None)

# Unix seconds of interest: Go's zero time, the ends of four-digit years and of the epoch,
# leap days, and values past what the compiled shortcut formats (it hands those back).
_EDGE_SECONDS = [
    -62135596800, -62167219200, -62167219201, 253402300799, 253402300800, 0, -1, 1,
    951782400, 951868799, 4107542400, -2208988800, -62135596801, 10**15, -(10**15),
]


class _ShiftedTime(Time):
    """A subclass with its own text: the encoder must ask it, not format it itself."""

    __slots__ = ()

    def _to_tree(self) -> str | None:
        text = super()._to_tree()
        return None if text is None else "at " + text


@settings(max_examples=300, deadline=None)
@given(
    sec=st.one_of(st.sampled_from(_EDGE_SECONDS), st.integers(-62167219300, 253402300900),
                  st.integers(-(2**62), 2**62)),
    nsec=st.one_of(st.sampled_from([0, 1, 999, 1000, 999999, 999999999]), st.integers(0, 999_999_999)),
    pretty=st.booleans(),
)
def test_times_encode_alike(sec: int, nsec: int, pretty: bool) -> None:
    """Both encoders of metav1 Time/MicroTime (the compiled ones format them in C)."""
    obj = _Times(at=Time.unix(sec, nsec), micro=MicroTime.unix(sec, nsec),
                 many=[Time.unix(sec, nsec), Time(), _ShiftedTime.unix(sec, nsec)])
    expected = outcome(pure.json_encode, obj, pretty, True)
    assert outcome(compiled.json_encode, obj, pretty, True) == expected
    wire = outcome(pure.struct_to_proto, obj)
    assert outcome(compiled.struct_to_proto, obj) == wire
    if expected[0] == "ok" and not (sec == -62135596800 and nsec == 0):
        assert expected[1].count(b'"at ') == 1  # the subclass kept its own text


def test_zero_times_encode_as_null_alike() -> None:
    obj = _Times(at=Time(), micro=MicroTime())
    assert compiled.json_encode(obj, False, False) == pure.json_encode(obj, False, False)
    assert b'"at":null' in compiled.json_encode(obj, False, False)
    assert compiled.struct_to_proto(obj) == pure.struct_to_proto(obj) == b"\n\x00\x12\x00"


def _time_state(t: Any) -> Any:
    return None if t is None else (type(t).__name__, t._sec, t._nsec, t._tz)


def _fill_times(kernels: Any, doc: bytes) -> tuple[Any, ...]:
    obj = _Times._new_zero()
    result = outcome(kernels.json_fill, obj, _Times, doc, None, "_Times")
    if result[0] != "ok":
        return result
    return ("ok", _time_state(obj.at), _time_state(obj.micro), [_time_state(t) for t in obj.many or []])


_TIME_TEXTS = st.one_of(
    # canonical texts of random instants (years 0-9999), as the encoders write them
    st.builds(lambda s, ns, micro: (MicroTime if micro else Time).unix(s, ns)._to_tree(),
              st.integers(-62167219200, 253402300799), st.integers(0, 999_999_999), st.booleans()),
    # the same shapes with fields out of range, other fractions, offsets, odd characters
    st.from_regex(r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})\Z"),
    st.sampled_from([
        "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T23:59:59Z",
        "2023-04-31T00:00:00Z", "2023-12-31T24:00:00Z", "2023-12-31T23:60:00Z", "2023-12-31T23:59:60Z",
        "0000-01-01T00:00:00Z", "0000-02-29T00:00:00Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
        "2023-00-10T00:00:00Z", "2023-13-10T00:00:00Z", "2023-01-00T00:00:00Z", "2023-01-10T00:00:00.000000Z",
        "2023-01-10T00:00:00.123456Z", "2023-01-10T00:00:00.12345Z", "2023-01-10T00:00:00.1234567Z",
        "2023-01-10T00:00:00,123456Z", "２０２３-01-10T00:00:00Z", "2023-01-10T00:00:00Z ", "",
    ]),
)


@settings(max_examples=400, deadline=None)
@given(text=_TIME_TEXTS)
def test_time_texts_decode_alike(text: str) -> None:
    """The compiled JSON decoder parses canonical times itself and must agree with the
    Python parser on every text: the same instant and zone, or the same error."""
    import json as _json

    for key in ("at", "micro"):
        doc = _json.dumps({key: text, "many": [text]}).encode()
        assert _fill_times(compiled, doc) == _fill_times(pure, doc), doc


def _pb_varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_TIMESTAMP_FIELDS = st.lists(
    st.one_of(
        st.tuples(st.sampled_from([0x08, 0x10]), st.one_of(
            st.integers(0, 2**64 - 1).map(_pb_varint),
            st.sampled_from([b"\\xff" * 9 + b"\\x01", b"\\xff" * 9 + b"\\x7f", b"\\xff" * 10 + b"\\x01", b"\\x80", b""]),
        )),
        # other fields and wire types: fixed64 seconds, a length-delimited field 3, a bare key
        st.tuples(st.sampled_from([0x09, 0x12, 0x18, 0x00, 0x0D]), st.binary(max_size=9)),
    ),
    max_size=4,
)


@settings(max_examples=400, deadline=None)
@given(fields=_TIMESTAMP_FIELDS, which=st.sampled_from([1, 2]))
def test_timestamp_bodies_decode_alike(fields: list[tuple[int, bytes]], which: int) -> None:
    """The compiled protobuf decoder reads plain Timestamps itself and must agree with the
    Python method on every body: the same instant, or the same error."""
    body = b"".join(bytes([key]) + rest for key, rest in fields)
    data = bytes([(which << 3) | 2]) + _pb_varint(len(body)) + body
    runs = []
    for kernels in (pure, compiled):
        obj = _Times._new_zero()
        result = outcome(kernels.fill_from_proto, obj, _Times, data, "_Times")
        runs.append(result if result[0] != "ok" else (_time_state(obj.at), _time_state(obj.micro)))
    assert runs[0] == runs[1], data


def _pb_bytes(number: int, raw: bytes) -> bytes:
    """Length-delimited field ``number`` holding ``raw``."""
    out = bytearray()
    for n in (number << 3 | 2, len(raw)):
        while n >= 0x80:
            out.append(n & 0x7F | 0x80)
            n >>= 7
        out.append(n)
    return bytes(out) + raw


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 63, 64, 65, 70])
def test_strings_of_every_width_decode_alike(n: int) -> None:
    """Strings around the widths the compiled string cache reads in words (under 8, 8 to
    16, longer, past its 64-byte limit), last in the buffer or not, with a non-ASCII byte
    or invalid UTF-8 at each end: both kernels give equal str values, and equal short
    ASCII values are one object in the compiled result."""
    ascii = bytes(0x61 + i % 26 for i in range(n))
    variants = [ascii, b"\xc3\xa9" + ascii[2:], ascii[:-1] + b"\xff", ascii[:-1] + b"\x80"]
    for raw in variants:
        for last in (False, True):
            # names (13): list elements; s (1): a plain field; labels (19): map key and value.
            entry = _pb_bytes(1, raw) + _pb_bytes(2, raw)
            body = _pb_bytes(13, raw) + _pb_bytes(13, raw[:-1] + b"!") + _pb_bytes(19, entry)
            body = body + _pb_bytes(1, raw) if last else _pb_bytes(1, raw) + body
            obj = decode_both(Kitchen, body, "K")
            assert obj.s == obj.names[0] == raw.decode("utf-8", "surrogateescape")
            got = Kitchen._new_zero()
            compiled.fill_from_proto(got, Kitchen, body, "K")
            if raw.isascii() and n <= 64:
                assert got.s is got.names[0] is got.labels[got.s]
            assert got.names[1] != got.names[0]
