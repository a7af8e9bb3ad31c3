"""The REST handlers: create, get, list, update, patch, delete, deletecollection and watch set-up.

Go: k8s.io/apiserver pkg/endpoints/handlers (rest.go RequestScope, create.go, get.go, update.go,
patch.go, delete.go, watch.go, response.go). A handler runs synchronously in a worker thread
(registry and storage calls block on SQLite or etcd) and returns a
:class:`~kcodec.server.responses.Response`; watches return a :class:`WatchPlan` that the HTTP
layer streams without blocking its event loop.

The request path is Go's: decode the body in the request's version and media type (strictly
unless ``fieldValidation=Ignore``), default, convert to the internal version into the storage's
``new()`` object, check the version, name and namespace against the URL, call the registry, and
encode the result in the URL's version (or as a Table / PartialObjectMetadata when ``Accept``
asks) in the negotiated format.
"""
from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from kcodec.api import errors as apierrors
from kcodec.api.meta import v1 as metav1
from kcodec.errors import KCodecError, StrictDecodingError
from kcodec.runtime.parameter_codec import query_values_into_struct
from kcodec.schema import GroupKind, GroupResource, GroupVersion, GroupVersionKind, GroupVersionResource
from kcodec.server.negotiation import (
    MediaTypeOptions,
    NegotiationError,
    media_types_for_serializer,
    negotiate_input_serializer,
    negotiate_output_media_type,
    negotiate_output_media_type_stream,
    not_acceptable_error,
)
from kcodec.server.responses import Request, Response, error_negotiated, write_object_negotiated
from kcodec.validation import field as fieldpath

__all__ = [
    "MAX_REQUEST_BODY_BYTES",
    "META_GROUP_VERSION",
    "RequestScope",
    "WatchPlan",
    "get_resource",
    "list_resource",
    "create_resource",
    "update_resource",
    "delete_resource",
    "delete_collection",
    "run_handler",
    "meta_codecs",
    "prepare_watch",
    "transform_response_object",
    "summarize_data",
    "manager_or_user_agent",
]

#: kube-apiserver's limit on request bodies (``--max-request-bytes``'s 3 MiB default for
#: resources, genericapiserver's MaxRequestBodyBytes).
MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024

#: The group version query parameters and option bodies are written in (scope.MetaGroupVersion).
META_GROUP_VERSION = GroupVersion("meta.k8s.io", "v1")

_NAMESPACE_GVR = GroupVersionResource("", "v1", "namespaces")
_FIELD_MANAGER_MAX_LENGTH = 128


@dataclass
class RequestScope:
    """Everything a handler knows about one served resource (Go's handlers.RequestScope).

    ``kind`` is the external kind the URL's version serves (``apps/v1, Kind=Deployment``;
    ``autoscaling/v1, Kind=Scale`` for a scale subresource under ``apps/v1``), ``hub`` the
    version the registry works in (the internal version, or the storage's own for kinds that
    have none), ``storage`` the registry storage, ``namespaced`` its scope, ``verbs`` the
    Kubernetes verbs it serves (discovery's list; other methods answer 405).
    """

    resource: GroupVersionResource
    kind: GroupVersionKind
    hub: GroupVersion
    storage: Any
    namespaced: bool
    subresource: str = ""
    codecs: Any = None
    scheme: Any = None
    infos: list[Any] = field(default_factory=list)
    meta_infos: list[Any] = field(default_factory=list)
    max_request_body_bytes: int = MAX_REQUEST_BODY_BYTES
    verbs: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        sub = f"/{self.subresource}" if self.subresource else ""
        return f"RequestScope({self.resource.group}/{self.resource.version} {self.resource.resource}{sub} -> {self.kind.kind})"

    @property
    def group_resource(self) -> GroupResource:
        return GroupResource(self.resource.group, self.resource.resource)

    @property
    def table_convertor(self) -> Any:
        return self.storage if callable(getattr(self.storage, "convert_to_table", None)) else None

    # negotiation.EndpointRestrictions (rest.go)
    def allows_media_type_transform(self, mime_type: str, mime_subtype: str, gvk: GroupVersionKind | None) -> bool:
        if gvk is None:
            return True
        if gvk.group == "meta.k8s.io" and gvk.version in ("v1", "v1beta1"):
            if gvk.kind == "Table":
                return self.table_convertor is not None and mime_type == "application" \
                    and mime_subtype in ("json", "yaml")
            return gvk.kind in ("PartialObjectMetadata", "PartialObjectMetadataList")
        return False

    def allows_server_version(self, version: str) -> bool:
        return version == META_GROUP_VERSION.version

    def allows_stream_schema(self, schema: str) -> bool:
        return schema == "watch"

    def err(self, err: BaseException, req: Request) -> Response:
        """``err`` as a Status in the negotiated format (scope.err)."""
        return error_negotiated(err, self.codecs, self.kind.group_version(), req, infos=self.infos)


# ----------------------------------------------------------------------------- helpers


def _context(scope: RequestScope, req: Request, info: Any, namespace: str) -> Any:
    """The registry's request context: namespace, user and what the URL asked for."""
    from kcodec.registry.request import Context

    return Context(namespace=namespace, user=req.user, request_info=info)


def summarize_data(data: bytes, max_length: int) -> str:
    """The start of a body for an error message (rest.go summarizeData)."""
    if not data:
        return "<empty>"
    if data[:1] == b"{":
        text = data[:max_length].decode("utf-8", "replace")
        return text + " ..." if len(data) > max_length else text
    return data[:max_length].hex() + (" ..." if len(data) > max_length else "")


def _sniff_gvk(body: bytes) -> GroupVersionKind | None:
    try:
        from kcodec.serializer.meta import interpret_gvk

        return interpret_gvk(body)
    except (KCodecError, ValueError, RecursionError):
        return None


def _transform_decode_error(scope: RequestScope, err: BaseException, gvk: GroupVersionKind | None,
                            body: bytes) -> apierrors.StatusError:
    """A decode failure as Go words it (rest.go transformDecodeError)."""
    want = scope.kind.kind
    if gvk is not None and gvk.kind:
        return apierrors.new_bad_request(
            f"{gvk.kind} in version {_go_q(gvk.version)} cannot be handled as a {want}: {err}")
    return apierrors.new_bad_request(
        f"the object provided is unrecognized (must be of type {want}): {err} ({summarize_data(body, 30)})")


def _go_q(s: str) -> str:
    from kcodec.gofmt import quote

    return quote(s)


def _decode_query(req: Request, into: Any) -> Any:
    try:
        query_values_into_struct(req.query, into)
    except (KCodecError, ValueError) as err:
        raise apierrors.new_bad_request(str(err)) from None
    return into


def _invalid_options(kind: str, errs: list[Any]) -> apierrors.StatusError:
    return apierrors.new_invalid(GroupKind("meta.k8s.io", kind), "", fieldpath.ErrorList(errs))


def _validate_field_manager(manager: str) -> list[Any]:
    errs = []
    if len(manager.encode()) > _FIELD_MANAGER_MAX_LENGTH:
        errs.append(fieldpath.too_long(fieldpath.Path("fieldManager"), "", _FIELD_MANAGER_MAX_LENGTH))
    for i, ch in enumerate(manager):
        if not ch.isprintable() and ch != " ":
            errs.append(fieldpath.invalid(fieldpath.Path("fieldManager"), manager,
                                          f"invalid character {_go_unicode(ch)} (at position {i})"))
    return errs


def _go_unicode(ch: str) -> str:
    # fmt's %#U: U+0007 followed by the quoted character when printable.
    code = f"U+{ord(ch):04X}"
    return f"{code} '{ch}'" if ch.isprintable() else code


def _validate_dry_run(dry_run: list[str] | None) -> list[Any]:
    if dry_run and any(v != "All" for v in dry_run):
        return [fieldpath.not_supported(fieldpath.Path("dryRun"), dry_run, ["All"])]
    return []


def _validate_field_validation(value: str) -> list[Any]:
    if value not in ("", "Ignore", "Strict", "Warn"):
        return [fieldpath.not_supported(fieldpath.Path("fieldValidation"), value, ["", "Ignore", "Strict", "Warn"])]
    return []


def manager_or_user_agent(manager: str, user_agent: str) -> str:
    """The field manager, or the user agent's product up to 128 bytes (managerOrUserAgent)."""
    if manager:
        return manager
    out = []
    size = 0
    for ch in user_agent.split("/")[0]:
        if not ch.isprintable():
            continue
        n = len(ch.encode())
        if size + n > _FIELD_MANAGER_MAX_LENGTH:
            break
        out.append(ch)
        size += n
    return "".join(out)


def _negotiate_output(scope: RequestScope, req: Request) -> MediaTypeOptions:
    media, _ = negotiate_output_media_type(req.accept, scope.infos, scope, query=req.query,
                                           user_agent=req.user_agent)
    return media


def _decode_body(scope: RequestScope, req: Request, directive: str, warnings: list[str]) -> tuple[Any, GroupVersionKind]:
    """Decode the request body into a new storage object in the hub version (create.go/update.go)."""
    s = negotiate_input_serializer(req.header("Content-Type"), scope.infos)
    body = req.body
    decode_serializer = s.strict_serializer if directive in ("Warn", "Strict") and s.strict_serializer \
        else s.serializer
    decoder = scope.codecs.decoder_to_version(decode_serializer, scope.hub)
    original = scope.storage.new()
    try:
        obj, gvk = decoder.decode(body, scope.kind, original)
    except StrictDecodingError as err:
        if err.obj is not None and directive == "Warn":
            warnings.extend(_strict_warnings(err.errors))
            return err.obj, err.gvk
        raise _transform_decode_error(scope, err, err.gvk or _sniff_gvk(body), body) from None
    except RecursionError:
        raise _transform_decode_error(scope, KCodecError("exceeded max depth"), None, body) from None
    except (KCodecError, ValueError, TypeError, OverflowError) as err:
        gvk = getattr(err, "gvk", None) or _sniff_gvk(body)
        raise _transform_decode_error(scope, err, gvk, body) from None
    return obj, gvk


def _strict_warnings(errors: list[str]) -> list[str]:
    """Each strict error a warning; YAML's multi-line report split as Go's parseYAMLWarnings splits it."""
    out: list[str] = []
    for e in errors:
        for prefix in ("yaml: unmarshal errors:\n", "error converting YAML to JSON: yaml: unmarshal errors:\n"):
            if e.startswith(prefix):
                out.extend(line.strip() for line in e[len(prefix):].split("\n"))
                break
        else:
            out.append(e)
    return out


def _check_group_version(scope: RequestScope, gvk: GroupVersionKind) -> None:
    obj_gv = gvk.group_version()
    want = scope.kind.group_version()
    if obj_gv != want:
        raise apierrors.new_bad_request(f"the API version in the data ({obj_gv}) does not match the "
                                        f"expected API version ({want})")


def _object_meta(obj: Any) -> Any:
    """The object's ObjectMeta; for an Unstructured object (a custom resource) a view whose
    attributes read and write its ``metadata`` map."""
    if hasattr(obj, "unstructured_content") and hasattr(obj, "get_name"):
        return _UnstructuredMeta(obj)
    return getattr(obj, "metadata", None)


class _UnstructuredMeta:
    """ObjectMeta's attributes over an Unstructured object (Go's meta.Accessor)."""

    __slots__ = ("_obj",)
    _FIELDS = {"name": "name", "namespace": "namespace", "uid": "uid", "generate_name": "generateName",
               "self_link": "selfLink", "resource_version": "resourceVersion"}

    def __init__(self, obj: Any) -> None:
        object.__setattr__(self, "_obj", obj)

    def _meta(self) -> dict[str, Any]:
        content = self._obj.unstructured_content()
        meta = content.get("metadata")
        if not isinstance(meta, dict):
            meta = content["metadata"] = {}
        return meta

    def __getattr__(self, name: str) -> Any:
        if name in self._FIELDS:
            return self._meta().get(self._FIELDS[name], "") or ""
        if name == "creation_timestamp":
            return self._obj.get_creation_timestamp()
        if name == "deletion_timestamp":
            return self._obj.get_deletion_timestamp()
        if name == "deletion_grace_period_seconds":
            return self._obj.get_deletion_grace_period_seconds()
        if name == "labels":
            return self._obj.get_labels()
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        meta = self._meta()
        if name in self._FIELDS:
            if value:
                meta[self._FIELDS[name]] = value
            else:
                meta.pop(self._FIELDS[name], None)
        elif name == "creation_timestamp":
            if value is None or value.is_zero():
                meta.pop("creationTimestamp", None)
            else:
                self._obj.set_creation_timestamp(value)
        elif name == "deletion_timestamp":
            self._obj.set_deletion_timestamp(value)
        elif name == "deletion_grace_period_seconds":
            self._obj.set_deletion_grace_period_seconds(value)
        else:
            raise AttributeError(name)

    def to_object_meta(self) -> Any:
        return metav1.ObjectMeta.from_dict(dict(self._meta()))


def _has_uid(obj: Any) -> bool:
    meta = _object_meta(obj) if obj is not None else None
    return bool(meta is not None and meta.uid)


def _check_name(obj: Any, name: str, namespace: str) -> None:
    """The object's name and namespace against the URL's (rest.go checkName)."""
    meta = _object_meta(obj)
    obj_name = meta.name if meta is not None else ""
    obj_ns = meta.namespace if meta is not None else ""
    if obj_name != name:
        raise apierrors.new_bad_request(
            f"the name of the object ({obj_name}) does not match the name on the URL ({name})")
    if namespace and obj_ns and obj_ns != namespace:
        raise apierrors.new_bad_request(
            f"the namespace of the object ({obj_ns}) does not match the namespace on the request ({namespace})")


def _expected_namespace(namespace: str, scope: RequestScope) -> str:
    r = scope.resource
    return "" if (r.resource == "namespaces" and r.group == "") else namespace


def _ensure_namespace(request_ns: str, obj: Any) -> None:
    """rest.EnsureObjectNamespaceMatchesRequestNamespace."""
    meta = _object_meta(obj)
    if meta is None:
        return
    if meta.namespace == request_ns:
        return
    if not meta.namespace:
        meta.namespace = request_ns
        return
    if not request_ns:
        return
    raise apierrors.new_bad_request(
        "the namespace of the provided object does not match the namespace sent on the request")


def _wipe_system_fields(obj: Any) -> None:
    """rest.WipeObjectMetaSystemFields: what clients may not set on create."""
    meta = _object_meta(obj)
    if meta is None:
        return
    from kcodec.api.meta.v1 import Time

    meta.creation_timestamp = Time._zero()
    meta.uid = ""
    meta.deletion_timestamp = None
    meta.deletion_grace_period_seconds = None
    meta.self_link = ""


def _finish(scope: RequestScope, req: Request, ctx: Any, code: int, media: MediaTypeOptions, result: Any,
            warnings: list[str]) -> Response:
    resp = transform_response_object(scope, req, code, media, result, ctx)
    resp.warnings = warnings + [w for w in getattr(ctx, "warnings", ()) if w not in warnings]
    return resp


def run_handler(scope: RequestScope, req: Request, fn: Callable[[], Any]) -> Any:
    """Call a handler body; a raised error becomes its Status in the negotiated format.

    Anything that is not an API error is a bug: it is logged with its traceback (by
    error_to_api_status) and answered as Go answers a plain error, a 500 Status.
    """
    try:
        return fn()
    except (apierrors.StatusError, NegotiationError) as err:
        return scope.err(err, req)
    except Exception as err:  # noqa: BLE001 - the 500 Status of ErrorToAPIStatus
        return scope.err(err, req)


_meta_lock = threading.Lock()
_meta: list[Any] = []


def meta_codecs() -> Any:
    """The CodecFactory of the meta kinds (Go's metainternalversionscheme.Codecs).

    DeleteOptions and the other option kinds in ``meta.k8s.io/v1`` and (as kubectl writes
    them) ``v1``; Table, TableOptions and PartialObjectMetadata(List).
    """
    if not _meta:
        with _meta_lock:
            if not _meta:
                from kcodec.runtime.scheme import Scheme
                from kcodec.serializer.factory import CodecFactory

                s = Scheme("kcodec.server.meta")
                metav1.add_to_group_version(s, META_GROUP_VERSION)
                metav1.add_to_group_version(s, GroupVersion("", "v1"))
                metav1.add_meta_to_scheme(s)
                _meta.append(CodecFactory(s))
    return _meta[0]


# ----------------------------------------------------------------------------- transforms


def _options_for_transform(media: MediaTypeOptions, req: Request) -> Any:
    target = media.convert
    if target is not None and target.kind == "Table" and target.group == "meta.k8s.io" \
            and target.version in ("v1", "v1beta1"):
        opts = _decode_query(req, metav1.TableOptions())
        if opts.include_object not in ("Metadata", "None", "Object", ""):
            err = fieldpath.invalid(fieldpath.Path("includeObject"), opts.include_object,
                                    "must be 'Metadata', 'Object', 'None', or empty")
            raise apierrors.new_bad_request(f"Unable to convert to Table as requested: {err.error()}")
        return opts
    return None


def _is_list(obj: Any) -> bool:
    return isinstance(getattr(obj, "items", None), list) or (
        hasattr(obj, "items") and hasattr(obj, "metadata") and isinstance(getattr(obj, "metadata", None), metav1.ListMeta))


def _partial(obj: Any, gv: GroupVersion) -> Any:
    meta = _object_meta(obj)
    if isinstance(meta, _UnstructuredMeta):
        meta = meta.to_object_meta()
    return metav1.PartialObjectMetadata(kind="PartialObjectMetadata", api_version=str(gv),
                                        metadata=copy.copy(meta) if meta is not None else metav1.ObjectMeta())


def _as_table(scope: RequestScope, ctx: Any, result: Any, opts: Any, gv: GroupVersion) -> Any:
    if gv != META_GROUP_VERSION and gv != GroupVersion("meta.k8s.io", "v1beta1"):
        raise NegotiationError(406, "NotAcceptable", f"no Table exists in group version {gv}")
    table = scope.storage.convert_to_table(ctx, result, opts)
    for row in table.rows or ():
        ext = row.object
        obj = getattr(ext, "object", None) if ext is not None else None
        if obj is None:
            continue
        include = opts.include_object
        if include == "Object":
            row.object = type(ext)(None, scope.scheme.convert_to_version(obj, scope.kind.group_version()))
        elif include in ("Metadata", ""):
            row.object = type(ext)(None, _partial(obj, gv))
        elif include == "None":
            row.object = type(ext)()
    table.kind = "Table"
    table.api_version = str(gv)
    return table


def _as_partial_list(result: Any, gv: GroupVersion) -> Any:
    if not _is_list(result):
        raise NegotiationError(406, "NotAcceptable", "you requested PartialObjectMetadataList, but the requested "
                               f"object is not a list ({type(result).__name__})")
    if gv != META_GROUP_VERSION:
        raise NegotiationError(406, "NotAcceptable", f"no PartialObjectMetadataList exists in group version {gv}")
    lm = result.metadata
    items = [_partial(item, gv) for item in result.items or ()]
    for item in items:
        item.kind = ""
        item.api_version = ""
    return metav1.PartialObjectMetadataList(
        kind="PartialObjectMetadataList", api_version=str(gv),
        metadata=metav1.ListMeta(resource_version=lm.resource_version, continue_=lm.continue_,
                                 remaining_item_count=lm.remaining_item_count),
        items=items)


def do_transform_object(scope: RequestScope, ctx: Any, obj: Any, opts: Any, target: GroupVersionKind | None) -> Any:
    """The object to answer with for the requested conversion target (response.go doTransformObject)."""
    if isinstance(obj, metav1.Status) or target is None:
        return obj
    gv = target.group_version()
    if target.kind == "PartialObjectMetadata":
        if _is_list(obj):
            raise NegotiationError(406, "NotAcceptable", "you requested PartialObjectMetadata, but the requested "
                                   f"object is a list ({type(obj).__name__})")
        if gv != META_GROUP_VERSION and gv != GroupVersion("meta.k8s.io", "v1beta1"):
            raise NegotiationError(406, "NotAcceptable", f"no PartialObjectMetadataList exists in group version {gv}")
        return _partial(obj, gv)
    if target.kind == "PartialObjectMetadataList":
        return _as_partial_list(obj, gv)
    if target.kind == "Table":
        return _as_table(scope, ctx, obj, opts, gv)
    raise not_acceptable_error(media_types_for_serializer(scope.meta_infos)[0])


def transform_response_object(scope: RequestScope, req: Request, status_code: int, media: MediaTypeOptions,
                              result: Any, ctx: Any = None) -> Response:
    """Encode ``result`` as the request asked (response.go transformResponseObject)."""
    try:
        opts = _options_for_transform(media, req)
        if _is_list(result) and not result.items:
            result.items = []
        obj = do_transform_object(scope, ctx, result, opts, media.convert)
    except (apierrors.StatusError, NegotiationError) as err:
        return scope.err(err, req)
    target = media.convert
    if target is not None and target.group == "meta.k8s.io" and target.kind in (
            "PartialObjectMetadata", "PartialObjectMetadataList", "Table"):
        return write_object_negotiated(scope.codecs, scope, target.group_version(), req, status_code, obj,
                                       infos=scope.meta_infos)
    return write_object_negotiated(scope.codecs, scope, scope.kind.group_version(), req, status_code, obj,
                                   infos=scope.infos)


# ----------------------------------------------------------------------------- get / list


def get_resource(scope: RequestScope, req: Request, info: Any) -> Response:
    """GET of one object (get.go GetResource)."""
    def run() -> Response:
        ns = info.namespace if scope.namespaced else ""
        ctx = _context(scope, req, info, ns)
        media = _negotiate_output(scope, req)
        exports = req.query.get("export")
        if exports:
            if exports[0].lower() not in ("0", "f", "false"):
                raise apierrors.new_bad_request("the export parameter, deprecated since v1.14, is no longer supported")
        options = _decode_query(req, metav1.GetOptions())
        result = scope.storage.get(ctx, info.name, options)
        return _finish(scope, req, ctx, 200, media, result, [])
    return run_handler(scope, req, run)


def _list_options(scope: RequestScope, req: Request, info: Any, *, force_watch: bool = False) -> Any:
    """Query parameters to the registry's ListOptions, validated (get.go listOpts)."""
    import kcodec.fields as fields
    import kcodec.labels as labels
    from kcodec.registry.rest import ListOptions

    raw = _decode_query(req, metav1.ListOptions())
    watch = raw.watch or force_watch
    errs = _validate_list_options(raw, watch)
    if errs:
        raise _invalid_options("ListOptions", errs)
    try:
        label_selector = labels.parse(raw.label_selector)
    except KCodecError as err:
        raise apierrors.new_bad_request(str(err)) from None
    try:
        field_selector = fields.parse_selector(raw.field_selector)
    except KCodecError as err:
        raise apierrors.new_bad_request(str(err)) from None
    if not field_selector.empty():
        try:
            field_selector = field_selector.transform(
                lambda label, value: scope.scheme.convert_field_label(scope.kind, label, value))
        except KCodecError as err:
            raise apierrors.new_bad_request(str(err)) from None
    if info.name:
        if not field_selector.empty():
            selected, ok = field_selector.requires_exact_match("metadata.name")
            if not ok or selected != info.name:
                raise apierrors.new_bad_request("fieldSelector metadata.name doesn't match requested name")
        else:
            field_selector = fields.one_term_equal_selector("metadata.name", info.name)
    return ListOptions(label_selector=label_selector, field_selector=field_selector,
                       resource_version=raw.resource_version, resource_version_match=raw.resource_version_match,
                       limit=raw.limit, continue_=raw.continue_, watch=watch,
                       allow_watch_bookmarks=raw.allow_watch_bookmarks,
                       send_initial_events=raw.send_initial_events, timeout_seconds=raw.timeout_seconds)


def _validate_list_options(o: Any, watch: bool) -> list[Any]:
    """metainternalversion/validation ValidateListOptions (WatchList enabled, as in 1.36)."""
    P = fieldpath.Path
    errs: list[Any] = []
    match = o.resource_version_match
    if watch:
        if o.send_initial_events is not None and match != "NotOlderThan":
            errs.append(fieldpath.forbidden(P("resourceVersionMatch"),
                                            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
        if match:
            if o.send_initial_events is None:
                errs.append(fieldpath.forbidden(P("resourceVersionMatch"), "resourceVersionMatch is forbidden for "
                                                "watch unless sendInitialEvents is provided"))
            if match != "NotOlderThan":
                errs.append(fieldpath.not_supported(P("resourceVersionMatch"), match, ["NotOlderThan"]))
            if o.continue_:
                errs.append(fieldpath.forbidden(P("resourceVersionMatch"),
                                                "resourceVersionMatch is forbidden when continue is provided"))
        return errs
    if match:
        if not o.resource_version:
            errs.append(fieldpath.forbidden(P("resourceVersionMatch"),
                                            "resourceVersionMatch is forbidden unless resourceVersion is provided"))
        if o.continue_:
            errs.append(fieldpath.forbidden(P("resourceVersionMatch"),
                                            "resourceVersionMatch is forbidden when continue is provided"))
        if match not in ("Exact", "NotOlderThan"):
            errs.append(fieldpath.not_supported(P("resourceVersionMatch"), match, ["Exact", "NotOlderThan", ""]))
        if match == "Exact" and o.resource_version == "0":
            errs.append(fieldpath.forbidden(P("resourceVersionMatch"),
                                            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
    if o.send_initial_events is not None:
        errs.append(fieldpath.forbidden(P("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
    return errs


def list_resource(scope: RequestScope, req: Request, info: Any) -> Response | WatchPlan:
    """GET of a collection: a list, or a watch when ``watch=true`` (get.go ListResource)."""
    try:
        ns = info.namespace if scope.namespaced else ""
        ctx = _context(scope, req, info, ns)
        media = _negotiate_output(scope, req)
        opts = _list_options(scope, req, info)
        if opts.watch:
            return prepare_watch(scope, req, ctx, opts, media)
        result = scope.storage.list(ctx, opts)
        return _finish(scope, req, ctx, 200, media, result, [])
    except Exception as err:  # noqa: BLE001 - every failure is a Status (500 for bugs)
        return scope.err(err, req)


# ----------------------------------------------------------------------------- create / update


def create_resource(scope: RequestScope, req: Request, info: Any, *, include_name: bool = False) -> Response:
    """POST (create.go createHandler); ``include_name`` for subresources named in the URL (binding, eviction)."""
    def run() -> Response:
        namespace = info.namespace if scope.namespaced else ""
        name = info.name if include_name else ""
        media = _negotiate_output(scope, req)
        options = _decode_query(req, metav1.CreateOptions())
        errs = _validate_field_manager(options.field_manager) + _validate_dry_run(options.dry_run) \
            + _validate_field_validation(options.field_validation)
        if errs:
            raise _invalid_options("CreateOptions", errs)
        options.kind, options.api_version = "CreateOptions", "meta.k8s.io/v1"
        directive = options.field_validation or "Warn"
        warnings: list[str] = []
        obj, gvk = _decode_body(scope, req, directive, warnings)
        _check_group_version(scope, gvk)
        if not name:
            meta = _object_meta(obj)
            name = meta.name if meta is not None else ""
        if not namespace and scope.resource == _NAMESPACE_GVR:
            namespace = name
        ctx = _context(scope, req, info, namespace)
        if _object_meta(obj) is not None:
            if not (scope.subresource and getattr(scope.storage, "preserve_request_object_meta_system_fields_on_subresource_create", lambda: False)()):
                _wipe_system_fields(obj)
            _ensure_namespace(_expected_namespace(namespace, scope), obj)
        options.field_manager = manager_or_user_agent(options.field_manager, req.user_agent)
        if include_name:
            result = scope.storage.create(ctx, name, obj, None, options)
        else:
            from kcodec.server.fieldmanager import update_managed_fields

            obj = update_managed_fields(scope, None, obj, options.field_manager)
            result = scope.storage.create(ctx, obj, None, options)
        code = 201
        if isinstance(result, metav1.Status) and not result.code:
            result.code = code
        return _finish(scope, req, ctx, code, media, result, warnings)
    return run_handler(scope, req, run)


def update_resource(scope: RequestScope, req: Request, info: Any) -> Response:
    """PUT (update.go UpdateResource): 200, or 201 when the update created the object."""
    def run() -> Response:
        from kcodec.registry.rest import DefaultUpdatedObjectInfo

        namespace = info.namespace if scope.namespaced else ""
        name = info.name
        media = _negotiate_output(scope, req)
        options = _decode_query(req, metav1.UpdateOptions())
        errs = _validate_field_manager(options.field_manager) + _validate_dry_run(options.dry_run) \
            + _validate_field_validation(options.field_validation)
        if errs:
            raise _invalid_options("UpdateOptions", errs)
        options.kind, options.api_version = "UpdateOptions", "meta.k8s.io/v1"
        directive = options.field_validation or "Warn"
        warnings: list[str] = []
        obj, gvk = _decode_body(scope, req, directive, warnings)
        _check_group_version(scope, gvk)
        _check_name(obj, name, namespace)
        ctx = _context(scope, req, info, namespace)
        _ensure_namespace(_expected_namespace(namespace, scope), obj)
        options.field_manager = manager_or_user_agent(options.field_manager, req.user_agent)
        from kcodec.server.fieldmanager import update_managed_fields

        manager = options.field_manager

        def track(_ctx: Any, new: Any, live: Any) -> Any:
            # update.go: the field manager is the update's last transformer
            return update_managed_fields(scope, live if _has_uid(live) else None, new, manager)
        result, created = scope.storage.update(ctx, name, DefaultUpdatedObjectInfo(obj, track), None, None, False,
                                               options)
        return _finish(scope, req, ctx, 201 if created else 200, media, result, warnings)
    return run_handler(scope, req, run)


# ----------------------------------------------------------------------------- delete


def _delete_options(scope: RequestScope, req: Request) -> Any:
    options = metav1.DeleteOptions()
    body = req.body
    if body:
        s = negotiate_input_serializer(req.header("Content-Type"), meta_codecs().supported_media_types())
        default = GroupVersionKind("meta.k8s.io", "v1", "DeleteOptions")
        try:
            obj, _ = s.serializer.decode(body, default, options)
        except RecursionError:
            raise apierrors.new_bad_request("exceeded max depth") from None
        except (KCodecError, ValueError, TypeError, OverflowError) as err:
            raise apierrors.new_bad_request(str(err)) from None
        if not isinstance(obj, metav1.DeleteOptions):
            raise apierrors.new_bad_request("decoded object cannot be converted to DeleteOptions")
        options = obj
    else:
        _decode_query(req, options)
    options.ignore_store_read_error_with_cluster_breaking_potential = None
    errs: list[Any] = []
    if options.orphan_dependents is not None and options.propagation_policy is not None:
        errs.append(fieldpath.invalid(fieldpath.Path("propagationPolicy"), options.propagation_policy,
                                      "orphanDependents and deletionPropagation cannot be both set"))
    if options.propagation_policy is not None and options.propagation_policy not in ("Foreground", "Background", "Orphan"):
        errs.append(fieldpath.not_supported(fieldpath.Path("propagationPolicy"), options.propagation_policy,
                                            ["Foreground", "Background", "Orphan", "nil"]))
    errs += _validate_dry_run(options.dry_run)
    if errs:
        raise _invalid_options("DeleteOptions", errs)
    options.kind, options.api_version = "DeleteOptions", "meta.k8s.io/v1"
    return options


def delete_resource(scope: RequestScope, req: Request, info: Any) -> Response:
    """DELETE of one object (delete.go DeleteResource)."""
    def run() -> Response:
        namespace = info.namespace if scope.namespaced else ""
        ctx = _context(scope, req, info, namespace)
        media = _negotiate_output(scope, req)
        options = _delete_options(scope, req)
        result, deleted = scope.storage.delete(ctx, info.name, None, options)
        status = 200
        if not deleted and options.orphan_dependents is not None and not options.orphan_dependents:
            status = 202
        if result is None:
            result = metav1.Status(status="Success", code=status,
                                   details=metav1.StatusDetails(name=info.name, kind=scope.kind.kind))
        return _finish(scope, req, ctx, status, media, result, [])
    return run_handler(scope, req, run)


def delete_collection(scope: RequestScope, req: Request, info: Any) -> Response:
    """DELETE of a collection (delete.go DeleteCollection)."""
    def run() -> Response:
        namespace = info.namespace if scope.namespaced else ""
        ctx = _context(scope, req, info, namespace)
        media = _negotiate_output(scope, req)
        list_options = _list_options(scope, req, info)
        options = _delete_options(scope, req)
        result = scope.storage.delete_collection(ctx, None, options, list_options)
        if result is None:
            result = metav1.Status(status="Success", code=200,
                                   details=metav1.StatusDetails(kind=scope.resource.resource))
        return _finish(scope, req, ctx, 200, media, result, [])
    return run_handler(scope, req, run)


# ----------------------------------------------------------------------------- watch


@dataclass
class WatchPlan:
    """A watch ready to stream (watch.go serveWatchHandler's WatchServer).

    ``encode(event)`` gives the framed bytes of one event (WatchEvent with the object in the
    URL's version, or converted to Table/PartialObjectMetadata); ``timeout`` is in seconds
    (always positive); the HTTP layer drives ``watcher`` and calls ``watcher.stop()`` when done.
    """

    watcher: Any
    media_type: str
    encode: Callable[[Any], bytes]
    timeout: float
    scope: RequestScope


def _event_fields(event: Any) -> tuple[str, Any]:
    typ = getattr(event, "type", None)
    obj = getattr(event, "object", None)
    if typ is None and isinstance(event, tuple):
        typ, obj = event[0], event[1]
    return str(getattr(typ, "value", typ)), obj


def prepare_watch(scope: RequestScope, req: Request, ctx: Any, opts: Any, media: MediaTypeOptions) -> WatchPlan:
    """Negotiate the stream format and start the registry watch (get.go handleWatch, watch.go serveWatchHandler)."""
    import random

    table_opts = _options_for_transform(media, req)
    info = negotiate_output_media_type_stream(req.accept, scope.infos, scope)
    stream = info.stream_serializer
    assert stream is not None  # negotiate_output_media_type_stream only accepts streaming types
    media_type = info.media_type
    if media_type == "application/json":
        pass
    elif media_type == "application/cbor":
        media_type = "application/cbor-seq"
    else:
        media_type += ";stream=watch"
    target = media.convert
    if target is not None and target.group == "meta.k8s.io" and target.kind in (
            "PartialObjectMetadata", "PartialObjectMetadataList", "Table"):
        minfo = next((i for i in scope.meta_infos if i.media_type == info.media_type), None)
        if minfo is None:
            raise NegotiationError(406, "NotAcceptable", f"no encoder for {info.media_type!r} exists in the requested target")
        embedded = scope.codecs.encoder_for_version(minfo.serializer, target.group_version())
    else:
        embedded = scope.codecs.encoder_for_version(info.serializer, scope.kind.group_version())
    framed = stream.serializer
    framer = stream.framer
    timeout = float(opts.timeout_seconds) if opts.timeout_seconds is not None else 0.0
    if timeout == 0:
        # minRequestTimeout (1800 s) times a random factor in [1, 2), as Go spreads reconnects.
        timeout = 1800.0 * (random.random() + 1.0)
    elif timeout < 0:
        # Go's context.WithTimeout with a negative duration: already expired, an empty stream
        timeout = 1e-9
    headers_sent = [False]

    def encode(event: Any) -> bytes:
        typ, obj = _event_fields(event)
        result = obj
        if target is not None and not isinstance(obj, metav1.Status):
            try:
                result = do_transform_object(scope, ctx, obj, table_opts, target)
                if target.kind == "Table":
                    # watchEmbeddedEncoder: the column definitions go with the first event only
                    if headers_sent[0]:
                        result.column_definitions = None
                    headers_sent[0] = True
            except (apierrors.StatusError, NegotiationError, KCodecError):
                result = obj
        if isinstance(result, metav1.Status):
            raw = scope.codecs.encoder_for_version(info.serializer, GroupVersion("", "v1")).encode(result)
        else:
            raw = embedded.encode(result)
        from kcodec.runtime.types import RawExtension

        out = framed.encode(metav1.WatchEvent(type=typ, object=RawExtension(raw)))
        return _frame(framer, out)

    watcher = scope.storage.watch(ctx, opts)
    return WatchPlan(watcher, media_type, encode, timeout, scope)


def _frame(framer: Any, data: bytes) -> bytes:
    import io

    buf = io.BytesIO()
    writer = framer.new_frame_writer(buf)
    writer.write(data)
    return buf.getvalue()
