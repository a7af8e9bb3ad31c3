"""Conversions between the autoscaling versions and the internal autoscaling version.

The internal HorizontalPodAutoscaler has autoscaling/v2's shape. autoscaling/v1 has a single
CPU utilization target/current value (kubernetes/kubernetes pkg/apis/autoscaling/v1/
conversion.go): in, ``targetCPUUtilizationPercentage`` becomes a Resource ``cpu`` metric with
an average-utilization target; out, the first such metric gives it back (and the first such
current metric gives ``currentCPUUtilizationPercentage``).
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_package
from kcodec.api.autoscaling import internal as api
from kcodec.conversion import Scope

__all__ = ["add_conversion_funcs"]


def _cpu_target(m: api.MetricSpec) -> int | None:
    r = m.resource
    if m.type == "Resource" and r is not None and r.name == "cpu":
        return r.target.average_utilization
    return None


def _metrics_in(src: Any, dst: api.HorizontalPodAutoscalerSpec, scope: Scope) -> None:
    pct = src.target_cpu_utilization_percentage
    if pct is None:
        dst.metrics = None
        return
    dst.metrics = [api.MetricSpec(type="Resource", resource=api.ResourceMetricSource(
        name="cpu", target=api.MetricTarget(type="Utilization", average_utilization=pct)))]


def _cpu_target_out(src: api.HorizontalPodAutoscalerSpec, dst: Any, scope: Scope) -> None:
    for m in src.metrics or ():
        pct = _cpu_target(m)
        if pct is not None:
            dst.target_cpu_utilization_percentage = pct
            return


def _current_metrics_in(src: Any, dst: api.HorizontalPodAutoscalerStatus, scope: Scope) -> None:
    pct = src.current_cpu_utilization_percentage
    if pct is None:
        dst.current_metrics = None
        return
    dst.current_metrics = [api.MetricStatus(type="Resource", resource=api.ResourceMetricStatus(
        name="cpu", current=api.MetricValueStatus(average_utilization=pct)))]


def _current_cpu_out(src: api.HorizontalPodAutoscalerStatus, dst: Any, scope: Scope) -> None:
    for m in src.current_metrics or ():
        r = m.resource
        if m.type == "Resource" and r is not None and r.name == "cpu":
            dst.current_cpu_utilization_percentage = r.current.average_utilization
            return


def add_conversion_funcs(scheme: Any) -> None:
    """Register every autoscaling version <-> internal conversion with ``scheme``."""
    register_package(scheme, "autoscaling", v1={
        "to_internal": {"HorizontalPodAutoscalerSpec": {"metrics": _metrics_in},
                        "HorizontalPodAutoscalerStatus": {"current_metrics": _current_metrics_in}},
        "to_external": {
            "HorizontalPodAutoscalerSpec": {"target_cpu_utilization_percentage": _cpu_target_out},
            "HorizontalPodAutoscalerStatus": {
                "current_cpu_utilization_percentage": _current_cpu_out},
        },
        # v1's MetricSpec/MetricStatus family only appears in annotations (v2beta1 shapes).
        "skip": ("MetricSpec", "MetricStatus", "ObjectMetricSource", "PodsMetricSource",
                 "ResourceMetricSource", "ContainerResourceMetricSource", "ExternalMetricSource",
                 "ObjectMetricStatus", "PodsMetricStatus", "ResourceMetricStatus",
                 "ContainerResourceMetricStatus", "ExternalMetricStatus"),
    })
