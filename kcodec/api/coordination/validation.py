"""Validation of the coordination group's internal objects (Go: k8s.io/kubernetes
pkg/apis/coordination/validation/validation.go): Lease and LeaseCandidate."""
from __future__ import annotations

import re
from typing import Any

from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_lease",
    "validate_lease_update",
    "validate_lease_spec",
    "validate_coordinated_lease_strategy",
    "validate_lease_candidate",
    "validate_lease_candidate_update",
    "validate_lease_candidate_spec",
]

_STRATEGIES = ["OldestEmulationVersion"]


def validate_coordinated_lease_strategy(strategy: str, path: Path) -> ErrorList:
    """Go: ``ValidateCoordinatedLeaseStrategy`` (which adds ``strategy`` to the path it is
    given, so a Lease's errors read ``spec.strategy.strategy``, as Go prints them)."""
    errs = ErrorList()
    if len(strategy.split("/")) == 1:
        if strategy not in _STRATEGIES:
            errs.append(fld.not_supported(path.child("strategy"), strategy, _STRATEGIES))
    else:
        errs.extend(fld.invalid(path.child("strategy"), strategy, m) for m in names.is_qualified_name(strategy))
    return errs


def validate_lease_spec(spec: Any, path: Path) -> ErrorList:
    """Go: ``ValidateLeaseSpec``."""
    errs = ErrorList()
    if spec.lease_duration_seconds is not None and spec.lease_duration_seconds <= 0:
        errs.append(fld.invalid(path.child("leaseDurationSeconds"), spec.lease_duration_seconds, "must be greater than 0"))
    if spec.lease_transitions is not None and spec.lease_transitions < 0:
        errs.append(fld.invalid(path.child("leaseTransitions"), spec.lease_transitions,
                                "must be greater than or equal to 0"))
    if spec.strategy is not None:
        errs.extend(validate_coordinated_lease_strategy(spec.strategy, path.child("strategy")))
    if spec.preferred_holder and not spec.strategy:
        errs.append(fld.forbidden(path.child("preferredHolder"), "may only be specified if `strategy` is defined"))
    return errs


def validate_lease(lease: Any) -> ErrorList:
    """Go: ``ValidateLease`` (apimachinery's ObjectMeta validation)."""
    errs = om.validate_object_meta(lease.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(validate_lease_spec(lease.spec, Path("spec")))
    return errs


def validate_lease_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateLeaseUpdate``."""
    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_lease_spec(new.spec, Path("spec")))
    return errs


# blang/semver v4 Parse: MAJOR.MINOR.PATCH, numbers without leading zeros, optional
# -prerelease (numeric parts without leading zeros) and +build.
_NUM = r"(?:0|[1-9][0-9]*)"
_PRE_PART = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
_SEMVER = re.compile(rf"({_NUM})\.({_NUM})\.({_NUM})(?:-({_PRE_PART}(?:\.{_PRE_PART})*))?"
                     r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?")


def _semver(value: str) -> tuple[Any, ...] | None:
    m = _SEMVER.fullmatch(value)
    if m is None:
        return None
    pre = m.group(4)
    # Comparison as semver: a version with a prerelease sorts before the release.
    pre_key: tuple[Any, ...] = ((1,),) if pre is None else tuple(
        (0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), pre is None, pre_key)


def validate_lease_candidate_spec(spec: Any, path: Path) -> ErrorList:
    """Go: ``ValidateLeaseCandidateSpec``."""
    errs = ErrorList()
    if not spec.lease_name:
        errs.append(fld.required(path.child("leaseName"), ""))
    ev = None
    if spec.emulation_version:
        ev = _semver(spec.emulation_version)
        if ev is None:
            errs.append(fld.invalid(path.child("emulationVersion"), spec.emulation_version,
                                    "must be a valid semantic version"))
    bv = None
    if not spec.binary_version:
        errs.append(fld.required(path.child("binaryVersion"), ""))
    else:
        bv = _semver(spec.binary_version)
        if bv is None:
            errs.append(fld.invalid(path.child("binaryVersion"), spec.binary_version, "must be a valid semantic version"))
    zero = (0, 0, 0, True, ((1,),))
    if spec.binary_version and spec.emulation_version and (bv or zero) < (ev or zero):
        errs.append(fld.invalid(path.child("binaryVersion"), spec.binary_version,
                                "must be greater than or equal to `emulationVersion`"))
    if not spec.strategy:
        errs.append(fld.required(path.child("strategy"), ""))
    else:
        if spec.strategy == "OldestEmulationVersion" and (ev or zero) == zero:
            errs.append(fld.required(path.child("emulationVersion"),
                                     "must be specified when `strategy` is 'OldestEmulationVersion'"))
        errs.extend(validate_coordinated_lease_strategy(spec.strategy, path.child("strategy")))
    return errs


def _lease_candidate_name(name: str, prefix: bool) -> list[str]:
    return names.is_config_map_key(name)


def validate_lease_candidate(obj: Any) -> ErrorList:
    """Go: ``ValidateLeaseCandidate`` (names as config map keys)."""
    errs = om.validate_object_meta(obj.metadata, True, _lease_candidate_name, Path("metadata"))
    errs.extend(validate_lease_candidate_spec(obj.spec, Path("spec")))
    return errs


def validate_lease_candidate_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateLeaseCandidateUpdate`` (leaseName is immutable)."""
    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_lease_candidate_spec(new.spec, Path("spec")))
    errs.extend(om.validate_immutable_field(new.spec.lease_name, old.spec.lease_name, Path("spec").child("leaseName")))
    return errs
