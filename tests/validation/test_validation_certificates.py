"""CertificateSigningRequest and ClusterTrustBundle validation on internal objects, cases
rebuilt from k/k pkg/apis/certificates/validation/validation_test.go
(TestValidateCertificateSigningRequestCreate, TestValidateCertificateSigningRequestUpdate,
TestValidateClusterTrustBundle, TestValidateSignerName in pkg/apis/core/validation
names_test.go), and Go's encoding/pem Decode rules (encoding/pem/pem.go); the corpus's
real CSRs validate as Go validates them."""
from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
import yaml

from kcodec import legacyscheme
from kcodec.api.certificates import validation as cv
from kcodec.registry.builtin import strategies

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "files"


@pytest.fixture(scope="module")
def keys():
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())


def csr_pem(key) -> bytes:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import NameOID

    req = x509.CertificateSigningRequestBuilder().subject_name(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "system:node:n1")])).sign(key, hashes.SHA256())
    return req.public_bytes(serialization.Encoding.PEM)


def ca_pem(key, ca: bool = True, name: str = "ca") -> str:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import NameOID

    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True).sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def csr(request: bytes, **spec):
    import base64

    s = {"request": base64.b64encode(request).decode(), "signerName": "example.com/signer",
         "usages": ["digital signature", "key encipherment"], **spec}
    status = s.pop("status", None)
    doc = {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
           "metadata": {"name": "csr-1", "resourceVersion": "1"}, "spec": s}
    if status is not None:
        doc["status"] = status
    return internal(doc)


def msgs(errs):
    return [str(e) for e in errs]


def test_pem_decode_follows_go():
    body = "-----BEGIN X-----\nAAEC\n-----END X-----\n"
    block, rest = cv.pem_decode(("junk before\n" + body + "after").encode())
    assert block == cv.PemBlock("X", {}, b"\x00\x01\x02") and rest == b"after"
    # headers, then a blank line, then the body
    block, _ = cv.pem_decode(b"-----BEGIN X-----\nProc-Type: 4,ENCRYPTED\n\nAAEC\n-----END X-----\n")
    assert block.headers == {"Proc-Type": "4,ENCRYPTED"} and block.bytes == b"\x00\x01\x02"
    # a mismatched END type or bad base64 skips the block; the next good one is found
    assert cv.pem_decode(b"-----BEGIN X-----\nAAEC\n-----END Y-----\n") == (
        None, b"-----BEGIN X-----\nAAEC\n-----END Y-----\n")
    block, _ = cv.pem_decode(b"-----BEGIN X-----\n!!\n-----END X-----\n" + body.encode())
    assert block is not None and block.bytes == b"\x00\x01\x02"
    assert cv.pem_decode(b"") == (None, b"")
    # CRLF line endings and trailing blanks on the armor lines, as Go's getLine trims them
    block, rest = cv.pem_decode(b"-----BEGIN X-----  \r\nAA\r\nEC\r\n-----END X-----\t\r\nnext")
    assert block == cv.PemBlock("X", {}, b"\x00\x01\x02") and rest == b"next"


def test_csr_create(keys):
    good = csr_pem(keys[0])
    assert msgs(cv.validate_certificate_signing_request(csr(good))) == []
    assert msgs(cv.validate_certificate_signing_request(csr(good, usages=[]))) == ["spec.usages: Required value"]
    unknown = msgs(cv.validate_certificate_signing_request(csr(good, usages=["digital signature", "bogus"])))
    assert len(unknown) == 1 and unknown[0].startswith(
        'spec.usages[1]: Unsupported value: "bogus": supported values: "any", "cert sign", "client auth"')
    assert msgs(cv.validate_certificate_signing_request(csr(good, usages=["any", "any"]))) == [
        'spec.usages[1]: Duplicate value: "any"']
    assert msgs(cv.validate_certificate_signing_request(csr(good, expirationSeconds=599))) == [
        "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)"]
    assert msgs(cv.validate_certificate_signing_request(csr(good, expirationSeconds=600))) == []
    assert msgs(cv.validate_certificate_signing_request(csr(good, signerName="kubernetes.io/legacy-unknown"))) == [
        'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": '
        "the legacy signerName is not allowed via this API version"]
    bad = msgs(cv.validate_certificate_signing_request(csr(b"not a csr")))
    assert bad == ['spec.request: Invalid value: "bm90IGEgY3Ny": PEM block type must be CERTIFICATE REQUEST']
    cert_as_request = ca_pem(keys[0]).encode()
    assert msgs(cv.validate_certificate_signing_request(csr(cert_as_request)))[0].endswith(
        "PEM block type must be CERTIFICATE REQUEST")


def test_csr_signature_checked(keys):
    """A request whose signed body was changed after signing (the subject's last byte)."""
    import base64

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    der = x509.load_pem_x509_csr(csr_pem(keys[0])).public_bytes(serialization.Encoding.DER)
    forged = der.replace(b"system:node:n1", b"system:node:n2")
    assert forged != der
    pem = b"-----BEGIN CERTIFICATE REQUEST-----\n" + base64.encodebytes(forged) + b"-----END CERTIFICATE REQUEST-----\n"
    errs = msgs(cv.validate_certificate_signing_request(csr(pem)))
    assert len(errs) == 1 and errs[0].endswith(": x509: ECDSA verification failure")


def test_csr_with_a_dsa_key_is_unverifiable():
    """Go's x509 CheckSignature answers ErrUnsupportedAlgorithm for DSA."""
    from cryptography.hazmat.primitives.asymmetric import dsa

    errs = msgs(cv.validate_certificate_signing_request(csr(csr_pem(dsa.generate_private_key(1024)))))
    assert len(errs) == 1 and errs[0].endswith(": x509: cannot verify signature: algorithm unimplemented")


def test_signer_name():
    p = cv.Path("signerName")
    assert msgs(cv.validate_signer_name(p, "example.com/valid-name")) == []
    assert msgs(cv.validate_signer_name(p, "")) == ["signerName: Required value"]
    assert msgs(cv.validate_signer_name(p, "example.com")) == [
        'signerName: Invalid value: "example.com": must be a fully qualified domain and path of the form '
        "'example.com/signer-name'"]
    assert msgs(cv.validate_signer_name(p, "example/path")) == [
        'signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']
    assert msgs(cv.validate_signer_name(p, "Example.com/path")) == [
        'signerName: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label must '
        "consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
        "character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
    assert msgs(cv.validate_signer_name(p, "example.com/" + ("a" * 250 + ".") * 2 + "a" * 60)) == (
        ["signerName: Too long: may not be more than 571 bytes"])


def cond(t: str, status: str = "True") -> dict:
    return {"type": t, "status": status}


def test_csr_conditions(keys):
    good = csr_pem(keys[0])
    assert msgs(cv.validate_certificate_signing_request(csr(good, status={"conditions": [cond("Approved")]}))) == []
    assert msgs(cv.validate_certificate_signing_request(csr(good, status={"conditions": [
        cond("Approved", "False"), cond(""), cond("Custom", "Maybe")]}))) == [
        'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
        "status.conditions[1].type: Required value",
        'status.conditions[2].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"']
    assert msgs(cv.validate_certificate_signing_request(csr(good, status={"conditions": [
        cond("Approved"), cond("Denied"), cond("Approved")]}))) == [
        'status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
        'status.conditions: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive',
        'status.conditions[2].type: Duplicate value: "Approved"']
    assert msgs(cv.validate_certificate_signing_request(csr(good, status={"certificate": "bm9wZQ=="}))) == [
        'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']


def test_csr_updates(keys):
    import base64

    good = csr_pem(keys[0])
    old = csr(good)
    approved = csr(good, status={"conditions": [cond("Approved")]})
    # approval only through the approval subresource
    assert msgs(cv.validate_certificate_signing_request_update(approved, old)) == [
        'status.conditions: Forbidden: updates may not add a condition of type "Approved"']
    assert msgs(cv.validate_certificate_signing_request_approval_update(approved, old)) == []
    assert msgs(cv.validate_certificate_signing_request_approval_update(old, approved)) == [
        'status.conditions: Forbidden: updates may not remove a condition of type "Approved"']
    # the certificate: only through status, set once
    cert = base64.b64encode(ca_pem(keys[0]).encode()).decode()
    issued = csr(good, status={"conditions": [cond("Approved")], "certificate": cert})
    assert msgs(cv.validate_certificate_signing_request_update(issued, approved)) == [
        "status.certificate: Forbidden: updates may not set certificate content"]
    assert msgs(cv.validate_certificate_signing_request_status_update(issued, approved)) == []
    other = base64.b64encode(ca_pem(keys[1]).encode()).decode()
    reissued = csr(good, status={"conditions": [cond("Approved")], "certificate": other})
    assert msgs(cv.validate_certificate_signing_request_status_update(reissued, issued)) == [
        "status.certificate: Forbidden: updates may not modify existing certificate content"]
    # what the stored object already breaks is tolerated (getValidationOptions)
    legacy = csr(good, signerName="kubernetes.io/legacy-unknown", usages=["bogus", "bogus"])
    assert msgs(cv.validate_certificate_signing_request_update(legacy, legacy)) == []


def test_cluster_trust_bundle(keys):
    def ctb(name: str, bundle: str, signer: str = ""):
        spec = {"trustBundle": bundle}
        if signer:
            spec["signerName"] = signer
        return internal({"apiVersion": "certificates.k8s.io/v1beta1", "kind": "ClusterTrustBundle",
                         "metadata": {"name": name, "resourceVersion": "1"}, "spec": spec})

    a, b = ca_pem(keys[0]), ca_pem(keys[1], name="b")
    assert msgs(cv.validate_cluster_trust_bundle(ctb("foo", a + b))) == []
    assert msgs(cv.validate_cluster_trust_bundle(ctb("k8s.io:foo:bar", a, "k8s.io/foo"))) == []
    assert msgs(cv.validate_cluster_trust_bundle(ctb("foo:bar", a))) == [
        'metadata.name: Invalid value: "foo:bar": ClusterTrustBundle without signer name must not have ":" in its name']
    assert msgs(cv.validate_cluster_trust_bundle(ctb("foo", a, "k8s.io/foo"))) == [
        'metadata.name: Invalid value: "foo": ClusterTrustBundle for signerName k8s.io/foo must be named with '
        "prefix k8s.io:foo:"]
    assert msgs(cv.validate_cluster_trust_bundle(ctb("foo", ""))) == [
        'spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided']
    assert msgs(cv.validate_cluster_trust_bundle(ctb("foo", a + a))) == [
        'spec.trustBundle: Invalid value: "<value omitted>": duplicate trust anchor (indices [0 1])']
    leaf = ca_pem(keys[0], ca=False)
    assert msgs(cv.validate_cluster_trust_bundle(ctb("foo", a + leaf))) == [
        'spec.trustBundle: Invalid value: "<value omitted>": entry 1 does not have the CA bit set']
    key_block = "-----BEGIN PRIVATE KEY-----\nAAEC\n-----END PRIVATE KEY-----\n"
    assert msgs(cv.validate_cluster_trust_bundle(ctb("foo", key_block))) == [
        'spec.trustBundle: Invalid value: "<value omitted>": entry 0 has bad block type: PRIVATE KEY']
    old = ctb("k8s.io:foo:bar", a, "k8s.io/foo")
    new = ctb("k8s.io:foo:bar", a, "k8s.io/bar")
    assert msgs(cv.validate_cluster_trust_bundle_update(new, old))[-1] == (
        'spec.signerName: Invalid value: "k8s.io/bar": field is immutable')


def test_strategies_find_the_validators():
    group = "certificates.k8s.io"
    assert strategies.validation_function(group, "CertificateSigningRequest") is cv.validate_certificate_signing_request
    assert strategies.validation_function(group, "CertificateSigningRequest", "_status_update") is (
        cv.validate_certificate_signing_request_status_update)
    assert strategies.validation_function(group, "CertificateSigningRequest", "_approval_update") is (
        cv.validate_certificate_signing_request_approval_update)
    assert strategies.validation_function(group, "ClusterTrustBundle", "_update") is cv.validate_cluster_trust_bundle_update


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus not found")
def test_corpus_csrs_validate_as_go():
    """Real CSR manifests: the v1 ones pass; a v1beta1 one without signerName defaults to
    the legacy signer, which Go refuses on create as well."""
    results = {}
    for f in sorted(CORPUS.rglob("*csr*.y*ml")):
        for doc in yaml.safe_load_all(f.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == "CertificateSigningRequest":
                obj = internal(doc)
                results[(f.name, doc["apiVersion"])] = msgs(cv.validate_certificate_signing_request(obj))
    assert results, "no CSR in the corpus"
    for (name, version), errs in results.items():
        if version == "certificates.k8s.io/v1":
            assert errs == [], (name, errs)
        else:
            assert errs == ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": '
                            "the legacy signerName is not allowed via this API version"], (name, errs)
