"""Item listings (GET /items): filters, sorts and keyset pages over the catalogue.

``parse_item_query(params)`` validates the query parameters into an
:class:`ItemQuery`; ``list_items(store, query, codec)`` reads one page. The
rules the reference leaves open are stated in the private modules'
docstrings (scope, visibility, attention states: ``_filters``;
sort values: ``_sorts``) and on the HTTP route.

Paging is by keyset: rows are ordered by (sort value, sort name key, id)
and a cursor carries that key of a page's last row, signed by a
:class:`~reelhouse.storage.cursor.CursorCodec` and bound to the query's
fingerprint (every filter, the sort and the order). The next page starts
strictly after that key, so a walk through all pages never repeats or
skips an item whose sort value does not change, even while items are added
or removed between pages. ``offset`` skips rows only without a cursor.

A page is one read (its rows with their poster tags and version counts),
plus the parent's type when there is a parentId, the library check when a
libraryId page comes back empty, the rating labels for the officialRating
sort and bounds, and a count with ``includeTotal``. Errors: :class:`Invalid`
(``field="cursor"`` for a forged, malformed or foreign cursor),
:class:`NotFound` for an unknown libraryId or parentId. Store errors
propagate; cancellation behaves as the Store's reads do (nothing is written).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reelhouse.errors import Invalid, NotFound
from reelhouse.media.ratings import rating_level

from .._store import Store
from ..cursor import FINGERPRINT_KEY, CursorCodec
from ._filters import Parent, Where, build_where
from ._model import ItemQuery
from ._params import PARAMETERS, parse_item_query
from ._render import NAME_EXTRAS, PAGE_EXTRAS, SUMMARY_COLUMNS, ItemSummary, names_of_row, summary_of
from ._sorts import SortPlan, new_seed, sort_plan

__all__ = [
    "PAGE_EXTRAS",
    "PARAMETERS",
    "SUMMARY_COLUMNS",
    "ItemPage",
    "ItemQuery",
    "ItemSummary",
    "list_item_keys",
    "list_items",
    "parse_item_query",
    "rating_levels",
    "summary_of",
]

_KEY = "k"
_KEY_COLUMNS = "i.id, i.series_id, i.type, i.date_created"
_IN_SERIES = ("Episode", "Season")  # as summary_of reads series_id
_SEED = "r"

# Every distinct officialRating label, one index seek per label (a loose
# index scan written portably) instead of a scan of every item.
_DISTINCT_RATINGS = (
    "WITH RECURSIVE r(v) AS (SELECT min(official_rating) FROM items"
    " UNION ALL SELECT (SELECT min(x.official_rating) FROM items x WHERE x.official_rating > r.v)"
    " FROM r WHERE r.v IS NOT NULL) SELECT v FROM r WHERE v IS NOT NULL"
)


@dataclass(frozen=True, slots=True)
class ItemKey:
    """What a page of :func:`list_item_keys` says of an item: enough to order and group it."""

    id: str
    series_id: str | None
    date_created_ms: int


@dataclass(frozen=True, slots=True)
class ItemPage:
    """One page: the reference's CursorPageItemSummary."""

    items: list[ItemSummary]
    next_cursor: str | None
    total_count: int | None = None
    names: dict[str, str] = field(default_factory=dict)
    """With ``with_names``: the page's series and season names by id."""
    own_states: dict[str, tuple[bool, int, int | None, int, bool]] = field(default_factory=dict)
    """With ``with_states``: the member's own watch-state row of each item that has one, by id:
    (played, play count, last played ms, position ms, favourite)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"items": [item.to_json() for item in self.items]}
        if self.next_cursor is not None:
            data["nextCursor"] = self.next_cursor
        if self.total_count is not None:
            data["totalCount"] = self.total_count
        return data


async def list_items(
    store: Store, query: ItemQuery, codec: CursorCodec, *, with_cursor: bool = True, with_names: bool = False,
    with_states: bool = False,
) -> ItemPage:  # fmt: skip
    """The page of items ``query`` asks for (see the module docstring).

    ``with_cursor=False``: a caller that pages by offset or reads one page
    (the Jellyfin surface) gets no ``next_cursor``, and the query's
    fingerprint (a hash of every filter, 5 % of such a request's time) is
    not computed unless the query carries a cursor.  ``with_names``: the
    page's series and season names too (:attr:`ItemPage.names`), read with
    its rows.  ``with_states``: the query's member's own watch-state rows too
    (:attr:`ItemPage.own_states`; a series' or season's state is its episodes',
    not read here), read with its rows.
    """
    fingerprint = query.fingerprint() if with_cursor or query.cursor is not None else ""
    key, seed = _read_cursor(query, codec, fingerprint)
    parent = await _resolve_scope(store, query) if query.parent_id is not None else None
    levels = await rating_levels(store) if _needs_levels(query) else {}
    where = build_where(query, parent, _labels_in_bounds(query, levels), store.backend)
    plan = sort_plan(query, levels, seed, store.backend)
    states = _StateJoin(query.member_id) if with_states and query.member_id is not None else None
    rows = await _page_rows(store, query, where, plan, key, NAME_EXTRAS if with_names else "", states=states)
    if not rows and query.library_id is not None and parent is None:
        await _resolve_scope(store, query)  # an empty page: is the library there at all?
    items = [summary_of(row) for row in rows[: query.limit]]
    next_cursor = None
    if with_cursor and len(rows) > query.limit:
        payload: dict[str, Any] = {FINGERPRINT_KEY: fingerprint, _KEY: plan.key_of(rows[query.limit - 1])}
        if seed is not None:
            payload[_SEED] = seed
        next_cursor = codec.encode(payload)
    total = await _count(store, where) if query.include_total else None
    names = {k: v for row in rows[: query.limit] for k, v in names_of_row(row).items()} if with_names else {}
    own = {row["state_item"]: _own_state(row) for row in rows[: query.limit] if states and row["state_item"]}
    return ItemPage(items, next_cursor, total, names, own)


@dataclass(frozen=True, slots=True)
class _StateJoin:
    """The member whose watch-state rows a page reads with its rows."""

    member_id: str
    columns: str = (
        ", w.item_id AS state_item, w.played AS state_played, w.play_count AS state_play_count,"
        " w.last_played_at AS state_last_played, w.position_ms AS state_position, w.favorite AS state_favorite"
    )
    join: str = " LEFT JOIN watch_state w ON w.user_id = ? AND w.item_id = i.id"


def _own_state(row: Any) -> tuple[bool, int, int | None, int, bool]:
    return (bool(row["state_played"]), int(row["state_play_count"]), row["state_last_played"],
            int(row["state_position"]), bool(row["state_favorite"]))  # fmt: skip


async def list_item_keys(store: Store, query: ItemQuery) -> list[ItemKey]:
    """The items of ``query``'s page (as :func:`list_items` finds them, no cursor, no count) by id,
    series and date added only: a player's "latest" row reads four times as many episodes as it
    shows series, and a summary of each (its poster and version subqueries, 6 us of Python a row)
    was most of that request's work."""
    parent = await _resolve_scope(store, query) if query.parent_id is not None else None
    levels = await rating_levels(store) if _needs_levels(query) else {}
    where = build_where(query, parent, _labels_in_bounds(query, levels), store.backend)
    plan = sort_plan(query, levels, query.random_seed or new_seed() if query.sort == "random" else None, store.backend)
    rows = await _page_rows(store, query, where, plan, None, columns=_KEY_COLUMNS)
    if not rows and query.library_id is not None and parent is None:
        await _resolve_scope(store, query)  # an empty page: is the library there at all?
    return [ItemKey(row[0], row[1] if row[2] in _IN_SERIES else None, row[3]) for row in rows[: query.limit]]


async def rating_levels(store: Store) -> dict[str, int]:
    """Every stored officialRating label that has a level -> that level."""
    rows = await store.fetch_all(_DISTINCT_RATINGS)
    levels = {row["v"]: rating_level(row["v"]) for row in rows}
    return {label: level for label, level in levels.items() if level is not None}


def _read_cursor(query: ItemQuery, codec: CursorCodec, fingerprint: str) -> tuple[list[Any] | None, int | None]:
    """(keyset position or None, random seed or None) of the query's cursor.

    A walk sorted at random keeps the seed of its first page in the cursor.
    """
    shuffled = query.sort == "random"
    if query.cursor is None:
        return None, (query.random_seed or new_seed()) if shuffled else None
    payload = codec.decode(query.cursor, fingerprint=fingerprint)
    key, seed = payload.get(_KEY), payload.get(_SEED)
    size = 2 if query.sort == "name" else 3
    well_formed = isinstance(key, list) and len(key) == size and all(isinstance(k, str) for k in key[-2:])
    if not well_formed or (shuffled and not isinstance(seed, int)):
        raise Invalid("the cursor is invalid or expired", field="cursor")
    return key, seed if shuffled else None


async def _resolve_scope(store: Store, query: ItemQuery) -> Parent | None:
    """The parent item (or library, as ``Parent(type="library")``), checking ids exist.

    Only asked when there is a parentId (its type shapes the query) or a
    page came back empty (a page with rows proves its library exists).
    """
    rows = await store.fetch_all(
        "SELECT 'library' AS kind, l.id AS id, 'library' AS type FROM libraries l WHERE l.id IN (?, ?)"
        " UNION ALL SELECT 'item', i.id, i.type FROM items i WHERE i.id = ?",
        (query.library_id or "", query.parent_id or "", query.parent_id or ""),
    )
    found = {(row["kind"], row["id"]): row["type"] for row in rows}
    if query.library_id is not None and ("library", query.library_id) not in found:
        raise NotFound(f"No library {query.library_id}.", params={"libraryId": query.library_id})
    if query.parent_id is None:
        return None
    parent_type = found.get(("item", query.parent_id)) or found.get(("library", query.parent_id))
    if parent_type is None:
        raise NotFound(f"No item or library {query.parent_id}.", params={"parentId": query.parent_id})
    return Parent(query.parent_id, parent_type)


def _needs_levels(query: ItemQuery) -> bool:
    bounded = query.min_official_level is not None or query.max_official_level is not None
    return bounded or query.sort == "officialRating"


def _labels_in_bounds(query: ItemQuery, levels: dict[str, int]) -> list[str] | None:
    low, high = query.min_official_level, query.max_official_level
    if low is None and high is None:
        return None
    return [
        label for label, level in levels.items()
        if (low is None or level >= low) and (high is None or level <= high)
    ]  # fmt: skip


async def _page_rows(
    store: Store, query: ItemQuery, where: Where, plan: SortPlan, key: list[Any] | None, extras: str = "",
    columns: str = SUMMARY_COLUMNS + PAGE_EXTRAS, states: _StateJoin | None = None,
) -> list[Any]:
    after_sql, after_params = plan.after(key) if key is not None else ("1 = 1", [])
    offset = 0 if key is not None else query.offset
    scoped = f"SELECT i.id, {plan.value_sql} AS sv, i.name_key AS sk FROM items i WHERE {where.sql}"
    if plan.computed:
        # Computed once per row (the keyset predicate and ORDER BY would
        # each evaluate the expression again).
        with_sql = where.with_clause(f"scoped AS MATERIALIZED ({scoped})")
        source = "scoped t"
    else:
        with_sql, source = where.with_clause(), f"({scoped}) t"
    # Order and cut narrow rows (id and key) first, then read the page's
    # columns, poster tags and version counts for those rows only: a sort
    # that no index serves moves three values per row.
    sql = (
        f"{with_sql}SELECT {columns}{extras}{states.columns if states else ''}, t.sv, t.sk"
        f" FROM (SELECT t.id, t.sv, t.sk FROM {source}"
        f" WHERE {after_sql} ORDER BY {plan.order_by} LIMIT ? OFFSET ?) t"
        f" JOIN items i ON i.id = t.id{states.join if states else ''} ORDER BY {plan.order_by}"
    )
    params = [*where.with_params, *plan.value_params, *where.params, *after_params, query.limit + 1, offset]
    if states:
        params.append(states.member_id)
    return await store.fetch_all(sql, params)


async def _count(store: Store, where: Where) -> int:
    sql = f"{where.with_clause()}SELECT count(*) FROM items i WHERE {where.sql}"
    return int(await store.fetch_value(sql, [*where.with_params, *where.params]))
