"""Helpers on JSON trees (json.loads-style values) shared by the patch modules.

A patch may nest as deep as the JSON decoder allows (10,000 levels, encoding/json's limit),
deeper than Python's recursion limit, so everything that follows the patch's own depth walks
with an explicit stack. (The merge algorithms recurse only where the live object has the same
structure, which the object's own type bounds.)
"""
from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from kcodec import gojson
from kcodec.fieldtable import RawJSON
from kcodec.gojson import Repeated

__all__ = ["deep_copy", "last_values", "walk_containers", "deep_equal", "bounded"]


def deep_copy(v: Any) -> Any:
    """A copy of a JSON tree sharing no dict or list with ``v`` (scalars are immutable).

    A :class:`~kcodec.fieldtable.RawJSON` (a RawExtension's or FieldsV1's text in a tree
    ``kcodec.model.to_tree`` made) becomes the value it holds, as Go's
    DefaultUnstructuredConverter.ToUnstructured gives the patch libraries a decoded map."""
    return _rebuild(v)


def last_values(v: Any) -> Any:
    """The tree encoding/json decodes into ``interface{}`` from a tree read with
    ``gojson.loads(..., literals=True)``: of a repeated key only the last value is kept."""
    return _rebuild(v)


def _leaf(v: Any) -> Any:
    t = type(v)
    if t is RawJSON:
        return gojson.loads(v.data)
    return v


def _unwrap(v: Any) -> Any:
    while type(v) is Repeated:
        v = v[-1]
    return v


def _rebuild(v: Any) -> Any:
    """A fresh tree of plain dicts and lists: RawJSON decoded, repeated keys' last values."""
    v = _leaf(_unwrap(v))
    if not isinstance(v, (dict, list)):
        return v
    root: Any = {} if isinstance(v, dict) else []
    stack: list[tuple[Any, Any]] = [(v, root)]
    while stack:
        src, dst = stack.pop()
        if isinstance(src, dict):
            for k, x in src.items():
                x = _leaf(_unwrap(x))
                if isinstance(x, dict):
                    dst[k] = {}
                    stack.append((x, dst[k]))
                elif isinstance(x, list):
                    dst[k] = []
                    stack.append((x, dst[k]))
                else:
                    dst[k] = x
        else:
            for x in src:
                x = _leaf(_unwrap(x))
                if isinstance(x, dict):
                    dst.append({})
                    stack.append((x, dst[-1]))
                elif isinstance(x, list):
                    dst.append([])
                    stack.append((x, dst[-1]))
                else:
                    dst.append(x)
    return root


def walk_containers(v: Any) -> list[Any]:
    """Every dict and list in the tree ``v``, parents before their children."""
    out: list[Any] = []
    stack = [v]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.append(node)
            stack.extend(x for x in node.values() if isinstance(x, (dict, list)))
        elif isinstance(node, list):
            out.append(node)
            stack.extend(x for x in node if isinstance(x, (dict, list)))
    return out


def deep_equal(a: Any, b: Any, same_type: Callable[[Any, Any], bool]) -> bool:
    """Structural equality of two trees; ``same_type(x, y)`` decides for each pair of nodes
    whether their types match (the callers' Go rules), scalars then compare with ``==``."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if not same_type(x, y):
            return False
        if isinstance(x, dict):
            if len(x) != len(y):
                return False
            for k, v in x.items():
                if k not in y:
                    return False
                stack.append((v, y[k]))
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif x != y:
            return False
    return True


F = TypeVar("F", bound=Callable[..., Any])


def bounded(fn: F) -> F:
    """Turn a RecursionError of ``fn`` (a merge following a live object nested deeper than
    Python's recursion limit) into kcodec.patch.errors.PatchTooDeepError."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RecursionError:
            from kcodec.patch.errors import PatchTooDeepError

            raise PatchTooDeepError("the object is nested too deeply to be patched") from None
    return wrapper  # type: ignore[return-value]
