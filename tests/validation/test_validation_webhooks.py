"""Admission webhook configurations: k/k pkg/apis/admissionregistration/validation/validation.go
(ValidateValidatingWebhookConfiguration, ValidateMutatingWebhookConfiguration and their
updates, validateRuleWithOperations, validateResources, validateAdmissionReviewVersions,
validateMatchConditions) and apiserver pkg/util/webhook/validation.go (ValidateWebhookURL,
ValidateWebhookService); cases after validation_test.go TestValidateValidatingWebhookConfiguration."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.admissionregistration import validation as av


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


def hook(**extra):
    h = {"name": "webhook.k8s.io", "sideEffects": "None", "admissionReviewVersions": ["v1"],
         "clientConfig": {"service": {"namespace": "ns", "name": "n", "path": "/validate"}},
         "rules": [{"operations": ["CREATE"], "apiGroups": ["apps"], "apiVersions": ["v1"],
                    "resources": ["deployments"]}]}
    h.update(extra)
    return h


def vwc(*hooks, kind="ValidatingWebhookConfiguration"):
    return internal({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                     "metadata": {"name": "config", "resourceVersion": "1"}, "webhooks": list(hooks)})


def test_valid():
    assert msgs(av.validate_validating_webhook_configuration(vwc(hook()))) == []
    assert msgs(av.validate_mutating_webhook_configuration(vwc(hook(reinvocationPolicy="IfNeeded"),
                                                               kind="MutatingWebhookConfiguration"))) == []
    assert msgs(av.validate_validating_webhook_configuration(vwc(hook(clientConfig={
        "url": "https://example.com:8443/validate"})))) == []


def test_invalid_hooks():
    assert msgs(av.validate_validating_webhook_configuration(vwc(hook(name="k8s.io"), hook(name="k8s.io")))) == [
        'webhooks[0].name: Invalid value: "k8s.io": should be a domain with at least three segments separated by dots',
        'webhooks[1].name: Invalid value: "k8s.io": should be a domain with at least three segments separated by dots',
        'webhooks[1].name: Duplicate value: "k8s.io"']
    assert msgs(av.validate_validating_webhook_configuration(vwc(hook(sideEffects="Some", timeoutSeconds=31,
                                                                      failurePolicy="Maybe")))) == [
        'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
        'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
        "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"]
    assert msgs(av.validate_validating_webhook_configuration(vwc(hook(admissionReviewVersions=["v2", "v2"])))) == [
        'webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version',
        'webhooks[0].admissionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1']
    rules = [{"operations": ["*", "CREATE"], "apiGroups": [], "apiVersions": ["v1", ""],
              "resources": ["a/*", "a/x", "*/*"], "scope": "Global"}]
    assert msgs(av.validate_validating_webhook_configuration(vwc(hook(rules=rules)))) == [
        'webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if \'*\' is present, must not specify other '
        "operations",
        "webhooks[0].rules[0].apiGroups: Required value",
        "webhooks[0].rules[0].apiVersions[1]: Required value",
        "webhooks[0].rules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x",
        'webhooks[0].rules[0].resources: Invalid value: ["a/*","a/x","*/*"]: if \'*/*\' is present, must not specify '
        "other resources",
        'webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"']


def test_client_config():
    assert msgs(av.validate_validating_webhook_configuration(vwc(hook(clientConfig={})))) == [
        "webhooks[0].clientConfig: Required value: exactly one of url or service is required"]
    assert msgs(av.validate_validating_webhook_configuration(vwc(hook(clientConfig={
        "url": "http://user@example.com/path?x=1#frag"})))) == [
        'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired '
        "format: https://host[/path]",
        'webhooks[0].clientConfig.url: Invalid value: "user": user information is not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "frag": fragments are not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL']
    assert msgs(av.validate_validating_webhook_configuration(vwc(hook(clientConfig={
        "service": {"namespace": "", "name": "n", "path": "foo//Bar", "port": 0}})))) == [
        "webhooks[0].clientConfig.service.namespace: Required value",
        "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, "
        "inclusive",
        "webhooks[0].clientConfig.service.path: Invalid value: \"foo//Bar\": must start with a '/'",
        'webhooks[0].clientConfig.service.path: Invalid value: "foo//Bar": segment[1] may not be empty',
        'webhooks[0].clientConfig.service.path: Invalid value: "foo//Bar": segment[2]: a lowercase RFC 1123 '
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]


def test_match_conditions_and_update():
    conds = [{"name": "a", "expression": " "}, {"name": "a", "expression": "true"}, {"name": "", "expression": "x"}]
    assert msgs(av.validate_validating_webhook_configuration(vwc(hook(matchConditions=conds)))) == [
        "webhooks[0].matchConditions[0].expression: Required value",
        'webhooks[0].matchConditions[1].name: Duplicate value: "a"',
        "webhooks[0].matchConditions[2].name: Required value"]
    # An old object with side effects "Some" keeps them allowed on update.
    old = vwc(hook(sideEffects="Some"))
    assert msgs(av.validate_validating_webhook_configuration_update(vwc(hook(sideEffects="Some")), old)) == []
