"""``kcodec serve``: the Kubernetes REST API over kcodec's registry, on SQLite or etcd.

Prints one line with the server's URL once ``/readyz`` is ok (and, with ``--kubeconfig``,
after writing a kubeconfig kubectl and client libraries can use); SIGTERM and SIGINT stop it
cleanly (listener closed, watches ended, storage closed). Exit status 1 when it cannot start
(bad ``--storage``, an unreadable encryption config, a port in use).
"""
from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from kcodec.cli import EXIT_BAD_INPUT, EXIT_OK

__all__ = ["register", "run", "options_from_args"]

_EPILOG = """\
examples:
  # an API server on an embedded SQLite file, kubeconfig for kubectl
  kcodec serve --storage sqlite:cluster.db --port 6443 --kubeconfig kubeconfig
  kubectl --kubeconfig kubeconfig get namespaces

  # HTTPS with a generated self-signed certificate and a bearer token, a free port
  kcodec serve --storage sqlite::memory: --tls --token s3cret --port 0 --kubeconfig kc

  # several servers on one etcd cluster serve one cluster
  kcodec serve --storage etcd:http://127.0.0.1:2379,http://127.0.0.1:22379
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve",
        help="serve the Kubernetes REST API (kubectl, client libraries) on SQLite or etcd",
        description="Serve the Kubernetes REST API as kube-apiserver 1.36 does: discovery, "
        "every verb on the built-in resources, watches, JSON/YAML/protobuf, Status errors. "
        "Prints one line with the URL once /readyz is ok.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--storage", default="sqlite:kcodec.db",
                   help="sqlite:PATH | sqlite::memory: | etcd:URL[,URL...] (default: sqlite:kcodec.db)")
    p.add_argument("--bind", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=6443, help="port to listen on; 0 picks a free one (default: 6443)")
    p.add_argument("--kubeconfig", default="", help="write a kubeconfig reaching this server to FILE")
    p.add_argument("--tls", action="store_true", help="serve HTTPS with a generated self-signed certificate")
    p.add_argument("--token", default="", help="the bearer token clients must send (default: none required)")
    p.add_argument("--encryption-provider-config", default="", metavar="FILE",
                   help="EncryptionConfiguration for encryption at rest, as kube-apiserver's")
    p.add_argument("--storage-versions", default="", metavar="GROUP/VERSION,...",
                   help="storage versions per group, e.g. apps/v1,extensions=apps/v1beta2")
    p.add_argument("--watch-cache-sizes", default="", metavar="RESOURCE[.GROUP]#SIZE,...",
                   help="watch cache sizes per resource (0 turns the cache off for it)")
    p.add_argument("--event-ttl", default="1h0m0s", metavar="DURATION",
                   help="amount of time to retain events, a Go duration such as 30m or 2h (default: 1h0m0s)")
    p.add_argument("--controllers", default="", metavar="LIST|none",
                   help="control-plane loops to run, comma-separated, or none "
                   "(default: system-namespaces)")
    p.set_defaults(func=run)


def options_from_args(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The :class:`~kcodec.server.options.ServerOptions` the command line asks for."""
    from kcodec.server.options import DEFAULT_CONTROLLERS, ServerOptions

    if args.controllers == "none":
        controllers: list[str] = []
    elif args.controllers:
        from kcodec.errors import ConfigError

        controllers = [c.strip() for c in args.controllers.split(",") if c.strip()]
        unknown = [c for c in controllers if c not in DEFAULT_CONTROLLERS]
        if unknown:
            raise ConfigError(f"--controllers: unknown controller {unknown[0]!r} "
                              f"(known: {', '.join(DEFAULT_CONTROLLERS)}, or none)")
    else:
        controllers = list(DEFAULT_CONTROLLERS)
    sizes = [s.strip() for s in args.watch_cache_sizes.split(",") if s.strip()]
    return ServerOptions(storage=args.storage, bind=args.bind, port=args.port, kubeconfig=args.kubeconfig,
                         tls=args.tls, token=args.token, encryption_provider_config=args.encryption_provider_config,
                         storage_versions=args.storage_versions, watch_cache_sizes=sizes, controllers=controllers,
                         event_ttl=_event_ttl(args.event_ttl))


def _event_ttl(text: str) -> float:
    """``--event-ttl``: a Go duration, in seconds; pflag's error text when it is not one."""
    from kcodec.api.meta.v1 import Duration
    from kcodec.errors import ConfigError, KCodecError

    try:
        nanoseconds = Duration.parse(text).nanoseconds
    except KCodecError as err:
        raise ConfigError(f'invalid argument "{text}" for "--event-ttl" flag: {err}') from None
    return nanoseconds / 1e9


async def _serve(options) -> int:  # type: ignore[no-untyped-def]
    from kcodec.server.runner import ServerRunner

    runner = ServerRunner(options)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        url = await runner.start()
    except Exception as err:  # noqa: BLE001 - one line for the operator, as kube-apiserver exits
        await runner.stop()
        sys.stderr.write(f"kcodec serve: {err}\n")
        return EXIT_BAD_INPUT
    sys.stdout.write(f"kcodec serve: listening on {url}\n")
    sys.stdout.flush()
    await stop.wait()
    await runner.stop()
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from kcodec.errors import ConfigError

    try:
        options = options_from_args(args)
    except ConfigError as err:
        sys.stderr.write(f"kcodec serve: {err}\n")
        return EXIT_BAD_INPUT
    return asyncio.run(_serve(options))
