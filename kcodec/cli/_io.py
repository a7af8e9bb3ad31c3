"""Input and output shared by the ``kcodec`` commands: ``-f`` sources, documents, errors.

``-f`` follows kubectl: a file, a directory (its ``.json``/``.yaml``/``.yml`` files, and with
``-R`` those of its subdirectories), or ``-`` for standard input; it may be repeated. Each
source is split into documents the way :func:`kcodec.load_all` splits them, so that an error
can name the file and the document (counted from 0, as kubectl's resource builder does).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "Document", "Progress", "add_file_args", "iter_documents", "error_line", "report", "write_objects",
    "file_error", "no_manifests", "FORMAT_NAMES",
]

#: How messages name each format :func:`kcodec._everyday.detect_format` can choose.
FORMAT_NAMES = {"json": "JSON", "yaml": "YAML", "protobuf": "protobuf", "cbor": "CBOR"}

_EXTENSIONS = (".json", ".yaml", ".yml")


@dataclass(frozen=True)
class Document:
    """One document of one source: ``source`` names it in messages (``-`` is stdin)."""

    source: str
    index: int
    data: bytes
    format: str

    def where(self) -> str:
        name = "<stdin>" if self.source == "-" else self.source
        return f"{name}: document {self.index}"

    def where_read_as(self) -> str:
        """:meth:`where` with the format the bytes were read as (``document 0: read as
        YAML``): what a document that fails to decode was taken for."""
        return f"{self.where()}: read as {FORMAT_NAMES.get(self.format, self.format)}"


def add_file_args(parser: argparse.ArgumentParser) -> None:
    """``-f/--filename`` (repeatable, default stdin) and ``-R/--recursive``."""
    parser.add_argument(
        "-f", "--filename", action="append", metavar="PATH", dest="filenames",
        help="file, directory or - for standard input (repeatable; default: -)",
    )
    parser.add_argument(
        "-R", "--recursive", action="store_true",
        help="read the directories given with -f recursively",
    )


def file_error(path: str, err: OSError) -> str:
    """One wording for a file that cannot be read, in every command:
    ``<path>: no such file or directory`` (the C library's text, in lower case)."""
    text = err.strerror or str(err)
    return f"{path}: {text[:1].lower()}{text[1:]}"


def no_manifests(path: str, recursive: bool) -> str:
    """The message for a directory without manifests (kubectl says nothing and does nothing)."""
    where = "in it or its subdirectories" if recursive else "in it (-R reads subdirectories)"
    return f"{path}: a directory with no .json, .yaml or .yml files {where}"


def report(message: str) -> None:
    """One line on stderr with the prefix every command uses: ``kcodec: error: <message>``."""
    sys.stderr.write(f"kcodec: error: {' '.join(str(message).split(chr(10)))}\n")


def _expand(path: str, recursive: bool) -> list[str]:
    if path == "-":
        return ["-"]
    p = Path(path)
    if p.is_dir():
        walker = p.rglob("*") if recursive else p.iterdir()
        return sorted(str(f) for f in walker if f.is_file() and f.suffix in _EXTENSIONS)
    return [path]


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def iter_documents(filenames: Sequence[str] | None, recursive: bool) -> Iterator[Document | Exception]:
    """Every document of every source in order; a source that cannot be read or split into
    documents yields an error whose text names it (the caller reports it and goes on)."""
    from kcodec._everyday import _documents, detect_format
    from kcodec.errors import DecodeError, KCodecError

    for given in filenames or ["-"]:
        if given != "-" and not os.path.exists(given):
            yield FileNotFoundError(file_error(given, FileNotFoundError(2, "No such file or directory")))
            continue
        paths = _expand(given, recursive)
        if not paths:
            yield FileNotFoundError(no_manifests(given, recursive))
            continue
        for path in paths:
            try:
                data = _read(path)
            except OSError as err:
                yield OSError(file_error(path, err))
                continue
            fmt = detect_format(data)
            try:
                docs = _documents(data, fmt)
            except KCodecError as err:
                # The stream itself does not split (JSON cut short): the documents before the
                # fault are not reported either, as Go's decoder stops at it.
                name = "<stdin>" if path == "-" else path
                yield DecodeError(f"{name}: read as {FORMAT_NAMES.get(fmt, fmt)}: {err}")
                continue
            for i, doc in enumerate(docs):
                yield Document(path, i, doc, fmt)


def error_line(where: str, err: BaseException) -> None:
    """One line on stderr: ``kcodec: error: <file>: document <n>: <message>``."""
    report(f"{where}: {err}")


def write_objects(objs: list[Any], output: str, scheme: Any = None) -> bytes:
    """The bytes kubectl prints for ``objs``: YAML documents joined by ``---``; JSON as one
    indented object, or a ``v1 List`` holding several; protobuf for one object only."""
    from kcodec._everyday import dump, dump_all

    if output == "yaml":
        return dump_all(objs, "yaml", scheme=scheme)
    if output == "json":
        # Go's indented JSON has no final newline; kubectl's printer adds one.
        if len(objs) == 1:
            return dump(objs[0], "json-pretty", scheme=scheme) + b"\n"
        return dump_all(objs, "json-pretty", scheme=scheme) + b"\n"
    if len(objs) != 1:
        raise ValueError(
            f"-o {output} writes one object and the input holds {len(objs)}; "
            "use -o yaml or -o json, or one document per run"
        )
    return dump(objs[0], output, scheme=scheme)


class Progress:
    """A count on stderr for long runs (``kcodec: 1200 documents``), rewritten in place.

    Shown only when stderr is a terminal and stdout is not (``kcodec etcd list ... > dump.yaml``:
    when the output itself scrolls by on the terminal it is the progress), only once the run
    has taken ``after`` seconds (``KCODEC_PROGRESS_AFTER``, default 1), and at most five
    times a second. :meth:`done` erases the line, so nothing is left in a log or a pipe.
    """

    def __init__(self, noun: str, *, stream: Any = None, after: float | None = None) -> None:
        self.noun = noun
        self.stream = stream if stream is not None else sys.stderr
        self.count = 0
        self.errors = 0
        if after is None:
            try:
                after = float(os.environ.get("KCODEC_PROGRESS_AFTER", "1"))
            except ValueError:
                after = 1.0
        self._start = time.monotonic()
        self._next = self._start + after
        self._shown = False
        self.enabled = _isatty(self.stream) and not _isatty(sys.stdout)

    def step(self, n: int = 1, *, failed: bool = False) -> None:
        """Count ``n`` more items (``failed``: they were reported as errors)."""
        self.count += n
        if failed:
            self.errors += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + 0.2
        errors = f", {self.errors} with errors" if self.errors else ""
        self.stream.write(f"\rkcodec: {self.count} {self.noun}{errors} ({now - self._start:.0f} s)\x1b[K")
        self.stream.flush()
        self._shown = True

    def done(self) -> None:
        """Erase the progress line, if one was shown."""
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
