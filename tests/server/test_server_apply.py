"""Server-side apply and managed fields over HTTP (kcodec.server.fieldmanager), through kubectl
and the official Python client.

Expectations: k8s.io/apiserver pkg/endpoints/handlers/patch.go (applyPatcher: fieldManager
required, create on apply, 409 with FieldManagerConflict causes), fieldmanager's
UpdateNoErrors on create/update/patch (create.go, update.go: one ``Update`` entry per manager
with the fields it set), structured-merge-diff's conflict text as kubectl prints it
(k8s.io/kubectl pkg/cmd/apply/apply.go), and the status strategies' reset fields
(a ``/status`` write owns only status).
"""
from __future__ import annotations

import json
import uuid

import pytest

from kcodec.testing import APIServer
from _kubectl import kubectl



@pytest.fixture(scope="module")
def server():
    with APIServer() as s:
        yield s


def managed(server, *what: str) -> list[dict]:
    out = kubectl(server, "get", *what, "-o", "json", "--show-managed-fields").stdout
    return json.loads(out)["metadata"].get("managedFields") or []


def _cm(name: str, value: str, extra: str = "") -> str:
    return (f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: default}}\n"
            f"data: {{x: '{value}'{extra}}}\n")


def _name() -> str:
    return f"ssa-{uuid.uuid4().hex[:6]}"


def test_create_and_update_record_their_manager(server) -> None:
    name = _name()
    kubectl(server, "create", "-f", "-", stdin=_cm(name, "1"))
    entries = managed(server, "cm", name)
    assert [(e["manager"], e["operation"], e["fieldsV1"]) for e in entries] == [
        ("kubectl-create", "Update", {"f:data": {".": {}, "f:x": {}}})]
    kubectl(server, "label", "cm", name, "team=a")
    by = {e["manager"]: e for e in managed(server, "cm", name)}
    assert by["kubectl-label"]["fieldsV1"] == {"f:metadata": {"f:labels": {".": {}, "f:team": {}}}}
    assert by["kubectl-create"]["fieldsV1"] == {"f:data": {".": {}, "f:x": {}}}


def test_server_side_apply_creates_owns_and_conflicts(server) -> None:
    name = _name()
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=_cm(name, "1", ", z: '1'"))
    entries = managed(server, "cm", name)
    assert [(e["manager"], e["operation"]) for e in entries] == [("kubectl", "Apply")]
    assert entries[0]["fieldsV1"] == {"f:data": {"f:x": {}, "f:z": {}}}

    # another manager changing a field owned by "kubectl": conflict, as Go words it
    r = kubectl(server, "apply", "--server-side", "--field-manager", "other", "-f", "-",
                stdin=_cm(name, "2"), ok=False)
    assert r.returncode != 0
    assert 'Apply failed with 1 conflict: conflict with "kubectl": .data.x' in r.stderr

    # the same value is shared ownership, no conflict
    kubectl(server, "apply", "--server-side", "--field-manager", "other", "-f", "-", stdin=_cm(name, "1"))
    owners = {e["manager"]: e["fieldsV1"] for e in managed(server, "cm", name)}
    assert owners == {"kubectl": {"f:data": {"f:x": {}, "f:z": {}}}, "other": {"f:data": {"f:x": {}}}}

    # forcing takes the field over
    kubectl(server, "apply", "--server-side", "--force-conflicts", "--field-manager", "other", "-f", "-",
            stdin=_cm(name, "3"))
    cm = json.loads(kubectl(server, "get", "cm", name, "-o", "json").stdout)
    assert cm["data"] == {"x": "3", "z": "1"}
    owners = {e["manager"]: e["fieldsV1"] for e in managed(server, "cm", name)}
    assert owners == {"kubectl": {"f:data": {"f:z": {}}}, "other": {"f:data": {"f:x": {}}}}

    # a field dropped from the applier's configuration is removed when nobody else owns it
    kubectl(server, "apply", "--server-side", "-f", "-",
            stdin=f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: default}}\n")
    cm = json.loads(kubectl(server, "get", "cm", name, "-o", "json").stdout)
    assert cm["data"] == {"x": "3"}


def test_client_side_apply_then_server_side_apply_by_another_manager_conflicts(server) -> None:
    # lastappliedmanager.go takes client-side-applied fields over for the manager "kubectl" only
    name = _name()
    kubectl(server, "apply", "-f", "-", stdin=_cm(name, "1"))
    entries = managed(server, "cm", name)
    assert [e["manager"] for e in entries] == ["kubectl-client-side-apply"]
    r = kubectl(server, "apply", "--server-side", "--field-manager", "other", "-f", "-", stdin=_cm(name, "2"),
                ok=False)
    assert 'conflict with "kubectl-client-side-apply" using v1: .data.x' in r.stderr


def test_apply_over_http_needs_a_field_manager_and_reports_causes(server) -> None:
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException

    api = client.CoreV1Api(config.new_client_from_config(server.kubeconfig))
    name = _name()
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}
    ct = "application/apply-patch+yaml"

    def apply(**kw):
        return api.patch_namespaced_config_map(name, "default", body, _content_type=ct, **kw)

    with pytest.raises(ApiException) as err:
        apply()
    status = json.loads(err.value.body)
    assert err.value.status == 422 and status["reason"] == "Invalid"
    assert status["details"]["causes"] == [
        {"reason": "FieldValueRequired", "message": "Required value: is required for apply patch",
         "field": "fieldManager"}]

    apply(field_manager="a")
    body["data"]["k"] = "w"
    with pytest.raises(ApiException) as err:
        apply(field_manager="b")
    status = json.loads(err.value.body)
    assert err.value.status == 409 and status["reason"] == "Conflict"
    assert status["details"]["causes"] == [
        {"reason": "FieldManagerConflict", "message": 'conflict with "a"', "field": ".data.k"}]
    assert status["message"] == 'Apply failed with 1 conflict: conflict with "a": .data.k'
    apply(field_manager="b", force=True)

    # installer.go lists apply-patch+yaml only (and +cbor with the CBOR feature gate)
    ct = "application/apply-patch+json"
    with pytest.raises(ApiException) as err:
        apply(field_manager="b")
    status = json.loads(err.value.body)
    assert err.value.status == 415 and status["reason"] == "UnsupportedMediaType"
    assert status["message"] == ("the body of the request was in an unknown format - accepted media types include: "
                                 "application/json-patch+json, application/merge-patch+json, "
                                 "application/strategic-merge-patch+json, application/apply-patch+yaml")
    assert api.read_namespaced_config_map(name, "default").data == {"k": "w"}


def test_status_writes_own_only_status(server) -> None:
    name = _name()
    deploy = (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: default}}\n"
              f"spec:\n  selector: {{matchLabels: {{app: {name}}}}}\n"
              f"  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
              f"    spec: {{containers: [{{name: c, image: nginx}}]}}\n")
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=deploy)
    # the main resource ignores status in an apply configuration (reset fields)
    kubectl(server, "apply", "--server-side", "-f", "-", stdin=deploy + "status: {replicas: 5}\n")
    obj = json.loads(kubectl(server, "get", "deploy", name, "-o", "json").stdout)
    assert "replicas" not in obj.get("status", {})
    entry = managed(server, "deploy", name)[0]
    assert "f:status" not in entry["fieldsV1"] and entry["manager"] == "kubectl"


def test_kubectl_diff_is_a_dry_run(server) -> None:
    """kubectl diff: a dry-run patch (client-side) or apply (--server-side); exit 1 with the
    change shown, 0 when nothing would change; the stored object stays as it was."""
    name = _name()
    kubectl(server, "apply", "-f", "-", stdin=_cm(name, "1"))
    r = kubectl(server, "diff", "-f", "-", stdin=_cm(name, "2"), ok=False)
    assert r.returncode == 1, r.stderr
    assert '-  x: "1"' in r.stdout and '+  x: "2"' in r.stdout
    assert kubectl(server, "diff", "-f", "-", stdin=_cm(name, "1"), ok=False).returncode == 0
    r = kubectl(server, "diff", "--server-side", "--force-conflicts", "-f", "-", stdin=_cm(name, "3"), ok=False)
    assert r.returncode == 1, r.stderr
    assert '+  x: "3"' in r.stdout
    cm = json.loads(kubectl(server, "get", "cm", name, "-o", "json").stdout)
    assert cm["data"] == {"x": "1"}
    assert [e["manager"] for e in managed(server, "cm", name)] == ["kubectl-client-side-apply"]
