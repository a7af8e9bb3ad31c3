"""Conversions between the resource.k8s.io versions and the internal resource version.

The internal types (kubernetes/kubernetes pkg/apis/resource/types.go) have resource.k8s.io/v1's
shape; v1 and v1beta2 convert field by field (their conversion.go files only add field
labels). resource.k8s.io/v1beta1 differs in three places, mapped as
pkg/apis/resource/v1beta1/conversion.go does:

* a ``Device`` keeps everything but its name in ``basic`` (a ``BasicDevice``); inside the
  fields sit on the device itself. Out, ``basic`` is always allocated; empty attribute and
  capacity maps and empty counter and taint lists become nil both ways (Go copies them only
  when non-empty, or by appending);
* a ``DeviceRequest`` holds the exact-count request's fields itself; inside they are the
  request's ``exactly`` (an ``ExactDeviceRequest``), allocated when any of them is set (a
  non-nil selector or toleration list counts, even empty), and copied back when it is set;
* ``ResourceSliceSpec.nodeName`` and ``allNodes`` are values in v1beta1 and pointers inside:
  ``""`` and ``false`` become nil on the way in, nil the zero value on the way out.

The v1alpha3 DeviceClass, ResourceClaim, ResourceClaimTemplate and ResourceSlice that
Kubernetes 1.34 removed (``kcodec.api.removed.resource_v1alpha3``) had v1beta1's shapes and
1.33's pkg/apis/resource/v1alpha3/conversion.go the same functions (they are registered for
them too), except that a device's capacity was a plain quantity per name there, which is
the ``value`` of a DeviceCapacity inside.
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_package
from kcodec.api.resource import internal as api
from kcodec.api.removed import resource_v1alpha3 as v1alpha3_removed
from kcodec.api.resource import v1beta1
from kcodec.conversion import Scope, generated_conversion

__all__ = ["add_conversion_funcs"]

# A v1beta1 BasicDevice's fields are a device's, names and all (the generated copy of the
# same-named fields is what Go's hand-written Convert_v1beta1_Device_To_resource_Device spells
# out); the device's name is not in BasicDevice.
_basic_in = generated_conversion(v1beta1.BasicDevice, api.Device, {"name": None})
_basic_out = generated_conversion(api.Device, v1beta1.BasicDevice)


def _capacity_in(src: Any, dst: api.Device, scope: Scope) -> None:
    # 1.33's v1alpha3 capacity is a plain quantity per name: DeviceCapacity{Value} inside
    dst.capacity = None if not src.capacity else {
        k: api.DeviceCapacity(value=v) for k, v in src.capacity.items()}


def _capacity_out(src: api.Device, dst: Any, scope: Scope) -> None:
    dst.capacity = None if not src.capacity else {k: v.value for k, v in src.capacity.items()}


_alpha_basic_in = generated_conversion(v1alpha3_removed.BasicDevice, api.Device,
                                       {"name": None, "capacity": _capacity_in})
_alpha_basic_out = generated_conversion(api.Device, v1alpha3_removed.BasicDevice,
                                        {"capacity": _capacity_out})

# Go's conversions of these device fields copy a map only when it has entries and build a
# list by appending, so an empty one comes out nil.
_NIL_WHEN_EMPTY = ("attributes", "capacity", "consumes_counters", "taints")


def _nil_empty(obj: Any) -> None:
    for name in _NIL_WHEN_EMPTY:
        if not getattr(obj, name):
            setattr(obj, name, None)


def _device_in(src: v1beta1.Device, dst: api.Device, scope: Scope) -> None:
    if src.basic is not None:
        (_alpha_basic_in if type(src.basic) is v1alpha3_removed.BasicDevice else _basic_in)(
            src.basic, dst, scope)
        _nil_empty(dst)


def _device_out(src: api.Device, dst: v1beta1.Device, scope: Scope) -> None:
    if type(dst) is v1alpha3_removed.Device:
        basic = v1alpha3_removed.BasicDevice()
        _alpha_basic_out(src, basic, scope)
    else:
        basic = v1beta1.BasicDevice()
        _basic_out(src, basic, scope)
    _nil_empty(basic)
    dst.basic = basic


_exact_in = generated_conversion(v1beta1.DeviceRequest, api.ExactDeviceRequest)
_exact_out = generated_conversion(api.ExactDeviceRequest, v1beta1.DeviceRequest, {"name": None})


def _has_exact_fields(req: v1beta1.DeviceRequest) -> bool:
    """Go's hasAnyMainRequestFieldsSet."""
    return bool(req.device_class_name or req.selectors is not None or req.allocation_mode
                or req.count or req.admin_access is not None or req.tolerations is not None
                or getattr(req, "capacity", None) is not None)  # v1alpha3 had none


def _request_in(src: v1beta1.DeviceRequest, dst: api.DeviceRequest, scope: Scope) -> None:
    if not _has_exact_fields(src):
        dst.exactly = None
        return
    exact = api.ExactDeviceRequest()
    _exact_in(src, exact, scope)
    if not exact.tolerations:
        exact.tolerations = None  # built by appending in Go
    dst.exactly = exact


def _request_out(src: api.DeviceRequest, dst: v1beta1.DeviceRequest, scope: Scope) -> None:
    if src.exactly is not None:
        name = dst.name
        _exact_out(src.exactly, dst, scope)
        dst.name = name
        if not dst.tolerations:
            dst.tolerations = None


def _node_name_in(src: v1beta1.ResourceSliceSpec, dst: api.ResourceSliceSpec, scope: Scope) -> None:
    dst.node_name = src.node_name or None


def _all_nodes_in(src: v1beta1.ResourceSliceSpec, dst: api.ResourceSliceSpec, scope: Scope) -> None:
    dst.all_nodes = True if src.all_nodes else None


def add_conversion_funcs(scheme: Any) -> None:
    """Register every resource.k8s.io version <-> internal conversion with ``scheme``."""
    # One hook per struct: the other destination fields have no source field of their name,
    # so the generated part leaves them to it.
    beta: dict[str, Any] = {
        "to_internal": {
            "Device": {"attributes": _device_in},
            "DeviceRequest": {"exactly": _request_in},
            "ResourceSliceSpec": {"node_name": _node_name_in, "all_nodes": _all_nodes_in},
        },
        "to_external": {
            "Device": {"basic": _device_out},
            "DeviceRequest": {"device_class_name": _request_out},
        },
    }
    # The removed v1alpha3 kinds (Kubernetes 1.33) had v1beta1's shapes and the same
    # hand-written conversions; today's v1alpha3 module has none of these structs.
    register_package(scheme, "resource", v1beta1=beta, v1alpha3=beta)
