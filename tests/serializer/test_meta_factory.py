"""JSON MetaFactory: apiVersion/kind sniffing (Go: k8s.io/apimachinery/pkg/runtime/serializer/json/meta.go (SimpleMetaFactory))."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcodec.errors import DecodeError
from kcodec.schema import GroupVersionKind
from kcodec import gojson as _gojson
from kcodec.serializer.meta import DEFAULT_META_FACTORY, SimpleMetaFactory, interpret_gvk
from kcodec._native.wire import interpret_gvk as pure_interpret_gvk

PREFIX = "couldn't get version/kind; json parse error: "
STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'

GVK = GroupVersionKind


@pytest.fixture(params=["factory", "kernel", "entry"])
def interpret(request: pytest.FixtureRequest):
    return {
        "factory": SimpleMetaFactory().interpret,
        "kernel": pure_interpret_gvk,
        "entry": interpret_gvk,
    }[request.param]


@pytest.mark.parametrize(
    "data, gvk",
    [
        (b'{"apiVersion":"1","kind":"object"}', GVK("", "1", "object")),
        (b"{}", GVK("", "", "")),
        (b" { } ", GVK("", "", "")),
        (b'{"apiVersion":"apps/v1","kind":"Deployment"}', GVK("apps", "v1", "Deployment")),
        (b'{"apiVersion":"/v1","kind":"Foo"}', GVK("", "v1", "Foo")),
        (b'{"apiVersion":"other/"}', GVK("other", "", "")),
        (b"null", GVK("", "", "")),
        (b'{"apiVersion":null}', GVK("", "", "")),
        (b'{"Kind":"Pod","APIVERSION":"v1"}', GVK("", "v1", "Pod")),
        (b'{"kind":"A","kind":"B"}', GVK("", "", "B")),
        (b'{"kind":"A","KIND":"B","Kind":"C"}', GVK("", "", "C")),
        (b'{"kind":"A","kind":null}', GVK("", "", "A")),
        (b'{"\xe2\x84\xaaind":"Kelvin"}', GVK("", "", "Kelvin")),  # U+212A folds to k
        (b'{"apiVer\xc5\xbfion":"v1"}', GVK("", "v1", "")),  # U+017F folds to s
        (b'{"\\u006bind":"Esc"}', GVK("", "", "Esc")),
        (b'{"kinds":"x","apiversio":"y","metadata":{"kind":"inner"}}', GVK("", "", "")),
        (b'{"kind":"Pod","apiVersion":"v1","spec":{"x":1e400,"y":12345678901234567890123}}', GVK("", "v1", "Pod")),
        (b'{"kind":"Pod","x":"\xff\xfe","y":"\\ud800"}', GVK("", "", "Pod")),
        (b'{"kind":"Deep","x":' + b"[" * 5000 + b"]" * 5000 + b"}", GVK("", "", "Deep")),
        (b'{"apiVersion":"ignored group/ignored version"}', GVK("ignored group", "ignored version", "")),
    ],
)
def test_interpret(interpret, data: bytes, gvk: GroupVersionKind) -> None:
    assert interpret(data) == gvk


@pytest.mark.parametrize(
    "data, gist",
    [
        (b"{", "unexpected end of JSON input"),
        (b"", "unexpected end of JSON input"),
        (b"[]", f"json: cannot unmarshal array into Go value of type {STRUCT}"),
        (b'"s"', f"json: cannot unmarshal string into Go value of type {STRUCT}"),
        (b"12", f"json: cannot unmarshal number into Go value of type {STRUCT}"),
        (b"true", f"json: cannot unmarshal bool into Go value of type {STRUCT}"),
        (b'{"kind":1}', "json: cannot unmarshal number into Go struct field .kind of type string"),
        (b'{"kind":true}', "json: cannot unmarshal bool into Go struct field .kind of type string"),
        (b'{"apiVersion":{}}', "json: cannot unmarshal object into Go struct field .apiVersion of type string"),
        (b'{"APIversion":[1]}', "json: cannot unmarshal array into Go struct field .apiVersion of type string"),
        # the first wrong value is reported even when a later one is fine
        (b'{"kind":1,"kind":"A","apiVersion":[]}', "json: cannot unmarshal number into Go struct field .kind of type string"),
        (b"{} x", "invalid character 'x' after top-level value"),
        (b'{"kind":"A",}', "invalid character '}' looking for beginning of object key string"),
        (b'{"kind":"A"} {"kind":"B"}', "invalid character '{' after top-level value"),
        (b"\xef\xbb\xbf{}", "invalid character '\u00ef' looking for beginning of value"),
        (b'{"kind":"A","x":' + b"[" * 10001 + b"]" * 10001 + b"}", "invalid character '[' exceeded max depth"),
        # a syntax error anywhere wins over a wrong type
        (b'{"kind":1,"x":tru}', "invalid character '}' in literal true (expecting 'e')"),
    ],
)
def test_interpret_errors(interpret, data: bytes, gist: str) -> None:
    with pytest.raises(DecodeError) as info:
        interpret(data)
    message = str(info.value)
    assert message.startswith(PREFIX + gist), message


def test_syntax_error_carries_offset() -> None:
    with pytest.raises(DecodeError, match=r"^couldn't get version/kind; json parse error: invalid character 'x' after top-level value$") as info:
        SimpleMetaFactory().interpret(b"{} x")
    assert info.value.offset == 4


def test_group_version_error_unwrapped(interpret) -> None:
    with pytest.raises(DecodeError) as info:
        interpret(b'{"apiVersion":"a/b/c"}')
    assert str(info.value) == "unexpected GroupVersion string: a/b/c"
    assert isinstance(info.value, ValueError)


def test_factory_value_semantics() -> None:
    assert SimpleMetaFactory() == DEFAULT_META_FACTORY
    assert hash(SimpleMetaFactory()) == hash(DEFAULT_META_FACTORY)
    assert interpret_gvk(bytearray(b'{"kind":"K"}')) == GVK("", "", "K")
    assert interpret_gvk(memoryview(b'{"kind":"K"}')) == GVK("", "", "K")


def test_large_document() -> None:
    items = b",".join(b'{"kind":"Inner","apiVersion":"x/y","metadata":{"name":"n%d"}}' % i for i in range(20000))
    data = b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[' + items + b"]}"
    assert interpret_gvk(data) == GVK("", "v1", "PodList")
    with pytest.raises(DecodeError, match="after top-level value"):
        interpret_gvk(data + b"x")


_values = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=6),
                    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
_keys = st.sampled_from(["kind", "Kind", "KIND", "apiVersion", "apiversion", "APIVERSION", "other", "metadata", "kinds"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_keys, _values), max_size=6))
def test_fast_path_matches_exact_path(members: list) -> None:
    data = ("{" + ",".join(f"{_gojson.escape_string(k)}:{_gojson.dumps(v).decode()}" for k, v in members) + "}").encode()
    from kcodec._native import wire as kernel

    def outcome(fn):
        try:
            return ("ok", fn(data))
        except DecodeError as e:
            return ("err", str(e))

    assert outcome(kernel.interpret_gvk) == outcome(kernel._exact)
