"""Small encoders, decoders and functions built on the runtime interfaces (Go: k8s.io/apimachinery/pkg/runtime/helper.go).

Objects are used only through :class:`kcodec.runtime.interfaces.Object`
(``get_object_kind()``); typers, creaters, encoders and decoders through their protocols in
:mod:`kcodec.runtime.interfaces`.
"""
from __future__ import annotations

import binascii
from collections.abc import Iterable, MutableSequence, Sequence
from typing import Any

from kcodec.errors import (
    DecodeError,
    EncodeError,
    KCodecError,
    NotRegisteredError,
    type_name,
)
from kcodec.runtime.interfaces import (
    MAX_FRAME_SIZE,
    Decoder,
    Encoder,
    FrameReader,
    FrameWriter,
    GroupVersioner,
    ObjectCreater,
    ObjectTyper,
    Reader,
    Writer,
)
from kcodec.gojson import b64decode
from kcodec.runtime.types import Unknown
from kcodec.schema import GroupVersionKind, go_json_object

__all__ = [
    "encode",
    "decode",
    "decode_into",
    "use_or_create_object",
    "new_codec",
    "NoopEncoder",
    "NoopDecoder",
    "WithVersionEncoder",
    "WithoutVersionDecoder",
    "MultiObjectTyper",
    "Base64Serializer",
    "AggregateError",
    "encode_list",
    "decode_list",
    "DEFAULT_FRAMER",
]

_EMPTY_GVK = GroupVersionKind("", "", "")


def encode(encoder: Encoder, obj: Any) -> bytes:
    """Serialize ``obj`` with ``encoder`` and return the bytes."""
    return encoder.encode(obj)


def decode(decoder: Decoder, data: bytes) -> Any:
    """Decode ``data`` with no defaults and no target object; return only the object."""
    return decoder.decode(data, None, None)[0]


def decode_into(decoder: Decoder, data: bytes, into: Any) -> None:
    """Decode ``data`` into the existing object ``into``.

    Raises :class:`kcodec.errors.DecodeError` ``unable to decode <gvk> into *<type>`` when the
    decoder produced another object instead of filling ``into``.
    """
    out, gvk = decoder.decode(data, None, into)
    if out is not into:
        raise DecodeError(f"unable to decode {gvk} into *{type_name(into)}")


def use_or_create_object(
    typer: ObjectTyper, creater: ObjectCreater, gvk: GroupVersionKind, obj: Any
) -> Any:
    """Return ``obj`` when its type is registered as ``gvk``, else a new object of ``gvk``.

    Errors of ``typer.object_kinds`` propagate.
    """
    if obj is not None:
        kinds, _ = typer.object_kinds(obj)
        if gvk in kinds:
            return obj
    return creater.new(gvk)


class _Codec:
    """An encoder and a decoder joined into one codec."""

    __slots__ = ("encoder", "decoder")

    def __init__(self, encoder: Encoder, decoder: Decoder) -> None:
        self.encoder = encoder
        self.decoder = decoder

    def encode(self, obj: Any, stream: Writer | None = None) -> bytes:
        """Encode with the wrapped encoder."""
        return self.encoder.encode(obj, stream)

    def identifier(self) -> str:
        """The wrapped encoder's identifier."""
        return self.encoder.identifier()

    def decode(
        self, data: bytes, defaults: GroupVersionKind | None = None, into: Any = None
    ) -> tuple[Any, GroupVersionKind | None]:
        """Decode with the wrapped decoder."""
        return self.decoder.decode(data, defaults, into)

    def __repr__(self) -> str:
        return f"new_codec({self.encoder!r}, {self.decoder!r})"


def new_codec(encoder: Encoder, decoder: Decoder) -> _Codec:
    """A codec that encodes with ``encoder`` and decodes with ``decoder`` (Go's ``NewCodec``)."""
    return _Codec(encoder, decoder)


def _go_type(value: Any) -> str:
    return "<nil>" if value is None else type_name(value)


class NoopEncoder:
    """A serializer that decodes with ``decoder`` and refuses to encode.

    ``encode`` raises :class:`kcodec.errors.EncodeError`
    ``encoding is not allowed for this codec: <decoder type>``; the identifier is ``noop``.
    """

    __slots__ = ("decoder",)

    def __init__(self, decoder: Decoder | None) -> None:
        self.decoder = decoder

    def encode(self, obj: Any, stream: Writer | None = None) -> bytes:
        """Always raises :class:`kcodec.errors.EncodeError`."""
        raise EncodeError(f"encoding is not allowed for this codec: {_go_type(self.decoder)}")

    def identifier(self) -> str:
        """Always ``noop``."""
        return "noop"

    def decode(
        self, data: bytes, defaults: GroupVersionKind | None = None, into: Any = None
    ) -> tuple[Any, GroupVersionKind | None]:
        """Decode with the wrapped decoder."""
        if self.decoder is None:
            raise DecodeError("decoding is not allowed for this codec: <nil>")
        return self.decoder.decode(data, defaults, into)


class NoopDecoder:
    """A serializer that encodes with ``encoder`` and refuses to decode.

    ``decode`` raises :class:`kcodec.errors.DecodeError`
    ``decoding is not allowed for this codec: <encoder type>``.
    """

    __slots__ = ("encoder",)

    def __init__(self, encoder: Encoder | None) -> None:
        self.encoder = encoder

    def encode(self, obj: Any, stream: Writer | None = None) -> bytes:
        """Encode with the wrapped encoder."""
        if self.encoder is None:
            raise EncodeError("encoding is not allowed for this codec: <nil>")
        return self.encoder.encode(obj, stream)

    def identifier(self) -> str:
        """The wrapped encoder's identifier."""
        if self.encoder is None:
            return "noop"
        return self.encoder.identifier()

    def decode(
        self, data: bytes, defaults: GroupVersionKind | None = None, into: Any = None
    ) -> tuple[Any, GroupVersionKind | None]:
        """Always raises :class:`kcodec.errors.DecodeError`."""
        raise DecodeError(f"decoding is not allowed for this codec: {_go_type(self.encoder)}")


class WithVersionEncoder:
    """Encodes objects with their kind set, without converting them.

    The kind written is the one ``version`` picks among the kinds ``object_typer`` knows for
    the object (the first known kind when ``version`` is None or picks nothing). It is set
    on the object only for the duration of the encode and restored afterwards, also when
    encoding fails. Objects the typer does not know are encoded untouched.
    """

    __slots__ = ("version", "encoder", "object_typer")

    def __init__(
        self,
        version: GroupVersioner | None,
        encoder: Encoder,
        object_typer: ObjectTyper,
    ) -> None:
        self.version = version
        self.encoder = encoder
        self.object_typer = object_typer

    def encode(self, obj: Any, stream: Writer | None = None) -> bytes:
        """Encode ``obj`` as the chosen kind; see the class documentation."""
        try:
            gvks, _ = self.object_typer.object_kinds(obj)
        except NotRegisteredError:
            return self.encoder.encode(obj, stream)
        kind = obj.get_object_kind()
        old = kind.group_version_kind()
        gvk = gvks[0]
        if self.version is not None:
            preferred = self.version.kind_for_group_version_kinds(gvks)
            if preferred is not None:
                gvk = preferred
        if gvk == old:
            return self.encoder.encode(obj, stream)
        kind.set_group_version_kind(gvk)
        try:
            return self.encoder.encode(obj, stream)
        finally:
            kind.set_group_version_kind(old)

    def identifier(self) -> str:
        """The wrapped encoder's identifier (the kind choice does not change it)."""
        return self.encoder.identifier()

    def object_kinds(self, obj: Any) -> tuple[list[GroupVersionKind], bool]:
        """The wrapped typer's answer."""
        return self.object_typer.object_kinds(obj)

    def recognizes(self, gvk: GroupVersionKind) -> bool:
        """The wrapped typer's answer."""
        return self.object_typer.recognizes(gvk)


class WithoutVersionDecoder:
    """Decodes with ``decoder``, then clears the kind of the returned object.

    Clearing also happens to the object carried by an error (a
    :class:`kcodec.errors.StrictDecodingError` holds the decoded object in ``obj``).
    """

    __slots__ = ("decoder",)

    def __init__(self, decoder: Decoder) -> None:
        self.decoder = decoder

    def decode(
        self, data: bytes, defaults: GroupVersionKind | None = None, into: Any = None
    ) -> tuple[Any, GroupVersionKind | None]:
        """Decode and clear the object's kind; the returned ``gvk`` is the serialized one."""
        try:
            obj, gvk = self.decoder.decode(data, defaults, into)
        except KCodecError as err:
            carried = getattr(err, "obj", None)
            if carried is not None:
                carried.get_object_kind().set_group_version_kind(_EMPTY_GVK)
            raise
        if obj is not None:
            obj.get_object_kind().set_group_version_kind(_EMPTY_GVK)
        return obj, gvk


class MultiObjectTyper:
    """Asks several typers in order.

    ``object_kinds`` returns the answer of the first typer that does not raise (and raises
    the last typer's error when all do); ``recognizes`` is True when any typer recognizes
    the kind.
    """

    __slots__ = ("typers",)

    def __init__(self, typers: Iterable[ObjectTyper]) -> None:
        self.typers = tuple(typers)

    def object_kinds(self, obj: Any) -> tuple[list[GroupVersionKind], bool]:
        """The first successful typer's ``(kinds, unversioned)``; ``([], False)`` with no typers."""
        error: KCodecError | None = None
        for typer in self.typers:
            try:
                return typer.object_kinds(obj)
            except KCodecError as err:
                error = err
        if error is not None:
            raise error
        return [], False

    def recognizes(self, gvk: GroupVersionKind) -> bool:
        """True when any typer recognizes ``gvk``."""
        return any(typer.recognizes(gvk) for typer in self.typers)


class Base64Serializer:
    """Wraps an encoder and a decoder in standard padded base64 (Go's ``NewBase64Serializer``).

    ``encode`` returns the base64 text of the inner encoder's output. ``decode`` reads
    standard base64 (CR and LF ignored), raising :class:`kcodec.errors.DecodeError`
    ``illegal base64 data at input byte <n>`` on bad input, and decodes the result with the
    inner decoder. The identifier is ``{"encoder":"<inner id>","name":"base64"}``.
    """

    __slots__ = ("encoder", "decoder", "_identifier")

    def __init__(self, encoder: Encoder | None, decoder: Decoder | None) -> None:
        self.encoder = encoder
        self.decoder = decoder
        values = {"name": "base64"}
        if encoder is not None:
            values["encoder"] = encoder.identifier()
        self._identifier = go_json_object(values)

    def identifier(self) -> str:
        """The JSON identifier naming the inner encoder."""
        return self._identifier

    def encode(self, obj: Any, stream: Writer | None = None) -> bytes:
        """Base64 of the inner encoding; also written to ``stream`` when given."""
        if self.encoder is None:
            raise EncodeError("base64 serializer has no encoder")
        cache_encode = getattr(obj, "cache_encode", None)
        if cache_encode is not None:
            return cache_encode(self._identifier, self._do_encode, stream)
        return self._do_encode(obj, stream)

    def _do_encode(self, obj: Any, stream: Writer | None) -> bytes:
        out = binascii.b2a_base64(self.encoder.encode(obj), newline=False)  # type: ignore[union-attr]
        if stream is not None:
            stream.write(out)
        return out

    def decode(
        self, data: bytes, defaults: GroupVersionKind | None = None, into: Any = None
    ) -> tuple[Any, GroupVersionKind | None]:
        """Base64-decode ``data`` then decode it with the inner decoder."""
        if self.decoder is None:
            raise DecodeError("base64 serializer has no decoder")
        return self.decoder.decode(b64decode(bytes(data)), defaults, into)


class AggregateError(KCodecError):
    """Several errors reported together; ``errors`` holds them in order.

    The message follows Go's aggregate: the distinct messages joined by ``", "`` inside
    brackets, or the lone message when all are the same.
    """

    def __init__(self, errors: Sequence[BaseException]) -> None:
        self.errors = list(errors)
        seen: list[str] = []
        for err in self.errors:
            msg = str(err)
            if msg not in seen:
                seen.append(msg)
        text = seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"
        super().__init__(text)


def encode_list(encoder: Encoder, objects: MutableSequence[Any]) -> None:
    """Replace each object of ``objects`` in place by ``Unknown(raw=<its encoding>)``.

    Objects that fail to encode are left as they are; after the whole list is processed a
    single failure is raised as is, several as an :class:`AggregateError`.
    """
    unknown = Unknown
    errors: list[KCodecError] = []
    for i, obj in enumerate(objects):
        try:
            data = encoder.encode(obj)
        except KCodecError as err:
            errors.append(err)
            continue
        objects[i] = unknown(raw=data)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise AggregateError(errors)


def _decode_list_item(item: Any, decoders: Sequence[Decoder]) -> Any:
    for decoder in decoders:
        try:
            return decoder.decode(item.raw, None, None)[0]
        except NotRegisteredError:
            continue
    # Nothing knows the kind: keep the Unknown, but let a decoder fill its apiVersion/kind.
    for decoder in decoders:
        try:
            decode_into(decoder, item.raw, item)
        except KCodecError:
            continue
        return item
    return item


def decode_list(objects: MutableSequence[Any], *decoders: Decoder) -> list[KCodecError]:
    """Decode, in place, every ``Unknown`` element of ``objects`` with the first decoder that
    knows its kind.

    A decoder raising :class:`kcodec.errors.NotRegisteredError` passes the element on to the
    next one; any other error is collected and the element is left as it was. An element
    no decoder knows stays an ``Unknown`` whose apiVersion and kind a decoder may have
    filled. Returns the collected errors (empty when all went well).
    """
    unknown = Unknown
    errors: list[KCodecError] = []
    for i, obj in enumerate(objects):
        if not isinstance(obj, unknown):
            continue
        try:
            objects[i] = _decode_list_item(obj, decoders)
        except KCodecError as err:
            errors.append(err)
    return errors


class _StreamFrameReader:
    """Frames of a stream without separators: each read returns what the stream gives."""

    __slots__ = ("_stream", "_size")

    def __init__(self, stream: Reader, size: int) -> None:
        self._stream = stream
        self._size = size

    def read_frame(self, max_size: int = MAX_FRAME_SIZE) -> bytes:
        """The next chunk of the stream (at most ``max_size`` bytes); EOFError at its end."""
        chunk = self._stream.read(min(self._size, max_size))
        if not chunk:
            raise EOFError
        return chunk

    def close(self) -> None:
        """Close the underlying stream when it can be closed."""
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


class _DefaultFramer:
    """The framer for streams whose objects follow one another with no separation.

    Frames are whatever chunks the stream delivers (up to 64 KiB); writes pass through.
    """

    __slots__ = ()

    def new_frame_reader(self, stream: Reader) -> FrameReader:
        """Read the stream in chunks."""
        return _StreamFrameReader(stream, 65536)

    def new_frame_writer(self, stream: Writer) -> FrameWriter:
        """The stream itself: data is written unframed."""
        return stream  # type: ignore[return-value]

    def __repr__(self) -> str:
        return "DEFAULT_FRAMER"


DEFAULT_FRAMER = _DefaultFramer()
"""Go's ``runtime.DefaultFramer``: no framing at all."""
