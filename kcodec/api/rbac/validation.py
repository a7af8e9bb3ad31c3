"""Validation of the rbac group's internal objects (Go: k8s.io/kubernetes
pkg/apis/rbac/validation/validation.go): Role, ClusterRole, RoleBinding, ClusterRoleBinding.
Names are path segments (``ValidateRBACName``), rules need verbs and either resources with
API groups or (cluster-wide) non-resource URLs, and a binding's roleRef cannot change.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.core import validation as core
from kcodec.labels import SelectorParseError, label_selector_as_selector
from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_rbac_name",
    "validate_policy_rule",
    "validate_role_binding_subject",
    "validate_role",
    "validate_role_update",
    "validate_cluster_role",
    "validate_cluster_role_update",
    "validate_role_binding",
    "validate_role_binding_update",
    "validate_cluster_role_binding",
    "validate_cluster_role_binding_update",
]

_GROUP = "rbac.authorization.k8s.io"


def validate_rbac_name(name: str, prefix: bool) -> list[str]:
    """Go: ``ValidateRBACName`` (``path.IsValidPathSegmentName``, also for prefixes)."""
    return names.is_valid_path_segment_name(name)


def validate_policy_rule(rule: Any, namespaced: bool, path: Path) -> ErrorList:
    """Go: ``ValidatePolicyRule``."""
    errs = ErrorList()
    if not rule.verbs:
        errs.append(fld.required(path.child("verbs"), "verbs must contain at least one value"))
    if rule.non_resource_urls:
        urls = list(rule.non_resource_urls)
        if namespaced:
            errs.append(fld.invalid(path.child("nonResourceURLs"), urls, "namespaced rules cannot apply to non-resource URLs"))
        if rule.api_groups or rule.resources or rule.resource_names:
            errs.append(fld.invalid(path.child("nonResourceURLs"), urls,
                                    "rules cannot apply to both regular resources and non-resource URLs"))
        return errs
    if not rule.api_groups:
        errs.append(fld.required(path.child("apiGroups"), "resource rules must supply at least one api group"))
    if not rule.resources:
        errs.append(fld.required(path.child("resources"), "resource rules must supply at least one resource"))
    return errs


def validate_role(role: Any) -> ErrorList:
    """Go: ``ValidateRole``."""
    errs = core.validate_object_meta(role.metadata, True, validate_rbac_name, Path("metadata"))
    for i, rule in enumerate(role.rules or []):
        errs.extend(validate_policy_rule(rule, True, Path("rules").index(i)))
    return errs


def validate_role_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateRoleUpdate``."""
    errs = validate_role(new)
    errs.extend(core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata")))
    return errs


def validate_cluster_role(role: Any, *, allow_invalid_label_value_in_selector: bool = False) -> ErrorList:
    """Go: ``ValidateClusterRole``."""
    errs = core.validate_object_meta(role.metadata, False, validate_rbac_name, Path("metadata"))
    for i, rule in enumerate(role.rules or []):
        errs.extend(validate_policy_rule(rule, False, Path("rules").index(i)))
    agg = role.aggregation_rule
    if agg is not None:
        sp = Path("aggregationRule", "clusterRoleSelectors")
        selectors = list(agg.cluster_role_selectors or [])
        if not selectors:
            errs.append(fld.required(sp, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
        for i, sel in enumerate(selectors):
            errs.extend(om.validate_label_selector(sel, sp.index(i),
                                                   allow_invalid_label_value=allow_invalid_label_value_in_selector))
            try:
                label_selector_as_selector(sel)
            except SelectorParseError:
                errs.append(fld.invalid(sp.index(i), sel, "invalid label selector."))
    return errs


def validate_cluster_role_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateClusterRoleUpdate``."""
    errs = validate_cluster_role(new)
    errs.extend(core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata")))
    return errs


def validate_role_binding_subject(subject: Any, namespaced: bool, path: Path) -> ErrorList:
    """Go: ``ValidateRoleBindingSubject``."""
    errs = ErrorList()
    if not subject.name:
        errs.append(fld.required(path.child("name"), ""))
    if subject.kind == "ServiceAccount":
        if subject.name:
            errs.extend(fld.invalid(path.child("name"), subject.name, m)
                        for m in names.validate_service_account_name(subject.name, False))
        if subject.api_group:
            errs.append(fld.not_supported(path.child("apiGroup"), subject.api_group, [""]))
        if not namespaced and not subject.namespace:
            errs.append(fld.required(path.child("namespace"), ""))
    elif subject.kind in ("User", "Group"):
        if subject.api_group != _GROUP:
            errs.append(fld.not_supported(path.child("apiGroup"), subject.api_group, [_GROUP]))
    else:
        errs.append(fld.not_supported(path.child("kind"), subject.kind, ["ServiceAccount", "User", "Group"]))
    return errs


def _validate_binding(binding: Any, namespaced: bool) -> ErrorList:
    errs = core.validate_object_meta(binding.metadata, namespaced, validate_rbac_name, Path("metadata"))
    ref = binding.role_ref
    if ref.api_group != _GROUP:
        errs.append(fld.not_supported(Path("roleRef", "apiGroup"), ref.api_group, [_GROUP]))
    kinds = ["Role", "ClusterRole"] if namespaced else ["ClusterRole"]
    if ref.kind not in kinds:
        errs.append(fld.not_supported(Path("roleRef", "kind"), ref.kind, kinds))
    if not ref.name:
        errs.append(fld.required(Path("roleRef", "name"), ""))
    else:
        errs.extend(fld.invalid(Path("roleRef", "name"), ref.name, m) for m in validate_rbac_name(ref.name, False))
    for i, subject in enumerate(binding.subjects or []):
        errs.extend(validate_role_binding_subject(subject, namespaced, Path("subjects").index(i)))
    return errs


def validate_role_binding(binding: Any) -> ErrorList:
    """Go: ``ValidateRoleBinding``."""
    return _validate_binding(binding, True)


def validate_cluster_role_binding(binding: Any) -> ErrorList:
    """Go: ``ValidateClusterRoleBinding``."""
    return _validate_binding(binding, False)


def _binding_update(new: Any, old: Any, namespaced: bool) -> ErrorList:
    errs = _validate_binding(new, namespaced)
    errs.extend(core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata")))
    if new.role_ref != old.role_ref:
        errs.append(fld.invalid(Path("roleRef"), new.role_ref, "cannot change roleRef"))
    return errs


def validate_role_binding_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateRoleBindingUpdate``."""
    return _binding_update(new, old, True)


def validate_cluster_role_binding_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateClusterRoleBindingUpdate``."""
    return _binding_update(new, old, False)
