"""The PostgreSQL backend's own parts: placeholders, statement kinds, queueing, the reader threads."""

from __future__ import annotations

import contextvars
import gc
import os
import weakref
from urllib.parse import parse_qs, urlencode, urlsplit

import asyncpg
import psycopg
import pytest
import trio

import reelhouse.storage._postgres_reads as postgres_reads
from reelhouse.storage import (
    IntegrityError,
    Statement,
    StoreError,
    StoreFull,
    StoreUnavailable,
    failure_summary,
    migrate,
    open_store,
)
from reelhouse.storage._postgres_sql import translate_error, translate_sql


def test_question_marks_become_numbered_placeholders() -> None:
    sql = translate_sql("UPDATE t SET a = ?, b = ? WHERE id IN (?, ?)").numbered
    assert sql == "UPDATE t SET a = $1, b = $2 WHERE id IN ($3, $4)"
    assert translate_sql("SELECT 1").numbered == "SELECT 1"


def test_queries_and_returning_statements_return_rows() -> None:
    assert translate_sql("  select * from t").returns_rows
    assert translate_sql("INSERT INTO t (a) VALUES (?) RETURNING id").returns_rows
    assert translate_sql("WITH x AS (SELECT 1) SELECT * FROM x").returns_rows
    assert not translate_sql("UPDATE t SET a = ?").returns_rows
    assert not translate_sql("WITH x AS (SELECT 1) DELETE FROM t WHERE a IN (SELECT * FROM x)").returns_rows
    assert not translate_sql("CREATE TABLE t (a INTEGER)").returns_rows


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_transactions_waiting_for_a_connection_are_served_first_come_first_served(
    database_url: str,
) -> None:
    finished: list[int] = []
    with trio.fail_after(30):
        async with open_store(_sized(database_url, writers=1)) as store:
            slots = store._slots  # type: ignore[attr-defined]

            async def caller(number: int) -> None:
                await store.execute("SELECT pg_sleep(0.05)")  # a transaction: asyncpg's connections
                finished.append(number)

            async with trio.open_nursery() as nursery:
                for number in range(6):
                    nursery.start_soon(caller, number)
                    while slots.statistics().tasks_waiting + slots.borrowed_tokens < number + 1:
                        await trio.sleep(0.001)  # this caller is queued before the next arrives
    assert finished == list(range(6))


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_reads_waiting_for_a_reader_are_served_first_come_first_served(
    database_url: str,
) -> None:
    finished: list[int] = []
    with trio.fail_after(30):
        async with open_store(_sized(database_url, readers=1)) as store:

            async def caller(number: int) -> None:
                await store.fetch_value("SELECT pg_sleep(0.05)")
                finished.append(number)

            async with trio.open_nursery() as nursery:
                for number in range(6):
                    nursery.start_soon(caller, number)
                    await trio.sleep(0.005)  # queued (run() queues before its first wait) before the next starts
    assert finished == list(range(6))


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_a_reader_whose_connection_was_cut_reconnects_for_the_next_read(database_url: str) -> None:
    terminate = "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ?"
    readers = postgres_reads.READER_COUNT
    with trio.fail_after(30):
        async with open_store(_sized(database_url, readers=readers)) as store:
            assert await store.fetch_value("SELECT 1") == 1
            cut = await store.execute(terminate, (postgres_reads.application_name(),))
            # This store's reader that read (the others connect when first used), and any other store's.
            assert cut.rows[0][0] >= 1
            failures = 0
            for _ in range(3 * readers):
                try:
                    assert await store.fetch_value("SELECT 2") == 2
                except StoreError:
                    failures += 1  # the read that found its connection cut
            assert failures <= readers
            for _ in range(2 * readers):
                assert await store.fetch_value("SELECT 3") == 3  # every reader is connected again


def test_reader_sql_takes_percent_s_placeholders_and_literal_percent_signs() -> None:
    assert translate_sql("SELECT ? WHERE name LIKE '%a' || ?").percent == "SELECT %s WHERE name LIKE '%%a' || %s"


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_reader_rows_index_by_name_and_position_and_make_dicts(store) -> None:
    with trio.fail_after(30):
        row = await store.fetch_one("SELECT 1 AS a, 'x' AS b, 2 AS a")
        assert (row["a"], row["b"], row[2], tuple(row), len(row)) == (1, "x", 2, (1, "x", 2), 3)
        assert dict(await store.fetch_one("SELECT 1 AS a, 'x' AS b")) == {"a": 1, "b": "x"}
        assert list(row.keys()) == ["a", "b", "a"]


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_a_read_of_a_statement_without_rows_answers_no_rows(store) -> None:
    with trio.fail_after(30):
        await store.execute("CREATE TABLE vacuumed (id INTEGER)")
        assert await store.fetch_all("VACUUM (ANALYZE) vacuumed") == []  # outside a transaction, as VACUUM must be
        assert await store.fetch_one("SET LOCAL work_mem = '8MB'") is None


def _sized(database_url: str, **sizes: int) -> str:
    """``database_url`` with these connection counts (``writers``, ``readers``) instead of the suite's."""
    parts = urlsplit(database_url)
    query = {key: values[0] for key, values in parse_qs(parts.query).items()}
    query.update({name: str(count) for name, count in sizes.items()})
    return parts._replace(query=urlencode(query)).geturl()


# Where Debian's PostgreSQL listens on its Unix socket.
SOCKET_DIR = "/var/run/postgresql"


def _unix_socket_url(database_url: str) -> str:
    """``database_url``'s database and schema, reached through the Unix socket (no host in the URL)."""
    parts = urlsplit(database_url)
    if not os.path.exists(os.path.join(SOCKET_DIR, f".s.PGSQL.{parts.port or 5432}")):
        pytest.skip(f"no PostgreSQL Unix socket in {SOCKET_DIR}")
    schema = parse_qs(parts.query)["schema"][0]
    return f"postgresql://{parts.path}?host={SOCKET_DIR}&port={parts.port or 5432}&schema={schema}"


@pytest.mark.parametrize("backend", ["postgresql"])
@pytest.mark.parametrize("form", ["host_and_port", "unix_socket_without_host"])
async def test_reads_and_writes_work_with_either_url_form(database_url: str, form: str) -> None:
    url = database_url if form == "host_and_port" else _unix_socket_url(database_url)
    with trio.fail_after(30):
        async with open_store(url) as store:
            await migrate(store)  # transactions: asyncpg
            await store.execute("CREATE TABLE url_probe (a INTEGER)")
            await store.execute("INSERT INTO url_probe (a) VALUES (?)", (7,))
            row = await store.fetch_one("SELECT a, current_schema() AS s FROM url_probe")  # reads: psycopg
    assert row is not None
    assert (row["a"], row["s"]) == (7, parse_qs(urlsplit(database_url).query)["schema"][0])


@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        (asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command"), StoreUnavailable),
        (asyncpg.exceptions.CannotConnectNowError("the database system is starting up"), StoreUnavailable),
        (asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
         StoreUnavailable),
        (asyncpg.InterfaceError("cannot call Transaction.__aexit__(): the underlying connection is closed"),
         StoreUnavailable),
        (ConnectionRefusedError(111, "Connect call failed"), StoreUnavailable),
        (asyncpg.exceptions.InternalClientError("cannot switch to state 12; another operation (2) is in progress"),
         StoreUnavailable),
        (asyncpg.exceptions.InternalClientError("got result for unknown protocol state 3"), StoreError),
        (psycopg.OperationalError("connection failed: Connection refused"), StoreUnavailable),
        (psycopg.errors.AdminShutdown("terminating connection"), StoreUnavailable),
        (asyncpg.exceptions.DiskFullError("could not extend file"), StoreFull),
        (psycopg.errors.DiskFull("could not extend file"), StoreFull),
        (asyncpg.exceptions.UniqueViolationError("duplicate key"), IntegrityError),
        (asyncpg.InterfaceError("cannot perform operation: another operation is in progress"), StoreError),
        (psycopg.errors.QueryCanceled("canceling statement due to statement timeout"), StoreError),
    ],
)
def test_a_driver_failure_becomes_the_store_error_of_its_kind(failure: Exception, kind: type[StoreError]) -> None:
    """A lost connection is StoreUnavailable (passing), a full disk StoreFull, each with its sentence."""
    error = translate_error(failure)
    assert type(error) is kind and error.__cause__ is failure
    if kind in (StoreUnavailable, StoreFull):
        assert failure_summary(ExceptionGroup("nursery", [error])) == kind.summary


class _Caller:
    """Stands for a request: Quart keeps the current one in a context variable."""


_current_caller: contextvars.ContextVar[_Caller] = contextvars.ContextVar("current_caller")


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_a_finished_transaction_keeps_nothing_of_its_caller_alive(database_url: str) -> None:
    callers: list[weakref.ref[_Caller]] = []

    async def caller(number: int) -> None:
        current = _Caller()
        _current_caller.set(current)  # in this task's own context, as a request's
        callers.append(weakref.ref(current))
        await store.execute("CREATE TABLE IF NOT EXISTS t (a INTEGER)")
        await store.transaction([Statement("INSERT INTO t (a) VALUES (?)", (number,))])

    with trio.fail_after(30):
        async with open_store(database_url) as store:
            for number in range(20):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(caller, number)
            gc.collect()
            assert [ref for ref in callers if ref() is not None] == []


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_a_transaction_cut_mid_statement_closes_its_connection_and_the_pool_serves_on(
    database_url: str,
) -> None:
    with trio.fail_after(30):  # one writer connection: the cut one, or its successor
        async with open_store(_sized(database_url, writers=1)) as store:
            (before,) = await store.transaction([Statement("SELECT pg_backend_pid() AS pid")])
            with trio.move_on_after(0.2) as cut:
                await store.execute("SELECT pg_sleep(60)")
            assert cut.cancelled_caught
            (after,) = await store.transaction([Statement("SELECT pg_backend_pid() AS pid")])
            await store.execute(f"SELECT pg_terminate_backend({before.rows[0]['pid']})")  # the sleeper, if alive
    assert after.rows[0]["pid"] != before.rows[0]["pid"]  # never back into the pool as it was
