"""Block-style YAML fast path (pure twin of ``kcodec/_speedups/_yaml.pyx``).

sigs.k8s.io/yaml decodes through go-yaml v2 and a JSON round trip (Go: sigs.k8s.io/yaml/yaml.go
(YAMLToJSON)); :func:`kcodec.goyaml.yaml_to_tree` reproduces that over libyaml's event stream,
building a node graph first so anchors, merge keys, tags and go-yaml's error texts all come
out right. Almost every document kcodec reads was written by go-yaml or kubectl, though:
block mappings and sequences, plain and quoted scalars (folded over several lines as go-yaml
writes long strings), ``|``/``>`` block scalars, comments. :func:`yaml_block_tree` reads exactly that subset straight into the JSON tree, with
the same scalar resolution (``goyaml._resolve_implicit`` and the JSON number trip), and
answers ``None`` for a document that holds anything else: flow collections other than
``{}`` and one-line sequences of scalars, anchors, aliases, tags, directives, explicit keys, merge keys, non-string or
duplicated keys, tabs outside scalars, odd indentation, a second document, control
characters, invalid UTF-8. The caller then runs the libyaml route, so every error text and every rare construct keeps its one implementation. The decision is per
document: nothing read by the fast path is kept when it gives up.

:func:`yaml_encode_tree` is the writer's twin: the pure encoder *is* ``goyaml.tree_to_yaml``;
the compiled twin writes the same bytes in C and asks the pure emitter only for strings
whose rendering depends on line folding.
"""
from __future__ import annotations

import re
from typing import Any

# The rules both twins apply (scalar resolution, the key and depth limits, the emitter the
# compiled writer borrows) live in kcodec.goyaml, beside the libyaml route they mirror.
from kcodec.goyaml import (
    BLOCK_MAX_DEPTH,
    BLOCK_MAX_KEY,
    BlockFallback,
    block_plain_key,
    block_resolve_plain,
    tree_to_yaml,
)

__all__ = ["yaml_block_tree", "yaml_encode_tree"]

# libyaml's reader refuses every other character ("control characters are not allowed");
# \r, NEL, U+2028/2029 are YAML 1.1 line breaks and U+FEFF a byte order mark, which the
# fast path leaves to libyaml rather than reproduce its handling of.
_BAD_CHAR = re.compile("[^\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")

# Characters that cannot start a plain scalar in block context (libyaml scan_plain_scalar).
_NOT_PLAIN_START = frozenset(",[]{}#&*!|>'\"%@`")
_DQ_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}
_HEX_LEN = {"x": 2, "u": 4, "U": 8}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
# Characters that end or complicate a plain item of a flow sequence; "\n" ends the line.
_FLOW_PLAIN_STOP = frozenset(":?[{}#\t\n")
_PLAIN_END = re.compile(r"\n|:(?=[ \n]|\Z)| #|\t")

_EOL, _COLON, _COMMENT = 0, 1, 2


class _Parser:
    __slots__ = ("s", "n")

    def __init__(self, s: str) -> None:
        self.s = s
        self.n = len(s)

    # -- lines ---------------------------------------------------------------------------------

    def next_line(self, p: int) -> int:
        """Start of the line after the one holding ``p`` (``n`` at the end)."""
        i = self.s.find("\n", p)
        return self.n if i < 0 else i + 1

    def next_sig(self, ls: int) -> tuple[int, int]:
        """(start, indent) of the first line from ``ls`` with content; (n, -1) at the end."""
        s, n = self.s, self.n
        while ls < n:
            q = ls
            while q < n and s[q] == " ":
                q += 1
            if q >= n:
                break
            c = s[q]
            if c == "\n":
                ls = q + 1
            elif c == "#":
                ls = self.next_line(q)
            elif c == "\t":
                raise BlockFallback
            else:
                return ls, q - ls
        return n, -1

    def finish_line(self, p: int) -> tuple[int, int]:
        """After a complete value at ``p``: only spaces and a comment may follow on its line."""
        s, n = self.s, self.n
        q = p
        while q < n and s[q] == " ":
            q += 1
        if q < n:
            c = s[q]
            if c == "#":
                if q == p:
                    raise BlockFallback
            elif c != "\n":
                raise BlockFallback
        return self.next_sig(self.next_line(q) if q < n else n)

    def is_dash(self, p: int) -> bool:
        s, n = self.s, self.n
        return p < n and s[p] == "-" and (p + 1 >= n or s[p + 1] == " " or s[p + 1] == "\n")

    def skip_spaces(self, p: int) -> int:
        s, n = self.s, self.n
        while p < n and s[p] == " ":
            p += 1
        if p < n and s[p] == "\t":
            raise BlockFallback
        return p

    # -- scalars -------------------------------------------------------------------------------

    def scan_plain(self, p: int) -> tuple[int, int]:
        """(end, terminator) of the one-line plain scalar starting at ``p``."""
        s, n = self.s, self.n
        c = s[p]
        if c in _NOT_PLAIN_START:
            raise BlockFallback
        if c in "-?:" and (p + 1 >= n or s[p + 1] in " \n\t"):
            raise BlockFallback
        m = _PLAIN_END.search(s, p + 1)
        if m is None:
            return n, _EOL
        e = m.start()
        c = s[e]
        if c == "\n":
            return e, _EOL
        if c == ":":
            return e, _COLON
        if c == " ":
            return e, _COMMENT
        raise BlockFallback  # a tab

    def scan_double(self, p: int) -> tuple[str, int]:
        return self.scan_quoted(p, True)

    def scan_single(self, p: int) -> tuple[str, int]:
        return self.scan_quoted(p, False)

    def scan_quoted(self, p: int, double: bool) -> tuple[str, int]:
        """libyaml's yaml_parser_scan_flow_scalar from the quote at ``p``: (value, end past
        the closing quote). Line breaks fold as libyaml folds them (one break: a space; n
        empty lines: n newlines; an escaped break: nothing)."""
        s, n = self.s, self.n
        quote = '"' if double else "'"
        out: list[str] = []
        i = p + 1
        while True:
            if i >= n:
                raise BlockFallback  # "found unexpected end of stream"
            if s[i - 1] == "\n" and (s.startswith("---", i) or s.startswith("...", i)) and (
                    i + 3 >= n or s[i + 3] in " \t\n"):
                raise BlockFallback  # "found unexpected document indicator"
            leading_blanks = False
            while i < n:
                c = s[i]
                if c == " " or c == "\t" or c == "\n":
                    break
                if c == quote:
                    if not double and i + 1 < n and s[i + 1] == "'":
                        out.append("'")
                        i += 2
                        continue
                    break
                if double and c == "\\":
                    if i + 1 < n and s[i + 1] == "\n":
                        i += 2
                        leading_blanks = True
                        break
                    i = self.escape(i, out)
                    continue
                out.append(c)
                i += 1
            if i >= n:
                raise BlockFallback
            if s[i] == quote:
                return "".join(out), i + 1
            whitespaces: list[str] = []
            leading_break = False
            trailing = 0
            while i < n:
                c = s[i]
                if c == " " or c == "\t":
                    if not leading_blanks:
                        whitespaces.append(c)
                elif c == "\n":
                    if not leading_blanks:
                        whitespaces = []
                        leading_break = True
                        leading_blanks = True
                    else:
                        trailing += 1
                else:
                    break
                i += 1
            if leading_blanks:
                if leading_break and trailing == 0:
                    out.append(" ")
                else:
                    out.append("\n" * trailing)
            else:
                out.append("".join(whitespaces))

    def escape(self, j: int, out: list[str]) -> int:
        """The escape at ``s[j] == '\\'``, appended to ``out``; returns the position after it."""
        s, n = self.s, self.n
        if j + 1 >= n:
            raise BlockFallback
        e = s[j + 1]
        simple = _DQ_ESCAPES.get(e)
        if simple is not None:
            out.append(simple)
            return j + 2
        width = _HEX_LEN.get(e)
        if width is None:
            raise BlockFallback  # \' \/ and unknown escapes: go-yaml's rules
        digits = s[j + 2:j + 2 + width]
        if len(digits) != width or not all(d in _HEX_DIGITS for d in digits):
            raise BlockFallback
        v = int(digits, 16)
        if 0xD800 <= v <= 0xDFFF or v > 0x10FFFF:
            raise BlockFallback
        out.append(chr(v))
        return j + 2 + width

    def scan_key(self, p: int) -> tuple[str, int] | None:
        """(key, position after ':') when a mapping key starts at ``p``, else None."""
        s, n = self.s, self.n
        c = s[p]
        if c == '"' or c == "'":
            text, e = self.scan_double(p) if c == '"' else self.scan_single(p)
            q = e
            while q < n and s[q] == " ":
                q += 1
            if q < n and s[q] == ":" and (q + 1 >= n or s[q + 1] == " " or s[q + 1] == "\n"):
                if q - p > BLOCK_MAX_KEY or s.find("\n", p, q) >= 0:
                    raise BlockFallback  # simple keys are one line of at most 1024 characters
                return text, q + 1
            return None
        if c in _NOT_PLAIN_START:
            return None  # "- {}", "- |" ...: a value, never a key
        e, term = self.scan_plain(p)
        if term != _COLON:
            return None
        if e - p > BLOCK_MAX_KEY:
            raise BlockFallback
        return block_plain_key(s[p:e].rstrip(" ")), e + 1

    def block_scalar(self, p: int, parent: int) -> tuple[str, int, int]:
        """libyaml's yaml_parser_scan_block_scalar from the indicator at ``p``; ``parent`` is
        the enclosing block indent. Returns (value, next line start, its indent)."""
        s, n = self.s, self.n
        literal = s[p] == "|"
        chomping = 0
        increment = 0
        q = p + 1
        for _ in range(2):
            if q >= n:
                break
            c = s[q]
            if (c == "+" or c == "-") and chomping == 0:
                chomping = 1 if c == "+" else -1
                q += 1
            elif "1" <= c <= "9" and increment == 0:
                increment = ord(c) - 48
                q += 1
            else:
                break
        r = q
        while r < n and s[r] == " ":
            r += 1
        if r < n and s[r] != "\n":
            if s[r] != "#" or r == q:
                raise BlockFallback
            r = s.find("\n", r)
            if r < 0:
                r = n
        if r >= n:
            raise BlockFallback  # the header must end with a line break
        i = r + 1  # start of the first content line
        indent = parent + increment if increment else 0
        out: list[str] = []
        leading_break = ""
        leading_blank = False
        i, col, breaks, max_indent = self._block_breaks(i, indent)
        if indent == 0:
            indent = max(max_indent, parent + 1, 1)
        trailing = breaks
        while col == indent and i + col < n:
            line_start = i + col
            c = s[line_start]
            trailing_blank = c == " " or c == "\t"
            if not literal and leading_break == "\n" and not leading_blank and not trailing_blank:
                if trailing == 0:
                    out.append(" ")
                leading_break = ""
            else:
                out.append(leading_break)
                leading_break = ""
            if trailing:
                out.append("\n" * trailing)
            leading_blank = trailing_blank
            e = s.find("\n", line_start)
            if e < 0:
                out.append(s[line_start:])
                i = n
                col = 0
                trailing = 0
                break
            out.append(s[line_start:e])
            leading_break = "\n"
            i, col, trailing, _ = self._block_breaks(e + 1, indent)
        if chomping != -1:
            out.append(leading_break)
        if chomping == 1 and trailing:
            out.append("\n" * trailing)
        # Where structure resumes: the line that ended the scalar.
        ls, ind = self.next_sig(i) if i < n else (n, -1)
        return "".join(out), ls, ind

    def _block_breaks(self, i: int, indent: int) -> tuple[int, int, int, int]:
        """yaml_parser_scan_block_scalar_breaks from line start ``i``: (line start, column
        reached on it, empty lines eaten, largest column seen)."""
        s, n = self.s, self.n
        breaks = 0
        max_indent = 0
        while True:
            j = i
            while j < n and s[j] == " " and (indent == 0 or j - i < indent):
                j += 1
            col = j - i
            if col > max_indent:
                max_indent = col
            if j < n and s[j] == "\t" and (indent == 0 or col < indent):
                raise BlockFallback
            if j >= n or s[j] != "\n":
                return i, col, breaks, max_indent
            breaks += 1
            i = j + 1

    def scalar_value(self, p: int, owner: int) -> tuple[Any, int, int]:
        """A value that starts on its line at ``p``: (value, next line start, its indent)."""
        s, n = self.s, self.n
        c = s[p]
        if c == "|" or c == ">":
            return self.block_scalar(p, owner)
        if c == '"':
            text, e = self.scan_double(p)
            return (text, *self.finish_line(e))
        if c == "'":
            text, e = self.scan_single(p)
            return (text, *self.finish_line(e))
        if c == "{":
            if p + 1 < n and s[p + 1] == "}":
                return {}, *self.finish_line(p + 2)
            raise BlockFallback
        if c == "[":
            value, e = self.flow_sequence(p)
            return value, *self.finish_line(e)
        e, term = self.scan_plain(p)
        if term == _COLON:
            raise BlockFallback  # "mapping values are not allowed in this context"
        text = s[p:e].rstrip(" ")
        if term == _COMMENT:
            return block_resolve_plain(text), *self.next_sig(self.next_line(e))
        if e >= n:
            return block_resolve_plain(text), n, -1
        text, i = self.plain_lines(text, e + 1, owner)
        return block_resolve_plain(text), *self.next_sig(i)

    def plain_lines(self, text: str, i: int, owner: int) -> tuple[str, int]:
        """The continuation lines of a plain scalar whose first line ended before line start
        ``i`` (libyaml's yaml_parser_scan_plain_scalar): lines indented deeper than ``owner``
        join with a space, or with one newline per empty line between. Returns the text and
        the start of the line where structure resumes."""
        s, n = self.s, self.n
        pieces = None
        breaks = 0
        while i < n:
            j = i
            while j < n and s[j] == " ":
                j += 1
            if j >= n:
                break
            c = s[j]
            if c == "\n":
                breaks += 1
                i = j + 1
                continue
            if c == "\t":
                raise BlockFallback
            if j - i <= owner or c == "#":
                break  # less indented, or a comment: the scalar ended on an earlier line
            e, term = self.scan_plain_rest(j)
            if term == _COLON:
                raise BlockFallback
            if pieces is None:
                pieces = [text]
            pieces.append(" " if breaks == 0 else "\n" * breaks)
            pieces.append(s[j:e].rstrip(" "))
            breaks = 0
            if term == _COMMENT or e >= n:
                i = self.next_line(e)
                break
            i = e + 1
        return (text if pieces is None else "".join(pieces)), i

    def scan_plain_rest(self, j: int) -> tuple[int, int]:
        """Like scan_plain for a continuation line: any character may start it."""
        m = _PLAIN_END.search(self.s, j)
        if m is None:
            return self.n, _EOL
        e = m.start()
        c = self.s[e]
        if c == "\n":
            return e, _EOL
        if c == ":":
            return e, _COLON
        if c == " ":
            return e, _COMMENT
        raise BlockFallback

    def flow_sequence(self, p: int) -> tuple[list, int]:
        """A one-line flow sequence of scalars (``["sh", "-c"]``, ``[a, b]``) from the ``[`` at
        ``p``: (list, end past ``]``). Plain items may not hold ``: ? [ { } #`` (where
        libyaml's flow rules differ between versions); nested collections, empty items, a
        trailing comma and line breaks are declined."""
        s, n = self.s, self.n
        eol = s.find("\n", p)
        if eol < 0:
            eol = n
        out: list = []
        i = self.flow_spaces(p + 1, eol)
        if s[i] == "]":
            return out, i + 1
        while True:
            c = s[i]
            if c == '"' or c == "'":
                text, e = self.scan_quoted(i, c == '"')
                if e > eol:
                    raise BlockFallback
                out.append(text)
            else:
                if c in _NOT_PLAIN_START or c == "?" or c == ":" or (
                        c == "-" and (i + 1 >= eol or s[i + 1] in " ,]")):
                    raise BlockFallback
                e = i
                while True:
                    if e >= eol:
                        raise BlockFallback
                    c = s[e]
                    if c == "," or c == "]":
                        break
                    if c in _FLOW_PLAIN_STOP:
                        raise BlockFallback
                    e += 1
                out.append(block_resolve_plain(s[i:e].rstrip(" ")))
            e = self.flow_spaces(e, eol)
            if s[e] == "]":
                return out, e + 1
            if s[e] != ",":
                raise BlockFallback
            i = self.flow_spaces(e + 1, eol)
            if s[i] == "]" or s[i] == ",":
                raise BlockFallback  # trailing comma or empty item

    def flow_spaces(self, i: int, eol: int) -> int:
        """Skip spaces inside a one-line flow sequence; the line may not end there."""
        s = self.s
        while i < eol and s[i] == " ":
            i += 1
        if i >= eol or s[i] == "\t":
            raise BlockFallback
        return i

    # -- collections -------------------------------------------------------------------------

    def collection(self, ls: int, col: int, depth: int) -> tuple[Any, int, int]:
        if depth > BLOCK_MAX_DEPTH:
            raise BlockFallback
        p = ls + col
        if self.is_dash(p):
            return self.sequence(p, col, depth)
        return self.mapping(p, col, depth)

    def mapping(self, p: int, col: int, depth: int) -> tuple[dict, int, int]:
        out: dict = {}
        while True:
            kv = self.scan_key(p)
            if kv is None:
                raise BlockFallback
            key, q = kv
            if key in out:
                raise BlockFallback  # duplicates: strict mode's error text lives in goyaml
            value, ls, ind = self.after_indicator(q, col, depth, True)
            out[key] = value
            if ind < col:
                return out, ls, ind
            if ind > col:
                raise BlockFallback
            p = ls + col
            if self.is_dash(p):
                raise BlockFallback

    def sequence(self, p: int, col: int, depth: int) -> tuple[list, int, int]:
        out: list = []
        while True:
            value, ls, ind = self.after_indicator(p + 1, col, depth, False)
            out.append(value)
            if ind < col:
                return out, ls, ind
            if ind > col:
                raise BlockFallback
            p = ls + col
            if not self.is_dash(p):
                return out, ls, ind

    def after_indicator(self, q: int, col: int, depth: int, in_map: bool) -> tuple[Any, int, int]:
        """The value after a ``key:`` or ``-`` whose block indent is ``col``."""
        s, n = self.s, self.n
        p = self.skip_spaces(q)
        if p >= n or s[p] == "\n" or s[p] == "#":
            ls, ind = self.next_sig(self.next_line(p) if p < n else n)
            if ind > col:
                return self.collection(ls, ind, depth + 1)
            if in_map and ind == col and self.is_dash(ls + col):
                if depth + 1 > BLOCK_MAX_DEPTH:
                    raise BlockFallback
                return self.sequence(ls + col, col, depth + 1)  # sequence at its key's indent
            return None, ls, ind
        if not in_map:
            # "- - x" and "- key: value" open a collection on the entry's own line.
            if self.is_dash(p):
                if depth + 1 > BLOCK_MAX_DEPTH:
                    raise BlockFallback
                return self.sequence(p, p - (q - 1 - col), depth + 1)
            if self.scan_key(p) is not None:
                if depth + 1 > BLOCK_MAX_DEPTH:
                    raise BlockFallback
                return self.mapping(p, col + (p - q) + 1, depth + 1)
        elif self.is_dash(p):
            raise BlockFallback  # "block sequence entries are not allowed in this context"
        return self.scalar_value(p, col)


def yaml_block_tree(data: Any) -> Any:
    """The JSON tree of a block-style YAML document, or None when the libyaml route must decide.

    ``None`` is also what an empty document decodes to, and such documents are left to
    the libyaml route as well, so None always means "not handled".
    """
    if isinstance(data, str):
        s = data
    else:
        try:
            s = bytes(data).decode("utf-8")
        except (UnicodeDecodeError, TypeError):
            return None
    if _BAD_CHAR.search(s) is not None:
        return None
    parser = _Parser(s)
    n = len(s)
    try:
        ls, ind = parser.next_sig(0)
        if ind == 0 and s.startswith("---", ls) and (ls + 3 >= n or s[ls + 3] in " \n"):
            ls, ind = parser.finish_line(ls + 3) if ls + 3 < n and s[ls + 3] == " " else parser.next_sig(
                parser.next_line(ls))
        if ind < 0:
            return None
        value, ls, ind = parser.collection(ls, ind, 1)
        if ls < n:
            return None
        return value
    except BlockFallback:
        return None


def yaml_encode_tree(tree: Any) -> bytes:
    """go-yaml v2 Marshal of a JSON tree: the pure twin is the encoder itself."""
    return tree_to_yaml(tree)
