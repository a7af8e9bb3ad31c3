"""Per-resource storage configuration, as kube-apiserver builds it.

Follows apiserver ``pkg/server/storage`` (resource_encoding_config.go, storage_factory.go,
storage_codec.go), ``pkg/server/resourceconfig`` (MergeResourceEncodingConfigs),
``pkg/server/options/etcd.go`` (``--etcd-servers-overrides``, ``--storage-media-type``) and
kube-apiserver's ``pkg/kubeapiserver/default_storage_factory_builder.go`` (1.36's special
prefixes, cohabitating resources and storage-version overrides); the ``--storage-versions``
syntax is kube-apiserver 1.9-1.12's (``pkg/kubeapiserver/options/storage_versions.go`` and
``mergeGroupEncodingConfigs`` in ``pkg/kubeapiserver/default_storage_factory_builder.go``,
before the flag was removed).

For one :class:`~kcodec.schema.GroupResource`, :meth:`DefaultStorageFactory.new_config`
answers: which etcd servers and prefix, which media type and serializer, which version is
written (storage) and which one the server works with (memory, ``__internal`` by
default), and which transformer (encryption at rest) applies.
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kcodec.storage.interfaces import ResourceEncodingConfig
from kcodec.errors import ConfigError, DecodeError
from kcodec.schema import APIVersionInternal, GroupResource, GroupVersion, GroupVersionResource, parse_group_version
from kcodec.storage.codec import StorageCodecConfig, new_storage_codec
from kcodec.storage.value.config import transformer_for_resource

__all__ = [
    "ALL_RESOURCES",
    "CONTENT_TYPE_JSON",
    "CONTENT_TYPE_YAML",
    "CONTENT_TYPE_PROTOBUF",
    "DEFAULT_ETCD_PATH_PREFIX",
    "SPECIAL_DEFAULT_RESOURCE_PREFIXES",
    "RESOURCE_ENCODING_OVERRIDES",
    "COHABITATING_RESOURCES",
    "JSON_STORED_GROUPS",
    "DELEGATE_STORAGE_VERSIONS",
    "ResourceEncodingConfig",
    "DefaultResourceEncodingConfig",
    "merge_resource_encoding_configs",
    "merge_group_encoding_configs",
    "storage_groups_to_encoding_version",
    "parse_etcd_servers_overrides",
    "validate_storage_media_type",
    "APIResourceConfig",
    "StorageConfig",
    "DefaultStorageFactory",
    "kube_apiserver_storage_factory",
]

ALL_RESOURCES = "*"
CONTENT_TYPE_JSON = "application/json"
CONTENT_TYPE_YAML = "application/yaml"
CONTENT_TYPE_PROTOBUF = "application/vnd.kubernetes.protobuf"
DEFAULT_ETCD_PATH_PREFIX = "/registry"

#: Prefixes compiled into kube-apiserver 1.36 (``SpecialDefaultResourcePrefixes``): the
#: etcd directories kept from the early days, under the etcd prefix.
SPECIAL_DEFAULT_RESOURCE_PREFIXES: dict[GroupResource, str] = {
    GroupResource("", "replicationcontrollers"): "controllers",
    GroupResource("", "endpoints"): "services/endpoints",
    GroupResource("", "nodes"): "minions",
    GroupResource("", "services"): "services/specs",
    GroupResource("extensions", "ingresses"): "ingress",
    GroupResource("networking.k8s.io", "ingresses"): "ingress",
}

#: Resources 1.36 stores in a version other than their group's preferred one
#: (``NewStorageFactoryConfigEffectiveVersion``), so that a 1.35 server can still read them.
RESOURCE_ENCODING_OVERRIDES: tuple[GroupVersionResource, ...] = (
    GroupVersionResource("coordination.k8s.io", "v1beta1", "leasecandidates"),
    GroupVersionResource("admissionregistration.k8s.io", "v1beta1", "mutatingadmissionpolicies"),
    GroupVersionResource("admissionregistration.k8s.io", "v1beta1", "mutatingadmissionpolicybindings"),
    GroupVersionResource("certificates.k8s.io", "v1beta1", "clustertrustbundles"),
    GroupVersionResource("certificates.k8s.io", "v1beta1", "podcertificaterequests"),
    GroupVersionResource("storagemigration.k8s.io", "v1beta1", "storagemigrations"),
    GroupVersionResource("resource.k8s.io", "v1alpha3", "devicetaintrules"),
    GroupVersionResource("resource.k8s.io", "v1alpha3", "resourcepoolstatusrequests"),
    GroupVersionResource("scheduling.k8s.io", "v1alpha2", "workloads"),
    GroupVersionResource("scheduling.k8s.io", "v1alpha2", "podgroups"),
)

#: Resources served by several groups but stored once, in lookup order (the first whose
#: group is enabled holds the data). 1.9's default_storage_factory_builder.go lists the first
#: five; 1.36's adds three.
COHABITATING_RESOURCES: tuple[tuple[GroupResource, ...], ...] = (
    (GroupResource("networking.k8s.io", "networkpolicies"), GroupResource("extensions", "networkpolicies")),
    (GroupResource("apps", "deployments"), GroupResource("extensions", "deployments")),
    (GroupResource("apps", "daemonsets"), GroupResource("extensions", "daemonsets")),
    (GroupResource("apps", "replicasets"), GroupResource("extensions", "replicasets")),
    (GroupResource("", "events"), GroupResource("events.k8s.io", "events")),
    (GroupResource("", "replicationcontrollers"), GroupResource("extensions", "replicationcontrollers")),
    (GroupResource("policy", "podsecuritypolicies"), GroupResource("extensions", "podsecuritypolicies")),
    (GroupResource("networking.k8s.io", "ingresses"), GroupResource("extensions", "ingresses")),
)

#: Groups kube-apiserver 1.36 serves from its delegate servers, which store JSON under
#: ``<group>/<resource>`` (apiextensions-apiserver: CRDs; kube-aggregator: APIServices).
#: Custom resources themselves are JSON too (see :meth:`DefaultStorageFactory.add_json_resource`).
JSON_STORED_GROUPS: tuple[str, ...] = ("apiextensions.k8s.io", "apiregistration.k8s.io")

#: The versions those delegate servers write (their codecs' first version having the kind):
#: CRDs stay apiextensions.k8s.io/v1beta1 (kubernetes/kubernetes#82292), APIServices apiregistration.k8s.io/v1.
DELEGATE_STORAGE_VERSIONS: dict[GroupResource, GroupVersion] = {
    GroupResource("apiextensions.k8s.io", "customresourcedefinitions"): GroupVersion("apiextensions.k8s.io", "v1beta1"),
    GroupResource("apiregistration.k8s.io", "apiservices"): GroupVersion("apiregistration.k8s.io", "v1"),
}

_STORAGE_MEDIA_TYPES = (CONTENT_TYPE_JSON, CONTENT_TYPE_YAML, CONTENT_TYPE_PROTOBUF)


# ----------------------------------------------------------------------- resource encodings


class DefaultResourceEncodingConfig:
    """Go's ``DefaultResourceEncodingConfig``: the scheme's preferred version, unless overridden.

    The storage version of a resource is the first prioritized version of its group in
    ``scheme``; its memory version is ``{group, "__internal"}`` (the hub types). Per
    resource, :meth:`set_resource_encoding` overrides both. A group unknown to the scheme
    raises :class:`~kcodec.errors.ConfigError` (``group "x" is not registered in scheme``).
    """

    def __init__(self, scheme: Any) -> None:
        self.scheme = scheme
        self.resources: dict[GroupResource, tuple[GroupVersion, GroupVersion]] = {}
        self.groups: dict[str, tuple[GroupVersion, GroupVersion]] = {}

    def __repr__(self) -> str:
        return f"DefaultResourceEncodingConfig(scheme={getattr(self.scheme, 'name', self.scheme)!r}, " \
               f"overrides={len(self.resources)})"

    def set_resource_encoding(self, group_resource: GroupResource, external_gv: GroupVersion,
                              internal_gv: GroupVersion) -> None:
        """Store ``group_resource`` as ``external_gv`` and hold it in memory as ``internal_gv``."""
        self.resources[GroupResource(*group_resource)] = (GroupVersion(*external_gv), GroupVersion(*internal_gv))

    def set_version_encoding(self, group: str, external_gv: GroupVersion, internal_gv: GroupVersion) -> None:
        """Store every resource of ``group`` as ``external_gv`` (held as ``internal_gv``).

        The group-wide override 1.9-1.12's apiserver had (``SetVersionEncoding`` of
        apiserver pkg/server/storage/resource_encoding_config.go), which
        ``--storage-versions`` fed; a resource's own override still wins.
        """
        self.groups[group] = (GroupVersion(*external_gv), GroupVersion(*internal_gv))

    def _check(self, group: str) -> None:
        if not self.scheme.is_group_registered(group):
            raise ConfigError(f'group "{group}" is not registered in scheme', field=group)

    def storage_encoding_for(self, group_resource: GroupResource) -> GroupVersion:
        """The version ``group_resource`` is written to storage in."""
        gr = GroupResource(*group_resource)
        self._check(gr.group)
        override = self.resources.get(gr) or self.groups.get(gr.group)
        if override is not None:
            return override[0]
        versions = self.scheme.prioritized_versions_for_group(gr.group)
        if not versions:
            raise ConfigError(f'group "{gr.group}" has no versions to store in', field=gr.group)
        return versions[0]

    def in_memory_encoding_for(self, group_resource: GroupResource) -> GroupVersion:
        """The version the server works with: ``{group, "__internal"}`` unless overridden."""
        gr = GroupResource(*group_resource)
        self._check(gr.group)
        override = self.resources.get(gr) or self.groups.get(gr.group)
        if override is not None:
            return override[1]
        return GroupVersion(gr.group, APIVersionInternal)


def merge_resource_encoding_configs(config: DefaultResourceEncodingConfig,
                                    overrides: Iterable[GroupVersionResource]) -> DefaultResourceEncodingConfig:
    """Go's ``MergeResourceEncodingConfigs``: store each resource in its listed version.

    The memory version stays the group's internal one. ``config`` is changed and returned.
    """
    for gvr in overrides:
        gvr = GroupVersionResource(*gvr)
        config.set_resource_encoding(gvr.group_resource(), gvr.group_version(),
                                     GroupVersion(gvr.group, APIVersionInternal))
    return config


def merge_group_encoding_configs(config: DefaultResourceEncodingConfig,
                                 storage_versions: Mapping[str, GroupVersion]) -> DefaultResourceEncodingConfig:
    """kube-apiserver 1.9-1.12's ``mergeGroupEncodingConfigs``: store each group in its ``--storage-versions`` version.

    ``storage_versions`` is what :func:`storage_groups_to_encoding_version` returns; memory
    versions stay internal. ``config`` is changed and returned.
    """
    for group, gv in storage_versions.items():
        config.set_version_encoding(group, gv, GroupVersion(group, APIVersionInternal))
    return config


def _merge_group_versions(gv_list: str, dest: dict[str, GroupVersion]) -> None:
    for item in gv_list.split(","):
        if item == "":
            continue
        # "group/version", or "group=group2/version" for kinds that moved between groups
        if "=" not in item:
            gv = parse_group_version(item)
            dest[gv.group] = gv
        else:
            group, _, target = item.partition("=")
            dest[group] = parse_group_version(target)


def storage_groups_to_encoding_version(storage_versions: str, default_versions: str = "") -> dict[str, GroupVersion]:
    """Parse ``--storage-versions`` over its defaults: group name -> storage GroupVersion.

    ``"group1/version1,group2/version2"``; ``"group1=group2/v1beta1"`` stores group1's
    resources in another group. Entries of ``storage_versions`` override those of
    ``default_versions`` (normally every group's preferred version). Raises
    :class:`~kcodec.errors.ConfigError` with Go's ``unexpected GroupVersion string: <s>``.
    """
    out: dict[str, GroupVersion] = {}
    for text in (default_versions, storage_versions):
        try:
            _merge_group_versions(text, out)
        except DecodeError as err:
            raise ConfigError(str(err), field="--storage-versions") from None
    return out


_OVERRIDES_INVALID = ("--etcd-servers-overrides invalid, must be of format: group/resource#servers, "
                      "where servers are URLs, semicolon separated")


def parse_etcd_servers_overrides(overrides: Sequence[str] | str) -> list[tuple[GroupResource, list[str]]]:
    """Parse ``--etcd-servers-overrides`` (``group/resource#server1;server2``, comma separated).

    The core group is empty: ``/pods#http://etcd4:2379;http://etcd5:2379``. Any malformed
    entry (no or several ``#``, not exactly one ``/``, an empty server) raises
    :class:`~kcodec.errors.ConfigError` with Go's text.
    """
    if isinstance(overrides, str):
        overrides = [o for o in overrides.split(",") if o] if overrides else []
    out = []
    for override in overrides:
        tokens = override.split("#")
        if len(tokens) != 2:
            raise ConfigError(_OVERRIDES_INVALID, field="--etcd-servers-overrides")
        apiresource = tokens[0].split("/")
        if len(apiresource) != 2:
            raise ConfigError(_OVERRIDES_INVALID, field="--etcd-servers-overrides")
        servers = tokens[1].split(";")
        if any(not s for s in servers):
            raise ConfigError(_OVERRIDES_INVALID, field="--etcd-servers-overrides")
        out.append((GroupResource(apiresource[0], apiresource[1]), servers))
    return out


def validate_storage_media_type(media_type: str) -> None:
    """``--storage-media-type``: one of JSON, YAML or protobuf (Go's EtcdOptions.Validate)."""
    if media_type and media_type not in _STORAGE_MEDIA_TYPES:
        allowed = ", ".join(sorted(_STORAGE_MEDIA_TYPES))
        raise ConfigError(f'--storage-media-type "{media_type}" invalid, allowed values: {allowed}',
                          field="--storage-media-type")


# ----------------------------------------------------------------------- the factory


class APIResourceConfig:
    """Which API groups are enabled (Go's ``APIResourceConfigSource``, by group only).

    ``APIResourceConfig(disabled_groups={"extensions"})``; every group is enabled unless
    disabled. It decides where cohabitating resources live.
    """

    def __init__(self, disabled_groups: Iterable[str] = ()) -> None:
        self.disabled_groups = frozenset(disabled_groups)

    def __repr__(self) -> str:
        return f"APIResourceConfig(disabled_groups={sorted(self.disabled_groups)!r})"

    def any_resource_for_group_enabled(self, group: str) -> bool:
        return group not in self.disabled_groups


@dataclass
class StorageConfig:
    """Where and how one resource is stored (Go's ``storagebackend.Config`` for a resource).

    The factory's base config carries ``prefix`` and ``server_list`` (``--etcd-prefix``,
    ``--etcd-servers``); :meth:`DefaultStorageFactory.new_config` fills in the rest:
    ``codec`` (storage codec), ``encode_versioner``, ``transformer``, ``media_type``,
    ``storage_version``, ``memory_version``, ``group_resource`` and ``resource_prefix``.
    Keys of the resource live under :attr:`key_prefix` (``/registry/minions``).
    """

    prefix: str = DEFAULT_ETCD_PATH_PREFIX
    server_list: list[str] = field(default_factory=list)
    codec: Any = None
    encode_versioner: Any = None
    transformer: Any = None
    media_type: str = ""
    storage_version: GroupVersion | None = None
    memory_version: GroupVersion | None = None
    group_resource: GroupResource | None = None
    resource_prefix: str = ""

    @property
    def key_prefix(self) -> str:
        """``prefix`` joined with ``resource_prefix`` as Go's ``path.Join`` would."""
        parts = [p.strip("/") for p in (self.prefix, self.resource_prefix) if p.strip("/")]
        return ("/" if self.prefix.startswith("/") or not self.prefix else "") + "/".join(parts)

    def resource_key(self, name: str, namespace: str = "") -> str:
        """The key relative to ``prefix``: ``/<resource_prefix>/<namespace>/<name>``.

        What Go's registry hands to storage.Interface, which prepends the etcd prefix.
        """
        base = "/" + self.resource_prefix.strip("/")
        return f"{base}/{namespace}/{name}" if namespace else f"{base}/{name}"

    def key(self, name: str, namespace: str = "") -> str:
        """The etcd key of an object: ``<key_prefix>/<namespace>/<name>`` (no namespace: cluster-scoped)."""
        if namespace:
            return f"{self.key_prefix}/{namespace}/{name}"
        return f"{self.key_prefix}/{name}"


@dataclass
class _Overrides:
    etcd_location: list[str] = field(default_factory=list)
    etcd_prefix: str = ""
    etcd_resource_prefix: str = ""
    media_type: str = ""
    serializer: Any = None
    cohabitating_resources: tuple[GroupResource, ...] = ()
    encoder_decorator: Callable[[Any], Any] | None = None
    decoder_decorator: Callable[[list[Any]], list[Any]] | None = None

    def apply(self, config: StorageConfig, codec_config: StorageCodecConfig) -> None:
        if self.etcd_location:
            config.server_list = list(self.etcd_location)
        if self.etcd_prefix:
            config.prefix = self.etcd_prefix
        if self.media_type:
            codec_config.storage_media_type = self.media_type
        if self.serializer is not None:
            codec_config.storage_serializer = self.serializer
        if self.encoder_decorator is not None:
            codec_config.encoder_decorator = self.encoder_decorator
        if self.decoder_decorator is not None:
            codec_config.decoder_decorator = self.decoder_decorator


def _gr(group_resource: Any) -> GroupResource:
    return GroupResource(*group_resource)


class DefaultStorageFactory:
    """Go's ``DefaultStorageFactory``: the storage config of each GroupResource.

    ``storage_config`` is the base (:class:`StorageConfig`: prefix, servers);
    ``default_media_type`` (``""`` means JSON) and ``default_serializer`` (a
    :class:`~kcodec.serializer.CodecFactory`) apply unless overridden;
    ``resource_encoding_config`` gives storage and memory versions;
    ``special_default_resource_prefixes`` maps resources to their etcd directory
    (:data:`SPECIAL_DEFAULT_RESOURCE_PREFIXES` for kube-apiserver's); ``resource_config``
    (:class:`APIResourceConfig`, all groups enabled by default) decides where cohabitating
    resources live.

    Overrides are kept per GroupResource; ``GroupResource(group, "*")`` is the whole group,
    applied before the resource's own. Example (kube-apiserver's own set-up)::

        factory = DefaultStorageFactory(StorageConfig(server_list=["http://127.0.0.1:2379"]),
                                        CONTENT_TYPE_PROTOBUF, codecs,
                                        DefaultResourceEncodingConfig(codecs.scheme))
        factory.set_transformer(GroupResource("", "secrets"), AESGCMTransformer({"k1": key}))
        cfg = factory.new_config(GroupResource("", "secrets"))
        cfg.codec.encode(secret); cfg.key("db", "default")  # '/registry/secrets/default/db'

    Memory versions default to ``{group, "__internal"}``, which needs a scheme holding the
    internal (hub) types; with external kinds only (``kcodec.api.codecs``), give each
    resource its memory version with ``resource_encoding_config.set_resource_encoding``.
    """

    def __init__(self, storage_config: StorageConfig | None, default_media_type: str, default_serializer: Any,
                 resource_encoding_config: ResourceEncodingConfig,
                 special_default_resource_prefixes: Mapping[GroupResource, str] | None = None,
                 resource_config: Any = None) -> None:
        self.storage_config = storage_config if storage_config is not None else StorageConfig()
        self.default_media_type = default_media_type or CONTENT_TYPE_JSON
        self.default_serializer = default_serializer
        self.resource_encoding_config = resource_encoding_config
        self.default_resource_prefixes = dict(special_default_resource_prefixes or {})
        self.resource_config = resource_config if resource_config is not None else APIResourceConfig()
        self.overrides: dict[GroupResource, _Overrides] = {}
        self.transformers: dict[GroupResource, Any] = {}
        self.new_storage_codec: Callable[[StorageCodecConfig], Any] = new_storage_codec

    def __repr__(self) -> str:
        return (f"DefaultStorageFactory(prefix={self.storage_config.prefix!r}, "
                f"servers={self.storage_config.server_list!r}, media_type={self.default_media_type!r}, "
                f"overrides={len(self.overrides)})")

    def _override(self, group_resource: Any) -> _Overrides:
        gr = _gr(group_resource)
        o = self.overrides.get(gr)
        if o is None:
            o = self.overrides[gr] = _Overrides()
        return o

    # -- overrides ------------------------------------------------------------------------

    def set_etcd_location(self, group_resource: GroupResource, servers: Sequence[str]) -> None:
        """Store ``group_resource`` on other etcd servers (``--etcd-servers-overrides``)."""
        self._override(group_resource).etcd_location = list(servers)

    def set_etcd_prefix(self, group_resource: GroupResource, prefix: str) -> None:
        """Use another etcd prefix (the base directory, ``/registry``) for ``group_resource``."""
        self._override(group_resource).etcd_prefix = prefix

    def set_resource_etcd_prefix(self, group_resource: GroupResource, prefix: str) -> None:
        """Use another directory for the resource under the etcd prefix."""
        self._override(group_resource).etcd_resource_prefix = prefix

    def set_serializer(self, group_resource: GroupResource, media_type: str, serializer: Any = None) -> None:
        """Store ``group_resource`` in ``media_type`` (and with ``serializer``, when given)."""
        o = self._override(group_resource)
        o.media_type = media_type
        o.serializer = serializer

    def add_cohabitating_resources(self, *group_resources: GroupResource) -> None:
        """Link resources stored together; the first whose group is enabled holds the data."""
        grs = tuple(_gr(g) for g in group_resources)
        for gr in grs:
            self._override(gr).cohabitating_resources = grs

    def add_serialization_chains(self, encoder_decorator: Callable[[Any], Any] | None,
                                 decoder_decorator: Callable[[list[Any]], list[Any]] | None,
                                 *group_resources: GroupResource) -> None:
        """Wrap the storage encoder and replace the decoder list for these resources."""
        for gr in group_resources:
            o = self._override(gr)
            o.encoder_decorator = encoder_decorator
            o.decoder_decorator = decoder_decorator

    def set_transformer(self, group_resource: GroupResource, transformer: Any) -> None:
        """Transform values of ``group_resource`` on their way to storage (encryption at rest).

        ``GroupResource(group, "*")`` covers a group and ``GroupResource("*", "*")``
        everything, as the resources of an EncryptionConfiguration do; lookups go exact,
        group, everything, then identity (kube-apiserver's transformer storage factory).
        """
        self.transformers[_gr(group_resource)] = transformer

    def set_transformers(self, overrides: Mapping[GroupResource, Any]) -> None:
        """:meth:`set_transformer` for each entry (what ``load_encryption_config`` returns)."""
        for gr, t in overrides.items():
            self.set_transformer(gr, t)

    def add_json_resource(self, group_resource: GroupResource, storage_version: GroupVersion,
                          memory_version: GroupVersion | None = None, serializer: Any = None) -> None:
        """Configure a resource the way kube-apiserver's delegate servers store theirs.

        JSON, under ``<group>/<resource>`` (apiextensions-apiserver and kube-aggregator use a
        simple storage factory with that layout), written as ``storage_version`` and read as
        ``memory_version`` (default: the storage version; custom resources have no internal
        version). The encoding config must be a :class:`DefaultResourceEncodingConfig` whose
        scheme knows the group: for a custom resource, a scheme where the CRD's kinds are
        registered as ``Unstructured`` (kcodec.api.apiextensions' ``add_custom_resource_definition``).
        """
        gr = _gr(group_resource)
        self.set_serializer(gr, CONTENT_TYPE_JSON, serializer)
        self.set_resource_etcd_prefix(gr, f"{gr.group}/{gr.resource}")
        set_encoding = getattr(self.resource_encoding_config, "set_resource_encoding", None)
        if set_encoding is None:
            raise ConfigError(f"cannot set the storage version of {gr}: the resource encoding config "
                              f"{self.resource_encoding_config!r} has no set_resource_encoding")
        set_encoding(gr, storage_version, memory_version or storage_version)

    # -- lookups --------------------------------------------------------------------------

    def _storage_group_resource(self, gr: GroupResource) -> GroupResource:
        o = self.overrides.get(gr)
        for candidate in (o.cohabitating_resources if o else ()):
            if self.resource_config.any_resource_for_group_enabled(candidate.group):
                return candidate
        return gr

    def resource_prefix(self, group_resource: GroupResource) -> str:
        """The resource's directory under the etcd prefix (``minions`` for nodes, ``pods``...).

        Override of the resource, else of its group, else the special default, else the
        lower-cased resource name, all for the cohabitating resource that holds the data.
        """
        chosen = self._storage_group_resource(_gr(group_resource))
        group_o = self.overrides.get(GroupResource(chosen.group, ALL_RESOURCES))
        exact_o = self.overrides.get(chosen)
        prefix = self.default_resource_prefixes.get(chosen, "")
        if group_o is not None and group_o.etcd_resource_prefix:
            prefix = group_o.etcd_resource_prefix
        if exact_o is not None and exact_o.etcd_resource_prefix:
            prefix = exact_o.etcd_resource_prefix
        return prefix or chosen.resource.lower()

    def transformer_for(self, group_resource: GroupResource) -> Any:
        """The transformer for ``group_resource``: exact, group ``*``, ``*.*``, else identity."""
        return transformer_for_resource(self.transformers, _gr(group_resource))

    def new_config(self, group_resource: GroupResource) -> StorageConfig:
        """The complete storage config of ``group_resource`` (Go's ``NewConfig``).

        The cohabitating resource that holds the data decides servers, prefix, media type,
        serializer and storage version; the requested resource decides the memory version
        and the transformer. Raises :class:`~kcodec.errors.ConfigError` when a group is not
        in the scheme and :class:`~kcodec.errors.KCodecError` when no serializer handles
        the media type.
        """
        gr = _gr(group_resource)
        chosen = self._storage_group_resource(gr)
        config = copy.copy(self.storage_config)
        config.server_list = list(self.storage_config.server_list)
        codec_config = StorageCodecConfig(self.default_media_type, self.default_serializer,
                                          GroupVersion("", ""), GroupVersion("", ""))
        for key in (GroupResource(chosen.group, ALL_RESOURCES), chosen):
            o = self.overrides.get(key)
            if o is not None:
                o.apply(config, codec_config)
        codec_config.storage_version = self.resource_encoding_config.storage_encoding_for(chosen)
        codec_config.memory_version = self.resource_encoding_config.in_memory_encoding_for(gr)
        codec = self.new_storage_codec(codec_config)
        return replace(
            config,
            codec=codec,
            encode_versioner=getattr(codec, "encode_versioner", None),
            transformer=self.transformer_for(gr),
            media_type=codec_config.storage_media_type,
            storage_version=codec_config.storage_version,
            memory_version=codec_config.memory_version,
            group_resource=gr,
            resource_prefix=self.resource_prefix(gr),
        )

    def configs(self) -> list[StorageConfig]:
        """The base config and one per etcd location override (Go's ``Configs``)."""
        out = [copy.copy(self.storage_config)]
        for o in self.overrides.values():
            if not o.etcd_location:
                continue
            cfg = copy.copy(self.storage_config)
            if o.etcd_prefix:
                cfg.prefix = o.etcd_prefix
            cfg.server_list = list(o.etcd_location)
            out.append(cfg)
        return out


def kube_apiserver_storage_factory(
    serializer: Any = None,
    *,
    resource_encoding_config: DefaultResourceEncodingConfig | None = None,
    storage_config: StorageConfig | None = None,
    media_type: str = CONTENT_TYPE_PROTOBUF,
    etcd_servers_overrides: Sequence[str] | str = (),
    resource_encoding_overrides: Iterable[GroupVersionResource] = RESOURCE_ENCODING_OVERRIDES,
    resource_config: Any = None,
    encryption: Mapping[GroupResource, Any] | None = None,
    storage_versions: str = "",
) -> DefaultStorageFactory:
    """The storage factory kube-apiserver 1.36 builds (``completedStorageFactoryConfig.New``).

    ``serializer`` is the CodecFactory over the server's scheme, by default
    ``kcodec.legacyscheme.codecs`` (Go's ``legacyscheme.Codecs``, which holds the internal
    types the default ``__internal`` memory versions need). Built-in kinds are stored as protobuf (``media_type``, kube-apiserver's
    ``--storage-media-type`` default; :func:`validate_storage_media_type` checks it); the
    groups in :data:`JSON_STORED_GROUPS` as JSON under ``<group>/<resource>``. The
    storage-version overrides, cohabitating resources and special prefixes are 1.36's;
    ``etcd_servers_overrides`` is ``--etcd-servers-overrides``; ``encryption`` is what
    :func:`~kcodec.storage.value.load_encryption_config` returns. ``storage_versions`` is
    1.9-1.12's ``--storage-versions`` (``"apps/v1,extensions=apps/v1beta2"``; removed from
    kube-apiserver since): group-wide storage versions under the per-resource overrides.
    """
    validate_storage_media_type(media_type)
    if serializer is None:
        try:
            from kcodec.legacyscheme import codecs as serializer  # type: ignore[no-redef]
        except ImportError:
            raise ConfigError("kube_apiserver_storage_factory needs a serializer: kcodec.legacyscheme (the "
                              "default, with the internal versions) is not available") from None
    scheme = getattr(serializer, "scheme", None)
    encoding = resource_encoding_config or DefaultResourceEncodingConfig(scheme)
    if storage_versions:
        merge_group_encoding_configs(encoding, storage_groups_to_encoding_version(storage_versions))
    merge_resource_encoding_configs(encoding, resource_encoding_overrides)
    factory = DefaultStorageFactory(storage_config, media_type, serializer, encoding,
                                    SPECIAL_DEFAULT_RESOURCE_PREFIXES, resource_config)
    for group in COHABITATING_RESOURCES:
        factory.add_cohabitating_resources(*group)
    for group in JSON_STORED_GROUPS:
        factory.set_serializer(GroupResource(group, ALL_RESOURCES), CONTENT_TYPE_JSON)
    for gr, gv in DELEGATE_STORAGE_VERSIONS.items():
        factory.set_resource_etcd_prefix(gr, f"{gr.group}/{gr.resource}")
        if scheme is not None and scheme.is_version_registered(gv):
            encoding.set_resource_encoding(gr, gv, GroupVersion(gr.group, APIVersionInternal))
    for gr, servers in parse_etcd_servers_overrides(etcd_servers_overrides):
        factory.set_etcd_location(gr, servers)
    if encryption:
        factory.set_transformers(encryption)
    return factory
