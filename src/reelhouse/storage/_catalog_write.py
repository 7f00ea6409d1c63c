"""The scanner's batch write: one transaction of item records and scan errors.

Private to ``reelhouse.storage.catalog``. Statements run in foreign-key
order (people, items, their values, credits, images, sources, streams);
every row list goes through one ``executemany``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reelhouse.media.assembly import ItemRecord, item_id

from ._facets import new_item_facets
from ._name_key import name_key
from ._store import Params, Statement

# Columns the scanner owns on every rewrite.
_STRUCTURE = (
    "type", "parent_id", "series_id", "season_id", "owner_id", "extra_type", "part_number",
    "version_of", "path", "dir_path", "date_modified", "file_size", "file_mtime", "nfo_mtime",
    "scan_hash",
)  # fmt: skip
# Columns an NFO provides: replaced only when this write carries NFO data
# (has_nfo = 1), else the stored values (maybe from a provider) are kept.
_METADATA = (
    "name", "sort_name", "name_key", "original_title", "production_year", "premiere_date", "end_date",
    "community_rating", "critic_rating", "official_rating", "overview", "tagline",
    "lock_data", "provider_ids", "extra", "has_nfo",
)  # fmt: skip
_NUMBERS = ("index_number", "index_number_end", "parent_index_number")


def _nfo_value(column: str) -> str:
    """A metadata column's value when the NFO rewrites it: the NFO's, but
    ``extra`` keeps the server's scrape record (storage/_scrape_record)."""
    if column == "extra":
        return "reelhouse_keep_scrape_record(excluded.extra, items.extra)"
    return f"excluded.{column}"


ITEM_COLUMNS = (
    "id", "library_id", *_STRUCTURE, *_METADATA, *_NUMBERS,
    "runtime_ticks", "date_created", "missing", "missing_since", "probe_pending",
    "facets", "primary_image",  # as a new item's (._facets); a rewrite leaves them to the triggers
)  # fmt: skip

_ITEM_UPSERT = (
    f"INSERT INTO items ({', '.join(ITEM_COLUMNS)}) VALUES ({', '.join('?' * len(ITEM_COLUMNS))})"
    " ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(
        [f"{c} = excluded.{c}" for c in _STRUCTURE]
        + [f"{c} = CASE WHEN excluded.has_nfo = 1 THEN {_nfo_value(c)} ELSE items.{c} END" for c in _METADATA]
        + [f"{c} = COALESCE(excluded.{c}, items.{c})" for c in _NUMBERS]
        + [
            "runtime_ticks = COALESCE(items.runtime_ticks, excluded.runtime_ticks)",
            "missing = 0",
            "missing_since = NULL",
            "probe_pending = CASE WHEN excluded.probe_pending = 1 THEN 1 ELSE items.probe_pending END",
        ]
    )
)
_PERSON_INSERT = (
    "INSERT INTO people (id, name, sort_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (id) DO NOTHING"
)
_VALUES_DELETE = "DELETE FROM item_values WHERE item_id = ?"
_VALUES_INSERT = "INSERT INTO item_values (item_id, kind, value, position) VALUES (?, ?, ?, ?)"
_CREDITS_DELETE = "DELETE FROM credits WHERE item_id = ?"
_CREDITS_INSERT = "INSERT INTO credits (item_id, person_id, kind, role, sort_order) VALUES (?, ?, ?, ?, ?)"
_IMAGES_DELETE = "DELETE FROM images WHERE item_id = ? AND source = 'local'"
_IMAGES_UPSERT = (
    "INSERT INTO images (item_id, kind, idx, path, tag, width, height, size, mtime, source)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'local')"
    " ON CONFLICT (item_id, kind, idx) DO UPDATE SET path = excluded.path, tag = excluded.tag,"
    " width = excluded.width, height = excluded.height, size = excluded.size,"
    " mtime = excluded.mtime, source = 'local', extra = '{}'"
)
_SOURCE_UPSERT = (
    "INSERT INTO media_sources (id, item_id, path, container, size, mtime, remote, missing, position)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0)"
    " ON CONFLICT (id) DO UPDATE SET item_id = excluded.item_id, path = excluded.path,"
    " size = excluded.size, mtime = excluded.mtime, remote = excluded.remote, missing = 0"
)
# A changed file's media info is stale: back to the extension's container.
_SOURCE_RESET = (
    "UPDATE media_sources SET container = ?, bitrate = 0, runtime_ticks = NULL,"
    " probe_failure = NULL, probed_at = NULL WHERE id = ?"
)
_EMBEDDED_DELETE = "DELETE FROM media_streams WHERE source_id = ? AND is_external = 0"
_EXTERNAL_DELETE = "DELETE FROM media_streams WHERE source_id = ? AND is_external = 1"
_EXTERNAL_INSERT = (
    "INSERT INTO media_streams (source_id, idx, is_external, type, codec, language, title,"
    " is_default, is_forced, external_path) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?)"
)
_ERRORS_DELETE = "DELETE FROM scan_errors WHERE library_id = ? AND path = ?"
_ERRORS_INSERT = "INSERT INTO scan_errors (library_id, path, error, occurred_at) VALUES (?, ?, ?, ?)"


@dataclass(frozen=True, slots=True)
class ScanErrorRow:
    """A file or directory that could not be scanned."""

    path: str
    error: str


def batch_statements(
    library_id: str,
    records: Sequence[ItemRecord],
    errors: Sequence[ScanErrorRow],
    *,
    cleared: Sequence[str] = (),
    now_ms: int,
) -> list[Statement]:
    """The statements writing ``records`` (in the order given: parents
    first) and ``errors``, replacing earlier errors of the same paths and
    dropping those of ``cleared`` paths."""
    rows = _Rows(library_id, now_ms)
    for record in records:
        rows.add(record)
    rows.errors_delete.extend((library_id, path) for path in cleared)
    for error in errors:
        rows.errors_delete.append((library_id, error.path))
        rows.errors.append((library_id, error.path, error.error, now_ms))
    return rows.statements()


class _Rows:
    """Parameter rows per statement, collected record by record."""

    def __init__(self, library_id: str, now_ms: int) -> None:
        self.library_id = library_id
        self.now = now_ms
        self.people: dict[str, Params] = {}
        self.items: list[Params] = []
        self.meta_ids: list[Params] = []
        self.values: list[Params] = []
        self.credits: list[Params] = []
        self.image_ids: list[Params] = []
        self.images: list[Params] = []
        self.sources: list[Params] = []
        self.resets: list[Params] = []
        self.source_ids: list[Params] = []  # changed files: their media info goes
        self.source_ids_old: list[Params] = []  # rewritten sources: external streams go
        self.streams: list[Params] = []
        self.errors_delete: list[Params] = []
        self.errors: list[Params] = []

    def add(self, record: ItemRecord) -> None:
        draft = record.draft
        self.items.append(item_row(self.library_id, record, self.now))
        if not record.is_new:  # a new item has nothing to replace
            self.image_ids.append((draft.id,))
        self.images.extend(
            (draft.id, i.kind, i.index, i.path, i.tag, i.width, i.height, i.size, i.mtime_ms)
            for i in record.images
        )
        if record.meta is not None:
            self._add_meta(record)
        if draft.file is not None and draft.path is not None and not draft.offline:  # `.disc`: nothing to play
            self._add_source(record, source_id(self.library_id, draft.path))

    def _add_meta(self, record: ItemRecord) -> None:
        meta, item = record.meta, record.draft.id
        assert meta is not None
        if not record.is_new:
            self.meta_ids.append((item,))
        self.values.extend((item, kind, value, position) for position, (kind, value) in enumerate(meta.values))
        for credit in meta.credits:
            self.people.setdefault(credit.person_id, (credit.person_id, credit.name, credit.name, self.now, self.now))
            self.credits.append((item, credit.person_id, credit.kind, credit.role, credit.order))

    def _add_source(self, record: ItemRecord, source_id: str) -> None:
        draft = record.draft
        assert draft.file is not None
        path = record.source_path or draft.path
        self.sources.append(
            (source_id, draft.id, path, record.container, draft.file.size, draft.file.mtime_ms, int(draft.strm))
        )
        if not record.is_new:
            self.source_ids_old.append((source_id,))
        if record.file_changed and not record.is_new:
            self.resets.append((record.container, source_id))
            self.source_ids.append((source_id,))
        self.streams.extend(
            (source_id, s.index, s.type, s.codec, s.language, s.title, int(s.is_default), int(s.is_forced), s.path)
            for s in record.streams
        )

    def statements(self) -> list[Statement]:
        plan: list[tuple[str, list[Params]]] = [
            (_PERSON_INSERT, list(self.people.values())),
            (_ITEM_UPSERT, self.items),
            (_VALUES_DELETE, self.meta_ids),
            (_VALUES_INSERT, self.values),
            (_CREDITS_DELETE, self.meta_ids),
            (_CREDITS_INSERT, self.credits),
            (_IMAGES_DELETE, self.image_ids),
            (_IMAGES_UPSERT, self.images),
            (_SOURCE_UPSERT, self.sources),
            (_SOURCE_RESET, self.resets),
            (_EMBEDDED_DELETE, self.source_ids),
            (_EXTERNAL_DELETE, self.source_ids_old),
            (_EXTERNAL_INSERT, self.streams),
            (_ERRORS_DELETE, self.errors_delete),
            (_ERRORS_INSERT, self.errors),
        ]
        return [Statement(sql, many=rows) for sql, rows in plan if rows]


def source_id(library_id: str, path: str) -> str:
    """The id of the media source of the video file at ``path``."""
    return item_id(library_id, "source", path)


def item_row(library_id: str, record: ItemRecord, now_ms: int) -> Params:
    """The ``items`` row of a record, in :data:`ITEM_COLUMNS` order."""
    d, meta = record.draft, record.meta
    file = d.file
    structure = (
        d.type, d.parent_id, d.series_id, d.season_id, d.owner_id, d.extra_type, d.part_number,
        d.version_of, d.path, d.dir_path, now_ms,
        file.size if file else None, file.mtime_ms if file else None,
        d.nfo.mtime_ms if d.nfo else None, record.fingerprint,
    )  # fmt: skip
    if meta is None:
        metadata: tuple[object, ...] = (
            d.name, d.sort_name, name_key(d.sort_name), None, d.production_year, d.premiere_date_ms, None,
            None, None, None, None, None, 0, "{}", "{}", 0,
        )  # fmt: skip
        numbers: tuple[object, ...] = (d.index_number, d.index_number_end, d.parent_index_number)
        runtime = None
    else:
        metadata = (
            meta.name, meta.sort_name, name_key(meta.sort_name), meta.original_title, meta.production_year,
            meta.premiere_date_ms, meta.end_date_ms, meta.community_rating, meta.critic_rating,
            meta.official_rating, meta.overview, meta.tagline, int(meta.lock_data),
            meta.provider_ids, meta.extra, 1,
        )  # fmt: skip
        numbers = (meta.index_number, meta.index_number_end, meta.parent_index_number)
        runtime = meta.runtime_ticks
    facets = new_item_facets(list(meta.values)) if meta is not None else ""
    primary_image = int(any(image.kind == "primary" for image in record.images))
    return (
        d.id, library_id, *structure, *metadata, *numbers, runtime, now_ms, 0, None, int(record.probe),
        facets, primary_image,
    )  # fmt: skip
