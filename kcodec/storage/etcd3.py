"""The etcd v3 backend: :class:`Etcd3Store` on a real etcd cluster, over gRPC.

The client: etcd's v3 gRPC API through ``grpcio`` with the generated ``etcdserverpb``
messages and stubs that ``aetcd`` ships. Why that one: ``etcd3`` (0.12, 2020) no longer
imports with protobuf >= 4 (kcodec uses protobuf 7); ``aetcd`` is maintained and built for
current protobuf, but its client is asyncio-only while ``storage.Interface`` is
synchronous, so we drive its stubs over a synchronous ``grpc`` channel (binary protobuf,
unlike the JSON gateway, which would base64 every value of a 5000-Pod list).

What this module adds, as Go's ``clientv3`` does for apiserver: several endpoints with
fail-over (a member that refuses or drops the connection is skipped; reads retry on the
next member, writes only when etcd cannot have applied them, otherwise
:class:`~kcodec.storage.errors.StorageTimeoutError` says the outcome is unknown); watches
that require a leader and, when their stream breaks, resume on another member from the
revision after the last event delivered, so no event is lost or repeated.
"""
from __future__ import annotations

import queue
import threading
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from kcodec.errors import KCodecError
from kcodec.storage.errors import StorageTimeoutError, UnreachableError
from kcodec.storage.kv import (
    CompactedError,
    FutureRevisionError,
    KeyValue,
    RangeResult,
    RawEvent,
    TxnResult,
)
from kcodec.storage.store import Store

__all__ = ["Etcd3Store", "Etcd3KV", "parse_endpoints"]


def _rpc():
    # Imported on first use: the SQLite default must work without grpc installed.
    try:
        import grpc
        from aetcd.rpc import kv_pb2, rpc_pb2, rpc_pb2_grpc
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise KCodecError(f"the etcd backend needs the 'aetcd' and 'grpcio' packages "
                          f"(pip install 'kcodec[etcd]'): {exc}") from None
    return grpc, rpc_pb2, rpc_pb2_grpc, kv_pb2


def parse_endpoints(endpoints: str | Sequence[str]) -> list[tuple[str, bool]]:
    """``"http://127.0.0.1:2379,https://etcd:2379"`` (or a list) to ``[(host:port, tls)]``."""
    items = endpoints.split(",") if isinstance(endpoints, str) else list(endpoints)
    out: list[tuple[str, bool]] = []
    for raw in items:
        raw = raw.strip()
        if not raw:
            continue
        url = urlsplit(raw if "://" in raw else "http://" + raw)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"invalid etcd endpoint {raw!r}: want http://HOST:PORT or https://HOST:PORT")
        try:
            port = url.port or 2379
        except ValueError:
            raise ValueError(f"invalid etcd endpoint {raw!r}: bad port") from None
        host = f"[{url.hostname}]" if ":" in url.hostname else url.hostname
        out.append((f"{host}:{port}", url.scheme == "https"))
    if not out:
        raise ValueError("no etcd endpoints given")
    return out


def _kv(kv: Any) -> KeyValue:
    return KeyValue(kv.key, kv.value, kv.create_revision, kv.mod_revision, kv.version)


# Which of a member's stubs (KV, Watch, Maintenance, Lease) serves a method.
_STUB_OF = {"Status": 2, "LeaseGrant": 3}


class _LeaseManager:
    """apiserver's ``etcd3/lease_manager.go``: writes asking for a lease of about the same
    length share one, as granting one per write would load etcd (every Event of a busy
    cluster carries the same ``--event-ttl``). A lease is granted for the TTL plus a reuse
    window (5% of the TTL, at most 60 s) and reused while a write's expiry falls inside that
    window, for at most 1000 writes."""

    REUSE_DURATION_SECONDS = 60
    REUSE_DURATION_PERCENT = 0.05
    MAX_OBJECT_COUNT = 1000

    def __init__(self, grant: Any) -> None:
        self._grant = grant  # ttl seconds -> lease ID
        self._lock = threading.Lock()
        self._prev_id = 0
        self._prev_expiry = 0.0
        self._attached = 0

    def get_lease(self, ttl: int) -> int:
        now = time.monotonic()
        with self._lock:
            reuse = min(int(self.REUSE_DURATION_PERCENT * ttl), self.REUSE_DURATION_SECONDS)
            valid = now + ttl < self._prev_expiry
            sufficient = now + ttl + reuse > self._prev_expiry
            self._attached += 1
            if valid and sufficient and self._attached <= self.MAX_OBJECT_COUNT:
                return self._prev_id
            ttl += reuse
            self._prev_id = self._grant(ttl)
            self._prev_expiry = now + ttl
            self._attached = 1
            return self._prev_id


# gRPC failures after which etcd cannot have applied a write: the connection never came
# up, or etcd refused before proposing (no leader). Anything else may have been applied.
_NOT_SENT = ("failed to connect", "connection refused", "no leader", "not capable", "DNS resolution")


class Etcd3KV:
    """The etcd backend of the :class:`~kcodec.storage.kv.KV` contract.

    ``timeout`` bounds each operation including fail-over between members;
    ``request_timeout`` each attempt on one member (a proposal forwarded to a leader that
    just died is dropped, and etcd would only answer "request timed out" after 5 s plus two
    election timeouts; giving up sooner lets the next write reach the new leader);
    ``ca_file``/``cert_file``/``key_file`` are used for ``https://`` endpoints.
    ``fail_when_refused``: give up as soon as every endpoint has refused the connection,
    instead of retrying until ``timeout`` (a command-line tool pointed at a port where no
    etcd listens; a server keeps retrying, as the etcd client does while members restart).
    """

    def __init__(self, endpoints: str | Sequence[str], *, timeout: float = 10.0, request_timeout: float = 3.0,
                 ca_file: str | None = None, cert_file: str | None = None, key_file: str | None = None,
                 fail_when_refused: bool = False) -> None:
        self.endpoints = parse_endpoints(endpoints)
        self.fail_when_refused = fail_when_refused
        self.timeout = timeout
        self.request_timeout = request_timeout
        self._tls_files = (ca_file, cert_file, key_file)
        self._channels: dict[int, Any] = {}
        self._stubs: dict[int, tuple[Any, Any, Any, Any]] = {}
        self._active = 0
        self._lock = threading.Lock()
        self._closed = False
        self._watches: set[_EtcdWatch] = set()
        self._leases = _LeaseManager(self._grant_lease)
        grpc, self._pb, self._grpc_stubs, self._kvpb = _rpc()
        self._grpc = grpc

    def __repr__(self) -> str:
        return f"Etcd3KV({','.join(e for e, _ in self.endpoints)})"

    # ------------------------------------------------------------------ connections

    def _stub(self, index: int) -> tuple[Any, Any, Any, Any]:
        with self._lock:
            if self._closed:
                raise KCodecError("the etcd store is closed")
            stubs = self._stubs.get(index)
            if stubs is None:
                target, tls = self.endpoints[index]
                options = [("grpc.max_receive_message_length", 2 ** 31 - 1),
                           ("grpc.max_send_message_length", 2 ** 31 - 1),
                           ("grpc.initial_reconnect_backoff_ms", 100),
                           ("grpc.max_reconnect_backoff_ms", 1000)]
                if tls:
                    ca, cert, key = (open(f, "rb").read() if f else None for f in self._tls_files)
                    creds = self._grpc.ssl_channel_credentials(ca, key, cert)
                    channel = self._grpc.secure_channel(target, creds, options=options)
                else:
                    channel = self._grpc.insecure_channel(target, options=options)
                self._channels[index] = channel
                stubs = (self._grpc_stubs.KVStub(channel), self._grpc_stubs.WatchStub(channel),
                         self._grpc_stubs.MaintenanceStub(channel), self._grpc_stubs.LeaseStub(channel))
                self._stubs[index] = stubs
            return stubs

    def _failover(self, failed: int) -> None:
        with self._lock:
            if self._active == failed:
                self._active = (failed + 1) % len(self.endpoints)

    def close(self) -> None:
        for w in list(self._watches):
            w.close()
        with self._lock:
            self._closed = True
            channels, self._channels, self._stubs = list(self._channels.values()), {}, {}
        for channel in channels:
            channel.close()

    def _call(self, method: str, request: Any, *, mutation: bool, key: bytes = b"") -> Any:
        grpc = self._grpc
        deadline = time.monotonic() + self.timeout
        attempt = 0
        last = ""
        refused: set[int] = set()
        while True:
            index = self._active
            stub = self._stub(index)[_STUB_OF.get(method, 0)]
            left = deadline - time.monotonic()
            try:
                return getattr(stub, method)(request, timeout=max(min(left, self.request_timeout), 0.05))
            except grpc.RpcError as exc:
                code, details = exc.code(), exc.details() or ""
                if code == grpc.StatusCode.OUT_OF_RANGE and "compacted" in details:
                    raise CompactedError(0, getattr(request, "revision", 0)) from None
                if code == grpc.StatusCode.OUT_OF_RANGE and "future" in details:
                    raise FutureRevisionError(getattr(request, "revision", 0), 0) from None
                keyname = key.decode("utf-8", "replace")
                # etcd 3.4 hands its own request deadline back as UNKNOWN "context deadline
                # exceeded" (seen while a new leader is elected): a timeout like any other.
                retryable = code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) or (
                    code == grpc.StatusCode.UNKNOWN and "context deadline exceeded" in details)
                if not retryable:
                    raise KCodecError(f"etcd {method} {keyname!r}: {code.name}: {details}") from None
                not_sent = code == grpc.StatusCode.UNAVAILABLE and any(s in details for s in _NOT_SENT)
                last = f"{self.endpoints[index][0]}: {code.name}: {details}"
                self._failover(index)
                if mutation and not not_sent:
                    raise StorageTimeoutError(keyname, 0, f"the write may or may not have been applied ({last})") from None
                attempt += 1
                if not_sent and "refused" in details.lower():
                    refused.add(index)
                if self.fail_when_refused and len(refused) == len(self.endpoints):
                    raise UnreachableError(keyname, 0, f"connection refused by every etcd endpoint "
                                           f"({', '.join(e for e, _ in self.endpoints)})") from None
                if time.monotonic() + 0.05 >= deadline:
                    raise UnreachableError(keyname, 0, f"no etcd endpoint answered within {self.timeout:g}s "
                                           f"({', '.join(e for e, _ in self.endpoints)}); last error: {last}") from None
                time.sleep(min(0.05 * attempt, 0.25))

    # ------------------------------------------------------------------ KV contract

    def get(self, key: bytes) -> tuple[KeyValue | None, int]:
        resp = self._call("Range", self._pb.RangeRequest(key=key), mutation=False, key=key)
        return (_kv(resp.kvs[0]) if resp.kvs else None), resp.header.revision

    def range(self, key: bytes, range_end: bytes, *, revision: int = 0, limit: int = 0,
              count_only: bool = False) -> RangeResult:
        req = self._pb.RangeRequest(key=key, range_end=range_end, revision=revision, limit=limit,
                                    count_only=count_only)
        try:
            resp = self._call("Range", req, mutation=False, key=key)
        except FutureRevisionError:
            raise FutureRevisionError(revision, self.current_revision()) from None
        kvs = [] if count_only else [KeyValue(kv.key, kv.value, kv.create_revision, kv.mod_revision, kv.version)
                                     for kv in resp.kvs]
        return RangeResult(kvs, resp.count, resp.more, resp.header.revision)

    def _txn(self, key: bytes, expected: int, success: Any) -> TxnResult:
        pb = self._pb
        req = pb.TxnRequest(
            compare=[pb.Compare(result=pb.Compare.EQUAL, target=pb.Compare.MOD, key=key, mod_revision=expected)],
            success=[success],
            failure=[pb.RequestOp(request_range=pb.RangeRequest(key=key))])
        resp = self._call("Txn", req, mutation=True, key=key)
        if resp.succeeded:
            return TxnResult(True, resp.header.revision)
        kvs = resp.responses[0].response_range.kvs
        return TxnResult(False, resp.header.revision, _kv(kvs[0]) if kvs else None)

    def _grant_lease(self, ttl: int) -> int:
        # A grant that may have been applied twice only leaves an unused lease to expire.
        return self._call("LeaseGrant", self._pb.LeaseGrantRequest(TTL=ttl), mutation=False).ID

    def optimistic_put(self, key: bytes, value: bytes, expected_mod_revision: int, ttl: int = 0) -> TxnResult:
        pb = self._pb
        lease = self._leases.get_lease(ttl) if ttl > 0 else 0
        return self._txn(key, expected_mod_revision,
                         pb.RequestOp(request_put=pb.PutRequest(key=key, value=value, lease=lease)))

    def optimistic_delete(self, key: bytes, expected_mod_revision: int) -> TxnResult:
        pb = self._pb
        if expected_mod_revision == 0:
            # etcd's compare on a missing key sees mod_revision 0: never delete "nothing".
            kv, rev = self.get(key)
            return TxnResult(False, rev, kv)
        return self._txn(key, expected_mod_revision,
                         pb.RequestOp(request_delete_range=pb.DeleteRangeRequest(key=key)))

    def put_raw(self, key: bytes, value: bytes) -> int:
        """Write ``value`` at ``key`` unconditionally (tools and tests that plant raw data)."""
        resp = self._call("Put", self._pb.PutRequest(key=key, value=value), mutation=True, key=key)
        return resp.header.revision

    def current_revision(self) -> int:
        resp = self._call("Range", self._pb.RangeRequest(key=b"\x00", count_only=True), mutation=False)
        return resp.header.revision

    def compact(self, revision: int) -> None:
        self._call("Compact", self._pb.CompactionRequest(revision=revision, physical=True), mutation=True)

    def status(self) -> Any:
        """The answering member's ``StatusResponse`` (leader, raft term, version)."""
        return self._call("Status", self._pb.StatusRequest(), mutation=False)

    def watch(self, key: bytes, range_end: bytes | None, start_revision: int) -> _EtcdWatch:
        # etcd accepts a watch from a compacted revision and cancels it right after; ask
        # the same question with a range read first, so the caller gets the error now.
        current = self.current_revision()
        if start_revision <= current:
            try:
                self.range(key, range_end or b"", revision=start_revision, count_only=True)
            except CompactedError:
                # etcd's range error does not say how far it compacted; its watch does.
                probe = _EtcdWatch(self, key, range_end, start_revision)
                probe.start()
                try:
                    item = probe.events.get(timeout=self.timeout)
                except queue.Empty:
                    item = None
                finally:
                    probe.close()
                if isinstance(item, CompactedError):
                    raise CompactedError(item.compact_revision, start_revision) from None
                raise CompactedError(0, start_revision) from None
        w = _EtcdWatch(self, key, range_end, start_revision)
        self._watches.add(w)
        w.start()
        # Return once etcd has the watch: one created later than writes it should see
        # starts unsynced, and compaction in between would cancel it.
        w.created.wait(self.timeout)
        return w


_CLOSE = object()


class _Progress:
    """A progress notification in a watch's queue, kept in order with the event batches."""

    __slots__ = ("revision",)

    def __init__(self, revision: int) -> None:
        self.revision = revision


class _EtcdWatch:
    """One etcd watch stream, read by a daemon thread into a queue; resumes on failure."""

    def __init__(self, kv: Etcd3KV, key: bytes, range_end: bytes | None, start_revision: int) -> None:
        self.kv = kv
        self.key = key
        self.range_end = range_end or b""
        self.next_rev = start_revision
        self.events: queue.Queue[Any] = queue.Queue()
        self.closed = False
        self.reconnects = 0  # streams re-created after a failure (each resumes at next_rev)
        # The revision etcd said the stream has caught up to (progress notifications);
        # read after next_batch returns, so it never runs ahead of the events before it.
        self.progress_revision = 0
        self.created = threading.Event()  # set once etcd confirmed the watch (or it failed)
        self._unconfirmed = 0  # the last progress revision, not yet confirmed by a later one
        self._call: Any = None
        self._requests: queue.Queue[Any] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=f"kcodec-etcd-watch {key!r}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _request_iter(self, create: Any):
        yield create
        while True:
            item = self._requests.get()
            if item is _CLOSE:
                return
            yield item

    def _progress(self, revision: int) -> None:
        # A progress notification says no more events up to `revision`. etcd before
        # 3.4.25 / 3.5.8 may send it ahead of events it had queued (etcd-io/etcd#15220); those
        # are on the wire by the time the answer to a second request comes back, so a
        # revision is reported once a later notification confirms it.
        if self._unconfirmed:
            self.events.put(_Progress(self._unconfirmed))
            self._unconfirmed = revision
        else:
            self._unconfirmed = revision
            self.request_progress()

    def request_progress(self) -> None:
        """Ask etcd for a progress notification (``WatchProgressRequest``): a response
        with no events whose header revision the stream has reached; it arrives through
        :meth:`next_batch`, which then sets :attr:`progress_revision`.

        etcd before 3.4.25 / 3.5.8 sends it on the control path of the stream, which
        may overtake events etcd already queued (etcd issue 15220): a revision is only
        reported once a second notification confirms it."""
        if not self.closed:
            self._requests.put(self.kv._pb.WatchRequest(progress_request=self.kv._pb.WatchProgressRequest()))

    def _run(self) -> None:
        try:
            self._stream()
        finally:
            self.created.set()  # nobody waits for a watch that ended

    def _stream(self) -> None:
        grpc, pb = self.kv._grpc, self.kv._pb
        failing_since: float | None = None
        while not self.closed:
            index = self.kv._active
            try:
                stub = self.kv._stub(index)[1]
            except KCodecError:
                return
            create = pb.WatchRequest(create_request=pb.WatchCreateRequest(
                key=self.key, range_end=self.range_end, start_revision=self.next_rev, prev_kv=True))
            self._requests = queue.Queue()
            self._unconfirmed = 0  # a new stream starts unsynced: no progress carried over
            try:
                # "hasleader": a member cut off from the leader ends the stream instead of
                # going silent, so we move to a member that still hears the cluster.
                self._call = stub.Watch(self._request_iter(create), metadata=(("hasleader", "true"),))
                for resp in self._call:
                    failing_since = None
                    if resp.created:
                        self.created.set()
                    if resp.canceled:
                        if resp.compact_revision:
                            self.events.put(CompactedError(resp.compact_revision, self.next_rev))
                        else:
                            self.events.put(KCodecError(f"etcd cancelled the watch: {resp.cancel_reason}"))
                        return
                    if resp.compact_revision:
                        self.events.put(CompactedError(resp.compact_revision, self.next_rev))
                        return
                    if not resp.events:
                        if not resp.created and resp.header.revision:
                            self._progress(resp.header.revision)
                        continue
                    batch = []
                    for ev in resp.events:
                        if ev.type == 1:  # DELETE
                            batch.append(RawEvent("DELETE", _kv(ev.kv), _kv(ev.prev_kv) if ev.HasField("prev_kv") else None))
                        else:
                            batch.append(RawEvent("PUT", _kv(ev.kv), _kv(ev.prev_kv) if ev.HasField("prev_kv") else None))
                    self.next_rev = resp.events[-1].kv.mod_revision + 1
                    self.events.put(batch)
            except grpc.RpcError as exc:
                if self.closed:
                    return
                now = time.monotonic()
                failing_since = failing_since or now
                if now - failing_since > self.kv.timeout:
                    self.events.put(UnreachableError(self.key.decode("utf-8", "replace"), 0,
                                                     f"the watch stream failed for {self.kv.timeout:g}s: "
                                                     f"{exc.code().name}: {exc.details()}"))
                    return
                self.kv._failover(index)
                self.reconnects += 1
                time.sleep(0.1)
                continue
            if self.closed:
                return
            # The server ended the stream without an error (e.g. the member is stopping).
            self.kv._failover(index)
            self.reconnects += 1
            time.sleep(0.05)

    def next_batch(self, timeout: float | None) -> list[RawEvent]:
        try:
            item = self.events.get(timeout=timeout)
        except queue.Empty:
            return []
        if isinstance(item, BaseException):
            self.events.put(item)  # every later call reports it too
            raise item
        if isinstance(item, _Progress):
            self.progress_revision = max(self.progress_revision, item.revision)
            return []
        return item

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.events.put([])  # wakes a reader blocked in next_batch
        self._requests.put(_CLOSE)
        if self._call is not None:
            self._call.cancel()
        self.kv._watches.discard(self)


class Etcd3Store(Store):
    """:class:`kcodec.storage.Store` on etcd v3: ``Etcd3Store("http://127.0.0.1:2379", codec)``.

    ``endpoints`` is a comma-separated string or a list of URLs; keyword options
    ``timeout``, ``request_timeout``, ``ca_file``, ``cert_file``, ``key_file``,
    ``fail_when_refused`` go to :class:`Etcd3KV`.
    """

    def __init__(self, endpoints: str | Sequence[str], codec: Any, prefix: str = "/registry",
                 transformer: Any = None, **kwargs: Any) -> None:
        kv_options = {k: kwargs.pop(k) for k in ("timeout", "request_timeout", "ca_file", "cert_file", "key_file",
                                                   "fail_when_refused")
                      if k in kwargs}
        super().__init__(Etcd3KV(endpoints, **kv_options), codec, prefix, transformer, **kwargs)
