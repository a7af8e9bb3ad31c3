"""Validation of the networking group's internal objects (Go: k8s.io/kubernetes
pkg/apis/networking/validation/validation.go): Ingress (create, update, status),
IngressClass, ServiceCIDR and IPAddress.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.core import validation as core
from kcodec.validation import field as fld
from kcodec.types import INT
from kcodec.validation import names, objectmeta
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_network_policy",
    "validate_network_policy_update",
    "validate_network_policy_spec",
    "validate_ip_block",
    "validate_ingress",
    "validate_ingress_update",
    "validate_ingress_status_update",
    "validate_ingress_spec",
    "validate_ingress_class",
    "validate_ingress_class_update",
    "validate_service_cidr",
    "validate_service_cidr_update",
    "validate_service_cidr_status_update",
    "validate_ip_address",
    "validate_ip_address_update",
]

_ANNOTATION_INGRESS_CLASS = "kubernetes.io/ingress.class"
_PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"]
_INVALID_PATH_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"]
_INVALID_PATH_SUFFIXES = ["/..", "/."]


def _tls_secret_name_errs(name: str) -> list[str]:
    return names.name_is_dns_subdomain(name, False) if name else []


def _host_errs(host: str) -> list[str]:
    if "*" in host:
        return names.is_wildcard_dns1123_subdomain(host)
    return names.is_dns1123_subdomain(host)


def _validate_typed_local_object_reference(ref: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if ref is None:
        return errs
    if ref.api_group is not None:
        errs.extend(fld.invalid(path.child("apiGroup"), ref.api_group, m) for m in names.is_dns1123_subdomain(ref.api_group))
    for attr in ("kind", "name"):
        v = getattr(ref, attr)
        if not v:
            errs.append(fld.required(path.child(attr), f"{attr} is required"))
        else:
            errs.extend(fld.invalid(path.child(attr), v, m) for m in names.is_valid_path_segment_name(v))
    return errs


def _validate_backend(backend: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if backend.resource is not None and backend.service is not None:
        return ErrorList([fld.invalid(path, "", "cannot set both resource and service backends")])
    if backend.resource is not None:
        return _validate_typed_local_object_reference(backend.resource, path.child("resource"))
    if backend.service is None:
        return ErrorList([fld.invalid(path, "", "resource or service backend is required")])
    svc = backend.service
    if not svc.name:
        errs.append(fld.required(path.child("service", "name"), ""))
    else:
        errs.extend(fld.invalid(path.child("service", "name"), svc.name, m) for m in names.name_is_dns1035_label(svc.name, False))
    port = svc.port
    has_name = port is not None and bool(port.name)
    has_number = port is not None and port.number != 0
    if has_name and has_number:
        errs.append(fld.invalid(path, "", "cannot set both port name & port number"))
    elif has_name:
        errs.extend(fld.invalid(path.child("service", "port", "name"), port.name, m)
                    for m in names.is_valid_port_name(port.name))
    elif has_number:
        errs.extend(fld.invalid(path.child("service", "port", "number"), port.number, m)
                    for m in names.is_valid_port_num(port.number))
    else:
        errs.append(fld.required(path, "port name or number is required"))
    return errs


def _validate_http_path(p: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if p.path_type is None:
        return ErrorList([fld.required(path.child("pathType"), "pathType must be specified")])
    if p.path_type in ("Exact", "Prefix"):
        if not p.path.startswith("/"):
            errs.append(fld.invalid(path.child("path"), p.path, "must be an absolute path"))
        if p.path:
            for seq in _INVALID_PATH_SEQUENCES:
                if seq in p.path:
                    errs.append(fld.invalid(path.child("path"), p.path, f"must not contain '{seq}'"))
            for suffix in _INVALID_PATH_SUFFIXES:
                if p.path.endswith(suffix):
                    errs.append(fld.invalid(path.child("path"), p.path, f"cannot end with '{suffix}'"))
    elif p.path_type == "ImplementationSpecific":
        if p.path and not p.path.startswith("/"):
            errs.append(fld.invalid(path.child("path"), p.path, "must be an absolute path"))
    else:
        errs.append(fld.not_supported(path.child("pathType"), p.path_type, _PATH_TYPES))
    errs.extend(_validate_backend(p.backend, path.child("backend")))
    return errs


def _validate_rule_value(rule: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    value = rule.ingress_rule_value
    http = value.http if value is not None else None
    if http is not None:
        hp = path.child("http")
        paths = list(http.paths or [])
        if not paths:
            errs.append(fld.required(hp.child("paths"), ""))
        for i, p in enumerate(paths):
            errs.extend(_validate_http_path(p, hp.child("paths").index(i)))
    return errs


def validate_ingress_spec(spec: Any, path: Path, *, allow_invalid_secret_name: bool = False,
                          allow_invalid_wildcard_host_rule: bool = False) -> ErrorList:
    """Go: ``ValidateIngressSpec``."""
    errs = ErrorList()
    rules = list(spec.rules or [])
    if not rules and spec.default_backend is None:
        errs.append(fld.invalid(path, rules if spec.rules is not None else None,
                                "either `defaultBackend` or `rules` must be specified"))
    if spec.default_backend is not None:
        errs.extend(_validate_backend(spec.default_backend, path.child("defaultBackend")))
    rp = path.child("rules")
    for i, rule in enumerate(rules):
        wildcard = False
        if rule.host:
            hp = rp.index(i).child("host")
            if names.parse_ip_sloppy(rule.host) is not None:
                errs.append(fld.invalid(hp, rule.host, "must be a DNS name, not an IP address"))
            wildcard = "*" in rule.host
            errs.extend(fld.invalid(hp, rule.host, m) for m in _host_errs(rule.host))
        if not wildcard or not allow_invalid_wildcard_host_rule:
            errs.extend(_validate_rule_value(rule, rp.index(i)))
    for t, tls in enumerate(spec.tls or []):
        tp = path.child("tls").index(t)
        for i, host in enumerate(tls.hosts or []):
            errs.extend(fld.invalid(tp.child("hosts").index(i), host, m) for m in _host_errs(host))
        if not allow_invalid_secret_name:
            errs.extend(fld.invalid(tp.child("secretName"), tls.secret_name, m)
                        for m in _tls_secret_name_errs(tls.secret_name))
    if spec.ingress_class_name is not None:
        errs.extend(fld.invalid(path.child("ingressClassName"), spec.ingress_class_name, m)
                    for m in names.name_is_dns_subdomain(spec.ingress_class_name, False))
    return errs


def validate_ingress(ingress: Any) -> ErrorList:
    """Go: ``ValidateIngressCreate``."""
    errs = core.validate_object_meta(ingress.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(validate_ingress_spec(ingress.spec, Path("spec")))
    ann = ingress.metadata.annotations or {}
    cls = ingress.spec.ingress_class_name
    if _ANNOTATION_INGRESS_CLASS in ann and cls is not None and ann[_ANNOTATION_INGRESS_CLASS] != cls:
        errs.append(fld.invalid(Path("annotations").child(_ANNOTATION_INGRESS_CLASS), ann[_ANNOTATION_INGRESS_CLASS],
                                "must match `ingressClassName` when both are specified"))
    return errs


def validate_ingress_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateIngressUpdate`` (keeps tolerating what the stored object already had)."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    allow_secret = any(_tls_secret_name_errs(t.secret_name) for t in old.spec.tls or [])
    allow_wildcard = any("*" in r.host and _validate_rule_value(r, Path("spec")) for r in old.spec.rules or [])
    errs.extend(core.validate_object_meta(new.metadata, True, names.name_is_dns_subdomain, Path("metadata")))
    errs.extend(validate_ingress_spec(new.spec, Path("spec"), allow_invalid_secret_name=allow_secret,
                                      allow_invalid_wildcard_host_rule=allow_wildcard))
    return errs


def validate_ingress_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateIngressStatusUpdate``."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    lb = new.status.load_balancer
    for i, ing in enumerate((lb.ingress if lb is not None else None) or []):
        p = Path("status", "loadBalancer").child("ingress").index(i)
        if ing.ip:
            errs.extend(names.is_valid_ip_for_legacy_field(p.child("ip"), ing.ip, False))
        if ing.hostname:
            errs.extend(fld.invalid(p.child("hostname"), ing.hostname, m) for m in names.is_dns1123_subdomain(ing.hostname))
            if names.parse_ip_sloppy(ing.hostname) is not None:
                errs.append(fld.invalid(p.child("hostname"), ing.hostname, "must be a DNS name, not an IP address"))
    return errs


# --- IngressClass, ServiceCIDR, IPAddress --------------------------------------------------

_PARAM_SCOPES = ["Cluster", "Namespace"]


def _validate_parameters_reference(params: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if params is None:
        return errs
    errs.extend(_validate_typed_local_object_reference(params, path))
    if params.scope is None:
        errs.append(fld.required(path.child("scope"), ""))
        return errs
    if params.scope not in _PARAM_SCOPES:
        errs.append(fld.not_supported(path.child("scope"), params.scope, _PARAM_SCOPES))
        return errs
    if params.scope == "Namespace":
        if params.namespace is None:
            errs.append(fld.required(path.child("namespace"), "`parameters.scope` is set to 'Namespace'"))
        else:
            errs.extend(fld.invalid(path.child("namespace"), params.namespace, m)
                        for m in names.validate_namespace_name(params.namespace, False))
    if params.scope == "Cluster" and params.namespace is not None:
        errs.append(fld.forbidden(path.child("namespace"), "`parameters.scope` is set to 'Cluster'"))
    return errs


def validate_ingress_class(ic: Any) -> ErrorList:
    """Go: ``ValidateIngressClass`` (controller a domain-prefixed path of at most 250 bytes)."""
    errs = core.validate_object_meta(ic.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    sp = Path("spec")
    if names.go_len(ic.spec.controller) > 250:
        errs.append(fld.too_long(sp.child("controller"), "", 250))
    errs.extend(names.is_domain_prefixed_path(sp.child("controller"), ic.spec.controller))
    errs.extend(_validate_parameters_reference(ic.spec.parameters, sp.child("parameters")))
    return errs


def validate_ingress_class_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateIngressClassUpdate`` (the controller is immutable)."""
    from kcodec.validation import objectmeta as om

    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(om.validate_immutable_field(new.spec.controller, old.spec.controller, Path("spec").child("controller")))
    errs.extend(validate_ingress_class(new))
    return errs


def validate_service_cidr(obj: Any) -> ErrorList:
    """Go: ``ValidateServiceCIDR`` (one or two CIDRs, one per family, canonical)."""
    errs = core.validate_object_meta(obj.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    fp = Path("spec", "cidrs")
    cidrs = list(obj.spec.cidrs or [])
    if not cidrs:
        errs.append(fld.required(fp, "at least one CIDR required"))
        return errs
    if len(cidrs) > 2:
        errs.append(fld.invalid(fp, obj.spec, "may only hold up to 2 values"))
        return errs
    if len(cidrs) == 2:
        fams = [names.parse_ip_sloppy(c.split("/", 1)[0]) for c in cidrs]
        if None in fams or "/" not in cidrs[0] or "/" not in cidrs[1] or fams[0].version == fams[1].version:  # type: ignore[union-attr]
            errs.append(fld.invalid(fp, obj.spec, "may specify no more than one IP for each IP family, i.e "
                                                  "192.168.0.0/24 and 2001:db8::/64"))
            return errs
    for i, c in enumerate(cidrs):
        errs.extend(names.is_valid_cidr(fp.index(i), c))
    return errs


def validate_service_cidr_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateServiceCIDRUpdate`` (the CIDRs are immutable)."""
    from kcodec.validation import objectmeta as om

    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(om.validate_immutable_field(new.spec.cidrs, old.spec.cidrs, Path("spec").child("cidrs")))
    return errs


def validate_service_cidr_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateServiceCIDRStatusUpdate``."""
    return core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))


def _ip_address_name(name: str, prefix: bool) -> list[str]:
    # Go: ValidateIPAddressName, the details of IsValidIP.
    return [e.detail for e in names.is_valid_ip(Path(""), name)]


def validate_ip_address(obj: Any) -> ErrorList:
    """Go: ``ValidateIPAddress`` (the name is the IP in canonical form; a parent reference)."""
    errs = core.validate_object_meta(obj.metadata, False, _ip_address_name, Path("metadata"))
    ref = obj.spec.parent_ref
    sp = Path("spec")
    if ref is None:
        errs.append(fld.required(sp.child("parentRef"), ""))
        return errs
    rp = sp.child("parentRef")
    if ref.group:
        errs.extend(fld.invalid(rp.child("group"), ref.group, m) for m in names.is_dns1123_subdomain(ref.group))
    for attr in ("resource", "name"):
        v = getattr(ref, attr)
        if not v:
            errs.append(fld.required(rp.child(attr), ""))
        else:
            errs.extend(fld.invalid(rp.child(attr), v, m) for m in names.is_valid_path_segment_name(v))
    if ref.namespace:
        errs.extend(fld.invalid(rp.child("namespace"), ref.namespace, m)
                    for m in names.is_valid_path_segment_name(ref.namespace))
    return errs


def validate_ip_address_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateIPAddressUpdate`` (the parent reference is immutable)."""
    from kcodec.validation import objectmeta as om

    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(om.validate_immutable_field(new.spec.parent_ref, old.spec.parent_ref, Path("spec").child("parentRef")))
    return errs


_POLICY_TYPES = ["Ingress", "Egress"]


def _validate_network_policy_port(port: Any, path: Path) -> ErrorList:
    """Go: ``ValidateNetworkPolicyPort``."""
    errs = ErrorList()
    if port.protocol is not None and port.protocol not in ("TCP", "UDP", "SCTP"):
        errs.append(fld.not_supported(path.child("protocol"), port.protocol, ["TCP", "UDP", "SCTP"]))
    if port.port is not None:
        if port.port.type == INT:
            v = port.port.int_value()
            errs.extend(fld.invalid(path.child("port"), v, m) for m in names.is_valid_port_num(v))
            if port.end_port is not None:
                if port.end_port < v:
                    errs.append(fld.invalid(path.child("endPort"), port.end_port, "must be greater than or equal to `port`"))
                errs.extend(fld.invalid(path.child("endPort"), port.end_port, m)
                            for m in names.is_valid_port_num(port.end_port))
        else:
            if port.end_port is not None:
                errs.append(fld.invalid(path.child("endPort"), port.end_port,
                                        "may not be specified when `port` is non-numeric"))
            errs.extend(fld.invalid(path.child("port"), port.port.str_val, m)
                        for m in names.is_valid_port_name(port.port.str_val))
    elif port.end_port is not None:
        errs.append(fld.invalid(path.child("endPort"), port.end_port, "may not be specified when `port` is not specified"))
    return errs


def validate_ip_block(ipb: Any, path: Path, allow_cidrs_even_if_invalid: list[str] | None = None) -> ErrorList:
    """Go: ``ValidateIPBlock``: cidr, and every except a strict subset of it. CIDRs the old
    object had are accepted unchecked on update."""
    errs = ErrorList()
    if not ipb.cidr:
        errs.append(fld.required(path.child("cidr"), ""))
        return errs
    errs.extend(names.is_valid_cidr_for_legacy_field(path.child("cidr"), ipb.cidr, False, allow_cidrs_even_if_invalid))
    net = names.parse_cidr_sloppy(ipb.cidr)
    if net is None:
        return errs
    for i, value in enumerate(ipb.except_ or []):
        ep = path.child("except").index(i)
        errs.extend(names.is_valid_cidr_for_legacy_field(ep, value, False, allow_cidrs_even_if_invalid))
        exc = names.parse_cidr_sloppy(value)
        if exc is None:
            continue
        contained = exc.version == net.version and exc.network_address in net
        if not contained or net.prefixlen >= exc.prefixlen:
            errs.append(fld.invalid(ep, value, "must be a strict subset of `cidr`"))
    return errs


def _validate_network_policy_peer(peer: Any, path: Path, allow_invalid_label_value: bool,
                                  allow_cidrs: list[str] | None) -> ErrorList:
    """Go: ``ValidateNetworkPolicyPeer``."""
    errs = ErrorList()
    count = 0
    if peer.pod_selector is not None:
        count += 1
        errs.extend(objectmeta.validate_label_selector(peer.pod_selector, path.child("podSelector"),
                                                       allow_invalid_label_value=allow_invalid_label_value))
    if peer.namespace_selector is not None:
        count += 1
        errs.extend(objectmeta.validate_label_selector(peer.namespace_selector, path.child("namespaceSelector"),
                                                       allow_invalid_label_value=allow_invalid_label_value))
    if peer.ip_block is not None:
        count += 1
        errs.extend(validate_ip_block(peer.ip_block, path.child("ipBlock"), allow_cidrs))
    if count == 0:
        errs.append(fld.required(path, "must specify a peer"))
    elif count > 1 and peer.ip_block is not None:
        errs.append(fld.forbidden(path, "may not specify both ipBlock and another peer"))
    return errs


def validate_network_policy_spec(spec: Any, path: Path, *, allow_invalid_label_value: bool = False,
                                 allow_cidrs_even_if_invalid: list[str] | None = None) -> ErrorList:
    """Go: ``ValidateNetworkPolicySpec``."""
    allow = allow_invalid_label_value
    cidrs = allow_cidrs_even_if_invalid
    errs = objectmeta.validate_label_selector(spec.pod_selector, path.child("podSelector"),
                                              allow_invalid_label_value=allow)
    for i, rule in enumerate(spec.ingress or []):
        rp = path.child("ingress").index(i)
        for j, port in enumerate(rule.ports or []):
            errs.extend(_validate_network_policy_port(port, rp.child("ports").index(j)))
        for j, peer in enumerate(rule.from_ or []):
            errs.extend(_validate_network_policy_peer(peer, rp.child("from").index(j), allow, cidrs))
    for i, rule in enumerate(spec.egress or []):
        rp = path.child("egress").index(i)
        for j, port in enumerate(rule.ports or []):
            errs.extend(_validate_network_policy_port(port, rp.child("ports").index(j)))
        for j, peer in enumerate(rule.to or []):
            errs.extend(_validate_network_policy_peer(peer, rp.child("to").index(j), allow, cidrs))
    types = list(spec.policy_types or [])
    if len(types) > len(_POLICY_TYPES):
        errs.append(fld.invalid(path.child("policyTypes"), types, "may not specify more than two policyTypes"))
        return errs
    for i, t in enumerate(types):
        if t not in _POLICY_TYPES:
            errs.append(fld.not_supported(path.child("policyTypes").index(i), t, _POLICY_TYPES))
    return errs


def validate_network_policy(np: Any) -> ErrorList:
    """Go: ``ValidateNetworkPolicy`` with the create options of the strategy
    (``ValidationOptionsForNetworking(np, nil)``)."""
    errs = core.validate_object_meta(np.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(validate_network_policy_spec(np.spec, Path("spec")))
    return errs


def validate_network_policy_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateNetworkPolicyUpdate`` with ``ValidationOptionsForNetworking(new, old)``:
    invalid label values stay allowed when the old podSelector had errors, and CIDRs the old
    policy had are not checked again."""
    allow = bool(objectmeta.validate_label_selector(old.spec.pod_selector, Path("spec", "podSelector")))
    cidrs: list[str] = []
    for rule in old.spec.ingress or []:
        for peer in rule.from_ or []:
            if peer.ip_block is not None:
                cidrs.append(peer.ip_block.cidr)
                cidrs.extend(peer.ip_block.except_ or [])
    for rule in old.spec.egress or []:
        for peer in rule.to or []:
            if peer.ip_block is not None:
                cidrs.append(peer.ip_block.cidr)
                cidrs.extend(peer.ip_block.except_ or [])
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_network_policy_spec(new.spec, Path("spec"), allow_invalid_label_value=allow,
                                             allow_cidrs_even_if_invalid=cidrs))
    return errs
