"""ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding validation on internal
objects, cases rebuilt from k/k pkg/apis/admissionregistration/validation/validation_test.go
(TestValidateValidatingAdmissionPolicy, TestValidateValidatingAdmissionPolicyBinding,
TestValidateValidatingAdmissionPolicyUpdate, TestValidateValidatingAdmissionPolicyStatus);
the CEL expressions are not compiled (kcodec has no CEL), only their presence is checked."""
from __future__ import annotations

import copy
import json

import pytest

from kcodec import legacyscheme
from kcodec.api.admissionregistration import validation as av
from kcodec.registry.builtin import strategies


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


RULES = [{"operations": ["CREATE"], "apiGroups": ["a"], "apiVersions": ["a"], "resources": ["a"]}]
SPEC = {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": RULES},
        "validations": [{"expression": "object.x < 100"}]}


def policy(spec: dict, name: str = "config"):
    return internal({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                     "metadata": {"name": name, "resourceVersion": "1"}, "spec": spec})


def errs_of(**over) -> list[str]:
    spec = copy.deepcopy(SPEC)
    spec.update(over)
    for k in [k for k, v in spec.items() if v is None]:
        del spec[k]
    return msgs(av.validate_validating_admission_policy(policy(spec)))


def test_policy_required_fields():
    assert errs_of() == []
    assert errs_of(validations=None) == [
        "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
        "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item"]
    assert errs_of(matchConstraints=None) == ["spec.matchConstraints: Required value"]
    assert errs_of(matchConstraints={}) == ["spec.matchConstraints.resourceRules: Required value"]
    assert errs_of(failurePolicy="Other") == [
        'spec.failurePolicy: Unsupported value: "Other": supported values: "Fail", "Ignore"']
    assert errs_of(validations=[{"expression": " "}]) == [
        "spec.validations[0].expression: Required value: expression is not specified"]
    assert errs_of(validations=[{"expression": "true", "message": "a\nb", "reason": "Teapot"}]) == [
        'spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks',
        'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", '
        '"RequestEntityTooLarge", "Unauthorized"']
    assert errs_of(validations=[{"expression": "true", "message": "   ", "messageExpression": " "}]) == [
        'spec.validations[0].messageExpression: Invalid value: " ": must be non-empty if specified',
        'spec.validations[0].message: Invalid value: "   ": message must be non-empty if specified']


def test_param_kind_variables_match_conditions():
    assert errs_of(paramKind={"apiVersion": "example.com/v1", "kind": "ReplicaLimit"}) == []
    assert errs_of(paramKind={"apiVersion": "a/b/c", "kind": "Replica_Limit"}) == [
        'spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        'spec.paramKind.kind: Invalid value: "Replica_Limit": may have mixed case, but should otherwise match: '
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]
    assert errs_of(paramKind={"apiVersion": "example.com/", "kind": ""}) == [
        'spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified',
        "spec.paramKind.kind: Required value"]
    assert errs_of(variables=[{"name": "in", "expression": "1"}, {"name": "", "expression": ""}]) == [
        'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
        "spec.variables[1].name: Required value: name is not specified",
        "spec.variables[1].expression: Required value: expression is not specified"]
    assert errs_of(matchConditions=[{"name": "a", "expression": "true"}, {"name": "a", "expression": ""}]) == [
        "spec.matchConditions[1].expression: Required value",
        'spec.matchConditions[1].name: Duplicate value: "a"']


def test_audit_annotations():
    assert errs_of(validations=None, auditAnnotations=[{"key": "good", "valueExpression": "'x'"}]) == []
    assert errs_of(validations=None, auditAnnotations=[{"key": "a", "valueExpression": "'x'"},
                                                       {"key": "a", "valueExpression": " "}]) == [
        "spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified",
        'spec.auditAnnotations[1].key: Duplicate value: "a"']
    long = "'" + "x" * 5200 + "'"
    assert errs_of(validations=None, auditAnnotations=[{"key": "a", "valueExpression": long}]) == [
        "spec.auditAnnotations[0].valueExpression: Required value: must not exceed 5120 bytes in length"]


def test_match_resources():
    mc = {"resourceRules": [{"resourceNames": ["a", "a", "b/c"], **RULES[0]}], "matchPolicy": "Sometimes",
          "namespaceSelector": {"matchLabels": {"a": "-"}}}
    errs = errs_of(matchConstraints=mc)
    assert errs[0] == 'spec.matchConstraints.matchPolicy: Unsupported value: "Sometimes": supported values: ' \
                      '"Equivalent", "Exact"'
    assert errs[1].startswith('spec.matchConstraints.namespaceSelector.matchLabels: Invalid value: "-": ')
    assert errs[2:] == [
        'spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "a"',
        "spec.matchConstraints.resourceRules[0].resourceNames[2]: Invalid value: \"b/c\": may not contain '/'"]


def test_policy_update_and_status():
    bad_mc = [{"name": "", "expression": "true"}]
    old = policy({**SPEC, "matchConditions": bad_mc})
    assert msgs(av.validate_validating_admission_policy_update(policy({**SPEC, "matchConditions": bad_mc}), old)) == []
    assert msgs(av.validate_validating_admission_policy_update(
        policy({**SPEC, "matchConditions": bad_mc + [{"name": "b", "expression": "true"}]}), old)) == [
        "spec.matchConditions[0].name: Required value"]
    st = internal({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                   "metadata": {"name": "config", "resourceVersion": "1"}, "spec": SPEC,
                   "status": {"typeChecking": {"expressionWarnings": [{"fieldRef": "spec.validations[0]",
                                                                       "warning": ""}]}}})
    assert msgs(av.validate_validating_admission_policy_status_update(st, st)) == [
        "status.typeChecking.expressionWarnings[0].warning: Required value"]


def binding(spec: dict):
    return internal({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                     "metadata": {"name": "config", "resourceVersion": "1"}, "spec": spec})


def test_bindings():
    good = {"policyName": "xyzlimit-scale.example.com", "validationActions": ["Deny"],
            "paramRef": {"name": "xyzlimit-scale-setting.example.com", "parameterNotFoundAction": "Deny"}}
    assert msgs(av.validate_validating_admission_policy_binding(binding(good))) == []
    assert msgs(av.validate_validating_admission_policy_binding(binding({"policyName": ""}))) == [
        "spec.policyName: Required value",
        "spec.validationActions: Required value: at least one validation action is required"]
    assert msgs(av.validate_validating_admission_policy_binding(binding({
        **good, "validationActions": ["Deny", "Warn", "Deny", "Nope"]}))) == [
        'spec.validationActions[2]: Duplicate value: "Deny"',
        'spec.validationActions[3]: Unsupported value: "Nope": supported values: "Audit", "Deny", "Warn"',
        'spec.validationActions: Invalid value: ["Deny","Warn","Deny","Nope"]: must not contain both Deny and Warn '
        "(repeating the same validation failure information in the API response and headers serves no purpose)"]
    assert msgs(av.validate_validating_admission_policy_binding(binding({
        **good, "paramRef": {"name": "a", "selector": {}, "parameterNotFoundAction": "Maybe"}}))) == [
        "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
        "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
        'spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"']
    # (v1 defaulting sets parameterNotFoundAction to Deny)
    assert msgs(av.validate_validating_admission_policy_binding(binding({**good, "paramRef": {}}))) == [
        "spec.paramRef: Required value: one of name or selector must be specified"]


def test_strategies_find_the_validators():
    g = "admissionregistration.k8s.io"
    assert strategies.validation_function(g, "ValidatingAdmissionPolicy", "_status_update") is (
        av.validate_validating_admission_policy_status_update)
    assert strategies.validation_function(g, "ValidatingAdmissionPolicyBinding", "_update") is (
        av.validate_validating_admission_policy_binding_update)


def mpolicy(spec: dict):
    return internal({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
                     "metadata": {"name": "sidecar", "resourceVersion": "1"}, "spec": spec})


MSPEC = {"failurePolicy": "Fail", "reinvocationPolicy": "IfNeeded",
         "matchConstraints": {"resourceRules": RULES},
         "mutations": [{"patchType": "ApplyConfiguration",
                        "applyConfiguration": {"expression": "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"}}]}


def merrs(**over) -> list[str]:
    spec = copy.deepcopy(MSPEC)
    spec.update(over)
    for k in [k for k, v in spec.items() if v is None]:
        del spec[k]
    return msgs(av.validate_mutating_admission_policy(mpolicy(spec)))


def test_mutating_policy():
    """validation_test.go TestValidateMutatingAdmissionPolicy: the mutations union, the
    reinvocation policy, DELETE refused in resource rules."""
    assert merrs() == []
    assert merrs(mutations=None, reinvocationPolicy=None) == [
        "spec.mutations: Required value: mutations must contain at least one item",
        "spec.reinvocationPolicy: Required value"]
    assert merrs(reinvocationPolicy="Always") == [
        'spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']
    assert merrs(mutations=[{"patchType": "JSONPatch", "applyConfiguration": {"expression": "Object{}"}}]) == [
        "spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch",
        'spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when '
        "patchType is JSONPatch"]
    assert merrs(mutations=[{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": " "},
                             "jsonPatch": {"expression": "[]"}}, {"patchType": "Merge"}]) == [
        "spec.mutations[0].applyConfiguration.expression: Required value",
        'spec.mutations[0].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is '
        "ApplyConfiguration",
        'spec.mutations[1].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", '
        '"JSONPatch"']
    delete_rules = [dict(RULES[0], operations=["CREATE", "DELETE"])]
    assert merrs(matchConstraints={"resourceRules": delete_rules}) == [
        'spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", '
        '"CONNECT", "CREATE", "UPDATE"']


def test_mutating_policy_binding():
    def mbinding(spec: dict):
        return internal({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
                         "metadata": {"name": "b", "resourceVersion": "1"}, "spec": spec})

    assert msgs(av.validate_mutating_admission_policy_binding(mbinding({"policyName": "sidecar"}))) == []
    assert msgs(av.validate_mutating_admission_policy_binding(mbinding({"policyName": "Bad_Name"}))) == [
        'spec.policyName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
        "[a-z0-9])?)*')"]
    assert strategies.validation_function("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding",
                                          "_update") is av.validate_mutating_admission_policy_binding_update


def test_cel_syntax_errors():
    """Expressions that do not parse are refused as Go's compile refuses them
    ("compilation failed: ERROR: <input>:line:col: ..."); the position is celpy's, and
    cel-go's optional syntax parses (kcodec.api._celsyntax)."""
    pytest.importorskip("celpy")
    errs = errs_of(validations=[{"expression": "object.spec.replicas <", "messageExpression": "'a' +"}],
                   variables=[{"name": "v", "expression": "1 +* 2"}])
    assert [e.split(": compilation failed: ")[0] for e in errs] == [
        'spec.variables[0].expression: Invalid value: "1 +* 2"',
        'spec.validations[0].expression: Invalid value: "object.spec.replicas <"',
        "spec.validations[0].messageExpression: Invalid value: \"'a' +\""]
    assert all("compilation failed: ERROR: <input>:1:" in e for e in errs)
    assert errs_of(validations=[{"expression": "object.?spec.orValue(1) == 1"}]) == []
    assert errs_of(validations=[{"expression": "[?object.?spec, ?params[?0]] == {?'a': object.?b}"}]) == []
    assert errs_of(validations=[{"expression": "object.?spec.?"}])[0].endswith(
        "compilation failed: ERROR: <input>:1:14: Syntax error: unexpected input\n | object.?spec.?\n | .............^")
    assert errs_of(validations=[{"expression": "object[?].x == 1"}])[0].endswith(
        "compilation failed: ERROR: <input>:1:9: Syntax error: unexpected input\n | object[?].x == 1\n | ........^")
    assert merrs(mutations=[{"patchType": "JSONPatch", "jsonPatch": {"expression": "[JSONPatch{op: 'add',"}}])[0] \
        .startswith("spec.mutations[0].jsonPatch.expression: Invalid value: ")
