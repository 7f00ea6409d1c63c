"""The activity log: who did what to which target, newest first."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ._store import Row, Store, now_ms

LIST_LIMIT_MAX = 1000

_COLUMNS = (
    "id, at, action, category, actor_kind, actor_id, actor_name,"
    " target_kind, target_id, target_name, details, remote_addr"
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
        "INSERT INTO activity (at, action, category, actor_kind, actor_id, actor_name,"
        " target_kind, target_id, target_name, details, remote_addr)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
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
        ),
    )
    return replace(record, id=int(result.rows[0]["id"]), at_ms=at_ms)


async def list_activity(store: Store, limit: int) -> list[ActivityRecord]:
    """The newest ``limit`` entries (at most :data:`LIST_LIMIT_MAX`), newest first."""
    limit = max(0, min(limit, LIST_LIMIT_MAX))
    rows = await store.fetch_all(f"SELECT {_COLUMNS} FROM activity ORDER BY at DESC, id DESC LIMIT ?", (limit,))
    return [_record(row) for row in rows]


def _record(row: Row) -> ActivityRecord:
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
        details=json.loads(row["details"]),
        remote_addr=row["remote_addr"],
    )
