"""Validation of the authorization group's review objects (Go: k8s.io/kubernetes
pkg/apis/authorization/validation/validation.go): SubjectAccessReview,
SelfSubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview, as their
create-only REST storages run it (pkg/registry/authorization/*/rest.go).

Field and label selector requirements are validated allowing operators kube-apiserver does
not know (``AllowUnknownOperatorInRequirement``), as Go does for skewed clients.
"""
from __future__ import annotations

from typing import Any

from kcodec.validation import field as fld
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_field_selector_requirement",
    "validate_local_subject_access_review",
    "validate_self_subject_access_review",
    "validate_self_subject_rules_review",
    "validate_subject_access_review",
]


def validate_field_selector_requirement(req: Any, path: Path, *, allow_unknown_operator: bool = False) -> ErrorList:
    """apimachinery metav1 validation ``ValidateFieldSelectorRequirement``."""
    errs = ErrorList()
    if not req.key:
        errs.append(fld.required(path.child("key"), "must be specified"))
    values = list(req.values or ())
    if req.operator in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(fld.required(path.child("values"),
                                     "must be only one value when `operator` is 'In' or 'NotIn' for field selector"))
    elif req.operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(fld.forbidden(path.child("values"),
                                      "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif not allow_unknown_operator:
        errs.append(fld.invalid(path.child("operator"), req.operator, "not a valid selector operator"))
    return errs


def _selector_attributes(sel: Any, path: Path, label: bool) -> ErrorList:
    """Go ``validateFieldSelectorAttributes`` / ``validateLabelSelectorAttributes``."""
    errs = ErrorList()
    if sel is None:
        return errs
    if sel.raw_selector and sel.requirements:
        errs.append(fld.invalid(path.child("rawSelector"), sel.raw_selector,
                                "may not specified at the same time as requirements"))
    if not sel.raw_selector and not sel.requirements:
        errs.append(fld.required(path.child("requirements"),
                                 f"when {path} is specified, requirements or rawSelector is required"))
    for i, req in enumerate(sel.requirements or ()):
        rp = path.child("requirements").index(i)
        if label:
            errs.extend(om.validate_label_selector_requirement(req, rp, allow_unknown_operator=True))
        else:
            errs.extend(validate_field_selector_requirement(req, rp, allow_unknown_operator=True))
    return errs


def _resource_attributes(ra: Any) -> ErrorList:
    """Go ``validateResourceAttributes`` (always at ``spec.resourceAttributes``)."""
    if ra is None:
        return ErrorList()
    path = Path("spec", "resourceAttributes")
    errs = _selector_attributes(ra.field_selector, path.child("fieldSelector"), False)
    errs.extend(_selector_attributes(ra.label_selector, path.child("labelSelector"), True))
    return errs


def _attributes(spec: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if spec.resource_attributes is not None and spec.non_resource_attributes is not None:
        errs.append(fld.invalid(path.child("nonResourceAttributes"), spec.non_resource_attributes,
                                "cannot be specified in combination with resourceAttributes"))
    if spec.resource_attributes is None and spec.non_resource_attributes is None:
        errs.append(fld.invalid(path.child("resourceAttributes"), spec.non_resource_attributes,
                                "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
    return errs


def _subject_access_review_spec(spec: Any, path: Path) -> ErrorList:
    """Go ``ValidateSubjectAccessReviewSpec``."""
    errs = _attributes(spec, path)
    if not spec.user and not spec.groups:
        errs.append(fld.invalid(path.child("user"), spec.user or "", "at least one of user or group must be specified"))
    errs.extend(_resource_attributes(spec.resource_attributes))
    return errs


def _meta_is_empty(meta: Any, *, keep_namespace: bool) -> bool:
    """``ObjectMeta{}`` once managedFields (and, for local reviews, the namespace) are cleared."""
    if meta is None:
        return True
    copy = meta.deep_copy()
    copy.managed_fields = None
    if keep_namespace:
        copy.namespace = ""
    return copy == type(meta)()


def validate_subject_access_review(sar: Any) -> ErrorList:
    """Go: ``ValidateSubjectAccessReview``."""
    errs = _subject_access_review_spec(sar.spec, Path("spec"))
    if not _meta_is_empty(sar.metadata, keep_namespace=False):
        errs.append(fld.invalid(Path("metadata"), sar.metadata, "must be empty"))
    return errs


def validate_self_subject_access_review(sar: Any) -> ErrorList:
    """Go: ``ValidateSelfSubjectAccessReview``."""
    errs = _attributes(sar.spec, Path("spec"))
    errs.extend(_resource_attributes(sar.spec.resource_attributes))
    if not _meta_is_empty(sar.metadata, keep_namespace=False):
        errs.append(fld.invalid(Path("metadata"), sar.metadata, "must be empty"))
    return errs


def validate_local_subject_access_review(sar: Any) -> ErrorList:
    """Go: ``ValidateLocalSubjectAccessReview``: metadata holds only the namespace, which the
    resource attributes must name; non-resource attributes are refused."""
    errs = _subject_access_review_spec(sar.spec, Path("spec"))
    if not _meta_is_empty(sar.metadata, keep_namespace=True):
        errs.append(fld.invalid(Path("metadata"), sar.metadata, "must be empty except for namespace"))
    namespace = (sar.metadata.namespace if sar.metadata is not None else "") or ""
    ra = sar.spec.resource_attributes
    if ra is not None and (ra.namespace or "") != namespace:
        errs.append(fld.invalid("spec.resourceAttributes.namespace", ra.namespace or "", "must match metadata.namespace"))
    if sar.spec.non_resource_attributes is not None:
        errs.append(fld.invalid("spec.nonResourceAttributes", sar.spec.non_resource_attributes,
                                "disallowed on this kind of request"))
    return errs


def validate_self_subject_rules_review(review: Any) -> ErrorList:
    """Go: ``ValidateSelfSubjectRulesReview`` (nothing to check)."""
    return ErrorList()
