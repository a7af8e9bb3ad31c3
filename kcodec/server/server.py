"""The API server: the HTTP application, its paths, start-up and shutdown.

Go: k8s.io/apiserver pkg/server (genericapiserver.go, healthz, routes/version.go) and
pkg/endpoints/request/requestinfo.go (how a path names a group, version, namespace,
resource, name and subresource). aiohttp is the HTTP server: it is the established asyncio
HTTP/1.1 server library (kopf and most asyncio Kubernetes tooling already depend on it); it
streams chunked responses for watches, keeps connections alive, and serves TLS, so kcodec
writes no HTTP parsing of its own.

Handlers run in a thread pool: registry and storage calls block (SQLite, etcd over gRPC) and a
slow one must not stall the other requests or the watch streams the event loop serves.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import hmac
import json
import logging
from typing import Any, Callable

from aiohttp import web

from kcodec.registry.request import RequestInfo
from kcodec.schema import GroupVersion
from kcodec.server.connect import is_connect_storage, serve_connect
from kcodec.server.discovery import Discovery
from kcodec.server.handlers import (
    MAX_REQUEST_BODY_BYTES,
    RequestScope,
    WatchPlan,
    create_resource,
    delete_collection,
    delete_resource,
    get_resource,
    list_resource,
    update_resource,
)
from kcodec.server.patching import patch_resource
from kcodec.server.installer import APIInstaller, GroupVersionRoutes
from kcodec.server.responses import Request, Response, error_negotiated, warning_header

__all__ = ["GenericAPIServer", "RequestInfo", "parse_request_info", "version_info", "KUBERNETES_VERSION"]

_log = logging.getLogger("kcodec.server")

#: The kube-apiserver release whose API kcodec serves.
KUBERNETES_VERSION = (1, 36, 2)

_GZIP_THRESHOLD = 128 * 1024

_NOT_FOUND = Response(404, b"404 page not found\n", "text/plain; charset=utf-8")


def version_info() -> dict[str, str]:
    """The /version document (apimachinery pkg/version Info)."""
    import platform

    major, minor, patch = KUBERNETES_VERSION
    return {
        "major": str(major), "minor": str(minor),
        "emulationMajor": str(major), "emulationMinor": str(minor),
        "minCompatibilityMajor": str(major), "minCompatibilityMinor": str(minor - 1),
        "gitVersion": f"v{major}.{minor}.{patch}+kcodec",
        "gitCommit": "", "gitTreeState": "", "buildDate": "",
        "goVersion": f"python{platform.python_version()}", "compiler": "kcodec",
        "platform": f"{platform.system().lower()}/{'amd64' if platform.machine() in ('x86_64', 'AMD64') else platform.machine()}",
    }


_NAMESPACE_SUBRESOURCES = frozenset(("status", "finalize"))


def parse_request_info(method: str, path: str, query: dict[str, list[str]]) -> RequestInfo:
    """Go's RequestInfoFactory.NewRequestInfo for the /api and /apis prefixes."""
    info = RequestInfo(is_resource_request=False, path=path, verb=method.lower())
    parts = [p for p in path.strip("/").split("/")]
    if not parts or parts[0] not in ("api", "apis"):
        return info
    info.api_prefix = parts[0]
    parts = parts[1:]
    if info.api_prefix == "apis":
        if not parts or not parts[0]:
            return info
        info.api_group = parts[0]
        parts = parts[1:]
    if len(parts) < 1 or not parts[0]:
        return info
    info.api_version = parts[0]
    parts = parts[1:]
    if not parts or not parts[0]:
        return info
    info.is_resource_request = True
    verbs = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}
    info.verb = verbs.get(method, "")
    if parts[0] == "watch":
        # the deprecated /watch/ prefix
        if info.verb == "get":
            info.verb = "watch"
        parts = parts[1:]
    if parts and parts[0] == "namespaces":
        if len(parts) > 1:
            info.namespace = parts[1]
            if len(parts) > 2 and parts[2] not in _NAMESPACE_SUBRESOURCES:
                parts = parts[2:]
    info.parts = parts
    if len(parts) >= 3:
        info.subresource = parts[2]
    if len(parts) >= 2:
        info.name = parts[1]
    if len(parts) >= 1:
        info.resource = parts[0]
    if not info.name and info.verb == "get":
        vals = query.get("watch")
        info.verb = "watch" if vals and vals[0].lower() in ("1", "t", "true") else "list"
    if not info.name and info.verb == "delete":
        info.verb = "deletecollection"
    return info


def _unauthorized(codecs: Any, req: Request) -> Response:
    from kcodec.api import errors as apierrors

    return error_negotiated(apierrors.new_unauthorized("Unauthorized"), codecs, GroupVersion("", "v1"), req)


def _admin_user() -> Any:
    from kcodec.registry.request import UserInfo

    return UserInfo(name="kcodec-admin", groups=["system:masters", "system:authenticated"])


class _BodyTooLarge(Exception):
    pass


async def _read_body(request: web.Request, limit: int) -> bytes:
    chunks = []
    size = 0
    while True:
        chunk = await request.content.read(64 * 1024)
        if not chunk:
            break
        size += len(chunk)
        if size > limit:
            raise _BodyTooLarge()
        chunks.append(chunk)
    return b"".join(chunks)


class GenericAPIServer:
    """The HTTP application over installed API groups (Go's GenericAPIServer).

    ``group_infos`` are the registry's APIGroupInfos; ``token`` (when set) is the one bearer
    token accepted (anyone else gets 401, except on the health and version paths, which
    kube-apiserver's RBAC lets everyone read); ``cbor`` serves ``application/cbor`` too (Go's
    CBORServingAndStorage feature gate, off by default as in 1.36); ``openapi`` serves
    /openapi/v2 and /openapi/v3 (``openapi(request)`` returns a Response-shaped answer or None; by default
    :class:`kcodec.server.openapi.OpenAPIService` over the installed resources); ``ready`` says
    whether /readyz is ok.
    """

    def __init__(self, group_infos: list[Any], *, codecs: Any = None, scheme: Any = None,
                 token: str = "", openapi: Callable[[Request], Any] | None = None,
                 max_workers: int = 16, address: str = "", cbor: bool = False) -> None:
        external = None
        if codecs is None:
            from kcodec.legacyscheme import codecs as legacy_codecs, scheme as legacy_scheme

            codecs, scheme = legacy_codecs, legacy_scheme
            if cbor:
                # Go's CBORServingAndStorage feature gate: application/cbor beside JSON, YAML
                # and protobuf, watches as application/cbor-seq
                from kcodec.api import scheme as api_scheme
                from kcodec.serializer.factory import CodecFactory

                codecs = CodecFactory(legacy_scheme, cbor=True)
                external = CodecFactory(api_scheme, cbor=True)
        self.codecs = codecs
        self.scheme = scheme if scheme is not None else codecs.scheme
        self.token = token
        self.openapi = openapi
        self.ready = False
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=max_workers,
                                                               thread_name_prefix="kcodec-api")
        infos = codecs.supported_media_types()
        self.infos = infos
        self.meta_infos = [i for i in infos if i.media_type != "application/cbor"] or infos
        installer = APIInstaller(self.scheme, codecs, infos, self.meta_infos, external_codecs=external)
        self.routes: dict[GroupVersion, GroupVersionRoutes] = installer.install(group_infos)
        #: stores no route serves (backing a subresource of a group set without their group)
        self.owned_stores: list[Any] = [s for gi in group_infos for s in getattr(gi, "owned_stores", ())]
        order: list[str] = []
        versions: dict[str, list[str]] = {}
        for gi in group_infos:
            g = gi.prioritized_versions[0].group if gi.prioritized_versions else getattr(gi, "group", "")
            if isinstance(g, str) and g not in versions:
                order.append(g)
                versions[g] = [v.version for v in gi.prioritized_versions if
                               GroupVersion(v.group, v.version) in self.routes]
        self.discovery = Discovery(self.routes, order, versions, self._discovery_codecs(), address)
        if self.openapi is None:
            from kcodec.server.openapi import OpenAPIService, resources_from_routes

            # built on the first /openapi request (kubectl apply, explain), not at start-up
            self.openapi = OpenAPIService(resources_from_routes(self.routes)).serve

    def __repr__(self) -> str:
        return f"GenericAPIServer({len(self.routes)} group versions, ready={self.ready})"

    @staticmethod
    def _discovery_codecs() -> Any:
        from kcodec.api import codecs

        return codecs

    # ------------------------------------------------------------------ the application

    def make_app(self) -> web.Application:
        """The aiohttp application: every path goes through :meth:`handle`."""
        # Bodies are read by hand, up to Go's limit; aiohttp's own cap would answer 413 in its words.
        # Go's http.Server reads up to DefaultMaxHeaderBytes (1 MiB) of request line and headers:
        # a long selector or token reaches the handlers and gets its Status there
        app = web.Application(client_max_size=MAX_REQUEST_BODY_BYTES * 4,
                              handler_args={"max_line_size": 1 << 20, "max_field_size": 1 << 20})
        app.router.add_route("*", "/{tail:.*}", self.handle)
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def _on_shutdown(self, app: web.Application) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _scope(self, info: RequestInfo) -> RequestScope | None:
        routes = self.routes.get(GroupVersion(info.api_group, info.api_version))
        if routes is None:
            return None
        subs = routes.scopes.get(info.resource)
        if subs is None:
            return None
        return subs.get(info.subresource)

    @staticmethod
    def authenticate_token(configured: str, token: str) -> Any:
        """The user a bearer token names (a TokenReview's answer): the configured token is the
        cluster administrator, as a static token of ``system:masters``; anything else, nobody."""
        if configured and hmac.compare_digest(token.encode(), configured.encode()):
            return _admin_user()
        return None

    def user_for(self, auth: bool | None) -> Any:
        """The request's user: the administrator when the token matched or none is required,
        ``system:anonymous`` otherwise (kube-apiserver's anonymous authenticator)."""
        from kcodec.registry.request import UserInfo

        if auth:
            return _admin_user()
        return UserInfo(name="system:anonymous", groups=["system:unauthenticated"])

    def _authorized(self, request: web.Request) -> bool | None:
        """True: the token matches or none is configured; False: a bad token; None: anonymous."""
        if not self.token:
            return True
        auth = request.headers.get("Authorization", "")
        scheme, _, value = auth.partition(" ")
        if not auth:
            return None
        if scheme.lower() != "bearer" or not value.strip():
            return False
        return hmac.compare_digest(value.strip().encode(), self.token.encode())

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Route one request (the handler chain: authentication, then the mux)."""
        path = request.path
        query: dict[str, list[str]] = {}
        for k, v in request.query.items():
            query.setdefault(k, []).append(v)
        req = Request(request.method, path, query, request.headers, b"", None, request.remote or "",
                      request.host)
        auth = self._authorized(request)
        req.user = self.user_for(auth)
        public = path in ("/healthz", "/livez", "/readyz", "/version") or path.startswith(
            ("/healthz/", "/livez/", "/readyz/"))
        if auth is False or (auth is None and not public):
            return self._send(_unauthorized(self.codecs, req))
        try:
            resp = await self._dispatch(request, req, path, query)
        except _BodyTooLarge:
            from kcodec.api import errors as apierrors

            resp = error_negotiated(apierrors.new_request_entity_too_large_error(f"limit is {MAX_REQUEST_BODY_BYTES}"),
                                    self.codecs, GroupVersion("", "v1"), req)
        except (asyncio.CancelledError, ConnectionResetError):
            raise
        except Exception as err:  # noqa: BLE001 - a bug: logged, answered with a 500 Status
            resp = error_negotiated(err, self.codecs, GroupVersion("", "v1"), req)
        if isinstance(resp, web.StreamResponse):
            return resp
        return self._send(resp, request.headers.get("Accept-Encoding", ""))

    @staticmethod
    def _send(resp: Response, accept_encoding: str = "") -> web.Response:
        out = web.Response(status=resp.status, body=resp.body)
        # responsewriters.deferredResponseWriter: bodies over 128 KiB are gzipped for clients
        # that accept it (APIResponseCompression)
        if len(resp.body) > _GZIP_THRESHOLD and "gzip" in accept_encoding.lower():
            out.enable_compression(web.ContentCoding.gzip)
        if resp.content_type:
            out.headers["Content-Type"] = resp.content_type
        for k, v in resp.headers.items():
            out.headers[k] = v
        for w in resp.warnings:
            out.headers.add("Warning", warning_header(w))
        return out

    async def _in_thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def _dispatch(self, request: web.Request, req: Request, path: str,
                        query: dict[str, list[str]]) -> Response | web.StreamResponse:
        method = request.method
        if path in ("/healthz", "/livez", "/readyz") or path.startswith(("/healthz/", "/livez/", "/readyz/")):
            ok = self.ready or not path.startswith("/readyz")
            if ok:
                return Response(200, b"ok", "text/plain; charset=utf-8")
            return Response(500, b"[-]kcodec-ready failed: not ready yet\nreadyz check failed\n",
                            "text/plain; charset=utf-8")
        if path in ("/version", "/version/"):
            return Response(200, json.dumps(version_info(), indent=2).encode(), "application/json")
        if path.startswith("/openapi/") and self.openapi is not None:
            resp = await self._in_thread(self.openapi, req)
            return resp if resp is not None else _NOT_FOUND
        if path in ("/api", "/api/"):
            return self.discovery.api_versions(req)
        if path in ("/apis", "/apis/"):
            return self.discovery.api_groups(req)
        # go-restful and kube-apiserver's mux take a resource path with a trailing slash too
        info = parse_request_info(method, path.rstrip("/") or "/", query)
        if not info.api_prefix:
            return _NOT_FOUND
        if not info.is_resource_request:
            if info.api_version:
                found = self.discovery.api_resource_list(req, GroupVersion(info.api_group, info.api_version))
            elif info.api_group:
                found = self.discovery.api_group(req, info.api_group)
            else:
                found = None
            return found if found is not None else self._route_miss(req, info)
        scope = self._scope(info)
        if scope is not None and info.subresource and is_connect_storage(scope.storage):
            return await self._connect(request, req, info, scope)
        if scope is None or len(info.parts) > 3:
            return self._route_miss(req, info)
        return await self._resource(request, req, info, scope)

    async def _connect(self, request: web.Request, req: Request, info: RequestInfo,
                       scope: RequestScope) -> Response | web.StreamResponse:
        """A connect subresource (pods/log, exec, attach, portforward, the proxies): go-restful
        routes them per HTTP method (ConnectMethods; GET for pods/log), the rest of the path
        only for those that take a subpath."""
        storage = scope.storage
        methods = storage.connect_methods() if callable(getattr(storage, "connect_methods", None)) else ["GET"]
        takes_path = callable(getattr(storage, "new_connect_options", None)) and storage.new_connect_options()[1]
        if (scope.namespaced and not info.namespace) or (not scope.namespaced and info.namespace) \
                or (len(info.parts) > 3 and not takes_path) or info.verb == "watch":
            return self._route_miss(req, info)
        if request.method not in methods:
            return self._service_error(req, 405)
        return await serve_connect(request, req, info, scope, self._executor)

    def _route_miss(self, req: Request, info: RequestInfo) -> Response:
        """A path no route serves. Inside a served group (a go-restful WebService: /api/v1,
        /apis/G, /apis/G/V) it is the Status serviceErrorHandler writes; elsewhere Go's
        NotFoundHandler's plain ``404 page not found``."""
        served = (not info.api_group and info.api_version in ("", "v1")) or info.api_group in self.discovery.versions
        if not served:
            return _NOT_FOUND
        return self._service_error(req, 404)

    def _service_error(self, req: Request, code: int) -> Response:
        """go-restful's 404 (no route) or 405 (a method the routes lack) as apiserver's
        serviceErrorHandler answers them: NewGenericServerResponse's Status."""
        from kcodec.api import errors as apierrors
        from kcodec.schema import GroupResource

        err = apierrors.new_generic_server_response(code, "", GroupResource("", ""), "", "", 0, False)
        return error_negotiated(err, self.codecs, GroupVersion("", ""), req, infos=self.infos)

    async def _resource(self, request: web.Request, req: Request, info: RequestInfo,
                        scope: RequestScope) -> Response | web.StreamResponse:
        if scope.namespaced and not info.namespace and info.verb not in ("list", "watch"):
            return self._route_miss(req, info)
        if not scope.namespaced and info.namespace and not (scope.resource.resource == "namespaces"
                                                            and scope.resource.group == ""):
            return self._route_miss(req, info)
        verbs = {"get": "get", "list": "list", "watch": "watch", "create": "create", "update": "update",
                 "patch": "patch", "delete": "delete", "deletecollection": "deletecollection"}
        verb = verbs.get(info.verb)
        if verb is None or not self._serves(scope, info, verb):
            return self._service_error(req, 405)
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            req.body = await _read_body(request, scope.max_request_body_bytes)
        elif request.can_read_body:
            await _read_body(request, scope.max_request_body_bytes)
        if verb == "get":
            return await self._in_thread(get_resource, scope, req, info)
        if verb in ("list", "watch"):
            if verb == "watch":
                req.query["watch"] = ["true"]
            result = await self._in_thread(list_resource, scope, req, info)
            if isinstance(result, WatchPlan):
                from kcodec.server.watch import serve_watch

                return await serve_watch(request, result, self._executor)
            return result
        if verb == "create":
            return await self._in_thread(lambda: create_resource(scope, req, info, include_name=bool(info.subresource)))
        if verb == "update":
            return await self._in_thread(update_resource, scope, req, info)
        if verb == "patch":
            return await self._in_thread(patch_resource, scope, req, info)
        if verb == "delete":
            return await self._in_thread(delete_resource, scope, req, info)
        return await self._in_thread(delete_collection, scope, req, info)

    @staticmethod
    def _serves(scope: RequestScope, info: RequestInfo, verb: str) -> bool:
        """Whether the route serves ``verb`` for this path shape (go-restful's routes)."""
        if info.subresource and verb in ("list", "watch", "deletecollection"):
            return False
        if verb in ("get", "update", "patch", "delete") and not info.name:
            return False
        if verb == "create" and info.name and not info.subresource:
            return False
        return verb in scope.verbs
