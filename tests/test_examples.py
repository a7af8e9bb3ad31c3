"""The runnable examples (the Scheme, Converter and ParameterCodec walk-throughs and the
main demonstration) produce the output Go's apimachinery gives for them."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture: a real etcd on loopback)

ROOT = Path(__file__).resolve().parents[1]


def run(name: str, *args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / name), *args], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(autouse=True)
def _once_per_mode(kcodec_mode):
    # The examples run in a child process, which picks its own mode: once is enough.
    if kcodec_mode != "pure":
        pytest.skip("examples run in a subprocess; covered by the pure-mode run")


def test_scheme_example() -> None:
    out = run("scheme_example.py")
    assert "/v1, Kind=Pod  ->  kcodec.api.core.v1.Pod" in out
    assert "/__internal, Kind=Pod  ->  kcodec.api.core.v1.Pod" in out
    assert "extensions/v1beta1, Kind=DaemonSet  ->  kcodec.api.apps.v1.DaemonSet" in out
    assert "Status kinds: /v1, Kind=Status unversioned: True" in out


def test_converter_example() -> None:
    lines = run("converter_example.py").splitlines()
    assert lines[0] == "GVK: /, Kind="
    assert lines[1] == "GVK: apps/v1, Kind=Deployment"
    assert lines[2] == "replicas: 3 name: web"


def test_parameter_codec_example() -> None:
    lines = run("parameter_codec_example.py").splitlines()
    assert lines[0] == "labelSelector=app%3Dfoo&limit=1"
    assert lines[1] == "decoded back: 1 app=foo"


def test_demo() -> None:
    out = run("demo.py")
    assert "decoded apps/v1, Kind=Deployment: default/web, replicas=3" in out
    assert "'memory': '1Gi'" in out
    assert "application/vnd.kubernetes.protobuf" in out
    if (ROOT.parent / "shared" / "fixtures").is_dir():
        assert "555/555 files re-encoded byte-identical" in out


def test_storage_flow_sqlite() -> None:
    out = run("storage_flow.py")
    assert "secret as stored: k8s:enc:aesgcm:v1:key1:..." in out and "plaintext visible: False" in out
    assert "4 writers x 25 guaranteed_updates: count=100" in out
    assert "ADDED then 100 x MODIFIED, counts in order: True" in out
    assert 'count: "100"' in out
    assert "kcodec etcd get (secret, decrypted): password=hunter2" in out


def test_storage_flow_etcd(etcd_endpoints) -> None:  # noqa: F811
    out = run("storage_flow.py", "--endpoints", ",".join(etcd_endpoints))
    assert "backend: etcd at http://127.0.0.1:" in out
    assert "4 writers x 25 guaranteed_updates: count=100" in out
    assert "ADDED then 100 x MODIFIED, counts in order: True" in out
    assert "kcodec etcd get (secret, decrypted): password=hunter2" in out
