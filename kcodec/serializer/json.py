"""The JSON and YAML serializer (one class; ``yaml=True`` selects YAML).

Contracts are in :mod:`kcodec.runtime.interfaces`; Go behaviour in the reference, §6-§8.
"""
from __future__ import annotations

import json as _stdjson
from typing import IO, Any

from kcodec.errors import (
    DecodeError,
    MissingKindError,
    MissingVersionError,
    NotRegisteredError,
    StrictDecodingError,
)
from kcodec import speedups
from kcodec.model import RawJSON, Struct, fields_of, from_tree, to_tree
from kcodec.runtime.helpers import use_or_create_object
from kcodec.runtime.types import CONTENT_TYPE_JSON, Unknown
from kcodec.runtime.unstructured import Unstructured, UnstructuredList
from kcodec.schema import GroupVersionKind, parse_group_version
from kcodec.serializer import _gojson, _goyaml
from kcodec.serializer.framing import JSON_FRAMER, YAML_FRAMER
from kcodec.serializer.meta import SimpleMetaFactory

__all__ = ["Serializer", "SerializerOptions", "gvk_with_defaults", "new_serializer", "new_yaml_serializer"]

_WHITESPACE = b" \t\r\n"


class SerializerOptions:
    """The three switches of the JSON serializer (Go's SerializerOptions)."""

    __slots__ = ("yaml", "pretty", "strict")

    def __init__(self, yaml: bool = False, pretty: bool = False, strict: bool = False) -> None:
        self.yaml = yaml
        self.pretty = pretty
        self.strict = strict

    def __repr__(self) -> str:
        return f"SerializerOptions(yaml={self.yaml}, pretty={self.pretty}, strict={self.strict})"


def gvk_with_defaults(actual: GroupVersionKind, default: GroupVersionKind) -> GroupVersionKind:
    """Fill what the data left empty, group-aware (JSON's rule; protobuf's differs)."""
    group, version, kind = actual
    if not kind:
        kind = default.kind
    if not version and not group:
        group, version = default.group, default.version
    if not version and group == default.group:
        version = default.version
    return GroupVersionKind(group, version, kind)


def _tree_gvk(tree: Any) -> GroupVersionKind:
    """apiVersion/kind from an already parsed (YAML) document, keys matched case-insensitively."""
    if tree is None:
        return GroupVersionKind("", "", "")
    if not isinstance(tree, dict):
        kind = "array" if isinstance(tree, list) else ("string" if isinstance(tree, str) else "number")
        raise DecodeError(
            "couldn't get version/kind; json parse error: json: cannot unmarshal "
            f"{kind} into Go value of type struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
            "Kind string \"json:\\\"kind,omitempty\\\"\" }"
        )
    api_version = kind = None
    for key, value in tree.items():
        low = key.lower()
        if low == "apiversion":
            api_version = value
        elif low == "kind":
            kind = value
    for name, value in (("apiVersion", api_version), ("kind", kind)):
        if value is not None and not isinstance(value, str):
            raise DecodeError(
                "couldn't get version/kind; json parse error: json: cannot unmarshal "
                f"{_gojson_type(value)} into Go struct field .{name} of type string"
            )
    gv = parse_group_version(api_version or "")
    return GroupVersionKind(gv.group, gv.version, kind or "")


def _gojson_type(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "string"


def _with_gvk(err: Exception, gvk: GroupVersionKind | None) -> Exception:
    # Go returns the computed GVK beside the error; Python callers find it on the error.
    try:
        err.gvk = gvk  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover - exotic exception classes
        pass
    return err


class Serializer:
    """JSON (or YAML) serializer over a scheme's typer and creater.

    ``decode`` sniffs apiVersion/kind (data > ``defaults`` > ``into``), then creates or
    reuses the object and fills it; ``encode`` writes Go-identical bytes of whatever
    apiVersion/kind the object holds (the versioning codec sets them).
    """

    def __init__(self, creater: Any, typer: Any, *, yaml: bool = False, pretty: bool = False,
                 strict: bool = False, meta_factory: Any = None) -> None:
        self.creater = creater
        self.typer = typer
        self.options = SerializerOptions(yaml, pretty and not yaml, strict)
        self.meta = meta_factory if meta_factory is not None else SimpleMetaFactory()
        self._identifier = _stdjson.dumps(
            {"name": "json", "pretty": str(self.options.pretty).lower(),
             "strict": str(strict).lower(), "yaml": str(yaml).lower()},
            separators=(",", ":"), sort_keys=True)

    def __repr__(self) -> str:
        return f"json.Serializer({self.options!r})"

    # ------------------------------------------------------------------ decoding

    def decode(self, data: bytes, defaults: GroupVersionKind | None = None,
               into: Any = None) -> tuple[Any, GroupVersionKind]:
        """Decode ``data`` into a typed object; see the module docstring for the rules."""
        original = data
        yaml_errors: list[str] = []
        tree: Any = _UNPARSED
        if self.options.yaml:
            if self.options.strict:
                tree, yaml_errors = _goyaml.yaml_to_tree(data, strict=True)
            else:
                tree = _goyaml.yaml_to_tree(data)
            actual = _tree_gvk(tree)
        else:
            actual = self.meta.interpret(data)
        if defaults is not None:
            actual = gvk_with_defaults(actual, defaults)

        if isinstance(into, Unknown):
            into.raw = bytes(original)
            into.content_encoding = ""
            into.content_type = CONTENT_TYPE_JSON
            into.set_group_version_kind(actual)
            return into, actual

        if into is not None:
            is_unstructured = isinstance(into, (Unstructured, UnstructuredList))
            types = None
            unregistered = False
            if not is_unstructured:
                try:
                    types, _ = self.typer.object_kinds(into)
                except NotRegisteredError:
                    unregistered = True
            if is_unstructured or unregistered:
                strict_errs = self._unmarshal(into, data, tree, yaml_errors)
                if is_unstructured:
                    actual = into.get_object_kind().group_version_kind()
                    if not actual.kind:
                        raise _with_gvk(MissingKindError(original), actual)
                if strict_errs:
                    raise StrictDecodingError(strict_errs, into, actual)
                return into, actual
            actual = gvk_with_defaults(actual, types[0])  # type: ignore[index]

        if not actual.kind:
            raise _with_gvk(MissingKindError(original), actual)
        if not actual.version:
            raise _with_gvk(MissingVersionError(original), actual)
        try:
            obj = use_or_create_object(self.typer, self.creater, actual, into)
        except Exception as err:
            raise _with_gvk(err, actual) from None
        strict_errs = self._unmarshal(obj, data, tree, yaml_errors)
        if strict_errs:
            raise StrictDecodingError(strict_errs, obj, actual)
        return obj, actual

    def _unmarshal(self, obj: Any, data: bytes, tree: Any, yaml_errors: list[str]) -> list[str]:
        strict: list[str] | None = [] if self.options.strict else None
        if strict is not None:
            strict.extend(yaml_errors)
        if tree is _UNPARSED:
            if isinstance(obj, Struct):
                # The hot path: bytes straight into the typed object (a compiled kernel
                # when built), no intermediate tree.
                cls = type(obj)
                fields_of(cls)
                speedups.json_fill(obj, cls, data, strict, cls.__name__)
                return strict or []
            tree = _gojson.loads(data, strict=self.options.strict)
        if isinstance(obj, (Unstructured, UnstructuredList)):
            if tree is not None and not isinstance(tree, dict):
                raise DecodeError(f"json: cannot unmarshal {_gojson_type(tree)} into Go value of type map[string]interface {{}}")
            if strict is not None:
                _collect_duplicates(tree, "", strict)
            obj.set_unstructured_content(_plain(tree) if tree is not None else {})
            return strict or []
        from_tree(type(obj), tree, into=obj, strict=strict)
        return strict or []

    def recognizes_data(self, data: bytes) -> tuple[bool, bool]:
        """(recognized, unknown): JSON recognises a leading ``{``; YAML always answers unknown."""
        if self.options.yaml:
            return False, True
        stripped = bytes(data[:4096]).lstrip(_WHITESPACE)
        return stripped[:1] == b"{", False

    # ------------------------------------------------------------------ encoding

    def encode(self, obj: Any, stream: IO[bytes] | None = None) -> bytes:
        """Encode ``obj`` as Go would (compact + newline, pretty, or YAML)."""
        if not self.options.yaml and isinstance(obj, Struct) and not isinstance(obj, Unknown):
            fields_of(type(obj))
            out = speedups.json_encode(obj, self.options.pretty)
            if not self.options.pretty:
                out += b"\n"
            if stream is not None:
                stream.write(out)
            return out
        tree = _object_tree(obj)
        sort = isinstance(obj, (Unstructured, UnstructuredList))
        if self.options.yaml:
            compact = _gojson.dumps(tree, sort_keys=sort)
            out = _goyaml.tree_to_yaml(_gojson.loads(compact))
        elif self.options.pretty:
            out = _gojson.dumps(tree, pretty=True, sort_keys=sort)
        else:
            out = _gojson.dumps(tree, sort_keys=sort) + b"\n"
        if stream is not None:
            stream.write(out)
        return out

    def identifier(self) -> str:
        """``{"name":"json","pretty":...,"strict":...,"yaml":...}`` (keys sorted)."""
        return self._identifier

    # ------------------------------------------------------------------ framing

    @property
    def framer(self) -> Any:
        """The stream framer matching this serializer's format."""
        return YAML_FRAMER if self.options.yaml else JSON_FRAMER


_UNPARSED = object()


def _plain(tree: Any) -> Any:
    """Strip DupDict subclasses so unstructured content holds plain dicts."""
    if type(tree) is dict or not isinstance(tree, (dict, list)):
        if type(tree) is dict:
            for k, v in tree.items():
                if isinstance(v, (dict, list)):
                    tree[k] = _plain(v)
        return tree
    if isinstance(tree, list):
        return [_plain(v) for v in tree]
    return {k: _plain(v) for k, v in tree.items()}


def _collect_duplicates(tree: Any, prefix: str, out: list[str]) -> None:
    stack = [(tree, prefix)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key in getattr(node, "duplicates", ()) or ():
                msg = f'duplicate field "{path}{key}"'
                if msg not in out:
                    out.append(msg)
            for key, value in node.items():
                if isinstance(value, (dict, list)):
                    stack.append((value, f"{path}{key}."))
        elif isinstance(node, list):
            base = path[:-1] if path.endswith(".") else path
            for i, value in enumerate(node):
                if isinstance(value, (dict, list)):
                    stack.append((value, f"{base}[{i}]."))


def _object_tree(obj: Any) -> Any:
    """The JSON tree Go's json.Marshal would build for ``obj``."""
    if isinstance(obj, Unknown):
        return RawJSON(obj.marshal_json())
    if isinstance(obj, UnstructuredList):
        return obj.unstructured_content()
    if isinstance(obj, Unstructured):
        return obj.unstructured_content()
    return to_tree(obj)


def new_serializer(creater: Any, typer: Any, pretty: bool = False) -> Serializer:
    """A JSON serializer (Go's NewSerializer)."""
    return Serializer(creater, typer, pretty=pretty)


def new_yaml_serializer(creater: Any, typer: Any) -> Serializer:
    """A YAML serializer (Go's NewYAMLSerializer)."""
    return Serializer(creater, typer, yaml=True)
