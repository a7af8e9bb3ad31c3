"""Validation of the node group's internal objects (Go: k8s.io/kubernetes
pkg/apis/node/validation/validation.go): RuntimeClass."""
from __future__ import annotations

from typing import Any

from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = ["validate_runtime_class", "validate_runtime_class_update"]


def validate_runtime_class(rc: Any) -> ErrorList:
    """Go: ``ValidateRuntimeClass``: handler a DNS label, overhead as container limits,
    scheduling's node selector and tolerations."""
    from kcodec.api.core import internal
    from kcodec.api.core import validation as core

    errs = om.validate_object_meta(rc.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(fld.invalid(Path("handler"), rc.handler, m) for m in names.name_is_dns_label(rc.handler or "", False))
    if rc.overhead is not None:
        req = internal.ResourceRequirements(limits=rc.overhead.pod_fixed)
        errs.extend(core.validate_resource_requirements(req, set(), Path("overhead"), core.PodValidationOptions()))
    if rc.scheduling is not None:
        sp = Path("scheduling")
        if rc.scheduling.node_selector is not None:
            errs.extend(om.validate_labels(rc.scheduling.node_selector, sp.child("nodeSelector")))
        errs.extend(core.validate_tolerations(rc.scheduling.tolerations, sp.child("tolerations")))
    return errs


def validate_runtime_class_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateRuntimeClassUpdate`` (handler is immutable; the rest is not re-checked)."""
    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(om.validate_immutable_field(new.handler, old.handler, Path("handler")))
    return errs
