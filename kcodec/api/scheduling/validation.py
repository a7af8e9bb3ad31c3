"""Validation of the scheduling group's internal objects (Go: k8s.io/kubernetes
pkg/apis/scheduling/validation/validation.go): PriorityClass.

System priority classes (``system-`` names) must equal the built-in ones
(pkg/apis/scheduling/v1 helpers.go ``IsKnownSystemPriorityClass``); user classes may not
exceed ``HighestUserDefinablePriority``.
"""
from __future__ import annotations

from typing import Any

from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "SYSTEM_CRITICAL_PRIORITY",
    "SYSTEM_PRIORITY_CLASSES",
    "is_known_system_priority_class",
    "validate_priority_class",
    "validate_priority_class_update",
    "validate_preemption_policy",
]

#: pkg/apis/scheduling types.go.
HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
_SYSTEM_PREFIX = "system-"
#: name -> (value, globalDefault), as scheduling/v1 helpers.go systemPriorityClasses.
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": (SYSTEM_CRITICAL_PRIORITY + 1000, False),
    "system-cluster-critical": (SYSTEM_CRITICAL_PRIORITY, False),
}


def is_known_system_priority_class(name: str, value: int, global_default: bool) -> tuple[bool, str]:
    """Go: ``IsKnownSystemPriorityClass``: (ok, the error text when not)."""
    known = SYSTEM_PRIORITY_CLASSES.get(name)
    if known is None:
        return False, f"{name} is not a known system priority class"
    want_value, want_default = known
    if value != want_value:
        return False, f"value of {name} PriorityClass must be {want_value}"
    if bool(global_default) != want_default:
        return False, f"globalDefault of {name} PriorityClass must be {'true' if want_default else 'false'}"
    return True, ""


def validate_preemption_policy(policy: str, path: Path) -> ErrorList:
    """Go: core ``ValidatePreemptionPolicy``."""
    errs = ErrorList()
    if policy == "":
        errs.append(fld.required(path, ""))
    elif policy not in ("PreemptLowerPriority", "Never"):
        errs.append(fld.not_supported(path, policy, ["PreemptLowerPriority", "Never"]))
    return errs


def validate_priority_class(pc: Any) -> ErrorList:
    """Go: ``ValidatePriorityClass``."""
    from kcodec.api.core.validation import validate_object_meta

    errs = validate_object_meta(pc.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    name = pc.metadata.name or ""
    if name.startswith(_SYSTEM_PREFIX):
        ok, why = is_known_system_priority_class(name, pc.value, bool(pc.global_default))
        if not ok:
            errs.append(fld.forbidden(Path("metadata", "name"), "priority class names with '" + _SYSTEM_PREFIX
                                      + "' prefix are reserved for system use only. error: " + why))
    elif pc.value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(fld.forbidden(Path("value"), "maximum allowed value of a user defined priority is "
                                  f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
    if pc.preemption_policy is not None:
        errs.extend(validate_preemption_policy(pc.preemption_policy, Path("preemptionPolicy")))
    return errs


def validate_priority_class_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidatePriorityClassUpdate``: value and preemptionPolicy are immutable."""
    from kcodec.api.core.validation import validate_object_meta_update

    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    if new.value != old.value:
        errs.append(fld.forbidden(Path("value"), "may not be changed in an update."))
    errs.extend(om.validate_immutable_field(new.preemption_policy, old.preemption_policy, Path("preemptionPolicy")))
    return errs
