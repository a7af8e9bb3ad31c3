"""The Kubernetes semver library in CRD validation rules (Go: k8s.io/apiserver
``pkg/cel/library/semverlib.go`` over blang/semver/v4), compiled with
:func:`cel.compile_rule` and run by :class:`cel.Validator`.

TestSemver's cases come from apiserver ``pkg/cel/library/semver_test.go``; the parse,
normalize and ordering tables are blang/semver/v4 ``semver_test.go``'s (formatTests,
wrongformatTests, compareTests) and semverlib.go's normalizeAndParse, with the results and
error texts Go's ``semver.Parse`` gives for them.
"""
from __future__ import annotations

import pytest

pytest.importorskip("celpy", reason="cel-python (kcodec[cel]) is not installed: CEL rules are not evaluated")

from kcodec.api.apiextensions import cel  # noqa: E402

SCHEMA = {"type": "object", "properties": {"v": {"type": "string"}}}


def _run(rule, value=None):
    s = {**SCHEMA, "x-kubernetes-validations": [{"rule": rule}]}
    compiled = cel.compile_rule({"rule": rule}, s, False)
    if compiled.error:
        return [compiled.error]
    return [str(e) for e in cel.Validator(s, False).validate(value if value is not None else {})]


# semver_test.go TestSemver: (expression, its value as CEL, or None and the runtime error)
TEST_SEMVER = [
    ('semver("1.2.3")', 'semver("1.2.3")', None),
    ('semver("v1.0")', None, "No Major.Minor.Patch elements found"),
    ('isSemver("1.2.3-beta.1+build.1")', "true", None),
    ('isSemver("")', "false", None),
    ('isSemver("v1.0.0")', "false", None),
    ('isSemver(" 1.0.0")', "false", None),
    ('isSemver("1. 0.0")', "false", None),
    ('isSemver("1.0.0 ")', "false", None),
    ('isSemver("01.01.01")', "false", None),
    ('isSemver("1")', "false", None),
    ('isSemver("1.1")', "false", None),
    ('isSemver("", true)', "false", None),
    ('isSemver(" 1.0.0", true)', "false", None),
    ('isSemver("1. 0.0", true)', "false", None),
    ('isSemver("1.0.0 ", true)', "false", None),
    ('isSemver("v1.0.0", true)', "true", None),
    ('isSemver("01.01.01", true)', "true", None),
    ('isSemver("1", true)', "true", None),
    ('isSemver("1.1", true)', "true", None),
    ('semver("v01.01", true) == semver("1.1.0")', "true", None),
    ('semver("1.2.3") == semver("1.2.3")', "true", None),
    ('semver("1.2.3") == semver("1.0.0")', "false", None),
    ('semver("1.0.0").isLessThan(semver("1.2.3"))', "true", None),
    ('semver("1.0.0").isLessThan(semver("1.0.0"))', "false", None),
    ('semver("1.2.3").isGreaterThan(semver("1.0.0"))', "true", None),
    ('semver("1.0.0").isGreaterThan(semver("1.0.0"))', "false", None),
    ('semver("1.2.3").compareTo(semver("1.2.3"))', "0", None),
    ('semver("1.0.0").compareTo(semver("1.2.3"))', "-1", None),
    ('semver("1.2.3").compareTo(semver("1.0.0"))', "1", None),
    ('semver("1.2.3").major()', "1", None),
    ('semver("1.2.3").minor()', "2", None),
    ('semver("1.2.3").patch()', "3", None),
]


@pytest.mark.parametrize("expr,want,error", TEST_SEMVER, ids=[e for e, _, _ in TEST_SEMVER])
def test_semver_library(expr, want, error) -> None:
    if error is None:
        assert _run(f"({expr}) == {want}") == []
        assert _run(f"({expr}) != {want}") == [f"<nil>: Invalid value: failed rule: ({expr}) != {want}"]
    else:
        rule = f"{expr} == {expr}"
        assert _run(rule) == [f'<nil>: Invalid value: "object": {error} evaluating rule: {rule}']


def test_semver_no_overload_is_a_compile_error() -> None:
    # semver_test.go isSemver_noOverload: "found no matching overload for 'isSemver' applied to.*"
    assert _run("isSemver([1, 2, 3])") == [
        "compilation failed: ERROR: <input>:1:9: found no matching overload for 'isSemver' applied to "
        "'(list(int))'\n | isSemver([1, 2, 3])\n | ........^"]
    assert "found no matching overload for 'semver' applied to '(string, string)'" in _run(
        "semver('1.0.0', 'x').major() == 1")[0]


# blang/semver/v4 Parse on formatTests and wrongformatTests (and a few more): (text, the
# version it prints, or None and Go's error)
PARSE = [
    ('', None, 'Version string empty'),
    ('.', None, 'No Major.Minor.Patch elements found'),
    ('1.', None, 'No Major.Minor.Patch elements found'),
    ('.1', None, 'No Major.Minor.Patch elements found'),
    ('a.b.c', None, 'Invalid character(s) found in major number "a"'),
    ('1.a.b', None, 'Invalid character(s) found in minor number "a"'),
    ('1.1.a', None, 'Invalid character(s) found in patch number "a"'),
    ('1.a.1', None, 'Invalid character(s) found in minor number "a"'),
    ('a.1.1', None, 'Invalid character(s) found in major number "a"'),
    ('..', None, 'strconv.ParseUint: parsing "": invalid syntax'),
    ('1..', None, 'strconv.ParseUint: parsing "": invalid syntax'),
    ('1.1.', None, 'strconv.ParseUint: parsing "": invalid syntax'),
    ('1..1', None, 'strconv.ParseUint: parsing "": invalid syntax'),
    ('1.1.+123', None, 'strconv.ParseUint: parsing "": invalid syntax'),
    ('1.1.-beta', None, 'strconv.ParseUint: parsing "": invalid syntax'),
    ('-1.1.1', None, 'Invalid character(s) found in major number "-1"'),
    ('1.-1.1', None, 'Invalid character(s) found in minor number "-1"'),
    ('1.1.-1', None, 'strconv.ParseUint: parsing "": invalid syntax'),
    ('20000000000000000000.1.1', None, 'strconv.ParseUint: parsing "20000000000000000000": value out of range'),
    ('1.20000000000000000000.1', None, 'strconv.ParseUint: parsing "20000000000000000000": value out of range'),
    ('1.1.20000000000000000000', None, 'strconv.ParseUint: parsing "20000000000000000000": value out of range'),
    ('1.1.1-20000000000000000000', None, 'strconv.ParseUint: parsing "20000000000000000000": value out of range'),
    ('01.1.1', None, 'Major number must not contain leading zeroes "01"'),
    ('001.1.1', None, 'Major number must not contain leading zeroes "001"'),
    ('1.01.1', None, 'Minor number must not contain leading zeroes "01"'),
    ('1.001.1', None, 'Minor number must not contain leading zeroes "001"'),
    ('1.1.01', None, 'Patch number must not contain leading zeroes "01"'),
    ('1.1.001', None, 'Patch number must not contain leading zeroes "001"'),
    ('1.1.1-001', None, 'Numeric PreRelease version must not contain leading zeroes "001"'),
    ('1.1.1-beta.01', None, 'Numeric PreRelease version must not contain leading zeroes "01"'),
    ('1.1.1-beta..1', None, 'Prerelease is empty'),
    ('1.1.1+', None, 'Build meta data is empty'),
    ('1.1.1+a..b', None, 'Build meta data is empty'),
    ('1.1.1+a_b', None, 'Invalid character(s) found in build meta data "a_b"'),
    ('1.1.1-a_b', None, 'Invalid character(s) found in prerelease "a_b"'),
    ('1.0.0+abc', '1.0.0+abc', None),
    ('v1.0', None, 'No Major.Minor.Patch elements found'),
    ('1.0.0 ', None, 'Invalid character(s) found in patch number "0 "'),
    ('1.2.3-beta.1+build.1', '1.2.3-beta.1+build.1', None),
    ('0.0.1-alpha.preview+123.456', '0.0.1-alpha.preview+123.456', None),
]


@pytest.mark.parametrize("text,printed,error", PARSE, ids=[repr(t) for t, _, _ in PARSE])
def test_semver_parse(text, printed, error) -> None:
    rule = "isSemver(self.v)"
    if error is None:
        assert _run(f"{rule} && semver(self.v) == semver('{printed}')", {"v": text}) == []
    else:
        assert _run(f"!{rule}", {"v": text}) == []
        rule = "semver(self.v).major() >= 0"
        assert _run(rule, {"v": text}) == [f'<nil>: Invalid value: "object": {error} evaluating rule: {rule}']


# semverlib.go normalizeAndParse (semver(s, true), isSemver(s, true))
NORMALIZE = [
    ('v1.0.0', '1.0.0', None),
    ('01.01.01', '1.1.1', None),
    ('1', '1.0.0', None),
    ('1.1', '1.1.0', None),
    ('v01.01', '1.1.0', None),
    ('1.0+abc', None, 'short version cannot contain PreRelease/Build meta data'),
    ('1.0-rc.1', None, 'Invalid character(s) found in minor number "0-rc"'),
    ('', None, 'strconv.ParseUint: parsing "": invalid syntax'),
    (' 1.0.0', None, 'Invalid character(s) found in major number "0 1"'),
    ('1.0.0 ', None, 'Invalid character(s) found in patch number "0 "'),
    ('1. 0.0', None, 'Invalid character(s) found in minor number "0 0"'),
    ('v', None, 'strconv.ParseUint: parsing "": invalid syntax'),
    ('vv1', None, 'Invalid character(s) found in major number "0v1"'),
    ('000.0.03', '0.0.3', None),
    ('1.2.00', '1.2.0', None),
    ('00', '0.0.0', None),
    ('0a.1.1', None, 'Invalid character(s) found in major number "0a"'),
    ('1.0.0-01', None, 'Numeric PreRelease version must not contain leading zeroes "01"'),
]


@pytest.mark.parametrize("text,printed,error", NORMALIZE, ids=[repr(t) for t, _, _ in NORMALIZE])
def test_semver_normalize(text, printed, error) -> None:
    if error is None:
        assert _run(f"isSemver(self.v, true) && semver(self.v, true) == semver('{printed}')", {"v": text}) == []
    else:
        assert _run("!isSemver(self.v, true)", {"v": text}) == []
        rule = "semver(self.v, true).major() >= 0"
        assert _run(rule, {"v": text}) == [f'<nil>: Invalid value: "object": {error} evaluating rule: {rule}']


# blang/semver/v4 compareTests (build metadata does not order): (a, b, a.compareTo(b))
COMPARE = [
    ('1.0.0', '1.0.0-alpha', 1),
    ('1.0.0-alpha', '1.0.0-alpha.1', -1),
    ('1.0.0-alpha.1', '1.0.0-alpha.beta', -1),
    ('1.0.0-alpha.beta', '1.0.0-beta', -1),
    ('1.0.0-beta', '1.0.0-beta.2', -1),
    ('1.0.0-beta.2', '1.0.0-beta.11', -1),
    ('1.0.0-beta.11', '1.0.0-rc.1', -1),
    ('1.0.0-rc.1', '1.0.0', -1),
    ('1.0.0+1.2.3', '1.0.0', 0),
    ('2.2.4', '1.2.4', 1),
    ('1.3.3', '1.2.3', 1),
    ('2.1.0', '2.1.1', -1),
]


@pytest.mark.parametrize("a,b,result", COMPARE, ids=[f"{a} {b}" for a, b, _ in COMPARE])
def test_semver_ordering(a, b, result) -> None:
    rule = (f"semver('{a}').compareTo(semver('{b}')) == {result} && "
            f"semver('{b}').compareTo(semver('{a}')) == {-result} && "
            f"semver('{a}').isGreaterThan(semver('{b}')) == {str(result == 1).lower()} && "
            f"semver('{a}').isLessThan(semver('{b}')) == {str(result == -1).lower()} && "
            f"(semver('{a}') == semver('{b}')) == {str(result == 0).lower()}")
    assert _run(rule) == []


def test_semver_type() -> None:
    # apiserver pkg/cel/semver.go: SemverType is cel.ObjectType("kubernetes.Semver")
    assert _run("type(semver('1.0.0')) == kubernetes.Semver && type('1.0.0') != kubernetes.Semver") == []


def test_semver_methods_keep_the_quantity_overloads() -> None:
    # isGreaterThan, isLessThan and compareTo are quantity.go's too: each receiver type
    # takes its own library's overload, and mixing them has none
    assert _run("quantity('2').isGreaterThan(quantity('1')) && semver('2.0.0').isGreaterThan(semver('1.0.0'))") == []
    assert "no such overload" in _run("semver('1.0.0').compareTo(quantity('1')) == 0")[0]
