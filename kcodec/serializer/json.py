"""The JSON and YAML serializer (one class; ``yaml=True`` selects YAML).

Contracts are in :mod:`kcodec.runtime.interfaces`; Go behaviour in Go: k8s.io/apimachinery/pkg/runtime/serializer/json/meta.go (SimpleMetaFactory); k8s.io/apimachinery/pkg/runtime/serializer/json/json.go; sigs.k8s.io/yaml/yaml.go over go-yaml v2.
"""
from __future__ import annotations

import codecs
import json as _stdjson
import re
from typing import IO, Any

from kcodec import speedups
from kcodec._kinds import K_ANY, K_LIST, K_MAP, K_STRUCT
from kcodec.errors import (
    DecodeError,
    KCodecError,
    MissingKindError,
    MissingVersionError,
    NotRegisteredError,
    StrictDecodingError,
    type_name,
)
from kcodec.gofmt import quote as _go_quote
from kcodec.errors import json_kind as _json_kind
from kcodec.model import ENCODE_FAULTS, RawJSON, Struct, TypeInfo, fields_of, invalid_value_error, to_tree
from kcodec.runtime.helpers import use_or_create_object
from kcodec.runtime.interfaces import MetaFactory, ObjectCreater, ObjectTyper
from kcodec.runtime.scheme import is_unstructured
from kcodec.runtime.types import CONTENT_TYPE_JSON, Unknown
from kcodec.schema import GroupVersionKind, parse_group_version
from kcodec import gojson as _gojson
from kcodec import goyaml as _goyaml
from kcodec.serializer.framing import JSON_FRAMER, YAML_FRAMER
from kcodec.serializer.meta import SimpleMetaFactory

__all__ = ["Serializer", "SerializerOptions", "gvk_with_defaults", "new_serializer", "new_yaml_serializer"]


class SerializerOptions:
    """The three switches of the JSON serializer (Go's SerializerOptions).

    ``pretty`` is kept as given even with ``yaml`` (it shows in the identifier, as in Go);
    YAML output ignores it.
    """

    __slots__ = ("yaml", "pretty", "strict")

    def __init__(self, yaml: bool = False, pretty: bool = False, strict: bool = False) -> None:
        self.yaml = yaml
        self.pretty = pretty
        self.strict = strict

    def __repr__(self) -> str:
        return f"SerializerOptions(yaml={self.yaml}, pretty={self.pretty}, strict={self.strict})"


# A document that opens with its kind and apiVersion as plain strings, in either order (as Go
# writes every object): the guess of the one-pass decode in Serializer._decode_one_pass.
_WS = rb"[ \t\r\n]*"
_LEADING_TYPE_META = re.compile(
    _WS + rb"\{" + _WS + rb'"(kind|apiVersion)"' + _WS + rb":" + _WS + rb'"([^"\\\x00-\x1f\x80-\xff]*)"'
    + _WS + rb"," + _WS + rb'"(kind|apiVersion)"' + _WS + rb":" + _WS + rb'"([^"\\\x00-\x1f\x80-\xff]*)"')


#: json_fill_vouched's answers: the object's own apiVersion/kind are what Go's MetaFactory
#: would read (2); the object was filled but its kind is unconfirmed (1); nothing usable (0).
_VOUCHED = 2
_NOT_FILLED = 0


def _leading_type_meta(data: bytes, start: int = 0, end: int | None = None) -> GroupVersionKind | None:
    """The kind a document (``data[start:end]``) names in its first two members, when they
    are ``kind`` and ``apiVersion`` as plain ASCII strings (either order); None otherwise."""
    m = _LEADING_TYPE_META.match(data, start, len(data) if end is None else end)
    if m is None or m.group(1) == m.group(3):
        return None
    if m.group(1) == b"kind":
        kind, api_version = m.group(2), m.group(4)
    else:
        api_version, kind = m.group(2), m.group(4)
    if api_version.count(b"/") > 1:
        return None  # Go's ParseGroupVersion refuses it: the two passes raise its error
    group, version = parse_group_version(api_version.decode("ascii"))
    return GroupVersionKind(group, version, kind.decode("ascii"))


def _holds_type_meta(obj: Any, guess: GroupVersionKind) -> bool:
    """Whether ``obj``'s own apiVersion/kind spell the guessed kind."""
    api_version = guess.version if not guess.group else f"{guess.group}/{guess.version}"
    return getattr(obj, "kind", None) == guess.kind and getattr(obj, "api_version", None) == api_version


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


def _with_gvk(err: BaseException, gvk: GroupVersionKind | None) -> BaseException:
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

    Errors carry the GVK Go would return beside them in ``err.gvk`` (None when Go returns
    none: YAML conversion and kind-sniffing errors). A strict-mode violation raises
    :class:`StrictDecodingError` with the decoded object on ``err.obj``.
    """

    def __init__(self, creater: ObjectCreater, typer: ObjectTyper, *, yaml: bool = False,
                 pretty: bool = False, strict: bool = False,
                 meta_factory: MetaFactory | None = None) -> None:
        self.creater = creater
        self.typer = typer
        self.options = SerializerOptions(yaml, pretty, strict)
        self.meta = meta_factory if meta_factory is not None else SimpleMetaFactory()
        # Reading in one pass gives Go's outcome only where Go's MetaFactory would read the
        # kind (another factory may read other keys) and where no strict-mode scan is due.
        self._one_pass = type(self.meta) is SimpleMetaFactory and not strict and not yaml
        self._identifier = _stdjson.dumps(
            {"name": "json", "pretty": str(bool(pretty)).lower(),
             "strict": str(bool(strict)).lower(), "yaml": str(bool(yaml)).lower()},
            separators=(",", ":"), sort_keys=True)

    def __repr__(self) -> str:
        return f"json.Serializer({self.options!r})"

    # ------------------------------------------------------------------ decoding

    def decode(self, data: bytes, defaults: GroupVersionKind | None = None,
               into: Any = None) -> tuple[Any, GroupVersionKind]:
        """Decode ``data`` into a typed object; see the class docstring for the rules.

        The decode reads in one pass when it can (:meth:`_decode_one_pass`) and otherwise
        falls into Go's two passes (:meth:`_decode_two_pass`): the MetaFactory reads
        apiVersion/kind from the whole text, then the text is decoded into the type they name.
        """
        if self.options.yaml:
            # Go converts the whole document to JSON first and works on that JSON from then
            # on (the original YAML is only kept for Unknown, error texts and the strict
            # duplicate-key check). The block-style fast path reads what go-yaml and kubectl
            # write and declines (None) anything else, duplicated keys included, so the
            # libyaml route keeps every rare construct and every error text; a tree it returns
            # writes the JSON text yaml_to_json would.
            tree = speedups.yaml_block_tree(data)
            if tree is not None:
                text, yaml_errors = _gojson.dumps(tree, sort_keys=True), []
            else:
                text, yaml_errors = _goyaml.yaml_to_json(data, strict=self.options.strict)
            return self._decode_two_pass(text, data, yaml_errors, defaults, into)
        if into is None and self._one_pass:
            done = self._decode_one_pass(data, defaults)
            if done is not None:
                return done
        return self._decode_two_pass(data, data, [], defaults, into)

    def decode_span(self, data: bytes, start: int, end: int) -> tuple[Any, GroupVersionKind]:
        """``decode(data[start:end])``, reading the span in place where the one-pass route
        applies (a watch event's object inside its frame: Go's RawExtension, decoded
        without copying it out first)."""
        if self._one_pass and type(data) is bytes and 0 <= start <= end <= len(data):
            done = self._decode_one_pass(data, None, start, end)
            if done is not None:
                return done
        return self.decode(data[start:end], None, None)

    def _decode_one_pass(self, data: bytes, defaults: GroupVersionKind | None,
                         start: int = 0, end: int | None = None) -> tuple[Any, GroupVersionKind] | None:
        """Decode in one pass, or None when only Go's two passes can say what happens.

        Go reads apiVersion/kind with a validating pass over the whole text (the
        MetaFactory), then decodes the text again into the type they name: on a 31 MB
        PodList the first pass is a tenth of the time. A document that opens with both keys
        as plain strings (as Go writes every object) names its type up front: that type is
        created and filled at once, and the kernel reports whether the apiVersion/kind the
        object now holds are the ones the MetaFactory would have read. When it vouches
        (the text was valid and every top-level key an exact field name) and they match the
        guess, the outcome is Go's without its pass. When it only filled the object, the
        MetaFactory's pass confirms the kind (the fill is not redone). No guess, an
        unregistered guess, an unfilled object or another kind return None, and the two
        passes decide, with Go's error texts.
        """
        if type(data) is not bytes:
            return None
        guess = _leading_type_meta(data, start, end)
        if guess is None:
            return None
        actual = guess if defaults is None else gvk_with_defaults(guess, defaults)
        if not actual.kind or not actual.version:
            return None
        try:
            obj = use_or_create_object(self.typer, self.creater, actual, None)
        except KCodecError:
            return None  # the two passes raise it, with the GVK Go returns beside it
        if not isinstance(obj, Struct) or isinstance(obj, Unknown):
            return None
        cls = type(obj)
        fields_of(cls)
        filled = speedups.json_fill_vouched(obj, cls, data, start, end)
        if filled == _NOT_FILLED:
            return None
        if filled == _VOUCHED and _holds_type_meta(obj, guess):
            return obj, actual
        # Filled as the two passes would fill this type; only the kind is unconfirmed. The
        # MetaFactory raises here exactly what the two passes would raise first.
        read = self.meta.interpret(data if start == 0 and end is None else data[start:end])
        if defaults is not None:
            read = gvk_with_defaults(read, defaults)
        if read != actual:
            return None
        return obj, actual

    def _decode_two_pass(self, data: bytes, original: bytes, yaml_errors: list[str],
                         defaults: GroupVersionKind | None,
                         into: Any) -> tuple[Any, GroupVersionKind]:
        """Go's Decode: the MetaFactory reads apiVersion/kind, then ``data`` (JSON; the
        document as given is ``original``) is decoded into the type they name."""
        actual = self.meta.interpret(data)
        if defaults is not None:
            actual = gvk_with_defaults(actual, defaults)

        if isinstance(into, Unknown):
            # ContentEncoding is left as it was, as Go does.
            into.raw = bytes(original)
            into.content_type = CONTENT_TYPE_JSON
            into.set_group_version_kind(actual)
            return into, actual

        if into is not None:
            unstructured = is_unstructured(into)
            types = None
            unregistered = False
            if not unstructured:
                try:
                    types, _ = self.typer.object_kinds(into)
                except NotRegisteredError:
                    unregistered = True
                except KCodecError as err:
                    raise _with_gvk(err, actual) from None
            if unstructured or unregistered:
                try:
                    strict_errs = self._unmarshal(into, data, yaml_errors)
                except KCodecError as err:
                    raise _with_gvk(err, actual) from None
                if unstructured:
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
            strict_errs = self._unmarshal(obj, data, yaml_errors)
        except KCodecError as err:
            raise _with_gvk(err, actual) from None
        if strict_errs:
            raise StrictDecodingError(strict_errs, obj, actual)
        return obj, actual

    def _unmarshal(self, obj: Any, data: bytes, yaml_errors: list[str]) -> list[str]:
        """Fill ``obj`` from JSON ``data``; return the strict-mode violations (Go order)."""
        strict = self.options.strict
        if isinstance(obj, Struct):
            cls = type(obj)
            fields_of(cls)
            # The kernel only fills; violations are collected below in one ordered pass.
            speedups.json_fill(obj, cls, data, None, cls.__name__)
            if not strict:
                return []
            return yaml_errors + strict_errors(data, cls)
        if is_unstructured(obj):
            if not strict:
                # Go hands the bytes to the object's own UnmarshalJSON (list items get the
                # list's kind, a list's other fields are merged).
                own = getattr(obj, "unmarshal_json", None)
                if callable(own):
                    own(data)
                else:
                    obj.set_unstructured_content(_map_tree(data))
                return []
            tree = _map_tree(data)
            errs = yaml_errors + strict_errors(data, None)
            obj.set_unstructured_content(tree)
            return errs
        own = getattr(obj, "unmarshal_json", None)
        if callable(own):
            own(data)
            return list(yaml_errors)
        raise DecodeError(f"json: cannot unmarshal into Go value of type {type_name(obj)}: "
                          "the object is neither a kcodec Struct nor unstructured")

    def recognizes_data(self, data: bytes) -> tuple[bool, bool]:
        """(recognized, unknown): JSON recognises a leading ``{``; YAML always answers unknown."""
        if self.options.yaml:
            return False, True
        return _first_non_space(data) == 0x7B, False

    # ------------------------------------------------------------------ encoding

    def encode(self, obj: Any, stream: IO[bytes] | None = None) -> bytes:
        """Encode ``obj`` as Go would (compact + newline, pretty, or YAML)."""
        yaml = self.options.yaml
        pretty = self.options.pretty and not yaml
        if not yaml and isinstance(obj, Struct) and not isinstance(obj, Unknown):
            fields_of(type(obj))
            try:
                out = speedups.json_encode(obj, pretty, not pretty)
            except ENCODE_FAULTS as exc:
                raise invalid_value_error(obj, exc) from exc
            if stream is not None:
                stream.write(out)
            return out
        tree = _object_tree(obj)
        sort = is_unstructured(obj)
        if yaml:
            compact = _gojson.dumps(tree, sort_keys=sort)
            out = speedups.yaml_encode_tree(_goyaml.json_to_yaml_value(compact))
        elif pretty:
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


def _map_tree(data: bytes) -> dict[str, Any] | None:
    """``data`` decoded as Go decodes into ``map[string]interface{}`` (null -> nil map)."""
    tree = _gojson.loads(data)
    if tree is not None and not isinstance(tree, dict):
        raise DecodeError(f"json: cannot unmarshal {_json_kind(tree)} into Go value of type map[string]interface {{}}")
    return tree


# --------------------------------------------------------------------------------------
# recognizes_data: Go trims with unicode.IsSpace over UTF-8 runes.

_ASCII_SPACE = frozenset(b"\t\n\v\f\r ")
_UNICODE_SPACE = frozenset(
    [0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, *range(0x2000, 0x200B)]
)


def _first_non_space(data: bytes) -> int | None:
    """The first byte after Go's ``bytes.TrimLeftFunc(data, unicode.IsSpace)``, or None."""
    buf = memoryview(data).cast("B") if not isinstance(data, bytes) else data
    n = len(buf)
    i = 0
    while i < n:
        b = buf[i]
        if b < 0x80:
            if b in _ASCII_SPACE:
                i += 1
                continue
            return b
        size = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
        try:
            ch = bytes(buf[i:i + size]).decode("utf-8")
        except UnicodeDecodeError:
            return b  # an invalid sequence decodes as U+FFFD, which is not a space
        if len(ch) == 1 and ord(ch) in _UNICODE_SPACE:
            i += size
            continue
        return b
    return None


# --------------------------------------------------------------------------------------
# Strict-mode violations, as sigs.k8s.io/json reports them.
#
# One pass over the document in order: a key with no field is an unknown field (not
# descended into); a field or map key met again is a duplicate; interface{} values are
# checked for duplicates only; values with their own UnmarshalJSON (custom values) are not
# looked into. Paths join keys with "." and indices as "[i]"; messages are de-duplicated
# and at most 100 are kept.

MAX_STRICT_ERRORS = 100

_FFFD_ERRORS = "kcodec-json-strict-replace"


def _replace_each_byte(exc: UnicodeError) -> tuple[str, int]:
    # Go decodes every byte of an invalid UTF-8 sequence to its own U+FFFD.
    if isinstance(exc, UnicodeDecodeError):
        return "\ufffd" * (exc.end - exc.start), exc.end
    raise exc


codecs.register_error(_FFFD_ERRORS, _replace_each_byte)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _pairs_fixing_surrogates(pairs: list[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
    # Go decodes an unpaired \uD800-\uDFFF escape as U+FFFD.
    return tuple((_SURROGATE.sub("\ufffd", k), v) for k, v in pairs)


def _ignore(_: str) -> None:
    return None


# Objects parse to tuples of (key, value) pairs in document order, repeated keys kept;
# arrays stay lists. Scalar values are irrelevant here.
_PAIRS_DECODER = _stdjson.JSONDecoder(object_pairs_hook=tuple, parse_int=_ignore,
                                      parse_float=_ignore, parse_constant=_ignore)
_PAIRS_DECODER_SURROGATES = _stdjson.JSONDecoder(
    object_pairs_hook=_pairs_fixing_surrogates, parse_int=_ignore, parse_float=_ignore,
    parse_constant=_ignore)

# Walk frames: what the members of the current container are.
_F_STRUCT = 0    # a typed struct's members: unknown and duplicate fields are checked
_F_MAP = 1       # map[string]T (and interface{} objects) members: duplicate keys checked
_F_LIST = 2      # []T (and interface{} arrays) elements
_F_CHILDREN = 3  # (key, value, target) of an object already found clean: descend only

_DESCEND = frozenset((K_STRUCT, K_MAP, K_LIST, K_ANY))
_CONTAINERS = (tuple, list, dict, _gojson.DupDict)
_ANY = TypeInfo(K_ANY)
_struct_tables: dict[Any, tuple[Any, dict[str, Any]]] = {}


def _struct_table(cls: Any) -> tuple[Any, dict[str, Any]]:
    """(JSON keys of ``cls``, key -> field for the fields whose values may hold violations)."""
    t = _struct_tables.get(cls)
    if t is None:
        fields_of(cls)
        jmap = cls.__kc_json__
        t = (jmap.keys(), {k: chain[-1] for k, chain in jmap.items() if chain[-1].kind in _DESCEND})
        _struct_tables[cls] = t
    return t


def _ordered_tree(data: bytes) -> Any:
    """``data`` parsed with every object as its ordered pairs (values irrelevant)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", _FFFD_ERRORS)
    if text[:1] == "\ufeff":
        text = text[1:]
    decoder = _PAIRS_DECODER_SURROGATES if ("\\ud" in text or "\\uD" in text) else _PAIRS_DECODER
    try:
        return decoder.decode(text)
    except (RecursionError, ValueError):
        # Nesting deeper than the C parser allows: the exact parser's tree, whose objects
        # list each key once; repeated keys are then reported at their first place.
        return _gojson.loads(data, strict=True)


def _dict_members(node: dict[str, Any]) -> Any:
    dups = getattr(node, "duplicates", None)
    if not dups:
        return iter(node.items())
    return _dict_members_with_repeats(node, frozenset(dups))


def _dict_members_with_repeats(node: dict[str, Any], dups: frozenset[str]) -> Any:
    for key, value in node.items():
        yield key, value
        if key in dups:
            yield key, None


def _container_frame(value: Any, target: Any, segment: str | None) -> list[Any] | None:
    """The walk frame for ``value`` decoded into ``target`` (None: nothing to look into).

    An object with no repeated and no unknown key gets a frame over just the members that
    may hold violations; any other object is walked member by member.
    """
    k = target.kind
    vt = type(value)
    if vt is list:
        if k == K_LIST:
            elem = target.elem
        elif k == K_ANY:
            elem = _ANY
        else:
            return None
        if value and elem.kind in _DESCEND:
            return [iter(value), _F_LIST, elem, segment, None, 0]
        return None
    if vt is tuple:
        members: Any = dict(value)
        clean = len(members) == len(value)
    elif isinstance(value, dict):
        members = value
        clean = not getattr(value, "duplicates", None)
    else:
        return None
    if k == K_STRUCT:
        cls = target.cls
        keys, desc = _struct_table(cls)
        if clean and members.keys() <= keys:
            hits = members.keys() & desc.keys()
            if not hits:
                return None
            if len(hits) == 1:
                key = next(iter(hits))
                v = members[key]
                if type(v) not in _CONTAINERS:
                    return None
                children = [(key, v, desc[key])]
            else:
                # Document order decides the order of the errors found below.
                children = [(key, v, desc[key]) for key, v in (value if vt is tuple else value.items())
                            if key in hits and type(v) in _CONTAINERS]
            return [iter(children), _F_CHILDREN, None, segment, None, 0]
        pairs = iter(value) if vt is tuple else _dict_members(value)
        return [pairs, _F_STRUCT, cls, segment, set(), 0]
    if k == K_MAP:
        elem = target.elem
    elif k == K_ANY:
        elem = _ANY
    else:
        return None
    if clean:
        if elem.kind not in _DESCEND:
            return None
        children = [(key, v, elem) for key, v in members.items() if type(v) in _CONTAINERS]
        return [iter(children), _F_CHILDREN, None, segment, None, 0] if children else None
    pairs = iter(value) if vt is tuple else _dict_members(value)
    return [pairs, _F_MAP, elem, segment, set(), 0]


class _RootStruct:
    """A stand-in field for the top-level struct."""

    __slots__ = ("kind", "cls")

    def __init__(self, cls: Any) -> None:
        self.kind = K_STRUCT
        self.cls = cls


_ROOT_MAP = TypeInfo(K_MAP, elem=_ANY)


def strict_errors(data: bytes, cls: Any) -> list[str]:
    """Strict-mode violations of JSON ``data`` decoded into struct class ``cls`` (or into
    ``map[string]interface{}`` when ``cls`` is None), in Go's order and wording."""
    root = _ordered_tree(bytes(data))
    first = _container_frame(root, _ROOT_MAP if cls is None else _RootStruct(cls), None)
    if first is None:
        return []
    out: list[str] = []
    seen_msgs: set[str] = set()
    # Frame: [iterator, frame kind, struct class or element TypeInfo, path segment leading
    # to this container (None for the root), keys seen so far, next list index]. Paths
    # are joined from the segments only when an error is reported, as Go joins its stack.
    stack: list[list[Any]] = [first]

    def report(what: str, key: str) -> bool:
        if len(stack) > 1:
            path = "".join([f[3] for f in stack[1:]]) + "." + key
        else:
            path = key
        msg = what + _go_quote(path)
        if msg not in seen_msgs:
            seen_msgs.add(msg)
            out.append(msg)
        return len(out) >= MAX_STRICT_ERRORS

    while stack:
        frame = stack[-1]
        try:
            item = next(frame[0])
        except StopIteration:
            stack.pop()
            continue
        kind = frame[1]
        if kind == _F_CHILDREN:
            key, value, target = item
            segment = "." + key if len(stack) > 1 else key
        elif kind == _F_LIST:
            i = frame[5]
            frame[5] = i + 1
            target = frame[2]
            segment = f"[{i}]"
            value = item
        else:
            key, value = item
            if kind == _F_STRUCT:
                chain = frame[2].__kc_json__.get(key)
                if chain is None:
                    if report("unknown field ", key):
                        break
                    continue
                target = chain[-1]
            else:
                target = frame[2]
            seen = frame[4]
            if key in seen:
                if report("duplicate field ", key):
                    break
            else:
                seen.add(key)
            segment = "." + key if len(stack) > 1 else key
        child = _container_frame(value, target, segment)
        if child is not None:
            stack.append(child)
    return out


# --------------------------------------------------------------------------------------


class _UnknownJSON(RawJSON):
    """An Unknown's raw bytes; Go names the type in MarshalJSON errors."""

    __slots__ = ()
    go_type = "*runtime.Unknown"


def _object_tree(obj: Any) -> Any:
    """The JSON tree Go's json.Marshal would build for ``obj``."""
    if isinstance(obj, Unknown):
        return _UnknownJSON(obj.marshal_json())
    if is_unstructured(obj):
        return obj.unstructured_content()
    return to_tree(obj)


def new_serializer(creater: Any, typer: Any, pretty: bool = False) -> Serializer:
    """A JSON serializer (Go's NewSerializer)."""
    return Serializer(creater, typer, pretty=pretty)


def new_yaml_serializer(creater: Any, typer: Any) -> Serializer:
    """A YAML serializer (Go's NewYAMLSerializer)."""
    return Serializer(creater, typer, yaml=True)
