"""Defaults of extensions/v1beta1, as kube-apiserver applies them.

Follows kubernetes/kubernetes ``pkg/apis/extensions/v1beta1/defaults.go``. This old
version keeps its own values: DaemonSets update OnDelete, a Deployment's rolling update
is 1/1 pods and its history and progress deadline are "unlimited" (MaxInt32).
"""
from __future__ import annotations

from typing import Any

from kcodec.api.extensions import v1beta1
from kcodec.api.meta import v1 as metav1
from kcodec.types import IntOrString

__all__ = ["DEFAULTERS"]

_MAX_INT32 = 2**31 - 1


def _selector_and_labels_from_template(obj: Any) -> None:
    labels = obj.spec.template.metadata.labels
    if labels is not None:
        if obj.spec.selector is None:
            obj.spec.selector = metav1.LabelSelector(match_labels=labels)
        if not obj.metadata.labels:
            obj.metadata.labels = labels


def set_defaults_daemon_set(obj: v1beta1.DaemonSet) -> None:
    _selector_and_labels_from_template(obj)
    us = obj.spec.update_strategy
    if us.type == "":
        us.type = "OnDelete"
    if us.type == "RollingUpdate":
        if us.rolling_update is None:
            us.rolling_update = v1beta1.RollingUpdateDaemonSet()
        if us.rolling_update.max_unavailable is None:
            us.rolling_update.max_unavailable = IntOrString.from_int(1)
        if us.rolling_update.max_surge is None:
            us.rolling_update.max_surge = IntOrString.from_int(0)
    if obj.spec.revision_history_limit is None:
        obj.spec.revision_history_limit = 10


def set_defaults_deployment(obj: v1beta1.Deployment) -> None:
    _selector_and_labels_from_template(obj)
    spec = obj.spec
    if spec.replicas is None:
        spec.replicas = 1
    strategy = spec.strategy
    if strategy.type == "":
        strategy.type = "RollingUpdate"
    # unlike apps, a rollingUpdate block given with another type is defaulted too
    if strategy.type == "RollingUpdate" or strategy.rolling_update is not None:
        if strategy.rolling_update is None:
            strategy.rolling_update = v1beta1.RollingUpdateDeployment()
        if strategy.rolling_update.max_unavailable is None:
            strategy.rolling_update.max_unavailable = IntOrString.from_int(1)
        if strategy.rolling_update.max_surge is None:
            strategy.rolling_update.max_surge = IntOrString.from_int(1)
    if spec.progress_deadline_seconds is None:
        spec.progress_deadline_seconds = _MAX_INT32
    if spec.revision_history_limit is None:
        spec.revision_history_limit = _MAX_INT32


def set_defaults_replica_set(obj: v1beta1.ReplicaSet) -> None:
    _selector_and_labels_from_template(obj)
    if obj.spec.replicas is None:
        obj.spec.replicas = 1


def set_defaults_network_policy(obj: v1beta1.NetworkPolicy) -> None:
    # Go ranges over copies of the ingress rules and ports here, so its "default Protocol
    # to TCP" loop changes nothing; only policyTypes is defaulted.
    if not obj.spec.policy_types:
        obj.spec.policy_types = ["Ingress"]
        if obj.spec.egress:
            obj.spec.policy_types.append("Egress")


def set_defaults_http_ingress_path(obj: v1beta1.HTTPIngressPath) -> None:
    if obj.path_type is None:
        obj.path_type = "ImplementationSpecific"


DEFAULTERS = {
    v1beta1.DaemonSet: set_defaults_daemon_set,
    v1beta1.Deployment: set_defaults_deployment,
    v1beta1.ReplicaSet: set_defaults_replica_set,
    v1beta1.NetworkPolicy: set_defaults_network_policy,
    v1beta1.HTTPIngressPath: set_defaults_http_ingress_path,
}

# ScaleSpec.replicas "+default=0" changes nothing.
MARKERS: dict = {}
