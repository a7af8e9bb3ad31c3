"""The storage factory (kcodec.storage.factory) against apiserver's pkg/server/storage and
kube-apiserver 1.36's default_storage_factory_builder.go.

The built-in kinds come from kcodec.api (external versions). Hub (``__internal``) types
are not in kcodec.api, so the default memory version is proven with an internal Pod
registered here with conversion functions, as a server scheme would register its own.
"""
from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from kcodec.api.core import v1 as corev1
from kcodec.api.meta.v1 import ObjectMeta
from kcodec.conversion import copy_fields
from kcodec.errors import ConfigError, KCodecError
from kcodec.model import field
from kcodec.runtime import Object, Scheme
from kcodec.schema import APIVersionInternal, GroupResource, GroupVersion, GroupVersionResource
from kcodec.serializer import CodecFactory
from kcodec.storage.factory import (
    CONTENT_TYPE_JSON,
    CONTENT_TYPE_PROTOBUF,
    CONTENT_TYPE_YAML,
    SPECIAL_DEFAULT_RESOURCE_PREFIXES,
    APIResourceConfig,
    DefaultResourceEncodingConfig,
    DefaultStorageFactory,
    StorageConfig,
    kube_apiserver_storage_factory,
    merge_group_encoding_configs,
    merge_resource_encoding_configs,
    parse_etcd_servers_overrides,
    storage_groups_to_encoding_version,
    validate_storage_media_type,
)
from kcodec.storage.value import (
    AESGCMTransformer,
    IdentityTransformer,
    PrefixTransformers,
    load_encryption_config,
)

PODS = GroupResource("", "pods")
SECRETS = GroupResource("", "secrets")
CORE_V1 = GroupVersion("", "v1")


class InternalPod(Object):
    """A hub Pod: what the server holds in memory (same fields as v1, its own type)."""

    metadata: ObjectMeta = field(1, "metadata", omitempty=True)
    spec: corev1.PodSpec = field(2, "spec", omitempty=True)
    status: corev1.PodStatus = field(3, "status", omitempty=True)


class APIService(Object):
    """A stand-in for kube-aggregator's APIService (only what the test needs)."""

    metadata: ObjectMeta = field(1, "metadata", omitempty=True)


def _copy(src: Any, dst: Any, scope: Any) -> None:
    copy_fields(src, dst, scope)


def server_scheme() -> Scheme:
    """External kinds of core, apps, coordination, events + an internal Pod + a fake APIService."""
    import importlib

    s = Scheme("storage-factory-test")
    for mod in ("core.v1", "apps.v1", "extensions.v1beta1", "events.v1", "coordination.v1",
                "coordination.v1beta1", "networking.v1"):
        importlib.import_module(f"kcodec.api.{mod}").add_to_scheme(s)
    s.add_known_type_with_name(GroupVersion("", APIVersionInternal).with_kind("Pod"), InternalPod)
    s.add_conversion_func(InternalPod, corev1.Pod, _copy)
    s.add_conversion_func(corev1.Pod, InternalPod, _copy)
    s.add_known_type_with_name(GroupVersion("apiregistration.k8s.io", "v1").with_kind("APIService"), APIService)
    return s


SCHEME = server_scheme()
CODECS = CodecFactory(SCHEME)


def factory(media_type: str = CONTENT_TYPE_PROTOBUF, **kw: Any) -> DefaultStorageFactory:
    return DefaultStorageFactory(StorageConfig(server_list=["https://etcd-0:2379"]), media_type, CODECS,
                                 DefaultResourceEncodingConfig(SCHEME), SPECIAL_DEFAULT_RESOURCE_PREFIXES, **kw)


def a_pod(cls: type = corev1.Pod) -> Any:
    return cls(metadata=ObjectMeta(name="web", namespace="default"),
               spec=corev1.PodSpec(containers=[corev1.Container(name="c", image="nginx:1.27")]))


# ----------------------------------------------------------------------- resource encoding config


def test_default_resource_encoding_config() -> None:
    cfg = DefaultResourceEncodingConfig(SCHEME)
    assert cfg.storage_encoding_for(PODS) == CORE_V1
    assert cfg.storage_encoding_for(GroupResource("apps", "deployments")) == GroupVersion("apps", "v1")
    # Go's default memory version: the group's internal version
    assert cfg.in_memory_encoding_for(PODS) == GroupVersion("", "__internal")
    assert cfg.in_memory_encoding_for(GroupResource("apps", "deployments")) == GroupVersion("apps", "__internal")
    cfg.set_resource_encoding(GroupResource("coordination.k8s.io", "leases"),
                              GroupVersion("coordination.k8s.io", "v1beta1"), GroupVersion("coordination.k8s.io", "v1"))
    assert cfg.storage_encoding_for(GroupResource("coordination.k8s.io", "leases")) == GroupVersion(
        "coordination.k8s.io", "v1beta1")
    assert cfg.in_memory_encoding_for(GroupResource("coordination.k8s.io", "leases")) == GroupVersion(
        "coordination.k8s.io", "v1")
    with pytest.raises(ConfigError, match='^group "widgets.example.com" is not registered in scheme$'):
        cfg.storage_encoding_for(GroupResource("widgets.example.com", "widgets"))
    with pytest.raises(ConfigError, match='^group "widgets.example.com" is not registered in scheme$'):
        cfg.in_memory_encoding_for(GroupResource("widgets.example.com", "widgets"))


def test_merge_resource_encoding_configs_keeps_internal_memory_version() -> None:
    cfg = merge_resource_encoding_configs(DefaultResourceEncodingConfig(SCHEME), [
        GroupVersionResource("coordination.k8s.io", "v1beta1", "leasecandidates")])
    gr = GroupResource("coordination.k8s.io", "leasecandidates")
    assert cfg.storage_encoding_for(gr) == GroupVersion("coordination.k8s.io", "v1beta1")
    assert cfg.in_memory_encoding_for(gr) == GroupVersion("coordination.k8s.io", "__internal")


def test_group_encoding_from_storage_versions_under_resource_overrides() -> None:
    cfg = merge_group_encoding_configs(DefaultResourceEncodingConfig(SCHEME), storage_groups_to_encoding_version(
        "extensions=apps/v1,coordination.k8s.io/v1beta1"))
    deployments = GroupResource("extensions", "deployments")
    assert cfg.storage_encoding_for(deployments) == GroupVersion("apps", "v1")
    assert cfg.in_memory_encoding_for(deployments) == GroupVersion("extensions", "__internal")
    leases = GroupResource("coordination.k8s.io", "leases")
    assert cfg.storage_encoding_for(leases) == GroupVersion("coordination.k8s.io", "v1beta1")
    cfg.set_resource_encoding(leases, GroupVersion("coordination.k8s.io", "v1"), GroupVersion("coordination.k8s.io", "v1"))
    assert cfg.storage_encoding_for(leases) == GroupVersion("coordination.k8s.io", "v1")
    assert cfg.storage_encoding_for(GroupResource("apps", "deployments")) == GroupVersion("apps", "v1")
    # through the builder: 1.9-1.12's --storage-versions flag
    f = kube_apiserver_storage_factory(CODECS, resource_encoding_config=DefaultResourceEncodingConfig(SCHEME),
                                       storage_versions="coordination.k8s.io/v1beta1")
    assert f.new_config(leases).storage_version == GroupVersion("coordination.k8s.io", "v1beta1")
    with pytest.raises(ConfigError, match="^unexpected GroupVersion string: a/b/c$"):
        kube_apiserver_storage_factory(CODECS, resource_encoding_config=DefaultResourceEncodingConfig(SCHEME),
                                       storage_versions="a/b/c")


def test_storage_groups_to_encoding_version() -> None:
    defaults = "apps/v1,batch/v1,v1,extensions/v1beta1"
    got = storage_groups_to_encoding_version("batch/v1beta1,extensions=apps/v1beta2,,", defaults)
    assert got == {"apps": GroupVersion("apps", "v1"), "batch": GroupVersion("batch", "v1beta1"),
                   "": GroupVersion("", "v1"), "extensions": GroupVersion("apps", "v1beta2")}
    assert storage_groups_to_encoding_version("", "") == {}
    with pytest.raises(ConfigError, match="^unexpected GroupVersion string: a/b/c$") as info:
        storage_groups_to_encoding_version("a/b/c", defaults)
    assert info.value.field == "--storage-versions"
    with pytest.raises(ConfigError, match="^unexpected GroupVersion string: x/y/z$"):
        storage_groups_to_encoding_version("", "g=x/y/z")


# ----------------------------------------------------------------------- flags


def test_parse_etcd_servers_overrides() -> None:
    assert parse_etcd_servers_overrides(["/pods#http://etcd4:2379;http://etcd5:2379", "apps/deployments#http://e6"]) == [
        (PODS, ["http://etcd4:2379", "http://etcd5:2379"]),
        (GroupResource("apps", "deployments"), ["http://e6"])]
    assert parse_etcd_servers_overrides("/pods#a,/events#b") == [(PODS, ["a"]), (GroupResource("", "events"), ["b"])]
    assert parse_etcd_servers_overrides([]) == []
    for bad in ("/pods", "/pods#a#b", "pods#a", "a/b/c#x", "/pods#", "/pods#a;;b", "/pods#a;"):
        with pytest.raises(ConfigError, match=r"^--etcd-servers-overrides invalid, must be of format: "
                                              r"group/resource#servers, where servers are URLs, semicolon separated$"):
            parse_etcd_servers_overrides([bad])


def test_validate_storage_media_type() -> None:
    for ok in ("", CONTENT_TYPE_JSON, CONTENT_TYPE_YAML, CONTENT_TYPE_PROTOBUF):
        validate_storage_media_type(ok)
    with pytest.raises(ConfigError, match=r'^--storage-media-type "application/cbor" invalid, allowed values: '
                                          r'application/json, application/vnd.kubernetes.protobuf, application/yaml$'):
        validate_storage_media_type("application/cbor")


# ----------------------------------------------------------------------- prefixes


@pytest.mark.parametrize("gr, prefix", [
    (GroupResource("", "nodes"), "minions"),
    (GroupResource("", "services"), "services/specs"),
    (GroupResource("", "endpoints"), "services/endpoints"),
    (GroupResource("", "replicationcontrollers"), "controllers"),
    (GroupResource("networking.k8s.io", "ingresses"), "ingress"),
    (GroupResource("extensions", "ingresses"), "ingress"),
    (PODS, "pods"),
    (GroupResource("apps", "Deployments"), "deployments"),
])
def test_special_resource_prefixes(gr: GroupResource, prefix: str) -> None:
    assert factory().resource_prefix(gr) == prefix


def test_resource_prefix_overrides_group_then_resource() -> None:
    f = factory()
    f.set_resource_etcd_prefix(GroupResource("", "*"), "core-things")
    assert f.resource_prefix(PODS) == "core-things"
    assert f.resource_prefix(GroupResource("", "nodes")) == "core-things"  # group beats the special default
    f.set_resource_etcd_prefix(PODS, "my-pods")
    assert f.resource_prefix(PODS) == "my-pods"


# ----------------------------------------------------------------------- new_config


def test_new_config_with_external_memory_version_protobuf() -> None:
    f = factory()
    f.resource_encoding_config.set_resource_encoding(PODS, CORE_V1, CORE_V1)
    cfg = f.new_config(PODS)
    assert (cfg.prefix, cfg.server_list, cfg.media_type) == ("/registry", ["https://etcd-0:2379"], CONTENT_TYPE_PROTOBUF)
    assert (cfg.storage_version, cfg.memory_version, cfg.group_resource) == (CORE_V1, CORE_V1, PODS)
    assert cfg.key("web", "default") == "/registry/pods/default/web"
    assert cfg.key_prefix == "/registry/pods"
    assert cfg.resource_key("web", "default") == "/pods/default/web"
    assert f.new_config(GroupResource("", "nodes")).resource_key("n1") == "/minions/n1"
    assert isinstance(cfg.transformer, IdentityTransformer)
    data = cfg.codec.encode(a_pod())
    assert data.startswith(b"k8s\x00\n\t\n\x02v1\x12\x03Pod")
    obj, gvk = cfg.codec.decode(data)
    assert type(obj) is corev1.Pod and obj.spec.containers[0].image == "nginx:1.27"
    # data other servers wrote as JSON is still read (the universal decoder stands behind)
    js = CODECS.legacy_codec(CORE_V1).encode(a_pod())
    assert cfg.codec.decode(js)[0].metadata.name == "web"


def test_new_config_default_memory_version_is_internal() -> None:
    cfg = factory().new_config(PODS)
    assert cfg.memory_version == GroupVersion("", "__internal") and cfg.storage_version == CORE_V1
    data = cfg.codec.encode(a_pod(InternalPod))
    external, _ = CODECS.universal_deserializer().decode(data)
    assert type(external) is corev1.Pod and external.metadata.name == "web"
    back, _ = cfg.codec.decode(data)
    assert type(back) is InternalPod and back.spec.containers[0].image == "nginx:1.27"


def test_new_config_json_and_overrides_alias_then_resource() -> None:
    f = factory(media_type="")  # "" is JSON, as in Go
    f.resource_encoding_config.set_resource_encoding(PODS, CORE_V1, CORE_V1)
    assert f.new_config(PODS).media_type == CONTENT_TYPE_JSON
    assert f.new_config(PODS).codec.encode(a_pod()).startswith(b'{"kind":"Pod","apiVersion":"v1"')
    f.set_serializer(GroupResource("", "*"), CONTENT_TYPE_YAML)
    assert f.new_config(PODS).codec.encode(a_pod()).startswith(b"apiVersion: v1\nkind: Pod\n")
    f.set_serializer(PODS, CONTENT_TYPE_PROTOBUF)
    assert f.new_config(PODS).codec.encode(a_pod()).startswith(b"k8s\x00")
    assert f.new_config(GroupResource("", "configmaps")).media_type == CONTENT_TYPE_YAML
    f.set_etcd_prefix(GroupResource("", "*"), "/other")
    f.set_etcd_location(PODS, ["https://etcd-pods:2379"])
    cfg = f.new_config(PODS)
    assert (cfg.prefix, cfg.server_list, cfg.key("a", "ns")) == ("/other", ["https://etcd-pods:2379"], "/other/pods/ns/a")
    assert f.new_config(GroupResource("", "configmaps")).server_list == ["https://etcd-0:2379"]
    assert f.storage_config.server_list == ["https://etcd-0:2379"] and f.storage_config.prefix == "/registry"
    assert [c.server_list for c in f.configs()] == [["https://etcd-0:2379"], ["https://etcd-pods:2379"]]


def test_new_config_serializer_override_and_bad_media_type() -> None:
    other = CodecFactory(SCHEME, pretty=False)
    f = factory()
    f.set_serializer(PODS, CONTENT_TYPE_JSON, other)
    f.resource_encoding_config.set_resource_encoding(PODS, CORE_V1, CORE_V1)
    cfg = f.new_config(PODS)
    assert cfg.codec.encode(a_pod()).startswith(b'{"kind":"Pod"')
    f.set_serializer(PODS, "application/cbor")
    with pytest.raises(KCodecError, match=r'^unable to find serializer for "application/cbor", supported media types: '
                                          r'\[application/json application/yaml application/vnd.kubernetes.protobuf\]$'):
        f.new_config(PODS)
    f.set_serializer(PODS, "not a/media type")
    with pytest.raises(KCodecError, match=r'^"not a/media type" is not a valid mime-type$'):
        f.new_config(PODS)
    with pytest.raises(ConfigError, match='group "example.com" is not registered in scheme'):
        f.new_config(GroupResource("example.com", "things"))


def test_transformer_lookup_exact_group_everything_identity() -> None:
    f = factory()
    secrets_t, apps_t, all_t = (AESGCMTransformer({k: os.urandom(32)}) for k in ("s", "a", "all"))
    f.set_transformer(SECRETS, secrets_t)
    f.set_transformer(GroupResource("apps", "*"), apps_t)
    assert f.new_config(SECRETS).transformer is secrets_t
    assert f.new_config(GroupResource("apps", "deployments")).transformer is apps_t
    assert isinstance(f.new_config(GroupResource("", "configmaps")).transformer, IdentityTransformer)
    f.set_transformer(GroupResource("*", "*"), all_t)
    assert f.new_config(GroupResource("", "configmaps")).transformer is all_t


# ----------------------------------------------------------------------- cohabitation


def test_cohabitating_resources_store_where_the_first_enabled_group_says() -> None:
    f = kube_apiserver_storage_factory(CODECS, resource_encoding_config=DefaultResourceEncodingConfig(SCHEME))
    ext = f.new_config(GroupResource("extensions", "deployments"))
    assert ext.storage_version == GroupVersion("apps", "v1")
    assert ext.memory_version == GroupVersion("extensions", "__internal")
    assert ext.key_prefix == "/registry/deployments"
    ev = f.new_config(GroupResource("events.k8s.io", "events"))
    assert ev.storage_version == CORE_V1 and ev.memory_version == GroupVersion("events.k8s.io", "__internal")
    assert f.resource_prefix(GroupResource("events.k8s.io", "events")) == "events"
    assert f.resource_prefix(GroupResource("extensions", "ingresses")) == "ingress"
    assert f.resource_prefix(GroupResource("extensions", "replicationcontrollers")) == "controllers"
    # with apps disabled the extensions group holds deployments
    off = kube_apiserver_storage_factory(CODECS, resource_encoding_config=DefaultResourceEncodingConfig(SCHEME),
                                         resource_config=APIResourceConfig(disabled_groups={"apps"}))
    assert off.new_config(GroupResource("apps", "deployments")).storage_version == GroupVersion("extensions", "v1beta1")


# ----------------------------------------------------------------------- kube-apiserver 1.36


def test_kube_apiserver_factory_defaults() -> None:
    f = kube_apiserver_storage_factory(
        CODECS, resource_encoding_config=DefaultResourceEncodingConfig(SCHEME),
        storage_config=StorageConfig(server_list=["https://etcd:2379"]),
        etcd_servers_overrides=["/events#https://etcd-events:2379"])
    assert f.default_media_type == CONTENT_TYPE_PROTOBUF
    assert f.new_config(GroupResource("", "events")).server_list == ["https://etcd-events:2379"]
    assert f.new_config(GroupResource("events.k8s.io", "events")).server_list == ["https://etcd-events:2379"]
    assert f.new_config(GroupResource("", "nodes")).key("n1") == "/registry/minions/n1"
    # 1.36 keeps leasecandidates at v1beta1 for one more release
    lc = f.new_config(GroupResource("coordination.k8s.io", "leasecandidates"))
    assert lc.storage_version == GroupVersion("coordination.k8s.io", "v1beta1")
    assert f.new_config(GroupResource("coordination.k8s.io", "leases")).storage_version == GroupVersion(
        "coordination.k8s.io", "v1")
    # APIServices: JSON under <group>/<resource>, written as v1 (kube-aggregator's codec)
    apis = GroupResource("apiregistration.k8s.io", "apiservices")
    assert f.resource_encoding_config.storage_encoding_for(apis) == GroupVersion("apiregistration.k8s.io", "v1")
    assert f.resource_encoding_config.in_memory_encoding_for(apis) == GroupVersion("apiregistration.k8s.io",
                                                                                   "__internal")
    f.resource_encoding_config.set_resource_encoding(GroupResource("apiregistration.k8s.io", "apiservices"),
                                                     GroupVersion("apiregistration.k8s.io", "v1"),
                                                     GroupVersion("apiregistration.k8s.io", "v1"))
    api = f.new_config(GroupResource("apiregistration.k8s.io", "apiservices"))
    assert api.media_type == CONTENT_TYPE_JSON
    assert api.key("v1.example.com") == "/registry/apiregistration.k8s.io/apiservices/v1.example.com"
    stored = api.codec.encode(APIService(metadata=ObjectMeta(name="v1.example.com")))
    assert json.loads(stored) == {"kind": "APIService", "apiVersion": "apiregistration.k8s.io/v1",
                                  "metadata": {"name": "v1.example.com"}}
    with pytest.raises(ConfigError, match=r"^--etcd-servers-overrides invalid"):
        kube_apiserver_storage_factory(CODECS, resource_encoding_config=DefaultResourceEncodingConfig(SCHEME),
                                       etcd_servers_overrides=["events#x"])
    with pytest.raises(ConfigError, match=r'^--storage-media-type "text/plain" invalid'):
        kube_apiserver_storage_factory(CODECS, media_type="text/plain")


def test_kube_apiserver_factory_defaults_to_the_legacy_scheme() -> None:
    try:
        import kcodec.legacyscheme as legacy
    except ImportError:
        with pytest.raises(ConfigError, match="^kube_apiserver_storage_factory needs a serializer: "
                                              "kcodec.legacyscheme"):
            kube_apiserver_storage_factory()
        return
    f = kube_apiserver_storage_factory()
    assert f.default_serializer is legacy.codecs
    cfg = f.new_config(GroupResource("apps", "deployments"))
    assert cfg.storage_version == GroupVersion("apps", "v1")
    assert cfg.memory_version == GroupVersion("apps", "__internal")


def test_add_json_resource_for_custom_resources() -> None:
    f = factory()
    gr = GroupResource("apps", "widgets")  # a group the scheme knows, standing in for a CRD's
    f.add_json_resource(gr, GroupVersion("apps", "v1"))
    cfg = f.new_config(gr)
    assert cfg.media_type == CONTENT_TYPE_JSON
    assert cfg.storage_version == cfg.memory_version == GroupVersion("apps", "v1")
    assert cfg.key("w", "ns") == "/registry/apps/widgets/ns/w"


def test_seed_flow_secret_encrypted_with_aesgcm(tmp_path: Path) -> None:
    """Factory + encryption config: the bytes a Secret becomes are what kube-apiserver writes."""
    key = os.urandom(32)
    conf = tmp_path / "enc.yaml"
    conf.write_text("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
                    "- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n      - name: key1\n"
                    f"        secret: {base64.b64encode(key).decode()}\n  - identity: {{}}\n")
    f = kube_apiserver_storage_factory(CODECS, resource_encoding_config=DefaultResourceEncodingConfig(SCHEME),
                                       encryption=load_encryption_config(conf))
    f.resource_encoding_config.set_resource_encoding(SECRETS, CORE_V1, CORE_V1)
    cfg = f.new_config(SECRETS)
    assert isinstance(cfg.transformer, PrefixTransformers)
    secret = corev1.Secret(metadata=ObjectMeta(name="db", namespace="default"), data={"password": b"hunter2"})
    etcd_key = cfg.key("db", "default")
    stored = cfg.transformer.transform_to_storage(cfg.codec.encode(secret), etcd_key.encode())
    prefix = b"k8s:enc:aesgcm:v1:key1:"
    assert stored.startswith(prefix) and b"hunter2" not in stored
    body = stored[len(prefix):]
    plain = AESGCM(key).decrypt(body[:12], body[12:], etcd_key.encode())
    assert plain.startswith(b"k8s\x00")  # protobuf, as 1.36 stores built-in kinds
    read, stale = cfg.transformer.transform_from_storage(stored, etcd_key.encode())
    assert not stale and cfg.codec.decode(read)[0].data == {"password": b"hunter2"}
    # a Pod is not encrypted: identity for resources the config does not list
    assert isinstance(f.new_config(PODS).transformer, IdentityTransformer)


def test_factory_config_drives_the_embedded_store(tmp_path: Path) -> None:
    """new_config's codec, prefix, keys and transformer, handed to the SQLite store: the raw
    value under /registry/secrets/<ns>/<name> is kube-apiserver's aesgcm-over-protobuf."""
    from kcodec.storage.sqlite import SQLiteStore

    key = os.urandom(32)
    f = kube_apiserver_storage_factory(CODECS, resource_encoding_config=DefaultResourceEncodingConfig(SCHEME),
                                       encryption={SECRETS: AESGCMTransformer({"key1": key})})
    f.resource_encoding_config.set_resource_encoding(SECRETS, CORE_V1, CORE_V1)
    cfg = f.new_config(SECRETS)
    store = SQLiteStore(tmp_path / "cluster.db", cfg.codec, prefix=cfg.prefix, transformer=cfg.transformer)
    created = store.create(cfg.resource_key("db", "default"),
                           corev1.Secret(metadata=ObjectMeta(name="db", namespace="default"),
                                         data={"password": b"hunter2"}))
    assert created.metadata.resource_version
    etcd_key = cfg.key("db", "default").encode()
    raw = store.kv.get(etcd_key)[0].value
    prefix = b"k8s:enc:aesgcm:v1:key1:"
    assert raw.startswith(prefix) and b"hunter2" not in raw
    plain = AESGCM(key).decrypt(raw[len(prefix):len(prefix) + 12], raw[len(prefix) + 12:], etcd_key)
    secret, _ = CODECS.universal_deserializer().decode(plain)
    assert plain.startswith(b"k8s\x00") and secret.data == {"password": b"hunter2"}
    assert store.get(cfg.resource_key("db", "default")).data == {"password": b"hunter2"}
