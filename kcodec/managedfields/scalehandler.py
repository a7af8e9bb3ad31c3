"""Managed fields across the scale subresource, as k8s.io/apimachinery
``pkg/util/managedfields/scalehandler.go`` moves them.

A write to ``<resource>/scale`` runs the field manager on an autoscaling/v1 Scale, whose
only owned field is ``spec.replicas``. The Scale REST storages (Go's
``scaleUpdatedObjectInfo`` in ``pkg/registry/apps/deployment/storage/storage.go`` and its
siblings, and apiextensions-apiserver's ``customresource/etcd.go``) hand the old Scale the
parent's entries that own the replicas path (:meth:`ScaleHandler.to_subresource`) and write
the Scale's entries back onto the parent afterwards (:meth:`ScaleHandler.to_parent`), so a
``kubectl scale`` is recorded on the workload as an entry with ``subresource: scale`` owning
``f:spec.f:replicas``, and a later apply of the replicas conflicts with it.

Entries are the JSON form of ``metadata.managedFields`` (lists of dicts), as
:func:`~kcodec.managedfields.fieldmanager.decode_managed_fields` reads them.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kcodec.managedfields.fieldmanager import Managed, decode_managed_fields, encode_managed_fields
from kcodec.managedfields.fieldpath import Path, Set, VersionedSet, make_path

__all__ = ["ScaleHandler", "SCALE_GROUP_VERSION", "REPLICAS_PATH_IN_SCALE", "replicas_path"]

#: scalehandler.go scaleGroupVersion: the version every Scale entry is recorded in.
SCALE_GROUP_VERSION = "autoscaling/v1"
#: scalehandler.go replicasPathInScale.
REPLICAS_PATH_IN_SCALE: Path = make_path("spec", "replicas")


def replicas_path(json_path: str) -> Path:
    """A CRD's ``specReplicasPath`` (``.spec.replicas``) as a field path, as
    customresource_handler.go splits it on dots after the leading one."""
    return make_path(*json_path.removeprefix(".").split("."))


class ScaleHandler:
    """Go's ``ScaleHandler``: the parent's ``metadata.managedFields`` (``parent_entries``),
    the group/version the request addressed (``group_version``, e.g. ``"apps/v1"``) and
    ``mappings`` from each group/version of the parent to its replicas path (``None`` for a
    version without a scale subresource, as custom resources map them). Raises
    :class:`~kcodec.managedfields.fieldmanager.ManagedFieldsError` for entries that do not decode.
    """

    __slots__ = ("parent_entries", "group_version", "mappings")

    def __init__(self, parent_entries: Sequence[Mapping[str, Any]] | None, group_version: str,
                 mappings: Mapping[str, Path | None]) -> None:
        self.parent_entries = parent_entries
        self.group_version = group_version
        self.mappings = mappings

    def __repr__(self) -> str:
        return f"ScaleHandler({self.group_version}, {len(self.parent_entries or ())} entries)"

    def to_subresource(self) -> list[dict[str, Any]] | None:
        """The parent's entries that own the replicas path, as Scale entries (apiVersion
        autoscaling/v1, owning ``spec.replicas``); entries of unknown versions are dropped."""
        managed = decode_managed_fields(self.parent_entries)
        out = Managed()
        for manager, vs in managed.fields.items():
            path = self.mappings.get(vs.api_version)
            if path is None:
                continue
            if vs.set.has(path):
                out.fields[manager] = VersionedSet(Set([REPLICAS_PATH_IN_SCALE]), SCALE_GROUP_VERSION, vs.applied)
                out.times[manager] = managed.times.get(manager)
        return encode_managed_fields(out)

    def to_parent(self, scale_entries: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
        """The parent's entries after a write to the Scale with ``scale_entries``: a parent
        manager the Scale no longer lists loses the replicas path (and its entry, when that
        was all it owned); every Scale manager owning ``spec.replicas`` is recorded in the
        request's group/version owning the parent's replicas path."""
        parent = decode_managed_fields(self.parent_entries)
        scale_fields = dict(decode_managed_fields(scale_entries).fields)
        out = Managed()
        for manager, vs in parent.fields.items():
            if vs.api_version not in self.mappings:
                continue  # the entry of an unknown version is dropped
            path = self.mappings[vs.api_version]
            if path is None or not vs.set.has(path):
                out.fields[manager] = vs
                out.times[manager] = parent.times.get(manager)
                continue
            if manager not in scale_fields:
                # the Scale's write took the replicas path from this manager
                rest = vs.set.difference(Set([path]))
                if not rest.empty():
                    out.fields[manager] = VersionedSet(rest, vs.api_version, vs.applied)
                    out.times[manager] = parent.times.get(manager)
            else:
                out.fields[manager] = vs
                out.times[manager] = parent.times.get(manager)
                del scale_fields[manager]
        target = self.mappings.get(self.group_version)
        for manager, vs in scale_fields.items():
            if not vs.set.has(REPLICAS_PATH_IN_SCALE):
                continue
            out.fields[manager] = VersionedSet(Set([target] if target is not None else []), self.group_version,
                                               vs.applied)
            # scalehandler.go takes the time from the parent's entries under the Scale
            # entry's identifier, which an Update's apiVersion (autoscaling/v1) never matches:
            # kube-apiserver records a scale Update without a time.
            out.times[manager] = parent.times.get(manager)
        return encode_managed_fields(out)
