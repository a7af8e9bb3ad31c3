# cython: language_level=3
"""Compiled twins of the structured-merge-diff walks of ``kcodec._native.smd``.

sigs.k8s.io/structured-merge-diff v6 ``typed`` (validate.go, tofieldset.go, merge.go,
compare.go, remove.go, helpers.go), ``value`` (Equals) and ``fieldpath`` (serialize.go,
set.go). Every branch mirrors the pure walker, in the same
order, with the same results; what differs is how the work is done:

* A map type's plan (key -> type, resolved atom, accepted scalar classes, path element) is
  a ``_Plan`` built once per map type and schema and kept in its ``smd_plan`` slot, so a
  value costs one dict lookup and a class test instead of resolving its type.
* The walks build a node's members and children as a set and a dict held in C locals and
  make the ``Set`` only when something was inserted under it.
* Every error text, the rare shapes (dict and list subclasses, list keys with defaults)
  and the errors of list item keys are left to the pure twin, called only then.

Nesting is bounded twice: each level is charged to Python's recursion limit
(``Py_EnterRecursiveCall``), as the pure twin's frames are, and past ``_C_DEPTH`` levels the
rest of the value goes to the pure twin, so a raised recursion limit never lets the walk
exhaust the C stack. The pure twin spends one to three frames per level, so a value a few
hundred levels deep can pass here and fail there under the default limit.
"""
from cpython.object cimport PyObject, PyTypeObject
from cpython.dict cimport PyDict_GetItem, PyDict_Size
from cpython.list cimport PyList_GET_SIZE, PyList_GET_ITEM
from cpython.set cimport PySet_Add, PySet_GET_SIZE
from cpython.tuple cimport PyTuple_Check, PyTuple_GET_ITEM, PyTuple_GET_SIZE

from kcodec._speedups._tables cimport gc_pause, gc_resume

import operator as _operator

from kcodec.errors import KCodecError

__all__ = ["smd_validate", "smd_to_field_set", "smd_merge", "smd_list_item_pe", "smd_set_tree",
           "smd_set_from_tree", "smd_ensure_named_fields", "smd_set_empty", "smd_set_difference",
           "smd_set_recursive_difference", "smd_set_intersection", "smd_equals", "smd_compare",
           "smd_remove"]

cdef extern from "Python.h":
    int Py_EnterRecursiveCall(const char* where) noexcept
    void Py_LeaveRecursiveCall()

# Handed over once by kcodec.managedfields through kcodec.speedups.bind_fieldpath: this
# kernel sits below that layer and never imports it.
cdef object _PathElement = None
cdef object _Set = None
cdef object _Atom = None
cdef object _atomic = "atomic"
cdef object _associative = "associative"
cdef object _key_pe = None
cdef object _value_pe = None
cdef object _field_pe = None
cdef object _deserialize = None
cdef int _FIELD = 0
cdef int _KEY = 1
cdef dict _hooks = {}
cdef str _UNBOUND = ("the structured-merge-diff kernels have no Set class yet: "
                     "kcodec.managedfields hands it over when imported (speedups.bind_fieldpath)")

# The pure twin (kcodec._native.smd), imported on first need: it words every error and
# takes the shapes no valid object has, so an apply without errors never loads it.
cdef object _pure_mod = None

cdef tuple _EMPTY = ()
cdef object _ABSENT = object()  # Go's nil value.Value (a missing side of a merge)

cdef enum:
    K_NONE = 0
    K_MAP = 1
    K_SCALAR = 2
    K_LIST = 3

# Classes of plain JSON scalars as bits (None 16); a plan entry's mask holds those its
# scalar type accepts without an error, as the pure twin's _MASKS.
cdef dict _MASKS = {"numeric": 2 | 4 | 16, "string": 1 | 16, "boolean": 8 | 16, "untyped": 1 | 2 | 4 | 8 | 16}

cdef object _ORDER = _operator.attrgetter("_key")
cdef object _FIRST = _operator.itemgetter(0)
# FieldsV1 keys of path elements by order key, as PathElement.key_text caches them.
cdef dict _KEY_TEXT = {}
cdef Py_ssize_t _KEY_TEXT_MAX = 8192
# Field path elements by name: PathElement.field's own cache, without the call.
cdef dict _FIELD_PES = {}
# Path elements by their FieldsV1 key (PathElement.deserialize's own cache, without the
# call); unknown prefixes (None) are not kept.
cdef dict _SERIALIZED = {}
# List item path elements by their keys' names, classes and values (the pure twin's
# _ITEM_PES): the items of one object's lists recur in every apply of it. Floats are left
# out (-0.0 equals 0.0 but is written differently); emptied when full.
cdef dict _ITEM_PES = {}
cdef Py_ssize_t _ITEM_PES_MAX = 8192


def bind_fieldpath(*, path_element, set_cls, atom, atomic, associative, path_error):
    """Receive the classes of kcodec.managedfields (called by kcodec.speedups)."""
    global _PathElement, _Set, _Atom, _atomic, _associative, _key_pe, _value_pe, _field_pe, _FIELD, _KEY
    global _deserialize
    _PathElement = path_element
    _Set = set_cls
    _Atom = atom
    _atomic = atomic
    _associative = associative
    _key_pe = path_element.key
    _value_pe = path_element.value
    _field_pe = path_element.field
    _deserialize = path_element.deserialize
    _FIELD = path_element.FIELD
    _KEY = path_element.KEY
    _FIELD_PES.clear()
    _ITEM_PES.clear()
    _SERIALIZED.clear()
    _KEY_TEXT.clear()
    _hooks.update(path_element=path_element, set_cls=set_cls, atom=atom, atomic=atomic, associative=associative,
                  path_error=path_error)
    if _pure_mod is not None:
        _pure_mod.bind_fieldpath(**_hooks)


cdef object _twin():
    global _pure_mod
    if _pure_mod is None:
        from kcodec._native import smd
        if _hooks:
            smd.bind_fieldpath(**_hooks)
        _pure_mod = smd
    return _pure_mod


# Nesting below which the walks recurse in C; a deeper value (untyped data may nest 10000
# levels) is walked on by the pure twin, whose frames Python's recursion limit bounds
# without spending the C stack. One counter for all threads: a walk another thread
# interleaves only sends more of a value to the twin, which gives the same results.
cdef int _depth = 0
cdef int _C_DEPTH = 256


cdef inline int _enter() except -1:
    # Py_EnterRecursiveCall fails with 1 and RecursionError set (and has given its level back).
    global _depth
    if Py_EnterRecursiveCall(" in a structured-merge-diff walk"):
        return -1
    _depth += 1
    return 0


cdef inline void _leave() noexcept:
    global _depth
    _depth -= 1
    Py_LeaveRecursiveCall()


cdef inline bint _deep() noexcept:
    return _depth >= _C_DEPTH


cdef inline object _at(object t, Py_ssize_t i):
    # Atoms, list types and struct fields are NamedTuples: read their items directly (an
    # index into a tuple subclass otherwise goes through its Python-level __getitem__ slot).
    if PyTuple_Check(t) and i < PyTuple_GET_SIZE(t):
        return <object>PyTuple_GET_ITEM(t, i)
    return t[i]


cdef inline int _bit(object v):
    cdef object t = type(v)
    if t is str:
        return 1
    if t is int:
        return 2
    if t is float:
        return 4
    if t is bool:
        return 8
    if v is None:
        return 16
    return 0


cdef inline object _field(object key):
    cdef PyObject* p = PyDict_GetItem(_FIELD_PES, key)
    if p != NULL:
        return <object>p
    pe = _field_pe(key)
    if PyDict_Size(_FIELD_PES) < 8192:
        _FIELD_PES[key] = pe
    return pe


cdef object _new_set(set members, dict children):
    if _Set is None:
        raise RuntimeError(_UNBOUND)
    cdef object out = (<PyTypeObject*>_Set).tp_new(<type>_Set, <PyObject*>_EMPTY, NULL)
    out.members = members
    out.children = children
    return out


cdef inline object _resolve(object schema, object type_ref):
    if type(type_ref) is _Atom:
        return type_ref
    return schema.resolve(type_ref)


cdef int _deduced(object atom, object v) except -1:
    """helpers.go deduceAtom as a code (see the pure twin's _deduced)."""
    scalar = _at(atom, 0)
    lt = _at(atom, 1)
    m = _at(atom, 2)
    if v is _ABSENT or v is None:
        return K_NONE
    if (scalar is None) + (lt is None) + (m is None) >= 2:
        return K_NONE
    if isinstance(v, (bool, int, float, str)):
        return K_SCALAR if scalar is not None else K_NONE
    if isinstance(v, list):
        return K_LIST if lt is not None else K_NONE
    if isinstance(v, dict):
        return K_MAP if m is not None else K_NONE
    return K_NONE


cdef inline int _kind(object atom, int code) except -1:
    if code:
        return code
    if _at(atom, 2) is not None:
        return K_MAP
    if _at(atom, 0) is not None:
        return K_SCALAR
    if _at(atom, 1) is not None:
        return K_LIST
    return K_NONE


cdef int _mask(object atom) except -1:
    if atom is None or _at(atom, 2) is not None or _at(atom, 1) is not None or _at(atom, 0) is None:
        return 0
    cdef PyObject* p = PyDict_GetItem(_MASKS, _at(atom, 0))
    return 0 if p == NULL else <int><object>p


cdef class _Entry:
    cdef object tr
    cdef object atom
    cdef int mask
    cdef bint declared
    cdef object pe


cdef class _Plan:
    cdef object schema
    cdef dict entries
    cdef _Entry elem
    cdef bint atomic
    cdef bint has_elem


cdef _Entry _entry(object schema, object tr, bint declared, object pe):
    cdef _Entry e = _Entry.__new__(_Entry)
    e.tr = tr
    e.atom = _resolve(schema, tr) if (declared or tr) else None
    e.mask = _mask(e.atom)
    e.declared = declared
    e.pe = pe
    return e


cdef _Plan _plan(object schema, object m):
    """The pure twin's _plan, as a _Plan (each twin recognises only its own)."""
    try:
        plan = m.smd_plan
    except AttributeError:
        plan = None
    if type(plan) is _Plan and (<_Plan>plan).schema is schema:
        return <_Plan>plan
    cdef _Plan p = _Plan.__new__(_Plan)
    p.schema = schema
    p.entries = {}
    for key, field in m.fields.items():
        p.entries[key] = _entry(schema, _at(field, 1), True, _field_pe(key))
    et = m.element_type
    p.elem = _entry(schema, et, False, None)
    p.atomic = m.relationship == _atomic
    p.has_elem = bool(et)
    try:
        m.smd_plan = p
    except AttributeError:
        pass
    return p


cdef inline _Entry _lookup(_Plan plan, object key):
    cdef PyObject* p = PyDict_GetItem(plan.entries, key)
    if p == NULL:
        return plan.elem
    return <_Entry>p


cdef list _prefixed(list errs, str prefix):
    return [(prefix + p, m) for p, m in errs]


cdef bint _scalar_ok(str scalar, object v):
    """validateScalar without errors."""
    if v is _ABSENT or v is None:
        return True
    if scalar == "numeric":
        return not isinstance(v, bool) and isinstance(v, (int, float))
    if scalar == "string":
        return isinstance(v, str)
    if scalar == "boolean":
        return isinstance(v, bool)
    if scalar == "untyped":
        return isinstance(v, (bool, int, float, str))
    return False


cdef list _validate_scalar(object scalar, object v, str prefix):
    if type(scalar) is str and _scalar_ok(<str>scalar, v):
        return []
    return _twin()._validate_scalar(scalar, v if v is not _ABSENT else _twin().ABSENT, prefix)


# ------------------------------------------------------------------ list item keys

cdef object _item_pe(object schema, object lt, object child):
    """helpers.go listItemToPathElement for the common shapes; the rest (and every error)
    through the twin. Elements of scalar keys are shared through _ITEM_PES."""
    if _at(lt, 1) != _associative:
        return _twin().smd_list_item_pe(schema, lt, child)
    keys = _at(lt, 2)
    cdef list fields, ck
    cdef PyObject* p
    cdef bint cacheable = True
    if keys:
        if type(child) is not dict:
            return _twin().smd_list_item_pe(schema, lt, child)
        fields = []
        ck = [keys]
        for name in keys:
            p = PyDict_GetItem(<dict>child, name)
            if p == NULL:
                return _twin().smd_list_item_pe(schema, lt, child)  # a default value or an error
            val = <object>p
            t = type(val)
            if cacheable and (t is str or t is int or t is bool or val is None):
                ck.append(t)
                ck.append(val)
            else:
                cacheable = False
            fields.append((name, val))
        if not cacheable:
            return _key_pe(fields)
        key = tuple(ck)
        p = PyDict_GetItem(_ITEM_PES, key)
        if p != NULL:
            return <object>p
        pe = _key_pe(fields)
    else:
        t = type(child)
        if not (t is str or t is int or t is bool):
            return _twin().smd_list_item_pe(schema, lt, child)
        key = (t, child)
        p = PyDict_GetItem(_ITEM_PES, key)
        if p != NULL:
            return <object>p
        pe = _value_pe(child)
    if PyDict_Size(_ITEM_PES) >= _ITEM_PES_MAX:
        _ITEM_PES.clear()
    _ITEM_PES[key] = pe
    return pe


def smd_list_item_pe(schema, lt, child):
    """helpers.go listItemToPathElement; raises :class:`KCodecError` with Go's text."""
    return _item_pe(schema, lt, child)


cdef object _try_pe(object schema, object lt, object child):
    try:
        return _item_pe(schema, lt, child)
    except KCodecError:
        return None


# ------------------------------------------------------------------ validate (validate.go)

def smd_validate(schema, type_ref, value, allow_duplicates, collect):
    """validate.go's walk of ``value``: ``(errors, field set)``. With ``collect`` the walk
    also builds what tofieldset.go gives for the value (None when there are errors, or
    without ``collect``)."""
    cdef set members = None
    cdef dict children = None
    if collect:
        members = set()
        children = {}
    cdef bint dups = bool(allow_duplicates)
    atom = _resolve(schema, type_ref)
    cdef list errs
    if atom is None:
        errs = _twin()._no_type(type_ref)
    else:
        # A field set is one set per node: keep the collector from scanning them as they
        # appear (as the struct walkers of _codec do).
        gc_pause()
        try:
            errs = _validate(schema, atom, type_ref, value, dups, members, children, None)
        finally:
            gc_resume()
    if errs or not collect:
        return errs, None
    # The root's own path is empty (Go's Insert of it is a no-op): its children are the set.
    found = children.get(None)
    return errs, (found if found is not None else _new_set(set(), {}))


cdef list _validate(object schema, object atom, object type_ref, object v, bint dups, set pmembers,
                    dict pchildren, object pe):
    # ``pmembers``/``pchildren`` are the parent node's (None: nothing collected, below an
    # atomic value or for a plain validate); see the pure twin's _validate_atom.
    if _deep():
        return _twin()._validate_atom(schema, atom, type_ref, v, dups,
                                      None if pmembers is None else _new_set(pmembers, pchildren), pe)
    cdef int kind = _kind(atom, _deduced(atom, v))
    cdef list out
    if kind == K_MAP:
        return _validate_map(schema, _plan(schema, _at(atom, 2)), v, dups, pmembers, pchildren, pe)
    if kind == K_SCALAR:
        if pmembers is not None:
            PySet_Add(pmembers, pe)
        return _validate_scalar(_at(atom, 0), v, "")
    if kind == K_LIST:
        return _validate_list(schema, _at(atom, 1), v, dups, pmembers, pchildren, pe)
    return _twin()._invalid_atom(type_ref)


cdef list _validate_map(object schema, _Plan plan, object v, bint dups, set pmembers, dict pchildren,
                        object pe):
    cdef bint atomic = plan.atomic
    if pmembers is not None and atomic:
        PySet_Add(pmembers, pe)
    if v is None:
        return []
    if not isinstance(v, dict):
        return [("", "expected map, got " + _twin()._go_v(v))]
    cdef bint collect = pmembers is not None and not atomic
    cdef set members = set() if collect else None
    cdef dict children = {} if collect else None
    cdef list out = []
    cdef list sub
    cdef _Entry e
    cdef int mask
    _enter()
    try:
        items = (<dict>v).items() if type(v) is dict else v.items()
        for key, val in items:
            e = _lookup(plan, key)
            if e is plan.elem:
                if not plan.has_elem:
                    out.append(("." + key, "field not declared in schema"))
                    return out
                fpe = _field(key) if collect else None
            else:
                fpe = e.pe
            mask = e.mask
            if mask and (_bit(val) & mask):
                if collect:
                    PySet_Add(members, fpe)
                continue
            if e.atom is None:
                sub = _twin()._no_type(e.tr)
            else:
                sub = _validate(schema, e.atom, e.tr, val, dups, members, children, fpe)
            if sub:
                out.extend(_prefixed(sub, "." + key))
            elif collect and (not e.declared or val is None or (isinstance(val, dict) and not val)):
                PySet_Add(members, fpe)
    finally:
        _leave()
    if collect and (PySet_GET_SIZE(members) or PyDict_Size(children)):
        pchildren[pe] = _new_set(members, children)
    return out


cdef list _validate_list(object schema, object lt, object v, bint dups, set pmembers, dict pchildren,
                         object pe):
    rel = _at(lt, 1)
    cdef bint atomic = rel == _atomic
    if pmembers is not None and atomic:
        PySet_Add(pmembers, pe)
    if v is None:
        return []
    if not isinstance(v, list):
        return [("", "expected list, got " + _twin()._go_v(v))]
    cdef list out = []
    cdef list sub
    cdef Py_ssize_t i
    element_type = _at(lt, 0)
    eatom = _resolve(schema, element_type)
    cdef bint collect
    cdef set members = None
    cdef dict children = None
    cdef set seen
    _enter()
    try:
        if rel != _associative:
            # Atomic: one leaf; separable without keys: tofieldset.go finds no element keys.
            for i, child in enumerate(v):
                if eatom is None:
                    sub = _twin()._no_type(element_type)
                else:
                    sub = _validate(schema, eatom, element_type, child, dups, None, None, None)
                if sub:
                    out.extend(_prefixed(sub, f"[{i}]"))
            return out
        collect = pmembers is not None
        if collect:
            members = set()
            children = {}
        seen = set()
        for i, child in enumerate(v):
            try:
                ipe = _item_pe(schema, lt, child)
            except KCodecError as exc:
                out.append(("", f"element {i}: {exc}"))
                return out
            if ipe in seen and not dups:
                out.append(("", f"duplicate entries for key {ipe}"))
            seen.add(ipe)
            if eatom is None:
                sub = _twin()._no_type(element_type)
            else:
                sub = _validate(schema, eatom, element_type, child, dups, members, children, ipe)
            if sub:
                out.extend(_prefixed(sub, str(ipe)))
            elif collect:
                PySet_Add(members, ipe)
    finally:
        _leave()
    if collect and (PySet_GET_SIZE(members) or PyDict_Size(children)):
        pchildren[pe] = _new_set(members, children)
    return out


# ------------------------------------------------------------------ to field set (tofieldset.go)

def smd_to_field_set(schema, type_ref, value):
    """tofieldset.go: every leaf field, list item and atomic value of ``value``."""
    cdef set members = set()
    cdef dict children = {}
    cdef _Plan plan
    cdef int kind
    atom = _resolve(schema, type_ref)
    if atom is not None:
        # The root's own path is empty: inserting it is a no-op, so only its children count.
        kind = _kind(atom, _deduced(atom, value))
        gc_pause()
        try:
            if kind == K_MAP:
                plan = _plan(schema, _at(atom, 2))
                if not plan.atomic and isinstance(value, dict):
                    _map_to_set(schema, plan, value, members, children)
            elif kind == K_LIST:
                lt = _at(atom, 1)
                if _at(lt, 1) != _atomic and isinstance(value, list):
                    _list_to_set(schema, lt, value, members, children)
        finally:
            gc_resume()
    return _new_set(members, children)


cdef int _to_set(object schema, object atom, object v, set pmembers, dict pchildren, object pe) except -1:
    if atom is None:
        return 0
    if _deep():
        _twin()._to_set(schema, atom, v, _new_set(pmembers, pchildren), pe)
        return 0
    cdef int kind = _kind(atom, _deduced(atom, v))
    cdef _Plan plan
    cdef set members
    cdef dict children
    if kind == K_MAP:
        plan = _plan(schema, _at(atom, 2))
        if plan.atomic:
            PySet_Add(pmembers, pe)
        elif isinstance(v, dict) and v:
            members = set()
            children = {}
            _map_to_set(schema, plan, v, members, children)
            if PySet_GET_SIZE(members) or PyDict_Size(children):
                pchildren[pe] = _new_set(members, children)
        return 0
    if kind == K_SCALAR:
        PySet_Add(pmembers, pe)
        return 0
    if kind == K_LIST:
        lt = _at(atom, 1)
        if _at(lt, 1) == _atomic:
            PySet_Add(pmembers, pe)
        elif isinstance(v, list) and v:
            members = set()
            children = {}
            _list_to_set(schema, lt, v, members, children)
            if PySet_GET_SIZE(members) or PyDict_Size(children):
                pchildren[pe] = _new_set(members, children)
    return 0


cdef int _map_to_set(object schema, _Plan plan, object v, set members, dict children) except -1:
    cdef _Entry e
    cdef _Entry elem = plan.elem
    _enter()
    try:
        items = (<dict>v).items() if type(v) is dict else v.items()
        for key, val in items:
            e = _lookup(plan, key)
            if e is elem:
                pe = _field(key)
                # An undeclared key is a member whatever its value (with what is below it).
                if not elem.mask:
                    _to_set(schema, elem.atom, val, members, children, pe)
                PySet_Add(members, pe)
                continue
            pe = e.pe
            if e.mask:
                PySet_Add(members, pe)  # a scalar is a leaf whatever its value
                continue
            _to_set(schema, e.atom, val, members, children, pe)
            if val is None or (isinstance(val, dict) and not val):
                PySet_Add(members, pe)
    finally:
        _leave()
    return 0


cdef int _list_to_set(object schema, object lt, object v, set members, dict children) except -1:
    cdef list pes = [_try_pe(schema, lt, child) for child in v]
    cdef set seen = set()
    cdef set duplicates = set()
    for pe in pes:
        if pe in seen:
            if pe not in duplicates:
                PySet_Add(members, pe)
                duplicates.add(pe)
        else:
            seen.add(pe)
    eatom = _resolve(schema, _at(lt, 0))
    _enter()
    try:
        for pe, child in zip(pes, v):
            if pe is None or pe in duplicates:
                continue
            _to_set(schema, eatom, child, members, children, pe)
            PySet_Add(members, pe)
    finally:
        _leave()
    return 0


# ------------------------------------------------------------------ merge (merge.go)

def smd_merge(schema, type_ref, lhs, rhs, int share=0):
    """merge.go with ``ruleKeepRHS``: ``(rhs merged over lhs, errors)``; atomic values are
    replaced; the merged tree is None when nothing is left (or on errors). ``share``: the
    pure twin's SHARE_LHS/SHARE_RHS bits."""
    cdef list errs = []
    atom = _resolve(schema, type_ref)
    if atom is None:
        return None, _twin()._no_type(type_ref)
    gc_pause()
    try:
        out = _merge(schema, atom, type_ref, lhs, rhs, errs, share)
    finally:
        gc_resume()
    return (None if out is _ABSENT else out), errs


cdef object _merge(object schema, object atom, object type_ref, object lhs, object rhs, list errs, int share):
    if share:
        # a validated side where the other has nothing: its merge is itself (see the twin)
        if rhs is _ABSENT and share & 1 and lhs is not _ABSENT:
            return lhs
        if lhs is _ABSENT and share & 2 and rhs is not _ABSENT:
            return rhs
    if _deep():
        tw = _twin()
        out = tw._merge_resolved(schema, atom, type_ref, tw.ABSENT if lhs is _ABSENT else lhs,
                                 tw.ABSENT if rhs is _ABSENT else rhs, errs, share)
        return _ABSENT if out is tw.ABSENT else out
    cdef int cl = _deduced(atom, lhs)
    cdef int cr = _deduced(atom, rhs)
    if rhs is _ABSENT:
        return _merge_atom(schema, atom, _kind(atom, cl), type_ref, lhs, rhs, errs, share)
    if lhs is _ABSENT or cl == cr:
        return _merge_atom(schema, atom, _kind(atom, cr), type_ref, lhs, rhs, errs, share)
    # Different shapes on each side: Go walks both; the right-hand walk decides the output.
    _merge_atom(schema, atom, _kind(atom, cl), type_ref, lhs, rhs, [], share)
    return _merge_atom(schema, atom, _kind(atom, cr), type_ref, lhs, rhs, errs, share)


cdef object _merge_atom(object schema, object atom, int kind, object type_ref, object lhs, object rhs,
                        list errs, int share):
    cdef list lerrs, rerrs
    if kind == K_MAP:
        return _merge_map(schema, _plan(schema, _at(atom, 2)), lhs, rhs, errs, share)
    if kind == K_SCALAR:
        lerrs = _validate_scalar(_at(atom, 0), lhs, "lhs: ")
        rerrs = _validate_scalar(_at(atom, 0), rhs, "rhs: ")
        if lerrs and rerrs:
            errs.extend(lerrs + rerrs)
            return _ABSENT
        return rhs if rhs is not _ABSENT else lhs
    if kind == K_LIST:
        return _merge_list(schema, _at(atom, 1), lhs, rhs, errs, share)
    errs.extend(_twin()._invalid_atom(type_ref))
    return _ABSENT


cdef inline object _side(object m, bint plain, object key):
    """``m[key]`` of one side of a merge or compare, or _ABSENT (``m`` None: no map there)."""
    cdef PyObject* p
    if m is None:
        return _ABSENT
    if plain:
        p = PyDict_GetItem(<dict>m, key)
        return _ABSENT if p == NULL else <object>p
    return m.get(key, _ABSENT)


cdef object _merge_map(object schema, _Plan plan, object lhs, object rhs, list errs, int share):
    lmap = lhs if isinstance(lhs, dict) else None
    rmap = rhs if isinstance(rhs, dict) else None
    if plan.atomic or (not lmap and not rmap):
        return rhs if rhs is not _ABSENT else lhs
    cdef dict out = {}
    cdef list keys = list(lmap or {})
    if rmap is not None:
        if lmap is None:
            keys.extend(rmap)
        else:
            for k in rmap:
                if k not in lmap:
                    keys.append(k)
    cdef _Entry e
    cdef int mask
    cdef list sub
    cdef bint lplain = type(lmap) is dict
    cdef bint rplain = type(rmap) is dict
    cdef PyObject* p
    _enter()
    try:
        for key in keys:
            e = _lookup(plan, key)
            lv = _side(lmap, lplain, key)
            rv = _side(rmap, rplain, key)
            mask = e.mask
            if mask and (lv is _ABSENT or _bit(lv) & mask) and (rv is _ABSENT or _bit(rv) & mask):
                merged = rv if rv is not _ABSENT else lv  # valid scalars: the right-hand side wins
            else:
                if e.atom is None:
                    sub = _twin()._no_type(e.tr)
                    merged = _ABSENT
                else:
                    sub = []
                    merged = _merge(schema, e.atom, e.tr, lv, rv, sub, share)
                if sub:
                    errs.extend(_prefixed(sub, "." + key))
            if merged is not _ABSENT:
                out[key] = merged
    finally:
        _leave()
    return out if out else _ABSENT


cdef object _merge_list(object schema, object t, object lhs, object rhs, list errs, int share):
    llist = lhs if isinstance(lhs, list) else None
    rlist = rhs if isinstance(rhs, list) else None
    if _at(t, 1) == _atomic or (not llist and not rlist):
        return rhs if rhs is not _ABSENT else lhs
    if not llist:
        llist = []
    if not rlist:
        rlist = []
    cdef list rhs_pes = [], lhs_pes = [], rerrs = [], lerrs = []
    cdef dict observed_rhs = {}, observed_lhs = {}
    _index_list(schema, t, rlist, False, rhs_pes, observed_rhs, rerrs)
    _index_list(schema, t, llist, True, lhs_pes, observed_lhs, lerrs)
    errs.extend(rerrs + lerrs)
    if rerrs or lerrs:
        return _ABSENT
    cdef list shared = [pe for pe in rhs_pes if pe in observed_lhs]
    shared.reverse()  # popped from the end, first shared item last
    next_shared = shared.pop() if shared else None
    cdef set merged_rhs = set()
    cdef list out = []
    element_type = _at(t, 0)
    eatom = _resolve(schema, element_type)
    cdef Py_ssize_t li = 0, ri = 0
    cdef Py_ssize_t llen = len(lhs_pes), rlen = len(rhs_pes)
    _enter()
    try:
        while li < llen or ri < rlen:
            if li < llen and ri < rlen:
                pe = lhs_pes[li]
                if pe == rhs_pes[ri]:
                    merged_rhs.add(pe)
                    _merge_item(schema, eatom, element_type, observed_lhs.get(pe, _ABSENT),
                                observed_rhs.get(pe, _ABSENT), out, share)
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
                    _merge_item(schema, eatom, element_type, llist[li], _ABSENT, out, share)
                    li += 1
                    continue
                if pe in merged_rhs:
                    li += 1
            if ri < rlen:
                pe = rhs_pes[ri]
                merged_rhs.add(pe)
                _merge_item(schema, eatom, element_type, observed_lhs.get(pe, _ABSENT),
                            observed_rhs.get(pe, _ABSENT), out, share)
                ri += 1
                if next_shared is not None and next_shared == pe:
                    next_shared = shared.pop() if shared else None
    finally:
        _leave()
    return out if out else _ABSENT


cdef int _merge_item(object schema, object eatom, object element_type, object lchild, object rchild,
                     list out, int share) except -1:
    # mergingWalker.visitListItems appends an item's errors to a shadowed variable: Go drops them.
    if eatom is None:
        return 0
    merged = _merge(schema, eatom, element_type, lchild, rchild, [], share)
    if merged is not _ABSENT:
        out.append(merged)
    return 0


cdef int _index_list(object schema, object t, object items, bint allow_duplicates, list pes, dict observed,
                     list errs) except -1:
    cdef Py_ssize_t i
    for i, child in enumerate(items):
        try:
            pe = _item_pe(schema, t, child)
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
    return 0


# ------------------------------------------------------------------ sets (fieldpath)

def smd_set_tree(s):
    """serialize.go ``Set.ToJSON`` as a JSON tree: path elements sorted as Go orders them,
    ``"."`` first where a member also has children."""
    gc_pause()
    try:
        return _tree(s, False)
    finally:
        gc_resume()


cdef object _key_text(object pe, object key):
    cdef PyObject* p = PyDict_GetItem(_KEY_TEXT, key)
    if p != NULL:
        return <object>p
    text = pe.key_text()
    if PyDict_Size(_KEY_TEXT) < _KEY_TEXT_MAX:
        _KEY_TEXT[key] = text
    return text


cdef int _leaves(object members, dict out) except -1:
    # A node of members only: their order keys sorted, each key's text from the cache; a
    # key not in it sends the node through the path elements themselves.
    cdef list keys = [pe._key for pe in members]
    cdef list texts = []
    cdef PyObject* p
    keys.sort()
    for key in keys:
        p = PyDict_GetItem(_KEY_TEXT, key)
        if p == NULL:
            for pe in sorted(members, key=_ORDER):
                out[_key_text(pe, pe._key)] = {}
            return 0
        texts.append(<object>p)
    for text in texts:
        out[text] = {}
    return 0


cdef dict _tree(object s, bint include_self):
    if _deep():
        return _twin()._tree(s, include_self)
    # The members and the children, each sorted by order key, merged as the pure twin's
    # sorted union is ordered: comparing order keys (tuples) instead of hashing every path
    # element again (PathElement.__hash__ is a Python call).
    cdef dict out = {}
    members = s.members
    children = s.children
    cdef list mlist, clist
    cdef Py_ssize_t i = 0, j = 0, nm, nc
    if include_self and (members or children):
        out["."] = {}
    if not children:
        if members:
            _leaves(members, out)
        return out
    mlist = sorted(members, key=_ORDER)
    clist = sorted([(pe._key, pe, c) for pe, c in children.items()], key=_FIRST)
    nm = len(mlist)
    nc = len(clist)
    _enter()
    try:
        while i < nm or j < nc:
            if j < nc:
                crow = <tuple>clist[j]
                ckey = crow[0]
                if i < nm:
                    pe = mlist[i]
                    mkey = pe._key
                    if mkey == ckey:
                        out[_key_text(pe, mkey)] = _tree(crow[2], True)
                        i += 1
                        j += 1
                        continue
                    if mkey < ckey:
                        out[_key_text(pe, mkey)] = {}
                        i += 1
                        continue
                out[_key_text(crow[1], ckey)] = _tree(crow[2], False)
                j += 1
            else:
                pe = mlist[i]
                out[_key_text(pe, pe._key)] = {}
                i += 1
    finally:
        _leave()
    return out


def smd_set_from_tree(tree):
    """serialize.go ``Set.FromJSON`` of FieldsV1 already parsed into a JSON object."""
    cdef set members = set()
    cdef dict children = {}
    gc_pause()
    try:
        if _read(tree, members, children) < 0:
            # A value that is not an object: the twin walks again and words the error.
            return _twin().smd_set_from_tree(tree)
    finally:
        gc_resume()
    return _new_set(members, children)


cdef int _read(object tree, set members, dict children) except -2:
    """Fills the node of ``tree`` into ``members``/``children``; 1 when ``tree`` marks its
    own path as a member (``"."``, or nothing below it), -1 on a value that is not an object."""
    if _deep():
        found, member = _twin()._read(tree, _deserialize)
        if found is not None:
            members.update(found.members)
            children.update(found.children)
        return 1 if member else 0
    cdef bint is_member = False
    cdef bint empty = True
    cdef int r
    cdef PyObject* p
    cdef set cm
    cdef dict cc
    _enter()
    try:
        items = (<dict>tree).items() if type(tree) is dict else tree.items()
        for key, sub in items:
            if key == ".":
                is_member = True
                continue
            p = PyDict_GetItem(_SERIALIZED, key)
            if p != NULL:
                pe = <object>p
            else:
                pe = _deserialize(key)
                if pe is None:
                    continue  # an unknown prefix: skipped, as Go does
                if PyDict_Size(_SERIALIZED) < 8192:
                    _SERIALIZED[key] = pe
            if type(sub) is dict and not sub:
                PySet_Add(members, pe)  # a leaf ({}): a member with nothing below it
                empty = False
                continue
            if not isinstance(sub, dict):
                return -1
            cm = set()
            cc = {}
            r = _read(sub, cm, cc)
            if r < 0:
                return r
            if r:
                PySet_Add(members, pe)
                empty = False
            if PySet_GET_SIZE(cm) or PyDict_Size(cc):
                empty = False
                existing = children.get(pe)
                grand = _new_set(cm, cc)
                children[pe] = grand if existing is None else existing.union(grand)
    finally:
        _leave()
    return 1 if (is_member or empty) else 0


def smd_ensure_named_fields(s, schema, type_ref):
    """set.go ``EnsureNamedFieldsAreMembers``: a copy of ``s`` where a struct field with
    children is a member too."""
    gc_pause()
    try:
        return _ensure(s, schema, _resolve(schema, type_ref))
    finally:
        gc_resume()


cdef object _ensure(object s, object schema, object atom):
    if _deep():
        return _twin()._ensure(s, schema, atom)
    # ``atom``: the resolved type of ``s`` (None: none), each child's taken from the plan.
    cdef set members = set(s.members)
    cdef dict children = {}
    cdef _Plan plan = None
    cdef PyObject* p
    cdef bint lt_resolved = False
    m = lt = element = None
    if atom is not None:
        m = _at(atom, 2)
        lt = _at(atom, 1)
        if m is not None:
            plan = _plan(schema, m)
    cdef int kind
    _enter()
    try:
        for pe, child in s.children.items():
            child_atom = None
            kind = pe.kind
            if kind == _FIELD and plan is not None:
                p = PyDict_GetItem(plan.entries, pe.payload)
                if p != NULL:
                    PySet_Add(members, pe)
                    child_atom = (<_Entry>p).atom
                else:
                    child_atom = plan.elem.atom
            elif kind == _KEY and lt is not None:
                if not lt_resolved:
                    element = _resolve(schema, _at(lt, 0))
                    lt_resolved = True
                child_atom = element
            # else: no type (a Schema resolves the pure twin's None type reference to None)
            children[pe] = _ensure(child, schema, child_atom)
    finally:
        _leave()
    return _new_set(members, children)


# ------------------------------------------------------------------ set algebra (set.go)

def smd_set_empty(s):
    """set.go ``Empty``: no member here or below."""
    return _empty(s)


cdef bint _empty(object s) except -1:
    if _deep():
        return _twin().smd_set_empty(s)
    if s.members:
        return False
    children = s.children
    if not children:
        return True
    _enter()
    try:
        for c in (<dict>children).values() if type(children) is dict else children.values():
            if not _empty(c):
                return False
    finally:
        _leave()
    return True


def smd_set_difference(a, b):
    """set.go ``Difference``: the paths of ``a`` not in ``b`` (a child set emptied by it is
    dropped; a child only ``a`` has is kept as it is)."""
    cdef bint empty
    return _difference(a, b, False, &empty)


def smd_set_recursive_difference(a, b):
    """set.go ``RecursiveDifference``: :func:`smd_set_difference`, where a member of ``b``
    also removes everything below it."""
    cdef bint empty
    return _difference(a, b, True, &empty)


cdef object _difference(object a, object b, bint recursive, bint* empty):
    # ``empty`` receives the result's emptiness, so the caller need not walk it again (the
    # pure twin asks smd_set_empty of every child result).
    if _deep():
        tw = _twin()
        out = tw._difference(a, b, recursive)
        empty[0] = tw.smd_set_empty(out)
        return out
    cdef set members = a.members - b.members
    cdef dict children = {}
    cdef bint is_empty = not members
    cdef bint sub_empty
    their_members = b.members
    theirs_of = b.children
    _enter()
    try:
        for pe, c in a.children.items():
            if recursive and pe in their_members:
                continue
            theirs = theirs_of.get(pe)
            if theirs is None:
                children[pe] = c
                if is_empty:
                    is_empty = _empty(c)
            else:
                diff = _difference(c, theirs, recursive, &sub_empty)
                if not sub_empty:
                    children[pe] = diff
                    is_empty = False
    finally:
        _leave()
    empty[0] = is_empty
    return _new_set(members, children)


def smd_set_intersection(a, b):
    """set.go ``Intersection``: the paths in both (empty child sets dropped)."""
    cdef bint empty
    return _intersection(a, b, &empty)


cdef object _intersection(object a, object b, bint* empty):
    if _deep():
        tw = _twin()
        out = tw.smd_set_intersection(a, b)
        empty[0] = tw.smd_set_empty(out)
        return out
    cdef set members = a.members & b.members
    cdef dict children = {}
    cdef bint sub_empty
    theirs_of = b.children
    _enter()
    try:
        for pe, c in a.children.items():
            theirs = theirs_of.get(pe)
            if theirs is not None:
                res = _intersection(c, theirs, &sub_empty)
                if not sub_empty:
                    children[pe] = res
    finally:
        _leave()
    empty[0] = not members and not children
    return _new_set(members, children)


# ------------------------------------------------------------------ value.Equals

def smd_equals(a, b):
    """value.Equals of two JSON trees: numbers compare as numbers whatever their Go type;
    bools are not numbers."""
    return _equals(a, b)


cdef bint _equals(object a, object b) except -1:
    if _deep():
        return _twin().smd_equals(a, b)
    cdef object ta = type(a)
    cdef Py_ssize_t i, n
    cdef PyObject* p
    if ta is type(b):
        if ta is str or ta is int or ta is float or ta is bool or a is None:
            return a == b
        if ta is dict:
            if PyDict_Size(a) != PyDict_Size(b) or (<dict>a).keys() != (<dict>b).keys():
                return False
            _enter()
            try:
                for k, v in (<dict>a).items():
                    p = PyDict_GetItem(<dict>b, k)
                    if not _equals(v, <object>p if p != NULL else (<dict>b)[k]):
                        return False
            finally:
                _leave()
            return True
        if ta is list:
            n = PyList_GET_SIZE(a)
            if n != PyList_GET_SIZE(b):
                return False
            _enter()
            try:
                for i in range(n):
                    if PyList_GET_SIZE(a) <= i or PyList_GET_SIZE(b) <= i:
                        return False  # a list changed by a comparison it ran
                    if not _equals(<object>PyList_GET_ITEM(a, i), <object>PyList_GET_ITEM(b, i)):
                        return False
            finally:
                _leave()
            return True
    # Mixed or unusual types: the twin's rules, word for word.
    return _twin().smd_equals(a, b)


# ------------------------------------------------------------------ compare (compare.go)

cdef enum:
    C_REMOVED = 0
    C_MODIFIED = 1
    C_ADDED = 2


def smd_compare(schema, type_ref, lhs, rhs, bint trusted=False):
    """compare.go ``TypedValue.Compare``: ``(removed, modified, added, errors)``, the field
    sets of what changed from ``lhs`` to ``rhs``; ``trusted`` as in the pure twin."""
    cdef _Cursor root = _Cursor.__new__(_Cursor)
    root.nodes = [_new_set(set(), {}), _new_set(set(), {}), _new_set(set(), {})]
    root.trusted = trusted
    cdef list errs = []
    atom = _resolve(schema, type_ref)
    if atom is None:
        errs = _twin()._no_type(type_ref)
    else:
        gc_pause()
        try:
            _compare(schema, atom, lhs, rhs, root, errs)
        finally:
            gc_resume()
    return root.nodes[0], root.nodes[1], root.nodes[2], errs


cdef class _Cursor:
    """The pure twin's _Cursor: a path of the walk and its node in each of the three sets,
    created on the first insertion under it."""
    cdef _Cursor parent
    cdef object pe
    cdef list nodes
    cdef public bint trusted  # read by the twin's cursors below this one

    cpdef object node(self, int which):
        node = self.nodes[which]
        if node is None:
            parent = self.parent.node(which)
            children = parent.children
            node = children.get(self.pe)
            if node is None:
                node = _new_set(set(), {})
                children[self.pe] = node
            self.nodes[which] = node
        return node

    cdef int insert(self, int which) except -1:
        if self.parent is not None:  # the root's path is empty: Go's Insert of it is a no-op
            PySet_Add(self.parent.node(which).members, self.pe)
        return 0


cdef int _compare_in_twin(object schema, object atom, object lhs, object rhs, _Cursor cur, list errs,
                          int which) except -1:
    # The rest of a deep value, compared by the twin into the same sets: its cursor's parent
    # is this walk's (the twin calls its ``node``), and the nodes it creates for this path
    # are taken back.
    tw = _twin()
    pc = tw._Cursor(cur.parent, cur.pe, list(cur.nodes), cur.trusted)
    if which < 0:
        tw._compare_resolved(schema, atom, tw.ABSENT if lhs is _ABSENT else lhs,
                             tw.ABSENT if rhs is _ABSENT else rhs, pc, errs)
    else:
        tw._compare_one_side(schema, atom, lhs, pc, which, errs)
    for i in range(3):
        if cur.nodes[i] is None:
            cur.nodes[i] = pc.nodes[i]
    return 0


cdef inline _Cursor _child(_Cursor cur, object pe):
    cdef _Cursor c = _Cursor.__new__(_Cursor)
    c.parent = cur
    c.pe = pe
    c.nodes = [None, None, None]
    c.trusted = cur.trusted
    return c


cdef int _compare(object schema, object atom, object lhs, object rhs, _Cursor cur, list errs) except -1:
    if lhs is rhs and cur.trusted and lhs is not _ABSENT:
        return 0
    if _deep():
        return _compare_in_twin(schema, atom, lhs, rhs, cur, errs, -1)
    cdef int cl, cr
    cdef bint in_leaf = False, left_leaf = False
    if lhs is _ABSENT:
        return _compare_one_side(schema, atom, rhs, cur, C_ADDED, errs)
    if rhs is _ABSENT:
        return _compare_one_side(schema, atom, lhs, cur, C_REMOVED, errs)
    cl = _deduced(atom, lhs)
    cr = _deduced(atom, rhs)
    if cl == cr:
        return _compare_atom(schema, atom, _kind(atom, cr), lhs, rhs, cur, errs, &in_leaf)
    # Different shapes on each side: Go walks the value as each side's type.
    _compare_atom(schema, atom, _kind(atom, cl), lhs, rhs, cur, errs, &left_leaf)
    return _compare_atom(schema, atom, _kind(atom, cr), lhs, rhs, cur, errs, &in_leaf)


cdef int _compare_ref(object schema, object type_ref, object lhs, object rhs, _Cursor cur, list errs) except -1:
    atom = _resolve(schema, type_ref)
    if atom is None:
        errs.extend(_twin()._no_type(type_ref))
        return 0
    return _compare(schema, atom, lhs, rhs, cur, errs)


cdef int _compare_one_side(object schema, object atom, object v, _Cursor cur, int which, list errs) except -1:
    if _deep():
        return _compare_in_twin(schema, atom, v, None, cur, errs, which)
    cdef int kind = _kind(atom, _deduced(atom, v))
    cdef _Plan plan
    cdef _Entry e
    cdef list sub, order
    cdef dict values
    cdef Py_ssize_t i
    cdef PyObject* p
    cdef _Cursor child_cur
    if kind == K_MAP:
        plan = _plan(schema, _at(atom, 2))
        if plan.atomic or not (isinstance(v, dict) and v):
            return cur.insert(which)  # compareLeaf
        _enter()
        try:
            items = (<dict>v).items() if type(v) is dict else v.items()
            for key, val in items:
                e = _lookup(plan, key)
                pe = _field(key) if e is plan.elem else e.pe
                if e.atom is None:
                    errs.extend(_prefixed(_twin()._no_type(e.tr), "." + key))
                    continue
                if e.mask:
                    PySet_Add(cur.node(which).members, pe)
                    continue
                sub = []
                _compare_one_side(schema, e.atom, val, _child(cur, pe), which, sub)
                if sub:
                    errs.extend(_prefixed(sub, "." + key))
        finally:
            _leave()
        return cur.insert(which)
    if kind == K_SCALAR:
        return cur.insert(which)
    if kind == K_LIST:
        lt = _at(atom, 1)
        if _at(lt, 1) == _atomic or not (isinstance(v, list) and v):
            return cur.insert(which)
        order = []
        values = {}
        _group_items(schema, lt, v, errs, order, values)
        element_type = _at(lt, 0)
        element = _resolve(schema, element_type)
        _enter()
        try:
            for pe in order:
                group = <list>values[pe]
                child_cur = _child(cur, pe)
                if len(group) >= 2:
                    child_cur.insert(which)  # duplicated keys: the item is one leaf
                    continue
                if element is None:
                    sub = _twin()._no_type(element_type)
                else:
                    sub = []
                    _compare_one_side(schema, element, group[0], child_cur, which, sub)
                if sub:
                    errs.extend(_prefixed(sub, str(pe)))
        finally:
            _leave()
        return cur.insert(which)
    errs.append(("", "schema error: invalid atom: inlined"))
    return cur.insert(which)


cdef int _compare_leaf(object lhs, object rhs, _Cursor cur, bint* in_leaf) except -1:
    if in_leaf[0]:
        return 0
    in_leaf[0] = True
    if lhs is _ABSENT:
        cur.insert(C_ADDED)
    elif rhs is _ABSENT:
        cur.insert(C_REMOVED)
    elif not _equals(lhs, rhs):
        cur.insert(C_MODIFIED)
    return 0


cdef int _compare_atom(object schema, object atom, int kind, object lhs, object rhs, _Cursor cur, list errs,
                       bint* in_leaf) except -1:
    cdef _Plan plan
    cdef _Entry e
    cdef int mask
    cdef list sub, keys, lerrs, rerrs
    cdef bint lplain, rplain
    cdef PyObject* p
    if kind == K_MAP:
        lmap = lhs if (lhs is not _ABSENT and isinstance(lhs, dict)) else None
        rmap = rhs if (rhs is not _ABSENT and isinstance(rhs, dict)) else None
        plan = _plan(schema, _at(atom, 2))
        if plan.atomic or (not lmap and not rmap):
            return _compare_leaf(lhs, rhs, cur, in_leaf)
        keys = list(lmap or {})
        if rmap is not None:
            if lmap is None:
                keys.extend(rmap)
            else:
                for k in rmap:
                    if k not in lmap:
                        keys.append(k)
        lplain = type(lmap) is dict
        rplain = type(rmap) is dict
        _enter()
        try:
            for key in keys:
                e = _lookup(plan, key)
                pe = _field(key) if e is plan.elem else e.pe
                lv = _side(lmap, lplain, key)
                rv = _side(rmap, rplain, key)
                mask = e.mask
                if mask and (lv is _ABSENT or _bit(lv) & mask) and (rv is _ABSENT or _bit(rv) & mask):
                    # A valid scalar on both sides: compareLeaf, inline.
                    if lv is _ABSENT:
                        PySet_Add(cur.node(C_ADDED).members, pe)
                    elif rv is _ABSENT:
                        PySet_Add(cur.node(C_REMOVED).members, pe)
                    elif not _equals(lv, rv):
                        PySet_Add(cur.node(C_MODIFIED).members, pe)
                    continue
                if e.atom is None:
                    sub = _twin()._no_type(e.tr)
                else:
                    sub = []
                    _compare(schema, e.atom, lv, rv, _child(cur, pe), sub)
                if sub:
                    errs.extend(_prefixed(sub, "." + key))
        finally:
            _leave()
        return 0
    if kind == K_SCALAR:
        lerrs = _validate_scalar(_at(atom, 0), lhs, "lhs: ")
        rerrs = _validate_scalar(_at(atom, 0), rhs, "rhs: ")
        if lerrs and rerrs:
            errs.extend(lerrs + rerrs)
            return 0
        return _compare_leaf(lhs, rhs, cur, in_leaf)
    if kind == K_LIST:
        lt = _at(atom, 1)
        llist = lhs if isinstance(lhs, list) else None
        rlist = rhs if isinstance(rhs, list) else None
        if _at(lt, 1) == _atomic or (not llist and not rlist):
            return _compare_leaf(lhs, rhs, cur, in_leaf)
        return _compare_list(schema, lt, llist or [], rlist or [], cur, errs)
    errs.append(("", "schema error: invalid atom: inlined"))
    return 0


cdef int _group_items(object schema, object lt, object items, list errs, list order, dict values) except -1:
    """The pure twin's _group_items, into ``order`` and ``values``."""
    cdef PyObject* p
    for i, child in enumerate(items):
        try:
            pe = _item_pe(schema, lt, child)
        except KCodecError as exc:
            errs.append(("", f"element {i}: {exc}"))
            continue
        p = PyDict_GetItem(values, pe)
        if p != NULL:
            (<list>p).append(child)
        else:
            values[pe] = [child]
            order.append(pe)
    return 0


cdef int _compare_list(object schema, object t, object llist, object rlist, _Cursor cur, list errs) except -1:
    cdef list all_pes = []
    cdef dict lvalues = {}, rvalues = {}
    cdef list ll, rl, sub
    cdef Py_ssize_t i, nl, nr
    cdef PyObject* p
    cdef _Cursor ccur
    cdef list rorder = []
    _group_items(schema, t, llist, errs, all_pes, lvalues)
    _group_items(schema, t, rlist, errs, rorder, rvalues)
    for pe in rorder:
        if pe not in lvalues:
            all_pes.append(pe)
    element_type = _at(t, 0)
    _enter()
    try:
        for pe in all_pes:
            p = PyDict_GetItem(lvalues, pe)
            ll = <list>p if p != NULL else []
            p = PyDict_GetItem(rvalues, pe)
            rl = <list>p if p != NULL else []
            ccur = _child(cur, pe)
            nl = len(ll)
            nr = len(rl)
            if not nl and not nr:
                return 0
            if nl <= 1 and nr <= 1:
                sub = []
                _compare_ref(schema, element_type, ll[0] if nl else _ABSENT, rl[0] if nr else _ABSENT, ccur, sub)
                if sub:
                    errs.extend(_prefixed(sub, str(pe)))
            elif nl >= 2 and nr >= 2:
                if nl != nr or not all(_equals(x, y) for x, y in zip(ll, rl)):
                    ccur.insert(C_MODIFIED)
            elif nl >= 2:
                if nr:
                    _compare_ref(schema, element_type, _ABSENT, rl[0], ccur, errs)
                ccur.insert(C_REMOVED)
            else:
                if nl:
                    _compare_ref(schema, element_type, ll[0], _ABSENT, ccur, errs)
                ccur.insert(C_ADDED)
    finally:
        _leave()
    return 0


# ------------------------------------------------------------------ remove / extract (remove.go)

def smd_remove(schema, type_ref, value, items, extract):
    """remove.go's walk: ``value`` without the paths of ``items`` (``extract``: with only
    them, as typed.go ExtractItems); None when nothing is left."""
    atom = _resolve(schema, type_ref)
    if atom is None:
        return None
    gc_pause()
    try:
        return _remove(schema, atom, value, items, bool(extract))
    finally:
        gc_resume()


cdef object _remove(object schema, object atom, object v, object to_remove, bint extract):
    if _deep():
        return _twin()._remove(schema, atom, v, to_remove, extract)
    cdef int kind = _kind(atom, _deduced(atom, v))
    cdef _Plan plan
    cdef _Entry e
    cdef dict out
    cdef list items
    cdef bint exact, prefix
    cdef bint subset_empty
    if kind == K_MAP:
        if not isinstance(v, dict):
            return None
        plan = _plan(schema, _at(atom, 2))
        if not v or plan.atomic:
            return v if extract else None
        out = {}
        members = to_remove.members
        children = to_remove.children
        _enter()
        try:
            for key, val in ((<dict>v).items() if type(v) is dict else v.items()):
                e = _lookup(plan, key)
                pe = _field(key) if e is plan.elem else e.pe
                if pe in members:
                    if extract:
                        # remove.go hands the whole set down here, not the (empty) subset
                        out[key] = (_remove(schema, e.atom, val, to_remove, extract) if e.atom is not None
                                    else None)
                    continue
                subset = children.get(pe)
                if subset is not None and not _empty(subset):
                    val = _remove(schema, e.atom, val, subset, extract) if e.atom is not None else None
                elif extract:
                    continue
                out[key] = val
        finally:
            _leave()
        return out or None
    if kind == K_SCALAR:
        return v
    if kind == K_LIST:
        if not isinstance(v, list):
            return None
        lt = _at(atom, 1)
        if not v or _at(lt, 1) == _atomic:
            return v if extract else None
        eatom = _resolve(schema, _at(lt, 0))
        members = to_remove.members
        children = to_remove.children
        items = []
        _enter()
        try:
            for item in v:
                pe = _try_pe(schema, lt, item)
                exact = pe is not None and pe in members
                subset = children.get(pe) if pe is not None else None
                prefix = subset is not None and not _empty(subset)
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
        finally:
            _leave()
        return items or None
    return None
