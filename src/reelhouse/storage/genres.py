"""The genre names of the catalogue (Jellyfin's ``GET /Genres``): distinct, by name, within libraries."""

from __future__ import annotations

from collections.abc import Sequence

from ._parental_sql import ParentalFilter, parental_sql
from ._store import Store

MAX_GENRES = 500


async def genre_names(
    store: Store, library_ids: Sequence[str] | None, limit: int = MAX_GENRES, parental: ParentalFilter | None = None
) -> list[str]:
    """Distinct genres of items in ``library_ids`` (None: every library), case-insensitively by name.

    ``parental``: only genres of items a member's parental controls let through
    (a genre whose every item is blocked is not named to them).
    """
    where: str = ""
    params: tuple[object, ...] = ()
    if library_ids is not None:
        if not library_ids:
            return []
        where = f" AND i.library_id IN ({', '.join('?' for _ in library_ids)})"
        params = tuple(library_ids)
    if parental is not None:
        condition, more = parental_sql(parental)
        where += f" AND {condition}"
        params = (*params, *more)
    rows = await store.fetch_all(
        "SELECT DISTINCT v.value FROM item_values v JOIN items i ON i.id = v.item_id"
        f" WHERE v.kind = 'genre'{where} ORDER BY v.value LIMIT ?",
        (*params, max(1, min(limit, MAX_GENRES))),
    )
    names = sorted({str(row["value"]) for row in rows}, key=str.casefold)
    return names
