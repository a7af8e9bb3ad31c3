"""The embedded default backend: an MVCC revision log in SQLite (standard library).

It keeps what kine keeps for k3s: every write appends a row to a log whose primary key is
the revision, so reads at an older revision, watches from a revision and compaction work
as on etcd. A second table holds the latest value of each key, so current reads and lists
do not scan the log. Several threads and several processes may use one file:

- WAL journal, so readers never block the writer and see one committed snapshot each;
- every write is one ``BEGIN IMMEDIATE`` transaction that reads the key, compares its mod
  revision, appends to the log, updates the latest-value table and bumps the revision, so a
  writer killed at any point (even SIGKILL) leaves either all of it or none of it;
- ``synchronous=NORMAL``: in WAL mode a committed write survives the process dying at once;
  only an operating-system crash can lose the last commits (as kine's default).

A watch polls the log (at most every ``poll_interval`` seconds; writers in the same process
wake it at once when the written key is in its range) and reports rows after its revision
in order.

Leases (etcd's, which kube-apiserver attaches to Events for ``--event-ttl``): a write with a
``ttl`` records the key's expiry time (wall clock, shared by every process on the file) in a
third table. A key whose time has come is deleted like any other delete (a log row at a new
revision, so watchers see DELETED with the last value) before anything can observe it:
every write transaction removes the due keys first; reads of the current state (get, range,
count, current revision) remove them before reading; and running watches check at least every
``poll_interval``, so a watch cache hears of an expiry as it would from etcd's lessor. Each
expired key gets its own revision (etcd revokes a lease's keys in one revision).
"""
from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
import weakref
from typing import Any

from kcodec.storage.kv import (
    CompactedError,
    FutureRevisionError,
    KeyValue,
    RangeResult,
    RawEvent,
    TxnResult,
)
from kcodec.storage.store import Store

__all__ = ["SQLiteStore", "SQLiteKV"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS kcodec_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO kcodec_meta (name, value) VALUES ('revision', 1), ('compact_revision', 0);
CREATE TABLE IF NOT EXISTS kcodec_log (
    rev INTEGER PRIMARY KEY,
    key BLOB NOT NULL,
    deleted INTEGER NOT NULL,
    create_rev INTEGER NOT NULL,
    version INTEGER NOT NULL,
    value BLOB NOT NULL,
    prev_rev INTEGER,
    prev_value BLOB
);
CREATE INDEX IF NOT EXISTS kcodec_log_key_rev ON kcodec_log (key, rev);
CREATE TABLE IF NOT EXISTS kcodec_kv (
    key BLOB PRIMARY KEY,
    create_rev INTEGER NOT NULL,
    mod_rev INTEGER NOT NULL,
    version INTEGER NOT NULL,
    value BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kcodec_lease (key BLOB PRIMARY KEY, expires REAL NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS kcodec_lease_expires ON kcodec_lease (expires);
"""

_DUE = "SELECT 1 FROM kcodec_lease WHERE expires <= ? LIMIT 1"
_DUE_MARK = object()

# Writers in this process wake at once this process's watches on the same file whose range
# holds a written key (every watch when the keys are not known, as for a compaction). The
# others find the commit at their next poll (every poll_interval, as for other processes'
# commits), so a watch misses nothing either way; waking only these matters in a server,
# which holds one watch per resource (about 60): woken all at each write, their polls were
# most of a create's time.
# Weak: a watch dropped without close() must not stay registered.
_watches: dict[str, weakref.WeakSet[_SQLiteWatch]] = {}
_watches_lock = threading.Lock()


def _watches_for(path: str) -> weakref.WeakSet[_SQLiteWatch]:
    with _watches_lock:
        found = _watches.get(path)
        if found is None:
            found = _watches[path] = weakref.WeakSet()
        return found


def _bounds(key: bytes, range_end: bytes) -> tuple[str, tuple[Any, ...]]:
    if range_end == b"\x00":
        return "key >= ?", (key,)
    return "key >= ? AND key < ?", (key, range_end)


class SQLiteKV:
    """The SQLite revision log behind :class:`SQLiteStore` (the :class:`~kcodec.storage.kv.KV` contract)."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0, poll_interval: float = 0.02) -> None:
        self.path = os.fspath(path)
        self.busy_timeout = busy_timeout
        self.poll_interval = poll_interval
        # The watches of this KV share one PRAGMA data_version, read on a connection of its
        # own (versions of different connections do not compare) at most every half poll
        # interval: a server holds about 60 watches, and each asking SQLite on every poll
        # was a fifth of an idle server's CPU. (data_version, monotonic time to read again)
        self._data_version: tuple[int, float] = (0, 0.0)
        self._dv_conn: sqlite3.Connection | None = None
        self._dv_lock = threading.Lock()
        self._local = threading.local()
        self._all_conns: list[sqlite3.Connection] = []
        self._conns_lock = threading.Lock()
        self._closed = False
        # Commits through this KV (PRAGMA data_version does not count a connection's own).
        self.write_seq = 0
        self._next_lease_check = 0.0
        self._watches = _watches_for(os.path.abspath(self.path))
        conn = self._conn()
        # journal_mode is a property of the file: the first opener sets it for everyone.
        self._retry(lambda: conn.execute("PRAGMA journal_mode=WAL"))
        def schema(c: sqlite3.Connection) -> None:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    c.execute(statement)
        self._write_txn(schema, schema=True)

    def __repr__(self) -> str:
        return f"SQLiteKV({self.path!r})"

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self._closed:
                raise sqlite3.ProgrammingError(f"{self.path}: the store is closed")
            # SQLite's own busy handler sleeps in steps of up to 100 ms, which several
            # processes contending for one key turn into long stalls: it only waits a few
            # milliseconds here, and _begin retries with short random pauses instead.
            conn = sqlite3.connect(self.path, timeout=0.005, isolation_level=None, check_same_thread=False)
            self._retry(lambda: conn.execute("PRAGMA synchronous=NORMAL"))
            self._local.conn = conn
            with self._conns_lock:
                self._all_conns.append(conn)
        return conn

    def close(self) -> None:
        self._closed = True
        with self._conns_lock:
            conns, self._all_conns = self._all_conns, []
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:
                pass

    # ------------------------------------------------------------------ transactions

    def _retry(self, fn):
        deadline = time.monotonic() + self.busy_timeout
        pause = 0.0002
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                text = str(exc)
                if "locked" not in text and "busy" not in text or time.monotonic() > deadline:
                    raise
            time.sleep(random.uniform(0, pause))
            pause = min(pause * 2, 0.005)

    def _read_txn(self, fn):
        conn = self._conn()
        self._retry(lambda: conn.execute("BEGIN"))
        try:
            return self._retry(lambda: fn(conn))
        finally:
            conn.execute("COMMIT")

    def _write_txn(self, fn, schema: bool = False, key: bytes | None = None, expire: bool = True):
        """Run ``fn`` in a write transaction, due leases expired first (unless ``expire`` is
        false); then wake the watches of ``key`` (every watch when None or when a lease
        expired, as the expired keys may be anywhere)."""
        conn = self._conn()
        # IMMEDIATE takes the write lock up front: two writers never both read a revision
        # and then race to bump it (a deferred upgrade would fail with SQLITE_BUSY mid-way).
        self._retry(lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            if expire and not schema and self._expire(conn, time.time()):
                # A key whose lease ran out is gone before this write looks at anything.
                key = None
            result = fn(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self._retry(lambda: conn.execute("COMMIT"))
        if not schema:
            with _watches_lock:
                self.write_seq += 1
                woken = [w for w in self._watches if key is None or w.holds(key)]
            for w in woken:
                w.wake()
        return result

    @staticmethod
    def _meta(conn: sqlite3.Connection, name: str) -> int:
        return conn.execute("SELECT value FROM kcodec_meta WHERE name = ?", (name,)).fetchone()[0]

    # ------------------------------------------------------------------ leases

    def _expire(self, conn: sqlite3.Connection, now: float) -> int:
        """Delete (in the caller's write transaction) every key whose lease expired by
        ``now``, each at a revision of its own, as a delete of the key; returns how many."""
        due = conn.execute("SELECT key FROM kcodec_lease WHERE expires <= ? ORDER BY expires, key",
                           (now,)).fetchall()
        if not due:
            return 0
        rev = self._meta(conn, "revision")
        for (key,) in due:
            row = conn.execute("SELECT create_rev, mod_rev, version, value FROM kcodec_kv WHERE key = ?",
                               (key,)).fetchone()
            conn.execute("DELETE FROM kcodec_lease WHERE key = ?", (key,))
            if row is None:
                continue
            rev += 1
            conn.execute("INSERT INTO kcodec_log (rev, key, deleted, create_rev, version, value, prev_rev, prev_value) "
                         "VALUES (?, ?, 1, ?, ?, x'', ?, ?)", (rev, key, row[0], row[2], row[1], row[3]))
            conn.execute("DELETE FROM kcodec_kv WHERE key = ?", (key,))
        conn.execute("UPDATE kcodec_meta SET value = ? WHERE name = 'revision'", (rev,))
        return len(due)

    def expire_due(self) -> int:
        """Delete the keys whose lease has run out (watchers see DELETED); how many.

        Reads and writes do this themselves; a watch calls it while it waits."""
        now = time.time()
        if self._read_txn(lambda c: c.execute(_DUE, (now,)).fetchone()) is None:
            return 0
        return self._write_txn(lambda c: self._expire(c, time.time()), expire=False)

    def lease_expiry(self, key: bytes) -> float | None:
        """When the key's lease runs out (seconds since the epoch), ``None`` without one."""
        row = self._read_txn(lambda c: c.execute("SELECT expires FROM kcodec_lease WHERE key = ?",
                                                 (key,)).fetchone())
        return row[0] if row else None

    def _read_live(self, fn):
        """A read of the current state: due keys are deleted first (a write), then read."""
        now = time.time()

        def read(conn: sqlite3.Connection):
            if conn.execute(_DUE, (now,)).fetchone() is not None:
                return _DUE_MARK
            return fn(conn)
        result = self._read_txn(read)
        if result is _DUE_MARK:
            self._write_txn(lambda c: None)
            result = self._read_txn(fn)
        return result

    # ------------------------------------------------------------------ reads

    def current_revision(self) -> int:
        return self._read_live(lambda c: self._meta(c, "revision"))

    def get(self, key: bytes) -> tuple[KeyValue | None, int]:
        def read(conn: sqlite3.Connection):
            row = conn.execute("SELECT create_rev, mod_rev, version, value FROM kcodec_kv WHERE key = ?",
                               (key,)).fetchone()
            rev = self._meta(conn, "revision")
            return (KeyValue(key, row[3], row[0], row[1], row[2]) if row else None), rev
        return self._read_live(read)

    def range(self, key: bytes, range_end: bytes, *, revision: int = 0, limit: int = 0,
              count_only: bool = False) -> RangeResult:
        where, args = _bounds(key, range_end)

        def read(conn: sqlite3.Connection) -> RangeResult:
            current = self._meta(conn, "revision")
            if revision > current:
                raise FutureRevisionError(revision, current)
            if revision and revision < current:
                compacted = self._meta(conn, "compact_revision")
                if revision < compacted:
                    raise CompactedError(compacted, revision)
                inner = (f"SELECT key, MAX(rev) AS rev, deleted, create_rev, version, value FROM kcodec_log "
                         f"WHERE {where} AND rev <= ? GROUP BY key")
                source = f"(SELECT key, create_rev, rev AS mod_rev, version, value FROM ({inner}) WHERE deleted = 0)"
                qargs = args + (revision,)
            else:
                source = f"(SELECT key, create_rev, mod_rev, version, value FROM kcodec_kv WHERE {where})"
                qargs = args
            count = conn.execute(f"SELECT COUNT(*) FROM {source}", qargs).fetchone()[0]
            if count_only:
                return RangeResult([], count, False, current)
            sql = f"SELECT key, create_rev, mod_rev, version, value FROM {source} ORDER BY key"
            if limit > 0:
                sql += f" LIMIT {int(limit)}"
            kvs = [KeyValue(r[0], r[4], r[1], r[2], r[3]) for r in conn.execute(sql, qargs)]
            return RangeResult(kvs, count, count > len(kvs), current)
        return self._read_live(read)

    # ------------------------------------------------------------------ writes

    def optimistic_put(self, key: bytes, value: bytes, expected_mod_revision: int, ttl: int = 0) -> TxnResult:
        """Put ``value`` at ``key`` when its mod revision is ``expected_mod_revision`` (0:
        absent). ``ttl`` > 0 gives the key a lease of that many seconds; without one a
        lease the key had is dropped (etcd's put without a lease)."""
        def write(conn: sqlite3.Connection) -> TxnResult:
            row = conn.execute("SELECT create_rev, mod_rev, version, value FROM kcodec_kv WHERE key = ?",
                               (key,)).fetchone()
            mod = row[1] if row else 0
            rev = self._meta(conn, "revision")
            if mod != expected_mod_revision:
                return TxnResult(False, rev, KeyValue(key, row[3], row[0], row[1], row[2]) if row else None)
            new = rev + 1
            create_rev = row[0] if row else new
            version = row[2] + 1 if row else 1
            conn.execute("INSERT INTO kcodec_log (rev, key, deleted, create_rev, version, value) "
                         "VALUES (?, ?, 0, ?, ?, ?)", (new, key, create_rev, version, value))
            conn.execute("INSERT OR REPLACE INTO kcodec_kv (key, create_rev, mod_rev, version, value) "
                         "VALUES (?, ?, ?, ?, ?)", (key, create_rev, new, version, value))
            conn.execute("UPDATE kcodec_meta SET value = ? WHERE name = 'revision'", (new,))
            if ttl > 0:
                conn.execute("INSERT OR REPLACE INTO kcodec_lease (key, expires) VALUES (?, ?)",
                             (key, time.time() + ttl))
            else:
                conn.execute("DELETE FROM kcodec_lease WHERE key = ?", (key,))
            return TxnResult(True, new)
        return self._write_txn(write, key=key)

    def optimistic_delete(self, key: bytes, expected_mod_revision: int) -> TxnResult:
        def write(conn: sqlite3.Connection) -> TxnResult:
            row = conn.execute("SELECT create_rev, mod_rev, version, value FROM kcodec_kv WHERE key = ?",
                               (key,)).fetchone()
            rev = self._meta(conn, "revision")
            if row is None or row[1] != expected_mod_revision:
                return TxnResult(False, rev, KeyValue(key, row[3], row[0], row[1], row[2]) if row else None)
            new = rev + 1
            conn.execute("INSERT INTO kcodec_log (rev, key, deleted, create_rev, version, value, prev_rev, prev_value) "
                         "VALUES (?, ?, 1, ?, ?, x'', ?, ?)", (new, key, row[0], row[2], row[1], row[3]))
            conn.execute("DELETE FROM kcodec_kv WHERE key = ?", (key,))
            conn.execute("DELETE FROM kcodec_lease WHERE key = ?", (key,))
            conn.execute("UPDATE kcodec_meta SET value = ? WHERE name = 'revision'", (new,))
            return TxnResult(True, new)
        return self._write_txn(write, key=key)

    def put_raw(self, key: bytes, value: bytes) -> int:
        """Write ``value`` at ``key`` unconditionally (tools and tests that plant raw data)."""
        kv, _ = self.get(key)
        while True:
            result = self.optimistic_put(key, value, kv.mod_revision if kv else 0)
            if result.succeeded:
                return result.revision
            kv = result.current

    def compact(self, revision: int) -> None:
        def write(conn: sqlite3.Connection) -> None:
            current = self._meta(conn, "revision")
            compacted = self._meta(conn, "compact_revision")
            if revision <= compacted:
                raise CompactedError(compacted, revision)
            if revision > current:
                raise FutureRevisionError(revision, current)
            # Keep, for each key, the newest row at or before `revision` unless it is a
            # delete: that is what a read at `revision` (or later) can still need.
            conn.execute(
                "DELETE FROM kcodec_log WHERE rev < :c AND (deleted = 1 OR EXISTS ("
                "SELECT 1 FROM kcodec_log AS n WHERE n.key = kcodec_log.key AND n.rev > kcodec_log.rev "
                "AND n.rev <= :c))", {"c": revision})
            conn.execute("DELETE FROM kcodec_log WHERE rev = :c AND deleted = 1", {"c": revision})
            conn.execute("UPDATE kcodec_meta SET value = ? WHERE name = 'compact_revision'", (revision,))
        self._write_txn(write)

    # ------------------------------------------------------------------ watch

    def _expire_while_watching(self) -> None:
        # Nobody may read while a watch waits: the watches of this KV take turns looking
        # for due leases, at most once per poll interval between them.
        now = time.monotonic()
        if now < self._next_lease_check:
            return
        self._next_lease_check = now + self.poll_interval
        try:
            self.expire_due()
        except sqlite3.Error:
            pass  # busy or closing: the next look (or the next read) expires them

    def _shared_data_version(self) -> int:
        """PRAGMA data_version of the watches' shared connection, read again once half a
        poll interval has passed since any watch of this KV last read it."""
        version, until = self._data_version
        now = time.monotonic()
        if now < until:
            return version
        with self._dv_lock:
            version, until = self._data_version
            if time.monotonic() < until:  # read by another watch while this one waited
                return version
            conn = self._dv_conn
            if conn is None:
                if self._closed:
                    raise sqlite3.ProgrammingError(f"{self.path}: the store is closed")
                conn = sqlite3.connect(self.path, timeout=0.005, isolation_level=None, check_same_thread=False)
                with self._conns_lock:
                    self._all_conns.append(conn)
                self._dv_conn = conn
            version = self._retry(lambda: conn.execute("PRAGMA data_version").fetchone()[0])
            self._data_version = (version, time.monotonic() + self.poll_interval / 2)
        return version

    def compact_revision(self) -> int:
        """The revision the log was last compacted at (0: never)."""
        return self._read_txn(lambda c: self._meta(c, "compact_revision"))

    def watch(self, key: bytes, range_end: bytes | None, start_revision: int) -> _SQLiteWatch:
        w = _SQLiteWatch(self, key, range_end, start_revision)
        try:
            w.check_compacted()
        except BaseException:
            w.close()
            raise
        return w


class _SQLiteWatch:
    """Polls the log for rows at or after ``position`` that match the watched key(s)."""

    BATCH = 1000

    def __init__(self, kv: SQLiteKV, key: bytes, range_end: bytes | None, start_revision: int) -> None:
        self.kv = kv
        self.position = max(start_revision, 1)
        self.closed = False
        # The revision up to which the log has been read (a poll that did not fill its
        # batch saw every row of its snapshot): what a watch cache calls progress.
        self.progress_revision = 0
        self._seen: tuple[int, int] | None = None  # (shared data_version, write_seq) at the last poll
        self._asked = False  # request_progress() was called: next_batch returns after its next poll
        if range_end is None:
            self.where, self.args = "key = ?", (key,)
        else:
            self.where, self.args = _bounds(key, range_end)
        self._key, self._range_end = key, range_end
        self._wake = threading.Event()
        with _watches_lock:
            kv._watches.add(self)

    def holds(self, key: bytes) -> bool:
        """Whether ``key`` is in this watch's range (the Python twin of its WHERE clause)."""
        try:
            if self._range_end is None:
                return key == self._key
            return key >= self._key and (self._range_end == b"\x00" or key < self._range_end)
        except TypeError:  # str against bytes: not comparable here, so wake it and let SQLite say
            return True

    def wake(self) -> None:
        """Make a waiting :meth:`next_batch` look at the log now."""
        self._wake.set()

    def check_compacted(self) -> None:
        compacted = self.kv._read_txn(lambda c: SQLiteKV._meta(c, "compact_revision"))
        if self.position < compacted:
            raise CompactedError(compacted, self.position)

    def request_progress(self) -> None:
        """Progress comes with every poll: make the waiting :meth:`next_batch` poll now and
        return, so its caller reads :attr:`progress_revision` at once."""
        self._asked = True
        self._wake.set()

    def close(self) -> None:
        self.closed = True
        with _watches_lock:
            self.kv._watches.discard(self)
        self._wake.set()

    def _changed(self) -> bool:
        """Whether anything was committed since the last poll: SQLite's data_version moves
        with every other connection's commit (other threads, other processes), write_seq
        with this KV's own (read fresh, so a woken watch sees its writer's commit at once).
        The data_version is shared by the KV's watches for half a poll interval: a commit
        of another connection is seen at most that much later, never missed."""
        seen = (self.kv._shared_data_version(), self.kv.write_seq)
        if seen == self._seen:
            return False
        self._seen = seen
        return True

    def _poll(self) -> list[RawEvent]:
        def read(conn: sqlite3.Connection) -> list[RawEvent]:
            compacted = SQLiteKV._meta(conn, "compact_revision")
            if self.position < compacted:
                raise CompactedError(compacted, self.position)
            rows = conn.execute(
                f"SELECT rev, key, deleted, create_rev, version, value, prev_rev, prev_value FROM kcodec_log "
                f"WHERE rev >= ? AND {self.where} ORDER BY rev LIMIT {self.BATCH}",
                (self.position,) + self.args).fetchall()
            return rows, SQLiteKV._meta(conn, "revision")
        rows, revision = self.kv._read_txn(read)
        if len(rows) < self.BATCH:
            self.progress_revision = max(self.progress_revision, revision)
        events: list[RawEvent] = []
        for rev, key, deleted, create_rev, version, value, prev_rev, prev_value in rows:
            if deleted:
                events.append(RawEvent("DELETE", KeyValue(key, b"", 0, rev, 0),
                                       KeyValue(key, prev_value, create_rev, prev_rev, version)))
            else:
                events.append(RawEvent("PUT", KeyValue(key, value, create_rev, rev, version)))
        if rows:
            self.position = rows[-1][0] + 1
        return events

    def next_batch(self, timeout: float | None) -> list[RawEvent]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.closed:
            # cleared before looking: a wake-up after the look (a commit after it) is kept
            self._wake.clear()
            self.kv._expire_while_watching()
            if self._changed():
                events = self._poll()
                if events:
                    if len(events) == self.BATCH:
                        self._seen = None  # more rows may be waiting: poll again at once
                    return events
            if self._asked:
                self._asked = False
                return []
            wait = self.kv.poll_interval
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return []
                wait = min(wait, left)
            self._wake.wait(wait)
        return []


class SQLiteStore(Store):
    """:class:`kcodec.storage.Store` on a SQLite file: the embedded default, no server needed.

    ``SQLiteStore("cluster.db", codec)`` creates the file when missing. Several stores
    (threads or processes) may share one file.
    """

    def __init__(self, path: str | os.PathLike[str], codec: Any, prefix: str = "/registry",
                 transformer: Any = None, **kwargs: Any) -> None:
        kv_options = {k: kwargs.pop(k) for k in ("busy_timeout", "poll_interval") if k in kwargs}
        super().__init__(SQLiteKV(path, **kv_options), codec, prefix, transformer, **kwargs)
