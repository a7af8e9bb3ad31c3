#!/usr/bin/env python
"""Run kcodec's benchmarks and its peers without asv and print one markdown report.

The measurements are the asv benchmarks themselves (``asv_bench/benchmarks``): each case
is set up as asv would (``setup(docs, *params)``, NotImplementedError = skipped) and its
``time_*`` method is timed with :mod:`timeit`, GC enabled, reporting the median time per
call. Fast calls are batched (``Timer.autorange``); calls of 0.2 s or more run one at a
time, as many times as ``--repeat`` and ``--budget`` allow.

Ratios are ``implementation time / kcodec time``: above 1 means kcodec is faster.

    python tools/bench_report.py                # PodList of 1000 pods, memory on 200
    python tools/bench_report.py --items 100 --repeat 3 --only decode
"""
from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
import timeit
from collections import Counter
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

ASV_DIR = Path(__file__).resolve().parents[1] / "asv_bench"
sys.path.insert(0, str(ASV_DIR))

from benchmarks import _docs, bench_conversion, bench_kcodec, bench_peers  # noqa: E402

Case = tuple[str, type, str, tuple[Any, ...]]
"""(implementation label, benchmark class, method, params without ``mode``)."""

KCODEC = "kcodec"


def operations(items: int) -> list[tuple[str, list[Case]]]:
    """The report's rows: per operation, kcodec first (measured in each mode), then peers."""
    k, p, c = bench_kcodec, bench_peers, bench_conversion
    lst = f"PodList({items})"
    return [
        ("GVK interpret, Pod JSON", [(KCODEC, k.GVKInterpret, "time_interpret_pod_json", ())]),
        ("envelope decode, Pod pb", [(KCODEC, k.Envelope, "time_envelope_decode", ())]),
        ("envelope encode, Pod pb", [(KCODEC, k.Envelope, "time_envelope_encode", ())]),
        ("decode Pod JSON", [
            (KCODEC, k.PodCodec, "time_decode", ("json",)),
            ("kubernetes ApiClient.deserialize", p.PeerKubernetes, "time_decode", ("pod",)),
            ("lightkube decode_object", p.PeerLightkube, "time_decode", ("pod",)),
            ("lightkube Pod.from_dict (parsed dict)", p.PeerLightkube, "time_from_dict", ("pod",)),
            ("json.loads", p.PeerPlainDict, "time_loads", ("json", "pod")),
            ("orjson.loads", p.PeerPlainDict, "time_loads", ("orjson", "pod")),
        ]),
        ("encode Pod JSON", [
            (KCODEC, k.PodCodec, "time_encode", ("json",)),
            ("kubernetes sanitize + json.dumps", p.PeerKubernetes, "time_encode", ("pod",)),
            ("lightkube msgspec.json.encode", p.PeerLightkube, "time_encode", ("pod",)),
            ("json.dumps", p.PeerPlainDict, "time_dumps", ("json", "pod")),
            ("orjson.dumps", p.PeerPlainDict, "time_dumps", ("orjson", "pod")),
        ]),
        ("decode Pod YAML", [
            (KCODEC, k.PodCodec, "time_decode", ("yaml",)),
            ("yaml.load CSafeLoader", p.PeerYAML, "time_load_pod", ()),
        ]),
        ("encode Pod YAML", [
            (KCODEC, k.PodCodec, "time_encode", ("yaml",)),
            ("yaml.dump CSafeDumper", p.PeerYAML, "time_dump_pod", ()),
        ]),
        ("decode Pod protobuf", [(KCODEC, k.PodCodec, "time_decode", ("protobuf",))]),
        ("encode Pod protobuf", [(KCODEC, k.PodCodec, "time_encode", ("protobuf",))]),
        (f"decode {lst} JSON", [
            (KCODEC, k.PodListCodec, "time_decode", ("json",)),
            ("kubernetes ApiClient.deserialize", p.PeerKubernetes, "time_decode", ("podlist",)),
            ("lightkube decode_list", p.PeerLightkube, "time_decode", ("podlist",)),
            ("lightkube PodList.from_dict (parsed dict)", p.PeerLightkube, "time_from_dict", ("podlist",)),
            ("json.loads", p.PeerPlainDict, "time_loads", ("json", "podlist")),
            ("orjson.loads", p.PeerPlainDict, "time_loads", ("orjson", "podlist")),
        ]),
        (f"encode {lst} JSON", [
            (KCODEC, k.PodListCodec, "time_encode", ("json",)),
            ("kubernetes sanitize + json.dumps", p.PeerKubernetes, "time_encode", ("podlist",)),
            ("lightkube msgspec.json.encode", p.PeerLightkube, "time_encode", ("podlist",)),
            ("json.dumps", p.PeerPlainDict, "time_dumps", ("json", "podlist")),
            ("orjson.dumps", p.PeerPlainDict, "time_dumps", ("orjson", "podlist")),
        ]),
        (f"decode {lst} protobuf", [(KCODEC, k.PodListCodec, "time_decode", ("protobuf",))]),
        (f"encode {lst} protobuf", [(KCODEC, k.PodListCodec, "time_encode", ("protobuf",))]),
        ("convert widgets v1 -> internal", [(KCODEC, c.ConvertInternal, "time_to_internal", ("widgets",))]),
        ("convert widgets internal -> v1", [(KCODEC, c.ConvertInternal, "time_to_external", ("widgets",))]),
        ("convert Pod v1 -> internal (legacyscheme)",
         [(KCODEC, c.ConvertInternal, "time_to_internal", ("legacyscheme",))]),
        ("convert Pod internal -> v1 (legacyscheme)",
         [(KCODEC, c.ConvertInternal, "time_to_external", ("legacyscheme",))]),
    ]


def expand(case: Case) -> list[tuple[str, type, str, tuple[Any, ...]]]:
    """kcodec cases become one row per mode; peers stay one row."""
    label, cls, method, params = case
    if label != KCODEC:
        return [case]
    return [(f"kcodec ({mode})", cls, method, (mode, *params)) for mode in _docs.MODES]


def measure(fn: Callable[[], Any], repeat: int, budget: float) -> float:
    """Median seconds per call of ``fn`` (timeit, GC enabled)."""
    timer = timeit.Timer(fn, setup="gc.enable()", globals={"gc": gc})
    start = time.perf_counter()
    first = timer.timeit(1)
    if first >= 0.2:
        samples = [first]
        while len(samples) < repeat and time.perf_counter() - start + first <= budget:
            samples.append(timer.timeit(1))
        return statistics.median(samples)
    number, _ = timer.autorange()
    samples = []
    for _ in range(repeat):
        samples.append(timer.timeit(number) / number)
        if time.perf_counter() - start > budget:
            break
    return statistics.median(samples)


def fmt_time(seconds: float | None) -> str:
    """A duration with a unit that keeps 3 significant digits."""
    if seconds is None:
        return "skipped"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def fmt_ratio(num: float | None, den: float | None) -> str:
    """``num / den`` as ``1.23x``, or a dash when either side is missing."""
    if num is None or den is None or den == 0:
        return "—"
    return f"{num / den:.2f}x"


class Instances:
    """Set-up benchmark instances, shared by the rows that use them and dropped after the last."""

    def __init__(self, docs: dict[str, Any], keys: list[tuple[type, tuple[Any, ...]]]) -> None:
        self.docs = docs
        self.left = Counter(keys)
        self.live: dict[tuple[type, tuple[Any, ...]], Any] = {}

    def get(self, cls: type, params: tuple[Any, ...]) -> tuple[Any, str | None]:
        """``(instance, None)`` or ``(None, skip reason)``."""
        key = (cls, params)
        if key not in self.live:
            try:
                self.live[key] = _docs.instantiate(cls, params, self.docs)
            except NotImplementedError as e:
                self.live[key] = e
        inst = self.live[key]
        return (None, str(inst)) if isinstance(inst, NotImplementedError) else (inst, None)

    def done(self, cls: type, params: tuple[Any, ...]) -> None:
        """Release the instance once no row needs it (PodList objects are large)."""
        key = (cls, params)
        self.left[key] -= 1
        if self.left[key] <= 0:
            self.live.pop(key, None)
            gc.collect()


def versions() -> str:
    """One line naming the interpreter and the peers' versions."""
    out = [f"Python {platform.python_version()}"]
    for dist in ("kubernetes", "lightkube", "lightkube-models", "msgspec", "orjson", "PyYAML", "asv"):
        try:
            out.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            out.append(f"{dist} absent")
    return ", ".join(out)


def memory_rows(docs: dict[str, Any]) -> list[tuple[str, int | None]]:
    """Retained bytes of the decoded memory PodList per decoder (None when skipped)."""
    rows: list[tuple[str, int | None]] = [("json.loads (dicts)", bench_kcodec.retained_bytes(json.loads, docs["mem_json"]))]
    cases = [(f"kcodec ({m})", bench_kcodec.MemoryPodList, (m,)) for m in _docs.MODES]
    cases += [(peer, bench_peers.PeerMemoryPodList, (peer,)) for peer in ("kubernetes", "lightkube", "orjson")]
    for label, cls, params in cases:
        try:
            inst = _docs.instantiate(cls, params, docs)
        except NotImplementedError:
            rows.append((label, None))
            continue
        rows.append((label, _docs.bound(inst, "track_retained_bytes", params, docs)()))
        del inst
        gc.collect()
    return rows


def main(argv: list[str] | None = None) -> int:
    """Parse options, build the documents, measure every row and print the report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=_docs.LIST_ITEMS, help="pods in the PodList (default %(default)s)")
    ap.add_argument("--mem-items", type=int, default=_docs.MEM_ITEMS, help="pods in the memory PodList (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=5, help="timing samples per case (default %(default)s)")
    ap.add_argument("--budget", type=float, default=30.0, help="seconds of timing per case, after the first call (default %(default)s)")
    ap.add_argument("--only", default="", help="only operations whose title contains this text")
    ap.add_argument("--no-memory", action="store_true", help="skip the retained-memory table")
    args = ap.parse_args(argv)

    _docs.set_sizes(args.items, args.mem_items)
    t0 = time.perf_counter()
    docs = _docs.build_documents()
    ops = [(title, rows) for title, rows in operations(args.items) if args.only in title]
    expanded = [(title, [r for case in rows for r in expand(case)]) for title, rows in ops]
    instances = Instances(docs, [(cls, params) for _, rows in expanded for _, cls, _, params in rows])

    from kcodec import speedups

    print("## kcodec benchmark report\n")
    print(versions())
    print(f"compiled extension: {'built' if speedups.available() else 'not built (compiled rows skipped)'}; "
          f"Pod JSON {len(docs['pod_json'])} B (pretty), PodList({args.items}) JSON {len(docs['list_json'])} B, "
          f"protobuf {len(docs['list_pb'] or b'')} B; median of up to {args.repeat} timeit runs, GC enabled.\n")
    print("Ratios are implementation time / kcodec time (> 1: kcodec is faster).\n")
    reasons: dict[str, int] = {}
    print("| operation | implementation | median | vs kcodec pure | vs kcodec compiled |")
    print("|---|---|---:|---:|---:|")
    for title, rows in expanded:
        results: list[tuple[str, float | None, str | None]] = []
        for label, cls, method, params in rows:
            inst, reason = instances.get(cls, params)
            if inst is not None and params and params[0] in _docs.MODES:
                # Instances are shared between rows and another row's set-up may have
                # switched kcodec's mode since: put this row's mode back before timing.
                _docs.use_mode(params[0])
            seconds = None if inst is None else measure(_docs.bound(inst, method, params, docs), args.repeat, args.budget)
            instances.done(cls, params)
            results.append((label, seconds, reason))
        by_label = {label: s for label, s, _ in results}
        pure, compiled = by_label.get("kcodec (pure)"), by_label.get("kcodec (compiled)")
        for label, seconds, reason in results:
            if reason is None:
                shown = fmt_time(seconds)
            else:
                shown = f"skipped [{reasons.setdefault(reason, len(reasons) + 1)}]"
            print(f"| {title} | {label} | {shown} | {fmt_ratio(seconds, pure)} | {fmt_ratio(seconds, compiled)} |",
                  flush=True)

    if reasons:
        print()
        for reason, n in reasons.items():
            print(f"[{n}] {reason}  ")

    if not args.no_memory:
        mem = memory_rows(docs)
        base = mem[0][1]
        print(f"\n### Retained memory of a decoded PodList({args.mem_items}) (tracemalloc)\n")
        print("| decoder | retained | vs json.loads dicts |")
        print("|---|---:|---:|")
        for label, size in mem:
            shown = "skipped" if size is None else f"{size / 2**20:.2f} MiB"
            print(f"| {label} | {shown} | {fmt_ratio(size, base)} |")
    print(f"\n(report took {time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
