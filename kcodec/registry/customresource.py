"""The registry of custom resources, as k8s.io/apiextensions-apiserver builds it per CRD version
(``pkg/registry/customresource``: strategy.go, status_strategy.go, etcd.go with its
StatusREST and ScaleREST, and the decoding path of ``pkg/apiserver/customresource_handler.go``
that prunes unknown fields and applies structural defaults).

Objects are :class:`~kcodec.runtime.Unstructured`, stored as JSON under
``/<prefix>/<group>/<plural>/[<namespace>/]<name>`` through a generic
:class:`~kcodec.registry.generic.Store` and the watch cache.
"""
from __future__ import annotations

import copy
import json
import logging
from typing import Any

from kcodec.api import errors as apierrors
from kcodec.registry import rest
from kcodec.registry._meta import accessor
from kcodec.registry.request import Context
from kcodec.schema import GroupResource, GroupVersionKind

_log = logging.getLogger(__name__)
_UNSET: Any = object()

__all__ = ["CustomResourceTableConvertor", "CustomResourceStrategy", "CustomResourceStatusStrategy", "CustomResourceScaleREST",
           "custom_resource_storages", "crd_version", "UnstructuredStorageCodec", "CustomResourceConverter"]


def _tree(crd: Any) -> dict[str, Any]:
    return crd.to_dict() if hasattr(crd, "to_dict") else crd


def crd_version(crd: Any, version: str) -> dict[str, Any]:
    """The ``spec.versions[]`` entry of ``version`` (a JSON tree)."""
    for v in _tree(crd).get("spec", {}).get("versions") or []:
        if v.get("name") == version:
            return v
    raise apierrors.new_not_found(GroupResource("apiextensions.k8s.io", "customresourcedefinitions"), version)


class CustomResourceConverter:
    """Converts custom resources between the versions of one CRD, as apiextensions-apiserver's
    ``pkg/apiserver/conversion`` does: strategy ``None`` (nop_converter.go) rewrites
    ``apiVersion``; ``Webhook`` (webhook_converter.go) POSTs a ``ConversionReview`` to the
    CRD's ``conversion.webhook.clientConfig`` (``url``, or ``service`` resolved to
    ``https://<name>.<namespace>.svc:<port><path>``) with the objects not yet in the
    desired version and takes back ``convertedObjects``.
    """

    def __init__(self, crd: Any, timeout: float = 30.0) -> None:
        spec = _tree(crd).get("spec") or {}
        conversion = spec.get("conversion") or {}
        self.group = spec.get("group", "")
        self.kind = (spec.get("names") or {}).get("kind", "")
        self.strategy = conversion.get("strategy") or "None"
        webhook = conversion.get("webhook") or {}
        self.client_config = webhook.get("clientConfig") or {}
        self.review_versions = list(webhook.get("conversionReviewVersions") or ["v1"])
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"CustomResourceConverter({self.group}, Kind={self.kind}, strategy={self.strategy})"

    def convert(self, content: dict[str, Any], version: str) -> dict[str, Any]:
        """``content`` (a JSON tree) in ``<group>/<version>``; the tree itself when it is there."""
        desired = f"{self.group}/{version}"
        if content.get("apiVersion") == desired:
            return content
        if self.strategy != "Webhook":
            out = dict(content)
            out["apiVersion"] = desired
            return out
        return self._webhook(content, desired)

    def _url(self) -> str:
        url = self.client_config.get("url")
        if url:
            return url
        svc = self.client_config.get("service") or {}
        port = svc.get("port") or 443
        return f"https://{svc.get('name')}.{svc.get('namespace')}.svc:{port}{svc.get('path') or ''}"

    def _webhook(self, content: dict[str, Any], desired: str) -> dict[str, Any]:
        import base64
        import ssl
        import urllib.error
        import urllib.request
        import uuid

        gvk = f"{content.get('apiVersion', '')}, Kind={content.get('kind', '')}"
        if "v1" not in self.review_versions:
            # webhook_converter.go: v1 is the ConversionReview version kube-apiserver 1.36 speaks.
            raise apierrors.new_internal_error(f"conversion webhook for {gvk} failed: no supported "
                                               f"conversionReviewVersions {self.review_versions}")
        uid = str(uuid.uuid4())
        review = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                  "request": {"uid": uid, "desiredAPIVersion": desired, "objects": [content]}}
        context = None
        ca = self.client_config.get("caBundle")
        if ca:
            context = ssl.create_default_context(cadata=base64.b64decode(ca).decode("ascii"))
        request = urllib.request.Request(self._url(), data=json.dumps(review).encode(), method="POST",
                                         headers={"Content-Type": "application/json",
                                                  "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=context) as resp:
                body = json.loads(resp.read(16 << 20))
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise apierrors.new_internal_error(f"conversion webhook for {gvk} failed: {exc}") from None
        response = body.get("response") if isinstance(body, dict) else None
        if not isinstance(response, dict):
            raise apierrors.new_internal_error(f"conversion webhook for {gvk} failed: no response provided")
        if response.get("uid") != uid:
            raise apierrors.new_internal_error(f"conversion webhook for {gvk} failed: expected response uid "
                                               f"{uid!r}, got {response.get('uid')!r}")
        result = response.get("result") or {}
        if result.get("status") != "Success":
            raise apierrors.new_internal_error(f"conversion webhook for {gvk} failed: "
                                               f"{result.get('message', '')}")
        converted = response.get("convertedObjects") or []
        if len(converted) != 1:
            raise apierrors.new_internal_error(f"conversion webhook for {gvk} returned {len(converted)} objects, "
                                               f"expected 1")
        out = converted[0]
        if not isinstance(out, dict) or out.get("apiVersion") != desired:
            got = out.get("apiVersion") if isinstance(out, dict) else type(out).__name__
            raise apierrors.new_internal_error(f"conversion webhook for {gvk} returned invalid object at index 0: "
                                               f"invalid apiVersion {got!r}, expected {desired!r}")
        # webhook_converter.go restoreObjectMeta: a webhook may change labels and annotations only.
        meta = dict(content.get("metadata") or {})
        new_meta = out.get("metadata") or {}
        for key in ("labels", "annotations"):
            if key in new_meta:
                meta[key] = new_meta[key]
            else:
                meta.pop(key, None)
        out = dict(out)
        out["metadata"] = meta
        return out


class UnstructuredStorageCodec:
    """The JSON codec custom resources are stored with (apiextensions' unstructured codec).

    With a ``converter``, objects are written in ``storage_version`` and read back in
    ``version`` (the served version the store works in), as the versioning codec of
    customresource_handler.go does."""

    def __init__(self, converter: CustomResourceConverter | None = None, version: str = "",
                 storage_version: str = "") -> None:
        self.converter = converter
        self.version = version
        self.storage_version = storage_version

    def __repr__(self) -> str:
        return f"UnstructuredStorageCodec(version={self.version!r}, storage_version={self.storage_version!r})"

    def encode(self, obj: Any) -> bytes:
        from kcodec.gojson import dumps

        content = obj.unstructured_content()
        if self.converter is not None and self.storage_version:
            content = self.converter.convert(content, self.storage_version)
        return dumps(content, sort_keys=True) + b"\n"

    def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> tuple[Any, Any]:
        from kcodec.api.meta.unstructured import UNSTRUCTURED_JSON_SCHEME

        obj, gvk = UNSTRUCTURED_JSON_SCHEME.decode(data, defaults, into)
        if self.converter is not None and self.version and hasattr(obj, "unstructured_content"):
            content = obj.unstructured_content()
            converted = self.converter.convert(content, self.version)
            if converted is not content:
                obj.set_unstructured_content(converted)
                gvk = obj.group_version_kind() if hasattr(obj, "group_version_kind") else gvk
        return obj, gvk


class CustomResourceStrategy(rest.Strategy):
    """customresource/strategy.go for one CRD version."""

    def __init__(self, crd: Any, version: str, kind: GroupVersionKind) -> None:
        super().__init__(None)
        self.crd = crd
        tree = _tree(crd)
        self.version = version
        self.kind = kind
        self.namespaced = tree.get("spec", {}).get("scope", "Namespaced") == "Namespaced"
        v = crd_version(tree, version)
        self.schema = (v.get("schema") or {}).get("openAPIV3Schema")
        subresources = v.get("subresources") or {}
        self.status_enabled = "status" in subresources
        self.scale = subresources.get("scale")
        self.preserve_unknown = bool(tree.get("spec", {}).get("preserveUnknownFields"))
        self._cel: Any = _UNSET

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.kind})"

    def object_kinds(self, obj: Any) -> tuple[list[Any], bool]:
        return [self.kind], False

    # Decoding in Go prunes and defaults every object read from a request or from storage.
    def normalize(self, obj: Any) -> None:
        from kcodec.api.apiextensions import default_custom_resource, prune

        prune(obj, self.crd)
        if self.schema:
            default_custom_resource(obj.unstructured_content(), self.schema)

    def prepare_for_create(self, ctx: Context, obj: Any) -> None:
        self.normalize(obj)
        content = obj.unstructured_content()
        if self.status_enabled:
            content.pop("status", None)
        accessor(obj).set_generation(1)

    def prepare_for_update(self, ctx: Context, obj: Any, old: Any) -> None:
        self.normalize(obj)
        new_c, old_c = obj.unstructured_content(), old.unstructured_content()
        if self.status_enabled:
            if "status" in old_c:
                new_c["status"] = copy.deepcopy(old_c["status"])
            else:
                new_c.pop("status", None)
        # strategy.go: any change outside metadata (and status when it is a subresource) is a spec change.
        skip = {"metadata", "status"} if self.status_enabled else {"metadata"}
        a = {k: v for k, v in new_c.items() if k not in skip}
        b = {k: v for k, v in old_c.items() if k not in skip}
        if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
            accessor(obj).set_generation(accessor(old).get_generation() + 1)

    def _validate_content(self, obj: Any, old: Any = None, ctx: Context | None = None, prior: Any = ()) -> Any:
        from kcodec.api.apiextensions import validate_custom_resource, validate_list_sets_and_maps
        from kcodec.validation import field

        errs = field.ErrorList()
        content = obj.unstructured_content()
        gvk = obj.group_version_kind()
        if gvk.kind != self.kind.kind:
            errs.append(field.invalid(field.Path("kind"), gvk.kind, f"must be {self.kind.kind}"))
        if str(gvk.group_version()) != str(self.kind.group_version()):
            errs.append(field.invalid(field.Path("apiVersion"), str(gvk.group_version()),
                                      f"must be {self.kind.group_version()}"))
        if self.schema:
            errs.extend(validate_custom_resource(content, self.schema))
            old_content = old.unstructured_content() if old is not None else None
            # strategy.go ValidateUpdate: list-type errors ratchet (only checked when the old object had none)
            if old_content is None or not validate_list_sets_and_maps(None, self.schema, old_content):
                errs.extend(validate_list_sets_and_maps(None, self.schema, content))
            errs.extend(self._validate_rules(content, old_content, [*prior, *errs], ctx))
        return errs

    def _cel_validator(self) -> Any:
        """The CEL validator of the schema's x-kubernetes-validations (compiled on first use),
        or None (no rules, or no CEL library: logged once per strategy)."""
        if self._cel is _UNSET:
            from kcodec.api.apiextensions import cel

            self._cel = None
            if cel.has_validation_rules(self.schema):
                if cel.cel_available():
                    self._cel = cel.new_validator(self.schema, True)
                else:
                    _log.warning("%s: %s", self.kind, cel.CEL_UNAVAILABLE_WARNING)
        return self._cel

    def _validate_rules(self, content: dict[str, Any], old_content: dict[str, Any] | None, errs: Any,
                        ctx: Context | None) -> Any:
        """x-kubernetes-validations (strategy.go): skipped with one error when the schema
        validation already found a blocking error (hasBlockingErr)."""
        from kcodec.validation import field

        validator = self._cel_validator()
        if validator is None:
            return field.ErrorList()
        blocking = (field.ErrorType.NOT_SUPPORTED, field.ErrorType.REQUIRED, field.ErrorType.TOO_LONG,
                    field.ErrorType.TOO_MANY, field.ErrorType.TYPE_INVALID)
        if any(e.type in blocking for e in errs):
            return field.ErrorList([field.invalid(None, None, "some validation rules were not checked because the "
                                                              "object was invalid; correct the existing errors to "
                                                              "complete validation")])
        warnings: list[str] = []
        out = validator.validate(content, old_content, None, ratchet=old_content is not None, warnings=warnings)
        if ctx is not None:
            for w in warnings:
                ctx.add_warning(w)
        return out

    def validate(self, ctx: Context, obj: Any) -> Any:
        errs = self.validate_object_meta(obj)
        errs.extend(self._validate_content(obj, None, ctx, errs))
        return errs

    def validate_update(self, ctx: Context, obj: Any, old: Any) -> Any:
        errs = self.validate_object_meta_update(obj, old)
        errs.extend(self._validate_content(obj, old, ctx, errs))
        return errs


class CustomResourceStatusStrategy(CustomResourceStrategy):
    """customresource/status_strategy.go: an update sets status only."""

    def prepare_for_update(self, ctx: Context, obj: Any, old: Any) -> None:
        self.normalize(obj)
        new_c = obj.unstructured_content()
        status = new_c.get("status")
        has_status = "status" in new_c
        # managedFields track the status update itself, so they come from the request
        managed = (new_c.get("metadata") or {}).get("managedFields")
        content = copy.deepcopy(old.unstructured_content())
        if managed is not None:
            content.setdefault("metadata", {})["managedFields"] = managed
        if has_status:
            content["status"] = status
        else:
            content.pop("status", None)
        obj.set_unstructured_content(content)


def _json_path_get(content: dict[str, Any], path: str) -> Any:
    cur: Any = content
    for part in [p for p in path.split(".") if p]:
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def _json_path_set(content: dict[str, Any], path: str, value: Any) -> None:
    parts = [p for p in path.split(".") if p]
    cur = content
    for part in parts[:-1]:
        nxt = cur.get(part)
        if not isinstance(nxt, dict):
            nxt = cur[part] = {}
        cur = nxt
    cur[parts[-1]] = value


#: etcd.go invalidSpecReplicas: the smallest int32, the old Scale's replicas when the custom
#: resource has none (an update must set them).
_INVALID_SPEC_REPLICAS = -2147483648


class CustomResourceScaleREST:
    """``<plural>/scale`` of a CRD with a scale subresource (customresource/etcd.go ScaleREST):
    autoscaling/v1 Scale from specReplicasPath, statusReplicasPath and labelSelectorPath."""

    #: Served as a custom resource's subresource (its PATCH types: no strategic merge patch).
    serves_custom_resource = True

    def __init__(self, store: Any, scale: dict[str, Any], parent_group_version: str = "",
                 replicas_paths: dict[str, Any] | None = None) -> None:
        self.store = store
        self.spec_path = scale.get("specReplicasPath", "")
        self.status_path = scale.get("statusReplicasPath", "")
        self.selector_path = scale.get("labelSelectorPath") or ""
        # etcd.go parentGV and customresource_handler.go replicasPathInCustomResource: each
        # CRD version's specReplicasPath, None for a version without a scale subresource.
        self.parent_group_version = parent_group_version
        self.replicas_paths = replicas_paths or {}

    def __repr__(self) -> str:
        return f"CustomResourceScaleREST({self.store.default_qualified_resource})"

    def group_version_kind(self, containing_gv: Any = None) -> GroupVersionKind:
        return GroupVersionKind("autoscaling", "v1", "Scale")

    def new(self) -> Any:
        from kcodec.api.autoscaling import internal as autoscaling

        return autoscaling.Scale()

    def namespace_scoped(self) -> bool:
        return self.store.namespace_scoped()

    def _to_scale(self, obj: Any) -> Any:
        return self._scale_and_found(obj)[0]

    def _scale_and_found(self, obj: Any) -> tuple[Any, bool]:
        """etcd.go scaleFromCustomResource: the Scale, and whether specReplicasPath holds an integer."""
        from kcodec.api.autoscaling import internal as autoscaling

        content = obj.unstructured_content()
        m = accessor(obj)
        scale = autoscaling.Scale()
        scale.metadata.name = m.get_name()
        scale.metadata.namespace = m.get_namespace()
        scale.metadata.uid = m.get_uid()
        scale.metadata.resource_version = m.get_resource_version()
        scale.metadata.creation_timestamp = m.get_creation_timestamp()
        spec = _json_path_get(content, self.spec_path)
        status = _json_path_get(content, self.status_path)
        found = isinstance(spec, int) and not isinstance(spec, bool)
        scale.spec.replicas = int(spec) if found else 0
        scale.status.replicas = int(status) if isinstance(status, int) else 0
        if self.selector_path:
            sel = _json_path_get(content, self.selector_path)
            scale.status.selector = sel if isinstance(sel, str) else ""
        return scale, found

    def get(self, ctx: Context, name: str, options: Any = None) -> Any:
        scale, found = self._scale_and_found(self.store.get(ctx, name, options))
        if not found:
            raise apierrors.new_internal_error(f'the spec replicas field "{self.spec_path}" does not exist')
        return scale

    def update(self, ctx: Context, name: str, obj_info: Any, create_validation: Any = None,
               update_validation: Any = None, force_allow_create: bool = False, options: Any = None) -> tuple[Any, bool]:
        from kcodec.registry.builtin.subresources import ScaleManagedFields

        def transform(ctx2: Context, _new: Any, old: Any) -> Any:
            managed_fields = ScaleManagedFields(old, self.parent_group_version, self.replicas_paths)
            old_scale, found = self._scale_and_found(old)
            if not found:
                old_scale.spec.replicas = _INVALID_SPEC_REPLICAS  # etcd.go: "not set before"
            managed_fields.to_scale(old_scale)
            scale = obj_info.updated_object(ctx2, old_scale)
            if scale is None:
                raise apierrors.new_bad_request("nil update passed to Scale")
            if scale.spec.replicas == _INVALID_SPEC_REPLICAS:
                raise apierrors.new_bad_request(f'the spec replicas field "{self.spec_path}" cannot be empty')
            out = copy.deepcopy(old)
            _json_path_set(out.unstructured_content(), self.spec_path, int(scale.spec.replicas))
            accessor(out).set_resource_version(scale.metadata.resource_version or accessor(old).get_resource_version())
            managed_fields.to_parent(scale, out)
            return out
        result, created = self.store.update(ctx, name, rest.DefaultUpdatedObjectInfo(None, transform), None, None,
                                            False, options)
        return self._to_scale(result), created


_DATE_DOC = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not " \
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It " \
    "is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More " \
    "info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"


class CustomResourceTableConvertor:
    """apiextensions-apiserver pkg/registry/customresource/tableconvertor: Name plus the CRD
    version's additionalPrinterColumns (an Age column when it has none)."""

    def __init__(self, columns: list[dict[str, Any]] | None) -> None:
        from kcodec.api.meta.v1 import TableColumnDefinition
        from kcodec.printers._docs import DOCS

        cols = list(columns or []) or [{"name": "Age", "type": "date", "description": _DATE_DOC,
                                         "jsonPath": ".metadata.creationTimestamp"}]
        self.columns = cols
        self.headers = [TableColumnDefinition(name="Name", type="string", format="name",
                                              description=DOCS.get("meta/v1.ObjectMeta.name", ""))]
        self.headers += [TableColumnDefinition(name=c.get("name", ""), type=c.get("type", ""),
                                               format=c.get("format", ""), description=c.get("description", ""),
                                               priority=int(c.get("priority", 0) or 0)) for c in cols]

    def __repr__(self) -> str:
        return f"CustomResourceTableConvertor({[c.get('name') for c in self.columns]})"

    def convert_to_table(self, ctx: Any, obj: Any, table_options: Any = None, *, no_headers: bool = False) -> Any:
        from kcodec.api.meta.v1 import ListMeta, RawExtension, Table, TableRow

        items = obj.items if hasattr(obj, "items") and not hasattr(obj, "get_name") else [obj]
        rows = []
        for item in items:
            content = item.unstructured_content()
            cells: list[Any] = [accessor(item).get_name()]
            for col in self.columns:
                cells.append(_cell(col.get("type", ""), _json_path_get(content, _simple_path(col.get("jsonPath", "")))))
            rows.append(TableRow(cells=cells, object=RawExtension(object=item)))
        table = Table(api_version="meta.k8s.io/v1", kind="Table", rows=rows,
                      column_definitions=None if no_headers else list(self.headers))
        meta = ListMeta()
        if hasattr(obj, "get_resource_version"):
            meta.resource_version = obj.get_resource_version()
        if hasattr(obj, "get_continue") and not hasattr(obj, "get_name"):
            meta.continue_ = obj.get_continue()
            meta.remaining_item_count = obj.get_remaining_item_count()
        table.metadata = meta
        return table


def _simple_path(json_path: str) -> str:
    return json_path.strip().lstrip("{").rstrip("}").lstrip(".")


def _cell(header_type: str, value: Any) -> Any:
    """tableconvertor.go cellForJSONValue (and the string column's printing)."""
    if value is None:
        return None
    if header_type == "integer":
        if isinstance(value, bool):
            return None
        return int(value) if isinstance(value, (int, float)) else None
    if header_type == "number":
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if header_type == "boolean":
        return value if isinstance(value, bool) else None
    if header_type == "string":
        if isinstance(value, str):
            return value
        return json.dumps(value, separators=(",", ":")) if isinstance(value, (dict, list)) else str(value).lower() \
            if isinstance(value, bool) else str(value)
    if header_type == "date":
        if not isinstance(value, str):
            return None
        from kcodec.api.meta.v1 import Time
        from kcodec.errors import KCodecError
        from kcodec.printers.internalversion import translate_timestamp_since

        try:
            return translate_timestamp_since(Time.parse(value))
        except (KCodecError, ValueError):
            return "<invalid>"
    return None


def _replicas_paths(tree: dict[str, Any]) -> dict[str, Any]:
    """customresource_handler.go replicasPathInCustomResource: ``group/version`` to the
    version's specReplicasPath as a field path (None without a scale subresource)."""
    from kcodec.managedfields.scalehandler import replicas_path

    group = tree["spec"]["group"]
    out: dict[str, Any] = {}
    for v in tree["spec"].get("versions") or []:
        scale = (v.get("subresources") or {}).get("scale")
        out[f"{group}/{v.get('name', '')}"] = replicas_path(scale.get("specReplicasPath", "")) if scale else None
    return out


def custom_resource_storages(crd: Any, version: str, rest_options: Any) -> dict[str, Any]:
    """``{plural: Store, plural/status: ..., plural/scale: ...}`` for one served version.

    ``rest_options`` is a :class:`~kcodec.registry.generic.RESTOptions` whose storage config
    carries :class:`UnstructuredStorageCodec` (apiextensions stores custom resources as JSON).
    """
    from kcodec.api.meta.unstructured import Unstructured, UnstructuredList
    from kcodec.registry.builtin.subresources import StatusREST
    from kcodec.registry.generic.store import Store

    tree = _tree(crd)
    spec = tree["spec"]
    names = spec["names"]
    group, plural, kind_name = spec["group"], names["plural"], names["kind"]
    kind = GroupVersionKind(group, version, kind_name)
    strategy = CustomResourceStrategy(crd, version, kind)
    api_version = f"{group}/{version}"

    def new() -> Any:
        return Unstructured({"apiVersion": api_version, "kind": kind_name})

    def new_list() -> Any:
        out = UnstructuredList()
        out.set_api_version(api_version)
        out.set_kind(names.get("listKind") or kind_name + "List")
        return out

    store = Store(new_func=new, new_list_func=new_list, default_qualified_resource=GroupResource(group, plural),
                  singular_qualified_resource=GroupResource(group, names.get("singular") or kind_name.lower()),
                  create_strategy=strategy, short_names=tuple(names.get("shortNames") or ()),
                  categories=tuple(names.get("categories") or ()), kind=kind,
                  table_convertor=CustomResourceTableConvertor(crd_version(tree, version).get("additionalPrinterColumns")))
    store.complete_with_options(rest_options)
    out: dict[str, Any] = {plural: store}
    if strategy.status_enabled:
        out[f"{plural}/status"] = StatusREST(store, CustomResourceStatusStrategy(crd, version, kind))
    if strategy.scale is not None:
        out[f"{plural}/scale"] = CustomResourceScaleREST(store, strategy.scale, api_version, _replicas_paths(tree))
    return out
