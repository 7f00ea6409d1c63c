"""Database upkeep and retention purges (the cleanup and database_maintenance tasks).

``optimize_database_now`` works on a connection of its own (never the
Store's writer); the server runs it in a niced child process
(reelhouse/process/maintenance_process.py):

- SQLite: ``PRAGMA optimize`` and a bounded ``ANALYZE`` (``analysis_limit``
  keeps it to a moment on a large catalogue), a passive WAL checkpoint
  (never waits for readers), and an incremental vacuum. WAL readers are
  never blocked; the writer waits at most for the ANALYZE.
- PostgreSQL: ``VACUUM (ANALYZE)`` of this schema's tables, which takes
  no lock that readers or writers wait for.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from ._open import parse_database_url
from ._store import Store
from .catalog import relist_directories

ANALYSIS_LIMIT_ROWS = 1000  # rows ANALYZE samples per index (SQLite)
INCREMENTAL_VACUUM_PAGES = 10_000
SQLITE_BUSY_TIMEOUT_S = 5.0


class MaintenanceError(Exception):
    """Database maintenance failed; the message is safe to show."""


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    steps: tuple[str, ...]


def optimize_database_now(database_url: str) -> MaintenanceReport:
    """Blocking: run it in a worker thread or (the server does) a child process."""
    target = parse_database_url(database_url)
    if target.backend == "sqlite":
        steps = _optimize_sqlite(target.location)
    else:
        steps = _vacuum_postgres(target.location, target.schema)
    return MaintenanceReport(tuple(steps))


def _optimize_sqlite(path: str) -> list[str]:
    conn = sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_S, isolation_level=None)
    try:
        conn.execute(f"PRAGMA analysis_limit = {ANALYSIS_LIMIT_ROWS}")
        conn.execute("PRAGMA optimize")
        conn.execute("ANALYZE")
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        conn.execute(f"PRAGMA incremental_vacuum({INCREMENTAL_VACUUM_PAGES})").fetchall()
    finally:
        conn.close()
    return ["optimize", "analyze", "checkpoint", "incremental_vacuum"]


def _vacuum_postgres(dsn: str, schema: str | None) -> list[str]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        if schema:
            conn.execute(f'SET search_path TO "{schema}"')
        tables = [row[0] for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
        ).fetchall()]
        if tables:
            names = ", ".join(f'"{name}"' for name in tables)
            conn.execute(f"VACUUM (ANALYZE) {names}")
    return ["vacuum_analyze"]


# --- cleanup purges -----------------------------------------------------------


async def missing_grace_by_library(store: Store) -> dict[str, int]:
    """Each library's ``missingGraceHours`` (0: never purged)."""
    from .libraries import list_libraries

    return {record.id: int(record.options.missing_grace_hours or 0) for record in await list_libraries(store)}


async def purge_missing_items(store: Store, library_id: str, *, missing_before_ms: int) -> int:
    """Delete items of ``library_id`` missing since before ``missing_before_ms`` (and what they own).

    Their directories are listed again by the next scan, as
    :func:`~.catalog.purge_missing` has them: a file deleted with its item
    may still be there, in a directory no scan would otherwise parse again.
    """
    result = await store.execute(
        "DELETE FROM items WHERE library_id = ? AND missing = 1 AND missing_since IS NOT NULL"
        " AND missing_since < ? RETURNING dir_path",
        (library_id, missing_before_ms),
    )
    await relist_directories(store, library_id, [row[0] for row in result.rows if row[0] is not None])
    return result.rowcount


async def purge_scan_errors(store: Store, *, before_ms: int) -> int:
    result = await store.execute("DELETE FROM scan_errors WHERE occurred_at < ?", (before_ms,))
    return result.rowcount


async def clear_history_addresses(store: Store, *, before_ms: int) -> int:
    """Forget the address (``ip``) of play records older than the retention."""
    result = await store.execute(
        "UPDATE play_history SET ip = NULL WHERE ip IS NOT NULL AND started_at < ?", (before_ms,)
    )
    return result.rowcount


async def library_ids(store: Store) -> set[str]:
    return {row["id"] for row in await store.fetch_all("SELECT id FROM libraries")}


async def count_queued_for_scrape(store: Store) -> int:
    """Present items waiting for a metadata scrape."""
    value = await store.fetch_value("SELECT COUNT(*) FROM items WHERE scrape_state = 'pending' AND missing = 0")
    return int(value or 0)
