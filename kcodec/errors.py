"""The kcodec error hierarchy.

Every error kcodec raises derives from :class:`KCodecError`. Messages follow the texts of
Go's ``k8s.io/apimachinery`` so that tools matching on them keep working; the place of the
fault (a field path or a byte offset), where Go's text gives none, is kept as attributes of
:class:`DecodeError` rather than in the message.
"""
from __future__ import annotations

from typing import Any

from kcodec.gofmt import quote as _q

# schema.APIVersionInternal; spelled here because errors sits below schema.
_API_VERSION_INTERNAL = "__internal"

__all__ = [
    "KCodecError",
    "DecodeError",
    "MissingKindError",
    "MissingVersionError",
    "StrictDecodingError",
    "NotRegisteredError",
    "ConversionError",
    "EncodeError",
    "NotMarshalableError",
    "TransformError",
    "ConfigError",
    "is_not_registered_error",
    "is_missing_kind",
    "is_missing_version",
    "is_strict_decoding_error",
    "is_not_marshalable",
    "json_kind",
    "type_name",
]


class KCodecError(Exception):
    """Base class of every error raised by kcodec."""


class DecodeError(KCodecError, ValueError):
    """Input bytes or values could not be decoded (malformed, wrong type, out of range).

    The message is Go's text; where Go's text has no location, kcodec keeps it as data:
    ``field_path`` (``spec.volumes[0].fc.lun``, indexes included) and ``offset`` (a byte
    offset in the input), each None when unknown.
    """

    field_path: str | None = None
    offset: int | None = None

    def __init__(self, *args: Any, field_path: str | None = None, offset: int | None = None) -> None:
        super().__init__(*args)
        if field_path is not None:
            self.field_path = field_path
        if offset is not None:
            self.offset = offset


class MissingKindError(DecodeError):
    """The serialized object names no ``kind``."""

    def __init__(self, data: str | bytes) -> None:
        self.data = data
        super().__init__(f"Object 'Kind' is missing in '{_text(data)}'")


class MissingVersionError(DecodeError):
    """The serialized object names no ``apiVersion``."""

    def __init__(self, data: str | bytes) -> None:
        self.data = data
        super().__init__(f"Object 'apiVersion' is missing in '{_text(data)}'")


class StrictDecodingError(DecodeError):
    """Strict decoding found unknown, duplicate or case-mismatched fields.

    The object was still decoded: it is in ``obj`` (with the serialized kind in ``gvk``)
    so callers may choose to warn and go on, as the API server does.
    """

    def __init__(self, errors: list[str], obj: Any = None, gvk: Any = None) -> None:
        self.errors = list(errors)
        self.obj = obj
        self.gvk = gvk
        super().__init__("strict decoding error: " + ", ".join(self.errors))


class NotRegisteredError(KCodecError):
    """A kind, version or type is unknown to a scheme.

    Attributes carry what was looked up: ``gvk`` (a GroupVersionKind or None), ``type``
    (a Python class or None), ``target`` (a group versioner or None) and ``scheme_name``.
    """

    def __init__(
        self,
        scheme_name: str,
        gvk: Any = None,
        type: Any = None,  # noqa: A002 - mirrors Go's field name
        target: Any = None,
    ) -> None:
        self.scheme_name = scheme_name
        self.gvk = gvk
        self.type = type
        self.target = target
        super().__init__(self._message())

    def _message(self) -> str:
        name = self.scheme_name
        if self.type is not None and self.target is not None:
            return f'{type_name(self.type)} is not suitable for converting to {_q(_target(self.target))} in scheme {_q(name)}'
        if self.type is not None:
            return f'no kind is registered for the type {type_name(self.type)} in scheme {_q(name)}'
        gvk = self.gvk
        # Every %q of runtime/error.go's notRegisteredErr.Error() is strconv.Quote: a kind
        # or version with control characters prints escaped ("literal\ntext\n").
        if self.target is not None:
            return f'{_q(str(gvk.group_version()))} is not suitable for converting to {_q(_target(self.target))} in scheme {_q(name)}'
        if not gvk.kind:
            return f'no version {_q(str(gvk.group_version()))} has been registered in scheme {_q(name)}'
        if gvk.version == _API_VERSION_INTERNAL:
            return f'no kind {_q(gvk.kind)} is registered for the internal version of group {_q(gvk.group)} in scheme {_q(name)}'
        return f'no kind {_q(gvk.kind)} is registered for version {_q(str(gvk.group_version()))} in scheme {_q(name)}'


class ApplyConflictError(KCodecError):
    """A server-side apply changes fields other managers own (Go's 409 ``Apply failed with
    N conflict(s)``). ``conflicts`` lists ``(manager, path)``: the manager as Go prints it
    (``"kubectl-client-side-apply" using apps/v1``) and the field path (``.spec.replicas``).
    Apply again with ``force=True`` to take the fields over."""

    def __init__(self, message: str, conflicts: list[tuple[str, str]]) -> None:
        self.conflicts = conflicts
        super().__init__(message)


class ConversionError(KCodecError):
    """An object could not be converted (no conversion function, unsuitable target...)."""


class EncodeError(KCodecError):
    """An object could not be encoded in the requested format."""


class NotMarshalableError(EncodeError):
    """The object has no protobuf form (Go's errNotMarshalable; HTTP 406 NotAcceptable)."""

    code = 406
    reason = "NotAcceptable"

    def __init__(self, obj_type: Any) -> None:
        self.type = obj_type
        super().__init__(
            f"object {type_name(obj_type)} does not implement the protobuf marshalling "
            "interface and cannot be encoded to a protobuf message"
        )


class TransformError(DecodeError):
    """A stored value could not be transformed (decrypted, verified) on its way from storage.

    The message is Go's (``cipher: message authentication failed``...); ``key`` is the
    storage key of the value and ``key_name`` the name of the encryption key or provider
    that was tried, when one was. Never raised with any plaintext attached.
    """

    def __init__(self, message: str, key: bytes | str | None = None, key_name: str | None = None) -> None:
        self.key = key
        self.key_name = key_name
        super().__init__(message)


class ConfigError(KCodecError, ValueError):
    """A storage or encryption configuration is invalid (a flag value, a config file).

    The message is Go's; ``field`` is the field path or flag named by the first fault
    (``resources[0].providers[1].aesgcm.keys[0].secret``, ``--etcd-servers-overrides``)
    and ``errors`` lists every ``(field, message)`` found, for callers that report them all.
    """

    def __init__(self, message: str, field: str = "", errors: list[tuple[str, str]] | None = None) -> None:
        self.field = field
        self.errors = list(errors) if errors is not None else [(field, message)]
        super().__init__(message)


def is_not_registered_error(err: BaseException | None) -> bool:
    """True for any :class:`NotRegisteredError`; False for None."""
    return isinstance(err, NotRegisteredError)


def is_missing_kind(err: BaseException | None) -> bool:
    """True when the error says the object has no kind."""
    return isinstance(err, MissingKindError)


def is_missing_version(err: BaseException | None) -> bool:
    """True when the error says the object has no apiVersion."""
    return isinstance(err, MissingVersionError)


def is_strict_decoding_error(err: BaseException | None) -> bool:
    """True for a :class:`StrictDecodingError`."""
    return isinstance(err, StrictDecodingError)


def is_not_marshalable(err: BaseException | None) -> bool:
    """True when an object could not be written as protobuf."""
    return isinstance(err, NotMarshalableError)


def type_name(t: Any) -> str:
    """Go-like short type name: ``v1.Pod`` for ``kcodec.api.core.v1.Pod``."""
    if not isinstance(t, type):
        t = type(t)
    module = t.__module__.rsplit(".", 1)[-1]
    return f"{module}.{t.__qualname__}"


def json_kind(value: Any) -> str:
    """The word encoding/json uses for a JSON value's kind in type errors (``number``...)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "value"


def _target(target: Any) -> str:
    ident = getattr(target, "identifier", None)
    if callable(ident):
        return str(ident())
    return str(target)


def _text(data: str | bytes) -> str:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data).decode("utf-8", "replace")
    return str(data)
