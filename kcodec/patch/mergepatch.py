"""JSON merge patch (RFC 7386) as gopkg.in/evanphx/json-patch.v4 MergePatch applies it for
kube-apiserver (apiserver pkg/endpoints/handlers/patch.go: a bad patch is a 400 with
"Invalid JSON Patch"; any other error of the library is returned as it is: a 500).

The library's own turns, kept: a member set to ``null`` deletes it, and nulls are pruned from
objects that are added whole (also inside arrays, whose own null items stay); an object
patched over a non-object replaces it, nulls pruned; a non-object patch value replaces
what was there as it is (nulls inside kept); a document that is not an object is replaced
by the patch (nulls pruned); a patch that is an array replaces the whole document.
"""
from __future__ import annotations

from typing import Any

from kcodec.patch._tree import deep_copy
from kcodec.patch.errors import MergePatchError

__all__ = ["merge_patch", "create_merge_patch", "ERR_BAD_JSON_PATCH_TEXT", "ERR_BAD_JSON_DOC_TEXT"]

#: jsonpatch.ErrBadJSONPatch's text; kube-apiserver answers it with a 400.
ERR_BAD_JSON_PATCH_TEXT = "Invalid JSON Patch"
#: jsonpatch.ErrBadJSONDoc's text.
ERR_BAD_JSON_DOC_TEXT = "Invalid JSON Document"


def _prune_nulls(v: Any) -> None:
    if isinstance(v, dict):
        _prune_doc_nulls(v)
    elif isinstance(v, list):
        for x in v:
            if x is not None:
                _prune_nulls(x)


def _prune_doc_nulls(doc: dict[str, Any]) -> dict[str, Any]:
    for k in [k for k, v in doc.items() if v is None]:
        del doc[k]
    for v in doc.values():
        _prune_nulls(v)
    return doc


def _merge(cur: Any, patch: Any) -> Any:
    if not isinstance(cur, dict):
        _prune_nulls(patch)
        return patch
    if not isinstance(patch, dict):
        return patch
    _merge_docs(cur, patch)
    return cur


def _merge_docs(doc: dict[str, Any], patch: dict[str, Any]) -> None:
    for k, v in patch.items():
        if v is None:
            doc.pop(k, None)
            continue
        cur = doc.get(k)
        if cur is None:
            _prune_nulls(v)
            doc[k] = v
        else:
            doc[k] = _merge(cur, v)


def merge_patch(doc_tree: Any, patch_tree: Any) -> Any:
    """Apply a JSON merge patch to a JSON tree; return the patched tree (the arguments are
    left as they were).

    Read the patch with ``gojson.loads(body, literals=True)`` to keep numbers' JSON text,
    as the library splices the patch's raw bytes in. Raises :class:`MergePatchError`: code
    400 "Invalid JSON Patch" when the patch is ``null`` or a scalar, code 500 "Invalid JSON
    Document" when the document is ``null``.
    """
    if patch_tree is None:
        raise MergePatchError(ERR_BAD_JSON_PATCH_TEXT, code=400, reason="BadRequest")
    if doc_tree is None:
        raise MergePatchError(ERR_BAD_JSON_DOC_TEXT)
    patch = deep_copy(patch_tree)
    if isinstance(patch, list):
        _prune_nulls(patch)
        return patch
    if not isinstance(patch, dict):
        raise MergePatchError(ERR_BAD_JSON_PATCH_TEXT, code=400, reason="BadRequest")
    if not isinstance(doc_tree, dict):
        return _prune_doc_nulls(patch)
    doc = deep_copy(doc_tree)
    _merge_docs(doc, patch)
    return doc


def _matches(a: Any, b: Any) -> bool:
    """matchesValue: same JSON type and value (maps and arrays deeply)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and len(a) == len(b) and all(
            k in b and _matches(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_matches(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)):
        return isinstance(b, (int, float)) and not isinstance(b, bool) and float(a) == float(b)
    return type(a) is type(b) and a == b


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "object"
    return "array"


def _diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    into: dict[str, Any] = {}
    for key, bv in b.items():
        if key not in a:
            into[key] = deep_copy(bv)
            continue
        av = a[key]
        if _json_type(av) != _json_type(bv):
            into[key] = deep_copy(bv)
            continue
        if isinstance(av, dict):
            sub = _diff(av, bv)
            if sub:
                into[key] = sub
        elif not _matches(av, bv):
            into[key] = deep_copy(bv)
    for key in a:
        if key not in b:
            into[key] = None
    return into


def create_merge_patch(original: Any, modified: Any) -> Any:
    """jsonpatch.CreateMergePatch on trees: the merge patch that turns ``original`` into
    ``modified`` (two objects, or two equally long arrays of objects: a list of patches).
    Raises :class:`MergePatchError` "Mismatched JSON Documents" / "Invalid JSON Document"."""
    if isinstance(original, list) and isinstance(modified, list):
        if len(original) != len(modified) or not all(
                isinstance(x, dict) for x in original + modified):
            raise MergePatchError(ERR_BAD_JSON_DOC_TEXT)
        return [_diff(o, m) for o, m in zip(original, modified)]
    if isinstance(original, list) or isinstance(modified, list):
        raise MergePatchError("Mismatched JSON Documents")
    if not isinstance(original, dict) or not isinstance(modified, dict):
        raise MergePatchError(ERR_BAD_JSON_DOC_TEXT)
    return _diff(original, modified)
