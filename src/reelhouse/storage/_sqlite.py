"""The SQLite backend: stdlib sqlite3 in WAL mode, one writer, pooled readers.

Reads run on a small pool of reader connections, each in its own long-lived
thread (:class:`reelhouse.loop.thread_pool.ThreadPool`); WAL lets
them read a consistent snapshot while a write is in progress, so reads never
queue behind writes.  Every write goes through the :class:`StoreWriter`, the
one task that owns the write connection: it takes the transactions callers
queued and commits them together in one database transaction (one fsync for
many callers), small ones before bulk ones (:mod:`._sqlite_writer`).

Other processes (the ``reelhouse`` admin commands while the server runs) may
write to the same file: ``BEGIN IMMEDIATE`` and a busy timeout make them wait
for each other instead of failing.

Background work (scans) reads on reader threads of its own
(:mod:`._read_lane`): requests never wait for a free reader behind it.

Memory: every connection (the writer, the checkpointer, the readers, the
background readers, the data version's) keeps SQLite's default page cache,
at most 2 MB (``cache_size`` -2000), and sqlite3's default 128 prepared
statements, so the backend holds at most about 20 MB of cache whatever the
uptime; no
memory map (``mmap_size`` 0).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TypeVar

import trio

from reelhouse.loop.thread_pool import PoolClosed, ThreadPool
from reelhouse.loop.thread_priority import BACKGROUND_READER_NICENESS
from reelhouse.shutdown import bounded_shield, shutdown_deadline

from ._name_key import name_key
from ._read_lane import reads_in_background
from ._scrape_record import keep_scrape_record
from ._search_fold import search_key
from ._sqlite_checkpoint import Checkpointer, writer_pragmas
from ._sqlite_writer import StoreWriter, translate_error
from ._store import (
    Backend,
    Params,
    PoolUsage,
    Row,
    Statement,
    StoreError,
    StoreShorthands,
    WriteResult,
)

READER_POOL_SIZE = 4  # reader connections (and so concurrent reads) for requests
BACKGROUND_READERS = 2  # reader connections of background work (scans): see _read_lane
BUSY_TIMEOUT_MS = 5_000  # how long to wait for another process's write lock
# How long closing waits for queued writes to commit, and then for the
# connections to close; both also end at the server's shutdown deadline.
CLOSE_TIMEOUT_S = 30.0

T = TypeVar("T")
log = logging.getLogger(__name__)


def _connect(path: str, *, query_only: bool) -> sqlite3.Connection:
    # isolation_level=None: the writer issues BEGIN/COMMIT itself.
    # check_same_thread=False: a connection is opened in one thread and used
    # in another (a reader's own thread, the writer's worker threads), one
    # thread at a time.
    conn = sqlite3.connect(
        path,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    conn.row_factory = sqlite3.Row
    # The search triggers (migration 0005) fold names with this function.
    conn.create_function("reelhouse_fold", 1, _fold, deterministic=True)
    # Migration 0010 and the q filter key names with this one (storage/_name_key).
    conn.create_function("reelhouse_name_key", 1, _name_key, deterministic=True)
    # The item upsert keeps the scrape record across NFO rewrites (migration 0015).
    conn.create_function("reelhouse_keep_scrape_record", 2, keep_scrape_record, deterministic=True)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA synchronous=NORMAL")
    if query_only:
        conn.execute("PRAGMA query_only=ON")
    return conn


def _fold(text: str | None) -> str | None:
    return None if text is None else search_key(text)


def _name_key(text: str | None) -> str | None:
    return None if text is None else name_key(text)


def _open_connections(path: str) -> tuple[sqlite3.Connection, sqlite3.Connection, list[sqlite3.Connection]]:
    """The writer's, the checkpointer's and the other connections (the readers', then the data version's)."""
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    writer = _connect(path, query_only=False)
    others: list[sqlite3.Connection] = []
    try:
        mode = writer.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"SQLite refused WAL mode for {path} (got {mode})")
        writer_pragmas(writer)
        others.append(_connect(path, query_only=False))
        readers = READER_POOL_SIZE + BACKGROUND_READERS
        others.extend(_connect(path, query_only=True) for _ in range(readers + 1))
    except BaseException:
        for conn in [writer, *others]:
            conn.close()
        raise
    return writer, others[0], others[1:]


def _fetch_all(sql: str, params: Params) -> Callable[[sqlite3.Connection], list[Row]]:
    return lambda conn: conn.execute(sql, params).fetchall()


def _fetch_one(sql: str, params: Params) -> Callable[[sqlite3.Connection], Row | None]:
    return lambda conn: conn.execute(sql, params).fetchone()


def _fetch_each(queries: Sequence[tuple[str, Params]]) -> Callable[[sqlite3.Connection], list[list[Row]]]:
    def run(conn: sqlite3.Connection) -> list[list[Row]]:
        # One read transaction: WAL keeps its snapshot from the first SELECT to the end.
        conn.execute("BEGIN")
        try:
            return [conn.execute(sql, params).fetchall() for sql, params in queries]
        finally:
            if conn.in_transaction:  # nothing was written: ending the read is all this does
                conn.execute("ROLLBACK")

    return run


class SqliteStore(StoreShorthands):
    """The Store on one SQLite file.  Open it with :func:`open_sqlite_store`."""

    backend: Backend = "sqlite"

    def __init__(
        self,
        path: str,
        readers: ThreadPool[sqlite3.Connection],
        writer: StoreWriter,
        version_conn: sqlite3.Connection,
        background: ThreadPool[sqlite3.Connection] | None = None,
    ) -> None:
        self.path = path
        self._readers = readers
        self._background = background or readers  # the scans' readers (_read_lane)
        self._writer = writer
        self._version_conn = version_conn  # used on the event loop only
        self._closed = False

    def pool_usage(self) -> list[PoolUsage]:
        # One writer connection (its queue is not a pool's wait); the readers' threads.
        busy = self._readers.outstanding
        usage = [PoolUsage("readers", min(busy, self._readers.size), self._readers.size,
                           max(busy - self._readers.size, 0))]
        if self._background is not self._readers:
            busy, size = self._background.outstanding, self._background.size
            usage.append(PoolUsage("background readers", min(busy, size), size, max(busy - size, 0)))
        return usage

    def data_version(self) -> int:
        # A memory read of the WAL index (a few microseconds): cheaper on the
        # event loop than the hand-over to a thread it spares.
        if self._closed:
            raise StoreError("the store is closed")
        try:
            return int(self._version_conn.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error as exc:
            raise translate_error(exc) from exc

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        return await self._read(_fetch_all(sql, params))

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        return await self._read(_fetch_one(sql, params))

    async def fetch_each(self, queries: Sequence[tuple[str, Params]]) -> list[list[Row]]:
        return await self._read(_fetch_each(queries))

    async def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(conn)`` on an idle reader connection, in its thread
        (a background reader's under :func:`~._read_lane.background_reads`).

        Cancellation waits for the query to finish (a thread cannot be
        interrupted safely), then raises Cancelled.
        """
        try:
            pool = self._background if reads_in_background() else self._readers
            return await pool.run(fn)
        except PoolClosed:
            raise StoreError("the store is closed") from None
        except (sqlite3.Error, ValueError, TypeError, OverflowError) as exc:
            raise translate_error(exc) from exc

    async def transaction(self, statements: Sequence[Statement]) -> list[WriteResult]:
        """Run ``statements`` all-or-nothing through the writer.

        Raises IntegrityError (a constraint refused one of them) or
        StoreError.  Once queued, the transaction runs even if the caller is
        cancelled while waiting for it.
        """
        if not statements:
            return []
        return await self._writer.submit(statements)


@asynccontextmanager
async def open_sqlite_store(path: str) -> AsyncIterator[SqliteStore]:
    """Open (creating if needed) the SQLite database at ``path``.

    Runs the writer task in its own nursery.  On exit, queued writes are
    committed and every connection is closed, shielded, within
    :data:`CLOSE_TIMEOUT_S` each and never past the shutdown deadline
    (:mod:`reelhouse.shutdown`); what is cut short is logged (SQLite's
    journal keeps the file consistent).  Raises StoreError when the file
    cannot be opened.
    """
    try:
        writer_conn, checkpoint_conn, other_conns = await trio.to_thread.run_sync(_open_connections, path)
    except sqlite3.Error as exc:
        raise translate_error(exc) from exc
    *reader_conns, version_conn = other_conns
    readers = ThreadPool(reader_conns[:READER_POOL_SIZE], name="sqlite-reader")
    background = ThreadPool(
        reader_conns[READER_POOL_SIZE:], name="sqlite-background-reader", niceness=BACKGROUND_READER_NICENESS
    )
    checkpointer = Checkpointer(checkpoint_conn)
    writer = StoreWriter(writer_conn, after_commit=checkpointer.request)
    store = SqliteStore(path, readers, writer, version_conn, background)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(checkpointer.run)
            await nursery.start(writer.run)
            try:
                yield store
            finally:
                with bounded_shield(CLOSE_TIMEOUT_S) as flushing:
                    await writer.close()
                if flushing.cancelled_caught:
                    log.warning("closing the store: queued writes not committed in time; given up")
                nursery.cancel_scope.cancel()
    finally:
        with bounded_shield(CLOSE_TIMEOUT_S):
            store._closed = True
            pools = [readers, background]
            await _close_connections(pools, writer, writer_conn, checkpoint_conn, [*reader_conns, version_conn])


async def _close_connections(
    pools: list[ThreadPool[sqlite3.Connection]],
    writer: StoreWriter,
    writer_conn: sqlite3.Connection,
    checkpoint_conn: sqlite3.Connection,
    other_conns: list[sqlite3.Connection],
) -> None:
    """Close every connection no thread still uses; the rest go with the process."""
    readers_stopped = True
    for pool in pools:
        readers_stopped &= await pool.aclose(min(CLOSE_TIMEOUT_S, shutdown_deadline().remaining()))
    conns = list(other_conns) if readers_stopped else []
    conns.append(checkpoint_conn)
    if not writer.commit_abandoned:
        conns.append(writer_conn)  # the last one: SQLite checkpoints what is left
    else:
        log.warning("closing the store: a commit was still running; its connection is left open")
    await trio.to_thread.run_sync(_close_all, conns, abandon_on_cancel=True)


def _close_all(conns: list[sqlite3.Connection]) -> None:
    for conn in conns:  # their threads have stopped
        conn.close()
