"""kcodec: Kubernetes apimachinery encoding for Python, byte-compatible with Go.

Everyday calls (see docs/guide.md): :func:`load` and :func:`load_all` read objects from JSON,
YAML, protobuf or CBOR; :func:`dump` writes them as Go does; :func:`watch_events` iterates a
watch response body; :func:`convert` turns an object into another version of its kind
through the internal version, as ``kubectl convert`` does.

Subpackages: :mod:`kcodec.schema` (group/version/kind values and versioners),
:mod:`kcodec.errors`, :mod:`kcodec.model` (typed structs), :mod:`kcodec.runtime` (objects,
Scheme, helpers), :mod:`kcodec.conversion`, :mod:`kcodec.serializer` (JSON/YAML/protobuf,
codecs, CodecFactory), :mod:`kcodec.storage` (the etcd storage layer) and
:mod:`kcodec.api` (the built-in Kubernetes API models, ``kcodec.api.scheme`` and
``kcodec.api.codecs``). Importing ``kcodec`` itself loads nothing else: the helpers are
imported on first use.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["__version__", "Event", "load", "load_all", "dump", "watch_events", "convert", "apply", "extract"]

if TYPE_CHECKING:
    from kcodec._everyday import Event, dump, load, load_all, watch_events
    from kcodec.legacyscheme import convert
    from kcodec._apply import apply, extract

_LAZY = {name: "kcodec._everyday" for name in ("Event", "load", "load_all", "dump", "watch_events")}
# convert(obj, "apps/v1"): through the internal version, as kubectl convert (kcodec.legacyscheme).
_LAZY["convert"] = "kcodec.legacyscheme"
# apply(live, applied, manager) / extract(obj, manager): server-side apply offline.
_LAZY["apply"] = _LAZY["extract"] = "kcodec._apply"


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kcodec' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
