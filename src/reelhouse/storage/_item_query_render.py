"""ItemSummary: the list view of an item, read from rows in one batched query.

Private to :mod:`reelhouse.storage.item_query` (which re-exports
:class:`ItemSummary` and :func:`summaries`); :mod:`reelhouse.storage.item_detail`
uses it for extras and parts. A page's rows come from one query selecting
:data:`SUMMARY_COLUMNS`; their primary image tags and version-member
counts from one more (:func:`summaries`), never one query per row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reelhouse.timefmt import rfc3339_ms

from ._store import Row, Store

SUMMARY_COLUMNS = (
    "i.id, i.library_id, i.type, i.name, i.sort_name, i.date_created, i.community_rating,"
    " i.extra_type, i.index_number, i.parent_index_number, i.part_number, i.lock_data,"
    " i.locked_fields, i.merged_into, i.missing, i.original_language, i.original_title,"
    " i.product_code, i.production_year, i.runtime_ticks, i.scrape_state, i.season_id,"
    " i.series_id, i.version_of"
)
"""The columns of ``items i`` that :func:`summaries` reads, first in every row it is given, in this order."""
_SUMMARY_WIDTH = SUMMARY_COLUMNS.count(",") + 1


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class PageExtras:
    """What the batched query found for a page: primary image tags, version counts."""

    image_tags: Mapping[str, str]
    version_counts: Mapping[str, int]


async def summaries(store: Store, rows: Sequence[Row]) -> list[ItemSummary]:
    """ItemSummary of each row (rows carry :data:`SUMMARY_COLUMNS`), in order."""
    extras = await page_extras(store, [row["id"] for row in rows])
    return [summary_of(row, extras) for row in rows]


async def page_extras(store: Store, ids: Sequence[str]) -> PageExtras:
    """Primary image tags and version-member counts of ``ids``, in one query."""
    if not ids:
        return PageExtras({}, {})
    marks = ", ".join("?" for _ in ids)
    rows = await store.fetch_all(
        "SELECT 'i' AS k, im.item_id AS id, im.tag AS tag, CAST(im.idx AS BIGINT) AS n FROM images im"
        f" WHERE im.kind = 'primary' AND im.item_id IN ({marks})"
        " UNION ALL"
        " SELECT 'v' AS k, v.version_of AS id, NULL AS tag, count(*) AS n FROM items v"
        f" WHERE v.version_of IN ({marks}) AND v.missing = 0 GROUP BY v.version_of",
        (*ids, *ids),
    )
    tags: dict[str, tuple[int, str]] = {}
    counts: dict[str, int] = {}
    for row in rows:
        if row["k"] == "v":
            counts[row["id"]] = int(row["n"])
        elif row["id"] not in tags or row["n"] < tags[row["id"]][0]:
            tags[row["id"]] = (int(row["n"]), row["tag"])
    return PageExtras({item: tag for item, (_, tag) in tags.items()}, counts)


def summary_of(row: Row, extras: PageExtras) -> ItemSummary:
    """The summary of a row whose first columns are :data:`SUMMARY_COLUMNS`."""
    # Unpacked by position: a name lookup on a sqlite3.Row is a linear search.
    (
        item_id, library_id, item_type, name, sort_name, date_created, community_rating, extra_type,
        index_number, parent_index_number, part_number, lock_data, locked_fields, merged_into, missing,
        original_language, original_title, product_code, production_year, runtime_ticks, scrape_state,
        season_id, series_id, version_of,
    ) = tuple(row)[:_SUMMARY_WIDTH]  # fmt: skip
    tag = extras.image_tags.get(item_id)
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
        version_member_count=extras.version_counts.get(item_id) if version_of is None else None,
        version_of=version_of,
    )


def _json_list(text: str | None) -> list[Any]:
    if not text or text == "[]":
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return value if isinstance(value, list) else []
