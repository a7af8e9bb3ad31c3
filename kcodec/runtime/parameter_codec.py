"""Query parameters <-> objects (Go: k8s.io/apimachinery/pkg/runtime/codec.go (parameterCodec)): ParameterCodec, url.Values conversions, encoding.

Go's ``url.Values`` is represented by :class:`UrlValues`, a holder around a
``dict[str, list[str]]``, so that a scheme can register conversions from it
(``(UrlValues, ListOptions)``) just as Go registers ``(*url.Values, *ListOptions)``.
:func:`register_query_conversions` registers the conversion Go's conversion-gen writes for an
options struct; :func:`struct_to_query_values` is Go's ``queryparams.Convert``.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote_plus

from kcodec.conversion import (
    Ref,
    Scope,
    parse_int64,
    string_slice_to_bool,
)
from kcodec.errors import ConversionError, DecodeError
from kcodec.gofmt import format_g
from kcodec.schema import GroupVersion

__all__ = [
    "ParameterCodec",
    "UrlValues",
    "query_values_into_struct",
    "convert_url_values",
    "register_query_conversions",
    "struct_to_query_values",
    "urlencode",
    "go_format_float",
]


class UrlValues(Ref):
    """Go ``url.Values``: ``value`` is a ``dict[str, list[str]]`` (shared, not copied)."""

    __slots__ = ()
    go_type = "url.Values"

    def __init__(self, value: Mapping[str, list[str]] | None = None) -> None:
        super().__init__({} if value is None else value)


def _model() -> Any:
    from kcodec import model

    return model


_TYPEMETA_FIELDS = frozenset(("kind", "api_version"))


def _query_fields(cls: type) -> list[Any]:
    """The fields queryparams considers: a non-empty JSON name that is not ``-``.

    Go's embedded ``TypeMeta`` (``json:",inline"``) has no name and is skipped; kcodec's
    ``Object`` declares its TypeMeta fields directly, so they are skipped by name.
    """
    cached = _FIELDS_CACHE.get(cls)
    if cached is not None:
        return cached
    from kcodec.runtime.object import Object

    is_object = issubclass(cls, Object)
    out = []
    for f in _model().fields_of(cls):
        if f.inline or not f.json or f.json == "-":
            continue
        if is_object and f.name in _TYPEMETA_FIELDS:
            continue
        out.append(f)
    _FIELDS_CACHE[cls] = out
    return out


_FIELDS_CACHE: dict[type, list[Any]] = {}


# ------------------------------------------------------------------------- values -> struct


def _first_int(values: list[str], bits: int, where: str) -> int:
    try:
        n = parse_int64(values[0])
    except DecodeError as exc:
        raise DecodeError(f"{exc} (query parameter {where!r})") from None
    if bits == 32 and not -(1 << 31) <= n < (1 << 31):
        raise DecodeError(f'strconv.ParseInt: parsing "{values[0]}": value out of range (query parameter {where!r})')
    return n


def _first_float(values: list[str], where: str) -> float:
    s = values[0]
    try:
        if s.strip() != s or "_" in s:
            raise ValueError(s)
        return float(s)
    except ValueError:
        raise DecodeError(f'strconv.ParseFloat: parsing "{s}": invalid syntax (query parameter {where!r})') from None


def query_values_into_struct(values: Mapping[str, list[str]], obj: Any) -> None:
    """Fill ``obj`` from query values as Go's generated ``url.Values`` conversions do.

    Each field with a JSON name takes the FIRST value of its key (booleans per Go: k8s.io/apimachinery/pkg/runtime/conversion.go:
    false only for ``0`` or any case of ``false``); a ``list[str]`` field takes all values.
    A key that is absent or has no values resets the field to its zero value (None for
    pointers and lists). Struct, map and custom-value fields are left untouched (Go's
    generator opts them out). Unparseable numbers raise :class:`kcodec.errors.DecodeError`.
    """
    m = _model()
    for f in _query_fields(type(obj)):
        got = values.get(f.json)
        present = bool(got)
        k = f.kind
        if k == m.K_STR:
            v: Any = got[0] if present else (None if f.pointer else "")  # type: ignore[index]
        elif k == m.K_BOOL:
            if present:
                v = string_slice_to_bool(got)
            else:
                v = None if f.pointer else False
        elif k == m.K_INT64:
            if present:
                v = _first_int(got, 64, f.json)  # type: ignore[arg-type]
            else:
                v = None if f.pointer else 0
        elif k == m.K_INT32:
            if present:
                v = _first_int(got, 32, f.json)  # type: ignore[arg-type]
            else:
                v = None if f.pointer else 0
        elif k == m.K_FLOAT:
            if present:
                v = _first_float(got, f.json)  # type: ignore[arg-type]
            else:
                v = None if f.pointer else 0.0
        elif k == m.K_LIST and f.elem is not None and f.elem.kind == m.K_STR:
            v = list(got) if present else None  # type: ignore[arg-type]
        else:
            continue
        object.__setattr__(obj, f.name, v)


def convert_url_values(src: UrlValues, dst: Any, scope: Scope | None = None) -> None:
    """Conversion function ``UrlValues -> struct`` (see :func:`query_values_into_struct`)."""
    query_values_into_struct(src.value or {}, dst)


def register_query_conversions(scheme: Any, *types: type) -> None:
    """Register ``UrlValues -> T`` for each options class ``T`` as a generated conversion.

    Go's conversion-gen writes these for meta/v1 ListOptions, GetOptions, DeleteOptions,
    CreateOptions, PatchOptions, UpdateOptions, TableOptions and each API group's options
    kinds (PodLogOptions...); without one, decoding parameters into ``T`` fails with
    ``converting (url.Values) to (<T>): unknown conversion``.
    """
    for t in types:
        scheme.add_generated_conversion_func(UrlValues, t, convert_url_values)


# ------------------------------------------------------------------------- struct -> values


def go_format_float(v: float) -> str:
    """Go's ``fmt`` ``%v`` of a float64: ``5.0 -> "5"``, ``100.7 -> "100.7"``, ``1e6 -> "1e+06"``."""
    return format_g(v)


def _scalar_text(kind: int, v: Any) -> str:
    m = _model()
    if kind == m.K_BOOL:
        return "true" if v else "false"
    if kind == m.K_FLOAT:
        return go_format_float(float(v))
    return str(v)


def _is_zero(f: Any, v: Any) -> bool:
    """Go ``reflect.DeepEqual(zero, v)`` for a field value."""
    if v is None:
        return True
    if f.pointer:
        return False
    m = _model()
    k = f.kind
    if k in (m.K_STR, m.K_BOOL, m.K_INT32, m.K_INT64, m.K_FLOAT):
        return not v
    if k == m.K_STRUCT:
        return all(_is_zero(g, getattr(v, g.name)) for g in m.fields_of(type(v)))
    if k == m.K_CUSTOM:
        return bool(v._is_zero())
    return False


def _add(result: dict[str, list[str]], tag: str, omitempty: bool, zero: bool, text: str) -> None:
    if omitempty and zero:
        return
    result.setdefault(tag, []).append(text)


def _convert_struct(result: dict[str, list[str]], obj: Any, depth: int) -> None:
    if depth > 100:
        raise ConversionError(f"query parameters: struct nesting deeper than 100 at {type(obj).__name__}")
    m = _model()
    scalars = (m.K_STR, m.K_BOOL, m.K_INT32, m.K_INT64, m.K_FLOAT)
    for f in _query_fields(type(obj)):
        tag = f.json
        value = getattr(obj, f.name)
        omitempty = f.omitempty
        if f.pointer and value is not None:
            omitempty = False
        k = f.kind
        if k in scalars:
            if value is None:
                _add(result, tag, omitempty, True, "")
            else:
                _add(result, tag, omitempty, not value, _scalar_text(k, value))
        elif k == m.K_LIST:
            elem = f.elem
            if value is None or elem is None or elem.kind not in scalars:
                continue
            for item in value:
                _add(result, tag, omitempty, not item, _scalar_text(elem.kind, item))
        elif k == m.K_BYTES:
            # Go sees []byte as a slice of uint8 scalars.
            for b in value or b"":
                _add(result, tag, omitempty, b == 0, str(b))
        elif k in (m.K_STRUCT, m.K_CUSTOM):
            if omitempty and _is_zero(f, value):
                continue
            marshal = getattr(f.cls, "_query_value", None)
            if marshal is not None:
                text = "" if value is None else marshal(value)
                _add(result, tag, omitempty, text == "", text)
            elif value is not None and k == m.K_STRUCT:
                _convert_struct(result, value, depth + 1)


def struct_to_query_values(obj: Any) -> dict[str, list[str]]:
    """Go's ``queryparams.Convert``: a struct's query parameters (Go: k8s.io/apimachinery/pkg/conversion/queryparams/convert.go).

    Fields with a JSON name become keys (``omitempty`` zero values left out, nil pointers
    give ``""`` unless ``omitempty``), lists of scalars repeat the key, nested structs are
    flattened into the same namespace unless their class has ``_query_value()`` (metav1.Time),
    maps are ignored. None gives ``{}``.
    """
    if obj is None:
        return {}
    if isinstance(obj, type) or isinstance(obj, (bool, int, float, str, bytes, list, tuple, dict)):
        raise ConversionError("expecting a pointer or interface")
    if not hasattr(type(obj), "__kc_decls__"):
        raise ConversionError("expecting a pointer to a struct")
    result: dict[str, list[str]] = {}
    _convert_struct(result, obj, 0)
    return result


def urlencode(params: Mapping[str, Iterable[str]]) -> str:
    """Go ``url.Values.Encode``: keys sorted, each value ``QueryEscape``d, joined by ``&``."""
    parts = []
    for key in sorted(params):
        k = quote_plus(key, safe="")
        for v in params[key]:
            parts.append(k + "=" + quote_plus(v, safe=""))
    return "&".join(parts)


# ------------------------------------------------------------------------- ParameterCodec


class ParameterCodec:
    """Converts objects to and from query parameters through a scheme (Go: k8s.io/apimachinery/pkg/runtime/codec.go (DecodeParameters); k8s.io/apimachinery/pkg/runtime/codec.go (EncodeParameters)).

    ``scheme`` serves as typer, convertor, creater and defaulter.
    """

    __slots__ = ("_typer", "_convertor", "_creater", "_defaulter")

    def __init__(self, scheme: Any) -> None:
        self._typer = scheme
        self._convertor = scheme
        self._creater = scheme
        self._defaulter = scheme

    def decode_parameters(self, params: Mapping[str, list[str]], from_gv: GroupVersion, into: Any) -> None:
        """Fill ``into`` from ``params`` written in version ``from_gv``.

        When ``into``'s type is registered in ``from_gv`` the values go straight into it;
        otherwise an object of ``from_gv`` is filled, defaulted and converted into ``into``.
        Empty parameters change nothing (not even defaulting).
        """
        values = params if isinstance(params, UrlValues) else UrlValues(params)
        if not values.value:
            return
        kinds, _ = self._typer.object_kinds(into)
        for gvk in kinds:
            if gvk.group_version() == from_gv:
                self._convertor.convert(values, into, None)
                if self._defaulter is not None:
                    self._defaulter.default(into)
                return
        src = self._creater.new(from_gv.with_kind(kinds[0].kind))
        self._convertor.convert(values, src, None)
        if self._defaulter is not None:
            self._defaulter.default(src)
        self._convertor.convert(src, into, None)

    def encode_parameters(self, obj: Any, to_gv: GroupVersion) -> dict[str, list[str]]:
        """The query parameters of ``obj`` in version ``to_gv`` (converted first if needed)."""
        kinds, _ = self._typer.object_kinds(obj)
        if kinds[0].group_version() != to_gv:
            obj = self._convertor.convert_to_version(obj, to_gv)
        return struct_to_query_values(obj)
