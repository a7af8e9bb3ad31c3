"""The generic registry Store (apiserver ``pkg/registry/generic/registry/store.go``).

One :class:`Store` per resource: it turns REST verbs into storage operations with the
resource's strategy (:class:`kcodec.registry.rest.Strategy`) and Go's semantics:

- create: system fields, generateName (8 attempts on collisions), ``before_create``,
  admission-style ``create_validation``, dry-run (everything but the write),
  AlreadyExists ("object is being deleted: " when the existing one is terminating);
- update: ``obj_info.updated_object`` on the current object inside a guaranteed update,
  resourceVersion required (422) unless the strategy allows unconditional updates, a
  stale one a 409 Conflict with Go's text, create-on-update, ``before_update``, nothing
  written when nothing changed (the storage layer compares the encodings), the object
  deleted when an update empties the finalizers of an object being deleted;
- delete: ``before_delete`` (preconditions, graceful deletion), the garbage collector's
  finalizers for the propagation policy (``orphan``, ``foregroundDeletion``), objects with
  finalizers marked deleting instead of deleted, ``ReturnDeletedObject`` or a success
  Status; delete_collection;
- get, list and watch with label and field selectors (the kind's attr function),
  limit/continue, resourceVersion and resourceVersionMatch passed to the storage layer.

Objects in and out are the memory version of the storage config (the internal version
for groups that have one). Errors are :class:`kcodec.api.errors.StatusError`.
"""
from __future__ import annotations

import builtins

from typing import Any, Callable

from kcodec.api import errors as apierrors
from kcodec.errors import KCodecError
from kcodec.registry import rest
from kcodec.registry._meta import accessor, now
from kcodec.registry.generic.matcher import (
    SelectionPredicate,
    default_cluster_scoped_attr,
    default_namespace_scoped_attr,
)
from kcodec.registry.request import Context
from kcodec.schema import GroupKind, GroupResource
from kcodec.storage import errors as storage_errors

__all__ = [
    "Store",
    "namespace_key_root_func",
    "namespace_key_func",
    "no_namespace_key_func",
    "should_delete_during_update",
    "RegistryWatcher",
    "ERROR",
]

ERROR = "ERROR"
_MAX_NAME_GENERATION_CREATE_ATTEMPTS = 8
_DELETE_COLLECTION_PAGE_SIZE = 10000


def _check_name(name: str) -> None:
    from kcodec.validation.names import validate_path_segment_name

    if not name:
        raise apierrors.new_bad_request("Name parameter required.")
    msgs = validate_path_segment_name(name, False)
    if msgs:
        from kcodec.gofmt import quote

        raise apierrors.new_bad_request(f"Name parameter invalid: {quote(name)}: {';'.join(msgs)}")


def namespace_key_root_func(ctx: Context, prefix: str) -> str:
    """Go's ``NamespaceKeyRootFunc``: ``prefix/<namespace>`` (``prefix`` for all namespaces)."""
    ns = ctx.namespace if ctx is not None else ""
    return f"{prefix}/{ns}" if ns else prefix


def namespace_key_func(ctx: Context, prefix: str, name: str) -> str:
    """Go's ``NamespaceKeyFunc``: ``prefix/<namespace>/<name>``, 400 without namespace or name."""
    ns = ctx.namespace if ctx is not None else ""
    if not ns:
        raise apierrors.new_bad_request("Namespace parameter required.")
    _check_name(name)
    return f"{prefix}/{ns}/{name}"


def no_namespace_key_func(ctx: Context, prefix: str, name: str) -> str:
    """Go's ``NoNamespaceKeyFunc``: ``prefix/<name>``."""
    _check_name(name)
    return f"{prefix}/{name}"


def should_delete_during_update(ctx: Context, key: str, obj: Any, existing: Any) -> bool:
    """Go's ``ShouldDeleteDuringUpdate``: an update that empties the finalizers of an
    object marked for deletion (with no grace period left) deletes it."""
    new_meta, old_meta = accessor(obj), accessor(existing)
    if new_meta.get_finalizers():
        return False
    if old_meta.get_deletion_timestamp() is None:
        return False
    grace = old_meta.get_deletion_grace_period_seconds()
    return grace is None or grace == 0


class _EmptiedFinalizers(Exception):
    pass


class _DeleteNow(Exception):
    pass


class _AlreadyDeleting(Exception):
    pass


def _is_dry_run(options: Any) -> bool:
    return bool(options is not None and getattr(options, "dry_run", None))


def _rv_int(obj: Any) -> int:
    rv = accessor(obj).get_resource_version() if obj is not None else ""
    if not rv or rv == "0":
        return 0
    if not (rv.isascii() and rv.isdigit()) or int(rv) >= 1 << 64:
        # APIObjectVersioner.ParseResourceVersion's InvalidError text; Go's handlers answer
        # it with a 500, kcodec with a 400: the value is the client's.
        from kcodec.gofmt import quote

        reason = "value out of range" if rv.isascii() and rv.isdigit() else "invalid syntax"
        raise apierrors.new_bad_request(f"resourceVersion: Invalid value: {quote(rv)}: strconv.ParseUint: "
                                        f"parsing {quote(rv)}: {reason}")
    return int(rv)


def _as_api_errors(method: Callable[..., Any]) -> Callable[..., Any]:
    """Whatever a verb raises is a StatusError: one that is not (a strategy hook or a
    validation function failing on an input it did not expect) becomes a 500, as Go's
    handlers answer a failed request they cannot classify."""
    import functools

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except apierrors.StatusError:
            raise
        except Exception as exc:  # noqa: BLE001 - turned into the 500 a client sees
            raise apierrors.to_status_error(exc) from exc

    return wrapper


class RegistryWatcher:
    """A watch on the registry (Go's ``watch.Interface`` the Store returns).

    Iterate for :class:`kcodec.storage.WatchEvent` s; ``next(timeout)`` returns one or
    ``None``; ``stop()`` ends it. A storage failure (a compacted resourceVersion, a value
    that does not decode) ends the watch with an ``ERROR`` event whose object is the
    ``metav1.Status`` (410 Expired "too old resource version: ..."), as Go's watchers do.
    ``decorator(obj)`` runs on each object.
    """

    def __init__(self, inner: Any = None, error: BaseException | None = None, *,
                 qualified_resource: GroupResource = GroupResource("", ""),
                 decorator: Callable[[Any], Any] | None = None) -> None:
        self._inner = inner
        self._pending_error = error
        self._gr = qualified_resource
        self._decorator = decorator
        self._stopped = False
        self._notify: Callable[[], None] | None = None

    def __repr__(self) -> str:
        return f"RegistryWatcher({self._gr}, inner={self._inner!r}, stopped={self._stopped})"

    @property
    def resource_version(self) -> Any:
        return getattr(self._inner, "resource_version", None)

    @property
    def dropped(self) -> bool:
        """Whether the watch cache ended this watch because its reader fell behind."""
        return bool(getattr(self._inner, "dropped", False))

    def set_notify(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (from any thread) when an event may be ready or the watch ended."""
        self._notify = callback
        setter = getattr(self._inner, "set_notify", None)
        if setter is not None:
            setter(callback)
        elif self._pending_error is not None:
            callback()

    def _error_event(self, exc: BaseException) -> Any:
        from kcodec.storage.store import WatchEvent

        status_error = apierrors.interpret_watch_error(exc, self._gr, "")
        if not isinstance(status_error, apierrors.StatusError):
            status_error = apierrors.new_internal_error(exc)
        self._stop_inner()
        return WatchEvent(ERROR, status_error.status)

    def _stop_inner(self) -> None:
        self._stopped = True
        if self._inner is not None:
            self._inner.stop()

    def next(self, timeout: float | None = None) -> Any:
        """The next event, ``None`` when none came within ``timeout`` or the watch ended."""
        if self._pending_error is not None:
            exc, self._pending_error = self._pending_error, None
            return self._error_event(exc)
        if self._stopped or self._inner is None:
            return None
        try:
            event = self._inner.next(timeout)
        except KCodecError as exc:  # every storage and cache error: Go sends it as an ERROR event
            return self._error_event(exc)
        if event is None:
            if self._inner_stopped():
                self._stopped = True
            return None
        if self._decorator is not None and event.type != ERROR:
            self._decorator(event.object)
        return event

    def _inner_stopped(self) -> bool:
        """Whether the storage or cache watcher ended (a ``stopped`` property or method, or
        the storage Watcher's ``_stopped``)."""
        flag = getattr(self._inner, "stopped", None)
        if callable(flag):
            flag = flag()
        return bool(flag) or bool(getattr(self._inner, "_stopped", False))

    def stop(self) -> None:
        """End the watch; idempotent."""
        self._stop_inner()
        if self._notify is not None:
            self._notify()

    def __iter__(self) -> RegistryWatcher:
        return self

    def __next__(self) -> Any:
        while True:
            event = self.next(timeout=1.0)
            if event is not None:
                if event.type == ERROR:
                    self._stopped = True
                return event
            if self._stopped:
                raise StopIteration

    def __enter__(self) -> RegistryWatcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Store:
    """Go's ``genericregistry.Store`` for one resource.

    Required: ``new_func`` / ``new_list_func`` (empty object / list of the memory version),
    ``default_qualified_resource`` (``GroupResource("apps", "deployments")``),
    ``create_strategy`` (also the update and delete strategy unless given). Then
    :meth:`complete_with_options` with a :class:`~kcodec.registry.generic.RESTOptionsGetter`
    (or a :class:`~kcodec.registry.generic.RESTOptions`) builds the storage.

    Optional hooks as Go's fields: ``predicate_func(label, field) -> SelectionPredicate``
    (or ``attr_func`` for the default one), ``decorator(obj)``, ``after_create(obj,
    options)``, ``after_update``, ``after_delete``, ``begin_create(ctx, obj, options) ->
    finish(ctx, success)``, ``begin_update(ctx, obj, old, options) -> finish``,
    ``table_convertor``, ``return_deleted_object``, ``should_delete_during_update``,
    ``ttl_func(obj, existing_ttl, update) -> seconds`` (Go's ``TTLFunc``: the lease the
    stored object gets on create and update, e.g. Events' ``--event-ttl``; 0: none).
    Discovery facts: ``singular_qualified_resource``, ``short_names``, ``categories``,
    ``kind`` (the GroupVersionKind served).
    """

    def __init__(self, *, new_func: Callable[[], Any], new_list_func: Callable[[], Any],
                 default_qualified_resource: GroupResource, create_strategy: Any,
                 update_strategy: Any = None, delete_strategy: Any = None,
                 singular_qualified_resource: GroupResource | None = None,
                 predicate_func: Callable[[Any, Any], SelectionPredicate] | None = None,
                 attr_func: Callable[[Any], Any] | None = None,
                 key_root_func: Callable[[Context], str] | None = None,
                 key_func: Callable[[Context, str], str] | None = None,
                 object_name_func: Callable[[Any], str] | None = None,
                 decorator: Callable[[Any], Any] | None = None,
                 after_create: Callable[[Any, Any], None] | None = None,
                 after_update: Callable[[Any, Any], None] | None = None,
                 after_delete: Callable[[Any, Any], None] | None = None,
                 begin_create: Callable[..., Any] | None = None,
                 begin_update: Callable[..., Any] | None = None,
                 return_deleted_object: bool = False,
                 should_delete_during_update: Callable[..., bool] | None = None,
                 table_convertor: Any = None, reset_fields_strategy: Any = None,
                 ttl_func: Callable[[Any, int, bool], int] | None = None,
                 short_names: tuple[str, ...] | list[str] = (), categories: tuple[str, ...] | list[str] = (),
                 kind: Any = None, storage: Any = None) -> None:
        self.new_func = new_func
        self.new_list_func = new_list_func
        self.default_qualified_resource = GroupResource(*default_qualified_resource)
        self.singular_qualified_resource = singular_qualified_resource
        self.create_strategy = create_strategy
        self.update_strategy = update_strategy if update_strategy is not None else create_strategy
        self.delete_strategy = delete_strategy if delete_strategy is not None else create_strategy
        self.reset_fields_strategy = reset_fields_strategy
        self.predicate_func: Any = predicate_func
        self.attr_func = attr_func
        self.key_root_func: Any = key_root_func
        self.key_func: Any = key_func
        self.object_name_func = object_name_func or (lambda obj: accessor(obj).get_name())
        self.decorator = decorator
        self.after_create = after_create
        self.after_update = after_update
        self.after_delete = after_delete
        self.begin_create = begin_create
        self.begin_update = begin_update
        self.return_deleted_object = return_deleted_object
        self.should_delete_during_update_func = should_delete_during_update
        self.table_convertor = table_convertor
        self.ttl_func = ttl_func
        self._short_names = list(short_names)
        self._categories = list(categories)
        self.kind = kind
        self.storage = storage
        self.destroy_func: Callable[[], None] | None = None
        self.enable_garbage_collection = True
        self.delete_collection_workers = 1
        self.storage_versioner = None
        self.rest_options: Any = None
        self._expected_type: type | None = None

    def __repr__(self) -> str:
        return f"Store({self.default_qualified_resource}, storage={type(self.storage).__name__})"

    # ------------------------------------------------------------------ construction

    def complete_with_options(self, rest_options_getter: Any, *, attr_func: Any = None) -> Store:
        """Go's ``CompleteWithOptions``: check the fields, set key and predicate functions,
        and build the storage through the RESTOptions' decorator. Returns ``self``."""
        gr = self.default_qualified_resource
        if not gr.group and not gr.resource:
            raise apierrors.new_internal_error(f"store {self!r} must have a non-empty qualified resource")
        if self.singular_qualified_resource is None:
            self.singular_qualified_resource = GroupResource(gr.group, "")
        if self.singular_qualified_resource.group != gr.group:
            raise ValueError(f"store for {gr}, singular and plural qualified resource's group name's must match")
        if (self.key_root_func is None) != (self.key_func is None):
            raise ValueError(f"store for {gr} must set both KeyRootFunc and KeyFunc or neither")
        if self.create_strategy is None and self.update_strategy is None:
            raise ValueError(f"store for {gr} must have CreateStrategy or UpdateStrategy set")
        if self.delete_strategy is None:
            raise ValueError(f"store for {gr} must have DeleteStrategy set")
        namespaced = self.namespace_scoped()
        attrs = attr_func or self.attr_func
        if attrs is None:
            attrs = default_namespace_scoped_attr if namespaced else default_cluster_scoped_attr
        self.attr_func = attrs
        if self.predicate_func is None:
            self.predicate_func = lambda label, field: SelectionPredicate(label=label, field=field, get_attrs=attrs)
        if self.table_convertor is None:
            self.table_convertor = rest.DefaultTableConvertor(gr)
        opts = rest_options_getter.get_rest_options(gr, self.new_func())
        self.rest_options = opts
        prefix = opts.resource_prefix
        if not prefix.startswith("/"):
            prefix = "/" + prefix
        if prefix == "/":
            raise ValueError(f"store for {gr} has an invalid prefix {opts.resource_prefix!r}")
        self.prefix = prefix
        if self.key_root_func is None:
            if namespaced:
                self.key_root_func = lambda ctx: namespace_key_root_func(ctx, prefix)
                self.key_func = lambda ctx, name: namespace_key_func(ctx, prefix, name)
            else:
                self.key_root_func = lambda ctx: prefix
                self.key_func = lambda ctx, name: no_namespace_key_func(ctx, prefix, name)
        self.delete_collection_workers = self.delete_collection_workers or opts.delete_collection_workers
        self.enable_garbage_collection = opts.enable_garbage_collection
        if self.storage is None:
            key_func = self.key_func

            def cache_key_func(obj: Any) -> str:
                m = accessor(obj)
                return key_func(Context(namespace=m.get_namespace() if namespaced else ""), m.get_name())

            self.storage, self.destroy_func = opts.decorator(
                opts.storage_config, prefix, cache_key_func, self.new_func, self.new_list_func, attrs,
                None, None, kv=opts.kv)
            self.storage_versioner = getattr(opts.storage_config, "encode_versioner", None)
        return self

    def destroy(self) -> None:
        """Go's ``Destroy``: stop the watch cache (the backend belongs to the getter)."""
        if self.destroy_func is not None:
            fn, self.destroy_func = self.destroy_func, None
            fn()

    # ------------------------------------------------------------------ facts

    def new(self) -> Any:
        return self.new_func()

    def new_list(self) -> Any:
        return self.new_list_func()

    def namespace_scoped(self) -> bool:
        if self.create_strategy is not None:
            return self.create_strategy.namespace_scoped()
        return self.update_strategy.namespace_scoped()

    def get_single_name(self) -> str:
        return self.singular_qualified_resource.resource if self.singular_qualified_resource else ""

    get_singular_name = get_single_name

    def short_names(self) -> list[str]:
        return list(self._short_names)

    def categories(self) -> list[str]:
        return list(self._categories)

    def get_create_strategy(self) -> Any:
        return self.create_strategy

    def get_update_strategy(self) -> Any:
        return self.update_strategy

    def get_delete_strategy(self) -> Any:
        return self.delete_strategy

    def storage_version(self) -> Any:
        """The GroupVersion the resource is written in (Go's ``StorageVersion()``, whose
        version and the kind give discovery's storageVersionHash); None before
        :meth:`complete_with_options`."""
        config = getattr(self.rest_options, "storage_config", None)
        return getattr(config, "storage_version", None)

    def verbs(self) -> list[str]:
        """The verbs discovery lists for the resource (those Go derives from the REST
        interfaces a Store implements), sorted as Go sorts them."""
        return ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]

    def delete_returns_deleted_object(self) -> bool:
        return self.return_deleted_object

    def qualified_resource_from_context(self, ctx: Context | None) -> GroupResource:
        info = ctx.request_info if ctx is not None else None
        if info is not None and info.resource:
            return GroupResource(info.api_group, info.resource)
        return self.default_qualified_resource

    def _check_type(self, obj: Any) -> None:
        """Refuse an object of another kind than the store's (what Go's typed handlers
        and type assertions guarantee) before anything is prepared or written."""
        if self._expected_type is None:
            self._expected_type = type(self.new_func())
        if type(obj) is not self._expected_type:
            got = type(obj).__name__
            if hasattr(obj, "unstructured_content") and hasattr(obj, "get_kind"):
                got = obj.get_kind() or got
                if self._expected_type.__name__ == "Unstructured":
                    return
            raise apierrors.new_bad_request(
                f"the object provided is a {got}, but {self.default_qualified_resource} stores "
                f"{self._expected_type.__name__} objects")

    def _decorate(self, obj: Any) -> Any:
        if self.decorator is not None and obj is not None:
            self.decorator(obj)
        return obj

    # ------------------------------------------------------------------ get / list / watch

    @_as_api_errors
    def get(self, ctx: Context, name: str, options: Any = None) -> Any:
        """Go's ``Get``: the object, 404 NotFound when missing."""
        key = self.key_func(ctx, name)
        rv = getattr(options, "resource_version", "") or "" if options is not None else ""
        try:
            obj = self.storage.get(key, resource_version=rv)
        except Exception as exc:
            raise _api_error(apierrors.interpret_get_error(exc, self.qualified_resource_from_context(ctx), name),
                             exc) from exc
        return self._decorate(obj)

    def _predicate(self, options: Any) -> SelectionPredicate:
        label = getattr(options, "label_selector", None) if options is not None else None
        field = getattr(options, "field_selector", None) if options is not None else None
        return self.predicate_func(label, field)

    @_as_api_errors
    def list(self, ctx: Context, options: rest.ListOptions | None = None) -> Any:
        """Go's ``List``: the kind's list with the items the selectors match, one page of
        ``options.limit`` (``metadata.continue`` for the next) at the storage revision."""
        options = options if options is not None else rest.ListOptions()
        p = self._predicate(options)
        p.limit = int(options.limit or 0)
        p.continue_ = options.continue_ or ""
        out = self.list_predicate(ctx, p, options)
        if self.decorator is not None:
            for item in out.items or ():
                self.decorator(item)
        return out

    def list_predicate(self, ctx: Context, p: SelectionPredicate, options: rest.ListOptions) -> Any:
        qualified_resource = self.qualified_resource_from_context(ctx)
        if not ctx.namespace:
            ns, ok = p.matches_single_namespace()
            if ok and _valid_namespace_name(ns):
                ctx = ctx.with_namespace(ns)
        key = self.key_root_func(ctx)
        try:
            return self.storage.get_list(key, resource_version=options.resource_version or "",
                                         resource_version_match=options.resource_version_match or "",
                                         limit=p.limit, continue_token=p.continue_, predicate=p.as_filter())
        except Exception as exc:
            raise _api_error(apierrors.interpret_list_error(exc, qualified_resource), exc) from exc

    @_as_api_errors
    def watch(self, ctx: Context, options: rest.ListOptions | None = None) -> RegistryWatcher:
        """Go's ``Watch``: events after ``options.resource_version`` matching the selectors
        ("" or "0": the current objects first, as ADDED). Errors while watching come as
        one ERROR event carrying a Status."""
        options = options if options is not None else rest.ListOptions()
        p = self._predicate(options)
        p.allow_watch_bookmarks = bool(options.allow_watch_bookmarks)
        return self.watch_predicate(ctx, p, options.resource_version or "", options.send_initial_events)

    def watch_predicate(self, ctx: Context, p: SelectionPredicate, resource_version: str,
                        send_initial_events: bool | None = None) -> RegistryWatcher:
        qualified_resource = self.qualified_resource_from_context(ctx)
        if not ctx.namespace:
            ns, ok = p.matches_single_namespace()
            if ok and _valid_namespace_name(ns):
                ctx = ctx.with_namespace(ns)
        key = self.key_root_func(ctx)
        kwargs: dict[str, Any] = {"resource_version": resource_version, "recursive": True,
                                  "predicate": p.as_filter()}
        if p.allow_watch_bookmarks or send_initial_events is not None:
            if _accepts_watch_list(self.storage):
                kwargs["allow_watch_bookmarks"] = p.allow_watch_bookmarks
                kwargs["send_initial_events"] = send_initial_events
            elif send_initial_events:
                # Go's etcd3 store without RequestWatchProgress: the watch-list needs the cache.
                raise apierrors.new_bad_request(
                    "a watch stream was requested by the client but the required storage feature "
                    "RequestWatchProgress is disabled")
        try:
            inner = self.storage.watch(key, **kwargs)
        except (storage_errors.ResourceExpiredError, storage_errors.StorageError) as exc:
            return RegistryWatcher(None, exc, qualified_resource=qualified_resource, decorator=self.decorator)
        except apierrors.StatusError:
            raise
        except Exception as exc:
            raise _api_error(apierrors.interpret_watch_error(exc, qualified_resource, ""), exc) from exc
        return RegistryWatcher(inner, qualified_resource=qualified_resource, decorator=self.decorator)

    # ------------------------------------------------------------------ create

    @_as_api_errors
    def create(self, ctx: Context, obj: Any, create_validation: Callable[[Context, Any], None] | None = None,
               options: Any = None) -> Any:
        """Go's ``Create``: the stored object (with resourceVersion, uid, creationTimestamp)."""
        options = _create_options(options)
        self._check_type(obj)
        m = accessor(obj)
        if m.get_generate_name() and not m.get_name():
            result: Any = None
            for _ in range(_MAX_NAME_GENERATION_CREATE_ATTEMPTS):
                try:
                    return self._create(ctx, obj.deep_copy(), create_validation, options)
                except apierrors.StatusError as exc:
                    if not apierrors.is_already_exists(exc):
                        raise
                    result = exc
            raise result
        return self._create(ctx, obj, create_validation, options)

    def calculate_ttl(self, obj: Any, default_ttl: int, update: bool) -> int:
        """Go's ``calculateTTL``: ``default_ttl`` (never below 0) through ``ttl_func``."""
        ttl = max(int(default_ttl), 0)
        if self.ttl_func is not None:
            ttl = int(self.ttl_func(obj, ttl, update))
        return ttl

    def _create(self, ctx: Context, obj: Any, create_validation: Any, options: Any) -> Any:
        m = accessor(obj)
        rest.fill_object_meta_system_fields(m)
        if m.get_generate_name() and not m.get_name():
            m.set_name(self.create_strategy.generate_name(m.get_generate_name()))
        finish = self.begin_create(ctx, obj, options) if self.begin_create is not None else None
        success = False
        try:
            rest.before_create(self.create_strategy, ctx, obj)
            if create_validation is not None:
                create_validation(ctx, obj.deep_copy())
            name = self.object_name_func(obj)
            key = self.key_func(ctx, name)
            qualified_resource = self.qualified_resource_from_context(ctx)
            ttl = self.calculate_ttl(obj, 0, False)
            try:
                if _is_dry_run(options):
                    if self.storage.get(key, ignore_not_found=True) is not None:
                        raise storage_errors.KeyExistsError(key, 0)
                    out = obj.deep_copy()
                else:
                    out = self.storage.create(key, obj, ttl=ttl)
            except Exception as exc:
                err: Any = apierrors.interpret_create_error(exc, qualified_resource, name)
                err = rest.check_generated_name_error(ctx, self.create_strategy, err, obj)
                if not apierrors.is_already_exists(err):
                    raise _api_error(err, exc) from exc
                try:
                    existing = self.storage.get(key, ignore_not_found=True)
                except Exception:  # noqa: BLE001 - Go returns the AlreadyExists then
                    existing = None
                if existing is not None and accessor(existing).get_deletion_timestamp() is not None:
                    err.status.message = f"object is being deleted: {err.status.message}"
                raise err from exc
            success = True
        finally:
            if finish is not None:
                finish(ctx, success)
        if self.after_create is not None:
            self.after_create(out, options)
        return self._decorate(out)

    # ------------------------------------------------------------------ update

    @_as_api_errors
    def update(self, ctx: Context, name: str, obj_info: Any,
               create_validation: Callable[[Context, Any], None] | None = None,
               update_validation: Callable[[Context, Any, Any], None] | None = None,
               force_allow_create: bool = False, options: Any = None) -> tuple[Any, bool]:
        """Go's ``Update``: ``(object, created)``."""
        options = _update_options(options)
        key = self.key_func(ctx, name)
        qualified_resource = self.qualified_resource_from_context(ctx)
        from kcodec.storage.store import Preconditions

        storage_pre = Preconditions()
        pre = obj_info.preconditions()
        if pre is not None:
            storage_pre.uid = pre.uid
            storage_pre.resource_version = pre.resource_version
        has_pre = storage_pre.uid is not None or storage_pre.resource_version is not None
        ignore_not_found = self.update_strategy.allow_create_on_update() or force_allow_create
        state: dict[str, Any] = {"creating": False, "creating_obj": None, "delete_obj": None, "ttl": 0}
        dry_run = _is_dry_run(options)

        def try_update(existing: Any) -> Any:
            existing_rv = _rv_int(existing) if existing is not None else 0
            if existing is None:
                existing = self.new_func()
            if existing_rv == 0 and not (self.update_strategy.allow_create_on_update() or force_allow_create):
                raise apierrors.new_not_found(qualified_resource, name)
            obj = obj_info.updated_object(ctx, existing)
            if obj is None:
                raise apierrors.new_bad_request("the updated object is empty")
            self._check_type(obj)
            new_rv = _rv_int(obj)
            unconditional = new_rv == 0 and self.update_strategy.allow_unconditional_update()
            if existing_rv == 0:
                m = accessor(obj)
                rest.wipe_object_meta_system_fields(m)
                rest.fill_object_meta_system_fields(m)
                # a create through update: the resourceVersion the client sent means nothing
                m.set_resource_version("")
                state["creating"], state["creating_obj"] = True, obj
                finish = (self.begin_create(ctx, obj, options) if self.begin_create is not None else None)
                ok = False
                try:
                    rest.before_create(self.create_strategy, ctx, obj)
                    if create_validation is not None:
                        create_validation(ctx, obj.deep_copy())
                    ok = True
                finally:
                    if finish is not None:
                        finish(ctx, ok)
                state["ttl"] = self.calculate_ttl(obj, 0, False)
                return obj
            state["creating"], state["creating_obj"] = False, None
            if unconditional:
                accessor(obj).set_resource_version(str(existing_rv))
            else:
                if new_rv == 0:
                    f = rest._field()
                    errs = f.ErrorList([f.invalid(f.Path("metadata", "resourceVersion"), 0,
                                                  "must be specified for an update")])
                    raise apierrors.new_invalid(GroupKind(qualified_resource.group, qualified_resource.resource),
                                                name, errs)
                if new_rv != existing_rv:
                    raise apierrors.new_conflict(qualified_resource, name, rest.OPTIMISTIC_LOCK_ERROR_MSG)
            finish = (self.begin_update(ctx, obj, existing, options) if self.begin_update is not None else None)
            ok = False
            try:
                rest.before_update(self.update_strategy, ctx, obj, existing)
                if update_validation is not None:
                    update_validation(ctx, obj.deep_copy(), existing.deep_copy())
                if should_delete_during_update(ctx, key, obj, existing) and (
                        self.should_delete_during_update_func is None
                        or self.should_delete_during_update_func(ctx, key, obj, existing)):
                    state["delete_obj"] = obj
                    raise _EmptiedFinalizers()
                ok = True
            finally:
                if finish is not None:
                    finish(ctx, ok)
            # The etcd3 store reports no remaining TTL, so Go's default here is 0 too.
            state["ttl"] = self.calculate_ttl(obj, 0, True)
            return obj

        try:
            if dry_run:
                out = self._dry_run_update(key, try_update, storage_pre if has_pre else None, ignore_not_found)
            else:
                out = self.storage.guaranteed_update(key, try_update, preconditions=storage_pre if has_pre else None,
                                                     ignore_not_found=ignore_not_found,
                                                     ttl_func=lambda _obj: state["ttl"])
        except _EmptiedFinalizers:
            return self._delete_without_finalizers(ctx, name, key, state["delete_obj"],
                                                   storage_pre if has_pre else None, options)
        except Exception as exc:
            err: Any
            if state["creating"]:
                err = apierrors.interpret_create_error(exc, qualified_resource, name)
                err = rest.check_generated_name_error(ctx, self.create_strategy, err, state["creating_obj"])
            else:
                err = apierrors.interpret_update_error(exc, qualified_resource, name)
            raise _api_error(err, exc) from exc
        if state["creating"]:
            if self.after_create is not None:
                self.after_create(out, options)
        elif self.after_update is not None:
            self.after_update(out, options)
        return self._decorate(out), state["creating"]

    def _dry_run_update(self, key: str, try_update: Callable[[Any], Any], preconditions: Any,
                        ignore_not_found: bool) -> Any:
        """apiserver's ``DryRunnableStorage.GuaranteedUpdate`` with dryRun: the update
        computed on the current object, checked, and not written."""
        existing = self.storage.get(key, ignore_not_found=ignore_not_found)
        if preconditions is not None and existing is not None:
            preconditions.check(key, existing)
        current_rv = accessor(existing).get_resource_version() if existing is not None else ""
        out = try_update(existing.deep_copy() if existing is not None else None)
        accessor(out).set_resource_version(current_rv)
        return out

    def _delete_without_finalizers(self, ctx: Context, name: str, key: str, obj: Any, preconditions: Any,
                                   options: Any) -> tuple[Any, bool]:
        from kcodec.api.meta.v1 import DeleteOptions

        delete_options = DeleteOptions(dry_run=list(getattr(options, "dry_run", None) or []) or None)
        try:
            if _is_dry_run(options):
                out = self.storage.get(key)
            else:
                out = self.storage.delete(key, preconditions=preconditions)
        except storage_errors.KeyNotFoundError:
            self._finalize_delete(ctx, obj, True, delete_options)
            return obj, False
        except Exception as exc:
            err = apierrors.interpret_delete_error(exc, self.qualified_resource_from_context(ctx), name)
            raise _api_error(err, exc) from exc
        self._finalize_delete(ctx, out, True, delete_options)
        return obj, False

    # ------------------------------------------------------------------ delete

    @_as_api_errors
    def delete(self, ctx: Context, name: str, delete_validation: Callable[[Context, Any], None] | None = None,
               options: Any = None) -> tuple[Any, bool]:
        """Go's ``Delete``: ``(object or Status, deleted_now)``.

        An object with finalizers (or a graceful-delete strategy's object with a grace
        period) is updated with deletionTimestamp and stays; ``deleted_now`` is then False.
        """
        key = self.key_func(ctx, name)
        qualified_resource = self.qualified_resource_from_context(ctx)
        delete_validation = delete_validation or rest.validate_all_objects
        try:
            obj = self.storage.get(key)
        except Exception as exc:
            raise _api_error(apierrors.interpret_delete_error(exc, qualified_resource, name), exc) from exc
        if options is None:
            from kcodec.api.meta.v1 import DeleteOptions

            options = DeleteOptions(grace_period_seconds=0)
        else:
            options = options.deep_copy()
        from kcodec.storage.store import Preconditions

        preconditions = Preconditions()
        if options.preconditions is not None:
            preconditions.uid = options.preconditions.uid
            preconditions.resource_version = options.preconditions.resource_version
        graceful, pending_graceful = rest.before_delete(self.delete_strategy, ctx, obj, options)
        if pending_graceful:
            return self._finalize_delete(ctx, obj, False, options), False
        m = accessor(obj)
        pending_finalizers = bool(m.get_finalizers())
        ignore_not_found = False
        delete_immediately = True
        last_existing = None
        out = None
        should_update_finalizers, _ = self._deletion_finalizers_for_gc(ctx, m, options)
        if graceful or pending_finalizers or should_update_finalizers:
            ignore_not_found, delete_immediately, out, last_existing = self._update_for_graceful_deletion_and_finalizers(
                ctx, name, key, options, preconditions, delete_validation, obj)
            if delete_immediately and preconditions.resource_version is not None and out is not None:
                preconditions.resource_version = accessor(out).get_resource_version()
        if not delete_immediately:
            return out, False
        if _is_dry_run(options) and out is not None:
            return out, True
        has_pre = preconditions.uid is not None or preconditions.resource_version is not None
        try:
            if _is_dry_run(options):
                current = self.storage.get(key)
                if has_pre:
                    preconditions.check(key, current)
                delete_validation(ctx, current)
                out = current
            else:
                out = self.storage.delete(key, preconditions=preconditions if has_pre else None,
                                          validate_deletion=lambda o: delete_validation(ctx, o))
        except storage_errors.KeyNotFoundError as exc:
            if ignore_not_found and last_existing is not None:
                return self._finalize_delete(ctx, last_existing, True, options), True
            raise _api_error(apierrors.interpret_delete_error(exc, qualified_resource, name), exc) from exc
        except Exception as exc:
            raise _api_error(apierrors.interpret_delete_error(exc, qualified_resource, name), exc) from exc
        return self._finalize_delete(ctx, out, True, options), True

    def _update_for_graceful_deletion_and_finalizers(self, ctx: Context, name: str, key: str, options: Any,
                                                     preconditions: Any, delete_validation: Any,
                                                     in_obj: Any) -> tuple[bool, bool, Any, Any]:
        """Go's ``updateForGracefulDeletionAndFinalizers``:
        ``(ignore_not_found, delete_immediately, out, last_existing)``."""
        state: dict[str, Any] = {"last_graceful": 0, "pending_finalizers": False, "last_existing": None}

        def try_update(existing: Any) -> Any:
            delete_validation(ctx, existing)
            graceful, pending_graceful = rest.before_delete(self.delete_strategy, ctx, existing, options)
            if pending_graceful:
                raise _AlreadyDeleting()
            m = accessor(existing)
            needs_update, new_finalizers = self._deletion_finalizers_for_gc(ctx, m, options)
            if needs_update:
                m.set_finalizers(new_finalizers)
            state["pending_finalizers"] = bool(m.get_finalizers())
            if not graceful:
                if state["pending_finalizers"]:
                    _mark_as_deleting(m)
                    return existing
                raise _DeleteNow()
            state["last_graceful"] = int(options.grace_period_seconds or 0)
            state["last_existing"] = existing
            return existing

        has_pre = preconditions.uid is not None or preconditions.resource_version is not None
        try:
            if _is_dry_run(options):
                out = self._dry_run_update(key, try_update, preconditions if has_pre else None, False)
            else:
                out = self.storage.guaranteed_update(key, try_update,
                                                     preconditions=preconditions if has_pre else None)
        except _DeleteNow:
            return False, True, None, state["last_existing"]
        except _AlreadyDeleting:
            return False, False, self._finalize_delete(ctx, in_obj, True, options), state["last_existing"]
        except Exception as exc:
            err = apierrors.interpret_update_error(exc, self.qualified_resource_from_context(ctx), name)
            raise _api_error(err, exc) from exc
        if state["pending_finalizers"]:
            return False, False, self._decorate(out), state["last_existing"]
        if state["last_graceful"] > 0:
            return False, False, self._decorate(out), state["last_existing"]
        return True, True, out, state["last_existing"]

    def _gc_policy(self, ctx: Context) -> str:
        fn = getattr(self.delete_strategy, "default_garbage_collection_policy", None)
        return fn(ctx) if fn is not None else ""

    def _should_orphan_dependents(self, ctx: Context, m: Any, options: Any) -> bool:
        policy = self._gc_policy(ctx)
        if policy == rest.UNSUPPORTED:
            return False
        if options is not None and options.orphan_dependents is not None:
            return bool(options.orphan_dependents)
        if options is not None and options.propagation_policy is not None:
            if options.propagation_policy == "Orphan":
                return True
            if options.propagation_policy in ("Background", "Foreground"):
                return False
        for f in m.get_finalizers():
            if f == rest.FINALIZER_ORPHAN_DEPENDENTS:
                return True
            if f == rest.FINALIZER_DELETE_DEPENDENTS:
                return False
        return policy == rest.ORPHAN_DEPENDENTS

    def _should_delete_dependents_in_foreground(self, ctx: Context, m: Any, options: Any) -> bool:
        if self._gc_policy(ctx) == rest.UNSUPPORTED:
            return False
        if options is not None and options.orphan_dependents is not None:
            return False
        if options is not None and options.propagation_policy is not None:
            if options.propagation_policy == "Foreground":
                return True
            if options.propagation_policy in ("Background", "Orphan"):
                return False
        for f in m.get_finalizers():
            if f == rest.FINALIZER_DELETE_DEPENDENTS:
                return True
            if f == rest.FINALIZER_ORPHAN_DEPENDENTS:
                return False
        return False

    def _deletion_finalizers_for_gc(self, ctx: Context, m: Any, options: Any) -> tuple[bool, builtins.list[str]]:
        """Go's ``deletionFinalizersForGarbageCollection``."""
        if not self.enable_garbage_collection:
            return False, []
        orphan = self._should_orphan_dependents(ctx, m, options)
        foreground = self._should_delete_dependents_in_foreground(ctx, m, options)
        old = m.get_finalizers()
        new = [f for f in old if f not in (rest.FINALIZER_ORPHAN_DEPENDENTS, rest.FINALIZER_DELETE_DEPENDENTS)]
        if orphan:
            new.append(rest.FINALIZER_ORPHAN_DEPENDENTS)
        if foreground:
            new.append(rest.FINALIZER_DELETE_DEPENDENTS)
        if set(old) == set(new):
            return False, old
        return True, new

    def _finalize_delete(self, ctx: Context, obj: Any, run_hooks: bool, options: Any) -> Any:
        """Go's ``finalizeDelete``: the object (``return_deleted_object``) or a success Status."""
        if run_hooks and self.after_delete is not None:
            self.after_delete(obj, options)
        if self.return_deleted_object:
            return self._decorate(obj)
        from kcodec.api.meta.v1 import Status, StatusDetails

        m = accessor(obj)
        gr = self.qualified_resource_from_context(ctx)
        return Status(api_version="v1", kind="Status", status=apierrors.STATUS_SUCCESS,
                      details=StatusDetails(name=m.get_name(), group=gr.group, kind=gr.resource, uid=m.get_uid()))

    @_as_api_errors
    def delete_collection(self, ctx: Context, delete_validation: Callable[[Context, Any], None] | None = None,
                          options: Any = None, list_options: rest.ListOptions | None = None) -> Any:
        """Go's ``DeleteCollection``: delete every object the list options select (page by
        page unless a limit is given); returns the list of the objects found."""
        import dataclasses

        list_options = dataclasses.replace(list_options) if list_options is not None else rest.ListOptions()
        has_limit = list_options.limit > 0
        if not list_options.limit:
            list_options.limit = _DELETE_COLLECTION_PAGE_SIZE
        items: list[Any] = []
        original = None
        while True:
            page = self.list(ctx, list_options)
            new_items = list(page.items or ())
            items.extend(new_items)
            for item in new_items:
                opts = options.deep_copy() if options is not None else None
                try:
                    self.delete(ctx.with_namespace(accessor(item).get_namespace()) if not ctx.namespace else ctx,
                                accessor(item).get_name(), delete_validation, opts)
                except apierrors.StatusError as exc:
                    if not apierrors.is_not_found(exc):
                        raise
            if has_limit:
                return page
            if original is None:
                original = page
            cont = page.metadata.continue_ if hasattr(page, "metadata") and page.metadata is not None else ""
            if hasattr(page, "get_continue"):
                cont = page.get_continue()
            if not cont:
                original.items = items
                return original
            list_options.continue_ = cont
            list_options.resource_version = ""
            list_options.resource_version_match = ""

    # ------------------------------------------------------------------ tables

    def convert_to_table(self, ctx: Context, obj: Any, table_options: Any = None) -> Any:
        """Go's ``ConvertToTable`` through the store's table convertor."""
        convertor = self.table_convertor or rest.DefaultTableConvertor(self.default_qualified_resource)
        return convertor.convert_to_table(ctx, obj, table_options)

    def get_reset_fields(self) -> Any:
        if self.reset_fields_strategy is None:
            return None
        return self.reset_fields_strategy.get_reset_fields()


def _mark_as_deleting(m: Any) -> None:
    """Go's ``markAsDeleting``: deletionTimestamp now (unless earlier), grace period 0,
    generation bumped the first time."""
    current = m.get_deletion_timestamp()
    if current is None and m.get_generation() > 0:
        m.set_generation(m.get_generation() + 1)
    right_now = now()
    if current is None or current.datetime > right_now.datetime:
        m.set_deletion_timestamp(right_now)
    m.set_deletion_grace_period_seconds(0)


def _valid_namespace_name(ns: str) -> bool:
    from kcodec.validation.names import is_dns1123_label

    return not is_dns1123_label(ns)


def _accepts_watch_list(storage: Any) -> bool:
    import inspect

    try:
        params = inspect.signature(storage.watch).parameters
    except (TypeError, ValueError):
        return False
    return "send_initial_events" in params


def _api_error(err: BaseException, original: BaseException) -> BaseException:
    """What the Store raises: a StatusError; anything the interpretation left as it was
    (a Python error from a hook or a codec) becomes a 500 as Go's handlers make it."""
    if isinstance(err, apierrors.StatusError):
        return err
    return apierrors.to_status_error(err)


def _create_options(options: Any) -> Any:
    if options is None:
        from kcodec.api.meta.v1 import CreateOptions

        return CreateOptions()
    return options


def _update_options(options: Any) -> Any:
    if options is None:
        from kcodec.api.meta.v1 import UpdateOptions

        return UpdateOptions()
    return options

