"""``kcodec.storage.Store``: apiserver's ``storage.Interface`` over a key-value backend.

Follows k8s.io/apiserver ``pkg/storage/etcd3/store.go`` and ``watcher.go`` (and the
versioner of ``pkg/storage/api_object_versioner.go``), written once against the small
backend contract of :mod:`kcodec.storage.kv` so that etcd and the embedded SQLite log
behave the same:

- every value goes through the storage codec (encode to the storage version, decode to
  the memory version) and the value transformer (encryption at rest) with the full
  storage key as authenticated data;
- an object's ``metadata.resourceVersion`` is the backend revision that last wrote it,
  never stored in the value itself;
- ``create`` is etcd's ``If(mod_revision(key) == 0).Then(Put)``; ``guaranteed_update``
  and ``delete`` compare the mod revision they read, and on a lost race retry with the
  state the failed transaction returned; an update whose encoding equals the stored bytes
  writes nothing;
- lists read one consistent revision, page with Go's continue tokens, and honour the
  ``resourceVersion``/``resourceVersionMatch`` rules of ``storage.ValidateListOptions``;
- watches start after a revision, deliver ADDED/MODIFIED/DELETED in revision order, and
  raise :class:`~kcodec.storage.errors.ResourceExpiredError` once the revision is compacted.
"""
from __future__ import annotations

import posixpath
import random
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from kcodec.errors import KCodecError
from kcodec.gofmt import quote as _go_quote  # Go's %q
from kcodec.storage.errors import (
    BadRequestError,
    CorruptObjectError,
    InvalidObjectError,
    KeyExistsError,
    KeyNotFoundError,
    ResourceExpiredError,
    ResourceVersionSetOnCreateError,
    TooLargeResourceVersionError,
)
from kcodec.storage.kv import (
    KV,
    CompactedError,
    FutureRevisionError,
    KeyValue,
    RawEvent,
    RawWatch,
    decode_continue,
    encode_continue,
    prefix_range_end,
)

__all__ = ["Store", "Preconditions", "WatchEvent", "Watcher", "ADDED", "MODIFIED", "DELETED", "BOOKMARK"]

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"
BOOKMARK = "BOOKMARK"

RESOURCE_VERSION_MATCH_NOT_OLDER_THAN = "NotOlderThan"
RESOURCE_VERSION_MATCH_EXACT = "Exact"

_EXPIRED_LIST = "The resourceVersion for the provided list is too old."
_EXPIRED_CONTINUE = ("The provided continue parameter is too old to display a consistent list result. "
                     "You can start a new list without the continue parameter.")
_INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new "
    "list without the continue parameter, or use the continue token in this response to retrieve the "
    "remainder of the results. Continuing with the provided token results in an inconsistent list - objects "
    "that were created, modified, or deleted between the time the first chunk was returned and now may show "
    "up in the list.")


class Preconditions:
    """Go's ``storage.Preconditions``: the UID and/or resourceVersion the object must have."""

    __slots__ = ("uid", "resource_version")

    def __init__(self, uid: str | None = None, resource_version: str | None = None) -> None:
        self.uid = uid
        self.resource_version = resource_version

    def __repr__(self) -> str:
        return f"Preconditions(uid={self.uid!r}, resource_version={self.resource_version!r})"

    def check(self, key: str, obj: Any) -> None:
        """Raise :class:`InvalidObjectError` (Go's text) when ``obj`` does not match."""
        if self.uid is not None and self.uid != _get_uid(obj):
            raise InvalidObjectError(key, 0, "Precondition failed: UID in precondition: "
                                     f"{self.uid}, UID in object meta: {_get_uid(obj)}")
        if self.resource_version is not None and self.resource_version != _get_rv(obj):
            raise InvalidObjectError(key, 0, "Precondition failed: ResourceVersion in precondition: "
                                     f"{self.resource_version}, ResourceVersion in object meta: {_get_rv(obj)}")


class WatchEvent(NamedTuple):
    """One watch event; unpacks as ``(type, object)``."""

    type: str
    object: Any


# ------------------------------------------------------------------ object metadata
# Go's meta.Accessor and APIObjectVersioner, for typed models (``.metadata``) and
# Unstructured objects (accessor methods).

def _object_meta(obj: Any, create: bool) -> Any:
    meta = getattr(obj, "metadata", None)
    if meta is None and create:
        from kcodec.api.meta.v1 import ObjectMeta

        meta = ObjectMeta()
        obj.metadata = meta
    return meta


def _get_rv(obj: Any) -> str:
    if hasattr(obj, "unstructured_content"):
        return obj.get_resource_version()
    meta = _object_meta(obj, False)
    return (meta.resource_version or "") if meta is not None else ""


def _get_uid(obj: Any) -> str:
    if hasattr(obj, "unstructured_content"):
        return obj.get_uid()
    meta = _object_meta(obj, False)
    return (meta.uid or "") if meta is not None else ""


def _set_rv(obj: Any, rev: int) -> None:
    value = str(rev) if rev else ""
    if hasattr(obj, "unstructured_content"):
        obj.set_resource_version(value)
        return
    meta = _object_meta(obj, bool(value))
    if meta is not None:
        meta.resource_version = value


def _needs_preparing(obj: Any) -> bool:
    if hasattr(obj, "unstructured_content"):
        return bool(obj.get_resource_version() or obj.get_self_link())
    meta = _object_meta(obj, False)
    return meta is not None and bool(meta.resource_version or meta.self_link)


def _prepare_for_storage(obj: Any) -> Any:
    """Go's ``PrepareObjectForStorage`` (clear resourceVersion and selfLink), on a copy
    when there is anything to clear, so the caller's object is left as it was."""
    if not _needs_preparing(obj):
        return obj
    obj = obj.deep_copy()
    if hasattr(obj, "unstructured_content"):
        obj.set_resource_version("")
        obj.set_self_link("")
    else:
        obj.metadata.resource_version = ""
        obj.metadata.self_link = ""
    return obj


def _parse_rv(resource_version: str, what: str = "resource version") -> int:
    """Go's ``ParseResourceVersion``: "" and "0" are 0; anything else a uint64."""
    if resource_version in ("", "0"):
        return 0
    if not isinstance(resource_version, str) or not resource_version.isdigit() or not resource_version.isascii():
        raise BadRequestError(
            f"invalid {what}: resourceVersion: Invalid value: {resource_version!r}: "
            f"strconv.ParseUint: parsing {resource_version!r}: invalid syntax")
    value = int(resource_version)
    if value >= 1 << 64:
        raise BadRequestError(
            f"invalid {what}: resourceVersion: Invalid value: {resource_version!r}: "
            f"strconv.ParseUint: parsing {resource_version!r}: value out of range")
    return value


class _State:
    """Go's ``objState``: the decoded object, its stored (untransformed) bytes, its mod
    revision (0 when the key is absent) and whether the transformer called it stale."""

    __slots__ = ("obj", "data", "rev", "stale")

    def __init__(self, obj: Any, data: bytes | None, rev: int, stale: bool) -> None:
        self.obj = obj
        self.data = data
        self.rev = rev
        self.stale = stale


class Store:
    """apiserver's ``storage.Interface`` (etcd3 ``store``) over a :class:`~kcodec.storage.kv.KV`.

    Keys are given relative to ``prefix`` (``"/pods/default/web"`` is stored at
    ``/registry/pods/default/web``). ``codec`` is a storage codec
    (:func:`kcodec.storage.new_storage_codec`); ``transformer`` transforms values on their
    way to and from the backend (``None``: stored as encoded). ``new_func`` returns an
    empty object of the stored kind (passed to ``try_update`` for a missing key when
    ``ignore_not_found``); ``new_list_func`` an empty list of it (what an empty
    ``get_list`` returns; otherwise the list kind is found from the first item).
    """

    def __init__(self, kv: KV, codec: Any, prefix: str = "/registry", transformer: Any = None, *,
                 new_func: Callable[[], Any] | None = None,
                 new_list_func: Callable[[], Any] | None = None) -> None:
        self.kv = kv
        self.codec = codec
        self.transformer = transformer
        self.new_func = new_func
        self.new_list_func = new_list_func
        # etcd3.New: path.Join("/", prefix) with a trailing slash, so "registry" and
        # "/registry" name the same place.
        joined = posixpath.normpath(posixpath.join("/", prefix))
        self.path_prefix = joined if joined.endswith("/") else joined + "/"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(prefix={self.path_prefix!r}, kv={self.kv!r})"

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the backend's connections."""
        self.kv.close()

    # --------------------------------------------------------------- keys and values

    def prepare_key(self, key: str, recursive: bool = False) -> str:
        """Go's ``storage.PrepareKey`` and ``store.prepareKey``: the full backend key."""
        if (key == ".." or key.startswith("../") or key.endswith("/..") or "/../" in key
                or key == "." or key.startswith("./") or key.endswith("/.") or "/./" in key):
            raise BadRequestError(f"invalid key: {_go_quote(key)}")
        if key in ("", "/"):
            raise BadRequestError(f"empty key: {_go_quote(key)}")
        if recursive and not key.endswith("/"):
            key += "/"
        if key.startswith(self.path_prefix):
            return key
        return self.path_prefix + (key[1:] if key.startswith("/") else key)

    def _to_storage(self, data: bytes, key: str) -> bytes:
        if self.transformer is None:
            return data
        return self.transformer.transform_to_storage(data, key.encode("utf-8"))

    def _from_storage(self, value: bytes, key: str, rev: int) -> tuple[bytes, bool]:
        if self.transformer is None:
            return value, False
        try:
            return self.transformer.transform_from_storage(value, key.encode("utf-8"))
        except KCodecError as exc:
            raise CorruptObjectError(key, rev, exc) from exc

    def _decode(self, data: bytes, key: str, rev: int) -> Any:
        try:
            obj, _ = self.codec.decode(data)
        except KCodecError as exc:
            raise CorruptObjectError(key, rev, exc) from exc
        except (ValueError, TypeError, IndexError, KeyError, OverflowError, RecursionError, MemoryError) as exc:
            # A decoder that let a Python error through on hostile bytes: still the key's fault.
            raise CorruptObjectError(key, rev, f"{type(exc).__name__}: {exc}") from exc
        _set_rv(obj, rev)
        return obj

    def decode_value(self, kv: KeyValue, rev: int | None = None) -> Any:
        """Transform and decode one stored value; the object carries ``rev`` (default: the
        value's mod revision). Raises :class:`CorruptObjectError` naming the key."""
        key = kv.key.decode("utf-8", "surrogateescape")
        revision = kv.mod_revision if rev is None else rev
        data, _ = self._from_storage(kv.value, key, revision)
        return self._decode(data, key, revision)

    def _encode(self, obj: Any) -> bytes:
        return self.codec.encode(obj)

    def _state(self, kv: KeyValue | None, key: str, ignore_not_found: bool) -> _State:
        if kv is None:
            if not ignore_not_found:
                raise KeyNotFoundError(key, 0)
            return _State(self.new_func() if self.new_func is not None else None, None, 0, False)
        data, stale = self._from_storage(kv.value, key, kv.mod_revision)
        return _State(self._decode(data, key, kv.mod_revision), data, kv.mod_revision, stale)

    # --------------------------------------------------------------- storage.Interface

    def get(self, key: str, ignore_not_found: bool = False, *, resource_version: str = "") -> Any:
        """The object at ``key``; ``None`` for a missing key when ``ignore_not_found``.

        ``resource_version`` is a not-older-than bound (Go's ``GetOptions.ResourceVersion``).
        """
        prepared = self.prepare_key(key)
        kv, revision = self.kv.get(prepared.encode("utf-8"))
        self._validate_minimum_rv(resource_version, revision)
        if kv is None:
            if ignore_not_found:
                return None
            raise KeyNotFoundError(prepared, 0)
        data, _ = self._from_storage(kv.value, prepared, kv.mod_revision)
        return self._decode(data, prepared, kv.mod_revision)

    def create(self, key: str, obj: Any, *, ttl: int = 0) -> Any:
        """Store ``obj`` at ``key`` unless the key exists; returns the stored object.

        ``ttl`` > 0: the key is deleted after that many seconds (an etcd lease; Go's
        ``Create(..., ttl)``). Raises :class:`KeyExistsError` when the key exists, and
        :class:`~kcodec.storage.errors.ResourceVersionSetOnCreateError` when ``obj``
        already carries a resourceVersion.
        """
        prepared = self.prepare_key(key)
        rv = _get_rv(obj)
        if rv and rv != "0":
            try:
                nonzero = int(rv) != 0
            except ValueError:
                nonzero = True
            if nonzero:
                raise ResourceVersionSetOnCreateError()
        data = self._encode(_prepare_for_storage(obj))
        value = self._to_storage(data, prepared)
        result = self.kv.optimistic_put(prepared.encode("utf-8"), value, 0, ttl)
        if not result.succeeded:
            raise KeyExistsError(prepared, 0)
        return self._decode(data, prepared, result.revision)

    def delete(self, key: str, *, preconditions: Preconditions | None = None,
               validate_deletion: Callable[[Any], None] | None = None,
               cached_existing_object: Any = None) -> Any:
        """Delete ``key``; returns the object as it was, carrying the delete's revision.

        Raises :class:`KeyNotFoundError` for a missing key and :class:`InvalidObjectError`
        when ``preconditions`` fail on the current object. ``validate_deletion(obj)`` may
        raise to refuse; both are re-checked when a cached object turns out stale.
        """
        prepared = self.prepare_key(key)
        bkey = prepared.encode("utf-8")

        def current() -> _State:
            kv, _ = self.kv.get(bkey)
            return self._state(kv, prepared, False)

        if cached_existing_object is not None:
            state = self._state_from_object(cached_existing_object)
            is_current = False
        else:
            state = current()
            is_current = True
        while True:
            try:
                if preconditions is not None:
                    preconditions.check(prepared, state.obj)
                if validate_deletion is not None:
                    validate_deletion(state.obj)
            except Exception:
                if is_current:
                    raise
                cached_rev = state.rev
                state, is_current = current(), True
                if cached_rev == state.rev:
                    raise
                continue
            result = self.kv.optimistic_delete(bkey, state.rev)
            if not result.succeeded:
                state = self._state(result.current, prepared, False)
                is_current = True
                continue
            return self._decode(state.data, prepared, result.revision)

    def guaranteed_update(self, key: str, try_update: Callable[[Any], Any], *,
                          preconditions: Preconditions | None = None, ignore_not_found: bool = False,
                          cached_existing_object: Any = None,
                          ttl_func: Callable[[Any], int] | None = None) -> Any:
        """Read, ``try_update(current) -> new``, write if the key did not change meanwhile;
        on a lost race, retry with the fresh state. Returns the stored object.

        ``try_update`` gets a freshly decoded object it may modify (``new_func()`` or
        ``None`` for a missing key when ``ignore_not_found``) and may raise to stop. When
        the new object encodes to the stored bytes nothing is written and the current
        object is returned. ``ttl_func(new)`` gives the lease in seconds the write gets
        (Go's update func returns it with the object); without one, or 0, the key is
        written without a lease and loses one it had, as Go's etcd3 store writes it.
        Raises :class:`KeyNotFoundError`, or :class:`InvalidObjectError` for failed
        ``preconditions``.
        """
        prepared = self.prepare_key(key)
        bkey = prepared.encode("utf-8")

        def current() -> _State:
            kv, _ = self.kv.get(bkey)
            return self._state(kv, prepared, ignore_not_found)

        if cached_existing_object is not None:
            state = self._state_from_object(cached_existing_object)
            is_current = False
        else:
            state = current()
            is_current = True
        conflicts = 0
        while True:
            if preconditions is not None:
                try:
                    preconditions.check(prepared, state.obj)
                except InvalidObjectError:
                    if is_current:
                        raise
                    state, is_current = current(), True
                    continue
            try:
                new_obj = try_update(state.obj)
            except Exception:
                if is_current:
                    raise
                cached_rev = state.rev
                state, is_current = current(), True
                if cached_rev == state.rev:
                    raise
                continue
            if new_obj is None:
                raise TypeError(f"try_update for {prepared} returned None: it must return the updated object")
            data = self._encode(_prepare_for_storage(new_obj))
            if not state.stale and data == state.data:
                if not is_current:
                    state, is_current = current(), True
                    if data != state.data:
                        continue
                if not state.stale:
                    return self._decode(state.data, prepared, state.rev)
            value = self._to_storage(data, prepared)
            ttl = int(ttl_func(new_obj) or 0) if ttl_func is not None else 0
            result = self.kv.optimistic_put(bkey, value, state.rev, ttl)
            if not result.succeeded:
                state = self._state(result.current, prepared, ignore_not_found)
                is_current = True
                conflicts += 1
                if conflicts > 2:
                    # Go retries at once; with many writers on one key most retries lose
                    # again, so after a few a short random pause spreads them out.
                    time.sleep(random.uniform(0, min(0.0005 * conflicts, 0.01)))
                continue
            return self._decode(data, prepared, result.revision)

    def _state_from_object(self, obj: Any) -> _State:
        rv = _parse_rv(_get_rv(obj))
        data = self._encode(_prepare_for_storage(obj))
        return _State(obj, data, rv, False)

    def count(self, key_prefix: str) -> int:
        """How many keys there are under ``key_prefix`` (Go's ``Stats().ObjectCount``)."""
        prepared = self.prepare_key(key_prefix, recursive=True).encode("utf-8")
        return self.kv.range(prepared, prefix_range_end(prepared), count_only=True).count

    def current_revision(self) -> int:
        """The backend's current revision (Go's ``GetCurrentResourceVersion``)."""
        return self.kv.current_revision()

    def compact(self, revision: int) -> None:
        """Drop history before ``revision`` (reads and watches older than it then fail).

        Raises :class:`ResourceExpiredError` when the store is already compacted at or past
        ``revision`` and :class:`TooLargeResourceVersionError` for a future revision.
        """
        try:
            self.kv.compact(revision)
        except CompactedError as exc:
            raise ResourceExpiredError(f"compaction to {revision}: mvcc: required revision has been compacted",
                                       compact_revision=exc.compact_revision) from None
        except FutureRevisionError:
            raise TooLargeResourceVersionError(revision, self.kv.current_revision()) from None

    def _validate_minimum_rv(self, minimum: str, actual: int) -> None:
        if not minimum:
            return
        minimum_rv = _parse_rv(minimum)
        if minimum_rv > actual:
            raise TooLargeResourceVersionError(minimum_rv, actual)

    def get_list(self, key_prefix: str, *, resource_version: str = "", resource_version_match: str = "",
                 limit: int = 0, continue_token: str = "",
                 predicate: Callable[[Any], bool] | None = None) -> Any:
        """The objects under ``key_prefix`` as the kind's list, read at one revision.

        ``resource_version`` and ``resource_version_match`` follow Go's
        ``ValidateListOptions``: "" reads the latest; "0" any (here: the latest); with
        ``"Exact"`` (or, legacy, a non-zero value with ``limit``) exactly that revision;
        otherwise not older than it. ``limit`` pages the answer: ``.metadata.continue_``
        then holds Go's continue token for the next page and
        ``.metadata.remaining_item_count`` what is left. ``predicate(obj)`` filters items
        (as a field or label selector would), in which case the remaining count is omitted.
        """
        key_prefix_full = self.prepare_key(key_prefix, recursive=True)
        if limit < 0:
            limit = 0
        with_rev, continue_key = self._validate_list_options(
            key_prefix_full, resource_version, resource_version_match, limit, continue_token)
        bprefix = key_prefix_full.encode("utf-8")
        range_end = prefix_range_end(bprefix)
        start = continue_key.encode("utf-8") if continue_key else bprefix
        paging = limit > 0
        items: list[Any] = []
        last_key = b""
        has_more = False
        count = 0
        page = limit
        while True:
            try:
                resp = self.kv.range(start, range_end, revision=with_rev, limit=page)
            except CompactedError as exc:
                if continue_token:
                    token = encode_continue(continue_key, key_prefix_full, -1)
                    raise ResourceExpiredError(_INCONSISTENT_CONTINUE, continue_token=token,
                                               compact_revision=exc.compact_revision) from None
                raise ResourceExpiredError(_EXPIRED_LIST, compact_revision=exc.compact_revision) from None
            except FutureRevisionError as exc:
                raise TooLargeResourceVersionError(exc.requested, exc.current) from None
            if with_rev == 0:
                self._validate_minimum_rv(resource_version, resp.revision)
                with_rev = resp.revision
            if not resp.kvs and resp.more:
                raise KCodecError("no results were found, but etcd indicated there were more values remaining")
            count = resp.count
            limit_reached = False
            for kv in resp.kvs:
                if paging and len(items) >= limit:
                    limit_reached = True
                    break
                last_key = kv.key
                obj = self.decode_value(kv)
                if predicate is None or predicate(obj):
                    items.append(obj)
            has_more = resp.more or limit_reached
            if limit_reached or not resp.more or (paging and len(items) >= limit):
                break
            # A predicate dropped items: fetch more, doubling the page as Go does.
            start = last_key + b"\x00"
            page = min(page * 2, 10000) if page else 0
        continue_value = ""
        remaining: int | None = None
        if has_more:
            continue_value = encode_continue(last_key.decode("utf-8", "surrogateescape") + "\x00",
                                             key_prefix_full, with_rev)
            if predicate is None:
                remaining = count - limit
        return self._finish_list(items, with_rev, continue_value, remaining)

    def _validate_list_options(self, key_prefix: str, resource_version: str, match: str, limit: int,
                               continue_token: str) -> tuple[int, str]:
        if continue_token:
            continue_key, continue_rv = decode_continue(continue_token, key_prefix)
            if resource_version and resource_version != "0":
                raise BadRequestError("specifying resource version is not allowed when using continue")
            return (continue_rv if continue_rv > 0 else 0), continue_key
        if not resource_version:
            return 0, ""
        parsed = _parse_rv(resource_version)
        if match == RESOURCE_VERSION_MATCH_NOT_OLDER_THAN:
            return 0, ""
        if match == RESOURCE_VERSION_MATCH_EXACT:
            return parsed, ""
        if match == "":
            return (parsed if limit > 0 and parsed > 0 else 0), ""
        raise BadRequestError(f"unknown ResourceVersionMatch value: {match}")

    def _finish_list(self, items: list[Any], rev: int, continue_value: str, remaining: int | None) -> Any:
        if self.new_list_func is not None:
            out = self.new_list_func()
        elif items:
            out = _list_for(items[0])
        else:
            out = None
        if out is None:
            from kcodec.api.meta.v1 import List as MetaList

            out = MetaList(api_version="v1", kind="List")
        if hasattr(out, "unstructured_content"):
            out.items = items
            out.set_resource_version(str(rev))
            out.set_continue(continue_value)
            out.set_remaining_item_count(remaining)
            return out
        out.items = items
        meta = out.metadata
        if meta is None:
            from kcodec.api.meta.v1 import ListMeta

            meta = out.metadata = ListMeta()
        meta.resource_version = str(rev)
        meta.continue_ = continue_value
        meta.remaining_item_count = remaining
        return out

    def watch(self, key: str, *, resource_version: str = "", recursive: bool = False,
              predicate: Callable[[Any], bool] | None = None) -> Watcher:
        """Watch ``key`` (or every key under it when ``recursive``) for changes after
        ``resource_version``.

        With "" or "0" the watch first reports every existing object as ADDED (Go's
        legacy initial events), then changes after that read. Iterate the returned
        :class:`Watcher` for :class:`WatchEvent` s; it raises
        :class:`~kcodec.storage.errors.ResourceExpiredError` ("too old resource version")
        when the revision was compacted, and :class:`CorruptObjectError` for a value that
        does not decode. ``predicate(obj)`` filters as a selector does in Go: an object
        that starts matching is ADDED, one that stops matching DELETED (its last state).
        """
        prepared = self.prepare_key(key, recursive)
        rev = _parse_rv(resource_version)
        bkey = prepared.encode("utf-8")
        range_end = prefix_range_end(bkey) if recursive else None
        initial: list[KeyValue] = []
        if rev == 0:
            if recursive:
                resp = self.kv.range(bkey, range_end)  # type: ignore[arg-type]
                initial = resp.kvs
                rev = resp.revision
            else:
                kv, rev = self.kv.get(bkey)
                initial = [kv] if kv is not None else []
        try:
            raw = self.kv.watch(bkey, range_end, rev + 1)
        except CompactedError as exc:
            raise _too_old(rev, exc.compact_revision) from None
        return Watcher(self, raw, initial, rev, predicate)

    def _previous(self, event: RawEvent) -> KeyValue | None:
        if event.prev_kv is not None:
            return event.prev_kv
        key = event.kv.key
        found = self.kv.range(key, key + b"\x00", revision=event.kv.mod_revision - 1, limit=1).kvs
        return found[0] if found else None

    def transform_event(self, event: RawEvent, predicate: Callable[[Any], bool] | None = None) -> WatchEvent | None:
        """Go's ``watchChan.transform``: the event as the watcher sees it, ``None`` when
        ``predicate`` filters it out."""
        rev = event.kv.mod_revision
        if event.type == "DELETE":
            if event.prev_kv is None:
                raise KCodecError(f"etcd event received with PrevKv=nil (key={event.kv.key!r}, "
                                  f"modRevision={rev}, type=DELETE)")
            # The old object, at the revision of its deletion.
            old = self.decode_value(event.prev_kv, rev)
            return WatchEvent(DELETED, old) if predicate is None or predicate(old) else None
        cur = self.decode_value(event.kv)
        if event.is_create:
            return WatchEvent(ADDED, cur) if predicate is None or predicate(cur) else None
        if predicate is None:
            return WatchEvent(MODIFIED, cur)
        prev = self._previous(event)
        old = self.decode_value(prev, rev) if prev is not None else None
        cur_passes, old_passes = predicate(cur), old is not None and predicate(old)
        if cur_passes and old_passes:
            return WatchEvent(MODIFIED, cur)
        if cur_passes:
            return WatchEvent(ADDED, cur)
        if old_passes:
            return WatchEvent(DELETED, old)
        return None


def _too_old(rev: int, compact_revision: int) -> ResourceExpiredError:
    # The watch cache's wording, which is what clients of kube-apiserver see.
    return ResourceExpiredError(f"too old resource version: {rev} ({compact_revision})",
                                compact_revision=compact_revision)


def _list_for(item: Any) -> Any:
    if hasattr(item, "unstructured_content"):
        from kcodec.runtime import UnstructuredList

        out = UnstructuredList()
        api_version = item.get_api_version() if hasattr(item, "get_api_version") else ""
        kind = item.get_kind() if hasattr(item, "get_kind") else ""
        if api_version:
            out.set_api_version(api_version)
        if kind:
            out.set_kind(kind + "List")
        return out
    cls = type(item)
    module = sys.modules.get(cls.__module__)
    list_cls = getattr(module, cls.__name__ + "List", None) if module is not None else None
    if list_cls is None:
        return None
    out = list_cls()
    if getattr(item, "kind", "") and hasattr(out, "kind"):
        out.api_version = item.api_version
        out.kind = item.kind + "List"
    return out


class Watcher:
    """A running watch (Go's ``watch.Interface``): iterate it for :class:`WatchEvent` s.

    ``next(timeout)`` returns the next event or ``None`` when none came in ``timeout``
    seconds; ``stop()`` ends the watch (iteration then stops); also a context manager.
    ``resource_version`` is the revision of the last event delivered, the point to resume
    a watch from after a reconnect.
    """

    def __init__(self, store: Store, raw: RawWatch, initial: list[KeyValue], start_rev: int,
                 predicate: Callable[[Any], bool] | None = None) -> None:
        self._store = store
        self._predicate = predicate
        self._raw = raw
        self._initial: deque[KeyValue] = deque(initial)
        self._batch: deque[RawEvent] = deque()
        self._stopped = False
        self.resource_version = start_rev

    def __repr__(self) -> str:
        state = "stopped" if self._stopped else "running"
        return f"Watcher({state}, resource_version={self.resource_version})"

    def __enter__(self) -> Watcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """End the watch; idempotent."""
        self._stopped = True
        self._raw.close()

    def __iter__(self) -> Iterator[WatchEvent]:
        return self

    def __next__(self) -> WatchEvent:
        while True:
            event = self.next(timeout=1.0)
            if event is not None:
                return event
            if self._stopped:
                raise StopIteration

    def next(self, timeout: float | None = None) -> WatchEvent | None:
        """The next event, or ``None`` after ``timeout`` seconds (or once stopped)."""
        while self._initial:
            obj = self._store.decode_value(self._initial.popleft())
            # Initial events carry the object's own mod revision, as Go's sync() does.
            if self._predicate is None or self._predicate(obj):
                return WatchEvent(ADDED, obj)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            while not self._batch:
                if self._stopped:
                    return None
                left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
                try:
                    self._batch = deque(self._raw.next_batch(left))
                except CompactedError as exc:
                    self.stop()
                    raise _too_old(self.resource_version, exc.compact_revision) from None
                if not self._batch:
                    return None
            raw = self._batch.popleft()
            event = self._store.transform_event(raw, self._predicate)
            self.resource_version = raw.kv.mod_revision
            if event is not None:
                return event
