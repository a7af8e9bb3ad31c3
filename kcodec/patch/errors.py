"""Errors of kcodec.patch, with Go's texts and the HTTP answer kube-apiserver gives each.

kube-apiserver's patch handler (k8s.io/apiserver pkg/endpoints/handlers/patch.go) sorts the
errors of its patch libraries into answers: a JSON patch that does not decode is a 400
BadRequest, one that does not apply a 422 (``NewGenericServerResponse(422, ...)``, reason
Invalid), one with too many operations a 413; a strategic merge patch error is a 400 or a 422
for the sentinel errors ``interpretStrategicMergePatchError`` names, and any other error is
returned as it is, which the handler answers with a 500 and reason "" (Go's behaviour for, say,
a list element missing its merge key). Each error here carries that answer as ``code`` (and
``reason``) so the server can build the metav1.Status without knowing the libraries.
"""
from __future__ import annotations

from kcodec.errors import KCodecError

__all__ = [
    "PatchError",
    "JSONPatchDecodeError",
    "JSONPatchApplyError",
    "JSONPatchTooLargeError",
    "MergePatchError",
    "StrategicMergePatchError",
    "MergeConflictError",
    "PreconditionFailedError",
    "ERR_BAD_JSON_DOC",
    "ERR_NO_LIST_OF_LISTS",
    "ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST",
    "ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS",
    "ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST",
    "ERR_PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS",
    "ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT",
]


class PatchError(KCodecError):
    """A patch that cannot be decoded or applied. ``str(e)`` is Go's error text; ``code``
    and ``reason`` the HTTP status code and metav1 StatusReason kube-apiserver answers with."""

    code: int = 500
    reason: str = ""

    def __init__(self, message: str, *, code: int | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if reason is not None:
            self.reason = reason

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code})"


class JSONPatchDecodeError(PatchError):
    """The JSON patch document is not a JSON array of operations (jsonpatch.DecodePatch)."""

    code = 400
    reason = "BadRequest"


class JSONPatchApplyError(PatchError):
    """An operation of a JSON patch does not apply (jsonpatch Patch.Apply): 422."""

    code = 422
    reason = "Invalid"


class JSONPatchTooLargeError(PatchError):
    """More operations than kube-apiserver allows (maxJSONPatchOperations): 413."""

    code = 413
    reason = "RequestEntityTooLarge"


class MergePatchError(PatchError):
    """evanphx/json-patch MergePatch's ErrBadJSONPatch (400) or ErrBadJSONDoc (500)."""


class StrategicMergePatchError(PatchError):
    """An error of apimachinery pkg/util/strategicpatch (and pkg/util/mergepatch)."""


class MergeConflictError(StrategicMergePatchError):
    """mergepatch.ErrConflict: a three-way patch changes what the live object changed."""

    code = 409
    reason = "Conflict"


class PreconditionFailedError(StrategicMergePatchError):
    """mergepatch.ErrPreconditionFailed: a patch precondition function refused the patch."""

    code = 422
    reason = "Invalid"


class _Sentinel(StrategicMergePatchError):
    """One of mergepatch's sentinel errors (compare by ``is`` or by ``sentinel``)."""

    def __init__(self, message: str, code: int, reason: str) -> None:
        super().__init__(message, code=code, reason=reason)


# mergepatch/errors.go's sentinels, with the answer interpretStrategicMergePatchError gives.
ERR_BAD_JSON_DOC = _Sentinel("invalid JSON document", 400, "BadRequest")
ERR_NO_LIST_OF_LISTS = _Sentinel("lists of lists are not supported", 422, "Invalid")
ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST = _Sentinel("invalid patch format of primitive list", 400, "BadRequest")
ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS = _Sentinel("invalid patch format of retainKeys", 400, "BadRequest")
ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST = _Sentinel(
    "invalid patch format of setElementOrder list", 400, "BadRequest")
ERR_PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS = _Sentinel("patch content doesn't match retainKeys list", 422, "Invalid")
ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT = _Sentinel(
    "strategic merge patch format is not supported", 400, "BadRequest")
