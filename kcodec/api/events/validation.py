"""Validation of events.k8s.io Events (Go: k8s.io/kubernetes pkg/apis/core/validation/events.go,
called by pkg/registry/core/event/strategy.go with the request's group/version).

The events.k8s.io group stores core's internal Event; requests through it get the strict
checks of events.k8s.io/v1 (reportingController, eventTime, no legacy timestamps). Callers
that know the request came through events.k8s.io/v1beta1 pass ``request_version``.
"""
from __future__ import annotations

from typing import Any

from kcodec.api.core import validation as core
from kcodec.validation.field import ErrorList

__all__ = ["validate_event", "validate_event_update"]


def validate_event(event: Any, request_version: str = "events.k8s.io/v1") -> ErrorList:
    """Go: ``ValidateEventCreate`` for a request to events.k8s.io."""
    return core.validate_event(event, request_version)


def validate_event_update(new: Any, old: Any, request_version: str = "events.k8s.io/v1") -> ErrorList:
    """Go: ``ValidateEventUpdate`` for a request to events.k8s.io."""
    return core.validate_event_update(new, old, request_version)
