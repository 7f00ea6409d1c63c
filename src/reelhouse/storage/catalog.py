"""The scanner's reads and writes of the catalogue.

A scan reads a library's index once (:func:`load_scan_index`: every item's
id, path, fingerprint and structure, the directory times of the last scan;
:func:`load_local_images`: the local images' tags, when files are to be
read), writes item records in batches of one transaction each
(:func:`write_batch`), and when it completes marks what it did not
see missing (:func:`mark_missing`), purges items missing for longer than
the grace period (:func:`purge_missing`) and stores directory times
(:func:`save_scan_dirs`). Media info is written by :func:`save_probe_results`
for the sources :func:`pending_probe_sources` lists.

Every function raises StoreError (IntegrityError for a refused write).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import trio

from reelhouse.media.assembly import ItemRecord
from reelhouse.media.probe import ProbeFailure, ProbeResult

from ._catalog_write import ITEM_COLUMNS, ScanErrorRow, batch_statements, item_row, source_id
from ._name_key import name_key
from ._store import Row, Statement, Store

CHUNK_ROWS = 500  # rows per executemany in the bulk updates below
FOLDER_TYPES = frozenset({"Series", "Season"})

__all__ = [
    "ITEM_COLUMNS",
    "IndexedItem",
    "PendingSource",
    "ProbeOutcomeRow",
    "ScanErrorRow",
    "ScanIndex",
    "StoredDir",
    "StoredImage",
    "batch_statements",
    "count_probe_pending",
    "item_row",
    "load_local_images",
    "load_scan_index",
    "mark_missing",
    "name_key",
    "pending_probe_sources",
    "purge_missing",
    "relist_directories",
    "save_probe_results",
    "save_scan_dirs",
    "source_id",
    "write_batch",
]


class IndexedItem(NamedTuple):
    """What a scan needs to know of a stored item (a tuple: a library's
    index is loaded on every scan, so it must be cheap to build)."""

    id: str
    type: str
    path: str | None
    dir_path: str | None
    missing: int  # 0 or 1
    scan_hash: str | None
    series_id: str | None
    season_id: str | None
    version_of: str | None
    extra_type: str | None
    file_size: int | None
    file_mtime: int | None


class StoredImage(NamedTuple):
    size: int | None
    mtime: int | None
    tag: str
    width: int | None
    height: int | None


class StoredDir(NamedTuple):
    parent: str | None
    mtime_ns: int
    signature: str | None = None  # of the directory's listing when last listed (actors/scan/walk.py)


@dataclass(slots=True)
class ScanIndex:
    """One library's items (by id), local images (by path) and directories."""

    items: dict[str, IndexedItem] = field(default_factory=dict)
    images: dict[str, StoredImage] = field(default_factory=dict)
    dirs: dict[str, StoredDir] = field(default_factory=dict)
    error_paths: set[str] = field(default_factory=set)  # paths with a recorded scan error

    def present_count(self) -> int:
        """Items not missing: the base of the mass-missing safeguard."""
        return sum(1 for item in self.items.values() if not item.missing)

    def files_by_dir(self) -> dict[str, list[IndexedItem]]:
        """Items that are files, grouped by their directory."""
        grouped: dict[str, list[IndexedItem]] = {}
        for item in self.items.values():
            if item.type not in FOLDER_TYPES and item.dir_path is not None:
                grouped.setdefault(item.dir_path, []).append(item)
        return grouped

    def folders_by_path(self) -> dict[str, IndexedItem]:
        """Series and seasons by their folder."""
        return {
            item.path: item
            for item in self.items.values()
            if item.type in FOLDER_TYPES and item.path is not None
        }

    def children_of(self) -> dict[str, list[str]]:
        """Stored directories by parent directory."""
        children: dict[str, list[str]] = {}
        for path, stored in self.dirs.items():
            if stored.parent is not None:
                children.setdefault(stored.parent, []).append(path)
        return children


async def load_scan_index(store: Store, library_id: str) -> ScanIndex:
    """The library's items and directories as the last scans left them
    (``images`` stays empty: see :func:`load_local_images`)."""
    items = await store.fetch_all(
        "SELECT id, type, path, dir_path, missing, scan_hash, series_id, season_id, version_of,"
        " extra_type, file_size, file_mtime FROM items WHERE library_id = ? AND type <> 'BoxSet'",
        (library_id,),
    )
    dirs = await store.fetch_all(
        "SELECT path, parent, mtime_ns, signature FROM scan_dirs WHERE library_id = ?", (library_id,)
    )
    errors = await store.fetch_all("SELECT DISTINCT path FROM scan_errors WHERE library_id = ?", (library_id,))
    # A large library has a large index: build it off the event loop.
    return await trio.to_thread.run_sync(_index, items, dirs, errors)


def _index(items: list[Row], dirs: list[Row], errors: list[Row]) -> ScanIndex:
    return ScanIndex(
        items={r[0]: IndexedItem._make(r) for r in items},
        dirs={r[0]: StoredDir(r[1], int(r[2]), r[3]) for r in dirs},
        error_paths={r[0] for r in errors},
    )


async def load_local_images(store: Store, library_id: str) -> dict[str, StoredImage]:
    """The library's local images by path: a scan reuses their tags while
    their size and mtime stay (loaded only when a scan has files to read)."""
    rows = await store.fetch_all(
        "SELECT i.path, i.size, i.mtime, i.tag, i.width, i.height FROM images i"
        " JOIN items t ON t.id = i.item_id WHERE t.library_id = ? AND i.source = 'local'",
        (library_id,),
    )
    return await trio.to_thread.run_sync(_images, rows)


def _images(rows: list[Row]) -> dict[str, StoredImage]:
    return {r[0]: StoredImage(r[1], r[2], r[3], r[4], r[5]) for r in rows}


async def write_batch(
    store: Store,
    library_id: str,
    records: Sequence[ItemRecord],
    errors: Sequence[ScanErrorRow] = (),
    *,
    cleared: Sequence[str] = (),
    now_ms: int,
) -> None:
    """Write item records (parents before children) and scan errors in one
    transaction: all of it or nothing. ``cleared``: paths whose earlier
    errors are gone (the file reads now).

    Turning a few hundred records into rows is tens of milliseconds of
    Python: it runs in a worker thread so the event loop never waits on it.
    """
    build = functools.partial(batch_statements, library_id, records, errors, cleared=cleared, now_ms=now_ms)
    statements = await trio.to_thread.run_sync(build)
    if statements:
        await store.transaction(statements)


async def mark_missing(store: Store, item_ids: Sequence[str], *, now_ms: int) -> None:
    """Mark items (and their media sources) missing since ``now_ms``, in one transaction."""
    statements: list[Statement] = []
    for chunk in _chunks([(now_ms, i) for i in item_ids]):
        mark = "UPDATE items SET missing = 1, missing_since = ? WHERE id = ? AND missing = 0"
        statements.append(Statement(mark, many=chunk))
    for chunk in _chunks([(i,) for i in item_ids]):
        statements.append(Statement("UPDATE media_sources SET missing = 1 WHERE item_id = ?", many=chunk))
    if statements:
        await store.transaction(statements)


async def purge_missing(store: Store, library_id: str, *, missing_before_ms: int) -> list[str]:
    """Delete the library's items missing since before ``missing_before_ms``.

    What hangs below them (episodes of a series, extras) goes with them.
    Returns the directories of the deleted items (one per item): the caller
    has them listed again (:func:`relist_directories`), since files that
    were deleted with them may still be there.
    """
    result = await store.execute(
        "DELETE FROM items WHERE library_id = ? AND missing = 1 AND missing_since < ? RETURNING dir_path",
        (library_id, missing_before_ms),
    )
    return [row[0] for row in result.rows if row[0] is not None]


async def relist_directories(store: Store, library_id: str, paths: Iterable[str]) -> None:
    """Forget the stored mtimes of ``paths``: the next quick scan lists them."""
    rows = [(library_id, path) for path in dict.fromkeys(paths)]
    statements = [
        Statement("UPDATE scan_dirs SET mtime_ns = -1 WHERE library_id = ? AND path = ?", many=chunk)
        for chunk in _chunks(rows)
    ]
    if statements:
        await store.transaction(statements)


async def save_scan_dirs(
    store: Store,
    library_id: str,
    seen: Iterable[tuple[str, str | None, int] | tuple[str, str | None, int, str | None]],
    gone: Iterable[str],
) -> None:
    """Record directory times (path, parent, mtime_ns[, signature]) and forget ``gone`` ones."""
    upserts = [(library_id, *row, None) if len(row) == 3 else (library_id, *row) for row in seen]
    deletes = [(library_id, path) for path in gone]
    statements = [
        Statement(
            "INSERT INTO scan_dirs (library_id, path, parent, mtime_ns, signature) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (library_id, path) DO UPDATE SET parent = excluded.parent, mtime_ns = excluded.mtime_ns,"
            " signature = excluded.signature",
            many=chunk,
        )
        for chunk in _chunks(upserts)
    ]
    statements += [
        Statement("DELETE FROM scan_dirs WHERE library_id = ? AND path = ?", many=chunk) for chunk in _chunks(deletes)
    ]
    if statements:
        await store.transaction(statements)


# -- media info ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PendingSource:
    source_id: str
    item_id: str
    path: str


@dataclass(frozen=True, slots=True)
class ProbeOutcomeRow:
    """One probe's outcome: a result, or a failure (and the file stays indexed)."""

    source: PendingSource
    probed_at_ms: int
    result: ProbeResult | None = None
    failure: ProbeFailure | None = None


async def pending_probe_sources(store: Store, library_id: str, *, limit: int | None = None) -> list[PendingSource]:
    """Local sources of present items marked for probing, by path."""
    sql = (
        "SELECT s.id, s.item_id, s.path FROM media_sources s JOIN items i ON i.id = s.item_id"
        " WHERE i.library_id = ? AND i.probe_pending = 1 AND i.missing = 0 AND s.remote = 0"
        " ORDER BY s.path"
    )
    params: tuple[object, ...] = (library_id,)
    if limit is not None:
        sql += " LIMIT ?"
        params += (limit,)
    rows = await store.fetch_all(sql, params)
    return [PendingSource(r[0], r[1], r[2]) for r in rows]


async def count_probe_pending(store: Store, library_id: str) -> int:
    value = await store.fetch_value(
        "SELECT COUNT(*) FROM media_sources s JOIN items i ON i.id = s.item_id"
        " WHERE i.library_id = ? AND i.probe_pending = 1 AND i.missing = 0 AND s.remote = 0",
        (library_id,),
    )
    return int(value or 0)


_STREAM_COLUMNS = (
    "source_id, idx, is_external, type, codec, language, title, width, height, bitrate, channels,"
    " channel_layout, sample_rate, is_default, is_forced, color_transfer, hdr_format"
)


async def save_probe_results(store: Store, outcomes: Sequence[ProbeOutcomeRow]) -> None:
    """Write media info (or the failure) and clear the items' pending mark.

    The item's runtime is set from the probe only when it is unknown.
    """
    found = [o for o in outcomes if o.result is not None]
    failed = [o for o in outcomes if o.result is None]
    statements = [
        Statement(
            "UPDATE media_sources SET container = ?, size = COALESCE(?, size), bitrate = ?, runtime_ticks = ?,"
            " probe_failure = NULL, probed_at = ? WHERE id = ?",
            many=[_source_row(o) for o in found],
        ),
        Statement(
            "DELETE FROM media_streams WHERE source_id = ? AND is_external = 0",
            many=[(o.source.source_id,) for o in found],
        ),
        Statement(
            f"INSERT INTO media_streams ({_STREAM_COLUMNS}) VALUES ({', '.join('?' * 17)})",
            many=[row for o in found for row in _stream_rows(o)],
        ),
        Statement(
            "UPDATE items SET runtime_ticks = COALESCE(runtime_ticks, ?), probe_pending = 0 WHERE id = ?",
            many=[(o.result.runtime_ticks if o.result else None, o.source.item_id) for o in found],
        ),
        Statement(
            "UPDATE media_sources SET probe_failure = ?, probed_at = ?, runtime_ticks = 0 WHERE id = ?",
            many=[(str(o.failure or ProbeFailure.UNKNOWN), o.probed_at_ms, o.source.source_id) for o in failed],
        ),
        Statement("UPDATE items SET probe_pending = 0 WHERE id = ?", many=[(o.source.item_id,) for o in failed]),
    ]
    statements = [s for s in statements if s.many]
    if statements:
        await store.transaction(statements)


def _source_row(outcome: ProbeOutcomeRow) -> tuple[object, ...]:
    result = outcome.result
    assert result is not None
    return (
        result.container, result.size, result.bitrate or 0, result.runtime_ticks,
        outcome.probed_at_ms, outcome.source.source_id,
    )  # fmt: skip


def _stream_rows(outcome: ProbeOutcomeRow) -> list[tuple[object, ...]]:
    assert outcome.result is not None
    return [
        (
            outcome.source.source_id, s.index, 0, s.type.value, s.codec, s.language, s.title,
            s.width, s.height, s.bitrate, s.channels, s.channel_layout, s.sample_rate,
            int(s.is_default), int(s.is_forced), s.color_transfer,
            s.dynamic_range.value if s.dynamic_range is not None else None,
        )
        for s in outcome.result.streams
    ]


def _chunks(rows: Sequence[tuple[object, ...]]) -> list[list[tuple[object, ...]]]:
    return [list(rows[i : i + CHUNK_ROWS]) for i in range(0, len(rows), CHUNK_ROWS)]
