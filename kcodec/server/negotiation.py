"""Content negotiation for the API server.

Go: k8s.io/apiserver pkg/endpoints/handlers/negotiation (negotiate.go, errors.go) over
github.com/munnerz/goautoneg (ParseAccept). The server answers in the first media type of the
``Accept`` header it can serve (``as=Table;g=meta.k8s.io;v=v1`` and the other transformation
parameters are checked by the endpoint's restrictions); a request body must be in a media type
the server decodes. Failures are 406 NotAcceptable and 415 UnsupportedMediaType Statuses with
Go's texts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kcodec.api.meta import v1 as metav1
from kcodec.errors import KCodecError
from kcodec.schema import GroupVersionKind
from kcodec.serializer.factory import CONTENT_TYPE_CBOR, CONTENT_TYPE_CBOR_SEQ, SerializerInfo
from kcodec.server.interfaces import EndpointRestrictions

__all__ = [
    "Accept",
    "parse_accept",
    "MediaTypeOptions",
    "EndpointRestrictions",
    "DEFAULT_ENDPOINT_RESTRICTIONS",
    "NegotiationError",
    "not_acceptable_error",
    "not_acceptable_conversion_error",
    "unsupported_media_type_error",
    "media_types_for_serializer",
    "negotiate_media_type_options",
    "negotiate_output_media_type",
    "negotiate_output_media_type_stream",
    "negotiate_input_serializer",
    "is_pretty_print",
]


@dataclass
class Accept:
    """One clause of an ``Accept`` header (goautoneg.Accept)."""

    type: str
    subtype: str
    q: float = 1.0
    params: dict[str, str] = field(default_factory=dict)


def _parse_q(text: str) -> float:
    # strconv.ParseFloat(s, 32) with the error ignored: a bad q is 0.
    try:
        q = float(text)
    except ValueError:
        return 0.0
    return q if q == q else 0.0


def parse_accept(header: str) -> list[Accept]:
    """The clauses of ``header``, most preferred first, as goautoneg.ParseAccept orders them."""
    out: list[Accept] = []
    for part in header.split(","):
        part = part.strip(" ")
        mrp = part.split(";")
        sp = mrp[0].split("/")
        typ = sp[0].strip(" ")
        if len(sp) == 1 and typ == "*":
            sub = "*"
        elif len(sp) == 2:
            sub = sp[1].strip(" ")
        else:
            continue
        a = Accept(typ, sub)
        for param in mrp[1:]:
            kv = param.split("=", 1)
            if len(kv) != 2:
                continue
            token = kv[0].strip(" ")
            if token == "q":
                a.q = _parse_q(kv[1])
            else:
                a.params[token] = kv[1].strip(" ")
        out.append(a)
    # goautoneg sorts by q, then concrete type before "*", then concrete subtype before "*".
    out.sort(key=lambda a: (-a.q, a.type == "*", a.subtype == "*"))
    return out


@dataclass
class MediaTypeOptions:
    """What the accepted media type asked for (negotiation.MediaTypeOptions)."""

    pretty: bool = False
    stream: str = ""
    convert: GroupVersionKind | None = None
    use_server_version: str = ""
    export: bool = False
    profile: str = ""
    unrecognized: list[str] = field(default_factory=list)
    accepted: SerializerInfo | None = None


class _DefaultRestrictions:
    """negotiation.DefaultEndpointRestrictions: no transformation, the ``watch`` stream only."""

    def allows_media_type_transform(self, mime_type: str, mime_subtype: str,
                                    target: GroupVersionKind | None) -> bool:
        return target is None

    def allows_server_version(self, version: str) -> bool:
        return False

    def allows_stream_schema(self, schema: str) -> bool:
        return schema == "watch"

    def __repr__(self) -> str:
        return "DEFAULT_ENDPOINT_RESTRICTIONS"


DEFAULT_ENDPOINT_RESTRICTIONS = _DefaultRestrictions()


class NegotiationError(KCodecError):
    """A negotiation failure carrying its metav1.Status (Go's errNotAcceptable and friends)."""

    def __init__(self, code: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status = metav1.Status(status="Failure", code=code, reason=reason, message=message)
        self.code = code
        self.reason = reason


def not_acceptable_error(accepted: list[str]) -> NegotiationError:
    """406: ``only the following media types are accepted: ...``."""
    return NegotiationError(406, "NotAcceptable",
                            f"only the following media types are accepted: {', '.join(accepted)}")


def not_acceptable_conversion_error(target: str, accepted: list[str]) -> NegotiationError:
    """406 for a conversion target the media type cannot carry."""
    return NegotiationError(406, "NotAcceptable", "only the following media types are accepted when "
                            f"converting to {target}: {', '.join(accepted)}")


def unsupported_media_type_error(accepted: list[str]) -> NegotiationError:
    """415: ``the body of the request was in an unknown format - accepted media types include: ...``."""
    return NegotiationError(415, "UnsupportedMediaType", "the body of the request was in an unknown "
                            f"format - accepted media types include: {', '.join(accepted)}")


def media_types_for_serializer(infos: list[SerializerInfo]) -> tuple[list[str], list[str]]:
    """The media types and the stream media types a server speaks (MediaTypesForSerializer)."""
    media: list[str] = []
    stream: list[str] = []
    for info in infos:
        media.append(info.media_type)
        if info.stream_serializer is not None:
            if info.media_type == CONTENT_TYPE_CBOR:
                stream.append(CONTENT_TYPE_CBOR_SEQ)
                continue
            stream.append(info.media_type + ";stream=watch")
    return media, stream


def _accept_media_type_options(params: dict[str, str], accepts: SerializerInfo,
                               endpoint: EndpointRestrictions) -> MediaTypeOptions | None:
    opts = MediaTypeOptions()
    convert: dict[str, str] | None = None
    for k, v in params.items():
        if k in ("as", "g", "v"):
            if convert is None:
                convert = {"as": "", "g": "", "v": ""}
            convert[k] = v
        elif k == "stream":
            if v and (accepts.stream_serializer is None or not endpoint.allows_stream_schema(v)):
                return None
            opts.stream = v
        elif k == "sv":
            if v and not endpoint.allows_server_version(v):
                return None
            opts.use_server_version = v
        elif k == "export":
            opts.export = v == "1"
        elif k == "pretty":
            opts.pretty = v == "1"
        elif k == "profile":
            opts.profile = v
        else:
            opts.unrecognized.append(k)
    if convert is not None:
        opts.convert = GroupVersionKind(convert["g"], convert["v"], convert["as"])
    if not endpoint.allows_media_type_transform(accepts.media_type_type, accepts.media_type_subtype,
                                                opts.convert):
        return None
    opts.accepted = accepts
    return opts


def negotiate_media_type_options(header: str, accepted: list[SerializerInfo],
                                 endpoint: EndpointRestrictions) -> MediaTypeOptions | None:
    """The options of the first Accept clause the endpoint can serve, or None (NegotiateMediaTypeOptions)."""
    if not header and accepted:
        return MediaTypeOptions(accepted=accepted[0])
    for clause in parse_accept(header):
        for accepts in accepted:
            if (clause.type == accepts.media_type_type and clause.subtype in (accepts.media_type_subtype, "*")) \
                    or (clause.type == "*" and clause.subtype == "*"):
                opts = _accept_media_type_options(clause.params, accepts, endpoint)
                if opts is not None:
                    return opts
    return None


def is_pretty_print(query: Any, user_agent: str) -> bool:
    """``?pretty=true``, or a browser or curl/wget as the client (isPrettyPrint)."""
    vals = query.get("pretty") if query is not None else None
    if vals and vals[0]:
        # strconv.ParseBool; an unparseable value is false.
        return vals[0] in ("1", "t", "T", "TRUE", "true", "True")
    return user_agent.startswith(("curl", "Wget", "Mozilla/5.0"))


def negotiate_output_media_type(accept: str, infos: list[SerializerInfo], restrictions: EndpointRestrictions,
                                *, query: Any = None, user_agent: str = "") -> tuple[MediaTypeOptions, Any]:
    """The media type options and the serializer to answer with (NegotiateOutputMediaType).

    Raises the 406 :class:`NegotiationError` when nothing in ``accept`` can be served.
    """
    opts = negotiate_media_type_options(accept, infos, restrictions)
    if opts is None or opts.accepted is None:
        raise not_acceptable_error(media_types_for_serializer(infos)[0])
    info = opts.accepted
    serializer = info.serializer
    if (opts.pretty or is_pretty_print(query, user_agent)) and info.pretty_serializer is not None:
        serializer = info.pretty_serializer
    return opts, serializer


def negotiate_output_media_type_stream(accept: str, infos: list[SerializerInfo],
                                       restrictions: EndpointRestrictions) -> SerializerInfo:
    """The serializer info for a watch stream (NegotiateOutputMediaTypeStream)."""
    opts = negotiate_media_type_options(accept, infos, restrictions)
    if opts is None or opts.accepted is None or opts.accepted.stream_serializer is None:
        raise not_acceptable_error(media_types_for_serializer(infos)[1])
    return opts.accepted


def _parse_media_type(value: str) -> str | None:
    # mime.ParseMediaType's media type part: lower-cased "type/subtype" of RFC 2045 tokens.
    base = value.split(";", 1)[0].strip().lower()
    typ, sep, sub = base.partition("/")
    tspecials = set('()<>@,;:\\"/[]?= \t')
    if not sep or not typ or not sub or any(c in tspecials or ord(c) < 0x21 or ord(c) > 0x7e
                                             for c in typ + sub):
        return None
    return base


def negotiate_input_serializer(content_type: str, infos: list[SerializerInfo], *,
                               streaming: bool = False) -> SerializerInfo:
    """The serializer info for a request body in ``content_type`` (NegotiateInputSerializerForMediaType).

    No Content-Type means the first media type (JSON); anything the server does not decode is
    the 415 :class:`NegotiationError`.
    """
    if not content_type:
        content_type = infos[0].media_type
    media = _parse_media_type(content_type)
    if media is not None:
        for info in infos:
            if info.media_type == media:
                return info
    supported, stream_supported = media_types_for_serializer(infos)
    raise unsupported_media_type_error(stream_supported if streaming else supported)
