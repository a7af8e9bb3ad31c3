"""The checks of a CRD's ``x-kubernetes-validations`` rules when the CRD is written (Go:
k8s.io/apiextensions-apiserver ``pkg/apis/apiextensions/validation/validation.go``,
``ValidateCustomResourceDefinitionOpenAPISchema``: rule, message, messageExpression, reason
and fieldPath, then the compilation of each rule, with Go's field paths and texts).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kcodec.api.apiextensions.cel.compilation import compile_rule
from kcodec.api.apiextensions.cel.fieldpath import valid_field_path
from kcodec.api.apiextensions.cel.interpreter import cel_available
from kcodec.api.apiextensions.cel.model import _additional, _rules
from kcodec.validation import field
from kcodec.validation.field import ErrorList, Path

__all__ = ["validate_schema_rules"]

# Go: apiextensions types.go, the reasons a rule may give.
SUPPORTED_REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")


def validate_schema_rules(schema: Mapping[str, Any], path: Path, *, is_root: bool = True,
                          uncorrelatable: Path | None = None, is_resource: bool | None = None,
                          node: Mapping[str, Any] | None = None, compile_rules: bool = True) -> ErrorList:
    """The x-kubernetes-validations checks of apiextensions ``ValidateCustomResourceDefinitionOpenAPISchema``
    over a JSON schema tree whose place in the CRD is *path* (``spec.validation.openAPIV3Schema``):
    rule, message, messageExpression, reason and fieldPath, then compilation (when the
    CEL library is installed) with Go's field paths and detail texts. Rules directly under
    ``allOf`` are compiled against *node*, the schema the allOf belongs to, as Go's
    validator compiles them. Without *compile_rules* only the rule texts are checked (Go
    compiles nothing over a schema that is not structural: its CELSchemaContext is nil)."""
    from kcodec.api.apiextensions import internal

    errs = ErrorList()
    if not isinstance(schema, Mapping):
        return errs
    if is_resource is None:
        is_resource = is_root or bool(schema.get("x-kubernetes-embedded-resource"))
    rules = _rules(schema)
    schema_errs = ErrorList()
    for i, rule in enumerate(rules):
        p = path.child("x-kubernetes-validations").index(i)
        text, msg, msg_expr = rule.get("rule") or "", rule.get("message") or "", rule.get("messageExpression") or ""
        if not text.strip():
            schema_errs.append(field.required(p.child("rule"), "rule is not specified"))
        elif msg and not msg.strip():
            schema_errs.append(field.invalid(p.child("message"), msg, "must be non-empty if specified"))
        elif "\n" in msg.strip():
            schema_errs.append(field.invalid(p.child("message"), msg, "must not contain line breaks"))
        elif "\n" in text.strip() and not msg.strip():
            schema_errs.append(field.required(p.child("message"), "message must be specified if rule contains line breaks"))
        if msg_expr and not msg_expr.strip():
            schema_errs.append(field.required(p.child("messageExpression"), "messageExpression must be non-empty if specified"))
        reason = rule.get("reason")
        if reason is not None and reason not in SUPPORTED_REASONS:
            schema_errs.append(field.not_supported(p.child("reason"), reason, list(SUPPORTED_REASONS)))
        fp = rule.get("fieldPath")
        if fp:
            if not fp.strip():
                schema_errs.append(field.invalid(p.child("fieldPath"), fp, "must be non-empty if specified"))
            if "\n" in fp:
                schema_errs.append(field.invalid(p.child("fieldPath"), fp, "must not contain line breaks"))
            try:
                valid_field_path(fp, schema)
            except ValueError:
                schema_errs.append(field.invalid(p.child("fieldPath"), fp, "must be a valid path"))
    errs.extend(schema_errs)
    if rules and not schema_errs and compile_rules and cel_available():
        for i, rule in enumerate(rules):
            p = path.child("x-kubernetes-validations").index(i)
            bad = internal.ValidationRule(rule=rule.get("rule") or "", message=rule.get("message") or "",
                                          message_expression=rule.get("messageExpression") or "",
                                          reason=rule.get("reason"), field_path=rule.get("fieldPath") or "",
                                          optional_old_self=rule.get("optionalOldSelf"))
            cr = compile_rule(rule, node if node is not None else schema, is_resource)
            if cr.error is not None:
                errs.append(field.invalid(p.child("rule"), bad, cr.error))
            if cr.message_error is not None:
                errs.append(field.invalid(p.child("messageExpression"), bad, cr.message_error))
            if cr.error is None:
                if cr.uses_old_self:
                    if uncorrelatable is not None:
                        errs.append(field.invalid(p.child("rule"), rule.get("rule"),
                                                  f"oldSelf cannot be used on the uncorrelatable portion of the schema within {uncorrelatable}"))
                elif rule.get("optionalOldSelf") is not None:
                    errs.append(field.invalid(p.child("optionalOldSelf"), rule.get("optionalOldSelf"),
                                              "may not be set if oldSelf is not used in rule"))
    ap = _additional(schema)
    if ap is not None:
        errs.extend(validate_schema_rules(ap, path.child("additionalProperties"), is_root=False,
                                          uncorrelatable=uncorrelatable, compile_rules=compile_rules))
    props = schema.get("properties") or {}
    for name in sorted(props):
        sub_unc = uncorrelatable
        if schema.get("x-kubernetes-map-type") not in (None, "granular", "atomic") and sub_unc is None:
            sub_unc = path
        errs.extend(validate_schema_rules(props[name], path.child("properties").key(name), is_root=False,
                                          uncorrelatable=sub_unc, compile_rules=compile_rules))
    items = schema.get("items")
    if isinstance(items, Mapping):
        sub_unc = uncorrelatable
        if schema.get("x-kubernetes-list-type") != "map" and sub_unc is None:
            sub_unc = path
        errs.extend(validate_schema_rules(items, path.child("items"), is_root=False, uncorrelatable=sub_unc,
                                          compile_rules=compile_rules))
    for i, sub in enumerate(schema.get("allOf") or ()):
        errs.extend(validate_schema_rules(sub, path.child("allOf").index(i), is_root=False,
                                          uncorrelatable=uncorrelatable, is_resource=is_resource,
                                          node=node if node is not None else schema, compile_rules=compile_rules))
    # Go checks the rule texts under not, oneOf and anyOf too, compiling none (nil CEL context)
    if isinstance(schema.get("not"), Mapping):
        errs.extend(validate_schema_rules(schema["not"], path.child("not"), is_root=False,
                                          uncorrelatable=uncorrelatable, compile_rules=False))
    for key in ("oneOf", "anyOf"):
        for i, sub in enumerate(schema.get(key) or ()):
            if isinstance(sub, Mapping):
                errs.extend(validate_schema_rules(sub, path.child(key).index(i), is_root=False,
                                                  uncorrelatable=uncorrelatable, compile_rules=False))
    return errs
