"""kcodec.api.autoscaling.validation and kcodec.api.networking.validation against k/k
pkg/apis/autoscaling/validation/validation.go (ValidateHorizontalPodAutoscaler) and
pkg/apis/networking/validation/validation.go (ValidateIngressCreate)."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.autoscaling import validation as hv
from kcodec.api.networking import validation as nv


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


def hpa(**spec):
    base = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5}
    base.update(spec)
    return internal({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                     "metadata": {"name": "web", "namespace": "default"}, "spec": base})


def test_hpa():
    assert not hv.validate_horizontal_pod_autoscaler(hpa())
    bad = hpa(minReplicas=0, maxReplicas=0, scaleTargetRef={"kind": "", "name": "a/b"},
              metrics=[{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Percent"}}},
                       {"type": "Pods"}],
              behavior={"scaleUp": {"policies": [{"type": "Pods", "value": 0, "periodSeconds": 4000}]}})
    got = msgs(hv.validate_horizontal_pod_autoscaler(bad))
    assert got == [
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
        "spec.maxReplicas: Invalid value: 0: must be greater than 0",
        "spec.scaleTargetRef.kind: Required value",
        "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'",
        'spec.metrics[0].resource.target.type: Invalid value: "Percent": must be either Utilization, Value, or '
        "AverageValue",
        "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a "
        "target utilization",
        "spec.metrics[1].pods: Required value: must populate information for the given metric source",
        "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero "
        "replicas",
        "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
        "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 4000: must be less than or equal to 1800",
    ]


def ingress(spec: dict, annotations=None):
    meta = {"name": "web", "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return internal({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta, "spec": spec})


def test_ingress():
    good = {"rules": [{"host": "example.com", "http": {"paths": [
        {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}
    assert not nv.validate_ingress(ingress(good))
    assert msgs(nv.validate_ingress(ingress({}))) == [
        "spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"]
    bad = {"ingressClassName": "nginx", "rules": [{"host": "10.0.0.1", "http": {"paths": [
        {"path": "/a/../b", "pathType": "Exact", "backend": {"service": {"name": "web", "port": {}}}},
        {"path": "x", "pathType": "Regex", "backend": {}}]}}],
           "tls": [{"hosts": ["*.Example.com"], "secretName": "TLS"}]}
    got = msgs(nv.validate_ingress(ingress(bad, {"kubernetes.io/ingress.class": "traefik"})))
    assert got[0] == 'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address'
    assert "spec.rules[0].http.paths[0].path: Invalid value: \"/a/../b\": must not contain '/../'" in got
    assert "spec.rules[0].http.paths[0].backend: Required value: port name or number is required" in got
    assert 'spec.rules[0].http.paths[1].pathType: Unsupported value: "Regex": supported values: "Exact", ' \
           '"ImplementationSpecific", "Prefix"' in got
    assert 'spec.rules[0].http.paths[1].backend: Invalid value: "": resource or service backend is required' in got
    assert any(m.startswith('spec.tls[0].hosts[0]: Invalid value: "*.Example.com": a wildcard DNS-1123 subdomain')
               for m in got)
    assert got[-1] == 'annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match ' \
                      "`ingressClassName` when both are specified"
