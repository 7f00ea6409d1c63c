"""Stored jobs: the Job JSON of every job, so the list survives a restart.

The JobRegistry keeps live jobs in memory and writes each one's latest Job
JSON here when its state changes (and now and then while it runs). A job
id has one row: a scan's ``scan:{libraryId}`` job replaces that library's
last one. At start-up a row left running by a killed process becomes
``failed`` (:func:`fail_unfinished_jobs`); listing and cleanup drop rows
finished longer ago than the retention.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from reelhouse.timefmt import rfc3339_ms

from ._store import Statement, Store, now_ms

SERVER_STOPPED_MESSAGE = "The server stopped while this job was running."
FINAL_JOB_STATES = frozenset({"succeeded", "failed", "cancelled"})
# Fields that describe a moment of a running job and mean nothing once it ended.
_LIVE_ONLY_FIELDS = ("phase", "etaSeconds", "current", "waiting", "nextRetryAt")

# The Job JSON is ``data``; the columns beside it are what listing,
# retention and cleanup filter on (the table is migration 0001's).
_UPSERT = (
    "INSERT INTO jobs (id, kind, state, title, library_id, subject, started_at, finished_at, message,"
    " message_code, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, state = excluded.state, title = excluded.title,"
    " library_id = excluded.library_id, subject = excluded.subject, started_at = excluded.started_at,"
    " finished_at = excluded.finished_at, message = excluded.message, message_code = excluded.message_code,"
    " data = excluded.data"
)


async def save_job(store: Store, job: Mapping[str, Any], *, started_at_ms: int | None,
                   finished_at_ms: int | None) -> None:
    """Write (insert or replace) one job's Job JSON."""
    await store.execute(_UPSERT, _row(job, started_at_ms, finished_at_ms))


def _row(job: Mapping[str, Any], started_at_ms: int | None, finished_at_ms: int | None) -> tuple[Any, ...]:
    return (str(job["id"]), str(job["kind"]), str(job["state"]), str(job.get("title", "")),
            job.get("libraryId"), job.get("subject"), started_at_ms, finished_at_ms, job.get("message"),
            job.get("messageCode"), json.dumps(dict(job), separators=(",", ":")))


async def list_stored_jobs(store: Store, *, finished_since_ms: int) -> list[dict[str, Any]]:
    """Unfinished jobs and those finished at or after ``finished_since_ms``, newest start first."""
    rows = await store.fetch_all(
        "SELECT data FROM jobs WHERE finished_at IS NULL OR finished_at >= ?"
        " ORDER BY started_at DESC NULLS LAST, id",
        (finished_since_ms,),
    )
    return [json.loads(row["data"]) for row in rows]


async def get_stored_job(store: Store, job_id: str) -> dict[str, Any] | None:
    row = await store.fetch_one("SELECT data FROM jobs WHERE id = ?", (job_id,))
    return None if row is None else json.loads(row["data"])


async def fail_unfinished_jobs(
    store: Store, message: str = SERVER_STOPPED_MESSAGE, *, job_id: str | None = None
) -> int:
    """Record every job still marked unfinished as ``failed`` (start-up; with ``job_id``
    that one only: a node taking a library over from a dead leader); returns how many."""
    finished = now_ms()
    sql = "SELECT id, started_at, data FROM jobs WHERE finished_at IS NULL"
    params: tuple[str, ...] = ()
    if job_id is not None:
        sql, params = sql + " AND id = ?", (job_id,)
    rows = await store.fetch_all(sql, params)
    statements = []
    for row in rows:
        body = failed_body(json.loads(row["data"]), message, finished)
        statements.append(Statement(_UPSERT, _row(body, row["started_at"], finished)))
    if statements:
        await store.transaction(statements)
    return len(statements)


def failed_body(body: dict[str, Any], message: str, finished_at_ms: int) -> dict[str, Any]:
    """A running job's JSON as a failed one: final state, no live-only fields."""
    body = {k: v for k, v in body.items() if k not in _LIVE_ONLY_FIELDS}
    body.update(state="failed", cancellable=False, message=message, finishedAt=rfc3339_ms(finished_at_ms))
    return body


async def purge_finished_jobs(store: Store, *, finished_before_ms: int) -> int:
    """Delete jobs that finished before ``finished_before_ms``; returns how many."""
    result = await store.execute(
        "DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?", (finished_before_ms,)
    )
    return result.rowcount
