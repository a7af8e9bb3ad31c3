"""PriorityClass (k/k pkg/apis/scheduling/validation/validation.go, scheduling/v1
helpers.go IsKnownSystemPriorityClass), Lease and LeaseCandidate
(pkg/apis/coordination/validation/validation.go), RuntimeClass
(pkg/apis/node/validation/validation.go) on internal objects."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.coordination import validation as coordv
from kcodec.api.node import validation as nodev
from kcodec.api.scheduling import validation as schedv


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


def pc(name: str, value: int, **extra):
    return internal({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                     "metadata": {"name": name, "resourceVersion": "1"}, "value": value, **extra})


def test_priority_class():
    assert msgs(schedv.validate_priority_class(pc("tier1", 100))) == []
    assert msgs(schedv.validate_priority_class(pc("system-node-critical", 2000001000))) == []
    assert msgs(schedv.validate_priority_class(pc("system-cluster-critical", 2000000000))) == []
    assert msgs(schedv.validate_priority_class(pc("tier1", 1000000001))) == [
        "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
    assert msgs(schedv.validate_priority_class(pc("system-foo", 100))) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: system-foo is not a known system priority class"]
    assert msgs(schedv.validate_priority_class(pc("system-node-critical", 5))) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: value of system-node-critical PriorityClass must be 2000001000"]
    assert msgs(schedv.validate_priority_class(pc("system-cluster-critical", 2000000000, globalDefault=True))) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: globalDefault of system-cluster-critical PriorityClass must be false"]
    assert msgs(schedv.validate_priority_class(pc("tier1", 1, preemptionPolicy="Sometimes"))) == [
        'preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']
    assert msgs(schedv.validate_priority_class(pc("Tier1", 1, metadata={"name": "Tier1", "namespace": "x"}))) == [
        'metadata.name: Invalid value: "Tier1": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "metadata.namespace: Forbidden: not allowed on this type"]
    assert msgs(schedv.validate_priority_class_update(pc("tier1", 2, preemptionPolicy="Never"), pc("tier1", 1))) == [
        "value: Forbidden: may not be changed in an update.",
        'preemptionPolicy: Invalid value: "Never": field is immutable']


def lease(spec: dict):
    return internal({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                     "metadata": {"name": "kube-scheduler", "namespace": "kube-system", "resourceVersion": "1"},
                     "spec": spec})


def test_lease():
    good = lease({"holderIdentity": "a_b", "leaseDurationSeconds": 15, "leaseTransitions": 0,
                  "renewTime": "2024-01-01T00:00:00.000000Z"})
    assert msgs(coordv.validate_lease(good)) == []
    assert msgs(coordv.validate_lease_update(good, good)) == []
    assert msgs(coordv.validate_lease(lease({"leaseDurationSeconds": 0, "leaseTransitions": -1,
                                             "preferredHolder": "x"}))) == [
        "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
        "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
        "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined",
    ]
    # ValidateCoordinatedLeaseStrategy adds "strategy" to the path it is given.
    assert msgs(coordv.validate_lease(lease({"strategy": "Newest"}))) == [
        'spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"']
    assert msgs(coordv.validate_lease(lease({"strategy": "example.com/custom"}))) == []


def lease_candidate(spec: dict):
    return internal({"apiVersion": "coordination.k8s.io/v1beta1", "kind": "LeaseCandidate",
                     "metadata": {"name": "kube-controller-manager-a", "namespace": "kube-system",
                                  "resourceVersion": "1"}, "spec": spec})


def test_lease_candidate():
    good = lease_candidate({"leaseName": "l", "binaryVersion": "1.36.0", "emulationVersion": "1.35.0",
                            "strategy": "OldestEmulationVersion"})
    assert msgs(coordv.validate_lease_candidate(good)) == []
    assert msgs(coordv.validate_lease_candidate(lease_candidate({"binaryVersion": "1.35.0-rc.1",
                                                                 "emulationVersion": "1.35.0",
                                                                 "strategy": "OldestEmulationVersion"}))) == [
        "spec.leaseName: Required value",
        'spec.binaryVersion: Invalid value: "1.35.0-rc.1": must be greater than or equal to `emulationVersion`']
    assert msgs(coordv.validate_lease_candidate(lease_candidate({"leaseName": "l", "binaryVersion": "v1",
                                                                 "strategy": "OldestEmulationVersion"}))) == [
        'spec.binaryVersion: Invalid value: "v1": must be a valid semantic version',
        "spec.emulationVersion: Required value: must be specified when `strategy` is 'OldestEmulationVersion'"]
    other = lease_candidate({"leaseName": "m", "binaryVersion": "1.36.0", "emulationVersion": "1.35.0",
                             "strategy": "OldestEmulationVersion"})
    assert msgs(coordv.validate_lease_candidate_update(other, good)) == [
        'spec.leaseName: Invalid value: "m": field is immutable']


def rc(**extra):
    return internal({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
                     "metadata": {"name": "gvisor", "resourceVersion": "1"}, **extra})


def test_runtime_class():
    good = rc(handler="runsc", overhead={"podFixed": {"cpu": "250m", "memory": "120Mi"}},
              scheduling={"nodeSelector": {"runtime": "gvisor"},
                          "tolerations": [{"key": "runtime", "operator": "Equal", "value": "gvisor",
                                           "effect": "NoSchedule"}]})
    assert msgs(nodev.validate_runtime_class(good)) == []
    assert msgs(nodev.validate_runtime_class(rc(handler="run_sc", overhead={"podFixed": {"cpu": "-1"}}))) == [
        'handler: Invalid value: "run_sc": a lowercase RFC 1123 label must consist of lower case alphanumeric '
        "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
        "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0']
    assert msgs(nodev.validate_runtime_class_update(rc(handler="runc"), rc(handler="runsc"))) == [
        'handler: Invalid value: "runc": field is immutable']
