"""Shared inputs and switches of the kcodec benchmarks.

Every benchmark measures the same documents: the Go-written fixture Pod
(``core.v1.Pod.{json,yaml,pb}`` of k8s.io/api v0.36.3) and a PodList of ``LIST_ITEMS``
copies of it (items without apiVersion/kind, distinct ``metadata.name``), as compact JSON
(the API server's form) and as protobuf. The PodList protobuf is produced by kcodec
itself from the JSON list, so building it needs a working kcodec.

:func:`build_documents` is the asv ``setup_cache`` of every class: asv runs it once per
run and hands the pickled dict to each benchmark process, which keeps the costly PodList
construction out of the per-benchmark setup. ``tools/bench_report.py`` and the smoke
test call it directly (it is memoized per size).

The benchmarks measure the checkout they live in, not an installed kcodec: asv's
``existing`` environment does not install the project, so the repository root is put
first on ``sys.path`` here.
"""
from __future__ import annotations

import contextlib
import copy
import datetime
import functools
import itertools
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Where ``kcodec`` is imported from: this checkout, unless tools/bench_report.py
#: ``--baseline REV`` points a child process at a build of an earlier commit (the
#: benchmarks stay this checkout's, so both sides run the same code around kcodec).
KCODEC_ROOT = Path(os.environ.get("KCODEC_BENCH_KCODEC_ROOT") or REPO_ROOT)
if str(KCODEC_ROOT) not in sys.path:
    sys.path.insert(0, str(KCODEC_ROOT))

from kcodec import speedups  # noqa: E402  (needs the sys.path entry above)

FIXTURES = REPO_ROOT.parent / "shared" / "fixtures" / "k8s-api-v0.36.3" / "HEAD"
POD_STEM = "core.v1.Pod"

MODES: list[str] = ["pure", "compiled"]

#: Number of pods in the PodList documents (override with ``KCODEC_BENCH_ITEMS``).
LIST_ITEMS: int = int(os.environ.get("KCODEC_BENCH_ITEMS", "1000"))
#: Number of pods in the PodList whose retained memory is measured (``KCODEC_BENCH_MEM_ITEMS``).
MEM_ITEMS: int = int(os.environ.get("KCODEC_BENCH_MEM_ITEMS", "200"))

#: asv timeout (seconds) for classes over the big PodList; the peers are slow on it.
LONG_TIMEOUT = 900.0

_memo: dict[tuple[int, int], dict[str, Any]] = {}


@contextlib.contextmanager
def sized_documents(list_items: int, mem_items: int) -> Iterator[dict[str, Any]]:
    """:func:`build_documents` at other sizes (tests use tiny lists), sizes restored after.

    Skips (pytest) when the Go fixtures are not beside the checkout."""
    if not FIXTURES.is_dir():
        import pytest

        pytest.skip(f"Go fixtures not found at {FIXTURES} (../shared must sit beside the clone)")
    saved = (LIST_ITEMS, MEM_ITEMS)
    set_sizes(list_items, mem_items)
    try:
        yield build_documents()
    finally:
        set_sizes(*saved)


def set_sizes(list_items: int, mem_items: int) -> None:
    """Change the PodList sizes used by the next :func:`build_documents` call."""
    global LIST_ITEMS, MEM_ITEMS
    LIST_ITEMS = list_items
    MEM_ITEMS = mem_items


def fixture_bytes(ext: str) -> bytes:
    """The Go-written fixture Pod in ``ext`` (``json``, ``yaml`` or ``pb``)."""
    path = FIXTURES / f"{POD_STEM}.{ext}"
    if not path.is_file():
        raise NotImplementedError(f"fixture {path} is absent (../shared/fixtures not checked out)")
    return path.read_bytes()


_RFC3339 = re.compile(r"\A(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z\Z")


def _distinct_times(tree: Any, counter: itertools.count) -> Any:
    """``tree`` with every RFC3339 UTC timestamp string replaced by its own instant (the
    same shape and fraction length), as the pods of a real list differ in every time."""
    if isinstance(tree, dict):
        return {k: _distinct_times(v, counter) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_distinct_times(v, counter) for v in tree]
    if isinstance(tree, str):
        m = _RFC3339.match(tree)
        if m:
            n = next(counter)
            when = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(seconds=37 * n)
            frac = m.group(7) or ""
            if frac:
                frac = "." + str(n % 10 ** (len(frac) - 1)).zfill(len(frac) - 1)
            return when.strftime("%Y-%m-%dT%H:%M:%S") + frac + "Z"
    return tree


def podlist_json(pod_json: bytes, n: int, distinct_times: bool = False) -> bytes:
    """Compact JSON of a PodList of ``n`` copies of ``pod_json``, as the API server sends it.

    Items lose ``kind``/``apiVersion`` (the server omits them in lists) and are named
    ``pod-<i>`` so no two items are identical. With ``distinct_times`` every timestamp of
    every item is different too: decoders that share equal immutable values (kcodec does,
    per document) cannot reuse any parsed time then, as in a real list.
    """
    pod = json.loads(pod_json)
    pod.pop("kind", None)
    pod.pop("apiVersion", None)
    items = []
    counter = itertools.count(1)
    for i in range(n):
        item = _distinct_times(pod, counter) if distinct_times else copy.deepcopy(pod)
        item["metadata"]["name"] = f"pod-{i}"
        items.append(item)
    doc = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": items}
    return json.dumps(doc, separators=(",", ":")).encode()


def kcodec_ready() -> bool:
    """Whether ``from kcodec.api import scheme`` works (the serializers are integrated)."""
    try:
        from kcodec.api import scheme  # noqa: F401  (the import is the test)
    except Exception:  # any import-time failure means "not integrated yet"
        return False
    return True


def require_kcodec() -> None:
    """Skip (asv treats NotImplementedError from setup as a skip) when kcodec cannot run."""
    if not kcodec_ready():
        raise NotImplementedError("kcodec.api is not importable yet")


def use_mode(mode: str) -> None:
    """Switch kcodec's kernels to ``mode``; skip ``compiled`` when the extension is not built."""
    if mode == "compiled":
        if not speedups.available():
            raise NotImplementedError("kcodec compiled extension is not built")
        speedups.use_compiled(True)
    elif mode == "pure":
        speedups.use_compiled(False)
    else:
        raise ValueError(f"unknown mode {mode!r}")


def json_serializer(*, yaml: bool = False) -> Any:
    """kcodec's compact JSON (or YAML) serializer over the built-in scheme."""
    from kcodec.api import scheme
    from kcodec.serializer.json import Serializer

    return Serializer(scheme, scheme, yaml=yaml, pretty=False)


def protobuf_serializer() -> Any:
    """kcodec's protobuf serializer over the built-in scheme."""
    from kcodec.api import scheme
    from kcodec.serializer.protobuf import Serializer

    return Serializer(scheme, scheme)


def cbor_serializer() -> Any:
    """kcodec's CBOR serializer over the built-in scheme."""
    from kcodec.api import scheme
    from kcodec.serializer.cbor import Serializer

    return Serializer(scheme, scheme)


def serializer_for(fmt: str) -> Any:
    """The kcodec serializer of format ``fmt`` (``json``, ``yaml``, ``protobuf`` or ``cbor``)."""
    if fmt == "json":
        return json_serializer()
    if fmt == "yaml":
        return json_serializer(yaml=True)
    if fmt == "protobuf":
        return protobuf_serializer()
    if fmt == "cbor":
        return cbor_serializer()
    raise ValueError(f"unknown format {fmt!r}")


def podlist_protobuf(list_json: bytes) -> bytes:
    """The PodList as protobuf, made by kcodec: decode the JSON list, encode it as protobuf."""
    obj, _ = json_serializer().decode(list_json)
    return protobuf_serializer().encode(obj)


def podlist_cbor(list_json: bytes) -> bytes:
    """The PodList as CBOR (Go's bytes for it), made by kcodec from the JSON list."""
    obj, _ = json_serializer().decode(list_json)
    return cbor_serializer().encode(obj)


def build_documents() -> dict[str, Any]:
    """All benchmark inputs as bytes (memoized per ``(LIST_ITEMS, MEM_ITEMS)``).

    Keys: ``pod_json`` (the pretty fixture), ``pod_yaml``, ``pod_pb``, ``list_json``,
    ``list_pb`` and ``list_cbor`` (None when kcodec is not importable yet), ``times_json`` / ``times_pb``
    (the PodList with every timestamp distinct), ``mem_json`` (the PodList of
    ``MEM_ITEMS`` pods), ``list_items`` and ``mem_items``.
    """
    key = (LIST_ITEMS, MEM_ITEMS)
    docs = _memo.get(key)
    if docs is not None:
        return docs
    pod_json = fixture_bytes("json")
    list_json = podlist_json(pod_json, LIST_ITEMS)
    times_json = podlist_json(pod_json, LIST_ITEMS, distinct_times=True)
    docs = {
        "pod_json": pod_json,
        "pod_yaml": fixture_bytes("yaml"),
        "pod_pb": fixture_bytes("pb"),
        "list_json": list_json,
        "list_pb": podlist_protobuf(list_json) if kcodec_ready() else None,
        "list_cbor": podlist_cbor(list_json) if kcodec_ready() else None,
        "times_json": times_json,
        "times_pb": podlist_protobuf(times_json) if kcodec_ready() else None,
        "mem_json": podlist_json(pod_json, MEM_ITEMS),
        "list_items": LIST_ITEMS,
        "mem_items": MEM_ITEMS,
    }
    _memo[key] = docs
    return docs


# asv keys setup_cache by (module, line): every class that sets ``setup_cache =
# staticmethod(build_documents)`` shares one cached result per run. (staticmethod because
# asv looks the attribute up on an instance and would otherwise pass ``self``.)
build_documents.timeout = LONG_TIMEOUT  # type: ignore[attr-defined]


class Heavy:
    """asv settings for classes whose PodList cases take seconds per call: one round, no
    warm-up, at most 10 samples or 20 s, and a long timeout."""

    setup_cache = staticmethod(build_documents)
    timeout = LONG_TIMEOUT
    rounds = 1
    repeat = (1, 10, 20.0)
    warmup_time = 0.0


def byte_compile_kcodec() -> None:
    """Write the bytecode of the kcodec being measured, as ``pip install`` does, so start-up
    benchmarks time what an installed kcodec does even where PYTHONDONTWRITEBYTECODE is set
    (compiling every module from source would otherwise be half of a fresh process's time)."""
    import compileall

    compileall.compile_dir(str(KCODEC_ROOT / "kcodec"), quiet=1)


def document(docs: dict[str, Any], name: str) -> bytes:
    """``docs[name]``, skipping the benchmark when it could not be built."""
    data = docs.get(name)
    if data is None:
        raise NotImplementedError(f"document {name!r} unavailable (kcodec not importable when it was built)")
    return data


BENCH_PREFIXES = ("time_", "peakmem_", "track_", "mem_", "timeraw_")


def param_combinations(cls: type) -> list[tuple[Any, ...]]:
    """Every parameter tuple of an asv benchmark class, in asv's order (``[()]`` if none)."""
    params = getattr(cls, "params", None)
    if not params:
        return [()]
    if not isinstance(params[0], (list, tuple)):
        params = [params]
    return list(itertools.product(*params))


def bench_methods(cls: type) -> list[str]:
    """Names of the benchmark methods of ``cls`` (asv's prefixes), in definition order."""
    return [name for name in vars(cls) if name.startswith(BENCH_PREFIXES) and callable(getattr(cls, name))]


def instantiate(cls: type, params: tuple[Any, ...], docs: dict[str, Any]) -> Any:
    """A set-up instance of benchmark class ``cls``, as asv builds it.

    Raises NotImplementedError (asv's skip) when the setup skips.
    """
    inst = cls()
    setup = getattr(inst, "setup", None)
    if setup is not None:
        setup(*_cached(cls, docs), *params)
    return inst


def teardown(inst: Any, params: tuple[Any, ...], docs: dict[str, Any]) -> None:
    """asv's teardown of a set-up instance, when its class has one."""
    fn = getattr(inst, "teardown", None)
    if fn is not None:
        fn(*_cached(type(inst), docs), *params)


def bound(inst: Any, method: str, params: tuple[Any, ...], docs: dict[str, Any]) -> Callable[[], Any]:
    """A zero-argument callable running benchmark ``method`` of a set-up instance once."""
    return functools.partial(getattr(inst, method), *_cached(type(inst), docs), *params)


def _cached(cls: type, docs: dict[str, Any]) -> tuple[Any, ...]:
    """What asv passes ahead of the parameters: the setup_cache result, when the class has one."""
    return (docs,) if hasattr(cls, "setup_cache") else ()
