"""kcodec.managedfields.fieldpath: paths, sets and FieldsV1 as structured-merge-diff v6 writes them.

Expected bytes and texts follow sigs.k8s.io/structured-merge-diff/v6 fieldpath/serialize.go,
serialize-pe.go, element.go and set.go (and their _test.go tables).
"""
from __future__ import annotations

import pytest

from kcodec.managedfields.fieldpath import FieldPathError, PathElement, Set, make_path, path_string

PE = PathElement


def test_path_element_strings_and_serialization() -> None:
    # element.go String(); serialize-pe.go SerializePathElement
    key = PE.key({"protocol": "TCP", "containerPort": 80})
    assert str(key) == '[containerPort=80,protocol="TCP"]'
    assert key.serialize() == 'k:{"containerPort":80,"protocol":"TCP"}'
    assert PE.field("spec").serialize() == "f:spec" and str(PE.field("spec")) == ".spec"
    assert PE.value("a<b").serialize() == 'v:"a\\u003cb"'  # encoding/json's HTML escaping
    assert str(PE.value(3)) == "[=3]" and PE.index(2).serialize() == "i:2" and str(PE.index(2)) == "[2]"
    for pe in (key, PE.field("x"), PE.value({"b": 1, "a": [True, None]}), PE.index(7)):
        assert PE.deserialize(pe.serialize()) == pe
    assert PE.deserialize("x:unknown") is None  # unknown prefixes are skipped
    with pytest.raises(FieldPathError, match="missing colon: f-x"):
        PE.deserialize("f-x")
    with pytest.raises(FieldPathError, match="key must be 2 characters long"):
        PE.deserialize("f")


def test_element_order_is_smd_order() -> None:
    # element.go Compare: fields < keys < values < indexes; value.Compare: numbers < strings < bools
    elems = [PE.index(0), PE.value(True), PE.value("a"), PE.value(2), PE.key({"a": 1}), PE.field("z"),
             PE.field("a"), PE.value(1.5)]
    assert [e.serialize() for e in sorted(elems)] == [
        "f:a", "f:z", 'k:{"a":1}', "v:1.5", "v:2", 'v:"a"', "v:true", "i:0"]


def test_fieldsv1_bytes_like_go() -> None:
    s = Set([make_path("spec", "replicas"), make_path("metadata", "labels", "app"),
             make_path("spec", "containers", PE.key({"name": "app"})),
             make_path("spec", "containers", PE.key({"name": "app"}), "image"),
             make_path("metadata", "labels")])
    # serialize.go emitContentsV1: "." first when a member also has children, then sorted keys.
    assert s.to_json() == (b'{"f:metadata":{"f:labels":{".":{},"f:app":{}}},'
                           b'"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{".":{},"f:image":{}}},'
                           b'"f:replicas":{}}}')
    assert Set.from_json(s.to_json()) == s
    assert Set.from_json(b"{}") == Set()
    with pytest.raises(FieldPathError):
        Set.from_json(b'{"f:a":1}')


def test_set_algebra_like_go() -> None:
    a = Set([make_path("a"), make_path("b", "c"), make_path("b", "d"), make_path("e")])
    b = Set([make_path("b", "c"), make_path("e"), make_path("x")])
    assert sorted(path_string(p) for p in a.union(b)) == [".a", ".b.c", ".b.d", ".e", ".x"]
    assert sorted(path_string(p) for p in a.intersection(b)) == [".b.c", ".e"]
    assert sorted(path_string(p) for p in a.difference(b)) == [".a", ".b.d"]
    # set.go RecursiveDifference: a member of the other set removes its whole subtree.
    assert sorted(path_string(p) for p in a.recursive_difference(Set([make_path("b")]))) == [".a", ".e"]
    assert sorted(path_string(p) for p in a.difference(Set([make_path("b")]))) == [".a", ".b.c", ".b.d", ".e"]
    withparent = Set([make_path("b"), make_path("b", "c")])
    assert [path_string(p) for p in withparent.leaves()] == [".b.c"]
    assert a.has(make_path("b", "c")) and not a.has(make_path("b")) and not a.has(())
    assert Set().empty() and not a.empty() and a.size() == 4
