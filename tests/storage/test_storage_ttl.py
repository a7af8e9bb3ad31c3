"""Keys with a TTL (etcd leases; what kube-apiserver gives Events, k/k
pkg/registry/core/event/storage TTLFunc and apiserver pkg/storage/etcd3/store.go ttlOpts)
on both backends: the key is there until its lease runs out, then gone for get, list and
count, and watchers see DELETED with its last value; an update with a TTL renews it, one
without drops it (etcd's put without a lease).

etcd's leases live at least its minimum TTL (1.5 election timeouts, 2 s with the tests'
1 s election timeout) and its lessor looks for expired ones every 500 ms, so the waits
allow for that.
"""
from __future__ import annotations

import time
import uuid

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)
from kcodec.api import codecs
from kcodec.api.core import v1
from kcodec.api.meta.v1 import ObjectMeta
from kcodec.schema import GroupVersion
from kcodec.storage import StorageCodecConfig, new_storage_codec
from kcodec.storage.errors import KeyNotFoundError
from kcodec.storage.etcd3 import _LeaseManager

CORE_V1 = GroupVersion("", "v1")
# seconds: etcd's minimum with the tests' election timeout; SQLite keeps any
TTLS = {"sqlite": 1, "etcd": 2}


def _codec():
    return new_storage_codec(StorageCodecConfig("application/json", codecs, CORE_V1, CORE_V1))


@pytest.fixture(params=["sqlite", "etcd"])
def store(request, tmp_path):
    if request.param == "sqlite":
        from kcodec.storage.sqlite import SQLiteStore

        s = SQLiteStore(tmp_path / "ttl.db", _codec(), new_func=v1.ConfigMap, new_list_func=v1.ConfigMapList)
    else:
        from kcodec.storage.etcd3 import Etcd3Store

        endpoints = request.getfixturevalue("etcd_endpoints")
        s = Etcd3Store(endpoints, _codec(), prefix=f"/ttl-{uuid.uuid4().hex[:12]}", new_func=v1.ConfigMap,
                       new_list_func=v1.ConfigMapList)
    s.test_ttl = TTLS[request.param]
    yield s
    s.close()


def _cm(name, value="1"):
    return v1.ConfigMap(api_version="v1", kind="ConfigMap",
                        metadata=ObjectMeta(name=name, namespace="default"), data={"v": value})


def _wait_gone(store, key, limit):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if store.get(key, ignore_not_found=True) is None:
            return time.monotonic()
        time.sleep(0.1)
    raise AssertionError(f"{key} still there after {limit} s")


def test_key_with_ttl_expires_for_get_list_count_and_watchers(store):
    TTL = store.test_ttl
    start = time.monotonic()
    store.create("/configmaps/default/short", _cm("short"), ttl=TTL)
    store.create("/configmaps/default/kept", _cm("kept"))
    watcher = store.watch("/configmaps/default", recursive=True)
    try:
        initial = {watcher.next(5).object.metadata.name for _ in range(2)}
        assert initial == {"short", "kept"}
        assert store.get("/configmaps/default/short").data == {"v": "1"}
        gone_at = _wait_gone(store, "/configmaps/default/short", TTL + 6)
        assert gone_at - start >= TTL - 0.2  # not before its time
        with pytest.raises(KeyNotFoundError):
            store.get("/configmaps/default/short")
        listed = store.get_list("/configmaps/default")
        assert [i.metadata.name for i in listed.items] == ["kept"]
        assert store.count("/configmaps/default") == 1
        event = watcher.next(5)
        assert event is not None and event.type == "DELETED"
        assert event.object.metadata.name == "short" and event.object.data == {"v": "1"}
        assert int(event.object.metadata.resource_version) > int(listed.metadata.resource_version) - 1
    finally:
        watcher.stop()
    # the name is free again, and the new key has no lease
    assert store.create("/configmaps/default/short", _cm("short", "2")).data == {"v": "2"}
    time.sleep(0.5)
    assert store.get("/configmaps/default/short").data == {"v": "2"}


def test_update_renews_or_drops_the_ttl(store):
    TTL = 2  # the renewal must land before the first lease runs out, even on a loaded machine
    store.create("/configmaps/default/renewed", _cm("renewed"), ttl=TTL)
    store.create("/configmaps/default/dropped", _cm("dropped"), ttl=TTL)
    created = time.monotonic()

    def change(value):
        def update(cm):
            cm.data = {"v": value}
            return cm
        return update

    time.sleep(TTL / 2)
    store.guaranteed_update("/configmaps/default/renewed", change("2"), ttl_func=lambda obj: TTL)
    renewed = time.monotonic()
    store.guaranteed_update("/configmaps/default/dropped", change("2"))  # no TTL: the lease goes
    gone_at = _wait_gone(store, "/configmaps/default/renewed", TTL + 6)
    assert gone_at - renewed >= TTL - 0.2 and gone_at - created >= TTL * 1.5 - 0.2
    assert store.get("/configmaps/default/dropped").data == {"v": "2"}


def test_sqlite_lease_survives_reopen_and_is_dropped_by_delete(tmp_path):
    from kcodec.storage.sqlite import SQLiteStore

    path = tmp_path / "reopen.db"
    with SQLiteStore(path, _codec(), new_func=v1.ConfigMap) as s:
        s.create("/configmaps/default/a", _cm("a"), ttl=1)
        s.create("/configmaps/default/b", _cm("b"), ttl=1)
        s.delete("/configmaps/default/b")
        assert s.kv.lease_expiry(b"/registry/configmaps/default/b") is None
        expiry = s.kv.lease_expiry(b"/registry/configmaps/default/a")
        assert expiry is not None and 0 < expiry - time.time() <= 1
    time.sleep(1.1)
    with SQLiteStore(path, _codec(), new_func=v1.ConfigMap) as s:
        rev = s.current_revision()
        assert s.get("/configmaps/default/a", ignore_not_found=True) is None
        # the expiry was a delete at a revision of its own, after the delete of b
        assert s.kv.lease_expiry(b"/registry/configmaps/default/a") is None
        assert rev == 5


def test_lease_manager_reuses_a_lease_within_its_window():
    granted = []

    def grant(ttl):
        granted.append(ttl)
        return len(granted)

    manager = _LeaseManager(grant)
    # kube-apiserver's 1h event TTL: leases of 1h + 3 min, shared by writes in the window
    assert manager.get_lease(3600) == 1 and granted == [3600 + 60]
    assert manager.get_lease(3600) == 1  # reused
    # short TTLs have no window (5% of 2 s is 0 s): a lease per write
    assert manager.get_lease(2) == 2 and manager.get_lease(2) == 3 and granted[1:] == [2, 2]
    manager = _LeaseManager(grant)
    first = manager.get_lease(3600)
    assert all(manager.get_lease(3600) == first for _ in range(_LeaseManager.MAX_OBJECT_COUNT - 1))
    assert manager.get_lease(3600) != first  # at most 1000 objects a lease
