"""One conformance suite for kcodec.storage.Store, run on both backends (as apiserver's
pkg/storage/testing suite runs on etcd3 and the cacher): the embedded SQLite log and a real
etcd started on loopback. Every test also runs in both kcodec modes (conftest).

What Go's etcd3 store does is the reference: create is If(mod_revision==0).Then(Put),
resourceVersion is the revision, guaranteed_update retries on the mod revision and writes
nothing for unchanged bytes, preconditions fail with Go's text, lists page with Go's
continue tokens and honour "", "0", Exact and NotOlderThan, watches start after a revision
and end with "too old resource version" after compaction.
"""
from __future__ import annotations

import base64
import json
import threading
import uuid

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)
from kcodec.api import codecs
from kcodec.api.core import v1
from kcodec.api.meta import v1 as metav1
from kcodec.errors import DecodeError, KCodecError
from kcodec.schema import GroupVersion
from kcodec.storage import Preconditions, StorageCodecConfig, new_storage_codec
from kcodec.storage.errors import (
    BadRequestError,
    CorruptObjectError,
    InvalidObjectError,
    KeyExistsError,
    KeyNotFoundError,
    ResourceExpiredError,
    ResourceVersionSetOnCreateError,
    TooLargeResourceVersionError,
    is_conflict,
    is_exist,
    is_not_found,
)

PROTOBUF = "application/vnd.kubernetes.protobuf"
CORE_V1 = GroupVersion("", "v1")


def codec(media_type: str = PROTOBUF):
    return new_storage_codec(StorageCodecConfig(media_type, codecs, CORE_V1, CORE_V1))


def make_store(backend: str, tmp_path, endpoints, media_type: str = PROTOBUF, transformer=None, **kw):
    if backend == "sqlite":
        from kcodec.storage.sqlite import SQLiteStore

        return SQLiteStore(tmp_path / "store.db", codec(media_type), transformer=transformer, **kw)
    from kcodec.storage.etcd3 import Etcd3Store

    # One etcd serves the session: each test gets its own prefix.
    return Etcd3Store(endpoints, codec(media_type), prefix=f"/t-{uuid.uuid4().hex[:12]}",
                      transformer=transformer, **kw)


@pytest.fixture(params=["sqlite", "etcd"])
def backend(request) -> str:
    return request.param


@pytest.fixture
def endpoints(backend, request):
    if backend == "etcd":
        return request.getfixturevalue("etcd_endpoints")
    return None


@pytest.fixture
def store(backend, tmp_path, endpoints):
    s = make_store(backend, tmp_path, endpoints)
    yield s
    s.close()


def pod(name: str, ns: str = "default", **meta) -> v1.Pod:
    return v1.Pod(metadata=metav1.ObjectMeta(name=name, namespace=ns, **meta),
                  spec=v1.PodSpec(containers=[v1.Container(name="c", image="nginx:1.27")]))


def key(name: str, ns: str = "default") -> str:
    return f"/pods/{ns}/{name}"


def add_label(k: str, v: str):
    def update(cur):
        cur.metadata.labels = {**(cur.metadata.labels or {}), k: v}
        return cur
    return update


# ------------------------------------------------------------------ create / get


def test_create_sets_resource_version_from_revision(store) -> None:
    before = store.current_revision()
    out = store.create(key("a"), pod("a", uid="u-1"))
    assert isinstance(out, v1.Pod)
    assert int(out.metadata.resource_version) == before + 1 == store.current_revision()
    got = store.get(key("a"))
    assert got == out
    assert got.spec.containers[0].image == "nginx:1.27"


def test_stored_value_is_codec_output_without_resource_version(store) -> None:
    store.create(key("a"), pod("a"))
    raw, _ = store.kv.get((store.path_prefix + "pods/default/a").encode())
    assert raw.value.startswith(b"k8s\x00")  # protobuf envelope, as kube-apiserver stores Pods
    obj, gvk = codecs.universal_deserializer().decode(raw.value)
    assert str(gvk) == "/v1, Kind=Pod" and obj.metadata.resource_version in (None, "")


def test_create_existing_key_is_key_exists(store) -> None:
    store.create(key("a"), pod("a"))
    with pytest.raises(KeyExistsError) as info:
        store.create(key("a"), pod("a"))
    assert is_exist(info.value) and not is_not_found(info.value)
    assert str(info.value) == (f"StorageError: key exists, Code: 2, Key: {store.path_prefix}pods/default/a, "
                               "ResourceVersion: 0, AdditionalErrorMsg: <nil>")


def test_create_with_resource_version_is_refused(store) -> None:
    with pytest.raises(ResourceVersionSetOnCreateError, match="resourceVersion should not be set on objects to be created"):
        store.create(key("a"), pod("a", resource_version="12"))


def test_create_clears_self_link_without_touching_the_callers_object(store) -> None:
    p = pod("a", self_link="/api/v1/namespaces/default/pods/a")
    out = store.create(key("a"), p)
    assert out.metadata.self_link in (None, "")
    assert p.metadata.self_link == "/api/v1/namespaces/default/pods/a"


def test_get_missing(store) -> None:
    with pytest.raises(KeyNotFoundError) as info:
        store.get(key("nope"))
    assert is_not_found(info.value) and info.value.key == store.path_prefix + "pods/default/nope"
    assert store.get(key("nope"), ignore_not_found=True) is None


def test_get_not_older_than(store) -> None:
    out = store.create(key("a"), pod("a"))
    assert store.get(key("a"), resource_version=out.metadata.resource_version) == out
    with pytest.raises(TooLargeResourceVersionError, match=r"^Too large resource version: \d+, current: \d+$"):
        store.get(key("a"), resource_version=str(store.current_revision() + 100))


def test_bad_keys(store) -> None:
    for bad in ("", "/", "../x", "/pods/../secrets", "/pods/./a"):
        with pytest.raises(BadRequestError):
            store.get(bad)


def test_json_codec_and_prefix_forms(backend, tmp_path, endpoints) -> None:
    s = make_store(backend, tmp_path, endpoints, media_type="application/json")
    try:
        out = s.create("pods/default/a", pod("a"))  # no leading slash: same key (path.Join)
        raw, _ = s.kv.get((s.path_prefix + "pods/default/a").encode())
        assert raw.value.startswith(b'{"kind":"Pod","apiVersion":"v1"')
        assert s.get("/pods/default/a") == out
    finally:
        s.close()


# ------------------------------------------------------------------ guaranteed_update


def test_guaranteed_update(store) -> None:
    created = store.create(key("a"), pod("a"))
    out = store.guaranteed_update(key("a"), add_label("x", "1"))
    assert out.metadata.labels == {"x": "1"}
    assert int(out.metadata.resource_version) > int(created.metadata.resource_version)
    assert store.get(key("a")) == out


def test_guaranteed_update_unchanged_bytes_writes_nothing(store) -> None:
    created = store.create(key("a"), pod("a"))
    rev = store.current_revision()
    out = store.guaranteed_update(key("a"), lambda cur: cur)
    assert store.current_revision() == rev
    assert out.metadata.resource_version == created.metadata.resource_version


def test_guaranteed_update_missing(store) -> None:
    with pytest.raises(KeyNotFoundError):
        store.guaranteed_update(key("nope"), lambda cur: cur)
    seen = []

    def create(cur):
        seen.append(cur)
        return pod("nope")
    out = store.guaranteed_update(key("nope"), create, ignore_not_found=True)
    assert seen == [None] and out.metadata.name == "nope" and store.get(key("nope")) == out


def test_guaranteed_update_preconditions(store) -> None:
    created = store.create(key("a"), pod("a", uid="uid-A"))
    full = store.path_prefix + "pods/default/a"
    with pytest.raises(InvalidObjectError) as info:
        store.guaranteed_update(key("a"), add_label("x", "1"), preconditions=Preconditions(uid="uid-B"))
    assert str(info.value) == (f"StorageError: invalid object, Code: 4, Key: {full}, ResourceVersion: 0, "
                               "AdditionalErrorMsg: Precondition failed: UID in precondition: uid-B, UID in object meta: uid-A")
    with pytest.raises(InvalidObjectError, match="Precondition failed: ResourceVersion in precondition: 1, "
                       f"ResourceVersion in object meta: {created.metadata.resource_version}$"):
        store.guaranteed_update(key("a"), add_label("x", "1"), preconditions=Preconditions(resource_version="1"))
    out = store.guaranteed_update(key("a"), add_label("x", "1"), preconditions=Preconditions(
        uid="uid-A", resource_version=created.metadata.resource_version))
    assert out.metadata.labels == {"x": "1"}


def test_guaranteed_update_error_from_try_update_propagates(store) -> None:
    store.create(key("a"), pod("a"))
    rev = store.current_revision()

    def refuse(cur):
        raise ValueError("not today")
    with pytest.raises(ValueError, match="not today"):
        store.guaranteed_update(key("a"), refuse)
    assert store.current_revision() == rev


def test_guaranteed_update_retries_with_fresh_state_after_a_lost_race(store) -> None:
    store.create(key("a"), pod("a"))
    calls = []

    def update(cur):
        calls.append(dict(cur.metadata.labels or {}))
        if len(calls) == 1:  # another writer gets in between our read and our write
            store.guaranteed_update(key("a"), add_label("other", "1"))
        cur.metadata.labels = {**(cur.metadata.labels or {}), "mine": "1"}
        return cur
    out = store.guaranteed_update(key("a"), update)
    assert calls == [{}, {"other": "1"}]
    assert out.metadata.labels == {"other": "1", "mine": "1"}


def test_guaranteed_update_with_stale_cached_object(store) -> None:
    stale = store.create(key("a"), pod("a"))
    store.guaranteed_update(key("a"), add_label("v", "2"))
    out = store.guaranteed_update(key("a"), add_label("w", "3"), cached_existing_object=stale)
    assert out.metadata.labels == {"v": "2", "w": "3"}


# ------------------------------------------------------------------ delete


def test_delete(store) -> None:
    store.create(key("a"), pod("a", uid="u"))
    out = store.delete(key("a"))
    assert out.metadata.name == "a"
    assert int(out.metadata.resource_version) == store.current_revision()  # the delete's revision
    assert store.get(key("a"), ignore_not_found=True) is None
    with pytest.raises(KeyNotFoundError):
        store.delete(key("a"))


def test_delete_preconditions(store) -> None:
    created = store.create(key("a"), pod("a", uid="u"))
    with pytest.raises(InvalidObjectError, match="Precondition failed: UID in precondition: v, UID in object meta: u"):
        store.delete(key("a"), preconditions=Preconditions(uid="v"))
    with pytest.raises(InvalidObjectError, match="ResourceVersion in precondition: 999999"):
        store.delete(key("a"), preconditions=Preconditions(resource_version="999999"))
    store.delete(key("a"), preconditions=Preconditions(uid="u", resource_version=created.metadata.resource_version))
    assert store.count("/pods") == 0


def test_delete_with_stale_cached_object_rechecks(store) -> None:
    stale = store.create(key("a"), pod("a", uid="u"))
    store.guaranteed_update(key("a"), add_label("v", "2"))
    out = store.delete(key("a"), cached_existing_object=stale,
                       preconditions=Preconditions(resource_version=None, uid="u"))
    assert out.metadata.labels == {"v": "2"}


# ------------------------------------------------------------------ lists


def fill(store, n: int, ns: str = "default") -> list[v1.Pod]:
    return [store.create(key(f"p{i:03d}", ns), pod(f"p{i:03d}", ns)) for i in range(n)]


def test_get_list_and_count(store) -> None:
    created = fill(store, 5)
    store.create(key("x", "other"), pod("x", "other"))
    out = store.get_list("/pods/default")
    assert type(out).__name__ == "PodList"
    assert [p.metadata.name for p in out.items] == [p.metadata.name for p in created]
    assert [p.metadata.resource_version for p in out.items] == [p.metadata.resource_version for p in created]
    assert out.metadata.resource_version == str(store.current_revision())
    assert out.metadata.continue_ in (None, "") and out.metadata.remaining_item_count is None
    assert store.count("/pods/default") == 5 and store.count("/pods") == 6
    # "/pods/default" must not match "/pods/default-2" (Go appends the "/").
    store.create(key("y", "default-2"), pod("y", "default-2"))
    assert store.count("/pods/default") == 5


def test_get_list_empty_has_items(store) -> None:
    out = store.get_list("/pods/none")
    assert out.items == [] and int(out.metadata.resource_version) == store.current_revision()


def test_get_list_paging_with_go_continue_tokens(store) -> None:
    fill(store, 7)
    rev = store.current_revision()
    names, token, pages = [], "", 0
    while True:
        page = store.get_list("/pods/default", limit=3, continue_token=token)
        pages += 1
        names += [p.metadata.name for p in page.items]
        assert page.metadata.resource_version == str(rev)
        token = page.metadata.continue_ or ""
        if not token:
            assert page.metadata.remaining_item_count is None
            break
        decoded = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        assert decoded == {"v": "meta.k8s.io/v1", "rv": rev, "start": page.items[-1].metadata.name + "\x00"}
        assert page.metadata.remaining_item_count == 7 - len(names)
        # Writes after the first page do not show up: the list stays at its revision.
        store.create(key(f"z{pages}"), pod(f"z{pages}"))
    assert pages == 3 and names == [f"p{i:03d}" for i in range(7)]


def test_continue_token_bytes_as_go_writes_them(store) -> None:
    fill(store, 2)
    page = store.get_list("/pods/default", limit=1)
    rev = page.metadata.resource_version
    body = '{"v":"meta.k8s.io/v1","rv":%s,"start":"p000\\u0000"}' % rev
    assert page.metadata.continue_ == base64.urlsafe_b64encode(body.encode()).decode().rstrip("=")


def test_get_list_bad_continue_and_rv(store) -> None:
    fill(store, 2)
    token = store.get_list("/pods/default", limit=1).metadata.continue_
    with pytest.raises(BadRequestError, match="^specifying resource version is not allowed when using continue$"):
        store.get_list("/pods/default", limit=1, continue_token=token, resource_version="5")
    with pytest.raises(BadRequestError, match="^invalid continue token: continue key is not valid"):
        store.get_list("/pods/default", continue_token="%%%")
    evil = base64.urlsafe_b64encode(b'{"v":"meta.k8s.io/v1","rv":1,"start":"../../secrets/x"}').decode().rstrip("=")
    with pytest.raises(BadRequestError, match="continue key is not valid"):
        store.get_list("/pods/default", continue_token=evil)
    other = base64.urlsafe_b64encode(b'{"v":"v2","rv":1,"start":"a"}').decode().rstrip("=")
    with pytest.raises(BadRequestError, match="server does not recognize this encoded version v2"):
        store.get_list("/pods/default", continue_token=other)
    with pytest.raises(BadRequestError, match="invalid resource version"):
        store.get_list("/pods/default", resource_version="abc")
    with pytest.raises(BadRequestError, match="unknown ResourceVersionMatch value: Newest"):
        store.get_list("/pods/default", resource_version="1", resource_version_match="Newest")


def test_get_list_resource_version_semantics(store) -> None:
    first = fill(store, 3)
    old = first[-1].metadata.resource_version
    store.delete(key("p000"))
    store.guaranteed_update(key("p001"), add_label("new", "1"))
    current = store.current_revision()

    def names(out):
        return [p.metadata.name for p in out.items]
    # "" and "0": the latest.
    assert names(store.get_list("/pods/default")) == ["p001", "p002"]
    assert names(store.get_list("/pods/default", resource_version="0")) == ["p001", "p002"]
    # Exact: the state at that revision, with the objects' own revisions then.
    exact = store.get_list("/pods/default", resource_version=old, resource_version_match="Exact")
    assert names(exact) == ["p000", "p001", "p002"] and exact.metadata.resource_version == old
    assert exact.items[1].metadata.labels is None
    assert [p.metadata.resource_version for p in exact.items] == [p.metadata.resource_version for p in first]
    # Legacy: a non-zero RV with a limit is exact too; without a limit, not older than.
    legacy = store.get_list("/pods/default", resource_version=old, limit=10)
    assert names(legacy) == ["p000", "p001", "p002"]
    latest = store.get_list("/pods/default", resource_version=old)
    assert names(latest) == ["p001", "p002"] and latest.metadata.resource_version == str(current)
    assert names(store.get_list("/pods/default", resource_version=old, resource_version_match="NotOlderThan")) == \
        ["p001", "p002"]
    with pytest.raises(TooLargeResourceVersionError, match=f"Too large resource version: {current + 50}, current: {current}"):
        store.get_list("/pods/default", resource_version=str(current + 50))
    with pytest.raises(TooLargeResourceVersionError):
        store.get_list("/pods/default", resource_version=str(current + 50), resource_version_match="Exact")


def test_list_after_compaction(store) -> None:
    first = fill(store, 3)
    token = store.get_list("/pods/default", limit=1).metadata.continue_
    store.guaranteed_update(key("p000"), add_label("a", "b"))
    store.compact(store.current_revision())
    with pytest.raises(ResourceExpiredError, match=r"^The resourceVersion for the provided list is too old\.$"):
        store.get_list("/pods/default", resource_version=first[0].metadata.resource_version,
                       resource_version_match="Exact")
    with pytest.raises(ResourceExpiredError, match="continue parameter is too old") as info:
        store.get_list("/pods/default", limit=1, continue_token=token)
    # Go hands out a token that continues at the latest revision (rv -1).
    newer = info.value.continue_token
    decoded = json.loads(base64.urlsafe_b64decode(newer + "=" * (-len(newer) % 4)))
    assert decoded["rv"] == -1
    rest = store.get_list("/pods/default", continue_token=newer)
    assert [p.metadata.name for p in rest.items] == ["p001", "p002"]
    # The compacted revision itself is still readable.
    assert len(store.get_list("/pods/default", resource_version=str(store.current_revision()),
                              resource_version_match="Exact").items) == 3


def test_list_predicate(store) -> None:
    fill(store, 6)
    for i in (1, 4, 5):
        store.guaranteed_update(key(f"p{i:03d}"), add_label("pick", "yes"))

    def picked(p):
        return (p.metadata.labels or {}).get("pick") == "yes"
    page = store.get_list("/pods/default", limit=2, predicate=picked)
    assert [p.metadata.name for p in page.items] == ["p001", "p004"]
    assert page.metadata.remaining_item_count is None and page.metadata.continue_
    rest = store.get_list("/pods/default", limit=2, predicate=picked, continue_token=page.metadata.continue_)
    assert [p.metadata.name for p in rest.items] == ["p005"]


# ------------------------------------------------------------------ watch


def collect(w, n: int, timeout: float = 5.0):
    out = []
    for _ in range(n):
        e = w.next(timeout)
        assert e is not None, f"only {len(out)} of {n} events arrived: {out}"
        out.append((e.type, e.object.metadata.name, e.object.metadata.resource_version))
    return out


def test_watch_from_revision_in_order(store) -> None:
    start = store.current_revision()
    a = store.create(key("a"), pod("a"))
    a2 = store.guaranteed_update(key("a"), add_label("x", "1"))
    b = store.create(key("b"), pod("b"))
    d = store.delete(key("a"))
    with store.watch("/pods", resource_version=str(start), recursive=True) as w:
        events = collect(w, 4)
        assert w.next(0.2) is None
    assert events == [("ADDED", "a", a.metadata.resource_version),
                      ("MODIFIED", "a", a2.metadata.resource_version),
                      ("ADDED", "b", b.metadata.resource_version),
                      ("DELETED", "a", d.metadata.resource_version)]


def test_watch_deleted_carries_last_state(store) -> None:
    store.create(key("a"), pod("a"))
    store.guaranteed_update(key("a"), add_label("last", "state"))
    with store.watch(key("a"), resource_version=str(store.current_revision())) as w:
        store.delete(key("a"))
        event = w.next(5)
    typ, obj = event  # unpacks as (type, object)
    assert typ == "DELETED" and obj.metadata.labels == {"last": "state"}


def test_watch_single_key_and_live_events(store) -> None:
    store.create(key("a"), pod("a"))
    with store.watch(key("a"), resource_version=str(store.current_revision())) as w:
        store.create(key("b"), pod("b"))  # another key: not seen
        store.guaranteed_update(key("a"), add_label("x", "1"))
        assert collect(w, 1)[0][:2] == ("MODIFIED", "a")
        assert w.next(0.3) is None


def test_watch_zero_sends_initial_state_first(store) -> None:
    a = store.create(key("a"), pod("a"))
    b = store.create(key("b"), pod("b"))
    with store.watch("/pods/default", resource_version="0", recursive=True) as w:
        initial = collect(w, 2)
        c = store.create(key("c"), pod("c"))
        assert collect(w, 1) == [("ADDED", "c", c.metadata.resource_version)]
    assert initial == [("ADDED", "a", a.metadata.resource_version), ("ADDED", "b", b.metadata.resource_version)]


def test_watch_too_old_after_compaction(store) -> None:
    start = store.current_revision()
    fill(store, 3)
    store.compact(store.current_revision())
    with pytest.raises(ResourceExpiredError, match=rf"^too old resource version: {start} \(\d+\)$"):
        store.watch("/pods", resource_version=str(start), recursive=True)


def test_watch_iterates_and_stops(store) -> None:
    start = store.current_revision()
    fill(store, 3)
    w = store.watch("/pods", resource_version=str(start), recursive=True)
    seen = []
    for event in w:
        seen.append(event.object.metadata.name)
        if len(seen) == 3:
            w.stop()
    assert seen == ["p000", "p001", "p002"]
    assert w.next(0.1) is None


def test_watch_from_concurrent_writer(store) -> None:
    start = store.current_revision()
    w = store.watch("/pods", resource_version=str(start), recursive=True)
    done = []

    def writer():
        for i in range(20):
            done.append(store.create(key(f"w{i}"), pod(f"w{i}")).metadata.resource_version)
    t = threading.Thread(target=writer)
    t.start()
    events = collect(w, 20)
    t.join()
    w.stop()
    assert [e[2] for e in events] == done


# ------------------------------------------------------------------ transformer


class TaggingTransformer:
    """Prefixes values with the key, and checks it on the way back (authenticated data)."""

    def transform_to_storage(self, data: bytes, key: bytes) -> bytes:
        return b"tag:" + key + b":" + data

    def transform_from_storage(self, data: bytes, key: bytes):
        tag = b"tag:" + key + b":"
        if not data.startswith(tag):
            raise DecodeError(f"value not written for key {key!r}")
        return data[len(tag):], False


def test_transformer_gets_the_full_key(backend, tmp_path, endpoints) -> None:
    s = make_store(backend, tmp_path, endpoints, transformer=TaggingTransformer())
    try:
        s.create(key("a"), pod("a"))
        full = (s.path_prefix + "pods/default/a").encode()
        raw, _ = s.kv.get(full)
        assert raw.value.startswith(b"tag:" + full + b":k8s\x00")
        assert s.get(key("a")).metadata.name == "a"
        # The same bytes under another key do not read back.
        s.kv.put_raw(full.replace(b"/a", b"/copy"), raw.value)
        with pytest.raises(CorruptObjectError, match="pods/default/copy"):
            s.get(key("copy"))
    finally:
        s.close()


def test_aesgcm_transformer_round_trip_and_stale_rewrite(backend, tmp_path, endpoints) -> None:
    from kcodec.storage.value import AESGCMTransformer, PrefixTransformers

    old = AESGCMTransformer({"k1": b"1" * 32})
    s = make_store(backend, tmp_path, endpoints, transformer=old)
    try:
        created = s.create("/secrets/default/s", v1.Secret(metadata=metav1.ObjectMeta(name="s", namespace="default"),
                                                           data={"password": b"hunter2"}))
        full = (s.path_prefix + "secrets/default/s").encode()
        raw, _ = s.kv.get(full)
        assert raw.value.startswith(b"k8s:enc:aesgcm:v1:k1:") and b"hunter2" not in raw.value
        # Rotate: k2 writes, k1 still reads. A no-op update still rewrites the stale value.
        s.transformer = PrefixTransformers(AESGCMTransformer({"k2": b"2" * 32, "k1": b"1" * 32}).prefix_transformer())
        out = s.guaranteed_update("/secrets/default/s", lambda cur: cur)
        assert int(out.metadata.resource_version) > int(created.metadata.resource_version)
        raw, _ = s.kv.get(full)
        assert raw.value.startswith(b"k8s:enc:aesgcm:v1:k2:")
        assert s.get("/secrets/default/s").data == {"password": b"hunter2"}
        # Now nothing is stale: unchanged bytes write nothing.
        rev = s.current_revision()
        s.guaranteed_update("/secrets/default/s", lambda cur: cur)
        assert s.current_revision() == rev
        # A tampered ciphertext never yields plaintext.
        raw, _ = s.kv.get(full)
        tampered = raw.value[:-1] + bytes([raw.value[-1] ^ 1])
        s.kv.put_raw(full, tampered)
        with pytest.raises(CorruptObjectError, match="secrets/default/s"):
            s.get("/secrets/default/s")
        s.kv.put_raw(full, raw.value)
        assert s.get("/secrets/default/s").data == {"password": b"hunter2"}
        # Nor does a wrong key.
        s.transformer = AESGCMTransformer({"k2": b"3" * 32})
        with pytest.raises(CorruptObjectError, match="secrets/default/s") as info:
            s.get("/secrets/default/s")
        assert isinstance(info.value, DecodeError) and "hunter2" not in str(info.value)
    finally:
        s.close()


# ------------------------------------------------------------------ hostile values


HOSTILE = {
    "garbage": b"\x00\xff\xfe garbage \x13\x37",
    "truncated-envelope": b"k8s\x00\n\x04\n\x02v1\x12\x03Pod\x1a",
    "huge-length": b"k8s\x00\x1a\xff\xff\xff\xff\x0f" + b"x" * 8,
    "bad-json": b'{"kind":"Pod","apiVersion":"v1","metadata":',
    "empty": b"",
    "deep-json": b'{"kind":"Pod","apiVersion":"v1","metadata":{"labels":' + b"[" * 20000 + b"]" * 20000 + b"}}",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_values_are_decode_errors_naming_the_key(store, name) -> None:
    start = store.current_revision()
    store.create(key("good"), pod("good"))
    full = store.path_prefix + f"pods/default/{name}"
    store.kv.put_raw(full.encode(), HOSTILE[name])
    with pytest.raises(CorruptObjectError) as info:
        store.get(key(name))
    err = info.value
    assert isinstance(err, DecodeError) and isinstance(err, KCodecError)
    assert err.key == full and f"Key: {full}," in str(err)
    with pytest.raises(CorruptObjectError, match=full):
        store.get_list("/pods/default")
    with pytest.raises(CorruptObjectError, match=full):
        store.guaranteed_update(key(name), lambda cur: cur)
    with store.watch("/pods", resource_version=str(start), recursive=True) as w:
        assert w.next(5).object.metadata.name == "good"
        with pytest.raises(CorruptObjectError, match=full):
            w.next(5)
    assert store.get(key("good")).metadata.name == "good"


def test_is_conflict_predicate() -> None:
    from kcodec.storage.errors import ConflictError

    assert is_conflict(ConflictError("/k", 3)) and not is_conflict(KeyExistsError("/k"))
    assert str(ConflictError("/k", 3)) == ("StorageError: resource version conflicts, Code: 3, Key: /k, "
                                           "ResourceVersion: 3, AdditionalErrorMsg: <nil>")


def test_backends_keep_the_storage_interface_contract(store) -> None:
    from kcodec.runtime.interfaces import WatchInterface
    from kcodec.storage.interfaces import StorageInterface

    assert isinstance(store, StorageInterface)
    with store.watch("/pods", resource_version=str(store.current_revision()), recursive=True) as w:
        assert isinstance(w, WatchInterface)


def test_storage_errors_pickle_and_try_update_returning_none(store) -> None:
    import pickle

    from kcodec.storage.errors import ConflictError

    errors = [KeyExistsError("/k", 0), ConflictError("/k", 4, "detail"), CorruptObjectError("/k", 2, "bad"),
              TooLargeResourceVersionError(9, 3), ResourceExpiredError("too old", continue_token="t", compact_revision=5),
              BadRequestError("invalid"), ResourceVersionSetOnCreateError()]
    for err in errors:
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
    assert pickle.loads(pickle.dumps(errors[4])).continue_token == "t"
    store.create(key("a"), pod("a"))
    with pytest.raises(TypeError, match="returned None"):
        store.guaranteed_update(key("a"), lambda cur: None)


def test_filtered_watch_turns_transitions_into_added_and_deleted(store) -> None:
    def web(p):
        return (p.metadata.labels or {}).get("app") == "web"

    def relabel(app):
        def update(cur):
            cur.metadata.labels = {"app": app}
            return cur
        return update
    store.create(key("old"), pod("old", labels={"app": "web"}))
    start = store.current_revision()
    store.create(key("a"), pod("a", labels={"app": "web"}))  # ADDED
    store.create(key("b"), pod("b", labels={"app": "db"}))  # filtered out
    store.guaranteed_update(key("a"), add_label("tier", "1"))  # MODIFIED (still web)
    store.guaranteed_update(key("a"), relabel("db"))  # DELETED: left the selection
    store.guaranteed_update(key("b"), relabel("web"))  # ADDED: entered it
    store.delete(key("b"))  # DELETED
    store.delete(key("a"))  # not selected when deleted: nothing
    with store.watch("/pods/default", resource_version=str(start), recursive=True, predicate=web) as w:
        got = [(e.type, e.object.metadata.name, (e.object.metadata.labels or {}).get("app")) for e in
               iter(lambda: w.next(0.5), None)]
    assert got == [("ADDED", "a", "web"), ("MODIFIED", "a", "web"), ("DELETED", "a", "web"),
                   ("ADDED", "b", "web"), ("DELETED", "b", "web")]
    with store.watch("/pods/default", resource_version="0", recursive=True, predicate=web) as w:
        assert [e.object.metadata.name for e in iter(lambda: w.next(0.3), None)] == ["old"]


def test_compaction_errors(store) -> None:
    fill(store, 2)
    rev = store.current_revision()
    store.compact(rev)
    with pytest.raises(ResourceExpiredError, match="has been compacted"):
        store.compact(rev - 1)
    with pytest.raises(TooLargeResourceVersionError, match=f"Too large resource version: {rev + 10}, current: {rev}"):
        store.compact(rev + 10)
