"""The production years of a library's items (DLNA's "By year" container), newest first."""

from __future__ import annotations

from collections.abc import Sequence

from ._parental_sql import ParentalFilter, parental_sql
from ._store import Store


async def production_years(
    store: Store, library_id: str, types: Sequence[str], parental: ParentalFilter | None = None
) -> list[int]:
    """Distinct production years of ``library_id``'s items of ``types``, newest first.

    ``parental``: only years of items a member's parental controls let through
    (a year whose every item is blocked is not named to them).
    """
    marks = ", ".join("?" for _ in types)
    where: str = ""
    params: tuple[object, ...] = ()
    if parental is not None:
        condition, more = parental_sql(parental)
        where, params = f" AND {condition}", tuple(more)
    rows = await store.fetch_all(
        "SELECT DISTINCT i.production_year AS y FROM items i"
        f" WHERE i.library_id = ? AND i.type IN ({marks}) AND i.missing = 0"
        f" AND i.production_year IS NOT NULL{where} ORDER BY y DESC",
        (library_id, *types, *params),
    )
    return [int(row["y"]) for row in rows]
