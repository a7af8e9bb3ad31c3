"""RESTOptions and the storage decorators (apiserver pkg/registry/generic/options.go,
storage_decorator.go, pkg/server/options/etcd.go ParseWatchCacheSizes), and the list
options the endpoint handlers build (selectors parsed, field labels converted)."""
from __future__ import annotations

import pytest

from kcodec.api import errors as apierrors
from kcodec.api.meta.v1 import ListOptions as V1ListOptions
from kcodec.errors import ConfigError
from kcodec.registry import rest
from kcodec.registry.generic import (
    RESTOptions,
    RESTOptionsGetter,
    parse_watch_cache_sizes,
    undecorated_storage,
    write_watch_cache_sizes,
)
from kcodec.schema import GroupResource, GroupVersionKind
from kcodec.storage import StorageConfig, kube_apiserver_storage_factory
from kcodec.storage.store import Store


def test_parse_watch_cache_sizes():
    assert parse_watch_cache_sizes(["pods#100", "deployments.apps#0", "nodes#+5"]) == {
        GroupResource("", "pods"): 100, GroupResource("apps", "deployments"): 0, GroupResource("", "nodes"): 5}
    for entry, message in [
        ("pods", "invalid value of watch cache size: pods"),
        ("pods#1#2", "invalid value of watch cache size: pods#1#2"),
        ("pods#x", "invalid size of watch cache size: pods#x"),
        ("pods#", "invalid size of watch cache size: pods#"),
        ("pods#-1", "watch cache size cannot be negative: pods#-1"),
    ]:
        with pytest.raises(ConfigError) as e:
            parse_watch_cache_sizes([entry])
        assert str(e.value) == message
    assert sorted(write_watch_cache_sizes({GroupResource("apps", "deployments"): 3})) == ["deployments.apps#3"]


def _getter(tmp_path, **kwargs):
    factory = kube_apiserver_storage_factory(
        storage_config=StorageConfig(server_list=[f"sqlite:{tmp_path / 'db'}"]))
    return RESTOptionsGetter(factory, **kwargs)


def test_rest_options_from_the_factory(tmp_path):
    with _getter(tmp_path) as getter:
        opts = getter.get_rest_options(GroupResource("", "nodes"))
        assert opts.resource_prefix == "minions"
        assert opts.storage_config.memory_version.version == "__internal"
        assert opts.decorator.capacity == 100  # watch cache on by default
        assert opts.enable_garbage_collection and opts.kv is getter.get_rest_options(GroupResource("", "pods")).kv
    with _getter(tmp_path, watch_cache_sizes=["pods#0", "secrets#7"]) as getter:
        assert getter.get_rest_options(GroupResource("", "pods")).decorator is undecorated_storage
        assert getter.get_rest_options(GroupResource("", "secrets")).decorator.capacity == 7
    with _getter(tmp_path, enable_watch_cache=False) as getter:
        opts = getter.get_rest_options(GroupResource("apps", "deployments"))
        assert opts.decorator is undecorated_storage
        store, destroy = opts.decorator(opts.storage_config, "/deployments", None, lambda: None, lambda: None,
                                        kv=opts.kv)
        assert isinstance(store, Store) and destroy() is None
    assert isinstance(RESTOptions(storage_config=None).get_rest_options(GroupResource("", "x")), RESTOptions)
    with pytest.raises(ConfigError):
        RESTOptionsGetter(kube_apiserver_storage_factory(), watch_cache_sizes=["bad"])


def test_list_options_from_query_parameters():
    pod = GroupVersionKind("", "v1", "Pod")
    opts = rest.ListOptions.from_metav1(V1ListOptions(label_selector="app in (a,b),!tier", field_selector=
                                                      "spec.nodeName=n1,status.phase!=Running", limit=5,
                                                      resource_version="10",
                                                      resource_version_match="NotOlderThan"), kind=pod)
    assert str(opts.label_selector) == "app in (a,b),!tier"  # sorted by key, as Go prints it
    assert str(opts.field_selector) == "spec.nodeName=n1,status.phase!=Running"
    assert (opts.limit, opts.resource_version, opts.resource_version_match) == (5, "10", "NotOlderThan")
    with pytest.raises(apierrors.StatusError) as e:
        rest.ListOptions.from_metav1(V1ListOptions(field_selector="spec.foo=bar"), kind=pod)
    assert (e.value.code, str(e.value)) == (400, "field label not supported: spec.foo")
    with pytest.raises(apierrors.StatusError) as e:
        rest.ListOptions.from_metav1(V1ListOptions(field_selector="spec.nodeName=a"),
                                     kind=GroupVersionKind("", "v1", "ConfigMap"))
    assert str(e.value) == '"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"'
    with pytest.raises(apierrors.StatusError) as e:
        rest.ListOptions.from_metav1(V1ListOptions(label_selector="a=b,,"))
    assert (e.value.code, str(e.value)) == (400, "found ',', expected: identifier after ','")


@pytest.mark.parametrize("params,message", [
    (dict(resource_version_match="Exact"),
     'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden '
     'unless resourceVersion is provided'),
    (dict(resource_version="0", resource_version_match="Exact"),
     'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is '
     'forbidden for resourceVersion "0"'),
    (dict(resource_version="1", resource_version_match="Newest"),
     'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: '
     '"Exact", "NotOlderThan", ""'),
    (dict(send_initial_events=True),
     'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'),
    (dict(watch=True, send_initial_events=True),
     'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting '
     'resourceVersionMatch to NotOlderThan'),
    (dict(watch=True, resource_version_match="NotOlderThan"),
     'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for '
     'watch unless sendInitialEvents is provided'),
])
def test_list_options_validation(params, message):
    """apimachinery pkg/apis/meta/internalversion/validation ValidateListOptions."""
    with pytest.raises(apierrors.StatusError) as e:
        rest.ListOptions.from_metav1(V1ListOptions(**params))
    assert (e.value.code, str(e.value)) == (422, message)
    rest.ListOptions.from_metav1(V1ListOptions(watch=True, send_initial_events=True,
                                               resource_version_match="NotOlderThan"))


def test_getter_starts_a_compactor_per_backend(tmp_path):
    import time

    from kcodec.api.core import internal as core
    from kcodec.registry.builtin import new_store, resource_info
    from kcodec.registry.request import Context

    with _getter(tmp_path, enable_watch_cache=False, compaction_interval=0.2) as getter:
        store = new_store(resource_info("", "configmaps"), getter)
        assert len(getter.compactors) == 1
        for i in range(3):
            cm = core.ConfigMap(data={"i": str(i)})
            cm.metadata.name = f"c{i}"
            store.create(Context(namespace="default"), cm)
        deadline = time.monotonic() + 5
        while getter.compactors[0].compact_revision < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert getter.compactors[0].compact_revision >= 2  # history compacted one interval behind
    assert getter.compactors == []
    with _getter(tmp_path, compaction_interval=0) as getter:
        getter.get_rest_options(GroupResource("", "pods"))
        assert getter.compactors == []
