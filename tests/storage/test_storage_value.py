"""Encryption at rest (kcodec.storage.value) against the formats kube-apiserver writes.

Vectors are built here with ``cryptography`` and PyNaCl directly from the layouts of
apiserver ``pkg/storage/value/encrypt`` (prefix ``k8s:enc:<provider>:v1:<key>:``, GCM
``nonce||ct||tag`` with the etcd key as authenticated data, CBC ``iv||ct`` with PKCS#7,
secretbox ``nonce||box``), never through kcodec, so a round trip through kcodec alone
cannot hide a layout mistake.
"""
from __future__ import annotations

import os

import nacl.secret
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from kcodec.errors import ConfigError, DecodeError, TransformError
from kcodec.storage.interfaces import Transformer
from kcodec.storage.value import (
    AESCBCTransformer,
    AESGCMTransformer,
    CBCCipher,
    GCMCipher,
    IdentityTransformer,
    PrefixTransformer,
    PrefixTransformers,
    SecretboxTransformer,
)

KEY = b"/registry/secrets/default/db-password"
PLAIN = b'k8s\x00\n\x0c\n\x02v1\x12\x06Secret\x12\x10some secret data'
K32 = bytes(range(32))
K16 = bytes(range(100, 116))
K32B = bytes(range(50, 82))


# ----------------------------------------------------------------------- independent writers


def go_aesgcm(key_name: str, secret: bytes, plain: bytes, etcd_key: bytes, nonce: bytes | None = None) -> bytes:
    nonce = nonce or os.urandom(12)
    return b"k8s:enc:aesgcm:v1:" + key_name.encode() + b":" + nonce + AESGCM(secret).encrypt(nonce, plain, etcd_key)


def go_aescbc(key_name: str, secret: bytes, plain: bytes) -> bytes:
    iv = os.urandom(16)
    pad = 16 - len(plain) % 16
    enc = Cipher(algorithms.AES(secret), modes.CBC(iv)).encryptor()
    body = enc.update(plain + bytes([pad]) * pad) + enc.finalize()
    return b"k8s:enc:aescbc:v1:" + key_name.encode() + b":" + iv + body


def go_secretbox(key_name: str, secret: bytes, plain: bytes) -> bytes:
    nonce = os.urandom(24)
    box = nacl.secret.SecretBox(secret).encrypt(plain, nonce).ciphertext  # tag || ct
    return b"k8s:enc:secretbox:v1:" + key_name.encode() + b":" + nonce + box


# ----------------------------------------------------------------------- identity


def test_identity_passes_plain_data_and_refuses_encrypted() -> None:
    t = IdentityTransformer()
    assert isinstance(t, Transformer)
    assert t.transform_to_storage(PLAIN, KEY) == PLAIN
    assert t.transform_from_storage(PLAIN, KEY) == (PLAIN, False)
    assert t.transform_from_storage(b'{"kind":"Pod"}', KEY) == (b'{"kind":"Pod"}', False)
    with pytest.raises(TransformError, match="^identity transformer tried to read encrypted data$") as info:
        t.transform_from_storage(b"k8s:enc:aesgcm:v1:key1:xxxx", KEY)
    assert isinstance(info.value, DecodeError)
    assert info.value.key == KEY.decode()


# ----------------------------------------------------------------------- AES-GCM


def test_aesgcm_reads_what_go_writes_and_binds_the_etcd_key() -> None:
    t = AESGCMTransformer({"key1": K32})
    stored = go_aesgcm("key1", K32, PLAIN, KEY)
    assert t.transform_from_storage(stored, KEY) == (PLAIN, False)
    # Authenticated data is the etcd key: the same bytes under another key do not open.
    with pytest.raises(TransformError, match="cipher: message authentication failed") as info:
        t.transform_from_storage(stored, b"/registry/secrets/default/other")
    assert info.value.key == "/registry/secrets/default/other"
    assert info.value.key_name == "key1"


def test_aesgcm_writes_what_go_reads() -> None:
    t = AESGCMTransformer([("key1", K16)])
    stored = t.transform_to_storage(PLAIN, KEY)
    prefix = b"k8s:enc:aesgcm:v1:key1:"
    assert stored.startswith(prefix)
    body = stored[len(prefix):]
    assert len(body) == 12 + len(PLAIN) + 16
    assert AESGCM(K16).decrypt(body[:12], body[12:], KEY) == PLAIN
    # a fresh nonce per write
    assert t.transform_to_storage(PLAIN, KEY) != stored


@pytest.mark.parametrize("size", [16, 24, 32])
def test_aesgcm_key_sizes(size: int) -> None:
    secret = os.urandom(size)
    t = AESGCMTransformer({"k": secret})
    assert t.transform_from_storage(go_aesgcm("k", secret, PLAIN, KEY), KEY) == (PLAIN, False)


def test_aesgcm_wrong_key_and_tampering_never_yield_plaintext() -> None:
    stored = go_aesgcm("key1", K32, PLAIN, KEY)
    wrong = AESGCMTransformer({"key1": K32B})
    with pytest.raises(TransformError, match="cipher: message authentication failed"):
        wrong.transform_from_storage(stored, KEY)
    right = AESGCMTransformer({"key1": K32})
    prefix_len = len(b"k8s:enc:aesgcm:v1:key1:")
    for pos in (prefix_len, prefix_len + 12, len(stored) - 1):  # nonce, ciphertext, tag
        tampered = bytearray(stored)
        tampered[pos] ^= 0x01
        with pytest.raises(TransformError):
            right.transform_from_storage(bytes(tampered), KEY)
    with pytest.raises(TransformError, match="the stored data was shorter than the required size"):
        right.transform_from_storage(stored[:prefix_len + 5], KEY)


def test_aesgcm_key_rotation_reads_old_key_as_stale() -> None:
    old = go_aesgcm("old", K16, PLAIN, KEY)
    t = AESGCMTransformer({"new": K32, "old": K16})
    assert t.transform_from_storage(old, KEY) == (PLAIN, True)
    assert t.transform_from_storage(go_aesgcm("new", K32, PLAIN, KEY), KEY) == (PLAIN, False)
    assert t.transform_to_storage(PLAIN, KEY).startswith(b"k8s:enc:aesgcm:v1:new:")
    with pytest.raises(TransformError, match="^no matching key was found for the provided AES transformer$"):
        t.transform_from_storage(go_aesgcm("gone", K16, PLAIN, KEY), KEY)


def test_gcm_counter_nonce_layout() -> None:
    c = GCMCipher(K32, counter_nonce=True)
    a, b = c.transform_to_storage(b"x", KEY), c.transform_to_storage(b"x", KEY)
    ca, cb = int.from_bytes(a[4:12], "little"), int.from_bytes(b[4:12], "little")
    assert ca == 1_000_000_001 and cb == ca + 1
    assert AESGCM(K32).decrypt(a[:12], a[12:], KEY) == b"x"


# ----------------------------------------------------------------------- AES-CBC


def test_aescbc_both_ways() -> None:
    t = AESCBCTransformer({"key1": K32})
    for plain in (PLAIN, b"", b"0123456789abcdef"):
        assert t.transform_from_storage(go_aescbc("key1", K32, plain), KEY) == (plain, False)
        stored = t.transform_to_storage(plain, KEY)
        body = stored[len(b"k8s:enc:aescbc:v1:key1:"):]
        dec = Cipher(algorithms.AES(K32), modes.CBC(body[:16])).decryptor()
        padded = dec.update(body[16:]) + dec.finalize()
        assert padded[:-padded[-1]] == plain and len(padded) % 16 == 0


def test_cbc_errors_have_go_texts() -> None:
    c = CBCCipher(K32, name="key1")
    with pytest.raises(TransformError, match="^the stored data was shorter than the required size$"):
        c.transform_from_storage(b"short", KEY)
    with pytest.raises(TransformError, match="^the stored data is not a multiple of the block size$"):
        c.transform_from_storage(bytes(16 + 17), KEY)
    with pytest.raises(TransformError, match=r"^invalid PKCS7 data \(empty or not padded\)$"):
        c.transform_from_storage(bytes(16), KEY)
    # a wrong key decrypts to noise whose padding does not check out (or, rarely, does:
    # CBC is unauthenticated; the codec then fails on the garbage)
    failures = 0
    for _ in range(20):
        stored = go_aescbc("key1", K32B, PLAIN)[len(b"k8s:enc:aescbc:v1:key1:"):]
        try:
            out, _ = c.transform_from_storage(stored, KEY)
        except TransformError as err:
            failures += 1
            assert str(err) in ("invalid padding on input", "invalid PKCS7 data (empty or not padded)")
        else:
            assert out != PLAIN
    assert failures >= 15


# ----------------------------------------------------------------------- secretbox


def test_secretbox_both_ways() -> None:
    t = SecretboxTransformer({"key1": K32})
    assert t.transform_from_storage(go_secretbox("key1", K32, PLAIN), KEY) == (PLAIN, False)
    stored = t.transform_to_storage(PLAIN, KEY)
    body = stored[len(b"k8s:enc:secretbox:v1:key1:"):]
    assert len(body) == 24 + 16 + len(PLAIN)
    assert nacl.secret.SecretBox(K32).decrypt(body[24:], body[:24]) == PLAIN


def test_secretbox_wrong_key_and_tampering() -> None:
    stored = go_secretbox("key1", K32, PLAIN)
    with pytest.raises(TransformError, match="output array was not large enough for encryption") as info:
        SecretboxTransformer({"key1": K32B}).transform_from_storage(stored, KEY)
    assert info.value.key_name == "key1"
    tampered = bytearray(stored)
    tampered[-1] ^= 0x80
    with pytest.raises(TransformError):
        SecretboxTransformer({"key1": K32}).transform_from_storage(bytes(tampered), KEY)
    with pytest.raises(TransformError, match="shorter than the required size"):
        SecretboxTransformer({"key1": K32}).transform_from_storage(stored[:40], KEY)


# ----------------------------------------------------------------------- the chain


def test_prefix_chain_reads_any_provider_writes_with_first() -> None:
    chain = PrefixTransformers(
        AESGCMTransformer({"key1": K32}),
        AESCBCTransformer({"key1": K32}),
        SecretboxTransformer({"key1": K32}),
        IdentityTransformer(),
    )
    assert chain.transform_from_storage(go_aesgcm("key1", K32, PLAIN, KEY), KEY) == (PLAIN, False)
    assert chain.transform_from_storage(go_aescbc("key1", K32, PLAIN), KEY) == (PLAIN, True)
    assert chain.transform_from_storage(go_secretbox("key1", K32, PLAIN), KEY) == (PLAIN, True)
    assert chain.transform_from_storage(PLAIN, KEY) == (PLAIN, True)
    assert chain.transform_to_storage(PLAIN, KEY).startswith(b"k8s:enc:aesgcm:v1:key1:")


def test_identity_first_skips_encrypted_data_to_the_next_provider() -> None:
    chain = PrefixTransformers(IdentityTransformer(), AESGCMTransformer({"key1": K32}))
    assert chain.transform_from_storage(PLAIN, KEY) == (PLAIN, False)
    assert chain.transform_from_storage(go_aesgcm("key1", K32, PLAIN, KEY), KEY) == (PLAIN, True)
    assert chain.transform_to_storage(PLAIN, KEY) == PLAIN


def test_same_provider_twice_tries_both_and_reports_all_errors() -> None:
    chain = PrefixTransformers(AESGCMTransformer({"a": K32}), AESGCMTransformer({"b": K16}))
    assert chain.transform_from_storage(go_aesgcm("b", K16, PLAIN, KEY), KEY) == (PLAIN, True)
    bad = go_aesgcm("b", K32B, PLAIN, KEY)  # key named b, wrong secret
    with pytest.raises(TransformError) as info:
        chain.transform_from_storage(bad, KEY)
    # the first provider has no key "b", the second fails authentication: both reported
    assert str(info.value) == ("[no matching key was found for the provided AES transformer, "
                               "cipher: message authentication failed]")
    assert info.value.key == KEY.decode()


def test_no_matching_prefix_uses_the_given_error() -> None:
    chain = PrefixTransformers(AESGCMTransformer({"a": K32}), error="no matching prefix found")
    with pytest.raises(TransformError, match="^no matching prefix found$"):
        chain.transform_from_storage(PLAIN, KEY)
    raw = PrefixTransformers(PrefixTransformer(b"p:", IdentityTransformer()))
    assert raw.transform_to_storage(b"x", KEY) == b"p:x"
    with pytest.raises(TransformError, match="^the provided value does not match any of the supported transformers$"):
        raw.transform_from_storage(b"x", KEY)


def test_provider_key_errors_are_go_texts() -> None:
    with pytest.raises(ConfigError, match="^aes provider has no valid keys$"):
        AESGCMTransformer({})
    with pytest.raises(ConfigError, match="^key with invalid name provided$"):
        AESGCMTransformer({"": K32})
    with pytest.raises(ConfigError, match="^key k has no provided secret$"):
        AESCBCTransformer({"k": b""})
    with pytest.raises(ConfigError, match="^error while creating cipher for named key k: crypto/aes: invalid key size 7$"):
        AESGCMTransformer({"k": b"1234567"})
    with pytest.raises(ConfigError, match="^expected key size 32 for secretbox provider, got 16$"):
        SecretboxTransformer({"k": K16})
    with pytest.raises(ConfigError, match="^secretbox provider has no valid keys$"):
        SecretboxTransformer([])


def test_str_keys_are_utf8() -> None:
    t = AESGCMTransformer({"k": K32})
    stored = t.transform_to_storage(PLAIN, KEY.decode())
    assert t.transform_from_storage(stored, KEY) == (PLAIN, False)


def test_benchmark_runs_once_per_provider() -> None:
    """Smoke run of asv_bench/benchmarks/bench_storage_value.py (no timing asserted)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "asv_bench"))
    from benchmarks.bench_storage_value import TransformValue

    for provider in TransformValue.params[0]:
        bench = TransformValue()
        bench.setup(provider)
        bench.time_to_storage(provider)
        bench.time_from_storage(provider)
        assert bench.chain.transform_from_storage(bench.stored, b"/registry/secrets/default/bench")[0] == bench.value
