"""Defaults of autoscaling/v1 and autoscaling/v2, as kube-apiserver applies them.

Follows kubernetes/kubernetes ``pkg/apis/autoscaling/<version>/defaults.go``: v2 fills an
empty metric list with 80% average CPU utilization and, when a behavior is given, every
unset scaling-rule field with the controller's historical values.
"""
from __future__ import annotations

from kcodec.api.autoscaling import v1, v2

__all__ = ["DEFAULTERS", "generate_scale_up_rules", "generate_scale_down_rules"]

DEFAULT_CPU_UTILIZATION = 80


def _scale_up_defaults() -> v2.HPAScalingRules:
    return v2.HPAScalingRules(
        stabilization_window_seconds=0,
        select_policy="Max",
        policies=[
            v2.HPAScalingPolicy(type="Pods", value=4, period_seconds=15),
            v2.HPAScalingPolicy(type="Percent", value=100, period_seconds=15),
        ],
    )


def _scale_down_defaults() -> v2.HPAScalingRules:
    # StabilizationWindowSeconds stays nil: the controller's command-line flag decides it.
    return v2.HPAScalingRules(
        select_policy="Max",
        policies=[v2.HPAScalingPolicy(type="Percent", value=100, period_seconds=15)],
    )


def _merge(given: v2.HPAScalingRules | None, defaults: v2.HPAScalingRules) -> v2.HPAScalingRules:
    if given is None:
        return defaults
    if given.select_policy is not None:
        defaults.select_policy = given.select_policy
    if given.stabilization_window_seconds is not None:
        defaults.stabilization_window_seconds = given.stabilization_window_seconds
    if given.policies is not None:
        defaults.policies = given.policies
    if given.tolerance is not None:
        defaults.tolerance = given.tolerance
    return defaults


def generate_scale_up_rules(rules: v2.HPAScalingRules | None) -> v2.HPAScalingRules:
    """Go ``GenerateHPAScaleUpRules``: ``rules`` with every unset field defaulted."""
    return _merge(rules, _scale_up_defaults())


def generate_scale_down_rules(rules: v2.HPAScalingRules | None) -> v2.HPAScalingRules:
    """Go ``GenerateHPAScaleDownRules`` (stabilization window left nil)."""
    return _merge(rules, _scale_down_defaults())


def set_defaults_hpa_v2(obj: v2.HorizontalPodAutoscaler) -> None:
    spec = obj.spec
    if spec.min_replicas is None:
        spec.min_replicas = 1
    if not spec.metrics:
        spec.metrics = [v2.MetricSpec(
            type="Resource",
            resource=v2.ResourceMetricSource(
                name="cpu",
                target=v2.MetricTarget(type="Utilization", average_utilization=DEFAULT_CPU_UTILIZATION),
            ),
        )]
    if spec.behavior is not None:
        spec.behavior.scale_up = generate_scale_up_rules(spec.behavior.scale_up)
        spec.behavior.scale_down = generate_scale_down_rules(spec.behavior.scale_down)


def set_defaults_hpa_v1(obj: v1.HorizontalPodAutoscaler) -> None:
    # The CPU target stays unset here; conversion to the internal version supplies it.
    if obj.spec.min_replicas is None:
        obj.spec.min_replicas = 1


DEFAULTERS = {
    v1.HorizontalPodAutoscaler: set_defaults_hpa_v1,
    v2.HorizontalPodAutoscaler: set_defaults_hpa_v2,
}
# autoscaling/v1 ScaleSpec.replicas "+default=0" changes nothing.
MARKERS: dict = {}
