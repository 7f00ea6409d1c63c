"""The files of a library's films and episodes under a folder (DLNA's folders as on disk).

Read from the catalogue alone (no disk access): the primary file's path
of every present film and episode of ``library_id`` whose path starts
with ``prefix``, by path; with a member's parental rule, only the items it
lets through (so a folder whose every film is blocked is not named).
"""

from __future__ import annotations

from ._parental_sql import ParentalFilter, parental_sql
from ._store import Store
from .item_query import LIKE_ESCAPE, like_escape


async def item_paths_under(
    store: Store, library_id: str, prefix: str, parental: ParentalFilter | None = None
) -> list[tuple[str, str]]:
    """(item id, path) of the library's films and episodes whose primary file's path starts with ``prefix``."""
    where: str = ""
    params: tuple[object, ...] = ()
    if parental is not None:
        condition, more = parental_sql(parental)
        where, params = f" AND {condition}", tuple(more)
    rows = await store.fetch_all(
        "SELECT i.id, ms.path FROM items i JOIN media_sources ms ON ms.item_id = i.id AND ms.position = 0"
        " WHERE i.library_id = ? AND i.type IN ('Movie', 'Episode') AND i.missing = 0"
        f" AND ms.path LIKE ? ESCAPE '{LIKE_ESCAPE}'{where} ORDER BY ms.path",
        (library_id, like_escape(prefix) + "%", *params),
    )
    return [(str(row["id"]), str(row["path"])) for row in rows]
