"""``kcodec serve`` over HTTP: create, get and list ConfigMaps with one keep-alive client.

The reference is kube-apiserver 1.36 (measured on this machine) with TLS, a bearer token and
Debian's etcd 3.4 on loopback, in a namespace of 500 ConfigMaps: create 3.0-3.3 ms and get 2.0-2.1 ms per request,
the list of 500 in 12.4-13.1 ms as JSON, 9.1 ms as protobuf, 13.7-14.7 ms as a Table. Here the
server is ``kcodec.testing.APIServer`` in the benchmark's process (its event loop and worker
threads share the interpreter with the client), with ``backend`` ``sqlite`` (``sqlite::memory:``,
plain HTTP) or ``etcd-tls`` (a one-member etcd started on loopback, ``--tls`` and a token, as
the reference); the namespace holds ``KCODEC_BENCH_SERVER_ITEMS`` ConfigMaps (500; the smoke
test uses the tiny list size).
"""
from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Any

from . import _docs
from ._docs import MODES

ITEMS: int = int(os.environ.get("KCODEC_BENCH_SERVER_ITEMS", "500"))

_TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
_PB = "application/vnd.kubernetes.protobuf"


def _configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"app": "bench"}},
            "data": {"key": "value", "other": "x" * 64}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Etcd:
    """A one-member etcd on loopback with a temporary data directory."""

    def __init__(self) -> None:
        binary = shutil.which("etcd")
        if binary is None:
            raise NotImplementedError("the etcd binary is not installed")
        self.dir = tempfile.mkdtemp(prefix="kcodec-bench-etcd-")
        client, peer = _free_port(), _free_port()
        self.url = f"http://127.0.0.1:{client}"
        self.proc = subprocess.Popen(
            [binary, "--data-dir", self.dir, "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
             "--listen-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-cluster", f"default=http://127.0.0.1:{peer}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", client), 0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("etcd did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


class ServerConfigMaps:
    """create / get / list (JSON, protobuf, Table) of ConfigMaps through the REST API."""

    params = [MODES, ["sqlite", "etcd-tls"]]
    param_names = ["mode", "backend"]
    timeout = 300.0
    number = 1
    repeat = (3, 20, 30.0)

    def setup(self, mode: str, backend: str) -> None:
        _docs.require_kcodec()
        try:
            import requests
        except ImportError:
            raise NotImplementedError("requests is not installed") from None
        _docs.use_mode(mode)
        from kcodec.testing import APIServer

        self.items = min(ITEMS, _docs.LIST_ITEMS)
        self.etcd = None
        self.http = requests.Session()
        self.http.trust_env = False  # the server's own CA, not the environment's bundle
        self._ca = None
        if backend == "etcd-tls":
            self.etcd = _Etcd()
            self.server = APIServer(f"etcd:{self.etcd.url}", tls=True, token="bench-token").start()
            fd, self._ca = tempfile.mkstemp(suffix=".pem")
            with os.fdopen(fd, "wb") as f:
                f.write(self.server.ca_pem)
            self.http.verify = self._ca
            self.http.headers["Authorization"] = "Bearer bench-token"
        else:
            self.server = APIServer().start()
        self.base = self.server.url + "/api/v1/namespaces/default/configmaps"
        for i in range(self.items):
            r = self.http.post(self.base, json=_configmap(f"cm-{i}"))
            r.raise_for_status()
        self.names = itertools.count()

    def teardown(self, mode: str, backend: str) -> None:
        self.http.close()
        self.server.stop()
        if self.etcd is not None:
            self.etcd.stop()
        if self._ca:
            os.unlink(self._ca)

    def time_create(self, mode: str, backend: str) -> None:
        r = self.http.post(self.base, json=_configmap(f"new-{next(self.names)}"))
        assert r.status_code == 201, r.text

    def time_get(self, mode: str, backend: str) -> None:
        r = self.http.get(self.base + "/cm-0")
        assert r.status_code == 200

    def time_list_json(self, mode: str, backend: str) -> None:
        r = self.http.get(self.base + "?labelSelector=app%3Dbench")
        assert r.status_code == 200

    def time_list_protobuf(self, mode: str, backend: str) -> None:
        r = self.http.get(self.base + "?labelSelector=app%3Dbench", headers={"Accept": _PB})
        assert r.status_code == 200

    def time_list_table(self, mode: str, backend: str) -> None:
        r = self.http.get(self.base + "?labelSelector=app%3Dbench", headers={"Accept": _TABLE})
        assert r.status_code == 200


def _main(argv: list[str] | None = None) -> int:
    """Each ``ServerConfigMaps`` timing outside asv: medians of ``--repeat`` runs of
    ``--number`` requests, after a warm-up, with the load average beside them."""
    import argparse
    import statistics

    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_server", description=__doc__.split("\n")[0])
    parser.add_argument("--mode", default="compiled", choices=MODES)
    parser.add_argument("--backend", action="append", choices=["sqlite", "etcd-tls"],
                        help="the backends to run (default: both)")
    parser.add_argument("--repeat", type=int, default=7, help="runs per operation (default 7)")
    parser.add_argument("--number", type=int, default=20, help="requests per run (default 20)")
    args = parser.parse_args(argv)
    ops = ("time_create", "time_get", "time_list_json", "time_list_protobuf", "time_list_table")
    for backend in args.backend or ["sqlite", "etcd-tls"]:
        bench = ServerConfigMaps()
        bench.setup(args.mode, backend)
        try:
            for op in ops:
                fn = getattr(bench, op)
                for _ in range(5):
                    fn(args.mode, backend)
                runs = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    for _ in range(args.number):
                        fn(args.mode, backend)
                    runs.append((time.perf_counter() - t0) / args.number)
                load = "%.2f" % os.getloadavg()[0]
                print(f"{backend:9} {op[5:]:14} median {statistics.median(runs) * 1e3:6.2f} ms  "
                      f"min {min(runs) * 1e3:6.2f} ms  (load {load})", flush=True)
        finally:
            bench.teardown(args.mode, backend)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
