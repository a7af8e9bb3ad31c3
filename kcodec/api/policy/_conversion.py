"""Conversions between the policy versions and the internal policy version.

Follows kubernetes/kubernetes pkg/apis/policy/{v1,v1beta1}/conversion.go and
pkg/apis/policy/helper.go. A PodDisruptionBudget's empty selector (``{}``) selects no pods in
v1beta1 but every pod in v1 and inside. The internal version therefore spells v1beta1's
"none" as a requirement on the reserved label ``pdb.kubernetes.io/deprecated-v1beta1-empty-
selector-match`` (Exists, which no pod carries) and v1beta1 spells "all" as DoesNotExist on
it; converting back restores each side's own spelling. From v1 the reserved label is
stripped unless the selector is exactly the "none" form.
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_package
from kcodec.api.meta import v1 as metav1
from kcodec.conversion import Scope

__all__ = ["add_conversion_funcs", "PDB_V1BETA1_LABEL"]

PDB_V1BETA1_LABEL = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"


def _requirement(op: str) -> metav1.LabelSelector:
    return metav1.LabelSelector(match_expressions=[
        metav1.LabelSelectorRequirement(key=PDB_V1BETA1_LABEL, operator=op)])


def _is_empty(sel: metav1.LabelSelector) -> bool:
    return not sel.match_labels and not sel.match_expressions


def _is_requirement(sel: metav1.LabelSelector, op: str) -> bool:
    if sel.match_labels or not sel.match_expressions or len(sel.match_expressions) != 1:
        return False
    r = sel.match_expressions[0]
    return r.key == PDB_V1BETA1_LABEL and r.operator == op and not r.values


def _v1beta1_selector_in(src: Any, dst: Any, scope: Scope) -> None:
    sel = src.selector
    if sel is None:
        dst.selector = None
    elif _is_empty(sel):
        dst.selector = _requirement("Exists")           # v1beta1 "match none"
    elif _is_requirement(sel, "DoesNotExist"):
        dst.selector = metav1.LabelSelector()           # v1beta1 "match all"
    else:
        dst.selector = sel


def _v1beta1_selector_out(src: Any, dst: Any, scope: Scope) -> None:
    sel = src.selector
    if sel is None:
        dst.selector = None
    elif _is_requirement(sel, "Exists"):
        dst.selector = metav1.LabelSelector()
    elif _is_empty(sel):
        dst.selector = _requirement("DoesNotExist")
    else:
        dst.selector = sel


def _v1_selector_in(src: Any, dst: Any, scope: Scope) -> None:
    sel = src.selector
    if sel is None or _is_requirement(sel, "Exists") or not sel.match_expressions:
        dst.selector = sel
        return
    kept = [r for r in sel.match_expressions if r.key != PDB_V1BETA1_LABEL]
    if len(kept) == len(sel.match_expressions):
        dst.selector = sel
    else:
        dst.selector = metav1.LabelSelector(match_labels=sel.match_labels,
                                            match_expressions=kept or None)


def add_conversion_funcs(scheme: Any) -> None:
    """Register every policy version <-> internal conversion with ``scheme``."""
    register_package(
        scheme, "policy",
        v1={"to_internal": {"PodDisruptionBudgetSpec": {"selector": _v1_selector_in}}},
        v1beta1={"to_internal": {"PodDisruptionBudgetSpec": {"selector": _v1beta1_selector_in}},
                 "to_external": {"PodDisruptionBudgetSpec": {"selector": _v1beta1_selector_out}}},
    )
