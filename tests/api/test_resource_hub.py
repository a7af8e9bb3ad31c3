"""resource.k8s.io in kcodec.legacyscheme: the internal version (kubernetes/kubernetes
pkg/apis/resource) and its conversions of v1, v1beta2, v1beta1 and v1alpha3.

Expectations come from pkg/apis/resource/v1beta1/conversion.go (the only hand-written
conversions of the group) and the upstream fixtures of k8s.io/api v0.36.3.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import kcodec
from kcodec import legacyscheme
from kcodec.api.resource import internal as api
from kcodec.api.resource import v1, v1beta1
from kcodec.schema import GroupVersion, GroupVersionKind

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "k8s-api-v0.36.3" / "HEAD"
GROUP = "resource.k8s.io"
KINDS = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice", "DeviceTaintRule",
         "ResourcePoolStatusRequest")
needs_fixtures = pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures/k8s-api-v0.36.3 not found")


def _served() -> list[tuple[str, str]]:
    out = []
    for version in ("v1", "v1beta2", "v1beta1", "v1alpha3"):
        for kind in KINDS:
            if (FIXTURES / f"{GROUP}.{version}.{kind}.json").is_file():
                out.append((version, kind))
    return out


@needs_fixtures
def test_every_kind_has_a_fixture_in_some_version() -> None:
    assert {k for _, k in _served()} == set(KINDS)


@needs_fixtures
@pytest.mark.parametrize("version,kind", _served(), ids=lambda x: x)
@pytest.mark.parametrize("fmt", ["json", "yaml", "pb"])
def test_fixture_decodes_to_internal_and_back(version: str, kind: str, fmt: str) -> None:
    raw = (FIXTURES / f"{GROUP}.{version}.{kind}.{fmt}").read_bytes()
    obj, gvk = legacyscheme.codecs.universal_decoder().decode(raw)
    assert gvk == GroupVersionKind(GROUP, version, kind)
    assert type(obj) is getattr(api, kind)
    # internal -> the fixture's own version gives the fixture back (the decoder defaulted it,
    # and upstream's fixtures are written with defaults applied)
    ext = legacyscheme.scheme.convert_to_version(obj, GroupVersion(GROUP, version))
    want = json.loads((FIXTURES / f"{GROUP}.{version}.{kind}.json").read_bytes())
    assert json.loads(kcodec.dump(ext, "json")) == want


def test_preferred_version_is_v1() -> None:
    # pkg/apis/resource/install/install.go: v1, v1beta2, v1alpha3; v1beta1 is installed by
    # its own init after them and ranks last (kcodec.api._defaulting.VERSION_PRIORITIES)
    assert legacyscheme.preferred_version(GROUP) == GroupVersion(GROUP, "v1")
    assert [gv.version for gv in legacyscheme.scheme.prioritized_versions_for_group(GROUP)][:4] == [
        "v1", "v1beta2", "v1alpha3", "v1beta1"]


def test_v1beta1_basic_device_is_flattened_and_restored() -> None:
    doc = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "metadata": {"name": "s"},
           "spec": {"driver": "d", "pool": {"name": "p", "resourceSliceCount": 1}, "nodeName": "n",
                    "devices": [{"name": "gpu0", "basic": {
                        "attributes": {"model": {"string": "a100"}}, "capacity": {"mem": {"value": "40Gi"}},
                        "taints": [], "allNodes": True}},
                        {"name": "empty"}, {"name": "bare", "basic": {}}]}}
    i = legacyscheme.to_internal(kcodec.load(json.dumps(doc)), default=False)
    d0 = i.spec.devices[0]
    assert type(d0) is api.Device is v1.Device
    assert d0.name == "gpu0" and d0.attributes["model"].string_value == "a100"
    assert str(d0.capacity["mem"].value) == "40Gi" and d0.all_nodes is True
    assert d0.taints is None  # built by appending in Go: empty is nil
    assert i.spec.node_name == "n" and i.spec.all_nodes is None
    out = kcodec.convert(json.dumps(doc), "resource.k8s.io/v1beta1")
    devices = json.loads(kcodec.dump(out, "json"))["spec"]["devices"]
    assert devices[0] == {"name": "gpu0", "basic": {"attributes": {"model": {"string": "a100"}},
                                                    "capacity": {"mem": {"value": "40Gi"}}, "allNodes": True}}
    # Convert_resource_Device_To_v1beta1_Device always allocates basic
    assert devices[1] == {"name": "empty", "basic": {}} and devices[2] == {"name": "bare", "basic": {}}
    as_v1 = json.loads(kcodec.dump(kcodec.convert(json.dumps(doc), "resource.k8s.io/v1"), "json"))
    assert as_v1["spec"]["devices"][0]["attributes"] == {"model": {"string": "a100"}}
    assert as_v1["spec"]["nodeName"] == "n" and "allNodes" not in as_v1["spec"]


def test_v1beta1_slice_spec_zero_values_are_nil_inside() -> None:
    spec = v1beta1.ResourceSliceSpec(driver="d", node_name="", all_nodes=False)
    i = api.ResourceSliceSpec()
    legacyscheme.scheme.convert(spec, i)
    assert i.node_name is None and i.all_nodes is None
    back = v1beta1.ResourceSliceSpec()
    legacyscheme.scheme.convert(api.ResourceSliceSpec(driver="d"), back)
    assert back.node_name == "" and back.all_nodes is False


def _claim(request: dict) -> str:
    return json.dumps({"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
                       "metadata": {"name": "c"}, "spec": {"devices": {"requests": [request]}}})


def test_v1beta1_request_fields_become_exactly() -> None:
    req = {"name": "gpu", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 2,
           "selectors": [{"cel": {"expression": "true"}}], "tolerations": [{"key": "k", "operator": "Exists"}]}
    i = legacyscheme.to_internal(kcodec.load(_claim(req)), default=False)
    r = i.spec.devices.requests[0]
    assert r.name == "gpu" and r.first_available is None
    e = r.exactly
    assert (e.device_class_name, e.allocation_mode, e.count) == ("gpu.example.com", "ExactCount", 2)
    assert e.selectors[0].cel.expression == "true" and e.tolerations[0].key == "k"
    back = legacyscheme.scheme.convert_to_version(i, GroupVersion(GROUP, "v1beta1"))
    assert json.loads(kcodec.dump(back, "json"))["spec"]["devices"]["requests"][0] == req
    v1_req = json.loads(kcodec.dump(kcodec.convert(_claim(req), "resource.k8s.io/v1"), "json"))
    assert v1_req["spec"]["devices"]["requests"][0] == {"name": "gpu", "exactly": {k: v for k, v in req.items()
                                                                                  if k != "name"}}


def test_v1beta1_request_without_exact_fields_has_no_exactly() -> None:
    req = {"name": "any", "firstAvailable": [{"name": "a", "deviceClassName": "c"}]}
    i = legacyscheme.to_internal(kcodec.load(_claim(req)), default=False)
    r = i.spec.devices.requests[0]
    assert r.exactly is None and r.first_available[0].device_class_name == "c"
    # an empty (non-nil) selector list alone counts as a main-request field
    j = legacyscheme.to_internal(kcodec.load(_claim({"name": "e", "selectors": []})), default=False)
    assert j.spec.devices.requests[0].exactly is not None
    assert j.spec.devices.requests[0].exactly.selectors == []


def test_resourceslice_field_labels() -> None:
    s = legacyscheme.scheme
    for version in ("v1", "v1beta2", "v1beta1"):
        gvk = GroupVersionKind(GROUP, version, "ResourceSlice")
        assert s.convert_field_label(gvk, "spec.nodeName", "n") == ("spec.nodeName", "n")
        with pytest.raises(Exception, match=f"field label not supported for resource.k8s.io/{version}, "
                                            "Kind=ResourceSlice: spec.pool"):
            s.convert_field_label(gvk, "spec.pool", "x")
