"""``SelectionPredicate``: label and field selectors over an object's attributes.

Go: apiserver ``pkg/storage/selection_predicate.go`` (``SelectionPredicate``,
``DefaultNamespaceScopedAttr``, ``DefaultClusterScopedAttr``, ``AttrFunc``) and
``pkg/registry/generic/matcher.go`` (``ObjectMetaFieldsSet``, ``AddObjectMetaFieldsSet``,
``MergeFieldsSets``). An attr function returns ``(labels, fields)``: the object's labels
and the field set its field selectors match against (internal field names, after the
scheme's field label conversion).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from kcodec.registry._meta import accessor

__all__ = [
    "SelectionPredicate",
    "AttrFunc",
    "default_namespace_scoped_attr",
    "default_cluster_scoped_attr",
    "object_meta_fields_set",
    "add_object_meta_fields_set",
    "merge_fields_sets",
    "attr_func_with_fields",
]

AttrFunc = Callable[[Any], "tuple[Mapping[str, str], Mapping[str, str]]"]


def _labels(obj: Any) -> dict[str, str]:
    return dict(accessor(obj).get_labels() or {})


def default_namespace_scoped_attr(obj: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Go's ``DefaultNamespaceScopedAttr``: labels, metadata.name and metadata.namespace."""
    m = accessor(obj)
    return _labels(obj), {"metadata.name": m.get_name(), "metadata.namespace": m.get_namespace()}


def default_cluster_scoped_attr(obj: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Go's ``DefaultClusterScopedAttr``: labels and metadata.name."""
    return _labels(obj), {"metadata.name": accessor(obj).get_name()}


def object_meta_fields_set(obj: Any, has_namespace_field: bool) -> dict[str, str]:
    """Go's ``generic.ObjectMetaFieldsSet``."""
    m = accessor(obj)
    if not has_namespace_field:
        return {"metadata.name": m.get_name()}
    return {"metadata.name": m.get_name(), "metadata.namespace": m.get_namespace()}


def add_object_meta_fields_set(source: dict[str, str], obj: Any, has_namespace_field: bool) -> dict[str, str]:
    """Go's ``generic.AddObjectMetaFieldsSet``."""
    source.update(object_meta_fields_set(obj, has_namespace_field))
    return source


def merge_fields_sets(source: dict[str, str], fragment: Mapping[str, str]) -> dict[str, str]:
    """Go's ``generic.MergeFieldsSets``."""
    source.update(fragment)
    return source


def attr_func_with_fields(namespaced: bool, fields: Mapping[str, Callable[[Any], str]]) -> AttrFunc:
    """An attr function for a kind whose strategy's ``GetAttrs`` adds selectable fields:
    ``fields`` maps each internal field label to a getter of its string value."""
    table = dict(fields)

    def get_attrs(obj: Any) -> tuple[dict[str, str], dict[str, str]]:
        field_set = object_meta_fields_set(obj, namespaced)
        for label, getter in table.items():
            field_set[label] = getter(obj)
        return _labels(obj), field_set

    return get_attrs


@dataclass
class SelectionPredicate:
    """Go's ``storage.SelectionPredicate``.

    ``label`` / ``field`` are selectors (``kcodec.labels.Selector`` /
    ``kcodec.fields.Selector``; ``None`` selects everything); ``get_attrs`` the kind's
    attr function. ``matches(obj)`` is what storage lists and watches filter with.
    """

    label: Any = None
    field: Any = None
    get_attrs: AttrFunc = default_namespace_scoped_attr
    limit: int = 0
    continue_: str = ""
    allow_watch_bookmarks: bool = False

    def empty(self) -> bool:
        return (self.label is None or self.label.empty()) and (self.field is None or self.field.empty())

    def matches(self, obj: Any) -> bool:
        if self.empty():
            return True
        label_set, field_set = self.get_attrs(obj)
        matched = self.label is None or self.label.matches(label_set)
        if matched and self.field is not None:
            matched = self.field.matches(field_set)
        return matched

    def matches_object_attributes(self, label_set: Mapping[str, str], field_set: Mapping[str, str]) -> bool:
        if self.empty():
            return True
        matched = self.label is None or self.label.matches(label_set)
        if matched and self.field is not None:
            matched = self.field.matches(field_set)
        return matched

    def matches_single_namespace(self) -> tuple[str, bool]:
        """The namespace an exact ``metadata.namespace=`` term selects (not with continue)."""
        if self.continue_ or self.field is None:
            return "", False
        return self.field.requires_exact_match("metadata.namespace")

    def matches_single(self) -> tuple[str, bool]:
        """The name an exact ``metadata.name=`` term selects (not with continue)."""
        if self.continue_ or self.field is None:
            return "", False
        return self.field.requires_exact_match("metadata.name")

    def as_filter(self) -> Callable[[Any], bool] | None:
        """``matches`` for the storage layer, or ``None`` when everything matches (so that
        a list keeps its remainingItemCount, as Go's etcd3 store does for an empty predicate)."""
        return None if self.empty() else self.matches
