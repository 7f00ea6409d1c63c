"""A page of items with their primary files in one read (a DLNA Browse page).

:func:`list_items` reads a page's summaries (25 columns, a signed cursor)
and :func:`~reelhouse.storage.primary_sources.primary_facts` then reads the
page's files in a second read: a DLNA page of 50 films paid for two thread
hops, a summary and a JSON dict per item and a cursor nobody follows.
:func:`list_with_files` reads the same page (the same filters, order and
offset: :func:`build_where`, :func:`sort_plan`) with what DIDL-Lite needs of
each item (title, year, runtime, parents, poster, premiere date) and of its
first present file (path, size, its first video and audio streams' codecs
and size, its external subtitles), and the count when asked, in one read:
rows are one per stream, grouped here.  Given ``after`` (the
keyset position a previous page ended at, :attr:`FilesPage.end`), the page
starts after it instead of skipping ``offset`` rows: the same rows while the
catalogue holds, without walking the index past every row before them (a
television pages forward; the walk to the 4,950th film cost as much as
the rest of the read).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .._store import Row, Store
from ..primary_sources import premiere_day
from ._filters import build_where
from ._model import ItemQuery
from ._query import _labels_in_bounds, _needs_levels, _resolve_scope, rating_levels
from ._sorts import sort_plan

# The first present file's id; its streams a television needs (video, audio, external subtitles).
_FILE_JOINS = (
    " LEFT JOIN media_sources ms ON ms.id = (SELECT m.id FROM media_sources m WHERE m.item_id = i.id"
    " AND m.missing = 0 ORDER BY m.position, m.id LIMIT 1)"
    " LEFT JOIN media_streams st ON st.source_id = ms.id"
    " AND (st.type IN ('Video', 'Audio') OR (st.type = 'Subtitle' AND st.is_external = 1))"
)
_COLUMNS = (
    "i.id, i.library_id, i.type, i.name, i.production_year, i.runtime_ticks, i.season_id, i.series_id,"
    " i.premiere_date, CASE WHEN EXISTS (SELECT 1 FROM images im WHERE im.item_id = i.id AND im.kind = 'primary')"
    " THEN 1 ELSE 0 END, ms.path, ms.size, st.idx, st.type, st.codec, st.width, st.height, t.sv, t.sk"
)


@dataclass(slots=True)
class ItemFiles:
    """An item as a DLNA page shows it, with what it shows of its first present file (``path`` None: none):
    plain values, not the file's streams as ``primary_facts`` shapes them (a dict each, a page of 50 films
    holds 100 of them, read once)."""

    id: str
    library_id: str
    type: str
    name: str
    production_year: int | None
    runtime_ticks: int | None
    season_id: str | None
    series_id: str | None
    has_poster: bool
    premiere_date: str | None = None  # YYYY-MM-DD
    path: str | None = None
    size: int | None = None
    video_codec: str | None = None  # of the first video stream
    width: int | None = None
    height: int | None = None
    audio_codec: str | None = None  # of the first audio stream
    subtitles: list[tuple[int, str | None]] = field(default_factory=list)  # external ones: (index, codec)


@dataclass(frozen=True, slots=True)
class FilesPage:
    items: list[ItemFiles]
    total: int | None  # None unless ``include_total``
    end: tuple[Any, ...] | None  # the keyset position of the last item (None: an empty page)


async def list_with_files(store: Store, query: ItemQuery, after: Sequence[Any] | None = None) -> FilesPage:
    """The page ``query`` asks for (by ``offset``, or after the position ``after``) with each item's file,
    and the count if asked."""
    parent = await _resolve_scope(store, query) if query.parent_id is not None else None
    levels = await rating_levels(store) if _needs_levels(query) else {}
    where = build_where(query, parent, _labels_in_bounds(query, levels), store.backend)
    plan = sort_plan(query, levels, None, store.backend)
    after_sql, after_params = plan.after(after) if after is not None else ("1 = 1", [])
    scoped = f"SELECT i.id, {plan.value_sql} AS sv, i.name_key AS sk FROM items i WHERE {where.sql}"
    if plan.computed:
        with_sql, source = where.with_clause(f"scoped AS MATERIALIZED ({scoped})"), "scoped t"
    else:
        with_sql, source = where.with_clause(), f"({scoped}) t"
    sql = (
        f"{with_sql}SELECT {_COLUMNS} FROM (SELECT t.id, t.sv, t.sk FROM {source} WHERE {after_sql}"
        f" ORDER BY {plan.order_by} LIMIT ? OFFSET ?) t JOIN items i ON i.id = t.id{_FILE_JOINS}"
        f" ORDER BY {plan.order_by}, st.is_external NULLS FIRST, st.idx NULLS FIRST"
    )
    offset = 0 if after is not None else query.offset
    params = [*where.with_params, *plan.value_params, *where.params, *after_params, query.limit, offset]
    reads: list[tuple[str, Any]] = [(sql, params)]
    if query.include_total:
        count = f"{where.with_clause()}SELECT count(*) FROM items i WHERE {where.sql}"
        reads.append((count, [*where.with_params, *where.params]))
    answers = await store.fetch_each(reads)
    rows = answers[0]
    items = _grouped(rows)
    if not items and query.library_id is not None and parent is None:
        await _resolve_scope(store, query)  # an empty page: is the library there at all?
    end = None if not rows else _position(rows[-1], plan.by_name)
    return FilesPage(items, int(answers[1][0][0]) if query.include_total else None, end)


def _position(row: Row, by_name: bool) -> tuple[Any, ...]:
    """The keyset position of a row (:meth:`SortPlan.key_of`: name key and id, after the value unless by name)."""
    item_id, value, name_key = row[0], row[-2], row[-1]
    return (name_key, item_id) if by_name else (value, name_key, item_id)


def _grouped(rows: list[Row]) -> list[ItemFiles]:
    """One :class:`ItemFiles` per item (its rows are adjacent: one per stream, external subtitles last), in order."""
    items: list[ItemFiles] = []
    current: ItemFiles | None = None
    video = audio = False  # the current item's first video and audio stream seen
    for row in rows:
        (item_id, library_id, kind, name, year, runtime, season_id, series_id, premiere, poster, path, size,
         idx, stream_type, codec, width, height, _, _) = tuple(row)  # fmt: skip
        if current is None or current.id != item_id:
            current = ItemFiles(item_id, library_id, kind, name, year, runtime,
                                season_id if kind == "Episode" else None,
                                series_id if kind in ("Episode", "Season") else None, bool(poster),
                                premiere_day(premiere), path, size if path is not None else None)  # fmt: skip
            items.append(current)
            video = audio = False
        if path is None or stream_type is None:
            continue
        if stream_type == "Video" and not video:
            current.video_codec, current.width, current.height, video = codec, width, height, True
        elif stream_type == "Audio" and not audio:
            current.audio_codec, audio = codec, True
        elif stream_type == "Subtitle":  # (the join keeps external ones only)
            current.subtitles.append((idx, codec))
    return items
