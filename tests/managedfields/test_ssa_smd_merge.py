"""structured-merge-diff's Updater test tables (merge/*_test.go), run against kcodec.managedfields.

tests/managedfields/data/smd_merge_cases.json holds the table-driven cases of
sigs.k8s.io/structured-merge-diff/v6 merge/*_test.go that use a YAML schema or the deduced
type and no custom converter, transcribed from their Go literals (the commit is in
"source"). Each case runs its operations through a state as internal/fixture/state.go
does (Apply, ForceApply, Update, ExtractApply, with the identity converter of its
dummyConverter) and checks the final object, the managers' sets and versions (Go's
ManagedFields.Difference ignores the applied flag) and the conflicts each apply expects.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kcodec.goyaml import yaml_to_tree
from kcodec.managedfields import typed
from kcodec.managedfields.fieldpath import PathElement, Set, VersionedSet
from kcodec.managedfields.merge import Conflict, Conflicts, Updater
from kcodec.managedfields.schema import DEDUCED, Schema

DATA = json.loads((Path(__file__).parent / "data" / "smd_merge_cases.json").read_text())


class Unsupported(Exception):
    pass


def _fix_tabs(text: str) -> str:
    """internal/fixture/state.go FixTabsOrDie: drop the first line's leading tabs from every line."""
    lines = text.split("\n")
    if not lines[0] and len(lines) > 1:
        lines = lines[1:]
    prefix = len(lines[0]) - len(lines[0].lstrip("\t"))
    out = []
    for i, line in enumerate(lines):
        if i == len(lines) - 1 and not line.strip():
            out.append("")
            break
        out.append(line[prefix:])
    return "\n".join(out)


def _yaml(text: str):
    return yaml_to_tree(_fix_tabs(text).encode("utf-8")) if text.strip() else None


def _element(node) -> PathElement:
    if isinstance(node, str):
        return PathElement.field(node)
    if isinstance(node, int) and not isinstance(node, bool):
        return PathElement.index(node)
    if isinstance(node, dict) and node.get("call") == "_KBF":
        a = node["args"]
        return PathElement.key(list(zip(a[0::2], a[1::2])))
    if isinstance(node, dict) and node.get("call") == "_V":
        return PathElement.value(node["args"][0])
    raise Unsupported(f"path element {node!r}")


def _path(node):
    if not (isinstance(node, dict) and node.get("call") in ("_P", "fieldpath.MakePathOrDie")):
        raise Unsupported(f"path {node!r}")
    return tuple(_element(a) for a in node["args"])


def _set(node) -> Set:
    if not (isinstance(node, dict) and node.get("call") in ("_NS", "fieldpath.NewSet")):
        raise Unsupported(f"set {node!r}")
    return Set(_path(p) for p in node["args"])


def _managed(node) -> dict[str, tuple[Set, str]]:
    out = {}
    for manager, vs in node["fields"].items():
        if vs.get("call") != "fieldpath.NewVersionedSet":
            raise Unsupported(f"versioned set {vs!r}")
        out[manager] = (_set(vs["args"][0]), vs["args"][1])
    return out


def _ignore(fields) -> dict:
    if "IgnoredFields" in fields:
        return {v: (lambda s, r=_set(x): s.recursive_difference(r)) for v, x in fields["IgnoredFields"]["fields"].items()}
    if "IgnoreFilter" in fields:
        out = {}
        for v, f in fields["IgnoreFilter"]["fields"].items():
            if f.get("call") != "fieldpath.NewExcludeSetFilter":
                raise Unsupported(f"filter {f!r}")
            out[v] = lambda s, r=_set(f["args"][0]): s.recursive_difference(r)
        return out
    return {}


def _cases():
    out = []
    for c in DATA["cases"]:
        schema = Schema.from_smd(yaml_to_tree(c["schema"]["schema"].encode())) if c["schema"] else Schema()
        root = c["schema"]["root"] if c["schema"] else DEDUCED
        out.append(pytest.param(schema, root, c["case"]["fields"], id=f"{c['test']}/{c['name']}"))
    return out


def _run(schema: Schema, root, case: dict) -> None:
    updater = Updater(ignore=_ignore(case))
    live = typed.TypedValue(None, schema, root)
    managers: dict[str, VersionedSet] = {}
    for op in case["Ops"]["items"]:
        f = op["fields"]
        version, manager = f.get("APIVersion", ""), f.get("Manager", "")
        if op["type"] == "Update":
            tv = typed.TypedValue(_yaml(f["Object"]), schema, root).validate(allow_duplicates=True)
            live, managers = updater.update(live, tv, version, managers, manager)
            continue
        tv = typed.TypedValue(_yaml(f["Object"]), schema, root).validate()
        force = op["type"] == "ForceApply"
        if op["type"] == "ExtractApply":
            vs = managers.get(manager)
            items = vs.set.leaves() if vs is not None else Set()
            tv = live.extract_items(items).merge(tv)
            force = True
        expected = f.get("Conflicts")
        try:
            new, managers = updater.apply(live, tv, version, managers, manager, force)
        except Conflicts as err:
            if expected is None:
                raise
            got = set(err.conflicts)
        else:
            got = set()
            if new is not None:
                live = new
        if expected is not None:
            want = {Conflict(c["fields"]["Manager"], _path(c["fields"]["Path"])) for c in expected["items"]}
            assert got == want
    if "Object" in case and case["Object"].strip():
        assert typed._equals(live.value, _yaml(case["Object"]))
    if "Managed" in case:
        want = _managed(case["Managed"])
        got = {m: (vs.set, vs.api_version) for m, vs in managers.items()}
        assert got == want
    assert all(not vs.set.empty() for vs in managers.values())


def test_tables_are_there() -> None:
    assert DATA["source"].startswith("sigs.k8s.io/structured-merge-diff/v6")
    assert len(DATA["cases"]) == 97


@pytest.mark.parametrize(("schema", "root", "case"), _cases())
def test_merge_table(schema, root, case) -> None:
    try:
        _run(schema, root, case)
    except Unsupported as exc:
        pytest.skip(f"not transcribed: {exc}")
