"""Property names as CEL field names (Go: k8s.io/apiserver ``pkg/cel/escaping.go``)."""
from __future__ import annotations

import re

__all__ = ["escape"]

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
