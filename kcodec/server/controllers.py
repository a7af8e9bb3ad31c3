"""What a cluster's control plane does beside serving the API, each switchable with
``kcodec serve --controllers`` (names below; all on by default).

- ``namespace-lifecycle``: the NamespaceLifecycle admission plugin
  (k8s.io/apiserver pkg/admission/plugin/namespace/lifecycle): no objects in a missing or
  terminating namespace, and ``default``, ``kube-system``, ``kube-public`` may not be
  deleted. The namespace storage's own rules (deleting a namespace marks it Terminating,
  ``/finalize`` edits ``spec.finalizers``, the namespace goes once both finalizer lists are
  empty) are the registry's (kcodec.registry.builtin.NamespaceStore, k/k
  pkg/registry/core/namespace/storage), whatever controllers run.
- ``namespace``: the namespace controller (k/k pkg/controller/namespace/deletion): a
  terminating namespace's contents are deleted, then its ``kubernetes`` finalizer, then it.
- ``serviceaccount``: a ``default`` ServiceAccount in every active namespace (k/k
  pkg/controller/serviceaccount).
- ``garbagecollector``: dependents of deleted owners are deleted (background), a
  ``foregroundDeletion`` owner waits for its dependents, an ``orphan`` owner releases them
  (k/k pkg/controller/garbagecollector).

Controllers work in process on the server's storages, as in-cluster controllers would
through the API.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any

from kcodec.api import errors as apierrors
from kcodec.schema import GroupResource, GroupVersion

__all__ = ["ControllerManager", "CONTROLLERS", "IMMORTAL_NAMESPACES"]

_log = logging.getLogger("kcodec.server.controllers")


def _informer_list() -> Any:
    from kcodec.registry.rest import ListOptions

    # client-go's reflector lists with resourceVersion "0" (served from the watch cache at
    # once) and watches from the list's revision.
    return ListOptions(resource_version="0")

CONTROLLERS = ("namespace-lifecycle", "namespace", "serviceaccount", "garbagecollector")
#: lifecycle admission: the namespaces that may not be deleted
IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public")
_NAMESPACES = GroupResource("", "namespaces")
_ORPHAN = "orphan"
_FOREGROUND = "foregroundDeletion"


def _ctx(namespace: str = "") -> Any:
    from kcodec.registry.request import Context

    return Context(namespace=namespace)


def _meta(obj: Any) -> Any:
    from kcodec.registry._meta import accessor

    return accessor(obj)


# ---------------------------------------------------------------------------- storages


class _Delegate:
    def __init__(self, store: Any) -> None:
        self.store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.store!r})"


class LifecycleAdmission(_Delegate):
    """NamespaceLifecycle's admission: creates and updates of a namespaced resource, and
    deletes of the namespaces that may not be deleted. What a namespace delete does
    (Terminating first, /finalize) is the registry's NamespaceStore, not this."""

    def __init__(self, store: Any, resource: GroupResource, namespaces: Any) -> None:
        super().__init__(store)
        self.resource = resource
        self.namespaces = namespaces

    def _admit(self, ctx: Any, obj: Any, create: bool) -> None:
        namespace = ctx.namespace
        if not namespace or self.resource == _NAMESPACES:
            return  # lifecycle.go allows all operations to namespaces (delete refuses the immortal ones)
        try:
            ns = self.namespaces.get(_ctx(), namespace)
        except apierrors.StatusError as exc:
            if apierrors.is_not_found(exc):
                raise apierrors.new_not_found(_NAMESPACES, namespace) from None
            raise
        if create and ns.status.phase == "Terminating":
            name = ""
            if obj is not None:
                m = _meta(obj)
                name = m.get_name() or m.get_generate_name()
            err = apierrors.new_forbidden(self.resource, name or "Unknown", f"unable to create new content in "
                                          f"namespace {namespace} because it is being terminated")
            from kcodec.api.meta.v1 import StatusCause

            details = err.status.details
            details.causes = list(details.causes or []) + [StatusCause(
                type="NamespaceTerminating", message=f"namespace {namespace} is being terminated",
                field="metadata.namespace")]
            raise err

    def create(self, ctx: Any, *args: Any, **kwargs: Any) -> Any:
        obj = args[1] if len(args) > 1 and isinstance(args[0], str) else (args[0] if args else None)
        self._admit(ctx, obj, True)
        return self.store.create(ctx, *args, **kwargs)

    def update(self, ctx: Any, *args: Any, **kwargs: Any) -> Any:
        self._admit(ctx, None, False)
        return self.store.update(ctx, *args, **kwargs)

    def delete(self, ctx: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        if self.resource == _NAMESPACES and name in IMMORTAL_NAMESPACES:
            raise apierrors.new_forbidden(_NAMESPACES, name, "this namespace may not be deleted")
        return self.store.delete(ctx, name, *args, **kwargs)


def _unwrapped(storage: Any) -> Any:
    """The registry storage behind an admission wrapper."""
    return storage.store if isinstance(storage, LifecycleAdmission) else storage


# ---------------------------------------------------------------------------- the manager


class ControllerManager:
    """Runs the enabled controllers of one server (threads; :meth:`stop` ends them)."""

    def __init__(self, server: Any, enabled: list[str] | tuple[str, ...] = CONTROLLERS) -> None:
        unknown = sorted(set(enabled) - set(CONTROLLERS) - {"system-namespaces"})
        if unknown:
            from kcodec.errors import ConfigError

            raise ConfigError(f"unknown controllers {unknown}; known: {', '.join(CONTROLLERS)}")
        self.server = server
        self.enabled = set(enabled)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._watchers: list[Any] = []

    def __repr__(self) -> str:
        return f"ControllerManager({sorted(self.enabled)})"

    # -------------------------------------------------------------- scopes

    def _main_scopes(self) -> dict[GroupResource, Any]:
        """One scope per group/resource (the group's first installed version)."""
        out: dict[GroupResource, Any] = {}
        for gv, routes in list(self.server.routes.items()):
            for resource, subs in list(routes.scopes.items()):
                scope = subs.get("")
                if scope is None:
                    continue
                gr = GroupResource(gv.group, resource)
                if gr not in out and callable(getattr(scope.storage, "list", None)) \
                        and callable(getattr(scope.storage, "watch", None)):
                    out[gr] = scope
        return out

    def _namespaces(self) -> Any:
        routes = self.server.routes.get(GroupVersion("", "v1"))
        return _unwrapped(routes.scopes["namespaces"][""].storage)

    def _finalize(self) -> Any:
        """The registry's ``namespaces/finalize`` storage."""
        routes = self.server.routes.get(GroupVersion("", "v1"))
        return routes.scopes["namespaces"]["finalize"].storage

    # -------------------------------------------------------------- lifecycle

    def install(self) -> None:
        """Put the admission in front of the storages (before serving). The namespace rules
        themselves (Terminating, ``/finalize``) are the registry's NamespaceStore and
        FinalizeREST, which the namespace controller drives."""
        routes = self.server.routes.get(GroupVersion("", "v1"))
        if routes is None or "namespaces" not in routes.scopes:
            return
        subs = routes.scopes["namespaces"]
        from kcodec.registry.builtin import NamespaceStore

        if "namespace" in self.enabled and (not isinstance(self._namespaces(), NamespaceStore)
                                             or "finalize" not in subs):
            from kcodec.errors import ConfigError

            raise ConfigError("the namespace controller needs the registry's namespaces storage "
                              "(kcodec.registry.builtin.NamespaceStore) and its namespaces/finalize")
        if "namespace-lifecycle" in self.enabled:
            if not isinstance(subs[""].storage, LifecycleAdmission):
                subs[""].storage = LifecycleAdmission(subs[""].storage, _NAMESPACES, self._namespaces())
            for gv_routes in self.server.routes.values():
                for resource, scopes in gv_routes.scopes.items():
                    for scope in scopes.values():
                        self.wrap_scope(scope, resource)

    def wrap_scope(self, scope: Any, resource: str) -> None:
        """Put NamespaceLifecycle admission in front of a namespaced scope (also for the
        custom resources installed later)."""
        if "namespace-lifecycle" not in self.enabled or not scope.namespaced \
                or isinstance(scope.storage, LifecycleAdmission) or not callable(getattr(scope.storage, "create", None)):
            return
        scope.storage = LifecycleAdmission(scope.storage, GroupResource(scope.resource.group, resource),
                                           self._namespaces())

    def start(self) -> None:
        if "namespace" in self.enabled or "serviceaccount" in self.enabled:
            self._spawn("namespaces", self._run_namespaces)
        if "garbagecollector" in self.enabled:
            self._spawn("garbagecollector", self._run_gc)

    def stop(self) -> None:
        self._stop.set()
        for w in list(self._watchers):
            try:
                w.stop()
            except Exception:  # noqa: BLE001 - stopping is best effort
                pass
        for t in self._threads:
            t.join(timeout=5)

    def _spawn(self, name: str, target: Any) -> None:
        t = threading.Thread(target=self._guard(target), name=f"kcodec-{name}-controller", daemon=True)
        self._threads.append(t)
        t.start()

    def _guard(self, target: Any) -> Any:
        def run() -> None:
            while not self._stop.is_set():
                try:
                    target()
                    return
                except Exception:  # noqa: BLE001 - a controller restarts after an unexpected error
                    if self._stop.is_set():
                        return
                    _log.exception("controller %s failed; restarting", target.__name__)
                    time.sleep(0.5)
        return run

    def _watch(self, storage: Any, resource_version: str) -> Any:
        from kcodec.registry.rest import ListOptions

        w = storage.watch(_ctx(), ListOptions(resource_version=resource_version))
        self._watchers.append(w)
        return w

    # -------------------------------------------------------------- namespaces

    def _run_namespaces(self) -> None:
        namespaces = self._namespaces()
        listed = namespaces.list(_ctx(), _informer_list())
        for ns in listed.items or []:
            self._sync_namespace(ns)
        w = self._watch(namespaces, listed.metadata.resource_version)
        pending: dict[str, float] = {}
        while not self._stop.is_set():
            event = w.next(timeout=0.2)
            if event is not None:
                etype, ns = event
                if etype in ("ADDED", "MODIFIED"):
                    if not self._sync_namespace(ns):
                        pending[ns.metadata.name] = time.monotonic() + 0.2
            for name, when in list(pending.items()):
                if time.monotonic() >= when:
                    try:
                        ns = namespaces.get(_ctx(), name)
                    except apierrors.StatusError:
                        pending.pop(name)
                        continue
                    if self._sync_namespace(ns):
                        pending.pop(name)
                    else:
                        pending[name] = time.monotonic() + 0.5

    def _sync_namespace(self, ns: Any) -> bool:
        """True when nothing is left to do for this namespace now."""
        if ns.metadata.deletion_timestamp is None:
            if "serviceaccount" in self.enabled and ns.status.phase != "Terminating":
                self._ensure_default_service_account(ns.metadata.name)
            return True
        if "namespace" not in self.enabled:
            return True
        return self._delete_namespace_content(ns)

    def _ensure_default_service_account(self, namespace: str) -> None:
        from kcodec.api.core import internal as core
        from kcodec.api.meta.v1 import CreateOptions, ObjectMeta

        routes = self.server.routes.get(GroupVersion("", "v1"))
        scope = routes.scopes.get("serviceaccounts", {}).get("") if routes is not None else None
        if scope is None:
            return
        try:
            scope.storage.get(_ctx(namespace), "default")
            return
        except apierrors.StatusError as exc:
            if not apierrors.is_not_found(exc):
                return
        sa = core.ServiceAccount(metadata=ObjectMeta(name="default", namespace=namespace))
        try:
            scope.storage.create(_ctx(namespace), sa, None, CreateOptions())
        except apierrors.StatusError as exc:
            if not (apierrors.is_already_exists(exc) or apierrors.is_not_found(exc)
                    or apierrors.reason_for_error(exc) == "Forbidden"):
                raise

    def _delete_namespace_content(self, ns: Any) -> bool:
        """deletion/namespaced_resources_deleter.go: delete every namespaced collection, then
        (once none is left) drop the ``kubernetes`` finalizer and delete the namespace."""
        from kcodec.registry.rest import DefaultUpdatedObjectInfo

        name = ns.metadata.name
        remaining = 0
        for gr, scope in self._main_scopes().items():
            if not scope.namespaced:
                continue
            storage = _unwrapped(scope.storage)
            count = _count(storage, name)
            if count == 0:
                continue
            remaining += count
            if callable(getattr(storage, "delete_collection", None)):
                try:
                    storage.delete_collection(_ctx(name), None, None, None)
                except apierrors.StatusError:
                    _log.debug("deleting %s in %s failed", gr, name, exc_info=True)
        if remaining:
            return False
        def drop(ctx: Any, _new: Any, old: Any) -> Any:
            old.spec.finalizers = [f for f in (old.spec.finalizers or []) if f != "kubernetes"] or None
            return old
        try:
            # the registry's /finalize deletes the namespace when this empties the last list
            self._finalize().update(_ctx(), name, DefaultUpdatedObjectInfo(None, drop))
        except apierrors.StatusError as exc:
            if not apierrors.is_not_found(exc):
                raise
        return True

    # -------------------------------------------------------------- garbage collector

    def _run_gc(self) -> None:
        gc = _GarbageCollector(self)
        gc.run()


def _count(storage: Any, namespace: str) -> int:
    """How many objects the storage holds in ``namespace``: a backend count where the
    storage has one (cheap even before its watch cache has warmed up), else a list."""
    inner = getattr(storage, "storage", None)
    root = getattr(storage, "key_root_func", None)
    if inner is not None and callable(getattr(inner, "count", None)) and callable(root):
        try:
            return int(inner.count(root(_ctx(namespace))))
        except Exception:  # noqa: BLE001 - fall back to listing
            pass
    try:
        return len(storage.list(_ctx(namespace)).items or [])
    except apierrors.StatusError:
        return 0


class _Node:
    __slots__ = ("scope", "namespace", "name", "uid", "owners", "refs", "deleting", "finalizers")

    def __init__(self, scope: Any, obj: Any) -> None:
        m = _meta(obj)
        self.scope = scope
        self.namespace = m.get_namespace()
        self.name = m.get_name()
        self.uid = m.get_uid()
        refs = _owner_refs(obj)
        self.owners = [(r.uid, bool(r.block_owner_deletion)) for r in refs]
        self.refs = refs
        self.deleting = m.get_deletion_timestamp() is not None
        self.finalizers = list(m.get_finalizers() or [])


def _owner_refs(obj: Any) -> list[Any]:
    if hasattr(obj, "unstructured_content"):
        from kcodec.api.meta.v1 import OwnerReference

        refs = ((obj.unstructured_content().get("metadata") or {}).get("ownerReferences")) or []
        return [OwnerReference.from_dict(r) for r in refs if isinstance(r, dict)]
    meta = getattr(obj, "metadata", None)
    return list(getattr(meta, "owner_references", None) or [])


class _GarbageCollector:
    """garbagecollector.go over one in-memory graph of every object with owners or dependents."""

    def __init__(self, manager: ControllerManager) -> None:
        self.m = manager
        self.nodes: dict[str, _Node] = {}
        self.dependents: dict[str, set[str]] = {}
        self.wake = threading.Event()

    def _add(self, node: _Node) -> None:
        old = self.nodes.get(node.uid)
        if old is not None:
            for owner, _ in old.owners:
                self.dependents.get(owner, set()).discard(node.uid)
        self.nodes[node.uid] = node
        for owner, _ in node.owners:
            self.dependents.setdefault(owner, set()).add(node.uid)

    def _remove(self, uid: str) -> None:
        node = self.nodes.pop(uid, None)
        if node is not None:
            for owner, _ in node.owners:
                self.dependents.get(owner, set()).discard(uid)

    def _monitor(self, scope: Any) -> Any:
        """List one resource into the graph and watch it (graph_builder.go's monitors)."""
        storage = _unwrapped(scope.storage)
        try:
            listed = storage.list(_ctx(), _informer_list())
        except apierrors.StatusError:
            return None
        for obj in listed.items or []:
            self._add(_Node(scope, obj))
        rv = listed.get_resource_version() if hasattr(listed, "get_resource_version") \
            else listed.metadata.resource_version
        w = self.m._watch(storage, rv)
        w.set_notify(self.wake.set)
        return w

    def run(self) -> None:
        watchers: dict[GroupResource, tuple[Any, Any]] = {}
        dirty: set[str] = set()
        while not self.m._stop.is_set():
            # resyncMonitors: resources served since the last pass (custom resources) are watched too
            served = self.m._main_scopes()
            for gr, scope in served.items():
                if gr in watchers and watchers[gr][0] is scope:
                    continue
                w = self._monitor(scope)
                if w is not None:
                    watchers[gr] = (scope, w)
                    dirty |= set(self.nodes)
            for gr in [gr for gr, (scope, _w) in watchers.items() if served.get(gr) is not scope]:
                watchers.pop(gr)[1].stop()
            for scope, w in list(watchers.values()):
                while True:
                    event = w.next(timeout=0)
                    if event is None:
                        break
                    etype, obj = event
                    if etype == "BOOKMARK" or etype == "ERROR":
                        continue
                    uid = _meta(obj).get_uid()
                    if etype == "DELETED":
                        gone = self.nodes.get(uid)
                        # its dependents may now be orphans; its owners may be waiting for it
                        dirty |= self.dependents.get(uid, set())
                        dirty |= {o for o, _ in gone.owners} if gone is not None else set()
                        self._remove(uid)
                    else:
                        self._add(_Node(scope, obj))
                        dirty.add(uid)
                        dirty |= {o for o, _ in self.nodes[uid].owners}
            for uid in list(dirty):
                dirty.discard(uid)
                try:
                    self._process(uid)
                except Exception:  # noqa: BLE001 - retried on the next change
                    _log.debug("garbage collection of %s failed", uid, exc_info=True)
            self.wake.wait(0.5)
            self.wake.clear()

    def _live(self, uid: str) -> bool:
        return uid in self.nodes

    def _owner_absent(self, node: _Node, ref: Any) -> bool:
        """attemptToDeleteItem's check of one owner not in the graph: a GET by the reference;
        absent only when the resource is served and the name is missing or has another uid
        (an owner whose kind cannot be resolved keeps its dependents, as Go's does)."""
        scope = self._scope_for(ref.api_version, ref.kind)
        if scope is None:
            return False
        namespace = node.namespace if scope.namespaced else ""
        try:
            owner = scope.storage.get(_ctx(namespace), ref.name, None)
        except apierrors.StatusError as exc:
            return apierrors.is_not_found(exc)
        return _meta(owner).get_uid() != ref.uid

    def _scope_for(self, api_version: str, kind: str) -> Any:
        group, _, version = api_version.rpartition("/")
        routes = self.m.server.routes.get(GroupVersion(group, version))
        if routes is None:
            return None
        for subs in list(routes.scopes.values()):
            scope = subs.get("")
            if scope is not None and scope.kind.kind == kind:
                return scope
        return None

    def _process(self, uid: str) -> None:
        node = self.nodes.get(uid)
        if node is None:
            return
        deps = [self.nodes[d] for d in self.dependents.get(uid, ()) if d in self.nodes]
        if node.deleting and _ORPHAN in node.finalizers:
            for dep in deps:
                self._release(dep, uid)
            self._drop_finalizer(node, _ORPHAN)
            return
        if node.deleting and _FOREGROUND in node.finalizers:
            blocking = [d for d in deps if any(o == uid and block for o, block in d.owners)]
            for dep in deps:
                if not dep.deleting:
                    self._delete(dep, "Foreground")
            if not blocking:
                self._drop_finalizer(node, _FOREGROUND)
            return
        # attemptToDeleteItem: a dependent whose owners are all gone goes (background).
        if node.owners and not node.deleting and all(not self._live(r.uid) and self._owner_absent(node, r)
                                                      for r in node.refs):
            self._delete(node, "Background")

    def _delete(self, node: _Node, policy: str) -> None:
        from kcodec.api.meta.v1 import DeleteOptions, Preconditions

        storage = node.scope.storage
        opts = DeleteOptions(propagation_policy=policy, preconditions=Preconditions(uid=node.uid))
        try:
            storage.delete(_ctx(node.namespace), node.name, None, opts)
        except apierrors.StatusError as exc:
            if not (apierrors.is_not_found(exc) or apierrors.is_conflict(exc)):
                raise

    def _release(self, dep: _Node, owner_uid: str) -> None:
        from kcodec.registry.rest import DefaultUpdatedObjectInfo

        def strip(ctx: Any, _new: Any, old: Any) -> Any:
            if hasattr(old, "unstructured_content"):
                meta = old.unstructured_content().get("metadata") or {}
                refs = [r for r in meta.get("ownerReferences") or [] if r.get("uid") != owner_uid]
                if refs:
                    meta["ownerReferences"] = refs
                else:
                    meta.pop("ownerReferences", None)
            else:
                refs = [r for r in old.metadata.owner_references or [] if r.uid != owner_uid]
                old.metadata.owner_references = refs or None
            return old
        try:
            dep.scope.storage.update(_ctx(dep.namespace), dep.name, DefaultUpdatedObjectInfo(None, strip), None, None,
                                     False, None)
        except apierrors.StatusError as exc:
            if not apierrors.is_not_found(exc):
                raise

    def _drop_finalizer(self, node: _Node, finalizer: str) -> None:
        from kcodec.registry.rest import DefaultUpdatedObjectInfo

        def drop(ctx: Any, _new: Any, old: Any) -> Any:
            m = _meta(old)
            m.set_finalizers([f for f in (m.get_finalizers() or []) if f != finalizer] or None)
            return old
        storage = node.scope.storage
        try:
            storage.update(_ctx(node.namespace), node.name, DefaultUpdatedObjectInfo(None, drop), None, None, False,
                           None)
        except apierrors.StatusError as exc:
            if not apierrors.is_not_found(exc):
                raise
