"""Serving custom resources: what k8s.io/apiextensions-apiserver adds to the API server.

- the naming and establishing controllers (``pkg/controller/status/naming_controller.go``,
  ``pkg/controller/establish``): a new CRD gets ``status.acceptedNames`` and the conditions
  NamesAccepted (``NoConflicts``) and Established (``InitialNamesAccepted``), or
  NamesAccepted False when another CRD of the group already uses a name;
- the custom resource handler (``pkg/apiserver/customresource_handler.go``): every served
  version of an established CRD is installed at ``/apis/<group>/<version>`` with its storage
  (:func:`kcodec.registry.customresource.custom_resource_storages`), status and scale
  subresources, and appears in discovery at once;
- the finalizer controller (``pkg/controller/finalizer``): deleting a CRD deletes its
  custom resources.

:class:`CustomResourceDefinitions` watches the CRD storage in a thread of its own.
"""
from __future__ import annotations

import json
import logging
import threading
from typing import Any

from kcodec.schema import GroupResource, GroupVersion

__all__ = ["CustomResourceDefinitions"]

_log = logging.getLogger("kcodec.server.customresources")
_CRD_GV = GroupVersion("apiextensions.k8s.io", "v1")
CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


class CRDStorage:
    """The CRD storage with apiextensions' ``REST.Delete`` (registry/customresourcedefinition/etcd.go):
    the first delete marks the CRD deleting, adds the cleanup finalizer and the Terminating
    condition, so the CRD stays until its instances are gone."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def __repr__(self) -> str:
        return f"CRDStorage({self.store!r})"

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def delete(self, ctx: Any, name: str, delete_validation: Any = None, options: Any = None) -> Any:
        from kcodec.api.apiextensions import internal as ext
        from kcodec.api.meta.v1 import Time

        crd = self.store.get(ctx, name)
        if crd.metadata.deletion_timestamp is None:
            def mark(existing: Any) -> Any:
                if existing.metadata.deletion_timestamp is None:
                    existing.metadata.deletion_timestamp = Time.now()
                    existing.metadata.deletion_grace_period_seconds = 0
                if CLEANUP_FINALIZER not in (existing.metadata.finalizers or []):
                    existing.metadata.finalizers = list(existing.metadata.finalizers or []) + [CLEANUP_FINALIZER]
                _set_condition(existing, ext.CustomResourceDefinitionCondition(
                    type="Terminating", status="True", reason="InstanceDeletionPending",
                    message="CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
                    last_transition_time=Time.now()))
                return existing
            # etcd.go returns the marked CRD: the finalizer controller may delete it at once, so
            # this request must not go on to the store's delete (it would find it gone).
            out = self.store.storage.guaranteed_update(self.store.key_func(ctx, name), mark)
            if self.store.decorator is not None:
                self.store.decorator(out)
            return out, False
        return self.store.delete(ctx, name, delete_validation, options)


def _set_condition(crd: Any, condition: Any) -> None:
    conditions = [c for c in (crd.status.conditions or []) if c.type != condition.type]
    conditions.append(condition)
    order = ["NamesAccepted", "Established", "Terminating"]
    crd.status.conditions = sorted(conditions, key=lambda c: order.index(c.type) if c.type in order else len(order))


class CustomResourceDefinitions:
    """Installs and removes the custom resources of the server's CRDs as they change."""

    def __init__(self, server: Any, rest_options_getter: Any, *, wrap: Any = None) -> None:
        self.server = server
        self.wrap = wrap
        self.getter = rest_options_getter
        self._lock = threading.RLock()
        self._served: dict[str, tuple[str, dict[GroupVersion, tuple[set[str], set[str]]], list[Any]]] = {}
        self._installed_specs: dict[str, str] = {}  # the spec each served CRD's routes were built from
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._watcher: Any = None
        self._accepted: dict[str, dict[str, Any]] = {}

    def __repr__(self) -> str:
        return f"CustomResourceDefinitions({sorted(self._served)})"

    # -------------------------------------------------------------- CRD access

    def _crd_storage(self, sub: str = "") -> Any:
        routes = self.server.routes.get(_CRD_GV)
        if routes is None:
            return None
        scope = routes.scopes.get("customresourcedefinitions", {}).get(sub)
        if scope is None:
            return None
        return scope.storage.store if isinstance(scope.storage, CRDStorage) else scope.storage

    def _v1(self, crd: Any) -> dict[str, Any]:
        from kcodec import legacyscheme

        v1 = legacyscheme.scheme.convert_to_version(crd, _CRD_GV)
        return v1.to_dict()

    # -------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """Serve every CRD already stored, then follow changes."""
        from kcodec.registry.request import Context

        storage = self._crd_storage()
        if storage is None:
            return
        routes = self.server.routes[_CRD_GV]
        scope = routes.scopes["customresourcedefinitions"][""]
        if not isinstance(scope.storage, CRDStorage):
            for gv, gv_routes in self.server.routes.items():
                if gv.group == _CRD_GV.group and "customresourcedefinitions" in gv_routes.scopes:
                    s = gv_routes.scopes["customresourcedefinitions"][""]
                    s.storage = CRDStorage(s.storage)
        listed = storage.list(Context())
        for crd in listed.items or []:
            self._reconcile(crd)
        from kcodec.registry.rest import ListOptions

        rv = listed.metadata.resource_version if listed.metadata is not None else ""
        self._watcher = storage.watch(Context(), ListOptions(resource_version=rv))
        self._thread = threading.Thread(target=self._run, name="kcodec-crd-controller", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._watcher is not None:
            self._watcher.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            for name in list(self._served):
                self._uninstall(name)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                event = self._watcher.next(timeout=0.5)
            except Exception:  # noqa: BLE001 - a broken watch is re-established
                _log.exception("CRD watch failed; listing again")
                if self._stop.is_set():
                    return
                self._restart_watch()
                continue
            if event is None:
                continue
            etype, crd = event
            try:
                if etype == "DELETED":
                    self._deleted(crd)
                elif etype in ("ADDED", "MODIFIED"):
                    self._reconcile(crd)
            except Exception:  # noqa: BLE001 - one bad CRD must not stop serving the others
                _log.exception("reconciling CRD %s failed", getattr(crd.metadata, "name", "?"))

    def _restart_watch(self) -> None:
        from kcodec.registry.request import Context
        from kcodec.registry.rest import ListOptions

        storage = self._crd_storage()
        # as an informer: resourceVersion "0" is served by the watch cache without waiting
        listed = storage.list(Context(), ListOptions(resource_version="0"))
        for crd in listed.items or []:
            self._reconcile(crd)
        self._watcher = storage.watch(Context(), ListOptions(resource_version=listed.metadata.resource_version))

    # -------------------------------------------------------------- reconciling

    def _conflict(self, crd: dict[str, Any]) -> str:
        """naming_controller.go: a plural, singular, kind or list kind another CRD of the group
        already accepted."""
        spec = crd["spec"]
        names = spec["names"]
        mine = crd["metadata"]["name"]
        with self._lock:
            for other_name, (group, _routes, _stores) in self._served.items():
                if other_name == mine or group != spec["group"]:
                    continue
                other = self._accepted.get(other_name, {})
                if names.get("plural") == other.get("plural"):
                    return f'"{names["plural"]}" is already in use'
                if names.get("kind") == other.get("kind"):
                    return f'"{names["kind"]}" is already in use'
        return ""

    def _reconcile(self, crd_obj: Any) -> None:
        crd = self._v1(crd_obj)
        name = crd["metadata"]["name"]
        if crd["metadata"].get("deletionTimestamp"):
            if CLEANUP_FINALIZER in (crd["metadata"].get("finalizers") or []):
                self._finalize(crd_obj)
            return
        conflict = self._conflict(crd)
        if not conflict:
            # Routes first, then Established: a client that saw Established must find them
            # (Go's crdHandler serves a CRD as soon as its cached copy is Established).
            # A status-only change (this reconciler's own condition update among them) keeps
            # the routes: reinstalling would answer 404 to requests in between.
            spec_key = json.dumps(crd["spec"], sort_keys=True)
            with self._lock:
                if name not in self._served or self._installed_specs.get(name) != spec_key:
                    self._replace(name, crd)
                    self._installed_specs[name] = spec_key
        self._update_status(name, crd, conflict)

    def _update_status(self, name: str, crd: dict[str, Any], conflict: str) -> None:
        from kcodec.api.apiextensions import internal as ext
        from kcodec.api.meta.v1 import Time
        from kcodec.registry.request import Context
        from kcodec.registry.rest import DefaultUpdatedObjectInfo

        status_storage = self._crd_storage("status")
        if status_storage is None:
            return
        names = dict(crd["spec"]["names"])
        names.setdefault("singular", names["kind"].lower())
        names.setdefault("listKind", names["kind"] + "List")
        want = [("NamesAccepted", "False", "MultipleNamesNotAllowed", conflict) if conflict else
                ("NamesAccepted", "True", "NoConflicts", "no conflicts found")]
        if not conflict:
            want.append(("Established", "True", "InitialNamesAccepted", "the initial names have been accepted"))

        def transform(ctx: Any, _new: Any, old: Any) -> Any:
            current = {c.type: c for c in (old.status.conditions or [])}
            changed = False
            for ctype, status, reason, message in want:
                c = current.get(ctype)
                if c is None or (c.status, c.reason, c.message) != (status, reason, message):
                    changed = True
                    current[ctype] = ext.CustomResourceDefinitionCondition(
                        type=ctype, status=status, reason=reason, message=message,
                        last_transition_time=Time.now() if c is None or c.status != status else c.last_transition_time)
            accepted = ext.CustomResourceDefinitionNames(
                plural=names["plural"], singular=names["singular"], kind=names["kind"], list_kind=names["listKind"],
                short_names=list(names.get("shortNames") or []) or None,
                categories=list(names.get("categories") or []) or None)
            if not conflict and old.status.accepted_names != accepted:
                old.status.accepted_names = accepted
                changed = True
            if not changed:
                return old
            order = ["NamesAccepted", "Established", "Terminating"]
            old.status.conditions = sorted(current.values(), key=lambda c: order.index(c.type)
                                           if c.type in order else len(order))
            return old

        try:
            status_storage.update(Context(), name, DefaultUpdatedObjectInfo(None, transform), None, None, False, None)
        except Exception:  # noqa: BLE001 - a CRD deleted meanwhile, or a conflict the next event resolves
            _log.debug("status update of CRD %s failed", name, exc_info=True)
        self._accepted[name] = {"plural": names["plural"], "kind": names["kind"]}

    def _rest_options(self, group: str, plural: str, codec: Any) -> Any:
        from kcodec.registry.generic.options import RESTOptions, storage_with_cacher
        from kcodec.storage.factory import StorageConfig

        base = self.getter.storage_factory.new_config(GroupResource("apiextensions.k8s.io",
                                                                     "customresourcedefinitions"))
        config = StorageConfig(prefix=base.prefix, server_list=list(base.server_list),
                               codec=codec, transformer=base.transformer,
                               media_type="application/json", group_resource=GroupResource(group, plural),
                               resource_prefix=f"{group}/{plural}")
        decorator = storage_with_cacher(self.getter.default_watch_cache_size) if self.getter.enable_watch_cache \
            else None
        opts = RESTOptions(storage_config=config, resource_prefix=f"/{group}/{plural}",
                           kv=self.getter.kv_for(base))
        if decorator is not None:
            opts.decorator = decorator
        return opts

    def _install(self, crd: dict[str, Any]) -> None:
        from kcodec.api import apiextensions
        from kcodec.registry.customresource import (CustomResourceConverter, UnstructuredStorageCodec,
                                                    custom_resource_storages)
        from kcodec.runtime.scheme import Scheme
        from kcodec.serializer import CodecFactory
        from kcodec.server.installer import APIInstaller

        spec = crd["spec"]
        group, plural = spec["group"], spec["names"]["plural"]
        scheme = Scheme(f"customresource:{crd['metadata']['name']}")
        apiextensions.add_custom_resource_definition(scheme, crd)
        # customresource_handler.go: the meta kinds (Status, WatchEvent, options) beside the
        # custom kinds, as metav1.AddToGroupVersion registers them for every served version.
        from kcodec.api.meta import v1 as metav1

        for v in spec["versions"]:
            metav1.add_to_group_version(scheme, GroupVersion(group, v["name"]))
        metav1.add_meta_to_scheme(scheme)
        codecs = CodecFactory(scheme)
        # customresource_handler.go serves JSON and YAML (and CBOR): there is no protobuf of CRs.
        infos = [i for i in codecs.supported_media_types() if "protobuf" not in i.media_type]
        installer = APIInstaller(scheme, codecs, infos, self.server.meta_infos)
        routes: dict[GroupVersion, Any] = {}
        stores: list[Any] = []
        served = [v for v in spec["versions"] if v.get("served")]
        converter = CustomResourceConverter(crd)
        storage_version = next((v["name"] for v in spec["versions"] if v.get("storage")), served[0]["name"])
        for v in served:
            gv = GroupVersion(group, v["name"])
            # customresource_handler.go: each served version reads and writes through a codec that
            # stores the storage version and converts (None or Webhook) to and from it.
            codec = UnstructuredStorageCodec(converter, v["name"], storage_version)
            storages = custom_resource_storages(crd, v["name"], self._rest_options(group, plural, codec))
            stores.append(storages[plural])
            scale = {k: st for k, st in storages.items() if k.endswith("/scale")}
            gv_routes = installer.install_group_version(gv, {k: st for k, st in storages.items() if k not in scale})
            for scopes in gv_routes.scopes.values():
                for scope in scopes.values():
                    scope.infos = infos
            if scale:
                # Scale is autoscaling/v1, which the server's own scheme and codecs serve.
                server_installer = APIInstaller(self.server.scheme, self.server.codecs, self.server.infos,
                                                self.server.meta_infos)
                scale_routes = server_installer.install_group_version(gv, scale)
                for resource, subs in scale_routes.scopes.items():
                    gv_routes.scopes.setdefault(resource, {}).update(subs)
                gv_routes.api_resources = sorted(gv_routes.api_resources + scale_routes.api_resources,
                                                 key=lambda r: r.name)
            if self.wrap is not None:
                for resource, scopes in gv_routes.scopes.items():
                    for scope in scopes.values():
                        self.wrap(scope, resource)
            existing = self.server.routes.get(gv)
            if existing is not None:
                existing.scopes.update(gv_routes.scopes)
                existing.api_resources = sorted(
                    [r for r in existing.api_resources if r.name.partition("/")[0] != plural] + gv_routes.api_resources,
                    key=lambda r: r.name)
            else:
                self.server.routes[gv] = gv_routes
            routes[gv] = (set(gv_routes.scopes), {r.name for r in gv_routes.api_resources})
        self._served[crd["metadata"]["name"]] = (group, routes, stores)
        self._refresh_discovery(group)

    def _replace(self, name: str, crd: dict[str, Any]) -> None:
        """Serve *crd*'s current spec: the new routes are installed over the old ones (a
        request in between finds one or the other, as Go's crdHandler swaps its storage map),
        then what the old spec served and the new one does not is removed."""
        old = self._served.pop(name, None)
        self._install(crd)
        if old is None:
            return
        group, old_routes, old_stores = old
        new_routes = self._served[name][1]
        for gv, (resources, names) in old_routes.items():
            existing = self.server.routes.get(gv)
            if existing is None:
                continue
            kept_resources, kept_names = new_routes.get(gv, (set(), set()))
            for resource in resources - kept_resources:
                existing.scopes.pop(resource, None)
            existing.api_resources = [r for r in existing.api_resources
                                      if r.name not in names or r.name in kept_names]
            if not existing.scopes:
                del self.server.routes[gv]
        for store in old_stores:
            store.destroy()
        self._refresh_discovery(group)

    def _uninstall(self, name: str, destroy: bool = True) -> None:
        self._installed_specs.pop(name, None)
        entry = self._served.pop(name, None)
        if entry is None:
            return
        group, routes, stores = entry
        for gv, (resources, names) in routes.items():
            existing = self.server.routes.get(gv)
            if existing is None:
                continue
            for resource in resources:
                existing.scopes.pop(resource, None)
            existing.api_resources = [r for r in existing.api_resources if r.name not in names]
            if not existing.scopes:
                del self.server.routes[gv]
        if destroy:
            for store in stores:
                store.destroy()
        self._refresh_discovery(group)

    def _refresh_discovery(self, group: str) -> None:
        d = self.server.discovery
        versions = [gv.version for gv in self.server.routes if gv.group == group]
        # Go orders a group's versions by kube-aware version priority (v1 > v1beta1 > v1alpha1).
        versions.sort(key=_version_priority)
        if versions:
            if group not in d.group_order:
                d.group_order.append(group)
            d.versions[group] = versions
        else:
            if group in d.group_order:
                d.group_order.remove(group)
            d.versions.pop(group, None)
        d._agg_cache.clear()

    def _stop_serving(self, crd_obj: Any) -> tuple[dict[str, Any], str, Any]:
        """Remove a CRD's routes (keeping its stores for the instances' deletion); returns
        its v1 tree, its name and what was served for it (None when nothing was)."""
        crd = self._v1(crd_obj)
        name = crd["metadata"]["name"]
        with self._lock:
            entry = self._served.get(name)
            self._uninstall(name, destroy=False)
        self._accepted.pop(name, None)
        return crd, name, entry

    def _deleted(self, crd_obj: Any) -> None:
        _, name, entry = self._stop_serving(crd_obj)
        if entry is not None:
            # finalizer/crd_finalizer.go deletes the instances in the background; the CRD
            # watch goes on meanwhile, so a CRD created again is served at once.
            threading.Thread(target=self._delete_instances, args=(name, entry[2]), daemon=True,
                             name=f"kcodec-crd-cleanup-{name}").start()

    def _finalize(self, crd_obj: Any) -> None:
        """finalizer/crd_finalizer.go: stop serving, delete every instance, then drop the
        cleanup finalizer, which lets the CRD go."""
        from kcodec.registry.request import Context
        from kcodec.registry.rest import DefaultUpdatedObjectInfo

        crd, name, entry = self._stop_serving(crd_obj)
        stores = list(entry[2]) if entry is not None else self._instance_stores(crd)
        self._delete_instances(name, stores)

        def drop(ctx: Any, _new: Any, old: Any) -> Any:
            old.metadata.finalizers = [f for f in (old.metadata.finalizers or []) if f != CLEANUP_FINALIZER] or None
            return old
        try:
            self._crd_storage().update(Context(), name, DefaultUpdatedObjectInfo(None, drop), None, None, False, None)
        except Exception:  # noqa: BLE001 - already gone
            _log.debug("removing the cleanup finalizer of %s failed", name, exc_info=True)

    def _instance_stores(self, crd: dict[str, Any]) -> list[Any]:
        """Storage of a CRD this server never served (deleted while it was down)."""
        from kcodec.registry.customresource import UnstructuredStorageCodec, custom_resource_storages

        spec = crd["spec"]
        versions = [v["name"] for v in spec["versions"] if v.get("storage")] or [spec["versions"][0]["name"]]
        # read as stored: deleting needs no conversion (nor a conversion webhook that may be gone)
        opts = self._rest_options(spec["group"], spec["names"]["plural"], UnstructuredStorageCodec())
        return [custom_resource_storages(crd, versions[0], opts)[spec["names"]["plural"]]]

    @staticmethod
    def _delete_instances(name: str, stores: list[Any]) -> None:
        from kcodec.registry.request import Context

        try:
            if stores:
                stores[0].delete_collection(Context(), None, None, None)
        except Exception:  # noqa: BLE001 - the storage may already be gone
            _log.debug("deleting the instances of %s failed", name, exc_info=True)
        finally:
            for store in stores:
                store.destroy()


def _version_priority(version: str) -> tuple[int, int, int, str]:
    """apimachinery version.CompareKubeAwareVersionStrings order: GA, beta, alpha, then others."""
    import re

    m = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if m is None:
        return (3, 0, 0, version)
    major = int(m.group(1))
    if m.group(2) is None:
        return (0, -major, 0, version)
    rank = 1 if m.group(2) == "beta" else 2
    return (rank, -major, -int(m.group(3)), version)

