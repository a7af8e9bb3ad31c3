"""The optional CEL library, ``cel-python`` (module ``celpy``, the ``kcodec[cel]`` extra).

Go has no counterpart: cel-go is compiled into kube-apiserver. kcodec imports celpy on
first use so that everything else works without it; the modules of this package reach it
through :data:`celpy` once :func:`import_celpy` has found it.
"""
from __future__ import annotations

from typing import Any

__all__ = ["import_celpy"]

#: The celpy module once imported; None before the first attempt, False when it is not
#: installed (so the attempt is made once).
celpy: Any = None


def import_celpy() -> Any:
    """The celpy module, or None when it is not installed (imported once, on first use)."""
    global celpy
    if celpy is None:
        try:
            import celpy as module
            import celpy.celtypes  # noqa: F401
            import celpy.evaluation  # noqa: F401
        except ImportError:
            celpy = False
            return None
        celpy = module
    return celpy or None
