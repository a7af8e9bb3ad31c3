"""The ``kcodec`` command line (console script ``kcodec``, also ``python -m kcodec``).

Each command lives in its own module under :mod:`kcodec.cli` and offers
``register(subparsers)``, which adds its parser and sets ``func`` (a callable taking the parsed
``argparse.Namespace`` and returning the exit status). :data:`COMMANDS` lists those modules in
the order ``--help`` shows them; a command module is imported only when the parser is built.

Exit status, as kubectl's: 0 on success, 1 when the input was bad (one line on stderr naming
the file and document), 2 on bad usage (argparse's own convention).
"""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["main", "build_parser", "COMMANDS", "EXIT_OK", "EXIT_BAD_INPUT", "EXIT_USAGE"]

EXIT_OK = 0
EXIT_BAD_INPUT = 1
EXIT_USAGE = 2

#: Modules that each register one or more subcommands, in ``--help`` order.
COMMANDS: tuple[str, ...] = (
    "kcodec.cli.codec",
    "kcodec.cli.convert",
    "kcodec.cli.version",
    "kcodec.cli.etcd",
    "kcodec.cli.serve",
)

_EPILOG = """\
examples:
  kcodec decode -f pod.pb             protobuf (as in etcd) to YAML
  kcodec encode -f pod.yaml -o protobuf
  kcodec version                      versions and whether the compiled kernels are in use
  kcodec serve --kubeconfig kc        the Kubernetes REST API on SQLite, for kubectl and clients
  kcodec <command> --help             what a command does, with examples
"""


class _Parser(argparse.ArgumentParser):
    """argparse with the one error prefix every kcodec message has (``kcodec: error:``);
    subcommands' parsers are of this class too (argparse makes them of their parent's)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        command = self.prog.split(" ", 1)[1:]  # "kcodec convert" -> ["convert"]
        where = f"{command[0]}: " if command else ""
        self.exit(EXIT_USAGE, f"kcodec: error: {where}{message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every command of :data:`COMMANDS` registered."""
    parser = _Parser(
        prog="kcodec",
        description="Kubernetes API machinery in Python: decode, encode, convert and "
        "inspect Kubernetes objects and the etcd data kube-apiserver stores.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (the console script exits with it)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(func(args) or EXIT_OK)
    except BrokenPipeError:
        # `kcodec ... | head`: the reader left; Python would otherwise print a traceback.
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
