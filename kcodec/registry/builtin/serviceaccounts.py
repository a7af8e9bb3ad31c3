"""``serviceaccounts/token``: bound service account tokens (TokenRequest).

Go: k/k ``pkg/registry/core/serviceaccount/storage/token.go`` (``TokenREST.Create``),
``pkg/serviceaccount/claims.go`` (the claims) and ``jwt.go`` (RS256, the key id being the
unpadded base64url of the SHA-256 of the public key's DER form). The :class:`TokenIssuer`
signs with an RSA key (generated on first use unless given, as kube-apiserver reads
``--service-account-signing-key-file``) and verifies its own tokens, so a server can
authenticate them and answer TokenReviews.
"""
from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import uuid
from typing import Any

from kcodec.api import errors as apierrors
from kcodec.registry import rest
from kcodec.registry._meta import now
from kcodec.registry.request import Context, UserInfo
from kcodec.schema import GroupKind, GroupVersionKind

__all__ = ["TokenIssuer", "TokenREST", "DEFAULT_ISSUER"]

#: kube-apiserver's usual ``--service-account-issuer``.
DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"
_GK = GroupKind("authentication.k8s.io", "TokenRequest")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class TokenIssuer:
    """Signs and verifies service account JWTs (RS256).

    ``issuer`` is the ``iss`` claim; ``api_audiences`` the audiences a request without any
    gets (kube-apiserver's ``--api-audiences``, by default the issuer); ``private_key`` a
    ``cryptography`` RSA private key (generated, 2048 bits, on first use when None).
    """

    def __init__(self, issuer: str = DEFAULT_ISSUER, api_audiences: list[str] | None = None,
                 private_key: Any = None) -> None:
        self.issuer = issuer
        self.api_audiences = list(api_audiences or [issuer])
        self._key = private_key
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"TokenIssuer({self.issuer!r}, audiences={self.api_audiences!r})"

    def _private_key(self) -> Any:
        with self._lock:
            if self._key is None:
                from cryptography.hazmat.primitives.asymmetric import rsa

                self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            return self._key

    def key_id(self) -> str:
        """Go's ``keyIDFromPublicKey``: base64url(SHA-256(DER public key))."""
        from cryptography.hazmat.primitives import serialization

        der = self._private_key().public_key().public_bytes(serialization.Encoding.DER,
                                                           serialization.PublicFormat.SubjectPublicKeyInfo)
        return _b64(hashlib.sha256(der).digest())

    def generate(self, claims: dict[str, Any]) -> str:
        """A signed JWT of ``claims`` (``iss`` added)."""
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        header = {"alg": "RS256", "kid": self.key_id()}
        body = dict(claims, iss=self.issuer)
        signing_input = (_b64(json.dumps(header, separators=(",", ":")).encode()) + "."
                         + _b64(json.dumps(body, separators=(",", ":")).encode()))
        signature = self._private_key().sign(signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
        return signing_input + "." + _b64(signature)

    def verify(self, token: str, audiences: list[str] | None = None) -> UserInfo | None:
        """The service account user of a valid token of this issuer (signature, ``iss``,
        ``nbf``/``exp``, one of ``audiences``, default the API audiences); None otherwise."""
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        parts = token.split(".")
        if len(parts) != 3 or len(token) > 64 * 1024:
            return None
        try:
            header = json.loads(_unb64(parts[0]))
            claims = json.loads(_unb64(parts[1]))
            signature = _unb64(parts[2])
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(header, dict) or header.get("alg") != "RS256" or not isinstance(claims, dict):
            return None
        try:
            self._private_key().public_key().verify(signature, (parts[0] + "." + parts[1]).encode("ascii"),
                                                    padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            return None
        right_now = time.time()
        if claims.get("iss") != self.issuer:
            return None
        if not isinstance(claims.get("exp"), (int, float)) or right_now >= claims["exp"]:
            return None
        if isinstance(claims.get("nbf"), (int, float)) and right_now < claims["nbf"] - 60:
            return None
        aud = claims.get("aud")
        token_auds = aud if isinstance(aud, list) else [aud]
        if not set(token_auds) & set(audiences or self.api_audiences):
            return None
        k8s = claims.get("kubernetes.io") or {}
        ns = k8s.get("namespace", "")
        sa = k8s.get("serviceaccount") or {}
        extra: dict[str, list[str]] = {}
        if claims.get("jti"):
            extra["authentication.kubernetes.io/credential-id"] = [f"JTI={claims['jti']}"]
        pod = k8s.get("pod")
        if isinstance(pod, dict):
            extra["authentication.kubernetes.io/pod-name"] = [pod.get("name", "")]
            extra["authentication.kubernetes.io/pod-uid"] = [pod.get("uid", "")]
        return UserInfo(name=f"system:serviceaccount:{ns}:{sa.get('name', '')}", uid=sa.get("uid", ""),
                        groups=["system:serviceaccounts", f"system:serviceaccounts:{ns}"], extra=extra)


def _validate_token_request(req: Any) -> Any:
    """k/k ``ValidateTokenRequest``: at least 10 minutes, at most 2^32 seconds."""
    f = rest._field()
    errs = f.ErrorList()
    path = f.Path("spec", "expirationSeconds")
    if req.spec.expiration_seconds < 10 * 60:
        errs.append(f.invalid(path, req.spec.expiration_seconds, "may not specify a duration less than 10 minutes"))
    if req.spec.expiration_seconds > 1 << 32:
        errs.append(f.invalid(path, req.spec.expiration_seconds, "may not specify a duration larger than 2^32 seconds"))
    return errs


class TokenREST:
    """``serviceaccounts/token`` (Go's TokenREST): a TokenRequest in, the same request with
    ``status.token`` and ``status.expirationTimestamp`` out; bound to a Pod when
    ``spec.boundObjectRef`` names one (its uid must match)."""

    def __init__(self, serviceaccounts: Any, issuer: TokenIssuer, pods: Any = None) -> None:
        self.serviceaccounts = serviceaccounts
        self.issuer = issuer
        self.pods = pods

    def __repr__(self) -> str:
        return f"TokenREST({self.issuer!r})"

    def group_version_kind(self, containing_gv: Any = None) -> GroupVersionKind:
        return GroupVersionKind("authentication.k8s.io", "v1", "TokenRequest")

    def new(self) -> Any:
        from kcodec.api.authentication import internal as authn

        return authn.TokenRequest()

    def namespace_scoped(self) -> bool:
        return True

    def verbs(self) -> list[str]:
        return ["create"]

    def create(self, ctx: Context, name: str, obj: Any, create_validation: Any = None, options: Any = None) -> Any:
        from kcodec.api.authentication import internal as authn

        if not isinstance(obj, authn.TokenRequest):
            raise apierrors.new_bad_request(f"not a TokenRequest: {type(obj).__name__}")
        req = obj.deep_copy()
        f = rest._field()
        if not ctx.namespace:
            raise apierrors.new_bad_request("namespace is required")
        if req.metadata.name and req.metadata.name != name:
            raise apierrors.new_invalid(_GK, name, f.ErrorList([f.invalid(
                f.Path("metadata", "name"), req.metadata.name, "must match the service account name if specified")]))
        if req.metadata.namespace and req.metadata.namespace != ctx.namespace:
            raise apierrors.new_invalid(_GK, name, f.ErrorList([f.invalid(
                f.Path("metadata", "namespace"), req.metadata.namespace,
                "must match the service account namespace if specified")]))
        sa = self.serviceaccounts.get(ctx, name)
        if not req.spec.audiences:
            req.spec.audiences = list(self.issuer.api_audiences)
        req.metadata.name = req.metadata.name or sa.metadata.name
        req.metadata.namespace = req.metadata.namespace or sa.metadata.namespace
        issued = now()
        req.metadata.creation_timestamp = issued
        req.status = authn.TokenRequestStatus()
        if not req.spec.expiration_seconds:
            req.spec.expiration_seconds = 3600  # v1 defaulting (SetDefaults_TokenRequestSpec)
        errs = _validate_token_request(req)
        if errs:
            raise apierrors.new_invalid(_GK, "", errs)
        if create_validation is not None:
            create_validation(ctx, req.deep_copy())
        iat = int(issued.datetime.timestamp())
        exp = iat + int(req.spec.expiration_seconds)
        k8s: dict[str, Any] = {"namespace": sa.metadata.namespace,
                               "serviceaccount": {"name": sa.metadata.name, "uid": sa.metadata.uid}}
        ref = req.spec.bound_object_ref
        if ref is not None:
            k8s.update(self._bound(ctx, ref))
        claims = {"aud": list(req.spec.audiences), "exp": exp, "iat": iat, "nbf": iat,
                  "jti": str(uuid.uuid4()), "sub": f"system:serviceaccount:{sa.metadata.namespace}:{sa.metadata.name}",
                  "kubernetes.io": k8s}
        out = req.deep_copy()
        from kcodec.api.meta.v1 import Time

        out.status = authn.TokenRequestStatus(token=self.issuer.generate(claims),
                                              expiration_timestamp=Time.parse(
                                                  time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(exp))))
        return out

    def _bound(self, ctx: Context, ref: Any) -> dict[str, Any]:
        """The bound object's claims (a Pod here; Go also binds Secrets and Nodes)."""
        f = rest._field()
        if ref.kind != "Pod" or self.pods is None:
            raise apierrors.new_bad_request(f"cannot bind token to object of type {ref.kind}")
        pod = self.pods.get(ctx, ref.name)
        if ref.uid and ref.uid != pod.metadata.uid:
            raise apierrors.new_invalid(_GK, "", f.ErrorList([f.invalid(
                f.Path("spec", "boundObjectRef", "uid"), ref.uid,
                f"the UID in the bound object reference ({ref.uid}) does not match the UID in record. "
                f"The object might have been deleted and then recreated")]))
        out: dict[str, Any] = {"pod": {"name": pod.metadata.name, "uid": pod.metadata.uid}}
        if pod.spec.node_name:
            out["node"] = {"name": pod.spec.node_name}
        return out
