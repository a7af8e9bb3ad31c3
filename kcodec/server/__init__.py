"""The Kubernetes REST API over kcodec's registry (``kcodec serve``).

Go: k8s.io/apiserver pkg/endpoints and pkg/server. Modules, split as Go splits them:

- :mod:`kcodec.server.negotiation`: Accept / Content-Type negotiation, 406 and 415;
- :mod:`kcodec.server.status` and :mod:`kcodec.server.responses`: errors as metav1.Status,
  objects written in the negotiated format;
- :mod:`kcodec.server.handlers`: create, get, list, update, delete, deletecollection, watch
  set-up, Table and PartialObjectMetadata; :mod:`kcodec.server.patching`: PATCH;
- :mod:`kcodec.server.watch`: watch streams on the event loop;
- :mod:`kcodec.server.installer` and :mod:`kcodec.server.discovery`: APIGroupInfos to routes,
  discovery documents (legacy and aggregated); :mod:`kcodec.server.openapi`: /openapi/v2, v3;
- :mod:`kcodec.server.server`: the aiohttp application (:class:`GenericAPIServer`);
  :mod:`kcodec.server.options` and :mod:`kcodec.server.runner`: configuration, start and stop.

Tests and tools use :class:`kcodec.testing.APIServer` or the ``kcodec serve`` command.
"""
from __future__ import annotations

import importlib
from typing import Any

__all__ = ["GenericAPIServer", "ServerOptions", "ServerRunner", "parse_storage", "parse_request_info",
           "error_to_api_status", "MAX_REQUEST_BODY_BYTES"]

_WHERE = {
    "GenericAPIServer": "kcodec.server.server",
    "parse_request_info": "kcodec.server.server",
    "ServerOptions": "kcodec.server.options",
    "parse_storage": "kcodec.server.options",
    "ServerRunner": "kcodec.server.runner",
    "error_to_api_status": "kcodec.server.status",
    "MAX_REQUEST_BODY_BYTES": "kcodec.server.handlers",
}


def __getattr__(name: str) -> Any:
    # Lazy: importing kcodec.server.negotiation must not load aiohttp and the registry.
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'kcodec.server' has no attribute {name!r}")
    return getattr(importlib.import_module(where), name)
