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
