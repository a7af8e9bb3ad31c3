"""The watch cache (kcodec.storage.cacher.Cacher) on both backends: SQLite and a real etcd.

What k8s.io/apiserver pkg/storage/cacher does is the reference: lists and gets served
from memory with the delegator's resourceVersion rules (delegator.go,
delegator/interface.go), watches served from the ring buffer with "too old resource
version: X (Y)" below it (watch_cache_history.go), the filtering of cache_watcher.go
(convertToWatchEvent), bookmarks and the watch-list end bookmark (cacher.go), slow
watchers dropped without blocking others (cacher.go dispatchEvent, time_budget.go), and
the compactor of pkg/storage/etcd3/compact.go.
"""
from __future__ import annotations

import asyncio
import threading
import time
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)
from kcodec.api import codecs
from kcodec.api.core import v1
from kcodec.api.meta import v1 as metav1
from kcodec.schema import GroupVersion
from kcodec.storage import StorageCodecConfig, new_storage_codec
from kcodec.storage.cacher import INITIAL_EVENTS_ANNOTATION, Cacher
from kcodec.storage.compactor import COMPACT_REV_KEY, Compactor
from kcodec.storage.errors import (
    BadRequestError,
    KeyNotFoundError,
    ResourceExpiredError,
    TooManyRequestsError,
)
from kcodec.storage.kv import decode_continue

CORE_V1 = GroupVersion("", "v1")


def _codec():
    return new_storage_codec(StorageCodecConfig("application/vnd.kubernetes.protobuf", codecs, CORE_V1, CORE_V1))


def make_store(backend: str, tmp_path, endpoints):
    if backend == "sqlite":
        from kcodec.storage.sqlite import SQLiteStore

        path = tmp_path / f"cacher-{uuid.uuid4().hex[:8]}.db"
        return SQLiteStore(path, _codec(), new_func=v1.Pod, new_list_func=v1.PodList)
    from kcodec.storage.etcd3 import Etcd3Store

    return Etcd3Store(endpoints, _codec(), prefix=f"/c-{uuid.uuid4().hex[:12]}", new_func=v1.Pod,
                      new_list_func=v1.PodList)


@pytest.fixture(params=["sqlite", "etcd"])
def backend(request) -> str:
    return request.param


@pytest.fixture
def endpoints(backend, request):
    return request.getfixturevalue("etcd_endpoints") if backend == "etcd" else None


@pytest.fixture
def store(backend, tmp_path, endpoints):
    s = make_store(backend, tmp_path, endpoints)
    yield s
    s.close()


@pytest.fixture
def cacher_factory(store):
    made: list[Cacher] = []

    def make(**kw) -> Cacher:
        c = Cacher(store, resource_prefix="/pods", **kw)
        made.append(c)
        assert c.wait_ready(10), c
        return c

    yield make
    for c in made:
        c.stop()


def pod(name: str, ns: str = "default", **labels) -> v1.Pod:
    return v1.Pod(metadata=metav1.ObjectMeta(name=name, namespace=ns, labels=labels or None),
                  spec=v1.PodSpec(containers=[v1.Container(name="c", image="nginx:1.27")]))


def key(name: str, ns: str = "default") -> str:
    return f"/pods/{ns}/{name}"


def set_labels(**labels):
    def update(cur):
        cur.metadata.labels = labels or None
        return cur
    return update


def names(lst) -> list[str]:
    return [p.metadata.name for p in lst.items]


def summary(event) -> tuple:
    obj = event.object
    return (event.type, obj.metadata.name, obj.metadata.resource_version, dict(obj.metadata.labels or {}))


def wait_rv(c: Cacher, rv: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while c.resource_version < rv:
        assert time.monotonic() < deadline, f"cache stuck at {c.resource_version}, want {rv}"
        time.sleep(0.005)


# ------------------------------------------------------------------ construction


def test_resource_prefix_rules_are_gos(store) -> None:
    for prefix, text in (("", "resourcePrefix cannot be empty"), ("/", "resourcePrefix cannot be /"),
                         ("pods", "resourcePrefix needs to start from /")):
        with pytest.raises(ValueError, match=text):
            Cacher(store, resource_prefix=prefix)


def test_many_watchers_cost_one_storage_watch_and_stop_ends_everything(store, cacher_factory) -> None:
    calls = []
    real = store.kv.watch

    def counting(*args, **kw):
        calls.append(args)
        return real(*args, **kw)

    store.kv.watch = counting
    try:
        c = cacher_factory()
        watchers = [c.watch("/pods", recursive=True, resource_version="0") for _ in range(50)]
        store.create(key("a"), pod("a"))
        for w in watchers:
            assert w.next(10).type == "ADDED"
        assert len(calls) == 1 and c.watcher_count == 50
        woken = threading.Event()
        watchers[0].set_notify(woken.set)
        c.stop()
        assert woken.is_set()
        assert all(w.stopped for w in watchers) and all(w.next(0.1) is None for w in watchers)
        assert list(watchers[1]) == []
        assert not c.ready() and not c._thread.is_alive()
        with pytest.raises(TooManyRequestsError, match="^apiserver cacher is stopped$"):
            c.watch("/pods", recursive=True)
    finally:
        store.kv.watch = real


def test_ready_semantics(store) -> None:
    store.create(key("a"), pod("a"))
    real_range = store.kv.range
    broken = threading.Event()
    broken.set()

    def failing_range(*args, **kw):
        if broken.is_set():
            raise RuntimeError("backend down")
        return real_range(*args, **kw)

    store.kv.range = failing_range
    c = Cacher(store, resource_prefix="/pods", ready_timeout=0.2)
    try:
        assert not c.wait_ready(0.3) and not c.ready()
        # ready.go: the pending state names the last error; watches get Go's 429.
        with pytest.raises(TooManyRequestsError, match="^storage is \\(re\\)initializing: backend down$"):
            c.watch("/pods", recursive=True)
        # Gets go to the storage while the cache is not ready (delegator.go).
        store.kv.range = real_range
        assert c.get(key("a"), resource_version="0").metadata.name == "a"
        store.kv.range = failing_range
        broken.clear()  # the backend is back: the cacher relists within a second
        assert c.wait_ready(10) and c.ready()
        assert names(c.get_list("/pods", resource_version="0")) == ["a"]
        with pytest.raises(BadRequestError, match="outside the cached prefix"):
            c.watch("/configmaps", recursive=True)
    finally:
        store.kv.range = real_range
        c.stop()


# ------------------------------------------------------------------ get and list


def test_get_and_list_from_the_cache(store, cacher_factory) -> None:
    for n in ("c", "a", "b"):
        store.create(key(n), pod(n, app="web" if n != "b" else "db"))
    store.create(key("z", "other"), pod("z", "other"))
    c = cacher_factory()
    calls = []
    real_list = store.get_list
    store.get_list = lambda *a, **kw: (calls.append((a, kw)), real_list(*a, **kw))[1]
    try:
        lst = c.get_list("/pods")  # consistent read: waits until the cache saw the current revision
        assert names(lst) == ["a", "b", "c", "z"]
        assert lst.metadata.resource_version == str(store.current_revision())
        assert names(c.get_list("/pods/default")) == ["a", "b", "c"]
        assert names(c.get_list("/pods", predicate=lambda p: (p.metadata.labels or {}).get("app") == "web")) == ["a", "c"]
        assert isinstance(lst, v1.PodList)
        # Paged: Go's continue tokens (relative to the listed prefix, at the list's revision).
        page = c.get_list("/pods/default", limit=2)
        assert names(page) == ["a", "b"] and page.metadata.remaining_item_count == 1
        assert decode_continue(page.metadata.continue_, store.path_prefix + "pods/default/") == (
            store.path_prefix + "pods/default/b\x00", int(page.metadata.resource_version))
        rest = c.get_list("/pods/default", limit=2, continue_token=page.metadata.continue_)
        assert names(rest) == ["c"] and rest.metadata.continue_ in (None, "")
        # The storage reads the cache's tokens and the cache the storage's.
        assert names(real_list("/pods/default", limit=2, continue_token=page.metadata.continue_)) == ["c"]
        assert calls == []
        # resourceVersion "0" is never paged by the cache (Go's computeListLimit).
        assert names(c.get_list("/pods", resource_version="0", limit=1)) == ["a", "b", "c", "z"]
        got = c.get(key("a"), resource_version="0")
        assert got.metadata.name == "a"
        with pytest.raises(KeyNotFoundError):
            c.get(key("nope"), resource_version="0")
        assert c.get(key("nope"), True, resource_version="0") is None
        # resourceVersion "" reads the storage (Go's delegator keeps that for compatibility).
        assert c.get(key("b")).metadata.labels == {"app": "db"}
        # Bad options: the storage's errors.
        with pytest.raises(BadRequestError, match="specifying resource version is not allowed when using continue"):
            c.get_list("/pods", resource_version="5", continue_token=page.metadata.continue_)
        with pytest.raises(BadRequestError, match="unknown ResourceVersionMatch value: Newest"):
            c.get_list("/pods", resource_version="5", resource_version_match="Newest")
    finally:
        store.get_list = real_list


def test_exact_lists_are_rebuilt_from_the_buffer_or_read_from_the_storage(store, cacher_factory) -> None:
    c = cacher_factory(capacity=4)
    revs = []
    for n in ("a", "b", "c"):
        revs.append(int(store.create(key(n), pod(n)).metadata.resource_version))
    revs.append(int(store.guaranteed_update(key("a"), set_labels(x="1")).metadata.resource_version))
    revs.append(int(store.delete(key("b")).metadata.resource_version))
    wait_rv(c, revs[-1])
    for rv in revs:
        want = store.get_list("/pods", resource_version=str(rv), resource_version_match="Exact")
        got = c.get_list("/pods", resource_version=str(rv), resource_version_match="Exact")
        assert [(p.metadata.name, p.metadata.resource_version, p.metadata.labels) for p in got.items] == \
               [(p.metadata.name, p.metadata.resource_version, p.metadata.labels) for p in want.items]
        assert got.metadata.resource_version == str(rv)
    # A page of a list at an older revision continues at that revision.
    page = c.get_list("/pods", resource_version=str(revs[2]), limit=1)
    assert names(page) == ["a"] and page.metadata.resource_version == str(revs[2])
    assert names(c.get_list("/pods", continue_token=page.metadata.continue_)) == ["b", "c"]


def test_paging_while_writers_run_gives_the_state_at_the_lists_revision(store, cacher_factory) -> None:
    """Pages continue at the first page's revision: rebuilt from the buffer while it
    reaches back that far, read from the storage after (capacity 40: both happen)."""
    c = cacher_factory(capacity=40)
    values = [(f"{store.path_prefix}pods/default/p{i:03d}".encode(), store.codec.encode(pod(f"p{i:03d}")))
              for i in range(200)]
    for k, v in values:
        store.kv.optimistic_put(k, v, 0)
    stop = threading.Event()

    def writer(offset: int) -> None:
        i = 0
        while not stop.is_set():
            name = f"p{(i * 7 + offset) % 200:03d}"
            try:
                store.guaranteed_update(key(name), set_labels(n=str(i)))
                if i % 5 == 0:
                    store.delete(key(name))
                    store.create(key(name), pod(name))
            except Exception as exc:  # noqa: BLE001 - a key deleted by the other writer
                if type(exc).__name__ not in ("KeyNotFoundError", "KeyExistsError"):
                    raise
            i += 1

    writers = [threading.Thread(target=writer, args=(o,)) for o in (0, 3)]
    for t in writers:
        t.start()
    try:
        for _ in range(2):
            page = c.get_list("/pods", limit=30)
            rv = page.metadata.resource_version
            got = [(p.metadata.name, p.metadata.resource_version) for p in page.items]
            while page.metadata.continue_:
                time.sleep(0.02)  # let the writers move the buffer on
                page = c.get_list("/pods", limit=30, continue_token=page.metadata.continue_)
                assert page.metadata.resource_version == rv
                got += [(p.metadata.name, p.metadata.resource_version) for p in page.items]
            want = store.get_list("/pods", resource_version=rv, resource_version_match="Exact")
            assert got == [(p.metadata.name, p.metadata.resource_version) for p in want.items]
            assert len({name for name, _ in got}) == len(got)
    finally:
        stop.set()
        for t in writers:
            t.join()


def test_unstructured_objects(tmp_path) -> None:
    """Custom resources are cached as Unstructured (Go's CRD storage uses
    UnstructuredJSONScheme): bookmarks, the watch-list end marker, DELETED copies."""
    from kcodec.api.meta.unstructured import UNSTRUCTURED_JSON_SCHEME, Unstructured, UnstructuredList
    from kcodec.storage.sqlite import SQLiteStore

    def widget(name: str, **labels) -> Unstructured:
        return Unstructured({"apiVersion": "example.com/v1", "kind": "Widget",
                             "metadata": {"name": name, "namespace": "default", **({"labels": labels} if labels else {})},
                             "spec": {"size": 1}})

    def new() -> Unstructured:
        return Unstructured({"apiVersion": "example.com/v1", "kind": "Widget"})

    store = SQLiteStore(tmp_path / "crd.db", UNSTRUCTURED_JSON_SCHEME, new_func=new)
    c = Cacher(store, resource_prefix="/example.com/widgets", new_func=new,
               new_list_func=lambda: UnstructuredList({"apiVersion": "example.com/v1", "kind": "WidgetList"}))
    try:
        assert c.wait_ready(10)
        store.create("/example.com/widgets/default/a", widget("a", app="web"))
        w = c.watch("/example.com/widgets", recursive=True, resource_version="", send_initial_events=True,
                    allow_watch_bookmarks=True)
        first = w.next(5)
        assert first.type == "ADDED" and first.object.get_name() == "a"
        end = w.next(5)
        assert end.type == "BOOKMARK" and end.object.get_annotations() == {INITIAL_EVENTS_ANNOTATION: "true"}
        assert end.object.get_kind() == "Widget" and end.object.get_resource_version()
        gone = store.delete("/example.com/widgets/default/a")
        deleted = w.next(5)
        assert deleted.type == "DELETED" and deleted.object.get_resource_version() == gone.get_resource_version()
        assert deleted.object is not first.object and first.object.get_resource_version() != gone.get_resource_version()
        lst = c.get_list("/example.com/widgets")
        assert isinstance(lst, UnstructuredList) and lst.items == [] and lst.get_resource_version()
        w.stop()
    finally:
        c.stop()
        store.close()


# ------------------------------------------------------------------ watch


def test_watch_from_the_buffer_and_too_old_below_it(store, cacher_factory) -> None:
    c = cacher_factory(capacity=3)
    start = store.current_revision()
    revs = [int(store.create(key(f"p{i}"), pod(f"p{i}")).metadata.resource_version) for i in range(5)]
    wait_rv(c, revs[-1])
    with c.watch("/pods", recursive=True, resource_version=str(revs[1])) as w:
        assert [w.next(5).object.metadata.name for _ in range(3)] == ["p2", "p3", "p4"]
        assert w.resource_version == revs[4]
    with pytest.raises(ResourceExpiredError) as info:
        c.watch("/pods", recursive=True, resource_version=str(start))
    # watch_cache_history.go GetIntervalLocked: the oldest revision the buffer can start after.
    assert str(info.value) == f"too old resource version: {start} ({revs[1]})"
    # A single key: only its events.
    with c.watch(key("p3"), resource_version=str(revs[1])) as w:
        assert w.next(5).object.metadata.name == "p3"
        assert w.next(0.2) is None


def test_the_buffer_grows_while_its_events_are_fresh_and_shrinks_when_stale(store, cacher_factory) -> None:
    """watch_cache_history.go resizeCacheLocked, with a 1 s freshness instead of 75 s."""
    c = cacher_factory(capacity=4, max_capacity=16, event_fresh_duration=1.0)
    start = store.current_revision()
    revs = [int(store.create(key(f"p{i:02d}"), pod(f"p{i:02d}")).metadata.resource_version) for i in range(16)]
    wait_rv(c, revs[-1])
    assert c.capacity == 16  # 4 -> 8 -> 16 as the fresh buffer filled
    with c.watch("/pods", recursive=True, resource_version=str(start)) as w:
        assert [w.next(5).object.metadata.name for _ in range(16)] == [f"p{i:02d}" for i in range(16)]
    time.sleep(1.2)
    last = int(store.create(key("late"), pod("late")).metadata.resource_version)
    wait_rv(c, last)
    assert c.capacity == 8  # the newest quarter was stale: halved, the oldest events dropped
    with pytest.raises(ResourceExpiredError, match=f"^too old resource version: {start} \\({revs[8]}\\)$"):
        c.watch("/pods", recursive=True, resource_version=str(start))
    with c.watch("/pods", recursive=True, resource_version=str(revs[8])) as w:
        assert [w.next(5).object.metadata.name for _ in range(8)] == [f"p{i:02d}" for i in range(9, 16)] + ["late"]
    with pytest.raises(ValueError, match="max_capacity 2 is below its capacity 4"):
        Cacher(store, resource_prefix="/pods", capacity=4, max_capacity=2)


def test_predicate_transitions_match_the_storage_watch(store, cacher_factory) -> None:
    c = cacher_factory()
    store.create(key("a"), pod("a", app="web"))
    rv = str(store.current_revision())
    web = lambda p: (p.metadata.labels or {}).get("app") == "web"  # noqa: E731
    cw = c.watch("/pods", recursive=True, resource_version=rv, predicate=web)
    sw = store.watch("/pods", recursive=True, resource_version=rv, predicate=web)
    store.guaranteed_update(key("a"), set_labels(app="db"))      # stops matching: DELETED
    store.guaranteed_update(key("a"), set_labels(app="web"))     # matches again: ADDED
    store.guaranteed_update(key("a"), set_labels(app="web", x="1"))  # MODIFIED
    store.create(key("b"), pod("b", app="db"))                   # never matches
    store.delete(key("a"))                                       # DELETED
    got = [summary(cw.next(10)) for _ in range(4)]
    want = [summary(sw.next(10)) for _ in range(4)]
    assert got == want
    assert [g[0] for g in got] == ["DELETED", "ADDED", "MODIFIED", "DELETED"]
    assert cw.next(0.3) is None
    cw.stop()
    sw.stop()


class AppSelector:
    """A selection predicate as the registry's (Go's SelectionPredicate): ``matches(obj)``
    through the kind's attr function, and ``matches_object_attributes(labels, fields)``."""

    def __init__(self, app: str, get_attrs) -> None:
        self.app = app
        self.get_attrs = get_attrs

    def matches(self, obj) -> bool:
        return self.matches_object_attributes(*self.get_attrs(obj))

    def matches_object_attributes(self, labels, fields) -> bool:
        return labels.get("app") == self.app


def test_selection_predicates_match_on_attributes_computed_once(store, cacher_factory) -> None:
    calls = []

    def get_attrs(obj):
        calls.append(obj.metadata.name)
        return dict(obj.metadata.labels or {}), {"metadata.name": obj.metadata.name}

    c = cacher_factory(get_attrs=get_attrs)
    rv = str(store.current_revision())
    watchers = [c.watch("/pods", recursive=True, resource_version=rv, predicate=AppSelector("web", get_attrs).matches)
                for _ in range(20)]
    store.create(key("a"), pod("a", app="web"))
    store.create(key("b"), pod("b", app="db"))
    store.guaranteed_update(key("a"), set_labels(app="db"))
    for w in watchers:
        assert [summary(w.next(5))[:2] for _ in range(2)] == [("ADDED", "a"), ("DELETED", "a")]
    assert all(w.next(0) is None for w in watchers) and watchers[0].next(0.1) is None
    # cacher.go: attributes once per event (and once for the object before it), not per watcher.
    assert sorted(calls) == ["a", "a", "a", "b"]
    calls.clear()
    sel = AppSelector("db", get_attrs).matches
    assert names(c.get_list("/pods", predicate=sel)) == ["a", "b"]
    assert names(c.get_list("/pods", predicate=sel)) == ["a", "b"]
    assert sorted(calls) == ["a", "b"]  # kept per object until it changes
    # Any other callable is called with the object.
    assert names(c.get_list("/pods", predicate=lambda p: p.metadata.name == "b")) == ["b"]


def test_bookmarks(store, cacher_factory) -> None:
    c = cacher_factory(bookmark_frequency=0.2)
    rv = store.current_revision()
    with c.watch("/pods", recursive=True, resource_version=str(rv), allow_watch_bookmarks=True) as w, \
            c.watch("/pods", recursive=True, resource_version=str(rv)) as plain:
        created = store.create(key("a"), pod("a"))
        assert w.next(5).type == "ADDED"
        # A write elsewhere moves the store's revision: the next bookmark reports it.
        other = store.create("/configmaps/default/x", v1.ConfigMap(metadata=metav1.ObjectMeta(name="x", namespace="default")))
        deadline = time.monotonic() + 10
        while True:
            event = w.next(5)
            assert event is not None and event.type == "BOOKMARK"
            if int(event.object.metadata.resource_version) >= int(other.metadata.resource_version):
                break
            assert time.monotonic() < deadline
        # cacher.go: the bookmark object is newFunc() with only its resourceVersion set.
        assert isinstance(event.object, v1.Pod)
        assert event.object.metadata == metav1.ObjectMeta(resource_version=event.object.metadata.resource_version)
        assert int(event.object.metadata.resource_version) > int(created.metadata.resource_version)
        assert w.resource_version == int(event.object.metadata.resource_version)
        assert summary(plain.next(5))[0] == "ADDED"
        assert plain.next(0.5) is None  # no bookmarks without allow_watch_bookmarks


def test_a_bookmark_comes_two_seconds_before_the_watch_deadline(store, cacher_factory) -> None:
    c = cacher_factory()  # bookmarks every minute: only the deadline's comes in this test
    rv = store.current_revision()
    start = time.monotonic()
    with c.watch("/pods", recursive=True, resource_version=str(rv), allow_watch_bookmarks=True,
                 timeout_seconds=2.6) as w:
        store.create(key("a"), pod("a"))
        assert w.next(5).type == "ADDED"
        other = store.create("/configmaps/default/d", v1.ConfigMap(metadata=metav1.ObjectMeta(name="d", namespace="default")))
        event = w.next(5)
        elapsed = time.monotonic() - start
        assert event is not None and event.type == "BOOKMARK", event
        # cacher.go nextBookmarkTime: deadline - 2 s (the dispatcher looks once a second).
        assert 0.5 <= elapsed <= 2.6, elapsed
        assert int(event.object.metadata.resource_version) >= int(other.metadata.resource_version) - 1
        assert w.next(1.2) is None  # no bookmark after the last one
    with c.watch("/pods", recursive=True, allow_watch_bookmarks=True, timeout_seconds=1) as w:
        assert c._bookmark_watchers == {}  # its deadline is too near for any bookmark


@pytest.mark.parametrize("rv", ["", "0", "current"])
def test_send_initial_events(store, cacher_factory, rv) -> None:
    c = cacher_factory()
    for n in ("b", "a"):
        last = int(store.create(key(n), pod(n)).metadata.resource_version)
    # Writes elsewhere move the revision past the cache's last event: a consistent start
    # needs the storage watch's progress (etcd 3.4: no RequestWatchProgress feature check).
    for i in range(3):
        store.create(f"/configmaps/default/x{i}", v1.ConfigMap(metadata=metav1.ObjectMeta(name=f"x{i}", namespace="default")))
    current = store.current_revision()
    if rv == "0":
        wait_rv(c, last)  # "0" is any state the cache has: let it have these two
    start = time.monotonic()
    w = c.watch("/pods", recursive=True, resource_version=str(current) if rv == "current" else rv,
                send_initial_events=True, allow_watch_bookmarks=True)
    events = [w.next(5) for _ in range(3)]
    assert time.monotonic() - start < 2.5
    assert [(e.type, e.object.metadata.name) for e in events[:2]] == [("ADDED", "a"), ("ADDED", "b")]
    end = events[2]
    assert end.type == "BOOKMARK"
    assert end.object.metadata.annotations == {INITIAL_EVENTS_ANNOTATION: "true"}
    if rv != "0":
        assert int(end.object.metadata.resource_version) >= current
    store.create(key("c"), pod("c"))
    assert summary(w.next(5))[:2] == ("ADDED", "c")
    w.stop()
    # Without bookmarks: the initial events, no end marker.
    with c.watch("/pods", recursive=True, send_initial_events=True) as w2:
        assert [w2.next(5).object.metadata.name for _ in range(3)] == ["a", "b", "c"]
        assert w2.next(0.3) is None
    # send_initial_events=False: only what happens after the start.
    with c.watch("/pods", recursive=True, send_initial_events=False) as w3:
        assert w3.next(0.3) is None
        store.delete(key("c"))
        assert summary(w3.next(5))[:2] == ("DELETED", "c")


def test_consistent_list_after_writes_elsewhere_is_served_by_the_cache(store, cacher_factory) -> None:
    c = cacher_factory()
    store.create(key("a"), pod("a"))
    for i in range(3):
        store.create(f"/configmaps/default/y{i}", v1.ConfigMap(metadata=metav1.ObjectMeta(name=f"y{i}", namespace="default")))
    real_list = store.get_list
    store.get_list = lambda *a, **kw: pytest.fail("the consistent list fell back to the storage")
    try:
        start = time.monotonic()
        lst = c.get_list("/pods")
        assert time.monotonic() - start < 2.5
        assert names(lst) == ["a"] and int(lst.metadata.resource_version) >= store.current_revision()
    finally:
        store.get_list = real_list


def test_a_watcher_that_never_reads_is_dropped_and_100_others_get_every_event(store, cacher_factory) -> None:
    c = cacher_factory(watcher_buffer_size=30)
    rv = str(store.current_revision())
    stuck = c.watch("/pods", recursive=True, resource_version=rv)
    watchers = [c.watch("/pods", recursive=True, resource_version=rv) for _ in range(100)]
    total = 90
    got: dict[int, list] = {i: [] for i in range(100)}

    async def read_all() -> None:
        # One asyncio thread reads every watcher, woken through set_notify, as a server does.
        loop = asyncio.get_running_loop()
        wake = asyncio.Event()
        for w in watchers:
            w.set_notify(lambda: loop.call_soon_threadsafe(wake.set))
        deadline = loop.time() + 60
        while any(len(v) < total for v in got.values()):
            await asyncio.wait_for(wake.wait(), max(deadline - loop.time(), 0.01))
            wake.clear()
            for i, w in enumerate(watchers):
                while (event := w.next(0)) is not None:
                    got[i].append(event.object.metadata.name)

    reader = threading.Thread(target=lambda: asyncio.run(read_all()))
    reader.start()
    for i in range(total):
        store.create(key(f"p{i:03d}"), pod(f"p{i:03d}"))
        # Writes an API server takes in, not a burst faster than any reader on a machine
        # shared with other jobs: the reader must keep within 30 events and Go's 100 ms.
        time.sleep(0.003)
    reader.join(90)
    assert not reader.is_alive()
    want = [f"p{i:03d}" for i in range(total)]
    assert all(v == want for v in got.values())
    assert all(not w.dropped for w in watchers)
    assert stuck.dropped and stuck.stopped and c.watcher_count == 100
    # What it had queued can still be read, then it ends; the client resumes from there.
    queued = list(stuck)
    assert 0 < len(queued) <= 30 and [e.object.metadata.name for e in queued] == want[:len(queued)]
    for w in watchers:
        w.set_notify(None)
        w.stop()
    assert c.watcher_count == 0


# ------------------------------------------------------------------ writes


def test_writes_pass_through_with_the_cached_object_suggested(store, cacher_factory) -> None:
    c = cacher_factory()
    created = c.create(key("a"), pod("a"))
    wait_rv(c, int(created.metadata.resource_version))
    seen = []
    real = store.guaranteed_update

    def spy(k, fn, **kw):
        seen.append(kw["cached_existing_object"])
        return real(k, fn, **kw)

    store.guaranteed_update = spy
    try:
        updated = c.guaranteed_update(key("a"), set_labels(x="1"))
    finally:
        store.guaranteed_update = real
    assert seen[0] is not None and seen[0] is not c.get(key("a"), resource_version="0")  # a copy
    assert updated.metadata.labels == {"x": "1"}
    wait_rv(c, int(updated.metadata.resource_version))
    assert c.get(key("a"), resource_version="0").metadata.labels == {"x": "1"}
    # The cached object the update started from was not touched.
    assert created.metadata.labels is None
    deleted = c.delete(key("a"))
    assert deleted.metadata.name == "a" and c.count("/pods") == 0


# ------------------------------------------------------------------ compaction


def test_compactor_compacts_once_per_interval_across_servers_and_reads_see_410(store, cacher_factory) -> None:
    c = cacher_factory(compaction_poll_period=0.1)
    first = int(store.create(key("a"), pod("a")).metadata.resource_version)
    store.guaranteed_update(key("a"), set_labels(n="first"))
    store.guaranteed_update(key("a"), set_labels(n="second"))
    with_b = store.create(key("b"), pod("b")).metadata.resource_version
    wait_rv(c, int(with_b))
    old_page = c.get_list("/pods", resource_version=with_b, resource_version_match="Exact", limit=1)
    assert names(old_page) == ["a"] and old_page.metadata.continue_
    store.guaranteed_update(key("b"), set_labels(n="later"))  # the page's revision falls below what gets compacted
    kv = store.kv
    server1, server2 = Compactor(kv, interval=3600), Compactor(kv, interval=3600)
    try:
        server1.start()
        # The first tick records the revision it saw (and, when compact_rev_key is new, writes it).
        server1.tick()
        seen = store.current_revision()
        # The other server loses the compare-and-swap on compact_rev_key: it writes nothing.
        server2.tick()
        assert store.current_revision() == seen
        for i in range(3):
            last = store.guaranteed_update(key("a"), set_labels(n=str(i)))
        # (The cache has read past what gets compacted; a watch lagging behind compaction
        # relists, and the test would see the relist's revision in the 410 below.)
        wait_rv(c, int(last.metadata.resource_version))
        # One interval later: the revision seen one interval ago is compacted.
        assert server1.tick() == seen == server1.compact_revision
        compacted = seen
        assert compacted > first
        assert server2.tick() == compacted  # learnt from the key, did not compact again
        assert server2.compact_revision == compacted
        raw, _ = kv.get(COMPACT_REV_KEY)
        assert raw.value == str(compacted).encode()
        deadline = time.monotonic() + 5
        while c._compacted < compacted:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        for reader in (store, c):
            with pytest.raises(ResourceExpiredError, match="^The resourceVersion for the provided list is too old.$"):
                reader.get_list("/pods", resource_version=str(first), resource_version_match="Exact")
        with pytest.raises(ResourceExpiredError, match=f"^too old resource version: {first} "):
            store.watch("/pods", recursive=True, resource_version=str(first))
        with pytest.raises(ResourceExpiredError, match=f"^too old resource version: {first} \\({compacted}\\)$"):
            c.watch("/pods", recursive=True, resource_version=str(first))
        # A continue token of a list at a compacted revision: Go's inconsistent-continue 410.
        with pytest.raises(ResourceExpiredError, match="^The provided continue parameter is too old") as info:
            c.get_list("/pods", continue_token=old_page.metadata.continue_)
        assert info.value.continue_token
        # At and after the compacted revision everything still answers.
        assert names(c.get_list("/pods", resource_version=str(compacted), resource_version_match="Exact")) == ["a", "b"]
        with c.watch("/pods", recursive=True, resource_version=str(compacted)) as w:
            assert w.next(0.2) is None or w.resource_version > compacted
    finally:
        server1.stop()
        server2.stop()


def test_a_cache_whose_watch_falls_behind_compaction_relists_and_ends_its_watchers(tmp_path) -> None:
    store = make_store("sqlite", tmp_path, None)
    c = Cacher(store, resource_prefix="/pods")
    try:
        assert c.wait_ready(10)
        w = c.watch("/pods", recursive=True, resource_version=str(store.current_revision()))
        store.create(key("a"), pod("a"))
        assert w.next(5).type == "ADDED"
        # Hold the cache's storage watch while the storage moves on and compacts.
        gate, held = threading.Event(), threading.Event()
        raw = c._raw
        real_next = raw.next_batch
        raw.next_batch = lambda timeout: (held.set(), gate.wait(), real_next(timeout))[2]
        # the cache's thread may be inside a read begun before the patch: wait until it is held
        assert held.wait(10)
        for i in range(3):
            store.guaranteed_update(key("a"), set_labels(n=str(i)))
        store.compact(store.current_revision())
        gate.set()
        # Go's reflector relists on "too old resource version"; the cacher ends its watchers.
        while (event := w.next(10)) is not None:
            assert event.type == "MODIFIED"  # what the cache read before it stopped reading
        assert w.stopped and not w.dropped
        assert c.wait_ready(10)
        deadline = time.monotonic() + 10
        while c._raw is raw or c._raw is None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        # Resuming from where the watcher was: 410, from the cache as from the storage.
        resume = str(w.resource_version)
        assert int(resume) < store.current_revision() - 1
        with pytest.raises(ResourceExpiredError, match=f"^too old resource version: {resume} "):
            c.watch("/pods", recursive=True, resource_version=resume)
        with pytest.raises(ResourceExpiredError, match=f"^too old resource version: {resume} "):
            store.watch("/pods", recursive=True, resource_version=resume)
        assert c.get(key("a"), resource_version="0").metadata.labels == {"n": "2"}
    finally:
        c.stop()
        store.close()


def test_compactor_thread_runs_on_its_interval(store) -> None:
    store.create(key("a"), pod("a"))
    with Compactor(store.kv, interval=0.2) as comp:
        seen = store.current_revision()
        store.guaranteed_update(key("a"), set_labels(x="1"))
        deadline = time.monotonic() + 10
        while comp.compact_revision < seen:
            assert time.monotonic() < deadline, comp
            time.sleep(0.05)
    with pytest.raises(ValueError):
        Compactor(store.kv, interval=-1)


# ------------------------------------------------------------------ the property


def drain(w, final: int) -> list[tuple]:
    """Every event up to revision ``final`` (both watchers count filtered events in
    ``resource_version``)."""
    out = []
    deadline = time.monotonic() + 20
    while True:
        event = w.next(0.05)
        if event is not None:
            out.append(summary(event))
        elif w.resource_version >= final:
            return out
        assert time.monotonic() < deadline, (w, final, out)


_ops = st.lists(st.tuples(st.sampled_from(["create", "update", "delete"]), st.sampled_from("abcd"),
                          st.sampled_from(["web", "db"])), min_size=1, max_size=14)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=_ops)
def test_property_cache_and_storage_agree(backend, tmp_path, endpoints, ops) -> None:
    """Random creates/updates/deletes: the cache's watch and the storage's watch give the
    same events in the same order (with and without a selector), and a list at every
    returned revision equals the state replayed to it."""
    store = make_store(backend, tmp_path, endpoints)
    c = Cacher(store, resource_prefix="/pods", capacity=6)
    try:
        assert c.wait_ready(10)
        start = str(store.current_revision())
        web = lambda p: (p.metadata.labels or {}).get("app") == "web"  # noqa: E731
        watches = [(c.watch("/pods", recursive=True, resource_version=start, predicate=pred),
                    store.watch("/pods", recursive=True, resource_version=start, predicate=pred))
                   for pred in (None, web)]
        state: dict[str, tuple[str, str]] = {}
        history: list[tuple[int, dict]] = []
        for op, name, app in ops:
            try:
                if op == "create":
                    out = store.create(key(name), pod(name, app=app))
                elif op == "update":
                    out = store.guaranteed_update(key(name), set_labels(app=app))
                else:
                    out = store.delete(key(name))
            except KeyNotFoundError:
                continue
            except Exception as exc:  # KeyExistsError
                if type(exc).__name__ != "KeyExistsError":
                    raise
                continue
            rv = out.metadata.resource_version
            if history and int(rv) <= history[-1][0]:
                continue  # an update that changed nothing writes nothing
            if op == "delete":
                state.pop(name, None)
            else:
                state[name] = (rv, app)
            history.append((int(rv), dict(state)))
        final = store.current_revision()
        for cw, sw in watches:
            assert drain(cw, final) == drain(sw, final)
            cw.stop()
            sw.stop()
        for rv, replayed in history:
            lst = c.get_list("/pods", resource_version=str(rv), resource_version_match="Exact")
            assert {p.metadata.name: (p.metadata.resource_version, p.metadata.labels["app"]) for p in lst.items} == replayed
            assert lst.metadata.resource_version == str(rv)
    finally:
        c.stop()
        store.close()
