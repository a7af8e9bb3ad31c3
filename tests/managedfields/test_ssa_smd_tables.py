"""structured-merge-diff's own typed test tables, run against kcodec.managedfields.typed.

tests/managedfields/data/smd_typed_cases.json holds the cases of
sigs.k8s.io/structured-merge-diff/v6 typed/merge_test.go (mergeCases), typed/toset_test.go
(fieldsetCases), typed/symdiff_test.go (symdiffCases) and typed/remove_test.go (removeCases),
copied as data with their Go-expected results (the commit is in the file's "source"). Sets
are written as in Go (``_NS(_P("list", _KBF("key", "a"), "value"))``) and read here.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import yaml

from kcodec.goyaml import yaml_to_tree
from kcodec.managedfields.fieldpath import PathElement, Set
from kcodec.managedfields.schema import Schema
from kcodec.managedfields import typed

DATA = json.loads((Path(__file__).parent / "data" / "smd_typed_cases.json").read_text())


def _value(node: ast.expr):
    if isinstance(node, ast.Name):
        return {"true": True, "false": False, "nil": None}[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.Call) and node.func.id == "_V":  # type: ignore[attr-defined]
        return _value(node.args[0])
    return ast.literal_eval(node)


def _element(node: ast.expr) -> PathElement:
    if isinstance(node, ast.Call) and node.func.id == "_KBF":  # type: ignore[attr-defined]
        vals = [_value(a) for a in node.args]
        return PathElement.key(list(zip(vals[0::2], vals[1::2])))
    if isinstance(node, ast.Call) and node.func.id == "_V":  # type: ignore[attr-defined]
        return PathElement.value(_value(node.args[0]))
    v = _value(node)
    return PathElement.index(v) if isinstance(v, int) and not isinstance(v, bool) else PathElement.field(v)


def _set(expr: str) -> Set:
    """Go's ``_NS(_P(...), ...)`` (fieldpath.NewSet of MakePathOrDie) as a Set."""
    call = ast.parse(expr, mode="eval").body
    assert isinstance(call, ast.Call) and call.func.id == "_NS"  # type: ignore[attr-defined]
    return Set(tuple(_element(a) for a in p.args) for p in call.args)  # type: ignore[attr-defined]


def _yaml(text: str):
    # SMD's tests read YAMLObjects with go-yaml, which kcodec.goyaml reproduces (it takes
    # `{"a":{}}}`, which symdiff_test.go has, as go-yaml does).
    return yaml_to_tree(text.encode("utf-8"))


def _params(section: str, fields: tuple[str, ...]):
    out = []
    for case in DATA[section]:
        schema = Schema.from_smd(yaml.safe_load(case["schema"]))
        for i, item in enumerate(case["items"]):
            out.append(pytest.param(schema, case["root"], *(item[f] for f in fields), id=f"{case['name']}-{i}"))
    return out


def test_tables_are_there() -> None:
    assert DATA["source"].startswith("sigs.k8s.io/structured-merge-diff/v6")
    assert {k: sum(len(c["items"]) for c in DATA[k]) for k in ("merge", "toset", "symdiff", "remove")} == \
        {"merge": 57, "toset": 29, "symdiff": 84, "remove": 59}


@pytest.mark.parametrize(("schema", "root", "lhs", "rhs", "out"), _params("merge", ("lhs", "rhs", "out")))
def test_merge_table(schema, root, lhs, rhs, out) -> None:
    left, right, want = _yaml(lhs), _yaml(rhs), _yaml(out)
    typed.validate(schema, root, left, allow_duplicates=True)
    typed.validate(schema, root, right)
    assert typed._equals(typed.merge(schema, root, left, right), want)


@pytest.mark.parametrize(("schema", "root", "obj", "expr"), _params("toset", ("object", "set")))
def test_toset_table(schema, root, obj, expr) -> None:
    assert typed.to_field_set(schema, root, _yaml(obj)) == _set(expr)


@pytest.mark.parametrize(("schema", "root", "lhs", "rhs", "removed", "modified", "added"),
                         _params("symdiff", ("lhs", "rhs", "removed", "modified", "added")))
def test_symdiff_table(schema, root, lhs, rhs, removed, modified, added) -> None:
    left, right = _yaml(lhs), _yaml(rhs)
    got = typed.compare(schema, root, left, right)
    assert (got.removed, got.modified, got.added) == (_set(removed), _set(modified), _set(added))
    back = typed.compare(schema, root, right, left)  # symdiff_test.go checks the reverse too
    assert (back.removed, back.modified, back.added) == (_set(added), _set(modified), _set(removed))


@pytest.mark.parametrize(("schema", "root", "obj", "expr", "removed", "extracted"),
                         _params("remove", ("object", "set", "remove", "extract")))
def test_remove_table(schema, root, obj, expr, removed, extracted) -> None:
    value, items = _yaml(obj), _set(expr)
    if removed != "unparseable":
        assert typed._equals(typed.remove_items(schema, root, value, items), _yaml(removed))
    if extracted != "unparseable":
        assert typed._equals(typed.extract_items(schema, root, value, items), _yaml(extracted))
