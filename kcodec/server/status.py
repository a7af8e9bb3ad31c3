"""Errors to metav1.Status (Go: k8s.io/apiserver pkg/endpoints/handlers/responsewriters/status.go).

An error that carries a Status (``kcodec.api.errors.StatusError``, the negotiation errors) is
answered with it, completed as Go's ``ErrorToAPIStatus`` completes it; anything else is an
internal error of the server (code 500 with Go's StatusReasonUnknown, the empty reason),
logged with its traceback, since it means a bug.
"""
from __future__ import annotations

import copy
import logging
from typing import Any

from kcodec.api.meta import v1 as metav1

__all__ = ["error_to_api_status", "status_from", "retry_after_seconds"]

_log = logging.getLogger("kcodec.server")


def status_from(err: BaseException) -> metav1.Status | None:
    """The Status an error carries (``err.status``), or None."""
    status = getattr(err, "status", None)
    if isinstance(status, metav1.Status):
        return status
    return None


def error_to_api_status(err: BaseException) -> metav1.Status:
    """The Status to answer ``err`` with, kind ``Status`` and apiVersion ``v1`` (ErrorToAPIStatus)."""
    carried = status_from(err)
    if carried is not None:
        status = copy.copy(carried)
        if not status.status:
            status.status = "Failure"
        if status.status == "Success":
            if not status.code:
                status.code = 200
        elif not status.code:
            status.code = 500
        status.kind = "Status"
        status.api_version = "v1"
        return status
    _log.error("apiserver received an error that is not an metav1.Status: %r: %s", err, err, exc_info=err)
    return metav1.Status(kind="Status", api_version="v1", status="Failure", code=500, reason="",
                         message=str(err))


def retry_after_seconds(status: Any) -> int:
    """``details.retryAfterSeconds`` when positive (the ``Retry-After`` header ErrorNegotiated sets), else 0."""
    details = status.details
    return int(details.retry_after_seconds) if details is not None and details.retry_after_seconds > 0 else 0
