"""Every test runs in both modes: compiled kernels and their pure-Python twins.

``KCODEC_PURE=1`` restricts the run to pure mode (the extension may not be built).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from kcodec import speedups

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURES = SHARED / "fixtures" / "k8s-api-v0.36.3" / "HEAD"

_MODES = ["pure"]
if speedups.available() and os.environ.get("KCODEC_PURE", "") not in ("1", "true", "yes"):
    _MODES.append("compiled")


@pytest.fixture(params=_MODES, autouse=True)
def kcodec_mode(request: pytest.FixtureRequest):
    """Bind kcodec's kernels to the mode under test, and restore them afterwards."""
    previous = speedups.ENABLED
    speedups.use_compiled(request.param == "compiled")
    yield request.param
    speedups.use_compiled(previous)


def fixtures_dir() -> Path:
    """The Go-written fixtures, or a skip when ../shared is not beside the checkout."""
    if not FIXTURES.is_dir():
        pytest.skip(f"Go fixtures not found at {FIXTURES} (../shared must sit beside the clone)")
    return FIXTURES
