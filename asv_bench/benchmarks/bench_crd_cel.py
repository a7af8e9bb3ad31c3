"""CRD validation rules (x-kubernetes-validations) evaluated with cel-python: the rules of
k8s.io/kubernetes test/integration/apiserver/crd_validation_expressions_test.go's
structuralSchemaWithValidators (five rules: root, string, map, map list, int-or-string)
on a valid object, on create (no old object) and on update (transition rules and
ratcheting see the old object). The validator is compiled in setup, as the server compiles
it once per CRD version. setup raises NotImplementedError (asv: skipped) without cel-python.
"""
from __future__ import annotations

from typing import Any

# _docs first: it puts this checkout on sys.path before kcodec is imported.
from ._docs import MODES, require_kcodec, use_mode

SCHEMA: dict[str, Any] = {
    "type": "object",
    "x-kubernetes-validations": [{"rule": "self.spec.x + self.spec.y >= (has(self.status) ? self.status.z : 0)"}],
    "properties": {
        "spec": {"type": "object", "properties": {
            "x": {"type": "integer"}, "y": {"type": "integer"},
            "extra": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('anything')"}]},
            "floatMap": {"type": "object", "additionalProperties": {"type": "number"},
                         "x-kubernetes-validations": [{"rule": "self.all(k, self[k] >= 0.2)"}]},
            "assocList": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                          "items": {"type": "object", "required": ["k"],
                                    "properties": {"k": {"type": "string"}, "v": {"type": "string"}}},
                          "x-kubernetes-validations": [{"rule": "self.exists(e, e.k == 'a' && e.v == '1')"}]},
            "limit": {"x-kubernetes-int-or-string": True,
                      "x-kubernetes-validations": [{"rule": "type(self) == int && self == 123"}]}}},
        "status": {"type": "object", "properties": {"z": {"type": "integer"}}}}}

OBJECT: dict[str, Any] = {
    "apiVersion": "mygroup.example.com/v1beta1", "kind": "Structural", "metadata": {"name": "cr-1"},
    "spec": {"x": 2, "y": 2, "extra": "anything?", "floatMap": {"key1": 0.2, "key2": 0.3},
             "assocList": [{"k": "a", "v": "1"}], "limit": 123}}


class CRDValidationRules:
    """Evaluate the five rules of one custom resource, on create and on update."""

    params = [MODES]
    param_names = ["mode"]

    def setup(self, mode: str) -> None:
        require_kcodec()
        use_mode(mode)
        from kcodec.api.apiextensions import cel

        if not cel.cel_available():
            raise NotImplementedError("cel-python is not installed")
        self.validator = cel.new_validator(SCHEMA, True)
        if self.validator.validate(OBJECT):
            raise RuntimeError("the benchmark object must be valid")

    def time_validate_create(self, mode: str) -> None:
        self.validator.validate(OBJECT)

    def time_validate_update(self, mode: str) -> None:
        self.validator.validate(OBJECT, OBJECT, ratchet=True)
