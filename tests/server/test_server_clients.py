"""Real clients against kcodec serve: the official ``kubernetes`` Python client and kubectl.

The same scenario runs on SQLite (``sqlite::memory:``) and on a real etcd started on
loopback by tests/_etcd.py. What the clients print is what they print against
kube-apiserver (kubectl's tables, ``-o name``, its error lines).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
import uuid

import pytest

from _etcd import etcd_endpoints, require_etcd  # noqa: F401  (session fixture)
from kcodec.testing import APIServer

KUBECTL = shutil.which("kubectl")


@pytest.fixture(scope="module", params=["sqlite", "etcd"])
def server(request):
    if request.param == "sqlite":
        with APIServer() as s:
            yield s
    else:
        require_etcd()
        endpoints = request.getfixturevalue("etcd_endpoints")
        with APIServer("etcd:" + ",".join(endpoints), etcd_prefix=f"/kcodec-{uuid.uuid4().hex[:8]}") as s:
            yield s


_counter = iter(range(1_000_000))


@pytest.fixture
def api(server):
    kubernetes = pytest.importorskip("kubernetes")
    from kubernetes import client, config

    cfg = client.Configuration()
    config.load_kube_config(config_file=server.kubeconfig, client_configuration=cfg)
    with client.ApiClient(cfg) as c:
        yield kubernetes.client.CoreV1Api(c), kubernetes.client.AppsV1Api(c)


def _ns(core):
    from kubernetes import client

    name = f"c{next(_counter)}-{uuid.uuid4().hex[:5]}"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    return name


def test_python_client_crud(api):
    from kubernetes import client
    from kubernetes.client.rest import ApiException

    core, apps = api
    ns = _ns(core)
    cm = core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cfg", labels={"a": "b"}),
                                                                 data={"k": "v"}))
    assert cm.metadata.uid and cm.metadata.namespace == ns
    got = core.read_namespaced_config_map("cfg", ns)
    assert got.data == {"k": "v"}
    got.data["k2"] = "v2"
    replaced = core.replace_namespaced_config_map("cfg", ns, got)
    assert replaced.data == {"k": "v", "k2": "v2"}
    assert int(replaced.metadata.resource_version) > int(cm.metadata.resource_version)
    listed = core.list_namespaced_config_map(ns, label_selector="a=b")
    assert [i.metadata.name for i in listed.items] == ["cfg"]
    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cfg")))
    assert e.value.status == 409 and json.loads(e.value.body)["reason"] == "AlreadyExists"
    dep = apps.create_namespaced_deployment(ns, {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    # defaults applied in the request's version, as kube-apiserver does
    assert dep.spec.replicas == 1 and dep.spec.strategy.type == "RollingUpdate"
    assert dep.spec.template.spec.containers[0].termination_message_path == "/dev/termination-log"
    assert dep.metadata.generation == 1
    core.delete_namespaced_config_map("cfg", ns)
    with pytest.raises(ApiException) as e:
        core.read_namespaced_config_map("cfg", ns)
    assert e.value.status == 404


def test_python_client_watch(api):
    from kubernetes import client, watch

    core, _ = api
    ns = _ns(core)
    rv = core.list_namespaced_config_map(ns).metadata.resource_version

    def writer():
        time.sleep(0.3)
        core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="w"), data={"a": "1"}))
        obj = core.read_namespaced_config_map("w", ns)
        obj.data["a"] = "2"
        core.replace_namespaced_config_map("w", ns, obj)
        core.delete_namespaced_config_map("w", ns)

    t = threading.Thread(target=writer)
    t.start()
    seen = []
    w = watch.Watch()
    for ev in w.stream(core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=10):
        seen.append((ev["type"], ev["object"].metadata.name, (ev["object"].data or {}).get("a")))
        if len(seen) == 3:
            w.stop()
    t.join()
    assert seen == [("ADDED", "w", "1"), ("MODIFIED", "w", "2"), ("DELETED", "w", "2")]


def _kubectl(server, *args, check=True, stdin=None):
    if KUBECTL is None:
        pytest.skip("kubectl is not on PATH")
    p = subprocess.run([KUBECTL, "--kubeconfig", server.kubeconfig, *args], capture_output=True, text=True,
                       input=stdin, timeout=60)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def test_kubectl_basics(server):
    ns = f"k{next(_counter)}-{uuid.uuid4().hex[:5]}"
    assert _kubectl(server, "create", "namespace", ns).stdout.strip() == f"namespace/{ns} created"
    # the server's Table (the registry's columns: NAME first), as kubectl prints it
    out = _kubectl(server, "get", "namespaces").stdout
    assert out.splitlines()[0].split()[0] == "NAME"
    assert {"default", "kube-system", "kube-public", "kube-node-lease", ns} <= {
        line.split()[0] for line in out.splitlines()[1:]}
    p = _kubectl(server, "-n", ns, "create", "configmap", "settings", "--from-literal=color=blue")
    assert p.stdout.strip() == "configmap/settings created"
    assert _kubectl(server, "-n", ns, "label", "configmap", "settings", "tier=web").stdout.strip() == \
        "configmap/settings labeled"
    assert _kubectl(server, "-n", ns, "annotate", "configmap", "settings", "note=hi").stdout.strip() == \
        "configmap/settings annotated"
    assert _kubectl(server, "-n", ns, "get", "configmaps", "-l", "tier=web", "-o", "name").stdout.split() == \
        ["configmap/settings"]
    doc = json.loads(_kubectl(server, "-n", ns, "get", "configmap", "settings", "-o", "json").stdout)
    assert doc["data"] == {"color": "blue"} and doc["metadata"]["labels"] == {"tier": "web"}
    assert doc["metadata"]["annotations"] == {"note": "hi"}
    yml = _kubectl(server, "-n", ns, "get", "configmap", "settings", "-o", "yaml").stdout
    assert "color: blue" in yml and "kind: ConfigMap" in yml
    table = _kubectl(server, "-n", ns, "get", "configmaps").stdout.splitlines()
    assert table[0].split()[0] == "NAME" and [row.split()[0] for row in table[1:]] == ["settings"]
    manifest = json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": ns},
                           "spec": {"selector": {"matchLabels": {"app": "web"}},
                                    "template": {"metadata": {"labels": {"app": "web"}},
                                                 "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    assert _kubectl(server, "create", "-f", "-", stdin=manifest).stdout.strip() == "deployment.apps/web created"
    assert _kubectl(server, "-n", ns, "get", "deploy", "-o", "name").stdout.split() == ["deployment.apps/web"]
    p = _kubectl(server, "-n", ns, "get", "configmap", "missing", check=False)
    assert p.returncode == 1
    assert p.stderr.strip() == 'Error from server (NotFound): configmaps "missing" not found'
    assert _kubectl(server, "-n", ns, "delete", "configmap", "settings").stdout.strip() == \
        'configmap "settings" deleted'


def test_kubectl_api_resources(server):
    out = _kubectl(server, "api-resources").stdout.splitlines()
    assert out[0].split() == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    rows = {line.split()[0]: line.split() for line in out[1:]}
    assert rows["configmaps"] == ["configmaps", "cm", "v1", "true", "ConfigMap"]
    assert rows["deployments"] == ["deployments", "deploy", "apps/v1", "true", "Deployment"]
    assert rows["namespaces"] == ["namespaces", "ns", "v1", "false", "Namespace"]


def test_kubectl_apply_patch_scale(server):
    ns = f"a{next(_counter)}-{uuid.uuid4().hex[:5]}"
    _kubectl(server, "create", "namespace", ns)
    manifest = """
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
data:
  mode: blue
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: 1
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
      - name: main
        image: nginx:1.27
      - name: side
        image: busybox
"""
    out = _kubectl(server, "-n", ns, "apply", "-f", "-", stdin=manifest).stdout.splitlines()
    assert out == ["configmap/app-config created", "deployment.apps/app created"]
    out = _kubectl(server, "-n", ns, "apply", "-f", "-", stdin=manifest).stdout.splitlines()
    assert out == ["configmap/app-config unchanged", "deployment.apps/app unchanged"]
    changed = manifest.replace("mode: blue", "mode: green").replace("image: busybox", "image: busybox:1.37")
    out = _kubectl(server, "-n", ns, "apply", "-f", "-", stdin=changed).stdout.splitlines()
    assert out == ["configmap/app-config configured", "deployment.apps/app configured"]
    dep = json.loads(_kubectl(server, "-n", ns, "get", "deploy", "app", "-o", "json").stdout)
    assert [(c["name"], c["image"]) for c in dep["spec"]["template"]["spec"]["containers"]] == [
        ("main", "nginx:1.27"), ("side", "busybox:1.37")]
    assert "kubectl.kubernetes.io/last-applied-configuration" in dep["metadata"]["annotations"]
    assert _kubectl(server, "-n", ns, "scale", "deploy", "app", "--replicas=4").stdout.strip() == \
        "deployment.apps/app scaled"
    for kind, patch in (("strategic", '{"metadata":{"labels":{"p":"smp"}}}'),
                        ("merge", '{"metadata":{"labels":{"p":"merge"}}}'),
                        ("json", '[{"op":"replace","path":"/metadata/labels/p","value":"json"}]')):
        p = _kubectl(server, "-n", ns, "patch", "deploy", "app", "--type", kind, "-p", patch)
        assert p.stdout.strip() == "deployment.apps/app patched"
    dep = json.loads(_kubectl(server, "-n", ns, "get", "deploy", "app", "-o", "json").stdout)
    assert dep["spec"]["replicas"] == 4 and dep["metadata"]["labels"] == {"p": "json"}
    p = _kubectl(server, "-n", ns, "patch", "deploy", "app", "--type", "json", "-p", '[{"op":"remove","path":"/nope"}]',
                 check=False)
    # a 422 without causes (NewGenericServerResponse), worded by kubectl as against kube-apiserver
    assert p.returncode == 1
    assert p.stderr.strip() == "The request is invalid: the server rejected our request due to an error in our request"
