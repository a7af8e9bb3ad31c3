"""Smoke test of asv_bench/benchmarks/bench_crd.py: every benchmark runs once, on a small CRD.

No timing is asserted; the benchmark's documents are also checked to be what it says.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "asv_bench"))

from benchmarks import bench_crd  # noqa: E402


@pytest.fixture()
def small(monkeypatch):
    monkeypatch.setattr(bench_crd, "CRD_PROPERTIES", 3)


@pytest.mark.parametrize("fmt", ["json", "protobuf"])
def test_codec_benchmarks_run(small, kcodec_mode, fmt):
    b = bench_crd.CRDCodec()
    b.setup(kcodec_mode, fmt)
    b.time_decode(kcodec_mode, fmt)
    b.time_encode(kcodec_mode, fmt)
    assert b.ser.decode(b.data)[0] == b.obj
    props = b.obj.spec.versions[0].schema.open_apiv3_schema.properties["spec"].properties
    assert len(props) == 3 and props["field0"].items.schema.properties["mode"].default.raw == b'"Always"'


def test_convert_benchmark_runs(small, kcodec_mode):
    b = bench_crd.CRDConvert()
    b.setup(kcodec_mode)
    b.time_v1beta1_to_v1(kcodec_mode)
    assert b.obj.spec.validation is not None


@pytest.mark.parametrize("fmt", ["json", "cbor"])
def test_custom_resource_list_benchmark_runs(monkeypatch, kcodec_mode, fmt):
    monkeypatch.setattr(bench_crd, "CR_ITEMS", 5)
    b = bench_crd.CustomResourceListCodec()
    b.setup(kcodec_mode, fmt)
    b.time_decode(kcodec_mode, fmt)
    b.time_encode(kcodec_mode, fmt)
    back, _ = b.ser.decode(b.data, None, b.new())
    assert [i.get_name() for i in back.items] == [f"gadget-{i}" for i in range(5)]
    assert back.items[2].object["spec"] == b.obj.items[2].object["spec"]
