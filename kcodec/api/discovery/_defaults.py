"""Defaults of discovery.k8s.io v1 and v1beta1 (``pkg/apis/discovery/<version>/defaults.go``):
an EndpointSlice port without name or protocol gets "" and TCP."""
from __future__ import annotations

from typing import Any

from kcodec.api.discovery import v1, v1beta1
from kcodec.api.removed import discovery_v1alpha1 as v1alpha1

__all__ = ["DEFAULTERS"]


def _endpoint_port(obj: Any) -> None:
    if obj.name is None:
        obj.name = ""
    if obj.protocol is None:
        obj.protocol = "TCP"


# v1alpha1: the removed version, as Kubernetes 1.20's pkg/apis/discovery/v1alpha1/defaults.go
DEFAULTERS = {v1.EndpointPort: _endpoint_port, v1beta1.EndpointPort: _endpoint_port,
              v1alpha1.EndpointPort: _endpoint_port}
MARKERS: dict = {}
