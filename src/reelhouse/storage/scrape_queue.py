"""The scrape queue's SQL: which items wait for a provider, and their states.

An item waits while ``items.scrape_state`` is ``pending``. Only works
(movies and series) are queued: a series' seasons and episodes are filled
from its provider's season answers when the series is scraped. Locked
items (``lock_data``) are never queued; one locked after it was queued is
set back to ``none`` when the queue reaches it. ``scrapeError`` lives in
``items.extra`` (MetadataState). A refresh's mode waits with the item in
``items.scrape_refresh`` (:class:`Refresh`), so a restart applies it as asked;
it is NULL (a fill) whenever the item is not pending: every way out of the
queue clears it (:func:`set_scrape_state`, a match applied).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from reelhouse.media.provider_fields import ApplyMode

from ._scrape_record import IDENTIFIED_KEY
from ._store import Row, Statement, Store
from .libraries import WORK_TYPES

# What a refresh queues, by its mode (the reference's RefreshMetadataRequest).
REFRESH_STATES: dict[str, tuple[str, ...]] = {
    "missing": ("none", "pending", "failed", "needsIdentify"),
    "replaceAll": ("none", "pending", "scraped", "failed", "needsIdentify", "identified"),
}
_WORKS = "library_id = ? AND missing = 0 AND owner_id IS NULL AND type IN (?, ?)"
_WORK_COLUMNS = "id, type, name, production_year, path, lock_data, provider_ids, extra, scrape_refresh"
_IMAGES = "+images"


@dataclass(frozen=True, slots=True)
class Refresh:
    """How a queued work's match is applied: the refresh's mode, and whether it replaces images."""

    mode: ApplyMode = "missing"
    replace_images: bool = False

    def stored(self) -> str | None:
        """The ``scrape_refresh`` text; None for a plain fill."""
        if self == FILL:
            return None
        return self.mode + (_IMAGES if self.replace_images else "")

    @classmethod
    def from_stored(cls, text: str | None) -> Refresh:
        mode, images, _ = (text or "").partition(_IMAGES)
        return cls("replaceAll" if mode == "replaceAll" else "missing", images == _IMAGES)


FILL = Refresh()  # what a scan queues: empty fields filled, images kept


@dataclass(frozen=True, slots=True)
class PendingItem:
    id: str
    type: str  # Movie or Series
    name: str
    production_year: int | None
    path: str | None
    lock_data: bool
    provider_ids: dict[str, str]  # the item's ids, and the id its last match's provider gave it
    identified_by: str | None = None  # the provider whose match a user chose (that id is in provider_ids)
    refresh: Refresh = FILL


async def mark_new_pending(store: Store, library_id: str, *, created_since_ms: int, with_nfo: bool) -> int:
    """Queue the works a scan created since ``created_since_ms`` (autoScrape);
    with an NFO only when ``with_nfo`` (fillMissingFromProvider). A series
    already matched that got new episodes is queued again: its provider's
    season answers fill them (its own fields, already there, stay). With
    ``with_nfo``, a matched work whose NFO the scan read again is queued
    again too: the NFO's values replaced the ones its provider had filled,
    and a fill brings back what the NFO lacks."""
    nfo = "" if with_nfo else " AND has_nfo = 0"
    statements = [
        Statement(
            f"UPDATE items SET scrape_state = 'pending' WHERE {_WORKS} AND scrape_state = 'none'"
            f" AND lock_data = 0 AND date_created >= ?{nfo}",
            (library_id, *WORK_TYPES, created_since_ms),
        ),
        Statement(
            "UPDATE items SET scrape_state = 'pending' WHERE library_id = ? AND type = 'Series'"
            " AND scrape_state IN ('scraped', 'identified') AND lock_data = 0 AND missing = 0 AND id IN"
            " (SELECT series_id FROM items WHERE library_id = ? AND type = 'Episode' AND date_created >= ?)",
            (library_id, library_id, created_since_ms),
        ),
    ]  # fmt: skip
    if with_nfo:
        statements.append(Statement(
            f"UPDATE items SET scrape_state = 'pending' WHERE {_WORKS} AND has_nfo = 1"
            " AND scrape_state IN ('scraped', 'identified') AND lock_data = 0 AND date_modified >= ?",
            (library_id, *WORK_TYPES, created_since_ms),
        ))  # fmt: skip
    results = await store.transaction(statements)
    return sum(result.rowcount for result in results)


async def queue_works(store: Store, library_id: str, states: Sequence[str], *, with_nfo: bool = True,
                      item_ids: Sequence[str] | None = None, refresh: Refresh = FILL) -> tuple[list[str], int]:
    """Set works in ``states`` to pending, to be applied as ``refresh`` says: (the ids
    queued, how many were skipped because they are locked). ``item_ids`` narrows it to
    those works."""
    marks = ", ".join("?" for _ in states)
    where = f"{_WORKS} AND scrape_state IN ({marks})" + ("" if with_nfo else " AND has_nfo = 0")
    params: tuple[Any, ...] = (library_id, *WORK_TYPES, *states)
    if item_ids is not None:
        if not item_ids:
            return [], 0
        where += f" AND id IN ({', '.join('?' for _ in item_ids)})"
        params += tuple(item_ids)
    skipped, queued = await store.transaction([
        Statement(f"SELECT count(*) AS n FROM items WHERE {where} AND lock_data = 1", params),
        Statement(f"UPDATE items SET scrape_state = 'pending', scrape_refresh = ? WHERE {where} AND lock_data = 0"
                  " RETURNING id", (refresh.stored(), *params)),
    ])  # fmt: skip
    return [row[0] for row in queued.rows], int(skipped.rows[0][0])


async def pending_batch(store: Store, library_id: str, *, limit: int, skip: Sequence[str] = ()) -> list[PendingItem]:
    """The next pending works, oldest first, leaving out ``skip``."""
    leave_out = f" AND id NOT IN ({', '.join('?' for _ in skip)})" if skip else ""
    rows = await store.fetch_all(
        f"SELECT {_WORK_COLUMNS} FROM items"
        f" WHERE library_id = ? AND scrape_state = 'pending' AND missing = 0{leave_out}"
        " ORDER BY date_created, id LIMIT ?",
        (library_id, *skip, limit),
    )
    return [_pending(row) for row in rows]


async def load_work(store: Store, item_id: str) -> PendingItem | None:
    """The work an identify of ``item_id`` matches: the item, or a season's or episode's series."""
    row = await store.fetch_one(
        f"SELECT {', '.join('w.' + c for c in _WORK_COLUMNS.split(', '))} FROM items i"
        " JOIN items w ON w.id = CASE WHEN i.type IN (?, ?) THEN i.id ELSE i.series_id END WHERE i.id = ?",
        (*WORK_TYPES, item_id),
    )
    return None if row is None else _pending(row)


async def count_pending(store: Store, library_id: str) -> int:
    value = await store.fetch_value(
        "SELECT count(*) FROM items WHERE library_id = ? AND scrape_state = 'pending' AND missing = 0",
        (library_id,),
    )
    return int(value or 0)


async def count_all_pending(store: Store) -> int:
    """Items waiting for a scrape in every library: the scrape queue's depth."""
    value = await store.fetch_value("SELECT count(*) FROM items WHERE scrape_state = 'pending' AND missing = 0")
    return int(value or 0)


async def set_scrape_state(store: Store, item_id: str, state: str, *, error: str | None = None) -> None:
    """Record ``state`` (one out of the queue: its refresh is done); ``scrapeError``
    (MetadataState) is ``error``, or removed. Nothing is written when all is already so."""
    row = await store.fetch_one("SELECT scrape_state, extra, scrape_refresh FROM items WHERE id = ?", (item_id,))
    if row is None:
        return
    extra = _object(row[1])
    if extra.get("scrapeError") == error or (error is None and "scrapeError" not in extra):
        if row[0] != state or row[2] is not None:
            await store.execute("UPDATE items SET scrape_state = ?, scrape_refresh = NULL WHERE id = ?",
                                (state, item_id))
        return
    if error is None:
        extra.pop("scrapeError", None)
    else:
        extra["scrapeError"] = error[:500]
    await store.execute(
        "UPDATE items SET scrape_state = ?, scrape_refresh = NULL, extra = ? WHERE id = ?",
        (state, orjson.dumps(extra).decode(), item_id),
    )


async def season_numbers(store: Store, series_id: str) -> list[int]:
    """The numbers of the series' seasons on disk (episodes without a Season item count too)."""
    rows = await store.fetch_all(
        "SELECT DISTINCT parent_index_number FROM items WHERE series_id = ? AND type = 'Episode'"
        " AND parent_index_number IS NOT NULL UNION SELECT DISTINCT index_number FROM items"
        " WHERE series_id = ? AND type = 'Season' AND index_number IS NOT NULL",
        (series_id, series_id),
    )
    return sorted({int(row[0]) for row in rows})


async def has_absolute_episodes(store: Store, series_id: str) -> bool:
    """Whether the series has episodes numbered without a season (anime's
    absolute numbers): its provider's every season is needed to place them."""
    row = await store.fetch_one(
        "SELECT 1 FROM items WHERE series_id = ? AND type = 'Episode' AND parent_index_number IS NULL"
        " AND index_number IS NOT NULL AND missing = 0 LIMIT 1",
        (series_id,),
    )
    return row is not None


async def work_ids_under(store: Store, item_id: str) -> list[str]:
    """The works to scrape for an item refresh: the item itself, a season's
    or episode's series, or the works in a folder (recursive)."""
    row = await store.fetch_one("SELECT type, series_id, path FROM items WHERE id = ?", (item_id,))
    if row is None:
        return []
    kind, series_id, path = row[0], row[1], row[2]
    if kind in WORK_TYPES:
        return [item_id]
    if series_id is not None:
        return [series_id]
    if path is None:
        return []
    prefix = path.rstrip("/") + "/"
    rows = await store.fetch_all(
        "SELECT id FROM items WHERE type IN (?, ?) AND owner_id IS NULL AND substr(path, 1, ?) = ?",
        (*WORK_TYPES, len(prefix), prefix),
    )
    return [r[0] for r in rows]


def _pending(row: Row) -> PendingItem:
    """A work from :data:`_WORK_COLUMNS`."""
    ids = {str(k).lower(): str(v) for k, v in _object(row[6]).items() if v}
    state = _object(row[7])  # MetadataState: the provider (a plugin id) that matched it, and its id there
    matched_by = state.get("provider") if state.get("providerItemId") else None
    if isinstance(matched_by, str):
        ids[matched_by] = str(state["providerItemId"])
    identified_by = matched_by if isinstance(matched_by, str) and state.get(IDENTIFIED_KEY) is True else None
    refresh = Refresh.from_stored(row[8])
    return PendingItem(row[0], row[1], row[2], row[3], row[4], bool(row[5]), ids, identified_by, refresh)


def _object(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return dict(raw)
    try:
        value = orjson.loads(raw or "{}")
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
