"""Smoke test of the storage benchmarks (asv_bench/benchmarks/storage.py): every benchmark
runs once on a tiny collection, on SQLite and on the session's etcd. No timing is asserted."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)

ASV_DIR = Path(__file__).resolve().parents[2] / "asv_bench"
sys.path.insert(0, str(ASV_DIR))

from benchmarks import _docs, storage  # noqa: E402


@pytest.mark.parametrize("backend", storage.BACKENDS)
def test_storage_benchmarks_run_once(backend, kcodec_mode, request, monkeypatch) -> None:
    if not _docs.FIXTURES.is_dir():
        pytest.skip(f"Go fixtures not found at {_docs.FIXTURES}")
    if backend == "etcd":
        monkeypatch.setenv("KCODEC_BENCH_ETCD", ",".join(request.getfixturevalue("etcd_endpoints")))
    monkeypatch.setattr(storage, "STORE_ITEMS", 12)
    monkeypatch.setattr(storage, "WATCH_EVENTS", 15)
    ran = 0
    for cls in (storage.StoreOps, storage.StoreList, storage.StoreWatch):
        inst = cls()
        inst.setup(kcodec_mode, backend)
        try:
            for name in _docs.bench_methods(cls):
                getattr(inst, name)(kcodec_mode, backend)
                ran += 1
        finally:
            inst.teardown(kcodec_mode, backend)
    assert ran == 7
