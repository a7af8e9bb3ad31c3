"""FlowSchema and PriorityLevelConfiguration validation on internal objects, cases rebuilt
from k/k pkg/apis/flowcontrol/validation/validation_test.go (TestFlowSchemaValidation,
TestPriorityLevelConfigurationValidation, TestValidateNonResourceURLPath,
TestValidateLimitedPriorityLevelConfiguration...), with the mandatory objects of
k8s.io/apiserver pkg/apis/flowcontrol/bootstrap/default.go."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.flowcontrol import validation as fv
from kcodec.registry.builtin import strategies
from kcodec.validation.field import Path


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


def group(name: str) -> dict:
    return {"kind": "Group", "group": {"name": name}}


ALL_RULES = {"resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"],
                                "clusterScope": True}],
             "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}


def fs(name: str, spec: dict, **extra):
    return internal({"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
                     "metadata": {"name": name, "resourceVersion": "1"}, "spec": spec, **extra})


def plc(name: str, spec: dict, **extra):
    return internal({"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
                     "metadata": {"name": name, "resourceVersion": "1"}, "spec": spec, **extra})


def basic(**over) -> dict:
    spec = {"priorityLevelConfiguration": {"name": "system-bar"}, "matchingPrecedence": 50,
            "rules": [{"subjects": [{"kind": "User", "user": {"name": "noxu"}}],
                       "resourceRules": [{"verbs": ["get"], "apiGroups": ["apps"], "resources": ["deployments"],
                                          "namespaces": ["default"]}]}]}
    spec.update(over)
    return spec


def test_flow_schema_valid_and_invalid():
    assert msgs(fv.validate_flow_schema(fs("system-foo", basic()))) == []
    assert msgs(fv.validate_flow_schema(fs("system-foo", basic(matchingPrecedence=-1)))) == [
        "spec.matchingPrecedence: Invalid value: -1: must be a positive value"]
    assert msgs(fv.validate_flow_schema(fs("system-foo", basic(matchingPrecedence=10001)))) == [
        "spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000"]
    assert msgs(fv.validate_flow_schema(fs("system-foo", basic(matchingPrecedence=1)))) == [
        "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"]
    assert msgs(fv.validate_flow_schema(fs("system-foo", basic(priorityLevelConfiguration={"name": ""})))) == [
        "spec.priorityLevelConfiguration.name: Required value: must reference a priority level"]
    assert msgs(fv.validate_flow_schema(fs("system-foo", basic(distinguisherMethod={"type": "ByNothing"})))) == [
        'spec.distinguisherMethod.type: Unsupported value: {"Type":"ByNothing"}: supported values: '
        '"ByNamespace", "ByUser"']


def rule_errs(rule: dict) -> list[str]:
    return msgs(fv.validate_flow_schema(fs("system-foo", basic(rules=[rule]))))


def test_flow_schema_rules():
    user = [{"kind": "User", "user": {"name": "noxu"}}]
    assert rule_errs({"subjects": user}) == [
        "spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty"]
    assert rule_errs({"subjects": [], "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]}) == [
        "spec.rules[0].subjects: Required value: subjects must contain at least one value"]
    assert rule_errs({"subjects": user, "resourceRules": [{"verbs": ["get", "*"], "apiGroups": ["*", "apps"],
                                                           "resources": [], "namespaces": []}]}) == [
        'spec.rules[0].resourceRules[0].verbs: Invalid value: ["get","*"]: if \'*\' is present, must not specify '
        "other verbs",
        'spec.rules[0].resourceRules[0].apiGroups: Invalid value: ["*","apps"]: if \'*\' is present, must not '
        "specify other api groups",
        "spec.rules[0].resourceRules[0].resources: Required value: resource rules must supply at least one resource",
        "spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped "
        "must supply at least one namespace"]
    assert rule_errs({"subjects": user, "resourceRules": [{"verbs": ["feed"], "apiGroups": ["apps"],
                                                           "resources": ["pods"], "namespaces": ["Foo"]}]}) == [
        'spec.rules[0].resourceRules[0].verbs: Unsupported value: ["feed"]: supported values: "create", "delete", '
        '"deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
        'spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: "Foo": each member of this list must be \'*\' '
        "or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
        "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
        "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
    assert rule_errs({"subjects": user, "nonResourceRules": [{"verbs": ["get"],
                                                              "nonResourceURLs": ["/healthz/*", "/a b", "x"]}]}) == [
        'spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a b": must not contain white-space',
        'spec.rules[0].nonResourceRules[0].nonResourceURLs[2]: Invalid value: "x": must start with slash']


def test_flow_schema_subjects():
    nr = {"nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]}
    assert rule_errs({"subjects": [{"kind": "ServiceAccount", "serviceAccount": {"name": "*", "namespace": ""},
                                    "user": {"name": "x"}}], **nr}) == [
        "spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account",
        "spec.rules[0].subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'"]
    assert rule_errs({"subjects": [{"kind": "Group"}], **nr}) == [
        "spec.rules[0].subjects[0].group: Required value: group is required when subject kind is 'Group'"]
    assert rule_errs({"subjects": [{"kind": "User", "user": {"name": ""}, "group": {"name": "g"}}], **nr}) == [
        "spec.rules[0].subjects[0].user.name: Required value",
        "spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'"]
    assert rule_errs({"subjects": [{"kind": "Robot"}], **nr}) == [
        'spec.rules[0].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", '
        '"User"']


def test_non_resource_url_path():
    p = Path("url")
    for ok in ("/", "/healthz", "/healthz/*", "/apis/*"):
        assert fv.validate_non_resource_url_path(ok, p) is None
    for bad, why in (("", "must not be empty"), ("//", "must not contain double slash"),
                     ("/healthz*", "wildcard can only do suffix matching"),
                     ("/*/x/*", "wildcard can only do suffix matching")):
        assert str(fv.validate_non_resource_url_path(bad, p)).endswith(why)


def test_mandatory_flow_schemas():
    exempt = fs("exempt", {"priorityLevelConfiguration": {"name": "exempt"}, "matchingPrecedence": 1,
                           "rules": [{"subjects": [group("system:masters")], **ALL_RULES}]})
    assert msgs(fv.validate_flow_schema(exempt)) == []
    catch_all = fs("catch-all", {"priorityLevelConfiguration": {"name": "catch-all"}, "matchingPrecedence": 10000,
                                 "distinguisherMethod": {"type": "ByUser"},
                                 "rules": [{"subjects": [group("system:unauthenticated"), group("system:authenticated")],
                                            **ALL_RULES}]})
    assert msgs(fv.validate_flow_schema(catch_all)) == []
    changed = catch_all.deep_copy()
    changed.spec.matching_precedence = 9000
    errs = msgs(fv.validate_flow_schema(changed))
    assert len(errs) == 1 and errs[0].startswith("spec: Invalid value: ")
    assert errs[0].endswith("spec of 'catch-all' must equal the fixed value")


def test_priority_levels():
    queue = {"type": "Queue", "queuing": {"queues": 64, "handSize": 8, "queueLengthLimit": 50}}
    assert msgs(fv.validate_priority_level_configuration(plc("system-foo", {
        "type": "Limited", "limited": {"nominalConcurrencyShares": 100, "limitResponse": queue}}))) == []
    # defaulting gives 30 shares; zero is allowed since 1.30, negative is not
    assert msgs(fv.validate_priority_level_configuration(plc("system-foo", {
        "type": "Limited", "limited": {"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}}))) == []
    assert msgs(fv.validate_priority_level_configuration(plc("system-foo", {
        "type": "Limited", "limited": {"nominalConcurrencyShares": -1, "lendablePercent": 101,
                                       "borrowingLimitPercent": -1, "limitResponse": {"type": "Reject"}}}))) == [
        "spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
        "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
        "spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer"]
    assert msgs(fv.validate_priority_level_configuration(plc("system-foo", {"type": "Exempt"}))) == [
        "spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'"]
    assert msgs(fv.validate_priority_level_configuration(plc("system-foo", {"type": "Limited"}))) == [
        "spec.limited: Required value: must not be empty when type is Limited"]
    assert msgs(fv.validate_priority_level_configuration(plc("system-foo", {"type": "Sometimes"}))) == [
        'spec.type: Unsupported value: "Sometimes": supported values: "Exempt", "Limited"']
    assert msgs(fv.validate_priority_level_configuration(plc("system-foo", {
        "type": "Limited", "limited": {"limitResponse": {"type": "Reject", "queuing": {
            "queues": 1, "handSize": 1, "queueLengthLimit": 1}}}}))) == [
        "spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited"]


def queuing_errs(queues: int, hand: int, length: int = 100) -> list[str]:
    return msgs(fv.validate_priority_level_configuration(plc("system-foo", {
        "type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {
            "queues": queues, "handSize": hand, "queueLengthLimit": length}}}})))


def test_queuing():
    assert queuing_errs(512, 4) == []
    assert queuing_errs(7, 8) == ["spec.limited.limitResponse.queuing.handSize: Invalid value: 8: "
                                  "should not be greater than queues (7)"]
    assert queuing_errs(10 ** 7 + 1, 1) == ["spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: "
                                            "must not be greater than 10000000"]
    assert queuing_errs(128, 10) == [
        "spec.limited.limitResponse.queuing.handSize: Invalid value: 10: required entropy bits of deckSize 128 and "
        "handSize 10 should not be greater than 60"]
    # zeros are defaulted (64 queues, hand of 8, 50 long); negatives are not
    assert queuing_errs(0, 0, 0) == []
    assert queuing_errs(-1, -1, -1) == [
        "spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive",
        "spec.limited.limitResponse.queuing.queues: Invalid value: -1: must be positive",
        "spec.limited.limitResponse.queuing.handSize: Invalid value: -1: must be positive"]


def test_mandatory_priority_levels():
    assert msgs(fv.validate_priority_level_configuration(plc("catch-all", {
        "type": "Limited", "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"}}}))) == []
    errs = msgs(fv.validate_priority_level_configuration(plc("catch-all", {
        "type": "Limited", "limited": {"nominalConcurrencyShares": 10, "limitResponse": {"type": "Reject"}}})))
    assert len(errs) == 1 and errs[0].endswith("spec of 'catch-all' must equal the fixed value")
    # the exempt level may change its exempt section only
    assert msgs(fv.validate_priority_level_configuration(plc("exempt", {
        "type": "Exempt", "exempt": {"nominalConcurrencyShares": 10, "lendablePercent": 50}}))) == []
    assert msgs(fv.validate_priority_level_configuration(plc("exempt", {
        "type": "Exempt", "exempt": {"lendablePercent": 150}}))) == [
        "spec.exempt.lendablePercent: Invalid value: 150: must be between 0 and 100, inclusive"]


def test_status_updates_and_wiring():
    old = fs("system-foo", basic())
    new = fs("system-foo", basic(), status={"conditions": [{"type": "Dangling"}, {"type": "Dangling"}, {"type": ""}]})
    assert msgs(fv.validate_flow_schema_status_update(new, old)) == [
        'status.conditions[1].type: Duplicate value: "Dangling"',
        "status.conditions[2].type: Required value: must not be empty"]
    group_name = "flowcontrol.apiserver.k8s.io"
    assert strategies.validation_function(group_name, "FlowSchema") is fv.validate_flow_schema
    assert strategies.validation_function(group_name, "PriorityLevelConfiguration", "_status_update") is (
        fv.validate_priority_level_configuration_status_update)
