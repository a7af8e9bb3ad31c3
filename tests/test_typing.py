"""Type checkers see the generated models' fields: mypy, run on user code the way a user
runs it (from another directory, against the installed package), flags wrong field types
and misspelled fields, and accepts correct code."""
from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

GOOD = '''
from kcodec.api.apps.v1 import Deployment, DeploymentSpec
from kcodec.api.core.v1 import Container, PodSpec, PodTemplateSpec
from kcodec.api.meta.v1 import ObjectMeta

d = Deployment(
    metadata=ObjectMeta(name="web", labels={"app": "web"}),
    spec=DeploymentSpec(
        replicas=3,
        template=PodTemplateSpec(spec=PodSpec(containers=[Container(name="c", image="nginx")])),
    ),
)
d.spec.replicas = 4
n: int | None = d.spec.replicas
'''

BAD = '''
from kcodec.api.apps.v1 import DeploymentSpec
from kcodec.api.core.v1 import Container

a = DeploymentSpec(replicas="three")
b = DeploymentSpec(replcas=3)
c = Container(name=1)
a.paused = "yes"
'''


@pytest.fixture(autouse=True)
def kcodec_mode() -> Iterator[str]:
    """Overrides conftest's two-mode fixture: type checking does not depend on the mode."""
    yield "none"


def _mypy(tmp_path: Path, code: str) -> subprocess.CompletedProcess:
    pytest.importorskip("mypy", reason="mypy is a test dependency")
    src = tmp_path / "user_code.py"
    src.write_text(code)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / ".mypy_cache"), str(src)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )


def test_mypy_accepts_correct_models(tmp_path: Path) -> None:
    out = _mypy(tmp_path, GOOD)
    assert "Cannot find implementation or library stub" not in out.stdout, (
        "mypy cannot see the installed kcodec: install it with "
        "`pip install -e . --config-settings editable_mode=compat` (or a regular install)")
    assert out.returncode == 0, out.stdout


def test_mypy_flags_wrong_types_and_unknown_fields(tmp_path: Path) -> None:
    out = _mypy(tmp_path, BAD)
    lines = [l for l in out.stdout.splitlines() if ": error:" in l]
    assert any(':5: error: Argument "replicas" to "DeploymentSpec" has incompatible type "str"' in l for l in lines), out.stdout
    assert any(':6: error: Unexpected keyword argument "replcas"' in l for l in lines), out.stdout
    assert any(':7: error: Argument "name" to "Container" has incompatible type "int"' in l for l in lines), out.stdout
    assert any(":8: error: Incompatible types in assignment" in l for l in lines), out.stdout
    assert len(lines) == 4, out.stdout


def test_runtime_signature_lists_the_fields() -> None:
    from kcodec.api.apps.v1 import DeploymentSpec

    sig = inspect.signature(DeploymentSpec)
    assert list(sig.parameters)[:3] == ["replicas", "selector", "template"]
    assert sig.parameters["replicas"].default is None
    assert sig.parameters["min_ready_seconds"].default == 0
