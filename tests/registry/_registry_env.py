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
