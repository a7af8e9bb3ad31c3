"""JSON patch (RFC 6902) as gopkg.in/evanphx/json-patch.v4 (v4.13.0) applies it for
kube-apiserver (k8s.io/apiserver pkg/endpoints/handlers/patch.go, jsonPatcher.applyJSPatch).

evanphx's v4 departs from the RFC in ways clients can see, and kcodec keeps them: a path
without a leading ``/`` addresses the root's member named after its last segment; ``replace``
of a missing object member adds it; negative array indexes count from the end
(``SupportNegativeIndices``); ``copy`` of a missing member writes ``null``; ``test`` compares
scalars by their JSON text (``1`` is not ``1.0``); an ``add``/``replace`` without ``value``
writes ``null``. The error texts are the library's, wrapped as it wraps them (``%w``).
kube-apiserver refuses more than 10,000 operations (413) and copies adding more than
3 MiB of JSON (``JSONPatchMaxCopyBytes``, the library's AccumulatedCopySizeLimit).
"""
from __future__ import annotations

from typing import Any

from kcodec import gojson
from kcodec.errors import DecodeError
from kcodec.fieldtable import JSONNumber
from kcodec.gofmt import quote
from kcodec.patch._tree import deep_copy, last_values
from kcodec.patch.errors import (
    JSONPatchApplyError, JSONPatchDecodeError, JSONPatchTooLargeError, PatchError,
)

__all__ = ["json_patch", "decode_json_patch", "MAX_JSON_PATCH_OPERATIONS", "JSON_PATCH_MAX_COPY_BYTES"]

#: kube-apiserver's maxJSONPatchOperations (apiserver pkg/endpoints/handlers/patch.go).
MAX_JSON_PATCH_OPERATIONS = 10000
#: kube-apiserver's default JSONPatchMaxCopyBytes (apiserver pkg/server/config.go), which it
#: installs as the library's AccumulatedCopySizeLimit.
JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024

_ERR_MISSING = "missing value"
_ERR_INVALID_INDEX = "invalid index referenced"
_ERR_TEST_FAILED = "test failed"
_ABSENT: Any = object()  # an operation member that is not there (Go: no map entry)
_INT64_MAX = (1 << 63) - 1


class _OpError(Exception):
    """An error inside one operation; the message is Go's error text."""


def _go_kind(v: Any) -> str:
    """The JSON kind encoding/json's UnmarshalTypeError names."""
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "bool"
    return "number"


def decode_json_patch(patch_bytes: bytes) -> list[Any]:
    """jsonpatch.DecodePatch: the operations of a JSON patch document (a list of dicts, or
    None for a ``null`` element). Raises :class:`JSONPatchDecodeError` (400) with
    encoding/json's text."""
    try:
        tree = gojson.loads(bytes(patch_bytes), literals=True)
    except DecodeError as exc:
        raise JSONPatchDecodeError(str(exc)) from None
    if tree is None:
        return []
    if not isinstance(tree, list):
        raise JSONPatchDecodeError(
            f"json: cannot unmarshal {_go_kind(tree)} into Go value of type jsonpatch.Patch")
    for op in tree:
        if op is not None and not isinstance(op, dict):
            raise JSONPatchDecodeError(
                f"json: cannot unmarshal {_go_kind(op)} into Go value of type jsonpatch.Operation")
    return [None if op is None else {k: last_values(v) for k, v in last_values(op).items()}
            for op in tree]


def _atoi(s: str) -> int:
    """strconv.Atoi, with its error text."""
    body = s[1:] if s[:1] in ("+", "-") else s
    if not body or not body.isascii() or not body.isdigit():
        raise _OpError(f"strconv.Atoi: parsing {quote(s)}: invalid syntax")
    v = int(s)
    if v > _INT64_MAX or v < -_INT64_MAX - 1:
        raise _OpError(f"strconv.Atoi: parsing {quote(s)}: value out of range")
    return v


def _decode_key(k: str) -> str:
    # RFC 6901: "~1" first, then "~0" (strings.NewReplacer matches left to right, no rescans)
    if "~" not in k:
        return k
    out = []
    i = 0
    while i < len(k):
        if k.startswith("~1", i):
            out.append("/")
            i += 2
        elif k.startswith("~0", i):
            out.append("~")
            i += 2
        else:
            out.append(k[i])
            i += 1
    return "".join(out)


def _invalid_index(idx: int) -> _OpError:
    return _OpError(f"Unable to access invalid index: {idx}: {_ERR_INVALID_INDEX}")


def _get(con: Any, key: str) -> Any:
    """container.get: None for a missing object member (no error), errors for arrays."""
    if isinstance(con, dict):
        return con.get(key)
    idx = _atoi(key)
    if idx < 0:
        if idx < -len(con):
            raise _invalid_index(idx)
        idx += len(con)
    if idx >= len(con):
        raise _invalid_index(idx)
    return con[idx]


def _set(con: Any, key: str, val: Any) -> None:
    if isinstance(con, dict):
        con[key] = val
        return
    idx = _atoi(key)
    if idx < 0:
        if idx < -len(con):
            raise _invalid_index(idx)
        idx += len(con)
    con[idx] = val


def _add(con: Any, key: str, val: Any) -> None:
    if isinstance(con, dict):
        con[key] = val
        return
    if key == "-":
        con.append(val)
        return
    try:
        idx = _atoi(key)
    except _OpError as exc:
        raise _OpError(f"value was not a proper array index: '{key}': {exc}") from None
    size = len(con) + 1
    if idx >= size:
        raise _invalid_index(idx)
    if idx < 0:
        if idx < -size:
            raise _invalid_index(idx)
        idx += size
    con.insert(idx, val)


def _remove(con: Any, key: str) -> None:
    if isinstance(con, dict):
        if key not in con:
            raise _OpError(f"Unable to remove nonexistent key: {key}: {_ERR_MISSING}")
        del con[key]
        return
    idx = _atoi(key)
    if idx >= len(con):
        raise _invalid_index(idx)
    if idx < 0:
        if idx < -len(con):
            raise _invalid_index(idx)
        idx += len(con)
    del con[idx]


def _find_object(doc: Any, path: str) -> tuple[Any, str]:
    """findObject: the container of ``path``'s last segment and that segment, or (None, "")."""
    split = path.split("/")
    if len(split) < 2:
        return None, ""
    con = doc
    for part in split[1:-1]:
        try:
            nxt = _get(con, _decode_key(part))
        except _OpError:
            return None, ""
        if not isinstance(nxt, (dict, list)):
            return None, ""
        con = nxt
    return con, _decode_key(split[-1])


def _string_member(op: dict[str, Any], name: str, missing: str) -> str:
    v = op.get(name)
    if v is None:
        raise _OpError(missing)
    if not isinstance(v, str):
        raise _OpError(f"json: cannot unmarshal {_go_kind(v)} into Go value of type string")
    return v


def _path(op: dict[str, Any]) -> str:
    return _string_member(op, "path", f"operation missing path field: {_ERR_MISSING}")


def _from(op: dict[str, Any]) -> str:
    return _string_member(op, "from", f"operation, missing from field: {_ERR_MISSING}")


def _scalar_text(v: Any) -> bytes:
    if type(v) is JSONNumber:
        return v.text.encode()
    return gojson.dumps(v)


def _equal(a: Any, b: Any) -> bool:
    """lazyNode.equal: ``a`` from the document, ``b`` from the operation (None: null)."""
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for k, v in a.items():
            if k not in b:
                return False
            ov = b[k]
            if (v is None) != (ov is None):
                return False
            if v is not None and not _equal(v, ov):
                return False
        return True
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        return all((x is None and y is None) or (x is not None and _equal(x, y)) for x, y in zip(a, b))
    if b is None or isinstance(b, (dict, list)):
        return False
    return _scalar_text(a) == _scalar_text(b)


def _copy_size(v: Any) -> int:
    """The bytes json.Marshal writes for ``v`` (what deepCopy adds to the accumulated size)."""
    if v is None:
        return 0
    return len(gojson.dumps(v))


def _apply_op(doc: list[Any], op: Any, copied: list[int], max_copy_bytes: int) -> None:
    """One operation on ``doc[0]`` (a one-item holder, so that ``replace`` of "" can swap it)."""
    kind = op.get("op") if op is not None else None
    if not isinstance(kind, str):
        kind = "unknown"
    if op is None:
        op = {}
    value = op.get("value", _ABSENT)
    if kind == "add":
        try:
            path = _path(op)
        except _OpError:
            raise _OpError(f"add operation failed to decode path: {_ERR_MISSING}") from None
        con, key = _find_object(doc[0], path)
        if con is None:
            raise _OpError(f'add operation does not apply: doc is missing path: "{path}": {_ERR_MISSING}')
        try:
            _add(con, key, None if value is _ABSENT else deep_copy(value))
        except _OpError as exc:
            raise _OpError(f"error in add for path: '{path}': {exc}") from None
    elif kind == "remove":
        try:
            path = _path(op)
        except _OpError:
            raise _OpError(f"remove operation failed to decode path: {_ERR_MISSING}") from None
        con, key = _find_object(doc[0], path)
        if con is None:
            raise _OpError(f'remove operation does not apply: doc is missing path: "{path}": {_ERR_MISSING}')
        try:
            _remove(con, key)
        except _OpError as exc:
            raise _OpError(f"error in remove for path: '{path}': {exc}") from None
    elif kind == "replace":
        try:
            path = _path(op)
        except _OpError as exc:
            raise _OpError(f"replace operation failed to decode path: {exc}") from None
        if path == "":
            if value is _ABSENT:
                # Go dereferences the nil value node here and panics; the apiserver's panic
                # recovery answers 500.
                raise PatchError("replace operation of the whole document without a value", code=500)
            if not isinstance(value, (dict, list)):
                raise _OpError("replace operation value must be object or array: %!w(<nil>)")
            doc[0] = deep_copy(value)
            return
        con, key = _find_object(doc[0], path)
        if con is None:
            raise _OpError(f"replace operation does not apply: doc is missing path: {path}: {_ERR_MISSING}")
        try:
            _get(con, key)
        except _OpError:
            raise _OpError(f"replace operation does not apply: doc is missing key: {path}: {_ERR_MISSING}") from None
        try:
            _set(con, key, None if value is _ABSENT else deep_copy(value))
        except _OpError as exc:
            raise _OpError(f"error in remove for path: '{path}': {exc}") from None
    elif kind == "move":
        try:
            frm = _from(op)
        except _OpError as exc:
            raise _OpError(f"move operation failed to decode from: {exc}") from None
        con, key = _find_object(doc[0], frm)
        if con is None:
            raise _OpError(f"move operation does not apply: doc is missing from path: {frm}: {_ERR_MISSING}")
        try:
            val = _get(con, key)
            _remove(con, key)
        except _OpError as exc:
            raise _OpError(f"error in move for path: '{key}': {exc}") from None
        try:
            path = _path(op)
        except _OpError as exc:
            raise _OpError(f"move operation failed to decode path: {exc}") from None
        con, key = _find_object(doc[0], path)
        if con is None:
            raise _OpError(f"move operation does not apply: doc is missing destination path: {path}: {_ERR_MISSING}")
        try:
            _add(con, key, val)
        except _OpError as exc:
            raise _OpError(f"error in move for path: '{path}': {exc}") from None
    elif kind == "test":
        try:
            path = _path(op)
        except _OpError as exc:
            raise _OpError(f"test operation failed to decode path: {exc}") from None
        if path == "":
            if value is not _ABSENT and value is not None and _equal(doc[0], value):
                return
            raise _OpError(f"testing value {path} failed: {_ERR_TEST_FAILED}")
        con, key = _find_object(doc[0], path)
        if con is None:
            raise _OpError(f"test operation does not apply: is missing path: {path}: {_ERR_MISSING}")
        try:
            val = _get(con, key)
        except _OpError as exc:
            raise _OpError(f"error in test for path: '{path}': {exc}") from None
        if val is None:
            if value is _ABSENT or value is None:
                return
            raise _OpError(f"testing value {path} failed: {_ERR_TEST_FAILED}")
        if value is _ABSENT or not _equal(val, value):
            raise _OpError(f"testing value {path} failed: {_ERR_TEST_FAILED}")
    elif kind == "copy":
        try:
            frm = _from(op)
        except _OpError as exc:
            raise _OpError(f"copy operation failed to decode from: {exc}") from None
        con, key = _find_object(doc[0], frm)
        if con is None:
            raise _OpError(f"copy operation does not apply: doc is missing from path: {frm}: {_ERR_MISSING}")
        try:
            val = _get(con, key)
        except _OpError as exc:
            raise _OpError(f"error in copy for from: '{frm}': {exc}") from None
        try:
            path = _path(op)
        except _OpError:
            raise _OpError(f"copy operation failed to decode path: {_ERR_MISSING}") from None
        con, key = _find_object(doc[0], path)
        if con is None:
            raise _OpError(f"copy operation does not apply: doc is missing destination path: {path}: {_ERR_MISSING}")
        copied[0] += _copy_size(val)
        if max_copy_bytes > 0 and copied[0] > max_copy_bytes:
            raise _OpError(f"Unable to complete the copy, the accumulated size increase of copy is "
                           f"{copied[0]}, exceeding the limit {max_copy_bytes}")
        try:
            _add(con, key, deep_copy(val))
        except _OpError as exc:
            raise _OpError(f"error while adding value during copy: {exc}") from None
    else:
        raise _OpError(f"Unexpected kind: {kind}")


def json_patch(doc_tree: Any, patch_bytes: bytes | list[Any], *,
               max_operations: int | None = MAX_JSON_PATCH_OPERATIONS,
               max_copy_bytes: int = JSON_PATCH_MAX_COPY_BYTES) -> Any:
    """Apply a JSON patch to a JSON tree and return the patched tree (``doc_tree`` is left
    as it was).

    ``patch_bytes`` is the request body (or operations already decoded by
    :func:`decode_json_patch`). Errors: :class:`JSONPatchDecodeError` (400) when the body is
    not a JSON array of objects, :class:`JSONPatchTooLargeError` (413, kube-apiserver's
    "The allowed maximum operations in a JSON patch is 10000, got N"; ``max_operations=None``
    lifts it), :class:`JSONPatchApplyError` (422) with evanphx's text when an operation does
    not apply (the whole patch is then not applied). Numbers in operation values keep their
    JSON text (:class:`kcodec.fieldtable.JSONNumber`), as the raw bytes Go splices in do.
    """
    ops = decode_json_patch(patch_bytes) if isinstance(patch_bytes, (bytes, bytearray, memoryview)) \
        else patch_bytes
    if max_operations is not None and len(ops) > max_operations:
        raise JSONPatchTooLargeError(
            f"The allowed maximum operations in a JSON patch is {max_operations}, got {len(ops)}")
    holder = [deep_copy(doc_tree)]
    copied = [0]
    for op in ops:
        try:
            _apply_op(holder, op, copied, max_copy_bytes)
        except _OpError as exc:
            raise JSONPatchApplyError(str(exc)) from None
    return holder[0]
