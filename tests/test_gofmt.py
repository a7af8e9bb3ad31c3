"""kcodec.gofmt: Go's quoting and float formatting rules (strconv, encoding/json, time)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kcodec import gofmt


@pytest.mark.parametrize("s, want", [
    ("abc", '"abc"'),
    ('a"b', '"a\\"b"'),
    ("a\\b", '"a\\\\b"'),
    ("it's", '"it\'s"'),
    ("\a\b\f\n\r\t\v", '"\\a\\b\\f\\n\\r\\t\\v"'),
    ("\x00\x1f\x7f", '"\\x00\\x1f\\x7f"'),
    ("é\u00a0\u00ad\u2028", '"é\\u00a0\\u00ad\\u2028"'),
    ("\U0001F600\U000E0001", '"\U0001F600\\U000e0001"'),
    ("x\udc80y", '"x\\x80y"'),  # a byte that was not UTF-8
    ("\ud800", '"\\ufffd"'),
])
def test_quote_is_strconv_quote(s: str, want: str) -> None:
    assert gofmt.quote(s) == want


@pytest.mark.parametrize("c, want", [
    (ord("x"), "'x'"),
    (0x27, "'\\''"),
    (0x22, "'\"'"),
    (0x5C, "'\\\\'"),   # Go: '\\' (kcodec's framing and yamlutil used to print '\')
    (0x0A, "'\\n'"),
    (0x01, "'\\x01'"),
    (0x7F, "'\\x7f'"),
    (0x80, "'\\u0080'"),
    (0xA0, "'\\u00a0'"),
    (0xAD, "'\\u00ad'"),
    (0xE9, "'é'"),
])
def test_quote_char_is_encoding_json_quotechar(c: int, want: str) -> None:
    assert gofmt.quote_char(c) == want


def test_time_quote() -> None:
    assert gofmt.time_quote('2006-01-02"\\é') == '"2006-01-02\\"\\\\\\xc3\\xa9"'


@pytest.mark.parametrize("x, bits, want", [
    (0.0, 64, "0"), (-0.0, 64, "-0"), (5.0, 64, "5"), (100.7, 64, "100.7"), (1e6, 64, "1e+06"),
    (999999.0, 64, "999999"), (123456789.0, 64, "1.23456789e+08"), (1e-4, 64, "0.0001"),
    (1e-5, 64, "1e-05"), (1e21, 64, "1e+21"), (1.5e300, 64, "1.5e+300"),
    (float("nan"), 64, "NaN"), (float("inf"), 64, "+Inf"), (float("-inf"), 64, "-Inf"),
    (0.1, 32, "0.1"), (3.4e38, 32, "3.4e+38"), (16777217.0, 32, "1.6777216e+07"),
])
def test_format_g_is_strconv_g(x: float, bits: int, want: str) -> None:
    assert gofmt.format_g(x, bits) == want


def test_each_go_text_rule_is_written_once() -> None:
    """No module but gofmt defines its own strconv.Quote, quoteChar or float %v."""
    root = Path(__file__).resolve().parents[1] / "kcodec"
    copies = []
    for path in root.rglob("*.py"):
        if path.name == "gofmt.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in (
                    "_go_quote", "go_quote", "_quote_char", "quote_char", "_time_quote",
                    "_go_float", "_shortest_digits", "_shortest_digits32"):
                copies.append(f"{path.relative_to(root)}:{node.lineno} {node.name}")
    assert copies == []


def test_gofmt_imports_nothing_from_kcodec() -> None:
    tree = ast.parse(Path(gofmt.__file__).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert not (node.module or "").startswith("kcodec")
        if isinstance(node, ast.Import):
            assert not any(a.name.startswith("kcodec") for a in node.names)
