"""``kcodec serve`` over HTTP: create, get and list ConfigMaps with one keep-alive client.

Issue 22's reference is kube-apiserver 1.36 with etcd on loopback, in a namespace of 500
ConfigMaps: create 3.0-3.3 ms and get 2.0-2.1 ms per request, the list of 500 in 12.4-13.1 ms
as JSON, 9.1 ms as protobuf, 13.7-14.7 ms as a Table. Here the server is
``kcodec.testing.APIServer`` on ``sqlite::memory:`` in the benchmark's process (its event loop
and worker threads share the interpreter with the client), plain HTTP, no token; the
namespace holds ``KCODEC_BENCH_SERVER_ITEMS`` ConfigMaps (500; the smoke test uses the tiny
list size).
"""
from __future__ import annotations

import itertools
import os
from typing import Any

from . import _docs
from ._docs import MODES

ITEMS: int = int(os.environ.get("KCODEC_BENCH_SERVER_ITEMS", "500"))

_TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
_PB = "application/vnd.kubernetes.protobuf"


def _configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"app": "bench"}},
            "data": {"key": "value", "other": "x" * 64}}


class ServerConfigMaps:
    """create / get / list (JSON, protobuf, Table) of ConfigMaps through the REST API."""

    params = [MODES]
    param_names = ["mode"]
    timeout = 300.0
    number = 1
    repeat = (3, 20, 30.0)

    def setup(self, mode: str) -> None:
        _docs.require_kcodec()
        try:
            import requests
        except ImportError:
            raise NotImplementedError("requests is not installed") from None
        _docs.use_mode(mode)
        from kcodec.testing import APIServer

        self.items = min(ITEMS, _docs.LIST_ITEMS)
        self.server = APIServer().start()
        self.http = requests.Session()
        self.base = self.server.url + "/api/v1/namespaces/default/configmaps"
        for i in range(self.items):
            r = self.http.post(self.base, json=_configmap(f"cm-{i}"))
            r.raise_for_status()
        self.names = itertools.count()

    def teardown(self, mode: str) -> None:
        self.http.close()
        self.server.stop()

    def time_create(self, mode: str) -> None:
        r = self.http.post(self.base, json=_configmap(f"new-{next(self.names)}"))
        assert r.status_code == 201, r.text

    def time_get(self, mode: str) -> None:
        r = self.http.get(self.base + "/cm-0")
        assert r.status_code == 200

    def time_list_json(self, mode: str) -> None:
        r = self.http.get(self.base + "?labelSelector=app%3Dbench")
        assert r.status_code == 200

    def time_list_protobuf(self, mode: str) -> None:
        r = self.http.get(self.base + "?labelSelector=app%3Dbench", headers={"Accept": _PB})
        assert r.status_code == 200

    def time_list_table(self, mode: str) -> None:
        r = self.http.get(self.base + "?labelSelector=app%3Dbench", headers={"Accept": _TABLE})
        assert r.status_code == 200
