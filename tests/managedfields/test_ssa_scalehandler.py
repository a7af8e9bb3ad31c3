"""The scale subresource's managed fields (kcodec.managedfields.scalehandler).

Every case of k8s.io/apimachinery pkg/util/managedfields/scalehandler_test.go
(TestTransformManagedFieldsToSubresource, TestTransformingManagedFieldsToParent,
TestTransformingManagedFieldsToParentMultiVersion) with Go's expected entries, in Go's order.
"""
from __future__ import annotations

import pytest

from kcodec.managedfields.fieldmanager import ManagedFieldsError
from kcodec.managedfields.fieldpath import make_path
from kcodec.managedfields.scalehandler import ScaleHandler, replicas_path

T = "2013-02-03T00:00:00Z"


def e(manager: str, op: str, version: str, fields: dict, sub: str = "", time: str | None = None) -> dict:
    entry = {"manager": manager, "operation": op, "apiVersion": version}
    if time:
        entry["time"] = time
    entry.update(fieldsType="FieldsV1", fieldsV1=fields)
    if sub:
        entry["subresource"] = sub
    return entry


REPLICAS = {"f:spec": {"f:replicas": {}}}
REPLICAS_SELECTOR = {"f:spec": {"f:replicas": {}, "f:selector": {}}}
SELECTOR = {"f:spec": {"f:selector": {}}}
DEFAULT = {"apps/v1": make_path("spec", "replicas")}

TO_SUBRESOURCE = [
    ("filter one entry and transform it into a subresource entry",
     [e("manager-1", "Apply", "apps/v1", {"f:spec": {"f:another-field": {}}}),
      e("manager-2", "Apply", "apps/v1", REPLICAS, time=T)],
     [e("manager-2", "Apply", "autoscaling/v1", REPLICAS, time=T)]),
    ("transform all entries",
     [e("manager-1", "Apply", "apps/v1", REPLICAS), e("manager-2", "Apply", "apps/v1", REPLICAS),
      e("manager-3", "Apply", "apps/v1", REPLICAS, sub="scale")],
     [e("manager-1", "Apply", "autoscaling/v1", REPLICAS), e("manager-2", "Apply", "autoscaling/v1", REPLICAS),
      e("manager-3", "Apply", "autoscaling/v1", REPLICAS, sub="scale")]),
    ("drops fields if the api version is unknown",
     [e("manager-1", "Apply", "apps/v10", REPLICAS)], None),
]


@pytest.mark.parametrize("desc,given,expected", TO_SUBRESOURCE, ids=[c[0] for c in TO_SUBRESOURCE])
def test_to_subresource(desc: str, given: list, expected: list | None) -> None:
    assert ScaleHandler(given, "apps/v1", DEFAULT).to_subresource() == expected


TO_PARENT = [
    ("different-managers: apply -> update",
     [e("test", "Apply", "apps/v1", REPLICAS_SELECTOR)],
     [e("scale", "Update", "autoscaling/v1", REPLICAS, sub="scale")],
     [e("test", "Apply", "apps/v1", SELECTOR), e("scale", "Update", "apps/v1", REPLICAS, sub="scale")]),
    ("different-managers: apply -> apply",
     [e("test", "Apply", "apps/v1", REPLICAS_SELECTOR)],
     [e("scale", "Apply", "autoscaling/v1", REPLICAS, sub="scale")],
     [e("scale", "Apply", "apps/v1", REPLICAS, sub="scale"), e("test", "Apply", "apps/v1", SELECTOR)]),
    ("different-managers: update -> update",
     [e("test", "Update", "apps/v1", REPLICAS_SELECTOR)],
     [e("scale", "Update", "autoscaling/v1", REPLICAS, sub="scale")],
     [e("scale", "Update", "apps/v1", REPLICAS, sub="scale"), e("test", "Update", "apps/v1", SELECTOR)]),
    ("different-managers: update -> apply",
     [e("test", "Update", "apps/v1", REPLICAS_SELECTOR)],
     [e("scale", "Apply", "autoscaling/v1", REPLICAS, sub="scale")],
     [e("scale", "Apply", "apps/v1", REPLICAS, sub="scale"), e("test", "Update", "apps/v1", SELECTOR)]),
    ("same manager: apply -> apply",
     [e("test", "Apply", "apps/v1", REPLICAS_SELECTOR)],
     [e("test", "Apply", "autoscaling/v1", REPLICAS, sub="scale")],
     [e("test", "Apply", "apps/v1", SELECTOR), e("test", "Apply", "apps/v1", REPLICAS, sub="scale")]),
    ("same manager: update -> update",
     [e("test", "Update", "apps/v1", REPLICAS_SELECTOR)],
     [e("test", "Update", "autoscaling/v1", REPLICAS, sub="scale")],
     [e("test", "Update", "apps/v1", SELECTOR), e("test", "Update", "apps/v1", REPLICAS, sub="scale")]),
    ("same manager: update -> apply",
     [e("test", "Update", "apps/v1", REPLICAS_SELECTOR)],
     [e("test", "Apply", "autoscaling/v1", REPLICAS, sub="scale")],
     [e("test", "Apply", "apps/v1", REPLICAS, sub="scale"), e("test", "Update", "apps/v1", SELECTOR)]),
    ("same manager: apply -> update",
     [e("test", "Apply", "apps/v1", REPLICAS_SELECTOR)],
     [e("test", "Update", "autoscaling/v1", REPLICAS, sub="scale")],
     [e("test", "Apply", "apps/v1", SELECTOR), e("test", "Update", "apps/v1", REPLICAS, sub="scale")]),
    ("subresource doesn't own the path anymore",
     [e("test", "Apply", "apps/v1", SELECTOR)],
     [e("scale", "Update", "autoscaling/v1", {"f:status": {"f:replicas": {}}}, sub="scale")],
     [e("test", "Apply", "apps/v1", SELECTOR)]),
    ("Subresource steals all the fields of the parent resource",
     [e("test", "Apply", "apps/v1", REPLICAS)],
     [e("scale", "Update", "autoscaling/v1", REPLICAS, sub="scale")],
     [e("scale", "Update", "apps/v1", REPLICAS, sub="scale")]),
    ("apply without stealing",
     [e("test", "Apply", "apps/v1", REPLICAS_SELECTOR)],
     [e("test", "Apply", "autoscaling/v1", REPLICAS), e("test", "Apply", "autoscaling/v1", REPLICAS, sub="scale")],
     [e("test", "Apply", "apps/v1", REPLICAS_SELECTOR), e("test", "Apply", "apps/v1", REPLICAS, sub="scale")]),
    ("drops the entry if the api version is unknown",
     [e("test", "Apply", "apps/v1", REPLICAS), e("another-manager", "Apply", "apps/v10", SELECTOR)],
     [e("scale", "Update", "autoscaling/v1", REPLICAS)],
     [e("scale", "Update", "apps/v1", REPLICAS)]),
]


@pytest.mark.parametrize("desc,parent,scale,expected", TO_PARENT, ids=[c[0] for c in TO_PARENT])
def test_to_parent(desc: str, parent: list, scale: list, expected: list) -> None:
    assert ScaleHandler(parent, "apps/v1", DEFAULT).to_parent(scale) == expected


def test_to_parent_multi_version() -> None:
    mappings = {"apps/v1": make_path("spec", "the-replicas"), "apps/v2": make_path("spec", "not-the-replicas")}
    parent = [e("test", "Apply", "apps/v1", {"f:spec": {"f:the-replicas": {}, "f:selector": {}}}),
              e("test-other", "Apply", "apps/v2", {"f:spec": {"f:not-the-replicas": {}, "f:selector": {}}})]
    scale = [e("scale", "Update", "autoscaling/v1", REPLICAS, sub="scale")]
    assert ScaleHandler(parent, "apps/v1", mappings).to_parent(scale) == [
        e("test", "Apply", "apps/v1", SELECTOR), e("test-other", "Apply", "apps/v2", SELECTOR),
        e("scale", "Update", "apps/v1", {"f:spec": {"f:the-replicas": {}}}, sub="scale")]


def test_to_parent_custom_resource_version_without_scale() -> None:
    mappings = {"mygroup/v1": replicas_path(".spec.the-replicas"), "mygroup/v2": None}
    parent = [e("test", "Apply", "mygroup/v1", {"f:spec": {"f:the-replicas": {}, "f:selector": {}}}),
              e("test-other", "Apply", "mygroup/v2", {"f:spec": {"f:test-other": {}}})]
    scale = [e("scale", "Update", "autoscaling/v1", REPLICAS, sub="scale")]
    assert ScaleHandler(parent, "mygroup/v1", mappings).to_parent(scale) == [
        e("test", "Apply", "mygroup/v1", SELECTOR), e("test-other", "Apply", "mygroup/v2", {"f:spec": {"f:test-other": {}}}),
        e("scale", "Update", "mygroup/v1", {"f:spec": {"f:the-replicas": {}}}, sub="scale")]


def test_entries_that_do_not_decode_are_an_error() -> None:
    bad = [{"manager": "m", "operation": "Patch", "apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {}}]
    with pytest.raises(ManagedFieldsError, match="operation must be `Apply` or `Update`"):
        ScaleHandler(bad, "apps/v1", DEFAULT).to_subresource()
    with pytest.raises(ManagedFieldsError):
        ScaleHandler([], "apps/v1", DEFAULT).to_parent(bad)
