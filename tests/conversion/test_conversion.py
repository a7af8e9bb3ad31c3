"""kcodec.conversion: the Converter (Go: k8s.io/apimachinery/pkg/conversion/converter.go) and []string -> scalar conversions (Go: k8s.io/apimachinery/pkg/runtime/conversion.go)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kcodec.conversion import (
    BoolPointerRef,
    BoolRef,
    BytesRef,
    ConversionFuncs,
    Converter,
    Int64PointerRef,
    Int64Ref,
    IntRef,
    Meta,
    StringRef,
    StringSliceRef,
    convert_strings,
    copy_fields,
    go_type_name,
    parse_int64,
    register_string_conversions,
    string_slice_to_bool,
    string_slice_to_int64_pointer,
)
from kcodec.errors import ConversionError, DecodeError, KCodecError

from _types import ExternalTestType1, ExternalTestType2, TestType1, TestType2


class A:
    """Plain classes stand for Go pointer-to-struct types."""

    def __init__(self, foo: str = "", baz: int = 0) -> None:
        self.foo = foo
        self.baz = baz


class B:
    def __init__(self, bar: str = "", baz: int = 0) -> None:
        self.bar = bar
        self.baz = baz


class C:
    pass


def a_to_b(a: A, b: B, scope) -> None:
    b.bar = a.foo
    b.baz = a.baz


def b_to_a(b: B, a: A, scope) -> None:
    a.foo = b.bar
    a.baz = b.baz


def test_byte_slice_copies():
    c = Converter()
    src = BytesRef(bytearray(b"\x01\x02\x03"))
    dst = BytesRef(b"")
    c.convert(src, dst)
    assert dst.value == b"\x01\x02\x03"
    src.value[0] = 9
    assert dst.value == b"\x01\x02\x03", "the destination must be a copy"
    nil = BytesRef(None)
    dst2 = BytesRef(b"x")
    c.convert(nil, dst2)
    assert dst2.value is None


def test_mismatched_types_with_registered_func():
    c = Converter()

    def fn(src: StringSliceRef, dst: IntRef, scope) -> None:
        dst.value = int(src.value[0])

    c.register_untyped_conversion_func(StringSliceRef, IntRef, fn)
    dst = IntRef()
    c.convert(StringSliceRef(["5"]), dst)
    assert dst.value == 5


def test_calls_registered_functions_and_unknown_conversion():
    c = Converter()
    c.register_untyped_conversion_func(A, B, a_to_b)
    c.register_untyped_conversion_func(B, A, b_to_a)
    b = B()
    c.convert(A("x", 5), b)
    assert (b.bar, b.baz) == ("x", 5)
    a = A()
    c.convert(B("y", 6), a)
    assert (a.foo, a.baz) == ("y", 6)

    with pytest.raises(ConversionError) as exc:
        c.convert(A(), C())
    assert str(exc.value) == "converting (test_conversion.A) to (test_conversion.C): unknown conversion"


def test_errors_from_conversion_functions_propagate():
    c = Converter()

    def failing(a, b, scope):
        raise ConversionError("test error")

    c.register_untyped_conversion_func(A, B, failing)
    with pytest.raises(ConversionError, match="test error"):
        c.convert(A(), B())


def test_non_pointer_arguments():
    c = Converter()
    with pytest.raises(ConversionError, match=r"^expected pointer, but got nil$"):
        c.convert(A(), None)
    with pytest.raises(ConversionError, match=r"^expected pointer, but got nil$"):
        c.convert(A(), B)  # a class is Go's typed nil pointer
    with pytest.raises(ConversionError, match=r"^expected pointer, but got int type$"):
        c.convert(A(), 5)
    with pytest.raises(ConversionError, match=r"^expected pointer, but got string type$"):
        c.convert("x", B())
    # dst is checked before src, as in Go
    with pytest.raises(ConversionError, match=r"^expected pointer, but got string type$"):
        c.convert(1, "x")


def test_registration_requires_pointer_types():
    c = Converter()
    with pytest.raises(ConversionError) as exc:
        c.register_untyped_conversion_func(5, B, a_to_b)
    assert str(exc.value) == "the type int must be a pointer to register as an untyped conversion"
    with pytest.raises(ConversionError) as exc:
        c.register_untyped_conversion_func(A, str, a_to_b)
    assert str(exc.value) == "the type string must be a pointer to register as an untyped conversion"
    with pytest.raises(ConversionError) as exc:
        c.register_ignored_conversion(1, B)
    assert str(exc.value) == "expected pointer arg for 'from' param 0, got: int"
    with pytest.raises(ConversionError) as exc:
        c.register_ignored_conversion(A, "x")
    assert str(exc.value) == "expected pointer arg for 'to' param 1, got: string"
    # instances name their class, as Go's (*T)(nil) and &T{} do
    c.register_untyped_conversion_func(A(), B(), a_to_b)
    b = B()
    c.convert(A("i", 1), b)
    assert b.bar == "i"


def test_ignored_beats_manual():
    c = Converter()
    calls = []
    c.register_untyped_conversion_func(A, B, lambda a, b, s: calls.append(1))
    c.register_ignored_conversion(A, B)
    b = B("keep")
    c.convert(A("x"), b)
    assert calls == [] and b.bar == "keep"


def test_manual_beats_generated():
    c = Converter()

    def generated(a, b, scope):
        raise AssertionError("generated function must not be called")

    c.register_generated_untyped_conversion_func(A, B, generated)
    c.register_untyped_conversion_func(A, B, a_to_b)
    b = B()
    c.convert(A("m"), b)
    assert b.bar == "m"


def test_generated_used_when_no_manual():
    c = Converter()
    c.register_generated_untyped_conversion_func(A, B, a_to_b)
    b = B()
    c.convert(A("g"), b)
    assert b.bar == "g"


def test_reregistering_overwrites():
    c = Converter()
    c.register_untyped_conversion_func(A, B, a_to_b)
    c.register_untyped_conversion_func(A, B, lambda a, b, s: setattr(b, "bar", "second"))
    b = B()
    c.convert(A("first"), b)
    assert b.bar == "second"


def test_with_conversions_overrides_copy_only():
    c = Converter()
    c.register_untyped_conversion_func(A, B, a_to_b)
    extra = ConversionFuncs()
    extra.add_untyped(A, B, lambda a, b, s: setattr(b, "bar", "override"))
    c2 = c.with_conversions(extra)
    b = B()
    c2.convert(A("x"), b)
    assert b.bar == "override"
    b = B()
    c.convert(A("x"), b)
    assert b.bar == "x", "the original converter is unchanged"
    # a plain mapping works too
    c3 = c.with_conversions({(A, B): lambda a, b, s: setattr(b, "bar", "map")})
    b = B()
    c3.convert(A("x"), b)
    assert b.bar == "map"


def test_scope_meta_and_recursion():
    c = Converter()
    seen = []

    class Outer:
        def __init__(self, inner=None):
            self.inner = inner

    class OuterB:
        def __init__(self):
            self.inner = None

    def outer(a, b, scope):
        seen.append(scope.meta())
        b.inner = B()
        scope.convert(a.inner, b.inner)

    def inner(a, b, scope):
        seen.append(scope.meta())
        a_to_b(a, b, scope)

    c.register_untyped_conversion_func(Outer, OuterB, outer)
    c.register_untyped_conversion_func(A, B, inner)
    meta = Meta(context="ctx")
    out = OuterB()
    c.convert(Outer(A("deep")), out, meta)
    assert out.inner.bar == "deep"
    assert seen == [meta, meta] and seen[0].context == "ctx"
    seen.clear()
    c.convert(Outer(A("x")), OuterB())
    assert seen == [None, None]


def test_go_type_names():
    assert go_type_name(StringSliceRef) == "[]string"
    assert go_type_name(BoolPointerRef()) == "*bool"
    assert go_type_name(5) == "int"
    assert go_type_name("s") == "string"
    assert go_type_name(True) == "bool"
    assert go_type_name(TestType1) == "_types.TestType1"


# ------------------------------------------------------------------------- Go: k8s.io/apimachinery/pkg/runtime/conversion.go


def _registered() -> Converter:
    c = Converter()
    register_string_conversions(c.register_untyped_conversion_func)
    return c


@pytest.mark.parametrize(
    "values, ref, expected",
    [
        (["a", "b"], StringRef, "a"),
        ([], StringRef, ""),
        (["12"], IntRef, 12),
        ([], IntRef, 0),
        (["-7"], Int64Ref, -7),
        (["+7"], Int64Ref, 7),
        ([], Int64Ref, 0),
        ([], BoolRef, False),
        (["0"], BoolRef, False),
        (["false"], BoolRef, False),
        (["FaLsE"], BoolRef, False),
        (["true"], BoolRef, True),
        (["1"], BoolRef, True),
        ([""], BoolRef, True),
        (["no"], BoolRef, True),
    ],
)
def test_string_slice_conversions(values, ref, expected):
    dst = ref()
    _registered().convert(StringSliceRef(values), dst)
    assert dst.value == expected


def test_string_slice_nil_behaves_as_empty():
    dst = StringRef("old")
    _registered().convert(StringSliceRef(None), dst)
    assert dst.value == ""


@pytest.mark.parametrize("junk", ["abc", "1.5", " 1", "1_000", "", "0x10", "١٢"])
def test_string_slice_to_int_rejects_junk(junk):
    with pytest.raises(DecodeError) as exc:
        _registered().convert(StringSliceRef([junk]), Int64Ref())
    assert "invalid syntax" in str(exc.value)
    with pytest.raises(DecodeError) as exc:
        _registered().convert(StringSliceRef([junk]), IntRef())
    assert str(exc.value).startswith("strconv.Atoi: parsing")


def test_int64_range():
    assert parse_int64("9223372036854775807") == 2**63 - 1
    assert parse_int64("-9223372036854775808") == -(2**63)
    with pytest.raises(DecodeError) as exc:
        parse_int64("9223372036854775808")
    assert str(exc.value) == 'strconv.ParseInt: parsing "9223372036854775808": value out of range'


def test_pointer_targets():
    assert convert_strings([], "*bool") is False
    assert convert_strings(["false"], "*bool") is False
    assert convert_strings(["x"], "*bool") is True
    assert convert_strings([], "*int64") is None
    assert string_slice_to_int64_pointer(["42"]) == 42
    assert convert_strings(["9"], "int") == 9
    with pytest.raises(ConversionError):
        convert_strings(["9"], "uint8")
    # the pointer refs are usable as conversion targets too
    assert Int64PointerRef().value is None


@given(st.lists(st.text(max_size=8), max_size=4))
def test_bool_rule_property(values):
    expected = bool(values) and not (values[0] == "0" or values[0].lower() == "false")
    assert string_slice_to_bool(values) is expected


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_int64_roundtrip_property(n):
    assert convert_strings([str(n)], "int64") == n


# ------------------------------------------------------------------------- copy_fields


def test_copy_fields_converts_nested_structs_through_scope():
    c = Converter()

    def t2(a, b, scope):
        copy_fields(a, b, scope)

    c.register_untyped_conversion_func(TestType2, ExternalTestType2, t2)
    c.register_untyped_conversion_func(TestType1, ExternalTestType1, lambda a, b, s: copy_fields(a, b, s))
    src = TestType1(
        a="x", b=3, l=True, m={"k": 1},
        n={"n1": TestType2(a="na")}, o=TestType2(b=9), p=[TestType2(a="p0"), TestType2(a="p1")],
    )
    src.api_version, src.object_kind = "v1", "TestType1"
    out = ExternalTestType1()
    c.convert(src, out)
    assert out.a == "x" and out.b == 3 and out.l is True and out.m == {"k": 1}
    assert out.api_version == "v1" and out.object_kind == "TestType1"
    assert out.n == {"n1": ExternalTestType2(a="na")}
    assert out.o == ExternalTestType2(b=9)
    assert out.p == [ExternalTestType2(a="p0"), ExternalTestType2(a="p1")]
    assert all(type(v) is ExternalTestType2 for v in out.p)


def test_copy_fields_overrides_and_missing_nested_conversion():
    c = Converter()
    c.register_untyped_conversion_func(
        TestType1, ExternalTestType1,
        lambda a, b, s: copy_fields(a, b, s, {"a": lambda src, dst, sc: setattr(dst, "a", src.a.upper()), "b": None}),
    )
    out = ExternalTestType1(b=77)
    c.convert(TestType1(a="low", b=1), out)
    assert out.a == "LOW" and out.b == 77
    with pytest.raises(KCodecError, match="unknown conversion"):
        c.convert(TestType1(o=TestType2()), ExternalTestType1())
