"""Field paths and field errors (Go: k8s.io/apimachinery pkg/util/validation/field).

A :class:`Path` names a field the way Go's ``field.Path`` prints it
(``spec.containers[0].image``, ``metadata.labels[app]``). An :class:`Error` is one
validation failure: its :class:`ErrorType`, the field path, the offending value and a
detail; ``str(error)`` is Go's ``Error()``, for instance
``spec.replicas: Invalid value: -1: must be greater than or equal to 0``.
:class:`ErrorList` collects them; :meth:`ErrorList.to_aggregate` gives the text of Go's
``utilerrors.Aggregate`` (deduplicated, ``[a, b]`` when more than one).

Bad values print as Go's ``ErrorBody`` prints them: bools, ints and floats with ``%v``,
strings with ``%q``, anything else as ``json.Marshal`` writes it (maps with sorted keys,
``nil`` as ``null``). Structs of meta.k8s.io (LabelSelector, OwnerReference...) have JSON
tags in Go and print as their JSON objects; the other API structs a validator reports are
k/k's internal types, which have none, so they print every field under its Go name
(``{"Key":"k","Operator":"Exists",...}``), as json.Marshal writes them.
"""
from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kcodec import gofmt, gojson
from kcodec.fieldtable import CustomValue, StructBase

__all__ = [
    "Path",
    "ErrorType",
    "Error",
    "ErrorList",
    "OMIT_VALUE",
    "format_bad_value",
    "invalid",
    "required",
    "forbidden",
    "not_found",
    "duplicate",
    "not_supported",
    "too_long",
    "too_long_characters",
    "too_short",
    "too_many",
    "too_few",
    "type_invalid",
    "internal_error",
    "new_error_type_matcher",
]


class Path:
    """A field path (Go: ``field.Path``): a chain of names and subscripts.

    ``Path("spec", "template")`` is ``field.NewPath("spec", "template")``; ``.child``,
    ``.index`` and ``.key`` return new paths and never change this one.
    """

    __slots__ = ("_name", "_index", "_parent")

    def __init__(self, name: str, *more: str) -> None:
        self._name = name
        self._index = ""
        self._parent: Path | None = None
        if more:
            # Go's NewPath links each further name below the previous one; this object is
            # the deepest element, so it takes the last name and its parent takes the rest.
            parent = Path(name, *more[:-1])
            self._name = more[-1]
            self._parent = parent

    @classmethod
    def _subscript(cls, parent: Path, index: str) -> Path:
        p = cls.__new__(cls)
        p._name = ""
        p._index = index
        p._parent = parent
        return p

    def root(self) -> Path:
        """The first element of the path."""
        p = self
        while p._parent is not None:
            p = p._parent
        return p

    def child(self, name: str, *more: str) -> Path:
        """This path followed by ``.name`` (and ``.more...``)."""
        r = Path(name, *more)
        # The new chain is private to this call, so linking its root here is safe.
        r.root()._parent = self
        return r

    def index(self, i: int) -> Path:
        """This path followed by ``[i]``."""
        return Path._subscript(self, str(int(i)))

    def key(self, k: str) -> Path:
        """This path followed by ``[k]`` (a map key, printed as it is)."""
        return Path._subscript(self, k)

    def __str__(self) -> str:
        elems: list[Path] = []
        p: Path | None = self
        while p is not None:
            elems.append(p)
            p = p._parent
        out: list[str] = []
        for e in reversed(elems):
            if e._name:
                if e._parent is not None:
                    out.append(".")
                out.append(e._name)
            else:
                out.append(f"[{e._index}]")
        return "".join(out)

    def __repr__(self) -> str:
        return f"Path({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Path) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def _path_text(path: Path | str | None) -> str:
    if path is None:
        return "<nil>"  # Go: (*Path)(nil).String()
    return path if isinstance(path, str) else str(path)


class ErrorType(str, enum.Enum):
    """Why a field is invalid; the value is Go's ``ErrorType`` string (the ``CauseType``
    of a metav1.Status cause) and :attr:`description` is its ``String()``."""

    NOT_FOUND = "FieldValueNotFound"
    REQUIRED = "FieldValueRequired"
    DUPLICATE = "FieldValueDuplicate"
    INVALID = "FieldValueInvalid"
    NOT_SUPPORTED = "FieldValueNotSupported"
    FORBIDDEN = "FieldValueForbidden"
    TOO_LONG = "FieldValueTooLong"
    TOO_MANY = "FieldValueTooMany"
    TOO_FEW = "FieldValueTooFew"
    INTERNAL = "InternalError"
    TYPE_INVALID = "FieldValueTypeInvalid"
    TOO_SHORT = "FieldValueTooShort"

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]

    def __str__(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    ErrorType.NOT_FOUND: "Not found",
    ErrorType.REQUIRED: "Required value",
    ErrorType.DUPLICATE: "Duplicate value",
    ErrorType.INVALID: "Invalid value",
    ErrorType.NOT_SUPPORTED: "Unsupported value",
    ErrorType.FORBIDDEN: "Forbidden",
    ErrorType.TOO_LONG: "Too long",
    ErrorType.TOO_MANY: "Too many",
    ErrorType.TOO_FEW: "Too few",
    ErrorType.INTERNAL: "Internal error",
    ErrorType.TYPE_INVALID: "Invalid value",
    ErrorType.TOO_SHORT: "Too short",
}

_WITHOUT_VALUE = frozenset({ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG,
                            ErrorType.TOO_SHORT, ErrorType.INTERNAL})


class _OmitValue:
    """Go's ``omitValue``: a bad value that ErrorBody leaves out."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "OMIT_VALUE"


#: A bad value that is not printed (Go: ``field.omitValue``, used by TooMany with an
#: unknown count).
OMIT_VALUE = _OmitValue()


def _json_tree(v: Any, depth: int = 0) -> Any:
    """The tree ``json.Marshal`` would write for ``v``: maps sorted by key (Go sorts map
    keys), structs in declaration order, custom values in their wire form."""
    if depth > 1000:
        raise ValueError("value nested too deeply")
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, StructBase):
        mod = type(v).__module__
        if mod.startswith("kcodec.api.") and not mod.startswith("kcodec.api.meta."):
            return _go_internal_tree(v, depth)
        from kcodec.model import to_tree

        return to_tree(v)
    if isinstance(v, CustomValue):
        return v._to_tree()
    if isinstance(v, Mapping):
        return {str(k): _json_tree(v[k], depth + 1) for k in sorted(v, key=str)}
    if isinstance(v, (list, tuple, set, frozenset)):
        items = sorted(v) if isinstance(v, (set, frozenset)) else v
        return [_json_tree(x, depth + 1) for x in items]
    if isinstance(v, (bytes, bytearray)):
        import base64

        return base64.b64encode(bytes(v)).decode()
    raise TypeError(type(v).__name__)


def _go_internal_tree(v: Any, depth: int) -> dict[str, Any]:
    """json.Marshal of an internal API struct: k/k's internal types carry no JSON tags, so
    every field is written, under its Go name, zero values and nils included."""
    from kcodec.fieldtable import fields_of

    out: dict[str, Any] = {}
    for f in fields_of(type(v)):
        out[f.go_field()] = _json_tree(getattr(v, f.name, None), depth + 1)
    return out


def format_bad_value(v: Any) -> str:
    """How Go's ``field.Error.ErrorBody`` prints a bad value: ``%v`` for bools, ints and
    floats, ``%q`` for strings, else ``json.Marshal`` (falling back to ``String()``)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        return gofmt.format_g(v)
    if isinstance(v, str):
        return gofmt.quote(v)
    if isinstance(v, BaseException):
        return "{}"  # json.Marshal of Go's error values: structs without exported fields
    try:
        return gojson.dumps(_json_tree(v)).decode()
    except Exception:  # noqa: BLE001 - Go falls back to the Stringer, then to %#v
        return str(v)


class Error(Exception):
    """One field validation error (Go: ``field.Error``); ``str()`` is Go's ``Error()``."""

    def __init__(self, type: ErrorType | str, field: str, bad_value: Any = "", detail: str = "",
                 *, origin: str = "") -> None:
        super().__init__()
        self.type = ErrorType(type)
        self.field = field
        self.bad_value = bad_value
        self.detail = detail
        self.origin = origin

    def error_body(self) -> str:
        """The message without the field path (Go: ``ErrorBody``)."""
        t = self.type
        if t in _WITHOUT_VALUE or self.bad_value is OMIT_VALUE:
            s = t.description
        else:
            s = f"{t.description}: {format_bad_value(self.bad_value)}"
        if self.detail:
            s += f": {self.detail}"
        return s

    def error(self) -> str:
        """Go's ``Error()``: ``<field>: <body>``."""
        return f"{self.field}: {self.error_body()}"

    def __str__(self) -> str:
        return self.error()

    def with_origin(self, origin: str) -> Error:
        """Set :attr:`origin` (Go: ``WithOrigin``) and return this error."""
        self.origin = origin
        return self

    def __repr__(self) -> str:
        return (f"field.Error(type={self.type.value!r}, field={self.field!r}, "
                f"bad_value={self.bad_value!r}, detail={self.detail!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Error):
            return NotImplemented
        return (self.type, self.field, self.detail, self.origin) == (
            other.type, other.field, other.detail, other.origin) and _same(self.bad_value, other.bad_value)

    def __hash__(self) -> int:
        return hash((self.type, self.field, self.detail))

    def __reduce__(self) -> Any:
        return (_rebuild, (self.type.value, self.field, self.bad_value, self.detail, self.origin))


def _rebuild(type: str, field: str, bad_value: Any, detail: str, origin: str) -> Error:
    return Error(type, field, bad_value, detail, origin=origin)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - incomparable values are different
        return False


# --- constructors (Go: field.Invalid, field.Required, ...) ---------------------------

def invalid(path: Path | str | None, value: Any, detail: str) -> Error:
    """Go: ``field.Invalid`` (malformed value)."""
    return Error(ErrorType.INVALID, _path_text(path), value, detail)


def required(path: Path | str | None, detail: str = "") -> Error:
    """Go: ``field.Required``."""
    return Error(ErrorType.REQUIRED, _path_text(path), "", detail)


def forbidden(path: Path | str | None, detail: str) -> Error:
    """Go: ``field.Forbidden``."""
    return Error(ErrorType.FORBIDDEN, _path_text(path), "", detail)


def not_found(path: Path | str | None, value: Any) -> Error:
    """Go: ``field.NotFound``."""
    return Error(ErrorType.NOT_FOUND, _path_text(path), value, "")


def duplicate(path: Path | str | None, value: Any) -> Error:
    """Go: ``field.Duplicate``."""
    return Error(ErrorType.DUPLICATE, _path_text(path), value, "")


def not_supported(path: Path | str | None, value: Any, valid_values: Iterable[Any] | None) -> Error:
    """Go: ``field.NotSupported``; the detail lists the valid values quoted, in the given order."""
    vals = list(valid_values or ())
    detail = ""
    if vals:
        detail = "supported values: " + ", ".join(gofmt.quote(str(v)) for v in vals)
    return Error(ErrorType.NOT_SUPPORTED, _path_text(path), value, detail)


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def too_long(path: Path | str | None, value: Any, max_length: int) -> Error:
    """Go: ``field.TooLong`` (the value itself is not shown)."""
    if max_length >= 0:
        msg = f"may not be more than {max_length} {_plural(max_length, 'byte', 'bytes')}"
    else:
        msg = "value is too long"
    return Error(ErrorType.TOO_LONG, _path_text(path), "<value omitted>", msg)


def too_long_characters(path: Path | str | None, value: Any, max_length: int) -> Error:
    """Go: ``field.TooLongCharacters``."""
    if max_length >= 0:
        msg = f"may not be more than {max_length} {_plural(max_length, 'character', 'characters')}"
    else:
        msg = "value is too long"
    return Error(ErrorType.TOO_LONG, _path_text(path), "<value omitted>", msg)


def too_short(path: Path | str | None, value: Any, min_length: int) -> Error:
    """Go: ``field.TooShort``."""
    if min_length >= 0:
        msg = f"must be at least {min_length} {_plural(min_length, 'character', 'characters')}"
    else:
        msg = "value is too short"
    return Error(ErrorType.TOO_SHORT, _path_text(path), value, msg)


def too_many(path: Path | str | None, actual: int, max_quantity: int) -> Error:
    """Go: ``field.TooMany``; a negative ``actual`` is left out of the message."""
    if max_quantity >= 0:
        msg = f"must have at most {max_quantity} {_plural(max_quantity, 'item', 'items')}"
    else:
        msg = "has too many items"
    return Error(ErrorType.TOO_MANY, _path_text(path), actual if actual >= 0 else OMIT_VALUE, msg)


def too_few(path: Path | str | None, actual: int, min_quantity: int) -> Error:
    """Go: ``field.TooFew``."""
    if min_quantity >= 0:
        msg = f"must have at least {min_quantity} {_plural(min_quantity, 'item', 'items')}"
    else:
        msg = "has too few items"
    return Error(ErrorType.TOO_FEW, _path_text(path), actual, msg)


def type_invalid(path: Path | str | None, value: Any, detail: str) -> Error:
    """Go: ``field.TypeInvalid``."""
    return Error(ErrorType.TYPE_INVALID, _path_text(path), value, detail)


def internal_error(path: Path | str | None, err: BaseException | str) -> Error:
    """Go: ``field.InternalError``; the detail is the error's text."""
    return Error(ErrorType.INTERNAL, _path_text(path), err, str(err))


def new_error_type_matcher(t: ErrorType | str) -> Callable[[Any], bool]:
    """Go: ``field.NewErrorTypeMatcher``: true for field errors of type ``t``."""
    want = ErrorType(t)
    return lambda e: isinstance(e, Error) and e.type is want


class ErrorList(list):  # type: ignore[type-arg]
    """A list of :class:`Error` (Go: ``field.ErrorList``)."""

    def errors(self) -> list[Error]:
        """The errors without repeats of the same message, in order (the errors of Go's
        ``ToAggregate``)."""
        seen: set[str] = set()
        out: list[Error] = []
        for e in self:
            msg = str(e)
            if msg in seen:
                continue
            seen.add(msg)
            out.append(e)
        return out

    def to_aggregate(self) -> str | None:
        """The text of Go's ``ErrorList.ToAggregate().Error()``; None when empty.

        One error prints as itself; several as ``[a, b, ...]`` (Go: utilerrors.aggregate).
        """
        if not self:
            return None
        msgs = [str(e) for e in self.errors()]
        if len(msgs) == 1:
            return msgs[0]
        return "[" + ", ".join(msgs) + "]"

    def filter(self, *matchers: Callable[[Any], bool]) -> ErrorList:
        """The errors no matcher accepts (Go: ``ErrorList.Filter``, which also drops
        repeated messages, as it goes through ToAggregate)."""
        return ErrorList(e for e in self.errors() if not any(m(e) for m in matchers))

    def with_origin(self, origin: str) -> ErrorList:
        """Set every error's origin (Go: ``WithOrigin``); returns this list."""
        for e in self:
            e.origin = origin
        return self

    def prefix_detail(self, prefix: str) -> ErrorList:
        """Prefix every error's detail (Go: ``PrefixDetail``); returns this list."""
        for e in self:
            e.detail = prefix + e.detail
        return self

    def __repr__(self) -> str:
        return f"ErrorList({list.__repr__(self)})"
