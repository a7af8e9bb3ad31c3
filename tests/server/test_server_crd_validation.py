"""CRD validation over HTTP: ``kubectl apply`` of invalid CustomResourceDefinitions gets
kube-apiserver's 422 Invalid Status with apiextensions-apiserver's field paths and texts
(pkg/apis/apiextensions/validation/validation.go, pkg/apiserver/schema/validation.go), and
nothing is stored; a valid CRD is then accepted under the same name.
"""
from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request

import pytest

from _kubectl import kubectl, wait_established
from kcodec.testing import APIServer

BAD_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.wrong.example.com
spec:
  group: valid.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            properties:
              size: {type: integer}
  - name: v2
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object}
"""

GOOD_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.valid.example.com
spec:
  group: valid.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 1}
              zone: {type: string, format: zone-name}
"""


@pytest.fixture(scope="module")
def server():
    with APIServer() as s:
        yield s


def _kubectl(server, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return kubectl(server, *args, stdin=stdin, ok=False)


def _request(url: str, method: str, body: dict | None = None) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None, method=method,
                                 headers={"Content-Type": "application/json"})
    return json.loads(urllib.request.urlopen(req, timeout=30).read())


def _update(base: str, target: str, change) -> dict:
    """GET, change, PUT to *target*; again on a Conflict (the CRD controller writes status
    concurrently, as clients of a real API server must expect)."""
    for _ in range(20):
        current = _request(base, "GET")
        change(current)
        try:
            return _request(target, "PUT", current)
        except urllib.error.HTTPError as err:
            if err.code != 409:
                raise
    raise AssertionError("conflicts did not stop")


def test_kubectl_apply_of_an_invalid_crd_gets_go_422(server) -> None:
    r = _kubectl(server, "apply", "-f", "-", stdin=BAD_CRD)
    assert r.returncode == 1
    # kubectl prints a 422 Status with several causes as one "* cause" line each
    assert r.stderr.startswith('The CustomResourceDefinition "gadgets.wrong.example.com" is invalid: \n'), r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("* ")]
    assert '* metadata.name: Invalid value: "gadgets.wrong.example.com": must be spec.names.plural+"."+spec.group' \
        in lines
    # two storage versions: PrepareForCreate recorded the first one, the second is missing
    assert '* status.storedVersions: Invalid value: ["v1"]: must have the storage version v2' in lines
    assert ("* spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty "
            "for specified object fields") in lines
    assert any(line.startswith("* spec.versions: Invalid value: ") and line.endswith(
        "must have exactly one version marked as storage version") for line in lines)
    missing = _kubectl(server, "get", "crd", "gadgets.wrong.example.com")
    assert missing.returncode == 1 and "NotFound" in missing.stderr


def test_invalid_crd_status_over_http(server) -> None:
    """The Status itself: code 422, reason Invalid, details with the kind, group and causes."""
    import yaml

    body = yaml.safe_load(GOOD_CRD)
    body["spec"]["conversion"] = {"strategy": "Webhook", "webhook": {
        "clientConfig": {"url": "http://hook.example.com/convert"}, "conversionReviewVersions": ["v3"]}}
    req = urllib.request.Request(server.url + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                 data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=30)
    assert info.value.code == 422
    status = json.loads(info.value.read())
    assert status["reason"] == "Invalid" and status["code"] == 422
    assert status["details"]["group"] == "apiextensions.k8s.io"
    assert status["details"]["kind"] == "CustomResourceDefinition"
    causes = {(c["field"], c["message"]) for c in status["details"]["causes"]}
    assert ("spec.conversion.webhookClientConfig.url",
            "Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]") \
        in causes
    assert ("spec.conversion.conversionReviewVersions",
            'Invalid value: ["v3"]: must include at least one of v1, v1beta1') in causes


def test_valid_crd_is_accepted(server) -> None:
    r = _kubectl(server, "apply", "-f", "-", stdin=GOOD_CRD)
    assert r.returncode == 0, r.stderr
    assert 'Warning: unrecognized format "zone-name"' in r.stderr
    r = _kubectl(server, "get", "crd", "gadgets.valid.example.com", "-o", "json")
    crd = json.loads(r.stdout)
    assert crd["metadata"]["generation"] == 1
    assert crd["status"]["storedVersions"] == ["v1"]
    _kubectl(server, "delete", "crd", "gadgets.valid.example.com")


def test_status_update_keeps_the_metadata_sent(server) -> None:
    """apiextensions statusStrategy.PrepareForUpdate: spec from the stored object, metadata
    as sent (ResetObjectMetaForStatus(new, new)), status validated by
    ValidateUpdateCustomResourceDefinitionStatus (acceptedNames)."""
    assert _kubectl(server, "apply", "-f", "-", stdin=GOOD_CRD).returncode == 0
    try:
        wait_established(server, "gadgets.valid.example.com")
        base = server.url + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.valid.example.com"
        def relabel(crd: dict) -> None:
            crd["metadata"].setdefault("labels", {})["via"] = "status"
            crd["spec"]["scope"] = "Cluster"

        out = _update(base, base + "/status", relabel)
        assert out["metadata"]["labels"]["via"] == "status"
        assert out["spec"]["scope"] == "Namespaced"
        out["status"]["acceptedNames"]["kind"] = "Bad_Kind"
        req = urllib.request.Request(base + "/status", data=json.dumps(out).encode(), method="PUT",
                                     headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=30)
        assert info.value.code == 422
        status = json.loads(info.value.read())
        assert status["details"]["causes"][0]["field"] == "status.acceptedNames.kind"
    finally:
        _kubectl(server, "delete", "crd", "gadgets.valid.example.com")


def test_established_crd_keeps_scope_and_kind(server) -> None:
    """validateCustomResourceDefinitionSpecUpdate: once Established, scope and names.kind are
    immutable; group and names.plural always are."""
    assert _kubectl(server, "apply", "-f", "-", stdin=GOOD_CRD).returncode == 0
    try:
        wait_established(server, "gadgets.valid.example.com")
        changed = GOOD_CRD.replace("scope: Namespaced", "scope: Cluster").replace("kind: Gadget}", "kind: Widget}")
        r = _kubectl(server, "apply", "-f", "-", stdin=changed)
        assert r.returncode == 1
        lines = [line for line in r.stderr.splitlines() if line.startswith("* ")]
        assert lines == ['* spec.scope: Invalid value: "Cluster": field is immutable',
                         '* spec.names.kind: Invalid value: "Widget": field is immutable'], r.stderr
    finally:
        _kubectl(server, "delete", "crd", "gadgets.valid.example.com")


TWO_VERSIONS = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.valid.example.com
spec:
  group: valid.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - {name: v1, served: true, storage: V1STORAGE, schema: {openAPIV3Schema: {type: object}}}
  - {name: v2, served: true, storage: V2STORAGE, schema: {openAPIV3Schema: {type: object}}}
"""


def test_storage_version_migration(server) -> None:
    """storedVersions as apiextensions keeps them: PrepareForUpdate records each new storage
    version, a version still stored may not leave spec.versions, and once a storage
    migration has removed it from status.storedVersions (the /status subresource) it may."""
    name = "gizmos.valid.example.com"
    base = server.url + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name
    crd = TWO_VERSIONS.replace("V1STORAGE", "true").replace("V2STORAGE", "false")
    assert _kubectl(server, "apply", "-f", "-", stdin=crd).returncode == 0
    try:
        wait_established(server, name)
        swapped = TWO_VERSIONS.replace("V1STORAGE", "false").replace("V2STORAGE", "true")
        assert _kubectl(server, "apply", "-f", "-", stdin=swapped).returncode == 0, "storage moves to v2"
        assert _request(base, "GET")["status"]["storedVersions"] == ["v1", "v2"]
        only_v2 = swapped.replace("  - {name: v1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}\n",
                                  "")
        r = _kubectl(server, "apply", "-f", "-", stdin=only_v2)
        assert r.returncode == 1
        assert ('status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a '
                "storage version, and must remain in spec.versions until a storage migration ensures no data remains "
                "persisted in v1 and removes v1 from status.storedVersions") in r.stderr
        # the main resource cannot drop a stored version: status is kept from the stored object
        def drop_v1(crd: dict) -> None:
            crd["status"]["storedVersions"] = ["v2"]

        assert _update(base, base, drop_v1)["status"]["storedVersions"] == ["v1", "v2"]
        # the migration's last step, through /status
        assert _update(base, base + "/status", drop_v1)["status"]["storedVersions"] == ["v2"]
        assert _kubectl(server, "apply", "-f", "-", stdin=only_v2).returncode == 0
        assert [v["name"] for v in _request(base, "GET")["spec"]["versions"]] == ["v2"]
    finally:
        _kubectl(server, "delete", "crd", name)
