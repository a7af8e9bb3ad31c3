"""Every built-in resource of kube-apiserver 1.36 on the generic registry.

:func:`api_group_infos` builds, over a :class:`~kcodec.registry.generic.RESTOptionsGetter`,
one :class:`APIGroupInfo` per served group (Go's ``genericapiserver.APIGroupInfo``): its
versions in priority order and, per version, the storage of each resource and subresource
(``"pods"``, ``"pods/status"``, ``"pods/binding"``, ``"deployments/scale"``...). The
resources and their discovery facts are :data:`~kcodec.registry.builtin.resources.RESOURCES`;
their strategies :class:`~kcodec.registry.builtin.strategies.BuiltinStrategy`.

Objects are the internal versions of :data:`kcodec.legacyscheme.scheme`; for a group the
legacy scheme had no internal version of, the storage version of
``kcodec.api.scheme`` is the memory version, as for a group without an internal API.
"""
from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Any

from kcodec.errors import ConfigError
from kcodec.registry.builtin.connect import (
    AttachREST,
    ExecREST,
    LogREST,
    NodeConnectionInfoGetter,
    NodeProxyREST,
    PodProxyREST,
    PortForwardREST,
    ServiceProxyREST,
)
from kcodec.registry.builtin.componentstatus import ComponentStatusREST
from kcodec.registry.builtin.endpoints import repack_subsets
from kcodec.registry.builtin.namespaces import FinalizeREST, NamespaceFinalizeStrategy, NamespaceStore
from kcodec.registry.builtin.resources import GROUP_ORDER, RESOURCES, ResourceInfo, resource_info
from kcodec.registry.builtin.reviews import ReviewREST, always_allow
from kcodec.registry.builtin.serviceaccounts import TokenIssuer, TokenREST
from kcodec.registry.builtin.services import (
    DEFAULT_NODE_PORT_RANGE,
    DEFAULT_SERVICE_CIDR,
    ServiceStore,
    first_service_ip,
)
from kcodec.registry.builtin.strategies import (
    BuiltinStatusStrategy,
    BuiltinStrategy,
    CSRApprovalStrategy,
    PodSubresourceStrategy,
    get_pod_qos,
)
from kcodec.registry.builtin.subresources import BindingREST, EvictionREST, ScaleREST, StatusREST
from kcodec.registry.generic import Store
from kcodec.registry.generic.matcher import attr_func_with_fields
from kcodec.schema import GroupResource, GroupVersion, GroupVersionKind

__all__ = [
    "APIGroupInfo",
    "api_group_infos",
    "new_store",
    "RESOURCES",
    "ResourceInfo",
    "resource_info",
    "BuiltinStrategy",
    "BuiltinStatusStrategy",
    "PodSubresourceStrategy",
    "StatusREST",
    "ScaleREST",
    "BindingREST",
    "EvictionREST",
    "ServiceStore",
    "NamespaceStore",
    "FinalizeREST",
    "ReviewREST",
    "ComponentStatusREST",
    "TokenIssuer",
    "TokenREST",
    "DEFAULT_SERVICE_CIDR",
    "DEFAULT_NODE_PORT_RANGE",
    "first_service_ip",
    "get_pod_qos",
    "repack_subsets",
    "FIELD_SELECTABLE",
    "RETURN_DELETED_OBJECT",
    "DEFAULT_EVENT_TTL",
]

#: kube-apiserver's ``--event-ttl`` default (1h): how long Events are kept, in seconds.
DEFAULT_EVENT_TTL = 3600.0

# The stores of Events, which kube-apiserver gives a TTL (k/k pkg/registry/core/event/storage
# TTLFunc; events.k8s.io serves the same storage, pkg/registry/events/rest).
_EVENT_RESOURCES = frozenset({("", "events"), ("events.k8s.io", "events")})


@dataclass
class APIGroupInfo:
    """Go's ``genericapiserver.APIGroupInfo`` for one group.

    ``prioritized_versions``: the served versions, preferred first.
    ``versioned_resources_storage_map``: version -> {"pods": store, "pods/status": ...}.
    ``resources``: the :class:`ResourceInfo` of each top-level resource served.
    """

    group: str
    prioritized_versions: list[GroupVersion] = field(default_factory=list)
    versioned_resources_storage_map: dict[str, dict[str, Any]] = field(default_factory=dict)
    resources: dict[str, ResourceInfo] = field(default_factory=dict)
    #: stores built only to back a subresource (the PodDisruptionBudgets of ``pods/eviction``
    #: when ``policy`` is not served): nothing else holds them, so destroy() stops them here
    owned_stores: list[Any] = field(default_factory=list)

    def __repr__(self) -> str:
        versions = ",".join(v.version for v in self.prioritized_versions)
        return f"APIGroupInfo({self.group or 'core'!r}, versions={versions}, resources={len(self.resources)})"

    def destroy(self) -> None:
        """Stop every storage's watch cache (Go's ``Destroy`` of each store)."""
        seen: set[int] = set()
        targets = [storage for storages in self.versioned_resources_storage_map.values()
                   for storage in storages.values()]
        for storage in targets + self.owned_stores:
            target = getattr(storage, "store", storage)
            if id(target) in seen:
                continue
            seen.add(id(target))
            destroy = getattr(target, "destroy", None)
            if destroy is not None:
                destroy()


def _meta(path: str):
    def get(obj: Any) -> str:
        value: Any = obj
        for part in path.split("."):
            value = getattr(value, part, None)
            if value is None:
                return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    return get


def _pod_ips(obj: Any) -> str:
    ips = obj.status.pod_ips or ()
    return ips[0].ip if ips else ""


#: Fields each strategy's ``GetAttrs`` adds to metadata.name/namespace (k/k
#: ``<resource>/strategy.go`` ToSelectableFields), keyed by (group, resource).
FIELD_SELECTABLE: dict[tuple[str, str], dict[str, Any]] = {
    ("", "pods"): {
        "spec.nodeName": _meta("spec.node_name"), "spec.restartPolicy": _meta("spec.restart_policy"),
        "spec.schedulerName": _meta("spec.scheduler_name"),
        "spec.serviceAccountName": _meta("spec.service_account_name"),
        "spec.hostNetwork": lambda o: "true" if (o.spec.security_context is not None
                                                and o.spec.security_context.host_network) else "false",
        "status.phase": _meta("status.phase"), "status.podIP": _pod_ips,
        "status.nominatedNodeName": _meta("status.nominated_node_name"),
    },
    ("", "events"): {
        "involvedObject.kind": _meta("involved_object.kind"),
        "involvedObject.namespace": _meta("involved_object.namespace"),
        "involvedObject.name": _meta("involved_object.name"),
        "involvedObject.uid": _meta("involved_object.uid"),
        "involvedObject.apiVersion": _meta("involved_object.api_version"),
        "involvedObject.resourceVersion": _meta("involved_object.resource_version"),
        "involvedObject.fieldPath": _meta("involved_object.field_path"),
        "reason": _meta("reason"), "reportingComponent": _meta("reporting_controller"),
        "source": lambda o: o.source.component if o.source is not None else "", "type": _meta("type"),
    },
    ("", "secrets"): {"type": _meta("type")},
    ("", "namespaces"): {"status.phase": _meta("status.phase"), "name": _meta("metadata.name")},
    ("", "nodes"): {"spec.unschedulable": lambda o: "true" if o.spec.unschedulable else "false"},
    ("", "replicationcontrollers"): {"status.replicas": _meta("status.replicas")},
    ("", "persistentvolumes"): {"name": _meta("metadata.name")},
    ("", "persistentvolumeclaims"): {"name": _meta("metadata.name")},
    ("", "serviceaccounts"): {},
    ("apps", "replicasets"): {"status.replicas": _meta("status.replicas")},
    ("batch", "jobs"): {"status.successful": _meta("status.succeeded")},
    ("certificates.k8s.io", "certificatesigningrequests"): {"spec.signerName": _meta("spec.signer_name")},
    ("resource.k8s.io", "resourceslices"): {"spec.nodeName": _meta("spec.node_name"),
                                            "spec.driver": _meta("spec.driver")},
}

#: Stores whose delete answers with the deleted object rather than a Status
#: (``ReturnDeletedObject: true`` in k/k).
RETURN_DELETED_OBJECT: frozenset[tuple[str, str]] = frozenset({
    ("", "pods"), ("", "services"), ("", "namespaces"), ("", "persistentvolumeclaims"),
    ("", "persistentvolumes"), ("apiextensions.k8s.io", "customresourcedefinitions"),
})


def _schemes(group: str) -> tuple[Any, str]:
    """The scheme holding the group's memory version and that version."""
    scheme, version, _kinds = _memory_version(group)
    return scheme, version


@functools.lru_cache(maxsize=None)
def _memory_version(group: str) -> tuple[Any, str, dict[str, type]]:
    """:func:`_schemes` and the memory version's classes by kind, once per group: a
    scheme's ``known_types`` walks every registered kind, and a server builds about 60
    stores. Both schemes are process-wide and a group's registration does not change."""
    from kcodec import legacyscheme

    kinds = legacyscheme.scheme.known_types(GroupVersion(group, "__internal"))
    if kinds:
        return legacyscheme.scheme, "__internal", kinds
    from kcodec import api

    versions = api.scheme.prioritized_versions_for_group(group)
    if not versions:
        raise ConfigError(f"group {group!r} is not registered in kcodec.api.scheme")
    return api.scheme, versions[0].version, api.scheme.known_types(versions[0])


class _ExternalRESTOptionsGetter:
    """RESTOptions for a group the legacy scheme has no internal version of: the same
    backend and prefix, the kind's external storage version in memory (kcodec.api.codecs)."""

    def __init__(self, getter: Any, group: str, version: str) -> None:
        self.getter = getter
        self.gv = GroupVersion(group, version)

    def get_rest_options(self, resource: GroupResource, example: Any = None) -> Any:
        from kcodec import api
        from kcodec.storage.factory import (
            CONTENT_TYPE_PROTOBUF,
            DefaultResourceEncodingConfig,
            DefaultStorageFactory,
        )

        base = self.getter.storage_factory
        encoding = DefaultResourceEncodingConfig(api.scheme)
        encoding.set_resource_encoding(resource, self.gv, self.gv)
        factory = DefaultStorageFactory(base.storage_config, getattr(base, "default_media_type", CONTENT_TYPE_PROTOBUF),
                                        api.codecs, encoding, base.default_resource_prefixes)
        factory.transformers = dict(getattr(base, "transformers", {}))
        inner = copy.copy(self.getter)  # same backends (shared KV table), another factory
        inner.storage_factory = factory
        return inner.get_rest_options(resource, example)


def _event_ttl_func(event_ttl: float) -> Any:
    # uint64(EventTTL.Seconds()): whole seconds, whatever the object or its current TTL.
    seconds = max(int(event_ttl), 0)

    def ttl_func(obj: Any, existing: int, update: bool) -> int:
        return seconds

    return ttl_func


def new_store(info: ResourceInfo, rest_options_getter: Any, *, service_cidr: str = DEFAULT_SERVICE_CIDR,
              node_port_range: tuple[int, int] = DEFAULT_NODE_PORT_RANGE, ipaddress_store: Store | None = None,
              event_ttl: float = DEFAULT_EVENT_TTL, **kwargs: Any) -> Store:
    """The generic Store of one built-in resource, completed with ``rest_options_getter``.

    The Services store allocates from ``service_cidr`` and ``node_port_range``, recording
    addresses through ``ipaddress_store`` (by default a new IPAddress store on the getter).
    The Events stores (core and events.k8s.io) keep each Event ``event_ttl`` seconds after
    its last write (kube-apiserver's ``--event-ttl``; 0 keeps them).
    """
    if (info.group, info.resource) in _EVENT_RESOURCES and "ttl_func" not in kwargs:
        kwargs["ttl_func"] = _event_ttl_func(event_ttl)
    scheme, mem_version, kinds = _memory_version(info.group)
    gvk = GroupVersionKind(info.group, mem_version, info.kind)
    list_gvk = GroupVersionKind(info.group, mem_version, info.kind + "List")
    new_func = _new(scheme, gvk)
    new_list_func = _new(scheme, list_gvk)
    strategy = BuiltinStrategy(info, scheme)
    cls = {("", "services"): ServiceStore, ("", "namespaces"): NamespaceStore}.get((info.group, info.resource), Store)
    fields = FIELD_SELECTABLE.get((info.group, info.resource))
    attr_func = attr_func_with_fields(info.namespaced, fields) if fields else None
    store = cls(new_func=new_func, new_list_func=new_list_func,
                table_convertor=_table_convertor(kinds.get(info.kind) or type(new_func())),
                default_qualified_resource=GroupResource(info.group, info.resource),
                singular_qualified_resource=GroupResource(info.group, info.singular_name),
                create_strategy=strategy, attr_func=attr_func, short_names=info.short_names,
                categories=info.categories, kind=GroupVersionKind(info.group, info.versions[0], info.kind),
                return_deleted_object=(info.group, info.resource) in RETURN_DELETED_OBJECT, **kwargs)
    getter = rest_options_getter
    if mem_version != "__internal":
        getter = _ExternalRESTOptionsGetter(rest_options_getter, info.group, mem_version)
    store.complete_with_options(getter)
    if isinstance(store, ServiceStore):
        if ipaddress_store is None:
            ipaddress_store = new_store(_info("networking.k8s.io", "ipaddresses"), rest_options_getter)
        store.configure_allocators(ipaddress_store, service_cidr, node_port_range)
    return store


def _info(group: str, resource: str) -> ResourceInfo:
    info = resource_info(group, resource)
    if info is None:
        raise KeyError(f"{resource}.{group} is not a built-in resource")
    return info


def _table_convertor(cls: type) -> Any:
    """Go's ``printerstorage.TableConvertor`` over ``printersinternal.AddHandlers`` when
    kcodec.printers has a handler for the kind's class ``cls``; None (the default
    Name/Created At table) otherwise."""
    from kcodec.printers import TableConvertor, default_table_generator

    generator = default_table_generator()
    return TableConvertor(generator) if generator.handles(cls) else None


def _new(scheme: Any, gvk: GroupVersionKind) -> Any:
    def new() -> Any:
        obj = scheme.new(gvk)
        if gvk.version != "__internal":
            obj.api_version, obj.kind = str(gvk.group_version()), gvk.kind
        return obj

    return new


def api_group_infos(rest_options_getter: Any, *, service_cidr: str = DEFAULT_SERVICE_CIDR,
                    node_port_range: tuple[int, int] = DEFAULT_NODE_PORT_RANGE,
                    authorizer: Any = None, authenticator: Any = None, token_issuer: TokenIssuer | None = None,
                    groups: Any = None, event_ttl: float = DEFAULT_EVENT_TTL) -> list[APIGroupInfo]:
    """One :class:`APIGroupInfo` per group kube-apiserver 1.36 serves, in discovery order.

    ``service_cidr`` / ``node_port_range`` configure Service allocation; ``authorizer``
    (``(user, attributes) -> (allowed, reason)``, default: allow all, as
    ``--authorization-mode=AlwaysAllow``) answers the access reviews; ``authenticator``
    (``token -> UserInfo | None``, default: ``token_issuer.verify``) the TokenReviews.
    ``token_issuer`` signs ``serviceaccounts/token`` requests (a new
    :class:`~kcodec.registry.builtin.serviceaccounts.TokenIssuer` when None; pass one to
    authenticate its tokens in the server too). ``groups`` limits the groups built.
    ``event_ttl``: seconds an Event is kept after its last write (``--event-ttl``, 1h).
    """
    authorizer = authorizer or always_allow
    token_issuer = token_issuer if token_issuer is not None else TokenIssuer()
    authenticator = authenticator if authenticator is not None else token_issuer.verify
    stores: dict[tuple[str, str], Store] = {}
    infos: dict[str, APIGroupInfo] = {}
    for info in RESOURCES:
        if groups is not None and info.group not in groups:
            continue
        group_info = infos.get(info.group)
        if group_info is None:
            group_info = infos[info.group] = APIGroupInfo(group=info.group)
        for v in info.versions:
            gv = GroupVersion(info.group, v)
            if gv not in group_info.prioritized_versions:
                group_info.prioritized_versions.append(gv)
        group_info.resources[info.resource] = info
        if info.virtual:
            continue
        if (info.group, info.resource) == ("", "services"):
            continue  # built last, on the IPAddress store of this group set
        stores[(info.group, info.resource)] = new_store(info, rest_options_getter, event_ttl=event_ttl)
    if groups is None or "" in groups:
        stores[("", "services")] = new_store(
            _info("", "services"), rest_options_getter, service_cidr=service_cidr,
            node_port_range=node_port_range, ipaddress_store=stores.get(("networking.k8s.io", "ipaddresses")))
    for info in RESOURCES:
        group_info = infos.get(info.group)
        if group_info is None:
            continue
        storages: dict[str, Any] = {}
        store: Any = stores.get((info.group, info.resource))

        def backing(group: str, resource: str, owner: APIGroupInfo = group_info) -> Store:
            found = stores.get((group, resource))
            if found is None:
                found = stores[(group, resource)] = new_store(_info(group, resource), rest_options_getter)
                owner.owned_stores.append(found)
            return found
        if info.virtual:
            if info.resource == "componentstatuses":
                storages["componentstatuses"] = ComponentStatusREST.for_getter(rest_options_getter)
            elif info.resource == "bindings":
                pods = backing("", "pods")
                storages["bindings"] = BindingREST(pods)
            else:
                storages[info.resource] = ReviewREST(info, authorizer=authorizer, authenticator=authenticator)
        else:
            storages[info.resource] = store
            if info.status:
                storages[f"{info.resource}/status"] = StatusREST(store, BuiltinStatusStrategy(info, store.create_strategy.scheme))
            if info.scale:
                storages[f"{info.resource}/scale"] = ScaleREST(store)
            if (info.group, info.resource) == ("certificates.k8s.io", "certificatesigningrequests"):
                storages[f"{info.resource}/approval"] = StatusREST(store, CSRApprovalStrategy(info, store.create_strategy.scheme))
            if (info.group, info.resource) == ("", "serviceaccounts"):
                pods_for_tokens = backing("", "pods")
                storages["serviceaccounts/token"] = TokenREST(store, token_issuer, pods_for_tokens)
            if (info.group, info.resource) == ("", "namespaces"):
                storages["namespaces/finalize"] = FinalizeREST(store, NamespaceFinalizeStrategy(info))
            if (info.group, info.resource) == ("", "pods"):
                storages["pods/binding"] = BindingREST(store)
                for sub in ("ephemeralcontainers", "resize"):
                    storages[f"pods/{sub}"] = StatusREST(store, PodSubresourceStrategy(info, sub, store.create_strategy.scheme))
                pdbs = backing("policy", "poddisruptionbudgets")
                storages["pods/eviction"] = EvictionREST(store, pdbs)
                kubelet_conn = NodeConnectionInfoGetter(backing("", "nodes"))
                storages["pods/log"] = LogREST(store, kubelet_conn)
                storages["pods/exec"] = ExecREST(store, kubelet_conn)
                storages["pods/attach"] = AttachREST(store, kubelet_conn)
                storages["pods/portforward"] = PortForwardREST(store, kubelet_conn)
                storages["pods/proxy"] = PodProxyREST(store)
            if (info.group, info.resource) == ("", "nodes"):
                storages["nodes/proxy"] = NodeProxyREST(NodeConnectionInfoGetter(store))
            if (info.group, info.resource) == ("", "services"):
                storages["services/proxy"] = ServiceProxyREST(store, backing("", "endpoints"), backing("", "pods"))
        for v in info.versions:
            group_info.versioned_resources_storage_map.setdefault(v, {}).update(storages)
    order = {g: i for i, g in enumerate(GROUP_ORDER)}
    return sorted(infos.values(), key=lambda gi: order.get(gi.group, len(order)))
