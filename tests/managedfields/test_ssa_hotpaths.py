"""The field manager's hot paths against the slower code they stand for: ``typed.copy_tree``
(json.loads(json.dumps(tree))) and ``fieldpath.Set.to_tree`` (json.loads(Set.to_json())) on
every Go-written fixture and on the trees the round trip treats specially, the Updater's
no-change apply (which skips compare.go's walk) against the full walk, and its prune (skipped
when the manager still applies everything it applied) against update.go's three walks."""
from __future__ import annotations

import json

import pytest

import kcodec
from kcodec.api.apps.v1 import Deployment
from kcodec.managedfields import FieldManager, model_schema
from kcodec.managedfields.fieldpath import Set
from kcodec.managedfields.typed import copy_tree

from conftest import fixtures_dir


def _fixtures() -> list:
    return sorted(p for p in fixtures_dir().glob("*.json"))


def test_copy_tree_equals_the_json_round_trip_on_every_fixture() -> None:
    for path in _fixtures():
        tree = json.loads(path.read_bytes())
        copy = copy_tree(tree)
        assert copy == tree and json.dumps(copy) == json.dumps(json.loads(json.dumps(tree))), path.name
        if isinstance(tree, dict) and tree:
            assert copy is not tree


def test_copy_tree_shares_no_container() -> None:
    tree = {"a": [{"b": {"c": [1, 2.5, None, True, "x"]}}]}
    copy = copy_tree(tree)
    copy["a"][0]["b"]["c"].append(3)
    assert tree == {"a": [{"b": {"c": [1, 2.5, None, True, "x"]}}]}


@pytest.mark.parametrize("tree", [{"t": (1, 2)}, {1: "a", "b": {True: None}}, [float("nan"), -0.0, float("inf")]],
                         ids=["tuple", "non-string keys", "special floats"])
def test_copy_tree_takes_the_round_trip_for_what_json_rewrites(tree) -> None:
    assert json.dumps(copy_tree(tree)) == json.dumps(json.loads(json.dumps(tree)))


def test_copy_tree_of_a_cycle_raises_what_json_raises() -> None:
    cycle: dict = {}
    cycle["self"] = cycle
    with pytest.raises(ValueError, match="Circular reference detected"):
        copy_tree(cycle)


def test_set_to_tree_is_the_parsed_fieldsv1_with_its_key_order() -> None:
    sets = []
    for path in _fixtures():
        tree = json.loads(path.read_bytes())
        if isinstance(tree, dict) and tree.get("kind") and tree.get("apiVersion"):
            for entry in (tree.get("metadata") or {}).get("managedFields") or []:
                if isinstance(entry.get("fieldsV1"), dict):
                    sets.append(Set.from_tree(entry["fieldsV1"]))
    deployment = kcodec.apply(None, _deployment_config(), "deployer")
    sets += [Set.from_tree(e["fieldsV1"]) for e in deployment["metadata"]["managedFields"]]
    sets.append(Set())
    for s in sets:
        assert json.dumps(s.to_tree()) == json.dumps(json.loads(s.to_json()))


def _deployment_config() -> dict:
    config = json.loads((fixtures_dir() / "apps.v1.Deployment.json").read_bytes())
    config.pop("status", None)
    config["metadata"] = {k: config["metadata"][k] for k in ("name", "namespace", "labels", "annotations")
                          if k in config["metadata"]}
    return config


def _apply_both_ways(live: dict, config: dict, manager: str) -> tuple:
    """Updater.apply with a validated live value (the short path may be taken) and with the
    same value not marked validated (the full compare walk always runs)."""
    from kcodec.managedfields import TypedValue, Updater, decode_managed_fields
    from kcodec.managedfields.fieldmanager import build_manager_identifier

    schema = model_schema()
    ref = schema.type_ref_for(Deployment)
    ident = build_manager_identifier({"manager": manager, "operation": "Apply", "apiVersion": "apps/v1"})
    out = []
    for validated in (True, False):
        tree = copy_tree(live)
        entries = tree["metadata"].pop("managedFields", None)
        live_t = TypedValue(tree, schema, ref).validate(allow_duplicates=True)
        live_t.validated = validated
        config_t = TypedValue(copy_tree(config), schema, ref).validate(keep_field_set=True)
        new, managers = Updater().apply(live_t, config_t, "apps/v1", dict(decode_managed_fields(entries).fields),
                                        ident, False)
        out.append((None if new is None else new.value,
                    {m: (vs.set.to_tree(), vs.api_version, vs.applied) for m, vs in managers.items()}))
    return out[0], out[1]


@pytest.mark.parametrize("other", [None, "replicas-owner", "empty-set"])
@pytest.mark.parametrize("change", [False, True], ids=["unchanged", "changed"])
def test_the_short_apply_path_records_what_the_full_walk_records(other, change) -> None:
    config = _deployment_config()
    fm = FieldManager(model_schema(), model_schema().type_ref_for(Deployment), "apps/v1", "Deployment")
    live = fm.apply({"apiVersion": "apps/v1", "kind": "Deployment"}, config, "deployer")
    if other == "replicas-owner":
        live = fm.apply(live, {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {
            "name": config["metadata"]["name"]}, "spec": {"replicas": config["spec"]["replicas"]}}, "hpa")
    elif other == "empty-set":
        live["metadata"]["managedFields"].append({"manager": "gone", "operation": "Update", "apiVersion": "apps/v1",
                                                  "fieldsType": "FieldsV1", "fieldsV1": {}})
    if change:
        config["spec"]["template"]["spec"]["containers"][0]["image"] = "changed:1"
        del config["spec"]["minReadySeconds"]
    short, full = _apply_both_ways(live, config, "deployer")
    assert short == full
    assert all('"gone"' not in m for m in short[1])
    assert (short[0] is None) == (not change)


def _prune_both_ways(live: dict, config: dict, managers_json: dict, manager: str, last_json: dict) -> tuple:
    """Updater._prune (which skips the walk when the manager still applies all it applied)
    and Updater._prune_walk (update.go prune's three walks) on the merge of ``config`` into
    ``live``, with ``manager``'s last applied set ``last_json`` (FieldsV1)."""
    from kcodec.managedfields import TypedValue, Updater
    from kcodec.managedfields.fieldpath import VersionedSet

    schema = model_schema()
    ref = schema.type_ref_for(Deployment)
    live_t = TypedValue(copy_tree(live), schema, ref).validate(allow_duplicates=True)
    config_t = TypedValue(copy_tree(config), schema, ref).validate(keep_field_set=True)
    merged = live_t.merge(config_t)
    managers = {m: VersionedSet(Set.from_tree(t), "apps/v1", False) for m, t in managers_json.items()}
    managers[manager] = VersionedSet(config_t.to_field_set(), "apps/v1", True)
    last = VersionedSet(Set.from_tree(last_json), "apps/v1", True)
    updater = Updater()
    short = updater._prune(merged, dict(managers), manager, last)
    return short.value, updater._prune_walk(merged, dict(managers), manager, last).value, short is merged


_BASE = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}


@pytest.mark.parametrize("case", [
    # config applies x: {} while live holds fields below it that nobody owns
    ({"spec": {"template": {"metadata": {"labels": {"app": "web", "stray": "1"}}}}},
     {"spec": {"template": {"metadata": {"labels": {}}}}},
     {"f:spec": {"f:template": {"f:metadata": {"f:labels": {}}}}}),
    # list items and map keys kept, an unowned container field below an applied item
    ({"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "x", "tty": True}]}}},
      "metadata": {"name": "web", "labels": {"k": "v", "other": "o"}}},
     {"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "y"}]}}}, "metadata": {"labels": {"k": "v"}}},
     {"f:metadata": {"f:labels": {"f:k": {}}}, "f:spec": {"f:template": {"f:spec": {"f:containers": {
         'k:{"name":"a"}': {".": {}, "f:name": {}, "f:image": {}}}}}}}),
    # null applied where live has a map
    ({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}},
     {"spec": {"strategy": None}},
     {"f:spec": {"f:strategy": {}}}),
], ids=["empty-map-over-unowned", "items-and-keys", "null-over-map"])
@pytest.mark.parametrize("others", [{}, {"hpa": {"f:spec": {"f:replicas": {}}}}], ids=["alone", "with-other"])
def test_prune_skipped_only_where_the_walk_removes_nothing(case, others) -> None:
    live_extra, config_extra, last = case
    live = json.loads(json.dumps({**_BASE, **live_extra}))
    live["metadata"] = {**_BASE["metadata"], **live_extra.get("metadata", {})}
    config = json.loads(json.dumps({**_BASE, **config_extra}))
    config["metadata"] = {**_BASE["metadata"], **config_extra.get("metadata", {})}
    short, full, skipped = _prune_both_ways(live, config, others, "deployer", last)
    assert skipped and short == full


def test_prune_walk_runs_when_a_field_is_no_longer_applied() -> None:
    live = {**_BASE, "spec": {"replicas": 3, "minReadySeconds": 5}}
    config = {**_BASE, "spec": {"replicas": 3}}
    short, full, skipped = _prune_both_ways(live, config, {}, "deployer",
                                            {"f:spec": {"f:replicas": {}, "f:minReadySeconds": {}}})
    assert not skipped and short == full and "minReadySeconds" not in short["spec"]


def _containers(tree: dict) -> list:
    return tree["spec"]["template"]["spec"]["containers"]


def test_apply_results_share_nothing_with_the_callers_trees() -> None:
    """FieldManager.apply without ``owned`` and kcodec.apply (which copies what it is given
    and lets the merge share its copies) leave results that later changes to the inputs do
    not reach, and inputs the apply did not change."""
    config = _deployment_config()
    before = json.dumps(config)
    fm = FieldManager(model_schema(), model_schema().type_ref_for(Deployment), "apps/v1", "Deployment")
    created = fm.apply({"apiVersion": "apps/v1", "kind": "Deployment"}, config, "deployer")
    offline = kcodec.apply(None, config, "deployer")
    other = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": config["metadata"]["name"]},
             "spec": {"replicas": 9}}
    updated = fm.apply(created, other, "hpa", force=True)
    offline2 = kcodec.apply(offline, other, "hpa", force=True)
    assert json.dumps(config) == before
    snapshot = [json.dumps(t) for t in (created, offline, updated, offline2)]
    _containers(config)[0]["image"] = "mutated:1"
    assert json.dumps(created) == snapshot[0] and json.dumps(offline) == snapshot[1]
    _containers(created)[0]["image"] = "mutated:2"
    _containers(offline)[0]["image"] = "mutated:3"
    assert json.dumps(updated) == snapshot[2] and json.dumps(offline2) == snapshot[3]
    assert _containers(updated)[0]["image"] != "mutated:2"


def test_owned_apply_equals_the_copying_apply() -> None:
    config = _deployment_config()
    fm = FieldManager(model_schema(), model_schema().type_ref_for(Deployment), "apps/v1", "Deployment")
    empty = {"apiVersion": "apps/v1", "kind": "Deployment"}
    plain = fm.apply(dict(empty), copy_tree(config), "deployer")
    owned = fm.apply(dict(empty), copy_tree(config), "deployer", owned=True)
    for tree in (plain, owned):
        for entry in tree["metadata"]["managedFields"]:
            entry.pop("time", None)
    assert json.dumps(plain) == json.dumps(owned)
    other = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": config["metadata"]["name"]},
             "spec": {"replicas": 9, "template": {"spec": {"containers": [{"name": _containers(config)[0]["name"],
                                                                           "image": "other:2"}]}}}}
    a = fm.apply(copy_tree(plain), copy_tree(other), "hpa", force=True)
    b = fm.apply(copy_tree(plain), copy_tree(other), "hpa", force=True, owned=True)
    for tree in (a, b):
        for entry in tree["metadata"]["managedFields"]:
            entry.pop("time", None)
    assert json.dumps(a) == json.dumps(b)
