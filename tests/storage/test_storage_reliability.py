"""Reliability of the storage layer under concurrency and failures, on both backends.

- 8 writers x 200 guaranteed_updates of one counter end at 1600, with exactly 1600 writes
  (no lost update, no double write) and a watch that sees 1..1600 once each, in order;
  the same with 8 processes sharing one SQLite file;
- a watch from revision R sees every later change exactly once, in order, across a
  reconnect (a new watch from the last delivered revision), and on etcd across the loss of
  the member it was streaming from;
- a 3-member etcd cluster loses its leader mid-run (SIGKILL): writes resume through the
  others and every acknowledged write is there afterwards;
- a SQLite writer killed with SIGKILL inside a transaction, or at a random point of a busy
  run, leaves a consistent store that the next writer uses at once.

Each test is bounded to a few seconds (the machine has 2 shared cores).
"""
from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from _etcd import EtcdCluster, etcd_endpoints, require_etcd  # noqa: F401
from conftest import _MODES
from test_storage_store import make_store

from kcodec.api.core import v1
from kcodec.api.meta import v1 as metav1
from kcodec.storage.errors import StorageTimeoutError, UnreachableError

ROOT = Path(__file__).resolve().parents[2]
WRITERS, UPDATES = 8, 200


@pytest.fixture(autouse=True)
def _once(kcodec_mode):
    # These tests exercise the storage layer, not the codec (the conformance suite runs
    # in both modes): once is enough, in the faster mode there is.
    if kcodec_mode != _MODES[-1]:
        pytest.skip(f"storage reliability does not depend on the mode; run in {_MODES[-1]} mode")


@pytest.fixture(params=["sqlite", "etcd"])
def backend(request) -> str:
    return request.param


@pytest.fixture
def endpoints(backend, request):
    return request.getfixturevalue("etcd_endpoints") if backend == "etcd" else None


def counter(n: int = 0) -> v1.ConfigMap:
    return v1.ConfigMap(metadata=metav1.ObjectMeta(name="counter", namespace="default"), data={"n": str(n)})


def increment(cur: v1.ConfigMap) -> v1.ConfigMap:
    cur.data = {"n": str(int(cur.data["n"]) + 1)}
    return cur


KEY = "/configmaps/default/counter"


def test_concurrent_guaranteed_updates_lose_nothing(backend, tmp_path, endpoints) -> None:
    store = make_store(backend, tmp_path, endpoints)
    try:
        start = int(store.create(KEY, counter()).metadata.resource_version)
        watch = store.watch(KEY, resource_version=str(start))
        errors: list[BaseException] = []

        def writer() -> None:
            try:
                for _ in range(UPDATES):
                    store.guaranteed_update(KEY, increment)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)
        threads = [threading.Thread(target=writer) for _ in range(WRITERS)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        elapsed = time.perf_counter() - t0
        assert not errors, errors
        final = store.get(KEY)
        assert final.data["n"] == str(WRITERS * UPDATES)
        # Exactly one write per increment: nothing lost, nothing applied twice.
        assert int(final.metadata.resource_version) - start == WRITERS * UPDATES
        seen = []
        while len(seen) < WRITERS * UPDATES:
            event = watch.next(10)
            assert event is not None, f"watch stalled after {len(seen)} events"
            assert event.type == "MODIFIED"
            seen.append(int(event.object.data["n"]))
        watch.stop()
        assert seen == list(range(1, WRITERS * UPDATES + 1))
        print(f"\n{backend}: {WRITERS}x{UPDATES} guaranteed_updates in {elapsed:.2f}s "
              f"({WRITERS * UPDATES / elapsed:.0f}/s)")
    finally:
        store.close()


def _process_writer(db: str, updates: int, go) -> None:
    # A forked child: kcodec is already imported, so the 8 writers start at once.
    from kcodec.storage.sqlite import SQLiteStore
    from test_storage_store import codec

    store = SQLiteStore(db, codec())
    go.wait()
    for _ in range(updates):
        store.guaranteed_update(KEY, increment)
    store.close()


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), KCODEC_PURE="1")


def test_sqlite_processes_share_one_file_without_lost_updates(tmp_path) -> None:
    db = tmp_path / "store.db"  # what make_store opens
    store = make_store("sqlite", tmp_path, None)
    start = int(store.create(KEY, counter()).metadata.resource_version)
    ctx = multiprocessing.get_context("fork")
    go = ctx.Event()
    procs = [ctx.Process(target=_process_writer, args=(str(db), UPDATES, go)) for _ in range(WRITERS)]
    try:
        for p in procs:
            p.start()
        t0 = time.perf_counter()
        go.set()
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        elapsed = time.perf_counter() - t0
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
                p.join()
    final = store.get(KEY)
    assert final.data["n"] == str(WRITERS * UPDATES)
    assert int(final.metadata.resource_version) - start == WRITERS * UPDATES
    print(f"\nsqlite: {WRITERS} processes x {UPDATES} guaranteed_updates in {elapsed:.2f}s")
    store.close()


def test_watch_sees_every_change_once_in_order_across_reconnects(backend, tmp_path, endpoints) -> None:
    store = make_store(backend, tmp_path, endpoints)
    try:
        start = store.current_revision()
        expected: list[tuple[str, str, str]] = []

        def writer() -> None:
            for i in range(150):
                name = f"p{i % 10}"
                key = f"/pods/default/{name}"
                pod = v1.Pod(metadata=metav1.ObjectMeta(name=name, namespace="default", labels={"i": str(i)}))
                if store.get(key, ignore_not_found=True) is None:
                    out, typ = store.create(key, pod), "ADDED"
                elif i % 7 == 0:
                    out, typ = store.delete(key), "DELETED"
                else:
                    out, typ = store.guaranteed_update(key, lambda cur, i=i: (setattr(cur.metadata, "labels", {"i": str(i)}), cur)[1]), "MODIFIED"
                expected.append((typ, name, out.metadata.resource_version))
        t = threading.Thread(target=writer)
        t.start()
        seen: list[tuple[str, str, str]] = []
        rv = str(start)
        reconnects = 0
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            # Reconnect every 20 events: a new watch from the last revision delivered.
            with store.watch("/pods/default", resource_version=rv, recursive=True) as w:
                for _ in range(20):
                    event = w.next(1.0)
                    if event is None:
                        break
                    seen.append((event.type, event.object.metadata.name, event.object.metadata.resource_version))
                rv = str(w.resource_version)
            reconnects += 1
            if not t.is_alive() and len(seen) >= len(expected):
                break
        t.join()
        assert reconnects > 5
        assert seen == expected
    finally:
        store.close()


# ------------------------------------------------------------------ etcd cluster


def test_etcd_cluster_survives_leader_loss(tmp_path) -> None:
    require_etcd()
    from kcodec.storage.etcd3 import Etcd3Store

    from test_storage_store import codec

    cluster = EtcdCluster(3, election_timeout_ms=500)
    try:
        leader = cluster.leader_index()
        # Put the leader first, so the store and the watch stream talk to it when it dies.
        order = [cluster.endpoints[leader]] + [e for i, e in enumerate(cluster.endpoints) if i != leader]
        store = Etcd3Store(order, codec(), timeout=10.0, request_timeout=1.0)
        start = store.current_revision()
        watch = store.watch("/configmaps", resource_version=str(start), recursive=True)
        acked: dict[str, str] = {}
        unknown: list[str] = []
        acked_after_kill: list[str] = []
        killed = threading.Event()
        stop = threading.Event()
        errors: list[BaseException] = []

        def writer(w: int) -> None:
            i = 0
            while not stop.is_set():
                name = f"w{w}-{i}"
                i += 1
                try:
                    out = store.create(f"/configmaps/default/{name}",
                                       v1.ConfigMap(metadata=metav1.ObjectMeta(name=name, namespace="default")))
                except (StorageTimeoutError, UnreachableError):
                    unknown.append(name)  # not acknowledged: may or may not be there
                    continue
                except BaseException as exc:  # pragma: no cover - reported below
                    errors.append(exc)
                    return
                acked[name] = out.metadata.resource_version
                if killed.is_set():
                    acked_after_kill.append(name)
        threads = [threading.Thread(target=writer, args=(w,)) for w in range(2)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        before = len(acked)
        t_kill = time.monotonic()
        cluster.kill(leader)
        killed.set()
        while not acked_after_kill and time.monotonic() - t_kill < 15:
            time.sleep(0.05)
        resumed = time.monotonic() - t_kill
        time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(30)
        assert not errors, errors
        assert before > 0 and acked_after_kill, "writes did not resume through the remaining members"
        # Every acknowledged write is there, at the revision it was acknowledged with.
        listed = {c.metadata.name: c.metadata.resource_version for c in store.get_list("/configmaps/default").items}
        missing = [n for n in acked if n not in listed]
        assert not missing, missing
        assert all(listed[n] == rv for n, rv in acked.items())
        assert set(listed) - set(acked) <= set(unknown)
        # The watch moved to a surviving member and saw every write once, in order.
        seen = []
        while len(seen) < len(listed):
            event = watch.next(10)
            assert event is not None, f"watch stalled after {len(seen)} of {len(listed)} events"
            seen.append((event.object.metadata.name, event.object.metadata.resource_version))
        watch.stop()
        assert seen == sorted(listed.items(), key=lambda kv: int(kv[1]))
        assert watch._raw.reconnects >= 1  # the stream was on the leader, and resumed elsewhere
        print(f"\netcd cluster: {len(acked)} acknowledged creates ({len(acked_after_kill)} after the leader's "
              f"SIGKILL, first one {resumed:.2f}s after it), {len(unknown)} outcome unknown, none lost")
        store.close()
    finally:
        cluster.stop()


# ------------------------------------------------------------------ SQLite crash safety


_KILLED_MID_TRANSACTION = textwrap.dedent("""
    import sqlite3, sys, time
    from kcodec.storage.sqlite import SQLiteKV
    kv = SQLiteKV(sys.argv[1])  # creates the schema
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    rev = conn.execute("SELECT value FROM kcodec_meta WHERE name='revision'").fetchone()[0] + 1
    conn.execute("INSERT INTO kcodec_log (rev, key, deleted, create_rev, version, value) VALUES (?, ?, 0, ?, 1, ?)",
                 (rev, b"/registry/half", rev, b"half-written"))
    conn.execute("INSERT INTO kcodec_kv (key, create_rev, mod_rev, version, value) VALUES (?, ?, ?, 1, ?)",
                 (b"/registry/half", rev, rev, b"half-written"))
    sys.stdout.write("in-transaction\\n"); sys.stdout.flush()
    time.sleep(60)
""")

def _busy_writer(db: str, round_: int, fd: int) -> None:
    # A forked child that writes as fast as it can and acknowledges each write on ``fd``
    # only after the store returned it.
    from kcodec.storage.sqlite import SQLiteStore
    from test_storage_store import codec

    store = SQLiteStore(db, codec())
    i = 0
    while True:
        out = store.guaranteed_update(KEY, increment)
        os.write(fd, (out.data["n"] + "\n").encode())
        name = f"c{round_}-{i}"
        store.create(f"/configmaps/default/{name}", v1.ConfigMap(metadata=metav1.ObjectMeta(name=name)))
        os.write(fd, (name + "\n").encode())
        i += 1


def _check_consistent(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rev = conn.execute("SELECT value FROM kcodec_meta WHERE name='revision'").fetchone()[0]
        assert conn.execute("SELECT COALESCE(MAX(rev), 1) FROM kcodec_log").fetchone()[0] == rev
        # The latest-value table is exactly what the log says is live.
        from_log = conn.execute(
            "SELECT key, rev, value FROM (SELECT key, MAX(rev) AS rev, deleted, value FROM kcodec_log GROUP BY key) "
            "WHERE deleted = 0 ORDER BY key").fetchall()
        assert conn.execute("SELECT key, mod_rev, value FROM kcodec_kv ORDER BY key").fetchall() == from_log
    finally:
        conn.close()


def test_sqlite_sigkill_inside_a_transaction_leaves_nothing_behind(tmp_path) -> None:
    db = tmp_path / "store.db"  # what make_store opens
    store = make_store("sqlite", tmp_path, None)
    store.create(KEY, counter(5))
    rev = store.current_revision()
    with subprocess.Popen([sys.executable, "-c", _KILLED_MID_TRANSACTION, str(db)], env=_env(),
                          stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout.readline() == "in-transaction\n"
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    _check_consistent(db)
    assert store.current_revision() == rev
    assert store.get("/half", ignore_not_found=True) is None
    # The dead writer's lock is gone: the next write goes through at once.
    t0 = time.perf_counter()
    assert store.guaranteed_update(KEY, increment).data["n"] == "6"
    assert time.perf_counter() - t0 < 2
    store.close()


def test_sqlite_sigkill_at_random_points_of_a_busy_writer(tmp_path) -> None:
    db = tmp_path / "store.db"  # what make_store opens
    store = make_store("sqlite", tmp_path, None)
    store.create(KEY, counter(0))
    for round_, delay in enumerate((0.2, 0.45, 0.7)):
        read_fd, write_fd = os.pipe()
        proc = multiprocessing.get_context("fork").Process(target=_busy_writer, args=(str(db), round_, write_fd))
        proc.start()
        os.close(write_fd)
        acked: list[str] = []
        with os.fdopen(read_fd) as pipe:
            reader = threading.Thread(target=lambda: acked.extend(line.strip() for line in pipe))
            reader.start()
            while not acked:  # started writing
                time.sleep(0.01)
                assert proc.is_alive()
            time.sleep(delay)
            os.kill(proc.pid, signal.SIGKILL)
            proc.join(10)
            reader.join(10)
        _check_consistent(db)
        numbers = [int(a) for a in acked if a.isdigit()]
        made = [a for a in acked if a.startswith("c")]
        value = int(store.get(KEY).data["n"])
        # Every acknowledged increment is there; at most the one in flight beyond it.
        assert numbers[-1] <= value <= numbers[-1] + 1
        for name in made:
            assert store.get(f"/configmaps/default/{name}").metadata.name == name
        # And the store takes writes again.
        store.guaranteed_update(KEY, increment)
    store.close()


def test_etcd_of_a_killed_test_run_stops_with_it(tmp_path: Path) -> None:
    """The harness's etcd dies with the process that started it, even on SIGKILL (no atexit):
    an interrupted run must not leave etcd members running on the machine."""
    require_etcd()
    if not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) is not installed")
    tests = Path(__file__).resolve().parents[1]
    script = (f"import sys, time; sys.path.insert(0, {str(tests)!r}); from _etcd import EtcdCluster; "
              "c = EtcdCluster(1); print(c.procs[0].pid, c.dir, flush=True); time.sleep(120)")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        pid_text, data_dir = parent.stdout.readline().split()
    finally:
        parent.kill()
        parent.wait(timeout=30)
        parent.stdout.close()
    pid = int(pid_text)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except FileNotFoundError:
                break
            if state == "Z":  # exited; a container's init may not reap it
                break
            time.sleep(0.1)
        else:
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"etcd (pid {pid}) outlived the killed process that started it")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
