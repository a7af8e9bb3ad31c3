"""API errors: exceptions that carry a ``metav1.Status``, as apimachinery ``pkg/api/errors``.

Go: ``k8s.io/apimachinery/pkg/api/errors/errors.go`` (constructors, predicates) and
``k8s.io/apiserver/pkg/storage/errors/storage.go`` (``Interpret*Error``: what a storage
error becomes at the registry). Every constructor gives the Status Go builds: code, reason,
details and the message text, so that a client matching on them (kubectl, client-go's
``IsNotFound``) sees what kube-apiserver would send.

:class:`StatusError` is a :class:`kcodec.errors.KCodecError`; ``str(err)`` is the Status
message. The predicates accept any exception (``False`` for those that carry no Status),
as Go's accept any ``error``.
"""
from __future__ import annotations

from typing import Any

from kcodec.errors import KCodecError
from kcodec.gofmt import quote as _q  # Go's %q
from kcodec.schema import GroupKind, GroupResource

__all__ = [
    "StatusError",
    "UnexpectedObjectError",
    "STATUS_SUCCESS",
    "STATUS_FAILURE",
    "new_not_found",
    "new_already_exists",
    "new_generate_name_conflict",
    "new_unauthorized",
    "new_forbidden",
    "new_conflict",
    "new_apply_conflict",
    "new_gone",
    "new_resource_expired",
    "new_invalid",
    "new_bad_request",
    "new_too_many_requests",
    "new_too_many_requests_error",
    "new_service_unavailable",
    "new_method_not_supported",
    "new_server_timeout",
    "new_server_timeout_for_kind",
    "new_internal_error",
    "new_timeout_error",
    "new_request_entity_too_large_error",
    "new_generic_server_response",
    "from_object",
    "reason_for_error",
    "has_status_cause",
    "status_cause",
    "is_not_found",
    "is_already_exists",
    "is_conflict",
    "is_invalid",
    "is_gone",
    "is_resource_expired",
    "is_not_acceptable",
    "is_unsupported_media_type",
    "is_method_not_supported",
    "is_service_unavailable",
    "is_bad_request",
    "is_unauthorized",
    "is_forbidden",
    "is_timeout",
    "is_server_timeout",
    "is_internal_error",
    "is_too_many_requests",
    "is_request_entity_too_large_error",
    "is_unexpected_server_error",
    "is_store_read_error",
    "suggests_client_delay",
    "interpret_get_error",
    "interpret_list_error",
    "interpret_create_error",
    "interpret_update_error",
    "interpret_delete_error",
    "interpret_watch_error",
    "to_status_error",
]

STATUS_SUCCESS = "Success"
STATUS_FAILURE = "Failure"

# metav1.StatusReason values (types.go).
REASON_UNKNOWN = ""
REASON_UNAUTHORIZED = "Unauthorized"
REASON_FORBIDDEN = "Forbidden"
REASON_NOT_FOUND = "NotFound"
REASON_ALREADY_EXISTS = "AlreadyExists"
REASON_CONFLICT = "Conflict"
REASON_GONE = "Gone"
REASON_INVALID = "Invalid"
REASON_SERVER_TIMEOUT = "ServerTimeout"
REASON_STORE_READ_ERROR = "StorageReadError"
REASON_TIMEOUT = "Timeout"
REASON_TOO_MANY_REQUESTS = "TooManyRequests"
REASON_BAD_REQUEST = "BadRequest"
REASON_METHOD_NOT_ALLOWED = "MethodNotAllowed"
REASON_NOT_ACCEPTABLE = "NotAcceptable"
REASON_REQUEST_ENTITY_TOO_LARGE = "RequestEntityTooLarge"
REASON_UNSUPPORTED_MEDIA_TYPE = "UnsupportedMediaType"
REASON_INTERNAL_ERROR = "InternalError"
REASON_EXPIRED = "Expired"
REASON_SERVICE_UNAVAILABLE = "ServiceUnavailable"

CAUSE_TYPE_UNEXPECTED_SERVER_RESPONSE = "UnexpectedServerResponse"

_KNOWN_REASONS = frozenset({
    REASON_UNAUTHORIZED, REASON_FORBIDDEN, REASON_NOT_FOUND, REASON_ALREADY_EXISTS, REASON_CONFLICT,
    REASON_GONE, REASON_INVALID, REASON_SERVER_TIMEOUT, REASON_STORE_READ_ERROR, REASON_TIMEOUT,
    REASON_TOO_MANY_REQUESTS, REASON_BAD_REQUEST, REASON_METHOD_NOT_ALLOWED, REASON_NOT_ACCEPTABLE,
    REASON_REQUEST_ENTITY_TOO_LARGE, REASON_UNSUPPORTED_MEDIA_TYPE, REASON_INTERNAL_ERROR, REASON_EXPIRED,
    REASON_SERVICE_UNAVAILABLE,
})

# net/http status texts the constructors use.
_OK, _BAD_REQUEST, _UNAUTHORIZED, _FORBIDDEN, _NOT_FOUND = 200, 400, 401, 403, 404
_METHOD_NOT_ALLOWED, _NOT_ACCEPTABLE, _CONFLICT, _GONE = 405, 406, 409, 410
_REQUEST_ENTITY_TOO_LARGE, _UNSUPPORTED_MEDIA_TYPE, _UNPROCESSABLE_ENTITY = 413, 415, 422
_TOO_MANY_REQUESTS, _INTERNAL_SERVER_ERROR, _SERVICE_UNAVAILABLE, _GATEWAY_TIMEOUT = 429, 500, 503, 504


def _status_classes() -> tuple[type, type, type]:
    from kcodec.api.meta.v1 import Status, StatusCause, StatusDetails

    return Status, StatusCause, StatusDetails


def _gr(value: Any) -> GroupResource:
    if isinstance(value, GroupResource):
        return value
    if value is None:
        return GroupResource("", "")
    return GroupResource(*value)


def _gr_empty(gr: GroupResource) -> bool:
    return not gr.group and not gr.resource


def _err_text(err: Any) -> str:
    """Go's ``%v`` of an error value."""
    if err is None:
        return "<nil>"
    return str(err)


class StatusError(KCodecError):
    """An error that is a ``metav1.Status`` (Go's ``*StatusError``).

    ``status`` is the :class:`kcodec.api.meta.v1.Status` (kind "Status", apiVersion "v1",
    status "Failure"); ``code``, ``reason``, ``details`` and ``message`` read it.
    """

    def __init__(self, status: Any) -> None:
        if not status.kind:
            status.kind = "Status"
        if not status.api_version:
            status.api_version = "v1"
        self.status = status
        super().__init__(status.message)

    def __str__(self) -> str:
        return self.status.message

    def __repr__(self) -> str:
        return f"StatusError(code={self.code}, reason={self.reason!r}, message={self.message!r})"

    def __reduce__(self):  # picklable across processes
        return (_status_error_from_dict, (self.status.to_dict(),))

    @property
    def code(self) -> int:
        return int(self.status.code)

    @property
    def reason(self) -> str:
        return self.status.reason

    @property
    def message(self) -> str:
        return self.status.message

    @property
    def details(self) -> Any:
        return self.status.details

    def error_status(self) -> Any:
        """Go's ``Status()``: the Status this error carries."""
        return self.status


def _status_error_from_dict(d: dict) -> StatusError:
    Status, _, _ = _status_classes()
    return StatusError(Status.from_dict(d))


def _new(code: int, reason: str, message: str, details: Any = None) -> StatusError:
    Status, _, _ = _status_classes()
    return StatusError(Status(api_version="v1", kind="Status", status=STATUS_FAILURE, code=code, reason=reason,
                              message=message, details=details))


def _details(gr: GroupResource | None = None, name: str = "", *, kind: str | None = None, causes: Any = None,
             retry_after_seconds: int = 0, uid: str = "") -> Any:
    _, _, StatusDetails = _status_classes()
    group = gr.group if gr is not None else ""
    k = kind if kind is not None else (gr.resource if gr is not None else "")
    return StatusDetails(name=name, group=group, kind=k, uid=uid, causes=causes,
                         retry_after_seconds=int(retry_after_seconds))


class UnexpectedObjectError(KCodecError):
    """Go's ``UnexpectedObjectError``: :func:`from_object` got something that is not a Status."""

    def __init__(self, obj: Any) -> None:
        self.object = obj
        super().__init__(f"unexpected object: {obj!r}")


def from_object(obj: Any) -> Exception:
    """Go's ``FromObject``: a :class:`StatusError` for a Status (typed, or an Unstructured
    of kind Status and apiVersion v1 or meta.k8s.io/v1), else :class:`UnexpectedObjectError`."""
    Status, _, _ = _status_classes()
    if isinstance(obj, Status):
        return StatusError(obj.deep_copy())
    if hasattr(obj, "unstructured_content"):
        content = obj.unstructured_content()
        if content.get("kind") == "Status":
            try:
                status = Status.from_dict(content)
            except (KCodecError, ValueError, TypeError) as exc:
                return exc
            if status.api_version in ("v1", "meta.k8s.io/v1"):
                return StatusError(status)
    return UnexpectedObjectError(obj)


# ------------------------------------------------------------------------------ constructors

def new_not_found(qualified_resource: GroupResource, name: str) -> StatusError:
    """404 NotFound: ``configmaps "x" not found``."""
    gr = _gr(qualified_resource)
    return _new(_NOT_FOUND, REASON_NOT_FOUND, f"{gr} {_q(name)} not found", _details(gr, name))


def new_already_exists(qualified_resource: GroupResource, name: str) -> StatusError:
    """409 AlreadyExists: ``configmaps "x" already exists``."""
    gr = _gr(qualified_resource)
    return _new(_CONFLICT, REASON_ALREADY_EXISTS, f"{gr} {_q(name)} already exists", _details(gr, name))


def new_generate_name_conflict(qualified_resource: GroupResource, name: str, retry_after_seconds: int) -> StatusError:
    """409 AlreadyExists for a generated name that collided."""
    gr = _gr(qualified_resource)
    return _new(_CONFLICT, REASON_ALREADY_EXISTS,
                f"{gr} {_q(name)} already exists, the server was not able to generate a unique name for the object",
                _details(gr, name, retry_after_seconds=retry_after_seconds))


def new_unauthorized(reason: str) -> StatusError:
    """401 Unauthorized (message "not authorized" when empty)."""
    return _new(_UNAUTHORIZED, REASON_UNAUTHORIZED, reason or "not authorized")


def new_forbidden(qualified_resource: GroupResource, name: str, err: Any) -> StatusError:
    """403 Forbidden: ``pods "x" is forbidden: <err>``."""
    gr = _gr(qualified_resource)
    if _gr_empty(gr):
        message = f"forbidden: {_err_text(err)}"
    elif not name:
        message = f"{gr} is forbidden: {_err_text(err)}"
    else:
        message = f"{gr} {_q(name)} is forbidden: {_err_text(err)}"
    return _new(_FORBIDDEN, REASON_FORBIDDEN, message, _details(gr, name))


def new_conflict(qualified_resource: GroupResource, name: str, err: Any) -> StatusError:
    """409 Conflict: ``Operation cannot be fulfilled on configmaps "x": <err>``."""
    gr = _gr(qualified_resource)
    return _new(_CONFLICT, REASON_CONFLICT, f"Operation cannot be fulfilled on {gr} {_q(name)}: {_err_text(err)}",
                _details(gr, name))


def new_apply_conflict(causes: list[Any], message: str) -> StatusError:
    """409 Conflict of server-side apply, with one cause per conflicting field."""
    _, _, StatusDetails = _status_classes()
    return _new(_CONFLICT, REASON_CONFLICT, message, StatusDetails(causes=list(causes)))


def new_gone(message: str) -> StatusError:
    """410 Gone."""
    return _new(_GONE, REASON_GONE, message)


def new_resource_expired(message: str) -> StatusError:
    """410 Expired (a compacted resourceVersion or continue token)."""
    return _new(_GONE, REASON_EXPIRED, message)


def new_invalid(qualified_kind: GroupKind, name: str, errs: Any) -> StatusError:
    """422 Invalid from a field ErrorList: ``Deployment.apps "x" is invalid: <aggregate>``.

    ``errs`` is a :class:`kcodec.validation.field.ErrorList` (or any list of field errors:
    each needs ``.type`` (the enum, whose value is Go's type string), ``.field`` and
    ``.error_body()``); the message uses Go's aggregate text.
    """
    _, StatusCause, StatusDetails = _status_classes()
    gk = qualified_kind if isinstance(qualified_kind, GroupKind) else GroupKind(*qualified_kind)
    errs = list(errs or ())
    causes = [StatusCause(type=getattr(e.type, "value", e.type), message=e.error_body(), field=e.field)
              for e in errs]
    aggregate = _aggregate(errs)
    if aggregate is None:
        message = f"{gk} {_q(name)} is invalid"
    else:
        message = f"{gk} {_q(name)} is invalid: {aggregate}"
    return _new(_UNPROCESSABLE_ENTITY, REASON_INVALID, message,
                StatusDetails(group=gk.group, kind=gk.kind, name=name, causes=causes))


def _aggregate(errs: list[Any]) -> str | None:
    """Go's ``ErrorList.ToAggregate().Error()``: deduplicated messages, ``[a, b]`` when several."""
    if not errs:
        return None
    to_aggregate = getattr(errs, "to_aggregate", None)
    if to_aggregate is not None:
        return to_aggregate()
    seen: set[str] = set()
    msgs: list[str] = []
    for e in errs:
        text = e.error() if hasattr(e, "error") else str(e)
        if text not in seen:
            seen.add(text)
            msgs.append(text)
    if len(msgs) == 1:
        return msgs[0]
    return "[" + ", ".join(msgs) + "]"


def new_bad_request(reason: str) -> StatusError:
    """400 BadRequest."""
    return _new(_BAD_REQUEST, REASON_BAD_REQUEST, reason)


def new_too_many_requests(message: str, retry_after_seconds: int) -> StatusError:
    """429 TooManyRequests with a retry-after."""
    return _new(_TOO_MANY_REQUESTS, REASON_TOO_MANY_REQUESTS, message,
                _details(retry_after_seconds=retry_after_seconds))


def new_too_many_requests_error(message: str) -> StatusError:
    """429 ``Too many requests: <message>``."""
    return _new(_TOO_MANY_REQUESTS, REASON_TOO_MANY_REQUESTS, f"Too many requests: {message}")


def new_service_unavailable(reason: str) -> StatusError:
    """503 ServiceUnavailable."""
    return _new(_SERVICE_UNAVAILABLE, REASON_SERVICE_UNAVAILABLE, reason)


def new_method_not_supported(qualified_resource: GroupResource, action: str) -> StatusError:
    """405 MethodNotAllowed: ``<action> is not supported on resources of kind "<gr>"``."""
    gr = _gr(qualified_resource)
    _, _, StatusDetails = _status_classes()
    return _new(_METHOD_NOT_ALLOWED, REASON_METHOD_NOT_ALLOWED,
                f"{action} is not supported on resources of kind {_q(str(gr))}",
                StatusDetails(group=gr.group, kind=gr.resource))


def new_server_timeout(qualified_resource: GroupResource, operation: str, retry_after_seconds: int) -> StatusError:
    """500 ServerTimeout (the storage backend did not answer)."""
    gr = _gr(qualified_resource)
    return _new(_INTERNAL_SERVER_ERROR, REASON_SERVER_TIMEOUT,
                f"The {operation} operation against {gr} could not be completed at this time, please try again.",
                _details(gr, operation, retry_after_seconds=retry_after_seconds))


def new_server_timeout_for_kind(qualified_kind: GroupKind, operation: str, retry_after_seconds: int) -> StatusError:
    """:func:`new_server_timeout` naming a kind."""
    return new_server_timeout(GroupResource(qualified_kind.group, qualified_kind.kind), operation, retry_after_seconds)


def new_internal_error(err: Any) -> StatusError:
    """500 InternalError: ``Internal error occurred: <err>``."""
    _, StatusCause, StatusDetails = _status_classes()
    text = _err_text(err)
    return _new(_INTERNAL_SERVER_ERROR, REASON_INTERNAL_ERROR, f"Internal error occurred: {text}",
                StatusDetails(causes=[StatusCause(message=text)]))


def new_timeout_error(message: str, retry_after_seconds: int) -> StatusError:
    """504 Timeout: ``Timeout: <message>``."""
    return _new(_GATEWAY_TIMEOUT, REASON_TIMEOUT, f"Timeout: {message}",
                _details(retry_after_seconds=retry_after_seconds))


def new_request_entity_too_large_error(message: str) -> StatusError:
    """413 RequestEntityTooLarge: ``Request entity too large: <message>``."""
    return _new(_REQUEST_ENTITY_TOO_LARGE, REASON_REQUEST_ENTITY_TOO_LARGE, f"Request entity too large: {message}")


def new_generic_server_response(code: int, verb: str, qualified_resource: GroupResource, name: str,
                                server_message: str, retry_after_seconds: int,
                                is_unexpected_response: bool) -> StatusError:
    """Go's ``NewGenericServerResponse``: the error a client makes of a bare HTTP answer."""
    _, StatusCause, _ = _status_classes()
    gr = _gr(qualified_resource)
    reason = REASON_UNKNOWN
    message = f"the server responded with the status code {code} but did not return more information"
    if code == _CONFLICT:
        reason = REASON_ALREADY_EXISTS if verb == "POST" else REASON_CONFLICT
        message = "the server reported a conflict"
    elif code == _NOT_FOUND:
        reason, message = REASON_NOT_FOUND, "the server could not find the requested resource"
    elif code == _BAD_REQUEST:
        reason, message = REASON_BAD_REQUEST, "the server rejected our request for an unknown reason"
    elif code == _UNAUTHORIZED:
        reason, message = REASON_UNAUTHORIZED, "the server has asked for the client to provide credentials"
    elif code == _FORBIDDEN:
        reason, message = REASON_FORBIDDEN, server_message
    elif code == _NOT_ACCEPTABLE:
        reason = REASON_NOT_ACCEPTABLE
        if not server_message or server_message == "unknown":
            message = "the server was unable to respond with a content type that the client supports"
        else:
            message = server_message
    elif code == _UNSUPPORTED_MEDIA_TYPE:
        reason, message = REASON_UNSUPPORTED_MEDIA_TYPE, server_message
    elif code == _METHOD_NOT_ALLOWED:
        reason, message = REASON_METHOD_NOT_ALLOWED, "the server does not allow this method on the requested resource"
    elif code == _UNPROCESSABLE_ENTITY:
        reason, message = REASON_INVALID, "the server rejected our request due to an error in our request"
    elif code == _SERVICE_UNAVAILABLE:
        reason, message = REASON_SERVICE_UNAVAILABLE, "the server is currently unable to handle the request"
    elif code == _GATEWAY_TIMEOUT:
        reason = REASON_TIMEOUT
        message = ("the server was unable to return a response in the time allotted, "
                   "but may still be processing the request")
    elif code == _TOO_MANY_REQUESTS:
        reason = REASON_TOO_MANY_REQUESTS
        message = "the server has received too many requests and has asked us to try again later"
    elif code >= 500:
        reason = REASON_INTERNAL_ERROR
        message = f"an error on the server ({_q(server_message)}) has prevented the request from succeeding"
    if not _gr_empty(gr) and name:
        message = f"{message} ({verb.lower()} {gr} {name})"
    elif not _gr_empty(gr):
        message = f"{message} ({verb.lower()} {gr})"
    causes = ([StatusCause(type=CAUSE_TYPE_UNEXPECTED_SERVER_RESPONSE, message=server_message)]
              if is_unexpected_response else None)
    return _new(code, reason, message, _details(gr, name, causes=causes, retry_after_seconds=retry_after_seconds))


# ------------------------------------------------------------------------------ predicates

def _status_of(err: Any) -> Any:
    if isinstance(err, StatusError):
        return err.status
    status = getattr(err, "status", None)
    Status, _, _ = _status_classes()
    if isinstance(status, Status):
        return status
    cause = getattr(err, "__cause__", None)
    if cause is not None and cause is not err:
        return _status_of(cause)
    return None


def _reason_and_code(err: Any) -> tuple[str, int]:
    status = _status_of(err)
    if status is None:
        return REASON_UNKNOWN, 0
    return status.reason, int(status.code)


def reason_for_error(err: Any) -> str:
    """The Status reason of ``err`` ("" when it carries no Status)."""
    return _reason_and_code(err)[0]


def _is(err: Any, reason: str, code: int) -> bool:
    r, c = _reason_and_code(err)
    return r == reason or (r not in _KNOWN_REASONS and c == code)


def is_not_found(err: Any) -> bool:
    return _is(err, REASON_NOT_FOUND, _NOT_FOUND)


def is_already_exists(err: Any) -> bool:
    return reason_for_error(err) == REASON_ALREADY_EXISTS


def is_conflict(err: Any) -> bool:
    return _is(err, REASON_CONFLICT, _CONFLICT)


def is_invalid(err: Any) -> bool:
    return _is(err, REASON_INVALID, _UNPROCESSABLE_ENTITY)


def is_gone(err: Any) -> bool:
    return _is(err, REASON_GONE, _GONE)


def is_resource_expired(err: Any) -> bool:
    return reason_for_error(err) == REASON_EXPIRED


def is_not_acceptable(err: Any) -> bool:
    return _is(err, REASON_NOT_ACCEPTABLE, _NOT_ACCEPTABLE)


def is_unsupported_media_type(err: Any) -> bool:
    return _is(err, REASON_UNSUPPORTED_MEDIA_TYPE, _UNSUPPORTED_MEDIA_TYPE)


def is_method_not_supported(err: Any) -> bool:
    return _is(err, REASON_METHOD_NOT_ALLOWED, _METHOD_NOT_ALLOWED)


def is_service_unavailable(err: Any) -> bool:
    return _is(err, REASON_SERVICE_UNAVAILABLE, _SERVICE_UNAVAILABLE)


def is_bad_request(err: Any) -> bool:
    return _is(err, REASON_BAD_REQUEST, _BAD_REQUEST)


def is_unauthorized(err: Any) -> bool:
    return _is(err, REASON_UNAUTHORIZED, _UNAUTHORIZED)


def is_forbidden(err: Any) -> bool:
    return _is(err, REASON_FORBIDDEN, _FORBIDDEN)


def is_timeout(err: Any) -> bool:
    return _is(err, REASON_TIMEOUT, _GATEWAY_TIMEOUT)


def is_server_timeout(err: Any) -> bool:
    return reason_for_error(err) == REASON_SERVER_TIMEOUT


def is_internal_error(err: Any) -> bool:
    return _is(err, REASON_INTERNAL_ERROR, _INTERNAL_SERVER_ERROR)


def is_too_many_requests(err: Any) -> bool:
    r, c = _reason_and_code(err)
    return r == REASON_TOO_MANY_REQUESTS or c == _TOO_MANY_REQUESTS


def is_request_entity_too_large_error(err: Any) -> bool:
    r, c = _reason_and_code(err)
    return r == REASON_REQUEST_ENTITY_TOO_LARGE or c == _REQUEST_ENTITY_TOO_LARGE


def is_store_read_error(err: Any) -> bool:
    return reason_for_error(err) == REASON_STORE_READ_ERROR


def status_cause(err: Any, name: str) -> tuple[Any, bool]:
    """Go's ``StatusCause``: the first cause of type ``name`` and whether there was one."""
    _, StatusCause, _ = _status_classes()
    status = _status_of(err)
    if status is not None and status.details is not None:
        for cause in status.details.causes or ():
            if cause.type == name:
                return cause, True
    return StatusCause(), False


def has_status_cause(err: Any, name: str) -> bool:
    return status_cause(err, name)[1]


def is_unexpected_server_error(err: Any) -> bool:
    return has_status_cause(err, CAUSE_TYPE_UNEXPECTED_SERVER_RESPONSE)


def suggests_client_delay(err: Any) -> tuple[int, bool]:
    """Go's ``SuggestsClientDelay``: (seconds, True) when the Status asks to retry later."""
    status = _status_of(err)
    if status is not None and status.details is not None:
        if status.reason == REASON_SERVER_TIMEOUT:
            return int(status.details.retry_after_seconds), True
        if status.details.retry_after_seconds > 0:
            return int(status.details.retry_after_seconds), True
    return 0, False


# ------------------------------------------------------------------------------ storage errors
# apiserver pkg/storage/errors/storage.go. Errors of kcodec.storage that Go raises as API
# errors already (410 too old, 504 too large resource version, 400 bad continue) become the
# StatusError Go's storage layer returns for them.

def _storage_common(err: BaseException, qualified_resource: GroupResource, operation: str) -> Exception | None:
    from kcodec.storage import errors as serr

    if isinstance(err, serr.CorruptObjectError):
        return new_internal_error(err)
    if isinstance(err, serr.ResourceExpiredError):
        expired = new_resource_expired(str(err))
        if err.continue_token:
            expired.status.metadata.continue_ = err.continue_token
        return expired
    if isinstance(err, serr.TooLargeResourceVersionError):
        # storage.NewTooLargeResourceVersionError: a 504 whose cause says ResourceVersionTooLarge.
        _, StatusCause, StatusDetails = _status_classes()
        e = new_timeout_error(f"Too large resource version: {err.minimum_resource_version}, "
                              f"current: {err.current_revision}", 1)
        e.status.details = StatusDetails(retry_after_seconds=1, causes=[StatusCause(
            type="ResourceVersionTooLarge", message="Too large resource version")])
        return e
    if isinstance(err, serr.BadRequestError):
        return new_bad_request(str(err))
    if isinstance(err, serr.ResourceVersionSetOnCreateError):
        return new_internal_error(err)
    if isinstance(err, (serr.UnreachableError, serr.StorageTimeoutError)):
        return new_server_timeout(qualified_resource, operation, 2)
    return None


def interpret_get_error(err: BaseException, qualified_resource: GroupResource, name: str) -> Exception:
    """Go's ``storeerr.InterpretGetError``."""
    from kcodec.storage import errors as serr

    if isinstance(err, StatusError):
        return err
    if isinstance(err, serr.KeyNotFoundError):
        return new_not_found(qualified_resource, name)
    return _storage_common(err, qualified_resource, "get") or err


def interpret_list_error(err: BaseException, qualified_resource: GroupResource) -> Exception:
    """Go's ``storeerr.InterpretListError``."""
    from kcodec.storage import errors as serr

    if isinstance(err, StatusError):
        return err
    if isinstance(err, serr.KeyNotFoundError):
        return new_not_found(qualified_resource, "")
    return _storage_common(err, qualified_resource, "list") or err


def interpret_create_error(err: BaseException, qualified_resource: GroupResource, name: str) -> Exception:
    """Go's ``storeerr.InterpretCreateError``."""
    from kcodec.storage import errors as serr

    if isinstance(err, StatusError):
        return err
    if isinstance(err, serr.KeyExistsError):
        return new_already_exists(qualified_resource, name)
    return _storage_common(err, qualified_resource, "create") or err


def interpret_update_error(err: BaseException, qualified_resource: GroupResource, name: str) -> Exception:
    """Go's ``storeerr.InterpretUpdateError``."""
    from kcodec.storage import errors as serr

    if isinstance(err, StatusError):
        return err
    if isinstance(err, (serr.ConflictError, serr.KeyExistsError, serr.InvalidObjectError)):
        return new_conflict(qualified_resource, name, err)
    if isinstance(err, serr.KeyNotFoundError):
        return new_not_found(qualified_resource, name)
    return _storage_common(err, qualified_resource, "update") or err


def interpret_delete_error(err: BaseException, qualified_resource: GroupResource, name: str) -> Exception:
    """Go's ``storeerr.InterpretDeleteError``."""
    from kcodec.storage import errors as serr

    if isinstance(err, StatusError):
        return err
    if isinstance(err, serr.KeyNotFoundError):
        return new_not_found(qualified_resource, name)
    if isinstance(err, (serr.ConflictError, serr.KeyExistsError, serr.InvalidObjectError)):
        return new_conflict(qualified_resource, name, err)
    return _storage_common(err, qualified_resource, "delete") or err


def interpret_watch_error(err: BaseException, resource: GroupResource, name: str) -> Exception:
    """Go's ``storeerr.InterpretWatchError``."""
    if isinstance(err, StatusError):
        return err
    return _storage_common(err, resource, "watch") or err


def to_status_error(err: BaseException) -> StatusError:
    """The StatusError a server answers with for ``err``: itself when it is one, the
    storage layer's API error when Go has one, else 500 ``Internal error occurred``."""
    if isinstance(err, StatusError):
        return err
    interpreted = _storage_common(err, GroupResource("", ""), "")
    if isinstance(interpreted, StatusError):
        return interpreted
    return new_internal_error(err)
