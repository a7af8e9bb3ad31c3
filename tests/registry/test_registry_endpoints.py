"""Endpoints canonicalization (k/k pkg/api/endpoints/util.go RepackSubsets, called by
pkg/registry/core/endpoint/strategy.go Canonicalize on create and update).

The expectations in data/endpoints_repack_go.json were printed by Go: RepackSubsets of
pkg/api/endpoints/util.go over the internal core Endpoints types of pkg/apis/core/types.go,
hashing through k8s.io/utils/dump.ForHash with the go-spew version k/k pins (d8f796af).
"""
from __future__ import annotations

import json
import pathlib

import pytest

from _registry_env import internal, make_getter
from kcodec.api.core import internal as core
from kcodec.registry import rest
from kcodec.registry.builtin import new_store, resource_info
from kcodec.registry.builtin.endpoints import (
    deep_hash_object,
    less_endpoint_address,
    repack_subsets,
    spew_for_hash,
)
from kcodec.registry.request import Context
from kcodec.testing import APIServer

GO = json.loads((pathlib.Path(__file__).parent / "data" / "endpoints_repack_go.json").read_text())
CASES = {case["name"]: case for case in GO["cases"]}
NS = Context(namespace="default")


def _endpoints(subsets, name="ep"):
    return internal({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name, "namespace": "default"},
                     "subsets": subsets})


def _tree(subsets):
    return [s.to_dict() for s in subsets or ()]


@pytest.mark.parametrize("name", sorted(CASES))
def test_spew_text_as_go_prints_it(name):
    case = CASES[name]
    subsets = _endpoints(case["subsets"]).subsets or []
    assert [spew_for_hash(s) for s in subsets] == case["subsetSpew"]
    assert [spew_for_hash(p) for s in subsets for p in s.ports or ()] == case["portSpew"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_repack_subsets_as_go(name):
    case = CASES[name]
    ep = _endpoints(case["subsets"])
    before = _tree(ep.subsets)
    out = repack_subsets(ep.subsets)
    assert _tree(out) == case["repacked"]
    assert [spew_for_hash(s) for s in out] == case["repackedSpew"]
    assert _tree(ep.subsets) == before  # the input is left as it was
    # canonical already: repacking again changes nothing
    assert _tree(repack_subsets(out)) == case["repacked"]


def test_repacked_subsets_share_no_objects():
    out = repack_subsets(_endpoints(CASES["not-ready-on-one-port-only"]["subsets"]).subsets)
    first = out[0].addresses[0]
    first.hostname = "changed"
    assert all(a.hostname != "changed" for s in out[1:] for a in (s.addresses or []) + (s.not_ready_addresses or []))


def test_hash_and_address_order_helpers():
    port = core.EndpointPort(name="http", port=80, protocol="TCP")
    text = "(core.EndpointPort){Name:(string)http Port:(int32)80 Protocol:(core.Protocol)TCP AppProtocol:(*string)<nil>}"
    assert spew_for_hash(port) == text
    import hashlib

    assert deep_hash_object(port) == hashlib.md5(text.encode()).digest()
    a = core.EndpointAddress(ip="10.0.0.1")
    b = core.EndpointAddress(ip="10.0.0.1", target_ref=core.ObjectReference(uid="u"))
    assert less_endpoint_address(a, b) and not less_endpoint_address(b, a) and not less_endpoint_address(a, a)
    with pytest.raises(TypeError):
        spew_for_hash(core.ObjectReference())


# ------------------------------------------------------------------ through the registry

@pytest.fixture
def endpoints_store(tmp_path, request):
    store = new_store(resource_info("", "endpoints"), make_getter("sqlite", tmp_path, request))
    yield store
    store.destroy()


def test_registry_create_and_update_canonicalize(endpoints_store):
    case = CASES["hostnames-nodenames-targetrefs"]
    created = endpoints_store.create(NS, _endpoints(case["subsets"]), rest.validate_all_objects)
    assert _tree(created.subsets) == case["repacked"]
    assert _tree(endpoints_store.get(NS, "ep").subsets) == case["repacked"]

    update = CASES["app-protocol-not-merged"]
    current = endpoints_store.get(NS, "ep")
    current.subsets = _endpoints(update["subsets"]).subsets
    updated, created_now = endpoints_store.update(NS, "ep", rest.DefaultUpdatedObjectInfo(current))
    assert not created_now and _tree(updated.subsets) == update["repacked"]
    assert _tree(endpoints_store.get(NS, "ep").subsets) == update["repacked"]

    # create on update (AllowCreateOnUpdate) canonicalizes too
    sentinel = CASES["empty-ports-and-ports"]
    made, created_now = endpoints_store.update(NS, "other", rest.DefaultUpdatedObjectInfo(
        _endpoints(sentinel["subsets"], name="other")))
    assert created_now and _tree(made.subsets) == sentinel["repacked"]


def test_served_endpoints_come_back_canonical():
    """kcodec serve: what the kubernetes client creates and replaces is returned, stored
    and listed in RepackSubsets' layout, as kube-apiserver returns it."""
    kubernetes = pytest.importorskip("kubernetes")
    from kubernetes import client, config

    case = CASES["many-subsets"]
    with APIServer(controllers=[]) as server:
        cfg = client.Configuration()
        config.load_kube_config(config_file=server.kubeconfig, client_configuration=cfg)
        with client.ApiClient(cfg) as c:
            api = kubernetes.client.CoreV1Api(c)
            body = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web"}, "subsets": case["subsets"]}
            created = api.create_namespaced_endpoints("default", body, _preload_content=False)
            assert json.loads(created.data)["subsets"] == case["repacked"]
            got = json.loads(api.read_namespaced_endpoints("web", "default", _preload_content=False).data)
            assert got["subsets"] == case["repacked"]
            update = CASES["not-ready-on-one-port-only"]
            got["subsets"] = update["subsets"]
            replaced = api.replace_namespaced_endpoints("web", "default", got, _preload_content=False)
            assert json.loads(replaced.data)["subsets"] == update["repacked"]
            listed = json.loads(api.list_namespaced_endpoints("default", _preload_content=False).data)
            assert [i["subsets"] for i in listed["items"] if i["metadata"]["name"] == "web"] == [update["repacked"]]
