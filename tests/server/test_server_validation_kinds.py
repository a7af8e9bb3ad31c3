"""kubectl v1.32 against kcodec for the kinds validated by the certificates, flowcontrol,
resource.k8s.io, admission-policy and authorization validators: real manifests are
accepted, invalid ones are refused with kube-apiserver's text (k8s.io/kubectl prints the
422 Status message: ``The <Kind> "<name>" is invalid: <causes>``), ``kubectl certificate
approve`` goes through the approval subresource's validation, and ``kubectl auth can-i``
through the SelfSubjectAccessReview's."""
from __future__ import annotations

import base64
import uuid
from pathlib import Path

import pytest

from kcodec.testing import APIServer
from _kubectl import KUBECTL, kubectl

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "files"


@pytest.fixture(scope="module")
def server():
    if KUBECTL is None:
        pytest.skip("kubectl is not on PATH")
    with APIServer() as s:
        yield s


def test_invalid_flow_schema_is_refused(server):
    name = "mine-" + uuid.uuid4().hex[:6]
    fs = f"""apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {{name: {name}}}
spec:
  priorityLevelConfiguration: {{name: workload-low}}
  matchingPrecedence: 1
  rules:
  - subjects: [{{kind: Group, group: {{name: dev}}}}]
    nonResourceRules: [{{verbs: [get], nonResourceURLs: [/healthz]}}]
"""
    r = kubectl(server, "create", "-f", "-", stdin=fs, ok=False)
    assert r.returncode != 0
    assert (f'The FlowSchema "{name}" is invalid: spec.matchingPrecedence: Invalid value: 1: only the schema named '
            "'exempt' may have matchingPrecedence 1") in r.stderr
    kubectl(server, "create", "-f", "-", stdin=fs.replace("matchingPrecedence: 1", "matchingPrecedence: 900"))


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus not found")
def test_corpus_dra_and_policy_manifests_are_accepted(server):
    # (the corpus's DeviceClass example is resource.k8s.io/v1beta2, which 1.36 does not serve by default)
    for rel in ("kubernetes__website/content__en__examples__dra__resourceclaimtemplate.yaml",
                "kubernetes__kube-state-metrics/tests__manifests__validatingadmissionpolicy.yaml",
                "kubernetes__kube-state-metrics/tests__manifests__validatingadmissionpolicybinding.yaml"):
        # create, or (second run on the same server) find them unchanged
        r = kubectl(server, "apply", "-n", "default", "-f", str(CORPUS / rel))
        assert r.returncode == 0


def test_csr_create_approve_and_refuse(server):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    request = x509.CertificateSigningRequestBuilder().subject_name(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "carol")])).sign(
        ec.generate_private_key(ec.SECP256R1()), hashes.SHA256()).public_bytes(serialization.Encoding.PEM)
    name = "carol-" + uuid.uuid4().hex[:6]
    csr = ("apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: " + name + "}\n"
           f"spec:\n  request: {base64.b64encode(request).decode()}\n  signerName: example.com/signer\n"
           "  usages: [client auth]\n")
    bad = kubectl(server, "create", "-f", "-", stdin=csr.replace("[client auth]", "[]"), ok=False)
    assert f'The CertificateSigningRequest "{name}" is invalid: spec.usages: Required value' in bad.stderr
    kubectl(server, "create", "-f", "-", stdin=csr)
    kubectl(server, "certificate", "approve", name)
    out = kubectl(server, "get", "csr", name, "-o", "jsonpath={.status.conditions[*].type}").stdout
    assert out == "Approved"
    # Approved and Denied are mutually exclusive (validateConditions through /approval;
    # kubectl's own "certificate deny" refuses an approved CSR before asking)
    import json

    obj = json.loads(kubectl(server, "get", "csr", name, "-o", "json").stdout)
    obj["status"]["conditions"].append({"type": "Denied", "status": "True", "reason": "Changed"})
    denied = kubectl(server, "replace", "--raw", f"/apis/certificates.k8s.io/v1/certificatesigningrequests/{name}/approval",
                     "-f", "-", stdin=json.dumps(obj), ok=False)
    assert denied.returncode != 0
    assert 'status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive' in (
        denied.stderr)


def test_can_i_goes_through_access_review_validation(server):
    assert kubectl(server, "auth", "can-i", "get", "pods").stdout.strip() == "yes"
