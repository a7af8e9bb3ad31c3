"""The registry runs the kind validators of certificates, flowcontrol, resource.k8s.io and
the admission policies on create, update and the status / approval subresources, and
answers 422 Invalid with Go's message (apiserver rest.BeforeCreate / BeforeUpdate calling
the k/k strategies' Validate, ValidateUpdate; errors.NewInvalid's text)."""
from __future__ import annotations

import base64

import pytest

from _registry_env import internal, make_getter
from kcodec.api import errors as apierrors
from kcodec.registry import rest
from kcodec.registry.builtin import api_group_infos
from kcodec.registry.request import Context, UserInfo


@pytest.fixture
def infos(tmp_path, request):
    out = api_group_infos(make_getter("sqlite", tmp_path, request))
    yield {i.group: i for i in out}
    for i in out:
        i.destroy()


def storage(infos, group, name):
    gi = infos[group]
    return gi.versioned_resources_storage_map[gi.prioritized_versions[0].version][name]


def test_flow_schema_create_is_validated(infos):
    schemas = storage(infos, "flowcontrol.apiserver.k8s.io", "flowschemas")
    fs = {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": {"name": "mine"},
          "spec": {"priorityLevelConfiguration": {"name": "workload-low"}, "matchingPrecedence": 1,
                   "rules": [{"subjects": [{"kind": "Group", "group": {"name": "dev"}}],
                              "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]}]}}
    with pytest.raises(apierrors.StatusError) as err:
        schemas.create(Context(), internal(fs))
    assert err.value.code == 422 and err.value.reason == "Invalid"
    assert str(err.value) == ('FlowSchema.flowcontrol.apiserver.k8s.io "mine" is invalid: spec.matchingPrecedence: '
                              "Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1")
    fs["spec"]["matchingPrecedence"] = 500
    assert schemas.create(Context(), internal(fs)).spec.matching_precedence == 500


def test_csr_status_sets_the_certificate_once(infos):
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "bob")])
    request = x509.CertificateSigningRequestBuilder().subject_name(name).sign(key, hashes.SHA256())
    csrs = storage(infos, "certificates.k8s.io", "certificatesigningrequests")
    created = csrs.create(Context(user=UserInfo(name="bob")), internal({
        "apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "bob"},
        "spec": {"request": base64.b64encode(request.public_bytes(serialization.Encoding.PEM)).decode(),
                 "signerName": "example.com/signer", "usages": ["client auth"]}}))
    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(7).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM))
    status = storage(infos, "certificates.k8s.io", "certificatesigningrequests/status")
    issued = created.deep_copy()
    issued.status.certificate = cert
    out, _ = status.update(Context(), "bob", rest.DefaultUpdatedObjectInfo(issued))
    assert out.status.certificate == cert
    again = out.deep_copy()
    again.status.certificate = cert.replace(b"-----END CERTIFICATE-----", b"-----END CERTIFICATE-----\n") + cert
    with pytest.raises(apierrors.StatusError) as err:
        status.update(Context(), "bob", rest.DefaultUpdatedObjectInfo(again))
    assert err.value.code == 422
    assert str(err.value).endswith("status.certificate: Forbidden: updates may not modify existing certificate content")
    # the main resource keeps the stored status (k/k csrStrategy.PrepareForUpdate)
    plain = out.deep_copy()
    plain.status.certificate = None
    kept, _ = csrs.update(Context(), "bob", rest.DefaultUpdatedObjectInfo(plain))
    assert kept.status.certificate == cert


def test_resource_claim_spec_is_immutable(infos):
    claims = storage(infos, "resource.k8s.io", "resourceclaims")
    ctx = Context(namespace="default")
    claim = internal({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                      "metadata": {"name": "gpu", "namespace": "default"},
                      "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}})
    created = claims.create(ctx, claim)
    changed = created.deep_copy()
    changed.spec.devices.requests[0].name = "gpu-2"
    with pytest.raises(apierrors.StatusError) as err:
        claims.update(ctx, "gpu", rest.DefaultUpdatedObjectInfo(changed))
    assert err.value.code == 422 and "spec: Invalid value: " in str(err.value)
    assert str(err.value).endswith("field is immutable")


def test_policy_binding_create_is_validated(infos):
    bindings = storage(infos, "admissionregistration.k8s.io", "validatingadmissionpolicybindings")
    b = internal({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                  "metadata": {"name": "b"}, "spec": {"policyName": "p", "validationActions": ["Deny", "Warn"]}})
    with pytest.raises(apierrors.StatusError) as err:
        bindings.create(Context(), b)
    assert str(err.value) == (
        'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: spec.validationActions: '
        'Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure '
        "information in the API response and headers serves no purpose)")
