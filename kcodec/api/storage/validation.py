"""Validation of the storage group's internal objects (Go: k8s.io/kubernetes
pkg/apis/storage/validation/validation.go): StorageClass."""
from __future__ import annotations

from typing import Any

from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_storage_class",
    "validate_storage_class_update",
    "validate_topology_selector_term",
]

_MAX_PARAMETERS_SIZE = 256 * (1 << 10)
_MAX_PARAMETERS_LEN = 512
_RECLAIM_POLICIES = ["Delete", "Retain"]
_BINDING_MODES = ["Immediate", "WaitForFirstConsumer"]


def validate_topology_selector_term(term: Any, path: Path) -> tuple[dict[str, set[str]], ErrorList]:
    """Go: core ``ValidateTopologySelectorTerm``: the term's key -> values map and its errors
    (values required and unique, keys label names and unique)."""
    errs = ErrorList()
    expr_map: dict[str, set[str]] = {}
    ep = path.child("matchLabelExpressions")
    for i, req in enumerate(term.match_label_expressions or []):
        ip = ep.index(i)
        values: set[str] = set()
        vp = ip.child("values")
        if not req.values:
            errs.append(fld.required(vp, ""))
        for j, v in enumerate(req.values or []):
            if v in values:
                errs.append(fld.duplicate(vp.index(j), v))
            values.add(v)
        errs.extend(om.validate_label_name(req.key, ip.child("key")))
        if req.key in expr_map:
            errs.append(fld.duplicate(ip.child("key"), req.key))
        expr_map[req.key] = values
    return expr_map, errs


def _validate_allowed_topologies(terms: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if not terms:
        return errs
    # Go makes the list with len(terms) nil maps and then appends; Semantic.DeepEqual takes
    # an empty map for a nil one, so a term without expressions is a duplicate of those.
    raw: list[dict[str, set[str]]] = [{} for _ in terms]
    for i, term in enumerate(terms):
        expr_map, term_errs = validate_topology_selector_term(term, path.index(i))
        errs.extend(term_errs)
        for seen in raw:
            if seen == expr_map:
                errs.append(fld.duplicate(path.index(i).child("matchLabelExpressions"), ""))
        raw.append(expr_map)
    return errs


def _validate_parameters(params: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    params = params or {}
    if len(params) > _MAX_PARAMETERS_LEN:
        errs.append(fld.too_long(path, "", _MAX_PARAMETERS_LEN))
        return errs
    total = 0
    for k, v in params.items():
        if not k:
            errs.append(fld.invalid(path, k, "field can not be empty."))
        total += names.go_len(k) + names.go_len(v)
    if total > _MAX_PARAMETERS_SIZE:
        errs.append(fld.too_long(path, "", _MAX_PARAMETERS_SIZE))
    return errs


def validate_storage_class(sc: Any) -> ErrorList:
    """Go: ``ValidateStorageClass``."""
    from kcodec.api.core.validation import validate_object_meta

    errs = validate_object_meta(sc.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    pp = Path("provisioner")
    if not sc.provisioner:
        errs.append(fld.required(pp, sc.provisioner or ""))
    else:
        lowered = sc.provisioner.lower()
        errs.extend(fld.invalid(pp, lowered, m) for m in names.is_qualified_name(lowered))
    errs.extend(_validate_parameters(sc.parameters, Path("parameters")))
    if sc.reclaim_policy and sc.reclaim_policy not in _RECLAIM_POLICIES:
        errs.append(fld.not_supported(Path("reclaimPolicy"), sc.reclaim_policy, _RECLAIM_POLICIES))
    if sc.volume_binding_mode is None:
        errs.append(fld.required(Path("volumeBindingMode"), ""))
    elif sc.volume_binding_mode not in _BINDING_MODES:
        errs.append(fld.not_supported(Path("volumeBindingMode"), sc.volume_binding_mode, _BINDING_MODES))
    errs.extend(_validate_allowed_topologies(sc.allowed_topologies, Path("allowedTopologies")))
    return errs


def validate_storage_class_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateStorageClassUpdate``: parameters, provisioner, reclaimPolicy and
    volumeBindingMode are immutable."""
    from kcodec.api.core.validation import validate_object_meta_update

    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    if new.parameters != old.parameters:  # reflect.DeepEqual: a nil map differs from an empty one
        errs.append(fld.forbidden(Path("parameters"), "updates to parameters are forbidden."))
    if new.provisioner != old.provisioner:
        errs.append(fld.forbidden(Path("provisioner"), "updates to provisioner are forbidden."))
    if new.reclaim_policy != old.reclaim_policy:
        errs.append(fld.forbidden(Path("reclaimPolicy"), "updates to reclaimPolicy are forbidden."))
    errs.extend(om.validate_immutable_field(new.volume_binding_mode, old.volume_binding_mode, Path("volumeBindingMode")))
    return errs
