"""Tests of ``tools/bench_report.py``: cases run in child processes, results come back, the
markdown keeps its shape. No timing is asserted; documents are tiny (3 pods, 2 for memory).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kcodec import speedups

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "asv_bench"))

from benchmarks import _docs, bench_peers  # noqa: E402


@pytest.fixture(autouse=True)
def kcodec_mode() -> Iterator[str]:
    """Overrides conftest's two-mode fixture: every case sets its own mode (in a child, or
    through its setup in-process), so running these tests twice would only double their cost.
    The mode is restored because in-process setups switch it."""
    previous = speedups.ENABLED
    yield "pure"
    speedups.use_compiled(previous)


@pytest.fixture(scope="module")
def report() -> Any:
    """``tools/bench_report.py`` as a module (``tools`` is not a package)."""
    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "tools" / "bench_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def docs() -> Iterator[dict[str, Any]]:
    """The benchmark documents with a 3-pod PodList (2 pods for the memory benchmarks)."""
    with _docs.sized_documents(3, 2) as built:
        yield built


class _SkippingBench:
    """Stands in for a benchmark whose setup skips, as asv's NotImplementedError."""

    setup_cache = staticmethod(_docs.build_documents)  # asv then passes the documents first

    def setup(self, docs: dict[str, Any]) -> None:
        raise NotImplementedError("peer xyz is not installed")

    def time_nothing(self, docs: dict[str, Any]) -> None:
        pass


def test_case_ids_round_trip(report: Any) -> None:
    registry = report._registry()
    for _, rows in report.operations(3):
        for _, cls, _, _ in rows:
            assert registry[report.class_id(cls)] is cls
    for _, cls, method, _ in report.memory_cases():
        assert registry[report.class_id(cls)] is cls
        assert method.startswith("track_")


def test_children_measure_and_track(report: Any, docs: dict[str, Any]) -> None:
    """Each case runs in its own process and sends back timing samples or a tracked value."""
    runner = report.Runner(docs, repeat=2, budget=0.0, in_process=False)
    try:
        docs_path = Path(runner.docs_path)
        assert docs_path.is_file()
        timed = runner.run(bench_peers.PeerPlainDict, "time_loads", ("json", "pod"))
        tracked = runner.run(report.JsonLoadsMemory, "track_retained_bytes", ())
    finally:
        runner.close()
    assert not docs_path.exists()
    assert set(timed) == {"samples", "probe"}, timed
    assert 1 <= len(timed["samples"]) <= 2 and all(s > 0 for s in timed["samples"])
    assert set(tracked) == {"value", "probe"}, tracked
    assert tracked["value"] > 0
    # The speed probe brackets every case: a positive time per loop, well under a second.
    assert 0 < timed["probe"] < 1 and 0 < tracked["probe"] < 1


class _CountingSetups:
    """``number = 1``: each sample must get a fresh setup (the free benchmark relies on it)."""

    number = 1
    setups = 0
    torn_down: list[int] = []
    setup_cache = staticmethod(_docs.build_documents)

    def setup(self, docs: dict[str, Any]) -> None:
        type(self).setups += 1
        self.serial = type(self).setups
        self.obj: list[int] | None = [1]

    def teardown(self, docs: dict[str, Any]) -> None:
        type(self).torn_down.append(self.serial)

    def time_drop(self, docs: dict[str, Any]) -> None:
        assert self.obj is not None, "sample ran without a fresh setup"
        self.obj = None


def test_single_call_classes_get_a_setup_per_sample(report: Any, docs: dict[str, Any],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    registry = report._registry()
    registry["test.Counting"] = _CountingSetups
    monkeypatch.setattr(report, "_registry", lambda: registry)
    _CountingSetups.setups = 0
    _CountingSetups.torn_down = []
    out = report.run_case({"cls": "test.Counting", "method": "time_drop", "params": []}, docs, 4, 0.0)
    assert len(out["samples"]) == 4 and _CountingSetups.setups == 4
    # Every instance is torn down once (asv's teardown: the arena-cache case restores its cap).
    assert sorted(_CountingSetups.torn_down) == [1, 2, 3, 4]


def test_child_failure_is_reported(report: Any, docs: dict[str, Any]) -> None:
    runner = report.Runner(docs, repeat=1, budget=0.0, in_process=False)
    try:
        out = runner._child({"cls": "nowhere.Missing", "method": "time_x", "params": []})
    finally:
        runner.close()
    assert set(out) == {"failed"} and "KeyError" in out["failed"], out


def test_in_process_skip_and_failure(report: Any, docs: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    registry = report._registry()
    registry["test.Skipping"] = _SkippingBench
    monkeypatch.setattr(report, "_registry", lambda: registry)
    monkeypatch.setattr(report, "class_id", lambda cls: "test.Skipping" if cls is _SkippingBench else "no.Such")
    runner = report.Runner(docs, repeat=1, budget=0.0, in_process=True)
    assert runner.run(_SkippingBench, "time_nothing", ()) == {"skipped": "peer xyz is not installed"}
    failed = runner.run(bench_peers.PeerYAML, "time_load_pod", ())
    assert set(failed) == {"failed"} and "KeyError" in failed["failed"]


def test_main_keeps_report_shape(report: Any, docs: dict[str, Any], capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Header, timing table and memory table (in-process; the slow peer memory rows are left out)."""
    first_rows = report.memory_cases()[:3]
    monkeypatch.setattr(report, "memory_cases", lambda: first_rows)
    saved = (_docs.LIST_ITEMS, _docs.MEM_ITEMS)
    try:
        assert report.main(["--in-process", "--items", "3", "--mem-items", "2", "--only", "GVK",
                            "--repeat", "1", "--budget", "0", "--rounds", "2"]) == 0
    finally:
        _docs.set_sizes(*saved)
    out = capsys.readouterr().out
    assert out.startswith("## kcodec benchmark report\n")
    assert "`python tools/bench_report.py --in-process --items 3" in out
    assert "GC enabled, all cases in one process." in out
    assert "x 2 interleaved round(s)" in out
    assert "| operation | implementation | median | vs kcodec pure | vs kcodec compiled | probe |" in out
    rows = [ln.split(" | ") for ln in out.splitlines() if ln.startswith("| GVK interpret, Pod JSON |")]
    assert [r[1] for r in rows] == ["kcodec (pure)", "kcodec (compiled)"]
    assert rows[0][3] == "1.00x"
    assert all(r[5].endswith("s |") for r in rows), rows
    summary = [ln for ln in out.splitlines() if ln.startswith("Speed probe over the run: fastest ")]
    assert len(summary) == 1 and summary[0].endswith("x the fastest)."), summary
    assert "### Retained memory of a decoded PodList(2) (tracemalloc)" in out
    retained, _, peak = out.partition("### Peak memory of a protobuf decode of that PodList")
    mem = [ln.split(" | ") for ln in retained.splitlines()
           if ln.startswith("| ") and ln.count("|") == 4 and "decoder" not in ln]
    assert [r[0] for r in mem] == ["| json.loads (dicts)", "| kcodec (pure)", "| kcodec (compiled)"]
    assert mem[0][1].endswith(" MiB") and mem[0][2] == "1.00x |"
    rows = [ln.split(" | ") for ln in peak.splitlines() if ln.startswith("| kcodec (")]
    assert [r[0] for r in rows] == ["| kcodec (pure)", "| kcodec (compiled)"]
    # Target: peak memory during a protobuf decode at most 2x what the result retains.
    for r in rows:
        assert 1.0 <= float(r[1].strip(" x")) <= 2.0, r
        # Two pods retain too few pages for the RSS ratio, which needs at least 1 MiB.
        assert r[2] == "skipped |", r


def test_a_child_imports_kcodec_from_the_checkout_it_is_given(report: Any, docs: dict[str, Any], tmp_path: Path) -> None:
    """--baseline runs a case's child against another checkout's kcodec: here a copy of this
    one whose kcodec/__init__.py announces itself, so the test sees which one was imported."""
    import shutil

    other = tmp_path / "other"
    shutil.copytree(ROOT / "kcodec", other / "kcodec", ignore=shutil.ignore_patterns("__pycache__"))
    init = other / "kcodec" / "__init__.py"
    init.write_text(init.read_text() + "\nprint('imported the other kcodec')\n")
    runner = report.Runner(docs, repeat=1, budget=0.0, in_process=False)
    try:
        cmd_out = runner._child({"cls": "bench_kcodec.PodCodec", "method": "time_decode",
                                 "params": ["compiled", "json"]}, str(other))
        assert "samples" in cmd_out, cmd_out
        import subprocess

        probe = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); "
                                "from benchmarks import _docs; print(_docs.KCODEC_ROOT)" % str(ROOT / "asv_bench")],
                               env={**os.environ, "KCODEC_BENCH_KCODEC_ROOT": str(other)},
                               capture_output=True, text=True, timeout=120)
        assert "imported the other kcodec" in probe.stdout and str(other) in probe.stdout, probe.stderr
    finally:
        runner.close()


def test_baseline_that_is_not_a_commit_is_refused(report: Any) -> None:
    with pytest.raises(SystemExit, match="not a commit"):
        report.baseline_checkout("no-such-revision-anywhere")


def test_timeraw_rows_time_a_fresh_interpreter(report: Any, docs: dict[str, Any]) -> None:
    """Start-up rows (asv ``timeraw_``) run the returned code with ``python -c`` once per
    sample; code that fails makes the row fail instead of timing an error exit."""
    from benchmarks import bench_hub

    mode = "compiled" if speedups.available() else "pure"
    out = report.run_case({"cls": "bench_hub.ConvertStartUp", "method": "timeraw_convert_one_manifest",
                           "params": [mode]}, docs, 2, 0.0)
    assert len(out["samples"]) == 2 and all(0 < s < 60 for s in out["samples"]), out
    with pytest.raises(RuntimeError, match="timeraw code exited 1"):
        report.timeraw("raise SystemExit(1)", 1)
    assert report.class_id(bench_hub.ConvertStartUp) == "bench_hub.ConvertStartUp"


def test_target_rows_measure_their_reference_beside_kcodec(report: Any) -> None:
    """Each target row (hub conversion, watch) holds the operation it must beat, in both modes."""
    titles = {title: rows for title, rows in report.operations(3)}
    hub = titles["convert PodList(3) v1 -> internal -> v1 (legacyscheme)"]
    assert [r[0] for r in hub] == ["kcodec", "protobuf decode of the list, kcodec (pure)",
                                   "protobuf decode of the list, kcodec (compiled)"]
    assert hub[2][3] == ("compiled",)
    watch = titles["watch: 30 Pod events, length-delimited protobuf"]
    assert watch[1][2] == "time_list" and watch[1][3] == ("pure", "protobuf")
    assert "convert 3 Deployments apps/v1beta1 -> apps/v1, defaults included" in titles


def test_only_takes_several_titles(report: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``--only 'a|b'`` keeps the operations whose title contains any of the parts, no others."""
    from conftest import fixtures_dir

    fixtures_dir()  # the benchmark documents are the Go-written fixture Pod
    saved = (_docs.LIST_ITEMS, _docs.MEM_ITEMS)
    try:
        assert report.main(["--in-process", "--items", "3", "--no-memory", "--only", "GVK|envelope decode",
                            "--repeat", "1", "--budget", "0"]) == 0
    finally:
        _docs.set_sizes(*saved)
    titles = {ln.split(" | ")[0][2:] for ln in capsys.readouterr().out.splitlines()
              if ln.startswith("| ") and not ln.startswith("| operation")}
    titles.discard("---")
    assert titles == {"GVK interpret, Pod JSON", "envelope decode, Pod pb"}, titles


def test_modes_option_leaves_out_pure_rows(report: Any, docs: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    saved = (_docs.LIST_ITEMS, _docs.MEM_ITEMS)
    try:
        assert report.main(["--in-process", "--items", "3", "--only", "GVK", "--no-memory",
                            "--repeat", "1", "--budget", "0", "--modes", "compiled"]) == 0
    finally:
        _docs.set_sizes(*saved)
    rows = [ln.split(" | ") for ln in capsys.readouterr().out.splitlines()
            if ln.startswith("| GVK interpret, Pod JSON |")]
    assert [r[1] for r in rows] == ["kcodec (compiled)"]
    assert _docs.MODES == ["pure", "compiled"]  # restored for whoever builds rows next
    with pytest.raises(SystemExit):
        report.main(["--modes", "fast"])
    assert _docs.MODES == ["pure", "compiled"]
