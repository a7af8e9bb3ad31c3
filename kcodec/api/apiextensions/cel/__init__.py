"""CEL validation rules of CRD schemas (``x-kubernetes-validations``), evaluated with the
pure-Python CEL library ``cel-python`` (module ``celpy``, the optional ``kcodec[cel]`` extra,
imported on first use: :mod:`.loader`).

Go: k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel`` and the k8s.io/apiserver
``pkg/cel`` packages it uses, one module each as Go splits them:

- :mod:`.escaping`: apiserver ``pkg/cel/escaping.go`` (property names as CEL field names);
- :mod:`.model`: ``schema/cel/model`` and apiserver ``pkg/cel/common/schemas.go`` (the CEL
  types of a structural schema);
- :mod:`.values`: apiserver ``pkg/cel/common/values.go``, ``valuesunstructured.go`` (JSON
  data as CEL values) and cel-go's equality and optional values;
- :mod:`.types`: apiserver ``pkg/cel/{url,quantity,ip,cidr,format}.go`` value types;
- :mod:`.library`: apiserver ``pkg/cel/library`` (lists, regex, urls, quantity, ip, cidr,
  format, semver) and cel-go's ``ext`` strings, lists and sets, optionals and operators;
- :mod:`.syntax`: cel-go's optional syntax (``a.?f``, ``m[?k]``, ``[?x]``, ``{?k: v}``)
  added to celpy's grammar, and cel-go's unquoting of triple-quoted strings;
- :mod:`.interpreter`: cel-go's interpreter and runtime cost, over celpy's;
- :mod:`.compilation`: ``schema/cel/compilation.go`` (:func:`compile_rule`) with the part
  of cel-go's checker that needs the schema;
- :mod:`.fieldpath`: ``ValidFieldPath`` of ``schema/cel/validation.go``;
- :mod:`.crd_rules`: the rule checks of apiextensions ``pkg/apis/apiextensions/validation``;
- :mod:`.validation`: ``schema/cel/validation.go`` (:class:`Validator`, :func:`new_validator`).

What cel-python cannot do as cel-go does, and what is done instead:

- cel-go type-checks a rule against the schema when the CRD is written; celpy only parses.
  :func:`compile_rule` adds the checks users meet most (see :mod:`.compilation`); other type
  errors surface when a rule is evaluated (``no such overload``), where Go would have
  refused the CRD.
- Syntax errors carry celpy's position and the words ``Syntax error: unexpected input``,
  not ANTLR's ``mismatched input ... expecting ...``.
- celpy's interpreter is subclassed (:mod:`.interpreter`) for cel-go's ``has()``,
  ``all``/``exists`` error rules, the lists library's ``min()`` and cel-go's extra
  comprehensions; operators are bound to cel-go's heterogeneous equality and the set/map
  list semantics.
- Cost: Go's runtime limits (a rule's PerCallLimit, an object's RuntimeCELCostBudget) with
  Go's texts, counted in evaluated expression nodes (:data:`.validation.PER_CALL_LIMIT`);
  no static cost estimation when a CRD is written.
- celpy's grammar has no optional syntax: :mod:`.syntax` extends it when the environment
  is built (message construction ``T{?f: v}`` is left out: CRD rules have no message types).
- Regular expressions run on re2 (Go's regexp is RE2 too); its errors are given Go's
  regexp/syntax texts, and a literal pattern of ``find``/``findAll`` fails the rule when it
  compiles, as regex.go's optimizations make it.
"""
from __future__ import annotations

from kcodec.api.apiextensions.cel.compilation import CompiledRule, compile_rule
from kcodec.api.apiextensions.cel.crd_rules import SUPPORTED_REASONS, validate_schema_rules
from kcodec.api.apiextensions.cel.escaping import escape
from kcodec.api.apiextensions.cel.fieldpath import valid_field_path
from kcodec.api.apiextensions.cel.interpreter import CEL_UNAVAILABLE_WARNING, cel_available
from kcodec.api.apiextensions.cel.model import has_validation_rules
from kcodec.api.apiextensions.cel.validation import Validator, new_validator

__all__ = [
    "cel_available",
    "CEL_UNAVAILABLE_WARNING",
    "escape",
    "has_validation_rules",
    "CompiledRule",
    "compile_rule",
    "Validator",
    "new_validator",
    "valid_field_path",
    "validate_schema_rules",
    "SUPPORTED_REASONS",
]
