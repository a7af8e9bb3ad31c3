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

KERNELS: tuple[str, ...] = ()

_FORCE_PURE = os.environ.get("KCODEC_PURE", "") in ("1", "true", "yes")

_compiled: ModuleType | None = None


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


def _bind() -> None:
    """Load the kernels and bind them in the default mode.

    Runs at import, and once more from the end of ``kcodec._native`` when that package was
    imported first: its kernel modules import this one while it is still half-built, so
    the first run finds neither its names nor a compiled module that could load."""
    global KERNELS, _compiled
    KERNELS = tuple(getattr(_native, "__all__", ()))
    if not KERNELS:
        return
    if not _FORCE_PURE and _compiled is None:
        try:
            from kcodec import _speedups as compiled
        except ImportError:
            compiled = None
        _compiled = compiled
    use_compiled(not _FORCE_PURE)


ENABLED: bool = False
_bind()
