"""The field manager's hot paths against the slower code they stand for: ``typed.copy_tree``
(json.loads(json.dumps(tree))) and ``fieldpath.Set.to_tree`` (json.loads(Set.to_json())) on
every Go-written fixture and on the trees the round trip treats specially, and the Updater's
no-change apply (which skips compare.go's walk) against the full walk."""
from __future__ import annotations

import json

import pytest

import kcodec
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


def _without_times(obj: dict) -> list:
    return [{k: v for k, v in e.items() if k != "time"} for e in obj["metadata"]["managedFields"]]


@pytest.mark.parametrize("other", [None, "replicas-owner", "empty-set"])
def test_an_unchanged_apply_records_what_the_full_walk_records(other) -> None:
    from kcodec.api.apps.v1 import Deployment

    schema = model_schema()
    fm = FieldManager(schema, schema.type_ref_for(Deployment), "apps/v1", "Deployment")
    config = _deployment_config()
    live = fm.apply({"apiVersion": "apps/v1", "kind": "Deployment"}, config, "deployer")
    if other == "replicas-owner":
        live = fm.apply(live, {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {
            "name": config["metadata"]["name"]}, "spec": {"replicas": config["spec"]["replicas"]}}, "hpa")
    elif other == "empty-set":
        live["metadata"]["managedFields"].append({"manager": "gone", "operation": "Update", "apiVersion": "apps/v1",
                                                  "fieldsType": "FieldsV1", "fieldsV1": {}})
    # typed=False: live is validated, and the no-change path is taken; typed=True: live is
    # trusted, not validated, and the full compare walk runs
    fast = fm.apply(copy_tree(live), copy_tree(config), "deployer")
    full = fm.apply(copy_tree(live), copy_tree(config), "deployer", typed=True)
    assert _without_times(fast) == _without_times(full)
    assert {k: v for k, v in fast.items() if k != "metadata"} == {k: v for k, v in live.items() if k != "metadata"}
    assert "gone" not in [e["manager"] for e in fast["metadata"]["managedFields"]]
