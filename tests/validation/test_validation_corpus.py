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
    "Endpoints": ("core", "endpoints"), "ResourceQuota": ("core", "resource_quota"),
    "LimitRange": ("core", "limit_range"), "IngressClass": ("networking", "ingress_class"),
    "NetworkPolicy": ("networking", "network_policy"), "PriorityClass": ("scheduling", "priority_class"),
    "PersistentVolume": ("core", "persistent_volume"),
    "ValidatingWebhookConfiguration": ("admissionregistration", "validating_webhook_configuration"),
    "MutatingWebhookConfiguration": ("admissionregistration", "mutating_webhook_configuration"),
    "Lease": ("coordination", "lease"), "LeaseCandidate": ("coordination", "lease_candidate"),
    "RuntimeClass": ("node", "runtime_class"), "StorageClass": ("storage", "storage_class"),
    "APIService": ("apiregistration", "api_service"),
}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "IngressClass", "PriorityClass", "RuntimeClass",
                  "StorageClass", "APIService", "PersistentVolume", "ValidatingWebhookConfiguration",
                  "MutatingWebhookConfiguration"}

#: Documents Go rejects as well: (file, kind) -> the first error kube-apiserver reports.
#: certificates.k8s.io (pkg/apis/certificates/validation).
KINDS.update({"CertificateSigningRequest": ("certificates", "certificate_signing_request"),
              "ClusterTrustBundle": ("certificates", "cluster_trust_bundle")})
#: flowcontrol.apiserver.k8s.io (pkg/apis/flowcontrol/validation).
KINDS.update({"FlowSchema": ("flowcontrol", "flow_schema"),
              "PriorityLevelConfiguration": ("flowcontrol", "priority_level_configuration")})
#: resource.k8s.io (pkg/apis/resource/validation).
KINDS.update({"DeviceClass": ("resource", "device_class"), "ResourceClaim": ("resource", "resource_claim"),
              "ResourceClaimTemplate": ("resource", "resource_claim_template"),
              "ResourceSlice": ("resource", "resource_slice")})
#: admission policies (pkg/apis/admissionregistration/validation).
KINDS.update({"ValidatingAdmissionPolicy": ("admissionregistration", "validating_admission_policy"),
              "ValidatingAdmissionPolicyBinding": ("admissionregistration", "validating_admission_policy_binding"),
              "MutatingAdmissionPolicy": ("admissionregistration", "mutating_admission_policy"),
              "MutatingAdmissionPolicyBinding": ("admissionregistration", "mutating_admission_policy_binding")})
CLUSTER_SCOPED |= {"CertificateSigningRequest", "ClusterTrustBundle", "FlowSchema", "PriorityLevelConfiguration",
                   "DeviceClass", "ResourceSlice", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                   "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"}

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

#: Ingress examples with template placeholders in their hosts ("__INGRESS_HOST__",
#: "registry.<your domain>"), and one whose backend service name carries a port
#: ("http-svc:80"): ValidateIngressSpec rejects both.
_PLACEHOLDER_INGRESSES = (
    "kubernetes__ingress-nginx/docs__examples__auth__oauth-external-auth__oauth2-proxy.yaml",
    "kubernetes__ingress-nginx/docs__examples__auth__oauth-external-auth__vouch-proxy.yaml",
    "kubernetes__ingress-nginx/docs__examples__docker-registry__ingress-with-tls.yaml",
    "kubernetes__ingress-nginx/docs__examples__docker-registry__ingress-without-tls.yaml",
    "kubernetes__ingress-nginx@712e243f/docs__examples__auth__client-certs__ingress.yaml",
    "kubernetes__ingress-nginx@712e243f/docs__examples__auth__oauth-external-auth__dashboard-ingress.yaml",
    "kubernetes__ingress-nginx@712e243f/docs__examples__docker-registry__ingress-with-tls.yaml",
    "kubernetes__ingress-nginx@712e243f/docs__examples__docker-registry__ingress-without-tls.yaml",
    "kubernetes__ingress-nginx@fcbc3659/docs__examples__auth__oauth-external-auth__dashboard-ingress.yaml",
    "kubernetes__ingress-nginx@fcbc3659/docs__examples__docker-registry__ingress-with-tls.yaml",
    "kubernetes__ingress-nginx@fcbc3659/docs__examples__docker-registry__ingress-without-tls.yaml",
)
for _rel in _PLACEHOLDER_INGRESSES:
    EXPECTED_INVALID[(_rel, "Ingress")] = "spec.rules[0]."

#: A 2017 APIService example with the removed ``priority`` field: groupPriorityMinimum and
#: versionPriority stay 0, which kube-aggregator's ValidateAPIService rejects.
#: v1beta1 CSRs without signerName: defaulted to kubernetes.io/legacy-unknown, which
#: ValidateCertificateSigningRequestCreate refuses.
for _rel in ("kubernetes-csi__csi-driver-host-path@f8270b3a/vendor__k8s.io__kubernetes__hack__testdata__csr.yml",
             "kubernetes__kube-state-metrics@332c90f3/tests__manifests__csr.yaml"):
    EXPECTED_INVALID[(_rel, "CertificateSigningRequest")] = (
        'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed')

EXPECTED_INVALID[("kubernetes-csi__csi-driver-host-path@f8270b3a/vendor__k8s.io__kubernetes__staging__src__k8s.io__"
                  "apiextensions-apiserver__artifacts__customresource-01__noxu-apiservice.yaml", "APIService")] = (
    "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000")

#: prometheus-operator v0.17.0 example NetworkPolicies say protocol "tcp"; Go's
#: ValidateNetworkPolicyPort lists TCP, UDP, SCTP in that order (not sorted).
for _np in ("alertmanager", "grafana", "kube-state-metrics", "node-exporter", "prometheus"):
    EXPECTED_INVALID[(f"prometheus-operator__prometheus-operator@v0.17.0/example__networkpolicies__{_np}.yaml",
                      "NetworkPolicy")] = ('spec.ingress[0].ports[0].protocol: Unsupported value: "tcp": '
                                           'supported values: "TCP", "UDP", "SCTP"')


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
    if kind in CLUSTER_SCOPED:
        meta.namespace = ""  # BeforeCreate clears it for cluster-scoped resources
    elif not meta.namespace:
        meta.namespace = "default"
    if not meta.name and meta.generate_name:
        meta.name = meta.generate_name + "x7k2p"
    if kind == "Job" and not obj.spec.manual_selector:
        # k/k pkg/registry/batch/job/strategy.go generateSelector, after BeforeCreate set the uid.
        from kcodec.api.meta import v1 as metav1

        meta.uid = "5d0c1c84-1cba-4c4b-a4a4-3c0e6b8a3f21"
        labels = dict(obj.spec.template.metadata.labels or {})
        labels.update({"controller-uid": meta.uid, "job-name": meta.name,
                       "batch.kubernetes.io/controller-uid": meta.uid, "batch.kubernetes.io/job-name": meta.name})
        obj.spec.template.metadata.labels = labels
        obj.spec.selector = metav1.LabelSelector(match_labels={"batch.kubernetes.io/controller-uid": meta.uid})
    if kind == "Service":
        spec = obj.spec
        if spec.cluster_ip and not spec.cluster_ips:
            spec.cluster_ips = [spec.cluster_ip]
        if spec.type == "LoadBalancer" and spec.external_traffic_policy == "Local" and not spec.health_check_node_port:
            spec.health_check_node_port = 30123


def _decode(doc: dict):
    decoder = legacyscheme.codecs.universal_decoder()
    try:
        obj, _ = decoder.decode(json.dumps(doc, default=str).encode())
    except Exception:  # noqa: BLE001 - documents kcodec cannot decode are other tests' business
        return None
    return obj


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
            assert str(errs[0]).startswith(EXPECTED_INVALID[key])
        elif errs:
            unexpected.append(f"{rel} {doc['kind']}: {errs.to_aggregate()}")
    assert not unexpected, "\n".join(unexpected)
    assert checked > 400


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus not found")
def test_corpus_manifests_update_to_themselves(kcodec_mode):
    """An update that changes nothing is valid (validate_<kind>_update(obj, stored copy))."""
    if kcodec_mode == "compiled":
        pytest.skip("validation has no compiled kernel; one run suffices")
    checked = 0
    unexpected = []
    for rel, doc in _documents():
        if (rel, doc["kind"]) in EXPECTED_INVALID:
            continue
        obj = _decode(doc)
        if obj is None:
            continue
        pkg, snake = KINDS[doc["kind"]]
        try:
            module = importlib.import_module(f"kcodec.api.{pkg}.validation")
        except ModuleNotFoundError:
            continue
        validate_update = getattr(module, f"validate_{snake}_update", None)
        if validate_update is None:
            continue
        _prepare(obj, doc["kind"])
        obj.metadata.resource_version = "7"
        errs = validate_update(obj.deep_copy(), obj)
        checked += 1
        if errs:
            unexpected.append(f"{rel} {doc['kind']}: {errs.to_aggregate()}")
    assert not unexpected, "\n".join(unexpected)
    assert checked > 400
