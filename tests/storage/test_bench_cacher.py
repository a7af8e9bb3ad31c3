"""Smoke test of the watch-cache benchmarks (asv_bench/benchmarks/cacher.py): every
benchmark runs once on a tiny collection, on SQLite and on the session's etcd. No timing
is asserted; the memory ratio is checked against its target, which holds at any size."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)

ASV_DIR = Path(__file__).resolve().parents[2] / "asv_bench"
sys.path.insert(0, str(ASV_DIR))

from benchmarks import _docs, cacher  # noqa: E402


@pytest.mark.parametrize("backend", cacher.BACKENDS)
def test_cacher_benchmarks_run_once(backend, kcodec_mode, request, monkeypatch) -> None:
    if not _docs.FIXTURES.is_dir():
        pytest.skip(f"Go fixtures not found at {_docs.FIXTURES}")
    if backend == "etcd":
        monkeypatch.setenv("KCODEC_BENCH_ETCD", ",".join(request.getfixturevalue("etcd_endpoints")))
    monkeypatch.setattr(cacher, "CACHE_ITEMS", 12)
    monkeypatch.setattr(cacher, "WATCHERS", 5)
    monkeypatch.setattr(cacher, "WATCH_EVENTS", 20)
    monkeypatch.setattr(cacher, "LIVE_EVENTS", 10)
    ran = 0
    for cls in (cacher.CacherList, cacher.CacherWatch, cacher.CacherMemory):
        if backend not in cls.params[1]:
            continue
        inst = cls()
        inst.setup(kcodec_mode, backend)
        try:
            for name in _docs.bench_methods(cls):
                result = getattr(inst, name)(kcodec_mode, backend)
                if name == "track_cached_over_decoded":
                    assert 0.5 < result <= 1.5
                ran += 1
        finally:
            inst.teardown(kcodec_mode, backend)
    assert ran == (8 if backend == "sqlite" else 5)
