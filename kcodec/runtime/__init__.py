"""Objects, the Scheme, and the runtime helpers of kcodec (Go's k8s.io/apimachinery/pkg/runtime).

The contracts every encoder, decoder, typer and versioner follows are stated once, in
:mod:`kcodec.runtime.interfaces`.
"""
from typing import Any

from kcodec.runtime.object import Object
from kcodec.runtime.types import CONTENT_TYPE_JSON, CONTENT_TYPE_PROTOBUF, RawExtension, Unknown
from kcodec.schema import (
    DISABLED_GROUP_VERSIONER,
    INTERNAL_GROUP_VERSIONER,
    APIVersionInternal,
    MultiGroupVersioner,
    new_coercing_multi_group_versioner,
    new_multi_group_versioner,
)
from kcodec.runtime.helpers import (
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
from kcodec.runtime.scheme import Scheme, SchemeBuilder
from kcodec.runtime.parameter_codec import ParameterCodec

__all__ = [
    "APIVersionInternal",
    "Base64Serializer",
    "CONTENT_TYPE_JSON",
    "CONTENT_TYPE_PROTOBUF",
    "DISABLED_GROUP_VERSIONER",
    "INTERNAL_GROUP_VERSIONER",
    "MultiGroupVersioner",
    "MultiObjectTyper",
    "NoopDecoder",
    "NoopEncoder",
    "Object",
    "ParameterCodec",
    "RawExtension",
    "Scheme",
    "SchemeBuilder",
    "Unknown",
    "Unstructured",
    "UnstructuredList",
    "WithVersionEncoder",
    "WithoutVersionDecoder",
    "decode",
    "decode_into",
    "decode_list",
    "encode",
    "encode_list",
    "new_coercing_multi_group_versioner",
    "new_multi_group_versioner",
    "use_or_create_object",
]


def __getattr__(name: str) -> Any:
    # Unstructured lives above runtime and meta/v1, where Go puts it
    # (k8s.io/apimachinery/pkg/apis/meta/v1/unstructured); this face only re-exports it.
    if name in ("Unstructured", "UnstructuredList"):
        from kcodec.api.meta import unstructured

        return getattr(unstructured, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
