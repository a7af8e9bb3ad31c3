"""Conversions between the node.k8s.io versions and the internal node version.

Follows kubernetes/kubernetes pkg/apis/node/v1alpha1/conversion.go: v1alpha1 nests the
handler (as ``runtimeHandler``), overhead and scheduling under ``spec``.
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_package
from kcodec.api.node import internal as api
from kcodec.api.node import v1alpha1
from kcodec.conversion import Scope

__all__ = ["add_conversion_funcs"]


def _converted(scope: Scope, value: Any, cls: type) -> Any:
    if value is None:
        return None
    out = cls()
    scope.convert(value, out)
    return out


def _handler_in(src: v1alpha1.RuntimeClass, dst: api.RuntimeClass, scope: Scope) -> None:
    dst.handler = src.spec.runtime_handler
    dst.overhead = _converted(scope, src.spec.overhead, api.Overhead)
    dst.scheduling = _converted(scope, src.spec.scheduling, api.Scheduling)


def _spec_out(src: api.RuntimeClass, dst: v1alpha1.RuntimeClass, scope: Scope) -> None:
    dst.spec = v1alpha1.RuntimeClassSpec(
        runtime_handler=src.handler,
        overhead=_converted(scope, src.overhead, v1alpha1.Overhead),
        scheduling=_converted(scope, src.scheduling, v1alpha1.Scheduling),
    )


def add_conversion_funcs(scheme: Any) -> None:
    """Register every node.k8s.io version <-> internal conversion with ``scheme``."""
    register_package(scheme, "node", v1alpha1={
        "to_internal": {"RuntimeClass": {"handler": _handler_in, "overhead": None,
                                         "scheduling": None}},
        "to_external": {"RuntimeClass": {"spec": _spec_out}},
    })
