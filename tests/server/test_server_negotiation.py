"""Content negotiation and request routing of kcodec.server, without a running server.

Expectations from k8s.io/apiserver pkg/endpoints/handlers/negotiation (negotiate.go,
errors.go, negotiate_test.go), github.com/munnerz/goautoneg (ParseAccept's ordering) and
pkg/endpoints/request/requestinfo.go (requestinfo_test.go's paths).
"""
from __future__ import annotations

import pytest

from kcodec.legacyscheme import codecs
from kcodec.schema import GroupVersionKind
from kcodec.server.handlers import summarize_data, manager_or_user_agent
from kcodec.server.negotiation import (
    DEFAULT_ENDPOINT_RESTRICTIONS,
    NegotiationError,
    negotiate_input_serializer,
    negotiate_media_type_options,
    negotiate_output_media_type,
    negotiate_output_media_type_stream,
    parse_accept,
)
from kcodec.server.server import parse_request_info

INFOS = codecs.supported_media_types()


class _TableEndpoint:
    """A resource endpoint that converts to Table in JSON and YAML only (rest.go AllowsMediaTypeTransform)."""

    def allows_media_type_transform(self, mime, sub, gvk):
        if gvk is None:
            return True
        return gvk.group == "meta.k8s.io" and gvk.version == "v1" and gvk.kind == "Table" and sub in ("json", "yaml")

    def allows_server_version(self, version):
        return False

    def allows_stream_schema(self, schema):
        return schema == "watch"


def test_parse_accept_orders_by_quality_then_specificity():
    clauses = parse_accept("*/*;q=0.5, application/json;q=0.9, application/vnd.kubernetes.protobuf, text/*")
    assert [(c.type, c.subtype, c.q) for c in clauses] == [
        ("application", "vnd.kubernetes.protobuf", 1.0), ("text", "*", 1.0),
        ("application", "json", 0.9), ("*", "*", 0.5)]
    # parameters other than q are kept, a clause without a subtype is skipped
    (c,) = parse_accept("application/json;as=Table;v=v1;g=meta.k8s.io, bogus")
    assert c.params == {"as": "Table", "v": "v1", "g": "meta.k8s.io"}


def test_kubectl_table_accept_header_picks_the_table():
    accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
    opts = negotiate_media_type_options(accept, INFOS, _TableEndpoint())
    assert opts.convert == GroupVersionKind("meta.k8s.io", "v1", "Table")
    assert opts.accepted.media_type == "application/json"
    # protobuf cannot carry a Table: the plain protobuf clause after it is taken
    opts = negotiate_media_type_options(
        "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/vnd.kubernetes.protobuf",
        INFOS, _TableEndpoint())
    assert opts.convert is None and opts.accepted.media_type == "application/vnd.kubernetes.protobuf"


def test_not_acceptable_and_unsupported_media_type_texts():
    with pytest.raises(NegotiationError) as e:
        negotiate_output_media_type("text/html", INFOS, DEFAULT_ENDPOINT_RESTRICTIONS)
    assert e.value.status.code == 406 and e.value.status.reason == "NotAcceptable"
    assert str(e.value) == ("only the following media types are accepted: application/json, application/yaml, "
                            "application/vnd.kubernetes.protobuf")
    with pytest.raises(NegotiationError) as e:
        negotiate_output_media_type_stream("application/yaml", INFOS, DEFAULT_ENDPOINT_RESTRICTIONS)
    assert str(e.value) == ("only the following media types are accepted: application/json;stream=watch, "
                            "application/vnd.kubernetes.protobuf;stream=watch")
    with pytest.raises(NegotiationError) as e:
        negotiate_input_serializer("text/plain", INFOS)
    assert e.value.status.code == 415 and e.value.status.reason == "UnsupportedMediaType"
    assert str(e.value) == ("the body of the request was in an unknown format - accepted media types include: "
                            "application/json, application/yaml, application/vnd.kubernetes.protobuf")
    # an unparseable media type is as unknown as a foreign one
    with pytest.raises(NegotiationError):
        negotiate_input_serializer("application/", INFOS)


def test_input_serializer_defaults_to_json_and_ignores_parameters():
    assert negotiate_input_serializer("", INFOS).media_type == "application/json"
    assert negotiate_input_serializer("Application/YAML; charset=utf-8", INFOS).media_type == "application/yaml"


def test_default_restrictions_refuse_conversions_and_other_streams():
    assert negotiate_media_type_options("application/json;as=Table;g=meta.k8s.io;v=v1", INFOS,
                                        DEFAULT_ENDPOINT_RESTRICTIONS) is None
    assert negotiate_media_type_options("application/json;stream=other", INFOS, DEFAULT_ENDPOINT_RESTRICTIONS) is None
    assert negotiate_media_type_options("application/yaml;stream=watch", INFOS, DEFAULT_ENDPOINT_RESTRICTIONS) is None
    assert negotiate_media_type_options("", INFOS, DEFAULT_ENDPOINT_RESTRICTIONS).accepted.media_type == "application/json"


def test_pretty_for_curl_and_query():
    _, ser = negotiate_output_media_type("application/json", INFOS, DEFAULT_ENDPOINT_RESTRICTIONS,
                                         query={}, user_agent="curl/8.0")
    assert ser is INFOS[0].pretty_serializer
    _, ser = negotiate_output_media_type("application/json", INFOS, DEFAULT_ENDPOINT_RESTRICTIONS,
                                         query={"pretty": ["false"]}, user_agent="curl/8.0")
    assert ser is INFOS[0].serializer


@pytest.mark.parametrize("method,path,query,want", [
    ("GET", "/api/v1/namespaces", {}, ("list", "", "v1", "", "namespaces", "", "")),
    ("GET", "/api/v1/namespaces/other", {}, ("get", "", "v1", "other", "namespaces", "other", "")),
    ("PUT", "/api/v1/namespaces/other/finalize", {}, ("update", "", "v1", "other", "namespaces", "other", "finalize")),
    ("GET", "/api/v1/namespaces/other/pods", {"watch": ["true"]}, ("watch", "", "v1", "other", "pods", "", "")),
    ("GET", "/api/v1/watch/namespaces/other/pods", {}, ("watch", "", "v1", "other", "pods", "", "")),
    ("POST", "/apis/apps/v1/namespaces/ns/deployments", {}, ("create", "apps", "v1", "ns", "deployments", "", "")),
    ("PATCH", "/apis/apps/v1/namespaces/ns/deployments/d/scale", {}, ("patch", "apps", "v1", "ns", "deployments", "d", "scale")),
    ("DELETE", "/api/v1/namespaces/ns/pods", {}, ("deletecollection", "", "v1", "ns", "pods", "", "")),
    ("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", {}, ("get", "rbac.authorization.k8s.io", "v1", "", "clusterroles", "admin", "")),
])
def test_request_info(method, path, query, want):
    info = parse_request_info(method, path, query)
    assert info.is_resource_request
    assert (info.verb, info.api_group, info.api_version, info.namespace, info.resource, info.name,
            info.subresource) == want


def test_non_resource_paths():
    for path in ("/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version", "/healthz"):
        assert not parse_request_info("GET", path, {}).is_resource_request


def test_summarize_data_and_manager():
    assert summarize_data(b"", 30) == "<empty>"
    assert summarize_data(b'{"a":1}', 30) == '{"a":1}'
    assert summarize_data(b"\x00\x01", 30) == "0001"
    assert summarize_data(b"x" * 40, 30) == "78" * 30 + " ..."
    assert manager_or_user_agent("", "kubectl/v1.32.4 (linux/amd64) kubernetes/abc") == "kubectl"
    assert manager_or_user_agent("mgr", "kubectl/v1.32.4") == "mgr"
    assert len(manager_or_user_agent("", "é" * 100)) == 64
