"""Field-selector label conversions and version priorities of the built-in groups, as
kube-apiserver's legacy scheme registers them (kcodec.api._fieldlabels, _defaulting)."""
from __future__ import annotations

import importlib

import pytest

from kcodec.api._defaulting import VERSION_PRIORITIES, install
from kcodec.errors import ConversionError
from kcodec.schema import GroupVersion, GroupVersionKind


@pytest.fixture(scope="module")
def scheme():
    from kcodec.api import api_modules
    from kcodec.runtime.scheme import Scheme

    s = Scheme("test-fieldlabels")
    for name in api_modules():
        if not name.endswith(".internal"):
            importlib.import_module(name).add_to_scheme(s)
    install(s)
    return s


POD = GroupVersionKind("", "v1", "Pod")


@pytest.mark.parametrize("label", [
    "metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
    "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs",
    "status.nominatedNodeName"])
def test_pod_labels_pass_through(scheme, label):
    assert scheme.convert_field_label(POD, label, "v") == (label, "v")


def test_pod_spec_host_is_spec_node_name(scheme):
    assert scheme.convert_field_label(POD, "spec.host", "node-1") == ("spec.nodeName", "node-1")


@pytest.mark.parametrize("gvk, good, bad, message", [
    (POD, "status.podIP", "spec.containers", "field label not supported: spec.containers"),
    (GroupVersionKind("", "v1", "Node"), "spec.unschedulable", "metadata.namespace",
     "field label not supported: metadata.namespace"),
    (GroupVersionKind("", "v1", "Secret"), "type", "data", "field label not supported: data"),
    (GroupVersionKind("", "v1", "Namespace"), "status.phase", "metadata.namespace",
     "field label not supported: metadata.namespace"),
    (GroupVersionKind("", "v1", "Event"), "involvedObject.uid", "regarding.uid",
     "field label not supported: regarding.uid"),
    (GroupVersionKind("", "v1", "ReplicationController"), "status.replicas", "spec.replicas",
     "field label not supported: spec.replicas"),
    (GroupVersionKind("", "v1", "Service"), "spec.clusterIP", "spec.ports",
     "field label not supported: spec.ports"),
    (GroupVersionKind("batch", "v1", "Job"), "status.successful", "status.failed",
     'field label "status.failed" not supported for batchv1.Job'),
    (GroupVersionKind("batch", "v1beta1", "CronJob"), "metadata.name", "spec.schedule",
     'field label "spec.schedule" not supported for "CronJob"'),
    (GroupVersionKind("apps", "v1beta1", "StatefulSet"), "status.successful", "spec.replicas",
     "field label not supported for appsv1beta1.StatefulSet: spec.replicas"),
    (GroupVersionKind("apps", "v1beta2", "StatefulSet"), "metadata.namespace", "spec.replicas",
     "field label not supported for appsv1beta2.StatefulSet: spec.replicas"),
    (GroupVersionKind("certificates.k8s.io", "v1", "CertificateSigningRequest"), "spec.signerName",
     "metadata.namespace", "field label not supported: metadata.namespace"),
    (GroupVersionKind("certificates.k8s.io", "v1beta1", "ClusterTrustBundle"), "spec.signerName",
     "spec.trustBundle", "field label not supported: spec.trustBundle"),
    (GroupVersionKind("certificates.k8s.io", "v1beta1", "PodCertificateRequest"), "spec.nodeName",
     "spec.pkixPublicKey", "field label not supported: spec.pkixPublicKey"),
    (GroupVersionKind("resource.k8s.io", "v1", "ResourceSlice"), "spec.driver", "spec.pool",
     "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.pool"),
    (GroupVersionKind("resource.k8s.io", "v1beta2", "ResourceSlice"), "spec.nodeName", "spec.pool",
     "field label not supported for resource.k8s.io/v1beta2, Kind=ResourceSlice: spec.pool"),
])
def test_supported_and_unsupported_labels(scheme, gvk, good, bad, message):
    assert scheme.convert_field_label(gvk, good, "x") == (good, "x")
    with pytest.raises(ConversionError) as info:
        scheme.convert_field_label(gvk, bad, "x")
    assert str(info.value) == message


@pytest.mark.parametrize("version", ["v1", "v1beta1"])
def test_events_k8s_io_maps_onto_core_event_fields(scheme, version):
    gvk = GroupVersionKind("events.k8s.io", version, "Event")
    assert scheme.convert_field_label(gvk, "regarding.kind", "Pod") == ("involvedObject.kind", "Pod")
    assert scheme.convert_field_label(gvk, "reportingController", "c") == ("reportingComponent", "c")
    assert scheme.convert_field_label(gvk, "type", "Normal") == ("type", "Normal")
    with pytest.raises(ConversionError, match="^field label not supported: involvedObject.kind$"):
        scheme.convert_field_label(gvk, "involvedObject.kind", "Pod")


def test_go_quotes_odd_labels(scheme):
    with pytest.raises(ConversionError) as info:
        scheme.convert_field_label(GroupVersionKind("batch", "v1", "Job"), 'a"b\n', "x")
    assert str(info.value) == 'field label "a\\"b\\n" not supported for batchv1.Job'


def test_priorities_do_not_depend_on_registration_order():
    from kcodec.runtime.scheme import Scheme

    s = Scheme("empty")
    install(s)
    assert [gv.version for gv in s.prioritized_versions_for_group("apps")] == ["v1", "v1beta2", "v1beta1"]


def test_kinds_without_a_function_take_metadata_only(scheme):
    gvk = GroupVersionKind("apps", "v1", "Deployment")
    assert scheme.convert_field_label(gvk, "metadata.name", "x") == ("metadata.name", "x")
    with pytest.raises(ConversionError, match='"spec.replicas" is not a known field selector'):
        scheme.convert_field_label(gvk, "spec.replicas", "1")


@pytest.mark.parametrize("group, expected", [
    ("", ["v1"]),
    ("apps", ["v1", "v1beta2", "v1beta1"]),
    ("autoscaling", ["v2", "v1"]),
    ("batch", ["v1", "v1beta1"]),
    ("networking.k8s.io", ["v1", "v1beta1"]),
    ("rbac.authorization.k8s.io", ["v1", "v1beta1", "v1alpha1"]),
    ("storage.k8s.io", ["v1", "v1beta1", "v1alpha1"]),
    ("scheduling.k8s.io", ["v1", "v1beta1", "v1alpha2"]),
    ("flowcontrol.apiserver.k8s.io", ["v1", "v1beta3", "v1beta2", "v1beta1"]),
    ("resource.k8s.io", ["v1", "v1beta2", "v1alpha3", "v1beta1"]),
    ("extensions", ["v1beta1"]),
])
def test_version_priorities(scheme, group, expected):
    assert [gv.version for gv in scheme.prioritized_versions_for_group(group)] == expected


def test_priority_table_covers_every_external_version_exactly(scheme):
    from kcodec.api import api_modules

    served: dict[str, set[str]] = {}
    for name in api_modules():
        if name.endswith(".internal") or name.startswith("kcodec.api.meta."):
            continue
        gv = importlib.import_module(name).SCHEME_GROUP_VERSION
        served.setdefault(gv.group, set()).add(gv.version)
    served.pop("apidiscovery.k8s.io", None)  # not a kube-apiserver legacy-scheme group
    for group, versions in served.items():
        assert set(VERSION_PRIORITIES[group]) == versions, group
    preferred = {gv.group: gv.version for gv in scheme.preferred_versions_all_groups()}
    assert set(VERSION_PRIORITIES) <= set(preferred)
    assert preferred["apps"] == "v1" and preferred["autoscaling"] == "v2"
    assert scheme.prioritized_versions_for_group("apps")[0] == GroupVersion("apps", "v1")


def test_legacy_scheme_carries_defaults_labels_and_priorities():
    """kcodec.legacyscheme calls install(): what kube-apiserver's legacy scheme registers."""
    from kcodec import legacyscheme
    from kcodec.api.apps import v1beta1

    s = legacyscheme.scheme
    d = v1beta1.Deployment.from_dict({"spec": {"template": {"metadata": {"labels": {"a": "b"}},
                                                            "spec": {"containers": [{"name": "c", "image": "x"}]}}}})
    s.default(d)
    assert (d.spec.replicas, d.spec.revision_history_limit, d.spec.selector.match_labels) == (1, 2, {"a": "b"})
    assert d.spec.template.spec.containers[0].image_pull_policy == "Always"
    assert s.convert_field_label(POD, "spec.host", "n") == ("spec.nodeName", "n")
    # v2beta1 and v2beta2 (kcodec.api.removed) come after today's versions, in the order of
    # Kubernetes 1.35's pkg/apis/autoscaling/install/install.go (v2, v1, v2beta1, v2beta2)
    assert [gv.version for gv in s.prioritized_versions_for_group("autoscaling")] == [
        "v2", "v1", "v2beta1", "v2beta2"]
