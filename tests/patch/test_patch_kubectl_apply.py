"""kubectl against ``kcodec serve``: apply (client side) of a real install manifest, twice:
the second run reports what it reports against kube-apiserver 1.36 (``unchanged``, and
``configured`` only for the three objects whose three-way strategic merge patch is not empty
there: the ConfigMap written with ``data: null``, the Deployment and the webhook
configuration, whose defaulted fields the last-applied configuration does not have), so the
server's strategic merge patches and OpenAPI merge keys are Go's. A third run with changes
is then patched as kubectl intends.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from conftest import SHARED

KUBECTL = shutil.which("kubectl")
MANIFEST = SHARED / "corpus" / "files" / "kubernetes__ingress-nginx" / "deploy__static__provider__cloud__deploy.yaml"


def _kubectl(kubeconfig: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KUBECONFIG": kubeconfig}
    p = subprocess.run([KUBECTL or "kubectl", *args], input=stdin, capture_output=True, text=True, timeout=120,
                       env=env)
    assert p.returncode == 0, p.stderr
    return p


def test_ingress_nginx_apply_twice() -> None:
    if KUBECTL is None:
        pytest.skip("kubectl is not on PATH")
    if not MANIFEST.exists():
        pytest.skip(f"corpus not found at {MANIFEST}")
    from kcodec.testing import APIServer

    text = MANIFEST.read_text()
    with APIServer() as server:
        first = _kubectl(server.kubeconfig, "apply", "-f", "-", stdin=text).stdout.splitlines()
        assert len(first) == 19 and all(line.endswith(" created") for line in first)
        second = _kubectl(server.kubeconfig, "apply", "-f", "-", stdin=text).stdout.splitlines()
        configured = [line for line in second if not line.endswith(" unchanged")]
        assert configured == [
            "configmap/ingress-nginx-controller configured",
            "deployment.apps/ingress-nginx-controller configured",
            "validatingwebhookconfiguration.admissionregistration.k8s.io/ingress-nginx-admission configured",
        ]
        changed = text.replace("- --election-id=ingress-nginx-leader", "- --election-id=renamed")
        assert changed != text
        third = _kubectl(server.kubeconfig, "apply", "-f", "-", stdin=changed).stdout.splitlines()
        assert "deployment.apps/ingress-nginx-controller configured" in third
        dep = json.loads(_kubectl(server.kubeconfig, "-n", "ingress-nginx", "get", "deploy",
                                  "ingress-nginx-controller", "-o", "json").stdout)
        (container,) = dep["spec"]["template"]["spec"]["containers"]
        assert "--election-id=renamed" in container["args"]
        assert "--election-id=ingress-nginx-leader" not in container["args"]
        assert [p["name"] for p in container["ports"]] == ["http", "https", "webhook"]


def test_explain_from_both_documents() -> None:
    """kcodec serve's OpenAPI as kubectl reads it: v3 (default) and the whole v2 document in
    protobuf (``--output=plaintext-openapiv2``; kubectl refuses it if any reference dangles)."""
    if KUBECTL is None:
        pytest.skip("kubectl is not on PATH")
    from kcodec.testing import APIServer

    with APIServer() as server:
        v3 = _kubectl(server.kubeconfig, "explain", "pods.spec.containers.ports").stdout
        assert "FIELD: ports <[]ContainerPort>" in v3 and "containerPort\t<integer> -required-" in v3
        v2 = _kubectl(server.kubeconfig, "explain", "pods.spec.containers.ports",
                      "--output=plaintext-openapiv2").stdout
        assert "RESOURCE: ports <[]Object>" in v2 and "containerPort\t<integer> -required-" in v2
