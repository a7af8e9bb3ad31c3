"""Build script: the Cython speedups are optional.

``KCODEC_BUILD_EXT`` chooses: unset/``auto`` builds the extension when Cython and a C
compiler are present and installs pure Python (with a banner) when the build fails; ``1``
makes a failed build fatal (CI, wheels); ``0`` skips it. ``KCODEC_PURE=1`` at run time
forces the pure kernels even when the extension is installed.
"""
from __future__ import annotations

import glob
import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

MODE = os.environ.get("KCODEC_BUILD_EXT", "auto").strip().lower()

BANNER = """
************************************************************************
kcodec: the compiled speedups could not be built ({reason}).
kcodec is installed in pure-Python mode: correct, but slower.
Set KCODEC_BUILD_EXT=1 to make this an error.
************************************************************************
"""


class OptionalBuildExt(build_ext):
    """build_ext that degrades to pure Python unless KCODEC_BUILD_EXT=1."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any toolchain failure
            self._give_up(exc)

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            self._give_up(exc)

    def _give_up(self, exc: BaseException) -> None:
        if MODE == "1":
            raise exc
        sys.stderr.write(BANNER.format(reason=exc))


def extensions() -> list:
    if MODE == "0":
        return []
    sources = sorted(glob.glob(os.path.join("kcodec", "_speedups", "*.pyx")))
    if not sources:
        return []
    try:
        from Cython.Build import cythonize
    except ImportError as exc:
        if MODE == "1":
            raise
        sys.stderr.write(BANNER.format(reason=f"Cython is not installed: {exc}"))
        return []
    from setuptools import Extension

    exts = [
        Extension(
            "kcodec._speedups." + os.path.splitext(os.path.basename(src))[0],
            [src],
            extra_compile_args=["-O2"],
        )
        for src in sources
    ]
    return cythonize(
        exts,
        compiler_directives={
            "language_level": "3",
            # Hostile bytes reach these kernels: keep Python's bounds and wraparound checks
            # wherever a kernel does not check explicitly itself.
            "boundscheck": True,
            "wraparound": False,
            "cdivision": True,
            "embedsignature": True,
        },
        quiet=True,
    )


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
