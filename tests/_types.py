"""Small test types shared by kcodec's tests (the Python form of apimachinery's runtime/testing).

Families (all in this module, so ``kcodec.errors.type_name`` prints them as ``_types.<Name>``):

* ``WeirdObject`` - a TypeMeta replacement with the JSON keys ``myVersionKey`` / ``myKindKey``
  (Go's ``MyWeirdCustomEmbeddedVersionKindField``); it is its own ``ObjectKind``.
  ``TestType1`` (internal) / ``ExternalTestType1`` (external) extend it with scalar, map,
  pointer and list fields; ``TestType2`` / ``ExternalTestType2`` are the nested structs;
  ``ExternalInternalSame``, ``UnversionedType`` and ``UnknownType`` (never registered).
* ``InternalSimple`` / ``ExternalSimple`` - ``kcodec.runtime.Object`` kinds with ``testString``.
* ``InternalComplex`` / ``ExternalComplex`` - differently tagged scalar fields.
* ``EmbeddedTest`` / ``EmbeddedTestExternal``, ``ObjectTest`` / ``ObjectTestExternal``,
  ``InternalExtensionType`` / ``ExternalExtensionType`` (and the ``Optional`` pair),
  ``ExtensionA`` / ``ExtensionB`` - objects embedding objects (internal: a live object,
  external: a ``RawExtension``), converted with the Object <-> RawExtension functions.
* ``TestUnstructured`` - a minimal map-backed unstructured object (Go's runtimetesting.Unstructured),
  so tests of the scheme do not depend on ``kcodec.runtime.Unstructured``.

Helpers: ``register_conversions(scheme)`` registers every internal <-> external conversion;
``get_test_scheme()`` returns the scheme of Go's ``GetTestScheme()``; ``TestGroupVersioner``
is a versioner that always answers one fixed kind (or None).
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from kcodec.conversion import Scope, copy_fields
from kcodec.model import Int32, Struct, field
from kcodec.runtime.object import Object
from kcodec.runtime.scheme import (
    Scheme,
    convert_object_to_raw_extension,
    convert_raw_extension_to_object,
)
from kcodec.runtime.types import RawExtension
from kcodec.schema import (
    APIVersionInternal,
    GroupVersion,
    GroupVersionKind,
    from_api_version_and_kind,
    parse_group_version,
)

__all__ = [
    "WeirdObject",
    "TestType1",
    "TestType2",
    "ExternalTestType1",
    "ExternalTestType2",
    "ExternalInternalSame",
    "UnversionedType",
    "UnknownType",
    "InternalSimple",
    "ExternalSimple",
    "InternalComplex",
    "ExternalComplex",
    "EmbeddedTest",
    "EmbeddedTestExternal",
    "ObjectTest",
    "ObjectTestExternal",
    "ExtensionA",
    "ExtensionB",
    "InternalExtensionType",
    "ExternalExtensionType",
    "InternalOptionalExtensionType",
    "ExternalOptionalExtensionType",
    "TestUnstructured",
    "TestGroupVersioner",
    "register_conversions",
    "get_test_scheme",
]


# ----------------------------------------------------------------------- weird TypeMeta family


class WeirdObject(Struct):
    """Go's MyWeirdCustomEmbeddedVersionKindField: TypeMeta under other JSON keys."""

    id: str = field(0, "ID", omitempty=True)
    api_version: str = field(0, "myVersionKey", omitempty=True)
    object_kind: str = field(0, "myKindKey", omitempty=True)
    z: str = field(0, "Z", omitempty=True)
    y: int = field(0, "Y", omitempty=True)

    def get_object_kind(self) -> WeirdObject:
        """The object is its own kind accessor."""
        return self

    def group_version_kind(self) -> GroupVersionKind:
        """GVK from ``myVersionKey`` / ``myKindKey``."""
        return from_api_version_and_kind(self.api_version, self.object_kind)

    def set_group_version_kind(self, gvk: GroupVersionKind) -> None:
        """Set ``myVersionKey`` / ``myKindKey`` (the empty GVK clears both)."""
        self.api_version, self.object_kind = gvk.to_api_version_and_kind()


class _EmptyObjectKind:
    """Go's schema.EmptyObjectKind: no kind, and setting one does nothing."""

    __slots__ = ()

    def group_version_kind(self) -> GroupVersionKind:
        return GroupVersionKind()

    def set_group_version_kind(self, gvk: GroupVersionKind) -> None:
        return None


EMPTY_OBJECT_KIND = _EmptyObjectKind()


class TestType2(Struct):
    """Nested internal struct; registrable, but its kind accessor is Go's EmptyObjectKind."""

    __test__ = False
    a: str = field(0, "A", omitempty=True)
    b: int = field(0, "B", omitempty=True)

    def get_object_kind(self) -> _EmptyObjectKind:
        """No TypeMeta: the empty kind accessor."""
        return EMPTY_OBJECT_KIND


class ExternalTestType2(Struct):
    """Nested external struct; kind accessor as :class:`TestType2`."""

    a: str = field(0, "A", omitempty=True)
    b: int = field(0, "B", omitempty=True)

    def get_object_kind(self) -> _EmptyObjectKind:
        """No TypeMeta: the empty kind accessor."""
        return EMPTY_OBJECT_KIND


class TestType1(WeirdObject):
    """Internal test kind with scalars, a map of structs, a pointer and a list."""

    __test__ = False
    a: str = field(0, "A", omitempty=True)
    b: int = field(0, "B", omitempty=True)
    e: Int32 = field(0, "E", omitempty=True)
    f: int = field(0, "F", omitempty=True)
    l: bool = field(0, "L", omitempty=True)  # noqa: E741 - mirrors the Go field name
    m: dict[str, int] | None = field(0, "M", omitempty=True)
    n: dict[str, TestType2] | None = field(0, "N", omitempty=True)
    o: TestType2 | None = field(0, "O", omitempty=True)
    p: list[TestType2] | None = field(0, "Q", omitempty=True)


class ExternalTestType1(WeirdObject):
    """External form of :class:`TestType1` (same JSON, external nested struct)."""

    a: str = field(0, "A", omitempty=True)
    b: int = field(0, "B", omitempty=True)
    e: Int32 = field(0, "E", omitempty=True)
    f: int = field(0, "F", omitempty=True)
    l: bool = field(0, "L", omitempty=True)  # noqa: E741
    m: dict[str, int] | None = field(0, "M", omitempty=True)
    n: dict[str, ExternalTestType2] | None = field(0, "N", omitempty=True)
    o: ExternalTestType2 | None = field(0, "O", omitempty=True)
    p: list[ExternalTestType2] | None = field(0, "Q", omitempty=True)


class ExternalInternalSame(WeirdObject):
    """One class registered both as internal and external kind."""

    a: TestType2 = field(0, "A", omitempty=True)


class UnversionedType(WeirdObject):
    """Registered with ``add_unversioned_types``."""

    a: str = field(0, "A", omitempty=True)


class UnknownType(WeirdObject):
    """Never registered."""

    a: str = field(0, "A", omitempty=True)


# ----------------------------------------------------------------------- TypeMeta family


class InternalSimple(Object):
    """Internal kind with one string."""

    test_string: str = field(0, "testString")


class ExternalSimple(Object):
    """External kind with one string."""

    test_string: str = field(0, "testString")


class InternalComplex(Object):
    """Internal kind, untagged fields (Go field names as JSON names)."""

    string: str = field(0, "String")
    integer: int = field(0, "Integer")
    integer64: int = field(0, "Integer64")
    int64: int = field(0, "Int64")
    bool_: bool = field(0, "Bool")


class ExternalComplex(Object):
    """External kind with renamed and omitempty fields."""

    string: str = field(0, "string")
    integer: int = field(0, "int")
    integer64: int = field(0, "Integer64", omitempty=True)
    int64: int = field(0, "Int64")
    bool_: bool = field(0, "bool")


class ExtensionA(Object):
    """A kind that is embedded in extension objects."""

    test_string: str = field(0, "testString")


class ExtensionB(Object):
    """A second embeddable kind."""

    test_string: str = field(0, "testString")


class EmbeddedTest(Object):
    """Internal: holds live objects."""

    id: str = field(0, "ID")
    object: Any = field(0, "Object")
    empty_object: Any = field(0, "EmptyObject")


class EmbeddedTestExternal(Object):
    """External: holds raw extensions."""

    id: str = field(0, "id", omitempty=True)
    object: RawExtension = field(0, "object", omitempty=True)
    empty_object: RawExtension = field(0, "emptyObject", omitempty=True)


class ObjectTest(Object):
    """Internal: a list of live objects."""

    id: str = field(0, "ID")
    items: list[Any] | None = field(0, "Items")


class ObjectTestExternal(Object):
    """External: a list of raw extensions."""

    id: str = field(0, "id", omitempty=True)
    items: list[RawExtension] | None = field(0, "items", omitempty=True)


class InternalExtensionType(Object):
    """Internal: one embedded object."""

    extension: Any = field(0, "extension")


class ExternalExtensionType(Object):
    """External: one raw extension (always written)."""

    extension: RawExtension = field(0, "extension")


class InternalOptionalExtensionType(Object):
    """Internal: one optional embedded object."""

    extension: Any = field(0, "extension", omitempty=True)


class ExternalOptionalExtensionType(Object):
    """External: one optional raw extension."""

    extension: RawExtension = field(0, "extension", omitempty=True)


# ----------------------------------------------------------------------- unstructured


class TestUnstructured:
    """A map-backed object: the minimal unstructured protocol used by the Scheme."""

    __test__ = False
    __slots__ = ("object",)

    def __init__(self, content: dict[str, Any] | None = None) -> None:
        self.object = content

    def get_object_kind(self) -> TestUnstructured:
        """Its own kind accessor."""
        return self

    def unstructured_content(self) -> dict[str, Any]:
        """The content map (created empty on first use)."""
        if self.object is None:
            self.object = {}
        return self.object

    def set_unstructured_content(self, content: dict[str, Any]) -> None:
        """Replace the content map (shared, not copied)."""
        self.object = content

    def is_list(self) -> bool:
        """True when the content has ``items``."""
        return self.object is not None and "items" in self.object

    def each_list_item(self, fn: Callable[[Any], None]) -> None:
        """Call ``fn`` on each item as a TestUnstructured."""
        if self.object is None or "items" not in self.object:
            raise ValueError("content is not a list")
        items = self.object["items"]
        if not isinstance(items, list):
            return
        for item in items:
            if not isinstance(item, dict):
                raise ValueError("items member is not an object")
            fn(TestUnstructured(item))

    def new_empty_instance(self) -> TestUnstructured:
        """An empty object with the same kind."""
        out = TestUnstructured()
        out.set_group_version_kind(self.group_version_kind())
        return out

    def deep_copy(self) -> TestUnstructured:
        """An independent copy."""
        return TestUnstructured(copy.deepcopy(self.object))

    def group_version_kind(self) -> GroupVersionKind:
        """GVK from ``apiVersion``/``kind`` (empty when either is missing or malformed)."""
        content = self.object or {}
        api_version = content.get("apiVersion")
        if not isinstance(api_version, str):
            return GroupVersionKind()
        try:
            gv = parse_group_version(api_version)
        except ValueError:
            return GroupVersionKind()
        kind = content.get("kind")
        if isinstance(kind, str):
            return gv.with_kind(kind)
        return GroupVersionKind()

    def set_group_version_kind(self, gvk: GroupVersionKind) -> None:
        """Write ``apiVersion``/``kind`` into the content."""
        content = self.unstructured_content()
        content["apiVersion"] = str(gvk.group_version())
        content["kind"] = gvk.kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TestUnstructured) and other.object == self.object

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TestUnstructured({self.object!r})"


# ----------------------------------------------------------------------- conversions


def _copy(src: Any, dst: Any, scope: Scope) -> None:
    copy_fields(src, dst, scope)


def _object_field_to_raw(name: str) -> Callable[[Any, Any, Scope], None]:
    def convert(src: Any, dst: Any, scope: Scope) -> None:
        ext = RawExtension()
        convert_object_to_raw_extension(getattr(src, name), ext, scope)
        setattr(dst, name, ext)

    return convert


def _raw_field_to_object(name: str) -> Callable[[Any, Any, Scope], None]:
    def convert(src: Any, dst: Any, scope: Scope) -> None:
        setattr(dst, name, convert_raw_extension_to_object(getattr(src, name), None, scope))

    return convert


def _items_to_raw(src: ObjectTest, dst: ObjectTestExternal, scope: Scope) -> None:
    if src.items is None:
        dst.items = None
        return
    out = []
    for item in src.items:
        ext = RawExtension()
        convert_object_to_raw_extension(item, ext, scope)
        out.append(ext)
    dst.items = out


def _items_to_object(src: ObjectTestExternal, dst: ObjectTest, scope: Scope) -> None:
    if src.items is None:
        dst.items = None
        return
    dst.items = [convert_raw_extension_to_object(item, None, scope) for item in src.items]


def register_conversions(scheme: Scheme) -> None:
    """Register every internal <-> external conversion of these types on ``scheme``."""
    pairs: list[tuple[type, type]] = [
        (TestType1, ExternalTestType1),
        (TestType2, ExternalTestType2),
        (InternalSimple, ExternalSimple),
    ]
    for a, b in pairs:
        scheme.add_conversion_func(a, b, _copy)
        scheme.add_conversion_func(b, a, _copy)

    def complex_fields(src: Any, dst: Any, scope: Scope) -> None:
        copy_fields(src, dst, scope)

    scheme.add_conversion_func(InternalComplex, ExternalComplex, complex_fields)
    scheme.add_conversion_func(ExternalComplex, InternalComplex, complex_fields)

    for internal, external, names in (
        (EmbeddedTest, EmbeddedTestExternal, ("object", "empty_object")),
        (InternalExtensionType, ExternalExtensionType, ("extension",)),
        (InternalOptionalExtensionType, ExternalOptionalExtensionType, ("extension",)),
    ):
        to_ext = {n: _object_field_to_raw(n) for n in names}
        to_int = {n: _raw_field_to_object(n) for n in names}

        def forward(src: Any, dst: Any, scope: Scope, _o: Any = to_ext) -> None:
            copy_fields(src, dst, scope, _o)

        def backward(src: Any, dst: Any, scope: Scope, _o: Any = to_int) -> None:
            copy_fields(src, dst, scope, _o)

        scheme.add_conversion_func(internal, external, forward)
        scheme.add_conversion_func(external, internal, backward)

    scheme.add_conversion_func(
        ObjectTest, ObjectTestExternal, lambda s, d, sc: copy_fields(s, d, sc, {"items": _items_to_raw})
    )
    scheme.add_conversion_func(
        ObjectTestExternal, ObjectTest, lambda s, d, sc: copy_fields(s, d, sc, {"items": _items_to_object})
    )


INTERNAL_GV = GroupVersion("", APIVersionInternal)
EXTERNAL_GV = GroupVersion("", "v1")
ALTERNATE_EXTERNAL_GV = GroupVersion("custom", "v1")
ALTERNATE_INTERNAL_GV = GroupVersion("custom", APIVersionInternal)
DIFFERENT_EXTERNAL_GV = GroupVersion("other", "v2")


def get_test_scheme(name: str = "test-scheme") -> Scheme:
    """The scheme of Go's ``GetTestScheme()`` (runtime/scheme_test.go)."""
    s = Scheme(name)
    s.add_known_types(INTERNAL_GV, TestType1, TestType2, ExternalInternalSame)
    s.add_known_types(EXTERNAL_GV, ExternalInternalSame)
    s.add_known_type_with_name(EXTERNAL_GV.with_kind("TestType1"), ExternalTestType1)
    s.add_known_type_with_name(EXTERNAL_GV.with_kind("TestType2"), ExternalTestType2)
    s.add_known_type_with_name(INTERNAL_GV.with_kind("TestType3"), TestType1)
    s.add_known_type_with_name(EXTERNAL_GV.with_kind("TestType3"), ExternalTestType1)
    s.add_known_type_with_name(EXTERNAL_GV.with_kind("TestType4"), ExternalTestType1)
    s.add_known_type_with_name(ALTERNATE_INTERNAL_GV.with_kind("TestType3"), TestType1)
    s.add_known_type_with_name(ALTERNATE_EXTERNAL_GV.with_kind("TestType3"), ExternalTestType1)
    s.add_known_type_with_name(ALTERNATE_EXTERNAL_GV.with_kind("TestType5"), ExternalTestType1)
    s.add_known_type_with_name(DIFFERENT_EXTERNAL_GV.with_kind("TestType1"), ExternalTestType1)
    s.add_unversioned_types(EXTERNAL_GV, UnversionedType)
    register_conversions(s)
    return s


class TestGroupVersioner:
    """A group versioner that answers ``target`` for any input (None when ``ok`` is False)."""

    __test__ = False

    def __init__(self, target: GroupVersionKind | None = None, ok: bool = False) -> None:
        self.target = target
        self.ok = ok

    def kind_for_group_version_kinds(self, kinds: Sequence[GroupVersionKind]) -> GroupVersionKind | None:
        """Always the fixed target (or None)."""
        return self.target if self.ok else None

    def identifier(self) -> str:
        """A constant identifier."""
        return "testGroupVersioner"
