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
import urllib.error
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


def test_unknown_controller_exits_1():
    p = subprocess.run([sys.executable, "-m", "kcodec", "serve", "--controllers", "garbage-collector,bogus"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    from kcodec.server.options import DEFAULT_CONTROLLERS

    assert p.returncode == 1
    assert p.stderr.strip() == ("kcodec serve: --controllers: unknown controller 'garbage-collector' "
                                f"(known: {', '.join(DEFAULT_CONTROLLERS)}, or none)")


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


def test_sigkill_loses_no_acknowledged_write(tmp_path):
    """A server killed with SIGKILL while a client writes: every create it acknowledged (201) is
    there when a new server opens the same file."""
    import json
    import threading

    db = tmp_path / "cluster.db"
    proc, line = _start("--storage", f"sqlite:{db}")
    url = line.split()[-1]
    acked: list[str] = []
    stop = threading.Event()

    def writer():
        i = 0
        while not stop.is_set():
            body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"w{i}"}}).encode()
            req = urllib.request.Request(url + "/api/v1/namespaces/default/configmaps", data=body,
                                         headers={"Content-Type": "application/json"}, method="POST")
            try:
                with urllib.request.urlopen(req, timeout=5) as r:
                    if r.status == 201:
                        acked.append(f"w{i}")
            except OSError:
                return
            i += 1

    t = threading.Thread(target=writer)
    t.start()
    time.sleep(1.5)
    proc.kill()
    proc.communicate()
    stop.set()
    t.join(10)
    assert acked
    proc, line = _start("--storage", f"sqlite:{db}")
    try:
        url = line.split()[-1]
        with urllib.request.urlopen(url + "/api/v1/namespaces/default/configmaps", timeout=10) as r:
            names = {i["metadata"]["name"] for i in json.load(r)["items"]}
        assert set(acked) <= names
    finally:
        code, err = _stop(proc)
    assert code == 0, err


def test_two_servers_on_a_three_member_etcd_one_killed(tmp_path):
    """Two ``kcodec serve`` processes on a 3-member etcd serve one cluster: a client writes
    through both while a watcher follows the second; the first is killed with SIGKILL mid-run
    and the client carries on through the second, which lists and has streamed every create
    either server acknowledged."""
    import json
    import threading

    from _etcd import EtcdCluster, require_etcd

    require_etcd()
    cluster = EtcdCluster(3)
    procs = []
    try:
        storage = "etcd:" + ",".join(cluster.endpoints)
        urls = []
        for _ in range(2):
            proc, line = _start("--storage", storage, "--controllers", "none")
            procs.append(proc)
            assert "http://127.0.0.1:" in line, line
            urls.append(line.split()[-1])
        ns = "/api/v1/namespaces/default/configmaps"
        seen: set[str] = set()
        watching = threading.Event()

        def watch():
            with urllib.request.urlopen(urls[1] + ns + "?watch=1&timeoutSeconds=60", timeout=90) as r:
                watching.set()
                for raw in r:
                    event = json.loads(raw)
                    if event["type"] == "ADDED":
                        seen.add(event["object"]["metadata"]["name"])
                        if "last" in seen:
                            return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        assert watching.wait(20)
        acked: list[str] = []
        alive = [0, 1]

        def create(name: str) -> None:
            body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}).encode()
            for _ in range(len(alive)):
                target = alive[len(acked) % len(alive)]
                req = urllib.request.Request(urls[target] + ns, data=body, method="POST",
                                             headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(req, timeout=10) as r:
                        assert r.status == 201
                        acked.append(name)
                        return
                except urllib.error.HTTPError:
                    raise
                except OSError:
                    # the server is gone: its clients go on through the other one
                    alive.remove(target)
            raise AssertionError("no server left")

        for i in range(60):
            if i == 30:
                procs[0].kill()
                procs[0].communicate()
            create(f"cm{i}")
        create("last")
        assert alive == [1]
        watcher.join(30)
        with urllib.request.urlopen(urls[1] + ns, timeout=10) as r:
            names = {i["metadata"]["name"] for i in json.load(r)["items"]}
        assert set(acked) <= names
        assert set(acked) <= seen
    finally:
        for proc in procs:
            if proc.poll() is None:
                _stop(proc)
        cluster.stop()
