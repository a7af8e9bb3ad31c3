"""Compiled mode loads no pure twin (``kcodec._native``) for ordinary work.

The compiled kernels hand their pure twins only what they leave to them (error texts, rare
shapes), and import them on first such need: ``import kcodec`` and the load and dump of a
Deployment in every format must leave ``kcodec._native`` unimported. Each scenario runs in
a fresh interpreter, since this process has loaded the twins long ago.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from kcodec import speedups

ROOT = Path(__file__).resolve().parents[2]

needs_compiled = pytest.mark.skipif(
    not speedups.available(), reason="the compiled kernels are not built or KCODEC_PURE=1 keeps them off")

#: A Deployment as an API server returns it: managedFields (FieldsV1), times, quantities,
#: int-or-string ports, labels and annotations, status.
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "web",
        "namespace": "default",
        "uid": "6b1e4c7a-2f0e-4d55-9b7a-1b8a7d3c9e01",
        "resourceVersion": "12345",
        "generation": 3,
        "creationTimestamp": "2024-05-01T10:00:00Z",
        "labels": {"app": "web", "tier": "frontend"},
        "annotations": {"deployment.kubernetes.io/revision": "3"},
        "managedFields": [{
            "manager": "kubectl-client-side-apply",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "time": "2024-05-01T10:00:00Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                         "f:spec": {"f:replicas": {}}},
        }],
    },
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "web"}},
        "strategy": {"type": "RollingUpdate",
                     "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 1}},
        "template": {
            "metadata": {"creationTimestamp": None, "labels": {"app": "web"}},
            "spec": {
                "containers": [{
                    "name": "nginx",
                    "image": "nginx:1.27",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "resources": {"limits": {"cpu": "500m", "memory": "128Mi"},
                                  "requests": {"cpu": "250m", "memory": "64Mi"}},
                    "readinessProbe": {"httpGet": {"path": "/", "port": 80, "scheme": "HTTP"},
                                       "periodSeconds": 10},
                    "env": [{"name": "MODE", "value": "production"}],
                }],
                "restartPolicy": "Always",
                "terminationGracePeriodSeconds": 30,
            },
        },
    },
    "status": {
        "observedGeneration": 3, "replicas": 3, "readyReplicas": 3, "availableReplicas": 3,
        "conditions": [{"type": "Available", "status": "True",
                        "lastUpdateTime": "2024-05-01T10:01:00Z",
                        "lastTransitionTime": "2024-05-01T10:01:00Z",
                        "reason": "MinimumReplicasAvailable",
                        "message": "Deployment has minimum availability."}],
    },
}

#: Loads and dumps the Deployment (and the Go fixture, when present) in every format, and
#: prints the kcodec._native modules loaded after ``import kcodec`` and after the work.
SCENARIO = """
import json, sys
import kcodec

def twins():
    return sorted(m for m in sys.modules if m == "kcodec._native" or m.startswith("kcodec._native."))

after_import = twins()
sources = [json.dumps(json.loads(sys.argv[1]), separators=(",", ":")).encode()]
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        sources.append(f.read())
for data in sources:
    obj = kcodec.load(data)
    for fmt in ("json", "yaml", "protobuf", "cbor"):
        out = kcodec.dump(obj, fmt)
        assert kcodec.dump(kcodec.load(out), fmt) == out, fmt
print(json.dumps({"after_import": after_import, "after_use": twins(),
                  "mode": kcodec.speedups.describe()}))
"""


def run(pure: bool) -> Any:
    env = {k: v for k, v in os.environ.items() if k != "KCODEC_PURE"}
    if pure:
        env["KCODEC_PURE"] = "1"
    env["PYTHONPATH"] = str(ROOT)
    paths = [str(FIXTURES / f"apps.v1.Deployment.{ext}") for ext in ("json", "yaml", "pb")]
    args = [json.dumps(DEPLOYMENT)] + [p for p in paths if Path(p).is_file()]
    out = subprocess.run([sys.executable, "-c", SCENARIO, *args], capture_output=True, text=True,
                         env=env, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(autouse=True)
def kcodec_mode():
    """Overrides conftest's two-mode fixture: each scenario picks its mode in a subprocess."""
    yield "subprocess"


@needs_compiled
def test_compiled_mode_loads_no_pure_twin() -> None:
    got = run(pure=False)
    assert got["mode"] == "compiled"
    assert got["after_import"] == []
    assert got["after_use"] == []


def test_pure_mode_runs_on_the_twins() -> None:
    got = run(pure=True)
    assert got["mode"].startswith("pure")
    assert got["after_import"] == []
    # The kernels are bound from the twins, each file of them.
    assert {"kcodec._native.json", "kcodec._native.codec", "kcodec._native.cbor",
            "kcodec._native.yaml", "kcodec._native.wire"} <= set(got["after_use"])


@needs_compiled
def test_a_fallback_loads_only_its_own_twin() -> None:
    # Malformed JSON is the pure interpret_gvk's to word: only kcodec._native.wire comes in.
    code = ("import sys, kcodec\n"
            "from kcodec.errors import DecodeError\n"
            "try:\n"
            "    kcodec.load(b'{\"kind\": 1}')\n"
            "except DecodeError as e:\n"
            "    print(e)\n"
            "print(sorted(m for m in sys.modules if m.startswith('kcodec._native')))\n")
    env = {k: v for k, v in os.environ.items() if k != "KCODEC_PURE"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    message, loaded = out.stdout.strip().splitlines()
    assert message == ("couldn't get version/kind; json parse error: json: cannot unmarshal number "
                       "into Go struct field .kind of type string")
    assert loaded == "['kcodec._native', 'kcodec._native.wire']"
