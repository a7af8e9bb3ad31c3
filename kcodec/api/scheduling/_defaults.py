"""Defaults of scheduling.k8s.io v1, v1beta1 and v1alpha2.

Follows kubernetes/kubernetes ``pkg/apis/scheduling/<version>/defaults.go`` (a priority
class preempts lower priorities unless told otherwise) and the ``+default="Pod"`` marker
of ``PodGroupSpec.disruptionMode`` in k8s.io/api v0.36.3 scheduling/v1alpha2.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.removed import scheduling_v1alpha1 as v1alpha1
from kcodec.api.scheduling import v1, v1alpha2, v1beta1

__all__ = ["DEFAULTERS", "MARKERS"]


def _priority_class(obj: Any) -> None:
    if obj.preemption_policy is None:
        obj.preemption_policy = "PreemptLowerPriority"


DEFAULTERS = {
    v1.PriorityClass: _priority_class,
    v1beta1.PriorityClass: _priority_class,
    # the removed v1alpha1 (Kubernetes 1.35's pkg/apis/scheduling/v1alpha1/defaults.go)
    v1alpha1.PriorityClass: _priority_class,
}
MARKERS = {
    (v1alpha2.PodGroupSpec, "disruption_mode"): "Pod",
}
