"""The one switch between compiled and pure-Python kernels.

``ENABLED`` is True when the Cython extension ``kcodec._speedups`` is in use. Setting
``KCODEC_PURE=1`` in the environment before import forces the pure twins in
``kcodec._native``. Every other module reaches kernels only through attributes of this
module (``speedups.NAME`` at call time), so switching modes here switches them everywhere.

With the compiled extension, :func:`arena_cache` also keeps memory that freed objects
leave behind for the next decode (``KCODEC_ARENA_CACHE``: the cap in MiB, ``0`` disables).
"""
from __future__ import annotations

import os
import warnings
import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    # The kernel names are bound at run time by use_compiled(); type checkers see the pure
    # twins' signatures, which the compiled ones share.
    from kcodec._native import *  # noqa: F403

__all__ = [
    "ENABLED", "ArenaCache", "arena_cache", "available", "bind_conversion", "bind_fieldpath", "describe",
    "use_compiled",
]

_FORCE_PURE = os.environ.get("KCODEC_PURE", "") in ("1", "true", "yes")

_compiled: ModuleType | None = None
#: The pure twins, imported on first need: in compiled mode only a kernel the extension
#: lacks, or use_compiled(False), needs them (importing them costs start-up time).
_pure: ModuleType | None = None
#: What bind_conversion() was given, handed to the pure twins when they are imported.
_conversion_hooks: dict[str, object] = {}
#: What bind_fieldpath() was given, handed to the pure twins when they are imported.
_fieldpath_hooks: dict[str, object] = {}

#: Every kernel name; both sets provide each (a compiled module that was not built leaves
#: its names to the pure twins, see :func:`use_compiled`). Equal to ``kcodec._native.__all__``
#: (tests/speedups/test_parity.py), listed here so that choosing a set imports neither.
KERNELS: tuple[str, ...] = (
    "fill_from_proto", "fill_from_tree", "struct_to_proto", "struct_to_tree", "expand_raw_tree",
    "copy_plain_tree",
    "decode_signed_varint", "decode_varint", "encode_varint",
    "envelope_decode", "envelope_encode", "envelope_span",
    "interpret_gvk", "json_container_scan", "json_encode", "json_fill", "json_fill_vouched",
    "iter_fields", "marshal_unknown", "unmarshal_unknown",
    "convert_fields", "deep_copy", "yaml_block_tree", "yaml_encode_tree", "new_zero",
    "cbor_encode", "cbor_encode_tree", "cbor_fill", "cbor_item_end", "cbor_loads", "cbor_type_meta",
    "smd_validate", "smd_to_field_set", "smd_merge", "smd_list_item_pe", "smd_set_tree",
    "smd_set_from_tree", "smd_ensure_named_fields", "smd_set_empty", "smd_set_difference",
    "smd_set_recursive_difference", "smd_set_intersection", "smd_equals", "smd_compare",
    "smd_remove",
)


def _native() -> ModuleType:
    """``kcodec._native``, imported (and given the conversion hooks) on first call."""
    global _pure
    if _pure is None:
        pure = importlib.import_module("kcodec._native")
        if _conversion_hooks:
            pure.bind_conversion(**_conversion_hooks)
        if _fieldpath_hooks:
            pure.bind_fieldpath(**_fieldpath_hooks)
        _pure = pure
    return _pure


def __getattr__(name: str) -> Any:
    # A kernel the compiled extension does not provide: its pure twin, bound on first use.
    if name in KERNELS:
        value = getattr(_native(), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def available() -> bool:
    """Whether the compiled extension was built and can be imported."""
    return _compiled is not None


def describe() -> str:
    """The mode in force and why, in words (``kcodec version`` prints it)."""
    if ENABLED:
        return "compiled"
    if _FORCE_PURE:
        return "pure (KCODEC_PURE is set)"
    if _compiled is None:
        return "pure (the compiled extension is not built)"
    return "pure (switched with use_compiled(False))"


def use_compiled(flag: bool) -> bool:
    """Bind the kernel names to the compiled (True) or pure (False) twins.

    Returns the mode actually in force (False when the extension is missing). Meant for
    the test suite and benchmarks; applications choose with ``KCODEC_PURE``.
    """
    global ENABLED
    compiled = _compiled if (flag and _compiled is not None) else None
    # KERNELS, and whatever else either set exports (a kernel added to both before this
    # list learns of it is still bound from the set in force; tests/speedups/test_parity.py fails
    # until the list names it).
    extra = getattr(compiled, "__all__", ()) if compiled is not None else _native().__all__
    for name in dict.fromkeys((*KERNELS, *extra)):
        if name in __all__ or name.startswith("_"):
            continue  # this module's own names (bind_conversion...) are not kernels
        if compiled is not None and hasattr(compiled, name):
            globals()[name] = getattr(compiled, name)
        elif compiled is not None:
            globals().pop(name, None)  # bound from the pure twins on first use (__getattr__)
        else:
            globals()[name] = getattr(_native(), name)
    ENABLED = compiled is not None
    return ENABLED


class ArenaCache(NamedTuple):
    """State of the arena cache (see :func:`arena_cache`); counters are since import."""

    #: The platform can keep arenas reclaimable (``MADV_FREE``) and the extension is built.
    supported: bool
    #: kcodec's arena allocator is in place (the cap is above zero).
    installed: bool
    #: Cap on the bytes of kept arenas.
    max_bytes: int
    #: Size of one pymalloc arena (0 until pymalloc has freed one).
    arena_bytes: int
    cached_arenas: int
    cached_bytes: int
    #: Arena requests served from the cache / passed on to the system allocator.
    reused: int
    fresh: int
    #: Freed arenas kept / given back to the system.
    kept: int
    released: int


#: Default cap of the arena cache: enough for the objects of a decoded list of a few
#: thousand Pods; ``KCODEC_ARENA_CACHE`` (MiB) overrides it.
DEFAULT_ARENA_CACHE_MIB = 64

_arena: ModuleType | None = None


def arena_cache(max_bytes: int | None = None) -> ArenaCache:
    """Read, and with ``max_bytes`` set, the cap of the arena cache.

    CPython's small-object allocator returns a 1 MiB arena to the system the moment its last
    object dies, so freeing a large decoded list and decoding the next one maps the same
    memory again, page fault by page fault (a quarter of a PodList(1000) protobuf decode).
    With the compiled extension, kcodec keeps up to ``max_bytes`` of such arenas for reuse,
    as Go keeps its heap. Kept arenas are marked ``MADV_FREE``: the kernel may reclaim them
    under memory pressure, but they count in the process's RSS until then. ``0`` gives every
    kept arena back and removes the allocator. Process-wide; a no-op (returning an
    uninstalled state) in pure mode or where ``MADV_FREE`` does not exist.
    """
    if _arena is None:
        if max_bytes is not None and max_bytes < 0:
            raise ValueError(f"arena cache cap must be >= 0 bytes, got {max_bytes}")
        return ArenaCache(False, False, 0, 0, 0, 0, 0, 0, 0, 0)
    if max_bytes is not None:
        _arena.configure(int(max_bytes))
    return ArenaCache(**_arena.info())


def _arena_cap_from_env() -> int:
    raw = os.environ.get("KCODEC_ARENA_CACHE", "").strip()
    if not raw:
        return DEFAULT_ARENA_CACHE_MIB << 20
    try:
        mib = int(raw)
        if mib < 0:
            raise ValueError
    except ValueError:
        warnings.warn(
            f"KCODEC_ARENA_CACHE={raw!r} is not a whole number of MiB >= 0; "
            f"using the default {DEFAULT_ARENA_CACHE_MIB}",
            RuntimeWarning,
            stacklevel=2,
        )
        return DEFAULT_ARENA_CACHE_MIB << 20
    return mib << 20


def _install_arena_cache() -> None:
    global _arena
    if _arena is not None or _compiled is None:
        return
    try:
        from kcodec._speedups import _arena as arena
    except ImportError:
        return
    _arena = arena
    arena.configure(_arena_cap_from_env())


def bind_conversion(**hooks: object) -> None:
    """Hand the conversion layer's classes to the conversion kernels of both sets.

    ``kcodec.conversion`` calls this once, at its import, with ``scope``, ``converter``,
    ``generated``, ``depth_error`` and ``go_type_name``: the kernels sit below that layer
    and take its exact classes as given instead of importing it. Both sets receive them, so
    :func:`use_compiled` can switch modes afterwards.
    """
    _conversion_hooks.update(hooks)
    if _pure is not None:
        _pure.bind_conversion(**hooks)
    if _compiled is not None:
        _compiled.bind_conversion(**hooks)


def bind_fieldpath(**hooks: object) -> None:
    """Hand kcodec.managedfields' classes to the structured-merge-diff kernels of both sets.

    ``kcodec.managedfields.typed`` calls this once, at its import, with ``path_element``,
    ``set_cls``, ``atom``, ``atomic``, ``associative`` and ``path_error``: the kernels sit
    below that layer and build its sets and path elements without importing it. Both sets receive them, so
    :func:`use_compiled` can switch modes afterwards.
    """
    _fieldpath_hooks.update(hooks)
    if _pure is not None:
        _pure.bind_fieldpath(**hooks)
    if _compiled is not None:
        _compiled.bind_fieldpath(**hooks)


def _load_compiled() -> ModuleType | None:
    if _FORCE_PURE:
        return None
    try:
        from kcodec import _speedups as compiled
    except ImportError:
        return None
    return compiled


_compiled = _load_compiled()
if _compiled is None and not _FORCE_PURE:
    # pip shows a build's output only when it fails, so a wheel that fell back to pure Python
    # says so here, once per process (KCODEC_PURE=1 chooses pure mode and silences it).
    warnings.warn(
        "kcodec: the compiled speedups are not installed, so kcodec runs its pure-Python "
        "kernels (same results, 10-50x slower). Reinstall where Cython and a C compiler are "
        "available (KCODEC_BUILD_EXT=1 makes a failed build an error), or set KCODEC_PURE=1 "
        "to choose pure mode and silence this warning.",
        RuntimeWarning, stacklevel=2)
_install_arena_cache()
ENABLED: bool = False
use_compiled(not _FORCE_PURE)
