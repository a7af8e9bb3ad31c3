"""Label selectors (Go: k8s.io/apimachinery pkg/labels, pkg/selection; metav1 helpers.go).

:func:`parse` reads a selector string with Go's lexer and parser and raises
:class:`SelectorParseError` with Go's message (``unable to parse requirement: ...``,
``found ',', expected: identifier after ','``...). A :class:`Selector` matches a label map
(``Mapping[str, str]``) and prints as Go's ``String()`` (requirements sorted by key, values
sorted). :func:`label_selector_as_selector` turns a metav1 LabelSelector into a Selector
(Go's ``metav1.LabelSelectorAsSelector``).

The lexer and parser are iterative and linear in the input: deep, huge or odd input (NUL
bytes, bytes that are not UTF-8) gives Go's result or Go's error, never a crash.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from kcodec.errors import KCodecError
from kcodec.validation.field import ErrorList, Path, invalid, not_supported
from kcodec.validation.names import is_qualified_name, is_valid_label_value

__all__ = [
    "SelectorParseError",
    "Operator",
    "Requirement",
    "Selector",
    "Set",
    "parse",
    "parse_to_requirements",
    "everything",
    "nothing",
    "matches_nothing",
    "new_selector",
    "new_requirement",
    "selector_from_set",
    "selector_from_validated_set",
    "validated_selector_from_set",
    "label_selector_as_selector",
    "label_selector_as_map",
    "format_labels",
    "conflicts",
    "merge",
    "equals",
    "convert_selector_to_labels_map",
]


class SelectorParseError(KCodecError, ValueError):
    """A label selector that Go's parser or ``NewRequirement`` rejects; ``str()`` is Go's
    error text. ``errors`` holds the field errors when the failure came from them."""

    def __init__(self, message: str, errors: ErrorList | None = None) -> None:
        super().__init__(message)
        self.errors = errors if errors is not None else ErrorList()


class Operator:
    """Go's ``selection.Operator`` values."""

    DOES_NOT_EXIST = "!"
    EQUALS = "="
    DOUBLE_EQUALS = "=="
    IN = "in"
    NOT_EQUALS = "!="
    NOT_IN = "notin"
    EXISTS = "exists"
    GREATER_THAN = "gt"
    LESS_THAN = "lt"


_UNARY = [Operator.EXISTS, Operator.DOES_NOT_EXIST]
_BINARY = [Operator.IN, Operator.NOT_IN, Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS,
           Operator.GREATER_THAN, Operator.LESS_THAN]
_VALID_OPERATORS = _BINARY + _UNARY

_INT64 = re.compile(r"[+-]?[0-9]+")


def _parse_int64(s: str) -> int | None:
    """strconv.ParseInt(s, 10, 64), or None where Go returns an error."""
    if not _INT64.fullmatch(s):
        return None
    v = int(s)
    return v if -(1 << 63) <= v < (1 << 63) else None


def _child(path: Path | None, name: str) -> Path:
    # Go: (*Path)(nil).Child(name) is a path of that one name.
    return Path(name) if path is None else path.child(name)


def _validate_label_key(k: str, path: Path | None) -> Any:
    errs = is_qualified_name(k)
    if errs:
        return invalid(path, k, "; ".join(errs))
    return None


def _validate_label_value(k: str, v: str, path: Path | None) -> Any:
    errs = is_valid_label_value(v)
    if errs:
        # Go: (*Path)(nil).Key(k) is the bare subscript "[k]".
        where = Path._subscript(None, k) if path is None else path.key(k)  # type: ignore[arg-type]
        return invalid(where, v, "; ".join(errs))
    return None


class Requirement:
    """One requirement of a selector (Go: ``labels.Requirement``): key, operator, values."""

    __slots__ = ("_key", "_operator", "_values")

    def __init__(self, key: str, operator: str, values: Iterable[str] = ()) -> None:
        """An unchecked requirement (Go builds these for validated sets); use
        :func:`new_requirement` to check key, operator and values."""
        self._key = key
        self._operator = operator
        self._values = list(values)

    def key(self) -> str:
        return self._key

    def operator(self) -> str:
        return self._operator

    def values(self) -> list[str]:
        """The values, sorted and without repeats (Go: ``Values().List()``)."""
        return sorted(set(self._values))

    def values_unsorted(self) -> list[str]:
        return list(self._values)

    def _has_value(self, v: str) -> bool:
        return v in self._values

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Go: ``Requirement.Matches``."""
        op = self._operator
        if op in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
            return self._key in labels and self._has_value(labels[self._key])
        if op in (Operator.NOT_IN, Operator.NOT_EQUALS):
            return self._key not in labels or not self._has_value(labels[self._key])
        if op == Operator.EXISTS:
            return self._key in labels
        if op == Operator.DOES_NOT_EXIST:
            return self._key not in labels
        if op in (Operator.GREATER_THAN, Operator.LESS_THAN):
            if self._key not in labels:
                return False
            have = _parse_int64(labels[self._key])
            if have is None or len(self._values) != 1:
                return False
            want = _parse_int64(self._values[0])
            if want is None:
                return False
            return have > want if op == Operator.GREATER_THAN else have < want
        return False

    def __str__(self) -> str:
        op = self._operator
        out = ["!" if op == Operator.DOES_NOT_EXIST else "", self._key]
        sym = {Operator.EQUALS: "=", Operator.DOUBLE_EQUALS: "==", Operator.NOT_EQUALS: "!=",
               Operator.IN: " in ", Operator.NOT_IN: " notin ", Operator.GREATER_THAN: ">",
               Operator.LESS_THAN: "<"}
        if op in (Operator.EXISTS, Operator.DOES_NOT_EXIST):
            return "".join(out)
        out.append(sym.get(op, ""))
        paren = op in (Operator.IN, Operator.NOT_IN)
        if paren:
            out.append("(")
        vals = self._values
        out.append(vals[0] if len(vals) == 1 else ",".join(sorted(vals)))
        if paren:
            out.append(")")
        return "".join(out)

    def __repr__(self) -> str:
        return f"Requirement({self._key!r}, {self._operator!r}, {self._values!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return (self._key, self._operator, self._values) == (other._key, other._operator, other._values)

    def __hash__(self) -> int:
        return hash((self._key, self._operator, tuple(self._values)))


def new_requirement(key: str, op: str, vals: Iterable[str], path: Path | None = None) -> Requirement:
    """Go: ``labels.NewRequirement``: a checked requirement; raises SelectorParseError with
    the aggregate of the field errors (``key: Invalid value: ...``, ``values[0][k]: ...``)."""
    vals = list(vals)
    errs = ErrorList()
    e = _validate_label_key(key, _child(path, "key"))
    if e is not None:
        errs.append(e)
    value_path = _child(path, "values")
    if op in (Operator.IN, Operator.NOT_IN):
        if not vals:
            errs.append(invalid(value_path, vals, "for 'in', 'notin' operators, values set can't be empty"))
    elif op in (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS):
        if len(vals) != 1:
            errs.append(invalid(value_path, vals, "exact-match compatibility requires one single value"))
    elif op in (Operator.EXISTS, Operator.DOES_NOT_EXIST):
        if vals:
            errs.append(invalid(value_path, vals, "values set must be empty for exists and does not exist"))
    elif op in (Operator.GREATER_THAN, Operator.LESS_THAN):
        if len(vals) != 1:
            errs.append(invalid(value_path, vals, "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, v in enumerate(vals):
            if _parse_int64(v) is None:
                errs.append(invalid(value_path.index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"))
    else:
        errs.append(not_supported(_child(path, "operator"), op, _VALID_OPERATORS))
    for i, v in enumerate(vals):
        e = _validate_label_value(key, v, value_path.index(i))
        if e is not None:
            errs.append(e)
    if errs:
        raise SelectorParseError(errs.to_aggregate() or "", errs)
    return Requirement(key, op, vals)


class Selector:
    """A label selector: requirements that must all hold (Go: ``internalSelector``)."""

    __slots__ = ("_reqs",)

    def __init__(self, requirements: Iterable[Requirement] = ()) -> None:
        self._reqs: tuple[Requirement, ...] = tuple(sorted(requirements, key=lambda r: r._key))

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        labels = labels if labels is not None else {}
        return all(r.matches(labels) for r in self._reqs)

    def empty(self) -> bool:
        return not self._reqs

    def requirements(self) -> tuple[list[Requirement], bool]:
        """(requirements, selectable), as Go's ``Requirements()``."""
        return list(self._reqs), True

    def add(self, *reqs: Requirement) -> Selector:
        """A new selector with these requirements too, sorted by key (stable, as Go's sort
        of a short slice keeps equal keys in order in practice)."""
        return Selector(self._reqs + reqs)

    def requires_exact_match(self, label: str) -> tuple[str, bool]:
        """Go: ``RequiresExactMatch``: the value when the first requirement on ``label`` is
        ``=``, ``==`` or ``in`` with one value."""
        for r in self._reqs:
            if r._key == label:
                if r._operator in (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.IN) and len(r._values) == 1:
                    return r._values[0], True
                return "", False
        return "", False

    def deep_copy(self) -> Selector:
        return Selector(Requirement(r._key, r._operator, r._values) for r in self._reqs)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self._reqs)

    def __repr__(self) -> str:
        return f"labels.Selector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Selector) and type(other) is type(self) and self._reqs == other._reqs

    def __hash__(self) -> int:
        return hash(self._reqs)


class _NothingSelector(Selector):
    """Go: ``nothingSelector``: matches nothing, prints as ``""``."""

    __slots__ = ()

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        return False

    def empty(self) -> bool:
        return False

    def requirements(self) -> tuple[list[Requirement], bool]:
        return [], False

    def add(self, *reqs: Requirement) -> Selector:
        return self

    def requires_exact_match(self, label: str) -> tuple[str, bool]:
        return "", False

    def deep_copy(self) -> Selector:
        return self

    def __repr__(self) -> str:
        return "labels.nothing()"


_EVERYTHING = Selector()
_NOTHING = _NothingSelector()


def everything() -> Selector:
    """A selector that matches every label set."""
    return _EVERYTHING


def nothing() -> Selector:
    """A selector that matches nothing."""
    return _NOTHING


def matches_nothing(selector: Selector) -> bool:
    return selector is _NOTHING


def new_selector() -> Selector:
    return Selector()


# --- lexer (Go: labels.Lexer) ---------------------------------------------------------

_ERROR, _EOS, _CLOSED_PAR, _COMMA, _NOT, _DOUBLE_EQ, _EQ, _GT, _IDENT, _IN, _LT, _NOT_EQ, _NOT_IN, _OPEN_PAR = range(14)
_STRING2TOKEN = {")": _CLOSED_PAR, ",": _COMMA, "!": _NOT, "==": _DOUBLE_EQ, "=": _EQ, ">": _GT, "in": _IN,
                 "<": _LT, "!=": _NOT_EQ, "notin": _NOT_IN, "(": _OPEN_PAR}
_SPECIAL = frozenset("=!(),><")
_WS = re.compile(r"[ \t\r\n]*")
# An identifier runs until a special symbol, white space or a NUL byte (Go's read() returns
# 0 both at the end and for a NUL, so a NUL ends the token).
_IDENT_RE = re.compile(r"[^=!(),>< \t\r\n\x00]+")


def _lex(s: str) -> list[tuple[int, str]]:
    items: list[tuple[int, str]] = []
    n = len(s)
    pos = 0
    append = items.append
    while True:
        pos = _WS.match(s, pos).end()  # type: ignore[union-attr]
        if pos >= n or s[pos] == "\x00":
            append((_EOS, ""))
            return items
        if s[pos] in _SPECIAL:
            two = s[pos:pos + 2]
            lit = two if two in ("==", "!=") else s[pos]
            pos += len(lit)
            append((_STRING2TOKEN[lit], lit))
        else:
            m = _IDENT_RE.match(s, pos)
            lit = m.group()  # type: ignore[union-attr]
            pos = m.end()  # type: ignore[union-attr]
            append((_STRING2TOKEN.get(lit, _IDENT) if lit in ("in", "notin") else _IDENT, lit))
        if pos < n and s[pos] == "\x00":
            pos += 1  # Go's scanners stop on a NUL without unreading it


# --- parser (Go: labels.Parser) -------------------------------------------------------

class _Parser:
    __slots__ = ("items", "pos", "path")

    def __init__(self, s: str, path: Path | None) -> None:
        self.items = _lex(s)
        self.pos = 0
        self.path = path

    def lookahead(self, values: bool) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        if values and tok in (_IN, _NOT_IN):
            tok = _IDENT
        return tok, lit

    def consume(self, values: bool) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        self.pos += 1
        if values and tok in (_IN, _NOT_IN):
            tok = _IDENT
        return tok, lit

    def parse(self) -> list[Requirement]:
        reqs: list[Requirement] = []
        while True:
            tok, lit = self.lookahead(True)
            if tok in (_IDENT, _NOT):
                try:
                    r = self.parse_requirement()
                except SelectorParseError as e:
                    raise SelectorParseError(f"unable to parse requirement: {e}", e.errors) from None
                reqs.append(r)
                t, lt = self.consume(True)
                if t == _EOS:
                    return reqs
                if t == _COMMA:
                    t2, l2 = self.lookahead(True)
                    if t2 not in (_IDENT, _NOT):
                        raise SelectorParseError(f"found '{l2}', expected: identifier after ','")
                else:
                    raise SelectorParseError(f"found '{lt}', expected: ',' or 'end of string'")
            elif tok == _EOS:
                return reqs
            else:
                raise SelectorParseError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def parse_requirement(self) -> Requirement:
        key, op = self.parse_key_and_infer_operator()
        if op in (Operator.EXISTS, Operator.DOES_NOT_EXIST):
            return new_requirement(key, op, [], self.path)
        op = self.parse_operator()
        if op in (Operator.IN, Operator.NOT_IN):
            values = self.parse_values()
        else:
            values = self.parse_exact_value()
        return new_requirement(key, op, sorted(values), self.path)

    def parse_key_and_infer_operator(self) -> tuple[str, str]:
        op = ""
        tok, lit = self.consume(True)
        if tok == _NOT:
            op = Operator.DOES_NOT_EXIST
            tok, lit = self.consume(True)
        if tok != _IDENT:
            raise SelectorParseError(f"found '{lit}', expected: identifier")
        e = _validate_label_key(lit, self.path)
        if e is not None:
            raise SelectorParseError(str(e), ErrorList([e]))
        t, _ = self.lookahead(True)
        if t in (_EOS, _COMMA) and op != Operator.DOES_NOT_EXIST:
            op = Operator.EXISTS
        return lit, op

    def parse_operator(self) -> str:
        tok, lit = self.consume(False)
        op = {_IN: Operator.IN, _EQ: Operator.EQUALS, _DOUBLE_EQ: Operator.DOUBLE_EQUALS,
              _GT: Operator.GREATER_THAN, _LT: Operator.LESS_THAN, _NOT_IN: Operator.NOT_IN,
              _NOT_EQ: Operator.NOT_EQUALS}.get(tok)
        if op is None:
            raise SelectorParseError(f"found '{lit}', expected: {', '.join(_BINARY)}")
        return op

    def parse_values(self) -> set[str]:
        tok, lit = self.consume(True)
        if tok != _OPEN_PAR:
            raise SelectorParseError(f"found '{lit}' expected: '('")
        tok, lit = self.lookahead(True)
        if tok in (_IDENT, _COMMA):
            s = self.parse_identifiers_list()
            tok, _ = self.consume(True)
            if tok != _CLOSED_PAR:
                raise SelectorParseError(f"found '{lit}', expected: ')'")
            return s
        if tok == _CLOSED_PAR:
            self.consume(True)
            return {""}
        raise SelectorParseError(f"found '{lit}', expected: ',', ')' or identifier")

    def parse_identifiers_list(self) -> set[str]:
        s: set[str] = set()
        while True:
            tok, lit = self.consume(True)
            if tok == _IDENT:
                s.add(lit)
                tok2, lit2 = self.lookahead(True)
                if tok2 == _COMMA:
                    continue
                if tok2 == _CLOSED_PAR:
                    return s
                raise SelectorParseError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _COMMA:
                if not s:
                    s.add("")
                tok2, _ = self.lookahead(True)
                if tok2 == _CLOSED_PAR:
                    s.add("")
                    return s
                if tok2 == _COMMA:
                    s.add("")
                continue
            raise SelectorParseError(f"found '{lit}', expected: ',', or identifier")

    def parse_exact_value(self) -> set[str]:
        tok, _ = self.lookahead(True)
        if tok in (_EOS, _COMMA):
            return {""}
        tok, lit = self.consume(True)
        if tok == _IDENT:
            return {lit}
        raise SelectorParseError(f"found '{lit}', expected: identifier")


def _as_text(s: str | bytes) -> str:
    if isinstance(s, (bytes, bytearray)):
        return bytes(s).decode("utf-8", "surrogateescape")
    if not isinstance(s, str):
        raise TypeError(f"a selector is a string, not {type(s).__name__}")
    return s


def parse_to_requirements(selector: str | bytes, path: Path | None = None) -> list[Requirement]:
    """Go: ``labels.ParseToRequirements``: the requirements, sorted by key."""
    reqs = _Parser(_as_text(selector), path).parse()
    reqs.sort(key=lambda r: r._key)
    return reqs


def parse(selector: str | bytes, path: Path | None = None) -> Selector:
    """Go: ``labels.Parse``: a selector from its string form (``a=b,c in (d,e),!f``).

    ``path`` is Go's ``field.WithPath`` option: it prefixes field paths in key and value
    errors. Raises :class:`SelectorParseError` with Go's text.
    """
    return Selector(parse_to_requirements(selector, path))


def selector_from_validated_set(ls: Mapping[str, str] | None) -> Selector:
    """Go: ``SelectorFromValidatedSet``: ``k=v`` requirements, unchecked."""
    if not ls:
        return Selector()
    return Selector(Requirement(k, Operator.EQUALS, [v]) for k, v in ls.items())


def selector_from_set(ls: Mapping[str, str] | None) -> Selector:
    """Go: ``SelectorFromSet`` (which, since 1.26, does not check the set either)."""
    return selector_from_validated_set(ls)


def validated_selector_from_set(ls: Mapping[str, str] | None) -> Selector:
    """Go: ``ValidatedSelectorFromSet``: raises SelectorParseError on an invalid key or value."""
    if not ls:
        return Selector()
    return Selector(new_requirement(k, Operator.EQUALS, [ls[k]]) for k in sorted(ls))


_LABEL_SELECTOR_OPS = {"In": Operator.IN, "NotIn": Operator.NOT_IN, "Exists": Operator.EXISTS,
                       "DoesNotExist": Operator.DOES_NOT_EXIST}


def label_selector_as_selector(ps: Any) -> Selector:
    """Go: ``metav1.LabelSelectorAsSelector``: None matches nothing, an empty selector
    matches everything; raises SelectorParseError with Go's text on a bad requirement or
    ``"X" is not a valid label selector operator``."""
    from kcodec.gofmt import quote

    if ps is None:
        return nothing()
    match_labels = getattr(ps, "match_labels", None) or {}
    exprs = getattr(ps, "match_expressions", None) or []
    if not match_labels and not exprs:
        return everything()
    reqs = [new_requirement(k, Operator.EQUALS, [match_labels[k]]) for k in sorted(match_labels)]
    for expr in exprs:
        op = _LABEL_SELECTOR_OPS.get(expr.operator)
        if op is None:
            raise SelectorParseError(f"{quote(expr.operator)} is not a valid label selector operator")
        reqs.append(new_requirement(expr.key, op, list(expr.values or [])))
    return Selector(reqs)


def label_selector_as_map(ps: Any) -> dict[str, str] | None:
    """Go: ``metav1.LabelSelectorAsMap``."""
    from kcodec.gofmt import quote

    if ps is None:
        return None
    out = dict(getattr(ps, "match_labels", None) or {})
    for expr in getattr(ps, "match_expressions", None) or []:
        if expr.operator == "In":
            if len(expr.values or []) != 1:
                raise SelectorParseError(f"operator {quote(expr.operator)} without a single value cannot be "
                                         "converted into the old label selector format")
            out[expr.key] = expr.values[0]
        elif expr.operator in ("NotIn", "Exists", "DoesNotExist"):
            raise SelectorParseError(f"operator {quote(expr.operator)} cannot be converted into the old label "
                                     "selector format")
        else:
            raise SelectorParseError(f"{quote(expr.operator)} is not a valid selector operator")
    return out


# --- label sets (Go: labels.go) -------------------------------------------------------

class Set(dict):  # type: ignore[type-arg]
    """Go: ``labels.Set``: a label map; ``str()`` is ``k=v`` pairs sorted, joined by ``,``."""

    def __str__(self) -> str:
        return ",".join(sorted(f"{k}={v}" for k, v in self.items()))

    def as_selector(self) -> Selector:
        return selector_from_set(self)

    def as_validated_selector(self) -> Selector:
        return validated_selector_from_set(self)


def format_labels(label_map: Mapping[str, str] | None) -> str:
    """Go: ``FormatLabels``: ``k=v,...`` or ``<none>``."""
    s = str(Set(label_map or {}))
    return s or "<none>"


def conflicts(labels1: Mapping[str, str], labels2: Mapping[str, str]) -> bool:
    return any(k in labels2 and labels2[k] != v for k, v in labels1.items())


def merge(labels1: Mapping[str, str], labels2: Mapping[str, str]) -> Set:
    out = Set(labels1)
    out.update(labels2)
    return out


def equals(labels1: Mapping[str, str] | None, labels2: Mapping[str, str] | None) -> bool:
    return dict(labels1 or {}) == dict(labels2 or {})


def convert_selector_to_labels_map(selector: str, path: Path | None = None) -> Set:
    """Go: ``ConvertSelectorToLabelsMap`` (``a=b,c=d`` only)."""
    out = Set()
    if not selector:
        return out
    for label in selector.split(","):
        parts = label.split("=")
        if len(parts) != 2:
            raise SelectorParseError("invalid selector: [" + " ".join(parts) + "]")
        key = parts[0].strip(" \t\n\r\v\f\x85\xa0")
        e = _validate_label_key(key, path)
        if e is not None:
            raise SelectorParseError(str(e), ErrorList([e]))
        value = parts[1].strip(" \t\n\r\v\f\x85\xa0")
        e = _validate_label_value(key, value, path)
        if e is not None:
            raise SelectorParseError(str(e), ErrorList([e]))
        out[key] = value
    return out
