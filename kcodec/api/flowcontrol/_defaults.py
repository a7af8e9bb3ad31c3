"""Defaults of flowcontrol.apiserver.k8s.io v1, v1beta3, v1beta2 and v1beta1.

Follows kubernetes/kubernetes ``pkg/apis/flowcontrol/<version>/defaults.go``. v1 makes
``nominalConcurrencyShares`` a pointer (nil becomes 30, 0 stays 0); v1beta3 turns 0 into
30 unless the object carries the ``flowcontrol.k8s.io/v1beta3-preserve-zero`` annotation;
v1beta1/v1beta2 default ``assuredConcurrencyShares``.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.flowcontrol import v1, v1beta1, v1beta2, v1beta3
from kcodec.api.removed import flowcontrol_v1alpha1 as v1alpha1

__all__ = ["DEFAULTERS"]

DEFAULT_MATCHING_PRECEDENCE = 1000
DEFAULT_CONCURRENCY_SHARES = 30
PRESERVE_ZERO_ANNOTATION = "flowcontrol.k8s.io/v1beta3-preserve-zero"


def _flow_schema_spec(obj: Any) -> None:
    if obj.matching_precedence == 0:
        obj.matching_precedence = DEFAULT_MATCHING_PRECEDENCE


def _queuing(obj: Any) -> None:
    if obj.hand_size == 0:
        obj.hand_size = 8
    if obj.queues == 0:
        obj.queues = 64
    if obj.queue_length_limit == 0:
        obj.queue_length_limit = 50


def _exempt(obj: Any) -> None:
    if obj.nominal_concurrency_shares is None:
        obj.nominal_concurrency_shares = 0
    if obj.lendable_percent is None:
        obj.lendable_percent = 0


def _limited_lendable(obj: Any) -> None:
    if obj.lendable_percent is None:
        obj.lendable_percent = 0


def _limited_assured(obj: Any) -> None:
    if obj.assured_concurrency_shares == 0:
        obj.assured_concurrency_shares = DEFAULT_CONCURRENCY_SHARES
    _limited_lendable(obj)


def _plc_v1(obj: v1.PriorityLevelConfiguration) -> None:
    limited = obj.spec.limited
    if limited is not None and limited.nominal_concurrency_shares is None:
        limited.nominal_concurrency_shares = DEFAULT_CONCURRENCY_SHARES


def _plc_v1beta3(obj: v1beta3.PriorityLevelConfiguration) -> None:
    limited = obj.spec.limited
    if limited is not None and limited.nominal_concurrency_shares == 0:
        if PRESERVE_ZERO_ANNOTATION not in (obj.metadata.annotations or {}):
            limited.nominal_concurrency_shares = DEFAULT_CONCURRENCY_SHARES


DEFAULTERS: dict = {
    v1.PriorityLevelConfiguration: _plc_v1,
    v1beta3.PriorityLevelConfiguration: _plc_v1beta3,
    v1.LimitedPriorityLevelConfiguration: _limited_lendable,
    v1beta3.LimitedPriorityLevelConfiguration: _limited_lendable,
    v1beta2.LimitedPriorityLevelConfiguration: _limited_assured,
    v1beta1.LimitedPriorityLevelConfiguration: _limited_assured,
    # the removed v1alpha1 (Kubernetes 1.28's pkg/apis/flowcontrol/v1alpha1/defaults.go)
    v1alpha1.LimitedPriorityLevelConfiguration: _limited_assured,
}
for _mod in (v1, v1beta3, v1beta2, v1beta1, v1alpha1):
    DEFAULTERS[_mod.FlowSchemaSpec] = _flow_schema_spec
    DEFAULTERS[_mod.QueuingConfiguration] = _queuing
    DEFAULTERS[_mod.ExemptPriorityLevelConfiguration] = _exempt
MARKERS: dict = {}
