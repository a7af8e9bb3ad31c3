"""The protobuf serializer (``k8s\\x00`` + runtime.Unknown envelope) and its raw twin.

Go behaviour: reference §12 and §13.
"""
from __future__ import annotations

from typing import IO, Any

from kcodec.errors import (
    DecodeError,
    MissingKindError,
    MissingVersionError,
    NotMarshalableError,
    NotRegisteredError,
)
from kcodec.model import Struct, from_proto, is_protobuf_struct, to_proto
from kcodec.runtime.helpers import use_or_create_object
from kcodec.runtime.types import CONTENT_TYPE_PROTOBUF, Unknown
from kcodec.schema import GroupVersionKind, parse_group_version
from kcodec.serializer import _pbwire
from kcodec.serializer.framing import LENGTH_DELIMITED_FRAMER

__all__ = [
    "Serializer",
    "RawSerializer",
    "PROTO_MAGIC",
    "LENGTH_DELIMITED_FRAMER",
    "gvk_with_proto_defaults",
]

PROTO_MAGIC = b"k8s\x00"


def gvk_with_proto_defaults(actual: GroupVersionKind, default: GroupVersionKind) -> GroupVersionKind:
    """Protobuf's defaulting: a missing version takes the default's group AND version."""
    group, version, kind = actual
    if not kind:
        kind = default.kind
    if not version and default.version:
        group, version = default.group, default.version
    return GroupVersionKind(group, version, kind)


def _type_meta_dump(api_version: str, kind: str) -> str:
    # Go prints the envelope's TypeMeta with %#v in missing-kind errors.
    return f'runtime.TypeMeta{{APIVersion:"{api_version}", Kind:"{kind}"}}'


def _is_google_message(obj: Any) -> bool:
    try:
        from google.protobuf.message import Message
    except ImportError:  # pragma: no cover - protobuf is a dependency
        return False
    return isinstance(obj, Message)


def _reset(obj: Any) -> None:
    """Clear every field (Go's proto Reset before Unmarshal)."""
    zero = type(obj)._new_zero()
    for name in type(obj).__kc_fields__:
        object.__setattr__(obj, name.name, getattr(zero, name.name))


def _unmarshal_into(obj: Any, raw: bytes | None) -> None:
    if isinstance(obj, Struct) and is_protobuf_struct(type(obj)):
        _reset(obj)
        from_proto(type(obj), raw or b"", into=obj)
    elif _is_google_message(obj):
        obj.Clear()
        try:
            obj.ParseFromString(raw or b"")
        except Exception as exc:  # google.protobuf.message.DecodeError and friends
            raise DecodeError(f"proto: {type(obj).__name__}: {exc}") from None
    else:
        raise NotMarshalableError(type(obj))


def _marshal(obj: Any) -> bytes:
    if isinstance(obj, Struct):
        return to_proto(obj)  # raises NotMarshalableError for structs without numbers
    if _is_google_message(obj):
        return obj.SerializeToString(deterministic=True)
    raise NotMarshalableError(type(obj))


def _object_gvk(obj: Any) -> GroupVersionKind:
    get_kind = getattr(obj, "get_object_kind", None)
    if get_kind is None:
        return GroupVersionKind("", "", "")
    return get_kind().group_version_kind()


class Serializer:
    """Protobuf with the Kubernetes envelope: magic ``k8s\\x00`` then a runtime.Unknown."""

    def __init__(self, creater: Any, typer: Any) -> None:
        self.creater = creater
        self.typer = typer

    def __repr__(self) -> str:
        return "protobuf.Serializer()"

    def decode(self, data: bytes, defaults: GroupVersionKind | None = None,
               into: Any = None) -> tuple[Any, GroupVersionKind]:
        """Open the envelope and decode its body; see reference §12.2 for the rules."""
        api_version, kind, raw, content_encoding, content_type = _pbwire.envelope_decode(data)
        gv = parse_group_version(api_version)
        actual = GroupVersionKind(gv.group, gv.version, kind)
        if defaults is not None:
            actual = gvk_with_proto_defaults(actual, defaults)

        if isinstance(into, Unknown):
            into.api_version = api_version
            into.kind = kind
            into.raw = raw
            into.content_encoding = content_encoding
            into.content_type = content_type
            if raw is not None and raw.startswith(PROTO_MAGIC):
                into.content_type = CONTENT_TYPE_PROTOBUF
            return into, actual

        if into is not None:
            try:
                types, _ = self.typer.object_kinds(into)
            except NotRegisteredError:
                _unmarshal_into(into, raw)
                return into, actual
            actual = gvk_with_proto_defaults(actual, types[0])
            if not actual.version and not actual.group:
                actual = GroupVersionKind(types[0].group, actual.version, actual.kind)

        if not actual.kind:
            raise MissingKindError(_type_meta_dump(api_version, kind))
        if not actual.version:
            raise MissingVersionError(_type_meta_dump(api_version, kind))
        obj = use_or_create_object(self.typer, self.creater, actual, into)
        _unmarshal_into(obj, raw)
        obj.get_object_kind().set_group_version_kind(actual)
        return obj, actual

    def encode(self, obj: Any, stream: IO[bytes] | None = None) -> bytes:
        """Envelope ``obj``: its current GVK as TypeMeta, its protobuf body as raw."""
        if isinstance(obj, Unknown):
            out = _pbwire.envelope_encode(obj.api_version, obj.kind, obj.raw,
                                          obj.content_encoding, obj.content_type)
        else:
            body = _marshal(obj)
            gvk = _object_gvk(obj)
            out = _pbwire.envelope_encode(str(gvk.group_version()), gvk.kind, body, "", "")
        if stream is not None:
            stream.write(out)
        return out

    def recognizes_data(self, data: bytes) -> tuple[bool, bool]:
        """(recognized, unknown): recognised when the data starts with the magic."""
        return bytes(data[:4]) == PROTO_MAGIC, False

    def identifier(self) -> str:
        """``protobuf``."""
        return "protobuf"

    @property
    def framer(self) -> Any:
        """Length-delimited framing (4-byte big-endian lengths)."""
        return LENGTH_DELIMITED_FRAMER


class RawSerializer:
    """Protobuf without magic or envelope: the object's own message bytes (stream items)."""

    def __init__(self, creater: Any, typer: Any) -> None:
        self.creater = creater
        self.typer = typer

    def __repr__(self) -> str:
        return "protobuf.RawSerializer()"

    def decode(self, data: bytes, defaults: GroupVersionKind | None = None,
               into: Any = None) -> tuple[Any, GroupVersionKind]:
        """Decode bare message bytes; the kind comes from ``defaults`` then ``into``."""
        if into is None:
            raise DecodeError(f"this serializer requires an object to decode into: {self!r}")
        if len(data) == 0:
            raise DecodeError("empty data")
        actual = GroupVersionKind("", "", "")
        if defaults is not None:
            actual = gvk_with_proto_defaults(actual, defaults)
        if isinstance(into, Unknown):
            into.raw = bytes(data)
            into.content_encoding = ""
            into.content_type = CONTENT_TYPE_PROTOBUF
            into.set_group_version_kind(actual)
            return into, actual
        try:
            types, _ = self.typer.object_kinds(into)
        except NotRegisteredError:
            _unmarshal_into(into, bytes(data))
            return into, actual
        actual = gvk_with_proto_defaults(actual, types[0])
        if not actual.version and not actual.group:
            actual = GroupVersionKind(types[0].group, actual.version, actual.kind)
        if not actual.kind:
            raise MissingKindError("<protobuf encoded body - must provide default type>")
        if not actual.version:
            raise MissingVersionError("<protobuf encoded body - must provide default type>")
        obj = use_or_create_object(self.typer, self.creater, actual, into)
        _unmarshal_into(obj, bytes(data))
        return obj, actual

    def encode(self, obj: Any, stream: IO[bytes] | None = None) -> bytes:
        """The object's protobuf bytes only (an Unknown writes its raw bytes)."""
        out = (obj.raw or b"") if isinstance(obj, Unknown) else _marshal(obj)
        if stream is not None:
            stream.write(out)
        return out

    def identifier(self) -> str:
        """``raw-protobuf``."""
        return "raw-protobuf"

    @property
    def framer(self) -> Any:
        """Length-delimited framing (4-byte big-endian lengths)."""
        return LENGTH_DELIMITED_FRAMER
