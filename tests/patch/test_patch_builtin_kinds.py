"""Merge tags recorded in the generated models (FieldInfo accessors, tools/gen_api.py's
field_tags/type_tags), and strategic merge patches of built-in kinds that use them:
patchStrategy merge/retainKeys/replace, patchMergeKey, and the directives of
k8s.io/apimachinery pkg/util/strategicpatch/patch.go, with mergepatch/errors.go's texts and the
answers kube-apiserver's patch handler gives them (apiserver pkg/endpoints/handlers/patch.go
interpretStrategicMergePatchError; pkg/endpoints/installer.go and apiextensions-apiserver
customresource_handler.go for the patch types each kind accepts).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from kcodec.api.apps import v1 as appsv1
from kcodec.api.core import v1 as corev1
from kcodec.api.meta import v1 as metav1
from kcodec.fieldtable import fields_of, struct_type_of
from kcodec.model import Struct, field
from kcodec.patch import (
    MergeConflictError, PatchError, PreconditionFailedError, create_three_way_merge_patch,
    create_two_way_merge_patch, require_key_unchanged, strategic_merge_patch, supported_patch_types,
    supports_strategic_merge_patch, unsupported_media_type_message,
)
from kcodec.patch import errors as perrors

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import gen_api  # noqa: E402


def _field(cls: Any, json_name: str) -> Any:
    return next(f for f in fields_of(cls) if f.json == json_name)


def test_field_info_accessors() -> None:
    ports = _field(corev1.Container, "ports")
    assert (ports.patch_strategy, ports.patch_merge_key) == ("merge", "containerPort")
    assert (ports.list_type, ports.list_map_keys) == ("map", ("containerPort", "protocol"))
    volumes = _field(corev1.PodSpec, "volumes")
    assert volumes.patch_strategies == ("merge", "retainKeys")
    finalizers = _field(metav1.ObjectMeta, "finalizers")
    assert (finalizers.patch_strategy, finalizers.list_type, finalizers.patch_merge_key) == ("merge", "set", "")
    assert _field(corev1.PodSpec, "nodeSelector").map_type == "atomic"
    assert _field(appsv1.DeploymentSpec, "strategy").patch_strategy == "retainKeys"
    # +structType=atomic on LabelSelector's declaration, seen through the field that holds one
    assert struct_type_of(metav1.LabelSelector) == "atomic"
    assert _field(appsv1.DeploymentSpec, "selector").struct_type == "atomic"
    replicas = _field(appsv1.DeploymentSpec, "replicas")
    assert (replicas.tags(), replicas.patch_strategy, replicas.list_map_keys, replicas.struct_type) == ({}, "", (), "")


def test_generator_tag_rules() -> None:
    where = "k8s.io/api/x.T.F"
    assert gen_api.field_tags({"patchStrategy": "merge", "patchMergeKey": "name", "json": "f"},
                              ("optional", "listType=map", "listMapKey=name", "listMapKey=protocol"), where) == \
        "patchStrategy=merge;patchMergeKey=name;listType=map;listMapKey=name,protocol"
    assert gen_api.field_tags({}, ("optional",), where) is None
    for tags, markers, err in [({}, ("listType=bag",), "unknown listType 'bag'"),
                               ({}, ("listMapKey=name",), "+listMapKey without +listType=map"),
                               ({}, ("listType=set", "listType=set"), "+listType given twice"),
                               ({"patchStrategy": "mash"}, (), "unknown patchStrategy 'mash'")]:
        with pytest.raises(gen_api.GenError, match=re.escape(err)):
            gen_api.field_tags(tags, markers, where)
    assert gen_api.type_tags(["// +k8s:deepcopy-gen=true", "// +structType=atomic"], where) == "structType=atomic"
    with pytest.raises(gen_api.GenError):
        gen_api.type_tags(["// +listType=atomic"], where)


def _deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "finalizers": ["a", "b"], "labels": {"app": "web"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                "containers": [{"name": "web", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}]},
                               {"name": "log", "image": "busybox"}],
                "volumes": [{"name": "data", "emptyDir": {}}]}}}}


def test_merge_lists_by_key() -> None:
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:2"},
                                                            {"name": "new", "image": "x"}]}}}}
    out = strategic_merge_patch(_deployment(), patch, appsv1.Deployment)
    containers = out["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["web", "new", "log"]
    assert containers[0] == {"name": "web", "image": "nginx:2", "ports": [{"containerPort": 80, "protocol": "TCP"}]}


def test_directives() -> None:
    d = _deployment()
    out = strategic_merge_patch(d, {"spec": {"template": {"spec": {
        "containers": [{"name": "log", "$patch": "delete"}],
        "$setElementOrder/containers": [{"name": "web"}]}}}}, appsv1.Deployment)
    assert [c["name"] for c in out["spec"]["template"]["spec"]["containers"]] == ["web"]
    out = strategic_merge_patch(d, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"],
                                                 "finalizers": ["c"]}}, appsv1.Deployment)
    # patch items go first unless the live order places a server-only item before them
    assert out["metadata"]["finalizers"] == ["c", "b"]
    out = strategic_merge_patch(d, {"metadata": {"labels": {"$patch": "replace", "x": "y"}}}, appsv1.Deployment)
    assert out["metadata"]["labels"] == {"x": "y"}
    out = strategic_merge_patch(d, {"spec": {"template": {"spec": {
        "containers": [{"name": "only", "image": "i"}, {"$patch": "replace"}]}}}}, appsv1.Deployment)
    assert out["spec"]["template"]["spec"]["containers"] == [{"name": "only", "image": "i"}]
    out = strategic_merge_patch(d, {"spec": {"strategy": {"$patch": "delete"}}}, appsv1.Deployment)
    assert out["spec"]["strategy"] == {}
    assert d == _deployment()  # the arguments are left as they were


def test_retain_keys() -> None:
    """patchStrategy retainKeys (DeploymentSpec.strategy, PodSpec.volumes): the keys the
    patch does not list are cleared, so switching a strategy or a volume source drops the old one."""
    patch = create_two_way_merge_patch(_deployment(), {**_deployment(), "spec": {
        **_deployment()["spec"], "strategy": {"type": "Recreate"}}}, appsv1.Deployment)
    assert patch == {"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": None, "type": "Recreate"}}}
    out = strategic_merge_patch(_deployment(), {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}},
                                appsv1.Deployment)
    assert out["spec"]["strategy"] == {"type": "Recreate"}
    out = strategic_merge_patch(_deployment(), {"spec": {"template": {"spec": {"volumes": [
        {"name": "data", "hostPath": {"path": "/d"}, "$retainKeys": ["hostPath", "name"]}]}}}}, appsv1.Deployment)
    assert out["spec"]["template"]["spec"]["volumes"] == [{"name": "data", "hostPath": {"path": "/d"}}]
    with pytest.raises(PatchError) as exc:
        strategic_merge_patch(_deployment(), {"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {}}}},
                              appsv1.Deployment)
    assert exc.value is perrors.ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS
    assert (str(exc.value), exc.value.code) == ("invalid patch format of retainKeys", 400)


@pytest.mark.parametrize("patch,message,code", [
    ({"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}},
     "map: map[image:x] does not contain declared merge key: name", 500),
    ({"metadata": {"finalizers": [["x"]]}}, "list element types are not identical: [[a b] [[x]]]", 500),
    ({"metadata": {"$deleteFromPrimitiveListfinalizers": ["a"]}}, "invalid patch format of primitive list", 400),
    ({"metadata": {"$setElementOrderfinalizers": ["a"]}}, "invalid patch format of setElementOrder list", 400),
    ({"metadata": {"$setElementOrder/finalizers": "a"}}, "expected a []interface {}, but received a string", 500),
    ({"spec": {"template": {"spec": {"containers": [{"name": "web", "$patch": "frob"}]}}}},
     "unknown patch type: frob in map: map[$patch:frob name:web]", 500),
    ({"spec": {"template": {"spec": {"containers": [{"name": "web", "$patch": "merge"}]}}}},
     "merging lists cannot yet be specified in the patch", 500),
    ({"spec": {"selector": {"$patch": 1}}}, "unknown patch type: %!s(int64=1) in map: map[$patch:1]", 500),
    ({"metadata": {"labels": {"a": {"b": 1}}, "annotations": None}, "spec": {"template": {"spec": {"volumes": [
        {"name": "data", "emptyDir": {"x": [1]}}]}}}}, None, None),
])
def test_error_texts(patch: dict[str, Any], message: str | None, code: int | None) -> None:
    if message is None:
        strategic_merge_patch(_deployment(), patch, appsv1.Deployment)  # applies: types are the decoder's business
        return
    with pytest.raises(PatchError) as exc:
        strategic_merge_patch(_deployment(), patch, appsv1.Deployment)
    assert (str(exc.value), exc.value.code) == (message, code)


def test_lookup_errors() -> None:
    """PatchMetaFromStruct's lookups (forked encoding/json fields.go): a JSON name matches
    case-insensitively when no field has it exactly; maps and scalars are not structs."""
    d = _deployment()
    d["spec"]["Selector"] = {"matchLabels": {"b": "c"}}
    out = strategic_merge_patch(d, {"spec": {"Selector": {"matchLabels": {"x": "y"}}}}, appsv1.Deployment)
    assert out["spec"]["Selector"] == {"matchLabels": {"b": "c", "x": "y"}}
    d = _deployment()
    d["spec"]["frob"] = {"a": 1}
    with pytest.raises(PatchError) as exc:
        strategic_merge_patch(d, {"spec": {"frob": {"a": 2}}}, appsv1.Deployment)
    assert str(exc.value) == 'unable to find api field in struct DeploymentSpec for the json field "frob"'
    d = _deployment()
    d["metadata"]["labels"] = {"app": {"x": 1}}
    with pytest.raises(PatchError) as exc:
        strategic_merge_patch(d, {"metadata": {"labels": {"app": {"y": 2}}}}, appsv1.Deployment)
    assert str(exc.value) == "merging an object in json but data type is not struct, instead is: map"


def test_three_way_conflict_and_preconditions() -> None:
    original = {"metadata": {"name": "web", "labels": {"a": "1"}}, "spec": {"replicas": 1}}
    current = {"metadata": {"name": "web", "labels": {"a": "1"}}, "spec": {"replicas": 5}}
    modified = {"metadata": {"name": "web", "labels": {"a": "1"}}, "spec": {"replicas": 2}}
    assert create_three_way_merge_patch(original, modified, current, appsv1.Deployment) == {"spec": {"replicas": 2}}
    with pytest.raises(MergeConflictError) as exc:
        create_three_way_merge_patch(original, modified, current, appsv1.Deployment, False)
    assert str(exc.value) == ("patch:\nspec:\n  replicas: 2\n\nconflicts with changes made from original to "
                              "current:\nspec:\n  replicas: 5\n\n")
    with pytest.raises(PreconditionFailedError) as exc2:
        create_three_way_merge_patch(original, {**modified, "kind": "Other"}, current, appsv1.Deployment,
                                     preconditions=[require_key_unchanged("kind")])
    assert str(exc2.value) == "precondition failed for: map[kind:Other spec:map[replicas:2]]"


class _Unstructured:
    """Not a model class: what a custom resource's objects are."""


def test_patch_types_per_kind() -> None:
    assert supports_strategic_merge_patch(appsv1.Deployment)
    assert supported_patch_types(appsv1.Deployment) == [
        "application/json-patch+json", "application/merge-patch+json",
        "application/strategic-merge-patch+json", "application/apply-patch+yaml"]
    assert supported_patch_types(_Unstructured, cbor=True) == [
        "application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml",
        "application/apply-patch+cbor"]
    assert unsupported_media_type_message(supported_patch_types(_Unstructured)) == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
    with pytest.raises(PatchError) as exc:
        strategic_merge_patch({}, {}, _Unstructured)
    assert exc.value is perrors.ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT


class _Sets(Struct):
    """A set-typed list of ints, as MergeItem's mergingIntList."""
    ints: list[int] | None = field(0, "ints", omitempty=True, tags="patchStrategy=merge")


def test_primitive_merge_list_order() -> None:
    """mergeSlice of scalars: deduplicated, patch items first in the patch's order, server-only
    items where the live order puts them (normalizeElementOrder, mergeSortedSlice)."""
    out = strategic_merge_patch({"ints": [3, 1, 2]}, {"ints": [4, 1]}, _Sets)
    assert out == {"ints": [4, 3, 1, 2]}
    out = strategic_merge_patch({"ints": [3, 1, 2]}, {"$setElementOrder/ints": [2, 1, 3], "ints": [1]}, _Sets)
    assert out == {"ints": [2, 1, 3]}
    with pytest.raises(PatchError) as exc:
        strategic_merge_patch({"ints": [[1]]}, {"ints": [[2]]}, _Sets)
    assert exc.value is perrors.ERR_NO_LIST_OF_LISTS and exc.value.code == 422


def test_raw_extension_from_to_tree() -> None:
    """A tree from kcodec.model.to_tree holds RawExtension text as RawJSON; the patch sees the
    decoded value, as Go's ToUnstructured gives it, and RawExtension's struct has no JSON fields."""
    from kcodec.model import from_tree, to_tree
    from kcodec.runtime import RawExtension

    cr = appsv1.ControllerRevision(data=RawExtension(raw=b'{"a":{"b":1}}'), revision=1)
    out = strategic_merge_patch(to_tree(cr), {"data": {"x": 1}}, appsv1.ControllerRevision)
    assert from_tree(appsv1.ControllerRevision, out).data == RawExtension(raw=b'{"a":{"b":1},"x":1}')
    with pytest.raises(PatchError) as exc:
        strategic_merge_patch(to_tree(cr), {"data": {"a": {"c": 2}}}, appsv1.ControllerRevision)
    assert str(exc.value) == 'unable to find api field in struct RawExtension for the json field "a"'
