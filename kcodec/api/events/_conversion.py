"""Conversions between events.k8s.io (v1, v1beta1) Events and the internal core Event.

Go's events group has no internal types: kube-apiserver stores events.k8s.io Events as core
Events (kubernetes/kubernetes pkg/apis/events/{v1,v1beta1}/conversion.go). Same-named fields
are copied; the rest are core fields under new names: ``regarding`` is ``involvedObject``,
``note`` is ``message``, and ``deprecatedSource``/``deprecatedFirstTimestamp``/
``deprecatedLastTimestamp``/``deprecatedCount`` are ``source``/``firstTimestamp``/
``lastTimestamp``/``count``.
"""
from __future__ import annotations

from typing import Any

from kcodec.api._hub import register_version
from kcodec.api.core import internal as core
from kcodec.api.events import v1, v1beta1
from kcodec.conversion import Scope

__all__ = ["add_conversion_funcs"]


def _converted(scope: Scope, value: Any, cls: type) -> Any:
    out = cls()
    scope.convert(value, out)
    return out


def _regarding_in(src: Any, dst: core.Event, scope: Scope) -> None:
    dst.involved_object = _converted(scope, src.regarding, core.ObjectReference)


def _source_in(src: Any, dst: core.Event, scope: Scope) -> None:
    dst.source = _converted(scope, src.deprecated_source, core.EventSource)


def _rename(dst_name: str, src_name: str):
    def convert(src: Any, dst: Any, scope: Scope) -> None:
        setattr(dst, dst_name, getattr(src, src_name))

    convert.__qualname__ = f"rename[{src_name}->{dst_name}]"
    return convert


def _regarding_out(src: core.Event, dst: Any, scope: Scope) -> None:
    dst.regarding = _converted(scope, src.involved_object, type(dst.regarding))


def _source_out(src: core.Event, dst: Any, scope: Scope) -> None:
    dst.deprecated_source = _converted(scope, src.source, type(dst.deprecated_source))


TO_INTERNAL = {"Event": {
    "involved_object": _regarding_in,
    "message": _rename("message", "note"),
    "source": _source_in,
    "first_timestamp": _rename("first_timestamp", "deprecated_first_timestamp"),
    "last_timestamp": _rename("last_timestamp", "deprecated_last_timestamp"),
    "count": _rename("count", "deprecated_count"),
}}
TO_EXTERNAL = {"Event": {
    "regarding": _regarding_out,
    "note": _rename("note", "message"),
    "deprecated_source": _source_out,
    "deprecated_first_timestamp": _rename("deprecated_first_timestamp", "first_timestamp"),
    "deprecated_last_timestamp": _rename("deprecated_last_timestamp", "last_timestamp"),
    "deprecated_count": _rename("deprecated_count", "count"),
}}


def add_conversion_funcs(scheme: Any) -> None:
    """Register events.k8s.io v1 and v1beta1 <-> internal core Event conversions."""
    for mod in (v1, v1beta1):
        register_version(scheme, mod, [core], to_internal=TO_INTERNAL, to_external=TO_EXTERNAL)
