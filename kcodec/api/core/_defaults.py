"""Defaults of core/v1, as kube-apiserver applies them.

Follows kubernetes/kubernetes ``pkg/apis/core/v1/defaults.go`` (the ``SetDefaults_*``
functions) and the ``+default=`` markers of k8s.io/api v0.36.3 ``core/v1/types.go`` that
``zz_generated.defaults.go`` applies; :mod:`kcodec.api._defaulting` walks nested fields.
Feature gates take their Kubernetes 1.36 defaults: ``PodLevelResources`` and
``ImageVolume`` on, ``PodLogsQuerySplitStreams`` off.
"""
from __future__ import annotations

import functools
import re
from typing import Any

from kcodec.api.core import v1
from kcodec.model import fields_of
from kcodec.types import IntOrString, Quantity

__all__ = [
    "DEFAULTERS",
    "MARKERS",
    "RESOURCE_LIST_FIELDS",
    "set_defaults_resource_list",
    "image_tag",
    "round_up_milli",
]

# Feature gates (pkg/features/kube_features.go) at their 1.36 defaults.
POD_LEVEL_RESOURCES = True
IMAGE_VOLUME = True
POD_LOGS_QUERY_SPLIT_STREAMS = False

# -- resource.Quantity helpers (Go's Quantity.RoundUp / Add / Cmp) --------------------------


def round_up_milli(q: Quantity) -> Quantity:
    """``q`` rounded away from zero to milli precision (Go ``q.RoundUp(-3)``).

    A quantity already at milli scale or coarser is returned unchanged, as Go keeps it.
    """
    e = q._e
    if e >= -3 or q._m == 0:
        return q
    shift = -3 - e
    mag, rem = divmod(abs(q._m), 10 ** shift)
    if rem:
        mag += 1
    m = -mag if q._m < 0 else mag
    # Quantity is immutable and has no public constructor from (mantissa, exponent):
    # build the rounded value with the same format and amount kind, as Go mutates in place.
    return Quantity._make(m, -3, q._format, q._dec, None)


def _q_add(a: Quantity, b: Quantity) -> Quantity:
    """``a + b`` with Go's ``Quantity.Add`` format rule (a zero ``a`` takes ``b``'s)."""
    fmt = b._format if a._m == 0 else a._format
    e = min(a._e, b._e)
    m = a._m * 10 ** (a._e - e) + b._m * 10 ** (b._e - e)
    dec = a._dec or b._dec or not (-(1 << 63) <= m < (1 << 63))
    return Quantity._make(m, e, fmt, dec, None)


def set_defaults_resource_list(rl: dict[str, Quantity]) -> None:
    """``SetDefaults_ResourceList``: every value rounded up to milli precision."""
    for key, val in rl.items():
        rounded = round_up_milli(val)
        if rounded is not val:
            rl[key] = rounded


#: ``(class, field)`` pairs whose Go type is ``v1.ResourceList`` (the walker rounds them).
#: Every ``map[...]resource.Quantity`` of core/v1 is one, except
#: ``NodeAllocatableResourceClaimStatus.resources`` (a plain map in types.go).
RESOURCE_LIST_FIELDS = frozenset({
    (v1.PersistentVolumeSpec, "capacity"),
    (v1.PersistentVolumeClaimStatus, "capacity"),
    (v1.PersistentVolumeClaimStatus, "allocated_resources"),
    (v1.ResourceRequirements, "limits"),
    (v1.ResourceRequirements, "requests"),
    (v1.VolumeResourceRequirements, "limits"),
    (v1.VolumeResourceRequirements, "requests"),
    (v1.ContainerStatus, "allocated_resources"),
    (v1.PodSpec, "overhead"),
    (v1.NodeStatus, "capacity"),
    (v1.NodeStatus, "allocatable"),
    (v1.LimitRangeItem, "max"),
    (v1.LimitRangeItem, "min"),
    (v1.LimitRangeItem, "default"),
    (v1.LimitRangeItem, "default_request"),
    (v1.LimitRangeItem, "max_limit_request_ratio"),
    (v1.ResourceQuotaSpec, "hard"),
    (v1.ResourceQuotaStatus, "hard"),
    (v1.ResourceQuotaStatus, "used"),
})

# -- image references (pkg/util/parsers.ParseImageName over distribution/reference) --------

_ALNUM = r"[a-z0-9]+"
_SEP = r"(?:[._]|__|[-]+)"
_PATH_COMPONENT = _ALNUM + r"(?:" + _SEP + _ALNUM + r")*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*"
_IPV6 = r"\[(?:[a-fA-F0-9:]+)\]"
_DOMAIN = r"(?:" + _DOMAIN_NAME + "|" + _IPV6 + r")(?::[0-9]+)?"
_NAME = r"(?:" + _DOMAIN + r"/)?" + _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}"
_REFERENCE = re.compile(r"^(" + _NAME + r")(?::(" + _TAG + r"))?(?:@(" + _DIGEST + r"))?$")
_HEX64 = re.compile(r"^[a-f0-9]{64}$")
_DIGEST_HEX_LEN = {"sha256": 64, "sha384": 96, "sha512": 128}


@functools.lru_cache(maxsize=4096)  # a cluster's objects name few distinct images
def image_tag(image: str) -> str:
    """The tag kubelet pulls for ``image`` ("latest" when it names neither tag nor digest),
    or "" when the reference does not parse (Go ignores that error here)."""
    if _HEX64.match(image):
        return ""
    slash = image.find("/")
    if slash == -1 or (not any(c in image[:slash] for c in ".:") and image[:slash] != "localhost"
                       and image[:slash].lower() == image[:slash]):
        domain, remainder = "docker.io", image
    else:
        domain, remainder = image[:slash], image[slash + 1:]
    if domain == "index.docker.io":
        domain = "docker.io"
    if domain == "docker.io" and "/" not in remainder:
        remainder = "library/" + remainder
    colon = remainder.find(":")
    remote = remainder[:colon] if colon > -1 else remainder
    if remote.lower() != remote:
        return ""
    m = _REFERENCE.match(domain + "/" + remainder)
    if m is None or len(m.group(1)) > 255:
        return ""
    tag, digest = m.group(2) or "", m.group(3) or ""
    if digest:
        algo, _, hexpart = digest.partition(":")
        if _DIGEST_HEX_LEN.get(algo) != len(hexpart):
            return ""
    if not tag and not digest:
        return "latest"
    return tag


def _pull_policy_for(image: str) -> str:
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


# -- SetDefaults_* ------------------------------------------------------------------------


def set_defaults_replication_controller(obj: v1.ReplicationController) -> None:
    labels = obj.spec.template.metadata.labels if obj.spec.template is not None else None
    if labels is not None:
        if not obj.spec.selector:
            obj.spec.selector = labels
        if not obj.metadata.labels:
            obj.metadata.labels = labels


def set_defaults_volume(obj: v1.Volume) -> None:
    src = obj.volume_source
    if all(getattr(src, f) is None for f in _VOLUME_SOURCE_FIELDS):
        obj.volume_source = v1.VolumeSource(empty_dir=v1.EmptyDirVolumeSource())
        src = obj.volume_source
    if IMAGE_VOLUME and src.image is not None and src.image.pull_policy == "":
        src.image.pull_policy = _pull_policy_for(src.image.reference)


def set_defaults_container(obj: Any) -> None:
    """``SetDefaults_Container`` (also for ``EphemeralContainerCommon``, same fields)."""
    if obj.image_pull_policy == "":
        obj.image_pull_policy = _pull_policy_for(obj.image)
    if obj.termination_message_path == "":
        obj.termination_message_path = "/dev/termination-log"
    if obj.termination_message_policy == "":
        obj.termination_message_policy = "File"


def set_defaults_ephemeral_container(obj: v1.EphemeralContainer) -> None:
    set_defaults_container(obj.ephemeral_container_common)


def _externally_accessible(spec: v1.ServiceSpec) -> bool:
    return spec.type in ("LoadBalancer", "NodePort") or (spec.type == "ClusterIP" and bool(spec.external_ips))


def set_defaults_service(obj: v1.Service) -> None:
    spec = obj.spec
    if spec.session_affinity == "":
        spec.session_affinity = "None"
    if spec.session_affinity == "None":
        spec.session_affinity_config = None
    if spec.session_affinity == "ClientIP":
        cfg = spec.session_affinity_config
        if cfg is None or cfg.client_ip is None or cfg.client_ip.timeout_seconds is None:
            spec.session_affinity_config = v1.SessionAffinityConfig(
                client_ip=v1.ClientIPConfig(timeout_seconds=10800))
    if spec.type == "":
        spec.type = "ClusterIP"
    for sp in spec.ports or ():
        if sp.protocol == "":
            sp.protocol = "TCP"
        tp = sp.target_port
        if (tp.type == 0 and tp.int_val == 0) or (tp.type == 1 and tp.str_val == ""):
            sp.target_port = IntOrString.from_int(sp.port)
    if _externally_accessible(spec) and spec.external_traffic_policy == "":
        spec.external_traffic_policy = "Cluster"
    if spec.internal_traffic_policy is None and spec.type in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec.internal_traffic_policy = "Cluster"
    if spec.type == "LoadBalancer" and spec.allocate_load_balancer_node_ports is None:
        spec.allocate_load_balancer_node_ports = True
    if spec.type == "LoadBalancer":
        for ing in obj.status.load_balancer.ingress or ():
            if ing.ip != "" and ing.ip_mode is None:
                ing.ip_mode = "VIP"


def _requests_from_limits(containers: list[v1.Container] | None) -> None:
    for c in containers or ():
        res = c.resources
        if res.limits is not None:
            if res.requests is None:
                res.requests = {}
            for key, value in res.limits.items():
                if key not in res.requests:
                    res.requests[key] = value.deep_copy()


def set_defaults_pod(obj: v1.Pod) -> None:
    # Only a Pod (not a PodTemplate) gets requests from limits, before the walk rounds
    # either map: the copies are rounded with the originals.
    _requests_from_limits(obj.spec.containers)
    _requests_from_limits(obj.spec.init_containers)
    if POD_LEVEL_RESOURCES:
        # (upstream's later defaultPodLimits, pod limits from container limits, came after
        # 1.36: component-helpers at 1.36 has no AllContainersHaveLimitForResource)
        _default_huge_page_pod_limits(obj)
        _default_pod_requests(obj)
    if obj.spec.enable_service_links is None:
        obj.spec.enable_service_links = True
    if obj.spec.host_network:
        _default_host_network_ports(obj.spec.containers)
        _default_host_network_ports(obj.spec.init_containers)


def _default_host_network_ports(containers: list[v1.Container] | None) -> None:
    for c in containers or ():
        for p in c.ports or ():
            if p.host_port == 0:
                p.host_port = p.container_port


def set_defaults_pod_spec(obj: v1.PodSpec) -> None:
    if obj.dns_policy == "":
        obj.dns_policy = "ClusterFirst"
    if obj.restart_policy == "":
        obj.restart_policy = "Always"
    if obj.security_context is None:
        obj.security_context = v1.PodSecurityContext()
    if obj.termination_grace_period_seconds is None:
        obj.termination_grace_period_seconds = 30
    if obj.scheduler_name == "":
        obj.scheduler_name = "default-scheduler"


def set_defaults_probe(obj: v1.Probe) -> None:
    if obj.timeout_seconds == 0:
        obj.timeout_seconds = 1
    if obj.period_seconds == 0:
        obj.period_seconds = 10
    if obj.success_threshold == 0:
        obj.success_threshold = 1
    if obj.failure_threshold == 0:
        obj.failure_threshold = 3


def _default_mode(mode: int):
    def fn(obj: Any) -> None:
        if obj.default_mode is None:
            obj.default_mode = mode
    return fn


def set_defaults_secret(obj: v1.Secret) -> None:
    if obj.type == "":
        obj.type = "Opaque"


def set_defaults_service_account_token_projection(obj: v1.ServiceAccountTokenProjection) -> None:
    if obj.expiration_seconds is None:
        obj.expiration_seconds = 3600


def set_defaults_persistent_volume(obj: v1.PersistentVolume) -> None:
    if obj.status.phase == "":
        obj.status.phase = "Pending"
    if obj.spec.persistent_volume_reclaim_policy == "":
        obj.spec.persistent_volume_reclaim_policy = "Retain"
    if obj.spec.volume_mode is None:
        obj.spec.volume_mode = "Filesystem"


def set_defaults_persistent_volume_claim(obj: v1.PersistentVolumeClaim) -> None:
    if obj.status.phase == "":
        obj.status.phase = "Pending"


def set_defaults_persistent_volume_claim_spec(obj: v1.PersistentVolumeClaimSpec) -> None:
    if obj.volume_mode is None:
        obj.volume_mode = "Filesystem"


def set_defaults_endpoints(obj: v1.Endpoints) -> None:
    for ss in obj.subsets or ():
        for ep in ss.ports or ():
            if ep.protocol == "":
                ep.protocol = "TCP"


def set_defaults_http_get_action(obj: v1.HTTPGetAction) -> None:
    if obj.path == "":
        obj.path = "/"
    if obj.scheme == "":
        obj.scheme = "HTTP"


def set_defaults_namespace(obj: v1.Namespace) -> None:
    # A nameless (generateName) namespace gets no name label.
    if obj.metadata.name:
        if obj.metadata.labels is None:
            obj.metadata.labels = {}
        obj.metadata.labels["kubernetes.io/metadata.name"] = obj.metadata.name


def set_defaults_namespace_status(obj: v1.NamespaceStatus) -> None:
    if obj.phase == "":
        obj.phase = "Active"


def set_defaults_node_status(obj: v1.NodeStatus) -> None:
    # Go builds a copy and then assigns Capacity itself: both fields share one map.
    if obj.allocatable is None and obj.capacity is not None:
        obj.allocatable = obj.capacity


def set_defaults_object_field_selector(obj: v1.ObjectFieldSelector) -> None:
    if obj.api_version == "":
        obj.api_version = "v1"


def set_defaults_limit_range_item(obj: v1.LimitRangeItem) -> None:
    if obj.type != "Container":
        return
    if obj.default is None:
        obj.default = {}
    if obj.default_request is None:
        obj.default_request = {}
    for key, value in (obj.max or {}).items():
        if key not in obj.default:
            obj.default[key] = value.deep_copy()
    for key, value in obj.default.items():
        if key not in obj.default_request:
            obj.default_request[key] = value.deep_copy()
    for key, value in (obj.min or {}).items():
        if key not in obj.default_request:
            obj.default_request[key] = value.deep_copy()


def set_defaults_config_map(obj: v1.ConfigMap) -> None:
    if obj.data is None:
        obj.data = {}


def set_defaults_host_path_volume_source(obj: v1.HostPathVolumeSource) -> None:
    if obj.type is None:
        obj.type = ""


def set_defaults_pod_log_options(obj: v1.PodLogOptions) -> None:
    if POD_LOGS_QUERY_SPLIT_STREAMS and obj.stream is None:
        obj.stream = "All"


# -- pod-level resources (KEP-2837; component-helpers/resource) -----------------------------

_HUGEPAGES = "hugepages-"


def _is_huge_page(name: str) -> bool:
    return name.startswith(_HUGEPAGES)


def _is_supported_pod_level(name: str) -> bool:
    return name in ("cpu", "memory") or _is_huge_page(name)


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not _is_huge_page(name)


def _add_into(total: dict[str, Quantity], rl: dict[str, Quantity] | None) -> None:
    for name, q in (rl or {}).items():
        if name in total:
            total[name] = _q_add(total[name], q)
        else:
            total[name] = q.deep_copy()


def _max_into(total: dict[str, Quantity], rl: dict[str, Quantity]) -> None:
    for name, q in rl.items():
        if name not in total or q.cmp(total[name]) > 0:
            total[name] = q.deep_copy()


def _aggregate(pod: v1.Pod, which: str) -> dict[str, Quantity]:
    """Go ``AggregateContainerRequests``/``Limits``: regular and sidecar containers add up,
    plain init containers count by their maximum (each on top of earlier sidecars)."""
    total: dict[str, Quantity] = {}
    for c in pod.spec.containers or ():
        _add_into(total, getattr(c.resources, which))
    sidecars: dict[str, Quantity] = {}
    init_max: dict[str, Quantity] = {}
    for c in pod.spec.init_containers or ():
        own = getattr(c.resources, which)
        if c.restart_policy == "Always":
            _add_into(total, own)
            _add_into(sidecars, own)
            current = sidecars
        else:
            current = {}
            _add_into(current, own)
            _add_into(current, sidecars)
        _max_into(init_max, current)
    _max_into(total, init_max)
    return total


def _default_huge_page_pod_limits(pod: v1.Pod) -> None:
    res = pod.spec.resources
    if res is None or (not res.limits and not res.requests):
        return
    lims = res.limits if res.limits is not None else {}
    for key, q in _aggregate(pod, "limits").items():
        if not _is_supported_pod_level(key) or not _is_huge_page(key):
            continue
        if key in (res.requests or {}):
            continue
        if key not in lims:
            lims[key] = q.deep_copy()
    if lims:
        res.limits = lims


def _default_pod_requests(pod: v1.Pod) -> None:
    res = pod.spec.resources
    if res is None or not res.limits:
        return
    reqs = res.requests if res.requests is not None else {}
    for key, q in _aggregate(pod, "requests").items():
        if key not in reqs and _is_supported_pod_level(key) and _is_overcommit_allowed(key):
            reqs[key] = q.deep_copy()
    for key, q in res.limits.items():
        if key not in reqs and _is_supported_pod_level(key):
            reqs[key] = q.deep_copy()
    if reqs:
        res.requests = reqs


_VOLUME_SOURCE_FIELDS = tuple(f.name for f in fields_of(v1.VolumeSource))

DEFAULTERS = {
    v1.ReplicationController: set_defaults_replication_controller,
    v1.Volume: set_defaults_volume,
    v1.Container: set_defaults_container,
    v1.EphemeralContainer: set_defaults_ephemeral_container,
    v1.Service: set_defaults_service,
    v1.Pod: set_defaults_pod,
    v1.PodSpec: set_defaults_pod_spec,
    v1.Probe: set_defaults_probe,
    v1.SecretVolumeSource: _default_mode(0o644),
    v1.ConfigMapVolumeSource: _default_mode(0o644),
    v1.DownwardAPIVolumeSource: _default_mode(0o644),
    v1.ProjectedVolumeSource: _default_mode(0o644),
    v1.Secret: set_defaults_secret,
    v1.ServiceAccountTokenProjection: set_defaults_service_account_token_projection,
    v1.PersistentVolume: set_defaults_persistent_volume,
    v1.PersistentVolumeClaim: set_defaults_persistent_volume_claim,
    v1.PersistentVolumeClaimSpec: set_defaults_persistent_volume_claim_spec,
    v1.Endpoints: set_defaults_endpoints,
    v1.HTTPGetAction: set_defaults_http_get_action,
    v1.Namespace: set_defaults_namespace,
    v1.NamespaceStatus: set_defaults_namespace_status,
    v1.NodeStatus: set_defaults_node_status,
    v1.ObjectFieldSelector: set_defaults_object_field_selector,
    v1.LimitRangeItem: set_defaults_limit_range_item,
    v1.ConfigMap: set_defaults_config_map,
    v1.HostPathVolumeSource: set_defaults_host_path_volume_source,
    v1.PodLogOptions: set_defaults_pod_log_options,
}

#: ``+default=`` markers of core/v1/types.go (zero-valued markers, which change nothing,
#: are left out: ReplicationControllerSpec.minReadySeconds=0, LocalObjectReference.name="").
MARKERS = {
    (v1.RBDVolumeSource, "rbd_pool"): "rbd",
    (v1.RBDVolumeSource, "rados_user"): "admin",
    (v1.RBDVolumeSource, "keyring"): "/etc/ceph/keyring",
    (v1.RBDPersistentVolumeSource, "rbd_pool"): "rbd",
    (v1.RBDPersistentVolumeSource, "rados_user"): "admin",
    (v1.RBDPersistentVolumeSource, "keyring"): "/etc/ceph/keyring",
    (v1.ISCSIVolumeSource, "iscsi_interface"): "default",
    (v1.ISCSIPersistentVolumeSource, "iscsi_interface"): "default",
    (v1.AzureDiskVolumeSource, "caching_mode"): "ReadWrite",
    (v1.AzureDiskVolumeSource, "fs_type"): "ext4",
    (v1.AzureDiskVolumeSource, "read_only"): False,
    (v1.AzureDiskVolumeSource, "kind"): "Shared",
    (v1.ScaleIOVolumeSource, "storage_mode"): "ThinProvisioned",
    (v1.ScaleIOVolumeSource, "fs_type"): "xfs",
    (v1.ScaleIOPersistentVolumeSource, "storage_mode"): "ThinProvisioned",
    (v1.ScaleIOPersistentVolumeSource, "fs_type"): "xfs",
    (v1.ContainerPort, "protocol"): "TCP",
    (v1.FileKeySelector, "optional"): False,
    (v1.GRPCAction, "service"): "",
    (v1.ReplicationControllerSpec, "replicas"): 1,
    (v1.ServicePort, "protocol"): "TCP",
}
