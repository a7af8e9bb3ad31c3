"""Writing objects and errors in the negotiated format.

Go: k8s.io/apiserver pkg/endpoints/handlers/responsewriters/writers.go (WriteObjectNegotiated,
ErrorNegotiated, SerializeObject, WriteRawJSON). Handlers build a :class:`Response` (status,
media type, body, headers) in a worker thread; the HTTP layer only sends it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kcodec import gojson
from kcodec.gofmt import quote as go_quote
from kcodec.model import to_tree
from kcodec.schema import GroupVersion
from kcodec.server.negotiation import (
    DEFAULT_ENDPOINT_RESTRICTIONS,
    EndpointRestrictions,
    NegotiationError,
    negotiate_output_media_type,
)
from kcodec.server.status import error_to_api_status, retry_after_seconds

__all__ = [
    "Request",
    "Response",
    "write_object_negotiated",
    "error_negotiated",
    "write_raw_json",
    "generate_media_type_with_gvk",
    "warning_header",
]


@dataclass
class Request:
    """What a handler needs of an HTTP request (decoupled from the HTTP library).

    ``query`` maps each parameter to all its values (Go's url.Values); ``headers`` is
    case-insensitive (the HTTP library's multidict).
    """

    method: str
    path: str
    query: dict[str, list[str]]
    headers: Any
    body: bytes = b""
    user: Any = None
    remote: str = ""
    host: str = ""

    def header(self, name: str) -> str:
        """The first value of header ``name``, or ""."""
        return self.headers.get(name, "") if self.headers is not None else ""

    def query_value(self, name: str) -> str:
        """The first value of query parameter ``name`` (Go's ``url.Values.Get``)."""
        vals = self.query.get(name)
        return vals[0] if vals else ""

    @property
    def accept(self) -> str:
        return self.header("Accept")

    @property
    def user_agent(self) -> str:
        return self.header("User-Agent")


@dataclass
class Response:
    """An HTTP answer: ``status``, ``content_type``, ``body``, extra ``headers`` and the
    request's ``warnings`` (sent as ``Warning: 299 - "..."`` headers, Go's warning recorder)."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def warning_header(text: str) -> str:
    """A Warning header value as Go's ``pkg/warning`` writes it: ``299 - "<quoted text>"``."""
    return f"299 - {go_quote(text)}"


def generate_media_type_with_gvk(media_type: str, gvk: Any) -> str:
    """``application/json;g=...;v=...;as=...`` for a converted response (generateMediaTypeWithGVK)."""
    if gvk is None:
        return media_type
    if gvk.group:
        media_type += ";g=" + gvk.group
    if gvk.version:
        media_type += ";v=" + gvk.version
    if gvk.kind:
        media_type += ";as=" + gvk.kind
    return media_type


def write_raw_json(status_code: int, obj: Any) -> Response:
    """``obj`` as indented JSON, whatever was asked (WriteRawJSON: the fallback when nothing was acceptable)."""
    return Response(status_code, gojson.dumps(to_tree(obj), pretty=True), "application/json")


def write_object_negotiated(codecs: Any, restrictions: EndpointRestrictions, gv: GroupVersion | None,
                            req: Request, status_code: int, obj: Any, *,
                            list_gvk_in_content_type: bool = False, convert_target: Any = None,
                            infos: list[Any] | None = None, without_conversion: bool = False) -> Response:
    """Encode ``obj`` in version ``gv`` in the media type the request accepts (WriteObjectNegotiated).

    ``codecs`` is the CodecFactory (its ``encoder_for_version``), ``infos`` the media types
    served (default: the factory's). ``without_conversion`` writes ``obj`` as it is (Go's
    WithoutConversion codecs, for discovery documents). When nothing in ``Accept`` can be
    served: an error response keeps its code and is written as JSON; a success becomes the
    406 Status.
    """
    infos = infos if infos is not None else codecs.supported_media_types()
    try:
        media, serializer = negotiate_output_media_type(req.accept, infos, restrictions, query=req.query,
                                                        user_agent=req.user_agent)
    except NegotiationError as err:
        if status_code < 200 or status_code >= 400:
            return write_raw_json(status_code, obj)
        status = error_to_api_status(err)
        return write_raw_json(int(status.code), status)
    info = media.accepted
    if without_conversion or gv is None:
        body = serializer.encode(obj)
    else:
        body = codecs.encoder_for_version(serializer, gv).encode(obj)
    content_type = info.media_type
    if list_gvk_in_content_type:
        content_type = generate_media_type_with_gvk(content_type, convert_target or media.convert)
    return Response(status_code, body, content_type)


def error_negotiated(err: BaseException, codecs: Any, gv: GroupVersion | None, req: Request, *,
                     infos: list[Any] | None = None) -> Response:
    """``err`` as a Status in the negotiated format, with ``Retry-After`` when it says so (ErrorNegotiated)."""
    status = error_to_api_status(err)
    code = int(status.code)
    headers = {}
    delay = retry_after_seconds(status)
    if delay:
        headers["Retry-After"] = str(delay)
    if code == 204:
        return Response(204, b"", "", headers)
    resp = write_object_negotiated(codecs, DEFAULT_ENDPOINT_RESTRICTIONS, gv, req, code, status, infos=infos)
    resp.headers.update(headers)
    return resp
