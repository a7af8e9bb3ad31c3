"""kubectl's client-side apply upgrade in the field manager (lastappliedmanager.go,
lastappliedupdater.go of k8s.io/apimachinery pkg/util/managedfields/internal).

tests/managedfields/data/lastapplied_cases.json holds every case of Go's
lastappliedmanager_test.go (TestApplyUsingLastAppliedAnnotation, TestServiceApply,
TestReplicationControllerApply, TestPodApply), run as its testConflicts runs them: the
object is written by an Update of ``test_client_side_apply`` with the last-applied
annotation, then applied without force by ``kubectl`` (which may take over what the
annotation still holds) or another manager (which may not), and the conflicts are Go's.
The updater's cases follow lastappliedupdater_test.go (TestLastAppliedUpdater, TestLargeLastApplied).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kcodec.api import scheme
from kcodec.goyaml import yaml_to_tree
from kcodec.managedfields import FieldManager, model_schema
from kcodec.managedfields.fieldmanager import LAST_APPLIED_CONFIG_ANNOTATION, build_manager_identifier
from kcodec.managedfields.fieldpath import PathElement, make_path, path_string
from kcodec.managedfields.merge import Conflicts
from kcodec.schema import GroupVersionKind, parse_group_version

DATA = json.loads((Path(__file__).parent / "data" / "lastapplied_cases.json").read_text())
CASES = [(name, i, t["apiVersion"], t["kind"], case)
         for name, t in DATA["tests"].items() for i, case in enumerate(t["cases"])]


def _manager(api_version: str, kind: str) -> FieldManager:
    gv = parse_group_version(api_version)
    model = type(scheme.new(GroupVersionKind(gv.group, gv.version, kind)))
    schema = model_schema()
    return FieldManager(schema, schema.type_ref_for(model), api_version, kind)


def _tree(text: str) -> dict:
    return yaml_to_tree(text.encode()) or {}


def _path(parts: list) -> tuple:
    return make_path(*[PathElement.key(p["key"]) if isinstance(p, dict) else p for p in parts])


def _derivative(expected, got) -> bool:
    """apiequality.Semantic.DeepDerivative: what ``expected`` sets, ``got`` has."""
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(
            _derivative(v, got.get(k)) for k, v in expected.items() if v not in (None, {}, [], "", 0, False))
    if isinstance(expected, list):
        return isinstance(got, list) and len(expected) == len(got) and all(map(_derivative, expected, got))
    return expected == got


@pytest.mark.parametrize("name,index,api_version,kind,case", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_apply_using_last_applied_annotation(name: str, index: int, api_version: str, kind: str, case: dict) -> None:
    fm = _manager(api_version, kind)
    original = _tree(case["original"])
    last = _tree(case.get("lastApplied", case["original"])) if case.get("lastApplied", None) != "" else {}
    original.setdefault("metadata", {}).setdefault("annotations", {})[LAST_APPLIED_CONFIG_ANNOTATION] = \
        json.dumps(last, sort_keys=True, separators=(",", ":"))
    live = fm.update({"apiVersion": api_version, "kind": kind}, original, "test_client_side_apply")
    applied = _tree(case["applied"])
    expected = case.get("expectConflictSet")
    if expected is None:
        live = fm.apply(live, applied, case["fieldManager"])
    else:
        with pytest.raises(Conflicts) as err:
            fm.apply(live, applied, case["fieldManager"])
        owner = build_manager_identifier({"manager": "test_client_side_apply", "operation": "Update",
                                          "apiVersion": api_version})
        assert sorted((c.manager, path_string(c.path)) for c in err.value.conflicts) == \
            sorted((owner, path_string(_path(p))) for p in expected)
        live = fm.apply(live, applied, case["fieldManager"], force=True)
    applied.get("metadata", {}).pop("annotations", None)
    assert _derivative(applied, live)


DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels: {app: my-app}
spec:
  replicas: 3
  selector: {matchLabels: {app: my-app}}
  template:
    metadata: {labels: {app: my-app}}
    spec:
      containers: [{name: my-c, image: my-image}]
"""


def _last_applied(obj: dict) -> str | None:
    return ((obj.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED_CONFIG_ANNOTATION)


def test_kubectl_applies_keep_an_existing_annotation_in_step() -> None:
    # lastappliedupdater_test.go TestLastAppliedUpdater: only "kubectl" writes it, and only
    # when the object already has one
    fm = _manager("apps/v1", "Deployment")
    empty = {"apiVersion": "apps/v1", "kind": "Deployment"}
    config = _tree(DEPLOYMENT)
    live = fm.apply(empty, config, "kubectl")
    assert _last_applied(live) is None
    annotated = fm.update(live, {**live, "metadata": {**live["metadata"], "annotations": {
        LAST_APPLIED_CONFIG_ANNOTATION: "{}"}}}, "kubectl-client-side-apply")
    config["spec"]["replicas"] = 4
    live = fm.apply(annotated, config, "kubectl")
    # buildLastApplied: unstructured's JSON encoding of the configuration, keys sorted, a newline
    assert _last_applied(live) == json.dumps(config, sort_keys=True, separators=(",", ":")) + "\n"
    other = fm.apply(annotated, config, "not_kubectl", force=True)
    assert _last_applied(other) == "{}"


def test_a_too_large_last_applied_annotation_is_dropped() -> None:
    # lastappliedupdater_test.go TestLargeLastApplied: SetLastApplied drops a value that takes
    # the annotations past 256 KiB instead of failing the apply
    fm = _manager("v1", "ConfigMap")
    live = fm.update({"apiVersion": "v1", "kind": "ConfigMap"}, {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "annotations": {
            LAST_APPLIED_CONFIG_ANNOTATION: "{}"}}}, "kubectl-client-side-apply")
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"k": "x" * 262144}}
    out = fm.apply(live, config, "kubectl")
    assert out["data"]["k"] == "x" * 262144
    assert LAST_APPLIED_CONFIG_ANNOTATION not in (out["metadata"].get("annotations") or {})
    config["data"]["k"] = "small"
    out = fm.apply(live, config, "kubectl")
    assert json.loads(_last_applied(out)) == config
