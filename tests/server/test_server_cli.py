"""``kcodec serve`` as a process: the URL line, the kubeconfig, TLS with a token, SIGTERM.

As kube-apiserver: a self-signed serving certificate the kubeconfig trusts, bearer tokens,
a clean exit on SIGTERM; kcodec's own contract (../shared/API.md): one line on standard
output with the URL once /readyz is ok, exit status 1 on a bad ``--storage``.
"""
from __future__ import annotations

import base64
import os
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.request

import pytest
import yaml

from kcodec.cli import build_parser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _start(*args, env=None):
    proc = subprocess.Popen([sys.executable, "-m", "kcodec", "serve", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, **(env or {})})
    line = proc.stdout.readline()
    return proc, line


def _stop(proc):
    """SIGTERM, then the exit status and what it wrote on stderr (pipes closed)."""
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return proc.returncode, err


def test_serve_options_parse():
    args = build_parser().parse_args(["serve", "--storage", "sqlite::memory:", "--tls", "--token", "t",
                                      "--watch-cache-sizes", "pods#0,secrets#5", "--controllers", "none"])
    from kcodec.cli.serve import options_from_args

    opts = options_from_args(args)
    assert opts.storage == "sqlite::memory:" and opts.tls and opts.token == "t"
    assert opts.watch_cache_sizes == ["pods#0", "secrets#5"] and opts.controllers == []


def test_bad_storage_exits_1():
    p = subprocess.run([sys.executable, "-m", "kcodec", "serve", "--storage", "mysql:x", "--port", "0"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.returncode == 1
    assert p.stderr.strip() == ("kcodec serve: --storage 'mysql:x': expected sqlite:PATH, sqlite::memory: "
                                "or etcd:URL[,URL...]")


def test_serve_tls_token_kubeconfig_and_sigterm(tmp_path):
    kc = tmp_path / "kubeconfig"
    db = tmp_path / "cluster.db"
    start = time.monotonic()
    proc, line = _start("--storage", f"sqlite:{db}", "--tls", "--token", "s3cret", "--kubeconfig", str(kc))
    try:
        assert line.startswith("kcodec serve: listening on https://127.0.0.1:"), line
        url = line.split()[-1]
        ready_after = time.monotonic() - start
        cfg = yaml.safe_load(kc.read_text())
        assert cfg["clusters"][0]["cluster"]["server"] == url
        assert cfg["users"][0]["user"]["token"] == "s3cret"
        ca = base64.b64decode(cfg["clusters"][0]["cluster"]["certificate-authority-data"])
        ctx = ssl.create_default_context(cadata=ca.decode())
        req = urllib.request.Request(url + "/readyz")
        assert urllib.request.urlopen(req, context=ctx, timeout=10).read() == b"ok"
        req = urllib.request.Request(url + "/api/v1/namespaces/default", headers={"Authorization": "Bearer s3cret"})
        assert b'"name":"default"' in urllib.request.urlopen(req, context=ctx, timeout=10).read()
        if shutil.which("kubectl"):
            p = subprocess.run(["kubectl", "--kubeconfig", str(kc), "get", "ns", "kube-system", "-o", "name"],
                               capture_output=True, text=True, timeout=60)
            assert p.stdout.strip() == "namespace/kube-system", p.stderr
        # the whole start, interpreter included, stays within a few seconds on this shared machine
        assert ready_after < 30
    finally:
        code, err = _stop(proc)
    assert code == 0, err
    # the data outlives the process: a second server on the same file sees it
    proc, line = _start("--storage", f"sqlite:{db}")
    try:
        url = line.split()[-1]
        body = urllib.request.urlopen(url + "/api/v1/namespaces/kube-public", timeout=10).read()
        assert b'"name":"kube-public"' in body
    finally:
        code, err = _stop(proc)
    assert code == 0, err
