"""Conversion through the internal (hub) version on compiled tables.

Targets: converting the PodList (``LIST_ITEMS`` pods, 1000 by default)
v1 -> internal -> v1 costs less than protobuf-decoding it (``PodListHub``); apps/v1beta1 ->
apps/v1 of as many Deployments, defaults included, costs less than protobuf-decoding them
(``DeploymentsHub``); ``kcodec convert`` of one manifest in a fresh process takes at most
0.3 s wall (``ConvertStartUp``). Each class measures its protobuf decode too, for a
same-run comparison.
"""
from __future__ import annotations

import json
from typing import Any

from . import _docs
from ._docs import MODES, Heavy


class PodListHub(Heavy):
    """PodList v1 -> internal -> v1 with the legacy scheme (no defaulting), and its protobuf decode."""

    params = [MODES]
    param_names = ["mode"]

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        from kcodec import legacyscheme
        from kcodec.schema import INTERNAL_GROUP_VERSIONER, GroupVersion

        self.scheme = legacyscheme.scheme
        self.internal = INTERNAL_GROUP_VERSIONER
        self.v1 = GroupVersion("", "v1")
        self.serializer = _docs.serializer_for("protobuf")
        self.data = _docs.document(docs, "list_pb")
        self.obj, _ = self.serializer.decode(self.data)
        self.time_round_trip(docs, mode)  # compile the plans outside the timing

    def time_round_trip(self, docs: dict[str, Any], mode: str) -> None:
        internal = self.scheme.unsafe_convert_to_version(self.obj, self.internal)
        self.scheme.unsafe_convert_to_version(internal, self.v1)

    def time_protobuf_decode(self, docs: dict[str, Any], mode: str) -> None:
        self.serializer.decode(self.data)


def deployment_list_json(n: int) -> bytes:
    """An apps/v1beta1 DeploymentList of ``n`` copies of the Go-written fixture Deployment
    (items without apiVersion/kind, named ``deploy-<i>``), as the API server lists them."""
    path = _docs.FIXTURES / "apps.v1beta1.Deployment.json"
    if not path.is_file():
        raise NotImplementedError(f"fixture {path} is absent (../shared/fixtures not checked out)")
    item = json.loads(path.read_bytes())
    item.pop("kind", None)
    item.pop("apiVersion", None)
    items = []
    for i in range(n):
        item["metadata"]["name"] = f"deploy-{i}"
        items.append(json.loads(json.dumps(item)))
    doc = {"kind": "DeploymentList", "apiVersion": "apps/v1beta1", "metadata": {"resourceVersion": "1"},
           "items": items}
    return json.dumps(doc, separators=(",", ":")).encode()


class DeploymentsHub(Heavy):
    """``LIST_ITEMS`` apps/v1beta1 Deployments (a DeploymentList of the fixture) to apps/v1
    through the internal version with apps/v1beta1's defaults, two ways: ``kcodec.convert``
    (copy so the caller's object is untouched, default, convert twice) and the versioning
    codec's way for a just-decoded object (default in place, convert twice without a copy);
    beside the protobuf decode of the same list, and the whole kube-apiserver path from
    protobuf bytes (decode, default, convert) for reference."""

    params = [MODES]
    param_names = ["mode"]

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        import kcodec
        from kcodec import legacyscheme
        from kcodec.schema import INTERNAL_GROUP_VERSIONER, GroupVersion

        self.convert = kcodec.convert
        self.scheme = legacyscheme.scheme
        self.to_internal = legacyscheme.to_internal
        self.apps_v1 = GroupVersion("apps", "v1")
        self.serializer = _docs.serializer_for("protobuf")
        list_json = deployment_list_json(docs["list_items"])
        obj, _ = _docs.serializer_for("json").decode(list_json)
        self.data = self.serializer.encode(obj)
        self.obj, _ = self.serializer.decode(self.data)
        self.internal = INTERNAL_GROUP_VERSIONER
        self.time_convert(docs, mode)  # compile plans and defaulters outside the timing
        # The codec path below defaults self.obj in place; once defaulted, it stays the same.
        self.time_default_and_convert(docs, mode)

    def time_convert(self, docs: dict[str, Any], mode: str) -> None:
        self.convert(self.obj, self.apps_v1)

    def time_default_and_convert(self, docs: dict[str, Any], mode: str) -> None:
        """The versioning codec's path for a freshly decoded object, as Go's CodecFactory
        codecs take it through ``runtime.UnsafeObjectConvertor``: default in place, then
        convert to internal and to apps/v1 without copying first (``PodListHub`` likewise)."""
        self.scheme.default(self.obj)
        internal = self.scheme.unsafe_convert_to_version(self.obj, self.internal)
        self.scheme.unsafe_convert_to_version(internal, self.apps_v1)

    def time_protobuf_decode(self, docs: dict[str, Any], mode: str) -> None:
        self.serializer.decode(self.data)

    def time_decode_and_convert(self, docs: dict[str, Any], mode: str) -> None:
        obj, _ = self.serializer.decode(self.data)
        self.scheme.default(obj)  # a freshly decoded object is defaulted in place, as the server does
        self.scheme.convert_to_version(self.to_internal(obj, default=False), self.apps_v1)


class ConvertStartUp:
    """``kcodec convert`` of one apps/v1beta1 Deployment manifest to apps/v1 in a fresh
    interpreter, as the console script runs it (target: at most 0.3 s wall). The legacy
    scheme is built in every process; the manifest is the Kubernetes 1.7 docs' apps/v1beta1 example."""

    params = (["compiled", "pure"],)
    param_names = ["mode"]
    repeat = (3, 5, 20.0)
    setup_cache = staticmethod(_docs.build_documents)

    MANIFEST = (
        "apiVersion: apps/v1beta1\nkind: Deployment\nmetadata:\n  name: nginx-deployment\n"
        "spec:\n  replicas: 1\n  template:\n    metadata:\n      labels:\n        app: nginx\n"
        "    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.7.9\n"
        "        ports:\n        - containerPort: 80\n"
    )

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        _docs.require_kcodec()
        if mode == "compiled" and not _docs.speedups.available():
            raise NotImplementedError("kcodec compiled extension is not built")
        _docs.byte_compile_kcodec()
        import tempfile

        self._dir = tempfile.TemporaryDirectory(prefix="kcodec-convert-")
        self.path = f"{self._dir.name}/deployment.yaml"
        with open(self.path, "w") as f:
            f.write(self.MANIFEST)

    def teardown(self, docs: dict[str, Any], mode: str) -> None:
        self._dir.cleanup()

    def timeraw_convert_one_manifest(self, docs: dict[str, Any], mode: str) -> str:
        pure = "1" if mode == "pure" else ""
        return (
            "import os, sys\n"
            f"os.environ['KCODEC_PURE'] = {pure!r}\n"
            "sys.stdout = open(os.devnull, 'w')\n"
            "from kcodec.cli import main\n"
            f"rc = main(['convert', '-f', {self.path!r}, '--output-version', 'apps/v1'])\n"
            "assert rc == 0, rc\n"
        )
