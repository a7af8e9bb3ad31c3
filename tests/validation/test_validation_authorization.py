"""SubjectAccessReview, SelfSubjectAccessReview and LocalSubjectAccessReview validation,
cases rebuilt from k/k pkg/apis/authorization/validation/validation_test.go
(TestValidateSARSpec, TestValidateSelfSAR, TestValidateLocalSAR, TestValidateSARSpec's
field and label selector cases), and the review storages answering 422 as Go's REST does."""
from __future__ import annotations

import json

import pytest

from kcodec import legacyscheme
from kcodec.api import errors as apierrors
from kcodec.api.authorization import validation as av
from kcodec.registry.builtin import resource_info
from kcodec.registry.builtin.reviews import ReviewREST
from kcodec.registry.request import Context, UserInfo


def internal(kind: str, spec: dict, metadata: dict | None = None):
    doc = {"apiVersion": "authorization.k8s.io/v1", "kind": kind, "spec": spec}
    if metadata is not None:
        doc["metadata"] = metadata
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


def test_subject_access_review():
    good = {"user": "me", "resourceAttributes": {"verb": "get", "resource": "pods"}}
    assert msgs(av.validate_subject_access_review(internal("SubjectAccessReview", good))) == []
    assert msgs(av.validate_subject_access_review(internal("SubjectAccessReview", {}))) == [
        "spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes "
        "must be specified",
        'spec.user: Invalid value: "": at least one of user or group must be specified']
    both = {"groups": ["g"], "resourceAttributes": {}, "nonResourceAttributes": {"path": "/x", "verb": "get"}}
    assert msgs(av.validate_subject_access_review(internal("SubjectAccessReview", both))) == [
        'spec.nonResourceAttributes: Invalid value: {"Path":"/x","Verb":"get"}: cannot be specified in combination '
        "with resourceAttributes"]
    errs = msgs(av.validate_subject_access_review(internal("SubjectAccessReview", good, {"name": "foo"})))
    assert len(errs) == 1 and errs[0].startswith("metadata: Invalid value: ") and errs[0].endswith(": must be empty")


def test_selector_attributes():
    spec = {"user": "me", "resourceAttributes": {
        "verb": "list", "resource": "pods",
        "fieldSelector": {"rawSelector": "a=b", "requirements": [{"key": "", "operator": "In", "values": []}]},
        "labelSelector": {}}}
    assert msgs(av.validate_subject_access_review(internal("SubjectAccessReview", spec))) == [
        'spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "a=b": may not specified at the same '
        "time as requirements",
        "spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified",
        "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be only one value when "
        "`operator` is 'In' or 'NotIn' for field selector",
        "spec.resourceAttributes.labelSelector.requirements: Required value: when spec.resourceAttributes."
        "labelSelector is specified, requirements or rawSelector is required"]
    # operators this server does not know are allowed for skewed clients
    spec["resourceAttributes"]["fieldSelector"] = {"requirements": [{"key": "a", "operator": "Future"}]}
    spec["resourceAttributes"]["labelSelector"] = {"requirements": [{"key": "a", "operator": "Future"}]}
    assert msgs(av.validate_subject_access_review(internal("SubjectAccessReview", spec))) == []


def test_local_and_self():
    local = internal("LocalSubjectAccessReview", {"user": "me", "resourceAttributes": {"namespace": "other"},
                                                  "nonResourceAttributes": {"path": "/"}},
                     {"namespace": "ns", "labels": {"a": "b"}})
    errs = msgs(av.validate_local_subject_access_review(local))
    assert errs[0].startswith("spec.nonResourceAttributes: Invalid value: ")
    assert errs[1].endswith(": must be empty except for namespace")
    assert errs[2:] == ['spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace',
                        'spec.nonResourceAttributes: Invalid value: {"Path":"/","Verb":""}: disallowed on this kind of request']
    assert msgs(av.validate_self_subject_access_review(internal("SelfSubjectAccessReview", {}))) == [
        "spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes "
        "must be specified"]


def test_review_storages_answer_422():
    sar = ReviewREST(resource_info("authorization.k8s.io", "subjectaccessreviews"))
    with pytest.raises(apierrors.StatusError) as err:
        sar.create(Context(), internal("SubjectAccessReview", {"resourceAttributes": {"verb": "get"}}))
    assert err.value.code == 422
    assert str(err.value) == ('SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": '
                              "at least one of user or group must be specified")
    local = ReviewREST(resource_info("authorization.k8s.io", "localsubjectaccessreviews"))
    out = local.create(Context(namespace="ns", user=UserInfo(name="me")), internal(
        "LocalSubjectAccessReview", {"user": "me", "resourceAttributes": {"namespace": "ns", "verb": "get"}}))
    assert out.status.allowed is True and out.metadata.namespace == "ns"
