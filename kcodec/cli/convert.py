"""``kcodec convert``: ``kubectl convert --local`` on files, directories and stdin.

Each document (YAML ``---`` streams, JSON object streams, ``v1 List`` items, or one
``k8s\\x00`` protobuf object) is decoded with the legacy scheme, defaulted as its version's
defaults say, converted to the internal version and then to the output version (default: the
preferred version of the object's group; extensions/v1beta1 objects go to the group that now
serves them), as kubectl-convert does. One object is printed as is; several are printed as
one ``v1 List``, as kubectl does. A document that cannot be decoded or converted is reported
on stderr (one line naming the file and the document) and skipped; the exit status is then 1.

Versions Kubernetes no longer serves, and those k8s.io/api no longer has
(``kcodec.api.removed``), convert too; a ``Warning:`` line on stderr says since which
release the version is gone and what replaced it, and a kind kcodec cannot convert
(PodSecurityPolicy, ...) is reported with the reason.
"""
from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path
from typing import Any, Iterator

from kcodec.cli import EXIT_USAGE
from kcodec.cli._io import Progress, file_error, no_manifests, report

__all__ = ["register", "run"]

_EPILOG = """\
examples:
  # an apps/v1beta1 Deployment as apps/v1 (the group's preferred version)
  kcodec convert -f deployment-v1beta1.yaml
  # an extensions/v1beta1 Ingress as networking.k8s.io/v1, printed as JSON
  kcodec convert -f ingress.yaml --output-version networking.k8s.io/v1 -o json
  # every manifest of a directory, and stdin
  kcodec convert -f manifests/ -f - < more.yaml
  # the protobuf bytes kube-apiserver would store
  kcodec convert -f deployment.yaml -o protobuf > deployment.pb
  # an autoscaling/v2beta2 HPA (gone from Kubernetes 1.36) as autoscaling/v2
  kcodec convert -f hpa-v2beta2.yaml

versions Kubernetes no longer serves (a "Warning:" line on stderr says since when):
{served}

versions gone from k8s.io/api too, read with the types, conversions and defaults of the
last release that had them:
{removed}

not convertible (reported as errors, with the reason):
{refused}
"""


def _epilog() -> str:
    from kcodec.api.removed import NO_LONGER_SERVED, REMOVED

    def line(r: Any) -> str:
        kinds = f" {', '.join(r.kinds)}" if r.kinds else ""
        return f"  {r.group_version}{kinds}"

    served = [f"{line(r)}: since {r.removed_in}" for r in NO_LONGER_SERVED]
    removed = [f"{line(r)}: since {r.removed_in}, types until {r.types_until} -> {r.successor}"
               for r in REMOVED if r.module is not None]
    refused = [f"{line(r)} (removed in {r.removed_in}): {r.why}" for r in REMOVED if r.module is None]
    return _EPILOG.format(served="\n".join(served), removed="\n".join(removed),
                          refused="\n".join(refused))

_EXTENSIONS = (".yaml", ".yml", ".json")
_PROTOBUF_MAGIC = b"k8s\x00"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "convert",
        help="convert manifests between API versions (kubectl convert --local)",
        description="Convert Kubernetes manifests to another API version through the "
        "internal version, with the source version's defaults applied, as "
        "'kubectl convert --local' does. Reads YAML (multi-document), JSON (object "
        "streams) and k8s protobuf; v1 Lists are converted item by item.",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-f", "--filename", action="append", required=True, metavar="PATH",
                   help="file or directory to convert ('-' for stdin); repeatable")
    p.add_argument("--output-version", metavar="GROUP/VERSION", default="", type=_group_version,
                   help="target version (default: the preferred version of each object's group)")
    p.add_argument("-o", "--output", choices=("yaml", "json", "protobuf"), default="yaml",
                   help="output format (default yaml)")
    p.set_defaults(func=run)


def _group_version(text: str) -> str:
    """``--output-version``'s syntax (schema.ParseGroupVersion); a bad one is a usage error."""
    from kcodec.errors import KCodecError
    from kcodec.schema import parse_group_version

    try:
        parse_group_version(text)
    except (KCodecError, ValueError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _unknown_output_version(text: str) -> str | None:
    """Why ``--output-version`` names no version of the legacy scheme, or None when it
    names one (each object is then checked against its own kind's versions)."""
    from kcodec import legacyscheme
    from kcodec.schema import parse_group_version

    gv = parse_group_version(text)
    versions = legacyscheme.served_versions(gv.group)
    if gv in versions:
        return None
    if not versions:
        return f"--output-version {text}: no group {gv.group!r} in kcodec.legacyscheme"
    return (f"--output-version {text}: not a version of {gv.group or 'the core group'} ("
            + ", ".join(str(v) for v in versions) + ")")


class _Failure(Exception):
    """A document that could not be converted (already located)."""


def _sources(paths: list[str]) -> Iterator[tuple[str, bytes]]:
    for path in paths:
        if path == "-":
            yield "<stdin>", sys.stdin.buffer.read()
            continue
        p = Path(path)
        if p.is_dir():
            found = False
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(_EXTENSIONS):
                        f = Path(root) / name
                        found = True
                        yield str(f), f.read_bytes()
            if not found:
                raise FileNotFoundError(no_manifests(path, True))
        else:
            yield path, p.read_bytes()


def _documents(data: bytes) -> Iterator[bytes]:
    """The documents of one input, as JSON bytes (protobuf kept as is)."""
    if data.startswith(_PROTOBUF_MAGIC):
        yield data
        return
    from kcodec import gojson as _gojson
    from kcodec import speedups
    from kcodec.yamlutil import YAMLOrJSONDecoder

    for tree in YAMLOrJSONDecoder(io.BytesIO(data), fast_tree=speedups.yaml_block_tree):
        if tree is None:
            continue
        yield _gojson.dumps(tree)


def _target(obj: Any, output_version: str) -> Any:
    from kcodec import legacyscheme
    from kcodec.schema import parse_group_version

    if output_version:
        return parse_group_version(output_version)
    s = legacyscheme.scheme
    internal = legacyscheme.to_internal(obj, default=False)
    kinds, _ = s.object_kinds(internal)
    group = obj.get_object_kind().group_version_kind().group
    if group == "extensions":
        # extensions/v1beta1 is only an old spelling: its kinds are served by apps and
        # networking.k8s.io now (the internal type's own group)
        home = type(internal).__module__.split(".")[2]
        group = next((k.group for k in kinds if k.group != "extensions"
                      and k.group.split(".")[0] == home), kinds[0].group)
    kind = obj.get_object_kind().group_version_kind().kind
    for gv in s.prioritized_versions_for_group(group):
        # the preferred version that has the kind (certificates.k8s.io/v1 has no
        # PodCertificateRequest: v1beta1 does)
        if gv.version != "__internal" and s.recognizes(gv.with_kind(kind)):
            return gv
    return legacyscheme.preferred_version(group)


def _notice(gvk: Any) -> str | None:
    """The removal notice for objects of ``gvk`` (kcodec.api.removed), if any."""
    from kcodec.api.removed import notice

    return notice(gvk.group, gvk.version, gvk.kind)


def _gvk_of(doc: bytes) -> Any:
    """The apiVersion/kind a document names (for the notice of one kcodec cannot read)."""
    from kcodec.serializer.meta import interpret_gvk

    try:
        return interpret_gvk(doc)
    except Exception:  # noqa: BLE001 - no notice then: the decoder's own error stands
        return None


def _convert_one(obj: Any, output_version: str, kinds: list[Any] | None = None) -> list[Any]:
    """``obj`` (a v1 List item by item) in the output version; ``kinds`` collects the
    group/version/kind of every object converted (for the removal notices)."""
    from kcodec import legacyscheme
    from kcodec.api.core import v1 as corev1

    if isinstance(obj, corev1.List):
        out = []
        for i, item in enumerate(obj.items or []):
            raw = item.raw
            if raw is None and item.object is not None:
                out.extend(_convert_one(item.object, output_version, kinds))
                continue
            try:
                decoded, _ = legacyscheme.codecs.universal_deserializer().decode(raw or b"")
            except Exception as exc:
                raise _Failure(f"items[{i}]: {exc}") from None
            out.extend(_convert_one(decoded, output_version, kinds))
        return out
    converted = legacyscheme.convert(obj, _target(obj, output_version))
    if kinds is not None:
        kinds.append(obj.get_object_kind().group_version_kind())
    return [converted]


def _encoder(fmt: str) -> Any:
    from kcodec import legacyscheme

    media = {"yaml": "application/yaml", "json": "application/json",
             "protobuf": "application/vnd.kubernetes.protobuf"}[fmt]
    for info in legacyscheme.codecs.supported_media_types():
        if info.media_type == media:
            return info.pretty_serializer or info.serializer if fmt == "json" else info.serializer
    raise RuntimeError(f"no serializer for {media}")


def run(args: argparse.Namespace) -> int:
    from kcodec import legacyscheme
    from kcodec.api.core import v1 as corev1
    from kcodec.runtime import RawExtension

    if args.output_version:
        why = _unknown_output_version(args.output_version)
        if why is not None:
            report(why)
            return EXIT_USAGE
    status = 0
    converted: list[Any] = []
    several = False
    decoder = None
    warned: set[str] = set()
    progress = Progress("documents converted")
    for name, data in _iter_inputs(args.filename):
        if isinstance(data, Exception):
            report(str(data))
            status = 1
            continue
        try:
            docs = list(_documents(data))
        except Exception as exc:
            report(f"{name}: {exc}")
            status = 1
            continue
        several = several or len(docs) > 1
        # Counted from 0, as kubectl's resource builder and the other commands count.
        for n, doc in enumerate(docs):
            where = f"{name}: document {n}"
            try:
                if decoder is None:
                    decoder = legacyscheme.codecs.universal_deserializer()
                obj, _ = decoder.decode(doc)
                if isinstance(obj, corev1.List):
                    several = True
                kinds: list[Any] = []
                converted.extend(_convert_one(obj, args.output_version, kinds))
                for gvk in kinds:  # each notice once per run, as kubectl prints each warning
                    text = _notice(gvk)
                    if text is not None and text not in warned:
                        warned.add(text)
                        progress.done()
                        sys.stderr.write(f"Warning: {text}\n")
                progress.step()
            except Exception as exc:  # _Failure, and kcodec errors carrying Go's text
                progress.done()
                gvk = getattr(exc, "gvk", None) or _gvk_of(doc)
                text = _notice(gvk) if gvk is not None else None
                report(f"{where}: {exc}" + (f"; {text}" if text else ""))
                progress.step(failed=True)
                status = 1
    progress.done()
    several = several or len(args.filename) > 1
    if not converted:
        return status or 1
    enc = _encoder(args.output)
    if several or len(converted) > 1:
        item_enc = enc if args.output == "protobuf" else _encoder("json")
        out = corev1.List(items=[RawExtension(raw=item_enc.encode(o).rstrip(b"\n"))
                                 for o in converted])
        out.kind, out.api_version = "List", "v1"
        data = enc.encode(out)
    else:
        data = enc.encode(converted[0])
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return status


def _iter_inputs(paths: list[str]) -> Iterator[tuple[str, Any]]:
    for path in paths:
        try:
            yield from _sources([path])
        except OSError as exc:
            yield path, OSError(file_error(path, exc) if exc.strerror else str(exc))
