"""Smoke test of the registry benchmarks (asv_bench/benchmarks/registry.py): every benchmark
runs twice, on SQLite and on the session's etcd. No timing is asserted."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)

ASV_DIR = Path(__file__).resolve().parents[2] / "asv_bench"
sys.path.insert(0, str(ASV_DIR))

from benchmarks import _docs, registry  # noqa: E402


@pytest.mark.parametrize("backend", registry.BACKENDS)
def test_registry_benchmarks_run(backend, kcodec_mode, request, monkeypatch) -> None:
    if backend == "etcd":
        monkeypatch.setenv("KCODEC_BENCH_ETCD", ",".join(request.getfixturevalue("etcd_endpoints")))
    inst = registry.RegistryWrites()
    inst.setup(kcodec_mode, backend)
    try:
        names = _docs.bench_methods(registry.RegistryWrites)
        assert sorted(names) == ["time_registry_create", "time_registry_update", "time_storage_create",
                                 "time_storage_update"]
        for name in names:
            for _ in range(2):  # updates flip a label: both directions write
                getattr(inst, name)(kcodec_mode, backend)
        assert inst.current.metadata.labels["flip"] in ("true", "false")
    finally:
        inst.teardown(kcodec_mode, backend)
