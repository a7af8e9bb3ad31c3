"""The registry with the watch cache in front of the storage (storage_with_cacher, the
default of RESTOptionsGetter), on SQLite and etcd: same answers as the raw storage, watch
from the cache with selectors, bookmarks and watch-list."""
from __future__ import annotations

import random

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)
from _registry_env import backend, make_getter  # noqa: F401
from kcodec import labels
from kcodec.api import errors as apierrors
from kcodec.api.core import internal as core
from kcodec.registry import rest
from kcodec.registry.builtin import new_store, resource_info
from kcodec.registry.request import Context
from kcodec.storage.cacher import Cacher

NS = Context(namespace="default")


@pytest.fixture
def stores(backend, tmp_path, request):
    """The same resource twice on one backend: through the cache and straight to storage."""
    cached = new_store(resource_info("", "configmaps"), make_getter(backend, tmp_path, request, watch_cache=True))
    request.addfinalizer(cached.destroy)
    raw = new_store(resource_info("", "configmaps"), make_getter(backend, tmp_path, request))
    raw.storage = type(raw.storage)(cached.storage.storage.kv, cached.storage.storage.codec,
                                    cached.rest_options.storage_config.prefix,
                                    cached.rest_options.storage_config.transformer,
                                    new_func=raw.new_func, new_list_func=raw.new_list_func)
    assert isinstance(cached.storage, Cacher)
    assert cached.storage.wait_ready(10)
    return cached, raw


def _cm(name, lbl=None, **data):
    obj = core.ConfigMap(data=dict(data) or None)
    obj.metadata.name = name
    obj.metadata.labels = lbl
    return obj


def _drain(w, n, timeout=5.0):
    out = []
    while len(out) < n:
        e = w.next(timeout)
        if e is None:
            break
        if e.type != "BOOKMARK":
            out.append((e.type, e.object.metadata.name, e.object.metadata.resource_version,
                        dict(e.object.data or {})))
    return out


@pytest.mark.parametrize("seed", [7, 11, 23])
def test_cached_and_storage_watches_agree(stores, seed):
    """A random sequence of creates, updates and deletes: the watch served by the cache
    and the watch on the storage give the same events in the same order, with and without
    a label selector; a list at each returned resourceVersion equals the replayed state."""
    cached, raw = stores
    rng = random.Random(seed)
    start = cached.create(NS, _cm("seed")).metadata.resource_version
    selector = labels.parse("keep=yes")
    watchers = [s.watch(NS, rest.ListOptions(resource_version=start, label_selector=sel))
                for s in (cached, raw) for sel in (None, selector)]
    live: dict[str, object] = {}
    states: list[tuple[str, dict[str, dict]]] = []
    ops = 0
    for i in range(60):
        name = f"o{rng.randrange(8)}"
        try:
            if name not in live:
                obj = cached.create(NS, _cm(name, {"keep": rng.choice(["yes", "no"])}, n=str(i)))
            elif rng.random() < 0.3:
                obj, _ = cached.delete(NS, name)
                obj = None
            else:
                cur = cached.get(NS, name)
                cur.data = {"n": str(i)}
                cur.metadata.labels = {"keep": rng.choice(["yes", "no"])}
                obj, _ = cached.update(NS, name, rest.DefaultUpdatedObjectInfo(cur))
        except apierrors.StatusError as exc:
            pytest.fail(str(exc))
        ops += 1
        if obj is None:
            live.pop(name)
        else:
            live[name] = obj
            states.append((obj.metadata.resource_version,
                           {n: dict(o.data or {}) for n, o in live.items()}))
    try:
        all_cached, sel_cached, all_raw, sel_raw = (_drain(w, ops, 5.0) if i % 2 == 0 else _drain(w, ops, 0.3)
                                                    for i, w in enumerate(watchers))
    finally:
        for w in watchers:
            w.stop()
    assert len(all_cached) == ops
    assert all_cached == all_raw
    assert sel_cached == sel_raw and sel_cached
    for rv, expected in states[::7]:
        listed = cached.list(NS, rest.ListOptions(resource_version=rv, resource_version_match="Exact"))
        got = {o.metadata.name: dict(o.data or {}) for o in listed.items if o.metadata.name != "seed"}
        assert got == expected


def test_cached_reads_match_storage(stores):
    cached, raw = stores
    for i in range(30):
        last = cached.create(NS, _cm(f"c{i:02d}", {"even": str(i % 2 == 0).lower()}, v=str(i)))
    # "0" is any state the cache has (it may lag); a revision is a not-older-than bound
    assert len(cached.list(NS, rest.ListOptions(resource_version="0")).items) <= 30
    latest = cached.list(NS, rest.ListOptions(resource_version=last.metadata.resource_version))
    assert len(latest.items) == 30
    consistent = cached.list(NS)
    assert [o.metadata.name for o in consistent.items] == [o.metadata.name for o in raw.list(NS).items]
    page = cached.list(NS, rest.ListOptions(limit=7, label_selector=labels.parse("even=true")))
    names = [o.metadata.name for o in page.items]
    while page.metadata.continue_:
        page = cached.list(NS, rest.ListOptions(limit=7, continue_=page.metadata.continue_,
                                                label_selector=labels.parse("even=true")))
        names += [o.metadata.name for o in page.items]
    assert names == [f"c{i:02d}" for i in range(0, 30, 2)]
    assert cached.get(NS, "c03").data == {"v": "3"}


def test_watch_list_through_the_registry(stores):
    cached, _ = stores
    for i in range(3):
        cached.create(NS, _cm(f"w{i}"))
    w = cached.watch(NS, rest.ListOptions(send_initial_events=True, allow_watch_bookmarks=True,
                                          resource_version_match="NotOlderThan"))
    try:
        events = []
        while True:
            e = w.next(5)
            assert e is not None
            events.append(e)
            if e.type == "BOOKMARK":
                break
        assert [e.object.metadata.name for e in events[:-1]] == ["w0", "w1", "w2"]
        assert events[-1].object.metadata.annotations == {"k8s.io/initial-events-end": "true"}
        cached.create(NS, _cm("after"))
        nxt = w.next(5)
        while nxt is not None and nxt.type == "BOOKMARK":
            nxt = w.next(5)
        assert (nxt.type, nxt.object.metadata.name) == ("ADDED", "after")
    finally:
        w.stop()


def test_a_watcher_that_never_reads_is_dropped(stores):
    """100 watchers read every event while one never reads: the cache drops that one (its
    buffer full past the blocked-watcher budget) and the others miss nothing."""
    import threading

    cached, _ = stores
    start = cached.create(NS, _cm("start")).metadata.resource_version
    events = 250
    stuck = cached.watch(NS, rest.ListOptions(resource_version=start))
    readers = [cached.watch(NS, rest.ListOptions(resource_version=start)) for _ in range(100)]
    counts = [0] * len(readers)

    def read(i: int) -> None:
        w = readers[i]
        while counts[i] < events:
            e = w.next(30)
            if e is None:
                return
            if e.type == "ADDED":
                counts[i] += 1

    threads = [threading.Thread(target=read, args=(i,)) for i in range(len(readers))]
    for t in threads:
        t.start()
    try:
        import time

        for i in range(events):
            cached.create(NS, _cm(f"e{i}"))
            # Readers are threads of this process: on a busy machine a burst could leave one
            # unscheduled with its 100-event buffer full while the stuck watcher holds the
            # shared time budget, and Go's cacher rightly drops such a reader too. Pacing the
            # writer (never more than 50 events ahead of the slowest reader) keeps them
            # readers that keep up, which is what this test is about.
            if i % 25 == 24:
                wait_until = time.monotonic() + 30
                while min(counts) < i - 50 and time.monotonic() < wait_until:
                    time.sleep(0.01)
        for t in threads:
            t.join(90)
        assert counts == [events] * len(readers)
        # the blocked watcher is ended by the dispatcher once its budget is spent
        deadline = time.monotonic() + 10
        while not stuck.dropped and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stuck.dropped
    finally:
        for w in readers + [stuck]:
            w.stop()
