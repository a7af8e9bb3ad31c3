"""Validation of the apps group's internal objects (Go: k8s.io/kubernetes
pkg/apis/apps/validation/validation.go): Deployment, ReplicaSet, StatefulSet, DaemonSet and
ControllerRevision, with Go's field paths and texts, e.g.
``spec.template.metadata.labels: Invalid value: {"app":"y"}: `selector` does not match
template `labels```.
"""
from __future__ import annotations

import re
from typing import Any

from kcodec.api.core import validation as core
from kcodec.api.core.validation import PodValidationOptions
from kcodec.labels import SelectorParseError, label_selector_as_selector
from kcodec.types import INT, STRING, IntOrString
from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_deployment",
    "validate_deployment_update",
    "validate_deployment_status_update",
    "validate_replica_set",
    "validate_replica_set_update",
    "validate_replica_set_status_update",
    "validate_stateful_set",
    "validate_stateful_set_update",
    "validate_stateful_set_status_update",
    "validate_daemon_set",
    "validate_daemon_set_update",
    "validate_daemon_set_status_update",
    "validate_controller_revision",
    "validate_controller_revision_update",
    "validate_positive_int_or_percent",
    "is_not_more_than_100_percent",
]

_nonneg = names.validate_nonnegative_field
_SELECTOR_MISMATCH = "`selector` does not match template `labels`"


def _ios(v: IntOrString | None) -> IntOrString:
    # Internal Go types hold these by value; kcodec's shared v1 classes may leave None.
    return v if v is not None else IntOrString(0)


def validate_positive_int_or_percent(v: IntOrString, path: Path) -> ErrorList:
    """Go: ``ValidatePositiveIntOrPercent``."""
    if v.type == STRING:
        return ErrorList(fld.invalid(path, v, m) for m in names.is_valid_percent(v.str_val))
    if v.type == INT:
        return _nonneg(v.int_value(), path)
    return ErrorList([fld.invalid(path, v, "must be an integer or percentage (e.g '5%%')")])


def _percent(v: IntOrString) -> tuple[int, bool]:
    if v.type != STRING or names.is_valid_percent(v.str_val):
        return 0, False
    return int(v.str_val[:-1]), True


def _int_or_percent_value(v: IntOrString) -> int:
    value, is_percent = _percent(v)
    return value if is_percent else v.int_value()


def is_not_more_than_100_percent(v: IntOrString, path: Path) -> ErrorList:
    """Go: ``IsNotMoreThan100Percent``."""
    value, is_percent = _percent(v)
    if not is_percent or value <= 100:
        return ErrorList()
    return ErrorList([fld.invalid(path, v, "must not be greater than 100%")])


def _selector(ps: Any) -> Any:
    try:
        return label_selector_as_selector(ps)
    except SelectorParseError:
        return None


def _validate_selector_required(ps: Any, path: Path, kind: str) -> ErrorList:
    if ps is None:
        return ErrorList([fld.required(path, "")])
    errs = om.validate_label_selector(ps, path)
    if not (ps.match_labels or {}) and not (ps.match_expressions or []):
        errs.append(fld.invalid(path, ps, f"empty selector is invalid for {kind}"))
    return errs


def _validate_template_for_replica_set(template: Any, selector: Any, path: Path, opts: PodValidationOptions,
                                       kind: str) -> ErrorList:
    errs = ErrorList()
    if template is None:
        return ErrorList([fld.required(path, "")])
    labels = template.metadata.labels or {}
    if not selector.empty() and not selector.matches(labels):
        errs.append(fld.invalid(path.child("metadata", "labels"), template.metadata.labels, _SELECTOR_MISMATCH))
    errs.extend(core.validate_pod_template_spec(template, path, opts))
    if template.spec.restart_policy != "Always":
        errs.append(fld.not_supported(path.child("spec", "restartPolicy"), template.spec.restart_policy, ["Always"]))
    if template.spec.active_deadline_seconds is not None:
        errs.append(fld.forbidden(path.child("spec", "activeDeadlineSeconds"),
                                  f"activeDeadlineSeconds in {kind} is not Supported"))
    return errs


# --- Deployment ------------------------------------------------------------------------------

def _validate_rolling_update_deployment(ru: Any, path: Path) -> ErrorList:
    mu, ms = _ios(ru.max_unavailable), _ios(ru.max_surge)
    errs = validate_positive_int_or_percent(mu, path.child("maxUnavailable"))
    errs.extend(validate_positive_int_or_percent(ms, path.child("maxSurge")))
    if _int_or_percent_value(mu) == 0 and _int_or_percent_value(ms) == 0:
        errs.append(fld.invalid(path.child("maxUnavailable"), mu, "may not be 0 when `maxSurge` is 0"))
    errs.extend(is_not_more_than_100_percent(mu, path.child("maxUnavailable")))
    return errs


def _validate_deployment_strategy(strategy: Any, path: Path) -> ErrorList:
    if strategy.type == "Recreate":
        if strategy.rolling_update is not None:
            return ErrorList([fld.forbidden(path.child("rollingUpdate"),
                                            "may not be specified when strategy `type` is 'Recreate'")])
        return ErrorList()
    if strategy.type == "RollingUpdate":
        if strategy.rolling_update is None:
            return ErrorList([fld.required(path.child("rollingUpdate"), "this should be defaulted and never be nil")])
        return _validate_rolling_update_deployment(strategy.rolling_update, path.child("rollingUpdate"))
    return ErrorList([fld.not_supported(path, strategy, ["Recreate", "RollingUpdate"])])


def _validate_deployment_spec(spec: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = _nonneg(spec.replicas, path.child("replicas"))
    errs.extend(_validate_selector_required(spec.selector, path.child("selector"), "deployment"))
    selector = _selector(spec.selector)
    if selector is None:
        errs.append(fld.invalid(path.child("selector"), spec.selector, "invalid label selector"))
    else:
        errs.extend(_validate_template_for_replica_set(spec.template, selector, path.child("template"), opts,
                                                       "ReplicaSet"))
    errs.extend(_validate_deployment_strategy(spec.strategy, path.child("strategy")))
    errs.extend(_nonneg(spec.min_ready_seconds, path.child("minReadySeconds")))
    if spec.revision_history_limit is not None:
        errs.extend(_nonneg(spec.revision_history_limit, path.child("revisionHistoryLimit")))
    if spec.rollback_to is not None:
        errs.extend(_nonneg(spec.rollback_to.revision, path.child("rollback").child("version")))
    if spec.progress_deadline_seconds is not None:
        errs.extend(_nonneg(spec.progress_deadline_seconds, path.child("progressDeadlineSeconds")))
        if spec.progress_deadline_seconds <= spec.min_ready_seconds:
            errs.append(fld.invalid(path.child("progressDeadlineSeconds"), spec.progress_deadline_seconds,
                                    "must be greater than minReadySeconds"))
    return errs


def validate_deployment(obj: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateDeployment``."""
    errs = core.validate_object_meta(obj.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_deployment_spec(obj.spec, Path("spec"), opts or PodValidationOptions()))
    return errs


def validate_deployment_update(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateDeploymentUpdate``."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_deployment_spec(new.spec, Path("spec"), opts or _update_options(old)))
    return errs


def _update_options(old: Any) -> PodValidationOptions:
    # Go: the strategies keep an invalid label value the old selector already had.
    opts = PodValidationOptions()
    ps = getattr(old.spec, "selector", None)
    if ps is not None and any(names.is_valid_label_value(v) for e in ps.match_expressions or [] for v in e.values or []):
        opts.allow_invalid_label_value_in_selector = True
    return opts


def _validate_deployment_status(status: Any, path: Path) -> ErrorList:
    errs = _nonneg(status.observed_generation, path.child("observedGeneration"))
    for attr in ("replicas", "updated_replicas", "ready_replicas", "available_replicas", "unavailable_replicas"):
        errs.extend(_nonneg(getattr(status, attr), path.child(_camel(attr))))
    if status.collision_count is not None:
        errs.extend(_nonneg(status.collision_count, path.child("collisionCount")))
    msg = "cannot be greater than status.replicas"
    for attr in ("updated_replicas", "ready_replicas", "available_replicas"):
        if getattr(status, attr) > status.replicas:
            errs.append(fld.invalid(path.child(_camel(attr)), getattr(status, attr), msg))
    if status.available_replicas > status.ready_replicas:
        errs.append(fld.invalid(path.child("availableReplicas"), status.available_replicas,
                                "cannot be greater than readyReplicas"))
    return errs


def _camel(attr: str) -> str:
    return re.sub(r"_(.)", lambda m: m.group(1).upper(), attr)


def _collision_decremented(new: Any, old: Any, path: Path) -> ErrorList:
    if core.is_decremented(new.status.collision_count, old.status.collision_count):
        value = new.status.collision_count if new.status.collision_count is not None else 0
        return ErrorList([fld.invalid(path, value, "cannot be decremented")])
    return ErrorList()


def validate_deployment_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateDeploymentStatusUpdate``."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_deployment_status(new.status, Path("status")))
    errs.extend(_collision_decremented(new, old, Path("status").child("collisionCount")))
    return errs


# --- ReplicaSet --------------------------------------------------------------------------------

def _validate_replica_set_spec(spec: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = _nonneg(spec.replicas, path.child("replicas"))
    errs.extend(_nonneg(spec.min_ready_seconds, path.child("minReadySeconds")))
    errs.extend(_validate_selector_required(spec.selector, path.child("selector"), "deployment"))
    selector = _selector(spec.selector)
    if selector is None:
        errs.append(fld.invalid(path.child("selector"), spec.selector, "invalid label selector"))
    else:
        errs.extend(_validate_template_for_replica_set(spec.template, selector, path.child("template"), opts,
                                                       "ReplicaSet"))
    return errs


def validate_replica_set(obj: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateReplicaSet``."""
    errs = core.validate_object_meta(obj.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_replica_set_spec(obj.spec, Path("spec"), opts or PodValidationOptions()))
    return errs


def validate_replica_set_update(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateReplicaSetUpdate``."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_replica_set_spec(new.spec, Path("spec"), opts or _update_options(old)))
    return errs


def validate_replica_set_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateReplicaSetStatusUpdate``."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(core.validate_replica_counts(new.status, Path("status"), (
        "replicas", "fully_labeled_replicas", "ready_replicas", "available_replicas", "observed_generation")))
    return errs


# --- StatefulSet --------------------------------------------------------------------------------

def _validate_template_for_stateful_set(template: Any, selector: Any, path: Path,
                                        opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    if template is None:
        return ErrorList([fld.required(path, "")])
    labels = template.metadata.labels or {}
    if not selector.empty() and not selector.matches(labels):
        errs.append(fld.invalid(path.child("metadata", "labels"), template.metadata.labels, _SELECTOR_MISMATCH))
    # Go leaves the pod spec of a StatefulSet template unvalidated here (its volumes come from
    # the claim templates); labels and annotations are checked.
    errs.extend(om.validate_labels(template.metadata.labels, path.child("labels")))
    errs.extend(om.validate_annotations(template.metadata.annotations, path.child("annotations")))
    errs.extend(core.validate_pod_specific_annotations(template.metadata.annotations, template.spec,
                                                       path.child("annotations"), opts))
    return errs


def _validate_stateful_set_spec(spec: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    pmp = spec.pod_management_policy
    if pmp == "":
        errs.append(fld.required(path.child("podManagementPolicy"), ""))
    elif pmp not in ("OrderedReady", "Parallel"):
        errs.append(fld.invalid(path.child("podManagementPolicy"), pmp, "must be 'OrderedReady' or 'Parallel'"))
    us = spec.update_strategy
    up = path.child("updateStrategy")
    if us.type == "":
        errs.append(fld.required(up, ""))
    elif us.type == "OnDelete":
        if us.rolling_update is not None:
            errs.append(fld.invalid(up.child("rollingUpdate"), us.rolling_update,
                                    "only allowed for updateStrategy 'RollingUpdate'"))
    elif us.type == "RollingUpdate":
        ru = us.rolling_update
        if ru is not None:
            rp = up.child("rollingUpdate")
            errs.extend(_nonneg(ru.partition if ru.partition is not None else 0, rp.child("partition")))
            if ru.max_unavailable is not None:
                mp = rp.child("maxUnavailable")
                errs.extend(validate_positive_int_or_percent(ru.max_unavailable, mp))
                if _int_or_percent_value(ru.max_unavailable) == 0:
                    errs.append(fld.invalid(mp, ru.max_unavailable, "cannot be 0"))
                errs.extend(is_not_more_than_100_percent(ru.max_unavailable, mp))
    else:
        errs.append(fld.invalid(up, us, "must be 'RollingUpdate' or 'OnDelete'"))
    policy = spec.persistent_volume_claim_retention_policy
    if policy is not None:
        pp = path.child("persistentVolumeClaimRetentionPolicy")
        for attr, js in (("when_deleted", "whenDeleted"), ("when_scaled", "whenScaled")):
            v = getattr(policy, attr)
            if v not in ("Retain", "Delete"):
                errs.append(fld.not_supported(pp.child(js), v, ["Retain", "Delete"]))
    errs.extend(_nonneg(spec.replicas, path.child("replicas")))
    errs.extend(_nonneg(spec.min_ready_seconds, path.child("minReadySeconds")))
    if spec.ordinals is not None:
        errs.extend(_nonneg(spec.ordinals.start, path.child("ordinals.start")))
    if spec.selector is None:
        errs.append(fld.required(path.child("selector"), ""))
    else:
        errs.extend(om.validate_label_selector(spec.selector, path.child("selector")))
        if not (spec.selector.match_labels or {}) and not (spec.selector.match_expressions or []):
            errs.append(fld.invalid(path.child("selector"), spec.selector, "empty selector is invalid for statefulset"))
    selector = _selector(spec.selector)
    if selector is None:
        errs.append(fld.invalid(path.child("selector"), spec.selector, ""))
    else:
        errs.extend(_validate_template_for_stateful_set(spec.template, selector, path.child("template"), opts))
    if spec.template.spec.restart_policy != "Always":
        errs.append(fld.not_supported(path.child("template", "spec", "restartPolicy"),
                                      spec.template.spec.restart_policy, ["Always"]))
    if spec.template.spec.active_deadline_seconds is not None:
        errs.append(fld.forbidden(path.child("template", "spec", "activeDeadlineSeconds"),
                                  "activeDeadlineSeconds in StatefulSet is not Supported"))
    return errs


def validate_stateful_set(obj: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateStatefulSet`` (names are DNS labels: pods are named after them)."""
    errs = core.validate_object_meta(obj.metadata, True, names.name_is_dns_label, Path("metadata"))
    errs.extend(_validate_stateful_set_spec(obj.spec, Path("spec"), opts or PodValidationOptions()))
    return errs


def validate_stateful_set_update(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateStatefulSetUpdate``: only replicas, ordinals, template, updateStrategy,
    persistentVolumeClaimRetentionPolicy and minReadySeconds may change."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_stateful_set_spec(new.spec, Path("spec"), opts or _update_options(old)))
    clone = new.spec.deep_copy()
    for attr in ("replicas", "template", "update_strategy", "min_ready_seconds", "ordinals",
                 "persistent_volume_claim_retention_policy"):
        setattr(clone, attr, getattr(old.spec, attr))
    if clone != old.spec:
        errs.append(fld.forbidden(Path("spec"), "updates to statefulset spec for fields other than 'replicas', "
                                                "'ordinals', 'template', 'updateStrategy', "
                                                "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are "
                                                "forbidden"))
    return errs


def validate_stateful_set_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateStatefulSetStatusUpdate``."""
    sp = Path("status")
    status = new.status
    errs = ErrorList()
    for attr in ("replicas", "ready_replicas", "current_replicas", "updated_replicas", "available_replicas"):
        errs.extend(_nonneg(getattr(status, attr), sp.child(_camel(attr))))
    if status.observed_generation is not None:
        errs.extend(_nonneg(status.observed_generation, sp.child("observedGeneration")))
    if status.collision_count is not None:
        errs.extend(_nonneg(status.collision_count, sp.child("collisionCount")))
    msg = "cannot be greater than status.replicas"
    for attr in ("ready_replicas", "current_replicas", "updated_replicas", "available_replicas"):
        if getattr(status, attr) > status.replicas:
            errs.append(fld.invalid(sp.child(_camel(attr)), getattr(status, attr), msg))
    if status.available_replicas > status.ready_replicas:
        errs.append(fld.invalid(sp.child("availableReplicas"), status.available_replicas,
                                "cannot be greater than status.readyReplicas"))
    errs.extend(core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata")))
    errs.extend(_collision_decremented(new, old, sp.child("collisionCount")))
    return errs


# --- DaemonSet ----------------------------------------------------------------------------------

def _validate_daemon_set_spec(spec: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = om.validate_label_selector(spec.selector, path.child("selector"),
                                      allow_invalid_label_value=opts.allow_invalid_label_value_in_selector)
    selector = _selector(spec.selector)
    if selector is not None and not selector.matches(spec.template.metadata.labels or {}):
        errs.append(fld.invalid(path.child("template", "metadata", "labels"), spec.template.metadata.labels,
                                _SELECTOR_MISMATCH))
    if spec.selector is not None and not (spec.selector.match_labels or {}) and not (spec.selector.match_expressions or []):
        errs.append(fld.invalid(path.child("selector"), spec.selector, "empty selector is invalid for daemonset"))
    errs.extend(core.validate_pod_template_spec(spec.template, path.child("template"), opts))
    if spec.template.spec.restart_policy != "Always":
        errs.append(fld.not_supported(path.child("template", "spec", "restartPolicy"),
                                      spec.template.spec.restart_policy, ["Always"]))
    if spec.template.spec.active_deadline_seconds is not None:
        errs.append(fld.forbidden(path.child("template", "spec", "activeDeadlineSeconds"),
                                  "activeDeadlineSeconds in DaemonSet is not Supported"))
    errs.extend(_nonneg(spec.min_ready_seconds, path.child("minReadySeconds")))
    errs.extend(_nonneg(spec.template_generation, path.child("templateGeneration")))
    us = spec.update_strategy
    up = path.child("updateStrategy")
    if us.type == "RollingUpdate":
        if us.rolling_update is None:
            errs.append(fld.required(up.child("rollingUpdate"), ""))
        else:
            rp = up.child("rollingUpdate")
            mu, ms = _ios(us.rolling_update.max_unavailable), _ios(us.rolling_update.max_surge)
            errs.extend(validate_positive_int_or_percent(mu, rp.child("maxUnavailable")))
            errs.extend(validate_positive_int_or_percent(ms, rp.child("maxSurge")))
            errs.extend(is_not_more_than_100_percent(mu, rp.child("maxUnavailable")))
            errs.extend(is_not_more_than_100_percent(ms, rp.child("maxSurge")))
            has_u, has_s = _int_or_percent_value(mu) != 0, _int_or_percent_value(ms) != 0
            if has_u and has_s:
                errs.append(fld.invalid(rp.child("maxSurge"), ms, "may not be set when maxUnavailable is non-zero"))
            elif not has_u and not has_s:
                errs.append(fld.required(rp.child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
    elif us.type != "OnDelete":
        errs.append(fld.not_supported(up, us, ["RollingUpdate", "OnDelete"]))
    if spec.revision_history_limit is not None:
        errs.extend(_nonneg(spec.revision_history_limit, path.child("revisionHistoryLimit")))
    return errs


def validate_daemon_set(obj: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateDaemonSet``."""
    errs = core.validate_object_meta(obj.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_daemon_set_spec(obj.spec, Path("spec"), opts or PodValidationOptions()))
    return errs


def validate_daemon_set_update(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateDaemonSetUpdate`` (templateGeneration moves with the template)."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    tp = Path("spec").child("templateGeneration")
    ng, og = new.spec.template_generation, old.spec.template_generation
    if ng < og:
        errs.append(fld.invalid(tp, ng, "must not be decremented"))
    changed = new.spec.template != old.spec.template
    if ng == og and changed:
        errs.append(fld.invalid(tp, ng, "must be incremented upon template update"))
    elif ng > og and not changed:
        errs.append(fld.invalid(tp, ng, "must not be incremented without template update"))
    errs.extend(_validate_daemon_set_spec(new.spec, Path("spec"), opts or _update_options(old)))
    return errs


def validate_daemon_set_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateDaemonSetStatusUpdate``."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    sp = Path("status")
    for attr in ("current_number_scheduled", "number_misscheduled", "desired_number_scheduled", "number_ready",
                 "observed_generation", "updated_number_scheduled", "number_available", "number_unavailable"):
        errs.extend(_nonneg(getattr(new.status, attr), sp.child(_camel(attr))))
    if new.status.collision_count is not None:
        errs.extend(_nonneg(new.status.collision_count, sp.child("collisionCount")))
    errs.extend(_collision_decremented(new, old, sp.child("collisionCount")))
    return errs


# --- ControllerRevision -------------------------------------------------------------------------

def validate_controller_revision(obj: Any) -> ErrorList:
    """Go: ``ValidateControllerRevision``."""
    errs = core.validate_object_meta(obj.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    if obj.data is None:
        errs.append(fld.required(Path("data"), "data is mandatory"))
    errs.extend(_nonneg(obj.revision, Path("revision")))
    return errs


def validate_controller_revision_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateControllerRevisionUpdate`` (data is immutable)."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_controller_revision(new))
    errs.extend(om.validate_immutable_field(new.data, old.data, Path("data")))
    return errs
