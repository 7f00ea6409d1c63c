"""Stored schedules: each task's rules, pause flag and last run, and a revision.

The Scheduler actor owns the rows of a running server; the command line
(``reelhouse schedule ...``) changes rules from another process and bumps
``schedule_revision``, which the running Scheduler polls (one small read)
and reloads on a change. ``rules`` NULL means the task's built-in default.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reelhouse.media.schedule import Rule, parse_rules

from ._store import Statement, Store, now_ms

INTERRUPTED_MESSAGE = "The server stopped while this task was running."

_COLUMNS = (
    "task, owner, allows_after_scan, rules, paused, due_from, running_since, last_started_at,"
    " last_finished_at, last_result, last_error_code, last_error_libraries, last_message"
)
_BUMP = Statement("UPDATE schedule_revision SET revision = revision + 1 WHERE id = 1")


@dataclass(frozen=True, slots=True)
class ScheduleRow:
    task: str
    owner: str | None = None
    allows_after_scan: bool = False
    rules: tuple[Rule, ...] | None = None  # None: the built-in default
    paused: bool = False
    due_from_ms: int | None = None
    running_since_ms: int | None = None
    last_started_ms: int | None = None
    last_finished_ms: int | None = None
    last_result: str | None = None
    last_error_code: str | None = None
    last_error_libraries: tuple[str, ...] = ()
    last_message: str | None = None


@dataclass(frozen=True, slots=True)
class RunEnd:
    """How a run ended, as recorded."""

    result: str  # succeeded, failed, cancelled, skipped
    error_code: str | None = None
    error_libraries: tuple[str, ...] = ()
    message: str | None = None


async def ensure_tasks(store: Store, tasks: Iterable[tuple[str, str | None, bool]], *,
                       at_ms: int | None = None) -> None:
    """Create the row of each ``(task, owner, allows_after_scan)`` not stored yet;
    its times count from ``at_ms`` (default now)."""
    now = now_ms() if at_ms is None else at_ms
    statements = [
        Statement(
            "INSERT INTO schedules (task, owner, allows_after_scan, due_from, updated_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (task) DO UPDATE SET owner = excluded.owner,"
            " allows_after_scan = excluded.allows_after_scan",
            (task, owner, int(allows), now, now),
        )
        for task, owner, allows in tasks
    ]
    if statements:
        await store.transaction(statements)


async def load_schedules(store: Store) -> dict[str, ScheduleRow]:
    rows = await store.fetch_all(f"SELECT {_COLUMNS} FROM schedules")
    return {row["task"]: _record(row) for row in rows}


async def get_schedule(store: Store, task: str) -> ScheduleRow | None:
    row = await store.fetch_one(f"SELECT {_COLUMNS} FROM schedules WHERE task = ?", (task,))
    return None if row is None else _record(row)


async def current_revision(store: Store) -> int:
    return int(await store.fetch_value("SELECT revision FROM schedule_revision WHERE id = 1") or 0)


async def set_rules(store: Store, task: str, rules: Sequence[Rule] | None) -> bool:
    """Replace a task's rules (None: back to the default); times count from now."""
    encoded = None if rules is None else json.dumps([rule.to_json() for rule in rules])
    now = now_ms()
    results = await store.transaction([
        Statement("UPDATE schedules SET rules = ?, due_from = ?, updated_at = ? WHERE task = ?",
                  (encoded, now, now, task)),
        _BUMP,
    ])
    return results[0].rowcount > 0


async def set_paused(store: Store, task: str, paused: bool) -> bool:
    now = now_ms()
    results = await store.transaction([
        Statement("UPDATE schedules SET paused = ?, due_from = ?, updated_at = ? WHERE task = ?",
                  (int(paused), now, now, task)),
        _BUMP,
    ])
    return results[0].rowcount > 0


async def record_start(store: Store, task: str, started_ms: int, scheduled: bool = True) -> None:
    """A run started; a scheduled one also moves ``due_from`` (a manual run leaves the schedule)."""
    due_from = "?" if scheduled else "due_from"
    params = (started_ms, started_ms, started_ms, started_ms, task) if scheduled else (
        started_ms, started_ms, started_ms, task)
    await store.execute(
        "UPDATE schedules SET running_since = ?, last_started_at = ?,"
        f" due_from = {due_from}, updated_at = ? WHERE task = ?",
        params,
    )


async def record_end(store: Store, task: str, end: RunEnd, finished_ms: int) -> None:
    """A run ended: its result and details (``skipped``: it found nothing to do)."""
    libraries = json.dumps(list(end.error_libraries)) if end.error_libraries else None
    await store.execute(
        "UPDATE schedules SET running_since = NULL, last_finished_at = ?, last_result = ?, last_error_code = ?,"
        " last_error_libraries = ?, last_message = ?, updated_at = ? WHERE task = ?",
        (finished_ms, end.result, end.error_code, libraries, end.message, finished_ms, task),
    )


async def record_due_passed(store: Store, task: str, at_ms: int) -> None:
    """A due time passed without a start (the task was still running): count on from it."""
    await store.execute("UPDATE schedules SET due_from = ?, updated_at = ? WHERE task = ?", (at_ms, at_ms, task))


async def fail_interrupted_runs(store: Store, message: str = INTERRUPTED_MESSAGE) -> int:
    """Record every run left going by a killed process as ``failed``; returns how many."""
    now = now_ms()
    result = await store.execute(
        "UPDATE schedules SET running_since = NULL, last_finished_at = ?, last_result = 'failed',"
        " last_error_code = 'unknown', last_error_libraries = NULL, last_message = ?, updated_at = ?"
        " WHERE running_since IS NOT NULL",
        (now, message, now),
    )
    return result.rowcount


def _record(row: object) -> ScheduleRow:
    rules = None
    if row["rules"] is not None:  # type: ignore[index]
        rules = parse_rules(json.loads(row["rules"]), allows_after_scan=True)  # type: ignore[index]
    libraries = row["last_error_libraries"]  # type: ignore[index]
    return ScheduleRow(
        task=row["task"],  # type: ignore[index]
        owner=row["owner"],  # type: ignore[index]
        allows_after_scan=bool(row["allows_after_scan"]),  # type: ignore[index]
        rules=rules,
        paused=bool(row["paused"]),  # type: ignore[index]
        due_from_ms=row["due_from"],  # type: ignore[index]
        running_since_ms=row["running_since"],  # type: ignore[index]
        last_started_ms=row["last_started_at"],  # type: ignore[index]
        last_finished_ms=row["last_finished_at"],  # type: ignore[index]
        last_result=row["last_result"],  # type: ignore[index]
        last_error_code=row["last_error_code"],  # type: ignore[index]
        last_error_libraries=tuple(json.loads(libraries)) if libraries else (),
        last_message=row["last_message"],  # type: ignore[index]
    )
