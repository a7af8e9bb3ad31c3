"""Encryption at rest, byte-compatible with kube-apiserver (apiserver ``pkg/storage/value``).

A :class:`~kcodec.storage.interfaces.Transformer` turns an encoded object into the bytes
stored under a key and back: :class:`IdentityTransformer` (plain, refuses encrypted data),
the ``aescbc``, ``aesgcm`` and ``secretbox`` providers over named keys, and KMS v2
envelopes. :class:`PrefixTransformers` chains providers the way an EncryptionConfiguration
lists them; :func:`load_encryption_config` builds them from such a file.
"""
from kcodec.storage.value.transformer import (
    ENCRYPTED_PREFIX,
    IdentityTransformer,
    PrefixTransformer,
    PrefixTransformers,
    Transformer,
)
from kcodec.storage.value.aes import (
    AESCBC_PREFIX,
    AESGCM_PREFIX,
    AESCBCTransformer,
    AESGCMTransformer,
    CBCCipher,
    ExtendedNonceGCMCipher,
    GCMCipher,
)
from kcodec.storage.value.secretbox import SECRETBOX_PREFIX, SecretboxCipher, SecretboxTransformer

__all__ = [
    "Transformer",
    "ENCRYPTED_PREFIX",
    "IdentityTransformer",
    "PrefixTransformer",
    "PrefixTransformers",
    "AESGCM_PREFIX",
    "AESCBC_PREFIX",
    "SECRETBOX_PREFIX",
    "GCMCipher",
    "CBCCipher",
    "ExtendedNonceGCMCipher",
    "SecretboxCipher",
    "AESGCMTransformer",
    "AESCBCTransformer",
    "SecretboxTransformer",
]

from kcodec.storage.value.kms import (
    KMS_V1_PREFIX,
    KMS_V2_PREFIX,
    KMSv1Service,
    KMSv1Transformer,
    LocalKMSv1,
    DecryptRequest,
    EncryptedObject,
    EncryptResponse,
    KMSService,
    KMSv2Transformer,
    LocalKMS,
    StatusResponse,
)
from kcodec.storage.value.kms_grpc import GRPCKMSService
from kcodec.storage.value.config import load_encryption_config, parse_encryption_config, transformer_for_resource

__all__ += [
    "KMS_V1_PREFIX",
    "KMSv1Service",
    "KMSv1Transformer",
    "LocalKMSv1",
    "KMS_V2_PREFIX",
    "EncryptedObject",
    "EncryptResponse",
    "DecryptRequest",
    "StatusResponse",
    "KMSService",
    "LocalKMS",
    "GRPCKMSService",
    "KMSv2Transformer",
    "load_encryption_config",
    "parse_encryption_config",
    "transformer_for_resource",
]
