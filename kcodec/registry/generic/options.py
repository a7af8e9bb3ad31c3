"""``RESTOptions`` and the storage decorators the generic Store is built with.

Go: apiserver ``pkg/registry/generic/options.go`` (``RESTOptions``, ``RESTOptionsGetter``),
``pkg/registry/generic/storage_decorator.go`` (``UndecoratedStorage``, ``NewRawStorage``),
``pkg/registry/generic/registry/storage_factory.go`` (``StorageWithCacher``) and
``pkg/server/options/etcd.go`` (``StorageFactoryRestOptionsFactory.GetRESTOptions``,
``ParseWatchCacheSizes``).

A decorator is ``decorator(config, resource_prefix, key_func, new_func, new_list_func,
get_attrs, trigger_func=None, indexers=None, *, kv) -> (storage, destroy)``: ``config`` the
resource's :class:`~kcodec.storage.StorageConfig` (codec, transformer, prefix), ``kv`` the
backend the getter opened (SQLite or etcd), ``storage`` what the generic Store calls
(a :class:`kcodec.storage.Store`, or the watch cache in front of one) and ``destroy`` a
callable releasing it.

Backends: one :class:`~kcodec.storage.kv.KV` per distinct server list, shared by every
resource stored there (Go shares one etcd client per transport config the same way). A
server list entry ``sqlite:PATH`` opens the SQLite log at PATH; ``http(s)://...`` entries
are etcd endpoints. Or pass ``kv=`` to the getter.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from kcodec.errors import ConfigError
from kcodec.schema import GroupResource, parse_group_resource

__all__ = [
    "RESTOptions",
    "RESTOptionsGetter",
    "StorageDecorator",
    "undecorated_storage",
    "storage_with_cacher",
    "new_raw_storage",
    "parse_watch_cache_sizes",
    "write_watch_cache_sizes",
    "open_kv",
    "DEFAULT_WATCH_CACHE_SIZE",
]

#: kube-apiserver's default watch cache capacity per resource (``--default-watch-cache-size``).
DEFAULT_WATCH_CACHE_SIZE = 100

StorageDecorator = Callable[..., "tuple[Any, Callable[[], None]]"]


def new_raw_storage(config: Any, new_func: Callable[[], Any], new_list_func: Callable[[], Any],
                    resource_prefix: str = "", *, kv: Any) -> Any:
    """Go's ``generic.NewRawStorage``: the storage.Interface on ``kv`` with the resource's
    codec and transformer (``factory.Create``)."""
    from kcodec.storage.store import Store

    if kv is None:
        raise ConfigError(f"no storage backend for {config.group_resource}: the REST options carry no KV")
    return Store(kv, config.codec, config.prefix, config.transformer, new_func=new_func, new_list_func=new_list_func)


def undecorated_storage(config: Any, resource_prefix: str, key_func: Any, new_func: Callable[[], Any],
                        new_list_func: Callable[[], Any], get_attrs: Any = None, trigger_func: Any = None,
                        indexers: Any = None, *, kv: Any) -> tuple[Any, Callable[[], None]]:
    """Go's ``generic.UndecoratedStorage``: the raw store, no watch cache."""
    store = new_raw_storage(config, new_func, new_list_func, resource_prefix, kv=kv)
    return store, _nothing


def _nothing() -> None:
    return None


def storage_with_cacher(capacity: int = DEFAULT_WATCH_CACHE_SIZE) -> StorageDecorator:
    """Go's ``registry.StorageWithCacher``: the raw store behind a
    :class:`kcodec.storage.cacher.Cacher` of ``capacity`` events; ``destroy`` stops it."""

    def decorator(config: Any, resource_prefix: str, key_func: Any, new_func: Callable[[], Any],
                  new_list_func: Callable[[], Any], get_attrs: Any = None, trigger_func: Any = None,
                  indexers: Any = None, *, kv: Any) -> tuple[Any, Callable[[], None]]:
        from kcodec.storage.cacher import Cacher  # the watch cache sits beside the store

        raw = new_raw_storage(config, new_func, new_list_func, resource_prefix, kv=kv)
        cacher = Cacher(raw, resource_prefix=resource_prefix, capacity=capacity, new_func=new_func,
                        new_list_func=new_list_func, get_attrs=get_attrs)
        return cacher, cacher.stop

    decorator.capacity = capacity  # type: ignore[attr-defined]
    decorator.__name__ = f"storage_with_cacher({capacity})"
    return decorator


def parse_watch_cache_sizes(cache_sizes: Iterable[str]) -> dict[GroupResource, int]:
    """Go's ``ParseWatchCacheSizes``: ``resource[.group]#size`` entries, with Go's errors
    (:class:`~kcodec.errors.ConfigError`, also a ValueError)."""
    out: dict[GroupResource, int] = {}
    for c in cache_sizes:
        tokens = c.split("#")
        if len(tokens) != 2:
            raise ConfigError(f"invalid value of watch cache size: {c}")
        size = _atoi(tokens[1])
        if size is None:
            raise ConfigError(f"invalid size of watch cache size: {c}")
        if size < 0:
            raise ConfigError(f"watch cache size cannot be negative: {c}")
        out[parse_group_resource(tokens[0])] = size
    return out


def _atoi(s: str) -> int | None:
    """Go's ``strconv.Atoi``: optional sign, ASCII digits only, int64 range."""
    body = s[1:] if s[:1] in ("+", "-") else s
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(s)
    if not -(1 << 63) <= value < (1 << 63):
        return None
    return value


def write_watch_cache_sizes(sizes: Mapping[GroupResource, int]) -> list[str]:
    """Go's ``WriteWatchCacheSizes``."""
    out = []
    for gr, size in sizes.items():
        if size < 0:
            raise ConfigError(f"watch cache size cannot be negative for resource {gr}")
        out.append(f"{gr}#{size}")
    return out


@dataclass
class RESTOptions:
    """Go's ``generic.RESTOptions`` for one resource.

    ``storage_config`` (the factory's :class:`~kcodec.storage.StorageConfig`),
    ``decorator`` (:func:`undecorated_storage` or :func:`storage_with_cacher`),
    ``resource_prefix`` (the key directory, ``/pods``, ``/minions``...),
    ``enable_garbage_collection`` (deletes record the orphan/foregroundDeletion finalizers),
    ``delete_collection_workers`` and ``kv`` (the backend the decorator builds on).
    A RESTOptions is also a getter of itself (Go's ``RESTOptions.GetRESTOptions``).
    """

    storage_config: Any
    decorator: StorageDecorator = undecorated_storage
    enable_garbage_collection: bool = True
    delete_collection_workers: int = 1
    resource_prefix: str = ""
    count_metric_poll_period: float = 0.0
    kv: Any = None

    def get_rest_options(self, resource: GroupResource, example: Any = None) -> RESTOptions:
        return self


def open_kv(server_list: list[str], **options: Any) -> Any:
    """The backend a server list names: ``["sqlite:PATH"]`` or etcd URLs."""
    if not server_list:
        raise ConfigError("no storage servers configured: give sqlite:PATH or etcd URLs")
    first = server_list[0]
    if first.startswith("sqlite:"):
        if len(server_list) != 1:
            raise ConfigError(f"a SQLite backend is one file, got {server_list!r}")
        from kcodec.storage.sqlite import SQLiteKV

        return SQLiteKV(first[len("sqlite:"):], **options)
    from kcodec.storage.etcd3 import Etcd3KV

    return Etcd3KV(list(server_list), **options)


class RESTOptionsGetter:
    """Go's ``StorageFactoryRestOptionsFactory``: RESTOptions per resource from a storage factory.

    ``storage_factory`` is a :class:`~kcodec.storage.DefaultStorageFactory` (e.g.
    :func:`kcodec.storage.kube_apiserver_storage_factory`). The watch cache is on by
    default (``enable_watch_cache``) with ``default_watch_cache_size`` events per
    resource; ``watch_cache_sizes`` (``--watch-cache-sizes`` entries or a parsed dict)
    gives per-resource sizes, 0 turning the cache off for that resource. ``kv`` is the
    backend for every resource; without it each distinct server list of the factory's
    configs opens one (:func:`open_kv`), closed by :meth:`close`.
    """

    def __init__(self, storage_factory: Any, *, kv: Any = None, enable_watch_cache: bool = True,
                 default_watch_cache_size: int = DEFAULT_WATCH_CACHE_SIZE,
                 watch_cache_sizes: Iterable[str] | Mapping[GroupResource, int] | None = None,
                 enable_garbage_collection: bool = True, delete_collection_workers: int = 1,
                 kv_options: Mapping[str, Any] | None = None) -> None:
        self.storage_factory = storage_factory
        self.enable_watch_cache = enable_watch_cache
        self.default_watch_cache_size = default_watch_cache_size
        if watch_cache_sizes is None:
            self.watch_cache_sizes: dict[GroupResource, int] = {}
        elif isinstance(watch_cache_sizes, Mapping):
            self.watch_cache_sizes = {GroupResource(*k): int(v) for k, v in watch_cache_sizes.items()}
        else:
            self.watch_cache_sizes = parse_watch_cache_sizes(list(watch_cache_sizes))
        self.enable_garbage_collection = enable_garbage_collection
        self.delete_collection_workers = delete_collection_workers
        self.kv_options = dict(kv_options or {})
        self._kv = kv
        self._kvs: dict[tuple[str, ...], Any] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (f"RESTOptionsGetter({self.storage_factory!r}, watch_cache={self.enable_watch_cache}, "
                f"default_watch_cache_size={self.default_watch_cache_size})")

    def kv_for(self, config: Any) -> Any:
        """The backend of ``config`` (shared per server list)."""
        if self._kv is not None:
            return self._kv
        key = tuple(config.server_list)
        with self._lock:
            kv = self._kvs.get(key)
            if kv is None:
                kv = self._kvs[key] = open_kv(list(key), **self.kv_options)
            return kv

    def get_rest_options(self, resource: GroupResource, example: Any = None) -> RESTOptions:
        resource = GroupResource(*resource)
        config = self.storage_factory.new_config(resource)
        opts = RESTOptions(storage_config=config, decorator=undecorated_storage,
                           enable_garbage_collection=self.enable_garbage_collection,
                           delete_collection_workers=self.delete_collection_workers,
                           resource_prefix=self.storage_factory.resource_prefix(resource),
                           kv=self.kv_for(config))
        if self.enable_watch_cache:
            size = self.watch_cache_sizes.get(resource)
            if size is not None and size <= 0:
                opts.decorator = undecorated_storage
            else:
                opts.decorator = storage_with_cacher(size if size else self.default_watch_cache_size)
        return opts

    def close(self) -> None:
        """Close the backends this getter opened (not a ``kv`` it was given)."""
        with self._lock:
            kvs, self._kvs = list(self._kvs.values()), {}
        for kv in kvs:
            kv.close()

    def __enter__(self) -> RESTOptionsGetter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class StoreOptions:
    """Go's ``generic.StoreOptions``: what ``Store.complete_with_options`` needs."""

    rest_options: Any
    attr_func: Any = None
    trigger_func: Any = None
    indexers: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
