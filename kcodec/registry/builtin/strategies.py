"""The strategies of the built-in resources (k/k ``pkg/registry/<group>/<resource>/strategy.go``).

Most strategies differ only in a few table facts (:class:`~.resources.ResourceInfo`):
scope, whether status is reset on the main resource and kept apart on ``/status``,
whether spec changes bump ``metadata.generation``, the name rule. :class:`BuiltinStrategy`
does those from the table, plus the per-kind hooks of :data:`PREPARE_FOR_CREATE` and
:data:`PREPARE_FOR_UPDATE` (Pods' phase Pending and qosClass, Services' defaults...) and
:data:`CANONICALIZE` (Endpoints' repacked subsets).

Validation: ``kcodec.api.<package>.validation.validate_<snake_kind>`` (and ``_update``,
``_status_update``) when that function exists, otherwise the metadata validation of the
kind's name rule (Go's ``ValidateObjectMeta`` / ``ValidateObjectMetaUpdate``).
"""
from __future__ import annotations

import importlib
import re
from typing import Any, Callable

from kcodec.registry import rest
from kcodec.registry._meta import accessor, now
from kcodec.registry.builtin.resources import ResourceInfo
from kcodec.registry.request import Context

__all__ = [
    "BuiltinStrategy",
    "BuiltinStatusStrategy",
    "snake_kind",
    "validation_function",
    "get_pod_qos",
    "PREPARE_FOR_CREATE",
    "PREPARE_FOR_UPDATE",
    "CANONICALIZE",
]

_PACKAGES = {
    "": "core", "apps": "apps", "batch": "batch", "autoscaling": "autoscaling", "policy": "policy",
    "networking.k8s.io": "networking", "rbac.authorization.k8s.io": "rbac", "storage.k8s.io": "storage",
    "scheduling.k8s.io": "scheduling", "coordination.k8s.io": "coordination", "discovery.k8s.io": "discovery",
    "events.k8s.io": "events", "node.k8s.io": "node", "certificates.k8s.io": "certificates",
    "flowcontrol.apiserver.k8s.io": "flowcontrol", "admissionregistration.k8s.io": "admissionregistration",
    "authentication.k8s.io": "authentication", "authorization.k8s.io": "authorization",
    "apiextensions.k8s.io": "apiextensions", "apiregistration.k8s.io": "apiregistration",
    "resource.k8s.io": "resource", "storagemigration.k8s.io": "storagemigration",
    "internal.apiserver.k8s.io": "apiserverinternal",
}


def package_of(group: str) -> str:
    """The ``kcodec.api`` package of an API group."""
    return _PACKAGES.get(group, group.split(".")[0])


def snake_kind(kind: str) -> str:
    """``ReplicaSet`` -> ``replica_set``, ``CSIDriver`` -> ``csi_driver``, ``APIService`` -> ``api_service``."""
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", kind)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.lower()


_MISSING = object()
_validation_cache: dict[tuple[str, str], Any] = {}


def validation_function(group: str, kind: str, suffix: str = "") -> Callable[..., Any] | None:
    """``kcodec.api.<package>.validation.validate_<snake_kind><suffix>`` or None."""
    key = (group, kind + suffix)
    found = _validation_cache.get(key, _MISSING)
    if found is _MISSING:
        found = None
        try:
            module = importlib.import_module(f"kcodec.api.{package_of(group)}.validation")
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith(f"kcodec.api.{package_of(group)}"):
                raise
            module = None
        if module is not None:
            found = getattr(module, f"validate_{snake_kind(kind)}{suffix}", None)
        _validation_cache[key] = found
    return found


def _name_rule(rule: str) -> Callable[[str, bool], list[str]]:
    from kcodec.validation import names

    if rule == "label":
        return names.name_is_dns_label
    if rule == "dns1035":
        return names.name_is_dns1035_label
    if rule == "path":
        return names.validate_path_segment_name
    return names.name_is_dns_subdomain


def _zero_like(value: Any) -> Any:
    return type(value)() if value is not None else None


class BuiltinStrategy(rest.Strategy):
    """The strategy of one built-in resource, from its :class:`ResourceInfo`."""

    def __init__(self, info: ResourceInfo, scheme: Any = None) -> None:
        super().__init__(scheme)
        self.info = info
        self.namespaced = info.namespaced
        self._create_hook = PREPARE_FOR_CREATE.get((info.group, info.kind))
        self._update_hook = PREPARE_FOR_UPDATE.get((info.group, info.kind))
        self._canonicalize_hook = CANONICALIZE.get((info.group, info.kind))
        if info.graceful:
            self.check_graceful_delete = self._check_graceful_delete  # type: ignore[method-assign]

    def __repr__(self) -> str:
        return f"BuiltinStrategy({self.info.resource}.{self.info.group or 'core'})"

    def name_validation(self, name: str, prefix: bool) -> list[str]:
        return _name_rule(self.info.name_rule)(name, prefix)

    def allow_create_on_update(self) -> bool:
        return self.info.allow_create_on_update

    def allow_unconditional_update(self) -> bool:
        return self.info.allow_unconditional_update

    def prepare_for_create(self, ctx: Context, obj: Any) -> None:
        if self.info.status and not self.info.status_on_create and hasattr(obj, "status"):
            obj.status = _zero_like(obj.status)
        if self.info.generation:
            accessor(obj).set_generation(1)
        if self._create_hook is not None:
            self._create_hook(ctx, obj)

    def prepare_for_update(self, ctx: Context, obj: Any, old: Any) -> None:
        if self.info.status and hasattr(obj, "status"):
            obj.status = old.status
        if self.info.generation:
            names = (self.info.generation,) if isinstance(self.info.generation, str) else self.info.generation
            if any(getattr(obj, n, None) != getattr(old, n, None) for n in names):
                accessor(obj).set_generation(accessor(old).get_generation() + 1)
        if self._update_hook is not None:
            self._update_hook(ctx, obj, old)

    def warnings_on_create(self, ctx: Context, obj: Any) -> list[str]:
        return _pod_warnings(self.info, obj, None) + _crd_warnings(self.info, obj)

    def canonicalize(self, obj: Any) -> None:
        if self._canonicalize_hook is not None:
            self._canonicalize_hook(obj)

    def warnings_on_update(self, ctx: Context, obj: Any, old: Any) -> list[str]:
        return _pod_warnings(self.info, obj, old) + _crd_warnings(self.info, obj, old)

    def validate(self, ctx: Context, obj: Any) -> Any:
        fn = validation_function(self.info.group, self.info.kind)
        if fn is not None:
            return fn(obj)
        return self.validate_object_meta(obj)

    def validate_update(self, ctx: Context, obj: Any, old: Any) -> Any:
        fn = validation_function(self.info.group, self.info.kind, "_update")
        if fn is not None:
            return fn(obj, old)
        return rest._error_list()

    def _check_graceful_delete(self, ctx: Context, obj: Any, options: Any) -> bool:
        """Pods (k/k pkg/registry/core/pod/strategy.go CheckGracefulDelete): the pod's
        terminationGracePeriodSeconds unless the options give one; 0 when unscheduled or
        terminal."""
        if options is None:
            return False
        pod = obj
        period = 0
        if options.grace_period_seconds is not None:
            period = int(options.grace_period_seconds)
        elif pod.spec.termination_grace_period_seconds is not None:
            period = int(pod.spec.termination_grace_period_seconds)
        if not pod.spec.node_name:
            period = 0
        if pod.status.phase in ("Failed", "Succeeded"):
            period = 0
        if period < 0:
            period = 1
        options.grace_period_seconds = period
        return True


#: Kinds whose strategies warn about their pod template (k/k: GetWarningsForPodTemplate at
#: this path), and Pods themselves (GetWarningsForPod).
_POD_TEMPLATE_PATHS = {
    ("", "PodTemplate"): "template", ("", "ReplicationController"): "spec.template",
    ("apps", "Deployment"): "spec.template", ("apps", "ReplicaSet"): "spec.template",
    ("apps", "StatefulSet"): "spec.template", ("apps", "DaemonSet"): "spec.template",
    ("batch", "Job"): "spec.template", ("batch", "CronJob"): "spec.jobTemplate.spec.template",
}


def _pod_warnings(info: ResourceInfo, obj: Any, old: Any) -> list[str]:
    from kcodec.registry.builtin.warnings import warnings_for_pod, warnings_for_pod_template

    key = (info.group, info.kind)
    if key == ("", "Pod"):
        return warnings_for_pod(obj, old)
    path = _POD_TEMPLATE_PATHS.get(key)
    if path is None:
        return []
    template: Any = obj
    for part in {"template": ["template"], "spec.template": ["spec", "template"],
                 "spec.jobTemplate.spec.template": ["spec", "job_template", "spec", "template"]}[path]:
        template = getattr(template, part, None)
        if template is None:
            return []
    return warnings_for_pod_template(path, template)


def _crd_warnings(info: ResourceInfo, crd: Any, old: Any = None) -> list[str]:
    """The CRD strategy's warnings (unrecognized formats, sets of non-scalar items); and a
    CRD whose x-kubernetes-validations rules this server cannot evaluate (no CEL library
    installed) is stored all the same, the client told so (kcodec's own warning,
    kube-apiserver always has CEL)."""
    if (info.group, info.kind) != ("apiextensions.k8s.io", "CustomResourceDefinition"):
        return []
    from kcodec.api.apiextensions import cel
    from kcodec.api.apiextensions.validation import warnings_for_custom_resource_definition

    out = warnings_for_custom_resource_definition(crd, old)
    if cel.cel_available():
        return out
    spec = crd.spec
    schemas = [spec.validation.open_apiv3_schema if spec.validation is not None else None]
    schemas += [v.schema.open_apiv3_schema if v.schema is not None else None for v in spec.versions or ()]
    if any(s is not None and _has_rules(s) for s in schemas):
        return out + [cel.CEL_UNAVAILABLE_WARNING]
    return out


def _has_rules(props: Any) -> bool:
    """Whether an internal JSONSchemaProps has x-kubernetes-validations anywhere below it."""
    if props is None:
        return False
    if props.x_validations:
        return True
    subs = list((props.properties or {}).values()) + list(props.all_of or ())
    if props.items is not None:
        subs.append(props.items.schema)
        subs.extend(props.items.json_schemas or ())
    if props.additional_properties is not None:
        subs.append(props.additional_properties.schema)
    return any(_has_rules(s) for s in subs)


class BuiltinStatusStrategy(BuiltinStrategy):
    """The ``/status`` strategy: status from the request, everything else from the stored
    object (spec and, per kind, metadata), then the kind's status validation."""

    def prepare_for_update(self, ctx: Context, obj: Any, old: Any) -> None:
        for name in type(obj).__slots__:
            if name not in ("metadata", "status"):
                setattr(obj, name, getattr(old, name))
        m, o = accessor(obj), accessor(old)
        mode = self.info.status_meta
        if mode == "reset":
            _reset_object_meta_for_status(m, o)
        elif mode == "labels":
            m.set_labels(o.get_labels())
        elif mode == "pod":
            m.set_deletion_timestamp(None)
            m.meta.owner_references = o.meta.owner_references
        status_hook = STATUS_UPDATE.get((self.info.group, self.info.kind))
        if status_hook is not None:
            status_hook(ctx, obj, old)

    def warnings_on_update(self, ctx: Context, obj: Any, old: Any) -> list[str]:
        return []

    def validate_update(self, ctx: Context, obj: Any, old: Any) -> Any:
        fn = validation_function(self.info.group, self.info.kind, "_status_update")
        if fn is not None:
            return fn(obj, old)
        return rest._error_list()


def _reset_object_meta_for_status(m: Any, old: Any) -> None:
    """apimachinery ``metav1.ResetObjectMetaForStatus``."""
    m.set_deletion_timestamp(old.get_deletion_timestamp())
    m.set_generation(old.get_generation())
    m.set_labels(old.get_labels())
    m.set_annotations(old.get_annotations())
    m.set_finalizers(old.get_finalizers())
    m.meta.owner_references = old.meta.owner_references


# ------------------------------------------------------------------------------ pods

_COMPUTE = ("cpu", "memory")


def _add(total: dict[str, Any], name: str, q: Any) -> None:
    """Sum quantities exactly (Go's ``Quantity.Add``) through their decimal values."""
    from decimal import Decimal

    from kcodec.types import Quantity

    if name not in total:
        total[name] = q
        return
    prev = total[name]
    value = Decimal(prev.milli_value()) + Decimal(q.milli_value())
    total[name] = Quantity(f"{value}m")


def get_pod_qos(pod: Any) -> str:
    """k/k ``pkg/apis/core/helper/qos.ComputePodQOS``: BestEffort, Burstable or Guaranteed
    from the cpu and memory requests and limits (the pod-level resources when set, else
    the containers' and init containers')."""
    from kcodec.types import Quantity

    zero = Quantity("0")
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    guaranteed = True
    pod_resources = getattr(pod.spec, "resources", None)
    if pod_resources is not None:
        sources = [pod_resources]
        check_limits_only_when_set = True
    else:
        sources = [c.resources for c in list(pod.spec.containers or ()) + list(pod.spec.init_containers or ())]
        check_limits_only_when_set = False
    for res in sources:
        if res is None:
            if not check_limits_only_when_set:
                guaranteed = False
            continue
        for name, q in (res.requests or {}).items():
            if name in _COMPUTE and q.cmp(zero) == 1:
                _add(requests, name, q)
        found: set[str] = set()
        for name, q in (res.limits or {}).items():
            if name in _COMPUTE and q.cmp(zero) == 1:
                found.add(name)
                _add(limits, name, q)
        if (res.limits or not check_limits_only_when_set) and not set(_COMPUTE) <= found:
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed:
        for name, req in requests.items():
            lim = limits.get(name)
            if lim is None or lim.cmp(req) != 0:
                guaranteed = False
                break
    if guaranteed and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def _pod_prepare_for_create(ctx: Context, pod: Any) -> None:
    """k/k podStrategy.PrepareForCreate: status reset to phase Pending with the QoS
    class; the SchedulingGated condition when the pod has scheduling gates."""
    from kcodec.api.core import internal as core

    pod.status = core.PodStatus(phase="Pending", qos_class=get_pod_qos(pod))
    if pod.spec.scheduling_gates:
        pod.status.conditions = [core.PodCondition(
            type="PodScheduled", status="False", reason="SchedulingGated",
            message="Scheduling is blocked due to non-empty scheduling gates")]


def _pod_status_update(ctx: Context, pod: Any, old: Any) -> None:
    """k/k podStatusStrategy: nominatedNodeName and the QoS class stay as they were."""
    if not pod.status.qos_class:
        pod.status.qos_class = old.status.qos_class


def _namespace_prepare_for_create(ctx: Context, ns: Any) -> None:
    """k/k namespaceStrategy.PrepareForCreate: phase Active, the kubernetes finalizer, and
    the ``kubernetes.io/metadata.name`` label."""
    from kcodec.api.core import internal as core

    ns.status = core.NamespaceStatus(phase="Active")
    finalizers = list(ns.spec.finalizers or ())
    if "kubernetes" not in finalizers:
        finalizers.append("kubernetes")
    ns.spec.finalizers = finalizers
    _namespace_label(ns)


def _namespace_prepare_for_update(ctx: Context, ns: Any, old: Any) -> None:
    ns.spec.finalizers = old.spec.finalizers
    ns.status = old.status
    _namespace_label(ns)


def _namespace_label(ns: Any) -> None:
    labels = dict(ns.metadata.labels or {})
    labels["kubernetes.io/metadata.name"] = ns.metadata.name
    ns.metadata.labels = labels


def _pv_prepare_for_create(ctx: Context, pv: Any) -> None:
    """k/k persistentvolumeStrategy.PrepareForCreate: phase Pending, lastPhaseTransitionTime now."""
    from kcodec.api.core import internal as core

    pv.status = core.PersistentVolumeStatus(phase="Pending", last_phase_transition_time=now())


def _pvc_prepare_for_create(ctx: Context, pvc: Any) -> None:
    """k/k persistentvolumeclaimStrategy.PrepareForCreate: status reset, phase Pending."""
    from kcodec.api.core import internal as core

    pvc.status = core.PersistentVolumeClaimStatus(phase="Pending")


def _job_prepare_for_create(ctx: Context, job: Any) -> None:
    """k/k jobStrategy.PrepareForCreate: ``generateSelectorIfNeeded`` (unless
    spec.manualSelector): the job-name and controller-uid labels (legacy and
    batch.kubernetes.io/ forms) on the template, the controller-uid in the selector."""
    if job.spec.manual_selector:
        return
    from kcodec.api.meta.v1 import LabelSelector

    template_labels = dict(job.spec.template.metadata.labels or {})
    for key in ("job-name", "batch.kubernetes.io/job-name"):
        template_labels.setdefault(key, job.metadata.name)
    for key in ("controller-uid", "batch.kubernetes.io/controller-uid"):
        template_labels.setdefault(key, job.metadata.uid)
    job.spec.template.metadata.labels = template_labels
    if job.spec.selector is None:
        job.spec.selector = LabelSelector()
    match = dict(job.spec.selector.match_labels or {})
    match.setdefault("batch.kubernetes.io/controller-uid", job.metadata.uid)
    job.spec.selector.match_labels = match


def _record_storage_version(crd: Any) -> None:
    """apiextensions-apiserver's CRD strategy: the storage version joins status.storedVersions."""
    for v in crd.spec.versions or ():
        if v.storage:
            stored = list(crd.status.stored_versions or ())
            if v.name not in stored:
                stored.append(v.name)
            crd.status.stored_versions = stored
            break


def _crd_prepare_for_create(ctx: Context, crd: Any) -> None:
    """CRD PrepareForCreate: status reset and generation 1 (the table), storedVersions."""
    _record_storage_version(crd)


def _crd_prepare_for_update(ctx: Context, crd: Any, old: Any) -> None:
    """CRD PrepareForUpdate: status kept (the table), a new storage version recorded."""
    crd.status = crd.status.deep_copy()
    _record_storage_version(crd)


def _csr_prepare_for_create(ctx: Context, csr: Any) -> None:
    """k/k csrStrategy.PrepareForCreate: the requester's identity from the context."""
    user = ctx.user
    if user is not None:
        csr.spec.username = user.name
        csr.spec.uid = user.uid
        csr.spec.groups = list(user.groups) or None


def _csr_prepare_for_update(ctx: Context, csr: Any, old: Any) -> None:
    csr.spec = old.spec


def _deployment_prepare_for_update(ctx: Context, d: Any, old: Any) -> None:
    """k/k deploymentStrategy.PrepareForUpdate: annotation changes bump the generation too
    (annotations are copied from Deployments to their ReplicaSets)."""
    m, o = accessor(d), accessor(old)
    if m.get_generation() == o.get_generation() and (d.metadata.annotations or {}) != (old.metadata.annotations or {}):
        m.set_generation(o.get_generation() + 1)


def _daemon_set_prepare_for_create(ctx: Context, ds: Any) -> None:
    """k/k daemonSetStrategy.PrepareForCreate: templateGeneration starts at 1."""
    if not ds.spec.template_generation:
        ds.spec.template_generation = 1


def _daemon_set_prepare_for_update(ctx: Context, ds: Any, old: Any) -> None:
    """k/k daemonSetStrategy.PrepareForUpdate: a template change bumps templateGeneration
    (unless the request set it)."""
    if ds.spec.template_generation == old.spec.template_generation and ds.spec.template != old.spec.template:
        ds.spec.template_generation = (old.spec.template_generation or 0) + 1


PREPARE_FOR_CREATE: dict[tuple[str, str], Callable[[Context, Any], None]] = {
    ("", "Pod"): _pod_prepare_for_create,
    ("", "Namespace"): _namespace_prepare_for_create,
    ("", "PersistentVolume"): _pv_prepare_for_create,
    ("", "PersistentVolumeClaim"): _pvc_prepare_for_create,
    ("batch", "Job"): _job_prepare_for_create,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _crd_prepare_for_create,
    ("apps", "DaemonSet"): _daemon_set_prepare_for_create,
    ("certificates.k8s.io", "CertificateSigningRequest"): _csr_prepare_for_create,
}

PREPARE_FOR_UPDATE: dict[tuple[str, str], Callable[[Context, Any, Any], None]] = {
    ("apps", "Deployment"): _deployment_prepare_for_update,
    ("apps", "DaemonSet"): _daemon_set_prepare_for_update,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _crd_prepare_for_update,
    ("", "Namespace"): _namespace_prepare_for_update,
    ("certificates.k8s.io", "CertificateSigningRequest"): _csr_prepare_for_update,
}

def _endpoints_canonicalize(endpoints: Any) -> None:
    """k/k endpointsStrategy.Canonicalize: endpoints.RepackSubsets on create and update."""
    from kcodec.registry.builtin.endpoints import canonicalize_endpoints

    canonicalize_endpoints(endpoints)


#: Kinds whose strategies normalize the object after validation (``Canonicalize``).
CANONICALIZE: dict[tuple[str, str], Callable[[Any], None]] = {
    ("", "Endpoints"): _endpoints_canonicalize,
}

STATUS_UPDATE: dict[tuple[str, str], Callable[[Context, Any, Any], None]] = {
    ("", "Pod"): _pod_status_update,
}


class PodSubresourceStrategy(BuiltinStrategy):
    """``pods/ephemeralcontainers`` and ``pods/resize`` (k/k podEphemeralContainersStrategy,
    podResizeStrategy): the stored pod with only the subresource's fields taken from the
    request (``dropNonEphemeralContainerUpdates`` / ``dropNonResizeUpdates``), the
    generation bumped when that changed the spec."""

    def __init__(self, info: ResourceInfo, subresource: str, scheme: Any = None) -> None:
        super().__init__(info, scheme)
        if subresource not in ("ephemeralcontainers", "resize"):
            raise ValueError(f"no pod strategy for the subresource {subresource!r}")
        self.subresource = subresource

    def __repr__(self) -> str:
        return f"PodSubresourceStrategy({self.subresource})"

    def prepare_for_update(self, ctx: Context, obj: Any, old: Any) -> None:
        new_spec = obj.spec
        meta, old_meta = obj.metadata, old.metadata.deep_copy()
        for name in type(meta).__slots__:  # the metadata object stays (callers hold it)
            if name not in ("name", "namespace", "resource_version", "uid"):
                setattr(meta, name, getattr(old_meta, name))
        for name in type(obj).__slots__:
            if name != "metadata":
                value = getattr(old, name)
                setattr(obj, name, value.deep_copy() if value is not None else None)
        if self.subresource == "ephemeralcontainers":
            obj.spec.ephemeral_containers = new_spec.ephemeral_containers
        else:
            for containers, new_containers in ((obj.spec.containers, new_spec.containers),
                                               (obj.spec.init_containers, new_spec.init_containers)):
                by_name = {c.name: c for c in new_containers or ()}
                for c in containers or ():
                    changed = by_name.get(c.name)
                    if changed is not None:
                        c.resources = changed.resources
                        c.resize_policy = changed.resize_policy
            if hasattr(new_spec, "resources"):
                obj.spec.resources = new_spec.resources
        if obj.spec != old.spec:
            accessor(obj).set_generation(accessor(old).get_generation() + 1)

    def validate_update(self, ctx: Context, obj: Any, old: Any) -> Any:
        suffix = "_ephemeral_containers_update" if self.subresource == "ephemeralcontainers" else "_resize"
        fn = validation_function("", "Pod", suffix)
        if fn is not None:
            return fn(obj, old)
        return rest._error_list()


class CSRApprovalStrategy(BuiltinStrategy):
    """``certificatesigningrequests/approval`` (k/k csrApprovalStrategy): only
    ``status.conditions`` change; spec and the rest of status stay as stored."""

    def prepare_for_update(self, ctx: Context, obj: Any, old: Any) -> None:
        conditions = obj.status.conditions
        obj.spec = old.spec
        obj.status = old.status.deep_copy()
        obj.status.conditions = conditions

    def validate_update(self, ctx: Context, obj: Any, old: Any) -> Any:
        fn = validation_function(self.info.group, self.info.kind, "_approval_update")
        if fn is not None:
            return fn(obj, old)
        return rest._error_list()
