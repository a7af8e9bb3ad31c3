# cython: language_level=3
"""Compiled twins of the struct walkers of ``kcodec._native.codec``.

``struct_to_tree``, ``fill_from_tree``, ``struct_to_proto`` and ``fill_from_proto`` walk
the compiled tables of ``_tables`` (one per Struct class) instead of the FieldInfo tuples,
read and write fields through slot offsets, allocate zero structs with ``tp_alloc``, read
protobuf through a ``const unsigned char*`` with explicit bounds checks and write it into
one growable buffer whose nested lengths are patched in place. Every branch mirrors the
pure walker, in the same order, with the same error classes and texts.

Deliberate differences from the pure walkers, all invisible to ``==``:

* Decoding shares equal values of immutable custom types (Quantity, IntOrString, Time...:
  those whose ``deep_copy()`` returns self) within one call: a body seen before is not
  parsed again. Pure mode builds a new, equal object each time. A repeated body of a
  mutable custom type (FieldsV1) is not parsed again either: the value is a
  ``deep_copy()`` of the first. Likewise encoding asks each immutable value object for
  its protobuf body or tree value once per call.
* Error paths (``Pod.spec.containers[0].name``) are built only when an error or a custom
  value's parser needs them, from a chain of stack frames, never per field.
* The structs, lists and dicts ``fill_from_proto`` builds are not tracked by the cycle
  collector (the object passed in, and anything it already held, keep their tracking);
  see "Untracked decoded objects" in ``_tables.pyx`` for why that is safe. Equal short
  ASCII strings of one decoded document are one str object.

Kernels that build many objects also pause the collector for their duration
(``gc_pause``/``gc_resume``, restored even on errors), so it does not scan the new objects
over and over while they appear.
"""
cimport cython
from libc.stdint cimport uint64_t, int64_t, int32_t, uint32_t
from libc.string cimport memcpy, memmove, memcmp
from libc.stdlib cimport malloc, realloc, free
from cpython.object cimport PyObject
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE, PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_DecodeUTF8
from cpython.long cimport PyLong_FromUnsignedLongLong, PyLong_FromLongLong
from cpython.list cimport PyList_Append, PyList_New
from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.float cimport PyFloat_FromDouble
from cpython.mem cimport PyMem_Calloc, PyMem_Free

from kcodec._speedups._bytebuf cimport bytebuf_free, bytebuf_grow, bytebuf_new, bytebuf_take
from kcodec._speedups._varint cimport VARINT_EOF, VARINT_OK, read_uvarint, uvarint_size
from kcodec._speedups._tables cimport (
    kc_same_bytes,
    Table, TypeRow, FieldRow, FieldC, table_of, check_scalar, kc_list_new_untracked, untrack, get_field, set_field, is_zero_value, gc_pause, gc_resume,
    StrCache, strcache_init, strcache_ascii, strcache_clear, new_time, time_from_text,
    K_STR, K_BOOL, K_INT32, K_INT64, K_FLOAT, K_BYTES, K_STRUCT, K_CUSTOM, K_LIST, K_MAP, K_ANY,
    WT_VARINT, WT_FIXED64, WT_BYTES,
)

import binascii as _binascii
import struct as _st

from kcodec import _kinds
from kcodec import fieldtable as _m
from kcodec.fieldtable import JSONNumber as _JSONNumber
from kcodec.errors import DecodeError, EncodeError
from kcodec.gojson import b64decode as _gojson_b64decode
from kcodec.wire import length_error as _pure_length_error
from kcodec.wire import end_group_error as _end_group_error
from kcodec.wire import illegal_tag_error as _illegal_tag_error
from kcodec.wire import wrong_wire_error as _wrong_wire_error

__all__ = ["struct_to_tree", "fill_from_tree", "struct_to_proto", "fill_from_proto", "expand_raw_tree",
           "copy_plain_tree"]

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(void* o)
    long long PyLong_AsLongLongAndOverflow(object o, int* overflow) except? -1
    PyObject* PyDict_GetItemWithError(object d, object key) except? NULL
    object PyUnicode_AsEncodedString(object u, const char* encoding, const char* errors)
    bint PyUnicode_IS_ASCII(object u)
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void Py_INCREF(object o)
    void Py_XDECREF(PyObject* o)
    void* PyUnicode_DATA(object u)
    Py_ssize_t PyUnicode_GET_LENGTH(object u)
    double PyFloat_AS_DOUBLE(object f)
    int PyObject_IsTrue(object o) except -1
    int PyObject_Not(object o) except -1
    int Py_EnterRecursiveCall(const char* where) noexcept
    int Py_GetRecursionLimit()
    void Py_LeaveRecursiveCall()
    int _PyBytes_Resize(PyObject** b, Py_ssize_t n) except -1
    ctypedef struct PyTypeObject_ "PyTypeObject":
        pass
    PyTypeObject_ PyUnicode_Type
    PyTypeObject_* Py_TYPE(PyObject* o)
    int PyDict_Next(object d, Py_ssize_t* pos, PyObject** key, PyObject** value)
    int PyUnicode_Compare(object a, object b) except? -1
    PyTypeObject_ PyLong_Type
    PyTypeObject_ PyBytes_Type
    Py_ssize_t PyDict_GET_SIZE(object d)
    PyObject* _Py_True "Py_True"
    PyObject* _Py_False "Py_False"
    PyObject* PyErr_Occurred()
    Py_ssize_t PyList_GET_SIZE(object l)
    PyObject* PyList_GET_ITEM(object l, Py_ssize_t i)
    Py_ssize_t _kc_ulen "PyUnicode_GET_LENGTH"(PyObject* o)
    void* _kc_udata "PyUnicode_DATA"(PyObject* o)
    bint _kc_uascii "PyUnicode_IS_ASCII"(PyObject* o)
    long long _kc_long_overflow "PyLong_AsLongLongAndOverflow"(PyObject* o, int* overflow)

cdef object _b64encode = _binascii.b2a_base64
cdef object _go_b64decode = _gojson_b64decode
cdef object _pack = _st.pack
cdef object _unpack_from = _st.unpack_from
cdef object _zero_of = _m._zero_of
cdef int MAX_ENCODE_DEPTH = _kinds.MAX_ENCODE_DEPTH
cdef str _JSON_DEPTH_TEXT = _kinds.encode_depth_message("json")
cdef str _PROTO_DEPTH_TEXT = _kinds.encode_depth_message("proto")

# The pure twin (kcodec._native.codec), imported on first need: it words the type errors
# (with Go's context), writes integers beyond int64 and reads buffers that are not bytes,
# none of which a well-formed object meets, so compiled mode never loads it for ordinary
# encodes and decodes.
cdef object _pure_mod = None


cdef object _twin():
    global _pure_mod
    if _pure_mod is None:
        from kcodec._native import codec
        _pure_mod = codec
    return _pure_mod


cdef object _type_error(object v, object t, str path):
    return _twin()._type_error(v, t, path)


cdef enum:
    INT32_MIN = -2147483648
    INT32_MAX = 2147483647
    MAX_DEPTH = 100


# ----------------------------------------------------------------------------- JSON tree

cdef enum:
    ID_CACHE = 512


cdef class _IdCache:
    """Results computed once per immutable custom value object within one call (its
    protobuf body, its tree value): decoded objects share equal immutable values, so one
    result serves every occurrence. Direct-mapped by address; each key is held, so its
    address cannot be reused by another object while the cache lives."""
    cdef PyObject** keys
    cdef PyObject** vals
    cdef int depth  # structs entered by struct_to_tree (see _struct_into)

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.keys != NULL:
            for i in range(ID_CACHE):
                Py_XDECREF(self.keys[i])
                Py_XDECREF(self.vals[i])
        PyMem_Free(self.keys)
        PyMem_Free(self.vals)

    cdef inline PyObject* get(self, object key) noexcept:
        cdef Py_ssize_t slot
        if self.keys == NULL:
            return NULL
        slot = <Py_ssize_t>(((<size_t><PyObject*>key) >> 4) % ID_CACHE)
        if self.keys[slot] == <PyObject*>key:
            return self.vals[slot]
        return NULL

    cdef int put(self, object key, object value) except -1:
        cdef Py_ssize_t slot
        cdef PyObject* old_k
        cdef PyObject* old_v
        if self.keys == NULL:
            self.keys = <PyObject**>PyMem_Calloc(ID_CACHE, sizeof(PyObject*))
            self.vals = <PyObject**>PyMem_Calloc(ID_CACHE, sizeof(PyObject*))
            if self.keys == NULL or self.vals == NULL:
                raise MemoryError()
        slot = <Py_ssize_t>(((<size_t><PyObject*>key) >> 4) % ID_CACHE)
        old_k = self.keys[slot]
        old_v = self.vals[slot]
        Py_INCREF(key)
        Py_INCREF(value)
        self.keys[slot] = <PyObject*>key
        self.vals[slot] = <PyObject*>value
        # Released only once the slot is consistent: a finalizer may run here.
        Py_XDECREF(old_k)
        Py_XDECREF(old_v)
        return 0


cdef object _custom_tree(_IdCache c, TypeRow t, object v):
    """``v._to_tree()``; shared for immutable values whose tree value is immutable too."""
    cdef PyObject* hit
    if not t.shareable or type(v) is not t.cls:
        return v._to_tree()
    hit = c.get(v)
    if hit != NULL:
        return <object>hit
    out = v._to_tree()
    if out is None or type(out) is str or type(out) is int or type(out) is float or type(out) is bool:
        c.put(v, out)
    return out



cdef object _tree_value(_IdCache c, TypeRow t, object v):
    cdef int k
    cdef TypeRow e
    if v is None:
        return None
    k = t.kind
    if k <= K_FLOAT:
        check_scalar(k, v)
        return v
    if k == K_STRUCT:
        sub = {}
        _struct_into(c, v, _table_for(t, v), sub)
        return sub
    if k == K_CUSTOM:
        return _custom_tree(c, t, v)
    if k == K_BYTES:
        return _b64encode(v, newline=False).decode("ascii")
    if k == K_LIST:
        e = t.elem
        if e.kind <= K_FLOAT:
            for x in v:
                check_scalar(e.kind, x)
            return list(v)
        return [_tree_value(c, e, x) for x in v]
    if k == K_MAP:
        e = t.elem
        if e.kind <= K_FLOAT:
            for x in v.values():
                check_scalar(e.kind, x)
            return {key: v[key] for key in sorted(v)}
        return {key: _tree_value(c, e, v[key]) for key in sorted(v)}
    return v


cdef inline Table _table_for(TypeRow t, object v):
    """The table of struct value ``v`` (its own class, as the pure walker uses)."""
    if type(v) is t.cls:
        if t._table is not None:
            return t._table
        return t.struct_table()
    return table_of(type(v))


cdef inline int _enter(const char* where) except -1:
    """Py_EnterRecursiveCall, which fails with 1 (not -1) and RecursionError set; a failed
    call has already given its level back, so the caller must not Py_LeaveRecursiveCall."""
    if Py_EnterRecursiveCall(where):
        return -1
    return 0


cdef int _struct_into(_IdCache c, object obj, Table t, dict out) except -1:
    # C recursion is charged to Python's recursion limit, as the pure walker's frames are
    # (struct_to_tree turns RecursionError into EncodeError), and bounded by
    # MAX_ENCODE_DEPTH whatever that limit is: the C stack is not.
    c.depth += 1
    if c.depth > MAX_ENCODE_DEPTH:
        raise EncodeError(_JSON_DEPTH_TEXT)
    _enter(" while converting a struct to a JSON tree")
    try:
        return _struct_into_body(c, obj, t, out)
    finally:
        Py_LeaveRecursiveCall()
        c.depth -= 1


cdef int _struct_into_body(_IdCache c, object obj, Table t, dict out) except -1:
    cdef FieldRow f
    cdef bint direct = t.owns(obj)
    cdef int k
    cdef dict sub
    for f in t.fields:
        v = get_field(obj, f, direct)
        if f.inline and f.kind == K_STRUCT:
            if v is not None:
                sub = {}
                _struct_into(c, v, _table_for(f, v), sub)
                for key, val in sub.items():
                    out.setdefault(key, val)
            continue
        if f.json == "-":
            continue
        if v is None:
            if f.omitempty or f.omitzero:
                continue
            out[f.json] = None
            continue
        k = f.kind
        if f.omitempty and PyObject_Not(v):
            if k == K_LIST or k == K_MAP or k == K_BYTES or (k <= K_FLOAT and not f.pointer):
                continue
        if f.omitzero and not f.pointer and is_zero_value(f, v):
            continue
        out[f.json] = _tree_value(c, f, v)
    return 0


def struct_to_tree(obj):
    """Typed struct -> JSON tree (its class is compiled)."""
    cdef dict out = {}
    cdef Table t = table_of(type(obj))
    # A tree is one dict per struct: keep the collector from scanning them as they appear.
    gc_pause()
    try:
        _struct_into(_IdCache(), obj, t, out)
    except RecursionError:
        raise EncodeError(_JSON_DEPTH_TEXT) from None
    finally:
        gc_resume()
    return out


# Nesting below which the tree copies recurse in C; deeper values (JSON allows 10000 levels)
# go to the pure twin's walks, whose limits (and errors) they keep.
cdef int _COPY_RECURSION = 200


def expand_raw_tree(tree):
    """A copy of the dicts and lists of JSON tree ``tree`` with every RawJSON leaf replaced
    by its parsed value (blank text: None)."""
    # As in struct_to_tree: the collector need not scan the new dicts as they appear.
    gc_pause()
    try:
        return _copy_tree(tree, 0, True)
    finally:
        gc_resume()


def copy_plain_tree(tree):
    """A deep copy of a plain JSON tree (dicts with str keys, lists, str, int, float, bool,
    None, each of exactly that type); TypeError for anything else."""
    gc_pause()
    try:
        return _copy_tree(tree, 0, False)
    finally:
        gc_resume()


cdef inline object _twin_copy(object v, bint expand):
    # anything but exact dicts, lists and plain scalars: RawJSON's parse, a subclass's own
    # items(), a non-string key's TypeError and their texts live in the twin
    tw = _twin()
    return tw.expand_raw_tree(v) if expand else tw.copy_plain_tree(v)


cdef object _copy_tree(object v, int depth, bint expand):
    """The walk of both copies: ``expand`` (expand_raw_tree) or strict (copy_plain_tree)."""
    cdef type t = type(v)
    cdef dict out
    cdef list lst
    cdef Py_ssize_t i, n
    cdef object x
    cdef type tx
    if t is str or t is int or t is bool or t is float or v is None:
        return v
    if depth >= _COPY_RECURSION or (t is not dict and t is not list):
        return _twin_copy(v, expand)
    if t is dict:
        out = {}
        for k, x in (<dict>v).items():
            if not expand and type(k) is not str:
                return _twin_copy(v, expand)
            tx = type(x)
            if tx is str or tx is int or tx is bool or tx is float or x is None:
                out[k] = x
            else:
                out[k] = _copy_tree(x, depth + 1, expand)
        return out
    n = PyList_GET_SIZE(v)
    lst = [None] * n
    for i in range(n):
        x = <object>PyList_GET_ITEM(v, i)
        tx = type(x)
        lst[i] = x if (tx is str or tx is int or tx is bool or tx is float or x is None) \
            else _copy_tree(x, depth + 1, expand)
    return lst


# Where a walk is, as a chain of C structs on the walk's stack (the protobuf and tree
# decoders): the texts of paths (errors' field paths, strict mode's messages) are written
# only when one is needed, not for every value (which cost a tree decode a third of its time).
cdef struct PathSeg:
    const PathSeg* up
    PyObject* text   # kind 0: the root path; 1: a json name; 3: a map key (all borrowed)
    Py_ssize_t index  # kind 2
    int kind


cdef str _tpath(const PathSeg* p, bint rooted):
    """``rooted``: the indexed path from the root name (``Deployment.spec.containers[0]``),
    else the strict path (``spec.containers[0]``: fields dot-joined, no root)."""
    cdef list parts = []
    cdef const PathSeg* q = p
    cdef str root = ""
    while q != NULL:
        if q.kind == 0:
            root = <str>q.text
            break
        parts.append(<size_t>q)
        q = q.up
    cdef list out = [root] if rooted else []
    cdef Py_ssize_t i
    for i in range(len(parts) - 1, -1, -1):
        q = <const PathSeg*><size_t>parts[i]
        if q.kind == 1:
            if rooted or len(out):
                out.append(".")
            out.append(<str>q.text)
        elif q.kind == 2:
            out.append(f"[{q.index}]")
        else:
            out.append(f"[{<object>q.text}]")
    return "".join(out)


cdef str _strict_prefix(const PathSeg* p):
    cdef str s = _tpath(p, False)
    return s + "." if s else s


cdef int _fill_tree(object obj, Table t, object tree, object strict, const PathSeg* p) except -1:
    _enter(" while filling a struct from a JSON tree")
    try:
        return _fill_tree_body(obj, t, tree, strict, p)
    finally:
        Py_LeaveRecursiveCall()


cdef int _fill_tree_body(object obj, Table t, object tree, object strict, const PathSeg* at) except -1:
    cdef dict jmap = t.json
    cdef tuple chain
    cdef FieldRow f, inl
    cdef Py_ssize_t i, n
    cdef PyObject* p
    cdef bint direct = t.owns(obj)
    cdef bint d
    cdef PathSeg fp
    fp.up = at
    fp.kind = 1
    if strict is not None:
        dups = getattr(tree, "duplicates", None)
        if dups:
            for key in dups:
                msg = f'duplicate field "{_strict_prefix(at)}{key}"'
                if msg not in strict:
                    strict.append(msg)
    for key, v in tree.items():
        p = PyDict_GetItem(jmap, key)
        if p == NULL:
            if strict is not None:
                msg = f'unknown field "{_strict_prefix(at)}{key}"'
                if msg not in strict:
                    strict.append(msg)
            continue
        chain = <tuple>p
        target = obj
        n = len(chain)
        for i in range(n - 1):
            inl = <FieldRow>chain[i]
            sub = getattr(target, inl.name)
            if sub is None:
                sub = inl.struct_table().new_zero()
                set_field(target, inl, sub, False)
            target = sub
        f = <FieldRow>chain[n - 1]
        # Slot offsets are the owning table's: usable on obj itself, not across inline hops.
        d = direct and n == 1
        fp.text = <PyObject*>key
        if f.kind == K_STR:
            if type(v) is str:
                set_field(target, f, v, d)
            elif v is None:
                # null clears a pointer but leaves a string value as it was (merge)
                if f.pointer:
                    set_field(target, f, None, d)
            else:
                raise _type_error(v, f.info, _tpath(&fp, True))
        else:
            old = get_field(target, f, d)
            set_field(target, f, _decode_tree_value(f, v, old, strict, &fp), d)
    return 0


cdef object _decode_tree_value(TypeRow t, object v, object old, object strict, const PathSeg* p):
    cdef int k = t.kind
    cdef TypeRow e
    cdef Table tab
    cdef Py_ssize_t i
    cdef list out
    cdef PathSeg ip
    if v is None:
        if t.pointer or k == K_LIST or k == K_MAP or k == K_BYTES or k == K_ANY:
            return None
        if k == K_CUSTOM:
            return t.cls._from_tree(None, _tpath(p, True))
        if k == K_STRUCT:
            return old if old is not None else t.struct_table().new_zero()
        # null leaves an existing scalar value alone (merge)
        return old if old is not None else _zero_of(t.info)
    if k == K_STR:
        if type(v) is str:
            return v
        raise _type_error(v, t.info, _tpath(p, True))
    if k == K_INT32 or k == K_INT64:
        if type(v) is int:
            if k == K_INT32:
                if INT32_MIN <= v <= INT32_MAX:
                    return v
            elif -9223372036854775808 <= v <= 9223372036854775807:
                return v
        raise _type_error(v, t.info, _tpath(p, True))
    if k == K_BOOL:
        if v is True or v is False:
            return v
        raise _type_error(v, t.info, _tpath(p, True))
    if k == K_STRUCT:
        if type(v) is not dict and not isinstance(v, dict):
            raise _type_error(v, t.info, _tpath(p, True))
        tab = t.struct_table()
        sub = old if old is not None else tab.new_zero()
        _fill_tree(sub, tab, v, strict, p)
        return sub
    if k == K_LIST:
        if type(v) is not list:
            raise _type_error(v, t.info, _tpath(p, True))
        e = t.elem
        if e.kind == K_STR:
            for x in <list>v:
                if type(x) is not str:
                    break
            else:
                return v
        out = []
        ip.up = p
        ip.kind = 2
        for i, x in enumerate(<list>v):
            ip.index = i
            out.append(_decode_tree_value(e, x, None, strict, &ip))
        return out
    if k == K_MAP:
        if not isinstance(v, dict):
            raise _type_error(v, t.info, _tpath(p, True))
        e = t.elem
        if e.kind == K_STR:
            for x in v.values():
                if type(x) is not str:
                    break
            else:
                out_map = dict(v)
                if old is not None:
                    old.update(out_map)
                    return old
                return out_map
        out_map = {}
        ip.up = p
        ip.kind = 3
        for key, x in v.items():
            ip.text = <PyObject*>key
            out_map[key] = _decode_tree_value(e, x, None, strict, &ip)
        if old is not None:
            old.update(out_map)
            return old
        return out_map
    if k == K_CUSTOM:
        if type(v) is str:
            # metav1.Time/MicroTime in the canonical UTC text: the JSON decoder's C parser
            r = time_from_text(t.cls, v)
            if r is not None:
                return r
        path = _tpath(p, True)
        try:
            return t.cls._from_tree(v, path)
        except DecodeError as exc:
            # The error is placed at this field; an UnmarshalJSON's own type error also
            # takes its context (Go's addErrorContext): fill_from_tree words it.
            exc.field_path = path
            raise
    if k == K_BYTES:
        if type(v) is not str:
            raise _type_error(v, t.info, _tpath(p, True))
        try:
            return _go_b64decode(v)
        except DecodeError as exc:
            exc.field_path = _tpath(p, True)
            raise
    if k == K_FLOAT:
        if type(v) is int or type(v) is float or type(v) is _JSONNumber:
            return float(v)
        raise _type_error(v, t.info, _tpath(p, True))
    return v


def fill_from_tree(obj, cls, tree, strict, path):
    """Fill ``obj`` (an instance of compiled ``cls``) from a JSON object tree."""
    cdef Table t = table_of(cls)
    cdef PathSeg root
    root.up = NULL
    root.kind = 0
    root.text = <PyObject*>path
    root.index = 0
    gc_pause()
    try:
        _fill_tree(obj, t, tree, strict, &root)
    except DecodeError as exc:
        # Go's wording names the innermost struct and the JSON path without indexes; this
        # walker only carries the indexed path, from which the pure twin finds the rest.
        if getattr(exc, "go_type_error", None) is not None:
            raise _twin().go_context_error(cls, path, exc) from None
        # The indexed path below this object, as the pure walker keeps it.
        fp = exc.field_path
        if type(fp) is str and fp.startswith(path + "."):
            exc.field_path = fp[len(path) + 1:]
        raise
    finally:
        gc_resume()


# ----------------------------------------------------------------------------- protobuf out

# Width of the length prefix the last nested body written under a field needed, by the
# address of the field's packed row (direct-mapped: a collision or a row freed and reused
# costs one move of a body, never wrong output). A length that outgrows the one byte
# reserved for it moves its body; in a PodList every pod, spec and container body did,
# each level moving everything inside it again. Kept across calls: the next encode of the
# same types starts right.
cdef enum:
    WIDTH_SLOTS = 1024

cdef const void* _width_key[WIDTH_SLOTS]
cdef unsigned char _width_val[WIDTH_SLOTS]


cdef inline Py_ssize_t _width_slot(const FieldC* fc) noexcept nogil:
    # Packed rows are 64 bytes apart: the low bits of their addresses are all alike.
    return <Py_ssize_t>((<size_t>fc >> 6) & (WIDTH_SLOTS - 1))


@cython.final
cdef class _Writer:
    """A growable output buffer (and the per-call cache of custom value bodies).

    The buffer is the result bytes object itself, resized as it grows and trimmed at the
    end, so the finished message is never copied."""
    cdef PyObject* out
    cdef unsigned char* buf
    cdef Py_ssize_t n
    cdef Py_ssize_t cap
    cdef _IdCache bodies
    cdef int depth
    cdef int max_depth

    def __cinit__(self):
        self.depth = 0
        # Not Python's recursion limit: this writer recurses in C (see MAX_ENCODE_DEPTH).
        self.max_depth = MAX_ENCODE_DEPTH
        bytebuf_new(&self.out, <char**>&self.buf, &self.cap, 4096)
        self.n = 0
        self.bodies = _IdCache()

    def __dealloc__(self):
        bytebuf_free(&self.out)

    cdef object custom_body(self, TypeRow t, object v):
        """``v._proto_body()``, once per immutable value object."""
        cdef PyObject* hit
        if not t.shareable or type(v) is not t.cls:
            return v._proto_body()
        hit = self.bodies.get(v)
        if hit != NULL:
            return <object>hit
        body = v._proto_body()
        self.bodies.put(v, body)
        return body

    cdef int grow(self, Py_ssize_t extra) except -1:
        return bytebuf_grow(&self.out, <char**>&self.buf, &self.cap, self.n + extra)

    cdef inline int put_byte(self, unsigned char b) except -1:
        if self.n + 1 > self.cap:
            self.grow(1)
        self.buf[self.n] = b
        self.n += 1
        return 0

    cdef inline int put_varint(self, uint64_t v) except -1:
        if self.n + 10 > self.cap:
            self.grow(10)
        while v >= 0x80:
            self.buf[self.n] = <unsigned char>((v & 0x7F) | 0x80)
            v >>= 7
            self.n += 1
        self.buf[self.n] = <unsigned char>v
        self.n += 1
        return 0

    cdef inline int put_raw(self, const void* data, Py_ssize_t size) except -1:
        if self.n + size > self.cap:
            self.grow(size)
        memcpy(self.buf + self.n, data, size)
        self.n += size
        return 0

    cdef inline int put_key(self, bytes key) except -1:
        cdef Py_ssize_t size = PyBytes_GET_SIZE(key)
        if size == 1:
            return self.put_byte((<unsigned char*>PyBytes_AS_STRING(key))[0])
        return self.put_raw(PyBytes_AS_STRING(key), size)

    cdef inline int put_bytes_field(self, object b) except -1:
        """Length + bytes of a bytes-like object (exact bytes on the fast path)."""
        cdef bytearray tmp
        if type(b) is not bytes:
            tmp = bytearray()
            tmp += b  # the pure walker's `out += b`: same acceptance, same errors
            b = bytes(tmp)
        self.put_varint(<uint64_t>PyBytes_GET_SIZE(b))
        return self.put_raw(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b))

    cdef inline Py_ssize_t open_len(self) except -1:
        """Reserve one byte for a length prefix; return where the body starts."""
        self.put_byte(0)
        return self.n

    cdef inline int close_len(self, Py_ssize_t start) except -1:
        """Write the length of the body that began at ``start`` into its reserved byte,
        shifting the body when the length needs more than one byte."""
        cdef Py_ssize_t size = self.n - start
        if size < 0x80:
            self.buf[start - 1] = <unsigned char>size
            return 0
        return self.close_long(start)

    cdef int close_long(self, Py_ssize_t start) except -1:
        cdef Py_ssize_t size = self.n - start
        cdef uint64_t v = <uint64_t>size
        cdef int extra = 0
        cdef Py_ssize_t i
        while v >= 0x80:
            v >>= 7
            extra += 1
        self.grow(extra)
        memmove(self.buf + start + extra, self.buf + start, size)
        self.n += extra
        v = <uint64_t>size
        i = start - 1
        while v >= 0x80:
            self.buf[i] = <unsigned char>((v & 0x7F) | 0x80)
            v >>= 7
            i += 1
        self.buf[i] = <unsigned char>v
        return 0

    cdef inline Py_ssize_t open_sized(self, const FieldC* fc, int* width) except -1:
        """Reserve a length prefix for a body written under ``fc`` as wide as the last
        such body needed (``_widths``); return where the body starts."""
        cdef Py_ssize_t slot = _width_slot(fc)
        cdef int w = _width_val[slot] if _width_key[slot] == <const void*>fc else 1
        if self.n + w > self.cap:
            self.grow(w)
        self.n += w
        width[0] = w
        return self.n

    cdef inline int close_sized(self, Py_ssize_t start, int width, const FieldC* fc) except -1:
        """Write the length of the body that began at ``start`` (``width`` bytes reserved
        by open_sized), moving the body only when that width was wrong, and remember the
        width for the next body under ``fc``."""
        cdef Py_ssize_t size = self.n - start
        cdef Py_ssize_t slot
        cdef int need
        if size < 0x80 and width == 1:
            self.buf[start - 1] = <unsigned char>size
            return 0
        need = uvarint_size(<uint64_t>size)
        if need != width:
            if need > width:
                self.grow(need - width)
            memmove(self.buf + start + need - width, self.buf + start, size)
            self.n += need - width
            start += need - width
        _varint_at(self.buf + start - need, <uint64_t>size)
        slot = _width_slot(fc)
        _width_key[slot] = <const void*>fc
        _width_val[slot] = <unsigned char>need
        return 0

    cdef bytes result(self):
        return <bytes>bytebuf_take(&self.out, self.n)


cdef int _put_str(_Writer w, object v) except -1:
    if type(v) is str and PyUnicode_IS_ASCII(v):
        w.put_varint(<uint64_t>PyUnicode_GET_LENGTH(v))
        return w.put_raw(PyUnicode_DATA(v), PyUnicode_GET_LENGTH(v))
    if type(v) is str:
        b = PyUnicode_AsEncodedString(v, "utf-8", "surrogateescape")
    else:
        b = v.encode("utf-8", "surrogateescape")
    return w.put_bytes_field(b)


cdef int _put_int(_Writer w, object v) except -1:
    cdef int overflow = 0
    cdef long long x
    if type(v) is int or type(v) is bool:
        x = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow == 0:
            return w.put_varint(<uint64_t>x)
    # Beyond int64 or not an int: the pure helper writes (or rejects) it.
    b = _twin()._varint(v)
    return w.put_raw(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b))


cdef inline int _put_fkey(_Writer w, const FieldC* fc) except -1:
    if fc.keylen == 1:
        return w.put_byte(fc.key[0])
    return w.put_raw(fc.key, fc.keylen)


cdef inline int _put_struct(_Writer w, object obj, Table t) except -1:
    # Nesting is bounded by MAX_ENCODE_DEPTH, counted on the writer (Py_EnterRecursiveCall
    # per struct was a twentieth of an encode, and Python's limit can be raised past what
    # the C stack holds). An error abandons the writer, so the count needs no unwinding.
    w.depth += 1
    if w.depth > w.max_depth:
        raise EncodeError(_PROTO_DEPTH_TEXT)
    _put_struct_body(w, obj, t)
    w.depth -= 1
    return 0


cdef inline PyObject* _row_table(PyObject* row, object v) noexcept:
    """Borrowed table of struct value ``v`` under TypeRow ``row`` when ``v`` is exactly the
    row's class and the row has resolved its table (kept alive by the row), else NULL:
    the common case without a reference taken on the row or the table."""
    cdef PyObject* tp = <PyObject*>(<TypeRow>row)._table
    if <PyObject*>Py_TYPE(<PyObject*>v) == <PyObject*>(<TypeRow>row).cls and tp != <PyObject*>None:
        return tp
    return NULL


cdef inline int _put_struct_body_at(_Writer w, object obj, PyObject* t) except -1:
    """_put_struct with a borrowed table (see _row_table)."""
    w.depth += 1
    if w.depth > w.max_depth:
        raise EncodeError(_PROTO_DEPTH_TEXT)
    _put_struct_body(w, obj, <Table>t)
    w.depth -= 1
    return 0


cdef enum:
    # What one pass over a map's entries found (_map_shape).
    MAP_UNORDERED = 0   # some key is not an exact str, or the keys do not ascend
    MAP_ORDERED = 1     # exact str keys that already ascend, as ``sorted`` would order them
    MAP_ASCII = 2       # ... and every key (and value, when asked) is exact compact ASCII


cdef inline bint _ascii_less(PyObject* a, PyObject* b) noexcept:
    """``a < b`` for two compact ASCII str: their bytes compare as their code points."""
    cdef Py_ssize_t na = _kc_ulen(a), nb = _kc_ulen(b)
    cdef int c = memcmp(_kc_ascii_data(a), _kc_ascii_data(b), na if na < nb else nb)
    return c < 0 or (c == 0 and na < nb)


cdef int _map_shape(dict d, bint str_values) except -1:
    """The MAP_* shape of ``d``'s entries (values looked at only with ``str_values``)."""
    cdef Py_ssize_t pos = 0
    cdef PyObject* k
    cdef PyObject* val
    cdef PyObject* prev = NULL
    cdef bint ascii = True
    while PyDict_Next(d, &pos, &k, &val):
        if Py_TYPE(k) != &PyUnicode_Type:
            return MAP_UNORDERED
        if ascii and not (_kc_compact_ascii(k) and (not str_values or (
                Py_TYPE(val) == &PyUnicode_Type and _kc_compact_ascii(val)))):
            ascii = False
        if prev != NULL:
            if ascii:  # prev and k both compact ASCII
                if not _ascii_less(prev, k):
                    return MAP_UNORDERED
            elif PyUnicode_Compare(<object>prev, <object>k) >= 0:
                return MAP_UNORDERED
        prev = k
    return MAP_ASCII if ascii else MAP_ORDERED


cdef inline unsigned char* _entry_room(_Writer w, Py_ssize_t kn, Py_ssize_t vn) except NULL:
    """Where a map entry of a ``kn``-byte key and ``vn``-byte value is written (_entry_at),
    with room for it: field key (6), three varints (10 each) and two tags besides the texts."""
    if w.n + kn + vn + 40 > w.cap:
        w.grow(kn + vn + 40)
    return w.buf + w.n


cdef int _put_ascii_map(_Writer w, const FieldC* fc, dict d) except -1:
    """A map[string]string of MAP_ASCII shape."""
    cdef Py_ssize_t pos = 0
    cdef PyObject* k
    cdef PyObject* val
    cdef unsigned char* out
    # Nothing here runs Python code: the borrowed entries stay alive.
    while PyDict_Next(d, &pos, &k, &val):
        out = _entry_room(w, _kc_ulen(k), _kc_ulen(val))
        w.n = _entry_at(out, fc.key, fc.keylen, _kc_ascii_data(k), _kc_ulen(k),
                        _kc_ascii_data(val), _kc_ulen(val)) - w.buf
    return 0


cdef int _put_custom_map(_Writer w, const FieldC* fc, TypeRow e, dict d) except -1:
    """A map of MAP_ASCII keys to values of an immutable custom type (Quantity): each
    value's body comes from the per-call cache, so every entry's length is known up front.
    Entries it cannot size so (None, another class, a body that is not bytes) are written
    by _put_map_entry."""
    cdef Py_ssize_t pos = 0
    cdef PyObject* k
    cdef PyObject* val
    cdef unsigned char* out
    while PyDict_Next(d, &pos, &k, &val):
        # Held: a value's _proto_body is Python code.
        mk = <object>k
        mv = <object>val
        if type(mv) is e.cls:
            b = w.custom_body(e, mv)
            if type(b) is bytes:
                out = _entry_room(w, _kc_ulen(k), PyBytes_GET_SIZE(b))
                w.n = _entry_at(out, fc.key, fc.keylen, _kc_ascii_data(k), _kc_ulen(k),
                                <const unsigned char*>PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b)) - w.buf
                continue
        _put_map_entry(w, fc, e, mk, mv)
    return 0


cdef int _put_map_entry(_Writer w, const FieldC* fc, TypeRow e, object mk, object mv) except -1:
    """One map entry: the field key, then a length-delimited (key=1, value=2) message."""
    cdef Py_ssize_t start
    _put_fkey(w, fc)
    start = w.open_len()
    w.put_byte(0x0A)
    if type(mk) is str:
        _put_str(w, mk)
    else:
        w.put_bytes_field(mk.encode("utf-8", "surrogateescape"))
    if mv is not None or e.kind != K_BYTES:
        w.put_byte(<unsigned char>((2 << 3) | e.wire))
        _put_value(w, e, mv)
    return w.close_len(start)


cdef extern from *:
    """
    #include <string.h>
    #include <stdint.h>
    /* memcpy of n bytes, inline for the short runs most strings are: overlapping word
       loads and stores that stay inside [0, n) of both buffers. */
    static inline void kc_copy_short(unsigned char *d, const unsigned char *s, Py_ssize_t n)
    {
        uint64_t a, b;
        uint32_t p, q;
        if (n > 16) {
            memcpy(d, s, (size_t)n);
        } else if (n >= 8) {
            memcpy(&a, s, 8);
            memcpy(&b, s + n - 8, 8);
            memcpy(d, &a, 8);
            memcpy(d + n - 8, &b, 8);
        } else if (n >= 4) {
            memcpy(&p, s, 4);
            memcpy(&q, s + n - 4, 4);
            memcpy(d, &p, 4);
            memcpy(d + n - 4, &q, 4);
        } else {
            for (Py_ssize_t i = 0; i < n; i++) {
                d[i] = s[i];
            }
        }
    }
    """
    void _copy_short "kc_copy_short"(unsigned char* d, const unsigned char* s, Py_ssize_t n) noexcept nogil


cdef extern from *:
    """
    #define kc_list_items(o) (((PyListObject *)(o))->ob_item)
    #define kc_list_size(o) Py_SIZE(o)
    #define kc_list_allocated(o) (((PyListObject *)(o))->allocated)
    #define kc_list_set_size(o, n) Py_SET_SIZE((PyVarObject *)(o), (n))
    """
    PyObject** _kc_list_items "kc_list_items"(PyObject* o) noexcept nogil
    Py_ssize_t _kc_list_size "kc_list_size"(PyObject* o) noexcept nogil
    Py_ssize_t _kc_list_allocated "kc_list_allocated"(PyObject* o) noexcept nogil
    void _kc_list_set_size "kc_list_set_size"(PyObject* o, Py_ssize_t n) noexcept nogil


cdef extern from *:
    """
    #define kc_compact_ascii(o) PyUnicode_IS_COMPACT_ASCII(o)
    #define kc_ascii_data(o) ((const unsigned char *)(((PyASCIIObject *)(o)) + 1))
    #define kc_bytes_data(o) ((const unsigned char *)PyBytes_AS_STRING(o))
    #define kc_bytes_len(o) PyBytes_GET_SIZE(o)
    """
    # An exact str that is compact ASCII keeps its text right after the header.
    bint _kc_compact_ascii "kc_compact_ascii"(PyObject* o) noexcept nogil
    const unsigned char* _kc_ascii_data "kc_ascii_data"(PyObject* o) noexcept nogil
    # An exact bytes object's text and length.
    const unsigned char* _kc_bytes_data "kc_bytes_data"(PyObject* o) noexcept nogil
    Py_ssize_t _kc_bytes_len "kc_bytes_len"(PyObject* o) noexcept nogil


cdef extern from *:
    """
    /* The value of an exact int of at most one digit (most counts, ports and sizes; two
       30-bit digits, as Unix seconds take, before 3.12), read in place instead of through
       PyLong_AsLongLongAndOverflow; 0 for others. */
    static inline int kc_small_long(PyObject *o, long long *out)
    {
    #if PY_VERSION_HEX >= 0x030C0000
        if (PyUnstable_Long_IsCompact((PyLongObject *)o)) {
            *out = (long long)PyUnstable_Long_CompactValue((PyLongObject *)o);
            return 1;
        }
        return 0;
    #else
        Py_ssize_t size = Py_SIZE(o);
        if (size == 0) {
            *out = 0;
            return 1;
        }
        if (size == 1 || size == -1) {
            *out = (long long)((PyLongObject *)o)->ob_digit[0] * size;
            return 1;
        }
    #if PYLONG_BITS_IN_DIGIT == 30
        if (size == 2 || size == -2) {
            long long v = (long long)((PyLongObject *)o)->ob_digit[0]
                | ((long long)((PyLongObject *)o)->ob_digit[1] << 30);
            *out = size < 0 ? -v : v;
            return 1;
        }
    #endif
        return 0;
    #endif
    }
    """
    bint _small_long "kc_small_long"(PyObject* o, long long* out) noexcept nogil


cdef extern from *:
    """
    /* A varint at out; returns the byte after it. */
    static inline unsigned char *kc_varint_at(unsigned char *out, uint64_t v)
    {
        while (v >= 0x80) {
            *out++ = (unsigned char)((v & 0x7F) | 0x80);
            v >>= 7;
        }
        *out++ = (unsigned char)v;
        return out;
    }

    static inline int kc_varint_len(uint64_t v)
    {
        int n = 1;
        while (v >= 0x80) {
            v >>= 7;
            n++;
        }
        return n;
    }

    /* One map entry (field key, length, then key 1 = the text k and value 2 = the bytes
       val) at out; returns the byte after it. Forced inline: both sized map writers use it
       for every entry, and as a call gcc's heuristics left it out of line (1.3% of a
       PodList encode). */
    static inline __attribute__((always_inline)) unsigned char *kc_entry_at(
        unsigned char *out, const unsigned char *key, int keylen,
        const unsigned char *k, Py_ssize_t kn, const unsigned char *val, Py_ssize_t vn)
    {
        Py_ssize_t body = 2 + kc_varint_len((uint64_t)kn) + kn + kc_varint_len((uint64_t)vn) + vn;
        if (keylen == 1) {
            *out++ = key[0];
        } else {
            memcpy(out, key, (size_t)keylen);
            out += keylen;
        }
        out = kc_varint_at(out, (uint64_t)body);
        *out++ = 0x0A;
        out = kc_varint_at(out, (uint64_t)kn);
        kc_copy_short(out, k, kn);
        out += kn;
        *out++ = 0x12;
        out = kc_varint_at(out, (uint64_t)vn);
        kc_copy_short(out, val, vn);
        return out + vn;
    }
    """
    unsigned char* _entry_at "kc_entry_at"(unsigned char* out, const unsigned char* key, int keylen,
                                           const unsigned char* k, Py_ssize_t kn,
                                           const unsigned char* val, Py_ssize_t vn) noexcept nogil


cdef inline int _put_key_at(unsigned char* out, const FieldC* fc) noexcept nogil:
    if fc.keylen == 1:
        out[0] = fc.key[0]
        return 1
    memcpy(out, fc.key, fc.keylen)
    return fc.keylen


cdef inline int _varint_at(unsigned char* out, uint64_t v) noexcept nogil:
    cdef int i = 0
    while v >= 0x80:
        out[i] = <unsigned char>((v & 0x7F) | 0x80)
        v >>= 7
        i += 1
    out[i] = <unsigned char>v
    return i + 1


cdef inline int _put_text_field(_Writer w, const FieldC* fc, const unsigned char* s,
                                Py_ssize_t n) except -1:
    """Key, length and the ``n`` bytes at ``s``, behind one capacity check."""
    cdef unsigned char* out
    if w.n + n + 16 > w.cap:
        w.grow(n + 16)
    out = w.buf + w.n
    out += _put_key_at(out, fc)
    out += _varint_at(out, <uint64_t>n)
    _copy_short(out, s, n)
    w.n = (out - w.buf) + n
    return 0


cdef inline int _put_ascii_field(_Writer w, const FieldC* fc, PyObject* s) except -1:
    """Key, length and text of an exact ASCII str."""
    return _put_text_field(w, fc, _kc_ascii_data(s), _kc_ulen(s))


cdef inline PyObject* _cached_body(_Writer w, TypeRow t, object v) noexcept:
    """The borrowed body (exact bytes) of an immutable custom value already asked for in
    this call, when ``v`` is exactly ``t``'s class and not a Timestamp: what _put_value
    would write through custom_body; NULL otherwise. Decoded lists share such values
    (IntOrString ports, Quantities), so most occurrences are hits."""
    cdef PyObject* hit
    if not t.shareable or t.pb_time_unit >= 0 or type(v) is not t.cls:
        return NULL
    hit = w.bodies.get(v)
    if hit == NULL or Py_TYPE(hit) != &PyBytes_Type:
        return NULL
    return hit


cdef inline int _put_varint_field(_Writer w, const FieldC* fc, uint64_t v) except -1:
    cdef unsigned char* out
    if w.n + 16 > w.cap:
        w.grow(16)
    out = w.buf + w.n
    out += _put_key_at(out, fc)
    out += _varint_at(out, v)
    w.n = out - w.buf
    return 0


cdef inline bint _put_leaf(_Writer w, const FieldC* fc, int k, PyObject* p) except -1:
    """Write a str, int or bool field straight from the borrowed ``p`` when it is an exact
    instance with the plain encoding; False when the general path must decide. Nothing
    here runs Python code, so ``p`` stays alive while it is read."""
    cdef long long x
    cdef int overflow = 0
    if k == K_STR:
        if Py_TYPE(p) == &PyUnicode_Type and _kc_compact_ascii(p):
            _put_ascii_field(w, fc, p)
            return True
        return False
    if k == K_INT32 or k == K_INT64:
        if Py_TYPE(p) == &PyLong_Type:
            if _small_long(p, &x):
                _put_varint_field(w, fc, <uint64_t>x)
                return True
            x = _kc_long_overflow(p, &overflow)
            if overflow == 0:
                if x == -1 and PyErr_Occurred() != NULL:
                    return -1
                _put_varint_field(w, fc, <uint64_t>x)
                return True
        return False
    if k == K_BOOL:
        if p == _Py_True:
            _put_varint_field(w, fc, 1)
            return True
        if p == _Py_False:
            _put_varint_field(w, fc, 0)
            return True
    return False


cdef int _put_str_list(_Writer w, const FieldC* fc, list v) except -1:
    """An unpacked repeated string field: one key + length + text per item."""
    cdef Py_ssize_t i = 0
    cdef PyObject* x
    # Items are borrowed: the list is held by the caller and nothing here runs Python
    # code except the general path, which takes its own reference first.
    while i < PyList_GET_SIZE(v):
        x = PyList_GET_ITEM(v, i)
        if Py_TYPE(x) == &PyUnicode_Type and _kc_compact_ascii(x):
            _put_ascii_field(w, fc, x)
        else:
            item = <object>x
            _put_fkey(w, fc)
            _put_str(w, item)
        i += 1
    return 0


cdef int _put_struct_body(_Writer w, object obj, Table t) except -1:
    cdef const FieldC* fc
    cdef const FieldC* pbc = t.pb_c
    cdef TypeRow e
    cdef bint direct = t.owns(obj)
    cdef int k, width, shape
    cdef Py_ssize_t i, start, npb = t.npb
    cdef PyObject* p
    cdef PyObject* tp
    cdef char* base = <char*><PyObject*>obj
    # -1 when the slots may not be read: then every field's "offset" looks negative.
    cdef Py_ssize_t slow = 0 if direct else -1
    for i in range(npb):
        fc = &pbc[i]
        k = fc.kind
        if (fc.offset | slow) >= 0:
            p = (<PyObject**>(base + fc.offset))[0]
            if p == <PyObject*>None:
                continue
            if p == NULL:
                v = getattr(obj, (<FieldRow>fc.row).name)  # AttributeError, as Python says it
            elif k <= K_INT64 and _put_leaf(w, fc, k, p):
                continue
            else:
                v = <object>p
        else:
            v = getattr(obj, (<FieldRow>fc.row).name)
            if v is None:
                continue
        if k == K_STR:
            _put_fkey(w, fc)
            _put_str(w, v)
            continue
        if k == K_LIST and not fc.wrapped:
            e = (<FieldRow>fc.row).elem
            if type(v) is list:
                if e.kind == K_STR:
                    _put_str_list(w, fc, <list>v)
                    continue
                if e.kind == K_STRUCT:
                    for x in <list>v:
                        _put_fkey(w, fc)
                        start = w.open_sized(fc, &width)
                        if x is not None:
                            tp = _row_table(<PyObject*>e, x)
                            if tp != NULL:
                                _put_struct_body_at(w, x, tp)
                            else:
                                _put_struct(w, x, _table_for(e, x))
                        w.close_sized(start, width, fc)
                    continue
                for x in <list>v:
                    _put_fkey(w, fc)
                    _put_value(w, e, x)
            else:
                for x in v:
                    _put_fkey(w, fc)
                    _put_value(w, e, x)
            continue
        if k == K_MAP:
            if PyObject_Not(v):
                continue
            e = (<FieldRow>fc.row).elem
            shape = _map_shape(<dict>v, e.kind == K_STR) if type(v) is dict else MAP_UNORDERED
            if shape != MAP_UNORDERED:
                # Most maps were decoded from Go's sorted output (or hold one entry):
                # walk them as they are instead of building a sorted key list.
                if shape == MAP_ASCII and e.kind == K_STR:
                    _put_ascii_map(w, fc, <dict>v)
                elif shape == MAP_ASCII and e.kind == K_CUSTOM and e.shareable and e.pb_time_unit < 0:
                    _put_custom_map(w, fc, e, <dict>v)
                else:
                    for mk, mv in (<dict>v).items():
                        _put_map_entry(w, fc, e, mk, mv)
            else:
                for mk in sorted(v):
                    _put_map_entry(w, fc, e, mk, v[mk])
            continue
        if k == K_CUSTOM:
            if (<TypeRow>fc.row).pb_time_unit >= 0 and _put_time(w, <TypeRow>fc.row, v, fc):
                continue
            tp = _cached_body(w, <TypeRow>fc.row, v)
            if tp != NULL:
                # Borrowed from the cache: nothing runs Python code until it is copied.
                _put_text_field(w, fc, _kc_bytes_data(tp), _kc_bytes_len(tp))
                continue
        _put_fkey(w, fc)
        if k == K_STRUCT:
            start = w.open_sized(fc, &width)
            tp = _row_table(fc.row, v)
            if tp != NULL:
                _put_struct_body_at(w, v, tp)
            else:
                _put_struct(w, v, _table_for(<FieldRow>fc.row, v))
            w.close_sized(start, width, fc)
            continue
        _put_value(w, <FieldRow>fc.row, v)
    return 0


# Custom value type -> nanosecond divisor of its protobuf Timestamp (``_KC_PB_TIME_UNIT``:
# metav1.Time keeps no nanos, 0; MicroTime keeps microseconds, 1000), or -1. Building each
# Timestamp body in Python was a fifth of encoding a single Pod.
cdef dict _time_unit = {}
cdef long long _ZERO_UNIX_SEC = -62135596800LL


cdef int _put_time(_Writer w, TypeRow t, object v, const FieldC* fc) except -1:
    """Length-prefixed ``v._proto_body()`` of a metav1 Time/MicroTime, written here (after
    the key of ``fc`` unless it is NULL), behind one capacity check.

    Returns 0 (nothing written) for any other value, or one not plainly built."""
    cdef PyObject* p
    cdef long long sec, nsec, unit
    cdef int overflow = 0
    cdef unsigned char* out
    cdef unsigned char* body
    if type(v) is t.cls and (t.pb_time_unit < 0 or (t.sec_offset >= 0 and t.nsec_offset >= 0)):
        # The row knows the class: its unit and slots without a lookup by name.
        unit = t.pb_time_unit
        if unit < 0:
            return 0
        p = (<PyObject**>((<char*><PyObject*>v) + t.sec_offset))[0]
        if p == NULL:
            return 0  # unset: getattr(v, "_sec", None) would give None
        sv = <object>p
        p = (<PyObject**>((<char*><PyObject*>v) + t.nsec_offset))[0]
        if p == NULL:
            return 0
        nv = <object>p
    else:
        unit = _time_unit_for(type(v))
        if unit < 0:
            return 0
        sv = getattr(v, "_sec", None)
        nv = getattr(v, "_nsec", None)
    if type(sv) is not int or type(nv) is not int:
        return 0
    if not _small_long(<PyObject*>sv, &sec):
        sec = PyLong_AsLongLongAndOverflow(sv, &overflow)
        if overflow:
            return 0
    if not _small_long(<PyObject*>nv, &nsec):
        nsec = PyLong_AsLongLongAndOverflow(nv, &overflow)
    if overflow or nsec < 0 or nsec >= 1000000000:
        return 0
    # Key (6), length (1: a body is at most 22 bytes) and two tagged varints (11 each).
    if w.n + 32 > w.cap:
        w.grow(32)
    out = w.buf + w.n
    if fc != NULL:
        out += _put_key_at(out, fc)
    if sec == _ZERO_UNIX_SEC and nsec == 0:
        out[0] = 0
        w.n = (out - w.buf) + 1
        return 1
    body = out + 1
    body[0] = 0x08
    body += 1 + _varint_at(body + 1, <uint64_t>sec)
    body[0] = 0x10
    body += 1 + _varint_at(body + 1, <uint64_t>(nsec - nsec % unit) if unit > 0 else 0)
    out[0] = <unsigned char>(body - out - 1)
    w.n = body - w.buf
    return 1


# Custom value type -> whether its protobuf body is ``{1: raw}`` of its ``raw`` bytes,
# empty when they are None or empty (``_KC_PB_RAW_FIELD``: metav1.FieldsV1). Its Python
# ``_proto_body`` was a twentieth of encoding a Pod with managed fields.
cdef dict _raw_field = {}


cdef int _put_raw_field(_Writer w, object v) except -1:
    """Length-prefixed body of a custom value that opts in with ``_KC_PB_RAW_FIELD``,
    written here; 0 (nothing written) for any other value, or one whose ``raw`` is
    neither None nor exact bytes (its own method decides)."""
    cdef PyObject* p
    cdef Py_ssize_t n
    tp = type(v)
    p = PyDict_GetItemWithError(_raw_field, tp)
    if p == NULL:
        # Only where the class itself says so: a subclass may encode differently.
        flag = tp.__dict__.get("_KC_PB_RAW_FIELD") is True
        _raw_field[tp] = flag
        if not flag:
            return 0
    elif p != _Py_True:
        return 0
    raw = v.raw  # AttributeError when unset, as the method's ``self.raw``
    if raw is None:
        w.put_byte(0)
        return 1
    if type(raw) is not bytes:
        return 0
    n = PyBytes_GET_SIZE(raw)
    if n == 0:
        w.put_byte(0)
        return 1
    w.put_varint(<uint64_t>(1 + uvarint_size(<uint64_t>n) + n))
    w.put_byte(0x0A)
    w.put_varint(<uint64_t>n)
    w.put_raw(PyBytes_AS_STRING(raw), n)
    return 1


cdef int _put_value(_Writer w, TypeRow t, object v) except -1:
    cdef int k = t.kind
    cdef Py_ssize_t start
    cdef TypeRow e
    cdef double d
    cdef unsigned char key1
    if k == K_STR:
        return _put_str(w, v)
    if k == K_INT32 or k == K_INT64:
        return _put_int(w, v)
    if k == K_BOOL:
        return w.put_byte(1 if PyObject_IsTrue(v) else 0)
    if k == K_STRUCT:
        start = w.open_len()
        if v is not None:
            _put_struct(w, v, _table_for(t, v))
        return w.close_len(start)
    if k == K_CUSTOM:
        if v is None:
            return w.put_byte(0)
        # Immutable values have their bodies cached per call instead (custom_body).
        if _put_time(w, t, v, NULL) or (not t.shareable and _put_raw_field(w, v)):
            return 0
        return w.put_bytes_field(w.custom_body(t, v))
    if k == K_BYTES:
        if v is None:
            return w.put_byte(0)
        return w.put_bytes_field(v)
    if k == K_LIST:
        e = t.elem
        key1 = <unsigned char>((1 << 3) | e.wire)
        start = w.open_len()
        if v is not None and PyObject_IsTrue(v):
            for x in v:
                w.put_byte(key1)
                _put_value(w, e, x)
        return w.close_len(start)
    if k == K_FLOAT:
        if type(v) is float and _little_endian():
            d = PyFloat_AS_DOUBLE(v)
            return w.put_raw(&d, 8)
        b = _pack("<d", v)
        return w.put_raw(PyBytes_AS_STRING(b), 8)
    raise EncodeError(f"cannot encode {t.info.go_name()} as protobuf")


cdef inline bint _little_endian() noexcept nogil:
    cdef uint32_t one = 1
    return (<unsigned char*>&one)[0] == 1


# Output size of the last message per root class: the next buffer starts that large, so a
# big list is not copied through a dozen doublings (unused capacity is never touched and
# is trimmed at the end). Cleared when it holds many classes, so classes made on the fly
# are not kept alive by it.
cdef dict _size_hint = {}

cdef enum:
    # Writers check for room for a few bytes more than they write (16 at most): a buffer
    # sized to exactly the last message would double (a copy of megabytes into fresh
    # pages) for the last few fields of an equal one.
    WRITE_SLACK = 64


def struct_to_proto(obj, prefix=None, suffix=b""):
    """Typed struct -> protobuf message body; with ``prefix``, framed as ``prefix +
    uvarint(len(body)) + body + suffix`` in the same buffer (no copy of the body)."""
    cdef _Writer w = _Writer()
    cdef Py_ssize_t body_at, size, guess = 0
    cdef Py_ssize_t width = 0, need
    cdef bytes pre, suf
    cls = type(obj)
    hint = _size_hint.get(cls)
    if prefix is not None:
        pre = prefix if type(prefix) is bytes else bytes(prefix)
        suf = suffix if type(suffix) is bytes else bytes(suffix)
        if hint is not None:
            guess = <Py_ssize_t>hint
        w.grow(PyBytes_GET_SIZE(pre) + 10 + guess + PyBytes_GET_SIZE(suf) + WRITE_SLACK)
        w.put_raw(PyBytes_AS_STRING(pre), PyBytes_GET_SIZE(pre))
        # Room for the body's length, as wide as the last body of this class needed;
        # a different width costs one move of the body.
        width = uvarint_size(<uint64_t>guess)
        w.n += width  # inside the 10 bytes grown for above
    elif hint is not None:
        w.grow(<Py_ssize_t>hint + WRITE_SLACK)
    body_at = w.n
    _put_struct(w, obj, table_of(cls))
    size = w.n - body_at
    if len(_size_hint) >= 512:
        _size_hint.clear()
    _size_hint[cls] = size
    if prefix is None:
        return w.result()
    need = uvarint_size(<uint64_t>size)
    if need != width:
        w.grow(need - width if need > width else 0)
        memmove(w.buf + body_at + need - width, w.buf + body_at, size)
        w.n += need - width
        body_at += need - width
    w.n = body_at - need
    w.put_varint(<uint64_t>size)
    w.n = body_at + size
    w.put_raw(PyBytes_AS_STRING(suf), PyBytes_GET_SIZE(suf))
    return w.result()


# ----------------------------------------------------------------------------- protobuf in

cdef str _path(const PathSeg* s):
    parts = []
    while s != NULL:
        if s.kind == 0:
            parts.append(<str>s.text)
        elif s.kind == 1:
            parts.append("." + <str>s.text)
        elif s.kind == 2:
            parts.append(f"[{s.index}]")
        else:
            parts.append(f"[{<str>s.text}]")
        s = s.up
    parts.reverse()
    return "".join(parts)


cdef class _Reader:
    """One fill_from_proto call: the input, the per-call memo of shareable custom values
    and a small cache of short ASCII strings (decoded documents repeat most of their
    strings; equal str objects are interchangeable)."""
    cdef bytes data            # the whole buffer: p, size and positions cover data[off:off+size]
    cdef Py_ssize_t off
    cdef const unsigned char* p
    cdef Py_ssize_t size
    cdef StrCache strs
    cdef PyObject** ccls
    cdef PyObject** cbody
    cdef PyObject** cval

    def __dealloc__(self):
        cdef Py_ssize_t i
        strcache_clear(&self.strs)
        if self.ccls != NULL:
            for i in range(CUSTOM_CACHE):
                Py_XDECREF(self.ccls[i])
                Py_XDECREF(self.cbody[i])
                Py_XDECREF(self.cval[i])
        PyMem_Free(self.ccls)
        PyMem_Free(self.cbody)
        PyMem_Free(self.cval)

    cdef int init_strings(self, Py_ssize_t size) except -1:
        return strcache_init(&self.strs, size)


cdef extern from *:
    int SHORT_STR "KC_SHORT_STR"


cdef enum:
    CUSTOM_CACHE = 1021


cdef inline uint64_t _hash(_Reader r, const unsigned char* s, Py_ssize_t n,
                           uint64_t* acc_out) noexcept nogil:
    """A quick hash of ``s[0:n]`` and the OR of its bytes (for the ASCII test).

    The tail is read as one 8-byte load and masked when the buffer extends that far,
    which avoids a variable-length copy for the short strings that dominate."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t>n
    cdef uint64_t acc = 0, chunk = 0
    cdef Py_ssize_t i = 0, rest
    while i + 8 <= n:
        memcpy(&chunk, s + i, 8)
        acc |= chunk
        h = (h ^ chunk) * 0x100000001B3ULL
        h ^= h >> 32
        i += 8
    rest = n - i
    if rest:
        if s + i + 8 <= r.p + r.size:
            memcpy(&chunk, s + i, 8)
            chunk &= (<uint64_t>1 << (8 * rest)) - 1
        else:
            chunk = 0
            memcpy(&chunk, s + i, rest)
        acc |= chunk
        h = (h ^ chunk) * 0x100000001B3ULL
        h ^= h >> 32
    acc_out[0] = acc
    return h ^ (h >> 17)


cdef extern from *:
    """
    /* The cached str equal to the ASCII bytes s[0:n] (0 < n <= 64) of a buffer ending at
       end, or NULL with *h set to their hash and *ascii to whether they are ASCII (the
       caller then creates and caches it). Plain C forced inline: per string this is the
       whole decoder's cost on a hit, so no call frame and no hash loop for short strings.
       Two overlapping 8-byte loads cover 8 to 16 bytes; shorter strings load one word and
       mask it, except at the very end of the buffer where only n bytes may be read. */
    static inline __attribute__((always_inline)) PyObject *
    kc_str_lookup(PyObject **tab, Py_ssize_t mask, const unsigned char *s, Py_ssize_t n,
                  const unsigned char *end, uint64_t *h, int *ascii)
    {
        uint64_t a = 0, b, acc, x;
        Py_ssize_t i, slot, way;
        PyObject *cur;
        if (n >= 8) {
            memcpy(&a, s, 8);
            memcpy(&b, s + n - 8, 8);
            acc = a | b;
            x = (a ^ (uint64_t)n) * 0x9E3779B97F4A7C15ULL ^ b * 0xC2B2AE3D27D4EB4FULL;
            for (i = 8; i < n - 8; i += 8) {
                memcpy(&b, s + i, 8);
                acc |= b;
                x = (x ^ b) * 0x100000001B3ULL;
            }
        } else {
            if (end - s >= 8) {
                memcpy(&a, s, 8);
                a &= (((uint64_t)1) << (8 * n)) - 1;
            } else {
                memcpy(&a, s, (size_t)n);
            }
            acc = a;
            x = (a ^ (uint64_t)n) * 0x9E3779B97F4A7C15ULL;
        }
        /* The products above carry a byte's bits only upward; the table takes the low
           bits: fold the high half down, mix once more, fold again. */
        x ^= x >> 32;
        x *= 0xD6E8FEB86659FD93ULL;
        x ^= x >> 32;
        *h = x;
        *ascii = (acc & 0x8080808080808080ULL) == 0;
        if (!*ascii) {
            return NULL;
        }
        /* Two ways (the slot and its neighbour, one cache line): two strings that share a
           slot and alternate, a field name and its neighbour in every item, both stay. */
        slot = (Py_ssize_t)(x & (uint64_t)mask);
        for (way = 0; way < 2; way++) {
            cur = tab[slot ^ way];
            if (cur != NULL && PyUnicode_GET_LENGTH(cur) == n
                    && kc_same_bytes((const unsigned char *)PyUnicode_DATA(cur), s, n)) {
                return cur;
            }
        }
        return NULL;
    }

    /* Cache u (a new str) under hash h after kc_str_lookup missed: into a free way, else
       the slot's occupant moves to its neighbour (whose occupant is returned, to be
       released by the caller) and u takes the slot. */
    static inline PyObject *
    kc_str_insert(PyObject **tab, Py_ssize_t mask, uint64_t h, PyObject *u)
    {
        Py_ssize_t slot = (Py_ssize_t)(h & (uint64_t)mask);
        PyObject *gone;
        Py_INCREF(u);
        if (tab[slot] == NULL) {
            tab[slot] = u;
            return NULL;
        }
        gone = tab[slot ^ 1];
        if (gone == NULL) {
            tab[slot ^ 1] = u;
            return NULL;
        }
        tab[slot ^ 1] = tab[slot];
        tab[slot] = u;
        return gone;
    }

    /* kc_str_lookup's hit for p[pos:pos+n] when 0 < n <= KC_SHORT_STR, else NULL (then
       call _str). The decode loops store a hit without any call. */
    #define KC_SHORT_STR 64
    static inline __attribute__((always_inline)) PyObject *
    kc_str_hit(PyObject **tab, Py_ssize_t mask, const unsigned char *p, Py_ssize_t size,
               Py_ssize_t pos, Py_ssize_t n)
    {
        uint64_t h;
        int ascii;
        if (n > KC_SHORT_STR || n == 0) {
            return NULL;
        }
        return kc_str_lookup(tab, mask, p + pos, n, p + size, &h, &ascii);
    }
    """
    PyObject* _kc_str_hit "kc_str_hit"(PyObject** tab, Py_ssize_t mask, const unsigned char* p,
                                         Py_ssize_t size, Py_ssize_t pos, Py_ssize_t n) noexcept nogil
    PyObject* _kc_str_insert "kc_str_insert"(PyObject** tab, Py_ssize_t mask, uint64_t h, PyObject* u) noexcept
    PyObject* _kc_str_lookup "kc_str_lookup"(PyObject** tab, Py_ssize_t mask, const unsigned char* s,
                                               Py_ssize_t n, const unsigned char* end, uint64_t* h,
                                               int* ascii) noexcept nogil


cdef object _str(_Reader r, Py_ssize_t pos, Py_ssize_t n):
    """``buf[pos:pos+n].decode("utf-8", "surrogateescape")``, shared when short ASCII."""
    cdef const unsigned char* s = r.p + pos
    cdef uint64_t h = 0
    cdef int ascii = 0
    cdef PyObject* hit
    if n > SHORT_STR or n == 0:
        return PyUnicode_DecodeUTF8(<char*>s, n, "surrogateescape")
    hit = _kc_str_lookup(r.strs.tab, r.strs.mask, s, n, r.p + r.size, &h, &ascii)
    if hit != NULL:
        return <object>hit
    if not ascii:
        return PyUnicode_DecodeUTF8(<char*>s, n, "surrogateescape")
    u = PyUnicode_New(n, 127)
    memcpy(PyUnicode_DATA(u), s, n)
    # The evicted str (if any) is released once the table no longer holds it.
    Py_XDECREF(_kc_str_insert(r.strs.tab, r.strs.mask, h, <PyObject*>u))
    return u


cdef long long _time_unit_for(object tp) except -2:
    """Nanosecond unit of custom type ``tp``'s Timestamp (see ``_time_unit``), or -1."""
    cdef PyObject* p = PyDict_GetItemWithError(_time_unit, tp)
    if p != NULL:
        return <long long><object>p
    # Only where the class itself says so: a subclass may encode differently.
    uv = tp.__dict__.get("_KC_PB_TIME_UNIT")
    unit = uv if type(uv) is int and 0 <= uv <= 1000000000 else -1
    _time_unit[tp] = unit
    return unit


cdef object _time_from_timestamp(object cls, const unsigned char* s, Py_ssize_t n):
    """``cls._from_proto_body(s[:n])`` for a Time/MicroTime Timestamp made of plain
    seconds and nanos varints, or None for anything else (empty bodies, other fields,
    bad varints: the Python method decides, with its errors)."""
    cdef long long unit = _time_unit_for(cls)
    cdef Py_ssize_t pos = 0
    cdef uint64_t v = 0
    cdef int64_t sec = 0
    cdef int32_t nanos = 0
    cdef long long whole
    if unit < 0 or n == 0:
        return None
    while pos < n:
        if s[pos] == 0x08:
            pos += 1
            if read_uvarint(s, &pos, n, &v) != VARINT_OK:
                return None
            sec = <int64_t>v
        elif s[pos] == 0x10:
            pos += 1
            if read_uvarint(s, &pos, n, &v) != VARINT_OK:
                return None
            nanos = <int32_t>(<uint32_t>(v & 0xFFFFFFFFULL))
        else:
            return None
    if unit == 0:
        return new_time(cls, sec, 0)
    # Truncation toward zero to the unit; new_time normalises negative nanos.
    whole = (nanos if nanos >= 0 else -<long long>nanos) // unit * unit
    return new_time(cls, sec, whole if nanos >= 0 else -whole)


cdef object _custom(_Reader r, TypeRow t, Py_ssize_t pos, Py_ssize_t stop, const PathSeg* path):
    """``t.cls._from_proto_body(buf[pos:stop], path)``, parsed once per distinct body in
    this call (a direct-mapped table keyed by class and bytes). Immutable values are then
    shared; a mutable one (FieldsV1...) is handed out as ``deep_copy()`` of the first,
    which the CustomValue protocol makes an equal value sharing no state."""
    cdef const unsigned char* s = r.p + pos
    cdef Py_ssize_t n = stop - pos, slot
    cdef uint64_t h, acc = 0
    cdef PyObject* kb
    cdef PyObject* old_c
    cdef PyObject* old_b
    cdef PyObject* old_v
    h = _hash(r, s, n, &acc) ^ (<uint64_t><size_t><PyObject*>t.cls >> 4)
    slot = <Py_ssize_t>(h % CUSTOM_CACHE)
    if r.ccls == NULL:
        r.ccls = <PyObject**>PyMem_Calloc(CUSTOM_CACHE, sizeof(PyObject*))
        r.cbody = <PyObject**>PyMem_Calloc(CUSTOM_CACHE, sizeof(PyObject*))
        r.cval = <PyObject**>PyMem_Calloc(CUSTOM_CACHE, sizeof(PyObject*))
        if r.ccls == NULL or r.cbody == NULL or r.cval == NULL:
            raise MemoryError()
    kb = r.cbody[slot]
    if r.ccls[slot] == <PyObject*>t.cls and kb != NULL and PyBytes_GET_SIZE(<object>kb) == n \
            and memcmp(PyBytes_AS_STRING(<object>kb), s, n) == 0:
        if t.shareable:
            return <object>r.cval[slot]
        return (<object>r.cval[slot]).deep_copy()
    body = PyBytes_FromStringAndSize(<char*>s, n)
    value = _time_from_timestamp(t.cls, s, n)
    if value is None:
        value = t.cls._from_proto_body(body, _path(path))
    old_c = r.ccls[slot]
    old_b = r.cbody[slot]
    old_v = r.cval[slot]
    Py_INCREF(t.cls)
    Py_INCREF(body)
    Py_INCREF(value)
    r.ccls[slot] = <PyObject*>t.cls
    r.cbody[slot] = <PyObject*>body
    r.cval[slot] = <PyObject*>value
    Py_XDECREF(old_c)
    Py_XDECREF(old_b)
    Py_XDECREF(old_v)
    return value


cdef int _varint_error(int rc, Py_ssize_t start, const PathSeg* path) except -1:
    if rc == VARINT_EOF:
        raise DecodeError("unexpected EOF", field_path=_path(path), offset=start)
    raise DecodeError("proto: integer overflow", field_path=_path(path), offset=start)


cdef inline int _read(_Reader r, Py_ssize_t* pos, Py_ssize_t end, uint64_t* out,
                      const PathSeg* path) except -1:
    cdef Py_ssize_t start = pos[0]
    cdef int rc
    # One-byte varints (tags, short lengths, small ints) dominate.
    if start < end and r.p[start] < 0x80:
        out[0] = r.p[start]
        pos[0] = start + 1
        return 0
    rc = read_uvarint(r.p, pos, end, out)
    if rc != VARINT_OK:
        _varint_error(rc, start, path)
    return 0


cdef int _len_error(uint64_t n, Py_ssize_t pos, Py_ssize_t end, const PathSeg* path) except -1:
    raise _pure_length_error(n, _path(path), pos)


cdef extern from *:
    """
    /* A one-byte length prefix at *pos whose bytes fit before end: 1 with *pos and *stop
       set, else 0 (nothing changed). Plain C so that it always inlines. */
    static inline __attribute__((always_inline)) int
    kc_len1(const unsigned char *p, Py_ssize_t *pos, Py_ssize_t end, Py_ssize_t *stop)
    {
        Py_ssize_t p0 = *pos;
        if (p0 < end) {
            Py_ssize_t n = p[p0];
            if (n < 0x80 && n < end - p0) {
                *pos = p0 + 1;
                *stop = p0 + 1 + n;
                return 1;
            }
        }
        return 0;
    }
    /* The slot at offset of obj (borrowed, NULL when unset), or NULL without one. */
    #define kc_slot(obj, off) ((off) >= 0 ? *(PyObject **)((char *)(obj) + (off)) : NULL)
    """
    bint _kc_len1 "kc_len1"(const unsigned char* p, Py_ssize_t* pos, Py_ssize_t end, Py_ssize_t* stop) noexcept nogil
    PyObject* _kc_slot "kc_slot"(PyObject* obj, Py_ssize_t off) noexcept nogil


cdef inline int _len(_Reader r, Py_ssize_t* pos, Py_ssize_t end, Py_ssize_t* stop,
                     const PathSeg* path) except -1:
    """_read_len with its common case (a one-byte length that fits) inline in the caller."""
    if _kc_len1(r.p, pos, end, stop):
        return 0
    return _read_len(r, pos, end, stop, path)


cdef int _read_len(_Reader r, Py_ssize_t* pos, Py_ssize_t end, Py_ssize_t* stop,
                   const PathSeg* path) except -1:
    """A length prefix and the check that its bytes fit before ``end`` (the error text is
    built out of line, so this stays small enough to inline into the decode loops)."""
    cdef uint64_t n = 0
    cdef Py_ssize_t start = pos[0]
    if start < end and r.p[start] < 0x80:
        n = r.p[start]
        pos[0] = start + 1
    else:
        _read(r, pos, end, &n, path)
    if n > <uint64_t>(end - pos[0]):
        return _len_error(n, pos[0], end, path)
    stop[0] = pos[0] + <Py_ssize_t>n
    return 0


# Outcomes of the unknown-field skip, in kcodec.wire.skip_field's words.
cdef enum:
    SK_OK = 0
    SK_EOF = 1
    SK_OVERFLOW = 2
    SK_NEGATIVE = 3
    SK_END_GROUP = 4
    SK_WIRE = 5


cdef int _skip_error(int code, unsigned int wire, Py_ssize_t at, const PathSeg* path) except -1:
    if code == SK_EOF:
        msg = "unexpected EOF"
    elif code == SK_OVERFLOW:
        msg = "proto: integer overflow"
    elif code == SK_NEGATIVE:
        msg = "proto: negative length found during unmarshaling"
    elif code == SK_END_GROUP:
        msg = "proto: unexpected end of group"
    else:
        msg = f"proto: illegal wireType {wire}"
    raise DecodeError(msg, field_path=_path(path), offset=at)


cdef inline int _skip_uvarint(const unsigned char* b, Py_ssize_t* pos, Py_ssize_t end,
                              uint64_t* out) noexcept nogil:
    """kcodec.wire.read_go_uvarint's twin. Not _varint.read_uvarint (same answers), because
    on an error this one leaves ``pos`` at the byte where it stopped, which the skip error
    reports as its offset, as the pure twin does."""
    cdef uint64_t v = 0
    cdef unsigned int shift = 0
    cdef Py_ssize_t p = pos[0]
    cdef unsigned char c
    while True:
        if shift >= 64:
            pos[0] = p
            return SK_OVERFLOW
        if p >= end:
            pos[0] = p
            return SK_EOF
        c = b[p]
        p += 1
        v |= (<uint64_t>(c & 0x7F)) << shift
        if c < 0x80:
            out[0] = v
            pos[0] = p
            return SK_OK
        shift += 7


cdef inline int _skip_run(const unsigned char* b, unsigned int* wire, Py_ssize_t* pos,
                          Py_ssize_t end) noexcept nogil:
    """Go's skipGenerated from after the first tag (kcodec.wire.skip_field): groups run to
    their matching end group, nested ones counted."""
    cdef Py_ssize_t p = pos[0]
    cdef Py_ssize_t depth = 0
    cdef uint64_t n = 0
    cdef int rc
    while True:
        if wire[0] == WT_VARINT or wire[0] == WT_BYTES:
            rc = _skip_uvarint(b, &p, end, &n)
            if rc != SK_OK:
                pos[0] = p
                return rc
            if wire[0] == WT_BYTES:
                if n >= 0x8000000000000000ULL or n >= 0x8000000000000000ULL - <uint64_t>p:
                    pos[0] = p
                    return SK_NEGATIVE
                p += <Py_ssize_t>n
        elif wire[0] == 3:
            depth += 1
        elif wire[0] == 4:
            if depth == 0:
                pos[0] = p
                return SK_END_GROUP
            depth -= 1
        elif wire[0] == WT_FIXED64:
            p += 8
        elif wire[0] == 5:
            p += 4
        else:
            pos[0] = p
            return SK_WIRE
        if depth == 0:
            break
        if p >= end:
            pos[0] = end
            return SK_EOF
        rc = _skip_uvarint(b, &p, end, &n)
        if rc != SK_OK:
            pos[0] = p
            return rc
        wire[0] = <unsigned int>(n & 7)
    if p > end:
        pos[0] = end
        return SK_EOF
    pos[0] = p
    return SK_OK


cdef int _skip(_Reader r, unsigned int wire, Py_ssize_t* pos, Py_ssize_t end,
               const PathSeg* path) except -1:
    cdef Py_ssize_t p = pos[0]
    cdef int rc = _skip_run(r.p, &wire, &p, end)
    if rc != SK_OK:
        return _skip_error(rc, wire, p, path)
    pos[0] = p
    return 0


cdef inline int _append(object lst, object x) except -1:
    cdef PyObject* o = <PyObject*>lst
    cdef Py_ssize_t n
    if type(lst) is list:
        n = _kc_list_size(o)
        if n < _kc_list_allocated(o):
            # Room left by _new_list: store in place (what list.append does then).
            Py_INCREF(x)
            _kc_list_items(o)[n] = <PyObject*>x
            _kc_list_set_size(o, n + 1)
            return 0
        return PyList_Append(lst, x)
    lst.append(x)
    return 0


cdef inline list _new_list(Py_ssize_t n):
    """An empty, untracked list with room for ``n`` (> 0) items (_append fills it in order)."""
    return <list>kc_list_new_untracked(n)


cdef Py_ssize_t _run_length(const unsigned char* p, Py_ssize_t pos, Py_ssize_t end,
                            const unsigned char* tag, Py_ssize_t taglen) noexcept nogil:
    """How many length-delimited values follow ``pos`` (just after a tag), each further one
    behind the same ``taglen`` tag bytes; at least 1. A length that does not fit ends the
    count (decoding that value raises), so the count never exceeds what the input holds."""
    cdef Py_ssize_t n = 0
    cdef uint64_t ln = 0
    while True:
        if read_uvarint(p, &pos, end, &ln) != VARINT_OK or ln > <uint64_t>(end - pos):
            return n + 1
        pos += <Py_ssize_t>ln
        n += 1
        if end - pos <= taglen or not kc_same_bytes(p + pos, tag, taglen):
            return n
        pos += taglen




cdef inline int _put_slot(object obj, const FieldC* fc, object value, bint direct) except -1:
    cdef PyObject** pp
    cdef PyObject* old
    if direct and fc.offset >= 0:
        pp = <PyObject**>((<char*><PyObject*>obj) + fc.offset)
        old = pp[0]
        Py_INCREF(value)
        pp[0] = <PyObject*>value
        Py_XDECREF(old)
        return 0
    return set_field(obj, <FieldRow>fc.row, value, False)


cdef inline int _put_borrowed(object obj, const FieldC* fc, PyObject* value, bint direct) except -1:
    """_put_slot of a borrowed reference (one incref instead of two and a decref)."""
    cdef PyObject** pp
    cdef PyObject* old
    if direct and fc.offset >= 0:
        pp = <PyObject**>((<char*><PyObject*>obj) + fc.offset)
        old = pp[0]
        Py_INCREF(<object>value)
        pp[0] = value
        Py_XDECREF(old)
        return 0
    return set_field(obj, <FieldRow>fc.row, <object>value, False)


cdef const FieldC* _field_of_tag(_Reader r, Table t, Py_ssize_t* ppos, Py_ssize_t end, const PathSeg* path,
                                 PathSeg* fseg, FieldC* scratch, unsigned int* pwire) except? NULL:
    """The field of the tag at ``ppos`` that _fill's one-byte table does not answer (a
    multi-byte tag, an unknown field, a wire type to check), with gogo's checks in its
    order; NULL after skipping an unknown field. ``ppos`` moves past the tag (and the
    skipped field); ``pwire`` gets the tag's wire type."""
    cdef Py_ssize_t tag_pos = ppos[0]
    cdef uint64_t key = 0
    cdef unsigned int wire
    cdef int32_t fnum32
    cdef const FieldC* fc
    _read(r, ppos, end, &key, path)
    wire = <unsigned int>(key & 7)
    pwire[0] = wire
    # gogo's fieldNum := int32(wire >> 3); the rare cases share one unlikely branch.
    fnum32 = <int32_t>(<uint32_t>((key >> 3) & 0xFFFFFFFFULL))
    fc = t.field_c(<uint64_t><uint32_t>fnum32, scratch)
    if fc == NULL or wire == 4 or fnum32 <= 0:
        if wire == 4:
            # Checked before anything else, as every generated Unmarshal does.
            raise _end_group_error(t.cls.__name__, _path(path), tag_pos)
        if fnum32 <= 0:
            raise _illegal_tag_error(t.cls.__name__, key, _path(path), tag_pos)
        _skip(r, wire, ppos, end, path)
        return NULL
    # gogo's generated case for the field checks the wire type first (a repeated scalar
    # takes its packed form, wire type 2, too).
    if wire != <unsigned int>fc.wire and not (fc.kind == K_LIST and not fc.wrapped
                                              and wire == <unsigned int>fc.elem_wire):
        fseg.text = fc.json
        raise _wrong_wire_error(wire, (<FieldRow>fc.row).info.go_field(),
                                _path(path if fc.inline_ else fseg), tag_pos)
    return fc


cdef int _fill(_Reader r, object obj, Table t, Py_ssize_t pos, Py_ssize_t end,
               const PathSeg* path, int depth, bint owned) except -1:
    """Fill ``obj`` from ``buf[pos:end]``; ``owned``: obj was created by this call."""
    cdef bint direct
    cdef uint64_t v = 0
    cdef Py_ssize_t tag_pos, stop
    cdef unsigned int wire
    cdef PathSeg fseg
    cdef const PathSeg* fpath
    cdef int k
    cdef const FieldC* fc
    cdef FieldC scratch
    cdef PyObject* p
    cdef unsigned char tag
    if depth > MAX_DEPTH:
        # kcodec's own bound (Go's generated code recurses without one); the place is data.
        raise DecodeError(f"proto: exceeded max nesting depth {MAX_DEPTH}", field_path=_path(path))
    direct = t.owns(obj)
    fseg.up = path
    fseg.kind = 1
    fseg.index = 0
    while pos < end:
        tag_pos = pos
        tag = r.p[pos]
        if tag < 0x80 and t.tag1[tag] != 0:
            # Most tags: one byte naming a field of this table with its own wire type, so
            # none of the checks below can fail.
            fc = &t.bynum_c[t.tag1[tag]]
            wire = tag & 7
            pos += 1
        else:
            fc = _field_of_tag(r, t, &pos, end, path, &fseg, &scratch, &wire)
            if fc == NULL:
                continue  # an unknown field, skipped
        # An embedded (inline) struct adds no name to the path.
        if fc.inline_:
            fpath = path
        else:
            fseg.text = fc.json
            fpath = &fseg
        k = fc.kind
        # Scalars with their expected wire type: what _pread would do, without the call.
        if k == K_STR:
            if wire == WT_BYTES:
                if not _kc_len1(r.p, &pos, end, &stop):
                    _read_len(r, &pos, end, &stop, fpath)
                p = _kc_str_hit(r.strs.tab, r.strs.mask, r.p, r.size, pos, stop - pos)
                if p != NULL:
                    _put_borrowed(obj, fc, p, direct)
                else:
                    _put_slot(obj, fc, _str(r, pos, stop - pos), direct)
                pos = stop
                continue
        elif k == K_INT64 or k == K_INT32 or k == K_BOOL:
            if wire == WT_VARINT:
                _read(r, &pos, end, &v, fpath)
                if k == K_BOOL:
                    _put_slot(obj, fc, True if v != 0 else False, direct)
                elif k == K_INT32:
                    _put_slot(obj, fc, PyLong_FromLongLong(<int32_t>(<uint32_t>(v & 0xFFFFFFFFULL))), direct)
                else:
                    _put_slot(obj, fc, PyLong_FromLongLong(<int64_t>v), direct)
                continue
        elif k == K_LIST and not fc.wrapped:
            pos = _fill_list(r, obj, fc, direct, wire, tag_pos, pos, end, fpath, depth)
            continue
        elif k == K_MAP:
            if not _kc_len1(r.p, &pos, end, &stop):
                _read_len(r, &pos, end, &stop, fpath)
            _map_entry(r, obj, <FieldRow>fc.row, direct, owned, pos, stop, end, fpath, depth)
            pos = stop
            continue
        elif k == K_STRUCT:
            if not _kc_len1(r.p, &pos, end, &stop):
                _read_len(r, &pos, end, &stop, fpath)
            _fill_message(r, obj, fc, direct, owned, pos, stop, fpath, depth)
            pos = stop
            continue
        _put_slot(obj, fc, _pread(r, <FieldRow>fc.row, wire, &pos, end, fpath, depth), direct)
    return 0


cdef inline Py_ssize_t _fill_list(_Reader r, object obj, const FieldC* fc, bint direct, unsigned int wire,
                                  Py_ssize_t tag_pos, Py_ssize_t pos, Py_ssize_t end, const PathSeg* fpath,
                                  int depth) except -1:
    """Repeated field ``fc``: the element at ``pos`` (its tag began at ``tag_pos``) and the
    rest of the run under the same tag appended to the field's list in ``obj`` (packed
    scalars: the one length-delimited run); answers the position after them."""
    cdef TypeRow e = (<FieldRow>fc.row).elem
    cdef PyObject* p = _kc_slot(<PyObject*>obj, fc.offset) if direct else NULL
    cdef bint packed = wire == WT_BYTES and e.wire != WT_BYTES
    cdef Py_ssize_t n, stop, taglen
    cdef PathSeg eseg
    lst = <object>p if p != NULL else get_field(obj, <FieldRow>fc.row, direct)
    if lst is None:
        # Sized for the run of elements under this same tag that starts here (a repeated
        # field is written as one run): no regrowth, no spare slots.
        n = 1
        if wire == WT_BYTES and not packed:
            n = _run_length(r.p, pos, end, r.p + tag_pos, pos - tag_pos)
        lst = _new_list(n)
        set_field(obj, <FieldRow>fc.row, lst, direct)
    if packed:
        if not _kc_len1(r.p, &pos, end, &stop):
            _read_len(r, &pos, end, &stop, fpath)
        while pos < stop:
            _append(lst, _pread(r, e, e.wire, &pos, stop, fpath, depth))
        return pos
    eseg.up = fpath
    eseg.kind = 2
    taglen = pos - tag_pos
    while True:
        eseg.index = len(lst)
        _append(lst, _pread(r, e, wire, &pos, end, &eseg, depth))
        # The next element of the run: the same tag bytes again.
        if end - pos > taglen and kc_same_bytes(r.p + pos, r.p + tag_pos, taglen):
            pos += taglen
            continue
        return pos


cdef inline int _fill_message(_Reader r, object obj, const FieldC* fc, bint direct, bint owned,
                              Py_ssize_t pos, Py_ssize_t stop, const PathSeg* fpath, int depth) except -1:
    """The embedded message ``[pos:stop]`` of struct field ``fc`` into ``obj``. A message
    seen twice merges into the first, pointer or not (gogo's generated Unmarshal)."""
    cdef PyObject* p = _kc_slot(<PyObject*>obj, fc.offset) if direct else NULL
    cdef Table tab = (<FieldRow>fc.row).struct_table()
    sub = <object>p if p != NULL else get_field(obj, <FieldRow>fc.row, direct)
    if sub is None:
        sub = tab.new_zero_untracked()
        _put_slot(obj, fc, sub, direct)
        return _fill(r, sub, tab, pos, stop, fpath, depth + 1, True)
    return _fill(r, sub, tab, pos, stop, fpath, depth + 1, owned)


cdef int _map_entry(_Reader r, object obj, FieldRow f, bint direct, bint owned, Py_ssize_t pos,
                    Py_ssize_t stop, Py_ssize_t end, const PathSeg* fpath, int depth) except -1:
    """One entry ``[pos:stop]`` of map field ``f`` into ``obj``; ``owned``: obj was built by
    this decode. As gogo's generated Unmarshal (k8s.io/api core/v1 generated.pb.go, e.g.
    ResourceRequirements.Limits), the entry's key and value are bounded by the enclosing
    message's end ``end``, not by the entry's: a key that overruns its entry is read, and
    the caller resumes at ``stop`` (Go's ``iNdEx = postIndex``). Only an unknown field's
    skip is held to the entry."""
    cdef TypeRow e = f.elem
    cdef uint64_t ekey = 0, ln = 0
    cdef bint have_v = False
    cdef unsigned int ewire
    cdef int32_t fnum
    cdef PathSeg vseg
    cdef PyObject* hit
    mk = ""
    mv = None
    vseg.up = fpath
    vseg.kind = 3
    vseg.index = 0
    while pos < stop:
        _read(r, &pos, end, &ekey, fpath)
        ewire = <unsigned int>(ekey & 7)
        # gogo: fieldNum := int32(wire >> 3)
        fnum = <int32_t>(<uint32_t>((ekey >> 3) & 0xFFFFFFFFULL))
        if fnum == 1:  # read as the string key whatever the wire type, as gogo does
            _read(r, &pos, end, &ln, fpath)
            if ln > <uint64_t>(end - pos):
                raise _pure_length_error(ln, _path(fpath), pos)
            hit = _kc_str_hit(r.strs.tab, r.strs.mask, r.p, r.size, pos, <Py_ssize_t>ln)
            mk = <object>hit if hit != NULL else _str(r, pos, <Py_ssize_t>ln)
            pos += <Py_ssize_t>ln
        elif fnum == 2:
            vseg.text = <PyObject*>mk
            # gogo's map entry reads the value by its type, whatever the wire type says.
            mv = _pread(r, e, <unsigned int>e.wire, &pos, end, &vseg, depth)
            have_v = True
        else:
            _skip(r, ewire, &pos, end, fpath)
            if pos > stop:
                raise DecodeError("unexpected EOF", field_path=_path(fpath), offset=stop)
    if not have_v:
        if e.kind == K_STRUCT:
            mv = e.struct_table().new_zero_untracked()
        elif e.kind == K_BYTES:
            mv = None
        else:
            mv = e.zero()
    m = get_field(obj, f, direct)
    if m is None:
        m = {}
        untrack(m)
        set_field(obj, f, m, direct)
    if type(m) is dict:
        PyDict_SetItem(m, mk, mv)
        if owned:
            # Inserting a struct or custom value made CPython track the dict again (see
            # _tables.pyx, "Untracked decoded objects"); a caller's own dict keeps its state.
            PyObject_GC_UnTrack(<void*>m)
    else:
        m[mk] = mv
    return 0


cdef object _pread(_Reader r, TypeRow t, unsigned int wire, Py_ssize_t* ppos, Py_ssize_t end,
                   const PathSeg* path, int depth):
    """One value of type ``t`` at ``ppos`` (the pure walker's _proto_read)."""
    cdef int k = t.kind
    cdef Py_ssize_t pos = ppos[0]
    cdef Py_ssize_t stop, p2
    cdef uint64_t v = 0, ekey = 0
    cdef double d
    cdef Table tab
    cdef TypeRow e
    cdef PathSeg eseg
    cdef PyObject* hit
    if wire != <unsigned int>t.wire:
        # Only an element of a wrapped list gets here with another wire type (the callers
        # check the rest): the wrapper message's field is Items.
        raise _wrong_wire_error(wire, "Items", _path(path), pos)
    if wire == WT_VARINT:
        _read(r, &pos, end, &v, path)
        ppos[0] = pos
        if k == K_BOOL:
            return True if v != 0 else False
        if k == K_INT32:
            return PyLong_FromLongLong(<int32_t>(<uint32_t>(v & 0xFFFFFFFFULL)))
        return PyLong_FromLongLong(<int64_t>v)
    if wire == WT_FIXED64:
        if end - pos < 8:
            raise DecodeError("unexpected EOF", field_path=_path(path), offset=pos)
        ppos[0] = pos + 8
        if _little_endian():
            memcpy(&d, r.p + pos, 8)
            return PyFloat_FromDouble(d)
        return _unpack_from("<d", r.data, r.off + pos)[0]
    if not _kc_len1(r.p, &pos, end, &stop):
        _read_len(r, &pos, end, &stop, path)
    ppos[0] = stop
    if k == K_STR:
        hit = _kc_str_hit(r.strs.tab, r.strs.mask, r.p, r.size, pos, stop - pos)
        if hit != NULL:
            return <object>hit
        return _str(r, pos, stop - pos)
    if k == K_STRUCT:
        tab = t.struct_table()
        sub = tab.new_zero_untracked()
        _fill(r, sub, tab, pos, stop, path, depth + 1, True)
        return sub
    if k == K_CUSTOM:
        return _custom(r, t, pos, stop, path)
    if k == K_BYTES:
        return PyBytes_FromStringAndSize(<char*>r.p + pos, stop - pos)
    if k == K_LIST:
        holder = []
        untrack(holder)
        e = t.elem
        p2 = pos
        eseg.up = path
        eseg.kind = 2
        while p2 < stop:
            _read(r, &p2, stop, &ekey, path)
            if (ekey >> 3) == 1:
                eseg.index = len(holder)
                holder.append(_pread(r, e, <unsigned int>(ekey & 7), &p2, stop, &eseg, depth))
            else:
                _skip(r, <unsigned int>(ekey & 7), &p2, stop, path)
        return holder
    raise DecodeError(f"proto: cannot decode {t.info.go_name()}", field_path=_path(path))


def fill_from_proto(obj, cls, buf, path, Py_ssize_t start=0, Py_ssize_t end=-1):
    """Fill ``obj`` (an instance of compiled ``cls``) from the protobuf message body
    ``buf[start:end]`` (``end`` -1: to the end); byte offsets in errors count from ``start``."""
    cdef _Reader r
    cdef PathSeg root
    cdef Py_ssize_t n, stop
    if type(buf) is not bytes or type(path) is not str:
        return _twin().fill_from_proto(obj, cls, buf, path, start, end)
    n = PyBytes_GET_SIZE(buf)
    stop = n if end < 0 else end
    if not (0 <= start <= stop <= n):
        raise ValueError(f"message span [{start}:{end}] outside a buffer of {n} bytes")
    r = _Reader()
    r.data = buf
    r.off = start
    r.p = <const unsigned char*>PyBytes_AS_STRING(buf) + start
    r.size = stop - start
    r.init_strings(r.size)
    root.up = NULL
    root.kind = 0
    root.text = <PyObject*>path
    root.index = 0
    gc_pause()
    try:
        _fill(r, obj, table_of(cls), 0, r.size, &root, 0, False)
    finally:
        gc_resume()
