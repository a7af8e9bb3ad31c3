"""kcodec.speedups binds the kernel names without importing the pure twins itself when the
compiled ones are in use, imports them on first need, and hands them the conversion hooks
given before they were imported."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "KCODEC_PURE"}
    environ.update(env, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ,
                          timeout=120, cwd=ROOT)


@pytest.fixture(autouse=True)
def kcodec_mode():
    """The children choose their own mode: run once."""
    yield "none"


def test_kernel_names_are_the_pure_twins_names() -> None:
    from kcodec import _native, speedups

    assert set(speedups.KERNELS) == set(_native.__all__)


def test_compiled_mode_binds_without_the_pure_twins() -> None:
    from kcodec import speedups

    if not speedups.available():
        pytest.skip("the compiled extension is not built")
    out = _run("from kcodec import speedups, _speedups\n"
               "assert speedups.ENABLED and speedups._pure is None\n"
               "assert all(getattr(speedups, n) is getattr(_speedups, n) for n in speedups.KERNELS)\n"
               "import kcodec.conversion\n"  # hands the hooks over
               "assert speedups._pure is None and speedups._conversion_hooks\n"
               "speedups.use_compiled(False)\n"
               "from kcodec import _native\n"
               "assert speedups._pure is _native and not speedups.ENABLED\n"
               "assert all(getattr(speedups, n) is getattr(_native, n) for n in speedups.KERNELS)\n"
               "from kcodec.api.apps import v1\n"
               "d = v1.Deployment(spec=v1.DeploymentSpec(replicas=2))\n"
               "assert d.deep_copy() == d\n"  # the pure conversion kernel got its hooks late
               "print('ok')")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_pure_mode_binds_the_pure_twins() -> None:
    out = _run("from kcodec import speedups, _native\n"
               "assert not speedups.ENABLED and speedups._pure is _native\n"
               "assert all(getattr(speedups, n) is getattr(_native, n) for n in speedups.KERNELS)\n"
               "print(speedups.describe())", KCODEC_PURE="1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "pure (KCODEC_PURE is set)"
