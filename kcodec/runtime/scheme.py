"""The Scheme: kinds <-> Python classes, conversion, defaulting, version priorities (Go: k8s.io/apimachinery/pkg/runtime/scheme.go).

A :class:`Scheme` maps every registered group/version/kind to the Python class that holds it
and back; it is the typer (``object_kinds``, ``recognizes``), creater (``new``), convertor
(``convert``, ``convert_to_version``) and defaulter (``default``) every serializer and codec
is built on. Registration mistakes that Go reports with a panic raise
:class:`kcodec.errors.KCodecError` with Go's text.

Go keys its tables by pointer types; here the Python class is the key, and an *instance* of a
registered class is an object of that kind.
"""
from __future__ import annotations

from kcodec import speedups

import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from kcodec.conversion import (
    ConversionFunc,
    Converter,
    Meta,
    ObjectRef,
    Scope,
    _is_builtin_class,
    _is_builtin_value,
    enforce_ptr,
    go_type_name,
    register_string_conversions,
)
from kcodec.errors import (
    ConversionError,
    DecodeError,
    KCodecError,
    MissingKindError,
    MissingVersionError,
    NotRegisteredError,
)
from kcodec.schema import APIVersionInternal, GroupKind, GroupVersion, GroupVersionKind

__all__ = [
    "Scheme",
    "LazyScheme",
    "SchemeBuilder",
    "FieldLabelConversionFunc",
    "default_meta_v1_field_selector_conversion",
    "convert_object_to_raw_extension",
    "convert_raw_extension_to_object",
    "register_embedded_conversions",
    "is_unstructured",
]

FieldLabelConversionFunc = Callable[[str, str], tuple[str, str]]
"""``fn(label, value) -> (internal_label, internal_value)``; raises when the label is unknown."""

_EMPTY_GVK = GroupVersionKind("", "", "")

# Unstructured is recognised by shape (Go: the runtime.Unstructured interface), so that this
# module never imports the unstructured implementation. The answer is cached per class because
# object_kinds() asks it for every decoded object.
_UNSTRUCTURED_TYPES: dict[type, bool] = {}


def _is_unstructured_type(t: type) -> bool:
    r = _UNSTRUCTURED_TYPES.get(t)
    if r is None:
        r = callable(getattr(t, "unstructured_content", None)) and callable(
            getattr(t, "set_unstructured_content", None)
        )
        _UNSTRUCTURED_TYPES[t] = r
    return r


def is_unstructured(obj: Any) -> bool:
    """True when ``obj`` is an unstructured (map-backed) object such as ``Unstructured``."""
    return obj is not None and _is_unstructured_type(type(obj))


def _ptr_name(t: Any) -> str:
    """Go's ``%T``/``%v`` of a pointer to ``t`` (``*v1.Pod``); ``<nil>`` for None."""
    if t is None:
        return "<nil>"
    return "*" + go_type_name(t)


def _pkg_name(t: type) -> str:
    return f"{t.__module__}.{t.__qualname__}"


def _callsite_name() -> str:
    frame = sys._getframe(1)
    here = __name__
    while frame is not None and frame.f_globals.get("__name__") == here:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return here
    return f"{frame.f_globals.get('__name__', '?')}:{frame.f_lineno}"


def default_meta_v1_field_selector_conversion(label: str, value: str) -> tuple[str, str]:
    """Accept only ``metadata.name`` and ``metadata.namespace`` field selectors (Go: k8s.io/apimachinery/pkg/runtime/scheme.go (ConvertFieldLabel, DefaultMetaV1FieldSelectorConversion))."""
    if label in ("metadata.name", "metadata.namespace"):
        return label, value
    raise ConversionError(
        f'"{label}" is not a known field selector: only "metadata.name", "metadata.namespace"'
    )


def _to_unstructured(obj: Any) -> dict[str, Any]:
    return obj.to_dict()


def _from_unstructured(cls: type, content: dict[str, Any]) -> Any:
    if _is_unstructured_type(cls):
        import copy

        out = cls()
        out.set_unstructured_content(copy.deepcopy(content))
        return out
    return cls.from_dict(content)


def _zero_factory(cls: type) -> Callable[[], Any]:
    """The cheapest way to make Go's zero value of ``cls`` (``new(T)``)."""
    new_zero = getattr(cls, "_new_zero", None)
    if callable(new_zero):
        if hasattr(cls, "__kc_decls__"):
            # a field-table struct: the bound kernel builds it (compiled: from its table)
            def make() -> Any:
                return speedups.new_zero(cls)

            return make
        return new_zero
    return cls


def _self_conversion(cls: type) -> ConversionFunc | None:
    """T -> T deep copy that clears TypeMeta, for classes that know how to copy themselves."""
    into = getattr(cls, "deep_copy_into", None)
    if callable(into):
        def convert(a: Any, b: Any, scope: Scope) -> None:
            a.deep_copy_into(b)
            b.get_object_kind().set_group_version_kind(_EMPTY_GVK)

        return convert
    if _is_unstructured_type(cls) and callable(getattr(cls, "deep_copy", None)):
        def convert_unstructured(a: Any, b: Any, scope: Scope) -> None:
            b.set_unstructured_content(a.deep_copy().unstructured_content())
            b.get_object_kind().set_group_version_kind(_EMPTY_GVK)

        return convert_unstructured
    if hasattr(cls, "__kc_decls__") and callable(getattr(cls, "deep_copy", None)):
        from kcodec.model import fields_of

        def convert_struct(a: Any, b: Any, scope: Scope) -> None:
            c = a.deep_copy()
            for f in fields_of(type(c)):
                object.__setattr__(b, f.name, getattr(c, f.name))
            b.get_object_kind().set_group_version_kind(_EMPTY_GVK)

        return convert_struct
    return None


# ---------------------------------------------------------------------------------------------
# Object <-> RawExtension (Go: k8s.io/apimachinery/pkg/runtime/embedded.go)
# ---------------------------------------------------------------------------------------------


def convert_object_to_raw_extension(src: Any, dst: Any, scope: Scope | None = None) -> None:
    """Go ``Convert_runtime_Object_To_runtime_RawExtension``: fill RawExtension ``dst`` from an object.

    ``src`` is the object (None for a nil object) or an :class:`~kcodec.conversion.ObjectRef`
    holding it. An ``Unknown`` with raw bytes hands them over (shared, not copied); an
    ``Unknown`` without them keeps ``dst.object``; any other object becomes ``dst.object``
    (encoded later by the serializer); None leaves ``dst.raw`` nil.
    """
    obj = src.value if isinstance(src, ObjectRef) else src
    from kcodec.runtime.types import Unknown

    if isinstance(obj, Unknown):
        if obj.raw is not None:
            dst.raw = obj.raw
            return
        obj = dst.object
    if obj is None:
        dst.raw = None
        return
    dst.object = obj


def convert_raw_extension_to_object(src: Any, dst: ObjectRef | None = None, scope: Scope | None = None) -> Any:
    """Go ``Convert_runtime_RawExtension_To_runtime_Object``: the object a RawExtension holds.

    A set ``object`` wins; empty raw bytes or exactly ``null`` give None; other bytes give
    ``Unknown(raw=..., content_type="application/json")`` with empty TypeMeta. The result is
    returned and, when ``dst`` is an :class:`~kcodec.conversion.ObjectRef`, stored in it.
    """
    if src.object is not None:
        out = src.object
    else:
        data = src.raw
        if not data or data == b"null":
            out = None
        else:
            from kcodec.runtime.types import CONTENT_TYPE_JSON, Unknown

            out = Unknown(raw=data, content_type=CONTENT_TYPE_JSON)
    if dst is not None:
        dst.value = out
    return out


def register_embedded_conversions(scheme: Scheme) -> None:
    """Register the Object <-> RawExtension conversions on ``scheme`` (done by every Scheme)."""
    from kcodec.runtime.types import RawExtension

    scheme.add_conversion_func(ObjectRef, RawExtension, convert_object_to_raw_extension)
    scheme.add_conversion_func(RawExtension, ObjectRef, convert_raw_extension_to_object)


# ---------------------------------------------------------------------------------------------
# Scheme
# ---------------------------------------------------------------------------------------------


class Scheme:
    """Registry of kinds and the machinery to create, convert and default them (Go: k8s.io/apimachinery/pkg/runtime/scheme.go).

    ``name`` appears in not-registered errors; it defaults to the creating call site
    (``module:line``). Every scheme starts with the Object <-> RawExtension conversions and the
    ``[]string`` -> ``string``/``int``/``bool``/``int64`` conversions registered.
    """

    __slots__ = (
        "_name",
        "_gvk_to_type",
        "_gvk_to_new",
        "_type_to_gvk",
        "_unversioned_types",
        "_unversioned_kinds",
        "_field_label_funcs",
        "_defaulters",
        "_version_priority",
        "_observed",
        "_converter",
    )

    def __init__(self, name: str | None = None) -> None:
        self._name = name if name is not None else _callsite_name()
        self._gvk_to_type: dict[GroupVersionKind, type] = {}
        self._gvk_to_new: dict[GroupVersionKind, Callable[[], Any]] = {}
        self._type_to_gvk: dict[type, list[GroupVersionKind]] = {}
        self._unversioned_types: dict[type, GroupVersionKind] = {}
        self._unversioned_kinds: dict[str, type] = {}
        self._field_label_funcs: dict[GroupVersionKind, FieldLabelConversionFunc] = {}
        self._defaulters: dict[type, Callable[[Any], None]] = {}
        self._version_priority: dict[str, list[str]] = {}
        self._observed: list[GroupVersion] = []
        self._converter = Converter()
        register_embedded_conversions(self)
        register_string_conversions(self.add_conversion_func)

    def __repr__(self) -> str:
        return f"Scheme(name={self._name!r}, kinds={len(self._gvk_to_type)})"

    @property
    def name(self) -> str:
        """The scheme's name, as printed in its errors."""
        return self._name

    @property
    def converter(self) -> Converter:
        """The scheme's :class:`kcodec.conversion.Converter`."""
        return self._converter

    # -- registration ---------------------------------------------------------------------

    def _add_observed_version(self, gv: GroupVersion) -> None:
        if not gv.version or gv.version == APIVersionInternal:
            return
        if gv not in self._observed:
            self._observed.append(gv)

    @staticmethod
    def _struct_class(obj: Any) -> type:
        """The class a registration argument names (a class, or an instance of one)."""
        cls = obj if isinstance(obj, type) else type(obj)
        if (
            obj is None
            or _is_builtin_value(obj)
            or (isinstance(obj, type) and _is_builtin_class(obj))
            or not callable(getattr(cls, "get_object_kind", None))
        ):
            raise KCodecError("All types must be pointers to structs.")
        return cls

    def add_known_types(self, gv: GroupVersion, *types: Any) -> None:
        """Register each class under ``gv`` with its class name as the kind."""
        self._add_observed_version(gv)
        for t in types:
            cls = self._struct_class(t)
            self.add_known_type_with_name(gv.with_kind(cls.__name__), cls)

    def add_known_type_with_name(self, gvk: GroupVersionKind, t: Any) -> None:
        """Register class ``t`` as ``gvk`` (the version is required; use ``__internal``).

        Registering a different class for an already registered ``gvk`` raises; registering
        the same pair again changes nothing. A class that can deep-copy itself also gets a
        ``T -> T`` conversion (a deep copy that clears apiVersion/kind).
        """
        self._add_observed_version(gvk.group_version())
        if not gvk.version:
            raise KCodecError(f"version is required on all types: {gvk} {_ptr_name(t)}")
        cls = self._struct_class(t)
        old = self._gvk_to_type.get(gvk)
        if old is not None and old is not cls:
            raise KCodecError(
                f"Double registration of different types for {gvk}: old={_pkg_name(old)}, "
                f'new={_pkg_name(cls)} in scheme "{self._name}"'
            )
        self._gvk_to_type[gvk] = cls
        self._gvk_to_new[gvk] = _zero_factory(cls)
        _is_unstructured_type(cls)
        kinds = self._type_to_gvk.setdefault(cls, [])
        if gvk in kinds:
            return
        kinds.append(gvk)
        fn = _self_conversion(cls)
        if fn is not None:
            self.add_generated_conversion_func(cls, cls, fn)

    def add_unversioned_types(self, gv: GroupVersion, *types: Any) -> None:
        """Register classes in ``gv`` that are never converted (Status, WatchEvent, ...).

        Their kind names must be unique across the scheme: ``new`` finds them by kind alone.
        """
        self._add_observed_version(gv)
        self.add_known_types(gv, *types)
        for t in types:
            cls = self._struct_class(t)
            gvk = gv.with_kind(cls.__name__)
            self._unversioned_types[cls] = gvk
            old = self._unversioned_kinds.get(gvk.kind)
            if old is not None and old is not cls:
                raise KCodecError(
                    f'{_pkg_name(old)} has already been registered as unversioned kind "{gvk}" '
                    f'- kind name must be unique in scheme "{self._name}"'
                )
            self._unversioned_kinds[gvk.kind] = cls

    # -- lookup -----------------------------------------------------------------------------

    def known_types(self, gv: GroupVersion) -> dict[str, type]:
        """``{kind: class}`` for exactly ``gv`` (empty for an unknown version)."""
        return {gvk.kind: t for gvk, t in self._gvk_to_type.items() if gvk.group_version() == gv}

    def all_known_types(self) -> dict[GroupVersionKind, type]:
        """Every registered ``{gvk: class}``."""
        return dict(self._gvk_to_type)

    def versions_for_group_kind(self, gk: GroupKind) -> list[GroupVersion]:
        """The versions registering ``gk``, in the group's priority order."""
        available = {gvk.group_version() for gvk in self._gvk_to_type if gvk.group_kind() == gk}
        return [gv for gv in self.prioritized_versions_for_group(gk.group) if gv in available]

    def object_kinds(self, obj: Any) -> tuple[list[GroupVersionKind], bool]:
        """All kinds ``obj``'s class is registered as (registration order) and whether it is
        unversioned. An unstructured object answers its own apiVersion/kind."""
        t = type(obj)
        kinds = self._type_to_gvk.get(t)
        # Registration fills the unstructured-type cache, so a registered typed class costs
        # two dict lookups here.
        if kinds is not None and not _UNSTRUCTURED_TYPES[t]:
            return list(kinds), t in self._unversioned_types
        if _is_unstructured_type(t):
            gvk = obj.get_object_kind().group_version_kind()
            if not gvk.kind:
                raise MissingKindError("unstructured object has no kind")
            if not gvk.version:
                raise MissingVersionError("unstructured object has no version")
            return [gvk], False
        enforce_ptr(obj)
        raise NotRegisteredError(self._name, type=t)

    def recognizes(self, gvk: GroupVersionKind) -> bool:
        """True only for an exactly registered ``gvk``."""
        return gvk in self._gvk_to_type

    def is_unversioned(self, obj: Any) -> tuple[bool, bool]:
        """``(unversioned, registered)`` for ``obj``'s class."""
        t = type(obj)
        if t not in self._type_to_gvk:
            return False, False
        return t in self._unversioned_types, True

    def new(self, gvk: GroupVersionKind) -> Any:
        """A zero-valued object of ``gvk``; an unversioned kind is found in any group/version."""
        make = self._gvk_to_new.get(gvk)
        if make is not None:
            return make()
        t = self._unversioned_kinds.get(gvk.kind)
        if t is not None:
            return _zero_factory(t)()
        raise NotRegisteredError(self._name, gvk=gvk)

    def _type_for(self, gvk: GroupVersionKind) -> type:
        t = self._gvk_to_type.get(gvk)
        if t is None:
            t = self._unversioned_kinds.get(gvk.kind)
            if t is None:
                raise NotRegisteredError(self._name, gvk=gvk)
        return t

    # -- conversion functions ---------------------------------------------------------------

    def add_ignored_conversion_type(self, src_type: Any, dst_type: Any) -> None:
        """Make converting ``src_type`` into ``dst_type`` a no-op."""
        self._converter.register_ignored_conversion(src_type, dst_type)

    def add_conversion_func(self, src_type: Any, dst_type: Any, fn: ConversionFunc) -> None:
        """Register a manual conversion ``fn(src, dst, scope)``."""
        self._converter.register_untyped_conversion_func(src_type, dst_type, fn)

    def add_generated_conversion_func(self, src_type: Any, dst_type: Any, fn: ConversionFunc) -> None:
        """Register a generated conversion (a manual one for the same pair wins)."""
        self._converter.register_generated_untyped_conversion_func(src_type, dst_type, fn)

    def add_field_label_conversion_func(self, gvk: GroupVersionKind, fn: FieldLabelConversionFunc) -> None:
        """Register the field-selector conversion of kind ``gvk``."""
        self._field_label_funcs[gvk] = fn

    def convert_field_label(self, gvk: GroupVersionKind, label: str, value: str) -> tuple[str, str]:
        """The internal ``(label, value)`` for a field selector of kind ``gvk`` (Go: k8s.io/apimachinery/pkg/runtime/scheme.go (ConvertFieldLabel, DefaultMetaV1FieldSelectorConversion))."""
        fn = self._field_label_funcs.get(gvk)
        if fn is None:
            return default_meta_v1_field_selector_conversion(label, value)
        return fn(label, value)

    # -- defaulting -------------------------------------------------------------------------

    def add_type_defaulting_func(self, src_type: Any, fn: Callable[[Any], None]) -> None:
        """Register ``fn(obj)`` as the defaulter of exactly ``src_type`` (replaces any earlier)."""
        cls = src_type if isinstance(src_type, type) else type(src_type)
        self._defaulters[cls] = fn

    def default(self, obj: Any) -> None:
        """Run the defaulter registered for ``obj``'s exact class, if any."""
        fn = self._defaulters.get(type(obj))
        if fn is not None:
            fn(obj)

    # -- conversion -------------------------------------------------------------------------

    def convert(self, src: Any, dst: Any, context: Any = None) -> None:
        """Fill ``dst`` from ``src`` (Go: k8s.io/apimachinery/pkg/runtime/scheme.go (Convert)); ``context`` reaches every conversion function.

        Unstructured on either side is handled here: unstructured -> unstructured shares the
        content; typed -> unstructured writes the object's JSON-like form (converting internal
        objects with ``context`` as the group versioner); unstructured -> typed first builds
        the typed object of its own kind. Other pairs need a registered function.

        As in Go, ``dst`` may share memory with ``src``: generated conversions pass values of
        the same class (lists and maps of them included) through instead of copying, and the
        internal versions bind every struct laid out as in the preferred version to that
        version's class (a converted Pod's ``spec.containers`` is the source's list). Copy
        ``src`` first (or use :meth:`convert_to_version`) when both must stay independent.
        """
        in_u = _is_unstructured_type(type(src))
        out_u = _is_unstructured_type(type(dst))
        if in_u and out_u:
            dst.set_unstructured_content(src.unstructured_content())
            return
        if out_u:
            if src is None or not callable(getattr(type(src), "get_object_kind", None)):
                raise ConversionError(
                    f"unable to convert object type {_go_value_type(src)} to Unstructured, "
                    "must be a runtime.Object"
                )
            kinds, unversioned = self.object_kinds(src)
            gvk = kinds[0]
            if unversioned or gvk.version != APIVersionInternal:
                dst.set_unstructured_content(_to_unstructured(src))
                dst.get_object_kind().set_group_version_kind(gvk)
                return
            if context is None or not callable(getattr(context, "kind_for_group_version_kinds", None)):
                raise ConversionError(
                    f"unable to convert the internal object type {_go_value_type(src)} to "
                    "Unstructured without providing a preferred version to convert to"
                )
            versioned = self.unsafe_convert_to_version(src, context)
            dst.set_unstructured_content(_to_unstructured(versioned))
            return
        if in_u:
            src = self._unstructured_to_typed(src)
        self._converter.convert(src, dst, Meta(context))

    def convert_to_version(self, obj: Any, target: Any) -> Any:
        """``obj`` as the kind ``target`` (a group versioner) picks; never mutates ``obj``
        and always returns a new object (Go: k8s.io/apimachinery/pkg/runtime/scheme.go (ConvertToVersion, UnsafeConvertToVersion))."""
        return self._convert_to_version(True, obj, target)

    def unsafe_convert_to_version(self, obj: Any, target: Any) -> Any:
        """As :meth:`convert_to_version`, but may return ``obj`` itself (relabelled) or share
        data with it: subtrees whose class is the same on both sides (see :meth:`convert`) are
        the input's own objects, so changing one changes the other (Go's
        UnsafeConvertToVersion; kube-apiserver's versioning codec uses it on objects it owns)."""
        return self._convert_to_version(False, obj, target)

    def _convert_to_version(self, copy: bool, obj: Any, target: Any) -> Any:
        t = type(obj)
        if _is_unstructured_type(t):
            obj = self._unstructured_to_typed(obj)
            t = type(obj)
        elif obj is None or isinstance(obj, type) or _is_builtin_value(obj):
            raise ConversionError(f"only pointer types may be converted: {_go_value_type(obj)}")
        elif not callable(getattr(t, "get_object_kind", None)):
            raise ConversionError(f"only pointers to struct types may be converted: {go_type_name(t)}")

        kinds = self._type_to_gvk.get(t)
        if not kinds:
            raise NotRegisteredError(self._name, type=t)

        gvk = target.kind_for_group_version_kinds(kinds)
        if gvk is None:
            unversioned = self._unversioned_types.get(t)
            if unversioned is not None:
                return _copy_and_set_target_kind(copy, obj, self._unversioned_target(unversioned, target))
            raise NotRegisteredError(self._name, type=t, target=target)

        if gvk in kinds:
            return _copy_and_set_target_kind(copy, obj, gvk)

        unversioned = self._unversioned_types.get(t)
        if unversioned is not None:
            return _copy_and_set_target_kind(copy, obj, self._unversioned_target(unversioned, target))

        out = self.new(gvk)
        if copy:
            obj = obj.deep_copy()
        self._converter.convert(obj, out, Meta(target))
        _set_target_kind(out, gvk)
        return out

    @staticmethod
    def _unversioned_target(unversioned: GroupVersionKind, target: Any) -> GroupVersionKind:
        picked = target.kind_for_group_version_kinds([unversioned])
        return unversioned if picked is None else picked

    def _unstructured_to_typed(self, u: Any) -> Any:
        kinds, _ = self.object_kinds(u)
        gvk = kinds[0]
        cls = self._type_for(gvk)
        try:
            return _from_unstructured(cls, u.unstructured_content())
        except (KCodecError, TypeError, ValueError) as exc:
            raise DecodeError(f"unable to convert unstructured object to {gvk}: {exc}") from exc

    # -- OpenAPI names ------------------------------------------------------------------------

    def to_openapi_definition_name(self, gvk: GroupVersionKind) -> str:
        """The OpenAPI definition name of a registered kind (Go: k8s.io/apimachinery/pkg/runtime/scheme.go (ToOpenAPIDefinitionName)).

        A class with ``openapi_model_name()`` names itself; a kind registered as an
        unstructured class is ``<reversed group>.<version>.<kind>``; other classes use the Go
        package path they mirror (``kcodec.api.core.v1.Pod`` -> ``io.k8s.api.core.v1.Pod``,
        ``kcodec.api.meta.v1`` -> ``io.k8s.apimachinery.pkg.apis.meta.v1``).
        """
        if not gvk.version:
            raise KCodecError(f"version is required on all types: {gvk}")
        example = self.new(gvk)
        namer = getattr(example, "openapi_model_name", None)
        if callable(namer):
            return str(namer())
        if _is_unstructured_type(type(example)):
            if not gvk.group or not gvk.kind:
                raise KCodecError(
                    "unable to convert GroupVersionKind with empty fields to unstructured type "
                    f"to an OpenAPI definition name: {gvk}"
                )
            return ".".join(reversed(gvk.group.split("."))) + "." + gvk.version + "." + gvk.kind
        cls = type(example)
        module = cls.__module__
        if module.startswith("kcodec.api.meta."):
            module = "io.k8s.apimachinery.pkg.apis.meta." + module[len("kcodec.api.meta."):]
        elif module.startswith("kcodec.api."):
            module = "io.k8s.api." + module[len("kcodec.api."):]
        return f"{module}.{cls.__qualname__}"

    # -- version priority -------------------------------------------------------------------

    def set_version_priority(self, *versions: GroupVersion) -> None:
        """Set the priority order of one group's versions (replacing any earlier order)."""
        groups: set[str] = set()
        order: list[str] = []
        for gv in versions:
            if not gv.version or gv.version == APIVersionInternal:
                raise KCodecError(f"internal versions cannot be prioritized: {gv}")
            groups.add(gv.group)
            order.append(gv.version)
        if len(groups) != 1:
            raise KCodecError(
                "must register versions for exactly one group: " + ", ".join(sorted(groups))
            )
        self._version_priority[next(iter(groups))] = order

    def prioritized_versions_for_group(self, group: str) -> list[GroupVersion]:
        """Prioritized versions of ``group`` first, then its other observed versions in
        registration order."""
        ret = [GroupVersion(group, v) for v in self._version_priority.get(group, ())]
        for gv in self._observed:
            if gv.group == group and gv not in ret:
                ret.append(gv)
        return ret

    def prioritized_versions_all_groups(self) -> list[GroupVersion]:
        """Every known version; within a group, in priority order."""
        ret = [GroupVersion(g, v) for g, vs in self._version_priority.items() for v in vs]
        for gv in self._observed:
            if gv not in ret:
                ret.append(gv)
        return ret

    def preferred_versions_all_groups(self) -> list[GroupVersion]:
        """The most preferred version of every group."""
        ret = [GroupVersion(g, vs[0]) for g, vs in self._version_priority.items() if vs]
        groups = {gv.group for gv in ret}
        for gv in self._observed:
            if gv.group not in groups:
                groups.add(gv.group)
                ret.append(gv)
        return ret

    def is_group_registered(self, group: str) -> bool:
        """True when a non-internal version of ``group`` has been registered."""
        return any(gv.group == group for gv in self._observed)

    def is_version_registered(self, gv: GroupVersion) -> bool:
        """True when ``gv`` (a non-internal version) has been registered."""
        return gv in self._observed


def _go_value_type(obj: Any) -> str:
    """Go's ``%T`` of a value: ``*v1.Pod`` for objects, ``int`` for built-ins, ``<nil>``."""
    if obj is None:
        return "<nil>"
    if isinstance(obj, type):
        return _ptr_name(obj)
    if _is_builtin_value(obj):
        return go_type_name(obj)
    return _ptr_name(type(obj))


def _set_target_kind(obj: Any, gvk: GroupVersionKind) -> None:
    if gvk.version == APIVersionInternal:
        obj.get_object_kind().set_group_version_kind(_EMPTY_GVK)
    else:
        obj.get_object_kind().set_group_version_kind(gvk)


def _copy_and_set_target_kind(copy: bool, obj: Any, gvk: GroupVersionKind) -> Any:
    if copy:
        obj = obj.deep_copy()
    _set_target_kind(obj, gvk)
    return obj


class SchemeBuilder:
    """An ordered collection of ``fn(scheme)`` registration functions (Go's SchemeBuilder).

    ``SchemeBuilder(add_known_types, add_defaults).add_to_scheme(scheme)`` runs them in order;
    the first exception stops it.
    """

    __slots__ = ("_funcs",)

    def __init__(self, *funcs: Callable[[Scheme], Any]) -> None:
        self._funcs: list[Callable[[Scheme], Any]] = list(funcs)

    def register(self, *funcs: Callable[[Scheme], Any]) -> None:
        """Append registration functions."""
        self._funcs.extend(funcs)

    def add_to_scheme(self, scheme: Scheme) -> None:
        """Apply every registered function to ``scheme``."""
        for fn in self._funcs:
            fn(scheme)

    def __len__(self) -> int:
        return len(self._funcs)

    def __iter__(self) -> Iterator[Callable[[Scheme], Any]]:
        return iter(self._funcs)

    def __repr__(self) -> str:
        return f"SchemeBuilder({len(self._funcs)} funcs)"



#: ``fn(gvk | type | group) -> the units that register it``; None when only every unit can say.
UnitsFor = Callable[[Any], "Sequence[str] | None"]


class LazyScheme(Scheme):
    """A Scheme filled in parts ("units": a group/version module, an API package...) as the
    first lookup that needs each part arrives, so that a process using a few kinds builds
    only those (Go builds its schemes whole at start-up: a Go binary pays no import time).

    ``units`` lists every unit in the order an eager build installs them;
    ``load_unit(scheme, unit)`` registers one (it may call :meth:`load_units` for the units
    it depends on first). ``units_for_gvk``, ``units_for_type`` and ``units_for_group`` say
    which units register a kind, a class or a group (None: only loading everything can
    tell). A lookup by kind, class or group loads those units, and everything when they do
    not register what was asked for (an unknown kind's error then names the whole scheme).
    Any other query (listing, all-group priorities...) loads every unit first.

    Defaulting and conversion need the units of the object (and of the target group):
    with ``partial_conversion=True`` only those are loaded, which is right when each unit
    holds whole groups and brings the conversion functions of its kinds and of everything
    they embed (a ``load_unit`` that loads its dependencies first); otherwise they load
    everything, as do the group queries whose answer is in registration order.

    Once every unit is loaded, the registrations are put in the order an eager build makes
    them, so every answer, order included, is that of a scheme built eagerly. Thread-safe:
    loading holds a re-entrant lock.
    """

    __slots__ = (
        "_units", "_pending", "_loading", "_events", "_recording", "_load_unit",
        "_units_for_gvk", "_units_for_type", "_units_for_group", "_partial_conversion",
    )

    def __init__(
        self,
        name: str,
        units: Sequence[str],
        load_unit: Callable[[Scheme, str], None],
        *,
        units_for_gvk: UnitsFor,
        units_for_type: UnitsFor,
        units_for_group: UnitsFor,
        partial_conversion: bool = False,
    ) -> None:
        super().__init__(name)
        self._units = tuple(units)
        self._pending = set(self._units)
        self._loading = threading.RLock()
        self._load_unit = load_unit
        self._units_for_gvk = units_for_gvk
        self._units_for_type = units_for_type
        self._units_for_group = units_for_group
        self._partial_conversion = partial_conversion
        # unit -> what its registration added, in order (for _settle)
        self._events: dict[str, list[tuple[Any, Any]]] = {}
        self._recording: list[tuple[Any, Any]] | None = None

    def __repr__(self) -> str:
        loaded = len(self._units) - len(self._pending)
        return f"LazyScheme(name={self._name!r}, units={loaded}/{len(self._units)} loaded)"

    # -- loading ----------------------------------------------------------------------------

    def pending_units(self) -> list[str]:
        """The units not loaded yet, in eager order."""
        return [u for u in self._units if u in self._pending]

    def _add_observed_version(self, gv: GroupVersion) -> None:
        if self._recording is not None:
            self._recording.append((None, gv))
        super()._add_observed_version(gv)

    def add_known_type_with_name(self, gvk: GroupVersionKind, t: Any) -> None:
        if self._recording is not None:
            self._recording.append((self._struct_class(t), gvk))
        super().add_known_type_with_name(gvk, t)

    def load_units(self, *units: str) -> None:
        """Register ``units`` now (those already loaded are skipped)."""
        for unit in units:
            self._load(unit)

    def _load(self, unit: str) -> None:
        with self._loading:
            if unit not in self._pending:
                return
            self._pending.discard(unit)
            outer = self._recording
            self._recording = self._events.setdefault(unit, [])
            try:
                self._load_unit(self, unit)
            finally:
                self._recording = outer
            if not self._pending and outer is None:
                self._settle()

    def load_all(self) -> None:
        """Register every unit not loaded yet."""
        if self._pending:
            with self._loading:
                for unit in self.pending_units():
                    self._load(unit)
                if self._events and self._recording is None:
                    self._settle()

    def _settle(self) -> None:
        """Put the registrations in the order an eager build makes them."""
        observed: list[Any] = []
        kinds: dict[type, list[Any]] = {}
        order: list[Any] = []
        for unit in self._units:
            for cls, item in self._events.get(unit, ()):
                if cls is None:
                    if item in self._observed and item not in observed:
                        observed.append(item)
                    continue
                row = kinds.setdefault(cls, [])
                if item not in row:
                    row.append(item)
                order.append(item)
        self._observed[:] = observed + [gv for gv in self._observed if gv not in observed]
        for cls, row in kinds.items():
            current = self._type_to_gvk.get(cls, [])
            current[:] = row + [gvk for gvk in current if gvk not in row]
        for table in (self._gvk_to_type, self._gvk_to_new):
            items = dict(table)
            table.clear()
            for gvk in order:
                if gvk in items and gvk not in table:
                    table[gvk] = items[gvk]
            table.update(items)
        self._events.clear()

    def _load_for(self, units: Sequence[str] | None, known: Callable[[], bool]) -> None:
        if units:
            for unit in units:
                self._load(unit)
        if not known():
            self.load_all()

    def _for_gvk(self, gvk: GroupVersionKind) -> None:
        if not self._pending or gvk in self._gvk_to_new:
            return
        self._load_for(self._units_for_gvk(gvk), lambda: gvk in self._gvk_to_new)

    def _for_type(self, t: type) -> None:
        if not self._pending or t in self._type_to_gvk or t in self._unversioned_types:
            return
        self._load_for(self._units_for_type(t),
                       lambda: t in self._type_to_gvk or t in self._unversioned_types)

    def _for_object(self, obj: Any) -> None:
        if self._pending and obj is not None and not is_unstructured(obj):
            self._for_type(type(obj))

    def _for_group(self, group: str) -> None:
        if self._pending:
            self._load_for(self._units_for_group(group), lambda: True)

    def _for_target(self, target: Any) -> None:
        """The units a conversion to ``target`` (a group versioner) may create objects of."""
        from kcodec.schema import DisabledGroupVersioner, GroupVersions, InternalGroupVersioner

        if not self._pending or isinstance(target, (InternalGroupVersioner, DisabledGroupVersioner)):
            return
        if isinstance(target, GroupVersion):
            self._for_group(target.group)
        elif isinstance(target, GroupVersions):
            for gv in target:
                self._for_group(gv.group)
        else:
            self.load_all()

    # -- lookups by kind, class or group ----------------------------------------------------

    def new(self, gvk: GroupVersionKind) -> Any:
        self._for_gvk(gvk)
        return super().new(gvk)

    def recognizes(self, gvk: GroupVersionKind) -> bool:
        self._for_gvk(gvk)
        return super().recognizes(gvk)

    def _type_for(self, gvk: GroupVersionKind) -> type:
        self._for_gvk(gvk)
        return super()._type_for(gvk)

    def object_kinds(self, obj: Any) -> tuple[list[GroupVersionKind], bool]:
        self._for_object(obj)
        return super().object_kinds(obj)

    def is_unversioned(self, obj: Any) -> tuple[bool, bool]:
        self._for_object(obj)
        return super().is_unversioned(obj)

    def _for_group_in_order(self, group: str) -> None:
        # An answer whose order is the registration order: exact after loading the group
        # only when a unit holds a whole group (partial_conversion), else after settling.
        if self._partial_conversion:
            self._for_group(group)
        else:
            self.load_all()

    def known_types(self, gv: GroupVersion) -> dict[str, type]:
        self._for_group_in_order(gv.group)
        return super().known_types(gv)

    def versions_for_group_kind(self, gk: GroupKind) -> list[GroupVersion]:
        self._for_group_in_order(gk.group)
        return super().versions_for_group_kind(gk)

    def prioritized_versions_for_group(self, group: str) -> list[GroupVersion]:
        self._for_group_in_order(group)
        return super().prioritized_versions_for_group(group)

    def is_group_registered(self, group: str) -> bool:
        self._for_group(group)
        return super().is_group_registered(group)

    def is_version_registered(self, gv: GroupVersion) -> bool:
        self._for_group(gv.group)
        return super().is_version_registered(gv)

    # -- defaulting and conversion ------------------------------------------------------------

    @property
    def converter(self) -> Converter:
        """The converter; with every unit's conversion functions unless conversions are
        partial (then a conversion loads the units of what it converts)."""
        if not self._partial_conversion:
            self.load_all()
        return self._converter

    def _for_conversion(self, *objs: Any) -> None:
        if not self._pending:
            return
        if not self._partial_conversion:
            self.load_all()
            return
        for obj in objs:
            self._for_object(obj)

    def default(self, obj: Any) -> None:
        self._for_conversion(obj)
        super().default(obj)


    def convert(self, src: Any, dst: Any, context: Any = None) -> None:
        self._for_conversion(src, dst)
        super().convert(src, dst, context)

    def convert_to_version(self, obj: Any, target: Any) -> Any:
        return self._convert_to_version(True, obj, target)

    def unsafe_convert_to_version(self, obj: Any, target: Any) -> Any:
        return self._convert_to_version(False, obj, target)

    def _convert_to_version(self, copy: bool, obj: Any, target: Any) -> Any:
        if is_unstructured(obj):
            # its class says nothing: its apiVersion and kind do (and then its typed class)
            self._for_gvk(obj.get_object_kind().group_version_kind())
        self._for_conversion(obj)
        if self._partial_conversion:
            self._for_target(target)
        return super()._convert_to_version(copy, obj, target)

    def convert_field_label(self, gvk: GroupVersionKind, label: str, value: str) -> tuple[str, str]:
        if self._partial_conversion:
            self._for_gvk(gvk)
        else:
            self.load_all()
        return super().convert_field_label(gvk, label, value)

    for _method in (default, convert, convert_to_version, unsafe_convert_to_version, convert_field_label,
                    new, recognizes, object_kinds, is_unversioned, known_types, versions_for_group_kind,
                    prioritized_versions_for_group, is_group_registered, is_version_registered):
        _method.__doc__ = getattr(Scheme, _method.__name__).__doc__
    del _method


def _loading_all(fn: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: LazyScheme, *args: Any, **kwargs: Any) -> Any:
        self.load_all()
        return fn(self, *args, **kwargs)

    method.__name__ = fn.__name__
    method.__qualname__ = f"LazyScheme.{fn.__name__}"
    method.__doc__ = fn.__doc__
    return method


# Every other query needs the whole registry; registration methods (add_*, set_*) are what
# loading calls, so they stay as they are.
for _name, _fn in list(vars(Scheme).items()):
    if (_name.startswith("_") or _name.startswith(("add_", "set_")) or _name in vars(LazyScheme)
            or not callable(_fn) or isinstance(_fn, (staticmethod, classmethod))):
        continue
    setattr(LazyScheme, _name, _loading_all(_fn))
del _name, _fn
