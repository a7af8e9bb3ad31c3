"""The versioning codec: decode -> default -> convert, and convert -> encode.

Go behaviour: Go: k8s.io/apimachinery/pkg/runtime/serializer/versioning/versioning.go. Build it through :class:`kcodec.serializer.CodecFactory`.
"""
from __future__ import annotations

from typing import IO, Any

from kcodec.errors import DecodeError, EncodeError, NotRegisteredError, StrictDecodingError
from kcodec.runtime.helpers import WithoutVersionDecoder, WithVersionEncoder
from kcodec.runtime.interfaces import (
    Decoder,
    Encoder,
    GroupVersioner,
    ObjectConvertor,
    ObjectCreater,
    ObjectDefaulter,
    ObjectTyper,
)
from kcodec.runtime.scheme import is_unstructured
from kcodec.runtime.types import Unknown
from kcodec.schema import GroupVersionKind, go_json_object

__all__ = [
    "VersioningCodec",
    "UnsafeObjectConvertor",
    "new_codec",
    "new_defaulting_codec_for_scheme",
    "identifier",
]


def identifier(encode_version: Any, encoder: Any) -> str:
    """``{"encodeGV":...,"encoder":...,"name":"versioning"}``; absent or empty parts omitted."""
    values = {"name": "versioning"}
    if encode_version is not None:
        gv_id = encode_version.identifier()
        if gv_id:
            values["encodeGV"] = gv_id
    if encoder is not None:
        enc_id = encoder.identifier()
        if enc_id:
            values["encoder"] = enc_id
    return go_json_object(values)


class UnsafeObjectConvertor:
    """A scheme whose ``convert_to_version`` is its ``unsafe_convert_to_version``.

    Go's ``runtime.UnsafeObjectConvertor``: the codecs of a factory use it, so a decoded (or
    about-to-be-encoded) object already in the target version is relabelled in place rather
    than deep-copied.
    """

    __slots__ = ("scheme",)

    def __init__(self, scheme: Any) -> None:
        self.scheme = scheme

    def __repr__(self) -> str:
        return f"UnsafeObjectConvertor({self.scheme!r})"

    def convert(self, src: Any, dst: Any, context: Any = None) -> None:
        """The scheme's ``convert``."""
        self.scheme.convert(src, dst, context)

    def convert_to_version(self, obj: Any, target: Any) -> Any:
        """The scheme's ``unsafe_convert_to_version`` (may return ``obj`` itself)."""
        return self.scheme.unsafe_convert_to_version(obj, target)

    def convert_field_label(self, gvk: GroupVersionKind, label: str, value: str) -> tuple[str, str]:
        """The scheme's ``convert_field_label``."""
        return self.scheme.convert_field_label(gvk, label, value)


class VersioningCodec:
    """Wraps a serializer with conversion to ``encode_version`` / ``decode_version``.

    ``convertor`` needs ``convert`` and ``convert_to_version``, ``typer`` needs
    ``object_kinds``; ``defaulter`` may be None (no defaulting). ``creater`` is kept for
    parity with Go's constructor.
    """

    def __init__(self, encoder: Encoder, decoder: Decoder, convertor: ObjectConvertor,
                 creater: ObjectCreater, typer: ObjectTyper, defaulter: ObjectDefaulter | None,
                 encode_version: GroupVersioner | None, decode_version: GroupVersioner | None,
                 original_scheme_name: str = "") -> None:
        self.encoder = encoder
        self.decoder = decoder
        self.convertor = convertor
        self.creater = creater
        self.typer = typer
        self.defaulter = defaulter
        self.encode_version = encode_version
        self.decode_version = decode_version
        self.original_scheme_name = original_scheme_name
        self._identifier = identifier(encode_version, encoder)

    def __repr__(self) -> str:
        return f"VersioningCodec(identifier={self._identifier})"

    def identifier(self) -> str:
        """``{"encodeGV":...,"encoder":...,"name":"versioning"}`` (empty parts omitted)."""
        return self._identifier

    # ------------------------------------------------------------------ decoding

    def decode(self, data: bytes, defaults: GroupVersionKind | None = None,
               into: Any = None) -> tuple[Any, GroupVersionKind]:
        """Decode with the inner decoder, default, then convert to ``decode_version``.

        The returned kind is the serialized one. Strict findings of the inner decoder (and of
        nested objects) are raised together at the end as one StrictDecodingError carrying
        the converted object.
        """
        if self.decoder is None:
            raise DecodeError("decoding is not allowed for this codec: it has no decoder")
        decode_into = into
        # An unstructured target that names a group/version must go through conversion,
        # so the inner decoder gets a fresh instance instead of the target itself.
        if into is not None and is_unstructured(into) \
                and not into.get_object_kind().group_version_kind().group_version().empty():
            decode_into = type(into)()
        strict_errs: list[str] = []
        try:
            obj, gvk = self.decoder.decode(data, defaults, decode_into)
        except StrictDecodingError as err:
            if err.obj is None:
                raise
            obj, gvk = err.obj, err.gvk
            strict_errs.extend(err.errors)
        nested = getattr(obj, "decode_nested_objects", None)
        if nested is not None:
            try:
                nested(WithoutVersionDecoder(self.decoder))
            except StrictDecodingError as err:
                strict_errs.extend(err.errors)
        defaulter = self.defaulter
        if into is not None:
            if defaulter is not None:
                defaulter.default(obj)
            if into is not obj:
                self.convertor.convert(obj, into, self.decode_version)
            return self._finish(into, gvk, strict_errs)
        if defaulter is not None:
            defaulter.default(obj)
        out = self.convertor.convert_to_version(obj, self.decode_version)
        return self._finish(out, gvk, strict_errs)

    @staticmethod
    def _finish(obj: Any, gvk: GroupVersionKind, strict_errs: list[str]) -> tuple[Any, GroupVersionKind]:
        if strict_errs:
            raise StrictDecodingError(strict_errs, obj, gvk)
        return obj, gvk

    # ------------------------------------------------------------------ encoding

    def encode(self, obj: Any, stream: IO[bytes] | None = None) -> bytes:
        """Convert ``obj`` to ``encode_version`` and encode it; ``obj``'s GVK is restored.

        An object with ``cache_encode`` (a CacheableObject) is asked to encode itself through
        its cache, keyed by this codec's identifier.
        """
        if self.encoder is None:
            raise EncodeError("encoding is not allowed for this codec: it has no encoder")
        cache_encode = getattr(obj, "cache_encode", None)
        if cache_encode is not None:
            return cache_encode(self._identifier, self._do_encode, stream)
        return self._do_encode(obj, stream)

    def _do_encode(self, obj: Any, stream: IO[bytes] | None) -> bytes:
        encode = self.encoder.encode
        if isinstance(obj, Unknown):
            return encode(obj, stream)
        # An UnstructuredList (typed items in .items) is told apart by shape: the serializer
        # sits below the unstructured package, as Go's does.
        if is_unstructured(obj) and not isinstance(getattr(obj, "items", None), list) \
                and self.encode_version is not None:
            # Unstructured objects already in the wanted kind (or without a version) skip the
            # typer and the converter; lists always go through them so items get converted.
            obj_gvk = obj.get_object_kind().group_version_kind()
            if not obj_gvk.version:
                return encode(obj, stream)
            target = self.encode_version.kind_for_group_version_kinds([obj_gvk])
            if target is None:
                raise NotRegisteredError(self.original_scheme_name, gvk=obj_gvk, target=self.encode_version)
            if target == obj_gvk:
                return encode(obj, stream)
        gvks, unversioned = self.typer.object_kinds(obj)
        kind = obj.get_object_kind()
        old = kind.group_version_kind()
        try:
            if self.encode_version is None or unversioned:
                nested = getattr(obj, "encode_nested_objects", None)
                if nested is not None:
                    nested(WithVersionEncoder(None, self.encoder, self.typer))
                kind.set_group_version_kind(gvks[0])
                return encode(obj, stream)
            out = self.convertor.convert_to_version(obj, self.encode_version)
            nested = getattr(out, "encode_nested_objects", None)
            if nested is not None:
                nested(WithVersionEncoder(self.encode_version, self.encoder, self.typer))
            return encode(out, stream)
        finally:
            kind.set_group_version_kind(old)


def new_codec(encoder: Any, decoder: Any, convertor: Any, creater: Any, typer: Any, defaulter: Any,
              encode_version: Any, decode_version: Any, original_scheme_name: str = "") -> VersioningCodec:
    """Go's versioning.NewCodec."""
    return VersioningCodec(encoder, decoder, convertor, creater, typer, defaulter,
                           encode_version, decode_version, original_scheme_name)


def new_defaulting_codec_for_scheme(scheme: Any, encoder: Any, decoder: Any, encode_version: Any,
                                    decode_version: Any) -> VersioningCodec:
    """A versioning codec on ``scheme``: unsafe conversions, the scheme's typer and defaulter."""
    return VersioningCodec(encoder, decoder, UnsafeObjectConvertor(scheme), scheme, scheme, scheme,
                           encode_version, decode_version, getattr(scheme, "name", ""))
