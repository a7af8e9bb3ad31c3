"""Field paths and sets, as sigs.k8s.io/structured-merge-diff v6 ``fieldpath`` defines them.

A :class:`PathElement` names one step into a value: a struct or map field (``f:``), the
item of an associative list with keys (``k:``), the item of a set (``v:``) or a list index
(``i:``). A :class:`Set` is a tree of paths (``element.go``, ``set.go``); it is written to
and read from ``metadata.managedFields[*].fieldsV1`` in Go's exact bytes
(``serialize.go``, ``serialize-pe.go``). Values are JSON trees (``json.loads``-style Python
values), ordered as SMD's ``value.Compare`` orders them.
"""
from __future__ import annotations

import json
import operator
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from kcodec import speedups
from kcodec.errors import KCodecError
from kcodec.gojson import dumps as _go_dumps

__all__ = ["PathElement", "Path", "Set", "VersionedSet", "FieldPathError", "path_string",
           "make_path", "value_key"]


class FieldPathError(KCodecError):
    """A field set or path element that does not parse (Go's ``FromJSON`` errors)."""


def value_key(v: Any) -> tuple[Any, ...]:
    """SMD ``value.Compare``'s order as a sort key: numbers, strings, bools, lists, maps, null."""
    if v is None:
        return (5,)
    if isinstance(v, bool):
        return (2, v)
    if isinstance(v, (int, float)):
        return (0, v)
    if isinstance(v, str):
        return (1, v)
    if isinstance(v, (list, tuple)):
        return (3, tuple(value_key(x) for x in v))
    if isinstance(v, Mapping):
        return (4, tuple((k, value_key(v[k])) for k in sorted(v)))
    raise FieldPathError(f"unsupported value in a path element: {type(v).__name__}")


def _value_json(v: Any) -> str:
    # json-iterator's ConfigCompatibleWithStandardLibrary: encoding/json's bytes, sorted map keys.
    return _go_dumps(v, sort_keys=True).decode("utf-8")


class PathElement:
    """One step of a :data:`Path` (Go's ``fieldpath.PathElement``); immutable and hashable."""

    __slots__ = ("kind", "payload", "_key", "_hash", "_json")
    FIELD, KEY, VALUE, INDEX = 0, 1, 2, 3

    def __init__(self, kind: int, payload: Any) -> None:
        self.kind = kind
        self.payload = payload
        if kind == self.FIELD or kind == self.INDEX:
            inner: Any = payload
        elif kind == self.KEY:
            inner = tuple((name, value_key(val)) for name, val in payload)
        else:
            inner = value_key(payload)
        self._key = (kind, inner)
        self._hash = hash(self._key)
        self._json: str | None = None

    @classmethod
    def field(cls, name: str) -> PathElement:
        pe = _FIELDS.get(name)
        if pe is None:
            pe = cls(cls.FIELD, name)
            if len(_FIELDS) < _FIELDS_MAX:
                _FIELDS[name] = pe
        return pe

    @classmethod
    def key(cls, fields: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> PathElement:
        """An associative-list key; fields are sorted by name as Go's ``FieldList.Sort``."""
        items = fields.items() if isinstance(fields, Mapping) else fields
        return cls(cls.KEY, tuple(sorted(items, key=lambda kv: kv[0])))

    @classmethod
    def value(cls, v: Any) -> PathElement:
        return cls(cls.VALUE, v)

    @classmethod
    def index(cls, i: int) -> PathElement:
        return cls(cls.INDEX, i)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PathElement) and self._key == other._key

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: PathElement) -> bool:
        return self._key < other._key

    def __str__(self) -> str:
        """Go's ``PathElement.String()``: ``.name``, ``[k=v,...]``, ``[=v]``, ``[i]``."""
        if self.kind == self.FIELD:
            return "." + self.payload
        if self.kind == self.KEY:
            return "[" + ",".join(f"{name}={_to_string(v)}" for name, v in self.payload) + "]"
        if self.kind == self.VALUE:
            return f"[={_to_string(self.payload)}]"
        return f"[{self.payload}]"

    def __repr__(self) -> str:
        return f"PathElement({self.serialize()!r})"

    def serialize(self) -> str:
        """Go's ``SerializePathElement``: the key used in a FieldsV1 object."""
        if self.kind == self.FIELD:
            return "f:" + self.payload
        if self.kind == self.KEY:
            body = ",".join(_go_dumps(name).decode() + ":" + _value_json(v) for name, v in self.payload)
            return "k:{" + body + "}"
        if self.kind == self.VALUE:
            return "v:" + _value_json(self.payload)
        return f"i:{self.payload}"

    def json_key(self) -> str:
        """:meth:`serialize` as a quoted JSON string, the key of a FieldsV1 object (cached)."""
        text = self._json
        if text is None:
            # List item keys are built anew from every object: their text is shared by order key.
            text = _JSON_KEYS.get(self._key)
            if text is None:
                text = _go_dumps(self.serialize()).decode("utf-8")
                if len(_JSON_KEYS) < _FIELDS_MAX:
                    _JSON_KEYS[self._key] = text
            self._json = text
        return text

    def key_text(self) -> str:
        """:meth:`serialize`, cached as :meth:`json_key` is (a FieldsV1 tree's key)."""
        text = _RAW_KEYS.get(self._key)
        if text is None:
            text = self.serialize()
            if len(_RAW_KEYS) < _FIELDS_MAX:
                _RAW_KEYS[self._key] = text
        return text

    @classmethod
    def deserialize(cls, s: str) -> PathElement | None:
        """Go's ``DeserializePathElement``; ``None`` for an unknown prefix (skipped, as Go does)."""
        pe = _SERIALIZED.get(s)
        if pe is not None:
            return pe
        pe = cls._deserialize(s)
        if pe is not None and len(_SERIALIZED) < _FIELDS_MAX:
            _SERIALIZED[s] = pe
        return pe

    @classmethod
    def _deserialize(cls, s: str) -> PathElement | None:
        if len(s) < 2:
            raise FieldPathError("key must be 2 characters long:")
        if s[1] != ":":
            raise FieldPathError(f"missing colon: {s}")
        tag, rest = s[0], s[2:]
        if tag == "f":
            return cls.field(rest)
        if tag == "v":
            return cls.value(_parse_json(rest))
        if tag == "k":
            obj = _parse_json(rest)
            if not isinstance(obj, dict):
                raise FieldPathError(f"ReadObjectCB: expect {{ or n, but found {rest[:1]!r}")
            return cls.key(obj)
        if tag == "i":
            try:
                return cls.index(int(rest, 10))
            except ValueError:
                raise FieldPathError(f'strconv.Atoi: parsing "{rest}": invalid syntax') from None
        return None


# Field elements are immutable: the ones of a schema's field names are shared (which also keeps
# their cached FieldsV1 keys); the bound keeps arbitrary map keys (labels) from growing it forever.
_FIELDS: dict[str, PathElement] = {}
_FIELDS_MAX = 8192
# The same for the keys read from FieldsV1 (a managedFields entry is parsed on every write).
_SERIALIZED: dict[str, PathElement] = {}
_JSON_KEYS: dict[tuple[Any, ...], str] = {}
_RAW_KEYS: dict[tuple[Any, ...], str] = {}


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise FieldPathError(f"managedFields parsing: {exc}") from None


def _to_string(v: Any) -> str:
    # SMD value.ToString: JSON for everything (strings quoted).
    return _value_json(v)


Path = tuple[PathElement, ...]

# Sort key of path elements: their order key, compared as tuples in C (PathElement.__lt__
# compares the same keys through a Python call per comparison).
_ORDER = operator.attrgetter("_key")


def make_path(*parts: Any) -> Path:
    """Go's ``MakePath``: strings are fields, ints indexes, PathElements as given."""
    out = []
    for p in parts:
        if isinstance(p, PathElement):
            out.append(p)
        elif isinstance(p, str):
            out.append(PathElement.field(p))
        elif isinstance(p, int) and not isinstance(p, bool):
            out.append(PathElement.index(p))
        else:
            raise FieldPathError(f"unable to make {p!r} into a path element")
    return tuple(out)


def path_string(path: Iterable[PathElement]) -> str:
    """Go's ``Path.String()``: ``.spec.replicas``, ``.spec.containers[name="app"].image``."""
    return "".join(str(pe) for pe in path)


class Set:
    """A set of field paths (Go's ``fieldpath.Set``): ``members`` end here, ``children``
    go deeper. Operations return new sets and never change their operands."""

    __slots__ = ("members", "children")

    def __init__(self, paths: Iterable[Path] = ()) -> None:
        self.members: set[PathElement] = set()
        self.children: dict[PathElement, Set] = {}
        for p in paths:
            self.insert(p)

    def __repr__(self) -> str:
        return f"Set({sorted(path_string(p) for p in self)!r})"

    # -------------------------------------------------------------- building

    def insert(self, path: Path) -> None:
        if not path:
            return
        s = self
        for pe in path[:-1]:
            child = s.children.get(pe)
            if child is None:
                child = s.children[pe] = Set()
            s = child
        s.members.add(path[-1])

    def copy(self) -> Set:
        out = Set()
        out.members = set(self.members)
        out.children = {pe: c.copy() for pe, c in self.children.items()}
        return out

    # -------------------------------------------------------------- queries

    def empty(self) -> bool:
        """Go's ``Empty``: no path at all (children without members do not count)."""
        return speedups.smd_set_empty(self)

    def size(self) -> int:
        return len(self.members) + sum(c.size() for c in self.children.values())

    def has(self, path: Path) -> bool:
        if not path:
            return False
        s: Set | None = self
        for pe in path[:-1]:
            s = s.children.get(pe)  # type: ignore[union-attr]
            if s is None:
                return False
        return path[-1] in s.members  # type: ignore[union-attr]

    def with_prefix(self, pe: PathElement) -> Set:
        return self.children.get(pe) or Set()

    def __iter__(self) -> Iterator[Path]:
        """Every path in Go's iteration order: members first (sorted), then each child."""
        yield from self._iterate(())

    def _iterate(self, prefix: Path) -> Iterator[Path]:
        for pe in sorted(self.members, key=_ORDER):
            yield prefix + (pe,)
        for pe in sorted(self.children, key=_ORDER):
            yield from self.children[pe]._iterate(prefix + (pe,))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Set):
            return NotImplemented
        return self.members == other.members and self._nonempty_children() == other._nonempty_children()

    def _nonempty_children(self) -> dict[PathElement, Set]:
        return {pe: c for pe, c in self.children.items()}

    def __str__(self) -> str:
        return "\n".join(path_string(p) for p in self)

    # -------------------------------------------------------------- set algebra

    def union(self, other: Set) -> Set:
        out = Set()
        out.members = self.members | other.members
        out.children = dict(self.children)
        for pe, c in other.children.items():
            mine = out.children.get(pe)
            out.children[pe] = c if mine is None else mine.union(c)
        return out

    def intersection(self, other: Set) -> Set:
        """Go's ``Intersection``: the paths in both."""
        return speedups.smd_set_intersection(self, other)

    def difference(self, other: Set) -> Set:
        """Go's ``Difference``: the paths of this set that ``other`` lacks."""
        return speedups.smd_set_difference(self, other)

    def recursive_difference(self, other: Set) -> Set:
        """Like :meth:`difference`, and a member of ``other`` also removes everything below it."""
        return speedups.smd_set_recursive_difference(self, other)

    def leaves(self) -> Set:
        """Members that have no children (Go's ``Leaves``)."""
        out = Set()
        out.members = {m for m in self.members if m not in self.children}
        out.children = {pe: c.leaves() for pe, c in self.children.items()}
        return out

    def ensure_named_fields_are_members(self, schema: Any, type_ref: Any) -> Set:
        """Go's ``EnsureNamedFieldsAreMembers``: a struct field with children is a member too."""
        return speedups.smd_ensure_named_fields(self, schema, type_ref)

    # -------------------------------------------------------------- FieldsV1

    def to_json(self) -> bytes:
        """Go's ``Set.ToJSON``: the FieldsV1 bytes."""
        parts: list[str] = ["{"]
        self._emit(False, parts)
        parts.append("}")
        return "".join(parts).encode("utf-8")

    def _emit(self, include_self: bool, out: list[str]) -> None:
        first = True

        def pre() -> None:
            nonlocal first
            if first:
                first = False
            else:
                out.append(",")

        if include_self and (self.members or self.children):
            pre()
            out.append('".":{}')
        keys = sorted(self.members | self.children.keys(), key=_ORDER)
        for pe in keys:
            pre()
            out.append(pe.json_key())
            out.append(":")
            child = self.children.get(pe)
            if child is None:
                out.append("{}")
            else:
                out.append("{")
                child._emit(pe in self.members, out)
                out.append("}")

    def to_tree(self) -> dict[str, Any]:
        """:meth:`to_json` as a JSON tree (``json.loads(self.to_json())``, keys in the same
        order), built without writing and reading the text."""
        return speedups.smd_set_tree(self)

    @classmethod
    def from_json(cls, data: bytes | str) -> Set:
        """Go's ``Set.FromJSON`` (FieldsV1 bytes to a set)."""
        try:
            tree = json.loads(data)
        except ValueError as exc:
            raise FieldPathError(f"managedFields parsing: {exc}") from None
        if not isinstance(tree, dict):
            raise FieldPathError("ReadMapCB: expect { or n, but found " + repr(str(data)[:1]))
        return speedups.smd_set_from_tree(tree)

    @classmethod
    def from_tree(cls, tree: Any) -> Set:
        """:meth:`from_json` of FieldsV1 already parsed into a JSON tree (``metadata.managedFields``
        of a decoded object), without writing and reading it again."""
        if not isinstance(tree, dict):
            return cls.from_json(json.dumps(tree))
        return speedups.smd_set_from_tree(tree)


class VersionedSet:
    """Go's ``fieldpath.VersionedSet``: a manager's set, its API version, applied or updated."""

    __slots__ = ("set", "api_version", "applied")

    def __init__(self, set_: Set, api_version: str, applied: bool) -> None:
        self.set = set_
        self.api_version = api_version
        self.applied = applied

    def __repr__(self) -> str:
        return f"VersionedSet({self.api_version!r}, applied={self.applied}, {self.set!r})"
