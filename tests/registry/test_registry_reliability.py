"""Reliability of the registry on SQLite and on a real etcd: no lost update under
contention, consistent paginated lists while writers run, and bad input that stores
nothing and leaves the store working."""
from __future__ import annotations

import random
import threading
import time

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)
from _registry_env import backend, make_getter  # noqa: F401
from kcodec import labels
from kcodec.api import errors as apierrors
from kcodec.api.core import internal as core
from kcodec.api.meta.v1 import ListOptions as V1ListOptions
from kcodec.registry import rest
from kcodec.registry.builtin import new_store, resource_info
from kcodec.registry.request import Context

NS = Context(namespace="default")


@pytest.fixture
def configmaps(backend, tmp_path, request):
    return new_store(resource_info("", "configmaps"), make_getter(backend, tmp_path, request))


def _cm(name, **data):
    obj = core.ConfigMap(data=dict(data))
    obj.metadata.name = name
    return obj


def test_concurrent_writers_lose_no_update(configmaps, backend):
    """8 writers x 200 read-modify-write updates of one object (x 60 on etcd, whose round
    trips make 1,600 contended updates take 10 s here), Conflicts retried as a client
    does: the counter ends at the number of updates and the writers did race."""
    per_writer = 200 if backend == "sqlite" else 60
    configmaps.create(NS, _cm("counter", n="0"))
    conflicts = [0] * 8
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        try:
            for _ in range(per_writer):
                while True:
                    cur = configmaps.get(NS, "counter")
                    cur.data = {"n": str(int(cur.data["n"]) + 1)}
                    try:
                        configmaps.update(NS, "counter", rest.DefaultUpdatedObjectInfo(cur))
                        break
                    except apierrors.StatusError as exc:
                        if not apierrors.is_conflict(exc):
                            raise
                        conflicts[i] += 1
                        # client-go's RetryOnConflict backs off with jitter before retrying
                        time.sleep(random.uniform(0, 0.002))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:1]
    assert configmaps.get(NS, "counter").data == {"n": str(8 * per_writer)}
    assert sum(conflicts) > 0  # the writers did race


def test_paginated_list_during_writes_sees_each_object_once(configmaps, backend):
    """5,000 objects (2,000 on etcd, for time) listed 250 at a time while writers update
    and create others: every object that existed at the first page's resourceVersion
    appears exactly once, in key order, with the state of that revision."""
    total = 5000 if backend == "sqlite" else 2000
    for i in range(total):
        configmaps.create(NS, _cm(f"cm-{i:05d}", v="0"))
    stop = threading.Event()
    errors: list[BaseException] = []

    def churn(offset: int) -> None:
        n = 0
        try:
            while not stop.is_set():
                name = f"cm-{(offset + n * 7) % total:05d}"
                cur = configmaps.get(NS, name)
                cur.data = {"v": str(int(cur.data["v"]) + 1)}
                try:
                    configmaps.update(NS, name, rest.DefaultUpdatedObjectInfo(cur))
                except apierrors.StatusError as exc:
                    if not apierrors.is_conflict(exc):
                        raise
                configmaps.create(NS, _cm(f"new-{offset}-{n}", v="0"))
                n += 1
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    writers = [threading.Thread(target=churn, args=(k,)) for k in range(3)]
    for w in writers:
        w.start()
    try:
        page = configmaps.list(NS, rest.ListOptions(limit=250))
        rv = page.metadata.resource_version
        names = [i.metadata.name for i in page.items]
        values = {i.metadata.name: i.data["v"] for i in page.items}
        while page.metadata.continue_:
            page = configmaps.list(NS, rest.ListOptions(limit=250, continue_=page.metadata.continue_))
            assert page.metadata.resource_version == rv
            names += [i.metadata.name for i in page.items]
            values.update({i.metadata.name: i.data["v"] for i in page.items})
    finally:
        stop.set()
        for w in writers:
            w.join()
    assert not errors, errors[:1]
    assert len(names) == len(set(names)) and names == sorted(names)
    assert [n for n in names if n.startswith("cm-")] == [f"cm-{i:05d}" for i in range(total)]
    exact = configmaps.list(NS, rest.ListOptions(resource_version=rv, resource_version_match="Exact"))
    assert [i.metadata.name for i in exact.items] == names
    assert {i.metadata.name: i.data["v"] for i in exact.items} == values


def _expect_api_error(fn, code=None):
    with pytest.raises(apierrors.StatusError) as e:
        fn()
    assert 400 <= e.value.code < 500 if code is None else e.value.code == code, str(e.value)
    return e.value


def test_bad_input_stores_nothing(configmaps):
    configmaps.create(NS, _cm("keep", a="1"))
    rv_before = configmaps.list(NS).metadata.resource_version
    huge_annotations = _cm("big")
    huge_annotations.metadata.annotations = {"a": "x" * (256 * 1024 + 1)}
    err = _expect_api_error(lambda: configmaps.create(NS, huge_annotations), 422)
    assert "metadata.annotations: Too long: may not be more than 262144 bytes" in str(err)
    _expect_api_error(lambda: configmaps.create(NS, _cm("UPPER")), 422)
    _expect_api_error(lambda: configmaps.create(NS, _cm("x" * 300)), 422)
    bad_label = _cm("labels")
    bad_label.metadata.labels = {"bad key!": "v"}
    _expect_api_error(lambda: configmaps.create(NS, bad_label), 422)
    bad_owner = _cm("owner")
    from kcodec.api.meta.v1 import OwnerReference

    bad_owner.metadata.owner_references = [OwnerReference(api_version="v1", kind="Pod", name="", uid="")]
    _expect_api_error(lambda: configmaps.create(NS, bad_owner), 422)
    secret = core.Secret()
    secret.metadata.name = "wrong-kind"
    err = _expect_api_error(lambda: configmaps.create(NS, secret), 400)
    assert "Secret" in str(err)
    _expect_api_error(lambda: configmaps.get(NS, "../etc"), 400)
    _expect_api_error(lambda: configmaps.get(NS, "a/b"), 400)
    # hostile selectors: deep, huge, invalid UTF-8, invalid syntax; all 400 from the parser
    for selector in ("(" * 10000, "\udcff=1", "a=b,,", "!", "a===", "a in (" + "x," * 50000 + "("):
        _expect_api_error(lambda: rest.ListOptions.from_metav1(V1ListOptions(label_selector=selector)), 400)
    # a huge but valid selector is Go's too: it parses and selects nothing
    huge = rest.ListOptions.from_metav1(V1ListOptions(label_selector="a in (" + ",".join(["x"] * 100000) + ")"))
    assert configmaps.list(NS, huge).items == []
    for selector in ("metadata.name", "x" * 100000 + "==", "spec.foo=bar"):
        _expect_api_error(lambda: rest.ListOptions.from_metav1(
            V1ListOptions(field_selector=selector), kind=configmaps.kind), 400)
    _expect_api_error(lambda: configmaps.list(NS, rest.ListOptions(continue_="\x00garbage", limit=1)), 400)
    _expect_api_error(lambda: configmaps.list(NS, rest.ListOptions(resource_version="-1")), 400)
    # nothing was written, and the store still works
    assert configmaps.list(NS).metadata.resource_version == rv_before
    assert [i.metadata.name for i in configmaps.list(NS).items] == ["keep"]
    configmaps.create(NS, _cm("after", a="1"))
    assert len(configmaps.list(NS, rest.ListOptions(label_selector=labels.everything())).items) == 2


def test_oversized_object_is_refused_with_413(backend, tmp_path, request):
    """An object the backend cannot take (over etcd's request limit; the same bytes on
    SQLite are stored, as SQLite has no such limit): a 413, nothing stored."""
    events = new_store(resource_info("", "events"), make_getter(backend, tmp_path, request))
    big = core.Event(message="x" * (3 * 1024 * 1024))
    big.metadata.name = "big"
    big.involved_object = core.ObjectReference(kind="Pod", name="p", namespace="default")
    if backend == "sqlite":
        assert len(events.create(NS, big).message) == 3 * 1024 * 1024
        return
    err = _expect_api_error(lambda: events.create(NS, big), 413)
    assert str(err).startswith("Request entity too large: ")
    assert events.list(NS).items == []


def test_update_with_a_garbage_resource_version(configmaps):
    created = configmaps.create(NS, _cm("rv", a="1"))
    bad = created.deep_copy()
    bad.metadata.resource_version = "12abc"
    err = _expect_api_error(lambda: configmaps.update(NS, "rv", rest.DefaultUpdatedObjectInfo(bad)), 400)
    assert str(err) == ('resourceVersion: Invalid value: "12abc": strconv.ParseUint: parsing "12abc": '
                        'invalid syntax')
    assert configmaps.get(NS, "rv").metadata.resource_version == created.metadata.resource_version
