"""Reading the activity log: filters and keyset paging, newest first.

Entries are ordered by (at, id) descending; a page continues strictly after
the last entry of the previous one, so paging never repeats or skips an
entry even while new ones are recorded (they are newer: they land before
the first page).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._store import Store
from .activity import _COLUMNS, ActivityRecord, _record
from .newest_first import newest_first_page


@dataclass(frozen=True, slots=True)
class ActivityFilter:
    actor_kind: str | None = None
    actor_id: str | None = None
    categories: tuple[str, ...] = ()
    target_kind: str | None = None
    target_id: str | None = None
    from_ms: int | None = None  # inclusive
    to_ms: int | None = None  # exclusive


@dataclass(frozen=True, slots=True)
class ActivityPosition:
    """The last entry of a page: the next page starts after it."""

    at_ms: int
    id: int


async def query_activity(
    store: Store, where: ActivityFilter, after: ActivityPosition | None, limit: int
) -> tuple[list[ActivityRecord], bool]:
    """Up to ``limit`` entries matching ``where`` after ``after``; and whether more follow."""
    conditions, params = _conditions(where)
    position = (after.at_ms, after.id) if after is not None else None
    rows, more = await newest_first_page(
        store, "activity", _COLUMNS, conditions, params, order=("at", "id"), after=position, limit=limit
    )
    return [_record(row) for row in rows], more


def _conditions(where: ActivityFilter) -> tuple[list[str], list[object]]:
    conditions: list[str] = []
    params: list[object] = []
    for column, value in (
        ("actor_kind", where.actor_kind),
        ("actor_id", where.actor_id),
        ("target_kind", where.target_kind),
        ("target_id", where.target_id),
    ):
        if value is not None:
            conditions.append(f"{column} = ?")
            params.append(value)
    if where.categories:
        conditions.append(f"category IN ({', '.join('?' for _ in where.categories)})")
        params += list(where.categories)
    if where.from_ms is not None:
        conditions.append("at >= ?")
        params.append(where.from_ms)
    if where.to_ms is not None:
        conditions.append("at < ?")
        params.append(where.to_ms)
    return conditions, params
