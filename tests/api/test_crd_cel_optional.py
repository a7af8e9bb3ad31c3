"""CEL's optional syntax in CRD validation rules: ``a.?f``, ``m[?k]`` / ``l[?i]``, ``[?x]``,
``{?k: v}``, the optional library's macros and functions, and triple-quoted strings, compiled
with :func:`cel.compile_rule` and run by :class:`cel.Validator`.

Expected results come from the Go tests named on each table: cel-go ``cel/cel_test.go``
(TestOptionalValuesEval, TestOptionalValuesEvalErrorCases, TestOptionalMacroError),
``checker/checker_test.go`` (the optional cases of TestCheck), ``parser/parser_test.go`` and
apiextensions-apiserver ``pkg/apiserver/schema/cel/validation_test.go`` (TestOptionalOldSelf).
"""
from __future__ import annotations

import pytest

pytest.importorskip("celpy", reason="cel-python (kcodec[cel]) is not installed: CEL rules are not evaluated")

from kcodec.api.apiextensions import cel  # noqa: E402

STR = {"type": "string"}
MAP_OF_MAPS = {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": STR}}


def _schema(**props):
    return {"type": "object", "properties": props}


# cel-go's variables m (map(string, map(string, string))) and l (list(string)) as CRD fields
SCHEMA = _schema(m=MAP_OF_MAPS, l={"type": "array", "items": STR}, z={"type": "integer"},
                 obj=_schema(s=STR, n={"type": "integer"}))


def _run(rule, value, schema=SCHEMA, old=None, **extra):
    s = {**schema, "x-kubernetes-validations": [{"rule": rule, **extra}]}
    compiled = cel.compile_rule({"rule": rule, **extra}, s, False)
    if compiled.error:
        return [compiled.error]
    return [str(e) for e in cel.Validator(s, False).validate(value, old)]


# cel/cel_test.go TestOptionalValuesEval: (rule, self, None when the rule holds, else the
# error text). cel-go's expression results are compared with == in the rule.
EVAL = [
    ("has({'foo': optional.none()}.foo)", {}, None),
    ("!has({'foo': optional.none()}.foo.value)", {}, None),
    ("!has({?'foo': optional.none()}.foo)", {}, None),
    ("has({?'foo': optional.none()}.foo.value)", {}, "no such key: foo"),
    ("{}.?invalid == optional.none()", {}, None),
    ("{'null_field': dyn(null)}.?null_field == optional.of(null)", {}, None),
    ("{'null_field': dyn(null)}.?null_field.?nested == optional.none()", {}, None),
    ("{'zero_field': dyn(0)}.?zero_field.?invalid == optional.none()", {}, None),
    ("{0: dyn(0)}[?0].?invalid == optional.none()", {}, None),
    ("{true: dyn(0)}[?false].?invalid == optional.none()", {}, None),
    ("{true: dyn(0)}[?true].?invalid == optional.none()", {}, None),
    ("optional.none().optMap(y, y + 1) == optional.none()", {}, None),
    ("optional.of(42).optMap(y, y + 1) == optional.of(43)", {}, None),
    ("self.m.?key.optFlatMap(k, k.?subkey) == optional.none()", {"m": {}}, None),
    ("self.m.?key.optFlatMap(k, k.?subkey) == optional.none()", {"m": {"key": {}}}, None),
    ("self.m.?key.optFlatMap(k, k.?subkey) == optional.of('subvalue')", {"m": {"key": {"subkey": "subvalue"}}}, None),
    ("self.m.?key.optFlatMap(k, k.?subkey) == optional.of('')", {"m": {"key": {"subkey": ""}}}, None),
    ("self.m.?key.optFlatMap(k, optional.ofNonZeroValue(k.subkey)) == optional.none()",
     {"m": {"key": {"subkey": ""}}}, None),
    ("optional.ofNonZeroValue(self.z).or(optional.of(10)).value() == 42", {"z": 42}, None),
    ("(has(self.m.x) ? optional.of(self.m.x) : optional.none()).hasValue() == false", {"m": {}}, None),
    ("self.m.?x.hasValue() == false", {"m": {}}, None),
    ("!has(self.m.?x.y)", {"m": {}}, None),
    ("has(self.m.?x.y)", {"m": {"x": {"y": "z"}}}, None),
    ("optional.ofNonZeroValue('').or(optional.of(self.m.c['dashed-index'])).orValue('default value') == 'goodbye'",
     {"m": {"c": {"dashed-index": "goodbye"}}}, None),
    ("self.m.c[?'dashed-index'].orValue('default value') == 'goodbye'",
     {"m": {"c": {"dashed-index": "goodbye"}}}, None),
    ("self.m.c[?'missing-index'].orValue('default value') == 'default value'", {"m": {"c": {}}}, None),
    ("optional.ofNonZeroValue(self.m.a.z).orValue(self.m.c['dashed-index']) == ''",
     {"m": {"c": {"dashed-index": "goodbye"}}}, "no such key: a"),
    ("self.m.?c.missing.or(self.m.?c['dashed-index']).orValue('').size() == 7",
     {"m": {"c": {"dashed-index": "goodbye"}}}, None),
    ("{?'nested_map': optional.ofNonZeroValue({?'map': self.m.?c})} == "
     "{'nested_map': {'map': {'dashed-index': 'goodbye'}}}", {"m": {"c": {"dashed-index": "goodbye"}}}, None),
    ("[?optional.ofNonZeroValue(self.m.?c.orValue({}))] == []", {"m": {"c": {}}}, None),
    ("optional.ofNonZeroValue({?'nested_map': optional.ofNonZeroValue({?'map': self.m.?c})}) == optional.none()",
     {"m": {}}, None),
    ("[].first() == optional.none()", {}, None),
    ("['a','b','c'].first() == optional.of('a')", {}, None),
    ("[].last() == optional.none()", {}, None),
    ("[1, 2, 3].last() == optional.of(3)", {}, None),
    ("optional.unwrap([]) == []", {}, None),
    ("optional.unwrap([optional.none(), optional.none()]) == []", {}, None),
    ("optional.unwrap([optional.of(42), optional.none(), optional.of(43)]) == [42, 43]", {}, None),
    ("[].unwrapOpt() == []", {}, None),
    ("[optional.of(42), optional.none(), optional.of(43)].unwrapOpt() == [42, 43]", {}, None),
    ("type(optional.none()) == optional_type", {}, None),
    ("optional.of(optional.of(1)) != dyn(optional.of(1))", {}, None),
    ("(true ? optional.of(optional.of(1)) : dyn(optional.of(2))) != dyn(optional.of(1))", {}, None),
    # cel/cel_test.go TestOptionalValuesEvalErrorCases
    ("dyn(1).or(optional.of(2)) == optional.of(2)", {}, "no such overload"),
    ("dyn(1).orValue(2) == 2", {}, "no such overload"),
    ("optional.of(1/0).or(optional.of(2)) == optional.of(2)", {}, "division by zero"),
    ("optional.of(1/0).orValue(2) == 2", {}, "division by zero"),
]


@pytest.mark.parametrize("rule,value,error", EVAL, ids=[r[:80] for r, _, _ in EVAL])
def test_cel_go_optional_values(rule, value, error) -> None:
    out = _run(rule, value)
    if error is None:
        assert out == []
    else:
        assert len(out) == 1 and error in out[0], out


# Each optional form on schema data, present and absent (cel-go interpreter/attributes.go
# applyQualifiers and interpretable.go evalList/evalMap): rule -> None or the error.
FORMS = [
    # a.?f
    ("self.?obj.?s == optional.of('x')", None),
    ("self.obj.?n == optional.none()", None),
    ("self.?obj.n.orValue(5) == 5", None),  # after .? the rest of the chain is optional too
    ("self.obj.?s.value() == 'x'", None),
    ("self.obj.?n.value() == 1", "optional.none() dereference"),
    ("self.obj.?n.hasValue()", "failed rule"),
    # m[?k], l[?i]
    ("self.m.?c[?'k'] == optional.of('v')", None),
    ("self.m[?'c'][?'missing'] == optional.none()", None),
    ("self.m[?'absent'].k == optional.none()", None),
    ("self.l[?1] == optional.of('b')", None),
    ("self.l[?2] == optional.none() && self.l[?-1] == optional.none()", None),
    ("self.l[?1.0] == optional.of('b') && self.l[?uint(0)] == optional.of('a')", None),
    ("dyn(self.l)[?'x'] == optional.none()", "unsupported index type 'string' in list"),
    ("dyn(self.l)[?0.5] == optional.none()", "unsupported index value 0.5 in list"),
    # [?x, y]
    ("[?self.l[?0], ?self.l[?5], 'c'] == ['a', 'c']", None),
    ("[?self.obj.?s, ?self.obj.?n.optMap(n, string(n))].size() == 1", None),
    ("[?dyn('a')] == ['a']", "cannot initialize optional list element from non-optional value a"),
    # {?k: v}
    ("{?'a': self.obj.?s, ?'b': self.l[?9], 'c': 'd'} == {'a': 'x', 'c': 'd'}", None),
    ("{'a': {'x': 'y'}, ?'a': self.m.?none} == {}", None),  # a none entry removes the key, as evalMap does
    ("{?'a': dyn('v')} == {}", "cannot initialize optional entry 'a' from non-optional value v"),
    # errors on both sides of && are an error value, which || then ignores (cel-go's
    # commutative logic); celpy prints such errors' expressions, optional nodes included
    ("!has(self.obj.n) || self.obj.?n.value() > 0 && self.l[?9].value() == 'a'", None),
    ("true || (self.m.nokey.x == 'a' && self.m.nokey2.y == 'b')", None),
    # ordinary syntax keeps its behaviour: a plain select on an absent field fails
    ("self.m.missing.k == 'v'", "no such key: missing"),
    ("self.l[5] == 'a'", "index out of bounds: 5"),
]

FORMS_VALUE = {"m": {"c": {"k": "v"}}, "l": ["a", "b"], "obj": {"s": "x"}}


@pytest.mark.parametrize("rule,error", FORMS, ids=[r[:80] for r, _ in FORMS])
def test_optional_forms_on_schema_data(rule, error) -> None:
    out = _run(rule, FORMS_VALUE)
    if error is None:
        assert out == []
    else:
        assert len(out) == 1 and error in out[0], out


# checker/checker_test.go (optional cases of TestCheck), cel/cel_test.go TestOptionalMacroError,
# and the schema checks compile_rule adds: rule -> the compile error
COMPILE_ERRORS = [
    ("{?'key': 'hi'} == {}", "ERROR: <input>:1:10: expected type 'optional_type(string)' but found 'string'\n"
                             " | {?'key': 'hi'} == {}\n | .........^"),
    ("[?'value'] == []", "ERROR: <input>:1:3: expected type 'optional_type(string)' but found 'string'\n"
                         " | [?'value'] == []\n | ..^"),
    ("optional.of(1).optMap(y.z, y.z + 1) == optional.none()", "optMap() variable name must be a simple identifier"),
    ("optional.of(1).optFlatMap(y.z, y.z + 1) == optional.none()",
     "optFlatMap() variable name must be a simple identifier"),
    ("self.?nope == optional.none()", "ERROR: <input>:1:5: undefined field 'nope'"),
    ("self.?obj.?nope == optional.none()", "ERROR: <input>:1:10: undefined field 'nope'"),
    ("self.?obj.s.size() > 0 || self.obj.?nope.hasValue()", "ERROR: <input>:1:35: undefined field 'nope'"),
    ("self.?obj.?s == 'x'", "found no matching overload for '_==_' applied to '(optional_type(string), string)'"),
    ("self.?obj", "cel expression must evaluate to a bool"),
    ("self.l[?0]", "cel expression must evaluate to a bool"),
    # parser/macro.go MakeHas: has() takes a field selection, not an optional one (a call of
    # _?._) or an index; parser/parser_test.go's `has(m)`
    ("has(self.?obj)", "compilation failed: ERROR: <input>:1:9: invalid argument to has() macro\n"
                       " | has(self.?obj)\n | ........^"),
    ("has(self.l[?0])", "ERROR: <input>:1:11: invalid argument to has() macro"),
    ("has(self.l[0])", "ERROR: <input>:1:11: invalid argument to has() macro"),
    ("has(self)", "ERROR: <input>:1:5: invalid argument to has() macro"),
]


@pytest.mark.parametrize("rule,error", COMPILE_ERRORS, ids=[r[:80] for r, _ in COMPILE_ERRORS])
def test_optional_compile_errors(rule, error) -> None:
    compiled = cel.compile_rule({"rule": rule}, SCHEMA, False)
    assert compiled.error is not None and error in compiled.error, compiled.error


# Syntax errors keep celpy's position (parser/parser_test.go has the optional forms that do
# not parse); ordinary expressions parse as before.
SYNTAX_ERRORS = [
    ("self.?1 == 1", "ERROR: <input>:1:7: Syntax error: unexpected input"),
    ("self.l[?] == 1", "ERROR: <input>:1:9: Syntax error: unexpected input"),
    ("[?] == []", "ERROR: <input>:1:3: Syntax error: unexpected input"),
    ("{?'a'} == {}", "ERROR: <input>:1:6: Syntax error: unexpected input"),
    ("self ?? true", "ERROR: <input>:1:7: Syntax error: unexpected input"),
]


@pytest.mark.parametrize("rule,error", SYNTAX_ERRORS, ids=[r for r, _ in SYNTAX_ERRORS])
def test_optional_syntax_errors(rule, error) -> None:
    compiled = cel.compile_rule({"rule": rule}, SCHEMA, False)
    assert compiled.error == "compilation failed: " + error + "\n | " + rule + "\n | " + "." * (
        int(error.split(":")[3]) - 1) + "^"


def test_ternary_and_plain_literals_parse_as_before() -> None:
    assert _run("size(self.l) > 0 ? self.l[0] == 'a' : true", FORMS_VALUE) == []
    assert _run("[1, 2, 3][1] == 2 && {'a': 1}['a'] == 1 && (true ? {'k': [?optional.none()]} : {}) == {'k': []}",
                FORMS_VALUE) == []


# apiextensions-apiserver validation_test.go TestOptionalOldSelf: oldSelf is an optional
# value; a selection on it is optional too ("with chained optionals")
OLD_SELF = _schema(foo=STR)


@pytest.mark.parametrize("rule", ["self.foo == 'valid' || (oldSelf.hasValue() && oldSelf.value().foo != 'valid')",
                                  "self.foo == 'valid' || oldSelf.foo.orValue('') != 'valid'",
                                  # cel_test.go's has(optm.c): a presence test through an optional
                                  "self.foo == 'valid' || !has(oldSelf.foo) || oldSelf.foo.value() != 'valid'"])
def test_optional_old_self(rule) -> None:
    assert _run(rule, {"foo": "invalid again"}, OLD_SELF, {"foo": "invalid"}, optionalOldSelf=True) == []
    assert _run(rule, {"foo": "valid"}, OLD_SELF, None, optionalOldSelf=True) == []
    out = _run(rule, {"foo": "invalid"}, OLD_SELF, {"foo": "valid"}, optionalOldSelf=True)
    assert len(out) == 1 and "failed rule" in out[0], out


# parser/parser_test.go and parser/unescape_test.go: a triple-quoted string keeps its
# newlines; escapes are expanded unless the string is raw
@pytest.mark.parametrize("rule", ["'''l1\nl2''' == 'l1\\nl2'", '"""l1\nl2""" == "l1\\nl2"',
                                  "r'''a\\n\nb''' == 'a\\\\n\\nb'", "'''tab\\there''' == 'tab\\there'",
                                  "'''\\x41\\u0042\\101''' == 'ABA'", "self.s.matches('''^a\nb$''')",
                                  # newlines are normalised to \n first (unescape.go newlineNormalizer)
                                  "'''a\r\nb\rc''' == 'a\\nb\\nc'", "r'''a\r\nb''' == 'a\\nb'",
                                  # bytes: hex and octal escapes are byte values
                                  "b'''a\nb''' == b'a\\nb'", "b'''\\xff\\001\n''' == b'\\xff\\001\\n'",
                                  "br'''\\x\n''' == b'\\\\x\\n'"])
def test_triple_quoted_strings(rule) -> None:
    assert _run(rule, {"s": "a\nb"}, _schema(s=STR)) == []
