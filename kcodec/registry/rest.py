"""The strategy hooks of the registry, as apiserver ``pkg/registry/rest``.

Go: ``create.go`` (``RESTCreateStrategy``, ``BeforeCreate``, ``CheckGeneratedNameError``),
``update.go`` (``RESTUpdateStrategy``, ``BeforeUpdate``, ``DefaultUpdatedObjectInfo``),
``delete.go`` (``RESTDeleteStrategy``, ``RESTGracefulDeleteStrategy``, ``BeforeDelete``),
``meta.go`` (system fields, namespace rules), ``table.go`` (the default Table) and
``pkg/storage/names`` (generateName).

A strategy is one object answering all three interfaces (as Go's per-resource strategies
do): subclass :class:`Strategy` and override what the resource does differently. A
strategy that has ``check_graceful_delete`` is a graceful-delete strategy (Go's
``RESTGracefulDeleteStrategy`` is an interface check; here it is an attribute check);
``default_garbage_collection_policy`` likewise.

Options: the registry takes the ``metav1`` option objects Go's registry takes
(``kcodec.api.meta.v1.GetOptions``, ``CreateOptions``, ``UpdateOptions``,
``DeleteOptions``) and, for list and watch, :class:`ListOptions`: Go's
``metainternalversion.ListOptions``, whose selectors are parsed objects
(:class:`kcodec.labels.Selector`, :class:`kcodec.fields.Selector`) instead of strings.
:meth:`ListOptions.from_metav1` parses a ``metav1.ListOptions`` (the query parameters) as
the endpoint handlers do, with Go's BadRequest texts and the kind's field label conversion.
"""
from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field as dc_field
from typing import Any, Callable

from kcodec.api import errors as apierrors
from kcodec.registry._meta import accessor, now, object_meta_of
from kcodec.registry.request import Context
from kcodec.schema import GroupKind, GroupResource

__all__ = [
    "Strategy",
    "GenericStrategy",
    "NAME_ALPHABET",
    "OPTIMISTIC_LOCK_ERROR_MSG",
    "DELETE_DEPENDENTS",
    "ORPHAN_DEPENDENTS",
    "UNSUPPORTED",
    "FINALIZER_ORPHAN_DEPENDENTS",
    "FINALIZER_DELETE_DEPENDENTS",
    "generate_name",
    "before_create",
    "validate_create",
    "before_update",
    "validate_update",
    "before_delete",
    "validate_delete_options",
    "check_generated_name_error",
    "fill_object_meta_system_fields",
    "wipe_object_meta_system_fields",
    "ensure_object_namespace_matches_request_namespace",
    "expected_namespace_for_scope",
    "DefaultUpdatedObjectInfo",
    "wrap_updated_object_info",
    "ListOptions",
    "DefaultTableConvertor",
    "validate_all_objects",
    "validate_all_object_updates",
]

#: ``k8s.io/apimachinery/pkg/util/rand``'s alphabet (no vowels, no confusable digits).
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_NAME_LENGTH = 63
_RANDOM_LENGTH = 5
_MAX_GENERATED_NAME_LENGTH = _MAX_NAME_LENGTH - _RANDOM_LENGTH

#: genericregistry's ``OptimisticLockErrorMsg``.
OPTIMISTIC_LOCK_ERROR_MSG = ("the object has been modified; please apply your changes to the latest version "
                             "and try again")

# rest.GarbageCollectionPolicy
DELETE_DEPENDENTS = "DeleteDependents"
ORPHAN_DEPENDENTS = "OrphanDependents"
UNSUPPORTED = "Unsupported"

# metav1 finalizers of the garbage collector
FINALIZER_ORPHAN_DEPENDENTS = "orphan"
FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion"

_rng = random.SystemRandom()


def generate_name(base: str) -> str:
    """Go's ``names.SimpleNameGenerator.GenerateName``: ``base`` (cut to 58 characters)
    followed by 5 random characters of :data:`NAME_ALPHABET`."""
    if len(base) > _MAX_GENERATED_NAME_LENGTH:
        base = base[:_MAX_GENERATED_NAME_LENGTH]
    return base + "".join(_rng.choice(NAME_ALPHABET) for _ in range(_RANDOM_LENGTH))


def _field():
    from kcodec.validation import field

    return field


def _error_list(errs: Any = ()) -> Any:
    return _field().ErrorList(list(errs or ()))


# ---------------------------------------------------------------------------- strategies

class Strategy:
    """Go's ``RESTCreateStrategy`` + ``RESTUpdateStrategy`` + ``RESTDeleteStrategy``.

    ``scheme`` types the objects (``object_kinds``) and defaults to
    :data:`kcodec.legacyscheme.scheme`. ``namespaced`` answers ``namespace_scoped()``. The
    defaults do what a strategy with empty hooks does in Go: no preparation, metadata
    validation only (:meth:`validate_object_meta`), no create on update, conditional
    updates only.
    """

    namespaced: bool = True
    #: Go's ``names.NameGenerator``; replaceable for deterministic tests.
    name_generator: Callable[[str], str] = staticmethod(generate_name)

    def __init__(self, scheme: Any = None) -> None:
        self._scheme = scheme

    def __repr__(self) -> str:
        return f"{type(self).__name__}(namespaced={self.namespace_scoped()})"

    @property
    def scheme(self) -> Any:
        if self._scheme is None:
            from kcodec import legacyscheme

            self._scheme = legacyscheme.scheme
        return self._scheme

    # runtime.ObjectTyper
    def object_kinds(self, obj: Any) -> tuple[list[Any], bool]:
        if hasattr(obj, "unstructured_content"):
            return [obj.group_version_kind()], False
        return self.scheme.object_kinds(obj)

    # names.NameGenerator
    def generate_name(self, base: str) -> str:
        return self.name_generator(base)

    def namespace_scoped(self) -> bool:
        return self.namespaced

    # RESTCreateStrategy
    def prepare_for_create(self, ctx: Context, obj: Any) -> None:
        """Clear what clients may not set on create (e.g. status), before validation."""

    def validate(self, ctx: Context, obj: Any) -> Any:
        """Field errors of a new object (a :class:`kcodec.validation.field.ErrorList`)."""
        return self.validate_object_meta(obj)

    def warnings_on_create(self, ctx: Context, obj: Any) -> list[str]:
        return []

    def canonicalize(self, obj: Any) -> None:
        """Normalize the object before storing (e.g. sort, lower-case)."""

    # RESTUpdateStrategy
    def allow_create_on_update(self) -> bool:
        return False

    def prepare_for_update(self, ctx: Context, obj: Any, old: Any) -> None:
        """Carry over from ``old`` what the update may not change (e.g. status)."""

    def validate_update(self, ctx: Context, obj: Any, old: Any) -> Any:
        return _error_list()

    def warnings_on_update(self, ctx: Context, obj: Any, old: Any) -> list[str]:
        return []

    def allow_unconditional_update(self) -> bool:
        return False

    # helpers for subclasses
    def name_validation(self, name: str, prefix: bool) -> list[str]:
        """The name rule of the kind (Go's ``ValidateNameFunc``); DNS subdomain by default."""
        from kcodec.validation.names import name_is_dns_subdomain

        return name_is_dns_subdomain(name, prefix)

    def validate_object_meta(self, obj: Any) -> Any:
        """Go's ``ValidateObjectMeta(&obj.ObjectMeta, namespaced, nameFn, field.NewPath("metadata"))``."""
        from kcodec.validation.objectmeta import validate_object_meta

        return _error_list(validate_object_meta(object_meta_of(obj), self.namespace_scoped(),
                                                self.name_validation, _field().Path("metadata")))

    def validate_object_meta_update(self, obj: Any, old: Any) -> Any:
        """Go's ``ValidateObjectMetaUpdate(&new.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))``."""
        from kcodec.validation.objectmeta import validate_object_meta_update

        return _error_list(validate_object_meta_update(object_meta_of(obj), object_meta_of(old),
                                                       _field().Path("metadata")))


GenericStrategy = Strategy


# ---------------------------------------------------------------------------- meta.go

def wipe_object_meta_system_fields(meta: Any) -> None:
    """Go's ``WipeObjectMetaSystemFields``."""
    meta.set_creation_timestamp(None)
    meta.set_uid("")
    meta.set_deletion_timestamp(None)
    meta.set_deletion_grace_period_seconds(None)
    meta.set_self_link("")


def fill_object_meta_system_fields(meta: Any) -> None:
    """Go's ``FillObjectMetaSystemFields``: creationTimestamp now, a new uid (uuid4)."""
    meta.set_creation_timestamp(now())
    meta.set_uid(str(uuid.uuid4()))


def ensure_object_namespace_matches_request_namespace(request_namespace: str, meta: Any) -> None:
    """Go's ``EnsureObjectNamespaceMatchesRequestNamespace``."""
    obj_namespace = meta.get_namespace()
    if obj_namespace == request_namespace:
        return
    if obj_namespace == "":
        meta.set_namespace(request_namespace)
        return
    if request_namespace == "":
        meta.set_namespace("")
        return
    raise apierrors.new_bad_request(
        "the namespace of the provided object does not match the namespace sent on the request")


def expected_namespace_for_scope(request_namespace: str, namespace_scoped: bool) -> str:
    return request_namespace if namespace_scoped else ""


def _meta_and_kind(strategy: Strategy, obj: Any) -> tuple[Any, Any]:
    try:
        kinds, _ = strategy.object_kinds(obj)
    except Exception as exc:  # noqa: BLE001 - Go: errors.NewInternalError(err)
        raise apierrors.new_internal_error(exc) from exc
    if not kinds:
        raise apierrors.new_internal_error(f"no kind is registered for the type {type(obj).__name__}")
    return accessor(obj), kinds[0]


# ---------------------------------------------------------------------------- create.go

def _path_segment(name: str, prefix: bool) -> list[str]:
    from kcodec.validation.names import validate_path_segment_name

    return validate_path_segment_name(name, prefix)


def validate_create(ctx: Context, obj: Any, strategy: Strategy) -> Any:
    """Go's ``ValidateCreate``: the strategy's validation, then (when it passed) the
    generic metadata validation with the path-segment name rule."""
    errs = _error_list(strategy.validate(ctx, obj))
    if not errs:
        from kcodec.validation.objectmeta import validate_object_meta

        errs.extend(validate_object_meta(object_meta_of(obj), strategy.namespace_scoped(), _path_segment,
                                         _field().Path("metadata")))
    return errs


def before_create(strategy: Strategy, ctx: Context, obj: Any) -> None:
    """Go's ``rest.BeforeCreate``: namespace rules, ``prepare_for_create``, validation
    (422 Invalid), warnings (into ``ctx.warnings``) and ``canonicalize``.

    The caller has filled the system fields (uid, creationTimestamp) and generated the
    name, as Go's Store.create does before calling it.
    """
    meta, kind = _meta_and_kind(strategy, obj)
    ts = meta.get_creation_timestamp()
    if not meta.get_uid() or ts is None or ts.is_zero():
        raise apierrors.new_internal_error("system metadata was not initialized")
    if meta.get_generate_name() and not meta.get_name():
        raise apierrors.new_internal_error("metadata.name was not generated")
    if ctx is None or ctx.namespace is None:
        raise apierrors.new_internal_error("no namespace information found in request context")
    ensure_object_namespace_matches_request_namespace(
        expected_namespace_for_scope(ctx.namespace, strategy.namespace_scoped()), meta)
    strategy.prepare_for_create(ctx, obj)
    errs = validate_create(ctx, obj, strategy)
    if errs:
        raise apierrors.new_invalid(GroupKind(kind.group, kind.kind), meta.get_name(), errs)
    for w in strategy.warnings_on_create(ctx, obj) or ():
        ctx.add_warning(w)
    strategy.canonicalize(obj)


def check_generated_name_error(ctx: Context, strategy: Strategy, err: BaseException, obj: Any) -> BaseException:
    """Go's ``CheckGeneratedNameError``: an AlreadyExists of a generated name becomes a
    409 that asks the client to retry after 1 second."""
    if not apierrors.is_already_exists(err):
        return err
    meta, kind = _meta_and_kind(strategy, obj)
    if not meta.get_generate_name():
        return err
    gr = GroupResource("", "")
    if ctx is not None and ctx.request_info is not None:
        gr = GroupResource(kind.group, ctx.request_info.resource)
    return apierrors.new_generate_name_conflict(gr, meta.get_name(), 1)


# ---------------------------------------------------------------------------- update.go

def validate_update(ctx: Context, obj: Any, old: Any, strategy: Strategy) -> Any:
    """Go's ``ValidateUpdate``: metadata (new, and new against old), then the strategy's."""
    from kcodec.validation.objectmeta import validate_object_meta, validate_object_meta_update

    f = _field()
    new_meta, old_meta = object_meta_of(obj), object_meta_of(old)
    errs = _error_list(validate_object_meta(new_meta, strategy.namespace_scoped(), _path_segment, f.Path("metadata")))
    errs.extend(validate_object_meta_update(new_meta, old_meta, f.Path("metadata")))
    errs.extend(strategy.validate_update(ctx, obj, old) or ())
    return errs


def before_update(strategy: Strategy, ctx: Context, obj: Any, old: Any) -> None:
    """Go's ``rest.BeforeUpdate``: namespace rules, generation carried over,
    ``prepare_for_update``, system fields kept from ``old`` (uid when unset,
    creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds), validation (422),
    warnings and ``canonicalize``."""
    meta, kind = _meta_and_kind(strategy, obj)
    if ctx is None or ctx.namespace is None:
        raise apierrors.new_internal_error("no namespace information found in request context")
    ensure_object_namespace_matches_request_namespace(
        expected_namespace_for_scope(ctx.namespace, strategy.namespace_scoped()), meta)
    old_meta = accessor(old)
    meta.set_generation(old_meta.get_generation())
    strategy.prepare_for_update(ctx, obj, old)
    if not meta.get_uid():
        meta.set_uid(old_meta.get_uid())
    old_created = old_meta.get_creation_timestamp()
    if old_created is not None and not old_created.is_zero():
        meta.set_creation_timestamp(old_created)
    if old_meta.get_deletion_timestamp() is not None:
        meta.set_deletion_timestamp(old_meta.get_deletion_timestamp())
    if old_meta.get_deletion_grace_period_seconds() is not None and meta.get_deletion_grace_period_seconds() is None:
        meta.set_deletion_grace_period_seconds(old_meta.get_deletion_grace_period_seconds())
    errs = validate_update(ctx, obj, old, strategy)
    if errs:
        raise apierrors.new_invalid(GroupKind(kind.group, kind.kind), meta.get_name(), errs)
    for w in strategy.warnings_on_update(ctx, obj, old) or ():
        ctx.add_warning(w)
    strategy.canonicalize(obj)


TransformFunc = Callable[[Context, Any, Any], Any]


class DefaultUpdatedObjectInfo:
    """Go's ``rest.DefaultUpdatedObjectInfo(obj, transformers...)``: the update's new object.

    :meth:`updated_object` returns a copy of ``obj`` passed through each
    ``transformer(ctx, new, old) -> new``; :meth:`preconditions` is a UID precondition when
    ``obj`` carries a uid (``None`` otherwise), as Go's.
    """

    def __init__(self, obj: Any, *transformers: TransformFunc) -> None:
        self.obj = obj
        self.transformers = list(transformers)

    def __repr__(self) -> str:
        return f"DefaultUpdatedObjectInfo({type(self.obj).__name__}, transformers={len(self.transformers)})"

    def preconditions(self) -> Any:
        if self.obj is None:
            return None
        uid = accessor(self.obj).get_uid()
        if not uid:
            return None
        from kcodec.api.meta.v1 import Preconditions

        return Preconditions(uid=uid)

    def updated_object(self, ctx: Context, old: Any) -> Any:
        new = self.obj.deep_copy() if self.obj is not None else None
        for transformer in self.transformers:
            new = transformer(ctx, new, old)
        return new


class _WrappedUpdatedObjectInfo:
    def __init__(self, info: Any, transformers: list[TransformFunc]) -> None:
        self.info = info
        self.transformers = transformers

    def preconditions(self) -> Any:
        return self.info.preconditions()

    def updated_object(self, ctx: Context, old: Any) -> Any:
        new = self.info.updated_object(ctx, old)
        for transformer in self.transformers:
            new = transformer(ctx, new, old)
        return new


def wrap_updated_object_info(info: Any, *transformers: TransformFunc) -> Any:
    """Go's ``WrapUpdatedObjectInfo``."""
    return _WrappedUpdatedObjectInfo(info, list(transformers))


def validate_all_objects(ctx: Context, obj: Any) -> None:
    """Go's ``rest.ValidateAllObjectFunc``: admits everything."""


def validate_all_object_updates(ctx: Context, obj: Any, old: Any) -> None:
    """Go's ``rest.ValidateAllObjectUpdateFunc``."""


# ---------------------------------------------------------------------------- delete.go

_PROPAGATION_POLICIES = ("Foreground", "Background", "Orphan")


def validate_delete_options(options: Any) -> Any:
    """apimachinery ``metav1/validation.ValidateDeleteOptions``."""
    f = _field()
    errs = _error_list()
    if options.orphan_dependents is not None and options.propagation_policy is not None:
        errs.append(f.invalid(f.Path("propagationPolicy"), options.propagation_policy,
                              "orphanDependents and deletionPropagation cannot be both set"))
    if options.propagation_policy is not None and options.propagation_policy not in _PROPAGATION_POLICIES:
        errs.append(f.not_supported(f.Path("propagationPolicy"), options.propagation_policy,
                                    ["Foreground", "Background", "Orphan", "nil"]))
    errs.extend(validate_dry_run(f.Path("dryRun"), options.dry_run))
    return errs


def validate_dry_run(path: Any, dry_run: Any) -> Any:
    """apimachinery ``ValidateDryRun``: only ``All`` is allowed."""
    f = _field()
    if any(v != "All" for v in dry_run or ()):
        return _error_list([f.not_supported(path, list(dry_run), ["All"])])
    return _error_list()


def before_delete(strategy: Strategy, ctx: Context, obj: Any, options: Any) -> tuple[bool, bool]:
    """Go's ``rest.BeforeDelete``: ``(graceful, graceful_pending)``.

    Validates ``options`` (422 on DeleteOptions), checks its preconditions against ``obj``
    (409), and for a graceful-delete strategy sets deletionTimestamp and
    deletionGracePeriodSeconds on ``obj`` (or shortens a pending grace period). Mutates
    ``options.grace_period_seconds`` as Go does.
    """
    meta, kind = _meta_and_kind(strategy, obj)
    errs = validate_delete_options(options)
    if errs:
        raise apierrors.new_invalid(GroupKind("meta.k8s.io", "DeleteOptions"), "", errs)
    pre = options.preconditions
    if pre is not None:
        if pre.uid is not None and pre.uid != meta.get_uid():
            raise apierrors.new_conflict(
                GroupResource(kind.group, kind.kind), meta.get_name(),
                f"the UID in the precondition ({pre.uid}) does not match the UID in record ({meta.get_uid()}). "
                "The object might have been deleted and then recreated")
        if pre.resource_version is not None and pre.resource_version != meta.get_resource_version():
            raise apierrors.new_conflict(
                GroupResource(kind.group, kind.kind), meta.get_name(),
                f"the ResourceVersion in the precondition ({pre.resource_version}) does not match the "
                f"ResourceVersion in record ({meta.get_resource_version()}). The object might have been modified")
    if options.grace_period_seconds is not None and options.grace_period_seconds < 0:
        options.grace_period_seconds = 1
    dgps = meta.get_deletion_grace_period_seconds()
    if dgps is not None and dgps < 0:
        meta.set_deletion_grace_period_seconds(1)
    check = getattr(strategy, "check_graceful_delete", None)
    if check is None:
        return False, False
    if meta.get_deletion_timestamp() is not None:
        dgps = meta.get_deletion_grace_period_seconds()
        if dgps is None or dgps == 0:
            return False, False
        if options.grace_period_seconds is not None:
            period = int(options.grace_period_seconds)
            if period >= dgps:
                return False, True
            import datetime

            from kcodec.api.meta.v1 import Time

            current = meta.get_deletion_timestamp().datetime
            new_ts = current - datetime.timedelta(seconds=dgps) + datetime.timedelta(seconds=period)
            right_now = now().datetime
            if new_ts < right_now:
                new_ts = right_now
                if period != 0:
                    period = 1
            meta.set_deletion_timestamp(Time.from_datetime(new_ts))
            meta.set_deletion_grace_period_seconds(period)
            return True, False
        options.grace_period_seconds = dgps
        return False, True
    if not check(ctx, obj, options):
        return False, False
    if options.grace_period_seconds is None:
        raise apierrors.new_internal_error("options.GracePeriodSeconds should not be nil")
    import datetime

    from kcodec.api.meta.v1 import Time

    requested = now().datetime + datetime.timedelta(seconds=int(options.grace_period_seconds))
    meta.set_deletion_timestamp(Time.from_datetime(requested))
    meta.set_deletion_grace_period_seconds(int(options.grace_period_seconds))
    if meta.get_generation() > 0:
        meta.set_generation(meta.get_generation() + 1)
    return True, False


# ---------------------------------------------------------------------------- list options

@dataclass
class ListOptions:
    """Go's ``metainternalversion.ListOptions``: selectors parsed, the rest as given.

    ``label_selector`` / ``field_selector`` are ``kcodec.labels.Selector`` /
    ``kcodec.fields.Selector`` (``None`` means everything); ``continue_`` is the
    continue token; ``send_initial_events`` ``None`` means unset.
    """

    label_selector: Any = None
    field_selector: Any = None
    resource_version: str = ""
    resource_version_match: str = ""
    limit: int = 0
    continue_: str = ""
    watch: bool = False
    allow_watch_bookmarks: bool = False
    send_initial_events: bool | None = None
    timeout_seconds: int | None = None
    extra: dict[str, Any] = dc_field(default_factory=dict)

    @classmethod
    def from_metav1(cls, opts: Any, *, kind: Any = None, scheme: Any = None) -> ListOptions:
        """Parse a ``metav1.ListOptions`` as the endpoint handlers do.

        Selector syntax errors are 400 BadRequest with the parser's text; with ``kind``
        (the GroupVersionKind of the request) each field selector term goes through the
        scheme's field label conversion (``ConvertFieldLabel``), an unsupported label also
        a 400 with Go's text (``field label not supported: spec.foo``).
        """
        from kcodec import fields, labels

        try:
            label_sel = labels.parse(opts.label_selector) if opts.label_selector else None
        except labels.SelectorParseError as exc:
            raise apierrors.new_bad_request(str(exc)) from None
        try:
            field_sel = fields.parse_selector(opts.field_selector) if opts.field_selector else None
        except Exception as exc:  # fields raises its own KCodecError subclass with Go's text
            from kcodec.errors import KCodecError

            if not isinstance(exc, (KCodecError, ValueError)):
                raise
            raise apierrors.new_bad_request(str(exc)) from None
        if field_sel is not None and kind is not None:
            field_sel = convert_field_selector(field_sel, kind, scheme)
        return cls(label_selector=label_sel, field_selector=field_sel,
                   resource_version=opts.resource_version or "",
                   resource_version_match=opts.resource_version_match or "",
                   limit=int(opts.limit or 0), continue_=opts.continue_ or "", watch=bool(opts.watch),
                   allow_watch_bookmarks=bool(opts.allow_watch_bookmarks),
                   send_initial_events=opts.send_initial_events, timeout_seconds=opts.timeout_seconds)


def convert_field_selector(selector: Any, kind: Any, scheme: Any = None) -> Any:
    """Each term of ``selector`` through the scheme's field label conversion for ``kind``
    (the endpoint handlers' ``fieldSelector.Transform(ConvertFieldLabel)``); a label the
    kind does not support is a 400 BadRequest with Go's text."""
    if scheme is None:
        from kcodec import legacyscheme

        scheme = legacyscheme.scheme

    def convert(label: str, value: str) -> tuple[str, str]:
        return scheme.convert_field_label(kind, label, value)

    try:
        return selector.transform(convert)
    except apierrors.StatusError:
        raise
    except Exception as exc:  # noqa: BLE001 - the conversion's error text is the message
        from kcodec.errors import KCodecError

        if not isinstance(exc, (KCodecError, ValueError)):
            raise
        raise apierrors.new_bad_request(str(exc)) from None


# ---------------------------------------------------------------------------- table.go

class DefaultTableConvertor:
    """Go's ``rest.NewDefaultTableConvertor``: columns Name and Created At."""

    _SWAGGER_NAME = ("Name must be unique within a namespace. Is required when creating resources, although some "
                     "resources may allow a client to request the generation of an appropriate name "
                     "automatically. Name is primarily intended for creation idempotence and configuration "
                     "definition. Cannot be updated. More info: "
                     "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names")
    _SWAGGER_CREATED = ("CreationTimestamp is a timestamp representing the server time when this object was "
                        "created. It is not guaranteed to be set in happens-before order across separate "
                        "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
                        "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
                        "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                        "api-conventions.md#metadata")

    def __init__(self, default_qualified_resource: GroupResource) -> None:
        self.default_qualified_resource = default_qualified_resource

    def __repr__(self) -> str:
        return f"DefaultTableConvertor({self.default_qualified_resource})"

    def convert_to_table(self, ctx: Context, obj: Any, table_options: Any = None) -> Any:
        from kcodec.api.meta.v1 import ListMeta, Table, TableColumnDefinition, TableRow
        from kcodec.runtime import RawExtension

        items = list(obj.items) if _is_list(obj) else [obj]
        table = Table(api_version="meta.k8s.io/v1", kind="Table")
        include_object = getattr(table_options, "include_object", "") or "Metadata"
        rows = []
        for item in items:
            m = accessor(item)
            ts = m.get_creation_timestamp()
            created = ts.rfc3339() if ts is not None and not ts.is_zero() else ""
            row = TableRow(cells=[m.get_name(), created])
            if include_object != "None":
                row.object = RawExtension(object=item)
            rows.append(row)
        table.rows = rows
        if not getattr(table_options, "no_headers", False):
            table.column_definitions = [
                TableColumnDefinition(name="Name", type="string", format="name", description=self._SWAGGER_NAME),
                TableColumnDefinition(name="Created At", type="date", description=self._SWAGGER_CREATED),
            ]
        if _is_list(obj):
            lm = getattr(obj, "metadata", None)
            table.metadata = ListMeta(resource_version=getattr(lm, "resource_version", "") or "",
                                      continue_=getattr(lm, "continue_", "") or "",
                                      remaining_item_count=getattr(lm, "remaining_item_count", None))
        else:
            table.metadata = ListMeta(resource_version=accessor(obj).get_resource_version())
        return table


def _is_list(obj: Any) -> bool:
    if hasattr(obj, "is_list"):
        return bool(obj.is_list())
    return hasattr(obj, "items") and isinstance(getattr(obj, "items", None), list)
