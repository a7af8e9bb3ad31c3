"""Validation of the policy group's internal objects (Go: k8s.io/kubernetes
pkg/apis/policy/validation/validation.go): PodDisruptionBudget.

As in Go, ``validate_pod_disruption_budget`` checks the spec only; the object's metadata is
checked by the registry's generic create and update steps (apiserver rest.BeforeCreate's
``ValidateObjectMetaAccessor`` with path-segment names), and the spec may change on update.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.apps.validation import is_not_more_than_100_percent, validate_positive_int_or_percent
from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_pod_disruption_budget",
    "validate_pod_disruption_budget_update",
    "validate_pod_disruption_budget_status_update",
]

_POLICIES = ["AlwaysAllow", "IfHealthyBudget"]


def _validate_spec(spec: Any, path: Path, allow_invalid_label_value: bool) -> ErrorList:
    errs = ErrorList()
    if spec.min_available is not None and spec.max_unavailable is not None:
        errs.append(fld.invalid(path, spec, "minAvailable and maxUnavailable cannot be both set"))
    for attr, js in (("min_available", "minAvailable"), ("max_unavailable", "maxUnavailable")):
        v = getattr(spec, attr)
        if v is not None:
            errs.extend(validate_positive_int_or_percent(v, path.child(js)))
            errs.extend(is_not_more_than_100_percent(v, path.child(js)))
    errs.extend(om.validate_label_selector(spec.selector, path.child("selector"),
                                           allow_invalid_label_value=allow_invalid_label_value))
    p = spec.unhealthy_pod_eviction_policy
    if p is not None and p not in _POLICIES:
        errs.append(fld.not_supported(path.child("unhealthyPodEvictionPolicy"), p, _POLICIES))
    return errs


def validate_pod_disruption_budget(pdb: Any, *, allow_invalid_label_value_in_selector: bool = False) -> ErrorList:
    """Go: ``ValidatePodDisruptionBudget``."""
    return _validate_spec(pdb.spec, Path("spec"), allow_invalid_label_value_in_selector)


def validate_pod_disruption_budget_update(new: Any, old: Any) -> ErrorList:
    """Go: the PDB strategy's ValidateUpdate (``ValidatePodDisruptionBudget`` of the new
    object, keeping an invalid label value the old selector already had)."""
    allow = any(names.is_valid_label_value(v) for e in (old.spec.selector.match_expressions or [])
                for v in e.values or []) if old.spec.selector is not None else False
    return validate_pod_disruption_budget(new, allow_invalid_label_value_in_selector=allow)


def validate_pod_disruption_budget_status_update(new: Any, old: Any, *, api_version: str = "policy/v1") -> ErrorList:
    """Go: ``ValidatePodDisruptionBudgetStatusUpdate`` (conditions; counters too, except for
    policy/v1beta1 requests)."""
    sp = Path("status")
    errs = om.validate_conditions(new.status.conditions, sp.child("conditions"))
    if api_version == "policy/v1beta1":
        return errs
    for attr, js in (("disruptions_allowed", "disruptionsAllowed"), ("current_healthy", "currentHealthy"),
                     ("desired_healthy", "desiredHealthy"), ("expected_pods", "expectedPods")):
        errs.extend(names.validate_nonnegative_field(getattr(new.status, attr), sp.child(js)))
    return errs
