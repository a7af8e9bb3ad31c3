"""sigs.k8s.io/yaml-identical YAML: YAML text -> JSON tree, JSON tree -> YAML text.

Go's YAML path (Go: sigs.k8s.io/yaml/yaml.go over go-yaml v2) is a round trip through JSON:

* decode: go-yaml v2 (YAML 1.1) unmarshals the first document into ``interface{}``, keys are
  stringified, ``encoding/json`` marshals the result and the JSON text is decoded again.
  :func:`yaml_to_tree` returns the tree that last JSON decode gives (Go's number rule: an
  integer literal fitting int64 is ``int``, every other number ``float``).
* encode: the object's JSON text is unmarshalled by go-yaml (so numbers get YAML types) and
  marshalled by go-yaml v2's emitter (keys sorted, 2-space indent, 80-column folding).
  :func:`tree_to_yaml` reproduces that emitter byte for byte for JSON trees.

Parsing uses PyYAML's libyaml binding (``CParser``) when present - libyaml is the C original
that go-yaml v2 was ported from, so events and error texts match - and PyYAML's pure-Python
parser otherwise. Only events are used; nodes, anchors and values are built here so that the
go-yaml rules (resolution, merge keys, alias-expansion budget, depth limit) apply exactly.
"""
from __future__ import annotations

import base64
import binascii
import json as _stdjson
import math
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cmp_to_key
from typing import Any

import yaml as _pyyaml

from kcodec.errors import DecodeError, EncodeError
from kcodec.gofmt import format_g, quote as _go_quote
from kcodec.gojson import dumps as _gojson_dumps, format_float
from kcodec.gojson import escape_string as _json_quoted
from kcodec.gojson import loads as _gojson_loads

__all__ = [
    "yaml_to_tree",
    "yaml_to_json",
    "yaml_to_value",
    "tree_to_yaml",
    "json_to_yaml_value",
    "format_strict_errors",
    "YAMLError",
]

_LOADER: Any = getattr(_pyyaml, "CSafeLoader", None) or _pyyaml.SafeLoader

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_UINT64_MAX = (1 << 64) - 1

# go-yaml's scanner refuses more than this many nested flow levels or block indents.
_MAX_DEPTH = 10000


class _LibyamlNesting:
    """Lifts libyaml's own nesting limit above go-yaml's while kcodec parses.

    libyaml 0.2.6 (bundled from PyYAML 6.0.4) refuses documents nested deeper than a
    process-wide level, 1000 by default, with its own message; go-yaml accepts 10000 and
    then fails with "exceeded max depth of 10000". The level is raised only while a
    kcodec parse runs (reference-counted across threads) and restored afterwards, so other
    PyYAML users in the process keep their limit."""

    _lock = threading.Lock()
    _users = 0
    _saved = -1

    def __init__(self) -> None:
        c_module = getattr(_pyyaml, "_yaml", None) if _LOADER is not _pyyaml.SafeLoader else None
        self._get = getattr(c_module, "_get_max_nest_level", None)
        self._set = getattr(c_module, "_set_max_nest_level", None)

    @contextmanager
    def lifted(self) -> Iterator[None]:
        if self._get is None or self._set is None:
            yield
            return
        cls = type(self)
        with cls._lock:
            if cls._users == 0:
                cls._saved = self._get()
                # -1: a libyaml without the limit. Our own check must fire first, with Go's text.
                if 0 <= cls._saved <= _MAX_DEPTH:
                    self._set(2 * _MAX_DEPTH)
            cls._users += 1
        try:
            yield
        finally:
            with cls._lock:
                cls._users -= 1
                if cls._users == 0 and 0 <= cls._saved <= _MAX_DEPTH:
                    self._set(cls._saved)


_NESTING = _LibyamlNesting()

_STR_TAG = "tag:yaml.org,2002:str"
_BINARY_TAG = "tag:yaml.org,2002:binary"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_NULL_TAG = "tag:yaml.org,2002:null"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_RESOLVABLE = frozenset(("", _STR_TAG, _BOOL_TAG, _INT_TAG, _FLOAT_TAG, _NULL_TAG, _TIMESTAMP_TAG))


class YAMLError(DecodeError):
    """A YAML document could not be parsed or converted (Go's ``yaml: ...`` errors)."""


# ---------------------------------------------------------------------------------------------
# Scalar resolution (go-yaml v2 resolve.go, YAML 1.1 implicit types)

_RESOLVE_MAP: dict[str, tuple[str, Any]] = {}
for _vals, _tag, _v in (
    (("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), _BOOL_TAG, True),
    (("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), _BOOL_TAG, False),
    (("", "~", "null", "Null", "NULL"), _NULL_TAG, None),
    ((".nan", ".NaN", ".NAN"), _FLOAT_TAG, math.nan),
    ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), _FLOAT_TAG, math.inf),
    (("-.inf", "-.Inf", "-.INF"), _FLOAT_TAG, -math.inf),
):
    for _s in _vals:
        _RESOLVE_MAP[_s] = (_tag, _v)

# First-byte hints of go-yaml's resolve table: strings starting with anything else are
# always plain strings, which is what makes the common case cheap.
_HINT_NUMBER = frozenset("+-0123456789")
_HINT_MAP = frozenset("yYnNtTfFoO~")
_HINT_CHARS = _HINT_NUMBER | _HINT_MAP | {"."}

# strconv.ParseInt/ParseUint with base 0 (prefixes 0x, 0b, 0o and a bare leading 0 = octal).
_GO_INT_RE = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)\Z")
_YAML_FLOAT_RE = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_DOT_FLOAT_RE = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?\Z")
_BASE60_RE = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?\Z")

# The subset of time.Parse layouts go-yaml tries for implicit timestamps.
_TS_DATE_RE = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})")
_TS_REST_RE = re.compile(
    r"(?:([Tt])([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(Z|[-+][0-9]{2}:[0-9]{2})"
    r"|( )([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?)?\Z"
)
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _is_timestamp(s: str) -> bool:
    m = _TS_DATE_RE.match(s)
    if m is None:
        return False
    rest = _TS_REST_RE.match(s, m.end())
    if rest is None:
        return False
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if not 1 <= month <= 12:
        return False
    dim = _DAYS[month - 1]
    if month == 2 and (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
        dim = 29
    if not 1 <= day <= dim:
        return False
    g = rest.groups()
    if g[0] is not None:
        hh, mm, ss, tz = int(g[1]), int(g[2]), int(g[3]), g[4]
        if tz != "Z" and (int(tz[1:3]) > 24 or int(tz[4:6]) > 60):
            return False
    elif g[5] is not None:
        hh, mm, ss = int(g[6]), int(g[7]), int(g[8])
    else:
        return True
    return hh < 24 and mm < 60 and ss < 60


def _go_parse_int(s: str, signed: bool) -> int | None:
    m = _GO_INT_RE.match(s)
    if m is None:
        return None
    sign, body = m.groups()
    if sign and not signed:
        return None
    if len(body) > 80:
        # Beyond any 64-bit value in every base; also keeps Python's int() digit limit
        # (4300) and its quadratic conversion away from hostile input.
        return None
    if len(body) > 1 and body[0] == "0":
        p = body[1]
        if p in "xX":
            v = int(body[2:], 16)
        elif p in "bB":
            v = int(body[2:], 2)
        elif p in "oO":
            v = int(body[2:], 8)
        else:
            v = int(body[1:], 8)
    else:
        v = int(body)
    if sign == "-":
        v = -v
    if signed:
        return v if _INT64_MIN <= v <= _INT64_MAX else None
    return v if v <= _UINT64_MAX else None


def _finite_float(s: str) -> float | None:
    v = float(s)
    # strconv.ParseFloat reports overflow as an error; go-yaml then keeps the text a string.
    return v if not math.isinf(v) else None


def _resolve(tag: str, s: str) -> tuple[str, Any]:
    """go-yaml's resolve(): the implicit (or checked explicit) type of a scalar.

    Timestamps resolve to their original text (go-yaml keeps them strings when decoding
    into ``interface{}``); uint64 values are ints above the int64 range.
    """
    if tag not in _RESOLVABLE:
        return tag, s
    rtag, out = _resolve_implicit(tag, s)
    if tag == "" or tag == rtag or tag == _STR_TAG:
        return rtag, out
    if tag == _FLOAT_TAG and rtag == _INT_TAG:
        return _FLOAT_TAG, float(out)
    raise YAMLError(f"yaml: cannot decode {_short_tag(rtag)} `{s}` as a {_short_tag(tag)}")


def _resolve_implicit(tag: str, s: str) -> tuple[str, Any]:
    hint = s[0] if s else "N"
    if tag == _STR_TAG or (hint not in _HINT_CHARS and hint != "N"):
        return _STR_TAG, s
    item = _RESOLVE_MAP.get(s)
    if item is not None:
        return item
    if hint == ".":
        if _DOT_FLOAT_RE.match(s):
            f = _finite_float(s)
            if f is not None:
                return _FLOAT_TAG, f
    elif hint in _HINT_NUMBER:
        if (tag == "" or tag == _TIMESTAMP_TAG) and _is_timestamp(s):
            return _TIMESTAMP_TAG, s
        plain = s.replace("_", "") if "_" in s else s
        v = _go_parse_int(plain, True)
        if v is None:
            v = _go_parse_int(plain, False)
        if v is not None:
            return _INT_TAG, v
        if _YAML_FLOAT_RE.match(plain):
            f = _finite_float(plain)
            if f is not None:
                return _FLOAT_TAG, f
    return _STR_TAG, s


def _short_tag(tag: str) -> str:
    if tag.startswith("tag:yaml.org,2002:"):
        return "!!" + tag[18:]
    return tag


def _plain_is_string(s: str) -> bool:
    """True when ``s`` written unquoted would read back as the same string (stringv's canUsePlain)."""
    if s and s[0] not in _HINT_CHARS:
        return True
    if _resolve_implicit("", s)[0] != _STR_TAG:
        return False
    # Base-60 floats are unsupported on input but still quoted on output for other parsers.
    return not (":" in s and _BASE60_RE.match(s))


# ---------------------------------------------------------------------------------------------
# Go number formatting

def _go_format_g(x: float, bits: int = 64) -> str:
    """strconv.FormatFloat(x, 'g', -1, bits) with go-yaml's .inf/.nan spellings."""
    text = format_g(x, bits)
    return _YAML_SPECIAL.get(text, text)


_YAML_SPECIAL = {"NaN": ".nan", "+Inf": ".inf", "-Inf": "-.inf"}


def _json_number(v: Any) -> Any:
    """A go-yaml number after encoding/json Marshal and Go's untyped JSON decode.

    What matters is the JSON text Marshal writes: a uint64 keeps its digits, a float64 is
    written in Go's shortest form ('-9223372036854775809' resolves to a float64 whose text
    is -9223372036854776000, beyond int64). That text is read back as JSON is.
    """
    if type(v) is int:
        if v > _INT64_MAX:  # uint64: its digits no longer fit int64 on the way back
            return float(v)
        return v
    if math.isnan(v) or math.isinf(v):
        raise YAMLError(f"json: unsupported value: {'NaN' if math.isnan(v) else ('+Inf' if v > 0 else '-Inf')}")
    text = format_float(v)
    if "." not in text and "e" not in text:
        iv = int(text)
        if _INT64_MIN <= iv <= _INT64_MAX:
            return iv
    return v


def _go_replace_invalid(data: bytes) -> str:
    """UTF-8 decode replacing each invalid byte with U+FFFD, as encoding/json does."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out = []
    i = 0
    n = len(data)
    while i < n:
        try:
            out.append(data[i:].decode("utf-8"))
            break
        except UnicodeDecodeError as e:
            out.append(data[i:i + e.start].decode("utf-8"))
            out.append("\ufffd")
            i += e.start + 1
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Go %#v / strconv.Quote renderings used in error texts

def _go_sharp_v(v: Any) -> str:
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return _go_quote(v)
    if isinstance(v, int):
        return hex(v) if v > _INT64_MAX else str(v)
    if isinstance(v, float):
        s = _go_format_g(v)
        return {".inf": "+Inf", "-.inf": "-Inf", ".nan": "NaN"}.get(s, s)
    if isinstance(v, dict):
        inner = ", ".join(f"{_go_sharp_v(k)}:{_go_sharp_v(x)}" for k, x in sorted(v.items(), key=lambda kv: str(kv[0])))
        return "map[interface {}]interface {}{" + inner + "}"
    if isinstance(v, list):
        return "[]interface {}{" + ", ".join(_go_sharp_v(x) for x in v) + "}"
    return repr(v)


def _go_type_name(v: Any) -> str:
    """``%s`` of ``reflect.TypeOf(v)``, as sigs.k8s.io/yaml's convertToJSONableObject
    prints an unsupported key's type (yaml.go)."""
    if v is None:
        # reflect.TypeOf(nil) is a nil reflect.Type: fmt's %s of a nil value.
        return "%!s(<nil>)"
    if isinstance(v, int) and not isinstance(v, bool) and v > _INT64_MAX:
        return "uint64"
    return {bool: "bool", int: "int", float: "float64", str: "string"}.get(type(v), type(v).__name__)


# ---------------------------------------------------------------------------------------------
# Events -> node graph (go-yaml's parser half)

_K_SCALAR, _K_SEQ, _K_MAP, _K_ALIAS = 0, 1, 2, 3


def _yaml_error(exc: Exception) -> YAMLError:
    """Turn a PyYAML parser error into go-yaml's ``yaml: line N: problem`` text."""
    problem = getattr(exc, "problem", None)
    if problem is None:
        reason = getattr(exc, "reason", None)
        return YAMLError("yaml: " + (reason or str(exc)))
    # go-yaml reports scanner errors 1-based but parser errors with the raw 0-based line,
    # and falls back to the context mark when the problem mark is on the first line.
    line = 0
    pm = getattr(exc, "problem_mark", None)
    cm = getattr(exc, "context_mark", None)
    if pm is not None and pm.line != 0:
        line = pm.line + (1 if isinstance(exc, _pyyaml.scanner.ScannerError) else 0)
    elif cm is not None and cm.line != 0:
        line = cm.line
    where = f"line {line}: " if line else ""
    return YAMLError(f"yaml: {where}{problem}")


def _parse_first_document(data: bytes) -> Any:
    """Read the first document's events and build go-yaml-style nodes.

    Nodes are lists: scalar ``[0, line, value, tag, plain]``, sequence/mapping
    ``[1|2, line, children]``, alias ``[3, line, target, name]``. Returns None for an empty
    stream.
    """
    text = _source_text(data)
    with _NESTING.lifted():
        while True:
            try:
                return _parse_events(_LOADER(data), text)
            except _EscapeRetry as retry:
                data, text = retry.data, retry.text


# libyaml and go-yaml v2 differ on two escapes of double-quoted scalars: go-yaml reads \' as
# ' and refuses \/ (a YAML 1.2 escape libyaml accepts). The scalar's source text decides.
_UNKNOWN_ESCAPE = "found unknown escape character"


class _EscapeRetry(Exception):
    """The document again, with one \\' that libyaml refused spelled \\x27."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        self.data = text.encode("utf-8")


def _source_text(data: bytes) -> str | None:
    """The document as libyaml indexes it (characters, after a UTF-8 byte order mark)."""
    if b"\\" not in data:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _go_escape_retry(exc: Any, text: str | None) -> _EscapeRetry | None:
    """libyaml refused an escape: when it is go-yaml's \\' (an apostrophe), the retry."""
    mark = getattr(exc, "problem_mark", None)
    if text is None or mark is None or getattr(exc, "problem", None) != _UNKNOWN_ESCAPE:
        return None
    i = mark.index
    if text[i:i + 2] != "\\'":
        return None
    return _EscapeRetry(text[:i] + "\\x27" + text[i + 2:])


def _check_go_escapes(text: str, start: Any, end: Any) -> None:
    """Refuse \\/ in the double-quoted scalar at ``text[start.index:end.index]`` as go-yaml
    v2's scanner does (its escape table has no '/')."""
    i, stop = start.index, end.index
    while True:
        i = text.find("\\", i, stop)
        if i < 0:
            return
        if text[i + 1:i + 2] == "/":
            seg = text[start.index:i]
            line = start.line + seg.count("\n") + seg.count("\r") - seg.count("\r\n")
            # A scanner error: go-yaml prints the 0-based line plus one, and no line at all
            # when both the problem and the scalar start on the first line.
            where = f"line {line + 1}: " if line else (f"line {start.line}: " if start.line else "")
            raise YAMLError(f"yaml: {where}{_UNKNOWN_ESCAPE}")
        i += 2


def _check_yaml_version(ev: Any) -> None:
    """go-yaml v2 reads YAML 1.1 only: any other %YAML directive is a parser error."""
    version = getattr(ev, "version", None)
    if version is not None and tuple(version) != (1, 1):
        line = ev.start_mark.line
        where = f"line {line}: " if line else ""
        raise YAMLError(f"yaml: {where}found incompatible YAML document")


def _parse_events(loader: Any, text: str | None = None) -> Any:
    """:func:`_parse_first_document` on a loader made from the document (``text``: its
    source, when it holds a backslash, for go-yaml's escape rules)."""
    get_event = loader.get_event
    ScalarEvent = _pyyaml.ScalarEvent
    MappingStartEvent = _pyyaml.MappingStartEvent
    SequenceStartEvent = _pyyaml.SequenceStartEvent
    CollectionEndEvent = _pyyaml.events.CollectionEndEvent
    AliasEvent = _pyyaml.AliasEvent
    DocumentStartEvent = _pyyaml.DocumentStartEvent
    StreamEndEvent = _pyyaml.StreamEndEvent
    anchors: dict[str, list] = {}
    stack: list[list] = []
    flow_depth = 0
    block_depth = 0
    root: Any = None
    try:
        while True:
            ev = get_event()
            if ev is None or isinstance(ev, StreamEndEvent):
                return None
            if isinstance(ev, DocumentStartEvent):
                _check_yaml_version(ev)
                break
        while True:
            ev = get_event()
            cls = type(ev)
            if cls is ScalarEvent:
                if text is not None and ev.style == '"' and "/" in ev.value:
                    _check_go_escapes(text, ev.start_mark, ev.end_mark)
                node: list = [_K_SCALAR, ev.start_mark.line, ev.value, ev.tag or "", ev.implicit[0]]
                if ev.anchor is not None:
                    anchors[ev.anchor] = node
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if ev.flow_style:
                    flow_depth += 1
                    depth = flow_depth
                else:
                    block_depth += 1
                    depth = block_depth
                if depth > _MAX_DEPTH:
                    line = ev.start_mark.line
                    where = f"line {line + 1}: " if line else ""
                    raise YAMLError(f"yaml: {where}exceeded max depth of {_MAX_DEPTH}")
                node = [_K_MAP if cls is MappingStartEvent else _K_SEQ, ev.start_mark.line, [], bool(ev.flow_style)]
                if ev.anchor is not None:
                    anchors[ev.anchor] = node
                if stack:
                    stack[-1][2].append(node)
                else:
                    root = node
                stack.append(node)
                continue
            elif isinstance(ev, CollectionEndEvent):
                done = stack.pop()
                if done[3]:
                    flow_depth -= 1
                else:
                    block_depth -= 1
                if not stack:
                    return root
                continue
            elif cls is AliasEvent:
                target = anchors.get(ev.anchor)
                if target is None:
                    raise YAMLError(f"yaml: unknown anchor '{ev.anchor}' referenced")
                node = [_K_ALIAS, ev.start_mark.line, target, ev.anchor]
            else:
                # DocumentEnd right after DocumentStart cannot happen: an empty document
                # still carries an empty plain scalar.
                return root
            if stack:
                stack[-1][2].append(node)
            else:
                return node
    except _pyyaml.YAMLError as exc:
        retry = _go_escape_retry(exc, text)
        if retry is not None:
            raise retry from None
        raise _yaml_error(exc) from None
    finally:
        loader.dispose()


# ---------------------------------------------------------------------------------------------
# Node graph -> values (go-yaml's decoder into interface{} + sigs.k8s.io/yaml's key conversion)

_ALIAS_LOW = 400000
_ALIAS_HIGH = 4000000


def _allowed_alias_ratio(count: int) -> float:
    if count <= _ALIAS_LOW:
        return 0.99
    if count >= _ALIAS_HIGH:
        return 0.10
    return 0.99 - 0.89 * ((count - _ALIAS_LOW) / (_ALIAS_HIGH - _ALIAS_LOW))


def _scalar_value(node: list) -> Any:
    value, tag, plain = node[2], node[3], node[4]
    if tag == "" and not plain:
        return value  # quoted scalars are always strings
    rtag, out = _resolve(tag, value)
    if rtag == _BINARY_TAG or (tag == _BINARY_TAG):
        try:
            raw = base64.b64decode(value.replace("\n", "").replace("\r", ""), validate=True)
        except (binascii.Error, ValueError):
            raise YAMLError("yaml: !!binary value contains invalid base64 data") from None
        return _go_replace_invalid(raw)
    return out


class _Decoder:
    """Iterative port of go-yaml's decoder for ``interface{}`` targets.

    ``json_numbers`` applies the encoding/json round trip to numbers (see _json_number);
    without it, values keep their go-yaml types (int/uint64/float).
    """

    def __init__(self, strict: bool, json_numbers: bool) -> None:
        self.strict = strict
        self.json_numbers = json_numbers
        self.count = 0
        self.alias_count = 0
        self.alias_depth = 0
        self.errors: list[str] = []
        self.pending: YAMLError | None = None
        self.typed_keys: dict[int, set] = {}

    def _tick(self) -> None:
        self.count += 1
        if self.alias_depth:
            self.alias_count += 1
            if (self.alias_count > 100 and self.count > 1000
                    and self.alias_count / self.count > _allowed_alias_ratio(self.count)):
                raise YAMLError("yaml: document contains excessive aliasing")

    def _convert_key(self, key: Any, value: Any) -> Any:
        if isinstance(key, str):
            return key
        if isinstance(key, bool):
            return "true" if key else "false"
        if isinstance(key, int) and key <= _INT64_MAX:
            return str(key)
        if isinstance(key, float):
            return _go_format_g(key, 32)
        if self.pending is None:
            self.pending = YAMLError(
                f"unsupported map key of type: {_go_type_name(key)}, key: {_go_sharp_v(key)}, value: {_go_sharp_v(value)}"
            )
        return None

    def decode(self, root: list) -> Any:
        """The value of the document node ``root``, without recursion: each container is a
        frame on a stack, ``[kind, node, out, index, phase, key, alias_nodes_entered]``."""
        self.count = 1  # the document node
        stack: list[list] = []
        in_alias: set[int] = set()
        done, value = self._start(root, None, False, stack, in_alias)
        if done:
            return value
        while stack:
            fr = stack[-1]
            kind = fr[0]
            if kind == _K_SEQ:
                if done:
                    fr[2].append(value)
                children = fr[1][2]
                i = fr[3]
                if i < len(children):
                    fr[3] = i + 1
                    done, value = self._start(children[i], None, False, stack, in_alias)
                    continue
                stack.pop()
                done, value = True, fr[2]
            elif kind == _K_ALIAS:
                stack.pop()
                in_alias.discard(id(fr[1]))
                self.alias_depth -= 1
                # (done, value) pass through
            elif kind == _K_MERGESEQ:
                i = fr[3] - 1
                if i < 0:
                    stack.pop()
                    done, value = True, fr[2]
                    continue
                fr[3] = i
                child = fr[1][2][i]
                _check_merge_item(child)
                done, value = self._start(child, fr[2], False, stack, in_alias)
            else:
                done, value = self._map_step(fr, value, stack, in_alias)
        if self.pending is not None:
            raise self.pending
        return value

    def _start(self, node: list, into: dict | None, is_key: bool, stack: list[list],
               in_alias: set[int]) -> tuple[bool, Any]:
        """Begin decoding ``node``: ``(True, value)`` for a scalar, else a frame is pushed
        and ``(False, None)`` returned (aliases push a frame and go on to their target)."""
        while True:
            self._tick()
            kind = node[0]
            if kind == _K_SCALAR:
                v = _scalar_value(node)
                # Keys are stringified from their go-yaml type, never JSON-tripped.
                if self.json_numbers and not is_key and (type(v) is int or type(v) is float):
                    try:
                        v = _json_number(v)
                    except YAMLError as err:
                        if self.pending is None:
                            self.pending = err
                return True, v
            if kind == _K_ALIAS:
                if id(node) in in_alias:
                    raise YAMLError(f"yaml: anchor '{node[3]}' value contains itself")
                in_alias.add(id(node))
                self.alias_depth += 1
                stack.append([_K_ALIAS, node])
                node = node[2]
                continue
            if kind == _K_SEQ:
                stack.append([_K_SEQ, node, [], 0])
                return False, None
            out = into if into is not None else {}
            stack.append([_K_MAP, node, out, 0, 0, None, None])
            return False, None

    def _map_step(self, fr: list, value: Any, stack: list[list], in_alias: set[int]) -> tuple[bool, Any]:
        """One step of a mapping frame ``[_K_MAP, node, out, index, phase, key, keynode]``:
        store what was decoded (phase 1: a key, 2: its value, 3: a merge finished), then
        start the next key, or a ``<<`` merge, or finish the mapping."""
        out = fr[2]
        phase = fr[4]
        if phase == 1:  # key decoded
            if isinstance(value, (dict, list)):
                raise YAMLError(f"yaml: invalid map key: {_go_sharp_v(value)}")
            fr[5] = value
            fr[4] = 2
            return self._start(fr[1][2][fr[3] + 1], None, False, stack, in_alias)
        if phase == 2:  # value decoded
            vnode = fr[1][2][fr[3] + 1]
            self._set(out, fr[5], value, vnode)
            fr[3] += 2
            fr[4] = 0
        elif phase == 3:  # merge finished
            fr[3] += 2
            fr[4] = 0
        children = fr[1][2]
        i = fr[3]
        if i >= len(children):
            stack.pop()
            return True, out
        knode = children[i]
        if knode[0] == _K_SCALAR and knode[2] == "<<" and (knode[4] or knode[3] == _MERGE_TAG):
            fr[4] = 3
            vnode = children[i + 1]
            vk = vnode[0]
            if vk == _K_MAP:
                return self._start(vnode, out, False, stack, in_alias)
            if vk == _K_ALIAS:
                if vnode[2][0] != _K_MAP:
                    raise YAMLError("yaml: map merge requires map or sequence of maps as the value")
                return self._start(vnode, out, False, stack, in_alias)
            if vk == _K_SEQ:
                stack.append([_K_MERGESEQ, vnode, out, len(vnode[2])])
                return False, None
            raise YAMLError("yaml: map merge requires map or sequence of maps as the value")
        fr[4] = 1
        return self._start(knode, None, True, stack, in_alias)

    def _set(self, out: dict, key: Any, value: Any, vnode: list) -> None:
        if self.strict:
            typed = self.typed_keys.setdefault(id(out), set())
            tk = (type(key), key)
            if tk in typed:
                self.errors.append(f"line {vnode[1] + 1}: key {_go_sharp_v(key)} already set in map")
            typed.add(tk)
        skey = self._convert_key(key, value)
        if skey is not None:
            out[skey] = value


_K_MERGESEQ = 4


def _check_merge_item(node: list) -> None:
    if node[0] == _K_ALIAS:
        if node[2][0] != _K_MAP:
            raise YAMLError("yaml: map merge requires map or sequence of maps as the value")
    elif node[0] != _K_MAP:
        raise YAMLError("yaml: map merge requires map or sequence of maps as the value")


def _as_bytes(data: Any) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8")
    return bytes(data)


def yaml_to_value(data: bytes, *, strict: bool = False, json_numbers: bool = True) -> tuple[Any, list[str]]:
    """Decode the first YAML document of ``data``; return ``(value, strict_errors)``.

    ``strict_errors`` lists go-yaml's strict complaints (``line 2: key "value" already set
    in map``); it is always empty unless ``strict``. The value is the non-strict one (last
    duplicate wins). With ``json_numbers=False`` numbers keep their go-yaml types (int,
    uint64 as a large int, float) instead of going through the JSON number round trip.
    Raises :class:`YAMLError` (a DecodeError) for malformed input.
    """
    root = _parse_first_document(_as_bytes(data))
    if root is None:
        return None, []
    dec = _Decoder(strict, json_numbers)
    value = dec.decode(root)
    return value, dec.errors


def format_strict_errors(errors: list[str]) -> str:
    """go-yaml's aggregate text for strict errors: ``yaml: unmarshal errors:\\n  line 2: ...``."""
    return "yaml: unmarshal errors:\n  " + "\n  ".join(errors)


def yaml_to_tree(data: bytes, *, strict: bool = False) -> Any:
    """sigs.k8s.io/yaml YAMLToJSON followed by Go's untyped JSON decode (Go: sigs.k8s.io/yaml/yaml.go (YAMLToJSON)).

    Only the first document is read; an empty stream or empty document gives ``None``.
    Non-strict: returns the tree. Strict: returns ``(tree, errors)`` where ``errors`` is
    ``[]`` or a one-element list holding Go's whole strict message
    (``yaml: unmarshal errors:\\n  line 2: key "value" already set in map``), which is how
    YAMLToJSONStrict reports duplicates; the tree is still the non-strict (last wins) one.
    Raises :class:`YAMLError` (a :class:`kcodec.errors.DecodeError`) on bad input.
    """
    value, errors = yaml_to_value(data, strict=strict)
    if strict:
        return value, ([format_strict_errors(errors)] if errors else [])
    return value


def yaml_to_json(data: bytes, *, strict: bool = False) -> tuple[bytes, list[str]]:
    """sigs.k8s.io/yaml YAMLToJSON: the JSON text, and the strict errors as :func:`yaml_to_tree`.

    The text is json.Marshal of go-yaml's values, so a uint64 keeps its digits
    (``9223372036854775808``) where the decoded tree holds a float64; the serializers read
    this text, as Go does.
    """
    value, errors = yaml_to_value(data, strict=strict, json_numbers=False)
    try:
        text = _gojson_dumps(value, sort_keys=True)
    except EncodeError as err:
        raise YAMLError(str(err)) from None
    return text, ([format_strict_errors(errors)] if errors else [])


# ---------------------------------------------------------------------------------------------
# JSON text -> the value go-yaml makes of it (sigs.k8s.io/yaml JSONToYAML's first step)

# What sends json.Marshal's text through the go-yaml reader instead of the JSON parser:
# integer literals of 19+ digits (go-yaml keeps uint64, the JSON parser makes float64s of
# values past int64), characters go-yaml's reader refuses (readerc.go: DEL, C1 controls
# but NEL, U+FFFE/U+FFFF), NEL itself (a YAML 1.1 line break that json.Marshal writes raw:
# go-yaml folds it to a space in a double-quoted scalar, and a key cannot hold it), and
# escapes a raw JSON value may hold that go-yaml's scanner lacks (scannerc.go: ``\/``) or
# refuses (a surrogate ``\uD800``). False positives only cost the slower exact reader.
_GOYAML_READ_RE = re.compile(rb"[0-9]{19}|\x7f|\xc2[\x80-\x9f]|\xef\xbf[\xbe\xbf]|\\/|\\u[dD][89a-fA-F]")


def json_to_yaml_value(data: bytes) -> Any:
    """The value go-yaml v2's Unmarshal makes of the JSON text ``data`` (json.Marshal's
    output), which sigs.k8s.io/yaml's JSONToYAML then marshals (Go: sigs.k8s.io/yaml/yaml.go).

    Equal to the JSON parse for the texts json.Marshal writes from typed objects; where
    go-yaml reads the text differently (an integer past int64 stays a uint64) or fails
    (``yaml: control characters are not allowed``, ``yaml: invalid trailing UTF-8 octet``,
    ``yaml: found unknown escape character``...), so does this, with EncodeError and
    go-yaml's text: Go's yaml.Marshal returns that error instead of writing.
    """
    suspect = _GOYAML_READ_RE.search(data) is not None
    if not suspect and not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            suspect = True
    if not suspect:
        try:
            return _gojson_loads(data)
        except DecodeError:
            # Nesting past encoding/json's 10000 levels: go-yaml has its own limit and text
            # (scannerc.go, "exceeded max depth of 10000"), which the exact reader gives.
            pass
    try:
        value, _ = yaml_to_value(data, json_numbers=False)
    except DecodeError as err:
        raise EncodeError(str(err)) from None
    return value


# ---------------------------------------------------------------------------------------------
# Tree -> YAML (go-yaml v2 Marshal of the JSON-decoded value; emitterc.go for output rules)

_BEST_WIDTH = 80
_BREAKS = "\r\n\x85\u2028\u2029"


def _printable(o: int) -> bool:
    return (o == 0x0A or 0x20 <= o <= 0x7E or 0xA0 <= o <= 0xD7FF
            or (0xE000 <= o <= 0xFFFD and o != 0xFEFF))


_FAST_PLAIN_RE = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./\-]*\Z")


def _analyze(s: str) -> tuple[bool, bool, bool, bool]:
    """yaml_emitter_analyze_scalar: (multiline, block_plain_allowed, single_quoted_allowed, block_allowed)."""
    n = len(s)
    if n == 0:
        return False, True, True, False
    if _FAST_PLAIN_RE.match(s) and not s.startswith("..."):
        return False, True, True, True
    block_ind = s.startswith("---") or s.startswith("...")
    leading_space = leading_break = trailing_space = trailing_break = False
    break_space = space_break = special = line_breaks = False
    preceded_ws = True
    prev_space = prev_break = False
    last = n - 1
    for i, c in enumerate(s):
        followed_ws = i == last or s[i + 1] in " \t"
        if i == 0:
            if c in "#,[]{}&*!|>'\"%@`":
                block_ind = True
            elif c in "?:-":
                if followed_ws:
                    block_ind = True
        elif c == ":":
            if followed_ws:
                block_ind = True
        elif c == "#":
            if preceded_ws:
                block_ind = True
        if not _printable(ord(c)):
            special = True
        if c == " ":
            if i == 0:
                leading_space = True
            if i == last:
                trailing_space = True
            if prev_break:
                break_space = True
            prev_space, prev_break = True, False
        elif c in _BREAKS:
            line_breaks = True
            if i == 0:
                leading_break = True
            if i == last:
                trailing_break = True
            if prev_space:
                space_break = True
            prev_space, prev_break = False, True
        else:
            prev_space = prev_break = False
        preceded_ws = c in " \t\r\n\x85\u2028\u2029\x00"
    block_plain = not (leading_space or leading_break or trailing_space or trailing_break
                       or break_space or space_break or special or line_breaks or block_ind)
    single = not (break_space or space_break or special)
    block = not (trailing_space or space_break or special)
    return line_breaks, block_plain, single, block


_DQ_SPECIAL = {
    0x00: "\\0", 0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f",
    0x0D: "\\r", 0x1B: "\\e", 0x22: '\\"', 0x5C: "\\\\", 0x85: "\\N", 0xA0: "\\_",
    0x2028: "\\L", 0x2029: "\\P",
}


def _dq_escape(o: int) -> str:
    e = _DQ_SPECIAL.get(o)
    if e is not None:
        return e
    if o <= 0xFF:
        return "\\x%02X" % o
    if o <= 0xFFFF:
        return "\\u%04X" % o
    return "\\U%08X" % o


class _Emitter:
    """The parts of go-yaml's emitter state that block-style JSON values exercise."""

    __slots__ = ("out", "column", "whitespace", "indention", "indent", "indents")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.column = 0
        self.whitespace = True
        self.indention = True
        self.indent = -1
        self.indents: list[int] = []

    def write_indent(self) -> None:
        indent = self.indent if self.indent > 0 else 0
        col = self.column
        if not self.indention or col > indent or (col == indent and not self.whitespace):
            self.out.append("\n")
            col = 0
        if col < indent:
            self.out.append(" " * (indent - col))
            col = indent
        self.column = col
        self.whitespace = True
        self.indention = True

    def write_indicator(self, ind: str, need_ws: bool, is_ws: bool, is_indention: bool) -> None:
        if need_ws and not self.whitespace:
            self.out.append(" ")
            self.column += 1
        self.out.append(ind)
        self.column += len(ind)
        self.whitespace = is_ws
        self.indention = self.indention and is_indention

    # -- scalars ------------------------------------------------------------------------------

    def scalar(self, text: str, style: int, simple_key: bool) -> None:
        # yaml_emitter_emit_scalar: the scalar body is indented one level deeper.
        self.indents.append(self.indent)
        self.indent = 2 if self.indent < 0 else self.indent + 2
        allow_breaks = not simple_key
        if style == _PLAIN:
            self.plain(text, allow_breaks)
        elif style == _DOUBLE:
            self.double(text, allow_breaks)
        elif style == _SINGLE:
            self.single(text, allow_breaks)
        else:
            self.literal(text)
        self.indent = self.indents.pop()

    def plain(self, s: str, allow_breaks: bool) -> None:
        out = self.out
        if not self.whitespace:
            out.append(" ")
            self.column += 1
        if not allow_breaks or " " not in s or self.column + len(s) <= _BEST_WIDTH + 1:
            out.append(s)
            self.column += len(s)
        else:
            # Fold at a single space once the line is past best_width (plain scalars never
            # contain line breaks here: those strings are never plain).
            spaces = False
            n = len(s)
            i = 0
            while i < n:
                c = s[i]
                if c == " ":
                    if not spaces and self.column > _BEST_WIDTH and i + 1 < n and s[i + 1] != " ":
                        self.write_indent()
                    else:
                        out.append(" ")
                        self.column += 1
                    spaces = True
                else:
                    out.append(c)
                    self.column += 1
                    self.indention = False
                    spaces = False
                i += 1
        self.whitespace = False
        self.indention = False

    def single(self, s: str, allow_breaks: bool) -> None:
        self.write_indicator("'", True, False, False)
        out = self.out
        spaces = breaks = False
        n = len(s)
        for i, c in enumerate(s):
            if c == " ":
                if (allow_breaks and not spaces and self.column > _BEST_WIDTH and 0 < i < n - 1
                        and s[i + 1] != " "):
                    self.write_indent()
                else:
                    out.append(c)
                    self.column += 1
                spaces = True
            elif c in _BREAKS:
                if not breaks and c == "\n":
                    out.append("\n")
                out.append(c)
                self.column = 0
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                if c == "'":
                    out.append("'")
                    self.column += 1
                out.append(c)
                self.column += 1
                self.indention = False
                spaces = breaks = False
        self.write_indicator("'", False, False, False)
        self.whitespace = False
        self.indention = False

    def double(self, s: str, allow_breaks: bool) -> None:
        self.write_indicator('"', True, False, False)
        out = self.out
        spaces = False
        n = len(s)
        bom = s.startswith("\ufeff")  # go-yaml's is_bom looks at the start of the value
        for i, c in enumerate(s):
            o = ord(c)
            if bom or not _printable(o) or c in _BREAKS or c == '"' or c == "\\":
                e = _dq_escape(o)
                out.append(e)
                self.column += len(e)
                spaces = False
            elif c == " ":
                if allow_breaks and not spaces and self.column > _BEST_WIDTH and 0 < i < n - 1:
                    self.write_indent()
                    if s[i + 1] == " ":
                        out.append("\\")
                        self.column += 1
                else:
                    out.append(" ")
                    self.column += 1
                spaces = True
            else:
                out.append(c)
                self.column += 1
                spaces = False
        self.write_indicator('"', False, False, False)
        self.whitespace = False
        self.indention = False

    def literal(self, s: str) -> None:
        self.write_indicator("|", True, False, False)
        if s[0] == " " or s[0] in _BREAKS:
            self.write_indicator("2", False, False, False)
        last = s[-1]
        if last not in _BREAKS:
            self.write_indicator("-", False, False, False)
        elif len(s) == 1 or s[-2] in _BREAKS:
            self.write_indicator("+", False, False, False)
        out = self.out
        out.append("\n")
        self.column = 0
        self.indention = True
        self.whitespace = True
        breaks = True
        for c in s:
            if c in _BREAKS:
                out.append(c)
                self.column = 0
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                out.append(c)
                self.column += 1
                self.indention = False
                breaks = False


_PLAIN, _SINGLE, _DOUBLE, _LITERAL = 0, 1, 2, 3


def _string_style(s: str, simple_key: bool) -> int:
    """encoder.stringv's requested style, then yaml_emitter_select_scalar_style's downgrades."""
    if "\n" in s:
        multiline, _, _, block = _analyze(s)
        if simple_key or not block:
            return _DOUBLE
        return _LITERAL
    if not _plain_is_string(s):
        return _DOUBLE
    multiline, block_plain, single, _ = _analyze(s)
    if simple_key and multiline:
        return _DOUBLE
    if block_plain:
        return _PLAIN
    return _SINGLE if single else _DOUBLE


def _is_letter(c: str) -> bool:
    return c.isalpha()


def _wrap64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= (1 << 63) else v


def _key_less(a: str, b: str) -> bool:
    """go-yaml's keyList.Less for two string keys (letters after non-letters, digit runs numeric)."""
    la, lb = len(a), len(b)
    for i in range(min(la, lb)):
        ca, cb = a[i], b[i]
        if ca == cb:
            continue
        al, bl = ca.isalpha(), cb.isalpha()
        if al and bl:
            return ca < cb
        if al or bl:
            return bl
        an = bn = 0
        if ca == "0" or cb == "0":
            j = i - 1
            while j >= 0 and a[j].isdecimal():
                if a[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < la and a[ai].isdecimal():
            an = _wrap64(an * 10 + (ord(a[ai]) - 48))
            ai += 1
        bi = i
        while bi < lb and b[bi].isdecimal():
            bn = _wrap64(bn * 10 + (ord(b[bi]) - 48))
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ca < cb
    return la < lb


def _key_cmp(a: str, b: str) -> int:
    if _key_less(a, b):
        return -1
    if _key_less(b, a):
        return 1
    return 0


_KEY_SORT = cmp_to_key(_key_cmp)


def _sorted_keys(d: dict) -> list[str]:
    keys = list(d)
    if all(k.isalpha() for k in keys):
        keys.sort()  # for pure-letter keys go-yaml's order is plain rune order
    else:
        keys.sort(key=_KEY_SORT)
    return keys


def _clean_str(s: str) -> str:
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        # Lone surrogates cannot be in a Go string: encoding/json writes U+FFFD for them.
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


def _scalar_text(v: Any) -> str | None:
    """Plain text of a non-string scalar as go-yaml writes it after the JSON trip, else None."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    t = type(v)
    if t is int or (isinstance(v, int) and not isinstance(v, bool)):
        v = int(v)
        if _INT64_MIN <= v <= _UINT64_MAX:
            return str(v)
        try:
            return _go_format_g(float(v))
        except OverflowError:
            return str(v)  # too big for ParseFloat: go-yaml keeps the digits as a string
    if t is float or isinstance(v, float):
        v = float(v)
        if math.isnan(v) or math.isinf(v):
            raise EncodeError(f"json: unsupported value: {'NaN' if math.isnan(v) else ('+Inf' if v > 0 else '-Inf')}")
        if v.is_integer() and -1e21 < v < 1e21:
            iv = int(v)
            if _INT64_MIN <= iv <= _UINT64_MAX:
                return str(iv)
        return _go_format_g(v)
    return None


def _normalize(v: Any) -> Any:
    """Expand RawJSON leaves (JSON text the Go encoder would embed verbatim)."""
    data = getattr(v, "data", None)
    if isinstance(data, (bytes, bytearray)) and type(v).__name__ == "RawJSON":
        try:
            return _stdjson.loads(_go_replace_invalid(bytes(data)))
        except ValueError as err:
            raise EncodeError(f"json: error calling MarshalJSON: {err}") from None
    return v


_BREAKS_RE = re.compile("[\r\n\x85\u2028\u2029]")
_KEY_CACHE: dict[str, str | None] = {}


def _simple_key_text(k: str) -> str | None:
    """Rendered ``key:`` for a key go-yaml writes as a simple key, else None.

    A simple key is emitted with line folding disabled right after an indent, so its text
    does not depend on the emitter state and can be cached.
    """
    if len(k) > 170 and len(_json_quoted(k)) > 1024:
        # JSONToYAML reads json.Marshal's text with go-yaml first: a flow mapping key whose
        # ':' comes more than 1024 characters after its start is no simple key
        # (scannerc.go, yaml_simple_key_is_valid), and the parser then misses the ','
        # (parserc.go, yaml_parser_parse_flow_mapping_key).
        raise EncodeError("yaml: did not find expected ',' or '}'")
    text = _KEY_CACHE.get(k)
    if text is not None or k in _KEY_CACHE:
        return text
    # yaml_emitter_check_simple_key: at most 128 bytes and no line break.
    if len(k) > 128 or len(k.encode("utf-8")) > 128 or _BREAKS_RE.search(k):
        text = None
    else:
        em = _Emitter()
        em.scalar(k, _string_style(k, True), True)
        text = "".join(em.out) + ":"
    if len(_KEY_CACHE) > 4096:
        _KEY_CACHE.clear()
    _KEY_CACHE[k] = text
    return text


def tree_to_yaml(tree: Any) -> bytes:
    """go-yaml v2 Marshal of a JSON tree, as sigs.k8s.io/yaml's JSONToYAML produces it (Go: sigs.k8s.io/yaml/yaml.go (JSONToYAML)).

    Keys sorted the go-yaml way, 2-space indent, block sequences at their key's indent,
    ambiguous strings double-quoted, multi-line strings as ``|`` literals, long plain and
    quoted strings folded past column 80, ``{}``/``[]`` for empty collections, trailing
    newline. Raises :class:`kcodec.errors.EncodeError` for NaN/Inf or unsupported values.
    """
    em = _Emitter()
    fast_plain = _FAST_PLAIN_RE.match
    hint_chars = _HINT_CHARS
    # Frames of the open blocks (see _open_block): [is_map, items, index]. Iterative, so
    # nesting depth costs no Python frames.
    stack: list[list] = []

    def node(v: Any, mapping_ctx: bool) -> None:
        """Emit a scalar or an empty collection now; push a frame for a non-empty one."""
        if type(v) is str:
            if v and fast_plain(v) and v[0] not in hint_chars and not v.startswith("..."):
                # Plain, space-free and unambiguous: written as is, never folded.
                _write_word(em, v)
                return
            s = _clean_str(v)
            em.scalar(s, _string_style(s, False), False)
            return
        if isinstance(v, (dict, list, tuple)):
            frame = _open_block(em, v, mapping_ctx)
            if frame is not None:
                stack.append(frame)
            return
        if isinstance(v, str):
            node(str(v), mapping_ctx)
            return
        text = _scalar_text(v)
        if text is None:
            nv = _normalize(v)
            if nv is v:
                raise EncodeError(f"json: unsupported type: {type(v).__name__}")
            node(nv, mapping_ctx)
            return
        _write_word(em, text)

    node(tree, False)
    while stack:
        fr = stack[-1]
        items = fr[1]
        i = fr[2]
        if i >= len(items):
            stack.pop()
            em.indent = em.indents.pop()
            continue
        fr[2] = i + 1
        em.write_indent()
        if fr[0]:
            k, v = items[i]
            _write_key(em, k)
            node(v, True)
        else:
            em.write_indicator("-", True, False, True)
            node(items[i], False)
    em.write_indent()
    return "".join(em.out).encode("utf-8")


def _write_word(em: _Emitter, text: str) -> None:
    """Write a scalar's final text, after a space unless one precedes (yaml_emitter_write_plain_scalar
    for text that is never folded)."""
    if not em.whitespace:
        em.out.append(" ")
        em.column += 1
    em.out.append(text)
    em.column += len(text)
    em.whitespace = False
    em.indention = False


def _open_block(em: _Emitter, v: Any, mapping_ctx: bool) -> list | None:
    """Start dict, list or tuple ``v`` for :func:`tree_to_yaml`: an empty one is written as
    ``{}``/``[]`` now (None); a non-empty one opens a block and answers its frame
    ``[is_map, items, 0]``. A mapping is one level deeper (0 at the root), as
    yaml_emitter_emit_block_mapping_key on its first key; a sequence that is a mapping
    value starts on the key's own indent."""
    if isinstance(v, dict):
        if not v:
            em.write_indicator("{", True, True, False)
            em.write_indicator("}", False, False, False)
            return None
        em.indents.append(em.indent)
        em.indent = 0 if em.indent < 0 else em.indent + 2
        return [True, [(k, v[k]) for k in _sorted_keys(v)], 0]
    if not v:
        em.write_indicator("[", True, True, False)
        em.write_indicator("]", False, False, False)
        return None
    indentless = mapping_ctx and not em.indention
    em.indents.append(em.indent)
    if em.indent < 0:
        em.indent = 0
    elif not indentless:
        em.indent += 2
    return [False, v, 0]


def _write_key(em: _Emitter, k: Any) -> None:
    """A mapping key: ``key:`` when it can be a simple key, else the explicit ``? key`` /
    ``:`` form go-yaml uses for long or multi-line keys."""
    if type(k) is not str:
        if not isinstance(k, str):
            raise EncodeError(f"json: unsupported map key type {type(k).__name__}")
        k = str(k)
    k = _clean_str(k)
    text = _simple_key_text(k)
    if text is not None:
        em.out.append(text)
        em.column += len(text)
        em.whitespace = False
        em.indention = False
        return
    em.write_indicator("?", True, False, True)
    em.scalar(k, _string_style(k, False), False)
    em.write_indent()
    em.write_indicator(":", True, False, True)


# ---------------------------------------------------------------------------------------------
# Rules shared by the twins of the block-style YAML fast path (kcodec/_native/yaml.py and
# kcodec/_speedups/_yaml.pyx): kept here, with the rules they apply, so that each twin
# imports them from below and the compiled one needs no pure twin for an ordinary document.

# Deeper documents are legal, but the libyaml route is the one that knows go-yaml's limit.
BLOCK_MAX_DEPTH = 200
# libyaml forgets a simple key more than 1024 characters before its ':'.
BLOCK_MAX_KEY = 1000


class BlockFallback(Exception):
    """The document holds something the block fast path does not read; libyaml decides."""


def block_resolve_plain(text: str) -> Any:
    """The JSON-tree value of a plain scalar: go-yaml's resolve() and the JSON number trip."""
    tag, v = _resolve_implicit("", text)
    t = type(v)
    if t is int or t is float:
        if t is int and not _INT64_MIN <= v <= _INT64_MAX:
            # go-yaml's uint64: yaml_to_json keeps its digits, which a tree's float cannot
            raise BlockFallback
        try:
            return _json_number(v)
        except YAMLError:
            raise BlockFallback from None  # NaN/Inf: the libyaml route raises Go's text
    return v


def block_plain_key(text: str) -> str:
    """A plain mapping key as the fast path keeps it; BlockFallback for a key that could
    resolve to a non-string (or a merge key): goyaml's rules stringify those."""
    if text[0] in _HINT_CHARS:
        if _resolve_implicit("", text)[0] != _STR_TAG:
            raise BlockFallback  # bool/int/float/null keys are stringified by rules kept in goyaml
    elif text == "<<":
        raise BlockFallback  # merge key
    return text


def _emitter_at(column: int, whitespace: bool, indention: bool, indent: int) -> _Emitter:
    """An emitter in the state the compiled writer reached (see :func:`emit_scalar`)."""
    em = _Emitter()
    em.column = column
    em.whitespace = whitespace
    em.indention = indention
    em.indent = indent
    return em


def emit_scalar(value: str, column: int, whitespace: bool, indention: bool,
                indent: int) -> tuple[str, int, bool, bool]:
    """A string value as ``tree_to_yaml`` writes it from this emitter state: (text, column,
    whitespace, indention) after it. The compiled writer asks for every string whose form
    depends on quoting or line folding, so those rules stay in ``kcodec.goyaml`` alone."""
    em = _emitter_at(column, whitespace, indention, indent)
    value = _clean_str(value)
    em.scalar(value, _string_style(value, False), False)
    return "".join(em.out), em.column, em.whitespace, em.indention


def emit_complex_key(key: str, column: int, whitespace: bool, indention: bool,
                     indent: int) -> tuple[str, int, bool, bool]:
    """The explicit ``? key`` / ``:`` form ``tree_to_yaml`` uses for long or multi-line keys."""
    em = _emitter_at(column, whitespace, indention, indent)
    em.write_indicator("?", True, False, True)
    em.scalar(key, _string_style(key, False), False)
    em.write_indent()
    em.write_indicator(":", True, False, True)
    return "".join(em.out), em.column, em.whitespace, em.indention
