"""CRD validation rules (x-kubernetes-validations) over HTTP, with the official Python client
and kubectl, as k8s.io/kubernetes test/integration/apiserver/crd_validation_expressions_test.go
exercises kube-apiserver: a violating custom resource gets Go's 422 Invalid on create and on
update (transition rules), a valid one is stored, the status subresource is validated by the
root rule, a CRD whose rule does not compile is refused with apiextensions' field path; and
without the CEL library a CRD with rules is stored with a Warning and its rules are not run.
"""
from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import time

import pytest

from kcodec.testing import APIServer

pytest.importorskip("kubernetes", reason="the kubernetes client is not installed")

KUBECTL = shutil.which("kubectl")
GROUP = "mygroup.example.com"

# crd_validation_expressions_test.go structuralSchemaWithValidators, plus a transition rule
SCHEMA = {
    "type": "object",
    "x-kubernetes-validations": [{"rule": "self.spec.x + self.spec.y >= (has(self.status) ? self.status.z : 0)"}],
    "properties": {
        "spec": {"type": "object",
                 "x-kubernetes-validations": [{"rule": "self.immutable == oldSelf.immutable",
                                               "message": "immutable is immutable"}],
                 "properties": {
                     "x": {"type": "integer", "default": 0},
                     "y": {"type": "integer", "default": 0},
                     "immutable": {"type": "string", "default": ""},
                     "extra": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('anything')"}]},
                     "floatMap": {"type": "object", "additionalProperties": {"type": "number"},
                                  "x-kubernetes-validations": [{"rule": "self.all(k, self[k] >= 0.2)"}]},
                     "limit": {"nullable": True, "x-kubernetes-int-or-string": True,
                               "x-kubernetes-validations": [{"rule": "type(self) == int && self == 123"}]}}},
        "status": {"type": "object", "properties": {"z": {"type": "integer", "default": 0}}}}}
ROOT_RULE = "self.spec.x + self.spec.y >= (has(self.status) ? self.status.z : 0)"


_SUFFIX = itertools.count()


def _kind(base: str) -> str:
    """A kind of its own per test run (the module's server serves both kernel modes)."""
    return base + "".join(chr(ord("a") + int(d)) for d in str(next(_SUFFIX)))


def _crd(kind: str, schema: dict) -> dict:
    plural = kind.lower() + "s"
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Cluster", "names": {"plural": plural, "kind": kind},
                     "versions": [{"name": "v1beta1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}, "subresources": {"status": {}}}]}}


@pytest.fixture(scope="module")
def server():
    with APIServer() as s:
        yield s


@pytest.fixture(scope="module")
def clients(server):
    from kubernetes import client, config

    cfg = client.Configuration()
    config.load_kube_config(config_file=server.kubeconfig, client_configuration=cfg)
    with client.ApiClient(cfg) as c:
        yield client.ApiextensionsV1Api(c), client.CustomObjectsApi(c)


def _established(ext, name: str) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        crd = ext.read_custom_resource_definition(name)
        if any(c.type == "Established" and c.status == "True" for c in crd.status.conditions or ()):
            return
        time.sleep(0.05)
    raise AssertionError(f"{name} not Established")


def _status(exc) -> dict:
    body = exc.body.decode() if isinstance(exc.body, bytes) else exc.body
    assert body.lstrip().startswith("{"), f"{exc.status}: {body!r}"
    return json.loads(body)


def test_rules_on_create_update_and_status(clients) -> None:
    pytest.importorskip("celpy", reason="cel-python (kcodec[cel]) is not installed: CEL rules are not evaluated")
    from kubernetes.client.rest import ApiException

    ext, api = clients
    kind = _kind("Structural")
    ext.create_custom_resource_definition(_crd(kind, SCHEMA))
    _established(ext, f"{kind.lower()}s.{GROUP}")
    args = (GROUP, "v1beta1", kind.lower() + "s")
    body = {"apiVersion": f"{GROUP}/v1beta1", "kind": kind, "metadata": {"name": "cr-1"},
            "spec": {"x": -1, "y": 0}}
    with pytest.raises(ApiException) as err:
        api.create_cluster_custom_object(*args, body)
    status = _status(err.value)
    assert err.value.status == 422 and status["reason"] == "Invalid"
    assert status["message"] == f'{kind}.{GROUP} "cr-1" is invalid: <nil>: Invalid value: failed rule: {ROOT_RULE}'
    assert status["details"]["causes"] == [{"reason": "FieldValueInvalid", "message": f"Invalid value: failed rule: {ROOT_RULE}",
                                            "field": "<nil>"}]
    with pytest.raises(ApiException):
        api.get_cluster_custom_object(*args, "cr-1")  # nothing stored

    body["spec"] = {"x": 2, "y": 2, "immutable": "a", "extra": "anything?", "floatMap": {"key1": 0.2, "key2": 0.3},
                    "limit": None}
    cr = api.create_cluster_custom_object(*args, body)
    assert cr["spec"]["x"] == 2 and api.get_cluster_custom_object(*args, "cr-1")["spec"]["extra"] == "anything?"

    for spec, message in [
        ({"x": 3, "y": -4, "immutable": "a"}, f"<nil>: Invalid value: failed rule: {ROOT_RULE}"),
        ({"immutable": "a", "extra": "something"},
         "spec.extra: Invalid value: \"something\": failed rule: self.startsWith('anything')"),
        ({"immutable": "a", "floatMap": {"key1": 0.1, "key2": 0.2}},
         "spec.floatMap: Invalid value: failed rule: self.all(k, self[k] >= 0.2)"),
        ({"immutable": "a", "limit": 7}, "spec.limit: Invalid value: 7: failed rule: type(self) == int && self == 123"),
        ({"immutable": "b"}, "spec: Invalid value: immutable is immutable"),  # the transition rule
    ]:
        with pytest.raises(ApiException) as err:
            api.replace_cluster_custom_object(*args, "cr-1", {**cr, "spec": spec})
        assert err.value.status == 422
        assert _status(err.value)["message"] == f'{kind}.{GROUP} "cr-1" is invalid: {message}'
    updated = api.replace_cluster_custom_object(*args, "cr-1", {**cr, "spec": {"x": 5, "y": 5, "immutable": "a"}})
    assert updated["spec"]["x"] == 5 and updated["metadata"]["generation"] == 2

    # the root rule sees status: a status update is validated too
    with pytest.raises(ApiException) as err:
        api.replace_cluster_custom_object_status(*args, "cr-1", {**updated, "status": {"z": 11}})
    assert _status(err.value)["message"] == f'{kind}.{GROUP} "cr-1" is invalid: <nil>: Invalid value: failed rule: {ROOT_RULE}'
    assert api.replace_cluster_custom_object_status(*args, "cr-1", {**updated, "status": {"z": 10}})["status"] == {"z": 10}


def test_rule_that_does_not_compile_refuses_the_crd(clients) -> None:
    pytest.importorskip("celpy", reason="cel-python (kcodec[cel]) is not installed: CEL rules are not evaluated")
    from kubernetes.client.rest import ApiException

    ext, _ = clients
    schema = {"type": "object", "x-kubernetes-validations": [{"rule": "self.metadata.labels.size() > 0"}],
              "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string"}}},
                             "spec": {"type": "object", "properties": {}}}}
    kind = _kind("InvalidStructuralMetadata")
    with pytest.raises(ApiException) as err:
        ext.create_custom_resource_definition(_crd(kind, schema))
    status = _status(err.value)
    assert err.value.status == 422 and status["reason"] == "Invalid"
    assert status["message"] == (
        f'CustomResourceDefinition.apiextensions.k8s.io "{kind.lower()}s.{GROUP}" is invalid: '
        'spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: '
        '{"Rule":"self.metadata.labels.size() \\u003e 0","Message":"","MessageExpression":"","Reason":null,'
        '"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:14: undefined field \'labels\'\n'
        ' | self.metadata.labels.size() > 0\n | .............^')
    assert status["details"]["causes"][0]["field"] == "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule"
    with pytest.raises(ApiException) as err:
        ext.read_custom_resource_definition(f"{kind.lower()}s.{GROUP}")
    assert err.value.status == 404

    # an update that brings a rule that does not compile is refused as well (versions differ:
    # the path goes through spec.versions)
    kind = _kind("Updated")
    crd = _crd(kind, {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "a": {"type": "integer"}}}}})
    crd["spec"]["versions"].append({**crd["spec"]["versions"][0], "name": "v1", "storage": False,
                                    "schema": {"openAPIV3Schema": {"type": "object"}}})
    ext.create_custom_resource_definition(crd)
    _established(ext, f"{kind.lower()}s.{GROUP}")
    stored = ext.api_client.sanitize_for_serialization(ext.read_custom_resource_definition(f"{kind.lower()}s.{GROUP}"))
    stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] = [
        {"rule": "self.b == 1"}]
    with pytest.raises(ApiException) as err:
        ext.replace_custom_resource_definition(f"{kind.lower()}s.{GROUP}", stored)
    status = _status(err.value)
    assert err.value.status == 422 and status["details"]["causes"][0]["field"] == (
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule")
    assert status["message"].endswith("compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b == 1\n"
                                      " | ....^")


def test_kubectl_sees_go_texts(server, clients) -> None:
    pytest.importorskip("celpy", reason="cel-python (kcodec[cel]) is not installed: CEL rules are not evaluated")
    if KUBECTL is None:
        pytest.skip("kubectl is not on PATH")
    ext, _ = clients
    schema = {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"replicas": {"type": "integer"}, "maxReplicas": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": "self.replicas <= self.maxReplicas",
                                      "messageExpression": "'replicas ' + string(self.replicas) + ' over ' + "
                                                           "string(self.maxReplicas)",
                                      "fieldPath": ".replicas"}]}}}
    kind = _kind("Scaler")
    ext.create_custom_resource_definition(_crd(kind, schema))
    _established(ext, f"{kind.lower()}s.{GROUP}")

    def kubectl(*a: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([KUBECTL, "--kubeconfig", server.kubeconfig, *a], input=stdin, capture_output=True,
                              text=True, timeout=60)

    obj = {"apiVersion": f"{GROUP}/v1beta1", "kind": kind, "metadata": {"name": "s1"},
           "spec": {"replicas": 5, "maxReplicas": 3}}
    r = kubectl("apply", "-f", "-", stdin=json.dumps(obj))
    assert r.returncode == 1
    assert r.stderr.strip().endswith(f'The {kind} "s1" is invalid: spec.replicas: Invalid value: replicas 5 over 3')
    obj["spec"]["maxReplicas"] = 9
    r = kubectl("apply", "-f", "-", stdin=json.dumps(obj))
    assert r.returncode == 0 and r.stdout.strip() == f"{kind.lower()}.{GROUP}/s1 created"
    r = kubectl("patch", kind.lower(), "s1", "--type=merge", "-p", '{"spec":{"replicas":10}}')
    assert r.returncode == 1 and 'spec.replicas: Invalid value: replicas 10 over 9' in r.stderr


def test_without_cel_library_crd_is_stored_with_a_warning(clients, monkeypatch) -> None:
    from kcodec.api.apiextensions import cel
    from kcodec.api.apiextensions.cel import loader

    # the server runs in this process: make the library look absent
    monkeypatch.setattr(loader, "celpy", False)
    ext, api = clients
    schema = {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"a": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": "self.a < 3"}]}}}
    kind = _kind("NoCel")
    _, code, headers = ext.create_custom_resource_definition_with_http_info(_crd(kind, schema))
    assert code == 201
    assert headers.get("Warning") == f'299 - "{cel.CEL_UNAVAILABLE_WARNING}"'
    _established(ext, f"{kind.lower()}s.{GROUP}")
    body = {"apiVersion": f"{GROUP}/v1beta1", "kind": kind, "metadata": {"name": "n1"}, "spec": {"a": 5}}
    assert api.create_cluster_custom_object(GROUP, "v1beta1", kind.lower() + "s", body)["spec"] == {"a": 5}


def test_ratcheting_over_http(clients) -> None:
    """CRDValidationRatcheting (on by default since 1.30): a rule added to the CRD later does
    not block updates that leave the failing value as it is; the client gets a Warning."""
    pytest.importorskip("celpy", reason="cel-python (kcodec[cel]) is not installed: CEL rules are not evaluated")
    from kubernetes.client.rest import ApiException

    ext, api = clients
    kind = _kind("Ratchet")
    name = f"{kind.lower()}s.{GROUP}"
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "replicas": {"type": "integer"}, "note": {"type": "string"}}}}}
    ext.create_custom_resource_definition(_crd(kind, schema))
    _established(ext, name)
    args = (GROUP, "v1beta1", kind.lower() + "s")
    cr = api.create_cluster_custom_object(*args, {"apiVersion": f"{GROUP}/v1beta1", "kind": kind,
                                                  "metadata": {"name": "r1"}, "spec": {"replicas": 50}})
    crd = ext.api_client.sanitize_for_serialization(ext.read_custom_resource_definition(name))
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["replicas"][
        "x-kubernetes-validations"] = [{"rule": "self <= 10", "message": "at most 10 replicas"}]
    ext.replace_custom_resource_definition(name, crd)
    deadline = time.monotonic() + 10
    while True:  # the served schema follows the CRD's update
        try:
            api.create_cluster_custom_object(*args, {"apiVersion": f"{GROUP}/v1beta1", "kind": kind,
                                                     "metadata": {"name": "probe"}, "spec": {"replicas": 11}})
        except ApiException as err:
            assert _status(err)["message"] == f'{kind}.{GROUP} "probe" is invalid: spec.replicas: Invalid value: 11: at most 10 replicas'
            break
        api.delete_cluster_custom_object(*args, "probe")
        assert time.monotonic() < deadline, "the rule was never applied"
        time.sleep(0.05)
    cr = api.get_cluster_custom_object(*args, "r1")
    updated, code, headers = api.replace_cluster_custom_object_with_http_info(
        *args, "r1", {**cr, "spec": {"replicas": 50, "note": "unrelated change"}})
    assert code == 200 and updated["spec"]["note"] == "unrelated change"
    assert headers.get("Warning") == '299 - "spec.replicas: Invalid value: 50: at most 10 replicas"'
    with pytest.raises(ApiException) as err:
        api.replace_cluster_custom_object(*args, "r1", {**updated, "spec": {"replicas": 51}})
    assert _status(err.value)["message"] == f'{kind}.{GROUP} "r1" is invalid: spec.replicas: Invalid value: 51: at most 10 replicas'


def test_optional_syntax_and_semver_rules_over_http(clients) -> None:
    """Rules with cel-go's optional syntax (a.?f, m[?k], [?x, y]), an optionalOldSelf
    transition rule that selects on oldSelf, and the semver library, as kube-apiserver's
    environment has them (apiserver pkg/cel/environment/base.go: cel.OptionalTypes(),
    library.SemverLib); results as apiextensions validation_test.go's optionals and
    TestOptionalOldSelf cases give them."""
    pytest.importorskip("celpy", reason="cel-python (kcodec[cel]) is not installed: CEL rules are not evaluated")
    from kubernetes.client.rest import ApiException

    ext, api = clients
    schema = {"type": "object", "properties": {"spec": {
        "type": "object",
        "properties": {"replicas": {"type": "integer"}, "maxReplicas": {"type": "integer"},
                       "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                       "primary": {"type": "string"}, "secondary": {"type": "string"},
                       "mode": {"type": "string"}, "version": {"type": "string"}},
        "x-kubernetes-validations": [
            {"rule": "self.?replicas.orValue(1) <= self.?maxReplicas.orValue(10)",
             "message": "replicas over maxReplicas"},
            {"rule": "self.?labels[?'tier'].orValue('web') in ['web', 'db']", "message": "unknown tier"},
            {"rule": "[?self.?primary, ?self.?secondary].size() <= 1", "message": "primary and secondary exclude"},
            {"rule": "oldSelf.mode.orValue('') != 'locked' || self.?mode == optional.of('locked')",
             "optionalOldSelf": True, "message": "locked stays locked"},
            {"rule": "!has(self.version) || isSemver(self.version, true) && "
                     "semver(self.version, true).isGreaterThan(semver('1.0.0'))",
             "messageExpression": "'version ' + self.version + ' is not a semver above 1.0.0'"}]}}}
    kind = _kind("Optional")
    ext.create_custom_resource_definition(_crd(kind, schema))
    _established(ext, f"{kind.lower()}s.{GROUP}")
    args = (GROUP, "v1beta1", kind.lower() + "s")

    def body(name: str, spec: dict) -> dict:
        return {"apiVersion": f"{GROUP}/v1beta1", "kind": kind, "metadata": {"name": name}, "spec": spec}

    for spec, message in [
        ({"replicas": 11}, "spec: Invalid value: replicas over maxReplicas"),
        ({"replicas": 3, "maxReplicas": 2}, "spec: Invalid value: replicas over maxReplicas"),
        ({"labels": {"tier": "cache"}}, "spec: Invalid value: unknown tier"),
        ({"primary": "a", "secondary": "b"}, "spec: Invalid value: primary and secondary exclude"),
        ({"version": "v0.9"}, "spec: Invalid value: version v0.9 is not a semver above 1.0.0"),
        ({"version": "1.2.x"}, "spec: Invalid value: version 1.2.x is not a semver above 1.0.0"),
    ]:
        with pytest.raises(ApiException) as err:
            api.create_cluster_custom_object(*args, body("bad", spec))
        assert err.value.status == 422
        assert _status(err.value)["message"] == f'{kind}.{GROUP} "bad" is invalid: {message}'

    cr = api.create_cluster_custom_object(*args, body("o1", {"replicas": 5, "labels": {"tier": "db"},
                                                             "secondary": "b", "mode": "locked", "version": "v1.2"}))
    assert cr["spec"]["mode"] == "locked"
    assert api.create_cluster_custom_object(*args, body("o2", {}))["spec"] == {}  # every field absent
    with pytest.raises(ApiException) as err:  # the transition rule reads oldSelf.mode
        api.replace_cluster_custom_object(*args, "o1", {**cr, "spec": {**cr["spec"], "mode": "open"}})
    assert _status(err.value)["message"] == f'{kind}.{GROUP} "o1" is invalid: spec: Invalid value: locked stays locked'
    updated = api.replace_cluster_custom_object(*args, "o1", {**cr, "spec": {**cr["spec"], "replicas": 6}})
    assert updated["spec"]["replicas"] == 6

    # a rule selecting an undeclared field with .? does not compile: the CRD is refused
    bad = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}},
                                                     "x-kubernetes-validations": [{"rule": "self.?b.hasValue()"}]}}}
    with pytest.raises(ApiException) as err:
        ext.create_custom_resource_definition(_crd(_kind("OptionalBad"), bad))
    status = _status(err.value)
    assert err.value.status == 422 and status["details"]["causes"][0]["field"] == (
        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule")
    assert status["message"].endswith("compilation failed: ERROR: <input>:1:5: undefined field 'b'\n"
                                      " | self.?b.hasValue()\n | ....^")
