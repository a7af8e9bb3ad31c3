"""AES-GCM, AES-CBC and the HKDF extended-nonce GCM of KMS v2, as kube-apiserver stores them.

Follows apiserver ``pkg/storage/value/encrypt/aes`` (aes.go, aes_extended_nonce.go) and the
``aesgcm``/``aescbc`` providers of ``pkg/server/options/encryptionconfig``. Layouts:

* GCM: ``nonce(12) || ciphertext || tag(16)``, the storage key as authenticated data;
* CBC: ``iv(16) || ciphertext`` with PKCS#7 padding (no authentication: a wrong key shows
  only as bad padding, or as garbage that the next layer fails to decode);
* extended nonce: ``info(32) || GCM(...)`` under ``HKDF-Expand(SHA-256, seed, info)``.

The primitives come from ``cryptography`` (OpenSSL); only the framing is ours.
"""
from __future__ import annotations

import functools
import os
import struct
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from kcodec.errors import ConfigError, EncodeError, TransformError
from kcodec.storage.value.transformer import PrefixTransformer, PrefixTransformers, as_key


@functools.lru_cache(maxsize=None)
def _crypto() -> SimpleNamespace:
    """``cryptography``'s primitives, imported on first use: a server or a codec that
    encrypts nothing does not pay for loading OpenSSL's bindings."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

    return SimpleNamespace(InvalidTag=InvalidTag, hashes=hashes, Cipher=Cipher, algorithms=algorithms, modes=modes,
                           AESGCM=AESGCM, HKDFExpand=HKDFExpand)


__all__ = [
    "GCMCipher",
    "CBCCipher",
    "ExtendedNonceGCMCipher",
    "AESGCMTransformer",
    "AESCBCTransformer",
    "AESGCM_PREFIX",
    "AESCBC_PREFIX",
    "named_keys",
]

AESGCM_PREFIX = b"k8s:enc:aesgcm:v1:"
AESCBC_PREFIX = b"k8s:enc:aescbc:v1:"

NONCE_SIZE = 12
TAG_SIZE = 16
BLOCK_SIZE = 16
#: Size of the random KDF info prefix and of the smallest seed (Go's commonSize).
INFO_SIZE = 32
MIN_SEED_SIZE = 32

_SHORT = "the stored data was shorter than the required size"

KeysLike = Union[Mapping[str, bytes], Iterable[tuple[str, bytes]]]


def _check_aes_key(key: bytes) -> bytes:
    key = bytes(key)
    if len(key) not in (16, 24, 32):
        raise ValueError(f"crypto/aes: invalid key size {len(key)}")
    return key


def _key_text(key: Any) -> str:
    return as_key(key).decode("utf-8", "replace")


class GCMCipher:
    """AES-GCM with a random 96-bit nonce per write (Go's ``aes.NewGCMTransformer``).

    ``counter_nonce=True`` gives Go's ``NewGCMTransformerWithUniqueKeyUnsafe`` layout for a
    key generated for this process only: 4 random bytes then a 64-bit little-endian counter
    starting after one billion. ``name`` labels errors (the key's name in the config).
    """

    def __init__(self, key: bytes, *, name: str | None = None, counter_nonce: bool = False) -> None:
        self._crypto = _crypto()
        self._aead = self._crypto.AESGCM(_check_aes_key(key))
        self.name = name
        self._counter: int | None = 1_000_000_000 if counter_nonce else None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"GCMCipher(name={self.name!r})"

    def _nonce(self) -> bytes:
        if self._counter is None:
            return os.urandom(NONCE_SIZE)
        with self._lock:
            self._counter += 1
            if self._counter >= 1 << 64:
                raise EncodeError("aes-gcm detected nonce overflow - cryptographic wear out has occurred")
            value = self._counter
        return os.urandom(NONCE_SIZE - 8) + struct.pack("<Q", value)

    def transform_from_storage(self, data: bytes, key: bytes) -> tuple[bytes, bool]:
        if len(data) < NONCE_SIZE:
            raise TransformError(_SHORT, key=_key_text(key), key_name=self.name)
        try:
            plain = self._aead.decrypt(bytes(data[:NONCE_SIZE]), bytes(data[NONCE_SIZE:]), as_key(key))
        except self._crypto.InvalidTag:
            raise TransformError("cipher: message authentication failed", key=_key_text(key),
                                 key_name=self.name) from None
        return plain, False

    def transform_to_storage(self, data: bytes, key: bytes) -> bytes:
        nonce = self._nonce()
        return nonce + self._aead.encrypt(nonce, bytes(data), as_key(key))


class CBCCipher:
    """AES-CBC with a random IV and PKCS#7 padding (Go's ``aes.NewCBCTransformer``)."""

    def __init__(self, key: bytes, *, name: str | None = None) -> None:
        self._key = _check_aes_key(key)
        self.name = name
        self._crypto = _crypto()

    def __repr__(self) -> str:
        return f"CBCCipher(name={self.name!r})"

    def _fail(self, message: str, key: bytes) -> TransformError:
        return TransformError(message, key=_key_text(key), key_name=self.name)

    def transform_from_storage(self, data: bytes, key: bytes) -> tuple[bytes, bool]:
        if len(data) < BLOCK_SIZE:
            raise self._fail(_SHORT, key)
        iv, body = bytes(data[:BLOCK_SIZE]), bytes(data[BLOCK_SIZE:])
        if len(body) % BLOCK_SIZE:
            raise self._fail("the stored data is not a multiple of the block size", key)
        if not body:
            # Go indexes the last byte of an empty plaintext here and panics; no value can
            # be empty after padding, so this is the "not padded" error.
            raise self._fail("invalid PKCS7 data (empty or not padded)", key)
        c = self._crypto
        dec = c.Cipher(c.algorithms.AES(self._key), c.modes.CBC(iv)).decryptor()
        result = dec.update(body) + dec.finalize()
        pad = result[-1]
        if pad == 0 or pad > len(result):
            raise self._fail("invalid PKCS7 data (empty or not padded)", key)
        if result[-pad:] != bytes([pad]) * pad:
            raise self._fail("invalid padding on input", key)
        return result[:-pad], False

    def transform_to_storage(self, data: bytes, key: bytes) -> bytes:
        data = bytes(data)
        pad = BLOCK_SIZE - len(data) % BLOCK_SIZE
        iv = os.urandom(BLOCK_SIZE)
        c = self._crypto
        enc = c.Cipher(c.algorithms.AES(self._key), c.modes.CBC(iv)).encryptor()
        return iv + enc.update(data + bytes([pad]) * pad) + enc.finalize()


class ExtendedNonceGCMCipher:
    """AES-GCM under a key derived per write from a seed (Go's ``NewHKDFExtendedNonceGCMTransformer``).

    Each value starts with 32 random bytes of HKDF info; the AES-256 key is the first 32
    bytes of ``HKDF-Expand(SHA-256, seed, info)``. KMS v2 writes this by default.
    """

    def __init__(self, seed: bytes, *, name: str | None = None) -> None:
        seed = bytes(seed)
        if len(seed) < MIN_SEED_SIZE:
            raise ValueError(f"invalid seed length {len(seed)} used for key generation")
        self._seed = seed
        self.name = name
        self._crypto = _crypto()
        # Reads of one object repeat; the derivation is cheap but not free.
        self._derived: dict[bytes, AESGCM] = {}

    def __repr__(self) -> str:
        return f"ExtendedNonceGCMCipher(name={self.name!r})"

    def _aead(self, info: bytes) -> AESGCM:
        aead = self._derived.get(info)
        if aead is None:
            c = self._crypto
            derived = c.HKDFExpand(algorithm=c.hashes.SHA256(), length=32, info=info).derive(self._seed)
            aead = c.AESGCM(derived)
            if len(self._derived) >= 1024:
                self._derived.clear()
            self._derived[info] = aead
        return aead

    def transform_from_storage(self, data: bytes, key: bytes) -> tuple[bytes, bool]:
        if len(data) < INFO_SIZE + NONCE_SIZE:
            raise TransformError(_SHORT, key=_key_text(key), key_name=self.name)
        info = bytes(data[:INFO_SIZE])
        nonce = bytes(data[INFO_SIZE:INFO_SIZE + NONCE_SIZE])
        try:
            plain = self._aead(info).decrypt(nonce, bytes(data[INFO_SIZE + NONCE_SIZE:]), as_key(key))
        except self._crypto.InvalidTag:
            raise TransformError("cipher: message authentication failed", key=_key_text(key),
                                 key_name=self.name) from None
        return plain, False

    def transform_to_storage(self, data: bytes, key: bytes) -> bytes:
        info = os.urandom(INFO_SIZE)
        c = self._crypto
        derived = c.HKDFExpand(algorithm=c.hashes.SHA256(), length=32, info=info).derive(self._seed)
        nonce = os.urandom(NONCE_SIZE)
        return info + nonce + c.AESGCM(derived).encrypt(nonce, bytes(data), as_key(key))


def named_keys(keys: KeysLike, provider: str) -> list[tuple[str, bytes]]:
    """The ``(name, secret)`` pairs of a provider, in order, checked as Go checks them."""
    items = list(keys.items()) if isinstance(keys, Mapping) else [tuple(k) for k in keys]
    if not items:
        raise ConfigError(f"{provider} provider has no valid keys")
    out: list[tuple[str, bytes]] = []
    for name, secret in items:
        if not name:
            raise ConfigError("key with invalid name provided")
        if not secret:
            raise ConfigError(f"key {name} has no provided secret")
        out.append((str(name), bytes(secret)))
    return out


class _AESProvider(ABC):
    _prefix = b""
    _kind = ""

    def __init__(self, keys: KeysLike) -> None:
        per_key = []
        for name, secret in named_keys(keys, "aes"):
            try:
                cipher = self._cipher(secret, name)
            except ValueError as err:
                raise ConfigError(f"error while creating cipher for named key {name}: {err}") from None
            per_key.append(PrefixTransformer(name.encode("utf-8") + b":", cipher))
        self.key_names = [name for name, _ in named_keys(keys, "aes")]
        self._inner = PrefixTransformers(
            *per_key, error="no matching key was found for the provided AES transformer")

    @abstractmethod
    def _cipher(self, secret: bytes, name: str) -> Any:
        """The cipher for one named key (GCM or CBC); a bad key raises ValueError."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(keys={self.key_names!r})"

    def prefix_transformer(self) -> PrefixTransformer:
        """This provider under its ``k8s:enc:<provider>:v1:`` prefix, for :class:`PrefixTransformers`."""
        return PrefixTransformer(self._prefix, self._inner)

    def transform_from_storage(self, data: bytes, key: Any) -> tuple[bytes, bool]:
        data = bytes(data)
        if not data.startswith(self._prefix):
            raise TransformError("no matching prefix found", key=_key_text(as_key(key)))
        return self._inner.transform_from_storage(data[len(self._prefix):], key)

    def transform_to_storage(self, data: bytes, key: Any) -> bytes:
        return self._prefix + self._inner.transform_to_storage(data, key)


class AESGCMTransformer(_AESProvider):
    """The ``aesgcm`` provider: values ``k8s:enc:aesgcm:v1:<keyname>:<nonce><ciphertext><tag>``.

    ``keys`` maps key names to 16, 24 or 32 byte secrets, in order (a mapping or pairs);
    the first writes, any reads. Used alone it reads and writes the prefixed form; inside
    :class:`PrefixTransformers` it is one provider among others.
    """

    _prefix = AESGCM_PREFIX

    def _cipher(self, secret: bytes, name: str) -> Any:
        return GCMCipher(secret, name=name)


class AESCBCTransformer(_AESProvider):
    """The ``aescbc`` provider: values ``k8s:enc:aescbc:v1:<keyname>:<iv><ciphertext>``."""

    _prefix = AESCBC_PREFIX

    def _cipher(self, secret: bytes, name: str) -> Any:
        return CBCCipher(secret, name=name)
