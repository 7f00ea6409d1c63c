"""PostgreSQL's pg_trgm: the search migration finds the extension wherever a concurrent migrator put it.

Regression: two installations (or two test schemas) migrating a database
without pg_trgm at once. The second's ``CREATE EXTENSION ... SCHEMA public``
waited for the first's, failed on the duplicate, its fallback's
``IF NOT EXISTS`` found the extension, and the migration then named its own
schema for the operator class: "operator class t_....gin_trgm_ops does not
exist", migration 3 failed (the suite's first run on a fresh PostgreSQL).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
import trio

from reelhouse.storage import migrate, open_store

from ..conftest import POSTGRES_URL, TEST_POOL_SIZES, postgres_problem

LIMIT_S = 30


@pytest.fixture
def fresh_database() -> Iterator[str]:
    """A database of the test's own on the shared server, without pg_trgm; dropped afterwards."""
    problem = postgres_problem()
    if problem is not None:
        pytest.skip(problem)
    name = f"rh_trgm_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    try:
        yield POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _waiting_on_a_lock(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity"
                           " WHERE datname = current_database() AND wait_event_type = 'Lock'").fetchone()
    return bool(row and row[0])


async def test_a_migration_racing_another_for_pg_trgm_indexes_with_the_extension_where_it_landed(
    fresh_database: str,
) -> None:
    holder = await trio.to_thread.run_sync(psycopg.connect, fresh_database)
    try:
        await trio.to_thread.run_sync(holder.execute, "CREATE EXTENSION pg_trgm SCHEMA public")  # not committed yet
        url = f"{fresh_database}?schema=racer&{TEST_POOL_SIZES}"
        with trio.fail_after(LIMIT_S):
            async with open_store(url) as store, trio.open_nursery() as nursery:
                nursery.start_soon(migrate, store)
                while not await trio.to_thread.run_sync(_waiting_on_a_lock, fresh_database):
                    await trio.sleep(0.05)  # until the migration's CREATE EXTENSION waits on the holder's
                await trio.to_thread.run_sync(holder.commit)
            async with open_store(url) as store:
                indexes = await store.fetch_all("SELECT indexdef FROM pg_indexes WHERE indexname LIKE '%trgm'")
    finally:
        await trio.to_thread.run_sync(holder.close)
    assert len(indexes) == 3
    assert all("public.gin_trgm_ops" in row[0] for row in indexes), indexes
