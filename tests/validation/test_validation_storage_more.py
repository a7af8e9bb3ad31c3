"""CSIDriver, CSINode, VolumeAttachment, CSIStorageCapacity, VolumeAttributesClass:
k/k pkg/apis/storage/validation/validation.go (cases after validation_test.go
TestCSIDriverValidation, TestCSINodeValidation, TestVolumeAttachmentValidation,
TestValidateCSIStorageCapacity, TestValidateVolumeAttributesClass)."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.storage import validation as sv


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


def csi_driver(**spec):
    return internal({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
                     "metadata": {"name": "ebs.csi.aws.com", "resourceVersion": "1"}, "spec": spec})


def test_csi_driver():
    assert msgs(sv.validate_csi_driver(csi_driver(attachRequired=True, podInfoOnMount=False))) == []
    bad = csi_driver(fsGroupPolicy="Sometimes", volumeLifecycleModes=["Persistent", "Forever"],
                     tokenRequests=[{"audience": "a", "expirationSeconds": 60}, {"audience": "a"}],
                     nodeAllocatableUpdatePeriodSeconds=5)
    assert msgs(sv.validate_csi_driver(bad)) == [
        'spec.fsGroupPolicy: Unsupported value: "Sometimes": supported values: "File", "None", '
        '"ReadWriteOnceWithFSType"',
        "spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes",
        'spec.tokenRequests[1].audience: Duplicate value: "a"',
        'spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"',
        "spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 5: must be greater than or equal to 10 seconds"]
    assert msgs(sv.validate_csi_driver_update(csi_driver(attachRequired=False), csi_driver(attachRequired=True))) == [
        "spec.attachedRequired: Invalid value: false: field is immutable"]


def csi_node(drivers):
    return internal({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                     "metadata": {"name": "node-1", "resourceVersion": "1"}, "spec": {"drivers": drivers}})


def test_csi_node():
    good = csi_node([{"name": "ebs.csi.aws.com", "nodeID": "i-1", "topologyKeys": ["topology.ebs.csi.aws.com/zone"],
                      "allocatable": {"count": 25}}])
    assert msgs(sv.validate_csi_node(good)) == []
    bad = csi_node([{"name": "d.example.com", "nodeID": "", "topologyKeys": ["a", "a", ""],
                     "allocatable": {"count": -1}}, {"name": "d.example.com", "nodeID": "n" * 257}])
    assert [m.split(": ")[0] + ": " + m.split(": ")[1] for m in msgs(sv.validate_csi_node(bad))] == [
        "spec.drivers[0].nodeID: Required value",
        "spec.drivers[0].allocatable.count: Invalid value",
        "spec.drivers[0]: Duplicate value",
        "spec.drivers[0]: Required value",
        "spec.drivers[0]: Invalid value",
        "spec.drivers[0]: Invalid value",
        "spec.drivers[1].nodeID: Invalid value",
        "spec.drivers[1].name: Duplicate value",
    ]
    changed = csi_node([{"name": "ebs.csi.aws.com", "nodeID": "i-2", "allocatable": {"count": 25}}])
    assert len(sv.validate_csi_node_update(changed, good)) == 1
    recount = csi_node([{"name": "ebs.csi.aws.com", "nodeID": "i-1", "topologyKeys": ["topology.ebs.csi.aws.com/zone"],
                         "allocatable": {"count": 30}}])
    assert msgs(sv.validate_csi_node_update(recount, good)) == []


def attachment(**spec):
    base = {"attacher": "ebs.csi.aws.com", "nodeName": "node-1", "source": {"persistentVolumeName": "pv-1"}}
    base.update(spec)
    return internal({"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
                     "metadata": {"name": "csi-123", "resourceVersion": "1"}, "spec": base})


def test_volume_attachment():
    assert msgs(sv.validate_volume_attachment(attachment())) == []
    assert msgs(sv.validate_volume_attachment(attachment(source={}))) == [
        "spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName"]
    inline = {"accessModes": ["ReadWriteOnce"], "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "h"}}
    assert msgs(sv.validate_volume_attachment(attachment(source={"inlineVolumeSpec": inline}))) == []
    assert msgs(sv.validate_volume_attachment(attachment(source={"inlineVolumeSpec": dict(
        inline, storageClassName="x")}))) == [
        "spec.source.inlineVolumeSpec.storageClassName: Forbidden: may not be specified in the context of inline "
        "volumes"]
    assert msgs(sv.validate_volume_attachment_update(attachment(nodeName="node-2"), attachment()))[-1].endswith(
        ": field is immutable")


def test_capacity_and_attributes_class():
    cap = internal({"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
                    "metadata": {"name": "c", "namespace": "kube-system", "resourceVersion": "1"},
                    "storageClassName": "fast", "capacity": "-1Gi"})
    assert msgs(sv.validate_csi_storage_capacity(cap)) == [
        'capacity: Invalid value: "-1Gi": must be greater than or equal to 0']
    vac = internal({"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttributesClass",
                    "metadata": {"name": "gold", "resourceVersion": "1"}, "driverName": "ebs.csi.aws.com"})
    assert msgs(sv.validate_volume_attributes_class(vac)) == [
        "parameters: Required value: must contain at least one key/value pair"]
