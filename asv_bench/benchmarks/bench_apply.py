"""Server-side apply offline (kcodec.apply) of the fully populated Go-written Deployment
fixture (apps.v1.Deployment.json of k8s.io/api v0.36.3, server-set metadata and status
removed), beside one JSON decode of the same document: the target compares the two.

``time_apply_create`` applies it to nothing; ``time_apply_unchanged`` re-applies it to the
object it created (the common controller loop: every field compared, nothing written);
``time_apply_other_manager`` applies one field as a second manager (conflict check over
the first manager's whole set, with force).
"""
from __future__ import annotations

import json
from typing import Any

# _docs first: it puts this checkout on sys.path before kcodec is imported.
from ._docs import FIXTURES, MODES, require_kcodec, use_mode

_SERVER_SET = ("uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
               "deletionGracePeriodSeconds", "selfLink", "managedFields")


def deployment_config() -> dict[str, Any]:
    """The fixture Deployment as an applied configuration (what a client may set)."""
    tree = json.loads((FIXTURES / "apps.v1.Deployment.json").read_bytes())
    for key in _SERVER_SET:
        tree["metadata"].pop(key, None)
    tree.pop("status", None)
    return tree


class ServerSideApply:
    params = [MODES]
    param_names = ["mode"]

    def setup(self, mode: str) -> None:
        require_kcodec()
        use_mode(mode)
        import kcodec

        self.config = deployment_config()
        self.data = json.dumps(self.config).encode()
        self.live = kcodec.apply(None, self.config, "deployer")
        self.other = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": dict(
            name=self.config["metadata"]["name"], namespace=self.config["metadata"].get("namespace", "")),
            "spec": {"replicas": 7}}

    def time_apply_create(self, mode: str) -> None:
        import kcodec

        kcodec.apply(None, self.config, "deployer")

    def time_apply_unchanged(self, mode: str) -> None:
        import kcodec

        kcodec.apply(self.live, self.config, "deployer")

    def time_apply_other_manager(self, mode: str) -> None:
        import kcodec

        kcodec.apply(self.live, self.other, "autoscaler", force=True)

    def time_json_decode(self, mode: str) -> None:
        import kcodec

        kcodec.load(self.data)
