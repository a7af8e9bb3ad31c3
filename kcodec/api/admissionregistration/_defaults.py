"""Defaults of admissionregistration.k8s.io v1, v1beta1 and v1alpha1.

Follows kubernetes/kubernetes ``pkg/apis/admissionregistration/<version>/defaults.go``.
v1 webhooks fail closed with a 10 s timeout; v1beta1 keeps its historical fail-open,
exact-match, 30 s defaults.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.admissionregistration import v1, v1alpha1, v1beta1
from kcodec.api.meta import v1 as metav1

__all__ = ["DEFAULTERS"]


def _selectors(obj: Any) -> None:
    if obj.namespace_selector is None:
        obj.namespace_selector = metav1.LabelSelector()
    if obj.object_selector is None:
        obj.object_selector = metav1.LabelSelector()


def _webhook_v1(obj: Any) -> None:
    if obj.failure_policy is None:
        obj.failure_policy = "Fail"
    if obj.match_policy is None:
        obj.match_policy = "Equivalent"
    _selectors(obj)
    if obj.timeout_seconds is None:
        obj.timeout_seconds = 10


def _mutating_webhook_v1(obj: v1.MutatingWebhook) -> None:
    _webhook_v1(obj)
    if obj.reinvocation_policy is None:
        obj.reinvocation_policy = "Never"


def _webhook_v1beta1(obj: Any) -> None:
    if obj.failure_policy is None:
        obj.failure_policy = "Ignore"
    if obj.match_policy is None:
        obj.match_policy = "Exact"
    _selectors(obj)
    if obj.side_effects is None:
        obj.side_effects = "Unknown"
    if obj.timeout_seconds is None:
        obj.timeout_seconds = 30
    if not obj.admission_review_versions:
        obj.admission_review_versions = ["v1beta1"]


def _mutating_webhook_v1beta1(obj: v1beta1.MutatingWebhook) -> None:
    _webhook_v1beta1(obj)
    if obj.reinvocation_policy is None:
        obj.reinvocation_policy = "Never"


def _rule(obj: v1.Rule) -> None:
    if obj.scope is None:
        obj.scope = "*"


def _service_reference(obj: Any) -> None:
    if obj.port is None:
        obj.port = 443


def _policy_spec(obj: Any) -> None:
    if obj.failure_policy is None:
        obj.failure_policy = "Fail"


def _match_resources(obj: Any) -> None:
    if obj.match_policy is None:
        obj.match_policy = "Equivalent"
    _selectors(obj)


def _param_ref(obj: Any) -> None:
    if obj.parameter_not_found_action is None:
        obj.parameter_not_found_action = "Deny"


DEFAULTERS = {
    v1.ValidatingWebhook: _webhook_v1,
    v1.MutatingWebhook: _mutating_webhook_v1,
    v1.Rule: _rule,
    v1.ServiceReference: _service_reference,
    v1beta1.ValidatingWebhook: _webhook_v1beta1,
    v1beta1.MutatingWebhook: _mutating_webhook_v1beta1,
    v1beta1.ServiceReference: _service_reference,
}
for _mod in (v1, v1beta1, v1alpha1):
    DEFAULTERS[_mod.ValidatingAdmissionPolicySpec] = _policy_spec
    DEFAULTERS[_mod.MatchResources] = _match_resources
    DEFAULTERS[_mod.ParamRef] = _param_ref
    if hasattr(_mod, "MutatingAdmissionPolicySpec"):
        DEFAULTERS[_mod.MutatingAdmissionPolicySpec] = _policy_spec
MARKERS: dict = {}
