"""Pure-Python structured-merge-diff walks: the twins of ``kcodec/_speedups/_smd.pyx``.

sigs.k8s.io/structured-merge-diff v6 ``typed`` (``validate.go``, ``tofieldset.go``,
``merge.go``, ``compare.go``, ``remove.go``, ``helpers.go``), ``value`` (``Equals``) and
``fieldpath`` (``serialize.go``, ``set.go``: set algebra, EnsureNamedFieldsAreMembers) over
JSON trees. :mod:`kcodec.managedfields` wraps them; it sits
above these kernels, so its classes arrive through :func:`bind_fieldpath` and its schema
objects are read by duck typing: an atom is a ``(scalar, list, map)`` tuple, a list type
``(element_type, relationship, keys)``, a struct field ``(name, type, default)``, a map type
has ``fields``, ``element_type``, ``relationship`` and a ``smd_plan`` slot where the walks
keep what they precompute for it.

Errors are ``(path, message)`` pairs in Go's order, with Go's texts; the wrappers in
:mod:`kcodec.managedfields.typed` raise them.
"""
from __future__ import annotations

import json as _json
import operator
from types import SimpleNamespace
from typing import Any

from kcodec.errors import KCodecError
from kcodec.gojson import dumps as _go_dumps

__all__ = ["smd_validate", "smd_to_field_set", "smd_merge", "smd_list_item_pe", "smd_set_tree",
           "smd_set_from_tree", "smd_ensure_named_fields", "smd_set_empty", "smd_set_difference",
           "smd_set_recursive_difference", "smd_set_intersection", "smd_equals", "smd_compare",
           "smd_remove"]

#: What kcodec.managedfields hands over once (see :func:`bind_fieldpath`).
_fp = SimpleNamespace(PathElement=None, Set=None, Atom=None, atomic="atomic", associative="associative",
                      path_error=None)

#: Go's nil value.Value (a missing side of a merge), distinct from JSON null (None).
ABSENT = object()

# The dispatch of an atom on a value (helpers.go deduceAtom, then the walkers' map, scalar,
# list order).
_MAP, _SCALAR, _LIST = 1, 2, 3

# Classes of plain JSON scalars as bits; a plan's mask holds the bits its scalar type accepts
# without an error (validate.go validateScalar). Null is valid for every scalar type.
_BITS: dict[type, int] = {str: 1, int: 2, float: 4, bool: 8, type(None): 16}
_MASKS = {"numeric": 2 | 4 | 16, "string": 1 | 16, "boolean": 8 | 16, "untyped": 1 | 2 | 4 | 8 | 16}

_ORDER = operator.attrgetter("_key")


def bind_fieldpath(*, path_element: Any, set_cls: Any, atom: Any, atomic: str, associative: str,
                   path_error: Any) -> None:
    """Receive the classes of kcodec.managedfields (called through kcodec.speedups when it
    is imported): ``PathElement``, ``Set``, the ``Atom`` tuple class, the relationship
    constants and ``FieldPathError``."""
    _fp.path_error = path_error
    _fp.PathElement = path_element
    _fp.Set = set_cls
    _fp.Atom = atom
    _fp.atomic = atomic
    _fp.associative = associative
    _ITEM_PES.clear()


# ------------------------------------------------------------------ shared helpers

def _new_set() -> Any:
    cls = _fp.Set
    if cls is None:
        raise RuntimeError("the structured-merge-diff kernels have no Set class yet: "
                           "kcodec.managedfields hands it over when imported (speedups.bind_fieldpath)")
    out = cls.__new__(cls)
    out.members = set()
    out.children = {}
    return out


def _resolve(schema: Any, type_ref: Any) -> Any:
    if type_ref.__class__ is _fp.Atom:
        return type_ref
    return schema.resolve(type_ref)


def _no_type(type_ref: Any) -> list[tuple[str, str]]:
    name = type_ref if isinstance(type_ref, str) and type_ref else "inlined type"
    return [("", f"schema error: no type found matching: {name}")]


def _invalid_atom(type_ref: Any) -> list[tuple[str, str]]:
    name = f"named type: {type_ref}" if isinstance(type_ref, str) else "inlined"
    return [("", f"schema error: invalid atom: {name}")]


def _deduced(atom: Any, v: Any) -> int:
    """helpers.go deduceAtom as a code: 0 keeps the whole atom, else the one kind chosen.
    Two deduced atoms are equal exactly when their codes are."""
    scalar, lt, m = atom[0], atom[1], atom[2]
    if v is ABSENT or v is None or (scalar is None) + (lt is None) + (m is None) >= 2:
        return 0
    if isinstance(v, (bool, int, float, str)):
        return _SCALAR if scalar is not None else 0
    if isinstance(v, list):
        return _LIST if lt is not None else 0
    if isinstance(v, dict):
        return _MAP if m is not None else 0
    return 0


def _kind(atom: Any, code: int) -> int:
    if code:
        return code
    if atom[2] is not None:
        return _MAP
    if atom[0] is not None:
        return _SCALAR
    if atom[1] is not None:
        return _LIST
    return 0


def _mask(atom: Any) -> int:
    """The bits a plain scalar type accepts (0 when ``atom`` is not only a scalar)."""
    if atom is None or atom[2] is not None or atom[1] is not None or atom[0] is None:
        return 0
    return _MASKS.get(atom[0], 0)


def _plan(schema: Any, m: Any) -> tuple[Any, ...]:
    """What the walks need of map type ``m`` in ``schema``, built once and kept on it:
    ``(schema, entries, elem, atomic, has_element_type)``; an entry is
    ``(type_ref, atom or None, scalar mask, declared, field path element or None)``, with
    ``entries`` for the declared fields and ``elem`` for any other key."""
    plan = getattr(m, "smd_plan", None)
    if plan.__class__ is tuple and plan[0] is schema:
        return plan
    field_pe = _fp.PathElement.field
    entries = {}
    for key, field in m.fields.items():
        tr = field[1]
        atom = _resolve(schema, tr)
        entries[key] = (tr, atom, _mask(atom), True, field_pe(key))
    et = m.element_type
    eatom = _resolve(schema, et) if et else None
    plan = (schema, entries, (et, eatom, _mask(eatom), False, None), m.relationship == _fp.atomic, bool(et))
    try:
        m.smd_plan = plan
    except AttributeError:
        pass  # a map type without the slot: the plan is rebuilt on every visit
    return plan


def _go_v(v: Any) -> str:
    # fmt's %v of a value.Value: JSON-ish is close enough for the error texts SMD gives.
    return _go_dumps(v, sort_keys=True).decode("utf-8") if not isinstance(v, str) else v


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


def _validate_scalar(scalar: str, v: Any, prefix: str) -> list[tuple[str, str]]:
    # validate.go validateScalar
    if v is ABSENT or v is None:
        return []
    if scalar == "numeric":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return [("", f"{prefix}expected numeric (int or float), got {_go_type(v)}")]
    elif scalar == "string":
        if not isinstance(v, str):
            return [("", f"{prefix}expected string, got {_go_v(v)}")]
    elif scalar == "boolean":
        if not isinstance(v, bool):
            return [("", f"{prefix}expected boolean, got {_go_v(v)}")]
    elif scalar == "untyped":
        if not isinstance(v, (bool, int, float, str)):
            return [("", f"{prefix}expected any scalar, got {_go_v(v)}")]
    else:
        return [("", f"{prefix}unexpected scalar type in schema: {scalar}")]
    return []


def _prefixed(errs: list[tuple[str, str]], prefix: str) -> list[tuple[str, str]]:
    return [(prefix + p, m) for p, m in errs]


def smd_list_item_pe(schema: Any, lt: Any, child: Any) -> Any:
    """helpers.go listItemToPathElement; raises :class:`KCodecError` with Go's text."""
    if lt[1] != _fp.associative:
        raise KCodecError("invalid indexing of non-associative list")
    keys = lt[2]
    if keys:
        if child is None:
            raise KCodecError("associative list with keys may not have a null element")
        if not isinstance(child, dict):
            raise KCodecError("associative list with keys may not have non-map elements")
        fields = []
        ck: list[Any] | None = [keys]
        elem: Any = ABSENT
        for name in keys:
            if name in child:
                val = child[name]
                fields.append((name, val))
                if ck is not None and val.__class__ in _CACHEABLE:
                    ck += (val.__class__, val)
                else:
                    ck = None
            else:
                ck = None
                if elem is ABSENT:
                    elem = _resolve(schema, lt[0])
                if elem is None:
                    raise KCodecError(f"couldn't find default value for {name}: invalid elementType for list")
                if elem[2] is None:
                    raise KCodecError(f"couldn't find default value for {name}: associative list may not have "
                                      "non-map types")
                field = elem[2].find_field(name)
                if field is not None and field[2] is not None:
                    fields.append((name, field[2]))
        if not fields:
            text = "[" + " ".join(_go_dumps(k).decode() for k in keys) + "]"
            raise KCodecError(f"associative list with keys has an element that omits all key fields {text} "
                              "(and doesn't have default values for any key fields)")
        if ck is None:
            return _fp.PathElement.key(fields)
        key = tuple(ck)
        pe = _ITEM_PES.get(key)
        if pe is None:
            pe = _remember(key, _fp.PathElement.key(fields))
        return pe
    if isinstance(child, dict):
        raise KCodecError("associative list without keys has an element that's a map type")
    if isinstance(child, list):
        raise KCodecError("not supported: associative list with lists as elements")
    if child is None:
        raise KCodecError("associative list without keys has an element that's an explicit null")
    if child.__class__ not in _VALUE_CACHEABLE:
        return _fp.PathElement.value(child)
    key = (child.__class__, child)
    pe = _ITEM_PES.get(key)
    if pe is None:
        pe = _remember(key, _fp.PathElement.value(child))
    return pe


# List item path elements by their keys' names, classes and values: the items of one
# object's lists recur in every apply of it, and a path element is immutable. Floats are
# left out (-0.0 equals 0.0 but is written differently); emptied when full.
_ITEM_PES: dict[tuple[Any, ...], Any] = {}
_ITEM_PES_MAX = 8192
_CACHEABLE = frozenset({str, int, bool, type(None)})
_VALUE_CACHEABLE = frozenset({str, int, bool})


def _remember(key: tuple[Any, ...], pe: Any) -> Any:
    if len(_ITEM_PES) >= _ITEM_PES_MAX:
        _ITEM_PES.clear()
    _ITEM_PES[key] = pe
    return pe


def _try_pe(schema: Any, lt: Any, child: Any) -> Any:
    try:
        return smd_list_item_pe(schema, lt, child)
    except KCodecError:
        return None


# ------------------------------------------------------------------ validate (validate.go)

def smd_validate(schema: Any, type_ref: Any, value: Any, allow_duplicates: bool,
                 collect: bool) -> tuple[Any, Any]:
    """validate.go's walk of ``value``: ``(errors, field set)``. With ``collect`` the walk
    also builds what tofieldset.go gives for the value (None when there are errors, or
    without ``collect``)."""
    root = _new_set() if collect else None
    errs = _validate(schema, type_ref, value, allow_duplicates, root, None)
    if errs or root is None:
        return errs, None
    # The root's own path is empty (Go's Insert of it is a no-op): its children are the set.
    return errs, root.children.get(None) or _new_set()


def _validate(schema: Any, type_ref: Any, v: Any, dups: bool, parent: Any, pe: Any) -> list[tuple[str, str]]:
    atom = _resolve(schema, type_ref)
    if atom is None:
        return _no_type(type_ref)
    return _validate_atom(schema, atom, type_ref, v, dups, parent, pe)


def _validate_atom(schema: Any, atom: Any, type_ref: Any, v: Any, dups: bool, parent: Any,
                   pe: Any) -> list[tuple[str, str]]:
    # Also inserts into ``parent`` (under ``pe``) what tofieldset.go inserts; ``parent`` is
    # None below an atomic value (validated, but one leaf of the set) and for a plain
    # validate. Once there is an error the set is dropped, so only valid values need
    # tofieldset.go's exact rules. Error paths are prefixed on the way back up.
    kind = _kind(atom, _deduced(atom, v))
    if kind == _MAP:
        plan = _plan(schema, atom[2])
        atomic = plan[3]
        if parent is not None and atomic:
            parent.members.add(pe)
        if v is None:
            return []
        if not isinstance(v, dict):
            return [("", f"expected map, got {_go_v(v)}")]
        node = None if (parent is None or atomic) else _new_set()
        out: list[tuple[str, str]] = []
        entries = plan[1]
        elem = plan[2]
        field_pe = _fp.PathElement.field
        for key, val in v.items():
            e = entries.get(key)
            if e is None:
                if not plan[4]:
                    out.append(("." + key, "field not declared in schema"))
                    return out
                e = elem
                fpe = field_pe(key) if node is not None else None
            else:
                fpe = e[4]
            mask = e[2]
            if mask and _BITS.get(val.__class__, 0) & mask:
                if node is not None:
                    node.members.add(fpe)
                continue
            sub = (_validate_atom(schema, e[1], e[0], val, dups, node, fpe) if e[1] is not None
                   else _no_type(e[0]))
            if sub:
                out.extend(_prefixed(sub, "." + key))
            elif node is not None and (not e[3] or val is None or (isinstance(val, dict) and not val)):
                node.members.add(fpe)
        if node is not None and (node.members or node.children):
            parent.children[pe] = node
        return out
    if kind == _SCALAR:
        if parent is not None:
            parent.members.add(pe)
        return _validate_scalar(atom[0], v, "")
    if kind == _LIST:
        lt = atom[1]
        atomic = lt[1] == _fp.atomic
        if parent is not None and atomic:
            parent.members.add(pe)
        if v is None:
            return []
        if not isinstance(v, list):
            return [("", f"expected list, got {_go_v(v)}")]
        out = []
        element_type = lt[0]
        eatom = _resolve(schema, element_type)
        if lt[1] != _fp.associative:
            # Atomic: one leaf; separable without keys: tofieldset.go finds no element keys.
            for i, child in enumerate(v):
                sub = (_validate_atom(schema, eatom, element_type, child, dups, None, None) if eatom is not None
                       else _no_type(element_type))
                if sub:
                    out.extend(_prefixed(sub, f"[{i}]"))
            return out
        node = None if parent is None else _new_set()
        seen: set[Any] = set()
        for i, child in enumerate(v):
            try:
                ipe = smd_list_item_pe(schema, lt, child)
            except KCodecError as exc:
                out.append(("", f"element {i}: {exc}"))
                return out
            if ipe in seen and not dups:
                out.append(("", f"duplicate entries for key {ipe}"))
            seen.add(ipe)
            sub = (_validate_atom(schema, eatom, element_type, child, dups, node, ipe) if eatom is not None
                   else _no_type(element_type))
            if sub:
                out.extend(_prefixed(sub, str(ipe)))
            elif node is not None:
                node.members.add(ipe)
        if node is not None and (node.members or node.children):
            parent.children[pe] = node
        return out
    return _invalid_atom(type_ref)


# ------------------------------------------------------------------ to field set (tofieldset.go)

def smd_to_field_set(schema: Any, type_ref: Any, value: Any) -> Any:
    """tofieldset.go: every leaf field, list item and atomic value of ``value``."""
    out = _new_set()
    atom = _resolve(schema, type_ref)
    if atom is not None:
        # The root's own path is empty: inserting it is a no-op, so only its children count.
        kind = _kind(atom, _deduced(atom, value))
        if kind == _MAP:
            plan = _plan(schema, atom[2])
            if not plan[3] and isinstance(value, dict):
                _map_to_set(schema, plan, value, out)
        elif kind == _LIST:
            lt = atom[1]
            if lt[1] != _fp.atomic and isinstance(value, list):
                _list_to_set(schema, lt, value, out)
    return out


# The walkers below insert into the node of the set their value's path leads to, creating a
# node only when something is inserted under it: the set Go's tofieldset.go builds by
# inserting whole paths, without walking it from the root for every leaf.

def _to_set(schema: Any, atom: Any, v: Any, parent: Any, pe: Any) -> None:
    if atom is None:
        return
    kind = _kind(atom, _deduced(atom, v))
    if kind == _MAP:
        plan = _plan(schema, atom[2])
        if plan[3]:
            parent.members.add(pe)
        elif isinstance(v, dict) and v:
            node = _new_set()
            _map_to_set(schema, plan, v, node)
            if node.members or node.children:
                parent.children[pe] = node
        return
    if kind == _SCALAR:
        parent.members.add(pe)
        return
    if kind == _LIST:
        lt = atom[1]
        if lt[1] == _fp.atomic:
            parent.members.add(pe)
        elif isinstance(v, list) and v:
            node = _new_set()
            _list_to_set(schema, lt, v, node)
            if node.members or node.children:
                parent.children[pe] = node


def _map_to_set(schema: Any, plan: tuple[Any, ...], v: dict, node: Any) -> None:
    entries = plan[1]
    elem = plan[2]
    members = node.members
    field_pe = _fp.PathElement.field
    for key, val in v.items():
        e = entries.get(key)
        if e is None:
            pe = field_pe(key)
            # An undeclared key is a member whatever its value (with what is below it).
            if not elem[2]:
                _to_set(schema, elem[1], val, node, pe)
            members.add(pe)
            continue
        pe = e[4]
        if e[2]:
            members.add(pe)  # a scalar is a leaf whatever its value
            continue
        _to_set(schema, e[1], val, node, pe)
        if val is None or (isinstance(val, dict) and not val):
            members.add(pe)


def _list_to_set(schema: Any, lt: Any, v: list, node: Any) -> None:
    pes = [_try_pe(schema, lt, child) for child in v]
    seen: set[Any] = set()
    duplicates: set[Any] = set()
    for pe in pes:
        if pe in seen:
            if pe not in duplicates:
                node.members.add(pe)
                duplicates.add(pe)
        else:
            seen.add(pe)
    eatom = _resolve(schema, lt[0])
    for pe, child in zip(pes, v):
        if pe is None or pe in duplicates:
            continue
        _to_set(schema, eatom, child, node, pe)
        node.members.add(pe)


# ------------------------------------------------------------------ merge (merge.go)

#: smd_merge's ``share``: a side that validated (SHARE_RHS: without duplicated list keys)
#: is taken as it is where the other side has nothing, instead of walked and rebuilt.
SHARE_LHS, SHARE_RHS = 1, 2


def smd_merge(schema: Any, type_ref: Any, lhs: Any, rhs: Any, share: int = 0) -> tuple[Any, list[tuple[str, str]]]:
    """merge.go with ``ruleKeepRHS``: ``(rhs merged over lhs, errors)``; atomic values are
    replaced; the merged tree is None when nothing is left (or on errors).

    ``share`` (SHARE_LHS, SHARE_RHS): that side validated (the right-hand one without
    duplicated list keys), so where the other side has no value the merge of it is equal to
    it (merge.go rebuilds it value by value and finds no errors): the merged tree shares
    those subtrees instead of copying them."""
    errs: list[tuple[str, str]] = []
    out = _merge(schema, type_ref, lhs, rhs, errs, share)
    return (None if out is ABSENT else out), errs


def _merge(schema: Any, type_ref: Any, lhs: Any, rhs: Any, errs: list[tuple[str, str]], share: int = 0) -> Any:
    atom = _resolve(schema, type_ref)
    if atom is None:
        errs.extend(_no_type(type_ref))
        return ABSENT
    return _merge_resolved(schema, atom, type_ref, lhs, rhs, errs, share)


def _merge_resolved(schema: Any, atom: Any, type_ref: Any, lhs: Any, rhs: Any,
                    errs: list[tuple[str, str]], share: int = 0) -> Any:
    if share:
        if rhs is ABSENT and share & SHARE_LHS and lhs is not ABSENT:
            return lhs
        if lhs is ABSENT and share & SHARE_RHS and rhs is not ABSENT:
            return rhs
    cl = _deduced(atom, lhs)
    cr = _deduced(atom, rhs)
    if rhs is ABSENT:
        return _merge_atom(schema, atom, _kind(atom, cl), type_ref, lhs, rhs, errs, share)
    if lhs is ABSENT or cl == cr:
        return _merge_atom(schema, atom, _kind(atom, cr), type_ref, lhs, rhs, errs, share)
    # Different shapes on each side: Go walks both; the right-hand walk decides the output.
    _merge_atom(schema, atom, _kind(atom, cl), type_ref, lhs, rhs, [], share)
    return _merge_atom(schema, atom, _kind(atom, cr), type_ref, lhs, rhs, errs, share)


def _merge_atom(schema: Any, atom: Any, kind: int, type_ref: Any, lhs: Any, rhs: Any,
                errs: list[tuple[str, str]], share: int = 0) -> Any:
    if kind == _MAP:
        return _merge_map(schema, _plan(schema, atom[2]), lhs, rhs, errs, share)
    if kind == _SCALAR:
        lerrs = _validate_scalar(atom[0], lhs, "lhs: ")
        rerrs = _validate_scalar(atom[0], rhs, "rhs: ")
        if lerrs and rerrs:
            errs.extend(lerrs + rerrs)
            return ABSENT
        return rhs if rhs is not ABSENT else lhs
    if kind == _LIST:
        return _merge_list(schema, atom[1], lhs, rhs, errs, share)
    errs.extend(_invalid_atom(type_ref))
    return ABSENT


def _merge_map(schema: Any, plan: tuple[Any, ...], lhs: Any, rhs: Any, errs: list[tuple[str, str]],
               share: int = 0) -> Any:
    lmap = lhs if isinstance(lhs, dict) else None
    rmap = rhs if isinstance(rhs, dict) else None
    if plan[3] or (not lmap and not rmap):
        return rhs if rhs is not ABSENT else lhs
    out: dict[str, Any] = {}
    keys = list(lmap or {})
    keys.extend(k for k in (rmap or {}) if lmap is None or k not in lmap)
    entries = plan[1]
    elem = plan[2]
    for key in keys:
        e = entries.get(key) or elem
        lv = lmap.get(key, ABSENT) if lmap is not None else ABSENT
        rv = rmap.get(key, ABSENT) if rmap is not None else ABSENT
        mask = e[2]
        if mask and (lv is ABSENT or _BITS.get(lv.__class__, 0) & mask) and \
                (rv is ABSENT or _BITS.get(rv.__class__, 0) & mask):
            merged = rv if rv is not ABSENT else lv  # valid scalars: the right-hand side wins
        else:
            sub: list[tuple[str, str]] = []
            if e[1] is None:
                sub = _no_type(e[0])
                merged = ABSENT
            else:
                merged = _merge_resolved(schema, e[1], e[0], lv, rv, sub, share)
            if sub:
                errs.extend(_prefixed(sub, "." + key))
        if merged is not ABSENT:
            out[key] = merged
    return out if out else ABSENT


def _merge_list(schema: Any, t: Any, lhs: Any, rhs: Any, errs: list[tuple[str, str]], share: int = 0) -> Any:
    llist = lhs if isinstance(lhs, list) else None
    rlist = rhs if isinstance(rhs, list) else None
    if t[1] == _fp.atomic or (not llist and not rlist):
        return rhs if rhs is not ABSENT else lhs
    llist = llist or []
    rlist = rlist or []
    rhs_pes, observed_rhs, rerrs = _index_list(schema, t, rlist, False)
    lhs_pes, observed_lhs, lerrs = _index_list(schema, t, llist, True)
    errs.extend(rerrs + lerrs)
    if rerrs or lerrs:
        return ABSENT
    shared = [pe for pe in rhs_pes if pe in observed_lhs]
    shared.reverse()  # popped from the end, first shared item last
    next_shared = shared.pop() if shared else None
    merged_rhs: set[Any] = set()
    out: list[Any] = []
    element_type = t[0]
    eatom = _resolve(schema, element_type)

    def item(lchild: Any, rchild: Any) -> None:
        # mergingWalker.visitListItems appends an item's errors to a shadowed variable: Go
        # drops them.
        if eatom is None:
            return
        merged = _merge_resolved(schema, eatom, element_type, lchild, rchild, [], share)
        if merged is not ABSENT:
            out.append(merged)

    li = ri = 0
    llen, rlen = len(lhs_pes), len(rhs_pes)
    while li < llen or ri < rlen:
        if li < llen and ri < rlen:
            pe = lhs_pes[li]
            if pe == rhs_pes[ri]:
                merged_rhs.add(pe)
                item(observed_lhs.get(pe, ABSENT), observed_rhs.get(pe, ABSENT))
                li += 1
                ri += 1
                next_shared = shared.pop() if shared else None
                continue
            if pe in observed_rhs and next_shared is not None and next_shared != lhs_pes[li]:
                li += 1
                continue
        if li < llen:
            pe = lhs_pes[li]
            if pe not in observed_rhs:
                item(llist[li], ABSENT)
                li += 1
                continue
            if pe in merged_rhs:
                li += 1
        if ri < rlen:
            pe = rhs_pes[ri]
            merged_rhs.add(pe)
            item(observed_lhs.get(pe, ABSENT), observed_rhs.get(pe, ABSENT))
            ri += 1
            if next_shared is not None and next_shared == pe:
                next_shared = shared.pop() if shared else None
    return out if out else ABSENT


def _index_list(schema: Any, t: Any, items: list[Any], allow_duplicates: bool
                ) -> tuple[list[Any], dict[Any, Any], list[tuple[str, str]]]:
    pes: list[Any] = []
    observed: dict[Any, Any] = {}
    errs: list[tuple[str, str]] = []
    for i, child in enumerate(items):
        try:
            pe = smd_list_item_pe(schema, t, child)
        except KCodecError as exc:
            errs.append(("", f"element {i}: {exc}"))
            continue
        if pe in observed:
            if not allow_duplicates:
                errs.append(("", f"duplicate entries for key {pe}"))
                continue
            observed[pe] = None  # Go's NewValueInterface(nil) for a duplicated key
        else:
            observed[pe] = child
        pes.append(pe)
    return pes, observed, errs


# ------------------------------------------------------------------ sets (fieldpath)

def smd_set_tree(s: Any) -> dict[str, Any]:
    """serialize.go ``Set.ToJSON`` as a JSON tree: path elements sorted as Go orders them,
    ``"."`` first where a member also has children."""
    return _tree(s, False)


def _tree(s: Any, include_self: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    members, children = s.members, s.children
    if include_self and (members or children):
        out["."] = {}
    for pe in sorted(members | children.keys(), key=_ORDER):
        child = children.get(pe)
        out[pe.key_text()] = {} if child is None else _tree(child, pe in members)
    return out


def smd_set_from_tree(tree: dict[str, Any]) -> Any:
    """serialize.go ``Set.FromJSON`` of FieldsV1 already parsed into a JSON object."""
    found, _ = _read(tree, _fp.PathElement.deserialize)
    return found if found is not None else _new_set()


def _read(tree: dict[str, Any], deserialize: Any) -> tuple[Any, bool]:
    children = None
    is_member = False
    for key, sub in tree.items():
        if key == ".":
            is_member = True
            continue
        pe = deserialize(key)
        if pe is None:
            continue  # an unknown prefix: skipped, as Go does
        if not isinstance(sub, dict):
            raise _fp.path_error(f"ReadMapCB: expect {{ or n, but found {_json.dumps(sub)[:1]!r}")
        grandchildren, child_is_member = _read(sub, deserialize) if sub else (None, True)
        if child_is_member:
            if children is None:
                children = _new_set()
            children.members.add(pe)
        if grandchildren is not None:
            if children is None:
                children = _new_set()
            existing = children.children.get(pe)
            children.children[pe] = grandchildren if existing is None else existing.union(grandchildren)
    if children is None:
        is_member = True
    return children, is_member


def smd_ensure_named_fields(s: Any, schema: Any, type_ref: Any) -> Any:
    """set.go ``EnsureNamedFieldsAreMembers``: a copy of ``s`` where a struct field with
    children is a member too."""
    return _ensure(s, schema, _resolve(schema, type_ref))


def _ensure(s: Any, schema: Any, atom: Any) -> Any:
    # ``atom``: the resolved type of ``s`` (None: none), each child's taken from the plan (a
    # child of no type is None: what Schema.resolve gives for Go's empty type reference).
    out = _new_set()
    members = out.members = set(s.members)
    children = out.children
    m = lt = None
    if atom is not None:
        m = atom[2]
        lt = atom[1]
    FIELD = _fp.PathElement.FIELD
    KEY = _fp.PathElement.KEY
    plan = _plan(schema, m) if m is not None else None
    element: Any = ABSENT
    for pe, child in s.children.items():
        child_atom = None
        kind = pe.kind
        if kind == FIELD and plan is not None:
            e = plan[1].get(pe.payload)
            if e is not None:
                members.add(pe)
                child_atom = e[1]
            else:
                child_atom = plan[2][1]
        elif kind == KEY and lt is not None:
            if element is ABSENT:
                element = _resolve(schema, lt[0])
            child_atom = element
        children[pe] = _ensure(child, schema, child_atom)
    return out


# ------------------------------------------------------------------ set algebra (set.go)

def smd_set_empty(s: Any) -> bool:
    """set.go ``Empty``: no member here or below."""
    return not s.members and all(smd_set_empty(c) for c in s.children.values())


def smd_set_difference(a: Any, b: Any) -> Any:
    """set.go ``Difference``: the paths of ``a`` not in ``b`` (a child set emptied by it is
    dropped; a child only ``a`` has is kept as it is)."""
    return _difference(a, b, False)


def smd_set_recursive_difference(a: Any, b: Any) -> Any:
    """set.go ``RecursiveDifference``: :func:`smd_set_difference`, where a member of ``b``
    also removes everything below it."""
    return _difference(a, b, True)


def _difference(a: Any, b: Any, recursive: bool) -> Any:
    out = _new_set()
    out.members = a.members - b.members
    their_members = b.members
    theirs_of = b.children
    for pe, c in a.children.items():
        if recursive and pe in their_members:
            continue
        theirs = theirs_of.get(pe)
        if theirs is None:
            out.children[pe] = c
        else:
            diff = _difference(c, theirs, recursive)
            if not smd_set_empty(diff):
                out.children[pe] = diff
    return out


def smd_set_intersection(a: Any, b: Any) -> Any:
    """set.go ``Intersection``: the paths in both (empty child sets dropped)."""
    out = _new_set()
    out.members = a.members & b.members
    theirs_of = b.children
    for pe, c in a.children.items():
        theirs = theirs_of.get(pe)
        if theirs is not None:
            res = smd_set_intersection(c, theirs)
            if not smd_set_empty(res):
                out.children[pe] = res
    return out


# ------------------------------------------------------------------ value.Equals

_PLAIN = frozenset({str, int, float, bool, type(None)})


def smd_equals(a: Any, b: Any) -> bool:
    """value.Equals of two JSON trees: numbers compare as numbers whatever their Go type;
    bools are not numbers."""
    ta = a.__class__
    if ta is b.__class__:
        # Same JSON type (the common case): Python's own comparison, recursing only into
        # containers, where a bool may meet a number.
        if ta in _PLAIN:
            return a == b
        if ta is dict:
            if a.keys() != b.keys():
                return False
            for k, v in a.items():
                if not smd_equals(v, b[k]):
                    return False
            return True
        if ta is list:
            if len(a) != len(b):
                return False
            for x, y in zip(a, b):
                if not smd_equals(x, y):
                    return False
            return True
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(smd_equals(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(smd_equals(x, y) for x, y in zip(a, b))
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    return a == b


# ------------------------------------------------------------------ compare (compare.go)

_REMOVED, _MODIFIED, _ADDED = 0, 1, 2


def smd_compare(schema: Any, type_ref: Any, lhs: Any, rhs: Any, trusted: bool = False
                ) -> tuple[Any, Any, Any, list[tuple[str, str]]]:
    """compare.go ``TypedValue.Compare``: ``(removed, modified, added, errors)``, the field
    sets of what changed from ``lhs`` to ``rhs``. ``trusted``: ``lhs`` validated, so a
    subtree ``rhs`` shares with it (the same object, as a merge leaves what the applied
    configuration does not touch) holds no change and no error, and is not walked."""
    sets = [_new_set(), _new_set(), _new_set()]
    errs: list[tuple[str, str]] = []
    _compare(schema, type_ref, lhs, rhs, _Cursor(None, None, sets, trusted), errs)
    return sets[0], sets[1], sets[2], errs


class _Cursor:
    """A path during a compare walk, with its node in each of the three sets, created on the
    first insertion under it (inserting a whole path from the root for every changed leaf
    would walk the sets again and again)."""

    __slots__ = ("parent", "pe", "nodes", "trusted")

    def __init__(self, parent: Any, pe: Any, nodes: list[Any] | None = None, trusted: bool | None = None) -> None:
        self.parent = parent
        self.pe = pe
        self.nodes: list[Any] = nodes if nodes is not None else [None, None, None]
        #: smd_compare's ``trusted``, inherited along the walk
        self.trusted = bool(trusted) if trusted is not None else parent is not None and parent.trusted

    def node(self, which: int) -> Any:
        node = self.nodes[which]
        if node is None:
            parent = self.parent.node(which)  # type: ignore[union-attr]
            node = parent.children.get(self.pe)
            if node is None:
                node = parent.children[self.pe] = _new_set()
            self.nodes[which] = node
        return node

    def insert(self, which: int) -> None:
        parent = self.parent
        if parent is not None:  # the root's path is empty: Go's Insert of it is a no-op
            parent.node(which).members.add(self.pe)


def _compare(schema: Any, type_ref: Any, lhs: Any, rhs: Any, cur: _Cursor, errs: list[tuple[str, str]]) -> None:
    atom = _resolve(schema, type_ref)
    if atom is None:
        errs.extend(_no_type(type_ref))
        return
    _compare_resolved(schema, atom, lhs, rhs, cur, errs)


def _compare_resolved(schema: Any, atom: Any, lhs: Any, rhs: Any, cur: _Cursor,
                      errs: list[tuple[str, str]]) -> None:
    if lhs is rhs and cur.trusted and lhs is not ABSENT:
        return
    if lhs is ABSENT:
        _compare_one_side(schema, atom, rhs, cur, _ADDED, errs)
        return
    if rhs is ABSENT:
        _compare_one_side(schema, atom, lhs, cur, _REMOVED, errs)
        return
    cl = _deduced(atom, lhs)
    cr = _deduced(atom, rhs)
    in_leaf = [False]
    if cl == cr:
        _compare_atom(schema, atom, _kind(atom, cr), lhs, rhs, cur, errs, in_leaf)
    else:
        # Different shapes on each side: Go walks the value as each side's type.
        _compare_atom(schema, atom, _kind(atom, cl), lhs, rhs, cur, errs, [False])
        _compare_atom(schema, atom, _kind(atom, cr), lhs, rhs, cur, errs, in_leaf)


def _compare_one_side(schema: Any, atom: Any, v: Any, cur: _Cursor, which: int,
                      errs: list[tuple[str, str]]) -> None:
    # One side missing (a field added or removed whole): every path of ``v`` lands in one
    # set. The present side is valid for its scalars whatever it holds (Go reports a scalar
    # only when both sides are invalid), so the walk only collects.
    kind = _kind(atom, _deduced(atom, v))
    if kind == _MAP:
        plan = _plan(schema, atom[2])
        if plan[3] or not (isinstance(v, dict) and v):
            cur.insert(which)  # compareLeaf
            return
        entries = plan[1]
        elem = plan[2]
        field_pe = _fp.PathElement.field
        for key, val in v.items():
            e = entries.get(key)
            if e is None:
                e = elem
                pe = field_pe(key)
            else:
                pe = e[4]
            if e[1] is None:
                errs.extend(_prefixed(_no_type(e[0]), "." + key))
                continue
            if e[2]:
                cur.node(which).members.add(pe)
                continue
            sub: list[tuple[str, str]] = []
            _compare_one_side(schema, e[1], val, _Cursor(cur, pe), which, sub)
            if sub:
                errs.extend(_prefixed(sub, "." + key))
        cur.insert(which)
        return
    if kind == _SCALAR:
        cur.insert(which)
        return
    if kind == _LIST:
        lt = atom[1]
        if lt[1] == _fp.atomic or not (isinstance(v, list) and v):
            cur.insert(which)
            return
        order, values = _group_items(schema, lt, v, errs)
        element = _resolve(schema, lt[0])
        for pe in order:
            items = values[pe]
            child_cur = _Cursor(cur, pe)
            if len(items) >= 2:
                child_cur.insert(which)  # duplicated keys: the item is one leaf
                continue
            sub = []
            if element is None:
                sub = _no_type(lt[0])
            else:
                _compare_one_side(schema, element, items[0], child_cur, which, sub)
            if sub:
                errs.extend(_prefixed(sub, str(pe)))
        cur.insert(which)
        return
    errs.append(("", "schema error: invalid atom: inlined"))
    cur.insert(which)


def _compare_leaf(lhs: Any, rhs: Any, cur: _Cursor, in_leaf: list[bool]) -> None:
    if in_leaf[0]:
        return
    in_leaf[0] = True
    if lhs is ABSENT:
        cur.insert(_ADDED)
    elif rhs is ABSENT:
        cur.insert(_REMOVED)
    elif not smd_equals(lhs, rhs):
        cur.insert(_MODIFIED)


def _compare_atom(schema: Any, atom: Any, kind: int, lhs: Any, rhs: Any, cur: _Cursor,
                  errs: list[tuple[str, str]], in_leaf: list[bool]) -> None:
    if kind == _MAP:
        lmap = lhs if lhs is not ABSENT and isinstance(lhs, dict) else None
        rmap = rhs if rhs is not ABSENT and isinstance(rhs, dict) else None
        plan = _plan(schema, atom[2])
        if plan[3] or (not lmap and not rmap):
            _compare_leaf(lhs, rhs, cur, in_leaf)
            return
        keys = list(lmap or {})
        keys.extend(k for k in (rmap or {}) if lmap is None or k not in lmap)
        entries = plan[1]
        elem = plan[2]
        field_pe = _fp.PathElement.field
        for key in keys:
            e = entries.get(key)
            if e is None:
                e = elem
                pe = field_pe(key)
            else:
                pe = e[4]
            lv = lmap.get(key, ABSENT) if lmap is not None else ABSENT
            rv = rmap.get(key, ABSENT) if rmap is not None else ABSENT
            mask = e[2]
            if mask and (lv is ABSENT or _BITS.get(lv.__class__, 0) & mask) and \
                    (rv is ABSENT or _BITS.get(rv.__class__, 0) & mask):
                # A valid scalar on both sides: compareLeaf, inline.
                if lv is ABSENT:
                    cur.node(_ADDED).members.add(pe)
                elif rv is ABSENT:
                    cur.node(_REMOVED).members.add(pe)
                elif not smd_equals(lv, rv):
                    cur.node(_MODIFIED).members.add(pe)
                continue
            sub: list[tuple[str, str]] = []
            if e[1] is None:
                sub = _no_type(e[0])
            else:
                _compare_resolved(schema, e[1], lv, rv, _Cursor(cur, pe), sub)
            if sub:
                errs.extend(_prefixed(sub, "." + key))
        return
    if kind == _SCALAR:
        lerrs = _validate_scalar(atom[0], lhs, "lhs: ")
        rerrs = _validate_scalar(atom[0], rhs, "rhs: ")
        if lerrs and rerrs:
            errs.extend(lerrs + rerrs)
            return
        _compare_leaf(lhs, rhs, cur, in_leaf)
        return
    if kind == _LIST:
        lt = atom[1]
        llist = lhs if isinstance(lhs, list) else None
        rlist = rhs if isinstance(rhs, list) else None
        if lt[1] == _fp.atomic or (not llist and not rlist):
            _compare_leaf(lhs, rhs, cur, in_leaf)
            return
        _compare_list(schema, lt, llist or [], rlist or [], cur, errs)
        return
    errs.append(("", "schema error: invalid atom: inlined"))


def _group_items(schema: Any, lt: Any, items: list[Any], errs: list[tuple[str, str]]
                 ) -> tuple[list[Any], dict[Any, list[Any]]]:
    """compare.go's index of one side of a list: its items by path element, the elements in
    first-seen order; an item whose key cannot be computed is an error and is left out."""
    order: list[Any] = []
    values: dict[Any, list[Any]] = {}
    for i, child in enumerate(items):
        try:
            pe = smd_list_item_pe(schema, lt, child)
        except KCodecError as exc:
            errs.append(("", f"element {i}: {exc}"))
            continue
        if pe in values:
            values[pe].append(child)
        else:
            values[pe] = [child]
            order.append(pe)
    return order, values


def _compare_list(schema: Any, t: Any, llist: list[Any], rlist: list[Any], cur: _Cursor,
                  errs: list[tuple[str, str]]) -> None:
    lorder, lvalues = _group_items(schema, t, llist, errs)
    rorder, rvalues = _group_items(schema, t, rlist, errs)
    all_pes = lorder + [pe for pe in rorder if pe not in lvalues]
    element_type = t[0]
    for pe in all_pes:
        ll = lvalues.get(pe, [])
        rl = rvalues.get(pe, [])
        child = _Cursor(cur, pe)
        if not ll and not rl:
            return
        if len(ll) <= 1 and len(rl) <= 1:
            sub: list[tuple[str, str]] = []
            _compare(schema, element_type, ll[0] if ll else ABSENT, rl[0] if rl else ABSENT, child, sub)
            if sub:
                errs.extend(_prefixed(sub, str(pe)))
        elif len(ll) >= 2 and len(rl) >= 2:
            if len(ll) != len(rl) or not all(smd_equals(x, y) for x, y in zip(ll, rl)):
                child.insert(_MODIFIED)
        elif len(ll) >= 2:
            if rl:
                _compare(schema, element_type, ABSENT, rl[0], child, errs)
            child.insert(_REMOVED)
        else:
            if ll:
                _compare(schema, element_type, ll[0], ABSENT, child, errs)
            child.insert(_ADDED)


# ------------------------------------------------------------------ remove / extract (remove.go)

def smd_remove(schema: Any, type_ref: Any, value: Any, items: Any, extract: bool) -> Any:
    """remove.go's walk: ``value`` without the paths of ``items`` (``extract``: with only
    them, as typed.go ExtractItems); None when nothing is left."""
    atom = _resolve(schema, type_ref)
    if atom is None:
        return None
    return _remove(schema, atom, value, items, extract)


def _remove(schema: Any, atom: Any, v: Any, to_remove: Any, extract: bool) -> Any:
    kind = _kind(atom, _deduced(atom, v))
    if kind == _MAP:
        if not isinstance(v, dict):
            return None
        plan = _plan(schema, atom[2])
        if not v or plan[3]:
            return v if extract else None
        out: dict[str, Any] = {}
        entries = plan[1]
        elem = plan[2]
        field_pe = _fp.PathElement.field
        members = to_remove.members
        children = to_remove.children
        for key, val in v.items():
            e = entries.get(key)
            if e is None:
                e = elem
                pe = field_pe(key)
            else:
                pe = e[4]
            if pe in members:
                if extract:
                    # remove.go hands the whole set down here, not the (empty) subset
                    out[key] = _remove(schema, e[1], val, to_remove, extract) if e[1] is not None else None
                continue
            subset = children.get(pe)
            if subset is not None and not smd_set_empty(subset):
                val = _remove(schema, e[1], val, subset, extract) if e[1] is not None else None
            elif extract:
                continue
            out[key] = val
        return out or None
    if kind == _SCALAR:
        return v
    if kind == _LIST:
        if not isinstance(v, list):
            return None
        lt = atom[1]
        if not v or lt[1] == _fp.atomic:
            return v if extract else None
        eatom = _resolve(schema, lt[0])
        members = to_remove.members
        children = to_remove.children
        items: list[Any] = []
        for item in v:
            pe = _try_pe(schema, lt, item)
            exact = pe is not None and pe in members
            subset = children.get(pe) if pe is not None else None
            prefix = subset is not None and not smd_set_empty(subset)
            if extract:
                if prefix:
                    item = _remove(schema, eatom, item, subset, extract) if eatom is not None else None
                if exact or prefix:
                    items.append(item)
            else:
                if exact:
                    continue
                if prefix:
                    item = _remove(schema, eatom, item, subset, extract) if eatom is not None else None
                items.append(item)
        return items or None
    return None
