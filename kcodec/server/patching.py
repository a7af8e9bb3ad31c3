"""PATCH: JSON patch, merge patch and strategic merge patch applied to the stored object.

Go: k8s.io/apiserver pkg/endpoints/handlers/patch.go (PatchResource, jsonPatcher, smpPatcher,
applyPatchToObject, interpretStrategicMergePatchError). The patch is applied inside the
registry's update (so a conflict retries it against the newer object): the current object is
written in the URL's version, patched as a JSON tree by :mod:`kcodec.patch`, decoded back
(strictly unless ``fieldValidation=Ignore``), defaulted and converted to the hub version, and
checked against the URL's name and namespace.
"""
from __future__ import annotations

from typing import Any

from kcodec import gojson
from kcodec.api import errors as apierrors
from kcodec.api.meta import v1 as metav1
from kcodec.errors import KCodecError, StrictDecodingError
from kcodec.model import from_tree, to_tree
from kcodec.schema import GroupKind, GroupResource
from kcodec.server import handlers as h
from kcodec.server.negotiation import unsupported_media_type_error
from kcodec.server.responses import Request, Response
from kcodec.validation import field as fieldpath

__all__ = ["PATCH_TYPES", "MAX_JSON_PATCH_OPERATIONS", "patch_resource"]

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"

#: The patch media types served for built-in kinds (server-side apply is not served yet).
PATCH_TYPES: tuple[str, ...] = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH)

#: patch.go maxJSONPatchOperations.
MAX_JSON_PATCH_OPERATIONS = 10000


def _invalid_patch(value: str, err: Any) -> apierrors.StatusError:
    return apierrors.new_invalid(GroupKind("", ""), "", fieldpath.ErrorList(
        [fieldpath.invalid(fieldpath.Path("patch"), value, str(err))]))


def _strict_text(errors: list[str]) -> str:
    return str(StrictDecodingError(list(errors)))


def _loads_patch(body: bytes, strict: bool) -> tuple[Any, list[str]]:
    """The patch document as a tree, and its strict findings (duplicate fields) when ``strict``.

    Numbers keep their JSON text (``literals``), as Go splices the patch's raw bytes in; a
    document with a repeated key is read as Go's decoders read it, the last value winning.
    """
    try:
        plain = gojson.loads(body, strict=True)
        errs: list[str] = []
        _collect_duplicates(plain, "", errs)
        tree = plain if errs else gojson.loads(body, literals=True)
    except (KCodecError, ValueError, RecursionError) as err:
        raise apierrors.new_bad_request(f"error decoding patch: {err}") from None
    return tree, errs if strict else []


def _collect_duplicates(tree: Any, path: str, out: list[str]) -> None:
    stack = [(tree, path)]
    while stack:
        node, p = stack.pop()
        if isinstance(node, dict):
            for d in getattr(node, "duplicates", ()) or ():
                out.append(f'duplicate field "{p + "." if p else ""}{d}"')
            for k, v in node.items():
                stack.append((v, f"{p}.{k}" if p else str(k)))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                stack.append((v, f"{p}[{i}]"))


def _decode_patched(scope: h.RequestScope, decoder: Any, patched_js: bytes, directive: str, applied: list[str],
                    warnings: list[str]) -> Any:
    obj = scope.storage.new()
    try:
        obj, _ = decoder.decode(patched_js, None, obj)
    except StrictDecodingError as err:
        if err.obj is None:
            raise _invalid_patch(patched_js.decode("utf-8", "replace"), err) from None
        if directive == "Warn":
            warnings.extend(h._strict_warnings(applied + list(err.errors)))
            return err.obj
        raise _invalid_patch(patched_js.decode("utf-8", "replace"), _strict_text(applied + list(err.errors))) from None
    except (KCodecError, ValueError, TypeError, RecursionError) as err:
        raise _invalid_patch(patched_js.decode("utf-8", "replace"), err) from None
    if applied:
        if directive == "Warn":
            warnings.extend(h._strict_warnings(applied))
        else:
            raise _invalid_patch(patched_js.decode("utf-8", "replace"), _strict_text(applied))
    return obj


def _patch_error(err: BaseException) -> apierrors.StatusError:
    """A kcodec.patch error as kube-apiserver answers it: the code and reason the error carries
    (400 BadRequest, 413, 422 Invalid via NewGenericServerResponse, or Go's plain 500)."""
    if isinstance(err, apierrors.StatusError):
        return err
    code = int(getattr(err, "code", 500) or 500)
    msg = str(err)
    if code == 400:
        return apierrors.new_bad_request(msg)
    if code == 413:
        return apierrors.new_request_entity_too_large_error(msg)
    if code == 422:
        return apierrors.new_generic_server_response(422, "", GroupResource("", ""), "", msg, 0, False)
    return apierrors.StatusError(metav1.Status(status="Failure", code=code, reason=getattr(err, "reason", "") or "",
                                               message=msg))


def patch_resource(scope: h.RequestScope, req: Request, info: Any) -> Response:
    """PATCH of one object (patch.go PatchResource); 200, or 201 when the patch created it.

    Every failure is answered as a Status in the negotiated format.
    """
    return h.run_handler(scope, req, lambda: _patch(scope, req, info))


def _patch(scope: h.RequestScope, req: Request, info: Any) -> Response:
    from kcodec.registry.rest import DefaultUpdatedObjectInfo
    from kcodec.server.fieldmanager import APPLY_PATCH_TYPES, update_managed_fields

    content_type = _patch_content_type(scope, req)
    if content_type in APPLY_PATCH_TYPES:
        return _apply(scope, req, info, content_type)
    namespace = info.namespace if scope.namespaced else ""
    name = info.name
    media = h._negotiate_output(scope, req)
    options = _patch_options(req)
    directive = options.field_validation or "Warn"
    strict = directive in ("Warn", "Strict")
    ops, patch_tree, applied = _decode_patch(content_type, req.body, strict)
    json_info = scope.infos[0]
    gv = scope.kind.group_version()
    encoder = scope.codecs.encoder_for_version(json_info.serializer, gv)
    decode_serializer = json_info.strict_serializer if strict else json_info.serializer
    decoder = scope.codecs.decoder_to_version(decode_serializer, scope.hub)
    ctx = h._context(scope, req, info, namespace)
    warnings: list[str] = []
    manager = h.manager_or_user_agent(options.field_manager, req.user_agent)

    def apply(_ctx: Any, _new: Any, current: Any) -> Any:
        if not _uid(current):
            raise apierrors.new_not_found(scope.group_resource, name)
        if content_type == STRATEGIC_MERGE_PATCH:
            obj = _strategic_patched(scope, current, patch_tree, strict, directive, applied, warnings)
        else:
            current_tree = gojson.loads(encoder.encode(current))
            obj = _decode_patched(scope, decoder, gojson.dumps(_json_patched(content_type, current_tree, ops, patch_tree)),
                                  directive, applied, warnings)
        obj = update_managed_fields(scope, current, obj, manager)
        h._ensure_namespace(h._expected_namespace(namespace, scope), obj)
        h._check_name(obj, name, namespace)
        return obj

    update_options = metav1.UpdateOptions(kind="UpdateOptions", api_version="meta.k8s.io/v1",
                                          dry_run=options.dry_run, field_validation=options.field_validation,
                                          field_manager=manager)
    result, created = scope.storage.update(ctx, name, DefaultUpdatedObjectInfo(None, apply), None, None, False,
                                           update_options)
    return h._finish(scope, req, ctx, 201 if created else 200, media, result, warnings)


def _patch_content_type(scope: h.RequestScope, req: Request) -> str:
    """The request's patch type without parameters, or Go's 415 listing the accepted ones."""
    from kcodec.patch import supported_patch_types

    content_type = req.header("Content-Type")
    idx = content_type.find(";")
    if idx > 0:
        content_type = content_type[:idx]
    # installer.go's list (apply-patch+cbor with the CBOR feature gate); customresource_handler.go
    # takes no strategic merge patch for custom resources.
    cbor = any(i.media_type == "application/cbor" for i in scope.infos)
    # customresource_handler.go serveScale passes the custom resource's list to /scale too
    patched_cls = dict if getattr(scope.storage, "serves_custom_resource", False) else type(scope.storage.new())
    accepted = supported_patch_types(patched_cls, cbor=cbor)
    if content_type not in accepted:
        raise unsupported_media_type_error(list(accepted))
    return content_type


def _patch_options(req: Request) -> Any:
    """The PatchOptions of a non-apply patch, validated as patch.go does (force is apply's alone)."""
    options = h._decode_query(req, metav1.PatchOptions())
    errs: list[Any] = []
    if options.force is not None:
        errs.append(fieldpath.forbidden(fieldpath.Path("force"), "may not be specified for non-apply patch"))
    errs += h._validate_field_manager(options.field_manager) + h._validate_dry_run(options.dry_run) \
        + h._validate_field_validation(options.field_validation)
    if errs:
        raise h._invalid_options("PatchOptions", errs)
    return options


def _decode_patch(content_type: str, body: bytes, strict: bool) -> tuple[Any, Any, list[str]]:
    """``(json patch operations, merge/strategic patch tree, duplicate-field findings)`` of a body.

    The body must be JSON whatever the patch type (patch.go's "invalid JSON patch" 400 first).
    """
    from kcodec import patch as patchlib

    try:
        gojson.loads(body)
    except (KCodecError, ValueError, RecursionError):
        raise apierrors.new_bad_request("invalid JSON patch") from None
    patch_tree, applied = _loads_patch(body, strict)
    if content_type == JSON_PATCH:
        try:
            ops = patchlib.decode_json_patch(body)
            if len(ops) > MAX_JSON_PATCH_OPERATIONS:
                raise apierrors.new_request_entity_too_large_error(
                    f"The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}")
        except patchlib.PatchError as err:
            raise _patch_error(err) from None
        return ops, None, [f"json patch {e}" for e in applied]
    if content_type != MERGE_PATCH and not isinstance(patch_tree, dict):
        raise apierrors.new_bad_request("json: cannot unmarshal " + _json_kind(patch_tree)
                                        + " into Go value of type map[string]interface {}")
    return None, patch_tree, applied


def _json_patched(content_type: str, current_tree: Any, ops: Any, patch_tree: Any) -> Any:
    """The current object's JSON tree with a JSON patch or a merge patch applied."""
    from kcodec import patch as patchlib

    try:
        if content_type == JSON_PATCH:
            return patchlib.json_patch(current_tree, ops)
        return patchlib.merge_patch(current_tree, patch_tree)
    except (patchlib.PatchError, KCodecError, ValueError) as err:
        raise _patch_error(err) from None


def _strategic_patched(scope: h.RequestScope, current: Any, patch_tree: Any, strict: bool, directive: str,
                       applied: list[str], warnings: list[str]) -> Any:
    """A strategic merge patch applied to the current object in the URL's version (patch.go
    smpPatcher), defaulted and converted to the hub version; strict findings warn or fail."""
    from kcodec import patch as patchlib
    from kcodec.server.fieldmanager import hub_version

    gv = scope.kind.group_version()
    versioned = scope.scheme.convert_to_version(current, gv)
    cls = type(versioned)
    try:
        patched = patchlib.strategic_merge_patch(to_tree(versioned), patch_tree, cls)
    except (patchlib.PatchError, KCodecError, ValueError) as err:
        raise _patch_error(err) from None
    strict_errs: list[str] | None = [] if strict else None
    try:
        out = from_tree(cls, patched, strict=strict_errs)
    except (KCodecError, ValueError, TypeError) as err:
        raise _invalid_patch(_go_map_text(patch_tree), err) from None
    found = applied + list(strict_errs or ())
    if found:
        if directive == "Warn":
            warnings.extend(h._strict_warnings(found))
        else:
            raise _invalid_patch(_go_map_text(patch_tree), _strict_text(found))
    out.kind, out.api_version = scope.kind.kind, str(gv)
    scope.scheme.default(out)
    return scope.scheme.convert_to_version(out, hub_version(scope, out))


def _apply(scope: h.RequestScope, req: Request, info: Any, content_type: str) -> Response:
    """Server-side apply (patch.go applyPatcher): create when missing, merge and own fields."""
    from kcodec import speedups
    from kcodec.goyaml import yaml_to_tree
    from kcodec.registry.rest import DefaultUpdatedObjectInfo
    from kcodec.server.fieldmanager import apply_patch

    namespace = info.namespace if scope.namespaced else ""
    name = info.name
    media = h._negotiate_output(scope, req)
    options = h._decode_query(req, metav1.PatchOptions())
    errs: list[Any] = []
    if not options.field_manager:
        # This field is defaulted to "kubectl" by kubectl, but has to be set by controllers.
        errs.append(fieldpath.required(fieldpath.Path("fieldManager"), "is required for apply patch"))
    errs += h._validate_field_manager(options.field_manager) + h._validate_dry_run(options.dry_run) \
        + h._validate_field_validation(options.field_validation)
    if errs:
        raise h._invalid_options("PatchOptions", errs)
    try:
        tree = yaml_to_tree(req.body) if content_type.endswith("yaml") else speedups.cbor_loads(req.body)
    except (KCodecError, ValueError, RecursionError) as err:
        raise apierrors.new_bad_request(f"error decoding patch: {err}") from None
    if not isinstance(tree, dict):
        raise apierrors.new_bad_request("json: cannot unmarshal " + _json_kind(tree)
                                        + " into Go value of type map[string]interface {}")
    ctx = h._context(scope, req, info, namespace)
    force = bool(options.force)

    def apply(_ctx: Any, _new: Any, current: Any) -> Any:
        obj = apply_patch(scope, current if _uid(current) else None, tree, options.field_manager, force)
        h._ensure_namespace(h._expected_namespace(namespace, scope), obj)
        h._check_name(obj, name, namespace)
        return obj

    update_options = metav1.UpdateOptions(kind="UpdateOptions", api_version="meta.k8s.io/v1",
                                          dry_run=options.dry_run, field_validation=options.field_validation,
                                          field_manager=options.field_manager)
    # patch.go: an apply creates the object when it does not exist (forceAllowCreate)
    result, created = scope.storage.update(ctx, name, DefaultUpdatedObjectInfo(None, apply), None, None, True,
                                           update_options)
    return h._finish(scope, req, ctx, 201 if created else 200, media, result, [])


def _uid(obj: Any) -> str:
    """The object's UID, typed or Unstructured (a custom resource); "" when there is none."""
    if obj is None:
        return ""
    if hasattr(obj, "get_uid"):
        return obj.get_uid()
    meta = h._object_meta(obj)
    return meta.uid if meta is not None else ""


def _json_kind(v: Any) -> str:
    if isinstance(v, list):
        return "array"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "bool"
    if v is None:
        return "null"
    return "number"


def _go_map_text(tree: Any) -> str:
    """fmt's ``%+v`` of a ``map[string]interface{}`` (keys sorted), as the SMP error quotes the patch."""
    if isinstance(tree, dict):
        return "map[" + " ".join(f"{k}:{_go_map_text(tree[k])}" for k in sorted(tree)) + "]"
    if isinstance(tree, list):
        return "[" + " ".join(_go_map_text(v) for v in tree) + "]"
    if tree is None:
        return "<nil>"
    if isinstance(tree, bool):
        return "true" if tree else "false"
    return str(tree)
