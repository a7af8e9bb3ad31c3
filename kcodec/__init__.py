"""kcodec: Kubernetes apimachinery encoding for Python, byte-compatible with Go.

Subpackages: :mod:`kcodec.schema` (group/version/kind values and versioners),
:mod:`kcodec.errors`, :mod:`kcodec.model` (typed structs), :mod:`kcodec.runtime` (objects,
Scheme, helpers), :mod:`kcodec.conversion`, :mod:`kcodec.serializer` (JSON/YAML/protobuf,
codecs, CodecFactory), :mod:`kcodec.storage` (the etcd storage codec) and
:mod:`kcodec.api` (the built-in Kubernetes API models, ``kcodec.api.scheme`` and
``kcodec.api.codecs``). Importing ``kcodec`` itself loads nothing else.
"""

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "convert"]


def convert(obj: Any, version: Any) -> Any:
    """``obj`` (an object, or the bytes of one document) as ``version`` ("apps/v1"), through the
    internal version with the source version's defaults applied, as ``kubectl convert`` does.

    See :func:`kcodec.legacyscheme.convert` (imported on first use).
    """
    from kcodec.legacyscheme import convert as _convert

    return _convert(obj, version)
