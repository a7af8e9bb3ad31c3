"""Defaults of resource.k8s.io v1, v1beta2, v1beta1 and v1alpha3.

Follows kubernetes/kubernetes ``pkg/apis/resource/<version>/defaults.go`` (a device request
counts exactly one device unless told otherwise; a device taint records when it was
added, to the second) and the ``+default=`` markers of
k8s.io/api v0.36.3: ``DeviceToleration.operator`` "Equal",
``ResourcePoolStatusRequestSpec.limit`` 100.
"""
from __future__ import annotations

import time
from typing import Any

from kcodec.api.meta import v1 as metav1
from kcodec.api.removed import resource_v1alpha3 as v1alpha3_removed
from kcodec.api.resource import v1, v1alpha3, v1beta1, v1beta2

__all__ = ["DEFAULTERS", "MARKERS"]


def _exact_count(obj: Any) -> None:
    if obj.allocation_mode == "":
        obj.allocation_mode = "ExactCount"
    if obj.allocation_mode == "ExactCount" and obj.count == 0:
        obj.count = 1


def _v1beta1_device_request(obj: v1beta1.DeviceRequest) -> None:
    # A request without a device class is made of subrequests: nothing to default.
    if obj.device_class_name == "":
        return
    _exact_count(obj)


def _device_taint(obj: Any) -> None:
    # The only clock-dependent default: when the taint was added, to the second.
    if obj.time_added is None:
        obj.time_added = metav1.Time.unix(int(time.time()))


DEFAULTERS = {
    v1.DeviceTaint: _device_taint,
    v1beta2.DeviceTaint: _device_taint,
    v1beta1.DeviceTaint: _device_taint,
    v1alpha3.DeviceTaint: _device_taint,
    v1.ExactDeviceRequest: _exact_count,
    v1.DeviceSubRequest: _exact_count,
    v1beta2.ExactDeviceRequest: _exact_count,
    v1beta2.DeviceSubRequest: _exact_count,
    v1beta1.DeviceRequest: _v1beta1_device_request,
    v1beta1.DeviceSubRequest: _exact_count,
    # the removed v1alpha3 kinds (Kubernetes 1.33's pkg/apis/resource/v1alpha3/defaults.go)
    v1alpha3_removed.DeviceTaint: _device_taint,
    v1alpha3_removed.DeviceRequest: _v1beta1_device_request,
    v1alpha3_removed.DeviceSubRequest: _exact_count,
}
MARKERS = {
    (v1.DeviceToleration, "operator"): "Equal",
    (v1beta1.DeviceToleration, "operator"): "Equal",
    (v1beta2.DeviceToleration, "operator"): "Equal",
    (v1alpha3_removed.DeviceToleration, "operator"): "Equal",
    (v1alpha3.ResourcePoolStatusRequestSpec, "limit"): 100,
}
