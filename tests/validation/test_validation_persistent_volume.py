"""PersistentVolume: k/k pkg/apis/core/validation/validation.go ValidatePersistentVolume,
ValidatePersistentVolumeSpec, validatePVSecretReference, validateCSIPersistentVolumeSource,
validateLocalVolumeSource, ValidatePersistentVolumeUpdate, ValidatePersistentVolumeStatusUpdate
(cases after validation_test.go TestValidatePersistentVolumes)."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.core import validation as cv


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def pv(name: str = "foo", **spec):
    base = {"capacity": {"storage": "10G"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/foo"}}
    base.update(spec)
    base = {k: v for k, v in base.items() if v is not None}
    return internal({"apiVersion": "v1", "kind": "PersistentVolume",
                     "metadata": {"name": name, "resourceVersion": "1"}, "spec": base})


def msgs(errs):
    return [str(e) for e in errs]


AFFINITY = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-1"]}]}]}}


def test_valid():
    assert msgs(cv.validate_persistent_volume(pv())) == []
    assert msgs(cv.validate_persistent_volume(pv(hostPath=None, local={"path": "/mnt/disks/ssd1"},
                                                 nodeAffinity=AFFINITY, storageClassName="local-storage",
                                                 volumeMode="Block"))) == []
    assert msgs(cv.validate_persistent_volume(pv(hostPath=None, csi={
        "driver": "ebs.csi.aws.com", "volumeHandle": "vol-1",
        "nodePublishSecretRef": {"name": "s", "namespace": "kube-system"}}, accessModes=["ReadWriteOncePod"]))) == []
    assert msgs(cv.validate_persistent_volume(pv(hostPath=None, nfs={"server": "nfs.example.com",
                                                                     "path": "/exports"}))) == []


def test_invalid():
    assert msgs(cv.validate_persistent_volume(pv(accessModes=[], capacity={}))) == [
        "spec.accessModes: Required value",
        "spec.capacity: Required value",
        'spec.capacity: Unsupported value: {}: supported values: "storage"']
    assert msgs(cv.validate_persistent_volume(pv(accessModes=["fakemode", "ReadWriteOncePod", "ReadOnlyMany"]))) == [
        'spec.accessModes: Unsupported value: "fakemode": supported values: "ReadOnlyMany", "ReadWriteMany", '
        '"ReadWriteOnce", "ReadWriteOncePod"',
        "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"]
    assert msgs(cv.validate_persistent_volume(pv(capacity={"storage": "0"}))) == [
        'spec.capacity[storage]: Invalid value: "0": must be greater than zero']
    assert msgs(cv.validate_persistent_volume(pv(persistentVolumeReclaimPolicy="fakeReclaimPolicy"))) == [
        'spec.persistentVolumeReclaimPolicy: Unsupported value: "fakeReclaimPolicy": supported values: "Delete", '
        '"Recycle", "Retain"']
    assert msgs(cv.validate_persistent_volume(pv(hostPath={"path": "/"}, persistentVolumeReclaimPolicy="Recycle"))) == [
        "spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"]
    assert msgs(cv.validate_persistent_volume(pv(hostPath=None))) == [
        "spec: Required value: must specify a volume type"]
    assert msgs(cv.validate_persistent_volume(pv(nfs={"server": "s", "path": "/p"}))) == [
        "spec.nfs: Forbidden: may not specify more than 1 volume type"]
    assert msgs(cv.validate_persistent_volume(pv(hostPath=None, local={"path": "/a/../b"}))) == [
        'spec.local.path: Invalid value: "/a/../b": must not contain \'..\'',
        "spec.nodeAffinity: Required value: Local volume requires node affinity"]
    assert msgs(cv.validate_persistent_volume(pv(nodeAffinity={}))) == [
        "spec.nodeAffinity.required: Required value: must specify required node constraints"]
    assert msgs(cv.validate_persistent_volume(pv(hostPath=None, csi={
        "driver": "", "volumeHandle": "", "controllerPublishSecretRef": {"name": "", "namespace": "Bad"}}))) == [
        "spec.csi.driver: Required value",
        'spec.csi.driver: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric '
        "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
        "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.csi.volumeHandle: Required value",
        "spec.csi.controllerPublishSecretRef.name: Required value",
        'spec.csi.controllerPublishSecretRef.namespace: Invalid value: "Bad": a lowercase RFC 1123 label must '
        "consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
        "character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
    assert msgs(cv.validate_persistent_volume(pv(volumeMode="Fake"))) == [
        'spec.volumeMode: Unsupported value: "Fake": supported values: "Block", "Filesystem"']


def test_update_and_status():
    old = pv()
    assert msgs(cv.validate_persistent_volume_update(pv(), old)) == []
    assert msgs(cv.validate_persistent_volume_update(pv(hostPath={"path": "/bar"}), old)) == [
        "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\n"
        "changed: hostPath"]
    assert msgs(cv.validate_persistent_volume_update(pv(volumeMode="Block"), pv(volumeMode="Filesystem"))) == [
        'volumeMode: Invalid value: "Block": field is immutable']
    csi = {"driver": "d.example.com", "volumeHandle": "h"}
    expand = dict(csi, controllerExpandSecretRef={"name": "s", "namespace": "n"})
    assert msgs(cv.validate_persistent_volume_update(pv(hostPath=None, csi=expand), pv(hostPath=None, csi=csi))) == []
    new = pv()
    new.metadata.resource_version = ""
    assert msgs(cv.validate_persistent_volume_status_update(new, old)) == [
        'metadata.resourceVersion: Invalid value: "": must be specified for an update',
        "resourceVersion: Required value"]
