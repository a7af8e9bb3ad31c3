"""kcodec.labels against apimachinery pkg/labels/selector.go (and selector_test.go's tables:
TestSelectorParse, TestSelectorMatches, TestRequirementConstructor, TestToString,
TestSetSelectorParser, TestRequiresExactMatch) and apis/meta/v1/helpers.go
(LabelSelectorAsSelector). Expected error texts follow selector.go's fmt.Errorf calls and
field.Error's rendering."""
from __future__ import annotations

import pytest

from kcodec import labels
from kcodec.api.meta import v1 as metav1
from kcodec.errors import KCodecError
from kcodec.labels import Operator, SelectorParseError
from kcodec.validation.field import Path

_KEY_REGEX = ("a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and "
              "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
              "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
              "and '/' (e.g. 'example.com/MyName')")
_VALUE_REGEX = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


@pytest.mark.parametrize("s", ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1",
                               "x>1,z<5"])
def test_good_strings_restring(s):
    assert str(labels.parse(s)) == s.replace(" ", "")


@pytest.mark.parametrize(("s", "msg"), [
    ("x=a||y=b", 'unable to parse requirement: values[0][x]: Invalid value: "a||y": ' + _VALUE_REGEX),
    ("x==a==b", "found '==', expected: ',' or 'end of string'"),
    ("!x=a", "found '=', expected: ',' or 'end of string'"),
    ("x<a", 'unable to parse requirement: values[0]: Invalid value: "a": for \'Gt\', \'Lt\' operators, '
            "the value must be an integer"),
    # selector.go parseKeyAndInferOperator validates the key with the parser's (nil) path.
    ("a/b/c", 'unable to parse requirement: <nil>: Invalid value: "a/b/c": ' + _KEY_REGEX),
    ("x in a", "unable to parse requirement: found 'a' expected: '('"),
    ("x in (a", "unable to parse requirement: found '', expected: ',' or ')'"),
    ("x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"),
    (",", "found ',', expected: !, identifier, or 'end of string'"),
    ("x,", "found '', expected: identifier after ','"),
    ("x=(", "unable to parse requirement: found '(', expected: identifier"),
    ("x y", "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"),
    ("!", "unable to parse requirement: found '', expected: identifier"),
    ("!!x", "unable to parse requirement: found '!', expected: identifier"),
    ("a=" + "b" * 64, "unable to parse requirement: values[0][a]: Invalid value: \"" + "b" * 64
     + "\": must be no more than 63 bytes"),
])
def test_bad_strings_go_messages(s, msg):
    with pytest.raises(SelectorParseError) as info:
        labels.parse(s)
    assert str(info.value) == msg
    assert isinstance(info.value, KCodecError)


def test_path_option_prefixes_field_errors():
    with pytest.raises(SelectorParseError) as info:
        labels.parse("a=b c", Path("spec", "selector"))
    assert str(info.value) == "found 'c', expected: ',' or 'end of string'"
    with pytest.raises(SelectorParseError) as info:
        labels.parse("a=-b", Path("labelSelector"))
    assert str(info.value).startswith('unable to parse requirement: labelSelector.values[0][a]: Invalid value: "-b"')


@pytest.mark.parametrize(("sel", "ls", "want"), [
    ("", {"x": "y"}, True), ("x=y", {"x": "y"}, True), ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True), ("notin=in", {"notin": "in"}, True), ("x", {"x": "z"}, True),
    ("!x", {"y": "z"}, True), ("x>1", {"x": "2"}, True), ("x<1", {"x": "0"}, True),
    ("x=z", {}, False), ("x=y", {"x": "z"}, False), ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False), ("x", {"y": "z"}, False), ("!x", {"x": "z"}, False),
    ("x>1", {"x": "0"}, False), ("x<1", {"x": "2"}, False), ("z>1", {"z": "v2"}, False),
    ("x in (foo),y notin (alpha)", {"x": "foo", "y": "baz"}, True),
    ("x notin (),y", {"y": ""}, True), ("x in ()", {"y": "baz"}, False),
    ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
])
def test_matches(sel, ls, want):
    assert labels.parse(sel).matches(ls) is want


@pytest.mark.parametrize(("s", "want"), [
    ("\rx", "x"),
    ("this-is-another-dns.domain.com/key-with-dash in (so,what)",
     "this-is-another-dns.domain.com/key-with-dash in (so,what)"),
    ("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"),
    ("foo  in\t (abc)", "foo in (abc)"), ("x notin\n (abc)", "x notin (abc)"),
    ("x  notin\t\t(abc,def)", "x notin (abc,def)"), ("x in (abc,def)", "x in (abc,def)"),
    ("x in (abc,)", "x in (,abc)"), ("x in ()", "x in ()"), ("x in (,)", "x in ()"),
    ("x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"),
    ("x,y,z", "x,y,z"), ("x>1,x=2", "x>1,x=2"), ("w in (b,a)", "w in (a,b)"),
    ("x=a,a=x", "a=x,x=a"),
])
def test_set_selector_parser(s, want):
    assert str(labels.parse(s)) == want


def test_nul_byte_ends_a_token_as_in_go():
    # Go's Lexer.read returns 0 at the end and for a NUL byte alike.
    assert str(labels.parse("\x00a=b")) == ""
    assert str(labels.parse("a=b\x00,c")) == "a=b,c"


def test_requirement_constructor():
    # selector_test.go TestRequirementConstructor, with the texts NewRequirement builds.
    with pytest.raises(SelectorParseError, match=r"^values: Invalid value: \[\]: for 'in', 'notin' operators"):
        labels.new_requirement("x1", Operator.IN, [])
    with pytest.raises(SelectorParseError, match=r'^values: Invalid value: \["bar","foo"\]: exact-match'):
        labels.new_requirement("x5", Operator.EQUALS, ["bar", "foo"])
    with pytest.raises(SelectorParseError, match=r'^values: Invalid value: \["foo"\]: values set must be empty'):
        labels.new_requirement("x8", Operator.EXISTS, ["foo"])
    with pytest.raises(SelectorParseError) as info:
        labels.new_requirement("a" * 254, Operator.EXISTS, [])
    assert str(info.value).startswith('key: Invalid value: "' + "a" * 254 + '": name part must be no more than 63 bytes')
    with pytest.raises(SelectorParseError) as info:
        labels.new_requirement("x18", "unsupportedOp", [])
    assert str(info.value) == ('operator: Unsupported value: "unsupportedOp": supported values: "in", "notin", '
                               '"=", "==", "!=", "gt", "lt", "exists", "!"')
    with pytest.raises(SelectorParseError) as info:
        labels.new_requirement("x13", Operator.GREATER_THAN, [])
    assert str(info.value) == "values: Invalid value: []: for 'Gt', 'Lt' operators, exactly one value is required"
    assert str(labels.new_requirement("x", Operator.IN, ["b", "a"])) == "x in (a,b)"


def test_requires_exact_match_and_sets():
    sel = labels.parse("key1=value1,key2 in (value2),key3 in (a,b),key4!=x")
    assert sel.requires_exact_match("key1") == ("value1", True)
    assert sel.requires_exact_match("key2") == ("value2", True)
    assert sel.requires_exact_match("key3") == ("", False)
    assert sel.requires_exact_match("key4") == ("", False)
    assert sel.requires_exact_match("nope") == ("", False)
    assert labels.everything().empty() and labels.everything().matches({"x": "y"})
    assert not labels.nothing().matches({}) and not labels.nothing().empty()
    assert labels.matches_nothing(labels.nothing())
    s = labels.selector_from_set({"b": "2", "a": "1"})
    assert str(s) == "a=1,b=2" and s.matches({"a": "1", "b": "2", "c": "3"})
    assert labels.selector_from_set(None).empty()
    with pytest.raises(SelectorParseError):
        labels.validated_selector_from_set({"a b": "c"})
    assert labels.format_labels({}) == "<none>"
    assert labels.format_labels({"b": "1", "a": "2"}) == "a=2,b=1"
    reqs, selectable = sel.requirements()
    assert selectable and [r.key() for r in reqs] == ["key1", "key2", "key3", "key4"]


def test_label_selector_as_selector():
    assert labels.label_selector_as_selector(None) is labels.nothing()
    assert labels.label_selector_as_selector(metav1.LabelSelector()).empty()
    ps = metav1.LabelSelector(
        match_labels={"app": "web"},
        match_expressions=[metav1.LabelSelectorRequirement(key="tier", operator="In", values=["b", "a"]),
                           metav1.LabelSelectorRequirement(key="canary", operator="DoesNotExist")])
    sel = labels.label_selector_as_selector(ps)
    assert str(sel) == "app=web,!canary,tier in (a,b)"
    assert sel.matches({"app": "web", "tier": "a"}) and not sel.matches({"app": "web", "tier": "a", "canary": ""})
    bad = metav1.LabelSelector(match_expressions=[metav1.LabelSelectorRequirement(key="k", operator="Foo")])
    with pytest.raises(SelectorParseError, match='^"Foo" is not a valid label selector operator$'):
        labels.label_selector_as_selector(bad)
    bad = metav1.LabelSelector(match_labels={"app": "a b"})
    with pytest.raises(SelectorParseError, match=r'^values\[0\]\[app\]: Invalid value: "a b": '):
        labels.label_selector_as_selector(bad)


@pytest.mark.parametrize("hostile", [
    "(" * 200_000, "!" * 200_000, "x in (" + ",".join(["a"] * 100_000) + ")",
    ",".join(f"k{i}" for i in range(50_000)), "a=\udcff\udcfe", b"a=\xff\xfe", "\x00" * 1000,
    "x in (" * 50_000, "a" * 1_000_000,
])
def test_hostile_input_gives_go_errors(hostile):
    try:
        sel = labels.parse(hostile)
    except SelectorParseError as e:
        assert str(e)
    else:
        assert isinstance(sel, labels.Selector)


def test_invalid_utf8_value_error_text():
    with pytest.raises(SelectorParseError) as info:
        labels.parse(b"a=\xff")
    assert str(info.value).startswith('unable to parse requirement: values[0][a]: Invalid value: "\\xff": ')
