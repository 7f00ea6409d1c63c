"""The data directory's server lock: one server per data directory, and no restore beside it.

A serving process holds an exclusive ``flock`` on ``<data dir>/server.lock``
for its whole life (the kernel drops it when the process dies, so a
killed server never leaves a stale lock) and writes its address into the
file once it listens. A second server, or a ``reelhouse backup restore``,
takes the same lock without waiting: it fails at once while another
holds it, and says who (the file's text). Other admin commands never take
the lock: they work beside a running server.

The lock is taken before anything is written: in a directory that is in
use nothing is created (the file exists already) and nothing is migrated.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = "server.lock"
HOLDER_MAX_BYTES = 4096  # what is read of another holder's description
STARTING = "a server that is starting"  # a holder that has not written its address yet


class ServerRunning(Exception):
    """Another process (a server, a restore) holds the data directory."""

    def __init__(self, data_dir: Path, holder: str) -> None:
        super().__init__(f"the data folder {data_dir} is in use by {holder}; stop it first")
        self.data_dir = data_dir
        self.holder = holder


class ServerLock:
    """The held lock: its holder may say who it is."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def announce(self, holder: str) -> None:
        """Write ``holder`` (such as "the server at http://...") for whoever is refused."""
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, holder.encode(), 0)


@contextmanager
def hold_server_lock(data_dir: Path) -> Iterator[ServerLock]:
    """Hold the data directory's lock exclusively; raises ServerRunning when another holds it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ServerRunning(data_dir, _holder(fd)) from None
        lock = ServerLock(fd)
        lock.announce("")  # what a killed holder wrote is not about us
        yield lock
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    text = os.pread(fd, HOLDER_MAX_BYTES, 0).decode(errors="replace").strip()
    return " ".join(text.split()) or STARTING
