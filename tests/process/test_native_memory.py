"""glibc malloc arenas: the server caps them so freed memory does not stay fragmented in many.

Each case runs in a fresh Python process (a thread keeps the arena it got,
and the cap only matters before threads allocate) and counts the arenas
with glibc's ``malloc_info``.
"""

from __future__ import annotations

import ctypes
import subprocess
import sys

import pytest

THREADS = 12

PROGRAM = f"""
import ctypes, os, re, sys, tempfile, threading
from reelhouse.process.native_memory import limit_malloc_arenas

if sys.argv[1] != "default":
    limit_malloc_arenas(int(sys.argv[1]))
barrier = threading.Barrier({THREADS})
kept = []

def allocate():
    kept.append(bytearray(64 * 1024))  # above pymalloc's sizes: from the thread's malloc arena
    barrier.wait()  # every thread lives at once: none hands its arena to the next

threads = [threading.Thread(target=allocate) for _ in range({THREADS})]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
with tempfile.NamedTemporaryFile("r") as out:
    stream = libc.fopen(out.name.encode(), b"w")
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    print(len(re.findall(r'<heap nr="', out.read())))
"""


def _has_glibc_malloc_info() -> bool:
    try:
        return hasattr(ctypes.CDLL(None), "malloc_info")
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _has_glibc_malloc_info(), reason="glibc's malloc arenas only")


def arenas_after_threads(cap: str) -> int:
    env = {"PATH": "/usr/bin:/bin"}  # no MALLOC_ARENA_MAX from the caller's environment
    done = subprocess.run([sys.executable, "-c", PROGRAM, cap], capture_output=True, text=True, timeout=60,
                          env=env, check=True)  # fmt: skip
    return int(done.stdout.strip())


def test_malloc_arenas_stay_at_the_cap_however_many_threads_allocate() -> None:
    assert arenas_after_threads("2") <= 2


def test_without_the_cap_threads_get_arenas_of_their_own() -> None:
    # The control: glibc's default gives these threads more arenas than the cap, so the case above measures it.
    assert arenas_after_threads("default") > 2
