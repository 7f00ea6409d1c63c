"""Reading the watch history: filters and keyset paging, newest first.

Records are ordered by (started_at, id) descending.  A merge never moves a
record's start later (it keeps the earliest), so a page continues strictly
after the last record of the previous one without repeating or skipping any,
even while sessions end (a new record starts later: it lands before the
first page).

``itemDeleted`` is computed here (the item's row is gone); ``ip`` is left
out of records that started before ``ip_since_ms`` (the retention), whether
or not the cleanup task has blanked it in the table yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._store import Row, Store
from .item_query import LIKE_ESCAPE, like_escape
from .newest_first import newest_first_page

_COLUMNS = (
    "h.id, h.item_id, h.user_id, h.user_name, h.device_id, h.device_name, h.player, h.kind,"
    " h.title, h.episode, h.started_at, h.ended_at, h.duration_sec, h.watched_sec, h.percent,"
    " h.finished, h.sessions, h.ip, h.end_reason,"
    " CASE WHEN EXISTS (SELECT 1 FROM items i WHERE i.id = h.item_id) THEN 0 ELSE 1 END AS item_deleted"
)


@dataclass(frozen=True, slots=True)
class PlayRecord:
    id: int
    item_id: str
    member_id: str
    member_name: str
    device_id: str
    device_name: str
    player: str
    kind: str
    title: str | None
    episode: str | None
    started_at_ms: int
    ended_at_ms: int
    duration_sec: float
    watched_sec: float
    percent: float
    finished: bool
    sessions: int
    ip: str | None  # None past the retention
    item_deleted: bool
    end_reason: str | None = None  # how the newest session merged in ended; None for older records


@dataclass(frozen=True, slots=True)
class HistoryFilter:
    member_id: str | None = None
    player: str | None = None  # exact, any case
    device_id: str | None = None
    item_id: str | None = None  # the item, or a series' or season's episodes
    title: str | None = None  # contained, any case
    from_ms: int | None = None  # inclusive, on the record's start
    to_ms: int | None = None  # exclusive


@dataclass(frozen=True, slots=True)
class HistoryPosition:
    """The last record of a page: the next page starts after it."""

    started_at_ms: int
    id: int


async def query_history(
    store: Store, where: HistoryFilter, after: HistoryPosition | None, limit: int, *, ip_since_ms: int
) -> tuple[list[PlayRecord], bool]:
    """Up to ``limit`` records matching ``where`` after ``after``; and whether more follow."""
    conditions, params = _conditions(where)
    position = (after.started_at_ms, after.id) if after is not None else None
    rows, more = await newest_first_page(
        store, "play_history h", _COLUMNS, conditions, params,
        order=("h.started_at", "h.id"), after=position, limit=limit,
    )  # fmt: skip
    return [_record(row, ip_since_ms) for row in rows], more


def _conditions(where: HistoryFilter) -> tuple[list[str], list[object]]:
    conditions: list[str] = []
    params: list[object] = []
    for column, value in (("h.user_id", where.member_id), ("h.device_id", where.device_id)):
        if value is not None:
            conditions.append(f"{column} = ?")
            params.append(value)
    if where.player is not None:
        conditions.append("h.player_key = ?")
        params.append(where.player.casefold())
    if where.item_id is not None:
        conditions.append("(h.item_id = ? OR h.series_id = ? OR h.season_id = ?)")
        params += [where.item_id] * 3
    if where.title is not None:
        conditions.append(f"h.title_key LIKE ? ESCAPE '{LIKE_ESCAPE}'")
        params.append(f"%{like_escape(where.title.casefold())}%")
    if where.from_ms is not None:
        conditions.append("h.started_at >= ?")
        params.append(where.from_ms)
    if where.to_ms is not None:
        conditions.append("h.started_at < ?")
        params.append(where.to_ms)
    return conditions, params


def _record(row: Row, ip_since_ms: int) -> PlayRecord:
    started = int(row["started_at"])
    return PlayRecord(
        id=int(row["id"]),
        item_id=row["item_id"],
        member_id=row["user_id"],
        member_name=row["user_name"],
        device_id=row["device_id"],
        device_name=row["device_name"],
        player=row["player"],
        kind=row["kind"],
        title=row["title"],
        episode=row["episode"],
        started_at_ms=started,
        ended_at_ms=int(row["ended_at"]),
        duration_sec=float(row["duration_sec"]),
        watched_sec=float(row["watched_sec"]),
        percent=float(row["percent"]),
        finished=bool(row["finished"]),
        sessions=int(row["sessions"]),
        ip=row["ip"] if started >= ip_since_ms else None,
        item_deleted=bool(row["item_deleted"]),
        end_reason=row["end_reason"],
    )
