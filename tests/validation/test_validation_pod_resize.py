"""pods/resize: k/k pkg/apis/core/validation/validation.go ValidatePodResize,
validateContainerResize, dropCPUMemoryResourcesFromContainer, isPodResizeRequestSupported
(cases after validation_test.go TestValidatePodResize)."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.core import validation as cv


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def pod(resources: dict, *, resize_policy=None, init=None, annotations=None, os=None, pod_resources=None):
    ctr = {"name": "c", "image": "i", "resources": resources}
    if resize_policy:
        ctr["resizePolicy"] = resize_policy
    spec: dict = {"containers": [ctr]}
    if init:
        spec["initContainers"] = init
    if os:
        spec["os"] = {"name": os}
    if pod_resources:
        spec["resources"] = pod_resources
    meta = {"name": "p", "namespace": "d", "resourceVersion": "1"}
    if annotations:
        meta["annotations"] = annotations
    return internal({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})


def msgs(errs):
    return [str(e) for e in errs]


BURSTABLE = {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": {"cpu": "200m", "memory": "200Mi"}}


def test_cpu_and_memory_may_change():
    old = pod(BURSTABLE)
    new = pod({"requests": {"cpu": "150m", "memory": "150Mi"}, "limits": {"cpu": "300m", "memory": "300Mi"}})
    assert msgs(cv.validate_pod_resize(new, old)) == []


def test_memory_limit_decrease_needs_restart_policy():
    old = pod(BURSTABLE)
    new = pod({"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": {"cpu": "200m", "memory": "150Mi"}})
    assert msgs(cv.validate_pod_resize(new, old)) == [
        "spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be decreased unless "
        "resizePolicy is RestartContainer"]
    policy = [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]
    smaller = {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": {"cpu": "200m", "memory": "150Mi"}}
    assert msgs(cv.validate_pod_resize(pod(smaller, resize_policy=policy), pod(BURSTABLE, resize_policy=policy))) == []


def test_removing_requests_and_qos_change():
    old = pod(BURSTABLE)
    new = pod({"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}})
    assert msgs(cv.validate_pod_resize(new, old)) == [
        "spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed",
        "spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed",
    ]
    guaranteed = {"requests": {"cpu": "200m", "memory": "200Mi"}, "limits": {"cpu": "200m", "memory": "200Mi"}}
    assert msgs(cv.validate_pod_resize(pod(guaranteed), old)) == [
        'spec: Invalid value: "": Pod QOS Class may not change as a result of resizing']


def test_other_resources_are_immutable():
    old = pod({"requests": {"cpu": "100m", "ephemeral-storage": "1Gi"}})
    new = pod({"requests": {"cpu": "200m", "ephemeral-storage": "2Gi"}})
    assert msgs(cv.validate_pod_resize(new, old)) == ["spec: Forbidden: only cpu and memory resources are mutable"]


def test_forbidden_pods():
    assert msgs(cv.validate_pod_resize(pod(BURSTABLE, pod_resources={"requests": {"cpu": "1"}}), pod(BURSTABLE))) == [
        "[]: Forbidden: pods with pod-level resources cannot be resized"]
    mirror = {"kubernetes.io/config.mirror": "x"}
    assert msgs(cv.validate_pod_resize(pod(BURSTABLE, annotations=mirror), pod(BURSTABLE, annotations=mirror))) == [
        "[]: Forbidden: static pods cannot be resized"]
    assert msgs(cv.validate_pod_resize(pod(BURSTABLE, os="windows"), pod(BURSTABLE, os="windows"))) == [
        "[]: Forbidden: windows pods cannot be resized"]


def test_init_containers():
    init = [{"name": "i", "image": "i", "resources": {"requests": {"cpu": "100m"}}}]
    changed = [{"name": "i", "image": "i", "resources": {"requests": {"cpu": "200m"}}}]
    assert msgs(cv.validate_pod_resize(pod(BURSTABLE, init=changed), pod(BURSTABLE, init=init))) == [
        "spec: Forbidden: resources for non-sidecar init containers are immutable"]
    sidecar = [dict(init[0], restartPolicy="Always")]
    sidecar_changed = [dict(changed[0], restartPolicy="Always")]
    assert msgs(cv.validate_pod_resize(pod(BURSTABLE, init=sidecar_changed), pod(BURSTABLE, init=sidecar))) == []
