"""Validation of the resource.k8s.io group's internal objects (Go: k8s.io/kubernetes
pkg/apis/resource/validation/validation.go): DeviceClass, ResourceClaim (create, update,
``/status``), ResourceClaimTemplate and ResourceSlice.

Device requests (``exactly`` or ``firstAvailable``), selectors, allocation modes, tolerations,
constraints, opaque configuration and request references are checked with Go's paths and
texts. CEL selector expressions are checked for presence, length and syntax
(:mod:`kcodec.api._celsyntax`); Go's type checks and cost limit are not reproduced. Capacity requests
(DRAConsumableCapacity) and the request policies of multi-allocatable device capacities
are not validated; list-valued device attributes (``ints``, ``bools``, ``strings``, ``versions``) count as
the attribute's one value but their elements are not checked.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterable

from kcodec.api._celsyntax import cel_syntax_error
from kcodec.api.core.validation import validate_csi_driver_name
from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "CEL_SELECTOR_EXPRESSION_MAX_LENGTH",
    "DEVICE_CONFIG_MAX_SIZE",
    "DEVICE_CONSTRAINTS_MAX_SIZE",
    "DEVICE_REQUESTS_MAX_SIZE",
    "DEVICE_SELECTORS_MAX_SIZE",
    "FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE",
    "OPAQUE_PARAMETERS_MAX_LENGTH",
    "RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE",
    "validate_device_class",
    "validate_device_class_update",
    "validate_resource_claim",
    "validate_resource_claim_status_update",
    "validate_resource_claim_template",
    "validate_resource_claim_template_update",
    "validate_resource_claim_update",
    "validate_resource_slice",
    "validate_resource_slice_update",
]

#: pkg/apis/resource types.go.
DEVICE_REQUESTS_MAX_SIZE = 32
ALLOCATION_RESULTS_MAX_SIZE = 32
DEVICE_CONSTRAINTS_MAX_SIZE = 32
DEVICE_CONFIG_MAX_SIZE = 32
DEVICE_SELECTORS_MAX_SIZE = 32
FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE = 8
CEL_SELECTOR_EXPRESSION_MAX_LENGTH = 10 * 1024
OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024
DEVICE_MAX_ID_LENGTH = 32
POOL_NAME_MAX_LENGTH = 253
RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE = 256

_REQUEST_REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
_TOLERATION_OPERATORS = ["Equal", "Exists"]
_TAINT_EFFECTS = ["NoExecute", "NoSchedule", "None"]

Validator = Callable[[Any, Path], ErrorList]


# ------------------------------------------------------------------ Go's helpers

def _dns1123_label(value: str, path: Path) -> ErrorList:
    """Go core ``ValidateDNS1123Label``."""
    return ErrorList(fld.invalid(path, value, m) for m in names.is_dns1123_label(value))


def _dns1123_subdomain(value: str, path: Path) -> ErrorList:
    """Go core ``ValidateDNS1123Subdomain``."""
    return ErrorList(fld.invalid(path, value, m) for m in names.is_dns1123_subdomain(value))


def _pool_name(name: str, path: Path) -> ErrorList:
    """Go ``validatePoolName``: DNS subdomains separated by slashes."""
    errs = ErrorList()
    if not name:
        errs.append(fld.required(path, ""))
        return errs
    if names.go_len(name) > POOL_NAME_MAX_LENGTH:
        errs.append(fld.too_long(path, "", POOL_NAME_MAX_LENGTH))
    for part in name.split("/"):
        errs.extend(_dns1123_subdomain(part, path))
    return errs


def _items(items: list[Any] | None, validate: Validator, path: Path) -> ErrorList:
    errs = ErrorList()
    for i, item in enumerate(items or ()):
        errs.extend(validate(item, path.index(i)))
    return errs


def _validate_slice(items: list[Any] | None, max_size: int, validate: Validator, path: Path) -> ErrorList:
    """Go ``validateSlice``: too many items short-circuits the item checks."""
    items = list(items or ())
    if max_size >= 0 and len(items) > max_size:
        return ErrorList([fld.too_many(path, len(items), max_size)])
    return _items(items, validate, path)


def _validate_set(items: list[Any] | None, max_size: int, validate: Validator, key: Callable[[Any], Any],
                  path: Path) -> ErrorList:
    """Go ``validateSet``: as validateSlice, then duplicates by key."""
    items = list(items or ())
    if max_size >= 0 and len(items) > max_size:
        return ErrorList([fld.too_many(path, len(items), max_size)])
    errs = _items(items, validate, path)
    seen: set[Any] = set()
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            errs.append(fld.duplicate(path.index(i), k))
        else:
            seen.add(k)
    return errs


def _c_identifier(value: str, path: Path) -> ErrorList:
    errs = ErrorList()
    if names.go_len(value) > DEVICE_MAX_ID_LENGTH:
        errs.append(fld.too_long(path, "", DEVICE_MAX_ID_LENGTH))
    errs.extend(fld.invalid(path, value, m) for m in names.is_c_identifier(value))
    return errs


def _qualified_name(name: str, path: Path) -> ErrorList:
    """Go ``validateQualifiedName``: a C identifier, optionally after ``<domain>/``."""
    errs = ErrorList()
    parts = name.split("/")
    if len(parts) == 1:
        errs.extend(_c_identifier(parts[0], path))
    elif len(parts) == 2:
        if not parts[0]:
            errs.append(fld.invalid(path, "", "the domain must not be empty"))
        else:
            errs.extend(validate_csi_driver_name(parts[0], path))
        if not parts[1]:
            errs.append(fld.invalid(path, "", "the name must not be empty"))
        else:
            errs.extend(_c_identifier(parts[1], path))
    return errs


def _fully_qualified_name(name: str, path: Path) -> ErrorList:
    """Go ``validateFullyQualifiedName``."""
    errs = _qualified_name(name, path)
    if "/" not in name:
        errs.append(fld.invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash"))
    return errs


def _raw_extension(raw: Any, path: Path, stored: bool, max_length: int) -> ErrorList:
    """Go ``validateRawExtension``: a JSON object of at most ``max_length`` bytes (new data)."""
    from kcodec import gojson

    data = getattr(raw, "raw", None) if raw is not None else None
    if data is None and raw is not None and getattr(raw, "object", None) is not None:
        data = json.dumps(raw.object).encode()
    data = bytes(data or b"")
    errs = ErrorList()
    if not data:
        errs.append(fld.required(path, ""))
        return errs
    if not stored and len(data) > max_length:
        errs.append(fld.too_long(path, "", max_length))
        return errs
    try:
        gojson.validate(data)
    except gojson.JSONSyntaxError as exc:
        errs.append(fld.invalid(path, "<value omitted>", f"error parsing data as JSON: {exc.msg}"))
        return errs
    value = json.loads(data)
    if value is None:
        errs.append(fld.required(path, ""))
    elif not isinstance(value, dict):
        errs.append(fld.invalid(path, "<value omitted>", "must be a valid JSON object"))
    return errs


# ------------------------------------------------------------------ requests

class _RequestNames(dict):
    """Go ``requestNames``: request name -> its subrequest names (None without)."""

    def has(self, ref: str) -> bool:
        segments = ref.split("/")
        if len(segments) > 2 or segments[0] not in self:
            return False
        if len(segments) == 1:
            return True
        return segments[1] in (self[segments[0]] or ())


def _gather_request_names(claim: Any) -> _RequestNames:
    out = _RequestNames()
    for r in (claim.requests if claim is not None else None) or ():
        out[r.name] = {s.name for s in r.first_available} if r.first_available else None
    return out


def _request_name_ref(name: str, path: Path, request_names: _RequestNames) -> ErrorList:
    """Go ``validateRequestNameRef``."""
    errs = ErrorList()
    segments = name.split("/")
    if len(segments) > 2:
        errs.append(fld.invalid(path, name, _REQUEST_REF))
        return errs
    for s in segments:
        errs.extend(_dns1123_label(s, path))
    if not request_names.has(name):
        errs.append(fld.invalid(path, name, _REQUEST_REF))
    return errs


def _selector(sel: Any, path: Path) -> ErrorList:
    """Go ``validateSelector`` without CEL compilation (see the module docstring)."""
    errs = ErrorList()
    if sel.cel is None:
        errs.append(fld.required(path.child("cel"), ""))
        return errs
    expr = sel.cel.expression or ""
    ep = path.child("cel", "expression")
    if names.go_len(expr) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        errs.append(fld.too_long(ep, "", CEL_SELECTOR_EXPRESSION_MAX_LENGTH))
    elif not expr.strip():
        # Go's CEL compiler: ErrorTypeRequired "expression must not be empty".
        errs.append(fld.required(ep, "expression must not be empty"))
    else:
        why = cel_syntax_error(expr)
        if why is not None:
            errs.append(fld.invalid(ep, expr, why))
    return errs


def _selectors(selectors: list[Any] | None, path: Path) -> ErrorList:
    return _validate_slice(selectors, DEVICE_SELECTORS_MAX_SIZE, _selector, path)


def _allocation_mode(mode: str, count: int, mode_path: Path, count_path: Path) -> ErrorList:
    """Go ``validateDeviceAllocationMode``."""
    errs = ErrorList()
    if mode == "All":
        if count != 0:
            errs.append(fld.invalid(count_path, int(count), "must not be specified when allocationMode is 'All'"))
    elif mode == "ExactCount":
        if count <= 0:
            errs.append(fld.invalid(count_path, int(count), "must be greater than zero"))
    else:
        errs.append(fld.not_supported(mode_path, mode, ["All", "ExactCount"]))
    return errs


def _device_class_ref(name: str, path: Path) -> ErrorList:
    if not name:
        return ErrorList([fld.required(path, "")])
    return _dns1123_subdomain(name, path)


def _label_value(value: str, path: Path) -> ErrorList:
    return ErrorList(fld.invalid(path, value, m) for m in names.is_valid_label_value(value))


def _toleration(t: Any, path: Path) -> ErrorList:
    """Go ``validateDeviceToleration``."""
    errs = ErrorList()
    if t.key:
        errs.extend(om.validate_label_name(t.key, path.child("key")))
    op = t.operator or ""
    if op == "Exists":
        if t.value:
            errs.append(fld.invalid(path.child("value"), t.value, "must be empty for operator `Exists`"))
    elif op == "Equal":
        errs.extend(_label_value(t.value or "", path.child("value")))
    elif op == "":
        errs.append(fld.required(path.child("operator"), ""))
    else:
        errs.append(fld.not_supported(path.child("operator"), op, _TOLERATION_OPERATORS))
    if t.effect and t.effect not in _TAINT_EFFECTS:
        errs.append(fld.not_supported(path.child("effect"), t.effect, _TAINT_EFFECTS))
    return errs


def _exact_or_sub(req: Any, path: Path) -> ErrorList:
    """The fields ExactDeviceRequest and DeviceSubRequest share (Go validateExactDeviceRequest)."""
    errs = _device_class_ref(req.device_class_name or "", path.child("deviceClassName"))
    errs.extend(_selectors(req.selectors, path.child("selectors")))
    errs.extend(_allocation_mode(req.allocation_mode or "", int(req.count or 0), path.child("allocationMode"),
                                 path.child("count")))
    errs.extend(_items(req.tolerations, _toleration, path.child("tolerations")))
    return errs


def _sub_request(sub: Any, path: Path) -> ErrorList:
    """Go ``validateDeviceSubRequest``."""
    errs = _dns1123_label(sub.name or "", path.child("name"))
    errs.extend(_exact_or_sub(sub, path))
    return errs


def _device_request(req: Any, path: Path) -> ErrorList:
    """Go ``validateDeviceRequest``: exactly one of ``exactly`` and ``firstAvailable``."""
    errs = _dns1123_label(req.name or "", path.child("name"))
    has_first, has_exactly = bool(req.first_available), req.exactly is not None
    if not has_first and not has_exactly:
        errs.append(fld.required(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif has_first and has_exactly:
        errs.append(fld.invalid(path, None, "exactly one of `exactly` or `firstAvailable` is required, "
                                            "but multiple fields are set"))
    elif has_first:
        errs.extend(_validate_set(req.first_available, FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE, _sub_request,
                                  lambda s: s.name, path.child("firstAvailable")))
    else:
        errs.extend(_exact_or_sub(req.exactly, path.child("exactly")))
    return errs


def _opaque(config: Any, path: Path, stored: bool) -> ErrorList:
    errs = ErrorList()
    if config.opaque is None:
        errs.append(fld.required(path.child("opaque"), ""))
        return errs
    op = path.child("opaque")
    errs.extend(validate_csi_driver_name(config.opaque.driver or "", op.child("driver")))
    errs.extend(_raw_extension(config.opaque.parameters, op.child("parameters"), stored, OPAQUE_PARAMETERS_MAX_LENGTH))
    return errs


def _request_refs(refs: Iterable[str] | None, path: Path, request_names: _RequestNames) -> ErrorList:
    return _validate_set(list(refs or ()), DEVICE_REQUESTS_MAX_SIZE,
                         lambda n, p: _request_name_ref(n, p, request_names), lambda n: n, path)


def _constraint(c: Any, path: Path, request_names: _RequestNames) -> ErrorList:
    """Go ``validateDeviceConstraint`` (DRAConsumableCapacity off: matchAttribute required
    unless distinctAttribute is given)."""
    errs = _request_refs(c.requests, path.child("requests"), request_names)
    if c.match_attribute is not None:
        errs.extend(_fully_qualified_name(c.match_attribute, path.child("matchAttribute")))
    elif c.distinct_attribute is not None:
        errs.extend(_fully_qualified_name(c.distinct_attribute, path.child("distinctAttribute")))
    else:
        errs.append(fld.required(path.child("matchAttribute"), ""))
    return errs


def _device_claim(claim: Any, path: Path, stored: bool) -> ErrorList:
    """Go ``validateDeviceClaim``."""
    request_names = _gather_request_names(claim)
    errs = _validate_set(claim.requests, DEVICE_REQUESTS_MAX_SIZE, _device_request, lambda r: r.name,
                         path.child("requests"))
    errs.extend(_validate_slice(claim.constraints, DEVICE_CONSTRAINTS_MAX_SIZE,
                                lambda c, p: _constraint(c, p, request_names), path.child("constraints")))

    def config(c: Any, p: Path) -> ErrorList:
        e = _request_refs(c.requests, p.child("requests"), request_names)
        e.extend(_opaque(c.device_configuration, p, stored))
        return e

    errs.extend(_validate_slice(claim.config, DEVICE_CONFIG_MAX_SIZE, config, path.child("config")))
    return errs


def _claim_spec(spec: Any, path: Path, stored: bool) -> ErrorList:
    from kcodec.api.resource import internal

    return _device_claim(spec.devices or internal.DeviceClaim(), path.child("devices"), stored)


# ------------------------------------------------------------------ ResourceClaim

def validate_resource_claim(claim: Any) -> ErrorList:
    """Go: ``ValidateResourceClaim``."""
    errs = om.validate_object_meta(claim.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_claim_spec(claim.spec, Path("spec"), False))
    return errs


def validate_resource_claim_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateResourceClaimUpdate``: metadata, and the spec is immutable."""
    errs = om.validate_object_meta(new.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata")))
    errs.extend(om.validate_immutable_field(new.spec, old.spec, Path("spec")))
    return errs


def _consumer_ref(ref: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    for attr, name in (("resource", "resource"), ("name", "name"), ("uid", "uid")):
        if not getattr(ref, attr):
            errs.append(fld.required(path.child(name), ""))
    return errs


def _allocation_result(allocation: Any, path: Path, request_names: _RequestNames) -> ErrorList:
    """Go ``validateAllocationResult`` for new results: request references, drivers,
    pools, devices, configuration sources, the node selector."""
    from kcodec.api.core import validation as core

    errs = ErrorList()
    devices = allocation.devices
    dp = path.child("devices")
    if devices is not None:
        def result(r: Any, p: Path) -> ErrorList:
            e = _request_name_ref(r.request or "", p.child("request"), request_names)
            e.extend(validate_csi_driver_name(r.driver or "", p.child("driver")))
            e.extend(_pool_name(r.pool or "", p.child("pool")))
            e.extend(_dns1123_label(r.device or "", p.child("device")))
            e.extend(_binding_parameters(r.binding_conditions, r.binding_failure_conditions, p))
            if r.share_id is not None:
                e.extend(_uid(r.share_id, p.child("shareID")))
            return e

        def config(c: Any, p: Path) -> ErrorList:
            e = ErrorList()
            source = c.source or ""
            if source == "":
                e.append(fld.required(p.child("source"), ""))
            elif source not in ("FromClaim", "FromClass"):
                e.append(fld.not_supported(p.child("source"), source, ["FromClaim", "FromClass"]))
            e.extend(_request_refs(c.requests, p.child("requests"), request_names))
            e.extend(_opaque(c.device_configuration, p, False))
            return e

        errs.extend(_validate_slice(devices.results, ALLOCATION_RESULTS_MAX_SIZE, result, dp.child("results")))
        errs.extend(_validate_slice(devices.config, 2 * DEVICE_CONFIG_MAX_SIZE, config, dp.child("config")))
    if allocation.node_selector is not None:
        errs.extend(core.validate_node_selector(allocation.node_selector, path.child("nodeSelector")))
    return errs


def validate_resource_claim_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateResourceClaimStatusUpdate``: consumers (unique by uid, at most 256,
    only while allocated, none added while the claim is being deleted) and the allocation
    (new results validated, a set allocation immutable) and the drivers' device statuses."""
    from kcodec.api.resource import internal

    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    status = new.status or internal.ResourceClaimStatus()
    old_status = old.status or internal.ResourceClaimStatus()
    sp = Path("status")
    errs.extend(_validate_set(status.reserved_for, RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE, _consumer_ref,
                              lambda r: r.uid, sp.child("reservedFor")))
    if status.reserved_for:
        if status.allocation is None:
            errs.append(fld.forbidden(sp.child("reservedFor"), "may not be specified when `allocated` is not set"))
        elif new.metadata.deletion_timestamp is not None:
            old_keys = {(r.api_group, r.resource, r.name, r.uid) for r in old_status.reserved_for or ()}
            if any((r.api_group, r.resource, r.name, r.uid) not in old_keys for r in status.reserved_for):
                errs.append(fld.forbidden(sp.child("reservedFor"), "new entries may not be added while "
                                                                   "`deallocationRequested` or `deletionTimestamp` are set"))
    allocated = set()
    if status.allocation is not None and status.allocation.devices is not None:
        allocated = {(r.driver, r.pool, r.device, r.share_id) for r in status.allocation.devices.results or ()}
    errs.extend(_validate_set(status.devices, -1, lambda d, p: _device_status(d, p, allocated),
                              lambda d: (d.driver, d.pool, d.device, d.share_id), sp.child("devices")))
    if old_status.allocation is not None and status.allocation is not None:
        errs.extend(om.validate_immutable_field(status.allocation, old_status.allocation, sp.child("allocation")))
    elif status.allocation is not None:
        errs.extend(_allocation_result(status.allocation, sp.child("allocation"),
                                       _gather_request_names(new.spec.devices if new.spec is not None else None)))
    return errs


#: pkg/apis/resource types.go.
ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS = 8
ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH = 10 * 1024
NETWORK_DEVICE_DATA_MAX_IPS = 16
NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH = 256
NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH = 128


class _DeviceID:
    """structured ``SharedDeviceID``: printed (Stringer) as ``driver/pool/device``, with
    ``/shareID`` when shared."""

    __slots__ = ("text",)

    def __init__(self, driver: str, pool: str, device: str, share_id: str | None) -> None:
        self.text = f"{driver}/{pool}/{device}" + (f"/{share_id}" if share_id else "")

    def __str__(self) -> str:
        return self.text


def is_valid_interface_address(path: Path, value: str) -> ErrorList:
    """apimachinery ``IsValidInterfaceAddress``: an address with its prefix length, in
    canonical form."""
    import ipaddress

    addr, sep, bits = value.partition("/")
    ip = names.parse_ip_sloppy(addr) if sep else None
    width = 128 if ":" in addr else 32
    if ip is None or not bits.isascii() or not bits.isdigit() or len(bits) > 3 or int(bits) > width:
        return ErrorList([fld.invalid(path, value, "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or "
                                                   "2001:db8::1/64)")])
    mask = int(bits)
    if isinstance(ip, ipaddress.IPv4Address) and mask > 32:
        mask -= 96
    canonical = f"{ip}/{mask}"
    if value != canonical:
        return ErrorList([fld.invalid(path, value, f"must be in canonical form ({_quote(canonical)})")])
    return ErrorList()


def _quote(s: str) -> str:
    from kcodec import gofmt

    return gofmt.quote(s)


def _device_status(d: Any, path: Path, allocated: set[tuple[Any, ...]]) -> ErrorList:
    """Go ``validateDeviceStatus``."""
    errs = validate_csi_driver_name(d.driver or "", path.child("driver"))
    errs.extend(_pool_name(d.pool or "", path.child("pool")))
    errs.extend(_dns1123_label(d.device or "", path.child("device")))
    if d.share_id is not None:
        errs.extend(_uid(d.share_id, path.child("shareID")))
    if (d.driver, d.pool, d.device, d.share_id) not in allocated:
        errs.append(fld.invalid(path, _DeviceID(d.driver, d.pool, d.device, d.share_id),
                                "must be an allocated device in the claim"))
    conditions = list(d.conditions or ())
    if len(conditions) > ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS:
        errs.append(fld.too_many(path.child("conditions"), len(conditions), ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS))
    errs.extend(om.validate_conditions(conditions, path.child("conditions")))
    if d.data is not None and getattr(d.data, "raw", None):
        errs.extend(_raw_extension(d.data, path.child("data"), False, ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH))
    nd = d.network_data
    if nd is not None:
        np_ = path.child("networkData")
        if names.go_len(nd.interface_name or "") > NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH:
            errs.append(fld.too_long(np_.child("interfaceName"), "", NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH))
        if names.go_len(nd.hardware_address or "") > NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH:
            errs.append(fld.too_long(np_.child("hardwareAddress"), "", NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH))
        errs.extend(_validate_set(nd.ips, NETWORK_DEVICE_DATA_MAX_IPS, lambda a, p: is_valid_interface_address(p, a),
                                  lambda a: a, np_.child("ips")))
    return errs


def _uid(uid: str, path: Path) -> ErrorList:
    """Go ``validateUID``: an RFC 4122 UUID in its lowercase 36-character form."""
    import uuid

    try:
        uuid.UUID(uid)
    except ValueError:
        # github.com/google/uuid Validate's texts: the accepted lengths, then the format.
        why = "invalid UUID format" if len(uid) in (32, 36, 38, 45) else f"invalid UUID length: {len(uid)}"
        return ErrorList([fld.invalid(path, uid, f"error validating uid: {why}")])
    if len(uid) != 36 or uid != uid.lower():
        return ErrorList([fld.invalid(path, uid, "uid must be in RFC 4122 normalized form, "
                                                 "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal "
                                                 "characters")])
    return ErrorList()


# ------------------------------------------------------------------ DeviceClass

def _device_class_spec(spec: Any, old: Any | None, path: Path) -> ErrorList:
    """Go ``validateDeviceClassSpec`` (unchanged configuration counts as stored)."""
    from kcodec.api.core.validation import _is_extended

    errs = _validate_slice(spec.selectors, DEVICE_SELECTORS_MAX_SIZE, _selector, path.child("selectors"))
    stored = old is not None and (spec.config or []) == (old.config or [])
    errs.extend(_validate_slice(spec.config, DEVICE_CONFIG_MAX_SIZE,
                                lambda c, p: _opaque(c.device_configuration, p, stored), path.child("config")))
    ern = spec.extended_resource_name
    if ern is not None and not _is_extended(ern):
        errs.append(fld.invalid(path.child("extendedResourceName"), ern, "must be a valid extended resource name"))
    return errs


def validate_device_class(dc: Any) -> ErrorList:
    """Go: ``ValidateDeviceClass``."""
    errs = om.validate_object_meta(dc.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_device_class_spec(dc.spec, None, Path("spec")))
    return errs


def validate_device_class_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateDeviceClassUpdate``."""
    errs = om.validate_object_meta(new.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata")))
    errs.extend(_device_class_spec(new.spec, old.spec, Path("spec")))
    return errs


# ------------------------------------------------------------------ ResourceClaimTemplate

def validate_resource_claim_template(t: Any) -> ErrorList:
    """Go: ``ValidateResourceClaimTemplate``: the claim's metadata may carry labels and
    annotations only."""
    from kcodec.api.core import validation as core
    from kcodec.api.meta import v1 as metav1

    errs = om.validate_object_meta(t.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    sp = Path("spec")
    errs.extend(core.validate_template_object_meta(t.spec.metadata or metav1.ObjectMeta(), sp.child("metadata")))
    errs.extend(_claim_spec(t.spec.spec, sp.child("spec"), False))
    return errs


def validate_resource_claim_template_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateResourceClaimTemplateUpdate``: the spec is immutable."""
    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(om.validate_immutable_field(new.spec, old.spec, Path("spec")))
    return errs


# ------------------------------------------------------------------ ResourceSlice

#: pkg/apis/resource types.go.
RESOURCE_SLICE_MAX_DEVICES = 128
RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS = 64
RESOURCE_SLICE_MAX_COUNTER_SETS = 8
RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET = 32
RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE = 2
RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION = 32
RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH = 64
DEVICE_TAINTS_MAX_LENGTH = 16
BINDING_CONDITIONS_MAX_SIZE = 4
_ATTRIBUTE_KEY_MAX_LENGTH = 63 + 1 + DEVICE_MAX_ID_LENGTH

_NUM = r"(0|[1-9]\d*)"
_PRE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
#: validation.go ``semverRe`` (semver.org 2.0.0).
_SEMVER = re.compile(_NUM + r"\." + _NUM + r"\." + _NUM + r"(-" + _PRE + r"(\." + _PRE + r")*)?"
                     + r"(\+" + _BUILD + r"(\." + _BUILD + r")*)?", re.ASCII)


def _truncate(key: str, max_len: int) -> str:
    """Go ``truncateIfTooLong``: long map keys shortened in the middle for field paths."""
    max_len = max(max_len, 16)
    if len(key) <= max_len:
        return key
    remaining = max_len - 3
    return key[:(remaining + 1) // 2] + "..." + key[len(key) - remaining // 2:]


def _validate_map(m: dict[str, Any] | None, max_size: int, key_len: int, validate_key: Validator,
                  validate_item: Validator, path: Path) -> ErrorList:
    """Go ``validateMap`` (keys in sorted order: Go's map order is random)."""
    m = m or {}
    if max_size >= 0 and len(m) > max_size:
        return ErrorList([fld.too_many(path, len(m), max_size)])
    errs = ErrorList()
    for key in sorted(m):
        kp = path.key(_truncate(key, key_len))
        errs.extend(validate_key(key, kp))
        errs.extend(validate_item(m[key], kp))
    return errs


def _node_name(name: str, path: Path) -> ErrorList:
    return ErrorList(fld.invalid(path, name, m) for m in names.name_is_dns_subdomain(name, False))


def _attribute(a: Any, path: Path) -> ErrorList:
    """Go ``validateDeviceAttribute``: exactly one value."""
    errs = ErrorList()
    n = 0
    if a.bool_value is not None:
        n += 1
    if a.int_value is not None:
        n += 1
    if a.string_value is not None:
        n += 1
        if names.go_len(a.string_value) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
            errs.append(fld.too_long(path.child("string"), "", DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH))
    if a.version_value is not None:
        n += 1
        vp = path.child("version")
        if _SEMVER.fullmatch(a.version_value) is None:
            errs.append(fld.invalid(vp, a.version_value, "must be a string compatible with semver.org spec 2.0.0"))
        if names.go_len(a.version_value) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
            errs.append(fld.too_long(vp, "", DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH))
    n += sum(1 for v in (a.int_values, a.bool_values, a.string_values, getattr(a, "version_values", None))
             if v is not None)
    if n == 0:
        errs.append(fld.invalid(path, "", "exactly one value must be specified"))
    elif n > 1:
        errs.append(fld.invalid(path, a, "exactly one value must be specified"))
    return errs


def _taint(t: Any, path: Path) -> ErrorList:
    """Go ``validateDeviceTaint`` for a new taint."""
    errs = om.validate_label_name(t.key or "", path.child("key"))
    if t.value:
        errs.extend(_label_value(t.value, path.child("value")))
    if not t.effect:
        errs.append(fld.required(path.child("effect"), ""))
    elif t.effect not in _TAINT_EFFECTS:
        errs.append(fld.not_supported(path.child("effect"), t.effect, _TAINT_EFFECTS))
    return errs


def _no_check(value: Any, path: Path) -> ErrorList:
    return ErrorList()


def _counter_consumption(c: Any, path: Path) -> ErrorList:
    """Go ``validateDeviceCounterConsumption``."""
    errs = ErrorList()
    if not c.counter_set:
        errs.append(fld.required(path.child("counterSet"), ""))
    else:
        errs.extend(_dns1123_label(c.counter_set, path.child("counterSet")))
    if not c.counters:
        errs.append(fld.required(path.child("counters"), ""))
    else:
        errs.extend(_validate_map(c.counters, RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION, 63,
                                  _dns1123_label, _no_check, path.child("counters")))
    return errs


def _binding_parameters(conds: list[str] | None, failures: list[str] | None, path: Path) -> ErrorList:
    """Go ``validateDeviceBindingParameters``."""
    raw_conds, raw_failures = conds, failures  # Go prints a nil list as null
    conds, failures = list(conds or ()), list(failures or ())
    cp, fp = path.child("bindingConditions"), path.child("bindingFailureConditions")
    errs = _validate_slice(conds, BINDING_CONDITIONS_MAX_SIZE, om.validate_label_name, cp)
    errs.extend(_validate_slice(failures, BINDING_CONDITIONS_MAX_SIZE, om.validate_label_name, fp))
    seen: set[str] = set()
    for i, c in enumerate(conds):
        if c in seen:
            errs.append(fld.duplicate(cp.index(i), c))
        seen.add(c)
    seen_f: set[str] = set()
    for i, c in enumerate(failures):
        if c in seen_f:
            errs.append(fld.duplicate(fp.index(i), c))
        seen_f.add(c)
        if c in seen:
            errs.append(fld.invalid(fp.index(i), c, "bindingFailureConditions must not overlap with bindingConditions"))
    if not conds and failures:
        errs.append(fld.invalid(cp, raw_conds, "bindingConditions are required to use bindingFailureConditions"))
    if not failures and conds:
        errs.append(fld.invalid(fp, raw_failures, "bindingFailureConditions are required to use bindingConditions"))
    return errs


def _device(d: Any, old: Any | None, path: Path, per_device: bool | None) -> ErrorList:
    """Go ``validateDevice``."""
    errs = _dns1123_label(d.name or "", path.child("name"))
    n = len(d.attributes or {}) + len(d.capacity or {})
    if n > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
        errs.append(fld.invalid(path, n, "the total number of attributes and capacities must not exceed "
                                         f"{RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}"))
    errs.extend(_validate_map(d.attributes, -1, _ATTRIBUTE_KEY_MAX_LENGTH, _qualified_name, _attribute,
                              path.child("attributes")))
    multi = bool(d.allow_multiple_allocations)

    def capacity(c: Any, p: Path) -> ErrorList:
        if c.request_policy is not None and not multi:
            return ErrorList([fld.forbidden(p.child("requestPolicy"), "allowMultipleAllocations must be true")])
        return ErrorList()

    errs.extend(_validate_map(d.capacity, -1, _ATTRIBUTE_KEY_MAX_LENGTH, _qualified_name, capacity,
                              path.child("capacity")))
    if old is None or (old.taints or []) != (d.taints or []):
        errs.extend(_validate_slice(d.taints, DEVICE_TAINTS_MAX_LENGTH, _taint, path.child("taints")))
    errs.extend(_validate_set(d.consumes_counters, RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
                              _counter_consumption, lambda c: c.counter_set, path.child("consumesCounters")))
    if per_device:
        set_fields = []
        if d.node_name is not None:
            if d.node_name:
                set_fields.append("`nodeName`")
                errs.extend(_node_name(d.node_name, path.child("nodeName")))
            else:
                errs.append(fld.invalid(path.child("nodeName"), d.node_name, "must not be empty"))
        if d.node_selector is not None:
            from kcodec.api.core import validation as core

            set_fields.append("`nodeSelector`")
            errs.extend(core.validate_node_selector(d.node_selector, path.child("nodeSelector")))
        if d.all_nodes is not None:
            if d.all_nodes:
                set_fields.append("`allNodes`")
            else:
                errs.append(fld.invalid(path.child("allNodes"), d.all_nodes, "must be either unset or set to true"))
        why = ("exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` "
               "is set to true in the ResourceSlice spec")
        if not set_fields:
            errs.append(fld.required(path, why))
        elif len(set_fields) > 1:
            errs.append(fld.invalid(path, "{" + ", ".join(set_fields) + "}", why))
    elif d.node_name is not None or d.node_selector is not None or d.all_nodes is not None:
        errs.append(fld.invalid(path, None, "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                                            "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"))
    errs.extend(_binding_parameters(d.binding_conditions, d.binding_failure_conditions, path))
    return errs


def _counter_set(cs: Any, path: Path) -> ErrorList:
    """Go ``validateCounterSet``."""
    errs = ErrorList()
    if not cs.name:
        errs.append(fld.required(path.child("name"), ""))
    else:
        errs.extend(_dns1123_label(cs.name, path.child("name")))
    if not cs.counters:
        errs.append(fld.required(path.child("counters"), ""))
    else:
        errs.extend(_validate_map(cs.counters, RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET, 63, _dns1123_label,
                                  _no_check, path.child("counters")))
    return errs


def _resource_slice_spec(spec: Any, old: Any | None, path: Path) -> ErrorList:
    """Go ``validateResourceSliceSpec``."""
    from kcodec.api.core import validation as core
    from kcodec.api.resource import internal

    pool = spec.pool or internal.ResourcePool()
    errs = validate_csi_driver_name(spec.driver or "", path.child("driver"))
    pp = path.child("pool")
    errs.extend(_pool_name(pool.name or "", pp.child("name")))
    if pool.resource_slice_count <= 0:
        errs.append(fld.invalid(pp.child("resourceSliceCount"), int(pool.resource_slice_count),
                                "must be greater than zero"))
    if pool.generation < 0:
        errs.append(fld.invalid(pp.child("generation"), int(pool.generation), "must be greater than or equal to zero"))
    if old is not None:
        errs.extend(om.validate_immutable_field(pool.name, (old.pool or internal.ResourcePool()).name,
                                                pp.child("name")))
        errs.extend(om.validate_immutable_field(spec.driver, old.driver, path.child("driver")))
        errs.extend(om.validate_immutable_field(spec.node_name, old.node_name, path.child("nodeName")))
    set_fields = []
    if spec.node_name is not None:
        if spec.node_name:
            set_fields.append("`nodeName`")
            errs.extend(_node_name(spec.node_name, path.child("nodeName")))
        else:
            errs.append(fld.invalid(path.child("nodeName"), spec.node_name,
                                    "must be either unset or set to a non-empty string"))
    if spec.node_selector is not None:
        set_fields.append("`nodeSelector`")
        errs.extend(core.validate_node_selector(spec.node_selector, path.child("nodeSelector")))
        terms = list(spec.node_selector.node_selector_terms or ())
        if len(terms) != 1:
            errs.append(fld.invalid(path.child("nodeSelector", "nodeSelectorTerms"), terms,
                                    "must have exactly one node selector term"))
    for attr, name in (("all_nodes", "allNodes"), ("per_device_node_selection", "perDeviceNodeSelection")):
        value = getattr(spec, attr)
        if value is not None:
            if value:
                set_fields.append(f"`{name}`")
            else:
                errs.append(fld.invalid(path.child(name), value, "must be either unset or set to true"))
    one_of = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
    if not set_fields:
        errs.append(fld.required(path, one_of))
    elif len(set_fields) > 1:
        errs.append(fld.invalid(path, "{" + ", ".join(set_fields) + "}", one_of + ", but multiple fields are set"))
    if spec.shared_counters is not None and spec.devices is not None:
        errs.append(fld.invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"))
    devices = list(spec.devices or ())
    max_devices = RESOURCE_SLICE_MAX_DEVICES
    if any(d.taints or d.consumes_counters for d in devices):
        max_devices = RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS
    old_devices = {d.name: d for d in ((old.devices if old is not None else None) or ())}
    errs.extend(_validate_set(devices, max_devices,
                              lambda d, p: _device(d, old_devices.get(d.name), p, spec.per_device_node_selection),
                              lambda d: d.name, path.child("devices")))
    errs.extend(_validate_set(spec.shared_counters, RESOURCE_SLICE_MAX_COUNTER_SETS, _counter_set, lambda c: c.name,
                              path.child("sharedCounters")))
    return errs


def validate_resource_slice(rs: Any) -> ErrorList:
    """Go: ``ValidateResourceSlice``."""
    errs = om.validate_object_meta(rs.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_resource_slice_spec(rs.spec, None, Path("spec")))
    return errs


def validate_resource_slice_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateResourceSliceUpdate``: pool name, driver and node name are immutable."""
    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_resource_slice_spec(new.spec, old.spec, Path("spec")))
    return errs
