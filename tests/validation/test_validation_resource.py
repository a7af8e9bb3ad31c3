"""resource.k8s.io validation on internal objects (DeviceClass, ResourceClaim,
ResourceClaimTemplate), cases rebuilt from k/k pkg/apis/resource/validation/
validation_resourceclaim_test.go, validation_deviceclass_test.go and
validation_resourceclaimtemplate_test.go; the corpus's DRA examples validate."""
from __future__ import annotations

import copy
import json

from kcodec import legacyscheme
from kcodec.api.resource import validation as rv
from kcodec.registry.builtin import strategies

DNS_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                 "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
                 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


GOOD = {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "class"}}]}


def claim(devices: dict, **meta):
    return internal({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": "claim", "namespace": "kube-system", "resourceVersion": "1", **meta},
                     "spec": {"devices": devices}})


def errs_of(devices: dict) -> list[str]:
    return msgs(rv.validate_resource_claim(claim(devices)))


def test_claim_requests():
    assert errs_of(GOOD) == []
    assert errs_of({"requests": [{"name": "req-0"}]}) == [
        "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"]
    assert errs_of({"requests": [{"name": "req-0", "exactly": {"deviceClassName": "class"},
                                  "firstAvailable": [{"name": "sub", "deviceClassName": "class"}]}]}) == [
        "spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, "
        "but multiple fields are set"]
    assert errs_of({"requests": [{"name": "Req_0", "exactly": {"deviceClassName": ""}},
                                 {"name": "Req_0", "exactly": {"deviceClassName": "class"}}]}) == [
        f'spec.devices.requests[0].name: Invalid value: "Req_0": {DNS_LABEL_MSG}',
        "spec.devices.requests[0].exactly.deviceClassName: Required value",
        f'spec.devices.requests[1].name: Invalid value: "Req_0": {DNS_LABEL_MSG}',
        'spec.devices.requests[1]: Duplicate value: "Req_0"']
    too_many = {"requests": [{"name": f"r{i}", "exactly": {"deviceClassName": "c"}} for i in range(33)]}
    assert errs_of(too_many) == ["spec.devices.requests: Too many: 33: must have at most 32 items"]


def test_allocation_modes_selectors_tolerations():
    def exactly(**fields):
        return errs_of({"requests": [{"name": "r", "exactly": {"deviceClassName": "class", **fields}}]})

    assert exactly(allocationMode="All") == []
    assert exactly(allocationMode="All", count=2) == [
        "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"]
    assert exactly(allocationMode="ExactCount", count=-1) == [
        "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"]
    assert exactly(allocationMode="Some") == [
        'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": supported values: "All", '
        '"ExactCount"']
    assert exactly(selectors=[{}, {"cel": {"expression": "x" * (10 * 1024 + 1)}}, {"cel": {"expression": " "}}]) == [
        "spec.devices.requests[0].exactly.selectors[0].cel: Required value",
        "spec.devices.requests[0].exactly.selectors[1].cel.expression: Too long: may not be more than 10240 bytes",
        "spec.devices.requests[0].exactly.selectors[2].cel.expression: Required value: expression must not be empty"]
    assert exactly(tolerations=[{"key": "a", "operator": "Exists", "value": "x"},
                                {"operator": "Equal", "value": "-bad-"},
                                {"operator": "Maybe", "effect": "Never"}]) == [
        'spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: "x": must be empty for operator '
        "`Exists`",
        'spec.devices.requests[0].exactly.tolerations[1].value: Invalid value: "-bad-": a valid label must be an '
        "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        'spec.devices.requests[0].exactly.tolerations[2].operator: Unsupported value: "Maybe": supported values: '
        '"Equal", "Exists"',
        'spec.devices.requests[0].exactly.tolerations[2].effect: Unsupported value: "Never": supported values: '
        '"NoExecute", "NoSchedule", "None"']


def test_first_available_constraints_config():
    devices = {"requests": [{"name": "req", "firstAvailable": [{"name": "a", "deviceClassName": "c"},
                                                               {"name": "b", "deviceClassName": "c"}]},
                            {"name": "other", "exactly": {"deviceClassName": "c"}}],
               "constraints": [{"requests": ["req/a", "other"], "matchAttribute": "dra.example.com/model"}],
               "config": [{"requests": ["req"], "opaque": {"driver": "dra.example.com", "parameters": {"a": 1}}}]}
    assert errs_of(devices) == []
    bad = copy.deepcopy(devices)
    bad["constraints"] = [{"requests": ["req/c", "a/b/c"], "matchAttribute": "model"}, {}]
    bad["config"] = [{"requests": ["nope"], "opaque": {"driver": "", "parameters": [1]}}, {"requests": ["other"]}]
    ref = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
    assert errs_of(bad) == [
        f'spec.devices.constraints[0].requests[0]: Invalid value: "req/c": {ref}',
        f'spec.devices.constraints[0].requests[1]: Invalid value: "a/b/c": {ref}',
        'spec.devices.constraints[0].matchAttribute: Invalid value: "model": a fully qualified name must be a '
        "domain and a name separated by a slash",
        "spec.devices.constraints[1].matchAttribute: Required value",
        f'spec.devices.config[0].requests[0]: Invalid value: "nope": {ref}',
        "spec.devices.config[0].opaque.driver: Required value",
        # ValidateCSIDriverName does not stop at the empty name
        'spec.devices.config[0].opaque.driver: Invalid value: "": a lowercase RFC 1123 subdomain must consist of '
        "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        'spec.devices.config[0].opaque.parameters: Invalid value: "<value omitted>": must be a valid JSON object',
        "spec.devices.config[1].opaque: Required value"]


def test_claim_update_and_status():
    old = claim(GOOD)
    changed = claim({"requests": [{"name": "req-1", "exactly": {"deviceClassName": "class"}}]})
    errs = msgs(rv.validate_resource_claim_update(changed, old))
    assert len(errs) == 1 and errs[0].startswith("spec: Invalid value: ") and errs[0].endswith("field is immutable")
    assert msgs(rv.validate_resource_claim_update(claim(GOOD), old)) == []
    consumer = {"resource": "pods", "name": "p", "uid": "1"}
    reserved = claim(GOOD)
    reserved.status = internal({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                                "metadata": {"name": "x"}, "spec": {"devices": GOOD},
                                "status": {"reservedFor": [consumer, consumer, {"resource": "pods"}]}}).status
    assert msgs(rv.validate_resource_claim_status_update(reserved, old)) == [
        "status.reservedFor[2].name: Required value", "status.reservedFor[2].uid: Required value",
        'status.reservedFor[1]: Duplicate value: "1"',
        "status.reservedFor: Forbidden: may not be specified when `allocated` is not set"]
    allocated = internal({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                          "metadata": {"name": "claim", "namespace": "kube-system", "resourceVersion": "1"},
                          "spec": {"devices": GOOD},
                          "status": {"allocation": {"devices": {"results": [
                              {"request": "req-0", "driver": "dra.example.com", "pool": "pool", "device": "gpu-0"},
                              {"request": "missing", "driver": "dra.example.com", "pool": "", "device": "GPU"}]}},
                              "reservedFor": [consumer]}})
    assert msgs(rv.validate_resource_claim_status_update(allocated, old)) == [
        'status.allocation.devices.results[1].request: Invalid value: "missing": must be the name of a request in '
        "the claim or the name of a request and a subrequest separated by '/'",
        "status.allocation.devices.results[1].pool: Required value",
        f'status.allocation.devices.results[1].device: Invalid value: "GPU": {DNS_LABEL_MSG}']


def test_device_class_and_template():
    def dc(spec: dict, name: str = "class"):
        return internal({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                         "metadata": {"name": name, "resourceVersion": "1"}, "spec": spec})

    good = dc({"selectors": [{"cel": {"expression": 'device.driver == "dra.example.com"'}}],
               "config": [{"opaque": {"driver": "dra.example.com", "parameters": {"kind": "x"}}}]})
    assert msgs(rv.validate_device_class(good)) == []
    assert msgs(rv.validate_device_class(dc({"selectors": [{}], "config": [{"opaque": {
        "driver": "dra.example.com", "parameters": {"k": "x" * 10240}}}], "extendedResourceName": "cpu"}))) == [
        "spec.selectors[0].cel: Required value",
        "spec.config[0].opaque.parameters: Too long: may not be more than 10240 bytes",
        'spec.extendedResourceName: Invalid value: "cpu": must be a valid extended resource name']
    assert msgs(rv.validate_device_class_update(good, good)) == []

    def tmpl(meta: dict, devices: dict):
        return internal({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                         "metadata": {"name": "t", "namespace": "default", "resourceVersion": "1"},
                         "spec": {"metadata": meta, "spec": {"devices": devices}}})

    assert msgs(rv.validate_resource_claim_template(tmpl({"labels": {"a": "b"}}, GOOD))) == []
    assert msgs(rv.validate_resource_claim_template(tmpl({"name": "x"}, {"requests": [{"name": "r"}]}))) == [
        "spec.metadata.name: Forbidden: cannot be set",
        "spec.spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"]
    errs = msgs(rv.validate_resource_claim_template_update(tmpl({}, {"requests": []}), tmpl({}, GOOD)))
    assert len(errs) == 1 and errs[0].endswith("field is immutable")


def test_strategies_find_the_validators():
    g = "resource.k8s.io"
    assert strategies.validation_function(g, "ResourceClaim", "_status_update") is rv.validate_resource_claim_status_update
    assert strategies.validation_function(g, "DeviceClass", "_update") is rv.validate_device_class_update
    assert strategies.validation_function(g, "ResourceClaimTemplate") is rv.validate_resource_claim_template


def rslice(spec: dict, name: str = "slice"):
    return internal({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                     "metadata": {"name": name, "resourceVersion": "1"}, "spec": spec})


SLICE = {"driver": "dra.example.com", "nodeName": "worker-1",
         "pool": {"name": "worker-1", "generation": 1, "resourceSliceCount": 1},
         "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "a100"}, "dra.example.com/v": {
             "version": "1.2.3"}}, "capacity": {"memory": {"value": "40Gi"}}}]}


def slice_errs(**over) -> list[str]:
    spec = copy.deepcopy(SLICE)
    spec.update(over)
    for k in [k for k, v in spec.items() if v is None]:
        del spec[k]
    return msgs(rv.validate_resource_slice(rslice(spec)))


def test_resource_slice_spec():
    """validation_resourceslice_test.go: node selection, pool, driver, counter sets."""
    assert slice_errs() == []
    assert slice_errs(nodeName=None) == [
        "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
        "required"]
    assert slice_errs(allNodes=True) == [
        'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, '
        "`perDeviceNodeSelection` is required, but multiple fields are set"]
    assert slice_errs(nodeName="", allNodes=True) == [
        'spec.nodeName: Invalid value: "": must be either unset or set to a non-empty string']
    assert slice_errs(pool={"name": "", "generation": -1, "resourceSliceCount": 0}, driver="Not_A_Driver")[:3] == [
        'spec.driver: Invalid value: "Not_A_Driver": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
        "[a-z0-9])?)*')",
        "spec.pool.name: Required value",
        "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero"]
    assert slice_errs(sharedCounters=[{"name": "gpu-0-counters", "counters": {"memory": {"value": "1Gi"}}}]) == [
        'spec: Invalid value: "": only one of `sharedCounters` or `devices` is allowed']
    assert slice_errs(devices=None, sharedCounters=[{"name": "Bad", "counters": {}}]) == [
        f'spec.sharedCounters[0].name: Invalid value: "Bad": {DNS_LABEL_MSG}',
        "spec.sharedCounters[0].counters: Required value"]


def test_resource_slice_devices():
    dev = SLICE["devices"][0]
    assert slice_errs(devices=[dev, dev]) == ['spec.devices[1]: Duplicate value: "gpu-0"']
    errs = slice_errs(devices=[{"name": "d", "attributes": {
        "empty": {}, "two": {"int": 1, "bool": True}, "v": {"version": "1.0"}, "1bad": {"int": 1}}}])
    # Go prints the two-valued attribute with its String(); only the path and text are compared
    assert errs[2].startswith("spec.devices[0].attributes[two]: Invalid value: ")
    assert errs[2].endswith(": exactly one value must be specified")
    del errs[2]
    assert errs == [
        "spec.devices[0].attributes[1bad]: Invalid value: \"1bad\": a valid C identifier must start with alphabetic "
        "character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  "
        "or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')",
        'spec.devices[0].attributes[empty]: Invalid value: "": exactly one value must be specified',
        'spec.devices[0].attributes[v].version: Invalid value: "1.0": must be a string compatible with semver.org '
        "spec 2.0.0"]
    assert slice_errs(devices=[{"name": "d", "capacity": {"mem": {"value": "1", "requestPolicy": {}}},
                                "taints": [{"key": "k", "effect": "Sometimes"}], "nodeName": "n"}]) == [
        "spec.devices[0].capacity[mem].requestPolicy: Forbidden: allowMultipleAllocations must be true",
        'spec.devices[0].taints[0].effect: Unsupported value: "Sometimes": supported values: "NoExecute", '
        '"NoSchedule", "None"',
        "spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if "
        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"]
    assert slice_errs(nodeName=None, perDeviceNodeSelection=True, devices=[{"name": "d"}, {"name": "e",
                                                                                           "allNodes": True}]) == [
        "spec.devices[0]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"]
    assert slice_errs(devices=[{"name": "d", "bindingConditions": ["ready", "ready"]}]) == [
        'spec.devices[0].bindingConditions[1]: Duplicate value: "ready"',
        "spec.devices[0].bindingFailureConditions: Invalid value: null: bindingFailureConditions are required to use "
        "bindingConditions"]


def test_resource_slice_update():
    old = rslice(SLICE)
    moved = copy.deepcopy(SLICE)
    moved["nodeName"] = "worker-2"
    moved["pool"]["generation"] = 2
    assert msgs(rv.validate_resource_slice_update(rslice(moved), old)) == [
        'spec.nodeName: Invalid value: "worker-2": field is immutable']
    assert strategies.validation_function("resource.k8s.io", "ResourceSlice", "_update") is rv.validate_resource_slice_update


def test_claim_device_status():
    """validation_resourceclaim_test.go TestValidateClaimStatusUpdate: device statuses name
    allocated devices, carry at most 8 conditions, JSON-object data, canonical IPs."""
    result = {"request": "req-0", "driver": "dra.example.com", "pool": "pool", "device": "gpu-0"}

    def status_claim(devices: list) -> object:
        return internal({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                         "metadata": {"name": "claim", "namespace": "kube-system", "resourceVersion": "1"},
                         "spec": {"devices": GOOD},
                         "status": {"allocation": {"devices": {"results": [result]}}, "devices": devices}})

    old = status_claim([])
    good = {"driver": "dra.example.com", "pool": "pool", "device": "gpu-0", "data": {"a": 1},
            "networkData": {"interfaceName": "eth0", "ips": ["10.9.8.0/24", "2001:db8::1/64"]}}
    assert msgs(rv.validate_resource_claim_status_update(status_claim([good]), old)) == []
    cond = {"type": "Ready", "status": "True", "reason": "Ok", "lastTransitionTime": "2026-01-01T00:00:00Z"}
    bad = {"driver": "dra.example.com", "pool": "pool", "device": "gpu-0", "data": [1],
           "conditions": [dict(cond, type=f"T{i}") for i in range(9)],
           "networkData": {"ips": ["10.9.8.7", "010.9.8.7/24", "2001:DB8::1/64"]}}
    assert msgs(rv.validate_resource_claim_status_update(status_claim([bad]), old)) == [
        "status.devices[0].conditions: Too many: 9: must have at most 8 items",
        'status.devices[0].data: Invalid value: "<value omitted>": must be a valid JSON object',
        'status.devices[0].networkData.ips[0]: Invalid value: "10.9.8.7": must be a valid address in CIDR form, '
        "(e.g. 10.9.8.7/24 or 2001:db8::1/64)",
        'status.devices[0].networkData.ips[1]: Invalid value: "010.9.8.7/24": must be in canonical form '
        '("10.9.8.7/24")',
        'status.devices[0].networkData.ips[2]: Invalid value: "2001:DB8::1/64": must be in canonical form '
        '("2001:db8::1/64")']
    other = dict(good, device="gpu-1")
    errs = msgs(rv.validate_resource_claim_status_update(status_claim([good, good, other]), old))
    assert errs[0].startswith("status.devices[2]: Invalid value: ")
    assert errs[0].endswith(": must be an allocated device in the claim")
    assert errs[1].startswith("status.devices[1]: Duplicate value: ")
    shared = dict(result, shareID="NOT-A-UUID")
    alloc = internal({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                      "metadata": {"name": "claim", "namespace": "kube-system", "resourceVersion": "1"},
                      "spec": {"devices": GOOD}, "status": {"allocation": {"devices": {"results": [shared]}}}})
    assert msgs(rv.validate_resource_claim_status_update(alloc, claim(GOOD))) == [
        'status.allocation.devices.results[0].shareID: Invalid value: "NOT-A-UUID": error validating uid: '
        "invalid UUID length: 10"]


def test_selector_cel_syntax():
    """A selector that does not parse is refused ("compilation failed: ..."); celpy's
    position (kcodec.api._celsyntax)."""
    import pytest

    pytest.importorskip("celpy")
    errs = errs_of({"requests": [{"name": "r", "exactly": {"deviceClassName": "c", "selectors": [
        {"cel": {"expression": 'device.driver == "a" &&'}}]}}]})
    assert len(errs) == 1
    assert errs[0].startswith('spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: '
                              '"device.driver == \\"a\\" &&": compilation failed: ERROR: <input>:1:')
