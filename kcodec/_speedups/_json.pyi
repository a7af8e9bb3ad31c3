"""Type stub of the compiled JSON kernels (twins of kcodec._native.json)."""
from typing import Any

__all__ = ["json_fill", "json_fill_vouched", "json_encode"]

def json_fill(obj: Any, cls: Any, data: bytes | bytearray | memoryview | str, strict: list[str] | None,
              path: str) -> None:
    """Parse JSON ``data`` and fill ``obj`` (an instance of compiled Struct ``cls``), Go-style
    (merge). ``strict``, when a list, collects unknown/duplicate field errors."""

def json_fill_vouched(obj: Any, cls: Any, data: bytes, start: int = 0, end: int | None = None) -> int:
    """Fill a fresh ``obj`` from JSON ``data``: 2 when the fill can stand for Go's MetaFactory
    pass too (valid text, every top-level key an exact field name), 1 when it is only a
    completed fill, 0 when ``obj`` must be discarded."""

def json_encode(obj: Any, pretty: bool, newline: bool = False) -> bytes:
    """Typed struct -> Go's JSON bytes (compact without newline, or pretty)."""

def _handovers() -> tuple[int, int]:
    """(decode, encode) counts of inputs left to the pure twins since import."""
