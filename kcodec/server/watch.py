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

    class _Event:
        type = "ERROR"
        object = error_to_api_status(err)

    return _Event()


def _is_stopped(watcher: Any) -> bool:
    for name in ("stopped", "_stopped"):
        v = getattr(watcher, name, None)
        if v is not None:
            return bool(v() if callable(v) else v)
    return False


async def serve_watch(request: web.Request, plan: WatchPlan, executor: Any = None) -> web.StreamResponse:
    """Stream ``plan``'s events to the client until the watch ends, times out or the client goes."""
    loop = asyncio.get_running_loop()
    watcher = plan.watcher
    resp = web.StreamResponse(status=200, headers={"Content-Type": plan.media_type})
    resp.enable_chunked_encoding()
    wake = asyncio.Event()
    pending: list[Any] = []
    done = threading.Event()
    finished = [False]

    def notify() -> None:
        try:
            loop.call_soon_threadsafe(wake.set)
        except RuntimeError:  # the loop closed while the watch was ending
            pass

    set_notify = getattr(watcher, "set_notify", None)
    reader: threading.Thread | None = None
    lock = threading.Lock()
    if callable(set_notify):
        set_notify(notify)
    else:
        def pump() -> None:
            try:
                while not done.is_set():
                    try:
                        ev = watcher.next(_POLL)
                    except Exception as err:  # noqa: BLE001 - delivered to the client as an ERROR event
                        with lock:
                            pending.append(_watch_error_event(err))
                            finished[0] = True
                        notify()
                        return
                    if ev is None:
                        if _is_stopped(watcher):
                            with lock:
                                finished[0] = True
                            notify()
                            return
                        continue
                    with lock:
                        pending.append(ev)
                    notify()
            finally:
                notify()

        reader = threading.Thread(target=pump, name="kcodec-watch", daemon=True)

    def drain() -> list[Any]:
        if reader is not None:
            with lock:
                out = list(pending)
                pending.clear()
            return out
        out = []
        while True:
            try:
                ev = watcher.next(0)
            except Exception as err:  # noqa: BLE001 - delivered to the client as an ERROR event
                out.append(_watch_error_event(err))
                finished[0] = True
                return out
            if ev is None:
                if _is_stopped(watcher):
                    finished[0] = True
                return out
            out.append(ev)

    deadline = loop.time() + plan.timeout if plan.timeout > 0 else None
    try:
        await resp.prepare(request)
        if reader is not None:
            reader.start()
        while True:
            wake.clear()
            events = drain()
            if events:
                chunks = []
                for ev in events:
                    try:
                        chunks.append(plan.encode(ev))
                    except Exception:  # noqa: BLE001 - Go logs the encode failure and ends the watch
                        _log.exception("failed to encode watch event")
                        return resp
                await resp.write(b"".join(chunks))
            if finished[0]:
                break
            if events:
                continue
            timeout = None if deadline is None else deadline - loop.time()
            if timeout is not None and timeout <= 0:
                break
            # A watcher may offer set_notify without every source behind it calling it (a
            # registry watcher over a storage watch without the cache): wake up now and
            # then to look anyway.
            step = _POLL if reader is None else None
            if step is not None and (timeout is None or step < timeout):
                timeout = step
            try:
                await asyncio.wait_for(wake.wait(), timeout)
            except asyncio.TimeoutError:
                if deadline is not None and loop.time() >= deadline:
                    break
        await resp.write_eof()
    except ConnectionResetError:
        pass
    finally:
        done.set()
        try:
            watcher.stop()
        except Exception:  # noqa: BLE001 - stopping a watch that already failed
            _log.debug("stopping a watcher failed", exc_info=True)
    return resp
