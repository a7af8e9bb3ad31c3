"""Defaults of storage.k8s.io v1 and v1beta1, as kube-apiserver applies them.

Follows kubernetes/kubernetes ``pkg/apis/storage/<version>/defaults.go``. The gates it
consults (CSIVolumeFSGroupPolicy, CSIInlineVolume, SELinuxMountReadWriteOncePod) are on
in 1.36.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.storage import v1, v1beta1

__all__ = ["DEFAULTERS"]


def _storage_class(obj: Any) -> None:
    if obj.reclaim_policy is None:
        obj.reclaim_policy = "Delete"
    if obj.volume_binding_mode is None:
        obj.volume_binding_mode = "Immediate"


def _csi_driver(obj: Any) -> None:
    spec = obj.spec
    if spec.attach_required is None:
        spec.attach_required = True
    if spec.pod_info_on_mount is None:
        spec.pod_info_on_mount = False
    if spec.storage_capacity is None:
        spec.storage_capacity = False
    if spec.fs_group_policy is None:
        spec.fs_group_policy = "ReadWriteOnceWithFSType"
    if not spec.volume_lifecycle_modes:
        spec.volume_lifecycle_modes = ["Persistent"]
    if spec.requires_republish is None:
        spec.requires_republish = False
    if spec.se_linux_mount is None:
        spec.se_linux_mount = False


DEFAULTERS = {
    v1.StorageClass: _storage_class,
    v1.CSIDriver: _csi_driver,
    v1beta1.StorageClass: _storage_class,
    v1beta1.CSIDriver: _csi_driver,
}
MARKERS: dict = {}
