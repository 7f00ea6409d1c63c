"""A pooled writer connection the server ended while it sat idle in the pool (PostgreSQL only).

A server that stops (or ends a session) sends an idle connection a FATAL
error and then closes it.  asyncpg reads the error as soon as it arrives,
the close only at a later turn of the event loop; in between (seconds under
load) the connection is still in the pool, looks open, and refuses every
statement with ``InterfaceError: cannot switch to state 15; another
operation (2) is in progress``.  The tests hand the pooled connection that
error (the bytes the server sends) with the close still to come: the
deterministic form of the race.  On a cluster of the test's own.
"""

from __future__ import annotations

import struct

import asyncpg
import pytest
import trio

from reelhouse.storage import Statement, StoreUnavailable, open_store
from tests.throwaway_postgres import ThrowawayPostgres

PID = Statement("SELECT pg_backend_pid() AS pid")
CAP_S = 30


def _admin_shutdown() -> bytes:
    """The ErrorResponse a backend sends an idle client when the server stops fast."""
    fields = b"".join(
        code + text.encode() + b"\0"
        for code, text in ((b"S", "FATAL"), (b"V", "FATAL"), (b"C", "57P01"),
                           (b"M", "terminating connection due to administrator command"))
    ) + b"\0"  # fmt: skip
    return b"E" + struct.pack("!i", len(fields) + 4) + fields


def _idle_connections(store: object) -> list[asyncpg.Connection]:
    pool = store._pool  # type: ignore[attr-defined]
    return [holder._con for holder in pool._holders if holder._con is not None and holder._in_use is None]


def _error_arrives(store: object) -> None:
    (idle,) = _idle_connections(store)
    idle._protocol.data_received(_admin_shutdown())  # as the socket hands it over; its close comes later


async def test_a_transaction_on_a_pooled_connection_the_server_ended_runs_on_a_new_one(
    throwaway_postgres: ThrowawayPostgres,
) -> None:
    with trio.fail_after(CAP_S):
        async with open_store(f"{throwaway_postgres.url}?writers=1&readers=1") as store:
            (before,) = await store.transaction([PID])
            _error_arrives(store)
            (after,) = await store.transaction([PID])
            await store.execute(f"SELECT pg_terminate_backend({before.rows[0]['pid']})")
    assert after.rows[0]["pid"] != before.rows[0]["pid"]


async def test_a_transaction_on_an_ended_connection_with_the_server_down_says_it_is_unavailable(
    throwaway_postgres: ThrowawayPostgres,
) -> None:
    with trio.fail_after(CAP_S):
        async with open_store(f"{throwaway_postgres.url}?writers=1&readers=1") as store:
            await store.transaction([PID])
            (idle,) = _idle_connections(store)
            # Stopped with the event loop held (a blocking call): the socket's close waits unread.
            throwaway_postgres.stop()
            _error_arrives(store)
            with pytest.raises(StoreUnavailable):
                await store.transaction([PID])
            assert idle.is_closed()


async def test_a_transaction_whose_session_the_server_ends_says_it_is_unavailable(
    throwaway_postgres: ThrowawayPostgres,
) -> None:
    # asyncpg has seen the close (and taken the connection back) before the transaction hears of it.
    with trio.fail_after(CAP_S):
        async with open_store(f"{throwaway_postgres.url}?writers=1&readers=1") as store:
            with pytest.raises(StoreUnavailable):
                await store.transaction([Statement("SELECT pg_terminate_backend(pg_backend_pid())")])
            (after,) = await store.transaction([PID])  # the pool serves on
    assert after.rows[0]["pid"] > 0
