"""``kcodec version``: kcodec's version, the Kubernetes API it was generated from, the mode."""
from __future__ import annotations

import argparse
import platform
import sys

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "version",
        help="print kcodec's version and whether the compiled kernels are in use",
        description="Print kcodec's version, the Kubernetes API version its models follow, "
        "the Python version, and whether the compiled (Cython) kernels or the pure-Python "
        "ones are in use.",
        epilog="example:\n  kcodec version\n  KCODEC_PURE=1 kcodec version",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import kcodec
    from kcodec import speedups

    mode = speedups.describe()
    out = sys.stdout
    out.write(f"kcodec {kcodec.__version__}\n")
    out.write("kubernetes API: k8s.io/api v0.36.3\n")
    out.write(f"python: {platform.python_implementation()} {platform.python_version()}\n")
    out.write(f"mode: {mode}\n")
    return 0
