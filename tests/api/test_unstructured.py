"""Unstructured, UnstructuredList, nested helpers and UnstructuredJSONScheme (Go: k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructured.go; k8s.io/apimachinery/pkg/runtime/scheme.go (ObjectKinds, New); k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (Encode))."""
from __future__ import annotations

import io
import math
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcodec.errors import DecodeError, KCodecError, MissingKindError
from kcodec.schema import GroupVersionKind
from kcodec.api.meta.unstructured import (
    UNSTRUCTURED_JSON_SCHEME,
    MAX_COPY_DEPTH,
    Unstructured,
    UnstructuredList,
    deep_copy_json,
    deep_copy_json_value,
    nested_bool,
    nested_field_copy,
    nested_field_no_copy,
    nested_float64,
    nested_int64,
    nested_map,
    nested_null_coercing_string_map,
    nested_number_as_float64,
    nested_slice,
    nested_string,
    nested_string_map,
    nested_string_slice,
    remove_nested_field,
    set_nested_field,
    set_nested_map,
    set_nested_slice,
    set_nested_string_map,
    set_nested_string_slice,
)

S = UNSTRUCTURED_JSON_SCHEME


def _meta_v1():
    try:
        import kcodec.api.meta.v1 as m
    except ImportError as e:
        pytest.skip(f"kcodec.api.meta.v1 not importable yet: {e}")
    return m


# ---------------------------------------------------------------------------- nested helpers


def _fixture_obj():
    target = {"foo": "bar"}
    obj = {"a": {"b": target, "c": None, "d": ["foo"], "e": [{"f": "bar"}]}}
    return obj, target


def test_nested_field_no_copy():
    obj, target = _fixture_obj()
    res, found = nested_field_no_copy(obj, "a", "b")
    assert found and res is target
    assert nested_field_no_copy(obj, "a", "c") == (None, True)
    with pytest.raises(KCodecError) as ei:
        nested_field_no_copy(obj, "a", "d", "foo")
    assert str(ei.value) == (
        ".a.d.foo accessor error: [foo] is of the type []interface {}, expected map[string]interface{}"
    )
    assert nested_field_no_copy(obj, "a", "g") == (None, False)
    assert nested_field_no_copy(obj, "a", "g", "f") == (None, False)
    assert nested_field_no_copy(obj, "a", "c", "f") == (None, False)
    assert nested_field_no_copy(obj, "a", "e[0]") == (None, False)
    assert nested_field_no_copy(None, "x") == (None, False)


def test_nested_field_copy():
    obj, target = _fixture_obj()
    res, found = nested_field_copy(obj, "a", "b")
    assert found and res == target and res is not target
    target["foo"] = "baz"
    assert res["foo"] == "bar"
    assert nested_field_copy(obj, "a", "c") == (None, True)
    with pytest.raises(KCodecError):
        nested_field_copy(obj, "a", "d", "foo")
    assert nested_field_copy(obj, "a", "zz") == (None, False)


def test_typed_getters():
    obj = {"s": "x", "b": True, "f": 1.5, "i": 7, "fi": 1.0, "l": ["a", "b"], "m": {"k": "v"}}
    assert nested_string(obj, "s") == ("x", True)
    assert nested_bool(obj, "b") == (True, True)
    assert nested_float64(obj, "f") == (1.5, True)
    assert nested_int64(obj, "i") == (7, True)
    assert nested_string_slice(obj, "l") == (["a", "b"], True)
    assert nested_string_map(obj, "m") == ({"k": "v"}, True)
    assert nested_string(obj, "nope") == ("", False)
    assert nested_int64(obj, "nope") == (0, False)

    cases = [
        (nested_string, "i", ".i accessor error: 7 is of the type int64, expected string"),
        (nested_bool, "s", ".s accessor error: x is of the type string, expected bool"),
        (nested_float64, "i", ".i accessor error: 7 is of the type int64, expected float64"),
        (nested_int64, "fi", ".fi accessor error: 1 is of the type float64, expected int64"),
        (nested_int64, "b", ".b accessor error: true is of the type bool, expected int64"),
        (nested_string_slice, "m", ".m accessor error: map[k:v] is of the type map[string]interface {}, expected []interface{}"),
        (nested_slice, "s", ".s accessor error: x is of the type string, expected []interface{}"),
        (nested_map, "l", ".l accessor error: [a b] is of the type []interface {}, expected map[string]interface{}"),
        (nested_string_map, "f", ".f accessor error: 1.5 is of the type float64, expected map[string]interface{}"),
    ]
    for fn, key, msg in cases:
        with pytest.raises(KCodecError) as ei:
            fn(obj, key)
        assert str(ei.value) == msg


def test_string_slice_and_map_element_errors():
    with pytest.raises(KCodecError) as ei:
        nested_string_slice({"x": {"y": ["a", 1]}}, "x", "y")
    assert str(ei.value) == (
        ".x.y accessor error: contains non-string key in the slice: 1 is of the type int64, expected string"
    )
    with pytest.raises(KCodecError) as ei:
        nested_string_map({"x": {"a": "1", "b\n": None}}, "x")
    assert str(ei.value) == (
        '.x accessor error: contains non-string value in the map under key "b\\n": '
        "<nil> is of the type <nil>, expected string"
    )


def test_nested_slice_and_map_are_copies():
    inner = {"k": [1, {"z": None}]}
    obj = {"a": inner, "l": [inner]}
    m, found = nested_map(obj, "a")
    assert found and m == inner
    m["k"][1]["z"] = 5
    assert inner["k"][1]["z"] is None
    sl, found = nested_slice(obj, "l")
    sl[0]["k"].append(3)
    assert inner["k"] == [1, {"z": None}]


@pytest.mark.parametrize(
    "obj,want,found,err",
    [
        (None, 0.0, False, None),
        ({"value": 42.0}, 42.0, True, None),
        ({"value": True}, None, None, ".value accessor error: true is of the type bool, expected float64 or int64"),
        ({"value": 42}, 42.0, True, None),
        (
            {"value": 2**63 - 1},
            None,
            None,
            ".value accessor error: int64 value 9223372036854775807 cannot be losslessly converted to float64",
        ),
    ],
)
def test_nested_number_as_float64(obj, want, found, err):
    path = ("missing",) if obj is None else ("value",)
    if err:
        with pytest.raises(KCodecError) as ei:
            nested_number_as_float64(obj, *path)
        assert str(ei.value) == err
    else:
        v, f = nested_number_as_float64(obj, *path)
        assert (v, f) == (want, found) and isinstance(v, float)


def test_nested_null_coercing_string_map():
    assert nested_null_coercing_string_map(None, "path") == (None, False)
    assert nested_null_coercing_string_map({"path": None}, "path") == (None, True)
    with pytest.raises(KCodecError, match="type int"):
        nested_null_coercing_string_map({"path": 0}, "path")
    assert nested_null_coercing_string_map({"path": {}}, "path") == ({}, True)
    assert nested_null_coercing_string_map({"path": {"a": "1", "b": "2"}}, "path") == ({"a": "1", "b": "2"}, True)
    assert nested_null_coercing_string_map({"path": {"a": "1", "b": None}}, "path") == ({"a": "1", "b": ""}, True)
    with pytest.raises(KCodecError, match='key "c": 0'):
        nested_null_coercing_string_map({"path": {"a": "1", "b": None, "c": 0}}, "path")


def test_set_nested_helpers():
    def base():
        return {"x": {"y": 1, "a": "foo"}}

    obj = base()
    set_nested_string_slice(obj, ["bar"], "x", "z")
    assert obj["x"]["z"] == ["bar"] and len(obj["x"]) == 3
    obj = base()
    v = ["bar"]
    set_nested_slice(obj, v, "x", "z")
    assert obj["x"]["z"] == ["bar"] and obj["x"]["z"] is not v
    obj = base()
    set_nested_string_map(obj, {"b": "bar"}, "x", "z")
    assert obj["x"]["z"] == {"b": "bar"}
    obj = base()
    set_nested_map(obj, {"b": "bar"}, "x", "z")
    assert obj["x"]["z"] == {"b": "bar"}

    obj = {}
    val = {"deep": [1]}
    set_nested_field(obj, val, "p", "q", "r")
    assert obj == {"p": {"q": {"r": {"deep": [1]}}}}
    val["deep"].append(2)
    assert obj["p"]["q"]["r"] == {"deep": [1]}

    obj = {"x": {"y": "str"}}
    with pytest.raises(KCodecError) as ei:
        set_nested_field(obj, 1, "x", "y", "z")
    assert str(ei.value) == "value cannot be set because .x.y is not a map[string]interface{}"
    with pytest.raises(KCodecError, match="cannot deep copy"):
        set_nested_field({}, {1, 2}, "a")


def test_remove_nested_field():
    obj = {"x": {"y": 1, "a": "foo"}}
    remove_nested_field(obj, "x", "a")
    assert obj == {"x": {"y": 1}}
    remove_nested_field(obj, "x", "y")
    assert obj == {"x": {}}
    remove_nested_field(obj, "x")
    assert obj == {}
    remove_nested_field(obj, "x")
    remove_nested_field(obj, "x", "q", "r")
    remove_nested_field(None, "x")
    assert obj == {}


# ---------------------------------------------------------------------------- deep copy


def test_deep_copy_json():
    src = {"a": [1, 2.5, "s", True, None, {"b": []}], "c": {}}
    cp = deep_copy_json(src)
    assert cp == src
    cp["a"][5]["b"].append(1)
    assert src["a"][5]["b"] == []
    assert deep_copy_json(None) is None
    for bad, name in [((1, 2), "tuple"), (b"x", "bytes"), (object(), "object")]:
        with pytest.raises(KCodecError) as ei:
            deep_copy_json_value({"k": [bad]})
        assert str(ei.value) == f"cannot deep copy {name}"


def test_deep_copy_is_iterative_and_bounded():
    deep: list = []
    cur = deep
    for _ in range(50_000):
        nxt: list = []
        cur.append(nxt)
        cur = nxt
    cp = deep_copy_json_value(deep)
    depth = 0
    while cp:
        cp = cp[0]
        depth += 1
    assert depth == 50_000

    cyclic: dict = {}
    cyclic["self"] = cyclic
    with pytest.raises(KCodecError, match=str(MAX_COPY_DEPTH)):
        deep_copy_json_value(cyclic)


# ---------------------------------------------------------------------------- object model


def test_nil_content_and_deep_copy():
    u = Unstructured()
    content = u.unstructured_content()
    assert content == {}
    content["x"] = 1
    assert u.object is None
    assert u.deep_copy() == u and u.deep_copy().object is None


def test_new_empty_instance_and_gvk():
    u = Unstructured({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}})
    e = u.new_empty_instance()
    assert e.object == {"apiVersion": "apps/v1", "kind": "Deployment"}
    assert u.get_object_kind() is u
    assert u.group_version_kind() == GroupVersionKind("apps", "v1", "Deployment")

    bad = Unstructured({"apiVersion": "a/b/c", "kind": "X"})
    assert bad.group_version_kind() == GroupVersionKind("", "", "")

    u = Unstructured({})
    u.set_group_version_kind(GroupVersionKind("", "", ""))
    assert u.object == {"apiVersion": "", "kind": ""}
    u.set_group_version_kind(GroupVersionKind("", "v1", "Pod"))
    assert u.object == {"apiVersion": "v1", "kind": "Pod"}
    u.set_api_version("")
    u.set_kind("")
    assert u.object == {"apiVersion": "", "kind": ""}
    assert Unstructured().new_empty_instance().object == {"apiVersion": "", "kind": ""}


def test_string_metadata_setters_remove_on_empty():
    u = Unstructured({})
    pairs = [
        ("name", "name"),
        ("namespace", "namespace"),
        ("generate_name", "generateName"),
        ("uid", "uid"),
        ("resource_version", "resourceVersion"),
        ("self_link", "selfLink"),
        ("continue", "continue"),
    ]
    for attr, key in pairs:
        getattr(u, f"set_{attr}")("v-" + attr)
        assert getattr(u, f"get_{attr}")() == "v-" + attr
        assert u.object["metadata"][key] == "v-" + attr
        getattr(u, f"set_{attr}")("")
        assert key not in u.object["metadata"]
        assert getattr(u, f"get_{attr}")() == ""
    assert u.object == {"metadata": {}}


def test_numeric_and_collection_metadata():
    u = Unstructured()
    u.set_generation(3)
    assert u.get_generation() == 3
    u.set_generation(0)
    assert u.object == {"metadata": {}}
    u.object["metadata"]["generation"] = 1.0
    assert u.get_generation() == 0

    u.set_deletion_grace_period_seconds(30)
    assert u.get_deletion_grace_period_seconds() == 30
    u.set_deletion_grace_period_seconds(0)
    assert u.get_deletion_grace_period_seconds() == 0
    u.set_deletion_grace_period_seconds(None)
    assert u.get_deletion_grace_period_seconds() is None
    u.object["metadata"]["deletionGracePeriodSeconds"] = 1.0
    assert u.get_deletion_grace_period_seconds() is None

    u.set_remaining_item_count(5)
    assert u.get_remaining_item_count() == 5
    u.set_remaining_item_count(None)
    assert u.get_remaining_item_count() is None

    labels = {"a": "b"}
    u.set_labels(labels)
    labels["c"] = "d"
    assert u.get_labels() == {"a": "b"}
    u.object["metadata"]["labels"]["n"] = None
    assert u.get_labels() == {"a": "b", "n": ""}
    u.object["metadata"]["labels"]["bad"] = 1
    assert u.get_labels() is None
    u.set_labels(None)
    assert "labels" not in u.object["metadata"]

    u.set_annotations({"x": "y"})
    assert u.get_annotations() == {"x": "y"}
    u.set_annotations(None)
    assert u.get_annotations() is None

    u.set_finalizers(["f1", "f2"])
    assert u.get_finalizers() == ["f1", "f2"]
    u.object["metadata"]["finalizers"].append(3)
    assert u.get_finalizers() is None
    u.set_finalizers([])
    assert u.object["metadata"]["finalizers"] == []
    u.set_finalizers(None)
    assert "finalizers" not in u.object["metadata"]

    del u.object["metadata"]["generation"]
    del u.object["metadata"]["deletionGracePeriodSeconds"]
    assert u.object == {"metadata": {}}


def test_getters_tolerate_wrong_types():
    u = Unstructured({"metadata": "not a map", "kind": 5})
    assert u.get_name() == ""
    assert u.get_kind() == ""
    assert u.get_labels() is None
    assert u.get_generation() == 0
    assert u.get_owner_references() is None
    assert u.get_managed_fields() is None
    assert u.get_deletion_timestamp() is None
    # Go ignores a failed set when metadata is not a map
    u.set_name("x")
    assert u.object["metadata"] == "not a map"


def _time():
    from kcodec.api.meta._values import Time

    return Time


def test_timestamps():
    u = Unstructured({})
    dt = datetime(1998, 5, 5, 1, 5, 5, 123456, tzinfo=timezone(timedelta(hours=-4)))
    time_cls = _time()
    u.set_creation_timestamp(time_cls.parse("1998-05-05T01:05:05.123456789-04:00"))
    assert u.object["metadata"]["creationTimestamp"] == "1998-05-05T05:05:05Z"
    got = u.get_creation_timestamp()
    assert isinstance(got, time_cls) and got.rfc3339() == "1998-05-05T05:05:05Z"
    u.set_creation_timestamp(dt)  # a plain aware datetime is accepted too
    assert u.object["metadata"]["creationTimestamp"] == "1998-05-05T05:05:05Z"
    u.set_creation_timestamp(time_cls._zero())
    assert "creationTimestamp" not in u.object["metadata"]

    u.set_creation_timestamp(None)
    assert "creationTimestamp" not in u.object["metadata"]
    u.set_creation_timestamp(datetime(1, 1, 1, tzinfo=timezone.utc))
    assert "creationTimestamp" not in u.object["metadata"]

    u.object["metadata"]["creationTimestamp"] = "1998-05-05 05:05:05Z"
    assert u.get_creation_timestamp()._is_zero()
    u.object["metadata"]["creationTimestamp"] = "null"
    assert u.get_creation_timestamp()._is_zero()

    u.set_deletion_timestamp(time_cls.parse("1998-05-05T05:05:05Z"))
    assert u.object["metadata"]["deletionTimestamp"] == "1998-05-05T05:05:05Z"
    assert u.get_deletion_timestamp().rfc3339() == "1998-05-05T05:05:05Z"
    u.set_deletion_timestamp(time_cls._zero())
    assert u.object["metadata"]["deletionTimestamp"] == ""
    assert u.get_deletion_timestamp() is None
    u.set_deletion_timestamp(None)
    assert u.get_deletion_timestamp() is None

    fresh = Unstructured()
    fresh.set_deletion_timestamp(None)
    assert fresh.object is None or "metadata" not in fresh.object
    assert fresh.get_deletion_timestamp() is None


def test_owner_references_and_managed_fields():
    m = _meta_v1()
    u = Unstructured({})
    refs = [
        m.OwnerReference(api_version="v1", kind="Pod", name="p", uid="u1", controller=True),
        m.OwnerReference(api_version="apps/v1", kind="RS", name="r", uid="u2"),
    ]
    u.set_owner_references(refs)
    assert u.object["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u1", "controller": True},
        {"apiVersion": "apps/v1", "kind": "RS", "name": "r", "uid": "u2"},
    ]
    got = u.get_owner_references()
    assert got == refs
    assert got[1].controller is None and got[1].block_owner_deletion is None
    u.set_owner_references(None)
    assert "ownerReferences" not in u.object["metadata"]

    entry = m.ManagedFieldsEntry(manager="kubectl", operation="Apply", api_version="v1")
    u.set_managed_fields([entry])
    assert u.object["metadata"]["managedFields"] == [{"manager": "kubectl", "operation": "Apply", "apiVersion": "v1"}]
    assert u.get_managed_fields() == [entry]
    u.object["metadata"]["managedFields"].append("junk")
    assert u.get_managed_fields() is None
    u.set_managed_fields(None)
    assert u.object == {"metadata": {}}


# ---------------------------------------------------------------------------- lists


def test_unstructured_list_behaviour():
    u = Unstructured({"kind": "PodList", "items": [{"kind": "Pod"}, {"kind": "Pod", "x": 1}]})
    assert u.is_list()
    seen = []
    u.each_list_item(lambda o: seen.append(o.get_kind()))
    assert seen == ["Pod", "Pod"]
    lst = u.to_list()
    assert [i.object for i in lst.items] == u.object["items"]
    assert lst.items[0].object is u.object["items"][0]

    assert not Unstructured({"items": 5}).is_list()
    not_list = Unstructured({"kind": "X"})
    lst = not_list.to_list()
    assert lst.object is not_list.object and lst.items == []
    with pytest.raises(KCodecError, match="^content is not a list$"):
        not_list.each_list_item(lambda o: None)
    with pytest.raises(KCodecError, match="^content is not a list: string$"):
        Unstructured({"items": "x"}).each_list_item(lambda o: None)
    with pytest.raises(KCodecError, match="^items member is not an object"):
        Unstructured({"items": [1]}).each_list_item(lambda o: None)


def test_unstructured_list_content():
    ul = UnstructuredList({"kind": "List", "apiVersion": "v1"}, [Unstructured({"kind": "A"}), {"kind": "B"}])
    content = ul.unstructured_content()
    assert content == {"kind": "List", "apiVersion": "v1", "items": [{"kind": "A"}, {"kind": "B"}]}
    assert "items" not in ul.object
    assert UnstructuredList().unstructured_content() == {"items": []}
    assert UnstructuredList(items=[Unstructured()]).unstructured_content() == {"items": [{}]}

    c = {"kind": "List", "items": [{"kind": "A"}, 3, "x", {"kind": "B"}]}
    ul.set_unstructured_content(c)
    assert [i.get_kind() for i in ul.items] == ["A", "B"]
    assert c["items"] == [{"kind": "A"}, {"kind": "B"}] and ul.object is c
    ul.set_unstructured_content({"kind": "L"})
    assert ul.items == [] and ul.object == {"kind": "L", "items": []}
    ul.set_unstructured_content(None)
    assert ul.items == [] and ul.object is None
    assert ul.is_list()


def test_unstructured_list_accessors_and_copy():
    ul = UnstructuredList()
    ul.set_resource_version("")
    ul.set_continue("")
    ul.set_self_link("")
    assert ul.object == {"metadata": {"resourceVersion": "", "continue": "", "selfLink": ""}}
    ul.set_resource_version("12")
    assert ul.get_resource_version() == "12"
    ul.set_remaining_item_count(3)
    assert ul.get_remaining_item_count() == 3
    ul.set_remaining_item_count(None)
    assert "remainingItemCount" not in ul.object["metadata"]
    ul.set_group_version_kind(GroupVersionKind("apps", "v1", "DeploymentList"))
    ul.items.append(Unstructured({"kind": "Deployment", "spec": {"r": [1]}}))
    assert ul.new_empty_instance().object == {"apiVersion": "apps/v1", "kind": "DeploymentList"}
    assert ul.new_empty_instance().items == []
    cp = ul.deep_copy()
    assert cp == ul
    cp.items[0].object["spec"]["r"].append(2)
    cp.object["metadata"]["x"] = "y"
    assert ul.items[0].object["spec"]["r"] == [1] and "x" not in ul.object["metadata"]
    seen = []
    ul.each_list_item(seen.append)
    assert seen[0] is ul.items[0]
    seen = []
    ul.each_list_item_with_alloc(seen.append)
    assert seen[0] is not ul.items[0] and seen[0].object is ul.items[0].object


# ---------------------------------------------------------------------------- JSON scheme


def test_scheme_identifier():
    assert S.identifier() == "unstructuredJSON"


def test_decode_object_and_list_detection():
    obj, gvk = S.decode(b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"n":1,"f":1.0}')
    assert isinstance(obj, Unstructured)
    assert gvk == GroupVersionKind("", "v1", "Pod")
    assert obj.object["n"] == 1 and type(obj.object["n"]) is int
    assert type(obj.object["f"]) is float

    obj, gvk = S.decode(b'{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"}},{"kind":"X"}]}')
    assert isinstance(obj, UnstructuredList)
    assert gvk == GroupVersionKind("", "v1", "PodList")
    assert obj.object == {"kind": "PodList", "apiVersion": "v1"}
    assert obj.items[0].object == {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}}
    assert obj.items[1].object == {"kind": "X"}

    obj, _ = S.decode(b'{"kind":"L","items":null}')
    assert isinstance(obj, UnstructuredList) and obj.items == []

    with pytest.raises(DecodeError) as ei:
        S.decode(b'{"kind":"L","items":5}')
    assert "cannot unmarshal number into" in str(ei.value) and "[]json.RawMessage" in str(ei.value)
    with pytest.raises(DecodeError, match="cannot unmarshal array into Go value of type unstructured.detector"):
        S.decode(b"[]")
    with pytest.raises(DecodeError, match="cannot unmarshal number into Go value of type map"):
        S.decode(b'{"kind":"L","items":[1]}')


def test_decode_kind_required_apiversion_optional():
    for data in (b"{}", b'{"apiVersion":"foo/v1"}', b"null"):
        with pytest.raises(MissingKindError) as ei:
            S.decode(data)
        assert str(ei.value) == f"Object 'Kind' is missing in '{data.decode()}'"
    with pytest.raises(MissingKindError) as ei:
        S.decode(b'{"apiVersion":"foo/v1"}')
    assert ei.value.gvk == GroupVersionKind("foo", "v1", "")
    obj, gvk = S.decode(b'{"kind":"Foo"}')
    assert gvk == GroupVersionKind("", "", "Foo") and obj.object == {"kind": "Foo"}
    with pytest.raises(MissingKindError):
        S.decode(b'{"kind":"PodList","items":[]}'.replace(b'"kind":"PodList",', b""))


def test_decode_into():
    into = Unstructured({"apiVersion": "into/v1", "kind": "Into", "extra": 1})
    obj, gvk = S.decode(b'{"kind":"Foo"}', None, into)
    assert obj is into and into.object == {"kind": "Foo"}
    assert gvk == GroupVersionKind("", "", "Foo")

    # Unstructured target: items is just a key
    obj, _ = S.decode(b'{"kind":"K","items":[1]}', None, Unstructured())
    assert obj.object == {"kind": "K", "items": [1]}

    lst = UnstructuredList({"keep": True, "kind": "Old"}, [{"kind": "gone"}])
    obj, gvk = S.decode(b'{"kind":"FooList","apiVersion":"g/v","items":[{}]}', None, lst)
    assert obj is lst
    assert lst.object == {"keep": True, "kind": "FooList", "apiVersion": "g/v"}
    assert [i.object for i in lst.items] == [{"kind": "Foo", "apiVersion": "g/v"}]
    assert gvk == GroupVersionKind("g", "v", "FooList")

    with pytest.raises(DecodeError):
        S.decode(b"[1]", None, Unstructured())
    with pytest.raises(DecodeError):
        S.decode(b"{bad", None, Unstructured())


def test_unmarshal_marshal_methods():
    u = Unstructured()
    u.unmarshal_json(b'{"kind":"A","b":[1,2]}')
    assert u.object == {"kind": "A", "b": [1, 2]}
    assert u.marshal_json() == b'{"b":[1,2],"kind":"A"}\n'


def test_encode():
    u = Unstructured({"metadata": {"name": "x"}, "kind": "Pod", "apiVersion": "v1", "html": "<&>"})
    out = S.encode(u)
    assert out == b'{"apiVersion":"v1","html":"\\u003c\\u0026\\u003e","kind":"Pod","metadata":{"name":"x"}}\n'
    buf = io.BytesIO()
    assert S.encode(u, buf) == out and buf.getvalue() == out
    assert S.encode(Unstructured()) == b"null\n"

    lst = UnstructuredList({"kind": "List", "items": "ignored"}, [Unstructured({"b": 1, "a": 2}), Unstructured()])
    snapshot = (dict(lst.object), [i.object for i in lst.items])
    assert S.encode(lst) == b'{"items":[{"a":2,"b":1},null],"kind":"List"}\n'
    assert (lst.object, [i.object for i in lst.items]) == snapshot
    assert S.encode(UnstructuredList()) == b'{"items":[]}\n'


def test_encode_unknown_raw_verbatim():
    from kcodec.runtime.types import Unknown

    unk = Unknown(api_version="v1", kind="Pod", raw=b'{ "kind" : "Pod" }', content_type="application/json")
    assert S.encode(unk) == b'{ "kind" : "Pod" }'


def test_float_rule():
    u = Unstructured({"kind": "K", "a": 1.0, "b": 1.5, "c": 9223372036854776000.0, "d": -0.0})
    data = S.encode(u)
    obj, _ = S.decode(data)
    assert obj.object["a"] == 1 and type(obj.object["a"]) is int
    assert obj.object["b"] == 1.5
    assert type(obj.object["c"]) is float
    assert obj.object["d"] == 0 and type(obj.object["d"]) is int


# ---------------------------------------------------------------------------- round trip

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
_json = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


def _normalize(v):
    """What a JSON round trip yields: an integral float64 is written as its shortest digits
    padded with zeros (4.421627525028494e16 -> 44216275250284940) and reads back as an int
    when that literal fits int64."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
        literal = int(Decimal(repr(v)))
        if -(2**63) <= literal < 2**63:
            return literal
    if isinstance(v, dict):
        return {k: _normalize(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_normalize(x) for x in v]
    return v


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _json, max_size=5), st.text(min_size=1, max_size=8))
def test_roundtrip_unstructured(content, kind):
    content = dict(content)
    content.pop("items", None)
    content["kind"] = kind
    u = Unstructured(content)
    data = S.encode(u)
    obj, gvk = S.decode(data)
    assert isinstance(obj, Unstructured)
    assert gvk.kind == kind
    assert obj.object == _normalize(content)
    assert S.encode(obj) == data
    cp = u.deep_copy()
    assert cp == u


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(st.text(max_size=6), _json, max_size=3),
    st.lists(st.dictionaries(st.text(max_size=6), _json, max_size=3), max_size=4),
)
def test_roundtrip_unstructured_list(fields, items):
    fields = dict(fields)
    fields.pop("items", None)
    fields["kind"] = "ThingList"
    fields["apiVersion"] = "g/v1"
    for it in items:
        it["kind"] = "Thing"
    lst = UnstructuredList(fields, [Unstructured(i) for i in items])
    data = S.encode(lst)
    obj, gvk = S.decode(data)
    assert isinstance(obj, UnstructuredList)
    assert gvk == GroupVersionKind("g", "v1", "ThingList")
    assert obj.object == _normalize(fields)
    assert [i.object for i in obj.items] == [_normalize(i) for i in items]
    assert S.encode(obj) == data
    assert math.isfinite(len(data))
