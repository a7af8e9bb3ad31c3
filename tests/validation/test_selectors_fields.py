"""kcodec.fields against apimachinery pkg/fields/selector.go and selector_test.go
(TestSplitTerms, TestSplitTerm, TestEscapeValue, TestSelectorParse, TestSelectorMatches,
TestRequiresExactMatch, TestTransform)."""
from __future__ import annotations

import pytest

from kcodec import fields
from kcodec.fields import FieldSelectorParseError, InvalidEscapeSequence, Requirement, UnescapedRune


@pytest.mark.parametrize(("s", "terms"), [
    ("a", ["a"]), ("a=avalue,b=bvalue", ["a=avalue", "b=bvalue"]), ("", []), ("a=a,", ["a=a", ""]),
    (",a=a", ["", "a=a"]), ("k=\\,,k2=v2", ["k=\\,", "k2=v2"]), ("k=\\\\,k2=v2", ["k=\\\\", "k2=v2"]),
    ("k=\\\\\\,,k2=v2", ["k=\\\\\\,", "k2=v2"]), ("k=\\a\\b\\", ["k=\\a\\b\\"]), ("함=수,목=록", ["함=수", "목=록"]),
])
def test_split_terms(s, terms):
    assert fields._split_terms(s) == terms


@pytest.mark.parametrize(("term", "want"), [
    ("a=value", ("a", "=", "value")), ("b==value", ("b", "==", "value")), ("c!=value", ("c", "!=", "value")),
    ("", None), ("a", None), ("k=\\,", ("k", "=", "\\,")), ("함=수", ("함", "=", "수")),
])
def test_split_term(term, want):
    assert fields._split_term(term) == want


@pytest.mark.parametrize(("raw", "escaped"), [("", ""), ("a", "a"), ("=", "\\="), (",", "\\,"), ("\\", "\\\\"),
                                              ("\\=\\,\\", "\\\\\\=\\\\\\,\\\\")])
def test_escape_roundtrip(raw, escaped):
    assert fields.escape_value(raw) == escaped
    assert fields.unescape_value(escaped) == raw


@pytest.mark.parametrize(("bad", "msg"), [
    ("\\", "invalid field selector: invalid escape sequence: \\"),
    ("\\\\\\", "invalid field selector: invalid escape sequence: \\"),
    ("\\a", "invalid field selector: invalid escape sequence: \\a"),
])
def test_invalid_escape(bad, msg):
    with pytest.raises(InvalidEscapeSequence) as info:
        fields.unescape_value(bad)
    assert str(info.value) == msg


@pytest.mark.parametrize("s", ["x=a,y=b,z=c", "", "x!=a,y=b", "x=a||y\\=b", "x=a\\=\\=b"])
def test_good_restring(s):
    assert str(fields.parse_selector(s)) == s


@pytest.mark.parametrize(("s", "exc", "msg"), [
    ("x=a||y=b", UnescapedRune, "invalid field selector: unescaped character in value: 61"),
    ("x==a==b", UnescapedRune, "invalid field selector: unescaped character in value: 61"),
    ("x=a,b", FieldSelectorParseError, "invalid selector: 'x=a,b'; can't understand 'b'"),
    ("x in (a)", FieldSelectorParseError, "invalid selector: 'x in (a)'; can't understand 'x in (a)'"),
    ("x in (a,b,c)", FieldSelectorParseError, "invalid selector: 'x in (a,b,c)'; can't understand 'b'"),  # terms sorted first
    ("x", FieldSelectorParseError, "invalid selector: 'x'; can't understand 'x'"),
])
def test_bad_strings(s, exc, msg):
    with pytest.raises(exc) as info:
        fields.parse_selector(s)
    assert str(info.value) == msg


def test_matches_and_exact_match():
    assert fields.parse_selector("").matches({"x": "y"})
    assert fields.parse_selector("x=y").matches({"x": "y"})
    assert fields.parse_selector("x!=y,z!=w").matches({"x": "z", "z": "a"})
    assert not fields.parse_selector("x=y").matches({"x": "z"})
    assert not fields.parse_selector("x=z").matches({})
    assert fields.parse_selector("x=").matches({})  # a missing field reads as ""
    sel = fields.parse_selector("metadata.name=foo,spec.nodeName!=bar")
    assert sel.requires_exact_match("metadata.name") == ("foo", True)
    assert sel.requires_exact_match("spec.nodeName") == ("", False)
    assert sel.requirements() == [Requirement("=", "metadata.name", "foo"), Requirement("!=", "spec.nodeName", "bar")]
    assert fields.everything().empty() and not fields.nothing().matches({})
    one = fields.one_term_equal_selector("metadata.name", "a,b")
    assert str(one) == "metadata.name=a\\,b" and one.matches({"metadata.name": "a,b"})


def test_transform():
    sel = fields.parse_selector("a=b,c=d")
    moved = sel.transform(lambda f, v: ("x." + f, v.upper()))
    assert str(moved) == "x.a=B,x.c=D"
    dropped = sel.transform(lambda f, v: ("", "") if f == "a" else (f, v))
    assert str(dropped) == "c=d"

    def refuse(f, v):
        raise FieldSelectorParseError(f'field label not supported: {f}')

    with pytest.raises(FieldSelectorParseError, match="field label not supported: a"):
        fields.parse_and_transform_selector("a=b", refuse)


@pytest.mark.parametrize("hostile", ["\\" * 100_001, "=" * 200_000, ",".join(["a=b"] * 50_000),
                                     "a=\udcff\\,", b"a=\xff", "a=\udcff\\q"])
def test_hostile(hostile):
    try:
        sel = fields.parse_selector(hostile)
    except FieldSelectorParseError as e:
        assert str(e).startswith("invalid")
    else:
        assert isinstance(sel, fields.Selector)


def test_invalid_utf8_is_replaced_when_unescaping():
    # Go ranges over runes when unescaping: a byte that is not UTF-8 becomes U+FFFD.
    assert fields.parse_selector("a=\udcff\\,").requirements()[0].value == "\ufffd,"
    assert fields.parse_selector("a=\udcff").requirements()[0].value == "\udcff"
