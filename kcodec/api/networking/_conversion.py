"""Conversions between the networking.k8s.io versions and the internal networking version.

Follows kubernetes/kubernetes pkg/apis/networking/v1beta1/conversion.go (and the same code in
pkg/apis/extensions/v1beta1): v1beta1 names a backend ``serviceName`` + ``servicePort`` (an
int-or-string) where v1 and the internal version have ``service: {name, port: {name |
number}}``, and calls the default backend ``spec.backend`` instead of
``spec.defaultBackend``. A backend with both a port name and a number keeps only the name in
v1beta1 (upstream's deliberate loss).
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_package
from kcodec.api.networking import internal as api
from kcodec.conversion import Scope
from kcodec.types import STRING, IntOrString

__all__ = ["add_conversion_funcs", "INGRESS_V1BETA1_TO_INTERNAL", "INGRESS_V1BETA1_TO_EXTERNAL"]


def _backend_service_in(src: Any, dst: api.IngressBackend, scope: Scope) -> None:
    port = src.service_port
    if src.service_name or port.int_val != 0 or port.str_val or port.type == STRING:
        dst.service = api.IngressServiceBackend(
            name=src.service_name,
            port=api.ServiceBackendPort(name=port.str_val, number=port.int_val),
        )
    else:
        dst.service = None


def _backend_service_out(src: api.IngressBackend, dst: Any, scope: Scope) -> None:
    svc = src.service
    if svc is None:
        return
    dst.service_name = svc.name
    if svc.port.name:
        dst.service_port = IntOrString.from_string(svc.port.name)
    else:
        dst.service_port = IntOrString.from_int(svc.port.number)


def _default_backend_in(src: Any, dst: api.IngressSpec, scope: Scope) -> None:
    if src.backend is None:
        dst.default_backend = None
    else:
        out = api.IngressBackend()
        scope.convert(src.backend, out)
        dst.default_backend = out


def _backend_out(src: api.IngressSpec, dst: Any, scope: Scope) -> None:
    if src.default_backend is None:
        dst.backend = None
    else:
        from kcodec.model import fields_of

        out = next(f.cls for f in fields_of(type(dst)) if f.name == "backend")()
        scope.convert(src.default_backend, out)
        dst.backend = out


#: Overrides shared with extensions/v1beta1, whose Ingress is this one.
INGRESS_V1BETA1_TO_INTERNAL = {
    "IngressBackend": {"service": _backend_service_in},
    "IngressSpec": {"default_backend": _default_backend_in},
}
INGRESS_V1BETA1_TO_EXTERNAL = {
    "IngressBackend": {"service_name": _backend_service_out, "service_port": None},
    "IngressSpec": {"backend": _backend_out},
}


def add_conversion_funcs(scheme: Any) -> None:
    """Register every networking.k8s.io version <-> internal conversion with ``scheme``."""
    register_package(scheme, "networking", v1beta1={
        "to_internal": INGRESS_V1BETA1_TO_INTERNAL,
        "to_external": INGRESS_V1BETA1_TO_EXTERNAL,
    })
