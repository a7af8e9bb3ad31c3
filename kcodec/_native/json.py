"""Pure-Python JSON text kernels: JSON bytes <-> typed structs, and the frame scanner.

Twins of ``kcodec/_speedups/_json.pyx``, name for name: ``json_fill`` and
``json_fill_vouched`` parse JSON into a typed struct with encoding/json's rules (the tree
walk itself is :mod:`kcodec._native.codec`'s), ``json_encode`` writes one, and
``json_container_scan`` finds where a JSON string, object or array ends (the inner loop of
``kcodec.serializer.framing.JSONFrameReader``, Go's json.Decoder as the watch and manifest
framers use it, resumable across reads; validation of the value is left to the decoder
that receives the frame).
"""
from __future__ import annotations

import re
from typing import Any

from kcodec import fieldtable as _m
from kcodec import gojson as _gojson
from kcodec._native.codec import (
    _RAW_SOURCE,
    _aborting_error,
    _fill,
    _saved_by_go,
    struct_to_tree,
)
from kcodec.errors import DecodeError, json_kind

__all__ = ["json_fill", "json_fill_vouched", "json_encode", "json_container_scan"]


def json_fill(obj: Any, cls: Any, data: bytes, strict: list[str] | None, path: str) -> None:
    """Parse JSON ``data`` and fill ``obj`` (compiled ``cls``) from it, Go-style (merge).

    ``null`` leaves ``obj`` untouched; a non-object is a type error. The compiled twin
    parses the bytes straight into the object without building a tree.
    """

    # Go reads a number's own text where the target cares (Quantity, integer fields), and
    # some values' whole text (RawExtension, FieldsV1): the exact parser records where each
    # object and array was written.
    spans: dict[int, tuple[int, int]] = {}
    # allow_inf: a literal past float64's range stays in the tree (as an infinite
    # JSONNumber keeping its text) so that the field it lands in names it, as Go does.
    tree = _gojson.loads(data, strict=strict is not None, literals=True, spans=spans, allow_inf=True)
    if tree is None:
        return
    if not isinstance(tree, dict):
        raise DecodeError(f"json: cannot unmarshal {json_kind(tree)} into Go value of type {_m.go_type_name(cls)}")
    token = _RAW_SOURCE.set((_gojson._to_bytes(data), spans))
    try:
        _fill(obj, cls, tree, strict, path, "")
    except DecodeError as err:
        if _saved_by_go(err):
            later = _aborting_error(cls, tree, path)
            if later is not None:
                raise later from None
        raise
    finally:
        _RAW_SOURCE.reset(token)


def json_fill_vouched(obj: Any, cls: Any, data: bytes, start: int = 0, end: int | None = None) -> int:
    """Fill a fresh ``obj`` from ``data[start:end]`` for a decode that guessed ``cls``; see
    the compiled twin for the contract (2 vouched, 1 filled, 0 discard).

    This twin fills with :func:`json_fill` and answers 1 at best: its parser builds a tree
    first and keeps no record of how the top-level keys were written, so the caller reads
    the kind with the MetaFactory, as the two-pass decode would. Any error is
    left for the caller's general path to raise with Go's text.
    """
    stop = len(data) if end is None else end
    if start < 0 or stop < start or stop > len(data):
        raise ValueError(f"json_fill_vouched: span [{start}:{stop}] outside {len(data)} bytes")
    if start or stop != len(data):
        data = data[start:stop]
    try:
        json_fill(obj, cls, data, None, cls.__name__)
    except Exception:  # noqa: BLE001 - the general path re-raises it in Go's order
        return 0
    return 1


def json_encode(obj: Any, pretty: bool, newline: bool = False) -> bytes:
    """Typed struct -> Go's JSON bytes (compact or pretty), plus ``\\n`` when ``newline``
    (Go's Encoder ends compact output with one; asking here spares copying the output)."""

    out = struct_to_tree(obj)
    data = _gojson.dumps(out, pretty=pretty)
    return data + b"\n" if newline else data


# --------------------------------------------------------------------------- frame scanning

_STRING_SPECIAL = re.compile(rb'["\\]')
#: Text between brackets: runs of other bytes and whole strings, in one match (a value
#: holds several strings per bracket; one match per bracket keeps the loop short). Stops
#: at a bracket, at a string that does not end in the buffer, or at the end.
_BETWEEN = re.compile(rb'(?:[^"{}\[\]]+|"[^"\\]*(?:\\.[^"\\]*)*")*')


def json_container_scan(buf: bytearray, pos: int, stack: bytearray, in_str: bool, string_only: bool,
                        max_depth: int) -> tuple[int, int, bool]:
    """Scan ``buf`` from ``pos`` for the end of the current value: ``(status, pos, in_str)``.

    ``stack`` holds the closing brackets expected (mutated in place); ``in_str`` says whether
    ``pos`` is inside a string; ``string_only`` that the value is a lone string, which ends
    at its closing quote. Status 1: the value ends just before ``pos``. 0: ``buf`` ran out;
    resume from ``pos`` with ``in_str`` once more input came. -1: an opening bracket at
    ``pos`` would nest deeper than ``max_depth``. -2: the bracket at ``pos`` does not close
    the innermost open one.
    """
    n = len(buf)
    while True:
        if in_str:
            m = _STRING_SPECIAL.search(buf, pos)
            if m is None:
                return 0, n, True
            i = m.start()
            if buf[i] == 0x22:
                in_str = False
                pos = i + 1
                if string_only:
                    return 1, pos, False
            elif i + 1 < n:
                pos = i + 2
            else:
                return 0, i, True  # the escaped byte is not here yet
        else:
            i = _BETWEEN.match(buf, pos).end()
            if i >= n:
                return 0, n, False
            c = buf[i]
            if c == 0x22:
                in_str = True
                pos = i + 1
            elif c == 0x7B or c == 0x5B:
                if len(stack) >= max_depth:
                    return -1, i, False
                stack.append(c + 2)  # } and ] are two code points after { and [
                pos = i + 1
            elif c == stack[-1]:
                stack.pop()
                pos = i + 1
                if not stack:
                    return 1, pos, False
            else:
                return -2, i, False
