"""Services: ClusterIP and NodePort allocation around the generic Store.

Go: k/k ``pkg/registry/core/service/storage/storage.go`` and ``alloc.go`` (the REST's
beginCreate/beginUpdate/afterDelete allocate and release), the 1.33+ IP allocator of
``pkg/registry/core/service/ipallocator/ipallocator.go`` (MultiCIDRServiceAllocator is
GA: every allocated ClusterIP is an ``networking.k8s.io/v1 IPAddress`` object named by the
address, with a parentRef to its Service; so several servers sharing one etcd never hand
out one address twice) and ``portallocator`` for NodePorts.

Dynamic addresses come from the upper band of the range (above the first 16 addresses for
a /24: ``calculateRangeOffset``), at a random start, and then the lower band; the first
address (10.0.0.1 in 10.0.0.0/24) is the one kube-apiserver gives the ``kubernetes``
Service, which asks for it explicitly.
"""
from __future__ import annotations

import ipaddress
import random
from typing import Any

from kcodec.api import errors as apierrors
from kcodec.registry import rest
from kcodec.registry._meta import accessor
from kcodec.registry.generic.store import Store
from kcodec.registry.request import Context
from kcodec.schema import GroupKind

__all__ = ["ServiceStore", "IPAllocator", "PortAllocator", "DEFAULT_SERVICE_CIDR", "DEFAULT_NODE_PORT_RANGE",
           "first_service_ip"]

DEFAULT_SERVICE_CIDR = "10.0.0.0/24"
DEFAULT_NODE_PORT_RANGE = (30000, 32767)
_LABEL_IP_FAMILY = "ipaddress.kubernetes.io/ip-family"
_LABEL_MANAGED_BY = "ipaddress.kubernetes.io/managed-by"
_MANAGED_BY = "ipallocator.k8s.io"
_rng = random.SystemRandom()


def first_service_ip(cidr: str = DEFAULT_SERVICE_CIDR) -> str:
    """The address kube-apiserver gives the ``kubernetes`` Service (the range's first host)."""
    net = ipaddress.ip_network(cidr, strict=False)
    return str(net.network_address + 1)


class _AllocationError(Exception):
    pass


class IPAllocator:
    """ClusterIPs as IPAddress objects in ``ipaddress_store`` (Go's MultiCIDR allocator)."""

    def __init__(self, ipaddress_store: Any, cidr: str = DEFAULT_SERVICE_CIDR) -> None:
        self.store = ipaddress_store
        self.cidr = cidr
        self.network = ipaddress.ip_network(cidr, strict=False)
        if self.network.version == 4:
            first, last = int(self.network.network_address) + 1, int(self.network.broadcast_address) - 1
        else:
            first, last = int(self.network.network_address) + 1, int(self.network.broadcast_address)
        self.first, self.last = first, last
        size = last - first + 1
        total = self.network.num_addresses
        offset = 0 if total < 16 else min(max(total // 16, 16), 256)
        self.offset = min(offset, size)

    def __repr__(self) -> str:
        return f"IPAllocator({self.cidr})"

    @property
    def family(self) -> str:
        return "IPv4" if self.network.version == 4 else "IPv6"

    def _new_ipaddress(self, ip: str, svc: Any) -> Any:
        from kcodec.api.networking import internal as networking

        obj = networking.IPAddress()
        obj.metadata.name = ip
        obj.metadata.labels = {_LABEL_IP_FAMILY: self.family, _LABEL_MANAGED_BY: _MANAGED_BY}
        obj.spec.parent_ref = networking.ParentReference(group="", resource="services",
                                                         namespace=svc.metadata.namespace, name=svc.metadata.name)
        return obj

    def allocate(self, ctx: Context, ip: str, svc: Any, dry_run: bool = False) -> None:
        """Reserve ``ip`` for ``svc``; raises ``_AllocationError`` with Go's text."""
        try:
            addr = ipaddress.ip_address(ip)
        except ValueError:
            raise _AllocationError(f"the provided IP ({ip}) is not in the valid range. "
                                   f"The range of valid IPs is {self.cidr}") from None
        if addr not in self.network or not self.first <= int(addr) <= self.last:
            raise _AllocationError(f"the provided IP ({ip}) is not in the valid range. "
                                   f"The range of valid IPs is {self.cidr}")
        if dry_run:
            if self._taken(ctx, str(addr)):
                raise _AllocationError("provided IP is already allocated")
            return
        try:
            self.store.create(Context(), self._new_ipaddress(str(addr), svc))
        except apierrors.StatusError as exc:
            if apierrors.is_already_exists(exc):
                raise _AllocationError("provided IP is already allocated") from None
            raise

    def _taken(self, ctx: Context, ip: str) -> bool:
        try:
            self.store.get(Context(), ip)
            return True
        except apierrors.StatusError as exc:
            if apierrors.is_not_found(exc):
                return False
            raise

    def allocate_next(self, ctx: Context, svc: Any, dry_run: bool = False) -> str:
        """A free address: the upper band from a random start, then the lower band."""
        bands = [(self.first + self.offset, self.last), (self.first, self.first + self.offset - 1)]
        taken = {item.metadata.name for item in self.store.list(Context(), rest.ListOptions()).items or ()}
        for lo, hi in bands:
            if hi < lo:
                continue
            count = hi - lo + 1
            start = _rng.randrange(count)
            for i in range(count):
                ip = str(ipaddress.ip_address(lo + (start + i) % count))
                if ip in taken:
                    continue
                try:
                    self.allocate(ctx, ip, svc, dry_run)
                    return ip
                except _AllocationError:
                    continue
        raise _AllocationError("range is full")

    def release(self, ip: str) -> None:
        try:
            self.store.delete(Context(), ip)
        except apierrors.StatusError as exc:
            if not apierrors.is_not_found(exc):
                raise


class PortAllocator:
    """NodePorts in ``port_range`` not used by another Service (Go's portallocator)."""

    def __init__(self, service_store: Store, port_range: tuple[int, int] = DEFAULT_NODE_PORT_RANGE) -> None:
        self.store = service_store
        self.low, self.high = port_range

    def __repr__(self) -> str:
        return f"PortAllocator({self.low}-{self.high})"

    def used(self, exclude: Any = None) -> set[int]:
        ports: set[int] = set()
        for svc in Store.list(self.store, Context(), rest.ListOptions()).items or ():
            if exclude is not None and svc.metadata.uid == exclude:
                continue
            for p in svc.spec.ports or ():
                if p.node_port:
                    ports.add(int(p.node_port))
            if svc.spec.health_check_node_port:
                ports.add(int(svc.spec.health_check_node_port))
        return ports

    def check(self, port: int, used: set[int]) -> None:
        if not self.low <= port <= self.high:
            raise _AllocationError(f"provided port is not in the valid range. The range of valid ports is "
                                   f"{self.low}-{self.high}")
        if port in used:
            raise _AllocationError("provided port is already allocated")

    def next(self, used: set[int]) -> int:
        count = self.high - self.low + 1
        start = _rng.randrange(count)
        for i in range(count):
            port = self.low + (start + i) % count
            if port not in used:
                return port
        raise _AllocationError("range is full")


def _needs_cluster_ip(svc: Any) -> bool:
    return svc.spec.type != "ExternalName"


def _needs_node_ports(svc: Any) -> bool:
    if svc.spec.type == "NodePort":
        return True
    if svc.spec.type == "LoadBalancer":
        return svc.spec.allocate_load_balancer_node_ports is not False
    return False


class ServiceStore(Store):
    """The Services store: the generic Store plus IP and port allocation (Go's service REST)."""

    ip_allocator: IPAllocator | None = None
    port_allocator: PortAllocator | None = None

    def configure_allocators(self, ipaddress_store: Any, cidr: str = DEFAULT_SERVICE_CIDR,
                             node_port_range: tuple[int, int] = DEFAULT_NODE_PORT_RANGE) -> ServiceStore:
        self.ip_allocator = IPAllocator(ipaddress_store, cidr)
        self.port_allocator = PortAllocator(self, node_port_range)
        self.after_delete = self._after_delete
        return self

    def _allocate(self, ctx: Context, svc: Any, old: Any, dry_run: bool) -> list[str]:
        """Fill clusterIP(s), ipFamilies, ipFamilyPolicy and nodePorts (Go's alloc.go);
        returns the IPs newly reserved (released again if the write fails)."""
        from kcodec.validation import field as f

        spec = svc.spec
        allocated: list[str] = []
        errs = f.ErrorList()
        if old is not None:
            # Go's PatchAllocatedValues: what the client left unset stays as allocated
            if not spec.cluster_ip and old.spec.cluster_ip and _needs_cluster_ip(svc):
                spec.cluster_ip = old.spec.cluster_ip
                spec.cluster_ips = list(old.spec.cluster_ips or [old.spec.cluster_ip])
            if not spec.ip_families and old.spec.ip_families and _needs_cluster_ip(svc):
                spec.ip_families = list(old.spec.ip_families)
            if spec.ip_family_policy is None and old.spec.ip_family_policy is not None and _needs_cluster_ip(svc):
                spec.ip_family_policy = old.spec.ip_family_policy
            old_ports = {(p.name, p.protocol, p.port): p.node_port for p in old.spec.ports or ()}
            if _needs_node_ports(svc):
                for p in spec.ports or ():
                    if not p.node_port and old_ports.get((p.name, p.protocol, p.port)):
                        p.node_port = old_ports[(p.name, p.protocol, p.port)]
        if _needs_cluster_ip(svc) and self.ip_allocator is not None:
            if spec.cluster_ips and not spec.cluster_ip:
                spec.cluster_ip = spec.cluster_ips[0]
            if spec.cluster_ip == "None":
                spec.cluster_ips = ["None"]
            else:
                old_ip = old.spec.cluster_ip if old is not None else ""
                if spec.ip_family_policy is None:
                    spec.ip_family_policy = "SingleStack"
                if not spec.ip_families:
                    spec.ip_families = [self.ip_allocator.family]
                if not spec.cluster_ip:
                    try:
                        ip = self.ip_allocator.allocate_next(ctx, svc, dry_run)
                    except _AllocationError as exc:
                        raise apierrors.new_internal_error(f"failed to allocate a serviceIP: {exc}") from None
                    spec.cluster_ip = ip
                    spec.cluster_ips = [ip]
                    if not dry_run:
                        allocated.append(ip)
                elif spec.cluster_ip != old_ip:
                    if not spec.cluster_ips:
                        spec.cluster_ips = [spec.cluster_ip]
                    try:
                        self.ip_allocator.allocate(ctx, spec.cluster_ip, svc, dry_run)
                        if not dry_run:
                            allocated.append(spec.cluster_ip)
                    except _AllocationError as exc:
                        errs.append(f.invalid(f.Path("spec", "clusterIPs").index(0), spec.cluster_ip,
                                              f"failed to allocate IP {spec.cluster_ip}: {exc}"))
        if _needs_node_ports(svc) and self.port_allocator is not None and not errs:
            used = self.port_allocator.used(exclude=svc.metadata.uid or None)
            mine = {p.node_port for p in (old.spec.ports if old is not None else ()) or ()}
            for i, p in enumerate(spec.ports or ()):
                if p.node_port:
                    if p.node_port in mine:
                        continue
                    try:
                        self.port_allocator.check(int(p.node_port), used)
                        used.add(int(p.node_port))
                    except _AllocationError as exc:
                        errs.append(f.invalid(f.Path("spec", "ports").index(i).child("nodePort"), int(p.node_port),
                                              str(exc)))
                else:
                    try:
                        p.node_port = self.port_allocator.next(used)
                    except _AllocationError as exc:
                        raise apierrors.new_internal_error(f"failed to allocate a nodePort: {exc}") from None
                    used.add(p.node_port)
        elif not _needs_node_ports(svc) and svc.spec.type in ("ClusterIP", "ExternalName"):
            for p in spec.ports or ():
                p.node_port = 0
        if errs:
            self._release(allocated)
            raise apierrors.new_invalid(GroupKind("", "Service"), svc.metadata.name, errs)
        return allocated

    def _release(self, ips: list[str]) -> None:
        if self.ip_allocator is None:
            return
        for ip in ips:
            self.ip_allocator.release(ip)

    def create(self, ctx: Context, obj: Any, create_validation: Any = None, options: Any = None) -> Any:
        dry_run = bool(getattr(options, "dry_run", None))
        if not accessor(obj).get_name() and not accessor(obj).get_generate_name():
            return super().create(ctx, obj, create_validation, options)
        if ctx.namespace and not obj.metadata.namespace:
            obj.metadata.namespace = ctx.namespace
        if not obj.metadata.name and obj.metadata.generate_name:
            obj.metadata.name = self.create_strategy.generate_name(obj.metadata.generate_name)
        allocated = self._allocate(ctx, obj, None, dry_run)
        try:
            return super().create(ctx, obj, create_validation, options)
        except BaseException:
            self._release(allocated)
            raise

    def update(self, ctx: Context, name: str, obj_info: Any, create_validation: Any = None,
               update_validation: Any = None, force_allow_create: bool = False,
               options: Any = None) -> tuple[Any, bool]:
        dry_run = bool(getattr(options, "dry_run", None))
        allocated: list[str] = []
        released: list[str] = []

        def allocate(c: Context, new: Any, old: Any) -> Any:
            if new is None:
                return new
            old_obj = old if old is not None and accessor(old).get_resource_version() else None
            allocated.extend(self._allocate(c, new, old_obj, dry_run))
            if old_obj is not None and old_obj.spec.cluster_ip and old_obj.spec.cluster_ip != "None" \
                    and not _needs_cluster_ip(new):
                released.append(old_obj.spec.cluster_ip)
            return new

        info = rest.wrap_updated_object_info(obj_info, allocate)
        try:
            out = super().update(ctx, name, info, create_validation, update_validation, force_allow_create, options)
        except BaseException:
            self._release(allocated)
            raise
        if not dry_run:
            self._release(released)
        return out

    def _after_delete(self, obj: Any, options: Any) -> None:
        """Go's service afterDelete: release the addresses (not on a dry run)."""
        if options is not None and getattr(options, "dry_run", None):
            return
        spec = getattr(obj, "spec", None)
        if spec is None:
            return
        self._release([ip for ip in (spec.cluster_ips or [spec.cluster_ip]) if ip and ip != "None"])
