"""The ``secretbox`` provider: XSalsa20-Poly1305 (NaCl secretbox) with a random 24-byte nonce.

Follows apiserver ``pkg/storage/value/encrypt/secretbox``: values are
``k8s:enc:secretbox:v1:<keyname>:<nonce(24)><box>`` where ``box`` is NaCl's
``tag(16) || ciphertext``. Secretbox does not bind the value to its storage key. PyNaCl
(libsodium) gives the primitive, the same construction as Go's ``x/crypto/nacl/secretbox``.
"""
from __future__ import annotations

from typing import Any

from kcodec.errors import ConfigError, TransformError
from kcodec.storage.value.aes import KeysLike, named_keys
from kcodec.storage.value.transformer import PrefixTransformer, PrefixTransformers, as_key

__all__ = ["SecretboxCipher", "SecretboxTransformer", "SECRETBOX_PREFIX"]

SECRETBOX_PREFIX = b"k8s:enc:secretbox:v1:"
NONCE_SIZE = 24
OVERHEAD = 16


def _crypto_error() -> type[Exception]:
    import nacl.exceptions

    return nacl.exceptions.CryptoError


class SecretboxCipher:
    """One secretbox key (Go's ``secretbox.NewSecretboxTransformer``)."""

    def __init__(self, key: bytes, *, name: str | None = None) -> None:
        key = bytes(key)
        if len(key) != 32:
            raise ValueError(f"expected key size 32 for secretbox provider, got {len(key)}")
        # PyNaCl on first use: a server that encrypts nothing does not load libsodium
        import nacl.secret

        self._box = nacl.secret.SecretBox(key)
        self.name = name

    def __repr__(self) -> str:
        return f"SecretboxCipher(name={self.name!r})"

    def transform_from_storage(self, data: bytes, key: Any) -> tuple[bytes, bool]:
        data = bytes(data)
        if len(data) < OVERHEAD + NONCE_SIZE:
            raise TransformError("the stored data was shorter than the required size",
                                 key=as_key(key).decode("utf-8", "replace"), key_name=self.name)
        try:
            return self._box.decrypt(data[NONCE_SIZE:], data[:NONCE_SIZE]), False
        except _crypto_error():
            # Go's text for a box that does not open, odd as it reads.
            raise TransformError("output array was not large enough for encryption",
                                 key=as_key(key).decode("utf-8", "replace"), key_name=self.name) from None

    def transform_to_storage(self, data: bytes, key: Any) -> bytes:
        # PyNaCl returns nonce || tag || ciphertext: Go's layout exactly.
        return bytes(self._box.encrypt(bytes(data)))


class SecretboxTransformer:
    """The ``secretbox`` provider over named 32-byte keys; the first writes, any reads."""

    def __init__(self, keys: KeysLike) -> None:
        pairs = named_keys(keys, "secretbox")
        per_key = []
        for name, secret in pairs:
            if len(secret) != 32:
                raise ConfigError(f"expected key size 32 for secretbox provider, got {len(secret)}")
            per_key.append(PrefixTransformer(name.encode("utf-8") + b":", SecretboxCipher(secret, name=name)))
        self.key_names = [name for name, _ in pairs]
        self._inner = PrefixTransformers(
            *per_key, error="no matching key was found for the provided Secretbox transformer")

    def __repr__(self) -> str:
        return f"SecretboxTransformer(keys={self.key_names!r})"

    def prefix_transformer(self) -> PrefixTransformer:
        """This provider under ``k8s:enc:secretbox:v1:``, for :class:`PrefixTransformers`."""
        return PrefixTransformer(SECRETBOX_PREFIX, self._inner)

    def transform_from_storage(self, data: bytes, key: Any) -> tuple[bytes, bool]:
        data = bytes(data)
        if not data.startswith(SECRETBOX_PREFIX):
            raise TransformError("no matching prefix found", key=as_key(key).decode("utf-8", "replace"))
        return self._inner.transform_from_storage(data[len(SECRETBOX_PREFIX):], key)

    def transform_to_storage(self, data: bytes, key: Any) -> bytes:
        return SECRETBOX_PREFIX + self._inner.transform_to_storage(data, key)
