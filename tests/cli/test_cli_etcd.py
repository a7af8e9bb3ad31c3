"""``kcodec etcd`` (get, list, watch, decode) run as ``python -m kcodec`` against a real etcd
started on loopback and against a SQLite store file: decoding protobuf and JSON (and
unregistered kinds as unstructured), decrypting with an EncryptionConfiguration, and the
one-line errors with their exit codes (1 bad input, 2 usage)."""
from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)
from kcodec.api.core import v1
from kcodec.api.meta import v1 as metav1
from kcodec.schema import GroupResource, GroupVersion
from kcodec.storage import StorageCodecConfig, new_storage_codec

ROOT = Path(__file__).resolve().parents[2]


def codec():
    """The storage codec kube-apiserver uses for core/v1 (protobuf)."""
    from kcodec.api import codecs

    core = GroupVersion("", "v1")
    return new_storage_codec(StorageCodecConfig("application/vnd.kubernetes.protobuf", codecs, core, core))


def pod(name: str, ns: str = "default", **meta) -> v1.Pod:
    return v1.Pod(metadata=metav1.ObjectMeta(name=name, namespace=ns, **meta),
                  spec=v1.PodSpec(containers=[v1.Container(name="c", image="nginx:1.27")]))
KEY_B64 = base64.b64encode(bytes(range(32))).decode()
ENCRYPTION_CONFIG = f"""\
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aesgcm:
          keys:
            - name: key1
              secret: {KEY_B64}
      - identity: {{}}
"""


@pytest.fixture(autouse=True)
def _once(kcodec_mode):
    if kcodec_mode != "pure":
        pytest.skip("the command runs in a subprocess, which picks its own mode: once is enough")


def kcodec(*args: str, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "kcodec", "etcd", *args], input=stdin, capture_output=True,
                          env=env, timeout=timeout)


@pytest.fixture(params=["sqlite", "etcd"])
def target(request, tmp_path):
    """A store with a Pod, an encrypted Secret, a custom resource and a corrupt value, and
    the command-line arguments that reach it."""
    from kcodec.storage.value import load_encryption_config, transformer_for_resource

    enc = tmp_path / "enc.yaml"
    enc.write_text(ENCRYPTION_CONFIG)
    secrets_transformer = transformer_for_resource(load_encryption_config(enc), GroupResource("", "secrets"))
    if request.param == "sqlite":
        from kcodec.storage.sqlite import SQLiteStore

        path = tmp_path / "cluster.db"
        pods = SQLiteStore(path, codec())
        secrets = SQLiteStore(path, codec(), transformer=secrets_transformer)
        args = ["--sqlite", str(path)]
    else:
        from kcodec.storage.etcd3 import Etcd3Store

        endpoints = request.getfixturevalue("etcd_endpoints")
        # The session's etcd is shared: a prefix of our own.
        prefix = f"/cli-{os.getpid()}-{time.monotonic_ns()}"
        pods = Etcd3Store(endpoints, codec(), prefix=prefix)
        secrets = Etcd3Store(endpoints, codec(), prefix=prefix, transformer=secrets_transformer)
        args = ["--endpoints", ",".join(endpoints), "--prefix", prefix]
    pods.create("/pods/default/web", pod("web", labels={"app": "web"}))
    pods.create("/pods/default/db", pod("db"))
    secrets.create("/secrets/default/token", v1.Secret(metadata=metav1.ObjectMeta(name="token", namespace="default"),
                                                       data={"token": b"s3cr3t"}))
    base = pods.path_prefix
    pods.kv.put_raw(f"{base}example.com/widgets/default/w1".encode(),
                    b'{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3}}')
    yield {"args": args, "enc": str(enc), "prefix": base.rstrip("/"), "pods": pods}
    pods.close()
    secrets.close()


def test_get_list_and_decrypt(target) -> None:
    args, prefix = target["args"], target["prefix"]
    out = kcodec("get", f"{prefix}/pods/default/web", *args)
    assert out.returncode == 0, out.stderr
    obj = yaml.safe_load(out.stdout)
    assert obj["kind"] == "Pod" and obj["metadata"]["labels"] == {"app": "web"}
    assert int(obj["metadata"]["resourceVersion"]) > 0
    # The Secret is encrypted: an error without the config (keys may omit the prefix).
    out = kcodec("get", "secrets/default/token", *args)
    assert out.returncode == 1
    assert out.stderr.decode().strip() == (f"kcodec: error: {prefix}/secrets/default/token: value is encrypted "
                                           "(k8s:enc:aesgcm:v1:key1); pass --encryption-provider-config")
    # list: every object under the prefix as a JSON List, the Secret decrypted, the
    # unregistered kind (a custom resource stored as JSON) as it is.
    out = kcodec("list", "/", *args, "-o", "json", "--encryption-provider-config", target["enc"])
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout)
    assert listed["kind"] == "List"
    assert [i["metadata"]["name"] for i in listed["items"]] == ["w1", "db", "web", "token"]
    widget, secret = listed["items"][0], listed["items"][3]
    assert widget["spec"] == {"size": 3}
    assert secret["data"] == {"token": base64.b64encode(b"s3cr3t").decode()}
    out = kcodec("list", "/", *args, "--keys-only")
    assert out.stdout.decode().split() == [f"{prefix}/example.com/widgets/default/w1", f"{prefix}/pods/default/db",
                                           f"{prefix}/pods/default/web", f"{prefix}/secrets/default/token"]


def test_errors_are_one_line_with_exit_codes(target) -> None:
    args, prefix = target["args"], target["prefix"]
    out = kcodec("get", "pods/default/nope", *args)
    assert out.returncode == 1 and out.stderr.decode() == f'kcodec: error: key "{prefix}/pods/default/nope" not found\n'
    target["pods"].kv.put_raw(f"{prefix}/pods/default/broken".encode(), b"k8s\x00\x0a\xff\xff\xff\xff\x0f")
    out = kcodec("get", "pods/default/broken", *args)
    assert out.returncode == 1
    err = out.stderr.decode()
    assert err.startswith(f"kcodec: error: {prefix}/pods/default/broken: ") and err.count("\n") == 1
    # A list reports the bad value and still prints the others.
    out = kcodec("list", "pods", *args)
    assert out.returncode == 1 and b"name: web" in out.stdout and b"pods/default/broken" in out.stderr


def test_watch_prints_changes(target) -> None:
    args = target["args"]
    store = target["pods"]
    rv = store.current_revision()
    store.guaranteed_update("/pods/default/web", lambda p: (setattr(p.metadata, "labels", {"app": "v2"}), p)[1])
    store.delete("/pods/default/db")
    out = kcodec("watch", "pods", *args, "--resource-version", str(rv), "--max-events", "2", "--for", "30",
                 "-o", "json")
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("MODIFIED", "web"), ("DELETED", "db")]
    assert events[0]["object"]["metadata"]["labels"] == {"app": "v2"}


def test_decode_raw_values(tmp_path) -> None:
    from kcodec.api import codecs

    info = {i.media_type: i for i in codecs.supported_media_types()}
    p = pod("raw", labels={"k": "v"})
    p.api_version, p.kind = "v1", "Pod"
    raw_pb = info["application/vnd.kubernetes.protobuf"].serializer.encode(p)
    # etcdctl --print-value-only adds a newline
    out = kcodec("decode", stdin=raw_pb + b"\n")
    assert out.returncode == 0, out.stderr
    assert yaml.safe_load(out.stdout)["metadata"]["labels"] == {"k": "v"}
    f = tmp_path / "value.json"
    f.write_bytes(info["application/json"].serializer.encode(p))
    out = kcodec("decode", "-f", str(f), "-o", "json")
    assert out.returncode == 0 and json.loads(out.stdout)["metadata"]["name"] == "raw"
    out = kcodec("decode", stdin=b"\x00garbage")
    assert out.returncode == 1 and out.stderr.decode().startswith("kcodec: error: <stdin>: not a Kubernetes object")
    out = kcodec("decode", "-f", str(tmp_path / "missing"))
    assert out.returncode == 1 and out.stderr.decode() == f"kcodec: error: {tmp_path / 'missing'}: no such file or directory\n"


def test_a_silent_endpoint_times_out() -> None:
    # A port that accepts connections and never answers: the --timeout applies.
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        t0 = time.monotonic()
        out = kcodec("get", "/registry/pods/default/web", "--endpoints", f"http://127.0.0.1:{port}", "--timeout", "1")
    assert out.returncode == 1 and 0.9 < time.monotonic() - t0 < 30
    assert out.stderr.decode().startswith(f"kcodec: error: http://127.0.0.1:{port}: unreachable after 1s")


def test_unreachable_endpoint_and_usage() -> None:
    # A refused connection fails at once, whatever --timeout says.
    t0 = time.monotonic()
    out = kcodec("get", "/registry/pods/default/web", "--endpoints", "http://127.0.0.1:9", "--timeout", "30")
    assert out.returncode == 1 and time.monotonic() - t0 < 15
    err = out.stderr.decode()
    assert err == ("kcodec: error: http://127.0.0.1:9: unreachable: connection refused by every etcd endpoint "
                   "(127.0.0.1:9)\n")
    out = kcodec("get", "x", "--endpoints", "ftp://nowhere")
    assert out.returncode == 2 and "invalid etcd endpoint 'ftp://nowhere'" in out.stderr.decode()
    out = kcodec("get", "x", "--sqlite", "/nonexistent/cluster.db")
    assert out.returncode == 1 and out.stderr.decode() == "kcodec: error: /nonexistent/cluster.db: no such file or directory\n"
    out = kcodec("get", "x", "--sqlite", "a.db", "--endpoints", "http://127.0.0.1:2379")
    assert out.returncode == 2 and "not allowed with argument" in out.stderr.decode()
    out = kcodec("frob")
    assert out.returncode == 2
    out = kcodec("--help")
    assert out.returncode == 0 and b"examples:" in out.stdout and b"kcodec etcd decode" in out.stdout
