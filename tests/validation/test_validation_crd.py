"""CustomResourceDefinition validation (kcodec.api.apiextensions.validation) against Go.

The cases are rebuilt from k8s.io/apiextensions-apiserver
pkg/apis/apiextensions/validation/validation_test.go (TestValidateCustomResourceDefinition,
TestValidateCustomResourceDefinitionUpdate: each case's name is kept) on the same internal
objects; as there, each expected error is its type and field path, and the errors must be
exactly these. Detail texts are validation.go's, pkg/apiserver/schema/validation.go's and
defaulting/validation.go's. Real CRDs (every apiextensions.k8s.io/v1 CRD of ../shared/corpus)
validate without errors.
"""
from __future__ import annotations

import json
from pathlib import Path as FsPath

import pytest
import yaml

from kcodec import legacyscheme
from kcodec.api.apiextensions import internal as ext
from kcodec.api.apiextensions import v1
from kcodec.api.apiextensions.validation import (validate_custom_resource_definition,
                                                 validate_custom_resource_definition_update, validate_structural)
from kcodec.api.meta import v1 as metav1
from kcodec.validation.field import Path

CORPUS = FsPath(__file__).resolve().parents[2].parent / "shared" / "corpus" / "files"


def _schema(tree):
    """An internal JSONSchemaProps from the JSON tree of its v1 form."""
    if tree is None:
        return None
    out = ext.JSONSchemaProps()
    legacyscheme.scheme.convert(v1.JSONSchemaProps.from_dict(tree), out)
    return out


def _version(name, storage=False, served=True, schema=None, **kw):
    v = ext.CustomResourceDefinitionVersion(name=name, served=served, storage=storage, **kw)
    if schema is not None:
        v.schema = ext.CustomResourceValidation(open_apiv3_schema=_schema(schema))
    return v


def _crd(name="plural.group.com", group="group.com", scope="Cluster", versions=None, validation=None,
         conversion="None", preserve=False, stored=("version",), names=None, accepted=None, **spec):
    """The base object of Go's cases: plural.group.com, Cluster scope, the plural/singular/
    Plural/PluralList names, one served storage version "version", conversion None,
    preserveUnknownFields false, an object schema at the top level."""
    if versions is None:
        versions = [_version("version", storage=True)]
    n = ext.CustomResourceDefinitionNames(plural="plural", singular="singular", kind="Plural", list_kind="PluralList")
    if names is not None:
        n = ext.CustomResourceDefinitionNames(**names)
    crd = ext.CustomResourceDefinition(metadata=metav1.ObjectMeta(name=name))
    crd.spec = ext.CustomResourceDefinitionSpec(group=group, scope=scope, names=n, versions=versions,
                                                preserve_unknown_fields=preserve, **spec)
    if validation is not None:
        crd.spec.validation = ext.CustomResourceValidation(open_apiv3_schema=_schema(validation))
    if conversion is not None:
        crd.spec.conversion = conversion if isinstance(conversion, ext.CustomResourceConversion) else \
            ext.CustomResourceConversion(strategy=conversion)
    crd.status = ext.CustomResourceDefinitionStatus(stored_versions=list(stored) if stored is not None else None)
    if accepted is not None:
        crd.status.accepted_names = ext.CustomResourceDefinitionNames(**accepted)
    return crd


OBJ = {"type": "object"}
TWO = lambda: [_version("version", storage=True), _version("version2")]  # noqa: E731


def _webhook(url=None, service=None, review=None):
    cc = ext.WebhookClientConfig(url=url, service=service)
    return ext.CustomResourceConversion(strategy="Webhook", webhook_client_config=cc, conversion_review_versions=review)


def _matches(errs):
    return sorted((e.type.description, e.field) for e in errs)


INV, REQ, FORB, UNSUP, TYPE, DUP, MANY = ("Invalid value", "Required value", "Forbidden", "Unsupported value",
                                          "Invalid value", "Duplicate value", "Too many")


def _exp(*pairs):
    return sorted(pairs)


CREATE_CASES = {
    "invalid types disallowed": (
        lambda: _crd(validation={"type": "object", "properties": {"foo": {"type": "bogus"}}}),
        _exp((UNSUP, "spec.validation.openAPIV3Schema.properties[foo].type"))),
    "webhookconfig: invalid port 0": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=_webhook(
            service=ext.ServiceReference(name="n", namespace="ns", port=0), review=["v1"])),
        _exp((INV, "spec.conversion.webhookClientConfig.service.port"))),
    "webhookconfig: invalid port 65536": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=_webhook(
            service=ext.ServiceReference(name="n", namespace="ns", port=65536), review=["v1"])),
        _exp((INV, "spec.conversion.webhookClientConfig.service.port"))),
    "webhookconfig: both service and URL provided": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=_webhook(
            url="https://example.com/webhook", service=ext.ServiceReference(name="n", namespace="ns", port=443),
            review=["v1"])),
        _exp((REQ, "spec.conversion.webhookClientConfig"))),
    "webhookconfig: blank URL": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=_webhook(url="", review=["v1"])),
        _exp((INV, "spec.conversion.webhookClientConfig.url"), (INV, "spec.conversion.webhookClientConfig.url"))),
    "webhookconfig_should_not_be_set": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=ext.CustomResourceConversion(
            strategy="None", webhook_client_config=ext.WebhookClientConfig(url="https://example.com/webhook"))),
        _exp((FORB, "spec.conversion.webhookClientConfig"))),
    "ConversionReviewVersions_should_not_be_set": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=ext.CustomResourceConversion(
            strategy="None", conversion_review_versions=["v1beta1"])),
        _exp((FORB, "spec.conversion.conversionReviewVersions"))),
    "webhookconfig: invalid ConversionReviewVersion": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=_webhook(
            url="https://example.com/webhook", review=["invalid-version"])),
        _exp((INV, "spec.conversion.conversionReviewVersions"))),
    "webhookconfig: invalid ConversionReviewVersion version string": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=_webhook(
            url="https://example.com/webhook", review=["0v"])),
        _exp((INV, "spec.conversion.conversionReviewVersions[0]"), (INV, "spec.conversion.conversionReviewVersions"))),
    "webhookconfig: at least one valid ConversionReviewVersion": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=_webhook(
            url="https://example.com/webhook", review=["invalid-version", "v1beta1"])),
        []),
    "webhookconfig: duplicate ConversionReviewVersion": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=_webhook(
            url="https://example.com/webhook", review=["v1beta1", "v1beta1"])),
        _exp((INV, "spec.conversion.conversionReviewVersions[1]"))),
    "missing_webhookconfig": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion=ext.CustomResourceConversion(strategy="Webhook")),
        _exp((REQ, "spec.conversion.webhookClientConfig"), (REQ, "spec.conversion.conversionReviewVersions"))),
    "invalid_conversion_strategy": (
        lambda: _crd(versions=TWO(), validation=OBJ, conversion="non_existing_conversion"),
        _exp((UNSUP, "spec.conversion.strategy"))),
    "none conversion without preserveUnknownFields=false": (
        lambda: _crd(versions=TWO(), validation=OBJ, preserve=None),
        []),
    "webhook conversion without preserveUnknownFields=false": (
        lambda: _crd(versions=TWO(), validation=OBJ, preserve=None, conversion=_webhook(
            url="https://example.com/webhook", review=["v1beta1"])),
        _exp((INV, "spec.conversion.strategy"))),
    "no_storage_version": (
        lambda: _crd(versions=[_version("version"), _version("version2")], validation=OBJ),
        _exp((INV, "spec.versions"))),
    "multiple_storage_version": (
        lambda: _crd(versions=[_version("version", storage=True), _version("version2", storage=True)], validation=OBJ),
        _exp((INV, "spec.versions"), (INV, "status.storedVersions"))),
    "missing_storage_version_in_stored_versions": (
        lambda: _crd(versions=[_version("version"), _version("version2", storage=True)], validation=OBJ),
        _exp((INV, "status.storedVersions"))),
    "empty_stored_version": (
        lambda: _crd(validation=OBJ, stored=()),
        _exp((INV, "status.storedVersions"))),
    "mismatched name": (
        lambda: _crd(name="plural.not.group.com", scope="", versions=[], conversion=None, stored=None,
                     names={"plural": "plural"}, validation=OBJ),
        _exp((INV, "status.storedVersions"), (INV, "metadata.name"), (INV, "spec.versions"), (REQ, "spec.scope"),
             (REQ, "spec.names.singular"), (REQ, "spec.names.kind"), (REQ, "spec.names.listKind"))),
    "missing values": (
        lambda: _crd(group="", scope="", versions=[], conversion=None, stored=None, preserve=None, names={}),
        _exp((INV, "status.storedVersions"), (INV, "metadata.name"), (INV, "spec.versions"), (REQ, "spec.group"),
             (REQ, "spec.scope"), (REQ, "spec.names.plural"), (REQ, "spec.names.singular"), (REQ, "spec.names.kind"),
             (REQ, "spec.names.listKind"))),
    "bad names 01": (
        lambda: _crd(name="plural.group", group="group", version="ve()*rsion", scope="foo", versions=[],
                     conversion=None, stored=None, validation=OBJ,
                     names={"plural": "pl()*ural", "singular": "value()*a", "kind": "value()*a",
                            "list_kind": "value()*a"},
                     accepted={"plural": "pl()*ural", "singular": "value()*a", "kind": "value()*a",
                               "list_kind": "value()*a"}),
        _exp((INV, "status.storedVersions"), (INV, "metadata.name"), (INV, "spec.group"), (UNSUP, "spec.scope"),
             (INV, "spec.names.plural"), (INV, "spec.names.singular"), (INV, "spec.names.kind"),
             (INV, "spec.names.listKind"), (INV, "spec.names.listKind"), (INV, "status.acceptedNames.plural"),
             (INV, "status.acceptedNames.singular"), (INV, "status.acceptedNames.kind"),
             (INV, "status.acceptedNames.listKind"), (INV, "status.acceptedNames.listKind"), (INV, "spec.versions"),
             (INV, "spec.version"))),
    "bad names 02": (
        lambda: _crd(name="plural.group", group="group.c(*&om", scope="", version="version",
                     names={"plural": "plural", "singular": "singular", "kind": "matching", "list_kind": "matching"},
                     accepted={"plural": "plural", "singular": "singular", "kind": "matching", "list_kind": "matching"},
                     validation=OBJ),
        _exp((INV, "metadata.name"), (INV, "spec.group"), (REQ, "spec.scope"), (INV, "spec.names.listKind"),
             (INV, "status.acceptedNames.listKind"))),
    "additionalProperties and properties forbidden": (
        lambda: _crd(validation={"type": "object", "properties": {"foo": {
            "type": "object", "properties": {"bar": OBJ}, "additionalProperties": False}}}),
        _exp((FORB, "spec.validation.openAPIV3Schema.properties[foo].additionalProperties"))),
    "additionalProperties without properties allowed (map[string]string)": (
        lambda: _crd(validation={"type": "object", "properties": {"foo": {
            "type": "object", "additionalProperties": {"type": "string"}}}}),
        []),
    "x-kubernetes-preserve-unknown-field: false": (
        lambda: _crd(validation={"x-kubernetes-preserve-unknown-fields": False}),
        _exp((INV, "spec.validation.openAPIV3Schema.x-kubernetes-preserve-unknown-fields"))),
    "schema is required": (
        lambda: _crd(versions=[_version("version", storage=True), _version("version2")]),
        _exp((REQ, "spec.versions[0].schema.openAPIV3Schema"), (REQ, "spec.versions[1].schema.openAPIV3Schema"))),
    "preserveUnknownFields: true": (
        lambda: _crd(validation=OBJ, preserve=True),
        _exp((INV, "spec.preserveUnknownFields"))),
    "x-kubernetes-embedded-resource with pruning and empty properties": (
        lambda: _crd(validation={"type": "object", "properties": {
            "nil": {"type": "object", "x-kubernetes-embedded-resource": True},
            "empty": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {}}}}),
        _exp((REQ, "spec.validation.openAPIV3Schema.properties[nil].properties"),
             (REQ, "spec.validation.openAPIV3Schema.properties[empty].properties"))),
    "invalid defaults with enabled feature gate, structural schema": (
        lambda: _crd(scope="Namespaced", validation={"type": "object", "properties": {
            "a": {"type": "object", "properties": {"foo": {"type": "string"}}, "default": {"foo": "abc", "bar": 42}},
            "b": {"type": "object", "properties": {"foo": {"type": "string"}}, "default": {"foo": "abc"}},
            "c": {"type": "object", "properties": {"foo": {"type": "string"}}, "default": {"foo": 42}},
            "d": {"type": "object", "properties": {"good": {"type": "string", "pattern": "a"},
                                                   "bad": {"type": "string", "pattern": "b"}},
                  "default": {"good": "a", "bad": "a"}},
            "e": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {
                "preserveUnknownFields": {"type": "object", "default": {"foo": "abc", "bar": 42}},
                "nestedProperties": {"type": "object", "properties": {"foo": {"type": "string"}},
                                     "default": {"foo": "abc", "bar": 42}}}},
            "embedded-fine": {"type": "object", "x-kubernetes-embedded-resource": True,
                              "properties": {"foo": {"type": "string"}},
                              "default": {"foo": "abc", "apiVersion": "foo/v1", "kind": "v1",
                                          "metadata": {"name": "foo"}}},
            "embedded-preserve": {"type": "object", "x-kubernetes-embedded-resource": True,
                                  "x-kubernetes-preserve-unknown-fields": True,
                                  "properties": {"foo": {"type": "string"}},
                                  "default": {"foo": "abc", "apiVersion": "foo/v1", "kind": "v1",
                                              "metadata": {"name": "foo"}, "bar": 42}}}}),
        _exp((INV, "spec.validation.openAPIV3Schema.properties[a].default"),
             (TYPE, "spec.validation.openAPIV3Schema.properties[c].default.foo"),
             (INV, "spec.validation.openAPIV3Schema.properties[d].default.bad"),
             (INV, "spec.validation.openAPIV3Schema.properties[e].properties[preserveUnknownFields].default"),
             (INV, "spec.validation.openAPIV3Schema.properties[e].properties[nestedProperties].default"))),
    "additionalProperties at resource root": (
        lambda: _crd(scope="Namespaced", validation={"type": "object", "properties": {
            "embedded1": {"type": "object", "x-kubernetes-embedded-resource": True,
                          "additionalProperties": {"type": "string"}},
            "embedded2": {"type": "object", "x-kubernetes-embedded-resource": True,
                          "x-kubernetes-preserve-unknown-fields": True, "additionalProperties": {"type": "string"}}}}),
        _exp((FORB, "spec.validation.openAPIV3Schema.properties[embedded1].additionalProperties"),
             (REQ, "spec.validation.openAPIV3Schema.properties[embedded1].properties"),
             (FORB, "spec.validation.openAPIV3Schema.properties[embedded2].additionalProperties"))),
    "top-level metadata default": (
        lambda: _crd(versions=[_version("v1", storage=True)], stored=("v1",), validation={
            "type": "object", "properties": {"metadata": {"type": "object", "default": {"name": "foo"}}}}),
        _exp((FORB, "spec.validation.openAPIV3Schema.properties[metadata].default"))),
    "selectableFields with jsonPaths that do not refer to a field in the schema are invalid": (
        lambda: _crd(versions=[
            _version("version", storage=True, schema={"type": "object", "properties": {"foo": {"type": "string"}},
                                                      "required": ["foo"]},
                     selectable_fields=[ext.SelectableField(json_path=".foo"), ext.SelectableField(json_path=".xyz")]),
            _version("version2", schema={"type": "object", "properties": {"foo": {"type": "integer"}},
                                         "required": ["foo"]},
                     selectable_fields=[ext.SelectableField(json_path=p) for p in (".xyz", ".foo", ".abc")])]),
        _exp((INV, "spec.versions[0].selectableFields[1].jsonPath"), (INV, "spec.versions[1].selectableFields[0].jsonPath"),
             (INV, "spec.versions[1].selectableFields[2].jsonPath"))),
    "selectableFields with duplicate jsonPaths are invalid": (
        lambda: _crd(validation={"type": "object", "properties": {"foo": {"type": "string"}}},
                     selectable_fields=[ext.SelectableField(json_path=".foo"), ext.SelectableField(json_path=".foo")]),
        _exp((DUP, "spec.selectableFields[1].jsonPath"))),
    "too many selectableFields are not allowed": (
        lambda: _crd(validation={"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(9)}},
                     selectable_fields=[ext.SelectableField(json_path=f".f{i}") for i in range(9)]),
        _exp((MANY, "spec.selectableFields"))),
}


@pytest.mark.parametrize("name", sorted(CREATE_CASES))
def test_validate_custom_resource_definition_go_cases(name) -> None:
    build, expected = CREATE_CASES[name]
    assert _matches(validate_custom_resource_definition(build())) == expected


def test_per_version_identical_values() -> None:
    """Go case "per-version fields may not all be set to identical values (top-level field
    should be used instead)": three errors at spec.versions (schema, subresources, columns),
    built on internal objects directly (the v1 conversion would hoist identical schemas)."""
    schema = {"type": "object", "properties": {"spec": {"type": "object"}, "status": {"type": "object"}}}
    cols = [ext.CustomResourceColumnDefinition(name="Alpha", type="string", json_path=".spec.alpha")]
    versions = [_version(n, storage=n == "version", schema=schema, subresources=ext.CustomResourceSubresources(),
                         additional_printer_columns=list(cols)) for n in ("version", "version2")]
    errs = validate_custom_resource_definition(_crd(versions=versions))
    assert _matches(errs) == [(INV, "spec.versions")] * 3
    assert sorted(e.detail for e in errs) == [
        "per-version additionalPrinterColumns may not all be set to identical values (top-level "
        "additionalPrinterColumns should be used instead)",
        "per-version schemas may not all be set to identical values (top-level validation should be used instead)",
        "per-version subresources may not all be set to identical values (top-level subresources should be used "
        "instead)"]


def test_go_texts() -> None:
    """The detail texts of the most common refusals, as Go prints them."""
    crd = _crd(name="x.group.com", versions=[_version("version"), _version("version2")], validation={
        "type": "object", "properties": {"spec": {"properties": {"a": {"type": "string"}}}}})
    texts = [str(e) for e in validate_custom_resource_definition(crd)]
    assert 'metadata.name: Invalid value: "x.group.com": must be spec.names.plural+"."+spec.group' in texts
    assert ("spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified "
            "object fields") in texts
    assert any(t.startswith("spec.versions: Invalid value: ") and t.endswith(
        ": must have exactly one version marked as storage version") for t in texts)
    group = _crd(name="plural.group", group="group", validation=OBJ)
    assert 'spec.group: Invalid value: "group": should be a domain with at least one dot' in [
        str(e) for e in validate_custom_resource_definition(group)]


def test_status_subresource_root_fields() -> None:
    """validateCustomResourceDefinitionValidation: with the status subresource only the
    listed fields may sit at the root (Go prints the field names' list)."""
    crd = _crd(validation={"type": "object", "additionalProperties": {"type": "string"}},
               subresources=ext.CustomResourceSubresources(status=ext.CustomResourceSubresourceStatus()))
    errs = validate_custom_resource_definition(crd)
    details = [(e.field, e.detail) for e in errs]
    assert ("spec.validation.openAPIV3Schema", "only [Description Type Format Title Maximum ExclusiveMaximum Minimum "
            "ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items "
            "Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of "
            "the schema if the status subresource is enabled") in details
    assert ("spec.validation.openAPIV3Schema.additionalProperties", "must not be used at the root") in details


def test_structural_schema_rules() -> None:
    """pkg/apiserver/schema validation_test.go-style cases of ValidateStructural."""
    assert _matches(validate_structural(Path("s"), {"type": "object", "properties": {
        "a": {"type": "array"}, "b": {}, "c": {"x-kubernetes-int-or-string": True},
        "d": {"x-kubernetes-preserve-unknown-fields": True}}})) == _exp(
        (REQ, "s.properties[a].items"), (REQ, "s.properties[b].type"))
    errs = validate_structural(Path("s"), {"type": "object", "properties": {"a": {"type": "string"}},
                                           "anyOf": [{"type": "string", "properties": {"b": {}}}]})
    assert _matches(errs) == _exp((FORB, "s.anyOf[0].type"), (REQ, "s.properties[b]"))
    # the int-or-string pattern of anyOf types is allowed
    assert not validate_structural(Path("s"), {"type": "object", "properties": {"p": {
        "x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}}})
    meta = validate_structural(Path("s"), {"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string"}, "labels": {"type": "object"}}}}})
    assert [str(e) for e in meta] == ["s.properties[metadata]: Forbidden: must not specify anything other than name "
                                      "and generateName, but metadata is implicitly specified"]
    assert not validate_structural(Path("s"), {"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 5}}}}})


UPDATE_CASES = {
    "invalid types updates disallowed": (
        lambda: _crd(validation={"type": "object", "properties": {"foo": {"type": "bogus"}}}),
        lambda: _crd(validation={"type": "object", "properties": {"foo": {"type": "string"}}}),
        _exp((UNSUP, "spec.validation.openAPIV3Schema.properties[foo].type"))),
    "invalid types updates allowed if old object has invalid types": (
        lambda: _crd(validation={"type": "object", "properties": {"foo": {"type": "bogus2"}}}),
        lambda: _crd(validation={"type": "object", "properties": {"foo": {"type": "bogus"}}}),
        []),
    "structural to non-structural updates not allowed": (
        lambda: _crd(validation={"type": "object", "properties": {"foo": {}}}),
        lambda: _crd(validation={"type": "object", "properties": {"foo": {"type": "string"}}}),
        _exp((REQ, "spec.validation.openAPIV3Schema.properties[foo].type"))),
    "switch to preserveUnknownFields: true is forbidden": (
        lambda: _crd(validation=OBJ, preserve=True),
        lambda: _crd(validation=OBJ),
        _exp((INV, "spec.preserveUnknownFields"))),
    "keep preserveUnknownFields: true is allowed": (
        lambda: _crd(validation=OBJ, preserve=True),
        lambda: _crd(validation=OBJ, preserve=True),
        []),
    "reject non-atomic items in lists of type set if not pre-existing": (
        lambda: _crd(validation={"type": "object", "properties": {"set": {
            "type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}}}}),
        lambda: _crd(validation=OBJ),
        _exp((INV, "spec.validation.openAPIV3Schema.properties[set].items.x-kubernetes-map-type"))),
    "non-atomic items in lists of type set allowed if pre-existing": (
        lambda: _crd(validation={"type": "object", "properties": {"set": {
            "type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}}}}),
        lambda: _crd(validation={"type": "object", "properties": {"set": {
            "type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}}}}),
        []),
}


@pytest.mark.parametrize("name", sorted(UPDATE_CASES))
def test_validate_custom_resource_definition_update_go_cases(name) -> None:
    new, old, expected = UPDATE_CASES[name]
    n, o = new(), old()
    n.metadata.resource_version = o.metadata.resource_version = "1"
    assert _matches(validate_custom_resource_definition_update(n, o)) == expected


def test_update_immutable_names() -> None:
    """validateCustomResourceDefinitionSpecUpdate: group and plural are always immutable;
    scope and kind once the CRD is Established (Go cases "changes", "changes-established")."""
    old = _crd(validation=OBJ)
    old.metadata.resource_version = "1"
    new = _crd(validation=OBJ, scope="Namespaced", names={"plural": "plural", "singular": "singular",
                                                          "kind": "Plural2", "list_kind": "PluralList"})
    new.metadata.resource_version = "1"
    assert _matches(validate_custom_resource_definition_update(new, old)) == []
    old.status.conditions = [ext.CustomResourceDefinitionCondition(type="Established", status="True")]
    assert _matches(validate_custom_resource_definition_update(new, old)) == _exp(
        (INV, "spec.scope"), (INV, "spec.names.kind"))
    moved = _crd(name="plural.group2.com", group="group2.com", validation=OBJ)
    moved.metadata.name = "plural.group.com"
    moved.metadata.resource_version = "1"
    assert (INV, "spec.group") in _matches(validate_custom_resource_definition_update(moved, old))


def _corpus_crds():
    for path in sorted(CORPUS.rglob("*.y*ml")):
        text = path.read_text(errors="replace")
        if "kind: CustomResourceDefinition" not in text:
            continue
        for doc in yaml.safe_load_all(text):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition" and \
                    doc.get("apiVersion") == "apiextensions.k8s.io/v1":
                yield f"{path.name}:{doc['metadata']['name']}", doc


def test_corpus_v1_crds_are_valid() -> None:
    """Every apiextensions.k8s.io/v1 CRD of the corpus, decoded and defaulted as the server
    decodes it, with the storedVersions PrepareForCreate records, validates (the v1beta1
    ones use preserveUnknownFields and non-structural schemas, which Go refuses too)."""
    decoder = legacyscheme.codecs.universal_decoder()
    seen = 0
    for name, doc in _corpus_crds():
        crd, _ = decoder.decode(json.dumps(doc, default=str).encode())
        crd.status.stored_versions = [v.name for v in crd.spec.versions if v.storage]
        assert [str(e) for e in validate_custom_resource_definition(crd)] == [], name
        seen += 1
    assert seen >= 5


def test_strategy_warnings() -> None:
    """registry/customresourcedefinition strategy.go WarningsOnCreate / WarningsOnUpdate:
    unrecognized formats (formats.go GetUnrecognizedFormats; on update only new ones) and
    sets of non-scalar items."""
    from kcodec.api.apiextensions.validation import warnings_for_custom_resource_definition as warnings

    schema = {"type": "object", "properties": {
        "a": {"type": "string", "format": "k8s-short-name"}, "b": {"type": "string", "format": "bogus"},
        "c": {"type": "integer", "format": "int32"}, "d": {"type": "number", "format": "int32"},
        "e": {"type": "string", "format": "date-time"},
        "s": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object",
                                                                          "x-kubernetes-map-type": "atomic"}}}}
    crd = _crd(validation=schema)
    assert warnings(crd) == ['unrecognized format "bogus"', 'unrecognized format "int32"',
                             'x-kubernetes-list-type: set for items of type "object" is not supported by server-side '
                             "apply or CEL validation rules"]
    assert warnings(crd, _crd(validation=schema)) == []
    newer = _crd(validation={**schema, "properties": {**schema["properties"], "f": {"type": "string", "format": "x"}}})
    assert warnings(newer, crd) == ['unrecognized format "x"']


def test_defaults_run_the_schema_rules() -> None:
    """defaulting/validation.go: a default that passes the schema is checked against the
    x-kubernetes-validations of its node (CEL, kcodec[cel])."""
    pytest.importorskip("celpy", reason="cel-python (kcodec[cel]) is not installed")
    crd = _crd(validation={"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"n": {"type": "integer"}}, "default": {"n": 1},
        "x-kubernetes-validations": [{"rule": "self.n > 2", "message": "n must be more than 2"}]}}})
    assert [str(e) for e in validate_custom_resource_definition(crd)] == [
        "spec.validation.openAPIV3Schema.properties[spec].default: Invalid value: n must be more than 2"]


def _ca_crd(ca_bundle, established):
    crd = _crd(versions=TWO(), validation=OBJ, conversion=_webhook(url="https://example.com/webhook",
                                                                   review=["v1"]))
    crd.spec.conversion.webhook_client_config.ca_bundle = ca_bundle
    crd.metadata.resource_version = "42"
    if established:
        crd.status.conditions = [ext.CustomResourceDefinitionCondition(type="Established", status="True")]
    return crd


def _example_cert() -> bytes:
    from kcodec.server.runner import self_signed_certificate

    return self_signed_certificate("example.com")[0]


def test_ca_bundle_ratcheting() -> None:
    """Go cases "webhookconfig: invalid CABundle should be allowed on Create", "... existing
    invalid CABundle update should pass", "... existing valid CABundle should be able to
    transition to invalid pre-serving", "... update to invalid CABundle should fail if
    existing is valid" (webhook.ValidateCABundle, allowInvalidCABundle)."""
    bad, good = b"Cg==", _example_cert()
    assert _matches(validate_custom_resource_definition(_ca_crd(bad, False))) == []
    assert _matches(validate_custom_resource_definition_update(_ca_crd(bad, True), _ca_crd(bad, True))) == []
    assert _matches(validate_custom_resource_definition_update(_ca_crd(bad, False), _ca_crd(good, False))) == []
    errs = validate_custom_resource_definition_update(_ca_crd(bad, True), _ca_crd(good, True))
    assert _matches(errs) == [(INV, "spec.conversion.webhookClientConfig.caBundle")]
    assert errs[0].detail == "data does not contain any valid RSA or ECDSA certificates"
    assert _matches(validate_custom_resource_definition_update(_ca_crd(good, True), _ca_crd(good, True))) == []


def test_api_approval_of_protected_groups() -> None:
    """validateAPIApproval (apihelpers.GetAPIApprovalState): *.k8s.io and *.kubernetes.io
    groups need the api-approved.kubernetes.io annotation, a URL or "unapproved..."."""
    def crd(annotation):
        c = _crd(name="plural.example.k8s.io", group="example.k8s.io", validation=OBJ)
        if annotation is not None:
            c.metadata.annotations = {"api-approved.kubernetes.io": annotation}
        return c

    missing = validate_custom_resource_definition(crd(None))
    assert [str(e) for e in missing] == [
        'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval '
        'annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111']
    assert _matches(validate_custom_resource_definition(crd("garbage"))) == [
        (INV, "metadata.annotations[api-approved.kubernetes.io]")]
    assert not validate_custom_resource_definition(crd("https://github.com/kubernetes/kubernetes/pull/78458"))
    assert not validate_custom_resource_definition(crd("unapproved, experimental-only"))
    # an update that keeps the old state is not re-checked
    old = crd("garbage")
    old.metadata.resource_version = new_rv = "1"
    new = crd("garbage")
    new.metadata.resource_version = new_rv
    assert not validate_custom_resource_definition_update(new, old)


def _emb(props=None, default=None, preserve=False):
    s = {"type": "object", "x-kubernetes-embedded-resource": True,
         "properties": props if props is not None else {"something": {"type": "string"}}}
    if preserve:
        s["x-kubernetes-preserve-unknown-fields"] = True
    if default is not None:
        s["default"] = default
    return s


def _meta_props(name=None, labels=None, annotations=None):
    props = {}
    if name is not None:
        props["name"] = name
    if labels is not None:
        props["labels"] = {"type": "object", "additionalProperties": {"type": "string"}, **labels}
    if annotations is not None:
        props["annotations"] = {"type": "object", "additionalProperties": {"type": "string"}, **annotations}
    return {"type": "object", "properties": props}


def test_embedded_metadata_defaults() -> None:
    """A subset of Go's case "embedded metadata defaults" (defaulting/validation.go with
    objectmeta.Coerce and objectmeta.Validate): defaults inside an embedded resource's
    apiVersion, kind and metadata are checked in the object they build; object defaults
    must carry valid TypeMeta and ObjectMeta; unknown fields are refused outside metadata."""
    s = {"type": "string"}
    schema = {"type": "object", "properties": {
        "allowed-in-object-defaults": _emb({
            "apiVersion": {**s, "default": "v1"}, "kind": {**s, "default": "Pod"},
            "metadata": _meta_props(name={**s, "default": "foo"})}),
        "allowed-object-defaults": _emb(default={"apiVersion": "v1", "kind": "Pod",
                                                 "metadata": {"name": "foo", "unknown": 42}}),
        "unknown-field-object-defaults": _emb(default={"apiVersion": "v1", "kind": "Pod",
                                                       "metadata": {"name": "foo", "unknown": 42}, "unknown": 42}),
        "x-preserve-unknown-fields-unknown-field-object-defaults": _emb(
            preserve=True, default={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "foo"}, "unknown": 42}),
        "wrongly-typed-in-object-defaults": _emb({
            "apiVersion": {**s, "default": 42}, "kind": {**s, "default": 42},
            "metadata": _meta_props(name={**s, "default": 42}, annotations={"default": 42})}),
        "wrongly-typed-object-defaults-apiVersion": _emb(default={"apiVersion": 42}),
        "wrongly-typed-object-defaults-name": _emb(default={"metadata": {"name": 42}}),
        "wrongly-typed-object-defaults-labels": _emb(default={"metadata": {"labels": {"foo": 42}}}),
        "wrongly-typed-object-defaults-metadata": _emb(default={"metadata": 42}),
        "wrongly-typed-spanning-object-defaults-kind": {
            "type": "object", "properties": {"embedded": _emb()}, "default": {"embedded": {"kind": 42}}},
        "invalid-in-object-defaults": _emb({
            "kind": {**s, "default": "%"},
            "metadata": _meta_props(name={**s, "default": "%"}, labels={"default": {"foo": "x y"}})}),
        "invalid-object-defaults-kind": _emb(default={"apiVersion": "foo/v1", "kind": "%"}),
        "invalid-object-defaults-name": _emb(default={"apiVersion": "foo/v1", "kind": "Foo",
                                                      "metadata": {"name": "%"}}),
        "invalid-object-defaults-labels": _emb(default={"apiVersion": "foo/v1", "kind": "Foo",
                                                        "metadata": {"labels": {"foo": "x y"}}}),
        "in-object-defaults-with-invalid-constraints": _emb({
            "apiVersion": {**s, "default": "bar/v1", "enum": ["foo/v1"]},
            "kind": {**s, "default": "Bar", "enum": ["Foo"]},
            "metadata": _meta_props(name={**s, "default": "bar", "enum": ["foo"]},
                                    labels={"additionalProperties": {**s, "enum": ["foo"]},
                                            "default": {"foo": "bar"}})}),
        "object-defaults-with-missing-typemeta": _emb(
            {"apiVersion": {**s, "enum": ["foo/v1"]}, "kind": {**s, "enum": ["Foo"]}},
            default={"metadata": {"name": "bar"}}),
    }}
    crd = _crd(scope="Namespaced", versions=[_version("v1", storage=True)], stored=("v1",), validation=schema)
    p = "spec.validation.openAPIV3Schema.properties"
    assert _matches(validate_custom_resource_definition(crd)) == _exp(
        (INV, f"{p}[unknown-field-object-defaults].default"),
        (INV, f"{p}[wrongly-typed-in-object-defaults].properties[kind].default"),
        (INV, f"{p}[wrongly-typed-in-object-defaults].properties[apiVersion].default"),
        (INV, f"{p}[wrongly-typed-in-object-defaults].properties[metadata].properties[name].default"),
        (INV, f"{p}[wrongly-typed-in-object-defaults].properties[metadata].properties[annotations].default"),
        (INV, f"{p}[wrongly-typed-object-defaults-apiVersion].default.apiVersion"),
        (INV, f"{p}[wrongly-typed-object-defaults-name].default.metadata"),
        (INV, f"{p}[wrongly-typed-object-defaults-labels].default.metadata"),
        (INV, f"{p}[wrongly-typed-object-defaults-metadata].default.metadata"),
        (INV, f"{p}[wrongly-typed-spanning-object-defaults-kind].default.embedded.kind"),
        (INV, f"{p}[invalid-in-object-defaults].properties[metadata].properties[name].default"),
        (INV, f"{p}[invalid-in-object-defaults].properties[metadata].properties[labels].default"),
        (INV, f"{p}[invalid-in-object-defaults].properties[kind].default"),
        (INV, f"{p}[invalid-object-defaults-kind].default.kind"),
        (INV, f"{p}[invalid-object-defaults-name].default.metadata.name"),
        (INV, f"{p}[invalid-object-defaults-labels].default.metadata.labels"),
        (UNSUP, f"{p}[in-object-defaults-with-invalid-constraints].properties[apiVersion].default"),
        (UNSUP, f"{p}[in-object-defaults-with-invalid-constraints].properties[kind].default"),
        (UNSUP, f"{p}[in-object-defaults-with-invalid-constraints].properties[metadata].properties[name].default"),
        (UNSUP, f"{p}[in-object-defaults-with-invalid-constraints].properties[metadata].properties[labels].default.foo"),
        (REQ, f"{p}[object-defaults-with-missing-typemeta].default.apiVersion"),
        (REQ, f"{p}[object-defaults-with-missing-typemeta].default.kind"))
    texts = [str(e) for e in validate_custom_resource_definition(crd)]
    assert (f"{p}[wrongly-typed-object-defaults-name].default.metadata: Invalid value: "
            '{"name":42}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string') in texts
    assert (f'{p}[invalid-in-object-defaults].properties[kind].default: Invalid value: "%": must result in valid '
            'metadata: kind: Invalid value: "%": may have mixed case, but should otherwise match: a DNS-1035 label '
            "must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end "
            "with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
            "'[a-z]([-a-z0-9]*[a-z0-9])?')") in texts


def test_update_version_deleted_while_stored() -> None:
    """Go update case "version-deleted": a version still in status.storedVersions may not
    leave spec.versions (ValidateCustomResourceDefinitionStoredVersions)."""
    old = _crd(versions=TWO(), validation=OBJ, stored=("version", "version2"))
    new = _crd(validation=OBJ, stored=("version", "version2"))
    old.metadata.resource_version = new.metadata.resource_version = "1"
    errs = validate_custom_resource_definition_update(new, old)
    assert [str(e) for e in errs] == [
        'status.storedVersions[1]: Invalid value: "version2": missing from spec.versions; version2 was previously a '
        "storage version, and must remain in spec.versions until a storage migration ensures no data remains "
        "persisted in version2 and removes version2 from status.storedVersions"]


def _zero_opts(**kw):
    from kcodec.api.apiextensions.validation import _Options

    base = dict(allow_defaults=False, require_recognized_conversion_review_version=False, require_open_api_schema=False,
                require_valid_property_type=False, require_structural_schema=False, require_pruned_defaults=False,
                require_atomic_set_type=False, require_map_list_keys_map_set_validation=False)
    base.update(kw)
    return _Options(**base)


V = "spec.validation.openAPIV3Schema"
VALIDATION_CASES = {
    # name: (schema tree, status enabled, options, expected)
    "empty with status": (None, True, {}, []),
    "root type without status": ({"type": "string"}, False, {}, []),
    "root type having invalid value, with status": ({"type": "string"}, True, {}, [(INV, f"{V}.type")]),
    "non-allowed root field with status": (
        {"anyOf": [{"description": "First schema"}, {"description": "Second schema"}]}, True, {}, [(INV, V)]),
    "null type": ({"properties": {"null": {"type": "null"}}}, False, {}, [(FORB, f"{V}.properties[null].type")]),
    "nullable at the root": ({"type": "object", "nullable": True}, False, {}, [(FORB, f"{V}.nullable")]),
    "nullable without type": ({"properties": {"nullable": {"nullable": True}}}, False, {}, []),
    "must be structural, but isn't": ({}, False, {"require_structural_schema": True}, [(REQ, f"{V}.type")]),
    "must be structural": ({"type": "object"}, False, {"require_structural_schema": True}, []),
    "require valid types, invalid null": (
        {"type": "null"}, False, {"require_valid_property_type": True, "require_structural_schema": True},
        _exp((UNSUP, f"{V}.type"), (FORB, f"{V}.type"), (INV, f"{V}.type"))),
    "require valid types, invalid bogus": (
        {"type": "bogus"}, False, {"require_valid_property_type": True, "require_structural_schema": True},
        _exp((UNSUP, f"{V}.type"), (INV, f"{V}.type"))),
    "invalid type with list type extension set": (
        {"type": "object", "x-kubernetes-list-type": "set"}, False, {}, [(INV, f"{V}.type")]),
    "unset type with list type extension set": ({"x-kubernetes-list-type": "set"}, False, {}, [(REQ, f"{V}.type")]),
    "invalid list type extension": (
        {"type": "array", "x-kubernetes-list-type": "invalid"}, False, {},
        [(UNSUP, f"{V}.x-kubernetes-list-type")]),
    "invalid list type extension with list map keys extension non-empty": (
        {"type": "array", "x-kubernetes-list-type": "set", "x-kubernetes-list-map-keys": ["key"]}, False, {},
        [(INV, f"{V}.x-kubernetes-list-type")]),
    "unset list type extension with list map keys extension non-empty": (
        {"x-kubernetes-list-map-keys": ["key"]}, False, {}, [(REQ, f"{V}.x-kubernetes-list-type")]),
}


@pytest.mark.parametrize("name", sorted(VALIDATION_CASES))
def test_validate_custom_resource_definition_validation_go_cases(name) -> None:
    """TestValidateCustomResourceDefinitionValidation: one CustomResourceValidation with the
    case's validationOptions (Go's zero options unless the case sets some)."""
    from kcodec.api.apiextensions.validation import _validation

    tree, status, opts, expected = VALIDATION_CASES[name]
    value = ext.CustomResourceValidation(open_apiv3_schema=_schema(tree))
    errs = _validation(value, status, _zero_opts(**opts), Path("spec", "validation"))
    assert _matches(errs) == sorted(expected)


def test_too_many_selectable_fields_ratcheting() -> None:
    """Go update cases "ratcheting: top level schema: too many selectableFields are (not)
    allowed if existing CRD has (different|same) selectableFields" (findTooManySelectableFieldsAllowed)."""
    def crd(n):
        c = _crd(validation={"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(10)}},
                 selectable_fields=[ext.SelectableField(json_path=f".f{i}") for i in range(n)])
        c.metadata.resource_version = "1"
        return c

    assert _matches(validate_custom_resource_definition_update(crd(9), crd(9))) == []
    assert _matches(validate_custom_resource_definition_update(crd(10), crd(9))) == [(MANY, "spec.selectableFields")]
    errs = validate_custom_resource_definition(crd(9))
    assert [str(e) for e in errs] == ["spec.selectableFields: Too many: 9: must have at most 8 items"]


FIXTURES = FsPath(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "apiextensions-apiserver-v0.36.3"


@pytest.mark.parametrize("name", [f"apiextensions.k8s.io.{v}.CustomResourceDefinition.{ext_}"
                                  for v in ("v1", "v1beta1") for ext_ in ("json", "yaml", "pb")])
def test_fuzzed_fixtures_are_refused_field_by_field(name) -> None:
    """The roundtrip fixtures fill every field with placeholder values ("nameValue",
    "typeValue", ...): decoded in each wire format, validation reports them as Go's
    validation does, field by field, on create and on update, without failing."""
    path = FIXTURES / "HEAD" / name
    if not path.exists():
        pytest.skip(f"{path} is not present")
    crd, _ = legacyscheme.codecs.universal_decoder().decode(path.read_bytes())
    texts = [str(e) for e in validate_custom_resource_definition(crd)]
    assert 'metadata.name: Invalid value: "nameValue": must be spec.names.plural+"."+spec.group' in texts
    assert 'spec.scope: Unsupported value: "scopeValue": supported values: "Cluster", "Namespaced"' in texts
    assert any(t.startswith("spec.additionalPrinterColumns[0].type: Invalid value") or
               t.startswith("spec.versions[0].additionalPrinterColumns[0].type: Invalid value") for t in texts)
    old = legacyscheme.codecs.universal_decoder().decode(path.read_bytes())[0]
    assert validate_custom_resource_definition_update(crd, old)


def test_rules_forbidden_under_value_validations() -> None:
    """Go case "x-kubernetes-validations should be forbidden under oneOf/anyOf/allOf/not,
    structural schema": four structural errors, and no rule is compiled (Go builds no CEL
    context over a schema that is not structural)."""
    rule = [{"rule": "should be forbidden"}]
    crd = _crd(validation={"type": "object", "properties": {"a": {
        "type": "object", "not": {"x-kubernetes-validations": rule}, "anyOf": [{"x-kubernetes-validations": rule}],
        "allOf": [{"x-kubernetes-validations": rule}], "oneOf": [{"x-kubernetes-validations": rule}]}}})
    a = "spec.validation.openAPIV3Schema.properties[a]"
    assert _matches(validate_custom_resource_definition(crd)) == _exp(
        (FORB, f"{a}.not.x-kubernetes-validations"), (FORB, f"{a}.allOf[0].x-kubernetes-validations"),
        (FORB, f"{a}.anyOf[0].x-kubernetes-validations"), (FORB, f"{a}.oneOf[0].x-kubernetes-validations"))


def test_default_inside_additional_properties_of_metadata() -> None:
    """Go case "default inside additionalSchema": no default under additionalProperties
    inside an embedded resource's metadata."""
    crd = _crd(scope="Namespaced", versions=[_version("v1", storage=True)], stored=("v1",), validation={
        "type": "object", "properties": {"embedded": _emb({"metadata": {"type": "object", "properties": {
            "annotations": {"type": "object", "additionalProperties": {"type": "string", "default": "abc"}}}}})}})
    errs = validate_custom_resource_definition(crd)
    assert [str(e) for e in errs] == [
        "spec.validation.openAPIV3Schema.properties[embedded].properties[metadata].properties[annotations]"
        ".additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object "
        "metadata"]


def test_contradicting_meta_field_types() -> None:
    """Go case "contradicting meta field types" (validateStructuralInvariants and
    validateStructuralMetadataInvariants)."""
    def meta(t):
        return {"type": t, "properties": {"name": {"type": "string", "pattern": "abc"},
                                          "generateName": {"type": "string", "pattern": "abc"},
                                          "generation": {"type": "integer", "minimum": 42}}}

    bad = {"apiVersion": {"type": "number"}, "kind": {"type": "number"}, "metadata": meta("number")}
    crd = _crd(scope="Namespaced", validation={"type": "object", "properties": {
        **bad,
        "valid": _emb({"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": meta("object")}),
        "invalid": _emb(dict(bad)),
        "nested": _emb({"invalid": _emb(dict(bad))}),
        "noEmbeddedObject": {"type": "object", "properties": {
            "apiVersion": {"type": "number"}, "kind": {"type": "number"}, "metadata": {"type": "number"}}}}})
    v = "spec.validation.openAPIV3Schema"
    assert _matches(validate_custom_resource_definition(crd)) == _exp(
        (FORB, f"{v}.properties[metadata]"),
        *[(INV, f"{v}.{p}properties[{k}].type") for p in ("", "properties[invalid].",
                                                         "properties[nested].properties[invalid].")
          for k in ("apiVersion", "kind", "metadata")])


@pytest.mark.parametrize("deprecated,warning,details", [
    (False, "use v2", ["can only be set for deprecated versions"]),
    (True, "", ["must not be an empty string"]),
    (True, "x" * 257, ["must be <= 256 characters long"]),
    (True, "é\tx", ["must only contain printable UTF-8 characters; non-printable character found at index 2"]),
    (True, "use v2 instead", []),
])
def test_deprecation_warning(deprecated, warning, details) -> None:
    """validateDeprecationWarning (byte lengths and byte indexes, as Go's)."""
    crd = _crd(validation=OBJ, versions=[_version("version", storage=True, deprecated=deprecated,
                                                  deprecation_warning=warning)])
    errs = validate_custom_resource_definition(crd)
    assert [(e.field, e.detail) for e in errs] == [("spec.versions[0].deprecationWarning", d) for d in details]


@pytest.mark.parametrize("pattern,message", [
    ("(", "error parsing regexp: missing closing ): `(`"),
    ("a**", "error parsing regexp: invalid nested repetition operator: `**`"),
    ("[z-a]", "error parsing regexp: invalid character class range: `z-a`"),
])
def test_invalid_pattern(pattern, message) -> None:
    """validateValueValidation: a pattern must compile as Go's regexp (RE2) compiles it."""
    pytest.importorskip("re2", reason="google-re2 (with kcodec[cel]) gives RE2's parser")
    crd = _crd(validation={"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}})
    assert [str(e) for e in validate_custom_resource_definition(crd)] == [
        f"spec.validation.openAPIV3Schema.properties[s].pattern: Invalid value: {json.dumps(pattern)}: must be a "
        f"valid regular expression, but isn't: {message}"]


def test_v115_era_metadata_defaults() -> None:
    """Go case "v1.15 era tests for metadata defaults", per version."""
    s = {"type": "string"}
    v1_ = {"type": "object", "properties": {
        "metadata": {"type": "object", "default": {"name": "foo"}},
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
            "metadata": {"type": "object", "default": {"name": "foo", "unknown": 42}}}}}}
    v2_ = {"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"name": {**s, "default": "foo"}}},
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
            "apiVersion": {**s, "default": "v1"}, "kind": {**s, "default": "Pod"},
            "metadata": {"type": "object", "properties": {"name": {**s, "default": "foo"}}}}}}}
    v3_ = {"type": "object", "properties": {
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
            "apiVersion": {**s, "default": "v1"}, "kind": {**s, "default": "%"},
            "metadata": {"type": "object", "default": {"labels": {"bar": "x y"}}}}}}}
    v4_ = {"type": "object", "properties": {
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
            "metadata": {"type": "object", "properties": {
                "name": {**s, "default": 42},
                "labels": {"type": "object", "properties": {"bar": {**s, "default": 42}}}}}}}}}
    crd = _crd(scope="Namespaced", stored=("v1",), versions=[
        _version("v1", storage=True, schema=v1_), _version("v2", schema=v2_), _version("v3", schema=v3_),
        _version("v4", schema=v4_)])
    v = "spec.versions[{}].schema.openAPIV3Schema"
    assert _matches(validate_custom_resource_definition(crd)) == _exp(
        (FORB, f"{v.format(0)}.properties[metadata].default"),
        (FORB, f"{v.format(1)}.properties[metadata].properties[name].default"),
        (INV, f"{v.format(2)}.properties[embedded].properties[metadata].default"),
        (INV, f"{v.format(2)}.properties[embedded].properties[kind].default"),
        (INV, f"{v.format(3)}.properties[embedded].properties[metadata].properties[labels].properties[bar].default"),
        (INV, f"{v.format(3)}.properties[embedded].properties[metadata].properties[name].default"))


def test_selectable_field_below_schemaless_additional_properties() -> None:
    """A path past `additionalProperties: true` names no schema: an invalid path (Go would
    dereference a nil schema there), never a failure of the validation itself."""
    crd = _crd(validation={"type": "object", "properties": {"m": {"type": "object", "additionalProperties": True}}},
               selectable_fields=[ext.SelectableField(json_path=".m.x.y")])
    assert [str(e) for e in validate_custom_resource_definition(crd)] == [
        'spec.selectableFields[0].jsonPath: Invalid value: ".m.x.y": is an invalid path: does not refer to a valid field']


def _schema_strategy():
    from hypothesis import strategies as st

    scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["x", "%", "v1", "a/b/c", ""]))
    values = st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["apiVersion", "kind", "metadata", "name", "labels", "a"]), inner, max_size=3)),
        max_leaves=8)
    flags = {k: st.booleans() for k in ("x-kubernetes-embedded-resource", "x-kubernetes-int-or-string",
                                        "x-kubernetes-preserve-unknown-fields", "nullable", "uniqueItems")}
    base = st.fixed_dictionaries({}, optional={
        "type": st.sampled_from(["object", "array", "string", "integer", "number", "boolean", "null", "bogus"]),
        "default": values, "enum": st.lists(values, min_size=1, max_size=2),
        "x-kubernetes-list-type": st.sampled_from(["set", "map", "atomic", "x"]),
        "x-kubernetes-list-map-keys": st.sampled_from([["a"], ["a", "a"], ["z"]]),
        "x-kubernetes-map-type": st.sampled_from(["atomic", "granular", "x"]),
        "pattern": st.sampled_from(["a+", "^x$", "(?i)b"]), "format": st.sampled_from(["date", "int32", "foo"]),
        **flags})

    def extend(inner):
        names_ = st.sampled_from(["a", "b", "metadata", "kind", "apiVersion", "spec", "status"])
        return st.tuples(base, st.fixed_dictionaries({}, optional={
            "properties": st.dictionaries(names_, inner, max_size=3), "items": inner,
            "additionalProperties": st.one_of(st.booleans(), inner), "allOf": st.lists(inner, min_size=1, max_size=2),
            "anyOf": st.lists(inner, min_size=1, max_size=2), "not": inner})).map(lambda t: {**t[0], **t[1]})

    return st.recursive(base, extend, max_leaves=10)


def test_arbitrary_schemas_never_break_validation() -> None:
    """Whatever schema a client sends (types, extensions, defaults and nesting in any
    combination), CRD validation answers with field errors and warnings, on create and on
    update, and never fails itself (bounded property test)."""
    from hypothesis import HealthCheck, given, settings

    from kcodec.api.apiextensions.validation import warnings_for_custom_resource_definition

    @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_schema_strategy(), _schema_strategy())
    def check(tree, old_tree):
        crd, old = _crd(validation=tree), _crd(validation=old_tree)
        crd.metadata.resource_version = old.metadata.resource_version = "1"
        assert isinstance(validate_custom_resource_definition(crd), list)
        assert isinstance(validate_custom_resource_definition_update(crd, old), list)
        assert isinstance(warnings_for_custom_resource_definition(crd, old), list)

    check()


def test_rule_texts_are_checked_under_value_validations() -> None:
    """ValidateCustomResourceDefinitionOpenAPISchema walks not/anyOf/oneOf too: an empty
    rule there is reported besides the structural refusal."""
    crd = _crd(validation={"type": "object", "properties": {"a": {
        "type": "object", "anyOf": [{"x-kubernetes-validations": [{"rule": " "}]}]}}})
    a = "spec.validation.openAPIV3Schema.properties[a].anyOf[0].x-kubernetes-validations"
    assert _matches(validate_custom_resource_definition(crd)) == _exp((FORB, a), (REQ, f"{a}[0].rule"))
