"""The connect subresources served by kcodec serve: pods/log from a kubelet, exec/attach/
portforward up to the dial, and the proxies (nodes/proxy, pods/proxy, services/proxy).

A small aiohttp server on 127.0.0.1 stands in as the kubelet (HTTPS with a self-signed
certificate from kcodec.server.runner, which kube-apiserver does not verify without
--kubelet-certificate-authority), registered as a Node whose status points to it; a plain
HTTP server stands in as a service's endpoint. Expected texts come from
k8s.io/kubernetes pkg/registry/core/pod/strategy.go (validateContainer, streamLocation,
ResourceLocation), pkg/apis/core/validation (ValidatePodLogOptions),
pkg/registry/core/service/storage/storage.go (ResourceLocation), node/strategy.go
(isProxyableHostname), k8s.io/apiserver pkg/registry/generic/rest/streamer.go and
response_checker.go, and k8s.io/apimachinery pkg/util/proxy/upgradeaware.go.
"""
from __future__ import annotations

import asyncio
import json
import shutil
import socket
import ssl
import subprocess
import threading
import urllib.error
import urllib.request
import uuid

import pytest
from aiohttp import ClientSession, WSMsgType, web

from kcodec.server.runner import self_signed_certificate
from kcodec.testing import APIServer

KUBECTL = shutil.which("kubectl")
FOLLOW_LINES = 5


class _Backend:
    """An aiohttp app on 127.0.0.1 in its own thread (TLS when given a context); stops on close."""

    def __init__(self, app: web.Application, ssl_context: ssl.SSLContext | None = None) -> None:
        self.app = app
        self.ssl_context = ssl_context
        self.loop = asyncio.new_event_loop()
        self.port = 0
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.runner = web.AppRunner(app)
            self.loop.run_until_complete(self.runner.setup())
            site = web.TCPSite(self.runner, "127.0.0.1", 0, ssl_context=ssl_context)
            self.loop.run_until_complete(site.start())
            self.port = site._server.sockets[0].getsockname()[1]
            ready.set()
            self.loop.run_forever()
            self.loop.run_until_complete(self.runner.cleanup())
            self.loop.close()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(10)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def _kubelet_app(seen: list[str]) -> web.Application:
    async def container_logs(request: web.Request) -> web.StreamResponse:
        seen.append(request.raw_path)
        ns, pod, container = (request.match_info[k] for k in ("ns", "pod", "container"))
        if container == "gone":
            return web.Response(status=404, text="container not found")
        if container == "broken":
            return web.Response(status=500, text="kubelet failure")
        if container == "moved":
            raise web.HTTPFound("/elsewhere")
        if container == "endless":
            # streams until the reader goes away, then records that it went
            resp = web.StreamResponse()
            await resp.prepare(request)
            try:
                while True:
                    await resp.write(b"tick\n")
                    await asyncio.sleep(0.02)
            except ConnectionResetError:
                seen.append("endless stream dropped")
            return resp
        resp = web.StreamResponse()
        resp.content_type = "text/plain"
        await resp.prepare(request)
        if request.query.get("follow") == "true":
            for i in range(FOLLOW_LINES):
                await resp.write(f"line {i} of {ns}/{pod}/{container}\n".encode())
                await asyncio.sleep(0.05)
        else:
            await resp.write(f"log of {ns}/{pod}/{container}\n".encode())
            await resp.write(f"query {request.query_string}\n".encode())
        await resp.write_eof()
        return resp

    async def stream(request: web.Request) -> web.StreamResponse:
        # the kubelet's streaming server: channel-prefixed websocket messages (v4.channel.k8s.io,
        # and v5, which adds only a close channel this stand-in never needs)
        seen.append(request.path_qs)
        ws = web.WebSocketResponse(protocols=("v5.channel.k8s.io", "v4.channel.k8s.io"))
        await ws.prepare(request)
        what = "/".join(request.match_info.values())
        await ws.send_bytes(b"\x01" + f"{what} {' '.join(request.query.getall('command', []))}\n".encode())
        if request.query.get("input") == "1":
            msg = await ws.receive()
            if msg.type == WSMsgType.BINARY:
                await ws.send_bytes(b"\x01" + msg.data[1:])
        await ws.send_bytes(b"\x03" + json.dumps({"metadata": {}, "status": "Success"}).encode())
        await ws.close()
        return ws

    app = web.Application()
    app.router.add_get("/containerLogs/{ns}/{pod}/{container}", container_logs)
    app.router.add_get("/exec/{ns}/{pod}/{container}", stream)
    app.router.add_post("/exec/{ns}/{pod}/{container}", stream)
    app.router.add_get("/attach/{ns}/{pod}/{container}", stream)
    return app


def _echo_app() -> web.Application:
    async def echo(request: web.Request) -> web.Response:
        body = await request.read()
        return web.json_response({"method": request.method, "path": request.path, "query": request.query_string,
                                  "body": body.decode(), "authorization": request.headers.get("Authorization"),
                                  "forwarded": request.headers.get("X-Forwarded-For")},
                                 headers={"X-Backend": "echo"})

    async def ws_echo(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                await ws.send_str(f"{request.query_string} {msg.data}")
                await ws.close()
        return ws

    app = web.Application(client_max_size=16 * 1024 * 1024)
    app.router.add_get("/ws", ws_echo)
    app.router.add_route("*", "/{tail:.*}", echo)
    return app


#: a documentation address (TEST-NET-1) standing for a pod IP in Endpoints; Endpoints
#: validation refuses loopback addresses, as Go's validateNonSpecialIP does
ROUTED_IP = "192.0.2.10"


class _RoutedEndpoints:
    """The Endpoints services/proxy reads, with ROUTED_IP delivered to 127.0.0.1: what a
    cluster network does for a pod IP, here for the loopback echo server."""

    def __init__(self, store):
        self.store = store

    def get(self, ctx, name, options=None):
        eps = self.store.get(ctx, name, options)
        for ss in eps.subsets or []:
            for addr in ss.addresses or []:
                if addr.ip == ROUTED_IP:
                    addr.ip = "127.0.0.1"
        return eps


def _with_routed_endpoints(getter):
    from kcodec.registry.builtin import api_group_infos

    infos = api_group_infos(getter)
    for info in infos:
        for storages in info.versioned_resources_storage_map.values():
            proxy = storages.get("services/proxy")
            if proxy is not None:
                proxy.endpoints = _RoutedEndpoints(proxy.endpoints)
    return infos


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    cert, key = self_signed_certificate("127.0.0.1")
    d = tmp_path_factory.mktemp("kubelet")
    (d / "tls.crt").write_bytes(cert)
    (d / "tls.key").write_bytes(key)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(d / "tls.crt", d / "tls.key")
    seen: list[str] = []
    kubelet = _Backend(_kubelet_app(seen), ctx)
    echo = _Backend(_echo_app())
    try:
        with APIServer(api_group_infos=_with_routed_endpoints) as server:
            yield {"server": server, "kubelet": kubelet, "echo": echo, "seen": seen}
    finally:
        kubelet.close()
        echo.close()


def _call(server, path, method="GET", body=None, headers=None):
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    hdrs = {"Content-Type": "application/json"} if isinstance(body, dict) else {}
    hdrs.update(headers or {})
    req = urllib.request.Request(server.url + path, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=30) as f:
            return f.status, f.headers, f.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def _upgrade(server, path, protocol="SPDY/3.1"):
    """A POST asking for a connection upgrade (urllib would replace the Connection header)."""
    return _raw(server, "POST", path, {"Connection": "Upgrade", "Upgrade": protocol})


def _raw(server, method, path, headers):
    """One request with exactly these headers, redirects not followed."""
    import http.client
    from urllib.parse import urlsplit

    u = urlsplit(server.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request(method, path, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def _status(result):
    code, _, body = result
    return code, json.loads(body)


def _ok(result):
    code, _, body = result
    assert 200 <= code < 300, body
    return json.loads(body) if body else None


def _node(server, name, port, addresses):
    _ok(_call(server, "/api/v1/nodes", "POST", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}))
    node = _ok(_call(server, f"/api/v1/nodes/{name}"))
    node["status"] = {"addresses": addresses, "daemonEndpoints": {"kubeletEndpoint": {"Port": port}}}
    _ok(_call(server, f"/api/v1/nodes/{name}/status", "PUT", node))


def _pod(server, ns, name, containers, node="", pod_ip=""):
    spec = {"containers": [{"name": c, "image": "busybox", "ports": [{"containerPort": 8080}]} for c in containers]}
    if node:
        spec["nodeName"] = node
    _ok(_call(server, f"/api/v1/namespaces/{ns}/pods", "POST",
              {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}))
    if pod_ip:
        pod = _ok(_call(server, f"/api/v1/namespaces/{ns}/pods/{name}"))
        pod["status"]["podIP"] = pod_ip
        pod["status"]["podIPs"] = [{"ip": pod_ip}]
        _ok(_call(server, f"/api/v1/namespaces/{ns}/pods/{name}/status", "PUT", pod))


@pytest.fixture
def ns(env):
    server = env["server"]
    name = f"conn-{uuid.uuid4().hex[:6]}"
    _ok(_call(server, "/api/v1/namespaces", "POST", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}))
    return name


@pytest.fixture
def bound(env, ns):
    """A node whose kubelet is the test's, a two-container pod on it and an unbound one."""
    server = env["server"]
    node = f"node-{ns}"
    _node(server, node, env["kubelet"].port, [{"type": "ExternalIP", "address": "192.0.2.1"},
                                              {"type": "InternalIP", "address": "127.0.0.1"}])
    _pod(server, ns, "web", ["app", "sidecar"], node=node)
    _pod(server, ns, "single", ["only"], node=node)
    _pod(server, ns, "pending", ["app"])
    return node


# ----------------------------------------------------------------------------- discovery


def test_discovery_lists_connect_subresources(env):
    # installer.go: a Connecter's GET/POST/PUT/PATCH/DELETE are discovery's verbs; kinds are New()'s
    resources = {r["name"]: r for r in _ok(_call(env["server"], "/api/v1"))["resources"]}
    expected = {
        "pods/log": ("Pod", ["get"]),
        "pods/exec": ("PodExecOptions", ["create", "get"]),
        "pods/attach": ("PodAttachOptions", ["create", "get"]),
        "pods/portforward": ("PodPortForwardOptions", ["create", "get"]),
        "pods/proxy": ("PodProxyOptions", ["create", "delete", "get", "patch", "update"]),
        "nodes/proxy": ("NodeProxyOptions", ["create", "delete", "get", "patch", "update"]),
        "services/proxy": ("ServiceProxyOptions", ["create", "delete", "get", "patch", "update"]),
    }
    for name, (kind, verbs) in expected.items():
        assert (resources[name]["kind"], resources[name]["verbs"]) == (kind, verbs), name
    assert resources["nodes/proxy"]["namespaced"] is False
    assert resources["pods/log"]["namespaced"] is True


@pytest.mark.skipif(KUBECTL is None, reason="kubectl not on PATH")
def test_kubectl_discovery(env):
    server = env["server"]
    raw = subprocess.run([KUBECTL, "--kubeconfig", server.kubeconfig, "get", "--raw", "/api/v1"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    names = {r["name"] for r in json.loads(raw)["resources"]}
    assert {"pods/log", "pods/exec", "pods/attach", "pods/portforward", "pods/proxy", "nodes/proxy",
            "services/proxy"} <= names
    listed = subprocess.run([KUBECTL, "--kubeconfig", server.kubeconfig, "api-resources", "--api-group=", "-o", "name"],
                            capture_output=True, text=True, timeout=60, check=True).stdout.split()
    # api-resources lists resources, never subresources
    assert "pods" in listed and not any("/" in n for n in listed)


# ----------------------------------------------------------------------------- pods/log


def test_log_streams_from_the_kubelet(env, ns, bound):
    server, seen = env["server"], env["seen"]
    code, headers, body = _call(server, f"/api/v1/namespaces/{ns}/pods/web/log?container=sidecar&tailLines=3"
                                        "&timestamps=true&sinceSeconds=60&limitBytes=100")
    assert code == 200 and headers["Content-Type"].startswith("text/plain")
    text = body.decode()
    assert text.startswith(f"log of {ns}/web/sidecar\n")
    # LogLocation's query, url.Values.Encode order (sorted keys)
    assert seen[-1] == f"/containerLogs/{ns}/web/sidecar?limitBytes=100&sinceSeconds=60&tailLines=3&timestamps=true"
    code, _, body = _call(server, f"/api/v1/namespaces/{ns}/pods/single/log")
    assert code == 200 and body.decode().startswith(f"log of {ns}/single/only\n")


def test_log_errors(env, ns, bound):
    server = env["server"]
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/web/log"))
    assert (code, st["reason"], st["message"]) == (
        400, "BadRequest", "a container name must be specified for pod web, choose one of: [app sidecar]")
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/web/log?container=c"))
    assert (code, st["message"]) == (400, "container c is not valid for pod web")
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/nope/log"))
    assert (code, st["reason"], st["message"]) == (404, "NotFound", 'pods "nope" not found')
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/single/log?tailLines=-1&limitBytes=0"))
    assert (code, st["reason"]) == (422, "Invalid")
    assert st["message"] == ('PodLogOptions "single" is invalid: [tailLines: Invalid value: -1: must be greater than '
                             'or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]')
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/single/log?sinceSeconds=5"
                                     "&sinceTime=2024-01-01T00:00:00Z"))
    assert st["message"] == ('PodLogOptions "single" is invalid: []: Forbidden: at most one of `sinceTime` or '
                             '`sinceSeconds` may be specified')
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/single/log?sinceSeconds=0"))
    assert st["message"] == 'PodLogOptions "single" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/single/log?tailLines=x"))
    assert (code, st["message"]) == (400, 'strconv.ParseInt: parsing "x": invalid syntax')
    # PodLogsQuerySplitStreams is off in 1.36
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/single/log?stream=Stdout"))
    assert (code, st["message"]) == (422, 'PodLogOptions "single" is invalid: stream: Forbidden: may not be specified')
    # the kubelet's own failures: GenericHttpResponseChecker
    code, _, body = _call(server, f"/api/v1/namespaces/{ns}/pods/pending/log")
    # LogLocation: a pod without a node has no location; StreamObject answers 204
    assert (code, body) == (204, b"")
    code, _, _ = _call(server, f"/api/v1/namespaces/{ns}/pods/single/log", "POST", b"")
    assert code == 405
    # no such routes: a subpath, the deprecated /watch/ prefix, a missing namespace
    for path in (f"/api/v1/namespaces/{ns}/pods/single/log/more", f"/api/v1/watch/namespaces/{ns}/pods/single/log",
                 "/api/v1/pods/single/log"):
        code, st = _status(_call(server, path))
        assert (code, st["reason"]) == (404, "NotFound"), path


def test_log_backend_failures(env, ns):
    server = env["server"]
    port = env["kubelet"].port
    node = f"n-{ns}"
    _node(server, node, port, [{"type": "InternalIP", "address": "127.0.0.1"}])
    _pod(server, ns, "p", ["gone", "broken", "moved"], node=node)
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/p/log?container=broken"))
    assert (code, st["reason"], st["message"]) == (500, "InternalError", "Internal error occurred: kubelet failure")
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/p/log?container=gone"))
    assert (code, st["reason"]) == (404, "NotFound")
    # PreventRedirects: a redirect is the client's error
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/p/log?container=moved"))
    assert (code, st["message"]) == (500, f'Get "https://127.0.0.1:{port}/containerLogs/{ns}/p/moved": '
                                          "redirects forbidden")
    # a kubelet nobody listens on: the transport's error as a plain error (500, no reason)
    down = _free_port()
    _node(server, f"down-{ns}", down, [{"type": "InternalIP", "address": "127.0.0.1"}])
    _pod(server, ns, "q", ["c"], node=f"down-{ns}")
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/q/log?follow=true"))
    assert (code, st.get("reason", "")) == (500, "")
    assert st["message"] == (f'Get "https://127.0.0.1:{down}/containerLogs/{ns}/q/c?follow=true": '
                             f"dial tcp 127.0.0.1:{down}: connect: connection refused")
    # a node with no address of the preferred types (GetPreferredNodeAddress's NoMatchError)
    _node(server, f"noaddr-{ns}", port, [])
    _pod(server, ns, "r", ["c"], node=f"noaddr-{ns}")
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/r/log"))
    assert (code, st["message"]) == (500, "no preferred addresses found; known addresses: []")
    # a node that does not exist: named after the request's resource, as Go's Store does
    _pod(server, ns, "s", ["c"], node="missing-node")
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/s/log"))
    assert (code, st["message"]) == (404, 'pods "missing-node" not found')


def test_python_client_read_pod_log(env, ns, bound):
    kubernetes = pytest.importorskip("kubernetes")
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException

    cfg = client.Configuration()
    config.load_kube_config(config_file=env["server"].kubeconfig, client_configuration=cfg)
    with client.ApiClient(cfg) as c:
        core = kubernetes.client.CoreV1Api(c)
        text = core.read_namespaced_pod_log("web", ns, container="app", tail_lines=10)
        assert text.startswith(f"log of {ns}/web/app\n") and "tailLines=10" in text
        with pytest.raises(ApiException) as err:
            core.read_namespaced_pod_log("web", ns)
        assert err.value.status == 400
        assert json.loads(err.value.body)["message"] == (
            "a container name must be specified for pod web, choose one of: [app sidecar]")
        stream = core.read_namespaced_pod_log("single", ns, follow=True, _preload_content=False)
        lines = [ln for ln in stream.read().decode().splitlines() if ln]
        assert lines == [f"line {i} of {ns}/single/only" for i in range(FOLLOW_LINES)]


@pytest.mark.skipif(KUBECTL is None, reason="kubectl not on PATH")
def test_kubectl_logs(env, ns, bound):
    server = env["server"]

    def kubectl(*args):
        return subprocess.run([KUBECTL, "--kubeconfig", server.kubeconfig, "-n", ns, *args],
                              capture_output=True, text=True, timeout=60)

    p = kubectl("logs", "web", "-c", "sidecar")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"log of {ns}/web/sidecar\n")
    p = kubectl("logs", "-f", "single")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [f"line {i} of {ns}/single/only" for i in range(FOLLOW_LINES)]
    # kubectl's flags become PodLogOptions, which LogLocation passes on to the kubelet
    p = kubectl("logs", "web", "-c", "app", "--tail=2", "--since=1h", "--timestamps", "--limit-bytes=100",
                "--previous")
    assert p.returncode == 0, p.stderr
    assert env["seen"][-1] == (f"/containerLogs/{ns}/web/app?limitBytes=100&previous=true&sinceSeconds=3600"
                               "&tailLines=2&timestamps=true")
    p = kubectl("logs", "web", "-c", "app", "--since-time=2024-05-06T07:08:09Z")
    assert p.returncode == 0, p.stderr
    assert env["seen"][-1] == f"/containerLogs/{ns}/web/app?sinceTime=2024-05-06T07%3A08%3A09Z"
    p = kubectl("logs", "web", "-c", "nope")
    assert p.returncode != 0
    assert "container nope is not valid for pod web" in p.stderr
    p = kubectl("logs", "missing")
    assert p.returncode != 0 and 'pods "missing" not found' in p.stderr


# ----------------------------------------------------------------------------- exec / attach / portforward


def test_exec_attach_portforward_before_dialing(env, ns, bound):
    server = env["server"]
    for sub in ("exec", "attach"):
        code, st = _status(_upgrade(server, f"/api/v1/namespaces/{ns}/pods/web/{sub}?command=ls&stdout=1"))
        assert (code, st["message"]) == (
            400, "a container name must be specified for pod web, choose one of: [app sidecar]"), sub
        code, st = _status(_upgrade(server, f"/api/v1/namespaces/{ns}/pods/web/{sub}?container=x"))
        assert (code, st["message"]) == (400, "container x is not valid for pod web")
        code, st = _status(_upgrade(server, f"/api/v1/namespaces/{ns}/pods/pending/{sub}"))
        assert (code, st["message"]) == (400, "pod pending does not have a host assigned")
        # upgradeRequired: a plain request is refused
        code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/single/{sub}", "POST"))
        assert (code, st["message"]) == (400, "Upgrade request required")
        code, _, _ = _call(server, f"/api/v1/namespaces/{ns}/pods/single/{sub}", "PUT")
        assert code == 405
    code, st = _status(_upgrade(server, f"/api/v1/namespaces/{ns}/pods/pending/portforward?ports=80"))
    assert (code, st["message"]) == (400, "pod pending does not have a host assigned")
    # runtime.Convert_Slice_string_To_Slice_int32
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/single/portforward?ports=80,x", "POST"))
    assert (code, st["message"]) == (400, 'cannot convert to []int32: strconv.ParseUint: parsing "x": invalid syntax')
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/single/portforward?ports=70000", "POST"))
    assert (code, st["message"]) == (400, 'cannot convert to []int32: strconv.ParseUint: parsing "70000": '
                                          "value out of range")


def test_exec_kubelet_down(env, ns):
    server = env["server"]
    down = _free_port()
    _node(server, f"down-{ns}", down, [{"type": "InternalIP", "address": "127.0.0.1"}])
    _pod(server, ns, "q", ["c"], node=f"down-{ns}")
    code, st = _status(_upgrade(server, f"/api/v1/namespaces/{ns}/pods/q/exec?command=ls&stdout=1", "websocket"))
    assert (code, st.get("reason", "")) == (500, "")
    assert st["message"] == f"error dialing backend: dial tcp 127.0.0.1:{down}: connect: connection refused"


# ----------------------------------------------------------------------------- proxies


def _service(server, ns, name, ports, selector=None):
    spec = {"ports": ports}
    if selector:
        spec["selector"] = selector
    _ok(_call(server, f"/api/v1/namespaces/{ns}/services", "POST",
              {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}))


def _endpoints(server, ns, name, pod, port):
    """The service's Endpoints: one address (routed to 127.0.0.1) whose target is ``pod``."""
    subsets = [{"addresses": [{"ip": ROUTED_IP, "targetRef": {"kind": "Pod", "namespace": ns, "name": pod}}],
                "ports": [{"name": "http", "port": port}]}]
    code, _, body = _call(server, f"/api/v1/namespaces/{ns}/endpoints/{name}")
    if code == 404:
        _ok(_call(server, f"/api/v1/namespaces/{ns}/endpoints", "POST",
                  {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name}, "subsets": subsets}))
    else:
        eps = json.loads(body)
        eps["subsets"] = subsets
        _ok(_call(server, f"/api/v1/namespaces/{ns}/endpoints/{name}", "PUT", eps))


def test_service_proxy_to_endpoint(env, ns):
    server, echo = env["server"], env["echo"]
    _pod(server, ns, "backend", ["app"], pod_ip="127.0.0.1")
    _service(server, ns, "svc", [{"name": "http", "port": 80, "targetPort": echo.port}])
    _endpoints(server, ns, "svc", "backend", echo.port)
    code, headers, body = _call(server, f"/api/v1/namespaces/{ns}/services/svc:http/proxy/a/b/?x=1&y=2",
                                headers={"Authorization": "Bearer secret-of-the-client"})
    assert code == 200 and headers["X-Backend"] == "echo"
    got = json.loads(body)
    assert (got["method"], got["path"], got["query"]) == ("GET", "/a/b/", "x=1&y=2")
    assert got["authorization"] is None and got["forwarded"] == "127.0.0.1"
    # a port number is looked up among the service's ports
    code, _, body = _call(server, f"/api/v1/namespaces/{ns}/services/svc:80/proxy/post", "POST", b"payload")
    assert code == 200 and json.loads(body)["body"] == "payload" and json.loads(body)["method"] == "POST"
    # an empty location path: redirected to the request's path with a slash
    code, headers, _ = _raw(server, "GET", f"/api/v1/namespaces/{ns}/services/svc:http/proxy?q=1", {})
    assert (code, headers["Location"]) == (301, f"/api/v1/namespaces/{ns}/services/svc:http/proxy/?q=1")
    # an upgrade goes through as one (a websocket to the endpoint)
    url = server.url.replace("http://", "ws://") + f"/api/v1/namespaces/{ns}/services/svc:http/proxy/ws?n=7"

    async def ws_roundtrip():
        async with ClientSession() as session:
            async with session.ws_connect(url) as ws:
                await ws.send_str("ping")
                return (await ws.receive(timeout=10)).data
    assert asyncio.run(ws_roundtrip()) == "n=7 ping"
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/services/svc:81/proxy/"))
    assert (code, st["reason"], st["message"]) == (503, "ServiceUnavailable",
                                                   'no service port 81 found for service "svc"')
    # no port name matches (the unnamed port): Go names the whole id
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/services/svc/proxy/"))
    assert (code, st["message"]) == (503, 'no endpoints available for service "svc"')
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/services/a:b:c:d/proxy/"))
    assert (code, st["message"]) == (400, 'invalid service request "a:b:c:d"')
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/services/ftp:svc:http/proxy/"))
    assert (code, st["message"]) == (400, 'invalid service request "ftp:svc:http"')


def test_service_proxy_without_endpoints(env, ns):
    server = env["server"]
    # Endpoints without subsets: what the endpoints controller writes for a selector no pod matches
    _service(server, ns, "lonely", [{"name": "http", "port": 80}], selector={"app": "none"})
    _ok(_call(server, f"/api/v1/namespaces/{ns}/endpoints", "POST",
              {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "lonely"}}))
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/services/lonely:http/proxy/"))
    assert (code, st["reason"], st["message"]) == (503, "ServiceUnavailable",
                                                   'no endpoints available for service "lonely"')
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/services/absent/proxy/"))
    assert (code, st["message"]) == (404, 'services "absent" not found')


def test_service_proxy_backend_down(env, ns):
    server = env["server"]
    down = _free_port()
    _pod(server, ns, "backend", ["app"], pod_ip="127.0.0.1")
    _service(server, ns, "svc", [{"name": "http", "port": 80}])
    _endpoints(server, ns, "svc", "backend", down)
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/services/svc:http/proxy/"))
    assert (code, st.get("reason", ""), st["message"]) == (
        500, "", f"dial tcp 127.0.0.1:{down}: connect: connection refused")


def test_node_and_pod_proxy_refuse_loopback(env, ns, bound):
    server = env["server"]
    # isProxyableHostname: the kubelet's address must be global unicast
    code, st = _status(_call(server, f"/api/v1/nodes/{bound}/proxy/healthz"))
    assert (code, st["message"]) == (400, "address not allowed")
    code, st = _status(_call(server, "/api/v1/nodes/a:b:c:d/proxy/"))
    assert (code, st["message"]) == (400, 'invalid node request "a:b:c:d"')
    code, st = _status(_call(server, "/api/v1/nodes/absent/proxy/"))
    assert (code, st["message"]) == (404, 'nodes "absent" not found')
    # pod ResourceLocation: an address that is not global unicast (none yet, or loopback)
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/web/proxy/"))
    assert (code, st["message"]) == (400, "address not allowed")
    _pod(server, ns, "local", ["app"], pod_ip="127.0.0.1")
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/local:8080/proxy/x"))
    assert (code, st["message"]) == (400, "address not allowed")
    code, st = _status(_call(server, f"/api/v1/namespaces/{ns}/pods/a:b:c:d/proxy/"))
    assert (code, st["message"]) == (400, 'invalid pod request "a:b:c:d"')


def test_openapi_connect_operations(env):
    # installer.go: connect routes per ConnectMethods answering a string; pods/log a GET with
    # PodLogOptions' fields as query parameters (AddObjectParams leaves sinceTime out)
    doc = _ok(_call(env["server"], "/openapi/v2"))
    exec_path = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/exec"]
    assert sorted(k for k in exec_path if k != "parameters") == ["get", "post"]
    assert exec_path["post"]["operationId"] == "connectCoreV1PostNamespacedPodExec"
    assert exec_path["get"]["x-kubernetes-action"] == "connect"
    assert exec_path["get"]["x-kubernetes-group-version-kind"] == {"group": "", "kind": "PodExecOptions",
                                                                   "version": "v1"}
    assert exec_path["get"]["responses"]["200"]["schema"] == {"type": "string"}
    assert [p["name"] for p in exec_path["parameters"]] == ["command", "container", "name", "namespace", "stderr",
                                                            "stdin", "stdout", "tty"]
    log = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/log"]
    assert log["get"]["operationId"] == "readCoreV1NamespacedPodLog"
    assert log["get"]["produces"][0] == "text/plain"
    names = [p["name"] for p in log["parameters"]]
    assert "tailLines" in names and "follow" in names and "sinceTime" not in names
    proxy = doc["paths"]["/api/v1/namespaces/{namespace}/services/{name}/proxy/{path}"]
    assert sorted(k for k in proxy if k != "parameters") == ["delete", "get", "head", "options", "patch", "post",
                                                             "put"]
    assert proxy["head"]["operationId"] == "connectCoreV1HeadNamespacedServiceProxyWithPath"
    assert "/api/v1/nodes/{name}/proxy" in doc["paths"]


def test_exec_relayed_to_the_kubelet(env, ns, bound):
    """An upgrade to the kubelet joined byte for byte (UpgradeAwareHandler.tryUpgrade): a
    v4.channel.k8s.io websocket, bidirectional."""
    server, seen = env["server"], env["seen"]
    url = server.url.replace("http://", "ws://") + \
        f"/api/v1/namespaces/{ns}/pods/web/exec?container=app&command=cat&command=-n&stdin=1&stdout=1"

    async def run():
        async with ClientSession() as session:
            async with session.ws_connect(url, protocols=("v4.channel.k8s.io",)) as ws:
                assert ws.protocol == "v4.channel.k8s.io"
                first = await ws.receive(timeout=10)
                await ws.send_bytes(b"\x00typed input")
                echoed = await ws.receive(timeout=10)
                status = await ws.receive(timeout=10)
                return first.data, echoed.data, status.data
    first, echoed, status = asyncio.run(run())
    assert first == f"\x01{ns}/web/app cat -n\n".encode()
    assert echoed == b"\x01typed input"
    assert json.loads(status[1:])["status"] == "Success"
    # streamParams: input/output flags and each command word
    assert seen[-1] == f"/exec/{ns}/web/app?command=cat&command=-n&input=1&output=1"


def test_python_client_exec_and_attach(env, ns, bound):
    kubernetes = pytest.importorskip("kubernetes")
    from kubernetes import client, config
    from kubernetes.stream import stream

    cfg = client.Configuration()
    config.load_kube_config(config_file=env["server"].kubeconfig, client_configuration=cfg)
    with client.ApiClient(cfg) as c:
        core = kubernetes.client.CoreV1Api(c)
        def run(fn, name, **kw):
            # _preload_content=False so the websocket can be closed here (the preloading path
            # leaves it open)
            ws = stream(fn, name, ns, stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False, **kw)
            try:
                ws.run_forever(timeout=10)
                return ws.read_stdout(timeout=1)
            finally:
                ws.close()
                ws.sock.shutdown()  # websocket-client keeps a socket the server closed first
        assert run(core.connect_get_namespaced_pod_exec, "single", command=["echo", "hi"]) == \
            f"{ns}/single/only echo hi\n"
        assert run(core.connect_get_namespaced_pod_attach, "web", container="sidecar") == f"{ns}/web/sidecar \n"


def test_upgrade_refused_by_the_kubelet_comes_back_as_is(env, ns, bound):
    # tryUpgrade: a backend answer other than 101 Switching Protocols is written back unchanged
    code, _, body = _upgrade(env["server"], f"/api/v1/namespaces/{ns}/pods/single/portforward?ports=8080")
    assert (code, body) == (404, b"404: Not Found")


@pytest.mark.skipif(KUBECTL is None, reason="kubectl not on PATH")
def test_kubectl_exec_through_the_relay(env, ns, bound):
    """kubectl's v5.channel.k8s.io websocket relayed to a kubelet stand-in that accepts it
    (kube-apiserver 1.36 would translate it to SPDY for a real kubelet)."""
    server = env["server"]
    p = subprocess.run([KUBECTL, "--kubeconfig", server.kubeconfig, "-n", ns, "exec", "single", "--", "echo", "hi"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout == f"{ns}/single/only echo hi\n"
    p = subprocess.run([KUBECTL, "--kubeconfig", server.kubeconfig, "-n", ns, "exec", "pending", "--", "true"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "pod pending does not have a host assigned" in p.stderr


def test_service_proxy_streams_large_bodies(env, ns):
    # the request body is streamed to the endpoint, not read whole (no 1 MiB cap as aiohttp's read)
    server, echo = env["server"], env["echo"]
    _pod(server, ns, "backend", ["app"], pod_ip="127.0.0.1")
    _service(server, ns, "big", [{"name": "http", "port": 80}])
    _endpoints(server, ns, "big", "backend", echo.port)
    payload = b"x" * (5 * 1024 * 1024)  # over the 3 MiB kube-apiserver allows API bodies
    code, _, body = _call(server, f"/api/v1/namespaces/{ns}/services/big:http/proxy/upload", "PUT", payload)
    assert code == 200
    got = json.loads(body)
    assert (got["method"], len(got["body"])) == ("PUT", len(payload))


def test_follower_going_away_drops_the_kubelet_stream(env, ns):
    import http.client
    import time
    from urllib.parse import urlsplit

    server, seen = env["server"], env["seen"]
    node = f"n-{ns}"
    _node(server, node, env["kubelet"].port, [{"type": "InternalIP", "address": "127.0.0.1"}])
    _pod(server, ns, "p", ["endless"], node=node)
    u = urlsplit(server.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request("GET", f"/api/v1/namespaces/{ns}/pods/p/log?follow=true")
    resp = conn.getresponse()
    assert resp.status == 200 and resp.read1(64).startswith(b"tick\n")
    conn.sock.close()
    conn.close()
    deadline = time.monotonic() + 10
    while "endless stream dropped" not in seen and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "endless stream dropped" in seen
