"""Syntax checks of names, keys and values, with Go's message texts.

Go: k8s.io/apimachinery ``pkg/util/validation/validation.go`` and ``ip.go``,
``pkg/api/validate/content`` (label keys and values, DNS names, path segments),
``pkg/api/validation/generic.go`` (the name functions of ObjectMeta validation) and
``pkg/api/validation/path/name.go``.

The ``is_*`` functions return Go's list of messages (empty when the value is valid); the
``is_valid_ip``-style functions that take a field path return an :class:`ErrorList`, as Go's
do. Lengths are Go's ``len``: bytes of the UTF-8 text (bytes that were not UTF-8, carried as
surrogate escapes, count one each). Regular expressions match the whole value as Go's
``^...$`` does (Python's ``$`` would also accept a trailing newline).
"""
from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

from kcodec import gofmt
from kcodec.validation.field import ErrorList, Path, invalid

__all__ = [
    "DNS1123_LABEL_MAX_LENGTH", "DNS1123_SUBDOMAIN_MAX_LENGTH", "DNS1035_LABEL_MAX_LENGTH",
    "LABEL_VALUE_MAX_LENGTH", "IS_NEGATIVE_ERROR_MSG",
    "go_len", "max_len_error", "regex_error", "empty_error", "inclusive_range_error",
    "is_dns1123_label", "is_dns1123_subdomain", "is_dns1123_subdomain_with_underscore",
    "is_dns1035_label", "is_wildcard_dns1123_subdomain", "is_qualified_name", "is_label_key",
    "is_prefixed_label_key", "is_valid_label_value", "is_c_identifier", "is_valid_port_num",
    "is_in_range", "is_valid_group_id", "is_valid_user_id", "is_valid_port_name",
    "is_valid_percent", "is_http_header_name", "is_env_var_name", "is_relaxed_env_var_name",
    "is_config_map_key", "is_decimal_integer", "is_valid_path_segment_name",
    "is_valid_path_segment_prefix", "is_valid_ip", "is_valid_ip_for_legacy_field",
    "is_valid_cidr", "is_valid_cidr_for_legacy_field", "parse_ip_sloppy",
    "is_fully_qualified_name", "is_fully_qualified_domain_name", "is_domain_prefixed_path",
    "name_is_dns_subdomain", "name_is_dns_label", "name_is_dns1035_label",
    "validate_namespace_name", "validate_service_account_name", "validate_path_segment_name",
    "validate_nonnegative_field", "ValidateNameFunc",
]

#: A ValidateNameFunc (Go: ``validation.ValidateNameFunc``): (name, prefix) -> messages.
ValidateNameFunc = Callable[[str, bool], list[str]]

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1035_LABEL_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63
_LABEL_KEY_MAX_LENGTH = 63
IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"


def go_len(s: str) -> int:
    """Go's ``len(s)``: the number of bytes of the string."""
    if s.isascii():
        return len(s)
    try:
        return len(s.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return len(s.encode("utf-8", "surrogatepass"))


def _full(pattern: str) -> Callable[[str], re.Match[str] | None]:
    return re.compile(pattern).fullmatch


# --- messages (Go: util/validation MaxLenError etc.; content's MaxLenError says "bytes") ---

def max_len_error(length: int) -> str:
    """util/validation's MaxLenError."""
    return f"must be no more than {length} characters"


def _content_max_len_error(length: int) -> str:
    return f"must be no more than {length} bytes"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """Go: ``RegexError``."""
    if not examples:
        return msg + " (regex used for validation is '" + fmt + "')"
    msg += " (e.g. " + " or ".join(f"'{e}', " for e in examples)
    return msg + "regex used for validation is '" + fmt + "')"


def empty_error() -> str:
    return "must be non-empty"


def inclusive_range_error(lo: int, hi: int) -> str:
    return f"must be between {lo} and {hi}, inclusive"


# --- DNS names (util/validation, content/dns.go) ---

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_ERR = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                      "and must start and end with an alphanumeric character")
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_ERR = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                          "'-' or '.', and must start and end with an alphanumeric character")
_DNS1123_LABEL_FMT_US = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT_US = _DNS1123_LABEL_FMT_US + "(\\." + _DNS1123_LABEL_FMT_US + ")*"
_DNS1123_SUBDOMAIN_ERR_US = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                             "'_', '-' or '.', and must start and end with an alphanumeric character")
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_ERR = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
                      "an alphabetic character, and end with an alphanumeric character")
_WILDCARD_FMT = "\\*\\." + _DNS1123_SUBDOMAIN_FMT
_WILDCARD_ERR = ("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which "
                 "must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric "
                 "character")

_dns1123_label = _full(_DNS1123_LABEL_FMT)
_dns1123_subdomain = _full(_DNS1123_SUBDOMAIN_FMT)
_dns1123_subdomain_us = _full(_DNS1123_SUBDOMAIN_FMT_US)
_dns1035_label = _full(_DNS1035_LABEL_FMT)
_wildcard = _full(_WILDCARD_FMT)


def is_dns1123_label(value: str) -> list[str]:
    """Go: ``IsDNS1123Label`` (at most 63 characters, ``[a-z0-9]([-a-z0-9]*[a-z0-9])?``)."""
    errs = []
    if go_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _dns1123_label(value):
        if _dns1123_subdomain(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_ERR, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """Go: ``IsDNS1123Subdomain`` (at most 253 characters)."""
    errs = []
    if go_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _dns1123_subdomain(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def _content_is_dns1123_subdomain(value: str) -> list[str]:
    # content.IsDNS1123Subdomain: as above, but its length message says "bytes".
    errs = []
    if go_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(_content_max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _dns1123_subdomain(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1123_subdomain_with_underscore(value: str) -> list[str]:
    """Go: ``IsDNS1123SubdomainWithUnderscore``."""
    errs = []
    if go_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _dns1123_subdomain_us(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_ERR_US, _DNS1123_SUBDOMAIN_FMT_US, "example.com"))
    return errs


def is_dns1035_label(value: str) -> list[str]:
    """Go: ``IsDNS1035Label``."""
    errs = []
    if go_len(value) > DNS1035_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1035_LABEL_MAX_LENGTH))
    if not _dns1035_label(value):
        errs.append(regex_error(_DNS1035_LABEL_ERR, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_wildcard_dns1123_subdomain(value: str) -> list[str]:
    """Go: ``IsWildcardDNS1123Subdomain`` (``*.example.com``)."""
    errs = []
    if go_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _wildcard(value):
        errs.append(regex_error(_WILDCARD_ERR, _WILDCARD_FMT, "*.example.com"))
    return errs


# --- label keys and values (content/kube.go) ---

_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_ERR = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                  "alphanumeric character")
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_LABEL_VALUE_ERR = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
                    "'.', and must start and end with an alphanumeric character")
_label_key = _full(_LABEL_KEY_FMT)
_label_value = _full(_LABEL_VALUE_FMT)


def is_qualified_name(value: str) -> list[str]:
    """Go: ``IsQualifiedName`` (= ``content.IsLabelKey``): an optional DNS subdomain prefix
    and ``/``, then a name of at most 63 bytes."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + empty_error())
        else:
            errs.extend("prefix part " + m for m in _content_is_dns1123_subdomain(prefix))
    else:
        return ["a valid label key " + regex_error(_LABEL_KEY_ERR, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part " + empty_error())
    elif go_len(name) > _LABEL_KEY_MAX_LENGTH:
        errs.append("name part " + _content_max_len_error(_LABEL_KEY_MAX_LENGTH))
    if not _label_key(name):
        errs.append("name part " + regex_error(_LABEL_KEY_ERR, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


is_label_key = is_qualified_name


def is_prefixed_label_key(value: str) -> list[str]:
    """Go: ``content.IsPrefixedLabelKey``."""
    errs = is_qualified_name(value)
    if errs:
        return errs
    if len(value.split("/")) != 2:
        return ["must include a prefix (e.g. 'example.com/key')"]
    return []


def is_valid_label_value(value: str) -> list[str]:
    """Go: ``IsValidLabelValue`` (= ``content.IsLabelValue``): empty, or at most 63 bytes of
    ``[A-Za-z0-9][-A-Za-z0-9_.]*[A-Za-z0-9]``."""
    errs = []
    if go_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(_content_max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _label_value(value):
        errs.append(regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


_C_IDENT_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_c_ident = _full(_C_IDENT_FMT)


def is_c_identifier(value: str) -> list[str]:
    """Go: ``IsCIdentifier``."""
    if not _c_ident(value):
        return [regex_error("a valid C identifier must start with alphabetic character or '_', followed by a "
                            "string of alphanumeric characters or '_'", _C_IDENT_FMT, "my_name", "MY_NAME", "MyName")]
    return []


# --- numbers and ports ---

def is_valid_port_num(port: int) -> list[str]:
    """Go: ``IsValidPortNum`` (1..65535)."""
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


def is_in_range(value: int, lo: int, hi: int) -> list[str]:
    return [] if lo <= value <= hi else [inclusive_range_error(lo, hi)]


def is_valid_group_id(gid: int) -> list[str]:
    return [] if 0 <= gid <= 2147483647 else [inclusive_range_error(0, 2147483647)]


def is_valid_user_id(uid: int) -> list[str]:
    return [] if 0 <= uid <= 2147483647 else [inclusive_range_error(0, 2147483647)]


_port_name_charset = _full("[-a-z0-9]+")
_port_name_letter = re.compile("[a-z]").search


def is_valid_port_name(port: str) -> list[str]:
    """Go: ``IsValidPortName`` (an IANA_SVC_NAME)."""
    errs = []
    if go_len(port) > 15:
        errs.append(max_len_error(15))
    if not _port_name_charset(port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _port_name_letter(port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


_PERCENT_FMT = "[0-9]+%"
_percent = _full(_PERCENT_FMT)


def is_valid_percent(percent: str) -> list[str]:
    if not _percent(percent):
        return [regex_error("a valid percent string must be a numeric string followed by an ending '%'",
                            _PERCENT_FMT, "1%", "93%")]
    return []


_HTTP_HEADER_FMT = "[-A-Za-z0-9]+"
_http_header = _full(_HTTP_HEADER_FMT)


def is_http_header_name(value: str) -> list[str]:
    if not _http_header(value):
        return [regex_error("a valid HTTP header must consist of alphanumeric characters or '-'",
                            _HTTP_HEADER_FMT, "X-Header-Name")]
    return []


def _has_chdir_prefix(value: str) -> list[str]:
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


_ENV_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*"
_env = _full(_ENV_FMT)


def is_env_var_name(value: str) -> list[str]:
    """Go: ``IsEnvVarName``."""
    errs = []
    if not _env(value):
        errs.append(regex_error("a valid environment variable name must consist of alphabetic characters, digits, "
                                "'_', '-', or '.', and must not start with a digit", _ENV_FMT,
                                "my.env-name", "MY_ENV.NAME", "MyEnvName1"))
    return errs + _has_chdir_prefix(value)


def is_relaxed_env_var_name(value: str) -> list[str]:
    """Go: ``IsRelaxedEnvVarName`` (printable ASCII other than ``=``)."""
    errs = []
    if not value:
        errs.append("environment variable name " + empty_error())
    for ch in value:
        if ord(ch) > 127 or not ch.isprintable() or ch == "=":
            errs.append("a valid environment variable name must consist only of printable ASCII characters "
                        "other than '='")
            break
    return errs


_CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+"
_config_key = _full(_CONFIG_KEY_FMT)


def is_config_map_key(value: str) -> list[str]:
    """Go: ``IsConfigMapKey``."""
    errs = []
    if go_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _config_key(value):
        errs.append(regex_error("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                                _CONFIG_KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    return errs + _has_chdir_prefix(value)


def is_decimal_integer(value: str) -> list[str]:
    """Go: ``content.IsDecimalInteger`` (canonical form: no sign +, no leading zeros)."""
    if not value:
        return [empty_error()]
    msg = "must be a valid decimal integer in canonical form"
    body = value[1:] if value[0] == "-" else value
    if not body:
        return [msg]
    if body == "0":
        return [] if value == "0" else [msg]
    if not ("1" <= body[0] <= "9") or not all("0" <= c <= "9" for c in body):
        return [msg]
    return []


# --- domain names (util/validation) ---

def is_fully_qualified_name(path: Path, name: str) -> ErrorList:
    from kcodec.validation.field import required

    if not name:
        return ErrorList([required(path, "")])
    errs = is_dns1123_subdomain(name)
    if errs:
        return ErrorList([invalid(path, name, ",".join(errs))])
    if len(name.split(".")) < 3:
        return ErrorList([invalid(path, name, "should be a domain with at least three segments separated by dots")])
    return ErrorList()


def is_fully_qualified_domain_name(path: Path, name: str) -> ErrorList:
    from kcodec.validation.field import required

    if not name:
        return ErrorList([required(path, "")])
    if name.endswith("."):
        name = name[:-1]
    errs = is_dns1123_subdomain(name)
    if errs:
        return ErrorList([invalid(path, name, ",".join(errs))])
    if len(name.split(".")) < 2:
        return ErrorList([invalid(path, name, "should be a domain with at least two segments separated by dots")])
    for label in name.split("."):
        errs = is_dns1123_label(label)
        if errs:
            return ErrorList([invalid(path, label, ",".join(errs))])
    return ErrorList()


_HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"
_http_path = _full(_HTTP_PATH_FMT)


def is_domain_prefixed_path(path: Path, dp_path: str) -> ErrorList:
    from kcodec.validation.field import required

    if not dp_path:
        return ErrorList([required(path, "")])
    segments = dp_path.split("/", 1)
    if len(segments) != 2 or not segments[0] or not segments[1]:
        return ErrorList([invalid(path, dp_path, 'must be a domain-prefixed path (such as "acme.io/foo")')])
    host, rest = segments
    errs = ErrorList(invalid(path, host, m) for m in is_dns1123_subdomain(host))
    if not _http_path(rest):
        errs.append(invalid(path, rest, regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errs


# --- path segments (content/path.go, pkg/api/validation/path) ---

def is_valid_path_segment_name(name: str) -> list[str]:
    """Go: ``IsValidPathSegmentName``: not ``.`` or ``..``, no ``/`` or ``%``."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return is_valid_path_segment_prefix(name)


def is_valid_path_segment_prefix(name: str) -> list[str]:
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


def validate_path_segment_name(name: str, prefix: bool) -> list[str]:
    """Go: ``path.ValidatePathSegmentName`` (the name check of most non-core kinds that
    allow any path segment, e.g. RBAC roles)."""
    return is_valid_path_segment_prefix(name) if prefix else is_valid_path_segment_name(name)


# --- IP addresses (util/validation/ip.go over k8s.io/utils/net) ---

def parse_ip_sloppy(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """k8s.io/utils/net ``ParseIPSloppy``: Go 1.16's ``net.ParseIP``, which accepts IPv4
    parts with leading zeros (as decimal). An IPv4-mapped IPv6 address is returned as IPv4,
    as Go's 16-byte form prints it."""
    if not value or not value.isascii() or "%" in value:
        return None
    if ":" not in value:
        return _parse_v4_sloppy(value)
    head, sep, tail = value.rpartition(":")
    text = value
    if "." in tail:  # an embedded IPv4 part, which may have leading zeros too
        v4 = _parse_v4_sloppy(tail)
        if v4 is None:
            return None
        text = head + sep + str(v4)
    try:
        ip6 = ipaddress.IPv6Address(text)
    except ValueError:
        return None
    mapped = ip6.ipv4_mapped
    return mapped if mapped is not None else ip6


def _parse_v4_sloppy(value: str) -> ipaddress.IPv4Address | None:
    parts = value.split(".")
    if len(parts) != 4:
        return None
    nums = []
    for p in parts:
        if not p or not p.isdigit() or not p.isascii() or len(p) > 10 or int(p) > 255:
            return None
        nums.append(int(p))
    return ipaddress.IPv4Address(".".join(map(str, nums)))


def _strict_ok(value: str) -> tuple[bool, bool]:
    """(netip.ParseAddr accepts it, it is an IPv4-mapped IPv6 address)."""
    if ":" not in value:
        parts = value.split(".")
        return all(p == "0" or not p.startswith("0") for p in parts), False
    head, _, tail = value.rpartition(":")
    if "." in tail and not all(p == "0" or not p.startswith("0") for p in tail.split(".")):
        return False, False
    try:
        ip6 = ipaddress.IPv6Address(value)
    except ValueError:
        return False, False
    return True, ip6.ipv4_mapped is not None


_IP_MSG = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"


def _parse_ip(path: Path, value: str, strict: bool) -> tuple[object, ErrorList]:
    ip = parse_ip_sloppy(value)
    if ip is None:
        return None, ErrorList([invalid(path, value, _IP_MSG)])
    errs = ErrorList()
    if strict:
        ok, mapped = _strict_ok(value)
        if not ok:
            errs.append(invalid(path, value, "must not have leading 0s"))
        if mapped:
            errs.append(invalid(path, value, "must not be an IPv4-mapped IPv6 address"))
    return ip, errs


def is_valid_ip_for_legacy_field(path: Path, value: str, strict_validation: bool,
                                 valid_old_ips: list[str] | None = None) -> ErrorList:
    """Go: ``IsValidIPForLegacyField``."""
    if valid_old_ips and value in valid_old_ips:
        return ErrorList()
    return _parse_ip(path, value, strict_validation)[1].with_origin("format=ip-sloppy")


def is_valid_ip(path: Path, value: str) -> ErrorList:
    """Go: ``IsValidIP``: a valid IP in canonical form."""
    ip, errs = _parse_ip(path, value, True)
    if errs:
        return errs.with_origin("format=ip-strict")
    canonical = str(ip)
    if value != canonical:
        errs.append(invalid(path, value, f"must be in canonical form ({gofmt.quote(canonical)})"))
    return errs.with_origin("format=ip-strict")


_CIDR_MSG = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def _parse_cidr(path: Path, value: str, strict: bool) -> tuple[object, ErrorList]:
    addr, sep, bits = value.partition("/")
    ip = parse_ip_sloppy(addr) if sep else None
    is6 = ":" in addr
    width = 128 if is6 else 32
    if ip is None or not bits.isdigit() or not bits.isascii() or len(bits) > 3 or int(bits) > width:
        return None, ErrorList([invalid(path, value, _CIDR_MSG)])
    n = int(bits)
    if isinstance(ip, ipaddress.IPv4Address) and is6:  # an IPv4-mapped net: Go keeps 16 bytes
        net: object = ipaddress.IPv6Network((int(ipaddress.IPv6Address("::ffff:" + str(ip))), n), strict=False)
        if n >= 96:
            net = ipaddress.IPv4Network((ip, n - 96), strict=False)
    else:
        net = ipaddress.ip_network((ip, n), strict=False)
    errs = ErrorList()
    if strict:
        ok, mapped = _strict_ok(addr)
        if not ok or (len(bits) > 1 and bits.startswith("0")):
            errs.append(invalid(path, value, "must not have leading 0s in IP or prefix length"))
        elif mapped:
            errs.append(invalid(path, value, "must not have an IPv4-mapped IPv6 address"))
        elif int(ipaddress.ip_address(addr)) != int(net.network_address):  # type: ignore[attr-defined]
            errs.append(invalid(path, value, "must not have bits set beyond the prefix length"))
    return net, errs


def is_valid_cidr_for_legacy_field(path: Path, value: str, strict_validation: bool,
                                   valid_old_cidrs: list[str] | None = None) -> ErrorList:
    if valid_old_cidrs and value in valid_old_cidrs:
        return ErrorList()
    return _parse_cidr(path, value, strict_validation)[1]


def is_valid_cidr(path: Path, value: str) -> ErrorList:
    """Go: ``IsValidCIDR``: a valid CIDR in canonical form."""
    net, errs = _parse_cidr(path, value, True)
    if errs:
        return errs
    canonical = str(net)
    if value != canonical:
        errs.append(invalid(path, value, f"must be in canonical form ({gofmt.quote(canonical)})"))
    return errs


# --- name functions of ObjectMeta validation (pkg/api/validation/generic.go) ---

def _mask_trailing_dash(name: str) -> str:
    # Go: maskTrailingDash replaces the last two bytes ("x-") by "a", so a generateName
    # prefix ending in "-" is checked as a name would be once a suffix follows.
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """Go: ``NameIsDNSSubdomain`` (the name check of most kinds)."""
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """Go: ``NameIsDNSLabel``."""
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    """Go: ``NameIsDNS1035Label`` (Services)."""
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


validate_namespace_name = name_is_dns_label
validate_service_account_name = name_is_dns_subdomain


def validate_nonnegative_field(value: int, path: Path) -> ErrorList:
    """Go: ``ValidateNonnegativeField``."""
    if value < 0:
        return ErrorList([invalid(path, value, IS_NEGATIVE_ERROR_MSG).with_origin("minimum")])
    return ErrorList()
