"""Bounds on memory the C allocator keeps: glibc's malloc arenas.

glibc gives each thread that allocates while another holds the lock an
arena of its own, up to 8 per core, and returns an arena's free pages to
the system only from the top of its heaps. The server's threads (file
reads for streams and images, SQLite readers, scan parsers, the event
loop) allocate and free chunks of up to a few hundred kB in turn, so with
many arenas the holes between live blocks add up: measured by
benchmarks/soak.py on SQLite (4 players streaming 8 MiB ranges, 4 readers,
scans back to back), the server's RSS rose by about 50 MB in two minutes
and kept rising, while the Python heap (tracemalloc) stayed near 10 MB.
With two arenas it stayed flat.

:func:`limit_malloc_arenas` sets that limit (``M_ARENA_MAX``, the setting
``malloc_arena_max``; 0 keeps glibc's default) before the server starts
its threads. Without glibc (musl, macOS) it does nothing: those
allocators have no such arenas. ``MALLOC_ARENA_MAX`` in the environment
has the same effect and wins when set, as glibc's own knob.
"""

from __future__ import annotations

import ctypes
import logging
import os

log = logging.getLogger("reelhouse.process.native_memory")

M_ARENA_MAX = -8  # glibc's malloc.h
ENV_OVERRIDE = "MALLOC_ARENA_MAX"


def limit_malloc_arenas(arenas: int) -> bool:
    """Cap glibc's malloc arenas at ``arenas``; True when the cap was set.

    Call it before threads start: a thread keeps the arena it got. Does
    nothing for 0, when ``MALLOC_ARENA_MAX`` is in the environment (the
    operator chose), or without glibc.
    """
    if arenas <= 0 or ENV_OVERRIDE in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False  # not glibc
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    if mallopt(M_ARENA_MAX, arenas) != 1:
        log.warning("could not limit malloc arenas to %d", arenas)
        return False
    return True
