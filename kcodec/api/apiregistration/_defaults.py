"""Defaults of apiregistration.k8s.io v1 and v1beta1.

Follows k8s.io/kube-aggregator v0.36.2 ``pkg/apis/apiregistration/{v1,v1beta1}/defaults.go``
and ``zz_generated.defaults.go``: the service reference of an APIService gets port 443.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.apiregistration import v1, v1beta1

__all__ = ["add_defaulting_funcs", "set_object_defaults"]


def set_object_defaults(svc: Any) -> None:
    """SetObjectDefaults_APIService (either version)."""
    ref = svc.spec.service
    if ref is not None and ref.port is None:
        ref.port = 443


def _each(lst: Any) -> None:
    for item in lst.items or ():
        set_object_defaults(item)


def add_defaulting_funcs(scheme: Any) -> None:
    """Register the APIService (and APIService list) defaulters of v1 and v1beta1."""
    for ext in (v1, v1beta1):
        scheme.add_type_defaulting_func(ext.APIService, set_object_defaults)
        scheme.add_type_defaulting_func(ext.APIServiceList, _each)
