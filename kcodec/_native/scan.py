"""Pure-Python twin of ``json_container_scan``: where a JSON string, object or array ends.

The JSON frame reader (``kcodec.serializer.framing.JSONFrameReader``, Go's json.Decoder
as the watch and manifest framers use it) finds each top-level value's end by following
strings, escapes and bracket nesting, resumably across reads. This is that inner loop; its
compiled twin is in ``kcodec/_speedups/_json.pyx``. Validation of the value itself is left
to the decoder that receives the frame.
"""
from __future__ import annotations

import re

__all__ = ["json_container_scan"]

_STRING_SPECIAL = re.compile(rb'["\\]')
#: Text between brackets: runs of other bytes and whole strings, in one match (a value
#: holds several strings per bracket; one match per bracket keeps the loop short). Stops
#: at a bracket, at a string that does not end in the buffer, or at the end.
_BETWEEN = re.compile(rb'(?:[^"{}\[\]]+|"[^"\\]*(?:\\.[^"\\]*)*")*')


def json_container_scan(buf: bytearray, pos: int, stack: bytearray, in_str: bool, string_only: bool,
                        max_depth: int) -> tuple[int, int, bool]:
    """Scan ``buf`` from ``pos`` for the end of the current value: ``(status, pos, in_str)``.

    ``stack`` holds the closing brackets expected (mutated in place); ``in_str`` says whether
    ``pos`` is inside a string; ``string_only`` that the value is a lone string, which ends
    at its closing quote. Status 1: the value ends just before ``pos``. 0: ``buf`` ran out;
    resume from ``pos`` with ``in_str`` once more input came. -1: an opening bracket at
    ``pos`` would nest deeper than ``max_depth``. -2: the bracket at ``pos`` does not close
    the innermost open one.
    """
    n = len(buf)
    while True:
        if in_str:
            m = _STRING_SPECIAL.search(buf, pos)
            if m is None:
                return 0, n, True
            i = m.start()
            if buf[i] == 0x22:
                in_str = False
                pos = i + 1
                if string_only:
                    return 1, pos, False
            elif i + 1 < n:
                pos = i + 2
            else:
                return 0, i, True  # the escaped byte is not here yet
        else:
            i = _BETWEEN.match(buf, pos).end()
            if i >= n:
                return 0, n, False
            c = buf[i]
            if c == 0x22:
                in_str = True
                pos = i + 1
            elif c == 0x7B or c == 0x5B:
                if len(stack) >= max_depth:
                    return -1, i, False
                stack.append(c + 2)  # } and ] are two code points after { and [
                pos = i + 1
            elif c == stack[-1]:
                stack.pop()
                pos = i + 1
                if not stack:
                    return 1, pos, False
            else:
                return -2, i, False
