"""Running the real kubectl (v1.32 on these machines' PATH) against a test server.

Tests that need kubectl skip, naming it, where it is not installed.
"""
from __future__ import annotations

import shutil
import subprocess

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
