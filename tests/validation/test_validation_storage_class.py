"""StorageClass: k/k pkg/apis/storage/validation/validation.go ValidateStorageClass,
ValidateStorageClassUpdate, validateAllowedTopologies (with core
ValidateTopologySelectorTerm); cases after validation_test.go TestValidateStorageClass."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.storage import validation as sv


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def sc(**extra):
    doc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
           "metadata": {"name": "foo", "resourceVersion": "1"}, "provisioner": "kubernetes.io/foo-provisioner"}
    doc.update(extra)
    return internal(doc)


def msgs(errs):
    return [str(e) for e in errs]


def test_valid_storage_classes():
    assert msgs(sv.validate_storage_class(sc())) == []
    assert msgs(sv.validate_storage_class(sc(provisioner="ebs.csi.aws.com", parameters={"type": "gp3"},
                                             reclaimPolicy="Retain", volumeBindingMode="WaitForFirstConsumer",
                                             allowedTopologies=[{"matchLabelExpressions": [
                                                 {"key": "topology.kubernetes.io/zone",
                                                  "values": ["us-east-1a", "us-east-1b"]}]}]))) == []


def test_invalid_storage_classes():
    assert msgs(sv.validate_storage_class(sc(provisioner=""))) == ["provisioner: Required value"]
    assert msgs(sv.validate_storage_class(sc(provisioner="Invalid Provisioner"))) == [
        'provisioner: Invalid value: "invalid provisioner": name part must consist of alphanumeric characters, '
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
        "or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]
    assert msgs(sv.validate_storage_class(sc(parameters={"": "v"}))) == [
        'parameters: Invalid value: "": field can not be empty.']
    assert msgs(sv.validate_storage_class(sc(parameters={"k": "v" * (256 * 1024)}))) == [
        "parameters: Too long: may not be more than 262144 bytes"]
    assert msgs(sv.validate_storage_class(sc(reclaimPolicy="Recycle"))) == [
        'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"']
    assert msgs(sv.validate_storage_class(sc(volumeBindingMode="Later"))) == [
        'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"']
    topo = {"matchLabelExpressions": [{"key": "zone", "values": ["a", "a"]}, {"key": "zone", "values": []}]}
    assert msgs(sv.validate_storage_class(sc(allowedTopologies=[topo]))) == [
        'allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "a"',
        "allowedTopologies[0].matchLabelExpressions[1].values: Required value",
        'allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "zone"']
    same = {"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]}
    assert msgs(sv.validate_storage_class(sc(allowedTopologies=[same, same]))) == [
        'allowedTopologies[1].matchLabelExpressions: Duplicate value: ""']


def test_update():
    old = sc(parameters={"type": "gp2"})
    assert msgs(sv.validate_storage_class_update(sc(parameters={"type": "gp2"}, allowVolumeExpansion=True), old)) == []
    new = sc(parameters={"type": "gp3"}, provisioner="other.example.com", reclaimPolicy="Retain",
             volumeBindingMode="WaitForFirstConsumer")
    assert msgs(sv.validate_storage_class_update(new, old)) == [
        "parameters: Forbidden: updates to parameters are forbidden.",
        "provisioner: Forbidden: updates to provisioner are forbidden.",
        "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
        'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable']
