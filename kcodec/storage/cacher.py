"""The watch cache: apiserver's ``Cacher`` in front of a :class:`kcodec.storage.Store`.

Follows k8s.io/apiserver ``pkg/storage/cacher`` (``cacher.go``, ``watch_cache.go``,
``watch_cache_history.go``, ``cache_watcher.go``, ``ready.go``, ``delegator.go``,
``time_budget.go``, ``delegator/interface.go``):

- one storage watch per resource: a background thread lists the resource prefix once,
  then watches it from the list's revision, keeping the current objects (by key, in key
  order) and a ring buffer of the last ``capacity`` events (Go's ``watchCacheHistory``,
  resized as Go resizes it when ``max_capacity`` allows); a watch that falls behind the backend's compaction relists
  (Go's reflector) and ends every watcher, which then resume from their last revision;
- lists and gets are answered from memory as 1.36 answers them (``CacheDelegator``):
  ``resourceVersion`` "" is a consistent read (the cache first waits until it has seen the
  storage's current revision, ``GetCurrentResourceVersion``), "0" any state, ``NotOlderThan``
  at least that revision (3 s at most, then "Too large resource version"), ``Exact`` and
  continue tokens the state at exactly that revision, rebuilt from the ring buffer
  (Go's ``ListFromCacheSnapshot``); what the buffer no longer holds, or the storage has
  compacted, is read from the storage (which answers 410 for compacted revisions);
- watches start from the buffer (410 ``too old resource version: X (Y)`` below it),
  with the filtering of Go's ``cacheWatcher``: an object that starts matching the
  predicate is ADDED, one that stops matching DELETED; periodic BOOKMARKs for
  ``allow_watch_bookmarks``; watch-list (``send_initial_events=True``): the state as
  ADDED events, then the BOOKMARK annotated ``k8s.io/initial-events-end: "true"``;
- slow watchers are dropped as Go drops them: each has a bounded buffer; when it is full
  the dispatcher waits for it within a small time budget (Go's ``timeBudget``: 100 ms at
  most, refilled at 50 ms per second) shared by all blocked watchers, then ends it;
  other watchers never wait for it;
- writes go to the storage, with the cached object as the suggestion Go's delegator
  passes (``cached_existing_object``).

Freshness comes from progress reports of the storage watch: the SQLite watch reports
the revision each poll has read up to; on etcd the cache asks with
``WatchProgressRequest`` while a read waits (Go's ``ConditionalProgressRequester``). So
consistent reads and watch-list work on Debian's etcd 3.4 too, which kube-apiserver 1.36
refuses ("the required storage feature RequestWatchProgress is disabled").

Objects handed out by the cache (get, list items, watch events) are the cached objects
themselves, shared with every other reader, as Go shares them: treat them as read-only
and ``deep_copy()`` before changing one. Predicates are callables ``predicate(obj) ->
bool``, as :class:`kcodec.storage.Store` takes them.
"""
from __future__ import annotations

import bisect
import heapq
import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from kcodec.errors import KCodecError
from kcodec.storage.errors import (
    BadRequestError,
    KeyNotFoundError,
    ResourceExpiredError,
    TooLargeResourceVersionError,
    TooManyRequestsError,
)
from kcodec.storage.kv import CompactedError, KeyValue, decode_continue, encode_continue, prefix_range_end
from kcodec.storage.store import (
    ADDED,
    BOOKMARK,
    DELETED,
    MODIFIED,
    RESOURCE_VERSION_MATCH_EXACT,
    RESOURCE_VERSION_MATCH_NOT_OLDER_THAN,
    Preconditions,
    Store,
    WatchEvent,
    _list_for,
    _parse_rv,
    _set_rv,
)

__all__ = ["Cacher", "CacheWatcher", "INITIAL_EVENTS_ANNOTATION"]

#: The annotation of the BOOKMARK that ends a watch-list's initial events
#: (metav1.InitialEventsAnnotationKey).
INITIAL_EVENTS_ANNOTATION = "k8s.io/initial-events-end"

_log = logging.getLogger(__name__)

# watch_cache.go: how long a read waits for the cache to reach a revision.
BLOCK_TIMEOUT = 3.0
# cacher.go DefaultEventFreshDuration: how long the buffer tries to keep events.
DEFAULT_EVENT_FRESH_DURATION = 75.0
# cacher.go defaultBookmarkFrequency.
DEFAULT_BOOKMARK_FREQUENCY = 60.0
# cacher/compactor.go compactorPollPeriod: how often the compacted revision is looked up.
COMPACTION_POLL_PERIOD = 15.0
# progress/watchdog.go: progress is requested every 100 ms while a read waits.
PROGRESS_REQUEST_PERIOD = 0.1
# cacher.go storageWatchListPageSize: the list that fills the cache reads pages this big.
LIST_PAGE_SIZE = 10000
# time_budget.go
_BUDGET_REFRESH_PER_SECOND = 0.05
_BUDGET_MAX = 0.1
# The periodic events (bookmarks, compaction poll) are looked at once a second (jittered).
_TICK = 1.0


class _Event:
    """One change in the cache (Go's ``watchCacheEvent``): ``obj`` is the object after it
    (None for a delete), ``prev`` the object before it (None for a create)."""

    __slots__ = ("type", "key", "obj", "prev", "rv", "time", "_gone", "_attrs", "_prev_attrs")

    def __init__(self, type: str, key: str, obj: Any, prev: Any, rv: int) -> None:
        self.type = type
        self.key = key
        self.obj = obj
        self.prev = prev
        self.rv = rv
        self.time = 0.0  # monotonic time the cache received it (Go's RecordTime)
        self._gone: Any = None
        self._attrs: Any = None
        self._prev_attrs: Any = None

    def attrs(self, get_attrs: Callable[[Any], Any]) -> Any:
        """``get_attrs(obj)`` (labels, fields), computed once for every watcher (Go's
        ``ObjLabels``/``ObjFields``)."""
        if self._attrs is None:
            self._attrs = get_attrs(self.obj)
        return self._attrs

    def prev_attrs(self, get_attrs: Callable[[Any], Any]) -> Any:
        if self._prev_attrs is None:
            self._prev_attrs = get_attrs(self.prev)
        return self._prev_attrs

    def __repr__(self) -> str:
        return f"_Event({self.type}, {self.key!r}, rv={self.rv})"

    def gone_object(self) -> Any:
        """The previous object carrying this event's revision: what a DELETED event shows
        (Go's ``updateResourceVersion`` on ``PrevObject``). Built once, shared."""
        gone = self._gone
        if gone is None:
            gone = self._gone = self.prev.deep_copy()
            _set_rv(gone, self.rv)
        return gone


class _TimeBudget:
    """Go's ``timeBudget``: time the dispatcher may spend waiting for blocked watchers."""

    def __init__(self) -> None:
        self.budget = 0.0
        self.last = time.monotonic()

    def take_available(self) -> float:
        now = time.monotonic()
        self.budget = min(self.budget + max(now - self.last, 0.0) * _BUDGET_REFRESH_PER_SECOND, _BUDGET_MAX)
        self.last = now
        result, self.budget = self.budget, 0.0
        return result

    def return_unused(self, unused: float) -> None:
        if unused > 0:
            self.budget = min(self.budget + unused, _BUDGET_MAX)


class _Ready:
    """Go's ``ready``: pending until the first list, ready, or stopped for good."""

    PENDING, READY, STOPPED = "pending", "ready", "stopped"

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.state = self.PENDING
        self.generation = 0
        self.last_error: str | None = None

    def set(self, ok: bool, error: str | None = None) -> None:
        with self._cond:
            if self.state == self.STOPPED:
                return
            self.last_error = error
            if ok and self.state == self.PENDING:
                self.state = self.READY
                self.generation += 1
            elif not ok and self.state == self.READY:
                self.state = self.PENDING
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self.state = self.STOPPED
            self._cond.notify_all()

    def error(self) -> str | None:
        """Go's ``readGenerationLocked`` error text, None when ready."""
        if self.state == self.READY:
            return None
        if self.state == self.STOPPED:
            return "apiserver cacher is stopped"
        if self.last_error:
            return f"storage is (re)initializing: {self.last_error}"
        return "storage is (re)initializing"

    def wait(self, timeout: float | None) -> bool:
        with self._cond:
            self._cond.wait_for(lambda: self.state != self.PENDING, timeout)
            return self.state == self.READY


def _key_scopes(key: str) -> Iterator[str]:
    """The watch scopes an event at ``key`` concerns: the key itself and each prefix of it
    that ends in "/" (recursive watches register under their prefix)."""
    yield key
    i = key.find("/")
    while i >= 0:
        yield key[: i + 1]
        i = key.find("/", i + 1)


def _str_prefix_end(prefix: str) -> str:
    """The smallest string above every string starting with ``prefix`` (keys compare as
    code points, which is UTF-8 byte order)."""
    for i in range(len(prefix) - 1, -1, -1):
        if ord(prefix[i]) < 0x10FFFF:
            return prefix[:i] + chr(ord(prefix[i]) + 1)
    return "\U0010ffff" * (len(prefix) + 1)


def _set_initial_events_end(obj: Any) -> None:
    """Go's ``storage.AnnotateInitialEventsEndBookmark``."""
    if hasattr(obj, "unstructured_content"):
        annotations = dict(obj.get_annotations() or {})
        annotations[INITIAL_EVENTS_ANNOTATION] = "true"
        obj.set_annotations(annotations)
        return
    meta = obj.metadata
    if meta is None:
        from kcodec.api.meta.v1 import ObjectMeta

        meta = obj.metadata = ObjectMeta()
    annotations = dict(meta.annotations or {})
    annotations[INITIAL_EVENTS_ANNOTATION] = "true"
    meta.annotations = annotations


def _attribute_matcher(predicate: Any) -> Callable[..., bool] | None:
    """For a predicate that is the ``matches`` method of a selection predicate (Go's
    ``SelectionPredicate``), its ``matches_object_attributes(labels, fields)``: the
    cache then matches on attributes it computed once per object and event with its
    ``get_attrs``, as Go's cacher does, instead of each watcher and list recomputing them."""
    owner = getattr(predicate, "__self__", None)
    if getattr(predicate, "__name__", "") != "matches" or owner is None:
        return None
    matcher = getattr(owner, "matches_object_attributes", None)
    return matcher if callable(matcher) else None


def _call_notify(callback: Callable[[], None]) -> None:
    # A reader's wake-up hook runs on the cacher's thread: its failure (say, an event
    # loop already closed) must not stop the cache.
    try:
        callback()
    except Exception as exc:  # noqa: BLE001
        _log.debug("watch notify callback failed: %s", exc)


class CacheWatcher:
    """A watch served by a :class:`Cacher` (Go's ``cacheWatcher``).

    The Store Watcher's interface: iterate for :class:`WatchEvent` s, ``next(timeout)``
    (``None`` after ``timeout`` seconds or once the watch ended), ``stop()``, a context
    manager; ``resource_version`` is the revision of the last event delivered. Also
    ``set_notify(callback)``: ``callback()`` is called, from the cacher's thread, each
    time an event is queued for this watcher and when it stops, so an asyncio server can
    ``loop.call_soon_threadsafe`` its reader awake. ``dropped`` is True when the cacher
    ended it for not keeping up (the client resumes from ``resource_version``, as
    client-go does after a closed watch).
    """

    def __init__(self, cacher: Cacher, key: str, recursive: bool, predicate: Callable[[Any], bool] | None,
                 allow_bookmarks: bool, buffer_size: int) -> None:
        self._cacher = cacher
        self._key = key
        self._recursive = recursive
        self._predicate = predicate
        self._get_attrs = cacher.get_attrs
        self._attr_match = _attribute_matcher(predicate) if cacher.get_attrs is not None else None
        self.allow_watch_bookmarks = allow_bookmarks
        self._buffer_size = buffer_size
        self._cond = threading.Condition(threading.Lock())
        self._initial: deque[_Event] = deque()
        self._initial_end_rv: int | None = None  # the annotated BOOKMARK after the initial events
        self._input: deque[_Event] = deque()
        self._notify: Callable[[], None] | None = None
        self._stopped = False
        self.dropped = False
        self.resource_version = 0  # revision of the last event delivered
        self._start_rv = 0  # events at or below it were already covered by the start
        self.next_bookmark: float | None = 0.0  # monotonic time of the next periodic bookmark
        self.deadline: float | None = None  # monotonic time the client's timeout ends the watch
        self._id = 0

    def __repr__(self) -> str:
        state = "dropped" if self.dropped else "stopped" if self._stopped else "running"
        return f"CacheWatcher({self._key!r}, {state}, resource_version={self.resource_version})"

    def __enter__(self) -> CacheWatcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def set_notify(self, callback: Callable[[], None] | None) -> None:
        """Call ``callback()`` (from any thread) when an event is queued or the watch ends."""
        with self._cond:
            self._notify = callback
            pending = bool(self._initial or self._input or self._initial_end_rv is not None or self._stopped)
        if pending and callback is not None:
            _call_notify(callback)

    @property
    def stopped(self) -> bool:
        return self._stopped

    def stop(self) -> None:
        """End the watch; idempotent. Queued events are discarded."""
        self._cacher._forget(self)
        with self._cond:
            self._input.clear()
            self._initial.clear()
            self._initial_end_rv = None
        self._close()

    def _close(self, dropped: bool = False) -> None:
        """End from the cacher's side: what is queued can still be read, then the end."""
        with self._cond:
            if self._stopped:
                return
            self._stopped = True
            self.dropped = dropped
            self._cond.notify_all()
            notify = self._notify
        if notify is not None:
            _call_notify(notify)

    # ------------------------------------------------------------------ cacher side

    def _try_add(self, event: _Event) -> bool:
        """Go's ``nonblockingAdd``: queue unless the buffer is full."""
        with self._cond:
            if self._stopped:
                return True
            if len(self._input) >= self._buffer_size:
                return False
            self._input.append(event)
            self._cond.notify_all()
            notify = self._notify
        if notify is not None:
            _call_notify(notify)
        return True

    def _add(self, event: _Event, deadline: float) -> bool:
        """Go's ``add``: wait for room until ``deadline`` (monotonic)."""
        with self._cond:
            while not self._stopped and len(self._input) >= self._buffer_size:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            if self._stopped:
                return True
            self._input.append(event)
            self._cond.notify_all()
            notify = self._notify
        if notify is not None:
            _call_notify(notify)
        return True

    # ------------------------------------------------------------------ reader side

    def _next_bookmark_time(self, now: float, frequency: float) -> float | None:
        """Go's ``nextBookmarkTime``: a bookmark every ``frequency`` seconds, and one 2 s
        before the client's deadline so that it can resume from a fresh revision; None
        when that last one is past."""
        heartbeat = now + frequency
        if self.deadline is None:
            return heartbeat
        heartbeat = min(heartbeat, self.deadline - 2.0)
        return heartbeat if heartbeat >= now else None

    def _in_scope(self, key: str) -> bool:
        return key.startswith(self._key) if self._recursive else key == self._key

    def _passes(self, event: _Event, prev: bool) -> bool:
        """Go's ``filterWithAttrsAndPrefixFunction`` on the event's object (or the one before)."""
        if not self._in_scope(event.key):
            return False
        if self._predicate is None:
            return True
        if self._attr_match is not None:
            labels, fields = event.prev_attrs(self._get_attrs) if prev else event.attrs(self._get_attrs)  # type: ignore[arg-type]
            return bool(self._attr_match(labels, fields))
        return bool(self._predicate(event.prev if prev else event.obj))

    def _convert(self, event: _Event) -> WatchEvent | None:
        """Go's ``convertToWatchEvent``."""
        if event.type == BOOKMARK:
            obj = self._cacher._new_object()
            _set_rv(obj, event.rv)
            return WatchEvent(BOOKMARK, obj)
        cur = event.type != DELETED and self._passes(event, False)
        old = event.prev is not None and self._passes(event, True)
        if cur and not old:
            return WatchEvent(ADDED, event.obj)
        if cur:
            return WatchEvent(MODIFIED, event.obj)
        if old:
            return WatchEvent(DELETED, event.gone_object())
        return None

    def __iter__(self) -> Iterator[WatchEvent]:
        return self

    def __next__(self) -> WatchEvent:
        while True:
            event = self.next(timeout=1.0)
            if event is not None:
                return event
            if self._stopped:
                raise StopIteration

    def next(self, timeout: float | None = None) -> WatchEvent | None:
        """The next event, or ``None`` after ``timeout`` seconds (or once the watch ended
        and everything queued was read)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._cond:
                if self._initial:
                    event = self._initial.popleft()
                    live = False
                elif self._initial_end_rv is not None:
                    rv, self._initial_end_rv = self._initial_end_rv, None
                    obj = self._cacher._new_object()
                    _set_rv(obj, rv)
                    _set_initial_events_end(obj)
                    self.resource_version = max(self.resource_version, rv)
                    return WatchEvent(BOOKMARK, obj)
                elif self._input:
                    event = self._input.popleft()
                    live = True
                    self._cond.notify_all()  # room for a dispatcher waiting in _add
                elif self._stopped:
                    return None
                else:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return None
                    self._cond.wait(left)
                    continue
            if live:
                # Go's process(): what the start already covered is skipped.
                if event.rv <= self._start_rv:
                    continue
            else:
                self._start_rv = max(self._start_rv, event.rv)
            converted = self._convert(event)
            # The state sent at the start carries revision 0 here: it moves nothing.
            self.resource_version = max(self.resource_version, event.rv)
            if converted is not None:
                return converted


class _Snapshot:
    """What a list reads: the cache's state at ``rv`` (current objects overlaid with
    ``changes`` undone from the ring buffer), over the keys it needs."""

    __slots__ = ("rv", "items")

    def __init__(self, rv: int, items: list[tuple[str, Any]]) -> None:
        self.rv = rv
        self.items = items


class Cacher:
    """The watch cache of one resource over ``storage`` (Go's ``Cacher`` + ``CacheDelegator``).

    ``resource_prefix`` is the resource's key prefix relative to the storage's
    (``"/pods"``); ``capacity`` the ring buffer's size in events (with ``max_capacity``
    above it, its smallest size: the buffer then doubles while its oldest event is
    younger than ``event_fresh_duration`` seconds and halves when its newest quarter is
    older, as Go's ``watchCacheHistory`` resizes between 100 and 102,400 events over
    75 s); ``new_func()`` an empty
    object of the kind (bookmarks carry one), ``new_list_func()`` an empty list.
    ``get_attrs(obj) -> (labels, fields)`` is Go's ``GetAttrsFunc``: with it, a predicate
    that is the ``matches`` method of a selection predicate (an object that also has
    ``matches_object_attributes(labels, fields)``, as Go's ``SelectionPredicate``) is
    matched on attributes computed once per event for all watchers and once per object
    version for lists; any other predicate is called with the object.
    Other options: ``bookmark_frequency`` (seconds between periodic bookmarks, Go's
    minute), ``watcher_buffer_size`` (events queued per watcher before it counts as
    blocked), ``ready_timeout`` (how long a read waits for the first list before
    answering :class:`~kcodec.storage.errors.TooManyRequestsError`),
    ``compaction_poll_period`` (how often the storage's compacted revision is looked up).

    It starts at once (a daemon thread lists and watches); :meth:`ready` tells whether
    the first list is in, :meth:`stop` ends the thread, the storage watch and every
    watcher. The storage is not closed.
    """

    def __init__(self, storage: Store, *, resource_prefix: str, capacity: int = 100,
                 new_func: Callable[[], Any] | None = None, new_list_func: Callable[[], Any] | None = None,
                 get_attrs: Callable[[Any], Any] | None = None, bookmark_frequency: float = DEFAULT_BOOKMARK_FREQUENCY,
                 watcher_buffer_size: int = 100, ready_timeout: float = 10.0,
                 compaction_poll_period: float = COMPACTION_POLL_PERIOD, max_capacity: int | None = None,
                 event_fresh_duration: float = DEFAULT_EVENT_FRESH_DURATION) -> None:
        if not resource_prefix:
            raise ValueError("resourcePrefix cannot be empty")
        if resource_prefix == "/":
            raise ValueError("resourcePrefix cannot be /")
        if not resource_prefix.startswith("/"):
            raise ValueError("resourcePrefix needs to start from /")
        if capacity < 1:
            raise ValueError(f"watch cache capacity must be positive, got {capacity}")
        if max_capacity is not None and max_capacity < capacity:
            raise ValueError(f"watch cache max_capacity {max_capacity} is below its capacity {capacity}")
        if watcher_buffer_size < 1:
            raise ValueError(f"watcher buffer size must be positive, got {watcher_buffer_size}")
        self.storage = storage
        self.resource_prefix = resource_prefix
        self.capacity = capacity
        self.min_capacity = capacity
        self.max_capacity = max_capacity if max_capacity is not None else capacity
        self.event_fresh_duration = event_fresh_duration
        self.new_func = new_func if new_func is not None else storage.new_func
        self.new_list_func = new_list_func if new_list_func is not None else storage.new_list_func
        self.get_attrs = get_attrs
        self.bookmark_frequency = bookmark_frequency
        self.watcher_buffer_size = watcher_buffer_size
        self.ready_timeout = ready_timeout
        self.compaction_poll_period = compaction_poll_period
        self._tick = min(_TICK, bookmark_frequency) if bookmark_frequency > 0 else _TICK
        self._prefix = storage.prepare_key(resource_prefix, recursive=True)
        self._bprefix = self._prefix.encode("utf-8")

        # The cache (guarded by _lock; _fresh is notified when rv moves).
        self._lock = threading.Lock()
        self._fresh = threading.Condition(self._lock)
        self._objects: dict[str, Any] = {}
        # key -> (object, get_attrs(object)): the attributes lists with a selection
        # predicate match on (Go keeps them on its store.Element).
        self._attrs_by_key: dict[str, tuple[Any, Any]] = {}
        self._keys: list[str] = []  # sorted
        self._ring: list[_Event | None] = [None] * capacity
        self._start = 0
        self._end = 0
        self._removed_since_relist = False
        self._list_rv = 0
        self._rv = 0
        self._compacted = 0
        self._waiters = 0

        # Watchers (guarded by _watch_lock), by scope: a key or a prefix ending in "/".
        self._watch_lock = threading.Lock()
        self._watchers: dict[str, dict[int, CacheWatcher]] = {}
        self._bookmark_watchers: dict[int, CacheWatcher] = {}
        self._next_id = 0
        self._last_processed_rv = 0
        self._budget = _TimeBudget()

        self._ready = _Ready()
        self._stopping = threading.Event()
        self._raw: Any = None
        self._thread = threading.Thread(target=self._run, name=f"kcodec-cacher {self._prefix}", daemon=True)
        self._thread.start()

    def __repr__(self) -> str:
        return (f"Cacher({self._prefix!r}, capacity={self.capacity}, {self._ready.state}, "
                f"resource_version={self._rv})")

    # ------------------------------------------------------------------ lifecycle

    def ready(self) -> bool:
        """Whether the cache holds a complete state (Go's ``Ready``)."""
        return self._ready.state == _Ready.READY

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until ready (True) or stopped / ``timeout`` passed (False)."""
        return self._ready.wait(timeout)

    @property
    def resource_version(self) -> int:
        """The revision the cache has seen everything up to."""
        return self._rv

    def stop(self) -> None:
        """Stop caching: the storage watch, the thread and every watcher end. Idempotent."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._ready.stop()
        raw = self._raw
        if raw is not None:
            raw.close()
        with self._fresh:
            self._fresh.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join()
        self._terminate_all()

    def __enter__(self) -> Cacher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _new_object(self) -> Any:
        if self.new_func is not None:
            return self.new_func()
        from kcodec.api.meta.v1 import PartialObjectMetadata

        return PartialObjectMetadata()

    # ------------------------------------------------------------------ the reflector

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self._list_and_watch()
            except Exception as exc:  # noqa: BLE001 - Go logs, marks the cache pending and relists
                if self._stopping.is_set():
                    break
                _log.error("cacher (%s): unexpected ListAndWatch error: %s; reinitializing...", self._prefix, exc)
                self._ready.set(False, str(exc))
                self._stopping.wait(1.0)
            finally:
                raw, self._raw = self._raw, None
                if raw is not None:
                    raw.close()

    def _list(self) -> tuple[list[KeyValue], int]:
        kv = self.storage.kv
        end = prefix_range_end(self._bprefix)
        resp = kv.range(self._bprefix, end, limit=LIST_PAGE_SIZE)
        kvs, rev = list(resp.kvs), resp.revision
        while resp.more:
            resp = kv.range(kvs[-1].key + b"\x00", end, revision=rev, limit=LIST_PAGE_SIZE)
            kvs.extend(resp.kvs)
        return kvs, rev

    def _list_and_watch(self) -> None:
        self._terminate_all()
        kvs, rev = self._list()
        objects = {kv.key.decode("utf-8", "surrogateescape"): self.storage.decode_value(kv) for kv in kvs}
        del kvs  # the stored bytes: this frame lives as long as the watch
        raw = self.storage.kv.watch(self._bprefix, prefix_range_end(self._bprefix), rev + 1)
        self._raw = raw
        if self._stopping.is_set():
            return
        with self._fresh:
            self._objects = objects
            self._attrs_by_key = {}
            self._keys = sorted(objects)
            self.capacity = self.min_capacity
            self._ring = [None] * self.capacity
            self._start = self._end = 0
            self._removed_since_relist = False
            self._list_rv = rev
            self._rv = rev
            self._fresh.notify_all()
        self._last_processed_rv = rev
        self._ready.set(True)
        self._poll_compaction()
        now = time.monotonic()
        next_tick = now + random.uniform(0.75, 1.25) * self._tick
        next_compaction_poll = now + self.compaction_poll_period
        last_progress_request = 0.0
        while not self._stopping.is_set():
            now = time.monotonic()
            waiting = self._waiters > 0
            if waiting and now - last_progress_request >= PROGRESS_REQUEST_PERIOD:
                self._request_progress(raw)
                last_progress_request = now
            timeout = max(min(next_tick - now, PROGRESS_REQUEST_PERIOD if waiting else self._tick), 0.0)
            try:
                batch = raw.next_batch(timeout)
            except CompactedError as exc:
                # The storage compacted past what this watch has read: relist (Go's
                # reflector on "too old resource version").
                _log.warning("cacher (%s): watch fell behind compaction (%s); relisting", self._prefix, exc)
                return
            for event in batch:
                self._process(event)
            progress = getattr(raw, "progress_revision", 0)
            if progress > self._rv:
                with self._fresh:
                    if progress > self._rv:
                        self._rv = progress
                        self._fresh.notify_all()
                self._last_processed_rv = max(self._last_processed_rv, progress)
            now = time.monotonic()
            if now >= next_tick:
                next_tick = now + random.uniform(0.75, 1.25) * self._tick
                if self._bookmark_watchers:
                    # A bookmark is only worth sending past what watchers have seen.
                    self._request_progress(raw)
                self._dispatch_bookmarks(now)
            if now >= next_compaction_poll:
                next_compaction_poll = now + self.compaction_poll_period
                self._poll_compaction()

    @staticmethod
    def _request_progress(raw: Any) -> None:
        request = getattr(raw, "request_progress", None)
        if request is not None:
            try:
                request()
            except Exception as exc:  # noqa: BLE001 - a failed request only delays a read
                _log.debug("progress request failed: %s", exc)

    def _poll_compaction(self) -> None:
        from kcodec.storage.compactor import compact_revision_of

        try:
            rev = compact_revision_of(self.storage.kv)
        except Exception as exc:  # noqa: BLE001 - looked up again at the next poll
            _log.debug("cacher (%s): compact revision lookup failed: %s", self._prefix, exc)
            return
        self._note_compacted(rev)

    def _note_compacted(self, rev: int) -> None:
        with self._lock:
            self._compacted = max(self._compacted, rev)

    def _process(self, raw: Any) -> None:
        """Go's ``watchCache.processEvent`` + ``Cacher.dispatchEvent``."""
        key = raw.kv.key.decode("utf-8", "surrogateescape")
        rv = raw.kv.mod_revision
        obj = self.storage.decode_value(raw.kv) if raw.type == "PUT" else None
        with self._fresh:
            prev = self._objects.get(key)
            self._attrs_by_key.pop(key, None)  # they described the object this event replaces
            if obj is not None:
                event = _Event(MODIFIED if prev is not None else ADDED, key, obj, prev, rv)
                self._objects[key] = obj
                if prev is None:
                    bisect.insort(self._keys, key)
            else:
                event = _Event(DELETED, key, None, prev, rv)
                if prev is not None:
                    del self._objects[key]
                    i = bisect.bisect_left(self._keys, key)
                    del self._keys[i]
            event.time = time.monotonic()
            self._resize_locked(event.time)
            if self._end - self._start == self.capacity:
                self._start += 1
                self._removed_since_relist = True
            self._ring[self._end % self.capacity] = event
            self._end += 1
            self._rv = max(self._rv, rv)
            self._fresh.notify_all()
        self._last_processed_rv = rv
        if prev is None and obj is None:
            return  # a delete of a key the cache never had: nothing to tell anyone
        self._dispatch(event)

    def _resize_locked(self, now: float) -> None:
        """Go's ``resizeCacheLocked``: grow a full buffer whose oldest event is still fresh,
        shrink one whose newest quarter is already stale."""
        cap = self.capacity
        if self.max_capacity == self.min_capacity or self._end - self._start != cap:
            return
        ring = self._ring
        if now - ring[self._start % cap].time < self.event_fresh_duration:  # type: ignore[union-attr]
            new = min(cap * 2, self.max_capacity)
        elif now - ring[(self._end - cap // 4) % cap].time > self.event_fresh_duration:  # type: ignore[union-attr]
            new = max(cap // 2, self.min_capacity)
        else:
            return
        if new == cap:
            return
        if new < cap:
            self._start = self._end - new
            self._removed_since_relist = True
        resized: list[_Event | None] = [None] * new
        for n in range(self._start, self._end):
            resized[n % new] = ring[n % cap]
        self._ring = resized
        self.capacity = new

    # ------------------------------------------------------------------ dispatching

    def _dispatch(self, event: _Event) -> None:
        with self._watch_lock:
            targets = [w for scope in _key_scopes(event.key) for w in self._watchers.get(scope, {}).values()]
        if not targets:
            return
        blocked = [w for w in targets if not w._try_add(event)]
        if not blocked:
            return
        start = time.monotonic()
        budget = self._budget.take_available()
        deadline = start + budget
        for watcher in blocked:
            if not watcher._add(event, deadline):
                _log.info("cacher (%s): forcing watcher close due to unresponsiveness: %r", self._prefix, watcher)
                self._forget(watcher)
                watcher._close(dropped=True)
        self._budget.return_unused(budget - (time.monotonic() - start))

    def _dispatch_bookmarks(self, now: float) -> None:
        rv = self._last_processed_rv
        if rv == 0:
            return
        with self._watch_lock:
            due = [w for w in self._bookmark_watchers.values() if w.next_bookmark <= now]
            for w in due:
                w.next_bookmark = w._next_bookmark_time(now, self.bookmark_frequency)
                if w.next_bookmark is None:  # past its last bookmark, before its deadline
                    del self._bookmark_watchers[w._id]
        if due:
            event = _Event(BOOKMARK, "", None, None, rv)
            for watcher in due:
                watcher._try_add(event)  # bookmarks never wait (Go: nonblockingAdd only)

    def _forget(self, watcher: CacheWatcher) -> None:
        with self._watch_lock:
            scoped = self._watchers.get(watcher._key)
            if scoped is not None:
                scoped.pop(watcher._id, None)
                if not scoped:
                    del self._watchers[watcher._key]
            self._bookmark_watchers.pop(watcher._id, None)

    def _terminate_all(self) -> None:
        with self._watch_lock:
            watchers = [w for scoped in self._watchers.values() for w in scoped.values()]
            self._watchers = {}
            self._bookmark_watchers = {}
        for watcher in watchers:
            watcher._close()

    @property
    def watcher_count(self) -> int:
        """How many watchers are registered."""
        with self._watch_lock:
            return sum(len(scoped) for scoped in self._watchers.values())

    # ------------------------------------------------------------------ freshness

    def _check_ready(self) -> None:
        if self._ready.state != _Ready.READY and not self._ready.wait(self.ready_timeout):
            raise TooManyRequestsError(self._ready.error() or "storage is (re)initializing", 1)

    def _wait_fresh_locked(self, rv: int) -> None:
        """Go's ``waitUntilFreshLocked`` (called with ``_lock`` held)."""
        if rv == 0 or rv <= self._rv:
            return
        self._waiters += 1
        raw = self._raw
        if raw is not None:
            # Ask now: the cache's thread may be asleep for up to a second between ticks
            # (it asks again every 100 ms while anyone waits).
            self._request_progress(raw)
        try:
            deadline = time.monotonic() + BLOCK_TIMEOUT
            while self._rv < rv:
                left = deadline - time.monotonic()
                if left <= 0 or self._stopping.is_set():
                    raise TooLargeResourceVersionError(rv, self._rv)
                self._fresh.wait(left)
        finally:
            self._waiters -= 1

    # ------------------------------------------------------------------ reads

    def get(self, key: str, ignore_not_found: bool = False, *, resource_version: str = "") -> Any:
        """The object at ``key`` (the shared cached object: do not modify it).

        As Go's delegator: ``resource_version`` "" reads the storage; otherwise the cache
        answers once it has seen that revision (3 s at most, then
        :class:`~kcodec.storage.errors.TooLargeResourceVersionError`). A cache that is
        not ready passes the read to the storage.
        """
        if resource_version == "" or not self.ready():
            return self.storage.get(key, ignore_not_found, resource_version=resource_version)
        rv = _parse_rv(resource_version)
        prepared = self.storage.prepare_key(key)
        with self._fresh:
            self._wait_fresh_locked(rv)
            obj = self._objects.get(prepared)
            read_rv = self._rv
        if obj is None:
            if ignore_not_found:
                return None
            raise KeyNotFoundError(prepared, read_rv)
        return obj

    def _should_delegate_exact(self, rv: int) -> bool:
        """Go's ``shouldDelegateExactRV``: can the buffer rebuild the state at ``rv``?"""
        with self._lock:
            if rv > self._rv:
                return False  # wait for it, as a cache whose storage reports progress does
            return rv < self._oldest_locked() or rv < self._compacted

    def _oldest_locked(self) -> int:
        """The oldest revision whose state the buffer can rebuild (and a watch start from)."""
        if not self._removed_since_relist:
            return self._list_rv
        return self._ring[self._start % self.capacity].rv - 1  # type: ignore[union-attr]

    def get_list(self, key_prefix: str, *, resource_version: str = "", resource_version_match: str = "",
                 limit: int = 0, continue_token: str = "",
                 predicate: Callable[[Any], bool] | None = None) -> Any:
        """The objects under ``key_prefix`` as the kind's list, as :meth:`Store.get_list`
        answers, from memory where Go's cacher answers from memory (items are the shared
        cached objects)."""
        prefix = self.storage.prepare_key(key_prefix, recursive=True)
        if not prefix.startswith(self._prefix):
            # Not this resource's keys: the cache has nothing to say about them.
            return self.storage.get_list(key_prefix, resource_version=resource_version,
                                         resource_version_match=resource_version_match, limit=limit,
                                         continue_token=continue_token, predicate=predicate)
        if limit < 0:
            limit = 0
        # Go's ValidateListOptions: the same errors as the storage gives.
        self.storage._validate_list_options(prefix, resource_version, resource_version_match, limit, continue_token)
        exact: int | None = None
        consistent = False
        continue_key = ""
        match = resource_version_match
        if match == RESOURCE_VERSION_MATCH_EXACT:
            exact = _parse_rv(resource_version)
        elif match == RESOURCE_VERSION_MATCH_NOT_OLDER_THAN:
            pass
        elif match == "":
            if continue_token:
                continue_key, continue_rv = decode_continue(continue_token, prefix)
                if continue_rv > 0:
                    exact = continue_rv
                else:
                    consistent = True  # Go: a continue with a negative revision reads the latest
            elif limit > 0 and resource_version not in ("", "0"):
                exact = _parse_rv(resource_version)
            elif resource_version == "":
                consistent = True
        else:
            return self.storage.get_list(key_prefix, resource_version=resource_version,
                                         resource_version_match=resource_version_match, limit=limit,
                                         continue_token=continue_token, predicate=predicate)
        delegate = exact is not None and self._should_delegate_exact(exact)
        if not delegate and not self.ready() and predicate is None and limit > 0:
            delegate = True  # Go's shouldDelegateListOnNotReadyCache
        if delegate:
            return self.storage.get_list(key_prefix, resource_version=resource_version,
                                         resource_version_match=resource_version_match, limit=limit,
                                         continue_token=continue_token, predicate=predicate)
        self._check_ready()
        try:
            if exact is not None:
                snap = self._snapshot(prefix, continue_key, exact=exact)
            elif consistent:
                snap = self._snapshot(prefix, continue_key, minimum=self.storage.current_revision())
            else:
                snap = self._snapshot(prefix, continue_key, minimum=_parse_rv(resource_version))
        except ResourceExpiredError:
            return self.storage.get_list(key_prefix, resource_version=resource_version,
                                         resource_version_match=resource_version_match, limit=limit,
                                         continue_token=continue_token, predicate=predicate)
        except TooLargeResourceVersionError:
            if not consistent:
                raise
            # Go's delegator falls back to the storage when a consistent read times out.
            return self.storage.get_list(key_prefix, resource_version=resource_version,
                                         resource_version_match=resource_version_match, limit=limit,
                                         continue_token=continue_token, predicate=predicate)
        if resource_version == "0":
            limit = 0  # Go's computeListLimit: a list at "0" is never paged by the cache
        items: list[Any] = []
        last_key = ""
        has_more = False
        entries = snap.items
        if predicate is None:
            if limit and len(entries) > limit:
                entries = entries[:limit]
                has_more = True
            items = [obj for _, obj in entries]
            if entries:
                last_key = entries[-1][0]
        else:
            n = len(entries)
            matches = self._list_matcher(predicate)
            for i, (k, obj) in enumerate(entries):
                if matches(k, obj):
                    items.append(obj)
                    last_key = k
                    if limit and len(items) >= limit:
                        has_more = i < n - 1
                        break
        continue_value = ""
        remaining: int | None = None
        if has_more:
            continue_value = encode_continue(last_key + "\x00", prefix, snap.rv)
            if predicate is None:
                remaining = len(snap.items) - limit
        return self._finish_list(items, snap.rv, continue_value, remaining)

    def _list_matcher(self, predicate: Callable[[Any], bool]) -> Callable[[str, Any], bool]:
        """How a list tests one item: the predicate, or (for a selection predicate) its
        attribute match on attributes kept per object until the object changes."""
        attr_match = _attribute_matcher(predicate) if self.get_attrs is not None else None
        if attr_match is None:
            return lambda key, obj: bool(predicate(obj))
        cache = self._attrs_by_key
        objects = self._objects
        get_attrs = self.get_attrs

        def matches(key: str, obj: Any) -> bool:
            entry = cache.get(key)
            if entry is None or entry[0] is not obj:
                entry = (obj, get_attrs(obj))  # type: ignore[misc]
                if objects.get(key) is obj:  # only current objects: an old one is not kept alive
                    cache[key] = entry
            labels, fields = entry[1]
            return bool(attr_match(labels, fields))

        return matches

    def _snapshot(self, prefix: str, continue_key: str, *, exact: int | None = None, minimum: int = 0) -> _Snapshot:
        start = continue_key or prefix
        end = _str_prefix_end(prefix)
        with self._fresh:
            self._wait_fresh_locked(exact if exact is not None else minimum)
            if exact is not None and (exact < self._oldest_locked() or exact < self._compacted):
                raise ResourceExpiredError(f"too old resource version: {exact} ({self._oldest_locked()})")
            keys = self._keys
            objects = self._objects
            i = bisect.bisect_left(keys, start)
            j = bisect.bisect_left(keys, end, i)
            if exact is None or exact >= self._rv:
                return _Snapshot(self._rv, [(k, objects[k]) for k in keys[i:j]])
            # Undo, newest first, the events after `exact`: the oldest undo of a key wins.
            changes: dict[str, Any] = {}
            for n in range(self._end - 1, self._start - 1, -1):
                event = self._ring[n % self.capacity]
                if event.rv <= exact:  # type: ignore[union-attr]
                    break
                if start <= event.key < end:  # type: ignore[union-attr]
                    changes[event.key] = event.prev  # type: ignore[union-attr]
            if not changes:
                return _Snapshot(exact, [(k, objects[k]) for k in keys[i:j]])
            current = [(k, changes[k] if k in changes else objects[k]) for k in keys[i:j]]
        extra = sorted((k, v) for k, v in changes.items() if k not in objects and v is not None)
        merged = heapq.merge(current, extra, key=lambda kv: kv[0]) if extra else current
        return _Snapshot(exact, [(k, v) for k, v in merged if v is not None])

    def _finish_list(self, items: list[Any], rev: int, continue_value: str, remaining: int | None) -> Any:
        out: Any = self.new_list_func() if self.new_list_func is not None else (_list_for(items[0]) if items else None)
        if out is None:
            from kcodec.api.meta.v1 import List as MetaList

            out = MetaList(api_version="v1", kind="List")
        if hasattr(out, "unstructured_content"):
            out.items = items
            out.set_resource_version(str(rev))
            out.set_continue(continue_value)
            out.set_remaining_item_count(remaining)
            return out
        out.items = items
        meta = out.metadata
        if meta is None:
            from kcodec.api.meta.v1 import ListMeta

            meta = out.metadata = ListMeta()
        meta.resource_version = str(rev)
        meta.continue_ = continue_value
        meta.remaining_item_count = remaining
        return out

    # ------------------------------------------------------------------ watch

    def watch(self, key: str, *, resource_version: str = "", recursive: bool = False,
              predicate: Callable[[Any], bool] | None = None, allow_watch_bookmarks: bool = False,
              send_initial_events: bool | None = None, timeout_seconds: float | None = None) -> CacheWatcher:
        """Watch ``key`` (or everything under it when ``recursive``) from the cache.

        ``resource_version`` "" or "0" without ``send_initial_events`` starts with every
        matching object as ADDED (Go's legacy watch); a revision starts after it, from the
        ring buffer (:class:`~kcodec.storage.errors.ResourceExpiredError` "too old resource
        version: X (Y)" when the buffer no longer reaches back to it, or the storage was
        compacted past it). ``send_initial_events=True`` (watch-list) sends the state as
        ADDED events (with "" the storage's current state, "0" the cache's, a revision at
        least that one) and, with ``allow_watch_bookmarks``, a BOOKMARK annotated
        ``k8s.io/initial-events-end: "true"``; ``False`` starts after the state without
        sending it. ``predicate(obj)`` filters as the storage's watch does.
        ``timeout_seconds`` is when the caller will end the watch (the request's
        ``timeoutSeconds``): the last bookmark comes 2 s before it, as Go's cacher sends it
        before a watch's deadline. The watch itself does not end then.
        """
        prepared = self.storage.prepare_key(key, recursive)
        requested = _parse_rv(resource_version)
        if not prepared.startswith(self._prefix):
            raise BadRequestError(f"watch of {prepared} is outside the cached prefix {self._prefix}")
        self._check_ready()
        list_watch = bool(send_initial_events) and allow_watch_bookmarks
        # Go's getWatchCacheResourceVersion.
        if resource_version:
            required = requested
        elif send_initial_events is None:
            required = 0
        else:
            required = self.storage.current_revision()
        watcher = CacheWatcher(self, prepared, recursive, predicate, allow_watch_bookmarks, self.watcher_buffer_size)
        with self._fresh:
            if send_initial_events:
                self._wait_fresh_locked(required)
            initial, start_rv = self._interval_locked(required, prepared, recursive, send_initial_events)
            watcher._initial = deque(initial)
            watcher._start_rv = start_rv
            watcher.resource_version = start_rv
            if list_watch:
                watcher._initial_end_rv = self._rv
            now = time.monotonic()
            if timeout_seconds is not None and timeout_seconds > 0:
                watcher.deadline = now + timeout_seconds
            watcher.next_bookmark = watcher._next_bookmark_time(now, self.bookmark_frequency)
            # Registered under the cache lock: no event falls between the start and the queue.
            with self._watch_lock:
                if self._stopping.is_set():
                    watcher._stopped = True
                    return watcher
                watcher._id = self._next_id
                self._next_id += 1
                self._watchers.setdefault(prepared, {})[watcher._id] = watcher
                if allow_watch_bookmarks and watcher.next_bookmark is not None:
                    self._bookmark_watchers[watcher._id] = watcher
        return watcher

    def _interval_locked(self, rv: int, key: str, recursive: bool,
                         send_initial_events: bool | None) -> tuple[list[_Event], int]:
        """Go's ``getAllEventsSinceLocked``: the events a new watcher starts with, and the
        revision they bring it to."""
        if send_initial_events or (rv == 0 and send_initial_events is None):
            return self._state_events_locked(key, recursive), self._rv
        if rv == 0:
            rv = self._rv
        if self._end == self._start and self._removed_since_relist:
            raise KCodecError("watch cache isn't correctly initialized")
        oldest = max(self._oldest_locked(), self._compacted)
        if rv < oldest:
            raise ResourceExpiredError(f"too old resource version: {rv} ({oldest})", compact_revision=self._compacted)
        ring, cap = self._ring, self.capacity
        lo, hi = self._start, self._end
        while lo < hi:  # first event after rv
            mid = (lo + hi) // 2
            if ring[mid % cap].rv > rv:  # type: ignore[union-attr]
                hi = mid
            else:
                lo = mid + 1
        scopes = None if recursive else key
        events = [ring[n % cap] for n in range(lo, self._end)]
        if scopes is not None:
            events = [e for e in events if e.key == key]  # type: ignore[union-attr]
        elif key != self._prefix:
            events = [e for e in events if e.key.startswith(key)]  # type: ignore[union-attr]
        return events, rv  # type: ignore[return-value]

    def _state_events_locked(self, key: str, recursive: bool) -> list[_Event]:
        if not recursive:
            obj = self._objects.get(key)
            return [] if obj is None else [_Event(ADDED, key, obj, None, 0)]
        keys = self._keys
        i = bisect.bisect_left(keys, key)
        j = bisect.bisect_left(keys, _str_prefix_end(key), i)
        objects = self._objects
        return [_Event(ADDED, k, objects[k], None, 0) for k in keys[i:j]]

    # ------------------------------------------------------------------ writes

    def _cached_copy(self, key: str) -> Any:
        obj = self._objects.get(self.storage.prepare_key(key))
        # Go's delegator deep-copies: the storage hands the suggestion to try_update.
        return obj.deep_copy() if obj is not None else None

    def create(self, key: str, obj: Any, *, ttl: int = 0) -> Any:
        """Create through the storage (:meth:`Store.create`)."""
        return self.storage.create(key, obj, ttl=ttl)

    def delete(self, key: str, *, preconditions: Preconditions | None = None,
               validate_deletion: Callable[[Any], None] | None = None,
               cached_existing_object: Any = None) -> Any:
        """Delete through the storage, suggesting the cached object (Go's delegator)."""
        return self.storage.delete(key, preconditions=preconditions, validate_deletion=validate_deletion,
                                   cached_existing_object=self._cached_copy(key))

    def guaranteed_update(self, key: str, try_update: Callable[[Any], Any], *,
                          preconditions: Preconditions | None = None, ignore_not_found: bool = False,
                          cached_existing_object: Any = None,
                          ttl_func: Callable[[Any], int] | None = None) -> Any:
        """Update through the storage, suggesting the cached object (Go's delegator)."""
        return self.storage.guaranteed_update(key, try_update, preconditions=preconditions,
                                              ignore_not_found=ignore_not_found,
                                              cached_existing_object=self._cached_copy(key), ttl_func=ttl_func)

    def count(self, key_prefix: str) -> int:
        """How many keys there are under ``key_prefix`` (from the storage, as Go's Stats)."""
        return self.storage.count(key_prefix)

    def current_revision(self) -> int:
        """The storage's current revision."""
        return self.storage.current_revision()

    def compact(self, revision: int) -> None:
        """Compact the storage at ``revision``; the cache stops serving older revisions."""
        self.storage.compact(revision)
        self._note_compacted(revision)

