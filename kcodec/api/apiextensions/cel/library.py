"""The functions CRD validation rules may call, by name (Go: k8s.io/apiserver
``pkg/cel/library``: lists.go, regex.go, urls.go, quantity.go, ip.go, cidr.go, format.go;
and cel-go's ``ext`` strings.go, formatting.go, lists.go and sets.go, its optional values
and the standard operators). One function per Go library file returns that library's name -> function
table; :func:`_lib` composes them. Each function checks its arguments' types as cel-go's
overloads do and raises ``no such overload`` otherwise, so a name two libraries define
(``indexOf`` of lists and of strings) tries each in turn, as cel-go picks an overload.
"""
from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs

from kcodec.api.apiextensions.cel import loader
from kcodec.gofmt import quote
from kcodec.api.apiextensions.cel.types import (
    _CIDR, _FORMAT_NAMESPACE, _IP, _IP_NAMESPACE, _LISTS_NAMESPACE, _OPTIONAL_NAMESPACE, _SETS_NAMESPACE, _URL,
    _Format, _Quantity, _Semver,
)
from kcodec.api.apiextensions.cel.values import (
    _NO_OVERLOAD, _NONE, _EvalError, _Optional, _cel_equal, _concat, _is_num, _overload,
)

__all__ = ["lists_library", "regex_library", "urls_library", "quantity_library", "ip_library",
           "cidr_library", "format_library", "strings_library", "formatting_library", "ext_lists_library",
           "sets_library", "optional_library", "semver_library", "standard_library", "parse_semver"]

# Go's time.RFC3339 layout as text (format.go's datetime, cel-go's timestamp()).
_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_list(v: Any) -> bool:
    return isinstance(v, list)


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _overload()
    return int(v)


def _regex() -> Any:
    try:
        import re2  # google-re2 comes with cel-python; Go's regexp is RE2 too

        return re2
    except ImportError:  # pragma: no cover - cel-python depends on it
        return re


# RE2's error codes (re2/regexp.cc CodeText) -> Go's regexp/syntax ErrorCode texts, which
# name the same errors
_RE2_TO_GO = {
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
    "invalid named capture group": "invalid named capture",
}


def regex_error_text(exc: BaseException) -> str:
    """Go's ``*syntax.Error`` text (``error parsing regexp: <code>: `<expr>```) for the error
    re2 (or Python's re) raised compiling a pattern."""
    raw = exc.args[0] if exc.args else str(exc)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, sep, expr = text.partition(": ")
    if code in _RE2_TO_GO:
        return f"error parsing regexp: {_RE2_TO_GO[code]}: `{expr if sep else ''}`"
    return f"error parsing regexp: {text}"


def _compile_regex(pattern: str) -> Any:
    try:
        return _regex().compile(pattern)
    except Exception as exc:  # noqa: BLE001 - re2 and re raise different errors
        raise _EvalError(f"Illegal regex: {regex_error_text(exc)}") from None


def _parse_ip(s: str) -> Any:
    # Go's library refuses IPv4-mapped IPv6 addresses and zones (apiserver library/ip.go).
    if "%" in s:
        raise _EvalError(f"IP address with zone value is not allowed: {s}")
    try:
        addr = ipaddress.ip_address(s)
    except ValueError:
        raise _EvalError(f"IP Address {s!r} parse error during conversion from string: "
                         f"ParseAddr({s!r}): unable to parse IP") from None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise _EvalError(f"IPv4-mapped IPv6 address is not allowed: {s}")
    return addr


def _parse_cidr(s: str) -> Any:
    if "%" in s:
        raise _EvalError(f"CIDR with zone value is not allowed: {s}")
    try:
        iface = ipaddress.ip_interface(s)
    except ValueError:
        raise _EvalError(f"network address parse error during conversion from string: "
                         f"netip.ParsePrefix({s!r}): bad prefix") from None
    if "/" not in s:
        raise _EvalError(f"network address parse error during conversion from string: "
                         f"netip.ParsePrefix({s!r}): no '/'")
    if isinstance(iface.ip, ipaddress.IPv6Address) and iface.ip.ipv4_mapped is not None:
        raise _EvalError(f"IPv4-mapped IPv6 address is not allowed: {s}")
    return iface


def _parse_request_uri(s: str) -> bool:
    """Whether Go's url.ParseRequestURI accepts *s*: an absolute URL or an absolute path,
    no control characters, a host with a numeric port if any."""
    if not s or any(ord(c) < 0x20 or c == "\x7f" for c in s):
        return False
    if s.startswith("/"):
        return True
    m = re.match(r"([a-zA-Z][a-zA-Z0-9+.-]*):(.*)\Z", s, re.S)
    if m is None:
        return False
    rest = m.group(2).split("#", 1)[0]
    if rest.startswith("//"):
        authority = re.split(r"[/?]", rest[2:], maxsplit=1)[0]
        host = authority.rpartition("@")[2]
        if host.startswith("["):
            end = host.find("]")
            if end < 0 or (host[end + 1:] and not re.fullmatch(r":[0-9]*", host[end + 1:])):
                return False
        elif ":" in host and not re.fullmatch(r"[^:]*:[0-9]*", host):
            return False
        if " " in host:
            return False
    elif not rest.startswith("/"):
        return False  # ParseRequestURI: an opaque URL (scheme:path) is not a request URI
    return True


def _escaped_path(path: str) -> str:
    """Go's URL.EscapedPath (the path's encodePath escaping)."""
    from urllib.parse import quote, unquote

    return quote(unquote(path), safe="/!$&'()*+,;=:@~")


def _quantity(v: Any) -> Any:
    from kcodec.types import Quantity

    if not isinstance(v, _Quantity):
        if isinstance(v, bool) or not isinstance(v, int):
            raise _overload()
        return Quantity(str(int(v)))
    return v.q


def _quantity_sum(a: Any, b: Any, sign: int) -> _Quantity:
    from kcodec.types import Quantity

    x, y = _quantity(a), _quantity(b)
    # value = m * 10**e (kcodec.types.Quantity), summed exactly as inf.Dec would.
    e = min(x._e, y._e)
    m = x._m * 10 ** (x._e - e) + sign * y._m * 10 ** (y._e - e)
    text = str(m) + (f"e{e}" if e else "")
    q = Quantity(text)
    fmt = x._format or "DecimalSI"
    if fmt != q._format:
        q = Quantity._make(q._m, q._e, fmt, q._dec)
    return _Quantity(q)


def _formats() -> dict[str, _Format]:
    """library/format.go ConstantFormats, with kcodec's ports of apimachinery's validators."""
    from kcodec.validation import names

    def regex_check(pattern: str, message: str) -> Callable[[str], list[str]]:
        compiled = re.compile(pattern)
        return lambda s: [] if compiled.match(s) else [message]

    def byte_check(s: str) -> list[str]:
        try:
            base64.b64decode(s, validate=True)
        except (binascii.Error, ValueError):
            return ["invalid base64"]
        return []

    def uri_check(s: str) -> list[str]:
        return [] if _parse_request_uri(s) else [f"parse {s!r}: invalid URI for request"]

    return {
        "dns1123Label": _Format("dns1123Label", lambda s: names.name_is_dns_label(s, False)),
        "dns1123Subdomain": _Format("dns1123Subdomain", lambda s: names.name_is_dns_subdomain(s, False)),
        "dns1035Label": _Format("dns1035Label", lambda s: names.name_is_dns1035_label(s, False)),
        "qualifiedName": _Format("qualifiedName", names.is_qualified_name),
        "dns1123LabelPrefix": _Format("dns1123LabelPrefix", lambda s: names.name_is_dns_label(s, True)),
        "dns1123SubdomainPrefix": _Format("dns1123SubdomainPrefix", lambda s: names.name_is_dns_subdomain(s, True)),
        "dns1035LabelPrefix": _Format("dns1035LabelPrefix", lambda s: names.name_is_dns1035_label(s, True)),
        "labelValue": _Format("labelValue", names.is_valid_label_value),
        "uri": _Format("uri", uri_check),
        # go-openapi strfmt's patterns
        "uuid": _Format("uuid", regex_check(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\Z",
                                            "does not match the UUID format")),
        "byte": _Format("byte", byte_check),
        "date": _Format("date", regex_check(r"\d{4}-\d{2}-\d{2}\Z", "invalid date")),
        "datetime": _Format("datetime", lambda s: [] if _RFC3339.match(s) else ["invalid datetime"]),
    }


_SUPERSCRIPTS = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b")


def _format_value(v: Any, quote: bool = False) -> str:
    """cel-go ext strings' %s of a value."""
    ct = loader.celpy.celtypes
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, ct.DurationType):
        secs = v.total_seconds()
        return (f"{secs:.9f}".rstrip("0").rstrip(".") if secs != int(secs) else str(int(secs))) + "s"
    if isinstance(v, ct.TimestampType):
        return v.strftime("%Y-%m-%dT%H:%M:%S") + (f".{v.microsecond:06d}".rstrip("0") if v.microsecond else "") + "Z"
    if isinstance(v, str):
        return '"' + v + '"' if quote else str(v)
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, float):
        from kcodec.gofmt import format_g

        return format_g(v)
    if isinstance(v, list):
        return "[" + ", ".join(_format_value(x, True) for x in v) + "]"
    if isinstance(v, Mapping):
        items = sorted(((_format_value(k, True), _format_value(x, True)) for k, x in v.items()))
        return "{" + ", ".join(f"{k}: {x}" for k, x in items) + "}"
    return str(v)


def _string_format(template: str, args: list[Any]) -> str:
    """cel-go ext strings' ``format``: %s %d %f %e %b %o %x %X with an optional precision."""
    out, i, n = [], 0, 0
    while i < len(template):
        c = template[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        if template[i + 1:i + 2] == "%":
            out.append("%")
            i += 2
            continue
        m = re.match(r"%(?:\.(\d+))?([sdfeboxX])", template[i:])
        if m is None:
            raise _EvalError(f"could not parse formatting clause: unrecognized formatting clause \"{template[i + 1:i + 2]}\"")
        if n >= len(args):
            raise _EvalError(f"index {n} out of range")
        v, precision, verb = args[n], m.group(1), m.group(2)
        n += 1
        i += m.end()
        if verb == "s":
            out.append(_format_value(v))
        elif verb == "d":
            if not _is_num(v) or isinstance(v, float):
                raise _EvalError("error during formatting: decimal clause can only be used on integers")
            out.append(str(int(v)))
        elif verb in "fe":
            if not _is_num(v):
                raise _EvalError(f"error during formatting: {'fixed-point' if verb == 'f' else 'scientific'} clause "
                                 f"can only be used on doubles")
            p = int(precision) if precision is not None else 6
            if verb == "f":
                out.append(f"{float(v):.{p}f}")
            else:
                mantissa, exp = f"{float(v):.{p}e}".split("e")
                e = int(exp)
                out.append(f"{mantissa}\u00d710" + ("-" if e < 0 else "").translate(_SUPERSCRIPTS)
                           + f"{abs(e):02d}".translate(_SUPERSCRIPTS))
        else:
            if isinstance(v, (str, bytes)) and verb in "xX":
                data = v.encode() if isinstance(v, str) else bytes(v)
                text = data.hex()
            elif _is_num(v) and not isinstance(v, float):
                text = format(int(v), {"b": "b", "o": "o", "x": "x", "X": "X"}[verb])
            else:
                raise _EvalError("error during formatting: only integers, byte buffers, and strings can be "
                                 "formatted as hex" if verb in "xX" else "error during formatting: only integers "
                                 "can be formatted as binary" if verb == "b" else
                                 "error during formatting: octal clause can only be used on integers")
            out.append(text.upper() if verb == "X" else text)
    return "".join(out)


def _exact_int(q: Any) -> int | None:
    """The quantity as an int64 when it is one exactly (Go Quantity.AsInt64)."""
    m, e = q._m, q._e
    if e >= 0:
        v = m * 10 ** e
    else:
        d = 10 ** -e
        if m % d:
            return None
        v = m // d
    return v if -(1 << 63) <= v < (1 << 63) else None


def _equal(a: Any, b: Any) -> bool:
    return _cel_equal(a, b)


def _cmp_list(values: list[Any]) -> None:
    """lists.go's comparable elements: one type, or numbers of different types."""
    for a, b in zip(values, values[1:]):
        if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
            raise _overload()


def lists_library() -> dict[str, Callable[..., Any]]:
    """apiserver pkg/cel/library/lists.go: ``isSorted``, ``sum``, ``min``, ``max``,
    ``indexOf`` and ``lastIndexOf`` of lists."""
    ct = loader.celpy.celtypes

    def is_sorted(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        _cmp_list(lst)
        return ct.BoolType(all(a <= b for a, b in zip(lst, lst[1:])))

    def sum_(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        if not lst:
            return ct.IntType(0)
        total = lst[0]
        for v in lst[1:]:
            total = total + v
        return total

    def min_(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        if not lst:
            raise _EvalError("min called on empty list")
        _cmp_list(lst)
        return min(lst)

    def max_(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        if not lst:
            raise _EvalError("max called on empty list")
        _cmp_list(lst)
        return max(lst)

    def index_of(target: Any, item: Any, *rest: Any) -> Any:
        if not _is_list(target) or rest:
            raise _overload()
        for i, v in enumerate(target):
            if _equal(v, item):
                return ct.IntType(i)
        return ct.IntType(-1)

    def last_index_of(target: Any, item: Any, *rest: Any) -> Any:
        if not _is_list(target) or rest:
            raise _overload()
        for i in range(len(target) - 1, -1, -1):
            if _equal(target[i], item):
                return ct.IntType(i)
        return ct.IntType(-1)

    return {
        "isSorted": is_sorted, "sum": sum_, "min": min_, "max": max_, "indexOf": index_of,
        "lastIndexOf": last_index_of,
    }


def regex_library() -> dict[str, Callable[..., Any]]:
    """apiserver pkg/cel/library/regex.go: ``find`` and ``findAll``."""
    ct = loader.celpy.celtypes

    def find(s: Any, pattern: Any) -> Any:
        if not (_is_str(s) and _is_str(pattern)):
            raise _overload()
        m = _compile_regex(pattern).search(s)
        return ct.StringType(m.group(0) if m else "")

    def find_all(s: Any, pattern: Any, *rest: Any) -> Any:
        if not (_is_str(s) and _is_str(pattern)):
            raise _overload()
        n = _int(rest[0]) if rest else -1
        found = [m.group(0) for m in _compile_regex(pattern).finditer(s)]
        if n >= 0:
            found = found[:n]
        return ct.ListType([ct.StringType(x) for x in found])

    return {
        "find": find, "findAll": find_all,
    }


def urls_library() -> dict[str, Callable[..., Any]]:
    """apiserver pkg/cel/library/urls.go: ``url()``, ``isURL()`` and the URL's getters."""
    ct = loader.celpy.celtypes

    def url(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        if not _parse_request_uri(s):
            raise _EvalError(f"URL parse error during conversion from string: parse {s!r}: invalid URI for request")
        return _URL(s)

    def is_url(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.BoolType(_parse_request_uri(s))

    def url_part(name: str) -> Callable[[Any], Any]:
        def get(u: Any) -> Any:
            if not isinstance(u, _URL):
                raise _overload()
            p = u.parts
            if name == "scheme":
                return ct.StringType(p.scheme)
            if name == "host":
                return ct.StringType(p.netloc.rpartition("@")[2])
            if name == "hostname":
                host = p.netloc.rpartition("@")[2]
                if host.startswith("["):
                    return ct.StringType(host[1:host.find("]")])
                return ct.StringType(host.rsplit(":", 1)[0] if ":" in host else host)
            if name == "port":
                host = p.netloc.rpartition("@")[2]
                tail = host[host.find("]") + 1:] if host.startswith("[") else host
                return ct.StringType(tail.rsplit(":", 1)[1] if ":" in tail else "")
            if name == "path":
                return ct.StringType(_escaped_path(p.path))
            query = parse_qs(p.query, keep_blank_values=True)
            return ct.MapType({ct.StringType(k): ct.ListType([ct.StringType(x) for x in v]) for k, v in query.items()})
        return get

    return {
        "url": url, "isURL": is_url, "getScheme": url_part("scheme"), "getHost": url_part("host"),
        "getHostname": url_part("hostname"), "getPort": url_part("port"), "getEscapedPath": url_part("path"),
        "getQuery": url_part("query"),
    }


def quantity_library() -> dict[str, Callable[..., Any]]:
    """apiserver pkg/cel/library/quantity.go."""
    ct = loader.celpy.celtypes

    def quantity(s: Any) -> Any:
        from kcodec.errors import KCodecError
        from kcodec.types import Quantity

        if not _is_str(s):
            raise _overload()
        try:
            return _Quantity(Quantity.parse(s))
        except KCodecError as exc:
            raise _EvalError(str(exc)) from None

    def is_quantity(s: Any) -> Any:
        from kcodec.errors import KCodecError
        from kcodec.types import Quantity

        if not _is_str(s):
            raise _overload()
        try:
            Quantity.parse(s)
        except KCodecError:
            return ct.BoolType(False)
        return ct.BoolType(True)

    def sign(q: Any) -> Any:
        if not isinstance(q, _Quantity):
            raise _overload()
        return ct.IntType(q.q.sign())

    def compare(q: Any, other: Any) -> int:
        if not isinstance(q, _Quantity) or not isinstance(other, _Quantity):
            raise _overload()
        return q.q.cmp(other.q)

    def as_integer(q: Any) -> Any:
        if not isinstance(q, _Quantity):
            raise _overload()
        v = _exact_int(q.q)
        if v is None:
            raise _EvalError("cannot convert value to integer")
        return ct.IntType(v)

    def is_integer(q: Any) -> Any:
        if not isinstance(q, _Quantity):
            raise _overload()
        return ct.BoolType(_exact_int(q.q) is not None)

    def as_float(q: Any) -> Any:
        if not isinstance(q, _Quantity):
            raise _overload()
        return ct.DoubleType(float(q.q._m) * 10.0 ** q.q._e)

    def add(a: Any, b: Any) -> Any:
        if not isinstance(a, _Quantity):
            raise _overload()
        return _quantity_sum(a, b, 1)

    def sub(a: Any, b: Any) -> Any:
        if not isinstance(a, _Quantity):
            raise _overload()
        return _quantity_sum(a, b, -1)

    def compare_to(q: Any, other: Any) -> Any:
        return ct.IntType(compare(q, other))

    return {
        "quantity": quantity, "isQuantity": is_quantity, "sign": sign,
        "isGreaterThan": lambda q, o: ct.BoolType(compare(q, o) > 0),
        "isLessThan": lambda q, o: ct.BoolType(compare(q, o) < 0),
        "compareTo": compare_to, "asInteger": as_integer, "isInteger": is_integer,
        "asApproximateFloat": as_float, "add": add, "sub": sub,
    }


def ip_library() -> dict[str, Callable[..., Any]]:
    """apiserver pkg/cel/library/ip.go."""
    ct = loader.celpy.celtypes

    def ip(v: Any) -> Any:
        if _is_str(v):
            return _IP(_parse_ip(v))
        if isinstance(v, _CIDR):
            return _IP(v.iface.ip)
        raise _overload()

    def is_ip(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        try:
            _parse_ip(s)
        except _EvalError:
            return ct.BoolType(False)
        return ct.BoolType(True)

    def ip_check(name: str) -> Callable[[Any], Any]:
        def check(v: Any) -> Any:
            if not isinstance(v, _IP):
                raise _overload()
            a = v.addr
            if name == "isUnspecified":
                return ct.BoolType(a.is_unspecified)
            if name == "isLoopback":
                return ct.BoolType(a.is_loopback)
            if name == "isLinkLocalMulticast":
                net = "ff02::/16" if a.version == 6 else "224.0.0.0/24"
                return ct.BoolType(a in ipaddress.ip_network(net))
            if name == "isLinkLocalUnicast":
                return ct.BoolType(a.is_link_local and not a.is_multicast)
            # Go's netip.Addr.IsGlobalUnicast: not unspecified, loopback, multicast, link-local
            # or the IPv4 broadcast address (private addresses count).
            return ct.BoolType(not (a.is_unspecified or a.is_loopback or a.is_multicast or a.is_link_local
                                    or (a.version == 4 and str(a) == "255.255.255.255")))
        return check

    def family(v: Any) -> Any:
        if not isinstance(v, _IP):
            raise _overload()
        return ct.IntType(v.addr.version)

    def is_canonical(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.BoolType(str(_parse_ip(s)) == s)

    def is_canonical_call(target: Any, s: Any) -> Any:
        # ``ip.isCanonical(s)``: ``ip`` is bound to _IP_NAMESPACE in every activation.
        if target is not _IP_NAMESPACE:
            raise _overload()
        return is_canonical(s)

    return {
        "ip": ip, "isIP": is_ip, "family": family,
        "isUnspecified": ip_check("isUnspecified"), "isLoopback": ip_check("isLoopback"),
        "isLinkLocalMulticast": ip_check("isLinkLocalMulticast"),
        "isLinkLocalUnicast": ip_check("isLinkLocalUnicast"), "isGlobalUnicast": ip_check("isGlobalUnicast"),
        "isCanonical": is_canonical_call,
    }


def cidr_library() -> dict[str, Callable[..., Any]]:
    """apiserver pkg/cel/library/cidr.go."""
    ct = loader.celpy.celtypes

    def cidr(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return _CIDR(_parse_cidr(s))

    def is_cidr(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        try:
            _parse_cidr(s)
        except _EvalError:
            return ct.BoolType(False)
        return ct.BoolType(True)

    def contains_ip(c: Any, v: Any) -> Any:
        if not isinstance(c, _CIDR):
            raise _overload()
        addr = v.addr if isinstance(v, _IP) else _parse_ip(v) if _is_str(v) else None
        if addr is None:
            raise _overload()
        return ct.BoolType(addr.version == c.iface.version and addr in c.iface.network)

    def contains_cidr(c: Any, v: Any) -> Any:
        if not isinstance(c, _CIDR):
            raise _overload()
        other = v.iface if isinstance(v, _CIDR) else _parse_cidr(v) if _is_str(v) else None
        if other is None:
            raise _overload()
        return ct.BoolType(other.version == c.iface.version and other.network.subnet_of(c.iface.network))

    def masked(c: Any) -> Any:
        if not isinstance(c, _CIDR):
            raise _overload()
        return _CIDR(ipaddress.ip_interface(str(c.iface.network)))

    def prefix_length(c: Any) -> Any:
        if not isinstance(c, _CIDR):
            raise _overload()
        return ct.IntType(c.iface.network.prefixlen)

    return {
        "cidr": cidr, "isCIDR": is_cidr, "containsIP": contains_ip, "containsCIDR": contains_cidr,
        "masked": masked, "prefixLength": prefix_length,
    }


def format_library() -> dict[str, Callable[..., Any]]:
    """apiserver pkg/cel/library/format.go: ``format.named()``, ``validate()`` and the
    constant formats (``format.dns1123Label()``...)."""
    ct = loader.celpy.celtypes
    formats = _formats()

    def format_named(ns: Any, name: Any) -> Any:
        if ns is not _FORMAT_NAMESPACE or not _is_str(name):
            raise _overload()
        f = formats.get(str(name))
        return _Optional(f) if f is not None else _NONE

    def validate(f: Any, text: Any) -> Any:
        if not isinstance(f, _Format) or not _is_str(text):
            raise _overload()
        problems = f.check(str(text))
        return _Optional(ct.ListType([ct.StringType(p) for p in problems])) if problems else _NONE

    def format_constant(name: str) -> Callable[[Any], Any]:
        def get(ns: Any) -> Any:
            if ns is not _FORMAT_NAMESPACE:
                raise _overload()
            return formats[name]
        return get

    return {
        "named": format_named, "validate": validate,
        **{name: format_constant(name) for name in formats},
    }


def strings_library() -> dict[str, Callable[..., Any]]:
    """cel-go ext/strings.go: the string functions; ``indexOf``,
    ``lastIndexOf`` and ``reverse`` are the string overloads."""
    ct = loader.celpy.celtypes

    def char_at(s: Any, i: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        i = _int(i)
        if i < 0 or i > len(s):
            raise _EvalError(f"index out of range: {i}")
        return ct.StringType(s[i] if i < len(s) else "")

    def index_of_string(target: Any, item: Any, *rest: Any) -> Any:
        if not (_is_str(target) and _is_str(item)):
            raise _overload()
        start = _int(rest[0]) if rest else 0
        if start < 0 or start > len(target):
            raise _EvalError(f"index out of range: {start}")
        return ct.IntType(target.find(item, start))

    def last_index_of_string(target: Any, item: Any, *rest: Any) -> Any:
        if not (_is_str(target) and _is_str(item)):
            raise _overload()
        end = _int(rest[0]) if rest else len(target)
        if end < 0 or end > len(target):
            raise _EvalError(f"index out of range: {end}")
        if item == "":
            return ct.IntType(end)
        return ct.IntType(target.rfind(item, 0, end + len(item)))

    def lower_ascii(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.StringType("".join(c.lower() if c.isascii() else c for c in s))

    def upper_ascii(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.StringType("".join(c.upper() if c.isascii() else c for c in s))

    def replace(s: Any, old: Any, new: Any, *rest: Any) -> Any:
        if not (_is_str(s) and _is_str(old) and _is_str(new)):
            raise _overload()
        n = _int(rest[0]) if rest else -1
        return ct.StringType(s.replace(old, new, n))

    def split(s: Any, sep: Any, *rest: Any) -> Any:
        if not (_is_str(s) and _is_str(sep)):
            raise _overload()
        n = _int(rest[0]) if rest else -1
        if n == 0:
            return ct.ListType([])
        if sep == "":
            parts = list(s)
            if n > 0 and len(parts) > n:
                parts = parts[:n - 1] + ["".join(parts[n - 1:])]
        else:
            parts = s.split(sep, n - 1) if n > 0 else s.split(sep)
        return ct.ListType([ct.StringType(p) for p in parts])

    def substring(s: Any, start: Any, *rest: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        start = _int(start)
        end = _int(rest[0]) if rest else len(s)
        if start < 0 or start > len(s):
            raise _EvalError(f"index out of range: {start}")
        if end < 0 or end > len(s):
            raise _EvalError(f"index out of range: {end}")
        if start > end:
            raise _EvalError(f"invalid substring range. start: {start}, end: {end}")
        return ct.StringType(s[start:end])

    def trim(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.StringType(s.strip())

    def join(lst: Any, *rest: Any) -> Any:
        if not _is_list(lst) or not all(_is_str(x) for x in lst) or (rest and not _is_str(rest[0])):
            raise _overload()
        return ct.StringType((rest[0] if rest else "").join(lst))

    def reverse_string(s: Any) -> Any:
        if not _is_str(s):
            raise _overload()
        return ct.StringType(s[::-1])

    return {
        "charAt": char_at, "indexOf": index_of_string, "lastIndexOf": last_index_of_string,
        "lowerAscii": lower_ascii, "upperAscii": upper_ascii, "replace": replace, "split": split,
        "substring": substring, "trim": trim, "join": join, "reverse": reverse_string,
    }


def formatting_library() -> dict[str, Callable[..., Any]]:
    """cel-go ext/formatting.go: the strings extension's ``format`` (``"%s".format([x])``)."""
    ct = loader.celpy.celtypes

    def string_format(target: Any, args: Any) -> Any:
        if not (_is_str(target) and _is_list(args)):
            raise _overload()
        return ct.StringType(_string_format(str(target), list(args)))

    return {"format": string_format}


def ext_lists_library() -> dict[str, Callable[..., Any]]:
    """cel-go ext/lists.go: ``lists.range``, ``slice``, ``flatten``, ``sort``, ``distinct``
    and the list overload of ``reverse``."""
    ct = loader.celpy.celtypes

    def range_(target: Any, n: Any) -> Any:
        if target is not _LISTS_NAMESPACE:
            raise _overload()
        return ct.ListType([ct.IntType(i) for i in range(_int(n))])

    def slice_(lst: Any, start: Any, end: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        i, j = _int(start), _int(end)
        if i < 0 or j < 0:
            raise _EvalError(f"cannot slice({i}, {j}), negative indexes not supported")
        if i > j:
            raise _EvalError(f"cannot slice({i}, {j}), start index must be less than or equal to end index")
        if len(lst) < j:
            raise _EvalError(f"cannot slice({i}, {j}), list is length {len(lst)}")
        return ct.ListType(lst[i:j])

    def flatten(lst: Any, *rest: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        depth = _int(rest[0]) if rest else 1
        if depth < 0:
            raise _EvalError("level must be non-negative")

        def flat(v: list[Any], d: int) -> list[Any]:
            out: list[Any] = []
            for x in v:
                if isinstance(x, list) and d > 0:
                    out.extend(flat(x, d - 1))
                else:
                    out.append(x)
            return out
        return ct.ListType(flat(lst, depth))

    def sort(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        _cmp_list(lst)
        return ct.ListType(sorted(lst))

    def distinct(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        out: list[Any] = []
        for x in lst:
            if not any(_cel_equal(x, y) for y in out):
                out.append(x)
        return ct.ListType(out)

    def reverse_list(s: Any) -> Any:
        if not _is_list(s):
            raise _overload()
        return ct.ListType(list(reversed(s)))

    return {
        "range": range_, "slice": slice_, "flatten": flatten, "sort": sort, "distinct": distinct,
        "reverse": reverse_list,
    }


def sets_library() -> dict[str, Callable[..., Any]]:
    """cel-go ext/sets.go: ``sets.contains``, ``sets.equivalent``, ``sets.intersects``;
    any other ``contains`` is celpy's (the string function)."""
    ct = loader.celpy.celtypes
    base = loader.celpy.evaluation.base_functions

    def contains_(target: Any, *args: Any) -> Any:
        if target is _SETS_NAMESPACE:
            a, b = args
            if not (_is_list(a) and _is_list(b)):
                raise _overload()
            return ct.BoolType(all(any(_cel_equal(x, y) for y in a) for x in b))
        return base["contains"](target, *args)

    def equivalent(target: Any, a: Any, b: Any) -> Any:
        if target is not _SETS_NAMESPACE or not (_is_list(a) and _is_list(b)):
            raise _overload()
        return ct.BoolType(all(any(_cel_equal(x, y) for y in b) for x in a)
                           and all(any(_cel_equal(x, y) for y in a) for x in b))

    def intersects(target: Any, a: Any, b: Any) -> Any:
        if target is not _SETS_NAMESPACE or not (_is_list(a) and _is_list(b)):
            raise _overload()
        return ct.BoolType(any(_cel_equal(x, y) for x in a for y in b))

    return {
        "contains": contains_, "equivalent": equivalent, "intersects": intersects,
    }


_SEMVER_NUMBERS = frozenset("0123456789")
_SEMVER_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")


def _parse_uint(text: str) -> int:
    """Go's strconv.ParseUint(text, 10, 64) on digits, with its errors."""
    if not text:
        raise _EvalError(f'strconv.ParseUint: parsing {quote(text)}: invalid syntax')
    n = int(text)
    if n >= 1 << 64:
        raise _EvalError(f'strconv.ParseUint: parsing {quote(text)}: value out of range')
    return n


def _semver_number(text: str, name: str) -> int:
    if not set(text) <= _SEMVER_NUMBERS:
        raise _EvalError(f"Invalid character(s) found in {name} number {quote(text)}")
    if len(text) > 1 and text[0] == "0":
        raise _EvalError(f"{name.capitalize()} number must not contain leading zeroes {quote(text)}")
    return _parse_uint(text)


def parse_semver(s: str) -> _Semver:
    """blang/semver/v4 ``Parse``: a strict ``major.minor.patch[-pre][+build]``; raises
    :class:`_EvalError` with its error texts."""
    if not s:
        raise _EvalError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise _EvalError("No Major.Minor.Patch elements found")
    major = _semver_number(parts[0], "major")
    minor = _semver_number(parts[1], "minor")
    patch_text = parts[2]
    build: list[str] = []
    pre_text: list[str] = []
    if "+" in patch_text:
        patch_text, _, rest = patch_text.partition("+")
        build = rest.split(".")
    if "-" in patch_text:
        patch_text, _, rest = patch_text.partition("-")
        pre_text = rest.split(".")
    patch = _semver_number(patch_text, "patch")
    pre: list[int | str] = []
    for p in pre_text:
        if not p:
            raise _EvalError("Prerelease is empty")
        if set(p) <= _SEMVER_NUMBERS:
            if len(p) > 1 and p[0] == "0":
                raise _EvalError(f"Numeric PreRelease version must not contain leading zeroes {quote(p)}")
            pre.append(_parse_uint(p))
        elif set(p) <= _SEMVER_ALPHANUM:
            pre.append(p)
        else:
            raise _EvalError(f"Invalid character(s) found in prerelease {quote(p)}")
    for b in build:
        if not b:
            raise _EvalError("Build meta data is empty")
        if not set(b) <= _SEMVER_ALPHANUM:
            raise _EvalError(f"Invalid character(s) found in build meta data {quote(b)}")
    return _Semver(major, minor, patch, tuple(pre), tuple(build))


def _normalize_and_parse_semver(s: str) -> _Semver:
    """semverlib.go ``normalizeAndParse``: no leading ``v``, no leading zeros, a missing
    minor or patch number is 0."""
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or p[0] not in _SEMVER_NUMBERS:
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            raise _EvalError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse_semver(".".join(parts))


def semver_library() -> dict[str, Callable[..., Any]]:
    """apiserver pkg/cel/library/semverlib.go (SemverVersion(1), as Kubernetes' environment
    has it since 1.33): ``semver``, ``isSemver`` (each with the optional normalize argument)
    and the methods ``major``, ``minor``, ``patch``, ``isGreaterThan``, ``isLessThan``,
    ``compareTo``."""
    ct = loader.celpy.celtypes

    def parse(s: Any, rest: tuple[Any, ...]) -> _Semver:
        if not _is_str(s) or len(rest) > 1 or (rest and not isinstance(rest[0], (bool, ct.BoolType))):
            raise _overload()
        return _normalize_and_parse_semver(s) if rest and rest[0] else parse_semver(s)

    def semver(s: Any, *rest: Any) -> Any:
        return parse(s, rest)

    def is_semver(s: Any, *rest: Any) -> Any:
        try:
            parse(s, rest)
        except _EvalError as exc:
            if str(exc) == _NO_OVERLOAD:
                raise
            return ct.BoolType(False)
        return ct.BoolType(True)

    def part(name: str) -> Callable[[Any], Any]:
        def get(v: Any) -> Any:
            if not isinstance(v, _Semver):
                raise _overload()
            return ct.IntType(getattr(v, name))
        return get

    def compare(v: Any, other: Any) -> int:
        if not isinstance(v, _Semver) or not isinstance(other, _Semver):
            raise _overload()
        return v.compare(other)

    return {
        "semver": semver, "isSemver": is_semver, "major": part("major"), "minor": part("minor"),
        "patch": part("patch"),
        "isGreaterThan": lambda v, o: ct.BoolType(compare(v, o) == 1),
        "isLessThan": lambda v, o: ct.BoolType(compare(v, o) == -1),
        "compareTo": lambda v, o: ct.IntType(compare(v, o)),
    }


def optional_library() -> dict[str, Callable[..., Any]]:
    """cel-go's optional values (common/types/optional.go, the ``optional`` namespace)."""
    ct = loader.celpy.celtypes

    def has_value(o: Any) -> Any:
        if not isinstance(o, _Optional):
            raise _overload()
        return ct.BoolType(o.present)

    def value(o: Any) -> Any:
        if not isinstance(o, _Optional):
            raise _overload()
        if not o.present:
            raise _EvalError("optional.none() dereference")
        return o.v

    def or_value(o: Any, default: Any) -> Any:
        if not isinstance(o, _Optional):
            raise _overload()
        return o.v if o.present else default

    def or_(o: Any, other: Any) -> Any:
        if not isinstance(o, _Optional) or not isinstance(other, _Optional):
            raise _overload()
        return o if o.present else other

    def none(ns: Any) -> Any:
        if ns is not _OPTIONAL_NAMESPACE:
            raise _overload()
        return _NONE

    def of(ns: Any, v: Any) -> Any:
        if ns is not _OPTIONAL_NAMESPACE:
            raise _overload()
        return _Optional(v)

    def of_non_zero_value(ns: Any, v: Any) -> Any:
        if ns is not _OPTIONAL_NAMESPACE:
            raise _overload()
        zero = v is None or (_is_num(v) and float(v) == 0.0) or (
            isinstance(v, (str, bytes, list, Mapping)) and len(v) == 0) or (isinstance(v, bool) and not v)
        if not zero and isinstance(v, ct.DurationType):
            zero = v.total_seconds() == 0
        if not zero and isinstance(v, ct.TimestampType):
            zero = v == ct.TimestampType("0001-01-01T00:00:00Z")
        return _NONE if zero else _Optional(v)

    # version 2 of cel-go's optional library (cel/library.go), which Kubernetes' environment
    # has: cel.OptionalTypes() takes the latest version
    def first(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        return _Optional(lst[0]) if lst else _NONE

    def last(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        return _Optional(lst[-1]) if lst else _NONE

    def unwrap_list(lst: Any) -> Any:
        if not _is_list(lst):
            raise _overload()
        out = []
        for v in lst:
            if not isinstance(v, _Optional):
                raise _EvalError(f"value {v} is not optional")
            if v.present:
                out.append(v.v)
        return ct.ListType(out)

    def unwrap(ns: Any, lst: Any) -> Any:
        if ns is not _OPTIONAL_NAMESPACE:
            raise _overload()
        return unwrap_list(lst)

    return {
        "hasValue": has_value, "value": value, "orValue": or_value, "or": or_,
        "none": none, "of": of, "ofNonZeroValue": of_non_zero_value,
        "first": first, "last": last, "unwrap": unwrap, "unwrapOpt": unwrap_list,
    }


def standard_library() -> dict[str, Callable[..., Any]]:
    """The operators of cel-go's standard library bound to its heterogeneous equality and
    the set and map list semantics (celpy's own compare values of one type only)."""
    ct = loader.celpy.celtypes
    base = loader.celpy.evaluation.base_functions

    def eq(a: Any, b: Any) -> Any:
        return ct.BoolType(_cel_equal(a, b))

    def ne(a: Any, b: Any) -> Any:
        return ct.BoolType(not _cel_equal(a, b))

    def add_(a: Any, b: Any) -> Any:
        if isinstance(a, list) and isinstance(b, list):
            return _concat(a, b)
        return base["_+_"](a, b)

    def index(container: Any, key: Any) -> Any:
        if isinstance(container, list):
            if not _is_num(key) or isinstance(key, float) and key != int(key):
                raise _overload()
            i = int(key)
            if not 0 <= i < len(container):
                raise _EvalError(f"index out of bounds: {i}")
            return container[i]
        if isinstance(container, Mapping):
            for k in container:
                if _cel_equal(k, key):
                    return container[k]
            raise _EvalError(f"no such key: {key}")
        raise _overload()

    def in_(item: Any, container: Any) -> Any:
        if isinstance(container, list):
            return ct.BoolType(any(_cel_equal(item, x) for x in container))
        if isinstance(container, Mapping):
            return ct.BoolType(any(_cel_equal(item, k) for k in container))
        raise _overload()

    return {
        "_==_": eq, "_!=_": ne, "_+_": add_, "_[_]": index, "_in_": in_,
    }


def _overloads(first: Callable[..., Any], second: Callable[..., Any]) -> Callable[..., Any]:
    """One name defined by two libraries: the second is tried when the first has no
    overload for the arguments (their receiver types do not overlap)."""
    def call(*args: Any) -> Any:
        try:
            return first(*args)
        except _EvalError as exc:
            if str(exc) != _NO_OVERLOAD:
                raise
        return second(*args)
    return call


def _compose(*libraries: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """One table of the libraries' functions; a name defined twice keeps both overloads."""
    out: dict[str, Callable[..., Any]] = {}
    for library in libraries:
        for name, fn in library.items():
            out[name] = _overloads(out[name], fn) if name in out else fn
    return out


def _lib() -> dict[str, Callable[..., Any]]:
    """The functions of apiserver pkg/cel/library and cel-go's extensions, by name; each
    checks its receiver's type as cel-go's overloads do."""
    return _compose(lists_library(), regex_library(), urls_library(), quantity_library(), ip_library(),
                    cidr_library(), format_library(), strings_library(), formatting_library(),
                    ext_lists_library(), sets_library(), optional_library(), semver_library(), standard_library())


_LIB: dict[str, Callable[..., Any]] | None = None


def _functions() -> dict[str, Callable[..., Any]]:
    global _LIB
    if _LIB is None:
        _LIB = _wrap_errors(_lib())
    return _LIB


def _wrap_errors(lib: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """celpy turns TypeError into ``no such overload``; our own errors carry Go's text."""
    ev = loader.celpy.evaluation

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            for a in args:
                if isinstance(a, ev.CELEvalError):
                    return a
            try:
                return fn(*args)
            except _EvalError as exc:
                return ev.CELEvalError(str(exc))
        return call

    return {k: wrap(v) for k, v in lib.items()}
