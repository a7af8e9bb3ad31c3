"""CRD validation rules (x-kubernetes-validations) evaluated with cel-python, against the
outcomes Go gives.

Sources of the cases: the validation-rules table of the Kubernetes documentation page
"Extend the Kubernetes API with CustomResourceDefinitions" (section "Validation rules");
k8s.io/kubernetes test/integration/apiserver/crd_validation_expressions_test.go (schemas
structuralSchemaWithValidators, ...WithInvalidMetadataValidators, ...WithValidTransitionRule,
...WithBlockingErr); apiextensions-apiserver pkg/apiserver/schema/cel/validation_test.go and
compilation_test.go (error texts); apiserver pkg/cel/library/*_test.go (library results).
Error texts are validation.go's (fieldErrorForReason, ruleMessageOrDefault, the
"evaluating rule" and "no such overload" forms).
"""
from __future__ import annotations

import copy

import pytest

pytest.importorskip("celpy", reason="cel-python (kcodec[cel]) is not installed: CEL rules are not evaluated")

from kcodec.api.apiextensions import cel  # noqa: E402
from kcodec.validation.field import Path  # noqa: E402


def _errors(schema, obj, old=None, warnings=None):
    v = cel.new_validator(schema, True)
    errs = v.validate(obj, old, None, ratchet=old is not None, warnings=warnings)
    return [str(e) for e in errs]


def _obj(**fields):
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, **fields}


def _prop_schema(rule, props, **extra):
    """A root schema whose `spec` holds *props* and carries *rule*."""
    return {"type": "object", "properties": {
        "spec": {"type": "object", "properties": props, "x-kubernetes-validations": [{"rule": rule}], **extra}}}


# -- the documentation's table: rule, the spec's properties, a valid spec, an invalid spec ---
STR = {"type": "string"}
INT = {"type": "integer"}
DOCS = [
    ("self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
     {"minReplicas": INT, "replicas": INT, "maxReplicas": INT},
     {"minReplicas": 1, "replicas": 2, "maxReplicas": 3}, {"minReplicas": 1, "replicas": 5, "maxReplicas": 3}),
    ("'Available' in self.stateCounts",
     {"stateCounts": {"type": "object", "additionalProperties": INT}},
     {"stateCounts": {"Available": 1}}, {"stateCounts": {"Pending": 1}}),
    ("(size(self.list1) == 0) != (size(self.list2) == 0)",
     {"list1": {"type": "array", "items": STR}, "list2": {"type": "array", "items": STR}},
     {"list1": ["a"], "list2": []}, {"list1": ["a"], "list2": ["b"]}),
    ("!('MY_KEY' in self.map1) || self.map1['MY_KEY'].matches('^[a-zA-Z]*$')",
     {"map1": {"type": "object", "additionalProperties": STR}},
     {"map1": {"MY_KEY": "abc"}}, {"map1": {"MY_KEY": "a1"}}),
    # the documentation's row lacks the closing parenthesis (cel-go refuses it too)
    ("self.envars.filter(e, e.name == 'MY_ENV').all(e, e.value.matches('^[a-zA-Z]*$'))",
     {"envars": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                 "items": {"type": "object", "required": ["name"], "properties": {"name": STR, "value": STR}}}},
     {"envars": [{"name": "MY_ENV", "value": "abc"}, {"name": "X", "value": "1"}]},
     {"envars": [{"name": "MY_ENV", "value": "a-1"}]}),
    ("has(self.expired) && self.created + self.ttl < self.expired",
     {"created": {"type": "string", "format": "date-time"}, "ttl": {"type": "string", "format": "duration"},
      "expired": {"type": "string", "format": "date-time"}},
     {"created": "2023-06-14T00:00:00Z", "ttl": "24h", "expired": "2023-06-16T00:00:00Z"},
     {"created": "2023-06-14T00:00:00Z", "ttl": "72h", "expired": "2023-06-16T00:00:00Z"}),
    ("self.health.startsWith('ok')", {"health": STR}, {"health": "ok: fine"}, {"health": "bad"}),
    ("self.widgets.exists(w, w.key == 'x' && w.foo < 10)",
     {"widgets": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"],
                  "items": {"type": "object", "required": ["key"], "properties": {"key": STR, "foo": INT}}}},
     {"widgets": [{"key": "x", "foo": 5}]}, {"widgets": [{"key": "x", "foo": 50}]}),
    ("self.set1.all(e, !(e in self.set2))",
     {"set1": {"type": "array", "x-kubernetes-list-type": "set", "items": STR},
      "set2": {"type": "array", "x-kubernetes-list-type": "set", "items": STR}},
     {"set1": ["a"], "set2": ["b"]}, {"set1": ["a", "b"], "set2": ["b"]}),
    ("size(self.names) == size(self.details) && self.names.all(n, n in self.details)",
     {"names": {"type": "array", "x-kubernetes-list-type": "set", "items": STR},
      "details": {"type": "object", "additionalProperties": STR}},
     {"names": ["a", "b"], "details": {"a": "1", "b": "2"}}, {"names": ["a", "c"], "details": {"a": "1", "b": "2"}}),
    ("size(self.clusters.filter(c, c.name == self.primary)) == 1",
     {"primary": STR, "clusters": {"type": "array", "x-kubernetes-list-type": "map",
                                   "x-kubernetes-list-map-keys": ["name"],
                                   "items": {"type": "object", "required": ["name"], "properties": {"name": STR}}}},
     {"primary": "a", "clusters": [{"name": "a"}, {"name": "b"}]}, {"primary": "c", "clusters": [{"name": "a"}]}),
    ("self.details.all(key, key.matches('^[a-zA-Z]*$'))",
     {"details": {"type": "object", "additionalProperties": STR}}, {"details": {"ab": "1"}}, {"details": {"a1": "1"}}),
    ("self.details.all(key, self.details[key].matches('^[a-zA-Z]*$'))",
     {"details": {"type": "object", "additionalProperties": STR}}, {"details": {"a": "xy"}}, {"details": {"a": "1"}}),
]


@pytest.mark.parametrize("rule,props,good,bad", DOCS, ids=[d[0][:40] for d in DOCS])
def test_documentation_rules(rule, props, good, bad) -> None:
    schema = _prop_schema(rule, props)
    assert cel.validate_schema_rules(schema, Path("spec", "validation", "openAPIV3Schema")).to_aggregate() is None
    assert _errors(schema, _obj(spec=good)) == []
    assert _errors(schema, _obj(spec=bad)) == [f"spec: Invalid value: failed rule: {rule}"]


def test_documentation_int_or_string_and_metadata_rules() -> None:
    schema = {"type": "object", "properties": {
        "metadata": {"type": "object"},
        "spec": {"type": "object", "properties": {
            "prefix": STR,
            "value": {"x-kubernetes-int-or-string": True, "x-kubernetes-validations": [
                {"rule": "type(self) == string ? self == '100%' : self == 1000"}]}}}},
        "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith(self.spec.prefix)"}]}
    assert _errors(schema, _obj(spec={"prefix": "w", "value": "100%"})) == []
    assert _errors(schema, _obj(spec={"prefix": "w", "value": 1000})) == []
    assert _errors(schema, _obj(spec={"prefix": "x", "value": 999})) == [
        '<nil>: Invalid value: failed rule: self.metadata.name.startsWith(self.spec.prefix)',
        "spec.value: Invalid value: 999: failed rule: type(self) == string ? self == '100%' : self == 1000"]
    assert _errors(schema, _obj(spec={"prefix": "w", "value": "99%"})) == [
        "spec.value: Invalid value: \"99%\": failed rule: type(self) == string ? self == '100%' : self == 1000"]


# -- crd_validation_expressions_test.go ----------------------------------------------------
STRUCTURAL_WITH_VALIDATORS = {
    "type": "object",
    "x-kubernetes-validations": [{"rule": "self.spec.x + self.spec.y >= (has(self.status) ? self.status.z : 0)"}],
    "properties": {
        "spec": {"type": "object", "properties": {
            "x": {"type": "integer", "default": 0},
            "y": {"type": "integer", "default": 0},
            "extra": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('anything')"}]},
            "floatMap": {"type": "object", "additionalProperties": {"type": "number"},
                         "x-kubernetes-validations": [{"rule": "self.all(k, self[k] >= 0.2)"}]},
            "assocList": {"type": "array", "maxItems": 10,
                          "items": {"type": "object", "maxProperties": 12, "required": ["k"],
                                    "properties": {"k": {"type": "string", "maxLength": 3},
                                                   "v": {"type": "string", "maxLength": 3}}},
                          "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                          "x-kubernetes-validations": [{"rule": "self.exists(e, e.k == 'a' && e.v == '1')"}]},
            "limit": {"nullable": True, "x-kubernetes-int-or-string": True,
                      "x-kubernetes-validations": [{"rule": "type(self) == int && self == 123"}]}}},
        "status": {"type": "object", "properties": {"z": {"type": "integer", "default": 0}}}}}
ROOT_RULE = "self.spec.x + self.spec.y >= (has(self.status) ? self.status.z : 0)"


def test_go_integration_structural_schema_create_and_update() -> None:
    s = STRUCTURAL_WITH_VALIDATORS
    assert _errors(s, _obj(spec={"x": 2, "y": 2, "limit": 123})) == []
    assert _errors(s, _obj(spec={"x": -1, "y": 0})) == [f"<nil>: Invalid value: failed rule: {ROOT_RULE}"]
    valid = _obj(spec={"x": 2, "y": 2, "extra": "anything?", "floatMap": {"key1": 0.2, "key2": 0.3},
                       "assocList": [{"k": "a", "v": "1"}], "limit": None})
    assert _errors(s, valid) == []
    # the four invalid spec updates of the Go test (defaults applied as the server applies them)
    for spec, want in [
        ({"x": 3, "y": -4}, f"<nil>: Invalid value: failed rule: {ROOT_RULE}"),
        ({"x": 0, "y": 0, "extra": "something"},
         "spec.extra: Invalid value: \"something\": failed rule: self.startsWith('anything')"),
        ({"x": 0, "y": 0, "floatMap": {"key1": 0.1, "key2": 0.2}},
         "spec.floatMap: Invalid value: failed rule: self.all(k, self[k] >= 0.2)"),
        ({"x": 0, "y": 0, "assocList": [{"k": "a", "v": "2"}]},
         "spec.assocList: Invalid value: failed rule: self.exists(e, e.k == 'a' && e.v == '1')"),
    ]:
        assert _errors(s, {**valid, "spec": spec}, valid) == [want]
    # status: the root rule sees status
    assert _errors(s, {**valid, "status": {"z": 5}}, valid) == [f"<nil>: Invalid value: failed rule: {ROOT_RULE}"]
    assert _errors(s, {**valid, "status": {"z": 3}}, valid) == []


def test_go_integration_metadata_rules_compile() -> None:
    def schema(rule):
        return {"type": "object", "x-kubernetes-validations": [{"rule": rule}], "properties": {
            "metadata": {"type": "object", "properties": {"name": {"type": "string"}}},
            "spec": {"type": "object", "properties": {}}, "status": {"type": "object", "properties": {}}}}

    base = Path("spec", "validation", "openAPIV3Schema")
    assert cel.validate_schema_rules(schema("self.metadata.name.size() > 3"), base).to_aggregate() is None
    err = cel.validate_schema_rules(schema("self.metadata.labels.size() > 0"), base).to_aggregate()
    assert err == (
        'spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: '
        '{"Rule":"self.metadata.labels.size() \\u003e 0","Message":"","MessageExpression":"","Reason":null,'
        '"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:14: undefined field \'labels\'\n'
        ' | self.metadata.labels.size() > 0\n'
        ' | .............^')
    assert _errors(schema("self.metadata.name.size() > 3"), _obj(metadata={"name": "abc"})) == [
        "<nil>: Invalid value: failed rule: self.metadata.name.size() > 3"]


TRANSITION = {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {"someImmutableThing": STR, "somethingElse": STR},
             "x-kubernetes-validations": [{"rule": "self.someImmutableThing == oldSelf.someImmutableThing"}]},
    "status": {"type": "object", "properties": {}}}}


def test_go_integration_transition_rule() -> None:
    old = _obj(spec={"someImmutableThing": "original", "somethingElse": "original"})
    assert _errors(TRANSITION, old) == []  # create: no old value, the rule is skipped
    assert _errors(TRANSITION, _obj(spec={"someImmutableThing": "original", "somethingElse": "new"}), old) == []
    assert _errors(TRANSITION, _obj(spec={"someImmutableThing": "new value", "somethingElse": "original"}), old) == [
        "spec: Invalid value: failed rule: self.someImmutableThing == oldSelf.someImmutableThing"]


def test_go_integration_invalid_transition_rule_and_default_map_keys() -> None:
    # structuralSchemaWithInvalidTransitionRule: oldSelf under the items of an atomic list
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"list": {
        "type": "array", "items": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}}}
    err = cel.validate_schema_rules(schema, Path("spec", "validation", "openAPIV3Schema")).to_aggregate()
    assert err == ('spec.validation.openAPIV3Schema.properties[spec].properties[list].items.x-kubernetes-validations[0]'
                   '.rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of '
                   'the schema within spec.validation.openAPIV3Schema.properties[spec].properties[list]')
    # structuralSchemaWithDefaultMapKeyTransitionRule: items correlate by their keys, defaults included
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"list": {
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k1", "k2"],
        "items": {"type": "object", "required": ["k1"], "properties": {
            "k1": STR, "k2": {"type": "string", "default": "DEFAULT"}, "v": {"type": "string", "maxLength": 200}},
            "x-kubernetes-validations": [{"rule": "self.v == oldSelf.v"}]}}}}}}
    old = _obj(spec={"list": [{"k1": "x", "v": "value"}]})
    new = _obj(spec={"list": [{"k1": "x", "k2": "DEFAULT", "v": "new value"}]})
    assert _errors(schema, new, old) == ["spec.list[0]: Invalid value: failed rule: self.v == oldSelf.v"]


def test_go_integration_blocking_errors_skip_rules() -> None:
    from kcodec.api.apiextensions import validate_custom_resource
    from kcodec.registry.customresource import CustomResourceStrategy
    from kcodec.api.meta.unstructured import Unstructured
    from kcodec.schema import GroupVersionKind

    schema = copy.deepcopy(STRUCTURAL_WITH_VALIDATORS)
    schema["properties"]["spec"]["properties"]["extra"]["maxLength"] = 0
    crd = {"spec": {"scope": "Cluster", "versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}]}}
    strategy = CustomResourceStrategy(crd, "v1", GroupVersionKind("example.com", "v1", "Widget"))
    obj = Unstructured(_obj(spec={"x": 2, "y": 2, "extra": "skipValidation?"}))
    assert validate_custom_resource(obj.unstructured_content(), schema)
    assert [str(e) for e in strategy._validate_content(obj)][-1] == (
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; "
        "correct the existing errors to complete validation")
    obj = Unstructured(_obj(spec={"x": -1, "y": 0}))
    assert [str(e) for e in strategy._validate_content(obj)] == [f"<nil>: Invalid value: failed rule: {ROOT_RULE}"]


# -- validation.go: message, messageExpression, reason, fieldPath, optionalOldSelf, ratcheting ----
def _spec_rules(*rules, props=None):
    return {"type": "object", "properties": {"spec": {
        "type": "object", "properties": props or {"a": INT, "b": STR, "m": {"type": "object",
                                                                           "additionalProperties": STR}},
        "x-kubernetes-validations": list(rules)}}}


def test_message_reason_and_field_path() -> None:
    obj = _obj(spec={"a": 5, "b": "x", "m": {"k-1": "v"}})
    assert _errors(_spec_rules({"rule": "self.a < 3", "message": "  a too big  "}), obj) == [
        "spec: Invalid value: a too big"]
    assert _errors(_spec_rules({"rule": "self.a < 3", "messageExpression": "'a is ' + string(self.a)"}), obj) == [
        "spec: Invalid value: a is 5"]
    # a messageExpression that fails falls back to the message (klog in Go)
    assert _errors(_spec_rules({"rule": "self.a < 3", "message": "m", "messageExpression": "self.nope"}), obj) == [
        "spec: Invalid value: m"]
    assert _errors(_spec_rules({"rule": "self.a < 3", "reason": "FieldValueForbidden"}), obj) == [
        "spec: Forbidden: failed rule: self.a < 3"]
    assert _errors(_spec_rules({"rule": "self.a < 3", "reason": "FieldValueRequired", "message": "need"}), obj) == [
        "spec: Required value: need"]
    # an object's value is left out (field.OmitValueType), and Duplicate has no detail
    assert _errors(_spec_rules({"rule": "self.a < 3", "reason": "FieldValueDuplicate"}), obj) == [
        "spec: Duplicate value"]
    assert _errors(_spec_rules({"rule": "self.a < 3", "fieldPath": ".a"}), obj) == [
        "spec.a: Invalid value: failed rule: self.a < 3"]
    assert _errors(_spec_rules({"rule": "self.a < 3", "fieldPath": ".m['k-1']"}), obj) == [
        "spec.m[k-1]: Invalid value: failed rule: self.a < 3"]


def test_runtime_errors_read_as_go() -> None:
    obj = _obj(spec={"b": "x"})
    assert _errors(_spec_rules({"rule": "self.a > 1"}), obj) == [
        'spec: Invalid value: "object": no such key: a evaluating rule: self.a > 1']
    assert _errors(_spec_rules({"rule": "self.b + 1 == 'x'"}), obj) == [
        "spec: Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, "
        "function or macro signature for rule: self.b + 1 == 'x'"]
    assert _errors(_spec_rules({"rule": "1 / (size(self.b) - 1) == 1", "message": "div"}), obj) == [
        'spec: Invalid value: "object": division by zero evaluating rule: div']


def test_optional_old_self_and_ratcheting() -> None:
    rule = {"rule": "!oldSelf.hasValue() || self.a >= oldSelf.value().a", "optionalOldSelf": True,
            "message": "a may not decrease"}
    schema = _spec_rules(rule)
    assert _errors(schema, _obj(spec={"a": 1})) == []  # evaluated on create with oldSelf unset
    assert _errors(schema, _obj(spec={"a": 1}), _obj(spec={"a": 2})) == ["spec: Invalid value: a may not decrease"]
    assert _errors(schema, _obj(spec={"a": 3}), _obj(spec={"a": 2})) == []
    # ratcheting: an unchanged value that fails a rule without oldSelf is only a warning
    schema = _spec_rules({"rule": "self.a < 3"})
    warnings: list[str] = []
    old = _obj(spec={"a": 5, "b": "x"})
    assert _errors(schema, _obj(spec={"a": 5, "b": "x"}), old, warnings) == []
    assert warnings == ["spec: Invalid value: failed rule: self.a < 3"]
    assert _errors(schema, _obj(spec={"a": 6, "b": "x"}), old) == ["spec: Invalid value: failed rule: self.a < 3"]


def test_crd_side_checks() -> None:
    base = Path("spec", "validation", "openAPIV3Schema")

    def errs(*rules, props=None):
        return [str(e) for e in cel.validate_schema_rules(_spec_rules(*rules, props=props), base)]

    p = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]"
    assert errs({"rule": " "}) == [f"{p}.rule: Required value: rule is not specified"]
    assert errs({"rule": "true", "reason": "Bad"}) == [
        f'{p}.reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", '
        '"FieldValueInvalid", "FieldValueRequired"']
    assert errs({"rule": "true", "fieldPath": ".nope"}) == [
        f'{p}.fieldPath: Invalid value: ".nope": must be a valid path']
    assert errs({"rule": "true", "optionalOldSelf": True}) == [
        f"{p}.optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"]
    bad = errs({"rule": "self.a + 1"})
    assert len(bad) == 1 and bad[0].startswith(f"{p}.rule: Invalid value: ") and \
        bad[0].endswith(": cel expression must evaluate to a bool")
    bad = errs({"rule": "self.q == 1"})
    assert bad[0].endswith(": compilation failed: ERROR: <input>:1:5: undefined field 'q'\n | self.q == 1\n | ....^")
    bad = errs({"rule": "x == 1"})
    assert bad[0].endswith(": compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')"
                           "\n | x == 1\n | ^")
    bad = errs({"rule": "self.a =="})
    assert "compilation failed: ERROR: <input>:1:" in bad[0] and "Syntax error" in bad[0]
    # macro variables and map keys are declared; maps and escaped names select
    assert errs({"rule": "self.m.all(k, k.size() > 0 && self.m[k] != '')"}) == []
    assert errs({"rule": "self.x__dash__y == 1"}, props={"x-y": INT}) == []
    assert errs({"rule": "self.__namespace__ == 'a'"}, props={"namespace": STR}) == []


def test_escaped_property_names_at_runtime() -> None:
    schema = _spec_rules({"rule": "self.x__dash__y + self.__if__ == 3"}, props={"x-y": INT, "if": INT})
    assert _errors(schema, _obj(spec={"x-y": 1, "if": 2})) == []
    assert _errors(schema, _obj(spec={"x-y": 1, "if": 1})) == [
        "spec: Invalid value: failed rule: self.x__dash__y + self.__if__ == 3"]


def test_escape() -> None:
    # apiserver pkg/cel/escaping_test.go
    assert cel.escape("foo-bar") == "foo__dash__bar"
    assert cel.escape("foo.bar/baz") == "foo__dot__bar__slash__baz"
    assert cel.escape("a__b") == "a__underscores__b"
    assert cel.escape("namespace") == "__namespace__"
    assert cel.escape("1a") is None and cel.escape("a:b") is None and cel.escape("") is None



def test_importing_the_rules_package_leaves_cel_python_unloaded() -> None:
    # kcodec works without the kcodec[cel] extra: celpy (and lark, re2) load on first use only
    import subprocess
    import sys

    code = ("import sys, kcodec.api.apiextensions.cel, kcodec.api.apiextensions.validation, "
            "kcodec.registry.customresource; print(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('celpy', 'lark', 're2')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_a_name_two_libraries_define_takes_the_overload_of_its_arguments() -> None:
    # cel-go: indexOf/lastIndexOf are overloads of lists.go (lists) and ext strings (strings),
    # reverse of ext strings and ext lists; the other library's errors never leak into one's
    props = {"s": STR, "l": {"type": "array", "items": INT}}
    obj = _obj(spec={"s": "abc", "l": [1, 2]})
    assert _errors(_spec_rules({"rule": "self.s.reverse() == 'cba' && self.l.reverse() == [2, 1] && "
                                        "self.s.indexOf('c', 1) == 2 && self.l.lastIndexOf(2) == 1"},
                               props=props), obj) == []
    assert _errors(_spec_rules({"rule": "self.s.indexOf('a', 9) == 0"}, props=props), obj) == [
        'spec: Invalid value: "object": index out of range: 9 evaluating rule: self.s.indexOf(\'a\', 9) == 0']
    assert _errors(_spec_rules({"rule": "self.l.indexOf(1, 0) == 0"}, props=props), obj) == [
        "spec: Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, "
        "function or macro signature for rule: self.l.indexOf(1, 0) == 0"]

# -- libraries: standard macros and functions, strings ext, and k8s.io/apiserver pkg/cel/library ---
LIBRARY = [
    # macros and standard functions
    "has(self.s) && !has(self.t)",
    "[1, 2, 3].all(x, x > 0) && [1, 2, 3].exists(x, x == 2) && [1, 2, 3].exists_one(x, x == 2)",
    "[1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].filter(x, x > 1) == [2, 3]",
    "size(self.s) == 5 && self.s.size() == 5 && self.s.matches('^h.*o$') && self.s.contains('ell')",
    "self.s.startsWith('he') && self.s.endsWith('lo')",
    # lists.go
    "[1, 2, 3].isSorted() && !([3, 1].isSorted()) && ['a', 'b'].isSorted()",
    "[1, 2, 3].sum() == 6 && [1.0, 2.5].sum() == 3.5 && [1, 5, 3].max() == 5 && [4, 2, 8].min() == 2",
    "[1, 2, 3, 2].indexOf(2) == 1 && [1, 2, 3, 2].lastIndexOf(2) == 3 && [1].indexOf(9) == -1",
    # regex.go
    "'abc 123'.find('[0-9]+') == '123' && 'abc'.find('x') == ''",
    "'123 abc 456'.findAll('[0-9]+') == ['123', '456'] && '123 abc 456'.findAll('[0-9]+', 1) == ['123']",
    # cel-go ext strings
    "'hello'.charAt(1) == 'e' && 'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3",
    "'TacoCat'.lowerAscii() == 'tacocat' && 'TacoCat'.upperAscii() == 'TACOCAT'",
    "'a,b,c'.split(',') == ['a', 'b', 'c'] && 'a,b,c'.split(',', 2) == ['a', 'b,c']",
    "'hello'.substring(1, 3) == 'el' && '  x '.trim() == 'x' && 'aaa'.replace('a', 'b', 2) == 'bba'",
    "['a', 'b'].join('-') == 'a-b' && ['a', 'b'].join() == 'ab'",
    # urls.go
    "isURL('https://example.com:80/path?k=v') && !isURL('not a url')",
    "url('https://user@example.com:8080/a%20b?k=v&k=w').getScheme() == 'https'",
    "url('https://example.com:8080/p').getHost() == 'example.com:8080' && "
    "url('https://example.com:8080/p').getHostname() == 'example.com' && "
    "url('https://example.com:8080/p').getPort() == '8080'",
    "url('https://[::1]:80/').getHostname() == '::1' && url('https://x/a%20b').getEscapedPath() == '/a%20b'",
    "url('https://x/?k=v&k=w').getQuery() == {'k': ['v', 'w']}",
    # quantity.go
    "isQuantity('1.5Gi') && !isQuantity('1.5GB') && quantity('1Gi').isGreaterThan(quantity('1G'))",
    "quantity('500m').isLessThan(quantity('1')) && quantity('1').compareTo(quantity('1000m')) == 0",
    "quantity('2k').asInteger() == 2000 && quantity('1.5').isInteger() == false && quantity('-1').sign() == -1",
    "quantity('1Mi').add(quantity('1Mi')).isGreaterThan(quantity('2M')) && quantity('5').sub(3).asInteger() == 2",
    "quantity('1.5').asApproximateFloat() == 1.5",
    # ip.go, cidr.go
    "isIP('10.0.0.1') && !isIP('10.0.0.256') && ip('10.0.0.1').family() == 4 && ip('::1').family() == 6",
    "ip('127.0.0.1').isLoopback() && ip('0.0.0.0').isUnspecified() && ip('10.1.1.1').isGlobalUnicast()",
    "ip('fe80::1').isLinkLocalUnicast() && ip('ff02::1').isLinkLocalMulticast()",
    "ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')",
    "isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0') && cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))",
    "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && !cidr('10.0.0.0/8').containsIP('11.0.0.1')",
    "cidr('10.1.2.3/8').prefixLength() == 8 && cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8') && "
    "cidr('10.1.2.3/8').ip() == ip('10.1.2.3')",
    "string(ip('::1')) == '::1' && string(cidr('10.0.0.0/8')) == '10.0.0.0/8'",
]


@pytest.mark.parametrize("rule", LIBRARY)
def test_library_functions(rule) -> None:
    schema = _spec_rules({"rule": rule}, props={"s": STR, "t": STR})
    assert _errors(schema, _obj(spec={"s": "hello"})) == []


@pytest.mark.parametrize("rule,error", [
    ("[].max() == 0", "max called on empty list"),
    ("[0][0] == [].min()", "min called on empty list"),
    # a pattern that is not a literal is compiled when the rule runs (regex.go find's error)
    ("'abc'.find(self.s + '(') == ''", "Illegal regex: error parsing regexp: missing closing ): `x(`"),
    ("'abc'.findAll('[' + self.s) == []", "Illegal regex: error parsing regexp: missing closing ]: `[x`"),
    ("quantity('1.5').asInteger() == 1", "cannot convert value to integer"),
    ("quantity('x').sign() == 1", "quantities must match the regular expression"),
    ("url('x y').getScheme() == ''", "URL parse error during conversion from string"),
    ("ip('::ffff:1.2.3.4').family() == 6", "IPv4-mapped IPv6 address is not allowed"),
])
def test_library_errors(rule, error) -> None:
    schema = _spec_rules({"rule": rule}, props={"s": STR})
    out = _errors(schema, _obj(spec={"s": "x"}))
    assert len(out) == 1 and error in out[0] and out[0].endswith(f"evaluating rule: {rule}")


def test_formats_and_types() -> None:
    props = {"d": {"type": "string", "format": "duration"}, "t": {"type": "string", "format": "date"},
             "b": {"type": "string", "format": "byte"}, "n": {"type": "number"}, "f": {"type": "boolean"}}
    rule = ("self.d == duration('1h30m') && self.t.getFullYear() == 2024 && self.b == b'hi' && "
            "self.n == 2.0 && type(self.n) == double && self.f")
    schema = _spec_rules({"rule": rule}, props=props)
    assert _errors(schema, _obj(spec={"d": "1h30m", "t": "2024-02-03", "b": "aGk=", "n": 2, "f": True})) == []
    assert _errors(schema, _obj(spec={"d": "1h30m", "t": "2024-02-03", "b": "aGk=", "n": 2, "f": False})) == [
        f"spec: Invalid value: failed rule: {rule}"]


def test_ratcheting_follows_correlation() -> None:
    # items of an atomic list have no correlated old value: they ratchet when the nearest
    # correlated ancestor (the list) is unchanged (apiserver common.CorrelatedObject)
    schema = _spec_rules({"rule": "true"}, props={
        "tags": {"type": "array", "items": {"type": "string", "x-kubernetes-validations": [{"rule": "self != 'bad'"}]}},
        "other": INT})
    old = _obj(spec={"tags": ["bad"], "other": 1})
    warnings: list[str] = []
    assert _errors(schema, _obj(spec={"tags": ["bad"], "other": 2}), old, warnings) == []
    assert warnings == ["spec.tags[0]: Invalid value: \"bad\": failed rule: self != 'bad'"]
    assert _errors(schema, _obj(spec={"tags": ["bad", "x"], "other": 1}), old) == [
        "spec.tags[0]: Invalid value: \"bad\": failed rule: self != 'bad'"]
    # a new key of a map has nothing to ratchet against
    schema = _spec_rules({"rule": "true"}, props={
        "m": {"type": "object", "additionalProperties": {"type": "integer", "x-kubernetes-validations": [
            {"rule": "self < 10"}]}}})
    assert _errors(schema, _obj(spec={"m": {"a": 50, "b": 60}}), _obj(spec={"m": {"a": 50}})) == [
        "spec.m[b]: Invalid value: 60: failed rule: self < 10"]


def test_crd_side_all_of_rules_compile_against_their_node() -> None:
    schema = {"type": "object", "properties": {"key": STR}, "allOf": [
        {"x-kubernetes-validations": [{"rule": "self.key == 'v'"}, {"rule": "self.nope == 'v'"}]}]}
    errs = [str(e) for e in cel.validate_schema_rules(schema, Path("spec", "validation", "openAPIV3Schema"))]
    assert len(errs) == 1 and errs[0].startswith(
        "spec.validation.openAPIV3Schema.allOf[0].x-kubernetes-validations[1].rule: Invalid value: ")
    assert errs[0].endswith("undefined field 'nope'\n | self.nope == 'v'\n | ....^")


def test_crd_side_ordering_checks() -> None:
    # cel-go: ordering needs one orderable type, or numbers of any kinds (CrossTypeNumericComparisons)
    base = Path("spec", "validation", "openAPIV3Schema")
    props = {"a": INT, "b": STR, "n": {"type": "number"}, "l": {"type": "array", "items": INT}}
    assert cel.validate_schema_rules(_spec_rules({"rule": "self.a < self.n && self.b >= 'x'"}, props=props),
                                      base).to_aggregate() is None
    errs = [str(e) for e in cel.validate_schema_rules(_spec_rules({"rule": "self.a > 'x'"}, props=props), base)]
    assert len(errs) == 1 and errs[0].endswith(
        "compilation failed: ERROR: <input>:1:8: found no matching overload for '_>_' applied to '(int, string)'\n"
        " | self.a > 'x'\n | .......^")
    errs = [str(e) for e in cel.validate_schema_rules(_spec_rules({"rule": "self.l < [1]"}, props=props), base)]
    assert len(errs) == 1 and "found no matching overload for '_<_' applied to '(list, list)'" in errs[0]


def test_root_level_items_and_keys_paths() -> None:
    # Go: (*field.Path)(nil).Index(0) is "[0]", .Key("k") is "[k]"
    items = {"type": "array", "items": {"type": "integer", "x-kubernetes-validations": [{"rule": "self < 3"}]}}
    assert [str(e) for e in cel.Validator(items, False).validate([1, 5])] == [
        "[1]: Invalid value: 5: failed rule: self < 3"]
    values = {"type": "object", "additionalProperties": {
        "type": "object", "properties": {"a": INT}, "x-kubernetes-validations": [{"rule": "self.a < 3"}]}}
    assert [str(e) for e in cel.Validator(values, False).validate({"k": {"a": 5}})] == [
        "[k]: Invalid value: failed rule: self.a < 3"]
    assert str(cel.valid_field_path("['x'].a", {"type": "object", "additionalProperties": {
        "type": "object", "properties": {"a": INT}}})[0]) == "[x].a"


def test_bad_data_fails_only_the_rules_that_read_it() -> None:
    # valuesunstructured.go: a value that does not fit its format is an error value
    schema = _spec_rules({"rule": "self.a < 3"}, {"rule": "self.t > timestamp('2000-01-01T00:00:00Z')"},
                         props={"a": INT, "t": {"type": "string", "format": "date-time"}})
    assert _errors(schema, _obj(spec={"a": 1, "t": "not a time"})) == [
        'spec: Invalid value: "object": Invalid date-time formatted string not a time evaluating rule: '
        "self.t > timestamp('2000-01-01T00:00:00Z')"]


def test_cost_limits_stop_expensive_rules(monkeypatch) -> None:
    # validation.go: a rule over its per-call limit stops all rules with Go's text; the object's
    # whole budget likewise (the limits are lowered here to keep the test fast)
    monkeypatch.setattr(cel.validation, "PER_CALL_LIMIT", 2000)
    monkeypatch.setattr(cel.validation, "RUNTIME_COST_BUDGET", 5000)
    rule = "self.l.all(a, self.l.all(b, a == b || a != b))"
    schema = _spec_rules({"rule": rule}, {"rule": "self.l.size() > 100"},
                         props={"l": {"type": "array", "items": INT}})
    assert _errors(schema, _obj(spec={"l": list(range(100))})) == [
        "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation "
        f"rules will be run due to call cost exceeds limit for rule: {rule}"]
    cheap = _spec_rules(*[{"rule": f"self.l.all(a, a >= {i})"} for i in range(-40, 0)],
                        props={"l": {"type": "array", "items": INT}})
    out = _errors(cheap, _obj(spec={"l": list(range(10))}))
    assert out == ["spec: Invalid value: \"object\": validation failed due to running out of cost budget, "
                   "no further validation rules will be run"]


def test_deeply_nested_unknown_data_is_an_error_not_a_crash() -> None:
    deep: object = "x"
    for _ in range(5000):
        deep = {"a": deep}
    schema = _spec_rules({"rule": "has(self.u)"}, props={"u": {"type": "object",
                                                               "x-kubernetes-preserve-unknown-fields": True}})
    out = _errors(schema, _obj(spec={"u": deep}), _obj(spec={"u": deep}))
    assert out == ['spec: Invalid value: "object": invalid data, nested too deeply evaluating rule: has(self.u)']


# apiserver pkg/cel/library/regex.go: find and findAll compile a literal pattern when the
# program is built, so its error refuses the rule ("program instantiation failed", as
# apiextensions compilation.go words env.Program's error). The texts are Go's regexp/syntax
# errors (parse.go) for each pattern.
@pytest.mark.parametrize("pattern,error", [
    (")", "unexpected ): `)`"), ("(", "missing closing ): `(`"), ("[a", "missing closing ]: `[a`"),
    ("a**", "invalid nested repetition operator: `**`"), ("*a", "missing argument to repetition operator: `*`"),
    ("\\\\", "trailing backslash at end of expression: ``"), ("x{2,1}", "invalid repeat count: `{2,1}`"),
    ("\\\\8", "invalid escape sequence: `\\8`"), ("[z-a]", "invalid character class range: `z-a`"),
    ("(?i", "invalid or unsupported Perl syntax: `(?i`"), ("a{1001}", "invalid repeat count: `{1001}`"),
    ("[[:foo:]]", "invalid character class range: `[:foo:]`"), ("(?<x", "invalid named capture: `(?<x`"),
])
@pytest.mark.parametrize("call", ["self.s.find('{}') == ''", "self.s.findAll('{}').size() == 0",
                                  "self.s.findAll('{}', 1) == []"])
def test_constant_find_patterns_are_compiled_with_the_rule(pattern, error, call) -> None:
    rule = call.replace("{}", pattern)
    compiled = cel.compile_rule({"rule": rule}, {"type": "object", "properties": {"s": STR}})
    assert compiled.error == "program instantiation failed: error parsing regexp: " + error


def test_constant_find_pattern_in_a_message_expression() -> None:
    # compilation.go: the messageExpression program's error is "messageExpression
    # instantiation failed: " and leaves the rule itself working
    compiled = cel.compile_rule({"rule": "true", "messageExpression": "self.s.find('[') + 'x'"},
                                {"type": "object", "properties": {"s": STR}})
    assert compiled.error is None
    assert compiled.message_error == ("messageExpression instantiation failed: error parsing regexp: "
                                      "missing closing ]: `[`")


def test_valid_constant_find_patterns_compile() -> None:
    compiled = cel.compile_rule({"rule": "self.s.find('[0-9]+') == '1' && self.s.findAll('''\\d''').size() == 1"},
                                {"type": "object", "properties": {"s": STR}})
    assert compiled.error is None
