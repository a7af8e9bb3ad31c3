"""Serializers (JSON/YAML, protobuf), codecs and the CodecFactory.

One module per format: :mod:`kcodec.serializer.json` (JSON and YAML),
:mod:`kcodec.serializer.protobuf`; plus :mod:`~kcodec.serializer.versioning`,
:mod:`~kcodec.serializer.recognizer`, :mod:`~kcodec.serializer.streaming` and the
factory. The factory names below load on first access, so importing one serializer
module does not pull in the others.
"""
from __future__ import annotations

from typing import Any

__all__ = [
    "CONTENT_TYPE_JSON",
    "CONTENT_TYPE_PROTOBUF",
    "CONTENT_TYPE_YAML",
    "ClientNegotiator",
    "CodecFactory",
    "SerializerInfo",
    "StreamSerializerInfo",
    "WithoutConversionCodecFactory",
    "serializer_info_for_media_type",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from kcodec.serializer import factory

        return getattr(factory, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
