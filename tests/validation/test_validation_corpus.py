"""Real manifests validate as kube-apiserver validates them: every document of
../shared/corpus of a kind with per-kind validation is decoded, defaulted and converted to
its internal version (kcodec.legacyscheme, as the apiserver's decoder does), given what the
registry fills in before validating (a namespace, a generated name, a Service's cluster IPs
and health-check node port: apiserver rest.BeforeCreate and k/k's service REST allocator),
and must give no field errors, except the documents Go rejects too (listed with the rule).
Go: k/k pkg/apis/<group>/validation/validation.go.
"""
from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
import yaml

from kcodec import legacyscheme

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "files"

#: kind -> (API package, snake-case kind) of kcodec.api.<package>.validation.validate_<kind>.
KINDS = {
    "Pod": ("core", "pod"), "Service": ("core", "service"), "ConfigMap": ("core", "config_map"),
    "Secret": ("core", "secret"), "Namespace": ("core", "namespace"), "ServiceAccount": ("core", "service_account"),
    "PersistentVolumeClaim": ("core", "persistent_volume_claim"),
    "ReplicationController": ("core", "replication_controller"), "PodTemplate": ("core", "pod_template"),
    "Deployment": ("apps", "deployment"), "ReplicaSet": ("apps", "replica_set"),
    "StatefulSet": ("apps", "stateful_set"), "DaemonSet": ("apps", "daemon_set"),
    "Job": ("batch", "job"), "CronJob": ("batch", "cron_job"), "Ingress": ("networking", "ingress"),
    "Role": ("rbac", "role"), "ClusterRole": ("rbac", "cluster_role"), "RoleBinding": ("rbac", "role_binding"),
    "ClusterRoleBinding": ("rbac", "cluster_role_binding"),
    "PodDisruptionBudget": ("policy", "pod_disruption_budget"),
    "HorizontalPodAutoscaler": ("autoscaling", "horizontal_pod_autoscaler"),
}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding"}

#: Documents Go rejects as well: (file, kind) -> the first error kube-apiserver reports.
EXPECTED_INVALID = {
    # A template without labels: the defaulted selector is empty (ValidateNonEmptySelector).
    ("kubernetes__examples/_archived__sysdig-cloud__sysdig-rc.yaml", "ReplicationController"):
        "spec.selector: Required value",
    # Protocols are case-sensitive (supportedPortProtocols).
    ("kubernetes__examples/_archived__volumes__aws_ebs__aws-ebs-web.yaml", "Pod"):
        'spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"',
    ("kubernetes__examples/_archived__volumes__cinder__cinder-web.yaml", "Pod"):
        'spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"',
}
#: kustomize bases and patches: no selector (kustomize adds it with commonLabels); apps/v1
#: and v1beta2 do not default one (ValidateDeploymentSpec: Required, then the nil
#: selector matches nothing, so the template's labels do not match it either).
for _rel in (
    "kubernetes-csi__csi-driver-host-path@f8270b3a/vendor__k8s.io__kubernetes__test__fixtures__pkg__kubectl__cmd__"
    "convert__appsdeployment.yaml",
    "kubernetes-sigs__metrics-server/manifests__base__deployment.yaml",
    "kubernetes-sigs__metrics-server/manifests__components__autoscale__patch.yaml",
    "kubernetes-sigs__metrics-server/manifests__components__high-availability__patch.yaml",
    "kubernetes-sigs__metrics-server@df053cbf/manifests__test__patch.yaml",
    "kubernetes__ingress-nginx/deploy__grafana__deployment.yaml",
    "kubernetes__ingress-nginx/deploy__prometheus__deployment.yaml",
):
    EXPECTED_INVALID[(_rel, "Deployment")] = "spec.selector: Required value"


def _documents():
    if not CORPUS.is_dir():
        return
    for f in sorted(CORPUS.rglob("*")):
        if f.suffix not in (".yaml", ".yml", ".json"):
            continue
        try:
            docs = list(yaml.safe_load_all(f.read_text()))
        except Exception:  # noqa: BLE001 - the corpus holds one file that is not YAML on purpose
            continue
        for doc in docs:
            if isinstance(doc, dict) and doc.get("kind") in KINDS:
                yield str(f.relative_to(CORPUS)), doc


def _prepare(obj, kind: str) -> None:
    """What the registry sets before validation (rest.BeforeCreate, the service allocator)."""
    meta = obj.metadata
    if kind not in CLUSTER_SCOPED and not meta.namespace:
        meta.namespace = "default"
    if not meta.name and meta.generate_name:
        meta.name = meta.generate_name + "x7k2p"
    if kind == "Service":
        spec = obj.spec
        if spec.cluster_ip and not spec.cluster_ips:
            spec.cluster_ips = [spec.cluster_ip]
        if spec.type == "LoadBalancer" and spec.external_traffic_policy == "Local" and not spec.health_check_node_port:
            spec.health_check_node_port = 30123


def _validate(rel: str, doc: dict):
    decoder = legacyscheme.codecs.universal_decoder()
    try:
        obj, _ = decoder.decode(json.dumps(doc, default=str).encode())
    except Exception:  # noqa: BLE001 - documents kcodec cannot decode are other tests' business
        return None
    pkg, snake = KINDS[doc["kind"]]
    try:
        module = importlib.import_module(f"kcodec.api.{pkg}.validation")
    except ModuleNotFoundError:
        return None
    validate = getattr(module, f"validate_{snake}", None)
    if validate is None:
        return None
    _prepare(obj, doc["kind"])
    return validate(obj)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus not found")
def test_corpus_manifests_are_valid(kcodec_mode):
    if kcodec_mode == "compiled":
        pytest.skip("validation has no compiled kernel; one run suffices")
    checked = 0
    unexpected = []
    for rel, doc in _documents():
        errs = _validate(rel, doc)
        if errs is None:
            continue
        checked += 1
        key = (rel, doc["kind"])
        if key in EXPECTED_INVALID:
            assert errs, f"{rel} {doc['kind']} should be invalid"
            assert str(errs[0]) == EXPECTED_INVALID[key]
        elif errs:
            unexpected.append(f"{rel} {doc['kind']}: {errs.to_aggregate()}")
    assert not unexpected, "\n".join(unexpected)
    assert checked > 400
