"""kcodec.interop against the official ``kubernetes`` client and a loopback API server.

The server is the test's own: it answers from Go-written fixture objects in protobuf when
the request accepts it and in JSON otherwise (and JSON only for a custom resource, as a
real API server does), so the client's request headers and kcodec's decoding are both
checked without a cluster.
"""
from __future__ import annotations

import json
import struct
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

import kcodec
from kcodec.api import codecs
from kcodec.api.core.v1 import Pod, PodList
from kcodec.api.meta.v1 import ListMeta, WatchEvent
from kcodec.errors import EncodeError, KCodecError
from kcodec.runtime import RawExtension, Unstructured

from conftest import fixtures_dir

k8s = pytest.importorskip("kubernetes", reason="the official kubernetes client is not installed")
from kcodec import interop  # noqa: E402

PROTOBUF = "application/vnd.kubernetes.protobuf"


def _pods() -> list[Pod]:
    base = kcodec.load(fixtures_dir() / "core.v1.Pod.pb")
    out = []
    for i in range(3):
        p = base.deep_copy()
        p.metadata.name = f"pod-{i}"
        out.append(p)
    return out


def _as_item(pod: Pod) -> Pod:
    """A list item as it comes back: protobuf list items carry no TypeMeta."""
    p = pod.deep_copy()
    p.api_version = p.kind = ""
    return p


def _serializer(media_type: str) -> object:
    return next(i for i in codecs.supported_media_types() if i.media_type == media_type)


class _Server:
    def __init__(self) -> None:
        self.accepts: list[str] = []
        pods = _pods()
        pod_list = PodList(api_version="v1", kind="PodList", metadata=ListMeta(resource_version="42"), items=pods)
        self.list_pb = kcodec.dump(pod_list, "protobuf")
        self.list_json = kcodec.dump(pod_list, "json")
        self.pod_pb = kcodec.dump(pods[0], "protobuf")
        self.pods = pods
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, body: bytes, content_type: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                url = urlparse(self.path)
                query = parse_qs(url.query)
                accept = self.headers.get("Accept", "")
                outer.accepts.append(accept)
                wants_pb = PROTOBUF in accept
                if url.path == "/api/v1/namespaces/default/pods":
                    if query.get("watch") == ["true"]:
                        self._send(outer.watch_body(wants_pb),
                                   PROTOBUF + ";stream=watch" if wants_pb else "application/json")
                    elif wants_pb:
                        self._send(outer.list_pb, PROTOBUF)
                    else:
                        self._send(outer.list_json, "application/json")
                elif url.path == "/api/v1/namespaces/default/pods/pod-0":
                    self._send(outer.pod_pb if wants_pb else kcodec.dump(outer.pods[0], "json"),
                               PROTOBUF if wants_pb else "application/json")
                elif url.path == "/apis/example.com/v1/namespaces/default/widgets/w":
                    self._send(b'{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}',
                               "application/json")
                else:
                    self.send_error(404)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def watch_body(self, wants_pb: bool) -> bytes:
        out = b""
        for kind, pod in zip(("ADDED", "MODIFIED", "DELETED"), self.pods):
            if wants_pb:
                raw = _serializer(PROTOBUF).stream_serializer.serializer
                frame = raw.encode(WatchEvent(type=kind, object=RawExtension(raw=kcodec.dump(pod, "protobuf"))))
                out += struct.pack(">I", len(frame)) + frame
            else:
                out += b'{"type":"%s","object":%s}\n' % (kind.encode(), kcodec.dump(pod, "json").strip())
        return out

    @property
    def host(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    s = _Server()
    s.thread.start()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


@pytest.fixture()
def core(server: _Server) -> object:
    cfg = k8s.client.Configuration(host=server.host)
    return k8s.client.CoreV1Api(k8s.client.ApiClient(cfg))


def test_list_as_protobuf(server: _Server, core: object) -> None:
    pods = interop.request(core.list_namespaced_pod, "default")
    assert server.accepts[-1] == interop.PROTOBUF_ACCEPT
    assert isinstance(pods, PodList)
    assert [p.metadata.name for p in pods.items] == ["pod-0", "pod-1", "pod-2"]
    assert pods.items == [_as_item(p) for p in server.pods]
    assert pods.metadata.resource_version == "42"


def test_get_as_protobuf(server: _Server, core: object) -> None:
    pod = interop.request(core.read_namespaced_pod, "pod-0", "default")
    assert pod == server.pods[0]


def test_watch_as_protobuf(server: _Server, core: object) -> None:
    events = list(interop.watch(core.list_namespaced_pod, "default"))
    assert server.accepts[-1] == interop.PROTOBUF_WATCH_ACCEPT
    assert [(e.type, e.object.metadata.name) for e in events] == [
        ("ADDED", "pod-0"), ("MODIFIED", "pod-1"), ("DELETED", "pod-2")]
    assert events[0].object == server.pods[0]


def test_json_fallback_when_server_answers_json(server: _Server, core: object) -> None:
    pods = interop.request(core.list_namespaced_pod, "default", _headers={"Accept": "application/json"})
    assert server.accepts[-1] == "application/json"
    assert [p.metadata.name for p in pods.items] == ["pod-0", "pod-1", "pod-2"]
    events = list(interop.watch(core.list_namespaced_pod, "default", _headers={"Accept": "application/json"}))
    assert [e.object.metadata.name for e in events] == ["pod-0", "pod-1", "pod-2"]


def test_custom_resource_comes_back_unstructured(server: _Server) -> None:
    cfg = k8s.client.Configuration(host=server.host)
    api = k8s.client.CustomObjectsApi(k8s.client.ApiClient(cfg))
    obj = interop.request(api.get_namespaced_custom_object, "example.com", "v1", "default", "widgets", "w")
    assert isinstance(obj, Unstructured) and obj.get_name() == "w"


def test_client_models_round_trip_every_fixture_kind_the_client_has() -> None:
    done = 0
    refused: list[str] = []
    for f in sorted(fixtures_dir().glob("*.json")):
        try:
            obj = kcodec.load(f)
        except KCodecError:
            continue
        try:
            name = interop.client_model_name(obj.api_version, obj.kind)
        except KCodecError:
            continue  # a kind the client does not model (alpha groups it lacks)
        try:
            model = interop.to_client_model(obj)
        except EncodeError as err:
            refused.append(f"{f.name}: {err}")
            continue
        assert type(model).__name__ == name
        if f.name == "core.v1.Pod.json":
            assert model.metadata.name == obj.metadata.name
            assert model.spec.containers[0].image == obj.spec.containers[0].image
        done += 1
    assert done > 90  # 95 of the HEAD fixtures are kinds the client models and accepts
    # The client's own validation refuses a few valid objects; kcodec says which, clearly.
    assert len(refused) < 10, refused
    assert all("model refuses this object" in r for r in refused)


def test_client_model_to_kcodec() -> None:
    model = k8s.client.V1ConfigMap(api_version="v1", kind="ConfigMap",
                                   metadata=k8s.client.V1ObjectMeta(name="c"), data={"k": "v"})
    obj = interop.from_client_model(model)
    assert type(obj).__name__ == "ConfigMap" and obj.data == {"k": "v"}
    with pytest.raises(KCodecError, match="has no api_version/kind"):
        interop.from_client_model(k8s.client.V1ConfigMap(data={"k": "v"}))


def test_dicts() -> None:
    pod = _pods()[0]
    d = interop.to_dict(pod)
    assert d["kind"] == "Pod" and d["metadata"]["name"] == "pod-0"
    assert interop.from_dict(d) == pod
    assert json.loads(kcodec.dump(pod, "json")) == d
    with pytest.raises(TypeError):
        interop.from_dict([1])  # type: ignore[arg-type]
