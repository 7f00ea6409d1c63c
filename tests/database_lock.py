"""Another client holding a database's write lock: a slow or stuck database, for real."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
import trio

from reelhouse.storage._open import parse_database_url


def _lock(database_url: str, table: str) -> Any:
    target = parse_database_url(database_url)
    if target.backend == "sqlite":
        conn: Any = sqlite3.connect(target.location, isolation_level=None, check_same_thread=False)
        conn.execute("BEGIN IMMEDIATE")  # every other writer waits (busy timeout) until we roll back
        return conn
    conn = psycopg.connect(target.location)
    if target.schema:
        conn.execute(f'SET search_path TO "{target.schema}"')
    conn.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")  # writes wait; plain reads go on
    return conn


@asynccontextmanager
async def database_write_lock(database_url: str, table: str) -> AsyncIterator[None]:
    """Hold the write lock of ``database_url`` (SQLite: the whole file; PostgreSQL: ``table``) while inside."""
    conn = await trio.to_thread.run_sync(_lock, database_url, table)
    try:
        yield
    finally:
        await trio.to_thread.run_sync(conn.rollback)
        await trio.to_thread.run_sync(conn.close)
