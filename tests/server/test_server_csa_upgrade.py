"""kubectl 1.32's upgrade of client-side-applied objects to server-side apply, over HTTP.

``kubectl apply --server-side`` after ``kubectl apply`` (k8s.io/kubectl pkg/cmd/apply/apply.go):
the apply as manager ``kubectl`` takes over, without conflicts, the fields the
last-applied-configuration annotation holds as live has them, and rewrites the annotation
(apimachinery pkg/util/managedfields/internal lastappliedmanager.go, lastappliedupdater.go);
kubectl then applies the annotation alone as ``kubectl-last-applied``
(saveLastApplyAnnotationIfNecessary), sends client-go util/csaupgrade's JSON patch replacing
metadata.managedFields (the ``kubectl-client-side-apply`` Update entry merged into the
``kubectl`` Apply entry) and metadata.resourceVersion (migrateToSSAIfNecessary), and applies
again. The managedFields asserted are what kube-apiserver's chain records for these steps.
"""
from __future__ import annotations

import json
import uuid

import pytest

from kcodec.testing import APIServer
from _kubectl import kubectl

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
ANNOTATION_FIELDS = {"f:metadata": {"f:annotations": {"f:" + LAST_APPLIED: {}}}}


@pytest.fixture(scope="module")
def server():
    with APIServer() as s:
        yield s


def get(server, *what: str) -> dict:
    return json.loads(kubectl(server, "get", *what, "-o", "json", "--show-managed-fields").stdout)


def owners(obj: dict) -> dict[tuple[str, str], dict]:
    return {(e["manager"], e["operation"]): e for e in obj["metadata"].get("managedFields") or []}


def _cm(name: str, data: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: default}}\ndata: {{{data}}}\n"


def test_configmap_migrates_from_client_side_apply(server) -> None:
    name = f"csa-{uuid.uuid4().hex[:6]}"
    kubectl(server, "apply", "-f", "-", stdin=_cm(name, "a: '1', b: '1'"))
    assert list(owners(get(server, "cm", name))) == [("kubectl-client-side-apply", "Update")]

    # a changed manifest: no conflict with kubectl-client-side-apply over .data.a
    r = kubectl(server, "apply", "--server-side", "-f", "-", stdin=_cm(name, "a: '2', b: '1'"))
    assert r.stdout.strip() == f"configmap/{name} serverside-applied"
    cm = get(server, "cm", name)
    assert cm["data"] == {"a": "2", "b": "1"}
    by = owners(cm)
    assert list(by) == [("kubectl-last-applied", "Apply"), ("kubectl", "Apply")]
    # an apply that changes nothing records no time (managedfieldsupdater.go)
    assert by[("kubectl-last-applied", "Apply")] == {
        "manager": "kubectl-last-applied", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
        "fieldsV1": ANNOTATION_FIELDS}
    assert by[("kubectl", "Apply")]["fieldsV1"] == {"f:data": {"f:a": {}, "f:b": {}}}
    assert "time" in by[("kubectl", "Apply")]
    # the server rewrote the annotation to the configuration kubectl applied
    assert cm["metadata"]["annotations"][LAST_APPLIED] == (
        '{"apiVersion":"v1","data":{"a":"2","b":"1"},"kind":"ConfigMap",'
        f'"metadata":{{"name":"{name}","namespace":"default"}}}}\n')

    # a field dropped from the manifest is removed: kubectl now owns what client-side apply did
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=_cm(name, "a: '2'"))
    cm = get(server, "cm", name)
    assert cm["data"] == {"a": "2"}
    assert owners(cm)[("kubectl", "Apply")]["fieldsV1"] == {"f:data": {"f:a": {}}}
    assert json.loads(cm["metadata"]["annotations"][LAST_APPLIED])["data"] == {"a": "2"}


DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: default, labels: {{app: {name}}}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - name: app
        image: {image}
{env}"""


def _deployment(name: str, replicas: int, image: str, env: bool) -> str:
    extra = "        env: [{name: MODE, value: fast}]\n" if env else ""
    return DEPLOYMENT.format(name=name, replicas=replicas, image=image, env=extra)


def test_deployment_migrates_and_sheds_removed_fields(server) -> None:
    name = f"csa-{uuid.uuid4().hex[:6]}"
    kubectl(server, "apply", "-f", "-", stdin=_deployment(name, 2, "nginx:1", True))
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=_deployment(name, 3, "nginx:2", True))
    d = get(server, "deployment", name)
    assert d["spec"]["replicas"] == 3
    assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2"
    by = owners(d)
    assert ("kubectl-client-side-apply", "Update") not in by
    spec = by[("kubectl", "Apply")]["fieldsV1"]["f:spec"]
    assert spec["f:replicas"] == {}
    container = spec["f:template"]["f:spec"]["f:containers"]['k:{"name":"app"}']
    assert container["f:image"] == {} and 'k:{"name":"MODE"}' in container["f:env"]

    # the env var dropped from the manifest goes away
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=_deployment(name, 3, "nginx:2", False))
    d = get(server, "deployment", name)
    assert "env" not in d["spec"]["template"]["spec"]["containers"][0]
    container = owners(d)[("kubectl", "Apply")]["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert "f:env" not in container['k:{"name":"app"}']


def test_managed_fields_patch_with_a_stale_resource_version_conflicts(server) -> None:
    # csaupgrade.go replaces metadata.resourceVersion so that a concurrent write fails the
    # patch with the storage's 409 (and kubectl retries) instead of losing that write
    name = f"csa-{uuid.uuid4().hex[:6]}"
    kubectl(server, "apply", "-f", "-", stdin=_cm(name, "a: '1'"))
    cm = get(server, "cm", name)
    stale = cm["metadata"]["resourceVersion"]
    kubectl(server, "label", "cm", name, "touched=yes")
    patch = [{"op": "replace", "path": "/metadata/managedFields", "value": cm["metadata"]["managedFields"]},
             {"op": "replace", "path": "/metadata/resourceVersion", "value": stale}]
    r = kubectl(server, "patch", "cm", name, "--type=json", "-p", json.dumps(patch), ok=False)
    assert r.returncode != 0
    assert (f'Operation cannot be fulfilled on configmaps "{name}": the object has been modified; '
            "please apply your changes to the latest version and try again") in r.stderr
