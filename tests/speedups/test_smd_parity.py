"""Parity of the compiled structured-merge-diff walks (kcodec/_speedups/_smd.pyx) with their
pure twins (kcodec/_native/smd.py).

Both kernel sets get the same schemas and values - every Go fixture typed by its kind,
structured-merge-diff's own typed test tables (typed/merge_test.go, toset_test.go,
symdiff_test.go, remove_test.go), invalid values, list-maps with duplicated and defaulted
keys, deduced types, hostile FieldsV1, deep untyped values - and must give equal field sets
(member by member), equal merged trees (key order included), equal comparisons, FieldsV1
trees, set algebra and value.Equals, and the same errors in the same order. Each test calls
both kernel sets directly, so the module runs once.
"""
from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from conftest import FIXTURES
from kcodec import speedups
from kcodec._native import smd as pure
from kcodec.goyaml import yaml_to_tree
from kcodec.managedfields.fieldpath import FieldPathError, PathElement, Set
from kcodec.managedfields.schema import (
    ASSOCIATIVE, ATOMIC, DEDUCED, UNTYPED_ATOMIC, Atom, ListType, MapType, Schema, StructField,
    custom_resource_type, model_schema,
)

if not speedups.available():
    pytest.skip("the compiled kernels are not built or KCODEC_PURE=1 keeps them off", allow_module_level=True)

from kcodec._speedups import _smd as compiled  # noqa: E402

# The pure twin is bound when kcodec.speedups loads it; this module calls it directly, so it
# hands over the same classes kcodec.managedfields.typed does.
pure.bind_fieldpath(path_element=PathElement, set_cls=Set, atom=Atom, atomic=ATOMIC, associative=ASSOCIATIVE,
                    path_error=FieldPathError)

JSON_FIXTURES = sorted(FIXTURES.glob("*.json")) if FIXTURES.is_dir() else []
needs_fixtures = pytest.mark.skipif(not JSON_FIXTURES, reason="Go fixtures not found beside the checkout")
SMD_CASES = json.loads((Path(__file__).resolve().parents[1] / "managedfields" / "data" /
                        "smd_typed_cases.json").read_text())


@pytest.fixture(autouse=True)
def kcodec_mode():
    """Overrides conftest's two-mode fixture: these tests call both kernel sets themselves."""
    yield "both"


def norm(v: Any) -> Any:
    """A comparable form: sets member by member (path elements by their FieldsV1 text),
    JSON trees by repr (key order and 1 / 1.0 / True told apart)."""
    if isinstance(v, Set):
        # tofieldset.go inserts the zero path element of a duplicated item without a key:
        # here None
        return ("Set", sorted(_pe_text(pe) for pe in v.members),
                sorted((_pe_text(pe), norm(c)) for pe, c in v.children.items()))
    if isinstance(v, PathElement):
        return ("PE", v.serialize(), str(v))
    if isinstance(v, tuple):
        return tuple(norm(x) for x in v)
    return repr(v)


def _pe_text(pe: PathElement | None) -> str:
    return "<zero>" if pe is None else pe.serialize()


def outcome(fn: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    try:
        return ("ok", norm(fn(*args)))
    except RecursionError:
        return ("error", RecursionError)  # the two count their levels differently
    except Exception as exc:  # noqa: BLE001 - the exception itself is what is compared
        return ("error", type(exc), str(exc))


def same(name: str, *args: Any) -> tuple[Any, ...]:
    """Run kernel ``name`` of both sets on ``args``; assert equal outcomes; return one."""
    a = outcome(getattr(pure, name), *args)
    b = outcome(getattr(compiled, name), *args)
    assert a == b, f"{name}{args!r:.300}: pure {a!r:.600} != compiled {b!r:.600}"
    return a


def check_value(schema: Any, type_ref: Any, value: Any, *, other: Any = None) -> None:
    """Every kernel on one value (and ``other`` merged both ways with it)."""
    for dups in (False, True):
        for collect in (False, True):
            same("smd_validate", schema, type_ref, value, dups, collect)
    same("smd_to_field_set", schema, type_ref, value)
    same("smd_merge", schema, type_ref, value, value)
    same("smd_compare", schema, type_ref, value, value)
    if other is not None:
        for name in ("smd_merge", "smd_compare"):
            same(name, schema, type_ref, value, other)
            same(name, schema, type_ref, other, value)
    found = pure.smd_to_field_set(schema, type_ref, value)
    try:
        paths = list(found)
    except AttributeError:  # the zero path element of a keyless duplicate (see norm) cannot sort
        paths = None
    if paths is not None:
        sets = [found, Set(paths[::3]), Set(paths[1::4]), found.leaves(), Set()]
        if other is not None:
            sets.append(pure.smd_to_field_set(schema, type_ref, other))
        for items in sets:
            for extract in (False, True):
                same("smd_remove", schema, type_ref, value, items, extract)
    for kernels in (pure, compiled):
        found = kernels.smd_to_field_set(schema, type_ref, value)
        if same("smd_set_tree", found)[0] == "ok":
            same("smd_set_from_tree", pure.smd_set_tree(found))
        same("smd_ensure_named_fields", found, schema, type_ref)


def kind_of(path: Path) -> tuple[str, str, str]:
    group, version, kind = path.name.rsplit(".", 1)[0].rsplit(".", 2)
    return ("" if group == "core" else group), version, kind


def typed_fixture(path: Path) -> tuple[Any, Any, Any]:
    from kcodec.api import scheme
    from kcodec.schema import GroupVersionKind

    cls = type(scheme.new(GroupVersionKind(*kind_of(path))))
    schema = model_schema()
    return schema, schema.type_ref_for(cls), json.loads(path.read_text())


# ------------------------------------------------------------------ Go fixtures


@needs_fixtures
@pytest.mark.parametrize("path", JSON_FIXTURES, ids=lambda p: p.name)
def test_fixture(path: Path) -> None:
    schema, type_ref, tree = typed_fixture(path)
    check_value(schema, type_ref, tree, other={"metadata": {"name": "x", "labels": {"a": "b"}}})


def _paths(v: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(v, dict):
        for k, x in v.items():
            out.extend(_paths(x, prefix + (k,)))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out.extend(_paths(x, prefix + (i,)))
    return out


def _replace(tree: Any, path: tuple[Any, ...], value: Any) -> Any:
    """``tree`` with ``value`` at ``path`` (unchanged where an earlier change cut the path)."""
    tree = copy.deepcopy(tree)
    node = tree
    for i, step in enumerate(path):
        last = i == len(path) - 1
        if isinstance(step, str):
            ok = isinstance(node, dict) and (last or step in node)
        else:
            ok = isinstance(node, list) and step < len(node)
        if not ok:
            return tree
        if last:
            node[step] = value
            return tree
        node = node[step]
    return tree


WRONG = [1, -2.5, "x", True, None, [], {}, [1, "a"], {"a": 1}, [{"name": None}], {"k": [1]}]


@needs_fixtures
@pytest.mark.parametrize("path", JSON_FIXTURES, ids=lambda p: p.name)
def test_fixture_with_wrong_values(path: Path) -> None:
    """A fixture with values of the wrong shape (errors, their texts and their order)."""
    schema, type_ref, tree = typed_fixture(path)
    rng = random.Random(path.name)
    paths = [p for p in _paths(tree) if p]
    for _ in range(6):
        bad = tree
        for _ in range(rng.randrange(1, 4)):
            bad = _replace(bad, rng.choice(paths), rng.choice(WRONG))
        for dups in (False, True):
            same("smd_validate", schema, type_ref, bad, dups, True)
        same("smd_to_field_set", schema, type_ref, bad)
        same("smd_merge", schema, type_ref, tree, bad)
        same("smd_merge", schema, type_ref, bad, tree)
        same("smd_compare", schema, type_ref, tree, bad)
        same("smd_compare", schema, type_ref, bad, tree)
        same("smd_compare", schema, type_ref, bad, bad)
    # Undeclared fields: Go's "field not declared in schema", at every depth.
    for p in rng.sample(paths, min(5, len(paths))):
        parent = p[:-1]
        node = tree
        for step in parent:
            node = node[step]
        if isinstance(node, dict):
            bad = _replace(tree, parent + ("notAField",), 1)
            same("smd_validate", schema, type_ref, bad, False, True)
            same("smd_merge", schema, type_ref, tree, bad)


# ------------------------------------------------------------------ structured-merge-diff's tables


def _smd_cases() -> list[Any]:
    out = []
    for section, fields in (("merge", ("lhs", "rhs", "out")), ("toset", ("object",)),
                            ("symdiff", ("lhs", "rhs")), ("remove", ("object",))):
        for case in SMD_CASES[section]:
            for i, item in enumerate(case["items"]):
                out.append(pytest.param(case["schema"], case["root"], [item[f] for f in fields],
                                        id=f"{section}-{case['name']}-{i}"))
    return out


@pytest.mark.parametrize(("schema_text", "root", "values"), _smd_cases())
def test_smd_tables(schema_text: str, root: str, values: list[str]) -> None:
    schema = Schema.from_smd(yaml.safe_load(schema_text))
    trees = [yaml_to_tree(v.encode("utf-8")) for v in values]
    for tree in trees:
        check_value(schema, root, tree, other=trees[0])


# ------------------------------------------------------------------ list-maps, sets, defaults


def _containers(*items: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"template": {"spec": {"containers": list(items)}}}}


LIST_CASES = [
    # duplicated keys (validate reports them unless allowed; merge keeps lhs duplicates)
    _containers({"name": "a", "image": "x"}, {"name": "a", "image": "y"}, {"name": "b"}),
    _containers({"name": "a", "ports": [{"containerPort": 80}, {"containerPort": 80, "protocol": "TCP"}]}),
    # a key field left to its default (ContainerPort.protocol: TCP), an item with no key
    _containers({"name": "a", "ports": [{"containerPort": 80}, {"protocol": "UDP"}, {"name": "p"}]}),
    _containers({"image": "nokey"}),
    _containers(None, {"name": "a"}),
    _containers("text"),
    _containers({"name": 1}, {"name": 1.0}, {"name": True}, {"name": None}, {"name": [1]}, {"name": {"a": 1}}),
    {"metadata": {"finalizers": ["a", "b", "a"], "name": "d"}, "kind": "Deployment"},
    {"metadata": {"finalizers": ["a", None, {"x": 1}, [1], 1, 1.5, True]}},
    {"metadata": {"finalizers": "notalist", "labels": ["x"], "annotations": {"a": 1}}},
    {"spec": {"replicas": "3", "paused": 1, "minReadySeconds": 1.5, "selector": []}},
    {"spec": {"replicas": True, "revisionHistoryLimit": None, "strategy": None}},
]


@pytest.mark.parametrize("value", LIST_CASES, ids=range(len(LIST_CASES)))
def test_list_maps_and_shapes(value: Any) -> None:
    from kcodec.api.apps.v1 import Deployment

    schema = model_schema()
    type_ref = schema.type_ref_for(Deployment)
    for other in LIST_CASES:
        check_value(schema, type_ref, value, other=other)


class _List(list):
    pass


class _Str(str):
    pass


def test_container_and_scalar_subclasses() -> None:
    """dict and list subclasses, str and int subclasses: the general paths of both walks."""
    import collections
    import enum

    from kcodec.api.apps.v1 import Deployment

    class Port(enum.IntEnum):
        HTTP = 80

    schema = model_schema()
    type_ref = schema.type_ref_for(Deployment)
    od = collections.OrderedDict
    values = [
        od(metadata=od(name=_Str("d"), labels=od(a=_Str("b")))),
        {"spec": {"template": {"spec": {"containers": _List([od(name="a", ports=_List([od(containerPort=Port.HTTP)]))])}}}},
        {"spec": {"replicas": Port.HTTP, "template": {"metadata": {"annotations": {_Str("k"): _Str("v")}}}}},
        {"metadata": {"finalizers": _List(["a", _Str("a"), "b"])}},
    ]
    for v in values:
        for w in values:
            check_value(schema, type_ref, v, other=w)
        check_value(Schema(), DEDUCED, v, other=values[0])


def test_list_item_path_elements() -> None:
    schema = model_schema()
    keyed = ListType("io.k8s.Port", ASSOCIATIVE, ("containerPort", "protocol"))
    plain = ListType(Atom(scalar="string"), ASSOCIATIVE)
    for lt in (keyed, plain, ListType(Atom(scalar="string"), ATOMIC),
               ListType(Atom(map=MapType({"k": StructField("k", Atom(scalar="string"), "dflt")})), ASSOCIATIVE,
                        ("k", "j"))):
        for child in (None, 1, -0.0, 0.0, 1.5, True, "a", [], [1], {}, {"containerPort": 80},
                      {"containerPort": 80, "protocol": "UDP"}, {"protocol": "TCP"}, {"k": "x"}, {"j": 1},
                      {"containerPort": [1]}, {"containerPort": {"a": None}}):
            same("smd_list_item_pe", schema, lt, child)


FIELDS_V1 = [
    {}, {".": {}}, {"f:a": {}}, {"f:a": {".": {}, "f:b": {}}}, {"f:a": {"f:b": {".": {}}}},
    {"f:a": 1}, {"f:a": {"f:b": []}}, {"f:a": {}, "f:b": None}, {"f:a": {"f:b": {"f:c": "x"}}},
    {"z:unknown": 1, "f:a": {}}, {"f:a": {"z:x": {}}}, {"x": {}}, {"f": {}}, {"": {}}, {"k:{bad": {}},
    {"k:[1]": {}}, {"i:x": {}}, {"i:3": {}, "v:\"a\"": {}, "v:[1,{\"a\":null}]": {}},
    {'k:{"a":1}': {"f:x": {}}, 'k:{"a":1.0}': {"f:y": {}, ".": {}}},
    {'k:{"name":"c","port":80}': {".": {}, "f:name": {}}, 'k:{"port":80,"name":"c"}': {"f:image": {}}},
    {"f:a": {"f:b": {}}, "f:b": {"f:a": {}}, ".": {}}, {"v:1": {}, "v:1.0": {}, "v:true": {}, "v:null": {}},
]


@pytest.mark.parametrize("tree", FIELDS_V1, ids=range(len(FIELDS_V1)))
def test_fields_v1_trees(tree: Any) -> None:
    """serialize.go FromJSON of parsed FieldsV1, hostile keys and values included, and its
    tree again."""
    a = same("smd_set_from_tree", tree)
    if a[0] == "ok":
        found = pure.smd_set_from_tree(tree)
        same("smd_set_tree", found)
        same("smd_ensure_named_fields", found, model_schema(), "nope")


def test_fields_v1_deep() -> None:
    tree: Any = {}
    for i in range(3000):
        tree = {f"f:{i % 7}": tree, ".": {}} if i % 2 else {f"f:{i % 7}": tree}
    assert outcome(pure.smd_set_from_tree, tree) == outcome(compiled.smd_set_from_tree, tree)


# ------------------------------------------------------------------ set algebra and value.Equals


def check_sets(a: Set, b: Set) -> None:
    for name in ("smd_set_difference", "smd_set_recursive_difference", "smd_set_intersection"):
        same(name, a, b)
        same(name, b, a)
        same(name, a, a)
    same("smd_set_empty", a)
    same("smd_set_empty", pure.smd_set_difference(a, a))
    same("smd_set_empty", pure.smd_set_difference(a, b))


@needs_fixtures
def test_set_algebra_on_fixtures() -> None:
    sets = []
    rng = random.Random(7)
    for path in JSON_FIXTURES[::6]:
        schema, type_ref, tree = typed_fixture(path)
        full = pure.smd_to_field_set(schema, type_ref, tree)
        paths = [p for p in _paths(tree) if p]
        cut = _replace(tree, rng.choice(paths), {}) if paths else tree
        part = pure.smd_to_field_set(schema, type_ref, cut)
        named = pure.smd_ensure_named_fields(full, schema, type_ref)
        check_sets(full, part)
        check_sets(named, full)
        sets.append(full)
    for a, b in zip(sets, sets[1:]):
        check_sets(a, b)
    # children without members below them: empty to Go, and kept by Difference as they are
    hollow = Set()
    hollow.children[PathElement.field("a")] = Set()
    hollow.children[PathElement.field("b")] = Set([(PathElement.field("c"),)])
    check_sets(hollow, Set([(PathElement.field("b"), PathElement.field("c"))]))
    check_sets(hollow, Set([(PathElement.field("a"),)]))
    check_sets(Set(), hollow)


EQUAL_CASES = [1, 1.0, True, False, 0, 0.0, None, "1", "", [], {}, [1], [1.0], [True], {"a": 1}, {"a": 1.0},
               {"a": True}, {"b": 1}, {"a": [1, {"x": None}]}, {"a": [1.0, {"x": None}]}, {"a": [1, {"x": 0}]},
               [{"a": 1}, 2], [{"a": 1}, 2.0], (1, 2), [1, 2], float("nan"), 10**30, 1e30, [[[]]], [[[1]]]]


def test_equals() -> None:
    for a in EQUAL_CASES:
        for b in EQUAL_CASES:
            same("smd_equals", a, b)
    rng = random.Random(3)
    values = [_random_json(rng, 5) for _ in range(150)]
    for a in values:
        same("smd_equals", a, copy.deepcopy(a))
        same("smd_equals", a, rng.choice(values))
    for depth in (200, 3000):
        same("smd_equals", _nested(depth), _nested(depth))
        same("smd_equals", _nested(depth), _nested(depth, 1.0))


# ------------------------------------------------------------------ deduced and untyped values


def _random_json(rng: random.Random, depth: int) -> Any:
    r = rng.random()
    if depth <= 0 or r < 0.35:
        return rng.choice([None, True, False, 0, 1, -7, 2.5, 1e300, "", "s", "ü"])
    if r < 0.65:
        return [_random_json(rng, depth - 1) for _ in range(rng.randrange(4))]
    return {rng.choice("abcdef"): _random_json(rng, depth - 1) for _ in range(rng.randrange(4))}


def test_deduced_and_untyped() -> None:
    schema = Schema()
    crd = custom_resource_type(model_schema(), {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                     "properties": {
                         "items": {"type": "array", "x-kubernetes-list-type": "map",
                                   "x-kubernetes-list-map-keys": ["name"],
                                   "items": {"type": "object", "properties": {"name": {"type": "string"},
                                                                              "v": {"type": "integer"}}}},
                         "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                         "port": {"x-kubernetes-int-or-string": True},
                         "free": {"type": "object", "additionalProperties": True},
                         "fixed": {"type": "object", "x-kubernetes-map-type": "atomic",
                                   "additionalProperties": {"type": "string"}}}}}})
    rng = random.Random(1)
    values = [_random_json(rng, 5) for _ in range(120)]
    for i, v in enumerate(values):
        other = values[(i * 7 + 3) % len(values)]
        check_value(schema, DEDUCED, v, other=other)
        check_value(schema, UNTYPED_ATOMIC, v, other=other)
        check_value(model_schema(), crd, {"spec": v, "metadata": {"name": "n"}}, other={"spec": other})
        spec = {"items": [{"name": "a", "v": v}, {"name": rng.choice(["a", "b"]), "v": 1}], "tags": [v, "x"],
                "port": v, "free": {"x": v}, "fixed": {"x": v}}
        check_value(model_schema(), crd, {"spec": spec}, other={"spec": {"items": [{"name": "a", "v": 2}],
                                                                          "tags": ["x"], "free": v}})


def test_schema_errors() -> None:
    broken = Schema.from_smd({"types": [
        {"name": "root", "map": {"fields": [{"name": "a", "type": {"namedType": "missing"}},
                                            {"name": "b", "type": {"namedType": "empty"}},
                                            {"name": "c", "type": {"list": {"elementType": {"namedType": "missing"},
                                                                            "elementRelationship": "associative"}}},
                                            {"name": "d", "type": {"scalar": "weird"}}],
                                 "elementType": {"namedType": "missing"}}},
        {"name": "empty"}]})
    for value in ({"a": 1}, {"b": 1}, {"c": [1, 2]}, {"d": 1}, {"d": None}, {"zzz": {}}, {"a": None, "b": None}):
        check_value(broken, "root", value, other={"a": {}, "c": []})
    check_value(broken, "nope", {"a": 1})
    check_value(broken, Atom(), {"a": 1})


# ------------------------------------------------------------------ deep values


def _nested(depth: int, leaf: Any = 1) -> Any:
    v = leaf
    for i in range(depth):
        v = {"a": v} if i % 2 else [v]
    return v


@pytest.mark.parametrize("depth", [50, 250, 3000])
def test_deep_untyped_values(depth: int) -> None:
    """Deep deduced and untyped values: equal results while Python's recursion limit
    allows the pure walk; beyond it RecursionError from both (the compiled walk charges its
    levels to the same limit, so neither overflows the C stack)."""
    schema = Schema()
    value = _nested(depth)
    for type_ref in (DEDUCED, UNTYPED_ATOMIC):
        calls = [("smd_validate", (schema, type_ref, value, False, collect)) for collect in (False, True)]
        calls += [("smd_to_field_set", (schema, type_ref, value)), ("smd_merge", (schema, type_ref, value, value)),
                  ("smd_compare", (schema, type_ref, value, _nested(depth, 2)))]
        for name, args in calls:
            a = outcome(getattr(pure, name), *args)
            b = outcome(getattr(compiled, name), *args)
            assert a == b, (name, type_ref, a[:2], b[:2])
            if depth <= 250:
                assert a[0] == "ok", (name, type_ref, a[:2])
    # Untyped atomic values are one leaf: no walk below the root, whatever the depth.
    for kernels in (pure, compiled):
        assert kernels.smd_merge(schema, UNTYPED_ATOMIC, value, 1) == (1, [])
        assert kernels.smd_to_field_set(schema, UNTYPED_ATOMIC, value) == Set()


def test_deep_values_past_a_raised_recursion_limit() -> None:
    """JSON allows 10000 levels; with the recursion limit raised for them, both walks take
    them and agree. The compiled walk recurses in C only so deep and hands the rest to its
    twin, so it does not need the larger C stack the limit would otherwise let it use."""
    import sys
    import threading

    value = _nested(10000)
    other = {"b": _nested(9999, 2)}
    schema = Schema()
    got: dict[str, Any] = {}

    def run() -> None:
        fields = pure.smd_to_field_set(schema, DEDUCED, {"x": value})
        for name, args in (("smd_validate", (schema, DEDUCED, {"b": value}, False, True)),
                           ("smd_to_field_set", (schema, DEDUCED, {"b": value})),
                           ("smd_merge", (schema, DEDUCED, {"b": value}, other)),
                           ("smd_compare", (schema, DEDUCED, {"b": value}, other)),
                           ("smd_equals", ({"b": value}, other)),
                           ("smd_set_tree", (fields,)),
                           ("smd_set_from_tree", (pure.smd_set_tree(fields),)),
                           ("smd_ensure_named_fields", (fields, schema, DEDUCED)),
                           ("smd_set_difference", (fields, Set())),
                           ("smd_set_intersection", (fields, fields)),
                           ("smd_set_empty", (fields,)),
                           ("smd_remove", (schema, DEDUCED, {"x": value, "y": 1}, fields, False)),
                           ("smd_remove", (schema, DEDUCED, {"x": value, "y": 1}, fields, True))):
            got[f"{name}{len(got)}"] = (outcome(getattr(pure, name), *args), outcome(getattr(compiled, name), *args))

    limit = sys.getrecursionlimit()
    size = threading.stack_size(512 << 20)
    sys.setrecursionlimit(100_000)
    try:
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
    finally:
        sys.setrecursionlimit(limit)
        threading.stack_size(size)
    assert len(got) == 13
    for name, (a, b) in got.items():
        assert a[0] == "ok" and a == b, (name, a[:2], b[:2])


# ------------------------------------------------------------------ sharing merge, trusted compare


def _thin(v: Any, depth: int = 0) -> Any:
    """A configuration a manager could apply over ``v``: every other field of its maps
    (list items kept whole, so their keys stay), a changed value here and there."""
    if isinstance(v, dict):
        out = {}
        for i, (k, x) in enumerate(v.items()):
            if depth == 0 and k in ("apiVersion", "kind", "metadata"):
                out[k] = x
            elif i % 2 == 0:
                out[k] = _thin(x, depth + 1)
        return out
    if isinstance(v, str) and depth % 3 == 2:
        return v + "-changed"
    return v


@needs_fixtures
@pytest.mark.parametrize("path", JSON_FIXTURES, ids=lambda p: p.name)
def test_shared_merge_and_trusted_compare_equal_the_full_walks(path: Path) -> None:
    schema, type_ref, live = typed_fixture(path)
    config = _thin(live)
    # only values that validate may be shared (the right-hand one without duplicated keys)
    if pure.smd_validate(schema, type_ref, live, True, False)[0] or \
            pure.smd_validate(schema, type_ref, config, False, False)[0]:
        pytest.skip("the fixture or its thinned configuration does not validate")
    for kernels in (pure, compiled):
        for lhs, rhs, share in ((live, config, 1), (live, config, 3), (config, live, 2)):
            full = kernels.smd_merge(schema, type_ref, lhs, rhs)
            shared = kernels.smd_merge(schema, type_ref, lhs, rhs, share)
            assert norm(shared) == norm(full), (kernels.__name__, share)
        merged = kernels.smd_merge(schema, type_ref, live, config, 3)[0]
        copied = kernels.smd_merge(schema, type_ref, live, config)[0]
        assert norm(kernels.smd_compare(schema, type_ref, live, merged, True)) == \
            norm(kernels.smd_compare(schema, type_ref, live, copied)), kernels.__name__
    same("smd_merge", schema, type_ref, live, config, 3)
    same("smd_compare", schema, type_ref, live, live, True)
