"""The genre names of the catalogue (Jellyfin's ``GET /Genres``): distinct, by name, within libraries."""

from __future__ import annotations

from collections.abc import Sequence

from ._store import Store

MAX_GENRES = 500


async def genre_names(store: Store, library_ids: Sequence[str] | None, limit: int = MAX_GENRES) -> list[str]:
    """Distinct genres of items in ``library_ids`` (None: every library), case-insensitively by name."""
    where: str = ""
    params: tuple[str, ...] = ()
    if library_ids is not None:
        if not library_ids:
            return []
        where = f" AND i.library_id IN ({', '.join('?' for _ in library_ids)})"
        params = tuple(library_ids)
    rows = await store.fetch_all(
        "SELECT DISTINCT v.value FROM item_values v JOIN items i ON i.id = v.item_id"
        f" WHERE v.kind = 'genre'{where} ORDER BY v.value LIMIT ?",
        (*params, max(1, min(limit, MAX_GENRES))),
    )
    names = sorted({str(row["value"]) for row in rows}, key=str.casefold)
    return names
