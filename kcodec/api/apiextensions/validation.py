"""Validation of CustomResourceDefinitions (Go: k8s.io/apiextensions-apiserver
``pkg/apis/apiextensions/validation/validation.go``), on internal objects.

What is checked: the object metadata (as every kind's), and the ``x-kubernetes-validations``
rules of every schema (``ValidateCustomResourceDefinitionOpenAPISchema``): rule, message,
messageExpression, reason and fieldPath, and that each rule compiles (with the CEL library,
``kcodec[cel]``; see :mod:`kcodec.api.apiextensions._cel` for how far its checks go), with
Go's field paths: ``spec.validation.openAPIV3Schema...`` when every version has the same
schema (the internal version keeps it once, there), else
``spec.versions[i].schema.openAPIV3Schema...``. The rest of Go's CRD validation (names,
versions, structural-schema rules) is not here yet.
"""
from __future__ import annotations

from typing import Any

from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_custom_resource_definition",
    "validate_custom_resource_definition_update",
    "validate_custom_resource_definition_rules",
]


def _schema_tree(props: Any) -> dict[str, Any] | None:
    """An internal JSONSchemaProps as the JSON tree of its v1 form."""
    if props is None:
        return None
    from kcodec.api.apiextensions import v1
    from kcodec.legacyscheme import scheme

    out = v1.JSONSchemaProps()
    scheme.convert(props, out)
    return out.to_dict()


def validate_custom_resource_definition_rules(crd: Any) -> ErrorList:
    """The x-kubernetes-validations errors of an internal CRD's schemas."""
    from kcodec.api.apiextensions import cel as _cel

    errs = ErrorList()
    spec = crd.spec
    top = spec.validation.open_apiv3_schema if spec.validation is not None else None
    if top is not None:
        tree = _schema_tree(top)
        if tree is not None:
            errs.extend(_cel.validate_schema_rules(tree, Path("spec", "validation", "openAPIV3Schema")))
    for i, version in enumerate(spec.versions or ()):
        schema = version.schema.open_apiv3_schema if version.schema is not None else None
        tree = _schema_tree(schema)
        if tree is not None:
            path = Path("spec", "versions").index(i).child("schema", "openAPIV3Schema")
            errs.extend(_cel.validate_schema_rules(tree, path))
    return errs


def validate_custom_resource_definition(crd: Any) -> ErrorList:
    """Go ``ValidateCustomResourceDefinition`` (the parts listed in the module docstring)."""
    errs = om.validate_object_meta(crd.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(validate_custom_resource_definition_rules(crd))
    return errs


def validate_custom_resource_definition_update(new: Any, old: Any) -> ErrorList:
    """Go ``ValidateCustomResourceDefinitionUpdate`` (the parts listed in the module docstring)."""
    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(validate_custom_resource_definition_rules(new))
    return errs
