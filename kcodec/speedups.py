"""The one switch between compiled and pure-Python kernels.

``ENABLED`` is True when the Cython extension ``kcodec._speedups`` is in use. Setting
``KCODEC_PURE=1`` in the environment before import forces the pure twins in
``kcodec._native``. Every other module reaches kernels only through attributes of this
module (``speedups.NAME`` at call time), so switching modes here switches them everywhere.
"""
from __future__ import annotations

import os
from types import ModuleType

from kcodec import _native

__all__ = ["ENABLED", "available", "use_compiled"]

KERNELS: tuple[str, ...] = tuple(getattr(_native, "__all__", ()))

_FORCE_PURE = os.environ.get("KCODEC_PURE", "") in ("1", "true", "yes")

_compiled: ModuleType | None = None
if not _FORCE_PURE:
    try:
        from kcodec import _speedups as _compiled  # type: ignore[no-redef]
    except ImportError:
        _compiled = None


def available() -> bool:
    """Whether the compiled extension was built and can be imported."""
    return _compiled is not None


def use_compiled(flag: bool) -> bool:
    """Bind the kernel names to the compiled (True) or pure (False) twins.

    Returns the mode actually in force (False when the extension is missing). Meant for
    the test suite and benchmarks; applications choose with ``KCODEC_PURE``.
    """
    global ENABLED
    source = _compiled if (flag and _compiled is not None) else _native
    for name in KERNELS:
        globals()[name] = getattr(source, name, getattr(_native, name))
    ENABLED = source is _compiled
    return ENABLED


ENABLED: bool = False
use_compiled(not _FORCE_PURE)
