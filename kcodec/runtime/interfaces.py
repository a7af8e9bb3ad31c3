"""The runtime interfaces: the contracts every kcodec encoder, decoder, scheme and object keeps.

These :class:`typing.Protocol` classes are the single statement of each contract (the
Python form of apimachinery's ``runtime/interfaces.go``); implementations refer to them
instead of repeating them. Errors are raised, never returned: wherever Go returns
``(value, error)`` the Python method returns ``value`` or raises a
:class:`kcodec.errors.KCodecError`, and Go's ``(value, ok)`` becomes ``value | None``.

The protocols are ``runtime_checkable`` so that ``isinstance`` can answer "does this object
offer the optional hook"; hot paths should prefer ``getattr`` lookups, which are cheaper.

The storage layer's contracts (``storage.Interface``, value transformers, backends, key
services) are in :mod:`kcodec.storage.interfaces`, as Go keeps them in k8s.io/apiserver.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from kcodec.schema import GroupResource, GroupVersion, GroupVersionKind

__all__ = [
    "Writer",
    "Reader",
    "GroupVersioner",
    "ObjectKind",
    "Object",
    "Encoder",
    "Decoder",
    "Serializer",
    "Codec",
    "ParameterCodec",
    "MetaFactory",
    "RecognizingDecoder",
    "MAX_FRAME_SIZE",
    "FrameReader",
    "FrameWriter",
    "Framer",
    "StreamSerializerInfo",
    "SerializerInfo",
    "NegotiatedSerializer",
    "ClientNegotiator",
    "StorageSerializer",
    "NestedObjectEncoder",
    "NestedObjectDecoder",
    "ObjectDefaulter",
    "ObjectVersioner",
    "ObjectConvertor",
    "ObjectTyper",
    "ObjectCreater",
    "CacheableObject",
    "Unstructured",
    "WatchInterface",
]


@runtime_checkable
class Writer(Protocol):
    """A binary sink, such as an open file, ``io.BytesIO`` or a socket file.

    ``write(data)`` takes ``bytes`` and consumes all of them (a short write is an error the
    sink raises itself); the return value is ignored.
    """

    def write(self, data: bytes, /) -> Any: ...


@runtime_checkable
class Reader(Protocol):
    """A binary source: ``read(size)`` returns up to ``size`` bytes, ``b""`` at end of input.

    ``size=-1`` reads everything that is left.
    """

    def read(self, size: int = -1, /) -> bytes: ...


@runtime_checkable
class GroupVersioner(Protocol):
    """Chooses one conversion or encoding target among the kinds an object can be written as.

    ``kind_for_group_version_kinds(kinds)`` returns the desired target kind, or ``None`` when
    no target is acceptable. The target need not be one of ``kinds``: the caller is then
    expected to create an object of the target kind (``ObjectCreater.new``) and convert
    into it. Implementations may use any knowledge of the input kinds to decide.
    ``identifier()`` is a string that two versioners share only if they return the same
    target for every input. :class:`kcodec.schema.GroupVersion` is a versioner, as are
    ``GroupVersions``, ``MultiGroupVersioner`` and the internal and disabled versioners.
    """

    def kind_for_group_version_kinds(
        self, kinds: Sequence[GroupVersionKind], /
    ) -> GroupVersionKind | None: ...

    def identifier(self) -> str: ...


@runtime_checkable
class ObjectKind(Protocol):
    """The serialized-kind accessor of an object (Go's ``schema.ObjectKind``).

    ``group_version_kind()`` returns the kind the object says it is (its TypeMeta), the
    empty kind when unset. ``set_group_version_kind(gvk)`` records the kind the object is
    about to be serialized as, or has just been read as; serializers and codecs call it, and
    setting the empty kind clears TypeMeta. An object that is never serialized may return an
    accessor whose setter does nothing.
    """

    def group_version_kind(self) -> GroupVersionKind: ...

    def set_group_version_kind(self, gvk: GroupVersionKind, /) -> None: ...


@runtime_checkable
class Object(Protocol):
    """What every type registered in a scheme provides.

    ``get_object_kind()`` returns the object's :class:`ObjectKind` accessor (usually the
    object itself), through which serializers read and set the group, version and kind it
    is written as. ``deep_copy()`` returns an independent copy: mutating the copy never
    changes the original, and the copy has the same Python type.
    """

    def get_object_kind(self) -> ObjectKind: ...

    def deep_copy(self) -> Object: ...


@runtime_checkable
class Encoder(Protocol):
    """Writes objects in a serialized form.

    ``encode(obj, stream=None)`` returns the serialized bytes and, when ``stream`` is given,
    also writes them to it. It may raise when the object's version cannot be written or no
    conversion is defined (:class:`kcodec.errors.NotRegisteredError`,
    :class:`kcodec.errors.ConversionError`, :class:`kcodec.errors.EncodeError`). Encoders
    must not leave lasting changes on ``obj``: a kind set while writing is restored.
    ``identifier()`` returns a string that two encoders share if and only if they write
    every object to the same bytes; it is the key under which cacheable objects
    (:class:`CacheableObject`) store their serialized forms, so an encoder whose ``obj`` has
    ``cache_encode`` should call ``obj.cache_encode(self.identifier(), do_encode, stream)``.
    """

    def encode(self, obj: Any, stream: Writer | None = None) -> bytes: ...

    def identifier(self) -> str: ...


@runtime_checkable
class Decoder(Protocol):
    """Reads an object from serialized bytes.

    ``decode(data, defaults=None, into=None)`` returns ``(obj, gvk)``: the decoded object and
    the group/version/kind found in the data (after ``defaults`` filled what the data left
    out), or ``None`` when the format carries no kind. The data's own typing wins; the parts
    it lacks are taken from ``defaults``; when neither names the kind fully, the type of
    ``into`` may guide the choice. When ``into`` is given the decoder may fill it and return
    it instead of allocating, but it need not: the returned object is not guaranteed to be
    ``into`` nor of its type, and ``into`` is not guaranteed to be populated. Malformed input
    raises :class:`kcodec.errors.DecodeError` (or a subclass); unknown kinds raise
    :class:`kcodec.errors.NotRegisteredError`; strict-mode findings raise
    :class:`kcodec.errors.StrictDecodingError` carrying the fully decoded object.
    """

    def decode(
        self,
        data: bytes,
        defaults: GroupVersionKind | None = None,
        into: Any = None,
    ) -> tuple[Any, GroupVersionKind | None]: ...


@runtime_checkable
class Serializer(Encoder, Decoder, Protocol):
    """Transforms objects to a serialized format and back (both :class:`Encoder` and :class:`Decoder`).

    A serializer may or may not convert objects between versions; callers must not assume
    either.
    """


@runtime_checkable
class Codec(Serializer, Protocol):
    """A :class:`Serializer` that takes care of versioning the objects it reads and writes.

    The methods are the same as a serializer's; the name tells callers that the version of
    the objects they get back, or that is written, is managed by the codec.
    """


@runtime_checkable
class MetaFactory(Protocol):
    """Reads the apiVersion/kind a serialized document names, before it is decoded (Go's
    ``json.MetaFactory`` in runtime/serializer/json/meta.go): the empty kind when the
    document names none; malformed input raises :class:`kcodec.errors.DecodeError`."""

    def interpret(self, data: bytes, /) -> GroupVersionKind: ...


@runtime_checkable
class RecognizingDecoder(Decoder, Protocol):
    """A decoder that can tell whether data is in its format (Go's
    ``recognizer.RecognizingDecoder``): ``recognizes_data(data)`` answers
    ``(recognized, unknown)``, ``unknown`` being True when it cannot tell."""

    def recognizes_data(self, data: bytes, /) -> tuple[bool, bool]: ...


@runtime_checkable
class ParameterCodec(Protocol):
    """Converts API objects to and from URL query parameters (``dict[str, list[str]]``).

    Query parameters do not describe their own version, so the version is passed in.
    ``decode_parameters(parameters, from_gv, into)`` reads parameters written in ``from_gv``
    into ``into`` (converting and defaulting as needed); empty parameters leave ``into``
    untouched. ``encode_parameters(obj, to_gv)`` converts ``obj`` to ``to_gv`` when needed
    and returns its query parameters.
    """

    def decode_parameters(
        self, parameters: dict[str, list[str]], from_gv: GroupVersion, into: Any, /
    ) -> None: ...

    def encode_parameters(self, obj: Any, to_gv: GroupVersion, /) -> dict[str, list[str]]: ...


#: Largest frame a stream decoder accepts by default (Go's streaming decoder limit, 16 MiB).
MAX_FRAME_SIZE = 16 * 1024 * 1024


@runtime_checkable
class FrameReader(Protocol):
    """Reads one frame of a framed stream at a time (what ``Framer.new_frame_reader`` gives).

    ``read_frame(max_size)`` returns the bytes of the next whole frame (``b""`` for an
    empty frame) and raises :class:`EOFError` at a clean end of the stream. A stream that
    ends inside a frame raises :class:`kcodec.errors.DecodeError`; a frame longer than
    ``max_size`` raises ``DecodeError("object to decode was longer than maximum allowed
    size")`` and is skipped, so the next call reads the following frame (Go's streaming
    decoder does the same with its growing buffer). ``close()`` closes the underlying stream.
    """

    def read_frame(self, max_size: int = MAX_FRAME_SIZE) -> bytes: ...

    def close(self) -> None: ...


@runtime_checkable
class FrameWriter(Protocol):
    """Writes frames: each ``write(data)`` call emits ``data`` as exactly one frame."""

    def write(self, data: bytes, /) -> int: ...


@runtime_checkable
class Framer(Protocol):
    """Creates readers and writers that follow one framing pattern (JSON values, YAML
    documents, length-delimited protobuf).

    ``new_frame_reader(stream)`` wraps a binary :class:`Reader` in a :class:`FrameReader`;
    ``new_frame_writer(stream)`` wraps a binary :class:`Writer` in a :class:`FrameWriter`.
    """

    def new_frame_reader(self, stream: Reader, /) -> FrameReader: ...

    def new_frame_writer(self, stream: Writer, /) -> FrameWriter: ...


@runtime_checkable
class StreamSerializerInfo(Protocol):
    """How a media type is streamed: the per-object ``serializer``, the ``framer`` that
    separates objects on the wire, and ``encodes_as_text`` (True when the stream is safe
    UTF-8 text).
    """

    encodes_as_text: bool
    serializer: Serializer
    framer: Framer


@runtime_checkable
class SerializerInfo(Protocol):
    """One supported serialization format.

    ``media_type`` is its wire name (``application/json``), split into ``media_type_type``
    (``application``) and ``media_type_subtype`` (``json``); ``encodes_as_text`` is True when
    its output is safe UTF-8 text. ``serializer`` reads and writes single objects;
    ``pretty_serializer`` (or None) writes a form meant for people; ``strict_serializer``
    (or None) rejects unknown and duplicate fields; ``stream_serializer`` (or None) describes
    how the format is streamed.
    """

    media_type: str
    media_type_type: str
    media_type_subtype: str
    encodes_as_text: bool
    serializer: Serializer
    pretty_serializer: Serializer | None
    strict_serializer: Serializer | None
    stream_serializer: StreamSerializerInfo | None


@runtime_checkable
class NegotiatedSerializer(Protocol):
    """Provides encoders and decoders for several media types, as a server performing HTTP
    content negotiation needs.

    ``supported_media_types()`` lists the formats for single objects, in preference order.
    ``encoder_for_version(encoder, versioner)`` returns an encoder that writes objects in the
    version ``versioner`` picks; ``decoder_to_version(decoder, versioner)`` returns a decoder
    that gives objects back in the version ``versioner`` picks by default.
    """

    def supported_media_types(self) -> list[SerializerInfo]: ...

    def encoder_for_version(self, encoder: Encoder, versioner: GroupVersioner, /) -> Encoder: ...

    def decoder_to_version(self, decoder: Decoder, versioner: GroupVersioner, /) -> Decoder: ...


@runtime_checkable
class ClientNegotiator(Protocol):
    """Turns an HTTP content type into the matching encoder or decoder for a client.

    ``params`` are optional media-type parameters (``{"pretty": "1"}``); unknown ones are
    ignored. ``encoder(content_type, params)`` and ``decoder(content_type, params)`` raise
    :class:`kcodec.errors.KCodecError` when no serializer is registered for the content
    type. ``stream_decoder(content_type, params)`` returns ``(decoder, serializer, framer)``,
    all three always present when it succeeds, and raises when the type cannot be streamed.
    """

    def encoder(self, content_type: str, params: dict[str, str] | None = None, /) -> Encoder: ...

    def decoder(self, content_type: str, params: dict[str, str] | None = None, /) -> Decoder: ...

    def stream_decoder(
        self, content_type: str, params: dict[str, str] | None = None, /
    ) -> tuple[Decoder, Serializer, Framer]: ...


@runtime_checkable
class StorageSerializer(Protocol):
    """Provides encoders and decoders for data at rest (files read by tools, storage backends).

    ``supported_media_types()`` lists the formats objects may be stored in.
    ``universal_deserializer()`` returns a decoder that recognizes any of those formats from
    the data itself. ``encoder_for_version`` and ``decoder_to_version`` are as for
    :class:`NegotiatedSerializer`.
    """

    def supported_media_types(self) -> list[SerializerInfo]: ...

    def universal_deserializer(self) -> Decoder: ...

    def encoder_for_version(self, encoder: Encoder, versioner: GroupVersioner, /) -> Encoder: ...

    def decoder_to_version(self, decoder: Decoder, versioner: GroupVersioner, /) -> Decoder: ...


@runtime_checkable
class NestedObjectEncoder(Protocol):
    """Optional hook for objects holding nested objects or RawExtensions.

    Before such an object is serialized, ``encode_nested_objects(encoder)`` is called so it
    can encode its embedded objects into their raw form with ``encoder``.
    """

    def encode_nested_objects(self, encoder: Encoder, /) -> None: ...


@runtime_checkable
class NestedObjectDecoder(Protocol):
    """Optional hook for objects holding nested objects or RawExtensions.

    After such an object is deserialized, ``decode_nested_objects(decoder)`` is called so it
    can decode its embedded raw data with ``decoder``. It may raise
    :class:`kcodec.errors.StrictDecodingError` while decoding still succeeded, so callers
    must check for that class before giving up, and implementations must raise it only when
    everything else was decoded.
    """

    def decode_nested_objects(self, decoder: Decoder, /) -> None: ...


@runtime_checkable
class ObjectDefaulter(Protocol):
    """``default(obj)`` fills in default values on ``obj`` in place; defaulting never fails."""

    def default(self, obj: Any, /) -> None: ...


@runtime_checkable
class ObjectVersioner(Protocol):
    """Converts objects between versions and knows each group's version order.

    ``convert_to_version(obj, versioner)`` is as in :class:`ObjectConvertor`;
    ``prioritized_versions_for_group(group)`` lists the group's versions, preferred first.
    """

    def convert_to_version(self, obj: Any, versioner: GroupVersioner, /) -> Any: ...

    def prioritized_versions_for_group(self, group: str, /) -> list[GroupVersion]: ...


@runtime_checkable
class ObjectConvertor(Protocol):
    """Converts objects to other versions.

    ``convert(src, dst, context=None)`` fills ``dst`` from ``src``; ``context`` is passed to
    every nested conversion. ``convert_to_version(obj, versioner)`` returns ``obj`` in the
    kind ``versioner`` picks. Neither mutates its input, but the result may share data with
    it, so mutating the result can change the input. ``convert_field_label(gvk, label,
    value)`` returns the ``(label, value)`` pair a field selector means for that kind.
    Failures raise :class:`kcodec.errors.ConversionError` or
    :class:`kcodec.errors.NotRegisteredError`.
    """

    def convert(self, src: Any, dst: Any, context: Any = None, /) -> None: ...

    def convert_to_version(self, obj: Any, versioner: GroupVersioner, /) -> Any: ...

    def convert_field_label(
        self, gvk: GroupVersionKind, label: str, value: str, /
    ) -> tuple[str, str]: ...


@runtime_checkable
class ObjectTyper(Protocol):
    """Tells the group/version/kinds of objects.

    ``object_kinds(obj)`` returns ``(kinds, unversioned)``: every kind the object's type is
    registered as (never empty) and True when the type is unversioned; an unrecognized
    object raises :class:`kcodec.errors.NotRegisteredError`. ``recognizes(gvk)`` is True when
    the kind can be handled: it is a possible decoding or conversion target.
    """

    def object_kinds(self, obj: Any, /) -> tuple[list[GroupVersionKind], bool]: ...

    def recognizes(self, gvk: GroupVersionKind, /) -> bool: ...


@runtime_checkable
class ObjectCreater(Protocol):
    """``new(gvk)`` returns a new zero-valued object of that kind, or raises
    :class:`kcodec.errors.NotRegisteredError` when the kind is unknown.
    """

    def new(self, gvk: GroupVersionKind, /) -> Any: ...


@runtime_checkable
class CacheableObject(Protocol):
    """An object that caches its serialized forms so it is serialized once per encoder.

    ``cache_encode(identifier, encode, stream)`` returns (and writes to ``stream``, if
    given) the bytes ``encode(obj, stream)`` produces, calling ``encode`` only on a cache
    miss for ``identifier``; ``encode`` takes ownership of the object it is given (a wrapper
    passes a deep copy of what it wraps). Two calls with the same identifier are assumed to
    use the same ``encode``. ``get_object()`` returns a deep copy of the object that would
    be encoded, owned by the caller.
    """

    def cache_encode(
        self,
        identifier: str,
        encode: Callable[[Any, Writer | None], bytes],
        stream: Writer | None,
        /,
    ) -> bytes: ...

    def get_object(self) -> Any: ...


@runtime_checkable
class Unstructured(Object, Protocol):
    """An object kept as a JSON-like ``dict`` instead of a typed class.

    Its content holds only values JSON can carry. ``unstructured_content()`` returns the
    (never None) content dict; ``set_unstructured_content(content)`` replaces it.
    ``new_empty_instance()`` returns an object of the same class holding only apiVersion and
    kind (use it instead of calling the class, which would lose the kind). ``is_list()`` is
    True when the content follows the list convention (an ``items`` array);
    ``each_list_item(fn)`` calls ``fn`` with each item as an object, stopping at the first
    exception, and raises when the object is not a list.
    """

    def new_empty_instance(self) -> Unstructured: ...

    def unstructured_content(self) -> dict[str, Any]: ...

    def set_unstructured_content(self, content: dict[str, Any], /) -> None: ...

    def is_list(self) -> bool: ...

    def each_list_item(self, fn: Callable[[Any], None], /) -> None: ...


@runtime_checkable
class WatchInterface(Protocol):
    """A running watch (apimachinery's ``watch.Interface``): iterating it yields events
    with ``.type`` ("ADDED", "MODIFIED", "DELETED", "BOOKMARK") and ``.object`` that unpack
    as ``(type, object)``; ``next(timeout)`` returns one or ``None``; ``stop()`` ends it."""

    def __iter__(self) -> Any: ...

    def next(self, timeout: float | None = None) -> Any: ...

    def stop(self) -> None: ...
