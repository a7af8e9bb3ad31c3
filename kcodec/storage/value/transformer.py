"""The transformer chain of encryption at rest: identity, prefixes, reading with any, writing with one.

Follows apiserver ``pkg/storage/value/transformer.go`` (prefix transformers) and
``pkg/storage/value/encrypt/identity``: a stored value names the provider and key that
wrote it in a plain prefix (``k8s:enc:aesgcm:v1:key1:``); reads try every configured
transformer whose prefix matches, writes use the first one. A read through anything but
the first transformer is *stale*: the caller should write the value again so it moves to
the current provider and key.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from kcodec.errors import TransformError
from kcodec.storage.interfaces import Transformer

__all__ = [
    "Transformer",
    "PrefixTransformer",
    "PrefixTransformers",
    "IdentityTransformer",
    "ENCRYPTED_PREFIX",
    "as_key",
    "reduce_errors",
]

#: Every encrypted value starts with this; JSON starts with ``{`` and protobuf with ``k8s\x00``.
ENCRYPTED_PREFIX = b"k8s:enc:"

KeyLike = Union[bytes, bytearray, memoryview, str]


def as_key(key: KeyLike) -> bytes:
    """The storage key as bytes (a ``str`` key is UTF-8, as Go's ``[]byte(string)``)."""
    if isinstance(key, str):
        return key.encode("utf-8")
    return bytes(key)


def _key_text(key: bytes | None) -> str | None:
    return None if key is None else key.decode("utf-8", "replace")


def reduce_errors(errors: list[TransformError], key: bytes) -> TransformError:
    """Go's ``errors.Reduce(errors.NewAggregate(errs))``: one error as is, several joined.

    The joined message lists each distinct message once, in brackets, as Go's aggregate.
    """
    if len(errors) == 1:
        return errors[0]
    seen: list[str] = []
    for err in errors:
        msg = str(err)
        if msg not in seen:
            seen.append(msg)
    text = seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"
    names = [e.key_name for e in errors if e.key_name]
    agg = TransformError(text, key=_key_text(key), key_name=", ".join(names) or None)
    agg.errors = list(errors)  # type: ignore[attr-defined]
    return agg


class IdentityTransformer:
    """Stores values as they are, and refuses to read a value that is encrypted.

    Go's ``identity.NewEncryptCheckTransformer``: listing ``identity`` first in an
    EncryptionConfiguration decrypts nothing by accident; the next provider is tried.
    """

    prefix = b""

    def __repr__(self) -> str:
        return "IdentityTransformer()"

    def transform_from_storage(self, data: bytes, key: KeyLike) -> tuple[bytes, bool]:
        data = bytes(data)
        if data.startswith(ENCRYPTED_PREFIX):
            raise TransformError("identity transformer tried to read encrypted data",
                                 key=_key_text(as_key(key)), key_name="identity")
        return data, False

    def transform_to_storage(self, data: bytes, key: KeyLike) -> bytes:
        return bytes(data)

    def prefix_transformer(self) -> PrefixTransformer:
        """This transformer under the empty prefix (how a config lists ``identity: {}``)."""
        return PrefixTransformer(b"", self)


@dataclass(frozen=True)
class PrefixTransformer:
    """A transformer and the prefix its values are stored under (stripped before it runs)."""

    prefix: bytes
    transformer: Any

    def __post_init__(self) -> None:
        if isinstance(self.prefix, str):
            object.__setattr__(self, "prefix", self.prefix.encode("utf-8"))

    def __repr__(self) -> str:
        return f"PrefixTransformer(prefix={self.prefix!r}, transformer={self.transformer!r})"


def _as_prefix_transformer(item: Any) -> PrefixTransformer:
    if isinstance(item, PrefixTransformer):
        return item
    make = getattr(item, "prefix_transformer", None)
    if callable(make):
        return make()
    raise TypeError(f"expected a PrefixTransformer or a provider transformer, got {type(item).__name__}")


class PrefixTransformers:
    """Reads with the first transformer whose prefix matches and whose read succeeds; writes with the first.

    ``PrefixTransformers(t1, t2, ..., error=...)`` takes :class:`PrefixTransformer` items or
    provider transformers (which know their own prefix: :class:`IdentityTransformer`,
    ``AESGCMTransformer``...). As in Go, a failed read under a matching prefix does not stop
    the search (two providers of one kind share a prefix while a key is rotated), a failed
    identity read is skipped silently, and the errors of every failed match are reported
    together. ``error`` is the text when no prefix matches. A value read by any but the
    first transformer is stale.
    """

    def __init__(self, *transformers: Any,
                 error: str = "the provided value does not match any of the supported transformers") -> None:
        items = [_as_prefix_transformer(t) for t in transformers]
        if not items:
            raise ValueError("PrefixTransformers needs at least one transformer")
        self.transformers: tuple[PrefixTransformer, ...] = tuple(items)
        self.error = error

    def __repr__(self) -> str:
        inner = ", ".join(repr(t) for t in self.transformers)
        return f"PrefixTransformers({inner})"

    def transform_from_storage(self, data: bytes, key: KeyLike) -> tuple[bytes, bool]:
        data = bytes(data)
        key_b = as_key(key)
        errors: list[TransformError] = []
        for i, pt in enumerate(self.transformers):
            prefix = pt.prefix
            if not data.startswith(prefix):
                continue
            try:
                result, stale = pt.transformer.transform_from_storage(data[len(prefix):], key_b)
            except TransformError as err:
                # Identity under the empty prefix refuses encrypted data so that the next
                # provider gets it; that refusal is not a failure worth reporting.
                if not prefix:
                    continue
                errors.append(err)
                continue
            return result, stale or i != 0
        if errors:
            raise reduce_errors(errors, key_b)
        raise TransformError(self.error, key=_key_text(key_b))

    def transform_to_storage(self, data: bytes, key: KeyLike) -> bytes:
        pt = self.transformers[0]
        return pt.prefix + pt.transformer.transform_to_storage(bytes(data), as_key(key))
