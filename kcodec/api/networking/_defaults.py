"""Defaults of networking.k8s.io/v1 and v1beta1, as kube-apiserver applies them.

Follows kubernetes/kubernetes ``pkg/apis/networking/<version>/defaults.go``.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.networking import v1, v1beta1

__all__ = ["DEFAULTERS"]


def set_defaults_network_policy_port(obj: v1.NetworkPolicyPort) -> None:
    if obj.protocol is None:
        obj.protocol = "TCP"


def set_defaults_network_policy(obj: v1.NetworkPolicy) -> None:
    # A policy without policyTypes is at least an ingress policy.
    if not obj.spec.policy_types:
        obj.spec.policy_types = ["Ingress"]
        if obj.spec.egress:
            obj.spec.policy_types.append("Egress")


def set_defaults_ingress_class(obj: Any) -> None:
    params = obj.spec.parameters
    if params is not None and params.scope is None:
        params.scope = "Cluster"


def set_defaults_http_ingress_path(obj: v1beta1.HTTPIngressPath) -> None:
    if obj.path_type is None:
        obj.path_type = "ImplementationSpecific"


DEFAULTERS = {
    v1.NetworkPolicyPort: set_defaults_network_policy_port,
    v1.NetworkPolicy: set_defaults_network_policy,
    v1.IngressClass: set_defaults_ingress_class,
    v1beta1.IngressClass: set_defaults_ingress_class,
    v1beta1.HTTPIngressPath: set_defaults_http_ingress_path,
}
MARKERS: dict = {}
