"""APIService: k8s.io/kube-aggregator pkg/apis/apiregistration/validation/validation.go
ValidateAPIService, ValidateAPIServiceUpdate, ValidateAPIServiceStatusUpdate."""
from __future__ import annotations

import base64
import json

from kcodec import legacyscheme
from kcodec.api.apiregistration import validation as av


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def api_service(name: str = "v1beta1.metrics.k8s.io", **spec):
    base = {"group": "metrics.k8s.io", "version": "v1beta1", "groupPriorityMinimum": 100, "versionPriority": 100,
            "service": {"name": "metrics-server", "namespace": "kube-system"}, "insecureSkipTLSVerify": True}
    base.update(spec)
    return internal({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                     "metadata": {"name": name, "resourceVersion": "1"}, "spec": base})


def msgs(errs):
    return [str(e) for e in errs]


def test_valid():
    assert msgs(av.validate_api_service(api_service())) == []
    local = api_service("v1.apps", group="apps", version="v1", service=None, insecureSkipTLSVerify=False)
    assert msgs(av.validate_api_service(local)) == []
    assert msgs(av.validate_api_service(api_service("v1.", group="", version="v1", service=None,
                                                    insecureSkipTLSVerify=False))) == []


def test_invalid():
    assert msgs(av.validate_api_service(api_service("metrics"))) == [
        'metadata.name: Invalid value: "metrics": must be `spec.version+"."+spec.group`: "v1beta1.metrics.k8s.io"']
    assert msgs(av.validate_api_service(api_service("v2.", group="", version="v2"))) == [
        "spec.group: Required value: only v1 may have an empty group and it better be legacy kube"]
    assert msgs(av.validate_api_service(api_service("v1beta1.metrics.k8s.io", groupPriorityMinimum=0,
                                                    versionPriority=1001))) == [
        "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
        "spec.versionPriority: Invalid value: 1001: must be positive and less than 1000"]
    ca = base64.b64encode(b"0123456789").decode()
    assert msgs(av.validate_api_service(api_service(caBundle=ca))) == [
        "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"]
    assert msgs(av.validate_api_service(api_service(service=None, caBundle=ca))) == [
        'spec.caBundle: Invalid value: "10 bytes": local APIServices may not have a caBundle',
        "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify"]
    assert msgs(av.validate_api_service(api_service(service={"name": "", "namespace": "", "port": 70000}))) == [
        "spec.service.namespace: Required value",
        "spec.service.name: Required value",
        "spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive"]


def test_status_update():
    old = api_service()
    new = internal({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                    "metadata": {"name": "v1beta1.metrics.k8s.io", "resourceVersion": "1"},
                    "spec": {"group": "metrics.k8s.io", "version": "v1beta1", "groupPriorityMinimum": 100,
                             "versionPriority": 100},
                    "status": {"conditions": [{"type": "Available", "status": "Maybe"}]}})
    assert msgs(av.validate_api_service_status_update(new, old)) == [
        'status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"']
