"""ItemSummary: the list view of an item, read from the rows of one query.

Private to :mod:`reelhouse.storage.item_query`, which re-exports
:class:`ItemSummary`, :data:`SUMMARY_COLUMNS`, :data:`PAGE_EXTRAS` and
:func:`summary_of`; :mod:`reelhouse.storage.item_detail` uses them for the
item, its extras and its parts. Select ``SUMMARY_COLUMNS + PAGE_EXTRAS``
from ``items i`` (then any other columns) and hand each row to
:func:`summary_of`: the poster tag and version count are subqueries in the
select list, so select them only for the rows of a page (after its LIMIT),
never for every row a query looks at.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from reelhouse.timefmt import rfc3339_ms

from .._store import Row

SUMMARY_COLUMNS = (
    "i.id, i.library_id, i.type, i.name, i.sort_name, i.date_created, i.community_rating,"
    " i.extra_type, i.index_number, i.parent_index_number, i.part_number, i.lock_data,"
    " i.locked_fields, i.merged_into, i.missing, i.original_language, i.original_title,"
    " i.product_code, i.production_year, i.runtime_ticks, i.scrape_state, i.season_id,"
    " i.series_id, i.version_of"
)
"""The columns of ``items i`` that :func:`summary_of` reads, first in every row, in this order."""
_SUMMARY_WIDTH = SUMMARY_COLUMNS.count(",") + 1
PAGE_EXTRAS = (
    ", (SELECT im.tag FROM images im WHERE im.item_id = i.id AND im.kind = 'primary' ORDER BY im.idx LIMIT 1)"
    " AS primary_tag, CASE WHEN i.version_of IS NULL THEN"
    " (SELECT count(*) FROM items v WHERE v.version_of = i.id AND v.missing = 0) END AS version_count"
)
"""Columns to select right after :data:`SUMMARY_COLUMNS` (only on a page's rows,
they are subqueries): the primary image tag and the version-member count."""
NAME_EXTRAS = (
    ", (SELECT s.name FROM items s WHERE s.id = i.series_id) AS series_name,"
    " (SELECT s.name FROM items s WHERE s.id = i.season_id) AS season_name"
)
"""Optional, right after :data:`PAGE_EXTRAS`: the names of an episode's series and season
(:func:`names_of_row`), for lists that show them (a player's resume and next-up lists)."""


# Not frozen: a page builds one per row, and a frozen dataclass sets each of
# its 25 fields through object.__setattr__ (4.4 µs an instance against 0.7).
@dataclass(slots=True)
class ItemSummary:
    """One item as lists show it. Optional fields are None when omitted."""

    id: str
    name: str
    sort_name: str
    library_id: str
    type: str
    date_created_ms: int
    has_poster: bool
    locked: bool
    missing: bool
    scrape_state: str
    image_tag: str | None = None
    community_rating: float | None = None
    extra_type: str | None = None
    index_number: int | None = None
    parent_index_number: int | None = None
    merged_into: str | None = None
    original_language: str | None = None
    original_title: str | None = None
    product_code: str | None = None
    production_year: int | None = None
    runtime_ticks: int | None = None
    season_id: str | None = None
    series_id: str | None = None
    version_member_count: int | None = None
    version_of: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The reference's ItemSummary: camelCase, omitted fields absent."""
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "sortName": self.sort_name,
            "libraryId": self.library_id,
            "type": self.type,
            "dateCreated": rfc3339_ms(self.date_created_ms),
            "hasPoster": self.has_poster,
            "locked": self.locked,
            "missing": self.missing,
            "scrapeState": self.scrape_state,
        }
        for key, value in (
            ("imageTag", self.image_tag),
            ("communityRating", self.community_rating),
            ("extraType", self.extra_type),
            ("indexNumber", self.index_number),
            ("parentIndexNumber", self.parent_index_number),
            ("mergedInto", self.merged_into),
            ("originalLanguage", self.original_language),
            ("originalTitle", self.original_title),
            ("productCode", self.product_code),
            ("productionYear", self.production_year),
            ("runtimeTicks", self.runtime_ticks),
            ("seasonId", self.season_id),
            ("seriesId", self.series_id),
            ("versionMemberCount", self.version_member_count),
            ("versionOf", self.version_of),
        ):
            if value is not None:
                data[key] = value
        return data


def summary_of(row: Row) -> ItemSummary:
    """The summary of a row whose first columns are :data:`SUMMARY_COLUMNS` then :data:`PAGE_EXTRAS`."""
    # Unpacked by position: a name lookup on a sqlite3.Row is a linear search.
    values = tuple(row)
    (
        item_id, library_id, item_type, name, sort_name, date_created, community_rating, extra_type,
        index_number, parent_index_number, part_number, lock_data, locked_fields, merged_into, missing,
        original_language, original_title, product_code, production_year, runtime_ticks, scrape_state,
        season_id, series_id, version_of,
    ) = values[:_SUMMARY_WIDTH]  # fmt: skip
    tag, count = values[_SUMMARY_WIDTH], values[_SUMMARY_WIDTH + 1]
    if index_number is None and extra_type == "AdditionalPart":
        index_number = part_number
    return ItemSummary(
        id=item_id,
        name=name,
        sort_name=sort_name,
        library_id=library_id,
        type=item_type,
        date_created_ms=date_created,
        has_poster=tag is not None,
        locked=bool(lock_data) or bool(_json_list(locked_fields)),
        missing=bool(missing),
        scrape_state=scrape_state,
        image_tag=tag,
        community_rating=community_rating,
        extra_type=extra_type,
        index_number=index_number,
        parent_index_number=parent_index_number if item_type == "Episode" else None,
        merged_into=merged_into,
        original_language=original_language or None,
        original_title=original_title or None,
        product_code=product_code or None,
        production_year=production_year,
        runtime_ticks=runtime_ticks,
        season_id=season_id if item_type == "Episode" else None,
        series_id=series_id if item_type in ("Episode", "Season") else None,
        version_member_count=int(count) if count and version_of is None else None,
        version_of=version_of,
    )


def names_of_row(row: Row) -> dict[str, str]:
    """Series and season names by id, from a row that selected :data:`NAME_EXTRAS` after :data:`PAGE_EXTRAS`."""
    values = tuple(row)
    series_id, season_id = values[_SUMMARY_WIDTH - 2], values[_SUMMARY_WIDTH - 3]
    series_name, season_name = values[_SUMMARY_WIDTH + 2], values[_SUMMARY_WIDTH + 3]
    names = {}
    if series_id and series_name is not None:
        names[series_id] = series_name
    if season_id and season_name is not None:
        names[season_id] = season_name
    return names


def _json_list(text: str | None) -> list[Any]:
    if not text or text == "[]":
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return value if isinstance(value, list) else []
