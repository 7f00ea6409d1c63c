"""The PostgreSQL backend: writes through asyncpg and trio-asyncio, reads on threads.

Reads go to psycopg connections on dedicated threads
(:mod:`reelhouse.storage._postgres_reads`: about a third of the CPU per
read).  Every transaction is ONE asyncio coroutine,
called from Trio as ``await aio_as_trio(unit, loop=...)(...)``: a
transaction spread over several ``aio_as_trio`` calls would run in several
asyncio tasks and silently not be a transaction.  The coroutines below are
the only asyncio code; everything around them (timeouts, cancellation) is
Trio.  Cancelling a caller cancels its asyncio task: an unfinished
transaction is rolled back (all-or-nothing either way).

SQL arrives in the shared dialect with ``?`` placeholders; they are rewritten
to ``$1..$n`` (:mod:`._postgres_sql`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import asyncpg
import trio
import trio_asyncio

from reelhouse.shutdown import bounded_shield, shutdown_deadline

from ._lease_lane import in_lease_lane
from ._outage import Outage
from ._postgres_bulk import BULK_MIN_ROWS, COLUMN_TYPES_SQL, bulk_shape
from ._postgres_reads import PostgresReaders, open_readers
from ._postgres_sql import translate_error, translate_sql
from ._store import (
    Backend,
    Params,
    PoolUsage,
    Row,
    Statement,
    StoreError,
    StoreOpenError,
    StoreShorthands,
    WriteResult,
)
from .cluster_fence import FENCE_CHECK_SQL, Fence, fenced_out, write_fence

POOL_MIN_SIZE = 1
POOL_MAX_SIZE = 10
# The lease lane (._lease_lane): a node's library leases and the scheduler's renew at once at most.
LEASE_LANE_SIZE = 2
CONNECT_TIMEOUT_S = 15.0  # opening the pool (first connection, schema check)
IDLE_IN_TRANSACTION_TIMEOUT_MS = 5000  # see _aio_open_pool
CLOSE_TIMEOUT_S = 10.0  # graceful pool close before connections are cut (never past the shutdown deadline)

T = TypeVar("T")



# InternalClientError: asyncpg's own state refusing a statement (see _aio_begin); no InterfaceError.
_DRIVER_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.exceptions.InternalClientError, OSError)


# A failure of the connection itself, not a refusal of the statement.
_LINK_ERRORS = (asyncpg.PostgresConnectionError, asyncpg.exceptions.OperatorInterventionError,
                asyncpg.exceptions.InsufficientResourcesError, asyncpg.exceptions.InvalidTransactionStateError)
# A pooled connection found ended at its BEGIN (see _aio_begin).
_ENDED_ERRORS = (asyncpg.PostgresConnectionError, asyncpg.exceptions.OperatorInterventionError,
                 asyncpg.exceptions.InternalClientError)


def _status_count(status: str) -> int:
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


# -- asyncio side: each function is one unit of work --------------------------


ColumnTypes = dict[str, dict[str, str]]  # table -> column -> type, as format_type() names it


async def _aio_transaction(
    pool: asyncpg.Pool, statements: Sequence[Statement], types: ColumnTypes, fence: Fence | None = None
) -> list[WriteResult]:
    conn, transaction = await _aio_begin(pool)
    try:
        try:
            if fence is not None:
                check = translate_sql(FENCE_CHECK_SQL).numbered
                if await conn.fetchval(check, fence.name, fence.node_id, fence.epoch) is None:
                    raise fenced_out(fence)
            results = [await _aio_statement(conn, statement, types) for statement in statements]
        except Exception as error:
            if _refused(error):
                await transaction.rollback()
            raise
        await transaction.commit()
        return results
    except BaseException as error:
        if not _refused(error):
            # Cut mid-statement (cancelled, the link dead, the session ended by the server): no
            # ROLLBACK on it, and it never goes back into the pool as it is (asyncpg would send a
            # cancel request on a new connection first and wait for it, holding the connection
            # and its slot as long).  Closed, the server rolls back; the pool opens a new one.
            _terminate(conn)
        raise
    finally:
        await _aio_release(pool, conn)


async def _aio_begin(pool: asyncpg.Pool) -> tuple[asyncpg.Connection, Any]:
    """A pooled connection and its begun transaction; on a second connection when the first is found ended.

    A server that stops (or ends a session) sends each idle connection a
    FATAL error, then closes it.  asyncpg reads the error at once but the
    close only at a later turn of the loop (seconds under load); meanwhile
    the connection sits in the pool looking open and refuses every
    statement ("cannot switch to state 15; another operation (2) is in
    progress", an InternalClientError).  Nothing has run on it yet: BEGIN on
    another connection is safe, and it meets the database as it is now
    (running again, or refusing to connect: StoreUnavailable).
    """
    for attempt in (1, 2):
        conn = await pool.acquire()
        try:
            transaction = conn.transaction()
            await transaction.start()
            return conn, transaction
        except BaseException as error:
            if not _refused(error):
                _terminate(conn)
            await _aio_release(pool, conn)
            if attempt == 2 or not isinstance(error, _ENDED_ERRORS):
                raise
    raise AssertionError("unreachable")


def _terminate(conn: asyncpg.Connection) -> None:
    """Close ``conn`` at once, unless asyncpg already has (its loss seen: the pool took it back)."""
    try:
        conn.terminate()
    except asyncpg.InterfaceError:
        pass  # "connection has been released back to the pool": closed, its slot free


async def _aio_release(pool: asyncpg.Pool, conn: asyncpg.Connection) -> None:
    """Hand ``conn`` back; a failure to reset it (asyncpg then closes it) changes no outcome."""
    try:
        await pool.release(conn)
    except _DRIVER_ERRORS:
        # The reset after a transaction met the connection ended (the race of _aio_begin):
        # what the transaction did stands, committed or not, and the pool opens a new one.
        pass


def _refused(error: BaseException) -> bool:
    """Whether ``error`` is the server refusing a statement (rolled back; the connection sound)."""
    if isinstance(error, StoreError):  # fenced out: rolled back before any write
        return True
    return isinstance(error, asyncpg.PostgresError) and not isinstance(error, _LINK_ERRORS)


async def _aio_statement(conn: asyncpg.Connection, statement: Statement, types: ColumnTypes) -> WriteResult:
    translated = translate_sql(statement.sql)
    sql, returns_rows = translated.numbered, translated.returns_rows
    if statement.many is not None:
        if not await _aio_bulk(conn, statement.sql, statement.many, types):
            await conn.executemany(sql, statement.many)
        return WriteResult(rowcount=len(statement.many), rows=[])
    if returns_rows:
        rows = list(await conn.fetch(sql, *statement.params))
        return WriteResult(rowcount=len(rows), rows=rows)
    status = await conn.execute(sql, *statement.params)
    return WriteResult(rowcount=_status_count(status), rows=[])


async def _aio_bulk(conn: asyncpg.Connection, sql: str, rows: Sequence[Params], types: ColumnTypes) -> bool:
    """Run ``rows`` of ``sql`` as one statement over arrays; False when it has no such form."""
    shape = bulk_shape(sql) if len(rows) >= BULK_MIN_ROWS else None
    arrays = shape.arrays(rows) if shape is not None else None
    if shape is None or arrays is None:
        return False
    known = types.get(shape.table, {})
    bulk = shape.sql(known)
    if bulk is None:  # first use of the table, or a column added since
        rows_found = await conn.fetch(COLUMN_TYPES_SQL, shape.table)
        known = types[shape.table] = {str(row[0]): str(row[1]) for row in rows_found}
        bulk = shape.sql(known)
    if bulk is None:
        return False
    await conn.execute(bulk, *arrays)
    return True


async def _aio_open_pool(dsn: str, schema: str | None, size: int, min_size: int = POOL_MIN_SIZE) -> asyncpg.Pool:
    # Catalogue filters vary wildly in selectivity; a generic prepared plan
    # (what asyncpg's statement cache gets after five runs) was measured at
    # twice the time of a custom one for filtered item pages.
    # A transaction runs its statements back to back (one coroutine), so one
    # idle for seconds belongs to a client that stopped: a paused process, a
    # cut network. Ending it frees its row locks, which would otherwise hold
    # a cluster's lease takeover (storage/cluster_leases.py) for as long.
    # No JIT: it pays off only for long analytic queries; a page whose
    # estimate passes jit_above_cost (a sort over 20,000 items with a
    # subquery per row) spent about 1 s compiling to run in a few ms.
    settings = {"plan_cache_mode": "force_custom_plan", "jit": "off",
                "idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_TIMEOUT_MS)}
    if schema:
        settings["search_path"] = f'"{schema}"'
    # No asyncpg timers: trio-asyncio keeps a cancelled timer in its heap
    # until it would have fired, with the context it was made in (a request's,
    # through Quart's context variables). The pool's 300 s idle timer, armed at
    # every release, so kept five minutes of write requests alive, and the
    # statement cache's timers did the same. Idle connections stay open (at
    # most ``size``); cached statements leave by size (100 per connection).
    pool = await asyncpg.create_pool(
        dsn, min_size=min(min_size, size), max_size=size, server_settings=settings,
        max_inactive_connection_lifetime=0, max_cached_statement_lifetime=0,
    )
    try:
        if schema and min_size:  # the lease lane's pool (min_size 0) opens after the main one
            await _aio_ensure_schema(pool, schema)
    except BaseException:
        pool.terminate()
        raise
    return pool


async def _aio_ensure_schema(pool: asyncpg.Pool, schema: str) -> None:
    # Look first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even
    # when the schema is there, and a production role may not have it.
    exists = await pool.fetchval("SELECT 1 FROM pg_namespace WHERE nspname = $1", schema)
    if not exists:
        await pool.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')


# -- Trio side -----------------------------------------------------------------


class PostgresStore(StoreShorthands):
    """The Store on a PostgreSQL database.  Open it with :func:`open_postgres_store`."""

    backend: Backend = "postgresql"

    def __init__(
        self, loop: trio_asyncio.TrioEventLoop, pool: asyncpg.Pool, readers: PostgresReaders,
        dsn: str = "", schema: str | None = None, writers: int | None = None,
    ) -> None:
        self.dsn = dsn  # for a connection of its own (cluster notifications)
        self.schema = schema
        self._loop = loop
        self._pool = pool
        self._readers = readers
        # Callers queue here, first come first served, never in asyncpg's
        # pool: there a released connection goes to whichever acquirer runs
        # first, and under load some requests waited seconds while others
        # cut in (measured, 50 callers on 10 connections: p50 29 ms, p99
        # 1.9 s).  Trio's limiter hands each freed slot to the longest waiter.
        self._slots = trio.CapacityLimiter(POOL_MAX_SIZE if writers is None else writers)
        self.closed = False
        self._outage = Outage("PostgreSQL")
        self._transactions_ended = 0  # the data version (see Store.data_version)
        self._column_types: ColumnTypes = {}  # for many-row statements (._postgres_bulk)
        # Lease renewals' own connections (._lease_lane): a pool that connects at its first use.
        self._lease_pool: asyncpg.Pool | None = None
        self._lease_slots = trio.CapacityLimiter(LEASE_LANE_SIZE)

    async def _run(
        self, unit: Callable[..., Coroutine[Any, Any, T]], *args: Any, slots: trio.CapacityLimiter | None = None,
    ) -> T:
        self._check_open()
        async with self._slots if slots is None else slots:
            started = time.monotonic()
            try:
                result: T = await trio_asyncio.aio_as_trio(unit, loop=self._loop)(*args)
            except _DRIVER_ERRORS as exc:
                error = translate_error(exc)
                self._outage.note_failure(error)
                raise error from exc
        self._outage.note_success(started)
        return result

    async def _noted(self, read: Awaitable[T]) -> T:
        """``read``'s result; its failure noted in the outage log."""
        started = time.monotonic()
        try:
            result = await read
        except StoreError as error:
            self._outage.note_failure(error)
            raise
        self._outage.note_success(started)
        return result

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        self._check_open()
        return await self._noted(self._readers.fetch_all(sql, params))

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        self._check_open()
        return await self._noted(self._readers.fetch_one(sql, params))

    async def fetch_each(self, queries: Sequence[tuple[str, Params]]) -> list[list[Row]]:
        self._check_open()
        return await self._noted(self._readers.fetch_each(queries))

    def _check_open(self) -> None:
        if self.closed:
            raise StoreError("the store is closed")

    def pool_usage(self) -> list[PoolUsage]:
        slots = self._slots.statistics()
        return [self._readers.usage(),
                PoolUsage("writers", slots.borrowed_tokens, int(slots.total_tokens), slots.tasks_waiting)]

    def data_version(self) -> int:
        self._check_open()
        return self._transactions_ended

    async def transaction(self, statements: Sequence[Statement]) -> list[WriteResult]:
        """Run ``statements`` all-or-nothing on one pooled connection.

        Raises IntegrityError (a constraint refused one of them) or
        StoreError.  A cancelled caller's transaction is rolled back unless
        its COMMIT was already sent.
        """
        if not statements:
            return []
        try:
            # A library leader's task carries its lease (storage/cluster_fence.py).
            if in_lease_lane():
                return await self._run(_aio_transaction, await self._opened_lease_pool(), list(statements),
                                       self._column_types, write_fence.get(), slots=self._lease_slots)
            return await self._run(
                _aio_transaction, self._pool, list(statements), self._column_types, write_fence.get()
            )
        finally:
            self._transactions_ended += 1

    async def _opened_lease_pool(self) -> asyncpg.Pool:
        """The lease lane's pool, made (without connecting) at its first use."""
        self._check_open()
        if self._lease_pool is None:
            dsn, schema = self.dsn, self.schema
            pool = await trio_asyncio.aio_as_trio(_aio_open_pool, loop=self._loop)(dsn, schema, LEASE_LANE_SIZE, 0)
            if self._lease_pool is None:  # another caller made one meanwhile: keep the first
                self._lease_pool = pool
            else:
                pool.terminate()
        return self._lease_pool

    async def close(self) -> None:
        """Refuse new work, let running work finish (shielded, bounded), close the pool and the readers."""
        self.closed = True
        with bounded_shield(CLOSE_TIMEOUT_S):
            await self._readers.aclose(min(CLOSE_TIMEOUT_S, shutdown_deadline().remaining()))
        with bounded_shield(CLOSE_TIMEOUT_S) as scope:
            await trio_asyncio.aio_as_trio(self._pool.close, loop=self._loop)()
        if scope.cancelled_caught:
            self._pool.terminate()
        if self._lease_pool is not None:  # renewals are short: no grace
            self._lease_pool.terminate()


@asynccontextmanager
async def open_postgres_store(
    dsn: str, *, schema: str | None = None, writers: int | None = None, readers: int | None = None,
) -> AsyncIterator[PostgresStore]:
    """Open a pool on ``dsn``; with ``schema``, every connection uses it.

    ``writers`` and ``readers`` size the writer pool and the reader
    connections (default :data:`POOL_MAX_SIZE` and
    :data:`~._postgres_reads.READER_COUNT`).

    The schema is created when missing.  Opens a trio-asyncio loop around the
    store when none is running.  Raises StoreError when the database cannot
    be reached within :data:`CONNECT_TIMEOUT_S`.
    """
    async with AsyncExitStack() as stack:
        loop = trio_asyncio.current_loop.get()
        if loop is None:
            loop = await stack.enter_async_context(trio_asyncio.open_loop())
        writers = POOL_MAX_SIZE if writers is None else writers
        pool = await _open_pool(loop, dsn, schema, writers)
        try:
            reading = await open_readers(dsn, schema, readers)  # after the pool: it creates the schema
        except BaseException:
            pool.terminate()
            raise
        store = PostgresStore(loop, pool, reading, dsn, schema, writers)
        stack.push_async_callback(store.close)
        yield store


async def _open_pool(loop: trio_asyncio.TrioEventLoop, dsn: str, schema: str | None, size: int) -> asyncpg.Pool:
    try:
        with trio.fail_after(CONNECT_TIMEOUT_S):
            return await trio_asyncio.aio_as_trio(_aio_open_pool, loop=loop)(dsn, schema, size)
    except trio.TooSlowError:
        raise StoreOpenError(f"cannot connect to PostgreSQL at {_where(dsn)}: no answer within "
                             f"{CONNECT_TIMEOUT_S:.0f} s") from None
    except _DRIVER_ERRORS as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StoreOpenError(f"cannot connect to PostgreSQL at {_where(dsn)}: {reason}") from exc


def _where(dsn: str) -> str:
    """host:port/database of ``dsn``, never its user's password."""
    parts = urlsplit(dsn)
    host = parts.hostname or parse_qs(parts.query).get("host", ["the default socket"])[0]
    port = f":{parts.port}" if parts.port else ""
    return f"{host}{port}/{parts.path.lstrip('/') or '(default database)'}"

