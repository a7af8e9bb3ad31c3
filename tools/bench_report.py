#!/usr/bin/env python
"""Run kcodec's benchmarks and its peers without asv and print one markdown report.

The measurements are the asv benchmarks themselves (``asv_bench/benchmarks``): each case
is set up as asv would (``setup(docs, *params)``, NotImplementedError = skipped) and its
``time_*`` method is timed with :mod:`timeit`, GC enabled, reporting the median time per
call. Fast calls are batched (``Timer.autorange``); calls of 0.2 s or more run one at a
time, as many times as ``--repeat`` and ``--budget`` allow.

As in asv, every case (and every row of the memory table) runs in a fresh Python process
that loads the pickled documents, sets the case up and collects garbage once before
timing. Otherwise objects left alive by earlier cases make every full collection of a
later case walk a heap it did not build, which inflated e.g. ``orjson.loads`` of the
PodList four-fold. ``--in-process`` measures everything in this process instead (faster,
but later cases pay for earlier ones).

Ratios are ``implementation time / kcodec time``: above 1 means kcodec is faster.

The machines this runs on are shared virtual machines whose CPU can slow several-fold for
minutes at a time. So every case also times a fixed loop of pure Python (the "speed probe")
just before and after its measurement; the report shows the slower of the two per row and
the spread over the run, and a row whose probe is well above the run's fastest was measured
while the machine was slow. Compare rows whose probes agree.

``--baseline REV`` adds, under each compiled kcodec row, the same case run against kcodec
as it was at commit ``REV`` (checked out and compiled once into ``~/.cache/kcodec-bench``);
its "vs kcodec compiled" ratio is the speed-up since ``REV``, measured in the same run.

    python tools/bench_report.py                # PodList of 1000 pods, memory on 200
    python tools/bench_report.py --items 100 --repeat 3 --only decode
    python tools/bench_report.py --baseline 40e8dfa --only protobuf
    python tools/bench_report.py --modes compiled --only watch   # no pure rows
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

ASV_DIR = Path(__file__).resolve().parents[1] / "asv_bench"
sys.path.insert(0, str(ASV_DIR))

from benchmarks import _docs, bench_conversion, bench_hub, bench_kcodec, bench_peers, bench_watch  # noqa: E402
from benchmarks import cacher as bench_cacher  # noqa: E402
from benchmarks import bench_apply  # noqa: E402

Case = tuple[str, type, str, tuple[Any, ...]]
"""(implementation label, benchmark class, method, params without ``mode``)."""

KCODEC = "kcodec"

#: Marks the child's result line on its stdout, so output printed by a benchmark is ignored.
RESULT_MARK = "BENCH_REPORT_RESULT "

#: Seconds a child may run before it is killed (asv's timeout of the PodList classes).
CHILD_TIMEOUT = _docs.LONG_TIMEOUT


class JsonLoadsMemory:
    """Retained memory of ``json.loads`` dicts of the memory PodList: the memory table's baseline."""

    setup_cache = staticmethod(_docs.build_documents)

    def setup(self, docs: dict[str, Any]) -> None:
        self.data = docs["mem_json"]

    def track_retained_bytes(self, docs: dict[str, Any]) -> int:
        return bench_kcodec.retained_bytes(json.loads, self.data)


def _registry() -> dict[str, type]:
    """Benchmark classes by the name a child process is given (``module.Class``)."""
    out: dict[str, type] = {"report.JsonLoadsMemory": JsonLoadsMemory}
    for module in (bench_kcodec, bench_peers, bench_conversion, bench_hub, bench_watch, bench_cacher, bench_apply):
        short = module.__name__.rsplit(".", 1)[-1]
        for name, obj in vars(module).items():
            if isinstance(obj, type) and obj.__module__ == module.__name__:
                out[f"{short}.{name}"] = obj
    return out


def class_id(cls: type) -> str:
    """The name under which :func:`_registry` finds ``cls``."""
    if cls is JsonLoadsMemory:
        return "report.JsonLoadsMemory"
    return f"{cls.__module__.rsplit('.', 1)[-1]}.{cls.__name__}"


def beside(label: str, cls: type, method: str, params: tuple[Any, ...] = ()) -> list[Case]:
    """Another kcodec operation measured beside a row's kcodec cases, in each mode: the
    reference a target compares with (its "vs kcodec <mode>" ratio is the target's margin)."""
    return [(f"{label}, kcodec ({mode})", cls, method, (mode, *params)) for mode in _docs.MODES]


def operations(items: int) -> list[tuple[str, list[Case]]]:
    """The report's rows: per operation, kcodec first (measured in each mode), then peers."""
    k, p, c, h, w = bench_kcodec, bench_peers, bench_conversion, bench_hub, bench_watch
    wc, a = bench_cacher, bench_apply
    lst = f"PodList({items})"
    events = w.watch_events_count(items)
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
        ("deep copy Pod", [(KCODEC, k.DeepCopy, "time_deep_copy_pod", ())]),
        ("typed Pod -> dict (to_dict)", [
            (KCODEC, k.DeepCopy, "time_to_dict_pod", ()),
            ("json.loads of its JSON", p.PeerPlainDict, "time_loads", ("json", "pod")),
        ]),
        ("dict -> typed Pod (from_dict)", [
            (KCODEC, k.DeepCopy, "time_from_dict_pod", ()),
            ("lightkube Pod.from_dict", p.PeerLightkube, "time_from_dict", ("pod",)),
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
            ("kcodec (compiled), arena cache off", k.PodListArenaCache, "time_decode", ("off", "json")),
        ]),
        (f"encode {lst} JSON", [
            (KCODEC, k.PodListCodec, "time_encode", ("json",)),
            ("kubernetes sanitize + json.dumps", p.PeerKubernetes, "time_encode", ("podlist",)),
            ("lightkube msgspec.json.encode", p.PeerLightkube, "time_encode", ("podlist",)),
            ("json.dumps", p.PeerPlainDict, "time_dumps", ("json", "podlist")),
            ("orjson.dumps", p.PeerPlainDict, "time_dumps", ("orjson", "podlist")),
        ]),
        (f"decode {lst} JSON, every timestamp distinct", [
            (KCODEC, k.PodListDistinctTimes, "time_decode", ("json",)),
            ("lightkube decode_list", p.PeerLightkube, "time_decode", ("podlist_times",)),
            ("orjson.loads", p.PeerPlainDict, "time_loads", ("orjson", "podlist_times")),
        ]),
        (f"free a decoded {lst} (JSON)", [(KCODEC, k.PodListFree, "time_free", ("json",))]),
        (f"decode {lst} protobuf", [
            (KCODEC, k.PodListCodec, "time_decode", ("protobuf",)),
            ("kcodec (compiled), arena cache off", k.PodListArenaCache, "time_decode", ("off", "protobuf")),
        ]),
        (f"decode {lst} protobuf, every timestamp distinct", [
            (KCODEC, k.PodListDistinctTimes, "time_decode", ("protobuf",)),
        ]),
        (f"free a decoded {lst} (protobuf)", [(KCODEC, k.PodListFree, "time_free", ("protobuf",))]),
        (f"encode {lst} protobuf", [(KCODEC, k.PodListCodec, "time_encode", ("protobuf",))]),
        # Target: CBOR no slower than 2x protobuf on the same list, both ways.
        (f"decode {lst} CBOR", [(KCODEC, k.PodListCodec, "time_decode", ("cbor",))]),
        (f"encode {lst} CBOR", [(KCODEC, k.PodListCodec, "time_encode", ("cbor",))]),
        ("convert widgets v1 -> internal", [(KCODEC, c.ConvertInternal, "time_to_internal", ("widgets",))]),
        ("convert widgets internal -> v1", [(KCODEC, c.ConvertInternal, "time_to_external", ("widgets",))]),
        ("convert Pod v1 -> internal (legacyscheme)",
         [(KCODEC, c.ConvertInternal, "time_to_internal", ("legacyscheme",))]),
        ("convert Pod internal -> v1 (legacyscheme)",
         [(KCODEC, c.ConvertInternal, "time_to_external", ("legacyscheme",))]),
        # Target: conversion through the hub costs less than protobuf decode.
        (f"convert {lst} v1 -> internal -> v1 (legacyscheme)", [
            (KCODEC, h.PodListHub, "time_round_trip", ()),
            *beside("protobuf decode of the list", h.PodListHub, "time_protobuf_decode"),
        ]),
        (f"convert {items} Deployments apps/v1beta1 -> apps/v1, defaults included", [
            (KCODEC, h.DeploymentsHub, "time_convert", ()),
            *beside("codec path: default in place + unsafe conversions", h.DeploymentsHub,
                    "time_default_and_convert"),
            *beside("protobuf decode of the list", h.DeploymentsHub, "time_protobuf_decode"),
            *beside("decode + default + convert from protobuf", h.DeploymentsHub, "time_decode_and_convert"),
        ]),
        # Target: wall time of a fresh interpreter doing one document.
        ("start-up: decode one Deployment YAML, fresh process",
         [(KCODEC, k.StartUp, "timeraw_import_and_decode_deployment_yaml", ())]),
        ("start-up: kcodec convert one manifest, fresh process",
         [(KCODEC, h.ConvertStartUp, "timeraw_convert_one_manifest", ())]),
        # Target: a watch stream costs no more per object than a list of the same Pods.
        (f"watch: {events} Pod events, JSON lines", [
            (KCODEC, w.WatchStream, "time_watch", ("json",)),
            *beside(f"PodList({events}) JSON of the same Pods", w.WatchStream, "time_list", ("json",)),
        ]),
        # Target (server-side apply): an apply of a fully populated Deployment in at most the
        # time of one JSON decode of it.
        ("server-side apply: fully populated Deployment, create", [
            (KCODEC, a.ServerSideApply, "time_apply_create", ()),
            *beside("JSON decode of the same Deployment", a.ServerSideApply, "time_json_decode"),
        ]),
        ("server-side apply: re-apply unchanged", [(KCODEC, a.ServerSideApply, "time_apply_unchanged", ())]),
        ("server-side apply: second manager, one field, force",
         [(KCODEC, a.ServerSideApply, "time_apply_other_manager", ())]),
        (f"watch: {events} Pod events, length-delimited protobuf", [
            (KCODEC, w.WatchStream, "time_watch", ("protobuf",)),
            *beside(f"PodList({events}) protobuf of the same Pods", w.WatchStream, "time_list", ("protobuf",)),
        ]),
        # Target: a list from the watch cache at least 5x faster than from the storage.
        *[(f"watch cache: list {wc.CACHE_ITEMS} Pods, consistent read, {backend}", [
            (KCODEC, wc.CacherList, "time_list_cache", (backend,)),
            *beside(f"Store.get_list from {backend}", wc.CacherList, "time_list_storage", (backend,)),
        ]) for backend in wc.BACKENDS],
        (f"watch cache: {wc.WATCHERS} watchers x {wc.WATCH_EVENTS} events from the ring buffer, SQLite",
         [(KCODEC, wc.CacherWatch, "time_replay", ("sqlite",))]),
    ]


def expand(case: Case) -> list[Case]:
    """kcodec cases become one row per mode; peers stay one row."""
    label, cls, method, params = case
    if label != KCODEC:
        return [case]
    return [(f"kcodec ({mode})", cls, method, (mode, *params)) for mode in _docs.MODES]


def memory_cases() -> list[Case]:
    """The memory table's rows; the first, ``json.loads`` dicts, is the baseline of the ratios."""
    cases: list[Case] = [("json.loads (dicts)", JsonLoadsMemory, "track_retained_bytes", ())]
    cases += [(f"kcodec ({m})", bench_kcodec.MemoryPodList, "track_retained_bytes", (m,)) for m in _docs.MODES]
    cases += [(peer, bench_peers.PeerMemoryPodList, "track_retained_bytes", (peer,))
              for peer in ("kubernetes", "lightkube", "orjson")]
    return cases


def measure(fn: Callable[[], Any], repeat: int, budget: float) -> list[float]:
    """Seconds per call of ``fn`` (timeit, GC enabled), one entry per timing sample."""
    timer = timeit.Timer(fn, setup="gc.enable()", globals={"gc": gc})
    start = time.perf_counter()
    first = timer.timeit(1)
    if first >= 0.2:
        samples = [first]
        while len(samples) < repeat and time.perf_counter() - start + first <= budget:
            samples.append(timer.timeit(1))
        return samples
    number, _ = timer.autorange()
    samples = []
    for _ in range(repeat):
        samples.append(timer.timeit(number) / number)
        if time.perf_counter() - start > budget:
            break
    return samples


def timeraw(code: str, repeat: int) -> list[float]:
    """Wall seconds of ``python -c code`` in a fresh interpreter (asv's ``timeraw_``), one
    per run; the child imports kcodec from the checkout under measurement."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(_docs.KCODEC_ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        samples.append(time.perf_counter() - start)
        if proc.returncode != 0:
            tail = [ln for ln in proc.stderr.splitlines() if ln.strip()]
            raise RuntimeError(f"timeraw code exited {proc.returncode}: {tail[-1] if tail else 'no output'}")
    return samples


def speed_probe() -> float:
    """Seconds for a fixed pure-Python loop, best of a few: how fast the CPU is right now.

    Best-of rather than median because the question is what the CPU could do in this
    moment; a few milliseconds in all, so it does not disturb the case it brackets.
    """
    timer = timeit.Timer("sum(x)", setup="x = list(range(1000))")
    return min(timer.repeat(repeat=5, number=200)) / 200


def probed(run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``run()``'s result with ``"probe"``, the slower of the speed probes before and after
    it, when the case measured something (a skipped case has nothing to qualify)."""
    before = speed_probe()
    result = run()
    if "samples" in result or "value" in result:
        result["probe"] = max(before, speed_probe())
    return result


def run_case(spec: dict[str, Any], docs: dict[str, Any], repeat: int, budget: float) -> dict[str, Any]:
    """Set one case up and run it: ``{"samples": [...]}`` for ``time_*`` methods,
    ``{"value": x}`` for ``track_*`` ones, ``{"skipped": reason}`` when setup skips.

    ``spec`` is ``{"cls": class_id, "method": name, "params": [...]}``.
    """
    cls = _registry()[spec["cls"]]
    params = tuple(spec["params"])
    try:
        inst = _docs.instantiate(cls, params, docs)
    except NotImplementedError as e:
        return {"skipped": str(e)}
    try:
        return _run_set_up(cls, inst, spec, params, docs, repeat, budget)
    finally:
        _docs.teardown(inst, params, docs)


def _run_set_up(cls: type, inst: Any, spec: dict[str, Any], params: tuple[Any, ...],
                docs: dict[str, Any], repeat: int, budget: float) -> dict[str, Any]:
    """:func:`run_case` after setup: the samples or the tracked value."""
    fn = _docs.bound(inst, spec["method"], params, docs)
    if spec["method"].startswith("track_"):
        return {"value": fn()}
    if spec["method"].startswith("timeraw_"):
        return {"samples": timeraw(fn(), repeat)}
    if getattr(cls, "number", 0) == 1:
        # As asv does for ``number = 1``: a fresh setup before every (single-call) sample.
        samples = []
        for i in range(repeat):
            fresh = _docs.instantiate(cls, params, docs) if i else inst
            fn = _docs.bound(fresh, spec["method"], params, docs)
            gc.collect()
            start = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - start)
            if fresh is not inst:  # the caller tears the first one down
                _docs.teardown(fresh, params, docs)
        return {"samples": samples}
    # One full collection of what setup left behind, so timing starts from a settled heap.
    gc.collect()
    return {"samples": measure(fn, repeat, budget)}


def child_main(spec_json: str, docs_path: str, repeat: int, budget: float) -> int:
    """Entry point of a child process: run one case and print its result as a marked JSON line."""
    with open(docs_path, "rb") as f:
        docs = pickle.load(f)
    # Anything that asks _docs for the documents gets these rather than rebuilding them.
    _docs.set_sizes(docs["list_items"], docs["mem_items"])
    _docs._memo[(docs["list_items"], docs["mem_items"])] = docs
    result = probed(lambda: run_case(json.loads(spec_json), docs, repeat, budget))
    print(RESULT_MARK + json.dumps(result), flush=True)
    return 0


class Runner:
    """Runs cases in fresh child processes (or in this one with ``in_process``)."""

    def __init__(self, docs: dict[str, Any], repeat: int, budget: float, in_process: bool) -> None:
        self.docs = docs
        self.repeat = repeat
        self.budget = budget
        self.in_process = in_process
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.docs_path = ""
        if not in_process:
            self._tmp = tempfile.TemporaryDirectory(prefix="kcodec-bench-")
            self.docs_path = os.path.join(self._tmp.name, "docs.pickle")
            with open(self.docs_path, "wb") as f:
                pickle.dump(docs, f, protocol=pickle.HIGHEST_PROTOCOL)

    def close(self) -> None:
        """Remove the pickled documents."""
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def run(self, cls: type, method: str, params: tuple[Any, ...], kcodec_root: str | None = None) -> dict[str, Any]:
        """The result of :func:`run_case`, or ``{"failed": reason}`` when the case crashed.

        ``kcodec_root``: a checkout whose kcodec the child imports instead of this one's."""
        spec = {"cls": class_id(cls), "method": method, "params": list(params)}
        if self.in_process and kcodec_root is None:
            try:
                result = probed(lambda: run_case(spec, self.docs, self.repeat, self.budget))
            except Exception as e:  # a crashing case is reported in its row, not fatal to the report
                return {"failed": f"{type(e).__name__}: {e}"}
            gc.collect()
            return result
        # A second attempt absorbs a compiled module being rebuilt while the first child imported it.
        result: dict[str, Any] = {}
        for _ in range(2):
            result = self._child(spec, kcodec_root)
            if "failed" not in result:
                break
        return result

    def _child(self, spec: dict[str, Any], kcodec_root: str | None = None) -> dict[str, Any]:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec),
               "--docs", self.docs_path, "--repeat", str(self.repeat), "--budget", str(self.budget)]
        env = dict(os.environ)
        if kcodec_root is not None:
            env["KCODEC_BENCH_KCODEC_ROOT"] = kcodec_root
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CHILD_TIMEOUT, env=env)
        except subprocess.TimeoutExpired:
            return {"failed": f"timed out after {CHILD_TIMEOUT:.0f} s"}
        for line in reversed(proc.stdout.splitlines()):
            if line.startswith(RESULT_MARK):
                return json.loads(line[len(RESULT_MARK):])
        tail = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        return {"failed": f"exit status {proc.returncode}: {tail[-1] if tail else 'no output'}"}


def baseline_checkout(rev: str) -> tuple[str, str]:
    """``(short sha, path)`` of a compiled checkout of commit ``rev`` of this repository,
    made once under ``~/.cache/kcodec-bench/<sha>`` (a detached git worktree)."""
    repo = Path(__file__).resolve().parents[1]
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=repo,
                         capture_output=True, text=True)
    if sha.returncode != 0:
        raise SystemExit(f"bench_report: --baseline {rev}: not a commit of {repo}")
    full = sha.stdout.strip()
    path = Path.home() / ".cache" / "kcodec-bench" / full
    if not (path / ".built").exists():
        if not (path / "kcodec").is_dir():
            path.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "worktree", "add", "--force", "--detach", str(path), full], cwd=repo,
                           check=True, capture_output=True)
        print(f"bench_report: compiling kcodec at {full[:10]} in {path} ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=path, check=True,
                       capture_output=True, env={**os.environ, "KCODEC_BUILD_EXT": "1"})
        (path / ".built").write_text(full + "\n")
    return full[:10], str(path)


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


def versions() -> str:
    """One line naming the interpreter and the peers' versions."""
    out = [f"Python {platform.python_version()}"]
    for dist in ("kubernetes", "lightkube", "lightkube-models", "msgspec", "orjson", "PyYAML", "asv"):
        try:
            out.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            out.append(f"{dist} absent")
    return ", ".join(out)


def machine(argv: list[str]) -> str:
    """One line naming the command line (options ``argv``) and the machine it ran on."""
    cmd = shlex.join(["python", "tools/bench_report.py", *argv])
    return f"`{cmd}` on {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"


def main(argv: list[str] | None = None) -> int:
    """Parse options, build the documents, measure every row and print the report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=_docs.LIST_ITEMS, help="pods in the PodList (default %(default)s)")
    ap.add_argument("--mem-items", type=int, default=_docs.MEM_ITEMS, help="pods in the memory PodList (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=5, help="timing samples per case (default %(default)s)")
    ap.add_argument("--budget", type=float, default=30.0, help="seconds of timing per case, after the first call (default %(default)s)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure each operation's implementations this many times, interleaved; "
                         "the median is over all samples (default %(default)s)")
    ap.add_argument("--only", default="",
                    help="only operations whose title contains this text, or any of several "
                         "separated by | (e.g. 'PodList(1000) protobuf|PodList(1000) CBOR')")
    ap.add_argument("--no-memory", action="store_true", help="skip the retained-memory table")
    ap.add_argument("--in-process", action="store_true",
                    help="measure every case in this process instead of a fresh one each (faster, less isolated)")
    ap.add_argument("--baseline", metavar="REV",
                    help="also run every compiled kcodec row against kcodec at commit REV (built once, cached)")
    ap.add_argument("--modes", default=",".join(_docs.MODES), metavar="MODES",
                    help="kcodec kernels to measure, comma-separated (default %(default)s); "
                         "'--modes compiled' skips the pure rows, which take minutes on the long cases")
    ap.add_argument("--child", metavar="SPEC", help=argparse.SUPPRESS)
    ap.add_argument("--docs", metavar="FILE", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        if not args.docs:
            ap.error("--child needs --docs")
        return child_main(args.child, args.docs, args.repeat, args.budget)

    modes = [m for m in args.modes.split(",") if m]
    if not modes or set(modes) - set(_docs.MODES):
        ap.error(f"--modes: choose from {','.join(_docs.MODES)} (got {args.modes!r})")
    # operations(), beside() and the memory table read _docs.MODES when they build rows.
    saved_modes = _docs.MODES[:]
    _docs.MODES[:] = [m for m in _docs.MODES if m in modes]
    try:
        return report(args, argv)
    finally:
        _docs.MODES[:] = saved_modes


def report(args: argparse.Namespace, argv: list[str] | None) -> int:
    """Build the documents, measure every selected row and print the report."""
    _docs.set_sizes(args.items, args.mem_items)
    t0 = time.perf_counter()
    docs = _docs.build_documents()
    wanted = args.only.split("|")
    ops = [(title, rows) for title, rows in operations(args.items) if any(w in title for w in wanted)]
    expanded = [(title, [r for case in rows for r in expand(case)]) for title, rows in ops]
    roots: dict[str, str] = {}  # baseline row label -> checkout its child imports kcodec from
    if args.baseline:
        short, root = baseline_checkout(args.baseline)
        label = f"kcodec @{short} (compiled)"
        roots[label] = root
        expanded = [(title, [r for row in rows for r in
                             ([row, (label, *row[1:])] if row[0] == "kcodec (compiled)" else [row])])
                    for title, rows in expanded]

    from kcodec import speedups

    runner = Runner(docs, args.repeat, args.budget, args.in_process)
    try:
        isolation = "all cases in one process" if args.in_process else "each case in a fresh process"
        print("## kcodec benchmark report\n")
        print(versions())
        print(machine(sys.argv[1:] if argv is None else argv))
        print(f"compiled extension: {'built' if speedups.available() else 'not built (compiled rows skipped)'}; "
              f"Pod JSON {len(docs['pod_json'])} B (pretty), PodList({args.items}) JSON {len(docs['list_json'])} B, "
              f"protobuf {len(docs['list_pb'] or b'')} B; median of up to {args.repeat} timeit runs "
              f"x {args.rounds} interleaved round(s), "
              f"GC enabled, {isolation}.\n")
        print("Ratios are implementation time / kcodec time (> 1: kcodec is faster). "
              "The probe column is how long a fixed pure-Python loop took around the row's "
              "measurement (the slowest of its runs): a row whose probe is well above the "
              "run's fastest was measured while this shared machine was slow."
              + (f" Rows 'kcodec @<sha>' run the same case against kcodec at that earlier commit; their "
                 "'vs kcodec compiled' ratio is the speed-up since then." if roots else "") + "\n")
        reasons: dict[str, int] = {}

        def note(kind: str, reason: str) -> str:
            return f"{kind} [{reasons.setdefault(reason, len(reasons) + 1)}]"

        print("| operation | implementation | median | vs kcodec pure | vs kcodec compiled | probe |")
        print("|---|---|---:|---:|---:|---:|")
        all_probes: list[float] = []
        for title, rows in expanded:
            # Rounds interleave the implementations of one operation, so a slow spell of
            # the shared machine lands on all of them rather than on whichever ran then.
            samples: dict[str, list[float]] = {label: [] for label, *_ in rows}
            status: dict[str, str] = {}
            probes: dict[str, float] = {}
            for _ in range(args.rounds):
                for label, cls, method, params in rows:
                    if label in status:
                        continue
                    out = runner.run(cls, method, params, roots.get(label))
                    if "probe" in out:
                        probes[label] = max(probes.get(label, 0.0), out["probe"])
                        all_probes.append(out["probe"])
                    if "samples" in out:
                        samples[label] += out["samples"]
                    elif "skipped" in out:
                        status[label] = note("skipped", out["skipped"])
                    else:
                        status[label] = note("failed", out["failed"])
            results: list[tuple[str, float | None, str]] = []
            for label, *_ in rows:
                if samples[label]:
                    results.append((label, statistics.median(samples[label]), ""))
                else:
                    results.append((label, None, status[label]))
            by_label = {label: s for label, s, _ in results}
            pure, compiled = by_label.get("kcodec (pure)"), by_label.get("kcodec (compiled)")
            for label, seconds, shown in results:
                shown = shown or fmt_time(seconds)
                probe = fmt_time(probes[label]) if label in probes else "—"
                print(f"| {title} | {label} | {shown} | {fmt_ratio(seconds, pure)} | {fmt_ratio(seconds, compiled)} "
                      f"| {probe} |", flush=True)

        if all_probes:
            fast, slow = min(all_probes), max(all_probes)
            print(f"\nSpeed probe over the run: fastest {fmt_time(fast)}, median "
                  f"{fmt_time(statistics.median(all_probes))}, slowest {fmt_time(slow)} "
                  f"({slow / fast:.2f}x the fastest).")
        if reasons:
            print()
            for reason, n in reasons.items():
                print(f"[{n}] {reason}  ")

        if not args.no_memory:
            mem: list[tuple[str, int | None, str]] = []
            for label, cls, method, params in memory_cases():
                out = runner.run(cls, method, params)
                if "value" in out:
                    mem.append((label, int(out["value"]), ""))
                else:
                    mem.append((label, None, "skipped" if "skipped" in out else f"failed ({out['failed']})"))
            base = mem[0][1]
            print(f"\n### Retained memory of a decoded PodList({args.mem_items}) (tracemalloc)\n")
            print("| decoder | retained | vs json.loads dicts |")
            print("|---|---:|---:|")
            for label, size, why in mem:
                shown = why if size is None else f"{size / 2**20:.2f} MiB"
                print(f"| {label} | {shown} | {fmt_ratio(size, base)} |")
            print(f"\n### Peak memory of a protobuf decode of that PodList, over what its result retains\n")
            print("| decoder | peak / retained (tracemalloc) | peak RSS / retained RSS (fresh process) |")
            print("|---|---:|---:|")
            for mode in _docs.MODES:
                cells = []
                for cls, method in ((bench_kcodec.ProtobufDecodePeak, "track_peak_over_retained"),
                                    (bench_kcodec.ProtobufDecodePeakRSS, "track_peak_rss_over_retained")):
                    out = runner.run(cls, method, (mode,))
                    cells.append(f"{out['value']:.2f}x" if "value" in out
                                 else "skipped" if "skipped" in out else f"failed ({out['failed']})")
                print(f"| kcodec ({mode}) | {cells[0]} | {cells[1]} |")
    finally:
        runner.close()
    print(f"\n(report took {time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
