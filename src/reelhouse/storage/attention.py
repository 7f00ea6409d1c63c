"""Items by attention state, for the bulk attention actions (``actors/upkeep``).

The states are the ones ``GET /items?attention=`` filters by (the
conditions live once, in ``item_query.ATTENTION``). What this
module adds: counting a library's items in some states (optionally only
``item_ids``), and dropping the missing ones from the catalogue now,
whatever their ``missingGraceHours``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._store import Store
from .catalog import relist_directories
from .item_query import ATTENTION

DROP_CHUNK = 200  # items deleted per statement while dropping the missing


def _where(library_id: str, states: Sequence[str], item_ids: Sequence[str] | None) -> tuple[str, list[Any]]:
    present = [ATTENTION[s] for s in states if s != "missing"]
    parts = [f"(i.missing = 0 AND ({' OR '.join(present)}))"] if present else []
    if "missing" in states:
        parts.append(ATTENTION["missing"])
    where = f"i.library_id = ? AND i.owner_id IS NULL AND ({' OR '.join(parts) or '1 = 0'})"
    params: list[Any] = [library_id]
    if item_ids is not None:
        where += f" AND i.id IN ({', '.join('?' for _ in item_ids) or 'NULL'})"
        params += list(item_ids)
    return where, params


async def count_in_states(store: Store, library_id: str, states: Sequence[str],
                          item_ids: Sequence[str] | None = None) -> int:
    """How many of the library's items (not extras) are in any of ``states``."""
    where, params = _where(library_id, states, item_ids)
    return int(await store.fetch_value(f"SELECT count(*) FROM items i WHERE {where}", params) or 0)


async def missing_ids(store: Store, library_id: str, item_ids: Sequence[str] | None = None) -> list[str]:
    """The library's missing items (not extras; episodes and seasons included), by id."""
    where, params = _where(library_id, ("missing",), item_ids)
    rows = await store.fetch_all(f"SELECT i.id FROM items i WHERE {where} ORDER BY i.id", params)
    return [row[0] for row in rows]


async def drop_missing(store: Store, library_id: str, item_ids: Sequence[str]) -> int:
    """Delete those of ``item_ids`` that are still missing (and what they own); how many went.

    An item found again meanwhile (``missing = 0``) stays. Their
    directories are listed again by the next scan, as the cleanup task's
    purge has them.
    """
    if not item_ids:
        return 0
    marks = ", ".join("?" for _ in item_ids)
    result = await store.execute(
        f"DELETE FROM items WHERE library_id = ? AND missing = 1 AND id IN ({marks}) RETURNING dir_path",
        (library_id, *item_ids),
    )
    await relist_directories(store, library_id, [row[0] for row in result.rows if row[0] is not None])
    return result.rowcount


async def unprobed_remote_count(store: Store, library_id: str) -> int:
    """Remote (``.strm``) sources of present items waiting for a probe: not a local reprobe's."""
    value = await store.fetch_value(
        "SELECT COUNT(*) FROM media_sources s JOIN items i ON i.id = s.item_id"
        " WHERE i.library_id = ? AND i.probe_pending = 1 AND i.missing = 0 AND s.remote = 1",
        (library_id,),
    )
    return int(value or 0)
