"""Defaults of apps/v1, apps/v1beta2 and apps/v1beta1, as kube-apiserver applies them.

Follows kubernetes/kubernetes ``pkg/apis/apps/<version>/defaults.go``; the pod templates
inside are defaulted by core's functions through :mod:`kcodec.api._defaulting`'s walk.
Feature gate ``MaxUnavailableStatefulSet`` takes its 1.36 default (on: beta since 1.35).
"""
from __future__ import annotations

from typing import Any

from kcodec.api.apps import v1, v1beta1, v1beta2
from kcodec.api.meta import v1 as metav1
from kcodec.types import IntOrString

__all__ = ["DEFAULTERS"]

MAX_UNAVAILABLE_STATEFUL_SET = True


def _deployment(mod: Any, history: int):
    def set_defaults_deployment(obj: Any) -> None:
        spec = obj.spec
        if spec.replicas is None:
            spec.replicas = 1
        strategy = spec.strategy
        if strategy.type == "":
            strategy.type = "RollingUpdate"
        if strategy.type == "RollingUpdate":
            if strategy.rolling_update is None:
                strategy.rolling_update = mod.RollingUpdateDeployment()
            if strategy.rolling_update.max_unavailable is None:
                strategy.rolling_update.max_unavailable = IntOrString.from_string("25%")
            if strategy.rolling_update.max_surge is None:
                strategy.rolling_update.max_surge = IntOrString.from_string("25%")
        if spec.revision_history_limit is None:
            spec.revision_history_limit = history
        if spec.progress_deadline_seconds is None:
            spec.progress_deadline_seconds = 600
    return set_defaults_deployment


# Built once: making the closure per object cost about as much as running it.
_V1BETA1_DEPLOYMENT_SPEC = _deployment(v1beta1, 2)


def _v1beta1_deployment(obj: v1beta1.Deployment) -> None:
    # apps/v1beta1 also takes selector and labels from the template (v1beta2 and v1 do not).
    labels = obj.spec.template.metadata.labels
    if labels is not None:
        if obj.spec.selector is None:
            obj.spec.selector = metav1.LabelSelector(match_labels=labels)
        if not obj.metadata.labels:
            obj.metadata.labels = labels
    _V1BETA1_DEPLOYMENT_SPEC(obj)


def _daemon_set(mod: Any):
    def set_defaults_daemon_set(obj: Any) -> None:
        us = obj.spec.update_strategy
        if us.type == "":
            us.type = "RollingUpdate"
        if us.type == "RollingUpdate":
            if us.rolling_update is None:
                us.rolling_update = mod.RollingUpdateDaemonSet()
            if us.rolling_update.max_unavailable is None:
                us.rolling_update.max_unavailable = IntOrString.from_int(1)
            if us.rolling_update.max_surge is None:
                us.rolling_update.max_surge = IntOrString.from_int(0)
        if obj.spec.revision_history_limit is None:
            obj.spec.revision_history_limit = 10
    return set_defaults_daemon_set


def _pvc_retention(mod: Any, spec: Any) -> None:
    if spec.persistent_volume_claim_retention_policy is None:
        spec.persistent_volume_claim_retention_policy = mod.StatefulSetPersistentVolumeClaimRetentionPolicy()
    policy = spec.persistent_volume_claim_retention_policy
    if policy.when_deleted == "":
        policy.when_deleted = "Retain"
    if policy.when_scaled == "":
        policy.when_scaled = "Retain"


def _rolling_partition(spec: Any) -> None:
    ru = spec.update_strategy.rolling_update
    if spec.update_strategy.type == "RollingUpdate" and ru is not None:
        if ru.partition is None:
            ru.partition = 0
        if MAX_UNAVAILABLE_STATEFUL_SET and ru.max_unavailable is None:
            ru.max_unavailable = IntOrString.from_int(1)


def _stateful_set(mod: Any):
    def set_defaults_stateful_set(obj: Any) -> None:
        spec = obj.spec
        if spec.pod_management_policy == "":
            spec.pod_management_policy = "OrderedReady"
        if spec.update_strategy.type == "":
            spec.update_strategy.type = "RollingUpdate"
            if spec.update_strategy.rolling_update is None:
                # filled in just below
                spec.update_strategy.rolling_update = mod.RollingUpdateStatefulSetStrategy()
        _rolling_partition(spec)
        _pvc_retention(mod, spec)
        if spec.replicas is None:
            spec.replicas = 1
        if spec.revision_history_limit is None:
            spec.revision_history_limit = 10
    return set_defaults_stateful_set


def _v1beta1_stateful_set(obj: v1beta1.StatefulSet) -> None:
    spec = obj.spec
    if spec.pod_management_policy == "":
        spec.pod_management_policy = "OrderedReady"
    if spec.update_strategy.type == "":
        spec.update_strategy.type = "OnDelete"
    labels = spec.template.metadata.labels
    if labels is not None:
        if spec.selector is None:
            spec.selector = metav1.LabelSelector(match_labels=labels)
        if not obj.metadata.labels:
            obj.metadata.labels = labels
    _pvc_retention(v1beta1, spec)
    if spec.replicas is None:
        spec.replicas = 1
    if spec.revision_history_limit is None:
        spec.revision_history_limit = 10
    _rolling_partition(spec)


def _replica_set(obj: Any) -> None:
    if obj.spec.replicas is None:
        obj.spec.replicas = 1


DEFAULTERS = {
    v1.Deployment: _deployment(v1, 10),
    v1.DaemonSet: _daemon_set(v1),
    v1.StatefulSet: _stateful_set(v1),
    v1.ReplicaSet: _replica_set,
    v1beta2.Deployment: _deployment(v1beta2, 10),
    v1beta2.DaemonSet: _daemon_set(v1beta2),
    v1beta2.StatefulSet: _stateful_set(v1beta2),
    v1beta2.ReplicaSet: _replica_set,
    v1beta1.Deployment: _v1beta1_deployment,
    v1beta1.StatefulSet: _v1beta1_stateful_set,
}

# ScaleSpec.replicas carries "+default=0" in v1beta1/v1beta2: a zero default changes nothing.
MARKERS: dict = {}
