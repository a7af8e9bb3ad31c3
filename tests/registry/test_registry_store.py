"""The generic registry Store against apiserver pkg/registry/generic/registry/store.go and
pkg/registry/rest/{create,update,delete}.go: Go's semantics and texts, on SQLite and etcd."""
from __future__ import annotations

import re
import uuid

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)
from _registry_env import backend, deployment_manifest, internal, make_getter, pod_manifest  # noqa: F401
from kcodec import fields, labels
from kcodec.api import errors as apierrors
from kcodec.api.apps import internal as apps
from kcodec.api.core import internal as core
from kcodec.api.meta.v1 import CreateOptions, DeleteOptions, Preconditions
from kcodec.registry import rest
from kcodec.registry.builtin import StatusREST, BuiltinStatusStrategy, new_store, resource_info
from kcodec.registry.request import Context, RequestInfo

NS = Context(namespace="default")


@pytest.fixture
def getter(backend, tmp_path, request):
    return make_getter(backend, tmp_path, request)


def store_for(getter, group, resource):
    return new_store(resource_info(group, resource), getter)


def cm(name="a", ns="", **data):
    obj = core.ConfigMap(data=dict(data) or {"k": "v"})
    obj.metadata.name = name
    obj.metadata.namespace = ns
    return obj


def pod(name="p", labels_=None, node="", grace=None):
    return internal(pod_manifest(name, labels=labels_, node=node, grace=grace))


def deployment(name="web", replicas=1):
    return internal(deployment_manifest(name, replicas))


# ------------------------------------------------------------------------------ create

def test_create_fills_system_fields(getter):
    s = store_for(getter, "", "configmaps")
    out = s.create(NS, cm())
    assert str(uuid.UUID(out.metadata.uid)) == out.metadata.uid
    assert not out.metadata.creation_timestamp.is_zero()
    assert out.metadata.resource_version and out.metadata.namespace == "default"
    assert out.metadata.generation == 0  # configmaps do not track generation
    assert s.get(NS, "a") == out


def test_generate_name_uses_gos_alphabet(getter):
    s = store_for(getter, "", "configmaps")
    obj = cm(name="")
    obj.metadata.generate_name = "gen-"
    names = {s.create(NS, obj.deep_copy()).metadata.name for _ in range(5)}
    assert len(names) == 5
    assert all(re.fullmatch(r"gen-[bcdfghjklmnpqrstvwxz2456789]{5}", n) for n in names)
    long = cm(name="")
    long.metadata.generate_name = "x" * 70
    assert len(s.create(NS, long).metadata.name) == 63  # base cut to 58 (names.go)


def test_create_errors_carry_gos_texts(getter):
    s = store_for(getter, "", "configmaps")
    s.create(NS, cm())
    with pytest.raises(apierrors.StatusError) as e:
        s.create(NS, cm())
    assert (e.value.code, str(e.value)) == (409, 'configmaps "a" already exists')
    with pytest.raises(apierrors.StatusError) as e:
        s.create(NS, cm("b", ns="other"))
    assert (e.value.code, str(e.value)) == (
        400, "the namespace of the provided object does not match the namespace sent on the request")
    with pytest.raises(apierrors.StatusError) as e:
        s.create(Context(), cm("b"))
    # BeforeCreate validates before the key is built, so Go answers 422 here
    assert str(e.value) == 'ConfigMap "b" is invalid: metadata.namespace: Required value'
    with pytest.raises(apierrors.StatusError) as e:
        s.get(Context(), "b")
    assert (e.value.code, str(e.value)) == (400, "Namespace parameter required.")
    with pytest.raises(apierrors.StatusError) as e:
        s.create(NS, cm("Bad_Name"))
    assert e.value.code == 422
    assert str(e.value).startswith('ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": '
                                   "a lowercase RFC 1123 subdomain must consist of")
    assert e.value.status.details.causes[0].field == "metadata.name"
    bad_rv = cm("c")
    bad_rv.metadata.resource_version = "5"
    with pytest.raises(apierrors.StatusError) as e:
        s.create(NS, bad_rv)
    assert (e.value.code, str(e.value)) == (
        500, "Internal error occurred: resourceVersion should not be set on objects to be created")
    assert [i.metadata.name for i in s.list(NS).items] == ["a"]


def test_create_cluster_scoped_clears_namespace(getter):
    s = store_for(getter, "rbac.authorization.k8s.io", "clusterroles")
    from kcodec.api.rbac import internal as rbac

    role = rbac.ClusterRole()
    role.metadata.name = "reader"
    assert s.create(Context(namespace="default"), role).metadata.namespace == ""


def test_create_of_terminating_object_says_so(getter):
    s = store_for(getter, "", "configmaps")
    obj = cm()
    obj.metadata.finalizers = ["example.com/hold"]
    s.create(NS, obj)
    s.delete(NS, "a")
    with pytest.raises(apierrors.StatusError) as e:
        s.create(NS, cm())
    assert str(e.value) == 'object is being deleted: configmaps "a" already exists'


def test_dry_run_create_stores_nothing(getter):
    s = store_for(getter, "", "configmaps")
    out = s.create(NS, cm(), options=CreateOptions(dry_run=["All"]))
    assert out.metadata.uid and not out.metadata.resource_version
    with pytest.raises(apierrors.StatusError) as e:
        s.get(NS, "a")
    assert apierrors.is_not_found(e.value)


def test_request_info_names_the_resource_in_errors(getter):
    s = store_for(getter, "", "configmaps")
    ctx = Context(namespace="default", request_info=RequestInfo(api_group="", resource="configmaps"))
    with pytest.raises(apierrors.StatusError) as e:
        s.get(ctx, "missing")
    assert e.value.status.details.kind == "configmaps"


# ------------------------------------------------------------------------------ update

def test_update_conflict_and_no_op(getter):
    s = store_for(getter, "", "configmaps")
    first = s.create(NS, cm())
    changed = first.deep_copy()
    changed.data = {"k": "w"}
    second, created = s.update(NS, "a", rest.DefaultUpdatedObjectInfo(changed))
    assert not created and int(second.metadata.resource_version) > int(first.metadata.resource_version)
    assert second.metadata.uid == first.metadata.uid
    assert second.metadata.creation_timestamp == first.metadata.creation_timestamp
    with pytest.raises(apierrors.StatusError) as e:
        s.update(NS, "a", rest.DefaultUpdatedObjectInfo(changed))
    assert (e.value.code, e.value.reason, str(e.value)) == (
        409, "Conflict", 'Operation cannot be fulfilled on configmaps "a": the object has been modified; '
                         'please apply your changes to the latest version and try again')
    same, _ = s.update(NS, "a", rest.DefaultUpdatedObjectInfo(second))
    assert same.metadata.resource_version == second.metadata.resource_version  # nothing written


def test_update_unconditional_and_missing(getter):
    s = store_for(getter, "", "configmaps")
    s.create(NS, cm())
    blind = cm(data_="x")
    out, _ = s.update(NS, "a", rest.DefaultUpdatedObjectInfo(blind))  # AllowUnconditionalUpdate
    assert out.data == {"data_": "x"}
    with pytest.raises(apierrors.StatusError) as e:
        s.update(NS, "nope", rest.DefaultUpdatedObjectInfo(cm("nope")))
    assert str(e.value) == 'configmaps "nope" not found'
    out, created = s.update(NS, "new", rest.DefaultUpdatedObjectInfo(cm("new")), force_allow_create=True)
    assert created and out.metadata.uid


def test_update_requires_resource_version_when_strategy_says_so(getter):
    s = store_for(getter, "", "configmaps")
    s.create(NS, cm())
    s.update_strategy.info = resource_info("", "configmaps").__class__(
        **{**resource_info("", "configmaps").__dict__, "allow_unconditional_update": False})
    with pytest.raises(apierrors.StatusError) as e:
        s.update(NS, "a", rest.DefaultUpdatedObjectInfo(cm()))
    assert str(e.value) == ('configmaps "a" is invalid: metadata.resourceVersion: Invalid value: 0: '
                            'must be specified for an update')


def test_update_uid_precondition_and_immutable_name(getter):
    s = store_for(getter, "", "configmaps")
    created = s.create(NS, cm())
    stale = created.deep_copy()
    stale.metadata.uid = "another-uid"
    with pytest.raises(apierrors.StatusError) as e:
        s.update(NS, "a", rest.DefaultUpdatedObjectInfo(stale))
    assert e.value.reason == "Conflict"
    assert "Precondition failed: UID in precondition: another-uid" in str(e.value)
    renamed = created.deep_copy()
    renamed.metadata.name = "b"
    with pytest.raises(apierrors.StatusError) as e:
        s.update(NS, "a", rest.DefaultUpdatedObjectInfo(renamed))
    assert e.value.code == 422 and "metadata.name" in str(e.value)


def test_generation_and_status_on_workloads(getter):
    s = store_for(getter, "apps", "deployments")
    d = deployment()
    d.status.replicas = 9
    out = s.create(NS, d)
    assert out.metadata.generation == 1 and out.status.replicas == 0  # status reset on create
    relabel = out.deep_copy()
    relabel.metadata.labels = {"x": "y"}
    relabel.status.replicas = 5
    out2, _ = s.update(NS, "web", rest.DefaultUpdatedObjectInfo(relabel))
    assert out2.metadata.generation == 1 and out2.status.replicas == 0  # metadata only; status kept
    scaled = out2.deep_copy()
    scaled.spec.replicas = 3
    out3, _ = s.update(NS, "web", rest.DefaultUpdatedObjectInfo(scaled))
    assert out3.metadata.generation == 2
    status = StatusREST(s, BuiltinStatusStrategy(resource_info("apps", "deployments")))
    st = out3.deep_copy()
    st.status.replicas = 3
    st.spec.replicas = 10  # ignored on /status
    st.metadata.labels = {"changed": "no"}
    out4, _ = status.update(NS, "web", rest.DefaultUpdatedObjectInfo(st))
    assert (out4.status.replicas, out4.spec.replicas, out4.metadata.generation) == (3, 3, 2)
    assert out4.metadata.labels == {"x": "y"}


# ------------------------------------------------------------------------------ delete

def test_delete_returns_status_or_object(getter):
    s = store_for(getter, "", "configmaps")
    created = s.create(NS, cm())
    status, now = s.delete(NS, "a")
    assert now and status.status == "Success" and status.details.name == "a"
    assert status.details.kind == "configmaps" and status.details.uid == created.metadata.uid
    p = store_for(getter, "", "pods")
    p.create(NS, pod())
    obj, now = p.delete(NS, "p")
    assert now and isinstance(obj, core.Pod)  # ReturnDeletedObject
    with pytest.raises(apierrors.StatusError) as e:
        s.delete(NS, "a")
    assert str(e.value) == 'configmaps "a" not found'


def test_delete_preconditions(getter):
    s = store_for(getter, "", "configmaps")
    created = s.create(NS, cm())
    with pytest.raises(apierrors.StatusError) as e:
        s.delete(NS, "a", options=DeleteOptions(preconditions=Preconditions(uid="x")))
    assert str(e.value) == (
        f'Operation cannot be fulfilled on ConfigMap "a": the UID in the precondition (x) does not match the UID '
        f'in record ({created.metadata.uid}). The object might have been deleted and then recreated')
    with pytest.raises(apierrors.StatusError) as e:
        s.delete(NS, "a", options=DeleteOptions(preconditions=Preconditions(resource_version="1")))
    assert "the ResourceVersion in the precondition (1) does not match" in str(e.value)
    with pytest.raises(apierrors.StatusError) as e:
        s.delete(NS, "a", options=DeleteOptions(propagation_policy="Sideways"))
    assert str(e.value) == ('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: '
                            '"Sideways": supported values: "Foreground", "Background", "Orphan", "nil"')
    s.delete(NS, "a", options=DeleteOptions(preconditions=Preconditions(uid=created.metadata.uid)))


def test_finalizers_and_propagation(getter):
    s = store_for(getter, "", "configmaps")
    obj = cm()
    obj.metadata.finalizers = ["example.com/hold"]
    s.create(NS, obj)
    out, now = s.delete(NS, "a")
    assert not now
    stored = s.get(NS, "a")
    assert stored.metadata.deletion_timestamp is not None and stored.metadata.deletion_grace_period_seconds == 0
    release = stored.deep_copy()
    release.metadata.finalizers = None
    s.update(NS, "a", rest.DefaultUpdatedObjectInfo(release))
    with pytest.raises(apierrors.StatusError):
        s.get(NS, "a")
    d = store_for(getter, "apps", "deployments")
    d.create(NS, deployment("fg"))
    _, now = d.delete(NS, "fg", options=DeleteOptions(propagation_policy="Foreground"))
    fg = d.get(NS, "fg")
    assert not now and fg.metadata.finalizers == ["foregroundDeletion"]
    assert fg.metadata.generation == 2  # markAsDeleting bumps a tracked generation
    d.create(NS, deployment("or"))
    d.delete(NS, "or", options=DeleteOptions(propagation_policy="Orphan"))
    assert d.get(NS, "or").metadata.finalizers == ["orphan"]
    d.create(NS, deployment("bg"))
    _, now = d.delete(NS, "bg", options=DeleteOptions(propagation_policy="Background"))
    assert now


def test_graceful_pod_deletion(getter):
    p = store_for(getter, "", "pods")
    scheduled = pod("g", node="node-1", grace=30)
    p.create(NS, scheduled)
    out, now = p.delete(NS, "g", options=DeleteOptions())
    assert not now and out.metadata.deletion_grace_period_seconds == 30
    assert p.get(NS, "g").metadata.deletion_timestamp is not None
    out, now = p.delete(NS, "g", options=DeleteOptions(grace_period_seconds=0))
    assert now
    with pytest.raises(apierrors.StatusError):
        p.get(NS, "g")
    p.create(NS, pod("unscheduled"))
    _, now = p.delete(NS, "unscheduled", options=DeleteOptions())
    assert now  # not on a node: deleted at once


def test_dry_run_delete_keeps_the_object(getter):
    s = store_for(getter, "", "configmaps")
    s.create(NS, cm())
    _, now = s.delete(NS, "a", options=DeleteOptions(dry_run=["All"]))
    assert now
    assert s.get(NS, "a").metadata.name == "a"
    with pytest.raises(apierrors.StatusError) as e:
        s.delete(NS, "a", options=DeleteOptions(dry_run=["Some"]))
    assert e.value.code == 422


# ------------------------------------------------------------------------------ list / watch

def test_list_selectors_and_pages(getter):
    p = store_for(getter, "", "pods")
    for i in range(7):
        p.create(NS, pod(f"p{i}", {"tier": "web" if i % 2 else "db"}, node=f"n{i % 3}"))
    p.create(Context(namespace="other"), pod("elsewhere", {"tier": "web"}))
    web = p.list(NS, rest.ListOptions(label_selector=labels.parse("tier=web")))
    assert sorted(i.metadata.name for i in web.items) == ["p1", "p3", "p5"]
    on_n0 = p.list(NS, rest.ListOptions(field_selector=fields.parse_selector("spec.nodeName=n0")))
    assert sorted(i.metadata.name for i in on_n0.items) == ["p0", "p3", "p6"]
    everywhere = p.list(Context(), rest.ListOptions(label_selector=labels.parse("tier=web")))
    assert len(everywhere.items) == 4
    only_other = p.list(Context(), rest.ListOptions(field_selector=fields.parse_selector("metadata.namespace=other")))
    assert [i.metadata.name for i in only_other.items] == ["elsewhere"]
    page = p.list(NS, rest.ListOptions(limit=3))
    assert len(page.items) == 3 and page.metadata.continue_ and page.metadata.remaining_item_count == 4
    seen = [i.metadata.name for i in page.items]
    while page.metadata.continue_:
        page = p.list(NS, rest.ListOptions(limit=3, continue_=page.metadata.continue_))
        seen += [i.metadata.name for i in page.items]
    assert seen == [f"p{i}" for i in range(7)]


def test_list_exact_resource_version_and_bad_tokens(getter):
    s = store_for(getter, "", "configmaps")
    first = s.create(NS, cm("a"))
    s.create(NS, cm("b"))
    old = s.list(NS, rest.ListOptions(resource_version=first.metadata.resource_version,
                                      resource_version_match="Exact"))
    assert [i.metadata.name for i in old.items] == ["a"]
    assert old.metadata.resource_version == first.metadata.resource_version
    with pytest.raises(apierrors.StatusError) as e:
        s.list(NS, rest.ListOptions(limit=1, continue_="not-a-token"))
    assert e.value.code == 400
    with pytest.raises(apierrors.StatusError) as e:
        s.list(NS, rest.ListOptions(resource_version="999999999"))
    assert (e.value.code, e.value.reason) == (504, "Timeout")


def test_watch_with_selector(getter):
    s = store_for(getter, "", "configmaps")
    start = s.create(NS, cm("z"))
    w = s.watch(NS, rest.ListOptions(resource_version=start.metadata.resource_version,
                                     label_selector=labels.parse("app=x")))
    try:
        plain = s.create(NS, cm("plain"))
        tagged = cm("tagged")
        tagged.metadata.labels = {"app": "x"}
        tagged = s.create(NS, tagged)
        untag = tagged.deep_copy()
        untag.metadata.labels = {"app": "y"}
        s.update(NS, "tagged", rest.DefaultUpdatedObjectInfo(untag))
        events = [w.next(5) for _ in range(2)]
        assert [(e.type, e.object.metadata.name) for e in events] == [("ADDED", "tagged"), ("DELETED", "tagged")]
        assert plain.metadata.name == "plain"
    finally:
        w.stop()


def test_watch_of_compacted_revision_is_an_error_event(getter):
    s = store_for(getter, "", "configmaps")
    first = s.create(NS, cm("a"))
    s.create(NS, cm("b"))
    last = s.create(NS, cm("c"))
    s.storage.compact(int(last.metadata.resource_version))
    w = s.watch(NS, rest.ListOptions(resource_version=first.metadata.resource_version))
    event = w.next(5)
    assert event.type == "ERROR"
    assert (event.object.code, event.object.reason) == (410, "Expired")
    assert event.object.message.startswith("too old resource version")
    assert w.next(0.1) is None


def test_delete_collection(getter):
    s = store_for(getter, "", "configmaps")
    for i in range(5):
        obj = cm(f"c{i}")
        obj.metadata.labels = {"gone": "yes" if i < 3 else "no"}
        s.create(NS, obj)
    out = s.delete_collection(NS, None, None, rest.ListOptions(label_selector=labels.parse("gone=yes")))
    assert sorted(i.metadata.name for i in out.items) == ["c0", "c1", "c2"]
    assert sorted(i.metadata.name for i in s.list(NS).items) == ["c3", "c4"]


def test_table_of_a_store(getter):
    s = store_for(getter, "", "configmaps")
    s.create(NS, cm())
    table = s.convert_to_table(NS, s.list(NS))  # printersinternal's ConfigMap columns
    assert [c.name for c in table.column_definitions] == ["Name", "Data", "Age"]
    assert table.rows[0].cells[:2] == ["a", 1]
    plain = rest.DefaultTableConvertor(s.default_qualified_resource).convert_to_table(NS, s.list(NS))
    assert [c.name for c in plain.column_definitions] == ["Name", "Created At"]
    assert plain.rows[0].cells[0] == "a" and plain.rows[0].cells[1].endswith("Z")
