"""SQLite's data version read from the WAL-index header, without a query.

Every request asks :meth:`Store.data_version` on the event loop (the API
key check, the image-source memory).  ``PRAGMA data_version`` answers in a
few microseconds, but Python's sqlite3 releases the GIL around every
statement, and the event loop then waits for a reader thread to give it
back (up to the 5 ms switch interval): measured with ``api_load.py``,
that call alone cost cached images 22% of their throughput.

The WAL index (the ``-shm`` file every connection maps) starts with a
48-byte header that a committing writer rewrites, and that any reader
compares to learn whether the database changed (layout: "WAL-mode File
Format", sqlite.org/walformat.html, section 2.1; shared by every SQLite
since 3.7.0, since they may open one database at once).  Of its two
copies the writer writes the second first and the first last, so the
first copy changes only once the commit is complete and visible to new
reads: the version moves after a write, never before.  Reading it is a
memory read under the GIL.  A checkpoint that restarts the log rewrites
the header too, so the version also moves then (a spare cache miss).

Where the header is not what this expects (no ``-shm`` file, another
layout version), the data version falls back to ``PRAGMA data_version``.
The map is closed before the store's connections: SQLite truncates the
``-shm`` file only once no connection has it open, and reading a truncated
map would kill the process (SIGBUS).
"""

from __future__ import annotations

import logging
import mmap
import os
import sqlite3
import struct

log = logging.getLogger(__name__)

_HEADER_BYTES = 48  # one copy of the WAL-index header; the second copy follows it
_LAYOUT = struct.Struct("=IIIB")  # iVersion, unused, iChange, isInit (native byte order)
_LAYOUT_VERSION = 3007000  # WALINDEX_MAX_VERSION


class DataVersion:
    """A number that moves once a commit becomes visible.  Used from one thread only."""

    def __init__(self, conn: sqlite3.Connection, header: mmap.mmap | None) -> None:
        self._conn = conn  # answers PRAGMA data_version when there is no header to read
        self._header = header
        self._seen = header[:_HEADER_BYTES] if header is not None else b""
        self._moves = 0

    @classmethod
    def open(cls, conn: sqlite3.Connection, path: str) -> DataVersion:
        """For the database at ``path``; ``conn`` must have read it (so its WAL index exists and stays)."""
        conn.execute("PRAGMA data_version").fetchone()
        return cls(conn, _map_header(f"{path}-shm"))

    @property
    def conn(self) -> sqlite3.Connection:
        return self._conn

    @property
    def reads_header(self) -> bool:
        return self._header is not None

    def read(self) -> int:
        if self._header is None:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        header = self._header[:_HEADER_BYTES]
        if header != self._seen:  # a commit (or a copy caught mid-write: one spare move)
            self._seen = header
            self._moves += 1
        return self._moves

    def close(self) -> None:
        if self._header is not None:
            self._header.close()
            self._header = None


def _map_header(shm_path: str) -> mmap.mmap | None:
    try:
        fd = os.open(shm_path, os.O_RDONLY)
    except OSError as exc:
        log.info("no WAL index to read the data version from (%s); using PRAGMA data_version", exc.strerror)
        return None
    try:
        if os.fstat(fd).st_size < 2 * _HEADER_BYTES:
            return None
        header = mmap.mmap(fd, 2 * _HEADER_BYTES, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)  # the map keeps its own reference
    layout_version, _, _, initialised = _LAYOUT.unpack_from(header)
    if layout_version != _LAYOUT_VERSION or initialised != 1:
        header.close()
        log.info("unknown WAL index layout %s; using PRAGMA data_version", layout_version)
        return None
    return header
