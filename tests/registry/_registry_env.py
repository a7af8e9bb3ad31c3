"""Shared set-up of the registry tests: a RESTOptionsGetter on SQLite or on the session's
real etcd (each test under its own etcd prefix, so tests never see each other's keys)."""
from __future__ import annotations

import uuid

import pytest

from kcodec.registry.generic import RESTOptionsGetter
from kcodec.storage import StorageConfig, kube_apiserver_storage_factory


def make_getter(backend: str, tmp_path, request, *, watch_cache: bool = False, **kwargs) -> RESTOptionsGetter:
    """A getter over kube-apiserver's storage factory on ``backend`` ("sqlite" or "etcd")."""
    if backend == "sqlite":
        servers = [f"sqlite:{tmp_path / 'registry.db'}"]
        prefix = "/registry"
    else:
        servers = list(request.getfixturevalue("etcd_endpoints"))
        prefix = f"/registry-{uuid.uuid4().hex[:12]}"
    factory = kube_apiserver_storage_factory(storage_config=StorageConfig(prefix=prefix, server_list=servers))
    getter = RESTOptionsGetter(factory, enable_watch_cache=watch_cache, **kwargs)
    request.addfinalizer(getter.close)
    return getter


@pytest.fixture(params=["sqlite", "etcd"])
def backend(request) -> str:
    return request.param


def internal(manifest: dict):
    """A manifest as the API server holds it after decoding a request: defaults of its
    version applied, converted to the internal version (kcodec.legacyscheme)."""
    import json

    from kcodec import legacyscheme

    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(manifest).encode())
    return obj


def pod_manifest(name: str, *, labels: dict | None = None, node: str = "", resources: list | None = None,
                 grace: int | None = None, **spec) -> dict:
    containers = [{"name": f"c{i}", "image": "nginx", **({"resources": r} if r else {})}
                  for i, r in enumerate(resources or [None])]
    body = {"containers": containers, **spec}
    if node:
        body["nodeName"] = node
    if grace is not None:
        body["terminationGracePeriodSeconds"] = grace
    meta = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}


def deployment_manifest(name: str, replicas: int = 1) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
