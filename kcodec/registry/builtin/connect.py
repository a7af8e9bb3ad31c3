"""The connect subresources of kube-apiserver: pods/log, exec, attach, portforward and proxy,
nodes/proxy, services/proxy.

These storages hold no objects: they look the parent up, check what Go checks before dialing
(containers, the node, the address), and answer with a :class:`Location`: where the request
goes (a kubelet's ``/containerLogs``, ``/exec``, ``/attach``, ``/portForward``, a pod's or an
endpoint's ``IP:port``) and how (TLS verification, content type, flushing). The server layer
does the network I/O (Go's LocationStreamer and UpgradeAwareHandler, in k8s.io/apiserver
pkg/registry/generic/rest and k8s.io/apimachinery pkg/util/proxy).

Go: k8s.io/kubernetes pkg/registry/core/pod/rest/log.go (LogREST), subresources.go (ProxyREST,
ExecREST, AttachREST, PortForwardREST), pkg/registry/core/pod/strategy.go (LogLocation,
streamLocation, PortForwardLocation, ResourceLocation, validateContainer),
pkg/registry/core/node/rest/proxy.go and node/strategy.go (ResourceLocation),
pkg/registry/core/service/proxy.go and service/storage/storage.go (ResourceLocation),
pkg/kubelet/client/kubelet_client.go (NodeConnectionInfoGetter).
"""
from __future__ import annotations

import ipaddress
import random
import re
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from kcodec.api import errors as apierrors
from kcodec.registry.request import Context
from kcodec.schema import GroupKind, GroupResource, GroupVersion

__all__ = [
    "Location", "ConnectionInfo", "NodeConnectionInfoGetter", "DEFAULT_PREFERRED_ADDRESS_TYPES",
    "LogREST", "ExecREST", "AttachREST", "PortForwardREST", "PodProxyREST", "NodeProxyREST",
    "ServiceProxyREST", "split_scheme_name_port", "decode_connect_options", "plain_error",
]

#: kube-apiserver's default --kubelet-preferred-address-types (pkg/kubeapiserver/options/kubelet.go)
DEFAULT_PREFERRED_ADDRESS_TYPES = ("Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP")
#: --kubelet-port's default, used when a node reports no daemonEndpoints.kubeletEndpoint.Port
DEFAULT_KUBELET_PORT = 10250

_V1 = GroupVersion("", "v1")


def plain_error(message: str, code: int = 500) -> apierrors.StatusError:
    """A Go error that is not an API error, as ErrorToAPIStatus answers it: code 500, the
    empty reason (StatusReasonUnknown), the error's text as message."""
    from kcodec.api.meta import v1 as metav1

    return apierrors.StatusError(metav1.Status(kind="Status", api_version="v1", status="Failure", code=code,
                                               reason="", message=message))


@dataclass
class Location:
    """Where a connect request goes (Go's ``*url.URL`` plus the transport choice).

    ``url`` has no query when ``query`` is set separately; ``insecure_skip_verify`` is the
    transport's TLS choice; ``content_type`` and ``flush`` are the LocationStreamer's;
    ``resource``/``name`` feed its GenericHttpResponseChecker.
    """

    scheme: str
    host: str
    path: str = ""
    query: str = ""
    insecure_skip_verify: bool = True
    content_type: str = ""
    flush: bool = False
    resource: GroupResource = field(default_factory=lambda: GroupResource("", ""))
    name: str = ""

    @property
    def url(self) -> str:
        """The URL as Go's ``url.URL.String()`` writes it (path escaped, query raw)."""
        out = f"{self.scheme or 'http'}://{self.host}{quote(self.path, safe='/:@!$&()*+,;=-._~')}"
        return f"{out}?{self.query}" if self.query else out


def join_host_port(host: str, port: str) -> str:
    """Go's net.JoinHostPort."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _encode(params: list[tuple[str, str]]) -> str:
    from kcodec.runtime.parameter_codec import urlencode

    grouped: dict[str, list[str]] = {}
    for k, v in params:
        grouped.setdefault(k, []).append(v)
    return urlencode(grouped)


@dataclass
class ConnectionInfo:
    """How to reach one node's kubelet (Go's client.ConnectionInfo)."""

    scheme: str
    hostname: str
    port: str
    #: kube-apiserver without --kubelet-certificate-authority verifies nothing: transportConfig
    #: sets TLS.Insecure when the config has no CA (kubelet_client.go); kcodec has no CA option
    insecure_skip_verify: bool = True


class NodeConnectionInfoGetter:
    """Go's NodeConnectionInfoGetter: the node's address by the preferred address types and
    the port its kubelet reports (else the default port), over HTTPS."""

    def __init__(self, nodes: Any, *, preferred_address_types: tuple[str, ...] = DEFAULT_PREFERRED_ADDRESS_TYPES,
                 default_port: int = DEFAULT_KUBELET_PORT, scheme: str = "https") -> None:
        self.nodes = nodes
        self.preferred_address_types = tuple(preferred_address_types)
        self.default_port = default_port
        self.scheme = scheme

    def __repr__(self) -> str:
        return f"NodeConnectionInfoGetter({list(self.preferred_address_types)}, port={self.default_port})"

    def get_connection_info(self, ctx: Context, node_name: str) -> ConnectionInfo:
        # the request's context goes along (storage_core.go's NodeGetterFunc), so a missing
        # node is reported under the request's resource, as Go's Store names it
        node = self.nodes.get(Context(namespace="", user=ctx.user, request_info=ctx.request_info), node_name, None)
        addresses = list(node.status.addresses or [])
        host = None
        # nodeutil.GetPreferredNodeAddress
        for address_type in self.preferred_address_types:
            for address in addresses:
                if address.type == address_type:
                    host = address.address
                    break
            if host is not None:
                break
        if host is None:
            known = " ".join(f"{{{a.type} {a.address}}}" for a in addresses)
            raise plain_error(f"no preferred addresses found; known addresses: [{known}]")
        port = int(node.status.daemon_endpoints.kubelet_endpoint.port or 0)
        if port <= 0:
            port = self.default_port
        return ConnectionInfo(self.scheme, host, str(port))


def decode_connect_options(query: dict[str, list[str]], into: Any) -> Any:
    """Query parameters into an internal options object as Go's ParameterCodec does with the
    generated url.Values conversions (first value; ``sinceTime`` as metav1.Time's
    UnmarshalQueryParameter; ``ports`` as Convert_Slice_string_To_Slice_int32). Errors are
    400s with the conversion's text, as getRequestOptions answers them."""
    from kcodec.api.core import v1
    from kcodec.errors import KCodecError
    from kcodec.runtime.parameter_codec import query_values_into_struct

    kind = type(into).__name__
    external = getattr(v1, kind)()
    try:
        query_values_into_struct(query, external)
        if kind == "PodLogOptions" and query.get("sinceTime"):
            from kcodec.api.meta._values import Time

            external.since_time = Time.from_query_value(query["sinceTime"][0])
        if kind == "PodPortForwardOptions" and query.get("ports"):
            # runtime.Convert_Slice_string_To_Slice_int32: strconv.ParseUint(v, 10, 16)
            ports = []
            for text in query["ports"]:
                for part in text.split(","):
                    if not part.isascii() or not part.isdigit():
                        raise ValueError(f'cannot convert to []int32: strconv.ParseUint: parsing "{part}": '
                                         "invalid syntax")
                    if int(part) > 0xFFFF:
                        raise ValueError(f'cannot convert to []int32: strconv.ParseUint: parsing "{part}": '
                                         "value out of range")
                    ports.append(int(part))
            external.ports = ports
    except (KCodecError, ValueError) as err:
        # kcodec's query decoder names the parameter; Go's strconv text does not
        raise apierrors.new_bad_request(re.sub(r" \(query parameter '[^']*'\)$", "", str(err))) from None
    from kcodec import legacyscheme

    # ParameterCodec.DecodeParameters: the external object is defaulted, then converted
    legacyscheme.scheme.default(external)
    legacyscheme.scheme.convert(external, into, None)
    return into


# ----------------------------------------------------------------------------- pods


def _get_pod(store: Any, ctx: Context, name: str) -> Any:
    return store.get(ctx, name, None)


def _visit_container_names(pod: Any) -> list[str]:
    """podutil.VisitContainers order: init containers, containers, ephemeral containers."""
    spec = pod.spec
    names = [c.name for c in spec.init_containers or []]
    names += [c.name for c in spec.containers or []]
    # an ephemeral container's name is in its EphemeralContainerCommon (Go visits it as a Container)
    names += [c.ephemeral_container_common.name for c in spec.ephemeral_containers or []]
    return names


def validate_container(container: str, pod: Any) -> str:
    """Go's validateContainer (pod/strategy.go): the one container, or the named one."""
    name = pod.metadata.name
    if not container:
        containers = pod.spec.containers or []
        if len(containers) == 1:
            return containers[0].name
        if not containers:
            raise apierrors.new_bad_request(f"a container name must be specified for pod {name}")
        names = " ".join(_visit_container_names(pod))
        raise apierrors.new_bad_request(f"a container name must be specified for pod {name}, choose one of: [{names}]")
    if container not in _visit_container_names(pod):
        raise apierrors.new_bad_request(f"container {container} is not valid for pod {name}")
    return container


def validate_pod_log_options(opts: Any) -> Any:
    """Go's ValidatePodLogOptions (pkg/apis/core/validation) with PodLogsQuerySplitStreams at
    its 1.36 default (off: ``stream`` may not be specified)."""
    from kcodec.api.core import _defaults
    from kcodec.validation import field as fieldpath

    errs = fieldpath.ErrorList()
    if opts.tail_lines is not None and opts.tail_lines < 0:
        errs.append(fieldpath.invalid(fieldpath.Path("tailLines"), opts.tail_lines, "must be greater than or equal to 0"))
    if opts.limit_bytes is not None and opts.limit_bytes < 1:
        errs.append(fieldpath.invalid(fieldpath.Path("limitBytes"), opts.limit_bytes, "must be greater than 0"))
    if opts.since_seconds is not None and opts.since_time is not None:
        errs.append(fieldpath.forbidden(fieldpath.Path(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"))
    elif opts.since_seconds is not None and opts.since_seconds < 1:
        errs.append(fieldpath.invalid(fieldpath.Path("sinceSeconds"), opts.since_seconds, "must be greater than 0"))
    if _defaults.POD_LOGS_QUERY_SPLIT_STREAMS:
        if opts.stream is None:
            errs.append(fieldpath.required(fieldpath.Path("stream"), "must be specified"))
        else:
            streams = ["All", "Stderr", "Stdout"]
            if opts.stream not in streams:
                errs.append(fieldpath.not_supported(fieldpath.Path("stream"), opts.stream, streams))
            if opts.stream != "All" and opts.tail_lines is not None:
                errs.append(fieldpath.forbidden(fieldpath.Path(""), "`tailLines` and specific `stream` are mutually exclusive for now"))
    elif opts.stream is not None:
        errs.append(fieldpath.forbidden(fieldpath.Path("stream"), "may not be specified"))
    return errs


class _PodConnectBase:
    """What the pod connect storages share: the pod store and the kubelet connection."""

    options_kind = ""

    def __init__(self, store: Any, kubelet_conn: NodeConnectionInfoGetter) -> None:
        self.store = store
        self.kubelet_conn = kubelet_conn

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.store.default_qualified_resource})"

    def namespace_scoped(self) -> bool:
        return True

    def new(self) -> Any:
        from kcodec.api.core import internal

        return getattr(internal, self.options_kind)()

    def new_connect_options(self) -> tuple[Any, bool, str]:
        """Go's NewConnectOptions: (options object, whether the URL carries a subpath, its key)."""
        return self.new(), False, ""


class LogREST(_PodConnectBase):
    """``pods/log`` (Go's LogREST, a GetterWithOptions): ``get`` answers a Location to stream
    from, or None for a pod no node runs (Go returns an empty location: a 204)."""

    options_kind = "PodLogOptions"

    def new(self) -> Any:
        from kcodec.api.core import internal

        return internal.Pod()

    def verbs(self) -> list[str]:
        return ["get"]

    def new_get_options(self) -> tuple[Any, bool, str]:
        from kcodec.api.core import internal

        return internal.PodLogOptions(), False, ""

    def get(self, ctx: Context, name: str, opts: Any) -> Location | None:
        errs = validate_pod_log_options(opts)
        if errs:
            raise apierrors.new_invalid(GroupKind("", "PodLogOptions"), name, errs)
        pod = _get_pod(self.store, ctx, name)
        container = validate_container(opts.container, pod)
        node_name = pod.spec.node_name
        if not node_name:
            return None
        info = self.kubelet_conn.get_connection_info(ctx, node_name)
        params: list[tuple[str, str]] = []
        if opts.follow:
            params.append(("follow", "true"))
        if opts.previous:
            params.append(("previous", "true"))
        if opts.timestamps:
            params.append(("timestamps", "true"))
        if opts.since_seconds is not None:
            params.append(("sinceSeconds", str(opts.since_seconds)))
        if opts.since_time is not None:
            params.append(("sinceTime", opts.since_time.rfc3339()))
        if opts.tail_lines is not None:
            params.append(("tailLines", str(opts.tail_lines)))
        if opts.limit_bytes is not None:
            params.append(("limitBytes", str(opts.limit_bytes)))
        from kcodec.api.core import _defaults

        if _defaults.POD_LOGS_QUERY_SPLIT_STREAMS and opts.stream is not None:
            params.append(("stream", opts.stream))
        ns = pod.metadata.namespace
        # insecureSkipTLSVerifyBackend picks the InsecureSkipTLSVerifyTransport; without a
        # kubelet CA both transports skip verification
        return Location(info.scheme, join_host_port(info.hostname, info.port),
                        f"/containerLogs/{ns}/{pod.metadata.name}/{container}", _encode(params),
                        insecure_skip_verify=True, content_type="text/plain", flush=bool(opts.follow),
                        resource=GroupResource("", "pods/log"), name=name)


def _stream_params(opts: Any) -> list[tuple[str, str]]:
    """Go's streamParams."""
    params: list[tuple[str, str]] = []
    kind = type(opts).__name__
    if kind in ("PodExecOptions", "PodAttachOptions"):
        for flag, key in ((opts.stdin, "input"), (opts.stdout, "output"), (opts.stderr, "error"), (opts.tty, "tty")):
            if flag:
                params.append((key, "1"))
        if kind == "PodExecOptions":
            params += [("command", c) for c in opts.command or []]
    elif kind == "PodPortForwardOptions" and opts.ports:
        params.append(("port", ",".join(str(p) for p in opts.ports)))
    return params


class _StreamREST(_PodConnectBase):
    """exec and attach (Go's streamLocation): a container of a pod a node runs."""

    path = ""

    def verbs(self) -> list[str]:
        # installer.go: a Connecter's ConnectMethods GET and POST are discovery's get and create
        return ["create", "get"]

    def connect_methods(self) -> list[str]:
        return ["GET", "POST"]

    def connect(self, ctx: Context, name: str, opts: Any) -> Location:
        pod = _get_pod(self.store, ctx, name)
        container = validate_container(opts.container, pod) if self.path else ""
        node_name = pod.spec.node_name
        if not node_name:
            raise apierrors.new_bad_request(f"pod {name} does not have a host assigned")
        info = self.kubelet_conn.get_connection_info(ctx, node_name)
        ns = pod.metadata.namespace
        path = f"/{self.path}/{ns}/{pod.metadata.name}/{container}" if self.path else \
            f"/portForward/{ns}/{pod.metadata.name}"
        return Location(info.scheme, join_host_port(info.hostname, info.port), path, _encode(_stream_params(opts)),
                        insecure_skip_verify=info.insecure_skip_verify, resource=GroupResource("", "pods"), name=name)


class ExecREST(_StreamREST):
    """``pods/exec``: the kubelet's ``/exec/{ns}/{pod}/{container}?command=...``."""

    options_kind = "PodExecOptions"
    path = "exec"


class AttachREST(_StreamREST):
    """``pods/attach``: the kubelet's ``/attach/{ns}/{pod}/{container}``."""

    options_kind = "PodAttachOptions"
    path = "attach"


class PortForwardREST(_StreamREST):
    """``pods/portforward``: the kubelet's ``/portForward/{ns}/{pod}`` (no container)."""

    options_kind = "PodPortForwardOptions"
    path = ""


def split_scheme_name_port(id_: str) -> tuple[str, str, str, bool]:
    """Go's utilnet.SplitSchemeNamePort: ``name``, ``name:port`` or ``scheme:name:port``."""
    parts = id_.split(":")
    if len(parts) == 1:
        scheme, name, port = "", parts[0], ""
    elif len(parts) == 2:
        scheme, name, port = "", parts[0], parts[1]
    elif len(parts) == 3:
        scheme, name, port = parts
    else:
        return "", "", "", False
    if name and scheme in ("http", "https", ""):
        return scheme, name, port, True
    return "", "", "", False


def _is_global_unicast(text: str) -> bool:
    """Go's net.IP.IsGlobalUnicast of a parsed address (False when it does not parse)."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return False
    if ip.version == 4:
        return not (ip.is_loopback or ip.is_multicast or ip.is_link_local or ip == ipaddress.IPv4Address("255.255.255.255")
                    or ip.is_unspecified)
    return not (ip.is_loopback or ip.is_multicast or ip.is_link_local or ip.is_unspecified)


def join_preserve_trailing_slash(elem: str, more: str) -> str:
    """Go's net.JoinPreserveTrailingSlash (path.Join keeping a trailing slash of the last part)."""
    import posixpath

    parts = [p for p in (elem, more) if p]
    if not parts:
        return ""
    joined = posixpath.normpath("/".join(parts))
    if joined.startswith("//"):
        joined = "/" + joined.lstrip("/")
    if parts[-1].endswith("/") and not joined.endswith("/"):
        joined += "/"
    return joined


class _ProxyBase:
    """The proxy subresources: every HTTP method, the subpath from the URL (Go's
    NewConnectOptions returns ``true, "path"``). Pods, endpoints and other node ports are
    reached without verifying TLS: kube-apiserver's proxy transport (CreateProxyTransport)
    sets InsecureSkipVerify, since these are dialed by IP."""

    options_kind = ""

    def verbs(self) -> list[str]:
        return ["create", "delete", "get", "patch", "update"]

    def connect_methods(self) -> list[str]:
        return ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]

    def new(self) -> Any:
        from kcodec.api.core import internal

        return getattr(internal, self.options_kind)()

    def new_connect_options(self) -> tuple[Any, bool, str]:
        return self.new(), True, "path"

    def connect(self, ctx: Context, id_: str, opts: Any) -> Location:
        loc = self.resource_location(ctx, id_)
        loc.path = join_preserve_trailing_slash(loc.path, opts.path)
        return loc


class PodProxyREST(_ProxyBase):
    """``pods/proxy``: the pod's IP and the given (or first declared) port (pod ResourceLocation)."""

    options_kind = "PodProxyOptions"

    def __init__(self, store: Any) -> None:
        self.store = store

    def __repr__(self) -> str:
        return "PodProxyREST()"

    def namespace_scoped(self) -> bool:
        return True

    def resource_location(self, ctx: Context, id_: str) -> Location:
        scheme, name, port, valid = split_scheme_name_port(id_)
        if not valid:
            raise apierrors.new_bad_request(f"invalid pod request {_go_quote(id_)}")
        pod = _get_pod(self.store, ctx, name)
        if not port:
            for c in pod.spec.containers or []:
                if c.ports:
                    port = str(c.ports[0].container_port)
                    break
        pod_ips = pod.status.pod_ips or []
        pod_ip = pod_ips[0].ip if pod_ips else ""
        if not _is_global_unicast(pod_ip):
            raise apierrors.new_bad_request("address not allowed")
        host = (f"[{pod_ip}]" if ":" in pod_ip else pod_ip) if not port else join_host_port(pod_ip, port)
        return Location(scheme, host, insecure_skip_verify=True)


class NodeProxyREST(_ProxyBase):
    """``nodes/proxy``: the node's kubelet, or another port of the node (node ResourceLocation)."""

    options_kind = "NodeProxyOptions"

    def __init__(self, kubelet_conn: NodeConnectionInfoGetter) -> None:
        self.kubelet_conn = kubelet_conn

    def __repr__(self) -> str:
        return "NodeProxyREST()"

    def namespace_scoped(self) -> bool:
        return False

    def resource_location(self, ctx: Context, id_: str) -> Location:
        scheme, name, port, valid = split_scheme_name_port(id_)
        if not valid:
            raise apierrors.new_bad_request(f"invalid node request {_go_quote(id_)}")
        info = self.kubelet_conn.get_connection_info(ctx, name)
        _check_proxyable_hostname(info.hostname)
        if not port or port == info.port:
            return Location(info.scheme, join_host_port(info.hostname, info.port),
                            insecure_skip_verify=info.insecure_skip_verify)
        return Location(scheme, join_host_port(info.hostname, port), insecure_skip_verify=True)


def _check_proxyable_hostname(hostname: str) -> None:
    """Go's isProxyableHostname: every address the name resolves to is global unicast."""
    try:
        infos = socket.getaddrinfo(hostname, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as err:
        reason = "no such host" if isinstance(err, socket.gaierror) and err.errno in (
            socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)) else \
            (getattr(err, "strerror", None) or str(err))
        raise apierrors.new_bad_request(f"lookup {hostname}: {reason}") from None
    if not infos:
        raise apierrors.new_bad_request("no addresses for hostname")
    for info in infos:
        if not _is_global_unicast(str(info[4][0]).split("%")[0]):
            raise apierrors.new_bad_request("address not allowed")


class ServiceProxyREST(_ProxyBase):
    """``services/proxy``: an endpoint of the service for the named or numbered port
    (Go's service REST.ResourceLocation: a random subset and address, each address checked
    against its target pod's IPs)."""

    options_kind = "ServiceProxyOptions"

    def __init__(self, services: Any, endpoints: Any, pods: Any) -> None:
        self.services = services
        self.endpoints = endpoints
        self.pods = pods

    def __repr__(self) -> str:
        return "ServiceProxyREST()"

    def namespace_scoped(self) -> bool:
        return True

    def _valid_address(self, ctx: Context, addr: Any) -> bool:
        ref = addr.target_ref
        if ref is None or ref.namespace != ctx.namespace:
            return False
        try:
            pod = self.pods.get(ctx, ref.name, None)
        except apierrors.StatusError:
            return False
        return any(p.ip == addr.ip for p in pod.status.pod_ips or [])

    def resource_location(self, ctx: Context, id_: str) -> Location:
        scheme, name, port, valid = split_scheme_name_port(id_)
        if not valid:
            raise apierrors.new_bad_request(f"invalid service request {_go_quote(id_)}")
        if port.lstrip("+-").isdigit():
            number = int(port)
            svc = self.services.get(ctx, name, None)
            for sp in svc.spec.ports or []:
                if sp.port == number:
                    port = sp.name
                    break
            else:
                raise apierrors.new_service_unavailable(f"no service port {number} found for service {_go_quote(name)}")
        eps = self.endpoints.get(ctx, name, None)
        subsets = eps.subsets or []
        if not subsets:
            raise apierrors.new_service_unavailable(f"no endpoints available for service {_go_quote(name)}")
        seed = random.randrange(len(subsets))
        for i in range(len(subsets)):
            ss = subsets[(seed + i) % len(subsets)]
            addresses = ss.addresses or []
            if not addresses:
                continue
            for sp in ss.ports or []:
                if sp.name != port:
                    continue
                start = random.randrange(len(addresses))
                for t in range(len(addresses)):
                    addr = addresses[(start + t) % len(addresses)]
                    if self._valid_address(ctx, addr):
                        return Location(scheme, join_host_port(addr.ip, str(sp.port)), insecure_skip_verify=True)
        raise apierrors.new_service_unavailable(f"no endpoints available for service {_go_quote(id_)}")


def _go_quote(s: str) -> str:
    from kcodec.gofmt import quote as go_quote

    return go_quote(s)
