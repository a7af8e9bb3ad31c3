# cython: language_level=3
"""A bounded cache of pymalloc arenas that pymalloc has given back.

Why this exists: pymalloc hands a 1 MiB arena back to the operating system as soon as its
last object dies. Freeing a decoded PodList(1000) empties about 47 arenas; the next decode
maps 47 fresh ones and takes some 12,000 page faults (the kernel zeroes every page),
which measured 25-30% of a protobuf decode. Go keeps its heap between collections and
returns it later; this cache does the same for Python objects: empty arenas are kept (up
to a byte cap) and handed back to pymalloc on its next request.

Kept arenas are marked ``MADV_FREE``: their pages stay mapped, so reusing them costs no
fault, but the kernel may take them back under memory pressure (they then read as zero,
which pymalloc does not mind: it never assumes an arena's content). On a platform without
``MADV_FREE`` nothing is kept and every arena goes straight back to the system.

The allocator chains to the one installed before it, so fresh arenas and arenas past the
cap go where they always went. Arena calls come from pymalloc with the GIL held; the lock
only matters when interpreters with their own GIL share this process-wide hook.
"""
from libc.stddef cimport size_t

cdef extern from *:
    """
    #include <Python.h>
    #include <pythread.h>
    #if !defined(_WIN32)
    #include <sys/mman.h>
    #endif

    #define KC_ARENA_SLOTS 4096

    static PyObjectArenaAllocator kc_prev;
    static PyThread_type_lock kc_lock = NULL;
    static int kc_installed = 0;
    static size_t kc_block = 0;       /* pymalloc's arena size, learnt from its first free */
    static size_t kc_max_bytes = 0;
    static Py_ssize_t kc_count = 0;
    static void *kc_slots[KC_ARENA_SLOTS];
    static unsigned long long kc_reused = 0, kc_fresh = 0, kc_kept = 0, kc_released = 0;

    static int kc_madv_free(void *p, size_t size) {
    #if defined(MADV_FREE)
        return madvise(p, size, MADV_FREE) == 0;
    #else
        (void)p; (void)size;
        return 0;
    #endif
    }

    static void *kc_arena_alloc(void *ctx, size_t size) {
        void *p = NULL;
        (void)ctx;
        PyThread_acquire_lock(kc_lock, WAIT_LOCK);
        if (kc_count > 0 && size == kc_block) {
            p = kc_slots[--kc_count];
            kc_reused++;
        } else {
            kc_fresh++;
        }
        PyThread_release_lock(kc_lock);
        return p != NULL ? p : kc_prev.alloc(kc_prev.ctx, size);
    }

    static void kc_arena_free(void *ctx, void *p, size_t size) {
        int keep = 0;
        (void)ctx;
        PyThread_acquire_lock(kc_lock, WAIT_LOCK);
        if (kc_block == 0)
            kc_block = size;
        if (size == kc_block && kc_count < KC_ARENA_SLOTS
                && (size_t)(kc_count + 1) * size <= kc_max_bytes && kc_madv_free(p, size)) {
            kc_slots[kc_count++] = p;
            kc_kept++;
            keep = 1;
        } else {
            kc_released++;
        }
        PyThread_release_lock(kc_lock);
        if (!keep)
            kc_prev.free(kc_prev.ctx, p, size);
    }

    /* Give cached arenas back until at most max_bytes stay; called with the GIL. */
    static void kc_trim(size_t max_bytes) {
        void *p;
        for (;;) {
            PyThread_acquire_lock(kc_lock, WAIT_LOCK);
            if (kc_count == 0 || (size_t)kc_count * kc_block <= max_bytes) {
                PyThread_release_lock(kc_lock);
                return;
            }
            p = kc_slots[--kc_count];
            PyThread_release_lock(kc_lock);
            kc_prev.free(kc_prev.ctx, p, kc_block);
        }
    }

    /* MADV_FREE may be defined by the headers yet refused by an older kernel (EINVAL
       before Linux 4.5): ask the kernel once, on a page of our own. */
    static int kc_supported(void) {
    #if defined(MADV_FREE)
        static int probed = -1;
        if (probed < 0) {
            void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (page == MAP_FAILED) {
                probed = 0;
            } else {
                probed = madvise(page, 4096, MADV_FREE) == 0;
                munmap(page, 4096);
            }
        }
        return probed;
    #else
        return 0;
    #endif
    }

    /* What the kernel does to kept arenas under memory pressure: drop their pages, which
       then read as zero. For tests; returns the number of arenas dropped. */
    static Py_ssize_t kc_simulate_reclaim(void) {
        Py_ssize_t k, dropped = 0;
    #if defined(MADV_DONTNEED)
        PyThread_acquire_lock(kc_lock, WAIT_LOCK);
        for (k = 0; k < kc_count; k++)
            dropped += madvise(kc_slots[k], kc_block, MADV_DONTNEED) == 0;
        PyThread_release_lock(kc_lock);
    #endif
        (void)k;
        return dropped;
    }

    /* Set the cap; installs the allocator on the first non-zero cap. A zero cap empties
       the cache and, when nothing was chained on top of this allocator, uninstalls it. */
    static int kc_configure(size_t max_bytes) {
        PyObjectArenaAllocator mine = {NULL, kc_arena_alloc, kc_arena_free};
        PyObjectArenaAllocator current;
        if (max_bytes > 0 && !kc_supported())
            max_bytes = 0;
        if (max_bytes > 0 && !kc_installed) {
            if (kc_lock == NULL) {
                kc_lock = PyThread_allocate_lock();
                if (kc_lock == NULL) {
                    PyErr_NoMemory();
                    return -1;
                }
            }
            PyObject_GetArenaAllocator(&kc_prev);
            kc_max_bytes = max_bytes;
            PyObject_SetArenaAllocator(&mine);
            kc_installed = 1;
            return 0;
        }
        if (!kc_installed)
            return 0;
        PyThread_acquire_lock(kc_lock, WAIT_LOCK);
        kc_max_bytes = max_bytes;
        PyThread_release_lock(kc_lock);
        kc_trim(max_bytes);
        if (max_bytes == 0) {
            PyObject_GetArenaAllocator(&current);
            if (current.alloc == kc_arena_alloc && current.free == kc_arena_free) {
                PyObject_SetArenaAllocator(&kc_prev);
                kc_installed = 0;
            }
        }
        return 0;
    }
    """
    int KC_ARENA_SLOTS
    int kc_installed
    size_t kc_block
    size_t kc_max_bytes
    Py_ssize_t kc_count
    unsigned long long kc_reused, kc_fresh, kc_kept, kc_released
    int kc_supported()
    int kc_configure(size_t max_bytes) except -1
    Py_ssize_t kc_simulate_reclaim()


def configure(max_bytes):
    """Set the cap in bytes (0: give every kept arena back and stop caching).

    Returns the previous cap."""
    cdef size_t previous = kc_max_bytes if kc_installed else 0
    if max_bytes < 0:
        raise ValueError(f"arena cache cap must be >= 0 bytes, got {max_bytes}")
    kc_configure(<size_t>max_bytes)
    return previous


def _simulate_reclaim():
    """Test hook: drop the pages of every kept arena, as the kernel may under memory
    pressure (they read as zero afterwards). Returns how many arenas were dropped."""
    if not kc_installed:
        return 0
    return kc_simulate_reclaim()


def info():
    """The cache's state: a dict of plain ints and bools (see kcodec.speedups.ArenaCache)."""
    return {
        "supported": bool(kc_supported()),
        "installed": bool(kc_installed),
        "max_bytes": <Py_ssize_t>kc_max_bytes if kc_installed else 0,
        "arena_bytes": <Py_ssize_t>kc_block,
        "cached_arenas": kc_count,
        "cached_bytes": kc_count * <Py_ssize_t>kc_block,
        "reused": kc_reused,
        "fresh": kc_fresh,
        "kept": kc_kept,
        "released": kc_released,
    }
