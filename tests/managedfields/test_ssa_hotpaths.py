"""The field manager's hot paths against the slower code they stand for: ``typed.copy_tree``
(json.loads(json.dumps(tree))) and ``fieldpath.Set.to_tree`` (json.loads(Set.to_json())) on
every Go-written fixture and on the trees the round trip treats specially, and the Updater's
no-change apply (which skips compare.go's walk) against the full walk."""
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
