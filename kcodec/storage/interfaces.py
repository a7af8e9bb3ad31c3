"""The storage layer's contracts: what kcodec.storage's stores, backends, value transformers
and key services keep (Go: k8s.io/apiserver/pkg/storage ``Interface``, pkg/storage/value
``Transformer``, pkg/server/storage ``ResourceEncodingConfig``, the KMS ``Service`` of
k8s.io/kms and apiserver's envelope package; the backend contract is kcodec's own, what
apiserver's etcd3 store asks of the etcd client).

As in :mod:`kcodec.runtime.interfaces`, these are ``runtime_checkable``
:class:`typing.Protocol` classes, errors are raised rather than returned, and
implementations refer to them instead of repeating them.

The values the contracts pass (etcd's ``mvccpb.KeyValue`` and the results of reads, writes
and watches; k8s.io/kms's requests and responses) are defined here with them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from kcodec.runtime.interfaces import WatchInterface
from kcodec.schema import GroupResource, GroupVersion

__all__ = [
    "Transformer",
    "StorageInterface",
    "ResourceEncodingConfig",
    "KV",
    "RawWatch",
    "KMSService",
    "KMSv1Service",
    "KeyValue",
    "RangeResult",
    "TxnResult",
    "RawEvent",
    "EncryptResponse",
    "DecryptRequest",
    "StatusResponse",
]


# ------------------------------------------------------------------ the values they pass
# (re-exported by kcodec.storage.kv and kcodec.storage.value.kms, where users meet them)

@dataclass(slots=True)
class KeyValue:
    """One stored key at one revision (etcd's ``mvccpb.KeyValue``)."""

    key: bytes
    value: bytes
    create_revision: int
    mod_revision: int
    version: int = 1


@dataclass(slots=True)
class RangeResult:
    """A range read: the keys (sorted), ``count`` of all keys in the range at that
    revision (not only those returned), ``more`` when ``limit`` cut the answer, and the
    store ``revision`` the read saw."""

    kvs: list[KeyValue]
    count: int
    more: bool
    revision: int


@dataclass(slots=True)
class TxnResult:
    """An optimistic write: whether it applied, the store revision after it, and (when it
    did not apply) the key's current value, ``None`` when the key is absent."""

    succeeded: bool
    revision: int
    current: KeyValue | None = None


@dataclass(slots=True)
class RawEvent:
    """A watch event as the backend sees it: ``"PUT"`` or ``"DELETE"``, the key's value
    after the event (for a delete: the key, empty value, the delete's revision as
    ``mod_revision``) and the value before it (always for deletes; for puts when the
    backend has it at hand, else ``None``)."""

    type: str
    kv: KeyValue
    prev_kv: KeyValue | None = None

    @property
    def is_create(self) -> bool:
        return self.type == "PUT" and self.kv.create_revision == self.kv.mod_revision



@dataclass
class EncryptResponse:
    """What a KMS returns for an encrypted DEK source (k8s.io/kms ``service.EncryptResponse``)."""

    ciphertext: bytes
    key_id: str
    annotations: dict[str, bytes] = field(default_factory=dict)


@dataclass
class DecryptRequest:
    """What is handed back to the KMS to decrypt (k8s.io/kms ``service.DecryptRequest``)."""

    ciphertext: bytes
    key_id: str
    annotations: dict[str, bytes] = field(default_factory=dict)


@dataclass
class StatusResponse:
    """A KMS's health (``"ok"`` when healthy), API version (``"v2"``) and current key ID."""

    version: str
    healthz: str
    key_id: str




@runtime_checkable
class Transformer(Protocol):
    """Changes a stored value on its way to and from storage (encryption at rest).

    The Python form of apiserver's ``storage/value.Transformer``. ``key`` is the value's
    storage key (the etcd key): authenticated transformers bind the ciphertext to it, so a
    value copied under another key does not read back. ``transform_to_storage(data, key)``
    returns the bytes to store; ``transform_from_storage(data, key)`` returns
    ``(plaintext, stale)``, ``stale`` being True when the value was read with something other
    than what writes use now (an older key or provider), so the caller should rewrite it
    even when the object is unchanged. A value that cannot be read raises
    :class:`kcodec.errors.TransformError`; plaintext is never returned for a value that does
    not verify.
    """

    def transform_to_storage(self, data: bytes, key: bytes, /) -> bytes: ...

    def transform_from_storage(self, data: bytes, key: bytes, /) -> tuple[bytes, bool]: ...


@runtime_checkable
class StorageInterface(Protocol):
    """apiserver's ``storage.Interface``: objects kept under keys, versioned by revision.

    Objects carry ``metadata.resourceVersion`` from the backend's revision. ``create``
    raises ``KeyExistsError`` for an existing key; ``get`` raises ``KeyNotFoundError``
    (or returns ``None`` with ``ignore_not_found``); ``guaranteed_update`` calls
    ``try_update(current) -> new`` until its write wins the optimistic-concurrency race
    and writes nothing when the bytes do not change; ``create``'s ``ttl`` and
    ``guaranteed_update``'s ``ttl_func(new)`` give the key a lease of that many seconds
    (Go's TTLs; 0: none); ``preconditions`` (UID and/or
    resourceVersion) raise ``InvalidObjectError`` when they fail; ``get_list`` returns the
    kind's list at one revision, paged by ``limit`` and Go's continue tokens; ``watch``
    reports changes after ``resource_version`` in revision order. Implemented by
    :class:`kcodec.storage.Store` (errors in :mod:`kcodec.storage.errors`).
    """

    def create(self, key: str, obj: Any, /, *, ttl: int = 0) -> Any: ...

    def get(self, key: str, ignore_not_found: bool = False) -> Any: ...

    def guaranteed_update(self, key: str, try_update: Callable[[Any], Any], *, preconditions: Any = None,
                          ignore_not_found: bool = False, ttl_func: Callable[[Any], int] | None = None) -> Any: ...

    def delete(self, key: str, *, preconditions: Any = None) -> Any: ...

    def get_list(self, key_prefix: str, *, resource_version: str = "", limit: int = 0,
                 continue_token: str = "") -> Any: ...

    def watch(self, key: str, *, resource_version: str = "", recursive: bool = False) -> WatchInterface: ...

    def count(self, key_prefix: str, /) -> int: ...


# Storage backends and key services: what kcodec.storage builds on.


@runtime_checkable
class ResourceEncodingConfig(Protocol):
    """Which version a resource is stored in, and which one the server holds in memory."""

    def storage_encoding_for(self, group_resource: GroupResource, /) -> GroupVersion: ...

    def in_memory_encoding_for(self, group_resource: GroupResource, /) -> GroupVersion: ...


@runtime_checkable
class RawWatch(Protocol):
    """A running backend watch. ``next_batch(timeout)`` returns the next events in revision
    order (an empty list on timeout) and raises :class:`kcodec.storage.kv.CompactedError` when the watch fell
    behind compaction; ``close()`` ends it and is idempotent."""

    def next_batch(self, timeout: float | None) -> list[RawEvent]: ...

    def close(self) -> None: ...


@runtime_checkable
class KV(Protocol):
    """The operations :class:`kcodec.storage.Store` needs from a backend.

    ``optimistic_put(..., ttl)``: ``ttl`` > 0 attaches the key to a lease of that many
    seconds (etcd's leases: when it runs out the key is deleted at a new revision and
    watchers see the delete); 0 writes it without one, dropping any lease it had.
    """

    def get(self, key: bytes) -> tuple[KeyValue | None, int]: ...

    def range(self, key: bytes, range_end: bytes, *, revision: int = 0, limit: int = 0,
              count_only: bool = False) -> RangeResult: ...

    def optimistic_put(self, key: bytes, value: bytes, expected_mod_revision: int, ttl: int = 0) -> TxnResult: ...

    def optimistic_delete(self, key: bytes, expected_mod_revision: int) -> TxnResult: ...

    def watch(self, key: bytes, range_end: bytes | None, start_revision: int) -> RawWatch: ...

    def compact(self, revision: int) -> None: ...

    def current_revision(self) -> int: ...

    def close(self) -> None: ...


@runtime_checkable
class KMSService(Protocol):
    """A key management service as KMS v2 uses it (k8s.io/kms ``pkg/service.Service``).

    ``encrypt(uid, plaintext)`` encrypts a DEK source under the KMS's current key;
    ``decrypt(uid, request)`` returns the plaintext of ``request.ciphertext`` (raising on
    an unknown key or a forged ciphertext); ``status()`` reports health and the key ID.
    ``uid`` identifies the request in the KMS's logs.
    """

    def encrypt(self, uid: str, plaintext: bytes, /) -> EncryptResponse: ...

    def decrypt(self, uid: str, request: DecryptRequest, /) -> bytes: ...

    def status(self) -> StatusResponse: ...


@runtime_checkable
class KMSv1Service(Protocol):
    """A KMS as the deprecated v1 envelope uses it (apiserver ``envelope.Service``).

    ``encrypt(dek)`` and ``decrypt(ciphertext)`` only: no key IDs, no annotations.
    """

    def encrypt(self, data: bytes, /) -> bytes: ...

    def decrypt(self, data: bytes, /) -> bytes: ...
