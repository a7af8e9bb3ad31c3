"""EndpointSlice: k/k pkg/apis/discovery/validation/validation.go ValidateEndpointSliceCreate,
ValidateEndpointSliceUpdate, validateEndpoints, validatePorts, validateHints (cases after
validation_test.go TestValidateEndpointSlice)."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.discovery import validation as dv


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def eps(address_type="IPv4", endpoints=None, ports=None):
    doc = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
           "metadata": {"name": "hello", "namespace": "default", "resourceVersion": "1"},
           "addressType": address_type,
           "endpoints": endpoints if endpoints is not None else [{"addresses": ["10.1.2.3"], "nodeName": "node-1",
                                                                  "zone": "a", "hints": {"forZones": [{"name": "a"}]}}],
           "ports": ports if ports is not None else [{"name": "http", "protocol": "TCP", "port": 80}]}
    return internal(doc)


def msgs(errs):
    return [str(e) for e in errs]


def test_valid():
    assert msgs(dv.validate_endpoint_slice(eps())) == []
    assert msgs(dv.validate_endpoint_slice(eps("IPv6", [{"addresses": ["2001:db8::1"], "hostname": "web-0"}]))) == []
    assert msgs(dv.validate_endpoint_slice(eps("FQDN", [{"addresses": ["example.com"]}]))) == []
    assert msgs(dv.validate_endpoint_slice(eps(ports=[{"name": "", "port": 1}, {"name": "b", "port": 2,
                                                                                  "appProtocol": "kubernetes.io/h2c"}]))) == []


def test_invalid():
    assert msgs(dv.validate_endpoint_slice(eps("IP"))) == [
        'addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"']
    assert msgs(dv.validate_endpoint_slice(eps(endpoints=[{"addresses": []}, {"addresses": ["2001:db8::1", "127.0.0.1"]}]))) == [
        "endpoints[0].addresses: Required value: must contain at least 1 address",
        'endpoints[1].addresses[0]: Invalid value: "2001:db8::1": must be a valid IPv4 address',
        'endpoints[1].addresses[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, '
        "::1/128)"]
    assert msgs(dv.validate_endpoint_slice(eps(ports=[{"name": "a", "protocol": "FOO"}, {"name": "a"}]))) == [
        'ports[0].protocol: Unsupported value: "FOO": supported values: "SCTP", "TCP", "UDP"',
        'ports[1].name: Duplicate value: "a"']
    assert msgs(dv.validate_endpoint_slice(eps(endpoints=[{"addresses": ["10.0.0.1"], "hostname": "A_B",
                                                          "hints": {"forZones": [{"name": "a"}, {"name": "a"}]}}]))) == [
        'endpoints[0].hostname: Invalid value: "A_B": a lowercase RFC 1123 label must consist of lower case '
        "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
        "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'endpoints[0].hints.forZones[1].name: Duplicate value: "a"']
    too_many = [{"addresses": ["10.0.0.1"]}] * 1001
    assert msgs(dv.validate_endpoint_slice(eps(endpoints=too_many))) == [
        "endpoints: Too many: 1001: must have at most 1000 items"]


def test_update():
    assert msgs(dv.validate_endpoint_slice_update(eps("IPv6", [{"addresses": ["2001:db8::1"]}]), eps())) == [
        'addressType: Invalid value: "IPv6": field is immutable']
