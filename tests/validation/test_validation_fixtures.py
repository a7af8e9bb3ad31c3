"""Every validator runs over the Go-written fixtures (k8s.io/api's roundtrip test data,
../shared/fixtures, filled with fuzzed values that are far from valid objects) without
failing: each returns field errors whose texts print, never an exception. The fixtures'
objects are decoded from protobuf, defaulted and converted to the internal version as
kube-apiserver does (kcodec.legacyscheme); every error names a field path."""
from __future__ import annotations

import importlib

import pytest

from conftest import fixtures_dir
from kcodec import legacyscheme
from kcodec.validation.field import Error, ErrorList

#: kind -> (API package, snake-case kind) of kcodec.api.<package>.validation.
KINDS = {
    "Pod": ("core", "pod"), "Service": ("core", "service"), "ConfigMap": ("core", "config_map"),
    "Secret": ("core", "secret"), "Namespace": ("core", "namespace"), "ServiceAccount": ("core", "service_account"),
    "PersistentVolumeClaim": ("core", "persistent_volume_claim"),
    "ReplicationController": ("core", "replication_controller"), "PodTemplate": ("core", "pod_template"),
    "Deployment": ("apps", "deployment"), "ReplicaSet": ("apps", "replica_set"),
    "StatefulSet": ("apps", "stateful_set"), "DaemonSet": ("apps", "daemon_set"),
    "ControllerRevision": ("apps", "controller_revision"),
    "Job": ("batch", "job"), "CronJob": ("batch", "cron_job"), "Ingress": ("networking", "ingress"),
    "Role": ("rbac", "role"), "ClusterRole": ("rbac", "cluster_role"), "RoleBinding": ("rbac", "role_binding"),
    "ClusterRoleBinding": ("rbac", "cluster_role_binding"),
    "PodDisruptionBudget": ("policy", "pod_disruption_budget"),
    "HorizontalPodAutoscaler": ("autoscaling", "horizontal_pod_autoscaler"), "Scale": ("autoscaling", "scale"),
    "Endpoints": ("core", "endpoints"), "ResourceQuota": ("core", "resource_quota"),
    "LimitRange": ("core", "limit_range"), "Binding": ("core", "binding"),
    "IngressClass": ("networking", "ingress_class"), "ServiceCIDR": ("networking", "service_cidr"),
    "NetworkPolicy": ("networking", "network_policy"), "PriorityClass": ("scheduling", "priority_class"),
    "PersistentVolume": ("core", "persistent_volume"),
    "ValidatingWebhookConfiguration": ("admissionregistration", "validating_webhook_configuration"),
    "MutatingWebhookConfiguration": ("admissionregistration", "mutating_webhook_configuration"),
    "Lease": ("coordination", "lease"), "LeaseCandidate": ("coordination", "lease_candidate"),
    "RuntimeClass": ("node", "runtime_class"), "StorageClass": ("storage", "storage_class"),
    "APIService": ("apiregistration", "api_service"), "Event": ("core", "event"),
    "EndpointSlice": ("discovery", "endpoint_slice"), "CSIDriver": ("storage", "csi_driver"),
    "CSINode": ("storage", "csi_node"), "VolumeAttachment": ("storage", "volume_attachment"),
    "CSIStorageCapacity": ("storage", "csi_storage_capacity"),
    "VolumeAttributesClass": ("storage", "volume_attributes_class"),
    "IPAddress": ("networking", "ip_address"), "Node": ("core", "node"),
}
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


def _fixtures():
    # HEAD and the previous releases' data (v1.33.0, v1.34.0, v1.35.0 beside it).
    head = fixtures_dir()
    for root in [head] + sorted(p for p in head.parent.glob("v1.*") if p.is_dir()):
        for path in sorted(root.glob("*.pb")):
            kind = path.name.rsplit(".", 2)[-2]
            if kind in KINDS:
                yield path


def _check(errs) -> int:
    assert isinstance(errs, ErrorList)
    for e in errs:
        assert isinstance(e, Error) and e.field
        assert isinstance(str(e), str)
    agg = errs.to_aggregate()
    assert (agg is None) == (not errs)
    return len(errs)


def test_validators_survive_fuzzed_fixtures(kcodec_mode):
    if kcodec_mode == "compiled":
        pytest.skip("validation has no compiled kernel; one run suffices")
    decoder = legacyscheme.codecs.universal_decoder()
    seen = 0
    for path in _fixtures():
        kind = path.name.rsplit(".", 2)[-2]
        try:
            obj, _ = decoder.decode(path.read_bytes())
        except Exception:  # noqa: BLE001 - fixtures kcodec cannot convert are other tests' business
            continue
        pkg, snake = KINDS[kind]
        module = importlib.import_module(f"kcodec.api.{pkg}.validation")
        _check(getattr(module, f"validate_{snake}")(obj))
        for suffix in ("_update", "_status_update", "_resize", "_ephemeral_containers_update"):
            fn = getattr(module, f"validate_{snake}{suffix}", None)
            if fn is not None:
                _check(fn(obj.deep_copy(), obj))
        seen += 1
    assert seen >= 100
