"""Installing the registry's APIGroupInfos: request scopes and discovery entries per resource.

Go: k8s.io/apiserver pkg/endpoints/installer.go (APIInstaller.Install, registerResourceHandlers)
and groupversion.go. For every group, version and resource (``pods``, ``pods/status``) of an
``APIGroupInfo`` the installer makes a :class:`~kcodec.server.handlers.RequestScope` (kind,
scope, hub version, storage) and the ``metav1.APIResource`` discovery shows, with the verbs the
storage implements (sorted, as Go sorts them), short names, categories, singular name and
storage version hash.
"""
from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Any

from kcodec.api.meta import v1 as metav1
from kcodec.schema import GroupVersion, GroupVersionKind, GroupVersionResource
from kcodec.server.handlers import RequestScope

__all__ = ["GroupVersionRoutes", "APIInstaller", "storage_version_hash", "storage_verbs"]


def storage_version_hash(group: str, version: str, kind: str) -> str:
    """discovery.StorageVersionHash: base64 of the first 8 bytes of sha256("group/version/kind")."""
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def _has(storage: Any, name: str) -> bool:
    return callable(getattr(storage, name, None))


def storage_verbs(storage: Any, *, subresource: bool = False) -> list[str]:
    """The Kubernetes verbs a storage serves, sorted (installer.go's kubeVerbs).

    A subresource storage with ``create`` only (binding, eviction) is a NamedCreater.
    """
    verbs = set()
    if _has(storage, "create"):
        verbs.add("create")
    if _has(storage, "get"):
        verbs.add("get")
    if _has(storage, "update"):
        verbs.add("update")
        if _has(storage, "get"):
            verbs.add("patch")
    if _has(storage, "delete"):
        verbs.add("delete")
    if not subresource:
        if _has(storage, "list"):
            verbs.add("list")
        if _has(storage, "watch"):
            verbs.add("watch")
        if _has(storage, "delete_collection"):
            verbs.add("deletecollection")
    return sorted(verbs)


@dataclass
class GroupVersionRoutes:
    """One installed group version: its scopes by ``resource`` then ``subresource`` ("" for
    the resource itself) and its discovery list (Go's APIResourceList, sorted by name)."""

    group_version: GroupVersion
    scopes: dict[str, dict[str, RequestScope]] = field(default_factory=dict)
    api_resources: list[metav1.APIResource] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"GroupVersionRoutes({self.group_version}, {len(self.api_resources)} resources)"


class APIInstaller:
    """Builds :class:`GroupVersionRoutes` from APIGroupInfos over one scheme and CodecFactory."""

    def __init__(self, scheme: Any, codecs: Any, infos: list[Any], meta_infos: list[Any]) -> None:
        self.scheme = scheme
        self.codecs = codecs
        self.infos = infos
        self.meta_infos = meta_infos

    def __repr__(self) -> str:
        return f"APIInstaller(scheme={getattr(self.scheme, 'name', self.scheme)!r})"

    def _scheme_for(self, obj: Any) -> tuple[Any, Any]:
        """The scheme and codecs that know ``obj``'s type: the server's, else kcodec.api's.

        Groups kube-apiserver keeps no internal version of (resource.k8s.io...) are not in the
        legacy scheme; their objects live in their external version, which kcodec.api knows.
        """
        from kcodec.errors import NotRegisteredError

        try:
            self.scheme.object_kinds(obj)
            return self.scheme, self.codecs
        except NotRegisteredError:
            from kcodec.api import codecs, scheme

            return scheme, codecs

    def _kind_of(self, storage: Any, gv: GroupVersion, scheme: Any) -> tuple[GroupVersionKind, GroupVersion]:
        """The external kind a storage serves under ``gv`` and the hub version it works in."""
        provider = getattr(storage, "group_version_kind", None)
        obj = storage.new()
        kinds, _ = scheme.object_kinds(obj)
        own = kinds[0]
        if callable(provider):
            kind = provider(gv)
            kind = GroupVersionKind(kind.group, kind.version, kind.kind)
        else:
            kind = GroupVersionKind(gv.group, gv.version, own.kind)
        hub = own.group_version() if own.version == "__internal" else kind.group_version()
        return kind, hub

    def install_group_version(self, gv: GroupVersion, storages: dict[str, Any]) -> GroupVersionRoutes:
        """The routes of one version: every ``resource[/subresource]`` of ``storages``."""
        routes = GroupVersionRoutes(gv)
        parents: dict[str, Any] = {}
        for path in sorted(storages):
            if "/" not in path:
                parents[path] = storages[path]
        for path in sorted(storages):
            storage = storages[path]
            resource, _, sub = path.partition("/")
            parent = parents.get(resource, storage)
            namespaced = bool(parent.namespace_scoped()) if _has(parent, "namespace_scoped") else True
            scheme, codecs = self._scheme_for(storage.new())
            kind, hub = self._kind_of(storage, gv, scheme)
            scope = RequestScope(resource=GroupVersionResource(gv.group, gv.version, resource), kind=kind, hub=hub,
                                 storage=storage, namespaced=namespaced, subresource=sub, codecs=codecs,
                                 scheme=scheme,
                                 infos=self.infos if codecs is self.codecs else codecs.supported_media_types(),
                                 meta_infos=self.meta_infos)
            routes.scopes.setdefault(resource, {})[sub] = scope
            api = metav1.APIResource(name=path, namespaced=namespaced, kind=kind.kind,
                                     verbs=storage_verbs(storage, subresource=bool(sub)))
            if kind.group_version() != gv:
                api.group, api.version = kind.group, kind.version
            if not sub:
                single = storage.get_single_name() if _has(storage, "get_single_name") else ""
                api.singular_name = single or kind.kind.lower()
                if _has(storage, "short_names"):
                    api.short_names = list(storage.short_names()) or None
                if _has(storage, "categories"):
                    api.categories = list(storage.categories()) or None
                sv = getattr(storage, "storage_version", None)
                sv = sv() if callable(sv) else sv
                if sv is not None:
                    api.storage_version_hash = storage_version_hash(sv.group, sv.version, kind.kind)
            routes.api_resources.append(api)
        return routes

    def install(self, group_infos: list[Any]) -> dict[GroupVersion, GroupVersionRoutes]:
        """Every version of every APIGroupInfo (genericapiserver installAPIResources)."""
        out: dict[GroupVersion, GroupVersionRoutes] = {}
        for info in group_infos:
            for gv in info.prioritized_versions:
                storages = info.versioned_resources_storage_map.get(gv.version)
                if not storages:
                    continue
                out[GroupVersion(gv.group, gv.version)] = self.install_group_version(
                    GroupVersion(gv.group, gv.version), storages)
        return out
