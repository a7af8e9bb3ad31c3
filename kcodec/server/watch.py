"""Streaming a watch over HTTP without blocking the event loop.

Go: k8s.io/apiserver pkg/endpoints/handlers/watch.go (WatchServer.HandleHTTP): a chunked
response in the stream media type, one framed WatchEvent per event, flushed when the queue is
empty, ended by the watch's end, the request's ``timeoutSeconds`` or the client leaving.

A watcher from the watch cache offers ``set_notify(callback)``: the callback (called from any
thread) wakes the event loop with ``loop.call_soon_threadsafe``, and the loop drains the ready
events with ``next(0)``. A watcher without it (a storage watch) is read by a dedicated thread
that blocks in ``next(timeout)`` and hands events over the same way.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from aiohttp import web

from kcodec.server.handlers import WatchPlan

__all__ = ["serve_watch"]

_log = logging.getLogger("kcodec.server")

_POLL = 0.25


def _watch_error_event(err: BaseException) -> Any:
    """An ERROR event carrying the Status of ``err`` (Go's watch.Error with an errors.StatusError's Status)."""
    from kcodec.server.status import error_to_api_status
    from kcodec.storage.store import WatchEvent

    return WatchEvent("ERROR", error_to_api_status(err))


def _is_stopped(watcher: Any) -> bool:
    for name in ("stopped", "_stopped"):
        v = getattr(watcher, name, None)
        if v is not None:
            return bool(v() if callable(v) else v)
    return False


class _EventSource:
    """A watcher's events as the event loop takes them: ``notify`` (any thread) wakes the
    loop, which calls :meth:`drain`. A watcher offering ``set_notify`` calls it itself and is
    drained with ``next(0)``; any other is read by a thread blocked in ``next(timeout)``."""

    def __init__(self, watcher: Any, notify: Any) -> None:
        self.watcher = watcher
        #: The watch ended (stopped, or an error was queued): nothing follows what drain gave.
        self.finished = False
        self._notify = notify
        self._pending: list[Any] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        #: The reading thread, or None when the watcher notifies by itself.
        self.reader: threading.Thread | None = None
        set_notify = getattr(watcher, "set_notify", None)
        if callable(set_notify):
            set_notify(notify)
        else:
            self.reader = threading.Thread(target=self._pump, name="kcodec-watch", daemon=True)

    def start(self) -> None:
        """Start the reading thread, if there is one."""
        if self.reader is not None:
            self.reader.start()

    def _pump(self) -> None:
        watcher = self.watcher
        try:
            while not self._done.is_set():
                try:
                    ev = watcher.next(_POLL)
                except Exception as err:  # noqa: BLE001 - delivered to the client as an ERROR event
                    with self._lock:
                        self._pending.append(_watch_error_event(err))
                        self.finished = True
                    self._notify()
                    return
                if ev is None:
                    if _is_stopped(watcher):
                        with self._lock:
                            self.finished = True
                        self._notify()
                        return
                    continue
                with self._lock:
                    self._pending.append(ev)
                self._notify()
        finally:
            self._notify()

    def drain(self) -> list[Any]:
        """The events ready now (an error becomes a final ERROR event)."""
        if self.reader is not None:
            with self._lock:
                out = list(self._pending)
                self._pending.clear()
            return out
        out = []
        while True:
            try:
                ev = self.watcher.next(0)
            except Exception as err:  # noqa: BLE001 - delivered to the client as an ERROR event
                out.append(_watch_error_event(err))
                self.finished = True
                return out
            if ev is None:
                if _is_stopped(self.watcher):
                    self.finished = True
                return out
            out.append(ev)

    def close(self) -> None:
        """End the reading thread and stop the watcher."""
        self._done.set()
        try:
            self.watcher.stop()
        except Exception:  # noqa: BLE001 - stopping a watch that already failed
            _log.debug("stopping a watcher failed", exc_info=True)


async def _write_events(resp: web.StreamResponse, plan: WatchPlan, events: list[Any]) -> bool:
    """Send ``events`` framed, in one chunk; False when one cannot be encoded (Go logs the
    encode failure and ends the watch)."""
    chunks = []
    for ev in events:
        try:
            chunks.append(plan.encode(ev))
        except Exception:  # noqa: BLE001 - Go logs the encode failure and ends the watch
            _log.exception("failed to encode watch event")
            return False
    await resp.write(b"".join(chunks))
    return True


async def serve_watch(request: web.Request, plan: WatchPlan, executor: Any = None) -> web.StreamResponse:
    """Stream ``plan``'s events to the client until the watch ends, times out or the client goes."""
    loop = asyncio.get_running_loop()
    resp = web.StreamResponse(status=200, headers={"Content-Type": plan.media_type})
    resp.enable_chunked_encoding()
    wake = asyncio.Event()

    def notify() -> None:
        try:
            loop.call_soon_threadsafe(wake.set)
        except RuntimeError:  # the loop closed while the watch was ending
            pass

    source = _EventSource(plan.watcher, notify)
    deadline = loop.time() + plan.timeout if plan.timeout > 0 else None
    try:
        await resp.prepare(request)
        source.start()
        while True:
            if deadline is not None and loop.time() >= deadline:
                break
            wake.clear()
            events = source.drain()
            if events and not await _write_events(resp, plan, events):
                return resp
            if source.finished:
                break
            if events:
                continue
            timeout = None if deadline is None else deadline - loop.time()
            if timeout is not None and timeout <= 0:
                break
            # A watcher may offer set_notify without every source behind it calling it (a
            # registry watcher over a storage watch without the cache): wake up now and
            # then to look anyway.
            if source.reader is None and (timeout is None or _POLL < timeout):
                timeout = _POLL
            try:
                await asyncio.wait_for(wake.wait(), timeout)
            except asyncio.TimeoutError:
                if deadline is not None and loop.time() >= deadline:
                    break
        await resp.write_eof()
    except ConnectionResetError:
        pass
    finally:
        source.close()
    return resp
