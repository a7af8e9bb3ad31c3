"""The source distribution carries what a compiled build needs (the Cython sources and
their declarations) and what type checkers read (stubs, ``py.typed``)."""
from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def kcodec_mode() -> Iterator[str]:
    """Overrides conftest's two-mode fixture: packaging does not depend on the mode."""
    yield "none"


def test_sdist_carries_cython_sources_stubs_and_marker(tmp_path: Path) -> None:
    if not (ROOT / "setup.py").is_file():
        pytest.skip("not a source checkout")
    env = dict(os.environ, KCODEC_BUILD_EXT="0")
    done = subprocess.run(
        [sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (archive,) = tmp_path.glob("kcodec-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    speedups = ROOT / "kcodec" / "_speedups"
    wanted = {f"kcodec/_speedups/{p.name}" for pattern in ("*.pyx", "*.pxd", "*.pyi")
              for p in speedups.glob(pattern)}
    assert any(w.endswith(".pyx") for w in wanted) and any(w.endswith(".pxd") for w in wanted)
    missing = wanted - names
    assert not missing, f"sdist lacks {sorted(missing)}"
    assert "kcodec/py.typed" in names
    assert "setup.py" in names and "pyproject.toml" in names
    # Generated C is rebuilt from the .pyx, never shipped stale.
    assert not [n for n in names if n.startswith("kcodec/_speedups/") and n.endswith(".c")]
