"""Validation of the certificates group's internal objects (Go: k8s.io/kubernetes
pkg/apis/certificates/validation/validation.go): CertificateSigningRequest (create, update,
``/status`` and ``/approval``) and ClusterTrustBundle.

The request is parsed as Go's ``certificates.ParseCSR`` does: the first PEM block found by
``encoding/pem.Decode`` (reimplemented here, byte for byte, so that the same inputs are
accepted), of type ``CERTIFICATE REQUEST``, then the PKCS#10 DER and its self-signature.
The PEM-level texts are Go's; when the DER itself does not parse, Go prints the text of its
``encoding/asn1`` decoder, which kcodec does not reproduce: the detail then reads
``x509: malformed certificate request (<reason>)``.
"""
from __future__ import annotations

import base64
import binascii
from typing import Any, NamedTuple

from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "ALL_VALID_USAGES",
    "LEGACY_UNKNOWN_SIGNER_NAME",
    "MAX_TRUST_BUNDLE_SIZE",
    "PemBlock",
    "is_kubernetes_signer_name",
    "parse_csr",
    "pem_decode",
    "validate_certificate_signing_request",
    "validate_certificate_signing_request_approval_update",
    "validate_certificate_signing_request_status_update",
    "validate_certificate_signing_request_update",
    "validate_cluster_trust_bundle",
    "validate_cluster_trust_bundle_name",
    "validate_cluster_trust_bundle_update",
    "validate_signer_name",
]

#: pkg/apis/certificates types.go.
LEGACY_UNKNOWN_SIGNER_NAME = "kubernetes.io/legacy-unknown"
MAX_TRUST_BUNDLE_SIZE = 1 * 1024 * 1024

#: validation.go ``allValidUsages``, sorted as ``sets.String.List()`` returns them.
ALL_VALID_USAGES = sorted([
    "signing", "digital signature", "content commitment", "key encipherment", "key agreement",
    "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any",
    "server auth", "client auth", "code signing", "email protection", "s/mime",
    "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing",
    "microsoft sgc", "netscape sgc",
])
_VALID_USAGES = frozenset(ALL_VALID_USAGES)
_TRUE_CONDITION_TYPES = frozenset(("Approved", "Denied", "Failed"))
_TRUE_ONLY = ["True"]
_ALL_STATUS = ["False", "True", "Unknown"]


# ------------------------------------------------------------------------- PEM (Go encoding/pem)

class PemBlock(NamedTuple):
    """Go's ``pem.Block``."""

    type: str
    headers: dict[str, str]
    bytes: bytes


_PEM_START = b"\n-----BEGIN "
_PEM_END = b"\n-----END "
_PEM_EOL = b"-----"


def _get_line(data: bytes) -> tuple[bytes, bytes]:
    """Go pem ``getLine``: the first line without its line ending (LF or CRLF) and trailing
    spaces and tabs, and the rest."""
    i = data.find(b"\n")
    if i < 0:
        line, rest = data, b""
    else:
        line, rest = data[:i], data[i + 1:]
        if line.endswith(b"\r"):
            line = line[:-1]
    return line.rstrip(b" \t"), rest


def pem_decode(data: bytes) -> tuple[PemBlock | None, bytes]:
    """Go's ``pem.Decode``: the first well-formed PEM block in ``data`` and what follows it,
    or ``(None, data)``; malformed blocks are skipped as Go skips them."""
    rest = data
    while True:
        if rest.startswith(_PEM_START[1:]):
            rest = rest[len(_PEM_START) - 1:]
        else:
            i = rest.find(_PEM_START)
            if i < 0:
                return None, data
            rest = rest[i + len(_PEM_START):]
        type_line, rest = _get_line(rest)
        if not type_line.endswith(_PEM_EOL):
            continue
        type_line = type_line[:-len(_PEM_EOL)]
        headers: dict[str, str] = {}
        truncated = False
        while True:
            if not rest:
                truncated = True
                break
            line, nxt = _get_line(rest)
            key, sep, val = line.partition(b":")
            if not sep:
                break
            headers[key.strip().decode("latin-1")] = val.strip().decode("latin-1")
            rest = nxt
        if truncated:
            return None, data
        if not headers and rest.startswith(_PEM_END[1:]):
            end_index, end_trailer_index = 0, len(_PEM_END) - 1
        else:
            end_index = rest.find(_PEM_END)
            end_trailer_index = end_index + len(_PEM_END)
        if end_index < 0:
            continue
        end_trailer = rest[end_trailer_index:]
        trailer_len = len(type_line) + len(_PEM_EOL)
        if len(end_trailer) < trailer_len:
            continue
        rest_of_end_line = end_trailer[trailer_len:]
        end_trailer = end_trailer[:trailer_len]
        if not end_trailer.startswith(type_line) or not end_trailer.endswith(_PEM_EOL):
            continue
        if _get_line(rest_of_end_line)[0]:
            continue
        body = bytes(c for c in rest[:end_index] if c not in b" \t")
        body = body.replace(b"\r", b"").replace(b"\n", b"")
        try:
            decoded = base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            continue
        _, rest = _get_line(rest[end_index + len(_PEM_END) - 1:])
        return PemBlock(type_line.decode("latin-1"), headers, decoded), rest


# ------------------------------------------------------------------------- the request

def parse_csr(pem_bytes: bytes | None) -> Any:
    """Go ``certificates.ParseCSR`` then ``CheckSignature``: the parsed request
    (a ``cryptography`` CertificateSigningRequest); raises ValueError with Go's text."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa

    block, _ = pem_decode(pem_bytes or b"")
    if block is None or block.type != "CERTIFICATE REQUEST":
        raise ValueError("PEM block type must be CERTIFICATE REQUEST")
    from cryptography.exceptions import UnsupportedAlgorithm

    try:
        csr = x509.load_der_x509_csr(block.bytes)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"x509: malformed certificate request ({exc})") from None
    try:
        key = csr.public_key()
        if isinstance(key, dsa.DSAPublicKey):  # Go's x509 no longer verifies DSA signatures
            raise UnsupportedAlgorithm("DSA")
        valid = csr.is_signature_valid
    except (UnsupportedAlgorithm, ValueError, TypeError):
        # Go parses requests with keys or signatures it cannot check, then CheckSignature
        # answers x509.ErrUnsupportedAlgorithm.
        raise ValueError("x509: cannot verify signature: algorithm unimplemented") from None
    if not valid:
        # Go x509 checkSignature's texts per key type.
        if isinstance(key, rsa.RSAPublicKey):
            raise ValueError("crypto/rsa: verification error")
        if isinstance(key, ec.EllipticCurvePublicKey):
            raise ValueError("x509: ECDSA verification failure")
        if isinstance(key, ed25519.Ed25519PublicKey):
            raise ValueError("x509: Ed25519 verification failure")
        raise ValueError("x509: signature verification failure")
    return csr


def _validate_certificate(pem_data: bytes | None) -> str | None:
    """Go ``validateCertificate``: None when ``status.certificate`` is empty or only
    CERTIFICATE blocks without headers, each parsing as X.509; else the error text."""
    from cryptography import x509

    if not pem_data:
        return None
    blocks = 0
    while True:
        block, rest = pem_decode(pem_data)
        if block is None:
            break
        if block.type != "CERTIFICATE":
            return f"only CERTIFICATE PEM blocks are allowed, found {_go_quote(block.type)}"
        if block.headers:
            return "no PEM block headers are permitted"
        blocks += 1
        try:
            x509.load_der_x509_certificate(block.bytes)
        except ValueError as exc:
            return f"x509: malformed certificate ({exc})"
        pem_data = rest
    if blocks == 0:
        return "must contain at least one CERTIFICATE PEM block"
    return None


def _go_quote(s: str) -> str:
    from kcodec import gofmt

    return gofmt.quote(s)


# ------------------------------------------------------------------------- signer names

def is_kubernetes_signer_name(signer_name: str) -> bool:
    """Go core validation ``IsKubernetesSignerName``."""
    host = signer_name.split("/", 1)[0]
    return host == "kubernetes.io" or host.endswith(".kubernetes.io")


def validate_signer_name(path: Path, signer_name: str) -> ErrorList:
    """Go core validation ``ValidateSignerName`` (pkg/apis/core/validation/names.go):
    ``<domain>/<path>``, the domain DNS-1123 labels with at least one dot, the path
    DNS-1123 subdomains, 571 bytes at most."""
    errs = ErrorList()
    if not signer_name:
        errs.append(fld.required(path, ""))
        return errs
    segments = signer_name.split("/")
    if len(segments) != 2:
        errs.append(fld.invalid(path, signer_name,
                                "must be a fully qualified domain and path of the form 'example.com/signer-name'"))
        return errs
    if names.go_len(segments[0]) > 253:
        errs.append(fld.too_long(path, "", 253))
    domain_labels = segments[0].split(".")
    for lbl in domain_labels:
        bad = names.is_dns1123_label(lbl)
        if bad:
            errs.extend(fld.invalid(path, segments[0], f"validating label {_go_quote(lbl)}: {m}") for m in bad)
            break
    if len(domain_labels) < 2:
        errs.append(fld.invalid(path, segments[0], "should be a domain with at least two segments separated by dots"))
    for lbl in segments[1].split("."):
        bad = names.is_dns1123_subdomain(lbl)
        if bad:
            errs.extend(fld.invalid(path, segments[1], f"validating label {_go_quote(lbl)}: {m}") for m in bad)
            break
    max_len = 253 + (253 + 63 + 1) + 1
    if names.go_len(signer_name) > max_len:
        errs.append(fld.too_long(path, "", max_len))
    return errs


# ------------------------------------------------------------------------- CSR

class _Options(NamedTuple):
    """Go ``certificateValidationOptions``."""

    allow_setting_approval_conditions: bool = False
    allow_setting_certificate: bool = False
    allow_both_approved_and_denied: bool = False
    allow_resetting_certificate: bool = False
    allow_legacy_signer_name: bool = False
    allow_duplicate_condition_types: bool = False
    allow_empty_condition_type: bool = False
    allow_arbitrary_certificate: bool = False
    allow_unknown_usages: bool = False
    allow_duplicate_usages: bool = False


def _conditions(csr: Any) -> list[Any]:
    return list((csr.status.conditions if csr.status is not None else None) or ())


def _certificate(csr: Any) -> bytes:
    return bytes((csr.status.certificate if csr.status is not None else None) or b"")


def _options(new: Any, old: Any | None) -> _Options:
    """Go ``getValidationOptions``: what the stored object already breaks is tolerated."""
    if old is None:
        return _Options(allow_arbitrary_certificate=False)
    old_types = [c.type for c in _conditions(old)]
    old_usages = list(old.spec.usages or ())
    return _Options(
        allow_both_approved_and_denied="Approved" in old_types and "Denied" in old_types,
        allow_legacy_signer_name=old.spec.signer_name == LEGACY_UNKNOWN_SIGNER_NAME,
        allow_duplicate_condition_types=len(set(old_types)) != len(old_types),
        allow_empty_condition_type="" in old_types,
        allow_arbitrary_certificate=(_certificate(new) == _certificate(old)
                                     or _validate_certificate(_certificate(old)) is not None),
        allow_duplicate_usages=len(set(old_usages)) != len(old_usages),
        allow_unknown_usages=any(u not in _VALID_USAGES for u in old_usages),
    )


def _validate_csr(csr: Any, opts: _Options) -> ErrorList:
    """Go ``validateCertificateSigningRequest``."""
    errs = om.validate_object_meta(csr.metadata, False, lambda name, prefix: [], Path("metadata"))
    sp = Path("spec")
    try:
        parse_csr(csr.spec.request)
    except ValueError as exc:
        errs.append(fld.invalid(sp.child("request"), bytes(csr.spec.request or b""), str(exc)))
    usages = list(csr.spec.usages or ())
    if not usages:
        errs.append(fld.required(sp.child("usages"), ""))
    if not opts.allow_unknown_usages:
        for i, u in enumerate(usages):
            if u not in _VALID_USAGES:
                errs.append(fld.not_supported(sp.child("usages").index(i), u, ALL_VALID_USAGES))
    if not opts.allow_duplicate_usages:
        seen: set[str] = set()
        for i, u in enumerate(usages):
            if u in seen:
                errs.append(fld.duplicate(sp.child("usages").index(i), u))
            seen.add(u)
    signer = csr.spec.signer_name or ""
    if not opts.allow_legacy_signer_name and signer == LEGACY_UNKNOWN_SIGNER_NAME:
        errs.append(fld.invalid(sp.child("signerName"), signer, "the legacy signerName is not allowed via this API version"))
    else:
        errs.extend(validate_signer_name(sp.child("signerName"), signer))
    if csr.spec.expiration_seconds is not None and csr.spec.expiration_seconds < 600:
        errs.append(fld.invalid(sp.child("expirationSeconds"), int(csr.spec.expiration_seconds),
                                "may not specify a duration less than 600 seconds (10 minutes)"))
    errs.extend(_validate_conditions(Path("status", "conditions"), csr, opts))
    if not opts.allow_arbitrary_certificate:
        why = _validate_certificate(_certificate(csr))
        if why is not None:
            errs.append(fld.invalid(Path("status", "certificate"), "<certificate data>", why))
    return errs


def _validate_conditions(path: Path, csr: Any, opts: _Options) -> ErrorList:
    """Go ``validateConditions``."""
    errs = ErrorList()
    seen: set[str] = set()
    has_approved = has_denied = False
    for i, c in enumerate(_conditions(csr)):
        if not opts.allow_empty_condition_type and not c.type:
            errs.append(fld.required(path.index(i).child("type"), ""))
        allowed = _TRUE_ONLY if c.type in _TRUE_CONDITION_TYPES else _ALL_STATUS
        if not c.status:
            errs.append(fld.required(path.index(i).child("status"), ""))
        elif c.status not in allowed:
            errs.append(fld.not_supported(path.index(i).child("status"), c.status, allowed))
        if not opts.allow_both_approved_and_denied:
            if c.type == "Approved":
                has_approved = True
                if has_denied:
                    errs.append(fld.invalid(path, c.type, "Approved and Denied conditions are mutually exclusive"))
            elif c.type == "Denied":
                has_denied = True
                if has_approved:
                    errs.append(fld.invalid(path, c.type, "Approved and Denied conditions are mutually exclusive"))
        if not opts.allow_duplicate_condition_types:
            if c.type in seen:
                errs.append(fld.duplicate(path.index(i).child("type"), c.type))
            seen.add(c.type)
    return errs


def _find(csr: Any, t: str) -> list[Any]:
    return [c for c in _conditions(csr) if c.type == t]


def _validate_csr_update(new: Any, old: Any, opts: _Options) -> ErrorList:
    """Go ``validateCertificateSigningRequestUpdate``. Go appends a ``diff.Diff`` of the
    conditions to the "may not modify" text; kcodec ends that text at the condition type."""
    errs = _validate_csr(new, opts)
    meta_errs = om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    cp = Path("status", "conditions")
    for t in ("Approved", "Denied", "Failed"):
        if len(_find(new, t)) < len(_find(old, t)):
            errs.append(fld.forbidden(cp, f"updates may not remove a condition of type {_go_quote(t)}"))
    if not opts.allow_setting_approval_conditions:
        for t in ("Approved", "Denied"):
            olds, news = _find(old, t), _find(new, t)
            if len(news) < len(olds):
                continue
            if len(news) > len(olds):
                errs.append(fld.forbidden(cp, f"updates may not add a condition of type {_go_quote(t)}"))
            elif news != olds:
                errs.append(fld.forbidden(cp, f"updates may not modify a condition of type {_go_quote(t)}"))
    if _certificate(new) != _certificate(old):
        if not opts.allow_setting_certificate:
            errs.append(fld.forbidden(Path("status", "certificate"), "updates may not set certificate content"))
        elif not opts.allow_resetting_certificate and _certificate(old):
            errs.append(fld.forbidden(Path("status", "certificate"), "updates may not modify existing certificate content"))
    errs.extend(meta_errs)
    return errs


def validate_certificate_signing_request(csr: Any) -> ErrorList:
    """Go: ``ValidateCertificateSigningRequestCreate``."""
    return _validate_csr(csr, _options(csr, None))


def validate_certificate_signing_request_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateCertificateSigningRequestUpdate``."""
    return _validate_csr_update(new, old, _options(new, old))


def validate_certificate_signing_request_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateCertificateSigningRequestStatusUpdate``: the certificate may be set once."""
    return _validate_csr_update(new, old, _options(new, old)._replace(allow_setting_certificate=True))


def validate_certificate_signing_request_approval_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateCertificateSigningRequestApprovalUpdate``: Approved/Denied may change."""
    return _validate_csr_update(new, old, _options(new, old)._replace(allow_setting_approval_conditions=True))


# ------------------------------------------------------------------------- ClusterTrustBundle

def validate_cluster_trust_bundle_name(signer_name: str):
    """Go core validation ``ValidateClusterTrustBundleName``: the name function for a
    bundle of this signer (``<signer with / as :>:`` prefix, or no ``:`` without a signer)."""
    def check(name: str, prefix: bool) -> list[str]:
        if not signer_name:
            if ":" in name:
                return ['ClusterTrustBundle without signer name must not have ":" in its name']
            return names.name_is_dns_subdomain(name, prefix)
        required = signer_name.replace("/", ":") + ":"
        if not name.startswith(required):
            return [f"ClusterTrustBundle for signerName {signer_name} must be named with prefix {required}"]
        return names.name_is_dns_subdomain(name[len(required):], prefix)
    return check


def _validate_trust_bundle(path: Path, text: str) -> ErrorList:
    """Go ``validateTrustBundle``: CA certificates only, no headers, no duplicates, at least one."""
    from cryptography import x509

    errs = ErrorList()
    data = (text or "").encode()
    if len(data) > MAX_TRUST_BUNDLE_SIZE:
        errs.append(fld.too_long(path, "", MAX_TRUST_BUNDLE_SIZE))
        return errs
    dedupe: dict[bytes, list[int]] = {}
    rest = data
    i = -1
    omitted = "<value omitted>"
    while True:
        block, rest = pem_decode(rest)
        if block is None:
            break
        i += 1
        if block.type != "CERTIFICATE":
            errs.append(fld.invalid(path, omitted, f"entry {i} has bad block type: {block.type}"))
            continue
        if block.headers:
            errs.append(fld.invalid(path, omitted, f"entry {i} has PEM block headers"))
            continue
        try:
            cert = x509.load_der_x509_certificate(block.bytes)
            bc = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
        except x509.ExtensionNotFound:
            errs.append(fld.invalid(path, omitted, f"entry {i} does not have the CA bit set"))
            continue
        except ValueError:
            errs.append(fld.invalid(path, omitted, f"entry {i} does not parse as X.509"))
            continue
        if not bc.ca:
            errs.append(fld.invalid(path, omitted, f"entry {i} does not have the CA bit set"))
            continue
        dedupe.setdefault(block.bytes, []).append(i)
    if errs:
        return errs
    if not dedupe:
        errs.append(fld.invalid(path, omitted, "at least one trust anchor must be provided"))
    for indices in dedupe.values():
        if len(indices) > 1:
            errs.append(fld.invalid(path, omitted, f"duplicate trust anchor (indices [{' '.join(map(str, indices))}])"))
    return errs


def validate_cluster_trust_bundle(bundle: Any, *, suppress_bundle_parsing: bool = False) -> ErrorList:
    """Go: ``ValidateClusterTrustBundle``."""
    signer = bundle.spec.signer_name or ""
    errs = om.validate_object_meta(bundle.metadata, False, validate_cluster_trust_bundle_name(signer), Path("metadata"))
    if signer:
        errs.extend(validate_signer_name(Path("spec", "signerName"), signer))
    if not suppress_bundle_parsing:
        errs.extend(_validate_trust_bundle(Path("spec", "trustBundle"), bundle.spec.trust_bundle))
    return errs


def validate_cluster_trust_bundle_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateClusterTrustBundleUpdate`` (an unchanged bundle is not parsed again;
    signerName is immutable)."""
    errs = validate_cluster_trust_bundle(new, suppress_bundle_parsing=new.spec.trust_bundle == old.spec.trust_bundle)
    errs.extend(om.validate_object_meta_update(new.metadata, old.metadata, Path("metadata")))
    errs.extend(om.validate_immutable_field(new.spec.signer_name, old.spec.signer_name, Path("spec", "signerName")))
    return errs
