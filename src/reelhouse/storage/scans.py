"""Scan runs: one row per scan, from ``running`` to a final state.

A scan's live progress lives in its actor; the row records how each run
started and ended, so that no scan is ever left ``running`` after a restart
(:func:`fail_running_scans` at start-up).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from ._store import Row, Store, now_ms

SERVER_STOPPED_MESSAGE = "The server stopped while this scan was running."
UNFINISHED_STATES = ("running", "cancelling")
FINAL_SCAN_STATES = frozenset({"completed", "failed", "cancelled"})

_COLUMNS = "id, library_id, mode, state, started_at, finished_at, counts, message"


@dataclass(frozen=True, slots=True)
class ScanRunRecord:
    id: int
    library_id: str
    mode: str  # quick, full
    state: str  # running, cancelling, completed, failed, cancelled
    started_at_ms: int
    finished_at_ms: int | None
    counts: Mapping[str, int] = field(default_factory=dict)  # processed, added, changed, missing, errors
    message: str | None = None


async def insert_scan_run(
    store: Store, library_id: str, mode: str, *, started_at_ms: int | None = None
) -> ScanRunRecord:
    """Record a scan that starts now, ``running``.

    Raises IntegrityError for an unknown library, StoreError on failure.
    """
    result = await store.execute(
        f"INSERT INTO scan_runs (library_id, mode, state, started_at) VALUES (?, ?, 'running', ?)"
        f" RETURNING {_COLUMNS}",
        (library_id, mode, now_ms() if started_at_ms is None else started_at_ms),
    )
    return _record(result.rows[0])


async def update_scan_run(
    store: Store,
    run_id: int,
    *,
    state: str,
    counts: Mapping[str, int] | None = None,
    message: str | None = None,
    finished_at_ms: int | None = None,
) -> bool:
    """Set a run's state (and counts, message); a final state sets ``finished_at``.

    ``counts`` None keeps the stored counts.  Returns False when no run has
    that id.  Raises ValueError for an unknown state.
    """
    if state not in UNFINISHED_STATES and state not in FINAL_SCAN_STATES:
        raise ValueError(f"unknown scan state {state!r}")
    finished = None
    if state in FINAL_SCAN_STATES:
        finished = now_ms() if finished_at_ms is None else finished_at_ms
    result = await store.execute(
        "UPDATE scan_runs SET state = ?, counts = COALESCE(?, counts), message = ?, finished_at = ?"
        " WHERE id = ?",
        (state, None if counts is None else json.dumps(dict(counts)), message, finished, run_id),
    )
    return result.rowcount > 0


async def get_scan_run(store: Store, run_id: int) -> ScanRunRecord | None:
    row = await store.fetch_one(f"SELECT {_COLUMNS} FROM scan_runs WHERE id = ?", (run_id,))
    return None if row is None else _record(row)


async def latest_scan_run(store: Store, library_id: str) -> ScanRunRecord | None:
    """The library's most recent run, whatever its state."""
    row = await store.fetch_one(
        f"SELECT {_COLUMNS} FROM scan_runs WHERE library_id = ? ORDER BY id DESC LIMIT 1", (library_id,)
    )
    return None if row is None else _record(row)


async def fail_running_scans(
    store: Store, message: str = SERVER_STOPPED_MESSAGE, *, library_id: str | None = None
) -> int:
    """At start-up (or, with ``library_id``, when a node takes a library over from a dead
    leader): every run left unfinished becomes ``failed`` with ``message``.

    Returns how many runs changed.  Raises StoreError.
    """
    sql = "UPDATE scan_runs SET state = 'failed', message = ?, finished_at = ? WHERE state IN (?, ?)"
    params: tuple[object, ...] = (message, now_ms(), *UNFINISHED_STATES)
    if library_id is not None:
        sql += " AND library_id = ?"
        params = (*params, library_id)
    result = await store.execute(sql, params)
    return result.rowcount


def _record(row: Row) -> ScanRunRecord:
    return ScanRunRecord(
        id=int(row["id"]),
        library_id=row["library_id"],
        mode=row["mode"],
        state=row["state"],
        started_at_ms=int(row["started_at"]),
        finished_at_ms=row["finished_at"],
        counts=json.loads(row["counts"]),
        message=row["message"],
    )
