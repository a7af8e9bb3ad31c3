"""kcodec serve over HTTP: discovery, verbs, formats, watches and hostile input.

Expectations come from k8s.io/apiserver pkg/endpoints (handlers/rest.go checkName and
transformDecodeError, create.go, delete.go, response.go, watch.go, discovery/*.go,
responsewriters/status.go) and what kube-apiserver 1.36 answers for the same requests.
"""
from __future__ import annotations

import json
import struct
import threading
import time

import pytest
import requests

from kcodec.api.core import v1 as corev1
from kcodec.api.meta import v1 as metav1
from kcodec.model import from_proto
from kcodec.testing import APIServer

PB = "application/vnd.kubernetes.protobuf"


@pytest.fixture(scope="module")
def server():
    with APIServer() as s:
        yield s


@pytest.fixture
def http(server):
    with requests.Session() as s:
        yield s


_counter = iter(range(1_000_000))


@pytest.fixture
def ns(server, http):
    """A fresh namespace for one test (the module's server outlives the test)."""
    name = f"t{next(_counter)}"
    r = http.post(server.url + "/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace",
                                                           "metadata": {"name": name}})
    assert r.status_code == 201, r.text
    return name


def _cm(name, **data):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def _status(resp, code, reason):
    assert resp.status_code == code, resp.text
    assert resp.headers["Content-Type"] == "application/json"
    st = resp.json()
    assert st["kind"] == "Status" and st["apiVersion"] == "v1" and st["status"] == "Failure"
    assert st["code"] == code and st.get("reason", "") == reason, st
    return st


def test_health_version_and_readiness(server, http):
    for path in ("/healthz", "/livez", "/readyz"):
        r = http.get(server.url + path)
        assert (r.status_code, r.text) == (200, "ok")
    v = http.get(server.url + "/version").json()
    assert (v["major"], v["minor"]) == ("1", "36") and v["gitVersion"].startswith("v1.36.")


def test_discovery_documents(server, http):
    api = http.get(server.url + "/api").json()
    assert api["kind"] == "APIVersions" and "apiVersion" not in api and api["versions"] == ["v1"]
    assert api["serverAddressByClientCIDRs"][0]["clientCIDR"] == "0.0.0.0/0"
    v1 = http.get(server.url + "/api/v1").json()
    assert v1["kind"] == "APIResourceList" and v1["groupVersion"] == "v1"
    byname = {r["name"]: r for r in v1["resources"]}
    cm = byname["configmaps"]
    assert cm["namespaced"] and cm["kind"] == "ConfigMap" and cm["singularName"] == "configmap"
    assert cm["verbs"] == ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
    assert cm["shortNames"] == ["cm"]
    # discovery.StorageVersionHash of the storage version, the values kube-apiserver publishes
    assert (cm["storageVersionHash"], byname["pods"]["storageVersionHash"]) == ("qFsyl6wFWjQ=", "xPOwRZ+Yhw8=")
    assert not byname["namespaces"]["namespaced"]
    assert byname["pods/status"]["verbs"] == ["get", "patch", "update"]
    groups = http.get(server.url + "/apis").json()
    assert groups["kind"] == "APIGroupList" and groups["apiVersion"] == "v1"
    apps = next(g for g in groups["groups"] if g["name"] == "apps")
    assert apps["preferredVersion"] == {"groupVersion": "apps/v1", "version": "v1"}
    g = http.get(server.url + "/apis/apps").json()
    assert g["kind"] == "APIGroup" and g["name"] == "apps"
    rl = http.get(server.url + "/apis/apps/v1").json()
    assert rl["apiVersion"] == "v1" and rl["groupVersion"] == "apps/v1"
    assert {"deployments", "deployments/scale", "deployments/status"} <= {r["name"] for r in rl["resources"]}
    assert next(r for r in rl["resources"] if r["name"] == "deployments")["storageVersionHash"] == "8aSe+NMegvE="
    assert http.get(server.url + "/apis/nosuch.example.com").status_code == 404
    assert http.get(server.url + "/apis/apps/v9").status_code == 404


def test_aggregated_discovery(server, http):
    accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
    for path, legacy in (("/api", True), ("/apis", False)):
        r = http.get(server.url + path, headers={"Accept": accept})
        assert r.status_code == 200
        assert r.headers["Content-Type"] == "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
        doc = r.json()
        assert doc["kind"] == "APIGroupDiscoveryList" and doc["apiVersion"] == "apidiscovery.k8s.io/v2"
        names = [i["metadata"].get("name", "") for i in doc["items"]]
        assert (names == [""]) if legacy else ("apps" in names and "" not in names)
        etag = r.headers["ETag"]
        again = http.get(server.url + path, headers={"Accept": accept, "If-None-Match": etag})
        assert again.status_code == 304
    core = http.get(server.url + "/api", headers={"Accept": accept}).json()["items"][0]["versions"][0]
    pods = next(r for r in core["resources"] if r["resource"] == "pods")
    assert pods["scope"] == "Namespaced" and pods["responseKind"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert {"status", "binding", "eviction"} <= {s["subresource"] for s in pods["subresources"]}


def test_configmap_crud_json(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    r = http.post(url, json=_cm("crud", a="1"))
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["metadata"]["uid"] and created["metadata"]["resourceVersion"]
    assert created["metadata"]["namespace"] == ns
    got = http.get(url + "/crud").json()
    assert got["data"] == {"a": "1"}
    got["data"]["b"] = "2"
    r = http.put(url + "/crud", json=got)
    assert r.status_code == 200 and r.json()["data"] == {"a": "1", "b": "2"}
    # a stale resourceVersion is a Conflict with Go's text
    r = http.put(url + "/crud", json=got)
    st = _status(r, 409, "Conflict")
    assert st["message"] == ('Operation cannot be fulfilled on configmaps "crud": the object has been modified; '
                             "please apply your changes to the latest version and try again")
    lst = http.get(url).json()
    assert lst["kind"] == "ConfigMapList" and "crud" in [i["metadata"]["name"] for i in lst["items"]]
    r = http.delete(url + "/crud")
    assert r.status_code == 200
    st = _status(http.get(url + "/crud"), 404, "NotFound")
    assert st["message"] == 'configmaps "crud" not found'
    assert st["details"] == {"name": "crud", "kind": "configmaps"}


def test_yaml_and_protobuf_round_trip(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    body = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: formats\ndata:\n  k: v\n"
    r = http.post(url, data=body, headers={"Content-Type": "application/yaml", "Accept": "application/yaml"})
    assert r.status_code == 201, r.text
    assert r.headers["Content-Type"] == "application/yaml"
    assert b"name: formats" in r.content
    r = http.get(url + "/formats", headers={"Accept": PB})
    assert r.headers["Content-Type"] == PB and r.content.startswith(b"k8s\x00")
    # a protobuf body decodes in the request's version too
    cm = corev1.ConfigMap(kind="ConfigMap", api_version="v1", metadata=metav1.ObjectMeta(name="formats-pb"),
                          data={"x": "y"})
    from kcodec.api import codecs

    pb_info = next(i for i in codecs.supported_media_types() if i.media_type == PB)
    r = http.post(url, data=pb_info.serializer.encode(cm), headers={"Content-Type": PB, "Accept": PB})
    assert r.status_code == 201, r.content
    out, _ = pb_info.serializer.decode(r.content, None, corev1.ConfigMap())
    assert out.data == {"x": "y"} and out.metadata.uid


def test_table_and_partial_object_metadata(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    http.post(url, json=_cm("tabled", a="1"))
    t = http.get(url, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}).json()
    assert t["kind"] == "Table" and t["apiVersion"] == "meta.k8s.io/v1"
    assert t["columnDefinitions"][0]["name"] == "Name"
    row = next(r for r in t["rows"] if r["cells"][0] == "tabled")
    assert row["object"]["kind"] == "PartialObjectMetadata"
    t = http.get(url + "?includeObject=Object", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}).json()
    row = next(r for r in t["rows"] if r["cells"][0] == "tabled")
    assert row["object"]["kind"] == "ConfigMap" and row["object"]["data"] == {"a": "1"}
    st = _status(http.get(url + "?includeObject=Bogus", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}),
                 400, "BadRequest")
    assert st["message"] == ('Unable to convert to Table as requested: includeObject: Invalid value: "Bogus": '
                             "must be 'Metadata', 'Object', 'None', or empty")
    p = http.get(url + "/tabled", headers={"Accept": "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"}).json()
    assert p["kind"] == "PartialObjectMetadata" and p["apiVersion"] == "meta.k8s.io/v1" and "data" not in p
    pl = http.get(url, headers={"Accept": "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}).json()
    assert pl["kind"] == "PartialObjectMetadataList" and all("data" not in i for i in pl["items"])
    # a Table in protobuf is not served: 406 with the types that are
    _status(http.get(url, headers={"Accept": "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io"}),
            406, "NotAcceptable")


def test_field_validation_warn_strict_ignore(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fv-warn", "bogus": 1}, "data": {}}
    r = http.post(url, json=body)
    assert r.status_code == 201
    assert r.headers.get("Warning") == '299 - "unknown field \\"metadata.bogus\\""'
    body["metadata"]["name"] = "fv-strict"
    st = _status(http.post(url + "?fieldValidation=Strict", json=body), 400, "BadRequest")
    assert st["message"] == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: '
                             'unknown field "metadata.bogus"')
    body["metadata"]["name"] = "fv-ignore"
    r = http.post(url + "?fieldValidation=Ignore", json=body)
    assert r.status_code == 201 and "Warning" not in r.headers
    st = _status(http.post(url + "?fieldValidation=Bogus", json=body), 422, "Invalid")
    assert st["message"] == ('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": '
                             'supported values: "", "Ignore", "Strict", "Warn"')


def _count(http, url):
    return len(http.get(url).json()["items"])


def test_hostile_input_gets_4xx_and_stores_nothing(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    before = _count(http, url)
    st = _status(http.post(url, data=b"garbage", headers={"Content-Type": "application/json"}), 400, "BadRequest")
    assert st["message"].startswith("the object provided is unrecognized (must be of type ConfigMap): ")
    st = _status(http.post(url, json={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}), 400, "BadRequest")
    assert st["message"].startswith('Pod in version "v1" cannot be handled as a ConfigMap: ')
    st = _status(http.post(url, json={"apiVersion": "apps/v1", "kind": "ConfigMap", "metadata": {"name": "x"}}),
                 400, "BadRequest")
    deep = b"[" * 1_000_000 + b"]" * 1_000_000
    _status(http.post(url, data=deep, headers={"Content-Type": "application/json"}), 400, "BadRequest")
    deep_obj = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    _status(http.post(url, data=deep_obj, headers={"Content-Type": "application/json"}), 400, "BadRequest")
    big = json.dumps(_cm("big", a="x" * (3 * 1024 * 1024))).encode()
    st = _status(http.post(url, data=big, headers={"Content-Type": "application/json"}), 413, "RequestEntityTooLarge")
    assert st["message"] == "Request entity too large: limit is 3145728"
    # the namespace in the object must be the URL's
    other = _cm("wrongns")
    other["metadata"]["namespace"] = "default"
    st = _status(http.post(url, json=other), 400, "BadRequest")
    assert st["message"] == "the namespace of the provided object does not match the namespace sent on the request"
    # the name in the object must be the URL's on update
    http.post(url, json=_cm("named"))
    st = _status(http.put(url + "/named", json=_cm("renamed")), 400, "BadRequest")
    assert st["message"] == "the name of the object (renamed) does not match the name on the URL (named)"
    st = _status(http.get(url + "?labelSelector=a%20in%20(", ), 400, "BadRequest")
    st = _status(http.get(url + "?fieldSelector=spec.bogus%3Dx"), 400, "BadRequest")
    assert st["message"] == '"spec.bogus" is not a known field selector: only "metadata.name", "metadata.namespace"'
    _status(http.get(url + "?limit=abc"), 400, "BadRequest")
    # a 100 kB selector is read (Go reads 1 MiB of request line and headers) and refused with a Status
    st = _status(http.get(url + "?labelSelector=" + "a" * 100_000), 400, "BadRequest")
    st = _status(http.get(url + "?labelSelector=%ff%fe"), 400, "BadRequest")
    st = _status(http.post(url, data=b"\x00garbage", headers={"Content-Type": PB}), 400, "BadRequest")
    assert st["message"].startswith("the object provided is unrecognized (must be of type ConfigMap): ")
    st = _status(http.post(url, data=b"a: [", headers={"Content-Type": "application/yaml"}), 400, "BadRequest")
    # a negative timeout is an expired one: an empty stream, at once
    r = http.get(url + "?watch=1&timeoutSeconds=-5", timeout=30)
    assert r.status_code == 200 and r.content == b""
    st = _status(http.get(url + "?resourceVersionMatch=Exact"), 422, "Invalid")
    assert "resourceVersionMatch is forbidden unless resourceVersion is provided" in st["message"]
    _status(http.get(url, headers={"Accept": "text/html"}), 406, "NotAcceptable")
    _status(http.post(url, data=b"{}", headers={"Content-Type": "text/plain"}), 415, "UnsupportedMediaType")
    _status(http.delete(url + "/named", data=b"{not json", headers={"Content-Type": "application/json"}), 400, "BadRequest")
    st = _status(http.delete(url + "/named?propagationPolicy=Sideways"), 422, "Invalid")
    assert st["message"] == ('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: '
                             '"Sideways": supported values: "Foreground", "Background", "Orphan", "nil"')
    assert _count(http, url) == before + 1  # only "named"
    assert http.get(server.url + "/healthz").text == "ok"


def test_dry_run_stores_nothing(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    r = http.post(url + "?dryRun=All", json=_cm("dry"))
    assert r.status_code == 201 and r.json()["metadata"]["name"] == "dry"
    _status(http.get(url + "/dry"), 404, "NotFound")
    st = _status(http.post(url + "?dryRun=Some", json=_cm("dry")), 422, "Invalid")
    assert st["message"] == ('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: '
                             'supported values: "All"')


def test_list_paging_and_selectors(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    for i in range(5):
        body = _cm(f"page-{i}")
        body["metadata"]["labels"] = {"parity": "even" if i % 2 == 0 else "odd"}
        assert http.post(url, json=body).status_code == 201
    first = http.get(url + "?limit=2").json()
    assert len(first["items"]) == 2 and first["metadata"]["continue"]
    assert first["metadata"]["remainingItemCount"] == 3
    second = http.get(url + "?limit=2&continue=" + first["metadata"]["continue"]).json()
    assert [i["metadata"]["name"] for i in second["items"]] == ["page-2", "page-3"]
    even = http.get(url + "?labelSelector=parity%3Deven").json()
    assert [i["metadata"]["name"] for i in even["items"]] == ["page-0", "page-2", "page-4"]
    one = http.get(url + "?fieldSelector=metadata.name%3Dpage-1").json()
    assert [i["metadata"]["name"] for i in one["items"]] == ["page-1"]
    # across namespaces
    everywhere = http.get(server.url + "/api/v1/configmaps?labelSelector=parity").json()
    assert len([i for i in everywhere["items"] if i["metadata"]["namespace"] == ns]) == 5
    r = http.delete(url + "?labelSelector=parity%3Dodd")
    assert r.status_code == 200 and r.json()["kind"] == "ConfigMapList"
    assert len(http.get(url).json()["items"]) == 3


def test_unknown_paths_and_methods(server, http):
    # inside a served group: the Status of apiserver's serviceErrorHandler (go-restful's misses)
    for path in ("/api/v1/nosuchthings", "/api/v1/configmaps/x", "/apis/apps/v9", "/apis/apps/v1/nosuch"):
        st = _status(http.get(server.url + path), 404, "NotFound")
        assert st["message"] == "the server could not find the requested resource" and st["details"] == {}
    st = _status(http.post(server.url + "/api/v1/namespaces/default/pods/x/status", json={}), 405, "MethodNotAllowed")
    assert st["message"] == "the server does not allow this method on the requested resource"
    # elsewhere: Go's NotFoundHandler
    r = http.get(server.url + "/nosuch")
    assert (r.status_code, r.text) == (404, "404 page not found\n")


def _watch_lines(resp, n):
    out = []
    for line in resp.iter_lines():
        if line:
            out.append(json.loads(line))
            if len(out) == n:
                break
    return out


def test_watch_json_stream(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    rv = http.get(url).json()["metadata"]["resourceVersion"]

    def writer():
        time.sleep(0.2)
        with requests.Session() as s:
            obj = s.post(url, json=_cm("watched", a="1")).json()
            obj["data"]["a"] = "2"
            s.put(url + "/watched", json=obj)
            s.delete(url + "/watched")

    t = threading.Thread(target=writer)
    t.start()
    with http.get(url + f"?watch=true&resourceVersion={rv}&timeoutSeconds=10", stream=True) as r:
        assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
        assert r.headers.get("Transfer-Encoding") == "chunked"
        events = _watch_lines(r, 3)
    t.join()
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert events[1]["object"]["data"] == {"a": "2"} and events[0]["object"]["kind"] == "ConfigMap"


def test_watch_protobuf_stream_and_timeout(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    http.post(url, json=_cm("pbwatch"))
    start = time.monotonic()
    r = http.get(url + "?watch=1&timeoutSeconds=1", headers={"Accept": PB})
    assert time.monotonic() - start < 5
    assert r.headers["Content-Type"] == PB + ";stream=watch"
    data = r.content
    (n,) = struct.unpack(">I", data[:4])
    ev = from_proto(metav1.WatchEvent, data[4:4 + n])
    assert ev.type == "ADDED" and ev.object.raw.startswith(b"k8s\x00")


def test_bad_token_is_401(tmp_path):
    with APIServer(token="s3cret") as s:
        r = requests.get(s.url + "/api/v1/namespaces", headers={"Authorization": "Bearer wrong"})
        st = _status(r, 401, "Unauthorized")
        assert st["message"] == "Unauthorized"
        assert requests.get(s.url + "/api/v1/namespaces").status_code == 401
        assert requests.get(s.url + "/healthz").text == "ok"
        r = requests.get(s.url + "/api/v1/namespaces", headers={"Authorization": "Bearer s3cret"})
        assert r.status_code == 200
        assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= {
            i["metadata"]["name"] for i in r.json()["items"]}
        # TokenReviews and SelfSubjectReviews (kubectl auth whoami) know the token's user
        h = {"Authorization": "Bearer s3cret"}
        review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": "s3cret"}}
        got = requests.post(s.url + "/apis/authentication.k8s.io/v1/tokenreviews", headers=h, json=review).json()
        assert got["status"]["authenticated"] and got["status"]["user"]["username"] == "kcodec-admin"
        review["spec"]["token"] = "wrong"
        got = requests.post(s.url + "/apis/authentication.k8s.io/v1/tokenreviews", headers=h, json=review).json()
        assert not got["status"].get("authenticated")
        who = requests.post(s.url + "/apis/authentication.k8s.io/v1/selfsubjectreviews", headers=h,
                            json={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}).json()
        assert who["status"]["userInfo"]["groups"] == ["system:masters", "system:authenticated"]


def _deployment(name):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "a", "image": "nginx:1"},
                                                          {"name": "b", "image": "redis:1"}]}}}}


def test_patches(server, http, ns):
    url = server.url + f"/apis/apps/v1/namespaces/{ns}/deployments"
    assert http.post(url, json=_deployment("web")).status_code == 201
    smp = {"spec": {"template": {"spec": {"containers": [{"name": "b", "image": "redis:2"}]}}}}
    r = http.patch(url + "/web", data=json.dumps(smp), headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert r.status_code == 200, r.text
    # strategic merge: containers merged by name (patchMergeKey), not replaced
    assert [(c["name"], c["image"]) for c in r.json()["spec"]["template"]["spec"]["containers"]] == \
        [("a", "nginx:1"), ("b", "redis:2")]
    assert r.json()["metadata"]["generation"] == 2
    merge = {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}
    r = http.patch(url + "/web", data=json.dumps(merge), headers={"Content-Type": "application/merge-patch+json"})
    # a merge patch replaces the list
    assert [c["name"] for c in r.json()["spec"]["template"]["spec"]["containers"]] == ["c"]
    ops = [{"op": "replace", "path": "/spec/replicas", "value": 3}, {"op": "add", "path": "/metadata/labels", "value": {"x": "y"}}]
    r = http.patch(url + "/web", data=json.dumps(ops), headers={"Content-Type": "application/json-patch+json"})
    assert r.status_code == 200 and r.json()["spec"]["replicas"] == 3 and r.json()["metadata"]["labels"] == {"x": "y"}
    # the scale subresource speaks autoscaling/v1 Scale
    sc = http.get(url + "/web/scale").json()
    assert (sc["apiVersion"], sc["kind"], sc["spec"]["replicas"]) == ("autoscaling/v1", "Scale", 3)
    r = http.patch(url + "/web/scale", data=b'{"spec":{"replicas":5}}',
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["spec"]["replicas"] == 5
    assert http.get(url + "/web").json()["spec"]["replicas"] == 5
    # errors, as kube-apiserver answers them; nothing changes
    st = _status(http.patch(url + "/web", data=json.dumps([{"op": "test", "path": "/spec/replicas", "value": 9}]),
                            headers={"Content-Type": "application/json-patch+json"}), 422, "Invalid")
    st = _status(http.patch(url + "/web", data=b"{oops", headers={"Content-Type": "application/merge-patch+json"}),
                 400, "BadRequest")
    assert st["message"] == "invalid JSON patch"
    st = _status(http.patch(url + "/web", data=b"{}", headers={"Content-Type": "application/xml"}),
                 415, "UnsupportedMediaType")
    assert st["message"] == ("the body of the request was in an unknown format - accepted media types include: "
                             "application/json-patch+json, application/merge-patch+json, "
                             "application/strategic-merge-patch+json, application/apply-patch+yaml")
    st = _status(http.patch(url + "/web", data=b'{"metadata":{"name":"other"}}',
                            headers={"Content-Type": "application/merge-patch+json"}), 400, "BadRequest")
    assert st["message"] == "the name of the object (other) does not match the name on the URL (web)"
    st = _status(http.patch(url + "/missing", data=b"{}", headers={"Content-Type": "application/merge-patch+json"}),
                 404, "NotFound")
    assert st["message"] == 'deployments.apps "missing" not found'
    r = http.patch(url + "/web", data=b'{"spec":{"bogus":1}}', headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.headers["Warning"] == '299 - "unknown field \\"spec.bogus\\""'
    st = _status(http.patch(url + "/web?fieldValidation=Strict", data=b'{"spec":{"bogus":1}}',
                            headers={"Content-Type": "application/merge-patch+json"}), 422, "Invalid")
    assert st["message"].startswith(' "" is invalid: patch: Invalid value: "')
    assert st["message"].endswith('": strict decoding error: unknown field "spec.bogus"')
    assert http.get(url + "/web").json()["spec"]["replicas"] == 5


def test_watch_list_bookmark_and_table_watch(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    for name in ("one", "two"):
        assert http.post(url, json=_cm(name)).status_code == 201
    # watch-list: the initial events, then the BOOKMARK that ends them (k8s.io/initial-events-end)
    r = http.get(url + "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
                 "&resourceVersionMatch=NotOlderThan&timeoutSeconds=1")
    events = [json.loads(line) for line in r.text.splitlines()]
    assert [e["type"] for e in events] == ["ADDED", "ADDED", "BOOKMARK"]
    assert events[2]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    st = _status(http.get(url + "?watch=1&sendInitialEvents=true"), 422, "Invalid")
    assert "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" in st["message"]
    # kubectl get --watch asks for Tables: column definitions come with the first event only
    r = http.get(url + "?watch=1&timeoutSeconds=1", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    tables = [json.loads(line)["object"] for line in r.text.splitlines()]
    assert [t["kind"] for t in tables] == ["Table", "Table"]
    assert tables[0]["columnDefinitions"] and tables[1]["columnDefinitions"] is None
    assert [t["rows"][0]["cells"][0] for t in tables] == ["one", "two"]


def test_errors_in_protobuf_and_yaml(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps/missing"
    r = http.get(url, headers={"Accept": PB})
    assert r.status_code == 404 and r.headers["Content-Type"] == PB
    from kcodec.api import codecs

    info = next(i for i in codecs.supported_media_types() if i.media_type == PB)
    st, _ = info.serializer.decode(r.content, None, metav1.Status())
    assert (st.code, st.reason, st.message) == (404, "NotFound", 'configmaps "missing" not found')
    r = http.get(url, headers={"Accept": "application/yaml"})
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/yaml"
    assert b"reason: NotFound" in r.content


def test_cbor_when_enabled():
    """With CBOR on (Go's CBORServingAndStorage gate): bodies and answers in application/cbor,
    watches as application/cbor-seq; the media type lists name it."""
    from kcodec.api import scheme
    from kcodec.serializer.factory import CodecFactory

    cbor = next(i for i in CodecFactory(scheme, cbor=True).supported_media_types() if i.media_type == "application/cbor")
    with APIServer(cbor=True) as s, requests.Session() as http:
        url = s.url + "/api/v1/namespaces/default/configmaps"
        cm = corev1.ConfigMap(kind="ConfigMap", api_version="v1", metadata=metav1.ObjectMeta(name="cb"), data={"a": "b"})
        r = http.post(url, data=cbor.serializer.encode(cm), headers={"Content-Type": "application/cbor",
                                                                      "Accept": "application/cbor"})
        assert r.status_code == 201 and r.headers["Content-Type"] == "application/cbor"
        out, _ = cbor.serializer.decode(r.content, None, corev1.ConfigMap())
        assert out.data == {"a": "b"} and out.metadata.uid
        r = http.get(url + "?watch=1&timeoutSeconds=1", headers={"Accept": "application/cbor"})
        assert r.headers["Content-Type"] == "application/cbor-seq" and r.content
        st = _status(http.get(url, headers={"Accept": "text/html"}), 406, "NotAcceptable")
        assert st["message"].endswith("application/vnd.kubernetes.protobuf, application/cbor")


def test_large_responses_are_gzipped(server, http, ns):
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    for i in range(3):
        assert http.post(url, json=_cm(f"big-{i}", blob="x" * 60_000)).status_code == 201
    r = http.get(url, headers={"Accept-Encoding": "gzip"})
    assert r.headers.get("Content-Encoding") == "gzip" and len(r.json()["items"]) == 3
    r = http.get(url + "/big-0", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in r.headers
    r = http.get(url, headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in r.headers and len(r.json()["items"]) == 3


def test_watch_without_the_watch_cache():
    """``--watch-cache-sizes configmaps#0``: lists and watches of ConfigMaps go to the storage,
    whose watcher does not notify; the stream still delivers every event."""
    with APIServer(watch_cache_sizes=["configmaps#0"]) as s, requests.Session() as http:
        url = s.url + "/api/v1/namespaces/default/configmaps"
        rv = http.get(url).json()["metadata"]["resourceVersion"]

        def writer():
            time.sleep(0.3)
            with requests.Session() as w:
                w.post(url, json=_cm("uncached"))
                w.delete(url + "/uncached")

        t = threading.Thread(target=writer)
        t.start()
        with http.get(url + f"?watch=1&resourceVersion={rv}&timeoutSeconds=10", stream=True) as r:
            events = _watch_lines(r, 2)
        t.join()
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
            ("ADDED", "uncached"), ("DELETED", "uncached")]


def test_concurrent_clients_and_watchers(server, ns):
    """Writers and watchers at once: every request answered, every watcher sees every event."""
    url = server.url + f"/api/v1/namespaces/{ns}/configmaps"
    rv = requests.get(url).json()["metadata"]["resourceVersion"]
    codes: list[int] = []
    seen: dict[int, list[str]] = {i: [] for i in range(5)}
    lock = threading.Lock()

    def watcher(i):
        with requests.get(url + f"?watch=1&resourceVersion={rv}&timeoutSeconds=30", stream=True) as r:
            for line in r.iter_lines():
                if line:
                    seen[i].append(json.loads(line)["object"]["metadata"]["name"])
                    if len(seen[i]) == 100:
                        return

    def writer(i):
        with requests.Session() as h:
            for j in range(10):
                got = [h.post(url, json=_cm(f"c{i}-{j}")).status_code, h.get(url + f"/c{i}-{j}").status_code]
                with lock:
                    codes.extend(got)

    watchers = [threading.Thread(target=watcher, args=(i,)) for i in range(5)]
    writers = [threading.Thread(target=writer, args=(i,)) for i in range(10)]
    for t in watchers + writers:
        t.start()
    for t in writers + watchers:
        t.join(60)
    assert sorted(set(codes)) == [200, 201] and len(codes) == 200
    want = sorted(f"c{i}-{j}" for i in range(10) for j in range(10))
    assert all(sorted(names) == want for names in seen.values())


def test_watch_from_a_resource_version_older_than_the_cache():
    """The watch cache (capacity 10 here) answers a watch from before its window with an ERROR
    event carrying the 410 Expired Status, as kube-apiserver's cacher does."""
    with APIServer(watch_cache_sizes=["configmaps#10"]) as s, requests.Session() as http:
        url = s.url + "/api/v1/namespaces/default/configmaps"
        first = None
        for i in range(30):
            got = http.post(url, json=_cm(f"c{i}")).json()
            first = first or got["metadata"]["resourceVersion"]
        r = http.get(url + f"?watch=1&resourceVersion={first}&timeoutSeconds=5")
        (event,) = [json.loads(line) for line in r.text.splitlines()]
        assert event["type"] == "ERROR"
        st = event["object"]
        assert (st["kind"], st["code"], st["reason"]) == ("Status", 410, "Expired")
        assert st["message"].startswith(f"too old resource version: {first} (")
