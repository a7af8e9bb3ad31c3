"""kcodec: Kubernetes apimachinery encoding for Python, byte-compatible with Go.

Subpackages: :mod:`kcodec.schema` (group/version/kind values and versioners),
:mod:`kcodec.errors`, :mod:`kcodec.model` (typed structs), :mod:`kcodec.runtime` (objects,
Scheme, helpers), :mod:`kcodec.conversion`, :mod:`kcodec.serializer` (JSON/YAML/protobuf,
codecs, CodecFactory), :mod:`kcodec.storage` (the etcd storage codec) and
:mod:`kcodec.api` (the built-in Kubernetes API models, ``kcodec.api.scheme`` and
``kcodec.api.codecs``). Importing ``kcodec`` itself loads nothing else.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
