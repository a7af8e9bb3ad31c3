"""The arena cache (kcodec/_speedups/_arena.pyx, kcodec.speedups.arena_cache).

Each scenario runs in a fresh interpreter: the cache is a process-wide allocator hook whose
counters and state one test must not leave to the next. The checks are about behaviour,
not time: arenas freed by a large decode are kept and handed back on the next one (so it
takes almost no page faults), the cap holds, ``0`` and ``KCODEC_ARENA_CACHE`` turn it off,
and decoding through recycled memory gives the same objects.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from kcodec import speedups

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def kcodec_mode():
    """Overrides conftest's two-mode fixture: each scenario picks its mode in a subprocess."""
    yield "subprocess"


def run(code: str, **env: str) -> Any:
    """Run ``code`` in a fresh interpreter and return the JSON it prints last."""
    # The scenarios are about pymalloc's arenas: a PYTHONMALLOC of the outer run (malloc,
    # debug hooks) would change what there is to cache.
    environ = {k: v for k, v in os.environ.items() if not k.startswith("KCODEC_") and k != "PYTHONMALLOC"}
    environ.update(env)
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), environ.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, env=environ, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


needs_compiled = pytest.mark.skipif(
    not speedups.available() or not speedups.arena_cache().supported,
    reason="the compiled extension is not built, KCODEC_PURE=1, or no MADV_FREE here",
)

# Builds and drops about 30 MB (under the default cap) of small objects, twice, and reports the cache's counters
# and the minor page faults of the second round.
CHURN = """
    import json, resource
    from kcodec import speedups

    def churn():
        data = [[str(i), {"k": i}, [i, i + 1]] for i in range(150_000)]
        del data

    churn()
    after_first = speedups.arena_cache()._asdict()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    churn()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    print(json.dumps({"first": after_first, "second": speedups.arena_cache()._asdict(), "faults": faults}))
"""


@needs_compiled
def test_default_cap_and_reuse_of_freed_arenas() -> None:
    out = run(CHURN)
    first, second = out["first"], out["second"]
    assert first["installed"] and first["max_bytes"] == speedups.DEFAULT_ARENA_CACHE_MIB << 20
    assert first["kept"] > 20 and first["arena_bytes"] > 0
    assert first["cached_bytes"] == first["cached_arenas"] * first["arena_bytes"]
    assert second["cached_bytes"] <= second["max_bytes"]
    # The second round took its arenas from the cache instead of mapping new ones.
    assert second["reused"] - first["reused"] >= first["cached_arenas"] - 1


@needs_compiled
def test_cache_removes_the_page_faults_of_the_next_round() -> None:
    cached = run(CHURN)["faults"]
    uncached = run(CHURN, KCODEC_ARENA_CACHE="0")["faults"]
    # Without the cache every page of every remapped arena faults (thousands); with it,
    # the few that remain come from objects past the cap or outside pymalloc.
    assert uncached > 5000
    assert cached < uncached / 4


@needs_compiled
def test_environment_sets_or_disables_the_cap() -> None:
    off = run(CHURN, KCODEC_ARENA_CACHE="0")
    assert not off["second"]["installed"] and off["second"]["kept"] == 0
    small = run(CHURN, KCODEC_ARENA_CACHE="4")
    assert small["second"]["max_bytes"] == 4 << 20
    assert small["second"]["cached_bytes"] <= 4 << 20
    assert small["second"]["released"] > 0


@needs_compiled
def test_bad_environment_value_warns_and_keeps_the_default() -> None:
    out = run(
        """
        import json, warnings
        warnings.simplefilter("always")
        with warnings.catch_warnings(record=True) as caught:
            from kcodec import speedups
        print(json.dumps({"max": speedups.arena_cache().max_bytes,
                          "warnings": [str(w.message) for w in caught]}))
        """,
        KCODEC_ARENA_CACHE="lots",
    )
    assert out["max"] == speedups.DEFAULT_ARENA_CACHE_MIB << 20
    assert any("KCODEC_ARENA_CACHE='lots'" in w for w in out["warnings"])


@needs_compiled
def test_zero_releases_every_arena_and_uninstalls_then_reinstalls() -> None:
    out = run(
        """
        import json
        from kcodec import speedups
        data = [[str(i), [i]] for i in range(200_000)]
        del data
        held = speedups.arena_cache()
        off = speedups.arena_cache(0)
        data = [[str(i), [i]] for i in range(200_000)]
        del data
        still_off = speedups.arena_cache()
        speedups.arena_cache(2 << 20)
        data = [[str(i), [i]] for i in range(200_000)]
        del data
        again = speedups.arena_cache()
        print(json.dumps([held._asdict(), off._asdict(), still_off._asdict(), again._asdict()]))
        """
    )
    held, off, still_off, again = out
    assert held["cached_arenas"] > 0
    assert not off["installed"] and off["cached_arenas"] == 0 and off["max_bytes"] == 0
    assert still_off["kept"] == off["kept"] and still_off["cached_arenas"] == 0
    assert again["installed"] and again["max_bytes"] == 2 << 20
    assert 0 < again["cached_bytes"] <= 2 << 20


def test_pure_mode_installs_nothing() -> None:
    out = run(
        """
        import json
        from kcodec import speedups
        print(json.dumps(speedups.arena_cache()._asdict()))
        """,
        KCODEC_PURE="1",
    )
    assert out == {
        "supported": False, "installed": False, "max_bytes": 0, "arena_bytes": 0,
        "cached_arenas": 0, "cached_bytes": 0, "reused": 0, "fresh": 0, "kept": 0, "released": 0,
    }


def test_negative_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="must be >= 0 bytes, got -1"):
        speedups.arena_cache(-1)


@needs_compiled
def test_decoding_through_recycled_and_reclaimed_arenas_gives_the_same_objects() -> None:
    if not FIXTURES.is_dir():
        pytest.skip(f"Go fixtures not found at {FIXTURES}")
    out = run(
        f"""
        import json
        from kcodec import speedups
        from kcodec.api import codecs
        from kcodec.api.core import v1

        pb = next(i.serializer for i in codecs.supported_media_types()
                  if i.media_type == "application/vnd.kubernetes.protobuf")
        pod, _ = codecs.universal_deserializer().decode(open({str(FIXTURES / "core.v1.Pod.pb")!r}, "rb").read())
        items = []
        for i in range(300):
            p = pod.deep_copy()
            p.metadata.name = f"pod-{{i}}"
            items.append(p)
        wire = pb.encode(v1.PodList(api_version="v1", kind="PodList", items=items))
        reference, _ = pb.decode(wire)
        from kcodec._speedups import _arena
        same = dropped = 0
        for round in range(6):
            if round >= 3:
                # Arenas the kernel reclaimed come back zero-filled; pymalloc must not care.
                dropped += _arena._simulate_reclaim()
            again, _ = pb.decode(wire)
            same += again == reference and pb.encode(again) == wire
            del again
        print(json.dumps({{"same": same, "dropped": dropped, "cache": speedups.arena_cache()._asdict()}}))
        """
    )
    assert out["same"] == 6
    assert out["dropped"] > 0
    assert out["cache"]["reused"] > 0
