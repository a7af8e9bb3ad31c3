"""Conversions between the discovery.k8s.io versions and the internal discovery version.

Follows kubernetes/kubernetes pkg/apis/discovery/v1beta1/conversion.go: a v1beta1 endpoint's
``topology`` map is v1's ``zone`` (the ``topology.kubernetes.io/zone`` entry) plus
``deprecatedTopology`` (every other entry).
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_package
from kcodec.conversion import Scope

__all__ = ["add_conversion_funcs", "ZONE_LABEL"]

ZONE_LABEL = "topology.kubernetes.io/zone"


def _zone_in(src: Any, dst: Any, scope: Scope) -> None:
    topo = src.topology
    dst.zone = None if not topo or ZONE_LABEL not in topo else topo[ZONE_LABEL]


def _deprecated_topology_in(src: Any, dst: Any, scope: Scope) -> None:
    topo = src.topology
    if not topo:
        dst.deprecated_topology = None
        return
    rest = {k: v for k, v in topo.items() if k != ZONE_LABEL}
    dst.deprecated_topology = rest or None


def _topology_out(src: Any, dst: Any, scope: Scope) -> None:
    if src.zone is None and not src.deprecated_topology:
        dst.topology = None
        return
    topo = dict(src.deprecated_topology or {})
    if src.zone is not None:
        topo[ZONE_LABEL] = src.zone
    dst.topology = topo


def add_conversion_funcs(scheme: Any) -> None:
    """Register every discovery.k8s.io version <-> internal conversion with ``scheme``."""
    beta = {
        "to_internal": {"Endpoint": {"zone": _zone_in,
                                     "deprecated_topology": _deprecated_topology_in}},
        "to_external": {"Endpoint": {"topology": _topology_out}},
    }
    # v1alpha1, removed in 1.21, had v1beta1's topology map (pkg/apis/discovery/v1alpha1 of
    # Kubernetes 1.20 converted it field for field to an internal type that had it too).
    register_package(scheme, "discovery", v1beta1=beta, v1alpha1=beta)
