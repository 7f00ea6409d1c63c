"""The data directory's server lock: ``reelhouse backup restore`` refuses while a server runs.

A serving process holds a shared ``flock`` on ``<data dir>/server.lock``
for its whole life (the kernel drops it when the process dies, so a
killed server never leaves a stale lock). A restore takes the lock
exclusively, without waiting: it fails at once while any server holds it.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = "server.lock"


class ServerRunning(Exception):
    """A server holds the data directory."""


@contextmanager
def hold_server_lock(data_dir: Path, *, exclusive: bool = False) -> Iterator[None]:
    """Hold the lock (shared for a server; exclusive, non-blocking, for a restore)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ServerRunning(f"a server is using {data_dir}; stop it first") from None
        yield
    finally:
        os.close(fd)
