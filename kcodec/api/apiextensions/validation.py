"""Validation of CustomResourceDefinitions (Go: k8s.io/apiextensions-apiserver
``pkg/apis/apiextensions/validation/validation.go``), on internal objects, with Go's field
paths and detail texts.

What is checked, in Go's order: the object metadata (the name must be
``spec.names.plural+"."+spec.group``), the spec (group, scope, names, versions and their
schemas, subresources, additionalPrinterColumns, selectableFields, conversion), the status'
acceptedNames, ``status.storedVersions`` against ``spec.versions``, the API approval
annotation of protected groups and ``spec.preserveUnknownFields``. Schemas get the OpenAPI
checks of ``ValidateCustomResourceDefinitionOpenAPISchema``, the structural-schema rules of
``pkg/apiserver/schema`` (``NewStructural``, ``ValidateStructural``: invariants and
completeness) and ``pkg/apiserver/schema/defaulting`` (``ValidateDefaults``: defaults pruned,
embedded resources' apiVersion, kind and metadata coerced and validated as
``schema/objectmeta`` does, then the value validated against its schema and rules), and the
``x-kubernetes-validations`` rules (:mod:`kcodec.api.apiextensions.cel`, ``kcodec[cel]``). Updates relax what Go relaxes for
an old object that already broke a rule (ratcheting through ``validationOptions``), keep
group and plural (and, once Established, scope and kind) immutable.

Schemas are walked as the JSON tree of their v1 form (the keys are Go's JSON names, which
are also the field path's names); Go walks properties in map order, here they are sorted.
The structural-schema and defaults rules are :mod:`kcodec.api.apiextensions._structural`.
Not reproduced: the CEL cost estimates (see :mod:`kcodec.api.apiextensions.cel`).
"""
from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Mapping
from typing import Any

from kcodec.api.apiextensions._structural import (_META_FIELDS, _additional, _dns1035, _items, _new_structural_error,
                                                  _schema_has, _validate_defaults, validate_structural)
from kcodec.validation import field, names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_custom_resource_definition",
    "validate_custom_resource_definition_update",
    "validate_custom_resource_definition_status_update",
    "validate_custom_resource_definition_rules",
    "validate_custom_resource_definition_stored_versions",
    "validate_custom_resource_definition_names",
    "validate_structural",
    "warnings_for_custom_resource_definition",
]

_PRINTER_COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"]
_PRINTER_COLUMN_FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"]
_OPENAPI_V3_TYPES = ["array", "boolean", "integer", "number", "object", "string"]
_CONVERSION_REVIEW_VERSIONS = ["v1", "v1beta1"]
_VALIDATION_REASONS = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"]
_APPROVAL_ANNOTATION = "api-approved.kubernetes.io"
MAX_SELECTABLE_FIELDS = 8

# validation.go allowedFieldsAtRootSchema (Go field names, printed as Go prints the slice).
_ALLOWED_AT_ROOT = ["Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
                    "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems",
                    "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example",
                    "XPreserveUnknownFields", "XValidations"]


@dataclasses.dataclass
class _Options:
    """Go's ``validationOptions`` (the switches that an update relaxes for old objects)."""

    allow_defaults: bool = True
    require_recognized_conversion_review_version: bool = True
    require_immutable_names: bool = False
    require_open_api_schema: bool = True
    require_valid_property_type: bool = True
    require_structural_schema: bool = True
    require_pruned_defaults: bool = True
    require_atomic_set_type: bool = True
    require_map_list_keys_map_set_validation: bool = True
    allow_invalid_ca_bundle: bool = True
    allow_too_many_selectable_fields: dict[str, bool] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class _SpecValidator:
    """Go's ``specStandardValidatorV3``."""

    allow_defaults: bool = True
    disallow_defaults_reason: str = ""
    inside_resource_meta: bool = False
    require_valid_property_type: bool = True

    def with_forbidden_defaults(self, reason: str) -> _SpecValidator:
        return dataclasses.replace(self, allow_defaults=False, disallow_defaults_reason=reason)


# --------------------------------------------------------------------------- schema trees


def _schema_tree(props: Any) -> dict[str, Any] | None:
    """An internal JSONSchemaProps as the JSON tree of its v1 form."""
    if props is None:
        return None
    from kcodec.api.apiextensions import v1
    from kcodec.legacyscheme import scheme

    out = v1.JSONSchemaProps()
    scheme.convert(props, out)
    return out.to_dict()


def _spec_schemas(spec: Any) -> list[dict[str, Any]]:
    """The schema trees of a spec: the top-level one, then each version's."""
    out = []
    if spec.validation is not None and spec.validation.open_apiv3_schema is not None:
        out.append(_schema_tree(spec.validation.open_apiv3_schema))
    for v in spec.versions or ():
        if v.schema is not None and v.schema.open_apiv3_schema is not None:
            out.append(_schema_tree(v.schema.open_apiv3_schema))
    return [t for t in out if t is not None]


def _has_schema_with(spec: Any, pred: Any) -> bool:
    return any(_schema_has(t, pred) for t in _spec_schemas(spec))


def _has_extensions(s: Mapping[str, Any]) -> bool:
    return bool(s.get("x-kubernetes-embedded-resource") or "x-kubernetes-preserve-unknown-fields" in s
                or s.get("x-kubernetes-int-or-string") or s.get("x-kubernetes-list-map-keys")
                or "x-kubernetes-list-type" in s or s.get("x-kubernetes-validations"))


# --------------------------------------------------------------------------- OpenAPI schema checks


def _validate_openapi_schema(s: Any, path: Path, ssv: _SpecValidator, is_root: bool, opts: _Options,
                             errs: ErrorList) -> None:
    """The schema checks of Go ``ValidateCustomResourceDefinitionOpenAPISchema`` (the
    x-kubernetes-validations part is :func:`cel.validate_schema_rules`)."""
    if not isinstance(s, Mapping):
        return
    errs.extend(_spec_standard(s, path, ssv))
    if s.get("uniqueItems"):
        errs.append(field.forbidden(path.child("uniqueItems"),
                                    "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
    has_ap, ap = _additional(s)
    if has_ap:
        if s.get("properties") and (s["additionalProperties"] is not True):
            errs.append(field.forbidden(path.child("additionalProperties"),
                                        "additionalProperties and properties are mutual exclusive"))
        sub = ssv.with_forbidden_defaults("inside additionalProperties applying to object metadata") \
            if ssv.inside_resource_meta else ssv
        _validate_openapi_schema(ap, path.child("additionalProperties"), sub, False, opts, errs)
    props = s.get("properties") or {}
    for k in sorted(props):
        sub = ssv
        if (is_root or s.get("x-kubernetes-embedded-resource")) and k in _META_FIELDS:
            sub = dataclasses.replace(sub, inside_resource_meta=True)
            if is_root:
                sub = sub.with_forbidden_defaults(f"in top-level {k}")
        _validate_openapi_schema(props[k], path.child("properties").key(k), sub, False, opts, errs)
    _validate_openapi_schema(s.get("not"), path.child("not"), ssv, False, opts, errs)
    for key in ("allOf", "oneOf", "anyOf"):
        for i, sub_s in enumerate(s.get(key) or ()):
            _validate_openapi_schema(sub_s, path.child(key).index(i), ssv, False, opts, errs)
    for k in sorted(s.get("definitions") or {}):
        _validate_openapi_schema(s["definitions"][k], path.child("definitions").key(k), ssv, False, opts, errs)
    items = s.get("items")
    if isinstance(items, Mapping):
        _validate_openapi_schema(items, path.child("items"), ssv, False, opts, errs)
    elif isinstance(items, list):
        for i, sub_s in enumerate(items):
            _validate_openapi_schema(sub_s, path.child("items").index(i), ssv, False, opts, errs)
    for k in sorted(s.get("dependencies") or {}):
        _validate_openapi_schema(s["dependencies"][k], path.child("dependencies").key(k), ssv, False, opts, errs)
    if s.get("x-kubernetes-preserve-unknown-fields") is False:
        errs.append(field.invalid(path.child("x-kubernetes-preserve-unknown-fields"), False, "must be true or undefined"))
    typ = s.get("type") or ""
    map_type, list_type = s.get("x-kubernetes-map-type"), s.get("x-kubernetes-list-type")
    if map_type is not None and typ != "object":
        if not typ:
            errs.append(field.required(path.child("type"), "must be object if x-kubernetes-map-type is specified"))
        else:
            errs.append(field.invalid(path.child("type"), typ, "must be object if x-kubernetes-map-type is specified"))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errs.append(field.not_supported(path.child("x-kubernetes-map-type"), map_type, ["atomic", "granular"]))
    item = _items(s)
    if list_type is not None and typ != "array":
        if not typ:
            errs.append(field.required(path.child("type"), "must be array if x-kubernetes-list-type is specified"))
        else:
            errs.append(field.invalid(path.child("type"), typ, "must be array if x-kubernetes-list-type is specified"))
    elif opts.require_atomic_set_type and list_type == "set" and item is not None:
        if item.get("type") == "array" and item.get("x-kubernetes-list-type") not in (None, "atomic"):
            errs.append(field.invalid(path.child("items", "x-kubernetes-list-type"), item.get("x-kubernetes-list-type"),
                                      "must be atomic as item of a list with x-kubernetes-list-type=set"))
        elif item.get("type") == "object" and item.get("x-kubernetes-map-type") != "atomic":
            # Go prints the item's list type here (validation.go passes is.XListType).
            errs.append(field.invalid(path.child("items", "x-kubernetes-map-type"), item.get("x-kubernetes-list-type"),
                                      "must be atomic as item of a list with x-kubernetes-list-type=set"))
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errs.append(field.not_supported(path.child("x-kubernetes-list-type"), list_type, ["atomic", "set", "map"]))
    keys = s.get("x-kubernetes-list-map-keys") or []
    if keys:
        if list_type is None:
            errs.append(field.required(path.child("x-kubernetes-list-type"),
                                       "must be map if x-kubernetes-list-map-keys is non-empty"))
        elif list_type != "map":
            errs.append(field.invalid(path.child("x-kubernetes-list-type"), list_type,
                                      "must be map if x-kubernetes-list-map-keys is non-empty"))
    if list_type == "map":
        if not keys:
            errs.append(field.required(path.child("x-kubernetes-list-map-keys"),
                                       "must not be empty if x-kubernetes-list-type is map"))
        if "items" not in s or s["items"] is None:
            errs.append(field.required(path.child("items"), "must have a schema if x-kubernetes-list-type is map"))
        elif item is None:
            errs.append(field.invalid(path.child("items"), s["items"],
                                      "must only have a single schema if x-kubernetes-list-type is map"))
        elif item.get("type") != "object":
            errs.append(field.invalid(path.child("items", "type"), item.get("type") or "",
                                      "must be object if parent array's x-kubernetes-list-type is map"))
        else:
            seen: set[str] = set()
            item_props = item.get("properties") or {}
            for k in keys:
                if k in item_props:
                    if (item_props[k].get("type") or "") in ("array", "object"):
                        errs.append(field.invalid(path.child("items", "properties").key(k).child("type"), "object",
                                                  "must be a scalar type if parent array's x-kubernetes-list-type is map"))
                else:
                    errs.append(field.invalid(path.child("x-kubernetes-list-map-keys"), keys,
                                              "entries must all be names of item properties"))
                if k in seen:
                    errs.append(field.invalid(path.child("x-kubernetes-list-map-keys"), keys,
                                              "must not contain duplicate entries"))
                seen.add(k)
    if opts.require_map_list_keys_map_set_validation:
        errs.extend(_map_list_keys_map_set(s, path))


def _map_list_keys_map_set(s: Mapping[str, Any], path: Path) -> ErrorList:
    """Go ``validateMapListKeysMapSet``."""
    errs = ErrorList()
    item, list_type = _items(s), s.get("x-kubernetes-list-type")
    if item is None or list_type not in ("set", "map"):
        return errs
    if item.get("nullable"):
        errs.append(field.forbidden(path.child("items", "nullable"), "cannot be nullable when x-kubernetes-list-type is "
                                    + list_type))
    if list_type == "map":
        required = set(item.get("required") or ())
        props = item.get("properties") or {}
        for k in s.get("x-kubernetes-list-map-keys") or ():
            if k not in props:
                continue
            kp = path.child("items", "properties").key(k)
            if k not in required and "default" not in props[k]:
                errs.append(field.required(kp.child("default"), "this property is in x-kubernetes-list-map-keys, so it "
                                                                "must have a default or be a required property"))
            if props[k].get("nullable"):
                errs.append(field.forbidden(kp.child("nullable"),
                                            "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
    return errs


def _spec_standard(s: Mapping[str, Any], path: Path, ssv: _SpecValidator) -> ErrorList:
    """Go ``specStandardValidatorV3.validate``."""
    errs = ErrorList()
    typ = s.get("type") or ""
    if ssv.require_valid_property_type and typ and typ not in _OPENAPI_V3_TYPES:
        errs.append(field.not_supported(path.child("type"), typ, _OPENAPI_V3_TYPES))
    if "default" in s and not ssv.allow_defaults:
        detail = "must not be set"
        if ssv.disallow_defaults_reason:
            detail += " " + ssv.disallow_defaults_reason
        errs.append(field.forbidden(path.child("default"), detail))
    if s.get("id"):
        errs.append(field.forbidden(path.child("id"), "id is not supported"))
    if s.get("additionalItems") is not None:
        errs.append(field.forbidden(path.child("additionalItems"), "additionalItems is not supported"))
    if s.get("patternProperties"):
        errs.append(field.forbidden(path.child("patternProperties"), "patternProperties is not supported"))
    if s.get("definitions"):
        errs.append(field.forbidden(path.child("definitions"), "definitions is not supported"))
    if s.get("dependencies") is not None:
        errs.append(field.forbidden(path.child("dependencies"), "dependencies is not supported"))
    if s.get("$ref") is not None:
        errs.append(field.forbidden(path.child("$ref"), "$ref is not supported"))
    if typ == "null":
        errs.append(field.forbidden(path.child("type"), "type cannot be set to null, use nullable as an alternative"))
    if isinstance(s.get("items"), list) and s["items"]:
        errs.append(field.forbidden(path.child("items"), "items must be a schema object and not an array"))
    if ssv.inside_resource_meta and s.get("x-kubernetes-embedded-resource"):
        errs.append(field.forbidden(path.child("x-kubernetes-embedded-resource"), "must not be used inside of resource meta"))
    return errs


def _is_zero(v: Any) -> bool:
    return v is None or v is False or v == "" or (isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0)


def _validation(validation: Any, status_enabled: bool, opts: _Options, path: Path) -> ErrorList:
    """Go ``validateCustomResourceDefinitionValidation`` for one CustomResourceValidation."""
    from kcodec.fieldtable import fields_of

    errs = ErrorList()
    if validation is None or validation.open_apiv3_schema is None:
        return errs
    internal = validation.open_apiv3_schema
    s = _schema_tree(internal) or {}
    if status_enabled:
        for f in fields_of(type(internal)):
            value = getattr(internal, f.name, None)
            # Go skips zero values: nil pointers, empty strings, false, 0, nil slices and maps.
            if (_is_zero(value) and not (f.pointer and value is not None)) or (
                    isinstance(value, (list, dict)) and not value):
                continue
            name = f.go_field()
            if name == "Type":
                if internal.type != "object":
                    errs.append(field.invalid(path.child("openAPIV3Schema.type"), internal.type,
                                              'only "object" is allowed as the type at the root of the schema if the '
                                              'status subresource is enabled'))
                    break
                continue
            if name not in _ALLOWED_AT_ROOT:
                errs.append(field.invalid(path.child("openAPIV3Schema"), internal,
                                          f"only [{' '.join(_ALLOWED_AT_ROOT)}] fields are allowed at the root of the "
                                          "schema if the status subresource is enabled"))
                break
    if s.get("nullable"):
        errs.append(field.forbidden(path.child("openAPIV3Schema.nullable"), "nullable cannot be true at the root"))
    root = path.child("openAPIV3Schema")
    structural_init_errs = ErrorList()
    compile_rules = False
    if opts.require_structural_schema:
        err = _new_structural_error(s)
        if err is not None:
            structural_init_errs.append(field.invalid(root, "", err))
        else:
            serrs = validate_structural(root, s)
            if serrs:
                errs.extend(serrs)
            else:
                derrs = ErrorList()
                _validate_defaults(s, root, True, False, opts.require_pruned_defaults, derrs)
                errs.extend(derrs)
                compile_rules = not derrs
    ssv = _SpecValidator(allow_defaults=opts.allow_defaults, require_valid_property_type=opts.require_valid_property_type)
    _validate_openapi_schema(s, root, ssv, True, opts, errs)
    errs.extend(_rules(s, root, compile_rules))
    if not errs and structural_init_errs:
        errs.extend(structural_init_errs)
    return errs


def _rules(tree: Mapping[str, Any], path: Path, compile_rules: bool) -> ErrorList:
    """The x-kubernetes-validations checks of one schema (:mod:`.cel`); rules are compiled
    only over a valid structural schema (Go: RootCELContext only then)."""
    from kcodec.api.apiextensions import cel

    if not _schema_has(tree, lambda n: bool(n.get("x-kubernetes-validations"))):
        return ErrorList()
    return cel.validate_schema_rules(tree, path, compile_rules=compile_rules)


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


# --------------------------------------------------------------------------- spec


def validate_custom_resource_definition_names(n: Any, path: Path) -> ErrorList:
    """Go ``ValidateCustomResourceDefinitionNames``."""
    errs = ErrorList()
    if n.plural and _dns1035(n.plural):
        errs.append(field.invalid(path.child("plural"), n.plural, _dns1035(n.plural)))
    if n.singular and _dns1035(n.singular):
        errs.append(field.invalid(path.child("singular"), n.singular, _dns1035(n.singular)))
    for name, value in (("kind", n.kind), ("listKind", n.list_kind)):
        if value and _dns1035(value.lower()):
            errs.append(field.invalid(path.child(name), value,
                                      "may have mixed case, but should otherwise match: " + _dns1035(value.lower())))
    for i, short in enumerate(n.short_names or ()):
        if _dns1035(short):
            errs.append(field.invalid(path.child("shortNames").index(i), short, _dns1035(short)))
    if n.kind and n.kind == n.list_kind:
        errs.append(field.invalid(path.child("listKind"), n.list_kind, "kind and listKind may not be the same"))
    for i, cat in enumerate(n.categories or ()):
        if _dns1035(cat):
            errs.append(field.invalid(path.child("categories").index(i), cat, _dns1035(cat)))
    return errs


def _simple_json_path(s: str, path: Path) -> ErrorList:
    """Go ``validateSimpleJSONPath``."""
    if not s:
        return ErrorList([field.invalid(path, s, "must not be empty")])
    if s[0] != ".":
        return ErrorList([field.invalid(path, s, "must be a simple json path starting with .")])
    return ErrorList()


def validate_custom_resource_column_definition(col: Any, path: Path) -> ErrorList:
    """Go ``ValidateCustomResourceColumnDefinition``."""
    errs = ErrorList()
    if not col.name:
        errs.append(field.required(path.child("name"), ""))
    types = "must be one of " + ",".join(_PRINTER_COLUMN_TYPES)
    if not col.type:
        errs.append(field.required(path.child("type"), types))
    elif col.type not in _PRINTER_COLUMN_TYPES:
        errs.append(field.invalid(path.child("type"), col.type, types))
    if col.format and col.format not in _PRINTER_COLUMN_FORMATS:
        errs.append(field.invalid(path.child("format"), col.format, "must be one of " + ",".join(_PRINTER_COLUMN_FORMATS)))
    if not col.json_path:
        errs.append(field.required(path.child("JSONPath"), ""))
    else:
        errs.extend(_simple_json_path(col.json_path, path.child("JSONPath")))
    return errs


def validate_custom_resource_definition_subresources(sub: Any, path: Path) -> ErrorList:
    """Go ``ValidateCustomResourceDefinitionSubresources``."""
    errs = ErrorList()
    if sub is None or sub.scale is None:
        return errs
    scale = sub.scale
    for name, value, prefix, where in (("scale.specReplicasPath", scale.spec_replicas_path, (".spec.",), ".spec"),
                                       ("scale.statusReplicasPath", scale.status_replicas_path, (".status.",), ".status")):
        if not value:
            errs.append(field.required(path.child(name), ""))
            continue
        perrs = _simple_json_path(value, path.child(name))
        if perrs:
            errs.extend(perrs)
        elif not value.startswith(prefix):
            errs.append(field.invalid(path.child(name), value, f"should be a json path under {where}"))
    sel = scale.label_selector_path
    if sel:
        perrs = _simple_json_path(sel, path.child("scale.labelSelectorPath"))
        if perrs:
            errs.extend(perrs)
        elif not sel.startswith((".spec.", ".status.")):
            errs.append(field.invalid(path.child("scale.labelSelectorPath"), sel,
                                      "should be a json path under either .spec or .status"))
    return errs


def _field_path_schema(json_path: str, s: Mapping[str, Any] | None) -> tuple[list[str], Mapping[str, Any] | None, str]:
    """cel.ValidFieldPath with WithFieldPathAllowArrayNotation(false): the path's names,
    the schema they reach, and Go's error text ('' when valid)."""
    from kcodec.api.apiextensions.cel import fieldpath

    tokens = fieldpath._field_path_tokens(json_path)
    for i, tok in enumerate(tokens):
        if tok == "[":
            # Go's scanner stops at the first "[" (what comes before is still checked).
            try:
                fieldpath.valid_field_path("".join(tokens[:i]), s or {})
            except ValueError as exc:
                return [], None, str(exc)
            return [], None, "array notation is not allowed"
    try:
        path, found = fieldpath.valid_field_path(json_path, s or {})
    except ValueError as exc:
        return [], None, str(exc)
    parts = str(path).split(".") if path is not None else []
    return parts, found, ""


def _selectable_fields(fields_: list[Any], tree: Mapping[str, Any] | None, path: Path, opts: _Options,
                       version: str) -> ErrorList:
    """Go ``ValidateCustomResourceSelectableFields``."""
    errs = ErrorList()
    seen: set[str] = set()
    for i, sf in enumerate(fields_):
        p = path.index(i).child("jsonPath")
        if not sf.json_path:
            errs.append(field.required(p, ""))
            continue
        parts, found, err = _field_path_schema(sf.json_path, tree)
        if err:
            errs.append(field.invalid(p, sf.json_path, f"is an invalid path: {err}"))
            continue
        if parts and parts[0] == "metadata":
            errs.append(field.invalid(p, sf.json_path, "must not point to fields in metadata"))
        if found is None or found.get("type") not in ("string", "boolean", "integer"):
            errs.append(field.invalid(p, sf.json_path, "must point to a field of type string, boolean or integer. "
                                                       "Enum string fields and strings with formats are allowed."))
        key = ".".join(parts)
        if key in seen:
            errs.append(field.duplicate(p, sf.json_path))
        seen.add(key)
    if len(seen) > MAX_SELECTABLE_FIELDS and not opts.allow_too_many_selectable_fields.get(version):
        errs.append(field.too_many(path, len(seen), MAX_SELECTABLE_FIELDS))
    return errs


def _deprecation_warning(deprecated: bool, warning: str | None) -> list[str]:
    if not deprecated and warning is not None:
        return ["can only be set for deprecated versions"]
    if warning is None:
        return []
    out = []
    if len(warning.encode()) > 256:
        out.append("must be <= 256 characters long")
    if not warning:
        out.append("must not be an empty string")
    offset = 0
    for ch in warning:
        # Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII
        # space. It is tested first, so Go's "control character" branch is never reached.
        if unicodedata.category(ch)[0] in "CZ" and ch != " ":
            out.append(f"must only contain printable UTF-8 characters; non-printable character found at index {offset}")
            break
        offset += len(ch.encode("utf-8", "surrogatepass"))
    return out


def _subresources_for_version(spec: Any, version: str) -> Any:
    if not any(v.subresources is not None for v in spec.versions or ()):
        return spec.subresources
    for v in spec.versions or ():
        if v.name == version:
            return v.subresources
    return None


def _status_enabled(sub: Any) -> bool:
    return sub is not None and sub.status is not None


def _identical(values: list[Any], present: Any) -> bool:
    return bool(values) and all(present(v) and v == values[0] for v in values)


def _version(version: Any, path: Path, status_enabled: bool, opts: _Options) -> ErrorList:
    """Go ``validateCustomResourceDefinitionVersion``."""
    errs = ErrorList()
    for msg in _deprecation_warning(version.deprecated, version.deprecation_warning):
        errs.append(field.invalid(path.child("deprecationWarning"), version.deprecation_warning, msg))
    errs.extend(_validation(version.schema, status_enabled, opts, path.child("schema")))
    errs.extend(validate_custom_resource_definition_subresources(version.subresources, path.child("subresources")))
    for i, col in enumerate(version.additional_printer_columns or ()):
        errs.extend(validate_custom_resource_column_definition(col, path.child("additionalPrinterColumns").index(i)))
    if version.selectable_fields:
        if version.schema is None or version.schema.open_apiv3_schema is None:
            errs.append(field.invalid(path.child("selectableFields"), "",
                                      "may only be set when `version.schema.openAPIV3Schema` is not included"))
        else:
            tree = _schema_tree(version.schema.open_apiv3_schema)
            err = _new_structural_error(tree or {})
            if err is not None:
                errs.append(field.invalid(path.child("schema.openAPIV3Schema"), "", err))
            errs.extend(_selectable_fields(version.selectable_fields, tree, path.child("selectableFields"), opts,
                                           version.name))
    return errs


def _conversion_review_versions(versions: list[str], require_recognized: bool, path: Path) -> ErrorList:
    errs = ErrorList()
    if not versions:
        errs.append(field.required(path, ""))
        return errs
    seen: set[str] = set()
    accepted = False
    for i, v in enumerate(versions):
        if v in seen:
            errs.append(field.invalid(path.index(i), v, "duplicate version"))
            continue
        seen.add(v)
        for msg in names.is_dns1035_label(v):
            errs.append(field.invalid(path.index(i), v, msg))
        accepted = accepted or v in _CONVERSION_REVIEW_VERSIONS
    if require_recognized and not accepted:
        errs.append(field.invalid(path, versions, "must include at least one of " + ", ".join(_CONVERSION_REVIEW_VERSIONS)))
    return errs


def _validate_ca_bundle(path: Path, ca_bundle: bytes) -> ErrorList:
    """apiserver ``webhook.ValidateCABundle``: client-go cert.ParseCertsPEM must find a certificate."""
    import base64
    import re

    from cryptography import x509

    blocks = re.findall(rb"-----BEGIN ([^-\r\n]+)-----\r?\n(.*?)-----END \1-----", ca_bundle, re.S)
    found = False
    for kind, body in blocks:
        if kind != b"CERTIFICATE" or b":" in body.split(b"\n", 1)[0]:
            continue  # only CERTIFICATE blocks without headers
        try:
            x509.load_der_x509_certificate(base64.b64decode(b"".join(body.split()), validate=True))
        except ValueError:
            return ErrorList([field.invalid(path, ca_bundle, "x509: malformed certificate")])
        found = True
    if not found:
        return ErrorList([field.invalid(path, ca_bundle, "data does not contain any valid RSA or ECDSA certificates")])
    return ErrorList()


def _conversion(conv: Any, require_recognized: bool, path: Path, allow_invalid_ca_bundle: bool = True) -> ErrorList:
    """Go ``validateCustomResourceConversion``."""
    from kcodec.api.admissionregistration.validation import validate_webhook_service, validate_webhook_url

    errs = ErrorList()
    if conv is None:
        return errs
    if not conv.strategy:
        errs.append(field.required(path.child("strategy"), ""))
    elif conv.strategy not in ("None", "Webhook"):
        errs.append(field.not_supported(path.child("strategy"), conv.strategy, ["None", "Webhook"]))
    if conv.strategy == "Webhook":
        cc = conv.webhook_client_config
        if cc is None:
            errs.append(field.required(path.child("webhookClientConfig"), "required when strategy is set to Webhook"))
        elif (cc.url is None) == (cc.service is None):
            errs.append(field.required(path.child("webhookClientConfig"), "exactly one of url or service is required"))
        elif cc.url is not None:
            errs.extend(validate_webhook_url(path.child("webhookClientConfig", "url"), cc.url, True))
        else:
            svc = cc.service
            errs.extend(validate_webhook_service(path.child("webhookClientConfig", "service"), svc.namespace, svc.name,
                                                 svc.path, svc.port) or ())
        if cc is not None and cc.ca_bundle and not allow_invalid_ca_bundle:
            errs.extend(_validate_ca_bundle(path.child("webhookClientConfig", "caBundle"), bytes(cc.ca_bundle)))
        errs.extend(_conversion_review_versions(list(conv.conversion_review_versions or ()), require_recognized,
                                                path.child("conversionReviewVersions")))
    else:
        if conv.webhook_client_config is not None:
            errs.append(field.forbidden(path.child("webhookClientConfig"), "should not be set when strategy is not set to Webhook"))
        if conv.conversion_review_versions:
            errs.append(field.forbidden(path.child("conversionReviewVersions"),
                                        "should not be set when strategy is not set to Webhook"))
    return errs


def _validate_spec(spec: Any, opts: _Options, path: Path) -> ErrorList:
    """Go ``validateCustomResourceDefinitionSpec``."""
    errs = ErrorList()
    opts = dataclasses.replace(opts)
    if not spec.group:
        errs.append(field.required(path.child("group"), ""))
    elif names.is_dns1123_subdomain(spec.group):
        errs.append(field.invalid(path.child("group"), spec.group, ",".join(names.is_dns1123_subdomain(spec.group))))
    elif len(spec.group.split(".")) < 2:
        errs.append(field.invalid(path.child("group"), spec.group, "should be a domain with at least one dot"))
    if not spec.scope:
        errs.append(field.required(path.child("scope"), ""))
    elif spec.scope not in ("Cluster", "Namespaced"):
        errs.append(field.not_supported(path.child("scope"), spec.scope, ["Cluster", "Namespaced"]))
    pruning = not spec.preserve_unknown_fields
    if pruning:
        opts.require_structural_schema = True
    versions = list(spec.versions or ())
    top_schema = spec.validation is not None and spec.validation.open_apiv3_schema is not None
    if not top_schema:
        for i, v in enumerate(versions):
            missing = v.schema is None or v.schema.open_apiv3_schema is None
            if opts.require_open_api_schema and missing:
                errs.append(field.required(path.child("versions").index(i).child("schema", "openAPIV3Schema"), ""))
            elif not opts.require_open_api_schema and pruning and v.served and missing:
                errs.append(field.required(path.child("versions").index(i).child("schema", "openAPIV3Schema"),
                                           "because otherwise all fields are pruned"))
    if opts.allow_defaults and _has_schema_with(spec, lambda n: "default" in n):
        opts.require_structural_schema = True
        if spec.preserve_unknown_fields is None or spec.preserve_unknown_fields:
            errs.append(field.invalid(path.child("preserveUnknownFields"), True,
                                      "must be false in order to use defaults in the schema"))
    if _has_schema_with(spec, _has_extensions):
        opts.require_structural_schema = True
    storage = 0
    seen: set[str] = set()
    unique = True
    for i, v in enumerate(versions):
        storage += bool(v.storage)
        if v.name in seen:
            unique = False
        seen.add(v.name)
        if _dns1035(v.name):
            errs.append(field.invalid(path.child("versions").index(i).child("name"), v.name, _dns1035(v.name)))
        sub = _subresources_for_version(spec, v.name)
        errs.extend(_version(v, path.child("versions").index(i), _status_enabled(sub), opts))
    if spec.validation is not None and any(v.schema is not None for v in versions):
        errs.append(field.forbidden(path.child("validation"), "top-level and per-version schemas are mutually exclusive"))
    if spec.subresources is not None and any(v.subresources is not None for v in versions):
        errs.append(field.forbidden(path.child("subresources"), "top-level and per-version subresources are mutually exclusive"))
    if spec.additional_printer_columns and any(v.additional_printer_columns for v in versions):
        errs.append(field.forbidden(path.child("additionalPrinterColumns"),
                                    "top-level and per-version additionalPrinterColumns are mutually exclusive"))
    for what, values, present, top in (
            ("schemas", [v.schema for v in versions], lambda x: x is not None, "validation"),
            ("subresources", [v.subresources for v in versions], lambda x: x is not None, "subresources"),
            ("additionalPrinterColumns", [v.additional_printer_columns for v in versions], bool,
             "additionalPrinterColumns")):
        if _identical(values, present):
            errs.append(field.invalid(path.child("versions"), versions,
                                      f"per-version {what} may not all be set to identical values (top-level {top} "
                                      "should be used instead)"))
    if not unique:
        errs.append(field.invalid(path.child("versions"), versions, "must contain unique version names"))
    if storage != 1:
        errs.append(field.invalid(path.child("versions"), versions, "must have exactly one version marked as storage version"))
    if spec.version:
        if _dns1035(spec.version):
            errs.append(field.invalid(path.child("version"), spec.version, _dns1035(spec.version)))
        if versions and versions[0].name != spec.version:
            errs.append(field.invalid(path.child("version"), spec.version, "must match the first version in spec.versions"))
    n = spec.names
    for attr, name in (("plural", "plural"), ("singular", "singular"), ("kind", "kind"), ("list_kind", "listKind")):
        if not getattr(n, attr):
            errs.append(field.required(path.child("names", name), ""))
    errs.extend(validate_custom_resource_definition_names(n, path.child("names")))
    any_status = _status_enabled(spec.subresources) or any(_status_enabled(v.subresources) for v in versions)
    errs.extend(_validation(spec.validation, any_status, opts, path.child("validation")))
    errs.extend(validate_custom_resource_definition_subresources(spec.subresources, path.child("subresources")))
    for i, col in enumerate(spec.additional_printer_columns or ()):
        errs.extend(validate_custom_resource_column_definition(col, path.child("additionalPrinterColumns").index(i)))
    if spec.selectable_fields:
        if spec.validation is None:
            errs.append(field.invalid(path.child("selectableFields"), "", "may only be set when validations.schema is included"))
        else:
            tree = _schema_tree(spec.validation.open_apiv3_schema)
            err = _new_structural_error(tree or {})
            if err is not None:
                # Go names this path so (fldPath.Child("schema.openAPIV3Schema")) at the top level too
                errs.append(field.invalid(path.child("schema.openAPIV3Schema"), "", err))
            errs.extend(_selectable_fields(spec.selectable_fields, tree, path.child("selectableFields"), opts, ""))
    if spec.conversion is not None and spec.conversion.strategy != "None" and (
            spec.preserve_unknown_fields is None or spec.preserve_unknown_fields):
        errs.append(field.invalid(path.child("conversion", "strategy"), spec.conversion.strategy,
                                  "must be None if spec.preserveUnknownFields is true"))
    errs.extend(_conversion(spec.conversion, opts.require_recognized_conversion_review_version, path.child("conversion"),
                            opts.allow_invalid_ca_bundle))
    return errs


# --------------------------------------------------------------------------- status, approval


def validate_custom_resource_definition_stored_versions(stored: list[str] | None, versions: list[Any] | None,
                                                        path: Path) -> ErrorList:
    """Go ``ValidateCustomResourceDefinitionStoredVersions``."""
    stored = list(stored or ())
    if not stored:
        return ErrorList([field.invalid(path, stored, "must have at least one stored version")])
    errs = ErrorList()
    index = {v: i for i, v in enumerate(stored)}
    for v in versions or ():
        if v.storage and v.name not in index:
            errs.append(field.invalid(path, stored, "must have the storage version " + v.name))
        index.pop(v.name, None)
    for v, i in sorted(index.items(), key=lambda kv: kv[1]):
        errs.append(field.invalid(path.index(i), v, f"missing from spec.versions; {v} was previously a storage version, "
                                  f"and must remain in spec.versions until a storage migration ensures no data remains "
                                  f"persisted in {v} and removes {v} from status.storedVersions"))
    return errs


def _validate_status(status: Any, path: Path) -> ErrorList:
    return validate_custom_resource_definition_names(status.accepted_names, path.child("acceptedNames"))


def _is_protected_group(group: str) -> bool:
    return group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))


def _approval_state(annotations: Mapping[str, str] | None) -> tuple[str, str]:
    from urllib.parse import urlsplit

    value = (annotations or {}).get(_APPROVAL_ANNOTATION, "")
    if not value:
        return "missing", (f'protected groups must have approval annotation "{_APPROVAL_ANNOTATION}", see '
                           "https://github.com/kubernetes/enhancements/pull/1111")
    if value.startswith("unapproved"):
        return "bypassed", f'not approved: "{value}"'
    u = urlsplit(value)
    if u.scheme and u.netloc and " " not in value:
        return "approved", f"approved in {value}"
    return "invalid", (f'protected groups must have approval annotation "{_APPROVAL_ANNOTATION}" with either a URL or '
                       'a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111')


def _api_approval(new: Any, old: Any) -> ErrorList:
    """Go ``validateAPIApproval``."""
    if not _is_protected_group(new.spec.group):
        return ErrorList()
    state, reason = _approval_state(new.metadata.annotations)
    if old is not None and _approval_state(old.metadata.annotations)[0] == state:
        return ErrorList()
    p = Path("metadata", "annotations").key(_APPROVAL_ANNOTATION)
    if state == "missing":
        return ErrorList([field.required(p, reason)])
    if state == "invalid":
        return ErrorList([field.invalid(p, (new.metadata.annotations or {}).get(_APPROVAL_ANNOTATION, ""), reason)])
    return ErrorList()


def _preserve_unknown_fields(new: Any, old: Any) -> ErrorList:
    """Go ``validatePreserveUnknownFields`` (v1 refuses true; an old CRD that had it keeps it)."""
    if old is not None and old.spec.preserve_unknown_fields:
        return ErrorList()
    if new.spec.preserve_unknown_fields:
        return ErrorList([field.invalid(Path("spec", "preserveUnknownFields"), True,
                                        "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in "
                                        "spec.versions[*].schema instead")])
    return ErrorList()


# --------------------------------------------------------------------------- warnings


def _walk(s: Any) -> Any:
    """The schemas of a tree in Go's SchemaHas order (pre-order; properties sorted)."""
    if not isinstance(s, Mapping):
        return
    yield s
    items = s.get("items")
    for sub in (items if isinstance(items, list) else [items]):
        yield from _walk(sub)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in s.get(key) or ():
            yield from _walk(sub)
    yield from _walk(s.get("not"))
    for k in sorted(s.get("properties") or {}):
        yield from _walk(s["properties"][k])
    yield from _walk(s.get("additionalProperties"))
    for k in sorted(s.get("patternProperties") or {}):
        yield from _walk(s["patternProperties"][k])
    yield from _walk(s.get("additionalItems"))
    for key in ("definitions", "dependencies"):
        for k in sorted(s.get(key) or {}):
            yield from _walk(s[key][k])


def _unrecognized_formats(spec: Any) -> list[str]:
    """Go getUnrecognizedFormatsInCRD (apiserver validation/formats.go GetUnrecognizedFormats
    at the default compatibility version, which knows k8s-short-name and k8s-long-name)."""
    from kcodec.api.apiextensions._validation import SUPPORTED_FORMATS

    supported = {f.replace("-", "") for f in SUPPORTED_FORMATS}
    out = []
    for tree in _spec_schemas(spec):
        for node in _walk(tree):
            fmt, typ = node.get("format") or "", node.get("type") or ""
            if not fmt:
                continue
            if typ in ("", "string"):
                bad = fmt.replace("-", "") not in supported
            elif typ == "integer":
                bad = fmt not in ("int32", "int64")
            elif typ == "number":
                bad = fmt not in ("float", "double")
            else:
                bad = True
            if bad:
                out.append(fmt)
    return out


def _list_type_set_warnings(spec: Any) -> set[str]:
    out = set()
    for tree in _spec_schemas(spec):
        for node in _walk(tree):
            item = _items(node)
            if node.get("x-kubernetes-list-type") == "set" and item is not None and item.get("type") in ("object", "array"):
                out.add(f'x-kubernetes-list-type: set for items of type "{item["type"]}" is not supported by '
                        "server-side apply or CEL validation rules")
    return out


def warnings_for_custom_resource_definition(crd: Any, old: Any = None) -> list[str]:
    """Go's CRD strategy WarningsOnCreate / WarningsOnUpdate: unrecognized formats (on update
    only the newly introduced ones) and x-kubernetes-list-type set over non-scalar items."""
    formats = _unrecognized_formats(crd.spec)
    if old is not None:
        known = set(_unrecognized_formats(old.spec))
        formats = [f for f in formats if f not in known]
    out = [f'unrecognized format "{f}"' for f in formats]
    sets = _list_type_set_warnings(crd.spec)
    if old is not None:
        sets -= _list_type_set_warnings(old.spec)
    return out + sorted(sets)


# --------------------------------------------------------------------------- entry points


def _name_fn(crd: Any) -> Any:
    def check(name: str, prefix: bool) -> list[str]:
        out = list(names.name_is_dns_subdomain(name, prefix))
        if name != crd.spec.names.plural + "." + crd.spec.group:
            out.append('must be spec.names.plural+"."+spec.group')
        return out

    return check


def validate_custom_resource_definition(crd: Any) -> ErrorList:
    """Go ``ValidateCustomResourceDefinition``."""
    errs = om.validate_object_meta(crd.metadata, False, _name_fn(crd), Path("metadata"))
    errs.extend(_validate_spec(crd.spec, _Options(), Path("spec")))
    errs.extend(_validate_status(crd.status, Path("status")))
    errs.extend(validate_custom_resource_definition_stored_versions(crd.status.stored_versions, crd.spec.versions,
                                                                    Path("status", "storedVersions")))
    errs.extend(_api_approval(crd, None))
    errs.extend(_preserve_unknown_fields(crd, None))
    return errs


def _established(crd: Any) -> bool:
    return any(c.type == "Established" and c.status == "True" for c in crd.status.conditions or ())


def _nonstructural(s: Mapping[str, Any]) -> bool:
    return _new_structural_error(s) is not None or bool(validate_structural(None, s))


def _unpruned_defaults(s: Mapping[str, Any]) -> bool:
    if not _schema_has(s, lambda n: "default" in n) or _nonstructural(s):
        return False
    errs = ErrorList()
    _validate_defaults(s, Path(""), True, False, True, errs)
    return any(e.detail == "must not have unknown fields" for e in errs)


def _non_atomic_set(n: Mapping[str, Any]) -> bool:
    item = _items(n)
    if n.get("x-kubernetes-list-type") != "set" or item is None:
        return False
    if item.get("type") == "array":
        return item.get("x-kubernetes-list-type") not in (None, "atomic")
    if item.get("type") == "object":
        return item.get("x-kubernetes-map-type") != "atomic"
    return False


def _allow_invalid_ca_bundle(old: Any) -> bool:
    """Go ``allowInvalidCABundle``: an invalid caBundle stays allowed before the CRD is
    Established, or when the stored one is invalid already."""
    if not _established(old):
        return True
    conv = old.spec.conversion
    if conv is None or conv.webhook_client_config is None or not conv.webhook_client_config.ca_bundle:
        return False
    return bool(_validate_ca_bundle(Path("caBundle"), bytes(conv.webhook_client_config.ca_bundle)))


def _update_options(new: Any, old: Any) -> _Options:
    """The validationOptions of Go ``ValidateCustomResourceDefinitionUpdate``: what the old
    object already broke is not required of the new one."""
    old_spec = old.spec
    trees = _spec_schemas(old_spec)
    conv = old_spec.conversion
    all_have_schema = (old_spec.validation is not None and old_spec.validation.open_apiv3_schema is not None) or all(
        v.schema is not None and v.schema.open_apiv3_schema is not None for v in old_spec.versions or ())
    too_many: dict[str, bool] = {}
    if len(old_spec.selectable_fields or ()) > MAX_SELECTABLE_FIELDS and new.spec.selectable_fields == old_spec.selectable_fields:
        too_many[""] = True
    old_versions = {v.name: v for v in old_spec.versions or ()}
    for v in new.spec.versions or ():
        o = old_versions.get(v.name)
        if o is not None and len(o.selectable_fields or ()) > MAX_SELECTABLE_FIELDS and v.selectable_fields == o.selectable_fields:
            too_many[v.name] = True
    return _Options(
        require_recognized_conversion_review_version=conv is None or not conv.conversion_review_versions or any(
            v in _CONVERSION_REVIEW_VERSIONS for v in conv.conversion_review_versions),
        require_immutable_names=_established(old),
        require_open_api_schema=all_have_schema,
        require_valid_property_type=not any(_schema_has(t, lambda n: bool(n.get("type")) and n["type"] not in _OPENAPI_V3_TYPES)
                                            for t in trees),
        require_structural_schema=not any(_nonstructural(t) for t in trees),
        require_pruned_defaults=not any(_unpruned_defaults(t) for t in trees),
        require_atomic_set_type=not any(_schema_has(t, _non_atomic_set) for t in trees),
        require_map_list_keys_map_set_validation=not any(
            _schema_has(t, lambda n: bool(_map_list_keys_map_set(n, Path("")))) for t in trees),
        allow_invalid_ca_bundle=_allow_invalid_ca_bundle(old),
        allow_too_many_selectable_fields=too_many,
    )


def validate_custom_resource_definition_update(new: Any, old: Any) -> ErrorList:
    """Go ``ValidateCustomResourceDefinitionUpdate``."""
    opts = _update_options(new, old)
    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    spec_path = Path("spec")
    errs.extend(_validate_spec(new.spec, opts, spec_path))
    if opts.require_immutable_names:
        errs.extend(om.validate_immutable_field(new.spec.scope, old.spec.scope, spec_path.child("scope")))
        errs.extend(om.validate_immutable_field(new.spec.names.kind, old.spec.names.kind, spec_path.child("names", "kind")))
    errs.extend(om.validate_immutable_field(new.spec.group, old.spec.group, spec_path.child("group")))
    errs.extend(om.validate_immutable_field(new.spec.names.plural, old.spec.names.plural, spec_path.child("names", "plural")))
    errs.extend(_validate_status(new.status, Path("status")))
    errs.extend(validate_custom_resource_definition_stored_versions(new.status.stored_versions, new.spec.versions,
                                                                    Path("status", "storedVersions")))
    errs.extend(_api_approval(new, old))
    errs.extend(_preserve_unknown_fields(new, old))
    return errs


def validate_custom_resource_definition_status_update(new: Any, old: Any) -> ErrorList:
    """Go ``ValidateUpdateCustomResourceDefinitionStatus``."""
    errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_status(new.status, Path("status")))
    return errs
