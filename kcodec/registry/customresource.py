"""Custom resources on the generic registry (apiextensions-apiserver ``pkg/registry/customresource``).

:func:`custom_resource_storage` builds, for one CustomResourceDefinition, the Store of its
objects (``Unstructured``, in the CRD's storage version) and, when the CRD asks for them,
its ``status`` and ``scale`` subresources:

- keys ``/<prefix>/<group>/<plural>[/<namespace>]/<name>``, JSON as apiextensions-apiserver
  writes them (the value's apiVersion is the storage version), through the factory's
  transformer for ``<plural>.<group>`` and the watch cache when the getter enables it;
- the strategy of ``customresource/strategy.go``: generation 1 on create and bumped when
  anything but metadata (and status, with the status subresource) changes; status dropped
  on create and kept on update of the main resource with the status subresource; no
  unconditional updates; metadata validation, then ``validator(obj) -> ErrorList`` (the
  schema validation, which the server supplies);
- ``/status`` keeps everything but status; ``/scale`` reads and writes the JSON paths of
  ``subresources.scale`` (``specReplicasPath`` ...), as ``customresource/etcd.go``.

Conversion between served versions is the caller's: objects come out in the storage version.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

from kcodec.api import errors as apierrors
from kcodec.registry import rest
from kcodec.registry._meta import accessor
from kcodec.registry.generic.matcher import default_cluster_scoped_attr, default_namespace_scoped_attr
from kcodec.registry.generic.options import RESTOptions, storage_with_cacher, undecorated_storage
from kcodec.registry.generic.store import Store
from kcodec.registry.request import Context
from kcodec.schema import GroupKind, GroupResource, GroupVersion, GroupVersionKind

__all__ = ["CustomResourceStrategy", "CustomResourceStatusStrategy", "CustomResourceCodec",
           "CustomResourceStorage", "CustomResourceScaleREST", "custom_resource_storage", "storage_version_of"]


def _v1(crd: Any) -> Any:
    from kcodec.api.apiextensions._custom import as_v1_definition

    return as_v1_definition(crd)


def storage_version_of(crd: Any) -> str:
    """The version marked ``storage: true`` (the first version when none is)."""
    c = _v1(crd)
    for v in c.spec.versions or ():
        if v.storage:
            return v.name
    return c.spec.versions[0].name


class CustomResourceCodec:
    """The storage codec of custom resources: JSON of the Unstructured content, apiVersion
    set to the storage version (conversion ``None``), decoded back to Unstructured."""

    def __init__(self, storage_gv: GroupVersion) -> None:
        self.storage_gv = storage_gv

    def __repr__(self) -> str:
        return f"CustomResourceCodec({self.storage_gv})"

    def identifier(self) -> str:
        return f"customresource({self.storage_gv})"

    def encode(self, obj: Any, stream: Any = None) -> bytes:
        from kcodec.api.meta.unstructured import UNSTRUCTURED_JSON_SCHEME, Unstructured

        content = dict(obj.unstructured_content())
        content["apiVersion"] = str(self.storage_gv)
        data = UNSTRUCTURED_JSON_SCHEME.encode(Unstructured(content))
        if stream is not None:
            stream.write(data)
        return data

    def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> tuple[Any, Any]:
        from kcodec.api.meta.unstructured import UNSTRUCTURED_JSON_SCHEME

        return UNSTRUCTURED_JSON_SCHEME.decode(data)


def _without(content: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in content.items() if k not in keys}


class CustomResourceStrategy(rest.Strategy):
    """``customResourceStrategy`` of one CRD version."""

    def __init__(self, crd: Any, kind: GroupVersionKind, *,
                 validator: Callable[[Any], Any] | None = None,
                 update_validator: Callable[[Any, Any], Any] | None = None) -> None:
        super().__init__()
        c = _v1(crd)
        self.crd = c
        self.kind = kind
        self.namespaced = c.spec.scope == "Namespaced"
        version = next((v for v in c.spec.versions or () if v.name == kind.version), None)
        subresources = version.subresources if version is not None else None
        self.status_enabled = subresources is not None and subresources.status is not None
        self.scale = subresources.scale if subresources is not None else None
        self.validator = validator
        self.update_validator = update_validator

    def __repr__(self) -> str:
        return f"CustomResourceStrategy({self.kind})"

    def object_kinds(self, obj: Any) -> tuple[list[Any], bool]:
        return [self.kind], False

    def prepare_for_create(self, ctx: Context, obj: Any) -> None:
        content = obj.unstructured_content()
        if self.status_enabled:
            content.pop("status", None)
        accessor(obj).set_generation(1)

    def prepare_for_update(self, ctx: Context, obj: Any, old: Any) -> None:
        new_c, old_c = obj.unstructured_content(), old.unstructured_content()
        if self.status_enabled:
            if "status" in old_c:
                new_c["status"] = copy.deepcopy(old_c["status"])
            else:
                new_c.pop("status", None)
            ignored: tuple[str, ...] = ("metadata", "status")
        else:
            ignored = ("metadata",)
        if _without(new_c, *ignored) != _without(old_c, *ignored):
            accessor(obj).set_generation(accessor(old).get_generation() + 1)

    def validate(self, ctx: Context, obj: Any) -> Any:
        errs = self.validate_object_meta(obj)
        if self.validator is not None:
            errs.extend(self.validator(obj) or ())
        return errs

    def validate_update(self, ctx: Context, obj: Any, old: Any) -> Any:
        errs = rest._error_list()
        if self.update_validator is not None:
            errs.extend(self.update_validator(obj, old) or ())
        elif self.validator is not None:
            errs.extend(self.validator(obj) or ())
        return errs

    def allow_unconditional_update(self) -> bool:
        return False


class CustomResourceStatusStrategy(CustomResourceStrategy):
    """``statusStrategy``: the request's status on the stored object, metadata reset for status."""

    def prepare_for_update(self, ctx: Context, obj: Any, old: Any) -> None:
        new_c, old_c = obj.unstructured_content(), old.unstructured_content()
        status = new_c.get("status")
        new_c.clear()
        new_c.update(copy.deepcopy(old_c))
        if status is None:
            new_c.pop("status", None)
        else:
            new_c["status"] = status


def _get_path(content: dict[str, Any], path: str) -> Any:
    cur: Any = content
    for part in path.lstrip(".").split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def _set_path(content: dict[str, Any], path: str, value: Any) -> None:
    parts = path.lstrip(".").split(".")
    cur = content
    for part in parts[:-1]:
        nxt = cur.get(part)
        if not isinstance(nxt, dict):
            nxt = cur[part] = {}
        cur = nxt
    cur[parts[-1]] = value


class CustomResourceScaleREST:
    """``<plural>/scale`` of a CRD with a scale subresource: autoscaling Scale from the
    CRD's JSON paths (specReplicasPath, statusReplicasPath, labelSelectorPath)."""

    def __init__(self, store: Store, scale: Any) -> None:
        self.store = store
        self.spec_path = scale.spec_replicas_path
        self.status_path = scale.status_replicas_path
        self.selector_path = scale.label_selector_path or ""

    def __repr__(self) -> str:
        return f"CustomResourceScaleREST({self.store.default_qualified_resource})"

    def group_version_kind(self, containing_gv: Any = None) -> GroupVersionKind:
        return GroupVersionKind("autoscaling", "v1", "Scale")

    def verbs(self) -> list[str]:
        return ["get", "patch", "update"]

    def new(self) -> Any:
        from kcodec.api.autoscaling import internal as autoscaling

        return autoscaling.Scale()

    def namespace_scoped(self) -> bool:
        return self.store.namespace_scoped()

    def _to_scale(self, obj: Any) -> Any:
        from kcodec.api.autoscaling import internal as autoscaling

        content = obj.unstructured_content()
        m = accessor(obj)
        scale = autoscaling.Scale()
        scale.metadata.name = m.get_name()
        scale.metadata.namespace = m.get_namespace()
        scale.metadata.uid = m.get_uid()
        scale.metadata.resource_version = m.get_resource_version()
        scale.metadata.creation_timestamp = m.get_creation_timestamp()
        spec = _get_path(content, self.spec_path)
        status = _get_path(content, self.status_path)
        scale.spec.replicas = int(spec) if isinstance(spec, int) and not isinstance(spec, bool) else 0
        scale.status.replicas = int(status) if isinstance(status, int) and not isinstance(status, bool) else 0
        selector = _get_path(content, self.selector_path) if self.selector_path else None
        scale.status.selector = selector if isinstance(selector, str) else ""
        return scale

    def get(self, ctx: Context, name: str, options: Any = None) -> Any:
        return self._to_scale(self.store.get(ctx, name, options))

    def update(self, ctx: Context, name: str, obj_info: Any, create_validation: Any = None,
               update_validation: Any = None, force_allow_create: bool = False,
               options: Any = None) -> tuple[Any, bool]:
        from kcodec.api.autoscaling import internal as autoscaling

        def transform(c: Context, new: Any, old: Any) -> Any:
            scale = obj_info.updated_object(c, self._to_scale(old))
            if not isinstance(scale, autoscaling.Scale):
                raise apierrors.new_bad_request(f"expected input object type to be Scale, but {type(scale).__name__}")
            if scale.spec.replicas < 0:
                f = rest._field()
                raise apierrors.new_invalid(GroupKind("autoscaling", "Scale"), scale.metadata.name, f.ErrorList([
                    f.invalid(f.Path("spec", "replicas"), int(scale.spec.replicas),
                              "must be greater than or equal to 0")]))
            out = old.deep_copy()
            if scale.metadata.resource_version:
                accessor(out).set_resource_version(scale.metadata.resource_version)
            _set_path(out.unstructured_content(), self.spec_path, int(scale.spec.replicas))
            return out

        obj, _ = self.store.update(ctx, name, rest.DefaultUpdatedObjectInfo(None, transform), create_validation,
                                   update_validation, False, options)
        return self._to_scale(obj), False


class CustomResourceStorage:
    """The storages of one CRD: ``store`` (the resource), ``status`` and ``scale`` (or None),
    and ``storage_map()`` in the shape of APIGroupInfo's per-version map."""

    def __init__(self, store: Store, status: Any, scale: Any, plural: str) -> None:
        self.store = store
        self.status = status
        self.scale = scale
        self.plural = plural

    def __repr__(self) -> str:
        return f"CustomResourceStorage({self.store.default_qualified_resource})"

    def storage_map(self) -> dict[str, Any]:
        out: dict[str, Any] = {self.plural: self.store}
        if self.status is not None:
            out[f"{self.plural}/status"] = self.status
        if self.scale is not None:
            out[f"{self.plural}/scale"] = self.scale
        return out

    def destroy(self) -> None:
        self.store.destroy()


def custom_resource_storage(crd: Any, rest_options_getter: Any, *,
                            validator: Callable[[Any], Any] | None = None,
                            update_validator: Callable[[Any, Any], Any] | None = None) -> CustomResourceStorage:
    """The registry of ``crd``'s objects over ``rest_options_getter``'s backend (see the module)."""
    from kcodec.api.meta.unstructured import Unstructured, UnstructuredList
    from kcodec.storage.factory import CONTENT_TYPE_JSON, StorageConfig

    c = _v1(crd)
    group, plural = c.spec.group, c.spec.names.plural
    version = storage_version_of(c)
    storage_gv = GroupVersion(group, version)
    kind = GroupVersionKind(group, version, c.spec.names.kind)
    list_kind = c.spec.names.list_kind or c.spec.names.kind + "List"
    gr = GroupResource(group, plural)
    factory = rest_options_getter.storage_factory
    base = factory.storage_config
    config = StorageConfig(prefix=base.prefix, server_list=list(base.server_list),
                           codec=CustomResourceCodec(storage_gv), transformer=factory.transformer_for(gr),
                           media_type=CONTENT_TYPE_JSON, storage_version=storage_gv, memory_version=storage_gv,
                           group_resource=gr, resource_prefix=f"{group}/{plural}")
    decorator = undecorated_storage
    if getattr(rest_options_getter, "enable_watch_cache", False):
        size = rest_options_getter.watch_cache_sizes.get(gr)
        if size is None or size > 0:
            decorator = storage_with_cacher(size or rest_options_getter.default_watch_cache_size)
    options = RESTOptions(storage_config=config, decorator=decorator,
                          enable_garbage_collection=rest_options_getter.enable_garbage_collection,
                          delete_collection_workers=rest_options_getter.delete_collection_workers,
                          resource_prefix=f"{group}/{plural}", kv=rest_options_getter.kv_for(config))

    def new() -> Any:
        obj = Unstructured({})
        obj.set_api_version(str(storage_gv))
        obj.set_kind(kind.kind)
        return obj

    def new_list() -> Any:
        out = UnstructuredList()
        out.set_api_version(str(storage_gv))
        out.set_kind(list_kind)
        return out

    strategy = CustomResourceStrategy(c, kind, validator=validator, update_validator=update_validator)
    store = Store(new_func=new, new_list_func=new_list, default_qualified_resource=gr,
                  singular_qualified_resource=GroupResource(group, c.spec.names.singular or kind.kind.lower()),
                  create_strategy=strategy,
                  attr_func=default_namespace_scoped_attr if strategy.namespaced else default_cluster_scoped_attr,
                  short_names=tuple(c.spec.names.short_names or ()), categories=tuple(c.spec.names.categories or ()),
                  kind=kind)
    store.complete_with_options(options)
    status = None
    if strategy.status_enabled:
        from kcodec.registry.builtin.subresources import StatusREST

        status = StatusREST(store, CustomResourceStatusStrategy(c, kind, validator=validator,
                                                                update_validator=update_validator))
    scale = CustomResourceScaleREST(store, strategy.scale) if strategy.scale is not None else None
    return CustomResourceStorage(store, status, scale, plural)
