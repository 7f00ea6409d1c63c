"""Each member's watch state of an item: played, play count, last played, resume position, favourite.

The public face the HTTP edge and the WatchStateActor use:

- reads (queries, straight from the store): :func:`watch_states` (the
  state of some items; items without a row get the default state),
  :func:`resume_list` and :func:`next_up_list` (pages of
  :class:`WatchState`, newest first, restricted to libraries), and
  :func:`with_items` (their items' summaries);
- writes (only the WatchStateActor calls them, ``actors/watch_state.py``):
  :func:`set_played`, :func:`set_favorite`, :func:`record_progress`.

Rules:

- Played comes from a mark (:func:`set_played`) or from play reports: a
  report at :data:`~reelhouse.media.play_record.FINISHED_PERCENT` or more of
  the duration marks the item played and clears its position (the
  reference's ``finished``); the playback session counts one play per
  session.  Any report sets ``last_played_ms``.
- Marking played: play count at least 1, position cleared, last played now.
  Marking unplayed: play count 0, position cleared, no last played date.
  For a series or season the mark applies to each of its episodes.
- A series or season is played when it has episodes and all are played
  (:data:`EPISODES`: present, not extras, not alternate versions); its
  play count is the lowest of its episodes', its last played date the
  latest, ``unplayed_count`` the episodes not played; its favourite mark
  is its own row's.
- Resume: items with a position, newest report first.  Next up: for each
  series with a played episode, the first episode after the furthest
  played one (season, then episode number; specials, season 0, and
  episodes without a number left out) that is not played; series ordered
  by their latest play.

A write for an item or member that is gone raises :class:`NotFound`
(the foreign key refused it).  Store errors propagate.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from reelhouse.errors import NotFound

from ._parental_sql import ParentalFilter, parental_sql
from ._store import IntegrityError, Row, Statement, Store
from .item_query import NAME_EXTRAS, PAGE_EXTRAS, SUMMARY_COLUMNS, ItemSummary, names_of_row, summary_of

EPISODES = "e.type = 'Episode' AND e.missing = 0 AND e.owner_id IS NULL AND e.version_of IS NULL"
"""The episodes of a series or season that count for its played state (over ``items e``)."""
# The same on SQLite, spelled so that no index matches it: the rows are found
# by series_id or season_id (or by id), and SQLite, without statistics,
# would otherwise walk every episode of the type index for each series.
# PostgreSQL gets the plain form: its statistics estimate it well, and a
# misestimate there turns a page into seconds of plan and JIT work.
_SQLITE_EPISODES = (
    "e.type || '' = 'Episode' AND e.missing + 0 = 0 AND COALESCE(e.owner_id, '') = ''"
    " AND COALESCE(e.version_of, '') = ''"
)


def episodes(backend: str) -> str:
    """:data:`EPISODES` as ``backend`` should be given it."""
    return _SQLITE_EPISODES if backend == "sqlite" else EPISODES
CONTAINER_TYPES = ("Series", "Season")
SEASON_FACTOR = 1_000_000
_COLUMNS = "w.item_id, w.played, w.play_count, w.last_played_at, w.position_ms, w.favorite"
_NEXT_UP_WIDTH = 8  # n.series_id, n.last_at, then the state's columns


@dataclass(frozen=True, slots=True)
class WatchState:
    """One member's state of one item; the default is "never touched"."""

    item_id: str
    played: bool = False
    play_count: int = 0
    last_played_ms: int | None = None
    position_ms: int = 0
    favorite: bool = False
    unplayed_count: int | None = None
    """Series and seasons: their episodes not played (None for other items)."""


@dataclass(frozen=True, slots=True)
class WatchPage:
    """A page of a resume or next-up list; ``next_key`` is where the next page starts (None: last page)."""

    states: list[WatchState]
    next_key: tuple[int, str] | None
    items: dict[str, ItemSummary] = field(default_factory=dict)
    """With :class:`ListedItems`: the summaries of the states' items the member may see, by id."""
    names: dict[str, str] = field(default_factory=dict)
    """With :class:`ListedItems`: those items' series and season names by id."""
    total: int | None = None
    """Asked with ``counted``: how many items the whole list holds."""


@dataclass(frozen=True, slots=True)
class ListedItems:
    """Ask a resume or next-up page for its items' summaries too, read in the same statement (a
    player shows them): those the member may see, as ``list_items`` finds them by id within the
    libraries of the list, under ``parental`` (a member's rule; None: unrestricted)."""

    parental: ParentalFilter | None = None


def _with_items(sql: str, params: list[Any], order: str, listed: ListedItems | None) -> tuple[str, list[Any]]:
    """A list's statement (its rows ``p``, an ``item_id`` each) with, when ``listed``, after its own
    columns: whether the parental rule admits the item, then its summary (:data:`SUMMARY_COLUMNS`,
    :data:`PAGE_EXTRAS`, :data:`NAME_EXTRAS`).  Joined to the page's rows only, after its LIMIT:
    the summary's subqueries for every series in progress made a next-up page of 300 three times slower."""
    if listed is None:
        return sql, params
    rule_sql, rule_params = parental_sql(listed.parental) if listed.parental is not None else ("1 = 1", [])
    items = f"CASE WHEN {rule_sql} THEN 1 ELSE 0 END AS admitted, {SUMMARY_COLUMNS}{PAGE_EXTRAS}{NAME_EXTRAS}"
    return f"SELECT p.*, {items} FROM ({sql}) p LEFT JOIN items i ON i.id = p.item_id ORDER BY {order}", [
        *rule_params, *params,
    ]


# -- reads -----------------------------------------------------------------------


async def watch_states(
    store: Store, member_id: str, item_ids: Sequence[str], *, containers: Sequence[str] | None = None
) -> dict[str, WatchState]:
    """The member's state of each of ``item_ids`` (every id answered; unknown ids get the default).

    ``containers``: those of ``item_ids`` that may be series or seasons (None: any of them), whose
    state is derived from their episodes; a caller that knows the types (a page of movies has none)
    spares the store that query.
    """
    ids = list(dict.fromkeys(item_ids))
    if not ids:
        return {}
    marks = ", ".join("?" for _ in ids)
    own_sql = f"SELECT {_COLUMNS} FROM watch_state w WHERE w.user_id = ? AND w.item_id IN ({marks})"
    derived_ids = ids if containers is None else [i for i in dict.fromkeys(containers) if i in set(ids)]
    if derived_ids:
        own, derived = await store.fetch_each([(own_sql, [member_id, *ids]),
                                               _derived_query(member_id, derived_ids, store.backend)])  # fmt: skip
    else:
        own, derived = await store.fetch_all(own_sql, [member_id, *ids]), []
    states = {item_id: WatchState(item_id) for item_id in ids}
    for row in own:
        states[row["item_id"]] = state_of(row)
    for row in derived:
        states[row["id"]] = _container_state(states[row["id"]], row)
    return states


def _derived_query(member_id: str, ids: list[str], backend: str) -> tuple[str, list[Any]]:
    """Per series or season among ``ids``: its episodes, those played, lowest count, latest play."""
    marks = ", ".join("?" for _ in ids)
    parts = []
    params: list[Any] = []
    for kind, column in (("Series", "series_id"), ("Season", "season_id")):
        parts.append(
            "SELECT c.id AS id, count(e.id) AS total,"
            " CAST(COALESCE(sum(CASE WHEN w.played = 1 THEN 1 ELSE 0 END), 0) AS BIGINT) AS played,"
            " min(COALESCE(w.play_count, 0)) AS play_count, max(w.last_played_at) AS last_played_at"
            f" FROM items c JOIN items e ON e.{column} = c.id AND {episodes(backend)}"
            " LEFT JOIN watch_state w ON w.user_id = ? AND w.item_id = e.id"
            f" WHERE c.type = '{kind}' AND c.id IN ({marks}) GROUP BY c.id"
        )
        params.extend([member_id, *ids])
    return " UNION ALL ".join(parts), params


def _container_state(own: WatchState, row: Row) -> WatchState:
    total, played = int(row["total"]), int(row["played"])
    return WatchState(
        item_id=own.item_id,
        played=total > 0 and played == total,
        play_count=int(row["play_count"] or 0) if total else 0,
        last_played_ms=row["last_played_at"],
        favorite=own.favorite,
        unplayed_count=total - played,
    )


def state_of(row: Row) -> WatchState:
    """A WatchState from a row with the columns ``item_id, played, play_count, last_played_at,
    position_ms, favorite``."""
    return WatchState(
        item_id=row["item_id"],
        played=bool(row["played"]),
        play_count=int(row["play_count"]),
        last_played_ms=row["last_played_at"],
        position_ms=int(row["position_ms"]),
        favorite=bool(row["favorite"]),
    )


def _library_filter(column: str, library_ids: Collection[str] | None) -> tuple[str, list[Any]]:
    if library_ids is None:
        return "", []
    ids = sorted(library_ids)
    if not ids:
        return " AND 1 = 0", []
    return f" AND {column} IN ({', '.join('?' for _ in ids)})", ids


def _page(rows: list[Row], limit: int, key_of: Any, make: Any, width: int | None = None) -> WatchPage:
    """The page of ``rows``; ``width``: the rows' own columns, followed by :func:`_items_columns`."""
    states = [make(row) for row in rows[:limit]]
    next_key = key_of(rows[limit - 1]) if len(rows) > limit else None
    if width is None:
        return WatchPage(states, next_key)
    items: dict[str, ItemSummary] = {}
    names: dict[str, str] = {}
    for row in rows[:limit]:
        values = tuple(row)
        if values[width]:  # the parental rule admits it
            summary = summary_of(values[width + 1 :])
            items[summary.id] = summary
            names.update(names_of_row(values[width + 1 :]))
    return WatchPage(states, next_key, items, names)


def _resume_where(
    member_id: str, library_ids: Collection[str] | None, types: Sequence[str], parent_id: str | None,
    parental: ParentalFilter | None,
) -> tuple[str, list[Any]]:  # fmt: skip
    """The condition (over ``watch_state w JOIN items i``) of the member's items in progress."""
    where, params = _library_filter("i.library_id", library_ids)
    if types:
        where += f" AND i.type IN ({', '.join('?' for _ in types)})"
        params.extend(types)
    if parent_id is not None:  # a series, a season or a folder holding it (a library: library_ids)
        where += " AND (i.parent_id = ? OR i.series_id = ? OR i.season_id = ?)"
        params.extend([parent_id] * 3)
    if parental is not None:
        rule_sql, rule_params = parental_sql(parental)
        where += f" AND {rule_sql}"
        params.extend(rule_params)
    sql = "w.user_id = ? AND w.position_ms > 0 AND w.last_played_at IS NOT NULL AND i.missing = 0"
    return sql + where, [member_id, *params]


async def resume_list(
    store: Store, member_id: str, library_ids: Collection[str] | None, *, limit: int,
    after: tuple[int, str] | None = None, types: Sequence[str] = (), listed: ListedItems | None = None,
    parent_id: str | None = None, offset: int = 0, counted: bool = False,
) -> WatchPage:  # fmt: skip
    """The member's items in progress (a position, not missing), the latest report first.

    ``library_ids``: the libraries the member may see (None: all);
    ``types``: only these item types; ``parent_id``: only the items straight
    under it or in its series or season; ``after``: a page's ``next_key``;
    ``offset``: rows skipped first (a client paging by index);
    ``listed``: the items' summaries too (:class:`ListedItems`), its parental
    rule applied before the page is cut, so that offsets and the total
    agree; ``counted``: with the whole list's ``total``, read in the same
    trip and snapshot.
    """
    parental = listed.parental if listed is not None else None
    where, params = _resume_where(member_id, library_ids, types, parent_id, parental)
    count_sql = f"SELECT count(*) AS total FROM watch_state w JOIN items i ON i.id = w.item_id WHERE {where}"
    count_params = list(params)
    if after is not None:
        where += " AND (w.last_played_at < ? OR (w.last_played_at = ? AND w.item_id < ?))"
        params.extend([after[0], after[0], after[1]])
    sql = (
        f"SELECT {_COLUMNS} FROM watch_state w JOIN items i ON i.id = w.item_id"
        f" WHERE {where} ORDER BY w.last_played_at DESC, w.item_id DESC LIMIT ? OFFSET ?"
    )
    listed = None if listed is None else ListedItems()  # the rule is in the WHERE: every row is admitted
    sql, params = _with_items(sql, [*params, limit + 1, offset], "p.last_played_at DESC, p.item_id DESC", listed)
    if counted:
        rows, counts = await store.fetch_each([(sql, params), (count_sql, count_params)])
    else:
        rows, counts = await store.fetch_all(sql, params), []
    width = None if listed is None else _COLUMNS.count(",") + 1
    page = _page(rows, limit, lambda row: (int(row["last_played_at"]), row["item_id"]), state_of, width)
    return replace(page, total=int(counts[0]["total"])) if counts else page


def _episode_key(alias: str) -> str:
    return (
        f"CAST(COALESCE({alias}.parent_index_number, 0) AS BIGINT) * {SEASON_FACTOR}"
        f" + COALESCE({alias}.index_number, 0)"
    )


async def next_up_list(
    store: Store, member_id: str, library_ids: Collection[str] | None, *, limit: int,
    after: tuple[int, str] | None = None, series_id: str | None = None, listed: ListedItems | None = None,
) -> WatchPage:  # fmt: skip
    """The next episode to watch of each series the member has played an episode of.

    Series ordered by their latest play, newest first; each state is the
    next episode's (never played, maybe with a position).  ``series_id``:
    that series only.  ``after``: a page's ``next_key`` (the series' latest
    play and the series id).  ``listed``: the episodes' summaries too (:class:`ListedItems`).
    """
    scope, scope_params = _library_filter("e.library_id", library_ids)
    if series_id is not None:
        scope += " AND e.series_id = ?"
        scope_params.append(series_id)
    regular = "COALESCE(e.parent_index_number, 0) <> 0"
    counted = episodes(store.backend)
    watched = (
        "SELECT e.series_id AS series_id, max(w.last_played_at) AS last_at,"
        f" max(CASE WHEN {regular} THEN {_episode_key('e')} END) AS furthest"
        " FROM watch_state w JOIN items e ON e.id = w.item_id"
        f" WHERE w.user_id = ? AND w.played = 1 AND {counted} AND e.series_id IS NOT NULL{scope}"
        " GROUP BY e.series_id"
    )
    # In the order of items_by_series (season, episode): the walk stops at the
    # first unplayed episode, without looking up the state of every episode.
    candidate = (
        f"SELECT e.id FROM items e WHERE e.series_id = s.series_id AND {counted} AND {regular}"
        f" AND e.index_number IS NOT NULL AND {_episode_key('e')} > COALESCE(s.furthest, -1)"
        " AND NOT EXISTS (SELECT 1 FROM watch_state x WHERE x.user_id = ? AND x.item_id = e.id AND x.played = 1)"
        " ORDER BY e.parent_index_number, e.index_number, e.id LIMIT 1"
    )
    keyset, keyset_params = "", []
    if after is not None:
        keyset = " AND (n.last_at < ? OR (n.last_at = ? AND n.series_id < ?))"
        keyset_params = [after[0], after[0], after[1]]
    sql = (
        f"WITH s AS ({watched}), n AS MATERIALIZED (SELECT s.series_id, COALESCE(s.last_at, 0) AS last_at,"
        f" ({candidate}) AS next_id"
        " FROM s)"
        " SELECT n.series_id, n.last_at, n.next_id AS item_id, w.played, w.play_count, w.last_played_at,"
        " w.position_ms, w.favorite FROM n LEFT JOIN watch_state w ON w.user_id = ? AND w.item_id = n.next_id"
        f" WHERE n.next_id IS NOT NULL{keyset} ORDER BY n.last_at DESC, n.series_id DESC LIMIT ?"
    )
    params = [member_id, *scope_params, member_id, member_id, *keyset_params, limit + 1]
    sql, params = _with_items(sql, params, "p.last_at DESC, p.series_id DESC", listed)
    rows = await store.fetch_all(sql, params)
    # By position: the items' columns repeat the name series_id.
    width = None if listed is None else _NEXT_UP_WIDTH
    return _page(rows, limit, lambda row: (int(row[1]), row[0]), _next_up_state, width)


async def with_items(store: Store, states: Sequence[WatchState]) -> list[tuple[ItemSummary, WatchState]]:
    """Each state with its item's summary (as GET /items shows it), in order; gone items left out."""
    if not states:
        return []
    marks = ", ".join("?" for _ in states)
    rows = await store.fetch_all(
        f"SELECT {SUMMARY_COLUMNS}{PAGE_EXTRAS} FROM items i WHERE i.id IN ({marks})", [x.item_id for x in states]
    )
    summaries = {summary.id: summary for summary in map(summary_of, rows)}
    return [(summaries[x.item_id], x) for x in states if x.item_id in summaries]


def _next_up_state(row: Row) -> WatchState:
    if row["played"] is None:
        return WatchState(row["item_id"])
    return state_of(row)


# -- writes (the WatchStateActor's) -------------------------------------------------


async def item_type(store: Store, item_id: str) -> str | None:
    return await store.fetch_value("SELECT type FROM items WHERE id = ?", (item_id,))


_MARK_PLAYED = (
    "INSERT INTO watch_state (user_id, item_id, played, play_count, last_played_at, position_ms)"
    " VALUES (?, ?, 1, 1, ?, 0) ON CONFLICT (user_id, item_id) DO UPDATE SET played = 1,"
    " play_count = CASE WHEN watch_state.play_count > 0 THEN watch_state.play_count ELSE 1 END,"
    " last_played_at = excluded.last_played_at, position_ms = 0"
)
_MARK_UNPLAYED = (
    "UPDATE watch_state SET played = 0, play_count = 0, last_played_at = NULL, position_ms = 0"
    " WHERE user_id = ? AND item_id = ?"
)


async def set_played(store: Store, member_id: str, item_id: str, played: bool, at_ms: int) -> None:
    """Mark the item played (or unplayed); a series or season: each of its episodes.

    NotFound when there is no such item (or member).
    """
    kind = await item_type(store, item_id)
    if kind is None:
        raise _gone(item_id)
    targets = [item_id]
    if kind in CONTAINER_TYPES:
        column = "series_id" if kind == "Series" else "season_id"
        rows = await store.fetch_all(
            f"SELECT e.id FROM items e WHERE e.{column} = ? AND {episodes(store.backend)}", (item_id,)
        )
        targets = [row["id"] for row in rows]
    if not targets:
        return
    if played:
        statement = Statement(_MARK_PLAYED, many=[(member_id, target, at_ms) for target in targets])
    else:
        statement = Statement(_MARK_UNPLAYED, many=[(member_id, target) for target in targets])
    await _write(statement, store, item_id)


async def set_favorite(store: Store, member_id: str, item_id: str, favorite: bool) -> None:
    """Mark the item a favourite of the member (or not). NotFound when there is no such item."""
    sql = (
        "INSERT INTO watch_state (user_id, item_id, favorite) VALUES (?, ?, ?)"
        " ON CONFLICT (user_id, item_id) DO UPDATE SET favorite = excluded.favorite"
    )
    await _write(Statement(sql, (member_id, item_id, int(favorite))), store, item_id)


async def record_progress(
    store: Store, member_id: str, item_id: str, *, position_ms: int, finished: bool, count_play: bool, at_ms: int
) -> None:
    """A play report: the position (cleared when ``finished``), played when ``finished``, and one
    more play when ``count_play`` (the session's first finished report). NotFound for a gone item."""
    sql = (
        "INSERT INTO watch_state (user_id, item_id, played, play_count, last_played_at, position_ms)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, item_id) DO UPDATE SET"
        " played = CASE WHEN excluded.played = 1 THEN 1 ELSE watch_state.played END,"
        " play_count = watch_state.play_count + excluded.play_count,"
        " last_played_at = excluded.last_played_at, position_ms = excluded.position_ms"
    )
    position = 0 if finished else max(position_ms, 0)
    params = (member_id, item_id, int(finished), int(count_play), at_ms, position)
    await _write(Statement(sql, params), store, item_id)


async def _write(statement: Statement, store: Store, item_id: str) -> None:
    try:
        await store.transaction([statement])
    except IntegrityError:
        raise _gone(item_id) from None


def _gone(item_id: str) -> NotFound:
    return NotFound(f"No item {item_id}.", params={"itemId": item_id})
