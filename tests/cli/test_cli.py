"""The ``kcodec`` command line: the installed console script and ``python -m kcodec``."""
from __future__ import annotations

import json
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


def _run_in(args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess:
    """Run the command line in the mode the test runs in (the child reads KCODEC_PURE)."""
    from kcodec import speedups

    env = {**os.environ, "KCODEC_PURE": "0" if speedups.ENABLED else "1"}
    return subprocess.run([sys.executable, "-m", "kcodec", *args], input=stdin,
                          capture_output=True, timeout=120, env=env)


def test_decode_protobuf_gives_gos_yaml() -> None:
    from conftest import fixtures_dir

    d = fixtures_dir()
    out = _run_in(["decode", "-f", str(d / "core.v1.Pod.pb")])
    assert out.returncode == 0, out.stderr
    assert out.stdout == (d / "core.v1.Pod.yaml").read_bytes()


def test_encode_yaml_gives_gos_protobuf_from_stdin() -> None:
    from conftest import fixtures_dir

    d = fixtures_dir()
    out = _run_in(["encode", "-o", "protobuf"], (d / "apps.v1.Deployment.yaml").read_bytes())
    assert out.returncode == 0, out.stderr
    assert out.stdout == (d / "apps.v1.Deployment.pb").read_bytes()


def test_cbor_in_and_out_gives_gos_bytes() -> None:
    from conftest import fixtures_dir

    d = fixtures_dir()
    cbor = d.parent / "cbor-go" / "apps.v1.Deployment.cbor"
    out = _run_in(["encode", "-o", "cbor", "-f", str(d / "apps.v1.Deployment.yaml")])
    assert out.returncode == 0, out.stderr
    assert out.stdout == cbor.read_bytes()
    out = _run_in(["decode", "-f", str(cbor)])
    assert out.returncode == 0, out.stderr
    assert out.stdout == (d / "apps.v1.Deployment.yaml").read_bytes()


def test_decode_directory_reports_bad_documents_and_goes_on(tmp_path) -> None:
    (tmp_path / "a.yaml").write_bytes(
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nkind: Broken\n")
    (tmp_path / "b.json").write_bytes(b'{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}')
    (tmp_path / "notes.txt").write_bytes(b"not a manifest")
    out = _run_in(["decode", "-f", str(tmp_path), "-o", "json"])
    assert out.returncode == 1
    lines = out.stderr.decode().splitlines()
    assert lines == [f"kcodec: error: {tmp_path / 'a.yaml'}: document 1: "
                     "Object 'apiVersion' is missing in 'kind: Broken '"]
    listed = json.loads(out.stdout)
    assert listed["kind"] == "List"
    assert [i["metadata"]["name"] for i in listed["items"]] == ["a", "s"]


def test_decode_strict_and_missing_file() -> None:
    out = _run_in(["decode", "--strict"], b"apiVersion: v1\nkind: ConfigMap\nbogus: 1\n")
    assert out.returncode == 1
    assert b'<stdin>: document 0: strict decoding error: unknown field "bogus"' in out.stderr
    out = _run_in(["decode", "-f", "/nonexistent/x.yaml"])
    assert out.returncode == 1
    assert out.stderr == b"kcodec: error: /nonexistent/x.yaml: no such file or directory\n"


def test_encode_needs_output_and_protobuf_takes_one_object() -> None:
    assert _run_in(["encode"]).returncode == 2
    two = b"apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: ConfigMap\n"
    out = _run_in(["encode", "-o", "protobuf"], two)
    assert out.returncode == 1
    assert b"-o protobuf writes one object and the input holds 2" in out.stderr
    out = _run_in(["encode", "-o", "json"], two)
    assert out.returncode == 0
    assert out.stdout == b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}\n' * 2


def _run_with_terminal_stderr(args: list[str], after: str) -> tuple[int, bytes, bytes]:
    """Run the command with stderr on a pseudo-terminal and stdout on a pipe."""
    import pty

    from kcodec import speedups

    master, slave = pty.openpty()
    env = {**os.environ, "KCODEC_PURE": "0" if speedups.ENABLED else "1", "KCODEC_PROGRESS_AFTER": after}
    try:
        proc = subprocess.run([sys.executable, "-m", "kcodec", *args], stdout=subprocess.PIPE, stderr=slave,
                              timeout=120, env=env)
        os.close(slave)
        slave = -1
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other side is closed and drained
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    return proc.returncode, proc.stdout, seen


def test_progress_on_a_terminal_only_and_erased(tmp_path) -> None:
    from conftest import fixtures_dir

    d = fixtures_dir()
    for i in range(3):
        (tmp_path / f"pod{i}.yaml").write_bytes((d / "core.v1.Pod.yaml").read_bytes())
    (tmp_path / "bad.yaml").write_bytes(b"apiVersion: v1\nkind: Pod\nspec: [\n")
    rc, out, err = _run_with_terminal_stderr(["decode", "-f", str(tmp_path), "-o", "json"], after="0")
    assert rc == 1 and out.count(b'"kind": "Pod"') == 3
    assert b"kcodec: 1 documents" in err and b"with errors" in err  # counted as it went
    assert err.rstrip(b"\r\n").endswith(b"\r\x1b[K")                # and erased at the end
    assert b"bad.yaml: document 0" in err
    # A short run (under KCODEC_PROGRESS_AFTER seconds) and a piped stderr show no count.
    rc, out, err = _run_with_terminal_stderr(["decode", "-f", str(tmp_path), "-o", "json"], after="60")
    assert b"kcodec: 1 documents" not in err and b"bad.yaml: document 0" in err
    piped = _run_in(["decode", "-f", str(tmp_path), "-o", "json"])
    assert b"documents" not in piped.stderr and b"\x1b[K" not in piped.stderr


def test_missing_extension_warns_once_unless_pure_is_chosen() -> None:
    """A wheel whose compile failed runs pure: the first import says so (pip hides build output)."""
    code = ("import sys, warnings\n"
            "sys.modules['kcodec._speedups'] = None  # as if the extension was never built\n"
            "warnings.simplefilter('default')\n"
            "import kcodec.speedups as s\n"
            "print(s.describe())\n")
    env = {k: v for k, v in os.environ.items() if k != "KCODEC_PURE"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "pure (the compiled extension is not built)"
    assert out.stderr.count("RuntimeWarning: kcodec: the compiled speedups are not installed") == 1
    quiet = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env={**env, "KCODEC_PURE": "1"})
    assert quiet.returncode == 0 and "RuntimeWarning" not in quiet.stderr
