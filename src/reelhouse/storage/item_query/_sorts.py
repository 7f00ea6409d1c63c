"""ORDER BY and keyset predicates for every ItemSort.

Private to :mod:`reelhouse.storage.item_query`. A listing orders by the key
(sort value ``sv``, sort name key ``sk``, id). The sort value is never
NULL: a missing value is replaced by a sentinel, so that missing dates (and
years) come last in both orders and other missing values count as the lowest
(first ascending, last descending). Ties break by sort name (case- and
accent-insensitive: :mod:`._name_key`) then id, in the requested direction
like the sort value itself (so one index serves both orders); the name sort
orders by (sort name, id).

Sort values (documented on GET /items):

- ``dateAdded`` date first added; when only BoxSet is listed, the newest
  child's date. ``lastContentAdded`` the newest non-missing episode (series)
  or child, else the item's own date. ``dateModified`` last change.
- ``index`` season number * 1,000,000 + episode number for episodes, the
  index number otherwise. ``childCount`` non-missing children as listed by
  ``parentId``.
- ``officialRating`` the rating level; ``size``, ``container``,
  ``resolution`` (first video stream width) of the primary version;
  ``studio`` the first studio; ``productCode`` the code lower-cased without
  spaces, hyphens and underscores; ``seriesName`` the series' sort name.
- ``datePlayed``, ``playCount``, ``played``, ``favorite``,
  ``seriesDatePlayed``: the signed-in member's watch state
  (``_member``: played and favourite first ascending, a missing
  date last, a missing play count 0, seriesDatePlayed the latest play of a
  series' episodes and missing for anything else); a key has no user, so
  every item has the same value and these order by name.
- ``random``: a seeded permutation of item id characters; the seed is
  chosen on the first page and travels in the cursor, so one walk is stable
  and a new walk is shuffled anew.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import _member as member_state
from ._filters import CONTAINER, PRIMARY_SOURCE
from ._model import HIGH, LOW, ItemQuery

RANDOM_KEY_CHARACTERS = 8  # id positions the random key is made of
ID_LENGTH = 22  # scanner ids: 22 characters of [A-Za-z0-9_-]
SEASON_FACTOR = 1_000_000

_NO_USER = "0"
_MEMBER_SORTS = frozenset({"datePlayed", "playCount", "played", "favorite", "seriesDatePlayed"})
_DATES = {
    "premiereDate": "i.premiere_date",
    "year": "i.production_year",
    "dateModified": "i.date_modified",
}
_LOWEST = {
    "rating": "i.community_rating",
    "criticRating": "i.critic_rating",
    "runtime": "i.runtime_ticks",
    "size": f"(SELECT ms.size FROM media_sources ms WHERE {PRIMARY_SOURCE})",
    "resolution": (
        "(SELECT st.width FROM media_sources ms JOIN media_streams st ON st.source_id = ms.id"
        f" WHERE {PRIMARY_SOURCE} AND st.type = 'Video' AND st.is_external = 0 ORDER BY st.idx LIMIT 1)"
    ),
    "index": (
        f"CASE WHEN i.index_number IS NULL THEN NULL WHEN i.type = 'Episode'"
        f" THEN CAST(COALESCE(i.parent_index_number, 0) AS BIGINT) * {SEASON_FACTOR} + i.index_number"
        " ELSE i.index_number END"
    ),
}
_TEXTS = {
    "path": "i.path",
    "container": f"(SELECT {CONTAINER} FROM media_sources ms WHERE {PRIMARY_SOURCE})",
    "studio": (
        "(SELECT lower(v.value) FROM item_values v WHERE v.item_id = i.id AND v.kind = 'studio'"
        " ORDER BY v.position LIMIT 1)"
    ),
    "productCode": "replace(replace(replace(lower(i.product_code), '-', ''), ' ', ''), '_', '')",
    "seriesName": (
        "CASE WHEN i.type = 'Series' THEN i.name_key"
        " ELSE (SELECT s.name_key FROM items s WHERE s.id = i.series_id) END"
    ),
}
_VISIBLE_CHILD = "c.missing = 0 AND c.owner_id IS NULL"
_CHILD_COUNT = (
    "CASE i.type WHEN 'Series' THEN (SELECT count(*) FROM items c WHERE c.series_id = i.id"
    f" AND {_VISIBLE_CHILD} AND (c.type = 'Season' OR (c.type = 'Episode' AND c.season_id IS NULL)))"
    f" WHEN 'Season' THEN (SELECT count(*) FROM items c WHERE c.season_id = i.id AND {_VISIBLE_CHILD})"
    f" ELSE (SELECT count(*) FROM items c WHERE c.parent_id = i.id AND {_VISIBLE_CHILD}) END"
)
# max(x + 0), not max(x): PostgreSQL would otherwise find the max by walking
# the date index backwards, filtering every item for this series.
_LAST_CONTENT = (
    "COALESCE(CASE WHEN i.type = 'Series'"
    " THEN (SELECT max(c.date_created + 0) FROM items c WHERE c.series_id = i.id AND c.missing = 0)"
    " ELSE (SELECT max(c.date_created + 0) FROM items c WHERE c.parent_id = i.id AND c.missing = 0) END,"
    " i.date_created)"
)
_BOXSET_ADDED = (
    "COALESCE((SELECT max(c.date_created + 0) FROM collection_items ci JOIN items c ON c.id = ci.item_id"
    " WHERE ci.collection_id = i.id), i.date_created)"
)


@dataclass(frozen=True, slots=True)
class SortPlan:
    """The sort value expression (over ``items i``) and the ORDER BY of one listing."""

    value_sql: str
    value_params: tuple[Any, ...]
    descending: bool
    by_name: bool = False
    computed: bool = False
    """The value is costly (subqueries, long CASE): compute it once per row."""

    @property
    def columns(self) -> tuple[str, ...]:
        """The key columns of the ordered subquery ``t``."""
        return ("t.sk", "t.id") if self.by_name else ("t.sv", "t.sk", "t.id")

    @property
    def order_by(self) -> str:
        direction = " DESC" if self.descending else " ASC"
        return ", ".join(column + direction for column in self.columns)

    def key_of(self, row: Mapping[str, Any]) -> list[Any]:
        """The keyset position of a row of the ordered subquery."""
        if self.by_name:
            return [row["sk"], row["id"]]
        return [row["sv"], row["sk"], row["id"]]

    def after(self, key: Sequence[Any]) -> tuple[str, list[Any]]:
        """The predicate selecting rows that come after ``key``, with its parameters."""
        return _after(list(self.columns), list(key), "<" if self.descending else ">")


def sort_plan(
    query: ItemQuery, rating_levels: Mapping[str, int], seed: int | None, backend: str = "sqlite"
) -> SortPlan:
    """The plan for ``query.sort`` on ``backend``.

    ``rating_levels``: stored officialRating label -> level (only read for
    the officialRating sort); ``seed``: the random sort's seed.
    """
    desc = query.descending
    sort = query.sort
    if sort == "name":
        return SortPlan("0", (), desc, by_name=True)
    if sort == "random":
        return SortPlan(_random_key(seed or 0), (), desc, computed=True)
    if sort == "officialRating":
        return _official_rating(rating_levels, desc)
    if sort in _MEMBER_SORTS and query.member_id is not None:
        member_sql, params = member_state.sort_value(sort, query.member_id, LOW if desc else HIGH, backend)
        return SortPlan(member_sql, tuple(params), desc, computed=True)
    value_sql = _value_sql(query)
    return SortPlan(value_sql, (), desc, computed="SELECT" in value_sql)


def _value_sql(query: ItemQuery) -> str:
    sort = query.sort
    missing_date = LOW if query.descending else HIGH
    if sort == "dateAdded":
        return _BOXSET_ADDED if query.types == ("BoxSet",) else "i.date_created"
    if sort == "lastContentAdded":
        return _LAST_CONTENT
    if sort in _DATES:
        return f"COALESCE({_DATES[sort]}, {missing_date})"
    if sort in _LOWEST:
        return f"COALESCE({_LOWEST[sort]}, {LOW})"
    if sort in _TEXTS:
        return f"COALESCE({_TEXTS[sort]}, '')"
    if sort == "childCount":
        return _CHILD_COUNT
    return _NO_USER  # datePlayed, playCount, played, favorite, seriesDatePlayed


def _official_rating(rating_levels: Mapping[str, int], desc: bool) -> SortPlan:
    if not rating_levels:
        return SortPlan(str(LOW), (), desc)
    labels = list(rating_levels)
    # Levels are integers this module computed: safe to write inline, and
    # PostgreSQL then knows the CASE's type without a cast.
    whens = " ".join(f"WHEN ? THEN {int(rating_levels[label])}" for label in labels)
    return SortPlan(f"CASE i.official_rating {whens} ELSE {LOW} END", tuple(labels), desc, computed=True)


def _random_key(seed: int) -> str:
    positions = random.Random(seed).sample(range(1, ID_LENGTH + 1), RANDOM_KEY_CHARACTERS)
    return " || ".join([*(f"substr(i.id, {p}, 1)" for p in positions), "i.id"])


def new_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)


def _after(columns: list[str], key: list[Any], strict: str) -> tuple[str, list[Any]]:
    """``(c1, c2, ...) > (k1, k2, ...)`` (or ``<``), spelled out.

    Written ``c1 >= k1 AND (c1 > k1 OR (c1 = k1 AND ...))``: SQLite seeks an
    expression index with the leading bound but not with a row value.
    """
    column, value = columns[0], key[0]
    if len(columns) == 1:
        return f"{column} {strict} ?", [value]
    rest_sql, rest_params = _after(columns[1:], key[1:], strict)
    sql = f"{column} {strict}= ? AND ({column} {strict} ? OR ({column} = ? AND {rest_sql}))"
    return sql, [value, value, value, *rest_params]
