"""The watch cache (kcodec.storage.cacher.Cacher) against its storage, on both backends.

- ``CacherList``: a list of CACHE_ITEMS fixture Pods (10,000) from the cache (consistent
  read: one ``current_revision()`` call, then memory; and at resourceVersion "0") against
  the same list read from the storage (``Store.get_list``: range read + decode). Target:
  the cache at least 5x faster.
- ``CacherWatch``: WATCHERS (100) watchers each reading WATCH_EVENTS (10,000) events
  from the ring buffer (``time_replay``: events/s is WATCHERS * WATCH_EVENTS / time), and
  live fan-out (``time_live``: LIVE_EVENTS writes dispatched to WATCHERS watchers read by
  one thread, as the asyncio server reads them; includes the storage writes).
- ``CacherMemory``: bytes the cache holds per object against the bytes of the decoded
  object alone (tracemalloc; target at most 1.5x).

The Pods are the Go-written fixture Pod (protobuf, as kube-apiserver stores it) under
``/pods/default``, written straight into the backend (``storage._Backend``). Setup raises
NotImplementedError (asv: skipped) when etcd, its client or the fixtures are missing.
Run directly for a quick table:

    cd asv_bench && python -m benchmarks.cacher [--items 10000] [--events 10000] [--repeat 3]
"""
from __future__ import annotations

import gc
import os
import threading
import time
import tracemalloc
from typing import Any

from . import _docs
from ._docs import MODES
from .storage import BACKENDS, _Backend

#: Pods in the cached collection (``KCODEC_BENCH_CACHE_ITEMS``).
CACHE_ITEMS: int = int(os.environ.get("KCODEC_BENCH_CACHE_ITEMS", "10000"))
#: Watchers of the fan-out benchmarks.
WATCHERS: int = int(os.environ.get("KCODEC_BENCH_CACHE_WATCHERS", "100"))
#: Events each watcher reads from the buffer.
WATCH_EVENTS: int = int(os.environ.get("KCODEC_BENCH_CACHE_EVENTS", "10000"))
#: Writes of the live fan-out run.
LIVE_EVENTS: int = int(os.environ.get("KCODEC_BENCH_CACHE_LIVE_EVENTS", "500"))


def _cacher(store: Any, prefix: str = "/pods", **kw: Any) -> Any:
    from kcodec.api.core import v1
    from kcodec.storage.cacher import Cacher

    c = Cacher(store, resource_prefix=prefix, new_func=v1.Pod, new_list_func=v1.PodList, **kw)
    if not c.wait_ready(120):
        raise RuntimeError(f"{c!r} did not become ready")
    return c


def _wait_rv(c: Any, rv: int, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while c.resource_version < rv:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{c!r} stuck below {rv}")
        time.sleep(0.01)


def _fill(b: _Backend, items: int, namespace: str = "default") -> None:
    """``items`` fixture Pods written straight into the backend by 4 threads (as
    ``_Backend.fill``, without its ConfigMap)."""
    kv = b.store.kv
    values = [(f"{b.store.path_prefix}pods/{namespace}/pod-{i:05d}".encode(), b.codec.encode(b.named(f"pod-{i:05d}")))
              for i in range(items)]
    threads = [threading.Thread(target=lambda c=values[i::4]: [kv.optimistic_put(k, v, 0) for k, v in c])
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


class CacherList:
    """Listing CACHE_ITEMS Pods: from the cache vs from the storage."""

    params = [MODES, BACKENDS]
    param_names = ["mode", "backend"]
    timeout = _docs.LONG_TIMEOUT

    def setup(self, mode: str, backend: str) -> None:
        _docs.use_mode(mode)
        self.b = _Backend(backend, CACHE_ITEMS)
        self.cacher = _cacher(self.b.store)
        _wait_rv(self.cacher, self.b.store.current_revision() - 1)  # all but the ConfigMap
        assert len(self.cacher.get_list("/pods/default").items) == CACHE_ITEMS

    def teardown(self, mode: str, backend: str) -> None:
        self.cacher.stop()
        self.b.close()

    def time_list_cache(self, mode: str, backend: str) -> None:
        self.cacher.get_list("/pods/default")

    def time_list_cache_rv0(self, mode: str, backend: str) -> None:
        self.cacher.get_list("/pods/default", resource_version="0")

    def time_list_storage(self, mode: str, backend: str) -> None:
        self.b.store.get_list("/pods/default")


class CacherWatch:
    """WATCHERS watchers x WATCH_EVENTS events from the buffer, and live fan-out."""

    params = [MODES, BACKENDS]
    param_names = ["mode", "backend"]
    timeout = _docs.LONG_TIMEOUT
    number = 1
    repeat = 3

    def setup(self, mode: str, backend: str) -> None:
        _docs.use_mode(mode)
        self.b = _Backend(backend, 0)
        store = self.b.store
        self.cacher = _cacher(store, capacity=WATCH_EVENTS + LIVE_EVENTS * 4 + 16,
                              watcher_buffer_size=1000)
        self.start = store.current_revision()
        # WATCH_EVENTS creates written straight into the backend (4 writer threads).
        _fill(self.b, WATCH_EVENTS)
        _wait_rv(self.cacher, store.current_revision() - 1)
        self.n = 0

    def teardown(self, mode: str, backend: str) -> None:
        self.cacher.stop()
        self.b.close()

    def time_replay(self, mode: str, backend: str) -> None:
        watchers = [self.cacher.watch("/pods", recursive=True, resource_version=str(self.start))
                    for _ in range(WATCHERS)]
        for w in watchers:
            for _ in range(WATCH_EVENTS):
                if w.next(30) is None:
                    raise RuntimeError("watch stalled")
            w.stop()

    def time_live(self, mode: str, backend: str) -> None:
        store = self.b.store
        rv = str(store.current_revision())
        watchers = [self.cacher.watch("/pods", recursive=True, resource_version=rv) for _ in range(WATCHERS)]
        wake = threading.Event()
        for w in watchers:
            w.set_notify(wake.set)
        kv = store.kv
        self.n += 1
        base = f"{store.path_prefix}pods/live{self.n}/"
        value = self.b.codec.encode(self.b.named("live"))

        def write() -> None:
            for i in range(LIVE_EVENTS):
                kv.optimistic_put(f"{base}p{i:05d}".encode(), value, 0)

        writer = threading.Thread(target=write)
        writer.start()
        counts = [0] * len(watchers)
        deadline = time.monotonic() + 300
        while min(counts) < LIVE_EVENTS:
            wake.wait(1.0)
            wake.clear()
            for i, w in enumerate(watchers):
                while w.next(0) is not None:
                    counts[i] += 1
            if time.monotonic() > deadline or any(w.dropped for w in watchers):
                raise RuntimeError(f"live fan-out stalled: {min(counts)} of {LIVE_EVENTS}")
        writer.join()
        for w in watchers:
            w.stop()


def _measure(fn: Any) -> tuple[int, Any]:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = fn()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return after - before, kept


class CacherMemory:
    """Bytes the cache keeps per object, against the decoded object alone."""

    params = [MODES, ["sqlite"]]
    param_names = ["mode", "backend"]
    timeout = _docs.LONG_TIMEOUT
    unit = "bytes"

    def setup(self, mode: str, backend: str) -> None:
        _docs.use_mode(mode)
        self.items = min(CACHE_ITEMS, 2000)  # tracemalloc slows decoding several-fold
        self.b = _Backend(backend, self.items)
        from kcodec.storage.kv import prefix_range_end

        start = (self.b.store.path_prefix + "pods/default/").encode()
        self.kvs = self.b.store.kv.range(start, prefix_range_end(start)).kvs
        decode = self.b.store.decode_value
        for kv in self.kvs:  # warm the codec's own caches: neither side should pay for them
            decode(kv)
        self.decoded, _ = _measure(lambda: [decode(kv) for kv in self.kvs])
        self.cached, self.cacher = _measure(lambda: _cacher(self.b.store, "/pods/default"))

    def teardown(self, mode: str, backend: str) -> None:
        self.cacher.stop()
        self.b.close()

    def track_decoded_bytes_per_object(self, mode: str, backend: str) -> float:
        return self.decoded / self.items

    def track_cached_bytes_per_object(self, mode: str, backend: str) -> float:
        return self.cached / self.items

    track_cached_bytes_per_object.unit = "bytes"  # type: ignore[attr-defined]
    track_decoded_bytes_per_object.unit = "bytes"  # type: ignore[attr-defined]

    def track_cached_over_decoded(self, mode: str, backend: str) -> float:
        return self.cached / self.decoded

    track_cached_over_decoded.unit = "ratio"  # type: ignore[attr-defined]


def _main(argv: list[str] | None = None) -> int:
    import argparse
    import statistics

    global CACHE_ITEMS, WATCH_EVENTS, WATCHERS, LIVE_EVENTS
    parser = argparse.ArgumentParser(description="watch cache benchmarks without asv (medians)")
    parser.add_argument("--items", type=int, default=CACHE_ITEMS)
    parser.add_argument("--events", type=int, default=WATCH_EVENTS)
    parser.add_argument("--watchers", type=int, default=WATCHERS)
    parser.add_argument("--live-events", type=int, default=LIVE_EVENTS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mode", choices=MODES, default="compiled")
    parser.add_argument("--backend", choices=BACKENDS, action="append")
    parser.add_argument("--only", choices=("list", "watch", "memory"), action="append")
    args = parser.parse_args(argv)
    CACHE_ITEMS, WATCH_EVENTS, WATCHERS, LIVE_EVENTS = args.items, args.events, args.watchers, args.live_events
    rows: list[tuple[str, str, str, str]] = []

    def timed(inst: Any, method: str, backend: str) -> float:
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            getattr(inst, method)(args.mode, backend)
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    def fmt(seconds: float) -> str:
        return f"{seconds * 1e3:.2f} ms" if seconds < 10 else f"{seconds:.1f} s"

    for backend in args.backend or BACKENDS:
        if not args.only or "list" in args.only:
            inst = CacherList()
            inst.setup(args.mode, backend)
            try:
                storage_t = timed(inst, "time_list_storage", backend)
                rows.append((backend, "CacherList.time_list_storage", fmt(storage_t), ""))
                for m in ("time_list_cache", "time_list_cache_rv0"):
                    t = timed(inst, m, backend)
                    rows.append((backend, f"CacherList.{m}", fmt(t), f"{storage_t / t:.1f}x faster than the storage"))
            finally:
                inst.teardown(args.mode, backend)
        if not args.only or "watch" in args.only:
            inst = CacherWatch()
            inst.setup(args.mode, backend)
            try:
                t = timed(inst, "time_replay", backend)
                rows.append((backend, f"CacherWatch.time_replay ({WATCHERS} x {WATCH_EVENTS})", fmt(t),
                             f"{WATCHERS * WATCH_EVENTS / t:,.0f} events/s"))
                t = timed(inst, "time_live", backend)
                rows.append((backend, f"CacherWatch.time_live ({WATCHERS} x {LIVE_EVENTS} writes)", fmt(t),
                             f"{WATCHERS * LIVE_EVENTS / t:,.0f} events/s delivered"))
            finally:
                inst.teardown(args.mode, backend)
        if (not args.only or "memory" in args.only) and backend == "sqlite":
            inst = CacherMemory()
            inst.setup(args.mode, backend)
            try:
                rows.append((backend, f"CacherMemory ({inst.items} Pods)",
                             f"{inst.track_cached_bytes_per_object(args.mode, backend):,.0f} B/object cached",
                             f"{inst.track_cached_over_decoded(args.mode, backend):.2f}x the decoded object "
                             f"({inst.track_decoded_bytes_per_object(args.mode, backend):,.0f} B)"))
            finally:
                inst.teardown(args.mode, backend)
    print(f"mode={args.mode} items={CACHE_ITEMS} watchers={WATCHERS} events={WATCH_EVENTS} live={LIVE_EVENTS}")
    print("| backend | benchmark | median | |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
