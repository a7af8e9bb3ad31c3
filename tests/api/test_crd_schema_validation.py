"""Custom resources against their CRD's structural schema: kcodec.api.apiextensions._validation.

Texts follow k8s.io/apiextensions-apiserver pkg/apiserver/validation/validation.go
(kubeOpenAPIResultToFieldErrors) over k8s.io/kube-openapi pkg/validation/validate and
pkg/validation/errors/schema.go; list types pkg/apiserver/schema/listtype/validation.go;
defaults pkg/apiserver/schema/defaulting/algorithm.go (and algorithm_test.go's cases).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kcodec.api.apiextensions._validation import (
    default_custom_resource,
    validate_custom_resource,
    validate_list_sets_and_maps,
)

SUITE = Path(__file__).parent / "data" / "jsonschema_suite"
_UNSUPPORTED = {"$ref", "definitions", "dependencies", "patternProperties", "additionalItems", "not", "oneOf",
                "anyOf"}


def _structural_only(s) -> bool:
    if isinstance(s, dict):
        if _UNSUPPORTED & set(s) or isinstance(s.get("items"), list):
            return False
        return all(_structural_only(v) for v in s.values())
    if isinstance(s, list):
        return all(_structural_only(v) for v in s)
    return True


def _suite_cases():
    out = []
    for path in sorted(SUITE.glob("*.json")):
        for group in json.loads(path.read_text()):
            if not _structural_only(group["schema"]):
                continue
            for t in group["tests"]:
                out.append(pytest.param(group["schema"], t["data"], t["valid"],
                                        id=f"{path.stem}: {group['description']}: {t['description']}"))
    return out


@pytest.mark.parametrize(("schema", "data", "valid"), _suite_cases())
def test_json_schema_suite(schema, data, valid) -> None:
    assert (not validate_custom_resource(data, schema)) == valid


SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "required": ["image"], "properties": {
    "replicas": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 10},
    "ratio": {"type": "number", "exclusiveMaximum": True, "maximum": 1.5},
    "image": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5, "minLength": 2},
    "mode": {"type": "string", "enum": ["A", "B"], "default": "A"},
    "size": {"x-kubernetes-int-or-string": True},
    "when": {"type": "string", "format": "date-time"},
    "owner": {"type": "string", "format": "not-a-format"},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2, "x-kubernetes-list-type": "set"},
    "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
              "items": {"type": "object", "properties": {"port": {"type": "integer"},
                                                        "protocol": {"type": "string", "default": "TCP"}}}},
    "labels": {"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}},
    "closed": {"type": "object", "additionalProperties": False, "properties": {"a": {"type": "string"}}},
    "note": {"type": "string", "nullable": True},
}}}}


def _texts(obj) -> list[str]:
    return [e.error() for e in validate_custom_resource(obj, SCHEMA)]


@pytest.mark.parametrize(("spec", "want"), [
    # the example and typeFailWithData ("%s in %s must be of type %s: %q")
    ({"replicas": "string"}, 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type '
                             'integer: "string"'),
    ({"replicas": None}, 'spec.replicas: Invalid value: "null": spec.replicas in body must be of type integer: '
                         '"null"'),
    ({"replicas": 11}, "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"),
    ({"replicas": 0}, "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"),
    ({"ratio": 1.5}, "spec.ratio: Invalid value: 1.5: spec.ratio in body should be less than 1.5"),
    ({"image": "A1"}, "spec.image: Invalid value: \"A1\": spec.image in body should match '^[a-z]+$'"),
    ({"image": "a"}, 'spec.image: Invalid value: "a": spec.image in body should be at least 2 chars long'),
    ({"image": "abcdefg"}, "spec.image: Too long: may not be more than 5 bytes"),
    ({"mode": "C"}, 'spec.mode: Unsupported value: "C": supported values: "A", "B"'),
    ({"size": 1.5}, 'spec.size: Invalid value: "number": spec.size in body must be of type integer,string: '
                    '"number"'),
    ({"when": "yesterday"}, 'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: '
                            '"yesterday"'),
    ({"tags": ["a", "b", "c"]}, "spec.tags: Too many: 3: must have at most 2 items"),
    ({"labels": {"a": "1", "b": "2"}}, "spec.labels: Too many: 2: must have at most 1 item"),
    ({"closed": {"b": "x"}}, 'spec.closed: Invalid value: "b": spec.closed.b in body is a forbidden property'),
    ({"labels": {"a": 1}}, 'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: '
                           '"integer"'),
])
def test_error_texts_like_go(spec, want) -> None:
    spec = {"image": "ok", **spec}
    assert _texts({"spec": spec}) == [want]


def test_valid_values_pass_and_required_is_reported_last() -> None:
    good = {"spec": {"image": "abc", "replicas": 3, "size": "10%", "when": "2024-05-01T10:00:00Z", "ratio": 1.0,
                     "owner": "anything", "note": None, "tags": ["x"], "labels": {"a": "b"}}}
    assert _texts(good) == []
    assert _texts({"spec": {"replicas": "x"}})[-1] == "spec.image: Required value"
    assert [e.error() for e in validate_custom_resource({"spec": "x"}, SCHEMA)] == [
        'spec: Invalid value: "string": spec in body must be of type object: "string"']


def test_list_types_like_go() -> None:
    errs = validate_list_sets_and_maps(None, SCHEMA, {"spec": {
        "tags": ["a", "b", "a", "a"],
        "ports": [{"port": 80}, {"port": 80, "protocol": "UDP"}, {"port": 80}, 5]}})
    assert [e.error() for e in errs] == [
        "spec.ports[3]: Invalid value: 5: must be an object for an array of list-type map",
        'spec.tags[2]: Duplicate value: "a"']
    errs = validate_list_sets_and_maps(None, SCHEMA, {"spec": {"ports": [{"port": 80}, {"port": 80}]}})
    assert [e.error() for e in errs] == ['spec.ports[1]: Duplicate value: {"port":80}']


def test_defaults_like_go() -> None:
    obj = {"spec": {"image": "abc", "ports": [{"port": 80}, {"port": 81, "protocol": "UDP"}]}}
    default_custom_resource(obj, SCHEMA)
    assert obj["spec"]["mode"] == "A"
    assert obj["spec"]["ports"] == [{"port": 80, "protocol": "TCP"}, {"port": 81, "protocol": "UDP"}]
    # algorithm_test.go: non-nullable nulls are defaulted, nullable ones and present values kept.
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "default": "A"},
        "b": {"type": "string", "nullable": True, "default": "B"},
        "c": {"type": "string", "default": "C"},
        "m": {"type": "object", "additionalProperties": {"type": "string", "default": "X"}},
        "l": {"type": "array", "items": {"type": "string", "default": "I"}}}}
    obj = {"a": None, "b": None, "c": "c", "m": {"k": None}, "l": [None, "z"]}
    default_custom_resource(obj, schema)
    assert obj == {"a": "A", "b": None, "c": "c", "m": {"k": "X"}, "l": ["I", "z"]}
