"""The key-value layer under :class:`kcodec.storage.Store`: what a backend must offer.

A backend is an MVCC store with etcd's data model (``mvccpb.KeyValue`` with create and mod
revisions, one global revision counter, compaction) and the handful of operations
apiserver's ``etcd3/store.go`` uses: a (historical) range read, an optimistic put and an
optimistic delete (a transaction comparing the key's mod revision, returning the current
value when the comparison fails), a watch from a revision, and compaction. Two backends
implement it: :mod:`kcodec.storage.etcd3` (a real etcd) and :mod:`kcodec.storage.sqlite`
(an embedded revision log, as kine keeps for k3s).
"""
from __future__ import annotations

import base64
import json
import posixpath

from kcodec.storage.interfaces import KV, KeyValue, RangeResult, RawEvent, RawWatch, TxnResult
from kcodec.errors import KCodecError
from kcodec.storage.errors import BadRequestError

__all__ = [
    "KeyValue",
    "RangeResult",
    "TxnResult",
    "RawEvent",
    "RawWatch",
    "KV",
    "CompactedError",
    "FutureRevisionError",
    "prefix_range_end",
    "encode_continue",
    "decode_continue",
]


class CompactedError(KCodecError):
    """The backend no longer has the revision asked for (etcd's ``ErrCompacted``)."""

    def __init__(self, compact_revision: int, requested: int = 0) -> None:
        self.compact_revision = compact_revision
        self.requested = requested
        super().__init__(f"mvcc: required revision has been compacted (requested {requested}, compacted {compact_revision})")


class FutureRevisionError(KCodecError):
    """A read at a revision the backend has not reached (etcd's ``ErrFutureRev``)."""

    def __init__(self, requested: int, current: int) -> None:
        self.requested = requested
        self.current = current
        super().__init__(f"mvcc: required revision is a future revision (requested {requested}, current {current})")


def prefix_range_end(prefix: bytes) -> bytes:
    """etcd's ``GetPrefixRangeEnd``: the smallest key greater than every key with ``prefix``.

    ``b"\\x00"`` means "no upper bound" (a prefix made only of 0xff bytes).
    """
    end = bytearray(prefix)
    for i in range(len(end) - 1, -1, -1):
        if end[i] < 0xFF:
            end[i] += 1
            return bytes(end[: i + 1])
    return b"\x00"


# ------------------------------------------------------------------ continue tokens
# apiserver's pkg/storage/continue.go: base64url (unpadded) of {"v","rv","start"} JSON,
# the start key relative to the list's key prefix.

_INVALID = "continue key is not valid"


def encode_continue(key: str, key_prefix: str, resource_version: int) -> str:
    """Go's ``storage.EncodeContinue``."""
    if not key.startswith(key_prefix) or key == key_prefix and key_prefix == "":
        raise ValueError("unable to encode next field: the key and key prefix do not match")
    next_key = key[len(key_prefix):]
    if next_key == key:
        raise ValueError("unable to encode next field: the key and key prefix do not match")
    # Go's json.Marshal escapes <, >, & and writes the fields in declaration order.
    body = json.dumps({"v": "meta.k8s.io/v1", "rv": resource_version, "start": next_key},
                      separators=(",", ":"), ensure_ascii=False)
    body = body.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return base64.urlsafe_b64encode(body.encode("utf-8")).rstrip(b"=").decode("ascii")


def decode_continue(continue_value: str, key_prefix: str) -> tuple[str, int]:
    """Go's ``storage.DecodeContinue``: the start key (with the prefix) and the revision.

    Raises :class:`BadRequestError` with Go's text (``invalid continue token: ...``).
    """
    def bad(detail: str) -> BadRequestError:
        return BadRequestError(f"invalid continue token: {detail}")

    try:
        padded = continue_value + "=" * (-len(continue_value) % 4)
        # Go's RawURLEncoding takes only the URL alphabet, unpadded (Python would skip junk).
        bad_at = next((i for i, ch in enumerate(continue_value) if not (ch.isascii() and (ch.isalnum() or ch in "-_"))), -1)
        if bad_at >= 0:
            raise ValueError(f"illegal base64 data at input byte {bad_at}")
        data = base64.urlsafe_b64decode(padded.encode("ascii"))
    except (ValueError, UnicodeEncodeError) as exc:
        raise bad(f"{_INVALID}: {exc}") from None
    try:
        token = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise bad(f"{_INVALID}: {exc}") from None
    if not isinstance(token, dict):
        raise bad(f"{_INVALID}: json: cannot unmarshal {type(token).__name__} into Go value of type storage.continueToken")
    version = token.get("v", "")
    if version != "meta.k8s.io/v1":
        raise bad(f"continue key is not valid: server does not recognize this encoded version {version}")
    rv = token.get("rv", 0)
    start = token.get("start", "")
    if not isinstance(rv, int) or isinstance(rv, bool) or not isinstance(start, str):
        raise bad(f"{_INVALID}: json: cannot unmarshal token fields")
    if rv == 0:
        raise bad("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    if not start:
        raise bad("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
    key = start if start.startswith("/") else "/" + start
    # path.Clean keeps a client from walking above the list's prefix with "..".
    cleaned = posixpath.normpath(key)
    if cleaned.startswith("//"):
        cleaned = "/" + cleaned.lstrip("/")
    if cleaned != key:
        raise bad(f"{_INVALID}: {start}")
    return key_prefix + cleaned[1:], rv

