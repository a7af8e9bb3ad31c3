"""The SQLite log's watch polls cheaply when idle: it queries the log only after a commit
(SQLite's PRAGMA data_version for other connections and processes, the KV's own write
counter for its own), and still sees every write at once, from any connection, with the
progress a watch cache reads (the revision each poll read up to)."""
from __future__ import annotations

import subprocess
import sys
import time

from kcodec.storage.sqlite import SQLiteKV


def _queries(kv: SQLiteKV) -> list[str]:
    seen: list[str] = []
    kv._conn().set_trace_callback(lambda sql: seen.append(sql) if "FROM kcodec_log" in sql else None)
    return seen


def test_idle_watch_does_not_query_the_log(tmp_path) -> None:
    kv = SQLiteKV(tmp_path / "w.db", poll_interval=0.01)
    try:
        w = kv.watch(b"/r/", b"/r0", 1)
        assert w.next_batch(0.05) == []  # the first poll reads the log
        progress = w.progress_revision
        assert progress == kv.current_revision()
        queries = _queries(kv)
        assert w.next_batch(0.2) == [] and queries == []  # ~20 polls, no query
        # Another connection (here another KV on the file, as another process would be).
        other = SQLiteKV(tmp_path / "w.db")
        try:
            rev = other.put_raw(b"/r/a", b"1")
        finally:
            other.close()
        events = w.next_batch(2)
        assert [(e.type, e.kv.key, e.kv.mod_revision) for e in events] == [("PUT", b"/r/a", rev)]
        assert w.progress_revision == rev and len(queries) == 1
        # This KV's own writes (its connection's commits do not move data_version).
        rev = kv.put_raw(b"/r/b", b"2")
        assert [e.kv.mod_revision for e in w.next_batch(2)] == [rev]
        # A write outside the watched range moves the progress, not the events.
        rev = kv.put_raw(b"/x", b"3")
        deadline = time.monotonic() + 2
        while w.progress_revision < rev:
            assert w.next_batch(0.05) == [] and time.monotonic() < deadline
        w.close()
    finally:
        kv.close()


def test_a_write_from_another_process_is_seen(tmp_path) -> None:
    kv = SQLiteKV(tmp_path / "p.db", poll_interval=0.01)
    try:
        w = kv.watch(b"/r/", b"/r0", 1)
        assert w.next_batch(0.05) == []
        code = ("import sys; from kcodec.storage.sqlite import SQLiteKV; "
                f"k = SQLiteKV({str(tmp_path / 'p.db')!r}); print(k.put_raw(b'/r/z', b'9')); k.close()")
        rev = int(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                                 cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2])).stdout)
        events = w.next_batch(5)
        assert [(e.kv.key, e.kv.mod_revision) for e in events] == [(b"/r/z", rev)]
        w.close()
    finally:
        kv.close()


def test_a_write_wakes_the_watches_of_its_key_only(tmp_path) -> None:
    """A commit wakes at once the watches whose range holds the written key (a server has a
    watch per resource: waking them all at each write was most of a create's time); the
    others find it at their next poll. A compaction, whose keys are not known, wakes all."""
    kv = SQLiteKV(tmp_path / "t.db", poll_interval=30.0)
    try:
        watches = {
            "range": kv.watch(b"/r/", b"/r0", 1),
            "key": kv.watch(b"/r/a", None, 1),
            "everything": kv.watch(b"/", b"\x00", 1),
            "other": kv.watch(b"/x/", b"/x0", 1),
        }
        woken: list[str] = []
        for name, w in watches.items():
            assert w.next_batch(0.01) == []
            real = w.wake
            w.wake = lambda name=name, real=real: (woken.append(name), real())  # type: ignore[method-assign]
        rev = kv.put_raw(b"/r/a", b"1")
        assert sorted(woken) == ["everything", "key", "range"]
        t0 = time.monotonic()
        assert [e.kv.mod_revision for e in watches["range"].next_batch(10)] == [rev]
        assert time.monotonic() - t0 < 5  # woken, not the 30 s poll
        woken.clear()
        kv.optimistic_delete(b"/r/a", rev)
        assert sorted(woken) == ["everything", "key", "range"]
        woken.clear()
        kv.put_raw(b"/x/b", b"2")
        assert sorted(woken) == ["everything", "other"]
        woken.clear()
        kv.compact(kv.current_revision())
        assert sorted(woken) == ["everything", "key", "other", "range"]
        woken.clear()
        watches["other"].close()
        kv.put_raw(b"/x/c", b"3")
        assert woken == ["everything"]
        for w in watches.values():
            w.close()
    finally:
        kv.close()


def test_idle_watches_share_one_data_version_read(tmp_path) -> None:
    """30 idle watches (a server holds about 60) read SQLite's data_version through one
    connection at most every half poll interval between them, not each at every poll, and
    each still sees a commit of another connection."""
    import threading

    kv = SQLiteKV(tmp_path / "s.db", poll_interval=0.01)
    try:
        watches = [kv.watch(b"/r/", b"/r0", 1) for _ in range(30)]
        assert all(w.next_batch(0.02) == [] for w in watches)
        pragmas: list[str] = []
        assert kv._dv_conn is not None
        kv._dv_conn.set_trace_callback(lambda sql: pragmas.append(sql) if "data_version" in sql else None)
        threads = [threading.Thread(target=w.next_batch, args=(0.3,)) for w in watches]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        # 30 watches polling every 10 ms for 0.3 s asked about 900 times on their own;
        # shared, one read per 5 ms at most (and fewer when the machine is busy)
        assert 0 < len(pragmas) <= 0.3 / 0.005 + 10
        other = SQLiteKV(tmp_path / "s.db")
        try:
            rev = other.put_raw(b"/r/a", b"1")
        finally:
            other.close()
        assert all([e.kv.mod_revision for e in w.next_batch(2)] == [rev] for w in watches)
        for w in watches:
            w.close()
    finally:
        kv.close()
