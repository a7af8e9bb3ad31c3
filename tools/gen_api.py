#!/usr/bin/env python3
"""Generate kcodec.api.<package>.<version> modules from the Go sources of k8s.io/api.

Usage::

    python tools/gen_api.py --api /path/to/k8s.io/api --apimachinery /path/to/apimachinery \
        [--out kcodec/api]

The Go type declarations are read with a small purpose-built parser (Go is not needed).
Output is deterministic: the same sources always give byte-identical files.
See docs/generating.md.
"""
from __future__ import annotations

import argparse
import json
import keyword
import os
import re
import sys
from dataclasses import dataclass, field as dc_field
from pathlib import Path
from typing import Any

API_VERSION_TAG = "v0.36.3"
API_COMMIT = "3fde3c43c3cf3447606b9c2ac2c6257095444387"
APIMACHINERY_COMMIT = "40bf4b2b62f8838b9b37de7b407793f1f17ee225"

META_PKG = "k8s.io/apimachinery/pkg/apis/meta/v1"
API_PREFIX = "k8s.io/api/"
RUNTIME_PKG = "k8s.io/apimachinery/pkg/runtime"

# meta/v1 names that are not generated as ordinary structs: the wire-special values live in
# kcodec.api.meta._values, TypeMeta is provided by kcodec.runtime.Object, Timestamp is the
# protobuf form of Time, GroupVersion has a string JSON form, InternalEvent is written by hand.
META_CUSTOM_VALUES = ("Time", "MicroTime", "Duration", "FieldsV1")
META_SKIPPED = {"TypeMeta", "Timestamp", "GroupVersion", "InternalEvent"}

# Types of other apimachinery packages, mapped to (python name, import line).
EXTERNAL_TYPES: dict[tuple[str, str], tuple[str, str]] = {
    (RUNTIME_PKG, "RawExtension"): ("RawExtension", "from kcodec.runtime import RawExtension"),
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"):
        ("IntOrString", "from kcodec.types import IntOrString"),
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"):
        ("Quantity", "from kcodec.types import Quantity"),
}
# Fields whose constructor and setter accept more than the field holds (an IntOrString takes
# an int or a str, a Quantity a str or an int): annotated with kcodec.types' names, which
# type checkers read as "read as X, set from the wider type" (kcodec.types.Settable).
SETTABLE_FIELDS: dict[tuple[str, str], str] = {
    ("IntOrString", "value"): "IntOrStringField",
    ("IntOrString", "ptr"): "OptionalIntOrString",
    ("Quantity", "value"): "QuantityField",
    ("Quantity", "ptr"): "OptionalQuantity",
    ("Quantity", "map"): "ResourceList",
}
EXTERNAL_STRINGS = {("k8s.io/apimachinery/pkg/types", "UID"),
                    ("k8s.io/apimachinery/pkg/types", "NodeName")}

# API groups kept outside k8s.io/api, each in a repository of its own: (flag, environment
# variable, module, tag, commit, directory of the internal package). Their versioned packages
# are the directories below it that have a register.go; the internal package itself is
# generated too (as `<package>/internal.py`), since upstream keeps it in the same repository.
EXTRA_SOURCES = (
    ("apiextensions", "KCODEC_UPSTREAM_APIEXTENSIONS", "k8s.io/apiextensions-apiserver", "v0.36.3",
     "2e78d6fca8b214fd93118268eb9d36255d79738f", "pkg/apis/apiextensions"),
    ("kube-aggregator", "KCODEC_UPSTREAM_KUBE_AGGREGATOR", "k8s.io/kube-aggregator", "v0.36.2",
     "af2b349648d5bbb78b2d42ec95a6b19ae4231401", "pkg/apis/apiregistration"),
)
INTERNAL_VERSION = "__internal"

# Struct types whose JSON form upstream writes by hand (a marshal.go with MarshalJSON and
# UnmarshalJSON): their classes subclass kcodec.api.<package>._values, which holds the
# hand-written wire forms. Any other MarshalJSON met in a package stops the generator.
HAND_MARSHALLED = {
    "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1":
        ("JSON", "JSONSchemaPropsOrArray", "JSONSchemaPropsOrBool", "JSONSchemaPropsOrStringArray"),
    "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1":
        ("JSON", "JSONSchemaPropsOrArray", "JSONSchemaPropsOrBool", "JSONSchemaPropsOrStringArray"),
}

# Go's predeclared types as reflect.Type.String() prints them (byte is uint8).
GO_BUILTIN_NAMES = {n: n for n in ("string", "bool", "int", "int8", "int16", "int32", "int64",
                                   "uint", "uint16", "uint32", "uint64", "float32", "float64",
                                   "uint8")}
GO_BUILTIN_NAMES["byte"] = "uint8"
GO_BUILTIN_NAMES["rune"] = "int32"

# The Go names kcodec's own value classes report (their classes' __go_name__).
EXTERNAL_GO_NAMES = {"RawExtension": "runtime.RawExtension", "IntOrString": "intstr.IntOrString",
                     "Quantity": "resource.Quantity"}

PRIMITIVES = {
    "string": "str", "bool": "bool", "int32": "Int32", "int64": "Int64", "int": "Int64",
    "float64": "float",
}


class GenError(Exception):
    """The Go source uses a construct the generator does not know how to map."""


# --------------------------------------------------------------------------- tokenizer

_TOKEN_RE = re.compile(
    r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f]+)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<rune>'(?:[^'\\\n]|\\.)+')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>[0-9][0-9A-Za-z_.]*)
  | (?P<op>\.\.\.|:=|<-|&&|\|\||==|!=|<=|>=|[-+*/%&|^<>=!(){}\[\],;:.~])
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass
class Tok:
    """One Go token."""

    kind: str  # nl, comment, raw, str, ident, num, op
    text: str


def tokenize(src: str, filename: str) -> list[Tok]:
    """Split Go source into tokens; block comments become newlines when they span lines."""
    out: list[Tok] = []
    pos = 0
    n = len(src)
    while pos < n:
        m = _TOKEN_RE.match(src, pos)
        if m is None:
            raise GenError(f"{filename}: cannot tokenize at offset {pos}: {src[pos:pos + 20]!r}")
        kind = m.lastgroup
        text = m.group()
        pos = m.end()
        if kind == "ws":
            continue
        if kind == "bcomment":
            if "\n" in text:
                out.append(Tok("nl", "\n"))
            continue
        if kind == "lcomment":
            out.append(Tok("comment", text))
            continue
        if kind in ("str", "rune"):
            kind = "str"
        out.append(Tok(kind, text))
    return out


# --------------------------------------------------------------------------- Go type model

@dataclass
class GoType:
    """A Go type expression: kind in ident, ptr, slice, array, map, struct, iface."""

    kind: str
    pkg: str = ""          # import alias for qualified idents ("" = local)
    name: str = ""
    elem: GoType | None = None
    key: GoType | None = None
    fields: list[GoField] | None = None


@dataclass
class GoField:
    """One field of a Go struct type."""

    name: str              # Go field name ("" for embedded: use type name)
    type: GoType
    tag: str
    embedded: bool
    markers: tuple[str, ...] = ()  # `+name=value` comment markers of the field's doc comment
    doc: tuple[str, ...] = ()      # the doc comment's lines, as go/ast's CommentGroup.Text gives them


@dataclass
class GoDecl:
    """A top-level Go type declaration with the comment markers (`+k8s:...`) above it."""

    name: str
    type: GoType
    alias: bool
    markers: list[str]
    file: str
    index: int


@dataclass
class GoPackage:
    """One parsed Go package: its declarations, per-file imports and protobuf messages."""

    path: str
    directory: Path
    imports: dict[str, str] = dc_field(default_factory=dict)   # per-file merged: alias -> path
    decls: dict[str, GoDecl] = dc_field(default_factory=dict)
    file_imports: dict[str, dict[str, str]] = dc_field(default_factory=dict)
    proto_messages: set[str] = dc_field(default_factory=set)
    marshallers: set[str] = dc_field(default_factory=set)  # types with a MarshalJSON method


class _Parser:
    """Recursive-descent reader of Go type expressions over a token list."""

    def __init__(self, toks: list[Tok], filename: str) -> None:
        self.toks = toks
        self.i = 0
        self.filename = filename

    def peek(self, k: int = 0) -> Tok | None:
        """The token *k* ahead of the cursor, None past the end."""
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def next(self) -> Tok:
        """Consume and return the next token."""
        t = self.peek()
        if t is None:
            raise GenError(f"{self.filename}: unexpected end of file")
        self.i += 1
        return t

    def expect(self, text: str) -> None:
        """Consume the next token, which must be *text*."""
        t = self.next()
        if t.text != text:
            raise GenError(f"{self.filename}: expected {text!r}, got {t.text!r}")

    def skip_space(self) -> None:
        """Skip newlines and comments."""
        while (t := self.peek()) is not None and t.kind in ("nl", "comment"):
            self.i += 1

    def parse_type(self) -> GoType:
        """Parse one type expression."""
        t = self.next()
        if t.text == "*":
            return GoType("ptr", elem=self.parse_type())
        if t.text == "[":
            if self.peek() is not None and self.peek().text == "]":
                self.next()
                return GoType("slice", elem=self.parse_type())
            size = self.next().text
            self.expect("]")
            return GoType("array", name=size, elem=self.parse_type())
        if t.text == "map":
            self.expect("[")
            key = self.parse_type()
            self.expect("]")
            return GoType("map", key=key, elem=self.parse_type())
        if t.text == "struct":
            return GoType("struct", fields=self.parse_struct_body())
        if t.text == "interface":
            self.expect("{")
            depth = 1
            while depth:
                x = self.next().text
                depth += (x == "{") - (x == "}")
            return GoType("iface")
        if t.kind == "ident":
            if t.text == "any":
                return GoType("iface")
            if self.peek() is not None and self.peek().text == ".":
                self.next()
                return GoType("ident", pkg=t.text, name=self.next().text)
            return GoType("ident", name=t.text)
        raise GenError(f"{self.filename}: unsupported type expression at {t.text!r}")

    def parse_struct_body(self) -> list[GoField]:
        """Parse `{ fields }` of a struct type."""
        self.expect("{")
        fields: list[GoField] = []
        while True:
            markers, doc = self.field_markers()
            t = self.peek()
            if t is None:
                raise GenError(f"{self.filename}: unterminated struct")
            if t.text == "}":
                self.next()
                return fields
            if t.text == ";":
                self.next()
                continue
            nxt = self.peek(1)
            embedded = t.text == "*" or (
                t.kind == "ident" and nxt is not None
                and (nxt.text in (".", ";", "}") or nxt.kind in ("raw", "str", "nl", "comment")))
            if embedded:
                typ = self.parse_type()
                names = [""]
            else:
                names = [self.next().text]
                while self.peek() is not None and self.peek().text == ",":
                    self.next()
                    names.append(self.next().text)
                typ = self.parse_type()
            tag = ""
            if self.peek() is not None and self.peek().kind in ("raw", "str"):
                raw = self.next().text
                tag = raw[1:-1] if raw.startswith("`") else bytes(raw[1:-1], "utf-8").decode(
                    "unicode_escape")
            for nm in names:
                fields.append(GoField(nm, typ, tag, embedded, markers, doc))

    def field_markers(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Skip to the next field, returning the `+...` markers and the lines of the comment
        block right above it (a blank line detaches a block, as for gengo's doc comments)."""
        markers: list[str] = []
        raw: list[str] = []
        while (t := self.peek()) is not None and t.kind in ("nl", "comment"):
            self.i += 1
            if t.kind == "comment":
                raw.append(t.text)
                text = t.text[2:].strip()
                if text.startswith("+"):
                    markers.append(text[1:])
            elif (n := self.peek()) is not None and n.kind == "nl":
                markers = []
                raw = []
        return tuple(markers), tuple(comment_text(raw))


def comment_text(raw: list[str]) -> list[str]:
    """go/ast CommentGroup.Text's lines for line comments: "//" and one space after it gone,
    directives (//go:..., //line ...) dropped, trailing spaces trimmed, runs of blank lines
    made one and leading/trailing blank lines removed."""
    lines: list[str] = []
    for c in raw:
        if not c.startswith("//"):
            continue
        body = c[2:]
        if body.startswith(("go:", "line ", "extern ", "export ")) and not body.startswith(" "):
            continue
        if body.startswith(" "):
            body = body[1:]
        lines.append(body.rstrip())
    out: list[str] = []
    for line in lines:
        if line == "" and (not out or out[-1] == ""):
            continue
        out.append(line)
    while out and out[-1] == "":
        out.pop()
    return out


def openapi_description(lines: list[str] | tuple[str, ...]) -> str:
    """kube-openapi's openapi-gen generateDescription: the text OpenAPI documents carry for a
    type or field whose package has no types_swagger_doc_generated.go."""
    buf = ""
    for line in lines:
        if line == "---":
            break
        line = line.rstrip(" ")
        leading = line.lstrip(" ")
        if len(line) == 0:
            buf = buf[:-1] if buf else buf
            buf += "\n\n"
        elif leading.startswith("TODO") or leading.startswith("+"):
            continue
        else:
            if line.startswith((" ", "\t")):
                buf = buf[:-1] if buf else buf
                line = "\n" + line + "\n"  # an indented line (an example) keeps its own line
            else:
                line += " "
            buf += line
    return buf.lstrip("\n").rstrip("\n").strip(" ")


def parse_go_file(path: Path, pkg: GoPackage) -> None:
    """Add the imports and top-level type declarations of one Go file to *pkg*."""
    src = path.read_text(encoding="utf-8")
    toks = tokenize(src, str(path))
    p = _Parser(toks, str(path))
    imports: dict[str, str] = {}
    depth = 0
    pending: list[str] = []
    index = len(pkg.decls)

    def parse_import_spec() -> None:
        t = p.next()
        alias = None
        if t.kind == "ident" or t.text == ".":
            alias = t.text
            t = p.next()
        ipath = t.text.strip('"`')
        imports[alias or ipath.rsplit("/", 1)[-1]] = ipath

    def parse_type_spec(markers: list[str]) -> None:
        nonlocal index
        name = p.next().text
        alias = False
        if p.peek() is not None and p.peek().text == "=":
            p.next()
            alias = True
        typ = p.parse_type()
        if name in pkg.decls and name not in META_CUSTOM_VALUES:
            raise GenError(f"{path}: duplicate declaration of {name}")
        pkg.decls[name] = GoDecl(name, typ, alias, markers, path.name, index)
        index += 1

    while p.peek() is not None:
        t = p.next()
        if t.kind == "comment":
            if depth == 0:
                pending.append(t.text)
            continue
        if t.kind == "nl":
            if depth == 0 and p.peek() is not None and p.peek().kind == "nl":
                pending = []  # a blank line detaches a comment block from what follows
            continue
        if depth == 0 and t.text == "import":
            if p.peek().text == "(":
                p.next()
                while True:
                    p.skip_space()
                    if p.peek().text == ")":
                        p.next()
                        break
                    parse_import_spec()
            else:
                parse_import_spec()
            pending = []
            continue
        if depth == 0 and t.text == "type":
            if p.peek().text == "(":
                p.next()
                while True:
                    inner: list[str] = []
                    while p.peek().kind in ("nl", "comment"):
                        c = p.next()
                        if c.kind == "comment":
                            inner.append(c.text)
                    if p.peek().text == ")":
                        p.next()
                        break
                    parse_type_spec(pending + inner)
            else:
                parse_type_spec(pending)
            pending = []
            continue
        pending = []
        if t.text in ("{", "(", "["):
            depth += 1
        elif t.text in ("}", ")", "]"):
            depth -= 1
    pkg.file_imports[path.name] = imports


def parse_package(directory: Path, import_path: str) -> GoPackage:
    """Parse every non-generated, non-test Go file of one package directory."""
    pkg = GoPackage(import_path, directory)
    for f in sorted(directory.glob("*.go")):
        n = f.name
        if (n.endswith("_test.go") or n.startswith("zz_generated") or n == "generated.pb.go"
                or n == "types_swagger_doc_generated.go" or n.endswith("_fuzz.go")):
            continue
        if n == "fieldsv1_string.go":
            continue  # the build-tag twin of fieldsv1_byte.go; FieldsV1 is custom anyway
        parse_go_file(f, pkg)
        pkg.marshallers.update(re.findall(r"^func \(\w+ \*?(\w+)\) (?:Marshal|Unmarshal)JSON\(",
                                          f.read_text(encoding="utf-8"), re.M))
    proto = directory / "generated.proto"
    if proto.exists():
        pkg.proto_messages = set(re.findall(r"^message (\w+) \{", proto.read_text(), re.M))
    return pkg


# --------------------------------------------------------------------------- tags & names

_TAG_RE = re.compile(r'(\w+):"((?:[^"\\]|\\.)*)"')


def parse_tag(tag: str) -> dict[str, str]:
    """Parse a Go struct tag into key -> value."""
    return {k: v for k, v in _TAG_RE.findall(tag)}


def snake_case(name: str) -> str:
    """Go identifier -> Python attribute name, keeping acronyms (and their plurals) whole."""
    words: list[str] = []
    i = 0
    n = len(name)
    while i < n:
        c = name[i]
        if c.isupper():
            j = i
            while j < n and name[j].isupper():
                j += 1
            run = name[i:j]
            if j - i >= 2 and j < n and name[j] == "s" and (
                    j + 1 == n or name[j + 1].isupper() or name[j + 1].isdigit()):
                # plural acronym: IPs, CIDRs, WWNs
                words.append(run + "s")
                i = j + 1
            elif j - i >= 2 and j < n and name[j].islower():
                words.append(run[:-1])
                i = j - 1
            elif j - i >= 2:
                k = j
                while k < n and name[k].isdigit():
                    k += 1
                words.append(name[i:k])
                i = k
            else:
                k = i + 1
                while k < n and (name[k].islower() or name[k].isdigit()):
                    k += 1
                words.append(name[i:k])
                i = k
        else:
            k = i
            while k < n and not name[k].isupper():
                k += 1
            if words and name[i:k].isdigit():
                words[-1] += name[i:k]
            else:
                words.append(name[i:k])
            i = k
    out = "_".join(w.lower() for w in words if w)
    if keyword.iskeyword(out):
        out += "_"
    return out


# --------------------------------------------------------------------------- resolution

@dataclass(frozen=True)
class T:
    """Resolved type: kind in prim, bytes, class, wrapped, custom, ext, ptr, list, map, any."""

    kind: str
    name: str = ""
    pkg: str = ""
    elem: Any = None


@dataclass
class Field:
    """One generated field: Python attribute, JSON name, proto number, options, type."""

    attr: str
    json: str
    number: int
    omitempty: bool
    omitzero: bool
    inline: bool
    type: T
    go: str | None = None      # Go's reflect spelling of the field type, when kcodec's differs
    go_field: str | None = None  # the Go field name, when it is not the JSON name capitalized
    tags: str | None = None    # merge/list/map/struct tags (field_tags), kcodec.fieldtable parses them


@dataclass
class ClassDef:
    """One generated class."""

    pkg: str
    name: str
    fields: list[Field]
    is_object: bool
    protobuf: bool | None      # explicit __protobuf__ value, None = model default
    order: tuple[str, int]
    hand: bool = False         # wire forms written by hand in <package>._values
    tags: str | None = None    # the type's own `+structType=` marker (type_tags)


class World:
    """All parsed packages and the resolution of their declarations."""

    def __init__(self, packages: dict[str, GoPackage]) -> None:
        self.packages = packages
        self.notes: list[str] = []

    def imports_of(self, pkg: GoPackage, decl: GoDecl) -> dict[str, str]:
        """The import aliases visible to *decl* (those of its file)."""
        return pkg.file_imports[decl.file]

    def resolve_named(self, pkg_path: str, name: str) -> T:
        """Resolve a named Go type declared in *pkg_path*."""
        if pkg_path == META_PKG and name in META_CUSTOM_VALUES:
            return T("custom", name, META_PKG)
        if (pkg_path, name) in EXTERNAL_TYPES:
            return T("ext", name, pkg_path)
        if (pkg_path, name) in EXTERNAL_STRINGS:
            return T("prim", "str")
        if name in HAND_MARSHALLED.get(pkg_path, ()):
            return T("class", name, pkg_path)
        pkg = self.packages.get(pkg_path)
        if pkg is None or name not in pkg.decls:
            raise GenError(f"unknown type {pkg_path}.{name}")
        decl = pkg.decls[name]
        typ = decl.type
        if typ.kind == "struct":
            return T("class", name, pkg_path)
        if decl.alias:
            return self.resolve(pkg, decl, typ)
        if typ.kind == "slice":
            if name in pkg.proto_messages:
                return T("wrapped", name, pkg_path)
            return self.resolve(pkg, decl, typ)
        if typ.kind == "ident":
            target = self.resolve(pkg, decl, typ)
            if target.kind == "class":
                # A defined type over another package's struct: a class of its own with the
                # same fields (`type List metav1.List`).
                return T("class", name, pkg_path)
            return target
        return self.resolve(pkg, decl, typ)

    def resolve(self, pkg: GoPackage, decl: GoDecl, typ: GoType) -> T:
        """Resolve a type expression appearing in *decl* of *pkg*."""
        k = typ.kind
        if k == "ident":
            if typ.pkg:
                imports = self.imports_of(pkg, decl)
                if typ.pkg not in imports:
                    raise GenError(f"{pkg.path}: unknown import alias {typ.pkg}")
                return self.resolve_named(imports[typ.pkg], typ.name)
            if typ.name in PRIMITIVES:
                return T("prim", PRIMITIVES[typ.name])
            if typ.name in ("byte", "uint8", "uint", "uint16", "uint32", "uint64", "float32",
                            "int8", "int16", "rune"):
                raise GenError(f"{pkg.path}.{decl.name}: unsupported scalar {typ.name}")
            return self.resolve_named(pkg.path, typ.name)
        if k == "ptr":
            return T("ptr", elem=self.resolve(pkg, decl, typ.elem))
        if k == "slice":
            if typ.elem.kind == "ident" and typ.elem.name == "byte" and not typ.elem.pkg:
                return T("bytes")
            return T("list", elem=self.resolve(pkg, decl, typ.elem))
        if k == "map":
            key = self.resolve(pkg, decl, typ.key)
            if key != T("prim", "str"):
                raise GenError(f"{pkg.path}.{decl.name}: map key is not a string")
            return T("map", elem=self.resolve(pkg, decl, typ.elem))
        if k == "iface":
            return T("any")
        raise GenError(f"{pkg.path}.{decl.name}: unsupported type kind {k}")

    def go_string(self, pkg: GoPackage, decl: GoDecl, typ: GoType) -> str:
        """*typ* (appearing in *decl*) as encoding/json's type errors print it
        (reflect.Type.String(): package name and type name, ``*``, ``[]``, ``map[K]V``).
        A named slice or map is written ``name=underlying``, so that the type names of its
        elements can be known too (see kcodec.fieldtable, ``field(go=...)``)."""
        k = typ.kind
        if k == "ident":
            if typ.pkg:
                return self.named_go_string(self.imports_of(pkg, decl)[typ.pkg], typ.name)
            if typ.name in GO_BUILTIN_NAMES:
                return GO_BUILTIN_NAMES[typ.name]
            return self.named_go_string(pkg.path, typ.name)
        if k == "ptr":
            return "*" + self.go_string(pkg, decl, typ.elem)
        if k == "slice":
            return "[]" + self.go_string(pkg, decl, typ.elem)
        if k == "map":
            key = self.go_string(pkg, decl, typ.key).partition("=")[0]
            return f"map[{key}]" + self.go_string(pkg, decl, typ.elem)
        if k == "iface":
            return "interface {}"
        raise GenError(f"{pkg.path}.{decl.name}: no Go type string for kind {k}")

    def named_go_string(self, pkg_path: str, name: str) -> str:
        """The go_string of the named type *name* declared in *pkg_path*."""
        pkg = self.packages.get(pkg_path)
        decl = pkg.decls.get(name) if pkg is not None else None
        if decl is not None and decl.alias:
            return self.go_string(pkg, decl, decl.type)  # type: ignore[arg-type]
        out = f"{pkg_path.rsplit('/', 1)[-1]}.{name}"
        if decl is not None and decl.type.kind in ("slice", "map"):
            out += "=" + self.go_string(pkg, decl, decl.type)  # type: ignore[arg-type]
        return out

    def struct_source(self, pkg: GoPackage, decl: GoDecl) -> tuple[GoPackage, GoDecl]:
        """The package and declaration whose struct body defines the class *decl*."""
        typ = decl.type
        while typ.kind != "struct":
            if typ.kind != "ident":
                raise GenError(f"{pkg.path}.{decl.name} is not a struct")
            target_path = self.imports_of(pkg, decl)[typ.pkg] if typ.pkg else pkg.path
            pkg = self.packages[target_path]
            decl = pkg.decls[typ.name]
            typ = decl.type
        return pkg, decl

    def build_class(self, pkg: GoPackage, decl: GoDecl) -> ClassDef:
        """Map the Go struct *decl* of *pkg* to a generated class description."""
        spkg, sdecl = self.struct_source(pkg, decl)
        fields: list[Field] = []
        is_object = False
        numbered = False
        for gf in sdecl.type.fields or []:
            tags = parse_tag(gf.tag)
            jtag = tags.get("json")
            ptag = tags.get("protobuf", "")
            number = 0
            if ptag and ptag != "-":
                number = int(ptag.split(",")[1])
            jparts = jtag.split(",") if jtag is not None else [""]
            jname, jopts = jparts[0], set(jparts[1:])
            if jtag == "-":
                if number:
                    raise GenError(f"{pkg.path}.{decl.name}.{gf.name}: json:\"-\" with protobuf")
                self.notes.append(f"{pkg.path}.{decl.name}.{gf.name}: json:\"-\", not on any wire")
                continue
            if "string" in jopts:
                raise GenError(f"{pkg.path}.{decl.name}.{gf.name}: unsupported json tag {jtag!r}")
            if gf.embedded:
                etype = gf.type.elem if gf.type.kind == "ptr" else gf.type
                ipath = (self.imports_of(spkg, sdecl)[etype.pkg] if etype.pkg else spkg.path)
                if (ipath, etype.name) == (META_PKG, "TypeMeta") and not jname:
                    if number:
                        raise GenError(f"{pkg.path}.{decl.name}: TypeMeta has a protobuf tag")
                    is_object = True
                    continue
                if gf.type.kind == "ptr":
                    raise GenError(f"{pkg.path}.{decl.name}: embedded pointer {etype.name}")
                resolved = self.resolve(spkg, sdecl, gf.type)
                attr = snake_case(etype.name)
                if (jtag is None and ipath == META_PKG
                        and etype.name in ("ObjectMeta", "ListMeta")):
                    # Internal packages embed metadata untagged; it is still the `metadata`
                    # member, as in every external version, so conversions pair it by name.
                    jname = "metadata"
                inline = not jname
                if not inline:
                    # Go embeds ObjectMeta/ListMeta under a JSON name; the Python attribute
                    # follows that name (`metadata`), as a named field would.
                    attr = snake_case(jname[:1].upper() + jname[1:])
            else:
                resolved = self.resolve(spkg, sdecl, gf.type)
                attr = snake_case(gf.name)
                inline = False
                if jtag is None:
                    jname = gf.name
            if "kind='any'" in repr(resolved):
                self.notes.append(f"{pkg.path}.{decl.name}.{gf.name}: interface type -> Any")
            numbered = numbered or number > 0
            go = self.go_string(spkg, sdecl, gf.type)
            go_field = etype.name if gf.embedded else gf.name
            fields.append(Field(attr, jname, number, "omitempty" in jopts, "omitzero" in jopts,
                                inline, resolved, None if go == default_go_string(resolved) else go,
                                None if go_field == (jname[:1].upper() + jname[1:] if jname
                                                     else go_field) else go_field,
                                field_tags(tags, gf.markers, f"{pkg.path}.{decl.name}.{gf.name}")))
        attrs = [f.attr for f in fields]
        if len(set(attrs)) != len(attrs):
            raise GenError(f"{pkg.path}.{decl.name}: attribute names collide: {attrs}")
        has_message = decl.name in pkg.proto_messages
        protobuf: bool | None = None
        if has_message and not numbered:
            protobuf = True
        elif numbered and not has_message:
            protobuf = False
        if "+protobuf=false" in " ".join(decl.markers) and numbered:
            protobuf = False
        return ClassDef(pkg.path, decl.name, fields, is_object, protobuf,
                        (decl.file, decl.index), tags=type_tags(sdecl.markers, f"{pkg.path}.{decl.name}"))


#: The comment markers kept per field, in the order the tags string writes them. They are
#: what structured-merge-diff's schema is built from (via the OpenAPI extensions
#: x-kubernetes-list-type, -list-map-keys, -map-type), with the strategic merge patch's
#: struct tags patchStrategy and patchMergeKey (apimachinery pkg/util/strategicpatch).
TAG_MARKERS = ("listType", "listMapKey", "mapType", "structType")
_TAG_VALUES = {
    "patchStrategy": {"merge", "replace", "retainKeys", "merge,retainKeys", "retainKeys,merge"},
    "listType": {"atomic", "set", "map"},
    "mapType": {"atomic", "granular"},
    "structType": {"atomic", "granular"},
}


def _check_tag(key: str, value: str, where: str) -> None:
    allowed = _TAG_VALUES.get(key)
    if allowed is not None and value not in allowed:
        raise GenError(f"{where}: unknown {key} {value!r}")
    if not value or any(c in value for c in ';"\\\n'):
        raise GenError(f"{where}: {key} {value!r} cannot be recorded")


def field_tags(tags: dict[str, str], markers: tuple[str, ...], where: str) -> str | None:
    """The ``field(tags=...)`` string of one Go field: ``key=value`` pairs joined by ``;``
    (patchStrategy and patchMergeKey from the struct tag, then the markers of TAG_MARKERS;
    several ``+listMapKey`` markers are one comma-separated value, in source order)."""
    out: list[str] = []
    for key in ("patchStrategy", "patchMergeKey"):
        if key in tags:
            _check_tag(key, tags[key], where)
            out.append(f"{key}={tags[key]}")
    seen: dict[str, list[str]] = {}
    for m in markers:
        key, eq, value = m.partition("=")
        if key not in TAG_MARKERS:
            continue
        if not eq:
            raise GenError(f"{where}: marker +{m} without a value")
        _check_tag(key, value.strip(), where)
        vals = seen.setdefault(key, [])
        if vals and key != "listMapKey":
            raise GenError(f"{where}: +{key} given twice")
        vals.append(value.strip())
    if "listMapKey" in seen and seen.get("listType") != ["map"]:
        raise GenError(f"{where}: +listMapKey without +listType=map")
    for key in TAG_MARKERS:
        if key in seen:
            out.append(f"{key}={','.join(seen[key])}")
    return ";".join(out) or None


def type_tags(markers: list[str], where: str) -> str | None:
    """The ``__go_tags__`` of a struct: its own ``+structType=`` marker (the only one of
    TAG_MARKERS upstream puts on type declarations)."""
    found = []
    for line in markers:
        text = line[2:].strip() if line.startswith("//") else line.strip()
        if not text.startswith("+"):
            continue
        key, _eq, value = text[1:].partition("=")
        if key in TAG_MARKERS:
            if key != "structType":
                raise GenError(f"{where}: +{key} on a type declaration")
            _check_tag(key, value.strip(), where)
            found.append(f"{key}={value.strip()}")
    if len(found) > 1:
        raise GenError(f"{where}: +structType given twice")
    return found[0] if found else None


def default_go_string(t: T) -> str | None:
    """The Go type name kcodec.fieldtable derives from a field's annotation alone (None when
    it cannot name it: a protobuf-wrapped slice is a plain list to it)."""
    k = t.kind
    if k == "prim":
        return {"str": "string", "bool": "bool", "Int32": "int32", "Int64": "int64",
                "float": "float64"}[t.name]
    if k == "bytes":
        return "[]uint8"
    if k == "any":
        return "interface {}"
    if k in ("class", "custom"):
        return f"{module_of(t.pkg)[1]}.{t.name}"
    if k == "ext":
        return EXTERNAL_GO_NAMES[t.name]
    if k in ("ptr", "list", "map"):
        inner = default_go_string(t.elem)
        if inner is None:
            return None
        return {"ptr": "*", "list": "[]", "map": "map[string]"}[k] + inner
    return None


# --------------------------------------------------------------------------- rendering

HEADER = """\
# Code generated by tools/gen_api.py from {source}. DO NOT EDIT.
# Regenerate: see docs/generating.md
"""


def module_of(pkg_path: str) -> tuple[str, str, str]:
    """(python package, version module, alias) of a Go package."""
    if pkg_path == META_PKG:
        return "kcodec.api.meta", "v1", "metav1"
    if pkg_path.startswith(INTERNAL_PREFIX):
        name = pkg_path[len(INTERNAL_PREFIX):]
        return f"kcodec.api.{name}", "internal", f"{name}internal"
    for _flag, _env, module, _tag, _commit, sub in EXTRA_SOURCES:
        base = f"{module}/{sub}"
        if pkg_path == base or pkg_path.startswith(base + "/"):
            group = sub.rsplit("/", 1)[1]
            version = pkg_path[len(base) + 1:] or "internal"
            return f"kcodec.api.{group}", version, group + ("" if version == "internal" else version)
    if not pkg_path.startswith(API_PREFIX):
        raise GenError(f"no module for {pkg_path}")
    group, version = pkg_path[len(API_PREFIX):].split("/")
    return f"kcodec.api.{group}", version, f"{group}{version}"


class ModuleWriter:
    """Render one generated module."""

    def __init__(self, world: World, pkg: GoPackage) -> None:
        self.world = world
        self.pkg = pkg
        self.imports: set[str] = set()   # "from X import Y" lines of apimachinery-level names
        self.modules: set[str] = set()   # Go package paths imported as module aliases
        self.model_names: set[str] = {"Struct", "field"}
        self.typing_names: set[str] = set()
        self.hand = False                # subclasses <package>._values (hand-marshalled types)

    def field_ann(self, t: T) -> str:
        """The annotation of a field of type *t*: :meth:`ann`, or a name of
        :data:`SETTABLE_FIELDS` for the IntOrString and Quantity fields it lists."""
        inner = t if t.kind == "ext" else t.elem if t.kind in ("ptr", "map") else None
        if inner is not None and inner.kind == "ext":
            shape = "value" if t.kind == "ext" else t.kind
            alias = SETTABLE_FIELDS.get((EXTERNAL_TYPES[(inner.pkg, inner.name)][0], shape))
            if alias is not None:
                self.imports.add(f"from kcodec.types import {alias}")
                return alias
        return self.ann(t)

    def ann(self, t: T, top: bool = True) -> str:
        """The annotation text of *t* (*top*: the field's own type, where nil is spelled)."""
        k = t.kind
        if k == "prim":
            if t.name in ("Int32", "Int64"):
                self.model_names.add(t.name)
            return t.name
        if k == "bytes":
            return "bytes | None" if top else "bytes"
        if k == "any":
            self.typing_names.add("Any")
            return "Any"
        if k in ("class", "wrapped", "custom"):
            return self.ref(t.pkg, t.name)
        if k == "ext":
            name, line = EXTERNAL_TYPES[(t.pkg, t.name)]
            self.imports.add(line)
            return name
        if k == "ptr":
            inner = self.ann(t.elem, top=False)
            return f"{inner} | None"
        if k == "list":
            inner = self.ann(t.elem, top=False)
            return f"list[{inner}] | None" if top else f"list[{inner}]"
        if k == "map":
            inner = self.ann(t.elem, top=False)
            return f"dict[str, {inner}] | None" if top else f"dict[str, {inner}]"
        raise GenError(f"cannot annotate {t}")

    def ref(self, pkg_path: str, name: str) -> str:
        """The annotation text naming *name* of *pkg_path*, importing its module if needed."""
        if pkg_path == self.pkg.path:
            return name
        self.modules.add(pkg_path)
        return f"{module_of(pkg_path)[2]}.{name}"


def class_doc(cls: ClassDef, gv: str, kinds: set[str]) -> str:
    """Our own one-line docstring for a generated class (upstream comments are not copied)."""
    if cls.name == "List":
        return f"List: a list of objects of any kind ({gv})."
    if cls.name in kinds and cls.name.endswith("List") and cls.is_object:
        return f"{cls.name}: a list of {cls.name[:-4]} objects ({gv})."
    if cls.name in kinds:
        return f"{cls.name}: the {cls.name} kind of {gv}."
    if cls.is_object:
        return f"{cls.name}: object type of {gv}."
    return f"{cls.name}: struct of {gv}."


def render_class(w: ModuleWriter, cls: ClassDef, gv: str, kinds: set[str]) -> list[str]:
    """The source lines of one generated class."""
    if cls.hand:
        w.hand = True
        return [f"class {cls.name}(_values.{cls.name}):",
                f'    """{cls.name}: struct of {gv}, JSON form as upstream\'s marshal.go '
                f'(see _values)."""',
                "    __slots__ = ()"]
    base = "Object" if cls.is_object else "Struct"
    fn = "_field" if any(f.attr == "field" for f in cls.fields) else "field"
    if fn == "_field":
        w.model_names.add("_field")
    lines = [f"class {cls.name}({base}):", f'    """{class_doc(cls, gv, kinds)}"""']
    if cls.protobuf is not None:
        lines.append(f"    __protobuf__ = {cls.protobuf}")
    if cls.tags is not None:
        lines.append(f'    __go_tags__ = "{cls.tags}"')
    extra = CLASS_EXTRAS.get((cls.pkg, cls.name), "")
    for f in cls.fields:
        ann = w.field_ann(f.type)
        args = [str(f.number), f'"{f.json}"']
        if f.omitempty:
            args.append("omitempty=True")
        if f.omitzero:
            args.append("omitzero=True")
        if f.inline:
            args.append("inline=True")
        if f.go is not None:
            args.append(f'go="{f.go}"')
        if f.go_field is not None:
            args.append(f'go_field="{f.go_field}"')
        if f.tags is not None:
            args.append(f'tags="{f.tags}"')
        lines.append(f"    {f.attr}: {ann} = {fn}({', '.join(args)})")
    if extra:
        lines.append("")
        lines.extend(extra.strip("\n").split("\n"))
    return lines


def parse_register(pkg: GoPackage) -> tuple[str, str, list[tuple[str, str]], bool]:
    """(group, version, [(pkg alias or '', kind)], calls AddToGroupVersion) from register.go."""
    src = (pkg.directory / "register.go").read_text()
    src = re.sub(r"//[^\n]*", "", src)
    group = re.search(r'const GroupName\s*=\s*"([^"]*)"', src).group(1)
    vm = re.search(r'SchemeGroupVersion\s*=\s*schema\.GroupVersion\{Group:\s*GroupName,'
                   r'\s*Version:\s*(?:"([^"]+)"|(runtime\.APIVersionInternal))\}', src)
    version = vm.group(1) or INTERNAL_VERSION
    kinds: list[tuple[str, str]] = []
    for m in re.finditer(r"scheme\.AddKnownTypes\(\s*(\w+)\s*,(.*?)\)", src, re.S):
        if m.group(1) != "SchemeGroupVersion":
            raise GenError(f"{pkg.path}: AddKnownTypes with {m.group(1)}")
        for am in re.finditer(r"&(?:(\w+)\.)?(\w+)\{\}", m.group(2)):
            kinds.append((am.group(1) or "", am.group(2)))
    rest = re.sub(r"scheme\.AddKnownTypes\(.*?\)", "", src, flags=re.S)
    if re.search(r"scheme\.\w+\(", rest.replace("metav1.AddToGroupVersion(scheme", "")):
        raise GenError(f"{pkg.path}: register.go has registrations the generator does not know")
    return group, version, kinds, "metav1.AddToGroupVersion(scheme, SchemeGroupVersion)" in src


def _ordered_classes(world: World, pkg: GoPackage) -> list[ClassDef]:
    out = []
    hand = HAND_MARSHALLED.get(pkg.path, ())
    if pkg.path != META_PKG and set(pkg.marshallers) != set(hand):
        raise GenError(f"{pkg.path}: MarshalJSON/UnmarshalJSON on {sorted(pkg.marshallers)}, "
                       f"hand-written forms known for {sorted(hand)}")
    for decl in sorted(pkg.decls.values(), key=lambda d: (d.file, d.index)):
        if pkg.path == META_PKG and (decl.name in META_SKIPPED or decl.name in META_CUSTOM_VALUES):
            continue
        if decl.alias:
            continue
        if decl.name in hand:
            out.append(ClassDef(pkg.path, decl.name, [], False, None, (decl.file, decl.index),
                                hand=True))
            continue
        t = decl.type
        if t.kind == "struct" or (t.kind == "ident" and
                                  world.resolve_named(pkg.path, decl.name).kind == "class"):
            out.append(world.build_class(pkg, decl))
    return out


def _aliases(world: World, pkg: GoPackage, w: ModuleWriter) -> list[tuple[str, str]]:
    """Module-level names: wrapped slices and Go type aliases of structs."""
    out = []
    for decl in sorted(pkg.decls.values(), key=lambda d: (d.file, d.index)):
        if decl.type.kind == "slice" and not decl.alias and decl.name in pkg.proto_messages:
            elem = world.resolve(pkg, decl, decl.type.elem)
            w.typing_names.add("Annotated")
            w.model_names.add("Wrapped")
            out.append((decl.name, f"Annotated[list[{w.ann(elem, top=False)}], Wrapped]"))
        elif decl.alias:
            target = world.resolve(pkg, decl, decl.type)
            if target.kind in ("class", "wrapped"):
                out.append((decl.name, w.ref(target.pkg, target.name)))
    return out


def render_module(world: World, pkg: GoPackage, source: str,
                  only_kinds: tuple[str, ...] | None = None) -> str:
    """Render the complete text of the module for *pkg*; *only_kinds*, when given, limits
    what ``add_to_scheme`` registers (a removed version's module: see REMOVED_SOURCES)."""
    w = ModuleWriter(world, pkg)
    is_meta = pkg.path == META_PKG
    if is_meta:
        group, version = "meta.k8s.io", "v1"
        reg_kinds: list[tuple[str, str]] = []
        add_gv = False
    else:
        group, version, reg_kinds, add_gv = parse_register(pkg)
    gv = f"{group}/{version}" if group else version
    classes = _ordered_classes(world, pkg)
    names = {c.name for c in classes}
    kinds = {k for a, k in reg_kinds if not a}
    aliases = _aliases(world, pkg, w)
    body: list[str] = []
    for c in classes:
        body.extend(["", ""])
        body.extend(render_class(w, c, gv, kinds))
    if is_meta:
        body.extend(["", ""])
        body.extend(META_EXTRA_CLASSES.strip("\n").split("\n"))
        w.typing_names.add("Any")
    # registration
    reg: list[str] = ["", ""]
    if is_meta:
        reg.extend(META_REGISTRATION.strip("\n").split("\n"))
    else:
        reg.append("def add_to_scheme(scheme: Any) -> None:")
        reg.append(f'    """Register the kinds of {gv} with *scheme*, as the Go register.go does."""')
        w.typing_names.add("Any")
        local = [k for a, k in reg_kinds if not a]
        for k in local:
            if k not in names:
                raise GenError(f"{pkg.path}: registered kind {k} is not a struct")
        if only_kinds is not None:
            missing = [k for k in only_kinds if k not in local]
            if missing:
                raise GenError(f"{pkg.path}: {', '.join(missing)} not registered by register.go")
            local = [k for k in local if k in only_kinds]
            reg_kinds = [(a, k) for a, k in reg_kinds if not a and k in only_kinds]
        if local:
            reg.append("    scheme.add_known_types(")
            reg.append("        SCHEME_GROUP_VERSION,")
            for k in local:
                reg.append(f"        {k},")
            reg.append("    )")
        for a, k in reg_kinds:
            if a:
                path = pkg.file_imports["register.go"][a]
                reg.append(f"    scheme.add_known_types(SCHEME_GROUP_VERSION, {w.ref(path, k)})")
        if add_gv:
            reg.append(f"    {w.ref(META_PKG, 'add_to_group_version')}(scheme, SCHEME_GROUP_VERSION)")
    exported = [a for a, _ in aliases] + [c.name for c in classes]
    if is_meta:
        exported += list(META_CUSTOM_VALUES) + ["InternalEvent", "WATCH_EVENT_KIND", "UNVERSIONED",
                                                "add_to_group_version", "add_meta_to_scheme"]
    exported += ["SCHEME_GROUP_VERSION", "add_to_scheme"]
    # header
    out: list[str] = [HEADER.format(source=source).rstrip("\n")]
    out.append(f'"""Kubernetes API group {gv}."""')
    out.append("from __future__ import annotations")
    out.append("")
    if w.typing_names:
        out.append(f"from typing import {', '.join(sorted(w.typing_names))}")
        out.append("")
    model = sorted(n for n in w.model_names if n != "_field")
    out.append(f"from kcodec.model import {', '.join(_model_sort(model))}")
    if "_field" in w.model_names:
        out.append("from kcodec.model import field as _field")
    rnames = sorted({line.split()[-1] for line in w.imports
                     if line.startswith("from kcodec.runtime ")})
    if any(c.is_object for c in classes) or is_meta:
        rnames.insert(0, "Object")
    if rnames:
        out.append(f"from kcodec.runtime import {', '.join(rnames)}")
    # meta/v1 declares its own GroupVersionKind struct, so the schema one is reached by module.
    out.append("from kcodec import schema as _schema" if is_meta
               else "from kcodec.schema import GroupVersion")
    tnames = sorted({line.split()[-1] for line in w.imports if line.startswith("from kcodec.types")})
    if tnames:
        out.append(f"from kcodec.types import {', '.join(tnames)}")
    if w.hand:
        out.append(f"from {module_of(pkg.path)[0]} import _values")
    if is_meta:
        out.append("from kcodec.api.meta._values import Duration, FieldsV1, MicroTime, Time")
    mod_lines = []
    for path in sorted(w.modules, key=lambda p: module_of(p)[2]):
        parent, ver, alias = module_of(path)
        mod_lines.append(f"from {parent} import {ver} as {alias}")
    out.extend(mod_lines)
    out.append("")
    out.append(f'SCHEME_GROUP_VERSION = {"_schema." if is_meta else ""}GroupVersion('
               f'"{group}", "{version}")')
    if is_meta:
        out.append('UNVERSIONED = _schema.GroupVersion("", "v1")')
        out.append('WATCH_EVENT_KIND = "WatchEvent"')
    if aliases:
        out.append("")
        for a, v in aliases:
            out.append(f"{a} = {v}")
    _check_names(pkg, out, classes, aliases)
    out.extend(body)
    out.extend(reg)
    out.append("")
    out.append("")
    out.append("__all__ = [")
    for e in exported:
        out.append(f'    "{e}",')
    out.append("]")
    return "\n".join(out) + "\n"


_ANNOTATION_BUILTINS = {"str", "bool", "int", "float", "bytes", "list", "dict", "None"}


def _check_names(pkg: GoPackage, header: list[str], classes: list[ClassDef],
                 aliases: list[tuple[str, str]]) -> None:
    """Refuse output where a generated name would shadow a name the module itself uses."""
    imported: set[str] = set()
    for line in header:
        m = re.match(r"from \S+ import (.*)", line)
        if m:
            for part in m.group(1).split(","):
                imported.add(part.split(" as ")[-1].strip())
        m = re.match(r"(\w+) = ", line)
        if m:
            imported.add(m.group(1))
    for name in [c.name for c in classes] + [a for a, _ in aliases]:
        if name in imported and (name, pkg.path) != ("Verbs", META_PKG) and not any(
                a == name for a, _ in aliases):
            raise GenError(f"{pkg.path}: class {name} shadows an imported name")
    for c in classes:
        for f in c.fields:
            if f.attr in _ANNOTATION_BUILTINS:
                raise GenError(f"{pkg.path}.{c.name}.{f.attr} shadows a builtin in annotations")


def _model_sort(names: list[str]) -> list[str]:
    order = ["Struct", "field", "Int32", "Int64", "Wrapped"]
    return sorted(names, key=lambda n: (order.index(n) if n in order else 99, n))


# Go's WatchEvent and InternalEvent carry no TypeMeta: their GetObjectKind returns
# schema.EmptyObjectKind, so they are plain structs that still satisfy runtime.Object.
_EMPTY_KIND_METHOD = '''
    def get_object_kind(self) -> _EmptyObjectKind:
        """The empty kind accessor: this type never records its kind (as Go's)."""
        return _EMPTY_OBJECT_KIND
'''

CLASS_EXTRAS = {(META_PKG, "WatchEvent"): _EMPTY_KIND_METHOD}

META_EXTRA_CLASSES = '''
class InternalEvent(Struct):
    """InternalEvent: the internal-version watch event (watch.Event), JSON and Go only."""
    __protobuf__ = False
    type: str = field(0, "Type")
    object: Any = field(0, "Object")
''' + _EMPTY_KIND_METHOD + '''

class _EmptyObjectKind:
    """Go schema.EmptyObjectKind: reports the empty kind and ignores every update."""

    __slots__ = ()

    def group_version_kind(self) -> _schema.GroupVersionKind:
        """The empty GroupVersionKind."""
        return _schema.GroupVersionKind("", "", "")

    def set_group_version_kind(self, gvk: _schema.GroupVersionKind) -> None:
        """Ignore *gvk*: the kind of these types is never recorded."""


_EMPTY_OBJECT_KIND = _EmptyObjectKind()
'''

META_REGISTRATION = '''
_OPTIONS_TYPES = (ListOptions, GetOptions, DeleteOptions, CreateOptions, UpdateOptions, PatchOptions)


def add_to_group_version(scheme: Any, group_version: _schema.GroupVersion) -> None:
    """Register the common meta kinds into *group_version*, as Go metav1.AddToGroupVersion."""
    scheme.add_known_type_with_name(
        _schema.GroupVersionKind(group_version.group, group_version.version, WATCH_EVENT_KIND),
        WatchEvent,
    )
    scheme.add_known_type_with_name(
        _schema.GroupVersionKind(group_version.group, "__internal", WATCH_EVENT_KIND),
        InternalEvent,
    )
    scheme.add_known_types(group_version, *_OPTIONS_TYPES)
    # Go registers url.Values -> options conversions here, which ParameterCodec needs.
    from kcodec.runtime.parameter_codec import register_query_conversions

    register_query_conversions(scheme, *_OPTIONS_TYPES)
    scheme.add_unversioned_types(
        UNVERSIONED, Status, APIVersions, APIGroupList, APIGroup, APIResourceList
    )


def add_meta_to_scheme(scheme: Any) -> None:
    """Register the meta.k8s.io/v1 kinds, as Go metav1.AddMetaToScheme."""
    scheme.add_known_types(
        SCHEME_GROUP_VERSION, Table, TableOptions, PartialObjectMetadata, PartialObjectMetadataList
    )
    from kcodec.runtime.parameter_codec import register_query_conversions

    register_query_conversions(scheme, TableOptions)


def add_to_scheme(scheme: Any) -> None:
    """Register the meta.k8s.io/v1 kinds (the same as add_meta_to_scheme; Go has no AddToScheme)."""
    add_meta_to_scheme(scheme)
'''


# --------------------------------------------------------------------------- internal versions
#
# kube-apiserver's internal ("hub", version "__internal") types live in kubernetes/kubernetes
# pkg/apis/<group>/types.go. By API policy they hold every field of every served version, so
# they are derived here from the external packages of k8s.io/api already parsed above: the
# group's preferred version gives the shape, the other versions of the group add the fields
# and structs only they have, and the INTERNAL_DROP / INTERNAL_ADD tables record where the Go
# internal types deliberately differ (a field kept in another place, a write-only alias...),
# which the hand-written conversions in kcodec/api/<package>/_conversion.py translate.
# Internal fields carry no protobuf numbers; their JSON names are the external ones.

INTERNAL_PREFIX = "internal:"

# package -> (API group, [(external package, kinds taken or None for all)] in merge order;
# the first source is the preferred version and gives every struct, the others give the
# structs reachable from the kinds they contribute).
_APPS_KINDS = ("Deployment", "DeploymentList", "DeploymentRollback", "DaemonSet", "DaemonSetList",
               "ReplicaSet", "ReplicaSetList")
_NET_KINDS = ("Ingress", "IngressList", "NetworkPolicy", "NetworkPolicyList")
INTERNAL_GROUPS: dict[str, tuple[str, list[tuple[str, tuple[str, ...] | None]]]] = {
    "core": ("", [("core/v1", None)]),
    "apps": ("apps", [("apps/v1", None), ("apps/v1beta2", None), ("apps/v1beta1", None),
                      ("extensions/v1beta1", _APPS_KINDS)]),
    "autoscaling": ("autoscaling", [("autoscaling/v2", None), ("autoscaling/v1", None)]),
    "batch": ("batch", [("batch/v1", None), ("batch/v1beta1", None)]),
    "networking": ("networking.k8s.io", [("networking/v1", None), ("networking/v1beta1", None),
                                         ("extensions/v1beta1", _NET_KINDS)]),
    "policy": ("policy", [("policy/v1", None), ("policy/v1beta1", None)]),
    "rbac": ("rbac.authorization.k8s.io", [("rbac/v1", None), ("rbac/v1beta1", None),
                                           ("rbac/v1alpha1", None)]),
    "storage": ("storage.k8s.io", [("storage/v1", None), ("storage/v1beta1", None),
                                   ("storage/v1alpha1", None)]),
    "scheduling": ("scheduling.k8s.io", [("scheduling/v1", None), ("scheduling/v1beta1", None),
                                         ("scheduling/v1alpha2", None)]),
    "coordination": ("coordination.k8s.io", [("coordination/v1", None),
                                             ("coordination/v1beta1", None),
                                             ("coordination/v1alpha2", None)]),
    "discovery": ("discovery.k8s.io", [("discovery/v1", None), ("discovery/v1beta1", None)]),
    "node": ("node.k8s.io", [("node/v1", None), ("node/v1beta1", None), ("node/v1alpha1", None)]),
    "certificates": ("certificates.k8s.io", [("certificates/v1", None),
                                             ("certificates/v1beta1", None),
                                             ("certificates/v1alpha1", None)]),
    "flowcontrol": ("flowcontrol.apiserver.k8s.io", [("flowcontrol/v1", None),
                                                     ("flowcontrol/v1beta3", None),
                                                     ("flowcontrol/v1beta2", None),
                                                     ("flowcontrol/v1beta1", None)]),
    "admissionregistration": ("admissionregistration.k8s.io", [
        ("admissionregistration/v1", None), ("admissionregistration/v1beta1", None),
        ("admissionregistration/v1alpha1", None)]),
    "authentication": ("authentication.k8s.io", [("authentication/v1", None),
                                                 ("authentication/v1beta1", None),
                                                 ("authentication/v1alpha1", None)]),
    "authorization": ("authorization.k8s.io", [("authorization/v1", None),
                                               ("authorization/v1beta1", None)]),
    "storagemigration": ("storagemigration.k8s.io", [("storagemigration/v1beta1", None)]),
    "apiserverinternal": ("internal.apiserver.k8s.io", [("apiserverinternal/v1alpha1", None)]),
    "imagepolicy": ("imagepolicy.k8s.io", [("imagepolicy/v1alpha1", None)]),
    "admission": ("admission.k8s.io", [("admission/v1", None), ("admission/v1beta1", None)]),
    "resource": ("resource.k8s.io", [("resource/v1", None), ("resource/v1beta2", None),
                                     ("resource/v1beta1", None), ("resource/v1alpha3", None)]),
}

# Groups whose internal version has no types of its own: Go registers other groups' internal
# types under them (pkg/apis/extensions, pkg/apis/events register.go). package -> (group,
# {kind: owning internal package}).
INTERNAL_BORROWING: dict[str, tuple[str, dict[str, str]]] = {
    "extensions": ("extensions", {**{k: "apps" for k in _APPS_KINDS},
                                  **{k: "networking" for k in _NET_KINDS},
                                  "Scale": "autoscaling"}),
    "events": ("events.k8s.io", {"Event": "core", "EventList": "core"}),
}

# Structs of a non-preferred version that the internal type does not merge: their shape
# differs and a hand-written conversion maps them (Scale of apps/v1beta1 and v1beta2 is
# autoscaling's Scale internally).
INTERNAL_SKIP_CLASSES = {("apps", "Scale"), ("apps", "ScaleSpec"), ("apps", "ScaleStatus"),
                         # resource.k8s.io/v1beta1 nests a device's fields in `basic`
                         # (pkg/apis/resource/v1beta1/conversion.go flattens it).
                         ("resource", "BasicDevice")}

# Fields of the external versions that the Go internal type does not have (the hand-written
# conversions put their content elsewhere).
INTERNAL_DROP: dict[tuple[str, str], tuple[str, ...]] = {
    # v1 PodSpec.serviceAccount is a deprecated alias of serviceAccountName; the host
    # namespace switches live in the internal PodSecurityContext.
    ("core", "PodSpec"): ("deprecated_service_account", "host_network", "host_pid", "host_ipc", "host_users"),
    # The singular IP fields repeat the first entry of the plural lists.
    ("core", "PodStatus"): ("pod_ip", "host_ip"),
    ("core", "NodeSpec"): ("pod_cidr",),
    # stringData is write-only: merged into data on the way in.
    ("core", "Secret"): ("string_data",),
    # networking/v1beta1 and extensions/v1beta1 spell the backend as serviceName/servicePort
    # and the default backend as spec.backend.
    ("networking", "IngressBackend"): ("service_name", "service_port"),
    ("networking", "IngressSpec"): ("backend",),
    # autoscaling/v1 keeps the CPU target in its own field, everything else in annotations.
    ("autoscaling", "HorizontalPodAutoscalerSpec"): ("target_cpu_utilization_percentage",),
    ("autoscaling", "HorizontalPodAutoscalerStatus"): ("current_cpu_utilization_percentage",),
    # discovery/v1beta1's topology map is v1's zone plus deprecatedTopology.
    ("discovery", "Endpoint"): ("topology",),
    # flowcontrol v1beta1/v1beta2 call nominalConcurrencyShares assuredConcurrencyShares.
    ("flowcontrol", "LimitedPriorityLevelConfiguration"): ("assured_concurrency_shares",),
    # node/v1alpha1 nests handler, overhead and scheduling under spec.
    ("node", "RuntimeClass"): ("spec",),
    # rbac/v1alpha1 names a subject's group through an apiVersion.
    ("rbac", "Subject"): ("api_version",),
    # resource.k8s.io/v1beta1 keeps a device's fields in `basic` and a request's exact-count
    # fields on the request itself; inside they are v1's (Device itself, DeviceRequest.exactly).
    ("resource", "Device"): ("basic",),
    ("resource", "DeviceRequest"): ("device_class_name", "selectors", "allocation_mode", "count",
                                    "admin_access", "tolerations", "capacity"),
}

# Fields only the internal type has: (class) -> [(attr, json name, type)].
INTERNAL_ADD: dict[tuple[str, str], list[tuple[str, str, T]]] = {
    ("core", "PodSecurityContext"): [
        ("host_network", "hostNetwork", T("prim", "bool")),
        ("host_pid", "hostPID", T("prim", "bool")),
        ("host_ipc", "hostIPC", T("prim", "bool")),
        ("host_users", "hostUsers", T("ptr", elem=T("prim", "bool"))),
    ],
}


# Internal fields whose Go type is a value where the preferred version has a pointer.
INTERNAL_RETYPE: dict[tuple[str, str, str], T] = {
    ("flowcontrol", "LimitedPriorityLevelConfiguration", "nominal_concurrency_shares"):
        T("prim", "Int32"),
}

# Structs of a preferred version that a hand-written conversion to or from the internal type
# touches (an override of one of their fields, or a function for the whole pair), although
# their layout matches the internal one: they stay internal classes of their own, since a
# shared class converts by sharing and would skip the hand-written code. The conversion
# registration (kcodec.api._hub.register_version) refuses an override on a shared class, so
# a new hand-written conversion cannot be skipped silently. (internal package, struct).
INTERNAL_HAND_CONVERTED: set[tuple[str, str]] = {
    # policy/v1 reads an empty selector back as Go's v1 conversion.go does.
    ("policy", "PodDisruptionBudgetSpec"),
}

# Kinds a group's internal version registers from another internal package (Go's
# pkg/apis/apps/register.go adds autoscaling.Scale).
INTERNAL_EXTRA_KINDS: dict[str, dict[str, str]] = {"apps": {"Scale": "autoscaling"}}


@dataclass
class _InternalPkg:
    """Stands for a GoPackage when rendering an internal module."""

    path: str


def _reachable(world: World, pkg: GoPackage, kinds: tuple[str, ...]) -> list[str]:
    """Struct names of *pkg* reachable from *kinds* through fields of that same package."""
    seen: list[str] = []
    todo = list(kinds)
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.append(name)
        cls = world.build_class(pkg, pkg.decls[name])
        for f in cls.fields:
            t = f.type
            while t.kind in ("ptr", "list", "map"):
                t = t.elem
            if t.kind == "class" and t.pkg == pkg.path and t.name not in seen:
                todo.append(t.name)
    return seen


def generate_internal(world: World, source: str) -> dict[str, str]:
    """{package: module text} of every internal-version module (see INTERNAL_GROUPS)."""
    # 1. which internal package owns each (external package, struct)
    owner: dict[tuple[str, str], str] = {}
    plan: dict[str, list[tuple[GoPackage, list[str]]]] = {}
    kinds_of: dict[str, list[str]] = {}
    for name, (_group, sources) in INTERNAL_GROUPS.items():
        plan[name] = []
        kinds: list[str] = []
        for i, (src, only) in enumerate(sources):
            pkg = world.packages[API_PREFIX + src]
            _g, _v, reg, _ = parse_register(pkg)
            local = [k for a, k in reg if not a]
            if only is not None:
                local = [k for k in local if k in only]
            if i == 0:
                names = [c.name for c in _ordered_classes(world, pkg)]
            else:
                names = _reachable(world, pkg, tuple(local))
            names = [n for n in names if (name, n) not in INTERNAL_SKIP_CLASSES]
            if only is None:
                for k in local:
                    if k not in kinds and (name, k) not in INTERNAL_SKIP_CLASSES:
                        kinds.append(k)
            for n in names:
                owner.setdefault((pkg.path, n), name)
            plan[name].append((pkg, names))
        kinds_of[name] = kinds
    # apps/v1beta1 and v1beta2 Scale are autoscaling's Scale inside.
    for src in ("apps/v1beta1", "apps/v1beta2", "extensions/v1beta1"):
        for n in ("Scale", "ScaleSpec", "ScaleStatus"):
            owner.setdefault((API_PREFIX + src, n), "autoscaling")

    def internalize(t: T, where: str) -> T:
        if t.kind in ("ptr", "list", "map"):
            return T(t.kind, elem=internalize(t.elem, where))
        if t.kind == "wrapped" and t.pkg != META_PKG:
            # A named slice is only a protobuf message wrapper: internally a plain list.
            wpkg = world.packages[t.pkg]
            decl = wpkg.decls[t.name]
            return T("list", elem=internalize(world.resolve(wpkg, decl, decl.type.elem), where))
        if t.kind == "class" and t.pkg != META_PKG:
            o = owner.get((t.pkg, t.name))
            if o is None:
                raise GenError(f"{where}: no internal home for {t.pkg}.{t.name}")
            return T(t.kind, t.name, INTERNAL_PREFIX + o)
        return t

    out: dict[str, str] = {}
    built: dict[str, tuple[dict[str, ClassDef], list[str]]] = {}
    for name, (group, _sources) in INTERNAL_GROUPS.items():
        classes: dict[str, ClassDef] = {}
        conflicts: list[str] = []
        for pkg, names in plan[name]:
            for n in names:
                decl = pkg.decls[n]
                if decl.alias:
                    continue
                cd = world.build_class(pkg, decl)
                drop = INTERNAL_DROP.get((name, n), ())
                fields = [Field(f.attr, f.json, 0, f.omitempty, f.omitzero, f.inline,
                                INTERNAL_RETYPE.get((name, n, f.attr))
                                or internalize(f.type, f"{pkg.path}.{n}"))
                          for f in cd.fields if f.attr not in drop]
                have = classes.get(n)
                if have is None:
                    classes[n] = ClassDef(INTERNAL_PREFIX + name, n, fields, cd.is_object,
                                          None, (str(len(classes)), 0))
                    continue
                known = {f.attr: f for f in have.fields}
                for f in fields:
                    k = known.get(f.attr)
                    if k is None:
                        have.fields.append(f)
                    elif k.type != f.type:
                        conflicts.append(f"{n}.{f.attr}")
        for (pname, cname), extra in INTERNAL_ADD.items():
            if pname == name:
                classes[cname].fields.extend(Field(a, j, 0, True, False, False, t)
                                             for a, j, t in extra)
        built[name] = (classes, conflicts)
    shared = _shared_with_preferred(world, plan, built, kinds_of)
    for name, (group, _sources) in INTERNAL_GROUPS.items():
        classes, conflicts = built[name]
        out[name] = _render_internal(world, name, group, list(classes.values()),
                                     kinds_of[name], INTERNAL_EXTRA_KINDS.get(name, {}), source,
                                     conflicts, shared.get(name, {}))
    for name, (group, borrowed) in INTERNAL_BORROWING.items():
        out[name] = _render_internal(world, name, group, [], [], borrowed, source, [], {})
    return out


def _shared_with_preferred(world: World, plan: dict[str, list[tuple[GoPackage, list[str]]]],
                           built: dict[str, tuple[dict[str, ClassDef], list[str]]],
                           kinds_of: dict[str, list[str]]) -> dict[str, dict[str, str]]:
    """{internal package: {struct name: preferred package path}} of the internal structs that
    are the preferred version's classes rather than twins of them.

    Go's conversion-gen converts a field whose internal and external types are memory-identical
    with an ``unsafe.Pointer`` cast, so the output shares that subtree with the input (and
    ``Scheme.Convert`` documents that it may). The Python counterpart of a cast is one class for
    both sides: a plan row whose source values are already instances of the destination class
    shares them. A struct qualifies when it has the preferred version's fields in the same order
    with the same attribute and JSON names, JSON options and types (protobuf numbers aside),
    every struct it holds qualifies by the same rule, no hand-written conversion touches it
    (INTERNAL_HAND_CONVERTED), and it is not an object type: registered kinds stay classes of
    their own, since the Scheme maps a class to one group/version/kind and internal objects
    report the empty one. The answer is the largest set closed under "holds only qualifying
    structs", so recursive types qualify together.
    """
    preferred = {name: pkgs[0][0] for name, pkgs in plan.items()}
    candidates: dict[tuple[str, str], ClassDef] = {}
    for name, (classes, _conflicts) in built.items():
        pkg = preferred[name]
        registered = set(kinds_of[name]) | set(INTERNAL_EXTRA_KINDS.get(name, {}))
        for n, cd in classes.items():
            decl = pkg.decls.get(n)
            if (decl is None or decl.alias or cd.is_object or n in registered
                    or (name, n) in INTERNAL_HAND_CONVERTED
                    or (pkg.path, n) in CLASS_EXTRAS or n in HAND_MARSHALLED.get(pkg.path, ())):
                continue
            ext = world.build_class(pkg, decl)
            if ext.is_object or len(ext.fields) != len(cd.fields):
                continue
            if all((a.attr, a.json, a.omitempty, a.omitzero, a.inline)
                   == (b.attr, b.json, b.omitempty, b.omitzero, b.inline)
                   for a, b in zip(cd.fields, ext.fields)):
                candidates[(name, n)] = ext
    internal_of = {pkg.path: name for name, pkg in preferred.items()}

    def same(it: T, et: T, keep: set[tuple[str, str]]) -> bool:
        if it.kind in ("ptr", "list", "map"):
            return et.kind == it.kind and same(it.elem, et.elem, keep)
        if it.kind == "class" and it.pkg.startswith(INTERNAL_PREFIX):
            owner = it.pkg[len(INTERNAL_PREFIX):]
            return (et.kind == "class" and et.name == it.name
                    and internal_of.get(et.pkg) == owner and (owner, it.name) in keep)
        return it == et

    keep = set(candidates)
    while True:
        drop = {key for key in keep
                if not all(same(a.type, b.type, keep)
                           for a, b in zip(built[key[0]][0][key[1]].fields, candidates[key].fields))}
        if not drop:
            break
        keep -= drop
    out: dict[str, dict[str, str]] = {}
    for name, n in sorted(keep):
        out.setdefault(name, {})[n] = preferred[name].path
    return out


def _render_internal(world: World, name: str, group: str, classes: list[ClassDef],
                     kinds: list[str], borrowed: dict[str, str], source: str,
                     conflicts: list[str], shared: dict[str, str]) -> str:
    """The text of kcodec/api/<name>/internal.py; *shared* maps the structs that are the
    preferred version's classes to that version's package (see _shared_with_preferred)."""
    w = ModuleWriter(world, _InternalPkg(INTERNAL_PREFIX + name))  # type: ignore[arg-type]
    gv = f"{group}/__internal" if group else "__internal"
    body: list[str] = []
    if shared:
        body.extend(["", "# Structs laid out exactly as in the preferred version (same fields, types and",
                     "# JSON options, no hand-written conversion, not a kind) are that version's",
                     "# classes: converting between the two shares them, as Go's conversion-gen",
                     "# shares memory-identical types through unsafe.Pointer casts."])
        body.extend(f"{c.name} = {w.ref(shared[c.name], c.name)}"
                    for c in classes if c.name in shared)
    own = [c for c in classes if c.name not in shared]
    for c in own:
        body.extend(["", ""])
        body.extend(render_class(w, c, gv, set(kinds)))
    reg = ["", "", "def add_to_scheme(scheme: Any) -> None:",
           f'    """Register the kinds of {gv} with *scheme*, as the Go register.go does."""',
           "    scheme.add_known_types(", "        SCHEME_GROUP_VERSION,"]
    w.typing_names.add("Any")
    for k in kinds:
        reg.append(f"        {k},")
    for k, o in borrowed.items():
        reg.append(f"        {w.ref(INTERNAL_PREFIX + o, k)},")
    reg.append("    )")
    out = [f"# Code generated by tools/gen_api.py (internal mode) from {source}. DO NOT EDIT.",
           "# Regenerate: see docs/generating.md (\"Internal versions\")."]
    what = (f"borrowing the internal types of {', '.join(sorted(set(borrowed.values())))}"
            if borrowed else "every field of every served version")
    out.append(f'"""Internal (hub) version of API group {group or "core"}: {what}."""')
    if conflicts:
        out.append("# Fields whose shape differs between versions (hand-written conversions map them):")
        for cf in sorted(set(conflicts)):
            out.append(f"#   {cf}")
    out.append("from __future__ import annotations")
    out.append("")
    out.append(f"from typing import {', '.join(sorted(w.typing_names))}")
    out.append("")
    if own:
        model = sorted(n for n in w.model_names if n != "_field")
        out.append(f"from kcodec.model import {', '.join(_model_sort(model))}")
        if "_field" in w.model_names:
            out.append("from kcodec.model import field as _field")
    rnames = sorted({line.split()[-1] for line in w.imports if line.startswith("from kcodec.runtime ")})
    if any(c.is_object for c in own):
        rnames.insert(0, "Object")
    if rnames:
        out.append(f"from kcodec.runtime import {', '.join(rnames)}")
    out.append("from kcodec.schema import GroupVersion")
    tnames = sorted({line.split()[-1] for line in w.imports if line.startswith("from kcodec.types")})
    if tnames:
        out.append(f"from kcodec.types import {', '.join(tnames)}")
    for path in sorted(w.modules, key=lambda p: module_of(p)[2]):
        parent, ver, alias = module_of(path)
        out.append(f"from {parent} import {ver} as {alias}")
    out.append("")
    out.append(f'SCHEME_GROUP_VERSION = GroupVersion("{group}", "__internal")')
    out.extend(body)
    out.extend(reg)
    out.append("")
    out.append("")
    out.append("__all__ = [")
    for e in [c.name for c in classes] + ["SCHEME_GROUP_VERSION", "add_to_scheme"]:
        out.append(f'    "{e}",')
    out.append("]")
    return "\n".join(out) + "\n"

# --------------------------------------------------------------------------- removed versions
#
# API versions (or kinds of a version) that k8s.io/api no longer has but real manifests still
# use: each is generated from the last k8s.io/api release that had it, into
# kcodec/api/removed/<package>_<version>.py, whose add_to_scheme registers only the removed
# kinds (the version may live on with other kinds: resource.k8s.io/v1alpha3). They are
# installed in kcodec.legacyscheme only (kcodec/api/removed/__init__.py), not in the
# external scheme of k8s.io/api v0.36.3. Class references into other packages resolve to
# today's modules (kcodec.api.core.v1 ...), which hold every field the old ones had.

# (k8s.io/api tag, commit, package, kinds). Versions whose successor changed shape with no
# upstream conversion (storagemigration/v1alpha1, coordination/v1alpha1, scheduling/v1alpha1
# Workload) are not listed: kcodec.api.removed.REMOVED says why.
REMOVED_SOURCES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("v0.35.7", "cfdecb500cd48f6d4c05d866458364f39f67b5b5", "autoscaling/v2beta1",
     ("HorizontalPodAutoscaler", "HorizontalPodAutoscalerList")),
    ("v0.35.7", "cfdecb500cd48f6d4c05d866458364f39f67b5b5", "autoscaling/v2beta2",
     ("HorizontalPodAutoscaler", "HorizontalPodAutoscalerList")),
    ("v0.35.7", "cfdecb500cd48f6d4c05d866458364f39f67b5b5", "scheduling/v1alpha1",
     ("PriorityClass", "PriorityClassList")),
    ("v0.34.10", "06d3e85b84ef86973ad19a2d7976995bd3908226", "certificates/v1alpha1",
     ("PodCertificateRequest", "PodCertificateRequestList")),
    ("v0.33.13", "63b731b23fe7df9be903976bee691952387abe01", "networking/v1alpha1",
     ("IPAddress", "IPAddressList", "ServiceCIDR", "ServiceCIDRList")),
    ("v0.33.13", "63b731b23fe7df9be903976bee691952387abe01", "resource/v1alpha3",
     ("DeviceClass", "DeviceClassList", "ResourceClaim", "ResourceClaimList",
      "ResourceClaimTemplate", "ResourceClaimTemplateList", "ResourceSlice", "ResourceSliceList")),
    ("v0.28.15", "efcef04c33c1bd224bd25650bafeadae87fe0fb6", "flowcontrol/v1alpha1",
     ("FlowSchema", "FlowSchemaList", "PriorityLevelConfiguration", "PriorityLevelConfigurationList")),
    ("v0.20.15", "41066696911aa51914e1acf3028d571940d9f2a5", "batch/v2alpha1",
     ("CronJob", "CronJobList")),
    ("v0.20.15", "41066696911aa51914e1acf3028d571940d9f2a5", "discovery/v1alpha1",
     ("EndpointSlice", "EndpointSliceList")),
)

REMOVED_DIR = "api/removed"


def generate_removed(removed_root: Path, machinery_root: Path) -> dict[str, str]:
    """{relative file path: text} of every REMOVED_SOURCES module; *removed_root* holds one
    checkout of k8s.io/api per tag, in a directory named after the tag."""
    files: dict[str, str] = {}
    worlds: dict[str, World] = {}
    for tag, commit, package, kinds in REMOVED_SOURCES:
        root = removed_root / tag
        if not (root / package / "register.go").exists():
            raise GenError(f"--removed {removed_root}: no {tag}/{package}/register.go there")
        world = worlds.get(tag)
        if world is None:
            world = worlds[tag] = World(discover(root, machinery_root))
        pkg = world.packages[API_PREFIX + package]
        text = render_module(world, pkg, f"k8s.io/api {tag} ({commit[:12]})", only_kinds=kinds)
        text = text.replace("# Regenerate: see docs/generating.md",
                            "# Regenerate: see docs/generating.md (\"Removed versions\")", 1)
        files[f"{REMOVED_DIR}/{package.replace('/', '_')}.py"] = text
    return files


# --------------------------------------------------------------------------- driver

def discover(api_root: Path, machinery_root: Path,
             extra: dict[str, Path] | None = None) -> dict[str, GoPackage]:
    """Parse every group/version package of k8s.io/api plus apimachinery meta/v1, and of the
    EXTRA_SOURCES repositories named in *extra* ({flag: checkout})."""
    packages: dict[str, GoPackage] = {}
    for reg in sorted(api_root.glob("*/*/register.go")):
        d = reg.parent
        path = f"{API_PREFIX}{d.parent.name}/{d.name}"
        packages[path] = parse_package(d, path)
    packages[META_PKG] = parse_package(machinery_root / "pkg/apis/meta/v1", META_PKG)
    for flag, _env, module, _tag, _commit, sub in EXTRA_SOURCES:
        root = (extra or {}).get(flag)
        if root is None:
            continue
        base = Path(root) / sub
        if not (base / "register.go").exists():
            raise GenError(f"--{flag} {root}: no {sub}/register.go there")
        packages[f"{module}/{sub}"] = parse_package(base, f"{module}/{sub}")
        for reg in sorted(base.glob("*/register.go")):
            path = f"{module}/{sub}/{reg.parent.name}"
            packages[path] = parse_package(reg.parent, path)
    return packages


def _source_of(path: str) -> str:
    """The "<module> <tag> (<commit>)" a generated module names in its header."""
    if path == META_PKG:
        return f"k8s.io/apimachinery {API_VERSION_TAG} ({APIMACHINERY_COMMIT[:12]})"
    for _flag, _env, module, tag, commit, sub in EXTRA_SOURCES:
        if path.startswith(f"{module}/{sub}"):
            return f"{module} {tag} ({commit[:12]})"
    return f"k8s.io/api {API_VERSION_TAG} ({API_COMMIT[:12]})"


# Packages whose __init__.py is written by hand (the generator leaves it alone).
HAND_WRITTEN_INITS = ("api/meta", "api/apiextensions", "api/removed")


def generate(api_root: Path, machinery_root: Path,
             extra: dict[str, Path] | None = None) -> tuple[dict[str, str], list[str]]:
    """Return {relative file path: text} for every generated file, and generator notes.

    *extra* maps EXTRA_SOURCES flags (``apiextensions``, ``kube-aggregator``) to checkouts of
    those repositories; groups whose checkout is not given are not generated."""
    packages = discover(api_root, machinery_root, extra)
    world = World(packages)
    files: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    for path, pkg in sorted(packages.items()):
        parent, ver, _ = module_of(path)
        rel = "/".join(parent.split(".")[1:])  # api/<group>
        files[f"{rel}/{ver}.py"] = render_module(world, pkg, _source_of(path))
        groups.setdefault(rel, []).append(ver)
    for name, text in generate_internal(world, _source_of(API_PREFIX + "core/v1")).items():
        files[f"api/{name}/internal.py"] = text
    if all(flag in (extra or {}) for flag, *_ in EXTRA_SOURCES):
        # One file for every version: written only when every source is given, so that a
        # partial run does not drop the others' texts.
        files[DOCS] = render_docs(packages)
    for rel, vers in sorted(groups.items()):
        if rel in HAND_WRITTEN_INITS:
            continue  # kcodec/api/meta/__init__.py belongs to the integrator
        grp = rel.split("/", 1)[1]
        files[f"{rel}/__init__.py"] = (
            f"# Code generated by tools/gen_api.py. DO NOT EDIT.\n"
            f'"""Kubernetes API package {grp}: versions {", ".join(sorted(vers))}."""\n')
    return files, world.notes


REGISTRY = "api/_registry.py"
DOCS = "api/_swagger_docs.json"
_SWAGGER_MAP = re.compile(r"^var map_(\w+) = map\[string\]string\{\n(.*?)\n\}", re.S | re.M)
_SWAGGER_ENTRY = re.compile(r'^\t"([^"\\]*)":\s*"((?:[^"\\\n]|\\.)*)",$', re.M)


def render_docs(packages: dict[str, GoPackage]) -> str:
    """kcodec/api/_swagger_docs.json: what kube-apiserver's OpenAPI documents say of each type
    and field (kcodec.server.openapi reads it when it builds a document): the texts of
    types_swagger_doc_generated.go, and for the types it does not cover (apiextensions,
    apiregistration, meta/v1's watch event) the doc comments as openapi-gen words them.
    ``strings`` holds each text once, in first-seen order; ``types`` maps module -> Go type ->
    {JSON field name ("" for the type): index}; ``schema`` holds _openapi_markers."""
    strings: dict[str, int] = {}
    types: dict[str, dict[str, dict[str, int]]] = {}
    schema: dict[str, dict[str, dict[str, Any]]] = {}
    for path, pkg in sorted(packages.items()):
        parent, ver, _ = module_of(path)
        if ver == "internal":
            continue
        doc = pkg.directory / "types_swagger_doc_generated.go"
        extras = _openapi_markers(pkg, f"{parent}.{ver}")
        if extras:
            schema[f"{parent}.{ver}"] = extras
        mod = types.setdefault(f"{parent}.{ver}", {})
        if doc.exists():
            src = doc.read_text(encoding="utf-8")
            for m in _SWAGGER_MAP.finditer(src):
                entries = _SWAGGER_ENTRY.findall(m.group(2))
                if len(entries) != m.group(2).count("\n") + 1:
                    raise GenError(f"{doc}: map_{m.group(1)} has lines the generator cannot read")
                mod[m.group(1)] = {key: strings.setdefault(json.loads(f'"{raw}"'), len(strings))
                                   for key, raw in entries}  # Go's string literal: JSON's escapes suffice
        # openapi-gen writes the other types' descriptions from their doc comments
        for name, decl in sorted(pkg.decls.items()):
            if decl.alias or decl.type.kind != "struct" or not name[:1].isupper() or name in mod:
                continue
            fields: dict[str, int] = {}
            text = openapi_description(comment_text(decl.markers))
            if text:
                fields[""] = strings.setdefault(text, len(strings))
            for gf in decl.type.fields or []:
                jtag = parse_tag(gf.tag).get("json")
                if jtag == "-" or (gf.embedded and (jtag is None or jtag.split(",")[0] == "")):
                    continue
                jname = (jtag or "").split(",")[0] or gf.name
                text = openapi_description(gf.doc)
                if text:
                    fields[jname] = strings.setdefault(text, len(strings))
            if fields:
                mod[name] = fields
    body = json.dumps({"schema": schema, "strings": list(strings), "types": types}, indent=0, sort_keys=True,
                      ensure_ascii=False)
    return body + "\n"


_CONST_RE = re.compile(r"^\s*(\w+)\s+\w+\s*=\s*(\"[^\"]*\"|-?[0-9]+)\s*$", re.M)


def _openapi_markers(pkg: GoPackage, where: str) -> dict[str, dict[str, Any]]:
    """What openapi-gen reads besides the merge tags: ``+default=`` (a JSON value, or
    ``ref(Const)``: the constant's value) and the required list where ``+required`` /
    ``+optional`` make it differ from "every field without omitempty" (which
    kcodec.server.openapi derives from the field tables). {Go type: {"default": {json name:
    value}, "required": [json names]}}."""
    consts: dict[str, Any] | None = None
    out: dict[str, dict[str, Any]] = {}
    for name, decl in pkg.decls.items():
        if decl.alias or decl.type.kind != "struct":
            continue
        defaults: dict[str, Any] = {}
        required: list[str] = []
        plain: list[str] = []
        for gf in decl.type.fields or []:
            jtag = parse_tag(gf.tag).get("json")
            if jtag == "-" or (gf.embedded and (jtag is None or jtag.split(",")[0] == "")):
                continue  # not a JSON field of its own (inline members belong to their type)
            parts = (jtag or "").split(",")
            jname = parts[0] or gf.name
            omitempty = "omitempty" in parts[1:] or "omitzero" in parts[1:]
            optional = "optional" in gf.markers
            forced = "required" in gf.markers
            if not omitempty:
                plain.append(jname)
            if forced or (not optional and not omitempty):
                required.append(jname)
            for m in gf.markers:
                if m.startswith("default="):
                    raw = m[len("default="):].strip()
                    if raw.startswith("ref(") and raw.endswith(")"):
                        if consts is None:
                            consts = {}
                            for f in sorted(pkg.directory.glob("*.go")):
                                if not f.name.endswith("_test.go"):
                                    for cname, cval in _CONST_RE.findall(f.read_text(encoding="utf-8")):
                                        consts.setdefault(cname, cval)
                        cval = consts.get(raw[4:-1])
                        if cval is None or not cval.startswith('"'):
                            raise GenError(f"{where}.{name}.{gf.name}: +default={raw}: no string constant")
                        defaults[jname] = json.loads(cval)
                    else:
                        try:
                            defaults[jname] = json.loads(raw)
                        except ValueError as exc:
                            raise GenError(f"{where}.{name}.{gf.name}: +default={raw} is not JSON") from exc
        entry: dict[str, Any] = {}
        if defaults:
            entry["default"] = defaults
        if required != plain:
            entry["required"] = required
        if entry:
            out[name] = entry
    return out
_VERSION_MODULE = re.compile(r"v[0-9]+(?:(?:alpha|beta)[0-9]+)?")


def render_registry(out: Path) -> str:
    """Text of ``kcodec/api/_registry.py``: every external group/version, its module and the
    kinds its ``add_to_scheme`` registers, read by registering each generated module under
    ``out`` into a fresh Scheme. ``kcodec.api.scheme`` answers from this table and imports a
    group's module only when one of its kinds is first used."""
    import importlib

    sys.path.insert(0, str(out.parent))
    try:
        from kcodec.runtime.scheme import Scheme

        rows = []
        for path in sorted((out / "api").glob("*/*.py")):
            if not _VERSION_MODULE.fullmatch(path.stem):
                continue
            name = f"kcodec.api.{path.parent.name}.{path.stem}"
            scheme = Scheme("registry")
            module = importlib.import_module(name)
            module.add_to_scheme(scheme)
            gv = module.SCHEME_GROUP_VERSION
            rows.append((gv.group, gv.version, name, tuple(sorted(scheme.known_types(gv)))))
    finally:
        sys.path.pop(0)
    lines = [
        "# Code generated by tools/gen_api.py. DO NOT EDIT.",
        "# Regenerate: python tools/gen_api.py --registry-only",
        '"""Every external group/version of kcodec.api: its module and the kinds it registers."""',
        "",
        "#: (group, version) -> (module, the kinds its add_to_scheme registers, space-separated)",
        "GROUP_VERSIONS: dict[tuple[str, str], tuple[str, str]] = {",
    ]
    for group, version, name, kinds in sorted(rows):
        lines.append(f"    ({group!r}, {version!r}): ({name!r}, {' '.join(kinds)!r}),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    here = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--api", default=os.environ.get("KCODEC_UPSTREAM_API", "/tmp/upstream/api"))
    ap.add_argument("--apimachinery", default=os.environ.get("KCODEC_UPSTREAM_APIMACHINERY",
                                                             "/tmp/upstream/apimachinery"))
    for flag, env, module, tag, _commit, _sub in EXTRA_SOURCES:
        ap.add_argument(f"--{flag}", default=os.environ.get(env),
                        help=f"checkout of {module} {tag} (default ${env}; omitted: not generated)")
    ap.add_argument("--removed", default=os.environ.get("KCODEC_UPSTREAM_REMOVED"),
                    help="directory of k8s.io/api checkouts named by tag (v0.35.7, ...) for the "
                         "removed versions of REMOVED_SOURCES (default $KCODEC_UPSTREAM_REMOVED; "
                         "omitted: not generated)")
    ap.add_argument("--out", default=str(here / "kcodec"))
    ap.add_argument("--notes", action="store_true", help="print the special cases found")
    ap.add_argument("--registry-only", action="store_true",
                    help=f"only rewrite kcodec/{REGISTRY} from the generated modules "
                         "(no upstream checkout needed)")
    args = ap.parse_args(argv)
    extra = {flag: Path(v) for flag, *_ in EXTRA_SOURCES
             if (v := getattr(args, flag.replace("-", "_")))}
    out = Path(args.out)
    if args.registry_only:
        (out / REGISTRY).write_text(render_registry(out))
        print(f"wrote {out / REGISTRY}", file=sys.stderr)
        return 0
    files, notes = generate(Path(args.api), Path(args.apimachinery), extra)
    if args.removed:
        files.update(generate_removed(Path(args.removed), Path(args.apimachinery)))
    for rel, text in sorted(files.items()):
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
    registry = out / REGISTRY
    text = render_registry(out)
    if not registry.exists() or registry.read_text() != text:
        registry.write_text(text)
    if args.notes:
        for n in notes:
            print(n)
    print(f"wrote {len(files) + 1} files under {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
