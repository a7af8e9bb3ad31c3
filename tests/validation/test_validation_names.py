"""kcodec.validation.names against apimachinery pkg/util/validation/validation.go, ip.go,
pkg/api/validate/content (kube.go, dns.go, path.go) and pkg/api/validation/generic.go
(validation_test.go, ip_test.go, generic_test.go cases)."""
from __future__ import annotations

import pytest

from kcodec.validation import names
from kcodec.validation.field import Path

_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
              "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
              "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                  "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                  "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


@pytest.mark.parametrize("good", ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a",
                                  "1--a--b--2", "a" * 63])
def test_dns1123_label_good(good):
    assert names.is_dns1123_label(good) == []


@pytest.mark.parametrize(("bad", "msgs"), [
    ("", [_LABEL_MSG]), ("A", [_LABEL_MSG]), ("a.b", ["must not contain dots"]), ("-a", [_LABEL_MSG]),
    ("a-", [_LABEL_MSG]), ("a_b", [_LABEL_MSG]), ("a\n", [_LABEL_MSG]),  # Go's $ does not accept a newline
    ("a" * 64, ["must be no more than 63 characters"]),
])
def test_dns1123_label_bad(bad, msgs):
    assert names.is_dns1123_label(bad) == msgs


def test_dns1123_subdomain():
    assert names.is_dns1123_subdomain("a.b.c") == []
    assert names.is_dns1123_subdomain("a" * 253) == []
    assert names.is_dns1123_subdomain("A.b") == [_SUBDOMAIN_MSG]
    assert names.is_dns1123_subdomain("a" * 254) == ["must be no more than 253 characters"]
    assert names.is_dns1123_subdomain("a..b") == [_SUBDOMAIN_MSG]


def test_qualified_name_and_label_value():
    for good in ["simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple", "now-with-dashes/simple",
                 "now-with-dashes/now-with-dashes", "now.with.dots/simple", "now-with.dashes-and.dots/simple",
                 "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123",
                 "requests.storage-foo", "a" * 63, "a" * 253 + "/" + "b" * 63]:
        assert names.is_qualified_name(good) == [], good
    assert names.is_qualified_name("a/b/c")[0].startswith("a valid label key must consist of")
    assert names.is_qualified_name("/simple") == [
        "prefix part must be non-empty"]
    assert names.is_qualified_name("a" * 64) == ["name part must be no more than 63 bytes"]
    assert names.is_qualified_name("Example.com/a") == ["prefix part " + _SUBDOMAIN_MSG]
    assert names.is_qualified_name("a" * 254 + "/b") == ["prefix part must be no more than 253 bytes"]
    # Go's len counts bytes: 32 two-byte runes are 64 bytes.
    assert names.is_valid_label_value("é" * 32)[0] == "must be no more than 63 bytes"
    assert names.is_valid_label_value("") == []
    assert names.is_valid_label_value("a_b.c-d") == []
    assert len(names.is_valid_label_value("-a")) == 1


def test_ports_and_misc():
    assert names.is_valid_port_num(0) == ["must be between 1 and 65535, inclusive"]
    assert names.is_valid_port_num(65535) == []
    assert names.is_valid_port_name("http") == []
    assert names.is_valid_port_name("a--b") == ["must not contain consecutive hyphens"]
    assert names.is_valid_port_name("1234") == ["must contain at least one letter (a-z)"]
    assert names.is_valid_port_name("abcdefghijklmnop") == ["must be no more than 15 characters"]
    assert names.is_env_var_name("1a")[0].startswith("a valid environment variable name must consist of")
    assert names.is_env_var_name("..") == ["must not be '..'"]
    assert names.is_config_map_key("..a") == ["must not start with '..'"]
    assert names.is_config_map_key("a b")[0].startswith("a valid config key must consist of alphanumeric")
    assert names.is_c_identifier("_a1") == []
    assert names.is_decimal_integer("-0") == ["must be a valid decimal integer in canonical form"]
    assert names.is_decimal_integer("10") == []
    assert names.is_dns1035_label("1a")[0].startswith("a DNS-1035 label must consist of")
    assert names.is_wildcard_dns1123_subdomain("*.example.com") == []


@pytest.mark.parametrize(("value", "err"), [
    ("1.2.3.4", None), ("0.0.0.0", None), ("1234::abcd", None), ("::", None),
    ("0:0:0:0:0:0:0:0", 'must be in canonical form ("::")'),
    ("0001:002:03:4::", 'must be in canonical form ("1:2:3:4::")'),
    ("1234::ABCD", 'must be in canonical form ("1234::abcd")'),
    ("1.1.1.01", "must not have leading 0s"), ("::ffff:1.1.1.1", "must not be an IPv4-mapped IPv6 address"),
    ("", "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"), ("aaaaaaa", "must be a valid IP address"),
    ("1.2.3.0/24", "must be a valid IP address"), ("1.2.3.400", "must be a valid IP address"),
    ("-1.0.0.0", "must be a valid IP address"), ("2001:db8::10005", "must be a valid IP address"),
    ("1.2.3.4:80", "must be a valid IP address"), ("[2001:db8::1]", "must be a valid IP address"),
    ("1234::abcd%eth0", "must be a valid IP address"), ("169.254.0.0%eth0", "must be a valid IP address"),
])
def test_is_valid_ip(value, err):
    # ip_test.go TestIsValidIP
    errs = names.is_valid_ip(Path("field"), value)
    if err is None:
        assert not errs
    else:
        assert errs and err in errs[0].detail
        assert str(errs[0]).startswith(f"field: Invalid value: {names.gofmt.quote(value)}: ")


@pytest.mark.parametrize(("value", "err"), [
    ("1.0.0.0/8", None), ("0.0.0.0/0", None), ("2001:4860:4860::/48", None),
    ("1.2.3.4/24", "must not have bits set beyond the prefix length"),
    ("1.2.3.0/024", "must not have leading 0s in IP or prefix length"),
    ("2001:DB8::/64", 'must be in canonical form ("2001:db8::/64")'),
    ("1.2.3.0", "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"),
    ("1.2.3.0/33", "must be a valid CIDR value"),
])
def test_is_valid_cidr(value, err):
    errs = names.is_valid_cidr(Path("field"), value)
    if err is None:
        assert not errs
    else:
        assert errs and err in errs[0].detail


def test_generic_name_functions():
    # generic.go maskTrailingDash: a generateName prefix may end in "-".
    assert names.name_is_dns_subdomain("foo-", True) == []
    assert names.name_is_dns_subdomain("foo-", False) == [_SUBDOMAIN_MSG]
    assert names.name_is_dns_label("foo-", True) == []
    assert names.validate_path_segment_name("..", False) == ["may not be '..'"]
    assert names.validate_path_segment_name("a/b%", False) == ["may not contain '/'", "may not contain '%'"]
    assert names.validate_path_segment_name(".", True) == []
    assert [str(e) for e in names.validate_nonnegative_field(-1, Path("spec", "replicas"))] == [
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0"]
