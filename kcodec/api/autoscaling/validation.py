"""Validation of the autoscaling group's internal objects (Go: k8s.io/kubernetes
pkg/apis/autoscaling/validation/validation.go): HorizontalPodAutoscaler and Scale.
HPAScaleToZero is off in 1.36 (alpha), so ``minReplicas`` must be at least 1 unless an
existing object already has 0.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.core import validation as core
from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "MAX_PERIOD_SECONDS",
    "MAX_STABILIZATION_WINDOW_SECONDS",
    "validate_scale",
    "validate_cross_version_object_reference",
    "validate_horizontal_pod_autoscaler",
    "validate_horizontal_pod_autoscaler_update",
    "validate_horizontal_pod_autoscaler_status_update",
]

MAX_PERIOD_SECONDS = 1800
MAX_STABILIZATION_WINDOW_SECONDS = 3600
_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"]
_SOURCE_FIELDS = {"Object": "object", "Pods": "pods", "Resource": "resource", "External": "external",
                  "ContainerResource": "containerResource"}


def validate_scale(scale: Any) -> ErrorList:
    """Go: ``ValidateScale``."""
    errs = core.validate_object_meta(scale.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    if scale.spec.replicas < 0:
        errs.append(fld.invalid(Path("spec", "replicas"), scale.spec.replicas, "must be greater than or equal to 0"))
    return errs


def _path_segment(value: str, path: Path) -> ErrorList:
    return ErrorList(fld.invalid(path, value, m) for m in names.is_valid_path_segment_name(value))


def validate_cross_version_object_reference(ref: Any, path: Path) -> ErrorList:
    """Go: ``ValidateCrossVersionObjectReference``."""
    errs = ErrorList()
    for attr in ("kind", "name"):
        v = getattr(ref, attr)
        if not v:
            errs.append(fld.required(path.child(attr), ""))
        else:
            errs.extend(_path_segment(v, path.child(attr)))
    return errs


def _validate_metric_target(mt: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if not mt.type:
        errs.append(fld.required(path.child("type"), "must specify a metric target type"))
    if mt.type not in ("Utilization", "Value", "AverageValue"):
        errs.append(fld.invalid(path.child("type"), mt.type, "must be either Utilization, Value, or AverageValue"))
    if mt.value is not None and mt.value.sign() != 1:
        errs.append(fld.invalid(path.child("value"), mt.value, "must be positive"))
    if mt.average_value is not None and mt.average_value.sign() != 1:
        errs.append(fld.invalid(path.child("averageValue"), mt.average_value, "must be positive"))
    if mt.average_utilization is not None and mt.average_utilization < 1:
        errs.append(fld.invalid(path.child("averageUtilization"), mt.average_utilization, "must be greater than 0"))
    return errs


def _validate_metric_identifier(mid: Any, path: Path) -> ErrorList:
    if not mid.name:
        return ErrorList([fld.required(path.child("name"), "must specify a metric name")])
    return _path_segment(mid.name, path.child("name"))


def _validate_source(kind: str, src: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    tp = path.child("target")
    t = src.target
    if kind == "object":
        errs.extend(validate_cross_version_object_reference(src.described_object, path.child("describedObject")))
        errs.extend(_validate_metric_identifier(src.metric, path.child("metric")))
        errs.extend(_validate_metric_target(t, tp))
        if t.value is None and t.average_value is None:
            errs.append(fld.required(tp.child("averageValue"), "must set either a target value or averageValue"))
    elif kind == "external":
        errs.extend(_validate_metric_identifier(src.metric, path.child("metric")))
        errs.extend(_validate_metric_target(t, tp))
        if t.value is None and t.average_value is None:
            errs.append(fld.required(tp.child("averageValue"), "must set either a target value for metric or a per-pod "
                                                               "target"))
        if t.value is not None and t.average_value is not None:
            errs.append(fld.forbidden(tp.child("value"), "may not set both a target value for metric and a per-pod target"))
    elif kind == "pods":
        errs.extend(_validate_metric_identifier(src.metric, path.child("metric")))
        errs.extend(_validate_metric_target(t, tp))
        if t.average_value is None:
            errs.append(fld.required(tp.child("averageValue"), "must specify a positive target averageValue"))
    else:
        if not src.name:
            errs.append(fld.required(path.child("name"), "must specify a resource name"))
        elif kind == "containerResource":
            errs.extend(core.validate_container_resource_name(src.name, path.child("name")))
        if kind == "containerResource":
            if not src.container:
                errs.append(fld.required(path.child("container"), "must specify a container"))
            else:
                errs.extend(fld.invalid(path.child("container"), src.container, m)
                            for m in names.is_dns1123_label(src.container))
        errs.extend(_validate_metric_target(t, tp))
        if t.average_utilization is None and t.average_value is None:
            errs.append(fld.required(tp.child("averageUtilization"), "must set either a target raw value or a target "
                                                                     "utilization"))
        if t.average_utilization is not None and t.average_value is not None:
            errs.append(fld.forbidden(tp.child("averageValue"), "may not set both a target raw value and a target "
                                                                "utilization"))
    return errs


def _validate_metric_spec(spec: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if not spec.type:
        errs.append(fld.required(path.child("type"), "must specify a metric source type"))
    if spec.type not in _SOURCE_TYPES:
        errs.append(fld.not_supported(path.child("type"), spec.type, _SOURCE_TYPES))
    present: list[str] = []
    for attr, kind in (("object", "object"), ("external", "external"), ("pods", "pods"), ("resource", "resource"),
                       ("container_resource", "containerResource")):
        src = getattr(spec, attr)
        if src is None:
            continue
        present.append(kind)
        if len(present) == 1:
            errs.extend(_validate_source(kind, src, path.child(kind)))
    expected = _SOURCE_FIELDS.get(spec.type, "")
    if expected:
        attr = "container_resource" if expected == "containerResource" else expected
        if getattr(spec, attr) is None:
            errs.append(fld.required(path.child(expected), "must populate information for the given metric source"))
    else:
        errs.append(fld.not_supported(path.child("type"), spec.type, _SOURCE_TYPES))
    if len(present) != 1:
        for kind in sorted(set(present) - {expected}):
            errs.append(fld.forbidden(path.child(kind), "must populate the given metric source only"))
    return errs


def _validate_scaling_rules(rules: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if rules is None:
        return errs
    sw = rules.stabilization_window_seconds
    if sw is not None and sw < 0:
        errs.append(fld.invalid(path.child("stabilizationWindowSeconds"), sw, "must be greater than or equal to zero"))
    if sw is not None and sw > MAX_STABILIZATION_WINDOW_SECONDS:
        errs.append(fld.invalid(path.child("stabilizationWindowSeconds"), sw,
                                f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"))
    if rules.select_policy is not None and rules.select_policy not in ("Disabled", "Max", "Min"):
        errs.append(fld.not_supported(path.child("selectPolicy"), rules.select_policy, ["Disabled", "Max", "Min"]))
    pp = path.child("policies")
    policies = list(rules.policies or [])
    if not policies:
        errs.append(fld.required(pp, "must specify at least one Policy"))
    for i, p in enumerate(policies):
        ip = pp.index(i)
        if p.type not in ("Pods", "Percent"):
            errs.append(fld.not_supported(ip.child("type"), p.type, ["Percent", "Pods"]))
        if p.value <= 0:
            errs.append(fld.invalid(ip.child("value"), p.value, "must be greater than zero"))
        if p.period_seconds <= 0:
            errs.append(fld.invalid(ip.child("periodSeconds"), p.period_seconds, "must be greater than zero"))
        if p.period_seconds > MAX_PERIOD_SECONDS:
            errs.append(fld.invalid(ip.child("periodSeconds"), p.period_seconds,
                                    f"must be less than or equal to {MAX_PERIOD_SECONDS}"))
    return errs


def _validate_spec(spec: Any, path: Path, min_lower: int) -> ErrorList:
    errs = ErrorList()
    if spec.min_replicas is not None and spec.min_replicas < min_lower:
        errs.append(fld.invalid(path.child("minReplicas"), spec.min_replicas, f"must be greater than or equal to {min_lower}"))
    if spec.max_replicas < 1:
        errs.append(fld.invalid(path.child("maxReplicas"), spec.max_replicas, "must be greater than 0"))
    if spec.min_replicas is not None and spec.max_replicas < spec.min_replicas:
        errs.append(fld.invalid(path.child("maxReplicas"), spec.max_replicas, "must be greater than or equal to `minReplicas`"))
    errs.extend(validate_cross_version_object_reference(spec.scale_target_ref, path.child("scaleTargetRef")))
    mp = path.child("metrics")
    has_object = has_external = False
    for i, m in enumerate(spec.metrics or []):
        errs.extend(_validate_metric_spec(m, mp.index(i)))
        has_object = has_object or m.type == "Object"
        has_external = has_external or m.type == "External"
    if spec.min_replicas == 0 and not has_object and not has_external:
        errs.append(fld.forbidden(mp, "must specify at least one Object or External metric to support scaling to zero "
                                      "replicas"))
    if spec.behavior is not None:
        errs.extend(_validate_scaling_rules(spec.behavior.scale_up, path.child("behavior").child("scaleUp")))
        errs.extend(_validate_scaling_rules(spec.behavior.scale_down, path.child("behavior").child("scaleDown")))
    return errs


def validate_horizontal_pod_autoscaler(hpa: Any) -> ErrorList:
    """Go: ``ValidateHorizontalPodAutoscaler``."""
    errs = core.validate_object_meta(hpa.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_spec(hpa.spec, Path("spec"), 1))
    return errs


def validate_horizontal_pod_autoscaler_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateHorizontalPodAutoscalerUpdate``."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    lower = 0 if old.spec.min_replicas == 0 else 1
    errs.extend(_validate_spec(new.spec, Path("spec"), lower))
    return errs


def validate_horizontal_pod_autoscaler_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateHorizontalPodAutoscalerStatusUpdate``."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(names.validate_nonnegative_field(new.status.current_replicas, Path("status", "currentReplicas")))
    errs.extend(names.validate_nonnegative_field(new.status.desired_replicas, Path("status", "desiredReplicas")))
    return errs
