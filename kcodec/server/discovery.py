"""Discovery: /api, /api/v1, /apis, /apis/G, /apis/G/V and aggregated discovery.

Go: k8s.io/apiserver pkg/endpoints/discovery (legacy.go, root.go, group.go, version.go) and
discovery/aggregated (handler.go, negotiation.go, wrapper.go). A request whose ``Accept`` asks
for ``application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`` (kubectl asks it
first) gets one document with every group, version and resource; others get the legacy
documents. The legacy root /api and /api/v1 documents carry no apiVersion (Go strips it there).
"""
from __future__ import annotations

import hashlib
from typing import Any

from kcodec.api.apidiscovery import v2 as apidiscoveryv2
from kcodec.api.meta import v1 as metav1
from kcodec.schema import GroupVersion, GroupVersionKind
from kcodec.server.installer import GroupVersionRoutes
from kcodec.server.negotiation import negotiate_media_type_options
from kcodec.server.responses import Request, Response, write_object_negotiated

__all__ = ["Discovery", "DiscoveryRestrictions", "is_aggregated_discovery_gvk", "AGGREGATED_MEDIA_TYPE"]

#: The media type of an aggregated discovery answer (generateMediaTypeWithGVK).
AGGREGATED_MEDIA_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


def is_aggregated_discovery_gvk(gvk: GroupVersionKind | None) -> bool:
    """apidiscovery.k8s.io/v2 APIGroupDiscoveryList (v2beta1 is removed in 1.36)."""
    return gvk is not None and gvk.group == "apidiscovery.k8s.io" and gvk.version == "v2" \
        and gvk.kind == "APIGroupDiscoveryList"


class DiscoveryRestrictions:
    """aggregated.DiscoveryEndpointRestrictions: only the aggregated discovery conversion."""

    def allows_media_type_transform(self, mime_type: str, mime_subtype: str, gvk: GroupVersionKind | None) -> bool:
        return is_aggregated_discovery_gvk(gvk)

    def allows_server_version(self, version: str) -> bool:
        return False

    def allows_stream_schema(self, schema: str) -> bool:
        return schema == "watch"

    def __repr__(self) -> str:
        return "DiscoveryRestrictions()"


_RESTRICTIONS = DiscoveryRestrictions()


def _to_discovery(routes: GroupVersionRoutes) -> list[apidiscoveryv2.APIResourceDiscovery]:
    """installer.go ConvertGroupVersionIntoToDiscovery."""
    gv = routes.group_version
    out: list[apidiscoveryv2.APIResourceDiscovery] = []
    parents: dict[str, apidiscoveryv2.APIResourceDiscovery] = {}
    for r in routes.api_resources:
        if "/" in r.name:
            continue
        d = apidiscoveryv2.APIResourceDiscovery(
            resource=r.name, scope="Namespaced" if r.namespaced else "Cluster",
            response_kind=metav1.GroupVersionKind(group=r.group or gv.group, version=r.version or gv.version,
                                                  kind=r.kind),
            verbs=list(r.verbs), short_names=r.short_names, categories=r.categories,
            singular_resource=r.singular_name)
        out.append(d)
        parents[r.name] = d
    for r in routes.api_resources:
        parent, sep, sub = r.name.partition("/")
        if not sep:
            continue
        p = parents.get(parent)
        if p is None:
            p = apidiscoveryv2.APIResourceDiscovery(resource=parent, scope="Namespaced" if r.namespaced else "Cluster",
                                                    verbs=[])
            out.append(p)
            parents[parent] = p
        s = apidiscoveryv2.APISubresourceDiscovery(
            subresource=sub, verbs=list(r.verbs),
            response_kind=metav1.GroupVersionKind(group=r.group or gv.group, version=r.version or gv.version,
                                                  kind=r.kind) if r.kind else None)
        p.subresources = (p.subresources or []) + [s]
    return out


class Discovery:
    """The discovery documents of an installed server.

    ``groups`` lists group names in the order /apis shows them ("" is the legacy group);
    ``versions[group]`` that group's versions, most preferred first; ``routes`` the
    installed group versions. ``address`` is the ``host:port`` clients reach the server at.
    """

    def __init__(self, routes: dict[GroupVersion, GroupVersionRoutes], group_order: list[str],
                 versions: dict[str, list[str]], codecs: Any, address: str = "") -> None:
        self.routes = routes
        self.group_order = group_order
        self.versions = versions
        self.codecs = codecs
        self.address = address
        self._agg_cache: dict[bool, tuple[apidiscoveryv2.APIGroupDiscoveryList, str]] = {}

    def __repr__(self) -> str:
        return f"Discovery({len(self.group_order)} groups)"

    def _addresses(self) -> list[metav1.ServerAddressByClientCIDR]:
        return [metav1.ServerAddressByClientCIDR(client_cidr="0.0.0.0/0", server_address=self.address)]

    def _write(self, req: Request, obj: Any) -> Response:
        return write_object_negotiated(self.codecs, _default_restrictions(), None, req, 200, obj,
                                       without_conversion=True)

    def wants_aggregated(self, req: Request) -> bool:
        """Whether ``Accept`` asks for aggregated discovery (aggregated.WrappedHandler)."""
        opts = negotiate_media_type_options(req.accept, self.codecs.supported_media_types(), _RESTRICTIONS)
        return opts is not None and is_aggregated_discovery_gvk(opts.convert)

    # -------------------------------------------------------------------- legacy documents

    def api_versions(self, req: Request) -> Response:
        """GET /api."""
        if self.wants_aggregated(req):
            return self._aggregated(req, legacy=True)
        obj = metav1.APIVersions(kind="APIVersions", versions=["v1"],
                                 server_address_by_client_cidrs=self._addresses())
        return self._write(req, obj)

    def _group(self, group: str) -> metav1.APIGroup:
        versions = [metav1.GroupVersionForDiscovery(group_version=f"{group}/{v}", version=v)
                    for v in self.versions.get(group, [])]
        return metav1.APIGroup(name=group, versions=versions,
                               preferred_version=versions[0] if versions else metav1.GroupVersionForDiscovery())

    def api_groups(self, req: Request) -> Response:
        """GET /apis."""
        if self.wants_aggregated(req):
            return self._aggregated(req, legacy=False)
        groups = []
        for g in self.group_order:
            if not g:
                continue
            grp = self._group(g)
            grp.server_address_by_client_cidrs = self._addresses()
            groups.append(grp)
        return self._write(req, metav1.APIGroupList(kind="APIGroupList", api_version="v1", groups=groups))

    def api_group(self, req: Request, group: str) -> Response | None:
        """GET /apis/G, or None when the group is not served."""
        if group not in self.versions or not group:
            return None
        grp = self._group(group)
        grp.kind, grp.api_version = "APIGroup", "v1"
        return self._write(req, grp)

    def api_resource_list(self, req: Request, gv: GroupVersion) -> Response | None:
        """GET /api/v1 or /apis/G/V, or None when not served."""
        routes = self.routes.get(gv)
        if routes is None:
            return None
        obj = metav1.APIResourceList(kind="APIResourceList", api_version="" if not gv.group else "v1",
                                     group_version=str(gv), api_resources=list(routes.api_resources))
        return self._write(req, obj)

    # -------------------------------------------------------------------- aggregated

    def aggregated_list(self, legacy: bool) -> apidiscoveryv2.APIGroupDiscoveryList:
        """The APIGroupDiscoveryList of /api (``legacy``) or /apis."""
        cached = self._agg_cache.get(legacy)
        if cached is not None:
            return cached[0]
        items = []
        for g in self.group_order:
            if bool(g) == legacy:
                continue
            versions = []
            for v in self.versions.get(g, []):
                routes = self.routes.get(GroupVersion(g, v))
                if routes is None:
                    continue
                versions.append(apidiscoveryv2.APIVersionDiscovery(version=v, resources=_to_discovery(routes),
                                                                   freshness="Current"))
            items.append(apidiscoveryv2.APIGroupDiscovery(metadata=metav1.ObjectMeta(name=g), versions=versions))
        lst = apidiscoveryv2.APIGroupDiscoveryList(kind="APIGroupDiscoveryList", api_version="apidiscovery.k8s.io/v2",
                                                   items=items)
        return lst

    def _aggregated(self, req: Request, legacy: bool) -> Response:
        cached = self._agg_cache.get(legacy)
        if cached is None:
            lst = self.aggregated_list(legacy)
            from kcodec.model import to_tree
            from kcodec import gojson

            etag = '"' + hashlib.sha512(gojson.dumps(to_tree(lst))).hexdigest().upper() + '"'
            cached = self._agg_cache[legacy] = (lst, etag)
        lst, etag = cached
        if req.header("If-None-Match") == etag:
            return Response(304, b"", "", {"ETag": etag, "Vary": "Accept"})
        resp = write_object_negotiated(self.codecs, _RESTRICTIONS, None, req, 200, lst,
                                       list_gvk_in_content_type=True, without_conversion=True)
        resp.headers.update({"ETag": etag, "Vary": "Accept"})
        return resp


def _default_restrictions() -> Any:
    from kcodec.server.negotiation import DEFAULT_ENDPOINT_RESTRICTIONS

    return DEFAULT_ENDPOINT_RESTRICTIONS
