"""Defaults of authentication.k8s.io/v1 (``pkg/apis/authentication/v1/defaults.go``):
a TokenRequest without an expiration asks for one hour."""
from __future__ import annotations

from kcodec.api.authentication import v1

__all__ = ["DEFAULTERS"]


def _token_request_spec(obj: v1.TokenRequestSpec) -> None:
    if obj.expiration_seconds is None:
        obj.expiration_seconds = 3600


DEFAULTERS = {v1.TokenRequestSpec: _token_request_spec}
MARKERS: dict = {}
