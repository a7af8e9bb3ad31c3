"""Endpoints' canonical layout: k/k ``pkg/api/endpoints/util.go`` ``RepackSubsets``.

kube-apiserver's Endpoints strategy (k/k ``pkg/registry/core/endpoint/strategy.go``)
canonicalizes every Endpoints it stores, on create and on update: the subsets are
expanded to (address, port, ready) triples and packed again, one subset per distinct set
of addresses, so clients see the same layout whatever they sent:

- an address is identified by its IP and its targetRef's UID; the first occurrence (in
  subset order, ready addresses before not-ready ones) is the one kept, and "not ready"
  on a port wins over "ready" on the same port;
- ports offered by the same set of (address, ready) pairs share a subset; a subset
  without ports stands for a portless port (Go's ``EndpointPort{Port: -1}`` sentinel), so
  its addresses are kept, in a subset without ports;
- addresses are sorted by IP (bytes) and then targetRef UID (no targetRef first); ports and
  subsets by the MD5 of Go's ``DeepHashObject`` text of them (k/k ``pkg/util/hash``:
  go-spew ``%#v`` with ``SortKeys``, ``DisableMethods``, ``SpewKeys``, through
  ``k8s.io/utils/dump.ForHash``), which spells out the INTERNAL Go types of package
  ``core``. :func:`spew_for_hash` writes that text for the Endpoints types, byte for byte.

One Go detail is kept on purpose: ports are map keys by value, and ``AppProtocol`` is a
``*string``, so two ports with an appProtocol are the same key only when they are the same
port entry of the request (each decoded port has its own pointer); equal ports with an
appProtocol in two subsets therefore stay apart, as kube-apiserver keeps them.
"""
from __future__ import annotations

import hashlib
from typing import Any

__all__ = ["repack_subsets", "sort_subsets", "less_endpoint_address", "spew_for_hash", "deep_hash_object",
           "canonicalize_endpoints"]

# Go's api.EndpointPort{Port: -1}: the port of a subset that has none.
_SENTINEL = ("", -1, "", None)


def _go_bytes(text: str) -> bytes:
    # Go strings are the request's UTF-8 bytes; its JSON decoder turned lone surrogates
    # into U+FFFD, which is what they would hash as there.
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode("utf-8")


# ------------------------------------------------------------------ go-spew's %#v

def _s(value: Any) -> str:
    return value if value else ""


def _ptr_string(value: str | None) -> str:
    # formatPtr with the # flag: "(*string)" then the value, or "<nil>" for a nil pointer.
    return "(*string)<nil>" if value is None else "(*string)" + value


def _object_reference(ref: Any) -> str:
    if ref is None:
        return "(*core.ObjectReference)<nil>"
    return ("(*core.ObjectReference){"
            f"Kind:(string){_s(ref.kind)} Namespace:(string){_s(ref.namespace)} Name:(string){_s(ref.name)} "
            f"UID:(types.UID){_s(ref.uid)} APIVersion:(string){_s(ref.api_version)} "
            f"ResourceVersion:(string){_s(ref.resource_version)} FieldPath:(string){_s(ref.field_path)}}}")


def _address_body(addr: Any) -> str:
    return (f"{{IP:(string){_s(addr.ip)} Hostname:(string){_s(addr.hostname)} "
            f"NodeName:{_ptr_string(addr.node_name)} TargetRef:{_object_reference(addr.target_ref)}}}")


def _port_body(port: Any) -> str:
    return (f"{{Name:(string){_s(port.name)} Port:(int32){int(port.port or 0)} "
            f"Protocol:(core.Protocol){_s(port.protocol)} AppProtocol:{_ptr_string(port.app_protocol)}}}")


def _slice(type_name: str, items: list[Any] | None, body: Any) -> str:
    # Slice elements are printed without their type (spew sets ignoreNextType for them).
    if items is None:
        return f"([]core.{type_name})<nil>"
    return f"([]core.{type_name})[" + " ".join(body(item) for item in items) + "]"


def spew_for_hash(obj: Any) -> str:
    """Go's ``dump.ForHash(obj)`` for an internal ``core.EndpointSubset``,
    ``core.EndpointPort`` or ``core.EndpointAddress`` (kcodec's classes of them).

    ``(core.EndpointPort){Name:(string)http Port:(int32)80 Protocol:(core.Protocol)TCP
    AppProtocol:(*string)<nil>}``: strings unquoted, pointers by their value, nil lists
    and pointers as ``<nil>``, an empty list as ``[]``.
    """
    from kcodec.api.core import internal as core

    if isinstance(obj, core.EndpointSubset):
        return ("(core.EndpointSubset){"
                f"Addresses:{_slice('EndpointAddress', obj.addresses, _address_body)} "
                f"NotReadyAddresses:{_slice('EndpointAddress', obj.not_ready_addresses, _address_body)} "
                f"Ports:{_slice('EndpointPort', obj.ports, _port_body)}}}")
    if isinstance(obj, core.EndpointPort):
        return "(core.EndpointPort)" + _port_body(obj)
    if isinstance(obj, core.EndpointAddress):
        return "(core.EndpointAddress)" + _address_body(obj)
    raise TypeError(f"spew_for_hash: not an Endpoints type: {type(obj).__name__}")


def deep_hash_object(obj: Any) -> bytes:
    """The MD5 digest k/k's ``hashutil.DeepHashObject(md5.New(), obj)`` leaves."""
    return hashlib.md5(_go_bytes(spew_for_hash(obj))).digest()


# ------------------------------------------------------------------ ordering

def _uid(addr: Any) -> str:
    return (addr.target_ref.uid or "") if addr.target_ref is not None else ""


def _address_sort_key(addr: Any) -> tuple[bytes, int, bytes]:
    # LessEndpointAddress: IP bytes, then no targetRef before any, then the UID.
    if addr.target_ref is None:
        return _go_bytes(addr.ip or ""), 0, b""
    return _go_bytes(addr.ip or ""), 1, _go_bytes(addr.target_ref.uid or "")


def less_endpoint_address(a: Any, b: Any) -> bool:
    """Go's ``LessEndpointAddress``: by IP, then targetRef UID (no targetRef first)."""
    return _address_sort_key(a) < _address_sort_key(b)


def sort_subsets(subsets: list[Any]) -> list[Any]:
    """Go's ``SortSubsets``: each subset's addresses by IP and UID, its ports by hash,
    then the subsets by hash; sorts in place and returns ``subsets``."""
    for ss in subsets:
        if ss.addresses:
            ss.addresses.sort(key=_address_sort_key)
        if ss.not_ready_addresses:
            ss.not_ready_addresses.sort(key=_address_sort_key)
        if ss.ports:
            ss.ports.sort(key=deep_hash_object)
    subsets.sort(key=deep_hash_object)
    return subsets


# ------------------------------------------------------------------ repacking

def repack_subsets(subsets: list[Any] | None) -> list[Any]:
    """Go's ``RepackSubsets``: the canonical layout of ``subsets`` as a new list of new
    internal ``EndpointSubset`` objects (the input is not changed)."""
    from kcodec.api.core import internal as core

    all_addrs: dict[tuple[str, str], Any] = {}
    # port key -> {address key: ready}; port keys are Go's map keys (see the module doc).
    port_to_addr_ready: dict[tuple[Any, ...], dict[tuple[str, str], bool]] = {}
    port_objects: dict[tuple[Any, ...], Any] = {}

    def map_address(addr: Any, port_key: tuple[Any, ...], ready: bool) -> None:
        key = (addr.ip or "", _uid(addr))
        if key not in all_addrs:
            all_addrs[key] = addr
        seen = port_to_addr_ready.setdefault(port_key, {})
        if seen.get(key, True):  # not yet recorded, or ready so far: not-ready wins
            seen[key] = ready

    def map_addresses(subset: Any, port_key: tuple[Any, ...]) -> None:
        for addr in subset.addresses or ():
            map_address(addr, port_key, True)
        for addr in subset.not_ready_addresses or ():
            map_address(addr, port_key, False)

    for i, subset in enumerate(subsets or ()):
        if not subset.ports:
            map_addresses(subset, _SENTINEL)
            continue
        for j, port in enumerate(subset.ports):
            pointer = None if port.app_protocol is None else (i, j)
            port_key = (port.name or "", int(port.port or 0), port.protocol or "", pointer)
            port_objects.setdefault(port_key, port)
            map_addresses(subset, port_key)

    # Group the ports by the set of (address, ready) pairs offering them.
    groups: dict[frozenset[tuple[tuple[str, str], bool]], list[Any] | None] = {}
    group_addrs: dict[frozenset[tuple[tuple[str, str], bool]], dict[tuple[str, str], bool]] = {}
    for port_key, addr_ready in port_to_addr_ready.items():
        group = frozenset(addr_ready.items())
        group_addrs[group] = addr_ready
        if port_key[1] > 0:  # a real port, not the sentinel
            ports = groups.get(group)
            if ports is None:
                ports = groups[group] = []
            ports.append(port_objects[port_key].deep_copy())
        else:
            groups.setdefault(group, None)

    final = []
    for group, ports in groups.items():
        ready = [all_addrs[k].deep_copy() for k, r in group_addrs[group].items() if r]
        not_ready = [all_addrs[k].deep_copy() for k, r in group_addrs[group].items() if not r]
        final.append(core.EndpointSubset(addresses=ready or None, not_ready_addresses=not_ready or None,
                                         ports=ports))
    return sort_subsets(final)


def canonicalize_endpoints(endpoints: Any) -> None:
    """The Endpoints strategy's ``Canonicalize``: ``subsets`` repacked in place."""
    endpoints.subsets = repack_subsets(endpoints.subsets)
