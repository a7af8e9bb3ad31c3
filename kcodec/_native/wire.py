"""Pure-Python protobuf wire kernels and the JSON MetaFactory: the twins of
``kcodec/_speedups/_wire.pyx``, name for name.

The varint, field and ``runtime.Unknown`` envelope kernels are :mod:`kcodec.wire`'s
functions (the layers above use that module directly); this module names them as the
kernel set. ``interpret_gvk`` reads ``apiVersion`` and ``kind`` as Go's JSON MetaFactory
does (k8s.io/apimachinery/pkg/runtime/serializer/json/meta.go, SimpleMetaFactory): Go
decodes the whole document into ``struct{APIVersion, Kind string}`` with the standard
library rules: key match is case-insensitive (``bytes.EqualFold``), the last occurrence of
a key wins, ``null`` leaves the value alone, any other non-string value is an error (the
first one in document order is reported), and the whole text must be valid JSON.
:func:`kcodec.gojson.top_level_members` validates the whole text with Go's rules and error
texts and hands back only the top-level members, so the values of other members are
never built.
"""
from __future__ import annotations

from typing import Any

from kcodec import gojson as _gojson
from kcodec.errors import DecodeError
from kcodec.schema import GroupVersionKind, parse_group_version
from kcodec.wire import (
    decode_signed_varint,
    decode_varint,
    encode_varint,
    envelope_decode,
    envelope_encode,
    envelope_span,
    iter_fields,
    marshal_unknown,
    unmarshal_unknown,
)

__all__ = [
    "decode_signed_varint",
    "decode_varint",
    "encode_varint",
    "envelope_decode",
    "envelope_encode",
    "envelope_span",
    "iter_fields",
    "marshal_unknown",
    "unmarshal_unknown",
    "interpret_gvk",
]


_PREFIX = "couldn't get version/kind; json parse error: "
_GO_STRUCT = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
    'Kind string "json:\\"kind,omitempty\\"" }'
)
_EMPTY = GroupVersionKind("", "", "")
_FIELDS = {"apiversion": "apiVersion", "kind": "kind"}


def _field(key: str) -> str | None:
    """The struct field a JSON key selects under Go's case folding, or None."""
    if key == "kind" or key == "apiVersion":
        return key
    if len(key) not in (4, 10):
        # Only ASCII letters and the two non-ASCII folds below can match; neither changes
        # the length in characters.
        return None
    # bytes.EqualFold also matches U+212A KELVIN SIGN with k and U+017F LONG S with s.
    return _FIELDS.get(key.replace("\u212a", "k").replace("\u017f", "s").lower())


def _go_type(v: Any) -> str | None:
    """Go's name for a JSON value that cannot go into a string field (None: a string)."""
    if isinstance(v, str):
        return None
    if v is True or v is False:
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, dict):
        return "object"
    return "array"


def _from_members(members: Any) -> GroupVersionKind:
    fields = {"apiVersion": "", "kind": ""}
    first_error: str | None = None
    for key, value in members:
        name = _field(key)
        if name is None or value is None:
            continue
        bad = _go_type(value)
        if bad is None:
            fields[name] = value
        elif first_error is None:
            first_error = f"json: cannot unmarshal {bad} into Go struct field .{name} of type string"
    if first_error is not None:
        raise DecodeError(_PREFIX + first_error)
    api_version, kind = fields["apiVersion"], fields["kind"]
    if not api_version and not kind:
        return _EMPTY
    group, version = parse_group_version(api_version)
    return GroupVersionKind(group, version, kind)


def _not_object(value: Any) -> GroupVersionKind:
    if value is None:
        return _EMPTY
    kind = _go_type(value) or "string"
    raise DecodeError(f"{_PREFIX}json: cannot unmarshal {kind} into Go value of type {_GO_STRUCT}")


def _exact(data: bytes) -> GroupVersionKind:
    try:
        top = _gojson.top_level_members(data)
    except DecodeError as e:
        raise DecodeError(_PREFIX + str(e), offset=e.offset) from None
    if type(top) is _gojson.MemberList:
        return _from_members(top)
    return _not_object(top)


def interpret_gvk(data: bytes) -> GroupVersionKind:
    """Group, version and kind named by a JSON document's ``apiVersion`` and ``kind``.

    ``null``, ``{}`` and documents without the keys give the empty kind. Malformed JSON or
    a non-string value raise DecodeError ``couldn't get version/kind; json parse error:
    ...``; an apiVersion with two slashes raises ``unexpected GroupVersion string: ...``.
    """
    if not isinstance(data, bytes):
        data = bytes(data)
    return _exact(data)
