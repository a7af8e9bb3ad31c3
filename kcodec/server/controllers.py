"""Control-plane loops ``kcodec serve`` runs beside the API (``--controllers``).

Go: k8s.io/kubernetes pkg/controller/namespace (NamespaceController and
deletion/namespaced_resources_deleter.go). A namespace being deleted (deletionTimestamp set,
phase Terminating, ``kubernetes`` in ``spec.finalizers``) has its contents deleted, resource by
resource, with background propagation; once nothing is left, the controller removes its
finalizer through ``namespaces/finalize`` and the registry deletes the namespace. Objects that
take time to go (finalizers, graceful deletion) are waited for, looking again every
``resync`` seconds.
"""
from __future__ import annotations

import logging
import threading
from typing import Any

__all__ = ["NamespaceController", "FINALIZER_KUBERNETES"]

_log = logging.getLogger("kcodec.server")

#: The namespace finalizer the namespace controller owns (core v1 FinalizerKubernetes).
FINALIZER_KUBERNETES = "kubernetes"


class NamespaceController:
    """Deletes the contents of terminating namespaces, then finalizes them.

    ``routes`` are the installed group versions (``GenericAPIServer.routes``); the controller
    works on the main resources (no subresources), each storage once.
    """

    def __init__(self, routes: dict[Any, Any], *, resync: float = 0.5) -> None:
        self.resync = resync
        self._namespaces: Any = None
        self._finalize: Any = None
        self._namespaced: list[Any] = []
        seen: set[int] = set()
        for gv, gvr in routes.items():
            for resource, subs in gvr.scopes.items():
                scope = subs.get("")
                if scope is None:
                    continue
                if not gv.group and resource == "namespaces":
                    self._namespaces = scope.storage
                    fin = subs.get("finalize")
                    self._finalize = fin.storage if fin is not None else None
                    continue
                storage = scope.storage
                if not scope.namespaced or id(storage) in seen:
                    continue
                if callable(getattr(storage, "delete_collection", None)) and callable(getattr(storage, "list", None)):
                    seen.add(id(storage))
                    self._namespaced.append(storage)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._watcher: Any = None

    def __repr__(self) -> str:
        return f"NamespaceController({len(self._namespaced)} namespaced resources)"

    def start(self) -> None:
        """Start the loop in a daemon thread (a no-op when namespaces are not served)."""
        if self._namespaces is None or self._finalize is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="kcodec-namespace-controller", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the loop and wait for it."""
        self._stop.set()
        watcher = self._watcher
        if watcher is not None:
            watcher.stop()
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None

    # ------------------------------------------------------------------ the loop

    def _context(self, namespace: str = "") -> Any:
        from kcodec.registry.request import Context, UserInfo

        return Context(namespace=namespace, user=UserInfo(name="system:serviceaccount:kube-system:namespace-controller",
                                                         groups=["system:serviceaccounts", "system:authenticated"]))

    def _terminating(self) -> list[str]:
        from kcodec.registry.rest import ListOptions

        lst = self._namespaces.list(self._context(), ListOptions())
        return [ns.metadata.name for ns in lst.items or ()
                if ns.metadata.deletion_timestamp is not None and FINALIZER_KUBERNETES in (ns.spec.finalizers or ())]

    def _run(self) -> None:
        from kcodec.registry.rest import ListOptions

        pending: set[str] = set()
        while not self._stop.is_set():
            try:
                if self._watcher is None:
                    pending.update(self._terminating())
                    self._watcher = self._namespaces.watch(self._context(), ListOptions(watch=True))
                event = self._watcher.next(self.resync)
                if event is not None:
                    obj = event.object
                    meta = getattr(obj, "metadata", None)
                    if str(getattr(event.type, "value", event.type)) == "ERROR" or meta is None:
                        self._watcher.stop()
                        self._watcher = None
                        continue
                    if meta.deletion_timestamp is not None and FINALIZER_KUBERNETES in (obj.spec.finalizers or ()):
                        pending.add(meta.name)
                for name in sorted(pending):
                    if self._stop.is_set():
                        return
                    if self._sync(name):
                        pending.discard(name)
            except Exception:  # noqa: BLE001 - a failed pass is retried, as the controller's workqueue does
                if self._stop.is_set():
                    return
                _log.exception("namespace controller: sync failed; retrying")
                if self._watcher is not None:
                    self._watcher.stop()
                    self._watcher = None
                self._stop.wait(self.resync)

    def _sync(self, name: str) -> bool:
        """One pass over a terminating namespace; True when it is done with it."""
        from kcodec.api import errors as apierrors
        from kcodec.api.meta import v1 as metav1
        from kcodec.registry.rest import DefaultUpdatedObjectInfo, ListOptions

        try:
            ns = self._namespaces.get(self._context(), name, metav1.GetOptions())
        except apierrors.StatusError as err:
            if apierrors.is_not_found(err):
                return True
            raise
        if ns.metadata.deletion_timestamp is None or FINALIZER_KUBERNETES not in (ns.spec.finalizers or ()):
            return True
        ctx = self._context(name)
        remaining = 0
        for storage in self._namespaced:
            options = metav1.DeleteOptions(propagation_policy="Background")
            try:
                storage.delete_collection(ctx, None, options, ListOptions())
                remaining += len(storage.list(ctx, ListOptions()).items or ())
            except apierrors.StatusError as err:
                if apierrors.is_not_found(err) or err.code == 405:
                    continue
                raise
        if remaining:
            return False
        ns.spec.finalizers = [f for f in ns.spec.finalizers or () if f != FINALIZER_KUBERNETES] or None
        try:
            self._finalize.update(self._context(), name, DefaultUpdatedObjectInfo(ns), None, None, False,
                                  metav1.UpdateOptions())
        except apierrors.StatusError as err:
            if apierrors.is_not_found(err):
                return True
            if apierrors.is_conflict(err):
                return False
            raise
        return True
