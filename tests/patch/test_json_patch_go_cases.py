"""JSON patch and JSON merge patch against evanphx/json-patch's own tests (patch_test.go:
TestAllCases, TestAllTest, TestEquality; merge_test.go: TestMergePatchRFCCases,
TestMergePatchFailRFCCases and the single-case tests), the tables kept verbatim in
jsonpatch_go_cases.json; error texts and limits as kube-apiserver's patch handler
(k8s.io/apiserver pkg/endpoints/handlers/patch.go) answers them.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kcodec import gojson
from kcodec.fieldtable import JSONNumber
from kcodec.patch import (
    JSONPatchApplyError, JSONPatchDecodeError, JSONPatchTooLargeError, MergePatchError,
    create_merge_patch, json_patch, merge_patch,
)

CASES = json.loads((Path(__file__).parent / "jsonpatch_go_cases.json").read_text())


def _doc(text: str) -> Any:
    # literals=True: numbers keep their text, as the raw JSON evanphx compares
    return gojson.loads(text.encode(), literals=True)


def _apply(doc: str, patch: str, limit: int = 100) -> Any:
    # TestAllCases runs with AccumulatedCopySizeLimit = 100 (configureGlobals)
    return json_patch(_doc(doc), patch.encode(), max_copy_bytes=limit)


def _plain(tree: Any) -> Any:
    """compareJSON's view: json.Unmarshal into interface{} (numbers are float64)."""
    return json.loads(gojson.dumps(tree))


# compareJSON unmarshals into map[string]interface{}: for the cases whose document is an
# array (or empty) both sides fail to and compare equal, so Go checks nothing there.
@pytest.mark.parametrize("case", [c for c in CASES["Cases"] if c["doc"].lstrip().startswith("{")],
                         ids=lambda c: c["patch"][:60])
def test_cases(case: dict[str, str]) -> None:
    assert _plain(_apply(case["doc"], case["patch"])) == json.loads(case["result"])


@pytest.mark.parametrize("case", CASES["MutationTestCases"], ids=lambda c: c["patch"])
def test_mutation_cases(case: dict[str, str]) -> None:
    doc = _doc(case["doc"])
    out = json_patch(doc, case["patch"].encode())
    assert _plain(out) != json.loads(case["doc"])
    assert doc == _doc(case["doc"])  # the input tree is left as it was


@pytest.mark.parametrize("case", CASES["BadCases"], ids=lambda c: c["patch"][:60])
def test_bad_cases(case: dict[str, str]) -> None:
    with pytest.raises(JSONPatchApplyError) as exc:
        _apply(case["doc"], case["patch"])
    assert exc.value.code == 422


@pytest.mark.parametrize("case", CASES["TestCases"], ids=lambda c: c["patch"][:60])
def test_test_operation(case: dict[str, Any]) -> None:
    if case["result"]:
        _apply(case["doc"], case["patch"])
        return
    with pytest.raises(JSONPatchApplyError) as exc:
        _apply(case["doc"], case["patch"])
    assert str(exc.value) == f"testing value {case['failedPath']} failed: test failed"


@pytest.mark.parametrize("case", CASES["EqualityCases"], ids=lambda c: c["name"])
def test_equality(case: dict[str, Any]) -> None:
    """Equal(a, b) is what a "test" of the whole document compares."""
    a, b = _doc(case["a"]), _doc(case["b"])
    patch = json.dumps([{"op": "test", "path": "", "value": b}]).encode()
    if case["equal"]:
        json_patch(a, patch)
    else:
        with pytest.raises(JSONPatchApplyError):
            json_patch(a, patch)


# Texts as evanphx/json-patch v4's patch.go builds them (wrapping its sentinels with %w).
ERRORS = [
    ('{"a":{}}', '[{"op":"add","path":"/x/y","value":1}]',
     'add operation does not apply: doc is missing path: "/x/y": missing value'),
    ('{"a":{}}', '[{"op":"add","value":1}]', "add operation failed to decode path: missing value"),
    ('{"a":{}}', '[{"op":"remove","path":"/b"}]',
     "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value"),
    ('{"a":[1]}', '[{"op":"remove","path":"/a/x"}]',
     """error in remove for path: '/a/x': strconv.Atoi: parsing "x": invalid syntax"""),
    ('{"a":[1]}', '[{"op":"add","path":"/a/x","value":2}]',
     """error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax"""),
    ('{"a":[1]}', '[{"op":"add","path":"/a/3","value":2}]',
     "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index referenced"),
    ('{"a":[1]}', '[{"op":"replace","path":"/a/1","value":2}]',
     "replace operation does not apply: doc is missing key: /a/1: missing value"),
    ('{"a":[1]}', '[{"op":"replace","path":5}]',
     "replace operation failed to decode path: json: cannot unmarshal number into Go value of type string"),
    ('{"a":[1]}', '[{"op":"replace","path":"","value":1}]',
     "replace operation value must be object or array: %!w(<nil>)"),
    ('{"a":[1]}', '[{"op":"move","path":"/b"}]',
     "move operation failed to decode from: operation, missing from field: missing value"),
    ('{"a":{"b":1}}', '[{"op":"move","from":"/a/c","path":"/b"}]',
     "error in move for path: 'c': Unable to remove nonexistent key: c: missing value"),
    ('{"a":[1]}', '[{"op":"copy","from":"/a/0","path":"/x/y"}]',
     "copy operation does not apply: doc is missing destination path: /x/y: missing value"),
    ('{"a":[1]}', '[{"op":"test","path":"/a/0","value":1.0}]', "testing value /a/0 failed: test failed"),
    ('{"a":[1]}', '[{"op":"frob","path":"/a"}]', "Unexpected kind: frob"),
    ('{"a":[1]}', '[{"path":"/a"}]', "Unexpected kind: unknown"),
    ('{"a":[1]}', '[null]', "Unexpected kind: unknown"),
]


@pytest.mark.parametrize("doc,patch,message", ERRORS, ids=[e[2][:50] for e in ERRORS])
def test_error_texts(doc: str, patch: str, message: str) -> None:
    with pytest.raises(JSONPatchApplyError) as exc:
        json_patch(_doc(doc), patch.encode())
    assert str(exc.value) == message
    assert (exc.value.code, exc.value.reason) == (422, "Invalid")


@pytest.mark.parametrize("patch,message", [
    (b"{}", "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
    (b'"x"', "json: cannot unmarshal string into Go value of type jsonpatch.Patch"),
    (b"[1]", "json: cannot unmarshal number into Go value of type jsonpatch.Operation"),
    (b"[", "unexpected end of JSON input"),
])
def test_decode_errors(patch: bytes, message: str) -> None:
    with pytest.raises(JSONPatchDecodeError) as exc:
        json_patch({}, patch)
    assert (str(exc.value), exc.value.code) == (message, 400)


def test_null_patch_is_no_operation() -> None:
    assert json_patch({"a": 1}, b"null") == {"a": 1}


def test_evanphx_quirks() -> None:
    """Not RFC 6902, but what kube-apiserver does."""
    # replace of a missing member adds it; a path without "/" addresses the root member
    assert json_patch({}, b'[{"op":"replace","path":"/a","value":1}]') == {"a": 1}
    assert json_patch({"a": {}}, b'[{"op":"add","path":"x/b","value":1}]') == {"a": {}, "b": 1}
    # copy of a missing member writes null; add without value writes null
    assert json_patch({}, b'[{"op":"copy","from":"/nope","path":"/b"}]') == {"b": None}
    assert json_patch({}, b'[{"op":"add","path":"/b"}]') == {"b": None}
    # numbers keep their text, as the raw bytes Go splices in
    out = json_patch({}, b'[{"op":"add","path":"/n","value":1.50}]')
    assert type(out["n"]) is JSONNumber and out["n"].text == "1.50"
    # RFC 6901 escapes
    assert json_patch({"a/b": 1, "m~n": 2}, b'[{"op":"remove","path":"/a~1b"},{"op":"remove","path":"/m~0n"}]') == {}


def test_operation_limit() -> None:
    """kube-apiserver: 413 "The allowed maximum operations in a JSON patch is 10000, got N"."""
    ops = json.dumps([{"op": "test", "path": "/a", "value": 1}] * 10001).encode()
    with pytest.raises(JSONPatchTooLargeError) as exc:
        json_patch({"a": 1}, ops)
    assert str(exc.value) == "The allowed maximum operations in a JSON patch is 10000, got 10001"
    assert exc.value.code == 413
    assert json_patch({"a": 1}, json.dumps([{"op": "test", "path": "/a", "value": 1}] * 10000).encode()) == {"a": 1}


def test_copy_limit() -> None:
    """kube-apiserver's JSONPatchMaxCopyBytes: 3 MiB by default."""
    doc = {"a": "x" * (1024 * 1024 - 2)}  # 1 MiB of JSON with its quotes
    ops = json.dumps([{"op": "copy", "from": "/a", "path": f"/b{i}"} for i in range(3)]).encode()
    assert len(json_patch(doc, ops)) == 4
    ops = json.dumps([{"op": "copy", "from": "/a", "path": f"/b{i}"} for i in range(4)]).encode()
    with pytest.raises(JSONPatchApplyError) as exc:
        json_patch(doc, ops)
    assert str(exc.value) == ("Unable to complete the copy, the accumulated size increase of copy is "
                              "4194304, exceeding the limit 3145728")


@pytest.mark.parametrize("case", CASES["rfcTests"], ids=lambda c: c["patch"])
def test_merge_patch_rfc(case: dict[str, str]) -> None:
    assert _plain(merge_patch(_doc(case["target"]), _doc(case["patch"]))) == json.loads(case["expected"])


def test_merge_patch_rfc_failures() -> None:
    for line in CASES["rfcFailTests"].strip().splitlines():
        doc, _bar, patch = line.partition("|")
        with pytest.raises(MergePatchError) as exc:
            merge_patch(_doc(doc.strip()), _doc(patch.strip()))
        assert (str(exc.value), exc.value.code) == ("Invalid JSON Patch", 400)


def test_merge_patch_cases() -> None:
    """merge_test.go's single cases."""
    assert merge_patch({"title": "hello"}, {"title": "goodbye"}) == {"title": "goodbye"}
    assert merge_patch({"title": "hello", "age": 18, "height": 1.2},
                       {"title": "goodbye"}) == {"title": "goodbye", "age": 18, "height": 1.2}
    assert merge_patch({"title": None}, {"title": {"foo": "bar"}}) == {"title": {"foo": "bar"}}
    assert merge_patch({"a": {"b": 1}}, {"a": [{"x": None}]}) == {"a": [{"x": None}]}
    assert merge_patch({}, {"a": [{"x": None, "y": 1}, None]}) == {"a": [{"y": 1}, None]}
    assert merge_patch({"person": {"name": "John"}},
                       {"person": {"name": "Jane"}}) == {"person": {"name": "Jane"}}
    assert merge_patch({"x": [1]}, []) == []
    with pytest.raises(MergePatchError) as exc:
        merge_patch(None, {})
    assert str(exc.value) == "Invalid JSON Document"


def test_create_merge_patch() -> None:
    """merge_test.go's TestCreateMergePatch* cases."""
    assert create_merge_patch({"title": "hello", "nested": {"one": 1, "two": 2}},
                              {"title": "goodbye", "nested": {"one": 2, "two": 2}}) == \
        {"title": "goodbye", "nested": {"one": 2}}
    assert create_merge_patch({"title": "hello", "nested": {"one": 1, "two": 2}},
                              {"title": "hello", "nested": {"one": 1}}) == {"nested": {"two": None}}
    assert create_merge_patch({"array": [1, 2]}, {"array": []}) == {"array": []}
    assert create_merge_patch([{"a": 1}], [{"a": 2}]) == [{"a": 2}]
    with pytest.raises(MergePatchError) as exc:
        create_merge_patch([{"a": 1}], {"a": 2})
    assert str(exc.value) == "Mismatched JSON Documents"
