"""The key revision file: how a process that revokes an API key tells the server at once.

Keys are revoked from the command line, a process of its own, and a revoked
key must stop working on its very next request (reference, Authentication).
A server that remembers the keys it has verified therefore needs to learn of
every revocation without asking the database on each request.  Beside a
SQLite database lies ``<database>-keyrev``: eight bytes, a little-endian
counter.  Every process using that database maps the file; a revocation
commits, then bumps the counter (under an exclusive ``flock``, so two
revokers never lose a bump); the server reads it from its mapping, a memory
read that sees the other process's write as soon as it is made, because
both map the same page of the page cache.

Opening and bumping touch the file system: callers run them in a worker
thread.  :meth:`KeyRevision.current` only reads memory and is safe on the
event loop.  Nothing ever shrinks the file (a mapping of a truncated file
would fault).  Deleting it while a server runs leaves the server mapping
the old file: revokes then reach it only at its recheck of each key
(:data:`reelhouse.storage.verified_keys.RECHECK_SECONDS`).
"""

from __future__ import annotations

import fcntl
import mmap
import os
import struct
import time

REVISION_SUFFIX = "-keyrev"
LOCK_TIMEOUT_SECONDS = 5.0  # how long a bump waits for the lock another process holds
LOCK_POLL_SECONDS = 0.002  # how often a bump retries a lock another process holds
_COUNTER = struct.Struct("<Q")


class KeyRevision:
    """The counter of one database's revision file, mapped into this process."""

    def __init__(self, path: str) -> None:
        """Open (creating if needed) and map ``path``; raises OSError when it cannot."""
        self.path = path
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # as SQLite creates the database
        try:
            if os.fstat(fd).st_size < _COUNTER.size:
                os.ftruncate(fd, _COUNTER.size)  # zeros: a second creator racing us writes the same
            self._map = mmap.mmap(fd, _COUNTER.size)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    @classmethod
    def beside(cls, database_path: str) -> KeyRevision:
        return cls(database_path + REVISION_SUFFIX)

    def current(self) -> int:
        """The counter now: a read of shared memory, no system call."""
        return int(_COUNTER.unpack_from(self._map, 0)[0])

    def bump(self, timeout: float = LOCK_TIMEOUT_SECONDS) -> int:
        """Add one to the counter; the new value.

        Waits at most ``timeout`` seconds for the file lock (another process
        may hold it, or hang holding it), then raises TimeoutError.
        """
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"the key revision file {self.path} stayed locked for {timeout:.1f} s") from None
                time.sleep(LOCK_POLL_SECONDS)
        try:
            value = self.current() + 1
            _COUNTER.pack_into(self._map, 0, value)
            return value
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd >= 0:
            self._map.close()
            os.close(self._fd)
            self._fd = -1
