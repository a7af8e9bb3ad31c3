"""Tests of ``tools/server_profile.py``: py-spy's raw lines are read and each sample lands in the
layer of its innermost frame that has one. No profiler runs here (the tool itself needs py-spy
and a server); the lines are in py-spy 0.4's ``--format raw`` form.
"""
from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from kcodec import speedups

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("server_profile", ROOT / "tools" / "server_profile.py")
assert _spec is not None and _spec.loader is not None
server_profile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(server_profile)


@pytest.fixture(autouse=True)
def kcodec_mode() -> Iterator[str]:
    """Overrides conftest's two-mode fixture: nothing here runs kcodec's kernels."""
    previous = speedups.ENABLED
    yield "pure"
    speedups.use_compiled(previous)


_HANDLER = ("Thread._bootstrap (threading.py:1002);Thread.run (threading.py:982);"
            "_WorkItem.run (concurrent/futures/thread.py:58);get (kcodec/server/handlers.py:210)")

RAW = [
    # the event loop parsing a request: no kcodec frame at all
    "<module> (kcodec/__main__.py:7);run (asyncio/runners.py:118);_run_once (asyncio/base_events.py:1922);"
    "data_received (aiohttp/web_protocol.py:433) 7\n",
    # a GET's handler reading through the store into the watch cache
    f"{_HANDLER};Store.get (kcodec/registry/generic/store.py:640);Cacher.get (kcodec/storage/cacher.py:1101) 5\n",
    # the same handler encoding the response: the serializer is the innermost kcodec frame
    f"{_HANDLER};write_object (kcodec/server/responses.py:88);Serializer.encode (kcodec/serializer/json.py:301);"
    "dumps (json/__init__.py:231) 4\n",
    # validation called by the store's strategy is the registry's time
    f"{_HANDLER};Store.create (kcodec/registry/generic/store.py:559);"
    "validate_object_meta (kcodec/validation/objectmeta.py:90) 3\n",
    # the field manager runs in the handlers (Go's endpoints/handlers/fieldmanager)
    f"{_HANDLER};FieldManager.update (kcodec/managedfields/fieldmanager.py:77) 2\n",
    # a line with an absolute path, as py-spy prints files outside the working directory
    "run (/usr/lib/python3.11/threading.py:982);execute (/usr/lib/python3.11/sqlite3/dbapi2.py:1) 1\n",
    "\n",
]


def test_parse_raw_reads_frames_and_counts() -> None:
    samples = server_profile.parse_raw(RAW)
    assert [n for _, n in samples] == [7, 5, 4, 3, 2, 1]
    assert samples[1][0][-1] == "kcodec/storage/cacher.py"
    assert samples[0][0][0] == "kcodec/__main__.py"


def test_innermost_layer_wins() -> None:
    layers = [server_profile.layer(files) for files, _ in server_profile.parse_raw(RAW)]
    assert layers == ["http", "backend", "codec", "registry", "server", "backend"]


def test_shares_add_up_per_layer() -> None:
    split = server_profile.shares(server_profile.parse_raw(RAW))
    assert set(split) == set(server_profile.LAYERS)
    assert split["backend"] == pytest.approx(6 / 22)
    assert split["http"] == pytest.approx(7 / 22)
    assert sum(split.values()) == pytest.approx(1.0)
    assert server_profile.layer(["threading.py", "queue.py"]) == "other"
