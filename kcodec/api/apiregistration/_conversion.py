"""Conversions between apiregistration.k8s.io v1 / v1beta1 and the internal version.

Follows k8s.io/kube-aggregator v0.36.2 ``pkg/apis/apiregistration/{v1,v1beta1}/
zz_generated.conversion.go``: every field is copied by name; the one difference in shape is
``ServiceReference.port``, a pointer externally and a plain int32 internally (nil -> 0, and
back always set).
"""
from __future__ import annotations

from typing import Any

from kcodec.conversion import Scope, generated_conversion
from kcodec.model import Struct
from kcodec.runtime import Object

from kcodec.api.apiregistration import internal, v1, v1beta1

__all__ = ["add_conversion_funcs"]


def _port_in(src: Any, dst: Any, scope: Scope) -> None:
    # metav1.Convert_Pointer_int32_To_int32
    dst.port = src.port if src.port is not None else 0


def _port_out(src: Any, dst: Any, scope: Scope) -> None:
    # metav1.Convert_int32_To_Pointer_int32
    dst.port = src.port


def add_conversion_funcs(scheme: Any) -> None:
    """Register v1 <-> internal and v1beta1 <-> internal conversions with *scheme*."""
    for ext in (v1, v1beta1):
        for name in ext.__all__:
            a, b = getattr(ext, name, None), getattr(internal, name, None)
            if not (isinstance(a, type) and isinstance(b, type) and issubclass(a, Struct)
                    and issubclass(b, Struct)):
                continue
            into: dict[str, Any] = {"port": _port_in} if name == "ServiceReference" else {}
            back: dict[str, Any] = {"port": _port_out} if name == "ServiceReference" else {}
            if issubclass(a, Object):
                # Go's autoConvert_* never copy TypeMeta: the destination keeps its own.
                into.update(kind=None, api_version=None)
                back.update(kind=None, api_version=None)
            scheme.add_generated_conversion_func(a, b, generated_conversion(a, b, into))
            scheme.add_generated_conversion_func(b, a, generated_conversion(b, a, back))
