"""``kcodec etcd``: read kube-apiserver's data in etcd (or in kcodec's SQLite store), like auger.

``get KEY``, ``list PREFIX`` and ``watch PREFIX`` read raw values from the backend, undo
encryption at rest with an EncryptionConfiguration when given (the key is the
authenticated data, as kube-apiserver writes it), decode whatever format the value is in
(protobuf, JSON, CBOR) and print YAML or JSON, with
``metadata.resourceVersion`` set from the revision as the API server would. ``decode``
does the same for one raw value from a file or stdin (e.g. ``etcdctl get --print-value-only``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from kcodec.cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_USAGE
from kcodec.cli._io import Progress, file_error, report

__all__ = ["register", "decode_value", "DEFAULT_ENDPOINT"]

DEFAULT_ENDPOINT = "http://127.0.0.1:2379"

_EPILOG = """\
examples:
  # one object, decrypted with the API server's encryption config
  kcodec etcd get /registry/secrets/default/db-password \\
      --endpoints https://10.0.0.2:2379 --encryption-provider-config /etc/kubernetes/enc.yaml

  # every Pod of a namespace as YAML, from kcodec's embedded SQLite store
  kcodec etcd list /registry/pods/default --sqlite cluster.db

  # keys only
  kcodec etcd list /registry/deployments --keys-only

  # follow changes for 30 seconds, as JSON lines
  kcodec etcd watch /registry/configmaps -o json --for 30

  # a raw value from etcdctl
  ETCDCTL_API=3 etcdctl get /registry/pods/default/web --print-value-only | kcodec etcd decode
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "etcd",
        help="read kube-apiserver's objects from etcd or kcodec's SQLite store (like auger)",
        description="Read the objects kube-apiserver keeps in etcd (or that kcodec keeps in its embedded "
        "SQLite store): decrypt them with an EncryptionConfiguration, decode protobuf, JSON or CBOR, "
        "and print YAML or JSON.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="etcd_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: _usage(p))

    def backend_args(sp: argparse.ArgumentParser) -> None:
        where = sp.add_mutually_exclusive_group()
        where.add_argument("--endpoints", metavar="URL,...",
                           help=f"etcd client URLs, comma-separated (default {DEFAULT_ENDPOINT})")
        where.add_argument("--sqlite", metavar="PATH", help="read kcodec's SQLite store instead of etcd")
        sp.add_argument("--prefix", default="/registry",
                        help="the API server's --etcd-prefix, joined to keys that lack it (default /registry)")
        sp.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS",
                        help="give up on an unreachable etcd after this long (default 5)")
        common_args(sp)

    def common_args(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--encryption-provider-config", metavar="FILE",
                        help="an apiserver.config.k8s.io/v1 EncryptionConfiguration to decrypt values with")
        sp.add_argument("-o", "--output", choices=("yaml", "json"), default="yaml", help="output format (default yaml)")

    g = sub.add_parser("get", help="print the object at KEY", description="Print the object stored at KEY.",
                       epilog="example:\n  kcodec etcd get /registry/pods/default/web -o json",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    g.add_argument("key", metavar="KEY", help="the etcd key, e.g. /registry/pods/default/web")
    backend_args(g)
    g.set_defaults(func=_run_get)

    ls = sub.add_parser("list", help="print every object under PREFIX",
                        description="Print every object whose key starts with PREFIX/ (YAML documents, or a JSON List).",
                        epilog="example:\n  kcodec etcd list /registry/pods/kube-system --sqlite cluster.db",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ls.add_argument("key", metavar="PREFIX", help="a key prefix, e.g. /registry/pods or /registry/pods/default")
    ls.add_argument("--keys-only", action="store_true", help="print the keys, not the objects")
    backend_args(ls)
    ls.set_defaults(func=_run_list)

    w = sub.add_parser("watch", help="print changes under PREFIX as they happen",
                       description="Print every change under PREFIX (after --resource-version, else from now) "
                       "as watch events: YAML documents, or one JSON object per line.",
                       epilog="example:\n  kcodec etcd watch /registry/pods --resource-version 1200 --max-events 10",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    w.add_argument("key", metavar="PREFIX", help="a key prefix, or one key")
    w.add_argument("--resource-version", default="", metavar="RV", help="report changes after this revision")
    w.add_argument("--max-events", type=int, default=0, metavar="N", help="stop after N events")
    w.add_argument("--for", dest="duration", type=float, default=0.0, metavar="SECONDS",
                   help="stop after this many seconds")
    backend_args(w)
    w.set_defaults(func=_run_watch)

    d = sub.add_parser("decode", help="decode one raw etcd value",
                       description="Decode one raw value as etcd holds it (protobuf, JSON or CBOR; encrypted "
                       "when --encryption-provider-config and --key are given).",
                       epilog="example:\n  etcdctl get /registry/pods/default/web --print-value-only | kcodec etcd decode",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    d.add_argument("-f", "--filename", default="-", metavar="PATH", help="the raw value (default: stdin)")
    d.add_argument("--key", default="", help="the value's etcd key (needed to decrypt: it is authenticated data)")
    common_args(d)
    d.set_defaults(func=_run_decode)


class _Failure(Exception):
    """A one-line error for stderr, and the exit status."""

    def __init__(self, message: str, status: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.status = status


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return EXIT_USAGE


def _guard(fn):
    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except _Failure as exc:
            report(str(exc))
            return exc.status
    return run


# ------------------------------------------------------------------ decoding

def _codecs():
    from kcodec.api import codecs

    return codecs


def decode_value(data: bytes, key: str = "", transformers: Any = None) -> tuple[Any, bool]:
    """Decrypt (when ``transformers`` is given) and decode one stored value.

    Returns ``(object, stale)``; typed when the kind is known, else ``Unstructured``
    (JSON). Raises :class:`kcodec.errors.DecodeError` naming the key.
    """
    from kcodec.errors import DecodeError, KCodecError, NotRegisteredError
    from kcodec.runtime import Unstructured

    where = f"{key}: " if key else ""
    stale = False
    if data.startswith(b"k8s:enc:"):
        provider = data.split(b":", 5)[:5]
        label = b":".join(provider).decode("ascii", "replace")
        if transformers is None:
            raise DecodeError(f"{where}value is encrypted ({label}); pass --encryption-provider-config")
        if not key:
            raise DecodeError(f"value is encrypted ({label}); pass --key: the key is its authenticated data")
        errors = []
        for t in transformers:
            try:
                data, stale = t.transform_from_storage(data, key.encode("utf-8"))
                break
            except KCodecError as exc:
                errors.append(str(exc))
        else:
            raise DecodeError(f"{where}cannot decrypt ({label}): {errors[0] if errors else 'no provider'}")
    try:
        if data.startswith(b"k8s\x00"):
            obj, _ = _codecs().universal_deserializer().decode(data)
            return obj, stale
        if data[:3] == b"\xd9\xd9\xf7":
            from kcodec.api import scheme
            from kcodec.serializer import cbor

            obj, _ = cbor.Serializer(scheme, scheme).decode(data)
            return obj, stale
        stripped = data.lstrip()
        if stripped.startswith(b"{"):
            try:
                obj, _ = _codecs().universal_deserializer().decode(data)
                return obj, stale
            except NotRegisteredError:
                content = json.loads(data)
                return Unstructured(content), stale
    except (KCodecError, ValueError) as exc:
        raise DecodeError(f"{where}{exc}") from None
    raise DecodeError(f"{where}not a Kubernetes object (no protobuf, JSON or CBOR header): {data[:16]!r}")


def _set_rv(obj: Any, rev: int) -> None:
    from kcodec.storage.store import _set_rv as set_rv

    set_rv(obj, rev)


def _render(obj: Any, fmt: str) -> bytes:
    for info in _codecs().supported_media_types():
        if fmt == "json" and info.media_type == "application/json":
            return info.pretty_serializer.encode(obj) + b"\n"
        if fmt == "yaml" and info.media_type == "application/yaml":
            return info.serializer.encode(obj)
    raise _Failure(f"no serializer for {fmt}")  # pragma: no cover - both are always there


def _out(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


# ------------------------------------------------------------------ backends

def _transformers(args: argparse.Namespace) -> list[Any] | None:
    path = getattr(args, "encryption_provider_config", None)
    if not path:
        return None
    from kcodec.errors import KCodecError
    from kcodec.storage.value import load_encryption_config

    try:
        overrides = load_encryption_config(path)
    except FileNotFoundError as exc:
        raise _Failure(file_error(path, exc)) from None
    except (KCodecError, OSError) as exc:
        raise _Failure(f"{path}: {exc}") from None
    unique: list[Any] = []
    for t in overrides.values():
        if all(t is not u for u in unique):
            unique.append(t)
    return unique


def _open_kv(args: argparse.Namespace) -> Any:
    if args.sqlite:
        if not os.path.exists(args.sqlite):
            raise _Failure(file_error(args.sqlite, FileNotFoundError(2, "No such file or directory")))
        from kcodec.storage.sqlite import SQLiteKV

        try:
            return SQLiteKV(args.sqlite, busy_timeout=args.timeout)
        except Exception as exc:
            raise _Failure(f"{args.sqlite}: not a kcodec SQLite store: {exc}") from None
    from kcodec.storage.etcd3 import Etcd3KV

    try:
        return Etcd3KV(args.endpoints or DEFAULT_ENDPOINT, timeout=args.timeout,
                       request_timeout=min(args.timeout, 3.0), fail_when_refused=True)
    except ValueError as exc:
        raise _Failure(str(exc), EXIT_USAGE) from None
    except Exception as exc:
        raise _Failure(str(exc)) from None


def _full_key(args: argparse.Namespace, key: str) -> str:
    prefix = "/" + args.prefix.strip("/") if args.prefix.strip("/") else ""
    if not key:
        raise _Failure("empty key", EXIT_USAGE)
    if prefix and (key == prefix or key.startswith(prefix + "/")):
        return key
    return prefix + "/" + key.lstrip("/")


def _backend_errors(fn):
    def run(args: argparse.Namespace) -> int:
        from kcodec.errors import KCodecError
        from kcodec.storage.errors import StorageTimeoutError, UnreachableError

        where = args.sqlite or args.endpoints or DEFAULT_ENDPOINT
        try:
            return fn(args)
        except (UnreachableError, StorageTimeoutError) as exc:
            if "connection refused by every" in str(exc.detail):
                raise _Failure(f"{where}: unreachable: {exc.detail}") from None
            raise _Failure(f"{where}: unreachable after {args.timeout:g}s ({exc.detail})") from None
        except KCodecError as exc:
            raise _Failure(str(exc)) from None
    return run


# ------------------------------------------------------------------ commands

@_guard
@_backend_errors
def _run_get(args: argparse.Namespace) -> int:
    from kcodec.errors import DecodeError

    key = _full_key(args, args.key)
    transformers = _transformers(args)
    kv = _open_kv(args)
    try:
        found, _ = kv.get(key.encode("utf-8"))
        if found is None:
            raise _Failure(f'key "{key}" not found')
        try:
            obj, _ = decode_value(found.value, key, transformers)
        except DecodeError as exc:
            raise _Failure(str(exc)) from None
        _set_rv(obj, found.mod_revision)
        _out(_render(obj, args.output))
    finally:
        kv.close()
    return EXIT_OK


@_guard
@_backend_errors
def _run_list(args: argparse.Namespace) -> int:
    from kcodec.errors import DecodeError
    from kcodec.storage.kv import prefix_range_end

    prefix = _full_key(args, args.key).rstrip("/") + "/"
    transformers = None if args.keys_only else _transformers(args)
    kv = _open_kv(args)
    status = EXIT_OK
    items: list[bytes] = []
    progress = Progress("keys")
    try:
        start, end = prefix.encode("utf-8"), prefix_range_end(prefix.encode("utf-8"))
        revision = 0
        first = True
        while True:
            page = kv.range(start, end, revision=revision, limit=500)
            revision = revision or page.revision
            for found in page.kvs:
                key = found.key.decode("utf-8", "surrogateescape")
                if args.keys_only:
                    _out(key.encode("utf-8", "surrogateescape") + b"\n")
                    continue
                try:
                    obj, _ = decode_value(found.value, key, transformers)
                except DecodeError as exc:
                    progress.done()
                    report(str(exc))
                    progress.step(failed=True)
                    status = EXIT_BAD_INPUT
                    continue
                progress.step()
                _set_rv(obj, found.mod_revision)
                if args.output == "yaml":
                    _out((b"" if first else b"---\n") + _render(obj, "yaml"))
                    first = False
                else:
                    items.append(_render(obj, "json"))
            if not page.more:
                break
            start = page.kvs[-1].key + b"\x00"
        if args.output == "json" and not args.keys_only:
            body = [json.loads(i) for i in items]
            doc = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": str(revision)}, "items": body}
            _out(json.dumps(doc, indent=4, ensure_ascii=False).encode("utf-8") + b"\n")
    finally:
        progress.done()
        kv.close()
    return status


@_guard
@_backend_errors
def _run_watch(args: argparse.Namespace) -> int:
    from kcodec.errors import DecodeError
    from kcodec.storage.kv import CompactedError, prefix_range_end
    from kcodec.storage.store import _parse_rv

    key = _full_key(args, args.key)
    transformers = _transformers(args)
    kv = _open_kv(args)
    try:
        try:
            after = _parse_rv(args.resource_version) if args.resource_version else 0
        except ValueError as exc:
            raise _Failure(str(exc), EXIT_USAGE) from None
        start = after + 1 if after else kv.current_revision() + 1
        bkey = key.rstrip("/").encode("utf-8")
        single = kv.get(bkey)[0] is not None
        if not single:
            bkey += b"/"
        try:
            w = kv.watch(bkey, None if single else prefix_range_end(bkey), start)
        except CompactedError as exc:
            raise _Failure(f"too old resource version: {after} ({exc.compact_revision})") from None
        count = 0
        deadline = time.monotonic() + args.duration if args.duration else None
        first = True
        try:
            while deadline is None or time.monotonic() < deadline:
                left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
                try:
                    batch = w.next_batch(min(left, 1.0) if left is not None else 1.0)
                except CompactedError as exc:
                    raise _Failure(f"too old resource version: {start - 1} ({exc.compact_revision})") from None
                for ev in batch:
                    k = ev.kv.key.decode("utf-8", "surrogateescape")
                    if ev.type == "DELETE":
                        typ, source, rev = "DELETED", ev.prev_kv, ev.kv.mod_revision
                    else:
                        typ, source, rev = ("ADDED" if ev.is_create else "MODIFIED"), ev.kv, ev.kv.mod_revision
                    try:
                        obj, _ = decode_value(source.value if source else b"", k, transformers)
                    except DecodeError as exc:
                        raise _Failure(str(exc)) from None
                    _set_rv(obj, rev)
                    body = json.loads(_render(obj, "json"))
                    if args.output == "json":
                        _out(json.dumps({"type": typ, "object": body}, separators=(",", ":"),
                                        ensure_ascii=False).encode("utf-8") + b"\n")
                    else:
                        text = _render(obj, "yaml").decode("utf-8")
                        indented = "".join("  " + line if line.strip() else line for line in text.splitlines(True))
                        _out(((b"" if first else b"---\n") + f"type: {typ}\nobject:\n{indented}".encode("utf-8")))
                        first = False
                    count += 1
                    if args.max_events and count >= args.max_events:
                        return EXIT_OK
        finally:
            w.close()
    finally:
        kv.close()
    return EXIT_OK


@_guard
def _run_decode(args: argparse.Namespace) -> int:
    from kcodec.errors import DecodeError

    if args.filename == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        try:
            with open(args.filename, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise _Failure(file_error(args.filename, exc)) from None
        name = args.filename
    transformers = _transformers(args)
    try:
        obj, _ = decode_value(data, args.key, transformers)
    except DecodeError as exc:
        if not data.endswith(b"\n"):
            raise _Failure(f"{name}: {exc}") from None
        # etcdctl --print-value-only ends the value with a newline of its own.
        try:
            obj, _ = decode_value(data[:-1], args.key, transformers)
        except DecodeError:
            raise _Failure(f"{name}: {exc}") from None
    _out(_render(obj, args.output))
    return EXIT_OK
