"""Human-readable durations, as k8s.io/apimachinery ``pkg/util/duration/duration.go``.

Durations are given in nanoseconds (Go's ``time.Duration``); Go truncates every division
towards zero, which ``_trunc`` reproduces for the negative values the "<invalid>" rule sees.
"""
from __future__ import annotations

__all__ = ["human_duration", "short_human_duration"]

_SECOND = 1_000_000_000
_MINUTE = 60 * _SECOND
_HOUR = 60 * _MINUTE


def _trunc(a: int | float, b: int) -> int:
    q = abs(a) // b
    return int(q if a >= 0 else -q)


def short_human_duration(d: int) -> str:
    """Go's ``duration.ShortHumanDuration``."""
    seconds = _trunc(d, _SECOND)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60:
        return f"{seconds}s"
    minutes = _trunc(d, _MINUTE)
    if minutes < 60:
        return f"{minutes}m"
    hours = _trunc(d, _HOUR)
    if hours < 24:
        return f"{hours}h"
    if hours < 24 * 365:
        return f"{hours // 24}d"
    return f"{hours // 24 // 365}y"


def human_duration(d: int) -> str:
    """Go's ``duration.HumanDuration``: two or three significant figures."""
    seconds = _trunc(d, _SECOND)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = d // _MINUTE
    if minutes < 10:
        s = (d // _SECOND) % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = d // _HOUR
    if hours < 8:
        m = (d // _MINUTE) % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"
