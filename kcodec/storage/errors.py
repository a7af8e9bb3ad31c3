"""Errors of the storage layer, as apiserver's ``pkg/storage/errors.go`` words them.

Go returns a ``*StorageError`` with a numeric code for the outcomes a caller branches on
(key not found, key exists, conflict, invalid object, unreachable, timeout, corrupt object);
its text is ``StorageError: <what>, Code: <n>, Key: <key>, ResourceVersion: <rv>,
AdditionalErrorMsg: <detail>``. Here each code is a subclass of :class:`StorageError`, the
text is Go's, and the key, code and resource version are attributes. The list and watch
errors that Go raises as API status errors (410 Gone "too old", 504 "Too large resource
version", 400 bad request) are :class:`ResourceExpiredError`,
:class:`TooLargeResourceVersionError` and :class:`BadRequestError`.

A stored value that cannot be read back (garbage, a truncated envelope, a value that does
not decrypt) raises :class:`CorruptObjectError`, which is also a
:class:`kcodec.errors.DecodeError` and names the key.
"""
from __future__ import annotations

from kcodec.errors import DecodeError, KCodecError

__all__ = [
    "StorageError",
    "KeyNotFoundError",
    "KeyExistsError",
    "ConflictError",
    "InvalidObjectError",
    "UnreachableError",
    "StorageTimeoutError",
    "CorruptObjectError",
    "ResourceExpiredError",
    "TooLargeResourceVersionError",
    "BadRequestError",
    "ResourceVersionSetOnCreateError",
    "TooManyRequestsError",
    "is_not_found",
    "is_exist",
    "is_conflict",
    "is_invalid_object",
    "is_unreachable",
    "is_corrupt_object",
    "is_resource_expired",
]

ERR_CODE_KEY_NOT_FOUND = 1
ERR_CODE_KEY_EXISTS = 2
ERR_CODE_RESOURCE_VERSION_CONFLICTS = 3
ERR_CODE_INVALID_OBJ = 4
ERR_CODE_UNREACHABLE = 5
ERR_CODE_TIMEOUT = 6
ERR_CODE_CORRUPT_OBJ = 7

_CODE_TO_MESSAGE = {
    ERR_CODE_KEY_NOT_FOUND: "key not found",
    ERR_CODE_KEY_EXISTS: "key exists",
    ERR_CODE_RESOURCE_VERSION_CONFLICTS: "resource version conflicts",
    ERR_CODE_INVALID_OBJ: "invalid object",
    ERR_CODE_UNREACHABLE: "server unreachable",
    ERR_CODE_TIMEOUT: "request timeout",
    ERR_CODE_CORRUPT_OBJ: "corrupt object",
}


class StorageError(KCodecError):
    """Go's ``storage.StorageError``: ``code``, ``key``, ``resource_version`` and a detail.

    ``detail`` is Go's inner error (``None`` prints as ``<nil>``, as ``%v`` of a nil error).
    """

    code: int = 0

    def __init__(self, key: str, resource_version: int = 0, detail: str | BaseException | None = None) -> None:
        self.key = key
        self.resource_version = resource_version
        self.detail = detail
        super().__init__(self._message())

    def _message(self) -> str:
        detail = "<nil>" if self.detail is None else str(self.detail)
        return (f"StorageError: {_CODE_TO_MESSAGE.get(self.code, '')}, Code: {self.code}, Key: {self.key}, "
                f"ResourceVersion: {self.resource_version}, AdditionalErrorMsg: {detail}")

    def __reduce__(self):  # picklable across processes (multiprocessing workers raise these)
        return (type(self), (self.key, self.resource_version, self.detail if not isinstance(self.detail, BaseException) else str(self.detail)))


class KeyNotFoundError(StorageError):
    """The key does not exist (Go's ``NewKeyNotFoundError``)."""

    code = ERR_CODE_KEY_NOT_FOUND


class KeyExistsError(StorageError):
    """``create`` found the key already there (Go's ``NewKeyExistsError``)."""

    code = ERR_CODE_KEY_EXISTS


class ConflictError(StorageError):
    """A write lost an optimistic-concurrency race (Go's ``NewResourceVersionConflictsError``)."""

    code = ERR_CODE_RESOURCE_VERSION_CONFLICTS


class InvalidObjectError(StorageError):
    """A precondition failed, or the object cannot be stored (Go's ``NewInvalidObjError``)."""

    code = ERR_CODE_INVALID_OBJ


class UnreachableError(StorageError):
    """No backend endpoint answered in time (Go's ``NewUnreachableError``)."""

    code = ERR_CODE_UNREACHABLE


class StorageTimeoutError(StorageError):
    """The backend did not complete the request in time; a write may or may not have happened."""

    code = ERR_CODE_TIMEOUT


class CorruptObjectError(StorageError, DecodeError):
    """A stored value that does not transform or decode (Go's ``NewCorruptObjError``).

    Also a :class:`kcodec.errors.DecodeError`: the message names the key, and ``cause`` is
    the underlying transform or decode error.
    """

    code = ERR_CODE_CORRUPT_OBJ

    def __init__(self, key: str, resource_version: int = 0, detail: str | BaseException | None = None) -> None:
        self.cause = detail if isinstance(detail, BaseException) else None
        super().__init__(key, resource_version, detail)


class ResourceExpiredError(KCodecError):
    """HTTP 410 Gone from Go's storage layer: the revision asked for was compacted.

    ``continue_token`` carries the token Go offers to continue an interrupted paged list
    at the latest revision (empty when there is none); ``compact_revision`` the backend's
    compacted revision when known.
    """

    def __init__(self, message: str, *, continue_token: str = "", compact_revision: int = 0) -> None:
        self.continue_token = continue_token
        self.compact_revision = compact_revision
        super().__init__(message)

    def __reduce__(self):
        return (_expired, (str(self), self.continue_token, self.compact_revision))


def _expired(message: str, continue_token: str, compact_revision: int) -> ResourceExpiredError:
    return ResourceExpiredError(message, continue_token=continue_token, compact_revision=compact_revision)


class TooLargeResourceVersionError(KCodecError):
    """Go's ``NewTooLargeResourceVersionError``: a not-older-than read asked for the future."""

    def __init__(self, minimum: int, current: int) -> None:
        self.minimum_resource_version = minimum
        self.current_revision = current
        super().__init__(f"Too large resource version: {minimum}, current: {current}")

    def __reduce__(self):
        return (type(self), (self.minimum_resource_version, self.current_revision))


class BadRequestError(KCodecError, ValueError):
    """Go's ``apierrors.NewBadRequest`` from the storage layer (invalid continue token or RV)."""


class ResourceVersionSetOnCreateError(KCodecError, ValueError):
    """Go's ``storage.ErrResourceVersionSetOnCreate``."""

    def __init__(self, *_: object) -> None:
        super().__init__("resourceVersion should not be set on objects to be created")


def _is(err: BaseException | None, cls: type) -> bool:
    return isinstance(err, cls)


def is_not_found(err: BaseException | None) -> bool:
    """Go's ``storage.IsNotFound``."""
    return _is(err, KeyNotFoundError)


def is_exist(err: BaseException | None) -> bool:
    """Go's ``storage.IsExist``."""
    return _is(err, KeyExistsError)


def is_conflict(err: BaseException | None) -> bool:
    """Go's ``storage.IsConflict``."""
    return _is(err, ConflictError)


def is_invalid_object(err: BaseException | None) -> bool:
    """Go's ``storage.IsInvalidObj``."""
    return _is(err, InvalidObjectError)


def is_unreachable(err: BaseException | None) -> bool:
    """Go's ``storage.IsUnreachable``."""
    return _is(err, UnreachableError)


def is_corrupt_object(err: BaseException | None) -> bool:
    """Go's ``storage.IsCorruptObject``."""
    return _is(err, CorruptObjectError)


def is_resource_expired(err: BaseException | None) -> bool:
    """Go's ``apierrors.IsResourceExpired`` for errors of this layer."""
    return _is(err, ResourceExpiredError)


class TooManyRequestsError(KCodecError):
    """Go's ``apierrors.NewTooManyRequests`` from the watch cache: it is not ready
    (``storage is (re)initializing``) or was stopped (``apiserver cacher is stopped``).
    ``retry_after_seconds`` is what Go puts in the Retry-After header."""

    def __init__(self, message: str, retry_after_seconds: int = 1) -> None:
        self.retry_after_seconds = retry_after_seconds
        super().__init__(message)

    def __reduce__(self):
        return (type(self), (str(self), self.retry_after_seconds))
