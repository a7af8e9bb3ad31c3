"""Everything apiregistration.k8s.io registers in an API server's scheme (Go ``install.Install``)."""
from __future__ import annotations

from typing import Any

from kcodec.api.apiregistration import _conversion, _defaults, internal, v1, v1beta1

__all__ = ["install"]


def install(scheme: Any) -> None:
    """Register internal, v1 and v1beta1 with conversions and defaults; v1 is preferred."""
    internal.add_to_scheme(scheme)
    v1.add_to_scheme(scheme)
    v1beta1.add_to_scheme(scheme)
    _conversion.add_conversion_funcs(scheme)
    _defaults.add_defaulting_funcs(scheme)
    scheme.set_version_priority(v1.SCHEME_GROUP_VERSION, v1beta1.SCHEME_GROUP_VERSION)
