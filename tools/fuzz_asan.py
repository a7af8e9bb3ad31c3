"""Coverage-guided fuzzing of the compiled kernels under AddressSanitizer (a developer tool, not CI).

    python tools/fuzz_asan.py --seconds 300            # build (cached), then fuzz for 5 minutes
    python tools/fuzz_asan.py --replay crash-*.bin      # run saved inputs once, under ASan

The hypothesis tests in tests/test_fuzz_compiled.py run the normal build, where an over-read
usually lands in mapped memory and goes unseen. This tool builds every ``kcodec/_speedups``
kernel a second time into a work directory (``--workdir``, default ``build/fuzz-asan``) with
``-fsanitize=address`` and GCC's ``-fsanitize-coverage=trace-pc``, and runs a child Python with
libasan preloaded, ``PYTHONMALLOC=malloc`` (so every bytes object gets ASan's red zones
instead of sitting inside a pymalloc arena) and a small coverage shim (``kcov.c`` below)
that counts the edges the C code takes. Inputs that reach new edges join the corpus, seeded
from the Go fixtures in ../shared (protobuf, JSON, YAML) and their CBOR re-encodings.

Findings are written to ``<workdir>/findings``: ``crash-<sha1>.bin`` for the input that was
running when ASan stopped the process (its report is on stderr), ``exc-<sha1>.bin`` and
``.txt`` for an exception that is not a ``kcodec.errors.KCodecError``. Each one belongs in a
regression test (tests/test_fuzz_compiled.py, tests/test_bad_input.py) once it is fixed.
Needs gcc with libasan (Debian: gcc, libasan8), Cython and numpy.
"""
from __future__ import annotations

import argparse
import ctypes
import glob
import hashlib
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures" / "k8s-api-v0.36.3" / "HEAD"

#: Edge map size: a power of two, as AFL's; ASan-built kernels take ~40k edges at most.
MAP_SIZE = 1 << 16

KCOV_C = r"""
/* Edge coverage for GCC's -fsanitize-coverage=trace-pc (libasan has no handler for it). */
#include <stdint.h>
#define MAP_SIZE %d
unsigned char kcov_map[MAP_SIZE];
static uintptr_t kcov_prev;
void __sanitizer_cov_trace_pc(void) {
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    uintptr_t cur = (pc ^ (pc >> 11)) & (MAP_SIZE - 1);
    kcov_map[cur ^ kcov_prev]++;
    kcov_prev = cur >> 1;
}
""" % MAP_SIZE


# ---------------------------------------------------------------------------- build (parent)


def _libasan() -> str:
    out = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True, check=True)
    path = os.path.realpath(out.stdout.strip())
    if not os.path.isfile(path):
        sys.exit("fuzz_asan: gcc has no libasan (Debian: apt-get install libasan8)")
    return path


def build(work: Path) -> Path:
    """Build the kernels with ASan and trace-pc into ``work/src`` (skipped when up to date)."""
    src = work / "src"
    sources = sorted(glob.glob(str(ROOT / "kcodec" / "_speedups" / "*.pyx")))
    newest = max(os.path.getmtime(p) for p in sources + glob.glob(str(ROOT / "kcodec" / "_speedups" / "*.pxd")))
    stamp = work / "built"
    # The Python side is copied on every run so the child always sees the tree's current code.
    if (src / "kcodec").exists():
        for so in (src / "kcodec").rglob("*.so"):
            so.rename(work / so.name)
        shutil.rmtree(src / "kcodec")
    shutil.copytree(ROOT / "kcodec", src / "kcodec",
                    ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    kept = sorted(work.glob("*.so"))
    if stamp.exists() and os.path.getmtime(stamp) >= newest and len(kept) == len(sources):
        for so in kept:
            so.rename(src / "kcodec" / "_speedups" / so.name)
        return src
    for so in kept:
        so.unlink()
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(work / "libkcov.so"), "-x", "c", "-"],
                   input=KCOV_C, text=True, check=True)
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    flags = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address", "-fsanitize-coverage=trace-pc"]
    exts = [Extension("kcodec._speedups." + Path(p).stem, [p], extra_compile_args=flags,
                      extra_link_args=["-fsanitize=address"]) for p in sources]
    exts = cythonize(exts, build_dir=str(work / "c"), quiet=True, compiler_directives={
        "language_level": "3", "boundscheck": True, "wraparound": False, "cdivision": True})
    dist = Distribution({"name": "kcodec-fuzz", "ext_modules": exts})
    cmd = dist.get_command_obj("build_ext")
    cmd.build_lib = str(src)
    cmd.build_temp = str(work / "obj")
    cmd.inplace = False
    cmd.ensure_finalized()
    cmd.run()
    stamp.touch()
    return src


def run_child(work: Path, src: Path, argv: list[str]) -> int:
    env = dict(os.environ)
    env.update({
        "LD_PRELOAD": f"{_libasan()} {work / 'libkcov.so'}",
        "PYTHONMALLOC": "malloc",
        # CPython keeps memory for its lifetime: leaks are not what this run looks for.
        "ASAN_OPTIONS": "exitcode=86:detect_leaks=0:allocator_may_return_null=1:verify_asan_link_order=0",
        "PYTHONPATH": str(src),
        "KCODEC_ARENA_CACHE": "0",
        "KCODEC_FUZZ_CHILD": str(work),
    })
    env.pop("KCODEC_PURE", None)
    return subprocess.call([sys.executable, __file__, *argv], env=env, cwd=str(work))


# ---------------------------------------------------------------------------- targets (child)


def _targets() -> list[Callable[[bytes], Any]]:
    import kcodec
    from kcodec import _speedups as k
    from kcodec import speedups
    from kcodec.api.apps.v1 import Deployment
    from kcodec.api.core.v1 import ConfigMap, Pod

    assert speedups.ENABLED, "the ASan-built kernels did not load"
    assert "fuzz" in k.__file__ or os.environ.get("KCODEC_FUZZ_CHILD", "") in k.__file__

    def reencoded(cls: Any, fill: Callable[[Any, bytes], Any]) -> Callable[[bytes], Any]:
        # What a decoder accepted, every encoder writes (their buffers and walks under ASan).
        def run(d: bytes) -> None:
            obj = cls._new_zero()
            fill(obj, d)
            k.json_encode(obj, False)
            k.json_encode(obj, True, True)
            k.struct_to_proto(obj)
            k.struct_to_proto(obj, b"k8s\x00", b"")
            k.cbor_encode(obj, b"\xd9\xd9\xf7")
            k.yaml_encode_tree(k.struct_to_tree(obj))
        return run

    def typed(cls: Any) -> list[Callable[[bytes], Any]]:
        return [
            reencoded(cls, lambda o, d: k.fill_from_proto(o, cls, d, cls.__name__)),
            reencoded(cls, lambda o, d: k.cbor_fill(o, cls, d, None, cls.__name__)),
            lambda d: k.cbor_fill(cls._new_zero(), cls, d, [], cls.__name__),
            reencoded(cls, lambda o, d: k.json_fill(o, cls, d, None, cls.__name__)),
            lambda d: k.json_fill(cls._new_zero(), cls, d, [], cls.__name__),
        ]

    def tree(d: bytes) -> None:
        k.cbor_encode_tree(k.cbor_loads(d), b"")

    return [
        kcodec.load,
        k.cbor_type_meta, tree, k.cbor_item_end,
        k.envelope_decode, k.envelope_span, k.unmarshal_unknown,
        lambda d: list(k.iter_fields(d)),
        lambda d: [k.decode_varint(d, i) for i in range(min(len(d), 4))],
        k.interpret_gvk, k.yaml_block_tree,
        *typed(Pod), *typed(Deployment), *typed(ConfigMap),
    ]


def _seeds() -> list[bytes]:
    import kcodec

    seeds: list[bytes] = [b"", b"{}", b"\xd9\xd9\xf7\xa0", b"k8s\x00"]
    for path in sorted(FIXTURES.glob("*")) if FIXTURES.is_dir() else []:
        if path.suffix in (".pb", ".json", ".yaml") and path.stat().st_size < 64 << 10:
            data = path.read_bytes()
            seeds.append(data)
            if path.suffix == ".json":
                try:
                    seeds.append(kcodec.dump(kcodec.load(data), "cbor"))
                except Exception:  # noqa: BLE001 - a seed that does not re-encode is just left out
                    pass
    return seeds


#: Bytes that mean something to one of the kernels: CBOR heads with 1-8 byte arguments and
#: the reserved ones, break, the self-described tag, huge varints, JSON and YAML punctuation.
_TOKENS = [b"\x18", b"\x19", b"\x1a", b"\x1b", b"\x1c", b"\x1e", b"\x5b", b"\x7b", b"\x9b", b"\xbb",
           b"\x9f", b"\xbf", b"\xff", b"\xd9\xd9\xf7", b"\xf9\x7c\x00", b"\xc2",
           b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x80\x80\x80\x80\x10", b"\x0a\xff\xff\xff\x0f",
           b'"', b"\\u", b"\\ud800", b"{", b"[", b"]", b"}", b":", b",", b"1e400", b"-", b"\n- ", b": ", b"'",
           b"\x00", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]


def mutate(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        i = rng.randint(0, len(buf))
        if op == 0 and buf:
            buf[min(i, len(buf) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1 and buf:
            buf[min(i, len(buf) - 1)] = rng.choice((0, 0xFF, 0x7F, 0x80, 0x1B, 0x9E, 0xBF))
        elif op == 2:
            buf[i:i] = rng.choice(_TOKENS)
        elif op == 3:
            del buf[i:i + rng.randint(1, 16)]
        elif op == 4:
            del buf[i:]
        elif op == 5 and buf:
            j = rng.randrange(len(buf))
            buf[i:i] = buf[j:j + rng.randint(1, 64)]
        elif op == 6:
            other = rng.choice(corpus)
            j = rng.randint(0, len(other))
            buf[i:] = other[j:]
        else:
            buf[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(buf[: 1 << 16])


def _save(findings: Path, prefix: str, data: bytes, text: str = "") -> Path:
    name = f"{prefix}-{hashlib.sha1(data).hexdigest()[:16]}"
    (findings / f"{name}.bin").write_bytes(data)
    if text:
        (findings / f"{name}.txt").write_text(text)
    return findings / f"{name}.bin"


def child(args: argparse.Namespace) -> int:
    import numpy as np

    from kcodec.errors import KCodecError

    work = Path(os.environ["KCODEC_FUZZ_CHILD"])
    findings = work / "findings"
    findings.mkdir(exist_ok=True)
    current = work / "current.bin"
    kmap = (ctypes.c_ubyte * MAP_SIZE).in_dll(ctypes.CDLL(str(work / "libkcov.so")), "kcov_map")
    edges = np.frombuffer(kmap, dtype=np.uint8)
    seen = np.zeros(MAP_SIZE, dtype=bool)
    targets = _targets()
    sys.setrecursionlimit(10000)

    def execute(data: bytes) -> str | None:
        current.write_bytes(data)
        for fn in targets:
            try:
                fn(data)
            except KCodecError:
                pass
            except RecursionError:
                return "RecursionError:\n" + traceback.format_exc()
            except Exception:  # noqa: BLE001 - the finding itself
                return traceback.format_exc()
        return None

    if args.replay:
        bad = 0
        for name in args.replay:
            data = Path(name).read_bytes()
            err = execute(data)
            print(f"{name}: {'ok' if err is None else err}")
            bad += err is not None
        return 1 if bad else 0

    rng = random.Random(args.seed)
    corpus = _seeds()
    for data in list(corpus):
        edges[:] = 0
        execute(data)
        seen |= edges > 0
    print(f"fuzz_asan: {len(corpus)} seeds, {int(seen.sum())} edges", flush=True)
    deadline = time.monotonic() + args.seconds
    runs = found = 0
    last = time.monotonic()
    while time.monotonic() < deadline:
        data = mutate(rng, rng.choice(corpus), corpus)
        edges[:] = 0
        err = execute(data)
        runs += 1
        if err is not None:
            found += 1
            print(f"fuzz_asan: non-kcodec exception, saved {_save(findings, 'exc', data, err)}\n{err}", flush=True)
        fresh = (edges > 0) & ~seen
        if fresh.any():
            seen |= fresh
            corpus.append(data)
        if time.monotonic() - last > 10:
            last = time.monotonic()
            print(f"fuzz_asan: {runs} runs, corpus {len(corpus)}, {int(seen.sum())} edges, {found} findings", flush=True)
    current.unlink(missing_ok=True)
    print(f"fuzz_asan: done: {runs} runs, corpus {len(corpus)}, {int(seen.sum())} edges, {found} findings")
    return 1 if found else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="how long to fuzz (default 60)")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    ap.add_argument("--workdir", type=Path, default=ROOT / "build" / "fuzz-asan")
    ap.add_argument("--replay", nargs="*", help="run these saved inputs once instead of fuzzing")
    args = ap.parse_args()
    if os.environ.get("KCODEC_FUZZ_CHILD"):
        return child(args)
    if sysconfig.get_config_var("Py_DEBUG"):
        sys.exit("fuzz_asan: needs a release CPython")
    work = args.workdir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    src = build(work)
    argv = [f"--seconds={args.seconds}"] + ([f"--seed={args.seed}"] if args.seed is not None else [])
    if args.replay:
        argv += ["--replay", *[str(Path(p).resolve()) for p in args.replay]]
    rc = run_child(work, src, argv)
    current = work / "current.bin"
    if rc not in (0, 1) and current.exists():
        # ASan (or a signal) ended the child mid-input: keep that input.
        findings = work / "findings"
        findings.mkdir(exist_ok=True)
        print(f"fuzz_asan: the child died (exit {rc}); input saved as "
              f"{_save(findings, 'crash', current.read_bytes())}", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
