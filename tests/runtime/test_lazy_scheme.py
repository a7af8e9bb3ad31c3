"""kcodec.runtime.scheme.LazyScheme: the built-in schemes install groups as lookups need them.

Go builds k8s.io/kubernetes/pkg/api/legacyscheme whole, from every pkg/apis/<group>/install
package; kcodec installs a group (its internal and external versions, conversions and
defaulters, after the groups its types embed) on the first lookup that needs it. Whatever
was loaded first, the answers are those of a scheme built whole: these tests convert every
Go-written fixture through a scheme that starts empty for its group and compare the bytes
with a scheme that has every group.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kcodec import legacyscheme
from kcodec.schema import GroupVersion, GroupVersionKind

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "k8s-api-v0.36.3" / "HEAD"


def _eager():
    from kcodec.serializer.factory import CodecFactory

    s = legacyscheme._new_scheme()
    s.load_all()
    return s, CodecFactory(s)


def _json(codecs, obj) -> bytes:
    for info in codecs.supported_media_types():
        if info.media_type == "application/json":
            return info.serializer.encode(obj)
    raise AssertionError("no JSON serializer")


def test_one_deployment_installs_its_groups_only() -> None:
    from kcodec.serializer.factory import CodecFactory

    s = legacyscheme._new_scheme()
    codecs = CodecFactory(s)
    obj, _ = codecs.universal_decoder().decode(
        b'{"apiVersion":"apps/v1beta1","kind":"Deployment","metadata":{"name":"d"},'
        b'"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}}}')
    out = s.convert_to_version(obj, GroupVersion("apps", "v1"))
    assert out.spec.template.spec.containers[0].image == "i"
    loaded = [u for u in legacyscheme._units() if u not in s.pending_units()]
    assert loaded == ["core", "apps", "autoscaling"]
    assert repr(s).startswith("LazyScheme(name='kcodec.legacyscheme', units=3/")


def test_whole_scheme_queries_install_everything() -> None:
    s = legacyscheme._new_scheme()
    assert GroupVersion("batch", "v1") in s.prioritized_versions_all_groups()
    assert s.pending_units() == []


def test_an_unknown_kind_of_a_known_group_names_the_scheme() -> None:
    from kcodec.errors import NotRegisteredError

    s = legacyscheme._new_scheme()
    with pytest.raises(NotRegisteredError,
                       match='no kind "Deployment" is registered for version "apps/v9" in scheme "kcodec.legacyscheme"'):
        s.new(GroupVersionKind("apps", "v9", "Deployment"))


def test_served_versions() -> None:
    assert legacyscheme.served_versions("apps") == [GroupVersion("apps", "v1"), GroupVersion("apps", "v1beta2"),
                                                    GroupVersion("apps", "v1beta1")]
    assert legacyscheme.served_versions("nope.example.com") == []


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures/k8s-api-v0.36.3/HEAD not found")
def test_a_scheme_started_per_group_converts_as_the_whole_scheme() -> None:
    from kcodec.serializer.factory import CodecFactory

    eager, eager_codecs = _eager()
    by_package: dict[str, list[bytes]] = {}
    for path in sorted(FIXTURES.glob("*.json")):
        data = path.read_bytes()
        try:
            obj, _ = eager_codecs.universal_decoder().decode(data)
        except Exception:  # noqa: BLE001 - kinds without an internal version
            continue
        pkg = type(obj).__module__.split(".")[2]
        if pkg != "meta":
            by_package.setdefault(pkg, []).append(data)
    assert len(by_package) >= 20
    compared = 0
    for pkg, docs in by_package.items():
        lazy = legacyscheme._new_scheme()
        lazy_codecs = CodecFactory(lazy)
        for data in docs:
            want_in, _ = eager_codecs.universal_decoder().decode(data)
            got_in, _ = lazy_codecs.universal_decoder().decode(data)
            for k in eager.object_kinds(want_in)[0]:
                for gv in legacyscheme.served_versions(k.group):
                    if not eager.recognizes(gv.with_kind(k.kind)):
                        continue
                    want = _json(eager_codecs, eager.convert_to_version(want_in, gv))
                    got = _json(lazy_codecs, lazy.convert_to_version(got_in, gv))
                    assert got == want, (pkg, gv)
                    compared += 1
        assert lazy.pending_units(), f"{pkg}: converting its kinds installed every group"
    assert compared > 300


def test_convert_cli_of_one_file_installs_few_groups(tmp_path) -> None:
    manifest = tmp_path / "d.yaml"
    manifest.write_text("apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: d}\n"
                        "spec:\n  template:\n    spec:\n      containers: [{name: c, image: i}]\n")
    code = ("import sys\nfrom kcodec.cli import main\nfrom kcodec import legacyscheme\n"
            f"assert main(['convert', '-f', {str(manifest)!r}]) == 0\n"
            "print(len(legacyscheme._units()) - len(legacyscheme.scheme.pending_units()), file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert b"apiVersion: apps/v1" in out.stdout.encode()
    assert int(out.stderr.strip().splitlines()[-1]) <= 3
