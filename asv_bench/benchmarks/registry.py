"""The registry (kcodec.registry.generic.Store over kcodec.storage) on both backends:
create and update throughput through the registry, and what share of it is the backend.

Each operation is measured twice: through the registry (``time_registry_create``:
system fields, strategy, metadata validation, storage codec, transaction) and as the bare
storage write of an equivalent object (``time_storage_create``: codec + transaction), so
``registry - storage`` is what the registry layer adds and ``storage`` what the codec and
backend cost. The object is the Go-written fixture Pod (protobuf, internal version in
memory, as kube-apiserver holds it) renamed per call; updates change one label of one Pod.
The Pod is a typical workload Pod (two containers with ports, env, resources, probes and
volume mounts, a ConfigMap volume; the Go fixture Pod holds placeholder values that
validation refuses), decoded as a request is (defaults, internal version).

The stores are the ones kube-apiserver's storage factory configures (protobuf, v1 on
disk) without the watch cache, so the figures are the write path only. Each setup starts
its own store: a SQLite file, or an etcd 3.4 member on loopback (``KCODEC_BENCH_ETCD`` may
name running endpoints instead); setup raises NotImplementedError (asv: skipped) when etcd,
its client or the fixtures are missing. Quick table without asv:

    cd asv_bench && python -m benchmarks.registry [--repeat 200] [--backend sqlite]
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import uuid
from typing import Any

from . import _docs
from ._docs import MODES

BACKENDS = ["sqlite", "etcd"]

_CONTAINER = {
    "image": "registry.example.com/app:1.2.3",
    "ports": [{"name": "http", "containerPort": 8080}, {"name": "metrics", "containerPort": 9090}],
    "env": [{"name": f"VAR_{i}", "value": f"value-{i}"} for i in range(8)]
    + [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
    "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 5},
    "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
    "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}],
}
_POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "template", "namespace": "default", "labels": {"app": "bench", "tier": "web"},
                 "annotations": {"example.com/owner": "team-a"}},
    "spec": {"containers": [dict(_CONTAINER, name="app"), dict(_CONTAINER, name="sidecar")],
             "volumes": [{"name": "config", "configMap": {"name": "app-config"}}]},
}


class _Registry:
    """A Pods Store of the registry on ``backend``, and a fixture Pod in the internal version."""

    def __init__(self, backend: str) -> None:
        _docs.require_kcodec()
        self.cluster = None
        self.dir = None
        from kcodec import legacyscheme
        from kcodec.registry.builtin import new_store, resource_info
        from kcodec.registry.generic import RESTOptionsGetter
        from kcodec.storage import StorageConfig, kube_apiserver_storage_factory

        if backend == "sqlite":
            self.dir = tempfile.mkdtemp(prefix="kcodec-bench-registry-")
            servers = [f"sqlite:{os.path.join(self.dir, 'bench.db')}"]
        else:
            servers = self._etcd_endpoints()
        factory = kube_apiserver_storage_factory(storage_config=StorageConfig(
            prefix=f"/bench-{uuid.uuid4().hex[:8]}", server_list=servers))
        self.getter = RESTOptionsGetter(factory, enable_watch_cache=False)
        self.store = new_store(resource_info("", "pods"), self.getter)
        import json

        decoder = legacyscheme.codecs.universal_decoder()
        self.pod, _ = decoder.decode(json.dumps(_POD).encode())

    def _etcd_endpoints(self) -> list[str]:
        try:
            import aetcd  # noqa: F401
            import grpc  # noqa: F401
        except ImportError as exc:
            raise NotImplementedError(f"etcd client not installed: {exc}") from None
        endpoints = os.environ.get("KCODEC_BENCH_ETCD", "")
        if endpoints:
            return endpoints.split(",")
        if shutil.which("etcd") is None:
            raise NotImplementedError("the etcd binary is not installed")
        sys.path.insert(0, os.path.join(_docs.REPO_ROOT, "tests"))
        from _etcd import EtcdCluster

        self.cluster = EtcdCluster(1)
        return list(self.cluster.endpoints)

    def named(self, name: str) -> Any:
        p = self.pod.deep_copy()
        p.metadata.name = name
        return p

    def close(self) -> None:
        self.getter.close()
        if self.cluster is not None:
            self.cluster.stop()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)


class RegistryWrites:
    """Create and update one Pod: through the registry, and the storage write alone."""

    params = [MODES, BACKENDS]
    param_names = ["mode", "backend"]
    timeout = _docs.LONG_TIMEOUT
    number = 0

    def setup(self, mode: str, backend: str) -> None:
        _docs.use_mode(mode)
        from kcodec.registry.request import Context

        self.r = _Registry(backend)
        self.ctx = Context(namespace="default")
        self.n = 0
        self.current = self.r.store.create(self.ctx, self.r.named("updated"))
        self.prepared = self.r.store.create(self.ctx, self.r.named("template"))
        self.flip = False

    def teardown(self, mode: str, backend: str) -> None:
        self.r.close()

    def time_registry_create(self, mode: str, backend: str) -> None:
        self.n += 1
        self.r.store.create(self.ctx, self.r.named(f"r-{self.n}"))

    def time_storage_create(self, mode: str, backend: str) -> None:
        # the object the registry would write (system fields set), written by the storage alone
        self.n += 1
        obj = self.prepared.deep_copy()
        obj.metadata.name = name = f"s-{self.n}"
        obj.metadata.resource_version = ""
        self.r.store.storage.create(f"/pods/default/{name}", obj)

    def time_registry_update(self, mode: str, backend: str) -> None:
        from kcodec.registry import rest

        obj = self.current.deep_copy()
        self.flip = not self.flip
        obj.metadata.labels = {"app": "bench", "flip": str(self.flip).lower()}
        self.current, _ = self.r.store.update(self.ctx, "updated", rest.DefaultUpdatedObjectInfo(obj))

    def time_storage_update(self, mode: str, backend: str) -> None:
        flip = self.flip = not self.flip

        def change(cur: Any) -> Any:
            cur.metadata.labels = {"app": "bench", "flip": str(flip).lower()}
            return cur

        self.current = self.r.store.storage.guaranteed_update("/pods/default/updated", change)


def _main(argv: list[str] | None = None) -> int:
    import argparse
    import statistics
    import time

    parser = argparse.ArgumentParser(description="registry write benchmarks without asv (medians)")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--mode", choices=MODES, default="compiled")
    parser.add_argument("--backend", choices=BACKENDS, action="append")
    args = parser.parse_args(argv)
    rows = []
    for backend in args.backend or BACKENDS:
        inst = RegistryWrites()
        inst.setup(args.mode, backend)
        try:
            for m in ("time_registry_create", "time_storage_create", "time_registry_update", "time_storage_update"):
                fn = getattr(inst, m)
                times = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    fn(args.mode, backend)
                    times.append(time.perf_counter() - t0)
                med = statistics.median(times)
                rows.append((backend, m, med))
        finally:
            inst.teardown(args.mode, backend)
    print(f"mode={args.mode} repeat={args.repeat}")
    print("| backend | benchmark | median | per second |\n|---|---|---|---|")
    for backend, name, med in rows:
        print(f"| {backend} | {name} | {med * 1e3:.3f} ms | {1 / med:,.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
