"""The built-in resources on the registry: every Go-written fixture kind created through its
store, discovery facts, and the strategies and subresources of k/k pkg/registry."""
from __future__ import annotations

import ipaddress

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)
from _registry_env import backend, deployment_manifest, internal, make_getter, pod_manifest  # noqa: F401
from conftest import fixtures_dir
from kcodec import legacyscheme
from kcodec.api import errors as apierrors
from kcodec.api.apps import internal as apps
from kcodec.api.autoscaling import internal as autoscaling
from kcodec.api.core import internal as core
from kcodec.api.meta.v1 import DeleteOptions
from kcodec.api.policy import internal as policy
from kcodec.registry import rest
from kcodec.registry.builtin import (
    RESOURCES,
    api_group_infos,
    first_service_ip,
    get_pod_qos,
    new_store,
    resource_info,
)
from kcodec.registry.builtin.strategies import validation_function
from kcodec.registry.request import Context, UserInfo
from kcodec.schema import GroupVersion
from kcodec.types import Quantity

NS = Context(namespace="default")


@pytest.fixture
def getter(backend, tmp_path, request):
    return make_getter(backend, tmp_path, request)


@pytest.fixture
def sqlite_getter(tmp_path, request):
    return make_getter("sqlite", tmp_path, request)


@pytest.fixture
def infos(sqlite_getter):
    out = api_group_infos(sqlite_getter)
    yield {i.group: i for i in out}
    for i in out:
        i.destroy()


def storage(infos, group, name, version=None):
    gi = infos[group]
    v = version or gi.prioritized_versions[0].version
    return gi.versioned_resources_storage_map[v][name]


def test_destroy_stops_the_stores_built_for_subresources(sqlite_getter):
    # Without the policy group, pods/eviction still needs a PodDisruptionBudget store; only
    # the core group's info holds it, so its destroy() must stop that store's watch cache too.
    (core,) = api_group_infos(sqlite_getter, groups={""})
    pdbs = core.versioned_resources_storage_map["v1"]["pods/eviction"].pdb_store
    assert pdbs in core.owned_stores and pdbs.destroy_func is not None
    core.destroy()
    assert pdbs.destroy_func is None
    assert all(getattr(s, "destroy_func", None) is None
               for s in core.versioned_resources_storage_map["v1"].values() if hasattr(s, "destroy_func"))


# ------------------------------------------------------------------------------ discovery

def test_groups_versions_and_facts(infos):
    assert list(infos)[:3] == ["", "apiregistration.k8s.io", "apps"]
    assert infos["autoscaling"].prioritized_versions == [GroupVersion("autoscaling", "v2"),
                                                          GroupVersion("autoscaling", "v1")]
    pods = storage(infos, "", "pods")
    assert (pods.short_names(), pods.categories(), pods.get_single_name()) == (["po"], ["all"], "pod")
    assert storage(infos, "apiextensions.k8s.io", "customresourcedefinitions").short_names() == ["crd", "crds"]
    assert not storage(infos, "", "nodes").namespace_scoped()
    core_map = infos[""].versioned_resources_storage_map["v1"]
    for sub in ("pods/status", "pods/binding", "pods/eviction", "replicationcontrollers/scale", "services/status"):
        assert sub in core_map
    assert storage(infos, "apps", "deployments/scale").group_version_kind().kind == "Scale"
    assert storage(infos, "autoscaling", "horizontalpodautoscalers", "v1") is \
        storage(infos, "autoscaling", "horizontalpodautoscalers", "v2")


# ------------------------------------------------------------------------------ fixtures

_KINDS = {(r.group, r.kind): r for r in RESOURCES if not r.virtual}


def _fixture_objects():
    directory = fixtures_dir()
    decoder = legacyscheme.codecs.universal_decoder()
    seen = set()
    for path in sorted(directory.glob("*.json")):
        data = path.read_bytes()
        try:
            obj, gvk = decoder.decode(data)
        except Exception:  # noqa: BLE001 - kinds outside the legacy scheme (e.g. resource.k8s.io)
            continue
        info = _KINDS.get((gvk.group, gvk.kind))
        if info is None or (gvk.group, gvk.kind) in seen:
            continue
        seen.add((gvk.group, gvk.kind))
        yield info, obj


def _sanitize(obj, info):
    m = obj.metadata
    m.name = "fixture"
    m.generate_name = ""
    m.namespace = "default" if info.namespaced else ""
    m.resource_version = ""
    m.uid = ""
    m.self_link = ""
    m.owner_references = None
    m.finalizers = None
    m.managed_fields = None
    m.deletion_timestamp = None
    m.deletion_grace_period_seconds = None
    m.labels = {"fixture": "yes"}
    m.annotations = None


def test_every_fixture_kind_through_the_registry(getter):
    """Go-written objects of every served kind: created (or refused with a 422, never
    anything else), read back equal, updated, listed by label and deleted."""
    created = refused = 0
    for info, obj in _fixture_objects():
        store = new_store(info, getter)
        ctx = Context(namespace="default" if info.namespaced else "")
        _sanitize(obj, info)
        try:
            out = store.create(ctx, obj)
        except apierrors.StatusError as exc:
            assert exc.code == 422, (info.resource, str(exc))
            # only a kind's spec validation refuses the fixtures' placeholder values
            assert validation_function(info.group, info.kind) is not None, (info.resource, str(exc))
            refused += 1
            continue
        created += 1
        assert store.get(ctx, "fixture") == out, info.resource
        assert out.metadata.uid and out.metadata.resource_version
        if info.generation:
            assert out.metadata.generation == 1, info.resource
        again = out.deep_copy()
        again.metadata.labels = {"fixture": "yes", "touched": "1"}
        try:
            updated, _ = store.update(ctx, "fixture", rest.DefaultUpdatedObjectInfo(again))
        except apierrors.StatusError as exc:
            assert exc.code == 422, (info.resource, str(exc))
        else:
            assert updated.metadata.labels["touched"] == "1"
        from kcodec import labels

        listed = store.list(ctx, rest.ListOptions(label_selector=labels.parse("fixture=yes")))
        assert [i.metadata.name for i in listed.items] == ["fixture"], info.resource
        store.delete(ctx, "fixture", options=DeleteOptions(grace_period_seconds=0))
    # the fixtures hold placeholder values ("nameValue"...): kinds with spec validation refuse
    # them (more as kcodec.api.*.validation grows); the others are created
    assert created >= 5 and created + refused >= 50, (created, refused)


# ------------------------------------------------------------------------------ pods

def _container(name, requests=None, limits=None):
    c = core.Container(name=name, image="nginx")
    c.resources.requests = {k: Quantity(v) for k, v in (requests or {}).items()} or None
    c.resources.limits = {k: Quantity(v) for k, v in (limits or {}).items()} or None
    return c


@pytest.mark.parametrize("containers,qos", [
    ([_container("a")], "BestEffort"),
    ([_container("a", {"cpu": "100m"})], "Burstable"),
    ([_container("a", {"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})], "Guaranteed"),
    ([_container("a", {"cpu": "1000m", "memory": "1Gi"}, {"cpu": "1", "memory": "1024Mi"})], "Guaranteed"),
    ([_container("a", {"cpu": "1", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"})], "Burstable"),
    ([_container("a", None, {"cpu": "1", "memory": "1Gi"}), _container("b")], "Burstable"),
])
def test_pod_qos(containers, qos):
    p = core.Pod()
    p.spec.containers = containers
    assert get_pod_qos(p) == qos


def test_pod_create_is_pending_with_qos(infos):
    pods = storage(infos, "", "pods")
    full = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
    p = internal(pod_manifest("web", resources=[full], schedulingGates=[{"name": "example.com/wait"}]))
    p.status.phase = "Running"
    out = pods.create(NS, p)
    assert (out.status.phase, out.status.qos_class, out.metadata.generation) == ("Pending", "Guaranteed", 1)
    assert out.status.conditions[0].reason == "SchedulingGated"


def test_binding_assigns_a_node_once(infos):
    pods = storage(infos, "", "pods")
    binding_rest = storage(infos, "", "pods/binding")
    pods.create(NS, internal(pod_manifest("b")))
    b = core.Binding()
    b.metadata.name = "b"
    b.target = core.ObjectReference(kind="Node", name="node-1")
    assert binding_rest.create(NS, "b", b).status == "Success"
    bound = pods.get(NS, "b")
    assert bound.spec.node_name == "node-1"
    assert [c.type for c in bound.status.conditions] == ["PodScheduled"]
    with pytest.raises(apierrors.StatusError) as e:
        binding_rest.create(NS, "b", b)
    assert str(e.value) == 'Operation cannot be fulfilled on pods "b": pod b is already assigned to node "node-1"'
    b.target.name = ""
    with pytest.raises(apierrors.StatusError) as e:
        binding_rest.create(NS, "b", b)
    assert str(e.value) == 'Binding "b" is invalid: target.name: Required value'


def test_eviction_honours_the_pdb(infos):
    pods = storage(infos, "", "pods")
    pod_status = storage(infos, "", "pods/status")
    pdbs = storage(infos, "policy", "poddisruptionbudgets")
    pdb_status = storage(infos, "policy", "poddisruptionbudgets/status")
    eviction_rest = storage(infos, "", "pods/eviction")
    for name in ("e1", "e2"):
        pods.create(NS, internal(pod_manifest(name, labels={"app": "e"})))
        running = pods.get(NS, name)
        running.status.phase = "Running"
        running.status.conditions = [core.PodCondition(type="Ready", status="True")]
        pod_status.update(NS, name, rest.DefaultUpdatedObjectInfo(running))
    pdbs.create(NS, internal({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                              "metadata": {"name": "budget"},
                              "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "e"}}}}))
    current = pdbs.get(NS, "budget")
    current.status.observed_generation = current.metadata.generation
    current.status.disruptions_allowed = 1
    current.status.current_healthy = 2
    current.status.desired_healthy = 1
    current.status.expected_pods = 2
    pdb_status.update(NS, "budget", rest.DefaultUpdatedObjectInfo(current))

    def evict(name):
        ev = policy.Eviction()
        ev.metadata.name = name
        return eviction_rest.create(NS, name, ev)

    assert evict("e1").status == "Success"
    with pytest.raises(apierrors.StatusError):
        pods.get(NS, "e1")
    after = pdbs.get(NS, "budget")
    assert after.status.disruptions_allowed == 0 and "e1" in after.status.disrupted_pods
    with pytest.raises(apierrors.StatusError) as e:
        evict("e2")
    assert (e.value.code, e.value.reason) == (429, "TooManyRequests")
    assert str(e.value) == "Cannot evict pod as it would violate the pod's disruption budget."
    cause = e.value.status.details.causes[0]
    assert (cause.type, cause.message) == ("DisruptionBudget",
                                           "The disruption budget budget needs 1 healthy pods and has 2 currently")
    assert pods.get(NS, "e2").metadata.name == "e2"


# ------------------------------------------------------------------------------ scale

def test_scale_subresource(infos):
    deployments = storage(infos, "apps", "deployments")
    scale_rest = storage(infos, "apps", "deployments/scale")
    deployments.create(NS, internal(deployment_manifest("web")))
    scale = scale_rest.get(NS, "web")
    assert isinstance(scale, autoscaling.Scale)
    assert (scale.spec.replicas, scale.status.selector) == (1, "app=web")
    scale.spec.replicas = 4
    out, _ = scale_rest.update(NS, "web", rest.DefaultUpdatedObjectInfo(scale))
    assert out.spec.replicas == 4
    stored = deployments.get(NS, "web")
    assert (stored.spec.replicas, stored.metadata.generation) == (4, 2)
    with pytest.raises(apierrors.StatusError) as e:
        scale_rest.update(NS, "web", rest.DefaultUpdatedObjectInfo(scale))  # stale resourceVersion
    assert e.value.reason == "Conflict"
    fresh = scale_rest.get(NS, "web")
    fresh.spec.replicas = -1
    with pytest.raises(apierrors.StatusError) as e:
        scale_rest.update(NS, "web", rest.DefaultUpdatedObjectInfo(fresh))
    assert str(e.value) == ('Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: '
                            'must be greater than or equal to 0')


# ------------------------------------------------------------------------------ services

def _service(name, type_="ClusterIP", cluster_ip="", node_port=0):
    port = {"name": "http", "protocol": "TCP", "port": 80}
    if node_port:
        port["nodePort"] = node_port
    spec = {"type": type_, "selector": {"app": name}, "ports": [port]}
    if cluster_ip:
        spec["clusterIP"] = cluster_ip
    return internal({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec})


def test_service_cluster_ips_and_node_ports(getter, request):
    built = api_group_infos(getter, groups={"", "networking.k8s.io"})
    request.addfinalizer(lambda: [i.destroy() for i in built])
    infos = {i.group: i for i in built}
    services = storage(infos, "", "services")
    ipaddresses = storage(infos, "networking.k8s.io", "ipaddresses")
    kubernetes = services.create(NS, _service("kubernetes", cluster_ip=first_service_ip()))
    assert kubernetes.spec.cluster_ip == "10.0.0.1" and kubernetes.spec.cluster_ips == ["10.0.0.1"]
    a = services.create(NS, _service("a"))
    ip = ipaddress.ip_address(a.spec.cluster_ip)
    assert ip in ipaddress.ip_network("10.0.0.0/24") and int(str(ip).rsplit(".", 1)[1]) > 16  # upper band
    assert (a.spec.ip_families, a.spec.ip_family_policy) == (["IPv4"], "SingleStack")
    ipa = ipaddresses.get(Context(), a.spec.cluster_ip)
    assert (ipa.spec.parent_ref.resource, ipa.spec.parent_ref.name) == ("services", "a")
    with pytest.raises(apierrors.StatusError) as e:
        services.create(NS, _service("dup", cluster_ip=a.spec.cluster_ip))
    assert str(e.value) == (f'Service "dup" is invalid: spec.clusterIPs[0]: Invalid value: "{a.spec.cluster_ip}": '
                            f'failed to allocate IP {a.spec.cluster_ip}: provided IP is already allocated')
    with pytest.raises(apierrors.StatusError) as e:
        services.create(NS, _service("out", cluster_ip="10.9.0.1"))
    assert "the provided IP (10.9.0.1) is not in the valid range. The range of valid IPs is 10.0.0.0/24" \
        in str(e.value)
    np = services.create(NS, _service("np", "NodePort"))
    port = np.spec.ports[0].node_port
    assert 30000 <= port <= 32767
    with pytest.raises(apierrors.StatusError) as e:
        services.create(NS, _service("np2", "NodePort", node_port=port))
    assert str(e.value) == (f'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: {port}: '
                            'provided port is already allocated')
    ranges = services.port_allocator.storage.get("/ranges/servicenodeports")
    assert ranges.range == "30000-32767"
    assert int.from_bytes(ranges.data, "big") == 1 << (port - 30000)  # Go's big.Int bitmap
    services.delete(NS, "np")
    again_np = services.create(NS, _service("np2", "NodePort", node_port=port))  # released on delete
    assert again_np.spec.ports[0].node_port == port
    lb = _service("lb", "LoadBalancer")
    lb.spec.external_traffic_policy = "Local"
    lb = services.create(NS, lb)
    assert 30000 <= lb.spec.health_check_node_port <= 32767
    headless = services.create(NS, _service("headless", cluster_ip="None"))
    assert headless.spec.cluster_ips == ["None"]
    # an update that leaves clusterIP empty keeps the allocation (PatchAllocatedValues)
    again = services.get(NS, "a")
    again.spec.cluster_ip = ""
    again.spec.cluster_ips = None
    updated, _ = services.update(NS, "a", rest.DefaultUpdatedObjectInfo(again))
    assert updated.spec.cluster_ip == a.spec.cluster_ip
    services.delete(NS, "a")
    with pytest.raises(apierrors.StatusError):
        ipaddresses.get(Context(), a.spec.cluster_ip)
    for i in infos.values():
        i.destroy()


# ------------------------------------------------------------------------------ namespaces, reviews

def test_namespace_strategy(infos):
    namespaces = storage(infos, "", "namespaces")
    ns = core.Namespace()
    ns.metadata.name = "team-a"
    out = namespaces.create(Context(), ns)
    assert out.status.phase == "Active" and out.spec.finalizers == ["kubernetes"]
    assert out.metadata.labels == {"kubernetes.io/metadata.name": "team-a"}
    bad = core.Namespace()
    bad.metadata.name = "a.b"
    with pytest.raises(apierrors.StatusError) as e:
        namespaces.create(Context(), bad)
    assert str(e.value) == 'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots'


def test_reviews(infos):
    from kcodec.api.authentication import internal as authn
    from kcodec.api.authorization import internal as authz

    who = storage(infos, "authentication.k8s.io", "selfsubjectreviews")
    out = who.create(Context(user=UserInfo(name="alice", groups=["dev"])), authn.SelfSubjectReview())
    assert (out.status.user_info.username, out.status.user_info.groups) == ("alice", ["dev"])
    can = storage(infos, "authorization.k8s.io", "selfsubjectaccessreviews")
    review = authz.SelfSubjectAccessReview()
    review.spec.resource_attributes = authz.ResourceAttributes(verb="get", resource="pods")
    assert can.create(Context(), review).status.allowed is True


def _decode_fixture(path, decoder):
    obj, _ = decoder.decode(path.read_bytes())
    return obj


def test_crd_and_resource_group_fixtures(sqlite_getter):
    """A CRD (apiextensions-apiserver's fixture, internal version, JSON under
    apiextensions.k8s.io/customresourcedefinitions) and a resource.k8s.io DeviceClass (held in
    resource.k8s.io's internal version, as k/k pkg/apis/resource)."""
    crd_path = fixtures_dir().parent.parent / "apiextensions-apiserver-v0.36.3" / "HEAD" / \
        "apiextensions.k8s.io.v1.CustomResourceDefinition.json"
    crd = _decode_fixture(crd_path, legacyscheme.codecs.universal_decoder())
    info = resource_info("apiextensions.k8s.io", "customresourcedefinitions")
    _sanitize(crd, info)
    crds = new_store(info, sqlite_getter)
    try:
        out = crds.create(Context(), crd)
    except apierrors.StatusError as exc:
        assert exc.code == 422, str(exc)
    else:
        assert out.metadata.generation == 1 and not out.status.conditions
        assert crds.storage.kv.get(b"/registry/apiextensions.k8s.io/customresourcedefinitions/fixture")[0] \
            is not None
    dc = _decode_fixture(fixtures_dir() / "resource.k8s.io.v1.DeviceClass.json", legacyscheme.codecs.universal_decoder())
    info = resource_info("resource.k8s.io", "deviceclasses")
    _sanitize(dc, info)
    classes = new_store(info, sqlite_getter)
    # The fixture's fuzzed extendedResourceName is no extended resource name: Go's
    # validateDeviceClassSpec refuses it, and so does the registry.
    with pytest.raises(apierrors.StatusError) as err:
        classes.create(Context(), dc.deep_copy())
    assert err.value.code == 422 and "spec.extendedResourceName: Invalid value" in str(err.value)
    dc.spec.extended_resource_name = "example.com/gpu"
    out = classes.create(Context(), dc)
    assert type(out).__module__ == "kcodec.api.resource.internal" and out.metadata.generation == 1
    assert classes.get(Context(), "fixture") == out


def test_kind_specific_strategies(infos):
    nodes = storage(infos, "", "nodes")
    node = internal({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                     "status": {"capacity": {"cpu": "4"}}})
    assert str(nodes.create(Context(), node).status.capacity["cpu"]) == "4"  # nodes keep status on create
    deployments = storage(infos, "apps", "deployments")
    d = deployments.create(NS, internal(deployment_manifest("annotated")))
    d.metadata.annotations = {"note": "x"}
    out, _ = deployments.update(NS, "annotated", rest.DefaultUpdatedObjectInfo(d))
    assert out.metadata.generation == 2  # annotations bump a Deployment's generation
    daemonsets = storage(infos, "apps", "daemonsets")
    manifest = deployment_manifest("ds")
    manifest["kind"] = "DaemonSet"
    del manifest["spec"]["replicas"]
    ds = daemonsets.create(NS, internal(manifest))
    assert (ds.spec.template_generation, ds.metadata.generation) == (1, 1)
    ds.spec.template.spec.containers[0].image = "nginx:2"
    ds2, _ = daemonsets.update(NS, "ds", rest.DefaultUpdatedObjectInfo(ds))
    assert (ds2.spec.template_generation, ds2.metadata.generation) == (2, 2)
    jobs = storage(infos, "batch", "jobs")
    job = jobs.create(NS, internal({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
                                    "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                                        {"name": "pi", "image": "perl"}]}}}}))
    uid = job.metadata.uid
    assert job.spec.selector.match_labels == {"batch.kubernetes.io/controller-uid": uid}
    assert job.spec.template.metadata.labels == {"batch.kubernetes.io/controller-uid": uid, "controller-uid": uid,
                                                 "batch.kubernetes.io/job-name": "pi", "job-name": "pi"}


def test_verbs_for_discovery(infos):
    core_map = infos[""].versioned_resources_storage_map["v1"]
    assert core_map["pods"].verbs() == ["create", "delete", "deletecollection", "get", "list", "patch", "update",
                                        "watch"]
    assert core_map["pods/status"].verbs() == ["get", "patch", "update"]
    assert core_map["pods/eviction"].verbs() == ["create"] == core_map["bindings"].verbs()
    assert storage(infos, "apps", "deployments/scale").verbs() == ["get", "patch", "update"]


def test_namespace_deletion_in_phases(infos):
    """k/k namespace REST.Delete: Terminating first, gone once /finalize empties
    spec.finalizers (what the namespace controller does after deleting the contents)."""
    namespaces = storage(infos, "", "namespaces")
    finalize = storage(infos, "", "namespaces/finalize")
    ns = core.Namespace()
    ns.metadata.name = "doomed"
    namespaces.create(Context(), ns)
    out, now = namespaces.delete(Context(), "doomed")
    assert not now and out.status.phase == "Terminating" and out.metadata.deletion_timestamp is not None
    out, now = namespaces.delete(Context(), "doomed")  # still waiting for its finalizer
    assert not now and out.spec.finalizers == ["kubernetes"]
    with pytest.raises(apierrors.StatusError) as e:
        namespaces.delete(Context(), "doomed", options=DeleteOptions(
            preconditions=__import__("kcodec.api.meta.v1", fromlist=["Preconditions"]).Preconditions(uid="x")))
    assert str(e.value).startswith('Operation cannot be fulfilled on namespaces "doomed": Precondition failed: UID')
    current = namespaces.get(Context(), "doomed")
    current.spec.finalizers = None
    finalize.update(Context(), "doomed", rest.DefaultUpdatedObjectInfo(current))
    with pytest.raises(apierrors.StatusError) as e:
        namespaces.get(Context(), "doomed")
    assert apierrors.is_not_found(e.value)
    orphaning = core.Namespace()
    orphaning.metadata.name = "orphaning"
    namespaces.create(Context(), orphaning)
    out, _ = namespaces.delete(Context(), "orphaning", options=DeleteOptions(propagation_policy="Orphan"))
    assert out.metadata.finalizers == ["orphan"]


def test_pod_ephemeral_containers_and_resize(infos):
    pods = storage(infos, "", "pods")
    resources = {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}}
    pod = pods.create(NS, internal(pod_manifest("dbg", resources=[resources])))
    debug = internal({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "dbg"}, "spec": {
        "containers": [{"name": "ignored", "image": "x"}],
        "ephemeralContainers": [{"name": "debugger", "image": "busybox", "targetContainerName": "c0"}]}})
    debug.metadata.resource_version = pod.metadata.resource_version
    out, _ = storage(infos, "", "pods/ephemeralcontainers").update(NS, "dbg", rest.DefaultUpdatedObjectInfo(debug))
    assert [c.ephemeral_container_common.name for c in out.spec.ephemeral_containers] == ["debugger"]
    assert [c.name for c in out.spec.containers] == ["c0"]  # nothing else taken from the request
    assert out.metadata.generation == 2
    bigger = out.deep_copy()
    bigger.spec.containers[0].resources.limits = {"cpu": Quantity("300m")}
    bigger.spec.containers[0].image = "not-taken"
    out2, _ = storage(infos, "", "pods/resize").update(NS, "dbg", rest.DefaultUpdatedObjectInfo(bigger))
    assert str(out2.spec.containers[0].resources.limits["cpu"]) == "300m"
    assert out2.spec.containers[0].image == "nginx" and out2.metadata.generation == 3


def test_csr_approval(infos):
    import base64

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    csrs = storage(infos, "certificates.k8s.io", "certificatesigningrequests")
    request = x509.CertificateSigningRequestBuilder().subject_name(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "alice")])).sign(
        ec.generate_private_key(ec.SECP256R1()), hashes.SHA256()).public_bytes(serialization.Encoding.PEM)
    spec = {"request": base64.b64encode(request).decode(), "signerName": "example.com/signer",
            "usages": ["digital signature"]}
    bad = internal({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
                    "metadata": {"name": "me"}, "spec": {**spec, "request": ""}})
    with pytest.raises(apierrors.StatusError) as err:
        csrs.create(Context(user=UserInfo(name="alice", groups=["dev"])), bad)
    assert err.value.code == 422 and "spec.request: Invalid value: " in str(err.value)
    csr = internal({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
                    "metadata": {"name": "me"}, "spec": spec})
    created = csrs.create(Context(user=UserInfo(name="alice", groups=["dev"])), csr)
    assert created.spec.username == "alice" and created.spec.groups == ["dev"]
    from kcodec.api.certificates import internal as certificates

    approve = created.deep_copy()
    approve.status.conditions = [certificates.CertificateSigningRequestCondition(type="Approved", status="True",
                                                                                  reason="ok")]
    approve.spec.signer_name = "changed.example.com/other"
    out, _ = storage(infos, "certificates.k8s.io", "certificatesigningrequests/approval").update(
        Context(), "me", rest.DefaultUpdatedObjectInfo(approve))
    assert [c.type for c in out.status.conditions] == ["Approved"]
    assert out.spec.signer_name == "example.com/signer"


def test_tables_of_built_in_stores(infos):
    """Stores print with kcodec.printers' handlers (Go's printerstorage.TableConvertor), and
    with the default Name/Created At table for kinds without one."""
    pods = storage(infos, "", "pods")
    pods.create(NS, internal(pod_manifest("tabled")))
    table = pods.convert_to_table(NS, pods.list(NS))
    names = [c.name for c in table.column_definitions]
    assert names[:5] == ["Name", "Ready", "Status", "Restarts", "Age"]
    assert table.rows[0].cells[:3] == ["tabled", "0/1", "Pending"]
    leases = storage(infos, "coordination.k8s.io", "leases")
    lease = internal({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"}})
    leases.create(NS, lease)
    assert [c.name for c in leases.convert_to_table(NS, leases.list(NS)).column_definitions][0] == "Name"


def test_pod_and_template_warnings(infos):
    """k/k pkg/api/pod/warnings.go texts, collected in the request context."""
    pods = storage(infos, "", "pods")
    manifest = pod_manifest("warned", resources=[{"limits": {"memory": "1.5"}}],
                            nodeSelector={"beta.kubernetes.io/arch": "amd64"},
                            imagePullSecrets=[{"name": "a"}, {"name": "a"}],
                            volumes=[{"name": "repo", "gitRepo": {"repository": "https://example.com/r.git"}}])
    manifest["spec"]["containers"][0]["env"] = [{"name": "X", "value": "1"}, {"name": "X", "value": "2"}]
    manifest["spec"]["containers"][0]["ports"] = [{"containerPort": 80}, {"containerPort": 80}]
    ctx = Context(namespace="default")
    pods.create(ctx, internal(manifest))
    assert ctx.warnings == [
        'spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead',
        "spec.volumes[0].gitRepo: deprecated in v1.11",
        'spec.imagePullSecrets[1].name: duplicate name "a"',
        'spec.containers[0].resources.limits[memory]: fractional byte value "1500m" is invalid, must be an integer',
        # requests default to the limits (SetDefaults_Pod), so they warn too
        'spec.containers[0].resources.requests[memory]: fractional byte value "1500m" is invalid, must be an '
        'integer',
        'spec.containers[0].env[1]: hides previous definition of "X", which may be dropped when using apply',
        "spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]",
    ]
    deployments = storage(infos, "apps", "deployments")
    manifest = deployment_manifest("warned")
    manifest["spec"]["template"]["spec"]["nodeSelector"] = {"failure-domain.beta.kubernetes.io/zone": "a"}
    ctx = Context(namespace="default")
    deployments.create(ctx, internal(manifest))
    assert ctx.warnings == ['spec.template.spec.nodeSelector[failure-domain.beta.kubernetes.io/zone]: deprecated '
                            'since v1.17; use "topology.kubernetes.io/zone" instead']


def test_service_account_tokens(sqlite_getter):
    """serviceaccounts/token (k/k TokenREST): an RS256 JWT with Go's claims that the issuer
    verifies and TokenReviews accept; bound to a Pod when asked."""
    import base64
    import json as _json

    from kcodec.api.authentication import internal as authn
    from kcodec.registry.builtin import TokenIssuer

    issuer = TokenIssuer()
    infos = {i.group: i for i in api_group_infos(sqlite_getter, token_issuer=issuer, groups={"", "authentication.k8s.io"})}
    sa = core.ServiceAccount()
    sa.metadata.name = "builder"
    sa = storage(infos, "", "serviceaccounts").create(NS, sa)
    tokens = storage(infos, "", "serviceaccounts/token")
    out = tokens.create(NS, "builder", authn.TokenRequest())
    assert out.spec.expiration_seconds == 3600 and out.spec.audiences == [issuer.issuer]
    header, claims, _ = out.status.token.split(".")
    claims = _json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
    assert claims["sub"] == "system:serviceaccount:default:builder"
    assert claims["kubernetes.io"]["serviceaccount"] == {"name": "builder", "uid": sa.metadata.uid}
    assert claims["exp"] - claims["iat"] == 3600
    user = issuer.verify(out.status.token)
    assert (user.name, user.groups) == ("system:serviceaccount:default:builder",
                                        ["system:serviceaccounts", "system:serviceaccounts:default"])
    assert issuer.verify(out.status.token[:-4] + "AAAA") is None
    review = authn.TokenReview()
    review.spec.token = out.status.token
    answered = storage(infos, "authentication.k8s.io", "tokenreviews").create(Context(), review)
    assert answered.status.authenticated and answered.status.user.username == user.name
    short = authn.TokenRequest()
    short.spec.expiration_seconds = 60
    with pytest.raises(apierrors.StatusError) as e:
        tokens.create(NS, "builder", short)
    assert str(e.value) == ('TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: '
                            '60: may not specify a duration less than 10 minutes')
    with pytest.raises(apierrors.StatusError) as e:
        tokens.create(NS, "nobody", authn.TokenRequest())
    assert str(e.value) == 'serviceaccounts "nobody" not found'
    pod = storage(infos, "", "pods").create(NS, internal(pod_manifest("bound")))
    bound = authn.TokenRequest()
    bound.spec.bound_object_ref = authn.BoundObjectReference(kind="Pod", api_version="v1", name="bound",
                                                             uid=pod.metadata.uid)
    out = tokens.create(NS, "builder", bound)
    assert issuer.verify(out.status.token).extra["authentication.kubernetes.io/pod-name"] == ["bound"]


def test_storage_versions(infos):
    from kcodec.schema import GroupVersion as GV

    assert storage(infos, "apps", "deployments").storage_version() == GV("apps", "v1")
    assert storage(infos, "autoscaling", "horizontalpodautoscalers").storage_version() == GV("autoscaling", "v2")
    assert storage(infos, "", "nodes").storage_version() == GV("", "v1")


def test_crd_stored_versions_and_endpointslice_generation(infos):
    crds = storage(infos, "apiextensions.k8s.io", "customresourcedefinitions")
    manifest = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": "widgets.example.com"},
                "spec": {"group": "example.com", "scope": "Namespaced",
                         "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                         "versions": [{"name": "v1", "served": True, "storage": True,
                                       "schema": {"openAPIV3Schema": {"type": "object"}}}]}}
    crd = crds.create(Context(), internal(manifest))
    assert (crd.status.stored_versions, crd.metadata.generation) == (["v1"], 1)
    manifest["spec"]["versions"][0]["storage"] = False
    manifest["spec"]["versions"].append({"name": "v2", "served": True, "storage": True,
                                         "schema": {"openAPIV3Schema": {"type": "object"}}})
    manifest["metadata"]["resourceVersion"] = crd.metadata.resource_version
    updated, _ = crds.update(Context(), "widgets.example.com", rest.DefaultUpdatedObjectInfo(internal(manifest)))
    assert (updated.status.stored_versions, updated.metadata.generation) == (["v1", "v2"], 2)
    slices = storage(infos, "discovery.k8s.io", "endpointslices")
    eps = slices.create(NS, internal({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                                      "metadata": {"name": "web-abc"}, "addressType": "IPv4",
                                      "endpoints": [{"addresses": ["10.1.0.1"]}]}))
    assert eps.metadata.generation == 1
    eps.endpoints[0].addresses = ["10.1.0.2"]
    eps2, _ = slices.update(NS, "web-abc", rest.DefaultUpdatedObjectInfo(eps))
    assert eps2.metadata.generation == 2


def test_component_statuses(infos):
    """k/k componentstatus REST: scheduler and controller manager probed over HTTPS (nothing
    listens here: Healthy False with Go's dial error), the backend healthy."""
    cs = storage(infos, "", "componentstatuses")
    assert (cs.short_names(), cs.verbs(), cs.namespace_scoped()) == (["cs"], ["get", "list"], False)
    listed = cs.list(Context())
    assert [i.metadata.name for i in listed.items] == ["controller-manager", "etcd-0", "scheduler"]
    etcd = cs.get(Context(), "etcd-0").conditions[0]
    assert (etcd.type, etcd.status, etcd.message) == ("Healthy", "True", "ok")
    sched = cs.get(Context(), "scheduler").conditions[0]
    if sched.status == "False":  # unless a scheduler really listens on this machine
        assert sched.message == ('Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: '
                                 "connection refused")
    with pytest.raises(apierrors.StatusError) as e:
        cs.get(Context(), "nope")
    assert str(e.value) == 'componentstatus "nope" not found'
