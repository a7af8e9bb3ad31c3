"""The block-style YAML fast path (``speedups.yaml_block_tree``) against the libyaml route.

Whenever the fast path answers, its tree must be the tree ``goyaml.yaml_to_tree`` gives (same
Python types, same key order); when it declines (None) the serializer takes the libyaml
route, so declining is always allowed but must happen for anything it cannot read exactly,
and for anything the libyaml route refuses. Both twins must give the same answer for every
input. Runs in both modes (conftest.py).
"""
from __future__ import annotations

import io
import math
from pathlib import Path

import pytest
import yaml as pyyaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, SHARED
from kcodec import gojson, goyaml, speedups
from kcodec._native import yaml as pure
from kcodec.errors import DecodeError
from kcodec.yamlutil import YAMLReader

FIXTURE_DIRS = [FIXTURES] + [FIXTURES.parent / v for v in ("v1.33.0", "v1.34.0", "v1.35.0")] + [
    SHARED / "fixtures" / "apiextensions-apiserver-v0.36.3" / "HEAD"]
FIXTURE_FILES = sorted(p for d in FIXTURE_DIRS if d.is_dir() for p in d.glob("*.yaml"))
CORPUS = SHARED / "corpus" / "files"


def shape(v: object) -> object:
    """A value with its types and key order spelled out, for exact comparison."""
    if isinstance(v, dict):
        return ("dict", [(k, shape(x)) for k, x in v.items()])
    if isinstance(v, list):
        return ("list", [shape(x) for x in v])
    if isinstance(v, float) and math.isnan(v):
        return ("float", "nan")
    return (type(v).__name__, v)


def libyaml(data: bytes) -> tuple[bool, object]:
    """(ok, tree or error text) of the libyaml route."""
    try:
        return True, goyaml.yaml_to_tree(data)
    except DecodeError as err:
        return False, str(err)


def check(data: bytes) -> object:
    """The fast answer for ``data``, after checking it against libyaml and the other twin."""
    fast = speedups.yaml_block_tree(data)
    if speedups.ENABLED:
        assert shape(pure.yaml_block_tree(data)) == shape(fast), data[:200]
    if fast is not None:
        ok, ref = libyaml(data)
        assert ok, (ref, data[:200])
        assert shape(fast) == shape(ref), data[:200]
        # The serializer reads the fast tree as JSON text: it must be yaml_to_json's.
        assert gojson.dumps(fast, sort_keys=True) == goyaml.yaml_to_json(data)[0], data[:200]
    return fast


def corpus_documents() -> list[tuple[str, bytes]]:
    if not CORPUS.is_dir():
        return []
    out = []
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix not in (".yaml", ".yml") or not path.is_file():
            continue
        reader = YAMLReader(io.BytesIO(path.read_bytes()))
        i = 0
        while True:
            try:
                doc = reader.read()
            except EOFError:
                break
            except DecodeError:
                break
            out.append((f"{path.name}#{i}", doc))
            i += 1
    return out


CORPUS_DOCS = corpus_documents()


# ------------------------------------------------------------------------------ fixtures


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_is_read_by_the_fast_path(path: Path) -> None:
    data = path.read_bytes()
    fast = check(data)
    assert fast is not None  # go-yaml output is exactly what the fast path is for


def test_fixture_set_is_there() -> None:
    if not FIXTURES.is_dir():
        pytest.skip("Go fixtures not found")
    assert len(FIXTURE_FILES) > 700


@pytest.mark.parametrize("path", FIXTURE_FILES[::7], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_truncations(path: Path) -> None:
    data = path.read_bytes()
    step = max(1, len(data) // 150)
    for cut in range(0, len(data), step):
        check(data[:cut])
    # Every line dropped in turn: a structure the fast path must read or decline.
    lines = data.split(b"\n")
    for i in range(0, len(lines), max(1, len(lines) // 40)):
        check(b"\n".join(lines[:i] + lines[i + 1:]))


# ------------------------------------------------------------------------------ corpus


def test_corpus_documents() -> None:
    if not CORPUS_DOCS:
        pytest.skip("corpus not found")
    handled = 0
    for _, doc in CORPUS_DOCS:
        if check(doc) is not None:
            handled += 1
    # Most real manifests are block style; flow sequences (["sh", "-c"]) are the usual miss.
    assert handled > 0.85 * len(CORPUS_DOCS), (handled, len(CORPUS_DOCS))


def test_corpus_whole_files_and_halves() -> None:
    if not CORPUS.is_dir():
        pytest.skip("corpus not found")
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix in (".yaml", ".yml", ".json") and path.is_file():
            data = path.read_bytes()
            check(data)
            check(data[: len(data) // 2])


# ------------------------------------------------------------------------------ constructs

READ = [
    b"a: 1\nb: -2\nc: 0\nd: 007\ne: 0x1F\nf: 1.5\ng: 1e3\nh: 1_000\ni: +5\nj: -0\n",
    b"a: true\nb: False\nc: yes\nd: off\ne: ~\nf: null\ng: Null\nh: y\ni: n\n",
    b"a: 9223372036854775807\nc: 18446744073709551616\nd: -9223372036854775808\n",
    b"t: 2001-12-14t21:59:43.10-05:00\nd: 2002-12-14\nx: 2002-13-14\n",
    b"a: .5\nb: -.5e3\nc: 1.0\nd: 12:30:00\ne: 1e400\n",
    b"a: 'it''s'\nb: \"q\\\"\\\\\\t\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\0\\e \"\nc: ''\nd: \"\"\n",
    b"'quoted key': 1\n\"dq key\": 2\n\"true\": 3\n'1': 4\n",
    b"a:\n- 1\n- 2\nb:\n  - x\n  - - y\n    - z\n  -\n  - k: v\n    l: w\n  - - - deep\n",
    b"- a\n- b: c\n  d: e\n-\n  f: g\n- []\n- {}\n",
    b"a: {}\nb: []\nc:\nd:   # comment\n  e: 1\n",
    b"# head\n---\n# c\na: 1 # trailing\n\n   # indented comment\nb: x#y\nc: x #z\n",
    b"--- # c\na: 1\n",
    b"a: |\n  line1\n  line2\nb: |-\n  s\nc: |+\n  k\n\n\nd: >\n  f1\n  f2\n\n  f3\n   more\n  end\ne: >-\n  x\n",
    b"a: |2\n   lead\n  x\nb: |\n\n  after blank\nc: |1-\n  two\nd: |\ne: 1\n",
    b"- |\n  in seq\n- >+\n  folded\n\n- |-\n   x\n  \n",
    b"a: |\n  no newline at end",
    b"a: |\n  text\n# comment at column 0\nb: 1\n",
    b"key with spaces: value with spaces\nurl: http://x:80/a?b=c#d\nc: a:b\n",
    b"emoji: \xf0\x9f\x98\x80\nacc\xc3\xa9nt: caf\xc3\xa9\n",
    b"  a: 1\n  b:\n    c: 2\n",
    b"a: b   \nc: 'd'   \n",
    b"a: <<\nb: '<<'\n\"<<\": 1\n",
    b"a: multi\n  line\n   more  \n\n  para\n\n\n  three\nb: 1\n",
    b"a: \"multi\n  line\"\nb: 'x\n\n  y'\nc: 'it''s\n  ok'\n",
    b"a: \"esc\\\n   aped\\\n\"\nb: \"x\\\n\n  \\ y\"\n",
    b"- foo\n  - bar\n  [x] &y *z !t #c\n- 2\n",
    b"a: foo\n   # comment ends it\nb: 1\n",
    b"a: \"x\ty\t\n\tz\"\n",
    b"- a: long\n    folded\n  b: \"q\n    r\"\n",
    b"a: 1\n  2\nb: true\n  false\nc: -x\n  y\n", b"- a\n -b\n",
    b"a: [1, 2]\nb: [\"sh\", '-c', x y , -c, 0x1F, true, ~, \"\", 'it''s', \"\\t\", a'b]\nc: [ ]\nd: [a,b]  # c\n",
    b"- [a, b]\n- []\n- [2001-01-01, 1e3, .5, -.inf_x]\n",
]

DECLINED = [
    b"", b"# only a comment\n", b"---\n", b"plain scalar\n", b"[1, 2]\n", b"{a: 1}\n",
    b"a: [1,\n 2]\n", b"a: [a: b]\n", b"a: [[1]]\n", b"a: [1, ]\n", b"a: [,]\n", b"a: [x #c]\n",
    b"a: [-]\n", b"a: [\"x\"y]\n", b"a: [1] x\n", b"a: [-", b"a: [\"a\nb\"]\n", b"a: [a?b]\n", b"a: [x",
    b"a: [{}]\n", b"a: [1]]\n", b"a: [ \tx]\n", b"[a]: 1\n", b"a: {b: 1}\n", b"a: &x 1\nb: *x\n", b"a: !!str 1\n", b"%YAML 1.1\n---\na: 1\n",
    b"? a\n: b\n", b"a: 1\na: 2\n", b"1: a\n", b"true: a\n", b"~: a\n", b"<<: {a: 1}\n",
    b"a:\n  plain on its own line\n", b"a: \"x\n---\ny\"\n", b"a: 'x\n...\n'\n", b"a: foo\n  bar: baz\n",
    b"\"a\n b\": 1\n", b"- \"a\n b\": 1\n", b"a: foo\n\tbar\n", b"a: \"open\n", b"a: foo\n  : x\n",
    b"a:\tb\n", b"\ta: 1\n", b"a: 1\r\nb: 2\r\n", b"\xef\xbb\xbfa: 1\n", b"a: \xff\n",
    b"a: \x00\n", b"a: \x85\n", b"a: \xe2\x80\xa8\n", b"a: 1\n---\nb: 2\n", b"a: 1\n...\n",
    b"a: b: c\n", b"a: - b\n", b"a:\n  b: 1\n c: 2\n", b"a:\n  - 1\n  b: 2\n", b"- a\nb: c\n",
    b"cpu: 9223372036854775808\n", b"a: \"\\/\"\n", b"a: \"\\'\"\n", b"a: \"\\ud800\"\n", b"a: \"\\q\"\n", b"a: .nan\n", b"a: .inf\n",
    b"a: |x\n  y\n", b"a: |", b"a: |\n\ty\n", b"key: \"unterminated\n", b"a: @x\n", b"a: `x`\n",
    b"x" * 1100 + b": 1\n", b"a:b\n", b"a: 1 #c\n  b: 2\n",
]


@pytest.mark.parametrize("data", READ)
def test_reads(data: bytes) -> None:
    assert check(data) is not None


@pytest.mark.parametrize("data", DECLINED)
def test_declines(data: bytes) -> None:
    assert check(data) is None


def test_deep_nesting_declines_quickly() -> None:
    deep = b"".join(b"  " * i + b"a:\n" for i in range(20000))
    assert check(deep) is None
    seq = b"- " * 20000 + b"x\n"
    assert check(seq) is None
    ok = b"".join(b"  " * i + b"a:\n" for i in range(150)) + b"  " * 150 + b"b: 1\n"
    assert check(ok) is not None


def test_hostile_sizes_do_not_allocate() -> None:
    # Long runs of spaces, dashes and quotes are scanned, never multiplied.
    for data in (b" " * 1_000_000 + b"a: 1\n", b"a: |\n" + b"\n" * 200_000 + b"  x\n",
                 b"a: '" + b"''" * 200_000 + b"'\n", b"a: \"" + b"\\x41" * 100_000 + b"\"\n",
                 b"- " + b"a" * 1_000_000 + b"\n", b"a:" + b" " * 1_000_000 + b"\n"):
        check(data)


def test_accepts_other_buffers() -> None:
    data = b"a: 1\nb: {x: 1}\n"
    for form in (bytearray(b"a: 1\n"), memoryview(b"a: 1\n"), "a: 1\n"):
        assert speedups.yaml_block_tree(form) == {"a": 1}
    assert speedups.yaml_block_tree(data) is None
    assert speedups.yaml_block_tree("a: \udc80\n") is None
    assert speedups.yaml_block_tree(12) is None


# ------------------------------------------------------------------------------ generated

_scalars = (st.none() | st.booleans() | st.integers(min_value=-(2 ** 64), max_value=2 ** 64)
            | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(st.characters(blacklist_categories=("Cs",)), max_size=90)
            | st.sampled_from(["", "true", "no", "~", "0x1F", "1e3", "-", "- x", "a: b", "#x", "x #y",
                               "|", ">", "'", '"', "2001-01-01", " lead", "trail ", "\n", "a\nb\n",
                               "  a\n b", "\tx", "a" * 100 + " " + "b" * 10, "x " * 60]))
_keys = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20) | st.sampled_from(
    ["a", "name", "1", "true", "a b", "a:b", "-x", "'q'", "<<", "y", "on"])
_trees = st.recursive(
    _scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_keys, kids, max_size=4),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_trees)
def test_our_encoder_output(tree: object) -> None:
    try:
        data = goyaml.tree_to_yaml(tree)
    except Exception:  # noqa: BLE001 - the encoder refuses some trees (tested elsewhere)
        return
    check(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_trees, st.integers(min_value=1, max_value=6), st.booleans())
def test_pyyaml_block_output(tree: object, indent: int, sort: bool) -> None:
    data = pyyaml.safe_dump(tree, default_flow_style=False, indent=indent, sort_keys=sort,
                            allow_unicode=True, width=60).encode("utf-8")
    check(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200))
def test_random_bytes(data: bytes) -> None:
    check(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([b"a:", b"b: 1", b"- ", b"-", b"  ", b"    ", b"\n", b"# c", b" #",
                                 b"|", b">-", b"|2", b"'x'", b'"y"', b"{}", b"[]", b"k: v",
                                 b"\t", b"---", b"x", b":", b"\"\\x41\"", b"''''"]),
                max_size=30))
def test_token_soup(parts: list[bytes]) -> None:
    check(b"".join(parts))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_fixture(data: st.DataObject) -> None:
    if not FIXTURES.is_dir():
        pytest.skip("Go fixtures not found")
    base = (FIXTURES / "core.v1.Pod.yaml").read_bytes()
    pos = data.draw(st.integers(min_value=0, max_value=len(base) - 1))
    new = data.draw(st.sampled_from([b"", b" ", b"  ", b"-", b":", b"#", b"\n", b"'", b'"', b"|",
                                     b"\t", b"{", b"x: y", b"\xc3", b"- a"]))
    width = data.draw(st.integers(min_value=0, max_value=3))
    check(base[:pos] + new + base[pos + width:])


# ------------------------------------------------------------------------------ serializer


@pytest.fixture
def yaml_serializer():
    from kcodec.api import scheme
    from kcodec.serializer.json import Serializer

    return Serializer(scheme, scheme, yaml=True), Serializer(scheme, scheme, yaml=True, strict=True)


def test_serializer_takes_the_fast_path(yaml_serializer, monkeypatch) -> None:
    if not FIXTURES.is_dir():
        pytest.skip("Go fixtures not found")
    ser, strict = yaml_serializer
    data = (FIXTURES / "core.v1.Pod.yaml").read_bytes()
    expected, gvk = ser.decode(data)

    def refuse(*a: object, **k: object) -> None:
        raise AssertionError("the libyaml route ran")

    monkeypatch.setattr(goyaml, "yaml_to_tree", refuse)
    for s in (ser, strict):
        obj, got = s.decode(data)
        assert obj == expected and got == gvk


def test_serializer_errors_are_the_libyaml_ones(yaml_serializer) -> None:
    ser, strict = yaml_serializer
    dup = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n"
    with pytest.raises(DecodeError) as err:
        strict.decode(dup)
    assert 'key "name" already set in map' in str(err.value)
    obj, _ = ser.decode(dup)
    assert obj.metadata.name == "b"
    for bad in (b"apiVersion: v1\nkind: Pod\nmetadata: [\n", b"apiVersion: v1\nkind: Pod\n\tx: 1\n"):
        with pytest.raises(DecodeError) as fast_err:
            ser.decode(bad)
        with pytest.raises(DecodeError) as ref_err:
            goyaml.yaml_to_tree(bad)
        assert str(ref_err.value) in str(fast_err.value)
    obj, _ = ser.decode(b"apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    args: [\"sh\", \"-c\"]\n")
    assert obj.spec.containers[0].args == ["sh", "-c"]


# ------------------------------------------------------------------------------ encoder


def same_encoding(tree: object) -> bytes | None:
    """The bound writer's bytes (or error) must be the pure writer's."""
    def run(fn):
        try:
            return True, fn(tree)
        except Exception as err:  # noqa: BLE001 - the error itself is compared
            return False, (type(err), str(err))
    want = run(goyaml.tree_to_yaml)
    got = run(speedups.yaml_encode_tree)
    assert got == want, (tree if len(repr(tree)) < 400 else repr(tree)[:400])
    return got[1] if got[0] else None


def test_encode_fixtures_and_corpus() -> None:
    from kcodec import gojson

    paths = list(FIXTURE_FILES)
    if not paths:
        pytest.skip(f"Go fixtures not found at {FIXTURE_DIRS[0]} (../shared must sit beside the clone)")
    if CORPUS.is_dir():
        paths += sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    done = 0
    for path in paths:
        try:
            tree = goyaml.yaml_to_tree(path.read_bytes())
        except DecodeError:
            continue
        # The serializer writes what Go's JSON round trip gives.
        same_encoding(gojson.loads(gojson.dumps(tree)))
        done += 1
    assert done > (1000 if CORPUS.is_dir() else 0)


def test_encode_fixture_bytes_are_the_fixture() -> None:
    if not FIXTURES.is_dir():
        pytest.skip("Go fixtures not found")
    data = (FIXTURES / "core.v1.Pod.yaml").read_bytes()
    assert speedups.yaml_encode_tree(goyaml.yaml_to_tree(data)) == data


ENCODE_CASES = [
    {}, [], None, "x", 1, -1, 0, True, 1.5, 2 ** 63, 2 ** 64, -(2 ** 63) - 1, 10 ** 30, float("nan"),
    float("inf"), {"a": float("-inf")}, {"k" * 129: 1, "k" * 128: 2, "a\nb": 3, "": 4},
    {"n": ["", "-", "- x", "...", "...x", ".5", "0x10", "yes", "y", "Yes", "nullable", "name",
           "true", "Truex", "tr", "~", "~x", "_x", "/x", "x/y-z.w", "a b", "x" * 100 + " " + "y" * 50,
           "a\nb", " lead", "trail ", "\ud800", "caf\u00e9", "\U0001F600", "#", "a#b", "a: b", "2001-01-01"]},
    {"b": 1, "a": 2, "B": 3, "a1": 4, "a10": 5, "a9": 6, "\u00e9": 7, "1": 8, "_": 9, "$ref": 10},
    [[["deep"]], [{}], [[]], {"x": [1, [2, {"y": []}]]}], ("tuple", 1), {"t": (1, 2)},
    {1: "int key"}, {"a": object()}, {"a": b"bytes"}, {"a": {1, 2}},
]


@pytest.mark.parametrize("tree", ENCODE_CASES, ids=range(len(ENCODE_CASES)))
def test_encode_cases(tree: object) -> None:
    same_encoding(tree)


def test_encode_odd_types_take_the_pure_writer() -> None:
    from kcodec.model import RawJSON

    class S(str):
        pass

    class I(int):
        pass

    for tree in ({"a": S("x")}, {"a": I(3)}, {"a": RawJSON(b'{"b":[1,2]}')}, {S("k"): 1}, [True, I(1)],
                 {"a": {"b": RawJSON(b"nope")}}):
        same_encoding(tree)
    deep: object = "leaf"
    for _ in range(3000):
        deep = {"a": [deep]}
    same_encoding(deep)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_trees)
def test_encode_generated(tree: object) -> None:
    data = same_encoding(tree)
    if data is not None:
        check(data)


def test_serializer_encode_uses_the_writer(yaml_serializer, monkeypatch) -> None:
    if not FIXTURES.is_dir():
        pytest.skip("Go fixtures not found")
    ser, _ = yaml_serializer
    data = (FIXTURES / "core.v1.Pod.yaml").read_bytes()
    obj, _ = ser.decode(data)
    assert ser.encode(obj) == data
    if speedups.ENABLED:
        def refuse(*a: object, **k: object) -> None:
            raise AssertionError("the pure writer ran")

        from kcodec._speedups import _yaml

        monkeypatch.setattr(goyaml, "tree_to_yaml", refuse)
        monkeypatch.setattr(_yaml, "tree_to_yaml", refuse)  # its whole-tree fallback
        assert ser.encode(obj) == data


def test_reads_strings_our_encoder_folds() -> None:
    # go-yaml folds long strings with spaces past column 80, in all three flow styles.
    tree = {"plain": "word " * 40 + "end", "double": "say \"hi\" " * 30, "single": "#x " * 50,
            "escaped": "a  b " * 40 + "\u00e9\t", "list": ["- " + "w " * 60, "x" * 90 + " y" * 30],
            "nested": {"deeper": {"still": "tail " * 40 + ": no"}}}
    data = goyaml.tree_to_yaml(tree)
    assert data.count(b"\n") > 20
    assert check(data) == tree


# ------------------------------------------------------------------------------ streams


def _stream(data: bytes, fast: object) -> list[object]:
    from kcodec.yamlutil import YAMLOrJSONDecoder

    out: list[object] = []
    try:
        for tree in YAMLOrJSONDecoder(io.BytesIO(data), fast_tree=fast):
            out.append(shape(tree))
    except DecodeError as err:
        out.append((type(err), str(err)))
    return out


def test_stream_decoder_with_the_fast_reader() -> None:
    if not CORPUS.is_dir():
        pytest.skip("corpus not found")
    calls = []

    def fast(data: bytes) -> object:
        tree = speedups.yaml_block_tree(data)
        calls.append(tree is not None)
        return tree

    for path in sorted(CORPUS.rglob("*")):
        if path.suffix in (".yaml", ".yml", ".json") and path.is_file():
            data = path.read_bytes()
            assert _stream(data, fast) == _stream(data, None), path.name
    assert sum(calls) > 0.85 * len(calls)
    for data in (b"a: 1\n---\nb: [x\n", b"---\n# only\n---\na: 1\n", b"a: 1\n--- x\n", b"{\"a\": 1}\nb: 2\n"):
        assert _stream(data, fast) == _stream(data, None)
