"""Conversions between the rbac.authorization.k8s.io versions and the internal rbac version.

Follows kubernetes/kubernetes pkg/apis/rbac/v1alpha1/conversion.go: a v1alpha1 Subject names
its group through ``apiVersion``. Users and Groups are always of the RBAC group and
ServiceAccounts of the core group; other kinds take the group part of ``apiVersion``; the
v1alpha1 user ``*`` means every authenticated user. Back in v1alpha1, RBAC users and groups
say ``rbac.authorization.k8s.io/v1alpha1``, core ServiceAccounts ``v1``, and anything else
``<group>/`` (Go's ``GroupVersion{Group: g}.String()``).
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_package
from kcodec.conversion import Scope

__all__ = ["add_conversion_funcs"]

GROUP = "rbac.authorization.k8s.io"


def _subject_group_in(src: Any, dst: Any, scope: Scope) -> None:
    if src.kind == "ServiceAccount":
        dst.api_group = ""
    elif src.kind in ("User", "Group"):
        dst.api_group = GROUP
    else:
        av = src.api_version
        # Go schema.ParseGroupVersion: "" and "v" have no group, "g/v" has g, more slashes fail
        dst.api_group = av.split("/", 1)[0] if av.count("/") == 1 else ""


def _subject_name_in(src: Any, dst: Any, scope: Scope) -> None:
    # runs after kind and apiGroup (rows follow the internal declaration order)
    dst.name = src.name
    if src.kind == "User" and dst.api_group == GROUP and src.name == "*":
        dst.kind = "Group"
        dst.name = "system:authenticated"


def _subject_version_out(src: Any, dst: Any, scope: Scope) -> None:
    if src.kind == "ServiceAccount" and src.api_group == "":
        dst.api_version = "v1"
    elif src.kind in ("User", "Group") and src.api_group == GROUP:
        dst.api_version = GROUP + "/v1alpha1"
    else:
        dst.api_version = src.api_group + "/" if src.api_group else ""


def add_conversion_funcs(scheme: Any) -> None:
    """Register every rbac version <-> internal conversion with ``scheme``."""
    register_package(scheme, "rbac", v1alpha1={
        "to_internal": {"Subject": {"api_group": _subject_group_in,
                                    "name": _subject_name_in}},
        "to_external": {"Subject": {"api_version": _subject_version_out}},
    })
