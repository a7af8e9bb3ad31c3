"""Running the real kubectl (v1.32 on these machines' PATH) against a test server.

Tests that need kubectl skip, naming it, where it is not installed.
"""
from __future__ import annotations

import shutil
import subprocess
import time

import pytest

KUBECTL = shutil.which("kubectl")


def kubectl(server, *args: str, stdin: str | None = None, ok: bool = True) -> subprocess.CompletedProcess:
    """``kubectl --kubeconfig <server's> ARGS``; with ``ok`` (default) it must exit 0."""
    if KUBECTL is None:
        pytest.skip("kubectl is not on PATH")
    r = subprocess.run([KUBECTL, "--kubeconfig", server.kubeconfig, *args], input=stdin, capture_output=True,
                       text=True, timeout=60)
    if ok:
        assert r.returncode == 0, f"kubectl {' '.join(args)}: {r.stderr}"
    return r


def wait_established(server, crd: str, timeout: float = 20.0) -> None:
    """``kubectl wait --for=condition=Established crd/<crd>``, again while kubectl 1.32 reads
    the CRD a moment after its create: apiextensions v1 writes ``"conditions": null`` until
    the establishing controller sets them (Go's strategy leaves them nil, and the field has no
    omitempty), and kubectl's wait fails on a null list instead of waiting."""
    deadline = time.monotonic() + timeout
    while True:
        r = kubectl(server, "wait", "--for=condition=Established", f"crd/{crd}", f"--timeout={timeout:g}s", ok=False)
        if r.returncode == 0:
            return
        if "accessor error: <nil>" not in r.stderr or time.monotonic() > deadline:
            raise AssertionError(f"kubectl wait crd/{crd}: {r.stderr}")
        time.sleep(0.05)
