"""kcodec.apply / kcodec.extract: server-side apply offline, with kube-apiserver's results.

Expectations follow sigs.k8s.io/structured-merge-diff/v6 merge/update.go (ownership,
conflicts, removal of fields an applier stops applying), k8s.io/apimachinery
pkg/util/managedfields/internal (fieldmanager.go, stripmeta.go, skipnonapplied.go
"before-first-apply", capmanagers.go "ancient-changes", conflict.go texts) and
pkg/util/managedfields/extract.go.
"""
from __future__ import annotations

import json

import pytest

import kcodec
from kcodec.api.apps.v1 import Deployment
from kcodec.api.core.v1 import ConfigMap
from kcodec.errors import ApplyConflictError, KCodecError
from kcodec.managedfields import FieldManager, model_schema

from conftest import fixtures_dir

DEPLOY = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1", "ports": [{"containerPort": 80}],
                                     "args": ["--a", "--b"]}]},
        },
    },
}


def _cfg(**spec):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": spec}


def _fields(obj, manager):
    for mf in obj.metadata.managed_fields or []:
        if mf.manager == manager:
            return json.loads(bytes(mf.fields_v1.raw))
    return None


def test_create_records_the_applied_fields_like_kube_apiserver() -> None:
    d = kcodec.apply(None, DEPLOY, "deployer")
    assert isinstance(d, dict)
    obj = Deployment.from_dict(d)
    (entry,) = obj.metadata.managed_fields
    assert (entry.manager, entry.operation, entry.api_version, entry.fields_type) == \
        ("deployer", "Apply", "apps/v1", "FieldsV1")
    # metadata.name/namespace are stripped (stripmeta.go); an apply owns leaves only
    # (tofieldset.go); ports are keyed with the default protocol.
    assert bytes(entry.fields_v1.raw) == (
        b'{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{},'
        b'"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":'
        b'{"k:{\\"name\\":\\"app\\"}":{".":{},"f:args":{},"f:image":{},"f:name":{},"f:ports":'
        b'{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}}')
    # The object is defaulted as the API server defaults it.
    assert obj.spec.strategy.type == "RollingUpdate"
    assert obj.spec.template.spec.containers[0].ports[0].protocol == "TCP"


def test_two_managers_co_own_a_deployment() -> None:
    live = kcodec.apply(None, Deployment.from_dict(DEPLOY), "deployer")
    assert isinstance(live, Deployment)
    with pytest.raises(ApplyConflictError) as err:
        kcodec.apply(live, _cfg(replicas=5), "autoscaler")
    assert str(err.value) == 'Apply failed with 1 conflict: conflict with "deployer": .spec.replicas'
    assert err.value.conflicts == [('"deployer"', ".spec.replicas")]
    live = kcodec.apply(live, _cfg(replicas=5), "autoscaler", force=True)
    assert live.spec.replicas == 5
    assert _fields(live, "autoscaler") == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" not in _fields(live, "deployer")["f:spec"]
    # The deployer changes the image and no longer applies replicas: nothing conflicts, and the
    # replicas the autoscaler owns stay.
    cfg = json.loads(json.dumps(DEPLOY))
    del cfg["spec"]["replicas"]
    cfg["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    live = kcodec.apply(live, cfg, "deployer")
    assert live.spec.replicas == 5 and live.spec.template.spec.containers[0].image == "nginx:2"


def test_same_value_is_shared_not_a_conflict() -> None:
    live = kcodec.apply(None, DEPLOY, "a")
    live = kcodec.apply(live, _cfg(replicas=2), "b")  # the same value: both own it
    assert _fields(Deployment.from_dict(live), "b") == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" in _fields(Deployment.from_dict(live), "a")["f:spec"]
    with pytest.raises(ApplyConflictError, match='conflict with "a": .spec.replicas'):
        kcodec.apply(live, _cfg(replicas=3), "b")


def test_fields_an_applier_stops_applying_are_removed_unless_someone_else_owns_them() -> None:
    live = kcodec.apply(None, DEPLOY, "deployer")
    cfg = json.loads(json.dumps(DEPLOY))
    del cfg["metadata"]["labels"]
    cfg["spec"]["template"]["spec"]["containers"][0].pop("args")
    live = kcodec.apply(live, cfg, "deployer")
    assert "labels" not in live["metadata"]
    assert "args" not in live["spec"]["template"]["spec"]["containers"][0]
    # Co-owned: another manager applied the label too, so it stays when the deployer drops it.
    live = kcodec.apply(None, DEPLOY, "deployer")
    live = kcodec.apply(live, {"apiVersion": "apps/v1", "kind": "Deployment",
                               "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}}},
                        "labeller")
    live = kcodec.apply(live, cfg, "deployer")
    assert live["metadata"]["labels"] == {"app": "web"}


def test_list_maps_merge_by_key_and_atomic_lists_replace() -> None:
    live = kcodec.apply(None, DEPLOY, "deployer")
    sidecar = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
               "spec": {"template": {"spec": {"containers": [
                   {"name": "sidecar", "image": "envoy"},
                   {"name": "app", "ports": [{"containerPort": 9090, "protocol": "UDP"}]}]}}}}
    live = kcodec.apply(live, sidecar, "mesh")
    containers = live["spec"]["template"]["spec"]["containers"]
    # merge.go visitListItems: the applied order wins for the items it names.
    assert [c["name"] for c in containers] == ["sidecar", "app"]
    # ports are a list map keyed by (containerPort, protocol): both ports are there.
    assert containers[1]["ports"] == [{"containerPort": 80, "protocol": "TCP"},
                                      {"containerPort": 9090, "protocol": "UDP"}]
    # args are atomic: another manager setting them conflicts on the whole list.
    with pytest.raises(ApplyConflictError) as err:
        kcodec.apply(live, {"apiVersion": "apps/v1", "kind": "Deployment",
                            "metadata": {"name": "web", "namespace": "default"},
                            "spec": {"template": {"spec": {"containers": [{"name": "app", "args": ["--c"]}]}}}},
                     "other")
    assert err.value.conflicts == [('"deployer"', '.spec.template.spec.containers[name="app"].args')]


def test_set_lists_union_values() -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["a/x"]},
          "data": {"k": "v"}}
    live = kcodec.apply(None, cm, "one")
    live = kcodec.apply(live, {"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "c", "finalizers": ["b/y"]}}, "two")
    assert live["metadata"]["finalizers"] == ["a/x", "b/y"]
    assert _fields(ConfigMap.from_dict(live), "two") == {"f:metadata": {"f:finalizers": {'v:"b/y"': {}}}}


def test_updates_are_recorded_and_first_apply_keeps_existing_owners() -> None:
    schema = model_schema()
    fm = FieldManager(schema, schema.type_ref_for(Deployment), "apps/v1", "Deployment")
    created = fm.update({"apiVersion": "apps/v1", "kind": "Deployment"}, json.loads(json.dumps(DEPLOY)),
                        "kubectl-create")
    (entry,) = created["metadata"]["managedFields"]
    assert (entry["manager"], entry["operation"], entry["apiVersion"]) == ("kubectl-create", "Update", "apps/v1")
    assert entry["fieldsV1"]["f:spec"]["f:replicas"] == {}
    # An apply that changes replicas conflicts with the updater, as Go reports it (manager
    # identifiers carry no time, so printManager never prints one).
    with pytest.raises(ApplyConflictError) as err:
        kcodec.apply(created, _cfg(replicas=4), "ssa")
    assert str(err.value) == ('Apply failed with 1 conflict: conflict with "kubectl-create" using apps/v1: '
                              '.spec.replicas')
    # An object nobody tracked gets a "before-first-apply" owner for what already existed.
    untracked = json.loads(json.dumps(DEPLOY))
    with pytest.raises(ApplyConflictError, match='conflict with "before-first-apply" using apps/v1'):
        kcodec.apply(untracked, _cfg(replicas=4), "ssa")


def test_update_managers_are_capped_into_ancient_changes() -> None:
    schema = model_schema()
    fm = FieldManager(schema, schema.type_ref_for(Deployment), "apps/v1", "Deployment", max_update_managers=2)
    obj = fm.update({"apiVersion": "apps/v1", "kind": "Deployment"}, json.loads(json.dumps(DEPLOY)), "m0")
    for i in range(1, 4):
        new = json.loads(json.dumps(obj))
        new["metadata"]["labels"][f"l{i}"] = "x"
        obj = fm.update(obj, new, f"m{i}")
    managers = sorted(e["manager"] for e in obj["metadata"]["managedFields"])
    # capmanagers.go: at most max_update_managers Update entries, the oldest folded into one
    # "ancient-changes" entry per version that owns all they owned.
    assert managers == ["ancient-changes", "m3"]
    ancient = next(e for e in obj["metadata"]["managedFields"] if e["manager"] == "ancient-changes")
    assert {"f:l1", "f:l2", "f:replicas"} <= set(ancient["fieldsV1"]["f:metadata"]["f:labels"]) | \
        set(ancient["fieldsV1"]["f:spec"])


def test_extract_gives_the_managers_applied_configuration() -> None:
    live = kcodec.apply(None, DEPLOY, "deployer")
    live = kcodec.apply(live, _cfg(replicas=5), "autoscaler", force=True)
    assert kcodec.extract(live, "autoscaler") == {"apiVersion": "apps/v1", "kind": "Deployment",
                                                  "spec": {"replicas": 5}}
    deployer = kcodec.extract(live, "deployer")
    assert "replicas" not in deployer["spec"]
    assert deployer["spec"]["template"]["spec"]["containers"][0]["ports"] == [{"containerPort": 80}]
    assert kcodec.extract(live, "nobody") == {"apiVersion": "apps/v1", "kind": "Deployment"}


def test_bad_configurations_are_refused_with_go_texts() -> None:
    with pytest.raises(KCodecError, match="requires fieldManager parameter"):
        kcodec.apply(None, DEPLOY, "")
    dup = json.loads(json.dumps(DEPLOY))
    dup["spec"]["template"]["spec"]["containers"].append({"name": "app", "image": "x"})
    with pytest.raises(KCodecError, match=r'duplicate entries for key \[name="app"\]'):
        kcodec.apply(None, dup, "m")
    unknown = _cfg(replicaz=1)
    with pytest.raises(KCodecError, match=r"\.spec\.replicaz: field not declared in schema"):
        kcodec.apply(None, unknown, "m")
    wrong = _cfg(replicas="three")
    with pytest.raises(KCodecError, match=r"\.spec\.replicas: expected numeric \(int or float\), got string"):
        kcodec.apply(None, wrong, "m")
    with pytest.raises(KCodecError, match="metadata.managedFields must be nil"):
        kcodec.apply(None, {**DEPLOY, "metadata": {"name": "web", "managedFields": []}}, "m")


def test_apply_unchanged_keeps_the_object() -> None:
    live = kcodec.apply(None, DEPLOY, "deployer")
    again = kcodec.apply(live, DEPLOY, "deployer")
    assert {k: v for k, v in again.items() if k != "metadata"} == {k: v for k, v in live.items() if k != "metadata"}
    assert [e["manager"] for e in again["metadata"]["managedFields"]] == ["deployer"]


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {"spec": {"type": "object", "properties": {
                     "ports": {"type": "array", "x-kubernetes-list-type": "map",
                               "x-kubernetes-list-map-keys": ["port"],
                               "items": {"type": "object", "properties": {
                                   "port": {"type": "integer"}, "name": {"type": "string"}}}},
                     "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                     "args": {"type": "array", "items": {"type": "string"}},
                     "size": {"x-kubernetes-int-or-string": True},
                 }}}}}}]},
}


def test_custom_resources_follow_the_crd_list_types() -> None:
    def cr(**spec):
        return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}
    live = kcodec.apply(None, cr(ports=[{"port": 80, "name": "http"}], tags=["a"], args=["x"], size="1Gi"),
                        "one", crd=CRD)
    live = kcodec.apply(live, cr(ports=[{"port": 443, "name": "https"}], tags=["b"]), "two", crd=CRD)
    assert live["spec"]["ports"] == [{"port": 80, "name": "http"}, {"port": 443, "name": "https"}]
    assert live["spec"]["tags"] == ["a", "b"]
    with pytest.raises(ApplyConflictError, match=r"\.spec\.args"):  # atomic by default
        kcodec.apply(live, cr(args=["y"]), "two", crd=CRD)
    two = next(e for e in live["metadata"]["managedFields"] if e["manager"] == "two")
    assert two["fieldsV1"] == {"f:spec": {"f:ports": {'k:{"port":443}': {".": {}, "f:name": {}, "f:port": {}}},
                                          "f:tags": {'v:"b"': {}}}}
    assert kcodec.extract(live, "two", crd=CRD) == {"apiVersion": "example.com/v1", "kind": "Widget",
                                                    "spec": {"ports": [{"port": 443, "name": "https"}],
                                                             "tags": ["b"]}}
    # Without the CRD, content is deduced: lists are atomic, so the second apply conflicts.
    with pytest.raises(ApplyConflictError):
        kcodec.apply(kcodec.apply(None, cr(tags=["a"]), "one"), cr(tags=["b"]), "two")


def test_object_field_manager_on_internal_objects() -> None:
    """What the API server does: internal objects in and out, managedFields kept in apps/v1."""
    from kcodec import legacyscheme
    from kcodec.api.apps import internal as apps
    from kcodec.managedfields import ObjectFieldManager
    from kcodec.schema import GroupVersion, GroupVersionKind

    scheme = legacyscheme.scheme
    gvk = GroupVersionKind("apps", "v1", "Deployment")
    fm = ObjectFieldManager(scheme, gvk, model=Deployment, reset_fields={"apps/v1": [["status"]]})
    created = legacyscheme.to_internal(Deployment.from_dict(json.loads(json.dumps(DEPLOY))), default=True)
    created.status.replicas = 7  # the status is reset: nobody owns it
    created = fm.update(None, created, "kubectl-create")
    assert isinstance(created, apps.Deployment)
    (entry,) = created.metadata.managed_fields
    assert (entry.manager, entry.operation, entry.api_version) == ("kubectl-create", "Update", "apps/v1")
    owned = json.loads(bytes(entry.fields_v1.raw))
    assert "f:status" not in owned and "f:replicas" in owned["f:spec"]
    applied = fm.apply(created, _cfg(replicas=9), "ssa", force=True)
    assert isinstance(applied, Deployment) and applied.spec.replicas == 9
    assert sorted(m.manager for m in applied.metadata.managed_fields) == ["kubectl-create", "ssa"]
    internal = scheme.convert_to_version(applied, GroupVersion("apps", "__internal"))
    assert internal.spec.replicas == 9


_SERVER_SET = ("uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
               "deletionGracePeriodSeconds", "selfLink", "managedFields")


def _without_times(tree):
    out = json.loads(json.dumps(tree))
    for mf in out["metadata"].get("managedFields") or []:
        mf.pop("time", None)
    return out


def test_typed_live_objects_skip_validation_with_the_same_results() -> None:
    # The fully populated Deployment k8s.io/api writes (its roundtrip fixture), as a configuration.
    config = json.loads((fixtures_dir() / "apps.v1.Deployment.json").read_bytes())
    for key in _SERVER_SET:
        config["metadata"].pop(key, None)
    config.pop("status", None)
    live = kcodec.apply(None, config, "deployer")
    changed = json.loads(json.dumps(config))
    changed["spec"]["replicas"] = 7
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    other = _cfg(replicas=3)
    for cfg, manager in ((config, "deployer"), (changed, "deployer"), (other, "scaler")):
        from_dict = kcodec.apply(live, cfg, manager, force=True)
        from_model = kcodec.apply(Deployment.from_dict(live), cfg, manager, force=True)
        assert isinstance(from_model, Deployment)
        assert _without_times(from_model.to_dict()) == _without_times(Deployment.from_dict(from_dict).to_dict())
    # A dict is input that can be wrong, so it is still validated as Go validates it.
    bad = json.loads(json.dumps(live))
    bad["spec"]["replicaz"] = 1
    with pytest.raises(KCodecError, match=r"\.spec\.replicaz: field not declared in schema"):
        kcodec.apply(bad, config, "deployer")


def test_validation_walk_builds_the_same_field_set_as_to_field_set() -> None:
    # validate_to_field_set fuses typed.go's validation and tofieldset.go's walk over the
    # applied configuration: same set for structs, list maps, sets, atomic lists, maps,
    # nulls, empty maps and deduced content.
    from kcodec.managedfields.schema import DEDUCED
    from kcodec.managedfields.typed import to_field_set, validate_to_field_set

    schema = model_schema()
    config = json.loads((fixtures_dir() / "apps.v1.Deployment.json").read_bytes())
    config["metadata"].pop("managedFields", None)
    config["spec"]["template"]["metadata"]["annotations"] = {}
    config["spec"]["paused"] = None
    tr = schema.type_ref_for(Deployment)
    assert validate_to_field_set(schema, tr, config) == to_field_set(schema, tr, config)
    assert not to_field_set(schema, tr, config).empty()
    deduced = {"a": {"b": [1, {"c": None}], "d": {}}, "e": "x"}
    assert validate_to_field_set(schema, DEDUCED, deduced) == to_field_set(schema, DEDUCED, deduced)
    with pytest.raises(KCodecError, match="field not declared in schema"):
        validate_to_field_set(schema, tr, {**config, "bogus": 1})


_SERVER_SET = ("uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
               "deletionGracePeriodSeconds", "selfLink", "managedFields")


def _fixture_configs() -> list:
    import json as _json

    from conftest import fixtures_dir

    out = []
    for path in sorted(fixtures_dir().glob("*.json")):
        tree = _json.loads(path.read_bytes())
        if not isinstance(tree, dict) or not tree.get("kind") or not isinstance(tree.get("metadata"), dict):
            continue
        for key in _SERVER_SET:
            tree["metadata"].pop(key, None)
        tree.pop("status", None)
        if tree["metadata"].get("name"):
            out.append(pytest.param(tree, id=path.name))
    return out


@pytest.mark.parametrize("tree", _fixture_configs())
def test_a_model_applied_comes_back_as_its_defaulted_model(tree) -> None:
    """kcodec.apply of a model gives the defaulted model itself: equal, field for field and
    byte for byte, to the dict apply of the same configuration read back into the model."""
    from kcodec._apply import _model_class

    model = _model_class(tree["apiVersion"], tree["kind"])
    if model is None:
        pytest.skip("not a built-in kind")
    obj = model.from_dict(tree)
    typed = kcodec.apply(None, obj, "m")
    read_back = model.from_dict(kcodec.apply(None, obj.to_dict(), "m"))
    for o in (typed, read_back):
        for entry in o.metadata.managed_fields or []:
            entry.time = None
    assert type(typed) is model
    assert typed == read_back
    assert kcodec.dump(typed, "json") == kcodec.dump(read_back, "json")


@pytest.mark.parametrize("metadata", [[1], "text", 7])
def test_metadata_that_is_not_an_object(metadata) -> None:
    """A built-in kind refuses it in validation (Go: failed to create typed patch object);
    deduced content reads it as unstructured's accessors do (no fields) and keeps it."""
    from kcodec.managedfields.typed import ValidationError

    with pytest.raises(ValidationError, match=r"^\.metadata: expected map"):
        kcodec.apply(None, {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata}, "m")
    out = kcodec.apply(None, {"apiVersion": "x.io/v1", "kind": "Foo", "metadata": metadata, "spec": {"a": 1}},
                       "kubectl")
    assert out["metadata"] == metadata and out["spec"] == {"a": 1}
