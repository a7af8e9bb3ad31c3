"""A Kubernetes API server for tests: :class:`APIServer` and the pytest fixture ``kube_apiserver``.

``APIServer`` runs ``kcodec serve``'s server on its own event loop in a background thread of the
test process (no binaries to download, ready in well under a second on SQLite)::

    from kcodec.testing import APIServer

    with APIServer() as server:            # sqlite::memory:, a free port on 127.0.0.1
        print(server.url, server.kubeconfig)

The pytest plugin (registered through the ``pytest11`` entry point) provides ``kube_apiserver``:
a server per test, stopped afterwards.
"""
from __future__ import annotations

import asyncio
import os
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["APIServer", "kube_apiserver"]


class APIServer:
    """A running API server (context manager); ``storage`` as ``kcodec serve --storage``.

    Other keyword options are :class:`kcodec.server.options.ServerOptions` fields (``tls``,
    ``token``, ``watch_cache_sizes``, ``controllers``...). ``url`` and ``kubeconfig`` (a file
    in a private temporary directory unless given) are set once the server is ready;
    :meth:`stop` stops it (also on leaving the ``with`` block). ``api_group_infos`` replaces
    the built-in API groups (see :class:`kcodec.server.runner.ServerRunner`).
    """

    def __init__(self, storage: str = "sqlite::memory:", *, start_timeout: float = 60.0,
                 api_group_infos: Any = None, **options: Any) -> None:
        from kcodec.server.options import ServerOptions

        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if not options.get("kubeconfig"):
            self._tmp = tempfile.TemporaryDirectory(prefix="kcodec-apiserver-")
            options["kubeconfig"] = os.path.join(self._tmp.name, "kubeconfig")
        options.setdefault("port", 0)
        self.options = ServerOptions(storage=storage, **options)
        self.start_timeout = start_timeout
        self.api_group_infos = api_group_infos
        self.url = ""
        self.kubeconfig = self.options.kubeconfig
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: Any = None
        self._stopped: asyncio.Event | None = None

    def __repr__(self) -> str:
        state = "running" if self.url and self._thread is not None else "stopped"
        return f"APIServer({self.options.storage!r}, url={self.url!r}, {state})"

    @property
    def token(self) -> str:
        return self.options.token

    @property
    def ca_pem(self) -> bytes | None:
        """The self-signed certificate of a ``tls=True`` server (its own CA)."""
        return self._runner.ca_pem if self._runner is not None else None

    def start(self) -> APIServer:
        """Start the server and wait until /readyz is ok; raises what start-up raised."""
        from kcodec.server.runner import ServerRunner

        if self._thread is not None:
            return self
        ready = threading.Event()
        failure: list[BaseException] = []
        self._runner = ServerRunner(self.options, api_group_infos=self.api_group_infos)

        async def main() -> None:
            self._stopped = asyncio.Event()
            try:
                self.url = await self._runner.start()
            except BaseException as err:  # noqa: BLE001 - handed to the starting thread
                failure.append(err)
                await self._runner.stop()
                ready.set()
                return
            ready.set()
            await self._stopped.wait()
            await self._runner.stop()
            # closed transports finish closing on the loop's next turns; let them, so none is
            # left for the garbage collector when the loop ends
            for _ in range(3):
                await asyncio.sleep(0)

        def thread() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(main())
                pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
                for t in pending:
                    t.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

        self._thread = threading.Thread(target=thread, name="kcodec-apiserver", daemon=True)
        self._thread.start()
        if not ready.wait(self.start_timeout):
            raise TimeoutError(f"kcodec API server not ready after {self.start_timeout} s")
        if failure:
            self._thread.join()
            self._thread = None
            self.stop()
            raise failure[0]
        return self

    def stop(self) -> None:
        """Stop the server and remove its temporary files; idempotent."""
        thread, self._thread = self._thread, None
        if thread is not None and self._loop is not None and self._stopped is not None:
            try:
                self._loop.call_soon_threadsafe(self._stopped.set)
            except RuntimeError:
                pass
            thread.join(30)
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> APIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _kube_apiserver_fixture() -> Any:
    import pytest

    @pytest.fixture
    def kube_apiserver() -> Iterator[APIServer]:
        """A kcodec API server on ``sqlite::memory:`` for one test (``.url``, ``.kubeconfig``)."""
        with APIServer() as server:
            yield server

    return kube_apiserver


def __getattr__(name: str) -> Any:
    # The fixture is made on first access, so a script that only starts an APIServer does not
    # import pytest (about 80 ms); pytest's plugin loader and ``from kcodec.testing import
    # kube_apiserver`` reach it through here. Without pytest the name does not exist.
    if name == "kube_apiserver":
        try:
            fixture = _kube_apiserver_fixture()
        except ImportError:  # pragma: no cover - the plugin needs pytest, the class does not
            raise AttributeError(f"module {__name__!r} has no attribute {name!r} (pytest is not installed)") from None
        globals()[name] = fixture
        return fixture
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"kube_apiserver"})
