"""The protobuf serializer (``k8s\\x00`` + runtime.Unknown envelope) and its raw twin.

Go behaviour: Go: k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go; the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime.
"""
from __future__ import annotations

from typing import IO, Any

from kcodec.errors import (
    KCodecError,
    DecodeError,
    MissingKindError,
    MissingVersionError,
    NotMarshalableError,
    NotRegisteredError,
)
from kcodec.gofmt import quote as _go_quote
from kcodec.model import Struct, from_proto, is_protobuf_struct, to_proto
from kcodec.runtime.helpers import use_or_create_object
from kcodec.runtime.interfaces import ObjectCreater, ObjectTyper
from kcodec.runtime.types import CONTENT_TYPE_PROTOBUF, Unknown
from kcodec.schema import GroupVersionKind, parse_group_version
from kcodec import speedups, wire
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
    return f"runtime.TypeMeta{{APIVersion:{_go_quote(api_version)}, Kind:{_go_quote(kind)}}}"


def _with_gvk(err: BaseException, gvk: GroupVersionKind | None) -> BaseException:
    # Go returns the computed GVK beside the error; Python callers find it on the error.
    try:
        err.gvk = gvk  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover - exotic exception classes
        pass
    return err


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


Body = tuple[bytes, int, int]
"""A message body as ``(buffer, start, end)``: ``buffer[start:end]``, not copied out of
the envelope it arrived in (a PodList body is megabytes)."""


def _body(data: bytes, span: tuple[int, int] | None) -> Body | None:
    return None if span is None else (data, span[0], span[1])


def _body_bytes(body: Body | None) -> bytes | None:
    if body is None:
        return None
    buf, start, end = body
    return buf if start == 0 and end == len(buf) else buf[start:end]


def _whole(data: bytes) -> Body:
    data = bytes(data)
    return (data, 0, len(data))


def _unmarshal_into(obj: Any, body: Body | None, fresh: bool = False) -> None:
    """Go's Reset + Unmarshal; ``fresh`` objects (just created, already zero) skip the reset."""
    if isinstance(obj, Struct) and is_protobuf_struct(type(obj)):
        if not fresh:
            _reset(obj)
        if body is None:
            from_proto(type(obj), b"", into=obj)
        else:
            from_proto(type(obj), body[0], into=obj, start=body[1], end=body[2])
    elif _is_google_message(obj):
        obj.Clear()
        from google.protobuf.message import DecodeError as MessageDecodeError

        try:
            obj.ParseFromString(_body_bytes(body) or b"")
        except (MessageDecodeError, ValueError) as exc:
            raise DecodeError(f"proto: {type(obj).__name__}: {exc}") from None
    else:
        raise NotMarshalableError(type(obj))


def _marshal(obj: Any) -> bytes:
    if isinstance(obj, Struct):
        return to_proto(obj)  # raises NotMarshalableError for structs without numbers
    if _is_google_message(obj):
        return obj.SerializeToString(deterministic=True)
    raise NotMarshalableError(type(obj))


_NO_TYPE_META = "<protobuf encoded body - must provide default type>"


def _defaults_from_type(actual: GroupVersionKind, registered: GroupVersionKind) -> GroupVersionKind:
    """Defaults from ``into``'s first registered kind; a still group-less, version-less
    kind takes that kind's group."""
    actual = gvk_with_proto_defaults(actual, registered)
    if not actual.version and not actual.group:
        actual = GroupVersionKind(registered.group, actual.version, actual.kind)
    return actual


def _unmarshal_to_object(typer: Any, creater: Any, actual: GroupVersionKind, into: Any,
                         raw: Body | None) -> tuple[Any, GroupVersionKind]:
    """Reuse ``into`` when it is of kind ``actual`` (else create one), reset it, fill it
    from ``raw`` and stamp ``actual`` on it (JSON leaves TypeMeta as the data had it)."""
    try:
        obj = use_or_create_object(typer, creater, actual, into)
        _unmarshal_into(obj, raw, fresh=obj is not into)
    except KCodecError as err:
        raise _with_gvk(err, actual) from None
    obj.get_object_kind().set_group_version_kind(actual)
    return obj, actual


def _object_gvk(obj: Any) -> GroupVersionKind:
    get_kind = getattr(obj, "get_object_kind", None)
    if get_kind is None:
        return GroupVersionKind("", "", "")
    return get_kind().group_version_kind()


class Serializer:
    """Protobuf with the Kubernetes envelope: magic ``k8s\\x00`` then a runtime.Unknown."""

    def __init__(self, creater: ObjectCreater, typer: ObjectTyper) -> None:
        self.creater = creater
        self.typer = typer

    def __repr__(self) -> str:
        return "protobuf.Serializer()"

    def decode(self, data: bytes, defaults: GroupVersionKind | None = None,
               into: Any = None) -> tuple[Any, GroupVersionKind]:
        """Open the envelope and decode its body; see Go: k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go (Decode) for the rules."""
        if type(data) is not bytes:
            data = bytes(data)
        api_version, kind, span, content_encoding, content_type = speedups.envelope_span(data)
        body = _body(data, span)
        gv = parse_group_version(api_version)
        actual = GroupVersionKind(gv.group, gv.version, kind)
        if defaults is not None:
            actual = gvk_with_proto_defaults(actual, defaults)

        if isinstance(into, Unknown):
            into.api_version = api_version
            into.kind = kind
            raw = _body_bytes(body)
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
                try:
                    _unmarshal_into(into, body)
                except KCodecError as err:
                    raise _with_gvk(err, actual) from None
                return into, actual
            except KCodecError as err:
                raise _with_gvk(err, actual) from None
            actual = _defaults_from_type(actual, types[0])

        if not actual.kind:
            raise _with_gvk(MissingKindError(_type_meta_dump(api_version, kind)), actual)
        if not actual.version:
            raise _with_gvk(MissingVersionError(_type_meta_dump(api_version, kind)), actual)
        return _unmarshal_to_object(self.typer, self.creater, actual, into, body)

    def encode(self, obj: Any, stream: IO[bytes] | None = None) -> bytes:
        """Envelope ``obj``: its current GVK as TypeMeta, its protobuf body as raw."""
        if isinstance(obj, Unknown):
            out = speedups.envelope_encode(obj.api_version, obj.kind, obj.raw,
                                          obj.content_encoding, obj.content_type)
        elif isinstance(obj, Struct):
            gvk = _object_gvk(obj)
            head, tail = wire.envelope_parts(str(gvk.group_version()), gvk.kind)
            # The body is written straight into the envelope (a PodList body is megabytes).
            out = to_proto(obj, prefix=head, suffix=tail)
        else:
            body = _marshal(obj)
            gvk = _object_gvk(obj)
            out = speedups.envelope_encode(str(gvk.group_version()), gvk.kind, body, "", "")
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

    def __init__(self, creater: ObjectCreater, typer: ObjectTyper) -> None:
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
            try:
                _unmarshal_into(into, _whole(data))
            except KCodecError as err:
                raise _with_gvk(err, actual) from None
            return into, actual
        except KCodecError as err:
            raise _with_gvk(err, actual) from None
        actual = _defaults_from_type(actual, types[0])
        if not actual.kind:
            raise _with_gvk(MissingKindError(_NO_TYPE_META), actual)
        if not actual.version:
            raise _with_gvk(MissingVersionError(_NO_TYPE_META), actual)
        return _unmarshal_to_object(self.typer, self.creater, actual, into, _whole(data))

    def encode(self, obj: Any, stream: IO[bytes] | None = None) -> bytes:
        """The object's protobuf message bytes only: no magic, no envelope, no GVK."""
        if isinstance(obj, Unknown):
            # An Unknown has generated marshallers in Go: the message itself is written.
            out = speedups.marshal_unknown(obj.api_version, obj.kind, obj.raw,
                                          obj.content_encoding, obj.content_type)
        else:
            out = _marshal(obj)
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
