"""Serving the connect subresources: pods/log streamed from the kubelet, the proxies, and the
checks exec/attach/portforward make before they dial.

The registry's storages (kcodec.registry.builtin.connect) answer a Location or an API error;
this module does the network side as kube-apiserver does it:

- pods/log: Go's LocationStreamer (k8s.io/apiserver pkg/registry/generic/rest/streamer.go) and
  StreamObject (responsewriters/writers.go): an empty location is a 204; redirects are refused
  (PreventRedirects); a backend status outside 200..206 becomes an API error
  (GenericHttpResponseChecker, response_checker.go); otherwise the body is streamed back as
  text/plain, flushed as it comes when following.
- proxies: Go's UpgradeAwareHandler (k8s.io/apimachinery pkg/util/proxy/upgradeaware.go) for
  plain HTTP requests: the method, headers (less hop-by-hop headers and the client's
  Authorization, which kube-apiserver's authentication filter removes) and body are sent on,
  the backend's answer comes back streamed; a transport error is the Responder's 500.
- exec/attach/portforward: a request that is not an upgrade is answered 400 "Upgrade request
  required" (upgradeRequired); an upgrade whose kubelet cannot be dialed gets Go's
  "error dialing backend: ..." 500 (upgradeaware.go dial); otherwise the upgrade request goes
  to the kubelet and, once it switches protocols, the two connections are joined byte for
  byte (tryUpgrade). kube-apiserver 1.36 translates v5.channel.k8s.io websockets (kubectl's
  default) to SPDY for the kubelet (StreamTranslatorHandler); kcodec does not speak SPDY and
  relays them unchanged, so they work with a kubelet that accepts them directly.

TLS to the kubelet: kube-apiserver without --kubelet-certificate-authority does not verify the
kubelet's serving certificate (kubelet_client.go transportConfig sets TLS.Insecure when no CA is
configured); kcodec has no such option, so it never verifies it either.
"""
from __future__ import annotations

import asyncio
import errno
import socket
import ssl
from typing import Any

from aiohttp import ClientSession, ClientTimeout, client_exceptions, web
from yarl import URL

from kcodec.api import errors as apierrors
from kcodec.registry.builtin.connect import Location, decode_connect_options, plain_error
from kcodec.server.handlers import RequestScope, _context, run_handler
from kcodec.server.responses import Request, Response

__all__ = ["is_connect_storage", "serve_connect", "MAX_ERROR_BODY"]

#: response_checker.go maxReadLength: how much of a failed backend answer becomes the message
MAX_ERROR_BODY = 50000

# net/http/httputil reverseproxy.go hopHeaders
_HOP_HEADERS = frozenset(h.lower() for h in (
    "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te",
    "Trailer", "Transfer-Encoding", "Upgrade"))


def is_connect_storage(storage: Any) -> bool:
    """A connect subresource: a Connecter (``connect``) or a GetterWithOptions (pods/log)."""
    return callable(getattr(storage, "connect", None)) or callable(getattr(storage, "new_get_options", None))


def _ssl_context(insecure: bool) -> ssl.SSLContext | bool:
    if not insecure:
        return True
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def _dial_error(err: BaseException, host: str) -> str:
    """A connection failure as Go's net package prints it (``dial tcp HOST: connect: ...``)."""
    os_err = getattr(err, "os_error", None) or err
    code = getattr(os_err, "errno", None)
    if isinstance(err, asyncio.TimeoutError) or isinstance(os_err, (TimeoutError, asyncio.TimeoutError)):
        return f"dial tcp {host}: i/o timeout"
    if code == errno.ECONNREFUSED or isinstance(os_err, ConnectionRefusedError):
        return f"dial tcp {host}: connect: connection refused"
    if isinstance(os_err, socket.gaierror):
        return f"dial tcp: lookup {host.rpartition(':')[0].strip('[]')}: no such host"
    if code == errno.EHOSTUNREACH:
        return f"dial tcp {host}: connect: no route to host"
    if code == errno.ENETUNREACH:
        return f"dial tcp {host}: connect: network is unreachable"
    return f"dial tcp {host}: {getattr(os_err, 'strerror', None) or os_err}"


def _transport_error(err: BaseException, loc: Location) -> str:
    if isinstance(err, (client_exceptions.ClientConnectorError, asyncio.TimeoutError, OSError)) \
            and not isinstance(err, client_exceptions.ServerDisconnectedError):
        return _dial_error(err, loc.host)
    if isinstance(err, client_exceptions.ServerDisconnectedError):
        return "EOF"
    return str(err) or type(err).__name__


def _check_response(status: int, body: bytes, loc: Location) -> apierrors.StatusError | None:
    """GenericHttpResponseChecker.Check."""
    if 200 <= status <= 206:
        return None
    text = body.decode("utf-8", "replace")
    if status == 500:
        return apierrors.new_internal_error(text)
    if status == 400:
        return apierrors.new_bad_request(text)
    return apierrors.new_generic_server_response(status, "", loc.resource, loc.name, text, 0, False)


async def _stream_log(request: web.Request, req: Request, scope: RequestScope, loc: Location | None,
                      timeout: float) -> Response | web.StreamResponse:
    if loc is None:
        # StreamObject: no stream is a 204 No Content
        return Response(204, b"", "")
    url = loc.url
    session = ClientSession(timeout=ClientTimeout(total=None, sock_connect=timeout))
    try:
        try:
            # encoded=True: the query goes out as url.Values.Encode wrote it (yarl would unescape %3A)
            resp = await session.get(URL(url, encoded=True), ssl=_ssl_context(loc.insecure_skip_verify),
                                     allow_redirects=False)
        except (client_exceptions.ClientError, asyncio.TimeoutError, OSError) as err:
            # url.Error: `Get "URL": <transport error>`
            return scope.err(plain_error(f'Get "{url}": {_transport_error(err, loc)}'), req)
        if resp.status in (301, 302, 303, 307, 308) and resp.headers.get("Location"):
            # net/http follows these; PreventRedirects makes client.Do fail instead
            resp.release()
            return scope.err(plain_error(f'Get "{url}": redirects forbidden'), req)
        failure = None
        if not 200 <= resp.status <= 206:
            body = await resp.content.read(MAX_ERROR_BODY)
            resp.release()
            failure = _check_response(resp.status, body, loc)
        if failure is not None:
            return scope.err(failure, req)
        out = web.StreamResponse(status=200)
        out.content_type = loc.content_type or (resp.headers.get("Content-Type", "").split(";")[0].strip()
                                                or "application/octet-stream")
        await out.prepare(request)
        await _copy_body(resp, out)
        return out
    finally:
        await session.close()


async def _copy_body(resp: Any, out: web.StreamResponse) -> None:
    """Copy the backend's body to the client as it comes (io.Copy). The backend going away
    ends the stream; the client going away stops the copy and drops the backend."""
    try:
        async for chunk in resp.content.iter_any():
            try:
                await out.write(chunk)
            except ConnectionResetError:
                return
    except (client_exceptions.ClientError, asyncio.TimeoutError):
        pass
    finally:
        resp.release()
    try:
        await out.write_eof()
    except ConnectionResetError:
        pass


def _forward_headers(request: web.Request) -> dict[str, str]:
    headers = {}
    for k, v in request.headers.items():
        lk = k.lower()
        if lk in _HOP_HEADERS or lk in ("host", "authorization", "content-length"):
            continue
        headers[k] = v
    # httputil.ReverseProxy sets X-Forwarded-For to the client's address
    prior = request.headers.get("X-Forwarded-For")
    remote = request.remote or ""
    headers["X-Forwarded-For"] = f"{prior}, {remote}" if prior else remote
    return headers


async def _proxy(request: web.Request, req: Request, scope: RequestScope, loc: Location,
                 timeout: float) -> Response | web.StreamResponse:
    target = f"{loc.scheme or 'http'}://{loc.host}{loc.path}"
    if request.query_string:
        target += "?" + request.query_string
    # the body is streamed on, not read whole (ReverseProxy copies it)
    body = request.content if request.can_read_body else None
    session = ClientSession(timeout=ClientTimeout(total=None, sock_connect=timeout), auto_decompress=False)
    try:
        try:
            resp = await session.request(request.method, target, headers=_forward_headers(request), data=body,
                                         ssl=_ssl_context(loc.insecure_skip_verify), allow_redirects=False)
        except (client_exceptions.ClientError, asyncio.TimeoutError, OSError) as err:
            # the ReverseProxy's ErrorHandler is the Responder: the transport's error, a 500
            return scope.err(plain_error(_transport_error(err, loc)), req)
        out = web.StreamResponse(status=resp.status, reason=resp.reason)
        for k, v in resp.headers.items():
            if k.lower() not in _HOP_HEADERS and k.lower() != "content-length":
                out.headers.add(k, v)
        await out.prepare(request)
        await _copy_body(resp, out)
        return out
    finally:
        await session.close()


def _is_upgrade(request: web.Request) -> bool:
    """httpstream.IsUpgradeRequest: a Connection header naming upgrade."""
    return any("upgrade" in part.strip().lower() for part in request.headers.getall("Connection", []))


class _RelayParser:
    """What aiohttp's protocol feeds the bytes of an upgraded connection to (the role its
    WebSocketReader plays for WebSocketResponse): each chunk goes on to the backend."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        if not self.writer.is_closing():
            self.writer.write(data)
        return False, b""

    def feed_eof(self) -> None:
        # the client went away: the backend connection goes too, which ends the copy the
        # other way (tryUpgrade closes both when either side is done)
        if not self.writer.is_closing():
            self.writer.close()


def _upgrade_request_head(request: web.Request, loc: Location) -> bytes:
    """The request as UpgradeAwareHandler sends it on: the location's path and query, the
    client's headers (upgrade headers included) less its Authorization."""
    target = loc.path + (f"?{loc.query}" if loc.query else "")
    lines = [f"{request.method} {target} HTTP/1.1", f"Host: {loc.host}"]
    for k, v in request.headers.items():
        if k.lower() in ("host", "authorization", "content-length", "transfer-encoding"):
            continue
        lines.append(f"{k}: {v}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _relay_upgrade(request: web.Request, req: Request, scope: RequestScope, loc: Location,
                         timeout: float) -> Response | web.StreamResponse:
    """Go's UpgradeAwareHandler.tryUpgrade: dial the kubelet, send the upgrade request, and on
    101 Switching Protocols join the two connections byte for byte (websocket and SPDY alike;
    kube-apiserver's translation of v5.channel.k8s.io websockets to SPDY is not done here)."""
    host, _, port = loc.host.rpartition(":")
    host = host.strip("[]")
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(
            host, int(port), ssl=_ssl_context(loc.insecure_skip_verify) if loc.scheme == "https" else None,
            server_hostname=host if loc.scheme == "https" else None), timeout)
    except (OSError, asyncio.TimeoutError, ssl.SSLError) as err:
        return scope.err(plain_error(f"error dialing backend: {_dial_error(err, loc.host)}"), req)
    try:
        writer.write(_upgrade_request_head(request, loc))
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as err:
        writer.close()
        return scope.err(plain_error(f"error proxying data from backend: {err or type(err).__name__}"), req)
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    code = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 502
    headers = [tuple(h.split(":", 1)) for h in header_lines if ":" in h]
    if code != 101:
        # not switching protocols: the backend's answer goes back as it is
        length = next((int(v.strip()) for k, v in headers if k.strip().lower() == "content-length"
                       and v.strip().isdigit()), None)
        try:
            body = await asyncio.wait_for(reader.readexactly(length) if length is not None else reader.read(),
                                          timeout)
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
            body = b""
        writer.close()
        out = web.Response(status=code, body=body)
        for k, v in headers:
            if k.strip().lower() not in _HOP_HEADERS and k.strip().lower() != "content-length":
                out.headers.add(k.strip(), v.strip())
        return out
    resp = web.StreamResponse(status=101)
    for k, v in headers:
        resp.headers.add(k.strip(), v.strip())
    await resp.prepare(request)
    transport = request.transport
    protocol = request.protocol
    protocol.keep_alive(False)
    protocol.set_parser(_RelayParser(writer))
    try:
        while transport is not None and not transport.is_closing():
            chunk = await reader.read(65536)
            if not chunk:
                break
            transport.write(chunk)
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()
        if transport is not None:
            transport.close()
    return resp


async def serve_connect(request: web.Request, req: Request, info: Any, scope: RequestScope, executor: Any, *,
                        dial_timeout: float = 30.0) -> Response | web.StreamResponse:
    """Answer one request to a connect subresource (Go's ConnectResource and, for pods/log,
    getResourceHandler with options)."""
    storage = scope.storage
    loop = asyncio.get_running_loop()
    ns = info.namespace if scope.namespaced else ""

    if callable(getattr(storage, "new_get_options", None)):
        def locate_log() -> Any:
            ctx = _context(scope, req, info, ns)
            opts, _, _ = storage.new_get_options()
            return storage.get(ctx, info.name, decode_connect_options(req.query, opts))
        result = await loop.run_in_executor(executor, run_handler, scope, req, locate_log)
        if isinstance(result, Response):
            return result
        return await _stream_log(request, req, scope, result, dial_timeout)

    def locate() -> Any:
        ctx = _context(scope, req, info, ns)
        opts, has_path, key = storage.new_connect_options()
        query = dict(req.query)
        if has_path:
            # getRequestOptions: the URL's rest after the subresource is the subpath, with a
            # leading slash, and a trailing one when the request had it
            p = "/".join(info.parts[3:])
            if p and not p.startswith("/"):
                p = "/" + p
            if request.path.endswith("/") and not p.endswith("/"):
                p += "/"
            query[key] = [p]
        return storage.connect(ctx, info.name, decode_connect_options(query, opts))
    if scope.subresource in ("exec", "attach", "portforward") and not _is_upgrade(request):
        # upgradeRequired: the handler answers before the location matters, but Connect
        # (which finds the pod and its container) runs first in ConnectResource
        result = await loop.run_in_executor(executor, run_handler, scope, req, locate)
        if isinstance(result, Response):
            return result
        return scope.err(apierrors.new_bad_request("Upgrade request required"), req)
    result = await loop.run_in_executor(executor, run_handler, scope, req, locate)
    if isinstance(result, Response):
        return result
    if scope.subresource in ("exec", "attach", "portforward"):
        return await _relay_upgrade(request, req, scope, result, dial_timeout)
    if _is_upgrade(request):
        # a proxied upgrade (a websocket to a service...) goes through tryUpgrade too
        result.query = request.query_string
        return await _relay_upgrade(request, req, scope, result, dial_timeout)
    if not result.path:
        # UpgradeAwareHandler: an empty location path is redirected to the request's path
        # with a trailing slash (https://issue.k8s.io/4958)
        query = f"?{request.query_string}" if request.query_string else ""
        return Response(301, b"", "", headers={"Location": request.path + "/" + query})
    return await _proxy(request, req, scope, result, dial_timeout)
