"""The Store interface: one contract, two backends (SQLite and PostgreSQL).

SQL is written once, in the shared dialect described here, and runs unchanged
on both backends:

- placeholders are ``?`` (the PostgreSQL backend rewrites them to ``$1..$n``);
- booleans are INTEGER 0/1, timestamps are BIGINT milliseconds since the
  epoch (UTC), JSON documents are TEXT;
- upserts use ``INSERT ... ON CONFLICT (...) DO UPDATE``; ``RETURNING`` works.

Where the two engines disagree, write the portable form:

- parameters carry the column's Python type: ``str`` for TEXT, ``int`` (or
  ``bool``) for INTEGER/BIGINT; PostgreSQL refuses ``5`` for a TEXT column;
- NULLs sort first ascending on SQLite, last on PostgreSQL: say ``NULLS
  LAST`` / ``NULLS FIRST`` wherever NULLs can meet an ORDER BY;
- ``LIKE`` ignores ASCII case on SQLite only: compare ``lower(col) LIKE
  lower(?)`` (``lower`` folds only ASCII on SQLite);
- ``SUM``/``AVG`` of integers come back as Decimal from PostgreSQL: cast them
  (``CAST(SUM(x) AS BIGINT)``, ``CAST(AVG(x) AS DOUBLE PRECISION)``);
- no ``INSERT OR IGNORE``/``ILIKE``/``GROUP_CONCAT``/``string_agg``.

Rows support ``row["column"]`` and ``row[index]``.

Reads never queue behind writes: on SQLite they run on a small pool of
reader connections in worker threads (WAL mode), on PostgreSQL on the pool.
Every write goes through :meth:`Store.transaction` (or its one-statement
shorthands); on SQLite one writer task batches concurrent transactions into
one database transaction, each caller's statements isolated in a savepoint so
one failing caller never undoes another's work.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

Row = Any  # sqlite3.Row, asyncpg.Record (PostgreSQL writes) or PgRow (its reads): all index by name and position
Params = Sequence[Any]
Backend = Literal["sqlite", "postgresql"]


class StoreError(Exception):
    """A database operation failed (the message is safe to log, not to show)."""


class StoreOpenError(StoreError):
    """The database could not be opened (not reachable, no such role or database): a setting to fix.

    The message is one line naming where (never a password) and why; the
    command line prints it and exits 2, like every other bad setting.
    """


class IntegrityError(StoreError):
    """A constraint (unique, foreign key, check) refused the write."""


class StoreUnavailable(StoreError):
    """The database cannot be reached: the connection was refused or lost (a restart, the network).

    Passing: the store reconnects on its next call, so the same call may
    succeed later.
    """

    summary = "the database cannot be reached"


class StoreFull(StoreError):
    """The disk holding the database is full (SQLite's SQLITE_FULL, ENOSPC, PostgreSQL's 53100)."""

    summary = "the disk holding the database is full"


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement of a transaction.

    With ``many`` the statement runs once per row (``executemany``) and
    ``params`` is ignored; it returns no rows, and its rowcount is the number
    of parameter rows (PostgreSQL does not report more).  Statements must not
    control the transaction themselves (no BEGIN, COMMIT, SAVEPOINT).
    """

    sql: str
    params: Params = ()
    many: Sequence[Params] | None = None


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What one statement of a transaction produced."""

    rowcount: int  # rows affected; for a statement that returns rows, len(rows)
    rows: list[Row]  # rows from RETURNING (or a SELECT), else empty


class Store(Protocol):
    """The storage contract every backend fulfils."""

    backend: Backend

    def data_version(self) -> int:
        """A number that moves once a write commits, read without a trip to a thread or the network.

        SQLite: ``PRAGMA data_version`` on a connection of its own (a few
        microseconds on the event loop); it moves for every commit of
        another connection, this process's writer or another process's
        (``reelhouse apikey revoke``).  PostgreSQL: this store's own
        transactions only; another process's writes are not seen.  It moves
        after a write is visible to readers, never before: a value read
        before a query and unchanged after proves that no such write
        committed meanwhile, so a cache may keep what it read.  Raises
        StoreError when the store is closed.
        """
        ...

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]: ...

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None: ...

    async def fetch_value(self, sql: str, params: Params = ()) -> Any: ...

    async def fetch_each(self, queries: Sequence[tuple[str, Params]]) -> list[list[Row]]:
        """Each query's rows, in order, read from one snapshot in one trip to the database.

        For reads that belong together (an item and everything it owns):
        no write lands between them, and they cost one hand-over to the
        database instead of one per query.  Raises StoreError.
        """
        ...

    async def transaction(self, statements: Sequence[Statement]) -> list[WriteResult]:
        """Run ``statements`` all-or-nothing; raise IntegrityError/StoreError.

        Cancelling the caller never leaves a transaction half applied: on
        SQLite a transaction already queued to the writer still commits (and
        is flushed when the store closes); on PostgreSQL it is rolled back
        unless its COMMIT was already sent.
        """
        ...

    async def execute(self, sql: str, params: Params = ()) -> WriteResult: ...

    async def execute_many(self, sql: str, rows: Sequence[Params]) -> WriteResult: ...

    async def ping(self) -> None:
        """A round trip to the database; raises StoreError when it is down."""
        ...

    def pool_usage(self) -> list[PoolUsage]:
        """The connection pools' use now (for metrics), read on the event loop without a trip."""
        ...


@dataclass(frozen=True, slots=True)
class PoolUsage:
    """One pool of database connections: ``in_use`` of ``size``, and callers ``waiting`` for one."""

    pool: str  # "readers", "writers"
    in_use: int
    size: int
    waiting: int


class StoreShorthands:
    """The one-statement shorthands, written once on top of the core methods.

    A backend class inherits these and implements ``transaction`` and
    ``fetch_one``.
    """

    async def transaction(self, statements: Sequence[Statement]) -> list[WriteResult]:
        raise NotImplementedError

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        raise NotImplementedError

    async def fetch_value(self, sql: str, params: Params = ()) -> Any:
        """The first column of the first row, None when there is no row."""
        row = await self.fetch_one(sql, params)
        return None if row is None else row[0]

    async def execute(self, sql: str, params: Params = ()) -> WriteResult:
        """Run one statement in its own transaction."""
        (result,) = await self.transaction([Statement(sql, params)])
        return result

    async def execute_many(self, sql: str, rows: Sequence[Params]) -> WriteResult:
        """Run one statement once per row, all in one transaction."""
        (result,) = await self.transaction([Statement(sql, many=rows)])
        return result

    async def ping(self) -> None:
        """A round trip to the database; raises StoreError when it is down."""
        await self.fetch_value("SELECT 1")


def store_error(exc: BaseException, kind: type[StoreError] = StoreError) -> StoreError:
    """The Store error of class ``kind`` for a driver's failure ``exc``."""
    error = kind(f"{type(exc).__name__}: {exc}")
    error.__cause__ = exc
    return error


def failure_summary(error: BaseException) -> str:
    """What went wrong, in words for a person: the root cause inside (nested)
    exception groups; for a full disk or a lost database, that sentence."""
    cause = root_cause(error)
    summary = getattr(cause, "summary", None)
    if isinstance(cause, StoreError) and summary is not None:
        return str(summary)
    return f"{type(cause).__name__}: {cause}"


def root_cause(error: BaseException) -> BaseException:
    """The failure inside (nested) exception groups: a StoreError when there is
    one (a lost database fails every task that wrote), else the first."""
    while isinstance(error, BaseExceptionGroup):
        stored = error.subgroup(StoreError)
        error = (stored or error).exceptions[0]
    return error


def as_dict(row: Row) -> Mapping[str, Any]:
    return dict(row)


def now_ms() -> int:
    """The wall clock as stored: milliseconds since the epoch, UTC."""
    return time.time_ns() // 1_000_000
