"""A KMS v2 plugin reached over gRPC on a unix socket, as kube-apiserver reaches it.

Follows apiserver ``pkg/storage/value/encrypt/envelope/kmsv2/grpc_service.go`` and the
``v2.KeyManagementService`` of k8s.io/kms ``apis/v2/api.proto`` (Status, Decrypt, Encrypt).
The five small messages are written and read here with the envelope's wire helpers, so
only ``grpcio`` is needed (the ``etcd`` extra), imported on first use.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from kcodec.errors import KCodecError
from kcodec.storage.value.kms import (
    DecryptRequest,
    EncryptResponse,
    StatusResponse,
    _bytes_field,
    _fields,
    _utf8,
    _WireError,
)

__all__ = ["GRPCKMSService", "parse_kms_endpoint"]

_SERVICE = "/v2.KeyManagementService/"


def parse_kms_endpoint(endpoint: str) -> str:
    """k8s.io/kms ``util.ParseEndpoint``: the socket path of ``unix:///path`` (``@name`` abstract)."""
    if not endpoint:
        raise KCodecError("remote KMS provider can't use empty string as endpoint")
    try:
        u = urlsplit(endpoint)
    except ValueError as err:
        raise KCodecError(f'invalid endpoint "{endpoint}" for remote KMS provider, error: {err}') from None
    if u.scheme != "unix":
        raise KCodecError(f'unsupported scheme "{u.scheme}" for remote KMS provider')
    if u.path.startswith("/@"):
        return u.path[1:]
    return u.path


def _go_code(code: Any) -> str:
    name = code.name if code is not None else "UNKNOWN"
    if name == "CANCELLED":
        return "Canceled"
    return "".join(part.capitalize() for part in name.split("_"))


def _str_field(num: int, value: str) -> bytes:
    return _bytes_field(num, value.encode("utf-8")) if value else b""


def _annotations(num: int, annotations: dict[str, bytes]) -> bytes:
    out = b""
    for k in sorted(annotations):
        out += _bytes_field(num, _str_field(1, k) + (_bytes_field(2, annotations[k]) if annotations[k] else b""))
    return out


def _parse(data: bytes, strings: set[int], maps: set[int]) -> dict[int, Any]:
    out: dict[int, Any] = {}
    try:
        for num, wt, value in _fields(data, 0, len(data)):
            if wt != 2:
                continue
            if num in maps:
                k, v = "", b""
                for enum, ewt, evalue in _fields(value, 0, len(value)):
                    if enum == 1 and ewt == 2:
                        k = _utf8(evalue)
                    elif enum == 2 and ewt == 2:
                        v = evalue
                out.setdefault(num, {})[k] = v
            elif num in strings:
                out[num] = _utf8(value)
            else:
                out[num] = value
    except _WireError as err:
        raise KCodecError(f"rpc error: code = Internal desc = grpc: error unmarshalling response: {err}") from None
    return out


class GRPCKMSService:
    """:class:`~kcodec.storage.value.kms.KMSService` over a KMS v2 plugin's unix socket.

    ``GRPCKMSService("unix:///var/run/kms.sock", timeout=3.0)``; each call waits for the
    plugin to be ready, up to ``timeout`` seconds (the provider's ``timeout``). Failures
    raise :class:`~kcodec.errors.KCodecError` with gRPC's status as Go prints it
    (``rpc error: code = Unavailable desc = ...``). :meth:`close` closes the channel.
    """

    def __init__(self, endpoint: str, *, timeout: float = 3.0) -> None:
        path = parse_kms_endpoint(endpoint)
        try:
            import grpc
        except ImportError:
            raise KCodecError(f"the KMS plugin at {endpoint} is reached over gRPC: install the 'grpcio' package "
                              "(pip install 'kcodec[etcd]')") from None
        self.endpoint = endpoint
        self.timeout = timeout
        self._grpc = grpc
        target = "unix-abstract:" + path[1:] if path.startswith("@") else "unix://" + path
        self._channel = grpc.insecure_channel(target, options=[("grpc.default_authority", "localhost")])
        self._calls = {m: self._channel.unary_unary(_SERVICE + m) for m in ("Status", "Decrypt", "Encrypt")}

    def __repr__(self) -> str:
        return f"GRPCKMSService({self.endpoint!r})"

    def close(self) -> None:
        """Close the channel to the plugin."""
        self._channel.close()

    def _call(self, method: str, request: bytes) -> bytes:
        try:
            return self._calls[method](request, timeout=self.timeout, wait_for_ready=True)
        except self._grpc.RpcError as err:
            code = err.code() if hasattr(err, "code") else None
            details = err.details() if hasattr(err, "details") else str(err)
            raise KCodecError(f"rpc error: code = {_go_code(code)} desc = {details}") from None

    def status(self) -> StatusResponse:
        f = _parse(self._call("Status", b""), {1, 2, 3}, set())
        return StatusResponse(f.get(1, ""), f.get(2, ""), f.get(3, ""))

    def encrypt(self, uid: str, plaintext: bytes) -> EncryptResponse:
        request = (_bytes_field(1, bytes(plaintext)) if plaintext else b"") + _str_field(2, uid)
        f = _parse(self._call("Encrypt", request), {2}, {3})
        return EncryptResponse(f.get(1, b""), f.get(2, ""), f.get(3, {}))

    def decrypt(self, uid: str, request: DecryptRequest) -> bytes:
        body = ((_bytes_field(1, bytes(request.ciphertext)) if request.ciphertext else b"")
                + _str_field(2, uid) + _str_field(3, request.key_id) + _annotations(4, dict(request.annotations)))
        return _parse(self._call("Decrypt", body), set(), set()).get(1, b"")
