"""The command line's messages: one prefix (``kcodec: error:``), documents counted from 0 in
every command (as kubectl's resource builder counts them), one wording for a missing file,
a message for a directory without manifests, usage errors (exit 2) for a bad
``--output-version``, a refused etcd connection reported at once, and the format a
document that does not parse was read as."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from kcodec.cli import EXIT_BAD_INPUT, EXIT_USAGE, main

DEPLOYMENT = (b"apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: d}\n"
              b"spec:\n  template:\n    spec:\n      containers: [{name: c, image: i}]\n")


def _run(capsysbinary, *argv: str) -> tuple[int, bytes, str]:
    try:
        status = main(list(argv))
    except SystemExit as exit_:  # argparse's usage errors
        status = int(exit_.code or 0)
    out, err = capsysbinary.readouterr()
    return status, out, err.decode()


def test_convert_counts_documents_from_0(tmp_path: Path, capsysbinary) -> None:
    f = tmp_path / "m.yaml"
    f.write_bytes(b"apiVersion: v1\nkind: Nope\n---\n" + DEPLOYMENT)
    status, out, err = _run(capsysbinary, "convert", "-f", str(f))
    assert status == EXIT_BAD_INPUT and b"- apiVersion: apps/v1\n" in out  # several documents: a List
    errors = [line for line in err.splitlines() if not line.startswith("Warning: ")]
    assert errors == [f'kcodec: error: {f}: document 0: no kind "Nope" is registered for version "v1" '
                      'in scheme "kcodec.legacyscheme"']
    # decode counts the same way (there the unknown kind is Unstructured; a missing kind is not)
    f.write_bytes(DEPLOYMENT + b"---\napiVersion: v1\n")
    status, _, err = _run(capsysbinary, "decode", "-f", str(f))
    assert status == EXIT_BAD_INPUT and err.startswith(f"kcodec: error: {f}: document 1: ")


@pytest.mark.parametrize("command", [["decode"], ["encode", "-o", "json"], ["convert"], ["etcd", "decode"]])
def test_a_missing_file_has_one_wording(tmp_path: Path, capsysbinary, command) -> None:
    missing = tmp_path / "nope.yaml"
    status, out, err = _run(capsysbinary, *command, "-f", str(missing))
    assert status == EXIT_BAD_INPUT and out == b""
    assert err == f"kcodec: error: {missing}: no such file or directory\n"


def test_a_directory_without_manifests_says_so(tmp_path: Path, capsysbinary) -> None:
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "d.yaml").write_bytes(DEPLOYMENT)
    status, out, err = _run(capsysbinary, "decode", "-f", str(tmp_path))
    assert status == EXIT_BAD_INPUT and out == b""
    assert err == (f"kcodec: error: {tmp_path}: a directory with no .json, .yaml or .yml files in it "
                   "(-R reads subdirectories)\n")
    status, out, err = _run(capsysbinary, "decode", "-R", "-f", str(tmp_path))
    assert status == 0 and out.startswith(b"apiVersion: apps/v1beta1") and err == ""
    empty = tmp_path / "empty"
    empty.mkdir()
    status, out, err = _run(capsysbinary, "convert", "-f", str(empty))
    assert status == EXIT_BAD_INPUT and out == b""
    assert err == (f"kcodec: error: {empty}: a directory with no .json, .yaml or .yml files in it "
                   "or its subdirectories\n")


@pytest.mark.parametrize("version, message", [
    ("apps/v9", "kcodec: error: --output-version apps/v9: not a version of apps "
                "(apps/v1, apps/v1beta2, apps/v1beta1)\n"),
    ("nope.example.com/v1", "kcodec: error: --output-version nope.example.com/v1: no group "
                            "'nope.example.com' in kcodec.legacyscheme\n"),
])
def test_an_unknown_output_version_is_a_usage_error(tmp_path: Path, capsysbinary, version, message) -> None:
    f = tmp_path / "d.yaml"
    f.write_bytes(DEPLOYMENT)
    status, out, err = _run(capsysbinary, "convert", "-f", str(f), "--output-version", version)
    assert (status, out, err) == (EXIT_USAGE, b"", message)


def test_a_malformed_output_version_is_argparses_usage_error(tmp_path: Path, capsysbinary) -> None:
    f = tmp_path / "d.yaml"
    f.write_bytes(DEPLOYMENT)
    status, out, err = _run(capsysbinary, "convert", "-f", str(f), "--output-version", "a/b/c")
    assert status == EXIT_USAGE and out == b""
    # schema.ParseGroupVersion's text (k8s.io/apimachinery/pkg/runtime/schema/group_version.go)
    assert err.startswith("usage: kcodec convert")
    assert err.endswith("kcodec: error: convert: argument --output-version: "
                        "unexpected GroupVersion string: a/b/c\n")


def test_usage_errors_share_the_prefix(capsysbinary) -> None:
    status, _, err = _run(capsysbinary, "decode", "-o", "xml")
    assert status == EXIT_USAGE
    assert err.splitlines()[-1].startswith("kcodec: error: decode: argument -o/--output: invalid choice: 'xml'")


@pytest.mark.parametrize("data, where", [
    (b"hello world\n", "document 0: read as YAML: couldn't get version/kind; json parse error"),
    (b"\x01\x02garbage", "document 0: read as YAML: yaml: control characters are not allowed"),
    # a JSON stream cut short does not split into documents (the framer's io.ErrUnexpectedEOF)
    (b'{"apiVersion": ', "read as JSON: unexpected EOF"),
    (b"k8s\x00\xff\xff", "document 0: read as protobuf: "),
])
def test_decode_of_garbage_names_the_format_it_tried(tmp_path: Path, capsysbinary, data, where) -> None:
    f = tmp_path / "g.bin"
    f.write_bytes(data)
    status, out, err = _run(capsysbinary, "decode", "-f", str(f))
    assert status == EXIT_BAD_INPUT and out == b""
    assert err.startswith(f"kcodec: error: {f}: {where}"), err
    assert err.count("\n") == 1


def test_a_missing_kind_does_not_name_a_format(tmp_path: Path, capsysbinary) -> None:
    f = tmp_path / "k.yaml"
    f.write_bytes(b"apiVersion: v1\nmetadata: {name: x}\n")
    status, _, err = _run(capsysbinary, "decode", "-f", str(f))
    assert status == EXIT_BAD_INPUT and "read as" not in err and err.startswith(f"kcodec: error: {f}: document 0: ")


def test_a_refused_etcd_connection_fails_at_once(capsysbinary) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    status, out, err = _run(capsysbinary, "etcd", "get", "/registry/pods/default/web",
                            "--endpoints", f"http://127.0.0.1:{port}", "--timeout", "30")
    assert status == EXIT_BAD_INPUT and out == b""
    assert time.monotonic() - t0 < 10
    assert err == (f"kcodec: error: http://127.0.0.1:{port}: unreachable: connection refused by every "
                   f"etcd endpoint (127.0.0.1:{port})\n")
