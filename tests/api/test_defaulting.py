"""Defaulting of the built-in groups (kcodec.api._defaulting), ported from upstream's
``pkg/apis/<group>/<version>/defaults_test.go`` cases, plus idempotence over every fixture.

Objects are built from the JSON dicts a user would write, defaulted, and compared with the
exact values kube-apiserver stores.
"""
from __future__ import annotations

import copy
import importlib

import pytest

from conftest import FIXTURES, fixtures_dir
from kcodec.api import _defaulting
from kcodec.api._defaulting import defaulter_for, install, set_object_defaults
from kcodec.types import IntOrString, Quantity, parse_quantity


def defaulted(cls, data: dict):
    obj = cls.from_dict(copy.deepcopy(data))
    set_object_defaults(obj)
    return obj


def as_dict(obj) -> dict:
    return obj.to_dict()


# -- the kubectl-convert docs' minimal Deployment ---------------------------------------------------------

POD_TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
}


def test_deployment_with_only_a_pod_template_gets_every_default():
    from kcodec.api.apps import v1

    d = defaulted(v1.Deployment, {"apiVersion": "apps/v1", "kind": "Deployment",
                                  "metadata": {"name": "web"}, "spec": {"template": POD_TEMPLATE}})
    spec = d.spec
    assert spec.replicas == 1
    assert spec.strategy.type == "RollingUpdate"
    assert spec.strategy.rolling_update.max_unavailable == IntOrString.from_string("25%")
    assert spec.strategy.rolling_update.max_surge == IntOrString.from_string("25%")
    assert spec.revision_history_limit == 10
    assert spec.progress_deadline_seconds == 600
    assert spec.selector is None  # apps/v1 does not take it from the template
    assert d.metadata.labels is None
    pod = spec.template.spec
    assert pod.dns_policy == "ClusterFirst"
    assert pod.restart_policy == "Always"
    assert pod.scheduler_name == "default-scheduler"
    assert pod.termination_grace_period_seconds == 30
    assert pod.security_context is not None and as_dict(pod.security_context) == {}
    # enableServiceLinks is a Pod default only (SetDefaults_Pod), not a template's
    assert pod.enable_service_links is None
    c = pod.containers[0]
    assert c.image_pull_policy == "IfNotPresent"
    assert c.termination_message_path == "/dev/termination-log"
    assert c.termination_message_policy == "File"
    assert as_dict(d)["spec"]["template"]["spec"] == {
        "containers": [{
            "name": "web", "image": "nginx:1.27", "resources": {},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent",
        }],
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst", "securityContext": {}, "schedulerName": "default-scheduler",
    }


def test_deployment_keeps_given_values():
    from kcodec.api.apps import v1

    d = defaulted(v1.Deployment, {"spec": {
        "replicas": 0, "revisionHistoryLimit": 3, "progressDeadlineSeconds": 30,
        "strategy": {"type": "Recreate"}, "template": POD_TEMPLATE}})
    assert d.spec.replicas == 0
    assert d.spec.revision_history_limit == 3
    assert d.spec.progress_deadline_seconds == 30
    assert d.spec.strategy.type == "Recreate"
    assert d.spec.strategy.rolling_update is None


def test_apps_v1beta1_deployment_takes_selector_and_labels_from_template():
    from kcodec.api.apps import v1beta1

    d = defaulted(v1beta1.Deployment, {"spec": {"template": POD_TEMPLATE}})
    assert d.spec.selector.match_labels == {"app": "web"}
    assert d.metadata.labels == {"app": "web"}
    assert d.spec.revision_history_limit == 2
    assert d.spec.progress_deadline_seconds == 600
    assert d.spec.strategy.rolling_update.max_surge == IntOrString.from_string("25%")


def test_apps_v1beta2_deployment_matches_v1():
    from kcodec.api.apps import v1beta2

    d = defaulted(v1beta2.Deployment, {"spec": {"template": POD_TEMPLATE}})
    assert d.spec.selector is None
    assert (d.spec.replicas, d.spec.revision_history_limit, d.spec.progress_deadline_seconds) == (1, 10, 600)


def test_extensions_v1beta1_deployment_old_values():
    from kcodec.api.extensions import v1beta1

    d = defaulted(v1beta1.Deployment, {"spec": {"template": POD_TEMPLATE}})
    assert d.spec.selector.match_labels == {"app": "web"}
    assert d.metadata.labels == {"app": "web"}
    ru = d.spec.strategy.rolling_update
    assert (ru.max_unavailable, ru.max_surge) == (IntOrString.from_int(1), IntOrString.from_int(1))
    assert d.spec.progress_deadline_seconds == 2**31 - 1
    assert d.spec.revision_history_limit == 2**31 - 1
    recreate = defaulted(v1beta1.Deployment, {"spec": {"strategy": {"type": "Recreate", "rollingUpdate": {}},
                                                       "template": POD_TEMPLATE}})
    assert recreate.spec.strategy.rolling_update.max_surge == IntOrString.from_int(1)


@pytest.mark.parametrize("module", ["v1", "v1beta2"])
def test_daemon_set(module):
    mod = importlib.import_module(f"kcodec.api.apps.{module}")
    ds = defaulted(mod.DaemonSet, {"spec": {"template": POD_TEMPLATE}})
    us = ds.spec.update_strategy
    assert us.type == "RollingUpdate"
    assert us.rolling_update.max_unavailable == IntOrString.from_int(1)
    assert us.rolling_update.max_surge == IntOrString.from_int(0)
    assert ds.spec.revision_history_limit == 10
    ondelete = defaulted(mod.DaemonSet, {"spec": {"updateStrategy": {"type": "OnDelete"}, "template": POD_TEMPLATE}})
    assert ondelete.spec.update_strategy.rolling_update is None


def test_extensions_daemon_set_updates_on_delete():
    from kcodec.api.extensions import v1beta1

    ds = defaulted(v1beta1.DaemonSet, {"spec": {"template": POD_TEMPLATE}})
    assert ds.spec.update_strategy.type == "OnDelete"
    assert ds.spec.update_strategy.rolling_update is None
    assert ds.spec.selector.match_labels == {"app": "web"}
    assert ds.spec.revision_history_limit == 10


@pytest.mark.parametrize("module", ["v1", "v1beta2"])
def test_stateful_set(module):
    mod = importlib.import_module(f"kcodec.api.apps.{module}")
    ss = defaulted(mod.StatefulSet, {"spec": {"template": POD_TEMPLATE}})
    spec = ss.spec
    assert spec.pod_management_policy == "OrderedReady"
    assert spec.update_strategy.type == "RollingUpdate"
    assert spec.update_strategy.rolling_update.partition == 0
    # MaxUnavailableStatefulSet is beta and on by default since 1.35
    assert spec.update_strategy.rolling_update.max_unavailable == IntOrString.from_int(1)
    assert spec.persistent_volume_claim_retention_policy.when_deleted == "Retain"
    assert spec.persistent_volume_claim_retention_policy.when_scaled == "Retain"
    assert (spec.replicas, spec.revision_history_limit) == (1, 10)
    # a given RollingUpdate type without a rollingUpdate block stays without one
    given = defaulted(mod.StatefulSet, {"spec": {"updateStrategy": {"type": "RollingUpdate"}, "template": POD_TEMPLATE}})
    assert given.spec.update_strategy.rolling_update is None


def test_stateful_set_v1beta1_on_delete_and_selector():
    from kcodec.api.apps import v1beta1

    ss = defaulted(v1beta1.StatefulSet, {"spec": {"template": POD_TEMPLATE}})
    assert ss.spec.update_strategy.type == "OnDelete"
    assert ss.spec.selector.match_labels == {"app": "web"}
    assert ss.metadata.labels == {"app": "web"}
    assert (ss.spec.replicas, ss.spec.revision_history_limit) == (1, 10)


@pytest.mark.parametrize("path", ["apps.v1", "apps.v1beta2", "extensions.v1beta1"])
def test_replica_set(path):
    mod = importlib.import_module(f"kcodec.api.{path}")
    rs = defaulted(mod.ReplicaSet, {"spec": {"template": POD_TEMPLATE}})
    assert rs.spec.replicas == 1
    assert rs.spec.template.spec.containers[0].image_pull_policy == "IfNotPresent"
    assert (rs.spec.selector is not None) == (path == "extensions.v1beta1")


# -- core/v1 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("image, policy", [
    ("nginx", "Always"),
    ("nginx:latest", "Always"),
    ("docker.io/library/nginx:latest", "Always"),
    ("nginx:1.27", "IfNotPresent"),
    ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
    ("nginx:latest@sha256:" + "b" * 64, "Always"),
    ("localhost:5000/team/app", "Always"),
    ("registry.example.com:5000/team/app:v2", "IfNotPresent"),
    ("", "IfNotPresent"),            # no reference: the parse error is ignored
    ("Nginx", "IfNotPresent"),       # upper case repository: does not parse
    ("nginx@sha256:abc", "IfNotPresent"),  # short digest: does not parse
])
def test_container_image_pull_policy_by_tag(image, policy):
    from kcodec.api.core import v1

    pod = defaulted(v1.Pod, {"spec": {"containers": [{"name": "c", "image": image}]}})
    assert pod.spec.containers[0].image_pull_policy == policy


def test_pod_defaults_and_requests_from_limits():
    from kcodec.api.core import v1

    pod = defaulted(v1.Pod, {"spec": {
        "hostNetwork": True,
        "initContainers": [{"name": "i", "image": "busybox", "resources": {"limits": {"memory": "1Gi"}}}],
        "containers": [{"name": "c", "image": "nginx:1", "ports": [{"containerPort": 8080}],
                        "resources": {"limits": {"cpu": "500m", "memory": "128Mi"},
                                      "requests": {"cpu": "100m"}}}],
    }})
    c = pod.spec.containers[0]
    assert {k: str(v) for k, v in c.resources.requests.items()} == {"cpu": "100m", "memory": "128Mi"}
    assert {k: str(v) for k, v in pod.spec.init_containers[0].resources.requests.items()} == {"memory": "1Gi"}
    assert pod.spec.enable_service_links is True
    assert c.ports[0].host_port == 8080 and c.ports[0].protocol == "TCP"
    assert pod.spec.init_containers[0].image_pull_policy == "Always"


def test_pod_template_does_not_get_requests_from_limits():
    from kcodec.api.core import v1

    t = defaulted(v1.PodTemplate, {"template": {"spec": {"containers": [
        {"name": "c", "image": "x:1", "resources": {"limits": {"cpu": "1"}}}]}}})
    assert t.template.spec.containers[0].resources.requests is None
    assert t.template.spec.enable_service_links is None


def test_resource_lists_round_up_to_milli():
    from kcodec.api.core import v1

    pod = defaulted(v1.Pod, {"spec": {"containers": [{"name": "c", "image": "x:1", "resources": {
        "limits": {"cpu": "0.0001", "memory": "1.5", "example.com/dev": "100u"},
        "requests": {"cpu": "-0.0001", "ephemeral-storage": "1e-4"}}}]}})
    res = pod.spec.containers[0].resources
    assert {k: str(v) for k, v in res.limits.items()} == {"cpu": "1m", "memory": "1500m", "example.com/dev": "1m"}
    # requests got the unrounded limit copies first, then the walk rounded both maps
    assert {k: str(v) for k, v in res.requests.items()} == {
        "cpu": "-1m", "ephemeral-storage": "1e-3", "memory": "1500m", "example.com/dev": "1m"}


def test_pod_level_requests_come_from_unrounded_container_requests():
    # SetDefaults_Pod (pod-level resources) runs before the walk rounds each container's
    # ResourceList, as zz_generated.defaults.go orders them: two 0.1m requests add up to
    # 0.2m at pod level, which rounds to 1m, while each container rounds to 1m itself.
    from kcodec.api.core import v1

    pod = defaulted(v1.Pod, {"spec": {
        "resources": {"limits": {"cpu": "1"}},
        "containers": [
            {"name": "a", "image": "x:1", "resources": {"requests": {"cpu": "0.0001"}}},
            {"name": "b", "image": "x:1", "resources": {"requests": {"cpu": "0.0001"}}},
        ]}})
    assert str(pod.spec.resources.requests["cpu"]) == "1m"
    assert [str(c.resources.requests["cpu"]) for c in pod.spec.containers] == ["1m", "1m"]


def test_pod_level_hugepage_limits_and_requests():
    from kcodec.api.core import v1

    # pod-level requests alone: no pod-level limits are derived in 1.36
    only_requests = defaulted(v1.Pod, {"spec": {
        "resources": {"requests": {"memory": "1Gi"}},
        "initContainers": [{"name": "s", "image": "x:1", "restartPolicy": "Always",
                            "resources": {"limits": {"memory": "256Mi", "cpu": "1"}}}],
        "containers": [{"name": "a", "image": "x:1", "resources": {"limits": {"memory": "512Mi"}}}],
    }})
    assert only_requests.spec.resources.limits is None
    assert {k: str(v) for k, v in only_requests.spec.resources.requests.items()} == {"memory": "1Gi"}

    huge = defaulted(v1.Pod, {"spec": {
        "resources": {"limits": {"cpu": "2"}},
        "containers": [{"name": "a", "image": "x:1", "resources": {"limits": {"hugepages-2Mi": "4Mi"}}}],
    }})
    assert {k: str(v) for k, v in huge.spec.resources.limits.items()} == {"cpu": "2", "hugepages-2Mi": "4Mi"}
    assert {k: str(v) for k, v in huge.spec.resources.requests.items()} == {"cpu": "2", "hugepages-2Mi": "4Mi"}

    # requests come from containers (sidecars add up, plain init containers count by their peak)
    summed = defaulted(v1.Pod, {"spec": {
        "resources": {"limits": {"memory": "2Gi"}},
        "initContainers": [{"name": "s", "image": "x:1", "restartPolicy": "Always",
                            "resources": {"requests": {"memory": "256Mi"}}},
                           {"name": "i", "image": "x:1", "resources": {"requests": {"memory": "1Gi"}}}],
        "containers": [{"name": "a", "image": "x:1", "resources": {"requests": {"memory": "512Mi"}}}],
    }})
    # containers 512Mi + sidecar 256Mi = 768Mi; the init container peaks at 1Gi + 256Mi
    assert str(summed.spec.resources.requests["memory"]) == "1280Mi"


def test_probes_lifecycle_env_and_grpc():
    from kcodec.api.core import v1

    pod = defaulted(v1.Pod, {"spec": {"containers": [{
        "name": "c", "image": "x:1",
        "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                {"name": "F", "valueFrom": {"fileKeyRef": {"volumeName": "v", "path": "p", "key": "k"}}}],
        "livenessProbe": {"httpGet": {"port": 80}},
        "readinessProbe": {"grpc": {"port": 9000}},
        "startupProbe": {"exec": {"command": ["true"]}, "periodSeconds": 5},
        "lifecycle": {"preStop": {"httpGet": {"port": 81, "path": "/stop"}}},
    }]}})
    c = pod.spec.containers[0]
    assert c.env[0].value_from.field_ref.api_version == "v1"
    assert c.env[1].value_from.file_key_ref.optional is False
    lp = c.liveness_probe
    assert (lp.timeout_seconds, lp.period_seconds, lp.success_threshold, lp.failure_threshold) == (1, 10, 1, 3)
    assert (lp.probe_handler.http_get.path, lp.probe_handler.http_get.scheme) == ("/", "HTTP")
    assert c.readiness_probe.probe_handler.grpc.service == ""
    assert c.startup_probe.period_seconds == 5
    assert (c.lifecycle.pre_stop.http_get.path, c.lifecycle.pre_stop.http_get.scheme) == ("/stop", "HTTP")


def test_ephemeral_containers_get_container_defaults():
    from kcodec.api.core import v1

    pod = defaulted(v1.Pod, {"spec": {"containers": [{"name": "c", "image": "x:1"}],
                                      "ephemeralContainers": [{"name": "debug", "image": "busybox",
                                                               "ports": [{"containerPort": 1}]}]}})
    e = pod.spec.ephemeral_containers[0].ephemeral_container_common
    assert (e.image_pull_policy, e.termination_message_path, e.termination_message_policy) == (
        "Always", "/dev/termination-log", "File")
    assert e.ports[0].protocol == "TCP"


def test_volumes():
    from kcodec.api.core import v1

    pod = defaulted(v1.Pod, {"spec": {"containers": [{"name": "c", "image": "x:1"}], "volumes": [
        {"name": "empty"},
        {"name": "s", "secret": {"secretName": "s"}},
        {"name": "cm", "configMap": {"name": "cm"}},
        {"name": "d", "downwardAPI": {"items": [{"path": "p", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
        {"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}},
                                                {"downwardAPI": {"items": [{"path": "q", "fieldRef": {"fieldPath": "x"}}]}}]}},
        {"name": "h", "hostPath": {"path": "/tmp"}},
        {"name": "r", "rbd": {"monitors": ["m"], "image": "i"}},
        {"name": "i", "iscsi": {"targetPortal": "t", "iqn": "q", "lun": 0}},
        {"name": "a", "azureDisk": {"diskName": "d", "diskURI": "u"}},
        {"name": "sio", "scaleIO": {"gateway": "g", "system": "s", "secretRef": {"name": "x"}}},
        {"name": "img", "image": {"reference": "registry/app"}},
        {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "0.0001"}}}}}},
    ]}})
    v = {vol.name: vol.volume_source for vol in pod.spec.volumes}
    assert v["empty"].empty_dir is not None
    assert v["s"].secret.default_mode == 0o644
    assert v["cm"].config_map.default_mode == 0o644
    assert v["d"].downward_api.default_mode == 0o644
    assert v["d"].downward_api.items[0].field_ref.api_version == "v1"
    proj = v["p"].projected
    assert proj.default_mode == 0o644
    assert proj.sources[0].service_account_token.expiration_seconds == 3600
    assert proj.sources[1].downward_api.items[0].field_ref.api_version == "v1"
    assert v["h"].host_path.type == ""
    assert (v["r"].rbd.rbd_pool, v["r"].rbd.rados_user, v["r"].rbd.keyring) == ("rbd", "admin", "/etc/ceph/keyring")
    assert v["i"].iscsi.iscsi_interface == "default"
    az = v["a"].azure_disk
    assert (az.caching_mode, az.fs_type, az.read_only, az.kind) == ("ReadWrite", "ext4", False, "Shared")
    assert (v["sio"].scale_io.storage_mode, v["sio"].scale_io.fs_type) == ("ThinProvisioned", "xfs")
    assert v["img"].image.pull_policy == "Always"  # ImageVolume is on in 1.36; no tag means latest
    tmpl = v["e"].ephemeral.volume_claim_template.spec
    assert tmpl.volume_mode == "Filesystem"
    assert str(tmpl.resources.requests["storage"]) == "1m"


def test_service_defaults():
    from kcodec.api.core import v1

    svc = defaulted(v1.Service, {"spec": {"ports": [{"port": 80}, {"port": 443, "targetPort": "https"}]}})
    s = svc.spec
    assert (s.type, s.session_affinity, s.session_affinity_config) == ("ClusterIP", "None", None)
    assert [p.protocol for p in s.ports] == ["TCP", "TCP"]
    assert s.ports[0].target_port == IntOrString.from_int(80)
    assert s.ports[1].target_port == IntOrString.from_string("https")
    assert s.internal_traffic_policy == "Cluster"
    assert s.external_traffic_policy == ""
    assert s.allocate_load_balancer_node_ports is None

    lb = defaulted(v1.Service, {"spec": {"type": "LoadBalancer", "sessionAffinity": "ClientIP",
                                         "ports": [{"port": 80, "targetPort": ""}]},
                                "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}, {"hostname": "h"}]}}})
    s = lb.spec
    assert s.session_affinity_config.client_ip.timeout_seconds == 10800
    assert s.external_traffic_policy == "Cluster"
    assert s.allocate_load_balancer_node_ports is True
    assert s.ports[0].target_port == IntOrString.from_int(80)
    assert [i.ip_mode for i in lb.status.load_balancer.ingress] == ["VIP", None]

    ext = defaulted(v1.Service, {"spec": {"type": "ExternalName", "externalName": "example.com"}})
    assert ext.spec.internal_traffic_policy is None
    cip = defaulted(v1.Service, {"spec": {"externalIPs": ["1.1.1.1"]}})
    assert cip.spec.external_traffic_policy == "Cluster"


def test_replication_controller():
    from kcodec.api.core import v1

    rc = defaulted(v1.ReplicationController, {"spec": {"template": {
        "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}})
    assert rc.spec.replicas == 1  # +default=1 marker
    assert rc.spec.selector == {"a": "b"}
    assert rc.metadata.labels == {"a": "b"}
    assert rc.spec.template.spec.dns_policy == "ClusterFirst"
    bare = defaulted(v1.ReplicationController, {"spec": {"replicas": 0}})
    assert bare.spec.replicas == 0 and bare.spec.selector is None


def test_small_core_kinds():
    from kcodec.api.core import v1

    assert defaulted(v1.Secret, {}).type == "Opaque"
    assert defaulted(v1.ConfigMap, {}).data == {}
    ns = defaulted(v1.Namespace, {"metadata": {"name": "team"}})
    assert ns.metadata.labels == {"kubernetes.io/metadata.name": "team"}
    assert ns.status.phase == "Active"
    assert defaulted(v1.Namespace, {"metadata": {"generateName": "t-"}}).metadata.labels is None
    node = defaulted(v1.Node, {"status": {"capacity": {"cpu": "4", "memory": "0.0001"}}})
    assert node.status.allocatable is node.status.capacity
    assert str(node.status.allocatable["memory"]) == "1m"
    pv = defaulted(v1.PersistentVolume, {"spec": {"hostPath": {"path": "/x"}, "rbd": {"image": "i"}}})
    assert (pv.status.phase, pv.spec.persistent_volume_reclaim_policy, pv.spec.volume_mode) == (
        "Pending", "Retain", "Filesystem")
    assert pv.spec.persistent_volume_source.host_path.type == ""
    assert pv.spec.persistent_volume_source.rbd.rbd_pool == "rbd"
    pvc = defaulted(v1.PersistentVolumeClaim, {})
    assert (pvc.status.phase, pvc.spec.volume_mode) == ("Pending", "Filesystem")
    ep = defaulted(v1.Endpoints, {"subsets": [{"ports": [{"port": 1}, {"port": 2, "protocol": "UDP"}]}]})
    assert [p.protocol for p in ep.subsets[0].ports] == ["TCP", "UDP"]
    lr = defaulted(v1.LimitRange, {"spec": {"limits": [
        {"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"}, "default": {"memory": "10Mi"}},
        {"type": "Pod", "max": {"cpu": "2"}}]}})
    item = lr.spec.limits[0]
    assert {k: str(v) for k, v in item.default.items()} == {"memory": "10Mi", "cpu": "2"}
    assert {k: str(v) for k, v in item.default_request.items()} == {"memory": "10Mi", "cpu": "2"}
    assert lr.spec.limits[1].default is None
    opts = defaulted(v1.PodLogOptions, {})
    assert opts.stream is None  # PodLogsQuerySplitStreams is alpha (off) in 1.36


# -- other groups ----------------------------------------------------------------------------


def test_batch_job_and_cron_job():
    from kcodec.api.batch import v1, v1beta1

    job = defaulted(v1.Job, {"spec": {"template": POD_TEMPLATE}})
    s = job.spec
    assert (s.completions, s.parallelism, s.backoff_limit) == (1, 1, 6)
    assert (s.completion_mode, s.suspend, s.pod_replacement_policy) == ("NonIndexed", False, "TerminatingOrFailed")
    assert s.manual_selector is False
    assert job.metadata.labels == {"app": "web"}
    assert s.template.spec.restart_policy == "Always"
    par = defaulted(v1.Job, {"spec": {"parallelism": 3, "backoffLimitPerIndex": 1, "template": POD_TEMPLATE,
                                      "podFailurePolicy": {"rules": [{"action": "Ignore",
                                                                      "onPodConditions": [{"type": "DisruptionTarget"}]}]}}})
    assert (par.spec.completions, par.spec.parallelism, par.spec.backoff_limit) == (None, 3, 2**31 - 1)
    assert par.spec.pod_failure_policy.rules[0].on_pod_conditions[0].status == "True"
    assert par.spec.pod_replacement_policy == "Failed"
    for mod in (v1, v1beta1):
        cj = defaulted(mod.CronJob, {"spec": {"schedule": "* * * * *",
                                              "jobTemplate": {"spec": {"template": POD_TEMPLATE}}}})
        assert (cj.spec.concurrency_policy, cj.spec.suspend) == ("Allow", False)
        assert (cj.spec.successful_jobs_history_limit, cj.spec.failed_jobs_history_limit) == (3, 1)
        assert cj.spec.job_template.spec.template.spec.scheduler_name == "default-scheduler"
        # SetDefaults_Job is a Job's, not a job template's
        assert cj.spec.job_template.spec.backoff_limit is None
        assert cj.spec.job_template.spec.manual_selector is None


def test_autoscaling():
    from kcodec.api.autoscaling import v1, v2

    h1 = defaulted(v1.HorizontalPodAutoscaler, {"spec": {"maxReplicas": 3}})
    assert h1.spec.min_replicas == 1 and h1.spec.target_cpu_utilization_percentage is None
    h2 = defaulted(v2.HorizontalPodAutoscaler, {"spec": {"maxReplicas": 3}})
    assert as_dict(h2)["spec"]["metrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
    assert h2.spec.behavior is None
    h3 = defaulted(v2.HorizontalPodAutoscaler, {"spec": {"maxReplicas": 3, "behavior": {
        "scaleDown": {"stabilizationWindowSeconds": 60}}}})
    b = as_dict(h3)["spec"]["behavior"]
    assert b["scaleUp"] == {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]}
    assert b["scaleDown"] == {"stabilizationWindowSeconds": 60, "selectPolicy": "Max", "policies": [
        {"type": "Percent", "value": 100, "periodSeconds": 15}]}


def test_networking():
    from kcodec.api.extensions import v1beta1 as ext
    from kcodec.api.networking import v1, v1beta1

    np_ = defaulted(v1.NetworkPolicy, {"spec": {"ingress": [{"ports": [{"port": 80}]}], "egress": [{}]}})
    assert np_.spec.policy_types == ["Ingress", "Egress"]
    assert np_.spec.ingress[0].ports[0].protocol == "TCP"
    assert defaulted(v1.NetworkPolicy, {"spec": {}}).spec.policy_types == ["Ingress"]
    # extensions/v1beta1 ranges over copies of the ports: Go leaves them unset
    enp = defaulted(ext.NetworkPolicy, {"spec": {"ingress": [{"ports": [{"port": 80}]}]}})
    assert enp.spec.ingress[0].ports[0].protocol is None
    assert enp.spec.policy_types == ["Ingress"]
    for mod in (v1, v1beta1):
        ic = defaulted(mod.IngressClass, {"spec": {"parameters": {"kind": "K", "name": "n"}}})
        assert ic.spec.parameters.scope == "Cluster"
    ing = defaulted(v1beta1.Ingress, {"spec": {"rules": [{"http": {"paths": [{"path": "/", "backend": {}}]}}]}})
    assert ing.spec.rules[0].ingress_rule_value.http.paths[0].path_type == "ImplementationSpecific"
    ing1 = defaulted(v1.Ingress, {"spec": {"rules": [{"http": {"paths": [{"path": "/", "backend": {}}]}}]}})
    assert ing1.spec.rules[0].ingress_rule_value.http.paths[0].path_type is None
    eing = defaulted(ext.Ingress, {"spec": {"rules": [{"http": {"paths": [{"backend": {}}]}}]}})
    assert eing.spec.rules[0].ingress_rule_value.http.paths[0].path_type == "ImplementationSpecific"


def test_rbac():
    from kcodec.api.rbac import v1, v1alpha1, v1beta1

    for mod in (v1, v1beta1):
        rb = defaulted(mod.RoleBinding, {"roleRef": {"kind": "Role", "name": "r"}, "subjects": [
            {"kind": "User", "name": "u"}, {"kind": "Group", "name": "g"}, {"kind": "ServiceAccount", "name": "s"},
            {"kind": "User", "name": "x", "apiGroup": "other"}]})
        assert rb.role_ref.api_group == "rbac.authorization.k8s.io"
        assert [s.api_group for s in rb.subjects] == [
            "rbac.authorization.k8s.io", "rbac.authorization.k8s.io", "", "other"]
    crb = defaulted(v1alpha1.ClusterRoleBinding, {"roleRef": {"kind": "ClusterRole", "name": "r"}, "subjects": [
        {"kind": "User", "name": "u"}, {"kind": "ServiceAccount", "name": "s"}]})
    assert [s.api_version for s in crb.subjects] == ["rbac.authorization.k8s.io/v1alpha1", "v1"]


def test_storage_scheduling_discovery_resource_misc():
    from kcodec.api.admissionregistration import v1 as ar1, v1beta1 as ar1b1
    from kcodec.api.authentication import v1 as authn
    from kcodec.api.certificates import v1beta1 as cert
    from kcodec.api.discovery import v1 as disc
    from kcodec.api.flowcontrol import v1 as fc1, v1beta3 as fc3
    from kcodec.api.resource import v1 as res1, v1beta1 as res1b1
    from kcodec.api.scheduling import v1 as sched, v1alpha2 as sched2
    from kcodec.api.storage import v1 as st

    sc = defaulted(st.StorageClass, {"provisioner": "p"})
    assert (sc.reclaim_policy, sc.volume_binding_mode) == ("Delete", "Immediate")
    d = defaulted(st.CSIDriver, {}).spec
    assert (d.attach_required, d.pod_info_on_mount, d.storage_capacity, d.requires_republish, d.se_linux_mount) == (
        True, False, False, False, False)
    assert (d.fs_group_policy, d.volume_lifecycle_modes) == ("ReadWriteOnceWithFSType", ["Persistent"])
    assert defaulted(sched.PriorityClass, {"value": 1}).preemption_policy == "PreemptLowerPriority"
    assert defaulted(sched2.PodGroup, {"spec": {}}).spec.disruption_mode == "Pod"
    es = defaulted(disc.EndpointSlice, {"addressType": "IPv4", "ports": [{"port": 80}]})
    assert (es.ports[0].name, es.ports[0].protocol) == ("", "TCP")
    claim = defaulted(res1.ResourceClaim, {"spec": {"devices": {"requests": [
        {"name": "r", "exactly": {"deviceClassName": "gpu", "tolerations": [{"key": "k"}]}}]}}})
    ex = claim.spec.devices.requests[0].exactly
    assert (ex.allocation_mode, ex.count, ex.tolerations[0].operator) == ("ExactCount", 1, "Equal")
    old = defaulted(res1b1.ResourceClaim, {"spec": {"devices": {"requests": [
        {"name": "a", "deviceClassName": "gpu"}, {"name": "b", "firstAvailable": [{"name": "s", "deviceClassName": "c"}]}]}}})
    a, b = old.spec.devices.requests
    assert (a.allocation_mode, a.count) == ("ExactCount", 1)
    assert (b.allocation_mode, b.count) == ("", 0)
    assert (b.first_available[0].allocation_mode, b.first_available[0].count) == ("ExactCount", 1)
    vwc = defaulted(ar1.ValidatingWebhookConfiguration, {"webhooks": [{"name": "w", "clientConfig": {
        "service": {"namespace": "n", "name": "s"}}, "rules": [{"operations": ["CREATE"]}],
        "sideEffects": "None", "admissionReviewVersions": ["v1"]}]})
    w = vwc.webhooks[0]
    assert (w.failure_policy, w.match_policy, w.timeout_seconds) == ("Fail", "Equivalent", 10)
    assert as_dict(w.namespace_selector) == {} and as_dict(w.object_selector) == {}
    assert w.client_config.service.port == 443
    assert w.rules[0].rule.scope == "*"
    mwc = defaulted(ar1b1.MutatingWebhookConfiguration, {"webhooks": [{"name": "w", "clientConfig": {}}]})
    m = mwc.webhooks[0]
    assert (m.failure_policy, m.match_policy, m.side_effects, m.timeout_seconds, m.reinvocation_policy) == (
        "Ignore", "Exact", "Unknown", 30, "Never")
    assert m.admission_review_versions == ["v1beta1"]
    plc = defaulted(fc1.PriorityLevelConfiguration, {"spec": {"type": "Limited", "limited": {
        "limitResponse": {"type": "Queue", "queuing": {}}}}})
    lim = plc.spec.limited
    assert (lim.nominal_concurrency_shares, lim.lendable_percent) == (30, 0)
    q = lim.limit_response.queuing
    assert (q.queues, q.hand_size, q.queue_length_limit) == (64, 8, 50)
    zero = defaulted(fc1.PriorityLevelConfiguration, {"spec": {"limited": {"nominalConcurrencyShares": 0}}})
    assert zero.spec.limited.nominal_concurrency_shares == 0
    b3 = defaulted(fc3.PriorityLevelConfiguration, {"spec": {"limited": {}}})
    assert b3.spec.limited.nominal_concurrency_shares == 30
    kept = defaulted(fc3.PriorityLevelConfiguration, {"metadata": {"annotations": {
        "flowcontrol.k8s.io/v1beta3-preserve-zero": ""}}, "spec": {"limited": {}}})
    assert kept.spec.limited.nominal_concurrency_shares == 0
    assert defaulted(fc1.FlowSchema, {}).spec.matching_precedence == 1000
    assert defaulted(authn.TokenRequest, {}).spec.expiration_seconds == 3600
    pcr = defaulted(cert.PodCertificateRequest, {"spec": {}})
    assert pcr.spec.max_expiration_seconds == 86400
    csr = defaulted(cert.CertificateSigningRequest, {"spec": {"request": ""}})
    assert csr.spec.usages == ["digital signature", "key encipherment"]
    assert csr.spec.signer_name == "kubernetes.io/legacy-unknown"


def test_quantity_round_up_keeps_format_and_coarse_values():
    from kcodec.api.core._defaults import round_up_milli

    q = parse_quantity("2Gi")
    assert round_up_milli(q) is q
    assert str(round_up_milli(parse_quantity("1.0001"))) == "1001m"
    assert str(round_up_milli(parse_quantity("12345n"))) == "1m"
    assert str(round_up_milli(parse_quantity("1234567n"))) == "2m"
    assert str(round_up_milli(parse_quantity("-1234567n"))) == "-2m"  # away from zero, as Go
    assert str(round_up_milli(parse_quantity("1.5e-4"))) == "1e-3"    # DecimalExponent kept
    assert round_up_milli(parse_quantity("1234567n")) == parse_quantity("2m")
    assert isinstance(round_up_milli(parse_quantity("1n")), Quantity)


# -- walker: order, coverage, idempotence ----------------------------------------------------


def test_walker_skips_types_with_nothing_to_default():
    from kcodec.api.coordination import v1 as coord
    from kcodec.api.core import v1

    assert defaulter_for(coord.Lease) is None
    assert defaulter_for(v1.ServiceAccount) is None
    assert defaulter_for(v1.PodList) is not None


def test_list_kinds_default_their_items():
    from kcodec.api.core import v1

    pods = defaulted(v1.PodList, {"items": [{"spec": {"containers": [{"name": "c", "image": "x"}]}}] * 2})
    assert [p.spec.containers[0].image_pull_policy for p in pods.items] == ["Always", "Always"]


FIXTURE_KINDS = sorted({p.name.rsplit(".", 1)[0] for p in FIXTURES.glob("*.pb")}) if FIXTURES.is_dir() else []


@pytest.fixture(scope="module")
def pb_serializer():
    from kcodec.api import scheme
    from kcodec.serializer.protobuf import Serializer

    return Serializer(scheme, scheme)


@pytest.mark.parametrize("name", FIXTURE_KINDS)
def test_defaulting_is_idempotent_on_every_fixture(name, pb_serializer):
    """Defaulting twice gives what defaulting once gave, on Go-written fuzzed objects."""
    from kcodec.schema import GroupVersionKind

    folder = fixtures_dir()
    group, version, kind = name.rsplit(".", 2)
    gvk = GroupVersionKind("" if group == "core" else group, version, kind)
    data = (folder / f"{name}.pb").read_bytes()
    obj, _ = pb_serializer.decode(data, gvk)
    set_object_defaults(obj)
    once = pb_serializer.encode(obj)
    again = obj.deep_copy()
    set_object_defaults(again)
    assert again == obj
    assert pb_serializer.encode(again) == once


def fresh_scheme():
    from kcodec.api import api_modules
    from kcodec.runtime.scheme import Scheme

    s = Scheme("test-defaulting")
    for name in api_modules():
        if name.endswith(".internal"):
            continue
        importlib.import_module(name).add_to_scheme(s)
    install(s)
    return s


def test_install_registers_defaulters_on_the_scheme():
    from kcodec.api.apps import v1
    from kcodec.api.coordination import v1 as coord

    s = fresh_scheme()
    d = v1.Deployment.from_dict({"spec": {"template": POD_TEMPLATE}})
    s.default(d)
    assert d.spec.replicas == 1
    assert d.spec.template.spec.containers[0].termination_message_policy == "File"
    lease = coord.Lease.from_dict({"spec": {}})
    s.default(lease)
    assert lease == coord.Lease.from_dict({"spec": {}})


def test_every_defaulter_table_names_real_fields():
    """Each marker names a field of its class, and each package table loads."""
    from kcodec.model import fields_of

    defaulters, markers, resource_lists = _defaulting._load_tables()
    for (cls, name), value in markers.items():
        assert name in {f.name for f in fields_of(cls)}, (cls, name)
    for cls, name in resource_lists:
        assert name in {f.name for f in fields_of(cls)}, (cls, name)
    assert len(defaulters) > 60


def test_defaulting_benchmark_runs_once(monkeypatch, kcodec_mode):
    """asv's DefaultDeployments works (on 3 Deployments; timings live in asv only)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "asv_bench"))
    from benchmarks import bench_defaulting

    monkeypatch.setattr(bench_defaulting, "DEPLOYMENTS", 3)
    bench = bench_defaulting.DefaultDeployments()
    bench.setup(kcodec_mode)
    bench.time_default_fresh(kcodec_mode)
    bench.time_default_again(kcodec_mode)
    assert [d.metadata.name for d in bench.fresh] == ["web-0", "web-1", "web-2"]
    assert bench.fresh == bench.defaulted
    assert bench.fresh[0].spec.template.spec.containers[1].image_pull_policy == "Always"


def _csr_pem(org: str, cn: str, dns: list[str] | None = None) -> bytes:
    pytest.importorskip("cryptography")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    builder = x509.CertificateSigningRequestBuilder().subject_name(x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, org), x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dns]), critical=False)
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


@pytest.mark.parametrize("org, cn, dns, usages, signer", [
    ("system:nodes", "system:node:n1", None, ["digital signature", "client auth"],
     "kubernetes.io/kube-apiserver-client-kubelet"),
    ("system:nodes", "system:node:n1", None, ["digital signature", "key encipherment", "client auth"],
     "kubernetes.io/kube-apiserver-client-kubelet"),
    ("system:nodes", "system:node:n1", ["n1.example.com"], ["digital signature", "server auth"],
     "kubernetes.io/kubelet-serving"),
    ("system:nodes", "system:node:n1", None, None, "kubernetes.io/legacy-unknown"),  # default usages
    ("system:nodes", "someone", None, ["digital signature", "client auth"], "kubernetes.io/legacy-unknown"),
    ("team", "system:node:n1", None, ["digital signature", "client auth"], "kubernetes.io/legacy-unknown"),
])
def test_v1beta1_csr_signer_name_from_the_request(org, cn, dns, usages, signer):
    from kcodec.api.certificates import v1beta1

    csr = v1beta1.CertificateSigningRequest(spec=v1beta1.CertificateSigningRequestSpec(
        request=_csr_pem(org, cn, dns), usages=usages))
    set_object_defaults(csr)
    assert csr.spec.signer_name == signer
    assert csr.spec.usages == (usages if usages is not None else ["digital signature", "key encipherment"])


def test_csr_conditions_and_unparseable_requests():
    from kcodec.api.certificates import v1, v1beta1

    bad = v1beta1.CertificateSigningRequest(spec=v1beta1.CertificateSigningRequestSpec(
        request=b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", usages=[]))
    set_object_defaults(bad)
    assert bad.spec.signer_name == "kubernetes.io/legacy-unknown"
    assert bad.spec.usages == []  # only a nil list is defaulted
    for mod in (v1, v1beta1):
        c = defaulted(mod.CertificateSigningRequest, {"status": {"conditions": [{"type": "Approved"}]}})
        assert c.status.conditions[0].status == "True"


def test_device_taints_record_when_they_were_added():
    import time

    from kcodec.api.resource import v1

    before = int(time.time())
    rs = defaulted(v1.ResourceSlice, {"spec": {"driver": "d", "pool": {"name": "p"}, "devices": [
        {"name": "gpu0", "taints": [{"key": "k", "effect": "NoSchedule"},
                                    {"key": "j", "effect": "NoSchedule", "timeAdded": "2020-01-02T03:04:05Z"}]}]}})
    added, given = (t.time_added for t in rs.spec.devices[0].taints)
    after = int(time.time())
    assert before <= added.unix_seconds() <= after
    assert added.nanosecond == 0  # truncated to the second
    assert as_dict(rs)["spec"]["devices"][0]["taints"][1]["timeAdded"] == "2020-01-02T03:04:05Z"


def _leaves(tree, prefix=""):
    """Flatten a JSON tree into {path: value} for its scalar leaves and empty containers."""
    out = {}
    if isinstance(tree, dict) and tree:
        for k, v in tree.items():
            out.update(_leaves(v, f"{prefix}.{k}"))
    elif isinstance(tree, list) and tree:
        for i, v in enumerate(tree):
            out.update(_leaves(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = tree
    return out


_HANDLER = {"httpGet": {"port": 1}}
_CONTAINER = {
    "name": "c", "ports": [{"containerPort": 1}],
    "env": [{"name": "e", "valueFrom": {"fieldRef": {"fieldPath": "f"}}}],
    "lifecycle": {"postStart": _HANDLER, "preStop": _HANDLER},
    "livenessProbe": _HANDLER, "readinessProbe": _HANDLER, "startupProbe": {"grpc": {"port": 1}},
}
_VOLUME_SOURCES = {
    "azureDisk": {"diskName": "d", "diskURI": "u"}, "configMap": {}, "downwardAPI": {"items": [
        {"path": "p", "fieldRef": {"fieldPath": "f"}}]}, "hostPath": {"path": "/"}, "iscsi": {
        "targetPortal": "t", "iqn": "i", "lun": 0}, "projected": {"sources": [
        {"downwardAPI": {"items": [{"path": "p", "fieldRef": {"fieldPath": "f"}}]}},
        {"serviceAccountToken": {"path": "t"}}]}, "rbd": {"monitors": ["m"], "image": "i"},
    "scaleIO": {"gateway": "g", "system": "s", "secretRef": {}}, "secret": {},
}


def test_workload_defaults_under_a_pod_template():
    """Port of upstream TestWorkloadDefaults: every default a PodTemplateSpec's contents
    get (a change here would roll every workload on an API server upgrade)."""
    from kcodec.api.core import v1

    spec = {
        "containers": [dict(_CONTAINER)], "initContainers": [dict(_CONTAINER)],
        "ephemeralContainers": [{k: v for k, v in _CONTAINER.items() if k not in ("livenessProbe", "readinessProbe", "startupProbe")}
                                | {"livenessProbe": _HANDLER, "readinessProbe": _HANDLER}],
        "volumes": [{"name": f"v{i}", **{src: body}} for i, (src, body) in enumerate(_VOLUME_SOURCES.items())]
                   + [{"name": "empty"}],
    }
    given = _leaves({"spec": copy.deepcopy(spec)})
    rc = defaulted(v1.ReplicationController, {"spec": {"template": {"spec": spec}}})
    after = _leaves({"spec": as_dict(rc.spec.template.spec)})
    # "resources": {} is the encoding of an empty value struct, not a default
    added = {k: v for k, v in after.items() if k not in given and v is not None and not k.endswith(".resources")}
    added.update({k: v for k, v in after.items() if k in given and given[k] != v})
    per_container = {
        ".env[0].valueFrom.fieldRef.apiVersion": "v1", ".imagePullPolicy": "IfNotPresent",
        ".lifecycle.postStart.httpGet.path": "/", ".lifecycle.postStart.httpGet.scheme": "HTTP",
        ".lifecycle.preStop.httpGet.path": "/", ".lifecycle.preStop.httpGet.scheme": "HTTP",
        ".livenessProbe.failureThreshold": 3, ".livenessProbe.httpGet.path": "/",
        ".livenessProbe.httpGet.scheme": "HTTP", ".livenessProbe.periodSeconds": 10,
        ".livenessProbe.successThreshold": 1, ".livenessProbe.timeoutSeconds": 1,
        ".ports[0].protocol": "TCP",
        ".readinessProbe.failureThreshold": 3, ".readinessProbe.httpGet.path": "/",
        ".readinessProbe.httpGet.scheme": "HTTP", ".readinessProbe.periodSeconds": 10,
        ".readinessProbe.successThreshold": 1, ".readinessProbe.timeoutSeconds": 1,
        ".terminationMessagePath": "/dev/termination-log", ".terminationMessagePolicy": "File",
    }
    startup = {".startupProbe.failureThreshold": 3, ".startupProbe.grpc.service": "",
               ".startupProbe.periodSeconds": 10, ".startupProbe.successThreshold": 1,
               ".startupProbe.timeoutSeconds": 1}
    expected = {}
    for kind in ("containers", "initContainers"):
        expected.update({f".spec.{kind}[0]{k}": v for k, v in (per_container | startup).items()})
    expected.update({f".spec.ephemeralContainers[0]{k}": v for k, v in per_container.items()})
    vol = {name: i for i, name in enumerate(_VOLUME_SOURCES)}
    expected.update({
        f".spec.volumes[{vol['azureDisk']}].azureDisk.cachingMode": "ReadWrite",
        f".spec.volumes[{vol['azureDisk']}].azureDisk.fsType": "ext4",
        f".spec.volumes[{vol['azureDisk']}].azureDisk.kind": "Shared",
        f".spec.volumes[{vol['azureDisk']}].azureDisk.readOnly": False,
        f".spec.volumes[{vol['configMap']}].configMap.defaultMode": 420,
        f".spec.volumes[{vol['downwardAPI']}].downwardAPI.defaultMode": 420,
        f".spec.volumes[{vol['downwardAPI']}].downwardAPI.items[0].fieldRef.apiVersion": "v1",
        f".spec.volumes[{vol['hostPath']}].hostPath.type": "",
        f".spec.volumes[{vol['iscsi']}].iscsi.iscsiInterface": "default",
        f".spec.volumes[{vol['projected']}].projected.defaultMode": 420,
        f".spec.volumes[{vol['projected']}].projected.sources[0].downwardAPI.items[0].fieldRef.apiVersion": "v1",
        f".spec.volumes[{vol['projected']}].projected.sources[1].serviceAccountToken.expirationSeconds": 3600,
        f".spec.volumes[{vol['rbd']}].rbd.keyring": "/etc/ceph/keyring",
        f".spec.volumes[{vol['rbd']}].rbd.pool": "rbd",
        f".spec.volumes[{vol['rbd']}].rbd.user": "admin",
        f".spec.volumes[{vol['scaleIO']}].scaleIO.fsType": "xfs",
        f".spec.volumes[{vol['scaleIO']}].scaleIO.storageMode": "ThinProvisioned",
        f".spec.volumes[{vol['secret']}].secret.defaultMode": 420,
        f".spec.volumes[{len(vol)}].emptyDir": {},
        ".spec.dnsPolicy": "ClusterFirst", ".spec.restartPolicy": "Always",
        ".spec.schedulerName": "default-scheduler", ".spec.securityContext": {},
        ".spec.terminationGracePeriodSeconds": 30,
    })
    assert added == expected


# What defaulting adds to the Go-written HEAD fixtures (fuzzed objects with nearly every
# field set): only the Namespace name label and, for the Pod, requests copied from limits.
FIXTURE_ADDITIONS = {
    "core.v1.Namespace": {".metadata.labels.kubernetes.io/metadata.name"},
    "core.v1.Pod": {".spec.initContainers[0].resources.requests.limitsKey",
                    ".spec.containers[0].resources.requests.limitsKey"},
}


@pytest.mark.parametrize("name", FIXTURE_KINDS)
def test_defaulting_fixtures_only_fills_unset_fields(name, pb_serializer):
    from kcodec.schema import GroupVersionKind

    group, version, kind = name.rsplit(".", 2)
    data = (fixtures_dir() / f"{name}.pb").read_bytes()
    obj, _ = pb_serializer.decode(data, GroupVersionKind("" if group == "core" else group, version, kind))
    before = _leaves(obj.to_dict())
    set_object_defaults(obj)
    after = _leaves(obj.to_dict())
    assert {p: after.get(p) for p in before if after.get(p) != before[p]} == {}
    assert set(after) - set(before) == FIXTURE_ADDITIONS.get(name, set())
    if name == "core.v1.Namespace":
        assert obj.metadata.labels["kubernetes.io/metadata.name"] == obj.metadata.name
    if name == "core.v1.Pod":
        for c in obj.spec.containers:
            assert c.resources.requests["limitsKey"] == c.resources.limits["limitsKey"]


from kcodec.model import Int32, Struct, field  # noqa: E402


class WalkLeaf(Struct):
    """Made-up types for the walker-order test (module level: annotations resolve here)."""

    name: str = field(1, "name", omitempty=True)
    mode: str = field(2, "mode", omitempty=True)


class WalkMiddle(Struct):
    count: Int32 | None = field(1, "count", omitempty=True)
    leaf: WalkLeaf | None = field(2, "leaf", omitempty=True)


class WalkTop(Struct):
    first: WalkMiddle = field(1, "first")
    missing: WalkMiddle | None = field(2, "missing", omitempty=True)
    many: list[WalkLeaf] | None = field(3, "many", omitempty=True)
    by_key: dict[str, WalkLeaf] | None = field(4, "byKey", omitempty=True)


def test_walker_order_matches_defaulter_gen(monkeypatch):
    """The compiled walk on made-up types: own defaulter first, then fields in declaration
    order, each field's marker before the walk into its value; nil pointers are skipped,
    every list and map element walked."""
    Top, Middle, Leaf = WalkTop, WalkMiddle, WalkLeaf
    log: list[str] = []

    def leaf_defaults(obj):
        log.append(f"leaf:{obj.name}:{obj.mode}")

    def middle_defaults(obj):
        log.append(f"middle:count={obj.count}")
        obj.leaf = obj.leaf or Leaf(name="made")

    def top_defaults(obj):
        log.append("top")

    monkeypatch.setattr(_defaulting, "_defaulters", {**_defaulting._defaulters, Top: top_defaults,
                                                     Middle: middle_defaults, Leaf: leaf_defaults})
    monkeypatch.setattr(_defaulting, "_markers", {**_defaulting._markers, (Middle, "count"): 7,
                                                  (Leaf, "mode"): "marked"})
    monkeypatch.setattr(_defaulting, "_compiled", {})
    obj = Top(many=[Leaf(name="a"), Leaf(name="b", mode="given")], by_key={"k": Leaf(name="m")})
    set_object_defaults(obj)
    # a type's own defaulter sees its fields before their markers apply (gengo writes the
    # node's calls, then its field nodes: marker, calls, children)
    assert log == ["top", "middle:count=None", "leaf:made:", "leaf:a:", "leaf:b:given", "leaf:m:"]
    assert obj.first.leaf.mode == "marked" and obj.by_key["k"].mode == "marked"
    assert obj.first.count == 7 and obj.missing is None
    assert [leaf.mode for leaf in obj.many] == ["marked", "given"]
    assert defaulter_for(Leaf) is not None


def test_walker_reaches_fields_named_like_python_keywords(monkeypatch):
    """A field whose name is a reserved word (possible for a class built at run time: a
    slot may be called ``class``) is read and written through getattr/setattr by the
    generated walk, with its marker and its nested walk as for any other field."""
    ns = {
        "__annotations__": {"class": "WalkLeaf", "for": "str"},
        "__module__": __name__,
        "class": field(1, "class", omitempty=True),
        "for": field(2, "for", omitempty=True),
    }
    Odd = type(Struct)("Odd", (Struct,), ns)
    seen: list[str] = []
    monkeypatch.setattr(_defaulting, "_defaulters",
                        {**_defaulting._defaulters, WalkLeaf: lambda o: seen.append(o.name)})
    monkeypatch.setattr(_defaulting, "_markers", {**_defaulting._markers, (Odd, "for"): "marked"})
    monkeypatch.setattr(_defaulting, "_compiled", {})
    obj = Odd()
    setattr(obj, "class", WalkLeaf(name="inner"))
    set_object_defaults(obj)
    assert getattr(obj, "for") == "marked" and seen == ["inner"]
    setattr(obj, "for", "given")
    set_object_defaults(obj)
    assert getattr(obj, "for") == "given" and seen == ["inner", "inner"]
