"""The storage codec: what an API server uses between its memory version and etcd.

It encodes objects to the *storage* version with the serializer chosen by the storage
media type, and decodes whatever etcd holds (the chosen format, any format the factory
knows, or base64-wrapped data written by old etcd2 clusters) to the *memory* version.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any, Callable

from kcodec.errors import DecodeError, KCodecError
from kcodec.gofmt import quote as _go_quote
from kcodec.runtime.helpers import Base64Serializer
from kcodec.schema import (
    GroupKind,
    GroupVersion,
    GroupVersionKind,
    MultiGroupVersioner,
    new_coercing_multi_group_versioner,
)
from kcodec.serializer.factory import serializer_info_for_media_type
from kcodec.serializer.recognizer import RecognizerDecoder

__all__ = ["StorageCodecConfig", "StorageCodec", "new_storage_codec", "parse_media_type"]


@dataclass
class StorageCodecConfig:
    """What the storage codec is built from.

    ``storage_serializer`` is a :class:`~kcodec.serializer.CodecFactory`;
    ``storage_version`` is the version written to etcd, ``memory_version`` the one handed
    to the server (often internal). The decorators may wrap the encoder, and replace the
    ordered list of decoders handed to the recognizer.
    """

    storage_media_type: str
    storage_serializer: Any
    storage_version: GroupVersion
    memory_version: GroupVersion
    encoder_decorator: Callable[[Any], Any] | None = None
    decoder_decorator: Callable[[list[Any]], list[Any]] | None = None


_TSPECIALS = frozenset('()<>@,;:\\"/[]?=')


def _is_token_char(ch: str) -> bool:
    return " " < ch < "\x7f" and ch not in _TSPECIALS


def _consume_token(v: str) -> tuple[str, str]:
    for i, ch in enumerate(v):
        if not _is_token_char(ch):
            return v[:i], v[i:]
    return v, ""


def _consume_value(v: str) -> tuple[str, str]:
    if not v:
        return "", v
    if v[0] != '"':
        return _consume_token(v)
    out: list[str] = []
    i = 1
    while i < len(v):
        ch = v[i]
        if ch == '"':
            return "".join(out), v[i + 1:]
        # A backslash escapes only a tspecial; before anything else it is a literal
        # backslash (what old browsers send for file paths).
        if ch == "\\" and i + 1 < len(v) and v[i + 1] in _TSPECIALS:
            out.append(v[i + 1])
            i += 2
            continue
        if ch in "\r\n":
            return "", v
        out.append(ch)
        i += 1
    return "", v


def _consume_param(v: str) -> tuple[str, str, str]:
    rest = v.lstrip()
    if not rest.startswith(";"):
        return "", "", v
    rest = rest[1:].lstrip()
    name, rest = _consume_token(rest)
    name = name.lower()
    if not name:
        return "", "", v
    rest = rest.lstrip()
    if not rest.startswith("="):
        return "", "", v
    rest = rest[1:].lstrip()
    value, rest2 = _consume_value(rest)
    if not value and rest2 == rest:
        return "", "", v
    return name, value, rest2


def _check_media_type(base: str) -> None:
    typ, rest = _consume_token(base)
    if not typ:
        raise DecodeError("mime: no media type")
    if not rest:
        return
    if not rest.startswith("/"):
        raise DecodeError("mime: expected slash after first token")
    sub, rest = _consume_token(rest[1:])
    if not sub:
        raise DecodeError("mime: expected token after slash")
    if rest:
        raise DecodeError("mime: unexpected content after media subtype")


def parse_media_type(value: str) -> tuple[str, dict[str, str]]:
    """Go's ``mime.ParseMediaType``: the lower-cased media type and its parameters.

    A bare type without subtype (``attachment``) is valid, as in Go. Raises
    :class:`kcodec.errors.DecodeError` with Go's ``mime: ...`` text for a malformed type or
    parameter list, or two different values for one parameter. Parameter names are
    lower-cased; RFC 2231 continuations (``name*0``, ``name*``) are not stitched together.
    """
    base = value.split(";", 1)[0]
    media_type = base.lower().strip()
    _check_media_type(media_type)
    params: dict[str, str] = {}
    v = value[len(base):]
    while v:
        v = v.lstrip()
        if not v:
            break
        name, val, rest = _consume_param(v)
        if not name:
            if rest.strip() == ";":
                break
            raise DecodeError("mime: invalid media parameter")
        if name in params and params[name] != val:
            raise DecodeError("mime: duplicate parameter name")
        params[name] = val
        v = rest
    return media_type, params


class StorageCodec:
    """An encoder/decoder pair presented as one codec (Go's runtime.NewCodec).

    ``encode_versioner`` is the group versioner the encoder converts with (Go returns it
    beside the codec, for callers that need to know the storage kind of an object).
    """

    def __init__(self, encoder: Any, decoder: Any, encode_versioner: Any = None) -> None:
        self.encoder = encoder
        self.decoder = decoder
        self.encode_versioner = encode_versioner

    def __repr__(self) -> str:
        return f"StorageCodec(encoder={self.encoder!r}, decoder={self.decoder!r})"

    def encode(self, obj: Any, stream: IO[bytes] | None = None) -> bytes:
        """Convert ``obj`` to the storage version and encode it."""
        return self.encoder.encode(obj, stream)

    def decode(self, data: bytes, defaults: GroupVersionKind | None = None,
               into: Any = None) -> tuple[Any, GroupVersionKind]:
        """Decode stored bytes and convert them to the memory version."""
        return self.decoder.decode(data, defaults, into)

    def identifier(self) -> str:
        """The encoder's identifier (what an object-side cache keys on)."""
        return self.encoder.identifier()


def new_storage_codec(config: StorageCodecConfig) -> StorageCodec:
    """Assemble the storage codec for ``config``.

    Raises :class:`kcodec.errors.KCodecError`: ``"<value>" is not a valid mime-type`` when
    the media type does not parse, ``unable to find serializer for "<type>", supported
    media types: [...]`` when the factory has no serializer for it.
    """
    try:
        media_type, _ = parse_media_type(config.storage_media_type)
    except DecodeError:
        raise KCodecError(f"{_go_quote(config.storage_media_type)} is not a valid mime-type") from None
    factory = config.storage_serializer
    supported = factory.supported_media_types()
    info = serializer_info_for_media_type(supported, media_type)
    if info is None:
        names = " ".join(i.media_type for i in supported)
        raise KCodecError(f"unable to find serializer for {_go_quote(media_type)}, supported media types: [{names}]")
    chosen = info.serializer
    encoder = chosen
    if config.encoder_decorator is not None:
        encoder = config.encoder_decorator(encoder)
    universal = factory.universal_deserializer()
    # Last resort: base64-wrapped data, which etcd2 clusters storing protobuf left behind.
    decoders: list[Any] = [chosen, universal, Base64Serializer(None, universal)]
    if config.decoder_decorator is not None:
        decoders = config.decoder_decorator(decoders)
    storage, memory = config.storage_version, config.memory_version
    encode_versioner = MultiGroupVersioner(storage, GroupKind(storage.group, ""), GroupKind(memory.group, ""))
    encoder = factory.encoder_for_version(encoder, encode_versioner)
    # Coercing: data stored under a group the resource has since left (neither the memory
    # nor the storage group) is still read, as the memory version of the same kind.
    decode_versioner = new_coercing_multi_group_versioner(
        memory, GroupKind(memory.group, ""), GroupKind(storage.group, ""))
    decoder = factory.decoder_to_version(RecognizerDecoder(*decoders), decode_versioner)
    return StorageCodec(encoder, decoder, encode_versioner)
