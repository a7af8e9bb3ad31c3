"""Defaults of certificates.k8s.io v1beta1.

The ``+default=86400`` marker of ``PodCertificateRequestSpec.maxExpirationSeconds``
(k8s.io/api v0.36.3 certificates/v1beta1), and ``SetDefaults_CertificateSigningRequestSpec``
of ``pkg/apis/certificates/v1beta1/defaults.go`` for the usages (digital signature and key
encipherment when none are given).
"""
from __future__ import annotations

from kcodec.api.certificates import v1beta1

__all__ = ["DEFAULTERS", "MARKERS"]


def _csr_spec_usages(obj: v1beta1.CertificateSigningRequestSpec) -> None:
    if not obj.usages:
        obj.usages = ["digital signature", "key encipherment"]


DEFAULTERS = {v1beta1.CertificateSigningRequestSpec: _csr_spec_usages}
MARKERS = {(v1beta1.PodCertificateRequestSpec, "max_expiration_seconds"): 86400}
