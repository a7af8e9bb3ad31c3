"""CEL validation rules of CRD schemas (``x-kubernetes-validations``), evaluated with the
pure-Python CEL library ``cel-python`` (module ``celpy``, the optional ``kcodec[cel]`` extra).

Go: k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel/validation.go`` (the
:class:`Validator` tree, its error texts, transition rules, ``messageExpression``, ``reason``,
``fieldPath`` and ratcheting), ``compilation.go`` (:func:`compile_rule`), the type model of
``pkg/apiserver/schema/cel/model`` and apiserver ``pkg/cel/common/valuesunstructured.go``
(how JSON values become CEL values: objects, maps, lists, int-or-string, ``format`` strings
as durations, timestamps and bytes), apiserver ``pkg/cel/escaping.go`` (property names), and
the Kubernetes CEL libraries of apiserver ``pkg/cel/library`` (lists, regex, urls, quantity,
ip, cidr, format) with cel-go's ``ext`` strings (``format`` included), lists and sets
functions.

What cel-python cannot do as cel-go does, and what is done instead:

- cel-go type-checks a rule against the schema when the CRD is written; celpy only parses.
  :func:`compile_rule` adds the checks users meet most: a field the schema does not declare
  (``undefined field 'x'``), an unknown identifier (``undeclared reference to 'x'``),
  comparisons between values of certain different types, indexing an object, mixed-type
  literals, the lists library's overloads, constant ``matches``, ``duration`` and
  ``timestamp`` arguments, and a rule whose result is plainly not a bool.
  Other type errors surface when a rule is evaluated (``no such overload``), where Go would
  have refused the CRD.
- Syntax errors carry celpy's position and the words ``Syntax error: unexpected input``,
  not ANTLR's ``mismatched input ... expecting ...``.
- celpy's interpreter is subclassed (:func:`_runner_class`) for cel-go's ``has()``,
  ``all``/``exists`` error rules, the lists library's ``min()`` and cel-go's extra
  comprehensions; operators are bound to cel-go's heterogeneous equality and the set/map
  list semantics.
- Cost: Go's runtime limits (a rule's PerCallLimit, an object's RuntimeCELCostBudget) with
  Go's texts, counted in evaluated expression nodes (:data:`PER_CALL_LIMIT`); no static cost
  estimation when a CRD is written.
- Missing: the optional syntax ``a.?b`` / ``m[?k]`` and ``optMap`` (``optional.of``,
  ``optional.none``, ``optional.ofNonZeroValue``, ``hasValue``, ``value``, ``or``,
  ``orValue`` work), the ``semver`` library, newlines inside triple-quoted literals (celpy
  drops them), Go's regexp error texts (re2's are given).
"""
from __future__ import annotations

import base64
import binascii
import ipaddress
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from kcodec.validation import field
from kcodec.validation.field import ErrorList, Path

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
]

#: The warning the server gives when it stores a CRD with rules it cannot evaluate.
CEL_UNAVAILABLE_WARNING = (
    "x-kubernetes-validations rules are not evaluated: the CEL library is not installed "
    "(pip install 'kcodec[cel]')")

# Go: apiextensions types.go, the reasons a rule may give.
SUPPORTED_REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")

_celpy: Any = None
_env: Any = None


def _load() -> Any:
    """The celpy module, or None when it is not installed (imported once, on first use)."""
    global _celpy, _env
    if _celpy is None:
        try:
            import celpy
            import celpy.celtypes  # noqa: F401
            import celpy.evaluation  # noqa: F401
        except ImportError:
            _celpy = False
            return None
        # celpy.Environment raises the interpreter's recursion limit for good; rules are
        # short, so the process keeps the limit it had.
        limit = sys.getrecursionlimit()
        _celpy = celpy
        try:
            _env = celpy.Environment(runner_class=_runner_class())
        finally:
            sys.setrecursionlimit(limit)
    return _celpy or None


#: apiserver pkg/apis/cel config.go: the cost one rule may spend (PerCallLimit) and the cost
#: all rules of one object may spend (RuntimeCELCostBudget). kcodec counts one unit per
#: evaluated expression node, which is close to cel-go's unit for the common operations
#: (cel-go also charges strings and lists by length).
PER_CALL_LIMIT = 1_000_000
RUNTIME_COST_BUDGET = 10_000_000
_COST_EXCEEDED = "operation cancelled: actual cost limit exceeded"


class _Cost:
    """The cost an evaluation has spent, shared by the evaluators of its comprehensions."""

    __slots__ = ("used", "limit")

    def __init__(self, limit: int) -> None:
        self.used = 0
        self.limit = limit


class _CostExceeded(Exception):
    """Raised through celpy's interpreter when an evaluation spends more than its limit."""


def _runner_class() -> type:
    """celpy's interpreter with cel-go's semantics where celpy's differ: ``has()`` fails when
    an intermediate field is missing, ``all``/``exists`` raise an error only when no element
    decides the result, ``min()`` is the lists library's function, and the comprehensions
    cel-go adds (two variables, ``existsOne``, ``transformList``/``Map``/``MapEntry``,
    ``sortBy``, ``map`` with a filter)."""
    celpy = _celpy
    ev, ct = celpy.evaluation, celpy.celtypes
    from lark import Tree

    def var_name(arg: Any) -> str | None:
        t = arg
        while isinstance(t, Tree) and len(t.children) == 1 and t.data != "ident":
            t = t.children[0]
        if isinstance(t, Tree) and t.data == "ident":
            return str(t.children[0])
        return None

    class Evaluator(ev.Evaluator):  # type: ignore[misc, name-defined]
        cost: _Cost | None = None

        # Every node goes through visit(): celpy's visit_children is redone on it (lark's
        # calls its private _visit_tree) so that the cost counts each evaluated node.
        def visit(self, tree: Any) -> Any:
            cost = self.cost
            if cost is not None:
                cost.used += 1
                if cost.used > cost.limit:
                    raise _CostExceeded(_COST_EXCEEDED)
            return super().visit(tree)

        def visit_children(self, tree: Any) -> list[Any]:
            self.level += 1
            result = [self.visit(child) if isinstance(child, Tree) else child for child in tree.children]
            self.level -= 1
            return result

        def sub_evaluator(self, ast: Any) -> Any:
            sub = Evaluator(ast, activation=self.activation)
            sub.cost = self.cost
            return sub

        def macro_has_eval(self, exprlist: Any) -> Any:
            node = exprlist.children[0] if exprlist.children else None
            while isinstance(node, Tree) and node.data != "member_dot" and len(node.children) == 1:
                node = node.children[0]
            if isinstance(node, Tree) and node.data == "member_dot":
                target = self.visit(node.children[0])
                if isinstance(target, ev.CELEvalError):
                    return target
                if isinstance(target, Mapping):
                    key = ct.StringType(str(node.children[1]))
                    if key not in target:
                        return ct.BoolType(False)
                    if isinstance(target[key], ev.CELEvalError):
                        return target[key]  # data that did not fit its schema
                    return ct.BoolType(True)
                return ev.CELEvalError("invalid type for field selection.")
            return super().macro_has_eval(exprlist)

        def member_dot_arg(self, tree: Any) -> Any:
            name = str(tree.children[1])
            args = tree.children[2].children if len(tree.children) > 2 and tree.children[2] is not None else []
            if name == "min" and not args:
                target = self.visit(tree.children[0])
                if isinstance(target, ev.CELEvalError):
                    return target
                return _functions()["min"](target)
            if name not in _MACROS or len(args) < 2 or var_name(args[0]) is None:
                return super().member_dot_arg(tree)
            target = self.visit(tree.children[0])
            if isinstance(target, ev.CELEvalError):
                return target
            two = name in ("transformList", "transformMap", "transformMapEntry") or (name in _TWO_VARS and len(args) == 3)
            v1 = var_name(args[0])
            v2 = var_name(args[1]) if two else None
            if two and v2 is None:
                return ev.CELEvalError(_NO_OVERLOAD)
            exprs = [self.sub_evaluator(a) for a in args[2 if two else 1:]]
            if isinstance(target, Mapping):
                pairs = [(k, target[k]) for k in target]
            elif isinstance(target, list):
                pairs = [(ct.IntType(i), x) for i, x in enumerate(target)]
            else:
                return ev.CELEvalError(_NO_OVERLOAD)
            is_list = isinstance(target, list)

            def bind(pair: tuple[Any, Any]) -> dict[Any, Any]:
                if two:
                    return {v1: pair[0], v2: pair[1]}
                return {v1: pair[1] if is_list else pair[0]}

            def run(i: int, pair: tuple[Any, Any]) -> Any:
                try:
                    return exprs[i].evaluate(bind(pair))
                except ev.CELEvalError as exc:
                    return exc

            if name in ("all", "exists"):
                want = name == "exists"
                error = None
                for pair in pairs:
                    r = run(0, pair)
                    if isinstance(r, ct.BoolType):
                        if bool(r) == want:
                            return ct.BoolType(want)
                    elif error is None:
                        error = r if isinstance(r, ev.CELEvalError) else ev.CELEvalError(_NO_OVERLOAD)
                return error if error is not None else ct.BoolType(not want)
            if name in ("exists_one", "existsOne"):
                count = 0
                for pair in pairs:
                    r = run(0, pair)
                    if not isinstance(r, ct.BoolType):
                        return r if isinstance(r, ev.CELEvalError) else ev.CELEvalError(_NO_OVERLOAD)
                    count += bool(r)
                return ct.BoolType(count == 1)
            filtered = []
            for pair in pairs:
                if len(exprs) == 2 or name == "filter":
                    keep = run(0, pair)
                    if not isinstance(keep, ct.BoolType):
                        return keep if isinstance(keep, ev.CELEvalError) else ev.CELEvalError(_NO_OVERLOAD)
                    if not keep:
                        continue
                if name == "filter":
                    filtered.append((pair, pair[1] if is_list else pair[0]))
                    continue
                out = run(len(exprs) - 1, pair)
                if isinstance(out, ev.CELEvalError):
                    return out
                filtered.append((pair, out))
            if name == "filter":
                return ct.ListType([v for _, v in filtered])
            if name in ("map", "transformList"):
                return ct.ListType([v for _, v in filtered])
            if name == "transformMap":
                return ct.MapType({p[0]: v for p, v in filtered})
            if name == "transformMapEntry":
                merged: dict[Any, Any] = {}
                for _, entry in filtered:
                    if not isinstance(entry, Mapping):
                        return ev.CELEvalError(_NO_OVERLOAD)
                    for k, v in entry.items():
                        if k in merged:
                            return ev.CELEvalError(f"insert failed: key {k} already exists")
                        merged[k] = v
                return ct.MapType(merged)
            # sortBy(e, key): the list in the order of its keys (stable)
            keys = [v for _, v in filtered]
            try:
                order = sorted(range(len(keys)), key=lambda i: keys[i])
            except TypeError:
                return ev.CELEvalError(_NO_OVERLOAD)
            return ct.ListType([target[i] for i in order])

    class Runner(celpy.InterpretedRunner):  # type: ignore[misc, name-defined]
        def evaluate(self, context: Any, cost: _Cost | None = None) -> Any:
            e = Evaluator(ast=self.ast, activation=self.new_activation())
            e.cost = cost
            return e.evaluate(context)

    return Runner


def cel_available() -> bool:
    """True when the CEL library (``cel-python``) is installed."""
    return _load() is not None


# -- escaping (apiserver pkg/cel/escaping.go) ------------------------------------------------

_RESERVED = frozenset({
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
})
# reserved words the lexer reads as literals or operators: never a field name after '.'
_LEXER_KEYWORDS = frozenset({"true", "false", "null", "in"})
_IDENT_CHARS = re.compile(r"[a-zA-Z0-9_./-]*\Z")
_EXPAND = re.compile(r"__|[-./]")
_EXPANSIONS = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}


def escape(ident: str) -> str | None:
    """The CEL field name of property *ident* (Go ``cel.Escape``), None when it has none."""
    if not ident or ident[0] in "0123456789":
        return None
    if ident in _RESERVED:
        return f"__{ident}__"
    if not _IDENT_CHARS.match(ident):
        return None
    return _EXPAND.sub(lambda m: _EXPANSIONS[m.group(0)], ident)


# -- schema helpers -------------------------------------------------------------------------

_META_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}}
_STRING = {"type": "string"}


def _rules(s: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(s.get("x-kubernetes-validations") or [])


def _additional(s: Mapping[str, Any]) -> Mapping[str, Any] | None:
    ap = s.get("additionalProperties")
    return ap if isinstance(ap, Mapping) else None


def _is_dyn(s: Mapping[str, Any]) -> bool:
    """No type: int-or-string, or anything under x-kubernetes-preserve-unknown-fields."""
    return not s.get("type")


def _with_type_and_object_meta(s: Mapping[str, Any]) -> Mapping[str, Any]:
    """model.WithTypeAndObjectMeta: a resource's schema with apiVersion and kind strings and a
    metadata of name and generateName only, unless it declares all of those already."""
    props = s.get("properties") or {}
    meta = props.get("metadata") or {}
    meta_props = meta.get("properties") or {}
    if ((props.get("kind") or {}).get("type") == "string" and (props.get("apiVersion") or {}).get("type") == "string"
            and meta.get("type") == "object" and (meta_props.get("name") or {}).get("type") == "string"
            and (meta_props.get("generateName") or {}).get("type") == "string"):
        return s
    return {**s, "type": s.get("type") or "object",
            "properties": {**props, "kind": _STRING, "apiVersion": _STRING, "metadata": _META_SCHEMA}}


def _has_decl_type(s: Any) -> bool:
    """Whether model.SchemaDeclType gives *s* a CEL type: a value of no type is one only when
    it is int-or-string; lists and maps need typed items. Properties without one cannot be
    selected (they are left out of their object's type)."""
    if not isinstance(s, Mapping):
        return False
    t = s.get("type")
    if not t:
        return bool(s.get("x-kubernetes-int-or-string"))
    if t == "array":
        return _has_decl_type(s.get("items"))
    if t == "object" and not s.get("properties") and _additional(s) is not None:
        return _has_decl_type(_additional(s))
    return True


def _fields(s: Mapping[str, Any], is_resource: bool) -> dict[str, tuple[str, Mapping[str, Any]]] | None:
    """CEL field name -> (property, schema) of an object type; None for a map or dyn."""
    if is_resource:
        s = _with_type_and_object_meta(s)
    if _is_dyn(s) or s.get("type") != "object" or (_additional(s) is not None and not s.get("properties")):
        return None
    out: dict[str, tuple[str, Mapping[str, Any]]] = {}
    for name, sub in (s.get("properties") or {}).items():
        esc = escape(name)
        if esc is not None and _has_decl_type(sub):
            out[esc] = (name, sub)
            if name in _RESERVED and name not in _LEXER_KEYWORDS:
                out[name] = (name, sub)  # cel-go also selects a reserved word unescaped after a '.'
    return out


def has_validation_rules(schema: Mapping[str, Any] | None) -> bool:
    """Whether *schema* (a JSON schema tree) has an x-kubernetes-validations rule anywhere
    (Go ``hasXValidations``, also under allOf as the CRD validator sees them)."""
    if not isinstance(schema, Mapping):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    if has_validation_rules(schema.get("items")) or has_validation_rules(_additional(schema)):
        return True
    if any(has_validation_rules(p) for p in (schema.get("properties") or {}).values()):
        return True
    return any(has_validation_rules(a) for a in (schema.get("allOf") or ()))


# -- values (apiserver pkg/cel/common/valuesunstructured.go) ----------------------------------

class _EvalError(Exception):
    """A rule failed to evaluate; the text is Go's."""


def _set_list(items: list[Any]) -> Any:
    """A list with x-kubernetes-list-type set: compared and concatenated as a set
    (apiserver common/valuesunstructured.go unstructuredSetList)."""
    return _celpy_list_class("set")(items)


def _map_list_value(items: list[Any], keys: list[str]) -> Any:
    """A list with x-kubernetes-list-type map: compared by key, and concatenation replaces
    items with the same keys (unstructuredMapList)."""
    v = _celpy_list_class("map")(items)
    v.keys = tuple(escape(k) or k for k in keys)
    return v


_LIST_CLASSES: dict[str, type] = {}


def _celpy_list_class(kind: str) -> type:
    cls = _LIST_CLASSES.get(kind)
    if cls is None:
        base = _celpy.celtypes.ListType
        attrs: dict[str, Any] = {"__slots__": () if kind == "set" else ("keys",), "list_type": kind}
        cls = type("SetList" if kind == "set" else "MapList", (base,), attrs)
        _LIST_CLASSES[kind] = cls
    return cls


def _member(value: Any, s: Mapping[str, Any] | None, is_resource: bool) -> Any:
    """A field, item or map value: data that does not fit its schema is an error value, which
    fails only the rules that read it (valuesunstructured.go returns types.Err there)."""
    try:
        return _to_cel(value, s, is_resource)
    except _EvalError as exc:
        return _celpy.evaluation.CELEvalError(str(exc))


def _to_cel(value: Any, s: Mapping[str, Any] | None, is_resource: bool = False) -> Any:
    celpy = _celpy
    ct = celpy.celtypes
    if value is None:
        if s is not None and not s.get("nullable") and not _is_dyn(s):
            raise _EvalError("invalid data, got null for schema with nullable=false")
        return None
    if s is not None and s.get("x-kubernetes-int-or-string") and not s.get("type"):
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise _EvalError("invalid data, expected XIntOrString value to be either a string or integer")
        return ct.IntType(value) if isinstance(value, int) else ct.StringType(value)
    if s is None or _is_dyn(s):
        return _json_to_cel(value)
    t = s.get("type")
    if t == "object":
        if not isinstance(value, Mapping):
            raise _EvalError("invalid data, expected a map for the provided schema with type=object")
        fields = _fields(s, is_resource)
        if fields is None:
            ap = _additional(s)
            emb = bool(ap and ap.get("x-kubernetes-embedded-resource"))
            return ct.MapType({ct.StringType(k): _member(v, ap, emb) for k, v in value.items()})
        out = {}
        declared = set()
        for esc, (name, sub) in fields.items():
            declared.add(name)
            if value.get(name) is not None:
                out[ct.StringType(esc)] = _member(value[name], sub, bool(sub.get("x-kubernetes-embedded-resource")))
        # Fields the type does not declare cannot be selected (the compile checks refuse
        # them) but are part of the value, as in Go's unstructured objects: equality sees them.
        for name, v in value.items():
            if name not in declared and name not in out and not (is_resource and name == "metadata"):
                out[ct.StringType(name)] = _json_to_cel(v)
        return ct.MapType(out)
    if t == "array":
        if not isinstance(value, list):
            raise _EvalError("invalid data, expected an array for the provided schema with type=array")
        items = s.get("items") if isinstance(s.get("items"), Mapping) else None
        emb = bool(items and items.get("x-kubernetes-embedded-resource"))
        converted = [_member(v, items, emb) for v in value]
        list_type = s.get("x-kubernetes-list-type")
        if list_type == "set":
            return _set_list(converted)
        if list_type == "map":
            return _map_list_value(converted, list(s.get("x-kubernetes-list-map-keys") or ()))
        return ct.ListType(converted)
    if t == "string":
        if not isinstance(value, str):
            raise _EvalError(f"invalid data, expected string, got {_go_type(value)}")
        fmt = s.get("format")
        if fmt == "duration":
            try:
                return ct.DurationType(value)
            except Exception:  # noqa: BLE001 - celpy raises ValueError or its own errors
                raise _EvalError(f"Invalid duration {value}") from None
        if fmt in ("date", "date-time"):
            try:
                return ct.TimestampType(value if fmt == "date-time" else value + "T00:00:00Z")
            except Exception:  # noqa: BLE001
                raise _EvalError(f"Invalid {fmt} formatted string {value}") from None
        if fmt == "byte":
            try:
                return ct.BytesType(base64.b64decode(value, validate=True))
            except (binascii.Error, ValueError):
                raise _EvalError(f"Invalid byte formatted string {value}") from None
        return ct.StringType(value)
    if t == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _EvalError(f"invalid data, expected float, got {_go_type(value)}")
        return ct.DoubleType(float(value))
    if t == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _EvalError(f"invalid data, expected int, got {_go_type(value)}")
        return ct.IntType(value)
    if t == "boolean":
        if not isinstance(value, bool):
            raise _EvalError(f"invalid data, expected bool, got {_go_type(value)}")
        return ct.BoolType(value)
    return _json_to_cel(value)


def _go_type(v: Any) -> str:
    return {bool: "bool", int: "int64", float: "float64", str: "string", list: "[]interface {}",
            dict: "map[string]interface {}"}.get(type(v), type(v).__name__)


def _json_to_cel(value: Any) -> Any:
    ct = _celpy.celtypes
    if value is None:
        return None
    if isinstance(value, bool):
        return ct.BoolType(value)
    if isinstance(value, int):
        return ct.IntType(value)
    if isinstance(value, float):
        return ct.DoubleType(value)
    if isinstance(value, str):
        return ct.StringType(value)
    if isinstance(value, list):
        return ct.ListType([_json_to_cel(v) for v in value])
    if isinstance(value, Mapping):
        return ct.MapType({ct.StringType(k): _json_to_cel(v) for k, v in value.items()})
    return value


# -- library types --------------------------------------------------------------------------

class _Optional:
    """cel-go's optional value (``optional.of(x)``, ``optional.none()``): the type of
    ``oldSelf`` in a rule with optionalOldSelf, and of the format library's results."""

    __slots__ = ("v", "present")

    def __init__(self, v: Any, present: bool = True) -> None:
        self.v = v
        self.present = present

    def __repr__(self) -> str:
        return f"optional.of({self.v!r})" if self.present else "optional.none()"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Optional) or self.present != other.present:
            return False
        return not self.present or _cel_equal(self.v, other.v)

    def __hash__(self) -> int:
        return hash(("optional", self.present))


_NONE = _Optional(None, False)


class _Format:
    """apiserver pkg/cel/format.go: a named string format (``format.dns1123Label()``)."""

    __slots__ = ("name", "check")

    def __init__(self, name: str, check: Callable[[str], list[str]]) -> None:
        self.name = name
        self.check = check

    def __repr__(self) -> str:
        return f"format.{self.name}()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Format) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)


def _formats() -> dict[str, _Format]:
    """library/format.go ConstantFormats, with kcodec's ports of apimachinery's validators."""
    from kcodec.validation import names

    def regex_check(pattern: str, message: str) -> Callable[[str], list[str]]:
        compiled = re.compile(pattern)
        return lambda s: [] if compiled.match(s) else [message]

    def byte_check(s: str) -> list[str]:
        try:
            base64.b64decode(s, validate=True)
        except (binascii.Error, ValueError):
            return ["invalid base64"]
        return []

    def uri_check(s: str) -> list[str]:
        return [] if _parse_request_uri(s) else [f"parse {s!r}: invalid URI for request"]

    return {
        "dns1123Label": _Format("dns1123Label", lambda s: names.name_is_dns_label(s, False)),
        "dns1123Subdomain": _Format("dns1123Subdomain", lambda s: names.name_is_dns_subdomain(s, False)),
        "dns1035Label": _Format("dns1035Label", lambda s: names.name_is_dns1035_label(s, False)),
        "qualifiedName": _Format("qualifiedName", names.is_qualified_name),
        "dns1123LabelPrefix": _Format("dns1123LabelPrefix", lambda s: names.name_is_dns_label(s, True)),
        "dns1123SubdomainPrefix": _Format("dns1123SubdomainPrefix", lambda s: names.name_is_dns_subdomain(s, True)),
        "dns1035LabelPrefix": _Format("dns1035LabelPrefix", lambda s: names.name_is_dns1035_label(s, True)),
        "labelValue": _Format("labelValue", names.is_valid_label_value),
        "uri": _Format("uri", uri_check),
        # go-openapi strfmt's patterns
        "uuid": _Format("uuid", regex_check(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\Z",
                                            "does not match the UUID format")),
        "byte": _Format("byte", byte_check),
        "date": _Format("date", regex_check(r"\d{4}-\d{2}-\d{2}\Z", "invalid date")),
        "datetime": _Format("datetime", lambda s: [] if _RFC3339.match(s) else ["invalid datetime"]),
    }


class _URL:
    """apiserver pkg/cel/url.go: a URL value (``url('https://...')``)."""

    __slots__ = ("text", "parts")

    def __init__(self, text: str) -> None:
        self.text = text
        self.parts = urlsplit(text)

    def __repr__(self) -> str:
        return f"url({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _URL) and self.text == other.text

    def __hash__(self) -> int:
        return hash(self.text)


class _Quantity:
    """apiserver pkg/cel/quantity.go: a resource.Quantity value."""

    __slots__ = ("q",)

    def __init__(self, q: Any) -> None:
        self.q = q

    def __repr__(self) -> str:
        return f"quantity({str(self.q)!r})"

    def __str__(self) -> str:
        return str(self.q)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Quantity) and self.q.cmp(other.q) == 0

    def __hash__(self) -> int:
        return hash(self.q)


class _IP:
    """apiserver pkg/cel/ip.go."""

    __slots__ = ("addr",)

    def __init__(self, addr: Any) -> None:
        self.addr = addr

    def __repr__(self) -> str:
        return f"ip({str(self.addr)!r})"

    def __str__(self) -> str:
        return str(self.addr)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _IP) and self.addr == other.addr

    def __hash__(self) -> int:
        return hash(self.addr)


class _CIDR:
    """apiserver pkg/cel/cidr.go: an address and its prefix (``cidr('10.0.0.1/8')`` keeps the address)."""

    __slots__ = ("iface",)

    def __init__(self, iface: Any) -> None:
        self.iface = iface

    def __repr__(self) -> str:
        return f"cidr({str(self.iface)!r})"

    def __str__(self) -> str:
        return str(self.iface)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _CIDR) and self.iface == other.iface

    def __hash__(self) -> int:
        return hash(self.iface)


_NO_OVERLOAD = "no such overload"


class _Namespace:
    """The ``ip`` in ``ip.isCanonical(s)``: cel-go resolves the qualified function name; celpy
    sees a variable, bound to this."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ip"


_IP_NAMESPACE = _Namespace()


def _overload() -> _EvalError:
    return _EvalError(_NO_OVERLOAD)


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_list(v: Any) -> bool:
    return isinstance(v, list)


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _overload()
    return int(v)


def _regex() -> Any:
    try:
        import re2  # google-re2 comes with cel-python; Go's regexp is RE2 too

        return re2
    except ImportError:  # pragma: no cover - cel-python depends on it
        return re


def _compile_regex(pattern: str) -> Any:
    try:
        return _regex().compile(pattern)
    except Exception as exc:  # noqa: BLE001 - re2 and re raise different errors
        raise _EvalError(f"Illegal regex: {exc}") from None


def _parse_ip(s: str) -> Any:
    # Go's library refuses IPv4-mapped IPv6 addresses and zones (apiserver library/ip.go).
    if "%" in s:
        raise _EvalError(f"IP address with zone value is not allowed: {s}")
    try:
        addr = ipaddress.ip_address(s)
    except ValueError:
        raise _EvalError(f"IP Address {s!r} parse error during conversion from string: "
                         f"ParseAddr({s!r}): unable to parse IP") from None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise _EvalError(f"IPv4-mapped IPv6 address is not allowed: {s}")
    return addr


def _parse_cidr(s: str) -> Any:
    if "%" in s:
        raise _EvalError(f"CIDR with zone value is not allowed: {s}")
    try:
        iface = ipaddress.ip_interface(s)
    except ValueError:
        raise _EvalError(f"network address parse error during conversion from string: "
                         f"netip.ParsePrefix({s!r}): bad prefix") from None
    if "/" not in s:
        raise _EvalError(f"network address parse error during conversion from string: "
                         f"netip.ParsePrefix({s!r}): no '/'")
    if isinstance(iface.ip, ipaddress.IPv6Address) and iface.ip.ipv4_mapped is not None:
        raise _EvalError(f"IPv4-mapped IPv6 address is not allowed: {s}")
    return iface


def _parse_request_uri(s: str) -> bool:
    """Whether Go's url.ParseRequestURI accepts *s*: an absolute URL or an absolute path,
    no control characters, a host with a numeric port if any."""
    if not s or any(ord(c) < 0x20 or c == "\x7f" for c in s):
        return False
    if s.startswith("/"):
        return True
    m = re.match(r"([a-zA-Z][a-zA-Z0-9+.-]*):(.*)\Z", s, re.S)
    if m is None:
        return False
    rest = m.group(2).split("#", 1)[0]
    if rest.startswith("//"):
        authority = re.split(r"[/?]", rest[2:], maxsplit=1)[0]
        host = authority.rpartition("@")[2]
        if host.startswith("["):
            end = host.find("]")
            if end < 0 or (host[end + 1:] and not re.fullmatch(r":[0-9]*", host[end + 1:])):
                return False
        elif ":" in host and not re.fullmatch(r"[^:]*:[0-9]*", host):
            return False
        if " " in host:
            return False
    elif not rest.startswith("/"):
        return False  # ParseRequestURI: an opaque URL (scheme:path) is not a request URI
    return True


def _escaped_path(path: str) -> str:
    """Go's URL.EscapedPath (the path's encodePath escaping)."""
    from urllib.parse import quote, unquote

    return quote(unquote(path), safe="/!$&'()*+,;=:@~")


def _quantity(v: Any) -> Any:
    from kcodec.types import Quantity

    if not isinstance(v, _Quantity):
        if isinstance(v, bool) or not isinstance(v, int):
            raise _overload()
        return Quantity(str(int(v)))
    return v.q


def _quantity_sum(a: Any, b: Any, sign: int) -> _Quantity:
    from kcodec.types import Quantity

    x, y = _quantity(a), _quantity(b)
    # value = m * 10**e (kcodec.types.Quantity), summed exactly as inf.Dec would.
    e = min(x._e, y._e)
    m = x._m * 10 ** (x._e - e) + sign * y._m * 10 ** (y._e - e)
    text = str(m) + (f"e{e}" if e else "")
    q = Quantity(text)
    fmt = x._format or "DecimalSI"
    if fmt != q._format:
        q = Quantity._make(q._m, q._e, fmt, q._dec)
    return _Quantity(q)


def _lib() -> dict[str, Callable[..., Any]]:
    """The functions of apiserver pkg/cel/library and cel-go's ext strings, by name; each
    checks its receiver's type as cel-go's overloads do."""
    ct = _celpy.celtypes

    def cmp_list(values: list[Any]) -> None:
        for a, b in zip(values, values[1:]):
            if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
                raise _overload()

    def is_sorted(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        cmp_list(lst)
        return ct.BoolType(all(a <= b for a, b in zip(lst, lst[1:])))

    def sum_(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        if not lst:
            return ct.IntType(0)
        total = lst[0]
        for v in lst[1:]:
            total = total + v
        return total

    def min_(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        if not lst:
            raise _EvalError("min called on empty list")
        cmp_list(lst)
        return min(lst)

    def max_(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        if not lst:
            raise _EvalError("max called on empty list")
        cmp_list(lst)
        return max(lst)

    def index_of(target: Any, item: Any, *rest: Any) -> Any:
        if _is_list(target):
            if rest:
                raise _overload()
            for i, v in enumerate(target):
                if _equal(v, item):
                    return ct.IntType(i)
            return ct.IntType(-1)
        if _is_str(target) and _is_str(item):
            start = _int(rest[0]) if rest else 0
            if start < 0 or start > len(target):
                raise _EvalError(f"index out of range: {start}")
            return ct.IntType(target.find(item, start))
        raise _overload()

    def last_index_of(target: Any, item: Any, *rest: Any) -> Any:
        if _is_list(target):
            if rest:
                raise _overload()
            for i in range(len(target) - 1, -1, -1):
                if _equal(target[i], item):
                    return ct.IntType(i)
            return ct.IntType(-1)
        if _is_str(target) and _is_str(item):
            end = _int(rest[0]) if rest else len(target)
            if end < 0 or end > len(target):
                raise _EvalError(f"index out of range: {end}")
            if item == "":
                return ct.IntType(end)
            return ct.IntType(target.rfind(item, 0, end + len(item)))
        raise _overload()

    def find(s: Any, pattern: Any) -> Any:
        if not (_is_str(s) and _is_str(pattern)):
            raise _overload()
        m = _compile_regex(pattern).search(s)
        return ct.StringType(m.group(0) if m else "")

    def find_all(s: Any, pattern: Any, *rest: Any) -> Any:
        if not (_is_str(s) and _is_str(pattern)):
            raise _overload()
        n = _int(rest[0]) if rest else -1
        found = [m.group(0) for m in _compile_regex(pattern).finditer(s)]
        if n >= 0:
            found = found[:n]
        return ct.ListType([ct.StringType(x) for x in found])

    def char_at(s: Any, i: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        i = _int(i)
        if i < 0 or i > len(s):
            raise _EvalError(f"index out of range: {i}")
        return ct.StringType(s[i] if i < len(s) else "")

    def lower_ascii(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.StringType("".join(c.lower() if c.isascii() else c for c in s))

    def upper_ascii(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.StringType("".join(c.upper() if c.isascii() else c for c in s))

    def replace(s: Any, old: Any, new: Any, *rest: Any) -> Any:
        if not (_is_str(s) and _is_str(old) and _is_str(new)):
            raise _overload()
        n = _int(rest[0]) if rest else -1
        return ct.StringType(s.replace(old, new, n))

    def split(s: Any, sep: Any, *rest: Any) -> Any:
        if not (_is_str(s) and _is_str(sep)):
            raise _overload()
        n = _int(rest[0]) if rest else -1
        if n == 0:
            return ct.ListType([])
        if sep == "":
            parts = list(s)
            if n > 0 and len(parts) > n:
                parts = parts[:n - 1] + ["".join(parts[n - 1:])]
        else:
            parts = s.split(sep, n - 1) if n > 0 else s.split(sep)
        return ct.ListType([ct.StringType(p) for p in parts])

    def substring(s: Any, start: Any, *rest: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        start = _int(start)
        end = _int(rest[0]) if rest else len(s)
        if start < 0 or start > len(s):
            raise _EvalError(f"index out of range: {start}")
        if end < 0 or end > len(s):
            raise _EvalError(f"index out of range: {end}")
        if start > end:
            raise _EvalError(f"invalid substring range. start: {start}, end: {end}")
        return ct.StringType(s[start:end])

    def trim(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.StringType(s.strip())

    def join(lst: Any, *rest: Any) -> Any:
        if not _is_list(lst) or not all(_is_str(x) for x in lst) or (rest and not _is_str(rest[0])):
            raise _overload()
        return ct.StringType((rest[0] if rest else "").join(lst))

    def reverse(s: Any) -> Any:
        if _is_str(s):
            return ct.StringType(s[::-1])
        if _is_list(s):
            return ct.ListType(list(reversed(s)))
        raise _overload()

    def url(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        if not _parse_request_uri(s):
            raise _EvalError(f"URL parse error during conversion from string: parse {s!r}: invalid URI for request")
        return _URL(s)

    def is_url(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.BoolType(_parse_request_uri(s))

    def url_part(name: str) -> Callable[[Any], Any]:
        def get(u: Any) -> Any:
            if not isinstance(u, _URL):
                raise _overload()
            p = u.parts
            if name == "scheme":
                return ct.StringType(p.scheme)
            if name == "host":
                return ct.StringType(p.netloc.rpartition("@")[2])
            if name == "hostname":
                host = p.netloc.rpartition("@")[2]
                if host.startswith("["):
                    return ct.StringType(host[1:host.find("]")])
                return ct.StringType(host.rsplit(":", 1)[0] if ":" in host else host)
            if name == "port":
                host = p.netloc.rpartition("@")[2]
                tail = host[host.find("]") + 1:] if host.startswith("[") else host
                return ct.StringType(tail.rsplit(":", 1)[1] if ":" in tail else "")
            if name == "path":
                return ct.StringType(_escaped_path(p.path))
            query = parse_qs(p.query, keep_blank_values=True)
            return ct.MapType({ct.StringType(k): ct.ListType([ct.StringType(x) for x in v]) for k, v in query.items()})
        return get

    def quantity(s: Any) -> Any:
        from kcodec.errors import KCodecError
        from kcodec.types import Quantity

        if not _is_str(s):
            raise _overload()
        try:
            return _Quantity(Quantity.parse(s))
        except KCodecError as exc:
            raise _EvalError(str(exc)) from None

    def is_quantity(s: Any) -> Any:
        from kcodec.errors import KCodecError
        from kcodec.types import Quantity

        if not _is_str(s):
            raise _overload()
        try:
            Quantity.parse(s)
        except KCodecError:
            return ct.BoolType(False)
        return ct.BoolType(True)

    def sign(q: Any) -> Any:
        if not isinstance(q, _Quantity):
            raise _overload()
        return ct.IntType(q.q.sign())

    def compare(q: Any, other: Any) -> int:
        if not isinstance(q, _Quantity) or not isinstance(other, _Quantity):
            raise _overload()
        return q.q.cmp(other.q)

    def as_integer(q: Any) -> Any:
        if not isinstance(q, _Quantity):
            raise _overload()
        v = _exact_int(q.q)
        if v is None:
            raise _EvalError("cannot convert value to integer")
        return ct.IntType(v)

    def is_integer(q: Any) -> Any:
        if not isinstance(q, _Quantity):
            raise _overload()
        return ct.BoolType(_exact_int(q.q) is not None)

    def as_float(q: Any) -> Any:
        if not isinstance(q, _Quantity):
            raise _overload()
        return ct.DoubleType(float(q.q._m) * 10.0 ** q.q._e)

    def add(a: Any, b: Any) -> Any:
        if not isinstance(a, _Quantity):
            raise _overload()
        return _quantity_sum(a, b, 1)

    def sub(a: Any, b: Any) -> Any:
        if not isinstance(a, _Quantity):
            raise _overload()
        return _quantity_sum(a, b, -1)

    def ip(v: Any) -> Any:
        if _is_str(v):
            return _IP(_parse_ip(v))
        if isinstance(v, _CIDR):
            return _IP(v.iface.ip)
        raise _overload()

    def is_ip(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        try:
            _parse_ip(s)
        except _EvalError:
            return ct.BoolType(False)
        return ct.BoolType(True)

    def ip_check(name: str) -> Callable[[Any], Any]:
        def check(v: Any) -> Any:
            if not isinstance(v, _IP):
                raise _overload()
            a = v.addr
            if name == "isUnspecified":
                return ct.BoolType(a.is_unspecified)
            if name == "isLoopback":
                return ct.BoolType(a.is_loopback)
            if name == "isLinkLocalMulticast":
                net = "ff02::/16" if a.version == 6 else "224.0.0.0/24"
                return ct.BoolType(a in ipaddress.ip_network(net))
            if name == "isLinkLocalUnicast":
                return ct.BoolType(a.is_link_local and not a.is_multicast)
            # Go's netip.Addr.IsGlobalUnicast: not unspecified, loopback, multicast, link-local
            # or the IPv4 broadcast address (private addresses count).
            return ct.BoolType(not (a.is_unspecified or a.is_loopback or a.is_multicast or a.is_link_local
                                    or (a.version == 4 and str(a) == "255.255.255.255")))
        return check

    def family(v: Any) -> Any:
        if not isinstance(v, _IP):
            raise _overload()
        return ct.IntType(v.addr.version)

    def is_canonical(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.BoolType(str(_parse_ip(s)) == s)

    def cidr(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return _CIDR(_parse_cidr(s))

    def is_cidr(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        try:
            _parse_cidr(s)
        except _EvalError:
            return ct.BoolType(False)
        return ct.BoolType(True)

    def contains_ip(c: Any, v: Any) -> Any:
        if not isinstance(c, _CIDR):
            raise _overload()
        addr = v.addr if isinstance(v, _IP) else _parse_ip(v) if _is_str(v) else None
        if addr is None:
            raise _overload()
        return ct.BoolType(addr.version == c.iface.version and addr in c.iface.network)

    def contains_cidr(c: Any, v: Any) -> Any:
        if not isinstance(c, _CIDR):
            raise _overload()
        other = v.iface if isinstance(v, _CIDR) else _parse_cidr(v) if _is_str(v) else None
        if other is None:
            raise _overload()
        return ct.BoolType(other.version == c.iface.version and other.network.subnet_of(c.iface.network))

    def masked(c: Any) -> Any:
        if not isinstance(c, _CIDR):
            raise _overload()
        return _CIDR(ipaddress.ip_interface(str(c.iface.network)))

    def prefix_length(c: Any) -> Any:
        if not isinstance(c, _CIDR):
            raise _overload()
        return ct.IntType(c.iface.network.prefixlen)

    def has_value(o: Any) -> Any:
        if not isinstance(o, _Optional):
            raise _overload()
        return ct.BoolType(o.present)

    def value(o: Any) -> Any:
        if not isinstance(o, _Optional):
            raise _overload()
        if not o.present:
            raise _EvalError("optional.none() dereference")
        return o.v

    def or_value(o: Any, default: Any) -> Any:
        if not isinstance(o, _Optional):
            raise _overload()
        return o.v if o.present else default

    def or_(o: Any, other: Any) -> Any:
        if not isinstance(o, _Optional) or not isinstance(other, _Optional):
            raise _overload()
        return o if o.present else other

    def none(ns: Any) -> Any:
        if ns is not _OPTIONAL_NAMESPACE:
            raise _overload()
        return _NONE

    def of(ns: Any, v: Any) -> Any:
        if ns is not _OPTIONAL_NAMESPACE:
            raise _overload()
        return _Optional(v)

    def of_non_zero_value(ns: Any, v: Any) -> Any:
        if ns is not _OPTIONAL_NAMESPACE:
            raise _overload()
        zero = v is None or (_is_num(v) and float(v) == 0.0) or (
            isinstance(v, (str, bytes, list, Mapping)) and len(v) == 0) or (isinstance(v, bool) and not v)
        if not zero and isinstance(v, ct.DurationType):
            zero = v.total_seconds() == 0
        if not zero and isinstance(v, ct.TimestampType):
            zero = v == ct.TimestampType("0001-01-01T00:00:00Z")
        return _NONE if zero else _Optional(v)

    formats = _formats()

    def format_named(ns: Any, name: Any) -> Any:
        if ns is not _FORMAT_NAMESPACE or not _is_str(name):
            raise _overload()
        f = formats.get(str(name))
        return _Optional(f) if f is not None else _NONE

    def validate(f: Any, text: Any) -> Any:
        if not isinstance(f, _Format) or not _is_str(text):
            raise _overload()
        problems = f.check(str(text))
        return _Optional(ct.ListType([ct.StringType(p) for p in problems])) if problems else _NONE

    def format_constant(name: str) -> Callable[[Any], Any]:
        def get(ns: Any) -> Any:
            if ns is not _FORMAT_NAMESPACE:
                raise _overload()
            return formats[name]
        return get

    def string_format(target: Any, args: Any) -> Any:
        if not (_is_str(target) and _is_list(args)):
            raise _overload()
        return ct.StringType(_string_format(str(target), list(args)))

    def is_canonical_call(target: Any, s: Any) -> Any:
        # ``ip.isCanonical(s)``: ``ip`` is bound to _IP_NAMESPACE in every activation.
        if target is not _IP_NAMESPACE:
            raise _overload()
        return is_canonical(s)

    def compare_to(q: Any, other: Any) -> Any:
        return ct.IntType(compare(q, other))

    base = _celpy.evaluation.base_functions

    def eq(a: Any, b: Any) -> Any:
        return ct.BoolType(_cel_equal(a, b))

    def ne(a: Any, b: Any) -> Any:
        return ct.BoolType(not _cel_equal(a, b))

    def add_(a: Any, b: Any) -> Any:
        if isinstance(a, list) and isinstance(b, list):
            return _concat(a, b)
        return base["_+_"](a, b)

    def index(container: Any, key: Any) -> Any:
        if isinstance(container, list):
            if not _is_num(key) or isinstance(key, float) and key != int(key):
                raise _overload()
            i = int(key)
            if not 0 <= i < len(container):
                raise _EvalError(f"index out of bounds: {i}")
            return container[i]
        if isinstance(container, Mapping):
            for k in container:
                if _cel_equal(k, key):
                    return container[k]
            raise _EvalError(f"no such key: {key}")
        raise _overload()

    def in_(item: Any, container: Any) -> Any:
        if isinstance(container, list):
            return ct.BoolType(any(_cel_equal(item, x) for x in container))
        if isinstance(container, Mapping):
            return ct.BoolType(any(_cel_equal(item, k) for k in container))
        raise _overload()

    def contains_(target: Any, *args: Any) -> Any:
        if target is _SETS_NAMESPACE:
            a, b = args
            if not (_is_list(a) and _is_list(b)):
                raise _overload()
            return ct.BoolType(all(any(_cel_equal(x, y) for y in a) for x in b))
        return base["contains"](target, *args)

    def equivalent(target: Any, a: Any, b: Any) -> Any:
        if target is not _SETS_NAMESPACE or not (_is_list(a) and _is_list(b)):
            raise _overload()
        return ct.BoolType(all(any(_cel_equal(x, y) for y in b) for x in a)
                           and all(any(_cel_equal(x, y) for y in a) for x in b))

    def intersects(target: Any, a: Any, b: Any) -> Any:
        if target is not _SETS_NAMESPACE or not (_is_list(a) and _is_list(b)):
            raise _overload()
        return ct.BoolType(any(_cel_equal(x, y) for x in a for y in b))

    def range_(target: Any, n: Any) -> Any:
        if target is not _LISTS_NAMESPACE:
            raise _overload()
        return ct.ListType([ct.IntType(i) for i in range(_int(n))])

    def slice_(lst: Any, start: Any, end: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        i, j = _int(start), _int(end)
        if i < 0 or j < 0:
            raise _EvalError(f"cannot slice({i}, {j}), negative indexes not supported")
        if i > j:
            raise _EvalError(f"cannot slice({i}, {j}), start index must be less than or equal to end index")
        if len(lst) < j:
            raise _EvalError(f"cannot slice({i}, {j}), list is length {len(lst)}")
        return ct.ListType(lst[i:j])

    def flatten(lst: Any, *rest: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        depth = _int(rest[0]) if rest else 1
        if depth < 0:
            raise _EvalError("level must be non-negative")

        def flat(v: list[Any], d: int) -> list[Any]:
            out: list[Any] = []
            for x in v:
                if isinstance(x, list) and d > 0:
                    out.extend(flat(x, d - 1))
                else:
                    out.append(x)
            return out
        return ct.ListType(flat(lst, depth))

    def sort(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        cmp_list(lst)
        return ct.ListType(sorted(lst))

    def distinct(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        out: list[Any] = []
        for x in lst:
            if not any(_cel_equal(x, y) for y in out):
                out.append(x)
        return ct.ListType(out)

    return {
        "isSorted": is_sorted, "sum": sum_, "min": min_, "max": max_, "indexOf": index_of, "lastIndexOf": last_index_of,
        "find": find, "findAll": find_all,
        "charAt": char_at, "lowerAscii": lower_ascii, "upperAscii": upper_ascii, "replace": replace,
        "split": split, "substring": substring, "trim": trim, "join": join, "reverse": reverse,
        "url": url, "isURL": is_url, "getScheme": url_part("scheme"), "getHost": url_part("host"),
        "getHostname": url_part("hostname"), "getPort": url_part("port"), "getEscapedPath": url_part("path"),
        "getQuery": url_part("query"),
        "quantity": quantity, "isQuantity": is_quantity, "sign": sign,
        "isGreaterThan": lambda q, o: ct.BoolType(compare(q, o) > 0),
        "isLessThan": lambda q, o: ct.BoolType(compare(q, o) < 0),
        "compareTo": compare_to, "asInteger": as_integer, "isInteger": is_integer,
        "asApproximateFloat": as_float, "add": add, "sub": sub,
        "ip": ip, "isIP": is_ip, "family": family,
        "isUnspecified": ip_check("isUnspecified"), "isLoopback": ip_check("isLoopback"),
        "isLinkLocalMulticast": ip_check("isLinkLocalMulticast"),
        "isLinkLocalUnicast": ip_check("isLinkLocalUnicast"), "isGlobalUnicast": ip_check("isGlobalUnicast"),
        "cidr": cidr, "isCIDR": is_cidr, "containsIP": contains_ip, "containsCIDR": contains_cidr,
        "masked": masked, "prefixLength": prefix_length,
        "hasValue": has_value, "value": value, "orValue": or_value, "or": or_,
        "none": none, "of": of, "ofNonZeroValue": of_non_zero_value, "named": format_named,
        "validate": validate, "format": string_format,
        **{name: format_constant(name) for name in formats},
        "isCanonical": is_canonical_call,
        "_==_": eq, "_!=_": ne, "_+_": add_, "_[_]": index, "_in_": in_,
        "contains": contains_, "equivalent": equivalent, "intersects": intersects,
        "range": range_, "slice": slice_, "flatten": flatten, "sort": sort, "distinct": distinct,
    }


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _key_of(item: Any, keys: tuple[str, ...]) -> Any:
    if not isinstance(item, Mapping):
        return None
    return tuple(repr(item.get(k)) for k in keys)


def _cel_equal(a: Any, b: Any) -> bool:
    """cel-go's heterogeneous equality: numbers by value, values of different types are
    unequal (not an error), lists of type set or map compare without order."""
    if _is_num(a) and _is_num(b):
        # celpy's numeric types refuse to compare across types; cel-go compares values
        if isinstance(a, float) or isinstance(b, float):
            return float(a) == float(b)
        return int(a) == int(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and bool(a) == bool(b)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) and isinstance(b, list):
        kind = getattr(a, "list_type", None) or getattr(b, "list_type", None)
        if len(a) != len(b):
            return False
        if kind == "set":
            return all(any(_cel_equal(x, y) for y in b) for x in a) and all(any(_cel_equal(y, x) for x in a) for y in b)
        if kind == "map":
            keys = getattr(a, "keys", None) or getattr(b, "keys", None) or ()
            bm = {_key_of(y, keys): y for y in b}
            return all(_key_of(x, keys) in bm and _cel_equal(x, bm[_key_of(x, keys)]) for x in a)
        return all(_cel_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_cel_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, Mapping)) or isinstance(b, (list, Mapping)):
        return False
    if isinstance(a, _Optional) or isinstance(b, _Optional):
        return a == b
    if type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - celpy's own comparisons raise on odd pairs
        return False


def _concat(a: Any, b: Any) -> Any:
    """``_+_`` of lists with set and map semantics (the left list's type decides)."""
    kind = getattr(a, "list_type", None)
    if kind == "set":
        out = list(a)
        for x in b:
            if not any(_cel_equal(x, y) for y in out):
                out.append(x)
        return _set_list(out)
    if kind == "map":
        keys = a.keys
        index = {_key_of(x, keys): i for i, x in enumerate(a)}
        out = list(a)
        for y in b:
            k = _key_of(y, keys)
            if k in index:
                out[index[k]] = y
            else:
                index[k] = len(out)
                out.append(y)
        return _map_list_value(out, list(keys))
    return _celpy.celtypes.ListType(list(a) + list(b))


class _SetsNamespace:
    """``sets`` of ``sets.contains(...)`` (cel-go ext sets), bound as a variable for celpy."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "sets"


class _ListsNamespace:
    """``lists`` of ``lists.range(n)`` (cel-go ext lists)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "lists"


class _OptionalNamespace:
    """``optional`` of ``optional.of(x)``, ``optional.none()``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "optional"


class _FormatNamespace:
    """``format`` of ``format.dns1123Label()``, ``format.named(n)`` (library/format.go)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "format"


_OPTIONAL_NAMESPACE = _OptionalNamespace()


def _net_types() -> Any:
    """``net.IP`` and ``net.CIDR``, the type names ``type(ip(s))`` and ``type(cidr(s))`` compare
    with (apiserver pkg/cel/ip.go, cidr.go): a map celpy selects from."""
    ct = _celpy.celtypes
    return ct.MapType({ct.StringType("IP"): _IP, ct.StringType("CIDR"): _CIDR})
_FORMAT_NAMESPACE = _FormatNamespace()
_SETS_NAMESPACE = _SetsNamespace()
_LISTS_NAMESPACE = _ListsNamespace()


_SUPERSCRIPTS = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b")


def _format_value(v: Any, quote: bool = False) -> str:
    """cel-go ext strings' %s of a value."""
    ct = _celpy.celtypes
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, ct.DurationType):
        secs = v.total_seconds()
        return (f"{secs:.9f}".rstrip("0").rstrip(".") if secs != int(secs) else str(int(secs))) + "s"
    if isinstance(v, ct.TimestampType):
        return v.strftime("%Y-%m-%dT%H:%M:%S") + (f".{v.microsecond:06d}".rstrip("0") if v.microsecond else "") + "Z"
    if isinstance(v, str):
        return '"' + v + '"' if quote else str(v)
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, float):
        from kcodec.gofmt import format_g

        return format_g(v)
    if isinstance(v, list):
        return "[" + ", ".join(_format_value(x, True) for x in v) + "]"
    if isinstance(v, Mapping):
        items = sorted(((_format_value(k, True), _format_value(x, True)) for k, x in v.items()))
        return "{" + ", ".join(f"{k}: {x}" for k, x in items) + "}"
    return str(v)


def _string_format(template: str, args: list[Any]) -> str:
    """cel-go ext strings' ``format``: %s %d %f %e %b %o %x %X with an optional precision."""
    out, i, n = [], 0, 0
    while i < len(template):
        c = template[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        if template[i + 1:i + 2] == "%":
            out.append("%")
            i += 2
            continue
        m = re.match(r"%(?:\.(\d+))?([sdfeboxX])", template[i:])
        if m is None:
            raise _EvalError(f"could not parse formatting clause: unrecognized formatting clause \"{template[i + 1:i + 2]}\"")
        if n >= len(args):
            raise _EvalError(f"index {n} out of range")
        v, precision, verb = args[n], m.group(1), m.group(2)
        n += 1
        i += m.end()
        if verb == "s":
            out.append(_format_value(v))
        elif verb == "d":
            if not _is_num(v) or isinstance(v, float):
                raise _EvalError("error during formatting: decimal clause can only be used on integers")
            out.append(str(int(v)))
        elif verb in "fe":
            if not _is_num(v):
                raise _EvalError(f"error during formatting: {'fixed-point' if verb == 'f' else 'scientific'} clause "
                                 f"can only be used on doubles")
            p = int(precision) if precision is not None else 6
            if verb == "f":
                out.append(f"{float(v):.{p}f}")
            else:
                mantissa, exp = f"{float(v):.{p}e}".split("e")
                e = int(exp)
                out.append(f"{mantissa}\u00d710" + ("-" if e < 0 else "").translate(_SUPERSCRIPTS)
                           + f"{abs(e):02d}".translate(_SUPERSCRIPTS))
        else:
            if isinstance(v, (str, bytes)) and verb in "xX":
                data = v.encode() if isinstance(v, str) else bytes(v)
                text = data.hex()
            elif _is_num(v) and not isinstance(v, float):
                text = format(int(v), {"b": "b", "o": "o", "x": "x", "X": "X"}[verb])
            else:
                raise _EvalError("error during formatting: only integers, byte buffers, and strings can be "
                                 "formatted as hex" if verb in "xX" else "error during formatting: only integers "
                                 "can be formatted as binary" if verb == "b" else
                                 "error during formatting: octal clause can only be used on integers")
            out.append(text.upper() if verb == "X" else text)
    return "".join(out)


def _exact_int(q: Any) -> int | None:
    """The quantity as an int64 when it is one exactly (Go Quantity.AsInt64)."""
    m, e = q._m, q._e
    if e >= 0:
        v = m * 10 ** e
    else:
        d = 10 ** -e
        if m % d:
            return None
        v = m // d
    return v if -(1 << 63) <= v < (1 << 63) else None


def _equal(a: Any, b: Any) -> bool:
    return _cel_equal(a, b)


_LIB: dict[str, Callable[..., Any]] | None = None


def _functions() -> dict[str, Callable[..., Any]]:
    global _LIB
    if _LIB is None:
        _LIB = _wrap_errors(_lib())
    return _LIB


def _wrap_errors(lib: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """celpy turns TypeError into ``no such overload``; our own errors carry Go's text."""
    ev = _celpy.evaluation

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            for a in args:
                if isinstance(a, ev.CELEvalError):
                    return a
            try:
                return fn(*args)
            except _EvalError as exc:
                return ev.CELEvalError(str(exc))
        return call

    return {k: wrap(v) for k, v in lib.items()}


# -- compilation ----------------------------------------------------------------------------

_MACROS = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap",
                     "transformMapEntry", "sortBy"})
# macros whose three-argument form binds two variables (cel-go ext two-variable comprehensions)
_TWO_VARS = frozenset({"all", "exists", "existsOne", "exists_one", "transformList", "transformMap",
                       "transformMapEntry"})
_TYPE_NAMES = frozenset({"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type",
                         "duration", "timestamp", "optional_type"})
_GLOBAL_FUNCS = frozenset({"has", "size", "int", "uint", "double", "bool", "string", "bytes", "duration",
                           "timestamp", "type", "dyn", "matches", "url", "isURL", "quantity", "isQuantity", "ip",
                           "isIP", "cidr", "isCIDR"})
_BOOL_METHODS = frozenset({"startsWith", "endsWith", "contains", "matches", "all", "exists", "exists_one",
                           "isSorted", "isURL", "isQuantity", "isGreaterThan", "isLessThan", "isInteger",
                           "isIP", "isCIDR", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                           "isLinkLocalUnicast", "isGlobalUnicast", "containsIP", "containsCIDR", "hasValue"})


class CompiledRule:
    """One rule of a schema node (Go ``CompilationResult``): the program, whether it uses
    ``oldSelf``, the compiled messageExpression, the normalised fieldPath, and the errors
    (Go's ``Error.Detail`` texts) that kept it from compiling."""

    __slots__ = ("rule", "program", "uses_old_self", "error", "message_program", "message_error",
                 "field_path")

    def __init__(self, rule: Mapping[str, Any]) -> None:
        self.rule = rule
        self.program: Any = None
        self.uses_old_self = False
        self.error: str | None = None
        self.message_program: Any = None
        self.message_error: str | None = None
        self.field_path = ""

    def __repr__(self) -> str:
        state = f"error={self.error!r}" if self.error else "ok"
        return f"CompiledRule({self.rule.get('rule')!r}, {state})"


def _snippet(src: str, line: int, col: int) -> str:
    """cel-go's ``Error.ToDisplayString`` location snippet (col 0-based)."""
    lines = src.split("\n")
    if not 1 <= line <= len(lines):
        return ""
    text = lines[line - 1].replace("\t", " ")
    return f"\n | {text}\n | {'.' * min(col, len(text))}^"


def _issue(src: str, line: int, col: int, msg: str) -> str:
    return f"ERROR: <input>:{line}:{col + 1}: {msg}{_snippet(src, line, col)}"


def _line_col(src: str, offset: int) -> tuple[int, int]:
    line = src.count("\n", 0, offset) + 1
    start = src.rfind("\n", 0, offset) + 1
    return line, offset - start


_RELATION_OPS = {"relation_eq": "_==_", "relation_ne": "_!=_", "relation_lt": "_<_", "relation_le": "_<=_",
                 "relation_gt": "_>_", "relation_ge": "_>=_"}
_ORDERED = frozenset({"int", "uint", "double", "string", "bytes", "bool"})
_NUMERIC = frozenset({"int", "uint", "double"})
_GO_DURATION = re.compile(r"[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+)\Z")
_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")


def _literal(t: Any) -> Any:
    """The literal token an argument tree is, or None."""
    from lark import Token

    while not isinstance(t, Token) and len(t.children) == 1 and t.data != "literal":
        t = t.children[0]
    if not isinstance(t, Token) and t.data == "literal" and isinstance(t.children[0], Token):
        return t.children[0]
    return None


def _first_token(t: Any) -> Any:
    from lark import Token

    if isinstance(t, Token):
        return t
    for c in t.children:
        if c is not None:
            tok = _first_token(c)
            if tok is not None:
                return tok
    return None


def _string_literal(tok: Any) -> str | None:
    if tok is None or tok.type not in ("STRING_LIT", "MLSTRING_LIT"):
        return None
    return str(_celpy.evaluation.celstr(tok))


def _valid_timestamp(text: str) -> bool:
    """Go's time.Parse(time.RFC3339, ...) as cel-go's timestamp() applies it, 0001..9999."""
    import datetime

    m = _RFC3339.match(text)
    if m is None:
        return False
    y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
    try:
        datetime.datetime(y, mo, d, h, mi, sec)
    except ValueError:
        return False
    return True


class _Checker:
    """The part of cel-go's type checker that needs the schema: field selection on objects,
    undeclared identifiers, and the result type when it is plain."""

    def __init__(self, src: str, schema: Mapping[str, Any], is_resource: bool, optional_old_self: bool) -> None:
        self.src = src
        self.issues: list[str] = []
        self.uses_old_self = False
        self.exempt: set[int] = set()
        self.scopes: list[dict[str, Any]] = [{"ip": None, "sets": None, "lists": None, "optional": None,
                                              "format": None, "net": None, "self": (schema, is_resource), "oldSelf": (
            None if optional_old_self else (schema, is_resource))}]

    def lookup(self, name: str) -> Any:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name], True
        return None, False

    # the schema a member chain denotes: (schema, is_resource) or None when unknown
    def typeof(self, t: Any) -> Any:
        from lark import Token

        if isinstance(t, Token):
            return None
        d = t.data
        if d in ("expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary",
                 "member", "primary") and len(t.children) == 1:
            return self.typeof(t.children[0])
        if d == "paren_expr":
            return self.typeof(t.children[0])
        if d == "ident":
            v, _ = self.lookup(str(t.children[0]))
            return v
        if d == "member_dot":
            parent = self.typeof(t.children[0])
            if parent is None:
                return None
            s, is_res = parent
            fields = _fields(s, is_res)
            name = str(t.children[1])
            if fields is not None:
                if name in fields:
                    sub = fields[name][1]
                    return sub, bool(sub.get("x-kubernetes-embedded-resource"))
                return None
            ap = _additional(s)
            if ap is not None:
                return ap, bool(ap.get("x-kubernetes-embedded-resource"))
            return None
        if d == "member_index":
            parent = self.typeof(t.children[0])
            if parent is None:
                return None
            s, _ = parent
            if s.get("type") == "array" and isinstance(s.get("items"), Mapping):
                return s["items"], bool(s["items"].get("x-kubernetes-embedded-resource"))
            ap = _additional(s)
            if ap is not None and _fields(s, False) is None:
                return ap, bool(ap.get("x-kubernetes-embedded-resource"))
            return None
        return None

    def visit(self, t: Any) -> None:
        from lark import Token

        if isinstance(t, Token):
            return
        d = t.data
        if d == "ident":
            tok = t.children[0]
            name = str(tok)
            if name == "oldSelf":
                self.uses_old_self = True
            _, found = self.lookup(name)
            if not found and name not in _TYPE_NAMES:
                self.issues.append(_issue(self.src, tok.line, tok.column - 1,
                                          f"undeclared reference to '{name}' (in container '')"))
            return
        if d == "member_dot":
            self.visit(t.children[0])
            parent = self.typeof(t.children[0])
            if parent is not None:
                s, is_res = parent
                fields = _fields(s, is_res)
                tok = t.children[1]
                if fields is not None and str(tok) not in fields:
                    dot = self.src.rfind(".", 0, tok.start_pos)
                    line, col = _line_col(self.src, dot if dot >= 0 else tok.start_pos)
                    self.issues.append(_issue(self.src, line, col, f"undefined field '{tok}'"))
            return
        if d == "member_index":
            self.visit(t.children[0])
            self.visit(t.children[1])
            parent = self.typeof(t.children[0])
            if parent is not None and _fields(parent[0], parent[1]) is not None:
                tok = _first_token(t.children[1])
                at = self.src.rfind("[", 0, tok.start_pos) if tok is not None else -1
                line, col = _line_col(self.src, max(at, 0))
                self.issues.append(_issue(self.src, line, col, "found no matching overload for '_[_]' applied to "
                                                               "'(object, string)'"))
            return
        if d == "relation" and len(t.children) == 2 and getattr(t.children[0], "data", "") in _RELATION_OPS:
            left, right = t.children[0].children[0], t.children[1]
            self.visit(left)
            self.visit(right)
            a, b = self._kind(left), self._kind(right)
            op = _RELATION_OPS[t.children[0].data]
            if op in ("_==_", "_!=_"):
                # null compares with objects (cel-go's message types), not with other typed values
                bad = a is not None and b is not None and a != b and not ({a, b} == {"object", "null_type"})
            else:
                # ordering: the same orderable type, or numbers across types (CrossTypeNumericComparisons)
                bad = a is not None and b is not None and not (
                    (a == b and a in _ORDERED) or (a in _NUMERIC and b in _NUMERIC))
            if bad:
                tok = _first_token(right)
                at = self.src.rfind(op.strip("_"), 0, tok.start_pos) if tok is not None else -1
                line, col = _line_col(self.src, max(at, 0))
                self.issues.append(_issue(self.src, line, col, f"found no matching overload for '{op}' applied to "
                                                               f"'({a}, {str(b).replace('null_type', 'null')})'"))
            return
        if d in ("list_lit", "map_lit") and t.children and t.children[0] is not None:
            # cel-go's HomogeneousAggregateLiterals: a literal's elements (a map's keys, and its
            # values) have one type
            items = list(t.children[0].children)
            groups = [items] if d == "list_lit" else [items[0::2], items[1::2]]
            for group in groups:
                first_kind: str | None = None
                for item in group:
                    kind = self._kind(item)
                    if kind is None or kind == "null_type":
                        continue
                    if first_kind is None:
                        first_kind = kind
                    elif kind != first_kind and id(t) not in self.exempt:
                        line, col = self._position(_first_token(item))
                        self.issues.append(_issue(self.src, line, col,
                                                  f"expected type '{first_kind}' but found '{kind}'"))
            for c in items:
                self.visit(c)
            return
        if d == "member_dot_arg":
            member, method = t.children[0], str(t.children[1])
            args = t.children[2].children if len(t.children) > 2 and t.children[2] is not None else []
            if method == "matches" and len(args) == 1:
                self._constant_regex(args[0])
            if method in ("sum", "min", "max", "isSorted") and not args:
                self._list_function(method, member)
            if method == "format":
                # cel-go exempts the arguments of string format() from homogeneous literals
                for a in args:
                    node = a
                    while not isinstance(node, Token) and len(node.children) == 1 and node.data != "list_lit":
                        node = node.children[0]
                    self.exempt.add(id(node))
            self.visit(member)
            var = self._macro_var(args[0]) if method in _MACROS and len(args) >= 2 else None
            if var is not None:
                two = method in ("transformList", "transformMap", "transformMapEntry") or (
                    method in _TWO_VARS and len(args) == 3)
                var2 = self._macro_var(args[1]) if two else None
                first = second = None
                parent = self.typeof(member)
                if parent is not None:
                    s, _ = parent
                    if s.get("type") == "array" and isinstance(s.get("items"), Mapping):
                        first = second = (s["items"], bool(s["items"].get("x-kubernetes-embedded-resource")))
                        if two:
                            first = ({"type": "integer"}, False)
                    elif _fields(s, False) is None and s.get("type") == "object":
                        first = (_STRING, False)  # a map's macros range over its keys
                        ap = _additional(s)
                        second = (ap, bool(ap.get("x-kubernetes-embedded-resource"))) if ap is not None else None
                scope = {var: first}
                if var2 is not None:
                    scope[var2] = second
                self.scopes.append(scope)
                try:
                    for a in args[2 if var2 is not None else 1:]:
                        self.visit(a)
                finally:
                    self.scopes.pop()
                return
            for a in args:
                self.visit(a)
            return
        if d == "ident_arg":
            # a global call: has(), size(), ... ; the name itself is not a variable
            name = str(t.children[0])
            args = t.children[1].children if len(t.children) > 1 and t.children[1] is not None else []
            if name == "matches" and len(args) == 2:
                self._constant_regex(args[1])
            elif name in ("duration", "timestamp") and len(args) == 1:
                self._constant_time(name, args[0])
            for c in t.children[1:]:
                if c is not None:
                    self.visit(c)
            return
        if d == "dot_ident" or d == "dot_ident_arg":
            return
        for c in t.children:
            if c is not None:
                self.visit(c)

    def _type_name(self, t: Any) -> str | None:
        """cel-go's name of an operand's type where it is certain (literals, typed fields)."""
        from lark import Token

        node = t
        while not isinstance(node, Token) and len(node.children) == 1 and node.data not in (
                "list_lit", "map_lit", "literal", "member_dot", "member_index", "ident"):
            node = node.children[0]
        if not isinstance(node, Token) and node.data == "list_lit":
            items = list(node.children[0].children) if node.children and node.children[0] is not None else []
            return f"list({self._type_name(items[0]) or 'dyn'})" if items else None
        if not isinstance(node, Token) and node.data == "map_lit":
            items = list(node.children[0].children) if node.children and node.children[0] is not None else []
            if not items:
                return None
            return f"map({self._type_name(items[0]) or 'dyn'}, {self._type_name(items[1]) or 'dyn'})"
        ty = self.typeof(t)
        if ty is not None and ty[0].get("type") == "array" and isinstance(ty[0].get("items"), Mapping):
            items_schema = ty[0]["items"]
            kind = {"boolean": "bool", "integer": "int", "number": "double", "string": "string"}.get(
                items_schema.get("type") or "")
            if kind == "string" and items_schema.get("format") in ("duration", "date", "date-time", "byte"):
                kind = None
            return f"list({kind})" if kind else None
        return self._kind(t)

    def _list_function(self, method: str, target: Any) -> None:
        """lists.go's overloads: sum of numbers (or durations), min/max/isSorted of comparable
        elements."""
        name = self._type_name(target)
        if name is None or not name.startswith("list("):
            return
        elem = name[5:-1]
        allowed = ("int", "uint", "double") if method == "sum" else ("int", "uint", "double", "string", "bytes", "bool")
        if elem.split("(")[0] in allowed or elem == "dyn":
            return
        tok = _first_token(target)
        line, col = self._position(tok)
        self.issues.append(_issue(self.src, line, col,
                                  f"found no matching overload for '{method}' applied to '{name}.()'"))

    def _position(self, tok: Any) -> tuple[int, int]:
        """(line, 0-based column) of a token; celpy builds some literal tokens (true, false,
        null) without a position, which are then looked for in the source."""
        if tok is None:
            return 1, 0
        if getattr(tok, "start_pos", None) is not None:
            return _line_col(self.src, tok.start_pos)
        at = self.src.find(str(tok))
        return _line_col(self.src, max(at, 0))

    def _kind(self, t: Any) -> str | None:
        """The CEL type name of an operand when it is certain: a schema value (an object with
        declared fields is "object") or a plain literal; None otherwise."""
        ty = self.typeof(t)
        if ty is not None:
            s, is_res = ty
            if _is_dyn(s) or (s.get("type") == "string" and s.get("format") in ("duration", "date", "date-time",
                                                                                   "byte")):
                return None
            if _fields(s, is_res) is not None:
                return "object"
            return {"boolean": "bool", "integer": "int", "number": "double", "string": "string", "array": "list",
                    "object": "map"}.get(s.get("type") or "")
        k = self.result_type(t)
        return k if k in ("bool", "int", "uint", "double", "string", "bytes", "list", "map", "null_type") else None

    def _constant_regex(self, arg: Any) -> None:
        """cel-go compiles a constant matches() pattern when it checks the rule."""
        tok = _literal(arg)
        pattern = _string_literal(tok)
        if pattern is None:
            return
        try:
            _regex().compile(pattern)
        except Exception:  # noqa: BLE001 - re2 and re raise different errors
            self.issues.append(_issue(self.src, tok.line, tok.column - 1, "invalid matches argument"))

    def _constant_time(self, name: str, arg: Any) -> None:
        """cel-go validates constant duration() and timestamp() arguments when it checks."""
        tok = _literal(arg)
        if tok is None:
            return
        text = _string_literal(tok)
        if name == "duration":
            if text is not None and not _GO_DURATION.match(text):
                self.issues.append(_issue(self.src, tok.line, tok.column - 1, "invalid duration argument"))
            return
        if text is not None:
            ok = _valid_timestamp(text)
        elif tok.type == "INT_LIT":
            # seconds since the epoch, 0001-01-01 to 9999-12-31 (cel-go's timestamp range)
            ok = -62135596800 <= int(str(tok), 0) <= 253402300799
        else:
            return
        if not ok:
            self.issues.append(_issue(self.src, tok.line, tok.column - 1, "invalid timestamp"))

    @staticmethod
    def _macro_var(arg: Any) -> str | None:
        from lark import Token

        t = arg
        while not isinstance(t, Token) and len(t.children) == 1 and t.data != "ident":
            t = t.children[0]
        if not isinstance(t, Token) and t.data == "ident":
            return str(t.children[0])
        return None

    def result_type(self, t: Any) -> str | None:
        """'bool', another CEL type name, or None when it takes the real checker to say."""
        from lark import Token

        if isinstance(t, Token):
            return None
        d = t.data
        if d in ("expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary",
                 "member", "primary") and len(t.children) == 1:
            return self.result_type(t.children[0])
        if d in ("conditionalor", "conditionaland", "relation"):
            return "bool"
        if d in ("addition", "multiplication") and len(t.children) == 2:
            op = t.children[0]
            left = op.children[0] if not isinstance(op, Token) and op.children else None
            a, b = (self.result_type(left) if left is not None else None), self.result_type(t.children[1])
            return a if a == b and a in ("int", "uint", "double", "string", "list") else None
        if d == "expr" and len(t.children) == 3:
            a, b = self.result_type(t.children[1]), self.result_type(t.children[2])
            return a if a == b else None
        if d == "paren_expr":
            return self.result_type(t.children[0])
        if d == "literal":
            tok = t.children[0]
            return {"INT_LIT": "int", "UINT_LIT": "uint", "FLOAT_LIT": "double", "STRING_LIT": "string",
                    "MLSTRING_LIT": "string", "BYTES_LIT": "bytes", "BOOL_LIT": "bool",
                    "NULL_LIT": "null_type"}.get(getattr(tok, "type", ""))
        if d in ("list_lit",):
            return "list"
        if d in ("map_lit",):
            return "map"
        if d == "unary" and len(t.children) == 2:
            op = t.children[0]
            return "bool" if getattr(op, "data", "") == "unary_not" else None
        if d == "member_dot_arg":
            method = str(t.children[1])
            if method in _BOOL_METHODS:
                return "bool"
            if method in ("size",):
                return "int"
            if method in ("map", "filter"):
                return "list"
            return None
        if d == "ident_arg":
            name = str(t.children[0])
            if name in ("has", "matches", "isURL", "isQuantity", "isIP", "isCIDR"):
                return "bool"
            if name == "size":
                return "int"
            return None
        if d in ("member_dot", "member_index", "ident"):
            ty = self.typeof(t)
            if ty is None:
                return None
            s = ty[0]
            if _is_dyn(s):
                return None
            st = s.get("type")
            if st == "string" and s.get("format") in ("duration", "date", "date-time", "byte"):
                return None
            return {"boolean": "bool", "integer": "int", "number": "double", "string": "string",
                    "array": "list"}.get(st, None if st != "object" else "map")
        return None


def compile_rule(rule: Mapping[str, Any], schema: Mapping[str, Any], is_resource: bool = False) -> CompiledRule:
    """Compile one rule of the node *schema* (Go ``compileRule``); errors in ``.error`` and
    ``.message_error`` carry Go's detail texts. Needs the CEL library (:func:`cel_available`)."""
    if _load() is None:
        raise RuntimeError(CEL_UNAVAILABLE_WARNING)
    cr = CompiledRule(rule)
    src = rule.get("rule") or ""
    if not src.strip():
        return cr
    ast, err, checker = _compile(src, schema, is_resource, bool(rule.get("optionalOldSelf")))
    if err is not None:
        cr.error = "compilation failed: " + err
        return cr
    if checker.result_type(ast) not in (None, "bool"):
        cr.error = "cel expression must evaluate to a bool"
        return cr
    cr.uses_old_self = checker.uses_old_self
    cr.program = _env.program(ast, functions=_functions())
    msg = rule.get("messageExpression") or ""
    if msg:
        mast, merr, mchecker = _compile(msg, schema, is_resource, bool(rule.get("optionalOldSelf")))
        if merr is not None:
            cr.message_error = "messageExpression compilation failed: " + merr
        elif mchecker.result_type(mast) not in (None, "string"):
            cr.message_error = "messageExpression must evaluate to a string"
        else:
            cr.message_program = _env.program(mast, functions=_functions())
    if rule.get("fieldPath"):
        try:
            cr.field_path = str(valid_field_path(rule["fieldPath"], schema)[0])
        except ValueError:
            pass
    return cr


def _compile(src: str, schema: Mapping[str, Any], is_resource: bool, optional_old_self: bool) -> tuple[Any, str | None, _Checker]:
    celpy = _celpy
    checker = _Checker(src, schema, is_resource, optional_old_self)
    try:
        ast = _env.compile(src)
    except celpy.CELParseError as exc:
        line = getattr(exc, "line", None) or 1
        col = (getattr(exc, "column", None) or 1) - 1
        return None, _issue(src, line, col, "Syntax error: unexpected input"), checker
    checker.visit(ast)
    if checker.issues:
        return ast, "\n".join(checker.issues), checker
    return ast, None, checker


# -- field paths (validation.go ValidFieldPath) ---------------------------------------------

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", "\\": "\\"}


def _unescape_single_quote(s: str) -> str:
    def sub(m: re.Match[str]) -> str:
        c = m.group(0)[1]
        if c not in _ESCAPES:
            raise ValueError(f"invalid escape char {m.group(0)}")
        return _ESCAPES[c]

    return re.sub(r"\\.", sub, s)


def _field_path_tokens(path: str) -> list[str]:
    out, i = [], 0
    while i < len(path):
        if path[i] == "'":
            j = i + 1
            while j < len(path) and not (path[j] == "'" and path[j - 1] != "\\"):
                j += 1
            out.append(path[i:j + 1])
            i = j + 1
            continue
        if path[i] in ".[]":
            out.append(path[i])
            i += 1
            continue
        j = i
        while j < len(path) and path[j] not in ".[]":
            j += 1
        out.append(path[i:j])
        i = j
    return out


def valid_field_path(json_path: str, schema: Mapping[str, Any]) -> tuple[Path | None, Mapping[str, Any]]:
    """The field path a rule's ``fieldPath`` names below *schema* and the schema there
    (Go ``ValidFieldPath``); ValueError with Go's text when it names no field."""
    path: Path | None = None
    s: Any = schema

    def append(name: str, named: bool) -> None:
        nonlocal path, s
        if not named:
            path = _key(path, name)
            s = _additional(s)
        else:
            path = path.child(name) if path is not None else Path(name)
            props = s.get("properties") or {}
            if name not in props:
                raise ValueError("does not refer to a valid field")
            s = props[name]

    def named_here() -> bool:
        if not isinstance(s, Mapping):
            # below `additionalProperties: true` there is no schema (Go dereferences nil here)
            raise ValueError("does not refer to a valid field")
        if s.get("properties") is not None:
            return True
        if s.get("additionalProperties") is not None:
            return False
        raise ValueError("does not refer to a valid field")

    tokens = _field_path_tokens(json_path)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "[":
            if i + 1 >= len(tokens):
                raise ValueError("unexpected end of JSON path")
            tok = tokens[i + 1]
            if len(tok) < 2 or tok[0] != "'" or tok[-1] != "'":
                raise ValueError(f"expected single quoted string but got {tok}")
            try:
                name = _unescape_single_quote(tok[1:-1])
            except ValueError as exc:
                raise ValueError(f"invalid string literal: {exc}") from None
            append(name, named_here())
            if i + 2 >= len(tokens):
                raise ValueError("unexpected end of JSON path")
            if tokens[i + 2] != "]":
                raise ValueError(f"expected ] but got {tokens[i + 2]}")
            i += 3
        elif tok == ".":
            if i + 1 >= len(tokens):
                raise ValueError("unexpected end of JSON path")
            append(tokens[i + 1], named_here())
            i += 2
        else:
            raise ValueError(f"expected [ or . but got: {tok}")
    return path, s


# -- the CRD's side: rules checked when a CRD is written ------------------------------------

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


# -- the custom resource's side: evaluation (validation.go) ----------------------------------

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
        celpy = _celpy
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
                                          "format": _FORMAT_NAMESPACE, "net": _net_types()}
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


def _child(path: Path | None, name: str) -> Path:
    return path.child(name) if path is not None else Path(name)


# Go's (*Path)(nil).Index(i) prints "[i]"; kcodec's Path has no nil, and Path("") prints
# its empty name as "[]", so a subscript at the root is a one-element path named "[i]".
def _index(path: Path | None, i: int) -> Path:
    return path.index(i) if path is not None else Path(f"[{int(i)}]")


def _key(path: Path | None, k: str) -> Path:
    return path.key(k) if path is not None else Path(f"[{k}]")


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


_GO_ERRORS = (
    (re.compile(r"no such member in mapping: '(.*)'"), r"no such key: \1"),
    (re.compile(r"modulus or divide by zero"), "division by zero"),
    (re.compile(r"return error for overflow"), "integer overflow"),
    (re.compile(r"found no matching overload.*"), _NO_OVERLOAD),
)


def _go_error_text(exc: Any) -> str:
    text = str(exc.args[0]) if getattr(exc, "args", None) else str(exc)
    for pattern, repl in _GO_ERRORS:
        if pattern.match(text):
            return pattern.sub(repl, text)
    return text


def _evaluate(program: Any, activation: dict[str, Any], cost: _Cost | None = None) -> tuple[Any, str | None]:
    ev = _celpy.evaluation
    try:
        result = program.evaluate(activation, cost)
    except _CostExceeded:
        return None, _COST_EXCEEDED
    except ev.CELEvalError as exc:
        return None, _go_error_text(exc)
    except (ev.CELUnsupportedError, RecursionError, ValueError, TypeError, ArithmeticError) as exc:
        return None, str(exc) or type(exc).__name__
    if isinstance(result, ev.CELEvalError):
        return None, _go_error_text(result)
    return result, None


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
    if _load() is None:
        raise RuntimeError(CEL_UNAVAILABLE_WARNING)
    return Validator(schema, is_resource_root)

