"""Parental controls as one SQL condition over ``items i`` (reference, UserPolicy.parental).

The HTTP layer builds a :class:`ParentalFilter` once per request of a
member under parental controls (:func:`parental_filter`) and the item
query adds :func:`parental_sql` beside the library scope, so lists are
paged and counted with the rule applied; detail, images, streams and
search hits ask :func:`allowed_item_ids`.  What the rule decides:

- ``blockedItems`` hide the item, and a blocked series, season or owner
  (of an extra) hides what lies under it: highest priority.
- ``allowedItems`` admit the item (and what lies under an allowed series,
  season or owner) whatever its tags, genres and rating.
- otherwise a blocked tag or genre on the item, its series or its owner
  hides it; and its rating (its own, else its series' or owner's) must be
  at most ``maxAge``.  A rating without a known age, or none, counts as
  the library's ``unratedAge``.
"""

from __future__ import annotations

from collections.abc import Sequence

from reelhouse.media.parental import ParentalControls

from ._parental_sql import ParentalFilter, parental_sql
from ._store import Store
from .item_query import rating_levels
from .libraries import list_libraries

__all__ = ["ParentalFilter", "allowed_item_ids", "parental_filter", "parental_sql"]


async def parental_filter(store: Store, controls: ParentalControls) -> ParentalFilter:
    levels = await rating_levels(store) if controls.limits_age else {}
    libraries = await list_libraries(store) if controls.limits_age else []
    return ParentalFilter(
        blocked_items=controls.blocked_items,
        allowed_items=controls.allowed_items,
        blocked_tags=controls.blocked_tags,
        blocked_genres=controls.blocked_genres,
        limits_age=controls.limits_age,
        admitted_labels=tuple(sorted(label for label, age in levels.items() if age <= controls.max_age)),
        known_labels=tuple(sorted(levels)),
        unrated_libraries=tuple(
            sorted(lib.id for lib in libraries if lib.options.unrated_age <= controls.max_age)
        ),
    )


async def allowed_item_ids(store: Store, item_ids: Sequence[str], rule: ParentalFilter) -> set[str]:
    """Which of ``item_ids`` the rule lets the member see (unknown ids are not returned)."""
    wanted = sorted(set(item_ids))
    if not wanted:
        return set()
    sql, params = parental_sql(rule)
    marks = ", ".join("?" for _ in wanted)
    rows = await store.fetch_all(f"SELECT i.id FROM items i WHERE i.id IN ({marks}) AND {sql}", (*wanted, *params))
    return {row["id"] for row in rows}
