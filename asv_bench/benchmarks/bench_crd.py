"""CustomResourceDefinitions: decode and encode a large CRD, and convert v1beta1 -> v1.

The CRD is built here (no shared data needed): ``CRD_PROPERTIES`` properties, each an array
whose ``items`` schema (a hand-marshalled ``JSONSchemaPropsOrArray``) has a few typed
members, an enum and a default (``JSON`` values) and ``additionalProperties`` (a
``JSONSchemaPropsOrBool``), the shapes operator CRDs are made of. Formats: compact JSON and
protobuf; the conversion goes v1beta1 (top-level validation) -> internal -> v1 on a scheme
with ``kcodec.api.apiextensions._install``.
"""
from __future__ import annotations

import json
from typing import Any

# _docs first: it puts this checkout on sys.path before kcodec is imported.
from ._docs import MODES, require_kcodec, use_mode

CRD_PROPERTIES = 200


def _schema() -> dict[str, Any]:
    props = {}
    for i in range(CRD_PROPERTIES):
        props[f"field{i}"] = {
            "type": "array",
            "description": f"Field number {i} of the benchmark resource.",
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "maxLength": 63},
                    "mode": {"type": "string", "enum": ["Always", "Never", "IfNotPresent"],
                             "default": "Always"},
                    "port": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 65535},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            },
        }
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}


def crd_document(version: str) -> bytes:
    """The benchmark CRD as compact JSON in apiextensions.k8s.io/<version>."""
    spec: dict[str, Any] = {"group": "bench.kcodec.io", "scope": "Namespaced",
                            "names": {"plural": "gadgets", "kind": "Gadget"}}
    if version == "v1":
        spec["versions"] = [{"name": "v1", "served": True, "storage": True,
                             "schema": {"openAPIV3Schema": _schema()}}]
    else:
        spec["version"] = "v1"
        spec["validation"] = {"openAPIV3Schema": _schema()}
    return json.dumps({"apiVersion": f"apiextensions.k8s.io/{version}",
                       "kind": "CustomResourceDefinition",
                       "metadata": {"name": "gadgets.bench.kcodec.io"}, "spec": spec}).encode()


class CRDCodec:
    """Decode / encode the large v1 CRD in JSON and protobuf."""

    params = [MODES, ["json", "protobuf"]]
    param_names = ["mode", "format"]

    def setup(self, mode: str, fmt: str) -> None:
        require_kcodec()
        use_mode(mode)
        from kcodec.api import scheme
        from kcodec.serializer.json import Serializer
        from kcodec.serializer.protobuf import Serializer as PB

        js = Serializer(scheme, scheme)
        obj, _ = js.decode(crd_document("v1"))
        self.ser = js if fmt == "json" else PB(scheme, scheme)
        self.data = self.ser.encode(obj)
        self.obj = obj

    def time_decode(self, mode: str, fmt: str) -> None:
        self.ser.decode(self.data)

    def time_encode(self, mode: str, fmt: str) -> None:
        self.ser.encode(self.obj)


class CRDConvert:
    """v1beta1 CRD (defaulted) -> internal -> v1, the `kubectl convert` path."""

    params = [MODES]
    param_names = ["mode"]

    def setup(self, mode: str) -> None:
        require_kcodec()
        use_mode(mode)
        from kcodec.api.apiextensions import _install
        from kcodec.runtime.scheme import Scheme
        from kcodec.schema import GroupVersion
        from kcodec.serializer.json import Serializer

        s = Scheme("bench_crd")
        _install.install(s)
        obj, _ = Serializer(s, s).decode(crd_document("v1beta1"))
        s.default(obj)
        self.scheme = s
        self.obj = obj
        self.internal = GroupVersion("apiextensions.k8s.io", "__internal")
        self.v1 = GroupVersion("apiextensions.k8s.io", "v1")

    def time_v1beta1_to_v1(self, mode: str) -> None:
        mid = self.scheme.convert_to_version(self.obj, self.internal)
        self.scheme.convert_to_version(mid, self.v1)


CR_ITEMS = 1000


def custom_resource_list(items: int = CR_ITEMS) -> dict[str, Any]:
    """A GadgetList of ``items`` custom resources shaped by the benchmark CRD's schema."""
    out = []
    for i in range(items):
        out.append({
            "apiVersion": "bench.kcodec.io/v1", "kind": "Gadget",
            "metadata": {"name": f"gadget-{i}", "namespace": "default", "uid": f"00000000-0000-0000-0000-{i:012d}",
                         "resourceVersion": str(1000 + i), "labels": {"app": "bench", "tier": str(i % 3)}},
            "spec": {f"field{j}": [{"name": f"n{j}", "mode": "Always", "port": 8000 + j,
                                    "labels": {"k": "v"}}] for j in range(8)},
        })
    return {"apiVersion": "bench.kcodec.io/v1", "kind": "GadgetList",
            "metadata": {"resourceVersion": "5000"}, "items": out}


class CustomResourceListCodec:
    """Decode / encode a list of 1000 custom resources (Unstructured) in JSON and CBOR.

    Custom resources have no protobuf form, so JSON is the reference here; the issue's
    target (CBOR no slower than 2x protobuf) is checked on PodList(1000) in bench_report."""

    params = [MODES, ["json", "cbor"]]
    param_names = ["mode", "format"]

    def setup(self, mode: str, fmt: str) -> None:
        require_kcodec()
        use_mode(mode)
        from kcodec.api import apiextensions
        from kcodec.api.apiextensions import v1
        from kcodec.runtime import Scheme, UnstructuredList
        from kcodec.serializer import cbor
        from kcodec.serializer.json import Serializer

        s = Scheme("bench_cr")
        crd, _ = Serializer(s, s).decode(crd_document("v1"), None, v1.CustomResourceDefinition())
        apiextensions.add_custom_resource_definition(s, crd)
        self.ser = Serializer(s, s) if fmt == "json" else cbor.Serializer(s, s)
        self.new = UnstructuredList
        self.obj = UnstructuredList()
        self.obj.set_unstructured_content(custom_resource_list(CR_ITEMS))
        self.data = self.ser.encode(self.obj)

    def time_decode(self, mode: str, fmt: str) -> None:
        self.ser.decode(self.data, None, self.new())

    def time_encode(self, mode: str, fmt: str) -> None:
        self.ser.encode(self.obj)
