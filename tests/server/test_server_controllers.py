"""The control plane beside the API (kcodec.server.controllers), seen through kubectl.

Expectations: NamespaceLifecycle admission (k8s.io/apiserver
pkg/admission/plugin/namespace/lifecycle/admission.go) and its texts; the namespace storage
(k/k pkg/registry/core/namespace/storage/storage.go: Terminating, /finalize); the namespace
controller deleting a namespace's contents and then the namespace (which envtest cannot);
the ServiceAccount controller's ``default`` account; the garbage collector's background,
foreground and orphan deletion (k/k pkg/controller/garbagecollector).
"""
from __future__ import annotations

import json
import time
import uuid

import pytest

from kcodec.testing import APIServer
from _kubectl import kubectl



@pytest.fixture(scope="module")
def server():
    with APIServer() as s:
        yield s


def eventually(check, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def test_namespace_lifecycle_admission(server) -> None:
    missing = kubectl(server, "create", "configmap", "c", "-n", "nowhere", ok=False)
    assert missing.stderr.strip() == 'error: failed to create configmap: namespaces "nowhere" not found'
    immortal = kubectl(server, "delete", "namespace", "kube-system", ok=False)
    assert immortal.stderr.strip() == \
        'Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted'


def test_default_service_account_in_every_namespace(server) -> None:
    ns = _name("sa")
    kubectl(server, "create", "namespace", ns)
    assert eventually(lambda: kubectl(server, "get", "sa", "default", "-n", ns, ok=False).returncode == 0)
    kubectl(server, "delete", "namespace", ns, "--wait=false")


def test_deleting_a_namespace_deletes_its_contents(server) -> None:
    ns = _name("gone")
    kubectl(server, "create", "namespace", ns)
    kubectl(server, "create", "configmap", "c1", "-n", ns, "--from-literal=a=b")
    kubectl(server, "create", "deployment", "web", "-n", ns, "--image=nginx")
    assert kubectl(server, "delete", "namespace", ns, "--wait=false").stdout.strip() == f'namespace "{ns}" deleted'
    # The first delete marks the namespace Terminating; nothing new may be created in it.
    status = json.loads(kubectl(server, "get", "namespace", ns, "-o", "json", ok=False).stdout or "{}")
    if status:
        assert status["status"]["phase"] == "Terminating"
        assert status["spec"]["finalizers"] == ["kubernetes"] or not status["spec"].get("finalizers")
        refused = kubectl(server, "create", "configmap", "c2", "-n", ns, ok=False)
        assert refused.stderr.strip() == (
            f'error: failed to create configmap: configmaps "c2" is forbidden: unable to create new content '
            f'in namespace {ns} because it is being terminated')
    assert eventually(lambda: kubectl(server, "get", "namespace", ns, ok=False).returncode != 0)
    assert kubectl(server, "get", "configmaps,deployments", "-n", ns, "-o", "name").stdout.strip() == ""


def _owned(server, name: str, owner: str, uid: str) -> None:
    kubectl(server, "apply", "-f", "-", stdin=json.dumps({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": owner,
                                                        "uid": uid, "blockOwnerDeletion": True}]}}))


@pytest.mark.parametrize("cascade", ["background", "foreground", "orphan"])
def test_garbage_collection(server, cascade) -> None:
    owner, dep = _name("owner"), _name("dep")
    kubectl(server, "create", "configmap", owner)
    uid = json.loads(kubectl(server, "get", "configmap", owner, "-o", "json").stdout)["metadata"]["uid"]
    _owned(server, dep, owner, uid)
    kubectl(server, "delete", "configmap", owner, f"--cascade={cascade}", "--timeout=20s")
    assert eventually(lambda: kubectl(server, "get", "configmap", owner, ok=False).returncode != 0)
    if cascade == "orphan":
        kept = json.loads(kubectl(server, "get", "configmap", dep, "-o", "json").stdout)
        assert "ownerReferences" not in kept["metadata"]
        kubectl(server, "delete", "configmap", dep)
    else:
        assert eventually(lambda: kubectl(server, "get", "configmap", dep, ok=False).returncode != 0)


def test_controllers_can_be_switched_off() -> None:
    with APIServer(controllers=["system-namespaces"]) as s:
        ns = _name("plain")
        kubectl(s, "create", "namespace", ns)
        time.sleep(0.5)
        assert kubectl(s, "get", "sa", "-n", ns, "-o", "name").stdout.strip() == ""
        # without lifecycle admission, a missing namespace is not checked
        assert kubectl(s, "create", "configmap", "c", "-n", "nowhere", ok=False).returncode == 0


def test_namespace_delete_is_the_registrys(server) -> None:
    """One implementation of the namespace rules: what kubectl reaches is the registry's
    NamespaceStore (k/k namespace REST.Delete: UID and resourceVersion preconditions with
    Go's Conflict texts, dry runs that change nothing) and its /finalize; the controllers only
    put admission in front and drive /finalize."""
    from kcodec.registry.builtin import FinalizeREST, NamespaceStore
    from kcodec.schema import GroupVersion
    from kcodec.server.controllers import LifecycleAdmission

    scopes = server._runner.server.routes[GroupVersion("", "v1")].scopes["namespaces"]
    assert isinstance(scopes[""].storage, LifecycleAdmission) and isinstance(scopes[""].storage.store, NamespaceStore)
    assert isinstance(scopes["finalize"].storage, FinalizeREST)

    ns = _name("pre")
    kubectl(server, "create", "namespace", ns)
    uid = json.loads(kubectl(server, "get", "namespace", ns, "-o", "json").stdout)["metadata"]["uid"]
    conflict = kubectl(server, "delete", "--raw", f"/api/v1/namespaces/{ns}", "-f", "-", ok=False,
                       stdin=json.dumps({"apiVersion": "v1", "kind": "DeleteOptions",
                                         "preconditions": {"uid": "bogus"}}))
    assert conflict.stderr.strip() == (
        f'Error from server (Conflict): Operation cannot be fulfilled on namespaces "{ns}": '
        f'Precondition failed: UID in precondition: bogus, UID in object meta: {uid}')
    kubectl(server, "delete", "namespace", ns, "--dry-run=server", "--wait=false")
    status = json.loads(kubectl(server, "get", "namespace", ns, "-o", "json").stdout)
    assert status["status"]["phase"] == "Active" and "deletionTimestamp" not in status["metadata"]
    kubectl(server, "delete", "namespace", ns, "--wait=false")
    assert eventually(lambda: kubectl(server, "get", "namespace", ns, ok=False).returncode != 0)
