"""Storage test helpers: a gate that holds a write transaction open on demand.

``async with write_gate(store) as gate``: a transaction containing
``gate.statement`` stops there, inside the database transaction, until
``gate.open()``.  SQLite: a SQL function that waits on an event, registered
on the writer's connection.  PostgreSQL: an advisory lock held by a raw
connection's open transaction.  The gate opens itself on exit.
"""

from __future__ import annotations

import functools
import secrets
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

import asyncpg
import pytest
import trio
import trio_asyncio

from reelhouse.storage import Statement, Store

GATE_TIMEOUT_S = 20.0  # a gate left shut opens by itself: a failing test never hangs
POLL_S = 0.01


class WriteGate(Protocol):
    statement: Statement

    async def wait_blocked(self) -> None:
        """Return once a transaction waits at the gate."""

    async def open(self) -> None: ...


class _SqliteGate:
    def __init__(self, store: Store) -> None:
        self._entered = threading.Event()
        self._released = threading.Event()
        name = f"gate_{secrets.token_hex(4)}"
        store._writer._conn.create_function(name, 0, self._block)  # type: ignore[attr-defined]
        self.statement = Statement(f"SELECT {name}()")

    def _block(self) -> int:
        self._entered.set()
        self._released.wait(GATE_TIMEOUT_S)
        return 1

    async def wait_blocked(self) -> None:
        await trio.to_thread.run_sync(self._entered.wait, abandon_on_cancel=True)

    async def open(self) -> None:
        self._released.set()
        await trio.lowlevel.checkpoint()


class _PostgresGate:
    def __init__(self, loop: trio_asyncio.TrioEventLoop, conn: asyncpg.Connection, key: int) -> None:
        self._loop = loop
        self._conn = conn
        self._key = key
        self._open = False
        self.statement = Statement("SELECT pg_advisory_xact_lock(?)", (key,))

    async def _call(self, sql: str, *args: object) -> object:
        return await trio_asyncio.aio_as_trio(self._conn.fetchval, loop=self._loop)(sql, *args)

    async def wait_blocked(self) -> None:
        query = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid::text::bigint = $1 AND NOT granted"
        while not await self._call(query, self._key):
            await trio.sleep(POLL_S)

    async def open(self) -> None:
        if not self._open:
            self._open = True
            await self._call("COMMIT")


@asynccontextmanager
async def _open_write_gate(store: Store, postgres_url: str) -> AsyncIterator[WriteGate]:
    if store.backend == "sqlite":
        gate = _SqliteGate(store)
        try:
            yield gate
        finally:
            await gate.open()
        return
    loop = store._loop  # type: ignore[attr-defined]
    conn = await trio_asyncio.aio_as_trio(asyncpg.connect, loop=loop)(postgres_url)
    key = secrets.randbelow(2**31)
    pg_gate = _PostgresGate(loop, conn, key)
    try:
        await pg_gate._call("BEGIN")
        await pg_gate._call("SELECT pg_advisory_xact_lock($1)", key)
        yield pg_gate
    finally:
        with trio.CancelScope(shield=True):
            await pg_gate.open()
            await trio_asyncio.aio_as_trio(conn.close, loop=loop)()


@pytest.fixture
def write_gate(postgres_url: str) -> Callable[[Store], AbstractAsyncContextManager[WriteGate]]:
    """``write_gate(store)``: an async context manager giving a WriteGate."""
    return functools.partial(_open_write_gate, postgres_url=postgres_url)
