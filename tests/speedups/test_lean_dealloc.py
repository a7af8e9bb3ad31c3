"""The compiled tables' lean deallocator and bare allocation (kcodec/_speedups/_tables.pyx).

Struct classes whose instances are nothing but object slots get ``kc_struct_dealloc``
(``kc_struct_dealloc_flat`` when no field can hold a list) when the compiled kernels first
build their table, and decoders allocate them with
``_PyObject_GC_New``. These tests pin what CPython's own deallocator guarantees and the
lean one must keep: every slot released exactly once, subclasses (with a ``__dict__``,
weak references, a finaliser, extra slots) still fully cleaned up, and trees far deeper
than the C stack freed without a crash.
"""
from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
import tracemalloc
import weakref
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from kcodec import speedups
from kcodec.model import Struct, field

if not speedups.available():
    pytest.skip("the compiled kernels are not built or KCODEC_PURE=1 keeps them off", allow_module_level=True)

from kcodec import _speedups as compiled  # noqa: E402
from kcodec._speedups import _tables  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def kcodec_mode():
    """Overrides conftest's two-mode fixture: the deallocator belongs to the compiled tables."""
    yield "compiled"


class Leaf(Struct):
    name: str = field(1, "name")
    tags: list[str] | None = field(2, "tags")


class Holder(Struct):
    leaf: Leaf = field(1, "leaf")
    more: list[Leaf] | None = field(2, "more")
    labels: dict[str, str] | None = field(3, "labels")


class Node(Struct):
    name: str = field(1, "name", omitempty=True)
    child: Node | None = field(2, "child", omitempty=True)


class Marker(str):
    """A value whose references can be counted and whose death can be observed (a str,
    so the constructors' type checks take it for the string fields it is put in)."""


def test_builtin_kinds_get_the_lean_deallocator_and_bare_allocation() -> None:
    from kcodec.api.core import v1

    for cls in (v1.Pod, v1.PodSpec, v1.Container, v1.ObjectReference, Holder, Leaf):
        table = _tables._table(cls)
        assert table.lean_dealloc and table.bare_alloc, cls
        assert _tables._lean_dealloc(cls)


class FlatBase(Struct):
    name: str = field(1, "name")
    leaf: Leaf | None = field(2, "leaf")


class ListSub(FlatBase):
    tags: list[str] | None = field(3, "tags")


def test_classes_without_list_fields_get_the_deallocator_without_the_list_pass() -> None:
    from kcodec.api.core import v1

    for cls in (v1.Pod, v1.ObjectReference, v1.ContainerPort, Node, FlatBase):
        _tables._table(cls)
        assert _tables._lean_dealloc(cls) and _tables._flat_dealloc(cls), cls
    for cls in (v1.PodList, v1.PodSpec, v1.Container, Holder, Leaf, ListSub):
        _tables._table(cls)
        assert _tables._lean_dealloc(cls) and not _tables._flat_dealloc(cls), cls


def test_a_list_subclass_of_a_flat_class_releases_every_slot() -> None:
    # The subclass's deallocator (with the list pass) frees the base's slots as well.
    _tables._table(FlatBase)
    _tables._table(ListSub)
    marker = Marker("m")
    base = sys.getrefcount(marker)
    objs = [FlatBase(name=marker, leaf=Leaf(name=marker, tags=[marker])),
            ListSub(name=marker, leaf=Leaf(name=marker), tags=[marker, marker])]
    assert sys.getrefcount(marker) == base + 7
    del objs
    assert sys.getrefcount(marker) == base


def test_every_slot_is_released_exactly_once() -> None:
    _tables._table(Holder)
    marker = Marker("m")
    base = sys.getrefcount(marker)
    h = Holder(leaf=Leaf(name="x", tags=[marker, marker]), more=[Leaf(name="y")], labels={"k": marker})
    assert sys.getrefcount(marker) == base + 3
    probe = weakref.ref(marker)
    del h
    assert sys.getrefcount(marker) == base
    del marker
    assert probe() is None


def test_decoded_trees_are_freed_completely() -> None:
    if not FIXTURES.is_dir():
        pytest.skip("Go fixtures not found beside the checkout")
    from kcodec.api.core import v1

    body = (FIXTURES / "core.v1.Pod.pb").read_bytes()
    from kcodec import speedups as _pbwire

    raw = _pbwire.envelope_decode(body)[2]

    def decode() -> v1.Pod:
        pod = v1.Pod._new_zero()
        compiled.fill_from_proto(pod, v1.Pod, raw, "Pod")
        return pod

    for _ in range(3):  # tables, string caches, interned zero values: built before measuring
        decode()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(200):
            pod = decode()
            del pod
        gc.collect()
        leaked = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert leaked < 64 * 1024, f"{leaked} bytes still allocated after freeing 200 decoded Pods"


FINALIZED: list[str] = []


class WithFinalizer(Leaf):
    extra: Any = field(0, "extra")

    def __del__(self) -> None:
        FINALIZED.append(self.name)


class WithDict(Leaf):
    __slots__ = ("__dict__",)


class WithWeakref(Leaf):
    __slots__ = ("__weakref__",)


@pytest.mark.parametrize("cls", [WithFinalizer, WithDict, WithWeakref])
def test_subclasses_keep_cpython_cleanup_and_release_the_base_slots(cls: type) -> None:
    _tables._table(Leaf)
    assert _tables._lean_dealloc(Leaf)
    marker = Marker("m")
    base = sys.getrefcount(marker)
    obj = cls(name="sub", tags=[marker])
    if cls is WithFinalizer:
        obj.extra = marker
    if cls is WithDict:
        obj.note = marker
    ref = weakref.ref(obj) if cls is WithWeakref else None
    assert sys.getrefcount(marker) > base
    FINALIZED.clear()
    del obj
    gc.collect()
    assert sys.getrefcount(marker) == base
    if cls is WithFinalizer:
        assert FINALIZED == ["sub"]
    if ref is not None:
        assert ref() is None


class LateFinalizer(Struct):
    name: str = field(1, "name")


def test_a_finalizer_assigned_after_the_lean_deallocator_still_runs() -> None:
    _tables._table(LateFinalizer)
    assert _tables._lean_dealloc(LateFinalizer)
    seen: list[str] = []
    type.__setattr__(LateFinalizer, "__del__", lambda self: seen.append(self.name))
    try:
        obj = LateFinalizer(name="late")
        del obj
        assert seen == ["late"]
    finally:
        type.__delattr__(LateFinalizer, "__del__")


def test_classes_with_other_layouts_keep_cpython_deallocator() -> None:
    # Their own tables are built, but a dict, weakref list or finaliser rules the lean path out.
    for cls in (WithFinalizer, WithDict, WithWeakref):
        table = _tables._table(cls)
        assert not table.lean_dealloc and not table.bare_alloc, cls
        assert not _tables._lean_dealloc(cls)


_DEEP_CHAINS = {
    # Without the trashcan, freeing a chain this deep recurses once per level in C and
    # overflows the stack.
    "through struct slots": (
        'child: "Node | None" = field(2, "child", omitempty=True)',
        "_tables._lean_dealloc(Node)",
        "Node(name=\"n\", child=head)",
    ),
    # A list alone in its slot is freed inside the struct deallocator (no list_dealloc and
    # no trashcan of its own): the depth bound of the struct levels must still hold.
    "through one-item lists": (
        'kids: "list[Node] | None" = field(2, "kids", omitempty=True)',
        "_tables._lean_dealloc(Node) and not _tables._flat_dealloc(Node)",
        "Node(name=\"n\", kids=[head] if head is not None else None)",
    ),
}


@pytest.mark.parametrize("chain", sorted(_DEEP_CHAINS))
def test_a_chain_far_deeper_than_the_c_stack_is_freed(chain: str) -> None:
    # Run in a child so that a crash is a failure, not a lost run.
    decl, lean, make = _DEEP_CHAINS[chain]
    script = textwrap.dedent(
        f"""
        from kcodec.model import Struct, field
        from kcodec._speedups import _tables

        class Node(Struct):
            name: str = field(1, "name", omitempty=True)
            {decl}

        _tables._table(Node)
        assert {lean}
        head = None
        for i in range(300_000):
            head = {make}
        del head
        print("freed")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "freed"


def test_lists_a_struct_alone_holds_are_released_with_their_items() -> None:
    # kc_struct_dealloc frees a list whose only reference is its slot itself (items first
    # to last, past the 16 it asks for ahead); a list referenced elsewhere only loses the
    # slot's reference; a list made by Python code (tracked by the collector) is untracked
    # before its memory goes.
    _tables._table(Holder)
    marker = Marker("m")
    base = sys.getrefcount(marker)
    FINALIZED.clear()
    alone = Holder(leaf=Leaf(name="x"), more=[Leaf(name=marker, tags=[marker]) for _ in range(40)])
    shared_items = [Leaf(name=marker)]
    shared = Holder(leaf=Leaf(name="y"), more=shared_items)
    tracked_items = [WithFinalizer(name=f"f{i}", tags=[marker]) for i in range(20)]
    assert gc.is_tracked(tracked_items)
    tracked = Holder(leaf=Leaf(name="z"), more=tracked_items)
    del tracked_items
    assert sys.getrefcount(marker) == base + 81 + 20
    del alone
    assert sys.getrefcount(marker) == base + 1 + 20
    del shared
    assert len(shared_items) == 1 and shared_items[0].name is marker
    assert sys.getrefcount(marker) == base + 1 + 20
    del tracked
    gc.collect()
    assert sorted(FINALIZED) == sorted(f"f{i}" for i in range(20))
    assert sys.getrefcount(marker) == base + 1
    del shared_items
    assert sys.getrefcount(marker) == base
