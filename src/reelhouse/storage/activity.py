"""The activity log: who did what to which target, newest first.

An entry that can come in a flood (a refused sign-in) is recorded once per
:data:`REPEAT_WINDOW_MS` with a count (``details.count``), and the cleanup
task deletes entries past the log's retention in bounded batches.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ._store import Row, Store, now_ms

LIST_LIMIT_MAX = 1000
# One row per repeated entry and window: at most 1,440 a day for one flood.
REPEAT_WINDOW_MS = 60_000
# Rows deleted per statement when the retention applies: no transaction
# holds the writer long, however much has piled up.
PURGE_BATCH = 5000

_COLUMNS = (
    "id, at, action, category, actor_kind, actor_id, actor_name,"
    " target_kind, target_id, target_name, details, remote_addr, repeats"
)
_INSERT_COLUMNS = (
    "at, action, category, actor_kind, actor_id, actor_name, target_kind, target_id, target_name, details, remote_addr"
)


@dataclass(frozen=True, slots=True)
class ActivityRecord:
    """One entry; ``id`` is None until recorded.  ``details`` never holds secrets."""

    action: str  # target.verb, lower case
    category: str  # content, deletion, externalTool, settings, security
    actor_kind: str  # system, member, apiKey, plugin
    actor_id: str | None = None
    actor_name: str | None = None
    target_kind: str = ""
    target_id: str | None = None
    target_name: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    remote_addr: str | None = None
    at_ms: int | None = None  # now when None
    id: int | None = None


async def record_activity(store: Store, record: ActivityRecord) -> ActivityRecord:
    """Store ``record``; returns it with its ``id`` and ``at_ms`` set. Raises StoreError."""
    at_ms = now_ms() if record.at_ms is None else record.at_ms
    result = await store.execute(
        f"INSERT INTO activity ({_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        _values(record, at_ms),
    )
    return replace(record, id=int(result.rows[0]["id"]), at_ms=at_ms)


async def record_repeated_activity(store: Store, record: ActivityRecord, window_ms: int = REPEAT_WINDOW_MS) -> None:
    """Store ``record``, or count it on the same entry recorded earlier in its window.

    Entries are the same when everything but their time is; windows are
    fixed ``window_ms`` slices of time.  The row keeps the window's first
    time; ``details.count`` says how many there were.  One statement: atomic
    on both backends.  Raises StoreError.
    """
    at_ms = now_ms() if record.at_ms is None else record.at_ms
    await store.execute(
        f"INSERT INTO activity ({_INSERT_COLUMNS}, repeats, repeat_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)"
        " ON CONFLICT (repeat_key) DO UPDATE SET repeats = activity.repeats + 1",
        (*_values(record, at_ms), _repeat_key(record, at_ms // window_ms)),
    )


async def purge_activity(store: Store, *, before_ms: int, batch: int = PURGE_BATCH) -> int:
    """Delete entries older than ``before_ms``, ``batch`` rows per transaction; how many went."""
    removed = 0
    while True:
        result = await store.execute(
            "DELETE FROM activity WHERE id IN (SELECT id FROM activity WHERE at < ? ORDER BY at, id LIMIT ?)",
            (before_ms, batch),
        )
        removed += result.rowcount
        if result.rowcount < batch:
            return removed


def _values(record: ActivityRecord, at_ms: int) -> tuple[object, ...]:
    return (
        at_ms,
        record.action,
        record.category,
        record.actor_kind,
        record.actor_id,
        record.actor_name,
        record.target_kind,
        record.target_id,
        record.target_name,
        json.dumps(dict(record.details)),
        record.remote_addr,
    )


def _repeat_key(record: ActivityRecord, window: int) -> str:
    same = [record.action, record.category, record.actor_kind, record.actor_id, record.target_kind,
            record.target_id, record.remote_addr, dict(record.details), window]
    return hashlib.sha256(json.dumps(same, sort_keys=True).encode()).hexdigest()


async def list_activity(store: Store, limit: int) -> list[ActivityRecord]:
    """The newest ``limit`` entries (at most :data:`LIST_LIMIT_MAX`), newest first."""
    limit = max(0, min(limit, LIST_LIMIT_MAX))
    rows = await store.fetch_all(f"SELECT {_COLUMNS} FROM activity ORDER BY at DESC, id DESC LIMIT ?", (limit,))
    return [_record(row) for row in rows]


def _record(row: Row) -> ActivityRecord:
    details = json.loads(row["details"])
    if row["repeats"] is not None:
        details["count"] = int(row["repeats"])
    return ActivityRecord(
        id=int(row["id"]),
        at_ms=int(row["at"]),
        action=row["action"],
        category=row["category"],
        actor_kind=row["actor_kind"],
        actor_id=row["actor_id"],
        actor_name=row["actor_name"],
        target_kind=row["target_kind"],
        target_id=row["target_id"],
        target_name=row["target_name"],
        details=details,
        remote_addr=row["remote_addr"],
    )
