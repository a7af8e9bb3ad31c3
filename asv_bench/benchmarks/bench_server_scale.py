"""``kcodec serve`` at scale, with the server in its own process as users run it.

- ``ServerKubectlApply``: ``kubectl apply -f`` of a manifest of APPLY_OBJECTS (200) mixed
  objects (80 ConfigMaps, 40 Deployments, 40 headless Services, 20 Secrets, 20
  ServiceAccounts; headless so that repeated runs do not exhaust the /24 Service CIDR)
  into a fresh namespace (``time_apply_create``: the namespace's own POST is in the
  time, one request of 201), and again into a namespace where they are already applied
  (``time_apply_unchanged``: kubectl reads each object, finds nothing to patch and prints
  ``unchanged``). The time includes kubectl's own start-up (discovery comes from its cache,
  warmed in setup).
- ``ServerPodList``: lists of LIST_PODS (10,000) Pods (three containers each, probes,
  resources, env, volumes: 9.5 KB of JSON a Pod as served, half of it managedFields) as
  JSON, protobuf and a Table, from
  the watch cache (a consistent read, as kubectl's). The Pods are created through the REST
  API once and the SQLite file kept in ``~/.cache/kcodec-bench`` (keyed by the count, the
  Pod and kcodec's version); each setup serves a copy.
- ``ServerWatchers``: WATCHERS (100) watches over HTTP (JSON) started at the same
  resourceVersion, each reading the WATCH_EVENTS (10,000) events that followed it (creates
  of ConfigMaps made in setup, replayed from the watch cache): events/s end to end is
  WATCHERS * WATCH_EVENTS / time (server encode and write, client read; the client counts
  lines and decodes each watcher's last event).
- ``ServerConfigMapsLoad``: in a namespace of 500 ConfigMaps, GET latency p50 / p99 under
  CLIENTS (50) concurrent keep-alive clients (``track_get_p50_50_clients``,
  ``track_get_p99_50_clients``, seconds; 40 GETs each) and 200 merge patches of one
  ConfigMap by one client, timed until a watcher (another connection) has seen the 200th
  MODIFIED event (``time_200_patches_watched``; kube-apiserver 1.36 with TLS, a token and
  etcd 3.4 on this kind of machine: 790-850 ms).
- ``ServerStartUp``: seconds from a fresh interpreter to ready (``track_serve_ready``:
  ``kcodec serve --storage sqlite::memory: --port 0`` to its URL line;
  ``track_apiserver_ready``: ``APIServer().start()`` returned). Target: at most 0.5 s.

The client runs in the benchmark process (``requests`` for one connection, aiohttp for
many); the server is ``python -m kcodec serve`` from this checkout, ``KCODEC_PURE=1`` in
pure mode. ``backend`` is ``sqlite`` (``--storage sqlite:FILE``, plain HTTP) or
``etcd-tls`` (a one-member etcd 3.4 on loopback, ``--tls`` and a token, as the
reference). The smoke test's tiny list size shrinks every count. Quick table without asv:

    cd asv_bench && python -m benchmarks.bench_server_scale [--only apply,pods,watch,load,start] [--repeat 3]
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from . import _docs
from ._docs import MODES
from .bench_server import _Etcd

APPLY_OBJECTS: int = int(os.environ.get("KCODEC_BENCH_SERVER_APPLY", "200"))
LIST_PODS: int = int(os.environ.get("KCODEC_BENCH_SERVER_PODS", "10000"))
WATCHERS: int = int(os.environ.get("KCODEC_BENCH_SERVER_WATCHERS", "100"))
WATCH_EVENTS: int = int(os.environ.get("KCODEC_BENCH_SERVER_EVENTS", "10000"))
CLIENTS: int = int(os.environ.get("KCODEC_BENCH_SERVER_CLIENTS", "50"))
#: GETs each concurrent client sends per measurement.
GETS_PER_CLIENT = 40
LOAD_ITEMS = 500
PATCHES = 200

_TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
_PB = "application/vnd.kubernetes.protobuf"
CACHE_DIR = Path(os.environ.get("KCODEC_BENCH_CACHE", Path.home() / ".cache" / "kcodec-bench"))


def _size(full: int) -> int:
    """``full``, or the smoke test's tiny size when the documents were built tiny."""
    return full if _docs.LIST_ITEMS >= 100 else max(2, min(full, _docs.LIST_ITEMS))


# -- the server process -------------------------------------------------------------------


class Serve:
    """``python -m kcodec serve`` in its own process, stopped with SIGTERM."""

    def __init__(self, mode: str, storage: str, *, tls: bool = False, token: str = "",
                 extra: tuple[str, ...] = ()) -> None:
        self.dir = tempfile.mkdtemp(prefix="kcodec-bench-serve-")
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(_docs.KCODEC_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        env.pop("KCODEC_PURE", None)
        if mode == "pure":
            env["KCODEC_PURE"] = "1"
        cmd = [sys.executable, "-m", "kcodec", "serve", "--storage", storage, "--port", "0",
               "--kubeconfig", self.kubeconfig, *extra]
        if tls:
            cmd.append("--tls")
        if token:
            cmd += ["--token", token]
        self.token = token
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        if "listening on " not in line:
            err = self.proc.stderr.read() if self.proc.poll() is not None else ""  # type: ignore[union-attr]
            self.stop()
            raise RuntimeError(f"kcodec serve did not start: {line!r} {err}")
        self.url = line.rsplit(" ", 1)[1].strip()
        self.ca = ""
        if tls:
            text = Path(self.kubeconfig).read_text()
            data = text.split("certificate-authority-data: ", 1)[1].split("\n", 1)[0]
            self.ca = os.path.join(self.dir, "ca.pem")
            Path(self.ca).write_bytes(base64.b64decode(data))

    def session(self) -> Any:
        """A ``requests`` session that reaches this server (its CA, its token)."""
        import requests

        http = requests.Session()
        http.trust_env = False
        if self.ca:
            http.verify = self.ca
        if self.token:
            http.headers["Authorization"] = f"Bearer {self.token}"
        return http

    def ssl(self) -> Any:
        """The ssl context for aiohttp clients (None for plain HTTP)."""
        if not self.ca:
            return None
        import ssl

        return ssl.create_default_context(cafile=self.ca)

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _requirements(mode: str) -> None:
    _docs.require_kcodec()
    try:
        import aiohttp  # noqa: F401
        import requests  # noqa: F401
    except ImportError:
        raise NotImplementedError("requests or aiohttp is not installed") from None
    _docs.use_mode(mode)


class _Backend:
    """``--storage`` (and TLS, token) for a backend parameter; an etcd to stop for etcd-tls."""

    def __init__(self, backend: str, sqlite_path: str = "") -> None:
        self.etcd: _Etcd | None = None
        self.tmp = ""
        if backend == "etcd-tls":
            self.etcd = _Etcd()
            self.storage, self.tls, self.token = f"etcd:{self.etcd.url}", True, "bench-token"
        elif backend == "sqlite":
            if not sqlite_path:
                self.tmp = tempfile.mkdtemp(prefix="kcodec-bench-db-")
                sqlite_path = os.path.join(self.tmp, "kcodec.db")
            self.storage, self.tls, self.token = f"sqlite:{sqlite_path}", False, ""
        else:
            raise ValueError(f"unknown backend {backend!r}")

    def serve(self, mode: str, extra: tuple[str, ...] = ()) -> Serve:
        return Serve(mode, self.storage, tls=self.tls, token=self.token, extra=extra)

    def stop(self) -> None:
        if self.etcd is not None:
            self.etcd.stop()
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)


def _post_all(server: Serve, url: str, bodies: list[dict[str, Any]], threads: int = 4) -> None:
    """POST every body (a few keep-alive connections in parallel); raise on any failure."""
    failures: list[str] = []

    def work(part: list[dict[str, Any]]) -> None:
        http = server.session()
        try:
            for body in part:
                r = http.post(url, json=body)
                if r.status_code != 201:
                    failures.append(r.text)
                    return
        finally:
            http.close()

    parts = [bodies[i::threads] for i in range(threads)]
    ts = [threading.Thread(target=work, args=(p,)) for p in parts if p]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if failures:
        raise RuntimeError(f"create failed: {failures[0]}")


# -- kubectl apply ---------------------------------------------------------------------------


def apply_manifest(n: int) -> str:
    """A YAML manifest of ``n`` mixed objects (no namespace: kubectl's ``-n`` places them)."""
    import yaml

    # 4 ConfigMaps, 2 Deployments, 2 Services, a Secret and a ServiceAccount in every 10
    cycle = ["ConfigMap"] * 4 + ["Deployment"] * 2 + ["Service"] * 2 + ["Secret", "ServiceAccount"]
    seen: dict[str, int] = {}
    docs: list[dict[str, Any]] = []
    for j in range(n):
        kind = cycle[j % len(cycle)]
        i = seen[kind] = seen.get(kind, -1) + 1
        name = f"{kind.lower()}-{i}"
        labels = {"app.kubernetes.io/name": f"app-{i % 10}", "app.kubernetes.io/part-of": "bench"}
        meta = {"name": name, "labels": labels}
        if kind == "ConfigMap":
            docs.append({"apiVersion": "v1", "kind": kind, "metadata": meta,
                         "data": {"config.yaml": f"replicas: {i}\nlevel: info\n" + "x: y\n" * 20,
                                  "feature": "on"}})
        elif kind == "Secret":
            # data, not stringData: stringData is write-only, so every re-apply would patch it
            docs.append({"apiVersion": "v1", "kind": kind, "metadata": meta, "type": "Opaque",
                         "data": {"password": base64.b64encode(f"secret-{i}".encode()).decode(),
                                  "user": "YWRtaW4="}})
        elif kind == "ServiceAccount":
            docs.append({"apiVersion": "v1", "kind": kind, "metadata": meta})
        elif kind == "Service":
            docs.append({"apiVersion": "v1", "kind": kind, "metadata": meta, "spec": {
                "clusterIP": "None", "selector": labels,
                "ports": [{"name": "http", "port": 80, "targetPort": 8080},
                          {"name": "metrics", "port": 9090, "targetPort": "metrics"}]}})
        else:
            docs.append({"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": {
                "replicas": 2, "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": pod_spec(i, containers=2)}}})
    return yaml.safe_dump_all(docs, sort_keys=False)


class ServerKubectlApply:
    """``kubectl apply -f`` of APPLY_OBJECTS objects: into a new namespace, and unchanged."""

    params = [MODES, ["sqlite", "etcd-tls"]]
    param_names = ["mode", "backend"]
    timeout = 600.0
    number = 1
    repeat = (3, 10, 60.0)

    def setup(self, mode: str, backend: str) -> None:
        _requirements(mode)
        self.kubectl = shutil.which("kubectl")
        if self.kubectl is None:
            raise NotImplementedError("kubectl is not installed")
        self.backend = _Backend(backend)
        try:
            self.server = self.backend.serve(mode)
        except BaseException:
            self.backend.stop()
            raise
        self.http = self.server.session()
        self.manifest = os.path.join(self.server.dir, "manifest.yaml")
        Path(self.manifest).write_text(apply_manifest(_size(APPLY_OBJECTS)))
        self.cache = os.path.join(self.server.dir, "kubectl-cache")
        self.names = itertools.count()
        self.applied = self._namespace()
        self._apply(self.applied)  # also fills kubectl's discovery cache

    def teardown(self, mode: str, backend: str) -> None:
        self.http.close()
        self.server.stop()
        self.backend.stop()

    def _namespace(self) -> str:
        name = f"apply-{next(self.names)}"
        r = self.http.post(self.server.url + "/api/v1/namespaces",
                           json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        assert r.status_code == 201, r.text
        return name

    def _apply(self, namespace: str) -> str:
        run = subprocess.run([self.kubectl, "--kubeconfig", self.server.kubeconfig, "--cache-dir", self.cache,
                              "-n", namespace, "apply", "-f", self.manifest],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        return run.stdout

    def time_apply_create(self, mode: str, backend: str) -> None:
        out = self._apply(self._namespace())
        assert out.count(" created") == _size(APPLY_OBJECTS), out

    def time_apply_unchanged(self, mode: str, backend: str) -> None:
        out = self._apply(self.applied)
        assert out.count(" unchanged") == _size(APPLY_OBJECTS), out


# -- lists of Pods ---------------------------------------------------------------------------


def pod_spec(i: int, containers: int = 3) -> dict[str, Any]:
    """A realistic Pod spec: an app container with its sidecars, probes, resources, env, volumes."""
    out: list[dict[str, Any]] = []
    for c in range(containers):
        out.append({
            "name": ["app", "proxy", "log-shipper"][c % 3] + ("" if c < 3 else f"-{c}"),
            "image": f"registry.example.com/team/service-{c}:v1.{i % 50}.3",
            "args": ["--config=/etc/app/config.yaml", f"--shard={i % 16}", "--log-level=info"],
            "ports": [{"name": f"http-{c}", "containerPort": 8080 + c, "protocol": "TCP"}],
            "env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                    {"name": "GOMAXPROCS", "value": "2"},
                    {"name": "FEATURE_FLAGS", "value": "alpha,beta,gamma"}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
            "volumeMounts": [{"name": "config", "mountPath": "/etc/app", "readOnly": True},
                             {"name": "scratch", "mountPath": "/tmp"}],
            "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080 + c}, "periodSeconds": 10},
            "readinessProbe": {"httpGet": {"path": "/readyz", "port": 8080 + c}, "initialDelaySeconds": 2},
            "securityContext": {"runAsNonRoot": True, "readOnlyRootFilesystem": True,
                                "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
        })
    return {
        "containers": out,
        "volumes": [{"name": "config", "configMap": {"name": f"config-{i % 10}"}},
                    {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}],
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "bench", "effect": "NoSchedule"}],
        "terminationGracePeriodSeconds": 30,
    }


def bench_pod(i: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"pod-{i}", "labels": {"app": "bench", "shard": str(i % 16)},
                         "annotations": {"example.com/revision": str(i % 7)}},
            "spec": pod_spec(i)}


def _fill_pods_db(db: str, n: int) -> None:
    """Create ``n`` Pods in ``default`` through the REST API of a server on SQLite file ``db``."""
    server = Serve("compiled" if _docs.speedups.available() else "pure", f"sqlite:{db}")
    try:
        _post_all(server, server.url + "/api/v1/namespaces/default/pods", [bench_pod(i) for i in range(n)])
    finally:
        server.stop()


def _pods_db(n: int) -> Path:
    """A SQLite file holding ``n`` Pods in ``default``, made once (``CACHE_DIR``) and reused."""
    import kcodec

    key = hashlib.sha256(json.dumps([bench_pod(0), n, kcodec.__version__]).encode()).hexdigest()[:12]
    path = CACHE_DIR / f"server-pods-{n}-{key}.db"
    if path.is_file():
        return path
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="kcodec-bench-pods-", dir=CACHE_DIR)
    try:
        db = os.path.join(tmp, "kcodec.db")
        _fill_pods_db(db, n)
        os.replace(db, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path


class ServerPodList:
    """GET of LIST_PODS Pods as JSON, protobuf and a Table (consistent read from the cache)."""

    params = [MODES]
    param_names = ["mode"]
    timeout = 1800.0
    number = 1
    repeat = (3, 10, 60.0)

    def setup(self, mode: str) -> None:
        _requirements(mode)
        self.items = _size(LIST_PODS)
        self.backend = _Backend("sqlite")
        db = self.backend.storage[len("sqlite:"):]
        if self.items >= 1000:
            shutil.copyfile(_pods_db(self.items), db)
        else:  # the smoke test's few Pods: not worth a cache file
            _fill_pods_db(db, self.items)
        try:
            self.server = self.backend.serve(mode)
        except BaseException:
            self.backend.stop()
            raise
        self.http = self.server.session()
        self.url = self.server.url + "/api/v1/namespaces/default/pods"
        r = self.http.get(self.url)  # waits for the watch cache's first list
        assert r.status_code == 200 and len(r.json()["items"]) == self.items, r.text[:500]

    def teardown(self, mode: str) -> None:
        self.http.close()
        self.server.stop()
        self.backend.stop()

    def _get(self, accept: str | None) -> bytes:
        r = self.http.get(self.url, headers={"Accept": accept} if accept else None)
        assert r.status_code == 200, r.text[:500]
        return r.content

    def time_list_json(self, mode: str) -> None:
        self._get(None)

    def time_list_protobuf(self, mode: str) -> None:
        self._get(_PB)

    def time_list_table(self, mode: str) -> None:
        self._get(_TABLE)


# -- watchers --------------------------------------------------------------------------------


async def _watch_all(server: Serve, url: str, watchers: int, events: int) -> None:
    """``watchers`` concurrent watches of ``url``, each read until ``events`` events arrived."""
    import aiohttp

    connector = aiohttp.TCPConnector(limit=0, ssl=server.ssl() or False)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=120)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout, headers=server.headers()) as session:
        async def one() -> bytes:
            seen, tail = 0, b""
            async with session.get(url) as resp:
                assert resp.status == 200, await resp.text()
                async for chunk in resp.content.iter_any():
                    seen += chunk.count(b"\n")
                    tail = (tail + chunk)[-65536:]
                    if seen >= events:
                        break
            assert seen == events, (seen, events)
            return tail

        tails = await asyncio.gather(*(one() for _ in range(watchers)))
    last = json.loads(tails[0].rstrip(b"\n").rsplit(b"\n", 1)[-1])
    assert last["type"] == "ADDED" and last["object"]["metadata"]["name"] == f"ev-{events - 1}", last


class ServerWatchers:
    """WATCHERS watches over HTTP each receiving WATCH_EVENTS events from the watch cache."""

    params = [MODES]
    param_names = ["mode"]
    timeout = 1800.0
    number = 1
    repeat = (3, 10, 120.0)

    def setup(self, mode: str) -> None:
        _requirements(mode)
        self.watchers, self.events = _size(WATCHERS), _size(WATCH_EVENTS)
        self.backend = _Backend("sqlite")
        try:
            self.server = self.backend.serve(mode, extra=("--watch-cache-sizes", f"configmaps#{self.events + 100}"))
        except BaseException:
            self.backend.stop()
            raise
        base = self.server.url + "/api/v1/namespaces/default/configmaps"
        http = self.server.session()
        try:
            r = http.get(base)
            assert r.status_code == 200, r.text
            rv = r.json()["metadata"]["resourceVersion"]
        finally:
            http.close()
        # created in order by one client, so that every watcher's last event is the last create
        _post_all(self.server, base, [{"apiVersion": "v1", "kind": "ConfigMap",
                                       "metadata": {"name": f"ev-{i}", "labels": {"app": "bench"}},
                                       "data": {"key": f"value-{i}"}} for i in range(self.events)], threads=1)
        self.url = f"{base}?watch=1&resourceVersion={rv}"

    def teardown(self, mode: str) -> None:
        self.server.stop()
        self.backend.stop()

    def time_watch_replay(self, mode: str) -> None:
        asyncio.run(_watch_all(self.server, self.url, self.watchers, self.events))


# -- 500 ConfigMaps under load ----------------------------------------------------------------


class ServerConfigMapsLoad:
    """GET latency under CLIENTS concurrent clients; PATCHES merge patches seen by a watcher."""

    params = [MODES, ["sqlite", "etcd-tls"]]
    param_names = ["mode", "backend"]
    timeout = 600.0
    number = 1
    repeat = (3, 10, 60.0)
    unit = "seconds"

    def setup(self, mode: str, backend: str) -> None:
        _requirements(mode)
        self.backend = _Backend(backend)
        try:
            self.server = self.backend.serve(mode)
        except BaseException:
            self.backend.stop()
            raise
        self.base = self.server.url + "/api/v1/namespaces/default/configmaps"
        self.items = _size(LOAD_ITEMS)
        _post_all(self.server, self.base, [
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}", "labels": {"app": "bench"}},
             "data": {"key": "value", "other": "x" * 64}} for i in range(self.items)])
        self.http = self.server.session()
        self.patches = itertools.count()

    def teardown(self, mode: str, backend: str) -> None:
        self.http.close()
        self.server.stop()
        self.backend.stop()

    def _latencies(self) -> list[float]:
        import aiohttp

        clients, each, items = _size(CLIENTS), GETS_PER_CLIENT, self.items

        async def run() -> list[float]:
            out: list[float] = []
            async def client(c: int) -> None:
                connector = aiohttp.TCPConnector(limit=1, ssl=self.server.ssl() or False)
                async with aiohttp.ClientSession(connector=connector, headers=self.server.headers()) as s:
                    for k in range(each):
                        t0 = time.perf_counter()
                        async with s.get(f"{self.base}/cm-{(c * each + k) % items}") as r:
                            await r.read()
                            assert r.status == 200
                        out.append(time.perf_counter() - t0)
            await asyncio.gather(*(client(c) for c in range(clients)))
            return out

        return asyncio.run(run())

    def track_get_p50_50_clients(self, mode: str, backend: str) -> float:
        return statistics.median(self._latencies())

    def track_get_p99_50_clients(self, mode: str, backend: str) -> float:
        lat = sorted(self._latencies())
        return lat[min(len(lat) - 1, int(len(lat) * 0.99))]

    def time_200_patches_watched(self, mode: str, backend: str) -> None:
        import requests

        name = f"cm-{next(self.patches) % self.items}"
        r = self.http.get(f"{self.base}/{name}")
        rv = r.json()["metadata"]["resourceVersion"]
        n = _size(PATCHES)
        seen = threading.Event()
        failure: list[str] = []

        def watch() -> None:
            w = self.server.session()
            try:
                resp = w.get(f"{self.base}?watch=1&resourceVersion={rv}&fieldSelector=metadata.name%3D{name}",
                             stream=True, timeout=60)
                count = 0
                for line in resp.iter_lines():
                    if line and json.loads(line)["type"] == "MODIFIED":
                        count += 1
                        if count == n:
                            seen.set()
                            break
                resp.close()
            except requests.RequestException as err:
                failure.append(repr(err))
            finally:
                w.close()
                seen.set()

        t = threading.Thread(target=watch)
        t.start()
        headers = {"Content-Type": "application/merge-patch+json"}
        for i in range(n):
            r = self.http.patch(f"{self.base}/{name}", data=json.dumps({"data": {"counter": str(i)}}), headers=headers)
            assert r.status_code == 200, r.text
        assert seen.wait(60) and not failure, failure
        t.join()


# -- start-up ---------------------------------------------------------------------------------


def ready_after(mode: str, code: str | None = None) -> float:
    """Seconds from starting a fresh interpreter to its URL line: ``kcodec serve --storage
    sqlite::memory: --port 0`` by default, else the Python ``code`` (which prints one line
    with ``listening`` once its server is ready, then waits for stdin to close)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(_docs.KCODEC_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("KCODEC_PURE", None)
    if mode == "pure":
        env["KCODEC_PURE"] = "1"
    cmd = ([sys.executable, "-c", code] if code else
           [sys.executable, "-m", "kcodec", "serve", "--storage", "sqlite::memory:", "--port", "0"])
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        took = time.perf_counter() - t0
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=30)
    if "listening" not in line:
        raise RuntimeError(f"no URL line: {line!r} {err}")
    return took


_APISERVER = ("from kcodec.testing import APIServer\n"
              "server = APIServer().start()\n"
              "print('listening on', server.url, flush=True)\n"
              "import sys\n"
              "sys.stdin.read()\n"
              "server.stop()\n")


class ServerStartUp:
    """Cold start to ready: ``kcodec serve`` (SQLite in memory) to its URL line, and
    ``kcodec.testing.APIServer().start()`` in a fresh interpreter. Target: 0.5 s."""

    params = [MODES]
    param_names = ["mode"]
    timeout = 300.0
    repeat = (5, 10, 30.0)
    unit = "seconds"

    def setup(self, mode: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)

    def track_serve_ready(self, mode: str) -> float:
        return ready_after(mode)

    def track_apiserver_ready(self, mode: str) -> float:
        return ready_after(mode, _APISERVER)


# -- without asv -----------------------------------------------------------------------------


def _main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_server_scale", description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="apply,pods,watch,load,start",
                        help="comma-separated: apply,pods,watch,load,start")
    parser.add_argument("--mode", default="compiled", choices=MODES)
    parser.add_argument("--backend", action="append", choices=["sqlite", "etcd-tls"],
                        help="backends of apply and load (default: both)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    only = set(args.only.split(","))
    backends = args.backend or ["sqlite", "etcd-tls"]
    rows: list[tuple[str, str, str]] = []

    def timed(fn: Any) -> float:
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    def fmt(s: float) -> str:
        return f"{s * 1e3:.1f} ms" if s < 10 else f"{s:.1f} s"

    def load() -> str:
        return "load %.2f %.2f %.2f" % os.getloadavg()

    cases: list[tuple[str, type, tuple[str, ...]]] = []
    if "apply" in only:
        cases += [("apply", ServerKubectlApply, (b,)) for b in backends]
    if "pods" in only:
        cases.append(("pods", ServerPodList, ()))
    if "watch" in only:
        cases.append(("watch", ServerWatchers, ()))
    if "load" in only:
        cases += [("load", ServerConfigMapsLoad, (b,)) for b in backends]
    if "start" in only:
        cases.append(("start", ServerStartUp, ()))
    for _, cls, extra in cases:
        inst = cls()
        params = (args.mode, *extra)
        inst.setup(*params)
        try:
            for method in _docs.bench_methods(cls):
                fn = getattr(inst, method)
                label = f"{cls.__name__}.{method} {' '.join(extra)}".strip()
                if method.startswith("track_"):
                    vals = [fn(*params) for _ in range(args.repeat if cls is not ServerStartUp else 2 * args.repeat + 1)]
                    rows.append((label, fmt(statistics.median(vals)), load()))
                else:
                    t = timed(lambda: fn(*params))
                    note = load()
                    if cls is ServerWatchers:
                        note += f"; {inst.watchers * inst.events / t:,.0f} events/s"
                    rows.append((label, fmt(t), note))
                print(f"| {' | '.join(rows[-1])} |", flush=True)
        finally:
            inst.teardown(*params)
    print(f"mode={args.mode} apply={_size(APPLY_OBJECTS)} pods={_size(LIST_PODS)} watchers={_size(WATCHERS)} "
          f"events={_size(WATCH_EVENTS)} clients={_size(CLIENTS)}")
    print("| benchmark | median | |\n|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
