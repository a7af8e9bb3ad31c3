"""The protobuf form of an OpenAPI v2 document: gnostic's ``openapi_v2.Document``
(github.com/google/gnostic-models openapiv2/OpenAPIv2.proto), what kube-openapi's handler
serves for ``Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`` (client-go's
``OpenAPISchema()``, read by kubectl for ``explain --output=plaintext-openapiv2`` and as the
fallback of apply and of its field validation check).

Written from the JSON tree kcodec.server.openapi builds, for the parts of swagger 2.0 it
uses: vendor extensions and defaults are gnostic ``Any`` messages holding the value's YAML
text, as gnostic's compiler stores them.
"""
from __future__ import annotations

from typing import Any

from kcodec import goyaml
from kcodec.wire import encode_varint

__all__ = ["document_to_protobuf"]


def _key(n: int, wt: int) -> bytes:
    return encode_varint((n << 3) | wt)


def _msg(n: int, body: bytes) -> bytes:
    """A length-delimited field (also written when empty: a present sub-message)."""
    return _key(n, 2) + encode_varint(len(body)) + body


def _str(n: int, s: Any) -> bytes:
    if not s:
        return b""
    data = str(s).encode()
    return _key(n, 2) + encode_varint(len(data)) + data


def _strs(n: int, values: Any) -> bytes:
    return b"".join(_msg(n, str(v).encode()) for v in values or ())


def _bool(n: int, b: Any) -> bytes:
    return _key(n, 0) + b"\x01" if b else b""


def _any(n: int, value: Any) -> bytes:
    """gnostic Any: the YAML text of ``value`` (field 2)."""
    return _msg(n, _str(2, goyaml.tree_to_yaml(value).decode()))


def _extensions(n: int, obj: dict[str, Any]) -> bytes:
    return b"".join(_msg(n, _str(1, k) + _any(2, v)) for k, v in sorted(obj.items()) if k.startswith("x-"))


def _schema(s: dict[str, Any]) -> bytes:
    out = [_str(1, s.get("$ref")), _str(2, s.get("format")), _str(3, s.get("title")),
           _str(4, s.get("description"))]
    if "default" in s:
        out.append(_any(5, s["default"]))
    out.append(_strs(19, s.get("required")))
    for v in s.get("enum") or ():
        out.append(_any(20, v))
    ap = s.get("additionalProperties")
    if isinstance(ap, dict):
        out.append(_msg(21, _msg(1, _schema(ap))))
    elif isinstance(ap, bool):
        out.append(_msg(21, _key(2, 0) + (b"\x01" if ap else b"\x00")))
    typ = s.get("type")
    if typ:
        out.append(_msg(22, _strs(1, typ if isinstance(typ, list) else [typ])))
    items = s.get("items")
    if isinstance(items, dict):
        out.append(_msg(23, _msg(1, _schema(items))))
    elif isinstance(items, list):
        out.append(_msg(23, b"".join(_msg(1, _schema(i)) for i in items)))
    for sub in s.get("allOf") or ():
        out.append(_msg(24, _schema(sub)))
    props = s.get("properties")
    if props:
        out.append(_msg(25, b"".join(_msg(1, _str(1, k) + _msg(2, _schema(v))) for k, v in sorted(props.items()))))
    out.append(_extensions(31, s))
    return b"".join(out)


def _parameter(p: dict[str, Any]) -> bytes:
    if "$ref" in p:
        return _msg(2, _str(1, p["$ref"]))  # ParametersItem.json_reference
    where = p.get("in", "")
    if where == "body":
        body = (_str(1, p.get("description")) + _str(2, p.get("name")) + _str(3, where)
                + _bool(4, p.get("required")) + (_msg(5, _schema(p["schema"])) if "schema" in p else b"")
                + _extensions(6, p))
        return _msg(1, _msg(1, body))  # ParametersItem.parameter.body_parameter
    if where == "path":
        sub = (_bool(1, p.get("required")) + _str(2, where) + _str(3, p.get("description")) + _str(4, p.get("name"))
               + _str(5, p.get("type")) + _str(6, p.get("format")) + _bool(19, p.get("uniqueItems"))
               + _extensions(22, p))
        return _msg(1, _msg(2, _msg(4, sub)))
    sub = (_bool(1, p.get("required")) + _str(2, where) + _str(3, p.get("description")) + _str(4, p.get("name"))
           + _str(6, p.get("type")) + _str(7, p.get("format")) + _bool(20, p.get("uniqueItems"))
           + _extensions(23, p))
    return _msg(1, _msg(2, _msg(3, sub)))  # query (the only other kind kube-apiserver uses)


def _operation(op: dict[str, Any]) -> bytes:
    out = [_strs(1, op.get("tags")), _str(2, op.get("summary")), _str(3, op.get("description")),
           _str(5, op.get("operationId")), _strs(6, op.get("produces")), _strs(7, op.get("consumes"))]
    out += [_msg(8, _parameter(p)) for p in op.get("parameters") or ()]
    responses = []
    for code, r in sorted((op.get("responses") or {}).items()):
        resp = _str(1, r.get("description"))
        if "schema" in r:
            resp += _msg(2, _msg(1, _schema(r["schema"])))
        responses.append(_msg(1, _str(1, code) + _msg(2, _msg(1, resp))))
    out.append(_msg(9, b"".join(responses)))
    out.append(_strs(10, op.get("schemes")))
    out.append(_extensions(13, op))
    return b"".join(out)


_METHODS = (("get", 2), ("put", 3), ("post", 4), ("delete", 5), ("options", 6), ("head", 7), ("patch", 8))


def _path_item(item: dict[str, Any]) -> bytes:
    out = [_msg(n, _operation(item[m])) for m, n in _METHODS if m in item]
    out += [_msg(9, _parameter(p)) for p in item.get("parameters") or ()]
    out.append(_extensions(10, item))
    return b"".join(out)


def document_to_protobuf(doc: dict[str, Any]) -> bytes:
    """The gnostic ``openapi_v2.Document`` message of a swagger 2.0 JSON tree."""
    info = doc.get("info") or {}
    out = [_str(1, doc.get("swagger")), _msg(2, _str(1, info.get("title")) + _str(2, info.get("version")))]
    paths = b"".join(_msg(2, _str(1, p) + _msg(2, _path_item(v))) for p, v in sorted((doc.get("paths") or {}).items()))
    out.append(_msg(8, paths))
    defs = b"".join(_msg(1, _str(1, k) + _msg(2, _schema(v))) for k, v in sorted((doc.get("definitions") or {}).items()))
    out.append(_msg(9, defs))
    for req in doc.get("security") or ():
        out.append(_msg(12, b"".join(_msg(1, _str(1, k) + _msg(2, _strs(1, v))) for k, v in sorted(req.items()))))
    sec = b""
    for name, d in sorted((doc.get("securityDefinitions") or {}).items()):
        if d.get("type") == "apiKey":
            api_key = _str(1, d.get("type")) + _str(2, d.get("name")) + _str(3, d.get("in")) + _str(4, d.get("description"))
            sec += _msg(1, _str(1, name) + _msg(2, _msg(2, api_key)))
    if sec:
        out.append(_msg(13, sec))
    out.append(_extensions(16, doc))
    return b"".join(out)
