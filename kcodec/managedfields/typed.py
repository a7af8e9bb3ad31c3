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
from kcodec.managedfields.fieldpath import FieldPathError, Path, PathElement, Set, path_string
from kcodec.managedfields.schema import ASSOCIATIVE, ATOMIC, Atom, ListType, Schema

__all__ = ["TypedValue", "Comparison", "ValidationError", "validate", "to_field_set", "validate_to_field_set",
           "merge", "compare", "remove_items", "extract_items", "copy_tree"]

def copy_tree(tree: Any) -> Any:
    """A deep copy of a JSON tree, equal to ``json.loads(json.dumps(tree))``: dicts with
    string keys, lists and plain scalars are copied directly (the copy kernel); a tree
    holding anything else (tuples, non-string keys, subclasses of the scalar types) takes
    the JSON round trip, which also gives its errors."""
    try:
        return speedups.copy_plain_tree(tree)
    except (TypeError, RecursionError):  # the round trip raises json's error for a cycle
        return json.loads(json.dumps(tree))


class ValidationError(KCodecError):
    """Go's ``typed.ValidationErrors``: one line, or ``errors:`` and one indented line each."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        self.errors = errors
        lines = [f"{p}: {m}" if p else m for p, m in errors]
        super().__init__(lines[0] if len(lines) == 1 else "\n  ".join(["errors:", *lines]))


# validate, to_field_set, merge, compare and remove walk in the kernels (kcodec/_native/smd.py
# and its compiled twin), which sit below this layer: they receive its classes once, here.
speedups.bind_fieldpath(path_element=PathElement, set_cls=Set, atom=Atom, atomic=ATOMIC, associative=ASSOCIATIVE,
                        path_error=FieldPathError)


def list_item_pe(schema: Schema, lt: ListType, child: Any) -> PathElement:
    """helpers.go listItemToPathElement; raises :class:`KCodecError` with Go's text."""
    return speedups.smd_list_item_pe(schema, lt, child)


# ------------------------------------------------------------------ validate

def validate(schema: Schema, type_ref: Any, value: Any, *, allow_duplicates: bool = False) -> None:
    """validate.go: raise :class:`ValidationError` where ``value`` does not fit the schema."""
    errs, _ = speedups.smd_validate(schema, type_ref, value, allow_duplicates, False)
    if errs:
        raise ValidationError(errs)


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


# ------------------------------------------------------------------ merge

def merge(schema: Schema, type_ref: Any, lhs: Any, rhs: Any, *, lhs_valid: bool = False,
          rhs_valid: bool = False) -> Any:
    """merge.go with ``ruleKeepRHS``: ``rhs`` merged over ``lhs``; atomic values are replaced.

    Returns the merged JSON tree; raises :class:`ValidationError` on a schema mismatch.
    ``lhs_valid``/``rhs_valid``: that side validated (the right one without duplicated list
    keys); the merged tree then shares, instead of copying, its subtrees the other side has
    no value for. Callers must not change the merged tree in place below its top level
    without copying what they change.
    """
    share = (1 if lhs_valid else 0) | (2 if rhs_valid else 0)
    out, errs = speedups.smd_merge(schema, type_ref, lhs, rhs, share)
    if errs:
        raise ValidationError(errs)
    return out


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


def compare(schema: Schema, type_ref: Any, lhs: Any, rhs: Any, *, lhs_valid: bool = False) -> Comparison:
    """compare.go ``TypedValue.Compare``. ``lhs_valid``: ``lhs`` validated, so a subtree
    ``rhs`` shares with it (the same object) is equal and is not walked."""
    removed, modified, added, errs = speedups.smd_compare(schema, type_ref, lhs, rhs, lhs_valid)
    if errs:
        raise ValidationError(errs)
    return Comparison(removed, modified, added)


def _equals(a: Any, b: Any) -> bool:
    """value.Equals: numbers compare as numbers whatever their Go type; bools are not numbers."""
    return speedups.smd_equals(a, b)


# ------------------------------------------------------------------ remove / extract

def remove_items(schema: Schema, type_ref: Any, value: Any, items: Set) -> Any:
    """remove.go ``RemoveItems``: ``value`` without the fields of ``items``."""
    return speedups.smd_remove(schema, type_ref, value, items, False)


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
    return speedups.smd_remove(schema, type_ref, value, items, True)


class TypedValue:
    """A JSON tree with its schema and type (Go's ``typed.TypedValue``)."""

    __slots__ = ("value", "schema", "type_ref", "_field_set", "validated", "unique")

    def __init__(self, value: Any, schema: Schema, type_ref: Any) -> None:
        self.value = value
        self.schema = schema
        self.type_ref = type_ref
        self._field_set: Set | None = None
        #: Whether :meth:`validate` passed (the value is not changed afterwards).
        self.validated = False
        #: Whether it passed without allowing duplicated list keys.
        self.unique = False

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
        self.unique = not allow_duplicates
        return self

    def to_field_set(self) -> Set:
        if self._field_set is not None:
            return self._field_set  # sets are not changed by their users (operations return new ones)
        return to_field_set(self.schema, self.type_ref, self.value)

    def merge(self, other: TypedValue, *, share: bool = False) -> TypedValue:
        """The merge of ``other`` over this value. ``share``: it may share the subtrees of a
        validated side that the other side has nothing for (see :func:`merge`)."""
        return TypedValue(merge(self.schema, self.type_ref, self.value, other.value,
                                lhs_valid=share and self.validated,
                                rhs_valid=share and other.validated and other.unique), self.schema, self.type_ref)

    def compare(self, other: TypedValue) -> Comparison:
        return compare(self.schema, self.type_ref, self.value, other.value, lhs_valid=self.validated)

    def remove_items(self, items: Set) -> TypedValue:
        return TypedValue(remove_items(self.schema, self.type_ref, self.value, items), self.schema, self.type_ref)

    def extract_items(self, items: Set, *, append_key_fields: bool = False) -> TypedValue:
        return TypedValue(extract_items(self.schema, self.type_ref, self.value, items,
                                        append_key_fields=append_key_fields), self.schema, self.type_ref)


def describe(path: Path) -> str:
    """The path as SMD prints it (``.spec.replicas``)."""
    return path_string(path)
