"""CEL's optional syntax on top of celpy's grammar (Go: cel-go ``parser/gen/CEL.g4`` and
``parser/parser.go`` with ``EnableOptionalSyntax``, which k8s.io/apiserver ``pkg/cel/environment``
turns on with ``cel.OptionalTypes()``), and cel-go's unquoting of triple-quoted strings
(``parser/unescape.go``).

celpy parses CEL with a lark LALR grammar (``celpy/cel.lark``) that has none of the optional
forms. :func:`optional_grammar` extends that grammar's text at run time with cel-go's four:

- ``a.?f``, optional field selection (``member_dot_opt``; cel-go's ``_?._``),
- ``a[?k]``, optional indexing (``member_index_opt``; cel-go's ``_[?_]``),
- ``[?x, y]``, optional list elements, and ``{?k: v}``, optional map entries (an
  ``opt_expr`` node in place of the element or key).

Every expression celpy parsed before parses to the same tree, with the same positions: the
new rules only add alternatives that start with a ``?`` where celpy's grammar accepted none,
and the list and map rules inline their plain elements (lark's ``?rule``).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kcodec.api.apiextensions.cel import loader

__all__ = ["optional_grammar", "parser", "cel_string", "cel_bytes"]

# (celpy's rule line, what it becomes): each must be found, or the grammar is not the one
# this module was written against and the parser is not built.
_EDITS = (
    ("member         : member_dot | member_dot_arg | member_index | member_object | primary",
     "member         : member_dot | member_dot_arg | member_index | member_object | primary\n"
     "               | member_dot_opt | member_index_opt\n"
     "member_dot_opt : member \".\" \"?\" IDENT\n"
     "member_index_opt : member \"[\" \"?\" expr \"]\""),
    ("list_lit       : \"[\" [exprlist] \"]\"",
     "list_lit       : \"[\" [listinit] \"]\"\n"
     "listinit       : listelem (\",\" listelem)* -> exprlist\n"
     "?listelem      : expr | opt_expr\n"
     "opt_expr       : \"?\" expr"),
    ("mapinits       : expr \":\" expr (\",\" expr \":\" expr)*",
     "mapinits       : mapkey \":\" expr (\",\" mapkey \":\" expr)*\n"
     "?mapkey        : expr | opt_expr"),
)


def optional_grammar(text: str) -> str:
    """celpy's grammar *text* with cel-go's optional syntax; ValueError when a rule to
    extend is not there (another celpy version)."""
    for old, new in _EDITS:
        if text.count(old) != 1:
            raise ValueError(f"celpy's cel.lark has no rule {old!r}: cannot add CEL's optional syntax")
        text = text.replace(old, new)
    return text


_PARSER: Any = None


def parser(tree_class: type) -> Any:
    """A celpy ``CELParser`` whose grammar has the optional syntax (built once). celpy keeps
    its own parser in a class attribute shared by every celpy user of the process; this one
    is separate, so only kcodec's environment parses the optional forms."""
    global _PARSER
    if _PARSER is not None:
        return _PARSER
    import lark

    celparser = loader.celpy.celparser

    class OptionalSyntaxParser(celparser.CELParser):  # type: ignore[misc, name-defined]
        """celpy's parser facade (its error reporting) over the extended grammar."""

        LARK: Any = None

        def __init__(self, tree_class: type = lark.Tree) -> None:
            if OptionalSyntaxParser.LARK is None:
                text = (Path(celparser.__file__).parent / "cel.lark").read_text()
                # the options celpy's CELParser builds its parser with
                OptionalSyntaxParser.LARK = lark.Lark(
                    optional_grammar(text), parser="lalr", start="expr", debug=True, g_regex_flags=re.M,
                    lexer_callbacks={"IDENT": self.ambiguous_literals}, propagate_positions=True,
                    maybe_placeholders=False, priority="invert", tree_class=tree_class)

        def parse(self, text: str) -> Any:
            self.text = text
            try:
                return OptionalSyntaxParser.LARK.parse(text)
            except (lark.exceptions.UnexpectedToken, lark.exceptions.UnexpectedCharacters) as ex:
                raise celparser.CELParseError(ex.get_context(text), *ex.args, line=ex.line,
                                              column=ex.column) from None
            except (lark.exceptions.LexError, lark.exceptions.ParseError) as ex:
                raise celparser.CELParseError(ex.args[0].splitlines()[0], *ex.args) from None

    _PARSER = OptionalSyntaxParser(tree_class)
    _teach_dump_ast(celparser.DumpAST)
    return _PARSER


def _teach_dump_ast(dump_ast: type) -> None:
    """celpy prints an error's expression with its ``DumpAST`` visitor, which has a method per
    node kind: the optional nodes get theirs (new names, so celpy's own trees are unaffected)."""
    def member_dot_opt(self: Any, tree: Any) -> None:
        self.stack.append(f"{self.stack.pop()}.?{tree.children[1].value}")

    def member_index_opt(self: Any, tree: Any) -> None:
        right = self.stack.pop()
        self.stack.append(f"{self.stack.pop()}[?{right}]")

    def opt_expr(self: Any, tree: Any) -> None:
        self.stack.append(f"?{self.stack.pop()}")

    for fn in (member_dot_opt, member_index_opt, opt_expr):
        if not hasattr(dump_ast, fn.__name__):
            setattr(dump_ast, fn.__name__, fn)


# cel-go parser/unescape.go: the escapes of a cooked string; any other character, a newline
# of a triple-quoted string included, is itself.
_ESCAPE = re.compile(r"\\(?:[abfnrtv\"'\\?`]|[0-3][0-7]{2}|[xX][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")

_SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", '"': '"', "'": "'",
           "\\": "\\", "?": "?", "`": "`"}


def _unescape_one(m: re.Match[str]) -> str:
    s = m.group(0)
    c = s[1]
    if c in _SIMPLE:
        return _SIMPLE[c]
    if c in "xX":
        return chr(int(s[2:], 16))
    if c in "uU":
        return chr(int(s[2:], 16))
    return chr(int(s[1:], 8))


def _body(text: str) -> tuple[str, bool]:
    """(the text between a literal's quotes, whether it is raw), newlines normalised to
    ``\n`` as cel-go's unescape does first."""
    raw = text[:1] in ("r", "R")
    if raw:
        text = text[1:]
    quote = 3 if text[:3] in ('"""', "'''") else 1
    return text[quote:-quote].replace("\r\n", "\n").replace("\r", "\n"), raw


def cel_string(token: Any) -> str:
    """The value of a STRING_LIT or MLSTRING_LIT token as cel-go unquotes it. celpy's
    ``celstr`` matches each character of a cooked string with ``.``, which skips the
    newlines a triple-quoted string may hold; this keeps them."""
    body, raw = _body(str(token))
    return body if raw else _ESCAPE.sub(_unescape_one, body)


def cel_bytes(token: Any) -> bytes:
    """The value of a BYTES_LIT token as cel-go unquotes it (a triple-quoted one keeps its
    newlines): hex and octal escapes are byte values, other characters UTF-8."""
    body, raw = _body(str(token)[1:])
    if raw:
        return body.encode("utf-8")
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(body):
        out += body[pos:m.start()].encode("utf-8")
        esc = m.group(0)
        if esc[1] in "xX":
            out.append(int(esc[2:], 16))
        elif esc[1] in "0123":
            out.append(int(esc[1:], 8))
        else:
            out += _unescape_one(m).encode("utf-8")
        pos = m.end()
    out += body[pos:].encode("utf-8")
    return bytes(out)
