"""The genre, studio, tag and year filters of an item listing.

Private to :mod:`reelhouse.storage.item_query` (``_filters`` builds the
WHERE clause with them). Genres, studios and tags are read from
``items.facets`` along the walk of a name index (:mod:`.._facets`), or from
``item_values`` when the rows are found from the value's list; years from
``production_year``, sought in ``items_library_parent_by_year`` (migration
0027) where that serves the page; a year range's page by premiere date
walks the premiere dates from the range's earliest instead (migration 0028).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._facets import FACET_SEPARATOR
from ._model import HIGH, ItemQuery

if TYPE_CHECKING:
    from ._filters import Where

TEXT = "lower(CAST(? AS TEXT))"  # a parameter folded like the column it meets


def marks(values: Sequence[Any], mark: str = "?") -> str:
    return ", ".join(mark for _ in values)


def index_ordered(query: ItemQuery) -> bool:
    """Whether an index walk gives the listing's order (name; date added)."""
    return query.sort == "name" or (query.sort == "dateAdded" and query.types != ("BoxSet",))


def has_years(query: ItemQuery) -> bool:
    return bool(query.years) or query.year_from is not None or query.year_to is not None


# items.facets (migration 0027, kept by triggers): the item's genres,
# studios and tags, FACET_SEPARATOR + (first letter of the kind +
# lower(value) + FACET_SEPARATOR) each, carried by the name walks' index
# entries.  Tested along a walk, a value costs one substring search per row,
# where it was a probe of item_values_by_item (a genre) or a list of the
# value's items built first (a studio, a tag): measured on 100,000 items,
# SQLite, a genre page's walk 0.10 ms against 0.34 ms with the probe.  The
# name is folded by the same lower() as the stored values, as the
# item_values filter compares them.
_FIND = {"sqlite": "instr", "postgresql": "strpos"}


def value_filters(where: Where, query: ItemQuery) -> None:
    """The genre, studio and tag filters (each OR within, ANDed together)."""
    for kind, names in (("genre", query.genres), ("studio", query.studios), ("tag", query.tags)):
        if not names:
            continue
        if where.drive_from_subqueries or any(FACET_SEPARATOR in name for name in names):
            # The value's items as a list (item_values_by_value): the rows
            # come from it (a value holding the separator is not in facets).
            where.add(
                "i.id IN (SELECT v.item_id FROM item_values v WHERE v.kind = ?"
                f" AND lower(v.value) IN ({marks(names, TEXT)}))",
                kind, *names,
            )  # fmt: skip
        else:
            find = f"{_FIND[where.backend]}(i.facets, ? || {TEXT} || ?) > 0"
            params = (p for name in names for p in (FACET_SEPARATOR + kind[0], name, FACET_SEPARATOR))
            where.add(f"({' OR '.join(find for _ in names)})", *params)


def year_filters(where: Where, query: ItemQuery) -> None:
    """The year, yearFrom and yearTo filters (on production_year)."""
    if query.years:
        where.add(f"i.production_year IN ({marks(query.years)})", *query.years)
    # Bounds seek items_library_parent_by_year and sort what they select,
    # unless an index gives the order: then the walk in order stops once
    # the page is full, where a wide range would sort thousands of rows
    # (SQLite, which has no statistics, is kept off the year index; so are
    # both backends on the premiere walk below: PostgreSQL cannot estimate
    # its start, a subquery's value, and would read the range and sort).
    year = "i.production_year"
    walks_premieres = premiere_walk(query, where)
    if (where.backend == "sqlite" and index_ordered(query)) or walks_premieres:
        year = "i.production_year + 0"
    if query.year_from is not None:
        where.add(f"{year} >= ?", query.year_from)
    if query.year_to is not None:
        where.add(f"{year} <= ?", query.year_to)
    if walks_premieres:
        _premiere_floor(where, query)


# A year range's page by premiere date (migration 0028).  A production year
# is not the premiere date's year (the NFO's <year> and <premiered>, a
# provider's answer and an edit each set one on its own), so the range
# cannot become a premiere-date range.  It bounds one all the same: no item
# of the range premiered before the earliest premiere date among the
# library's top-level items of those years, found by one seek per year
# (items_library_parent_by_year_premiere).  From there the walk of
# items_library_parent_by_premiere, keyed by the sort value, stops once the
# page is full, where reading the whole range and sorting it tested about
# 6,800 entries for a page (100,000 items, Movie of a genre, 1990-2010).
# Items without a premiere date sort last (HIGH) and are always above the
# floor; with none dated in the range, the floor is HIGH.  Ascending only:
# descending, a missing date is LOW and would need an index of its own.
PREMIERE_KEY = f"COALESCE(i.premiere_date, {HIGH})"
_PREMIERE_YEARS = (
    "premiere_years(y) AS (SELECT CAST(? AS INTEGER) UNION ALL"
    " SELECT y + 1 FROM premiere_years WHERE y < CAST(? AS INTEGER))"
)
_PREMIERE_FLOOR = (
    f"{PREMIERE_KEY} >= COALESCE((SELECT min((SELECT min(b.premiere_date) FROM items b"
    " WHERE b.library_id = ? AND b.parent_id IS NULL AND b.production_year = py.y))"
    f" FROM premiere_years py), {HIGH})"
)


def premiere_walk(query: ItemQuery, where: Where) -> bool:
    """Whether the page walks the premiere dates from its year range's earliest (see above)."""
    return (
        query.sort == "premiereDate" and not query.descending and not where.drive_from_subqueries
        and query.library_id is not None and query.parent_id is None and not (query.recursive or query.card)
        and not query.years and query.year_from is not None and query.year_to is not None
    )  # fmt: skip


def _premiere_floor(where: Where, query: ItemQuery) -> None:
    where.ctes.append(_PREMIERE_YEARS)
    where.with_params.extend((query.year_from, query.year_to))
    where.add(_PREMIERE_FLOOR, query.library_id)
