"""The signed-in member's watch state as SQL over ``items i``: filters and sort values.

Private to :mod:`reelhouse.storage.item_query` (``_filters`` and
``_sorts`` call it when the query carries a ``member_id``; a key
has none and keeps its fixed answers). The state is the member's rows of
``watch_state`` (:mod:`reelhouse.storage.watch_state`); a series or season
is played when it has episodes and all are (:func:`~.watch_state.episodes`),
its last played date is the latest of its episodes', its play count the
lowest. Every parameter is the member id: each expression comes with one
per placeholder.
"""

from __future__ import annotations

from typing import Any

_OWN = "SELECT 1 FROM watch_state w WHERE w.user_id = ? AND w.item_id = i.id"
_BY_TYPE = (("Series", "series_id"), ("Season", "season_id"))


def episodes(backend: str) -> str:
    # Imported here: storage/watch_state.py renders through this package, which
    # would import it back half-initialised at module level.
    from ..watch_state import episodes as counted_episodes

    return counted_episodes(backend)


def _bound(sql: str, member_id: str) -> tuple[str, list[Any]]:
    return sql, [member_id] * sql.count("?")


def _all_episodes_played(column: str, backend: str) -> str:
    counted = episodes(backend)
    return (
        f"(EXISTS (SELECT 1 FROM items e WHERE e.{column} = i.id AND {counted})"
        f" AND NOT EXISTS (SELECT 1 FROM items e WHERE e.{column} = i.id AND {counted}"
        " AND NOT EXISTS (SELECT 1 FROM watch_state w WHERE w.user_id = ? AND w.item_id = e.id AND w.played = 1)))"
    )


def _per_type(own: str, container: Any) -> str:
    """``CASE`` on the item's type: a series' and a season's value from their episodes, else its own."""
    whens = " ".join(f"WHEN '{kind}' THEN {container(column)}" for kind, column in _BY_TYPE)
    return f"CASE i.type {whens} ELSE {own} END"


def played(member_id: str, backend: str) -> tuple[str, list[Any]]:
    """True when the member has played the item (a series or season: all its episodes)."""
    whens = " ".join(
        f"WHEN i.type = '{kind}' THEN {_all_episodes_played(column, backend)}" for kind, column in _BY_TYPE
    )
    return _bound(f"(CASE {whens} ELSE EXISTS ({_OWN} AND w.played = 1) END)", member_id)


def favorite(member_id: str, backend: str) -> tuple[str, list[Any]]:
    return _bound(f"EXISTS ({_OWN} AND w.favorite = 1)", member_id)


def never_played(member_id: str, backend: str) -> tuple[str, list[Any]]:
    """True when the member never played the item nor any of a series' or season's episodes."""
    ever = "(w.played = 1 OR w.play_count > 0)"
    counted = episodes(backend)
    whens = " ".join(
        f"WHEN i.type = '{kind}' THEN NOT EXISTS (SELECT 1 FROM items e JOIN watch_state w ON w.item_id = e.id"
        f" AND w.user_id = ? WHERE e.{column} = i.id AND {counted} AND {ever})"
        for kind, column in _BY_TYPE
    )
    return _bound(f"(CASE {whens} ELSE NOT EXISTS ({_OWN} AND {ever}) END)", member_id)


def _episodes_aggregate(aggregate: str, column_of_w: str, default: str, backend: str) -> Any:
    """``aggregate`` (min or max) of the member's ``w.<column_of_w>`` over a series' or season's
    episodes, ``default`` for an episode without a row.

    One lookup per episode (a scalar subquery), not a join: a join lets
    PostgreSQL hash the member's whole watch state once per series.
    """

    def of(column: str) -> str:
        value = f"(SELECT w.{column_of_w} FROM watch_state w WHERE w.user_id = ? AND w.item_id = e.id)"
        return (
            f"(SELECT {aggregate}(COALESCE({value}, {default})) FROM items e"
            f" WHERE e.{column} = i.id AND {episodes(backend)})"
        )

    return of


def sort_value(sort: str, member_id: str, missing_date: int, backend: str) -> tuple[str, list[Any]]:
    """The sort value of ``played``, ``favorite``, ``datePlayed``, ``playCount``, ``seriesDatePlayed``.

    played and favorite: 0 when true, so ascending puts them first (the
    reference: "true first"); dates missing take ``missing_date``; a play
    count missing is 0.
    """
    if sort == "played":
        condition, params = played(member_id, backend)
        return f"CASE WHEN {condition} THEN 0 ELSE 1 END", params
    if sort == "favorite":
        condition, params = favorite(member_id, backend)
        return f"CASE WHEN {condition} THEN 0 ELSE 1 END", params
    if sort == "datePlayed":
        own = "(SELECT w.last_played_at FROM watch_state w WHERE w.user_id = ? AND w.item_id = i.id)"
        value = _per_type(own, _episodes_aggregate("max", "last_played_at", "NULL", backend))
        return _bound(f"COALESCE({value}, {missing_date})", member_id)
    if sort == "playCount":
        own = "(SELECT w.play_count FROM watch_state w WHERE w.user_id = ? AND w.item_id = i.id)"
        value = _per_type(own, _episodes_aggregate("min", "play_count", "0", backend))
        return _bound(f"COALESCE({value}, 0)", member_id)
    if sort == "seriesDatePlayed":
        latest = _episodes_aggregate("max", "last_played_at", "NULL", backend)("series_id")
        return _bound(f"COALESCE(CASE WHEN i.type = 'Series' THEN {latest} END, {missing_date})", member_id)
    raise ValueError(f"not a watch-state sort: {sort}")
