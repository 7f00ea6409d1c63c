"""WAL checkpoints for the SQLite store, off the writer's path.

SQLite copies the write-ahead log back into the database file (a
checkpoint, with an fsync) inside whichever COMMIT crosses
``wal_autocheckpoint`` pages, so every few batches a scan's writer waited
for it: measured, a 20,000-file first scan spent about 2 s of its writer's
time in those commits. The Store's writer connection turns automatic
checkpoints off and asks the :class:`Checkpointer` after each commit; it
runs ``PRAGMA wal_checkpoint(PASSIVE)`` on a connection of its own in a
worker thread, which never blocks the writer or the readers, at most every
:data:`MIN_INTERVAL_S`; requests made meanwhile are answered by the next.
"""

from __future__ import annotations

import logging
import sqlite3

import trio

from reelhouse.loop.thread_pool import ThreadPool
from reelhouse.loop.thread_priority import CHECKPOINT_NICENESS

log = logging.getLogger(__name__)

JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024  # a reset WAL is truncated to this
MIN_INTERVAL_S = 0.5  # at most two checkpoints a second; requests meanwhile wait for the next


class Checkpointer:
    """Runs passive checkpoints on its own connection, one at a time."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._wanted = trio.Event()
        self.checkpoints = 0  # completed, for tests and diagnostics
        self.started = 0  # begun (each after the requests before it), for tests
        self.running = False

    def request(self) -> None:
        """Ask for a checkpoint soon (called from the event loop after a commit)."""
        self._wanted.set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Checkpoint whenever asked, until cancelled."""
        # Its own thread, niced: copying a scan's pages back takes the CPU the loop leaves.
        thread = ThreadPool([self._conn], name="sqlite-checkpoint", niceness=CHECKPOINT_NICENESS)
        task_status.started()
        try:
            while True:
                await self._wanted.wait()
                self._wanted = trio.Event()
                self.started, self.running = self.started + 1, True
                try:
                    self.checkpoints += await thread.run(_checkpoint_on)
                finally:
                    self.running = False
                # Each checkpoint ends with an fsync: many small commits (events,
                # quick rescans) must not each pay one.
                await trio.sleep(MIN_INTERVAL_S)
        finally:
            with trio.CancelScope(shield=True):  # no wait: the thread stops after what it runs
                await thread.aclose(timeout=0)


def _checkpoint_on(conn: sqlite3.Connection) -> bool:
    """The pool's thread: one passive checkpoint; a failure is logged, the next request tries again."""
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    except sqlite3.Error as exc:  # busy or I/O
        log.warning("WAL checkpoint failed: %s", exc)
        return False
    return True


def writer_pragmas(conn: sqlite3.Connection) -> None:
    """The writer leaves checkpoints to the Checkpointer."""
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT_BYTES}")
