"""One page of a log read newest first, after a (time, id) position: the activity log, the play history."""

from __future__ import annotations

from ._store import Row, Store


async def newest_first_page(
    store: Store,
    source: str,
    columns: str,
    conditions: list[str],
    params: list[object],
    *,
    order: tuple[str, str],
    after: tuple[int, int] | None,
    limit: int,
) -> tuple[list[Row], bool]:
    """Up to ``limit`` rows of ``source`` matching ``conditions``, newest first by the ``order``
    columns (time, then id), strictly after the position ``after``; and whether more follow."""
    time_column, id_column = order
    if after is not None:
        conditions = [*conditions, f"({time_column} < ? OR ({time_column} = ? AND {id_column} < ?))"]
        params = [*params, after[0], after[0], after[1]]
    sql = f"SELECT {columns} FROM {source}"
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    sql += f" ORDER BY {time_column} DESC, {id_column} DESC LIMIT ?"
    rows = await store.fetch_all(sql, (*params, limit + 1))
    return rows[:limit], len(rows) > limit
