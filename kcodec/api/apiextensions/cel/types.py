"""The value types of the Kubernetes CEL libraries and the namespaces of qualified function
names (Go: k8s.io/apiserver ``pkg/cel/url.go``, ``quantity.go``, ``ip.go``, ``cidr.go``,
``format.go``; cel-go resolves ``ip.isCanonical``, ``sets.contains``, ``lists.range``,
``optional.of`` and ``format.named`` as qualified names, celpy sees variables, bound to the
namespace objects here).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from kcodec.api.apiextensions.cel import loader

__all__: list[str] = []


class _Format:
    """apiserver pkg/cel/format.go: a named string format (``format.dns1123Label()``)."""

    __slots__ = ("name", "check")

    def __init__(self, name: str, check: Callable[[str], list[str]]) -> None:
        self.name = name
        self.check = check

    def __repr__(self) -> str:
        return f"format.{self.name}()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Format) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)


class _URL:
    """apiserver pkg/cel/url.go: a URL value (``url('https://...')``)."""

    __slots__ = ("text", "parts")

    def __init__(self, text: str) -> None:
        self.text = text
        self.parts = urlsplit(text)

    def __repr__(self) -> str:
        return f"url({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _URL) and self.text == other.text

    def __hash__(self) -> int:
        return hash(self.text)


class _Quantity:
    """apiserver pkg/cel/quantity.go: a resource.Quantity value."""

    __slots__ = ("q",)

    def __init__(self, q: Any) -> None:
        self.q = q

    def __repr__(self) -> str:
        return f"quantity({str(self.q)!r})"

    def __str__(self) -> str:
        return str(self.q)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Quantity) and self.q.cmp(other.q) == 0

    def __hash__(self) -> int:
        return hash(self.q)


class _IP:
    """apiserver pkg/cel/ip.go."""

    __slots__ = ("addr",)

    def __init__(self, addr: Any) -> None:
        self.addr = addr

    def __repr__(self) -> str:
        return f"ip({str(self.addr)!r})"

    def __str__(self) -> str:
        return str(self.addr)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _IP) and self.addr == other.addr

    def __hash__(self) -> int:
        return hash(self.addr)


class _CIDR:
    """apiserver pkg/cel/cidr.go: an address and its prefix (``cidr('10.0.0.1/8')`` keeps the address)."""

    __slots__ = ("iface",)

    def __init__(self, iface: Any) -> None:
        self.iface = iface

    def __repr__(self) -> str:
        return f"cidr({str(self.iface)!r})"

    def __str__(self) -> str:
        return str(self.iface)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _CIDR) and self.iface == other.iface

    def __hash__(self) -> int:
        return hash(self.iface)


class _Semver:
    """apiserver pkg/cel/semver.go: a blang/semver/v4 ``Version`` (``semver('1.2.3')``).
    *pre* holds each prerelease identifier as an int (numeric) or a str; *build* its build
    metadata, which equality and ordering ignore (``Version.Compare``)."""

    __slots__ = ("major", "minor", "patch", "pre", "build")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple[int | str, ...] = (),
                 build: tuple[str, ...] = ()) -> None:
        self.major, self.minor, self.patch, self.pre, self.build = major, minor, patch, pre, build

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text

    def __repr__(self) -> str:
        return f"semver({str(self)!r})"

    def compare(self, other: _Semver) -> int:
        """blang/semver ``Version.Compare``: -1, 0 or 1."""
        a, b = (self.major, self.minor, self.patch), (other.major, other.minor, other.patch)
        if a != b:
            return 1 if a > b else -1
        if not self.pre or not other.pre:
            # a version without prerelease identifiers ranks above one with them
            return (len(other.pre) > 0) - (len(self.pre) > 0)
        for x, y in zip(self.pre, other.pre):
            if x == y:
                continue
            if isinstance(x, int) != isinstance(y, int):
                return -1 if isinstance(x, int) else 1  # numeric identifiers rank below alphanumeric
            return 1 if x > y else -1  # type: ignore[operator]
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Semver) and self.compare(other) == 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))


class _Namespace:
    """The ``ip`` in ``ip.isCanonical(s)``: cel-go resolves the qualified function name; celpy
    sees a variable, bound to this."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ip"


_IP_NAMESPACE = _Namespace()


class _SetsNamespace:
    """``sets`` of ``sets.contains(...)`` (cel-go ext sets), bound as a variable for celpy."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "sets"


class _ListsNamespace:
    """``lists`` of ``lists.range(n)`` (cel-go ext lists)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "lists"


class _OptionalNamespace:
    """``optional`` of ``optional.of(x)``, ``optional.none()``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "optional"


class _FormatNamespace:
    """``format`` of ``format.dns1123Label()``, ``format.named(n)`` (library/format.go)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "format"


_OPTIONAL_NAMESPACE = _OptionalNamespace()


def _net_types() -> Any:
    """``net.IP`` and ``net.CIDR``, the type names ``type(ip(s))`` and ``type(cidr(s))`` compare
    with (apiserver pkg/cel/ip.go, cidr.go): a map celpy selects from."""
    ct = loader.celpy.celtypes
    return ct.MapType({ct.StringType("IP"): _IP, ct.StringType("CIDR"): _CIDR})


def _kubernetes_types() -> Any:
    """``kubernetes.Semver``, the type name ``type(semver(s))`` compares with (apiserver
    pkg/cel/semver.go SemverType)."""
    ct = loader.celpy.celtypes
    return ct.MapType({ct.StringType("Semver"): _Semver})


_FORMAT_NAMESPACE = _FormatNamespace()

_SETS_NAMESPACE = _SetsNamespace()

_LISTS_NAMESPACE = _ListsNamespace()
