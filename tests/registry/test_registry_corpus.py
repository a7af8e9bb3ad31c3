"""Real manifests (../shared/corpus) created through the registry as kube-apiserver would
take them: each file in a namespace of its own (cluster-scoped objects share the cluster),
every document of a served kind decoded to its internal version, defaulted, and created
through its store with its strategy, allocation (Services) and validation. The answers
are Go's: created, AlreadyExists for cluster-scoped names two files share, and 422 only
for what kube-apiserver refuses too (listed with the rule)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from _registry_env import make_getter
import kcodec
from kcodec import legacyscheme
from kcodec.api import errors as apierrors
from kcodec.registry.builtin import RESOURCES, new_store, resource_info
from kcodec.registry.request import Context

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "files"

#: What kube-apiserver 1.36 refuses in these manifests too.
EXPECTED_INVALID = (
    # apps/v1 and batch/v1 objects without a selector (kustomize bases, old examples)
    re.compile(r"spec\.selector: Required value"),
    # protocols are case-sensitive (supportedPortProtocols)
    re.compile(r'protocol: Unsupported value: "tcp"'),
    # a dual-stack example on this single-stack (10.0.0.0/24) cluster (alloc.go initIPFamilyFields)
    re.compile(r"ipfamily IPv6 is not configured on cluster"),
    # an APIService test artifact without priorities (kube-aggregator's ValidateAPIService)
    re.compile(r"spec\.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000"),
    # documentation templates with placeholders (__INGRESS_HOST__, registry.<your domain>)
    re.compile(r'Invalid value: "(__INGRESS_[A-Z_]+__|[^"]*<your domain>)"'),
    # fixed nodePorts that an earlier file's Service holds already (one node-port space per cluster)
    re.compile(r"nodePort: Invalid value: \d+: provided port is already allocated"),
    # apiextensions.k8s.io/v1beta1 CRDs: that version defaults preserveUnknownFields to true,
    # which apiextensions validation refuses (validatePreserveUnknownFields; 1.36 serves no v1beta1)
    re.compile(r"spec\.preserveUnknownFields: Invalid value: true: cannot set to true"),
    # a JSON patch of a CRD (prometheus-operator's conversion patch.json), not a CRD: no spec
    re.compile(r'CustomResourceDefinition.apiextensions.k8s.io "alertmanagerconfigs.monitoring.coreos.com" is '
               r"invalid: .*spec\.group: Required value"),
    # certificates/v1 refuses the legacy signer (ValidateCertificateSigningRequestCreate)
    re.compile(r'spec\.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not '
               r"allowed via this API version"),
)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus not found beside the checkout")
def test_corpus_through_the_registry(tmp_path, request):
    getter = make_getter("sqlite", tmp_path, request)
    kinds = {(r.group, r.kind): r for r in RESOURCES if not r.virtual}
    ipaddresses = new_store(resource_info("networking.k8s.io", "ipaddresses"), getter)
    stores: dict[str, object] = {}
    decoder = legacyscheme.codecs.universal_decoder()
    created = 0
    seen: set[tuple[str, str, str]] = set()
    unexpected: list[str] = []
    for i, path in enumerate(sorted(p for p in CORPUS.rglob("*") if p.is_file())):
        try:
            docs = kcodec.load_all(path.read_bytes())
        except Exception:  # noqa: BLE001 - the corpus holds a few files that are not manifests
            continue
        for doc in docs:
            try:
                obj, gvk = decoder.decode(kcodec.dump(doc, format="json"))
            except Exception:  # noqa: BLE001 - kinds 1.36 no longer serves, custom resources
                continue
            info = kinds.get((gvk.group, gvk.kind))
            if info is None:
                continue
            store = stores.get(info.resource)
            if store is None:
                store = stores[info.resource] = new_store(info, getter, ipaddress_store=ipaddresses)
            namespace = ""
            if info.namespaced:
                # one namespace per file and per namespace the file names
                namespace = f"ns{i}-{obj.metadata.namespace}" if obj.metadata.namespace else f"ns{i}"
                obj.metadata.namespace = ""
            ctx = Context(namespace=namespace)
            key = (info.resource, namespace, obj.metadata.name)
            try:
                out = store.create(ctx, obj)
            except apierrors.StatusError as exc:
                if apierrors.is_already_exists(exc) and key in seen:
                    continue  # a name created before (cluster-scoped, or a file repeating a document)
                if exc.code == 422 and any(p.search(str(exc)) for p in EXPECTED_INVALID):
                    continue
                unexpected.append(f"{path.relative_to(CORPUS)}: {exc.code} {exc}")
                continue
            created += 1
            seen.add(key)
            assert store.get(ctx, out.metadata.name) == out
    assert not unexpected, "\n".join(unexpected[:20])
    assert created > 800
