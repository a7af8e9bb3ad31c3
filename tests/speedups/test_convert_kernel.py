"""The conversion kernels: generated conversions (``convert_fields``) and ``deep_copy``.

Every test runs in both modes (conftest's autouse fixture); the parity tests also call the
pure and compiled kernels side by side and compare results or errors.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from conftest import FIXTURES
from kcodec import _native, conversion, model, speedups
from kcodec.conversion import (
    MAX_CONVERSION_DEPTH,
    ConversionPlan,
    Converter,
    GeneratedConversion,
    Scope,
    copy_fields,
    generated_conversion,
)
from kcodec.errors import ConversionError, KCodecError
from kcodec.model import Int32, Struct, field, fields_of
from kcodec.types import Quantity
from kcodec._native.convert import MAX_COPY_DEPTH

PB_FIXTURES = sorted(FIXTURES.glob("*.pb")) if FIXTURES.is_dir() else []
needs_fixtures = pytest.mark.skipif(not PB_FIXTURES, reason="Go fixtures not found beside the checkout")

KERNELS: list[Any] = [_native]
if speedups.available():
    from kcodec import _speedups

    KERNELS.append(_speedups)


# ----------------------------------------------------------------------------- test types


class PortA(Struct):
    name: str = field(1, "name")
    port: Int32 = field(2, "port")


class PortB(Struct):
    name: str = field(1, "name")
    port: int = field(2, "port")
    protocol: str = field(3, "protocol", default="TCP")


class Shared(Struct):
    value: str = field(1, "value")


class BoxA(Struct):
    title: str = field(1, "title")
    count: Int32 | None = field(2, "count")
    tags: list[str] | None = field(3, "tags")
    labels: dict[str, str] | None = field(4, "labels")
    port: PortA = field(5, "port")
    ports: list[PortA] | None = field(6, "ports")
    by_name: dict[str, PortA] | None = field(7, "byName")
    shared: Shared = field(8, "shared")
    shared_list: list[Shared] | None = field(9, "sharedList")
    size: Quantity | None = field(10, "size")
    only_a: str = field(11, "onlyA")
    loose: Any = field(12, "loose")


class BoxB(Struct):
    title: str = field(1, "title")
    count: Int32 | None = field(2, "count")
    tags: list[str] | None = field(3, "tags")
    labels: dict[str, str] | None = field(4, "labels")
    port: PortB = field(5, "port")
    ports: list[PortB] | None = field(6, "ports")
    by_name: dict[str, PortB] | None = field(7, "byName")
    shared: Shared = field(8, "shared")
    shared_list: list[Shared] | None = field(9, "sharedList")
    size: Quantity | None = field(10, "size")
    only_b: str = field(11, "onlyB", default="kept")
    loose: Any = field(12, "loose")


class NodeA(Struct):
    name: str = field(1, "name")
    child: NodeA | None = field(2, "child")
    kids: list[NodeA] | None = field(3, "kids")


class NodeB(Struct):
    name: str = field(1, "name")
    child: NodeB | None = field(2, "child")
    kids: list[NodeB] | None = field(3, "kids")


class Loud(Struct):
    """A destination whose ``__setattr__`` records writes: the kernel must go through it."""

    name: str = field(1, "name")
    port: PortB = field(2, "port")

    def __setattr__(self, name: str, value: Any) -> None:
        WRITES.append(name)
        object.__setattr__(self, name, value)


WRITES: list[str] = []


def converter(*pairs: tuple[type, type, Any]) -> Converter:
    c = Converter()
    for a, b, fn in pairs:
        c.register_generated_untyped_conversion_func(a, b, fn)
    return c


def box_a() -> BoxA:
    return BoxA(
        title="t", count=3, tags=["x", "y"], labels={"k": "v"},
        port=PortA("p", 80),
        ports=[PortA("a", 1), PortA("b", 2)],
        by_name={"z": PortA("z", 9)},
        shared=Shared("s"), shared_list=[Shared("s1")],
        size=Quantity("1Gi"), only_a="gone", loose={"a": [1, {"b": None}]},
    )


def box_converter(**overrides: Any) -> Converter:
    return converter(
        (BoxA, BoxB, generated_conversion(BoxA, BoxB, overrides or None)),
        (PortA, PortB, generated_conversion(PortA, PortB)),
    )


# ------------------------------------------------------------------------------- helpers


def outcome(fn: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    try:
        return ("ok", fn(*args))
    except Exception as exc:  # noqa: BLE001 - the exception itself is what is compared
        return ("error", type(exc), str(exc))


def mutable_ids(root: Any) -> set[int]:
    """ids of every struct, list and dict reachable from ``root`` (iterative)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        v = stack.pop()
        if isinstance(v, Struct):
            seen.add(id(v))
            stack.extend(getattr(v, f.name) for f in fields_of(type(v)))
        elif isinstance(v, list):
            seen.add(id(v))
            stack.extend(v)
        elif isinstance(v, dict):
            seen.add(id(v))
            stack.extend(v.values())
        elif isinstance(v, (bytearray,)):
            seen.add(id(v))
    return seen


def same_sharing(orig: Any, ref: Any, got: Any) -> None:
    """``got`` has ``ref``'s shape, and shares a leaf with ``orig`` exactly where ``ref`` does."""
    stack = [(orig, ref, got)]
    while stack:
        o, a, b = stack.pop()
        assert type(a) is type(b)
        if isinstance(a, Struct):
            stack.extend((getattr(o, f.name), getattr(a, f.name), getattr(b, f.name)) for f in fields_of(type(a)))
        elif isinstance(a, list):
            assert len(a) == len(b)
            stack.extend(zip(o, a, b))
        elif isinstance(a, dict):
            assert list(a) == list(b)
            stack.extend((o[k], a[k], b[k]) for k in a)
        else:
            assert a == b
            assert (a is o) == (b is o), f"sharing of {a!r} differs"


def chain(cls: type, depth: int) -> Any:
    root = node = cls(name="0")
    for i in range(1, depth):
        node.child = cls(name=str(i))
        node = node.child
    return root


def chain_length(node: Any) -> int:
    n = 0
    while node is not None:
        n += 1
        node = node.child
    return n


# ------------------------------------------------------------------------ deep_copy parity


@pytest.fixture(scope="module")
def fixture_objects() -> list[Any]:
    if not PB_FIXTURES:
        pytest.skip("Go fixtures not found beside the checkout")
    from kcodec.api import scheme
    from kcodec.schema import GroupVersionKind
    from kcodec.serializer.protobuf import Serializer

    s = Serializer(scheme, scheme)
    out = []
    for p in PB_FIXTURES:
        group, version, kind = p.stem.rsplit(".", 2)
        # WatchEvent's files carry no kind: name it, as Go's round-trip test does.
        gvk = GroupVersionKind("" if group == "core" else group, version, kind)
        out.append(s.decode(p.read_bytes(), gvk)[0])
    return out


@needs_fixtures
def test_deep_copy_matches_reference_on_every_fixture(fixture_objects: list[Any]) -> None:
    for obj in fixture_objects:
        if not isinstance(obj, Struct):
            continue
        ref = model._copy_struct(obj)
        for kernels in KERNELS:
            got = kernels.deep_copy(obj)
            assert got == obj == ref
            same_sharing(obj, ref, got)
            assert not (mutable_ids(got) & mutable_ids(obj)), f"{type(obj).__name__} shares containers"


@needs_fixtures
def test_struct_deep_copy_uses_the_kernel(fixture_objects: list[Any]) -> None:
    obj = next(o for o in fixture_objects if type(o).__name__ == "Deployment")
    got = obj.deep_copy()
    assert got == obj and got is not obj
    got.spec.template.spec.containers[0].name = "changed"
    assert obj.spec.template.spec.containers[0].name != "changed"


def test_deep_copy_values_none_and_empty() -> None:
    box = box_a()
    box.tags, box.labels, box.ports = [], {}, None
    object.__setattr__(box, "by_name", {"n": None})  # past the type check: a nil the kernels must copy
    box.loose = [{"x": [[]]}, "s", 1.5, None, model.RawJSON(b"{}")]
    got = speedups.deep_copy(box)
    assert got == box
    assert got.tags == [] and got.tags is not box.tags
    assert got.labels == {} and got.labels is not box.labels
    assert got.ports is None and got.by_name == {"n": None}
    assert got.loose[0]["x"][0] is not box.loose[0]["x"][0]
    assert got.loose[4] is box.loose[4]  # RawJSON is immutable: shared, as _copy_struct does
    assert got.size is box.size  # Quantity is immutable
    same_sharing(box, model._copy_struct(box), got)


def test_deep_copy_keeps_unset_slots_unset_error_parity() -> None:
    broken = object.__new__(PortA)  # no slot set: reading a field fails the same way
    outs = [outcome(k.deep_copy, broken) for k in KERNELS]
    assert outs[0][0] == "error" and outs[0][1] is AttributeError
    assert all(o == outs[0] for o in outs)


def test_deep_copy_unset_nested_slot_error_parity() -> None:
    """A nested struct with an unset slot (built with object.__new__) fails as the root does,
    whether the compiled copy builds it by recursion or queues it."""
    for where in ("port", "ports"):
        box = box_a()
        broken = object.__new__(PortA)
        if where == "port":
            box.port = broken
        else:
            box.ports = [PortA("a", 1), broken]
        outs = [outcome(k.deep_copy, box) for k in KERNELS]
        assert outs[0][0] == "error" and outs[0][1] is AttributeError, outs
        assert all(o == outs[0] for o in outs)


def test_deep_copy_tree_crossing_the_recursion_depth() -> None:
    """Lists of structs at every level of a chain deeper than the compiled copy recurses
    (it queues what lies deeper): every node and list is new and equal, as the pure twin's."""
    root = NodeA(name="0")
    node = root
    for i in range(1, 200):
        node.kids = [NodeA(name=f"k{i}"), NodeA(name=f"l{i}", child=NodeA(name=f"c{i}"))]
        node.child = NodeA(name=str(i))
        node = node.child
    copies = [k.deep_copy(root) for k in KERNELS]
    for got in copies:
        assert got == root
        a, b = root, got
        while a is not None:
            assert a is not b and a.name == b.name
            if a.kids is not None:
                assert b.kids is not a.kids and [x is y for x, y in zip(a.kids, b.kids)] == [False, False]
                assert b.kids[1].child is not a.kids[1].child and b.kids[1].child == a.kids[1].child
            a, b = a.child, b.child


def test_deep_copy_scalar_lists(kcodec_mode: str) -> None:
    """Lists of scalars are new lists of the same items (a tuple where a list belongs too,
    as list() makes it); the compiled copy leaves them untracked."""
    import gc

    for tags in (["x", "y", "z"], [], ("x", "y"), ["only"]):
        box = box_a()
        box.tags = tags  # type: ignore[assignment]
        copies = [k.deep_copy(box) for k in KERNELS]
        for got in copies:
            assert type(got.tags) is list and got.tags == list(tags) and got.tags is not tags
            assert all(a is b for a, b in zip(got.tags, tags))
        got = box.deep_copy()
        if kcodec_mode == "compiled":
            assert not gc.is_tracked(got.tags)
        got.tags.append("new")
        assert list(box.tags) == list(tags)


def test_deep_copy_beyond_recursion_limit() -> None:
    deep = chain(NodeA, 3000)  # far past Python's recursion limit: the kernel is iterative
    got = speedups.deep_copy(deep)
    assert chain_length(got) == 3000
    a, b = deep, got
    while a is not None:
        assert a is not b and a.name == b.name
        a, b = a.child, b.child


def test_deep_copy_cycle_raises_kcodec_error() -> None:
    loop = NodeA(name="loop")
    loop.child = loop
    outs = [outcome(k.deep_copy, loop) for k in KERNELS]
    assert outs[0] == ("error", KCodecError,
                       f"cannot deep copy test_convert_kernel.NodeA: nesting exceeds {MAX_COPY_DEPTH} levels")
    assert all(o == outs[0] for o in outs)


def test_deep_copy_cyclic_untyped_value_raises() -> None:
    tree: dict[str, Any] = {}
    tree["self"] = tree
    box = box_a()
    box.loose = tree
    outs = [outcome(k.deep_copy, box) for k in KERNELS]
    assert outs[0][:2] == ("error", KCodecError)
    assert "nesting exceeds" in outs[0][2]
    assert all(o == outs[0] for o in outs)


# ------------------------------------------------------------------ generated conversions


def test_generated_conversion_copies_shares_and_converts() -> None:
    src = box_a()
    out = BoxB()
    box_converter().convert(src, out)
    assert (out.title, out.count, out.tags, out.labels) == ("t", 3, ["x", "y"], {"k": "v"})
    # Same class or scalar: shared, as Go shares identical layouts.
    assert out.tags is src.tags and out.labels is src.labels and out.shared is src.shared
    assert out.shared_list is src.shared_list and out.size is src.size and out.loose is src.loose
    # Different classes: fresh destination values; cls() semantics (PortB's default protocol).
    assert out.port == PortB("p", 80, "TCP") and type(out.port) is PortB
    assert out.ports == [PortB("a", 1), PortB("b", 2)]
    assert out.by_name == {"z": PortB("z", 9)}
    assert out.only_b == "kept"  # only the destination declares it: untouched


def test_none_and_empty_containers_are_kept_apart() -> None:
    src = box_a()
    src.tags, src.labels, src.ports, src.by_name, src.count = None, {}, [], None, None
    out = BoxB()
    box_converter().convert(src, out)
    assert out.tags is None and out.labels == {} and out.count is None and out.by_name is None
    assert out.ports == [] and out.ports is not src.ports
    src.ports, src.by_name = None, {}
    out = BoxB()
    box_converter().convert(src, out)
    assert out.ports is None and out.by_name == {} and out.by_name is not src.by_name


def test_overrides_call_functions_and_skip_fields() -> None:
    calls: list[tuple[Any, Any, Any]] = []

    def title(src: BoxA, dst: BoxB, scope: Scope) -> None:
        calls.append((src, dst, scope))
        dst.title = src.title.upper()

    c = box_converter(title=title, count=None)
    out = BoxB(count=77)
    src = box_a()
    c.convert(src, out)
    assert out.title == "T" and out.count == 77
    assert len(calls) == 1 and calls[0][0] is src and calls[0][1] is out
    assert isinstance(calls[0][2], Scope) and calls[0][2].meta() is None


def test_override_of_unknown_field_is_reported() -> None:
    fn = generated_conversion(BoxA, BoxB, {"nope": None})
    with pytest.raises(ConversionError, match=r"override for unknown field 'nope'"):
        fn(box_a(), BoxB(), Scope(Converter(), None))


def test_generated_conversion_checks_arguments_and_has_a_repr() -> None:
    with pytest.raises(ConversionError, match="Struct class"):
        generated_conversion(int, BoxB)
    with pytest.raises(ConversionError, match="callable or None"):
        generated_conversion(BoxA, BoxB, {"title": "x"})

    def fix_title(src: Any, dst: Any, scope: Any) -> None:
        dst.title = src.title

    fn = generated_conversion(BoxA, BoxB, {"title": fix_title, "count": None})
    assert isinstance(fn, GeneratedConversion)
    text = repr(fn)
    assert "test_convert_kernel.BoxA -> test_convert_kernel.BoxB" in text
    assert "title=" in text and "fix_title" in text and "count=None" in text
    assert isinstance(fn.plan, ConversionPlan)
    assert [(r.action, r.name) for r in fn.plan.rows][:3] == [
        (conversion.PLAN_OVERRIDE, "title"), (conversion.PLAN_OVERRIDE, "count"), (conversion.PLAN_SHARE, "tags"),
    ]


def test_nested_pair_through_hand_written_function_and_scope() -> None:
    seen: list[Any] = []

    def port(src: PortA, dst: PortB, scope: Scope) -> None:
        seen.append(scope.meta())
        dst.name, dst.port, dst.protocol = src.name + "!", src.port, "SCTP"

    c = Converter()
    c.register_generated_untyped_conversion_func(BoxA, BoxB, generated_conversion(BoxA, BoxB))
    c.register_untyped_conversion_func(PortA, PortB, port)
    meta = conversion.Meta("ctx")
    out = BoxB()
    c.convert(box_a(), out, meta)
    assert out.port == PortB("p!", 80, "SCTP")
    assert out.ports == [PortB("a!", 1, "SCTP"), PortB("b!", 2, "SCTP")]
    assert [m.context for m in seen] == ["ctx"] * 4


def test_manual_function_beats_generated_for_nested_pairs() -> None:
    c = box_converter()
    c.register_untyped_conversion_func(PortA, PortB, lambda s, d, sc: setattr(d, "name", "manual"))
    out = BoxB()
    c.convert(box_a(), out)
    assert out.port.name == "manual" and out.ports[1].name == "manual"


def test_ignored_nested_pair_leaves_fresh_values() -> None:
    c = box_converter()
    c.register_ignored_conversion(PortA, PortB)
    out = BoxB()
    c.convert(box_a(), out)
    assert out.port == PortB() and out.ports == [PortB(), PortB()]


def test_missing_nested_conversion_error_text() -> None:
    c = converter((BoxA, BoxB, generated_conversion(BoxA, BoxB)))
    with pytest.raises(ConversionError) as info:
        c.convert(box_a(), BoxB())
    assert str(info.value) == (
        "converting (test_convert_kernel.PortA) to (test_convert_kernel.PortB): unknown conversion"
    )


def test_copy_fields_keeps_working_and_caches_plans() -> None:
    c = Converter()
    c.register_untyped_conversion_func(PortA, PortB, lambda s, d, sc: copy_fields(s, d, sc))
    c.register_untyped_conversion_func(
        BoxA, BoxB, lambda s, d, sc: copy_fields(s, d, sc, {"title": lambda a, b, x: setattr(b, "title", "o")}),
    )
    out = BoxB()
    c.convert(box_a(), out)
    before = len(conversion._PLANS)
    for _ in range(5):  # fresh override lambdas each call: no new plan
        out = BoxB()
        c.convert(box_a(), out)
    assert len(conversion._PLANS) == before
    assert out.title == "o" and out.ports == [PortB("a", 1), PortB("b", 2)]


def test_custom_setattr_is_respected() -> None:
    c = converter(
        (BoxA, Loud, generated_conversion(BoxA, Loud)),
        (PortA, PortB, generated_conversion(PortA, PortB)),
    )
    out = Loud()
    WRITES.clear()
    c.convert(box_a(), out)
    assert WRITES == ["port"]  # BoxA has no "name": only the shared field is written
    assert out.port == PortB("p", 80)


class _ClaimsMeta(type(Struct)):  # type: ignore[misc]
    """A metaclass whose isinstance also accepts any value named "same"."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return type.__instancecheck__(cls, obj) or getattr(obj, "name", "") == "same"


class PortC(Struct, metaclass=_ClaimsMeta):
    name: str = field(1, "name")
    port: int = field(2, "port")


class BoxC(Struct):
    ports: list[PortC] | None = field(6, "ports")


class Posing(Struct):
    """Passes for a PortB: isinstance() reads ``__class__``."""

    name: str = field(1, "name")

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return PortB


def test_values_already_of_the_destination_class_are_shared_each_time() -> None:
    """A value isinstance() accepts is shared, asked per value: after a class was found not
    to be the row's, a value of another class (or of a class whose metaclass decides per
    value) is still asked."""
    c = converter(
        (BoxA, BoxC, generated_conversion(BoxA, BoxC)),
        (PortA, PortC, generated_conversion(PortA, PortC)),
    )
    src = BoxA(ports=[PortA("a", 1), PortA("same", 2), PortA("b", 3)])
    out = BoxC()
    c.convert(src, out)
    assert [type(p) for p in out.ports] == [PortC, PortA, PortC]
    assert out.ports[1] is src.ports[1] and out.ports[2] == PortC("b", 3)

    posing = Posing("x")
    src = box_a()
    object.__setattr__(src, "ports", [PortA("a", 1), posing, PortA("b", 2)])
    out = BoxB()
    box_converter().convert(src, out)
    assert out.ports[0] == PortB("a", 1) and out.ports[1] is posing and out.ports[2] == PortB("b", 2)


def test_plan_for_other_classes_when_called_directly() -> None:
    class PortA2(PortA):
        pass

    fn = generated_conversion(PortA, PortB)
    out = PortB()
    fn(PortA2("sub", 5), out, Scope(Converter(), None))
    assert out == PortB("sub", 5)


def test_kernels_agree_on_results_and_errors() -> None:
    plan = conversion.conversion_plan(BoxA, BoxB, ("title",))
    cases: list[tuple[Any, Any]] = [
        (box_a(), {"title": None}),
        (box_a(), {"title": lambda s, d, sc: setattr(d, "title", "x")}),
        (box_a(), {}),  # override row without a function: KeyError, same in both
    ]
    bad = box_a()
    object.__setattr__(bad, "port", "not a struct")  # past the type check
    cases.append((bad, {"title": None}))
    nested = box_a()
    object.__setattr__(nested, "ports", [[[PortA("deep", 1)]]])  # past the type check
    cases.append((nested, {"title": None}))
    for src, overrides in cases:
        results = []
        for kernels in KERNELS:
            out = BoxB()
            c = box_converter()
            res = outcome(kernels.convert_fields, plan, src, out, Scope(c, None), overrides)
            results.append((res, [getattr(out, f.name) for f in fields_of(BoxB)]))
        assert all(r == results[0] for r in results), results
    assert results[0][0][0] == "ok"  # the nested lists are converted element by element


def test_value_nesting_is_bounded() -> None:
    src = box_a()
    v: Any = PortA("x", 1)
    for _ in range(40):
        v = [v]
    object.__setattr__(src, "ports", v)  # past the type check
    with pytest.raises(ConversionError, match="nested deeper than 32 levels"):
        box_converter().convert(src, BoxB())


# ---------------------------------------------------------------------------- depth bound


def node_converter() -> Converter:
    return converter(
        (NodeA, NodeB, generated_conversion(NodeA, NodeB)),
        (NodeB, NodeA, generated_conversion(NodeB, NodeA)),
    )


def test_deep_but_bounded_conversion_round_trips() -> None:
    c = node_converter()
    src = chain(NodeA, MAX_CONVERSION_DEPTH)
    src.kids = [NodeA(name="k", kids=[])]
    out = NodeB()
    c.convert(src, out)
    assert chain_length(out) == MAX_CONVERSION_DEPTH and type(out.child.child) is NodeB
    back = NodeA()
    c.convert(out, back)
    assert speedups.deep_copy(back).to_dict() == src.to_dict()


def test_too_deep_conversion_raises_conversion_error() -> None:
    c = node_converter()
    with pytest.raises(ConversionError) as info:
        c.convert(chain(NodeA, MAX_CONVERSION_DEPTH + 5), NodeB())
    assert str(info.value) == (
        "converting (test_convert_kernel.NodeA) to (test_convert_kernel.NodeB): "
        f"exceeded max nesting depth {MAX_CONVERSION_DEPTH}"
    )


def test_cyclic_conversion_raises_conversion_error() -> None:
    loop = NodeA(name="loop")
    loop.kids = [loop]
    with pytest.raises(ConversionError, match="exceeded max nesting depth"):
        node_converter().convert(loop, NodeB())


def test_hand_written_recursion_is_bounded_too() -> None:
    c = Converter()
    c.register_untyped_conversion_func(NodeA, NodeB, lambda s, d, sc: copy_fields(s, d, sc))
    loop = NodeA(name="loop")
    loop.child = loop
    with pytest.raises(ConversionError, match="exceeded max nesting depth"):
        c.convert(loop, NodeB())


# ------------------------------------------------- a self-conversion between API versions


def same_shape_pairs(a: type, b: type) -> list[tuple[type, type]]:
    """Struct class pairs reachable from (a, b) through same-named fields of different classes."""
    pairs: list[tuple[type, type]] = []
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if (x, y) in pairs:
            continue
        pairs.append((x, y))
        fy = {f.name: f for f in fields_of(y)}
        assert [f.name for f in fields_of(x)] == list(fy), f"{x.__name__} and {y.__name__} differ"
        for f in fields_of(x):
            g = fy[f.name]
            cx = f.elem.cls if f.elem is not None else f.cls
            cy = g.elem.cls if g.elem is not None else g.cls
            if cx is not None and cx is not cy and isinstance(cx, model.StructMeta):
                todo.append((cx, cy))
    return pairs


@needs_fixtures
def test_deployment_v1_to_v1beta2_and_back(fixture_objects: list[Any]) -> None:
    from kcodec.api.apps import v1, v1beta2

    pairs = same_shape_pairs(v1.Deployment, v1beta2.Deployment)
    assert len(pairs) >= 5
    c = Converter()
    for x, y in pairs:
        c.register_generated_untyped_conversion_func(x, y, generated_conversion(x, y))
        c.register_generated_untyped_conversion_func(y, x, generated_conversion(y, x))
    src = next(o for o in fixture_objects if type(o) is v1.Deployment)
    original = src.deep_copy()
    beta = v1beta2.Deployment()
    c.convert(src, beta)
    assert beta.to_dict() == src.to_dict()
    assert type(beta.spec) is v1beta2.DeploymentSpec
    assert type(beta.status.conditions[0]) is v1beta2.DeploymentCondition
    assert beta.spec.template is src.spec.template  # core/v1 on both sides: shared
    assert beta.metadata is src.metadata
    back = v1.Deployment()
    c.convert(beta, back)
    assert back == original == src


# ------------------------------------------------------- nested lookups and tracking


class _HolderA(Struct):
    port: PortA = field(1, "port")
    ports: list[PortA] | None = field(2, "ports")


class _HolderB(Struct):
    port: PortB = field(1, "port")
    ports: list[PortB] | None = field(2, "ports")


def test_nested_pair_registered_later_is_used() -> None:
    """The compiled kernel remembers per row which plan a nested pair resolved to; a function
    registered afterwards (a manual one beats the generated one) must still be found."""
    conv = Converter()
    conv.register_generated_untyped_conversion_func(_HolderA, _HolderB, generated_conversion(_HolderA, _HolderB))
    conv.register_generated_untyped_conversion_func(PortA, PortB, generated_conversion(PortA, PortB))
    src = _HolderA(port=PortA(name="a", port=1), ports=[PortA(name="b", port=2)])
    first = _HolderB()
    conv.convert(src, first)
    assert (first.port.name, first.ports[0].port, first.port.protocol) == ("a", 2, "TCP")

    def manual(a: PortA, b: PortB, scope: Scope) -> None:
        b.name, b.port, b.protocol = a.name.upper(), a.port * 10, "UDP"

    conv.register_untyped_conversion_func(PortA, PortB, manual)
    again = _HolderB()
    conv.convert(src, again)
    assert (again.port.name, again.port.port, again.ports[0].port, again.ports[0].protocol) == ("A", 10, 20, "UDP")
    # another converter over the same classes keeps its own answer
    other = Converter()
    other.register_generated_untyped_conversion_func(_HolderA, _HolderB, generated_conversion(_HolderA, _HolderB))
    other.register_generated_untyped_conversion_func(PortA, PortB, generated_conversion(PortA, PortB))
    third = _HolderB()
    other.convert(src, third)
    assert (third.port.name, third.ports[0].port) == ("a", 2)


def test_converted_values_left_to_reference_counting(kcodec_mode: str) -> None:
    """Compiled conversions untrack the structs and lists they create (the collector need not
    walk a converted tree, as with decoded ones); the caller's destination stays tracked, and
    the values are the pure twin's."""
    import gc

    conv = Converter()
    conv.register_generated_untyped_conversion_func(_HolderA, _HolderB, generated_conversion(_HolderA, _HolderB))
    conv.register_generated_untyped_conversion_func(PortA, PortB, generated_conversion(PortA, PortB))
    src = _HolderA(port=PortA(name="a", port=1), ports=[PortA(name="b", port=2)])
    dst = _HolderB()
    conv.convert(src, dst)
    assert gc.is_tracked(dst)
    assert dst.ports == [PortB(name="b", port=2)] and dst.port == PortB(name="a", port=1)
    if kcodec_mode == "compiled":
        assert not gc.is_tracked(dst.port) and not gc.is_tracked(dst.ports[0]) and not gc.is_tracked(dst.ports)


def test_deep_copy_leaves_the_tree_below_its_root_to_reference_counting(kcodec_mode: str) -> None:
    """A compiled copy untracks the structs, lists and maps below the root it returns (as
    decoders and conversions do); the root stays tracked, and the copy is the pure twin's."""
    import gc

    from kcodec.api.core import v1
    from kcodec.api.meta import v1 as metav1

    pod = v1.Pod(metadata=metav1.ObjectMeta(name="p", labels={"a": "b"}),
                 spec=v1.PodSpec(containers=[v1.Container(name="c", args=["x"])]))
    c = pod.deep_copy()
    assert c == pod and c is not pod and gc.is_tracked(c)
    assert c.spec.containers is not pod.spec.containers and c.metadata.labels is not pod.metadata.labels
    if kcodec_mode == "compiled":
        for x in (c.spec, c.spec.containers, c.spec.containers[0], c.spec.containers[0].args,
                  c.metadata, c.metadata.labels):
            assert not gc.is_tracked(x), x


def test_deep_copy_shares_immutable_custom_values() -> None:
    """Quantity, IntOrString and Time are immutable: both kernels keep the value itself (the
    compiled one without calling deep_copy, which is CustomValue's own); FieldsV1 is copied."""
    from datetime import datetime, timezone

    from kcodec.api.core import v1
    from kcodec.api.meta import v1 as metav1
    from kcodec.model import CustomValue
    from kcodec.types import IntOrString, Quantity

    for cls in (Quantity, IntOrString, metav1.Time, metav1.MicroTime):
        assert cls.deep_copy is CustomValue.deep_copy, cls
    q, port, t = Quantity("100m"), IntOrString.from_string("http"), metav1.Time(datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    f = metav1.FieldsV1(b'{"f:a":{}}')
    pod = v1.Pod(metadata=metav1.ObjectMeta(creation_timestamp=t,
                                            managed_fields=[metav1.ManagedFieldsEntry(fields_v1=f)]),
                 spec=v1.PodSpec(containers=[v1.Container(
                     resources=v1.ResourceRequirements(limits={"cpu": q}),
                     readiness_probe=v1.Probe(probe_handler=v1.ProbeHandler(
                         http_get=v1.HTTPGetAction(port=port))))]))
    for kernel in KERNELS:
        c = kernel.deep_copy(pod)
        assert c == pod
        ctr = c.spec.containers[0]
        assert ctr.resources.limits["cpu"] is q
        assert ctr.readiness_probe.probe_handler.http_get.port is port
        assert c.metadata.creation_timestamp is t
        assert c.metadata.managed_fields[0].fields_v1 is not f
        assert c.metadata.managed_fields[0].fields_v1 == f


class Grams(Quantity):
    """A Quantity subclass with a deep_copy of its own: not shared by a copy."""

    __slots__ = ()

    def deep_copy(self) -> "Grams":
        return Grams(str(self))


def test_deep_copy_maps_of_immutable_custom_values() -> None:
    """A map whose values are all exactly an immutable custom class (a ResourceList) is
    copied whole, its values shared; None values and a subclass value with a deep_copy of
    its own (then copied) are handled as the pure twin does."""
    from kcodec.api.core import v1

    q = Quantity("100m")
    for limits in ({"cpu": q, "memory": Quantity("1Gi")}, {}, {"cpu": q, "x": None},
                   {"cpu": q, "g": Grams("5")}):
        res = v1.ResourceRequirements()
        object.__setattr__(res, "limits", limits)  # past the type check: a nil the kernels must copy
        copies = [k.deep_copy(res) for k in KERNELS]
        for got in copies:
            assert got == res and got.limits is not res.limits and list(got.limits) == list(limits)
            assert got.limits.get("cpu") is limits.get("cpu")
            if "g" in limits:
                assert got.limits["g"] is not limits["g"] and got.limits["g"] == limits["g"]
            same_sharing(res, copies[0], got)


class Meddler(Quantity):
    """A custom value whose deep_copy changes the struct being copied (Python code runs in
    the middle of a compiled copy)."""

    __slots__ = ()
    victim: Any = None

    def deep_copy(self) -> "Meddler":
        box = Meddler.victim
        box.ports = [PortA("new", 7)]
        box.labels = None
        object.__delattr__(box, "loose")
        return Meddler(str(self))


class Crate(Struct):
    box: BoxA | None = field(1, "box")


def test_deep_copy_survives_a_source_changed_while_copying() -> None:
    """The compiled copy holds a reference to each slot value of a nested struct it has yet
    to copy: a source changed (a slot even emptied) by a custom deep_copy midway gives a
    well-formed copy (of the values as they were) or an error, never a crash."""
    for kernel in KERNELS:
        for nested in (False, True):
            box = box_a()
            box.size = Meddler("1")
            Meddler.victim = box
            old = (box.tags, box.labels, box.ports, box.loose)  # alive, so no id is reused
            try:
                got = kernel.deep_copy(Crate(box=box) if nested else box)
            except AttributeError:
                continue
            if nested:
                got = got.box
            assert got.title == "t" and type(got.size) is Meddler
            assert not (mutable_ids(got) & {id(x) for x in old})


def test_new_zero_twins_agree_on_every_core_kind() -> None:
    """The scheme makes a decoder's object with the new_zero kernel: the compiled one (from
    the class's table) equals _new_zero for every core/v1 struct, and stays tracked (the
    caller owns it)."""
    import gc

    from kcodec.api.core import v1
    from kcodec.model import StructBase

    classes = [c for c in vars(v1).values() if isinstance(c, type) and issubclass(c, StructBase)
               and c.__module__ == v1.__name__]
    assert len(classes) > 200
    for kernel in KERNELS:
        for cls in classes:
            made = kernel.new_zero(cls)
            assert type(made) is cls and made == cls._new_zero(), cls
            assert gc.is_tracked(made)


def test_collector_paused_only_while_converting() -> None:
    """Both kernels pause the cycle collector for the outermost conversion and give it back
    afterwards, also when a conversion fails half-way (and leave it off if it was off)."""
    import gc

    seen = []

    def boom(a: Any, b: Any, scope: Scope) -> None:
        seen.append(gc.isenabled())
        raise ConversionError("boom")

    conv = Converter()
    conv.register_generated_untyped_conversion_func(_HolderA, _HolderB, generated_conversion(_HolderA, _HolderB))
    conv.register_generated_untyped_conversion_func(PortA, PortB, generated_conversion(PortA, PortB, {"name": boom}))
    src = _HolderA(port=PortA(name="a", port=1))
    assert gc.isenabled()
    with pytest.raises(ConversionError, match="boom"):
        conv.convert(src, _HolderB())
    assert seen == [False] and gc.isenabled()
    for kernel in KERNELS:
        assert kernel.deep_copy(src) == src and gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(ConversionError):
            conv.convert(src, _HolderB())
        assert not gc.isenabled()
    finally:
        gc.enable()
