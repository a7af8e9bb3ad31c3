"""Objects, the Scheme, and the runtime helpers of kcodec (Go's k8s.io/apimachinery/pkg/runtime).

The contracts every encoder, decoder, typer and versioner follows are stated once, in
:mod:`kcodec.runtime.interfaces`. This face loads nothing itself: each name below comes
from its module on first access, so a generated API module that needs only ``Object`` and
``RawExtension`` does not pull in the Scheme, the conversion layer or the parameter codec.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Public name -> the module that defines it.
_HOMES: dict[str, str] = {
    "Object": "kcodec.runtime.object",
    "CONTENT_TYPE_JSON": "kcodec.runtime.types",
    "CONTENT_TYPE_PROTOBUF": "kcodec.runtime.types",
    "RawExtension": "kcodec.runtime.types",
    "Unknown": "kcodec.runtime.types",
    "DISABLED_GROUP_VERSIONER": "kcodec.schema",
    "INTERNAL_GROUP_VERSIONER": "kcodec.schema",
    "APIVersionInternal": "kcodec.schema",
    "MultiGroupVersioner": "kcodec.schema",
    "new_coercing_multi_group_versioner": "kcodec.schema",
    "new_multi_group_versioner": "kcodec.schema",
    "Base64Serializer": "kcodec.runtime.helpers",
    "DEFAULT_FRAMER": "kcodec.runtime.helpers",
    "MultiObjectTyper": "kcodec.runtime.helpers",
    "NoopDecoder": "kcodec.runtime.helpers",
    "NoopEncoder": "kcodec.runtime.helpers",
    "WithoutVersionDecoder": "kcodec.runtime.helpers",
    "WithVersionEncoder": "kcodec.runtime.helpers",
    "decode": "kcodec.runtime.helpers",
    "decode_into": "kcodec.runtime.helpers",
    "decode_list": "kcodec.runtime.helpers",
    "encode": "kcodec.runtime.helpers",
    "encode_list": "kcodec.runtime.helpers",
    "use_or_create_object": "kcodec.runtime.helpers",
    "Scheme": "kcodec.runtime.scheme",
    "SchemeBuilder": "kcodec.runtime.scheme",
    "ParameterCodec": "kcodec.runtime.parameter_codec",
    # Unstructured lives above runtime and meta/v1, where Go puts it
    # (k8s.io/apimachinery/pkg/apis/meta/v1/unstructured); this face only re-exports it.
    "Unstructured": "kcodec.api.meta.unstructured",
    "UnstructuredList": "kcodec.api.meta.unstructured",
}

__all__ = sorted(_HOMES)

if TYPE_CHECKING:
    from kcodec.api.meta.unstructured import Unstructured, UnstructuredList
    from kcodec.runtime.helpers import (
        DEFAULT_FRAMER,
        Base64Serializer,
        MultiObjectTyper,
        NoopDecoder,
        NoopEncoder,
        WithoutVersionDecoder,
        WithVersionEncoder,
        decode,
        decode_into,
        decode_list,
        encode,
        encode_list,
        use_or_create_object,
    )
    from kcodec.runtime.object import Object
    from kcodec.runtime.parameter_codec import ParameterCodec
    from kcodec.runtime.scheme import Scheme, SchemeBuilder
    from kcodec.runtime.types import CONTENT_TYPE_JSON, CONTENT_TYPE_PROTOBUF, RawExtension, Unknown
    from kcodec.schema import (
        DISABLED_GROUP_VERSIONER,
        INTERNAL_GROUP_VERSIONER,
        APIVersionInternal,
        MultiGroupVersioner,
        new_coercing_multi_group_versioner,
        new_multi_group_versioner,
    )


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
