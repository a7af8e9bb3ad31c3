"""Internal (hub) versions: kcodec.legacyscheme, conversions, kcodec.convert, storage codec.

The round-trip test is upstream's API policy on real data: every Go-written fixture of a
group with an internal version is converted to the internal version (I0), then to every
external version that serves the kind and back, and must give I0 again. Comparison is on the
objects' JSON form, as Go's roundtrip tests compare with apiequality.Semantic (nil and empty
maps/lists are equal).
"""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
from _seeds import SEED_DEPLOYMENT

import kcodec
from kcodec import legacyscheme
from kcodec.errors import ConversionError
from kcodec.schema import GroupVersion, GroupVersionKind

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
FIXTURE_ROOT = SHARED / "fixtures" / "k8s-api-v0.36.3"
FIXTURE_DIRS = ("HEAD", "v1.33.0", "v1.34.0", "v1.35.0")

# (fixture, target version): data that upstream deliberately does not keep through that
# version, with upstream's reason.
DELIBERATE_LOSSES = {
    # pkg/apis/networking/v1beta1/conversion.go: a v1beta1 servicePort is an int OR a name;
    # a backend port with both a name and a number keeps the name only.
    ("networking.k8s.io.v1.Ingress", "networking.k8s.io/v1beta1"),
    ("networking.k8s.io.v1.Ingress", "extensions/v1beta1"),
    # pkg/apis/autoscaling/v1/conversion.go: the annotations carry v1's (v2beta1-style)
    # metric shapes, which cannot say every target type (a Resource target of type Value, an
    # External target with a utilization: the fuzzed fixture has them) and whose current
    # average values are plain quantities (nil comes back as 0).
    ("autoscaling.v2.HorizontalPodAutoscaler", "autoscaling/v1"),
    ("autoscaling.v1.HorizontalPodAutoscaler", "autoscaling/v1"),
    # the removed autoscaling/v2beta2 (1.33-1.35 fixtures) says what v2 says, same reason
    ("autoscaling.v2beta2.HorizontalPodAutoscaler", "autoscaling/v1"),
}


def _fixtures() -> list[Path]:
    out = []
    for d in FIXTURE_DIRS:
        out.extend(sorted((FIXTURE_ROOT / d).glob("*.json")))
    return out


def _served_versions(internal_obj, removed: bool = False) -> list[GroupVersion]:
    """The external versions of the kind: today's (k8s.io/api v0.36.3), or with
    ``removed`` only the versions kcodec.api.removed brings back."""
    s = legacyscheme.scheme
    out = []
    for k in s._type_to_gvk[type(internal_obj)]:
        for gv in s.prioritized_versions_for_group(k.group):
            gvk = gv.with_kind(k.kind)
            if gv.version != "__internal" and s.recognizes(gvk) and gv not in out:
                if s._gvk_to_type[gvk].__module__.startswith("kcodec.api.removed.") == removed:
                    out.append(gv)
    return out


@pytest.mark.skipif(not FIXTURE_ROOT.is_dir(), reason="../shared fixtures not found")
def test_fixture_round_trip_through_every_served_version() -> None:
    s = legacyscheme.scheme
    dec = legacyscheme.codecs.universal_deserializer()
    checked = 0
    failures = []
    for path in _fixtures():
        name = path.name[:-5]
        gvk_name = name
        try:
            obj, gvk = dec.decode(path.read_bytes())
        except Exception:
            continue  # a kind of a group or version with no internal version (apidiscovery, old alphas)
        if type(obj).__module__.startswith("kcodec.api.meta"):
            continue  # meta options and Status have no internal version (Go registers them per version)
        i0 = legacyscheme.to_internal(obj, default=False)
        assert i0.get_object_kind().group_version_kind() == GroupVersionKind("", "", "")
        want = i0.to_dict()
        for gv in _served_versions(i0):
            if (gvk_name, str(gv)) in DELIBERATE_LOSSES:
                continue
            ext = s.convert_to_version(i0, gv)
            assert ext.get_object_kind().group_version_kind().group_version() == gv
            back = legacyscheme.to_internal(ext, default=False)
            checked += 1
            if back.to_dict() != want:
                failures.append(f"{path.parent.name}/{name} via {gv}")
    assert not failures, failures
    assert checked > 1000


def test_deliberate_losses_still_lose() -> None:
    """The listed losses are real (so the list cannot hide a fixed or a new bug)."""
    from kcodec.api.networking import internal as net

    backend = net.IngressBackend(service=net.IngressServiceBackend(
        name="web", port=net.ServiceBackendPort(name="http", number=80)))
    ing = net.Ingress(spec=net.IngressSpec(default_backend=backend))
    s = legacyscheme.scheme
    ext = s.convert_to_version(ing, GroupVersion("networking.k8s.io", "v1beta1"))
    assert ext.spec.backend.service_name == "web" and str(ext.spec.backend.service_port) == "http"
    back = legacyscheme.to_internal(ext, default=False)
    assert back.spec.default_backend.service.port.number == 0


def test_seed_v1beta1_deployment_to_apps_v1() -> None:
    out = kcodec.convert(SEED_DEPLOYMENT, "apps/v1")
    from kcodec.api.apps import v1

    assert type(out) is v1.Deployment
    assert (out.api_version, out.kind) == ("apps/v1", "Deployment")
    assert out.spec.replicas == 1
    assert out.spec.template.spec.containers[0].image == "nginx:1.7.9"
    # apps/v1beta1 had no required selector: its defaulting derives it from the template labels
    if out.spec.selector is not None:
        assert out.spec.selector.match_labels == {"app": "nginx"}


def test_seed_steps_internal_gvk_is_empty() -> None:
    """runtime/scheme.go: v1beta1 -> internal reports "/, Kind=", internal -> v1 reports apps/v1."""
    from kcodec.api.apps import v1beta1

    s = legacyscheme.scheme
    d = v1beta1.Deployment()
    d.api_version, d.kind = "apps/v1beta1", "Deployment"
    internal = s.convert_to_version(d, GroupVersion("apps", "__internal"))
    assert str(internal.get_object_kind().group_version_kind()) == "/, Kind="
    v1 = s.convert_to_version(internal, GroupVersion("apps", "v1"))
    assert str(v1.get_object_kind().group_version_kind()) == "apps/v1, Kind=Deployment"


def test_external_to_external_is_refused_as_in_go() -> None:
    from kcodec.api.apps import v1beta1

    with pytest.raises(ConversionError, match="unknown conversion"):
        legacyscheme.scheme.convert_to_version(v1beta1.Deployment(), GroupVersion("apps", "v1"))


def test_universal_decoder_gives_internal_objects() -> None:
    from kcodec.api.apps import internal

    obj, gvk = legacyscheme.codecs.universal_decoder().decode(SEED_DEPLOYMENT)
    assert type(obj) is internal.Deployment
    assert gvk == GroupVersionKind("apps", "v1beta1", "Deployment")


def test_pod_spec_host_fields_and_service_account() -> None:
    from kcodec.api.core import internal, v1

    pod = v1.Pod(spec=v1.PodSpec(host_network=True, host_pid=True, deprecated_service_account="sa"))
    i = legacyscheme.to_internal(pod, default=False)
    assert i.spec.service_account_name == "sa"
    assert i.spec.security_context.host_network and i.spec.security_context.host_pid
    back = legacyscheme.scheme.convert_to_version(i, GroupVersion("", "v1"))
    assert back.spec.host_network and back.spec.host_pid and not back.spec.host_ipc
    assert back.spec.deprecated_service_account == "sa" == back.spec.service_account_name
    assert back.spec.security_context == v1.PodSecurityContext()
    assert isinstance(i.spec, internal.PodSpec)


def test_pod_ip_and_secret_string_data() -> None:
    from kcodec.api.core import v1

    pod = v1.Pod(status=v1.PodStatus(pod_ip="10.0.0.1", host_ip="192.168.0.1"))
    i = legacyscheme.to_internal(pod, default=False)
    assert [p.ip for p in i.status.pod_ips] == ["10.0.0.1"]
    assert [p.ip for p in i.status.host_ips] == ["192.168.0.1"]
    sec = v1.Secret(data={"a": b"x"}, string_data={"b": "y", "a": "z"})
    i = legacyscheme.to_internal(sec, default=False)
    assert i.data == {"a": b"z", "b": b"y"}
    assert sec.data == {"a": b"x"}  # the source is untouched


def test_deployment_rollback_to_travels_in_an_annotation() -> None:
    from kcodec.api.apps import v1beta1

    d = v1beta1.Deployment(spec=v1beta1.DeploymentSpec(rollback_to=v1beta1.RollbackConfig(revision=3)))
    out = kcodec.convert(d, "apps/v1")
    assert out.metadata.annotations == {"deprecated.deployment.rollback.to": "3"}
    again = kcodec.convert(out, "apps/v1beta1")
    assert again.spec.rollback_to.revision == 3
    assert not again.metadata.annotations


def test_extensions_ingress_to_networking_v1_keeps_backends() -> None:
    doc = b"""{"apiVersion":"extensions/v1beta1","kind":"Ingress","metadata":{"name":"i"},
    "spec":{"backend":{"serviceName":"def","servicePort":8080},"rules":[{"http":{"paths":
    [{"path":"/","backend":{"serviceName":"web","servicePort":"http"}}]}}]}}"""
    out = kcodec.convert(doc, "networking.k8s.io/v1")
    assert out.spec.default_backend.service.name == "def"
    assert out.spec.default_backend.service.port.number == 8080
    b = out.spec.rules[0].ingress_rule_value.http.paths[0].backend.service
    assert (b.name, b.port.name) == ("web", "http")


def test_pdb_v1beta1_empty_selector_means_none() -> None:
    from kcodec.api.meta import v1 as metav1
    from kcodec.api.policy import v1beta1

    pdb = v1beta1.PodDisruptionBudget(spec=v1beta1.PodDisruptionBudgetSpec(selector=metav1.LabelSelector()))
    i = legacyscheme.to_internal(pdb, default=False)
    (req,) = i.spec.selector.match_expressions
    assert (req.key, req.operator) == ("pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match", "Exists")
    back = legacyscheme.scheme.convert_to_version(i, GroupVersion("policy", "v1beta1"))
    assert back.spec.selector == metav1.LabelSelector()


def test_events_v1_is_a_core_event_inside() -> None:
    from kcodec.api.core import internal
    from kcodec.api.events import v1

    ev = v1.Event(note="hello", deprecated_count=4, reason="R")
    ev.regarding.name = "pod-a"
    i = legacyscheme.to_internal(ev, default=False)
    assert type(i) is internal.Event
    assert (i.message, i.count, i.reason, i.involved_object.name) == ("hello", 4, "R", "pod-a")
    core = kcodec.convert(ev, "v1")
    assert core.message == "hello" and core.kind == "Event" and core.api_version == "v1"


def test_convert_to_a_group_without_the_kind_fails() -> None:
    from kcodec.api.core import v1

    with pytest.raises(ConversionError):
        kcodec.convert(v1.ConfigMap(), "apps/v1")


def test_external_scheme_has_no_internal_kinds() -> None:
    import kcodec.api

    assert not any(gvk.version == "__internal" and gvk.kind != "WatchEvent"
                   for gvk in kcodec.api.scheme.all_known_types())
    assert all(not m.endswith(".internal") for m in kcodec.api.api_modules())


def test_storage_codec_with_internal_memory_version() -> None:
    """kube-apiserver's set-up (apiserver storage_codec.go): memory version apps/__internal,
    stored as apps/v1 protobuf."""
    from kcodec.api.apps import internal, v1
    from kcodec.api.core import v1 as corev1
    from kcodec.api.meta import v1 as metav1
    from kcodec.storage import StorageCodecConfig, new_storage_codec

    codec = new_storage_codec(StorageCodecConfig(
        storage_media_type="application/vnd.kubernetes.protobuf",
        storage_serializer=legacyscheme.codecs,
        storage_version=GroupVersion("apps", "v1"),
        memory_version=GroupVersion("apps", "__internal"),
    ))
    # kube-apiserver stores what its decoder defaulted, so build the object the same way
    d = legacyscheme.to_internal(v1.Deployment(
        metadata=metav1.ObjectMeta(name="web", namespace="default", labels={"app": "web"}),
        spec=v1.DeploymentSpec(
            replicas=3,
            selector=metav1.LabelSelector(match_labels={"app": "web"}),
            template=corev1.PodTemplateSpec(
                metadata=metav1.ObjectMeta(labels={"app": "web"}),
                spec=corev1.PodSpec(containers=[corev1.Container(name="web", image="nginx")]),
            ),
        ),
    ))
    assert type(d) is internal.Deployment
    data = codec.encode(d)
    assert data.startswith(b"k8s\x00")
    assert b"apps/v1" in data[:40] and b"Deployment" in data[:40]
    back, gvk = codec.decode(data)
    assert type(back) is internal.Deployment
    assert back.to_dict() == d.to_dict()


def test_legacyscheme_is_built_once_under_threads() -> None:
    import threading

    seen = []
    threads = [threading.Thread(target=lambda: seen.append(legacyscheme.scheme)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(s is seen[0] for s in seen)


def test_hpa_v2_through_v1_annotations() -> None:
    """A real v2 HPA (CPU target, a pods metric, behavior, conditions) survives autoscaling/v1."""
    doc = b"""{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},
    "spec":{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},
    "minReplicas":1,"maxReplicas":5,"metrics":[
    {"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"10"}}},
    {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}],
    "behavior":{"scaleDown":{"stabilizationWindowSeconds":300,"policies":[{"type":"Percent","value":100,"periodSeconds":15}]}}},
    "status":{"currentReplicas":2,"desiredReplicas":2,"currentMetrics":[
    {"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":40,"averageValue":"4m"}}}],
    "conditions":[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-02-22T07:57:16Z","reason":"ReadyForNewScale"}]}}"""
    i0 = legacyscheme.to_internal(kcodec.convert(doc, "autoscaling/v2"), default=False)
    v1 = legacyscheme.scheme.convert_to_version(i0, GroupVersion("autoscaling", "v1"))
    assert v1.spec.target_cpu_utilization_percentage == 50
    assert v1.status.current_cpu_utilization_percentage == 40
    ann = v1.metadata.annotations
    assert ann["autoscaling.alpha.kubernetes.io/metrics"] == (
        '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]')
    import json

    behavior = json.loads(ann["autoscaling.alpha.kubernetes.io/behavior"])  # Go field names
    assert list(behavior) == ["ScaleUp", "ScaleDown"]
    assert behavior["ScaleDown"]["StabilizationWindowSeconds"] == 300
    assert behavior["ScaleDown"]["Policies"][0] == {"Type": "Percent", "Value": 100, "PeriodSeconds": 15}
    assert "autoscaling.alpha.kubernetes.io/conditions" in ann
    back = legacyscheme.to_internal(v1, default=False)
    assert back.to_dict() == i0.to_dict()
    assert not (back.metadata.annotations or {})



def test_hpa_v1_without_cpu_target_gets_the_implicit_default() -> None:
    """pkg/apis/autoscaling/v1/conversion.go Convert_v1_HorizontalPodAutoscaler_To_autoscaling_
    HorizontalPodAutoscaler: no targetCPUUtilizationPercentage and no metrics annotation gives
    one Resource cpu metric at autoscaling.DefaultCPUUtilization (80)."""
    doc = (b'{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},'
           b'"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":3}}')
    i0 = legacyscheme.to_internal(kcodec.load(doc), default=False)
    assert [m.to_dict() for m in i0.spec.metrics] == [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                    "averageUtilization": 80}}}]
    v2 = kcodec.convert(doc, "autoscaling/v2")
    assert v2.spec.metrics[0].resource.target.average_utilization == 80
    # and back to v1 it is an explicit target, as Go's spec conversion writes it
    back = legacyscheme.scheme.convert_to_version(i0, GroupVersion("autoscaling", "v1"))
    assert back.spec.target_cpu_utilization_percentage == 80
    assert not (back.metadata.annotations or {})


def test_hpa_v1_metrics_annotation_replaces_the_implicit_default() -> None:
    doc = (b'{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h",'
           b'"annotations":{"autoscaling.alpha.kubernetes.io/metrics":'
           b'"[{\\"type\\":\\"Pods\\",\\"pods\\":{\\"metricName\\":\\"qps\\",'
           b'\\"targetAverageValue\\":\\"10\\"}}]"}},'
           b'"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":3}}')
    i0 = legacyscheme.to_internal(kcodec.load(doc), default=False)
    assert [m.type for m in i0.spec.metrics] == ["Pods"]
    assert i0.spec.metrics[0].pods.target.average_value == kcodec.types.Quantity("10")
    assert not (i0.metadata.annotations or {})



def test_hpa_v2_drops_the_round_trip_annotations_both_ways() -> None:
    """pkg/apis/autoscaling/v2/conversion.go: DropRoundTripHorizontalPodAutoscalerAnnotations
    on the way in and out (only v1 and v2beta1 write them)."""
    ann = {"autoscaling.alpha.kubernetes.io/metrics": "[]", "autoscaling.alpha.kubernetes.io/behavior": "{}",
           "autoscaling.alpha.kubernetes.io/current-metrics": "[]",
           "autoscaling.alpha.kubernetes.io/conditions": "[]", "x": "y"}
    import json

    doc = json.dumps({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                      "metadata": {"name": "h", "annotations": ann},
                      "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 2}})
    i0 = legacyscheme.to_internal(kcodec.load(doc), default=False)
    assert i0.metadata.annotations == {"x": "y"}
    i0.metadata.annotations = dict(ann)
    v2 = legacyscheme.scheme.convert_to_version(i0, GroupVersion("autoscaling", "v2"))
    assert v2.metadata.annotations == {"x": "y"}
    assert i0.metadata.annotations == ann  # the source is not modified

@pytest.mark.skipif(not FIXTURE_ROOT.is_dir(), reason="../shared fixtures not found")
def test_hpa_v1_fixture_round_trip_is_gos() -> None:
    """The fully populated autoscaling/v1 fixture through internal and back to v1, checked
    against pkg/apis/autoscaling/v1/conversion.go: the v1 object is the fixture plus the
    current-metrics annotation (json.Marshal of []v1.MetricStatus, whose ResourceMetricStatus
    writes currentAverageValue without omitempty); read back, the only change from the first
    internal object is that annotation's zero average value, which
    Convert_v1_ResourceMetricStatus_To_autoscaling_ResourceMetricStatus takes by address
    (&in.CurrentAverageValue): upstream's deliberate loss listed in DELIBERATE_LOSSES."""
    import json

    raw = (FIXTURE_ROOT / "HEAD" / "autoscaling.v1.HorizontalPodAutoscaler.json").read_bytes()
    i0 = legacyscheme.to_internal(legacyscheme.codecs.universal_deserializer().decode(raw)[0],
                                  default=False)
    v1 = legacyscheme.scheme.convert_to_version(i0, GroupVersion("autoscaling", "v1"))
    want = json.loads(raw)
    want["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/current-metrics"] = (
        '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":5,'
        '"currentAverageValue":"0"}}]')
    assert json.loads(kcodec.dump(v1, "json")) == want
    back = legacyscheme.to_internal(v1, default=False).to_dict()
    first = i0.to_dict()
    assert first["status"]["currentMetrics"][0]["resource"]["current"].get("averageValue") is None
    assert back["status"]["currentMetrics"][0]["resource"]["current"].pop("averageValue") == "0"
    assert back == first


# -- sharing of layout-identical types (Go's unsafe.Pointer conversions) -------------------------

def _pod_v1():
    from kcodec.api.core import v1
    from kcodec.api.meta import v1 as metav1

    return v1.Pod(
        metadata=metav1.ObjectMeta(name="p", namespace="ns", labels={"app": "p"}),
        spec=v1.PodSpec(
            containers=[v1.Container(name="c", image="nginx", ports=[v1.ContainerPort(container_port=80)])],
            volumes=[v1.Volume(name="v", volume_source=v1.VolumeSource(empty_dir=v1.EmptyDirVolumeSource()))],
            host_network=True,
            security_context=v1.PodSecurityContext(run_as_user=1000),
        ),
        status=v1.PodStatus(phase="Running", pod_ip="10.0.0.1",
                            conditions=[v1.PodCondition(type="Ready", status="True")]),
    )


def test_internal_modules_bind_layout_identical_types_to_the_preferred_version() -> None:
    from kcodec.api.apps import internal as apps, v1 as appsv1
    from kcodec.api.core import internal as core, v1
    from kcodec.api.policy import internal as policy, v1 as policyv1

    assert core.Container is v1.Container and core.Volume is v1.Volume
    assert apps.DeploymentStrategy is appsv1.DeploymentStrategy
    # the internal PodSpec/PodSecurityContext keep the host fields elsewhere; DeploymentSpec
    # has rollbackTo; a PodTemplateSpec holds the internal PodSpec
    for name in ("PodSpec", "PodSecurityContext", "PodStatus", "PodTemplateSpec"):
        assert getattr(core, name) is not getattr(v1, name), name
    assert apps.DeploymentSpec is not appsv1.DeploymentSpec
    # policy/v1's selector has a hand-written conversion, so its spec stays a class of its own
    assert policy.PodDisruptionBudgetSpec is not policyv1.PodDisruptionBudgetSpec


def test_registered_kinds_stay_internal_classes() -> None:
    """No kind is shared: the Scheme maps a class to one GVK and internal objects report none."""
    from kcodec.api._hub import hub_classes

    s = legacyscheme.scheme
    s.load_all()  # the tables read below are the whole scheme's
    for pkg in legacyscheme.PACKAGES:
        mod = __import__(f"kcodec.api.{pkg}.internal", fromlist=["x"])
        for name, cls in hub_classes(mod).items():
            kinds = s._type_to_gvk.get(cls, ())
            if cls.__module__ != mod.__name__:
                assert not kinds, f"{pkg}.{name} is shared but registered as {kinds}"
            elif kinds:
                assert all(k.version == "__internal" for k in kinds), (pkg, name, kinds)


def test_pod_to_internal_shares_identical_subtrees() -> None:
    from kcodec.api.core import internal as core
    from kcodec.schema import INTERNAL_GROUP_VERSIONER

    pod = _pod_v1()
    i = legacyscheme.scheme.unsafe_convert_to_version(pod, INTERNAL_GROUP_VERSIONER)
    assert type(i) is core.Pod
    # same class both sides: the value (the list itself, as Go's slice cast) is shared
    assert i.spec.containers is pod.spec.containers
    assert i.spec.volumes is pod.spec.volumes
    assert i.status.conditions is pod.status.conditions
    assert i.metadata is pod.metadata
    # differing layouts are converted into new objects
    assert type(i.spec) is core.PodSpec and i.spec is not pod.spec
    assert type(i.spec.security_context) is core.PodSecurityContext
    assert i.spec.security_context.host_network is True
    assert i.spec.security_context.run_as_user == 1000
    assert [p.ip for p in i.status.pod_ips] == ["10.0.0.1"]
    # and back: internal -> v1 shares the same subtrees again
    back = legacyscheme.scheme.unsafe_convert_to_version(i, GroupVersion("", "v1"))
    assert back.spec.containers is pod.spec.containers
    assert back.spec.host_network is True and back.status.pod_ip == "10.0.0.1"
    assert back.spec.security_context is not i.spec.security_context


def test_hand_converted_type_is_copied_not_shared() -> None:
    from kcodec.api.meta import v1 as metav1
    from kcodec.api.policy import internal as policy, v1 as policyv1
    from kcodec.schema import INTERNAL_GROUP_VERSIONER

    pdb = policyv1.PodDisruptionBudget(spec=policyv1.PodDisruptionBudgetSpec(
        selector=metav1.LabelSelector(match_labels={"a": "b"})))
    i = legacyscheme.scheme.unsafe_convert_to_version(pdb, INTERNAL_GROUP_VERSIONER)
    assert type(i.spec) is policy.PodDisruptionBudgetSpec and i.spec is not pdb.spec
    assert i.spec.selector.match_labels == {"a": "b"}


def test_internal_objects_keep_their_repr_and_empty_gvk() -> None:
    from kcodec.api.core import internal as core
    from kcodec.schema import INTERNAL_GROUP_VERSIONER

    i = legacyscheme.scheme.unsafe_convert_to_version(_pod_v1(), INTERNAL_GROUP_VERSIONER)
    assert type(i) is core.Pod and type(i).__module__ == "kcodec.api.core.internal"
    assert repr(i).startswith("Pod(")
    assert str(i.get_object_kind().group_version_kind()) == "/, Kind="
    kinds, _ = legacyscheme.scheme.object_kinds(i)
    assert kinds == [GroupVersionKind("", "__internal", "Pod")]


def test_safe_conversions_share_nothing_with_their_input() -> None:
    """convert_to_version copies first; kcodec.convert leaves the caller's object untouched."""
    from kcodec.api.apps import v1beta1
    from kcodec.api.core import v1
    from kcodec.schema import INTERNAL_GROUP_VERSIONER

    pod = _pod_v1()
    before = pod.to_dict()
    i = legacyscheme.scheme.convert_to_version(pod, INTERNAL_GROUP_VERSIONER)
    assert i.spec.containers is not pod.spec.containers
    i.spec.containers[0].image = "changed"
    assert pod.to_dict() == before

    d = kcodec.load(SEED_DEPLOYMENT)
    assert type(d) is v1beta1.Deployment
    d_before = d.to_dict()
    out = kcodec.convert(d, "apps/v1")
    assert out.spec.template.spec.containers is not d.spec.template.spec.containers
    out.spec.template.spec.containers[0].image = "changed"
    out.metadata.labels["x"] = "y"
    assert d.to_dict() == d_before
    assert isinstance(out.spec.template.spec.containers[0], v1.Container)


def test_override_on_a_shared_class_is_refused() -> None:
    from kcodec.api import _hub
    from kcodec.api.core import internal, v1
    from kcodec.runtime.scheme import Scheme

    def fn(src, dst, scope):  # never runs: registration refuses it
        raise AssertionError

    with pytest.raises(ConversionError, match="INTERNAL_HAND_CONVERTED"):
        _hub.register_version(Scheme("t"), v1, [internal], to_internal={"Container": {"image": fn}})


def test_rollback_annotation_copies_only_the_annotations() -> None:
    """Go's Convert_apps_Deployment_To_v1_Deployment copies ObjectMeta by value and deep-copies
    only the annotations it changes: the source's metadata is untouched, the other maps are
    shared, as in Go."""
    from kcodec.api.apps import _conversion, internal, v1
    from kcodec.api.meta import v1 as metav1
    from kcodec.schema import INTERNAL_GROUP_VERSIONER

    s = legacyscheme.scheme
    meta = metav1.ObjectMeta(name="d", labels={"a": "b"}, annotations={"keep": "1"})
    d = internal.Deployment(metadata=meta, spec=internal.DeploymentSpec(
        rollback_to=internal.RollbackConfig(revision=3)))
    out = s.unsafe_convert_to_version(d, GroupVersion("apps", "v1"))
    assert type(out) is v1.Deployment
    assert out.metadata.annotations == {"keep": "1", _conversion.DEPRECATED_ROLLBACK_TO: "3"}
    assert meta.annotations == {"keep": "1"} and out.metadata is not meta
    assert out.metadata.labels is meta.labels and out.metadata.name == "d"
    back = s.unsafe_convert_to_version(out, INTERNAL_GROUP_VERSIONER)
    assert back.spec.rollback_to.revision == 3
    assert back.metadata.annotations == {"keep": "1"}
    assert out.metadata.annotations[_conversion.DEPRECATED_ROLLBACK_TO] == "3"


def _deployment_list(n: int) -> object:
    """An apps/v1beta1 DeploymentList of ``n`` distinct seed Deployments (one without
    replicas, so defaulting has work in every chunk)."""
    from kcodec.api.apps import v1beta1

    items = []
    for i in range(n):
        d = kcodec.load(SEED_DEPLOYMENT)
        d.metadata.name = f"d-{i}"
        if i % 7 == 3:
            d.spec.replicas = None
        items.append(d)
    return v1beta1.DeploymentList(items=items)


def test_convert_of_a_long_list_in_chunks_is_the_whole_lists() -> None:
    """kcodec.convert takes a long typed list a few items at a time (copy, defaults and both
    conversions per chunk): the result is the whole-list path's, item for item, the list's
    own fields included, and the caller's list is untouched."""
    from kcodec.api.apps import v1
    from kcodec.serializer import json as kjson

    s = legacyscheme.scheme
    gv = GroupVersion("apps", "v1")
    for n in (legacyscheme._MIN_CHUNKED, legacyscheme._MIN_CHUNKED + 5, 3 * legacyscheme.CHUNK_ITEMS + 1):
        lst = _deployment_list(n)
        lst.metadata.resource_version = "42"
        before = lst.to_dict()
        assert legacyscheme._chunkable(s, lst)
        got = kcodec.convert(lst, gv)
        want = legacyscheme._convert_whole(s, lst, gv, False)
        assert type(got) is v1.DeploymentList and len(got.items) == n
        assert got == want and got.to_dict() == want.to_dict()
        assert kjson.Serializer(s, s).encode(got) == kjson.Serializer(s, s).encode(want)
        assert [x.spec.replicas for x in got.items[:5]] == [1, 1, 1, 1, 1]
        assert lst.to_dict() == before
        assert not {id(x.spec) for x in got.items} & {id(x.spec) for x in lst.items}


def test_convert_of_a_list_that_fails_in_a_late_chunk_raises_the_whole_lists_error() -> None:
    """An item that cannot be copied (an unset slot) past the first chunk: kcodec.convert
    raises what converting the whole list raises; short and mixed lists go whole."""
    from kcodec.api.apps import v1beta1

    s = legacyscheme.scheme
    gv = GroupVersion("apps", "v1")
    lst = _deployment_list(3 * legacyscheme.CHUNK_ITEMS)
    object.__delattr__(lst.items[-1].spec, "paused")
    with pytest.raises(AttributeError) as whole:
        legacyscheme._convert_whole(s, lst, gv, False)
    with pytest.raises(AttributeError) as chunked:
        kcodec.convert(lst, gv)
    assert str(chunked.value) == str(whole.value)

    assert not legacyscheme._chunkable(s, _deployment_list(legacyscheme._MIN_CHUNKED - 1))
    mixed = _deployment_list(legacyscheme._MIN_CHUNKED)
    mixed.items[5] = v1beta1.StatefulSet()
    assert not legacyscheme._chunkable(s, mixed)
