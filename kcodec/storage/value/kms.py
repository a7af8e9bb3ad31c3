"""KMS v2 envelope encryption, as kube-apiserver stores it (``k8s:enc:kms:v2:<name>:``).

Follows apiserver ``pkg/storage/value/encrypt/envelope/kmsv2`` (envelope.go, v2/api.proto).
A data encryption key (DEK) source, encrypted by an external KMS, travels with every value
inside an ``EncryptedObject`` protobuf message::

    1 encryptedData (bytes)  2 keyID (string)  3 encryptedDEKSource (bytes)
    4 annotations (map<string, bytes>)  5 encryptedDEKSourceType (enum)

``AES_GCM_KEY`` (0): the DEK source is an AES-GCM key; ``HKDF_SHA256_XNONCE_AES_GCM_SEED``
(1, what 1.29+ writes): it is a seed, each value carrying 32 bytes of HKDF info before the
GCM nonce. The KMS itself is pluggable (:class:`KMSService`); :class:`LocalKMS` keeps its
key encryption keys in memory, for tests and single-machine use. kube-apiserver talks gRPC
to a plugin over a unix socket; bridging to one is a :class:`KMSService` away.
"""
from __future__ import annotations

import os
import re
import threading
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from kcodec.storage.interfaces import DecryptRequest, EncryptResponse, KMSService, KMSv1Service, StatusResponse
from kcodec.errors import EncodeError, KCodecError, TransformError
from kcodec.storage.value.aes import MIN_SEED_SIZE, CBCCipher, ExtendedNonceGCMCipher, GCMCipher, _crypto
from kcodec.storage.value.transformer import PrefixTransformer, as_key, reduce_errors

__all__ = [
    "KMS_V2_PREFIX",
    "AES_GCM_KEY",
    "HKDF_SHA256_XNONCE_AES_GCM_SEED",
    "EncryptedObject",
    "EncryptResponse",
    "DecryptRequest",
    "StatusResponse",
    "KMSService",
    "LocalKMS",
    "KMSv2Transformer",
    "KMS_V1_PREFIX",
    "KMSv1Service",
    "LocalKMSv1",
    "KMSv1Transformer",
    "encode_encrypted_object",
    "decode_encrypted_object",
    "validate_encrypted_object",
]

KMS_V2_PREFIX = "k8s:enc:kms:v2:"
AES_GCM_KEY = 0
HKDF_SHA256_XNONCE_AES_GCM_SEED = 1

ANNOTATIONS_MAX_SIZE = 32 * 1024
KEY_ID_MAX_SIZE = 1024
ENCRYPTED_DEK_SOURCE_MAX_SIZE = 1024


# ----------------------------------------------------------------------- the envelope message


@dataclass
class EncryptedObject:
    """The ``EncryptedObject`` message stored after the ``k8s:enc:kms:v2:<name>:`` prefix."""

    encrypted_data: bytes = b""
    key_id: str = ""
    encrypted_dek_source: bytes = b""
    annotations: dict[str, bytes] = field(default_factory=dict)
    encrypted_dek_source_type: int = AES_GCM_KEY


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _bytes_field(num: int, value: bytes) -> bytes:
    return _varint(num << 3 | 2) + _varint(len(value)) + value


def encode_encrypted_object(obj: EncryptedObject) -> bytes:
    """Protobuf wire form, fields in number order, map entries sorted by key (deterministic)."""
    out = bytearray()
    if obj.encrypted_data:
        out += _bytes_field(1, obj.encrypted_data)
    if obj.key_id:
        out += _bytes_field(2, obj.key_id.encode("utf-8"))
    if obj.encrypted_dek_source:
        out += _bytes_field(3, obj.encrypted_dek_source)
    for k in sorted(obj.annotations):
        entry = _bytes_field(1, k.encode("utf-8")) + _bytes_field(2, obj.annotations[k])
        out += _bytes_field(4, entry)
    if obj.encrypted_dek_source_type:
        out += _varint(5 << 3) + _varint(obj.encrypted_dek_source_type & 0xFFFFFFFFFFFFFFFF)
    return bytes(out)


class _WireError(Exception):
    pass


def _read_varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end:
            raise _WireError("unexpected EOF")
        b = buf[pos]
        pos += 1
        if shift == 63 and b > 1:
            raise _WireError("proto: cannot parse invalid wire-format data")
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise _WireError("proto: cannot parse invalid wire-format data")


def _fields(buf: bytes, pos: int, end: int) -> Any:
    """(field number, wire type, value) of each field; lengths are checked against ``end``."""
    while pos < end:
        tag, pos = _read_varint(buf, pos, end)
        num, wt = tag >> 3, tag & 7
        if num == 0:
            raise _WireError("proto: cannot parse invalid wire-format data")
        if wt == 0:
            value, pos = _read_varint(buf, pos, end)
            yield num, wt, value
        elif wt == 2:
            size, pos = _read_varint(buf, pos, end)
            if size > end - pos:
                raise _WireError("unexpected EOF")
            yield num, wt, buf[pos:pos + size]
            pos += size
        elif wt == 1 or wt == 5:
            width = 8 if wt == 1 else 4
            if width > end - pos:
                raise _WireError("unexpected EOF")
            pos += width
            yield num, wt, None
        else:
            # groups (3, 4) and 6, 7 never appear in this message
            raise _WireError("proto: cannot parse invalid wire-format data")


def _utf8(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _WireError("proto: string field contains invalid UTF-8") from None


def decode_encrypted_object(data: bytes) -> EncryptedObject:
    """Parse the message (proto3 rules: last value wins, unknown fields skipped).

    Raises :class:`kcodec.errors.DecodeError` for malformed wire data; sizes are checked
    against the input before anything is sliced, so hostile lengths cost nothing.
    """
    from kcodec.errors import DecodeError

    data = bytes(data)
    obj = EncryptedObject()
    try:
        for num, wt, value in _fields(data, 0, len(data)):
            if num == 1 and wt == 2:
                obj.encrypted_data = value
            elif num == 2 and wt == 2:
                obj.key_id = _utf8(value)
            elif num == 3 and wt == 2:
                obj.encrypted_dek_source = value
            elif num == 4 and wt == 2:
                k, v = "", b""
                for enum, ewt, evalue in _fields(value, 0, len(value)):
                    if enum == 1 and ewt == 2:
                        k = _utf8(evalue)
                    elif enum == 2 and ewt == 2:
                        v = evalue
                obj.annotations[k] = v
            elif num == 5 and wt == 0:
                # an int32 enum: Go keeps the low 32 bits, sign-extended
                low = value & 0xFFFFFFFF
                obj.encrypted_dek_source_type = low - (1 << 32) if low >= 1 << 31 else low
            # anything else, including a known number with another wire type, is an
            # unknown field to protobuf-go: skipped
    except _WireError as err:
        raise DecodeError(str(err)) from None
    return obj


_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS1123_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


def _fqdn_error(name: str) -> str | None:
    """apimachinery's IsFullyQualifiedDomainName, as a field error text, or None."""
    if not name:
        return "annotations: Required value"
    if name.endswith("."):
        name = name[:-1]
    problems = []
    if len(name) > 253:
        problems.append("must be no more than 253 characters")
    if not _DNS1123_SUBDOMAIN.match(name):
        problems.append(_DNS1123_MSG)
    if problems:
        return f'annotations: Invalid value: "{name}": ' + ",".join(problems)
    if len(name.split(".")) < 2:
        return f'annotations: Invalid value: "{name}": should be a domain with at least two segments separated by dots'
    for label in name.split("."):
        if len(label) > 63:
            return f'annotations: Invalid value: "{label}": must be no more than 63 characters'
    return None


def validate_encrypted_object(o: EncryptedObject) -> None:
    """Go's ``ValidateEncryptedObject``: raises :class:`KCodecError` with Go's texts."""
    if o.encrypted_dek_source_type not in (AES_GCM_KEY, HKDF_SHA256_XNONCE_AES_GCM_SEED):
        raise KCodecError(f"unknown encryptedDEKSourceType: {o.encrypted_dek_source_type}")
    if not o.encrypted_data:
        raise KCodecError("encrypted data is empty")
    src = o.encrypted_dek_source
    if not src:
        raise KCodecError("failed to validate encrypted DEK source: encrypted DEK source is empty")
    if len(src) > ENCRYPTED_DEK_SOURCE_MAX_SIZE:
        raise KCodecError(f"failed to validate encrypted DEK source: encrypted DEK source is {len(src)} bytes, "
                          f"which exceeds the max size of {ENCRYPTED_DEK_SOURCE_MAX_SIZE}")
    key_id_len = len(o.key_id.encode("utf-8"))
    if key_id_len == 0:
        raise KCodecError("failed to validate key id: keyID is empty")
    if key_id_len > KEY_ID_MAX_SIZE:
        raise KCodecError(f"failed to validate key id: keyID is {key_id_len} bytes, "
                          f"which exceeds the max size of {KEY_ID_MAX_SIZE}")
    errs = []
    total = 0
    for k, v in sorted(o.annotations.items()):
        msg = _fqdn_error(k)
        if msg:
            errs.append(msg)
        total += len(k.encode("utf-8")) + len(v)
    if total > ANNOTATIONS_MAX_SIZE:
        errs.append(f"total size of annotations is {total}, which exceeds the max size of {ANNOTATIONS_MAX_SIZE}")
    if errs:
        joined = errs[0] if len(errs) == 1 else "[" + ", ".join(dict.fromkeys(errs)) + "]"
        raise KCodecError(f"failed to validate annotations: {joined}")


# ----------------------------------------------------------------------- the KMS service


class LocalKMS:
    """A KMS that keeps its key encryption keys (KEKs) in this process.

    ``LocalKMS(kek, key_id)``; :meth:`rotate` makes a new KEK current and keeps the older
    ones for decryption. DEK sources are sealed with AES-GCM, the key ID as authenticated
    data, so a ciphertext presented under another key ID does not open.
    """

    def __init__(self, kek: bytes | None = None, key_id: str = "local-kek-1") -> None:
        self._keks: dict[str, AESGCM] = {}
        self._lock = threading.Lock()
        self.key_id = ""
        self.healthy = True
        self.rotate(kek if kek is not None else os.urandom(32), key_id)

    def __repr__(self) -> str:
        return f"LocalKMS(key_id={self.key_id!r}, keys={sorted(self._keks)!r})"

    def rotate(self, kek: bytes, key_id: str) -> None:
        """Make ``kek`` (16, 24 or 32 bytes) the current key, under ``key_id``."""
        with self._lock:
            self._keks[key_id] = _crypto().AESGCM(bytes(kek))
            self.key_id = key_id

    def encrypt(self, uid: str, plaintext: bytes) -> EncryptResponse:
        with self._lock:
            key_id, aead = self.key_id, self._keks[self.key_id]
        nonce = os.urandom(12)
        return EncryptResponse(nonce + aead.encrypt(nonce, bytes(plaintext), key_id.encode("utf-8")), key_id)

    def decrypt(self, uid: str, request: DecryptRequest) -> bytes:
        aead = self._keks.get(request.key_id)
        if aead is None:
            raise KCodecError(f"unknown key id {request.key_id!r}")
        ct = bytes(request.ciphertext)
        try:
            return aead.decrypt(ct[:12], ct[12:], request.key_id.encode("utf-8"))
        except (_crypto().InvalidTag, ValueError):
            raise KCodecError(f"ciphertext does not decrypt under key id {request.key_id!r}") from None

    def status(self) -> StatusResponse:
        return StatusResponse("v2", "ok" if self.healthy else "unhealthy", self.key_id)


# ----------------------------------------------------------------------- the transformer


@dataclass
class _State:
    cipher: Any
    encrypted_object: EncryptedObject  # everything but encrypted_data


def _cache_key(o: EncryptedObject) -> bytes:
    # Go's generateCacheKey (a cryptobyte encoding); here only our own cache uses it.
    parts = [o.encrypted_dek_source_type.to_bytes(4, "big", signed=True),
             len(o.encrypted_dek_source).to_bytes(2, "big"), o.encrypted_dek_source]
    kid = o.key_id.encode("utf-8")
    parts += [len(kid).to_bytes(2, "big"), kid]
    if o.annotations:
        parts.append(len(o.annotations).to_bytes(4, "big"))
        for k in sorted(o.annotations):
            kb = k.encode("utf-8")
            parts += [len(kb).to_bytes(2, "big"), kb, len(o.annotations[k]).to_bytes(2, "big"), o.annotations[k]]
    return b"".join(parts)


class KMSv2Transformer:
    """The ``kms`` provider with ``apiVersion: v2`` (Go's ``kmsv2.NewEnvelopeTransformer``).

    Writes use one DEK source for as long as the KMS reports the same key ID: a 32-byte
    seed (``use_seed=True``, 1.29+'s default) or an AES-256 key with counter nonces. The
    first write (or :meth:`refresh`) asks the KMS to encrypt it. Reads decrypt the DEK
    source of each value through the KMS once and cache it. A value whose key ID or DEK
    type differs from the current ones is stale, so a storage migration moves it on.
    """

    def __init__(self, name: str, service: KMSService, *, use_seed: bool = True) -> None:
        self.name = name
        self.service = service
        self.use_seed = use_seed
        self.prefix = (KMS_V2_PREFIX + name + ":").encode("utf-8")
        self._state: _State | None = None
        self._cache: dict[bytes, Any] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"KMSv2Transformer(name={self.name!r}, service={self.service!r})"

    def prefix_transformer(self) -> PrefixTransformer:
        """The envelope transformer under ``k8s:enc:kms:v2:<name>:``."""
        return PrefixTransformer(self.prefix, _Envelope(self))

    def refresh(self) -> None:
        """Ask the KMS for its status; make a new DEK source when its key ID changed.

        Go's KMS v2 health probe does this every minute. Raises :class:`KCodecError` with
        Go's texts when the KMS is unhealthy or speaks another API version.
        """
        st = self.service.status()
        errs = []
        if st.healthz != "ok":
            errs.append(f"got unexpected healthz status: {st.healthz}")
        if st.version not in ("v2", "v2beta1"):
            errs.append(f"expected KMSv2 API version v2, got {st.version}")
        if not st.key_id:
            errs.append('got invalid KMSv2 KeyID hash "": keyID is empty')
        if errs:
            joined = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
            raise KCodecError(f"kmsv2 Provider {self.name} is not healthy, error: {joined}")
        with self._lock:
            current = self._state
        if current is None or current.encrypted_object.key_id != st.key_id:
            self._generate()

    def _generate(self) -> _State:
        uid = str(uuid.uuid4())
        if self.use_seed:
            dek = os.urandom(MIN_SEED_SIZE)
            cipher: Any = ExtendedNonceGCMCipher(dek, name=self.name)
            kind = HKDF_SHA256_XNONCE_AES_GCM_SEED
        else:
            dek = os.urandom(32)
            cipher = GCMCipher(dek, name=self.name, counter_nonce=True)
            kind = AES_GCM_KEY
        try:
            resp = self.service.encrypt(uid, dek)
        except KCodecError as err:
            raise EncodeError(f"failed to encrypt DEK, error: {err}") from err
        eo = EncryptedObject(b"\x00", resp.key_id, bytes(resp.ciphertext), dict(resp.annotations), kind)
        validate_encrypted_object(eo)
        eo.encrypted_data = b""
        state = _State(cipher, eo)
        with self._lock:
            self._state = state
            self._cache[_cache_key(eo)] = cipher
        return state

    def _current(self) -> _State:
        with self._lock:
            state = self._state
        return state if state is not None else self._generate()

    def _read(self, data: bytes, key: bytes) -> tuple[bytes, bool]:
        key_text = key.decode("utf-8", "replace")
        try:
            eo = decode_encrypted_object(data)
            validate_encrypted_object(eo)
        except KCodecError as err:
            raise TransformError(str(err), key=key_text, key_name=self.name) from None
        ck = _cache_key(eo)
        with self._lock:
            cipher = self._cache.get(ck)
        if cipher is None:
            try:
                dek = self.service.decrypt(str(uuid.uuid4()),
                                           DecryptRequest(eo.encrypted_dek_source, eo.key_id, dict(eo.annotations)))
            except KCodecError as err:
                raise TransformError(f"failed to decrypt DEK, error: {err}", key=key_text,
                                     key_name=self.name) from None
            try:
                if eo.encrypted_dek_source_type == HKDF_SHA256_XNONCE_AES_GCM_SEED:
                    cipher = ExtendedNonceGCMCipher(dek, name=self.name)
                else:
                    cipher = GCMCipher(dek, name=self.name)
            except ValueError as err:
                raise TransformError(str(err), key=key_text, key_name=self.name) from None
            with self._lock:
                if len(self._cache) >= 4096:
                    self._cache.clear()
                self._cache[ck] = cipher
        out, stale = cipher.transform_from_storage(eo.encrypted_data, key)
        key_id, kind = self._write_identity()
        return out, stale or eo.key_id != key_id or eo.encrypted_dek_source_type != kind

    def _write_identity(self) -> tuple[str, int]:
        """The key ID and DEK type writes use now, without making a DEK just to compare."""
        with self._lock:
            state = self._state
        if state is not None:
            return state.encrypted_object.key_id, state.encrypted_object.encrypted_dek_source_type
        kind = HKDF_SHA256_XNONCE_AES_GCM_SEED if self.use_seed else AES_GCM_KEY
        try:
            return self.service.status().key_id, kind
        except KCodecError:
            return "", kind

    def _write(self, data: bytes, key: bytes) -> bytes:
        state = self._current()
        eo = state.encrypted_object
        ciphertext = state.cipher.transform_to_storage(data, key)
        return encode_encrypted_object(EncryptedObject(
            ciphertext, eo.key_id, eo.encrypted_dek_source, eo.annotations, eo.encrypted_dek_source_type))

    def transform_from_storage(self, data: bytes, key: Any) -> tuple[bytes, bool]:
        data, key_b = bytes(data), as_key(key)
        if not data.startswith(self.prefix):
            raise TransformError("no matching prefix found", key=key_b.decode("utf-8", "replace"))
        return self._read(data[len(self.prefix):], key_b)

    def transform_to_storage(self, data: bytes, key: Any) -> bytes:
        return self.prefix + self._write(bytes(data), as_key(key))


class _Envelope:
    """A KMS transformer without its prefix (what sits inside a prefix chain)."""

    def __init__(self, owner: Any) -> None:
        self.owner = owner

    def __repr__(self) -> str:
        return f"_Envelope({self.owner.name!r})"

    def transform_from_storage(self, data: bytes, key: bytes) -> tuple[bytes, bool]:
        return self.owner._read(bytes(data), as_key(key))

    def transform_to_storage(self, data: bytes, key: bytes) -> bytes:
        return self.owner._write(bytes(data), as_key(key))


# ----------------------------------------------------------------------- KMS v1 (deprecated)

KMS_V1_PREFIX = "k8s:enc:kms:v1:"


class LocalKMSv1:
    """An in-process KMS v1 service: DEKs sealed with AES-GCM under one key encryption key."""

    def __init__(self, kek: bytes | None = None) -> None:
        self._aead = _crypto().AESGCM(bytes(kek) if kek is not None else os.urandom(32))

    def __repr__(self) -> str:
        return "LocalKMSv1()"

    def encrypt(self, data: bytes) -> bytes:
        nonce = os.urandom(12)
        return nonce + self._aead.encrypt(nonce, bytes(data), None)

    def decrypt(self, data: bytes) -> bytes:
        data = bytes(data)
        try:
            return self._aead.decrypt(data[:12], data[12:], None)
        except (_crypto().InvalidTag, ValueError):
            raise KCodecError("ciphertext does not decrypt under this KMS key") from None


class KMSv1Transformer:
    """The ``kms`` provider with ``apiVersion: v1`` (Go's ``envelope.NewEnvelopeTransformer``).

    Values are ``k8s:enc:kms:v1:<name>:`` + a 2-byte big-endian length + the encrypted DEK
    + the data under that DEK: AES-GCM since 1.25, AES-CBC before (still read, as stale).
    Every write makes a new DEK, as in Go. kube-apiserver refuses v1 providers unless the
    ``KMSv1`` feature gate is on; kcodec reads them so old clusters' data stays readable.
    """

    def __init__(self, name: str, service: KMSv1Service, cache_size: int = 1000) -> None:
        self.name = name
        self.service = service
        self.cache_size = cache_size
        self.prefix = (KMS_V1_PREFIX + name + ":").encode("utf-8")
        self._cache: dict[bytes, tuple[Any, Any]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"KMSv1Transformer(name={self.name!r}, service={self.service!r})"

    def prefix_transformer(self) -> PrefixTransformer:
        """The envelope transformer under ``k8s:enc:kms:v1:<name>:``."""
        return PrefixTransformer(self.prefix, _Envelope(self))

    def _ciphers(self, enc_key: bytes, key: bytes) -> tuple[Any, Any]:
        with self._lock:
            found = self._cache.get(enc_key)
        if found is not None:
            return found
        try:
            dek = self.service.decrypt(enc_key)
        except KCodecError as err:
            raise TransformError(str(err), key=key.decode("utf-8", "replace"), key_name=self.name) from None
        try:
            pair = (GCMCipher(dek, name=self.name), CBCCipher(dek, name=self.name))
        except ValueError as err:
            raise TransformError(str(err), key=key.decode("utf-8", "replace"), key_name=self.name) from None
        self._remember(enc_key, pair)
        return pair

    def _remember(self, enc_key: bytes, pair: tuple[Any, Any]) -> None:
        if self.cache_size <= 0:
            return
        with self._lock:
            if len(self._cache) >= self.cache_size:
                self._cache.pop(next(iter(self._cache)))
            self._cache[enc_key] = pair

    def _read(self, data: bytes, key: bytes) -> tuple[bytes, bool]:
        if len(data) < 2 or len(data) - 2 < int.from_bytes(data[:2], "big"):
            raise TransformError("invalid data encountered by envelope transformer: failed to read uint16 length "
                                 "prefixed data", key=key.decode("utf-8", "replace"), key_name=self.name)
        n = int.from_bytes(data[:2], "big")
        enc_key, body = data[2:2 + n], data[2 + n:]
        gcm, cbc = self._ciphers(enc_key, key)
        errors = []
        for i, cipher in enumerate((gcm, cbc)):
            try:
                out, stale = cipher.transform_from_storage(body, key)
            except TransformError as err:
                errors.append(err)
                continue
            return out, stale or i != 0
        raise reduce_errors(errors, key)

    def _write(self, data: bytes, key: bytes) -> bytes:
        dek = os.urandom(32)
        try:
            enc_key = bytes(self.service.encrypt(dek))
        except KCodecError as err:
            raise EncodeError(str(err)) from err
        if len(enc_key) > 0xFFFF:
            raise EncodeError(f"encrypted DEK of {len(enc_key)} bytes does not fit a uint16 length")
        gcm = GCMCipher(dek, name=self.name)
        self._remember(enc_key, (gcm, CBCCipher(dek, name=self.name)))
        return len(enc_key).to_bytes(2, "big") + enc_key + gcm.transform_to_storage(data, key)

    def transform_from_storage(self, data: bytes, key: Any) -> tuple[bytes, bool]:
        data, key_b = bytes(data), as_key(key)
        if not data.startswith(self.prefix):
            raise TransformError("no matching prefix found", key=key_b.decode("utf-8", "replace"))
        return self._read(data[len(self.prefix):], key_b)

    def transform_to_storage(self, data: bytes, key: Any) -> bytes:
        return self.prefix + self._write(bytes(data), as_key(key))
