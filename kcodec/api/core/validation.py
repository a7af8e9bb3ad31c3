"""Validation of the core group's internal objects (Go: k8s.io/kubernetes
pkg/apis/core/validation/validation.go).

Each ``validate_<kind>(obj)`` takes an object of :mod:`kcodec.api.core.internal` and returns
a :class:`~kcodec.validation.field.ErrorList` with Go's field paths and texts (Pod and its
subresources: status, ephemeralcontainers, resize, binding; PodTemplate, Namespace,
ConfigMap, Secret, ServiceAccount, Service, Endpoints, PersistentVolume(Claim),
ReplicationController, ResourceQuota, LimitRange, Node and Event);
``validate_<kind>_update(new, old)`` and ``validate_<kind>_status_update(new, old)`` exist
where Go has them. Pod specs are validated with the options kube-apiserver 1.36 uses for a
new object (:class:`PodValidationOptions`; feature gates at their 1.36 defaults:
RelaxedEnvironmentVariableValidation, PodHostIPs and InPlacePodVerticalScaling on).

Not reproduced: the ``cmp.Diff`` text Go appends to "pod updates may not change fields..."
(its output is deliberately unstable in Go; kcodec lists the changed top-level fields; the
same for PVC, PV source and ephemeral-container changes), the Node annotations holding JSON
(taints, avoid-pods), the iSCSI portal and CHAP checks of PersistentVolumes,
alpha features (DRA device requests, container restart rules, file env sources) and
Windows host-process checks beyond the documented messages.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable

from kcodec.gofmt import quote
from kcodec.labels import selector_from_set
from kcodec.types import INT, IntOrString, Quantity
from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "PodValidationOptions",
    "validate_object_meta",
    "validate_object_meta_update",
    "validate_template_object_meta",
    "validate_pod",
    "validate_pod_update",
    "validate_pod_status_update",
    "validate_pod_ephemeral_containers_update",
    "validate_pod_resize",
    "validate_event",
    "validate_persistent_volume",
    "validate_persistent_volume_update",
    "validate_persistent_volume_status_update",
    "validate_persistent_volume_spec",
    "validate_event_update",
    "validate_binding",
    "validate_endpoints",
    "validate_endpoints_update",
    "validate_resource_quota",
    "validate_resource_quota_update",
    "validate_resource_quota_status_update",
    "validate_limit_range",
    "validate_limit_range_update",
    "validate_node",
    "validate_node_update",
    "validate_pod_spec",
    "validate_pod_template_spec",
    "validate_pod_template",
    "validate_pod_template_update",
    "validate_namespace",
    "validate_namespace_update",
    "validate_namespace_status_update",
    "validate_namespace_finalize_update",
    "validate_config_map",
    "validate_config_map_update",
    "validate_secret",
    "validate_secret_update",
    "validate_service_account",
    "validate_service_account_update",
    "validate_service",
    "validate_service_update",
    "validate_service_status_update",
    "validate_persistent_volume_claim",
    "validate_persistent_volume_claim_update",
    "validate_persistent_volume_claim_status_update",
    "validate_persistent_volume_claim_spec",
    "validate_replication_controller",
    "validate_replication_controller_update",
    "validate_replication_controller_status_update",
    "validate_resource_requirements",
    "validate_container_resource_name",
    "validate_resource_quantity_value",
    "validate_tolerations",
    "validate_node_selector",
    "validate_label_selector",
    "validate_nonnegative_field",
    "validate_immutable_field",
    "is_decremented",
    "MAX_SECRET_SIZE",
]

#: Go: core.MaxSecretSize (1 MiB of data in a Secret or ConfigMap).
MAX_SECRET_SIZE = 1 * 1024 * 1024

_IS_NOT_INTEGER = "must be an integer"
_IS_NOT_POSITIVE = "must be greater than zero"
_FILE_MODE_MSG = "must be a number between 0 and 0777 (octal), both inclusive"
_PD_PARTITION_MSG = names.inclusive_range_error(1, 255)
_MAX_INT32 = 2147483647

validate_nonnegative_field = names.validate_nonnegative_field
validate_immutable_field = om.validate_immutable_field
validate_label_selector = om.validate_label_selector


@dataclass
class PodValidationOptions:
    """Go: ``PodValidationOptions``, with what kube-apiserver 1.36 sets for a new object."""

    allow_invalid_pod_deletion_cost: bool = False
    allow_invalid_label_value_in_selector: bool = False
    allow_indivisible_huge_pages_values: bool = False
    allow_host_ips_field: bool = True
    allow_invalid_topology_spread_constraint_label_selector: bool = False
    allow_non_local_projected_token_path: bool = False
    allow_namespaced_sysctls_for_host_net_and_host_ipc: bool = False
    resource_is_pod: bool = False
    allow_relaxed_environment_variable_validation: bool = True


def _sorted(m: Mapping[str, Any] | None) -> list[str]:
    return sorted(m or {})


def _msgs_invalid(path: Path, value: Any, msgs: Iterable[str]) -> ErrorList:
    return ErrorList(fld.invalid(path, value, m) for m in msgs)


def _dns1123_label(value: str, path: Path) -> ErrorList:
    return _msgs_invalid(path, value, names.is_dns1123_label(value))


def _dns1123_subdomain(value: str, path: Path) -> ErrorList:
    return _msgs_invalid(path, value, names.is_dns1123_subdomain(value))


def _qualified_name(value: str, path: Path) -> ErrorList:
    return _msgs_invalid(path, value, names.is_qualified_name(value))


def is_decremented(update: int | None, old: int | None) -> bool:
    """Go: ``IsDecremented``."""
    if update is None and old is not None:
        return True
    if update is None or old is None:
        return False
    return update < old


# --- ObjectMeta with k/k's finalizer rule -------------------------------------------------

_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})


def _validate_kube_finalizer_name(value: str, path: Path) -> ErrorList:
    if len(value.split("/")) == 1 and value not in _STANDARD_FINALIZERS:
        return ErrorList([fld.invalid(path, value, "name is neither a standard finalizer name nor is it fully qualified")])
    return ErrorList()


def _validate_finalizer_name(value: str, path: Path) -> ErrorList:
    errs = om.validate_finalizer_name(value, path)
    errs.extend(_validate_kube_finalizer_name(value, path))
    return errs


def validate_object_meta(meta: Any, requires_namespace: bool, name_fn: names.ValidateNameFunc,
                         path: Path | None = None) -> ErrorList:
    """Go: core ``ValidateObjectMeta``: apimachinery's, plus standard or qualified finalizers."""
    path = path if path is not None else Path("metadata")
    errs = om.validate_object_meta(meta, requires_namespace, name_fn, path)
    for i, f in enumerate(meta.finalizers or []):
        errs.extend(_validate_kube_finalizer_name(f, path.child("finalizers").index(i)))
    return errs


def validate_object_meta_update(new: Any, old: Any, path: Path | None = None) -> ErrorList:
    """Go: core ``ValidateObjectMetaUpdate``."""
    path = path if path is not None else Path("metadata")
    errs = om.validate_object_meta_update(new, old, path)
    for i, f in enumerate(new.finalizers or []):
        errs.extend(_validate_kube_finalizer_name(f, path.child("finalizers").index(i)))
    return errs


_TEMPLATE_META_ALLOWED = ("labels", "annotations")


def validate_template_object_meta(meta: Any, path: Path) -> ErrorList:
    """Go: ``ValidateTemplateObjectMeta``: labels and annotations only."""
    errs = om.validate_annotations(meta.annotations, path.child("annotations"))
    errs.extend(om.validate_labels(meta.labels, path.child("labels")))
    errs.extend(_validate_field_allow_list(meta, _TEMPLATE_META_ALLOWED, "cannot be set", path))
    return errs


def _validate_field_allow_list(value: Any, allowed: Sequence[str], text: str, path: Path) -> ErrorList:
    from kcodec.fieldtable import fields_of

    errs = ErrorList()
    zero = type(value)()
    for f in fields_of(type(value)):
        if f.name in allowed:
            continue
        if getattr(value, f.name) != getattr(zero, f.name):
            go = f.go_field()
            errs.append(fld.forbidden(path.child(go[:1].lower() + go[1:]), text))
    return errs


# --- paths ------------------------------------------------------------------------------

def _validate_path_no_backsteps(target: str, path: Path) -> ErrorList:
    if ".." in target.replace("\\", "/").split("/"):
        return ErrorList([fld.invalid(path, target, "must not contain '..'")])
    return ErrorList()


def _validate_local_descending_path(target: str, path: Path) -> ErrorList:
    errs = ErrorList()
    if target.startswith("/"):
        errs.append(fld.invalid(path, target, "must be a relative path"))
    errs.extend(_validate_path_no_backsteps(target, path))
    return errs


def _validate_local_non_reserved_path(target: str, path: Path) -> ErrorList:
    errs = _validate_local_descending_path(target, path)
    if target.startswith("..") and not target.startswith("../"):
        errs.append(fld.invalid(path, target, "must not start with '..'"))
    return errs


# --- resources ----------------------------------------------------------------------------

_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "services", "replicationcontrollers",
    "resourcequotas", "secrets", "persistentvolumeclaims", "configmaps", "storage", "requests.storage", "services.nodeports",
    "services.loadbalancers",
})
_INTEGER_RESOURCES = frozenset({
    "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
})


def _is_huge_page(name: str) -> bool:
    return name.startswith("hugepages-")


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    if _is_native(name) or name.startswith("requests."):
        return False
    return not names.is_qualified_name("requests." + name)


def _is_overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not _is_huge_page(name)


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or _is_extended(name)


def _validate_resource_name(value: str, path: Path) -> ErrorList:
    errs = _qualified_name(value, path)
    if errs:
        return errs
    # helper.IsStandardResourceName: the standard set, or a hugepages name (IsQuotaHugePageResourceName
    # takes both "hugepages-" and "requests.hugepages-").
    if len(value.split("/")) == 1 and value not in _STANDARD_RESOURCES and \
            not value.startswith(("hugepages-", "requests.hugepages-")):
        errs.append(fld.invalid(path, value, "must be a standard resource type or fully qualified"))
    return errs


def _validate_container_resource_name(value: str, path: Path) -> ErrorList:
    errs = _validate_resource_name(value, path)
    if len(value.split("/")) == 1:
        if value not in _STANDARD_CONTAINER_RESOURCES and not _is_huge_page(value):
            errs.append(fld.invalid(path, value, "must be a standard resource for containers"))
    elif not _is_native(value) and not _is_extended(value):
        errs.append(fld.invalid(path, value, "doesn't follow extended resource name standard"))
    return errs


#: Go: ``ValidateContainerResourceName`` (pkg/apis/core/v1/validation), used by HPA metrics.
validate_container_resource_name = _validate_container_resource_name


def _validate_nonnegative_quantity(value: Quantity, path: Path) -> ErrorList:
    if value.sign() < 0:
        return ErrorList([fld.invalid(path, str(value), names.IS_NEGATIVE_ERROR_MSG)])
    return ErrorList()


def _validate_positive_quantity(value: Quantity, path: Path) -> ErrorList:
    if value.sign() <= 0:
        return ErrorList([fld.invalid(path, str(value), _IS_NOT_POSITIVE)])
    return ErrorList()


def validate_resource_quantity_value(resource: str, value: Quantity, path: Path) -> ErrorList:
    """Go: ``ValidateResourceQuantityValue``."""
    errs = _validate_nonnegative_quantity(value, path)
    if _is_integer_resource(resource) and value.milli_value() % 1000 != 0:
        errs.append(fld.invalid(path, value, _IS_NOT_INTEGER))
    return errs


def _huge_page_size(name: str) -> Quantity | None:
    try:
        return Quantity(name[len("hugepages-"):])
    except Exception:  # noqa: BLE001 - not a quantity: Go's helper reports not divisible
        return None


def _validate_huge_page_value(name: str, q: Quantity, opts: PodValidationOptions) -> str | None:
    if not _is_huge_page(name) or opts.allow_indivisible_huge_pages_values:
        return None
    size = _huge_page_size(name)
    if size is None or size.value() <= 0 or q.value() % size.value() != 0:
        return f"{q} is not positive integer multiple of {name}"
    return None


def validate_resource_requirements(req: Any, pod_claim_names: set[str], path: Path,
                                   opts: PodValidationOptions) -> ErrorList:
    """Go: ``ValidateResourceRequirements`` (names, quantities, requests <= limits)."""
    errs = ErrorList()
    if req is None:
        return errs
    lim_path = path.child("limits")
    req_path = path.child("requests")
    limits = req.limits or {}
    requests = req.requests or {}
    lim_cpu_mem = req_cpu_mem = lim_huge = req_huge = False
    for name in _sorted(limits):
        q = limits[name]
        p = lim_path.key(name)
        errs.extend(_validate_container_resource_name(name, p))
        errs.extend(validate_resource_quantity_value(name, q, p))
        if _is_huge_page(name):
            lim_huge = True
            msg = _validate_huge_page_value(name, q, opts)
            if msg:
                errs.append(fld.invalid(p, str(q), msg))
        if name in ("cpu", "memory"):
            lim_cpu_mem = True
    for name in _sorted(requests):
        q = requests[name]
        p = req_path.key(name)
        errs.extend(_validate_container_resource_name(name, p))
        errs.extend(validate_resource_quantity_value(name, q, p))
        if name in limits:
            lq = limits[name]
            if q.cmp(lq) != 0 and not _is_overcommit_allowed(name):
                errs.append(fld.invalid(req_path, str(q), f"must be equal to {name} limit of {lq}"))
            elif q.cmp(lq) > 0:
                errs.append(fld.invalid(req_path, str(q), f"must be less than or equal to {name} limit of {lq}"))
        elif not _is_overcommit_allowed(name):
            errs.append(fld.required(lim_path, "Limit must be set for non overcommitable resources"))
        if _is_huge_page(name):
            req_huge = True
            msg = _validate_huge_page_value(name, q, opts)
            if msg:
                errs.append(fld.invalid(p, str(q), msg))
        if name in ("cpu", "memory"):
            req_cpu_mem = True
    if not lim_cpu_mem and not req_cpu_mem and (req_huge or lim_huge):
        errs.append(fld.forbidden(path, "HugePages require cpu or memory"))
    seen: set[str] = set()
    for i, claim in enumerate(getattr(req, "claims", None) or []):
        name = claim.name
        cp = path.child("claims").index(i)
        if not name:
            errs.append(fld.required(cp, ""))
            continue
        if name in seen:
            errs.append(fld.duplicate(cp, name))
        seen.add(name)
        if name not in pod_claim_names:
            e = fld.not_found(cp, name)
            e.detail = "must be one of the names in pod.spec.resourceClaims"
            e.detail += " which is empty" if not pod_claim_names else ": " + ", ".join(sorted(pod_claim_names))
            errs.append(e)
    return errs


# --- volumes ----------------------------------------------------------------------------

def _ref_name(ref: Any) -> str:
    # Go embeds LocalObjectReference in the config map and secret references.
    inner = getattr(ref, "local_object_reference", None)
    return inner.name if inner is not None else ref.name


def _mode_errs(mode: int | None, path: Path) -> ErrorList:
    if mode is not None and (mode > 0o777 or mode < 0):
        return ErrorList([fld.invalid(path, mode, _FILE_MODE_MSG)])
    return ErrorList()


def _validate_key_to_path(kp: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if not kp.key:
        errs.append(fld.required(path.child("key"), ""))
    if not kp.path:
        errs.append(fld.required(path.child("path"), ""))
    errs.extend(_validate_local_non_reserved_path(kp.path, path.child("path")))
    errs.extend(_mode_errs(kp.mode, path.child("mode")))
    return errs


_VOLUME_DOWNWARD_PATHS = frozenset({"metadata.name", "metadata.namespace", "metadata.labels",
                                    "metadata.annotations", "metadata.uid"})
_ENV_DOWNWARD_PATHS = frozenset({"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
                                 "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP",
                                 "status.podIPs"})
_CONTAINER_RESOURCE_PATHS = frozenset({"limits.cpu", "limits.memory", "limits.ephemeral-storage", "requests.cpu",
                                       "requests.memory", "requests.ephemeral-storage"})
_MEMORY_DIVISORS = frozenset({"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"})
_SUBSCRIPT = re.compile(r"^(.*)\['(.*)'\]$", re.S)


def _convert_downward_api_field_label(version: str, label: str) -> str:
    # Go: podshelper.ConvertDownwardAPIFieldLabel.
    if version != "v1":
        raise ValueError(f"unsupported pod version: {version}")
    m = _SUBSCRIPT.match(label)
    if m and m.group(1) in ("metadata.annotations", "metadata.labels"):
        return label
    if label in ("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
                 "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
                 "status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"):
        return label
    if label == "spec.host":
        return "spec.nodeName"
    raise ValueError(f"field label not supported: {label}")


def _validate_object_field_selector(fs: Any, expressions: frozenset[str], path: Path) -> ErrorList:
    if not fs.api_version:
        return ErrorList([fld.required(path.child("apiVersion"), "")])
    if not fs.field_path:
        return ErrorList([fld.required(path.child("fieldPath"), "")])
    try:
        internal = _convert_downward_api_field_label(fs.api_version, fs.field_path)
    except ValueError as e:
        return ErrorList([fld.invalid(path.child("fieldPath"), fs.field_path, f"error converting fieldPath: {e}")])
    m = _SUBSCRIPT.match(internal)
    if m:
        p, sub = m.group(1), m.group(2)
        if p == "metadata.annotations":
            return _qualified_name(sub.lower(), path)
        if p == "metadata.labels":
            return _qualified_name(sub, path)
        return ErrorList([fld.invalid(path, p, "does not support subscript")])
    if internal not in expressions:
        return ErrorList([fld.not_supported(path.child("fieldPath"), internal, sorted(expressions))])
    return ErrorList()


def _validate_container_resource_divisor(name: str, divisor: Quantity | None, path: Path) -> ErrorList:
    if divisor is None or divisor.is_zero():
        return ErrorList()
    d = str(divisor)
    if name in ("limits.cpu", "requests.cpu") and d not in ("1m", "1"):
        return ErrorList([fld.invalid(path.child("divisor"), name,
                                      "only divisor's values 1m and 1 are supported with the cpu resource")])
    allowed = "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the "
    errs = ErrorList()
    if name in ("limits.memory", "requests.memory") and d not in _MEMORY_DIVISORS:
        errs.append(fld.invalid(path.child("divisor"), name, allowed + "memory resource"))
    if name in ("limits.ephemeral-storage", "requests.ephemeral-storage") and d not in _MEMORY_DIVISORS:
        errs.append(fld.invalid(path.child("divisor"), name, allowed + "local ephemeral storage resource"))
    if name.startswith(("requests.hugepages-", "limits.hugepages-")) and d not in _MEMORY_DIVISORS:
        errs.append(fld.invalid(path.child("divisor"), name, allowed + "hugepages resource"))
    return errs


def _validate_container_resource_field_selector(fs: Any, path: Path, volume: bool) -> ErrorList:
    errs = ErrorList()
    if volume and not fs.container_name:
        errs.append(fld.required(path.child("containerName"), ""))
    elif not fs.resource:
        errs.append(fld.required(path.child("resource"), ""))
    elif fs.resource not in _CONTAINER_RESOURCE_PATHS and not fs.resource.startswith(
            ("requests.hugepages-", "limits.hugepages-")):
        errs.append(fld.not_supported(path.child("resource"), fs.resource, sorted(_CONTAINER_RESOURCE_PATHS)))
    errs.extend(_validate_container_resource_divisor(fs.resource, fs.divisor, path))
    return errs


def _validate_downward_api_host_ips(fs: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    if not opts.allow_host_ips_field and fs.field_path == "status.hostIPs":
        return ErrorList([fld.forbidden(path, "may not be set when feature gate 'PodHostIPs' is not enabled")])
    return ErrorList()


def _validate_downward_api_volume_file(file: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    if not file.path:
        errs.append(fld.required(path.child("path"), ""))
    errs.extend(_validate_local_non_reserved_path(file.path, path.child("path")))
    if file.field_ref is not None:
        errs.extend(_validate_object_field_selector(file.field_ref, _VOLUME_DOWNWARD_PATHS, path.child("fieldRef")))
        if file.resource_field_ref is not None:
            errs.append(fld.invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
        errs.extend(_validate_downward_api_host_ips(file.field_ref, path.child("fieldRef"), opts))
    elif file.resource_field_ref is not None:
        errs.extend(_validate_container_resource_field_selector(file.resource_field_ref, path.child("resourceFieldRef"),
                                                                True))
    else:
        errs.append(fld.required(path, "one of fieldRef and resourceFieldRef is required"))
    errs.extend(_mode_errs(file.mode, path.child("mode")))
    return errs


def _validate_projected(src: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = _mode_errs(src.default_mode, path.child("defaultMode"))
    all_paths: set[str] = set()
    for i, source in enumerate(src.sources or []):
        n = 0
        sp = path.child("sources").index(i)
        for attr, key in (("secret", "secret"), ("config_map", "configMap")):
            ref = getattr(source, attr)
            if ref is None:
                continue
            n += 1
            pp = sp.child(key)
            if not _ref_name(ref):
                errs.append(fld.required(pp.child("name"), ""))
            for j, kp in enumerate(ref.items or []):
                errs.extend(_validate_key_to_path(kp, pp.child("items").index(j)))
                if kp.path:
                    if kp.path in all_paths:
                        errs.append(fld.invalid(path, _ref_name(ref), "conflicting duplicate paths"))
                    all_paths.add(kp.path)
        if source.downward_api is not None:
            n += 1
            pp = sp.child("downwardAPI")
            for file in source.downward_api.items or []:
                errs.extend(_validate_downward_api_volume_file(file, pp, opts))
                if file.path:
                    if file.path in all_paths:
                        errs.append(fld.invalid(path, file.path, "conflicting duplicate paths"))
                    all_paths.add(file.path)
        sat = source.service_account_token
        if sat is not None:
            n += 1
            pp = sp.child("serviceAccountToken")
            exp = sat.expiration_seconds if sat.expiration_seconds is not None else 0
            if exp < 600:
                errs.append(fld.invalid(pp.child("expirationSeconds"), exp, "may not specify a duration less than 10 minutes"))
            if exp > 1 << 32:
                errs.append(fld.invalid(pp.child("expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"))
            if not sat.path:
                errs.append(fld.required(path.child("path"), ""))
            elif not opts.allow_non_local_projected_token_path:
                errs.extend(_validate_local_non_reserved_path(sat.path, path.child("path")))
        ctb = getattr(source, "cluster_trust_bundle", None)
        if ctb is not None:
            n += 1
            pp = sp.child("clusterTrustBundlePEM")
            if ctb.name is not None and ctb.signer_name is not None:
                errs.append(fld.invalid(pp, ctb, "only one of name and signerName may be used"))
            elif ctb.name is not None:
                if not ctb.name:
                    errs.append(fld.required(pp.child("name"), "must be a valid object name"))
                if ctb.label_selector is not None:
                    errs.append(fld.invalid(pp.child("labelSelector"), ctb.label_selector,
                                            "labelSelector must be unset if name is specified"))
            elif ctb.signer_name is not None:
                if not ctb.signer_name:
                    errs.append(fld.required(pp.child("signerName"), "must be a valid signer name"))
                errs.extend(om.validate_label_selector(ctb.label_selector, pp.child("labelSelector")))
            else:
                errs.append(fld.required(pp, "either name or signerName must be specified"))
            if not ctb.path:
                errs.append(fld.required(pp.child("path"), ""))
            errs.extend(_validate_local_non_reserved_path(ctb.path, pp.child("path")))
            if ctb.path in all_paths:
                errs.append(fld.invalid(path, ctb.path, "conflicting duplicate paths"))
            all_paths.add(ctb.path)
        if n > 1:
            errs.append(fld.forbidden(sp, "may not specify more than 1 volume type"))
    return errs


_HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate",
                    "Socket"]


def _v_host_path(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    if not s.path:
        return ErrorList([fld.required(p.child("path"), "")])
    errs = _validate_path_no_backsteps(s.path, p.child("path"))
    if s.type is not None and s.type not in _HOST_PATH_TYPES:
        errs.append(fld.not_supported(p.child("type"), s.type, _HOST_PATH_TYPES))
    return errs


def _v_empty_dir(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    if s.size_limit is not None and s.size_limit.sign() < 0:
        return ErrorList([fld.forbidden(p.child("sizeLimit"), "SizeLimit field must be a valid resource quantity")])
    return ErrorList()


def _v_secret(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    if not s.secret_name:
        errs.append(fld.required(p.child("secretName"), ""))
    errs.extend(_mode_errs(s.default_mode, p.child("defaultMode")))
    for i, kp in enumerate(s.items or []):
        errs.extend(_validate_key_to_path(kp, p.child("items").index(i)))
    return errs


def _v_config_map(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    if not _ref_name(s):
        errs.append(fld.required(p.child("name"), ""))
    errs.extend(_mode_errs(s.default_mode, p.child("defaultMode")))
    for i, kp in enumerate(s.items or []):
        errs.extend(_validate_key_to_path(kp, p.child("items").index(i)))
    return errs


def _v_pvc(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    return ErrorList([fld.required(p.child("claimName"), "")]) if not s.claim_name else ErrorList()


def _v_nfs(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    if not s.server:
        errs.append(fld.required(p.child("server"), ""))
    if not s.path:
        errs.append(fld.required(p.child("path"), ""))
    if not s.path.startswith("/"):
        errs.append(fld.invalid(p.child("path"), s.path, "must be an absolute path"))
    return errs


def _v_downward(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    errs = _mode_errs(s.default_mode, p.child("defaultMode"))
    for file in s.items or []:
        errs.extend(_validate_downward_api_volume_file(file, p, opts))
    return errs


def _v_git_repo(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    if not s.repository:
        errs.append(fld.required(p.child("repository"), ""))
    errs.extend(_validate_local_descending_path(s.directory, p.child("directory")))
    return errs


def _required_fields(*pairs: tuple[str, str]) -> Callable[[Any, Path, PodValidationOptions], ErrorList]:
    def check(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
        return ErrorList(fld.required(p.child(js), "") for attr, js in pairs if not getattr(s, attr))
    return check


def _v_partitioned(id_attr: str, id_json: str) -> Callable[[Any, Path, PodValidationOptions], ErrorList]:
    def check(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
        errs = ErrorList()
        if not getattr(s, id_attr):
            errs.append(fld.required(p.child(id_json), ""))
        if s.partition < 0 or s.partition > 255:
            errs.append(fld.invalid(p.child("partition"), s.partition, _PD_PARTITION_MSG))
        return errs
    return check


def validate_csi_driver_name(name: str, path: Path) -> ErrorList:
    """Go: ``ValidateCSIDriverName`` (also used by the storage and resource.k8s.io validation)."""
    errs = ErrorList()
    if not name:
        errs.append(fld.required(path, ""))
    if names.go_len(name) > 63:
        errs.append(fld.too_long(path, name, 63))
    errs.extend(fld.invalid(path, name, m) for m in names.is_dns1123_subdomain(name.lower()))
    return errs


def _v_csi(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    errs = validate_csi_driver_name(s.driver, p.child("driver"))
    ref = s.node_publish_secret_ref
    if ref is not None:
        if not ref.name:
            errs.append(fld.required(p.child("nodePublishSecretRef", "name"), ""))
        else:
            errs.extend(fld.invalid(p.child("name"), ref.name, m) for m in names.name_is_dns_subdomain(ref.name, False))
    return errs


def _v_ephemeral(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    if s.volume_claim_template is None:
        return ErrorList([fld.required(p.child("volumeClaimTemplate"), "")])
    t = s.volume_claim_template
    tp = p.child("volumeClaimTemplate")
    errs = validate_template_object_meta(t.metadata, tp.child("metadata"))
    errs.extend(validate_persistent_volume_claim_spec(t.spec, tp.child("spec")))
    return errs


def _v_flex(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    if not s.driver:
        errs.append(fld.required(p.child("driver"), ""))
    for k in _sorted(s.options):
        ns = k.split("/", 1)[0] if "/" in k else k
        normalized = "." + ns.lower()
        if normalized.endswith((".kubernetes.io", ".k8s.io")):
            errs.append(fld.invalid(p.child("options").key(k), k, "kubernetes.io and k8s.io namespaces are reserved"))
    return errs


def _v_image(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    if not s.reference:
        errs.append(fld.required(p.child("reference"), ""))
    policies = ["Always", "IfNotPresent", "Never"]
    if s.pull_policy and s.pull_policy not in policies:
        errs.append(fld.not_supported(p.child("pullPolicy"), s.pull_policy, policies))
    elif not s.pull_policy:
        errs.append(fld.required(p.child("pullPolicy"), ""))
    return errs


def _v_noop(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    return ErrorList()


# (attribute, Go's path name in the "more than 1" error, path name for the source's own
# errors, checker) in Go's order; a few Go checks use a path that differs from the field.
_VOLUME_SOURCES: list[tuple[str, str, str, Callable[[Any, Path, PodValidationOptions], ErrorList]]] = [
    ("empty_dir", "emptyDir", "emptyDir", _v_empty_dir),
    ("host_path", "hostPath", "hostPath", _v_host_path),
    ("git_repo", "gitRepo", "gitRepo", _v_git_repo),
    ("gce_persistent_disk", "gcePersistentDisk", "persistentDisk", _v_partitioned("pd_name", "pdName")),
    ("aws_elastic_block_store", "awsElasticBlockStore", "awsElasticBlockStore", _v_partitioned("volume_id", "volumeID")),
    ("secret", "secret", "secret", _v_secret),
    ("nfs", "nfs", "nfs", _v_nfs),
    ("iscsi", "iscsi", "iscsi", _required_fields(("target_portal", "targetPortal"), ("iqn", "iqn"))),
    ("glusterfs", "glusterfs", "glusterfs", _required_fields(("endpoints_name", "endpoints"), ("path", "path"))),
    ("flocker", "flocker", "flocker", _v_noop),
    ("persistent_volume_claim", "persistentVolumeClaim", "persistentVolumeClaim", _v_pvc),
    ("rbd", "rbd", "rbd", _required_fields(("ceph_monitors", "monitors"), ("rbd_image", "image"))),
    ("cinder", "cinder", "cinder", _required_fields(("volume_id", "volumeID"))),
    ("ceph_fs", "cephFS", "cephfs", _required_fields(("monitors", "monitors"))),
    ("quobyte", "quobyte", "quobyte", _required_fields(("volume", "volume"))),
    ("downward_api", "downwarAPI", "downwardAPI", _v_downward),
    ("fc", "fc", "fc", _v_noop),
    ("flex_volume", "flexVolume", "flexVolume", _v_flex),
    ("config_map", "configMap", "configMap", _v_config_map),
    ("azure_file", "azureFile", "azureFile", _required_fields(("secret_name", "secretName"), ("share_name", "shareName"))),
    ("vsphere_volume", "vsphereVolume", "vsphereVolume", _required_fields(("volume_path", "volumePath"))),
    ("photon_persistent_disk", "photonPersistentDisk", "photonPersistentDisk", _required_fields(("pd_id", "pdID"))),
    ("portworx_volume", "portworxVolume", "portworxVolume", _required_fields(("volume_id", "volumeID"))),
    ("azure_disk", "azureDisk", "azureDisk", _required_fields(("disk_name", "diskName"), ("data_disk_uri", "diskURI"))),
    ("storage_os", "storageos", "storageos", _required_fields(("volume_name", "volumeName"))),
    ("projected", "projected", "projected", _validate_projected),
    ("scale_io", "scaleIO", "scaleIO", _required_fields(("gateway", "gateway"), ("system", "system"),
                                                        ("volume_name", "volumeName"))),
    ("csi", "csi", "csi", _v_csi),
    ("ephemeral", "ephemeral", "ephemeral", _v_ephemeral),
    ("image", "image", "image", _v_image),
]


def _validate_volume_source(src: Any, path: Path, vol_name: str, pod_meta: Any,
                            opts: PodValidationOptions) -> ErrorList:
    n = 0
    errs = ErrorList()
    for attr, more_name, own_name, check in _VOLUME_SOURCES:
        value = getattr(src, attr, None)
        if value is None:
            continue
        if n > 0:
            errs.append(fld.forbidden(path.child(more_name), "may not specify more than 1 volume type"))
            continue
        n += 1
        errs.extend(check(value, path.child(own_name), opts))
        if attr == "ephemeral" and pod_meta is not None and pod_meta.name and vol_name:
            pvc = f"{pod_meta.name}-{vol_name}"
            errs.extend(fld.invalid(path.child("name"), vol_name, f"PVC name {quote(pvc)}: {m}")
                        for m in names.name_is_dns_subdomain(pvc, False))
    if n == 0:
        errs.append(fld.required(path, "must specify a volume type"))
    return errs


def validate_volumes(volumes: Sequence[Any] | None, pod_meta: Any, path: Path,
                     opts: PodValidationOptions) -> tuple[dict[str, Any], ErrorList]:
    """Go: ``ValidateVolumes``: the valid volumes by name, and the errors."""
    errs = ErrorList()
    all_names: set[str] = set()
    created_pvcs: set[str] = set()
    volumes = list(volumes or [])
    if pod_meta is not None and pod_meta.name:
        created_pvcs = {f"{pod_meta.name}-{v.name}" for v in volumes if v.volume_source.ephemeral is not None}
    vols: dict[str, Any] = {}
    for i, vol in enumerate(volumes):
        ip = path.index(i)
        np_ = ip.child("name")
        el = _validate_volume_source(vol.volume_source, ip, vol.name, pod_meta, opts)
        if not vol.name:
            el.append(fld.required(np_, ""))
        else:
            el.extend(_dns1123_label(vol.name, np_))
        if vol.name in all_names:
            el.append(fld.duplicate(np_, vol.name))
        if not el:
            all_names.add(vol.name)
            vols[vol.name] = vol.volume_source
        else:
            errs.extend(el)
        pvc = vol.volume_source.persistent_volume_claim
        if pvc is not None and pvc.claim_name in created_pvcs:
            errs.append(fld.invalid(ip.child("persistentVolumeClaim").child("claimName"), pvc.claim_name,
                                    "must not reference a PVC that gets created for an ephemeral volume"))
    return vols, errs


# --- containers ---------------------------------------------------------------------------

_PROTOCOLS = ["SCTP", "TCP", "UDP"]


def _validate_container_ports(ports: Sequence[Any] | None, path: Path) -> ErrorList:
    errs = ErrorList()
    seen: set[str] = set()
    for i, port in enumerate(ports or []):
        ip = path.index(i)
        if port.name:
            msgs = names.is_valid_port_name(port.name)
            if msgs:
                errs.extend(fld.invalid(ip.child("name"), port.name, m) for m in msgs)
            elif port.name in seen:
                errs.append(fld.duplicate(ip.child("name"), port.name))
            else:
                seen.add(port.name)
        if port.container_port == 0:
            errs.append(fld.required(ip.child("containerPort"), ""))
        else:
            errs.extend(fld.invalid(ip.child("containerPort"), port.container_port, m)
                        for m in names.is_valid_port_num(port.container_port))
        if port.host_port != 0:
            errs.extend(fld.invalid(ip.child("hostPort"), port.host_port, m) for m in names.is_valid_port_num(port.host_port))
        if not port.protocol:
            errs.append(fld.required(ip.child("protocol"), ""))
        elif port.protocol not in _PROTOCOLS:
            errs.append(fld.not_supported(ip.child("protocol"), port.protocol, _PROTOCOLS))
    return errs


def _env_name_errs(name: str, opts: PodValidationOptions) -> list[str]:
    if opts.allow_relaxed_environment_variable_validation:
        return names.is_relaxed_env_var_name(name)
    return names.is_env_var_name(name)


def _validate_name_and_key(s: Any, path: Path) -> ErrorList:
    name = _ref_name(s)
    errs = ErrorList(fld.invalid(path.child("name"), name, m) for m in names.name_is_dns_subdomain(name, False))
    if not s.key:
        errs.append(fld.required(path.child("key"), ""))
    else:
        errs.extend(fld.invalid(path.child("key"), s.key, m) for m in names.is_config_map_key(s.key))
    return errs


def validate_env(env: Sequence[Any] | None, path: Path, opts: PodValidationOptions) -> ErrorList:
    """Go: ``ValidateEnv``."""
    errs = ErrorList()
    for i, ev in enumerate(env or []):
        ip = path.index(i)
        if not ev.name:
            errs.append(fld.required(ip.child("name"), ""))
        else:
            errs.extend(fld.invalid(ip.child("name"), ev.name, m) for m in _env_name_errs(ev.name, opts))
        vf = ev.value_from
        if vf is None:
            continue
        vp = ip.child("valueFrom")
        n = 0
        if vf.field_ref is not None:
            n += 1
            errs.extend(_validate_object_field_selector(vf.field_ref, _ENV_DOWNWARD_PATHS, vp.child("fieldRef")))
            errs.extend(_validate_downward_api_host_ips(vf.field_ref, vp.child("fieldRef"), opts))
        if vf.resource_field_ref is not None:
            n += 1
            errs.extend(_validate_container_resource_field_selector(vf.resource_field_ref, vp.child("resourceFieldRef"),
                                                                    False))
        if vf.config_map_key_ref is not None:
            n += 1
            errs.extend(_validate_name_and_key(vf.config_map_key_ref, vp.child("configMapKeyRef")))
        if vf.secret_key_ref is not None:
            n += 1
            errs.extend(_validate_name_and_key(vf.secret_key_ref, vp.child("secretKeyRef")))
        if getattr(vf, "file_key_ref", None) is not None:
            n += 1
        if n == 0:
            errs.append(fld.invalid(vp, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` "
                                            "or `secretKeyRef`"))
        elif ev.value:
            errs.append(fld.invalid(vp, "", "may not be specified when `value` is not empty"))
        elif n > 1:
            errs.append(fld.invalid(vp, "", "may not have more than one field specified at a time"))
    return errs


def _validate_env_from(env_from: Sequence[Any] | None, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    for i, ev in enumerate(env_from or []):
        ip = path.index(i)
        if ev.prefix:
            errs.extend(fld.invalid(ip.child("prefix"), ev.prefix, m) for m in _env_name_errs(ev.prefix, opts))
        n = 0
        for attr, js in (("config_map_ref", "configMapRef"), ("secret_ref", "secretRef")):
            ref = getattr(ev, attr)
            if ref is None:
                continue
            n += 1
            name = _ref_name(ref)
            if not name:
                errs.append(fld.required(ip.child(js, "name"), ""))
            else:
                errs.extend(fld.invalid(ip.child(js, "name"), name, m)
                            for m in names.name_is_dns_subdomain(name, True))
        if n == 0:
            errs.append(fld.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif n > 1:
            errs.append(fld.invalid(path, "", "may not have more than one field specified at a time"))
    return errs


_MOUNT_PROPAGATIONS = ["Bidirectional", "HostToContainer", "None"]
_RRO = ["Disabled", "Enabled", "IfPossible"]


def _validate_volume_mounts(mounts: Sequence[Any] | None, devices: Mapping[str, str], volumes: Mapping[str, Any],
                            container: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    points: set[str] = set()
    for i, m in enumerate(mounts or []):
        ip = path.index(i)
        if not m.name:
            errs.append(fld.required(ip.child("name"), ""))
        if m.name not in volumes:
            errs.append(fld.not_found(ip.child("name"), m.name))
        if not m.mount_path:
            errs.append(fld.required(ip.child("mountPath"), ""))
        if m.mount_path in points:
            errs.append(fld.invalid(ip.child("mountPath"), m.mount_path, "must be unique"))
        points.add(m.mount_path)
        if m.name in devices:
            errs.append(fld.invalid(ip.child("name"), m.name, "must not already exist in volumeDevices"))
        if m.mount_path in devices.values():
            errs.append(fld.invalid(ip.child("mountPath"), m.mount_path, "must not already exist as a path in volumeDevices"))
        if m.sub_path:
            errs.extend(_validate_local_descending_path(m.sub_path, path.child("subPath")))
        if m.sub_path_expr:
            if m.sub_path:
                errs.append(fld.invalid(ip.child("subPathExpr"), m.sub_path_expr,
                                        "subPathExpr and subPath are mutually exclusive"))
            errs.extend(_validate_local_descending_path(m.sub_path_expr, path.child("subPathExpr")))
        if m.mount_propagation is not None:
            pp = path.child("mountPropagation")
            if m.mount_propagation not in _MOUNT_PROPAGATIONS:
                errs.append(fld.not_supported(pp, m.mount_propagation, _MOUNT_PROPAGATIONS))
            if container is not None:
                sc = container.security_context
                privileged = sc is not None and bool(sc.privileged)
                if m.mount_propagation == "Bidirectional" and not privileged:
                    errs.append(fld.forbidden(pp, "Bidirectional mount propagation is available only to privileged containers"))
        if m.recursive_read_only is not None:
            rp = path.child("recursiveReadOnly")
            if m.recursive_read_only in ("Enabled", "IfPossible"):
                if not m.read_only:
                    errs.append(fld.forbidden(rp, "may only be specified when readOnly is true"))
                if m.mount_propagation is not None and m.mount_propagation != "None":
                    errs.append(fld.forbidden(rp, "may only be specified when mountPropagation is None or not specified"))
            elif m.recursive_read_only != "Disabled":
                errs.append(fld.not_supported(rp, m.recursive_read_only, _RRO))
    return errs


def _validate_volume_devices(devices: Sequence[Any] | None, mounts: Mapping[str, str], volumes: Mapping[str, Any],
                             path: Path) -> ErrorList:
    errs = ErrorList()
    paths: set[str] = set()
    seen_names: set[str] = set()
    for i, d in enumerate(devices or []):
        ip = path.index(i)
        src = volumes.get(d.name)
        matched = src is not None
        is_pvc = src is not None and (src.persistent_volume_claim is not None or src.ephemeral is not None)
        if not d.name:
            errs.append(fld.required(ip.child("name"), ""))
        if d.name in seen_names:
            errs.append(fld.invalid(ip.child("name"), d.name, "must be unique"))
        if matched and not is_pvc:
            errs.append(fld.invalid(ip.child("name"), d.name,
                                    "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"))
        if not matched:
            errs.append(fld.not_found(ip.child("name"), d.name))
        if not d.device_path:
            errs.append(fld.required(ip.child("devicePath"), ""))
        if d.device_path in paths:
            errs.append(fld.invalid(ip.child("devicePath"), d.device_path, "must be unique"))
        if d.device_path and _validate_path_no_backsteps(d.device_path, path):
            errs.append(fld.invalid(ip.child("devicePath"), d.device_path, "can not contain backsteps ('..')"))
        else:
            paths.add(d.device_path)
        if d.name in mounts:
            errs.append(fld.invalid(ip.child("name"), d.name, "must not already exist in volumeMounts"))
        if d.device_path in mounts.values():
            errs.append(fld.invalid(ip.child("devicePath"), d.device_path, "must not already exist as a path in volumeMounts"))
        if d.name:
            seen_names.add(d.name)
    return errs


def _validate_port_num_or_name(port: IntOrString, path: Path) -> ErrorList:
    if port.type == INT:
        v = port.int_value()
        return ErrorList(fld.invalid(path, v, m) for m in names.is_valid_port_num(v))
    return ErrorList(fld.invalid(path, port.str_val, m) for m in names.is_valid_port_name(port.str_val))


def _validate_handler(h: Any, grace: int | None, path: Path, lifecycle: bool) -> ErrorList:
    errs = ErrorList()
    n = 0
    checks: list[tuple[str, str]] = [("exec", "exec"), ("http_get", "httpGet"), ("tcp_socket", "tcpSocket")]
    checks += [("sleep", "sleep")] if lifecycle else [("grpc", "grpc")]
    for attr, js in checks:
        v = getattr(h, attr, None)
        if v is None:
            continue
        p = path.child(js)
        if n > 0:
            errs.append(fld.forbidden(p, "may not specify more than 1 handler type"))
            continue
        n += 1
        if attr == "exec":
            if not v.command:
                errs.append(fld.required(p.child("command"), ""))
        elif attr == "http_get":
            if not v.path:
                errs.append(fld.required(p.child("path"), ""))
            errs.extend(_validate_port_num_or_name(v.port, p.child("port")))
            if v.scheme not in ("HTTP", "HTTPS"):
                errs.append(fld.not_supported(p.child("scheme"), v.scheme, ["HTTP", "HTTPS"]))
            for header in v.http_headers or []:
                errs.extend(fld.invalid(p.child("httpHeaders"), header.name, m)
                            for m in names.is_http_header_name(header.name))
        elif attr == "tcp_socket":
            errs.extend(_validate_port_num_or_name(v.port, p.child("port")))
        elif attr == "grpc":
            errs.extend(_validate_port_num_or_name(IntOrString(v.port), p.child("port")))
        elif attr == "sleep":
            if v.seconds <= 0 or (grace is not None and v.seconds > grace):
                errs.append(fld.invalid(p, v.seconds, "must be greater than 0 and less than terminationGracePeriodSeconds "
                                                      f"({grace if grace is not None else 0})"))
    if n == 0:
        errs.append(fld.required(path, "must specify a handler type"))
    return errs


def _validate_probe(probe: Any, grace: int | None, path: Path) -> ErrorList:
    errs = _validate_handler(probe.probe_handler, grace, path, False)
    for attr, js in (("initial_delay_seconds", "initialDelaySeconds"), ("timeout_seconds", "timeoutSeconds"),
                     ("period_seconds", "periodSeconds"), ("success_threshold", "successThreshold"),
                     ("failure_threshold", "failureThreshold")):
        errs.extend(names.validate_nonnegative_field(getattr(probe, attr), path.child(js)))
    t = probe.termination_grace_period_seconds
    if t is not None and t <= 0:
        errs.append(fld.invalid(path.child("terminationGracePeriodSeconds"), t, "must be greater than 0"))
    return errs


def _validate_liveness_or_startup(probe: Any, grace: int | None, path: Path) -> ErrorList:
    if probe is None:
        return ErrorList()
    errs = _validate_probe(probe, grace, path)
    if probe.success_threshold != 1:
        errs.append(fld.invalid(path.child("successThreshold"), probe.success_threshold, "must be 1"))
    return errs


def _validate_readiness(probe: Any, grace: int | None, path: Path) -> ErrorList:
    if probe is None:
        return ErrorList()
    errs = _validate_probe(probe, grace, path)
    if probe.termination_grace_period_seconds is not None:
        errs.append(fld.invalid(path.child("terminationGracePeriodSeconds"), probe.termination_grace_period_seconds,
                                "must not be set for readinessProbes"))
    return errs


def _validate_lifecycle(lc: Any, grace: int | None, path: Path) -> ErrorList:
    errs = ErrorList()
    if lc.post_start is not None:
        errs.extend(_validate_handler(lc.post_start, grace, path.child("postStart"), True))
    if lc.pre_stop is not None:
        errs.extend(_validate_handler(lc.pre_stop, grace, path.child("preStop"), True))
    return errs


_PULL_POLICIES = ["Always", "IfNotPresent", "Never"]


def _validate_seccomp_profile(sp: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if sp is None:
        return errs
    types = ["Localhost", "RuntimeDefault", "Unconfined"]
    if sp.type == "":
        errs.append(fld.required(path.child("type"), "type is required when seccompProfile is set"))
    elif sp.type not in types:
        errs.append(fld.not_supported(path.child("type"), sp.type, types))
    if sp.type == "Localhost":
        if sp.localhost_profile is None:
            errs.append(fld.required(path.child("localhostProfile"), "must be set when seccomp type is Localhost"))
        else:
            errs.extend(_validate_local_descending_path(sp.localhost_profile, path.child("localhostProfile")))
    elif sp.localhost_profile is not None:
        errs.append(fld.invalid(path.child("localhostProfile"), sp, "can only be set when seccomp type is Localhost"))
    return errs


def _validate_app_armor_profile(profile: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if profile is None:
        return errs
    t = profile.type
    if t == "Localhost":
        lp = profile.localhost_profile
        if lp is None:
            errs.append(fld.required(path.child("localhostProfile"), "must be set when AppArmor type is Localhost"))
        else:
            if lp.strip() != lp:
                errs.append(fld.invalid(path.child("localhostProfile"), lp, "must not be padded with whitespace"))
            elif lp == "":
                errs.append(fld.required(path.child("localhostProfile"), "must be set when AppArmor type is Localhost"))
            if names.go_len(lp) > 4095:
                errs.append(fld.too_long(path.child("localhostProfile"), lp, 4095))
    elif t in ("RuntimeDefault", "Unconfined"):
        if profile.localhost_profile is not None:
            errs.append(fld.invalid(path.child("localhostProfile"), profile.localhost_profile,
                                    "can only be set when AppArmor type is Localhost"))
    elif t == "":
        errs.append(fld.required(path.child("type"), "type is required when appArmorProfile is set"))
    else:
        errs.append(fld.not_supported(path.child("type"), t, ["Localhost", "RuntimeDefault", "Unconfined"]))
    return errs


def _validate_security_context(sc: Any, path: Path, host_users: bool) -> ErrorList:
    errs = ErrorList()
    if sc is None:
        return errs
    if sc.run_as_user is not None:
        errs.extend(fld.invalid(path.child("runAsUser"), sc.run_as_user, m) for m in names.is_valid_user_id(sc.run_as_user))
    if sc.run_as_group is not None:
        errs.extend(fld.invalid(path.child("runAsGroup"), sc.run_as_group, m)
                    for m in names.is_valid_group_id(sc.run_as_group))
    if sc.proc_mount is not None:
        if sc.proc_mount not in ("Default", "Unmasked"):
            errs.append(fld.not_supported(path.child("procMount"), sc.proc_mount, ["Default", "Unmasked"]))
        if host_users and sc.proc_mount == "Unmasked":
            errs.append(fld.invalid(path.child("procMount"), sc.proc_mount, "`hostUsers` must be false to use `Unmasked`"))
    errs.extend(_validate_seccomp_profile(sc.seccomp_profile, path.child("seccompProfile")))
    if sc.allow_privilege_escalation is not None and not sc.allow_privilege_escalation:
        if sc.privileged:
            errs.append(fld.invalid(path, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
        if sc.capabilities is not None:
            for cap in sc.capabilities.add or []:
                if cap == "CAP_SYS_ADMIN":
                    errs.append(fld.invalid(path, sc, "cannot set `allowPrivilegeEscalation` to false and "
                                                      "`capabilities.Add` CAP_SYS_ADMIN"))
    errs.extend(_validate_app_armor_profile(sc.app_armor_profile, path.child("appArmorProfile")))
    return errs


_RESIZE_RESOURCES = ["cpu", "memory"]
_RESIZE_POLICIES = ["NotRequired", "RestartContainer"]


def _validate_resize_policy(policies: Sequence[Any] | None, path: Path, restart_policy: str) -> ErrorList:
    errs = ErrorList()
    seen: set[str] = set()
    for i, p in enumerate(policies or []):
        if p.resource_name in seen:
            errs.append(fld.duplicate(path.index(i), p.resource_name))
        seen.add(p.resource_name)
        if p.resource_name == "":
            errs.append(fld.required(path, ""))
        elif p.resource_name not in _RESIZE_RESOURCES:
            errs.append(fld.not_supported(path, p.resource_name, _RESIZE_RESOURCES))
        if p.restart_policy == "":
            errs.append(fld.required(path, ""))
        elif p.restart_policy not in _RESIZE_POLICIES:
            errs.append(fld.not_supported(path, p.restart_policy, _RESIZE_POLICIES))
        if restart_policy == "Never" and p.restart_policy != "NotRequired":
            errs.append(fld.invalid(path, p.restart_policy, "must be 'NotRequired' when `restartPolicy` is 'Never'"))
    return errs


def _validate_container_common(ctr: Any, volumes: Mapping[str, Any], claims: set[str], path: Path,
                               opts: PodValidationOptions, restart_policy: str, host_users: bool) -> ErrorList:
    errs = ErrorList()
    np_ = path.child("name")
    if not ctr.name:
        errs.append(fld.required(np_, ""))
    else:
        errs.extend(_dns1123_label(ctr.name, np_))
    if not ctr.image:
        errs.append(fld.required(path.child("image"), ""))
    tmp = ctr.termination_message_policy
    if tmp == "":
        errs.append(fld.required(path.child("terminationMessagePolicy"), ""))
    elif tmp not in ("File", "FallbackToLogsOnError"):
        errs.append(fld.not_supported(path.child("terminationMessagePolicy"), tmp, ["File", "FallbackToLogsOnError"]))
    mounts = {m.name: m.mount_path for m in ctr.volume_mounts or []}
    devices = {d.name: d.device_path for d in ctr.volume_devices or []}
    errs.extend(_validate_container_ports(ctr.ports, path.child("ports")))
    errs.extend(validate_env(ctr.env, path.child("env"), opts))
    errs.extend(_validate_env_from(ctr.env_from, path.child("envFrom"), opts))
    errs.extend(_validate_volume_mounts(ctr.volume_mounts, devices, volumes, ctr, path.child("volumeMounts")))
    errs.extend(_validate_volume_devices(ctr.volume_devices, mounts, volumes, path.child("volumeDevices")))
    pp = path.child("imagePullPolicy")
    if ctr.image_pull_policy == "":
        errs.append(fld.required(pp, ""))
    elif ctr.image_pull_policy not in _PULL_POLICIES:
        errs.append(fld.not_supported(pp, ctr.image_pull_policy, _PULL_POLICIES))
    errs.extend(validate_resource_requirements(ctr.resources, claims, path.child("resources"), opts))
    errs.extend(_validate_resize_policy(ctr.resize_policy, path.child("resizePolicy"), restart_policy))
    errs.extend(_validate_security_context(ctr.security_context, path.child("securityContext"), host_users))
    return errs


def _check_host_port_conflicts(containers: Sequence[Any], path: Path) -> ErrorList:
    errs = ErrorList()
    seen: set[str] = set()
    for ci, ctr in enumerate(containers):
        for pi, port in enumerate(ctr.ports or []):
            if port.host_port == 0:
                continue
            key = f"{port.protocol}/{port.host_ip}/{port.host_port}"
            if key in seen:
                errs.append(fld.duplicate(path.index(ci).child("ports").index(pi).child("hostPort"), key))
            seen.add(key)
    return errs


def _validate_containers(containers: Sequence[Any] | None, volumes: Mapping[str, Any], claims: set[str],
                         grace: int | None, path: Path, opts: PodValidationOptions, restart_policy: str,
                         host_users: bool) -> ErrorList:
    containers = list(containers or [])
    if not containers:
        return ErrorList([fld.required(path, "")])
    errs = ErrorList()
    seen: set[str] = set()
    for i, ctr in enumerate(containers):
        p = path.index(i)
        errs.extend(_validate_container_common(ctr, volumes, claims, p, opts, restart_policy, host_users))
        if ctr.name in seen:
            errs.append(fld.duplicate(p.child("name"), ctr.name))
        seen.add(ctr.name)
        if ctr.lifecycle is not None:
            errs.extend(_validate_lifecycle(ctr.lifecycle, grace, p.child("lifecycle")))
        errs.extend(_validate_liveness_or_startup(ctr.liveness_probe, grace, p.child("livenessProbe")))
        errs.extend(_validate_readiness(ctr.readiness_probe, grace, p.child("readinessProbe")))
        errs.extend(_validate_liveness_or_startup(ctr.startup_probe, grace, p.child("startupProbe")))
        if ctr.restart_policy is not None:
            errs.append(fld.forbidden(p.child("restartPolicy"), "may not be set for non-init containers"))
    errs.extend(_check_host_port_conflicts(containers, path))
    return errs


_INIT_FORBIDDEN = "may not be set for init containers without restartPolicy=Always"


def _validate_init_containers(containers: Sequence[Any] | None, regular: Sequence[Any] | None,
                              volumes: Mapping[str, Any], claims: set[str], grace: int | None, path: Path,
                              opts: PodValidationOptions, restart_policy: str, host_users: bool) -> ErrorList:
    errs = ErrorList()
    seen = {c.name for c in regular or []}
    for i, ctr in enumerate(containers or []):
        p = path.index(i)
        errs.extend(_validate_container_common(ctr, volumes, claims, p, opts, restart_policy, host_users))
        always = False
        if ctr.restart_policy is not None:
            if ctr.restart_policy != "Always":
                errs.append(fld.not_supported(p.child("restartPolicy"), ctr.restart_policy, ["Always"]))
            always = ctr.restart_policy == "Always"
        if ctr.name in seen:
            errs.append(fld.duplicate(p.child("name"), ctr.name))
        elif ctr.name:
            seen.add(ctr.name)
        errs.extend(_check_host_port_conflicts([ctr], path))
        if always:
            if ctr.lifecycle is not None:
                errs.extend(_validate_lifecycle(ctr.lifecycle, grace, p.child("lifecycle")))
            errs.extend(_validate_liveness_or_startup(ctr.liveness_probe, grace, p.child("livenessProbe")))
            errs.extend(_validate_readiness(ctr.readiness_probe, grace, p.child("readinessProbe")))
            errs.extend(_validate_liveness_or_startup(ctr.startup_probe, grace, p.child("startupProbe")))
        else:
            for attr, js in (("lifecycle", "lifecycle"), ("liveness_probe", "livenessProbe"),
                             ("readiness_probe", "readinessProbe"), ("startup_probe", "startupProbe")):
                if getattr(ctr, attr) is not None:
                    errs.append(fld.forbidden(p.child(js), _INIT_FORBIDDEN))
        if ctr.resize_policy:
            errs.append(fld.invalid(p.child("resizePolicy"), ctr.resize_policy, "must not be set for init containers"))
    return errs


# --- affinity, tolerations, topology --------------------------------------------------------

def _validate_node_selector_requirement(rq: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    values = rq.values or []
    if rq.operator in ("In", "NotIn"):
        if not values:
            errs.append(fld.required(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif rq.operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(fld.forbidden(path.child("values"),
                                      "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif rq.operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(fld.required(path.child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(fld.invalid(path.child("operator"), rq.operator, "not a valid selector operator"))
    errs.extend(om.validate_label_name(rq.key, path.child("key")))
    return errs


def _validate_node_field_selector_requirement(rq: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if rq.operator in ("In", "NotIn"):
        if len(rq.values or []) != 1:
            errs.append(fld.required(path.child("values"),
                                     "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
    else:
        errs.append(fld.invalid(path.child("operator"), rq.operator, "not a valid selector operator"))
    if rq.key != "metadata.name":
        errs.append(fld.invalid(path.child("key"), rq.key, "not a valid field selector key"))
    else:
        for i, v in enumerate(rq.values or []):
            errs.extend(fld.invalid(path.child("values").index(i), v, m) for m in names.name_is_dns_subdomain(v, False))
    return errs


def _validate_node_selector_term(term: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    for j, rq in enumerate(term.match_expressions or []):
        errs.extend(_validate_node_selector_requirement(rq, path.child("matchExpressions").index(j)))
    for j, rq in enumerate(term.match_fields or []):
        errs.extend(_validate_node_field_selector_requirement(rq, path.child("matchFields").index(j)))
    return errs


def validate_node_selector(ns: Any, path: Path) -> ErrorList:
    """Go: ``ValidateNodeSelector``."""
    tp = path.child("nodeSelectorTerms")
    terms = ns.node_selector_terms or []
    if not terms:
        return ErrorList([fld.required(tp, "must have at least one node selector term")])
    errs = ErrorList()
    for i, term in enumerate(terms):
        errs.extend(_validate_node_selector_term(term, tp.index(i)))
    return errs


def _validate_label_keys(path: Path, keys: Sequence[str] | None, selector: Any) -> ErrorList:
    if not keys:
        return ErrorList()
    if selector is None:
        return ErrorList([fld.forbidden(path, "must not be specified when labelSelector is not set")])
    errs = ErrorList()
    for i, k in enumerate(keys):
        errs.extend(om.validate_label_name(k, path.index(i)))
    return errs


def _validate_pod_affinity_term(term: Any, allow_invalid: bool, path: Path) -> ErrorList:
    errs = om.validate_label_selector(term.label_selector, path.child("labelSelector"),
                                      allow_invalid_label_value=allow_invalid)
    errs.extend(om.validate_label_selector(term.namespace_selector, path.child("namespaceSelector"),
                                           allow_invalid_label_value=allow_invalid))
    for name in term.namespaces or []:
        errs.extend(fld.invalid(path.child("namespace"), name, m) for m in names.validate_namespace_name(name, False))
    match_keys = list(term.match_label_keys or [])
    mismatch = list(term.mismatch_label_keys or [])
    errs.extend(_validate_label_keys(path.child("matchLabelKeys"), match_keys, term.label_selector))
    errs.extend(_validate_label_keys(path.child("mismatchLabelKeys"), mismatch, term.label_selector))
    if term.label_selector is not None:
        idx = {k: i for i, k in enumerate(match_keys)}
        sel_keys = set(term.label_selector.match_labels or {})
        for expr in term.label_selector.match_expressions or []:
            if expr.key in idx and expr.key in sel_keys:
                errs.append(fld.invalid(path.index(idx[expr.key]), expr.key, "exists in both matchLabelKeys and labelSelector"))
            sel_keys.add(expr.key)
    mm = set(mismatch)
    for i, k in enumerate(match_keys):
        if k in mm:
            errs.append(fld.invalid(path.child("matchLabelKeys").index(i), k,
                                    "exists in both matchLabelKeys and mismatchLabelKeys"))
    if not term.topology_key:
        errs.append(fld.required(path.child("topologyKey"), "can not be empty"))
    errs.extend(om.validate_label_name(term.topology_key, path.child("topologyKey")))
    return errs


def _validate_pod_affinity(pa: Any, allow_invalid: bool, path: Path) -> ErrorList:
    errs = ErrorList()
    rp = path.child("requiredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(pa.required_during_scheduling_ignored_during_execution or []):
        errs.extend(_validate_pod_affinity_term(term, allow_invalid, rp.index(i)))
    pp = path.child("preferredDuringSchedulingIgnoredDuringExecution")
    for j, wt in enumerate(pa.preferred_during_scheduling_ignored_during_execution or []):
        if wt.weight <= 0 or wt.weight > 100:
            errs.append(fld.invalid(pp.index(j).child("weight"), wt.weight, "must be in the range 1-100"))
        errs.extend(_validate_pod_affinity_term(wt.pod_affinity_term, allow_invalid, pp.index(j).child("podAffinityTerm")))
    return errs


def _validate_affinity(aff: Any, opts: PodValidationOptions, path: Path) -> ErrorList:
    errs = ErrorList()
    if aff is None:
        return errs
    na = aff.node_affinity
    if na is not None:
        nap = path.child("nodeAffinity")
        if na.required_during_scheduling_ignored_during_execution is not None:
            errs.extend(validate_node_selector(na.required_during_scheduling_ignored_during_execution,
                                               nap.child("requiredDuringSchedulingIgnoredDuringExecution")))
        pp = nap.child("preferredDuringSchedulingIgnoredDuringExecution")
        for i, term in enumerate(na.preferred_during_scheduling_ignored_during_execution or []):
            if term.weight <= 0 or term.weight > 100:
                errs.append(fld.invalid(pp.index(i).child("weight"), term.weight, "must be in the range 1-100"))
            errs.extend(_validate_node_selector_term(term.preference, pp.index(i).child("preference")))
    if aff.pod_affinity is not None:
        errs.extend(_validate_pod_affinity(aff.pod_affinity, opts.allow_invalid_label_value_in_selector,
                                           path.child("podAffinity")))
    if aff.pod_anti_affinity is not None:
        errs.extend(_validate_pod_affinity(aff.pod_anti_affinity, opts.allow_invalid_label_value_in_selector,
                                           path.child("podAntiAffinity")))
    return errs


_TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]


def validate_tolerations(tolerations: Sequence[Any] | None, path: Path) -> ErrorList:
    """Go: ``ValidateTolerations``."""
    errs = ErrorList()
    for i, t in enumerate(tolerations or []):
        ip = path.index(i)
        if t.key:
            errs.extend(om.validate_label_name(t.key, ip.child("key")))
        if not t.key and t.operator != "Exists":
            errs.append(fld.invalid(ip.child("operator"), t.operator,
                                    'operator must be Exists when `key` is empty, which means "match all values and all keys"'))
        if t.toleration_seconds is not None and t.effect != "NoExecute":
            errs.append(fld.invalid(ip.child("effect"), t.effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if t.operator in ("Equal", ""):
            msgs = names.is_valid_label_value(t.value)
            if msgs:
                errs.append(fld.invalid(ip.child("operator"), t.value, ";".join(msgs)))
        elif t.operator == "Exists":
            if t.value:
                errs.append(fld.invalid(ip.child("operator"), t, "value must be empty when `operator` is 'Exists'"))
        else:
            errs.append(fld.not_supported(ip.child("operator"), t.operator, ["Equal", "Exists"]))
        if t.effect and t.effect not in _TAINT_EFFECTS:
            errs.append(fld.not_supported(ip.child("effect"), t.effect, _TAINT_EFFECTS))
    return errs


def _validate_topology_spread(constraints: Sequence[Any] | None, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    constraints = list(constraints or [])
    for i, c in enumerate(constraints):
        p = path.index(i)
        if c.max_skew <= 0:
            errs.append(fld.invalid(p.child("maxSkew"), c.max_skew, _IS_NOT_POSITIVE))
        if not c.topology_key:
            errs.append(fld.required(p.child("topologyKey"), "can not be empty"))
        if c.when_unsatisfiable not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(fld.not_supported(p.child("whenUnsatisfiable"), c.when_unsatisfiable,
                                          ["DoNotSchedule", "ScheduleAnyway"]))
        for rest in constraints[i + 1:]:
            if rest.topology_key == c.topology_key and rest.when_unsatisfiable == c.when_unsatisfiable:
                errs.append(fld.duplicate(p.child("{topologyKey, whenUnsatisfiable}"),
                                          f"{{{c.topology_key}, {c.when_unsatisfiable}}}"))
                break
        if c.min_domains is not None:
            if c.min_domains <= 0:
                errs.append(fld.invalid(p.child("minDomains"), c.min_domains, _IS_NOT_POSITIVE))
            if c.when_unsatisfiable != "DoNotSchedule":
                errs.append(fld.invalid(p.child("minDomains"), c.min_domains,
                                        f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not "
                                        f"{c.when_unsatisfiable}"))
        for attr, js in (("node_affinity_policy", "nodeAffinityPolicy"), ("node_taints_policy", "nodeTaintsPolicy")):
            v = getattr(c, attr)
            if v is not None and v not in ("Honor", "Ignore"):
                errs.append(fld.not_supported(p.child(js), v, ["Honor", "Ignore"]))
        keys = list(c.match_label_keys or [])
        if keys:
            kp = p.child("matchLabelKeys")
            sel_keys: set[str] = set()
            if c.label_selector is not None:
                sel_keys = set(c.label_selector.match_labels or {}) | {e.key for e in c.label_selector.match_expressions or []}
            else:
                errs.append(fld.forbidden(kp, "must not be specified when labelSelector is not set"))
            for j, k in enumerate(keys):
                errs.extend(om.validate_label_name(k, kp.index(j)))
                if k in sel_keys:
                    errs.append(fld.invalid(kp.index(j), k, "exists in both matchLabelKeys and labelSelector"))
        if not opts.allow_invalid_topology_spread_constraint_label_selector:
            errs.extend(om.validate_label_selector(c.label_selector, p.child("labelSelector")))
    return errs


# --- pod spec ---------------------------------------------------------------------------------

_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL_FMT = "(" + _SYSCTL_SEGMENT + "[\\./])*" + _SYSCTL_SEGMENT
_sysctl_re = re.compile(_SYSCTL_FMT)


def _validate_pod_security_context(psc: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    if psc is None:
        return errs
    if psc.fs_group is not None:
        errs.extend(fld.invalid(path.child("fsGroup"), psc.fs_group, m) for m in names.is_valid_group_id(psc.fs_group))
    if psc.run_as_user is not None:
        errs.extend(fld.invalid(path.child("runAsUser"), psc.run_as_user, m) for m in names.is_valid_user_id(psc.run_as_user))
    if psc.run_as_group is not None:
        errs.extend(fld.invalid(path.child("runAsGroup"), psc.run_as_group, m)
                    for m in names.is_valid_group_id(psc.run_as_group))
    for g, gid in enumerate(psc.supplemental_groups or []):
        errs.extend(fld.invalid(path.child("supplementalGroups").index(g), gid, m) for m in names.is_valid_group_id(gid))
    seen: set[str] = set()
    for i, s in enumerate(psc.sysctls or []):
        np_ = path.child("sysctls").index(i).child("name")
        if not s.name:
            errs.append(fld.required(np_, ""))
        elif names.go_len(s.name) > 253 or not _sysctl_re.fullmatch(s.name):
            errs.append(fld.invalid(np_, s.name, f"must have at most 253 characters and match regex ^{_SYSCTL_FMT}$"))
        elif s.name in seen:
            errs.append(fld.duplicate(np_, s.name))
        seen.add(s.name)
    if psc.fs_group_change_policy is not None and psc.fs_group_change_policy not in ("Always", "OnRootMismatch"):
        errs.append(fld.not_supported(path.child("fsGroupChangePolicy"), psc.fs_group_change_policy,
                                      ["Always", "OnRootMismatch"]))
    errs.extend(_validate_seccomp_profile(psc.seccomp_profile, path.child("seccompProfile")))
    errs.extend(_validate_app_armor_profile(psc.app_armor_profile, path.child("appArmorProfile")))
    if psc.supplemental_groups_policy is not None and psc.supplemental_groups_policy not in ("Merge", "Strict"):
        errs.append(fld.not_supported(path.child("supplementalGroupsPolicy"), psc.supplemental_groups_policy,
                                      ["Merge", "Strict"]))
    return errs


_DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]
_RESTART_POLICIES = ["Always", "OnFailure", "Never"]


def _validate_dns_config(cfg: Any, policy: str, path: Path) -> ErrorList:
    errs = ErrorList()
    if policy == "None":
        if cfg is None:
            return ErrorList([fld.required(path, "must provide `dnsConfig` when `dnsPolicy` is None")])
        if not cfg.nameservers:
            return ErrorList([fld.required(path.child("nameservers"),
                                           "must provide at least one DNS nameserver when `dnsPolicy` is None")])
    if cfg is None:
        return errs
    ns = list(cfg.nameservers or [])
    if len(ns) > 3:
        errs.append(fld.invalid(path.child("nameservers"), ns, "must not have more than 3 nameservers"))
    for i, n in enumerate(ns):
        errs.extend(names.is_valid_ip(path.child("nameservers").index(i), n))
    searches = list(cfg.searches or [])
    if len(searches) > 32:
        errs.append(fld.invalid(path.child("searches"), searches, "must not have more than 32 search paths"))
    if names.go_len(" ".join(searches)) > 2048:
        errs.append(fld.invalid(path.child("searches"), searches,
                                "must not have more than 2048 characters (including spaces) in the search list"))
    for i, s in enumerate(searches):
        errs.extend(_dns1123_subdomain(s[:-1] if s.endswith(".") else s, path.child("searches").index(i)))
    for i, o in enumerate(cfg.options or []):
        if not o.name:
            errs.append(fld.required(path.child("options").index(i), "must not be empty"))
    return errs


def validate_pod_spec(spec: Any, pod_meta: Any, path: Path, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidatePodSpec``."""
    opts = opts or PodValidationOptions()
    errs = ErrorList()
    if spec.termination_grace_period_seconds is None:
        errs.append(fld.required(path.child("terminationGracePeriodSeconds"), ""))
    grace = spec.termination_grace_period_seconds
    psc = spec.security_context
    host_users = psc is None or psc.host_users is None or bool(psc.host_users)
    vols, verrs = validate_volumes(spec.volumes, pod_meta, path.child("volumes"), opts)
    errs.extend(verrs)
    claims = {c.name for c in spec.resource_claims or [] if c.name}
    errs.extend(_validate_pod_resource_claims(spec.resource_claims, path.child("resourceClaims")))
    errs.extend(_validate_containers(spec.containers, vols, claims, grace, path.child("containers"), opts,
                                     spec.restart_policy, host_users))
    errs.extend(_validate_init_containers(spec.init_containers, spec.containers, vols, claims, grace,
                                          path.child("initContainers"), opts, spec.restart_policy, host_users))
    errs.extend(_validate_ephemeral_containers(spec, vols, claims, path.child("ephemeralContainers"), opts, host_users))
    if psc is not None and psc.host_network:
        cp = path.child("containers")
        for i, ctr in enumerate(spec.containers or []):
            for j, port in enumerate(ctr.ports or []):
                if (opts.resource_is_pod or port.host_port != 0) and port.host_port != port.container_port:
                    errs.append(fld.invalid(cp.index(i).child("ports").index(j).child("hostPort"), port.host_port,
                                            "must match `containerPort` when `hostNetwork` is true"))
    rp = path.child("restartPolicy")
    if spec.restart_policy == "":
        errs.append(fld.required(rp, ""))
    elif spec.restart_policy not in _RESTART_POLICIES:
        errs.append(fld.not_supported(rp, spec.restart_policy, _RESTART_POLICIES))
    dp = path.child("dnsPolicy")
    if spec.dns_policy == "":
        errs.append(fld.required(dp, ""))
    elif spec.dns_policy not in _DNS_POLICIES:
        errs.append(fld.not_supported(dp, spec.dns_policy, _DNS_POLICIES))
    errs.extend(om.validate_labels(spec.node_selector, path.child("nodeSelector")))
    errs.extend(_validate_pod_security_context(psc, path.child("securityContext"), opts))
    for i, ref in enumerate(spec.image_pull_secrets or []):
        if ref != type(ref)(name=ref.name):
            errs.append(fld.invalid(path.child("imagePullSecrets").index(i), ref, "only name may be set"))
    errs.extend(_validate_affinity(spec.affinity, opts, path.child("affinity")))
    errs.extend(_validate_dns_config(spec.dns_config, spec.dns_policy, path.child("dnsConfig")))
    for i, g in enumerate(spec.readiness_gates or []):
        errs.extend(_qualified_name(g.condition_type, path.child("readinessGates").index(i).child("conditionType")))
    seen_gates: set[str] = set()
    for i, g in enumerate(spec.scheduling_gates or []):
        errs.extend(_qualified_name(g.name, path.child("schedulingGates").index(i)))
        if g.name in seen_gates:
            errs.append(fld.duplicate(path.child("schedulingGates").index(i), g.name))
        seen_gates.add(g.name)
    errs.extend(_validate_topology_spread(spec.topology_spread_constraints, path.child("topologySpreadConstraints"), opts))
    if psc is not None and psc.host_users is not None and not psc.host_users:
        for flag, js in ((psc.host_network, "hostNetwork"), (psc.host_pid, "HostPID"), (psc.host_ipc, "HostIPC")):
            if flag:
                errs.append(fld.forbidden(path.child(js), "when `pod.Spec.HostUsers` is false"))
    if spec.service_account_name:
        errs.extend(fld.invalid(path.child("serviceAccountName"), spec.service_account_name, m)
                    for m in names.validate_service_account_name(spec.service_account_name, False))
    if spec.node_name:
        errs.extend(fld.invalid(path.child("nodeName"), spec.node_name, m)
                    for m in names.name_is_dns_subdomain(spec.node_name, False))
    ads = spec.active_deadline_seconds
    if ads is not None and (ads < 1 or ads > _MAX_INT32):
        errs.append(fld.invalid(path.child("activeDeadlineSeconds"), ads, names.inclusive_range_error(1, _MAX_INT32)))
    if spec.hostname:
        errs.extend(_dns1123_label(spec.hostname, path.child("hostname")))
    if spec.subdomain:
        errs.extend(_dns1123_label(spec.subdomain, path.child("subdomain")))
    if spec.tolerations:
        errs.extend(validate_tolerations(spec.tolerations, path.child("tolerations")))
    for i, ha in enumerate(spec.host_aliases or []):
        hp = path.child("hostAliases").index(i)
        errs.extend(names.is_valid_ip(hp.child("ip"), ha.ip))
        for j, hn in enumerate(ha.hostnames or []):
            errs.extend(_dns1123_subdomain(hn, hp.child("hostnames").index(j)))
    if spec.priority_class_name:
        errs.extend(fld.invalid(path.child("priorityClassName"), spec.priority_class_name, m)
                    for m in names.name_is_dns_subdomain(spec.priority_class_name, False))
    if spec.runtime_class_name is not None:
        errs.extend(fld.invalid(path.child("runtimeClassName"), spec.runtime_class_name, m)
                    for m in names.name_is_dns_subdomain(spec.runtime_class_name, False))
    if spec.preemption_policy is not None:
        pp = path.child("preemptionPolicy")
        if spec.preemption_policy == "":
            errs.append(fld.required(pp, ""))
        elif spec.preemption_policy not in ("PreemptLowerPriority", "Never"):
            errs.append(fld.not_supported(pp, spec.preemption_policy, ["PreemptLowerPriority", "Never"]))
    if spec.overhead is not None:
        from kcodec.api.core import internal

        errs.extend(validate_resource_requirements(internal.ResourceRequirements(limits=spec.overhead), set(),
                                                   path.child("overhead"), opts))
    if spec.os is not None:
        op = path.child("os")
        if not spec.os.name:
            errs.append(fld.required(op.child("name"), "cannot be empty"))
        elif spec.os.name not in ("linux", "windows"):
            errs.append(fld.not_supported(op, spec.os.name, ["linux", "windows"]))
    return errs


def _validate_pod_resource_claims(claims: Sequence[Any] | None, path: Path) -> ErrorList:
    errs = ErrorList()
    seen: set[str] = set()
    for i, c in enumerate(claims or []):
        p = path.index(i)
        if not c.name:
            errs.append(fld.required(p.child("name"), ""))
        elif c.name in seen:
            errs.append(fld.duplicate(p.child("name"), c.name))
        else:
            errs.extend(_dns1123_label(c.name, p.child("name")))
            seen.add(c.name)
        a, b = c.resource_claim_name, c.resource_claim_template_name
        if a is not None and b is not None:
            errs.append(fld.invalid(p, c, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
        if a is None and b is None:
            errs.append(fld.invalid(p, c, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
        if a is not None:
            errs.extend(fld.invalid(p.child("resourceClaimName"), a, m) for m in names.name_is_dns_subdomain(a, False))
        if b is not None:
            errs.extend(fld.invalid(p.child("resourceClaimTemplateName"), b, m)
                        for m in names.name_is_dns_subdomain(b, False))
    return errs


def _validate_ephemeral_containers(spec: Any, vols: Mapping[str, Any], claims: set[str], path: Path,
                                   opts: PodValidationOptions, host_users: bool) -> ErrorList:
    errs = ErrorList()
    ecs = list(spec.ephemeral_containers or [])
    if not ecs:
        return errs
    others = {c.name for c in (spec.containers or []) + (spec.init_containers or [])}
    all_names = set(others)
    for i, outer in enumerate(ecs):
        p = path.index(i)
        ec = outer.ephemeral_container_common
        errs.extend(_validate_container_common(ec, vols, claims, p, opts, spec.restart_policy, host_users))
        if ec.image != ec.image.strip():
            errs.append(fld.invalid(p.child("image"), ec.image, "must not have leading or trailing whitespace"))
        if ec.name in all_names:
            errs.append(fld.duplicate(p.child("name"), ec.name))
        else:
            all_names.add(ec.name)
        target = outer.target_container_name
        if target and target not in others:
            errs.append(fld.not_found(p.child("targetContainerName"), target))
        for attr, js in (("ports", "ports"), ("resources", "resources"), ("liveness_probe", "livenessProbe"),
                         ("readiness_probe", "readinessProbe"), ("startup_probe", "startupProbe"),
                         ("lifecycle", "lifecycle"), ("resize_policy", "resizePolicy"),
                         ("restart_policy", "restartPolicy")):
            v = getattr(ec, attr, None)
            # Go compares each field with its zero value (validateFieldAllowList).
            is_set = v is not None and (v != type(v)() if hasattr(v, "deep_copy") else bool(v))
            if is_set:
                errs.append(fld.forbidden(p.child(js), "cannot be set for an Ephemeral Container"))
        for j, vm in enumerate(ec.volume_mounts or []):
            if vm.sub_path:
                errs.append(fld.forbidden(p.child("volumeMounts").index(j).child("subPath"),
                                          "cannot be set for an Ephemeral Container"))
            if vm.sub_path_expr:
                errs.append(fld.forbidden(p.child("volumeMounts").index(j).child("subPathExpr"),
                                          "cannot be set for an Ephemeral Container"))
    return errs


# --- pod-specific annotations -------------------------------------------------------------------

_MIRROR = "kubernetes.io/config.mirror"
_APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
_SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"


def _all_container_names(spec: Any) -> set[str]:
    names_ = {c.name for c in (spec.containers or []) + (spec.init_containers or [])}
    names_.update(e.ephemeral_container_common.name for e in spec.ephemeral_containers or [])
    return names_


def _validate_seccomp_annotation(p: str, path: Path) -> ErrorList:
    if p in ("runtime/default", "docker/default", "unconfined"):
        return ErrorList()
    if p.startswith("localhost/"):
        return _validate_local_descending_path(p[len("localhost/"):], path)
    return ErrorList([fld.invalid(path, p, "must be a valid seccomp profile")])


def validate_pod_specific_annotations(annotations: Mapping[str, str] | None, spec: Any, path: Path,
                                      opts: PodValidationOptions) -> ErrorList:
    """Go: ``ValidatePodSpecificAnnotations``."""
    errs = ErrorList()
    annotations = annotations or {}
    if _MIRROR in annotations and not spec.node_name:
        errs.append(fld.invalid(path.key(_MIRROR), annotations[_MIRROR], "must set spec.nodeName if mirror pod annotation is set"))
    if not opts.allow_invalid_pod_deletion_cost and _DELETION_COST in annotations:
        v = annotations[_DELETION_COST]
        # helper.GetDeletionCostFromPodAnnotations: no "+" and no leading zeros, then an int32.
        first_ok = bool(v) and (v[0] == "-" or v == "0" or "1" <= v[0] <= "9")
        ok = first_ok and re.fullmatch(r"[+-]?[0-9]+", v) is not None and -(1 << 31) <= int(v) < (1 << 31)
        if not ok:
            errs.append(fld.invalid(path.key(_DELETION_COST), v, "must be a 32bit integer"))
    if _SECCOMP_POD in annotations:
        errs.extend(_validate_seccomp_annotation(annotations[_SECCOMP_POD], path.child(_SECCOMP_POD)))
    for k in _sorted(annotations):
        if k.startswith(_SECCOMP_CONTAINER_PREFIX):
            errs.extend(_validate_seccomp_annotation(annotations[k], path.child(k)))
    containers = _all_container_names(spec)
    for k in _sorted(annotations):
        if not k.startswith(_APPARMOR_PREFIX):
            continue
        name = k[len(_APPARMOR_PREFIX):]
        if name not in containers:
            errs.append(fld.invalid(path.key(k), name, "container not found"))
        p = annotations[k]
        if p not in ("", "runtime/default", "unconfined") and not p.startswith("localhost/"):
            errs.append(fld.invalid(path.key(k), p, f"invalid AppArmor profile name: {quote(p)}"))
    return errs


# --- pods -------------------------------------------------------------------------------------

def _validate_pod_metadata_and_spec(pod: Any, opts: PodValidationOptions) -> ErrorList:
    mp = Path("metadata")
    sp = Path("spec")
    errs = validate_object_meta(pod.metadata, True, names.name_is_dns_subdomain, mp)
    errs.extend(validate_pod_specific_annotations(pod.metadata.annotations, pod.spec, mp.child("annotations"), opts))
    errs.extend(validate_pod_spec(pod.spec, pod.metadata, sp, opts))
    if not pod.spec.service_account_name:
        for vi, vol in enumerate(pod.spec.volumes or []):
            proj = vol.volume_source.projected
            if proj is None:
                continue
            for si, src in enumerate(proj.sources or []):
                if src.service_account_token is not None:
                    errs.append(fld.forbidden(sp.child("volumes").index(vi).child("projected").child("sources").index(si)
                                              .child("serviceAccountToken"),
                                              "must not be specified when serviceAccountName is not set"))
    for attr, js in (("containers", "containers"), ("init_containers", "initContainers")):
        for i, ctr in enumerate(getattr(pod.spec, attr) or []):
            if ctr.image != ctr.image.strip():
                errs.append(fld.invalid(sp.child(js).index(i).child("image"), ctr.image,
                                        "must not have leading or trailing whitespace"))
    return errs


def _pod_options(opts: PodValidationOptions | None) -> PodValidationOptions:
    import dataclasses

    return dataclasses.replace(opts or PodValidationOptions(), resource_is_pod=True)


def validate_pod(pod: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidatePodCreate``."""
    opts = _pod_options(opts)
    errs = _validate_pod_metadata_and_spec(pod, opts)
    sp = Path("spec")
    if pod.spec.ephemeral_containers:
        errs.append(fld.forbidden(sp.child("ephemeralContainers"), "cannot be set on create"))
    if pod.spec.node_name and pod.spec.scheduling_gates:
        errs.append(fld.forbidden(sp.child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
    return errs


_UPDATABLE_POD_FIELDS = [
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
    "`spec.containers[*].resources` (for CPU/memory only)",
]


def _qos(pod: Any) -> str:
    # Go: qos.ComputePodQOS over the containers' cpu and memory requests and limits.
    requests: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    guaranteed = True
    ctrs = list(pod.spec.containers or []) + list(pod.spec.init_containers or [])
    for c in ctrs:
        r = c.resources
        req = {k: v for k, v in ((r.requests or {}) if r else {}).items() if k in ("cpu", "memory") and not v.is_zero()}
        lim = {k: v for k, v in ((r.limits or {}) if r else {}).items() if k in ("cpu", "memory") and not v.is_zero()}
        requests.update(req)
        limits.update(lim)
        if set(lim) != {"cpu", "memory"}:
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed:
        for c in ctrs:
            r = c.resources
            for k in ("cpu", "memory"):
                rq = (r.requests or {}).get(k) if r else None
                lq = (r.limits or {}).get(k) if r else None
                if rq is not None and lq is not None and rq.cmp(lq) != 0:
                    guaranteed = False
    return "Guaranteed" if guaranteed else "Burstable"


def _changed_fields(new: Any, old: Any) -> list[str]:
    from kcodec.fieldtable import fields_of

    return [f.json for f in fields_of(type(new)) if getattr(new, f.name) != getattr(old, f.name)]


def validate_pod_update(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidatePodUpdate``: only images, activeDeadlineSeconds, added tolerations,
    removed scheduling gates, a negative grace period set to 1 and cpu/memory resources may
    change."""
    opts = _pod_options(opts)
    mp = Path("metadata")
    sp = Path("spec")
    errs = validate_object_meta_update(new.metadata, old.metadata, mp)
    errs.extend(_validate_pod_metadata_and_spec(new, opts))
    errs.extend(_validate_pod_annotation_updates(new, old, mp.child("annotations"), opts))
    for attr, js in (("containers", "containers"), ("init_containers", "initContainers")):
        nc, oc = list(getattr(new.spec, attr) or []), list(getattr(old.spec, attr) or [])
        if len(nc) != len(oc):
            errs.append(fld.forbidden(sp.child(js), "pod updates may not add or remove containers"))
            return errs
        for i, c in enumerate(nc):
            if not c.image:
                errs.append(fld.required(sp.child(js).index(i).child("image"), ""))
            if c.image.strip() != c.image:
                errs.append(fld.invalid(sp.child(js).index(i).child("image"), c.image,
                                        "must not have leading or trailing whitespace"))
    nads, oads = new.spec.active_deadline_seconds, old.spec.active_deadline_seconds
    ap = sp.child("activeDeadlineSeconds")
    if nads is not None:
        if nads < 0 or nads > _MAX_INT32:
            errs.append(fld.invalid(ap, nads, names.inclusive_range_error(0, _MAX_INT32)))
            return errs
        if oads is not None and oads < nads:
            errs.append(fld.invalid(ap, nads, "must be less than or equal to previous value"))
            return errs
    elif oads is not None:
        errs.append(fld.invalid(ap, nads, "must not update from a positive integer to nil value"))
    errs.extend(_validate_only_added_tolerations(new.spec.tolerations, old.spec.tolerations, sp.child("tolerations")))
    old_gates = {g.name for g in old.spec.scheduling_gates or []}
    added = {g.name: i for i, g in enumerate(new.spec.scheduling_gates or []) if g.name not in old_gates}
    for gate, i in sorted(added.items(), key=lambda kv: kv[1]):
        errs.append(fld.forbidden(sp.child("schedulingGates").index(i).child("name"),
                                  f"only deletion is allowed, but found new scheduling gate '{gate}'"))
    if new.spec == old.spec:
        return errs
    old_qos = old.status.qos_class if old.status is not None and old.status.qos_class else _qos(old)
    if old_qos != _qos(new):
        errs.append(fld.invalid(mp, new.status.qos_class if new.status is not None else "", "Pod QoS is immutable"))
    munged = new.spec.deep_copy()
    for mc, oc in zip(munged.containers or [], old.spec.containers or []):
        mc.image = oc.image
        mc.resources = _munge_cpu_mem(mc.resources, oc.resources)
    for mc, oc in zip(munged.init_containers or [], old.spec.init_containers or []):
        mc.image = oc.image
    munged.active_deadline_seconds = old.spec.active_deadline_seconds
    munged.scheduling_gates = old.spec.scheduling_gates
    munged.tolerations = old.spec.tolerations
    og = old.spec.termination_grace_period_seconds
    if og is not None and og < 0 and munged.termination_grace_period_seconds == 1:
        munged.termination_grace_period_seconds = og
    if old.spec.scheduling_gates:
        if munged.node_selector != old.spec.node_selector:
            for k, v in (old.spec.node_selector or {}).items():
                if (munged.node_selector or {}).get(k) != v:
                    errs.append(fld.invalid(sp.child("nodeSelector"), munged.node_selector,
                                            "only additions to spec.nodeSelector are allowed (no mutations or deletions)"))
                    break
            munged.node_selector = old.spec.node_selector
    if munged != old.spec:
        diff = ", ".join(_changed_fields(munged, old.spec))
        errs.append(fld.forbidden(sp, "pod updates may not change fields other than "
                                      f"{','.join(_UPDATABLE_POD_FIELDS)}\nchanged: {diff}"))
    return errs


def _munge_cpu_mem(new: Any, old: Any) -> Any:
    from kcodec.api.core import internal

    if new is None and old is None:
        return None

    def munge(rl: Mapping[str, Quantity] | None, orl: Mapping[str, Quantity] | None) -> dict[str, Quantity] | None:
        if orl is None:
            return None
        out = {k: v for k, v in (rl or {}).items() if k not in ("cpu", "memory")}
        for k in ("cpu", "memory"):
            if k in orl:
                out[k] = orl[k]
        return out

    lim = munge(new.limits if new else None, old.limits if old else None)
    req = munge(new.requests if new else None, old.requests if old else None)
    claims = new.claims if new is not None else None
    return internal.ResourceRequirements(limits=lim, requests=req, claims=claims)


def _validate_only_added_tolerations(new: Sequence[Any] | None, old: Sequence[Any] | None, path: Path) -> ErrorList:
    for o in old or []:
        found = False
        for n in new or []:
            clone = o.deep_copy()
            clone.toleration_seconds = n.toleration_seconds
            if clone == n:
                found = True
                break
        if not found:
            return ErrorList([fld.forbidden(path, "existing toleration can not be modified except its tolerationSeconds")])
    return validate_tolerations(new, path)


def _validate_pod_annotation_updates(new: Any, old: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    na = new.metadata.annotations or {}
    oa = old.metadata.annotations or {}
    for k in _sorted(oa):
        if k in na and na[k] == oa[k]:
            continue
        if k.startswith(_APPARMOR_PREFIX):
            errs.append(fld.forbidden(path.key(k), "may not remove or update AppArmor annotations"))
        if k == _MIRROR:
            errs.append(fld.forbidden(path.key(k), "may not remove or update mirror pod annotation"))
    for k in _sorted(na):
        if k in oa:
            continue
        if k.startswith(_APPARMOR_PREFIX):
            errs.append(fld.forbidden(path.key(k), "may not add AppArmor annotations"))
        if k == _MIRROR:
            errs.append(fld.forbidden(path.key(k), "may not add mirror pod annotation"))
    errs.extend(validate_pod_specific_annotations(na, new.spec, path, opts))
    return errs


_SYSTEM_POD_CONDITIONS = frozenset({"PodScheduled", "Ready", "Initialized"})


def validate_pod_status_update(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidatePodStatusUpdate`` (the parts that do not need a node's view)."""
    opts = _pod_options(opts)
    mp = Path("metadata")
    errs = validate_object_meta_update(new.metadata, old.metadata, mp)
    errs.extend(_validate_pod_annotation_updates(new, old, mp.child("annotations"), opts))
    for i, c in enumerate(new.status.conditions or []):
        if c.type not in _SYSTEM_POD_CONDITIONS:
            errs.extend(_qualified_name(c.type, mp.child("conditions").index(i).child("Type")))
    sp = Path("status")
    if new.spec.node_name != old.spec.node_name:
        errs.append(fld.forbidden(sp.child("nodeName"), "may not be changed directly"))
    nn = new.status.nominated_node_name
    if nn != old.status.nominated_node_name and nn:
        errs.extend(fld.invalid(sp.child("nominatedNodeName"), nn, m) for m in names.name_is_dns_subdomain(nn, False))
    errs.extend(_container_state_transitions(new.status.container_statuses, old.status.container_statuses,
                                             sp.child("containerStatuses"), old.spec.restart_policy, old.spec))
    errs.extend(_container_state_transitions(new.status.init_container_statuses, old.status.init_container_statuses,
                                             sp.child("initContainerStatuses"), old.spec.restart_policy, old.spec,
                                             init=True))
    errs.extend(_container_state_transitions(new.status.ephemeral_container_statuses,
                                             old.status.ephemeral_container_statuses,
                                             sp.child("ephemeralContainerStatuses"), "Never", old.spec))
    errs.extend(_validate_status_ips(new.status.pod_ips, sp.child("podIPs")))
    host_ips = list(new.status.host_ips or [])
    if host_ips:
        hp = sp.child("hostIPs")
        # kcodec's internal PodStatus keeps hostIP only as hostIPs[0] (the v1 conversion
        # derives one from the other), so the check applies when a model carries both.
        if getattr(new.status, "host_ip", host_ips[0].ip) != host_ips[0].ip:
            errs.append(fld.invalid(hp.index(0).child("ip"), host_ips[0].ip, "must be equal to `hostIP`"))
        errs.extend(_validate_status_ips(host_ips, hp, duplicates_first=True))
    return errs


def _container_state_transitions(new: Any, old: Any, path: Path, restart_policy: str, spec: Any,
                                 init: bool = False) -> ErrorList:
    # Go: ValidateContainerStateTransition / ValidateInitContainerStateTransition.
    errs = ErrorList()
    if restart_policy == "Always":
        return errs
    restartable = {c.name for c in spec.init_containers or [] if c.restart_policy == "Always"} if init else set()
    for i, o in enumerate(old or []):
        term = o.state.terminated if o.state is not None else None
        if term is None:
            continue
        if term.exit_code != 0 and restart_policy == "OnFailure":
            continue
        if o.name in restartable:
            continue
        for n in new or []:
            if n.name == o.name and (n.state is None or n.state.terminated is None):
                errs.append(fld.forbidden(path.index(i).child("state"), "may not be transitioned to non-terminated state"))
    return errs


def _validate_status_ips(ips: Any, path: Path, duplicates_first: bool = False) -> ErrorList:
    # Go: validatePodIPs (valid IPs, one per family, no duplicates) and validateHostIPs
    # (the same, duplicates reported before the family check).
    ips = list(ips or [])
    errs = ErrorList()
    for i, ip in enumerate(ips):
        errs.extend(names.is_valid_ip(path.index(i), ip.ip))
    if len(ips) < 2:
        return errs
    dups = ErrorList()
    seen: set[str] = set()
    for i, ip in enumerate(ips):
        if ip.ip in seen:
            dups.append(fld.duplicate(path.index(i), ip))
        seen.add(ip.ip)
    addrs = [names.parse_ip_sloppy(ip.ip) for ip in ips]
    dual = len(ips) == 2 and None not in addrs and addrs[0].version != addrs[1].version  # type: ignore[union-attr]
    family = ErrorList() if dual else ErrorList([fld.invalid(path, ips, "may specify no more than one IP for each "
                                                                        "IP family")])
    errs.extend(dups + family if duplicates_first else family + dups)
    return errs


def validate_pod_ephemeral_containers_update(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidatePodEphemeralContainersUpdate`` (the ephemeralcontainers subresource:
    ephemeral containers may be added, never removed or changed; static pods have none)."""
    opts = _pod_options(opts)
    mp = Path("metadata")
    errs = validate_object_meta_update(new.metadata, old.metadata, mp)
    errs.extend(_validate_pod_metadata_and_spec(new, opts))
    errs.extend(_validate_pod_annotation_updates(new, old, mp.child("annotations"), opts))
    if _MIRROR in (old.metadata.annotations or {}):
        return ErrorList([fld.forbidden(Path(""), "static pods do not support ephemeral containers")])
    sp = Path("spec").child("ephemeralContainers")
    by_name = {e.ephemeral_container_common.name: e for e in new.spec.ephemeral_containers or []}
    for o in old.spec.ephemeral_containers or []:
        name = o.ephemeral_container_common.name
        n = by_name.get(name)
        if n is None:
            errs.append(fld.forbidden(sp, f"existing ephemeral containers {quote(name)} may not be removed\n"))
        elif n != o:
            errs.append(fld.forbidden(sp, f"existing ephemeral containers {quote(name)} may not be changed\n"
                                          f"changed: {', '.join(_changed_fields(n, o))}"))
    return errs


def _resources_removed(new: Mapping[str, Any] | None, old: Mapping[str, Any] | None) -> bool:
    new, old = new or {}, old or {}
    return len(old) > len(new) or any(k not in new for k in old)


def _validate_container_resize(new: Any, old: Any, policies: Any, path: Path) -> ErrorList:
    """Go: ``validateContainerResize``."""
    errs = ErrorList()
    if _resources_removed(new.requests, old.requests):
        errs.append(fld.forbidden(path.child("requests"), "resource requests cannot be removed"))
    if _resources_removed(new.limits, old.limits):
        errs.append(fld.forbidden(path.child("limits"), "resource limits cannot be removed"))
    mem_policy = next((p.restart_policy for p in policies or [] if p.resource_name == "memory"), "")
    if mem_policy in ("NotRequired", ""):
        new_limit = (new.limits or {}).get("memory")
        old_limit = (old.limits or {}).get("memory")
        if new_limit is not None and old_limit is not None:
            if new_limit.cmp(old_limit) < 0:
                errs.append(fld.forbidden(path.child("limits").key("memory"),
                                          "memory limits cannot be decreased unless resizePolicy is RestartContainer"))
        elif new_limit is not None:
            errs.append(fld.forbidden(path.child("limits").key("memory"),
                                      "memory limits cannot be added unless resizePolicy is RestartContainer"))
    return errs


def _drop_cpu_memory_updates(container: Any, old: Any) -> Any:
    """Go: ``dropCPUMemoryResourcesFromContainer`` on a copy: cpu and memory as the old
    container has them, everything else as the new one."""
    def munge(new_list: Any, old_list: Any) -> Any:
        if old_list is None:
            return None
        out = {k: v for k, v in (new_list or {}).items() if k not in ("cpu", "memory")}
        for k in ("cpu", "memory"):
            if k in old_list:
                out[k] = old_list[k]
        return out

    c = container.deep_copy()
    res = type(old.resources)()
    res.limits = munge(container.resources.limits, old.resources.limits)
    res.requests = munge(container.resources.requests, old.resources.requests)
    c.resources = res
    return c


def _pod_resize_supported(pod: Any) -> bool:
    """Go: ``isPodResizeRequestSupported``."""
    for c in pod.status.container_statuses or []:
        if c.state is not None and c.state.running is not None:
            return c.resources is not None
    return True


def validate_pod_resize(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidatePodResize`` (the pods/resize subresource: only cpu and memory of
    containers and sidecar init containers change; QoS class stays)."""
    opts = _pod_options(opts)
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_pod_metadata_and_spec(new, opts))

    def pod_level(pod: Any) -> bool:
        r = pod.spec.resources
        return r is not None and len(r.requests or {}) + len(r.limits or {}) > 0

    if pod_level(old) or pod_level(new):
        return ErrorList([fld.forbidden(Path(""), "pods with pod-level resources cannot be resized")])
    if _MIRROR in (old.metadata.annotations or {}):
        return ErrorList([fld.forbidden(Path(""), "static pods cannot be resized")])
    if old.spec.os is not None and old.spec.os.name == "windows":
        return ErrorList([fld.forbidden(Path(""), "windows pods cannot be resized")])
    sp = Path("spec")
    if (old.status.qos_class or _qos(old)) != _qos(new):
        errs.append(fld.invalid(sp, new.status.qos_class, "Pod QOS Class may not change as a result of resizing"))
    if not _pod_resize_supported(old):
        errs.append(fld.forbidden(sp, "Pod running on node without support for resize"))
    new_init = list(new.spec.init_containers or [])
    old_init = list(old.spec.init_containers or [])
    new_ctrs = list(new.spec.containers or [])
    old_ctrs = list(old.spec.containers or [])
    if len(new_init) != len(old_init) or len(new_ctrs) != len(old_ctrs):
        # Go indexes the new pod by the old pod's positions (the strategy keeps the lists
        # as stored); a changed count is a change to more than resources.
        errs.append(fld.forbidden(sp, "only cpu and memory resources are mutable"))
        return errs
    for ix, ctr in enumerate(old_init):
        if ctr.restart_policy != "Always":
            continue
        errs.extend(_validate_container_resize(new_init[ix].resources, ctr.resources, new_init[ix].resize_policy,
                                               sp.child("initContainers").index(ix).child("resources")))
    for ix, ctr in enumerate(old_ctrs):
        errs.extend(_validate_container_resize(new_ctrs[ix].resources, ctr.resources, new_ctrs[ix].resize_policy,
                                               sp.child("containers").index(ix).child("resources")))
    munged_ctrs = []
    for ix, c in enumerate(new_ctrs):
        m = _drop_cpu_memory_updates(c, old_ctrs[ix])
        if m != old_ctrs[ix]:
            errs.append(fld.forbidden(sp, "only cpu and memory resources are mutable"))
        munged_ctrs.append(m)
    munged_init = []
    for ix, c in enumerate(new_init):
        if c.restart_policy == "Always":
            m = _drop_cpu_memory_updates(c, old_init[ix])
            if m != old_init[ix]:
                errs.append(fld.forbidden(sp, "only cpu and memory resources for sidecar containers are mutable"))
        else:
            m = c
            if m != old_init[ix]:
                errs.append(fld.forbidden(sp, "resources for non-sidecar init containers are immutable"))
        munged_init.append(m)
    if errs:
        return errs
    spec = new.spec.deep_copy()
    spec.containers = munged_ctrs
    spec.init_containers = munged_init if new.spec.init_containers is not None else new.spec.init_containers
    if spec != old.spec:
        errs.append(fld.forbidden(sp, "only cpu and memory resources are mutable"))
    return errs


def validate_binding(binding: Any) -> ErrorList:
    """Go: ``ValidatePodBinding`` (pods/binding: the target is a Node, by name)."""
    errs = ErrorList()
    if binding.target.kind and binding.target.kind != "Node":
        errs.append(fld.not_supported(Path("target", "kind"), binding.target.kind, ["Node", "<empty>"]))
    if not binding.target.name:
        errs.append(fld.required(Path("target", "name"), ""))
    return errs


def validate_pod_template_spec(spec: Any, path: Path, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidatePodTemplateSpec``."""
    opts = opts or PodValidationOptions()
    meta = spec.metadata
    errs = om.validate_labels(meta.labels, path.child("labels"))
    errs.extend(om.validate_annotations(meta.annotations, path.child("annotations")))
    errs.extend(validate_pod_specific_annotations(meta.annotations, spec.spec, path.child("annotations"), opts))
    errs.extend(validate_pod_spec(spec.spec, None, path.child("spec"), opts))
    if spec.spec.ephemeral_containers:
        errs.append(fld.forbidden(path.child("spec", "ephemeralContainers"),
                                  "ephemeral containers not allowed in pod template"))
    return errs


def validate_pod_template(obj: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidatePodTemplate``."""
    errs = validate_object_meta(obj.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(validate_pod_template_spec(obj.template, Path("template"), opts))
    return errs


def validate_pod_template_update(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidatePodTemplateUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_pod_template_spec(new.template, Path("template"), opts))
    return errs


# --- namespaces, config maps, secrets, service accounts ------------------------------------------

def validate_namespace(ns: Any) -> ErrorList:
    """Go: ``ValidateNamespace``."""
    errs = validate_object_meta(ns.metadata, False, names.validate_namespace_name, Path("metadata"))
    for f in ns.spec.finalizers or []:
        errs.extend(_validate_finalizer_name(f, Path("spec", "finalizers")))
    return errs


def validate_namespace_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateNamespaceUpdate``."""
    return validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))


def validate_namespace_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateNamespaceStatusUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    phase = new.status.phase
    if new.metadata.deletion_timestamp is None:
        if phase != "Active":
            errs.append(fld.invalid(Path("status", "Phase"), phase, "may only be 'Active' if `deletionTimestamp` is empty"))
    elif phase != "Terminating":
        errs.append(fld.invalid(Path("status", "Phase"), phase,
                                "may only be 'Terminating' if `deletionTimestamp` is not empty"))
    return errs


def validate_namespace_finalize_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateNamespaceFinalizeUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    for i, f in enumerate(new.spec.finalizers or []):
        errs.extend(_validate_finalizer_name(f, Path("spec", "finalizers").index(i)))
    return errs


def validate_config_map(cfg: Any) -> ErrorList:
    """Go: ``ValidateConfigMap`` (keys, no key in both maps, 1 MiB in total)."""
    errs = validate_object_meta(cfg.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    total = 0
    data = cfg.data or {}
    binary = cfg.binary_data or {}
    for key in _sorted(data):
        p = Path("data").key(key)
        errs.extend(fld.invalid(p, key, m) for m in names.is_config_map_key(key))
        if key in binary:
            errs.append(fld.invalid(p, key, "duplicate of key present in binaryData"))
        total += names.go_len(data[key])
    for key in _sorted(binary):
        errs.extend(fld.invalid(Path("binaryData").key(key), key, m) for m in names.is_config_map_key(key))
        total += len(binary[key])
    if total > MAX_SECRET_SIZE:
        errs.append(fld.too_long(Path(""), cfg, MAX_SECRET_SIZE))
    return errs


def validate_config_map_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateConfigMapUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    if old.immutable:
        if not new.immutable:
            errs.append(fld.forbidden(Path("immutable"), "field is immutable when `immutable` is set"))
        if new.data != old.data:
            errs.append(fld.forbidden(Path("data"), "field is immutable when `immutable` is set"))
        if new.binary_data != old.binary_data:
            errs.append(fld.forbidden(Path("binaryData"), "field is immutable when `immutable` is set"))
    errs.extend(validate_config_map(new))
    return errs


def _json_object_error(data: bytes) -> str | None:
    # json.Unmarshal(data, &map[string]interface{}{}): the text of Go's error, or None.
    from kcodec import gojson
    from kcodec.errors import DecodeError

    try:
        value = gojson.loads(data)
    except DecodeError as e:
        return str(e)
    if not isinstance(value, dict):
        kinds = {list: "array", str: "string", bool: "bool", type(None): "null"}
        kind = "number" if isinstance(value, (int, float)) else kinds.get(type(value), "value")
        if value is None:
            return None
        return f"json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
    return None


def validate_secret(secret: Any) -> ErrorList:
    """Go: ``ValidateSecret`` (keys, 1 MiB of data, the fields each type requires)."""
    errs = validate_object_meta(secret.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    dp = Path("data")
    data = secret.data or {}
    total = 0
    for key in _sorted(data):
        errs.extend(fld.invalid(dp.key(key), key, m) for m in names.is_config_map_key(key))
        total += len(data[key])
    if total > MAX_SECRET_SIZE:
        errs.append(fld.too_long(dp, "", MAX_SECRET_SIZE))
    t = secret.type
    if t == "kubernetes.io/service-account-token":
        if not (secret.metadata.annotations or {}).get("kubernetes.io/service-account.name"):
            errs.append(fld.required(Path("metadata", "annotations").key("kubernetes.io/service-account.name"), ""))
    elif t in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson"):
        key = ".dockercfg" if t == "kubernetes.io/dockercfg" else ".dockerconfigjson"
        if key not in data:
            errs.append(fld.required(dp.key(key), ""))
        else:
            msg = _json_object_error(data[key])
            if msg is not None:
                errs.append(fld.invalid(dp.key(key), "<secret contents redacted>", msg))
    elif t == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            errs.append(fld.required(dp.key("username"), ""))
            errs.append(fld.required(dp.key("password"), ""))
    elif t == "kubernetes.io/ssh-auth":
        if not data.get("ssh-privatekey"):
            errs.append(fld.required(dp.key("ssh-privatekey"), ""))
    elif t == "kubernetes.io/tls":
        if "tls.crt" not in data:
            errs.append(fld.required(dp.key("tls.crt"), ""))
        if "tls.key" not in data:
            errs.append(fld.required(dp.key("tls.key"), ""))
    return errs


def validate_secret_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateSecretUpdate`` (type immutable; data frozen when ``immutable``)."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(om.validate_immutable_field(new.type, old.type, Path("type")))
    if old.immutable:
        if not new.immutable:
            errs.append(fld.forbidden(Path("immutable"), "field is immutable when `immutable` is set"))
        if new.data != old.data:
            errs.append(fld.forbidden(Path("data"), "field is immutable when `immutable` is set"))
    errs.extend(validate_secret(new))
    return errs


def validate_service_account(sa: Any) -> ErrorList:
    """Go: ``ValidateServiceAccount``."""
    return validate_object_meta(sa.metadata, True, names.validate_service_account_name, Path("metadata"))


def validate_service_account_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateServiceAccountUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_service_account(new))
    return errs


# --- services ------------------------------------------------------------------------------------

def _is_headless(svc: Any) -> bool:
    ips = svc.spec.cluster_ips or []
    return len(ips) == 1 and ips[0] == "None"


def _externally_accessible(svc: Any) -> bool:
    t = svc.spec.type
    return t in ("LoadBalancer", "NodePort") or (t == "ClusterIP" and bool(svc.spec.external_ips))


def _needs_health_check(svc: Any) -> bool:
    return svc.spec.type == "LoadBalancer" and svc.spec.external_traffic_policy == "Local"


def _validate_non_special_ip(ip: str, path: Path) -> ErrorList:
    import ipaddress

    addr = names.parse_ip_sloppy(ip)
    if addr is None:
        return ErrorList([fld.invalid(path, ip, "must be a valid IP address")])
    errs = ErrorList()
    if addr.is_unspecified:
        errs.append(fld.invalid(path, ip, f"may not be unspecified ({ip})"))
    if addr.is_loopback:
        errs.append(fld.invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if addr.is_link_local:
        errs.append(fld.invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    ll_mcast = (isinstance(addr, ipaddress.IPv4Address) and addr in ipaddress.ip_network("224.0.0.0/24")) or \
        (isinstance(addr, ipaddress.IPv6Address) and addr in ipaddress.ip_network("ff02::/16"))
    if ll_mcast:
        errs.append(fld.invalid(path, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
    return errs


def _validate_service_cluster_ips(svc: Any) -> ErrorList:
    spec = svc.spec
    if spec.type == "ExternalName":
        return ErrorList()
    errs = ErrorList()
    sp = Path("spec")
    cip = sp.child("clusterIPs")
    ips = list(spec.cluster_ips or [])
    if spec.cluster_ip:
        if not ips:
            errs.append(fld.required(cip, ""))
        elif ips[0] != spec.cluster_ip:
            errs.append(fld.invalid(cip, ips, "first value must match `clusterIP`"))
    elif ips:
        errs.append(fld.invalid(cip, ips, "must be empty when `clusterIP` is not specified"))
    seen: set[str] = set()
    for i, fam in enumerate(spec.ip_families or []):
        if fam not in ("IPv4", "IPv6"):
            errs.append(fld.not_supported(sp.child("ipFamilies").index(i), fam, ["IPv4", "IPv6"]))
        if fam in seen:
            errs.append(fld.duplicate(sp.child("ipFamilies").index(i), fam))
        seen.add(fam)
    policies = ["PreferDualStack", "RequireDualStack", "SingleStack"]
    if spec.ip_family_policy is not None and spec.ip_family_policy not in policies:
        errs.append(fld.not_supported(sp.child("ipFamilyPolicy"), spec.ip_family_policy, policies))
    invalid_ips = False
    for i, ip in enumerate(ips):
        if i == 0 and ip == "None":
            if len(ips) > 1:
                invalid_ips = True
                errs.append(fld.invalid(cip, ips, "'None' must be the first and only value"))
            continue
        e = names.is_valid_ip(cip.index(i), ip)
        invalid_ips = invalid_ips or bool(e)
        errs.extend(e)
    if len(ips) > 2:
        errs.append(fld.invalid(cip, ips, "may only hold up to 2 values"))
    if invalid_ips:
        return errs
    if len(ips) > 1:
        fams = {":" in ip for ip in ips}
        if len(fams) != 2:
            errs.append(fld.invalid(cip, ips, "may specify no more than one IP for each IP family"))
    if not _is_headless(svc) and ips and spec.ip_families:
        for i, ip in enumerate(ips):
            if i > len(spec.ip_families) - 1:
                break
            is6 = ":" in ip
            if spec.ip_families[i] == "IPv4" and is6:
                errs.append(fld.invalid(cip.index(i), ip, f"expected an IPv4 value as indicated by `ipFamilies[{i}]`"))
            if spec.ip_families[i] == "IPv6" and not is6:
                errs.append(fld.invalid(cip.index(i), ip, f"expected an IPv6 value as indicated by `ipFamilies[{i}]`"))
    return errs


def _validate_service_port(sp: Any, require_name: bool, seen: set[str], path: Path) -> ErrorList:
    errs = ErrorList()
    if require_name and not sp.name:
        errs.append(fld.required(path.child("name"), ""))
    elif sp.name:
        errs.extend(_dns1123_label(sp.name, path.child("name")))
        if sp.name in seen:
            errs.append(fld.duplicate(path.child("name"), sp.name))
        else:
            seen.add(sp.name)
    errs.extend(fld.invalid(path.child("port"), sp.port, m) for m in names.is_valid_port_num(sp.port))
    if not sp.protocol:
        errs.append(fld.required(path.child("protocol"), ""))
    elif sp.protocol not in _PROTOCOLS:
        errs.append(fld.not_supported(path.child("protocol"), sp.protocol, _PROTOCOLS))
    errs.extend(_validate_port_num_or_name(sp.target_port, path.child("targetPort")))
    if sp.app_protocol is not None:
        errs.extend(_qualified_name(sp.app_protocol, path.child("appProtocol")))
    return errs


def validate_service(svc: Any) -> ErrorList:
    """Go: ``ValidateService``."""
    from kcodec.api.core import internal

    mp = Path("metadata")
    errs = validate_object_meta(svc.metadata, True, names.name_is_dns1035_label, mp)
    ann = svc.metadata.annotations or {}
    hints_key, mode_key = "service.kubernetes.io/topology-aware-hints", "service.kubernetes.io/topology-mode"
    if hints_key in ann and mode_key in ann and ann[hints_key] != ann[mode_key]:
        errs.append(fld.invalid(mp.child("annotations").key(mode_key), ann[mode_key],
                                f"must match annotations[{hints_key}] when both are specified"))
    spec = svc.spec
    sp = Path("spec")
    ports = list(spec.ports or [])
    headless = _is_headless(svc)
    if not ports and not headless and spec.type != "ExternalName":
        errs.append(fld.required(sp.child("ports"), ""))
    if spec.type == "LoadBalancer":
        for i, port in enumerate(ports):
            if port.port == 10250:
                errs.append(fld.invalid(sp.child("ports").index(i), port.port,
                                        "may not expose port 10250 externally since it is used by kubelet"))
        if headless:
            errs.append(fld.invalid(sp.child("clusterIPs").index(0), spec.cluster_ips[0],
                                    "may not be set to 'None' for LoadBalancer services"))
    elif spec.type == "NodePort":
        if headless:
            errs.append(fld.invalid(sp.child("clusterIPs").index(0), spec.cluster_ips[0],
                                    "may not be set to 'None' for NodePort services"))
    elif spec.type == "ExternalName":
        if spec.cluster_ips:
            errs.append(fld.forbidden(sp.child("clusterIPs"), "may not be set for ExternalName services"))
        if spec.ip_families:
            errs.append(fld.forbidden(sp.child("ipFamilies"), "may not be set for ExternalName services"))
        if spec.ip_family_policy is not None:
            errs.append(fld.forbidden(sp.child("ipFamilyPolicy"), "may not be set for ExternalName services"))
        cname = spec.external_name[:-1] if spec.external_name.endswith(".") else spec.external_name
        if cname:
            errs.extend(_dns1123_subdomain(cname, sp.child("externalName")))
        else:
            errs.append(fld.required(sp.child("externalName"), ""))
    seen: set[str] = set()
    for i, port in enumerate(ports):
        errs.extend(_validate_service_port(port, len(ports) > 1, seen, sp.child("ports").index(i)))
    if spec.selector is not None:
        errs.extend(om.validate_labels(spec.selector, sp.child("selector")))
    if not spec.session_affinity:
        errs.append(fld.required(sp.child("sessionAffinity"), ""))
    elif spec.session_affinity not in ("ClientIP", "None"):
        errs.append(fld.not_supported(sp.child("sessionAffinity"), spec.session_affinity, ["ClientIP", "None"]))
    if spec.session_affinity == "ClientIP":
        errs.extend(_validate_client_ip_affinity(spec.session_affinity_config, sp.child("sessionAffinityConfig")))
    elif spec.session_affinity == "None" and spec.session_affinity_config is not None:
        errs.append(fld.forbidden(sp.child("sessionAffinityConfig"), "must not be set when session affinity is None"))
    errs.extend(_validate_service_cluster_ips(svc))
    for i, ip in enumerate(spec.external_ips or []):
        ipp = sp.child("externalIPs").index(i)
        e = names.is_valid_ip(ipp, ip)
        errs.extend(e if e else _validate_non_special_ip(ip, ipp))
    types = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]
    if not spec.type:
        errs.append(fld.required(sp.child("type"), ""))
    elif spec.type not in types:
        errs.append(fld.not_supported(sp.child("type"), spec.type, types))
    if spec.type == "ClusterIP":
        for i, port in enumerate(ports):
            if port.node_port != 0:
                errs.append(fld.forbidden(sp.child("ports").index(i).child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
    node_ports: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        if port.node_port == 0:
            continue
        key = (port.protocol, port.node_port)
        if key in node_ports:
            errs.append(fld.duplicate(sp.child("ports").index(i).child("nodePort"), port.node_port))
        node_ports.add(key)
    pairs: set[tuple[str, int]] = set()
    for i, port in enumerate(ports):
        key = (port.protocol, port.port)
        if key in pairs:
            errs.append(fld.duplicate(sp.child("ports").index(i),
                                      internal.ServicePort(protocol=port.protocol, port=port.port)))
        pairs.add(key)
    ranges = list(spec.load_balancer_source_ranges or [])
    if ranges:
        fp = sp.child("LoadBalancerSourceRanges")
        if spec.type != "LoadBalancer":
            errs.append(fld.forbidden(fp, "may only be used when `type` is 'LoadBalancer'"))
        for i, v in enumerate(ranges):
            errs.extend(names.is_valid_cidr(fp.index(i), v.strip()))
    elif "service.beta.kubernetes.io/load-balancer-source-ranges" in ann:
        ann_key = "service.beta.kubernetes.io/load-balancer-source-ranges"
        fp = Path("metadata", "annotations").key(ann_key)
        if spec.type != "LoadBalancer":
            errs.append(fld.forbidden(fp, "may only be used when `type` is 'LoadBalancer'"))
        val = ann[ann_key].strip()
        if val:
            for v in val.split(","):
                errs.extend(names.is_valid_cidr(fp, v.strip()))
    if spec.allocate_load_balancer_node_ports is not None and spec.type != "LoadBalancer":
        errs.append(fld.forbidden(sp.child("allocateLoadBalancerNodePorts"), "may only be used when `type` is 'LoadBalancer'"))
    if spec.type == "LoadBalancer" and spec.allocate_load_balancer_node_ports is None:
        errs.append(fld.required(Path("allocateLoadBalancerNodePorts"), ""))
    errs.extend(_validate_load_balancer_class(None, svc))
    if not _externally_accessible(svc):
        if spec.external_traffic_policy:
            errs.append(fld.invalid(sp.child("externalTrafficPolicy"), spec.external_traffic_policy,
                                    "may only be set for externally-accessible services"))
    elif not spec.external_traffic_policy:
        errs.append(fld.required(sp.child("externalTrafficPolicy"), ""))
    elif spec.external_traffic_policy not in ("Cluster", "Local"):
        errs.append(fld.not_supported(sp.child("externalTrafficPolicy"), spec.external_traffic_policy, ["Cluster", "Local"]))
    if not _needs_health_check(svc):
        if spec.health_check_node_port != 0:
            errs.append(fld.invalid(sp.child("healthCheckNodePort"), spec.health_check_node_port,
                                    "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
    elif spec.health_check_node_port == 0:
        errs.append(fld.required(sp.child("healthCheckNodePort"), ""))
    else:
        errs.extend(fld.invalid(sp.child("healthCheckNodePort"), spec.health_check_node_port, m)
                    for m in names.is_valid_port_num(spec.health_check_node_port))
    itp = spec.internal_traffic_policy
    if itp is None:
        if spec.type in ("NodePort", "LoadBalancer", "ClusterIP"):
            errs.append(fld.required(sp.child("internalTrafficPolicy"), ""))
    elif itp not in ("Cluster", "Local"):
        errs.append(fld.not_supported(sp.child("internalTrafficPolicy"), itp, ["Cluster", "Local"]))
    td = spec.traffic_distribution
    valid_td = ["PreferClose", "PreferSameZone", "PreferSameNode"]
    if td is not None and td not in valid_td:
        errs.append(fld.not_supported(sp.child("trafficDistribution"), td, valid_td))
    return errs


def _validate_client_ip_affinity(cfg: Any, path: Path) -> ErrorList:
    msg = "when session affinity type is ClientIP"
    if cfg is None:
        return ErrorList([fld.required(path, msg)])
    if cfg.client_ip is None:
        return ErrorList([fld.required(path.child("clientIP"), msg)])
    t = cfg.client_ip.timeout_seconds
    if t is None:
        return ErrorList([fld.required(path.child("clientIP").child("timeoutSeconds"), msg)])
    if t <= 0 or t > 86400:
        return ErrorList([fld.invalid(path.child("clientIP").child("timeoutSeconds"), t,
                                      "must be greater than 0 and less than 86400")])
    return ErrorList()


def _validate_load_balancer_class(old: Any, svc: Any) -> ErrorList:
    errs = ErrorList()
    p = Path("spec", "loadBalancerClass")
    lb = svc.spec.type == "LoadBalancer"
    if old is not None and old.spec.type == "LoadBalancer" and lb and \
            old.spec.load_balancer_class != svc.spec.load_balancer_class:
        errs.append(fld.invalid(p, svc.spec.load_balancer_class, "may not change once set"))
    if lb:
        if svc.spec.load_balancer_class is not None:
            errs.extend(_qualified_name(svc.spec.load_balancer_class, p))
    elif svc.spec.load_balancer_class is not None:
        errs.append(fld.forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
    return errs


def validate_service_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateServiceUpdate`` (cluster IPs and families may not change once set)."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    if new.spec.type != "ExternalName" and old.spec.type != "ExternalName" and \
            not (_is_headless(old) and _is_headless(new)):
        oips, nips = list(old.spec.cluster_ips or []), list(new.spec.cluster_ips or [])
        cp = Path("spec", "clusterIPs")
        if len(oips) == len(nips):
            for i, ip in enumerate(oips):
                if ip != nips[i]:
                    errs.append(fld.invalid(cp.index(i), nips, "may not change once set"))
        elif len(oips) > len(nips):
            if not nips:
                errs.append(fld.invalid(cp.index(0), nips, "primary clusterIP can not be unset"))
            if oips and nips and nips[0] != oips[0]:
                errs.append(fld.invalid(cp.index(0), nips, "may not change once set"))
            if len(nips) == 1 and new.spec.ip_family_policy != "SingleStack":
                errs.append(fld.invalid(Path("spec", "ipFamilyPolicy"), new.spec.ip_family_policy,
                                        "must be set to 'SingleStack' when releasing the secondary clusterIP"))
        elif oips and nips[0] != oips[0]:
            errs.append(fld.invalid(cp.index(0), nips, "may not change once set"))
    if new.spec.type != "ExternalName" and old.spec.type != "ExternalName" and \
            _is_headless(new) == _is_headless(old) and not _is_headless(new):
        of, nf = list(old.spec.ip_families or []), list(new.spec.ip_families or [])
        fp = Path("spec", "ipFamilies")
        if len(of) == len(nf):
            if any(a != b for a, b in zip(of, nf)):
                errs.append(fld.invalid(fp.index(0), nf, "may not change once set"))
        elif len(of) > len(nf):
            if not new.spec.cluster_ips:
                errs.append(fld.invalid(fp.index(0), nf, "primary ipFamily can not be unset"))
            if nf and nf[0] != of[0]:
                errs.append(fld.invalid(fp.index(0), new.spec.cluster_ips, "may not change once set"))
            if len(nf) == 1 and new.spec.ip_family_policy != "SingleStack":
                errs.append(fld.invalid(Path("spec", "ipFamilyPolicy"), new.spec.ip_family_policy,
                                        "must be set to 'SingleStack' when releasing the secondary ipFamily"))
        elif of and nf and nf[0] != of[0]:
            errs.append(fld.invalid(fp.index(0), new.spec.cluster_ips, "may not change once set"))
    errs.extend(_validate_load_balancer_class(old, new))
    if _needs_health_check(old) and _needs_health_check(new) and \
            new.spec.health_check_node_port != old.spec.health_check_node_port:
        errs.append(fld.forbidden(Path("spec", "healthCheckNodePort"), "field is immutable"))
    errs.extend(validate_service(new))
    return errs


def validate_service_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateServiceStatusUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    ip = Path("status", "loadBalancer", "ingress")
    ingress = list(new.status.load_balancer.ingress or []) if new.status.load_balancer is not None else []
    for i, ing in enumerate(ingress):
        p = ip.index(i)
        if ing.ip:
            errs.extend(names.is_valid_ip(p.child("ip"), ing.ip))
        if ing.ip_mode is None:
            if ing.ip:
                errs.append(fld.required(p.child("ipMode"), "must be specified when `ip` is set"))
        elif not ing.ip:
            errs.append(fld.forbidden(p.child("ipMode"), "may not be specified when `ip` is not set"))
        elif ing.ip_mode not in ("Proxy", "VIP"):
            errs.append(fld.not_supported(p.child("ipMode"), ing.ip_mode, ["Proxy", "VIP"]))
        if ing.hostname:
            errs.extend(fld.invalid(p.child("hostname"), ing.hostname, m) for m in names.is_dns1123_subdomain(ing.hostname))
            if names.parse_ip_sloppy(ing.hostname) is not None:
                errs.append(fld.invalid(p.child("hostname"), ing.hostname, "must be a DNS name, not an IP address"))
    return errs


# --- persistent volume claims ---------------------------------------------------------------------

_ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]
_VOLUME_MODES = ["Block", "Filesystem"]


def _validate_data_source(ds: Any, path: Path, typed_ref: bool) -> ErrorList:
    errs = ErrorList()
    if not ds.name:
        errs.append(fld.required(path.child("name"), ""))
    if not ds.kind:
        errs.append(fld.required(path.child("kind"), ""))
    group = ds.api_group or ""
    if not group and ds.kind != "PersistentVolumeClaim":
        errs.append(fld.invalid(path, ds.kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
    if group:
        errs.extend(fld.invalid(path.child("apiGroup"), group, m) for m in names.is_dns1123_subdomain(group))
    if typed_ref and ds.namespace:
        errs.extend(fld.invalid(path.child("namespace"), ds.namespace, m)
                    for m in names.validate_namespace_name(ds.namespace, False))
    return errs


def validate_persistent_volume_claim_spec(spec: Any, path: Path, *,
                                          allow_invalid_label_value_in_selector: bool = False) -> ErrorList:
    """Go: ``ValidatePersistentVolumeClaimSpec``."""
    errs = ErrorList()
    modes = list(spec.access_modes or [])
    if not modes:
        errs.append(fld.required(path.child("accessModes"), "at least 1 access mode is required"))
    if spec.selector is not None:
        errs.extend(om.validate_label_selector(spec.selector, path.child("selector"),
                                               allow_invalid_label_value=allow_invalid_label_value_in_selector))
    rwop = other = False
    for m in modes:
        if m not in _ACCESS_MODES:
            errs.append(fld.not_supported(path.child("accessModes"), m, _ACCESS_MODES))
        if m == "ReadWriteOncePod":
            rwop = True
        elif m in _ACCESS_MODES:
            other = True
    if rwop and other:
        errs.append(fld.forbidden(path.child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
    requests = (spec.resources.requests if spec.resources is not None else None) or {}
    sp = path.child("resources").key("storage")
    if "storage" not in requests:
        errs.append(fld.required(sp, ""))
    else:
        e = _validate_positive_quantity(requests["storage"], sp)
        errs.extend(e if e else validate_resource_quantity_value("storage", requests["storage"], sp))
    if spec.storage_class_name:
        errs.extend(fld.invalid(path.child("storageClassName"), spec.storage_class_name, m)
                    for m in names.name_is_dns_subdomain(spec.storage_class_name, False))
    if spec.volume_mode is not None and spec.volume_mode not in _VOLUME_MODES:
        errs.append(fld.not_supported(path.child("volumeMode"), spec.volume_mode, _VOLUME_MODES))
    if spec.data_source is not None:
        errs.extend(_validate_data_source(spec.data_source, path.child("dataSource"), False))
    if spec.data_source_ref is not None:
        errs.extend(_validate_data_source(spec.data_source_ref, path.child("dataSourceRef"), True))
    ref, ds = spec.data_source_ref, spec.data_source
    if ref is not None and ref.namespace:
        if ds is not None:
            errs.append(fld.invalid(path, str(path.child("dataSource")),
                                    "may not be specified when dataSourceRef.namespace is specified"))
    elif ds is not None and ref is not None:
        if (ds.api_group, ds.kind, ds.name) != (ref.api_group, ref.kind, ref.name):
            errs.append(fld.invalid(path, str(path.child("dataSource")), "must match dataSourceRef"))
    if spec.volume_attributes_class_name:
        errs.extend(fld.invalid(path.child("volumeAttributesClassName"), spec.volume_attributes_class_name, m)
                    for m in names.name_is_dns_subdomain(spec.volume_attributes_class_name, False))
    return errs


def validate_persistent_volume_claim(pvc: Any) -> ErrorList:
    """Go: ``ValidatePersistentVolumeClaim``."""
    errs = validate_object_meta(pvc.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(validate_persistent_volume_claim_spec(pvc.spec, Path("spec")))
    return errs


def validate_persistent_volume_claim_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidatePersistentVolumeClaimUpdate`` (the spec is immutable except requests
    of bound claims and volumeAttributesClassName)."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_persistent_volume_claim(new))
    n, o = new.spec.deep_copy(), old.spec.deep_copy()
    if not old.spec.volume_name:
        o.volume_name = n.volume_name
    beta = "volume.beta.kubernetes.io/storage-class"
    oann, nann = old.metadata.annotations or {}, new.metadata.annotations or {}
    if beta in oann and o.storage_class_name is None and n.storage_class_name is not None and \
            n.storage_class_name == oann[beta] and (beta not in nann or nann[beta] == oann[beta]):
        n.storage_class_name = None
    else:
        if nann.get(beta, "") != oann.get(beta, ""):
            errs.append(fld.invalid(Path("metadata").child("annotations", beta), nann.get(beta, ""),
                                    om.FIELD_IMMUTABLE_ERROR_MSG))
        if n.storage_class_name is not None and old.spec.storage_class_name is None and \
                (beta not in oann or n.storage_class_name == oann[beta]):
            n.storage_class_name = o.storage_class_name
    if new.status.phase == "Bound" and n.resources is not None and n.resources.requests is not None:
        old_req = (old.spec.resources.requests or {}) if old.spec.resources is not None else {}
        if "storage" in old_req:
            n.resources.requests["storage"] = old_req["storage"]
        else:
            n.resources.requests.pop("storage", None)
    n.volume_attributes_class_name = o.volume_attributes_class_name
    if n != o:
        errs.append(fld.forbidden(Path("spec"), "spec is immutable after creation except resources.requests and "
                                                f"volumeAttributesClassName for bound claims\nchanged: "
                                                f"{', '.join(_changed_fields(n, o))}"))
    old_size = ((old.spec.resources.requests or {}) if old.spec.resources else {}).get("storage")
    new_size = ((new.spec.resources.requests or {}) if new.spec.resources else {}).get("storage")
    if new_size is not None and old_size is not None and new_size.cmp(old_size) < 0:
        errs.append(fld.forbidden(Path("spec", "resources", "requests", "storage"), "field can not be less than previous value"))
    errs.extend(om.validate_immutable_field(new.spec.volume_mode, old.spec.volume_mode, Path("volumeMode")))
    if old.spec.volume_attributes_class_name is not None and \
            old.spec.volume_attributes_class_name != new.spec.volume_attributes_class_name:
        p = Path("spec", "volumeAttributesClassName")
        if new.spec.volume_attributes_class_name is None:
            errs.append(fld.forbidden(p, "update from non-nil value to nil is forbidden"))
        elif new.spec.volume_attributes_class_name == "":
            errs.append(fld.forbidden(p, "update from non-nil value to an empty string is forbidden"))
    return errs


def validate_persistent_volume_claim_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidatePersistentVolumeClaimStatusUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    if not new.metadata.resource_version:
        errs.append(fld.required(Path("resourceVersion"), ""))
    if not new.spec.access_modes:
        errs.append(fld.required(Path("Spec", "accessModes"), ""))
    cp = Path("status", "capacity")
    for name in _sorted(new.status.capacity):
        q = new.status.capacity[name]
        if q.value() < 0:
            errs.append(fld.invalid(cp.key(name), q.value(), "must be a valid resource quantity"))
    return errs


# --- persistent volumes ----------------------------------------------------------------------------

_PV_ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]
_PV_RECLAIM_POLICIES = ["Delete", "Recycle", "Retain"]
_PV_VOLUME_MODES = ["Block", "Filesystem"]


def _validate_pv_secret_reference(ref: Any, path: Path) -> ErrorList:
    """Go: ``validatePVSecretReference``."""
    errs = ErrorList()
    if not ref.name:
        errs.append(fld.required(path.child("name"), ""))
    else:
        errs.extend(_dns1123_subdomain(ref.name, path.child("name")))
    if not ref.namespace:
        errs.append(fld.required(path.child("namespace"), ""))
    else:
        errs.extend(_dns1123_label(ref.namespace, path.child("namespace")))
    return errs


def _pv_csi(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    """Go: ``validateCSIPersistentVolumeSource`` (nodeStageSecretRef is not checked, as in Go)."""
    errs = validate_csi_driver_name(s.driver, p.child("driver"))
    if not s.volume_handle:
        errs.append(fld.required(p.child("volumeHandle"), ""))
    for attr, js in (("controller_publish_secret_ref", "controllerPublishSecretRef"),
                     ("controller_expand_secret_ref", "controllerExpandSecretRef"),
                     ("node_publish_secret_ref", "nodePublishSecretRef"),
                     ("node_expand_secret_ref", "nodeExpandSecretRef")):
        ref = getattr(s, attr)
        if ref is not None:
            errs.extend(_validate_pv_secret_reference(ref, p.child(js)))
    return errs


def _pv_local(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    """Go: ``validateLocalVolumeSource``."""
    if not s.path:
        return ErrorList([fld.required(p.child("path"), "")])
    return _validate_path_no_backsteps(s.path, p.child("path"))


def _pv_storage_os(s: Any, p: Path, opts: PodValidationOptions) -> ErrorList:
    """Go: ``validateStorageOSPersistentVolumeSource``."""
    errs = ErrorList()
    if not s.volume_name:
        errs.append(fld.required(p.child("volumeName"), ""))
    else:
        errs.extend(_dns1123_label(s.volume_name, p.child("volumeName")))
    if s.volume_namespace:
        errs.extend(_dns1123_label(s.volume_namespace, p.child("volumeNamespace")))
    if s.secret_ref is not None:
        if not s.secret_ref.name:
            errs.append(fld.required(p.child("secretRef", "name"), ""))
        if not s.secret_ref.namespace:
            errs.append(fld.required(p.child("secretRef", "namespace"), ""))
    return errs


#: (attribute, path when a second source, own path, check), in ValidatePersistentVolumeSpec's
#: order. Sources whose checks are the pod volume's reuse them; flexVolume is counted without
#: the "more than 1" check, as in Go.
_PV_SOURCES: list[tuple[str, str, str, Callable[[Any, Path, PodValidationOptions], ErrorList]]] = [
    ("host_path", "hostPath", "hostPath", _v_host_path),
    ("gce_persistent_disk", "gcePersistentDisk", "persistentDisk", _v_partitioned("pd_name", "pdName")),
    ("aws_elastic_block_store", "awsElasticBlockStore", "awsElasticBlockStore", _v_partitioned("volume_id", "volumeID")),
    ("glusterfs", "glusterfs", "glusterfs", _required_fields(("endpoints_name", "endpoints"), ("path", "path"))),
    ("flocker", "flocker", "flocker", _v_noop),
    ("nfs", "nfs", "nfs", _v_nfs),
    ("rbd", "rbd", "rbd", _required_fields(("ceph_monitors", "monitors"), ("rbd_image", "image"))),
    ("quobyte", "quobyte", "quobyte", _required_fields(("volume", "volume"))),
    ("ceph_fs", "cephFS", "cephfs", _required_fields(("monitors", "monitors"))),
    ("iscsi", "iscsi", "iscsi", _required_fields(("target_portal", "targetPortal"), ("iqn", "iqn"))),
    ("cinder", "cinder", "cinder", _required_fields(("volume_id", "volumeID"))),
    ("fc", "fc", "fc", _v_noop),
    ("flex_volume", "", "flexVolume", _v_flex),
    ("azure_file", "azureFile", "azureFile", _required_fields(("secret_name", "secretName"), ("share_name", "shareName"))),
    ("vsphere_volume", "vsphereVolume", "vsphereVolume", _required_fields(("volume_path", "volumePath"))),
    ("photon_persistent_disk", "photonPersistentDisk", "photonPersistentDisk", _required_fields(("pd_id", "pdID"))),
    ("portworx_volume", "portworxVolume", "portworxVolume", _required_fields(("volume_id", "volumeID"))),
    ("azure_disk", "azureDisk", "azureDisk", _required_fields(("disk_name", "diskName"), ("data_disk_uri", "diskURI"))),
    ("scale_io", "scaleIO", "scaleIO", _required_fields(("gateway", "gateway"), ("system", "system"),
                                                        ("volume_name", "volumeName"))),
    ("local", "local", "local", _pv_local),
    ("storage_os", "storageos", "storageos", _pv_storage_os),
    ("csi", "csi", "csi", _pv_csi),
]


def validate_persistent_volume_spec(spec: Any, pv_name: str, inline: bool, path: Path) -> ErrorList:
    """Go: ``ValidatePersistentVolumeSpec`` (*inline*: a CSI inline volume of a
    VolumeAttachment). Per-source checks are those of the pod volume sources of the same
    kind; iSCSI portals and CHAP secrets are not checked further."""
    errs = ErrorList()
    if inline:
        if spec.claim_ref is not None:
            errs.append(fld.forbidden(path.child("claimRef"), "may not be specified in the context of inline volumes"))
        if spec.capacity:
            errs.append(fld.forbidden(path.child("capacity"), "may not be specified in the context of inline volumes"))
        if spec.persistent_volume_source.csi is None:
            errs.append(fld.required(path.child("csi"), "has to be specified in the context of inline volumes"))
    modes = list(spec.access_modes or [])
    if not modes:
        errs.append(fld.required(path.child("accessModes"), ""))
    rwop = other = False
    for mode in modes:
        if mode not in _PV_ACCESS_MODES:
            errs.append(fld.not_supported(path.child("accessModes"), mode, _PV_ACCESS_MODES))
        if mode == "ReadWriteOncePod":
            rwop = True
        elif mode in _PV_ACCESS_MODES:
            other = True
    if rwop and other:
        errs.append(fld.forbidden(path.child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
    if not inline:
        capacity = spec.capacity or {}
        if not capacity:
            errs.append(fld.required(path.child("capacity"), ""))
        if "storage" not in capacity or len(capacity) > 1:
            errs.append(fld.not_supported(path.child("capacity"), capacity, ["storage"]))
        cp = path.child("capacity")
        for name in _sorted(capacity):
            q = capacity[name]
            if q.value() < 0:
                errs.append(fld.invalid(cp.key(name), q.value(), "must be a valid resource quantity"))
            errs.extend(_validate_positive_quantity(q, cp.key(name)))
    policy = spec.persistent_volume_reclaim_policy or ""
    if policy:
        rp = path.child("persistentVolumeReclaimPolicy")
        if inline:
            if policy != "Retain":
                errs.append(fld.forbidden(rp, "may only be Retain in the context of inline volumes"))
        elif policy not in _PV_RECLAIM_POLICIES:
            errs.append(fld.not_supported(rp, policy, _PV_RECLAIM_POLICIES))
    affinity_set = False
    if spec.node_affinity is not None:
        if inline:
            errs.append(fld.forbidden(path.child("nodeAffinity"), "may not be specified in the context of inline volumes"))
        else:
            affinity_set = True
            if spec.node_affinity.required is not None:
                errs.extend(validate_node_selector(spec.node_affinity.required, path.child("nodeAffinity", "required")))
            else:
                errs.append(fld.required(path.child("nodeAffinity", "required"), "must specify required node constraints"))
    src = spec.persistent_volume_source
    count = 0
    opts = PodValidationOptions()
    for attr, more_name, own_name, check in _PV_SOURCES:
        value = getattr(src, attr, None)
        if value is None:
            continue
        if count > 0 and more_name:
            errs.append(fld.forbidden(path.child(more_name), "may not specify more than 1 volume type"))
            continue
        count += 1
        errs.extend(check(value, path.child(own_name), opts))
        if attr == "local" and not affinity_set:
            errs.append(fld.required(path.child("nodeAffinity"), "Local volume requires node affinity"))
    if count == 0:
        errs.append(fld.required(path, "must specify a volume type"))
    if src.host_path is not None and posixpath.normpath(src.host_path.path or ".") in ("/", "//") \
            and policy == "Recycle":
        errs.append(fld.forbidden(path.child("persistentVolumeReclaimPolicy"),
                                  "may not be 'recycle' for a hostPath mount of '/'"))
    if spec.storage_class_name:
        if inline:
            errs.append(fld.forbidden(path.child("storageClassName"), "may not be specified in the context of inline volumes"))
        else:
            errs.extend(fld.invalid(path.child("storageClassName"), spec.storage_class_name, m)
                        for m in names.name_is_dns_subdomain(spec.storage_class_name, False))
    if spec.volume_mode is not None:
        if inline:
            if spec.volume_mode != "Filesystem":
                errs.append(fld.forbidden(path.child("volumeMode"), "may not specify volumeMode other than Filesystem in "
                                                                    "the context of inline volumes"))
        elif spec.volume_mode not in _PV_VOLUME_MODES:
            errs.append(fld.not_supported(path.child("volumeMode"), spec.volume_mode, _PV_VOLUME_MODES))
    vac = spec.volume_attributes_class_name
    if vac is not None:
        if vac == "":
            errs.append(fld.required(path.child("volumeAttributesClassName"), "an empty string is disallowed"))
        else:
            errs.extend(fld.invalid(path.child("volumeAttributesClassName"), vac, m)
                        for m in names.name_is_dns_subdomain(vac, False))
        if src.csi is None:
            errs.append(fld.required(path.child("csi"), "has to be specified when using volumeAttributesClassName"))
    return errs


def validate_persistent_volume(pv: Any) -> ErrorList:
    """Go: ``ValidatePersistentVolume`` (VolumeAttributesClass enabled, as in 1.36)."""
    errs = validate_object_meta(pv.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(validate_persistent_volume_spec(pv.spec, pv.metadata.name or "", False, Path("spec")))
    return errs


def validate_persistent_volume_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidatePersistentVolumeUpdate``: the volume source is immutable (a CSI
    controllerExpandSecretRef may be added); Go's cmp.Diff text is replaced by the changed
    fields; volumeMode and a set nodeAffinity are immutable."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_persistent_volume(new))
    new_src = new.spec.persistent_volume_source
    old_src = old.spec.persistent_volume_source
    if old_src.csi is not None and old_src.csi.controller_expand_secret_ref is None and \
            new_src.csi is not None and new_src.csi.controller_expand_secret_ref is not None:
        new_src = new_src.deep_copy()
        new_src.csi.controller_expand_secret_ref = None
    if new_src != old_src:
        errs.append(fld.forbidden(Path("spec", "persistentvolumesource"),
                                  "spec.persistentvolumesource is immutable after creation\n"
                                  f"changed: {', '.join(_changed_fields(new_src, old_src))}"))
    errs.extend(validate_immutable_field(new.spec.volume_mode, old.spec.volume_mode, Path("volumeMode")))
    if old.spec.node_affinity is not None:
        errs.extend(validate_immutable_field(new.spec.node_affinity, old.spec.node_affinity, Path("nodeAffinity")))
    if old.spec.volume_attributes_class_name is not None and new.spec.volume_attributes_class_name is None:
        errs.append(fld.forbidden(Path("spec", "volumeAttributesClassName"), "update from non-nil value to nil is forbidden"))
    return errs


def validate_persistent_volume_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidatePersistentVolumeStatusUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    if not new.metadata.resource_version:
        errs.append(fld.required(Path("resourceVersion"), ""))
    return errs


# --- replication controllers -----------------------------------------------------------------------

def _validate_pod_template_spec_for_rc(template: Any, selector: Mapping[str, str] | None, path: Path,
                                       opts: PodValidationOptions) -> ErrorList:
    if template is None:
        return ErrorList([fld.required(path, "")])
    errs = ErrorList()
    sel = selector_from_set(selector or {})
    labels = template.metadata.labels or {}
    if not sel.empty() and not sel.matches(labels):
        errs.append(fld.invalid(path.child("metadata", "labels"), template.metadata.labels,
                                "`selector` does not match template `labels`"))
    errs.extend(validate_pod_template_spec(template, path, opts))
    if template.spec.restart_policy != "Always":
        errs.append(fld.not_supported(path.child("spec", "restartPolicy"), template.spec.restart_policy, ["Always"]))
    if template.spec.active_deadline_seconds is not None:
        errs.append(fld.forbidden(path.child("spec", "activeDeadlineSeconds"),
                                  "activeDeadlineSeconds in ReplicationController is not Supported"))
    return errs


def _validate_rc_spec(spec: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = names.validate_nonnegative_field(spec.min_ready_seconds, path.child("minReadySeconds"))
    if selector_from_set(spec.selector or {}).empty():
        errs.append(fld.required(path.child("selector"), ""))
    errs.extend(names.validate_nonnegative_field(spec.replicas, path.child("replicas")))
    errs.extend(_validate_pod_template_spec_for_rc(spec.template, spec.selector, path.child("template"), opts))
    return errs


def validate_replication_controller(rc: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateReplicationController``."""
    errs = validate_object_meta(rc.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_rc_spec(rc.spec, Path("spec"), opts or PodValidationOptions()))
    return errs


def validate_replication_controller_update(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateReplicationControllerUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_rc_spec(new.spec, Path("spec"), opts or PodValidationOptions()))
    return errs


def validate_replica_counts(status: Any, path: Path, fields: Sequence[str]) -> ErrorList:
    """The status checks shared by RCs and ReplicaSets (Go: ``ValidateReplicationControllerStatus``)."""
    errs = ErrorList()
    for attr in fields:
        js = re.sub(r"_(.)", lambda m: m.group(1).upper(), attr)
        errs.extend(names.validate_nonnegative_field(getattr(status, attr), path.child(js)))
    msg = "cannot be greater than status.replicas"
    for attr, js in (("fully_labeled_replicas", "fullyLabeledReplicas"), ("ready_replicas", "readyReplicas"),
                     ("available_replicas", "availableReplicas")):
        if getattr(status, attr) > status.replicas:
            errs.append(fld.invalid(path.child(js), getattr(status, attr), msg))
    if status.available_replicas > status.ready_replicas:
        errs.append(fld.invalid(path.child("availableReplicas"), status.available_replicas,
                                "cannot be greater than readyReplicas"))
    return errs


def validate_replication_controller_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateReplicationControllerStatusUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_replica_counts(new.status, Path("status"), ("replicas", "fully_labeled_replicas",
                                                                     "ready_replicas", "available_replicas",
                                                                     "observed_generation")))
    return errs



# --- endpoints, resource quotas, limit ranges ------------------------------------------------------

def _validate_endpoint_address(addr: Any, path: Path) -> ErrorList:
    errs = names.is_valid_ip(path.child("ip"), addr.ip)
    if addr.hostname:
        errs.extend(_dns1123_label(addr.hostname, path.child("hostname")))
    if addr.node_name is not None:
        errs.extend(fld.invalid(path.child("nodeName"), addr.node_name, m)
                    for m in names.name_is_dns_subdomain(addr.node_name, False))
    errs.extend(_validate_non_special_ip(addr.ip, path.child("ip")))
    return errs


def validate_endpoints(ep: Any) -> ErrorList:
    """Go: ``ValidateEndpoints`` (ValidateEndpointsCreate)."""
    errs = validate_object_meta(ep.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    for i, ss in enumerate(ep.subsets or []):
        p = Path("subsets").index(i)
        if not ss.addresses and not ss.not_ready_addresses:
            errs.append(fld.required(p, "must specify `addresses` or `notReadyAddresses`"))
        for j, a in enumerate(ss.addresses or []):
            errs.extend(_validate_endpoint_address(a, p.child("addresses").index(j)))
        for j, a in enumerate(ss.not_ready_addresses or []):
            errs.extend(_validate_endpoint_address(a, p.child("notReadyAddresses").index(j)))
        ports = list(ss.ports or [])
        for j, port in enumerate(ports):
            pp = p.child("ports").index(j)
            if len(ports) > 1 and not port.name:
                errs.append(fld.required(pp.child("name"), ""))
            elif port.name:
                errs.extend(_dns1123_label(port.name, pp.child("name")))
            errs.extend(fld.invalid(pp.child("port"), port.port, m) for m in names.is_valid_port_num(port.port))
            if not port.protocol:
                errs.append(fld.required(pp.child("protocol"), ""))
            elif port.protocol not in _PROTOCOLS:
                errs.append(fld.not_supported(pp.child("protocol"), port.protocol, _PROTOCOLS))
            if port.app_protocol is not None:
                errs.extend(_qualified_name(port.app_protocol, pp.child("appProtocol")))
    return errs


def validate_endpoints_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateEndpointsUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_endpoints(new))
    return errs


#: helper.standardQuotaResources: the standard resources except ``storage``.
_STANDARD_QUOTA_RESOURCES = _STANDARD_RESOURCES - {"storage"}
_QUOTA_SCOPES = ["BestEffort", "CrossNamespacePodAffinity", "NotBestEffort", "NotTerminating", "PriorityClass",
                 "Terminating", "VolumeAttributesClass"]


def _validate_quota_resource_name(value: str, path: Path) -> ErrorList:
    errs = _validate_resource_name(value, path)
    if len(value.split("/")) == 1 and value not in _STANDARD_QUOTA_RESOURCES and \
            not value.startswith(("hugepages-", "requests.hugepages-")):
        errs.append(fld.invalid(path, value, "must be a standard resource for quota"))
    return errs


def _validate_quota_list(rl: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    for k in _sorted(rl):
        p = path.key(k)
        errs.extend(_validate_quota_resource_name(k, p))
        errs.extend(validate_resource_quantity_value(k, rl[k], p))
    return errs


def validate_resource_quota(rq: Any) -> ErrorList:
    """Go: ``ValidateResourceQuota`` (resource names and quantities of spec.hard and the status;
    scope combinations)."""
    errs = validate_object_meta(rq.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_quota_list(rq.spec.hard, Path("spec").child("hard")))
    scopes = list(rq.spec.scopes or [])
    sp = Path("spec").child("scopes")
    for s in scopes:
        if s not in _QUOTA_SCOPES:
            errs.append(fld.invalid(sp, scopes, "unsupported scope"))
    for a, b in (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating")):
        if a in scopes and b in scopes:
            errs.append(fld.invalid(sp, scopes, "conflicting scopes"))
    errs.extend(_validate_quota_list(rq.status.hard, Path("status").child("hard")))
    errs.extend(_validate_quota_list(rq.status.used, Path("status").child("used")))
    return errs


def validate_resource_quota_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateResourceQuotaUpdate`` (scopes are immutable)."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_quota_list(new.spec.hard, Path("spec").child("hard")))
    if set(new.spec.scopes or []) != set(old.spec.scopes or []):
        errs.append(fld.invalid(Path("spec", "scopes"), new.spec.scopes, om.FIELD_IMMUTABLE_ERROR_MSG))
    return errs


def validate_resource_quota_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateResourceQuotaStatusUpdate``."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    if not new.metadata.resource_version:
        errs.append(fld.required(Path("resourceVersion"), ""))
    errs.extend(_validate_quota_list(new.status.hard, Path("status", "hard")))
    errs.extend(_validate_quota_list(new.status.used, Path("status", "used")))
    return errs


_LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")


def validate_limit_range(lr: Any) -> ErrorList:
    """Go: ``ValidateLimitRange`` (types, resource names, min <= default request <= default
    <= max, ratios)."""
    errs = validate_object_meta(lr.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    fp = Path("spec", "limits")
    seen: set[str] = set()
    for i, item in enumerate(lr.spec.limits or []):
        ip = fp.index(i)
        t = item.type
        msgs = names.is_qualified_name(t)
        if msgs:
            errs.extend(fld.invalid(ip.child("type"), t, m) for m in msgs)
        elif len(t.split("/")) == 1 and t not in _LIMIT_TYPES:
            errs.append(fld.invalid(ip.child("type"), t, "must be a standard limit type or fully qualified"))
        if t in seen:
            errs.append(fld.duplicate(ip.child("type"), t))
        seen.add(t)
        name_check = _validate_container_resource_name if t in ("Pod", "Container") else _validate_resource_name
        tables: dict[str, dict[str, Quantity]] = {}
        for attr, js in (("max", "max"), ("min", "min")):
            tables[js] = dict(getattr(item, attr) or {})
            for k in _sorted(tables[js]):
                errs.extend(name_check(k, ip.child(js).key(k)))
        if t == "Pod":
            tables["default"], tables["defaultRequest"] = {}, {}
            if item.default:
                errs.append(fld.forbidden(ip.child("default"), "may not be specified when `type` is 'Pod'"))
            if item.default_request:
                errs.append(fld.forbidden(ip.child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
        else:
            for attr, js in (("default", "default"), ("default_request", "defaultRequest")):
                tables[js] = dict(getattr(item, attr) or {})
                for k in _sorted(tables[js]):
                    errs.extend(name_check(k, ip.child(js).key(k)))
        if t == "PersistentVolumeClaim" and "storage" not in tables["min"] and "storage" not in tables["max"]:
            errs.append(fld.required(ip.child("limits"), "either minimum or maximum storage value is required, but "
                                                         "neither was provided"))
        tables["ratio"] = dict(item.max_limit_request_ratio or {})
        for k in _sorted(tables["ratio"]):
            errs.extend(name_check(k, ip.child("maxLimitRequestRatio").key(k)))
        keys = set().union(*(set(v) for v in tables.values()))
        for k in sorted(keys):
            mn, mx = tables["min"].get(k), tables["max"].get(k)
            df, dr = tables["default"].get(k), tables["defaultRequest"].get(k)
            ratio = tables["ratio"].get(k)
            if mn is not None and mx is not None and mn.cmp(mx) > 0:
                errs.append(fld.invalid(ip.child("min").key(k), mn, f"min value {mn} is greater than max value {mx}"))
            if dr is not None and mn is not None and mn.cmp(dr) > 0:
                errs.append(fld.invalid(ip.child("defaultRequest").key(k), dr,
                                        f"min value {mn} is greater than default request value {dr}"))
            if dr is not None and mx is not None and dr.cmp(mx) > 0:
                errs.append(fld.invalid(ip.child("defaultRequest").key(k), dr,
                                        f"default request value {dr} is greater than max value {mx}"))
            if dr is not None and df is not None and dr.cmp(df) > 0:
                errs.append(fld.invalid(ip.child("defaultRequest").key(k), dr,
                                        f"default request value {dr} is greater than default limit value {df}"))
            if df is not None and mn is not None and mn.cmp(df) > 0:
                errs.append(fld.invalid(ip.child("default").key(k), mn, f"min value {mn} is greater than default value {df}"))
            if df is not None and mx is not None and df.cmp(mx) > 0:
                errs.append(fld.invalid(ip.child("default").key(k), mx,
                                        f"default value {df} is greater than max value {mx}"))
            if ratio is not None and ratio.cmp(Quantity("1")) < 0:
                errs.append(fld.invalid(ip.child("maxLimitRequestRatio").key(k), ratio, f"ratio {ratio} is less than 1"))
            if not _is_overcommit_allowed(k) and df is not None and dr is not None and df.cmp(dr) != 0:
                errs.append(fld.invalid(ip.child("defaultRequest").key(k), dr,
                                        f"default value {df} must equal to defaultRequest value {dr} in {k}"))
    return errs


def validate_limit_range_update(new: Any, old: Any) -> ErrorList:
    """Go: the LimitRange strategy's ValidateUpdate (``ValidateLimitRange`` of the new object)."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_limit_range(new))
    return errs


# --- nodes ------------------------------------------------------------------------------------------

def _validate_node_taints(taints: Sequence[Any] | None, path: Path) -> ErrorList:
    errs = ErrorList()
    seen: dict[str, set[str]] = {}
    for i, t in enumerate(taints or []):
        ip = path.index(i)
        errs.extend(om.validate_label_name(t.key, ip.child("key")))
        msgs = names.is_valid_label_value(t.value)
        if msgs:
            errs.append(fld.invalid(ip.child("value"), t.value, ";".join(msgs)))
        if not t.effect:
            errs.append(fld.required(ip.child("effect"), ""))
        elif t.effect not in _TAINT_EFFECTS:
            errs.append(fld.not_supported(ip.child("effect"), t.effect, _TAINT_EFFECTS))
        keys = seen.setdefault(t.effect, set())
        if t.key in keys:
            e = fld.duplicate(ip, t)
            e.detail = "taints must be unique by key and effect pair"
            errs.append(e)
            continue
        keys.add(t.key)
    return errs


def _validate_node_resources(node: Any) -> ErrorList:
    errs = ErrorList()
    for attr in ("capacity", "allocatable"):
        rl = getattr(node.status, attr) or {}
        for k in _sorted(rl):
            errs.extend(validate_resource_quantity_value(k, rl[k], Path("status", attr, k)))
    return errs


def validate_node(node: Any) -> ErrorList:
    """Go: ``ValidateNode`` (taints, status quantities, pod CIDRs). The deprecated JSON
    annotations for taints and preferred-avoid-pods are not parsed."""
    errs = validate_object_meta(node.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    if node.spec.taints:
        errs.extend(_validate_node_taints(node.spec.taints, Path("metadata").child("taints")))
    errs.extend(_validate_node_resources(node))
    cidrs = list(node.spec.pod_cidrs or [])
    if cidrs:
        cp = Path("spec", "podCIDRs")
        for i, c in enumerate(cidrs):
            errs.extend(names.is_valid_cidr(cp.index(i), c))
        if len(cidrs) > 1:
            addrs = [names.parse_ip_sloppy(c.split("/", 1)[0]) for c in cidrs]
            dual = len(cidrs) == 2 and None not in addrs and addrs[0].version != addrs[1].version  # type: ignore[union-attr]
            if not dual:
                errs.append(fld.invalid(cp, cidrs, "may specify no more than one CIDR for each IP family"))
            seen: set[str] = set()
            for i, c in enumerate(cidrs):
                if c in seen:
                    errs.append(fld.duplicate(cp.index(i), c))
                seen.add(c)
    return errs


def validate_node_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateNodeUpdate`` (podCIDRs and providerID only set once; externalID fixed)."""
    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_node_resources(new))
    seen: list[Any] = []
    for i, a in enumerate(new.status.addresses or []):
        if a in seen:
            errs.append(fld.duplicate(Path("status", "addresses").index(i), a))
        seen.append(a)
    old_cidrs, new_cidrs = list(old.spec.pod_cidrs or []), list(new.spec.pod_cidrs or [])
    msg = 'node updates may not change podCIDR except from "" to valid'
    if old_cidrs:
        if len(old_cidrs) != len(new_cidrs):
            errs.append(fld.forbidden(Path("spec", "podCIDRs"), msg))
        else:
            errs.extend(fld.forbidden(Path("spec", "podCIDRs"), msg) for a, b in zip(old_cidrs, new_cidrs) if a != b)
    if old.spec.provider_id and old.spec.provider_id != new.spec.provider_id:
        errs.append(fld.forbidden(Path("spec", "providerID"), 'node updates may not change providerID except from "" '
                                                              "to valid"))
    if new.spec.taints:
        errs.extend(_validate_node_taints(new.spec.taints, Path("metadata").child("taints")))
    if new.spec.do_not_use_external_id != old.spec.do_not_use_external_id:
        errs.append(fld.forbidden(Path("spec", "externalID"), "may not be updated"))
    return errs


# --- Events (events.go) ---

REPORTING_INSTANCE_LENGTH_LIMIT = 128
ACTION_LENGTH_LIMIT = 128
REASON_LENGTH_LIMIT = 128
NOTE_LENGTH_LIMIT = 1024
#: Request versions whose events get only the legacy checks (Go: v1.SchemeGroupVersion and
#: eventsv1beta1.SchemeGroupVersion).
_LENIENT_EVENT_VERSIONS = ("v1", "events.k8s.io/v1beta1")


def _zero_time(t: Any) -> bool:
    return t is None or t.is_zero()


def _legacy_validate_event(event: Any) -> ErrorList:
    """Go: ``legacyValidateEvent``."""
    errs = ErrorList()
    ns = event.metadata.namespace or ""
    inv_ns = event.involved_object.namespace or ""
    ip = Path("involvedObject", "namespace")
    if _zero_time(event.event_time):
        if not inv_ns:
            if ns not in ("", "default"):
                errs.append(fld.invalid(ip, inv_ns, "does not match event.namespace"))
        elif ns != inv_ns:
            errs.append(fld.invalid(ip, inv_ns, "does not match event.namespace"))
    else:
        if not inv_ns and ns not in ("default", "kube-system"):
            errs.append(fld.invalid(ip, inv_ns, "does not match event.namespace"))
        rc = event.reporting_controller or ""
        if not rc:
            errs.append(fld.required(Path("reportingController"), ""))
        errs.extend(fld.invalid(Path("reportingController"), rc, m) for m in names.is_qualified_name(rc))
        for value, path_name, limit in ((event.reporting_instance, "reportingInstance", REPORTING_INSTANCE_LENGTH_LIMIT),
                                        (event.action, "action", ACTION_LENGTH_LIMIT),
                                        (event.reason, "reason", REASON_LENGTH_LIMIT)):
            if not value:
                errs.append(fld.required(Path(path_name), ""))
            if names.go_len(value or "") > limit:
                errs.append(fld.invalid(Path(path_name), "", f"can have at most {limit} characters"))
        if names.go_len(event.message or "") > NOTE_LENGTH_LIMIT:
            errs.append(fld.invalid(Path("message"), "", f"can have at most {NOTE_LENGTH_LIMIT} characters"))
    errs.extend(fld.invalid(Path("namespace"), ns, m) for m in names.is_dns1123_subdomain(ns))
    return errs


def _validate_v1_event_series(event: Any) -> ErrorList:
    errs = ErrorList()
    if event.series is not None:
        if event.series.count < 2:
            errs.append(fld.invalid(Path("series.count"), "", "should be at least 2"))
        if _zero_time(event.series.last_observed_time):
            errs.append(fld.required(Path("series.lastObservedTime"), ""))
    return errs


def validate_event(event: Any, request_version: str = "v1") -> ErrorList:
    """Go: ``ValidateEventCreate``. *request_version* is the group/version the request came
    in (``"v1"`` for the core API, ``"events.k8s.io/v1"``...): the core v1 and
    events.k8s.io/v1beta1 APIs get only the legacy checks, newer ones the strict ones."""
    errs = _legacy_validate_event(event)
    if request_version in _LENIENT_EVENT_VERSIONS:
        return errs
    errs.extend(validate_object_meta(event.metadata, True, names.name_is_dns_subdomain, Path("metadata")))
    errs.extend(_validate_v1_event_series(event))
    if _zero_time(event.event_time):
        errs.append(fld.required(Path("eventTime"), ""))
    if event.type not in ("Normal", "Warning"):
        errs.append(fld.invalid(Path("type"), "", f"has invalid value: {event.type}"))
    if not _zero_time(event.first_timestamp):
        errs.append(fld.invalid(Path("firstTimestamp"), "", "needs to be unset"))
    if not _zero_time(event.last_timestamp):
        errs.append(fld.invalid(Path("lastTimestamp"), "", "needs to be unset"))
    if event.count:
        errs.append(fld.invalid(Path("count"), "", "needs to be unset"))
    if event.source is not None and (event.source.component or event.source.host):
        errs.append(fld.invalid(Path("source"), "", "needs to be unset"))
    return errs


def validate_event_update(new: Any, old: Any, request_version: str = "v1") -> ErrorList:
    """Go: ``ValidateEventUpdate`` (strict versions: most fields immutable)."""
    errs = _legacy_validate_event(new)
    if request_version in _LENIENT_EVENT_VERSIONS:
        return errs
    errs.extend(validate_object_meta_update(new.metadata, old.metadata, Path("metadata")))
    if new.series != old.series:
        errs.extend(_validate_v1_event_series(new))
    for attr, json_name in (("involved_object", "involvedObject"), ("reason", "reason"), ("message", "message"),
                            ("source", "source"), ("first_timestamp", "firstTimestamp"),
                            ("last_timestamp", "lastTimestamp"), ("count", "count"), ("reason", "reason"),
                            ("type", "type"), ("event_time", "eventTime"), ("action", "action"),
                            ("related", "related"), ("reporting_controller", "reportingController"),
                            ("reporting_instance", "reportingInstance")):
        errs.extend(validate_immutable_field(getattr(new, attr), getattr(old, attr), Path(json_name)))
    return errs
