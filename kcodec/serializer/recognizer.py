"""RecognizerDecoder: picks the decoder that recognises the data (Go: k8s.io/apimachinery/pkg/runtime/serializer/recognizer/recognizer.go)."""
from __future__ import annotations

from typing import Any

from kcodec.errors import DecodeError, StrictDecodingError
from kcodec.runtime.interfaces import Decoder, RecognizingDecoder
from kcodec.schema import GroupVersionKind

__all__ = ["RecognizerDecoder", "NO_MATCH_MESSAGE"]

NO_MATCH_MESSAGE = "no serialization format matched the provided data"


class RecognizerDecoder:
    """Tries decoders that recognise the data first, then those that are unsure, in order."""

    def __init__(self, *decoders: Decoder | RecognizingDecoder) -> None:
        self.decoders = list(decoders)

    def __repr__(self) -> str:
        return f"RecognizerDecoder({', '.join(map(repr, self.decoders))})"

    def recognizes_data(self, data: bytes) -> tuple[bool, bool]:
        """(recognized, unknown) over the recognizing members.

        Go returns a member's recognition error beside ``(False, any_unknown)``; here it is
        raised when no member recognised the data and none was unsure.
        """
        last_err: Exception | None = None
        any_unknown = False
        for d in self.decoders:
            probe = getattr(d, "recognizes_data", None)
            if probe is None:
                # Go consults only recognizing members here (decode still queues the rest).
                continue
            try:
                ok, unknown = probe(data)
            except Exception as err:  # noqa: BLE001 - remembered, as Go does
                last_err = err
                continue
            any_unknown = any_unknown or unknown
            if ok:
                return True, False
        if last_err is not None and not any_unknown:
            raise last_err
        return False, any_unknown

    def decode(self, data: bytes, defaults: GroupVersionKind | None = None,
               into: Any = None) -> tuple[Any, GroupVersionKind]:
        """Decode with the first decoder that recognises the data, else try the unsure ones."""
        last_err: Exception | None = None
        skipped = []
        for d in self.decoders:
            probe = getattr(d, "recognizes_data", None)
            if probe is None:
                skipped.append(d)
                continue
            try:
                ok, unknown = probe(data)
            except Exception as err:  # noqa: BLE001
                last_err = err
                continue
            if unknown:
                skipped.append(d)
                continue
            if ok:
                return d.decode(data, defaults, into)
        for d in skipped:
            try:
                return d.decode(data, defaults, into)
            except StrictDecodingError as err:
                if err.obj is not None:
                    raise
                last_err = err
            except Exception as err:  # noqa: BLE001 - next decoder gets its chance
                last_err = err
        if last_err is None:
            raise DecodeError(NO_MATCH_MESSAGE)
        raise last_err
