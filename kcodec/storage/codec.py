"""The storage codec: what an API server uses between its memory version and etcd.

It encodes objects to the *storage* version with the serializer chosen by the storage
media type, and decodes whatever etcd holds (the chosen format, any format the factory
knows, or base64-wrapped data written by old etcd2 clusters) to the *memory* version.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any, Callable

from kcodec.errors import KCodecError
from kcodec.runtime.helpers import Base64Serializer
from kcodec.schema import GroupKind, GroupVersion, GroupVersionKind, MultiGroupVersioner
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


def parse_media_type(value: str) -> str:
    """The bare ``type/subtype`` of a media type, lower-cased (parameters dropped)."""
    base = value.split(";", 1)[0].strip().lower()
    if base.count("/") != 1 or not all(base.split("/")) or any(c.isspace() for c in base):
        raise KCodecError(f"{value!r} is not a valid mime-type")
    return base


class StorageCodec:
    """An encoder/decoder pair presented as one codec (Go's runtime.NewCodec)."""

    def __init__(self, encoder: Any, decoder: Any) -> None:
        self.encoder = encoder
        self.decoder = decoder

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
    """Assemble the storage codec for ``config`` (raises KCodecError for an unknown media type)."""
    media_type = parse_media_type(config.storage_media_type)
    factory = config.storage_serializer
    info = serializer_info_for_media_type(factory.supported_media_types(), media_type)
    if info is None:
        raise KCodecError(f'unable to find serializer for "{media_type}"')
    chosen = info.serializer
    encoder = chosen
    if config.encoder_decorator is not None:
        encoder = config.encoder_decorator(encoder)
    universal = factory.universal_deserializer()
    decoders: list[Any] = [chosen, universal, Base64Serializer(None, universal)]
    if config.decoder_decorator is not None:
        decoders = config.decoder_decorator(decoders)
    storage, memory = config.storage_version, config.memory_version
    encoder = factory.encoder_for_version(
        encoder, MultiGroupVersioner(storage, GroupKind(storage.group, ""), GroupKind(memory.group, "")))
    decoder = factory.decoder_to_version(
        RecognizerDecoder(*decoders),
        MultiGroupVersioner(memory, GroupKind(memory.group, ""), GroupKind(storage.group, "")))
    return StorageCodec(encoder, decoder)
