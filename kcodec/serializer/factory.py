"""CodecFactory: the serializers of a scheme and the codecs built from them (Go: k8s.io/apimachinery/pkg/runtime/serializer/codec_factory.go)."""
from __future__ import annotations

from typing import Any, NamedTuple

from kcodec.errors import KCodecError
from kcodec.runtime.interfaces import MetaFactory
from kcodec.runtime.helpers import WithoutVersionDecoder, WithVersionEncoder
from kcodec.schema import DISABLED_GROUP_VERSIONER, INTERNAL_GROUP_VERSIONER, GroupVersions
from kcodec.serializer import cbor as _cbor
from kcodec.serializer import json as _json
from kcodec.serializer import protobuf as _protobuf
from kcodec.serializer.recognizer import RecognizerDecoder
from kcodec.serializer.versioning import VersioningCodec, new_defaulting_codec_for_scheme

__all__ = [
    "ClientNegotiator",
    "CodecFactory",
    "WithoutConversionCodecFactory",
    "SerializerInfo",
    "StreamSerializerInfo",
    "serializer_info_for_media_type",
    "CONTENT_TYPE_JSON",
    "CONTENT_TYPE_YAML",
    "CONTENT_TYPE_PROTOBUF",
    "CONTENT_TYPE_CBOR",
    "CONTENT_TYPE_CBOR_SEQ",
]

CONTENT_TYPE_JSON = "application/json"
CONTENT_TYPE_YAML = "application/yaml"
CONTENT_TYPE_PROTOBUF = "application/vnd.kubernetes.protobuf"
CONTENT_TYPE_CBOR = _cbor.CONTENT_TYPE_CBOR
CONTENT_TYPE_CBOR_SEQ = _cbor.CONTENT_TYPE_CBOR_SEQ


class StreamSerializerInfo(NamedTuple):
    """How a media type is written as a stream of objects (watch, list streaming)."""

    encodes_as_text: bool
    serializer: Any
    framer: Any


class SerializerInfo(NamedTuple):
    """One media type a factory speaks, with its plain, pretty, strict and stream forms."""

    media_type: str
    media_type_type: str
    media_type_subtype: str
    encodes_as_text: bool
    serializer: Any
    pretty_serializer: Any = None
    strict_serializer: Any = None
    stream_serializer: StreamSerializerInfo | None = None


def serializer_info_for_media_type(infos: list[SerializerInfo], media_type: str) -> SerializerInfo | None:
    """Exact media-type match (no parameters), else the first entry with an empty media type."""
    for info in infos:
        if info.media_type == media_type:
            return info
    for info in infos:
        if not info.media_type:
            return info
    return None


def _versioner(versions: tuple[Any, ...]) -> Any:
    return GroupVersions(list(versions))


class CodecFactory:
    """The serializers for JSON, YAML and protobuf over ``scheme``, and codecs built on them.

    ``strict=True`` makes the plain JSON and YAML serializers strict; ``pretty=False``
    drops JSON's pretty serializer. ``extra_serializers`` are appended (Go's
    ``WithSerializer``): the universal deserializer tries all of them, but
    ``supported_media_types`` keeps only the first entry of each media type.
    ``meta_factory`` replaces the JSON serializers' apiVersion/kind sniffer (Go's test-only
    ``newSerializersForScheme`` argument), for schemes whose types name their kind under
    other JSON keys.
    """

    def __init__(self, scheme: Any, *, strict: bool = False, pretty: bool = True,
                 extra_serializers: list[SerializerInfo] | None = None,
                 meta_factory: MetaFactory | None = None, cbor: bool = False) -> None:
        self.scheme = scheme
        self.cbor = cbor
        self.strict = strict
        self.pretty = pretty
        mf = meta_factory
        json_s = _json.Serializer(scheme, scheme, strict=strict, meta_factory=mf)
        json_pretty = _json.Serializer(scheme, scheme, pretty=True, strict=strict, meta_factory=mf) if pretty else None
        json_strict = _json.Serializer(scheme, scheme, strict=True, meta_factory=mf)
        yaml_s = _json.Serializer(scheme, scheme, yaml=True, strict=strict, meta_factory=mf)
        yaml_strict = _json.Serializer(scheme, scheme, yaml=True, strict=True, meta_factory=mf)
        proto = _protobuf.Serializer(scheme, scheme)
        raw = _protobuf.RawSerializer(scheme, scheme)
        serializers = [
            SerializerInfo(CONTENT_TYPE_JSON, "application", "json", True, json_s, json_pretty, json_strict,
                           StreamSerializerInfo(True, json_s, json_s.framer)),
            SerializerInfo(CONTENT_TYPE_YAML, "application", "yaml", True, yaml_s, None, yaml_strict, None),
            SerializerInfo(CONTENT_TYPE_PROTOBUF, "application", "vnd.kubernetes.protobuf", False, proto, None,
                           proto, StreamSerializerInfo(False, raw, raw.framer)),
        ]
        if cbor:
            cbor_s = _cbor.Serializer(scheme, scheme)
            serializers.append(SerializerInfo(
                CONTENT_TYPE_CBOR, "application", "cbor", False, cbor_s, None,
                _cbor.Serializer(scheme, scheme, strict=True),
                StreamSerializerInfo(False, _cbor.Serializer(scheme, scheme, transcode=False),
                                     _cbor.CBOR_SEQ_FRAMER)))
        serializers.extend(extra_serializers or ())
        decoders: list[Any] = []
        infos: list[SerializerInfo] = []
        seen: set[str] = set()
        for info in serializers:
            decoders.append(info.serializer)
            if info.media_type in seen:
                continue
            seen.add(info.media_type)
            infos.append(info)
        self._infos = infos
        self._legacy_serializer = json_s
        self._universal = RecognizerDecoder(*decoders)

    def __repr__(self) -> str:
        name = getattr(self.scheme, "name", self.scheme)
        return f"CodecFactory(scheme={name!r}, strict={self.strict}, pretty={self.pretty})"

    def supported_media_types(self) -> list[SerializerInfo]:
        """JSON, YAML and protobuf, in that order."""
        return list(self._infos)

    def universal_deserializer(self) -> RecognizerDecoder:
        """Decodes any supported format; no defaulting, no conversion."""
        return self._universal

    def universal_decoder(self, *versions: Any) -> VersioningCodec:
        """Decodes any format, defaults, and converts to ``versions`` (internal when none)."""
        versioner = _versioner(versions) if versions else INTERNAL_GROUP_VERSIONER
        return self.codec_for_versions(None, self._universal, None, versioner)

    def legacy_codec(self, *versions: Any) -> VersioningCodec:
        """Encodes JSON in ``versions``; decodes any format to the internal version."""
        return new_defaulting_codec_for_scheme(self.scheme, self._legacy_serializer, self._universal,
                                               _versioner(versions), INTERNAL_GROUP_VERSIONER)

    def codec_for_versions(self, encoder: Any, decoder: Any, encode_versioner: Any = None,
                           decode_versioner: Any = None) -> VersioningCodec:
        """A versioning codec; a missing encode versioner disables encoding conversion,
        a missing decode versioner converts to the internal version."""
        if encode_versioner is None:
            encode_versioner = DISABLED_GROUP_VERSIONER
        if decode_versioner is None:
            decode_versioner = INTERNAL_GROUP_VERSIONER
        return new_defaulting_codec_for_scheme(self.scheme, encoder, decoder, encode_versioner, decode_versioner)

    def encoder_for_version(self, encoder: Any, versioner: Any) -> VersioningCodec:
        """Encode with ``encoder`` after converting to ``versioner``."""
        return self.codec_for_versions(encoder, None, versioner, None)

    def decoder_to_version(self, decoder: Any, versioner: Any) -> VersioningCodec:
        """Decode with ``decoder`` and convert to ``versioner``."""
        return self.codec_for_versions(None, decoder, None, versioner)

    def without_conversion(self) -> WithoutConversionCodecFactory:
        """A factory whose codecs only set or clear GVKs, never converting."""
        return WithoutConversionCodecFactory(self)


class WithoutConversionCodecFactory:
    """Go's WithoutConversionCodecFactory: labels on encode, clears GVK on decode."""

    def __init__(self, factory: CodecFactory) -> None:
        self.factory = factory

    def __repr__(self) -> str:
        return f"WithoutConversionCodecFactory({self.factory!r})"

    def supported_media_types(self) -> list[SerializerInfo]:
        """As the wrapped factory."""
        return self.factory.supported_media_types()

    def universal_deserializer(self) -> RecognizerDecoder:
        """As the wrapped factory."""
        return self.factory.universal_deserializer()

    def encoder_for_version(self, encoder: Any, versioner: Any) -> WithVersionEncoder:
        """Sets the GVK picked by ``versioner`` among the type's kinds; no conversion."""
        return WithVersionEncoder(versioner, encoder, self.factory.scheme)

    def decoder_to_version(self, decoder: Any, versioner: Any = None) -> WithoutVersionDecoder:
        """Decodes and clears the object's GVK; ``versioner`` is ignored."""
        return WithoutVersionDecoder(decoder)

    # The remaining methods are the wrapped factory's own, which still convert (as the
    # embedded CodecFactory's methods do in Go).

    def universal_decoder(self, *versions: Any) -> VersioningCodec:
        """As the wrapped factory (converting)."""
        return self.factory.universal_decoder(*versions)

    def legacy_codec(self, *versions: Any) -> VersioningCodec:
        """As the wrapped factory (converting)."""
        return self.factory.legacy_codec(*versions)

    def codec_for_versions(self, encoder: Any, decoder: Any, encode_versioner: Any = None,
                           decode_versioner: Any = None) -> VersioningCodec:
        """As the wrapped factory (converting)."""
        return self.factory.codec_for_versions(encoder, decoder, encode_versioner, decode_versioner)


class ClientNegotiator:
    """Picks encoders and decoders by media type, as a REST client does (Go: k8s.io/apimachinery/pkg/runtime/serializer/codec_factory.go).

    ``content_type`` is a bare media type, matched exactly as Go does (a client parses the
    Content-Type header first and passes its parameters separately; they are ignored).
    The empty content type means the factory's first media type. Encoders convert to
    ``encode_version``; decoders convert to ``decode_version`` (None: the internal version).
    """

    def __init__(self, factory: Any, encode_version: Any = None, decode_version: Any = None) -> None:
        self.factory = factory
        self.encode_version = encode_version
        self.decode_version = decode_version

    def __repr__(self) -> str:
        return f"ClientNegotiator({self.factory!r})"

    def _info(self, content_type: str, stream: bool) -> SerializerInfo:
        infos = self.factory.supported_media_types()
        if stream and any(i.media_type == CONTENT_TYPE_CBOR for i in infos):
            # client-go: a CBOR watch is application/cbor-seq; application/cbor names
            # exactly one data item, never a stream.
            if content_type == CONTENT_TYPE_CBOR:
                raise KCodecError(f"no stream serializers registered for {content_type}")
            if content_type == CONTENT_TYPE_CBOR_SEQ:
                content_type = CONTENT_TYPE_CBOR
        info = serializer_info_for_media_type(infos, content_type)
        if info is None:
            if content_type or not infos:
                kind = "stream serializers" if stream else "serializers"
                raise KCodecError(f"no {kind} registered for {content_type}")
            info = infos[0]
        return info

    def encoder(self, content_type: str, params: dict[str, str] | None = None) -> Any:
        """An encoder (converting to ``encode_version``) for ``content_type``."""
        info = self._info(content_type, False)
        return self.factory.encoder_for_version(info.serializer, self.encode_version)

    def decoder(self, content_type: str, params: dict[str, str] | None = None) -> Any:
        """A decoder (converting to ``decode_version``) for ``content_type``."""
        info = self._info(content_type, False)
        return self.factory.decoder_to_version(info.serializer, self.decode_version)

    def stream_decoder(self, content_type: str, params: dict[str, str] | None = None) -> tuple[Any, Any, Any]:
        """``(decoder, stream serializer, framer)`` for a stream of ``content_type`` objects.

        The decoder is the converting decoder of the media type's plain serializer; the
        stream serializer reads each frame.
        """
        info = self._info(content_type, True)
        stream = info.stream_serializer
        if stream is None:
            raise KCodecError(f"no stream serializers registered for {info.media_type}")
        decoder = self.factory.decoder_to_version(info.serializer, self.decode_version)
        return decoder, stream.serializer, stream.framer
