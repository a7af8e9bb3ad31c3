"""Namespaces: deletion in phases and the ``finalize`` subresource.

Go: k/k ``pkg/registry/core/namespace/storage/storage.go`` (``REST.Delete``: the first
delete marks the namespace Terminating with a deletionTimestamp and records the garbage
collector's finalizers; it is removed only once ``spec.finalizers`` is empty, which the
namespace controller achieves through ``/finalize`` after deleting the contents) and
``strategy.go`` (``namespaceFinalizeStrategy``).
"""
from __future__ import annotations

from typing import Any

from kcodec.api import errors as apierrors
from kcodec.registry import rest
from kcodec.registry._meta import now
from kcodec.registry.builtin.strategies import BuiltinStrategy, validation_function
from kcodec.registry.generic.store import Store, _as_api_errors, should_delete_during_update
from kcodec.registry.request import Context
from kcodec.schema import GroupResource

__all__ = ["NamespaceStore", "NamespaceFinalizeStrategy", "FinalizeREST"]

_NAMESPACES = GroupResource("", "namespaces")


def _should_have_orphan_finalizer(options: Any, have: bool) -> bool:
    if options.orphan_dependents is not None:
        return bool(options.orphan_dependents)
    if options.propagation_policy is not None:
        return options.propagation_policy == "Orphan"
    return have


def _should_have_delete_dependents_finalizer(options: Any, have: bool) -> bool:
    if options.orphan_dependents is not None:
        return not options.orphan_dependents
    if options.propagation_policy is not None:
        return options.propagation_policy == "Foreground"
    return have


class NamespaceStore(Store):
    """The namespaces Store with Go's ``REST.Delete`` and ``ShouldDeleteNamespaceDuringUpdate``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.should_delete_during_update_func = _should_delete_namespace_during_update

    @_as_api_errors
    def delete(self, ctx: Context, name: str, delete_validation: Any = None, options: Any = None) -> tuple[Any, bool]:
        from kcodec.api.meta.v1 import DeleteOptions, Preconditions
        from kcodec.storage.store import Preconditions as StoragePreconditions

        delete_validation = delete_validation or rest.validate_all_objects
        namespace = self.get(ctx, name)
        options = options.deep_copy() if options is not None else DeleteOptions(grace_period_seconds=0)
        if options.preconditions is None:
            options.preconditions = Preconditions()
        uid = namespace.metadata.uid
        if options.preconditions.uid is None:
            options.preconditions.uid = uid
        elif options.preconditions.uid != uid:
            raise apierrors.new_conflict(_NAMESPACES, name, f"Precondition failed: UID in precondition: "
                                                             f"{options.preconditions.uid}, UID in object meta: {uid}")
        rv = options.preconditions.resource_version
        if rv is not None and rv != namespace.metadata.resource_version:
            raise apierrors.new_conflict(_NAMESPACES, name, f"Precondition failed: ResourceVersion in precondition: "
                                                             f"{rv}, ResourceVersion in object meta: "
                                                             f"{namespace.metadata.resource_version}")
        if namespace.metadata.deletion_timestamp is None:
            errs = rest.validate_delete_options(options)
            if errs:
                from kcodec.schema import GroupKind

                raise apierrors.new_invalid(GroupKind("meta.k8s.io", "DeleteOptions"), "", errs)

            def terminate(existing: Any) -> Any:
                delete_validation(ctx, existing)
                if existing.metadata.deletion_timestamp is None:
                    existing.metadata.deletion_timestamp = now()
                if existing.status.phase != "Terminating":
                    existing.status.phase = "Terminating"
                current = list(existing.metadata.finalizers or ())
                have = set(current)
                want = {
                    rest.FINALIZER_ORPHAN_DEPENDENTS: _should_have_orphan_finalizer(
                        options, rest.FINALIZER_ORPHAN_DEPENDENTS in have),
                    rest.FINALIZER_DELETE_DEPENDENTS: _should_have_delete_dependents_finalizer(
                        options, rest.FINALIZER_DELETE_DEPENDENTS in have),
                }
                if any((f in have) != should for f, should in want.items()):
                    kept = [f for f in current if f not in want]
                    kept += [f for f, should in want.items() if should]
                    existing.metadata.finalizers = kept or None
                return existing

            key = self.key_func(ctx, name)
            pre = StoragePreconditions(uid=options.preconditions.uid, resource_version=rv)
            try:
                if options.dry_run:
                    current = self.storage.get(key)
                    pre.check(key, current)
                    out = terminate(current)
                else:
                    out = self.storage.guaranteed_update(key, terminate, preconditions=pre)
            except Exception as exc:
                err = apierrors.interpret_get_error(exc, _NAMESPACES, name)
                err = apierrors.interpret_update_error(err, _NAMESPACES, name)
                if not isinstance(err, apierrors.StatusError):
                    err = apierrors.new_internal_error(err)
                raise err from exc
            return self._decorate(out), False
        if namespace.spec.finalizers:
            return namespace, False
        return super().delete(ctx, name, delete_validation, options)


def _should_delete_namespace_during_update(ctx: Context, key: str, obj: Any, existing: Any) -> bool:
    """Go's ``ShouldDeleteNamespaceDuringUpdate``: also wait for spec.finalizers."""
    return should_delete_during_update(ctx, key, obj, existing) and not obj.spec.finalizers


class NamespaceFinalizeStrategy(BuiltinStrategy):
    """``namespaceFinalizeStrategy``: only spec.finalizers change; status stays."""

    def prepare_for_update(self, ctx: Context, obj: Any, old: Any) -> None:
        obj.status = old.status

    def validate_update(self, ctx: Context, obj: Any, old: Any) -> Any:
        fn = validation_function("", "Namespace", "_finalize_update")
        if fn is not None:
            return fn(obj, old)
        return rest._error_list()


class FinalizeREST:
    """``namespaces/finalize``: update with the finalize strategy (Go's FinalizeREST)."""

    def __init__(self, store: NamespaceStore, strategy: NamespaceFinalizeStrategy) -> None:
        import copy

        self.store = copy.copy(store)
        self.store.update_strategy = strategy

    def __repr__(self) -> str:
        return "FinalizeREST(namespaces)"

    def new(self) -> Any:
        return self.store.new()

    def namespace_scoped(self) -> bool:
        return False

    def verbs(self) -> list[str]:
        return ["update"]

    def update(self, ctx: Context, name: str, obj_info: Any, create_validation: Any = None,
               update_validation: Any = None, force_allow_create: bool = False, options: Any = None) -> tuple[Any, bool]:
        return self.store.update(ctx, name, obj_info, create_validation, update_validation, False, options)
