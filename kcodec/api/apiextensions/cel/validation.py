"""Evaluating a custom resource's validation rules (Go: k8s.io/apiextensions-apiserver
``pkg/apiserver/schema/cel/validation.go``: the :class:`Validator` tree, its error texts,
transition rules, ``messageExpression``, ``reason``, ``fieldPath`` and ratcheting;
``NewValidator`` is :func:`new_validator`), within the cost limits of k8s.io/apiserver
``pkg/apis/cel/config.go``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kcodec.api.apiextensions.cel import loader
from kcodec.api.apiextensions.cel.compilation import compile_rule
from kcodec.api.apiextensions.cel.fieldpath import _child, _index, _key
from kcodec.api.apiextensions.cel.interpreter import _COST_EXCEEDED, CEL_UNAVAILABLE_WARNING, _Cost, _evaluate, load
from kcodec.api.apiextensions.cel.model import _additional, _rules, has_validation_rules
from kcodec.api.apiextensions.cel.types import (
    _FORMAT_NAMESPACE, _IP_NAMESPACE, _LISTS_NAMESPACE, _OPTIONAL_NAMESPACE, _SETS_NAMESPACE, _kubernetes_types,
    _net_types,
)
from kcodec.api.apiextensions.cel.values import _NO_OVERLOAD, _NONE, _EvalError, _Optional, _to_cel
from kcodec.validation import field
from kcodec.validation.field import ErrorList, Path

__all__ = ["Validator", "new_validator"]


#: apiserver pkg/apis/cel config.go: the cost one rule may spend (PerCallLimit) and the cost
#: all rules of one object may spend (RuntimeCELCostBudget). kcodec counts one unit per
#: evaluated expression node, which is close to cel-go's unit for the common operations
#: (cel-go also charges strings and lists by length).
PER_CALL_LIMIT = 1_000_000
RUNTIME_COST_BUDGET = 10_000_000

_OBJECT_OR_ARRAY = ("object", "array")


def _deep_equal(a: Any, b: Any) -> bool:
    """Go's equality.Semantic.DeepEqual on unstructured values: types must match too."""
    if type(a) is not type(b):
        return False
    if isinstance(a, Mapping):
        return a.keys() == b.keys() and all(_deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_deep_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


class Validator:
    """The rules of one schema node and the validators below it (Go ``cel.Validator``)."""

    __slots__ = ("schema", "rules", "compiled", "is_resource", "items", "additional", "properties", "all_of")

    def __init__(self, schema: Mapping[str, Any], is_resource: bool, node_schema: Mapping[str, Any] | None = None) -> None:
        node = node_schema if node_schema is not None else schema
        self.schema = node
        self.rules = _rules(schema)
        self.is_resource = is_resource
        self.compiled = [compile_rule(r, node, is_resource) for r in self.rules]
        items = schema.get("items")
        node_items = node.get("items")
        self.items = (_build(items, bool(node_items.get("x-kubernetes-embedded-resource")), node_items)
                      if isinstance(items, Mapping) and isinstance(node_items, Mapping) else None)
        ap, node_ap = _additional(schema), _additional(node)
        self.additional = (_build(ap, bool(node_ap.get("x-kubernetes-embedded-resource")), node_ap)
                           if ap is not None and node_ap is not None else None)
        self.properties: dict[str, Validator] = {}
        node_props = node.get("properties") or {}
        for name, sub in (schema.get("properties") or {}).items():
            if name in node_props and isinstance(sub, Mapping):
                v = _build(sub, bool(node_props[name].get("x-kubernetes-embedded-resource")), node_props[name])
                if v is not None:
                    self.properties[name] = v
        self.all_of = [v for v in (_build(a, is_resource, node) for a in (schema.get("allOf") or ())
                                   if isinstance(a, Mapping)) if v is not None]

    def __repr__(self) -> str:
        return f"Validator({len(self.rules)} rules, properties={sorted(self.properties)})"

    def validate(self, obj: Any, old: Any = None, path: Path | None = None, *, ratchet: bool = False,
                 warnings: list[str] | None = None) -> ErrorList:
        """The errors of *obj* (and *old* on an update: transition rules and ratcheting, Go's
        ``Validate`` with ``WithRatcheting``) at *path*. With *ratchet* (an update), an error of
        a rule without oldSelf on a value that equals its old value is a warning instead."""
        errs = ErrorList()
        budget = [RUNTIME_COST_BUDGET]
        self._validate(path, obj, old, ratchet, False, errs, warnings if warnings is not None else [], budget)
        return errs

    def _validate(self, path: Path | None, obj: Any, old: Any, ratchet: bool, parent_equal: bool,
                  errs: ErrorList, warnings: list[str], budget: list[int]) -> None:
        if obj is None or budget[0] < 0:
            return
        # common.CorrelatedObject: a value with a correlated old value ratchets when it equals
        # it; one without (items of set and atomic lists, new keys) when its nearest
        # correlated ancestor is unchanged.
        try:
            unchanged = _deep_equal(obj, old) if old is not None else parent_equal
        except RecursionError:
            unchanged = False
        self._expressions(path, obj, old, ratchet and unchanged, errs, warnings, budget)
        for v in self.all_of:
            v._validate(path, obj, old, ratchet, parent_equal, errs, warnings, budget)
        if isinstance(obj, list):
            if self.items is not None:
                old_items = _map_list(self.schema, old if isinstance(old, list) else None)
                for i, item in enumerate(obj):
                    self.items._validate(_index(path, i), item, old_items(item), ratchet, unchanged, errs, warnings,
                                         budget)
        elif isinstance(obj, Mapping):
            old_map = old if isinstance(old, Mapping) else {}
            if self.additional is not None:
                for k, v in obj.items():
                    self.additional._validate(_key(path, k), v, old_map.get(k), ratchet, unchanged, errs, warnings,
                                              budget)
            if self.properties:
                for k, v in obj.items():
                    sub = self.properties.get(k)
                    if sub is not None:
                        sub._validate(_child(path, k), v, old_map.get(k), ratchet, unchanged, errs, warnings,
                                      budget)

    def _expressions(self, path: Path | None, obj: Any, old: Any, unchanged: bool, errs: ErrorList,
                     warnings: list[str], budget: list[int]) -> None:
        if not self.compiled:
            return
        celpy = loader.celpy
        sts_type = self.schema.get("type") or ""
        try:
            self_val = _to_cel(obj, self.schema, self.is_resource)
        except (_EvalError, RecursionError) as exc:
            why = str(exc) if isinstance(exc, _EvalError) else "invalid data, nested too deeply"
            errs.append(field.invalid(path, sts_type, f"{why} evaluating rule: {_rule_error_string(self.rules[0])}"))
            return
        old_val = None
        if old is not None:
            try:
                old_val = _to_cel(old, self.schema, self.is_resource)
            except (_EvalError, RecursionError):
                old_val = None
        for rule, cr in zip(self.rules, self.compiled):
            if cr.error is not None:
                errs.append(field.invalid(path, sts_type, f"rule compile error: {cr.error}"))
                continue
            if cr.program is None:
                continue
            optional = bool(rule.get("optionalOldSelf"))
            if cr.uses_old_self and old is None and not optional:
                continue  # a transition rule needs an old value (CRDValidationRatcheting, on by default)
            activation: dict[str, Any] = {"self": self_val, "ip": _IP_NAMESPACE, "sets": _SETS_NAMESPACE,
                                          "lists": _LISTS_NAMESPACE, "optional": _OPTIONAL_NAMESPACE,
                                          "format": _FORMAT_NAMESPACE, "net": _net_types(),
                                          "kubernetes": _kubernetes_types(), "optional_type": _Optional}
            if optional:
                activation["oldSelf"] = _Optional(old_val) if old is not None else _NONE
            elif old is not None:
                activation["oldSelf"] = old_val
            if budget[0] <= 0:
                errs.append(field.invalid(path, sts_type, "validation failed due to running out of cost budget, "
                                                          "no further validation rules will be run"))
                budget[0] = -1
                return
            cost = _Cost(min(PER_CALL_LIMIT, budget[0]))
            result, err = _evaluate(cr.program, activation, cost)
            budget[0] -= cost.used
            if err == _COST_EXCEEDED:
                if cost.limit < PER_CALL_LIMIT:
                    errs.append(field.invalid(path, sts_type, "validation failed due to running out of cost budget, "
                                                              "no further validation rules will be run"))
                else:
                    errs.append(field.invalid(path, sts_type, f"'{err}': no further validation rules will be run "
                                                              f"due to call cost exceeds limit for rule: "
                                                              f"{_rule_error_string(rule)}"))
                budget[0] = -1
                return
            if err is not None:
                if err.startswith(_NO_OVERLOAD):
                    why = (f"'{_NO_OVERLOAD}': call arguments did not match a supported operator, function or "
                           f"macro signature for rule: {_rule_error_string(rule)}")
                else:
                    why = f"{err} evaluating rule: {_rule_error_string(rule)}"
                errs.append(field.invalid(path, sts_type, why))
                continue
            if isinstance(result, celpy.celtypes.BoolType) and bool(result):
                continue
            if not isinstance(result, celpy.celtypes.BoolType):
                errs.append(field.invalid(path, sts_type, f"{_NO_OVERLOAD} evaluating rule: {_rule_error_string(rule)}"))
                continue
            fld = path
            if cr.field_path:
                fld = _child(path, cr.field_path)
            detail = _message(cr.message_program, activation, budget) if cr.message_program is not None else None
            if detail is None:
                detail = _rule_message_or_default(rule)
            value = field.OMIT_VALUE if sts_type in _OBJECT_OR_ARRAY else obj
            e = _field_error_for_reason(fld, value, detail, rule.get("reason"))
            if not cr.uses_old_self and unchanged:
                warnings.append(str(e))
            else:
                errs.append(e)


def _map_list(schema: Mapping[str, Any], old: list[Any] | None) -> Callable[[Any], Any]:
    """Go ``makeMapList``: the old item with the same map keys, for list-type map lists only."""
    if not old or schema.get("x-kubernetes-list-type") != "map":
        return lambda item: None
    keys = schema.get("x-kubernetes-list-map-keys") or []
    items = schema.get("items")
    props = (items.get("properties") if isinstance(items, Mapping) else None) or {}

    def key_of(item: Any) -> Any:
        if not isinstance(item, Mapping):
            return None
        out = []
        for k in keys:
            v = item.get(k, (props.get(k) or {}).get("default"))
            out.append(repr(v))
        return tuple(out)

    index: dict[Any, Any] = {}
    for item in old:
        k = key_of(item)
        if k is not None:
            index.setdefault(k, item)
    return lambda item: index.get(key_of(item))


def _message(program: Any, activation: dict[str, Any], budget: list[int]) -> str | None:
    """evalMessageExpression: the trimmed message, or None to fall back to the rule's message."""
    cost = _Cost(min(PER_CALL_LIMIT, max(budget[0], 0)))
    result, err = _evaluate(program, activation, cost)
    budget[0] -= cost.used
    if err is not None or not isinstance(result, str):
        return None
    msg = result.strip()
    # celconfig.MaxEvaluatedMessageExpressionSizeBytes = 5 KiB
    if not msg or len(msg.encode()) > 5 * 1024 or "\n" in msg:
        return None
    return msg


def _rule_error_string(rule: Mapping[str, Any]) -> str:
    msg = (rule.get("message") or "").strip()
    return msg if msg else (rule.get("rule") or "").strip()


def _rule_message_or_default(rule: Mapping[str, Any]) -> str:
    msg = rule.get("message") or ""
    return msg.strip() if msg else f"failed rule: {_rule_error_string(rule)}"


def _field_error_for_reason(path: Path | None, value: Any, detail: str, reason: str | None) -> field.Error:
    if reason == "FieldValueForbidden":
        return field.forbidden(path, detail)
    if reason == "FieldValueRequired":
        return field.required(path, detail)
    if reason == "FieldValueDuplicate":
        return field.duplicate(path, value)
    return field.invalid(path, value, detail)


def _build(schema: Mapping[str, Any], is_resource: bool, node: Mapping[str, Any]) -> Validator | None:
    if not has_validation_rules(schema):
        return None
    return Validator(schema, is_resource, node)


def new_validator(schema: Mapping[str, Any] | None, is_resource_root: bool = True) -> Validator | None:
    """The validator of a CRD version's ``openAPIV3Schema`` (a JSON tree), or None when it has
    no rules (Go ``NewValidator``). Raises RuntimeError when it has rules and the CEL library
    is not installed."""
    if not isinstance(schema, Mapping) or not has_validation_rules(schema):
        return None
    if load() is None:
        raise RuntimeError(CEL_UNAVAILABLE_WARNING)
    return Validator(schema, is_resource_root)
