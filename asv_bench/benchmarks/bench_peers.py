"""Peers on the same documents as ``bench_kcodec``: what Python users use today.

* ``kubernetes`` (the official client): ``ApiClient().deserialize`` of the response text
  into ``V1Pod``/``V1PodList`` and ``sanitize_for_serialization`` + ``json.dumps`` back.
* ``lightkube`` 1.x (msgspec models): ``lightkube.core.decoders.decode_object`` /
  ``decode_list`` (what its client runs on a response body), ``Resource.from_dict`` on an
  already parsed dict, and ``msgspec.json.encode`` of the models (what its client sends).
* ``json`` / ``orjson``: bytes to plain dicts and back, no typing at all.
* PyYAML with libyaml (``CSafeLoader`` / ``CSafeDumper``) for the single Pod YAML.

The peers are bench-only extras, never kcodec runtime dependencies; a missing peer skips
its benchmarks.
"""
from __future__ import annotations

import inspect
import json
from typing import Any

from ._docs import Heavy, build_documents
from .bench_kcodec import retained_bytes

_DOCS = {"pod": "pod_json", "podlist": "list_json", "podlist_times": "times_json"}


def _need(module: str) -> Any:
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as e:
        raise NotImplementedError(f"peer {module} is not installed: {e}") from None


class _Response:
    """What ``ApiClient.deserialize`` took before kubernetes 32: an object with ``.data``."""

    __slots__ = ("data",)

    def __init__(self, data: str) -> None:
        self.data = data


def kubernetes_deserializer(client: Any) -> Any:
    """``fn(text, type_name)`` calling ``client.deserialize`` with either of its signatures.

    The OpenAPI generator behind kubernetes >= 32 takes ``(response_text, response_type,
    content_type)``; older clients take a response object with ``.data``.
    """
    if "content_type" in inspect.signature(client.deserialize).parameters:
        return lambda text, type_name: client.deserialize(text, type_name, "application/json")
    return lambda text, type_name: client.deserialize(_Response(text), type_name)


class PeerKubernetes(Heavy):
    """The official ``kubernetes`` client's model (de)serialization."""

    params = [["pod", "podlist"]]
    param_names = ["document"]

    def setup(self, docs: dict[str, Any], document: str) -> None:
        client_mod = _need("kubernetes.client")
        self.client = client_mod.ApiClient()
        self.deserialize = kubernetes_deserializer(self.client)
        self.type_name = "V1Pod" if document == "pod" else "V1PodList"
        self.text = docs[_DOCS[document]].decode()
        self.obj = self.deserialize(self.text, self.type_name)

    def time_decode(self, docs: dict[str, Any], document: str) -> None:
        self.deserialize(self.text, self.type_name)

    def time_encode(self, docs: dict[str, Any], document: str) -> None:
        json.dumps(self.client.sanitize_for_serialization(self.obj))


class PeerLightkube(Heavy):
    """lightkube 1.x: msgspec-backed models."""

    params = [["pod", "podlist", "podlist_times"]]
    param_names = ["document"]

    def setup(self, docs: dict[str, Any], document: str) -> None:
        decoders = _need("lightkube.core.decoders")
        resources = _need("lightkube.resources.core_v1")
        models = _need("lightkube.models.core_v1")
        import msgspec

        self.encode_json = msgspec.json.encode
        self.data = docs[_DOCS[document]]
        self.tree = json.loads(self.data)
        pod = resources.Pod
        if document == "pod":
            self.decode = lambda data: decoders.decode_object(data, pod)
            self.from_dict = pod.from_dict
            self.obj = self.decode(self.data)
        else:
            self.decode = lambda data: decoders.decode_list(data, pod)
            self.from_dict = models.PodList.from_dict
            # lightkube has no list encoder of its own; its PodList model is what it would send.
            self.obj = msgspec.json.decode(self.data, type=models.PodList)
        self.decode(self.data)

    def time_decode(self, docs: dict[str, Any], document: str) -> None:
        self.decode(self.data)

    def time_from_dict(self, docs: dict[str, Any], document: str) -> None:
        self.from_dict(self.tree)

    def time_encode(self, docs: dict[str, Any], document: str) -> None:
        self.encode_json(self.obj)


class PeerPlainDict(Heavy):
    """JSON text to plain dicts and back (the floor any typed decoder stands on)."""

    params = [["json", "orjson"], ["pod", "podlist", "podlist_times"]]
    param_names = ["library", "document"]

    def setup(self, docs: dict[str, Any], library: str, document: str) -> None:
        if library == "json":
            self.loads = json.loads
            self.dumps = lambda obj: json.dumps(obj, separators=(",", ":")).encode()
        else:
            orjson = _need("orjson")
            self.loads = orjson.loads
            self.dumps = orjson.dumps
        self.data = docs[_DOCS[document]]
        self.tree = self.loads(self.data)

    def time_loads(self, docs: dict[str, Any], library: str, document: str) -> None:
        self.loads(self.data)

    def time_dumps(self, docs: dict[str, Any], library: str, document: str) -> None:
        self.dumps(self.tree)


class PeerYAML:
    """PyYAML through libyaml on the fixture Pod YAML."""

    setup_cache = staticmethod(build_documents)

    def setup(self, docs: dict[str, Any]) -> None:
        yaml = _need("yaml")
        if not getattr(yaml, "__with_libyaml__", False):
            raise NotImplementedError("PyYAML was built without libyaml")
        self.yaml = yaml
        self.data = docs["pod_yaml"]
        self.tree = yaml.load(self.data, Loader=yaml.CSafeLoader)

    def time_load_pod(self, docs: dict[str, Any]) -> None:
        self.yaml.load(self.data, Loader=self.yaml.CSafeLoader)

    def time_dump_pod(self, docs: dict[str, Any]) -> None:
        self.yaml.dump(self.tree, Dumper=self.yaml.CSafeDumper)


class PeerMemoryPodList(Heavy):
    """Retained memory of the peers' decoded PodList (``MEM_ITEMS`` pods) against ``json.loads``."""

    params = [["kubernetes", "lightkube", "orjson"]]
    param_names = ["peer"]

    def setup(self, docs: dict[str, Any], peer: str) -> None:
        self.data = docs["mem_json"]
        if peer == "kubernetes":
            deserialize = kubernetes_deserializer(_need("kubernetes.client").ApiClient())
            self.decode = lambda data: deserialize(data.decode(), "V1PodList")
        elif peer == "lightkube":
            decoders = _need("lightkube.core.decoders")
            pod = _need("lightkube.resources.core_v1").Pod
            self.decode = lambda data: decoders.decode_list(data, pod)
        else:
            self.decode = _need("orjson").loads
        self.decode(self.data)

    def track_retained_ratio(self, docs: dict[str, Any], peer: str) -> float:
        return retained_bytes(self.decode, self.data) / retained_bytes(json.loads, self.data)

    track_retained_ratio.unit = "x json.loads"  # type: ignore[attr-defined]

    def track_retained_bytes(self, docs: dict[str, Any], peer: str) -> int:
        return retained_bytes(self.decode, self.data)

    track_retained_bytes.unit = "bytes"  # type: ignore[attr-defined]
