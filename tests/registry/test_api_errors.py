"""kcodec.api.errors against apimachinery pkg/api/errors/errors.go and apiserver
pkg/storage/errors/storage.go: codes, reasons, details and message texts."""
from __future__ import annotations

import pickle

import pytest

from kcodec.api import errors as apierrors
from kcodec.api.meta.v1 import Status
from kcodec.errors import KCodecError
from kcodec.schema import GroupKind, GroupResource
from kcodec.storage import errors as serr

CM = GroupResource("", "configmaps")
DEPLOY = GroupResource("apps", "deployments")


def test_not_found_is_gos_status():
    e = apierrors.new_not_found(CM, "x")
    assert isinstance(e, KCodecError)
    assert str(e) == 'configmaps "x" not found'
    assert e.code == 404 and e.reason == "NotFound"
    d = e.status.to_dict()
    assert d == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                 "message": 'configmaps "x" not found', "reason": "NotFound",
                 "details": {"name": "x", "kind": "configmaps"}, "code": 404}
    assert apierrors.is_not_found(e) and not apierrors.is_conflict(e)


@pytest.mark.parametrize("make,code,reason,message", [
    (lambda: apierrors.new_already_exists(DEPLOY, "web"), 409, "AlreadyExists",
     'deployments.apps "web" already exists'),
    (lambda: apierrors.new_generate_name_conflict(CM, "a-xyz12", 1), 409, "AlreadyExists",
     'configmaps "a-xyz12" already exists, the server was not able to generate a unique name for the object'),
    (lambda: apierrors.new_conflict(CM, "x", "the object has been modified; please apply your changes to the "
                                    "latest version and try again"), 409, "Conflict",
     'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes '
     'to the latest version and try again'),
    (lambda: apierrors.new_forbidden(CM, "", "no"), 403, "Forbidden", "configmaps is forbidden: no"),
    (lambda: apierrors.new_forbidden(GroupResource("", ""), "", "no"), 403, "Forbidden", "forbidden: no"),
    (lambda: apierrors.new_forbidden(CM, "x", "no"), 403, "Forbidden", 'configmaps "x" is forbidden: no'),
    (lambda: apierrors.new_unauthorized(""), 401, "Unauthorized", "not authorized"),
    (lambda: apierrors.new_gone("gone"), 410, "Gone", "gone"),
    (lambda: apierrors.new_resource_expired("too old"), 410, "Expired", "too old"),
    (lambda: apierrors.new_bad_request("bad"), 400, "BadRequest", "bad"),
    (lambda: apierrors.new_method_not_supported(CM, "create"), 405, "MethodNotAllowed",
     'create is not supported on resources of kind "configmaps"'),
    (lambda: apierrors.new_internal_error("boom"), 500, "InternalError", "Internal error occurred: boom"),
    (lambda: apierrors.new_timeout_error("slow", 2), 504, "Timeout", "Timeout: slow"),
    (lambda: apierrors.new_too_many_requests("later", 3), 429, "TooManyRequests", "later"),
    (lambda: apierrors.new_request_entity_too_large_error("limit is 3145728"), 413, "RequestEntityTooLarge",
     "Request entity too large: limit is 3145728"),
    (lambda: apierrors.new_service_unavailable("down"), 503, "ServiceUnavailable", "down"),
    (lambda: apierrors.new_server_timeout(CM, "get", 2), 500, "ServerTimeout",
     "The get operation against configmaps could not be completed at this time, please try again."),
])
def test_constructors(make, code, reason, message):
    e = make()
    assert (e.code, e.reason, str(e)) == (code, reason, message)
    assert e.status.status == "Failure" and e.status.kind == "Status" and e.status.api_version == "v1"


def test_generic_server_response():
    e = apierrors.new_generic_server_response(409, "POST", CM, "x", "", 0, False)
    assert e.reason == "AlreadyExists"
    assert str(e) == "the server reported a conflict (post configmaps x)"
    e = apierrors.new_generic_server_response(502, "GET", GroupResource("", ""), "", "bad gw", 0, True)
    assert e.reason == "InternalError"
    assert str(e) == 'an error on the server ("bad gw") has prevented the request from succeeding'
    assert apierrors.is_unexpected_server_error(e)


def test_unknown_reason_falls_back_on_code():
    status = Status(status="Failure", code=404, reason="SomethingElse", message="m")
    assert apierrors.is_not_found(apierrors.StatusError(status))
    status = Status(status="Failure", code=404, reason="Conflict", message="m")
    assert not apierrors.is_not_found(apierrors.StatusError(status))


def test_from_object_and_pickle():
    e = apierrors.new_not_found(CM, "x")
    again = apierrors.from_object(e.status)
    assert isinstance(again, apierrors.StatusError) and str(again) == str(e)
    assert isinstance(apierrors.from_object(CM), apierrors.UnexpectedObjectError)
    copy = pickle.loads(pickle.dumps(e))
    assert copy.status == e.status
    assert apierrors.reason_for_error(ValueError("x")) == ""
    assert not apierrors.is_not_found(ValueError("x"))


def test_suggests_client_delay():
    assert apierrors.suggests_client_delay(apierrors.new_server_timeout(CM, "get", 2)) == (2, True)
    assert apierrors.suggests_client_delay(apierrors.new_too_many_requests("x", 5)) == (5, True)
    assert apierrors.suggests_client_delay(apierrors.new_bad_request("x")) == (0, False)


def test_interpret_storage_errors():
    key = "/registry/configmaps/default/x"
    assert apierrors.is_not_found(apierrors.interpret_get_error(serr.KeyNotFoundError(key), CM, "x"))
    e = apierrors.interpret_create_error(serr.KeyExistsError(key), CM, "x")
    assert str(e) == 'configmaps "x" already exists'
    e = apierrors.interpret_update_error(serr.InvalidObjectError(key, 0, "Precondition failed: UID in "
                                                                "precondition: a, UID in object meta: b"), CM, "x")
    assert e.reason == "Conflict"
    assert str(e) == ('Operation cannot be fulfilled on configmaps "x": StorageError: invalid object, Code: 4, '
                      'Key: /registry/configmaps/default/x, ResourceVersion: 0, AdditionalErrorMsg: '
                      'Precondition failed: UID in precondition: a, UID in object meta: b')
    e = apierrors.interpret_delete_error(serr.KeyNotFoundError(key), CM, "x")
    assert str(e) == 'configmaps "x" not found'
    e = apierrors.interpret_list_error(serr.ResourceExpiredError("too old", continue_token="tok"), CM)
    assert (e.code, e.reason, e.status.metadata.continue_) == (410, "Expired", "tok")
    e = apierrors.interpret_get_error(serr.TooLargeResourceVersionError(9, 5), CM, "x")
    assert (e.code, str(e)) == (504, "Timeout: Too large resource version: 9, current: 5")
    assert apierrors.has_status_cause(e, "ResourceVersionTooLarge")
    e = apierrors.interpret_get_error(serr.CorruptObjectError(key, 3, "bad"), CM, "x")
    assert e.code == 500 and e.reason == "InternalError"
    e = apierrors.interpret_get_error(serr.UnreachableError(key), CM, "x")
    assert e.reason == "ServerTimeout"
    other = ValueError("x")
    assert apierrors.interpret_get_error(other, CM, "x") is other
    assert apierrors.to_status_error(other).code == 500


def test_invalid_from_field_errors():
    """NewInvalid: one cause per field error (type, ErrorBody, field), Go's aggregate message."""
    from kcodec.validation import field

    errs = field.ErrorList([
        field.required(field.Path("spec", "selector"), ""),
        field.invalid(field.Path("spec", "replicas"), -1, "must be greater than or equal to 0"),
    ])
    e = apierrors.new_invalid(GroupKind("apps", "Deployment"), "web", errs)
    assert (e.code, e.reason) == (422, "Invalid")
    assert str(e) == ('Deployment.apps "web" is invalid: [spec.selector: Required value, spec.replicas: '
                      'Invalid value: -1: must be greater than or equal to 0]')
    causes = [(c.type, c.message, c.field) for c in e.status.details.causes]
    assert causes == [("FieldValueRequired", "Required value", "spec.selector"),
                      ("FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0", "spec.replicas")]
    assert (e.status.details.group, e.status.details.kind, e.status.details.name) == ("apps", "Deployment", "web")
    assert str(apierrors.new_invalid(GroupKind("", "ConfigMap"), "x", field.ErrorList())) == 'ConfigMap "x" is invalid'
    assert apierrors.is_invalid(e)
