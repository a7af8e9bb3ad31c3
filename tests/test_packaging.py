"""What users install: the sdist carries the sources a compiled build needs, the README's
demo and the guide; wheels are stripped, honestly tagged, and repairable for manylinux.

These build real distributions with ``python -m build`` (an isolated build, as pip does),
so they take a minute; they do not depend on the kernel mode and run once.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: pyproject.toml's dependencies, with the module each one provides.
RUNTIME_DEPENDENCIES = (("protobuf", "google.protobuf"), ("pyyaml", "yaml"),
                        ("cryptography", "cryptography"), ("pynacl", "nacl"),
                        ("aiohttp", "aiohttp"))


@pytest.fixture(autouse=True)
def kcodec_mode() -> Iterator[str]:
    """Overrides conftest's two-mode fixture: packaging does not depend on the mode."""
    yield "none"


def _build(kind: str, out: Path, **env: str) -> subprocess.CompletedProcess:
    if not (ROOT / "setup.py").is_file():
        pytest.skip("not a source checkout")
    pytest.importorskip("build", reason="the 'build' package is a test dependency")
    # A wheel is built from the sdist, as pip builds one from PyPI: a checkout's own
    # build/ directory (an earlier compiled build) must not leak into a pure wheel.
    flags = ["--sdist"] if kind == "sdist" else []
    done = subprocess.run(
        [sys.executable, "-m", "build", *flags, "-o", str(out), str(ROOT)],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=900,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done


def test_sdist_carries_sources_examples_docs_and_license(tmp_path: Path) -> None:
    _build("sdist", tmp_path, KCODEC_BUILD_EXT="0")
    (archive,) = tmp_path.glob("kcodec-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    speedups = ROOT / "kcodec" / "_speedups"
    wanted = {f"kcodec/_speedups/{p.name}" for pattern in ("*.pyx", "*.pxd", "*.pyi")
              for p in speedups.glob(pattern)}
    assert any(w.endswith(".pyx") for w in wanted) and any(w.endswith(".pxd") for w in wanted)
    missing = wanted - names
    assert not missing, f"sdist lacks {sorted(missing)}"
    assert {"kcodec/py.typed", "setup.py", "pyproject.toml", "LICENSE", "README.md",
            "examples/demo.py", "docs/design.md"} <= names
    # Generated C is rebuilt from the .pyx, never shipped stale.
    assert not [n for n in names if n.endswith((".c", ".so"))]
    with tarfile.open(archive) as tar:
        pkg_info = next(m for m in tar.getmembers() if m.name.endswith("/PKG-INFO"))
        meta = tar.extractfile(pkg_info).read().decode()  # type: ignore[union-attr]
    assert "License-Expression: Apache-2.0" in meta


@pytest.mark.parametrize("how", ["skipped", "failed"])
def test_pure_wheel_is_tagged_pure(tmp_path: Path, how: str) -> None:
    env = {"KCODEC_BUILD_EXT": "0"} if how == "skipped" else {"KCODEC_BUILD_EXT": "auto", "CC": "false"}
    done = _build("wheel", tmp_path, **env)
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    with zipfile.ZipFile(wheel) as z:
        assert not [n for n in z.namelist() if n.endswith(".so")]
    if how == "failed":
        assert "kcodec is installed in pure-Python mode" in done.stdout + done.stderr


def test_compiled_wheel_is_stripped_repairable_and_runs(tmp_path: Path) -> None:
    auditwheel = shutil.which("auditwheel")
    if auditwheel is None:
        pytest.skip("auditwheel is not installed (a test dependency)")
    _build("wheel", tmp_path / "raw", KCODEC_BUILD_EXT="1")
    (wheel,) = (tmp_path / "raw").glob("*.whl")
    assert "-linux_" in wheel.name
    with zipfile.ZipFile(wheel) as z:
        sizes = {n: z.getinfo(n).file_size for n in z.namelist() if n.endswith(".so")}
    assert len(sizes) >= 6
    # Stripped: with debug symbols the largest module is over 1.5 MB.
    assert max(sizes.values()) < 600_000, sizes
    repaired = subprocess.run([auditwheel, "repair", str(wheel), "-w", str(tmp_path / "fixed")],
                              capture_output=True, text=True, timeout=300)
    assert repaired.returncode == 0, repaired.stderr[-2000:]
    (fixed,) = (tmp_path / "fixed").glob("*.whl")
    assert "manylinux" in fixed.name
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    # The wheel is installed without its dependencies (no index here): the venv sees those of
    # the system's site-packages only, not those of a virtualenv running this suite.
    missing = [dist for dist, module in RUNTIME_DEPENDENCIES
               if subprocess.run([str(py), "-c", f"import {module}"], capture_output=True,
                                 timeout=120).returncode != 0]
    if missing:
        pytest.skip(f"the wheel's dependencies {', '.join(missing)} are not installed system-wide "
                    f"(a venv with --system-site-packages must see them): pip install {' '.join(missing)}")
    # Without PYTHONPATH: a source tree on it (with its kcodec.egg-info) makes pip answer
    # "already installed" and skip the wheel.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KCODEC_PURE")}
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(fixed)],
                   check=True, timeout=300, capture_output=True, env=env)
    out = subprocess.run([str(venv / "bin" / "kcodec"), "version"], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    assert "mode: compiled" in out.stdout
    where = subprocess.run([str(py), "-c", "import kcodec; print(kcodec.__file__)"], capture_output=True,
                           text=True, timeout=120, cwd=tmp_path, env=env)
    assert str(venv) in where.stdout
    # The user guide's examples, run against the installed wheel alone (outside the checkout).
    import re

    guide = (Path(__file__).resolve().parents[1] / "docs" / "guide.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", guide, re.S | re.M)
    script = tmp_path / "guide_examples.py"
    script.write_text("\n".join(blocks), encoding="utf-8")
    ran = subprocess.run([str(py), str(script)], capture_output=True, text=True, timeout=600,
                         cwd=tmp_path, env=env)
    assert ran.returncode == 0, ran.stderr[-3000:]


def test_runtime_dependencies_are_pyprojects() -> None:
    import re

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    listed = re.search(r"^dependencies = \[(.*?)\]", text, re.M)
    assert listed is not None
    names = {re.split(r"[<>=!~ ]", d.strip().strip('"'))[0] for d in listed.group(1).split(",")}
    assert names == {dist for dist, _ in RUNTIME_DEPENDENCIES}
