"""``kcodec decode`` and ``kcodec encode``: any wire format in, the chosen one out.

Both read ``-f`` sources (files, directories, ``-``) document by document, decode each with
:func:`kcodec.load` rules (typed when the kind is built in, else Unstructured) and write what
Go writes for it. A document that cannot be decoded is reported on stderr as one line naming
the file and the document; the others are still written, and the exit status is then 1.
"""
from __future__ import annotations

import argparse
import sys

from kcodec.cli import EXIT_BAD_INPUT, EXIT_OK
from kcodec.cli._io import Document, Progress, add_file_args, error_line, iter_documents, report, write_objects

__all__ = ["register", "run_decode", "run_encode"]

_DECODE_EPILOG = """\
examples:
  kcodec decode -f pod.pb                      protobuf (as stored in etcd) to YAML
  kcodec decode -f manifests/ -o json          every document of a directory, as JSON
  cat deploy.yaml | kcodec decode --strict     report unknown and duplicated fields
"""

_ENCODE_EPILOG = """\
examples:
  kcodec encode -f pod.yaml -o protobuf > pod.pb   the bytes kube-apiserver writes
  kcodec encode -f pod.pb -o json                  compact JSON, one line per object
  kcodec encode -f pod.yaml -o cbor > pod.cbor     Go's CBOR (kube-apiserver's alpha format)
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    d = subparsers.add_parser(
        "decode",
        help="decode JSON, YAML, protobuf or CBOR objects and print them as YAML or JSON",
        description="Decode Kubernetes objects from JSON, YAML, protobuf (the k8s\\x00 "
        "envelope) or CBOR and print them as YAML or indented JSON, as kubectl prints them.",
        epilog=_DECODE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_file_args(d)
    d.add_argument("-o", "--output", choices=("yaml", "json"), default="yaml",
                   help="output format (default: yaml)")
    d.add_argument("--strict", action="store_true",
                   help="fail on unknown or duplicated fields, as kubectl --validate=strict")
    d.set_defaults(func=run_decode)

    e = subparsers.add_parser(
        "encode",
        help="re-encode objects as protobuf, CBOR, compact JSON or YAML",
        description="Decode Kubernetes objects from any format and write them as protobuf or CBOR "
        "(one object), compact JSON (one line each) or YAML, byte for byte as Go writes them.",
        epilog=_ENCODE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_file_args(e)
    e.add_argument("-o", "--output", choices=("protobuf", "cbor", "json", "yaml"), required=True,
                   help="output format")
    e.add_argument("--strict", action="store_true",
                   help="fail on unknown or duplicated fields")
    e.set_defaults(func=run_encode)


def _decode_all(args: argparse.Namespace) -> tuple[list, int]:
    from kcodec._everyday import _codecs, _decode
    from kcodec.errors import DecodeError, KCodecError, MissingKindError, MissingVersionError, StrictDecodingError

    # Errors about a document that was read (no kind, unknown fields), not about its syntax.
    _PARSED = (MissingKindError, MissingVersionError, StrictDecodingError)
    codecs = _codecs(None)
    objs, status = [], EXIT_OK
    progress = Progress("documents")
    for doc in iter_documents(args.filenames, args.recursive):
        if not isinstance(doc, Document):
            progress.done()
            report(str(doc))
            status = EXIT_BAD_INPUT
            continue
        try:
            objs.append(_decode(codecs, doc.data, doc.format, args.strict))
            progress.step()
        except KCodecError as err:
            progress.done()
            # A document that is not the format it was taken for says which one that was
            # (a missing kind or an unknown field is the same in every format).
            unparsed = isinstance(err, DecodeError) and not isinstance(err, _PARSED)
            error_line(doc.where_read_as() if unparsed else doc.where(), err)
            progress.step(failed=True)
            status = EXIT_BAD_INPUT
    progress.done()
    return objs, status


def _write(objs: list, output: str, status: int) -> int:
    from kcodec.errors import KCodecError

    if not objs:
        return status
    try:
        data = write_objects(objs, output)
    except (KCodecError, ValueError) as err:
        error_line("output", err)
        return EXIT_BAD_INPUT
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return status


def run_decode(args: argparse.Namespace) -> int:
    objs, status = _decode_all(args)
    return _write(objs, args.output, status)


def run_encode(args: argparse.Namespace) -> int:
    objs, status = _decode_all(args)
    if args.output == "json":
        from kcodec._everyday import dump

        if objs:
            sys.stdout.buffer.write(b"".join(dump(o, "json") for o in objs))
            sys.stdout.buffer.flush()
        return status
    return _write(objs, args.output, status)
