"""Events expire as kube-apiserver keeps them: ``--event-ttl`` (default 1h) after their last
write (k/k pkg/registry/core/event/storage/storage.go TTLFunc, the same storage behind
events.k8s.io in pkg/registry/events/rest; apiserver's Store.calculateTTL on create and
update), on SQLite and a real etcd, through the registry, its watch cache and
``kcodec serve``."""
from __future__ import annotations

import json
import time

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)
from _registry_env import backend, internal, make_getter  # noqa: F401
from kcodec.api import errors as apierrors
from kcodec.registry import rest
from kcodec.registry.builtin import DEFAULT_EVENT_TTL, new_store, resource_info
from kcodec.registry.request import Context
from kcodec.registry.rest import ListOptions
from kcodec.testing import APIServer

NS = Context(namespace="default")
# etcd grants at least 1.5 election timeouts (2 s with the tests' etcd); SQLite keeps any
TTLS = {"sqlite": 1, "etcd": 2}


def _core_event(name, reason="Started"):
    return internal({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "default"},
                     "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default"},
                     "reason": reason, "message": "m", "type": "Normal", "source": {"component": "test"}})


def _events_k8s_io_event(name):
    return internal({"apiVersion": "events.k8s.io/v1", "kind": "Event",
                     "metadata": {"name": name, "namespace": "default"},
                     "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/test",
                     "reportingInstance": "test-1", "action": "Started", "reason": "Started", "type": "Normal",
                     "regarding": {"kind": "Pod", "name": "web", "namespace": "default"}})


def _stores(getter, ttl):
    core_events = new_store(resource_info("", "events"), getter, event_ttl=ttl)
    new_events = new_store(resource_info("events.k8s.io", "events"), getter, event_ttl=ttl)
    return core_events, new_events


@pytest.fixture
def stores(backend, tmp_path, request):
    """The two Events stores over one backend, behind the watch cache as kcodec serve has them."""
    ttl = TTLS[backend]
    core_events, new_events = _stores(make_getter(backend, tmp_path, request, watch_cache=True), ttl)
    yield core_events, new_events, ttl
    core_events.destroy()
    new_events.destroy()


def _gone(store, name, limit):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            store.get(NS, name)
        except apierrors.StatusError as err:
            assert apierrors.is_not_found(err)
            return time.monotonic()
        time.sleep(0.1)
    raise AssertionError(f"event {name} still there after {limit} s")


def test_events_expire_after_the_ttl(stores):
    core_events, new_events, ttl = stores
    watcher = core_events.watch(NS, ListOptions(resource_version="0"))
    try:
        start = time.monotonic()
        core_events.create(NS, _core_event("a"), rest.validate_all_objects)
        new_events.create(NS, _events_k8s_io_event("b"), rest.validate_all_objects)
        core_events.create(NS, _core_event("c"), rest.validate_all_objects)
        listed = core_events.list(NS, ListOptions())
        assert sorted(e.metadata.name for e in listed.items) == ["a", "b", "c"]
        for name in ("a", "b", "c"):
            gone = _gone(core_events, name, ttl + 8)
            assert gone - start >= ttl - 0.2
        assert core_events.list(NS, ListOptions()).items == []
        assert new_events.list(NS, ListOptions()).items == []
        seen: dict[str, list[str]] = {}
        deadline = time.monotonic() + 5
        while sum(len(v) for v in seen.values()) < 6 and time.monotonic() < deadline:
            event = watcher.next(0.5)
            if event is not None:
                seen.setdefault(event.object.metadata.name, []).append(event.type)
        assert seen == {"a": ["ADDED", "DELETED"], "b": ["ADDED", "DELETED"], "c": ["ADDED", "DELETED"]}
    finally:
        watcher.stop()


def test_an_update_restarts_the_ttl(tmp_path, request):
    ttl = 2  # the update must land before the first TTL runs out, even on a loaded machine
    core_events, new_events = _stores(make_getter("sqlite", tmp_path, request), ttl)
    request.addfinalizer(core_events.destroy)
    request.addfinalizer(new_events.destroy)
    core_events.create(NS, _core_event("x"), rest.validate_all_objects)
    time.sleep(ttl * 0.6)
    current = core_events.get(NS, "x")
    current.count = 2  # what an event recorder does for a repeated event
    core_events.update(NS, "x", rest.DefaultUpdatedObjectInfo(current))
    updated = time.monotonic()
    gone = _gone(core_events, "x", ttl + 8)
    assert gone - updated >= ttl - 0.2


def test_event_ttl_default_is_kube_apiservers(tmp_path, request):
    assert DEFAULT_EVENT_TTL == 3600.0
    store = new_store(resource_info("", "events"), make_getter("sqlite", tmp_path, request))
    request.addfinalizer(store.destroy)
    assert store.calculate_ttl(_core_event("x"), 0, False) == 3600
    other = new_store(resource_info("", "configmaps"), make_getter("sqlite", tmp_path, request))
    request.addfinalizer(other.destroy)
    assert other.ttl_func is None and other.calculate_ttl(None, -5, True) == 0
    from kcodec.cli import build_parser
    from kcodec.cli.serve import options_from_args
    from kcodec.errors import ConfigError
    from kcodec.server.options import ServerOptions

    assert ServerOptions().event_ttl == 3600.0
    assert options_from_args(build_parser().parse_args(["serve"])).event_ttl == 3600.0
    assert options_from_args(build_parser().parse_args(["serve", "--event-ttl", "1m30s"])).event_ttl == 90.0
    with pytest.raises(ConfigError) as err:
        options_from_args(build_parser().parse_args(["serve", "--event-ttl", "10"]))
    assert str(err.value) == 'invalid argument "10" for "--event-ttl" flag: time: missing unit in duration "10"'


def test_served_events_expire():
    """kcodec serve with --event-ttl 1s: the kubernetes client's Event is listed, then
    gone, and its watch saw it deleted."""
    kubernetes = pytest.importorskip("kubernetes")
    from kubernetes import client, config, watch

    with APIServer(event_ttl=1.0, controllers=[]) as server:
        cfg = client.Configuration()
        config.load_kube_config(config_file=server.kubeconfig, client_configuration=cfg)
        with client.ApiClient(cfg) as c:
            api = kubernetes.client.CoreV1Api(c)
            body = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"},
                    "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default"},
                    "reason": "Started", "message": "m", "type": "Normal"}
            created = json.loads(api.create_namespaced_event("default", body, _preload_content=False).data)
            assert [e.metadata.name for e in api.list_namespaced_event("default").items] == ["e1"]
            types = []
            w = watch.Watch()
            for ev in w.stream(api.list_namespaced_event, "default", timeout_seconds=8,
                               resource_version=created["metadata"]["resourceVersion"]):
                types.append(ev["type"])
                if ev["type"] == "DELETED":
                    assert ev["object"].metadata.name == "e1"
                    w.stop()
            assert types == ["DELETED"]
            assert api.list_namespaced_event("default").items == []
