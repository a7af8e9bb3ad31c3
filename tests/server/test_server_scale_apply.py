"""Managed fields through the scale subresource over HTTP: ``kubectl scale`` (a merge patch of
``/scale``) and server-side apply of autoscaling/v1 Scale, on Deployments, ReplicaSets,
StatefulSets and a custom resource with a scale subresource at a custom replicas path.

Expectations: k8s.io/apimachinery pkg/util/managedfields/scalehandler.go as the Scale REST
storages use it (k8s.io/kubernetes pkg/registry/apps/{deployment,replicaset,statefulset}/storage
scaleUpdatedObjectInfo, apiextensions-apiserver pkg/registry/customresource/etcd.go): the
writer's entry lands on the workload with ``subresource: scale`` owning ``f:spec.f:replicas``
(with no ``time``: ToParent looks the time up among the workload's own entries), the previous
owners lose the path, a Scale GET carries no managedFields, and applies conflict with the
owners in both directions with conflict.go's texts.
"""
from __future__ import annotations

import json
import uuid

import pytest

from kcodec.testing import APIServer
from _kubectl import kubectl, wait_established

APPLY = "application/apply-patch+yaml"
REPLICAS = {"f:spec": {"f:replicas": {}}}


@pytest.fixture(scope="module")
def server():
    with APIServer() as s:
        yield s


def get(server, *what: str) -> dict:
    return json.loads(kubectl(server, "get", *what, "-o", "json", "--show-managed-fields").stdout)


def entries(server, *what: str) -> list[dict]:
    return get(server, *what)["metadata"].get("managedFields") or []


def by_manager(server, *what: str) -> dict[tuple[str, str, str], dict]:
    return {(e["manager"], e["operation"], e.get("subresource", "")): e for e in entries(server, *what)}


def workload(kind: str, name: str, replicas: int) -> str:
    extra = f"  serviceName: {name}\n" if kind == "StatefulSet" else ""
    return (f"apiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: {name}, namespace: default}}\n"
            f"spec:\n  replicas: {replicas}\n{extra}  selector: {{matchLabels: {{app: {name}}}}}\n"
            f"  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
            f"    spec: {{containers: [{{name: c, image: nginx}}]}}\n")


KINDS = ["Deployment", "ReplicaSet", "StatefulSet"]


def _name(kind: str) -> str:
    return f"{kind.lower()}-{uuid.uuid4().hex[:6]}"


@pytest.mark.parametrize("kind", KINDS)
def test_kubectl_scale_records_a_scale_entry_that_later_applies_conflict_with(server, kind: str) -> None:
    name = _name(kind)
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=workload(kind, name, 2))
    kubectl(server, "scale", kind.lower(), name, "--replicas=3")
    assert get(server, kind.lower(), name)["spec"]["replicas"] == 3
    owners = by_manager(server, kind.lower(), name)
    assert set(owners) == {("kubectl", "Apply", ""), ("kubectl", "Update", "scale")}
    scale_entry = owners[("kubectl", "Update", "scale")]
    assert scale_entry == {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": REPLICAS,
                           "manager": "kubectl", "operation": "Update", "subresource": "scale"}
    # the applier lost the replicas to the scale writer (ToParent "steals" the path)
    assert "f:replicas" not in owners[("kubectl", "Apply", "")]["fieldsV1"]["f:spec"]

    # a Scale read carries no managedFields (scaleFrom<Kind> copies name, uid, rv, creation only)
    resource = kind.lower() + "s"
    scale = json.loads(kubectl(server, "get", "--raw", f"/apis/apps/v1/namespaces/default/{resource}/{name}/scale").stdout)
    assert "managedFields" not in scale["metadata"] and scale["spec"] == {"replicas": 3}

    # re-applying the old replicas conflicts with the scale writer
    r = kubectl(server, "apply", "--server-side", "-f", "-", stdin=workload(kind, name, 2), ok=False)
    assert r.returncode != 0
    assert ('Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: '
            ".spec.replicas") in r.stderr
    # the same value is shared ownership
    kubectl(server, "apply", "--server-side", "--field-manager", "deployer", "-f", "-",
            stdin=workload(kind, name, 3))
    owners = by_manager(server, kind.lower(), name)
    assert owners[("deployer", "Apply", "")]["fieldsV1"]["f:spec"]["f:replicas"] == {}
    assert owners[("kubectl", "Update", "scale")]["fieldsV1"] == REPLICAS


def _scale_api(server, kind: str):
    from kubernetes import client, config

    apps = client.AppsV1Api(config.new_client_from_config(server.kubeconfig))
    return {"Deployment": apps.patch_namespaced_deployment_scale,
            "ReplicaSet": apps.patch_namespaced_replica_set_scale,
            "StatefulSet": apps.patch_namespaced_stateful_set_scale}[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_apply_to_scale_conflicts_and_forces_as_go(server, kind: str) -> None:
    from kubernetes.client.rest import ApiException

    patch_scale = _scale_api(server, kind)
    name = _name(kind)
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=workload(kind, name, 2))
    body = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": 5}}

    with pytest.raises(ApiException) as err:
        patch_scale(name, "default", body, field_manager="hpa", _content_type=APPLY)
    status = json.loads(err.value.body)
    assert err.value.status == 409 and status["reason"] == "Conflict"
    # the applier's entry, seen through the Scale, is an Apply entry: printed without version
    assert status["message"] == 'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas'
    assert status["details"]["causes"] == [
        {"reason": "FieldManagerConflict", "message": 'conflict with "kubectl"', "field": ".spec.replicas"}]

    scale = patch_scale(name, "default", body, field_manager="hpa", force=True, _content_type=APPLY)
    assert scale.spec.replicas == 5 and scale.metadata.managed_fields is None
    owners = by_manager(server, kind.lower(), name)
    assert owners[("hpa", "Apply", "scale")] == {"apiVersion": "apps/v1", "fieldsType": "FieldsV1",
                                                  "fieldsV1": REPLICAS, "manager": "hpa", "operation": "Apply",
                                                  "subresource": "scale"}
    assert "f:replicas" not in owners[("kubectl", "Apply", "")]["fieldsV1"]["f:spec"]
    assert get(server, kind.lower(), name)["spec"]["replicas"] == 5

    # the workload's applier now conflicts with the Scale's applier
    r = kubectl(server, "apply", "--server-side", "-f", "-", stdin=workload(kind, name, 2), ok=False)
    assert 'Apply failed with 1 conflict: conflict with "hpa" with subresource "scale": .spec.replicas' in r.stderr

    # a re-apply of the same Scale is a no-op for ownership; kubectl scale then takes the path
    patch_scale(name, "default", body, field_manager="hpa", _content_type=APPLY)
    kubectl(server, "scale", kind.lower(), name, "--replicas=4")
    owners = by_manager(server, kind.lower(), name)
    assert ("hpa", "Apply", "scale") not in owners
    assert owners[("kubectl", "Update", "scale")]["fieldsV1"] == REPLICAS


def test_apply_to_scale_of_an_unowned_replicas_starts_with_before_first_apply(server) -> None:
    # skipnonapplied.go: an object without managedFields gets a "before-first-apply" Update
    # entry for what it holds before the first apply; through /scale that is spec.replicas
    from kubernetes.client.rest import ApiException

    patch_scale = _scale_api(server, "Deployment")
    name = _name("Deployment")
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=workload("Deployment", name, 2))
    kubectl(server, "patch", "deployment", name, "--type=json",
            "-p", '[{"op": "replace", "path": "/metadata/managedFields", "value": [{}]}]')
    assert entries(server, "deployment", name) == []
    body = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": name}, "spec": {"replicas": 6}}
    with pytest.raises(ApiException) as err:
        patch_scale(name, "default", body, field_manager="hpa", _content_type=APPLY)
    # the Update entry was recorded by the Scale's field manager (conflict.go prints no time:
    # manager identifiers never carry one)
    assert json.loads(err.value.body)["message"] == (
        'Apply failed with 1 conflict: conflict with "before-first-apply" with subresource "scale" using '
        "autoscaling/v1: .spec.replicas")
    patch_scale(name, "default", body, field_manager="hpa", force=True, _content_type=APPLY)
    assert set(by_manager(server, "deployment", name)) == {("hpa", "Apply", "scale")}


CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: pools.scale.example.com
spec:
  group: scale.example.com
  scope: Namespaced
  names: {plural: pools, singular: pool, kind: Pool}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              flavor: {type: string}
          status:
            type: object
            properties:
              size: {type: integer}
"""


def _pool(name: str, size: int) -> str:
    return (f"apiVersion: scale.example.com/v1\nkind: Pool\nmetadata: {{name: {name}, namespace: default}}\n"
            f"spec: {{size: {size}, flavor: small}}\n")


def test_custom_resource_scale_maps_to_its_replicas_path(server) -> None:
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException

    kubectl(server, "apply", "-f", "-", stdin=CRD)
    wait_established(server, "pools.scale.example.com")
    name = f"pool-{uuid.uuid4().hex[:6]}"
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=_pool(name, 1))
    kubectl(server, "scale", "pool", name, "--replicas=3")
    owners = by_manager(server, "pool", name)
    assert owners[("kubectl", "Update", "scale")] == {
        "apiVersion": "scale.example.com/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:size": {}}},
        "manager": "kubectl", "operation": "Update", "subresource": "scale"}
    assert owners[("kubectl", "Apply", "")]["fieldsV1"] == {"f:spec": {"f:flavor": {}}}
    r = kubectl(server, "apply", "--server-side", "-f", "-", stdin=_pool(name, 1), ok=False)
    assert ('Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using '
            "scale.example.com/v1: .spec.size") in r.stderr

    api = client.CustomObjectsApi(config.new_client_from_config(server.kubeconfig))
    body = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": name}, "spec": {"replicas": 7}}

    def apply_scale(**kw):
        return api.patch_namespaced_custom_object_scale("scale.example.com", "v1", "default", "pools", name, body,
                                                        field_manager="autoscaler", _content_type=APPLY, **kw)
    with pytest.raises(ApiException) as err:
        apply_scale()
    assert json.loads(err.value.body)["message"] == (
        'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using autoscaling/v1: '
        ".spec.replicas")
    apply_scale(force=True)
    # customresource_handler.go serveScale: a custom resource's patch types, no strategic merge patch
    r = kubectl(server, "patch", "pool", name, "--subresource=scale", "--type=strategic", "-p",
                '{"spec":{"replicas":8}}', ok=False)
    assert ("the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml") in r.stderr
    owners = by_manager(server, "pool", name)
    assert set(owners) == {("kubectl", "Apply", ""), ("autoscaler", "Apply", "scale")}
    assert owners[("autoscaler", "Apply", "scale")]["fieldsV1"] == {"f:spec": {"f:size": {}}}
    assert get(server, "pool", name)["spec"] == {"size": 7, "flavor": "small"}


def test_replication_controller_scale_put_records_its_manager(server) -> None:
    # replicationcontroller/storage: the core mapping is v1 -> spec.replicas; a PUT of the
    # Scale (update.go) is recorded like a patch
    from kubernetes import client, config

    core = client.CoreV1Api(config.new_client_from_config(server.kubeconfig))
    name = f"rc-{uuid.uuid4().hex[:6]}"
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=(
        f"apiVersion: v1\nkind: ReplicationController\nmetadata: {{name: {name}, namespace: default}}\n"
        f"spec:\n  replicas: 1\n  selector: {{app: {name}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
        f"    spec: {{containers: [{{name: c, image: nginx}}]}}\n"))
    scale = core.read_namespaced_replication_controller_scale(name, "default")
    assert scale.metadata.managed_fields is None
    scale.spec.replicas = 4
    out = core.replace_namespaced_replication_controller_scale(name, "default", scale, field_manager="rc-scaler")
    assert out.spec.replicas == 4 and out.metadata.managed_fields is None
    owners = by_manager(server, "rc", name)
    assert owners[("rc-scaler", "Update", "scale")] == {
        "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": REPLICAS, "manager": "rc-scaler",
        "operation": "Update", "subresource": "scale"}
    assert "f:replicas" not in owners[("kubectl", "Apply", "")]["fieldsV1"]["f:spec"]


def test_custom_resource_without_replicas(server) -> None:
    # customresource/etcd.go: a Scale read needs specReplicasPath (500 without it); an update
    # must set the replicas (the old Scale carries invalidSpecReplicas); kubectl scale sets them
    kubectl(server, "apply", "-f", "-", stdin=CRD)
    wait_established(server, "pools.scale.example.com")
    name = f"pool-{uuid.uuid4().hex[:6]}"
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=(
        f"apiVersion: scale.example.com/v1\nkind: Pool\nmetadata: {{name: {name}, namespace: default}}\n"
        "spec: {flavor: big}\n"))
    url = f"/apis/scale.example.com/v1/namespaces/default/pools/{name}/scale"
    r = kubectl(server, "get", "--raw", url, ok=False)
    assert 'Internal error occurred: the spec replicas field ".spec.size" does not exist' in r.stderr
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException

    api = client.CustomObjectsApi(config.new_client_from_config(server.kubeconfig))
    with pytest.raises(ApiException) as err:
        api.patch_namespaced_custom_object_scale("scale.example.com", "v1", "default", "pools", name,
                                                 {"metadata": {}}, _content_type="application/merge-patch+json")
    status = json.loads(err.value.body)
    assert (err.value.status, status["reason"], status["message"]) == (
        400, "BadRequest", 'the spec replicas field ".spec.size" cannot be empty')
    kubectl(server, "scale", "pool", name, "--replicas=2")
    assert get(server, "pool", name)["spec"] == {"flavor": "big", "size": 2}
    # nobody owned the replicas, so the Scale had no managedFields: skipnonapplied.go leaves
    # an update of an untracked object untracked, and the workload's entries stay as they were
    assert set(by_manager(server, "pool", name)) == {("kubectl", "Apply", "")}
