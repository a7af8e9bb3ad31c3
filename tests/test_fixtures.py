"""The oracle: Go-written json/yaml/pb files of every built-in kind (Kubernetes 1.36), and of
apiextensions.k8s.io (k8s.io/apiextensions-apiserver v0.36.3).

Each file must decode, re-encode to identical bytes, and the three decoded objects must
be equal. Runs in both modes (see conftest.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES, SHARED, fixtures_dir

KINDS = sorted({p.name.rsplit(".", 1)[0] for p in FIXTURES.glob("*.json")}) if FIXTURES.is_dir() else []
APIEXTENSIONS = SHARED / "fixtures" / "apiextensions-apiserver-v0.36.3" / "HEAD"
APIEXTENSIONS_KINDS = sorted({p.name.rsplit(".", 1)[0] for p in APIEXTENSIONS.glob("*.json")})


@pytest.fixture(scope="module")
def serializers():
    from kcodec.api import scheme
    from kcodec.serializer.json import Serializer as JSONSerializer
    from kcodec.serializer.protobuf import Serializer as ProtobufSerializer

    return {
        "json": JSONSerializer(scheme, scheme, pretty=True),
        "yaml": JSONSerializer(scheme, scheme, yaml=True),
        "pb": ProtobufSerializer(scheme, scheme),
    }


def test_fixture_folder_is_complete():
    folder = fixtures_dir()
    assert len(list(folder.glob("*.json"))) == 185
    assert len(list(folder.iterdir())) == 555


@pytest.mark.parametrize("name", KINDS)
def test_fixture_roundtrip(name: str, serializers) -> None:
    _roundtrip(fixtures_dir(), name, serializers)


def test_apiextensions_fixture_folder_is_complete():
    if not APIEXTENSIONS.is_dir():
        pytest.skip(f"apiextensions fixtures not found at {APIEXTENSIONS}")
    assert APIEXTENSIONS_KINDS == [f"apiextensions.k8s.io.{v}.{k}" for v in ("v1", "v1beta1")
                                   for k in ("ConversionReview", "CustomResourceDefinition")]
    assert len(list(APIEXTENSIONS.iterdir())) == 12


@pytest.mark.parametrize("name", APIEXTENSIONS_KINDS)
def test_apiextensions_fixture_roundtrip(name: str, serializers) -> None:
    _roundtrip(APIEXTENSIONS, name, serializers)


def _roundtrip(folder: Path, name: str, serializers) -> None:
    from kcodec.schema import GroupVersionKind

    group, version, kind = name.rsplit(".", 2)
    # Go's round-trip test knows the kind it decodes; WatchEvent's files carry none.
    expected = GroupVersionKind("" if group == "core" else group, version, kind)
    decoded = {}
    for ext, serializer in serializers.items():
        data = (folder / f"{name}.{ext}").read_bytes()
        obj, gvk = serializer.decode(data, expected)
        assert gvk == expected
        out = serializer.encode(obj)
        if out != data:
            idx = next((i for i, (a, b) in enumerate(zip(out, data)) if a != b), min(len(out), len(data)))
            pytest.fail(f"{name}.{ext}: re-encoded bytes differ at byte {idx}: "
                        f"got {out[max(0, idx - 60):idx + 60]!r}, want {data[max(0, idx - 60):idx + 60]!r}")
        decoded[ext] = obj
    # RawExtension and FieldsV1 keep the bytes they were read from (the pretty JSON file's,
    # the YAML's compact JSON, protobuf's), as Go's do: compare what they mean, as JSON.
    as_json = {ext: serializers["json"].encode(obj) for ext, obj in decoded.items()}
    assert as_json["json"] == as_json["yaml"], f"{name}: JSON and YAML decode differ"
    assert as_json["json"] == as_json["pb"], f"{name}: JSON and protobuf decode differ"
