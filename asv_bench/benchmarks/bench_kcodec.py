"""kcodec's own codecs on the fixture Pod and the PodList, in pure and compiled modes.

Every class is parametrized over ``mode`` (``pure`` / ``compiled``); setup raises
NotImplementedError, which asv reports as a skip, when the compiled extension is not built
or kcodec is not importable yet.
"""
from __future__ import annotations

import gc
import tracemalloc
from typing import Any

from . import _docs
from ._docs import MODES, Heavy, build_documents


class GVKInterpret:
    """GVK sniffing (``SimpleMetaFactory().interpret``) of the fixture Pod JSON."""

    params = [MODES]
    param_names = ["mode"]
    setup_cache = staticmethod(build_documents)

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        from kcodec.serializer.meta import SimpleMetaFactory

        self.factory = SimpleMetaFactory()
        self.data = docs["pod_json"]

    def time_interpret_pod_json(self, docs: dict[str, Any], mode: str) -> None:
        self.factory.interpret(self.data)


class Envelope:
    """The protobuf ``k8s\\x00`` + ``runtime.Unknown`` envelope of the fixture Pod."""

    params = [MODES]
    param_names = ["mode"]
    setup_cache = staticmethod(build_documents)

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        from kcodec import speedups as _pbwire

        self.pbwire = _pbwire
        self.data = docs["pod_pb"]
        self.parts = _pbwire.envelope_decode(self.data)

    def time_envelope_decode(self, docs: dict[str, Any], mode: str) -> None:
        self.pbwire.envelope_decode(self.data)

    def time_envelope_encode(self, docs: dict[str, Any], mode: str) -> None:
        self.pbwire.envelope_encode(*self.parts)


_POD_DOC = {"json": "pod_json", "yaml": "pod_yaml", "protobuf": "pod_pb"}
_LIST_DOC = {"json": "list_json", "protobuf": "list_pb", "cbor": "list_cbor"}


class PodCodec:
    """Decode and encode of the fixture Pod (JSON input is Go's pretty form)."""

    params = [MODES, ["json", "yaml", "protobuf"]]
    param_names = ["mode", "format"]
    setup_cache = staticmethod(build_documents)

    def setup(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        self.serializer = _docs.serializer_for(fmt)
        self.data = _docs.document(docs, _POD_DOC[fmt])
        self.obj, _ = self.serializer.decode(self.data)

    def time_decode(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        self.serializer.decode(self.data)

    def time_encode(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        self.serializer.encode(self.obj)


class DeepCopy:
    """``deep_copy()`` of the decoded fixture Pod (Go's DeepCopyObject, which informers and
    conversions call on every object)."""

    params = [MODES]
    param_names = ["mode"]
    setup_cache = staticmethod(build_documents)

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        self.obj, _ = _docs.serializer_for("protobuf").decode(_docs.document(docs, "pod_pb"))
        self.tree = self.obj.to_dict()

    def time_deep_copy_pod(self, docs: dict[str, Any], mode: str) -> None:
        self.obj.deep_copy()

    def time_to_dict_pod(self, docs: dict[str, Any], mode: str) -> None:
        """``to_dict()``: the JSON-compatible dict of the object (what apply and callers that
        hand objects to dict-based code use)."""
        self.obj.to_dict()

    def time_from_dict_pod(self, docs: dict[str, Any], mode: str) -> None:
        """``from_dict()``: the typed object of a JSON-compatible dict (``kcodec.load(dict)``)."""
        type(self.obj).from_dict(self.tree)


class PodListCodec(Heavy):
    """Decode and encode of the PodList (compact JSON, protobuf, CBOR as Go writes it)."""

    params = [MODES, ["json", "protobuf", "cbor"]]
    param_names = ["mode", "format"]

    def setup(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        self.serializer = _docs.serializer_for(fmt)
        self.data = _docs.document(docs, _LIST_DOC[fmt])
        self.obj, _ = self.serializer.decode(self.data)

    def time_decode(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        self.serializer.decode(self.data)

    def time_encode(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        self.serializer.encode(self.obj)

    def peakmem_decode(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        self.serializer.decode(self.data)


class PodListDistinctTimes(Heavy):
    """Decode of the PodList whose pods differ in every timestamp too (``times_json`` /
    ``times_pb``): in ``PodListCodec``'s list all pods share their times, so each distinct
    time is parsed once per document; here every one is parsed, as in a real list."""

    params = [MODES, ["json", "protobuf"]]
    param_names = ["mode", "format"]

    def setup(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        self.serializer = _docs.serializer_for(fmt)
        self.data = _docs.document(docs, {"json": "times_json", "protobuf": "times_pb"}[fmt])
        self.serializer.decode(self.data)

    def time_decode(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        self.serializer.decode(self.data)


class PodListFree(Heavy):
    """Freeing a decoded PodList: the part of ``PodListCodec.time_decode`` that drops the
    previous result (every caller frees it eventually; Go's collector does it for free).

    ``number = 1``: setup (a fresh decode) runs before every sample, so each sample frees
    one whole list."""

    params = [MODES, ["json", "protobuf"]]
    param_names = ["mode", "format"]
    number = 1

    def setup(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        self.obj, _ = _docs.serializer_for(fmt).decode(_docs.document(docs, _LIST_DOC[fmt]))
        gc.collect()

    def time_free(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        self.obj = None


class PodListArenaCache(Heavy):
    """The compiled PodList decode with kcodec's arena cache at its default cap and off
    (``kcodec.speedups.arena_cache``): what remapping freed memory costs each decode."""

    params = [["on", "off"], ["json", "protobuf"]]
    param_names = ["arena_cache", "format"]

    def setup(self, docs: dict[str, Any], cache: str, fmt: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode("compiled")
        from kcodec import speedups

        if not speedups.arena_cache().supported:
            raise NotImplementedError("the arena cache is absent on this platform")
        self.previous = speedups.arena_cache().max_bytes
        speedups.arena_cache(speedups.DEFAULT_ARENA_CACHE_MIB << 20 if cache == "on" else 0)
        self.serializer = _docs.serializer_for(fmt)
        self.data = _docs.document(docs, _LIST_DOC[fmt])
        self.serializer.decode(self.data)

    def teardown(self, docs: dict[str, Any], cache: str, fmt: str) -> None:
        from kcodec import speedups

        speedups.arena_cache(self.previous)

    def time_decode(self, docs: dict[str, Any], cache: str, fmt: str) -> None:
        self.serializer.decode(self.data)


def retained_bytes(fn: Any, data: bytes) -> int:
    """Bytes still allocated (per tracemalloc) after ``fn(data)``, while its result is alive."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = fn(data)
        gc.collect()
        size = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    del result
    return size


class MemoryPodList(Heavy):
    """Retained memory of a decoded PodList (``MEM_ITEMS`` pods) against ``json.loads`` dicts."""

    params = [MODES]
    param_names = ["mode"]

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        import json

        _docs.require_kcodec()
        _docs.use_mode(mode)
        serializer = _docs.json_serializer()
        self.data = docs["mem_json"]
        # One throwaway decode first so lazily built class tables are not charged to the object.
        serializer.decode(self.data)
        self.decode = lambda data: serializer.decode(data)[0]
        self.loads = json.loads

    def track_retained_ratio(self, docs: dict[str, Any], mode: str) -> float:
        return retained_bytes(self.decode, self.data) / retained_bytes(self.loads, self.data)

    track_retained_ratio.unit = "x json.loads"  # type: ignore[attr-defined]

    def track_retained_bytes(self, docs: dict[str, Any], mode: str) -> int:
        return retained_bytes(self.decode, self.data)

    track_retained_bytes.unit = "bytes"  # type: ignore[attr-defined]


def peak_and_retained_bytes(fn: Any, data: bytes) -> tuple[int, int]:
    """(peak, retained) bytes per tracemalloc of ``fn(data)``: the most allocated at once while
    it ran, and what is still allocated while its result is alive, both above the start."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = fn(data)
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak - base, current - base


_RSS_PROBE = """
import gc, sys
sys.path.insert(0, {asv!r})
from benchmarks import _docs
_docs.use_mode({mode!r})
serializer = _docs.serializer_for("protobuf")
with open({path!r}, "rb") as f:
    data = f.read()
def status():
    out = {{}}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) * 1024
    return out
# Class tables are built lazily by the first decode: build them on one Pod first, so that
# what is measured is the decode of the list alone.
serializer.decode({warm!r})
gc.collect()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # resets VmHWM, the peak RSS, to the current RSS (Linux 4.0 and later)
before = status()
obj, _ = serializer.decode(data)
after = status()
print(after["VmHWM"] - before["VmRSS"], after["VmRSS"] - before["VmRSS"])
"""


class ProtobufDecodePeak(Heavy):
    """Peak memory during a protobuf decode of the memory PodList (``MEM_ITEMS`` pods) over the
    memory its result retains (target: at most 2x), as ``tracemalloc`` counts them: every
    Python allocation, the decoder's scratch buffers included."""

    params = [MODES]
    param_names = ["mode"]

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        self.mode = mode
        self.serializer = _docs.serializer_for("protobuf")
        obj, _ = _docs.json_serializer().decode(docs["mem_json"])
        self.data = self.serializer.encode(obj)
        del obj
        self.serializer.decode(self.data)  # build the lazily made class tables outside the measure
        self.warm = _docs.document(docs, "pod_pb")

    def track_peak_over_retained(self, docs: dict[str, Any], mode: str) -> float:
        peak, retained = peak_and_retained_bytes(lambda data: self.serializer.decode(data)[0], self.data)
        return peak / retained

    track_peak_over_retained.unit = "x retained"  # type: ignore[attr-defined]


class ProtobufDecodePeakRSS(ProtobufDecodePeak):
    """``ProtobufDecodePeak`` in resident pages: the kernel's peak RSS (VmHWM, reset through
    /proc/self/clear_refs) in a fresh interpreter that has decoded nothing else, so that no
    freed memory is there to be reused. Skipped below 256 KiB of protobuf, where the list
    fills too few pages for a ratio."""

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        import os

        super().setup(docs, mode)
        if not os.path.exists("/proc/self/clear_refs"):
            raise NotImplementedError("peak RSS needs Linux's /proc/self/clear_refs")
        if len(self.data) < 256 * 1024:
            raise NotImplementedError(f"a {len(self.data)}-byte list fills too few pages for a ratio")

    def track_peak_rss_over_retained(self, docs: dict[str, Any], mode: str) -> float:
        import subprocess
        import sys
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".pb") as f:
            f.write(self.data)
            f.flush()
            code = _RSS_PROBE.format(asv=str(_docs.REPO_ROOT / "asv_bench"), mode=self.mode, path=f.name, warm=self.warm)
            out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
        peak, retained = (int(x) for x in out.stdout.split())
        return peak / retained

    track_peak_rss_over_retained.unit = "x retained"  # type: ignore[attr-defined]


class StartUp:
    """Import kcodec and decode one Deployment YAML in a fresh interpreter (target: at most
    0.15 s wall; kubectl takes about 0.2 s). ``kcodec.api.codecs`` knows every kind from a
    generated table and imports only the group modules the document needs (apps/v1 and the
    core/v1 and meta/v1 it refers to)."""

    params = (["compiled", "pure"],)
    param_names = ["mode"]
    repeat = (3, 5, 20.0)
    setup_cache = staticmethod(build_documents)

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        _docs.require_kcodec()
        _docs.byte_compile_kcodec()

    def timeraw_import_and_decode_deployment_yaml(self, docs: dict[str, Any], mode: str) -> str:
        path = _docs.FIXTURES / "apps.v1.Deployment.yaml"
        pure = "1" if mode == "pure" else ""
        return (
            "import os\n"
            f"os.environ['KCODEC_PURE'] = {pure!r}\n"
            "from kcodec.api import codecs\n"
            f"codecs.universal_deserializer().decode(open({str(path)!r}, 'rb').read())\n"
        )
