"""Conversions between the flowcontrol.apiserver.k8s.io versions and the internal version.

Follows kubernetes/kubernetes pkg/apis/flowcontrol/{v1beta1,v1beta2}/conversion.go: those
versions call ``nominalConcurrencyShares`` ``assuredConcurrencyShares``. The internal value is
a plain int32 (v1's pointer: nil becomes 0, as conversion-gen's pointer-to-value does).
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_package
from kcodec.conversion import Scope

__all__ = ["add_conversion_funcs"]


def _nominal_in(src: Any, dst: Any, scope: Scope) -> None:
    dst.nominal_concurrency_shares = src.assured_concurrency_shares


def _assured_out(src: Any, dst: Any, scope: Scope) -> None:
    dst.assured_concurrency_shares = src.nominal_concurrency_shares


def add_conversion_funcs(scheme: Any) -> None:
    """Register every flowcontrol version <-> internal conversion with ``scheme``."""
    renamed = {
        "to_internal": {"LimitedPriorityLevelConfiguration": {"nominal_concurrency_shares": _nominal_in}},
        "to_external": {"LimitedPriorityLevelConfiguration": {"assured_concurrency_shares": _assured_out}},
    }
    # v1alpha1: the removed version, as Kubernetes 1.28 converted it
    register_package(scheme, "flowcontrol", v1beta1=renamed, v1beta2=renamed, v1alpha1=renamed)
