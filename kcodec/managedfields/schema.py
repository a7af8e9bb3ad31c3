"""Schemas for server-side apply: sigs.k8s.io/structured-merge-diff v6 ``schema``, built from
kcodec's models as kube-apiserver builds it from their OpenAPI (k8s.io/kube-openapi
``pkg/schemaconv``).

An :class:`Atom` is a scalar, a list or a map (a struct is a map with named fields). What
Go's OpenAPI extensions say, the models' recorded tags say here
(:meth:`kcodec.fieldtable.FieldInfo.list_type` and friends): ``+listType=atomic|set|map``
with ``+listMapKey``, else ``patchStrategy=merge`` (with ``patchMergeKey``: keyed, without:
a set), else atomic (``getListElementRelationship``); ``+mapType``/``+structType=atomic``
make a map or struct one leaf. A type reference is a named type (``str``) or an inline
:class:`Atom`; ``""`` (Go's empty TypeRef) is the element type of a struct, whose
undeclared fields have no type.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from kcodec._kinds import (K_ANY, K_BOOL, K_BYTES, K_CUSTOM, K_FLOAT, K_INT32, K_INT64, K_LIST, K_MAP,
                           K_STR, K_STRUCT)
from kcodec.fieldtable import FieldInfo, TypeInfo, fields_of, struct_type_of

__all__ = ["Atom", "ListType", "MapType", "StructField", "Schema", "ModelSchema", "ATOMIC", "ASSOCIATIVE",
           "SEPARABLE", "UNTYPED_ATOMIC", "DEDUCED"]

ATOMIC = "atomic"
ASSOCIATIVE = "associative"
SEPARABLE = "separable"

#: kube-openapi's ``__untyped_atomic_`` and ``__untyped_deduced_`` type names.
UNTYPED_ATOMIC = "__untyped_atomic_"
DEDUCED = "__untyped_deduced_"


class StructField(NamedTuple):
    name: str
    type: Any
    default: Any = None


class ListType(NamedTuple):
    element_type: Any
    relationship: str = ATOMIC
    keys: tuple[str, ...] = ()


class MapType:
    """A map or struct: named ``fields`` and the ``element_type`` of any other key."""

    # smd_plan: what the structured-merge-diff kernels (kcodec._native.smd) precompute for
    # this type in one schema, kept for every later walk of it.
    __slots__ = ("fields", "element_type", "relationship", "smd_plan")

    def __init__(self, fields: Mapping[str, StructField] | None = None, element_type: Any = "",
                 relationship: str = "") -> None:
        self.fields = dict(fields or {})
        self.element_type = element_type
        self.relationship = relationship
        self.smd_plan: Any = None

    def find_field(self, name: str) -> StructField | None:
        return self.fields.get(name)

    def __getstate__(self) -> tuple[Any, Any, str]:
        # A copy or pickle leaves the plan behind: the copy makes its own on first walk.
        return self.fields, self.element_type, self.relationship

    def __setstate__(self, state: tuple[Any, Any, str]) -> None:
        self.fields, self.element_type, self.relationship = state
        self.smd_plan = None

    def __repr__(self) -> str:
        return f"MapType({sorted(self.fields)}, relationship={self.relationship!r})"


class Atom(NamedTuple):
    scalar: str | None = None
    list: ListType | None = None
    map: MapType | None = None


def _smd_type_ref(tr: Mapping[str, Any] | None) -> Any:
    if not tr:
        return ""
    if "namedType" in tr:
        return tr["namedType"]
    return _smd_atom(tr)


def _smd_atom(t: Mapping[str, Any]) -> Atom:
    lst = t.get("list")
    mp = t.get("map")
    return Atom(
        scalar=t.get("scalar"),
        list=None if lst is None else ListType(_smd_type_ref(lst.get("elementType")),
                                               lst.get("elementRelationship") or ATOMIC, tuple(lst.get("keys") or ())),
        map=None if mp is None else MapType(
            {f["name"]: StructField(f["name"], _smd_type_ref(f.get("type")), f.get("default"))
             for f in mp.get("fields") or []},
            _smd_type_ref(mp.get("elementType")), mp.get("elementRelationship") or ""),
    )


_UNTYPED_ATOMIC = Atom(scalar="untyped", list=ListType(UNTYPED_ATOMIC, ATOMIC),
                       map=MapType(element_type=UNTYPED_ATOMIC, relationship=ATOMIC))
_DEDUCED = Atom(scalar="untyped", list=ListType(UNTYPED_ATOMIC, ATOMIC),
                map=MapType(element_type=DEDUCED, relationship=SEPARABLE))


class Schema:
    """Named types and their resolution (Go's ``schema.Schema.Resolve``)."""

    def __init__(self) -> None:
        self.types: dict[str, Atom] = {UNTYPED_ATOMIC: _UNTYPED_ATOMIC, DEDUCED: _DEDUCED}

    @classmethod
    def from_smd(cls, tree: Mapping[str, Any]) -> Schema:
        """A schema written in structured-merge-diff's own YAML form (``types:`` with
        ``map``/``list``/``scalar`` atoms and ``namedType`` references; schema/elements.go),
        as SMD's tests and ``smd`` tool write them."""
        out = cls()
        for t in tree.get("types") or []:
            out.types[t["name"]] = _smd_atom(t)
        return out

    def resolve(self, type_ref: Any) -> Atom | None:
        if type_ref.__class__ is Atom:
            return type_ref
        if not type_ref:
            return None  # Go's empty TypeRef: a struct's undeclared field
        if isinstance(type_ref, Atom):
            return type_ref
        return self.types.get(type_ref)


#: Defaults of list-map key fields (Go's ``+default`` markers in k8s.io/api core/v1 types.go);
#: SMD fills a missing key from the schema's default (typed/helpers.go getAssociativeKeyDefault).
_KEY_DEFAULTS: dict[tuple[str, str], Any] = {
    ("ContainerPort", "protocol"): "TCP",
    ("ServicePort", "protocol"): "TCP",
    ("LocalObjectReference", "name"): "",
}

# Go types that kube-openapi gives a string format (int-or-string, date-time, quantity):
# SMD's "untyped" scalar. Every other custom value holds arbitrary JSON: deduced.
_UNTYPED_SCALARS = frozenset({"Quantity", "IntOrString", "Time", "MicroTime", "Duration"})


class ModelSchema(Schema):
    """The schema of kcodec model classes, built type by type on first use."""

    def __init__(self) -> None:
        super().__init__()
        self._classes: dict[str, Any] = {}

    def type_ref_for(self, cls: Any) -> str:
        """The named type of a model class (registering it)."""
        name = f"{cls.__module__}.{cls.__qualname__}"
        if name not in self._classes:
            self._classes[name] = cls
        return name

    def resolve(self, type_ref: Any) -> Atom | None:
        # Called for every value of every walk: the resolved and inline cases come first.
        if type_ref.__class__ is Atom:
            return type_ref
        atom = self.types.get(type_ref) if type_ref.__class__ is str else None
        if atom is not None:
            return atom
        if isinstance(type_ref, str) and type_ref not in self.types:
            cls = self._classes.get(type_ref)
            if cls is None:
                return None
            self.types[type_ref] = Atom(map=MapType())  # a placeholder while recursive types resolve
            self.types[type_ref] = Atom(map=self._struct_map(cls, struct_type_of(cls) == "atomic"))
        return super().resolve(type_ref)

    def _struct_map(self, cls: Any, atomic: bool) -> MapType:
        fields: dict[str, StructField] = {}
        self._collect(cls, fields)
        return MapType(fields, relationship=ATOMIC if atomic else "")

    def _collect(self, cls: Any, fields: dict[str, StructField]) -> None:
        for f in fields_of(cls):
            if f.inline and f.kind == K_STRUCT:
                self._collect(f.cls, fields)
                continue
            if f.json in ("-", ""):
                continue
            fields[f.json] = StructField(f.json, self._field_type(f), _KEY_DEFAULTS.get((cls.__name__, f.json)))

    def _field_type(self, f: FieldInfo) -> Any:
        if f.kind == K_LIST:
            return Atom(list=ListType(self._type(f.elem), *_list_relationship(f)))  # type: ignore[arg-type]
        if f.kind == K_MAP:
            rel = {"atomic": ATOMIC, "granular": SEPARABLE}.get(f.map_type, "")
            return Atom(map=MapType(element_type=self._type(f.elem), relationship=rel))  # type: ignore[arg-type]
        if f.kind == K_STRUCT and (f.struct_type == "atomic" or f.map_type == "atomic"):
            name = self.type_ref_for(f.cls)
            atom = self.resolve(name)
            return Atom(map=MapType(atom.map.fields if atom and atom.map else {}, relationship=ATOMIC))
        return self._type(f)

    def _type(self, t: TypeInfo) -> Any:
        k = t.kind
        if k in (K_STR, K_BYTES):
            return Atom(scalar="string")
        if k == K_BOOL:
            return Atom(scalar="boolean")
        if k in (K_INT32, K_INT64, K_FLOAT):
            return Atom(scalar="numeric")
        if k == K_STRUCT:
            return self.type_ref_for(t.cls)
        if k == K_CUSTOM:
            return Atom(scalar="untyped") if t.cls.__name__ in _UNTYPED_SCALARS else DEDUCED
        if k == K_LIST:
            return Atom(list=ListType(self._type(t.elem), ATOMIC))  # type: ignore[arg-type]
        if k == K_MAP:
            return Atom(map=MapType(element_type=self._type(t.elem)))  # type: ignore[arg-type]
        if k == K_ANY:
            return DEDUCED
        return DEDUCED


def _list_relationship(f: FieldInfo) -> tuple[str, tuple[str, ...]]:
    # kube-openapi schemaconv getListElementRelationship
    list_type = f.list_type
    if list_type:
        if list_type == "atomic":
            return ATOMIC, ()
        if list_type == "set":
            return ASSOCIATIVE, ()
        if list_type == "map":
            return ASSOCIATIVE, tuple(f.list_map_keys)
        return ATOMIC, ()
    strategy = f.patch_strategy
    if strategy in ("merge", "merge,retainKeys"):
        key = f.patch_merge_key
        return ASSOCIATIVE, ((key,) if key else ())
    return ATOMIC, ()


_DEFAULT_SCHEMA: ModelSchema | None = None


def model_schema() -> ModelSchema:
    """The process-wide schema of kcodec's models."""
    global _DEFAULT_SCHEMA
    if _DEFAULT_SCHEMA is None:
        _DEFAULT_SCHEMA = ModelSchema()
    return _DEFAULT_SCHEMA


def _openapi_list(s: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    # kube-openapi schemaconv getListElementRelationship, over a CRD schema's extensions
    list_type = s.get("x-kubernetes-list-type")
    if list_type == "set":
        return ASSOCIATIVE, ()
    if list_type == "map":
        return ASSOCIATIVE, tuple(s.get("x-kubernetes-list-map-keys") or ())
    return ATOMIC, ()


def openapi_type(s: Mapping[str, Any] | None) -> Any:
    """The SMD type of a structural schema (a CRD's ``openAPIV3Schema`` as a JSON tree), as
    kube-openapi ``schemaconv`` converts what apiextensions-apiserver publishes for it."""
    if not isinstance(s, Mapping):
        return DEDUCED
    if s.get("x-kubernetes-int-or-string"):
        return Atom(scalar="untyped")
    t = s.get("type")
    props = s.get("properties")
    if t == "object" or (t is None and (props or s.get("additionalProperties"))):
        fields = {name: StructField(name, openapi_type(sub), sub.get("default") if isinstance(sub, Mapping) else None)
                  for name, sub in (props or {}).items()}
        extra = s.get("additionalProperties")
        if isinstance(extra, Mapping):
            elem: Any = openapi_type(extra)
        elif extra is True or s.get("x-kubernetes-preserve-unknown-fields"):
            elem = DEDUCED
        else:
            elem = ""
        rel = {"atomic": ATOMIC, "granular": SEPARABLE}.get(s.get("x-kubernetes-map-type", ""), "")
        return Atom(map=MapType(fields, elem, rel))
    if t == "array":
        return Atom(list=ListType(openapi_type(s.get("items")), *_openapi_list(s)))
    if t in ("integer", "number"):
        return Atom(scalar="numeric")
    if t == "boolean":
        return Atom(scalar="boolean")
    if t == "string":
        return Atom(scalar="string" if s.get("format", "") in ("", "byte") else "untyped")
    return DEDUCED


def custom_resource_type(schema: ModelSchema, openapi_v3: Mapping[str, Any] | None) -> Atom:
    """The type of a custom resource: its CRD version's schema, with ``apiVersion``, ``kind``
    and ``metadata`` (ObjectMeta) as apiextensions-apiserver adds them to what it publishes."""
    from kcodec.api.meta.v1 import ObjectMeta

    root = openapi_type(openapi_v3 or {"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    base = root.map if isinstance(root, Atom) and root.map is not None else MapType(element_type=DEDUCED)
    fields = dict(base.fields)
    fields["apiVersion"] = StructField("apiVersion", Atom(scalar="string"))
    fields["kind"] = StructField("kind", Atom(scalar="string"))
    fields["metadata"] = StructField("metadata", schema.type_ref_for(ObjectMeta))
    return Atom(map=MapType(fields, base.element_type, base.relationship))
