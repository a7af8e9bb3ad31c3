"""Smoke test of the asv benchmarks: every benchmark runs once, on tiny documents.

No timing is asserted; this only keeps ``asv_bench/benchmarks`` importable and working as
kcodec changes. Benchmarks whose setup skips (compiled extension not built, a peer not
installed, ``kcodec.legacyscheme`` absent) are reported as skips, never as passes.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kcodec import speedups

ASV_DIR = Path(__file__).resolve().parents[2] / "asv_bench"
sys.path.insert(0, str(ASV_DIR))

import importlib  # noqa: E402

from benchmarks import _docs, bench_conversion  # noqa: E402

# Every benchmark module, found by name, so a new one is smoke-tested without a list to edit.
MODULES = tuple(
    importlib.import_module(f"benchmarks.{p.stem}")
    for p in sorted((ASV_DIR / "benchmarks").glob("bench_*.py"))
)
CLASSES = [
    obj
    for module in MODULES
    for name, obj in vars(module).items()
    if isinstance(obj, type) and obj.__module__ == module.__name__ and _docs.bench_methods(obj)
]


@pytest.fixture(scope="module")
def docs() -> Iterator[dict[str, Any]]:
    """The benchmark documents with a 3-pod PodList (2 pods for the memory benchmarks)."""
    with _docs.sized_documents(3, 2) as built:
        yield built


def _cases(cls: type, mode: str) -> list[tuple[Any, ...]]:
    """The parameter tuples of ``cls`` for the mode under test (all of them without ``mode``)."""
    combos = _docs.param_combinations(cls)
    names = list(getattr(cls, "param_names", []))
    if "mode" not in names:
        return combos
    i = names.index("mode")
    return [c for c in combos if c[i] == mode]


def test_every_class_found() -> None:
    names = {cls.__name__ for cls in CLASSES}
    assert {"GVKInterpret", "Envelope", "PodCodec", "PodListCodec", "PodListFree", "PodListArenaCache", "PodListDistinctTimes", "MemoryPodList", "ConvertInternal",
            "PodListHub", "DeploymentsHub", "ConvertStartUp", "WatchStream",
            "PeerKubernetes", "PeerLightkube", "PeerPlainDict", "PeerYAML", "PeerMemoryPodList"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_benchmark_runs_once(cls: type, docs: dict[str, Any], kcodec_mode: str) -> None:
    skipped: list[str] = []
    ran = 0
    for params in _cases(cls, kcodec_mode):
        try:
            inst = _docs.instantiate(cls, params, docs)
        except NotImplementedError as e:
            skipped.append(f"{params}: {e}")
            continue
        try:
            for method in _docs.bench_methods(cls):
                result = _docs.bound(inst, method, params, docs)()
                if method.startswith("timeraw_"):
                    # asv times the code a timeraw_ method returns in a fresh interpreter.
                    import subprocess

                    run = subprocess.run([sys.executable, "-c", result], capture_output=True, text=True,
                                         env={**__import__("os").environ, "PYTHONPATH": str(ASV_DIR.parent)})
                    assert run.returncode == 0, (cls.__name__, method, params, run.stderr)
                if method.startswith("track_"):
                    assert isinstance(result, (int, float)) and result > 0, (cls.__name__, method, params, result)
                ran += 1
        finally:
            _docs.teardown(inst, params, docs)
    if not ran:
        pytest.skip("; ".join(skipped))
    # Skips are only legitimate for the reasons setup states (peer, extension or module absent).
    for reason in skipped:
        assert any(w in reason for w in ("not installed", "not built", "absent", "libyaml")), reason


def test_documents_shape(docs: dict[str, Any]) -> None:
    import json

    lst = json.loads(docs["list_json"])
    assert lst["kind"] == "PodList" and lst["apiVersion"] == "v1"
    assert lst["metadata"] == {"resourceVersion": "1"}
    assert [i["metadata"]["name"] for i in lst["items"]] == ["pod-0", "pod-1", "pod-2"]
    assert all("kind" not in i and "apiVersion" not in i for i in lst["items"])
    assert b" " not in docs["list_json"][:200] and b"\n" not in docs["list_json"]
    assert len(json.loads(docs["mem_json"])["items"]) == 2


def test_podlist_protobuf_matches_json(docs: dict[str, Any]) -> None:
    """The kcodec-built PodList protobuf decodes to the same object as the JSON list."""
    if docs["list_pb"] is None:
        pytest.skip("kcodec.api was not importable when the documents were built")
    from_json, gvk_json = _docs.json_serializer().decode(docs["list_json"])
    from_pb, gvk_pb = _docs.protobuf_serializer().decode(docs["list_pb"])
    assert str(gvk_json) == str(gvk_pb) == "/v1, Kind=PodList"
    assert len(from_pb.items) == 3
    assert from_pb == from_json
    assert docs["list_pb"].startswith(b"k8s\x00")


def test_distinct_times_list_differs_only_in_times(docs: dict[str, Any]) -> None:
    """``times_json`` is ``list_json`` with every timestamp its own instant, same shapes."""
    import re

    plain, timed = json.loads(docs["list_json"]), json.loads(docs["times_json"])
    stamp = re.compile(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\Z")
    seen: list[str] = []

    def compare(a: Any, b: Any) -> None:
        if isinstance(a, dict):
            assert list(a) == list(b)
            for k in a:
                compare(a[k], b[k])
        elif isinstance(a, list):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                compare(x, y)
        elif isinstance(a, str) and stamp.match(a):
            m, n = stamp.match(a), stamp.match(b)
            assert n is not None and len(m.group(1) or "") == len(n.group(1) or ""), (a, b)
            seen.append(b)
        else:
            assert a == b

    compare(plain, timed)
    assert len(seen) > 3 * 5 and len(set(seen)) == len(seen)
    if docs["times_pb"] is not None:
        from_json, _ = _docs.json_serializer().decode(docs["times_json"])
        from_pb, _ = _docs.protobuf_serializer().decode(docs["times_pb"])
        assert from_pb == from_json


def test_mode_switch_skips_compiled_when_unbuilt() -> None:
    if speedups.available():
        pytest.skip("compiled extension is built")
    with pytest.raises(NotImplementedError):
        _docs.use_mode("compiled")


def test_widget_conversion_round_trip() -> None:
    scheme, external_gv, internal_gv = bench_conversion.build_widget_scheme()
    widget = bench_conversion.make_widget(2)
    internal = scheme.convert_to_version(widget, internal_gv)
    assert type(internal) is bench_conversion.Widget
    assert internal.replicas == 3
    assert [e.name for e in internal.containers[0].env] == ["A_VAR", "B_VAR", "C_VAR"]
    assert internal.containers[0].ports[0].protocol == "TCP"
    back = scheme.convert_to_version(internal, external_gv)
    assert type(back) is bench_conversion.WidgetV1
    assert back.group_version_kind() == external_gv.with_kind("Widget")
    assert back.spec.containers[1].env == widget.spec.containers[1].env
    assert back.spec.containers[1].ports[1] == widget.spec.containers[1].ports[1]
