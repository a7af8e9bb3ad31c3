"""The field path a rule's ``fieldPath`` names (Go: k8s.io/apiextensions-apiserver
``pkg/apiserver/schema/cel/validation.go`` ``ValidFieldPath``, over the JSONPath-like
syntax of k8s.io/client-go ``util/jsonpath``), and the paths of errors below a node.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kcodec.api.apiextensions.cel.model import _additional
from kcodec.validation.field import Path

__all__ = ["valid_field_path"]

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


def _child(path: Path | None, name: str) -> Path:
    return path.child(name) if path is not None else Path(name)


# Go's (*Path)(nil).Index(i) prints "[i]"; kcodec's Path has no nil, and Path("") prints
# its empty name as "[]", so a subscript at the root is a one-element path named "[i]".
def _index(path: Path | None, i: int) -> Path:
    return path.index(i) if path is not None else Path(f"[{int(i)}]")


def _key(path: Path | None, k: str) -> Path:
    return path.key(k) if path is not None else Path(f"[{k}]")
