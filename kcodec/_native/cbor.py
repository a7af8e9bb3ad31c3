"""Pure-Python CBOR kernels: typed structs and JSON-shaped trees <-> CBOR bytes.

They follow k8s.io/apimachinery/pkg/runtime/serializer/cbor (internal/modes/encode.go and
decode.go) and the fxamacker/cbor options set there. The Cython twin is
``kcodec/_speedups/_cbor.pyx`` (the same walkers, compiled); :mod:`kcodec.speedups` binds one.

kcodec writes its own CBOR codec instead of using ``cbor2``: Go's bytes need every Go string
written as a CBOR *byte* string and every ``[]byte`` as tag 22 around one, struct fields and
map keys sorted by their encoded bytes, omitempty applied per field, and custom values
(Quantity, Time, IntOrString...) written through their JSON forms; on decode, byte strings
become Go strings or base64-decoded ``[]byte`` depending on the target field, and duplicate
keys, NaN/Inf, bignums and ``undefined`` are errors. None of that is expressible through
cbor2's encoder/decoder hooks without re-walking every value in Python.

Encoding rules (Go's ``modes.Encode``): definite lengths only; integers in the shortest
head; floats in the shortest of float16/32/64 that keeps the value, NaN/Inf rejected;
``nil`` slices and maps as null; struct fields and map keys sorted bytewise by their encoded
form (for strings: shorter first, then bytewise).

Decoding rules (Go's ``modes.Decode``): the item is checked for well-formedness first
(truncation, reserved additional information, break codes, indefinite-length chunks,
nesting at most 10000, maps at most 2097152 pairs) so a hostile length never allocates;
trailing bytes are an error; text strings must be valid UTF-8; simple values other than
false/true/null, NaN/Inf floats, bignum tags (2, 3) and duplicate map keys are rejected;
tag 55799 is ignored, tags 21/22/23 on a byte string decoded into a string apply the
expected later encoding, other tags decode as their content.
"""
from __future__ import annotations

import base64
import math
import struct as _st
from typing import Any

from kcodec import fieldtable as _m
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
)
from kcodec.errors import DecodeError, EncodeError
# fxamacker/cbor prints a duplicate key with %#v: strconv.Quote's form.
from kcodec.gofmt import quote as _go_quote
from kcodec.gojson import b64decode as _go_b64decode

__all__ = ["cbor_encode", "cbor_encode_tree", "cbor_fill", "cbor_loads", "cbor_item_end", "cbor_type_meta"]

MAX_NESTED_LEVELS = 10000
MAX_ARRAY_ELEMENTS = 2147483647
MAX_MAP_PAIRS = 2097152
SELF_DESCRIBED = b"\xd9\xd9\xf7"

_TYPE_NAMES = ("positive integer", "negative integer", "byte string", "UTF-8 text string",
               "array", "map", "tag", "primitives")

_pack_e = _st.Struct(">e").pack
_pack_f = _st.Struct(">f").pack
_pack_d = _st.Struct(">d").pack
_unpack_e = _st.Struct(">e").unpack
_unpack_f = _st.Struct(">f").unpack
_unpack_d = _st.Struct(">d").unpack

# --------------------------------------------------------------------------- encoding


def _head(major: int, n: int) -> bytes:
    m = major << 5
    if n < 24:
        return bytes((m | n,))
    if n < 0x100:
        return bytes((m | 24, n))
    if n < 0x10000:
        return bytes((m | 25,)) + n.to_bytes(2, "big")
    if n < 0x100000000:
        return bytes((m | 26,)) + n.to_bytes(4, "big")
    return bytes((m | 27,)) + n.to_bytes(8, "big")


def _put_int(out: bytearray, v: int) -> None:
    if v >= 0:
        if v > 0xFFFFFFFFFFFFFFFF:
            raise EncodeError(f"cbor: cannot encode integer {v}: out of range")
        out += _head(0, v)
    else:
        if v < -0x10000000000000000:
            raise EncodeError(f"cbor: cannot encode integer {v}: out of range")
        out += _head(1, -1 - v)


def _put_float(out: bytearray, v: float) -> None:
    if v != v:
        raise EncodeError("cbor: unsupported value: floating-point NaN")
    if v in (math.inf, -math.inf):
        raise EncodeError("cbor: unsupported value: floating-point infinity")
    # ShortestFloat16: the narrowest IEEE width that gives the same float64 back.
    try:
        b4 = _pack_f(v)
    except OverflowError:
        out += b"\xfb" + _pack_d(v)
        return
    if _unpack_f(b4)[0] != v:
        out += b"\xfb" + _pack_d(v)
        return
    try:
        b2 = _pack_e(v)
    except OverflowError:
        out += b"\xfa" + b4
        return
    if _unpack_e(b2)[0] == v:
        out += b"\xf9" + b2
    else:
        out += b"\xfa" + b4


def _str_bytes(s: str) -> bytes:
    # Strings decoded from invalid UTF-8 keep their bytes as surrogate escapes.
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogateescape")


def _put_str(out: bytearray, s: str) -> None:
    b = _str_bytes(s)
    out += _head(2, len(b))
    out += b


def _key_order(k: bytes) -> tuple[int, bytes]:
    return (len(k), k)


def _sorted_keys(d: dict[str, Any]) -> list[tuple[bytes, str]]:
    for k in d:
        if not isinstance(k, str):
            # Go's unstructured maps are map[string]interface{}: no other key exists there.
            raise EncodeError(f"cbor: unsupported type: map key {k!r} of type {type(k).__name__}")
    keys = [(_str_bytes(k), k) for k in d]
    # Bytewise order of the encoded keys: for definite-length strings, length first.
    keys.sort(key=lambda p: (len(p[0]), p[0]))
    return keys


def _plan(cls: Any) -> tuple[tuple[bytes, tuple[Any, ...]], ...]:
    """(encoded key, inline chain ending in the field) for every JSON name of ``cls``,
    in Go's key order; cached on the class."""
    plan = cls.__dict__.get("__kc_cbor__")
    if plan is None:
        if not cls.__dict__.get("__kc_compiled__"):
            _m._compile(cls)
        rows = []
        for key, chain in cls.__kc_json__.items():
            kb = _str_bytes(key)
            rows.append((_head(2, len(kb)) + kb, chain))
        rows.sort(key=lambda r: r[0])
        plan = tuple(rows)
        cls.__kc_cbor__ = plan
    return plan


def _omitted(f: Any, v: Any) -> bool:
    if v is None:
        return bool(f.omitempty or f.omitzero)
    if f.omitempty and not v:
        k = f.kind
        # Go's isEmptyValue: empty slices/maps/strings and zero scalars; structs never.
        if k == K_LIST or k == K_MAP or k == K_BYTES or (k <= K_FLOAT and not f.pointer):
            return True
    if f.omitzero and not f.pointer and _m._is_zero_value(f, v):
        return True
    return False


def _put_struct(out: bytearray, obj: Any, depth: int) -> None:
    if depth > MAX_NESTED_LEVELS:
        raise EncodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}")
    entries = []
    for kb, chain in _plan(type(obj)):
        target = obj
        for inl in chain[:-1]:
            target = getattr(target, inl.name)
            if target is None:
                break
        if target is None:
            continue
        f = chain[-1]
        v = getattr(target, f.name)
        if _omitted(f, v):
            continue
        entries.append((kb, f, v))
    out += _head(5, len(entries))
    for kb, f, v in entries:
        out += kb
        _put_value(out, f, v, depth + 1)


def _put_value(out: bytearray, t: Any, v: Any, depth: int) -> None:
    if v is None:
        out.append(0xF6)
        return
    k = t.kind
    if k == K_STR:
        _put_str(out, v)
    elif k == K_INT32 or k == K_INT64:
        _put_int(out, v)
    elif k == K_BOOL:
        out.append(0xF5 if v else 0xF4)
    elif k == K_STRUCT:
        _put_struct(out, v, depth)
    elif k == K_LIST:
        e = t.elem
        out += _head(4, len(v))
        for x in v:
            _put_value(out, e, x, depth + 1)
    elif k == K_MAP:
        e = t.elem
        out += _head(5, len(v))
        for kb, key in _sorted_keys(v):
            out += _head(2, len(kb))
            out += kb
            _put_value(out, e, v[key], depth + 1)
    elif k == K_CUSTOM:
        _put_custom(out, v, depth)
    elif k == K_BYTES:
        # []byte: tag 22 (expected later base64) around a byte string, as Go's
        # ByteSliceLaterFormatBase64 writes it.
        out.append(0xD6)
        out += _head(2, len(v))
        out += v
    elif k == K_FLOAT:
        _put_float(out, float(v))
    else:
        _put_tree(out, v, depth)


def _put_custom(out: bytearray, v: Any, depth: int) -> None:
    raw = getattr(v, "raw", None)
    if type(raw) is bytes and raw and (raw.startswith(SELF_DESCRIBED) or 0xA0 <= raw[0] <= 0xBF):
        # RawExtension and FieldsV1 holding CBOR: Go's MarshalCBOR hands the bytes back as they are.
        out += raw
        return
    _put_tree(out, v._to_tree(), depth)


def _put_tree(out: bytearray, v: Any, depth: int) -> None:
    if depth > MAX_NESTED_LEVELS:
        raise EncodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}")
    t = type(v)
    if t is str:
        _put_str(out, v)
    elif t is dict:
        out += _head(5, len(v))
        for kb, key in _sorted_keys(v):
            out += _head(2, len(kb))
            out += kb
            _put_tree(out, v[key], depth + 1)
    elif t is list or t is tuple:
        out += _head(4, len(v))
        for x in v:
            _put_tree(out, x, depth + 1)
    elif v is None:
        out.append(0xF6)
    elif v is True:
        out.append(0xF5)
    elif v is False:
        out.append(0xF4)
    elif t is int:
        if not INT64_MIN <= v <= INT64_MAX:
            raise EncodeError(f"cbor: unsupported value: integer {v} overflows int64")
        _put_int(out, v)
    elif t is float:
        _put_float(out, v)
    elif isinstance(v, _m.RawJSON):
        # A json.Marshaler's output goes through Go's TranscodeFromJSON: parsed with
        # int64-preserving numbers, then written as CBOR.
        data = v.data
        if not data.strip():
            raise EncodeError("cbor: error transcoding JSON: unexpected end of JSON input")
        from kcodec import gojson as _gojson

        try:
            tree = _gojson.loads(data)
        except DecodeError as exc:
            raise EncodeError(f"cbor: error transcoding JSON: {exc}") from None
        _put_tree(out, tree, depth)
    elif isinstance(v, (bytes, bytearray)):
        out.append(0xD6)
        out += _head(2, len(v))
        out += v
    elif isinstance(v, _m.StructBase):
        _put_struct(out, v, depth)
    elif isinstance(v, _m.CustomValue):
        _put_custom(out, v, depth)
    elif isinstance(v, str):
        _put_str(out, str(v))
    elif isinstance(v, bool):
        out.append(0xF5 if v else 0xF4)
    elif isinstance(v, int):
        _put_tree(out, int(v), depth)
    elif isinstance(v, float):
        _put_float(out, float(v))
    elif isinstance(v, dict):
        _put_tree(out, dict(v), depth)
    elif isinstance(v, (list, tuple)):
        _put_tree(out, list(v), depth)
    else:
        raise EncodeError(f"cbor: unsupported type: {type(v).__name__}")


def cbor_encode(obj: Any, prefix: bytes = b"") -> bytes:
    """``prefix`` + the CBOR encoding of a typed struct, as Go's ``modes.Encode``."""
    out = bytearray(prefix)
    try:
        _put_struct(out, obj, 1)
    except RecursionError:
        raise EncodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}") from None
    return bytes(out)


def cbor_encode_tree(tree: Any, prefix: bytes = b"") -> bytes:
    """``prefix`` + the CBOR encoding of a JSON-shaped tree (Unstructured content)."""
    out = bytearray(prefix)
    try:
        _put_tree(out, tree, 1)
    except RecursionError:
        raise EncodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}") from None
    return bytes(out)


# --------------------------------------------------------------------------- well-formedness


def _eof() -> DecodeError:
    return DecodeError("unexpected EOF")


def _wf_head(data: bytes, pos: int, end: int) -> tuple[int, int, int, int]:
    """(major, additional information, argument, next position) of the head at ``pos``."""
    if pos >= end:
        raise _eof()
    ib = data[pos]
    major = ib >> 5
    ai = ib & 0x1F
    pos += 1
    if ai < 24:
        return major, ai, ai, pos
    if ai == 24:
        if pos + 1 > end:
            raise _eof()
        val = data[pos]
        if major == 7 and val < 32:
            raise DecodeError(f"cbor: invalid simple value {val} for type primitives")
        return major, ai, val, pos + 1
    if ai == 25:
        if pos + 2 > end:
            raise _eof()
        return major, ai, int.from_bytes(data[pos:pos + 2], "big"), pos + 2
    if ai == 26:
        if pos + 4 > end:
            raise _eof()
        return major, ai, int.from_bytes(data[pos:pos + 4], "big"), pos + 4
    if ai == 27:
        if pos + 8 > end:
            raise _eof()
        return major, ai, int.from_bytes(data[pos:pos + 8], "big"), pos + 8
    if ai == 31:
        if major in (0, 1, 6):
            raise DecodeError(f"cbor: invalid additional information {ai} for type {_TYPE_NAMES[major]}")
        if major == 7:
            raise DecodeError('cbor: unexpected "break" code')
        return major, ai, -1, pos
    raise DecodeError(f"cbor: invalid additional information {ai} for type {_TYPE_NAMES[major]}")


def cbor_item_end(data: bytes, pos: int = 0, end: int = -1) -> int:
    """Check the data item at ``pos`` for well-formedness (and Go's limits); return where
    it ends. Raises ``DecodeError`` ("unexpected EOF" when it is cut short)."""
    if end < 0:
        end = len(data)
    if pos >= end:
        raise DecodeError("EOF")
    # An explicit stack, so hostile nesting never reaches the Python recursion limit.
    # Entries: [items left (-1: indefinite), major type, items read].
    stack: list[list[int]] = []
    while True:
        if stack and stack[-1][0] < 0:
            if pos >= end:
                raise _eof()
            if data[pos] == 0xFF:
                top = stack.pop()
                if top[1] == 5 and top[2] % 2:
                    raise DecodeError('cbor: unexpected "break" code')
                pos += 1
                if not _item_done(stack):
                    return pos
                continue
        major, ai, val, pos = _wf_head(data, pos, end)
        if major <= 1:
            pass
        elif major <= 3:
            if ai == 31:
                # Indefinite-length string: definite chunks of the same major type, then break.
                while True:
                    if pos >= end:
                        raise _eof()
                    if data[pos] == 0xFF:
                        pos += 1
                        break
                    # fxamacker/cbor peeks at the chunk's initial byte before reading its head,
                    # so a wrong type wins over a malformed head.
                    cmajor, cai = data[pos] >> 5, data[pos] & 0x1F
                    if cmajor != major:
                        raise DecodeError(f"cbor: wrong element type {_TYPE_NAMES[cmajor]} "
                                          f"for indefinite-length {_TYPE_NAMES[major]}")
                    if cai == 31:
                        raise DecodeError(f"cbor: indefinite-length {_TYPE_NAMES[major]} chunk is not definite-length")
                    _, _, cval, pos = _wf_head(data, pos, end)
                    if cval > end - pos:
                        raise _eof()
                    pos += cval
            else:
                if val > end - pos:
                    raise _eof()
                pos += val
        elif major <= 6:
            if len(stack) >= MAX_NESTED_LEVELS:
                raise DecodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}")
            if major == 6:
                if val == 2 or val == 3:
                    raise DecodeError("cbor: bignum tags are forbidden")
                stack.append([1, 6, 0])
                continue
            if ai == 31:
                stack.append([-1, major, 0])
                continue
            if major == 4:
                if val > MAX_ARRAY_ELEMENTS:
                    raise DecodeError(f"cbor: exceeded max number of elements {MAX_ARRAY_ELEMENTS} for CBOR array")
                n = val
            else:
                if val > MAX_MAP_PAIRS:
                    raise DecodeError(f"cbor: exceeded max number of key-value pairs {MAX_MAP_PAIRS} for CBOR map")
                n = val * 2
            # Every item takes at least one byte: a length beyond the data is truncation,
            # found before anything is allocated for it.
            if n > end - pos:
                raise _eof()
            if n:
                stack.append([n, major, 0])
                continue
        else:
            if ai <= 24:
                if val < 20 or val > 22:
                    raise DecodeError("cbor: data item of cbor type primitives is not accepted by protocol: "
                                      f"simple value {val} is not recognized")
            elif ai == 25:
                _check_float(_unpack_e(val.to_bytes(2, "big"))[0])
            elif ai == 26:
                _check_float(_unpack_f(val.to_bytes(4, "big"))[0])
            else:
                _check_float(_unpack_d(val.to_bytes(8, "big"))[0])
        if not _item_done(stack):
            return pos


def _item_done(stack: list[list[int]]) -> bool:
    """Count one finished item against the open containers; False once none is open."""
    while stack:
        top = stack[-1]
        if top[0] < 0:
            top[2] += 1
            if top[1] == 4 and top[2] > MAX_ARRAY_ELEMENTS:
                raise DecodeError(f"cbor: exceeded max number of elements {MAX_ARRAY_ELEMENTS} for CBOR array")
            if top[1] == 5 and top[2] > 2 * MAX_MAP_PAIRS:
                raise DecodeError(f"cbor: exceeded max number of key-value pairs {MAX_MAP_PAIRS} for CBOR map")
            return True
        top[0] -= 1
        if top[0]:
            return True
        stack.pop()
    return False


def _check_float(f: float) -> None:
    if f != f:
        raise DecodeError("cbor: data item of cbor type primitives is not accepted by protocol: floating-point NaN")
    if f in (math.inf, -math.inf):
        raise DecodeError("cbor: data item of cbor type primitives is not accepted by protocol: floating-point infinity")


def _check_whole(data: bytes, start: int, end: int) -> None:
    stop = cbor_item_end(data, start, end)
    if stop != end:
        raise DecodeError(f"cbor: {end - stop} bytes of extraneous data starting at index {stop - start}")


# --------------------------------------------------------------------------- decoding
# Runs only over data cbor_item_end accepted, so lengths are known to fit.


class _Dec:
    __slots__ = ("data", "pos", "strict", "transcode")

    def __init__(self, data: bytes, pos: int, strict: list[str] | None, transcode: bool = True) -> None:
        self.data = data
        self.pos = pos
        self.strict = strict
        self.transcode = transcode

    def head(self) -> tuple[int, int, int]:
        data = self.data
        pos = self.pos
        ib = data[pos]
        major = ib >> 5
        ai = ib & 0x1F
        pos += 1
        if ai < 24:
            val = ai
        elif ai == 24:
            val = data[pos]
            pos += 1
        elif ai == 25:
            val = (data[pos] << 8) | data[pos + 1]
            pos += 2
        elif ai == 26:
            val = int.from_bytes(data[pos:pos + 4], "big")
            pos += 4
        elif ai == 27:
            val = int.from_bytes(data[pos:pos + 8], "big")
            pos += 8
        else:
            val = -1
        self.pos = pos
        return major, ai, val

    def skip_tags(self) -> int:
        """Skip tags before an item; return the innermost expected-later-encoding tag
        (21, 22, 23) seen, or 0."""
        later = 0
        data = self.data
        while data[self.pos] >> 5 == 6:
            _, _, tag = self.head()
            if tag in (21, 22, 23):
                later = tag
        return later

    def string_bytes(self, major: int, ai: int, val: int) -> bytes:
        data = self.data
        if ai != 31:
            s = data[self.pos:self.pos + val]
            self.pos += val
            return s
        parts = []
        while data[self.pos] != 0xFF:
            _, _, n = self.head()
            parts.append(data[self.pos:self.pos + n])
            self.pos += n
        self.pos += 1
        return b"".join(parts)

    def at_break(self, n: int) -> bool:
        if n >= 0:
            return False
        if self.data[self.pos] == 0xFF:
            self.pos += 1
            return True
        return False

    # ---- generic (interface{}) values: the JSON tree shape

    def any(self, depth: int) -> Any:
        later = self.skip_tags_any()
        major, ai, val = self.head()
        if major == 0:
            if val > INT64_MAX:
                raise DecodeError(f"cbor: cannot unmarshal positive integer into Go value of type int64 ({val} overflows)")
            return val
        if major == 1:
            if val > INT64_MAX:
                raise DecodeError(f"cbor: cannot unmarshal negative integer into Go value of type int64 (-{val + 1} overflows Go's int64)")
            return -1 - val
        if major == 2:
            b = self.string_bytes(major, ai, val)
            return _later_text(b, later) if later else b.decode("utf-8", "surrogateescape")
        if major == 3:
            return _utf8(self.string_bytes(major, ai, val))
        if major == 4:
            out = []
            n = val
            i = 0
            while i != n and not self.at_break(n):
                out.append(self.any(depth + 1))
                i += 1
            return out
        if major == 5:
            d: dict[str, Any] = {}
            n = val
            i = 0
            while i != n and not self.at_break(n):
                key = self.any_key()
                if key in d:
                    raise DecodeError(f"cbor: found duplicate map key {_go_quote(key)} at map element index {i}")
                d[key] = self.any(depth + 1)
                i += 1
            return d
        if major == 7:
            if ai == 25:
                return _unpack_e(val.to_bytes(2, "big"))[0]
            if ai == 26:
                return _unpack_f(val.to_bytes(4, "big"))[0]
            if ai == 27:
                return _unpack_d(val.to_bytes(8, "big"))[0]
            if val == 20:
                return False
            if val == 21:
                return True
            return None
        raise DecodeError("cbor: unexpected data item")  # pragma: no cover - tags skipped above

    def skip_tags_any(self) -> int:
        """Tags before an interface{} value: time tags become RFC 3339 strings (handled by
        the caller reading their content), expected-later tags are remembered, others dropped."""
        return self.skip_tags()

    def any_key(self) -> str:
        # Byte-string keys decode to Go strings (DefaultMapType map[string]interface{});
        # any other key type cannot be a map[string]interface{} key.
        later = self.skip_tags()
        major, ai, val = self.head()
        if major == 3:
            return _utf8(self.string_bytes(major, ai, val))
        if major == 2:
            b = self.string_bytes(major, ai, val)
            return _later_text(b, later) if later else b.decode("utf-8", "surrogateescape")
        raise DecodeError(f"cbor: cannot unmarshal {_TYPE_NAMES[major]} into Go value of type string")

    # ---- typed values

    def struct(self, obj: Any, cls: Any, path: str, spath: str, depth: int) -> None:
        self.skip_tags()
        major, ai, val = self.head()
        if major != 5:
            self.pos -= 1  # not needed further: report and stop
            raise DecodeError(f"cbor: cannot unmarshal {_TYPE_NAMES[major]} into Go value of type {_m.go_type_name(cls)}")
        self.fill_map(obj, cls, val, path, spath, depth)

    def fill_map(self, obj: Any, cls: Any, n: int, path: str, spath: str, depth: int) -> None:
        jmap = cls.__kc_json__
        seen: set[str] = set()
        i = 0
        strict = self.strict
        while i != n and not self.at_break(n):
            self.skip_tags()
            major, ai, val = self.head()
            if major == 2 or major == 3:
                kb = self.string_bytes(major, ai, val)
                key = _utf8(kb) if major == 3 else kb.decode("utf-8", "surrogateescape")
            else:
                raise DecodeError(f"cbor: cannot unmarshal {_TYPE_NAMES[major]} into Go value of type string "
                                  f"(map key at index {i} of {path})")
            if key in seen:
                raise DecodeError(f"cbor: found duplicate map key {_go_quote(key)} at map element index {i}")
            seen.add(key)
            chain = jmap.get(key)
            if chain is None:
                if strict is not None:
                    msg = f'unknown field "{spath}{key}"'
                    if msg not in strict:
                        strict.append(msg)
                self.skip_item()
                i += 1
                continue
            target = obj
            for inl in chain[:-1]:
                sub = getattr(target, inl.name)
                if sub is None:
                    sub = inl.cls._new_zero()
                    object.__setattr__(target, inl.name, sub)
                target = sub
            f = chain[-1]
            object.__setattr__(target, f.name,
                               self.value(f, getattr(target, f.name), path + "." + key, spath + key, depth + 1))
            i += 1

    def raw_value(self, cls: Any) -> Any:
        """RawExtension / FieldsV1 left as CBOR (Go's Transcode(false), used for watch
        streams): the item's bytes, a RawExtension's behind the self-described tag."""
        start = self.pos
        self.skip_item()
        raw = self.data[start:self.pos]
        if raw == b"\xf6":
            return cls()
        if "object" in cls.__slots__ and not raw.startswith(SELF_DESCRIBED):
            raw = SELF_DESCRIBED + raw
        return cls(raw)

    def skip_item(self) -> None:
        self.pos = cbor_item_end(self.data, self.pos, len(self.data))

    def custom_value(self, t: Any, path: str, depth: int) -> Any:
        """A custom value (Quantity, Time, RawExtension...) from the item at ``pos``;
        None for null under a pointer."""
        if t.pointer:
            p0 = self.pos
            self.skip_tags()
            if self.data[self.pos] == 0xF6:
                self.pos += 1
                return None
            self.pos = p0
        if not self.transcode and "raw" in getattr(t.cls, "__slots__", ()):
            return self.raw_value(t.cls)
        return _custom(t.cls, self.any(depth), path)

    def map_value(self, t: Any, n: int, old: Any, path: str, spath: str, depth: int) -> Any:
        """The ``n`` pairs (-1: up to a break) of a map into map field ``t``, merged into
        ``old``; keys are byte or text strings, each once (fxamacker's duplicate check)."""
        e = t.elem
        out_map: dict[str, Any] = {}
        i = 0
        while i != n and not self.at_break(n):
            self.skip_tags()
            kmajor, kai, kval = self.head()
            if kmajor == 2:
                key = self.string_bytes(kmajor, kai, kval).decode("utf-8", "surrogateescape")
            elif kmajor == 3:
                key = _utf8(self.string_bytes(kmajor, kai, kval))
            else:
                raise DecodeError(f"cbor: cannot unmarshal {_TYPE_NAMES[kmajor]} into Go value of type string "
                                  f"(map key of {path})")
            if key in out_map:
                raise DecodeError(f"cbor: found duplicate map key {_go_quote(key)} at map element index {i}")
            out_map[key] = self.value(e, None, f"{path}[{key}]", f"{spath}[{key}]", depth + 1)
            i += 1
        if old is not None:
            old.update(out_map)
            return old
        return out_map

    @staticmethod
    def bytes_value(b: bytes, later: int, path: str) -> bytes:
        """A byte string into a []byte field: as it is under an expected-encoding tag, else
        base64 text Go decodes (ByteStringExpectedBase64)."""
        if later:
            return b
        # fxamacker/cbor's ByteStringExpectedFormatError around encoding/base64's
        # CorruptInputError; the place is data, not text.
        try:
            return _go_b64decode(b)
        except DecodeError as exc:
            raise DecodeError(f"cbor: failed to decode base64 from byte string: {exc}",
                              field_path=path or None, offset=exc.offset) from None

    def value(self, t: Any, old: Any, path: str, spath: str, depth: int) -> Any:
        data = self.data
        k = t.kind
        if k == K_ANY:
            return self.any(depth)
        if k == K_CUSTOM:
            return self.custom_value(t, path, depth)
        later = self.skip_tags()
        ib = data[self.pos]
        if ib == 0xF6:
            self.pos += 1
            # null: nil for pointers and containers; scalars and structs keep their value.
            if t.pointer or k in (K_LIST, K_MAP, K_BYTES, K_ANY):
                return None
            if k == K_STRUCT:
                return old if old is not None else t.cls._new_zero()
            return old if old is not None else _m._zero_of(t)
        major, ai, val = self.head()
        if k == K_STR:
            if major == 2:
                b = self.string_bytes(major, ai, val)
                return _later_text(b, later) if later else b.decode("utf-8", "surrogateescape")
            if major == 3:
                return _utf8(self.string_bytes(major, ai, val))
            raise _type_error(major, t, path)
        if k == K_INT32 or k == K_INT64:
            if major == 0:
                v = val
            elif major == 1:
                v = -1 - val
            else:
                raise _type_error(major, t, path)
            lo, hi = (INT32_MIN, INT32_MAX) if k == K_INT32 else (INT64_MIN, INT64_MAX)
            if not lo <= v <= hi:
                raise DecodeError(f"cbor: cannot unmarshal {_TYPE_NAMES[major]} into Go struct field {path} "
                                  f"of type {_go_name(t)} ({v} overflows)")
            return v
        if k == K_BOOL:
            if major == 7 and (val == 20 or val == 21) and ai < 24:
                return val == 21
            raise _type_error(major, t, path)
        if k == K_STRUCT:
            if major != 5:
                raise _type_error(major, t, path)
            sub = old if old is not None else t.cls._new_zero()
            cls = t.cls
            if not cls.__dict__.get("__kc_compiled__"):
                _m._compile(cls)
            self.fill_map(sub, cls, val, path, spath + ".", depth)
            return sub
        if k == K_LIST:
            if major != 4:
                raise _type_error(major, t, path)
            e = t.elem
            out = []
            i = 0
            while i != val and not self.at_break(val):
                out.append(self.value(e, None, f"{path}[{i}]", f"{spath}[{i}]", depth + 1))
                i += 1
            return out
        if k == K_MAP:
            if major != 5:
                raise _type_error(major, t, path)
            return self.map_value(t, val, old, path, spath, depth)
        if k == K_BYTES:
            if major != 2:
                raise _type_error(major, t, path)
            return self.bytes_value(self.string_bytes(major, ai, val), later, path)
        if k == K_FLOAT:
            if major == 7 and ai >= 25:
                if ai == 25:
                    return _unpack_e(val.to_bytes(2, "big"))[0]
                if ai == 26:
                    return _unpack_f(val.to_bytes(4, "big"))[0]
                return _unpack_d(val.to_bytes(8, "big"))[0]
            if major == 0:
                return float(val)
            if major == 1:
                return float(-1 - val)
            raise _type_error(major, t, path)
        raise DecodeError(f"cbor: cannot decode into {t!r}")  # pragma: no cover


def _go_name(t: Any) -> str:
    name = t.go_name()
    if t.pointer and name.startswith("*"):
        name = name[1:]
    return name


def _type_error(major: int, t: Any, path: str) -> DecodeError:
    return DecodeError(f"cbor: cannot unmarshal {_TYPE_NAMES[major]} into Go struct field {path} of type {_go_name(t)}")


def _utf8(b: bytes) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise DecodeError("cbor: invalid UTF-8 string") from None


def _later_text(b: bytes, tag: int) -> str:
    if tag == 22:
        return base64.b64encode(b).decode("ascii")
    if tag == 21:
        return base64.urlsafe_b64encode(b).rstrip(b"=").decode("ascii")
    return b.hex()


def _custom(cls: Any, tree: Any, path: str) -> Any:
    if type(tree) is dict or type(tree) is list:
        # Go's transcodeRawTypes / JSONUnmarshaler transcoding: the value is re-encoded as
        # JSON by encoding/json, whose map keys come out sorted.
        from kcodec.gojson import dumps

        try:
            text = dumps(tree, sort_keys=True)
        except (ValueError, TypeError) as exc:
            raise DecodeError(f"cbor: cannot transcode {path} to JSON: {exc}") from None
        return cls._from_tree(_m.RawJSON(text), path)
    return cls._from_tree(tree, path)


def cbor_loads(data: bytes, start: int = 0, end: int = -1) -> Any:
    """CBOR item ``data[start:end]`` -> JSON-shaped tree (Go's decode into interface{})."""
    if end < 0:
        end = len(data)
    _check_whole(data, start, end)
    d = _Dec(data, start, None)
    try:
        return d.any(1)
    except RecursionError:
        raise DecodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}") from None


def cbor_fill(obj: Any, cls: Any, data: bytes, strict: list[str] | None, path: str,
              start: int = 0, end: int = -1, transcode: bool = True, checked: bool = False) -> None:
    """Fill typed ``obj`` (of class ``cls``) from the CBOR map ``data[start:end]``.

    ``transcode`` False keeps RawExtension/FieldsV1 values as CBOR bytes instead of JSON;
    ``checked`` says the caller already had ``cbor_type_meta`` accept the same span."""
    if end < 0:
        end = len(data)
    if not checked:
        _check_whole(data, start, end)
    d = _Dec(data, start, strict, transcode)
    try:
        d.struct(obj, cls, path, "", 1)
    except RecursionError:
        raise DecodeError(f"cbor: exceeded max nested level {MAX_NESTED_LEVELS}") from None


def cbor_type_meta(data: bytes, start: int = 0, end: int = -1) -> tuple[str, str]:
    """(apiVersion, kind) of the CBOR map ``data[start:end]``, as Go's lax decode of the
    whole item into metav1.TypeMeta reads them ("" when absent or null)."""
    if end < 0:
        end = len(data)
    _check_whole(data, start, end)
    return _type_meta_checked(data, start, end)


def _type_meta_checked(data: bytes, start: int, end: int) -> tuple[str, str]:
    d = _Dec(data, start, None)
    d.skip_tags()
    major, ai, n = d.head()
    if major == 7 and n == 22:
        return "", ""
    if major != 5:
        raise DecodeError(f"cbor: cannot unmarshal {_TYPE_NAMES[major]} into Go value of type v1.TypeMeta")
    found = {"apiVersion": "", "kind": ""}
    seen: set[str] = set()
    i = 0
    while i != n and not d.at_break(n):
        d.skip_tags()
        kmajor, kai, kval = d.head()
        if kmajor == 2 or kmajor == 3:
            kb = d.string_bytes(kmajor, kai, kval)
            key = _utf8(kb) if kmajor == 3 else kb.decode("utf-8", "surrogateescape")
        else:
            raise DecodeError(f"cbor: cannot unmarshal {_TYPE_NAMES[kmajor]} into Go value of type string "
                              f"(map key at index {i} of TypeMeta)")
        if key in seen:
            raise DecodeError(f"cbor: found duplicate map key {_go_quote(key)} at map element index {i}")
        seen.add(key)
        if key in found:
            later = d.skip_tags()
            vmajor, vai, vval = d.head()
            if vmajor == 2:
                b = d.string_bytes(vmajor, vai, vval)
                found[key] = _later_text(b, later) if later else b.decode("utf-8", "surrogateescape")
            elif vmajor == 3:
                found[key] = _utf8(d.string_bytes(vmajor, vai, vval))
            elif not (vmajor == 7 and vval == 22):
                raise DecodeError(f"cbor: cannot unmarshal {_TYPE_NAMES[vmajor]} into Go struct field "
                                  f"TypeMeta.{key} of type string")
        else:
            d.skip_item()
        i += 1
    return found["apiVersion"], found["kind"]
