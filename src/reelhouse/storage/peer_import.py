"""What importing from another server reads and writes (``reelhouse import``, ``cli/_peer_import.py``).

Reads: our items an import can match (present, not extras: movies,
series, episodes, with their primary file's path) and our members'
watch states. Writes, each guarded in its statement so that data of ours
that became newer between the plan and the write is never overwritten
(the import runs beside a serving process, as the other admin commands):

- :func:`import_watch_state`: the watch fields only when the peer's play
  is later than ours (or ours is untouched), the play count only grows,
  the favourite only added (:mod:`reelhouse.media.peer_import`);
- :func:`import_provider_ids`: ids added to a work that is still without
  a match of its own and unlocked; queued for scraping when its library
  has a metadata provider (looked up by the id, no search).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from reelhouse.media.peer_import import OurItem, OurWatch, WatchChange

from ._store import IntegrityError, Statement, Store
from .libraries import list_libraries

_ITEMS = (
    "SELECT i.id, i.type, i.name, COALESCE(ms.path, i.path) AS path, i.provider_ids, i.scrape_state, i.lock_data"
    " FROM items i LEFT JOIN media_sources ms ON ms.item_id = i.id AND ms.position = 0"
    " WHERE i.missing = 0 AND i.owner_id IS NULL AND i.type IN ('Movie', 'Series', 'Episode')"
)
_UNTOUCHED = "(w.played = 0 AND w.position_ms = 0 AND w.last_played_at IS NULL)"
_LATER = (
    "(excluded.last_played_at IS NOT NULL"
    " AND (w.last_played_at IS NULL OR excluded.last_played_at > w.last_played_at))"
)
_TAKES = f"({_UNTOUCHED} OR {_LATER})"
_IMPORT_WATCH = (
    "INSERT INTO watch_state AS w (user_id, item_id, played, play_count, last_played_at, position_ms, favorite)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, item_id) DO UPDATE SET"
    f" played = CASE WHEN {_TAKES} AND ? = 1 THEN excluded.played ELSE w.played END,"
    f" play_count = CASE WHEN {_TAKES} AND ? = 1 AND excluded.play_count > w.play_count"
    " THEN excluded.play_count ELSE w.play_count END,"
    f" position_ms = CASE WHEN {_TAKES} AND ? = 1 THEN excluded.position_ms ELSE w.position_ms END,"
    f" last_played_at = CASE WHEN {_TAKES} AND ? = 1 THEN excluded.last_played_at ELSE w.last_played_at END,"
    " favorite = CASE WHEN excluded.favorite = 1 THEN 1 ELSE w.favorite END"
)


async def our_items(store: Store) -> list[OurItem]:
    rows = await store.fetch_all(_ITEMS)
    return [
        OurItem(row["id"], row["type"], row["name"], row["path"], _ids(row["provider_ids"]), row["scrape_state"],
                bool(row["lock_data"]))
        for row in rows
    ]


def _ids(raw: Any) -> dict[str, str]:
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return {str(k).lower(): str(v) for k, v in value.items() if v} if isinstance(value, dict) else {}


async def our_watch(store: Store, member_id: str, item_ids: Sequence[str]) -> dict[str, OurWatch]:
    """The member's own rows for these items (a series' favourite is its own row too)."""
    found: dict[str, OurWatch] = {}
    for start in range(0, len(item_ids), 500):
        chunk = list(item_ids[start:start + 500])
        marks = ", ".join("?" for _ in chunk)
        rows = await store.fetch_all(
            "SELECT item_id, played, play_count, position_ms, favorite, last_played_at FROM watch_state"
            f" WHERE user_id = ? AND item_id IN ({marks})", (member_id, *chunk))
        for row in rows:
            found[row["item_id"]] = OurWatch(bool(row["played"]), int(row["play_count"]), int(row["position_ms"]),
                                             bool(row["favorite"]), row["last_played_at"])
    return found


async def import_watch_state(store: Store, member_id: str, changes: Sequence[WatchChange]) -> int:
    """Write the planned changes, each guarded again; how many rows the statement touched."""
    rows = [
        (member_id, c.item_id, int(c.played and c.take_watch), c.play_count if c.take_watch else 0,
         c.last_played_ms if c.take_watch else None, c.position_ms if c.take_watch else 0, int(c.add_favorite),
         *(int(c.take_watch),) * 4)
        for c in changes
    ]
    if not rows:
        return 0
    try:
        results = await store.transaction([Statement(_IMPORT_WATCH, many=rows)])
    except IntegrityError:  # an item deleted meanwhile: write them one by one, skipping the gone
        return await _one_by_one(store, rows)
    return sum(result.rowcount for result in results)


async def _one_by_one(store: Store, rows: Sequence[tuple[Any, ...]]) -> int:
    written = 0
    for row in rows:
        try:
            written += (await store.execute(_IMPORT_WATCH, row)).rowcount
        except IntegrityError:
            continue
    return written


async def import_provider_ids(store: Store, item: OurItem, new_ids: Mapping[str, str]) -> bool:
    """Add ``new_ids`` to the work if it is still unmatched, unlocked and unchanged; queued for
    scraping when its library has a provider. Whether it was written."""
    merged = dict(sorted({**item.provider_ids, **new_ids}.items()))
    queue = await _library_scrapes(store, item.id)
    result = await store.execute(
        "UPDATE items SET provider_ids = ?,"
        " scrape_state = CASE WHEN ? = 1 THEN 'pending' ELSE scrape_state END,"
        " scrape_refresh = CASE WHEN ? = 1 THEN 'replaceAll' ELSE scrape_refresh END"
        " WHERE id = ? AND lock_data = 0 AND scrape_state IN ('none', 'failed', 'needsIdentify')",
        (json.dumps(merged, ensure_ascii=False), int(queue), int(queue), item.id),
    )
    return result.rowcount > 0


async def _library_scrapes(store: Store, item_id: str) -> bool:
    library_id = await store.fetch_value("SELECT library_id FROM items WHERE id = ?", (item_id,))
    for library in await list_libraries(store):
        if library.id == library_id:
            return bool(library.options.metadata_providers)
    return False


def member_ids_by_name(members: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Our members (id, name) by case-folded name."""
    return {name.casefold(): member_id for member_id, name in members}


async def our_members(store: Store) -> dict[str, str]:
    rows = await store.fetch_all("SELECT id, name FROM users")
    return member_ids_by_name([(row["id"], row["name"]) for row in rows])
