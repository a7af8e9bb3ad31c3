"""The generic registry (apiserver ``pkg/registry/generic`` and ``generic/registry``):
the :class:`Store` every resource is served by, its RESTOptions and storage decorators,
and the selection predicate."""
from kcodec.registry.generic.matcher import (
    SelectionPredicate,
    attr_func_with_fields,
    default_cluster_scoped_attr,
    default_namespace_scoped_attr,
    object_meta_fields_set,
)
from kcodec.registry.generic.options import (
    DEFAULT_WATCH_CACHE_SIZE,
    RESTOptions,
    RESTOptionsGetter,
    StoreOptions,
    new_raw_storage,
    open_kv,
    parse_watch_cache_sizes,
    storage_with_cacher,
    undecorated_storage,
    write_watch_cache_sizes,
)
from kcodec.registry.generic.store import ERROR, RegistryWatcher, Store

__all__ = [
    "Store",
    "RegistryWatcher",
    "ERROR",
    "SelectionPredicate",
    "attr_func_with_fields",
    "default_cluster_scoped_attr",
    "default_namespace_scoped_attr",
    "object_meta_fields_set",
    "DEFAULT_WATCH_CACHE_SIZE",
    "RESTOptions",
    "RESTOptionsGetter",
    "StoreOptions",
    "new_raw_storage",
    "open_kv",
    "parse_watch_cache_sizes",
    "storage_with_cacher",
    "undecorated_storage",
    "write_watch_cache_sizes",
]
