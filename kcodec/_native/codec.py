"""Pure-Python codec kernels: typed structs <-> JSON trees and protobuf bytes.

They walk the field tables that :mod:`kcodec.model` compiles; the Cython twins in
``kcodec/_speedups/_codec.pyx`` walk the same tables (the JSON text kernels built on these
walkers are in :mod:`kcodec._native.json`). Entry points (``__all__``) are bound by
:mod:`kcodec.speedups`; everything else here is private.
"""
from __future__ import annotations

import base64
import struct as _st
from contextvars import ContextVar
from typing import Any

from kcodec import fieldtable as _m
from kcodec import gojson as _gojson
from kcodec.fieldtable import JSONNumber as _JSONNumber
from kcodec.gojson import Repeated as _Repeated
from kcodec.fieldtable import RawJSON

# The JSON text a pure json_fill is reading and where its objects/arrays were written:
# custom values that keep their own text (_KC_RAW_JSON) take it from there.
_RAW_SOURCE: ContextVar[tuple[bytes, dict[int, tuple[int, int]]] | None] = ContextVar(
    "kcodec_raw_json_source", default=None)
from kcodec._kinds import (
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    INT64_MIN,
    K_ANY,
    K_BOOL,
    K_BYTES,
    K_CUSTOM,
    K_FLOAT,
    K_INT32,
    K_INT64,
    K_LIST,
    K_MAP,
    K_STR,
    K_STRUCT,
    MAX_ENCODE_DEPTH,
    WT_BYTES,
    WT_FIXED64,
    WT_VARINT,
    encode_depth_message,
)
from kcodec.errors import DecodeError, EncodeError
from kcodec.wire import end_group_error as _end_group_error
from kcodec.wire import go_field_number as _go_field_number
from kcodec.wire import illegal_tag_error as _illegal_tag_error
from kcodec.wire import length_error as _length_error
from kcodec.wire import wrong_wire_error as _wrong_wire_error
from kcodec.wire import read_varint as _read_varint
from kcodec.wire import skip_field as _skip
from kcodec.wire import varint as _varint

_JSON_DEPTH_TEXT = encode_depth_message("json")
_PROTO_DEPTH_TEXT = encode_depth_message("proto")

__all__ = ["struct_to_tree", "fill_from_tree", "struct_to_proto", "fill_from_proto", "expand_raw_tree",
           "copy_plain_tree"]

def _struct_into(obj: Any, fields: tuple[Any, ...], out: dict[str, Any], depth: int = 1) -> None:
    if depth > MAX_ENCODE_DEPTH:
        raise EncodeError(_JSON_DEPTH_TEXT)
    for f in fields:
        v = getattr(obj, f.name)
        if f.inline and f.kind == K_STRUCT:
            if v is not None:
                sub: dict[str, Any] = {}
                _struct_into(v, _m.fields_of(type(v)), sub, depth + 1)
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
        if f.omitempty and not v:
            # Go's isEmptyValue: empty slices/maps/bytes (nil or not) and zero scalars; a
            # set pointer is never empty, and structs never are.
            if k == K_LIST or k == K_MAP or k == K_BYTES or (k <= K_FLOAT and not f.pointer):
                continue
        if f.omitzero and not f.pointer and _m._is_zero_value(f, v):
            continue
        out[f.json] = _value_tree(f, v, depth)


def _value_tree(t: Any, v: Any, depth: int = 0) -> Any:
    if v is None:
        return None
    k = t.kind
    if k <= K_FLOAT:
        return _scalar(k, v)
    if k == K_STRUCT:
        sub: dict[str, Any] = {}
        _struct_into(v, _m.fields_of(type(v)), sub, depth + 1)
        return sub
    if k == K_CUSTOM:
        return v._to_tree()
    if k == K_BYTES:
        return base64.b64encode(v).decode("ascii")
    if k == K_LIST:
        e = t.elem
        if e.kind <= K_FLOAT:  # type: ignore[union-attr]
            return [_scalar(e.kind, x) for x in v]  # type: ignore[union-attr]
        return [_value_tree(e, x, depth) for x in v]  # type: ignore[arg-type]
    if k == K_MAP:
        e = t.elem
        if e.kind <= K_FLOAT:  # type: ignore[union-attr]
            return {key: _scalar(e.kind, v[key]) for key in sorted(v)}  # type: ignore[union-attr]
        return {key: _value_tree(e, v[key], depth) for key in sorted(v)}  # type: ignore[arg-type]
    return v  # K_ANY: already a tree


_SCALAR_TYPES = {K_STR: (str,), K_INT32: (int,), K_INT64: (int,), K_BOOL: (bool,), K_FLOAT: (float, int)}


def _scalar(k: int, v: Any) -> Any:
    """``v`` when it is a value of scalar kind ``k`` as the checked setters keep it, else
    TypeError (past ``object.__setattr__``; the caller's EncodeError names the field)."""
    if isinstance(v, _SCALAR_TYPES[k]) and (k == K_BOOL or type(v) is not bool):
        return v
    raise TypeError(f"cannot encode a {type(v).__name__} value as kind {k}")


# encoding/json's error precedence (decode.go): a type mismatch (UnmarshalTypeError) or a
# bad base64 string is saved (d.saveError, the first one kept) and decoding goes on; an
# error from an Unmarshaler (Quantity, Time, IntOrString...) is returned at once and wins
# over the saved one. The walkers raise at the first error of either kind; when that is
# a saved kind, json_fill walks the tree again with this set, passing over saved kinds,
# to find an Unmarshaler error later in the document.
_PASS_OVER_SAVED: ContextVar[bool] = ContextVar("kcodec_pass_over_saved", default=False)


def _saved_by_go(exc: BaseException) -> bool:
    return not getattr(exc, "go_aborts", False) and (
        getattr(exc, "go_type_error", None) is not None or getattr(exc, "go_saved", False))


def _passed_over(exc: BaseException) -> bool:
    return _PASS_OVER_SAVED.get() and _saved_by_go(exc)


def _aborting_error(cls: Any, tree: dict[str, Any], path: str) -> DecodeError | None:
    """The first Unmarshaler error in ``tree`` decoded into a fresh ``cls``, passing over
    type mismatches as encoding/json does, or None."""
    token = _PASS_OVER_SAVED.set(True)
    try:
        _fill(cls._new_zero(), cls, tree, None, path, "")
    except DecodeError as exc:
        return exc
    finally:
        _PASS_OVER_SAVED.reset(token)
    return None


def _isinf(v: float) -> bool:
    return v == _INF or v == -_INF


_INF = float("inf")


class _Float64Row:
    """A field row standing for Go's float64 (the type an interface{} number decodes to)."""

    kind = K_FLOAT
    pointer = False

    @staticmethod
    def go_name() -> str:
        return "float64"


_FLOAT64_ROW = _Float64Row()


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number " + _gojson.number_text(v)
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


_NUMERIC = (K_INT32, K_INT64, K_FLOAT)


def _type_error(v: Any, t: Any, path: str, gname: str | None = None, gstack: str = "",
                spath: str | None = None) -> DecodeError:
    """encoding/json's UnmarshalTypeError text.

    ``gname``/``gstack`` are Go's error context: the Go name of the struct whose field was
    being decoded and the JSON names (and embedded struct names) leading to it, without
    indexes or map keys. Without them (``gname`` None) ``path`` stands in. The indexed
    path (``spath``) is kept as ``field_path``.
    """
    # Go reports the pointed-to type: the decoder allocates the pointer before storing.
    name = t.go_name()
    if t.pointer:
        name = name[1:]
    what = _json_type(v)
    if what.startswith("number ") and t.kind not in _NUMERIC:
        what = "number"  # Go names the literal only for a number it failed to parse
    if gname is None:
        where = f"Go struct field {path}"
    elif gname or gstack:
        where = f"Go struct field {gname}.{gstack}"
    else:
        where = "Go value"
    err = DecodeError(f"json: cannot unmarshal {what} into {where} of type {name}",
                      field_path=spath if spath is not None else path)
    err.go_type_error = (what, name)  # type: ignore[attr-defined]
    return err


def _go_field_stack(chain: Any, key: str) -> str:
    """Go's FieldStack entries for JSON key ``key`` reached through ``chain``: encoding/json
    (Go 1.24+, sigs.k8s.io/json after it) names each embedded struct a promoted field is
    reached through, then the key."""
    names = [inl.cls.__name__ for inl in chain[:-1]]
    via = chain[-1].via
    if via is not None:
        names.append(via)
    names.append(key)
    return ".".join(names)


def go_context_error(cls: Any, root: str, err: DecodeError) -> DecodeError:
    """``err`` (from :func:`_type_error` without Go's context, as the compiled tree walker
    raises it) worded with Go's context, found by walking ``cls``'s tables along its path."""
    what, name = err.go_type_error  # type: ignore[attr-defined]
    path = err.field_path or ""
    spath = path[len(root) + 1:] if path.startswith(root + ".") else ""
    gname, gstack = "", []
    t: Any = None
    cur: Any = cls
    i, n = 0, len(spath)
    while i < n:
        if cur is not None:  # a struct: the next segment is a JSON key
            j = i
            while j < n and spath[j] not in ".[":
                j += 1
            key = spath[i:j]
            chain = cur.__kc_json__.get(key)
            if chain is None:
                break
            gname = cur.__name__
            gstack.append(_go_field_stack(chain, key))
            t = chain[-1]
            i = j + 1 if j < n and spath[j] == "." else j
        else:  # a list index or map key: no name in Go's context
            if spath[i] != "[" or t is None or t.kind not in (K_LIST, K_MAP):
                break
            j = spath.find("]", i)
            while j != -1 and j + 1 < n and spath[j + 1] not in ".[":
                j = spath.find("]", j + 1)
            if j == -1:
                break
            t = t.elem
            i = j + 2 if j + 1 < n and spath[j + 1] == "." else j + 1
        cur = t.cls if t is not None and t.kind == K_STRUCT else None
        if cur is not None and not cur.__dict__.get("__kc_compiled__"):
            _m._compile(cur)
    where = f"Go struct field {gname}.{'.'.join(gstack)}" if gstack else "Go value"
    out = DecodeError(f"json: cannot unmarshal {what} into {where} of type {name}", field_path=spath)
    out.go_type_error = err.go_type_error  # type: ignore[attr-defined]
    return out


def _fill(obj: Any, cls: Any, tree: dict[str, Any], strict: list[str] | None, path: str, spath: str,
          gstack: str = "") -> None:
    jmap = cls.__kc_json__
    gname = cls.__name__
    if strict is not None:
        dups = getattr(tree, "duplicates", None)
        if dups:
            for key in dups:
                msg = f'duplicate field "{spath}{key}"'
                if msg not in strict:
                    strict.append(msg)
    for key, v in tree.items():
        chain = jmap.get(key)
        if chain is None:
            if strict is not None:
                msg = f'unknown field "{spath}{key}"'
                if msg not in strict:
                    strict.append(msg)
            continue
        target = obj
        for inl in chain[:-1]:
            sub = getattr(target, inl.name)
            if sub is None:
                sub = inl.cls._new_zero()
                object.__setattr__(target, inl.name, sub)
            target = sub
        f = chain[-1]
        fpath = path + "." + key
        # Go's error context: promoted fields are reached through the embedded struct's name.
        fstack = key
        if len(chain) > 1 or f.via is not None:
            fstack = _go_field_stack(chain, key)
        if gstack:
            fstack = gstack + "." + fstack
        k = f.kind
        # A repeated key: Go decodes each value into the same field, in order.
        for v in (v if type(v) is _Repeated else (v,)):
            try:
                if k == K_STR:
                    if type(v) is str:
                        object.__setattr__(target, f.name, v)
                    elif v is None:
                        # Go: null clears a pointer but leaves a string value as it was (merge).
                        if f.pointer:
                            object.__setattr__(target, f.name, None)
                    else:
                        raise _type_error(v, f, fpath, gname, fstack, spath + key)
                else:
                    object.__setattr__(target, f.name,
                                       _decode_value(f, v, getattr(target, f.name), strict, fpath, spath + key,
                                                     gname, fstack))
            except DecodeError as exc:
                if not _passed_over(exc):
                    raise


def _decode_value(t: Any, v: Any, old: Any, strict: list[str] | None, path: str, spath: str,
                  gname: str = "", gstack: str = "") -> Any:
    k = t.kind
    if type(v) is _Repeated:
        for x in v:
            old = _decode_value(t, x, old, strict, path, spath, gname, gstack)
        return old
    if v is None:
        if t.pointer or k in (K_LIST, K_MAP, K_BYTES, K_ANY):
            return None
        if k == K_CUSTOM:
            return t.cls._from_tree(None, path)
        if k == K_STRUCT:
            return old if old is not None else t.cls._new_zero()
        # Go ignores null for a scalar value: an existing value survives a merge decode.
        return old if old is not None else _m._zero_of(t)
    if k == K_STR:
        if type(v) is str:
            return v
        raise _type_error(v, t, path, gname, gstack, spath)
    if k == K_INT32 or k == K_INT64:
        if type(v) is int:
            if k == K_INT32:
                if INT32_MIN <= v <= INT32_MAX:
                    return v
            elif INT64_MIN <= v <= INT64_MAX:
                return v
        raise _type_error(v, t, path, gname, gstack, spath)
    if k == K_BOOL:
        if v is True or v is False:
            return v
        raise _type_error(v, t, path, gname, gstack, spath)
    if k == K_STRUCT:
        if type(v) is not dict and not isinstance(v, dict):
            raise _type_error(v, t, path, gname, gstack, spath)
        sub = old if old is not None else t.cls._new_zero()
        cls = t.cls
        if not cls.__dict__.get("__kc_compiled__"):
            _m._compile(cls)
        _fill(sub, cls, v, strict, path, spath + ".", gstack)
        return sub
    if k == K_LIST:
        return _decode_list(t, v, old, strict, path, spath, gname, gstack)
    if k == K_MAP:
        return _decode_map(t, v, old, strict, path, spath, gname, gstack)
    if k == K_CUSTOM:
        return _decode_custom(t, v, path, spath, gname, gstack)
    if k == K_BYTES:
        if type(v) is not str:
            raise _type_error(v, t, path, gname, gstack, spath)
        try:
            return _gojson.b64decode(v)
        except DecodeError as exc:
            exc.field_path = spath
            exc.go_saved = True  # type: ignore[attr-defined]  # decode.go: d.saveError(err)
            raise
    if k == K_FLOAT:
        if type(v) in (int, float, _JSONNumber) and not (type(v) is _JSONNumber and _isinf(v)):
            return float(v)
        raise _type_error(v, t, path, gname, gstack, spath)
    # K_ANY: Go's interface{} holds a float64, not the literal the tree kept; a literal
    # past float64's range fails as strconv.ParseFloat does (decode.go convertNumber).
    if type(v) is _JSONNumber and _isinf(v):
        err = _type_error(v, _FLOAT64_ROW, path, gname, gstack, spath)
        raise err
    return _plain_numbers(v)


def _decode_list(t: Any, v: Any, old: Any, strict: list[str] | None, path: str, spath: str, gname: str,
                 gstack: str) -> Any:
    """A JSON array into list field ``t`` (merging into ``old`` element by element)."""
    if type(v) is not list:
        raise _type_error(v, t, path, gname, gstack, spath)
    e = t.elem
    ek = e.kind  # type: ignore[union-attr]
    if ek == K_STR:
        for x in v:
            if type(x) is not str:
                break
        else:
            return v
    # Go decodes element i into the slice's element i when there is one (a repeated
    # key, or a decode into an existing object, merges element by element).
    n_old = len(old) if type(old) is list else 0
    out = []
    for i, x in enumerate(v):
        try:
            out.append(_decode_value(e, x, old[i] if i < n_old else None, strict,  # type: ignore[index]
                                     f"{path}[{i}]", f"{spath}[{i}]", gname, gstack))  # type: ignore[arg-type]
        except DecodeError as exc:
            if not _passed_over(exc):
                raise
            out.append(_m._zero_of(e) if e.kind != K_STRUCT else None)  # type: ignore[union-attr]
    return out


def _decode_map(t: Any, v: Any, old: Any, strict: list[str] | None, path: str, spath: str, gname: str,
                 gstack: str) -> Any:
    """A JSON object into map field ``t`` (merged into ``old``)."""
    if not isinstance(v, dict):
        raise _type_error(v, t, path, gname, gstack, spath)
    e = t.elem
    if e.kind == K_STR:  # type: ignore[union-attr]
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
    for key, x in v.items():
        # Each value of a repeated key is decoded into a fresh element: the last stays.
        for y in (x if type(x) is _Repeated else (x,)):
            try:
                out_map[key] = _decode_value(e, y, None, strict, f"{path}[{key}]", f"{spath}[{key}]",  # type: ignore[arg-type]
                                             gname, gstack)
            except DecodeError as exc:
                if not _passed_over(exc):
                    raise
    if old is not None:
        old.update(out_map)
        return old
    return out_map


def _decode_custom(t: Any, v: Any, path: str, spath: str, gname: str, gstack: str) -> Any:
    """A custom value (Quantity, Time, RawExtension...) through its ``_from_tree``."""
    if isinstance(v, (dict, list)) and t.cls.__dict__.get("_KC_RAW_JSON"):
        src = _RAW_SOURCE.get()
        if src is not None:
            span = src[1].get(id(v))
            if span is not None:
                v = RawJSON(src[0][span[0]:span[1]])
    try:
        return t.cls._from_tree(v, path)
    except DecodeError as exc:
        # An UnmarshalJSON's error ends the decode at once (decode.go literalStore
        # returns it), ahead of any type mismatch saved before.
        exc.go_aborts = True  # type: ignore[attr-defined]
        if getattr(exc, "go_type_error", None) is None or not (gname or gstack):
            exc.field_path = spath
            raise
        # An UnmarshalJSON's own type error takes the outer decoder's context, as
        # encoding/json's addErrorContext gives it.
        what, name = exc.go_type_error  # type: ignore[attr-defined]
        out = DecodeError(f"json: cannot unmarshal {what} into Go struct field {gname}.{gstack} of type {name}",
                          field_path=spath)
        out.go_type_error = exc.go_type_error  # type: ignore[attr-defined]
        out.go_aborts = True  # type: ignore[attr-defined]
        raise out from None


def _plain_numbers(v: Any) -> Any:
    """The interface{} value Go builds: float64 for literals, the last of repeated keys."""
    if type(v) is _JSONNumber:
        return float(v)
    if type(v) is _Repeated:
        return _plain_numbers(v[-1])
    # Iterative: an untyped value may nest as deep as Go's scanner allows.
    stack = [v]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, x in node.items():
                if type(x) is _Repeated:
                    x = node[key] = x[-1]
                if type(x) is _JSONNumber:
                    node[key] = float(x)
                elif isinstance(x, (dict, list)):
                    stack.append(x)
        elif isinstance(node, list):
            for i, x in enumerate(node):
                if type(x) is _JSONNumber:
                    node[i] = float(x)
                elif isinstance(x, (dict, list)):
                    stack.append(x)
    return v


# --------------------------------------------------------------------------- protobuf

def _key(number: int, wire: int) -> bytes:
    return _varint((number << 3) | wire)


def _proto_struct(obj: Any, cls: Any, out: bytearray, depth: int = 1) -> None:
    if depth > MAX_ENCODE_DEPTH:
        raise EncodeError(_PROTO_DEPTH_TEXT)
    if not cls.__dict__.get("__kc_compiled__"):
        _m._compile(cls)
    for f in cls.__kc_pb__:
        v = getattr(obj, f.name)
        if v is None:
            continue
        k = f.kind
        if k == K_LIST and not f.wrapped:
            e = f.elem
            key = _key(f.number, e.wire if e.kind in (K_BOOL, K_INT32, K_INT64, K_FLOAT) else WT_BYTES)  # type: ignore[union-attr]
            for x in v:
                out += key
                _proto_value(e, x, out, depth)  # type: ignore[arg-type]
            continue
        if k == K_MAP:
            if not v:
                continue
            key = _key(f.number, WT_BYTES)
            e = f.elem
            for mk in sorted(v):
                entry = bytearray(b"\x0a")
                kb = mk.encode("utf-8", "surrogateescape")
                entry += _varint(len(kb))
                entry += kb
                mv = v[mk]
                if mv is not None or e.kind not in (K_BYTES,):  # type: ignore[union-attr]
                    entry += _key(2, e.wire)  # type: ignore[union-attr]
                    _proto_value(e, mv, entry, depth)  # type: ignore[arg-type]
                out += key
                out += _varint(len(entry))
                out += entry
            continue
        out += _key(f.number, f.wire)
        _proto_value(f, v, out, depth)


def _proto_value(t: Any, v: Any, out: bytearray, depth: int = 0) -> None:
    """Append the payload of one value (varint, fixed64 or length + bytes)."""
    k = t.kind
    if k == K_STR:
        b = v.encode("utf-8", "surrogateescape")
        out += _varint(len(b))
        out += b
    elif k == K_INT32 or k == K_INT64:
        out += _varint(v)
    elif k == K_BOOL:
        out.append(1 if v else 0)
    elif k == K_STRUCT:
        sub = bytearray()
        if v is not None:
            _proto_struct(v, type(v), sub, depth + 1)
        out += _varint(len(sub))
        out += sub
    elif k == K_CUSTOM:
        b = v._proto_body() if v is not None else b""
        out += _varint(len(b))
        out += b
    elif k == K_BYTES:
        b = v if v is not None else b""
        out += _varint(len(b))
        out += b
    elif k == K_LIST:  # wrapped list: message { repeated elem items = 1 }
        sub = bytearray()
        e = t.elem
        key = _key(1, e.wire if e.kind in (K_BOOL, K_INT32, K_INT64, K_FLOAT) else WT_BYTES)  # type: ignore[union-attr]
        for x in v or ():
            sub += key
            _proto_value(e, x, sub, depth)  # type: ignore[arg-type]
        out += _varint(len(sub))
        out += sub
    elif k == K_FLOAT:
        out += _st.pack("<d", v)
    else:
        raise EncodeError(f"cannot encode {t.go_name()} as protobuf")


_MAX_DEPTH = 100


def _proto_fill(obj: Any, cls: Any, buf: bytes, pos: int, end: int, path: str, depth: int) -> None:
    if depth > _MAX_DEPTH:
        # kcodec's own bound (Go's generated code recurses without one); the place is data.
        raise DecodeError(f"proto: exceeded max nesting depth {_MAX_DEPTH}", field_path=path)
    if not cls.__dict__.get("__kc_compiled__"):
        _m._compile(cls)
    bynum = cls.__kc_bynum__
    while pos < end:
        tag_pos = pos
        key, pos = _read_varint(buf, pos, end, path)
        wire = key & 7
        if wire == 4:
            # Checked before anything else, as every generated Unmarshal does.
            raise _end_group_error(cls.__name__, path, tag_pos)
        num = _go_field_number(key) if key >= 0x400000000 else key >> 3
        if num <= 0:
            raise _illegal_tag_error(cls.__name__, key, path, tag_pos)
        f = bynum.get(num)
        if f is None:
            pos = _skip(buf, wire, pos, end, path)
            continue
        # An embedded (inline) struct adds no name to the path, as in JSON.
        fpath = path if f.inline else path + "." + f.json
        k = f.kind
        # gogo's generated case for the field checks the wire type first (a repeated scalar
        # takes its packed form, wire type 2, too).
        if wire != f.wire and not (k == K_LIST and not f.wrapped and wire == f.elem.wire):
            raise _wrong_wire_error(wire, f.go_field(), fpath, tag_pos)
        if k == K_LIST and not f.wrapped:
            pos = _proto_fill_list(obj, f, wire, buf, pos, end, fpath, depth)
            continue
        if k == K_MAP:
            n, pos = _read_varint(buf, pos, end, fpath)
            stop = pos + n
            if stop > end:
                raise _length_error(n, fpath, pos)
            _proto_map_entry(obj, f, buf, pos, stop, end, fpath, depth)
            pos = stop
            continue
        if k == K_STRUCT:
            n, pos = _read_varint(buf, pos, end, fpath)
            stop = pos + n
            if stop > end:
                raise _length_error(n, fpath, pos)
            _proto_fill_message(obj, f, buf, pos, stop, fpath, depth)
            pos = stop
            continue
        val, pos = _proto_read(f, wire, buf, pos, end, fpath, depth)
        object.__setattr__(obj, f.name, val)


def _proto_fill_list(obj: Any, f: Any, wire: int, buf: bytes, pos: int, end: int, fpath: str,
                     depth: int) -> int:
    """Repeated field ``f``: the element at ``pos`` (packed scalars: the one length-delimited
    run) appended to the field's list in ``obj``; answers the position after it. (The
    compiled twin's _fill_list also takes the rest of a run under the same tag at once.)"""
    e = f.elem
    lst = getattr(obj, f.name)
    if lst is None:
        lst = []
        object.__setattr__(obj, f.name, lst)
    if wire == WT_BYTES and e.wire != WT_BYTES:
        n, pos = _read_varint(buf, pos, end, fpath)
        stop = pos + n
        if stop > end:
            raise _length_error(n, fpath, pos)
        while pos < stop:
            x, pos = _proto_read(e, wire=e.wire, buf=buf, pos=pos, end=stop, path=fpath, depth=depth)
            lst.append(x)
        return pos
    x, pos = _proto_read(e, wire, buf, pos, end, f"{fpath}[{len(lst)}]", depth)
    lst.append(x)
    return pos


def _proto_fill_message(obj: Any, f: Any, buf: bytes, pos: int, stop: int, fpath: str, depth: int) -> None:
    """The embedded message ``buf[pos:stop]`` of struct field ``f`` into ``obj``. A message
    seen twice merges into the first, pointer or not (gogo's generated Unmarshal allocates
    only when the pointer is nil)."""
    sub = getattr(obj, f.name)
    if sub is None:
        sub = f.cls._new_zero()
        object.__setattr__(obj, f.name, sub)
    _proto_fill(sub, f.cls, buf, pos, stop, fpath, depth + 1)


def _proto_map_entry(obj: Any, f: Any, buf: bytes, pos: int, stop: int, end: int, fpath: str,
                     depth: int) -> None:
    """One entry ``buf[pos:stop]`` of map field ``f`` into ``obj`` (the compiled twin's
    _map_entry). gogo's generated Unmarshal (k8s.io/api core/v1 generated.pb.go, e.g.
    ResourceRequirements.Limits) bounds the entry's key and value by the message's ``end``,
    not the entry's, and the caller resumes at ``stop`` (iNdEx = postIndex); only an
    unknown field's skip is held to the entry."""
    e = f.elem
    mk = ""
    mv = None
    have_v = False
    while pos < stop:
        ekey, pos = _read_varint(buf, pos, end, fpath)
        enum, ewire = _go_field_number(ekey), ekey & 7
        if enum == 1:  # read as the string key whatever the wire type, as gogo does
            ln, pos = _read_varint(buf, pos, end, fpath)
            if pos + ln > end:
                raise _length_error(ln, fpath, pos)
            mk = buf[pos:pos + ln].decode("utf-8", "surrogateescape")
            pos += ln
        elif enum == 2:
            # gogo's map entry reads the value by its type, whatever the wire type says.
            mv, pos = _proto_read(e, e.wire, buf, pos, end, f"{fpath}[{mk}]", depth)  # type: ignore[arg-type]
            have_v = True
        else:
            pos = _skip(buf, ewire, pos, end, fpath)
            if pos > stop:
                raise DecodeError("unexpected EOF", field_path=fpath, offset=stop)
    if not have_v:
        mv = _m._zero_of(e) if e.kind not in (K_STRUCT,) else e.cls._new_zero()  # type: ignore[union-attr]
        if e.kind == K_BYTES:  # type: ignore[union-attr]
            mv = None
    m = getattr(obj, f.name)
    if m is None:
        m = {}
        object.__setattr__(obj, f.name, m)
    m[mk] = mv


def _proto_read(t: Any, wire: int, buf: bytes, pos: int, end: int, path: str, depth: int) -> tuple[Any, int]:
    k = t.kind
    if wire != t.wire:
        # Only an element of a wrapped list gets here with another wire type (the callers
        # check the rest): the wrapper message's field is Items.
        raise _wrong_wire_error(wire, "Items", path, pos)
    if wire == WT_VARINT:
        v, pos = _read_varint(buf, pos, end, path)
        if k == K_BOOL:
            return v != 0, pos
        if k == K_INT32:
            v &= 0xFFFFFFFF
            if v >= 1 << 31:
                v -= 1 << 32
            return v, pos
        if v >= 1 << 63:
            v -= 1 << 64
        return v, pos
    if wire == WT_FIXED64:
        if pos + 8 > end:
            raise DecodeError("unexpected EOF", field_path=path, offset=pos)
        return _st.unpack_from("<d", buf, pos)[0], pos + 8
    n, pos = _read_varint(buf, pos, end, path)
    stop = pos + n
    if stop > end:
        raise _length_error(n, path, pos)
    if k == K_STR:
        return buf[pos:stop].decode("utf-8", "surrogateescape"), stop
    if k == K_STRUCT:
        sub = t.cls._new_zero()
        _proto_fill(sub, t.cls, buf, pos, stop, path, depth + 1)
        return sub, stop
    if k == K_CUSTOM:
        return t.cls._from_proto_body(buf[pos:stop], path), stop
    if k == K_BYTES:
        return buf[pos:stop], stop
    if k == K_LIST:  # wrapped
        holder: list[Any] = []
        e = t.elem
        p = pos
        while p < stop:
            ekey, p = _read_varint(buf, p, stop, path)
            if ekey >> 3 == 1:
                x, p = _proto_read(e, ekey & 7, buf, p, stop, f"{path}[{len(holder)}]", depth)  # type: ignore[arg-type]
                holder.append(x)
            else:
                p = _skip(buf, ekey & 7, p, stop, path)
        return holder, stop
    raise DecodeError(f"proto: cannot decode {t.go_name()}", field_path=path)


def struct_to_tree(obj: Any) -> dict[str, Any]:
    """Typed struct -> JSON tree (its class is compiled)."""
    out: dict[str, Any] = {}
    try:
        _struct_into(obj, type(obj).__kc_fields__, out)
    except RecursionError:
        raise EncodeError(_JSON_DEPTH_TEXT) from None
    return out


def expand_raw_tree(tree: Any) -> Any:
    """A copy of the dicts and lists of JSON tree ``tree`` with every :class:`RawJSON` leaf
    replaced by its parsed value (blank text: None): what ``Struct.to_dict`` returns, a tree
    that shares nothing mutable with the object it came from."""
    return _m.walk_tree(tree, _raw_leaf)


def copy_plain_tree(tree: Any) -> Any:
    """A deep copy of a plain JSON tree: dicts with string keys, lists, str, int, float,
    bool and None, each of exactly that type. Raises TypeError for anything else (the
    caller decides what a tuple or a subclass becomes) and RecursionError past Python's
    recursion limit."""
    t = type(tree)
    if t is dict:
        out = {}
        for k, x in tree.items():
            if type(k) is not str:
                raise TypeError(f"not a plain JSON tree: a {type(k).__name__} key")
            tx = type(x)
            out[k] = x if tx is str or tx is int or tx is bool or x is None or tx is float else copy_plain_tree(x)
        return out
    if t is list:
        return [x if (tx := type(x)) is str or tx is int or tx is bool or x is None or tx is float
                else copy_plain_tree(x) for x in tree]
    if t is str or t is int or t is bool or tree is None or t is float:
        return tree
    raise TypeError(f"not a plain JSON tree: a {t.__name__}")


def _raw_leaf(v: Any) -> Any:
    if not isinstance(v, RawJSON):
        return v
    if not v.data.strip():
        return None
    try:
        return _gojson.loads(v.data)
    except DecodeError as exc:
        raise EncodeError(f"json: error calling MarshalJSON for type RawJSON: {exc}") from None


def fill_from_tree(obj: Any, cls: Any, tree: dict[str, Any], strict: list[str] | None, path: str) -> None:
    """Fill ``obj`` (an instance of compiled ``cls``) from a JSON object tree."""
    _fill(obj, cls, tree, strict, path, "")


def struct_to_proto(obj: Any, prefix: bytes | None = None, suffix: bytes = b"") -> bytes:
    """Typed struct -> protobuf message body.

    With ``prefix``, the body is framed as ``prefix + uvarint(len(body)) + body + suffix``
    (how the envelope is written without copying a large body into it)."""
    out = bytearray()
    try:
        _proto_struct(obj, type(obj), out)
    except RecursionError:
        raise EncodeError(_PROTO_DEPTH_TEXT) from None
    if prefix is None:
        return bytes(out)
    return b"".join((prefix, _varint(len(out)), out, suffix))


def fill_from_proto(obj: Any, cls: Any, buf: bytes, path: str, start: int = 0, end: int = -1) -> None:
    """Fill ``obj`` (an instance of compiled ``cls``) from the protobuf message body
    ``buf[start:end]`` (``end`` -1: to the end); byte offsets in errors count from ``start``."""
    n = len(buf)
    stop = n if end < 0 else end
    if not 0 <= start <= stop <= n:
        raise ValueError(f"message span [{start}:{end}] outside a buffer of {n} bytes")
    if start or stop != n:
        buf = buf[start:stop]
    _proto_fill(obj, cls, buf, 0, len(buf), path, 0)
