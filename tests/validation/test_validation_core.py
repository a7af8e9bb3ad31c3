"""kcodec.api.core.validation against k/k pkg/apis/core/validation/validation.go: the texts
and field paths of ValidatePodCreate, ValidatePodUpdate, ValidateService, ValidateSecret,
ValidateConfigMap, ValidateNamespace, ValidatePersistentVolumeClaim on internal objects
(decoded, defaulted and converted by kcodec.legacyscheme as kube-apiserver does)."""
from __future__ import annotations

import json

import pytest

from kcodec import legacyscheme
from kcodec.api.core import validation as cv
from kcodec.validation.field import ErrorType


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def pod(**spec_extra) -> dict:
    spec = {"containers": [{"name": "web", "image": "nginx:1.27"}]}
    spec.update(spec_extra)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": spec}


def msgs(errs) -> list[str]:
    return [str(e) for e in errs]


def test_valid_pod():
    assert not cv.validate_pod(internal(pod()))


def test_pod_field_errors():
    doc = pod(containers=[{"name": "Web_1", "image": "", "ports": [{"containerPort": 70000, "protocol": "tcp"}],
                           "env": [{"name": "A=B"}], "volumeMounts": [{"name": "missing", "mountPath": "/x"}]}],
              restartPolicy="Sometimes", dnsPolicy="Bogus")
    got = msgs(cv.validate_pod(internal(doc)))
    assert 'spec.containers[0].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case ' \
           "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or " \
           "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')" in got
    assert "spec.containers[0].image: Required value" in got
    assert "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive" in got
    assert 'spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"' in got
    assert 'spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only ' \
           "of printable ASCII characters other than '='" in got
    assert 'spec.containers[0].volumeMounts[0].name: Not found: "missing"' in got
    assert 'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"' in got
    assert 'spec.dnsPolicy: Unsupported value: "Bogus": supported values: "ClusterFirstWithHostNet", "ClusterFirst", ' \
           '"Default", "None"' in got


def test_pod_resources_and_probes():
    doc = pod(containers=[{"name": "c", "image": "i",
                           "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "2", "memory": "-1"}},
                           "livenessProbe": {"exec": {"command": ["true"]}, "successThreshold": 2}}])
    got = msgs(cv.validate_pod(internal(doc)))
    assert 'spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0' in got
    assert 'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1' in got
    assert "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1" in got


def test_pod_volumes():
    doc = pod(volumes=[{"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}, "configMap": {"name": "x"}},
                       {"name": "c"}, {"name": "a", "secret": {"secretName": "s", "defaultMode": 4096}}])
    got = msgs(cv.validate_pod(internal(doc)))
    assert "spec.volumes[1].configMap: Forbidden: may not specify more than 1 volume type" in got
    assert "spec.volumes[2]: Required value: must specify a volume type" not in got  # defaulted to emptyDir
    assert "spec.volumes[3].secret.defaultMode: Invalid value: 4096: must be a number between 0 and 0777 (octal), " \
           "both inclusive" in got
    # ValidateVolumes counts a name as taken only once its volume validated cleanly.
    assert 'spec.volumes[3].name: Duplicate value: "a"' in got


def test_pod_update_immutability():
    old = internal(pod())
    old.metadata.resource_version = "1"
    new = old.deep_copy()
    new.spec.containers[0].image = "nginx:1.28"
    assert not cv.validate_pod_update(new, old)
    new.spec.restart_policy = "Never"
    errs = cv.validate_pod_update(new, old)
    assert len(errs) == 1 and errs[0].type is ErrorType.FORBIDDEN and errs[0].field == "spec"
    assert errs[0].detail.startswith(
        "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
        "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
        "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative),"
        "`spec.containers[*].resources` (for CPU/memory only)\n")
    new = old.deep_copy()
    new.spec.containers.append(old.spec.containers[0].deep_copy())
    assert msgs(cv.validate_pod_update(new, old))[-1] == \
        "spec.containers: Forbidden: pod updates may not add or remove containers"


def test_service():
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}}
    assert not cv.validate_service(internal(svc))
    bad = json.loads(json.dumps(svc))
    bad["metadata"]["name"] = "1web"
    bad["spec"]["ports"] = [{"port": 80}, {"port": 80, "name": "b"}]
    bad["spec"]["type"] = "ExternalName"
    got = msgs(cv.validate_service(internal(bad)))
    assert got[0].startswith('metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case')
    assert "spec.ports[0].name: Required value" in got
    assert "spec.externalName: Required value" in got
    assert 'spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,' \
           '"TargetPort":0,"NodePort":0}' in got


def test_secret_and_config_map():
    s = internal({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "d"},
                  "type": "kubernetes.io/tls", "data": {"bad key": "YQ=="}})
    got = msgs(cv.validate_secret(s))
    assert got[0].startswith('data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric')
    assert got[1:] == ["data[tls.crt]: Required value", "data[tls.key]: Required value"]
    s = internal({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "d"},
                  "type": "kubernetes.io/dockerconfigjson", "data": {".dockerconfigjson": "W10="}})
    assert msgs(cv.validate_secret(s)) == [
        'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go '
        "value of type map[string]interface {}"]
    cm = internal({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "d"},
                   "data": {"k": "x" * (1024 * 1024 + 1)}})
    assert msgs(cv.validate_config_map(cm)) == ["[]: Too long: may not be more than 1048576 bytes"]
    old = internal({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "d",
                    "resourceVersion": "1"}, "immutable": True, "data": {"a": "1"}})
    new = old.deep_copy()
    new.data = {"a": "2"}
    assert msgs(cv.validate_config_map_update(new, old)) == [
        "data: Forbidden: field is immutable when `immutable` is set"]


def test_namespace_and_finalizers():
    ns = internal({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "Prod", "finalizers": ["custom"]}})
    got = msgs(cv.validate_namespace(ns))
    assert got[0].startswith('metadata.name: Invalid value: "Prod": a lowercase RFC 1123 label')
    assert 'metadata.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it ' \
           "fully qualified" in got


def test_pvc():
    pvc = internal({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "d"},
                    "spec": {"accessModes": ["ReadWriteOncePod", "ReadOnlyMany"], "resources": {"requests": {}}}})
    assert msgs(cv.validate_persistent_volume_claim(pvc)) == [
        "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
        "spec.resources[storage]: Required value",
    ]


@pytest.mark.parametrize("hostile", ["\udcff", "a" * 100_000, "\x00"])
def test_hostile_names_give_errors(hostile):
    doc = pod()
    doc["metadata"]["name"] = "p"
    obj = internal(doc)
    obj.metadata.name = hostile
    obj.spec.containers[0].name = hostile
    errs = cv.validate_pod(obj)
    assert errs and all(isinstance(str(e), str) for e in errs)
