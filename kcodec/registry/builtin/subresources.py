"""Subresource storages: status, scale, pods/binding, pods/eviction.

Go: the ``StatusREST`` of each resource (a copy of its Store with the status strategy),
``ScaleREST`` of apps and core (``pkg/registry/apps/deployment/storage/storage.go``
scaleUpdatedObjectInfo), ``BindingREST`` (``pkg/registry/core/pod/storage/storage.go``) and
``EvictionREST`` (``pkg/registry/core/pod/storage/eviction.go``).
"""
from __future__ import annotations

import copy
from typing import Any

from kcodec.api import errors as apierrors
from kcodec.registry import rest
from kcodec.registry._meta import accessor, now
from kcodec.registry.request import Context
from kcodec.schema import GroupKind, GroupResource, GroupVersionKind

__all__ = ["StatusREST", "ScaleREST", "BindingREST", "EvictionREST", "scale_selector", "ScaleManagedFields"]


class StatusREST:
    """``<resource>/status``: get, and update with the status strategy (Go's StatusREST)."""

    def __init__(self, store: Any, status_strategy: Any) -> None:
        self.store = copy.copy(store)
        self.store.update_strategy = status_strategy
        self.store.create_strategy = status_strategy
        self.store.reset_fields_strategy = status_strategy
        self.strategy = status_strategy

    def __repr__(self) -> str:
        return f"StatusREST({self.store.default_qualified_resource})"

    def new(self) -> Any:
        return self.store.new()

    def verbs(self) -> list[str]:
        return ["get", "patch", "update"]

    def namespace_scoped(self) -> bool:
        return self.store.namespace_scoped()

    def get(self, ctx: Context, name: str, options: Any = None) -> Any:
        return self.store.get(ctx, name, options)

    def update(self, ctx: Context, name: str, obj_info: Any, create_validation: Any = None,
               update_validation: Any = None, force_allow_create: bool = False, options: Any = None) -> tuple[Any, bool]:
        # Go: subresources never create (forceAllowCreate false)
        return self.store.update(ctx, name, obj_info, create_validation, update_validation, False, options)

    def convert_to_table(self, ctx: Context, obj: Any, table_options: Any = None) -> Any:
        return self.store.convert_to_table(ctx, obj, table_options)


def scale_selector(obj: Any) -> str:
    """The label selector string a Scale's status reports: the workload's
    ``spec.selector`` (a LabelSelector; for ReplicationControllers a map) as Go prints it."""
    from kcodec import labels

    selector = getattr(obj.spec, "selector", None)
    if selector is None:
        return ""
    if isinstance(selector, dict):
        return str(labels.selector_from_set(selector))
    try:
        return str(labels.label_selector_as_selector(selector))
    except Exception:  # noqa: BLE001 - Go: an invalid selector reports ""
        return ""


def _entries(obj: Any) -> list[dict[str, Any]] | None:
    """``metadata.managedFields`` of a typed or Unstructured object, as JSON trees."""
    entries = obj.get_managed_fields() if hasattr(obj, "get_managed_fields") else obj.metadata.managed_fields
    return None if entries is None else [e.to_dict() for e in entries]


def _entry_models(entries: list[dict[str, Any]] | None) -> Any:
    from kcodec.api.meta.v1 import ManagedFieldsEntry

    return None if entries is None else [ManagedFieldsEntry.from_dict(e) for e in entries]


class ScaleManagedFields:
    """One Scale update's managed-fields handling (the ``managedFieldsHandler`` of Go's
    ``scaleUpdatedObjectInfo.UpdatedObject``): :meth:`to_scale` gives the old Scale the
    parent's entries that own the replicas, :meth:`to_parent` turns the new Scale's entries
    back into the parent's. Entries that do not decode fail the update as Go's do (a 500)."""

    __slots__ = ("handler",)

    def __init__(self, parent: Any, group_version: str, mappings: dict[str, Any]) -> None:
        from kcodec.managedfields.scalehandler import ScaleHandler

        self.handler = ScaleHandler(_entries(parent), group_version, mappings)

    def __repr__(self) -> str:
        return f"ScaleManagedFields({self.handler!r})"

    def to_scale(self, scale: Any) -> None:
        """Set the old Scale's managedFields from the parent's."""
        scale.metadata.managed_fields = _entry_models(self._run(self.handler.to_subresource))

    def to_parent(self, scale: Any, parent: Any) -> None:
        """Set the parent's managedFields from the new Scale's."""
        entries = self._run(lambda: self.handler.to_parent(_entries(scale)))
        if hasattr(parent, "set_managed_fields"):
            parent.set_managed_fields(entries)
        else:
            parent.metadata.managed_fields = _entry_models(entries)

    @staticmethod
    def _run(fn: Any) -> Any:
        from kcodec.managedfields.fieldmanager import ManagedFieldsError

        try:
            return fn()
        except ManagedFieldsError as exc:
            raise apierrors.new_internal_error(exc) from None


class ScaleREST:
    """``<resource>/scale`` (autoscaling Scale) of Deployments, ReplicaSets, StatefulSets
    and ReplicationControllers: get the replicas, update them through the main store
    (so the resource's strategy, conflicts and generation apply). The workload's
    managedFields are moved to the Scale and back around the update (Go's
    ``replicasPathIn<Kind>`` mappings: the one served version owns ``spec.replicas``)."""

    def __init__(self, store: Any) -> None:
        from kcodec.managedfields.fieldpath import make_path

        self.store = store
        self.qualified_resource = store.default_qualified_resource
        group = self.qualified_resource.group
        self.parent_group_version = f"{group}/v1" if group else "v1"
        self.replicas_paths = {self.parent_group_version: make_path("spec", "replicas")}

    def _group_version(self, ctx: Context) -> str:
        # storage.go: the request's group/version when the mapping knows it
        info = ctx.request_info
        if info is not None and info.api_version:
            gv = f"{info.api_group}/{info.api_version}" if info.api_group else info.api_version
            if gv in self.replicas_paths:
                return gv
        return self.parent_group_version

    def __repr__(self) -> str:
        return f"ScaleREST({self.qualified_resource})"

    def group_version_kind(self, containing_gv: Any = None) -> GroupVersionKind:
        """Go's ``GroupVersionKindProvider``: scale is served as autoscaling/v1 Scale."""
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

        m = obj.metadata
        scale = autoscaling.Scale()
        scale.metadata.name = m.name
        scale.metadata.namespace = m.namespace
        scale.metadata.uid = m.uid
        scale.metadata.resource_version = m.resource_version
        scale.metadata.creation_timestamp = m.creation_timestamp
        scale.spec.replicas = int(obj.spec.replicas or 0)
        scale.status.replicas = int(getattr(obj.status, "replicas", 0) or 0)
        scale.status.selector = scale_selector(obj)
        return scale

    def get(self, ctx: Context, name: str, options: Any = None) -> Any:
        return self._to_scale(self.store.get(ctx, name, options))

    def update(self, ctx: Context, name: str, obj_info: Any, create_validation: Any = None,
               update_validation: Any = None, force_allow_create: bool = False,
               options: Any = None) -> tuple[Any, bool]:
        qualified = self.store.qualified_resource_from_context(ctx)

        def transform(c: Context, new: Any, old: Any) -> Any:
            if old is None or not accessor(old).get_resource_version():
                raise apierrors.new_not_found(qualified, name)
            managed_fields = ScaleManagedFields(old, self._group_version(c), self.replicas_paths)
            old_scale = self._to_scale(old)
            managed_fields.to_scale(old_scale)
            scale = obj_info.updated_object(c, old_scale)
            if scale is None:
                raise apierrors.new_bad_request("nil update passed to Scale")
            from kcodec.api.autoscaling import internal as autoscaling

            if not isinstance(scale, autoscaling.Scale):
                raise apierrors.new_bad_request(f"expected input object type to be Scale, but {type(scale).__name__}")
            errs = _validate_scale(scale)
            if errs:
                raise apierrors.new_invalid(GroupKind("autoscaling", "Scale"), scale.metadata.name, errs)
            workload = old.deep_copy()
            if scale.metadata.resource_version:
                workload.metadata.resource_version = scale.metadata.resource_version
            workload.spec.replicas = int(scale.spec.replicas)
            managed_fields.to_parent(scale, workload)
            return workload

        info = rest.DefaultUpdatedObjectInfo(None, transform)
        obj, _ = self.store.update(ctx, name, info, create_validation, update_validation, False, options)
        return self._to_scale(obj), False


def _validate_scale(scale: Any) -> Any:
    """k/k ``ValidateScale``: metadata (name required) and spec.replicas >= 0."""
    f = rest._field()
    errs = f.ErrorList()
    if scale.spec.replicas < 0:
        errs.append(f.invalid(f.Path("spec", "replicas"), int(scale.spec.replicas),
                              "must be greater than or equal to 0"))
    return errs


class BindingREST:
    """``pods/binding`` (and ``bindings``): assign a pod to a node (Go's BindingREST)."""

    def __init__(self, pod_store: Any) -> None:
        self.store = pod_store

    def __repr__(self) -> str:
        return "BindingREST(pods)"

    def new(self) -> Any:
        from kcodec.api.core import internal as core

        return core.Binding()

    def verbs(self) -> list[str]:
        return ["create"]

    def namespace_scoped(self) -> bool:
        return True

    def create(self, ctx: Context, name: str, obj: Any, create_validation: Any = None, options: Any = None) -> Any:
        """Bind: the pod's spec.nodeName and a PodScheduled condition; a success Status."""
        from kcodec.api.core import internal as core
        from kcodec.api.meta.v1 import Status

        if not isinstance(obj, core.Binding):
            raise apierrors.new_bad_request(f"not a Binding object: {type(obj).__name__}")
        if name and obj.metadata.name != name:
            raise apierrors.new_bad_request("name in URL does not match name in Binding object")
        errs = _validate_pod_binding(obj)
        if errs:
            raise apierrors.new_invalid(GroupKind("", "Binding"), obj.metadata.name, errs)
        if create_validation is not None:
            create_validation(ctx, obj.deep_copy())
        if options is not None and getattr(options, "dry_run", None):
            return Status(api_version="v1", kind="Status", status=apierrors.STATUS_SUCCESS)
        self._assign_pod(ctx, obj.metadata.uid, obj.metadata.resource_version, obj.metadata.name,
                         obj.target.name, obj.metadata.annotations)
        return Status(api_version="v1", kind="Status", status=apierrors.STATUS_SUCCESS)

    def _assign_pod(self, ctx: Context, uid: str, rv: str, pod_id: str, machine: str,
                    annotations: dict[str, str] | None) -> None:
        from kcodec.api.core import internal as core
        from kcodec.storage.store import Preconditions

        key = self.store.key_func(ctx, pod_id)
        qualified = self.store.qualified_resource_from_context(ctx)
        pre = Preconditions(uid=uid or None, resource_version=rv or None)

        def set_node(pod: Any) -> Any:
            if pod.metadata.deletion_timestamp is not None:
                raise apierrors.new_conflict(qualified, pod_id,
                                             f"pod {pod.metadata.name} is being deleted, cannot be assigned to a host")
            if pod.spec.node_name:
                raise apierrors.new_conflict(qualified, pod_id,
                                             f"pod {pod.metadata.name} is already assigned to node "
                                             f"{_go_q(pod.spec.node_name)}")
            pod.spec.node_name = machine
            if annotations:
                merged = dict(pod.metadata.annotations or {})
                merged.update(annotations)
                pod.metadata.annotations = merged
            conditions = [c for c in pod.status.conditions or () if c.type != "PodScheduled"]
            conditions.append(core.PodCondition(type="PodScheduled", status="True", last_transition_time=now()))
            pod.status.conditions = conditions
            return pod

        try:
            self.store.storage.guaranteed_update(
                key, set_node, preconditions=pre if (pre.uid or pre.resource_version) else None)
        except Exception as exc:
            err = apierrors.interpret_update_error(exc, qualified, pod_id)
            if not isinstance(err, apierrors.StatusError):
                err = apierrors.to_status_error(err)
            raise err from exc


def _go_q(s: str) -> str:
    from kcodec.gofmt import quote

    return quote(s)


def _validate_pod_binding(binding: Any) -> Any:
    """k/k ``ValidatePodBinding`` (kcodec.api.core.validation.validate_binding when present)."""
    from kcodec.registry.builtin.strategies import validation_function

    fn = validation_function("", "Binding")
    if fn is not None:
        return fn(binding)
    f = rest._field()
    errs = f.ErrorList()
    if binding.target.kind and binding.target.kind != "Node":
        errs.append(f.not_supported(f.Path("target", "kind"), binding.target.kind, ["Node", "<empty>"]))
    if not binding.target.name:
        errs.append(f.required(f.Path("target", "name"), ""))
    return errs


#: policy/v1 ``DisruptionBudgetCause``.
DISRUPTION_BUDGET_CAUSE = "DisruptionBudget"
_MAX_DISRUPTED_POD_SIZE = 2000
_EVICTION_REJECTED = "Cannot evict pod as it would violate the pod's disruption budget."


class EvictionREST:
    """``pods/eviction``: delete a pod unless its PodDisruptionBudget forbids it
    (Go's ``EvictionREST.Create``: one PDB at most, 429 TooManyRequests with a
    DisruptionBudget cause when no disruption is allowed, the PDB's status decremented
    and the pod recorded in ``disruptedPods`` before the delete)."""

    def __init__(self, pod_store: Any, pdb_store: Any) -> None:
        self.store = pod_store
        self.pdb_store = pdb_store

    def __repr__(self) -> str:
        return "EvictionREST(pods)"

    def group_version_kind(self, containing_gv: Any = None) -> GroupVersionKind:
        return GroupVersionKind("policy", "v1", "Eviction")

    def verbs(self) -> list[str]:
        return ["create"]

    def new(self) -> Any:
        from kcodec.api.policy import internal as policy

        return policy.Eviction()

    def namespace_scoped(self) -> bool:
        return True

    def create(self, ctx: Context, name: str, obj: Any, create_validation: Any = None, options: Any = None) -> Any:
        from kcodec.api.meta.v1 import Status
        from kcodec.api.policy import internal as policy

        if not isinstance(obj, policy.Eviction):
            raise apierrors.new_bad_request(f"not a Eviction object: {type(obj).__name__}")
        if obj.metadata.name != name:
            raise apierrors.new_bad_request("name in URL does not match name in Eviction object")
        original = _propagate_dry_run(obj, options)
        if create_validation is not None:
            create_validation(ctx, obj.deep_copy())
        success = Status(api_version="v1", kind="Status", status=apierrors.STATUS_SUCCESS)
        rv_unset = original.preconditions is None or original.preconditions.resource_version is None
        pod = None
        for attempt in range(_EVICTIONS_RETRY_STEPS):
            pod = self.store.get(ctx, name)
            if not _can_ignore_pdb(pod):
                break
            delete_options = original
            if _should_enforce_resource_version(pod) and rv_unset:
                delete_options = _with_rv_precondition(original, pod.metadata.resource_version)
            try:
                self._delete_pod(ctx, name, delete_options)
            except apierrors.StatusError as exc:
                if rv_unset and apierrors.is_conflict(exc) and attempt + 1 < _EVICTIONS_RETRY_STEPS:
                    continue
                raise
            return success
        assert pod is not None  # the loop ran at least once
        pdbs = self._pdbs_for(ctx, pod)
        if len(pdbs) > 1:
            return Status(api_version="v1", kind="Status", status=apierrors.STATUS_FAILURE, code=500,
                          message="This pod has more than one PodDisruptionBudget, which the eviction "
                                  "subresource does not support.")
        update_deletion_options = False
        pdb_name = ""
        if pdbs:
            pdb = pdbs[0]
            pdb_name = pdb.metadata.name
            if not _pod_is_ready(pod) and (
                    pdb.spec.unhealthy_pod_eviction_policy == "AlwaysAllow"
                    or (pdb.status.current_healthy >= pdb.status.desired_healthy > 0)):
                update_deletion_options = True
            else:
                for attempt in range(_EVICTIONS_RETRY_STEPS):
                    try:
                        self._check_and_decrement(ctx, pod.metadata.name, pdb, bool(original.dry_run))
                        break
                    except apierrors.StatusError as exc:
                        if not apierrors.is_conflict(exc):
                            raise
                        if attempt + 1 == _EVICTIONS_RETRY_STEPS:
                            raise apierrors.new_timeout_error(
                                f"couldn't update PodDisruptionBudget {_go_q(pdb_name)} due to conflicts", 10) from exc
                        pdb = self.pdb_store.get(ctx, pdb_name)
        delete_options = original
        if update_deletion_options:
            delete_options = _with_rv_precondition(original, pod.metadata.resource_version)
        try:
            self._delete_pod(ctx, name, delete_options)
        except apierrors.StatusError as exc:
            if apierrors.is_conflict(exc) and update_deletion_options and rv_unset:
                raise _too_many_requests_processing(pdb_name) from exc
            raise
        return success

    def _delete_pod(self, ctx: Context, name: str, options: Any) -> None:
        self.store.delete(ctx, name, rest.validate_all_objects, options)

    def _pdbs_for(self, ctx: Context, pod: Any) -> list[Any]:
        from kcodec import labels

        out = []
        for pdb in self.pdb_store.list(ctx, rest.ListOptions()).items or ():
            if pdb.spec.selector is None:
                continue
            try:
                selector = labels.label_selector_as_selector(pdb.spec.selector)
            except Exception:  # noqa: BLE001 - Go skips a PDB whose selector does not parse
                continue
            if selector.empty():
                continue
            if selector.matches(pod.metadata.labels or {}):
                out.append(pdb)
        return out

    def _check_and_decrement(self, ctx: Context, pod_name: str, pdb: Any, dry_run: bool) -> None:
        """Go's ``checkAndDecrement`` against the PDB as stored (conflicts retried by the caller's client)."""
        from kcodec.api.meta.v1 import StatusCause, StatusDetails

        if pdb.status.observed_generation < pdb.metadata.generation:
            raise _too_many_requests_processing(pdb.metadata.name)
        if pdb.status.disruptions_allowed < 0:
            raise apierrors.new_forbidden(GroupResource("policy", "poddisruptionbudget"), pdb.metadata.name,
                                          "pdb disruptions allowed is negative")
        if len(pdb.status.disrupted_pods or {}) > _MAX_DISRUPTED_POD_SIZE:
            raise apierrors.new_forbidden(GroupResource("policy", "poddisruptionbudget"), pdb.metadata.name,
                                          "DisruptedPods map too big - too many evictions not confirmed by PDB "
                                          "controller")
        if pdb.status.disruptions_allowed == 0:
            err = apierrors.new_too_many_requests(_EVICTION_REJECTED, 0)
            err.status.details = StatusDetails(causes=[StatusCause(
                type=DISRUPTION_BUDGET_CAUSE,
                message=f"The disruption budget {pdb.metadata.name} needs {pdb.status.desired_healthy} healthy "
                        f"pods and has {pdb.status.current_healthy} currently")])
            raise err
        pdb.status.disruptions_allowed -= 1
        if pdb.status.disruptions_allowed == 0:
            _set_disruption_allowed_condition(pdb, False)
        if dry_run:
            return
        disrupted = dict(pdb.status.disrupted_pods or {})
        disrupted[pod_name] = now()
        pdb.status.disrupted_pods = disrupted
        status_store = copy.copy(self.pdb_store)
        # the eviction writes the PDB's status as the disruption controller would
        from kcodec.registry.builtin.strategies import BuiltinStatusStrategy

        status_store.update_strategy = BuiltinStatusStrategy(self.pdb_store.create_strategy.info)
        status_store.update(ctx, pdb.metadata.name, rest.DefaultUpdatedObjectInfo(pdb), None, None, False, None)


def _set_disruption_allowed_condition(pdb: Any, allowed: bool) -> None:
    from kcodec.api.meta.v1 import Condition

    conditions = [c for c in pdb.status.conditions or () if c.type != "DisruptionAllowed"]
    if allowed:
        conditions.append(Condition(type="DisruptionAllowed", status="True", reason="SufficientPods",
                                    last_transition_time=now(), observed_generation=pdb.status.observed_generation))
    else:
        conditions.append(Condition(type="DisruptionAllowed", status="False", reason="InsufficientPods",
                                    last_transition_time=now(), observed_generation=pdb.status.observed_generation))
    pdb.status.conditions = conditions


def _pod_is_ready(pod: Any) -> bool:
    for c in pod.status.conditions or ():
        if c.type == "Ready":
            return c.status == "True"
    return False


_EVICTIONS_RETRY_STEPS = 5  # Go's EvictionsRetry: 5 steps, 10 ms apart


def _too_many_requests_processing(name: str) -> apierrors.StatusError:
    """Go's ``createTooManyRequestsError``: 429, retry after 10 s."""
    from kcodec.api.meta.v1 import StatusCause

    err = apierrors.new_too_many_requests(_EVICTION_REJECTED, 10)
    err.status.details.causes = [StatusCause(
        type=DISRUPTION_BUDGET_CAUSE, message=f"The disruption budget {name} is still being processed by the server.")]
    return err


def _propagate_dry_run(eviction: Any, options: Any) -> Any:
    """Go's ``propagateDryRun``: the delete options of the eviction with the request's dryRun."""
    from kcodec.api.meta.v1 import DeleteOptions

    request_dry_run = list(getattr(options, "dry_run", None) or [])
    if eviction.delete_options is None:
        return DeleteOptions(dry_run=request_dry_run or None)
    opts = eviction.delete_options.deep_copy()
    if not opts.dry_run:
        opts.dry_run = request_dry_run or None
        return opts
    if not request_dry_run:
        return opts
    if list(opts.dry_run) != request_dry_run:
        raise apierrors.new_bad_request(
            f"Non-matching dry-run options in request and content: [{' '.join(request_dry_run)}] and "
            f"[{' '.join(opts.dry_run)}]")
    return opts


def _with_rv_precondition(options: Any, rv: str) -> Any:
    from kcodec.api.meta.v1 import Preconditions

    out = options.deep_copy()
    if out.preconditions is None:
        out.preconditions = Preconditions()
    out.preconditions.resource_version = rv
    return out


def _can_ignore_pdb(pod: Any) -> bool:
    return pod.status.phase in ("Succeeded", "Failed", "Pending") or pod.metadata.deletion_timestamp is not None


def _should_enforce_resource_version(pod: Any) -> bool:
    return not (pod.status.phase in ("Succeeded", "Failed") or pod.metadata.deletion_timestamp is not None)
