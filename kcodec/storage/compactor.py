"""The storage compactor: kube-apiserver's periodic compaction of the backend's history.

Follows k8s.io/apiserver ``pkg/storage/etcd3/compact.go``. Every ``interval`` seconds
(kube-apiserver's ``--etcd-compaction-interval``, 5 minutes by default) the compactor
compacts the revision it saw one interval earlier, so history always reaches back at
least one interval. Several API servers sharing one etcd compact once per interval: each
first writes the revision into the key ``compact_rev_key`` in a transaction that only
applies when the key is as this server last saw it; the server whose write applies
compacts, the others learn the revision from the key and wait for the next tick.

The same runs on the SQLite log (:class:`kcodec.storage.sqlite.SQLiteKV`), whose
``compact`` keeps the newest value of each live key. Afterwards reads and watches older
than the compacted revision fail with "410 Gone" (``ResourceExpiredError``), through the
storage and through a watch cache (:class:`kcodec.storage.cacher.Cacher`) alike.
"""
from __future__ import annotations

import logging
import threading
import weakref
from typing import Any

from kcodec.storage.kv import KV, CompactedError, FutureRevisionError

__all__ = ["Compactor", "COMPACT_REV_KEY", "compact", "compact_revision_of"]

COMPACT_REV_KEY = b"compact_rev_key"

_log = logging.getLogger(__name__)

# Go keeps one compactor per etcd endpoint (StartCompactorPerEndpoint); here, per KV.
_running: weakref.WeakKeyDictionary[Any, Compactor] = weakref.WeakKeyDictionary()
_running_lock = threading.Lock()


def compact(kv: KV, expect_mod_revision: int, rev: int) -> tuple[int, int, int]:
    """Go's ``Compact``: one compaction step. Returns ``(seen, current_rev, compact_rev)``.

    Writes ``rev`` into ``compact_rev_key`` when the key's mod revision still is
    ``expect_mod_revision`` (Go compares the key's version; the mod revision changes on
    exactly the same writes), then compacts the backend at ``rev``. ``seen`` is the key's
    mod revision to expect next time, ``current_rev`` the store's revision at the write
    (what the next tick compacts), ``compact_rev`` the revision compacted now or by the
    server that won the race (0 when nothing is known).
    """
    result = kv.optimistic_put(COMPACT_REV_KEY, str(rev).encode("ascii"), expect_mod_revision)
    if not result.succeeded:
        current = result.current
        if current is None:
            return 0, result.revision, 0
        try:
            compact_rev = int(current.value.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            compact_rev = 0
        return current.mod_revision, result.revision, compact_rev
    if rev == 0:
        return result.revision, result.revision, 0
    try:
        kv.compact(rev)
    except CompactedError as exc:
        # Already compacted this far by someone who did not use the key (a tool, a test).
        return result.revision, result.revision, max(exc.compact_revision, rev)
    return result.revision, result.revision, rev


def compact_revision_of(kv: Any) -> int:
    """The revision ``kv`` is known to be compacted at: the larger of what a running
    :class:`Compactor` on it did, what ``compact_rev_key`` says another API server did,
    and what the backend itself reports (SQLite keeps it); 0 when unknown."""
    revs = [0]
    with _running_lock:
        running = _running.get(kv)
    if running is not None:
        revs.append(running.compact_revision)
    own = getattr(kv, "compact_revision", None)
    if callable(own):
        revs.append(own())
    found, _ = kv.get(COMPACT_REV_KEY)
    if found is not None:
        try:
            revs.append(int(found.value.decode("ascii")))
        except (UnicodeDecodeError, ValueError):
            pass
    return max(revs)


class Compactor:
    """Compacts ``kv`` every ``interval`` seconds at the revision seen one interval ago.

    ``start()`` runs it in a daemon thread (``interval`` 0 never compacts, as Go's),
    ``stop()`` ends it; ``tick()`` runs one step now (what the thread does each
    interval). ``compact_revision`` is the last revision compacted, here or by another
    server sharing the backend.
    """

    def __init__(self, kv: KV, interval: float = 300.0) -> None:
        if interval < 0:
            raise ValueError(f"compaction interval must not be negative, got {interval!r}")
        self.kv = kv
        self.interval = float(interval)
        self._seen = 0  # compact_rev_key's mod revision as last seen (Go: compactTime)
        self._rev = 0  # the store revision seen at the last tick (Go: rev)
        self._compact_revision = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        state = "running" if self._thread is not None and self._thread.is_alive() else "idle"
        return (f"Compactor({self.kv!r}, interval={self.interval:g}, {state}, "
                f"compact_revision={self.compact_revision})")

    @property
    def compact_revision(self) -> int:
        """The latest compacted revision known to this compactor."""
        with self._lock:
            return self._compact_revision

    def _update(self, rev: int) -> None:
        if rev:
            with self._lock:
                self._compact_revision = max(self._compact_revision, rev)

    def tick(self) -> int:
        """One compaction step (Go's loop body); returns the revision compacted, or 0."""
        try:
            self._seen, self._rev, compact_rev = compact(self.kv, self._seen, self._rev)
        except FutureRevisionError:
            # The backend was replaced by an empty one (a restore): start over.
            self._seen, self._rev, compact_rev = 0, 0, 0
        self._update(compact_rev)
        return compact_rev

    def start(self) -> Compactor:
        """Compact every ``interval`` seconds in a daemon thread until :meth:`stop`."""
        if self._thread is not None:
            return self
        with _running_lock:
            _running[self.kv] = self
        if self.interval > 0:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name=f"kcodec-compactor {self.kv!r}", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.tick()
            except Exception as exc:  # noqa: BLE001 - Go logs and tries again next interval
                _log.error("compaction of %r failed: %s", self.kv, exc)

    def stop(self) -> None:
        """Stop compacting; idempotent."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        with _running_lock:
            if _running.get(self.kv) is self:
                del _running[self.kv]

    def __enter__(self) -> Compactor:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
