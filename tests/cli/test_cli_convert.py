"""``kcodec convert`` run as a user runs it: ``python -m kcodec`` (and the console script when
installed) in a subprocess, on the kubectl-convert docs' example, multi-document input and the corpus."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _seeds import SEED_DEPLOYMENT as SEED

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "files"



def _commands() -> list[list[str]]:
    cmds = [[sys.executable, "-m", "kcodec"]]
    script = shutil.which("kcodec")
    if script:
        cmds.append([script])
    return cmds


def _run(args: list[str], stdin: bytes = b"", cmd: list[str] | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run((cmd or _commands()[0]) + args, input=stdin, capture_output=True,
                          env=env, timeout=120)


@pytest.fixture(autouse=True)
def _one_mode(kcodec_mode: str) -> None:
    # a subprocess picks its own mode; running these twice would only repeat the same work
    if kcodec_mode == "compiled":
        pytest.skip("subprocess tests run once (the child chooses its mode)")


@pytest.mark.parametrize("cmd", _commands(), ids=lambda c: Path(c[-1]).name)
def test_seed_example_stdin_to_apps_v1(cmd: list[str]) -> None:
    r = _run(["convert", "-f", "-", "--output-version", "apps/v1", "-o", "json"], SEED, cmd)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["apiVersion"], out["kind"]) == ("apps/v1", "Deployment")
    assert out["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.7.9"


def test_default_output_version_is_the_preferred_one(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_bytes(SEED)
    r = _run(["convert", "-f", str(f)])
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"apiVersion: apps/v1\nkind: Deployment\n")


def test_multi_document_with_a_bad_one(tmp_path: Path) -> None:
    f = tmp_path / "m.yaml"
    f.write_bytes(SEED + b"---\napiVersion: v1\nkind: Nope\n---\n"
                  b"apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: i}\n"
                  b"spec: {backend: {serviceName: s, servicePort: 80}}\n")
    r = _run(["convert", "-f", str(f), "-o", "json"])
    assert r.returncode == 1
    lines = r.stderr.decode().strip().splitlines()
    warnings = [x for x in lines if x.startswith("Warning: ")]
    lines = [x for x in lines if not x.startswith("Warning: ")]
    assert len(lines) == 1 and lines[0].startswith("kcodec: error: ") and f"{f}: document 1:" in lines[0] and "Nope" in lines[0]
    # versions kube-apiserver no longer serves say since when (kcodec.api.removed)
    assert warnings == [
        "Warning: apps/v1beta1 Deployment: not served since Kubernetes 1.16; successor: apps/v1",
        "Warning: extensions/v1beta1 Ingress: not served since Kubernetes 1.22; successor: networking.k8s.io/v1"]
    out = json.loads(r.stdout)
    assert out["kind"] == "List"
    assert [i["apiVersion"] for i in out["items"]] == ["apps/v1", "networking.k8s.io/v1"]
    assert out["items"][1]["spec"]["defaultBackend"]["service"]["port"]["number"] == 80


def test_protobuf_output(tmp_path: Path) -> None:
    r = _run(["convert", "-f", "-", "-o", "protobuf"], SEED)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"k8s\x00") and b"apps/v1" in r.stdout[:30]


def test_bad_usage_and_missing_file(tmp_path: Path) -> None:
    assert _run(["convert"]).returncode == 2
    assert _run(["convert", "-f", "-", "-o", "xml"], SEED).returncode == 2
    r = _run(["convert", "-f", str(tmp_path / "absent.yaml")])
    assert r.returncode == 1 and b"absent.yaml" in r.stderr and len(r.stderr.splitlines()) == 1


def test_help_has_examples() -> None:
    r = _run(["convert", "--help"])
    assert r.returncode == 0 and b"examples:" in r.stdout and b"--output-version" in r.stdout


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus not found")
def test_corpus_old_versions_convert_to_preferred(tmp_path: Path) -> None:
    """Every corpus document of an old version converts to its group's preferred version."""
    from kcodec import legacyscheme
    from kcodec.api.core import v1 as corev1
    from kcodec.cli.convert import _documents, _target

    old = []
    failures = []
    dec = legacyscheme.codecs.universal_deserializer()
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.suffix not in (".yaml", ".yml", ".json"):
            continue
        try:
            docs = list(_documents(path.read_bytes()))
        except Exception:
            continue  # templated or otherwise not plain YAML (the decode tests cover these)
        for n, doc in enumerate(docs, 1):
            try:
                obj, gvk = dec.decode(doc)
            except Exception:
                continue  # kinds the legacy scheme does not know (CRDs' objects...)
            if isinstance(obj, corev1.List) or gvk.version == "v1" and gvk.group in ("", "apps"):
                continue
            target = _target(obj, "")
            if str(target) == str(gvk.group_version()):
                continue
            old.append((path, n, gvk))
            try:
                out = legacyscheme.convert(obj, target)
                assert out.get_object_kind().group_version_kind().group_version() == target
            except Exception as exc:
                failures.append(f"{path.relative_to(CORPUS)} #{n} {gvk}: {exc}")
    assert not failures, failures
    assert old, "the corpus has old-version documents"
    # apiextensions-apiserver's scheme is part of the legacy scheme: v1beta1 CRDs convert too.
    assert any(gvk.group == "apiextensions.k8s.io" and gvk.version == "v1beta1" for _, _, gvk in old)
