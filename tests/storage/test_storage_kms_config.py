"""KMS v2 envelopes and EncryptionConfiguration files (kcodec.storage.value).

The KMS v2 vectors are built with ``protobuf`` (a message class made from the
``EncryptedObject`` definition of apiserver's kmsv2/v2/api.proto) and ``cryptography``
(HKDF-Expand SHA-256 + AES-GCM), never through kcodec.
"""
from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from kcodec.errors import ConfigError, DecodeError, TransformError
from kcodec.schema import GroupResource
from kcodec.storage.value import (
    AESGCMTransformer,
    KMSv1Transformer,
    LocalKMSv1,
    DecryptRequest,
    EncryptResponse,
    IdentityTransformer,
    KMSv2Transformer,
    LocalKMS,
    PrefixTransformers,
    StatusResponse,
    load_encryption_config,
    parse_encryption_config,
    transformer_for_resource,
)
from kcodec.storage.value.kms import (
    EncryptedObject,
    decode_encrypted_object,
    encode_encrypted_object,
)

KEY = b"/registry/secrets/default/s1"
PLAIN = b'{"kind":"Secret","apiVersion":"v1","data":{"a":"Yg=="}}\n'


def _encrypted_object_class():
    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="kcodec_test_kmsv2.proto", package="v2", syntax="proto3")
    m = fdp.message_type.add(name="EncryptedObject")
    m.field.add(name="encryptedData", number=1, type=F.TYPE_BYTES, label=F.LABEL_OPTIONAL)
    m.field.add(name="keyID", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    m.field.add(name="encryptedDEKSource", number=3, type=F.TYPE_BYTES, label=F.LABEL_OPTIONAL)
    e = m.nested_type.add(name="AnnotationsEntry")
    e.options.map_entry = True
    e.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    e.field.add(name="value", number=2, type=F.TYPE_BYTES, label=F.LABEL_OPTIONAL)
    m.field.add(name="annotations", number=4, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                type_name=".v2.EncryptedObject.AnnotationsEntry")
    en = fdp.enum_type.add(name="EncryptedDEKSourceType")
    en.value.add(name="AES_GCM_KEY", number=0)
    en.value.add(name="HKDF_SHA256_XNONCE_AES_GCM_SEED", number=1)
    m.field.add(name="encryptedDEKSourceType", number=5, type=F.TYPE_ENUM, label=F.LABEL_OPTIONAL,
                type_name=".v2.EncryptedDEKSourceType")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("v2.EncryptedObject"))


PB = _encrypted_object_class()


class RecordingKMS(LocalKMS):
    """LocalKMS that counts calls and can be told to fail."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.encrypts = 0
        self.decrypts = 0

    def encrypt(self, uid: str, plaintext: bytes) -> EncryptResponse:
        self.encrypts += 1
        return super().encrypt(uid, plaintext)

    def decrypt(self, uid: str, request: DecryptRequest) -> bytes:
        self.decrypts += 1
        return super().decrypt(uid, request)


def go_kmsv2_seed(name: str, kms: LocalKMS, plain: bytes, etcd_key: bytes, annotations=None) -> bytes:
    seed = os.urandom(32)
    resp = kms.encrypt("uid", seed)
    info, nonce = os.urandom(32), os.urandom(12)
    dek = HKDFExpand(algorithm=hashes.SHA256(), length=32, info=info).derive(seed)
    data = info + nonce + AESGCM(dek).encrypt(nonce, plain, etcd_key)
    o = PB(encryptedData=data, keyID=resp.key_id, encryptedDEKSource=resp.ciphertext, encryptedDEKSourceType=1)
    for k, v in (annotations or {}).items():
        o.annotations[k] = v
    return f"k8s:enc:kms:v2:{name}:".encode() + o.SerializeToString()


def go_kmsv2_key(name: str, kms: LocalKMS, plain: bytes, etcd_key: bytes) -> bytes:
    dek = os.urandom(32)
    resp = kms.encrypt("uid", dek)
    nonce = os.urandom(12)
    o = PB(encryptedData=nonce + AESGCM(dek).encrypt(nonce, plain, etcd_key), keyID=resp.key_id,
           encryptedDEKSource=resp.ciphertext)
    return f"k8s:enc:kms:v2:{name}:".encode() + o.SerializeToString()


# ----------------------------------------------------------------------- KMS v2


def test_kmsv2_reads_both_dek_source_types_go_writes() -> None:
    kms = RecordingKMS(os.urandom(32), "kek-1")
    t = KMSv2Transformer("vault", kms)
    assert t.transform_from_storage(go_kmsv2_seed("vault", kms, PLAIN, KEY, {"x.example.com": b"1"}), KEY) == (PLAIN, False)
    # AES_GCM_KEY values are stale: 1.29+ writes seeds
    assert t.transform_from_storage(go_kmsv2_key("vault", kms, PLAIN, KEY), KEY) == (PLAIN, True)


def test_kmsv2_writes_what_go_reads() -> None:
    kms = RecordingKMS(os.urandom(32), "kek-1")
    t = KMSv2Transformer("vault", kms)
    stored = t.transform_to_storage(PLAIN, KEY)
    prefix = b"k8s:enc:kms:v2:vault:"
    assert stored.startswith(prefix)
    o = PB()
    o.ParseFromString(stored[len(prefix):])
    assert o.keyID == "kek-1" and o.encryptedDEKSourceType == 1
    seed = kms.decrypt("uid", DecryptRequest(o.encryptedDEKSource, o.keyID))
    info, nonce, ct = o.encryptedData[:32], o.encryptedData[32:44], o.encryptedData[44:]
    dek = HKDFExpand(algorithm=hashes.SHA256(), length=32, info=info).derive(seed)
    assert AESGCM(dek).decrypt(nonce, ct, KEY) == PLAIN
    # our encoding is byte-identical to protobuf's for the same message
    assert encode_encrypted_object(decode_encrypted_object(stored[len(prefix):])) == o.SerializeToString()


def test_kmsv2_one_dek_per_key_id_and_cached_reads() -> None:
    kms = RecordingKMS(os.urandom(32), "kek-1")
    t = KMSv2Transformer("vault", kms)
    values = [t.transform_to_storage(PLAIN + bytes([i]), KEY) for i in range(5)]
    assert kms.encrypts == 1
    reader = KMSv2Transformer("vault", kms)
    for i, v in enumerate(values):
        assert reader.transform_from_storage(v, KEY)[0] == PLAIN + bytes([i])
    assert kms.decrypts == 1  # one DEK source, decrypted once
    # key rotation at the KMS: refresh makes a new DEK; old values read as stale
    kms.rotate(os.urandom(32), "kek-2")
    t.refresh()
    assert kms.encrypts == 2
    assert t.transform_from_storage(values[0], KEY) == (PLAIN + b"\x00", True)
    fresh = t.transform_to_storage(PLAIN, KEY)
    assert t.transform_from_storage(fresh, KEY) == (PLAIN, False)


def test_kmsv2_non_seed_mode_counter_nonces() -> None:
    kms = LocalKMS(os.urandom(32), "k")
    t = KMSv2Transformer("p", kms, use_seed=False)
    stored = t.transform_to_storage(PLAIN, KEY)
    o = PB()
    o.ParseFromString(stored[len(b"k8s:enc:kms:v2:p:"):])
    assert o.encryptedDEKSourceType == 0
    assert int.from_bytes(o.encryptedData[4:12], "little") == 1_000_000_001
    assert t.transform_from_storage(stored, KEY) == (PLAIN, False)


def test_kmsv2_tampering_wrong_kms_and_hostile_envelopes() -> None:
    kms = LocalKMS(os.urandom(32), "kek-1")
    t = KMSv2Transformer("vault", kms)
    stored = t.transform_to_storage(PLAIN, KEY)
    with pytest.raises(TransformError, match="cipher: message authentication failed") as info:
        t.transform_from_storage(stored, b"/registry/secrets/default/other")
    assert info.value.key == "/registry/secrets/default/other" and info.value.key_name == "vault"
    flipped = bytearray(stored)
    flipped[-1] ^= 1
    with pytest.raises(TransformError, match="cipher: message authentication failed"):
        t.transform_from_storage(bytes(flipped), KEY)
    other = KMSv2Transformer("vault", LocalKMS(os.urandom(32), "kek-1"))
    with pytest.raises(TransformError, match="^failed to decrypt DEK, error: ciphertext does not decrypt"):
        other.transform_from_storage(stored, KEY)
    unknown = KMSv2Transformer("vault", LocalKMS(os.urandom(32), "kek-9"))
    with pytest.raises(TransformError, match="^failed to decrypt DEK, error: unknown key id 'kek-1'$"):
        unknown.transform_from_storage(stored, KEY)
    prefix = b"k8s:enc:kms:v2:vault:"
    body = stored[len(prefix):]
    hostile = [
        (body[:len(body) // 2], "unexpected EOF"),
        (b"\x0a\xff\xff\xff\xff\x0f", "unexpected EOF"),  # 4 GiB length, nothing behind it
        (b"\x0a" + b"\xff" * 11, "proto: cannot parse invalid wire-format data"),
        (b"\x0b", "proto: cannot parse invalid wire-format data"),
        (b"", "encrypted data is empty"),
        (PB(encryptedData=b"x", keyID="k", encryptedDEKSource=b"s", encryptedDEKSourceType=7).SerializeToString(),
         "unknown encryptedDEKSourceType: 7"),
        (PB(encryptedData=b"x", keyID="k").SerializeToString(),
         "failed to validate encrypted DEK source: encrypted DEK source is empty"),
        (PB(encryptedData=b"x", encryptedDEKSource=b"s").SerializeToString(),
         "failed to validate key id: keyID is empty"),
        (PB(encryptedData=b"x", keyID="k", encryptedDEKSource=b"s" * 1025).SerializeToString(),
         "encrypted DEK source is 1025 bytes, which exceeds the max size of 1024"),
        (PB(encryptedData=b"x", keyID="k" * 1025, encryptedDEKSource=b"s").SerializeToString(),
         "keyID is 1025 bytes, which exceeds the max size of 1024"),
        (b"\x12\x02\xff\xfe", "proto: string field contains invalid UTF-8"),
    ]
    for data, message in hostile:
        with pytest.raises(TransformError) as info:
            t.transform_from_storage(prefix + data, KEY)
        assert message in str(info.value), (data, str(info.value))
        assert isinstance(info.value, DecodeError) and info.value.key == KEY.decode()
    bad_annotation = PB(encryptedData=b"x", keyID="k", encryptedDEKSource=b"s")
    bad_annotation.annotations["NotADomain"] = b"v"
    with pytest.raises(TransformError, match='^failed to validate annotations: annotations: Invalid value: "NotADomain"'):
        t.transform_from_storage(prefix + bad_annotation.SerializeToString(), KEY)


def test_kmsv2_unhealthy_kms_refresh_errors() -> None:
    class Broken(LocalKMS):
        def status(self) -> StatusResponse:
            return StatusResponse("v1", "down", "")

    t = KMSv2Transformer("p", Broken())
    with pytest.raises(Exception, match=r"^kmsv2 Provider p is not healthy, error: \[got unexpected healthz status: down, "
                                        r"expected KMSv2 API version v2, got v1, got invalid KMSv2 KeyID hash \"\": keyID is empty\]$"):
        t.refresh()


def test_envelope_decoding_skips_unknown_fields_like_protobuf_go() -> None:
    base = PB(encryptedData=b"x", keyID="k", encryptedDEKSource=b"s").SerializeToString()
    # field 9 (unknown, varint), field 2 sent as a varint (known number, other wire type: unknown too),
    # a fixed64 and a fixed32 field: all skipped, as protobuf-go skips them
    extra = b"\x48\x05" + b"\x10\x07" + b"\x51" + bytes(8) + b"\x5d" + bytes(4)
    o = decode_encrypted_object(base + extra)
    assert (o.encrypted_data, o.key_id, o.encrypted_dek_source) == (b"x", "k", b"s")
    with pytest.raises(DecodeError, match="unexpected EOF"):
        decode_encrypted_object(base + b"\x51" + bytes(3))


def test_envelope_codec_round_trip_and_proto_equivalence() -> None:
    eo = EncryptedObject(b"data", "key-id", b"src", {"b.example.com": b"2", "a.example.com": b"1"}, 1)
    raw = encode_encrypted_object(eo)
    assert decode_encrypted_object(raw) == eo
    o = PB()
    o.ParseFromString(raw)
    assert (o.encryptedData, o.keyID, o.encryptedDEKSource, dict(o.annotations), o.encryptedDEKSourceType) == (
        b"data", "key-id", b"src", {"a.example.com": b"1", "b.example.com": b"2"}, 1)


# ----------------------------------------------------------------------- KMS v1


def go_kmsv1(name: str, kms: LocalKMSv1, plain: bytes, etcd_key: bytes, cbc: bool = False) -> bytes:
    dek = os.urandom(32)
    enc_key = kms.encrypt(dek)
    if cbc:  # what 1.24 and earlier wrote
        iv = os.urandom(16)
        pad = 16 - len(plain) % 16
        e = Cipher(algorithms.AES(dek), modes.CBC(iv)).encryptor()
        body = iv + e.update(plain + bytes([pad]) * pad) + e.finalize()
    else:
        nonce = os.urandom(12)
        body = nonce + AESGCM(dek).encrypt(nonce, plain, etcd_key)
    return f"k8s:enc:kms:v1:{name}:".encode() + len(enc_key).to_bytes(2, "big") + enc_key + body


def test_kmsv1_reads_gcm_and_legacy_cbc_writes_gcm() -> None:
    kms = LocalKMSv1(os.urandom(32))
    t = KMSv1Transformer("old", kms)
    assert t.transform_from_storage(go_kmsv1("old", kms, PLAIN, KEY), KEY) == (PLAIN, False)
    assert t.transform_from_storage(go_kmsv1("old", kms, PLAIN, KEY, cbc=True), KEY) == (PLAIN, True)
    stored = t.transform_to_storage(PLAIN, KEY)
    body = stored[len(b"k8s:enc:kms:v1:old:"):]
    n = int.from_bytes(body[:2], "big")
    dek = kms.decrypt(body[2:2 + n])
    rest = body[2 + n:]
    assert AESGCM(dek).decrypt(rest[:12], rest[12:], KEY) == PLAIN
    with pytest.raises(TransformError, match="failed to read uint16 length prefixed data"):
        t.transform_from_storage(b"k8s:enc:kms:v1:old:\xff\xff" + b"x" * 10, KEY)
    with pytest.raises(TransformError, match="ciphertext does not decrypt under this KMS key"):
        KMSv1Transformer("old", LocalKMSv1(os.urandom(32))).transform_from_storage(stored, KEY)
    # another etcd key: GCM fails authentication; the CBC fallback fails on padding, or (rarely,
    # CBC being unauthenticated) yields garbage, never the plaintext
    try:
        out, _ = t.transform_from_storage(stored, b"/registry/secrets/default/other")
    except TransformError as err:
        assert "cipher: message authentication failed" in str(err)
    else:
        assert out != PLAIN


# ----------------------------------------------------------------------- EncryptionConfiguration


def b64(b: bytes) -> str:
    return base64.b64encode(b).decode()


AES_KEY = os.urandom(32)
AES_OLD = os.urandom(16)
BOX_KEY = os.urandom(32)

CONFIG = f"""
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources:
      - secrets
      - configmaps
    providers:
      - aesgcm:
          keys:
            - name: key2
              secret: {b64(AES_KEY)}
            - name: key1
              secret: {b64(AES_OLD)}
      - secretbox:
          keys:
            - name: box
              secret: {b64(BOX_KEY)}
      - identity: {{}}
  - resources:
      - "*.apps"
    providers:
      - aescbc:
          keys:
            - name: cbc
              secret: {b64(AES_KEY)}
  - resources:
      - "*.*"
    providers:
      - identity: {{}}
      - kms:
          apiVersion: v2
          name: vault
          endpoint: unix:///var/run/kms.sock
          timeout: 5s
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "encryption.yaml"
    p.write_text(text)
    return p


def test_load_config_builds_chains_per_resource(tmp_path: Path) -> None:
    kms = LocalKMS(os.urandom(32), "kek")
    overrides = load_encryption_config(write(tmp_path, CONFIG), kms_services={"vault": kms})
    assert set(overrides) == {GroupResource("", "secrets"), GroupResource("", "configmaps"),
                              GroupResource("apps", "*"), GroupResource("*", "*")}
    secrets = overrides[GroupResource("", "secrets")]
    stored = secrets.transform_to_storage(PLAIN, KEY)
    assert stored.startswith(b"k8s:enc:aesgcm:v1:key2:")
    body = stored[len(b"k8s:enc:aesgcm:v1:key2:"):]
    assert AESGCM(AES_KEY).decrypt(body[:12], body[12:], KEY) == PLAIN
    # old key, second provider, plain data: all read, all stale
    nonce = os.urandom(12)
    old = b"k8s:enc:aesgcm:v1:key1:" + nonce + AESGCM(AES_OLD).encrypt(nonce, PLAIN, KEY)
    assert secrets.transform_from_storage(old, KEY) == (PLAIN, True)
    assert secrets.transform_from_storage(PLAIN, KEY) == (PLAIN, True)
    # wildcard lookups as the API server does them
    assert transformer_for_resource(overrides, GroupResource("apps", "deployments")) is overrides[GroupResource("apps", "*")]
    assert transformer_for_resource(overrides, GroupResource("batch", "jobs")) is overrides[GroupResource("*", "*")]
    assert transformer_for_resource(overrides, GroupResource("", "secrets")) is secrets
    assert isinstance(transformer_for_resource({}, GroupResource("", "pods")), IdentityTransformer)
    everything = overrides[GroupResource("*", "*")]
    assert everything.transform_to_storage(PLAIN, KEY) == PLAIN
    kms_value = KMSv2Transformer("vault", kms).transform_to_storage(PLAIN, KEY)
    assert everything.transform_from_storage(kms_value, KEY) == (PLAIN, True)
    # the aescbc rule for *.apps writes what Go's CBC reads
    cbc = overrides[GroupResource("apps", "*")].transform_to_storage(PLAIN, b"/registry/deployments/a/b")
    raw = cbc[len(b"k8s:enc:aescbc:v1:cbc:"):]
    dec = Cipher(algorithms.AES(AES_KEY), modes.CBC(raw[:16])).decryptor()
    padded = dec.update(raw[16:]) + dec.finalize()
    assert padded[:-padded[-1]] == PLAIN


def test_legacy_kind_and_json_files(tmp_path: Path) -> None:
    text = ('{"kind":"EncryptionConfig","apiVersion":"v1","resources":[{"resources":["secrets"],'
            '"providers":[{"secretbox":{"keys":[{"name":"k","secret":"%s"}]}}]}]}' % b64(BOX_KEY))
    overrides = load_encryption_config(write(tmp_path, text))
    assert overrides[GroupResource("", "secrets")].transform_to_storage(b"x", KEY).startswith(b"k8s:enc:secretbox:v1:k:")


def expect(tmp_path: Path, text: str, message: str, **kw) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_encryption_config(write(tmp_path, text), **kw)
    assert str(info.value) == message, str(info.value)
    return info.value


HEAD = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n"


def test_validation_errors_name_the_field(tmp_path: Path) -> None:
    err = expect(tmp_path, HEAD + "resources:\n- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n",
                 "error while parsing file: resources[0].providers[0].aesgcm.keys: Required value: "
                 "at least one keys is required")
    assert err.field == "resources[0].providers[0].aesgcm.keys"
    err = expect(tmp_path, HEAD + f"""resources:
- resources: [secrets, "*."]
  providers:
  - aesgcm:
      keys:
      - name: k
        secret: {b64(b"short")}
      - secret: "not base64!"
  - {{}}
""", "error while parsing file: [resources[0].resources: Invalid value: [\"secrets\",\"*.\"]: using "
     "overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be "
     "masked, resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": secret is not of the "
     "expected length, got 5, expected one of [16 24 32], resources[0].providers[0].aesgcm.keys[1].name: Required "
     "value: name is a mandatory field for a key, resources[0].providers[0].aesgcm.keys[1].secret: Invalid value: "
     "\"REDACTED\": secrets must be base64 encoded, resources[0].providers[1]: Invalid value: "
     "{\"AESGCM\":null,\"AESCBC\":null,\"Secretbox\":null,\"Identity\":null,\"KMS\":null}: provider does not "
     "contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity]")
    assert [f for f, _ in err.errors] == [
        "resources[0].resources", "resources[0].providers[0].aesgcm.keys[0].secret",
        "resources[0].providers[0].aesgcm.keys[1].name", "resources[0].providers[0].aesgcm.keys[1].secret",
        "resources[0].providers[1]"]
    expect(tmp_path, HEAD + "resources:\n- resources: [Secrets, '*', deployments.extensions, events.events.k8s.io, "
                            "serviceipallocations, 'pods.*']\n  providers: [{identity: {}}]\n",
           "error while parsing file: [resources[0].resources: Invalid value: [\"Secrets\",\"*\","
           "\"deployments.extensions\",\"events.events.k8s.io\",\"serviceipallocations\",\"pods.*\"]: using "
           "overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will "
           "be masked, "  # "*" parses as the core group's "*." and so overlaps "Secrets", as in Go
           "resources[0].resources[0]: Invalid value: \"Secrets\": resource name should "
           "not contain capital letters, resources[0].resources[1]: Invalid value: \"*\": use '*.' to encrypt all "
           "the resources from core API group or *.* to encrypt all resources, resources[0].resources[2]: Invalid "
           "value: \"deployments.extensions\": 'extensions' group has been removed and cannot be used for "
           "encryption, resources[0].resources[3]: Invalid value: \"events.events.k8s.io\": '*.events.k8s.io' "
           "objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file, "
           "resources[0].resources[4]: Invalid value: \"serviceipallocations\": resources which do not have REST "
           "API/s cannot be encrypted, resources[0].resources[5]: Invalid value: \"pods.*\": encrypting the same "
           "resource across groups is not supported]")
    err = expect(tmp_path, HEAD + "resources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n"
                                  f"    aesgcm: {{keys: [{{name: k, secret: {b64(AES_KEY)}}}]}}\n",
                 "error while parsing file: resources[0].providers[0]: Invalid value: {\"AESGCM\":{\"Keys\":[{\"Name\":"
                 "\"k\",\"Secret\":\"REDACTED\"}]},\"AESCBC\":null,\"Secretbox\":null,\"Identity\":{},\"KMS\":null}: "
                 "more than one provider specified in a single element, should split into different list elements")
    assert b64(AES_KEY) not in str(err)  # Go prints the secret here; kcodec does not
    expect(tmp_path, HEAD + "resources: []\n",
           "error while parsing file: resources: Required value: at least one resources is required")
    expect(tmp_path, HEAD + """resources:
- resources: [secrets]
  providers:
  - kms: {name: "a:b", apiVersion: v2, endpoint: "tcp://x", timeout: -1s, cachesize: 5}
  - kms: {name: "a:b", apiVersion: v3, endpoint: "unix:///s"}
""", "error while parsing file: [resources[0].providers[0].kms.name: Invalid value: \"a:b\": invalid KMS provider "
     "name a:b, must not contain ':', resources[0].providers[0].kms.timeout: Invalid value: \"-1s\": timeout should be a "
     "positive value, resources[0].providers[0].kms.endpoint: Invalid value: \"tcp://x\": unsupported scheme \"tcp\" "
     "for KMS provider, only unix is supported, resources[0].providers[0].kms.cachesize: Invalid value: 5: cachesize "
     "is not supported in v2, resources[0].providers[1].kms.name: Invalid value: \"a:b\": invalid KMS provider name "
     "a:b, must not contain ':', resources[0].providers[1].kms.name: Invalid value: \"a:b\": duplicate KMS provider "
     "name a:b, names must be unique, resources[0].providers[1].kms.apiVersion: Invalid value: \"v3\": unsupported "
     "apiVersion apiVersion for KMS provider, only v1 and v2 are supported]")


def test_decoding_errors(tmp_path: Path) -> None:
    p = str(tmp_path / "encryption.yaml")
    expect(tmp_path, HEAD + "resources:\n- resources: [secrets]\n  providers:\n  - kms:\n      apiVersion: v2\n"
                            "      name: x\n      endpoint: unix:///s\n      pandas: are the best\n",
           f'error while parsing file: error decoding encryption provider configuration file "{p}": strict decoding '
           'error: unknown field "resources[0].providers[0].kms.pandas"')
    expect(tmp_path, "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfigurations\nresources: []\n",
           f'error while parsing file: error decoding encryption provider configuration file "{p}": no kind '
           '"EncryptionConfigurations" is registered for version "apiserver.config.k8s.io/v1" in scheme '
           '"k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go:142"')
    err = expect(tmp_path, HEAD + "resources:\n- resources: secrets\n",
                 f'error while parsing file: error decoding encryption provider configuration file "{p}": json: '
                 'cannot unmarshal string into Go struct field ResourceConfiguration.resources.resources of type '
                 '[]string')
    assert err
    expect(tmp_path, HEAD + "resources:\n- resources: [secrets]\n  providers:\n  - secretbox: [1]\n",
           f'error while parsing file: error decoding encryption provider configuration file "{p}": json: '
           'cannot unmarshal array into Go struct field ProviderConfiguration.resources.providers.secretbox of type '
           'v1.SecretboxConfiguration')
    expect(tmp_path, HEAD + "resources:\n- resources: [secrets]\n  providers:\n  - kms: {cachesize: 1.5}\n",
           f'error while parsing file: error decoding encryption provider configuration file "{p}": json: '
           'cannot unmarshal number 1.5 into Go struct field KMSConfiguration.resources.providers.kms.cachesize of '
           'type int32')
    expect(tmp_path, HEAD + "resources:\n- resources: [secrets]\n  providers:\n  - kms: {timeout: 10m0x}\n",
           f'error while parsing file: error decoding encryption provider configuration file "{p}": '
           'time: unknown unit "x" in duration "10m0x"')
    with pytest.raises(ConfigError, match="^error while parsing file: error while loading file: encryption provider "
                                          "configuration file .* is empty$"):
        load_encryption_config(write(tmp_path, ""))
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError, match=f'^error while parsing file: error while loading file: error reading '
                                          f'encryption provider configuration file "{missing}": open {missing}: '
                                          'no such file or directory$'):
        load_encryption_config(missing)


def test_building_errors(tmp_path: Path) -> None:
    expect(tmp_path, HEAD + "resources:\n- resources: ['*.apps']\n  providers: [{identity: {}}]\n"
                            "- resources: [deployments.apps]\n  providers: [{identity: {}}]\n",
           'error while building transformers: resource "deployments.apps" is masked by earlier rule "*.apps"')
    expect(tmp_path, HEAD + "resources:\n- resources: ['*.*']\n  providers: [{identity: {}}]\n"
                            "- resources: ['*.']\n  providers: [{identity: {}}]\n",
           'error while building transformers: resource "*." is masked by earlier rule "*.*"')
    expect(tmp_path, HEAD + "resources:\n- resources: [secrets]\n  providers:\n  - kms: {name: old, endpoint: "
                            "'unix:///s'}\n",
           "error while building transformers: KMSv1 is deprecated and will only receive security updates going "
           "forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.")
    v1 = HEAD + "resources:\n- resources: [secrets]\n  providers:\n  - kms: {name: old, endpoint: 'unix:///s'}\n"
    kms = LocalKMSv1()
    chain = load_encryption_config(write(tmp_path, v1), kms_services={"old": kms}, kms_v1=True)[GroupResource("", "secrets")]
    assert chain.transform_from_storage(go_kmsv1("old", kms, PLAIN, KEY), KEY) == (PLAIN, False)
    with pytest.raises(ConfigError, match="^error while building transformers: could not configure KMSv1-Plugin's "
                                          "probe \"old\", error: no KMS v1 service given"):
        load_encryption_config(write(tmp_path, v1), kms_v1=True)


def test_parse_encryption_config_from_bytes() -> None:
    overrides = parse_encryption_config(
        (HEAD + f"resources:\n- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n"
                f"      - name: k\n        secret: {b64(AES_KEY)}\n").encode())
    chain = overrides[GroupResource("", "secrets")]
    assert isinstance(chain, PrefixTransformers)
    assert AESGCMTransformer({"k": AES_KEY}).transform_from_storage(chain.transform_to_storage(PLAIN, KEY), KEY) == (PLAIN, False)


# ----------------------------------------------------------------------- KMS v2 plugin over gRPC


def _kms_api_classes() -> dict[str, Any]:
    """k8s.io/kms apis/v2 messages, built with protobuf (the plugin side of the test)."""
    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="kcodec_test_kmsapi.proto", package="v2", syntax="proto3")

    def msg(name: str, *fields: tuple[str, int, int], maps: tuple[tuple[str, int], ...] = ()) -> None:
        m = fdp.message_type.add(name=name)
        for fname, num, typ in fields:
            m.field.add(name=fname, number=num, type=typ, label=F.LABEL_OPTIONAL)
        for fname, num in maps:
            e = m.nested_type.add(name="AnnotationsEntry")
            e.options.map_entry = True
            e.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
            e.field.add(name="value", number=2, type=F.TYPE_BYTES, label=F.LABEL_OPTIONAL)
            m.field.add(name=fname, number=num, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                        type_name=f".v2.{name}.AnnotationsEntry")

    msg("StatusRequest")
    msg("StatusResponse", ("version", 1, F.TYPE_STRING), ("healthz", 2, F.TYPE_STRING), ("key_id", 3, F.TYPE_STRING))
    msg("DecryptRequest", ("ciphertext", 1, F.TYPE_BYTES), ("uid", 2, F.TYPE_STRING), ("key_id", 3, F.TYPE_STRING),
        maps=(("annotations", 4),))
    msg("DecryptResponse", ("plaintext", 1, F.TYPE_BYTES))
    msg("EncryptRequest", ("plaintext", 1, F.TYPE_BYTES), ("uid", 2, F.TYPE_STRING))
    msg("EncryptResponse", ("ciphertext", 1, F.TYPE_BYTES), ("key_id", 2, F.TYPE_STRING), maps=(("annotations", 3),))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return {n: message_factory.GetMessageClass(pool.FindMessageTypeByName("v2." + n))
            for n in ("StatusRequest", "StatusResponse", "DecryptRequest", "DecryptResponse", "EncryptRequest",
                      "EncryptResponse")}


@pytest.fixture
def kms_plugin():
    """A KMS v2 plugin (gRPC server on a unix socket) backed by LocalKMS; stopped afterwards."""
    import tempfile
    from concurrent import futures

    grpc = pytest.importorskip("grpc")
    api = _kms_api_classes()
    kms = LocalKMS(os.urandom(32), "kek-1")
    seen: list[tuple[str, Any]] = []

    def status(req: Any, ctx: Any) -> Any:
        seen.append(("Status", req))
        st = kms.status()
        return api["StatusResponse"](version=st.version, healthz=st.healthz, key_id=st.key_id)

    def encrypt(req: Any, ctx: Any) -> Any:
        seen.append(("Encrypt", req))
        resp = kms.encrypt(req.uid, req.plaintext)
        out = api["EncryptResponse"](ciphertext=resp.ciphertext, key_id=resp.key_id)
        out.annotations["kms.example.com"] = b"v1"
        return out

    def decrypt(req: Any, ctx: Any) -> Any:
        seen.append(("Decrypt", req))
        if dict(req.annotations) != {"kms.example.com": b"v1"}:
            ctx.abort(grpc.StatusCode.INVALID_ARGUMENT, "annotations lost")
        return api["DecryptResponse"](plaintext=kms.decrypt(req.uid, DecryptRequest(req.ciphertext, req.key_id)))

    def handler(fn: Any, req: str, resp: str) -> Any:
        return grpc.unary_unary_rpc_method_handler(fn, request_deserializer=api[req].FromString,
                                                   response_serializer=api[resp].SerializeToString)

    tmp = tempfile.mkdtemp(prefix="kms", dir="/tmp")
    sock = os.path.join(tmp, "kms.sock")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("v2.KeyManagementService", {
        "Status": handler(status, "StatusRequest", "StatusResponse"),
        "Encrypt": handler(encrypt, "EncryptRequest", "EncryptResponse"),
        "Decrypt": handler(decrypt, "DecryptRequest", "DecryptResponse"),
    })])
    server.add_insecure_port("unix://" + sock)
    server.start()
    try:
        yield "unix://" + sock, kms, seen
    finally:
        server.stop(None)
        if os.path.exists(sock):
            os.unlink(sock)
        os.rmdir(tmp)


def test_kms_v2_plugin_dialed_at_its_endpoint(tmp_path: Path, kms_plugin: Any) -> None:
    endpoint, kms, seen = kms_plugin
    text = (HEAD + "resources:\n- resources: [secrets]\n  providers:\n  - kms:\n      apiVersion: v2\n"
            f"      name: vault\n      endpoint: {endpoint}\n      timeout: 5s\n")
    chain = load_encryption_config(write(tmp_path, text))[GroupResource("", "secrets")]
    stored = chain.transform_to_storage(PLAIN, KEY)
    assert [name for name, _ in seen] == ["Encrypt"] and seen[0][1].uid and len(seen[0][1].plaintext) == 32
    o = PB()
    o.ParseFromString(stored[len(b"k8s:enc:kms:v2:vault:"):])
    assert o.keyID == "kek-1" and dict(o.annotations) == {"kms.example.com": b"v1"}
    # a fresh reader (cold DEK cache) asks the plugin to decrypt, annotations and key ID included
    reader = load_encryption_config(write(tmp_path, text))[GroupResource("", "secrets")]
    assert reader.transform_from_storage(stored, KEY) == (PLAIN, False)
    decrypts = [req for name, req in seen if name == "Decrypt"]
    assert len(decrypts) == 1 and decrypts[0].key_id == "kek-1" and decrypts[0].ciphertext == o.encryptedDEKSource
    # key rotated at the plugin: refresh sees it through Status and writes with a new DEK
    kms.rotate(os.urandom(32), "kek-2")
    from kcodec.storage.value.kms_grpc import GRPCKMSService

    service = GRPCKMSService(endpoint)
    t = KMSv2Transformer("vault", service)
    t.refresh()
    assert [name for name, _ in seen][-2:] == ["Status", "Encrypt"]
    assert t.transform_from_storage(stored, KEY) == (PLAIN, True)
    assert t.transform_from_storage(t.transform_to_storage(PLAIN, KEY), KEY) == (PLAIN, False)
    service.close()


def test_kms_v2_plugin_unreachable_fails_within_the_timeout(tmp_path: Path) -> None:
    pytest.importorskip("grpc")
    from kcodec.storage.value.kms_grpc import GRPCKMSService

    svc = GRPCKMSService(f"unix://{tmp_path}/nothing.sock", timeout=0.3)
    t = KMSv2Transformer("vault", svc)
    with pytest.raises(Exception, match=r"^failed to encrypt DEK, error: rpc error: code = (DeadlineExceeded|Unavailable) desc = "):
        t.transform_to_storage(PLAIN, KEY)
    svc.close()


def test_parse_kms_endpoint() -> None:
    from kcodec.errors import KCodecError
    from kcodec.storage.value.kms_grpc import parse_kms_endpoint

    assert parse_kms_endpoint("unix:///var/run/kms.sock") == "/var/run/kms.sock"
    assert parse_kms_endpoint("unix:///@abstract") == "@abstract"
    with pytest.raises(KCodecError, match='^unsupported scheme "tcp" for remote KMS provider$'):
        parse_kms_endpoint("tcp://127.0.0.1:1")
    with pytest.raises(KCodecError, match="^remote KMS provider can't use empty string as endpoint$"):
        parse_kms_endpoint("")
