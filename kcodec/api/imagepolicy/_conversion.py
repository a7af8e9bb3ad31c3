"""Conversions between the imagepolicy versions and the internal imagepolicy version.

Upstream (kubernetes/kubernetes pkg/apis/imagepolicy/<version>) has only generated conversions for
this group: same-named fields are copied; a pointer in one version and a value in another
follows conversion-gen (nil becomes the zero value).
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_package

__all__ = ["add_conversion_funcs"]


def add_conversion_funcs(scheme: Any) -> None:
    """Register every imagepolicy version <-> internal conversion with ``scheme``."""
    register_package(scheme, "imagepolicy")
