"""runtime.Unknown and runtime.RawExtension."""
from __future__ import annotations

from typing import Any

from kcodec.errors import DecodeError, EncodeError
from kcodec.model import CustomValue, RawJSON, field
from kcodec.runtime.object import Object

__all__ = ["Unknown", "RawExtension", "CONTENT_TYPE_JSON", "CONTENT_TYPE_PROTOBUF"]

CONTENT_TYPE_JSON = "application/json"
CONTENT_TYPE_PROTOBUF = "application/vnd.kubernetes.protobuf"

# The first bytes of a JSON value, as Go's RawExtension.MarshalJSON sniffs them.
_JSON_START = frozenset(b" \t\r\n{[\"ntf-0123456789")
_CBOR_SELF_DESCRIBED = b"\xd9\xd9\xf7"


class Unknown(Object):
    """An object whose body was kept as bytes (``raw``) with its TypeMeta.

    Decoders return it when asked to (``into=Unknown()``); encoders write ``raw`` back
    verbatim. In protobuf it is the envelope message itself.
    """

    raw: bytes | None = field(2, "raw")
    content_encoding: str = field(3, "contentEncoding")
    content_type: str = field(4, "contentType")

    def __init__(self, api_version: str = "", kind: str = "", raw: bytes | None = b"",
                 content_encoding: str = "", content_type: str = "") -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "api_version", api_version)
        object.__setattr__(self, "raw", raw)
        object.__setattr__(self, "content_encoding", content_encoding)
        object.__setattr__(self, "content_type", content_type)

    def __repr__(self) -> str:
        raw = self.raw
        shown = raw if raw is None or len(raw) <= 64 else raw[:61] + b"..."
        return (f"Unknown(api_version={self.api_version!r}, kind={self.kind!r}, raw={shown!r}, "
                f"content_encoding={self.content_encoding!r}, content_type={self.content_type!r})")

    def marshal_json(self) -> bytes:
        """Go's Unknown.MarshalJSON: the raw bytes (``null`` when nil); JSON content only."""
        if self.content_type not in ("", CONTENT_TYPE_JSON):
            raise EncodeError("runtime.Unknown: MarshalJSON on non-json data")
        if self.raw is None:
            return b"null"
        return self.raw


class RawExtension(CustomValue):
    """An embedded object kept as raw bytes (``raw``) or as a live object (``object``).

    JSON writes ``raw`` verbatim (or ``object`` when ``raw`` is nil, else ``null``);
    protobuf writes ``raw`` as field 1 only when it is set.
    """

    __go_name__ = "runtime.RawExtension"

    __slots__ = ("raw", "object")
    # A JSON decoder hands _from_tree an object or array as RawJSON of its source text.
    _KC_RAW_JSON = True

    def __init__(self, raw: bytes | None = None, object: Any = None) -> None:  # noqa: A002
        self.raw = raw
        self.object = object

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RawExtension):
            return NotImplemented
        return self.raw == other.raw and self.object == other.object

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if self.object is not None:
            return f"RawExtension(raw={self.raw!r}, object={self.object!r})"
        return f"RawExtension(raw={self.raw!r})"

    def deep_copy(self) -> RawExtension:
        obj = self.object
        return RawExtension(self.raw, obj.deep_copy() if obj is not None else None)

    @classmethod
    def _zero(cls) -> RawExtension:
        return cls()

    def _is_zero(self) -> bool:
        return self.raw is None and self.object is None

    def _to_tree(self) -> Any:
        raw = self.raw
        if raw is None or raw == b"":
            obj = self.object
            if obj is None:
                return None
            if isinstance(obj, Unknown):
                return RawJSON(obj.marshal_json())
            content = getattr(obj, "unstructured_content", None)
            if callable(content):
                return content()
            from kcodec.model import to_tree

            return to_tree(obj)
        if raw[0] in _JSON_START:
            return RawJSON(raw)
        if raw.startswith(_CBOR_SELF_DESCRIBED):
            raise EncodeError("RawExtension holds CBOR data, which kcodec does not convert to JSON")
        raise EncodeError("cannot convert RawExtension with unrecognized content type to unstructured")

    @classmethod
    def _from_tree(cls, value: Any, path: str) -> RawExtension:
        if value is None:
            return cls()
        if isinstance(value, RawJSON):
            # The decoder's copy of the value's own text: UnmarshalJSON keeps it verbatim.
            return cls(value.data)
        from kcodec.gojson import dumps

        return cls(dumps(value))

    def _proto_body(self) -> bytes:
        raw = self.raw
        if raw is None:
            return b""
        from kcodec.wire import varint as _varint

        return b"\x0a" + _varint(len(raw)) + bytes(raw)

    @classmethod
    def _from_proto_body(cls, data: bytes, path: str) -> RawExtension:
        from kcodec import wire

        # runtime/generated.pb.go, RawExtension.Unmarshal: its checks in its order.
        raw = None
        pos, end = 0, len(data)
        while pos < end:
            start = pos
            key, pos = wire.read_varint(data, pos, end, path)
            if key & 7 == 4:
                raise wire.end_group_error("RawExtension", path, start)
            number = wire.go_field_number(key)
            if number <= 0:
                raise wire.illegal_tag_error("RawExtension", key, path, start)
            if number == 1:
                if key & 7 != 2:
                    raise wire.wrong_wire_error(key & 7, "Raw", path, start)
                n, pos = wire.read_varint(data, pos, end, path)
                if pos + n > end:
                    raise wire.length_error(n, path + ".raw", pos)
                raw = bytes(data[pos:pos + n])
                pos += n
            else:
                pos = wire.skip_field(data, key & 7, pos, end, path)
        return cls(raw)
