"""Field selectors (Go: k8s.io/apimachinery pkg/fields: selector.go, fields.go, requirements.go).

:func:`parse_selector` reads ``metadata.name=x,status.phase!=Running`` as Go does: terms
split on unescaped ``,``, sorted, each split at its first ``!=``, ``==`` or ``=``, values
unescaped (``\\\\``, ``\\,``, ``\\=``); errors raise :class:`FieldSelectorParseError` with Go's
texts (``invalid selector: 'x'; can't understand 'x'``, ``invalid field selector: invalid
escape sequence: \\a``, ``invalid field selector: unescaped character in value: 61``).
``str()`` of a selector gives Go's ``String()`` with values escaped again.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from kcodec.errors import KCodecError

__all__ = [
    "FieldSelectorParseError",
    "InvalidEscapeSequence",
    "UnescapedRune",
    "Requirement",
    "Selector",
    "Set",
    "TransformFunc",
    "parse_selector",
    "parse_and_transform_selector",
    "everything",
    "nothing",
    "one_term_equal_selector",
    "one_term_not_equal_selector",
    "and_selectors",
    "selector_from_set",
    "escape_value",
    "unescape_value",
]

#: Go's ``fields.TransformFunc``: (field, value) -> (new field, new value); raise to fail.
TransformFunc = Callable[[str, str], "tuple[str, str]"]


class FieldSelectorParseError(KCodecError, ValueError):
    """A field selector Go's parser rejects; ``str()`` is Go's error text."""


class InvalidEscapeSequence(FieldSelectorParseError):
    """Go: ``fields.InvalidEscapeSequence``."""

    def __init__(self, sequence: str) -> None:
        super().__init__(f"invalid field selector: invalid escape sequence: {sequence}")
        self.sequence = sequence


class UnescapedRune(FieldSelectorParseError):
    """Go: ``fields.UnescapedRune``; Go prints the rune with ``%v``, as its number."""

    def __init__(self, r: str) -> None:
        super().__init__(f"invalid field selector: unescaped character in value: {ord(r)}")
        self.rune = r


@dataclass(frozen=True)
class Requirement:
    """Go: ``fields.Requirement`` (operator ``=`` or ``!=``)."""

    operator: str
    field: str
    value: str


def _go_key(s: str) -> bytes:
    # Go sorts strings by their bytes; surrogate escapes stand for single bytes.
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogatepass")


def _runes(s: str) -> str:
    # Go's range over a string yields U+FFFD for each byte that is not UTF-8.
    if s.isascii():
        return s
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


def escape_value(s: str) -> str:
    """Go: ``EscapeValue``: ``\\`` -> ``\\\\``, ``,`` -> ``\\,``, ``=`` -> ``\\=``."""
    return s.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_value(s: str) -> str:
    """Go: ``UnescapeValue``; raises InvalidEscapeSequence or UnescapedRune."""
    if "\\" not in s and "," not in s and "=" not in s:
        return s
    out: list[str] = []
    in_slash = False
    for c in _runes(s):
        if in_slash:
            if c in "\\,=":
                out.append(c)
            else:
                raise InvalidEscapeSequence("\\" + c)
            in_slash = False
            continue
        if c == "\\":
            in_slash = True
        elif c in ",=":
            raise UnescapedRune(c)
        else:
            out.append(c)
    if in_slash:
        raise InvalidEscapeSequence("\\")
    return "".join(out)


class Selector(ABC):
    """A field selector (Go's ``fields.Selector`` interface). Subclasses are Go's term types;
    use the module functions to build."""

    __slots__ = ()

    @abstractmethod
    def matches(self, fields: Mapping[str, str]) -> bool:
        """Whether the object's field set satisfies the selector."""

    @abstractmethod
    def empty(self) -> bool:
        """Whether the selector selects everything."""

    @abstractmethod
    def requires_exact_match(self, field: str) -> tuple[str, bool]:
        """``(value, True)`` when the selector requires ``field`` to equal ``value``."""

    @abstractmethod
    def transform(self, fn: TransformFunc) -> Selector:
        """The selector with every field and value passed through ``fn``."""

    @abstractmethod
    def requirements(self) -> list[Requirement]:
        """The selector's requirements, in order."""

    def deep_copy(self) -> Selector:
        return self  # every selector is immutable

    def __repr__(self) -> str:
        return f"fields.Selector({str(self)!r})"


class _Nothing(Selector):
    __slots__ = ()

    def matches(self, fields: Mapping[str, str]) -> bool:
        return False

    def empty(self) -> bool:
        return False

    def requires_exact_match(self, field: str) -> tuple[str, bool]:
        return "", False

    def transform(self, fn: TransformFunc) -> Selector:
        return self

    def requirements(self) -> list[Requirement]:
        return []

    def __str__(self) -> str:
        return ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Nothing)

    def __hash__(self) -> int:
        return 0


class _Term(Selector):
    __slots__ = ("field", "value")
    _op = ""

    def __init__(self, field: str, value: str) -> None:
        self.field = field
        self.value = value

    def empty(self) -> bool:
        return False

    def transform(self, fn: TransformFunc) -> Selector:
        field, value = fn(self.field, self.value)
        if not field and not value:
            return everything()
        return type(self)(field, value)

    def requirements(self) -> list[Requirement]:
        return [Requirement("=" if self._op == "=" else "!=", self.field, self.value)]

    def __str__(self) -> str:
        return f"{self.field}{self._op}{escape_value(self.value)}"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and (self.field, self.value) == (other.field, other.value)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self._op, self.field, self.value))


class _HasTerm(_Term):
    __slots__ = ()
    _op = "="

    def matches(self, fields: Mapping[str, str]) -> bool:
        return fields.get(self.field, "") == self.value

    def requires_exact_match(self, field: str) -> tuple[str, bool]:
        return (self.value, True) if self.field == field else ("", False)


class _NotHasTerm(_Term):
    __slots__ = ()
    _op = "!="

    def matches(self, fields: Mapping[str, str]) -> bool:
        return fields.get(self.field, "") != self.value

    def requires_exact_match(self, field: str) -> tuple[str, bool]:
        return "", False


class _AndTerm(Selector):
    __slots__ = ("terms",)

    def __init__(self, terms: tuple[Selector, ...] = ()) -> None:
        self.terms = tuple(terms)

    def matches(self, fields: Mapping[str, str]) -> bool:
        return all(t.matches(fields) for t in self.terms)

    def empty(self) -> bool:
        return all(t.empty() for t in self.terms)

    def requires_exact_match(self, field: str) -> tuple[str, bool]:
        for t in self.terms:
            value, found = t.requires_exact_match(field)
            if found:
                return value, True
        return "", False

    def transform(self, fn: TransformFunc) -> Selector:
        out = []
        for t in self.terms:
            n = t.transform(fn)
            if not n.empty():
                out.append(n)
        return _AndTerm(tuple(out))

    def requirements(self) -> list[Requirement]:
        return [r for t in self.terms for r in t.requirements()]

    def __str__(self) -> str:
        return ",".join(str(t) for t in self.terms)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _AndTerm) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(self.terms)


_EVERYTHING = _AndTerm()
_NOTHING = _Nothing()


def everything() -> Selector:
    """A selector that matches everything (Go: an empty ``andTerm``)."""
    return _EVERYTHING


def nothing() -> Selector:
    return _NOTHING


def one_term_equal_selector(k: str, v: str) -> Selector:
    """Go: ``OneTermEqualSelector``: ``k=v``."""
    return _HasTerm(k, v)


def one_term_not_equal_selector(k: str, v: str) -> Selector:
    return _NotHasTerm(k, v)


def and_selectors(*selectors: Selector) -> Selector:
    return _AndTerm(selectors)


def selector_from_set(ls: Mapping[str, str] | None) -> Selector:
    """Go: ``SelectorFromSet``: one ``k=v`` term per entry (sorted here; Go's map order)."""
    if ls is None:
        return everything()
    items = tuple(_HasTerm(k, ls[k]) for k in sorted(ls, key=_go_key))
    return items[0] if len(items) == 1 else _AndTerm(items)


class Set(dict):  # type: ignore[type-arg]
    """Go: ``fields.Set``."""

    def __str__(self) -> str:
        return ",".join(sorted((f"{k}={v}" for k, v in self.items()), key=_go_key))

    def as_selector(self) -> Selector:
        return selector_from_set(self)


def _split_terms(s: str) -> list[str]:
    if not s:
        return []
    terms = []
    start = 0
    in_slash = False
    for i, c in enumerate(s):
        if in_slash:
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c == ",":
            terms.append(s[start:i])
            start = i + 1
    terms.append(s[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    # The first position where any operator starts; at one position "!=" and "==" are
    # tried before "=".
    for i in range(len(term)):
        c = term[i]
        if c == "!" and term.startswith("!=", i):
            return term[:i], "!=", term[i + 2:]
        if c == "=":
            if term.startswith("==", i):
                return term[:i], "==", term[i + 2:]
            return term[:i], "=", term[i + 1:]
    return None


def _identity(field: str, value: str) -> tuple[str, str]:
    return field, value


def parse_and_transform_selector(selector: str | bytes, fn: TransformFunc) -> Selector:
    """Go: ``ParseAndTransformSelector``."""
    if isinstance(selector, (bytes, bytearray)):
        selector = bytes(selector).decode("utf-8", "surrogateescape")
    if not isinstance(selector, str):
        raise TypeError(f"a selector is a string, not {type(selector).__name__}")
    parts = sorted(_split_terms(selector), key=_go_key)
    items: list[Selector] = []
    for part in parts:
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise FieldSelectorParseError(f"invalid selector: '{selector}'; can't understand '{part}'")
        lhs, op, rhs = split
        value = unescape_value(rhs)
        items.append(_NotHasTerm(lhs, value) if op == "!=" else _HasTerm(lhs, value))
    if len(items) == 1:
        return items[0].transform(fn)
    return _AndTerm(tuple(items)).transform(fn)


def parse_selector(selector: str | bytes) -> Selector:
    """Go: ``fields.ParseSelector``."""
    return parse_and_transform_selector(selector, _identity)

