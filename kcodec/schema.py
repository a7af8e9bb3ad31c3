"""Group/version/kind value types and group versioners (Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go; k8s.io/apimachinery/pkg/runtime/codec.go (GroupVersioner)).

The value types are :class:`typing.NamedTuple` subclasses: immutable, hashable, ordered and
cheap to build (decoders create one per object). Unlike plain tuples they compare equal only
to values of the same class, as distinct Go struct types do, so a ``GroupVersion`` and a
``GroupKind`` with the same two strings are different dictionary keys.

A *group versioner* is anything with ``kind_for_group_version_kinds(kinds)`` returning the
chosen :class:`GroupVersionKind` or ``None`` (Go's ``ok == false``), and ``identifier()``.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from kcodec.errors import DecodeError

__all__ = [
    "APIVersionInternal",
    "GroupVersion",
    "GroupVersionKind",
    "GroupKind",
    "GroupResource",
    "GroupVersionResource",
    "GroupVersions",
    "from_api_version_and_kind",
    "parse_group_version",
    "parse_group_kind",
    "parse_group_resource",
    "parse_kind_arg",
    "parse_resource_arg",
    "INTERNAL_GROUP_VERSIONER",
    "DISABLED_GROUP_VERSIONER",
    "InternalGroupVersioner",
    "DisabledGroupVersioner",
    "MultiGroupVersioner",
    "new_multi_group_versioner",
    "new_coercing_multi_group_versioner",
]

APIVersionInternal = "__internal"
"""The version string of a group's internal (hub) representation."""

_tuple_eq = tuple.__eq__
_tuple_ne = tuple.__ne__
_tuple_lt = tuple.__lt__
_tuple_le = tuple.__le__
_tuple_gt = tuple.__gt__
_tuple_ge = tuple.__ge__
_tuple_hash = tuple.__hash__


def _typed_eq(self: tuple, other: object) -> bool:
    # Returning False (not NotImplemented) stops Python from falling back to the plain
    # tuple comparison, which would make GroupVersion("a","b") == ("a","b").
    return other.__class__ is self.__class__ and _tuple_eq(self, other)


def _typed_ne(self: tuple, other: object) -> bool:
    return other.__class__ is not self.__class__ or _tuple_ne(self, other)


def _typed_order(op: Any) -> Any:
    def compare(self: tuple, other: object) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return op(self, other)

    compare.__name__ = op.__name__
    return compare


def _install_typed_comparisons(cls: type) -> type:
    cls.__eq__ = _typed_eq  # type: ignore[assignment]
    cls.__ne__ = _typed_ne  # type: ignore[assignment]
    cls.__hash__ = _tuple_hash  # type: ignore[assignment]
    cls.__lt__ = _typed_order(_tuple_lt)  # type: ignore[assignment]
    cls.__le__ = _typed_order(_tuple_le)  # type: ignore[assignment]
    cls.__gt__ = _typed_order(_tuple_gt)  # type: ignore[assignment]
    cls.__ge__ = _typed_order(_tuple_ge)  # type: ignore[assignment]
    return cls


class GroupVersion(NamedTuple):
    """An API group and version, e.g. ``apps/v1``; the core group is ``""``.

    A GroupVersion is also a group versioner that targets exactly this group/version.
    """

    group: str = ""
    version: str = ""

    def __str__(self) -> str:
        if self.group:
            return self.group + "/" + self.version
        return self.version

    def __repr__(self) -> str:
        return f"GroupVersion(group={self.group!r}, version={self.version!r})"

    def empty(self) -> bool:
        """True when both group and version are empty."""
        return not self.group and not self.version

    def identifier(self) -> str:
        """The versioner identifier: the same as ``str(self)``."""
        return str(self)

    def with_kind(self, kind: str) -> GroupVersionKind:
        """This group/version with ``kind``."""
        return GroupVersionKind(self.group, self.version, kind)

    def with_resource(self, resource: str) -> GroupVersionResource:
        """This group/version with ``resource``."""
        return GroupVersionResource(self.group, self.version, resource)

    def kind_for_group_version_kinds(
        self, kinds: Sequence[GroupVersionKind]
    ) -> GroupVersionKind | None:
        """Pick the kind to use for this group/version (Go: k8s.io/apimachinery/pkg/runtime/codec.go (GroupVersioner)).

        A kind already in this group and version wins as is; otherwise the first kind of
        the same group is returned with its version replaced; otherwise ``None``.
        """
        group, version = self
        for gvk in kinds:
            if gvk.group == group and gvk.version == version:
                return gvk
        for gvk in kinds:
            if gvk.group == group:
                return GroupVersionKind(group, version, gvk.kind)
        return None


class GroupVersionKind(NamedTuple):
    """A fully qualified kind, e.g. ``apps/v1, Kind=Deployment``."""

    group: str = ""
    version: str = ""
    kind: str = ""

    def __str__(self) -> str:
        return self.group + "/" + self.version + ", Kind=" + self.kind

    def __repr__(self) -> str:
        return (
            f"GroupVersionKind(group={self.group!r}, version={self.version!r}, "
            f"kind={self.kind!r})"
        )

    def empty(self) -> bool:
        """True when group, version and kind are all empty."""
        return not self.group and not self.version and not self.kind

    def group_version(self) -> GroupVersion:
        """The group and version of this kind."""
        return GroupVersion(self.group, self.version)

    def group_kind(self) -> GroupKind:
        """The group and kind, without the version."""
        return GroupKind(self.group, self.kind)

    def with_version(self, version: str) -> GroupVersionKind:
        """This kind in another version of the same group."""
        return GroupVersionKind(self.group, version, self.kind)

    def with_kind(self, kind: str) -> GroupVersionKind:
        """Another kind in the same group and version."""
        return GroupVersionKind(self.group, self.version, kind)

    def to_api_version_and_kind(self) -> tuple[str, str]:
        """The ``(apiVersion, kind)`` pair of TypeMeta; ``("", "")`` for the empty kind."""
        group, version, kind = self
        if not group and not version and not kind:
            return "", ""
        return (group + "/" + version if group else version), kind


class GroupKind(NamedTuple):
    """A group and kind without a version, e.g. ``Deployment.apps``."""

    group: str = ""
    kind: str = ""

    def __str__(self) -> str:
        if self.group:
            return self.kind + "." + self.group
        return self.kind

    def __repr__(self) -> str:
        return f"GroupKind(group={self.group!r}, kind={self.kind!r})"

    def empty(self) -> bool:
        """True when group and kind are both empty."""
        return not self.group and not self.kind

    def with_version(self, version: str) -> GroupVersionKind:
        """This group/kind in ``version``."""
        return GroupVersionKind(self.group, version, self.kind)


class GroupResource(NamedTuple):
    """A group and resource without a version, e.g. ``deployments.apps``."""

    group: str = ""
    resource: str = ""

    def __str__(self) -> str:
        if self.group:
            return self.resource + "." + self.group
        return self.resource

    def __repr__(self) -> str:
        return f"GroupResource(group={self.group!r}, resource={self.resource!r})"

    def empty(self) -> bool:
        """True when group and resource are both empty."""
        return not self.group and not self.resource

    def with_version(self, version: str) -> GroupVersionResource:
        """This group/resource in ``version``."""
        return GroupVersionResource(self.group, version, self.resource)


class GroupVersionResource(NamedTuple):
    """A fully qualified resource, e.g. ``apps/v1, Resource=deployments``."""

    group: str = ""
    version: str = ""
    resource: str = ""

    def __str__(self) -> str:
        return self.group + "/" + self.version + ", Resource=" + self.resource

    def __repr__(self) -> str:
        return (
            f"GroupVersionResource(group={self.group!r}, version={self.version!r}, "
            f"resource={self.resource!r})"
        )

    def empty(self) -> bool:
        """True when group, version and resource are all empty."""
        return not self.group and not self.version and not self.resource

    def group_version(self) -> GroupVersion:
        """The group and version of this resource."""
        return GroupVersion(self.group, self.version)

    def group_resource(self) -> GroupResource:
        """The group and resource, without the version."""
        return GroupResource(self.group, self.resource)

    def with_resource(self, resource: str) -> GroupVersionResource:
        """Another resource in the same group and version."""
        return GroupVersionResource(self.group, self.version, resource)


for _cls in (GroupVersion, GroupVersionKind, GroupKind, GroupResource, GroupVersionResource):
    _install_typed_comparisons(_cls)
del _cls


def parse_group_version(s: str) -> GroupVersion:
    """Parse ``"group/version"`` or ``"version"`` (Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go).

    ``""`` and ``"/"`` give the empty GroupVersion. Characters are not validated. More than
    one ``/`` raises :class:`kcodec.errors.DecodeError` (a ``ValueError``) with Go's text
    ``unexpected GroupVersion string: <s>``.
    """
    if not s or s == "/":
        return GroupVersion("", "")
    slashes = s.count("/")
    if slashes == 0:
        return GroupVersion("", s)
    if slashes == 1:
        group, _, version = s.partition("/")
        return GroupVersion(group, version)
    raise DecodeError(f"unexpected GroupVersion string: {s}")


_gv_cache: dict[str, GroupVersion] = {}


def from_api_version_and_kind(api_version: str, kind: str) -> GroupVersionKind:
    """Build a kind from TypeMeta's ``apiVersion`` and ``kind`` (Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go).

    An unparsable ``apiVersion`` is dropped silently: only the kind is kept, as in Go.
    """
    gv = _gv_cache.get(api_version)
    if gv is None:
        try:
            gv = parse_group_version(api_version)
        except DecodeError:
            return GroupVersionKind("", "", kind)
        # apiVersion strings repeat endlessly while decoding; the bound keeps hostile
        # input from growing the cache without limit.
        if len(_gv_cache) < 4096:
            _gv_cache[api_version] = gv
    return GroupVersionKind(gv[0], gv[1], kind)


def parse_group_kind(s: str) -> GroupKind:
    """Split ``"Kind.group"`` at the first dot (Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go); no dot means kind only."""
    kind, dot, group = s.partition(".")
    return GroupKind(group, kind) if dot else GroupKind("", s)


def parse_group_resource(s: str) -> GroupResource:
    """Split ``"resource.group"`` at the first dot (Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go); no dot means resource only."""
    resource, dot, group = s.partition(".")
    return GroupResource(group, resource) if dot else GroupResource("", s)


def parse_kind_arg(arg: str) -> tuple[GroupVersionKind | None, GroupKind]:
    """Read a command-line kind both ways (Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go).

    The first element is the ``Kind.version.group`` reading, present only when ``arg`` has at
    least two dots; the second is :func:`parse_group_kind` of ``arg``.
    """
    gvk = None
    if arg.count(".") >= 2:
        kind, version, group = arg.split(".", 2)
        gvk = GroupVersionKind(group, version, kind)
    return gvk, parse_group_kind(arg)


def parse_resource_arg(arg: str) -> tuple[GroupVersionResource | None, GroupResource]:
    """Read a command-line resource both ways (Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go).

    The first element is the ``resource.version.group`` reading, present only when ``arg``
    has at least two dots; the second is :func:`parse_group_resource` of ``arg``.
    """
    gvr = None
    if arg.count(".") >= 2:
        resource, version, group = arg.split(".", 2)
        gvr = GroupVersionResource(group, version, resource)
    return gvr, parse_group_resource(arg)


def go_json_object(values: dict[str, str]) -> str:
    """Compact JSON of a string map as Go's ``json.Marshal`` writes it: keys sorted, HTML escaped."""
    text = json.dumps(values, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


class GroupVersions(tuple):
    """An ordered list of group/versions used as one group versioner (Go: k8s.io/apimachinery/pkg/runtime/codec.go (GroupVersioner)).

    Each group/version picks a target as :meth:`GroupVersion.kind_for_group_version_kinds`
    does; one pick is returned as is, and among several the first one that equals an input
    kind wins, else the first pick.
    """

    __slots__ = ()

    def __new__(cls, gvs: Iterable[GroupVersion] = ()) -> GroupVersions:
        return super().__new__(cls, gvs)

    def __repr__(self) -> str:
        return f"GroupVersions({list(self)!r})"

    def identifier(self) -> str:
        """``[gv1,gv2,...]`` with each group/version in its string form."""
        return "[" + ",".join(str(gv) for gv in self) + "]"

    def kind_for_group_version_kinds(
        self, kinds: Sequence[GroupVersionKind]
    ) -> GroupVersionKind | None:
        """The best target among all member group/versions, or ``None``."""
        targets = []
        for gv in self:
            target = gv.kind_for_group_version_kinds(kinds)
            if target is not None:
                targets.append(target)
        if not targets:
            return None
        if len(targets) > 1:
            for target in targets:
                for kind in kinds:
                    if kind == target:
                        return kind
        return targets[0]


class InternalGroupVersioner:
    """The versioner that targets the internal version of the input kind's group (Go: k8s.io/apimachinery/pkg/runtime/codec.go (GroupVersioner)).

    An input kind already internal wins; otherwise the first input kind moves to
    ``__internal``; no input kinds give ``None``. Use the :data:`INTERNAL_GROUP_VERSIONER`
    instance.
    """

    __slots__ = ()

    def kind_for_group_version_kinds(
        self, kinds: Sequence[GroupVersionKind]
    ) -> GroupVersionKind | None:
        """The internal kind for ``kinds``, or ``None`` when ``kinds`` is empty."""
        for kind in kinds:
            if kind.version == APIVersionInternal:
                return kind
        for kind in kinds:
            return GroupVersionKind(kind.group, APIVersionInternal, kind.kind)
        return None

    def identifier(self) -> str:
        """Always ``internal``."""
        return "internal"

    def __repr__(self) -> str:
        return "INTERNAL_GROUP_VERSIONER"


class DisabledGroupVersioner:
    """The versioner that never picks a target, so no conversion happens (Go: k8s.io/apimachinery/pkg/runtime/codec.go (GroupVersioner)).

    Use the :data:`DISABLED_GROUP_VERSIONER` instance.
    """

    __slots__ = ()

    def kind_for_group_version_kinds(
        self, kinds: Sequence[GroupVersionKind]
    ) -> GroupVersionKind | None:
        """Always ``None``."""
        return None

    def identifier(self) -> str:
        """Always ``disabled``."""
        return "disabled"

    def __repr__(self) -> str:
        return "DISABLED_GROUP_VERSIONER"


INTERNAL_GROUP_VERSIONER = InternalGroupVersioner()
"""Targets the internal version of whatever group the object is in."""

DISABLED_GROUP_VERSIONER = DisabledGroupVersioner()
"""Never targets anything."""


class MultiGroupVersioner:
    """Targets one group/version for kinds of several accepted groups (Go: k8s.io/apimachinery/pkg/runtime/codec.go (GroupVersioner)).

    ``MultiGroupVersioner(target, *accepted_group_kinds)`` returns the plain ``target``
    :class:`GroupVersion` when no group-kinds are given, or only one in the target's own
    group (Go's constructor rule). Otherwise the first input kind whose group matches an
    accepted group-kind (whose kind is empty or equal) is returned in the target
    group/version. With ``coerce=True`` the shortcut is never taken and, when nothing
    matches, the first input kind is moved to the target anyway.
    """

    __slots__ = ("target", "accepted_group_kinds", "coerce", "_identifier")

    target: GroupVersion
    accepted_group_kinds: tuple[GroupKind, ...]
    coerce: bool

    def __new__(  # type: ignore[misc]
        cls,
        target: GroupVersion,
        *accepted_group_kinds: GroupKind,
        coerce: bool = False,
    ) -> MultiGroupVersioner | GroupVersion:
        if not coerce and (
            not accepted_group_kinds
            or (len(accepted_group_kinds) == 1 and accepted_group_kinds[0].group == target.group)
        ):
            return target
        self = object.__new__(cls)
        self.target = target
        self.accepted_group_kinds = tuple(accepted_group_kinds)
        self.coerce = coerce
        self._identifier = go_json_object(
            {
                "name": "multi",
                "target": str(target),
                "accepted": ",".join(str(gk) for gk in accepted_group_kinds),
                "coerce": "true" if coerce else "false",
            }
        )
        return self

    def kind_for_group_version_kinds(
        self, kinds: Sequence[GroupVersionKind]
    ) -> GroupVersionKind | None:
        """The target kind for the first accepted input kind (or the first input, coercing)."""
        group, version = self.target
        for src in kinds:
            for accepted in self.accepted_group_kinds:
                if accepted.group != src.group:
                    continue
                if accepted.kind and accepted.kind != src.kind:
                    continue
                return GroupVersionKind(group, version, src.kind)
        if self.coerce and kinds:
            return GroupVersionKind(group, version, kinds[0].kind)
        return None

    def identifier(self) -> str:
        """Compact JSON with sorted keys ``accepted``, ``coerce``, ``name``, ``target``."""
        return self._identifier

    def __eq__(self, other: object) -> bool:
        return (
            other.__class__ is self.__class__
            and self.target == other.target  # type: ignore[attr-defined]
            and self.accepted_group_kinds == other.accepted_group_kinds  # type: ignore[attr-defined]
            and self.coerce == other.coerce  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return hash((self.target, self.accepted_group_kinds, self.coerce))

    def __repr__(self) -> str:
        kinds = "".join(f", {gk!r}" for gk in self.accepted_group_kinds)
        coerce = ", coerce=True" if self.coerce else ""
        return f"MultiGroupVersioner({self.target!r}{kinds}{coerce})"


def new_multi_group_versioner(
    target: GroupVersion, *accepted_group_kinds: GroupKind
) -> MultiGroupVersioner | GroupVersion:
    """Go's ``NewMultiGroupVersioner``: see :class:`MultiGroupVersioner`."""
    return MultiGroupVersioner(target, *accepted_group_kinds)


def new_coercing_multi_group_versioner(
    target: GroupVersion, *accepted_group_kinds: GroupKind
) -> MultiGroupVersioner:
    """Go's ``NewCoercingMultiGroupVersioner``: a coercing :class:`MultiGroupVersioner`."""
    return MultiGroupVersioner(target, *accepted_group_kinds, coerce=True)  # type: ignore[return-value]
