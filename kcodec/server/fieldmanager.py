"""Managed fields on every write and server-side apply, as the handlers of k8s.io/apiserver
``pkg/endpoints/handlers`` run the field manager: ``create.go`` and ``update.go`` call
``UpdateNoErrors``, ``patch.go`` calls it for JSON, merge and strategic patches and
``Apply`` for ``application/apply-patch+yaml`` (creating the object when it is missing).

One :class:`~kcodec.managedfields.ObjectFieldManager` per served scope, built on first use:
built-in kinds are typed by their model of the served version, custom resources by their
CRD version's schema. A resource with a status subresource resets ``status`` on the main
resource and everything but ``status`` on ``/status`` (the strategies' GetResetFields).
``/scale`` runs on autoscaling/v1 Scale objects whose managedFields its REST storage moves
from the workload and back (:mod:`kcodec.managedfields.scalehandler`).
"""
from __future__ import annotations

import threading
from typing import Any

from kcodec.api import errors as apierrors

__all__ = ["field_manager", "update_managed_fields", "apply_patch", "hub_version", "APPLY_PATCH_TYPES"]

APPLY_PATCH_TYPES = ("application/apply-patch+yaml", "application/apply-patch+cbor")

_lock = threading.Lock()
_managers: dict[int, Any] = {}


def _strategy(scope: Any) -> Any:
    store = scope.storage
    while hasattr(store, "store") and not hasattr(store, "create_strategy"):
        store = store.store
    return getattr(store, "create_strategy", None)


def _strategy_schema(scope: Any) -> Any:
    return getattr(_strategy(scope), "schema", None)


def _has_status(scope: Any) -> bool:
    """Whether the resource has a status subresource (its strategy resets status)."""
    strategy = _strategy(scope)
    info = getattr(strategy, "info", None)
    return bool(getattr(info, "status", False) or getattr(strategy, "status_enabled", False))


def field_manager(scope: Any) -> Any:
    """The field manager of a scope (cached)."""
    key = id(scope)
    fm = _managers.get(key)
    if fm is not None:
        return fm
    from kcodec.managedfields import ObjectFieldManager

    kind = scope.kind
    api_version = str(kind.group_version())
    obj = scope.storage.new()
    model = None
    openapi = None
    if hasattr(obj, "unstructured_content"):
        openapi = _strategy_schema(scope) or {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    else:
        from kcodec.api import scheme as external

        model = type(external.new(kind))
    if scope.subresource == "status":
        resets = {api_version: [["spec"]]}
    elif not scope.subresource and _has_status(scope):
        resets = {api_version: [["status"]]}
    else:
        resets = {}
    fm = ObjectFieldManager(scope.scheme, kind, model=model, openapi_v3=openapi, subresource=scope.subresource,
                            reset_fields=resets)
    with _lock:
        _managers[key] = fm
    return fm


def update_managed_fields(scope: Any, live: Any, new: Any, manager: str) -> Any:
    """``UpdateNoErrors``: ``new`` with the managedFields of ``manager``'s write."""
    if scope.subresource not in ("", "status", "scale"):
        return new
    return field_manager(scope).update(live, new, manager)


def apply_patch(scope: Any, current: Any, patch: dict[str, Any], manager: str, force: bool) -> Any:
    """The applied object in the registry's version; Go's 409 for conflicts (with one
    FieldManagerConflict cause per field) and 400 for a configuration the manager refuses."""
    from kcodec.api.meta.v1 import StatusCause
    from kcodec.managedfields.fieldmanager import ManagedFieldsError, conflict_message, print_manager
    from kcodec.managedfields.fieldpath import path_string
    from kcodec.managedfields.merge import Conflicts
    from kcodec.managedfields.typed import ValidationError

    fm = field_manager(scope)
    try:
        applied = fm.apply(current, patch, manager, force)
    except Conflicts as exc:
        causes = [StatusCause(type="FieldManagerConflict", message=f"conflict with {print_manager(c.manager)}",
                              field=path_string(c.path)) for c in exc.conflicts]
        raise apierrors.new_apply_conflict(causes, conflict_message(exc)) from None
    except ManagedFieldsError as exc:
        raise apierrors.new_bad_request(str(exc)) from None
    except ValidationError as exc:
        raise apierrors.new_bad_request(f"failed to create typed patch object ({_gvknn(patch, scope)}): {exc}") \
            from None
    if isinstance(applied, dict):  # a custom resource's merged tree
        from kcodec.api.meta.unstructured import Unstructured

        return Unstructured(applied)
    if hasattr(applied, "unstructured_content") or not hasattr(applied, "to_dict"):
        return applied
    return scope.scheme.convert_to_version(applied, hub_version(scope, applied))


def hub_version(scope: Any, obj: Any) -> Any:
    """The version ``obj`` (external, typed) converts to for the registry: the scope's hub, or
    for an internal hub the internal version of ``obj``'s own group (Go's
    InternalGroupVersioner: a Scale under ``apps`` or a custom resource group is
    autoscaling's internal Scale)."""
    from kcodec.schema import GroupVersion

    hub = scope.hub
    if hub.version != "__internal":
        return hub
    kinds, _ = scope.scheme.object_kinds(obj)
    return GroupVersion(kinds[0].group, "__internal")


def _gvknn(patch: dict[str, Any], scope: Any) -> str:
    meta = patch.get("metadata") or {}
    ns = meta.get("namespace") or "<unknown>"
    name = meta.get("name") or "<unknown>"
    return f"{ns}/{name}; {scope.kind}"
