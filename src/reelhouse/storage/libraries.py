"""Libraries: their roots, settings and access list.

Creation is one transaction (library, paths, access list) so a failure
leaves nothing behind. The queries here also derive the counts a Library
response shows (works, .strm sources, items waiting to be scraped).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from reelhouse.media.library_options import LibraryOptions

from ._store import Row, Statement, Store, now_ms
from .covers import StoredCover, parse_covers

# Types that count as a work in itemCount: each movie and each series once.
WORK_TYPES = ("Movie", "Series")


@dataclass(frozen=True, slots=True)
class LibraryRecord:
    # No lastScannedAt: the reference omits it after a restart until a scan
    # completes, so it lives in the LibraryActor's memory alone (the
    # libraries.last_scanned_at column of migration 0001 is no longer used).
    id: str
    name: str
    collection_type: str
    paths: tuple[str, ...]
    options: LibraryOptions
    access_user_ids: tuple[str, ...]
    created_at_ms: int
    updated_at_ms: int
    covers: dict[str, StoredCover] = field(default_factory=dict)  # by kind: primary, thumb


def new_library_id() -> str:
    return secrets.token_hex(16)


async def create_library(
    store: Store,
    *,
    library_id: str,
    name: str,
    collection_type: str,
    paths: Sequence[str],
    options: LibraryOptions,
    access_user_ids: Sequence[str] = (),
) -> LibraryRecord:
    """Insert the library with its roots and access list, all or nothing."""
    at = now_ms()
    statements = [
        Statement(
            "INSERT INTO libraries (id, name, collection_type, options, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (library_id, name, collection_type, options.to_json(), at, at),
        ),
        Statement(
            "INSERT INTO library_paths (library_id, path, position) VALUES (?, ?, ?)",
            many=[(library_id, path, i) for i, path in enumerate(paths)],
        ),
    ]
    if access_user_ids:
        statements.append(
            Statement(
                "INSERT INTO library_access (library_id, user_id) VALUES (?, ?)",
                many=[(library_id, user_id) for user_id in access_user_ids],
            )
        )
    await store.transaction(statements)
    return LibraryRecord(
        library_id, name, collection_type, tuple(paths), options, tuple(access_user_ids), at, at
    )


async def delete_library(store: Store, library_id: str) -> None:
    await store.execute("DELETE FROM libraries WHERE id = ?", (library_id,))


async def list_libraries(store: Store) -> list[LibraryRecord]:
    rows = await store.fetch_all(_SELECT + " ORDER BY lower(l.name), l.id")
    return await _records(store, rows)


async def get_library(store: Store, library_id: str) -> LibraryRecord | None:
    rows = await store.fetch_all(_SELECT + " WHERE l.id = ?", (library_id,))
    records = await _records(store, rows)
    return records[0] if records else None


async def update_library_options(store: Store, library_id: str, options: LibraryOptions) -> None:
    await store.execute(
        "UPDATE libraries SET options = ?, updated_at = ? WHERE id = ?",
        (options.to_json(), now_ms(), library_id),
    )


async def update_library_roots(store: Store, library_id: str, name: str, paths: Sequence[str]) -> None:
    """A library's new name and roots, in one transaction (the roots replace the old ones, in order)."""
    statements = [
        Statement("UPDATE libraries SET name = ?, updated_at = ? WHERE id = ?", (name, now_ms(), library_id)),
        Statement("DELETE FROM library_paths WHERE library_id = ?", (library_id,)),
        Statement(
            "INSERT INTO library_paths (library_id, path, position) VALUES (?, ?, ?)",
            many=[(library_id, path, i) for i, path in enumerate(paths)],
        ),
    ]
    await store.transaction(statements)


async def count_scrape_requeue(store: Store, library_id: str, *, with_nfo: bool) -> int:
    """Works a scrape requeue would queue: present and never queued
    (``none``), those with an NFO only when ``with_nfo`` (fillMissingFromProvider)."""
    nfo = "" if with_nfo else " AND has_nfo = 0"
    row = await store.fetch_one(
        "SELECT count(*) AS n FROM items WHERE library_id = ? AND scrape_state = 'none' AND missing = 0"
        f" AND owner_id IS NULL AND type IN (?, ?){nfo}",
        (library_id, *WORK_TYPES),
    )
    return int(row["n"]) if row is not None else 0


async def all_library_paths(store: Store) -> list[tuple[str, str]]:
    """(library id, root path) for every library."""
    rows = await store.fetch_all("SELECT library_id, path FROM library_paths ORDER BY library_id, position")
    return [(row["library_id"], row["path"]) for row in rows]


async def existing_user_ids(store: Store, user_ids: Sequence[str]) -> dict[str, bool]:
    """Of ``user_ids``, those that exist, mapped to whether they are enabled."""
    if not user_ids:
        return {}
    marks = ", ".join("?" for _ in user_ids)
    rows = await store.fetch_all(f"SELECT id, disabled FROM users WHERE id IN ({marks})", tuple(user_ids))
    return {row["id"]: not row["disabled"] for row in rows}


async def library_counts(store: Store, library_id: str) -> tuple[int, bool, int]:
    """(works, has non-missing .strm sources, items waiting to be scraped), from one snapshot.

    None reads a table row per item of the library: the work count reads
    an index alone (migration 0011), the remote-source check starts from
    the few remote sources (CROSS JOIN fixes SQLite's join order) and stops
    at the first, and the pending count reads only pending items.
    """
    works, strm, pending = await store.fetch_each([
        (
            "SELECT count(*) AS n FROM items WHERE library_id = ? AND missing = 0 AND owner_id IS NULL"
            " AND type IN (?, ?)",
            (library_id, *WORK_TYPES),
        ),
        (
            "SELECT 1 AS n FROM media_sources s CROSS JOIN items i WHERE i.id = s.item_id"
            " AND s.remote = 1 AND s.missing = 0 AND i.library_id = ? AND i.missing = 0 LIMIT 1",
            (library_id,),
        ),
        (
            "SELECT count(*) AS n FROM items WHERE library_id = ? AND scrape_state = 'pending' AND missing = 0",
            (library_id,),
        ),
    ])  # fmt: skip
    return int(works[0]["n"]), bool(strm), int(pending[0]["n"])


async def record_scan_error(store: Store, library_id: str, path: str, error: str) -> None:
    await store.execute(
        "INSERT INTO scan_errors (library_id, path, error, occurred_at) VALUES (?, ?, ?, ?)",
        (library_id, path, error, now_ms()),
    )


@dataclass(frozen=True, slots=True)
class ScanErrorRecord:
    id: int
    library_id: str
    path: str
    error: str
    occurred_at_ms: int


async def list_scan_errors(store: Store, library_id: str | None, limit: int) -> list[ScanErrorRecord]:
    """Newest first; every library's when ``library_id`` is None."""
    where, params = ("WHERE library_id = ?", (library_id,)) if library_id else ("", ())
    rows = await store.fetch_all(
        f"SELECT id, library_id, path, error, occurred_at FROM scan_errors {where}"
        " ORDER BY occurred_at DESC, id DESC LIMIT ?",
        (*params, limit),
    )
    return [
        ScanErrorRecord(row["id"], row["library_id"], row["path"], row["error"], row["occurred_at"])
        for row in rows
    ]


_SELECT = (
    "SELECT l.id, l.name, l.collection_type, l.options, l.created_at, l.updated_at,"
    " l.covers FROM libraries l"
)


async def _records(store: Store, rows: list[Row]) -> list[LibraryRecord]:
    if not rows:
        return []
    ids = [row["id"] for row in rows]
    marks = ", ".join("?" for _ in ids)
    path_rows = await store.fetch_all(
        f"SELECT library_id, path FROM library_paths WHERE library_id IN ({marks}) ORDER BY position",
        tuple(ids),
    )
    access_rows = await store.fetch_all(
        f"SELECT library_id, user_id FROM library_access WHERE library_id IN ({marks}) ORDER BY user_id",
        tuple(ids),
    )
    paths: dict[str, list[str]] = {i: [] for i in ids}
    access: dict[str, list[str]] = {i: [] for i in ids}
    for row in path_rows:
        paths[row["library_id"]].append(row["path"])
    for row in access_rows:
        access[row["library_id"]].append(row["user_id"])
    return [
        LibraryRecord(
            id=row["id"],
            name=row["name"],
            collection_type=row["collection_type"],
            paths=tuple(paths[row["id"]]),
            options=LibraryOptions.from_json(row["options"]),
            access_user_ids=tuple(access[row["id"]]),
            created_at_ms=row["created_at"],
            updated_at_ms=row["updated_at"],
            covers=parse_covers(row["covers"]),
        )
        for row in rows
    ]


@dataclass(frozen=True, slots=True)
class ItemLocation:
    item_id: str
    library_id: str
    type: str
    name: str
    directory: str | None  # the folder that holds the item's files


async def item_location(store: Store, item_id: str) -> ItemLocation | None:
    """Where an item lives on disk, for a rescan of just its directory."""
    row = await store.fetch_one(
        "SELECT id, library_id, type, name, path, dir_path FROM items WHERE id = ?", (item_id,)
    )
    if row is None:
        return None
    directory = row["dir_path"]
    if row["type"] in ("Series", "Season", "Folder", "BoxSet") and row["path"]:
        directory = row["path"]  # a folder item: its own folder, with everything below
    return ItemLocation(row["id"], row["library_id"], row["type"], row["name"], directory)


async def library_of_item(store: Store, item_id: str) -> str | None:
    """The id of the library holding an item; None for an unknown item."""
    library_id = await store.fetch_value("SELECT library_id FROM items WHERE id = ?", (item_id,))
    return str(library_id) if library_id is not None else None
