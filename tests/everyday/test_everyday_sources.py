"""kcodec.load's sources (a path that names no file, a dict), kcodec.dump_all, a StreamEncoder
left by a ``with`` block, and load() with a scheme that knows a group but not the version/kind.

The last follows Go's runtime.Scheme (k8s.io/apimachinery/pkg/runtime/scheme.go, New and
ObjectKinds): a kind the scheme lacks is ``no kind "X" is registered for version "g/v" in
scheme "name"`` (k8s.io/apimachinery/pkg/runtime/error.go, notRegisteredErr.Error).
"""
from __future__ import annotations

import errno
import io

import pytest

import kcodec
from kcodec.errors import DecodeError, NotRegisteredError
from kcodec.runtime import Unstructured
from kcodec.schema import GroupVersionKind

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}


@pytest.mark.parametrize("name", ["deploy.yml", "deploy.yaml", "dir/pod.json", "pod.pb", "x.cbor"])
def test_a_missing_path_is_file_not_found(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as info:
        kcodec.load(name)
    assert info.value.errno == errno.ENOENT
    assert info.value.filename == name
    with pytest.raises(FileNotFoundError):
        kcodec.load_all(name)


def test_an_existing_path_is_read(tmp_path, monkeypatch):
    (tmp_path / "pod.yml").write_bytes(kcodec.dump(kcodec.load(POD)))
    monkeypatch.chdir(tmp_path)
    assert kcodec.load("pod.yml").metadata.name == "p"


def test_a_one_line_document_is_still_a_document():
    # JSON on one line is a document, not a path, whatever it ends with.
    assert kcodec.load('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a.yaml"}}').metadata.name == "a.yaml"
    with pytest.raises(DecodeError):
        kcodec.load("not-a-manifest")  # no manifest extension: parsed, and says why it fails


def test_load_accepts_a_dict_as_from_dict_does():
    from kcodec.interop import from_dict

    pod = kcodec.load(POD)
    assert type(pod).__name__ == "Pod" and pod.metadata.name == "p"
    assert kcodec.dump(pod) == kcodec.dump(from_dict(POD))
    widget = kcodec.load({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"a": 1}})
    assert isinstance(widget, Unstructured) and widget.object["spec"] == {"a": 1}
    with pytest.raises(DecodeError, match="<dict>: not a JSON-compatible object"):
        kcodec.load({"apiVersion": "v1", "kind": "Pod", "x": object()})


def _pods(*names):
    return [kcodec.load({**POD, "metadata": {"name": n}}) for n in names]


def test_dump_all_yaml_is_load_all_reversed():
    pods = _pods("a", "b", "c")
    data = kcodec.dump_all(pods)
    assert data.count(b"\n---\n") == 2
    assert data == b"---\n".join(kcodec.dump(p) for p in pods)
    assert [p.metadata.name for p in kcodec.load_all(data)] == ["a", "b", "c"]


@pytest.mark.parametrize("fmt", ["json", "json-pretty"])
def test_dump_all_json_is_a_v1_list(fmt):
    data = kcodec.dump_all(_pods("a", "b"), fmt)
    lst = kcodec.load(data)
    assert (lst.api_version, lst.kind) == ("v1", "List")
    assert [kcodec.load(i.raw).metadata.name for i in lst.items] == ["a", "b"]
    if fmt == "json":
        # kubectl's List: keys sorted as the unstructured JSON encoder writes them.
        assert data.startswith(b'{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Pod"')
        assert data.endswith(b'"kind":"List","metadata":{"resourceVersion":""}}\n')


def test_dump_all_of_nothing_and_bad_formats():
    assert kcodec.dump_all([]) == b""
    assert kcodec.load(kcodec.dump_all([], "json")).items == []
    with pytest.raises(ValueError, match="protobuf and CBOR hold one object"):
        kcodec.dump_all(_pods("a"), "protobuf")  # type: ignore[arg-type]


def test_stream_encoder_leaves_the_callers_stream_open():
    from kcodec.serializer.framing import JSON_FRAMER
    from kcodec.serializer.streaming import StreamEncoder

    out = io.BytesIO()
    from kcodec._everyday import _codecs, _serializer

    enc = _serializer(_codecs(None), "json")
    with StreamEncoder(out, JSON_FRAMER, enc) as stream:
        stream.encode(_pods("a")[0])
    assert not out.closed
    out.write(b"more")
    assert out.getvalue().endswith(b"}\nmore")
    stream.close()  # an explicit close() still closes it
    assert out.closed


def _crd_scheme():
    from kcodec.api.apiextensions import add_custom_resource_definition
    from kcodec.runtime.scheme import Scheme

    s = Scheme("mine")
    add_custom_resource_definition(s, {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets",
                           "singular": "widget"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": {"type": "object"}}}]}})
    return s


@pytest.mark.parametrize("doc, message", [
    (b'{"apiVersion":"example.com/v2","kind":"Widget"}',
     'no kind "Widget" is registered for version "example.com/v2" in scheme "mine"'),
    (b"apiVersion: example.com/v1\nkind: Gadget\n",
     'no kind "Gadget" is registered for version "example.com/v1" in scheme "mine"'),
])
def test_a_known_group_with_an_unknown_version_or_kind_is_not_registered(doc, message):
    s = _crd_scheme()
    assert isinstance(kcodec.load(b'{"apiVersion":"example.com/v1","kind":"Widget"}', scheme=s), Unstructured)
    with pytest.raises(NotRegisteredError) as info:
        kcodec.load(doc, scheme=s)
    assert str(info.value) == message
    # A group the scheme does not know at all is still read as kubectl reads custom resources.
    assert isinstance(kcodec.load(b'{"apiVersion":"other.io/v1","kind":"Gadget"}', scheme=s), Unstructured)


def test_the_default_scheme_reads_unknown_versions_as_kubectl_reads_manifests():
    import kcodec.api

    # autoscaling/v2beta2 left k8s.io/api in 1.26; kcodec.convert still reads it
    hpa = kcodec.load(b'{"apiVersion":"autoscaling/v2beta2","kind":"HorizontalPodAutoscaler"}')
    assert isinstance(hpa, Unstructured)
    # a copy of the built-in scheme is the caller's: Go's error for a group it registers
    with pytest.raises(NotRegisteredError,
                       match='no kind "Deployment" is registered for version "apps/v9" in scheme "mine"'):
        kcodec.load(b'{"apiVersion":"apps/v9","kind":"Deployment"}', scheme=kcodec.api.new_scheme("mine"))


def test_crds_added_to_a_copy_of_the_built_in_scheme() -> None:
    import kcodec.api
    from kcodec.api.apiextensions import add_custom_resource_definition

    cluster = kcodec.api.new_scheme("cluster")
    add_custom_resource_definition(cluster, _crd_scheme_definition())
    objs = kcodec.load_all(b'{"apiVersion":"v1","kind":"ConfigMap"}\n{"apiVersion":"example.com/v1","kind":"Widget"}',
                           scheme=cluster)
    assert [type(o).__name__ for o in objs] == ["ConfigMap", "Unstructured"]
    with pytest.raises(NotRegisteredError, match='version "example.com/v2" in scheme "cluster"'):
        kcodec.load(b'{"apiVersion":"example.com/v2","kind":"Widget"}', scheme=cluster)
    # the shared scheme is not changed
    assert not kcodec.api.scheme.is_group_registered("example.com")
    # every built-in kind, and the CRD's, once everything is loaded
    cluster.load_all()
    known = cluster.all_known_types()
    assert len(known) > len(kcodec.api.scheme.all_known_types())
    assert GroupVersionKind("example.com", "v1", "Widget") in known


def _crd_scheme_definition() -> dict:
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets",
                           "singular": "widget"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": {"type": "object"}}}]}}
