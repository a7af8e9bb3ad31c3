#!/usr/bin/env python
"""Where ``kcodec serve``'s time goes for a GET, a create and a list: HTTP, codec, registry, backend.

Starts ``python -m kcodec serve`` (SQLite, plain HTTP) with ``--items`` ConfigMaps in
``default``, attaches the sampling profiler py-spy (``pip install py-spy``; ``--gil``: the
thread holding the GIL, without stopping the server) and sends, one operation at a time over
one keep-alive connection: ``--requests`` GETs of one ConfigMap, ``--requests / 10`` lists of
the ``--items`` ConfigMaps as JSON, then ``--requests`` creates. The server runs Python code
on one thread at a time, so the GIL holder's samples are where its CPU goes (work done
without the GIL, SQLite's own C code and socket writes among it, is not counted). Each
sample is put in the layer of its innermost frame that belongs to one (:func:`layer`):

- ``http``: aiohttp and asyncio (parsing the request, writing the response, the event loop);
- ``server``: kcodec.server (routing, negotiation, request scopes, handlers, Status) with the
  field manager (managedFields) and patches, which Go runs in its endpoint handlers too;
- ``codec``: decode, encode, defaulting, conversion and copies (kcodec's serializers, models,
  kernels, the generated API packages' conversion and defaulting code);
- ``registry``: kcodec.registry (generic store, strategies), validation, admission, printers;
- ``backend``: kcodec.storage (store, watch cache, SQLite or etcd client) and sqlite3;
- ``other``: what none of those holds (thread pools, locks, the interpreter's own frames).

The table gives per operation the wall time per request seen by the client and each layer's
share of the server's samples. The load average is printed with it: the machine is shared.

    python tools/server_profile.py [--items 500] [--requests 2000] [--rate 250] [--mode compiled] [--top 10]
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

LAYERS = ("http", "server", "codec", "registry", "backend", "other")

# (pattern on a frame's file path, layer), tried in order on each frame from the innermost out.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), layer) for p, layer in (
    (r"(^|/)kcodec/storage/", "backend"),
    (r"(^|/)sqlite3/|_sqlite3|(^|/)etcd3?/|(^|/)grpc/", "backend"),
    (r"(^|/)kcodec/(registry|validation|admission|printers)/|(^|/)kcodec/api/[^/]+/validation\.py", "registry"),
    # the field manager and patches run in the endpoint handlers, as in Go
    (r"(^|/)kcodec/(server|managedfields|patch)/", "server"),
    (r"(^|/)kcodec/(serializer|_speedups|_native|api|runtime|model|fieldtable|gojson|goyaml|codec|wire|types)[/.]",
     "codec"),
    (r"(^|/)(aiohttp|asyncio|yarl|multidict)/|(^|/)selectors\.py|(^|/)ssl\.py", "http"),
))


def layer(stack: list[str]) -> str:
    """The layer of a sample: ``stack`` holds its frames' file paths, outermost first."""
    for path in reversed(stack):
        for pattern, name in _RULES:
            if pattern.search(path):
                return name
    return "other"


_FRAME = re.compile(r"\((?P<file>[^:()]+)(?::\d+)?\)$")


def parse_raw(lines: list[str]) -> list[tuple[list[str], int]]:
    """py-spy's ``--format raw`` lines (``frame;frame;... count``, a frame ``func (file:line)``)
    as (file paths outermost first, sample count)."""
    out = []
    for line in lines:
        line = line.rstrip("\n")
        if not line or " " not in line:
            continue
        stack_text, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        files = []
        for frame in stack_text.split(";"):
            m = _FRAME.search(frame.strip())
            files.append(m.group("file") if m else frame.strip())
        out.append((files, int(count)))
    return out


def shares(samples: list[tuple[list[str], int]]) -> dict[str, float]:
    """Each layer's share of ``samples``."""
    counts: collections.Counter[str] = collections.Counter()
    for files, n in samples:
        counts[layer(files)] += n
    total = sum(counts.values()) or 1
    return {name: counts[name] / total for name in LAYERS}


class _Server:
    def __init__(self, mode: str) -> None:
        self.dir = tempfile.mkdtemp(prefix="kcodec-profile-")
        env = dict(os.environ, PYTHONPATH=str(REPO))
        env.pop("KCODEC_PURE", None)
        if mode == "pure":
            env["KCODEC_PURE"] = "1"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kcodec", "serve", "--storage", f"sqlite:{self.dir}/kcodec.db", "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        if "listening on " not in line:
            raise SystemExit(f"kcodec serve did not start: {line!r}")
        self.url = line.rsplit(" ", 1)[1].strip()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        shutil.rmtree(self.dir, ignore_errors=True)


def _configmap(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"app": "bench"}},
            "data": {"key": "value", "other": "x" * 64}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=500, help="ConfigMaps in the namespace (default 500)")
    parser.add_argument("--requests", type=int, default=2000, help="GETs and creates per run (default 2000)")
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second (default 250)")
    parser.add_argument("--mode", choices=("compiled", "pure"), default="compiled")
    parser.add_argument("--top", type=int, default=0, help="also list each operation's N busiest innermost frames")
    args = parser.parse_args(argv)
    pyspy = shutil.which("py-spy")
    if pyspy is None:
        raise SystemExit("py-spy is not installed (pip install py-spy)")
    import requests

    server = _Server(args.mode)
    http = requests.Session()
    http.trust_env = False
    base = server.url + "/api/v1/namespaces/default/configmaps"
    rows = []
    try:
        for i in range(args.items):
            http.post(base, json=_configmap(f"cm-{i}")).raise_for_status()
        names = iter(range(10**9))
        # the list before the creates, so that it holds the --items ConfigMaps only
        ops = {
            "get": (args.requests, lambda: http.get(base + "/cm-0")),
            f"list of {args.items} (JSON)": (max(1, args.requests // 10), lambda: http.get(base)),
            "create": (args.requests, lambda: http.post(base, json=_configmap(f"new-{next(names)}"))),
        }
        for name, (count, call) in ops.items():
            for _ in range(20):
                call().raise_for_status()  # warm: first-use imports and caches
            raw = os.path.join(server.dir, f"{name.split()[0]}.txt")
            spy = subprocess.Popen([pyspy, "record", "--pid", str(server.proc.pid), "--rate", str(args.rate),
                                    "--gil", "--format", "raw", "--nonblocking", "--output", raw],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)  # py-spy attaches
            t0 = time.perf_counter()
            for _ in range(count):
                r = call()
                if r.status_code >= 300:
                    raise SystemExit(f"{name}: {r.status_code} {r.text[:200]}")
            per = (time.perf_counter() - t0) / count
            spy.send_signal(2)  # SIGINT: py-spy writes its file and exits
            spy.wait(60)
            with open(raw) as f:
                samples = parse_raw(f.readlines())
            rows.append((name, per, shares(samples)))
            if args.top:
                with open(raw) as f:
                    leaves: collections.Counter[str] = collections.Counter()
                    for line in f:
                        stack, _, n = line.rstrip("\n").rpartition(" ")
                        if n.isdigit():
                            leaves[stack.split(";")[-1]] += int(n)
                total = sum(leaves.values()) or 1
                print(f"{name}: {total} samples")
                for frame, n in leaves.most_common(args.top):
                    print(f"  {n / total * 100:4.1f}%  {frame}")
    finally:
        http.close()
        server.stop()
    load = "%.2f %.2f %.2f" % os.getloadavg()
    print(f"kcodec serve, SQLite, {args.mode}, {args.items} ConfigMaps, one keep-alive client; load average {load}")
    print("| operation | per request | " + " | ".join(LAYERS) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in LAYERS) + " |")
    for name, per, split in rows:
        print(f"| {name} | {per * 1e3:.2f} ms | " + " | ".join(f"{split[k] * 100:.0f}%" for k in LAYERS) + " |")
    print(json.dumps({name: split for name, _, split in rows}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
