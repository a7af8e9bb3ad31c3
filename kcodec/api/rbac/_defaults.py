"""Defaults of rbac.authorization.k8s.io v1, v1beta1 and v1alpha1.

Follows kubernetes/kubernetes ``pkg/apis/rbac/<version>/defaults.go``: role references
default to the RBAC group, and subjects name the group of their kind (v1alpha1 subjects
carry a full apiVersion instead).
"""
from __future__ import annotations

from typing import Any

from kcodec.api.rbac import v1, v1alpha1, v1beta1

__all__ = ["DEFAULTERS"]

GROUP = "rbac.authorization.k8s.io"


def _binding(obj: Any) -> None:
    if obj.role_ref.api_group == "":
        obj.role_ref.api_group = GROUP


def _subject(obj: Any) -> None:
    if obj.api_group == "":
        if obj.kind == "ServiceAccount":
            obj.api_group = ""
        elif obj.kind in ("User", "Group"):
            obj.api_group = GROUP


def _subject_v1alpha1(obj: v1alpha1.Subject) -> None:
    if obj.api_version == "":
        if obj.kind == "ServiceAccount":
            obj.api_version = "v1"
        elif obj.kind in ("User", "Group"):
            obj.api_version = GROUP + "/v1alpha1"


DEFAULTERS = {}
for _mod in (v1, v1beta1):
    DEFAULTERS[_mod.ClusterRoleBinding] = _binding
    DEFAULTERS[_mod.RoleBinding] = _binding
    DEFAULTERS[_mod.Subject] = _subject
DEFAULTERS[v1alpha1.ClusterRoleBinding] = _binding
DEFAULTERS[v1alpha1.RoleBinding] = _binding
DEFAULTERS[v1alpha1.Subject] = _subject_v1alpha1
MARKERS: dict = {}
