"""Compiled (Cython) kernels: the twins of ``kcodec._native``, exporting the same names.

Each extension module here (``_wire``, ``_codec``, ``_json``, ``_convert``, ``_cbor``, ``_yaml``,
``_smd``) exports some of the kernel names in ``kcodec._native.__all__``. Importing this package
fails with ImportError when none was built, which is how :mod:`kcodec.speedups` falls back to
pure Python; a name no built module provides falls back to its pure twin individually.
"""
from __future__ import annotations

import importlib

__all__: list[str] = []
_loaded = []
for _name in ("_wire", "_codec", "_json", "_convert", "_cbor", "_yaml", "_smd"):
    try:
        _mod = importlib.import_module(f"{__name__}.{_name}")
    except ImportError:
        continue
    _loaded.append(_name)
    for _kernel in getattr(_mod, "__all__", ()):
        globals()[_kernel] = getattr(_mod, _kernel)
        __all__.append(_kernel)

if not _loaded:
    raise ImportError("kcodec._speedups: no compiled kernel module is built")

if "_convert" in _loaded:
    from kcodec._speedups._convert import bind_conversion
else:
    def bind_conversion(**hooks: object) -> None:
        """No compiled conversion kernel: the pure twin, bound instead, has them."""

if "_smd" in _loaded:
    from kcodec._speedups._smd import bind_fieldpath
else:
    def bind_fieldpath(**hooks: object) -> None:
        """No compiled structured-merge-diff kernel: the pure twin, bound instead, has them."""
