"""Watch streams: ``kcodec.watch_events`` over Pod watch events, beside one PodList.

Target: decoding 10,000 Pod watch events, as JSON lines
(``?watch=1``) and as length-delimited protobuf (``application/vnd.kubernetes.protobuf;
stream=watch``), costs no more per object than decoding the same Pods as one PodList. Both
sides here hold the same number of the same Pods (the fixture Pod, named ``pod-<i>``), so
the two totals compare directly. The stream is read from memory (``io.BytesIO``), as a
client reads a response body it has buffered.
"""
from __future__ import annotations

import io
import os
import struct
from typing import Any

from . import _docs
from ._docs import MODES, Heavy

#: Events in the watch stream (``KCODEC_BENCH_WATCH_EVENTS``); 0, the default, means ten per
#: PodList item (``LIST_ITEMS``): 10,000 with the default list, 30 in the tests' tiny one.
WATCH_EVENTS: int = int(os.environ.get("KCODEC_BENCH_WATCH_EVENTS", "0"))


def watch_events_count(list_items: int) -> int:
    """How many events the watch stream holds for a PodList of ``list_items``."""
    return WATCH_EVENTS or 10 * list_items

_built: dict[tuple[int, str], tuple[bytes, bytes]] = {}


def watch_documents(n: int, fmt: str) -> tuple[bytes, bytes]:
    """``(stream, podlist)``: ``n`` ADDED events of the fixture Pod in ``fmt`` (``json`` or
    ``protobuf``), and a PodList of the same ``n`` Pods in the same format, both made by
    kcodec's encoders as the API server writes them."""
    got = _built.get((n, fmt))
    if got is not None:
        return got
    from kcodec.api import codecs
    from kcodec.api.core.v1 import PodList
    from kcodec.api.meta.v1 import ListMeta, WatchEvent
    from kcodec.runtime import RawExtension

    ser = _docs.serializer_for(fmt)
    pod, _ = _docs.serializer_for("protobuf").decode(_docs.fixture_bytes("pb"))
    frames = []
    items = []
    if fmt == "protobuf":
        info = next(i for i in codecs.supported_media_types()
                    if i.media_type == "application/vnd.kubernetes.protobuf")
        raw = info.stream_serializer.serializer
    for i in range(n):
        pod.metadata.name = f"pod-{i}"
        body = ser.encode(pod)
        if fmt == "json":
            frames.append(b'{"type":"ADDED","object":%s}\n' % body.rstrip(b"\n"))
        else:
            frame = raw.encode(WatchEvent(type="ADDED", object=RawExtension(raw=body)))
            frames.append(struct.pack(">I", len(frame)) + frame)
        item = pod.deep_copy()
        item.api_version = item.kind = ""
        items.append(item)
    lst = PodList(metadata=ListMeta(resource_version="1"), items=items)
    lst.api_version, lst.kind = "v1", "PodList"
    got = _built[(n, fmt)] = (b"".join(frames), ser.encode(lst))
    return got


class WatchStream(Heavy):
    """Decode every event of a Pod watch stream, and the PodList of the same Pods."""

    params = [MODES, ["json", "protobuf"]]
    param_names = ["mode", "format"]

    def setup(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)  # skips here when the compiled kernels are asked for and absent
        import kcodec

        n = watch_events_count(docs["list_items"])
        # made with the fastest kernels there are: 10,000 pure-Python encodes take minutes
        _docs.speedups.use_compiled(True)
        self.stream, self.list = watch_documents(n, fmt)
        _docs.use_mode(mode)
        self.watch_events = kcodec.watch_events
        self.serializer = _docs.serializer_for(fmt)
        self.n = n
        # the first decode loads the modules and compiles the tables
        for _ in self.watch_events(self.stream[: self._first_event_end(fmt)], fmt):
            pass

    def _first_event_end(self, fmt: str) -> int:
        if fmt == "protobuf":
            return 4 + struct.unpack(">I", self.stream[:4])[0]
        return self.stream.index(b"\n") + 1

    def time_watch(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        n = 0
        for _ in self.watch_events(io.BytesIO(self.stream), fmt):
            n += 1
        assert n == self.n

    def time_list(self, docs: dict[str, Any], mode: str, fmt: str) -> None:
        self.serializer.decode(self.list)
