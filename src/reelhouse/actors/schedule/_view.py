"""The Schedule JSON of one task (the reference's Schedule, with ``task`` and ``rules``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from reelhouse.jsonfields import put_present, put_time
from reelhouse.media.schedule import Rule
from reelhouse.storage.schedules import ScheduleRow
from reelhouse.timefmt import rfc3339

from ._tasks import TaskDefinition


def render_schedule(definition: TaskDefinition, row: ScheduleRow, rules: tuple[Rule, ...], *, running: bool,
                    next_at: datetime | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "task": definition.name,
        "rules": [rule.to_json() for rule in rules],
        "paused": row.paused,
        "running": running,
        "isDefault": row.rules is None,
        "allowsAfterScan": definition.allows_after_scan,
    }
    if next_at is not None:
        data["nextRunAt"] = rfc3339(next_at)
    put_time(data, "lastStartedAt", row.last_started_ms)
    put_time(data, "lastFinishedAt", row.last_finished_ms)
    failed = row.last_result == "failed"
    put_present(data, (
        ("lastResult", row.last_result),
        ("lastErrorCode", row.last_error_code if failed else None),
        ("lastErrorLibraries", sorted(row.last_error_libraries) if failed and row.last_error_libraries else None),
    ))
    if definition.owner is not None:
        data["owner"] = definition.owner
        data["names"] = dict(definition.names or {"en": definition.title or definition.name})
        if row.last_message:
            data["lastMessage"] = row.last_message
    if definition.descriptions:
        data["descriptions"] = dict(definition.descriptions)
    return data
