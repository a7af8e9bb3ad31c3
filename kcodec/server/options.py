"""What ``kcodec serve`` is configured with, and building the registry from it.

Go: k8s.io/kubernetes cmd/kube-apiserver/app/options and apiserver pkg/server/options (etcd
options: the storage factory, ``--encryption-provider-config``, ``--watch-cache-sizes``,
``--storage-versions``). ``--storage`` names the backend: ``sqlite:PATH`` (the embedded
default), ``sqlite::memory:`` (a database that lives as long as the server: a file in a
private temporary directory, on tmpfs when the machine has /dev/shm, since each SQLite
connection to ``:memory:`` would be a database of its own) or ``etcd:URL[,URL...]``.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any

from kcodec.errors import ConfigError

__all__ = ["ServerOptions", "parse_storage", "Backend", "DEFAULT_CONTROLLERS"]

#: The control-plane loops ``--controllers`` switches (all on by default).
DEFAULT_CONTROLLERS: tuple[str, ...] = ("system-namespaces", "namespace-lifecycle", "namespace", "serviceaccount",
                                         "garbagecollector")


@dataclass
class ServerOptions:
    """The options of ``kcodec serve`` (and of :class:`kcodec.testing.APIServer`)."""

    storage: str = "sqlite:kcodec.db"
    bind: str = "127.0.0.1"
    port: int = 0
    kubeconfig: str = ""
    tls: bool = False
    token: str = ""
    encryption_provider_config: str = ""
    storage_versions: str = ""
    watch_cache_sizes: list[str] = field(default_factory=list)
    controllers: list[str] = field(default_factory=lambda: list(DEFAULT_CONTROLLERS))
    watch_cache: bool = True
    etcd_prefix: str = "/registry"
    cbor: bool = False
    #: Seconds an Event is kept after its last write (``--event-ttl``, kube-apiserver's 1h).
    event_ttl: float = 3600.0


@dataclass
class Backend:
    """A parsed ``--storage``: the storage factory's server list and what to remove at stop."""

    server_list: list[str]
    description: str
    temp_dir: str = ""

    def cleanup(self) -> None:
        """Remove the private directory of ``sqlite::memory:``."""
        if self.temp_dir:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = ""


def parse_storage(spec: str) -> Backend:
    """``sqlite:PATH`` | ``sqlite::memory:`` | ``etcd:URL[,URL...]`` to a :class:`Backend`."""
    if spec == "sqlite::memory:":
        base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        tmp = tempfile.mkdtemp(prefix="kcodec-serve-", dir=base)
        return Backend([f"sqlite:{os.path.join(tmp, 'kcodec.db')}"], "sqlite::memory:", tmp)
    if spec.startswith("sqlite:"):
        path = spec[len("sqlite:"):]
        if not path:
            raise ConfigError(f"--storage {spec!r}: sqlite: needs a file path (or sqlite::memory:)")
        return Backend([f"sqlite:{path}"], spec)
    if spec.startswith("etcd:"):
        urls = [u.strip() for u in spec[len("etcd:"):].split(",") if u.strip()]
        if not urls:
            raise ConfigError(f"--storage {spec!r}: etcd: needs at least one URL")
        for u in urls:
            if not u.startswith(("http://", "https://")):
                raise ConfigError(f"--storage {spec!r}: {u!r} is not an http:// or https:// URL")
        return Backend(urls, spec)
    raise ConfigError(f"--storage {spec!r}: expected sqlite:PATH, sqlite::memory: or etcd:URL[,URL...]")


def build_rest_options_getter(options: ServerOptions, backend: Backend) -> Any:
    """The storage factory kube-apiserver builds, and the RESTOptionsGetter over it."""
    from kcodec.registry.generic import RESTOptionsGetter
    from kcodec.storage.factory import StorageConfig, kube_apiserver_storage_factory

    encryption = None
    if options.encryption_provider_config:
        from kcodec.storage.value import load_encryption_config

        encryption = load_encryption_config(options.encryption_provider_config)
    factory = kube_apiserver_storage_factory(storage_config=StorageConfig(prefix=options.etcd_prefix,
                                                                                server_list=list(backend.server_list)),
                                             encryption=encryption, storage_versions=options.storage_versions)
    return RESTOptionsGetter(factory, enable_watch_cache=options.watch_cache,
                             watch_cache_sizes=list(options.watch_cache_sizes))
