"""Apply and update with field ownership: sigs.k8s.io/structured-merge-diff v6 ``merge``
(``update.go``: ``Updater.Update``, ``Updater.Apply`` with its pruning of fields an applier
stopped applying; ``conflict.go``).

``managers`` maps a manager identifier (the JSON of its ManagedFieldsEntry, see
:mod:`kcodec.managedfields.fieldmanager`) to its :class:`VersionedSet`. A converter turns a
:class:`TypedValue` into another API version, raising :class:`MissingVersionError` when that
version no longer exists (its managers are then dropped, as Go drops them).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kcodec.errors import KCodecError
from kcodec.managedfields.fieldpath import Path, Set, VersionedSet, path_string
from kcodec.managedfields.schema import ATOMIC
from kcodec.managedfields.typed import Comparison, TypedValue, _equals

__all__ = ["Conflict", "Conflicts", "Updater", "MissingVersionError", "ManagedFields"]

ManagedFields = dict[str, VersionedSet]


class MissingVersionError(KCodecError):
    """The converter cannot reach an API version (Go's ``IsMissingVersionError``)."""


class Conflict:
    """One field another manager owns (Go's ``merge.Conflict``)."""

    __slots__ = ("manager", "path")

    def __init__(self, manager: str, path: Path) -> None:
        self.manager = manager
        self.path = path

    def __repr__(self) -> str:
        return f"Conflict({self.manager!r}, {path_string(self.path)!r})"

    def __str__(self) -> str:
        return f'conflict with "{self.manager}": {path_string(self.path)}'

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Conflict) and (self.manager, self.path) == (other.manager, other.path)

    def __hash__(self) -> int:
        return hash((self.manager, self.path))


class Conflicts(KCodecError):
    """The conflicts of an apply without force (Go's ``merge.Conflicts``), in Go's order:
    managers by name, each one's paths in set order."""

    def __init__(self, conflicts: list[Conflict]) -> None:
        self.conflicts = conflicts
        super().__init__(self._text())

    def _text(self) -> str:
        if len(self.conflicts) == 1:
            return str(self.conflicts[0])
        lines = []
        for manager in sorted({c.manager for c in self.conflicts}):
            lines.append(f'conflicts with "{manager}":')
            lines.extend(f"- {path_string(c.path)}" for c in self.conflicts if c.manager == manager)
        return "\n".join(lines)

    @classmethod
    def from_managers(cls, sets: Mapping[str, VersionedSet]) -> Conflicts:
        return cls([Conflict(manager, path) for manager in sorted(sets) for path in sets[manager].set])


Converter = Callable[[TypedValue, str], TypedValue]


def _identity_converter(tv: TypedValue, version: str) -> TypedValue:
    return tv


class Updater:
    """Go's ``merge.Updater``.

    ``converter(typed_value, api_version)`` converts between the versions managers used;
    ``ignore`` maps an API version to a filter of the fields no manager may own there (the
    strategy's reset fields: ``status`` on the main resource, the spec on ``/status``).
    """

    def __init__(self, converter: Converter | None = None,
                 ignore: Mapping[str, Callable[[Set], Set]] | None = None) -> None:
        self.converter = converter or _identity_converter
        self.ignore = dict(ignore or {})

    def _convert(self, tv: TypedValue, version: str) -> TypedValue | None:
        try:
            return self.converter(tv, version)
        except MissingVersionError:
            return None

    def _filter(self, version: str) -> Callable[[Set], Set]:
        return self.ignore.get(version) or (lambda s: s)

    def _update(self, old: TypedValue, new: TypedValue, version: str, managers: ManagedFields, workflow: str,
                force: bool) -> tuple[ManagedFields, Comparison]:
        compare = old.compare(new).filter(self._filter(version))
        versions: dict[str, Comparison] = {version: compare}
        conflicts: ManagedFields = {}
        removed: ManagedFields = {}
        for manager in list(managers):
            if manager == workflow:
                continue
            vs = managers[manager]
            cmp = versions.get(vs.api_version)
            if cmp is None:
                old_v = self._convert(old, vs.api_version)
                new_v = self._convert(new, vs.api_version) if old_v is not None else None
                if old_v is None or new_v is None:
                    del managers[manager]
                    continue
                cmp = versions[vs.api_version] = old_v.compare(new_v).filter(self._filter(vs.api_version))
            conflict_set = vs.set.intersection(cmp.modified.union(cmp.added))
            if not conflict_set.empty():
                conflicts[manager] = VersionedSet(conflict_set, vs.api_version, False)
            if not cmp.removed.empty():
                removed[manager] = VersionedSet(cmp.removed, vs.api_version, False)
        if not force and conflicts:
            raise Conflicts.from_managers(conflicts)
        for manager, cs in conflicts.items():
            vs = managers[manager]
            managers[manager] = VersionedSet(vs.set.difference(cs.set), vs.api_version, vs.applied)
        for manager, rs in removed.items():
            vs = managers[manager]
            managers[manager] = VersionedSet(vs.set.difference(rs.set), vs.api_version, vs.applied)
        for manager in [m for m, vs in managers.items() if vs.set.empty()]:
            del managers[manager]
        return managers, compare

    def update(self, live: TypedValue, new: TypedValue, version: str, managers: ManagedFields,
               manager: str) -> tuple[TypedValue, ManagedFields]:
        """Go's ``Updater.Update``: ``manager`` takes what changed from ``live`` to ``new``."""
        managers = self._reconcile(live, managers)
        managers, compare = self._update(live, new, version, managers, manager, True)
        previous = managers.get(manager)
        base = previous.set if previous is not None else Set()
        owned = base.difference(compare.removed).union(compare.modified).union(compare.added)
        owned = self._filter(version)(owned)
        if owned.empty():
            managers.pop(manager, None)
        else:
            managers[manager] = VersionedSet(owned, version, False)
        return new, managers

    def apply(self, live: TypedValue, config: TypedValue, version: str, managers: ManagedFields, manager: str,
              force: bool, *, share: bool = False) -> tuple[TypedValue | None, ManagedFields]:
        """Go's ``Updater.Apply``: merge ``config`` into ``live``, own what it sets, drop what
        ``manager`` applied before and nobody owns any more; ``None`` when nothing changed.
        ``share``: the merged value may share subtrees of both values (see typed.merge)."""
        managers = self._reconcile(live, managers)
        new = live.merge(config, share=share)
        last = managers.get(manager)
        owned = self._filter(version)(config.to_field_set())
        managers[manager] = VersionedSet(owned, version, True)
        new = self._prune(new, managers, manager, last)
        same = _equals(live.value, new.value)
        others = [vs for m, vs in managers.items() if m != manager]
        if live.validated and (not others or (same and all(vs.api_version == version for vs in others))):
            # _update's comparison only matters to the other managers (their conflicts and
            # removals), and finds nothing between equal values: with no other manager (a
            # create, a sole owner's re-apply) or no change (a controller's steady re-apply)
            # it can only drop the managers whose sets are empty. The walk it skips has no
            # errors to report on a validated live object and the merge of it.
            for m in [m for m, vs in managers.items() if vs.set.empty()]:
                del managers[m]
        else:
            managers, _ = self._update(live, new, version, managers, manager, force)
        return (None if same else new), managers

    def _prune(self, merged: TypedValue, managers: ManagedFields, applying: str,
               last: VersionedSet | None) -> TypedValue:
        if last is None or last.set.empty():
            return merged
        applied = managers[applying]
        if last.api_version == applied.api_version and \
                all(vs.api_version == applied.api_version for vs in managers.values()) and \
                last.set.difference(applied.set).empty():
            # Nothing to prune when the manager applies (at least) every field it applied last
            # time, at one version: a path of the last set, and each of its ancestors, is then
            # in the new applied set (list items and map keys are members of a value's set,
            # struct fields are made members by EnsureNamedFieldsAreMembers), so
            # addBackOwnedItems never removes it and addBackDanglingItems removes nothing
            # from the merged object (Go's update.go prune returns it unchanged).
            return merged
        return self._prune_walk(merged, managers, applying, last)

    def _prune_walk(self, merged: TypedValue, managers: ManagedFields, applying: str,
                    last: VersionedSet) -> TypedValue:
        converted = self._convert(merged, last.api_version)
        if converted is None:
            return merged
        memo = _Memo()
        pruned = _remove(converted, memo.named(last.set, converted))
        pruned = self._add_back_owned(converted, pruned, last.api_version, managers, memo)
        pruned = self._add_back_dangling(converted, pruned, last, memo)
        out = self._convert(pruned, managers[applying].api_version)
        return out if out is not None else pruned

    def _add_back_owned(self, merged: TypedValue, pruned: TypedValue, pruned_version: str,
                        managers: ManagedFields, memo: _Memo) -> TypedValue:
        by_version: dict[str, Set] = {}
        for vs in managers.values():
            by_version[vs.api_version] = by_version.get(vs.api_version, Set()).union(vs.set)
        order = ([pruned_version] if pruned_version in by_version else []) + \
            [v for v in by_version if v != pruned_version]
        for version in order:
            m = self._convert(merged, version)
            p = self._convert(pruned, version)
            if m is None or p is None:
                continue
            merged = m
            keep = memo.named(memo.field_set(p), merged).union(memo.named(by_version[version], merged))
            pruned = _remove(merged, memo.named(memo.field_set(merged), merged).difference(keep))
        return pruned

    def _add_back_dangling(self, merged: TypedValue, pruned: TypedValue, last: VersionedSet,
                           memo: _Memo) -> TypedValue:
        converted = self._convert(pruned, last.api_version)
        if converted is None:
            return merged
        pruned_set = memo.named(memo.field_set(converted), merged)
        merged_set = memo.named(memo.field_set(merged), merged)
        last_set = memo.named(last.set, merged)
        return _remove(merged, merged_set.difference(pruned_set).intersection(last_set))

    def _reconcile(self, live: TypedValue, managers: ManagedFields) -> ManagedFields:
        # Go's reconcileManagedFieldsWithSchemaChanges: drop managers of vanished versions;
        # kcodec's schemas are fixed per version, so a set never needs reshaping.
        out: ManagedFields = {}
        for manager, vs in managers.items():
            if self._convert(live, vs.api_version) is None:
                continue
            out[manager] = vs
        return out


class _Memo:
    """The field sets of one prune (update.go prune, addBackOwnedItems, addBackDanglingItems
    derive the same sets from the same values several times; the values are not changed
    while pruning, so each is computed once)."""

    __slots__ = ("_sets", "_named")

    def __init__(self) -> None:
        self._sets: dict[int, tuple[Any, Set]] = {}
        self._named: dict[tuple[int, Any], tuple[Set, Set]] = {}

    def field_set(self, tv: TypedValue) -> Set:
        hit = self._sets.get(id(tv.value))
        if hit is None or hit[0] is not tv.value:
            hit = self._sets[id(tv.value)] = (tv.value, tv.to_field_set())
        return hit[1]

    def named(self, set_: Set, tv: TypedValue) -> Set:
        """``set_.ensure_named_fields_are_members`` for ``tv``'s type."""
        key = (id(set_), tv.type_ref)
        hit = self._named.get(key)
        if hit is None or hit[0] is not set_:
            hit = self._named[key] = (set_, set_.ensure_named_fields_are_members(tv.schema, tv.type_ref))
        return hit[1]


def _remove(tv: TypedValue, items: Set) -> TypedValue:
    # Removing nothing gives back an equal value (remove.go copies every field): keep the
    # value itself, so that the sets already derived from it stay valid.
    if items.empty() and isinstance(tv.value, dict) and tv.value:
        atom = tv.schema.resolve(tv.type_ref)
        if atom is not None and atom.map is not None and atom.map.relationship != ATOMIC:
            return tv
    return tv.remove_items(items)


def describe_conflicts(conflicts: list[Conflict]) -> list[tuple[str, str]]:
    """(manager, path text) pairs, for messages."""
    return [(c.manager, path_string(c.path)) for c in conflicts]


def _unused(_: Any) -> None:  # pragma: no cover - keeps the typing import honest
    pass
