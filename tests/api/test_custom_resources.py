"""Custom resources: kinds learnt from CRDs, pruning / strict reporting, and stream decoding
that goes on past kinds nobody registered. Real data: every document of ../shared/corpus.
"""
from __future__ import annotations

import importlib
import io

import pytest

from conftest import SHARED
from kcodec.errors import DecodeError, NotRegisteredError, StrictDecodingError
from kcodec.schema import GroupVersionKind

CORPUS = SHARED / "corpus" / "files"

CRD_V1 = b"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              parts:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
              labels:
                type: object
                additionalProperties: {type: string}
              free:
                type: object
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  strict:
                    type: object
                    properties:
                      a: {type: string}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                properties:
                  spec: {type: object, properties: {x: {type: string}}}
  - name: v0
    served: false
    storage: false
"""

WIDGET = b"""apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  namespace: ns
  surprise: 1
spec:
  size: 3
  colour: red
  parts:
  - name: a
    weight: 2
  labels: {x: z}
  free:
    anything: [1, 2]
    strict: {a: b, c: d}
  template:
    apiVersion: v1
    kind: Thing
    metadata: {name: t}
    spec: {x: q, z: w}
    other: 1
status:
  ok: true
"""


def _external_scheme():
    from kcodec.api import api_modules
    from kcodec.runtime.scheme import Scheme

    s = Scheme("test_custom_resources")
    for name in api_modules():
        importlib.import_module(name).add_to_scheme(s)
    return s


@pytest.fixture(scope="module")
def scheme():
    return _external_scheme()


@pytest.fixture(scope="module")
def yaml_ser(scheme):
    from kcodec.serializer.json import Serializer

    return Serializer(scheme, scheme, yaml=True)


@pytest.fixture(scope="module")
def widget_crd(scheme, yaml_ser):
    from kcodec.api import apiextensions

    crd, _ = yaml_ser.decode(CRD_V1)
    kinds = apiextensions.add_custom_resource_definition(scheme, crd)
    assert kinds == [GroupVersionKind("example.com", "v1", "Widget"),
                     GroupVersionKind("example.com", "v1", "WidgetList")]
    return crd


def test_custom_resource_decodes_to_unstructured(scheme, yaml_ser, widget_crd):
    from kcodec.runtime import Unstructured, UnstructuredList

    obj, gvk = yaml_ser.decode(WIDGET)
    assert isinstance(obj, Unstructured)
    assert gvk == GroupVersionKind("example.com", "v1", "Widget")
    assert obj.get_name() == "w"
    again, _ = yaml_ser.decode(yaml_ser.encode(obj))
    assert again == obj
    lst, gvk = yaml_ser.decode(b"apiVersion: example.com/v1\nkind: WidgetList\nitems:\n- metadata: {name: a}\n")
    assert isinstance(lst, UnstructuredList) and gvk.kind == "WidgetList"
    assert [i.get_name() for i in lst.items] == ["a"]


@pytest.mark.parametrize("doc", [
    WIDGET.replace(b"kind: Widget", b"kind: Gadget"),           # kind the CRD does not define
    WIDGET.replace(b"example.com/v1", b"example.com/v0"),       # version not served
    WIDGET.replace(b"example.com/v1", b"example.com/v2"),       # version not defined
])
def test_gvk_is_checked(yaml_ser, widget_crd, doc):
    with pytest.raises(NotRegisteredError):
        yaml_ser.decode(doc)


def test_unserved_versions_on_request(widget_crd):
    from kcodec.api import apiextensions

    kinds = apiextensions.custom_resource_kinds(widget_crd, served_only=False)
    assert GroupVersionKind("example.com", "v0", "Widget") in kinds


def test_v1beta1_and_dict_crds(scheme):
    from kcodec.api import apiextensions

    crd = {"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "gizmos.example.org"},
           "spec": {"group": "example.org", "version": "v1alpha1", "names": {"kind": "Gizmo", "plural": "gizmos"},
                    "validation": {"openAPIV3Schema": {"properties": {"spec": {"properties": {"a": {"type": "string"}}}}}}}}
    assert apiextensions.add_custom_resource_definition(scheme, crd) == [
        GroupVersionKind("example.org", "v1alpha1", "Gizmo"),
        GroupVersionKind("example.org", "v1alpha1", "GizmoList")]
    obj = {"apiVersion": "example.org/v1alpha1", "kind": "Gizmo", "spec": {"a": "x", "b": "y"}}
    # v1beta1 defaults preserveUnknownFields to true: nothing is pruned
    assert apiextensions.prune(obj, crd) == []
    crd["spec"]["preserveUnknownFields"] = False
    assert apiextensions.prune(obj, crd) == ["spec.b"]
    assert obj == {"apiVersion": "example.org/v1alpha1", "kind": "Gizmo", "spec": {"a": "x"}}
    with pytest.raises(DecodeError):
        apiextensions.add_custom_resource_definition(scheme, {"apiVersion": "v1", "kind": "Pod"})


def test_prune_follows_the_structural_schema(yaml_ser, widget_crd):
    from kcodec.api import apiextensions

    obj, _ = yaml_ser.decode(WIDGET)
    paths = apiextensions.prune(obj, widget_crd)
    assert paths == [
        "metadata.surprise",
        "spec.colour",
        "spec.free.strict.c",          # preserve-unknown-fields keeps unknowns, not below known props
        "spec.parts[0].weight",
        "spec.template.other",
        "spec.template.spec.z",
        "status",
    ]
    content = obj.unstructured_content()
    assert content["spec"]["free"]["anything"] == [1, 2]
    assert content["spec"]["labels"] == {"x": "z"}
    # an embedded resource keeps its apiVersion, kind and metadata
    assert content["spec"]["template"] == {"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "t"},
                                           "spec": {"x": "q"}}
    assert apiextensions.prune(obj, widget_crd) == []


def test_check_custom_resource_strict(yaml_ser, widget_crd):
    from kcodec.api import apiextensions

    obj, _ = yaml_ser.decode(WIDGET)
    with pytest.raises(StrictDecodingError) as info:
        apiextensions.check_custom_resource(obj, widget_crd, strict=True)
    assert 'unknown field "spec.colour"' in str(info.value)
    assert info.value.gvk == GroupVersionKind("example.com", "v1", "Widget")
    obj, _ = yaml_ser.decode(WIDGET)
    warnings = apiextensions.check_custom_resource(obj, widget_crd)
    assert warnings[0] == 'unknown field "metadata.surprise"'


def test_schema_less_version_prunes_everything_but_meta(widget_crd):
    from kcodec.api import apiextensions

    assert apiextensions.structural_schema(widget_crd, "v0") is None
    obj = {"apiVersion": "example.com/v0", "kind": "Widget", "metadata": {"name": "x"}, "spec": {}}
    assert apiextensions.prune(obj, widget_crd) == ["spec"]
    with pytest.raises(NotRegisteredError):
        apiextensions.structural_schema(widget_crd, "v9")


# --------------------------------------------------------------------------- streams


MIXED = b"""apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
apiVersion: nobody.example/v1
kind: Mystery
metadata: {name: m}
spec: {x: 1}
---
apiVersion: v1
kind: Service
metadata: {name: b}
"""


def test_stream_goes_past_unknown_kinds(yaml_ser):
    from kcodec.api.core import v1 as corev1
    from kcodec.runtime import Unstructured
    from kcodec.serializer.framing import YAML_FRAMER
    from kcodec.serializer.streaming import StreamDecoder

    got = list(StreamDecoder(io.BytesIO(MIXED), YAML_FRAMER, yaml_ser))
    assert [type(o) for o, _ in got] == [corev1.ConfigMap, Unstructured, corev1.Service]
    assert got[1][1] == GroupVersionKind("nobody.example", "v1", "Mystery")
    assert got[1][0].unstructured_content()["spec"] == {"x": 1}
    go_like = StreamDecoder(io.BytesIO(MIXED), YAML_FRAMER, yaml_ser, unknown_as_unstructured=False)
    assert isinstance(go_like.decode()[0], corev1.ConfigMap)
    with pytest.raises(NotRegisteredError):
        go_like.decode()
    assert isinstance(go_like.decode()[0], corev1.Service)


def test_protobuf_stream_keeps_the_error(scheme):
    from kcodec.serializer.framing import LENGTH_DELIMITED_FRAMER
    from kcodec.serializer.protobuf import Serializer
    from kcodec.serializer.streaming import StreamDecoder

    ser = Serializer(scheme, scheme)
    av, kind = b"nobody.example/v1", b"Thing"
    type_meta = b"\n" + bytes([len(av)]) + av + b"\x12" + bytes([len(kind)]) + kind
    body = b"k8s\x00\n" + bytes([len(type_meta)]) + type_meta + b"\x12\x00"
    frame = len(body).to_bytes(4, "big") + body
    dec = StreamDecoder(io.BytesIO(frame), LENGTH_DELIMITED_FRAMER, ser)
    with pytest.raises(NotRegisteredError):
        dec.decode()


# --------------------------------------------------------------------------- corpus


def _corpus_files():
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".json"))


def _documents(path):
    from kcodec import goyaml as _goyaml
    from kcodec.serializer.framing import YAML_FRAMER

    reader = YAML_FRAMER.new_frame_reader(io.BytesIO(path.read_bytes()))
    while True:
        try:
            doc = reader.read_frame(1 << 24)
        except EOFError:
            return
        try:
            tree = _goyaml.yaml_to_tree(doc)
        except DecodeError:
            tree = None  # the corpus has one template that is not YAML
        yield doc, tree


@pytest.fixture(scope="module")
def corpus_scheme():
    """Every external kind plus the kinds of every CRD found in the corpus."""
    from kcodec.api import apiextensions
    from kcodec.serializer.json import Serializer

    s = _external_scheme()
    ser = Serializer(s, s, yaml=True)
    crds = 0
    for path in _corpus_files():
        for doc, tree in _documents(path):
            if isinstance(tree, dict) and tree.get("kind") == "CustomResourceDefinition":
                crd, _ = ser.decode(doc)
                try:
                    apiextensions.add_custom_resource_definition(s, crd)
                except DecodeError:
                    # a patch fragment (prometheus-operator's crd-conversion/patch.json)
                    assert not crd.spec.group
                    continue
                crds += 1
    return s, crds


def test_every_corpus_document_decodes_without_not_registered(corpus_scheme):
    """Through a stream decoder, no corpus document raises NotRegisteredError; custom
    resources come back as Unstructured (their GVK registered when the corpus has their CRD)
    and every CRD, APIService and custom resource round-trips."""
    from kcodec.runtime import Unstructured
    from kcodec.serializer.framing import YAML_FRAMER
    from kcodec.serializer.json import Serializer
    from kcodec.serializer.streaming import StreamDecoder

    scheme, crds = corpus_scheme
    if not crds:
        pytest.skip("corpus not found")
    builtin = {gvk.group for gvk in _external_scheme().all_known_types()}
    ser = Serializer(scheme, scheme, yaml=True)
    counts = {"crd": 0, "apiservice": 0, "custom": 0, "custom_registered": 0, "other_errors": 0}
    for path in _corpus_files():
        trees = [t for _, t in _documents(path)]
        stream = StreamDecoder(io.BytesIO(path.read_bytes()), YAML_FRAMER, ser)
        for i, tree in enumerate(trees):
            where = f"{path.relative_to(CORPUS)} document {i + 1}"
            try:
                obj, gvk = stream.decode()
            except NotRegisteredError as err:
                pytest.fail(f"{where}: {err}")
            except (DecodeError, EOFError):
                counts["other_errors"] += 1  # empty documents, invalid-on-purpose data
                continue
            kind = tree.get("kind") if isinstance(tree, dict) else None
            if kind in ("CustomResourceDefinition", "APIService") and gvk.group in builtin:
                counts["crd" if kind != "APIService" else "apiservice"] += 1
                assert not isinstance(obj, Unstructured), where
            elif gvk.group not in builtin and gvk.kind:
                counts["custom"] += 1
                assert isinstance(obj, Unstructured) or type(obj).__name__ == "UnstructuredList", where
                if scheme.recognizes(gvk):
                    counts["custom_registered"] += 1
            else:
                continue
            # a kind no CRD defines decodes again the way the stream did: into an Unstructured
            into = None if scheme.recognizes(gvk) else type(obj)()
            again, gvk2 = ser.decode(ser.encode(obj), None, into)
            assert gvk2 == gvk and again == obj, where
    assert counts["crd"] >= 21 and counts["apiservice"] >= 9, counts
    assert counts["custom"] >= 40 and counts["custom_registered"] >= 5, counts


def test_prune_with_several_definitions_and_lists(yaml_ser, widget_crd):
    from kcodec.api import apiextensions
    from kcodec.runtime import UnstructuredList

    other = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "metadata": {"name": "others.example.com"},
             "spec": {"group": "example.com", "names": {"kind": "Other", "plural": "others"},
                      "scope": "Namespaced", "versions": [{"name": "v1", "served": True, "storage": True}]}}
    crds = [apiextensions.as_v1_definition(other), widget_crd]
    lst, _ = yaml_ser.decode(b"apiVersion: example.com/v1\nkind: WidgetList\nitems:\n"
                             b"- metadata: {name: a}\n  spec: {size: 1, junk: 2}\n"
                             b"- metadata: {name: b}\n  spec: {size: 2}\n")
    assert isinstance(lst, UnstructuredList)
    assert apiextensions.prune(lst, crds) == ["items[0].spec.junk"]
    assert lst.items[0].unstructured_content()["spec"] == {"size": 1}
    gadget = {"apiVersion": "example.com/v1", "kind": "Gadget", "spec": {}}
    with pytest.raises(NotRegisteredError):
        apiextensions.prune(gadget, crds)
    assert apiextensions.prune({"apiVersion": "example.com/v1", "kind": "Other", "spec": {"a": 1}},
                               crds) == ["spec"]


def test_prune_deeply_nested_unknown_arrays(widget_crd):
    from kcodec.api import apiextensions

    deep: list = [{"x": 1}]
    for _ in range(5000):
        deep = [deep]
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"parts": [{"name": "a"}], "size": 1},
           "status": {}}
    content = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"free": {"n": deep}}}
    assert apiextensions.prune(content, widget_crd) == []  # preserved below `free`
    content = {"apiVersion": "example.com/v1", "kind": "Widget",
               "spec": {"labels": {"a": "b"}, "parts": deep}}
    paths = apiextensions.prune(content, widget_crd)
    assert len(paths) == 1 and paths[0].startswith("spec.parts[0][0]") and paths[0].endswith("[0].x")
    assert apiextensions.prune(obj, widget_crd) == ["status"]
