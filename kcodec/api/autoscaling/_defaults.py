"""Defaults of autoscaling/v1 and autoscaling/v2 (and of the removed v2beta1 and v2beta2,
as Kubernetes 1.35 applied them), as kube-apiserver applies them.

Follows kubernetes/kubernetes ``pkg/apis/autoscaling/<version>/defaults.go``: v2, v2beta2
and v2beta1 fill an empty metric list with 80% average CPU utilization and, when a behavior
is given (v2, v2beta2), every unset scaling-rule field with the controller's historical values.
"""
from __future__ import annotations

from types import ModuleType

from kcodec.api.autoscaling import v1, v2
from kcodec.api.removed import autoscaling_v2beta1 as v2beta1
from kcodec.api.removed import autoscaling_v2beta2 as v2beta2

__all__ = ["DEFAULTERS", "generate_scale_up_rules", "generate_scale_down_rules"]

DEFAULT_CPU_UTILIZATION = 80


def _scale_up_defaults(mod: ModuleType = v2) -> v2.HPAScalingRules:
    return mod.HPAScalingRules(
        stabilization_window_seconds=0,
        select_policy="Max",
        policies=[
            mod.HPAScalingPolicy(type="Pods", value=4, period_seconds=15),
            mod.HPAScalingPolicy(type="Percent", value=100, period_seconds=15),
        ],
    )


def _scale_down_defaults(mod: ModuleType = v2) -> v2.HPAScalingRules:
    # StabilizationWindowSeconds stays nil: the controller's command-line flag decides it.
    return mod.HPAScalingRules(
        select_policy="Max",
        policies=[mod.HPAScalingPolicy(type="Percent", value=100, period_seconds=15)],
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
    if getattr(given, "tolerance", None) is not None:  # v2 only
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


def set_defaults_hpa_v2beta2(obj: v2beta2.HorizontalPodAutoscaler) -> None:
    """pkg/apis/autoscaling/v2beta2/defaults.go (Kubernetes 1.35)."""
    spec = obj.spec
    if spec.min_replicas is None:
        spec.min_replicas = 1
    if not spec.metrics:
        spec.metrics = [v2beta2.MetricSpec(
            type="Resource",
            resource=v2beta2.ResourceMetricSource(
                name="cpu",
                target=v2beta2.MetricTarget(type="Utilization", average_utilization=DEFAULT_CPU_UTILIZATION),
            ),
        )]
    if spec.behavior is not None:
        spec.behavior.scale_up = _merge(spec.behavior.scale_up, _scale_up_defaults(v2beta2))
        spec.behavior.scale_down = _merge(spec.behavior.scale_down, _scale_down_defaults(v2beta2))


def set_defaults_hpa_v2beta1(obj: v2beta1.HorizontalPodAutoscaler) -> None:
    """pkg/apis/autoscaling/v2beta1/defaults.go (Kubernetes 1.35)."""
    spec = obj.spec
    if spec.min_replicas is None:
        spec.min_replicas = 1
    if not spec.metrics:
        spec.metrics = [v2beta1.MetricSpec(type="Resource", resource=v2beta1.ResourceMetricSource(
            name="cpu", target_average_utilization=DEFAULT_CPU_UTILIZATION))]


def set_defaults_hpa_v1(obj: v1.HorizontalPodAutoscaler) -> None:
    # The CPU target stays unset here; conversion to the internal version supplies it.
    if obj.spec.min_replicas is None:
        obj.spec.min_replicas = 1


DEFAULTERS = {
    v1.HorizontalPodAutoscaler: set_defaults_hpa_v1,
    v2.HorizontalPodAutoscaler: set_defaults_hpa_v2,
    v2beta2.HorizontalPodAutoscaler: set_defaults_hpa_v2beta2,
    v2beta1.HorizontalPodAutoscaler: set_defaults_hpa_v2beta1,
}
# autoscaling/v1 ScaleSpec.replicas "+default=0" changes nothing.
MARKERS: dict = {}
