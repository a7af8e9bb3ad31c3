"""Validation of the discovery group's internal objects (Go: k8s.io/kubernetes
pkg/apis/discovery/validation/validation.go): EndpointSlice."""
from __future__ import annotations

import ipaddress
from typing import Any

from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = ["validate_endpoint_slice", "validate_endpoint_slice_update"]

_ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"]
_PROTOCOLS = ["SCTP", "TCP", "UDP"]
_MAX_TOPOLOGY_LABELS = 16
_MAX_ADDRESSES = 100
_MAX_PORTS = 100
_MAX_ENDPOINTS = 1000
_MAX_ZONE_HINTS = 8
_MAX_NODE_HINTS = 8


def _ip_family_errs(path: Path, value: str, v4: bool) -> ErrorList:
    """Go: ``IsValidIPv4Address`` / ``IsValidIPv6Address`` (sloppy parsing; an IPv4-mapped
    IPv6 address counts as IPv4, as ``To4`` does)."""
    ip = names.parse_ip_sloppy(value)
    if ip is None or isinstance(ip, ipaddress.IPv4Address) != v4:
        return ErrorList([fld.invalid(path, value, f"must be a valid IPv{4 if v4 else 6} address")])
    return ErrorList()


def _validate_endpoints(endpoints: Any, addr_type: str, path: Path) -> ErrorList:
    from kcodec.api.core import validation as core

    errs = ErrorList()
    endpoints = list(endpoints or [])
    if len(endpoints) > _MAX_ENDPOINTS:
        errs.append(fld.too_many(path, len(endpoints), _MAX_ENDPOINTS))
        return errs
    for i, ep in enumerate(endpoints):
        ip = path.index(i)
        ap = ip.child("addresses")
        addresses = list(ep.addresses or [])
        if not addresses:
            errs.append(fld.required(ap, "must contain at least 1 address"))
        elif len(addresses) > _MAX_ADDRESSES:
            errs.append(fld.too_many(ap, len(addresses), _MAX_ADDRESSES))
        for j, address in enumerate(addresses):
            if addr_type in ("IPv4", "IPv6"):
                errs.extend(_ip_family_errs(ap.index(j), address, addr_type == "IPv4"))
                errs.extend(core._validate_non_special_ip(address, ap.index(j)))
            elif addr_type == "FQDN":
                errs.extend(names.is_fully_qualified_domain_name(ap.index(j), address))
        if ep.node_name is not None:
            errs.extend(fld.invalid(ip.child("nodeName"), ep.node_name, m)
                        for m in names.name_is_dns_subdomain(ep.node_name, False))
        tp = ip.child("deprecatedTopology")
        topology = ep.deprecated_topology or {}
        if len(topology) > _MAX_TOPOLOGY_LABELS:
            errs.append(fld.too_many(tp, len(topology), _MAX_TOPOLOGY_LABELS))
        errs.extend(om.validate_labels(topology, tp))
        if "topology.kubernetes.io/zone" in topology:
            errs.append(fld.internal_error(tp.key("topology.kubernetes.io/zone"),
                                           "reserved key was not removed in conversion"))
        if ep.hostname is not None:
            errs.extend(fld.invalid(ip.child("hostname"), ep.hostname, m) for m in names.is_dns1123_label(ep.hostname))
        if ep.hints is not None:
            errs.extend(_validate_hints(ep.hints, ip.child("hints")))
    return errs


def _validate_hints(hints: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    zp = path.child("forZones")
    zones = list(hints.for_zones or [])
    if len(zones) > _MAX_ZONE_HINTS:
        errs.append(fld.too_many(zp, len(zones), _MAX_ZONE_HINTS))
        return errs
    seen: set[str] = set()
    for i, z in enumerate(zones):
        p = zp.index(i).child("name")
        if z.name in seen:
            errs.append(fld.duplicate(p, z.name))
        seen.add(z.name)
        errs.extend(fld.invalid(p, z.name, m) for m in names.is_valid_label_value(z.name))
    np_ = path.child("forNodes")
    nodes = list(getattr(hints, "for_nodes", None) or [])
    if len(nodes) > _MAX_NODE_HINTS:
        errs.append(fld.too_many(np_, len(nodes), _MAX_NODE_HINTS))
        return errs
    seen = set()
    for i, n in enumerate(nodes):
        p = np_.index(i).child("name")
        if n.name in seen:
            errs.append(fld.duplicate(p, n.name))
        seen.add(n.name)
        errs.extend(fld.invalid(p, n.name, m) for m in names.name_is_dns_subdomain(n.name, False))
    return errs


def _validate_ports(ports: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    ports = list(ports or [])
    if len(ports) > _MAX_PORTS:
        errs.append(fld.too_many(path, len(ports), _MAX_PORTS))
        return errs
    seen: set[str] = set()
    for i, port in enumerate(ports):
        ip = path.index(i)
        name = port.name or ""
        if name:
            errs.extend(fld.invalid(ip.child("name"), name, m) for m in names.is_dns1123_label(name))
        if name in seen:
            errs.append(fld.duplicate(ip.child("name"), name))
        seen.add(name)
        if port.protocol is None:
            errs.append(fld.required(ip.child("protocol"), ""))
        elif port.protocol not in _PROTOCOLS:
            errs.append(fld.not_supported(ip.child("protocol"), port.protocol, _PROTOCOLS))
        if port.app_protocol is not None:
            errs.extend(fld.invalid(ip.child("appProtocol"), port.app_protocol, m)
                        for m in names.is_qualified_name(port.app_protocol))
    return errs


def validate_endpoint_slice(slice_: Any) -> ErrorList:
    """Go: ``ValidateEndpointSliceCreate``."""
    from kcodec.api.core.validation import validate_object_meta

    errs = validate_object_meta(slice_.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    if not slice_.address_type:
        errs.append(fld.required(Path("addressType"), ""))
    elif slice_.address_type not in _ADDRESS_TYPES:
        errs.append(fld.not_supported(Path("addressType"), slice_.address_type, _ADDRESS_TYPES))
    errs.extend(_validate_endpoints(slice_.endpoints, slice_.address_type, Path("endpoints")))
    errs.extend(_validate_ports(slice_.ports, Path("ports")))
    return errs


def validate_endpoint_slice_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateEndpointSliceUpdate`` (addressType is immutable)."""
    errs = validate_endpoint_slice(new)
    errs.extend(om.validate_immutable_field(new.address_type, old.address_type, Path("addressType")))
    return errs
