"""ParameterCodec, url.Values conversions and queryparams.Convert (Go: k8s.io/apimachinery/pkg/runtime/codec.go (parameterCodec))."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kcodec.errors import ConversionError, DecodeError, NotRegisteredError
from kcodec.model import Int32, Struct, field
from kcodec.runtime.object import Object
from kcodec.runtime.parameter_codec import (
    ParameterCodec,
    UrlValues,
    go_format_float,
    query_values_into_struct,
    register_query_conversions,
    struct_to_query_values,
    urlencode,
)
from kcodec.runtime.scheme import Scheme
from kcodec.schema import APIVersionInternal, GroupVersion, GroupVersionKind

from _types import InternalSimple

meta_v1 = pytest.importorskip("kcodec.api.meta.v1")
ListOptions = meta_v1.ListOptions
GetOptions = meta_v1.GetOptions
DeleteOptions = meta_v1.DeleteOptions
Time = pytest.importorskip("kcodec.api.meta._values").Time

META_GV = GroupVersion("meta.k8s.io", "v1")
CORE_V1 = GroupVersion("", "v1")


# ------------------------------------------------------------------------- types of queryparams' Go test


class ChildStructs(Struct):
    container: str = field(0, "container")
    follow: bool = field(0, "follow")
    previous: bool = field(0, "previous")
    since_seconds: int | None = field(0, "sinceSeconds")
    timestamps: bool = field(0, "timestamps")
    since_time: Time | None = field(0, "sinceTime")
    embedded_string: str = field(0, "", inline=True)


class FooBar(Struct):
    float1: float = field(0, "float1")
    float2: float = field(0, "float2")


class SimpleQuery(Object):
    str_: str = field(0, "str")
    integer: int = field(0, "integer")
    boolean: bool = field(0, "boolean")
    ptr: str | None = field(0, "ptr")
    slice_: list[str] | None = field(0, "slice")
    foobar: FooBar = field(0, "foobar")
    nothing: str = field(0, "-")
    labels: dict[str, str] | None = field(0, "labels")


class OmitQuery(Struct):
    str_: str = field(0, "str", omitempty=True)
    integer: int = field(0, "integer", omitempty=True)
    boolean: bool = field(0, "boolean", omitempty=True)
    ptr: int | None = field(0, "ptr", omitempty=True)
    zero_ptr: int | None = field(0, "zeroPtr", omitempty=True)
    nil_time: Time | None = field(0, "nilTime", omitempty=True)
    slice_: list[str] | None = field(0, "slice", omitempty=True)
    foobar: FooBar = field(0, "foobar", omitempty=True)
    i32: Int32 = field(0, "i32", omitempty=True)


def test_scalars_and_no_omitempty():
    obj = SimpleQuery(str_="hello", integer=234, boolean=True, ptr=None, slice_=["one", "two", "three"],
                      foobar=FooBar(float1=5.0), nothing="x", labels={"a": "b"})
    obj.kind, obj.api_version = "SimpleQuery", "v1"  # TypeMeta never becomes a parameter
    got = struct_to_query_values(obj)
    assert got == {
        "str": ["hello"],
        "integer": ["234"],
        "boolean": ["true"],
        "ptr": [""],
        "slice": ["one", "two", "three"],
        "float1": ["5"],
        "float2": ["0"],
    }
    assert struct_to_query_values(SimpleQuery()) == {
        "str": [""], "integer": ["0"], "boolean": ["false"], "ptr": [""],
        "float1": ["0"], "float2": ["0"],
    }


def test_omitempty_and_pointers():
    assert struct_to_query_values(OmitQuery()) == {}
    got = struct_to_query_values(OmitQuery(ptr=0, zero_ptr=None, slice_=["", "a"], foobar=FooBar(float2=100.7), i32=-3))
    assert got == {"ptr": ["0"], "slice": ["a"], "float1": ["0"], "float2": ["100.7"], "i32": ["-3"]}


def test_child_structs_with_time_marshaller():
    t = Time(datetime(2000, 1, 1, 12, 34, 56, tzinfo=timezone.utc))
    got = struct_to_query_values(ChildStructs(container="mycontainer", follow=True, since_seconds=123, since_time=t,
                                              embedded_string="ignored"))
    assert got == {
        "container": ["mycontainer"], "follow": ["true"], "previous": ["false"], "sinceSeconds": ["123"],
        "timestamps": ["false"], "sinceTime": ["2000-01-01T12:34:56Z"],
    }
    got = struct_to_query_values(ChildStructs())
    assert got["sinceTime"] == [""] and got["sinceSeconds"] == [""]


def test_query_values_input_errors():
    assert struct_to_query_values(None) == {}
    with pytest.raises(ConversionError, match="^expecting a pointer or interface$"):
        struct_to_query_values(5)
    with pytest.raises(ConversionError, match="^expecting a pointer to a struct$"):
        struct_to_query_values(UrlValues({}))


@pytest.mark.parametrize(
    "value, text",
    [(5.0, "5"), (100.7, "100.7"), (0.0, "0"), (-1.5, "-1.5"), (1e6, "1e+06"), (123456.0, "123456"),
     (1e-5, "1e-05"), (0.0001, "0.0001"), (1e21, "1e+21"), (1234567.0, "1.234567e+06"),
     (float("inf"), "+Inf"), (float("-inf"), "-Inf"), (float("nan"), "NaN")],
)
def test_go_float_format(value, text):
    assert go_format_float(value) == text


def test_urlencode_sorts_keys_and_escapes():
    assert urlencode({"limit": ["1"], "labelSelector": ["app=foo"]}) == "labelSelector=app%3Dfoo&limit=1"
    assert urlencode({"b": ["x y", "z"], "a": ["&/é~-._"]}) == "a=%26%2F%C3%A9~-._&b=x+y&b=z"
    assert urlencode({}) == ""


def test_list_options_example():
    got = struct_to_query_values(ListOptions(label_selector="app=foo", limit=1))
    assert urlencode(got) == "labelSelector=app%3Dfoo&limit=1"


# ------------------------------------------------------------------------- values -> struct


def test_query_values_into_list_options():
    opts = ListOptions(field_selector="old", limit=5, timeout_seconds=3)
    query_values_into_struct({"watch": ["1"], "labelSelector": ["a=b", "ignored"], "timeoutSeconds": []}, opts)
    assert opts.watch is True
    assert opts.label_selector == "a=b"
    assert opts.field_selector == "", "absent keys reset to zero"
    assert opts.limit == 0 and opts.timeout_seconds is None
    query_values_into_struct({"sendInitialEvents": ["False"], "limit": ["500"], "timeoutSeconds": ["10"]}, opts)
    assert opts.send_initial_events is False and opts.limit == 500 and opts.timeout_seconds == 10


def test_query_values_into_delete_options():
    opts = DeleteOptions()
    query_values_into_struct({"dryRun": ["All", "x"], "orphanDependents": ["yes"], "propagationPolicy": ["Foreground"],
                              "gracePeriodSeconds": ["0"]}, opts)
    assert opts.dry_run == ["All", "x"] and opts.orphan_dependents is True
    assert opts.propagation_policy == "Foreground" and opts.grace_period_seconds == 0


def test_query_values_bad_numbers():
    with pytest.raises(DecodeError) as exc:
        query_values_into_struct({"limit": ["ten"]}, ListOptions())
    assert 'strconv.ParseInt: parsing "ten": invalid syntax' in str(exc.value) and "limit" in str(exc.value)
    with pytest.raises(DecodeError, match="value out of range"):
        query_values_into_struct({"i32": ["2147483648"]}, OmitQuery())


# ------------------------------------------------------------------------- ParameterCodec


def _scheme() -> Scheme:
    s = Scheme("params")
    s.add_known_types(META_GV, ListOptions, GetOptions, DeleteOptions)
    register_query_conversions(s, ListOptions, GetOptions, DeleteOptions)
    return s


def test_decode_parameters_watch():
    codec = ParameterCodec(_scheme())
    opts = ListOptions()
    codec.decode_parameters({"watch": ["1"]}, META_GV, opts)
    assert opts.watch is True


def test_decode_parameters_empty_is_noop_without_defaulting():
    s = _scheme()
    s.add_type_defaulting_func(ListOptions, lambda o: setattr(o, "limit", 99))
    opts = ListOptions(label_selector="keep")
    ParameterCodec(s).decode_parameters({}, META_GV, opts)
    assert opts == ListOptions(label_selector="keep")
    ParameterCodec(s).decode_parameters({"watch": ["true"]}, META_GV, opts)
    assert opts.limit == 99 and opts.label_selector == ""


def test_decode_parameters_other_version_goes_through_conversion():
    s = _scheme()
    s.add_known_types(CORE_V1, ListOptions)  # one Go type, also registered in v1
    internal = GroupVersion("", APIVersionInternal)

    class InternalListOptions(InternalSimple):
        pass

    InternalListOptions.__name__ = "ListOptions"
    s.add_known_types(internal, InternalListOptions)
    s.add_type_defaulting_func(ListOptions, lambda o: setattr(o, "field_selector", "defaulted"))

    def to_internal(src, dst, scope):
        dst.test_string = f"{src.label_selector}|{src.field_selector}|{src.limit}"

    s.add_conversion_func(ListOptions, InternalListOptions, to_internal)
    into = InternalListOptions()
    ParameterCodec(s).decode_parameters({"labelSelector": ["x"], "limit": ["7"]}, META_GV, into)
    assert into.test_string == "x|defaulted|7"


def test_decode_parameters_errors():
    s = Scheme("params-errors")
    s.add_known_types(META_GV, ListOptions)
    with pytest.raises(ConversionError) as exc:
        ParameterCodec(s).decode_parameters({"watch": ["1"]}, META_GV, ListOptions())
    assert str(exc.value) == "converting (url.Values) to (v1.ListOptions): unknown conversion"
    with pytest.raises(NotRegisteredError):
        ParameterCodec(s).decode_parameters({"watch": ["1"]}, META_GV, GetOptions())
    with pytest.raises(NotRegisteredError):
        ParameterCodec(s).decode_parameters({"watch": ["1"]}, GroupVersion("other", "v1"), ListOptions())


def test_encode_parameters_roundtrip():
    codec = ParameterCodec(_scheme())
    opts = ListOptions(label_selector="a=1", field_selector="b=1", resource_version="10", timeout_seconds=10,
                       watch=True)
    params = codec.encode_parameters(opts, META_GV)
    assert params == {"labelSelector": ["a=1"], "fieldSelector": ["b=1"], "watch": ["true"],
                      "resourceVersion": ["10"], "timeoutSeconds": ["10"]}
    back = ListOptions()
    codec.decode_parameters(params, META_GV, back)
    assert back == opts


def test_encode_parameters_converts_to_requested_version():
    s = Scheme("params-encode")
    s.add_known_type_with_name(GroupVersionKind("", APIVersionInternal, "Simple"), InternalSimple)
    s.add_known_type_with_name(GroupVersionKind("", "v1", "Simple"), ListOptions)

    def to_v1(src, dst, scope):
        dst.label_selector = src.test_string

    s.add_conversion_func(InternalSimple, ListOptions, to_v1)
    params = ParameterCodec(s).encode_parameters(InternalSimple(test_string="sel"), CORE_V1)
    assert params == {"labelSelector": ["sel"]}
    with pytest.raises(NotRegisteredError):
        ParameterCodec(s).encode_parameters(InternalSimple(), GroupVersion("nope", "v1"))


@given(
    label=st.text(max_size=10),
    limit=st.integers(min_value=-(2**63), max_value=2**63 - 1),
    timeout=st.one_of(st.none(), st.integers(min_value=-(2**63), max_value=2**63 - 1)),
    watch=st.booleans(),
    initial=st.one_of(st.none(), st.booleans()),
)
def test_list_options_roundtrip_property(label, limit, timeout, watch, initial):
    codec = ParameterCodec(_scheme())
    opts = ListOptions(label_selector=label, limit=limit, timeout_seconds=timeout, watch=watch,
                       send_initial_events=initial)
    back = ListOptions()
    params = codec.encode_parameters(opts, META_GV)
    if params:
        codec.decode_parameters(params, META_GV, back)
        assert back == opts
    else:
        assert opts == ListOptions()
