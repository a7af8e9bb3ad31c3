"""The CBOR serializer (``application/cbor``) and the ``application/cbor-seq`` stream framer.

Follows k8s.io/apimachinery/pkg/runtime/serializer/cbor (cbor.go, framer.go, raw.go): every
encoding starts with the self-described CBOR tag 55799 (``d9 d9 f7``), which is also how the
universal deserializer recognises CBOR; the bytes of an object are those of Go's
deterministic ``modes.Encode`` (see :mod:`kcodec._native.cbor` for the rules). Decoding
reads apiVersion/kind first (Go's lax TypeMeta decode), defaults them like the JSON
serializer, then fills the object; RawExtension and FieldsV1 values end up holding JSON, as
Go's ``transcodeRawTypes`` leaves them. Unstructured objects round-trip as maps.
"""
from __future__ import annotations

from typing import IO, Any, BinaryIO

from kcodec import speedups
from kcodec.errors import (
    DecodeError,
    EncodeError,
    MissingKindError,
    MissingVersionError,
    NotRegisteredError,
    StrictDecodingError,
)
from kcodec.fieldtable import StructBase as Struct
from kcodec.fieldtable import fields_of
from kcodec.model import ENCODE_FAULTS, invalid_value_error, unencodable_reason
from kcodec.runtime.helpers import use_or_create_object
from kcodec.runtime.scheme import is_unstructured
from kcodec.schema import GroupVersionKind, parse_group_version
from kcodec.serializer.framing import (
    ERR_OBJECT_TOO_LARGE,
    MAX_FRAME_SIZE,
    PassThroughFrameWriter,
    _close,
    _read_some,
    _WholeFrameReader,
)
from kcodec.serializer.json import gvk_with_defaults

__all__ = [
    "Serializer",
    "SELF_DESCRIBED_CBOR",
    "CONTENT_TYPE_CBOR",
    "CONTENT_TYPE_CBOR_SEQ",
    "CBORSeqFramer",
    "CBORFrameReader",
    "CBOR_SEQ_FRAMER",
]

CONTENT_TYPE_CBOR = "application/cbor"
CONTENT_TYPE_CBOR_SEQ = "application/cbor-seq"  # RFC 8742, Go's runtime.ContentTypeCBORSequence
SELF_DESCRIBED_CBOR = b"\xd9\xd9\xf7"


def _with_gvk(err: BaseException, gvk: GroupVersionKind | None) -> BaseException:
    try:
        err.gvk = gvk  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover - exotic exception classes
        pass
    return err


def _diagnose(data: bytes) -> str:
    # Go prints the data in CBOR diagnostic notation, falling back to hex; kcodec uses hex.
    return bytes(data).hex()


def _interpret(data: bytes) -> GroupVersionKind:
    """Go's defaultMetaFactory.Interpret: apiVersion and kind of the top-level map."""
    try:
        tree = speedups.cbor_type_meta(data)
    except DecodeError as exc:
        raise DecodeError(f"unable to determine group/version/kind: {exc}") from None
    api_version, kind = tree
    gv = parse_group_version(api_version)
    return GroupVersionKind(gv.group, gv.version, kind)


class Serializer:
    """CBOR serializer over a scheme's creater and typer (Go's ``cbor.NewSerializer``).

    ``strict=True`` reports unknown fields as :class:`StrictDecodingError` (the decoded
    object on ``err.obj``), as Go's ``Strict(true)``. ``transcode=False`` (Go's
    ``Transcode(false)``, the watch-stream serializer) leaves decoded RawExtension and
    FieldsV1 values holding CBOR instead of converting them to JSON. Example::

        s = Serializer(scheme, scheme)
        data = s.encode(pod)             # b"\\xd9\\xd9\\xf7\\xa4DkindCPod..."
        obj, gvk = s.decode(data)
    """

    def __init__(self, creater: Any, typer: Any, *, strict: bool = False, transcode: bool = True) -> None:
        self.creater = creater
        self.typer = typer
        self.strict = strict
        self.transcode = transcode

    def __repr__(self) -> str:
        return f"cbor.Serializer(strict={self.strict}, transcode={self.transcode})"

    # ------------------------------------------------------------------ decoding

    def decode(self, data: bytes, defaults: GroupVersionKind | None = None,
               into: Any = None) -> tuple[Any, GroupVersionKind]:
        """Decode one CBOR object; errors carry Go's GVK beside them in ``err.gvk``."""
        if type(data) is not bytes:
            data = bytes(data)
        if into is not None and is_unstructured(into):
            return self._decode_unstructured(data, defaults, into)
        actual = _interpret(data)
        if defaults is not None:
            actual = gvk_with_defaults(actual, defaults)
        if into is not None:
            try:
                types, _ = self.typer.object_kinds(into)
            except NotRegisteredError:
                types = None
            except Exception as err:
                raise _with_gvk(err, actual) from None
            if types:
                actual = gvk_with_defaults(actual, types[0])
        if not actual.kind:
            raise _with_gvk(MissingKindError(_diagnose(data)), actual)
        if not actual.version:
            raise _with_gvk(MissingVersionError(_diagnose(data)), actual)
        try:
            obj = use_or_create_object(self.typer, self.creater, actual, into)
            strict_errs = self._unmarshal(obj, data, True)
        except Exception as err:
            raise _with_gvk(err, actual) from None
        if strict_errs:
            raise StrictDecodingError(strict_errs, obj, actual)
        return obj, actual

    def _unmarshal(self, obj: Any, data: bytes, checked: bool = False) -> list[str]:
        if not isinstance(obj, Struct):
            raise DecodeError(f"cbor: cannot unmarshal into Go value of type {type(obj).__name__}: "
                              "the object is neither a kcodec Struct nor unstructured")
        cls = type(obj)
        fields_of(cls)
        strict: list[str] | None = [] if self.strict else None
        # ``checked``: _interpret already had the whole item scanned for well-formedness.
        speedups.cbor_fill(obj, cls, data, strict, cls.__name__, 0, len(data), self.transcode, checked)
        return strict or []

    def _decode_unstructured(self, data: bytes, defaults: GroupVersionKind | None,
                             into: Any) -> tuple[Any, GroupVersionKind]:
        try:
            content = speedups.cbor_loads(data)
            if content is not None and type(content) is not dict:
                kind = {list: "array", str: "byte string", bool: "primitives"}.get(type(content), "integer")
                raise DecodeError(f"cbor: cannot unmarshal {kind} into Go value of type map[string]interface {{}}")
            if into.is_list():
                _fill_list(into, content or {}, data)
            else:
                into.set_unstructured_content(content)
        except DecodeError as err:
            try:
                actual = _interpret(data)
            except DecodeError as interp:
                raise _with_gvk(interp, None) from None
            if defaults is not None:
                actual = gvk_with_defaults(actual, defaults)
            raise _with_gvk(err, actual) from None
        actual = into.get_object_kind().group_version_kind()
        if not actual.kind:
            raise _with_gvk(MissingKindError(_diagnose(data)), actual)
        if not actual.version:
            raise _with_gvk(MissingVersionError(_diagnose(data)), actual)
        return into, actual

    # ------------------------------------------------------------------ encoding

    def encode(self, obj: Any, stream: IO[bytes] | None = None) -> bytes:
        """``d9 d9 f7`` + Go's deterministic CBOR encoding of ``obj``."""
        if isinstance(obj, Struct):
            fields_of(type(obj))
            try:
                out = speedups.cbor_encode(obj, SELF_DESCRIBED_CBOR)
            except ENCODE_FAULTS as exc:
                raise invalid_value_error(obj, exc) from exc
        elif is_unstructured(obj):
            content = obj.unstructured_content()
            try:
                out = speedups.cbor_encode_tree(content, SELF_DESCRIBED_CBOR)
            except UnicodeEncodeError as exc:
                raise EncodeError(_tree_fault(content, "", exc)) from None
        else:
            raise EncodeError(f"cbor: unsupported type: {type(obj).__name__}")
        if stream is not None:
            stream.write(out)
        return out

    def recognizes_data(self, data: bytes) -> tuple[bool, bool]:
        """(recognized, unknown): CBOR is recognised by its self-described tag prefix."""
        return bytes(data[:3]) == SELF_DESCRIBED_CBOR, False

    def identifier(self) -> str:
        """``cbor``."""
        return "cbor"

    @property
    def framer(self) -> CBORSeqFramer:
        """The ``application/cbor-seq`` framer (data items back to back)."""
        return CBOR_SEQ_FRAMER


def _tree_fault(tree: Any, path: str, cause: BaseException) -> str:
    """The EncodeError text for an unstructured tree holding a string UTF-8 cannot encode:
    the first such string or key, depth first, with its JSON path."""
    stack: list[tuple[Any, str]] = [(tree, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            reason = unencodable_reason(node)
            if reason is not None:
                return f"cbor: cannot encode {where or 'the object'}: {reason}"
        elif isinstance(node, dict):
            for key in reversed(list(node)):
                if isinstance(key, str) and unencodable_reason(key) is not None:
                    return f"cbor: cannot encode map key at {where or 'the top level'}: {unencodable_reason(key)}"
                stack.append((node[key], f"{where}.{key}" if where else str(key)))
        elif isinstance(node, (list, tuple)):
            stack.extend((item, f"{where}[{i}]") for i, item in reversed(list(enumerate(node))))
    return f"cbor: {cause}"


def _fill_list(into: Any, content: dict[str, Any], data: bytes) -> None:
    """Go's UnstructuredList branch: items must be an array of maps; an item without
    apiVersion and kind takes the list's (kind without its ``List`` suffix)."""
    items = content.get("items")
    if "items" in content and items is not None and type(items) is not list:
        raise DecodeError("items field of UnstructuredList must be encoded as an array or null if present")
    api_version = content.get("apiVersion")
    api_version = api_version if type(api_version) is str else ""
    kind = content.get("kind")
    kind = kind if type(kind) is str else ""
    if kind.endswith("List"):
        kind = kind[: -len("List")]
    for item in items or ():
        if type(item) is not dict:
            raise DecodeError("elements of the items field of UnstructuredList must be encoded as a map")
        av = item.get("apiVersion")
        k = item.get("kind")
        item["apiVersion"] = av if type(av) is str else ""
        item["kind"] = k if type(k) is str else ""
        if not item["apiVersion"] and not item["kind"]:
            item["apiVersion"] = api_version
            item["kind"] = kind
        if not item["kind"]:
            raise MissingKindError(_diagnose(data))
        if not item["apiVersion"]:
            raise MissingVersionError(_diagnose(data))
    content["items"] = items or []
    into.set_unstructured_content(content)  # makes each item an Unstructured
    content.pop("items", None)


# ---------------------------------------------------------------------------- cbor-seq


class CBORFrameReader(_WholeFrameReader):
    """Cuts a stream into successive CBOR data items (Go's cbor framer reads one
    ``cbor.RawMessage`` per frame). A malformed item ends the stream: later reads raise
    the same error."""

    def __init__(self, stream: BinaryIO, max_frame_size: int = MAX_FRAME_SIZE) -> None:
        super().__init__()
        self._stream = stream
        self._max_size = max_frame_size
        self._buf = bytearray()
        self._base = 0
        self._eof = False
        self._err: DecodeError | None = None

    def _next_frame(self, max_size: int) -> bytes:
        if self._err is not None:
            raise self._err
        want = 64 * 1024
        while True:
            if self._buf:
                data = bytes(self._buf)
                try:
                    end = speedups.cbor_item_end(data, 0, len(data))
                except DecodeError as exc:
                    # The place in the stream is data, not text (the frame's own offset
                    # counted from the stream's start).
                    if str(exc) != "unexpected EOF":
                        self._err = DecodeError(str(exc), offset=self._base + (exc.offset or 0))
                        raise self._err from None
                    if self._eof:
                        self._err = DecodeError("unexpected EOF", offset=self._base + len(data))
                        raise self._err from None
                else:
                    del self._buf[:end]
                    self._base += end
                    if end > max_size:
                        raise DecodeError(ERR_OBJECT_TOO_LARGE)
                    return data[:end]
                if len(self._buf) > max_size:
                    self._err = DecodeError(ERR_OBJECT_TOO_LARGE)
                    raise self._err
            elif self._eof:
                raise EOFError("end of stream")
            # Read at least as much again as is buffered, so a large item is scanned
            # a logarithmic number of times, not once per chunk.
            chunk = _read_some(self._stream, max(want, len(self._buf)))
            if chunk:
                self._buf += chunk
            else:
                self._eof = True

    def close(self) -> None:
        """Close the underlying stream."""
        _close(self._stream)


class CBORSeqFramer:
    """Framer for ``application/cbor-seq``: items are self-delimiting, written as they are."""

    def new_frame_reader(self, stream: BinaryIO) -> CBORFrameReader:
        """A reader that returns one CBOR data item per frame."""
        return CBORFrameReader(stream)

    def new_frame_writer(self, stream: BinaryIO) -> PassThroughFrameWriter:
        """A writer that passes encoded objects through unchanged."""
        return PassThroughFrameWriter(stream)

    def __repr__(self) -> str:
        return "CBOR_SEQ_FRAMER"


CBOR_SEQ_FRAMER = CBORSeqFramer()
