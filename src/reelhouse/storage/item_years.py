"""The production years of a library's items (DLNA's "By year" container), newest first."""

from __future__ import annotations

from collections.abc import Sequence

from ._store import Store


async def production_years(store: Store, library_id: str, types: Sequence[str]) -> list[int]:
    """Distinct production years of ``library_id``'s items of ``types``, newest first."""
    marks = ", ".join("?" for _ in types)
    rows = await store.fetch_all(
        "SELECT DISTINCT production_year AS y FROM items"
        f" WHERE library_id = ? AND type IN ({marks}) AND production_year IS NOT NULL ORDER BY y DESC",
        (library_id, *types),
    )
    return [int(row["y"]) for row in rows]
