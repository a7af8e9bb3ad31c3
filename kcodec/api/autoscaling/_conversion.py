"""Conversions between the autoscaling versions and the internal autoscaling version.

The internal HorizontalPodAutoscaler has autoscaling/v2's shape. autoscaling/v1 has a single
CPU utilization target/current value; kubernetes/kubernetes pkg/apis/autoscaling/v1/
conversion.go keeps everything else in annotations so that it survives a v1 client:

* in, ``targetCPUUtilizationPercentage`` becomes a Resource ``cpu`` metric with an
  average-utilization target; out, the first such metric gives it back;
* the other metrics travel in ``autoscaling.alpha.kubernetes.io/metrics`` (JSON of v1's
  MetricSpec list, the v2beta1-style shapes), all current metrics in
  ``autoscaling.alpha.kubernetes.io/current-metrics``, the conditions in
  ``autoscaling.alpha.kubernetes.io/conditions`` and the behavior in
  ``autoscaling.alpha.kubernetes.io/behavior`` (Go marshals the *internal* type there, so its
  keys are Go field names);
* an HPA that ends up with no metric at all (no CPU target, no metrics annotation) gets
  the CPU utilization target of 80 % that v1's controller used to imply;
* coming back, the annotation metrics come first and the CPU target metric last (a metric
  order other than that is upstream's deliberate loss), and the annotations are removed.

autoscaling/v2 holds everything the internal version does: both ways, Go's
DropRoundTripHorizontalPodAutoscalerAnnotations removes the annotations above and the two
tolerance annotations (``autoscaling.alpha.kubernetes.io/scale-{down,up}-tolerance``). The
removed v2beta2 (Kubernetes 1.35's pkg/apis/autoscaling/v2beta2/conversion.go) has no
scaling-rule tolerance: it travels in those two annotations (the quantity's canonical
string; an unparsable one fails the conversion with Go's text). The removed autoscaling/v2beta1 (Kubernetes 1.35's
pkg/apis/autoscaling/v2beta1/conversion.go) has v1's annotation metric shapes as its own
fields and keeps only the behavior in its annotation (written from the internal type,
read back when well-formed and non-empty); the other round-trip annotations are dropped.

The per-metric conversions between v1's and the internal shapes are upstream's: an object or
external target with an average value is an AverageValue target, else a Value target; a
resource target with a utilization is a Utilization target, else AverageValue.
autoscaling/v1 and v2beta1 carry HPAScalingRules.tolerance inside the behavior annotation
(Go marshals the internal type there), not in the two tolerance annotations.
"""
from __future__ import annotations

from typing import Any

import json
import re
import sys

from kcodec.api._hub import copy_map, register_package
from kcodec.api.autoscaling import internal as api
from kcodec.api.autoscaling import v1
from kcodec.api.removed import autoscaling_v2beta1 as v2beta1
from kcodec.api.autoscaling._defaults import DEFAULT_CPU_UTILIZATION
from kcodec.conversion import Scope
from kcodec.errors import ConversionError, KCodecError
from kcodec.model import from_tree, to_tree
from kcodec import gojson as _gojson
from kcodec.types import Quantity

METRIC_SPECS = "autoscaling.alpha.kubernetes.io/metrics"
METRIC_STATUSES = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior"
TOLERANCE_SCALE_DOWN = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
TOLERANCE_SCALE_UP = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"

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


# -- v1 metric shapes <-> internal ------------------------------------------------------------

def _ref_in(scope: Scope, ref: v1.CrossVersionObjectReference) -> api.CrossVersionObjectReference:
    return api.CrossVersionObjectReference(kind=ref.kind, name=ref.name, api_version=ref.api_version)


def _ref_out(ref: api.CrossVersionObjectReference, dst: Any) -> Any:
    """``ref`` as the CrossVersionObjectReference of ``dst``'s version (v1 or v2beta1)."""
    cls = sys.modules[type(dst).__module__].CrossVersionObjectReference
    return cls(kind=ref.kind, name=ref.name, api_version=ref.api_version)


def _q(v: Quantity | None) -> Quantity:
    return Quantity._zero() if v is None else v


def _object_source_in(src: v1.ObjectMetricSource, dst: api.ObjectMetricSource, scope: Scope) -> None:
    dst.described_object = _ref_in(scope, src.target)
    dst.metric = api.MetricIdentifier(name=src.metric_name, selector=src.selector)
    kind = "Value" if src.average_value is None else "AverageValue"
    dst.target = api.MetricTarget(type=kind, value=src.target_value, average_value=src.average_value)


def _object_source_out(src: api.ObjectMetricSource, dst: v1.ObjectMetricSource, scope: Scope) -> None:
    dst.target = _ref_out(src.described_object, dst)
    dst.metric_name, dst.selector = src.metric.name, src.metric.selector
    dst.target_value = _q(src.target.value)
    dst.average_value = src.target.average_value


def _pods_source_in(src: v1.PodsMetricSource, dst: api.PodsMetricSource, scope: Scope) -> None:
    dst.metric = api.MetricIdentifier(name=src.metric_name, selector=src.selector)
    dst.target = api.MetricTarget(type="AverageValue", average_value=src.target_average_value)


def _pods_source_out(src: api.PodsMetricSource, dst: v1.PodsMetricSource, scope: Scope) -> None:
    dst.metric_name, dst.selector = src.metric.name, src.metric.selector
    dst.target_average_value = _q(src.target.average_value)


def _resource_target(src: Any) -> api.MetricTarget:
    kind = "AverageValue" if src.target_average_utilization is None else "Utilization"
    return api.MetricTarget(type=kind, average_value=src.target_average_value,
                            average_utilization=src.target_average_utilization)


def _resource_source_in(src: Any, dst: Any, scope: Scope) -> None:
    dst.name = src.name
    dst.target = _resource_target(src)
    if hasattr(dst, "container"):
        dst.container = src.container


def _resource_source_out(src: Any, dst: Any, scope: Scope) -> None:
    dst.name = src.name
    dst.target_average_utilization = src.target.average_utilization
    dst.target_average_value = src.target.average_value
    if hasattr(dst, "container"):
        dst.container = src.container


def _external_source_in(src: v1.ExternalMetricSource, dst: api.ExternalMetricSource, scope: Scope) -> None:
    dst.metric = api.MetricIdentifier(name=src.metric_name, selector=src.metric_selector)
    kind = "Value" if src.target_value is not None else "AverageValue"
    dst.target = api.MetricTarget(type=kind, value=src.target_value,
                                  average_value=src.target_average_value)


def _external_source_out(src: api.ExternalMetricSource, dst: v1.ExternalMetricSource, scope: Scope) -> None:
    dst.metric_name, dst.metric_selector = src.metric.name, src.metric.selector
    dst.target_value = src.target.value
    dst.target_average_value = src.target.average_value


def _object_status_in(src: v1.ObjectMetricStatus, dst: api.ObjectMetricStatus, scope: Scope) -> None:
    dst.described_object = _ref_in(scope, src.target)
    dst.metric = api.MetricIdentifier(name=src.metric_name, selector=src.selector)
    dst.current = api.MetricValueStatus(value=src.current_value, average_value=src.average_value)


def _object_status_out(src: api.ObjectMetricStatus, dst: v1.ObjectMetricStatus, scope: Scope) -> None:
    dst.target = _ref_out(src.described_object, dst)
    dst.metric_name, dst.selector = src.metric.name, src.metric.selector
    dst.current_value = _q(src.current.value)
    dst.average_value = src.current.average_value


def _pods_status_in(src: v1.PodsMetricStatus, dst: api.PodsMetricStatus, scope: Scope) -> None:
    dst.metric = api.MetricIdentifier(name=src.metric_name, selector=src.selector)
    dst.current = api.MetricValueStatus(average_value=src.current_average_value)


def _pods_status_out(src: api.PodsMetricStatus, dst: v1.PodsMetricStatus, scope: Scope) -> None:
    dst.metric_name, dst.selector = src.metric.name, src.metric.selector
    dst.current_average_value = _q(src.current.average_value)


def _resource_status_in(src: Any, dst: Any, scope: Scope) -> None:
    dst.name = src.name
    dst.current = api.MetricValueStatus(average_value=src.current_average_value,
                                        average_utilization=src.current_average_utilization)
    if hasattr(dst, "container"):
        dst.container = src.container


def _resource_status_out(src: Any, dst: Any, scope: Scope) -> None:
    dst.name = src.name
    dst.current_average_utilization = src.current.average_utilization
    dst.current_average_value = _q(src.current.average_value)
    if hasattr(dst, "container"):
        dst.container = src.container


def _external_status_in(src: v1.ExternalMetricStatus, dst: api.ExternalMetricStatus, scope: Scope) -> None:
    dst.metric = api.MetricIdentifier(name=src.metric_name, selector=src.metric_selector)
    dst.current = api.MetricValueStatus(value=src.current_value,
                                        average_value=src.current_average_value)


def _external_status_out(src: api.ExternalMetricStatus, dst: v1.ExternalMetricStatus, scope: Scope) -> None:
    dst.metric_name, dst.metric_selector = src.metric.name, src.metric.selector
    dst.current_value = _q(src.current.value)
    dst.current_average_value = src.current.average_value


_METRIC_FUNCS = [
    ("ObjectMetricSource", _object_source_in, _object_source_out),
    ("PodsMetricSource", _pods_source_in, _pods_source_out),
    ("ResourceMetricSource", _resource_source_in, _resource_source_out),
    ("ContainerResourceMetricSource", _resource_source_in, _resource_source_out),
    ("ExternalMetricSource", _external_source_in, _external_source_out),
    ("ObjectMetricStatus", _object_status_in, _object_status_out),
    ("PodsMetricStatus", _pods_status_in, _pods_status_out),
    ("ResourceMetricStatus", _resource_status_in, _resource_status_out),
    ("ContainerResourceMetricStatus", _resource_status_in, _resource_status_out),
    ("ExternalMetricStatus", _external_status_in, _external_status_out),
]


# -- annotations --------------------------------------------------------------------------------

def _encode_list(scope: Scope, items: list[Any], cls: type) -> str:
    out = []
    for item in items:
        ext = cls()
        scope.convert(item, ext)
        out.append(to_tree(ext))
    return _gojson.dumps(out).decode("utf-8")


def _decode_list(scope: Scope, text: str, ext_cls: type, int_cls: type) -> list[Any] | None:
    try:
        tree = json.loads(text)
        if not isinstance(tree, list):
            return None
        items = [from_tree(ext_cls, t) for t in tree]
    except Exception:
        return None  # Go ignores an annotation it cannot unmarshal (and keeps it)
    out = []
    for item in items:
        i = int_cls()
        scope.convert(item, i)
        out.append(i)
    return out


def _go_name(attr: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in attr.split("_"))


def _go_tree(obj: Any) -> Any:
    """Go's json.Marshal of an internal (tagless) struct: Go field names, nothing omitted."""
    from kcodec.model import Struct, fields_of

    if isinstance(obj, Struct):
        return {_go_name(f.name): _go_tree(getattr(obj, f.name)) for f in fields_of(type(obj))}
    if isinstance(obj, list):
        return [_go_tree(v) for v in obj]
    if isinstance(obj, Quantity):
        return str(obj)
    return obj


def _behavior_from(text: str) -> api.HorizontalPodAutoscalerBehavior | None:
    """Go's json.Unmarshal into the internal behavior: keys match field names case-insensitively."""
    def norm(tree: Any) -> Any:
        if isinstance(tree, dict):
            return {_JSON_NAMES.get(k.lower(), k): norm(v) for k, v in tree.items()}
        if isinstance(tree, list):
            return [norm(v) for v in tree]
        return tree

    try:
        return from_tree(api.HorizontalPodAutoscalerBehavior, norm(json.loads(text)))
    except Exception:
        return None


_JSON_NAMES = {re.sub("_", "", n): j for n, j in (
    ("scale_up", "scaleUp"), ("scale_down", "scaleDown"),
    ("stabilization_window_seconds", "stabilizationWindowSeconds"),
    ("select_policy", "selectPolicy"), ("policies", "policies"), ("tolerance", "tolerance"),
    ("type", "type"), ("value", "value"), ("period_seconds", "periodSeconds"))}


def _hpa_meta_out(src: api.HorizontalPodAutoscaler, dst: v1.HorizontalPodAutoscaler, scope: Scope) -> None:
    others = [m for m in src.spec.metrics or () if _cpu_target(m) is None]
    extra: dict[str, str] = {}
    if others:
        extra[METRIC_SPECS] = _encode_list(scope, others, v1.MetricSpec)
    if src.status.current_metrics:
        extra[METRIC_STATUSES] = _encode_list(scope, src.status.current_metrics, v1.MetricStatus)
    if src.spec.behavior is not None:
        extra[BEHAVIOR] = _gojson.dumps(_go_tree(src.spec.behavior)).decode("utf-8")
    if src.status.conditions:
        extra[CONDITIONS] = _encode_list(scope, src.status.conditions, v1.HorizontalPodAutoscalerCondition)
    meta = src.metadata
    if extra:
        meta = meta.deep_copy()
        meta.annotations = {**(meta.annotations or {}), **extra}
    dst.metadata = meta


def _hpa_meta_in(src: v1.HorizontalPodAutoscaler, dst: api.HorizontalPodAutoscaler, scope: Scope) -> None:
    # runs first (declaration order): spec and status read the annotations from src
    ann = src.metadata.annotations
    dst.metadata = src.metadata
    if not ann or not any(k in ann for k in (METRIC_SPECS, METRIC_STATUSES, CONDITIONS, BEHAVIOR)):
        return
    kept = copy_map(ann)
    if METRIC_SPECS in ann and _decode_list(scope, ann[METRIC_SPECS], v1.MetricSpec, api.MetricSpec) is not None:
        del kept[METRIC_SPECS]
    if METRIC_STATUSES in ann and _decode_list(scope, ann[METRIC_STATUSES], v1.MetricStatus,
                                               api.MetricStatus) is not None:
        del kept[METRIC_STATUSES]
    if CONDITIONS in ann and _decode_list(scope, ann[CONDITIONS], v1.HorizontalPodAutoscalerCondition,
                                          api.HorizontalPodAutoscalerCondition) is not None:
        del kept[CONDITIONS]
    if BEHAVIOR in ann and _behavior_from(ann[BEHAVIOR]) is not None:
        del kept[BEHAVIOR]
    meta = src.metadata.deep_copy()
    meta.annotations = kept or None
    dst.metadata = meta


def _hpa_spec_in(src: v1.HorizontalPodAutoscaler, dst: api.HorizontalPodAutoscaler, scope: Scope) -> None:
    spec = api.HorizontalPodAutoscalerSpec()
    scope.convert(src.spec, spec)
    ann = src.metadata.annotations or {}
    if METRIC_SPECS in ann:
        others = _decode_list(scope, ann[METRIC_SPECS], v1.MetricSpec, api.MetricSpec)
        if others is not None:
            spec.metrics = others + list(spec.metrics or ())
    if BEHAVIOR in ann:
        behavior = _behavior_from(ann[BEHAVIOR])
        if behavior is not None:
            spec.behavior = behavior
    if not spec.metrics:
        # autoscaling/v1's controller used to apply an implicit CPU target; Go's
        # Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler makes it
        # explicit once the annotation's metrics are known.
        spec.metrics = [api.MetricSpec(type="Resource", resource=api.ResourceMetricSource(
            name="cpu", target=api.MetricTarget(type="Utilization",
                                                average_utilization=DEFAULT_CPU_UTILIZATION)))]
    dst.spec = spec


def _hpa_status_in(src: v1.HorizontalPodAutoscaler, dst: api.HorizontalPodAutoscaler, scope: Scope) -> None:
    status = api.HorizontalPodAutoscalerStatus()
    scope.convert(src.status, status)
    ann = src.metadata.annotations or {}
    if METRIC_STATUSES in ann:
        current = _decode_list(scope, ann[METRIC_STATUSES], v1.MetricStatus, api.MetricStatus)
        if current is not None:
            status.current_metrics = current
    if CONDITIONS in ann:
        conditions = _decode_list(scope, ann[CONDITIONS], v1.HorizontalPodAutoscalerCondition,
                                  api.HorizontalPodAutoscalerCondition)
        if conditions is not None:
            status.conditions = conditions
    dst.status = status


# -- the removed autoscaling/v2beta1 and v2beta2 (pkg/apis/autoscaling/v2beta1 and v2beta2
# conversion.go of Kubernetes 1.35) -----------------------------------------------------------

# pkg/apis/autoscaling/helpers.go DropRoundTripHorizontalPodAutoscalerAnnotations (1.33+)
_ROUND_TRIP = (METRIC_SPECS, BEHAVIOR, TOLERANCE_SCALE_DOWN, TOLERANCE_SCALE_UP, METRIC_STATUSES,
               CONDITIONS)


def _drop_round_trip(meta: Any) -> Any:
    """Go's DropRoundTripHorizontalPodAutoscalerAnnotations: ``meta`` without the annotations
    other versions round-trip through (a copy when there are any)."""
    ann = meta.annotations
    if not ann or not any(k in ann for k in _ROUND_TRIP):
        return meta
    meta = meta.deep_copy()
    meta.annotations = {k: v for k, v in ann.items() if k not in _ROUND_TRIP} or None
    return meta


def _drop_round_trip_meta(src: Any, dst: Any, scope: Scope) -> None:
    dst.metadata = _drop_round_trip(src.metadata)


def _v2beta1_meta_out(src: api.HorizontalPodAutoscaler, dst: Any, scope: Scope) -> None:
    meta = _drop_round_trip(src.metadata)
    if src.spec.behavior is not None:
        # Go marshals the internal behavior here (its keys are Go field names)
        if meta is src.metadata:
            meta = meta.deep_copy()
        meta.annotations = {**(meta.annotations or {}),
                            BEHAVIOR: _gojson.dumps(_go_tree(src.spec.behavior)).decode("utf-8")}
    dst.metadata = meta


def _v2beta1_spec_in(src: Any, dst: api.HorizontalPodAutoscaler, scope: Scope) -> None:
    spec = api.HorizontalPodAutoscalerSpec()
    scope.convert(src.spec, spec)
    text = (src.metadata.annotations or {}).get(BEHAVIOR)
    if text is not None:
        behavior = _behavior_from(text)
        # only well-formed, non-empty data moves from the annotation to the field
        if behavior is not None and (behavior.scale_up is not None or behavior.scale_down is not None):
            spec.behavior = behavior
    dst.spec = spec


def _v2beta2_meta_out(src: api.HorizontalPodAutoscaler, dst: Any, scope: Scope) -> None:
    """v2beta2 has no HPAScalingRules.tolerance: Go keeps each in an annotation (the
    quantity's canonical string)."""
    meta = _drop_round_trip(src.metadata)
    behavior = src.spec.behavior
    extra = {}
    if behavior is not None:
        if behavior.scale_down is not None and behavior.scale_down.tolerance is not None:
            extra[TOLERANCE_SCALE_DOWN] = str(behavior.scale_down.tolerance)
        if behavior.scale_up is not None and behavior.scale_up.tolerance is not None:
            extra[TOLERANCE_SCALE_UP] = str(behavior.scale_up.tolerance)
    if extra:
        if meta is src.metadata:
            meta = meta.deep_copy()
        meta.annotations = {**(meta.annotations or {}), **extra}
    dst.metadata = meta


def _v2beta2_spec_in(src: Any, dst: api.HorizontalPodAutoscaler, scope: Scope) -> None:
    spec = api.HorizontalPodAutoscalerSpec()
    scope.convert(src.spec, spec)
    ann = src.metadata.annotations or {}
    for key, side in ((TOLERANCE_SCALE_DOWN, "scale_down"), (TOLERANCE_SCALE_UP, "scale_up")):
        text = ann.get(key)
        if text is None:
            continue
        # spec.behavior is this conversion's own: v2beta2's class is not the internal one
        behavior = spec.behavior
        if behavior is None:
            behavior = spec.behavior = api.HorizontalPodAutoscalerBehavior()
        rules = getattr(behavior, side)
        if rules is None:
            rules = api.HPAScalingRules()
            setattr(behavior, side, rules)
        try:
            rules.tolerance = Quantity(text)
        except KCodecError as exc:
            raise ConversionError(f"failed to parse annotation {_gojson.dumps(key).decode()}: {exc}") from None
    dst.spec = spec


def add_conversion_funcs(scheme: Any) -> None:
    """Register every autoscaling version <-> internal conversion with ``scheme``."""
    # v2 round-trips without annotations: other versions' ones are dropped both ways
    # (pkg/apis/autoscaling/v2/conversion.go)
    drop_both_ways: dict[str, Any] = {
        "to_internal": {"HorizontalPodAutoscaler": {"metadata": _drop_round_trip_meta}},
        "to_external": {"HorizontalPodAutoscaler": {"metadata": _drop_round_trip_meta}},
    }
    register_package(scheme, "autoscaling", v1={
        "to_internal": {"HorizontalPodAutoscalerSpec": {"metrics": _metrics_in},
                        "HorizontalPodAutoscalerStatus": {"current_metrics": _current_metrics_in},
                        "HorizontalPodAutoscaler": {"metadata": _hpa_meta_in, "spec": _hpa_spec_in,
                                                    "status": _hpa_status_in}},
        "to_external": {
            "HorizontalPodAutoscalerSpec": {"target_cpu_utilization_percentage": _cpu_target_out},
            "HorizontalPodAutoscalerStatus": {
                "current_cpu_utilization_percentage": _current_cpu_out},
            "HorizontalPodAutoscaler": {"metadata": _hpa_meta_out},
        },
        # v1's metric shapes (only in annotations) have hand-written functions below
        "skip": tuple(name for name, _, _ in _METRIC_FUNCS),
    }, v2beta1={
        "to_internal": {"HorizontalPodAutoscaler": {"metadata": _drop_round_trip_meta,
                                                    "spec": _v2beta1_spec_in}},
        "to_external": {"HorizontalPodAutoscaler": {"metadata": _v2beta1_meta_out}},
        # v2beta1's metric shapes are v1's annotation shapes
        "skip": tuple(name for name, _, _ in _METRIC_FUNCS),
    }, v2=drop_both_ways, v2beta2={
        # Kubernetes 1.35's pkg/apis/autoscaling/v2beta2/conversion.go: tolerances travel in
        # annotations; the others are dropped
        "to_internal": {"HorizontalPodAutoscaler": {"metadata": _drop_round_trip_meta,
                                                    "spec": _v2beta2_spec_in}},
        "to_external": {"HorizontalPodAutoscaler": {"metadata": _v2beta2_meta_out}},
    })
    for ext in (v1, v2beta1):
        for name, fn_in, fn_out in _METRIC_FUNCS:
            scheme.add_conversion_func(getattr(ext, name), getattr(api, name), fn_in)
            scheme.add_conversion_func(getattr(api, name), getattr(ext, name), fn_out)
