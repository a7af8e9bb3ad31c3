"""Managed fields on every write, as k8s.io/apimachinery ``pkg/util/managedfields/internal``
builds kube-apiserver's field manager (``NewDefaultFieldManager``)::

    FieldManager -> versionCheck -> lastAppliedUpdater -> lastAppliedManager -> skipNonApplied
                 -> capManagers -> buildManagerInfo -> managedFieldsUpdater -> stripMeta
                 -> structuredMerge

Each Go manager is one method step here, in that order, on JSON trees of one API version
(the object's). ``metadata.managedFields`` is decoded into a :data:`ManagedFields` map keyed
by manager identifiers (``managedfields.go`` BuildManagerIdentifier) and encoded back sorted
as Go sorts it. The two last-applied steps upgrade objects written by kubectl's client-side
apply: an apply by the manager ``kubectl`` may take over, without force, the fields the
``kubectl.kubernetes.io/last-applied-configuration`` annotation still holds as live has them
(lastappliedmanager.go), and keeps that annotation in step with what it applies
(lastappliedupdater.go).
"""
from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from kcodec.errors import KCodecError
from kcodec.gojson import dumps as _go_dumps
from kcodec.managedfields.fieldpath import FieldPathError, Set, VersionedSet, make_path, path_string
from kcodec.managedfields.merge import Conflicts, ManagedFields, MissingVersionError, Updater
from kcodec.managedfields.schema import Schema
from kcodec.managedfields.typed import TypedValue, _equals, copy_tree

__all__ = ["FieldManager", "Managed", "decode_managed_fields", "encode_managed_fields",
           "build_manager_identifier", "conflict_message", "print_manager", "DEFAULT_MAX_UPDATE_MANAGERS",
           "ManagedFieldsError", "LAST_APPLIED_CONFIG_ANNOTATION"]

DEFAULT_MAX_UPDATE_MANAGERS = 10
#: k8s.io/api core/v1 LastAppliedConfigAnnotation: kubectl's client-side apply record.
LAST_APPLIED_CONFIG_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
#: The manager whose applies upgrade client-side apply (lastappliedmanager.go, lastappliedupdater.go).
_KUBECTL = "kubectl"
#: apimachinery validation TotalAnnotationSizeLimitB (SetLastApplied drops a too large annotation).
_TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
_ANCIENT = "ancient-changes"
_BEFORE_FIRST_APPLY = "before-first-apply"
_CURRENT_OPERATION = "current-operation"
_ENTRY_ORDER = ("manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource")

# stripmeta.go: fields of the object's identity that no manager owns.
_STRIP = Set([make_path("apiVersion"), make_path("kind"), make_path("metadata"),
              make_path("metadata", "name"), make_path("metadata", "namespace"),
              make_path("metadata", "creationTimestamp"), make_path("metadata", "selfLink"),
              make_path("metadata", "uid"), make_path("metadata", "clusterName"),
              make_path("metadata", "generation"), make_path("metadata", "managedFields"),
              make_path("metadata", "resourceVersion")])


class ManagedFieldsError(KCodecError):
    """managedFields that do not decode, or an apply the field manager refuses (a 400 in Go)."""


class Managed:
    """Go's ``ManagedInterface``: sets by manager and the time of each manager's last change."""

    __slots__ = ("fields", "times")

    def __init__(self, fields: ManagedFields | None = None, times: dict[str, str | None] | None = None) -> None:
        self.fields: ManagedFields = fields if fields is not None else {}
        self.times: dict[str, str | None] = times if times is not None else {}

    def __repr__(self) -> str:
        return f"Managed({sorted(self.fields)})"


def _entry_json(entry: Mapping[str, Any]) -> str:
    return _go_dumps({k: entry[k] for k in _ENTRY_ORDER if entry.get(k)}).decode("utf-8")


def build_manager_identifier(entry: Mapping[str, Any]) -> str:
    """Go's ``BuildManagerIdentifier``: the entry's JSON without fieldsType, fieldsV1 and time,
    and without apiVersion for an Apply."""
    copy = {k: v for k, v in entry.items() if k not in ("fieldsType", "fieldsV1", "time")}
    if copy.get("operation") == "Apply":
        copy.pop("apiVersion", None)
    return _entry_json(copy)


def decode_managed_fields(entries: list[Mapping[str, Any]] | None) -> Managed:
    """Go's ``DecodeManagedFields`` over the JSON form of ``metadata.managedFields``."""
    managed = Managed()
    for i, entry in enumerate(entries or []):
        if entry.get("operation") not in ("Apply", "Update"):
            raise ManagedFieldsError("operation must be `Apply` or `Update`")
        if not entry.get("apiVersion"):
            raise ManagedFieldsError("apiVersion must not be empty")
        fields_type = entry.get("fieldsType", "")
        if fields_type == "":
            raise ManagedFieldsError(f"missing fieldsType in managed fields entry {i}")
        if fields_type != "FieldsV1":
            raise ManagedFieldsError(f'invalid fieldsType "{fields_type}" in managed fields entry {i}')
        manager = build_manager_identifier(entry)
        raw = entry.get("fieldsV1")
        try:
            set_ = Set.from_tree(raw if raw is not None else {})
        except FieldPathError as exc:
            raise ManagedFieldsError(f"error decoding versioned set from {_entry_json(entry)}: "
                                     f"error decoding set: {exc}") from None
        managed.fields[manager] = VersionedSet(set_, entry["apiVersion"], entry["operation"] == "Apply")
        managed.times[manager] = entry.get("time")
    return managed


def encode_managed_fields(managed: Managed) -> list[dict[str, Any]] | None:
    """Go's ``encodeManagedFields``: entries sorted by operation, time, manager, version, subresource."""
    if not managed.fields:
        return None
    out = []
    for manager, vs in managed.fields.items():
        entry: dict[str, Any] = json.loads(manager)
        entry["apiVersion"] = vs.api_version
        if vs.applied:
            entry["operation"] = "Apply"
        entry["fieldsType"] = "FieldsV1"
        entry["fieldsV1"] = vs.set.to_tree()
        t = managed.times.get(manager)
        if t:
            entry["time"] = t
        out.append({k: entry[k] for k in _ENTRY_ORDER if k in entry})

    def key(e: Mapping[str, Any]) -> tuple[Any, ...]:
        return (e.get("operation", ""), _unix(e.get("time")), e.get("manager", ""), e.get("apiVersion", ""),
                e.get("subresource", ""))
    out.sort(key=key)
    return out


def _unix(t: str | None) -> int:
    if not t:
        return 0
    from kcodec.api.meta.v1 import Time

    return Time.parse(t).unix_seconds()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def print_manager(manager: str) -> str:
    """conflict.go ``printManager``: ``"kubectl" using apps/v1 at 2024-...Z``."""
    try:
        entry = json.loads(manager)
    except ValueError:
        return _go_dumps(manager).decode()
    text = _go_dumps(entry.get("manager", "")).decode()
    if entry.get("subresource"):
        text += " with subresource " + _go_dumps(entry["subresource"]).decode()
    if entry.get("operation") == "Update":
        if not entry.get("time"):
            return f"{text} using {entry.get('apiVersion', '')}"
        return f"{text} using {entry.get('apiVersion', '')} at {entry['time']}"
    return text


def conflict_message(conflicts: Conflicts) -> str:
    """conflict.go ``getConflictMessage``: ``Apply failed with 1 conflict: conflict with ...``."""
    items = conflicts.conflicts
    if len(items) == 1:
        c = items[0]
        return f"Apply failed with 1 conflict: conflict with {print_manager(c.manager)}: {path_string(c.path)}"
    lines = []
    for manager in sorted({c.manager for c in items}):
        lines.append(f"conflicts with {print_manager(manager)}:")
        lines.extend(f"- {path_string(c.path)}" for c in items if c.manager == manager)
    return f"Apply failed with {len(items)} conflicts: " + "\n".join(lines)


class FieldManager:
    """kube-apiserver's field manager for one kind at one API version.

    ``schema``/``type_ref`` type the object's JSON tree; ``converter(tree, api_version)``
    returns the tree in another version of the same kind (raising
    :class:`~kcodec.managedfields.merge.MissingVersionError` for a version it cannot reach);
    ``reset_fields`` maps an API version to the paths the strategy resets (their owners are
    not recorded: Go's ``IgnoreFilter``). ``subresource`` is "" or "status", "scale", ...
    """

    def __init__(self, schema: Schema, type_ref: Any, api_version: str, kind: str, *, subresource: str = "",
                 converter: Callable[[Any, str], Any] | None = None,
                 reset_fields: Mapping[str, Set] | None = None,
                 max_update_managers: int = DEFAULT_MAX_UPDATE_MANAGERS) -> None:
        self.schema = schema
        self.type_ref = type_ref
        self.api_version = api_version
        self.kind = kind
        self.subresource = subresource
        self._tree_converter = converter
        self.max_update_managers = max_update_managers
        ignore = {v: (lambda s, r=r: s.recursive_difference(r)) for v, r in (reset_fields or {}).items()}
        self.updater = Updater(self._convert, ignore)

    def __repr__(self) -> str:
        sub = f", subresource={self.subresource!r}" if self.subresource else ""
        return f"FieldManager({self.api_version}, {self.kind}{sub})"

    def _convert(self, tv: TypedValue, version: str) -> TypedValue:
        if version == self.api_version:
            return tv
        if self._tree_converter is None:
            raise MissingVersionError(f"no conversion to {version}")
        return TypedValue(self._tree_converter(tv.value, version), tv.schema, tv.type_ref)

    def _typed(self, tree: Any, allow_duplicates: bool = True, trusted: bool = False) -> TypedValue:
        tv = TypedValue(tree, self.schema, self.type_ref)
        # typeconverter.go ObjectToTyped validates every object, even Go structs, which fit
        # their schema by construction; a tree written from a kcodec model is such an object,
        # and counts as validated.
        if trusted:
            tv.validated = True
            return tv
        return tv.validate(allow_duplicates=allow_duplicates)

    # -------------------------------------------------------------- Update

    def update(self, live: dict[str, Any], new: dict[str, Any], manager: str, *, typed: bool = False
               ) -> dict[str, Any]:
        """Record ``manager``'s update of ``live`` into ``new`` (Go's ``FieldManager.Update``);
        returns ``new`` with its ``metadata.managedFields`` set. ``typed``: both trees were
        written from kcodec models of the kind, so they fit the schema and are not validated."""
        was_enabled = _pause_collector()
        try:
            return self._update_managed(live, new, manager, typed)
        finally:
            if was_enabled:
                gc.enable()

    def _update_managed(self, live: dict[str, Any], new: dict[str, Any], manager: str, typed: bool
                        ) -> dict[str, Any]:
        is_subresource = self.subresource != ""
        managed = self._decode_live_or_new(live, new, is_subresource)
        _set_managed_fields(new, None)
        managed = self._skip_non_applied_update(live, new, managed, manager or "unknown", typed)
        _set_managed_fields(new, encode_managed_fields(managed))
        return new

    def _decode_live_or_new(self, live: dict[str, Any], new: dict[str, Any], ignore_new: bool) -> Managed:
        live_entries = _managed_fields(live)
        if ignore_new:
            return _empty_on_error(live_entries)
        new_entries = _managed_fields(new)
        if new_entries is not None and (new_entries == [] or new_entries == [{}]):
            return Managed()  # Go's isResetManagedFields
        try:
            managed = decode_managed_fields(new_entries)
        except ManagedFieldsError:
            return _empty_on_error(live_entries)
        if not managed.fields:
            return _empty_on_error(live_entries)
        return managed

    def _skip_non_applied_update(self, live: dict[str, Any], new: dict[str, Any], managed: Managed,
                                 manager: str, typed: bool) -> Managed:
        # skipnonapplied.go: objects whose updates were never tracked stay untracked, except on create.
        if not managed.fields and _meta(live).get("uid"):
            return managed
        return self._cap_update(live, new, managed, manager, typed)

    def _cap_update(self, live: Any, new: Any, managed: Managed, manager: str, typed: bool) -> Managed:
        managed = self._update_with_info(live, new, managed, manager, typed)
        return self._cap_update_managers(managed)

    def _update_with_info(self, live: Any, new: Any, managed: Managed, manager: str, typed: bool) -> Managed:
        ident = build_manager_identifier({"manager": manager, "operation": "Update",
                                         "apiVersion": self.api_version, "subresource": self.subresource})
        # managedfieldsupdater.go: the operation's own fields, then merged into the manager's.
        managed = self._structured_update(live, new, managed, _CURRENT_OPERATION, typed)
        vs = managed.fields.pop(_CURRENT_OPERATION, None)
        if vs is not None:
            previous = managed.fields.get(ident)
            merged = vs.set.union(previous.set) if previous is not None else vs.set
            managed.fields[ident] = VersionedSet(merged, vs.api_version, vs.applied)
            managed.times[ident] = _now()
        self._strip(managed, ident)
        return managed

    def _structured_update(self, live: Any, new: Any, managed: Managed, manager: str, typed: bool) -> Managed:
        new_t = self._typed(new, trusted=typed)
        live_t = self._typed(live, trusted=typed)
        _, fields = self.updater.update(live_t, new_t, self.api_version, dict(managed.fields), manager)
        return Managed(fields, managed.times)

    def _cap_update_managers(self, managed: Managed) -> Managed:
        # capmanagers.go: fold the oldest update managers into "ancient-changes" per version.
        updaters = [m for m, vs in managed.fields.items() if not vs.applied]
        if len(updaters) <= self.max_update_managers:
            return managed
        updaters.sort(key=lambda m: (_unix(managed.times.get(m)), m))
        first_by_version: dict[str, str] = {}
        length = len(updaters)
        for manager in updaters:
            if length <= self.max_update_managers:
                break
            vs = managed.fields[manager]
            when = managed.times.get(manager)
            bucket = build_manager_identifier({"manager": _ANCIENT, "operation": "Update",
                                               "apiVersion": vs.api_version})
            if vs.api_version in first_by_version:
                first = first_by_version[vs.api_version]
                if bucket not in managed.fields:
                    managed.fields[bucket] = managed.fields.pop(first)
                managed.fields[bucket] = VersionedSet(vs.set.union(managed.fields[bucket].set), vs.api_version,
                                                      vs.applied)
                del managed.fields[manager]
                length -= 1
                managed.times[bucket] = when
            else:
                first_by_version[vs.api_version] = manager
        return managed

    def _strip(self, managed: Managed, manager: str) -> None:
        vs = managed.fields.get(manager)
        if vs is None:
            return
        stripped = vs.set.difference(_STRIP)
        if stripped.empty():
            del managed.fields[manager]
        else:
            managed.fields[manager] = VersionedSet(stripped, vs.api_version, vs.applied)

    # -------------------------------------------------------------- Apply

    def apply(self, live: dict[str, Any], applied: dict[str, Any], manager: str, force: bool = False, *,
              typed: bool = False, owned: bool = False) -> dict[str, Any]:
        """Go's ``FieldManager.Apply``: the merged object with its managedFields, or
        :class:`~kcodec.managedfields.merge.Conflicts` (raised) when another manager owns a
        field the configuration changes and ``force`` is false. ``typed``: ``live`` was written
        from a kcodec model of the kind, so it fits the schema and is not validated (the
        applied configuration always is). Neither input is changed. ``owned``: both trees are
        the caller's own copies, which it will not change: the result may then share their
        subtrees instead of copying them (what the merge leaves as it is)."""
        was_enabled = _pause_collector()
        try:
            return self._apply(live, applied, manager, force, typed, owned)
        finally:
            if was_enabled:
                gc.enable()

    def _apply(self, live: dict[str, Any], applied: dict[str, Any], manager: str, force: bool, typed: bool,
               owned: bool) -> dict[str, Any]:
        try:
            managed = decode_managed_fields(_managed_fields(live))
        except ManagedFieldsError as exc:
            raise ManagedFieldsError(f"failed to decode managed fields: {exc}") from None
        gvk = (applied.get("apiVersion", ""), applied.get("kind", ""))
        if gvk != (self.api_version, self.kind):
            raise ManagedFieldsError(f"invalid object type: {_gvk_string(*gvk)}")
        obj = self._last_applied_manager(live, applied, managed, manager, force, typed, owned)
        # lastappliedupdater.go: only kubectl's applies, only when the annotation is there
        if manager == _KUBECTL and _last_applied(obj):
            _set_last_applied(obj, _build_last_applied(applied))
        return obj

    def _last_applied_manager(self, live: dict[str, Any], applied: dict[str, Any], managed: Managed, manager: str,
                              force: bool, typed: bool, owned: bool) -> dict[str, Any]:
        try:
            return self._skip_non_applied_apply(live, applied, Managed(dict(managed.fields), dict(managed.times)),
                                                manager, force, typed, owned)
        except Conflicts as exc:
            if manager != _KUBECTL:
                raise
            allowed = self._allowed_conflicts_from_last_applied(live, typed)
            if allowed is None:
                raise
            remaining = [c for c in exc.conflicts if not allowed.has(c.path)]
            if remaining:
                raise Conflicts(remaining) from None
        # every conflict is a field client-side apply set as live still has it: take it over
        return self._skip_non_applied_apply(live, applied, managed, manager, True, typed, owned)

    def _allowed_conflicts_from_last_applied(self, live: dict[str, Any], typed: bool) -> Set | None:
        """lastappliedmanager.go allowedConflictsFromLastApplied: the fields of the last-applied
        configuration whose values live still has; None when there is no usable annotation."""
        text = _last_applied(live)
        if not text:
            return None
        try:
            last = json.loads(text)
        except ValueError:
            return None
        if not isinstance(last, dict) or last.get("apiVersion") != self.api_version:
            return None
        try:
            live_t = self._typed(_without_managed_fields(live), allow_duplicates=False, trusted=typed)
            last_t = TypedValue(last, self.schema, self.type_ref).validate(allow_duplicates=False,
                                                                           keep_field_set=True)
            fields = last_t.to_field_set()
            cmp = last_t.compare(live_t)
        except KCodecError:
            return None
        return fields.difference(cmp.modified).difference(cmp.added).difference(cmp.removed)

    def _skip_non_applied_apply(self, live: dict[str, Any], applied: dict[str, Any], managed: Managed, manager: str,
                                force: bool, typed: bool, owned: bool) -> dict[str, Any]:
        if not managed.fields:
            empty = {"apiVersion": self.api_version, "kind": self.kind}
            live = _deepcopy(live)
            managed = self._cap_update(empty, live, managed, _BEFORE_FIRST_APPLY, typed)
        ident = build_manager_identifier({"manager": manager or "unknown", "operation": "Apply",
                                         "apiVersion": self.api_version, "subresource": self.subresource})
        obj, managed = self._structured_apply(live, applied, managed, ident, force, typed, owned)
        if obj is not None:
            managed.times[ident] = _now()
        elif owned:
            obj = dict(_without_managed_fields(live))  # its managedFields are set below
        else:
            obj = _deepcopy(_without_managed_fields(live))
        self._strip(managed, ident)
        _set_managed_fields(obj, encode_managed_fields(managed))
        return obj

    def _structured_apply(self, live: Any, applied: Any, managed: Managed, manager: str, force: bool,
                          typed: bool, owned: bool) -> tuple[Any, Managed]:
        if applied.get("apiVersion", "") != self.api_version:
            raise ManagedFieldsError("Incorrect version specified in apply patch. Specified patch version: "
                                     f"{applied.get('apiVersion', '')}, expected: {self.api_version}")
        if _managed_fields(applied) is not None:
            raise ManagedFieldsError("metadata.managedFields must be nil")
        # The configuration's field set comes out of its validation walk (Go walks it twice).
        config_t = TypedValue(applied, self.schema, self.type_ref).validate(allow_duplicates=False,
                                                                            keep_field_set=True)
        live_t = self._typed(_without_managed_fields(live), trusted=typed)
        new_t, fields = self.updater.apply(live_t, config_t, self.api_version, dict(managed.fields), manager, force,
                                           share=owned)
        managed = Managed(fields, managed.times)
        return (None if new_t is None else new_t.value), managed


def _pause_collector() -> bool:
    # An apply allocates tens of thousands of short-lived, acyclic objects (sets, path
    # elements, merged maps): the cyclic collector would run dozens of times per write and
    # find nothing. Paused as kcodec's conversion kernels pause it; returns whether it was on.
    was_enabled = gc.isenabled()
    gc.disable()
    return was_enabled


def _last_applied(obj: Mapping[str, Any]) -> str:
    annotations = _meta(obj).get("annotations") or {}
    value = annotations.get(LAST_APPLIED_CONFIG_ANNOTATION) if isinstance(annotations, dict) else None
    return value if isinstance(value, str) else ""


def _build_last_applied(applied: Mapping[str, Any]) -> str:
    """lastappliedupdater.go buildLastApplied: the applied configuration without the
    annotation, as unstructured's JSON encoder writes it (keys sorted, a trailing newline)."""
    meta = applied.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        annotations = {k: v for k, v in meta["annotations"].items() if k != LAST_APPLIED_CONFIG_ANNOTATION}
        applied = {**applied, "metadata": {**meta, "annotations": annotations}}
    return _go_dumps(applied, sort_keys=True).decode("utf-8") + "\n"


def _set_last_applied(obj: dict[str, Any], value: str) -> None:
    """lastapplied.go SetLastApplied: a value that would take the annotations past their
    total size limit is dropped (with the old one) rather than stored."""
    meta = _own_meta(obj)
    if meta is None:
        return
    annotations = dict(meta.get("annotations") or {})
    annotations[LAST_APPLIED_CONFIG_ANNOTATION] = value
    if sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items()) > _TOTAL_ANNOTATION_SIZE_LIMIT:
        del annotations[LAST_APPLIED_CONFIG_ANNOTATION]
    meta["annotations"] = annotations


def _gvk_string(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """``metadata`` as unstructured's accessors read it: a value that is not an object has
    no fields (Go's NestedFieldNoCopy fails and the accessor gives the zero value)."""
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _own_meta(obj: dict[str, Any]) -> dict[str, Any] | None:
    """``obj``'s metadata, copied into ``obj`` to be written (a merged object may share it with
    the live object or the configuration); None when it is there but not an object, which
    unstructured's setters leave alone (SetNestedField's error is ignored)."""
    meta = obj.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        return None
    out = obj["metadata"] = dict(meta or {})
    return out


def _managed_fields(obj: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    return _meta(obj).get("managedFields")


def _set_managed_fields(obj: dict[str, Any], entries: list[dict[str, Any]] | None) -> None:
    meta = _own_meta(obj)
    if meta is None:
        return
    if entries is None:
        meta.pop("managedFields", None)
    else:
        meta["managedFields"] = entries


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    if _managed_fields(obj) is None:
        return obj
    out = dict(obj)
    out["metadata"] = {k: v for k, v in obj["metadata"].items() if k != "managedFields"}
    return out


def _empty_on_error(entries: Any) -> Managed:
    try:
        return decode_managed_fields(entries)
    except ManagedFieldsError:
        return Managed()


def _deepcopy(tree: Any) -> Any:
    return copy_tree(tree)


__all__ += ["_equals"]
