"""Compiled (Cython) kernels: the twins of ``kcodec._native``, exporting the same names.

Importing this package fails with ImportError when the extension modules were not built,
which is how :mod:`kcodec.speedups` falls back to pure Python.
"""
from kcodec._speedups._core import *  # noqa: F401,F403
from kcodec._speedups._core import __all__  # noqa: F401
