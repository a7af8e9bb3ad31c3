"""Defaulting as kube-apiserver applies it on decode: 1000 apps/v1 Deployments.

Each Deployment is what a user writes (two containers with ports, probes, limits, env
from a field, a config-map and a projected volume; no defaults set), with its own name.
``time_default_fresh`` defaults undefaulted copies (made in ``setup``, which asv runs
before every repeat; ``number = 1`` so each sample sees fresh objects);
``time_default_again`` re-defaults already defaulted ones (the walk with nothing to
change, as a second decode of stored objects costs).
"""
from __future__ import annotations

import copy
from typing import Any

# _docs first: it puts this checkout on sys.path before kcodec is imported.
from . import _docs
from ._docs import MODES

DEPLOYMENTS = 1000

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
    "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {
                        "name": "web",
                        "image": "registry.example.com/shop/web:1.4.2",
                        "ports": [{"name": "http", "containerPort": 8080}],
                        "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"},
                                      "requests": {"cpu": "100m", "memory": "128Mi"}},
                        "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
                        "readinessProbe": {"httpGet": {"port": "http"}},
                        "volumeMounts": [{"name": "config", "mountPath": "/etc/web"}],
                    },
                    {
                        "name": "sidecar",
                        "image": "busybox",
                        "args": ["sleep", "infinity"],
                        "resources": {"limits": {"cpu": "0.0001"}},
                    },
                ],
                "volumes": [
                    {"name": "config", "configMap": {"name": "web-config"}},
                    {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
                ],
            },
        },
    },
}


def make_deployments(n: int = DEPLOYMENTS) -> list[Any]:
    """``n`` undefaulted apps/v1 Deployments, named web-0 ... web-<n-1>."""
    from kcodec.api.apps.v1 import Deployment

    out = []
    for i in range(n):
        data = copy.deepcopy(DEPLOYMENT)
        data["metadata"]["name"] = f"web-{i}"
        out.append(Deployment.from_dict(data))
    return out


class DefaultDeployments:
    """``set_object_defaults`` (what ``scheme.default`` runs) over 1000 Deployments."""

    params = [MODES]
    param_names = ["mode"]
    number = 1
    repeat = 10

    def setup(self, mode: str) -> None:
        _docs.use_mode(mode)
        from kcodec.api._defaulting import set_object_defaults

        self.default = set_object_defaults
        self.template = make_deployments(self.size())
        self.fresh = [d.deep_copy() for d in self.template]
        self.defaulted = [d.deep_copy() for d in self.template]
        for d in self.defaulted:
            set_object_defaults(d)

    @staticmethod
    def size() -> int:
        return DEPLOYMENTS

    def time_default_fresh(self, mode: str) -> None:
        default = self.default
        for d in self.fresh:
            default(d)

    def time_default_again(self, mode: str) -> None:
        default = self.default
        for d in self.defaulted:
            default(d)
