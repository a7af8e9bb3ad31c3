"""Compiling a CRD validation rule (Go: k8s.io/apiextensions-apiserver
``pkg/apiserver/schema/cel/compilation.go``: :class:`CompiledRule`, :func:`compile_rule`),
with the part of cel-go's type checker (``checker/checker.go``) that needs the schema.

cel-go type-checks a rule against the schema when the CRD is written; celpy only parses.
:class:`_Checker` adds the checks users meet most: a field the schema does not declare
(``undefined field 'x'``), an unknown identifier (``undeclared reference to 'x'``),
comparisons between values of certain different types, indexing an object, mixed-type
literals, the lists library's overloads, constant ``matches``, ``duration`` and
``timestamp`` arguments, and a rule whose result is plainly not a bool. Other type errors
surface when a rule is evaluated (``no such overload``), where Go would have refused the
CRD. Syntax errors carry celpy's position and the words ``Syntax error: unexpected input``,
not ANTLR's ``mismatched input ... expecting ...``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from kcodec.api.apiextensions.cel import interpreter, loader, syntax
from kcodec.api.apiextensions.cel.fieldpath import valid_field_path
from kcodec.api.apiextensions.cel.interpreter import _MACROS, _TWO_VARS, CEL_UNAVAILABLE_WARNING
from kcodec.api.apiextensions.cel.library import _RFC3339, _functions, _regex, regex_error_text
from kcodec.api.apiextensions.cel.model import _STRING, _additional, _fields, _is_dyn

__all__ = ["CompiledRule", "compile_rule"]

_TYPE_NAMES = frozenset({"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type",
                         "duration", "timestamp", "optional_type"})

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
    if tok.type == "MLSTRING_LIT":
        return syntax.cel_string(tok)  # as the interpreter reads it (celpy's celstr drops newlines)
    return str(loader.celpy.evaluation.celstr(tok))


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
        # errors cel-go's parser reports (its macro expansion): they stand alone, as the
        # parser's errors keep the checker from running
        self.syntax_issues: list[str] = []
        # the error cel-go's env.Program gives (its regex optimizations compile constant
        # patterns of find/findAll then): compile_rule reports it after the checker's issues
        self.program_error: str | None = None
        self.uses_old_self = False
        self.exempt: set[int] = set()
        self.scopes: list[dict[str, Any]] = [{"ip": None, "sets": None, "lists": None, "optional": None,
                                              "format": None, "net": None, "kubernetes": None, "self": (schema, is_resource), "oldSelf": (
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
        # an optional selection or index (a.?f, m[?k]) has the type of the plain one wrapped in
        # optional_type, as cel-go's checkSelectField gives it; typeof gives the wrapped type
        # (for the fields below it), _optional says it is wrapped
        if d in ("member_dot", "member_dot_opt"):
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
        if d in ("member_index", "member_index_opt"):
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

    def _optional(self, t: Any) -> bool:
        """Whether a member chain has an optional selection or index: its value is then
        optional (cel-go's checker: selecting on an optional_type gives an optional_type)."""
        from lark import Token

        while not isinstance(t, Token):
            d = t.data
            if d in ("member_dot_opt", "member_index_opt"):
                return True
            if d in ("member_dot", "member_index", "paren_expr") or (len(t.children) == 1 and d in (
                    "expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary",
                    "member", "primary")):
                t = t.children[0]
                continue
            return False
        return False

    def visit(self, t: Any) -> None:
        """Record the issues of the tree *t*: each node kind the checker looks at has its
        own method; the others are only walked into."""
        from lark import Token

        if isinstance(t, Token):
            return
        method = self._VISITORS.get(t.data)
        if method is not None:
            method(self, t)
        else:
            self._visit_children(t)

    def _visit_children(self, t: Any) -> None:
        for c in t.children:
            if c is not None:
                self.visit(c)

    def _visit_ident(self, t: Any) -> None:
        tok = t.children[0]
        name = str(tok)
        if name == "oldSelf":
            self.uses_old_self = True
        _, found = self.lookup(name)
        if not found and name not in _TYPE_NAMES:
            self.issues.append(_issue(self.src, tok.line, tok.column - 1,
                                      f"undeclared reference to '{name}' (in container '')"))

    def _visit_member_dot(self, t: Any) -> None:
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

    def _visit_member_index(self, t: Any) -> None:
        self.visit(t.children[0])
        self.visit(t.children[1])
        parent = self.typeof(t.children[0])
        if parent is not None and _fields(parent[0], parent[1]) is not None:
            tok = _first_token(t.children[1])
            at = self.src.rfind("[", 0, tok.start_pos) if tok is not None else -1
            line, col = _line_col(self.src, max(at, 0))
            op = "_[?_]" if t.data == "member_index_opt" else "_[_]"
            self.issues.append(_issue(self.src, line, col, f"found no matching overload for '{op}' applied to "
                                                           "'(object, string)'"))

    def _visit_relation(self, t: Any) -> None:
        if not (len(t.children) == 2 and getattr(t.children[0], "data", "") in _RELATION_OPS):
            self._visit_children(t)
            return
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

    def _visit_aggregate_literal(self, t: Any) -> None:
        if not (t.children and t.children[0] is not None):
            self._visit_children(t)
            return
        # cel-go's HomogeneousAggregateLiterals: a literal's elements (a map's keys, and its
        # values) have one type
        items = list(t.children[0].children)
        # an optional element (``[?x]``) or entry (``{?k: v}``) takes x or v of an
        # optional_type, and the literal's element or value type is its parameter
        if t.data == "list_lit":
            opt = [getattr(i, "data", "") == "opt_expr" for i in items]
            items = [i.children[0] if o else i for i, o in zip(items, opt)]
            groups = [(items, opt)]
        else:
            keys, values = items[0::2], items[1::2]
            opt = [getattr(k, "data", "") == "opt_expr" for k in keys]
            keys = [k.children[0] if o else k for k, o in zip(keys, opt)]
            items = [x for pair in zip(keys, values) for x in pair]
            groups = [(keys, [False] * len(keys)), (values, opt)]
        for group, optional in groups:
            first_kind: str | None = None
            for item, is_opt in zip(group, optional):
                kind = self._kind(item)
                if is_opt and kind is not None:
                    if not kind.startswith("optional_type("):
                        line, col = self._position(_first_token(item))
                        self.issues.append(_issue(self.src, line, col,
                                                  f"expected type 'optional_type({kind})' but found '{kind}'"))
                        continue
                    kind = kind[len("optional_type("):-1]
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

    def _visit_member_dot_arg(self, t: Any) -> None:
        from lark import Token

        member, method = t.children[0], str(t.children[1])
        args = t.children[2].children if len(t.children) > 2 and t.children[2] is not None else []
        if method == "matches" and len(args) == 1:
            self._constant_regex(args[0])
        if method in ("find", "findAll") and args:
            self._constant_find_regex(args[0])
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
        if method in ("optMap", "optFlatMap") and len(args) == 2:
            self._visit_opt_map(method, member, args)
            return
        var = self._macro_var(args[0]) if method in _MACROS and len(args) >= 2 else None
        if var is None:
            for a in args:
                self.visit(a)
            return
        self._visit_macro(method, member, args, var)

    def _visit_opt_map(self, method: str, member: Any, args: list[Any]) -> None:
        """cel-go's optMap/optFlatMap macros (cel/library.go): the variable is the optional's
        value, typed as the member without its optional wrapper."""
        var = self._macro_var(args[0])
        if var is None:
            line, col = self._position(_first_token(args[0]))
            self.issues.append(_issue(self.src, line, col, f"{method}() variable name must be a simple identifier"))
            return
        self.scopes.append({var: self.typeof(member)})
        try:
            self.visit(args[1])
        finally:
            self.scopes.pop()

    def _visit_macro(self, method: str, member: Any, args: list[Any], var: str) -> None:
        """A comprehension's body, checked with its variables typed from the range: a
        list's items (and their index), a map's keys (and values)."""
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

    def _visit_ident_arg(self, t: Any) -> None:
        # a global call: has(), size(), ... ; the name itself is not a variable
        name = str(t.children[0])
        args = t.children[1].children if len(t.children) > 1 and t.children[1] is not None else []
        if name == "has" and len(args) == 1:
            self._has_argument(args[0])
        if name == "matches" and len(args) == 2:
            self._constant_regex(args[1])
        elif name in ("duration", "timestamp") and len(args) == 1:
            self._constant_time(name, args[0])
        elif name in ("semver", "isSemver") and 1 <= len(args) <= 2:
            self._semver_overload(t.children[0], name, args)
        for c in t.children[1:]:
            if c is not None:
                self.visit(c)

    def _visit_nothing(self, t: Any) -> None:
        """``.name`` and ``.name(...)`` at the root: nothing the checker looks at."""

    _VISITORS: dict[str, Callable[[Any, Any], None]] = {
        "ident": _visit_ident, "member_dot": _visit_member_dot, "member_index": _visit_member_index,
        "member_dot_opt": _visit_member_dot, "member_index_opt": _visit_member_index,
        "relation": _visit_relation, "list_lit": _visit_aggregate_literal, "map_lit": _visit_aggregate_literal,
        "member_dot_arg": _visit_member_dot_arg, "ident_arg": _visit_ident_arg,
        "dot_ident": _visit_nothing, "dot_ident_arg": _visit_nothing,
    }

    def _type_name(self, t: Any) -> str | None:
        """cel-go's name of an operand's type where it is certain (literals, typed fields)."""
        from lark import Token

        if self._optional(t):
            return None
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
                kind = None
            elif _fields(s, is_res) is not None:
                kind = "object"
            else:
                kind = {"boolean": "bool", "integer": "int", "number": "double", "string": "string", "array": "list",
                        "object": "map"}.get(s.get("type") or "")
            if kind is not None and self._optional(t):
                return f"optional_type({kind})"
            return kind
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

    def _constant_find_regex(self, arg: Any) -> None:
        """apiserver pkg/cel/library/regex.go FindRegexOptimization / FindAllRegexOptimization:
        a constant pattern is compiled when the program is built; its error fails the rule."""
        pattern = _string_literal(_literal(arg))
        if pattern is None or self.program_error is not None:
            return
        try:
            _regex().compile(pattern)
        except Exception as exc:  # noqa: BLE001 - re2 and re raise different errors
            self.program_error = regex_error_text(exc)

    def _has_argument(self, arg: Any) -> None:
        """parser/macro.go MakeHas: the argument of has() is a field selection; an optional
        selection (``a.?f``, a call of ``_?._``), an index or anything else is refused where
        cel-go's parser puts that expression."""
        from lark import Token

        node = arg
        while not isinstance(node, Token) and (len(node.children) == 1 and node.data in (
                "expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary",
                "member", "primary") or node.data == "paren_expr"):
            node = node.children[0]
        if isinstance(node, Token) or node.data == "member_dot":
            return
        if node.data == "member_dot_opt":
            at = self.src.rfind(".", 0, node.children[1].start_pos)
        elif node.data in ("member_index", "member_index_opt"):
            tok = _first_token(node.children[1])
            at = self.src.rfind("[", 0, tok.start_pos) if tok is not None else -1
        elif node.data in ("member_dot_arg", "ident_arg"):
            name = node.children[1] if node.data == "member_dot_arg" else node.children[0]
            at = self.src.find("(", name.end_pos)
        else:
            tok = _first_token(node)
            at = tok.start_pos if tok is not None and tok.start_pos is not None else -1
        line, col = _line_col(self.src, max(at, 0))
        self.syntax_issues.append(_issue(self.src, line, col, "invalid argument to has() macro"))

    def _semver_overload(self, tok: Any, name: str, args: list[Any]) -> None:
        """semverlib.go declares semver and isSemver on (string) and (string, bool): arguments
        of another certain type have no overload (reported at the call's parenthesis)."""
        kinds = [self._type_name(a) for a in args]
        if None in kinds or kinds == ["string", "bool"][:len(kinds)]:
            return
        at = self.src.find("(", tok.end_pos)
        line, col = _line_col(self.src, max(at, 0))
        self.issues.append(_issue(self.src, line, col, f"found no matching overload for '{name}' applied to "
                                                       f"'({', '.join(str(k) for k in kinds)})'"))

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
            if name in ("has", "matches", "isURL", "isQuantity", "isIP", "isCIDR", "isSemver"):
                return "bool"
            if name == "size":
                return "int"
            return None
        if d in ("member_dot_opt", "member_index_opt") or (d in ("member_dot", "member_index")
                                                             and self._optional(t)):
            return "optional_type"
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
    if interpreter.load() is None:
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
    if checker.program_error is not None:
        cr.error = "program instantiation failed: " + checker.program_error
        return cr
    cr.uses_old_self = checker.uses_old_self
    cr.program = interpreter.environment().program(ast, functions=_functions())
    msg = rule.get("messageExpression") or ""
    if msg:
        mast, merr, mchecker = _compile(msg, schema, is_resource, bool(rule.get("optionalOldSelf")))
        if merr is not None:
            cr.message_error = "messageExpression compilation failed: " + merr
        elif mchecker.result_type(mast) not in (None, "string"):
            cr.message_error = "messageExpression must evaluate to a string"
        elif mchecker.program_error is not None:
            cr.message_error = "messageExpression instantiation failed: " + mchecker.program_error
        else:
            cr.message_program = interpreter.environment().program(mast, functions=_functions())
    if rule.get("fieldPath"):
        try:
            cr.field_path = str(valid_field_path(rule["fieldPath"], schema)[0])
        except ValueError:
            pass
    return cr


def _compile(src: str, schema: Mapping[str, Any], is_resource: bool, optional_old_self: bool) -> tuple[Any, str | None, _Checker]:
    celpy = loader.celpy
    checker = _Checker(src, schema, is_resource, optional_old_self)
    try:
        ast = interpreter.environment().compile(src)
    except celpy.CELParseError as exc:
        line = getattr(exc, "line", None) or 1
        col = (getattr(exc, "column", None) or 1) - 1
        return None, _issue(src, line, col, "Syntax error: unexpected input"), checker
    checker.visit(ast)
    if checker.syntax_issues:
        return ast, "\n".join(checker.syntax_issues), checker
    if checker.issues:
        return ast, "\n".join(checker.issues), checker
    return ast, None, checker
