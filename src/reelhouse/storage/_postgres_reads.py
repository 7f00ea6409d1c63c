"""PostgreSQL reads: psycopg connections on dedicated threads.

Why not asyncpg through trio-asyncio, as the writes: trio-asyncio runs each
asyncio callback as one step of its own Trio task, and a query takes about a
dozen such steps, each with cancel scopes and a channel hand-over.  Measured
on this machine with the event loop busy: about 700 us of the server's CPU
per point read through asyncpg and trio-asyncio, about 150-270 us through
psycopg on a :class:`~reelhouse.loop.thread_pool.ThreadPool` (one blocking call
on a dedicated thread, the GIL released while PostgreSQL works).  Requests
are mostly reads, so reads take this path; transactions stay on asyncpg,
where a cancelled caller's transaction is rolled back.

Each thread owns one connection (autocommit: a read is its own snapshot,
``fetch_each`` opens a repeatable-read, read-only transaction).  A connection
found broken (the server restarted, the network dropped it) is replaced,
and the read that found it broken runs once more on the new one (a read
changes nothing); when that fails too, StoreError (StoreUnavailable).
Rows index by name and by position, like asyncpg's and sqlite3's.  SQL
arrives with ``?`` placeholders; they become ``%s`` and a literal ``%`` is
doubled (:mod:`._postgres_sql`).  A caller cancelled while its read runs
leaves at once: the read finishes on its thread and its rows are dropped.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

import psycopg
import trio
from psycopg.rows import RowMaker

from reelhouse.loop.thread_pool import PoolClosed, ThreadPool

from ._postgres_sql import translate_error, translate_sql
from ._store import Params, PoolUsage, Row, StoreError

READER_COUNT = 4  # connections, and so reads at once
CONNECT_TIMEOUT_S = 15
# How the reader connections show in pg_stat_activity: by process, so one
# server's (or test run's) readers can be told from another's. Asked at each
# connect, not at import: a process forked after the import (the tests'
# launcher, tests/cli_launcher.py) names its own pid, not its parent's.
APPLICATION_NAME_PREFIX = "reelhouse-reader-"
SQL_CACHE_SIZE = 2048
CLOSE_TIMEOUT_S = 10.0

T = TypeVar("T")


def application_name() -> str:
    """This process's readers' name in pg_stat_activity."""
    return f"{APPLICATION_NAME_PREFIX}{os.getpid()}"


class PgRow(tuple[Any, ...]):
    """A row: ``row[0]``, ``row["name"]``, ``keys()``, ``dict(row)``."""

    __slots__ = ()
    _names: ClassVar[tuple[str, ...]] = ()
    _index: ClassVar[dict[str, int]] = {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._names)


def _row_factory(cursor: psycopg.Cursor[Any]) -> RowMaker[PgRow]:
    return _row_class(tuple(column.name for column in cursor.description or ()))


@functools.lru_cache(maxsize=SQL_CACHE_SIZE)
def _row_class(names: tuple[str, ...]) -> type[PgRow]:
    """A PgRow subclass for one result shape; a repeated name means its first column."""
    index = {name: i for i, name in reversed(list(enumerate(names)))}
    return type("PgRow", (PgRow,), {"__slots__": (), "_names": names, "_index": index})


class _Connection:
    """One thread's connection, opened again when found broken."""

    def __init__(self, connect: Callable[[], psycopg.Connection[PgRow]]) -> None:
        self._connect = connect
        self._conn: psycopg.Connection[PgRow] | None = None

    def get(self) -> psycopg.Connection[PgRow]:
        if self._conn is None or self._conn.broken or self._conn.closed:
            self.close()
            self._conn = self._connect()
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class PostgresReaders:
    """Reads on ``READER_COUNT`` dedicated threads, each with its own connection."""

    def __init__(self, connections: list[_Connection]) -> None:
        self._connections = connections
        self._pool = ThreadPool(connections, name="postgres-reader")

    def usage(self) -> PoolUsage:
        busy, size = self._pool.outstanding, self._pool.size
        return PoolUsage("readers", min(busy, size), size, max(busy - size, 0))

    async def fetch_all(self, sql: str, params: Params) -> list[Row]:
        return await self._run(lambda conn: _rows(conn.execute(translate_sql(sql).percent, params)))

    async def fetch_one(self, sql: str, params: Params) -> Row | None:
        return await self._run(lambda conn: _first(conn.execute(translate_sql(sql).percent, params)))

    async def fetch_each(self, queries: Sequence[tuple[str, Params]]) -> list[list[Row]]:
        def read(conn: psycopg.Connection[PgRow]) -> list[list[Row]]:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                return [_rows(conn.execute(translate_sql(sql).percent, params)) for sql, params in queries]
            finally:
                if not conn.broken:
                    conn.execute("ROLLBACK")  # nothing was written: ending the snapshot is all it does

        return await self._run(read)

    async def _run(self, read: Callable[[psycopg.Connection[PgRow]], T]) -> T:
        try:
            return await self._pool.run(functools.partial(_read_once_more_if_stale, read), abandon_on_cancel=True)
        except PoolClosed:
            raise StoreError("the store is closed") from None
        except (psycopg.Error, OSError) as exc:
            raise translate_error(exc) from exc

    async def aclose(self, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """Stop the threads (within ``timeout`` seconds), then close their connections."""
        if await self._pool.aclose(timeout):
            await trio.to_thread.run_sync(_close_all, self._connections, abandon_on_cancel=True)


def _read_once_more_if_stale(read: Callable[[psycopg.Connection[PgRow]], T], holder: _Connection) -> T:
    """Reader thread: ``read`` on the thread's connection, and once more on a
    new one when that connection turns out dead.  A restart of the server
    kills every idle connection, and each is found dead only when used: one
    failed read per thread after the database was back.  A read changes
    nothing, so trying it again is safe."""
    conn = holder.get()
    try:
        return read(conn)
    except psycopg.OperationalError:
        if not conn.broken:
            raise
    return read(holder.get())


def _rows(cursor: psycopg.Cursor[PgRow]) -> list[Row]:
    """The cursor's rows; none for a statement that returns none (VACUUM, SET), as asyncpg answers."""
    return cursor.fetchall() if cursor.description is not None else []


def _first(cursor: psycopg.Cursor[PgRow]) -> Row | None:
    return cursor.fetchone() if cursor.description is not None else None


def _close_all(connections: list[_Connection]) -> None:
    for connection in connections:
        connection.close()


async def open_readers(dsn: str, schema: str | None, count: int | None = None) -> PostgresReaders:
    """Connect ``count`` (default ``READER_COUNT``) reader connections in a worker thread; StoreError on failure."""
    # Custom plans: see _postgres._aio_open_pool.  No prepared statements: a
    # statement prepared before a table changes shape fails afterwards
    # ("cached plan must not change result type"), and with custom plans
    # preparing saves only the parse.
    # No JIT: see _postgres._aio_open_pool.
    options = "-c plan_cache_mode=force_custom_plan -c jit=off"
    if schema:
        options += f' -c search_path="{schema}"'

    def connect() -> psycopg.Connection[PgRow]:
        conn = psycopg.connect(
            dsn, autocommit=True, options=options, row_factory=_row_factory,
            application_name=application_name(), connect_timeout=CONNECT_TIMEOUT_S,
        )  # fmt: skip
        conn.prepare_threshold = None
        return conn

    connections = [_Connection(connect) for _ in range(READER_COUNT if count is None else count)]
    try:
        # One connection now, so that an unreachable database fails the open; each of the others
        # when its thread first reads: a command-line run or a short-lived store reads on one or
        # two, and each connection is a server process started for it.
        await trio.to_thread.run_sync(connections[0].get)
    except (psycopg.Error, OSError) as exc:
        await trio.to_thread.run_sync(_close_all, connections)
        raise translate_error(exc) from exc
    return PostgresReaders(connections)
