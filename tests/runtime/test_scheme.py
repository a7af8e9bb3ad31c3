"""kcodec.runtime.scheme.Scheme (Go: k8s.io/apimachinery/pkg/runtime/scheme.go; k8s.io/apimachinery/pkg/runtime/embedded.go; k8s.io/apimachinery/pkg/runtime/scheme.go (ToOpenAPIDefinitionName)) with the shared test types."""
from __future__ import annotations

import pytest

from kcodec.conversion import IntRef, ObjectRef, StringRef, StringSliceRef
from kcodec.errors import (
    ConversionError,
    KCodecError,
    MissingKindError,
    MissingVersionError,
    NotRegisteredError,
    is_not_registered_error,
)
from kcodec.runtime.scheme import (
    Scheme,
    SchemeBuilder,
    convert_object_to_raw_extension,
    convert_raw_extension_to_object,
    default_meta_v1_field_selector_conversion,
)
from kcodec.runtime.types import RawExtension, Unknown
from kcodec.schema import (
    APIVersionInternal,
    GroupKind,
    GroupVersion,
    GroupVersionKind,
    GroupVersions,
    MultiGroupVersioner,
)

from _types import (
    EXTERNAL_GV,
    EmbeddedTest,
    EmbeddedTestExternal,
    ExtensionA,
    ExternalInternalSame,
    ExternalSimple,
    ExternalTestType1,
    ExternalTestType2,
    InternalExtensionType,
    ExternalExtensionType,
    InternalSimple,
    ObjectTest,
    ObjectTestExternal,
    TestGroupVersioner,
    TestType1,
    TestType2,
    TestUnstructured,
    UnknownType,
    UnversionedType,
    get_test_scheme,
    register_conversions,
)

GVK = GroupVersionKind
GV = GroupVersion


def weird(cls, api_version="", kind="", **kw):
    obj = cls(**kw)
    obj.api_version, obj.object_kind = api_version, kind
    return obj


# ------------------------------------------------------------------------- registration


def test_add_known_types_requires_struct_classes():
    s = Scheme("reg")
    for bad in (5, int, "x", None, StringRef):
        with pytest.raises(KCodecError) as exc:
            s.add_known_types(EXTERNAL_GV, bad)
        assert str(exc.value) == "All types must be pointers to structs."


def test_version_required():
    s = Scheme("reg")
    with pytest.raises(KCodecError) as exc:
        s.add_known_type_with_name(GVK("g", "", "K"), ExternalSimple)
    assert str(exc.value) == "version is required on all types: g/, Kind=K *_types.ExternalSimple"


def test_double_registration_of_different_types():
    s = Scheme("dbl")
    s.add_known_type_with_name(GVK("", "v1", "Simple"), InternalSimple)
    with pytest.raises(KCodecError) as exc:
        s.add_known_type_with_name(GVK("", "v1", "Simple"), ExternalSimple)
    assert str(exc.value) == (
        "Double registration of different types for /v1, Kind=Simple: "
        'old=_types.InternalSimple, new=_types.ExternalSimple in scheme "dbl"'
    )


def test_registration_is_idempotent():
    s = Scheme("idem")
    gv = GV("foo", "v1")
    s.add_known_types(gv, InternalSimple)
    s.add_known_types(gv, InternalSimple)
    s.add_known_type_with_name(gv.with_kind("InternalSimple"), InternalSimple)
    assert len(s.known_types(gv)) == 1
    assert len(s.all_known_types()) == 1
    assert s.object_kinds(InternalSimple()) == ([gv.with_kind("InternalSimple")], False)

    u = Scheme("idem-unversioned")
    u.add_unversioned_types(gv, InternalSimple)
    u.add_unversioned_types(gv, InternalSimple)
    u.add_known_types(gv, InternalSimple)
    assert len(u.known_types(gv)) == 1 and len(u.all_known_types()) == 1
    assert u.object_kinds(InternalSimple()) == ([gv.with_kind("InternalSimple")], True)


def test_unversioned_kind_names_must_be_unique():
    s = Scheme("uniq")
    s.add_unversioned_types(GV("", "v1"), UnversionedType)

    class UnversionedTypeClone(UnversionedType):
        pass

    UnversionedTypeClone.__name__ = "UnversionedType"
    with pytest.raises(KCodecError, match="has already been registered as unversioned kind"):
        s.add_unversioned_types(GV("other", "v1"), UnversionedTypeClone)


def test_known_types_and_all_known_types():
    s = get_test_scheme()
    assert s.known_types(GV("group", "v2")) == {}
    types = s.known_types(EXTERNAL_GV)
    for kind in ("TestType1", "TestType2", "TestType3", "ExternalInternalSame"):
        assert kind in types
    assert types["TestType1"] is ExternalTestType1
    assert s.all_known_types()[GVK("", APIVersionInternal, "TestType3")] is TestType1


def test_object_kinds_in_registration_order():
    s = get_test_scheme()
    kinds, unversioned = s.object_kinds(ExternalTestType1())
    assert unversioned is False
    assert kinds == [
        GVK("", "v1", "TestType1"),
        GVK("", "v1", "TestType3"),
        GVK("", "v1", "TestType4"),
        GVK("custom", "v1", "TestType3"),
        GVK("custom", "v1", "TestType5"),
        GVK("other", "v2", "TestType1"),
    ]
    kinds[0] = None  # callers get a copy
    assert s.object_kinds(ExternalTestType1())[0][0] == GVK("", "v1", "TestType1")
    assert s.object_kinds(UnversionedType()) == ([GVK("", "v1", "UnversionedType")], True)


def test_object_kinds_errors():
    s = get_test_scheme("kinds")
    with pytest.raises(NotRegisteredError) as exc:
        s.object_kinds(UnknownType())
    assert str(exc.value) == 'no kind is registered for the type _types.UnknownType in scheme "kinds"'
    assert is_not_registered_error(exc.value)
    with pytest.raises(ConversionError, match="^expected pointer, but got nil$"):
        s.object_kinds(None)
    with pytest.raises(ConversionError, match="^expected pointer, but got nil$"):
        s.object_kinds(ExternalTestType1)
    with pytest.raises(ConversionError, match="^expected pointer, but got int type$"):
        s.object_kinds(3)


def test_object_kinds_unstructured():
    s = Scheme("u")
    assert s.object_kinds(TestUnstructured({"apiVersion": "v1", "kind": "Test"})) == ([GVK("", "v1", "Test")], False)
    with pytest.raises(MissingKindError) as exc:
        s.object_kinds(TestUnstructured({"apiVersion": "v1"}))
    assert str(exc.value) == "Object 'Kind' is missing in 'unstructured object has no kind'"
    with pytest.raises(MissingVersionError) as exc:
        s.object_kinds(TestUnstructured({"apiVersion": "g/", "kind": "Test"}))
    assert str(exc.value) == "Object 'apiVersion' is missing in 'unstructured object has no version'"


def test_recognizes_new_and_unversioned_lookup():
    s = get_test_scheme("new")
    assert s.recognizes(GVK("", "v1", "TestType1"))
    assert not s.recognizes(GVK("", "v9", "TestType1"))
    assert not s.recognizes(GVK("foo", "v9", "UnversionedType")), "no unversioned fallback"
    obj = s.new(GVK("custom", "v1", "TestType5"))
    assert type(obj) is ExternalTestType1 and obj == ExternalTestType1()
    assert s.new(GVK("", "v1", "TestType1")) is not s.new(GVK("", "v1", "TestType1"))
    assert type(s.new(GVK("foo", "v9", "UnversionedType"))) is UnversionedType
    with pytest.raises(NotRegisteredError) as exc:
        s.new(GVK("", "v9", "Nope"))
    assert str(exc.value) == 'no kind "Nope" is registered for version "v9" in scheme "new"'
    with pytest.raises(NotRegisteredError) as exc:
        s.new(GVK("g", APIVersionInternal, "Nope"))
    assert str(exc.value) == 'no kind "Nope" is registered for the internal version of group "g" in scheme "new"'
    with pytest.raises(NotRegisteredError) as exc:
        s.new(GVK("g", "v1", ""))
    assert str(exc.value) == 'no version "g/v1" has been registered in scheme "new"'


def test_is_unversioned():
    s = get_test_scheme()
    assert s.is_unversioned(UnversionedType()) == (True, True)
    assert s.is_unversioned(ExternalTestType1()) == (False, True)
    assert s.is_unversioned(UnknownType()) == (False, False)
    assert s.is_unversioned(None) == (False, False)


def test_new_returns_go_zero_value():
    s = Scheme("zero")
    s.add_known_types(GV("", "v1"), Unknown)
    u = s.new(GVK("", "v1", "Unknown"))
    assert type(u) is Unknown and u.raw is None and u.content_type == ""


def test_versions_for_group_kind():
    s = get_test_scheme()
    assert s.versions_for_group_kind(GroupKind("custom", "TestType3")) == [GV("custom", "v1")]
    assert s.versions_for_group_kind(GroupKind("", "TestType1")) == [GV("", "v1")]


# ------------------------------------------------------------------------- version priority


def _observed(*gvs: GroupVersion) -> Scheme:
    s = Scheme("prio")
    for gv in gvs:
        s.add_known_types(gv)
    return s


def test_prioritized_versions_from_observed():
    s = _observed(GV("", "v3"), GV("foo", "v1"), GV("foo", "v2"), GV("", "v1"))
    assert s.prioritized_versions_for_group("") == [GV("", "v3"), GV("", "v1")]
    assert s.prioritized_versions_for_group("foo") == [GV("foo", "v1"), GV("foo", "v2")]
    assert s.prioritized_versions_for_group("bar") == []


def test_prioritized_versions_with_priority():
    s = _observed(GV("", "v1"), GV("", "v3"), GV("", "v4"), GV("", "v5"))
    s.set_version_priority(GV("", "v3"), GV("", "v1"))
    assert s.prioritized_versions_for_group("") == [GV("", v) for v in ("v3", "v1", "v4", "v5")]
    assert s.prioritized_versions_all_groups() == [GV("", v) for v in ("v3", "v1", "v4", "v5")]
    assert s.preferred_versions_all_groups() == [GV("", "v3")]
    s.set_version_priority(GV("", "v5"))
    assert s.prioritized_versions_for_group("")[0] == GV("", "v5")


def test_set_version_priority_errors():
    s = Scheme("prio")
    with pytest.raises(KCodecError) as exc:
        s.set_version_priority(GV("a", "v1"), GV("a", APIVersionInternal))
    assert str(exc.value) == "internal versions cannot be prioritized: a/__internal"
    with pytest.raises(KCodecError) as exc:
        s.set_version_priority(GV("b", ""))
    assert str(exc.value) == "internal versions cannot be prioritized: b/"
    with pytest.raises(KCodecError) as exc:
        s.set_version_priority(GV("b", "v1"), GV("a", "v1"))
    assert str(exc.value) == "must register versions for exactly one group: a, b"


def test_preferred_versions_and_registration_queries():
    s = _observed(GV("foo", "v2"), GV("", "v1"), GV("foo", "v1"))
    s.add_known_types(GV("internal-only", APIVersionInternal), InternalSimple)
    assert s.preferred_versions_all_groups() == [GV("foo", "v2"), GV("", "v1")]
    assert s.is_group_registered("foo") and s.is_group_registered("")
    assert not s.is_group_registered("internal-only"), "only observed (external) versions count"
    assert s.is_version_registered(GV("foo", "v1"))
    assert not s.is_version_registered(GV("foo", "v3"))
    assert not s.is_version_registered(GV("internal-only", APIVersionInternal))


# ------------------------------------------------------------------------- defaulting, labels


def test_defaulting_by_exact_type():
    s = Scheme("def")
    s.add_type_defaulting_func(InternalSimple, lambda o: setattr(o, "test_string", "first"))
    s.add_type_defaulting_func(InternalSimple(), lambda o: setattr(o, "test_string", "second"))
    obj = InternalSimple()
    s.default(obj)
    assert obj.test_string == "second"

    class Sub(InternalSimple):
        pass

    sub = Sub()
    s.default(sub)  # exact type only: no-op
    assert sub.test_string == ""
    s.default(None)


def test_convert_field_label():
    s = Scheme("labels")
    gvk = GVK("", "v1", "Pod")
    assert s.convert_field_label(gvk, "metadata.name", "x") == ("metadata.name", "x")
    assert s.convert_field_label(gvk, "metadata.namespace", "ns") == ("metadata.namespace", "ns")
    with pytest.raises(KCodecError) as exc:
        s.convert_field_label(gvk, "spec.nodeName", "n")
    assert str(exc.value) == '"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"'
    s.add_field_label_conversion_func(gvk, lambda label, value: ("spec." + label, value.upper()))
    assert s.convert_field_label(gvk, "host", "n") == ("spec.host", "N")
    assert default_meta_v1_field_selector_conversion("metadata.name", "a") == ("metadata.name", "a")


# ------------------------------------------------------------------------- ConvertToVersion (Go: k8s.io/apimachinery/pkg/runtime/scheme.go (ConvertToVersion, UnsafeConvertToVersion))

CASES = [
    # (id, input, versioner, same, expected)
    ("to-internal", lambda: ExternalTestType1(a="test"), GV("", APIVersionInternal), False, TestType1(a="test")),
    ("unstructured-to-internal",
     lambda: TestUnstructured({"apiVersion": "custom/v1", "kind": "TestType3", "A": "test"}),
     GV("", APIVersionInternal), False, TestType1(a="test")),
    ("unstructured-to-external",
     lambda: TestUnstructured({"apiVersion": "custom/v1", "kind": "TestType3", "A": "test"}),
     GV("custom", "v1"), False, weird(ExternalTestType1, "custom/v1", "TestType3", a="test")),
    ("best-match", lambda: ExternalTestType1(a="test"),
     GroupVersions([GV("", APIVersionInternal), GV("", "v1")]), False,
     weird(ExternalTestType1, "v1", "TestType1", a="test")),
    ("unversioned-as-is", lambda: UnversionedType(a="test"), GroupVersions([GV("", "v1")]), True,
     weird(UnversionedType, "v1", "UnversionedType", a="test")),
    ("unversioned-not-in-target", lambda: UnversionedType(a="test"), GroupVersions([GV("other", "v2")]), True,
     weird(UnversionedType, "v1", "UnversionedType", a="test")),
    ("already-in-target", lambda: ExternalTestType1(a="test"), GroupVersions([GV("", "v1")]), True,
     weird(ExternalTestType1, "v1", "TestType1", a="test")),
    ("already-in-first-target", lambda: ExternalTestType1(a="test"),
     GroupVersions([GV("", "v1"), GV("", APIVersionInternal)]), True,
     weird(ExternalTestType1, "v1", "TestType1", a="test")),
    ("relabel-kind", lambda: ExternalTestType1(a="test"),
     TestGroupVersioner(GVK("", "v1", "TestType3"), ok=True), True,
     weird(ExternalTestType1, "v1", "TestType3", a="test")),
    ("relabel-gv", lambda: ExternalTestType1(a="test"),
     TestGroupVersioner(GVK("custom", "v1", "TestType3"), ok=True), True,
     weird(ExternalTestType1, "custom/v1", "TestType3", a="test")),
    ("relabel-gvk", lambda: ExternalTestType1(a="test"),
     TestGroupVersioner(GVK("custom", "v1", "TestType5"), ok=True), True,
     weird(ExternalTestType1, "custom/v1", "TestType5", a="test")),
    ("multi-copies-1", lambda: ExternalTestType1(a="test"),
     MultiGroupVersioner(GV("other", "v2"), GroupKind("custom", "TestType3"), GroupKind("", "TestType1")), False,
     weird(ExternalTestType1, "other/v2", "TestType1", a="test")),
    ("multi-copies-2", lambda: ExternalTestType1(a="test"),
     MultiGroupVersioner(GV("other", "v2"), GroupKind("", "TestType1"), GroupKind("custom", "TestType3")), False,
     weird(ExternalTestType1, "other/v2", "TestType1", a="test")),
    ("multi-no-copy-1", lambda: ExternalTestType1(a="test"),
     MultiGroupVersioner(GV("", "v1"), GroupKind("custom", "TestType3"), GroupKind("", "TestType1")), True,
     weird(ExternalTestType1, "v1", "TestType1", a="test")),
    ("multi-no-copy-2", lambda: ExternalTestType1(a="test"),
     MultiGroupVersioner(GV("", "v1"), GroupKind("", "TestType1"), GroupKind("custom", "TestType3")), True,
     weird(ExternalTestType1, "v1", "TestType1", a="test")),
    ("choose-kind-same-across-gv", lambda: TestType1(a="test"),
     TestGroupVersioner(GVK("", "v1", "TestType3"), ok=True), False,
     weird(ExternalTestType1, "v1", "TestType3", a="test")),
    ("choose-different-kind", lambda: TestType1(a="test"),
     TestGroupVersioner(GVK("custom", "v1", "TestType5"), ok=True), False,
     weird(ExternalTestType1, "custom/v1", "TestType5", a="test")),
]


@pytest.mark.parametrize("make_in, versioner, same, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_convert_to_version(make_in, versioner, same, expected):
    s = get_test_scheme()
    obj = make_in()
    original = obj.deep_copy()
    out = s.convert_to_version(obj, versioner)
    assert out is not obj, "convert_to_version always returns a new object"
    assert obj == original, "the input is never mutated"
    assert type(out) is type(expected)
    assert out == expected
    if same:
        unsafe = s.unsafe_convert_to_version(obj, versioner)
        assert unsafe is obj, "unsafe conversion returns the same object on the no-conversion path"
        assert unsafe == expected


def test_convert_to_version_errors():
    s = get_test_scheme("ctv")
    with pytest.raises(NotRegisteredError):
        s.convert_to_version(UnknownType(), GV("", "v1"))
    with pytest.raises(NotRegisteredError) as exc:
        s.convert_to_version(ExternalTestType1(a="test"), TestGroupVersioner())
    assert str(exc.value) == (
        '_types.ExternalTestType1 is not suitable for converting to "testGroupVersioner" in scheme "ctv"'
    )
    with pytest.raises(NotRegisteredError, match="is not suitable for converting"):
        s.convert_to_version(
            TestType1(a="test"),
            MultiGroupVersioner(GV("custom", "v1"), GroupKind("other", ""), GroupKind("", "TestType5")),
        )
    with pytest.raises(ConversionError, match=r"^only pointer types may be converted: int$"):
        s.convert_to_version(5, GV("", "v1"))
    with pytest.raises(ConversionError, match=r"^only pointer types may be converted: <nil>$"):
        s.convert_to_version(None, GV("", "v1"))
    with pytest.raises(ConversionError, match=r"^only pointers to struct types may be converted: \[\]string$"):
        s.convert_to_version(StringSliceRef([]), GV("", "v1"))


def test_convert_to_version_unstructured_errors():
    s = get_test_scheme("ctvu")
    s.add_known_types(GV("", "v1"), InternalSimple)
    with pytest.raises(NotRegisteredError) as exc:
        s.convert_to_version(TestUnstructured({"apiVersion": "v9", "kind": "Carp"}), GV("", "v1"))
    assert str(exc.value) == 'no kind "Carp" is registered for version "v9" in scheme "ctvu"'
    with pytest.raises(NotRegisteredError, match="is not suitable for converting"):
        s.convert_to_version(TestUnstructured({"apiVersion": "v1", "kind": "InternalSimple"}), GV("foo", "v1beta1"))
    with pytest.raises(MissingKindError):
        s.convert_to_version(TestUnstructured({"apiVersion": "v1"}), GV("", "v1"))


def test_unsafe_convert_on_conversion_path_skips_copy_but_returns_new_object():
    s = get_test_scheme()
    o = TestType2(a="shared")
    obj = ExternalTestType1(a="x", o=ExternalTestType2(a="y"))
    out = s.unsafe_convert_to_version(obj, GV("", APIVersionInternal))
    assert type(out) is TestType1 and out.o == TestType2(a="y") and o.a == "shared"
    safe = s.convert_to_version(obj, GV("", APIVersionInternal))
    assert safe == out


def test_internal_target_clears_type_meta():
    s = Scheme("simple")
    s.add_known_type_with_name(GVK("test.group", APIVersionInternal, "Simple"), InternalSimple)
    s.add_known_type_with_name(GVK("test.group", "v1", "Simple"), ExternalSimple)
    register_conversions(s)
    ext = ExternalSimple(test_string="a")
    ext.set_group_version_kind(GVK("test.group", "v1", "Simple"))
    out = s.convert_to_version(ext, GV("test.group", APIVersionInternal))
    assert type(out) is InternalSimple and out.api_version == "" and out.kind == ""
    back = s.convert_to_version(out, GV("test.group", "v1"))
    assert type(back) is ExternalSimple
    assert (back.api_version, back.kind) == ("test.group/v1", "Simple")
    # short-circuit onto the internal kind clears too
    same = s.convert_to_version(InternalSimple(api_version="x", kind="y"), GV("test.group", APIVersionInternal))
    assert (same.api_version, same.kind) == ("", "")


def test_conversion_context_is_the_target_versioner():
    s = Scheme("ctx")
    s.add_known_type_with_name(GVK("", APIVersionInternal, "Simple"), InternalSimple)
    s.add_known_type_with_name(GVK("", "v1", "Simple"), ExternalSimple)
    seen = []

    def fn(a, b, scope):
        seen.append(scope.meta().context)
        b.test_string = a.test_string

    s.add_conversion_func(InternalSimple, ExternalSimple, fn)
    target = GV("", "v1")
    s.convert_to_version(InternalSimple(test_string="z"), target)
    assert seen == [target]


# ------------------------------------------------------------------------- Convert (Go: k8s.io/apimachinery/pkg/runtime/scheme.go (Convert))


def test_convert_unstructured_to_unstructured_shares_content():
    s = Scheme("c")
    content = {"apiVersion": "v1", "kind": "X", "a": [1]}
    out = TestUnstructured()
    s.convert(TestUnstructured(content), out)
    assert out.unstructured_content() is content


def test_convert_typed_to_unstructured_uses_first_kind():
    s = get_test_scheme()
    out = TestUnstructured()
    s.convert(ExternalTestType1(a="v"), out)
    assert out.unstructured_content()["apiVersion"] == "v1"
    assert out.unstructured_content()["kind"] == "TestType1"
    assert out.unstructured_content()["A"] == "v"

    s2 = Scheme("c2")
    s2.add_known_types(GV("", "v1"), ExternalSimple)
    out = TestUnstructured()
    s2.convert(ExternalSimple(), out)
    assert out.unstructured_content() == {"apiVersion": "v1", "kind": "ExternalSimple", "testString": ""}


def test_convert_internal_to_unstructured_needs_versioner():
    s = get_test_scheme()
    with pytest.raises(ConversionError) as exc:
        s.convert(TestType1(a="i"), TestUnstructured())
    assert str(exc.value) == (
        "unable to convert the internal object type *_types.TestType1 to Unstructured "
        "without providing a preferred version to convert to"
    )
    out = TestUnstructured()
    s.convert(TestType1(a="i"), out, GV("custom", "v1"))
    content = out.unstructured_content()
    assert content["A"] == "i"
    assert content["myVersionKey"] == "custom/v1" and content["myKindKey"] == "TestType3"


def test_convert_non_object_to_unstructured():
    s = Scheme("c")
    with pytest.raises(ConversionError) as exc:
        s.convert(None, TestUnstructured())
    assert str(exc.value) == "unable to convert object type <nil> to Unstructured, must be a runtime.Object"
    with pytest.raises(ConversionError, match="unable to convert object type int to Unstructured"):
        s.convert(3, TestUnstructured())


def test_convert_unstructured_to_typed():
    s = get_test_scheme("c")
    out = TestType1()
    s.convert(TestUnstructured({"apiVersion": "v1", "kind": "TestType1", "A": "from-map"}), out)
    assert out.a == "from-map"
    with pytest.raises(MissingKindError):
        s.convert(TestUnstructured({"apiVersion": "v1"}), TestType1())
    with pytest.raises(ConversionError) as exc:
        s.convert(TestUnstructured({"apiVersion": "v1", "kind": "TestType1"}), InternalSimple())
    assert str(exc.value) == "converting (_types.ExternalTestType1) to (_types.InternalSimple): unknown conversion"


def test_convert_plain_pairs_and_context():
    s = Scheme("c")
    seen = []

    def fn(a, b, scope):
        seen.append(scope.meta().context)
        b.test_string = a.test_string + "!"

    s.add_conversion_func(InternalSimple, ExternalSimple, fn)  # types need not be registered
    out = ExternalSimple()
    s.convert(InternalSimple(test_string="hi"), out, "my-context")
    assert out.test_string == "hi!" and seen == ["my-context"]
    with pytest.raises(ConversionError, match="unknown conversion"):
        s.convert(ExternalSimple(), InternalSimple())


def test_registered_conversion_called_once_per_convert():
    s = Scheme("count")
    s.add_known_type_with_name(GVK("", APIVersionInternal, "Simple"), InternalSimple)
    s.add_known_type_with_name(GVK("", "v1", "Simple"), ExternalSimple)
    calls = {"to_ext": 0, "to_int": 0}

    def to_ext(a, b, scope):
        calls["to_ext"] += 1
        b.test_string = a.test_string

    def to_int(a, b, scope):
        calls["to_int"] += 1
        b.test_string = a.test_string

    s.add_conversion_func(InternalSimple, ExternalSimple, to_ext)
    s.add_conversion_func(ExternalSimple, InternalSimple, to_int)
    s.convert(InternalSimple(), ExternalSimple())
    assert calls == {"to_ext": 1, "to_int": 0}
    s.convert(InternalSimple(), TestUnstructured(), GV("", "v1"))
    assert calls == {"to_ext": 2, "to_int": 0}
    s.convert_to_version(ExternalSimple(), GV("", APIVersionInternal))
    assert calls == {"to_ext": 2, "to_int": 1}


def test_self_conversion_deep_copies_and_clears_type_meta():
    s = Scheme("self")
    s.add_known_types(GV("", "v1"), ExternalSimple, ExternalTestType1)
    src = ExternalSimple(test_string="x", api_version="v1", kind="ExternalSimple")
    dst = ExternalSimple()
    s.convert(src, dst)
    assert dst.test_string == "x" and dst.api_version == "" and dst.kind == ""
    assert src.api_version == "v1"
    src1 = ExternalTestType1(m={"a": 1}, api_version="v1", object_kind="TestType1")
    dst1 = ExternalTestType1()
    s.convert(src1, dst1)
    assert dst1.m == {"a": 1} and dst1.m is not src1.m
    assert dst1.api_version == "" and dst1.object_kind == ""


def test_scheme_has_string_conversions():
    s = Scheme("strings")
    out = IntRef()
    s.convert(StringSliceRef(["42"]), out)
    assert out.value == 42
    with pytest.raises(ConversionError, match="unknown conversion"):
        s.convert(StringSliceRef(["42"]), ObjectRef())


def test_scheme_name_defaults_to_call_site():
    s = Scheme()
    assert s.name.startswith("test_scheme:")
    with pytest.raises(NotRegisteredError, match=f'in scheme "{s.name}"'):
        s.new(GVK("", "v1", "X"))


def test_scheme_builder():
    calls = []
    b = SchemeBuilder(lambda s: calls.append(("a", s)))
    b.register(lambda s: s.add_known_types(GV("", "v1"), ExternalSimple), lambda s: calls.append(("b", s)))
    s = Scheme("builder")
    b.add_to_scheme(s)
    assert [c[0] for c in calls] == ["a", "b"] and all(c[1] is s for c in calls)
    assert s.recognizes(GVK("", "v1", "ExternalSimple"))
    assert len(b) == 3

    def boom(scheme):
        raise KCodecError("boom")

    with pytest.raises(KCodecError, match="boom"):
        SchemeBuilder(boom, lambda s: calls.append("never")).add_to_scheme(s)
    assert "never" not in calls


# ------------------------------------------------------------------------- Object <-> RawExtension (Go: k8s.io/apimachinery/pkg/runtime/embedded.go)


def test_object_to_raw_extension():
    ext = RawExtension()
    convert_object_to_raw_extension(None, ext)
    assert ext.raw is None and ext.object is None
    raw = b'{"a":1}'
    ext = RawExtension()
    convert_object_to_raw_extension(Unknown(raw=raw), ext)
    assert ext.raw is raw, "Unknown raw bytes are handed over by reference"
    keep = ExtensionA()
    ext = RawExtension(object=keep)
    convert_object_to_raw_extension(Unknown(raw=None), ext)
    assert ext.object is keep and ext.raw is None
    obj = ExtensionA(test_string="foo")
    ext = RawExtension()
    convert_object_to_raw_extension(ObjectRef(obj), ext)
    assert ext.object is obj and ext.raw is None


def test_raw_extension_to_object():
    obj = ExtensionA()
    assert convert_raw_extension_to_object(RawExtension(raw=b"{}", object=obj)) is obj
    assert convert_raw_extension_to_object(RawExtension()) is None
    assert convert_raw_extension_to_object(RawExtension(raw=b"")) is None
    assert convert_raw_extension_to_object(RawExtension(raw=b"null")) is None
    u = convert_raw_extension_to_object(RawExtension(raw=b'{"kind":"Other","apiVersion":"v1"}'))
    assert isinstance(u, Unknown)
    assert u.raw == b'{"kind":"Other","apiVersion":"v1"}'
    assert u.content_type == "application/json" and u.api_version == "" and u.kind == ""
    ref = ObjectRef()
    convert_raw_extension_to_object(RawExtension(raw=b"[]"), ref)
    assert isinstance(ref.value, Unknown) and ref.value.raw == b"[]"


def test_embedded_conversions_are_registered_in_every_scheme():
    s = Scheme("embedded")
    ext = RawExtension()
    s.convert(ObjectRef(ExtensionA(test_string="x")), ext)
    assert ext.object == ExtensionA(test_string="x")
    ref = ObjectRef()
    s.convert(RawExtension(raw=b"{}"), ref)
    assert isinstance(ref.value, Unknown) and ref.value.raw == b"{}"


def test_conversions_of_embedding_types():
    s = Scheme("embedding")
    internal, external = GV("test.group", APIVersionInternal), GV("test.group", "v1test")
    for kind, i, e in (
        ("EmbeddedTest", EmbeddedTest, EmbeddedTestExternal),
        ("ObjectTest", ObjectTest, ObjectTestExternal),
        ("ExtensionType", InternalExtensionType, ExternalExtensionType),
    ):
        s.add_known_type_with_name(internal.with_kind(kind), i)
        s.add_known_type_with_name(external.with_kind(kind), e)
    register_conversions(s)
    inner = ExtensionA(test_string="foo")
    ext = s.convert_to_version(InternalExtensionType(extension=inner), GV("test.group", "v1test"))
    assert type(ext) is ExternalExtensionType and ext.extension.object == inner
    back = s.convert_to_version(
        ExternalExtensionType(extension=RawExtension(raw=b'{"kind":"A"}')), GV("test.group", APIVersionInternal)
    )
    assert isinstance(back.extension, Unknown) and back.extension.raw == b'{"kind":"A"}'
    items = s.convert_to_version(
        ObjectTestExternal(items=[RawExtension(raw=b"{}"), RawExtension()]), GV("test.group", APIVersionInternal)
    )
    assert isinstance(items.items[0], Unknown) and items.items[0].raw == b"{}"
    assert items.items[0].content_type == "application/json" and items.items[1] is None
    e = s.convert_to_version(EmbeddedTest(id="x", object=inner), GV("test.group", "v1test"))
    assert e.id == "x" and e.object.object is inner and e.empty_object.raw is None


def test_external_internal_same_short_circuits():
    s = get_test_scheme()
    obj = ExternalInternalSame(a=TestType2(a="x"))
    out = s.convert_to_version(obj, GV("", "v1"))
    assert type(out) is ExternalInternalSame and out.group_version_kind() == GVK("", "v1", "ExternalInternalSame")
    internal = s.convert_to_version(obj, GV("", APIVersionInternal))
    assert internal.group_version_kind() == GVK()


def test_to_openapi_definition_name():
    from kcodec.runtime import Unstructured

    s = Scheme("openapi")
    s.add_known_type_with_name(GVK("stable.example.com", "v1", "CronTab"), Unstructured)
    s.add_known_type_with_name(GVK("", "v1", "CronTab"), Unstructured)
    assert s.to_openapi_definition_name(GVK("stable.example.com", "v1", "CronTab")) == "com.example.stable.v1.CronTab"
    with pytest.raises(KCodecError) as exc:
        s.to_openapi_definition_name(GVK("", "v1", "CronTab"))
    assert str(exc.value) == (
        "unable to convert GroupVersionKind with empty fields to unstructured type to an OpenAPI "
        "definition name: /v1, Kind=CronTab"
    )
    with pytest.raises(KCodecError) as exc:
        s.to_openapi_definition_name(GVK("stable.example.com", "", "CronTab"))
    assert str(exc.value) == "version is required on all types: stable.example.com/, Kind=CronTab"
    with pytest.raises(NotRegisteredError):
        s.to_openapi_definition_name(GVK("stable.example.com", "v2", "CronTab"))
    meta_v1 = pytest.importorskip("kcodec.api.meta.v1")
    s.add_known_types(GV("meta.k8s.io", "v1"), meta_v1.ListOptions)
    assert (
        s.to_openapi_definition_name(GVK("meta.k8s.io", "v1", "ListOptions"))
        == "io.k8s.apimachinery.pkg.apis.meta.v1.ListOptions"
    )
