"""Defaults of batch/v1 and batch/v1beta1, as kube-apiserver applies them.

Follows kubernetes/kubernetes ``pkg/apis/batch/<version>/defaults.go``. The Job gates
(JobBackoffLimitPerIndex, JobPodReplacementPolicy) are GA and locked on in 1.36.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.batch import v1, v1beta1
from kcodec.api.removed import batch_v2alpha1 as v2alpha1

__all__ = ["DEFAULTERS"]

_MAX_INT32 = 2**31 - 1


def set_defaults_job(obj: v1.Job) -> None:
    spec = obj.spec
    # A non-parallel job may leave both unset: both become 1.
    if spec.completions is None and spec.parallelism is None:
        spec.completions = 1
        spec.parallelism = 1
    if spec.parallelism is None:
        spec.parallelism = 1
    if spec.backoff_limit is None:
        spec.backoff_limit = _MAX_INT32 if spec.backoff_limit_per_index is not None else 6
    labels = spec.template.metadata.labels
    if labels is not None and not obj.metadata.labels:
        obj.metadata.labels = labels
    if spec.completion_mode is None:
        spec.completion_mode = "NonIndexed"
    if spec.suspend is None:
        spec.suspend = False
    if spec.pod_replacement_policy is None:
        spec.pod_replacement_policy = "Failed" if spec.pod_failure_policy is not None else "TerminatingOrFailed"
    if spec.manual_selector is None:
        spec.manual_selector = False


def set_defaults_pod_failure_policy_on_pod_conditions_pattern(obj: v1.PodFailurePolicyOnPodConditionsPattern) -> None:
    if obj.status == "":
        obj.status = "True"


def _cron_job(obj: Any) -> None:
    spec = obj.spec
    if spec.concurrency_policy == "":
        spec.concurrency_policy = "Allow"
    if spec.suspend is None:
        spec.suspend = False
    if spec.successful_jobs_history_limit is None:
        spec.successful_jobs_history_limit = 3
    if spec.failed_jobs_history_limit is None:
        spec.failed_jobs_history_limit = 1


DEFAULTERS = {
    v1.Job: set_defaults_job,
    v1.PodFailurePolicyOnPodConditionsPattern: set_defaults_pod_failure_policy_on_pod_conditions_pattern,
    v1.CronJob: _cron_job,
    v1beta1.CronJob: _cron_job,
    # the removed v2alpha1 (Kubernetes 1.20's pkg/apis/batch/v2alpha1/defaults.go)
    v2alpha1.CronJob: _cron_job,
}
MARKERS: dict = {}
