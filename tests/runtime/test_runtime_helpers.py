"""kcodec.runtime.helpers with small fake objects, typers and serializers (Go: k8s.io/apimachinery/pkg/runtime/helper.go)."""
from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kcodec.runtime as runtime_pkg
from kcodec.errors import (
    DecodeError,
    EncodeError,
    KCodecError,
    NotRegisteredError,
    StrictDecodingError,
)
from kcodec.runtime import interfaces
from kcodec.runtime.helpers import (
    DEFAULT_FRAMER,
    AggregateError,
    Base64Serializer,
    MultiObjectTyper,
    NoopDecoder,
    NoopEncoder,
    WithoutVersionDecoder,
    WithVersionEncoder,
    decode,
    decode_into,
    decode_list,
    encode,
    encode_list,
    new_codec,
    use_or_create_object,
)
from kcodec.schema import GroupVersion, GroupVersionKind, GroupVersions, from_api_version_and_kind

GVK = GroupVersionKind
EMPTY = GVK()


class Obj:
    """A minimal Object: TypeMeta plus one value."""

    def __init__(self, value: Any = None, gvk: GroupVersionKind = EMPTY) -> None:
        self.value = value
        self.gvk = gvk
        self.history: list[GroupVersionKind] = []

    def get_object_kind(self) -> Obj:
        return self

    def group_version_kind(self) -> GroupVersionKind:
        return self.gvk

    def set_group_version_kind(self, gvk: GroupVersionKind) -> None:
        self.history.append(gvk)
        self.gvk = gvk

    def deep_copy(self) -> Obj:
        return Obj(self.value, self.gvk)


class Other(Obj):
    """A second registered type."""


class Unregistered(Obj):
    """A type no typer knows."""


class FakeUnknown(Obj):
    """Stands in for runtime.Unknown: raw bytes plus TypeMeta."""

    def __init__(self, raw: bytes = b"", gvk: GroupVersionKind = EMPTY) -> None:
        super().__init__(None, gvk)
        self.raw = raw


class Typer:
    """Maps Python types to their registered kinds, like a scheme."""

    def __init__(self, kinds: dict[type, list[GroupVersionKind]], name: str = "fake") -> None:
        self.kinds = kinds
        self.name = name

    def object_kinds(self, obj: Any) -> tuple[list[GroupVersionKind], bool]:
        try:
            return list(self.kinds[type(obj)]), False
        except KeyError:
            raise NotRegisteredError(self.name, type=type(obj)) from None

    def recognizes(self, gvk: GroupVersionKind) -> bool:
        return any(gvk in kinds for kinds in self.kinds.values())

    def new(self, gvk: GroupVersionKind) -> Any:
        for cls, kinds in self.kinds.items():
            if gvk in kinds:
                return cls()
        raise NotRegisteredError(self.name, gvk=gvk)


class JSONish:
    """Encodes an object as JSON of its TypeMeta and value; decodes it back through a typer."""

    def __init__(self, typer: Typer | None = None, fail_on: Any = None) -> None:
        self.typer = typer
        self.fail_on = fail_on
        self.seen: list[GroupVersionKind] = []

    def identifier(self) -> str:
        return "jsonish"

    def encode(self, obj: Any, stream: Any = None) -> bytes:
        gvk = obj.get_object_kind().group_version_kind()
        self.seen.append(gvk)
        if self.fail_on is not None and obj.value == self.fail_on:
            raise EncodeError(f"cannot encode {obj.value}")
        api_version, kind = gvk.to_api_version_and_kind()
        data = json.dumps({"apiVersion": api_version, "kind": kind, "value": obj.value}).encode() + b"\n"
        if stream is not None:
            stream.write(data)
        return data

    def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> tuple[Any, Any]:
        try:
            tree = json.loads(data)
        except ValueError as err:
            raise DecodeError(str(err)) from None
        gvk = from_api_version_and_kind(tree.get("apiVersion", ""), tree.get("kind", ""))
        if into is not None and isinstance(into, FakeUnknown):
            into.set_group_version_kind(gvk)
            into.raw = bytes(data)
            return into, gvk
        if self.typer is None:
            raise NotRegisteredError("fake", gvk=gvk)
        obj = use_or_create_object(self.typer, self.typer, gvk, into)
        obj.value = tree.get("value")
        obj.set_group_version_kind(gvk)
        if tree.get("strict"):
            raise StrictDecodingError(['unknown field "strict"'], obj, gvk)
        return obj, gvk


V1 = GVK("group", "v1", "Obj")
V2 = GVK("group", "v2", "Obj")
OTHER = GVK("other", "v1", "Other")


@pytest.fixture
def typer() -> Typer:
    return Typer({Obj: [V1, V2], Other: [OTHER]})


@pytest.fixture
def fake_unknown(monkeypatch: pytest.MonkeyPatch) -> type:
    from kcodec.runtime import helpers

    monkeypatch.setattr(helpers, "Unknown", FakeUnknown)
    return FakeUnknown


# --- encode / decode / decode_into / use_or_create_object ----------------------------------


def test_encode_and_decode(typer: Typer) -> None:
    codec = JSONish(typer)
    data = encode(codec, Obj(5, V1))
    assert data == b'{"apiVersion": "group/v1", "kind": "Obj", "value": 5}\n'
    obj = decode(codec, data)
    assert type(obj) is Obj and obj.value == 5 and obj.gvk == V1


def test_decode_into_fills_the_given_object(typer: Typer) -> None:
    codec = JSONish(typer)
    into = Obj()
    decode_into(codec, encode(codec, Obj(7, V2)), into)
    assert into.value == 7 and into.gvk == V2


def test_decode_into_rejects_another_object(typer: Typer) -> None:
    codec = JSONish(typer)
    with pytest.raises(DecodeError, match=r"^unable to decode other/v1, Kind=Other into \*test_runtime_helpers\.Obj$"):
        decode_into(codec, encode(codec, Other(1, OTHER)), Obj())


def test_use_or_create_object(typer: Typer) -> None:
    existing = Obj()
    assert use_or_create_object(typer, typer, V2, existing) is existing
    created = use_or_create_object(typer, typer, OTHER, existing)
    assert type(created) is Other
    assert type(use_or_create_object(typer, typer, V1, None)) is Obj
    with pytest.raises(NotRegisteredError):
        use_or_create_object(typer, typer, V1, Unregistered())


def test_new_codec(typer: Typer) -> None:
    codec = new_codec(JSONish(typer), JSONish(typer))
    assert codec.identifier() == "jsonish"
    assert decode(codec, encode(codec, Obj(1, V1))).value == 1
    assert isinstance(codec, interfaces.Codec)


# --- Noop encoder / decoder -------------------------------------------------------------


def test_noop_encoder(typer: Typer) -> None:
    codec = NoopEncoder(JSONish(typer))
    assert codec.identifier() == "noop"
    with pytest.raises(EncodeError, match=r"^encoding is not allowed for this codec: test_runtime_helpers\.JSONish$"):
        codec.encode(Obj(1, V1))
    obj, gvk = codec.decode(b'{"apiVersion": "group/v1", "kind": "Obj", "value": 3}')
    assert obj.value == 3 and gvk == V1
    with pytest.raises(EncodeError, match="not allowed for this codec: <nil>"):
        NoopEncoder(None).encode(Obj())


def test_noop_decoder(typer: Typer) -> None:
    codec = NoopDecoder(JSONish(typer))
    assert codec.identifier() == "jsonish"
    assert codec.encode(Obj(1, V1)).startswith(b"{")
    with pytest.raises(DecodeError, match=r"^decoding is not allowed for this codec: test_runtime_helpers\.JSONish$"):
        codec.decode(b"{}")
    assert isinstance(codec, interfaces.Serializer)


# --- WithVersionEncoder / WithoutVersionDecoder -------------------------------------------


def test_with_version_encoder_sets_and_restores_kind(typer: Typer) -> None:
    inner = JSONish(typer)
    enc = WithVersionEncoder(GroupVersion("group", "v2"), inner, typer)
    obj = Obj(1)
    out = io.BytesIO()
    data = enc.encode(obj, out)
    assert json.loads(data)["apiVersion"] == "group/v2"
    assert out.getvalue() == data
    assert inner.seen == [V2]
    assert obj.gvk == EMPTY and obj.history == [V2, EMPTY]
    assert enc.identifier() == "jsonish"


def test_with_version_encoder_picks_expected_group() -> None:
    wrong = GVK("wrong_group", "", "some_kind")
    right = GVK("expected_group", "", "some_kind")
    typer = Typer({Obj: [wrong, right]})
    inner = JSONish(typer)
    WithVersionEncoder(GroupVersion("expected_group", ""), inner, typer).encode(Obj())
    assert inner.seen == [right]


def test_with_version_encoder_falls_back_to_first_kind(typer: Typer) -> None:
    inner = JSONish(typer)
    WithVersionEncoder(GroupVersion("nowhere", "v1"), inner, typer).encode(Obj())
    WithVersionEncoder(None, inner, typer).encode(Obj())
    assert inner.seen == [V1, V1]


def test_with_version_encoder_leaves_matching_kind_alone(typer: Typer) -> None:
    obj = Obj(1, V2)
    WithVersionEncoder(GroupVersions([GroupVersion("group", "v2")]), JSONish(typer), typer).encode(obj)
    assert obj.history == []


def test_with_version_encoder_restores_on_error(typer: Typer) -> None:
    obj = Obj("bad", V1)
    enc = WithVersionEncoder(GroupVersion("group", "v2"), JSONish(typer, fail_on="bad"), typer)
    with pytest.raises(EncodeError):
        enc.encode(obj)
    assert obj.gvk == V1 and obj.history == [V2, V1]


def test_with_version_encoder_unregistered_untouched(typer: Typer) -> None:
    inner = JSONish(typer)
    obj = Unregistered(1, GVK("x", "y", "Z"))
    WithVersionEncoder(GroupVersion("group", "v2"), inner, typer).encode(obj)
    assert inner.seen == [GVK("x", "y", "Z")] and obj.history == []


def test_with_version_encoder_other_typer_errors_propagate() -> None:
    class Broken:
        def object_kinds(self, obj: Any) -> Any:
            raise KCodecError("boom")

        def recognizes(self, gvk: GroupVersionKind) -> bool:
            return False

    with pytest.raises(KCodecError, match="boom"):
        WithVersionEncoder(None, JSONish(), Broken()).encode(Obj())  # type: ignore[arg-type]


def test_without_version_decoder(typer: Typer) -> None:
    dec = WithoutVersionDecoder(JSONish(typer))
    obj, gvk = dec.decode(b'{"apiVersion": "group/v1", "kind": "Obj", "value": 2}')
    assert gvk == V1 and obj.gvk == EMPTY and obj.value == 2


def test_without_version_decoder_clears_object_carried_by_error(typer: Typer) -> None:
    dec = WithoutVersionDecoder(JSONish(typer))
    with pytest.raises(StrictDecodingError) as info:
        dec.decode(b'{"apiVersion": "group/v1", "kind": "Obj", "value": 2, "strict": true}')
    assert info.value.obj.gvk == EMPTY and info.value.gvk == V1
    with pytest.raises(DecodeError):
        dec.decode(b"not json")


# --- MultiObjectTyper ---------------------------------------------------------------------


def test_multi_object_typer(typer: Typer) -> None:
    second = Typer({Unregistered: [GVK("z", "v1", "U")]}, name="second")
    multi = MultiObjectTyper([typer, second])
    assert multi.object_kinds(Obj()) == ([V1, V2], False)
    assert multi.object_kinds(Unregistered()) == ([GVK("z", "v1", "U")], False)
    assert multi.recognizes(OTHER) and multi.recognizes(GVK("z", "v1", "U"))
    assert not multi.recognizes(GVK("q", "v1", "Q"))

    class Nothing:
        pass

    with pytest.raises(NotRegisteredError, match='in scheme "second"'):
        multi.object_kinds(Nothing())
    assert MultiObjectTyper([]).object_kinds(Obj()) == ([], False)
    assert isinstance(multi, interfaces.ObjectTyper)


# --- Base64Serializer ---------------------------------------------------------------------


class Raw:
    """Encoder/decoder passing bytes through, to observe base64 framing exactly."""

    def identifier(self) -> str:
        return '{"name":"json","pretty":"false","strict":"false","yaml":"false"}'

    def encode(self, obj: Any, stream: Any = None) -> bytes:
        if stream is not None:
            stream.write(obj.value)
        return obj.value

    def decode(self, data: bytes, defaults: Any = None, into: Any = None) -> tuple[Any, Any]:
        return Obj(bytes(data)), defaults


def test_base64_encode() -> None:
    s = Base64Serializer(Raw(), Raw())
    assert s.encode(Obj(b'{"a":1}')) == b"eyJhIjoxfQ=="
    assert s.encode(Obj(b'{"a":1}\n')) == b"eyJhIjoxfQo="
    out = io.BytesIO()
    s.encode(Obj(b"abc"), out)
    assert out.getvalue() == b"YWJj"


def test_base64_identifier() -> None:
    s = Base64Serializer(Raw(), Raw())
    assert s.identifier() == (
        '{"encoder":"{\\"name\\":\\"json\\",\\"pretty\\":\\"false\\",\\"strict\\":\\"false\\",'
        '\\"yaml\\":\\"false\\"}","name":"base64"}'
    )
    assert Base64Serializer(JSONish(), None).identifier() == '{"encoder":"jsonish","name":"base64"}'
    assert Base64Serializer(None, Raw()).identifier() == '{"name":"base64"}'


def test_base64_decode() -> None:
    s = Base64Serializer(Raw(), Raw())
    assert s.decode(b"eyJhIjoxfQ==")[0].value == b'{"a":1}'
    assert s.decode(b"eyJh\nIjox\r\nfQ==\n")[0].value == b'{"a":1}'
    assert s.decode(b"YQ=\n=")[0].value == b"a"
    assert s.decode(b"")[0].value == b""
    gvk = GVK("g", "v", "K")
    assert s.decode(b"YWJj", gvk)[1] is gvk


@pytest.mark.parametrize(
    "data, offset",
    [
        (b"eyJhIjoxfQ", 8),  # missing padding
        (b"YQ", 0),
        (b"YQ=", 3),
        (b"Y", 0),
        (b"=", 0),
        (b"YWJ", 0),
        (b"YW=j", 2),
        (b"Y!==", 1),
        (b"YQ==x", 4),
        (b"YQ==\nx", 5),
        (b"YWJj YQ==", 4),
        (b"\xff", 0),
        (b"YWJjZA==YWJj", 8),
    ],
)
def test_base64_decode_errors(data: bytes, offset: int) -> None:
    s = Base64Serializer(Raw(), Raw())
    with pytest.raises(DecodeError, match=f"^illegal base64 data at input byte {offset}$"):
        s.decode(data)


@given(st.binary(max_size=64), st.sets(st.integers(0, 100), max_size=4))
def test_base64_round_trip_with_newlines(payload: bytes, breaks: set[int]) -> None:
    s = Base64Serializer(Raw(), Raw())
    text = s.encode(Obj(payload))
    assert text == base64.b64encode(payload)
    for i in sorted(breaks, reverse=True):
        text = text[:i] + b"\r\n" + text[i:]
    assert s.decode(text)[0].value == payload


@given(st.binary(max_size=16).map(lambda b: base64.b64encode(b)), st.binary(min_size=1, max_size=3), st.integers(0, 30))
def test_base64_corruption_never_escapes_decode_error(good: bytes, junk: bytes, where: int) -> None:
    data = good[:where] + junk + good[where:]
    s = Base64Serializer(Raw(), Raw())
    try:
        s.decode(data)
    except DecodeError as err:
        assert str(err).startswith("illegal base64 data")


# --- encode_list / decode_list ------------------------------------------------------------


def test_encode_list(typer: Typer, fake_unknown: type) -> None:
    objects: list[Any] = [Obj(1, V1), Other(2, OTHER)]
    encode_list(JSONish(typer), objects)
    assert all(type(o) is fake_unknown for o in objects)
    assert objects[0].raw == b'{"apiVersion": "group/v1", "kind": "Obj", "value": 1}\n'
    assert objects[1].raw.startswith(b'{"apiVersion": "other/v1"')


def test_encode_list_errors(typer: Typer, fake_unknown: type) -> None:
    objects: list[Any] = [Obj("bad", V1), Obj(1, V1)]
    with pytest.raises(EncodeError, match="^cannot encode bad$"):
        encode_list(JSONish(typer, fail_on="bad"), objects)
    assert type(objects[0]) is Obj and type(objects[1]) is fake_unknown
    objects = [Obj("bad", V1), Obj(1, V1), Obj("bad", V2)]
    with pytest.raises(AggregateError) as info:
        encode_list(JSONish(typer, fail_on="bad"), objects)
    assert len(info.value.errors) == 2 and str(info.value) == "cannot encode bad"


def test_aggregate_error_message() -> None:
    assert str(AggregateError([KCodecError("a"), KCodecError("b"), KCodecError("a")])) == "[a, b]"


def test_decode_list(typer: Typer, fake_unknown: type) -> None:
    codec = JSONish(typer)
    plain = Obj(9, V1)
    objects: list[Any] = [
        fake_unknown(raw=codec.encode(Obj(1, V1))),
        plain,
        fake_unknown(raw=b'{"apiVersion": "nowhere/v1", "kind": "Nope"}'),
        fake_unknown(raw=b"not json"),
    ]
    # The first decoder knows no kinds: not-registered passes each item to the next decoder.
    errors = decode_list(objects, JSONish(None), codec)
    assert type(objects[0]) is Obj and objects[0].value == 1
    assert objects[1] is plain
    # Unknown kind: left as Unknown, but its TypeMeta was filled by decoding into it.
    assert type(objects[2]) is fake_unknown and objects[2].gvk == GVK("nowhere", "v1", "Nope")
    # Malformed: error recorded, element left as it was.
    assert type(objects[3]) is fake_unknown and objects[3].gvk == EMPTY
    assert len(errors) == 1 and isinstance(errors[0], DecodeError)
    assert decode_list([Obj()], codec) == []


# --- interfaces and DEFAULT_FRAMER --------------------------------------------------------


def test_default_framer() -> None:
    reader = DEFAULT_FRAMER.new_frame_reader(io.BytesIO(b"abc"))
    assert reader.read_frame() == b"abc"
    with pytest.raises(EOFError):
        reader.read_frame()
    reader.close()
    out = io.BytesIO()
    DEFAULT_FRAMER.new_frame_writer(out).write(b"xyz")
    assert out.getvalue() == b"xyz"
    assert isinstance(DEFAULT_FRAMER, interfaces.Framer)


def test_helpers_satisfy_protocols(typer: Typer) -> None:
    assert isinstance(Base64Serializer(Raw(), Raw()), interfaces.Serializer)
    assert isinstance(WithVersionEncoder(None, Raw(), typer), interfaces.Encoder)
    assert isinstance(WithoutVersionDecoder(Raw()), interfaces.Decoder)
    assert isinstance(Obj(), interfaces.Object)
    assert isinstance(Obj(), interfaces.ObjectKind)
    assert isinstance(typer, interfaces.ObjectCreater)


@given(st.binary(max_size=12).map(lambda b: base64.b64encode(b)), st.text(alphabet="AQ=\n", max_size=6), st.integers(0, 20))
def test_base64_padding_rules_follow_go(good: bytes, extra: str, where: int) -> None:
    # '=' after a complete quantum, doubled padding and the like must be judged by Go's
    # rules (the C decoder is laxer); success must give the standard decoding.
    from kcodec.gojson import _b64_go

    data = good[:where] + extra.encode() + good[where:]
    s = Base64Serializer(Raw(), Raw())
    offset = _b64_go(data)[1]
    if offset is None:
        assert s.decode(data)[0].value == base64.b64decode(data.replace(b"\n", b""))
    else:
        with pytest.raises(DecodeError, match=f"^illegal base64 data at input byte {offset}$"):
            s.decode(data)


def test_base64_rejects_padding_after_full_quantum() -> None:
    s = Base64Serializer(Raw(), Raw())
    with pytest.raises(DecodeError, match="^illegal base64 data at input byte 4$"):
        s.decode(b"YWJj=")
    with pytest.raises(DecodeError, match="^illegal base64 data at input byte 4$"):
        s.decode(b"YWJj====")


def test_list_round_trip_with_real_unknown(typer: Typer) -> None:
    codec = JSONish(typer)
    objects: list[Any] = [Obj(1, V1), Other(2, OTHER)]
    encode_list(codec, objects)
    assert all(type(o) is runtime_pkg.Unknown for o in objects)
    assert objects[0].raw == b'{"apiVersion": "group/v1", "kind": "Obj", "value": 1}\n'
    assert objects[0].content_type == ""
    assert decode_list(objects, codec) == []
    assert [(type(o), o.value, o.gvk) for o in objects] == [(Obj, 1, V1), (Other, 2, OTHER)]
