"""kcodec.storage.Store on both backends: create, get, list of 5000 Pods, guaranteed_update,
watch throughput; and where the time of a 5000-Pod list from etcd goes.

The stored Pod is the Go-written fixture Pod (``core.v1.Pod.pb``, as kube-apiserver stores
it: protobuf, storage version v1), renamed ``pod-<i>``. Each setup starts its own store: a
SQLite file in a temporary directory, or an etcd 3.4 member on loopback with its data in
/dev/shm (``KCODEC_BENCH_ETCD`` may name running endpoints instead). Setup raises
NotImplementedError (asv: skipped) when etcd, its client or the fixtures are missing.

``StoreList`` splits listing from etcd into the backend read (``time_range_raw``: the
etcd Range RPC, gRPC transport and protobuf parse of the 5000 values), the kcodec part
(``time_decode_values``: transform + decode of those values into Pods) and the whole
(``time_list``). Run directly for a quick table (under a minute, 300 pods by default):

    cd asv_bench && python -m benchmarks.storage [--items 5000] [--repeat 5]
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import uuid
from typing import Any

from . import _docs
from ._docs import MODES

#: Pods in the listed collection (``KCODEC_BENCH_STORE_ITEMS``).
STORE_ITEMS: int = int(os.environ.get("KCODEC_BENCH_STORE_ITEMS", "5000"))
#: Events each watch-throughput run consumes.
WATCH_EVENTS: int = int(os.environ.get("KCODEC_BENCH_WATCH_EVENTS", "1000"))
BACKENDS = ["sqlite", "etcd"]


class _Backend:
    """A store of one kind with ``items`` fixture Pods under /pods/default."""

    def __init__(self, backend: str, items: int) -> None:
        _docs.require_kcodec()
        self.cluster = None
        self.dir = None
        from kcodec.api import codecs
        from kcodec.schema import GroupVersion
        from kcodec.storage import StorageCodecConfig, new_storage_codec

        gv = GroupVersion("", "v1")
        self.codec = new_storage_codec(StorageCodecConfig("application/vnd.kubernetes.protobuf", codecs, gv, gv))
        self.pod, _ = self.codec.decode(_docs.fixture_bytes("pb"))
        self.pod.metadata.resource_version = ""
        if backend == "sqlite":
            from kcodec.storage.sqlite import SQLiteStore

            self.dir = tempfile.mkdtemp(prefix="kcodec-bench-")
            self.store = SQLiteStore(os.path.join(self.dir, "bench.db"), self.codec)
        else:
            self.store = self._etcd_store()
        self.fill(items)

    def _etcd_store(self) -> Any:
        try:
            import aetcd  # noqa: F401
            import grpc  # noqa: F401
        except ImportError as exc:
            raise NotImplementedError(f"etcd client not installed: {exc}") from None
        from kcodec.storage.etcd3 import Etcd3Store

        endpoints = os.environ.get("KCODEC_BENCH_ETCD", "")
        if not endpoints:
            if shutil.which("etcd") is None:
                raise NotImplementedError("the etcd binary is not installed")
            sys.path.insert(0, os.path.join(_docs.REPO_ROOT, "tests"))
            from _etcd import EtcdCluster

            self.cluster = EtcdCluster(1)
            endpoints = ",".join(self.cluster.endpoints)
        return Etcd3Store(endpoints, self.codec, prefix=f"/bench-{uuid.uuid4().hex[:8]}")

    def named(self, name: str) -> Any:
        p = self.pod.deep_copy()
        p.metadata.name = name
        p.metadata.namespace = "default"
        return p

    def fill(self, items: int) -> None:
        values = [(f"{self.store.path_prefix}pods/default/pod-{i:05d}".encode(), self.codec.encode(self.named(f"pod-{i:05d}")))
                  for i in range(items)]
        kv = self.store.kv
        chunks = [values[i::4] for i in range(4)]
        threads = [threading.Thread(target=lambda c=c: [kv.optimistic_put(k, v, 0) for k, v in c]) for c in chunks]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        from kcodec.api.core import v1
        from kcodec.api.meta import v1 as metav1

        self.store.create("/configmaps/default/counter",
                          v1.ConfigMap(metadata=metav1.ObjectMeta(name="counter", namespace="default"), data={"n": "0"}))

    def close(self) -> None:
        self.store.close()
        if self.cluster is not None:
            self.cluster.stop()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)


def _increment(cur: Any) -> Any:
    cur.data = {"n": str(int(cur.data["n"]) + 1)}
    return cur


class StoreOps:
    """Single operations on a store holding STORE_ITEMS Pods."""

    params = [MODES, BACKENDS]
    param_names = ["mode", "backend"]
    timeout = _docs.LONG_TIMEOUT
    number = 0

    def setup(self, mode: str, backend: str) -> None:
        _docs.use_mode(mode)
        self.b = _Backend(backend, min(STORE_ITEMS, 1000))
        self.n = 0
        self.new = self.b.named("new")

    def teardown(self, mode: str, backend: str) -> None:
        self.b.close()

    def time_create(self, mode: str, backend: str) -> None:
        self.n += 1
        # create leaves the object it is given alone: one object, renamed, serves every call.
        self.new.metadata.name = name = f"new-{self.n}"
        self.b.store.create(f"/pods/other/{name}", self.new)

    def time_get(self, mode: str, backend: str) -> None:
        self.b.store.get("/pods/default/pod-00000")

    def time_guaranteed_update(self, mode: str, backend: str) -> None:
        self.b.store.guaranteed_update("/configmaps/default/counter", _increment)


class StoreList:
    """Listing STORE_ITEMS Pods, and its split: backend read vs kcodec decode."""

    params = [MODES, BACKENDS]
    param_names = ["mode", "backend"]
    timeout = _docs.LONG_TIMEOUT

    def setup(self, mode: str, backend: str) -> None:
        _docs.use_mode(mode)
        self.b = _Backend(backend, STORE_ITEMS)
        from kcodec.storage.kv import prefix_range_end

        self.start = (self.b.store.path_prefix + "pods/default/").encode()
        self.end = prefix_range_end(self.start)
        self.kvs = self.b.store.kv.range(self.start, self.end).kvs
        assert len(self.kvs) == STORE_ITEMS

    def teardown(self, mode: str, backend: str) -> None:
        self.b.close()

    def time_list(self, mode: str, backend: str) -> None:
        self.b.store.get_list("/pods/default")

    def time_range_raw(self, mode: str, backend: str) -> None:
        self.b.store.kv.range(self.start, self.end)

    def time_decode_values(self, mode: str, backend: str) -> None:
        decode = self.b.store.decode_value
        for kv in self.kvs:
            decode(kv)


class StoreWatch:
    """Watch throughput: WATCH_EVENTS MODIFIED events of one ConfigMap, from a revision."""

    params = [MODES, BACKENDS]
    param_names = ["mode", "backend"]
    timeout = _docs.LONG_TIMEOUT

    def setup(self, mode: str, backend: str) -> None:
        _docs.use_mode(mode)
        self.b = _Backend(backend, 0)
        self.rev = str(self.b.store.current_revision())
        for _ in range(WATCH_EVENTS):
            self.b.store.guaranteed_update("/configmaps/default/counter", _increment)

    def teardown(self, mode: str, backend: str) -> None:
        self.b.close()

    def time_watch_events(self, mode: str, backend: str) -> None:
        with self.b.store.watch("/configmaps", resource_version=self.rev, recursive=True) as w:
            for _ in range(WATCH_EVENTS):
                if w.next(30) is None:
                    raise RuntimeError("watch stalled")


def _main(argv: list[str] | None = None) -> int:
    import argparse
    import statistics
    import time

    global STORE_ITEMS, WATCH_EVENTS
    parser = argparse.ArgumentParser(description="storage benchmarks without asv (medians)")
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mode", choices=MODES, default="compiled")
    parser.add_argument("--backend", choices=BACKENDS, action="append")
    parser.add_argument("--only", choices=("ops", "list", "watch"), action="append")
    args = parser.parse_args(argv)
    STORE_ITEMS, WATCH_EVENTS = args.items, args.events
    rows = []
    for backend in args.backend or BACKENDS:
        for cls, methods, per in ((StoreOps, ("time_create", "time_get", "time_guaranteed_update"), 1),
                                  (StoreList, ("time_range_raw", "time_decode_values", "time_list"), 1),
                                  (StoreWatch, ("time_watch_events",), WATCH_EVENTS)):
            if args.only and cls.__name__[5:].lower() not in args.only:
                continue
            inst = cls()
            inst.setup(args.mode, backend)
            try:
                for m in methods:
                    fn = getattr(inst, m)
                    reps = args.repeat if cls is not StoreOps else args.repeat * 40
                    times = []
                    for _ in range(reps):
                        t0 = time.perf_counter()
                        fn(args.mode, backend)
                        times.append(time.perf_counter() - t0)
                    med = statistics.median(times)
                    extra = f"{per / med:,.0f} events/s" if per > 1 else ""
                    rows.append((backend, f"{cls.__name__}.{m}", med, extra))
            finally:
                inst.teardown(args.mode, backend)
    print(f"mode={args.mode} items={STORE_ITEMS} events={WATCH_EVENTS}")
    print(f"| backend | benchmark | median | |\n|---|---|---|---|")
    for backend, name, med, extra in rows:
        unit = f"{med * 1e3:.2f} ms" if med >= 1e-3 else f"{med * 1e6:.0f} us"
        print(f"| {backend} | {name} | {unit} | {extra} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
