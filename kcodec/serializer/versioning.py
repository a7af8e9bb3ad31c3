"""The versioning codec: decode -> default -> convert, and convert -> encode.

Go behaviour: reference §14. Build it through :class:`kcodec.serializer.CodecFactory`.
"""
from __future__ import annotations

import json as _stdjson
from typing import IO, Any

from kcodec.errors import NotRegisteredError, StrictDecodingError
from kcodec.runtime.helpers import WithoutVersionDecoder, WithVersionEncoder
from kcodec.runtime.types import Unknown
from kcodec.runtime.unstructured import Unstructured, UnstructuredList
from kcodec.schema import GroupVersionKind

__all__ = ["VersioningCodec", "new_codec", "new_defaulting_codec_for_scheme"]


class VersioningCodec:
    """Wraps a serializer with conversion to ``encode_version`` / ``decode_version``."""

    def __init__(self, encoder: Any, decoder: Any, convertor: Any, creater: Any, typer: Any,
                 defaulter: Any, encode_version: Any, decode_version: Any,
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
        ident: dict[str, str] = {}
        if encode_version is not None:
            ident["encodeGV"] = encode_version.identifier()
        if encoder is not None:
            ident["encoder"] = encoder.identifier()
        ident["name"] = "versioning"
        self._identifier = _stdjson.dumps(ident, separators=(",", ":"))

    def __repr__(self) -> str:
        return f"VersioningCodec(identifier={self._identifier})"

    def identifier(self) -> str:
        """``{"encodeGV":...,"encoder":...,"name":"versioning"}`` (empty parts omitted)."""
        return self._identifier

    def decode(self, data: bytes, defaults: GroupVersionKind | None = None,
               into: Any = None) -> tuple[Any, GroupVersionKind]:
        """Decode with the inner decoder, default, then convert to ``decode_version``."""
        decode_into = into
        if isinstance(into, (Unstructured, UnstructuredList)) and not into.get_object_kind().group_version_kind().group_version().empty():
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
        if callable(nested):
            try:
                nested(WithoutVersionDecoder(self.decoder))
            except StrictDecodingError as err:
                strict_errs.extend(err.errors)
        if into is not None:
            if self.defaulter is not None:
                self.defaulter.default(obj)
            if into is obj:
                return self._finish(into, gvk, strict_errs)
            self.convertor.convert(obj, into, self.decode_version)
            return self._finish(into, gvk, strict_errs)
        if self.defaulter is not None:
            self.defaulter.default(obj)
        out = self.convertor.unsafe_convert_to_version(obj, self.decode_version)
        return self._finish(out, gvk, strict_errs)

    @staticmethod
    def _finish(obj: Any, gvk: GroupVersionKind, strict_errs: list[str]) -> tuple[Any, GroupVersionKind]:
        if strict_errs:
            raise StrictDecodingError(strict_errs, obj, gvk)
        return obj, gvk

    def encode(self, obj: Any, stream: IO[bytes] | None = None) -> bytes:
        """Convert ``obj`` to ``encode_version`` and encode it; ``obj``'s GVK is restored."""
        encode = self.encoder.encode
        if isinstance(obj, Unknown):
            return encode(obj, stream)
        if isinstance(obj, Unstructured) and not isinstance(obj, UnstructuredList):
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
                if callable(nested):
                    nested(WithVersionEncoder(None, self.encoder, self.typer))
                kind.set_group_version_kind(gvks[0])
                return encode(obj, stream)
            out = self.convertor.convert_to_version(obj, self.encode_version)
            nested = getattr(out, "encode_nested_objects", None)
            if callable(nested):
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
    """A versioning codec using ``scheme`` as convertor, creater, typer and defaulter."""
    return VersioningCodec(encoder, decoder, scheme, scheme, scheme, scheme, encode_version,
                           decode_version, getattr(scheme, "name", ""))
