"""Property tests of kcodec.labels and kcodec.fields (apimachinery pkg/labels/selector.go,
pkg/fields/selector.go): any string parses or raises the parser's own error, never anything
else; a parsed selector's String() parses back to the same selector (Go's parse sorts and
deduplicates, so the printed form is canonical), and matching agrees with the reparsed one."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kcodec import fields, labels

_ALPHABET = st.sampled_from(list("ab-_./=!(),<> \t\n\x00") + ["in", "notin", "é", "\udcff", "1", "9"])
_TEXT = st.lists(_ALPHABET, max_size=40).map("".join)
_LABELS = st.dictionaries(st.sampled_from(["a", "b", "a.b/c", "x"]), st.sampled_from(["", "1", "2", "ab", "in"]),
                          max_size=4)


@settings(max_examples=300, deadline=None)
@given(_TEXT, _LABELS)
def test_label_selector_parse_is_total_and_canonical(text, ls):
    try:
        sel = labels.parse(text)
    except labels.SelectorParseError as e:
        assert str(e)
        return
    again = labels.parse(str(sel))
    assert str(again) == str(sel)
    assert again.matches(ls) == sel.matches(ls)


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.dictionaries(st.sampled_from(["a", "b", "metadata.name"]), st.sampled_from(["", "x", "=", ","]),
                              max_size=3))
def test_field_selector_parse_is_total_and_canonical(text, fs):
    try:
        sel = fields.parse_selector(text)
    except fields.FieldSelectorParseError as e:
        assert str(e).startswith("invalid")
        return
    again = fields.parse_selector(str(sel))
    assert str(again) == str(sel)
    assert again.matches(fs) == sel.matches(fs)
