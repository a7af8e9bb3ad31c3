"""Validation of the apiregistration group's internal objects (Go: k8s.io/kube-aggregator
pkg/apis/apiregistration/validation/validation.go): APIService."""
from __future__ import annotations

from typing import Any

from kcodec import gofmt
from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_api_service",
    "validate_api_service_update",
    "validate_api_service_status_update",
]


def validate_api_service(svc: Any) -> ErrorList:
    """Go: ``ValidateAPIService``: the name is ``<version>.<group>``; local services (no
    ``spec.service``) have no caBundle and no insecureSkipTLSVerify."""
    spec = svc.spec
    required_name = f"{spec.version}.{spec.group}"

    def name_fn(name: str, prefix: bool) -> list[str]:
        minimal = names.is_valid_path_segment_name(name)
        if minimal:
            return minimal
        if name != required_name:
            return [f'must be `spec.version+"."+spec.group`: {gofmt.quote(required_name)}']
        return []

    errs = om.validate_object_meta(svc.metadata, False, name_fn, Path("metadata"))
    if not spec.group and spec.version != "v1":
        errs.append(fld.required(Path("spec", "group"), "only v1 may have an empty group and it better be legacy kube"))
    if spec.group:
        errs.extend(fld.invalid(Path("spec", "group"), spec.group, m) for m in names.is_dns1123_subdomain(spec.group))
    errs.extend(fld.invalid(Path("spec", "version"), spec.version, m) for m in names.is_dns1035_label(spec.version))
    if spec.group_priority_minimum <= 0 or spec.group_priority_minimum > 20000:
        errs.append(fld.invalid(Path("spec", "groupPriorityMinimum"), spec.group_priority_minimum,
                                "must be positive and less than 20000"))
    if spec.version_priority <= 0 or spec.version_priority > 1000:
        errs.append(fld.invalid(Path("spec", "versionPriority"), spec.version_priority,
                                "must be positive and less than 1000"))
    ca = spec.ca_bundle or b""
    if spec.service is None:
        if ca:
            errs.append(fld.invalid(Path("spec", "caBundle"), f"{len(ca)} bytes", "local APIServices may not have a caBundle"))
        if spec.insecure_skip_tls_verify:
            errs.append(fld.invalid(Path("spec", "insecureSkipTLSVerify"), True,
                                    "local APIServices may not have insecureSkipTLSVerify"))
        return errs
    if not spec.service.namespace:
        errs.append(fld.required(Path("spec", "service", "namespace"), ""))
    if not spec.service.name:
        errs.append(fld.required(Path("spec", "service", "name"), ""))
    port_errs = names.is_valid_port_num(spec.service.port)
    if port_errs:
        errs.append(fld.invalid(Path("spec", "service", "port"), spec.service.port,
                                "port is not valid: " + ", ".join(port_errs)))
    if spec.insecure_skip_tls_verify and ca:
        errs.append(fld.invalid(Path("spec", "insecureSkipTLSVerify"), True, "may not be true if caBundle is present"))
    return errs


def validate_api_service_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateAPIServiceUpdate``."""
    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_api_service(new))
    return errs


def validate_api_service_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateAPIServiceStatusUpdate``: condition statuses True, False or Unknown."""
    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    for i, cond in enumerate((new.status.conditions if new.status is not None else None) or []):
        if cond.status not in ("True", "False", "Unknown"):
            errs.append(fld.not_supported(Path("status", "conditions").index(i).child("status"), cond.status,
                                          ["True", "False", "Unknown"]))
    return errs
