"""Typed values for server-side apply: sigs.k8s.io/structured-merge-diff v6 ``typed``
(``validate.go``, ``tofieldset.go``, ``merge.go``, ``compare.go``, ``remove.go``,
``helpers.go``) over JSON trees and the schemas of :mod:`kcodec.managedfields.schema`.

Every function follows its Go walker step by step, including what Go tolerates: list
items whose key cannot be computed are skipped when building field sets, and the errors
of merging a list item are dropped (``mergingWalker.visitListItems`` appends them to a
shadowed variable).
"""
from __future__ import annotations

import json
from typing import Any, NamedTuple

from kcodec import speedups
from kcodec.errors import KCodecError
from kcodec.gojson import dumps as _go_dumps
from kcodec.managedfields.fieldpath import FieldPathError, Path, PathElement, Set, path_string
from kcodec.managedfields.schema import ASSOCIATIVE, ATOMIC, Atom, ListType, Schema

__all__ = ["TypedValue", "Comparison", "ValidationError", "validate", "to_field_set", "validate_to_field_set",
           "merge", "compare", "remove_items", "extract_items", "copy_tree"]

_ABSENT = object()  # Go's nil value.Value (a missing side), distinct from JSON null (None)

# validate, to_field_set and merge walk in the kernels (kcodec/_native/smd.py and its
# compiled twin), which sit below this layer: they receive its classes once, here.
speedups.bind_fieldpath(path_element=PathElement, set_cls=Set, atom=Atom, atomic=ATOMIC, associative=ASSOCIATIVE,
                        path_error=FieldPathError)


class _NotPlain(Exception):
    pass


def copy_tree(tree: Any) -> Any:
    """A deep copy of a JSON tree, equal to ``json.loads(json.dumps(tree))``: dicts with
    string keys, lists and plain scalars are copied directly (twice as fast); a tree holding
    anything else (tuples, non-string keys, subclasses of the scalar types) takes the JSON
    round trip, which also gives its errors."""
    try:
        return _copy(tree)
    except (_NotPlain, RecursionError):  # the round trip raises json's error for a cycle
        return json.loads(json.dumps(tree))


def _copy(v: Any) -> Any:
    t = type(v)
    if t is dict:
        out = {}
        for k, x in v.items():
            if type(k) is not str:
                raise _NotPlain
            tx = type(x)
            out[k] = x if tx is str or tx is int or tx is bool or x is None or tx is float else _copy(x)
        return out
    if t is list:
        return [x if (tx := type(x)) is str or tx is int or tx is bool or x is None or tx is float else _copy(x)
                for x in v]
    if t is str or t is int or t is bool or v is None or t is float:
        return v
    raise _NotPlain


class ValidationError(KCodecError):
    """Go's ``typed.ValidationErrors``: one line, or ``errors:`` and one indented line each."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        self.errors = errors
        lines = [f"{p}: {m}" if p else m for p, m in errors]
        super().__init__(lines[0] if len(lines) == 1 else "\n  ".join(["errors:", *lines]))


def _errorf(msg: str) -> list[tuple[str, str]]:
    return [("", msg)]


def _prefixed(errs: list[tuple[str, str]], prefix: str) -> list[tuple[str, str]]:
    return [(prefix + p, m) for p, m in errs]


def _deduce(atom: Atom, val: Any) -> Atom:
    # helpers.go deduceAtom
    if val is _ABSENT or val is None:
        return atom
    scalar, list_, map_ = atom
    if (scalar is None) + (list_ is None) + (map_ is None) >= 2:
        return atom  # one kind (or none): deduction returns an equal atom
    if isinstance(val, (bool, int, float, str)):
        if atom.scalar is not None:
            return Atom(scalar=atom.scalar)
    elif isinstance(val, list):
        if atom.list is not None:
            return Atom(list=atom.list)
    elif isinstance(val, dict):
        if atom.map is not None:
            return Atom(map=atom.map)
    return atom


def _go_v(v: Any) -> str:
    # fmt's %v of a value.Value: JSON-ish is close enough for the error texts SMD gives.
    return _go_dumps(v, sort_keys=True).decode("utf-8") if not isinstance(v, str) else v


def _validate_scalar(scalar: str, v: Any, prefix: str) -> list[tuple[str, str]]:
    # validate.go validateScalar
    if v is _ABSENT or v is None:
        return []
    if scalar == "numeric":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return _errorf(f"{prefix}expected numeric (int or float), got {_go_type(v)}")
    elif scalar == "string":
        if not isinstance(v, str):
            return _errorf(f"{prefix}expected string, got {_go_v(v)}")
    elif scalar == "boolean":
        if not isinstance(v, bool):
            return _errorf(f"{prefix}expected boolean, got {_go_v(v)}")
    elif scalar == "untyped":
        if not isinstance(v, (bool, int, float, str)):
            return _errorf(f"{prefix}expected any scalar, got {_go_v(v)}")
    else:
        return _errorf(f"{prefix}unexpected scalar type in schema: {scalar}")
    return []


# The classes each scalar type accepts without an error (validateScalar); None is valid for
# every scalar. The walkers handle a declared scalar field inline when both sides are in
# these sets (most of an object's values), and through the general path otherwise.
_SCALAR_OK: dict[str, frozenset[type]] = {
    "numeric": frozenset({int, float}),
    "string": frozenset({str}),
    "boolean": frozenset({bool}),
    "untyped": frozenset({bool, int, float, str}),
}


def _plain_scalar(atom: Atom | None) -> frozenset[type] | None:
    """The accepted classes when ``atom`` is only a scalar type (else None)."""
    if atom is None or atom.map is not None or atom.list is not None or atom.scalar is None:
        return None
    return _SCALAR_OK.get(atom.scalar)


def _go_type(v: Any) -> str:
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, dict):
        return "map[string]interface {}"
    if isinstance(v, list):
        return "[]interface {}"
    return type(v).__name__


def list_item_pe(schema: Schema, lt: ListType, child: Any) -> PathElement:
    """helpers.go listItemToPathElement; raises :class:`KCodecError` with Go's text."""
    return speedups.smd_list_item_pe(schema, lt, child)


def _try_pe(schema: Schema, lt: ListType, child: Any) -> PathElement | None:
    try:
        return list_item_pe(schema, lt, child)
    except KCodecError:
        return None


# ------------------------------------------------------------------ validate

def validate(schema: Schema, type_ref: Any, value: Any, *, allow_duplicates: bool = False) -> None:
    """validate.go: raise :class:`ValidationError` where ``value`` does not fit the schema."""
    errs, _ = speedups.smd_validate(schema, type_ref, value, allow_duplicates, False)
    if errs:
        raise ValidationError(errs)


def _resolve(schema: Schema, type_ref: Any) -> tuple[Atom | None, list[tuple[str, str]]]:
    atom = schema.resolve(type_ref)
    if atom is None:
        name = type_ref if isinstance(type_ref, str) and type_ref else "inlined type"
        return None, _errorf(f"schema error: no type found matching: {name}")
    return atom, []


def validate_to_field_set(schema: Schema, type_ref: Any, value: Any, *, allow_duplicates: bool = False) -> Set:
    """:func:`validate`, then :func:`to_field_set` of the valid value, in one walk: what
    Go's apply does with the applied configuration (ObjectToTyped, then ToFieldSet)."""
    errs, found = speedups.smd_validate(schema, type_ref, value, allow_duplicates, True)
    if errs:
        raise ValidationError(errs)
    return found


# ------------------------------------------------------------------ to field set

def to_field_set(schema: Schema, type_ref: Any, value: Any) -> Set:
    """tofieldset.go: every leaf field, list item and atomic value of ``value``."""
    return speedups.smd_to_field_set(schema, type_ref, value)


def _new_set() -> Set:
    out = Set.__new__(Set)
    out.members = set()
    out.children = {}
    return out


# ------------------------------------------------------------------ merge

def merge(schema: Schema, type_ref: Any, lhs: Any, rhs: Any) -> Any:
    """merge.go with ``ruleKeepRHS``: ``rhs`` merged over ``lhs``; atomic values are replaced.

    Returns the merged JSON tree; raises :class:`ValidationError` on a schema mismatch.
    """
    out, errs = speedups.smd_merge(schema, type_ref, lhs, rhs)
    if errs:
        raise ValidationError(errs)
    return out


def _as_map(v: Any) -> dict | None:
    return v if isinstance(v, dict) else None


# ------------------------------------------------------------------ compare

class Comparison(NamedTuple):
    """compare.go ``Comparison``: fields removed, modified and added from lhs to rhs."""

    removed: Set
    modified: Set
    added: Set

    def is_same(self) -> bool:
        return self.removed.empty() and self.modified.empty() and self.added.empty()

    def filter(self, fn: Any) -> Comparison:
        return Comparison(fn(self.removed), fn(self.modified), fn(self.added))


def compare(schema: Schema, type_ref: Any, lhs: Any, rhs: Any) -> Comparison:
    """compare.go ``TypedValue.Compare``."""
    cmp = Comparison(Set(), Set(), Set())
    errs: list[tuple[str, str]] = []
    _compare(schema, type_ref, lhs, rhs, _Cursor(None, None, cmp), errs)
    if errs:
        raise ValidationError(errs)
    return cmp


class _Cursor:
    """A path during a compare walk, with its node in each of the comparison's three sets,
    created on the first insertion under it (inserting a whole path from the root for every
    changed leaf would walk the sets again and again)."""

    __slots__ = ("parent", "pe", "nodes")

    def __init__(self, parent: _Cursor | None, pe: PathElement | None, cmp: Comparison | None = None) -> None:
        self.parent = parent
        self.pe = pe
        self.nodes: list[Set | None] = list(cmp) if cmp is not None else [None, None, None]

    def node(self, which: int) -> Set:
        node = self.nodes[which]
        if node is None:
            parent = self.parent.node(which)  # type: ignore[union-attr]
            node = parent.children.get(self.pe)  # type: ignore[arg-type]
            if node is None:
                node = parent.children[self.pe] = _new_set()  # type: ignore[index]
            self.nodes[which] = node
        return node

    def insert(self, which: int) -> None:
        parent = self.parent
        if parent is not None:  # the root's path is empty: Go's Insert of it is a no-op
            parent.node(which).members.add(self.pe)  # type: ignore[arg-type]


_REMOVED, _MODIFIED, _ADDED = 0, 1, 2


def _compare(schema: Schema, type_ref: Any, lhs: Any, rhs: Any, cur: _Cursor, errs: list[tuple[str, str]]) -> None:
    atom = schema.resolve(type_ref)
    if atom is None:
        errs.extend(_resolve(schema, type_ref)[1])
        return
    if lhs is _ABSENT:
        _compare_one_side(schema, atom, rhs, cur, _ADDED, errs)
        return
    if rhs is _ABSENT:
        _compare_one_side(schema, atom, lhs, cur, _REMOVED, errs)
        return
    alhs, arhs = _deduce(atom, lhs), _deduce(atom, rhs)
    in_leaf = [False]
    if alhs == arhs:
        _compare_atom(schema, arhs, lhs, rhs, cur, errs, in_leaf)
    else:
        left_leaf = [False]
        _compare_atom(schema, alhs, lhs, rhs, cur, errs, left_leaf)
        _compare_atom(schema, arhs, lhs, rhs, cur, errs, in_leaf)


def _compare_one_side(schema: Schema, atom: Atom, v: Any, cur: _Cursor, which: int,
                      errs: list[tuple[str, str]]) -> None:
    # compare.go with one side missing (a field added or removed whole): every path of ``v``
    # lands in one set. The present side is valid for its scalars whatever it holds (Go
    # reports a scalar only when both sides are invalid), so the walk only collects.
    a = _deduce(atom, v)
    m = a.map
    if m is not None:
        if m.relationship == ATOMIC or not (isinstance(v, dict) and v):
            cur.insert(which)  # compareLeaf
            return
        fields = m.fields
        element_type = m.element_type
        resolve = schema.resolve
        field_pe = PathElement.field
        for key, val in v.items():
            field = fields.get(key)
            child_atom = resolve(field.type if field is not None else element_type)
            if child_atom is None:
                errs.extend(_prefixed(_resolve(schema, field.type if field is not None else element_type)[1],
                                      "." + key))
                continue
            if _plain_scalar(child_atom) is not None:
                cur.node(which).members.add(field_pe(key))
                continue
            sub: list[tuple[str, str]] = []
            _compare_one_side(schema, child_atom, val, _Cursor(cur, field_pe(key)), which, sub)
            if sub:
                errs.extend(_prefixed(sub, "." + key))
        cur.insert(which)
        return
    if a.scalar is not None:
        cur.insert(which)
        return
    lt = a.list
    if lt is not None:
        if lt.relationship == ATOMIC or not (isinstance(v, list) and v):
            cur.insert(which)
            return
        order: list[PathElement] = []
        values: dict[PathElement, list[Any]] = {}
        for i, child in enumerate(v):
            try:
                pe = list_item_pe(schema, lt, child)
            except KCodecError as exc:
                errs.extend(_errorf(f"element {i}: {exc}"))
                continue
            if pe in values:
                values[pe].append(child)
            else:
                values[pe] = [child]
                order.append(pe)
        element = schema.resolve(lt.element_type)
        for pe in order:
            items = values[pe]
            child_cur = _Cursor(cur, pe)
            if len(items) >= 2:
                child_cur.insert(which)  # duplicated keys: the item is one leaf
                continue
            sub = []
            if element is None:
                sub = _resolve(schema, lt.element_type)[1]
            else:
                _compare_one_side(schema, element, items[0], child_cur, which, sub)
            if sub:
                errs.extend(_prefixed(sub, str(pe)))
        cur.insert(which)
        return
    errs.extend(_errorf("schema error: invalid atom: inlined"))
    cur.insert(which)


def _compare_leaf(lhs: Any, rhs: Any, cur: _Cursor, in_leaf: list[bool]) -> None:
    if in_leaf[0]:
        return
    in_leaf[0] = True
    if lhs is _ABSENT:
        cur.insert(_ADDED)
    elif rhs is _ABSENT:
        cur.insert(_REMOVED)
    elif not _equals(lhs, rhs):
        cur.insert(_MODIFIED)


def _equals(a: Any, b: Any) -> bool:
    """value.Equals: numbers compare as numbers whatever their Go type; bools are not numbers."""
    return speedups.smd_equals(a, b)


def _compare_atom(schema: Schema, a: Atom, lhs: Any, rhs: Any, cur: _Cursor, errs: list[tuple[str, str]],
                  in_leaf: list[bool]) -> None:
    if a.map is not None:
        lmap = _as_map(lhs) if lhs is not _ABSENT else None
        rmap = _as_map(rhs) if rhs is not _ABSENT else None
        if a.map.relationship == ATOMIC or (not lmap and not rmap):
            _compare_leaf(lhs, rhs, cur, in_leaf)
            return
        keys = list(lmap or {})
        keys.extend(k for k in (rmap or {}) if lmap is None or k not in lmap)
        fields = a.map.fields
        element_type = a.map.element_type
        field_pe = PathElement.field
        resolve = schema.resolve
        for key in keys:
            field = fields.get(key)
            tr = field.type if field is not None else element_type
            lv = lmap.get(key, _ABSENT) if lmap is not None else _ABSENT
            rv = rmap.get(key, _ABSENT) if rmap is not None else _ABSENT
            ok = _plain_scalar(resolve(tr))
            if ok is not None and (lv is _ABSENT or lv is None or lv.__class__ in ok) and \
                    (rv is _ABSENT or rv is None or rv.__class__ in ok):
                # A valid scalar on both sides: compareLeaf, inline.
                if lv is _ABSENT:
                    cur.node(_ADDED).members.add(field_pe(key))
                elif rv is _ABSENT:
                    cur.node(_REMOVED).members.add(field_pe(key))
                elif not _equals(lv, rv):
                    cur.node(_MODIFIED).members.add(field_pe(key))
                continue
            sub: list[tuple[str, str]] = []
            _compare(schema, tr, lv, rv, _Cursor(cur, field_pe(key)), sub)
            if sub:
                errs.extend(_prefixed(sub, "." + key))
        return
    if a.scalar is not None:
        lerrs = _validate_scalar(a.scalar, lhs, "lhs: ")
        rerrs = _validate_scalar(a.scalar, rhs, "rhs: ")
        if lerrs and rerrs:
            errs.extend(lerrs + rerrs)
            return
        _compare_leaf(lhs, rhs, cur, in_leaf)
        return
    if a.list is not None:
        llist = lhs if isinstance(lhs, list) else None
        rlist = rhs if isinstance(rhs, list) else None
        if a.list.relationship == ATOMIC or (not llist and not rlist):
            _compare_leaf(lhs, rhs, cur, in_leaf)
            return
        _compare_list(schema, a.list, llist or [], rlist or [], cur, errs)
        return
    errs.extend(_errorf("schema error: invalid atom: inlined"))


def _compare_list(schema: Schema, t: ListType, llist: list[Any], rlist: list[Any], cur: _Cursor,
                  errs: list[tuple[str, str]]) -> None:
    all_pes: list[PathElement] = []
    lvalues: dict[PathElement, list[Any]] = {}
    for i, child in enumerate(llist):
        try:
            pe = list_item_pe(schema, t, child)
        except KCodecError as exc:
            errs.extend(_errorf(f"element {i}: {exc}"))
            continue
        if pe in lvalues:
            lvalues[pe].append(child)
        else:
            lvalues[pe] = [child]
            all_pes.append(pe)
    rvalues: dict[PathElement, list[Any]] = {}
    for i, child in enumerate(rlist):
        try:
            pe = list_item_pe(schema, t, child)
        except KCodecError as exc:
            errs.extend(_errorf(f"element {i}: {exc}"))
            continue
        if pe in rvalues:
            rvalues[pe].append(child)
        else:
            rvalues[pe] = [child]
            if pe not in lvalues:
                all_pes.append(pe)
    for pe in all_pes:
        ll = lvalues.get(pe, [])
        rl = rvalues.get(pe, [])
        child = _Cursor(cur, pe)
        if not ll and not rl:
            return
        if len(ll) <= 1 and len(rl) <= 1:
            sub: list[tuple[str, str]] = []
            _compare(schema, t.element_type, ll[0] if ll else _ABSENT, rl[0] if rl else _ABSENT, child, sub)
            if sub:
                errs.extend(_prefixed(sub, str(pe)))
        elif len(ll) >= 2 and len(rl) >= 2:
            if len(ll) != len(rl) or not all(_equals(x, y) for x, y in zip(ll, rl)):
                child.insert(_MODIFIED)
        elif len(ll) >= 2:
            if rl:
                _compare(schema, t.element_type, _ABSENT, rl[0], child, errs)
            child.insert(_REMOVED)
        else:
            if ll:
                _compare(schema, t.element_type, ll[0], _ABSENT, child, errs)
            child.insert(_ADDED)


# ------------------------------------------------------------------ remove / extract

def remove_items(schema: Schema, type_ref: Any, value: Any, items: Set) -> Any:
    """remove.go ``RemoveItems``: ``value`` without the fields of ``items``."""
    return _remove(schema, type_ref, value, items, False)


def extract_items(schema: Schema, type_ref: Any, value: Any, items: Set, *, append_key_fields: bool = False) -> Any:
    """typed.go ``ExtractItems``: only the fields of ``items`` (with their list keys when asked)."""
    if append_key_fields:
        present = to_field_set(schema, type_ref, value)
        extra = Set()
        for path in items:
            if not present.has(path):
                continue
            for i, pe in enumerate(path):
                if pe.kind == PathElement.KEY:
                    for name, _ in pe.payload:
                        extra.insert(path[:i + 1] + (PathElement.field(name),))
        items = items.union(extra)
    return _remove(schema, type_ref, value, items, True)


def _remove(schema: Schema, type_ref: Any, v: Any, to_remove: Set, extract: bool) -> Any:
    atom = schema.resolve(type_ref)
    if atom is None:
        return None
    a = _deduce(atom, v)
    if a.map is not None:
        if not isinstance(v, dict):
            return None
        if not v or a.map.relationship == ATOMIC:
            return v if extract else None
        out: dict[str, Any] = {}
        for key, val in v.items():
            pe = PathElement.field(key)
            field = a.map.find_field(key)
            tr = field.type if field is not None else a.map.element_type
            if to_remove.has((pe,)):
                if extract:
                    out[key] = _remove(schema, tr, val, to_remove, extract)
                continue
            subset = to_remove.children.get(pe)
            if subset is not None and not subset.empty():
                val = _remove(schema, tr, val, subset, extract)
            elif extract:
                continue
            out[key] = val
        return out or None
    if a.scalar is not None:
        return v
    if a.list is not None:
        if not isinstance(v, list):
            return None
        if not v or a.list.relationship == ATOMIC:
            return v if extract else None
        items: list[Any] = []
        for item in v:
            pe = _try_pe(schema, a.list, item)
            exact = pe is not None and to_remove.has((pe,))
            subset = to_remove.children.get(pe) if pe is not None else None
            prefix = subset is not None and not subset.empty()
            if extract:
                if prefix:
                    item = _remove(schema, a.list.element_type, item, subset, extract)  # type: ignore[arg-type]
                if exact or prefix:
                    items.append(item)
            else:
                if exact:
                    continue
                if prefix:
                    item = _remove(schema, a.list.element_type, item, subset, extract)  # type: ignore[arg-type]
                items.append(item)
        return items or None
    return None


class TypedValue:
    """A JSON tree with its schema and type (Go's ``typed.TypedValue``)."""

    __slots__ = ("value", "schema", "type_ref", "_field_set", "validated")

    def __init__(self, value: Any, schema: Schema, type_ref: Any) -> None:
        self.value = value
        self.schema = schema
        self.type_ref = type_ref
        self._field_set: Set | None = None
        #: Whether :meth:`validate` passed (the value is not changed afterwards).
        self.validated = False

    def __repr__(self) -> str:
        return f"TypedValue({self.type_ref!r})"

    def validate(self, allow_duplicates: bool = False, *, keep_field_set: bool = False) -> TypedValue:
        """Raise :class:`ValidationError` where the value does not fit. ``keep_field_set``
        also builds the value's field set in the same walk, for :meth:`to_field_set` to return
        (the value must not be changed afterwards)."""
        if keep_field_set:
            self._field_set = validate_to_field_set(self.schema, self.type_ref, self.value,
                                                    allow_duplicates=allow_duplicates)
        else:
            validate(self.schema, self.type_ref, self.value, allow_duplicates=allow_duplicates)
        self.validated = True
        return self

    def to_field_set(self) -> Set:
        if self._field_set is not None:
            return self._field_set  # sets are not changed by their users (operations return new ones)
        return to_field_set(self.schema, self.type_ref, self.value)

    def merge(self, other: TypedValue) -> TypedValue:
        return TypedValue(merge(self.schema, self.type_ref, self.value, other.value), self.schema, self.type_ref)

    def compare(self, other: TypedValue) -> Comparison:
        return compare(self.schema, self.type_ref, self.value, other.value)

    def remove_items(self, items: Set) -> TypedValue:
        return TypedValue(remove_items(self.schema, self.type_ref, self.value, items), self.schema, self.type_ref)

    def extract_items(self, items: Set, *, append_key_fields: bool = False) -> TypedValue:
        return TypedValue(extract_items(self.schema, self.type_ref, self.value, items,
                                        append_key_fields=append_key_fields), self.schema, self.type_ref)


def describe(path: Path) -> str:
    """The path as SMD prints it (``.spec.replicas``)."""
    return path_string(path)
