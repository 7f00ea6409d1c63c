"""The containers of the files libraries hold (DLNA's GetProtocolInfo: the formats the catalogue holds)."""

from __future__ import annotations

from collections.abc import Sequence

from ._store import Store


async def source_containers(store: Store, library_ids: Sequence[str]) -> list[str]:
    """Distinct containers (``mkv``, ``mp4``, ``mpegts``...) of the present local files of ``library_ids``."""
    if not library_ids:
        return []
    marks = ", ".join("?" for _ in library_ids)
    rows = await store.fetch_all(
        "SELECT DISTINCT lower(ms.container) AS c FROM media_sources ms JOIN items i ON i.id = ms.item_id"
        f" WHERE i.library_id IN ({marks}) AND ms.missing = 0 AND ms.remote = 0 AND ms.container <> ''"
        " ORDER BY c",
        tuple(library_ids),
    )
    return [str(row["c"]) for row in rows]
