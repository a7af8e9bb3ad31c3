"""kcodec.api.rbac.validation and kcodec.api.policy.validation against k/k
pkg/apis/rbac/validation/validation.go and pkg/apis/policy/validation/validation.go."""
from __future__ import annotations

import json
from datetime import datetime, timezone

from kcodec import legacyscheme
from kcodec.api.meta import v1 as metav1
from kcodec.api.policy import validation as pv
from kcodec.api.rbac import validation as rv


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


def test_role_rules():
    role = internal({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                     "metadata": {"name": "a/b", "namespace": "default"},
                     "rules": [{"verbs": [], "nonResourceURLs": ["/healthz"], "resources": ["pods"]},
                               {"verbs": ["get"]}]})
    assert msgs(rv.validate_role(role)) == [
        "metadata.name: Invalid value: \"a/b\": may not contain '/'",
        "rules[0].verbs: Required value: verbs must contain at least one value",
        'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
        'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and '
        "non-resource URLs",
        "rules[1].apiGroups: Required value: resource rules must supply at least one api group",
        "rules[1].resources: Required value: resource rules must supply at least one resource",
    ]


def test_cluster_role_binding():
    crb = internal({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                    "metadata": {"name": "admins"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "x"},
                    "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "Robot", "name": "r"}]})
    assert msgs(rv.validate_cluster_role_binding(crb)) == [
        'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
        "subjects[0].namespace: Required value",
        'subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ]
    old = crb.deep_copy()
    old.metadata.resource_version = crb.metadata.resource_version = "1"
    crb.role_ref.name = "y"
    assert msgs(rv.validate_cluster_role_binding_update(crb, old))[-1] == (
        'roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"y"}: '
        "cannot change roleRef")


def test_pdb():
    pdb = internal({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                    "metadata": {"name": "p", "namespace": "default"},
                    "spec": {"minAvailable": "120%", "maxUnavailable": 1, "unhealthyPodEvictionPolicy": "Never",
                             "selector": {"matchLabels": {"app": "-x"}}}})
    got = msgs(pv.validate_pod_disruption_budget(pdb))
    assert got[0].startswith("spec: Invalid value: {") and got[0].endswith(
        ": minAvailable and maxUnavailable cannot be both set")
    assert 'spec.minAvailable: Invalid value: "120%": must not be greater than 100%' in got
    assert 'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", ' \
           '"IfHealthyBudget"' in got
    assert any(m.startswith('spec.selector.matchLabels: Invalid value: "-x": a valid label must be') for m in got)


def test_pdb_status_conditions():
    pdb = internal({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                    "metadata": {"name": "p", "namespace": "default"}, "spec": {"minAvailable": 1}})
    old = pdb.deep_copy()
    t = metav1.Time(datetime(2026, 1, 1, tzinfo=timezone.utc))
    pdb.status.conditions = [metav1.Condition(type="DisruptionAllowed", status="Maybe", reason="1bad",
                                              last_transition_time=t),
                             metav1.Condition(type="DisruptionAllowed", status="True", reason="Ok",
                                              last_transition_time=t)]
    pdb.status.disruptions_allowed = -1
    got = msgs(pv.validate_pod_disruption_budget_status_update(pdb, old))
    assert got[0] == 'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", ' \
                     '"Unknown"'
    assert got[1].startswith('status.conditions[0].reason: Invalid value: "1bad": a condition reason must start with')
    assert got[2] == 'status.conditions[1]: Duplicate value: "DisruptionAllowed"'
    assert got[3] == "status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0"
    assert msgs(pv.validate_pod_disruption_budget_status_update(pdb, old, api_version="policy/v1beta1")) == got[:3]
