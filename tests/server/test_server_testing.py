"""kcodec.testing: the APIServer context manager and the ``kube_apiserver`` pytest fixture."""
from __future__ import annotations

import os
import urllib.request

import pytest

from kcodec.errors import ConfigError
from kcodec.testing import APIServer, kube_apiserver  # noqa: F401  (the plugin's fixture, as installed)


def test_fixture_gives_a_running_server(kube_apiserver):
    assert kube_apiserver.url.startswith("http://127.0.0.1:")
    assert os.path.isfile(kube_apiserver.kubeconfig)
    with urllib.request.urlopen(kube_apiserver.url + "/readyz", timeout=10) as r:
        assert r.read() == b"ok"
    assert "running" in repr(kube_apiserver)


def test_stop_is_idempotent_and_cleans_up():
    server = APIServer().start()
    kubeconfig = server.kubeconfig
    server.stop()
    server.stop()
    assert not os.path.exists(kubeconfig)
    assert "stopped" in repr(server)


def test_bad_storage_raises_and_leaves_nothing():
    server = APIServer("nosuch:thing")
    with pytest.raises(ConfigError) as e:
        server.start()
    assert str(e.value) == "--storage 'nosuch:thing': expected sqlite:PATH, sqlite::memory: or etcd:URL[,URL...]"
    assert not os.path.exists(server.kubeconfig)


def test_sqlite_file_survives_restart(tmp_path):
    db = tmp_path / "c.db"
    import requests

    with APIServer(f"sqlite:{db}") as s:
        r = requests.post(s.url + "/api/v1/namespaces/default/configmaps",
                          json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"}})
        assert r.status_code == 201
    with APIServer(f"sqlite:{db}") as s:
        assert requests.get(s.url + "/api/v1/namespaces/default/configmaps/kept").status_code == 200


def test_encryption_at_rest(tmp_path):
    """--encryption-provider-config: Secrets are stored as kube-apiserver stores them
    (``k8s:enc:aescbc:v1:<key>:``), read back in clear through the API."""
    import base64
    import sqlite3

    import requests

    key = base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
    enc = tmp_path / "enc.yaml"
    enc.write_text("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
                   "- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n      - name: key1\n"
                   f"        secret: {key}\n  - identity: {{}}\n")
    db = tmp_path / "c.db"
    with APIServer(f"sqlite:{db}", encryption_provider_config=str(enc)) as s:
        r = requests.post(s.url + "/api/v1/namespaces/default/secrets",
                          json={"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "top"},
                                "stringData": {"pw": "hunter2"}})
        assert r.status_code == 201
        got = requests.get(s.url + "/api/v1/namespaces/default/secrets/top").json()
        assert base64.b64decode(got["data"]["pw"]) == b"hunter2"
    with sqlite3.connect(db) as con:
        (value,) = con.execute("SELECT value FROM kcodec_kv WHERE key = ?", (b"/registry/secrets/default/top",)).fetchone()
    con.close()
    assert value.startswith(b"k8s:enc:aescbc:v1:key1:") and b"hunter2" not in value
