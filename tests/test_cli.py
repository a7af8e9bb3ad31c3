"""The ``kcodec`` command line: the installed console script and ``python -m kcodec``."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kcodec", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=60)


def test_version_reports_mode() -> None:
    out = _run("version", env={"KCODEC_PURE": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("kcodec ")
    assert "mode: pure (KCODEC_PURE is set)" in out.stdout


def test_no_command_is_usage_error() -> None:
    out = _run()
    assert out.returncode == 2
    assert "usage: kcodec" in out.stderr


def test_unknown_command_is_usage_error() -> None:
    out = _run("frobnicate")
    assert out.returncode == 2
    assert "invalid choice" in out.stderr


def test_console_script_installed() -> None:
    exe = shutil.which("kcodec")
    if exe is None:
        pytest.skip("the kcodec console script is not on PATH (package not installed)")
    out = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert "version" in out.stdout
