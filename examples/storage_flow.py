"""How kube-apiserver stores a Pod and a Secret, end to end (Go: k8s.io/apiserver
pkg/server/storage/storage_factory.go, pkg/storage/etcd3/store.go, pkg/storage/value).

1. The storage factory (``kube_apiserver_storage_factory``) gives, per resource, the codec
   (protobuf, storage version v1), the etcd prefix and key layout, and the transformer
   from an EncryptionConfiguration (aesgcm for secrets, identity for the rest).
2. A store per resource (SQLite by default; a real etcd with ``--endpoints``) creates the
   Pod and the Secret: ``If(notFound(key)).Then(Put)``, resourceVersion = revision.
3. The Pods are listed, watched, and updated by four writers at once with
   ``guaranteed_update`` (optimistic concurrency: no update is lost).
4. ``kcodec etcd get`` reads the stored values back from outside, decrypting the Secret
   with the same EncryptionConfiguration.

Run: ``python examples/storage_flow.py`` (SQLite in a temporary directory),
``python examples/storage_flow.py --sqlite cluster.db`` or
``python examples/storage_flow.py --endpoints http://127.0.0.1:2379``.
"""
from __future__ import annotations

import argparse
import base64
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from kcodec.api import codecs, scheme
from kcodec.api.core import v1
from kcodec.api.meta import v1 as metav1
from kcodec.schema import GroupResource, GroupVersion
from kcodec.storage.errors import is_not_found
from kcodec.storage.factory import DefaultResourceEncodingConfig, kube_apiserver_storage_factory
from kcodec.storage.value import load_encryption_config

PODS = GroupResource("", "pods")
SECRETS = GroupResource("", "secrets")
CORE_V1 = GroupVersion("", "v1")
NAMESPACE = "kcodec-demo"

ENCRYPTION_CONFIG = """\
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aesgcm:
          keys:
            - name: key1
              secret: {secret}
      - identity: {{}}
"""


def open_store(config, args):
    """A storage.Interface for one resource's StorageConfig."""
    if args.endpoints:
        from kcodec.storage.etcd3 import Etcd3Store

        return Etcd3Store(args.endpoints, config.codec, prefix=config.prefix, transformer=config.transformer)
    from kcodec.storage.sqlite import SQLiteStore

    return SQLiteStore(args.sqlite, config.codec, prefix=config.prefix, transformer=config.transformer)


def kcodec_etcd(*argv: str) -> str:
    """Run ``kcodec etcd ...`` as a user would."""
    out = subprocess.run([sys.executable, "-m", "kcodec", "etcd", *argv], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise SystemExit(f"kcodec etcd {' '.join(argv)} failed: {out.stderr.strip()}")
    return out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--endpoints", help="etcd client URLs (default: an embedded SQLite store)")
    where.add_argument("--sqlite", help="the SQLite store file (default: one in a temporary directory)")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="kcodec-storage-flow-"))
    if not args.endpoints and not args.sqlite:
        args.sqlite = str(workdir / "cluster.db")

    # 1. The storage factory, with encryption at rest for secrets.
    enc_file = workdir / "encryption.yaml"
    enc_file.write_text(ENCRYPTION_CONFIG.format(secret=base64.b64encode(os.urandom(32)).decode()))
    encoding = DefaultResourceEncodingConfig(scheme)
    factory = kube_apiserver_storage_factory(codecs, resource_encoding_config=encoding,
                                             encryption=load_encryption_config(enc_file))
    # kcodec.api's scheme has external versions only: the server works with v1 objects.
    for gr in (PODS, SECRETS):
        encoding.set_resource_encoding(gr, CORE_V1, CORE_V1)
    pods_cfg, secrets_cfg = factory.new_config(PODS), factory.new_config(SECRETS)
    print(f"pods:    media type {pods_cfg.media_type}, storage version {pods_cfg.storage_version}, "
          f"keys under {pods_cfg.key_prefix}, transformer {type(pods_cfg.transformer).__name__}")
    print(f"secrets: media type {secrets_cfg.media_type}, keys under {secrets_cfg.key_prefix}, "
          f"transformer {type(secrets_cfg.transformer).__name__}")

    pods, secrets = open_store(pods_cfg, args), open_store(secrets_cfg, args)
    backend = f"etcd at {args.endpoints}" if args.endpoints else f"SQLite at {args.sqlite}"
    print(f"backend: {backend}")
    pod_key, secret_key = pods_cfg.resource_key("web", NAMESPACE), secrets_cfg.resource_key("db", NAMESPACE)
    for store, key in ((pods, pod_key), (secrets, secret_key)):  # a previous run on the same etcd
        try:
            store.delete(key)
        except Exception as exc:
            if not is_not_found(exc):
                raise

    # 2. Create: the Pod and the Secret.
    start = pods.current_revision()
    pod = pods.create(pod_key, v1.Pod(
        metadata=metav1.ObjectMeta(name="web", namespace=NAMESPACE, labels={"app": "web"}, annotations={"count": "0"}),
        spec=v1.PodSpec(containers=[v1.Container(name="web", image="nginx:1.27")])))
    secret = secrets.create(secret_key, v1.Secret(metadata=metav1.ObjectMeta(name="db", namespace=NAMESPACE),
                                                  data={"password": b"hunter2"}))
    print(f"created pod {pod.metadata.name} at resourceVersion {pod.metadata.resource_version}, "
          f"secret {secret.metadata.name} at {secret.metadata.resource_version}")
    raw = secrets.kv.get(secrets_cfg.key("db", NAMESPACE).encode())[0].value
    print(f"secret as stored: {raw[:23].decode()}... ({len(raw)} bytes, plaintext visible: {b'hunter2' in raw})")

    # 3. List, watch, and update concurrently.
    listed = pods.get_list(f"/pods/{NAMESPACE}")
    print(f"listed {len(listed.items)} pod(s) at resourceVersion {listed.metadata.resource_version}")
    watch = pods.watch(f"/pods/{NAMESPACE}", resource_version=str(start), recursive=True)

    def bump(cur: v1.Pod) -> v1.Pod:
        cur.metadata.annotations = {**cur.metadata.annotations, "count": str(int(cur.metadata.annotations["count"]) + 1)}
        return cur
    writers = [threading.Thread(target=lambda: [pods.guaranteed_update(pod_key, bump) for _ in range(25)])
               for _ in range(4)]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    final = pods.get(pod_key)
    print(f"4 writers x 25 guaranteed_updates: count={final.metadata.annotations['count']}, "
          f"resourceVersion {final.metadata.resource_version}")
    events = []
    while len(events) < 101:
        event = watch.next(10)
        if event is None:
            break
        events.append(event)
    watch.stop()
    counts = [int(e.object.metadata.annotations["count"]) for e in events]
    print(f"watch from {start}: {events[0].type} then {len(events) - 1} x {events[-1].type}, "
          f"counts in order: {counts == list(range(101))}")

    # 4. Read back from outside with `kcodec etcd`.
    where = ["--endpoints", args.endpoints] if args.endpoints else ["--sqlite", args.sqlite]
    pod_yaml = kcodec_etcd("get", pods_cfg.key("web", NAMESPACE), *where)
    print("kcodec etcd get (pod):")
    for line in pod_yaml.splitlines():
        if line.startswith(("kind:", "  name:", "  resourceVersion:")) or "count" in line:
            print("  " + line)
    secret_yaml = kcodec_etcd("get", secrets_cfg.key("db", NAMESPACE), *where,
                              "--encryption-provider-config", str(enc_file))
    password = next(line for line in secret_yaml.splitlines() if "password:" in line).split(":", 1)[1].strip()
    print(f"kcodec etcd get (secret, decrypted): password={base64.b64decode(password).decode()}")

    if args.endpoints:  # leave a shared etcd as we found it
        pods.delete(pod_key)
        secrets.delete(secret_key)
    pods.close()
    secrets.close()
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
