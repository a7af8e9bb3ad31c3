"""Helpers on JSON trees (json.loads-style values) shared by the patch modules."""
from __future__ import annotations

from typing import Any

from kcodec import gojson
from kcodec.fieldtable import RawJSON
from kcodec.gojson import Repeated

__all__ = ["deep_copy", "last_values"]


def deep_copy(v: Any) -> Any:
    """A copy of a JSON tree sharing no dict or list with ``v`` (scalars are immutable).

    A :class:`~kcodec.fieldtable.RawJSON` (a RawExtension's or FieldsV1's text in a tree
    ``kcodec.model.to_tree`` made) becomes the value it holds, as Go's
    DefaultUnstructuredConverter.ToUnstructured gives the patch libraries a decoded map."""
    t = type(v)
    if t is dict:
        return {k: deep_copy(x) for k, x in v.items()}
    if t is list:
        return [deep_copy(x) for x in v]
    if t is RawJSON:
        return gojson.loads(v.data)
    if isinstance(v, dict):
        return {k: deep_copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [deep_copy(x) for x in v]
    return v


def last_values(v: Any) -> Any:
    """The tree encoding/json decodes into ``interface{}`` from a tree read with
    ``gojson.loads(..., literals=True)``: of a repeated key only the last value is kept."""
    if type(v) is Repeated:
        return last_values(v[-1])
    if isinstance(v, dict):
        return {k: last_values(x) for k, x in v.items()}
    if isinstance(v, list):
        return [last_values(x) for x in v]
    return v
