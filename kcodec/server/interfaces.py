"""The server layer's contracts (as kcodec/runtime/interfaces.py and
kcodec/storage/interfaces.py are their layers'): what the endpoint handlers ask of the
things they are given.
"""
from __future__ import annotations

from typing import Protocol

from kcodec.schema import GroupVersionKind

__all__ = ["EndpointRestrictions"]


class EndpointRestrictions(Protocol):
    """What an endpoint can serve beyond its plain media types (k8s.io/apiserver
    pkg/endpoints/handlers/negotiation ``EndpointRestrictions``)."""

    def allows_media_type_transform(self, mime_type: str, mime_subtype: str,
                                    target: GroupVersionKind | None) -> bool: ...

    def allows_server_version(self, version: str) -> bool: ...

    def allows_stream_schema(self, schema: str) -> bool: ...
