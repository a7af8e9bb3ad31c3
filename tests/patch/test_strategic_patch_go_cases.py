"""Strategic merge patch against the test tables of k8s.io/apimachinery v0.36.3
pkg/util/strategicpatch/patch_test.go (TestSortMergeLists, TestCustomStrategicMergePatch,
TestStrategicMergePatch, TestReplaceWithRawExtension), kept verbatim in
strategicpatch_go_cases.json, with Go's schema struct MergeItem rebuilt as a kcodec model.

Like the Go tests: the YAML cases are sorted by merge key (sortMergeListsByName) before use,
created patches must equal the expected ones, applying them must give the expected result,
and three-way cases whose description says "conflict" must conflict without overwrite.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kcodec import gojson, goyaml
from kcodec.model import Struct, field
from kcodec.patch import (
    MergeConflictError, PatchError, create_three_way_merge_patch, create_two_way_merge_patch,
    strategic_merge_patch,
)
from kcodec.patch import strategic as sp
from kcodec.runtime import RawExtension

CASES = json.loads((Path(__file__).parent / "strategicpatch_go_cases.json").read_text())


class MergeItem(Struct):
    """patch_test.go's MergeItem."""
    name: str = field(0, "name", omitempty=True)
    value: str = field(0, "value", omitempty=True)
    other: str = field(0, "other", omitempty=True)
    merging_list: list[MergeItem] | None = field(0, "mergingList", omitempty=True,
                                                 tags="patchStrategy=merge;patchMergeKey=name")
    non_merging_list: list[MergeItem] | None = field(0, "nonMergingList", omitempty=True)
    merging_int_list: list[int] | None = field(0, "mergingIntList", omitempty=True,
                                               tags="patchStrategy=merge")
    non_merging_int_list: list[int] | None = field(0, "nonMergingIntList", omitempty=True)
    merge_item_ptr: MergeItem | None = field(0, "mergeItemPtr", omitempty=True,
                                             tags="patchStrategy=merge;patchMergeKey=name")
    simple_map: dict[str, str] | None = field(0, "simpleMap", omitempty=True)
    replacing_item: RawExtension = field(0, "replacingItem", omitempty=True, tags="patchStrategy=replace")
    json_item: JSONItem = field(0, "jsonItem", omitempty=True)
    retain_keys_map: RetainKeysMergeItem = field(0, "retainKeysMap", omitempty=True,
                                                 tags="patchStrategy=retainKeys")
    retain_keys_merging_list: list[MergeItem] | None = field(
        0, "retainKeysMergingList", omitempty=True,
        tags="patchStrategy=merge,retainKeys;patchMergeKey=name")


class JSONItem(Struct):
    """MergeItem's ``struct{ Raw []byte }``."""
    raw: bytes | None = field(0, "Raw")


class RetainKeysMergeItem(Struct):
    """patch_test.go's RetainKeysMergeItem."""
    name: str = field(0, "name", omitempty=True)
    value: str = field(0, "value", omitempty=True)
    other: str = field(0, "other", omitempty=True)
    simple_map: dict[str, str] | None = field(0, "simpleMap", omitempty=True)
    merging_int_list: list[int] | None = field(0, "mergingIntList", omitempty=True, tags="patchStrategy=merge")
    merging_list: list[MergeItem] | None = field(0, "mergingList", omitempty=True,
                                                 tags="patchStrategy=merge;patchMergeKey=name")
    non_merging_list: list[MergeItem] | None = field(0, "nonMergingList", omitempty=True)


SCHEMA = sp.PatchSchema.of_class(MergeItem)


def _yaml(text: str | None) -> Any:
    """yaml.YAMLToJSON then json.Unmarshal, as the Go tests read their cases."""
    if text is None:
        return None
    return gojson.loads(goyaml.yaml_to_json(text.encode())[0])


def _sorted(tree: Any) -> Any:
    """sortMergeListsByName (nil stays nil)."""
    if tree is None:
        return None
    return sp._sort_merge_lists_by_name_map(tree, SCHEMA)


def _cases(var: str) -> list[dict[str, Any]]:
    return _yaml(CASES[var])["testCases"]


def _ids(cases: list[dict[str, Any]], key: str) -> list[str]:
    return [c[key] for c in cases]


def _same(a: Any, b: Any) -> bool:
    # Go compares json.Marshal outputs: keys sorted, so dict order does not matter
    return gojson.dumps(a, sort_keys=True) == gojson.dumps(b, sort_keys=True)


@pytest.mark.parametrize("case", _cases("sortMergeListTestCaseData"), ids=lambda c: c["description"])
def test_sort_merge_lists(case: dict[str, Any]) -> None:
    assert _same(_sorted(case["original"]), case["sorted"])


@pytest.mark.parametrize("case", _cases("customStrategicMergePatchTestCaseData"),
                         ids=lambda c: c["description"])
def test_custom_strategic_merge_patch(case: dict[str, Any]) -> None:
    expected = case.get("twoWayResult") or case["modified"]
    result = strategic_merge_patch(_sorted(case.get("original")), _sorted(case["twoWay"]), MergeItem)
    assert _same(result, _sorted(expected))


def _apply(original: Any, patch: Any, expected: Any, error: str | None) -> None:
    if error:
        with pytest.raises(PatchError) as exc:
            strategic_merge_patch(original, patch, MergeItem)
        assert error in str(exc.value)
        return
    assert _same(strategic_merge_patch(original, patch, MergeItem), expected)


@pytest.mark.parametrize("case", CASES["customStrategicMergePatchRawTestCases"], ids=lambda c: c["Description"])
def test_custom_strategic_merge_patch_raw(case: dict[str, Any]) -> None:
    expected = case.get("TwoWayResult") or case.get("Modified")
    _apply(_yaml(case.get("Original")), _yaml(case["TwoWay"]), _yaml(expected), case.get("ExpectedError"))


@pytest.mark.parametrize("case", _cases("createStrategicMergePatchTestCaseData"), ids=lambda c: c["description"])
def test_two_way(case: dict[str, Any]) -> None:
    original = _sorted(case.get("original"))
    modified = _sorted(case.get("modified"))
    expected_result = _sorted(case.get("twoWayResult") or case.get("modified"))
    patch = create_two_way_merge_patch(original, modified, MergeItem)
    assert _same(patch, _sorted(case.get("twoWay")) or {})
    assert _same(strategic_merge_patch(original, patch, MergeItem), expected_result)


def _three_way(original: Any, modified: Any, current: Any, expected: Any, result: Any, description: str,
               error: str | None = None) -> None:
    try:
        patch = create_three_way_merge_patch(original, modified, current, MergeItem, False)
    except MergeConflictError:
        assert "conflict" in description
        if not result:
            return
        patch = create_three_way_merge_patch(original, modified, current, MergeItem, True)
        assert _same(patch, expected or {})
        _apply(current, patch, result, error)
        return
    assert "conflict" not in description and result
    assert _same(patch, expected or {})
    _apply(current, patch, result, error)


@pytest.mark.parametrize("case", _cases("createStrategicMergePatchTestCaseData"), ids=lambda c: c["description"])
def test_three_way(case: dict[str, Any]) -> None:
    _three_way(*(_sorted(case.get(k)) for k in ("original", "modified", "current", "threeWay", "result")),
               case["description"])


RAW = CASES["strategicMergePatchRawTestCases"] + CASES["replaceRawExtensionPatchTestCases"]


@pytest.mark.parametrize("case", RAW, ids=lambda c: c["Description"])
def test_two_way_raw(case: dict[str, Any]) -> None:
    original, modified = _yaml(case.get("Original")), _yaml(case.get("Modified"))
    expected_result = _yaml(case.get("TwoWayResult") or case.get("Modified"))
    patch = create_two_way_merge_patch(original, modified, MergeItem)
    assert _same(patch, _yaml(case.get("TwoWay")) or {})
    _apply(original, patch, expected_result, case.get("ExpectedError"))


@pytest.mark.parametrize("case", RAW, ids=lambda c: c["Description"])
def test_three_way_raw(case: dict[str, Any]) -> None:
    _three_way(*(_yaml(case.get(k)) for k in ("Original", "Modified", "Current", "ThreeWay", "Result")),
               case["Description"], case.get("ExpectedError"))


def test_bad_arguments() -> None:
    """TestStrategicMergePatch's "nil struct" / unstructured: no struct type, no SMP."""
    with pytest.raises(PatchError) as exc:
        strategic_merge_patch({}, {}, None)
    assert str(exc.value) == "strategic merge patch format is not supported"
    assert exc.value.code == 400


UNKNOWN = CASES["unknownFieldTestCases"]


@pytest.mark.parametrize("name", sorted(UNKNOWN))
def test_unknown_field(name: str) -> None:
    """TestUnknownField: fields MergeItem does not have, compared as Go's json.Marshal text."""
    tc = UNKNOWN[name]
    original, current, modified = (gojson.loads(tc[k].encode()) for k in ("Original", "Current", "Modified"))

    def text(tree: Any) -> str:
        return gojson.dumps(tree, sort_keys=True).decode()

    try:
        two_way = create_two_way_merge_patch(original, modified, MergeItem)
    except PatchError as exc:
        assert tc.get("ExpectedTwoWayErr") and tc["ExpectedTwoWayErr"] in str(exc)
    else:
        assert not tc.get("ExpectedTwoWayErr")
        assert text(two_way) == tc["ExpectedTwoWay"]
        assert text(strategic_merge_patch(original, two_way, MergeItem)) == tc["ExpectedTwoWayResult"]
    try:
        three_way = create_three_way_merge_patch(original, modified, current, MergeItem, False)
    except PatchError as exc:
        assert tc.get("ExpectedThreeWayErr") and tc["ExpectedThreeWayErr"] in str(exc)
    else:
        assert not tc.get("ExpectedThreeWayErr")
        assert text(three_way) == tc["ExpectedThreeWay"]
        assert text(strategic_merge_patch(current, three_way, MergeItem)) == tc["ExpectedThreeWayResult"]
