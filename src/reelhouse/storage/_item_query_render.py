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
"""The columns of ``items i`` that :func:`summaries` reads."""


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
    item_type = row["type"]
    tag = extras.image_tags.get(row["id"])
    index = row["index_number"]
    if index is None and row["extra_type"] == "AdditionalPart":
        index = row["part_number"]
    return ItemSummary(
        id=row["id"],
        name=row["name"],
        sort_name=row["sort_name"],
        library_id=row["library_id"],
        type=item_type,
        date_created_ms=row["date_created"],
        has_poster=tag is not None,
        locked=bool(row["lock_data"]) or bool(_json_list(row["locked_fields"])),
        missing=bool(row["missing"]),
        scrape_state=row["scrape_state"],
        image_tag=tag,
        community_rating=row["community_rating"],
        extra_type=row["extra_type"],
        index_number=index,
        parent_index_number=row["parent_index_number"] if item_type == "Episode" else None,
        merged_into=row["merged_into"],
        original_language=row["original_language"] or None,
        original_title=row["original_title"] or None,
        product_code=row["product_code"] or None,
        production_year=row["production_year"],
        runtime_ticks=row["runtime_ticks"],
        season_id=row["season_id"] if item_type == "Episode" else None,
        series_id=row["series_id"] if item_type in ("Episode", "Season") else None,
        version_member_count=extras.version_counts.get(row["id"]) if row["version_of"] is None else None,
        version_of=row["version_of"],
    )


def _json_list(text: str | None) -> list[Any]:
    if not text or text == "[]":
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return value if isinstance(value, list) else []
