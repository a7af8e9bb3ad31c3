"""celpy's interpreter with cel-go's semantics, and the runtime cost of an evaluation (Go:
cel-go ``interpreter`` (``interpreter.go``, ``runtimecost.go``), the comprehension macros of
``parser/macro.go`` and ``ext/comprehensions.go``, and k8s.io/apiserver ``pkg/cel/environment``
for the one environment every rule is compiled in).

celpy's interpreter is subclassed (:func:`_runner_class`) for cel-go's ``has()``,
``all``/``exists`` error rules, the lists library's ``min()`` and cel-go's extra
comprehensions; the cost counts evaluated expression nodes against Go's limits.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

from kcodec.api.apiextensions.cel import loader, syntax
from kcodec.api.apiextensions.cel.library import _functions
from kcodec.api.apiextensions.cel.values import _NO_OVERLOAD, _NONE, _cel_equal, _Optional

__all__ = ["cel_available", "CEL_UNAVAILABLE_WARNING"]

#: The warning the server gives when it stores a CRD with rules it cannot evaluate.
CEL_UNAVAILABLE_WARNING = (
    "x-kubernetes-validations rules are not evaluated: the CEL library is not installed "
    "(pip install 'kcodec[cel]')")

_COST_EXCEEDED = "operation cancelled: actual cost limit exceeded"

_MACROS = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap",
                     "transformMapEntry", "sortBy"})

# macros whose three-argument form binds two variables (cel-go ext two-variable comprehensions)
_TWO_VARS = frozenset({"all", "exists", "existsOne", "exists_one", "transformList", "transformMap",
                       "transformMapEntry"})

# cel-go's optional library macros (cel/library.go optMap, optFlatMap): a variable bound to
# an optional's value
_OPT_MACROS = frozenset({"optMap", "optFlatMap"})

_env: Any = None


def load() -> Any:
    """The celpy module, or None when it is not installed; the first call also builds the
    environment rules are compiled in."""
    global _env
    celpy = loader.import_celpy()
    if celpy is not None and _env is None:
        # celpy.Environment raises the interpreter's recursion limit for good; rules are
        # short, so the process keeps the limit it had.
        limit = sys.getrecursionlimit()
        try:
            env = celpy.Environment(runner_class=_runner_class())
        finally:
            sys.setrecursionlimit(limit)
        # Kubernetes' environment has cel-go's optional syntax (cel.OptionalTypes()).
        env.cel_parser = syntax.parser(env.runner_class.tree_node_class)
        _env = env
    return celpy


def cel_available() -> bool:
    """True when the CEL library (``cel-python``) is installed."""
    return load() is not None


def environment() -> Any:
    """The celpy Environment every rule is compiled in (after :func:`load`)."""
    return _env


class _Cost:
    """The cost an evaluation has spent, shared by the evaluators of its comprehensions."""

    __slots__ = ("used", "limit")

    def __init__(self, limit: int) -> None:
        self.used = 0
        self.limit = limit


class _CostExceeded(Exception):
    """Raised through celpy's interpreter when an evaluation spends more than its limit."""


def _var_name(arg: Any) -> str | None:
    """The variable a comprehension's first argument names, or None."""
    from lark import Tree

    t = arg
    while isinstance(t, Tree) and len(t.children) == 1 and t.data != "ident":
        t = t.children[0]
    if isinstance(t, Tree) and t.data == "ident":
        return str(t.children[0])
    return None


def _runner_class() -> type:
    """celpy's interpreter with cel-go's semantics where celpy's differ: ``has()`` fails when
    an intermediate field is missing, ``all``/``exists`` raise an error only when no element
    decides the result, ``min()`` is the lists library's function, and the comprehensions
    cel-go adds (two variables, ``existsOne``, ``transformList``/``Map``/``MapEntry``,
    ``sortBy``, ``map`` with a filter)."""
    celpy = loader.celpy
    ev, ct = celpy.evaluation, celpy.celtypes
    from lark import Tree

    class Evaluated(Tree):  # type: ignore[misc]
        """A subtree whose value is already known, handed to celpy's own ``member_dot`` and
        ``member_index`` after the target was looked at for an optional value."""

        def __init__(self, value: Any) -> None:
            super().__init__("evaluated", [])
            self.value = value

    class Evaluator(ev.Evaluator):  # type: ignore[misc, name-defined]
        cost: _Cost | None = None

        # Every node goes through visit(): celpy's visit_children is redone on it (lark's
        # calls its private _visit_tree) so that the cost counts each evaluated node.
        def visit(self, tree: Any) -> Any:
            if type(tree) is Evaluated:
                return tree.value
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

        # cel-go's optional syntax (interpreter/attributes.go applyQualifiers): ``a.?f`` and
        # ``a[?k]`` are optional.none() when the field, key or index is absent, else
        # optional.of(the value); a plain selection or index on an optional value is optional
        # too (none stays none), so ``a.?b.c`` is none when b or c is absent.
        def member_dot_opt(self, tree: Any) -> Any:
            target = self.visit(tree.children[0])
            return _qualify_if_present(target, ct.StringType(str(tree.children[1])), True)

        def member_index_opt(self, tree: Any) -> Any:
            target = self.visit(tree.children[0])
            return _qualify_if_present(target, self.visit(tree.children[1]), False)

        def member_dot(self, tree: Any) -> Any:
            member_tree, name = tree.children
            target = self.visit(member_tree)
            if isinstance(target, _Optional):
                return _qualify_if_present(target, ct.StringType(str(name)), True)
            return _own_tree(super().member_dot(Tree(tree.data, [Evaluated(target), name], tree.meta)), tree)

        def member_index(self, tree: Any) -> Any:
            member_tree, index_tree = tree.children
            target = self.visit(member_tree)
            if isinstance(target, _Optional):
                return _qualify_if_present(target, self.visit(index_tree), False)
            return _own_tree(super().member_index(Tree(tree.data, [Evaluated(target), index_tree], tree.meta)), tree)

        def exprlist(self, tree: Any) -> Any:
            # a list literal with optional elements (cel-go interpretable.go evalList): an
            # element written ``?x`` is x's value when x is present and left out when not
            if not any(isinstance(c, Tree) and c.data == "opt_expr" for c in tree.children):
                return super().exprlist(tree)
            out = []
            for child in tree.children:
                is_opt = child.data == "opt_expr"
                v = self.visit(child.children[0] if is_opt else child)
                if isinstance(v, ev.CELEvalError):
                    return v
                if is_opt:
                    if not isinstance(v, _Optional):
                        return ev.CELEvalError(
                            f"cannot initialize optional list element from non-optional value {_go_text(v)}")
                    if not v.present:
                        continue
                    v = v.v
                out.append(v)
            return ct.ListType(out)

        def mapinits(self, tree: Any) -> Any:
            # a map literal with optional entries (cel-go interpretable.go evalMap): an entry
            # written ``?k: v`` is k: v's value when v is present and left out when not
            children = tree.children
            if not any(isinstance(c, Tree) and c.data == "opt_expr" for c in children[0::2]):
                return super().mapinits(tree)
            out = ct.MapType()
            for key_tree, value_tree in zip(children[0::2], children[1::2]):
                is_opt = key_tree.data == "opt_expr"
                key = self.visit(key_tree.children[0] if is_opt else key_tree)
                if isinstance(key, ev.CELEvalError):
                    return key
                value = self.visit(value_tree)
                if isinstance(value, ev.CELEvalError):
                    return value
                if is_opt:
                    if not isinstance(value, _Optional):
                        return ev.CELEvalError(f"cannot initialize optional entry '{_go_text(key)}' from "
                                               f"non-optional value {_go_text(value)}")
                    if not value.present:
                        out.pop(key, None)
                        continue
                    value = value.v
                elif key in out:
                    raise ValueError(f"Duplicate key {key!r}")  # as celpy's mapinits
                out[key] = value
            return out

        def literal(self, tree: Any) -> Any:
            # triple-quoted literals as cel-go reads them: celpy drops their newlines
            tok = tree.children[0] if len(tree.children) == 1 else None
            kind = getattr(tok, "type", None)
            if kind == "MLSTRING_LIT":
                return ct.StringType(syntax.cel_string(tok))
            if kind == "BYTES_LIT" and str(tok)[1:].lstrip("rR")[:3] in ('"""', "'''"):
                return ct.BytesType(syntax.cel_bytes(tok))
            return super().literal(tree)

        def macro_has_eval(self, exprlist: Any) -> Any:
            node = exprlist.children[0] if exprlist.children else None
            while isinstance(node, Tree) and node.data != "member_dot" and len(node.children) == 1:
                node = node.children[0]
            if isinstance(node, Tree) and node.data == "member_dot":
                target = self.visit(node.children[0])
                if isinstance(target, ev.CELEvalError):
                    return target
                if isinstance(target, _Optional):
                    # a presence test on an optional value: false when none, else on its value
                    # (cel-go attributes.go applyQualifiers with presenceOnly)
                    if not target.present:
                        return ct.BoolType(False)
                    target = target.v
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
            if name in _OPT_MACROS and len(args) == 2:
                target = self.visit(tree.children[0])
                if isinstance(target, ev.CELEvalError):
                    return target
                return _opt_map(self, name, target, args)
            if name == "min" and not args:
                target = self.visit(tree.children[0])
                if isinstance(target, ev.CELEvalError):
                    return target
                return _functions()["min"](target)
            if name not in _MACROS or len(args) < 2 or _var_name(args[0]) is None:
                return super().member_dot_arg(tree)
            target = self.visit(tree.children[0])
            if isinstance(target, ev.CELEvalError):
                return target
            return _comprehension(self, name, target, args)

    class Runner(celpy.InterpretedRunner):  # type: ignore[misc, name-defined]
        def evaluate(self, context: Any, cost: _Cost | None = None) -> Any:
            e = Evaluator(ast=self.ast, activation=self.new_activation())
            e.cost = cost
            return e.evaluate(context)

    return Runner


def _own_tree(result: Any, tree: Any) -> Any:
    """An error celpy made for the stand-in tree points at the rule's own node (celpy prints
    an error's tree as source text)."""
    if isinstance(result, loader.celpy.evaluation.CELEvalError) and result.tree is not None:
        result.tree = tree
    return result


def _opt_map(evaluator: Any, name: str, target: Any, args: list[Any]) -> Any:
    """``opt.optMap(v, e)``: optional.of(e with v bound to opt's value), none when opt is
    none; ``optFlatMap`` gives e's own (optional) value (cel-go cel/library.go)."""
    ev = loader.celpy.evaluation
    var = _var_name(args[0])
    if var is None:
        return ev.CELEvalError(f"{name}() variable name must be a simple identifier")
    if not isinstance(target, _Optional):
        return ev.CELEvalError(_NO_OVERLOAD)
    if not target.present:
        return target
    try:
        out = evaluator.sub_evaluator(args[1]).evaluate({var: target.v})
    except ev.CELEvalError as exc:
        return exc
    if isinstance(out, ev.CELEvalError) or name == "optFlatMap":
        return out
    return _Optional(out)


def _go_text(v: Any) -> str:
    """A value as cel-go's %v prints it in an error text."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "NULL_VALUE"
    if isinstance(v, str):
        return str(v)
    return repr(v) if isinstance(v, _Optional) else str(v)


def _cel_type_name(v: Any) -> str:
    """cel-go's name of a value's type (common/types), for its error texts."""
    ct = loader.celpy.celtypes
    for cls, name in ((ct.BoolType, "bool"), (ct.IntType, "int"), (ct.UintType, "uint"), (ct.DoubleType, "double"),
                      (ct.StringType, "string"), (ct.BytesType, "bytes"), (ct.ListType, "list"), (ct.MapType, "map"),
                      (ct.DurationType, "google.protobuf.Duration"), (ct.TimestampType, "google.protobuf.Timestamp"),
                      (_Optional, "optional_type")):
        if isinstance(v, cls):
            return name
    return "null_type" if v is None else type(v).__name__


def _qualify_if_present(target: Any, key: Any, field: bool) -> Any:
    """optional.of(target's *key*) or optional.none() (cel-go interpreter/attributes.go
    ``refQualify`` with a presence test, its ``stringQualifier`` for a field); an optional
    target is looked into when present and stays none when not."""
    ev, ct = loader.celpy.evaluation, loader.celpy.celtypes
    if isinstance(target, ev.CELEvalError):
        return target
    if isinstance(key, ev.CELEvalError):
        return key
    if isinstance(target, _Optional):
        if not target.present:
            return target
        target = target.v
    if isinstance(target, Mapping):
        if field:
            found = key in target
        else:
            found = False
            for k in target:
                if _cel_equal(k, key):
                    key, found = k, True
                    break
        if not found:
            return _NONE
        value = target[key]
        return value if isinstance(value, ev.CELEvalError) else _Optional(value)
    if isinstance(target, list):
        # types.IndexOrError: an int, or a uint or double that is one
        if isinstance(key, (ct.IntType, ct.UintType)) and not isinstance(key, bool):
            i = int(key)
        elif isinstance(key, ct.DoubleType):
            f = float(key)
            if not f.is_integer():
                return ev.CELEvalError(f"unsupported index value {_go_text(key)} in list")
            i = int(f)
        else:
            return ev.CELEvalError(f"unsupported index type '{_cel_type_name(key)}' in list")
        if 0 <= i < len(target):
            value = target[i]
            return value if isinstance(value, ev.CELEvalError) else _Optional(value)
        return _NONE
    # refQualify's default: a presence test on a value that has no fields or keys is false
    # (Kubernetes does not turn on cel-go's EnableErrorOnBadPresenceTest)
    return _NONE


def _comprehension(evaluator: Any, name: str, target: Any, args: list[Any]) -> Any:
    """A macro over *target* (a list or a map) with one or two variables (cel-go's
    comprehensions and ext/comprehensions.go)."""
    ev, ct = loader.celpy.evaluation, loader.celpy.celtypes
    two = name in ("transformList", "transformMap", "transformMapEntry") or (name in _TWO_VARS and len(args) == 3)
    v1 = _var_name(args[0])
    v2 = _var_name(args[1]) if two else None
    if two and v2 is None:
        return ev.CELEvalError(_NO_OVERLOAD)
    exprs = [evaluator.sub_evaluator(a) for a in args[2 if two else 1:]]
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
        return _quantifier(name == "exists", pairs, run)
    if name in ("exists_one", "existsOne"):
        return _exists_one(pairs, run)
    filtered = _collect(name, len(exprs), pairs, run, is_list)
    if isinstance(filtered, ev.CELEvalError):
        return filtered
    return _result(name, filtered, target)


def _quantifier(want: bool, pairs: list[tuple[Any, Any]], run: Callable[[int, Any], Any]) -> Any:
    """``all`` (want False) and ``exists`` (want True): an element that decides the result
    wins over an error of another element, as in cel-go."""
    ev, ct = loader.celpy.evaluation, loader.celpy.celtypes
    error = None
    for pair in pairs:
        r = run(0, pair)
        if isinstance(r, ct.BoolType):
            if bool(r) == want:
                return ct.BoolType(want)
        elif error is None:
            error = r if isinstance(r, ev.CELEvalError) else ev.CELEvalError(_NO_OVERLOAD)
    return error if error is not None else ct.BoolType(not want)


def _exists_one(pairs: list[tuple[Any, Any]], run: Callable[[int, Any], Any]) -> Any:
    ev, ct = loader.celpy.evaluation, loader.celpy.celtypes
    count = 0
    for pair in pairs:
        r = run(0, pair)
        if not isinstance(r, ct.BoolType):
            return r if isinstance(r, ev.CELEvalError) else ev.CELEvalError(_NO_OVERLOAD)
        count += bool(r)
    return ct.BoolType(count == 1)


def _collect(name: str, n_exprs: int, pairs: list[tuple[Any, Any]], run: Callable[[int, Any], Any],
             is_list: bool) -> Any:
    """The (pair, value) of each element a filter keeps (every element when there is no
    filter): the element itself for ``filter``, else the transform's value; or the first
    error."""
    ev, ct = loader.celpy.evaluation, loader.celpy.celtypes
    filtered = []
    for pair in pairs:
        if n_exprs == 2 or name == "filter":
            keep = run(0, pair)
            if not isinstance(keep, ct.BoolType):
                return keep if isinstance(keep, ev.CELEvalError) else ev.CELEvalError(_NO_OVERLOAD)
            if not keep:
                continue
        if name == "filter":
            filtered.append((pair, pair[1] if is_list else pair[0]))
            continue
        out = run(n_exprs - 1, pair)
        if isinstance(out, ev.CELEvalError):
            return out
        filtered.append((pair, out))
    return filtered


def _result(name: str, filtered: list[tuple[Any, Any]], target: Any) -> Any:
    """The value of ``filter``, ``map``, ``transformList``, ``transformMap``,
    ``transformMapEntry`` or ``sortBy`` from the collected elements."""
    ev, ct = loader.celpy.evaluation, loader.celpy.celtypes
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


# cel-go's texts for the errors celpy words its own way.
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
    """(result, None) or (None, cel-go's error text) of one evaluation."""
    ev = loader.celpy.evaluation
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
