"""Real etcd servers for the tests: started on loopback with free ports and a temporary
data directory, stopped at the end of the session (or by the test that owns them).

Tests skip with a clear reason only when the ``etcd`` binary is missing; CI installs
Debian's ``etcd-server`` so they run there.
"""
from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

ETCD = shutil.which("etcd") or ("/usr/bin/etcd" if os.path.exists("/usr/bin/etcd") else None)


def require_etcd() -> str:
    if ETCD is None:
        pytest.skip("the etcd binary is not installed (apt-get install etcd-server); .ci/run installs it")
    try:
        import aetcd  # noqa: F401
        import grpc  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"the etcd backend's client is not installed (pip install 'kcodec[etcd]'): {exc}")
    return ETCD


def _free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class EtcdCluster:
    """``size`` etcd members on 127.0.0.1; ``endpoints`` lists their client URLs."""

    def __init__(self, size: int = 1, *, election_timeout_ms: int = 1000) -> None:
        self.binary = require_etcd()
        base = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self.dir = Path(tempfile.mkdtemp(prefix="kcodec-etcd-", dir=base))
        ports = _free_ports(2 * size)
        self.names = [f"m{i}" for i in range(size)]
        self.client_ports = ports[:size]
        self.peer_ports = ports[size:]
        self.endpoints = [f"http://127.0.0.1:{p}" for p in self.client_ports]
        self.election_timeout_ms = election_timeout_ms
        self.procs: dict[int, subprocess.Popen] = {}
        initial = ",".join(f"{n}=http://127.0.0.1:{p}" for n, p in zip(self.names, self.peer_ports))
        for i in range(size):
            self._start(i, initial)
        atexit.register(self.stop)
        self.wait_ready()

    def _start(self, i: int, initial: str) -> None:
        log = open(self.dir / f"{self.names[i]}.log", "ab")
        cmd = [
            self.binary, "--name", self.names[i], "--data-dir", str(self.dir / self.names[i]),
            "--listen-client-urls", self.endpoints[i], "--advertise-client-urls", self.endpoints[i],
            "--listen-peer-urls", f"http://127.0.0.1:{self.peer_ports[i]}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{self.peer_ports[i]}",
            "--initial-cluster", initial, "--initial-cluster-state", "new",
            "--initial-cluster-token", self.dir.name,
            "--heartbeat-interval", str(max(self.election_timeout_ms // 10, 50)),
            "--election-timeout", str(self.election_timeout_ms),
            "--logger", "zap", "--log-level", "warn",
        ]
        if shutil.which("setpriv"):
            # A test run killed with SIGKILL skips atexit; the kernel then stops etcd when this
            # (main) thread dies, instead of leaving it running. setpriv execs etcd: same pid.
            cmd = ["setpriv", "--pdeathsig", "TERM", "--", *cmd]
        self.procs[i] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()

    def wait_ready(self, timeout: float = 30.0) -> None:
        from kcodec.storage.etcd3 import Etcd3KV

        deadline = time.monotonic() + timeout
        for i, endpoint in enumerate(self.endpoints):
            if i not in self.procs:
                continue
            kv = Etcd3KV([endpoint], timeout=2.0)
            try:
                while True:
                    if self.procs[i].poll() is not None:
                        raise RuntimeError(f"etcd {self.names[i]} exited: {self.log(i)[-2000:]}")
                    try:
                        kv.current_revision()
                        break
                    except Exception:
                        if time.monotonic() > deadline:
                            raise RuntimeError(f"etcd {self.names[i]} not ready after {timeout}s: {self.log(i)[-2000:]}")
                        time.sleep(0.1)
            finally:
                kv.close()

    def log(self, i: int) -> str:
        try:
            return (self.dir / f"{self.names[i]}.log").read_text(errors="replace")
        except OSError:
            return ""

    def leader_index(self) -> int:
        from kcodec.storage.etcd3 import Etcd3KV

        for i, endpoint in enumerate(self.endpoints):
            if i not in self.procs:
                continue
            kv = Etcd3KV([endpoint], timeout=3.0)
            try:
                status = kv.status()
                if status.leader == status.header.member_id:
                    return i
            except Exception:
                continue
            finally:
                kv.close()
        raise RuntimeError("no etcd member reports itself leader")

    def kill(self, i: int) -> None:
        proc = self.procs.pop(i, None)
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)

    def stop(self) -> None:
        for i in list(self.procs):
            proc = self.procs.pop(i)
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


_shared: EtcdCluster | None = None


def shared_etcd() -> EtcdCluster:
    """One single-member etcd for the whole test session (stopped at exit)."""
    global _shared
    if _shared is None or not _shared.procs:
        _shared = EtcdCluster(1)
    return _shared


@pytest.fixture(scope="session")
def etcd_endpoints() -> list[str]:
    """The client URLs of the session's etcd (started on first use)."""
    cluster = shared_etcd()
    yield cluster.endpoints
    cluster.stop()
