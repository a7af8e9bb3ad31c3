"""Everyday helpers: ``kcodec.load``, ``load_all``, ``dump`` and ``watch_events``.

These are the few calls most users need, built from the machinery Go programs assemble by
hand (k8s.io/apimachinery's ``runtime.Decode`` over a CodecFactory's universal deserializer,
the YAML/JSON stream readers kubectl's resource builder uses, and client-go's watch decoder).
What they add to Go's behaviour is what a Python user expects from one call: any format is
detected from the bytes, unknown kinds come back as :class:`~kcodec.runtime.Unstructured`
(as kubectl shows custom resources) instead of failing, multi-document input is either read
whole (``load_all``) or refused with a clear message (``load``) rather than cut silently, and
``dump`` fills TypeMeta from the scheme for objects built in Python.
"""
from __future__ import annotations

import io
import os
import re
import errno
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import IO, Any, Literal, NamedTuple, TypeVar, Union, overload

from kcodec.errors import DecodeError, EncodeError, KCodecError, NotRegisteredError
from kcodec.schema import GroupVersionKind

__all__ = ["Event", "load", "load_all", "dump", "dump_all", "watch_events", "detect_format"]

Source = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", "Mapping[str, Any]"]
Format = Literal["json", "yaml", "protobuf", "cbor"]
T = TypeVar("T")
DumpFormat = Literal["yaml", "json", "json-pretty", "protobuf", "cbor"]

_PROTOBUF_MAGIC = b"k8s\x00"
# RFC 8949 self-described CBOR tag 55799, which Go's CBOR serializer writes first.
_CBOR_MAGIC = b"\xd9\xd9\xf7"
_MEDIA_TYPES = {
    "json": "application/json",
    "yaml": "application/yaml",
    "protobuf": "application/vnd.kubernetes.protobuf",
    "cbor": "application/cbor",
}
_JSON_SPACE = b" \t\r\n"
#: Extensions of manifest files: a one-line string ending in one of these is a path, and
#: a missing file is an error rather than a document to parse.
_MANIFEST_EXTENSIONS = (".yaml", ".yml", ".json", ".pb", ".proto", ".cbor")


class Event(NamedTuple):
    """One watch event: ``type`` is ``ADDED``, ``MODIFIED``, ``DELETED``, ``BOOKMARK`` or
    ``ERROR``; ``object`` the decoded object (a ``metav1.Status`` for ``ERROR``)."""

    type: str
    object: Any


def detect_format(data: bytes) -> Format:
    """The wire format of ``data``: ``protobuf`` (``k8s\\x00`` envelope), ``cbor``
    (self-described tag), ``json`` (first non-space byte ``{`` or ``[``), else ``yaml``."""
    if data.startswith(_PROTOBUF_MAGIC):
        return "protobuf"
    if data.startswith(_CBOR_MAGIC):
        return "cbor"
    head = data.lstrip(_JSON_SPACE)[:1]
    if head in (b"{", b"["):
        return "json"
    return "yaml"


def _looks_like_path(text: str) -> bool:
    """A one-line string ending in a manifest extension (``deploy.yml``): meant as a path."""
    return (bool(text) and "\n" not in text and not text.lstrip().startswith(("{", "["))
            and text.rstrip().lower().endswith(_MANIFEST_EXTENSIONS))


def _read(source: Source) -> tuple[bytes, str]:
    """The bytes of ``source`` and a name for messages (the path, or ``<bytes>``)."""
    if isinstance(source, Mapping):
        # A dict as json.loads or yaml.safe_load return it: the JSON tree of one object.
        from kcodec import gojson

        try:
            return gojson.dumps(dict(source)), "<dict>"
        except (TypeError, ValueError, KCodecError) as err:
            raise DecodeError(f"<dict>: not a JSON-compatible object: {err}") from None
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "<bytes>"
    if isinstance(source, os.PathLike):
        path = os.fspath(source)
        with open(path, "rb") as f:
            return f.read(), str(path)
    if isinstance(source, str):
        # A one-line string naming an existing file is a path; anything else is the
        # document itself (a manifest always has a newline or starts with `{`).
        if "\n" not in source and source and os.path.isfile(source):
            with open(source, "rb") as f:
                return f.read(), source
        if _looks_like_path(source):
            # `kcodec.load("deploy.yml")` with a typo: parsing the name as YAML would only
            # say it has no kind.
            raise FileNotFoundError(errno.ENOENT, "kcodec: no such file", source)
        return source.encode("utf-8"), "<string>"
    raise TypeError(
        f"kcodec: expected bytes, str, a path or a dict, got {type(source).__name__}"
    )


@lru_cache(maxsize=8)
def _factory(scheme: Any) -> Any:
    from kcodec.serializer.factory import CodecFactory

    # CBOR is behind an alpha gate in kube-apiserver (so not in kcodec.api.codecs); files
    # and etcd values in CBOR still exist, and these helpers read whatever they are given.
    return CodecFactory(scheme, cbor=True)


def _codecs(scheme: Any) -> Any:
    if scheme is None:
        from kcodec import api

        scheme = api.scheme
    return _factory(scheme)


def _serializer(codecs: Any, fmt: str, *, strict: bool = False, pretty: bool = False) -> Any:
    media_type = _MEDIA_TYPES[fmt]
    for info in codecs.supported_media_types():
        if info.media_type == media_type:
            if strict and info.strict_serializer is not None:
                return info.strict_serializer
            if pretty and info.pretty_serializer is not None:
                return info.pretty_serializer
            return info.serializer
    raise KCodecError(f"kcodec: no serializer for {media_type}")


def _decode(codecs: Any, data: bytes, fmt: str, strict: bool) -> Any:
    """One document: typed when the scheme knows its kind, else Unstructured (JSON/YAML)."""
    serializer = _serializer(codecs, fmt, strict=strict)
    try:
        obj, _ = serializer.decode(data, None, None)
        return obj
    except NotRegisteredError as err:
        if fmt not in ("json", "yaml") or _group_is_known(codecs, err):
            raise
    from kcodec.runtime import Unstructured

    # Go's serializer fills an Unstructured `into` from any JSON/YAML with a kind: what
    # kubectl does with kinds its scheme lacks.
    obj, _ = serializer.decode(data, None, Unstructured())
    return obj


def _group_is_known(codecs: Any, err: NotRegisteredError) -> bool:
    """Whether the caller's scheme registers a version of the group ``err`` names.

    With a scheme of the caller's, only kinds of groups it does not know at all come back as
    Unstructured: for a group it knows (a CRD's, added with
    ``kcodec.api.apiextensions.add_custom_resource_definition``, or a built-in one) an unknown
    version or kind is what Go's scheme reports, ``no kind "X" is registered for version
    "g/v"``. The default scheme reads any manifest, as kubectl does, including versions
    Kubernetes removed (``kcodec.convert`` still converts those).
    """
    gvk = err.gvk
    if gvk is None or not gvk.version:
        return False
    from kcodec import api

    if codecs.scheme is api.scheme:
        return False
    return bool(codecs.scheme.is_group_registered(gvk.group))


def _yaml_documents(data: bytes) -> Iterator[bytes]:
    from kcodec.serializer.framing import YAML_FRAMER

    reader = YAML_FRAMER.new_frame_reader(io.BytesIO(data))
    while True:
        try:
            yield reader.read_frame()
        except EOFError:
            return


def _json_documents(data: bytes) -> Iterator[bytes]:
    from kcodec.serializer.framing import JSON_FRAMER

    reader = JSON_FRAMER.new_frame_reader(io.BytesIO(data))
    while True:
        try:
            yield reader.read_frame()
        except EOFError:
            return


def _is_empty_yaml(doc: bytes) -> bool:
    """A document of only blank lines and comments (kubectl skips these)."""
    for line in doc.splitlines():
        s = line.strip()
        if s and not s.startswith(b"#"):
            return False
    return True


def _documents(data: bytes, fmt: str) -> list[bytes]:
    if fmt == "yaml":
        return [d for d in _yaml_documents(data) if not _is_empty_yaml(d)]
    if fmt == "json":
        return list(_json_documents(data))
    return [data]


@overload
def load(source: Source, *, strict: bool = False, scheme: Any = None, kind: None = None) -> Any: ...
@overload
def load(source: Source, *, strict: bool = False, scheme: Any = None, kind: type[T]) -> T: ...


def load(source: Source, *, strict: bool = False, scheme: Any = None, kind: type[Any] | None = None) -> Any:
    """Decode one Kubernetes object from JSON, YAML, protobuf (``k8s\\x00``) or CBOR.

    ``source`` is the document's bytes or text, a path (a ``str`` without a newline that
    names an existing file is read as a path; one ending in ``.yaml``, ``.yml``, ``.json``,
    ``.pb`` or ``.cbor`` that names no file raises :class:`FileNotFoundError`), or a dict as
    ``json.loads`` or ``yaml.safe_load`` return one (the same as
    :func:`kcodec.interop.from_dict`). The object is typed when ``scheme`` (by
    default ``kcodec.api.scheme``, every built-in kind) knows its kind, else an
    :class:`~kcodec.runtime.Unstructured`. ``strict=True`` raises
    :class:`~kcodec.errors.StrictDecodingError` for unknown or duplicated fields, as
    ``kubectl apply --validate=strict`` does. Input holding several documents raises
    :class:`~kcodec.errors.DecodeError` (use :func:`load_all`); a ``v1 List`` is one object.
    ``kind`` (a model class such as ``kcodec.api.apps.v1.Deployment``, or ``Unstructured``)
    is the class the object must have: anything else raises
    :class:`~kcodec.errors.DecodeError`, and type checkers take the result to be of it.

    >>> pod = kcodec.load(b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}')
    >>> pod.metadata.name
    'p'
    """
    data, name = _read(source)
    fmt = detect_format(data)
    docs = _documents(data, fmt)
    if not docs:
        raise DecodeError(f"{name}: no object to decode (the input is empty)")
    if len(docs) > 1:
        raise DecodeError(
            f"{name}: holds {len(docs)} documents; kcodec.load reads one (use kcodec.load_all)"
        )
    return _of_kind(_decode(_codecs(scheme), docs[0], fmt, strict), kind, name)


def _of_kind(obj: Any, kind: type[Any] | None, name: str) -> Any:
    """``obj``, when it is a ``kind`` (or no kind was asked for)."""
    if kind is None or isinstance(obj, kind):
        return obj
    gvk = obj.get_object_kind().group_version_kind()
    raise DecodeError(
        f"{name}: expected a {kind.__module__}.{kind.__qualname__}, got {type(obj).__name__} "
        f"({gvk.group_version().identifier()}, Kind={gvk.kind})"
    )


@overload
def load_all(source: Source, *, strict: bool = False, scheme: Any = None, kind: None = None) -> list[Any]: ...
@overload
def load_all(source: Source, *, strict: bool = False, scheme: Any = None, kind: type[T]) -> list[T]: ...


def load_all(source: Source, *, strict: bool = False, scheme: Any = None,
             kind: type[Any] | None = None) -> list[Any]:
    """Decode every object of a YAML ``---`` stream or a stream of JSON objects.

    Documents that are empty or only comments are skipped, as kubectl skips them. Each
    object is typed or :class:`~kcodec.runtime.Unstructured` as in :func:`load`; a
    ``v1 List`` stays one object. A document that fails raises its error with the
    document's index (from 0) in the message and as ``err.document``. ``kind``: every
    object must be of that class, as in :func:`load`.
    """
    data, name = _read(source)
    fmt = detect_format(data)
    codecs = _codecs(scheme)
    out = []
    for i, doc in enumerate(_documents(data, fmt)):
        try:
            out.append(_of_kind(_decode(codecs, doc, fmt, strict), kind, f"{name}: document {i}"))
        except KCodecError as err:
            err.document = i  # type: ignore[attr-defined]
            err.source = name  # type: ignore[attr-defined]
            raise
    return out


def _type_meta_filled(obj: Any, scheme: Any) -> Any:
    """``obj`` itself when it names its kind, else a shallow copy with TypeMeta set from
    the scheme (Go's versioning encoder sets TypeMeta on the way out the same way)."""
    kind = obj.get_object_kind()
    gvk = kind.group_version_kind()
    if gvk.kind and gvk.version:
        return obj
    if scheme is None:
        from kcodec import api

        scheme = api.scheme
    kinds, unversioned = scheme.object_kinds(obj)
    chosen: GroupVersionKind = kinds[0]
    if not chosen.version or chosen.version == "__internal":
        raise EncodeError(
            f"kcodec.dump: {type(obj).__name__} is an internal-version object; convert it "
            "to an external version first (kcodec.convert)"
        )
    import copy

    out = copy.copy(obj)
    out.get_object_kind().set_group_version_kind(chosen)
    return out


def dump(obj: Any, format: DumpFormat = "yaml", *, scheme: Any = None) -> bytes:
    """Encode ``obj`` as Go writes it: ``yaml``, ``json`` (compact, one line with Go's
    trailing newline), ``json-pretty`` (kubectl's indented form), ``protobuf``
    (the ``k8s\\x00`` envelope) or ``cbor`` (Go's CBOR serializer: self-described tag first).

    An object built in Python without ``api_version``/``kind`` gets them from the scheme
    (``kcodec.api.scheme`` unless given); the caller's object is not changed.
    """
    if format not in ("yaml", "json", "json-pretty", "protobuf", "cbor"):
        raise ValueError(
            f"kcodec.dump: unknown format {format!r} (yaml, json, json-pretty, protobuf or cbor)"
        )
    codecs = _codecs(scheme)
    from kcodec.runtime import Unstructured, UnstructuredList

    if not isinstance(obj, (Unstructured, UnstructuredList)):
        obj = _type_meta_filled(obj, scheme)
    if format == "json-pretty":
        return _serializer(codecs, "json", pretty=True).encode(obj)
    return _serializer(codecs, format).encode(obj)


def dump_all(
    objs: Iterable[Any],
    format: Literal["yaml", "json", "json-pretty"] = "yaml",
    *,
    scheme: Any = None,
) -> bytes:
    """Encode several objects as one document, the reverse of :func:`load_all`.

    ``yaml`` writes each object as :func:`dump` does, joined by ``---`` lines (what
    ``kubectl get -o yaml`` writes for several objects with ``--show-kind``); ``json`` and
    ``json-pretty`` write one ``v1 List`` holding them (kubectl's ``-o json`` of several
    objects: ``apiVersion``, ``items``, ``kind``, ``metadata.resourceVersion: ""``), which
    :func:`load` reads back as one List and :func:`load_all` too. Protobuf and CBOR have no
    multi-document form: dump a ``v1 List`` object instead.
    """
    if format not in ("yaml", "json", "json-pretty"):
        raise ValueError(
            f"kcodec.dump_all: unknown format {format!r} (yaml, json or json-pretty; protobuf "
            "and CBOR hold one object: dump a v1 List)"
        )
    items = list(objs)
    if format == "yaml":
        return b"---\n".join(dump(o, "yaml", scheme=scheme) for o in items)
    from kcodec import gojson
    from kcodec.runtime import Unstructured

    trees = [gojson.loads(dump(o, "json", scheme=scheme)) for o in items]
    wrapper = Unstructured({"apiVersion": "v1", "kind": "List", "items": trees,
                            "metadata": {"resourceVersion": ""}})
    return dump(wrapper, format, scheme=scheme)


def watch_events(
    stream: IO[bytes] | bytes,
    format: Literal["json", "protobuf"] = "json",
    *,
    scheme: Any = None,
) -> Iterator[Event]:
    """Iterate the events of a watch response body as :class:`Event` ``(type, object)``.

    ``format="json"`` reads the JSON object stream the API server writes for
    ``?watch=1`` (``{"type":"ADDED","object":{...}}`` per event); ``"protobuf"`` reads
    4-byte big-endian length-prefixed ``metav1.WatchEvent`` messages whose objects are
    ``k8s\\x00`` envelopes (what ``Accept: application/vnd.kubernetes.protobuf;stream=watch``
    returns). Objects are decoded lazily, one event at a time, typed or Unstructured as in
    :func:`load`; the stream is read as events are asked for and not closed.
    """
    if format not in ("json", "protobuf"):
        raise ValueError(f"kcodec.watch_events: unknown format {format!r} (json or protobuf)")
    if isinstance(stream, (bytes, bytearray, memoryview)):
        stream = io.BytesIO(bytes(stream))
    codecs = _codecs(scheme)
    info = next(i for i in codecs.supported_media_types() if i.media_type == _MEDIA_TYPES[format])
    stream_info = info.stream_serializer
    from kcodec.api.meta.v1 import WatchEvent

    reader = stream_info.framer.new_frame_reader(stream)
    event_decoder = stream_info.serializer
    index = 0
    while True:
        try:
            frame = reader.read_frame()
        except EOFError:
            return
        fast = _compact_json_event(codecs, frame) if format == "json" else None
        if fast is not None:
            yield fast
            index += 1
            continue
        try:
            got = WatchEvent()
            event, _ = event_decoder.decode(frame, None, got)
            if event is not got:
                # A frame with its own apiVersion and kind decodes as that kind, as Go's
                # UseOrCreateObject picks it; client-go rest/watch/decoder.go then refuses it.
                raise DecodeError("unable to decode to metav1.Event")
            raw = event.object.raw
            if not raw:
                raise DecodeError("watch event has no object")
            obj = _decode(codecs, raw, detect_format(raw), False)
        except KCodecError as err:
            err.event = index  # type: ignore[attr-defined]
            raise
        yield Event(event.type, obj)
        index += 1


#: The start of a watch event as the API server writes it (json.Encoder of metav1.WatchEvent:
#: compact, ``type`` first, then ``object``).
_COMPACT_EVENT = re.compile(rb'\{"type":"([A-Za-z]*)","object":(?=\{)')


def _compact_json_event(codecs: Any, frame: bytes) -> Event | None:
    """The event of a JSON frame in the API server's compact form, its object decoded from
    the frame's own bytes; None for any other frame, or when the object does not decode.

    Go's WatchEvent decoder keeps the object's bytes as they are (RawExtension) and then
    decodes them; here the bytes between ``"object":`` and the event's closing brace are
    that slice whenever the frame is a valid event of this form: anything else there (more
    members after the object, a second ``object``) is not one JSON value, so the object
    decoder rejects it and the frame takes the general path, which says what Go says.
    Parsing the whole event into a tree and writing the object back out cost more than
    decoding the object.
    """
    m = _COMPACT_EVENT.match(frame)
    if m is None or not frame.endswith(b"}"):
        return None
    try:
        obj, _ = _serializer(codecs, "json").decode_span(frame, m.end(), len(frame) - 1)
    except NotRegisteredError:
        try:
            obj = _decode(codecs, frame[m.end():-1], "json", False)
        except KCodecError:
            return None
    except KCodecError:
        return None
    return Event(m.group(1).decode("ascii"), obj)
