"""kcodec.validation.objectmeta against apimachinery pkg/api/validation/objectmeta.go and
objectmeta_test.go (TestObjectMetaUpdate..., TestValidateOwnerReferences,
TestValidateObjectMetaTrimsTrailingDash, TestValidateAnnotations) and
pkg/apis/meta/v1/validation/validation.go (ValidateLabels, ValidateLabelSelector)."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kcodec.api.meta import v1 as metav1
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import Path


def _t(sec: int) -> metav1.Time:
    return metav1.Time(datetime.fromtimestamp(sec, timezone.utc))


def _msgs(errs):
    return [str(e) for e in errs]


@pytest.mark.parametrize(("old", "new", "want"), [
    ({}, {}, []),
    ({"deletion_timestamp": _t(1000), "deletion_grace_period_seconds": 30},
     {"deletion_timestamp": _t(1000), "deletion_grace_period_seconds": 30}, []),
    ({}, {"deletion_timestamp": _t(1000)},
     ['field.deletionTimestamp: Invalid value: "1970-01-01T00:16:40Z": field is immutable']),
    ({"deletion_timestamp": _t(1000)}, {}, ["field.deletionTimestamp: Invalid value: null: field is immutable"]),
    ({"deletion_timestamp": _t(1000)}, {"deletion_timestamp": _t(2000)},
     ['field.deletionTimestamp: Invalid value: "1970-01-01T00:33:20Z": field is immutable']),
    ({}, {"deletion_grace_period_seconds": 30}, ["field.deletionGracePeriodSeconds: Invalid value: 30: field is immutable"]),
    ({"deletion_grace_period_seconds": 30}, {}, ["field.deletionGracePeriodSeconds: Invalid value: null: field is immutable"]),
    ({"generation": 5}, {"generation": 4}, ["field.generation: Invalid value: 4: must not be decremented"]),
    ({"generation": 1}, {"generation": 2}, []),
    ({"uid": "a"}, {"uid": "b"}, ['field.uid: Invalid value: "b": field is immutable']),
])
def test_object_meta_update(old, new, want):
    o = metav1.ObjectMeta(name="test", resource_version="1", **old)
    n = metav1.ObjectMeta(name="test", resource_version="1", **new)
    assert _msgs(om.validate_object_meta_update(n, o, Path("field"))) == want


def test_update_requires_resource_version_and_keeps_names():
    o = metav1.ObjectMeta(name="a", namespace="ns", resource_version="1")
    n = metav1.ObjectMeta(name="b", namespace="other")
    assert _msgs(om.validate_object_meta_update(n, o)) == [
        'metadata.resourceVersion: Invalid value: "": must be specified for an update',
        'metadata.name: Invalid value: "b": field is immutable',
        'metadata.namespace: Invalid value: "other": field is immutable',
    ]


def test_no_new_finalizers_while_deleting():
    o = metav1.ObjectMeta(name="a", resource_version="1", deletion_timestamp=_t(5), finalizers=["x/a"])
    n = metav1.ObjectMeta(name="a", resource_version="1", deletion_timestamp=_t(5), finalizers=["x/a", "x/c", "x/b"])
    assert _msgs(om.validate_object_meta_update(n, o)) == [
        'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new '
        'finalizers []string{"x/b", "x/c"}']


def test_trailing_dash_in_generate_name():
    assert not om.validate_object_meta(metav1.ObjectMeta(name="test", generate_name="foo-"), False,
                                       names.name_is_dns_subdomain)


def test_create_errors():
    meta = metav1.ObjectMeta(namespace="ns", generation=-1, labels={"a b": "c"})
    assert _msgs(om.validate_object_meta(meta, False, names.name_is_dns_subdomain)) == [
        "metadata.name: Required value: name or generateName is required",
        "metadata.namespace: Forbidden: not allowed on this type",
        "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
        'metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or '
        "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
        "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]
    meta = metav1.ObjectMeta(name="x", namespace="Bad_NS")
    errs = om.validate_object_meta(meta, True, names.name_is_dns_subdomain)
    assert str(errs[0]).startswith('metadata.namespace: Invalid value: "Bad_NS": a lowercase RFC 1123 label')


def test_annotation_size_limit():
    # objectmeta.go TotalAnnotationSizeLimitB: keys plus values, 256 KiB.
    ok = {"a": "x" * (om.TOTAL_ANNOTATION_SIZE_LIMIT_B - 1)}
    assert not om.validate_annotations(ok, Path("field"))
    big = {"a": "x" * om.TOTAL_ANNOTATION_SIZE_LIMIT_B}
    assert _msgs(om.validate_annotations(big, Path("field"))) == [
        "field: Too long: may not be more than 262144 bytes"]
    assert om.validate_annotations_size(big) == "annotations size 262145 is larger than limit 262144"
    # Keys are checked lower-cased: upper case is fine in annotations.
    assert not om.validate_annotations({"Example.COM/Key": "v"}, Path("field"))
    assert _msgs(om.validate_annotations({"a/b/c": ""}, Path("f")))[0].startswith(
        'f: Invalid value: "a/b/c": a valid label key must consist')


def test_owner_references():
    ref = metav1.OwnerReference
    good = [ref(api_version="customresourceVersion", kind="customresourceKind", name="name", uid="1")]
    assert not om.validate_owner_references(good, Path("ownerReferences"))
    banned = [ref(api_version="v1", kind="Event", name="name", uid="1")]
    assert _msgs(om.validate_owner_references(banned, Path("ownerReferences"))) == [
        'ownerReferences[0]: Invalid value: {"apiVersion":"v1","kind":"Event","name":"name","uid":"1"}: '
        "/v1, Kind=Event is disallowed from being an owner"]
    bad_gv = [ref(api_version="a/b/c", kind="k", name="n", uid="1")]
    assert _msgs(om.validate_owner_references(bad_gv, Path("o"))) == [
        'o[0].apiVersion: Invalid value: "a/b/c": must be <group>/<version> or <version>']
    two = [ref(api_version="v1", kind=f"customresourceKind{i}", name="name", uid=str(i), controller=True)
           for i in (1, 2, 3)]
    msgs = _msgs(om.validate_owner_references(two, Path("o")))
    assert len(msgs) == 2
    assert msgs[0].endswith('Only one reference can have Controller set to true. Found "true" in references for '
                            "customresourceKind1/name and customresourceKind2/name")
    empty = [ref()]
    assert _msgs(om.validate_owner_references(empty, Path("o"))) == [
        "o[0].apiVersion: Required value: must not be empty", "o[0].kind: Required value: must not be empty",
        "o[0].name: Required value: must not be empty", "o[0].uid: Required value: must not be empty"]


def test_finalizers_and_managed_fields():
    assert _msgs(om.validate_finalizers(["orphan", "foregroundDeletion"], Path("f"))) == [
        'f: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set']
    mf = [metav1.ManagedFieldsEntry(manager="m\x07", operation="Patch", fields_type="Other")]
    assert _msgs(om.validate_managed_fields(mf, Path("managedFields"))) == [
        'managedFields[0].operation: Unsupported value: "Patch": supported values: "Apply", "Update"',
        'managedFields[0].fieldsType: Invalid value: "Other": must be `FieldsV1`',
        'managedFields[0].manager: Invalid value: "m\\a": invalid character U+0007 (at position 1)',
    ]


def test_label_selector_validation():
    ps = metav1.LabelSelector(match_labels={"app": "-x"}, match_expressions=[
        metav1.LabelSelectorRequirement(key="k", operator="In"),
        metav1.LabelSelectorRequirement(key="k", operator="Exists", values=["a"]),
        metav1.LabelSelectorRequirement(key="k", operator="Foo")])
    msgs = _msgs(om.validate_label_selector(ps, Path("spec", "selector")))
    assert msgs[0].startswith('spec.selector.matchLabels: Invalid value: "-x": a valid label must be')
    assert msgs[1:] == [
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or "
        "'DoesNotExist'",
        'spec.selector.matchExpressions[2].operator: Invalid value: "Foo": not a valid selector operator',
    ]
