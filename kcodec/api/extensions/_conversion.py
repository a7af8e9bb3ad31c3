"""Conversions between extensions/v1beta1 and the internal versions it borrows.

Go's extensions group has no types of its own: extensions/v1beta1 Deployments, DaemonSets and
ReplicaSets convert to the internal apps types, Ingresses and NetworkPolicies to the internal
networking types and Scale to the internal autoscaling Scale (kubernetes/kubernetes
pkg/apis/extensions/v1beta1/conversion.go). The Ingress backend and Scale selector mappings
are the networking/v1beta1 and apps/v1beta1 ones.
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_version
from kcodec.api.apps import _conversion as apps_conversion
from kcodec.api.apps import internal as apps
from kcodec.api.autoscaling import internal as autoscaling
from kcodec.api.extensions import v1beta1
from kcodec.api.networking import _conversion as networking_conversion
from kcodec.api.networking import internal as networking

__all__ = ["add_conversion_funcs"]


def add_conversion_funcs(scheme: Any) -> None:
    """Register extensions/v1beta1 <-> internal (apps, networking, autoscaling) conversions."""
    register_version(
        scheme, v1beta1, [apps, networking, autoscaling],
        to_internal={**networking_conversion.INGRESS_V1BETA1_TO_INTERNAL,
                     **apps_conversion.SCALE_TO_INTERNAL},
        to_external={**networking_conversion.INGRESS_V1BETA1_TO_EXTERNAL,
                     **apps_conversion.SCALE_TO_EXTERNAL},
    )
