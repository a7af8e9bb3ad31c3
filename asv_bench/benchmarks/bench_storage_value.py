"""Encryption at rest: one 10 KB value through each provider, to and from storage.

The value stands for an encoded Secret or ConfigMap; the storage key is the etcd key the
authenticated providers bind to. The primitives are OpenSSL's (``cryptography``) and
libsodium's (PyNaCl), so these figures show what kcodec's framing adds on top of them.
Not mode-dependent: no kcodec kernel runs here.
"""
from __future__ import annotations

import os
from typing import Any

# _docs first: it puts this checkout on sys.path before kcodec is imported.
from . import _docs  # noqa: F401

from kcodec.storage.value import (
    AESCBCTransformer,
    AESGCMTransformer,
    IdentityTransformer,
    KMSv2Transformer,
    LocalKMS,
    PrefixTransformers,
    SecretboxTransformer,
)

VALUE_SIZE = 10 * 1024
KEY = b"/registry/secrets/default/bench"


def _provider(name: str) -> Any:
    if name == "aesgcm":
        return AESGCMTransformer({"key1": os.urandom(32)})
    if name == "aescbc":
        return AESCBCTransformer({"key1": os.urandom(32)})
    if name == "secretbox":
        return SecretboxTransformer({"key1": os.urandom(32)})
    if name == "kmsv2":
        return KMSv2Transformer("bench", LocalKMS(os.urandom(32), "kek-1"))
    return IdentityTransformer()


class TransformValue:
    """``transform_to_storage`` / ``transform_from_storage`` of a 10 KB value, per provider."""

    params = (["identity", "aesgcm", "aescbc", "secretbox", "kmsv2"],)
    param_names = ["provider"]

    def setup(self, provider: str) -> None:
        self.chain = PrefixTransformers(_provider(provider))
        self.value = os.urandom(VALUE_SIZE)
        self.stored = self.chain.transform_to_storage(self.value, KEY)
        self.chain.transform_from_storage(self.stored, KEY)  # warms the KMS DEK cache

    def time_to_storage(self, provider: str) -> None:
        self.chain.transform_to_storage(self.value, KEY)

    def time_from_storage(self, provider: str) -> None:
        self.chain.transform_from_storage(self.stored, KEY)
