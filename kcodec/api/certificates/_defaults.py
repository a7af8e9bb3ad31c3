"""Defaults of certificates.k8s.io v1 and v1beta1.

Follows kubernetes/kubernetes ``pkg/apis/certificates/<version>/defaults.go`` and the
kubelet CSR checks of ``pkg/apis/certificates/helpers.go``: a v1beta1 request without
usages asks for digital signature and key encipherment, and one without a signer gets
the kubelet client or serving signer when its PEM request is a kubelet's, else
``kubernetes.io/legacy-unknown``. Conditions without a status are "True". Also the
``+default=86400`` marker of ``PodCertificateRequestSpec.maxExpirationSeconds``
(k8s.io/api v0.36.3 certificates/v1beta1).

Reading the request needs the ``cryptography`` package (x509 CSR parsing, as Go's
``crypto/x509``); it is imported only when a v1beta1 CSR without a signer is defaulted.
"""
from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from kcodec.api.certificates import v1, v1beta1
from kcodec.api.removed import certificates_v1alpha1 as v1alpha1_removed
from kcodec.errors import KCodecError

__all__ = ["DEFAULTERS", "MARKERS", "default_signer_name"]

LEGACY_UNKNOWN = "kubernetes.io/legacy-unknown"
KUBELET_CLIENT = "kubernetes.io/kube-apiserver-client-kubelet"
KUBELET_SERVING = "kubernetes.io/kubelet-serving"

_CLIENT_USAGES = ({"digital signature", "client auth"}, {"digital signature", "key encipherment", "client auth"})
_SERVING_USAGES = ({"digital signature", "server auth"}, {"digital signature", "key encipherment", "server auth"})

_PEM = re.compile(rb"-----BEGIN ([^\r\n-]*)-----\r?\n(.*?)-----END \1-----", re.S)


def _first_pem_block(data: bytes) -> tuple[str, bytes] | None:
    """Go ``pem.Decode``: the first well-formed block (type, body), or None."""
    m = _PEM.search(data)
    if m is None:
        return None
    lines = m.group(2).split(b"\n")
    # optional RFC 1421 headers end at the first empty line
    if any(b":" in ln for ln in lines[:1]):
        try:
            lines = lines[lines.index(b"") + 1:]
        except ValueError:
            return None
    try:
        body = base64.b64decode(b"".join(ln.strip() for ln in lines), validate=True)
    except (binascii.Error, ValueError):
        return None
    return m.group(1).decode("latin-1"), body


def _parse_csr(request: bytes | None) -> Any:
    try:
        from cryptography import x509
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise KCodecError("defaulting a certificates.k8s.io/v1beta1 CertificateSigningRequest's "
                          "signerName needs the 'cryptography' package to read the request") from exc
    block = _first_pem_block(request or b"")
    if block is None or block[0] != "CERTIFICATE REQUEST":
        return None
    try:
        return x509.load_der_x509_csr(block[1])
    except ValueError:
        return None


def _kubelet_kind(csr: Any, usages: set[str]) -> str | None:
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    try:
        orgs = [a.value for a in csr.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
        cns = csr.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
        cn = cns[0].value if cns else ""
        try:
            san = csr.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            dns = san.get_values_for_type(x509.DNSName)
            ips = san.get_values_for_type(x509.IPAddress)
            emails = san.get_values_for_type(x509.RFC822Name)
            uris = san.get_values_for_type(x509.UniformResourceIdentifier)
        except x509.ExtensionNotFound:
            dns, ips, emails, uris = [], [], [], []
    except ValueError:
        return None
    if orgs != ["system:nodes"] or not str(cn).startswith("system:node:"):
        return None
    # Go tries the client shape first (no SANs at all), then the serving shape.
    if not dns and not ips and not emails and not uris and usages in _CLIENT_USAGES:
        return KUBELET_CLIENT
    if (dns or ips) and not emails and not uris and usages in _SERVING_USAGES:
        return KUBELET_SERVING
    return None


def default_signer_name(spec: v1beta1.CertificateSigningRequestSpec) -> str:
    """Go ``DefaultSignerNameFromSpec``: the signer a v1beta1 request without one gets."""
    csr = _parse_csr(spec.request)
    if csr is None:
        return LEGACY_UNKNOWN
    return _kubelet_kind(csr, set(spec.usages or ())) or LEGACY_UNKNOWN


def set_defaults_csr_spec(obj: v1beta1.CertificateSigningRequestSpec) -> None:
    if obj.usages is None:
        obj.usages = ["digital signature", "key encipherment"]
    if obj.signer_name is None:
        obj.signer_name = default_signer_name(obj)


def set_defaults_csr_condition(obj: Any) -> None:
    if obj.status == "":
        obj.status = "True"


DEFAULTERS = {
    v1beta1.CertificateSigningRequestSpec: set_defaults_csr_spec,
    v1beta1.CertificateSigningRequestCondition: set_defaults_csr_condition,
    v1.CertificateSigningRequestCondition: set_defaults_csr_condition,
}
MARKERS = {(v1beta1.PodCertificateRequestSpec, "max_expiration_seconds"): 86400,
           # the removed v1alpha1 PodCertificateRequest (k8s.io/api v0.34.10 types.go)
           (v1alpha1_removed.PodCertificateRequestSpec, "max_expiration_seconds"): 86400}
