"""The resources kube-apiserver 1.36 serves by default, as its discovery lists them.

One :class:`ResourceInfo` per resource: group, served versions (preferred first), kind,
scope, short names, categories, singular name, subresources and what its strategy does
alike with others (status reset, generation tracking). The groups and versions are the
ones ``DefaultAPIResourceConfigSource`` enables (GA versions; 1.36 has no default-on beta
resources left), plus apiextensions-apiserver's CRDs and kube-aggregator's APIServices.
Facts per resource follow the stores in k/k ``pkg/registry/<group>/<resource>/storage``
(``ShortNames()``, ``Categories()``, ``SingularQualifiedResource``) and the strategies in
``.../strategy.go``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ResourceInfo", "RESOURCES", "GROUP_ORDER", "resource_info"]


@dataclass(frozen=True)
class ResourceInfo:
    """What the registry and discovery need to know of one built-in resource.

    ``generation`` names the top-level field (or fields) whose change bumps
    metadata.generation (``"spec"``, ``"webhooks"``, EndpointSlices' three; ``None``: the
    kind does not track generation);
    ``status`` whether the main resource resets status (and a ``/status`` subresource
    exists); ``status_meta`` how the status strategy treats metadata: ``"reset"``
    (``metav1.ResetObjectMetaForStatus``), ``"labels"`` (labels kept from the old
    object), ``"pod"`` (owner references kept) or ``""`` (metadata as sent);
    ``virtual`` resources are create-only reviews that are never stored;
    ``status_on_create`` keeps the status a create sends (Nodes: "Nodes allow *all*
    fields, including status, to be set on create").
    """

    group: str
    resource: str
    kind: str
    versions: tuple[str, ...] = ("v1",)
    namespaced: bool = True
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    singular: str = ""
    status: bool = False
    status_meta: str = ""
    scale: bool = False
    generation: str | tuple[str, ...] | None = None
    name_rule: str = "subdomain"
    subresources: tuple[str, ...] = ()
    virtual: bool = False
    allow_create_on_update: bool = False
    allow_unconditional_update: bool = True
    graceful: bool = False
    status_on_create: bool = False
    extra: dict = field(default_factory=dict, hash=False, compare=False)

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()


_ALL = ("all",)
_API_EXT = ("api-extensions",)

R = ResourceInfo

#: Every resource served by default, in discovery order within each group.
RESOURCES: tuple[ResourceInfo, ...] = (
    # core/v1 (pkg/registry/core/*)
    R("", "bindings", "Binding", virtual=True),
    R("", "componentstatuses", "ComponentStatus", namespaced=False, short_names=("cs",), virtual=True),
    R("", "configmaps", "ConfigMap", short_names=("cm",)),
    R("", "endpoints", "Endpoints", short_names=("ep",), singular="endpoints",
      allow_create_on_update=True),
    R("", "events", "Event", short_names=("ev",), allow_create_on_update=True),
    R("", "limitranges", "LimitRange", short_names=("limits",), allow_create_on_update=True),
    R("", "namespaces", "Namespace", namespaced=False, short_names=("ns",), status=True,
      name_rule="label", subresources=("finalize",)),
    R("", "nodes", "Node", namespaced=False, short_names=("no",), status=True, status_on_create=True),
    R("", "persistentvolumeclaims", "PersistentVolumeClaim", short_names=("pvc",), status=True),
    R("", "persistentvolumes", "PersistentVolume", namespaced=False, short_names=("pv",), status=True),
    R("", "pods", "Pod", short_names=("po",), categories=_ALL, status=True, status_meta="pod",
      generation="spec", graceful=True,
      subresources=("binding", "eviction", "ephemeralcontainers", "resize")),
    R("", "podtemplates", "PodTemplate"),
    R("", "replicationcontrollers", "ReplicationController", short_names=("rc",), categories=_ALL,
      status=True, status_meta="labels", scale=True, generation="spec"),
    R("", "resourcequotas", "ResourceQuota", short_names=("quota",), status=True),
    R("", "secrets", "Secret"),
    R("", "serviceaccounts", "ServiceAccount", short_names=("sa",), subresources=("token",)),
    R("", "services", "Service", short_names=("svc",), categories=_ALL, status=True, name_rule="dns1035",
      allow_create_on_update=True),
    # admissionregistration.k8s.io/v1
    R("admissionregistration.k8s.io", "mutatingadmissionpolicies", "MutatingAdmissionPolicy",
      namespaced=False, categories=_API_EXT, generation="spec"),
    R("admissionregistration.k8s.io", "mutatingadmissionpolicybindings", "MutatingAdmissionPolicyBinding",
      namespaced=False, categories=_API_EXT, generation="spec"),
    R("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration",
      namespaced=False, categories=_API_EXT, generation="webhooks"),
    R("admissionregistration.k8s.io", "validatingadmissionpolicies", "ValidatingAdmissionPolicy",
      namespaced=False, categories=_API_EXT, status=True, status_meta="reset", generation="spec"),
    R("admissionregistration.k8s.io", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding",
      namespaced=False, categories=_API_EXT, generation="spec"),
    R("admissionregistration.k8s.io", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration",
      namespaced=False, categories=_API_EXT, generation="webhooks"),
    # apiextensions.k8s.io/v1 (apiextensions-apiserver)
    # The CRD status strategy calls ResetObjectMetaForStatus(new, new): metadata as sent (the
    # finalizer controller removes its finalizer through UpdateStatus).
    R("apiextensions.k8s.io", "customresourcedefinitions", "CustomResourceDefinition", namespaced=False,
      short_names=("crd", "crds"), categories=_API_EXT, status=True, status_meta="", generation="spec"),
    # apiregistration.k8s.io/v1 (kube-aggregator)
    R("apiregistration.k8s.io", "apiservices", "APIService", namespaced=False, categories=_API_EXT,
      status=True, status_meta="reset"),
    # apps/v1
    R("apps", "controllerrevisions", "ControllerRevision"),
    R("apps", "daemonsets", "DaemonSet", short_names=("ds",), categories=_ALL, status=True,
      status_meta="labels", generation="spec"),
    R("apps", "deployments", "Deployment", short_names=("deploy",), categories=_ALL, status=True,
      status_meta="labels", scale=True, generation="spec"),
    R("apps", "replicasets", "ReplicaSet", short_names=("rs",), categories=_ALL, status=True,
      status_meta="labels", scale=True, generation="spec"),
    R("apps", "statefulsets", "StatefulSet", short_names=("sts",), categories=_ALL, status=True,
      status_meta="labels", scale=True, generation="spec"),
    # authentication.k8s.io/v1 and authorization.k8s.io/v1: reviews, created and answered, never stored
    R("authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", namespaced=False, virtual=True),
    R("authentication.k8s.io", "tokenreviews", "TokenReview", namespaced=False, virtual=True),
    R("authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", virtual=True),
    R("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", namespaced=False,
      virtual=True),
    R("authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview", namespaced=False,
      virtual=True),
    R("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", namespaced=False, virtual=True),
    # autoscaling/v2, v1
    R("autoscaling", "horizontalpodautoscalers", "HorizontalPodAutoscaler", versions=("v2", "v1"),
      short_names=("hpa",), categories=_ALL, status=True),
    # batch/v1
    R("batch", "cronjobs", "CronJob", short_names=("cj",), categories=_ALL, status=True, generation="spec"),
    R("batch", "jobs", "Job", categories=_ALL, status=True, generation="spec"),
    # certificates.k8s.io/v1
    R("certificates.k8s.io", "certificatesigningrequests", "CertificateSigningRequest", namespaced=False,
      short_names=("csr",), status=True, subresources=("approval",)),
    # coordination.k8s.io/v1
    R("coordination.k8s.io", "leases", "Lease", allow_create_on_update=True),
    # discovery.k8s.io/v1
    R("discovery.k8s.io", "endpointslices", "EndpointSlice", generation=("address_type", "endpoints", "ports")),
    # events.k8s.io/v1
    R("events.k8s.io", "events", "Event", short_names=("ev",), allow_create_on_update=True),
    # flowcontrol.apiserver.k8s.io/v1
    R("flowcontrol.apiserver.k8s.io", "flowschemas", "FlowSchema", namespaced=False, status=True,
      status_meta="reset", generation="spec"),
    R("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations", "PriorityLevelConfiguration",
      namespaced=False, status=True, status_meta="reset", generation="spec"),
    # networking.k8s.io/v1
    R("networking.k8s.io", "ingressclasses", "IngressClass", namespaced=False, generation="spec"),
    R("networking.k8s.io", "ingresses", "Ingress", short_names=("ing",), status=True, generation="spec"),
    R("networking.k8s.io", "ipaddresses", "IPAddress", namespaced=False, short_names=("ip",)),
    R("networking.k8s.io", "networkpolicies", "NetworkPolicy", short_names=("netpol",), generation="spec"),
    R("networking.k8s.io", "servicecidrs", "ServiceCIDR", namespaced=False, status=True, status_meta="reset"),
    # node.k8s.io/v1
    R("node.k8s.io", "runtimeclasses", "RuntimeClass", namespaced=False, allow_create_on_update=True),
    # policy/v1
    R("policy", "poddisruptionbudgets", "PodDisruptionBudget", short_names=("pdb",), status=True,
      generation="spec"),
    # rbac.authorization.k8s.io/v1
    R("rbac.authorization.k8s.io", "clusterrolebindings", "ClusterRoleBinding", namespaced=False,
      name_rule="path", allow_create_on_update=True),
    R("rbac.authorization.k8s.io", "clusterroles", "ClusterRole", namespaced=False, name_rule="path",
      allow_create_on_update=True),
    R("rbac.authorization.k8s.io", "rolebindings", "RoleBinding", name_rule="path", allow_create_on_update=True),
    R("rbac.authorization.k8s.io", "roles", "Role", name_rule="path", allow_create_on_update=True),
    # resource.k8s.io/v1
    R("resource.k8s.io", "deviceclasses", "DeviceClass", namespaced=False, generation="spec"),
    R("resource.k8s.io", "resourceclaims", "ResourceClaim", status=True),
    R("resource.k8s.io", "resourceclaimtemplates", "ResourceClaimTemplate"),
    R("resource.k8s.io", "resourceslices", "ResourceSlice", namespaced=False, generation="spec"),
    # scheduling.k8s.io/v1
    R("scheduling.k8s.io", "priorityclasses", "PriorityClass", namespaced=False, short_names=("pc",)),
    # storage.k8s.io/v1
    R("storage.k8s.io", "csidrivers", "CSIDriver", namespaced=False),
    R("storage.k8s.io", "csinodes", "CSINode", namespaced=False),
    R("storage.k8s.io", "csistoragecapacities", "CSIStorageCapacity"),
    R("storage.k8s.io", "storageclasses", "StorageClass", namespaced=False, short_names=("sc",)),
    R("storage.k8s.io", "volumeattachments", "VolumeAttachment", namespaced=False, status=True),
    R("storage.k8s.io", "volumeattributesclasses", "VolumeAttributesClass", namespaced=False,
      short_names=("vac",)),
)

#: kube-apiserver's group order (the discovery order: legacy first, then as the REST
#: storage providers are installed, then the delegates).
GROUP_ORDER: tuple[str, ...] = (
    "", "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io",
    "autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy", "rbac.authorization.k8s.io",
    "storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
    "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "flowcontrol.apiserver.k8s.io",
    "resource.k8s.io",
)

_BY_GR = {(r.group, r.resource): r for r in RESOURCES}


def resource_info(group: str, resource: str) -> ResourceInfo | None:
    """The :class:`ResourceInfo` of ``resource.group`` (None when not served)."""
    return _BY_GR.get((group, resource))
