"""kcodec.server.openapi against what kubectl v1.32 needs of it, and kcodec.patch against the
patches kubectl sends.

A small aiohttp app serves legacy discovery, the OpenAPI documents and a map of objects
(GET, POST, PATCH with kcodec.patch) on 127.0.0.1; kubectl runs against it:
``kubectl explain`` reads /openapi/v3 (k8s.io/kubectl pkg/explain/v2), and ``kubectl apply``
finds the fieldValidation parameter on the PATCH operation (k8s.io/cli-runtime
pkg/resource/query_param_verifier_v3.go) and builds its strategic merge patch from the
``x-kubernetes-patch-*`` extensions of the v3 schemas (k8s.io/kubectl pkg/cmd/apply/patcher.go);
the test checks that patch against kcodec's create_three_way_merge_patch.
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import threading
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

from kcodec import gojson
from kcodec.api.apps import v1 as appsv1
from kcodec.api.core import v1 as corev1
from kcodec.patch import (
    create_three_way_merge_patch, json_patch, merge_patch, require_key_unchanged,
    require_metadata_key_unchanged, strategic_merge_patch,
)
from kcodec.server.openapi import OpenAPIService, definition_name, operation_id_and_tags

aiohttp = pytest.importorskip("aiohttp")
from aiohttp import web  # noqa: E402

KUBECTL = shutil.which("kubectl")

_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
RESOURCES = {
    "apps/v1": [
        {"name": "deployments", "singularName": "deployment", "namespaced": True, "kind": "Deployment",
         "verbs": _VERBS, "shortNames": ["deploy"]},
        {"name": "deployments/status", "singularName": "", "namespaced": True, "kind": "Deployment",
         "verbs": ["get", "patch", "update"]},
        {"name": "deployments/scale", "singularName": "", "namespaced": True, "kind": "Scale",
         "group": "autoscaling", "version": "v1", "verbs": ["get", "patch", "update"]},
    ],
    "v1": [
        {"name": "configmaps", "singularName": "configmap", "namespaced": True, "kind": "ConfigMap",
         "verbs": _VERBS, "shortNames": ["cm"]},
        {"name": "namespaces", "singularName": "namespace", "namespaced": False, "kind": "Namespace",
         "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"], "shortNames": ["ns"]},
    ],
}
CLASSES = {"deployments": appsv1.Deployment, "configmaps": corev1.ConfigMap}


class FakeCluster:
    """Discovery, OpenAPI and an object map: just what kubectl explain/apply talk to."""

    def __init__(self) -> None:
        self.openapi = OpenAPIService(RESOURCES)
        self.objects: dict[str, Any] = {}
        self.requests: list[tuple[str, str, str, str, bytes]] = []
        self.rv = 1

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.requests.append((request.method, request.path, request.query_string,
                              request.headers.get("Content-Type", ""), body))
        got = self.openapi.handle(request.method, request.path,
                                  {k: request.query.getall(k) for k in request.query}, request.headers)
        if got is not None:
            status, headers, data = got
            return web.Response(status=status, body=data, headers=headers)
        path = request.path.rstrip("/")
        if path == "/api":
            return web.json_response({"kind": "APIVersions", "versions": ["v1"],
                                      "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                                                      "serverAddress": "127.0.0.1"}]})
        if path == "/apis":
            return web.json_response({"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                {"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
                 "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}]})
        if path in ("/api/v1", "/apis/apps/v1"):
            gv = "v1" if path == "/api/v1" else "apps/v1"
            return web.json_response({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
                                      "resources": RESOURCES[gv]})
        if path == "/version":
            return web.json_response({"major": "1", "minor": "36", "gitVersion": "v1.36.3"})
        parts = path.strip("/").split("/")
        # /api/v1/namespaces/NS/RES[/NAME] or /apis/apps/v1/namespaces/NS/RES[/NAME]
        rest = parts[2:] if parts[0] == "api" else parts[3:]
        if len(rest) >= 3 and rest[0] == "namespaces" and rest[2] in CLASSES:
            ns, res = rest[1], rest[2]
            cls = CLASSES[res]
            if request.method == "POST" and len(rest) == 3:
                tree = gojson.loads(body)
                tree.setdefault("metadata", {}).update(namespace=ns, uid=str(uuid.uuid4()),
                                                       resourceVersion=str(self.rv), generation=1,
                                                       creationTimestamp="2026-01-01T00:00:00Z")
                self.rv += 1
                self.objects[f"{res}/{ns}/{tree['metadata']['name']}"] = tree
                return web.json_response(tree, status=201)
            key = f"{res}/{ns}/{rest[3]}" if len(rest) > 3 else ""
            if key not in self.objects:
                return web.json_response({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                          "message": f'{res} "{rest[3] if len(rest) > 3 else ""}" not found',
                                          "reason": "NotFound", "code": 404}, status=404)
            if request.method == "GET":
                return web.json_response(self.objects[key])
            if request.method == "PATCH":
                ctype = request.headers.get("Content-Type", "").split(";")[0]
                current = self.objects[key]
                if ctype == "application/strategic-merge-patch+json":
                    patched = strategic_merge_patch(current, gojson.loads(body), cls)
                elif ctype == "application/merge-patch+json":
                    patched = merge_patch(current, gojson.loads(body, literals=True))
                else:
                    patched = json_patch(current, body)
                patched["metadata"]["resourceVersion"] = str(self.rv)
                self.rv += 1
                self.objects[key] = patched
                return web.json_response(patched)
        return web.Response(status=404, text="404 page not found")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FakeCluster, Path]]:
    fake = FakeCluster()
    loop = asyncio.new_event_loop()
    app = web.Application(client_max_size=8 << 20)
    app.router.add_route("*", "/{tail:.*}", fake.handle)
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    home = tmp_path_factory.mktemp("kubectl")
    kubeconfig = home / "config"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "fake",
        "clusters": [{"name": "fake", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "u", "namespace": "default"}}],
        "users": [{"name": "u", "user": {}}]}))
    try:
        yield fake, home
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def _kubectl(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    if KUBECTL is None:
        pytest.skip("kubectl is not on PATH")
    env = {**os.environ, "KUBECONFIG": str(home / "config"), "HOME": str(home)}
    return subprocess.run([KUBECTL, *args], input=stdin, capture_output=True, text=True, timeout=60, env=env)


def test_definition_names_and_operation_ids() -> None:
    """apiserver pkg/endpoints/openapi/openapi.go's names."""
    from kcodec.api.apiextensions import v1 as apiextv1
    from kcodec.api.meta import v1 as metav1
    from kcodec.types import Quantity

    assert definition_name(appsv1.Deployment) == "io.k8s.api.apps.v1.Deployment"
    assert definition_name(metav1.ObjectMeta) == "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    assert definition_name(metav1.Time) == "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
    assert definition_name(Quantity) == "io.k8s.apimachinery.pkg.api.resource.Quantity"
    assert definition_name(apiextv1.CustomResourceDefinition) == \
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"
    path = "/apis/apps/v1/namespaces/{namespace}/deployments"
    assert operation_id_and_tags("patchNamespacedDeployment", path) == ("patchAppsV1NamespacedDeployment", ["apps_v1"])
    assert operation_id_and_tags("deletecollectionNamespacedDeployment", path) == \
        ("deleteAppsV1CollectionNamespacedDeployment", ["apps_v1"])
    assert operation_id_and_tags("readNamespacedPod", "/api/v1/namespaces/{namespace}/pods/{name}") == \
        ("readCoreV1NamespacedPod", ["core_v1"])
    assert operation_id_and_tags("listClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles") == \
        ("listRbacAuthorizationV1ClusterRole", ["rbacAuthorization_v1"])


def test_v3_document_shape() -> None:
    svc = OpenAPIService(RESOURCES)
    index = json.loads(svc.v3_index())
    url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
    doc_bytes = svc.v3("apis/apps/v1")
    assert doc_bytes is not None and url == f"/openapi/v3/apis/apps/v1?hash={svc.etag(doc_bytes)}"
    doc = json.loads(doc_bytes)
    schemas = doc["components"]["schemas"]
    dep = schemas["io.k8s.api.apps.v1.Deployment"]
    assert dep["x-kubernetes-group-version-kind"] == [{"group": "apps", "kind": "Deployment", "version": "v1"}]
    containers = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-strategy"] == "merge"
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["x-kubernetes-list-type"] == "map" and containers["x-kubernetes-list-map-keys"] == ["name"]
    assert schemas["io.k8s.api.apps.v1.DeploymentSpec"]["required"] == ["selector", "template"]
    assert schemas["io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"]["x-kubernetes-map-type"] == "atomic"
    patch = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert patch["operationId"] == "patchAppsV1NamespacedDeployment"
    assert "application/strategic-merge-patch+json" in patch["requestBody"]["content"]
    assert {"fieldValidation", "fieldManager", "dryRun", "force"} <= {p["name"] for p in patch["parameters"]}
    scale = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["patch"]
    assert scale["x-kubernetes-group-version-kind"] == {"group": "autoscaling", "kind": "Scale", "version": "v1"}
    # handler3: a stale hash is redirected to the current one; the right one is immutable
    status, headers, _ = svc.handle("GET", "/openapi/v3/apis/apps/v1", {"hash": ["00"]}, {})
    assert status == 301 and headers["Location"] == url
    status, headers, body = svc.handle("GET", "/openapi/v3/apis/apps/v1", {"hash": [url.rsplit("=", 1)[1]]}, {})
    assert (status, headers["Cache-Control"], body) == (200, "public, immutable", doc_bytes)
    assert svc.handle("GET", "/openapi/v2", {}, {"Accept": "application/com.github.proto-openapi.spec.v2@v1.0"
                                                           "+protobuf"})[0] == 406
    assert dep["description"] == "Deployment enables declarative updates for Pods and ReplicaSets."
    assert schemas["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["strategy"] == {
        "allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy"}], "default": {},
        "description": "The deployment strategy to use to replace existing pods with new ones.",
        "x-kubernetes-patch-strategy": "retainKeys"}
    # served through GenericAPIServer's hook: anything with method, path, query and headers
    from types import SimpleNamespace

    resp = svc.serve(SimpleNamespace(method="GET", path="/openapi/v3", query={}, headers={}))
    assert (resp.status, resp.content_type, resp.body) == (200, "application/json", svc.v3_index())
    assert svc.serve(SimpleNamespace(method="GET", path="/api/v1", query={}, headers={})) is None
    v2 = json.loads(svc.v2())
    assert v2["swagger"] == "2.0"
    assert v2["definitions"]["io.k8s.api.core.v1.Container"]["properties"]["ports"][
        "x-kubernetes-patch-merge-key"] == "containerPort"


def test_kubectl_explain(cluster: tuple[FakeCluster, Path]) -> None:
    _fake, home = cluster
    out = _kubectl(home, "explain", "deployment.spec.replicas")
    assert out.returncode == 0, out.stderr
    assert "GROUP:      apps" in out.stdout and "KIND:       Deployment" in out.stdout
    assert "FIELD: replicas <integer>" in out.stdout
    # the description of types_swagger_doc_generated.go, as kube-apiserver's OpenAPI has it
    assert ("DESCRIPTION:\n    Number of desired pods. This is a pointer to distinguish between explicit\n"
            "    zero and not specified. Defaults to 1.\n") in out.stdout
    out = _kubectl(home, "explain", "deployment.spec.template.spec.containers")
    assert out.returncode == 0, out.stderr
    assert "FIELD: containers <[]Container>" in out.stdout
    assert "image\t<string>" in out.stdout and "name\t<string> -required-" in out.stdout


DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, tier: front}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports: [{containerPort: 80}]
        env: [{name: A, value: "1"}, {name: B, value: "2"}]
      - name: sidecar
        image: busybox
"""

DEPLOYMENT_2 = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80}, {containerPort: 443}]
        env: [{name: B, value: "2"}, {name: C, value: "3"}]
"""


def test_kubectl_apply_patch_is_kcodecs(cluster: tuple[FakeCluster, Path]) -> None:
    """kubectl apply's client-side three-way patch, built from this OpenAPI, is the one
    create_three_way_merge_patch computes, and kcodec applies it to what kubectl expects."""
    fake, home = cluster
    fake.objects.pop("deployments/default/web", None)
    out = _kubectl(home, "apply", "-f", "-", stdin=DEPLOYMENT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "deployment.apps/web created"
    post = [r for r in fake.requests if r[0] == "POST" and r[1].endswith("/deployments")][-1]
    assert "fieldValidation=Strict" in post[2]  # the QueryParamVerifier found the parameter
    live = json.loads(json.dumps(fake.objects["deployments/default/web"]))
    original = json.loads(live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    del fake.requests[:]
    out = _kubectl(home, "apply", "-f", "-", stdin=DEPLOYMENT_2)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "deployment.apps/web configured"
    patches = [r for r in fake.requests if r[0] == "PATCH"]
    assert len(patches) == 1
    method, path, query, ctype, body = patches[0]
    assert ctype == "application/strategic-merge-patch+json"
    assert "fieldValidation=Strict" in query
    sent = json.loads(body)
    modified = json.loads(fake.objects["deployments/default/web"]["metadata"]["annotations"][
        "kubectl.kubernetes.io/last-applied-configuration"])
    ours = create_three_way_merge_patch(
        original, {**modified, "metadata": {**modified["metadata"], "annotations": {
            "kubectl.kubernetes.io/last-applied-configuration": sent["metadata"]["annotations"][
                "kubectl.kubernetes.io/last-applied-configuration"]}}},
        live, appsv1.Deployment, True,
        preconditions=[require_key_unchanged("apiVersion"), require_key_unchanged("kind"),
                       require_metadata_key_unchanged("name")])
    assert ours == sent, (ours, sent)
    assert "$setElementOrder/containers" in sent["spec"]["template"]["spec"]  # a real merge-list patch
    result = fake.objects["deployments/default/web"]
    assert result["spec"]["replicas"] == 3
    assert result["metadata"]["labels"] == {"app": "web"}
    (web_c,) = result["spec"]["template"]["spec"]["containers"]
    assert web_c["image"] == "nginx:1.27"
    assert web_c["ports"] == [{"containerPort": 80}, {"containerPort": 443}]
    assert web_c["env"] == [{"name": "B", "value": "2"}, {"name": "C", "value": "3"}]
    # a third apply of the same file has nothing to send
    del fake.requests[:]
    out = _kubectl(home, "apply", "-f", "-", stdin=DEPLOYMENT_2)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "deployment.apps/web unchanged"
    assert not [r for r in fake.requests if r[0] == "PATCH"]


def test_kubectl_patch_types(cluster: tuple[FakeCluster, Path]) -> None:
    """kubectl patch --type strategic|merge|json reach the three kcodec.patch functions."""
    fake, home = cluster
    fake.objects["configmaps/default/cfg"] = {"apiVersion": "v1", "kind": "ConfigMap",
                                              "metadata": {"name": "cfg", "namespace": "default", "uid": "u1",
                                                           "resourceVersion": "1"},
                                              "data": {"a": "1", "b": "2"}}
    out = _kubectl(home, "patch", "configmap", "cfg", "-p", '{"data":{"a":null,"c":"3"}}')
    assert out.returncode == 0, out.stderr
    assert fake.objects["configmaps/default/cfg"]["data"] == {"b": "2", "c": "3"}
    out = _kubectl(home, "patch", "configmap", "cfg", "--type", "merge", "-p", '{"data":{"b":"x"}}')
    assert out.returncode == 0, out.stderr
    out = _kubectl(home, "patch", "configmap", "cfg", "--type", "json",
                   "-p", '[{"op":"remove","path":"/data/c"},{"op":"add","path":"/data/d","value":"4"}]')
    assert out.returncode == 0, out.stderr
    assert fake.objects["configmaps/default/cfg"]["data"] == {"b": "x", "d": "4"}
