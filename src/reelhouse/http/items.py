"""Item queries: GET /items (filtered, sorted, keyset-paged) and GET /items/{id}.

Both read the store directly (queries never queue behind actors). The
pydantic models here only document the responses in the OpenAPI
description; the storage layer renders the JSON (``ItemPage.to_json``,
``item_detail``), so a page is not validated twice.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any, Literal

from pydantic import Field, create_model
from quart import Blueprint, request
from quart_schema import document_querystring, document_response

from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_detail import item_detail
from reelhouse.storage.item_query import list_items, parse_item_query

from .context import app_context
from .library_access import require_item_visible, scoped_item_query
from .openapi import may_answer
from .schema import ApiModel

blueprint = Blueprint("items", __name__)


@functools.lru_cache(maxsize=4)
@functools.lru_cache(maxsize=4)
def cursor_codec(secret: bytes) -> CursorCodec:
    """The codec signing item cursors, keyed by the server's private cursor secret.

    Cursors stay valid across restarts of one server and are refused by
    another server; the key is never shown (unlike the public server id).
    Made once per secret (it holds no state between calls): every page asks.
    """
    return CursorCodec(hashlib.sha256(b"reelhouse-item-cursor:" + secret).digest())


# -- documentation models ----------------------------------------------------------


class ItemSummary(ApiModel):
    id: str
    name: str
    sort_name: str
    library_id: str
    type: Literal["Movie", "Series", "Season", "Episode", "Folder", "BoxSet", "Video"]
    date_created: str
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
    season_id: str | None = Field(None, description="Episodes inside a season only.")
    series_id: str | None = None
    version_member_count: int | None = Field(None, description="On the primary of a version group.")
    version_of: str | None = Field(None, description="On a member of a version group: its primary.")


class CursorPageItemSummary(ApiModel):
    items: list[ItemSummary]
    next_cursor: str | None = Field(None, description="Absent on the last page.")
    total_count: int | None = Field(None, description="Only with includeTotal=true.")


class MediaStream(ApiModel):
    index: int
    type: Literal["Video", "Audio", "Subtitle"]
    codec: str
    bitrate: int | None = None
    channels: int | None = None
    channel_layout: str | None = None
    sample_rate: int | None = None
    width: int | None = None
    height: int | None = None
    language: str | None = None
    title: str | None = None
    external_path: str | None = None
    resolution_name: str | None = None
    is_default: bool = False
    is_external: bool = False
    is_forced: bool = False


class MediaSource(ApiModel):
    id: str
    item_id: str
    name: str
    path: str
    container: str
    size: int
    bitrate: int
    missing: bool = False
    probe_failure: str | None = None
    streams: list[MediaStream]


class PersonCredit(ApiModel):
    id: str
    name: str
    role: str
    kind: str
    order: int | None = None
    image_tag: str | None = None


class ImageDetail(ApiModel):
    kind: str
    index: int
    tag: str
    width: int | None = None
    height: int | None = None
    crop: dict[str, float] | None = None
    crop_hint: dict[str, float] | None = None
    crop_manual: bool | None = None
    effective_crop: dict[str, float] | None = None
    focus: dict[str, float] | None = None


class MetadataState(ApiModel):
    lock_data: bool
    locked_fields: list[str]
    provider: str | None = None
    provider_item_id: str | None = None
    scrape_error: str | None = None
    scraped_at: str | None = None
    date_saved: str | None = None


class ItemDetail(ItemSummary):
    genres: list[str]
    studios: list[str]
    tags: list[str]
    extras: list[ItemSummary]
    parts: list[ItemSummary]
    people: list[PersonCredit]
    media_sources: list[MediaSource]
    images: dict[str, str]
    image_details: list[ImageDetail]
    stills: list[dict[str, Any]]
    metadata_state: MetadataState
    attributes: list[dict[str, str]] | None = None
    overview: str | None = None
    tagline: str | None = None
    official_rating: str | None = None
    premiere_date: str | None = None
    end_date: str | None = None
    series_name: str | None = None
    season_name: str | None = None
    provider_ids: dict[str, str] | None = None
    ratings: list[dict[str, Any]] | None = None
    remote_trailers: list[dict[str, Any]] | None = None
    recognized_tags: list[str] | None = None
    production_locations: list[str] | None = None
    subtitle_downloadable: bool | None = None
    subtitle_download_blocked_reason: str | None = None


_REPEATED = list[str]
ItemsQuery = create_model(  # type: ignore[call-overload]
    "ItemsQuery",
    __base__=ApiModel,
    **{
        name: (kind | None, Field(None, alias=name, description=text))
        for name, kind, text in (
            ("libraryId", str, "Restrict to a library (404 when unknown)."),
            ("parentId", str, "Direct children of this item (or library); 404 when unknown."),
            ("recursive", bool, "All descendants of the libraries or of parentId."),
            ("type", _REPEATED, "ItemType, repeatable."), ("excludeType", _REPEATED, "ItemType, repeatable."),
            ("genreId", _REPEATED, "Genre name, case-insensitive; any of."),
            ("studioId", _REPEATED, "Studio name; any of."), ("tagId", _REPEATED, "Tag name; any of."),
            ("year", list[int], "Any of these years."), ("yearFrom", int, "1 to 3000."),
            ("yearTo", int, "1 to 3000, at most 300 after yearFrom."),
            ("minRating", float, "0 to 10."), ("officialRating", _REPEATED, "Labels, case-insensitive."),
            ("minOfficialRating", str, "By rating level."), ("maxOfficialRating", str, "By rating level."),
            ("hasSubtitles", bool, None), ("resolutions", _REPEATED, "sd, hd, 4k."),
            ("dynamicRanges", _REPEATED, "sdr, hdr10, hlg, dolbyVision."),
            ("containers", _REPEATED, None), ("videoCodecs", _REPEATED, None), ("audioCodecs", _REPEATED, None),
            ("subtitleCodecs", _REPEATED, "srt=subrip, vtt=webvtt, pgs=hdmv_pgs_subtitle."),
            ("subtitleLanguages", _REPEATED, "ISO 639-2/B or BCP 47."), ("hasSpecialFeature", bool, None),
            ("nameFrom", str, None), ("nameBefore", str, None), ("initial", str, "A-Z or #."),
            ("nameStartsWith", str, None), ("personId", _REPEATED, None), ("personMatch", str, "any or all."),
            ("personRole", _REPEATED, "PersonKind."), ("favoritePeople", bool, None),
            ("ids", str, "Comma-separated, at most 200."), ("isPlayed", bool, None), ("isFavorite", bool, None),
            ("neverPlayed", bool, None), ("hasOverview", bool, None),
            ("q", str, "Substring of name or original title, case- and accent-insensitive."),
            ("missing", bool, None), ("hasPrimaryImage", bool, None), ("hasRemoteSource", bool, None),
            ("probePending", bool, None), ("imageKinds", _REPEATED, "ImageKind, all of."),
            ("attention", _REPEATED, "ItemAttention, any of."), ("scrapeState", _REPEATED, "ScrapeState, any of."),
            ("card", str, "ItemAttention; overrides type, excludeType, scrapeState, hasPrimaryImage, probePending."),
            ("sort", str, "ItemSort."), ("order", str, "asc or desc."), ("limit", int, "1 to 200, default 40."),
            ("offset", int, "Ignored with a cursor."), ("cursor", str, None), ("includeTotal", bool, None),
        )
    },
)


# -- routes -------------------------------------------------------------------------


@blueprint.get("/items")
@document_querystring(ItemsQuery)
@document_response(CursorPageItemSummary)
@may_answer((404, "No library libraryId, or no item or library parentId."))
async def get_items() -> dict[str, Any]:
    """List items with filters, a sort and keyset paging.

    Scope: without parentId and recursive, the top level of the libraries
    (items without a parent: movies, series, folders, box sets); parentId (an
    item, or a library) lists its direct children (a series: its seasons and the episodes directly
    under it; a season: its episodes); recursive=true lists every descendant
    of the libraries or of parentId; ids lists exactly those items and ignores
    parentId and recursive. Extras and additional parts appear only through
    ids, or through parentId of their owner together with type=Video. Missing
    items appear only with missing=true (then only they) or the missing
    attention state. Versions and merged series are not collapsed.

    User state: a player's device token reads the member's watch state
    (GET /me/resume): isPlayed, isFavorite and neverPlayed (never played,
    not even once before an unmark) filter on it, a series or season being
    played when all its episodes are; the sorts played and favorite put
    true first ascending, datePlayed (a series or season: its latest
    episode's) puts missing dates last, playCount counts missing as 0,
    seriesDatePlayed is a series' latest played episode (missing for other
    items). No person is a favourite yet: favoritePeople=true matches
    nothing. An API key acts as an administrator with no user behind it, so
    nothing is played or a favourite: isPlayed=true, isFavorite=true and
    favoritePeople=true match nothing, false matches everything;
    neverPlayed=true matches everything and neverPlayed=false nothing. The
    sorts datePlayed, playCount, played, favorite and seriesDatePlayed then
    give every item the same value, so they order by name.

    Media filters and the size, container and resolution sorts use the primary
    version: the item's first media source; resolution and dynamic range its
    first video stream (sd < 1200 <= hd < 3200 <= 4k wide). Attention states:
    needsIdentify, scrapeFailed, scrapePending (scrape state), noPoster (no
    primary image), unprobed (probe pending), missing (file missing),
    scrapeNotQueued (a movie or series without NFO never queued for scraping).
    card lists one attention state across the whole library (recursively).

    Sorting: missing dates and years last in both orders, other missing values
    lowest; ties by sort name then id, in the same order. Names compare
    case- and accent-insensitively (Latin, Greek and Cyrillic letters as
    their lower-case base letter: Émile sorts among the e's and initial=E
    finds it); nameFrom, nameBefore and nameStartsWith compare the same way.
    index sorts episodes by season then episode number; childCount counts the
    children parentId would list; officialRating sorts by rating level;
    studio by the first studio; productCode by the code lower-cased without
    spaces, hyphens and underscores; with type=BoxSet alone, dateAdded is
    the newest member's; random shuffles once per walk (the order is kept by
    the cursor). Name and dateAdded follow an index for the top
    level, a library, a parent, a type or everything, so any page is quick;
    the other sorts read every item in scope before the first page.

    Paging: limit 1 to 200 (default 40; more is 400). Send nextCursor back
    as cursor with the same filters, sort and order (otherwise 400 with
    field cursor); the last page has no nextCursor. A walk never repeats or
    skips an item, even while items are added. includeTotal adds totalCount.
    Booleans are true or false; an unknown enum value, a malformed value or an
    out-of-range number is 400 field_invalid naming the parameter.
    """
    query = await scoped_item_query(parse_item_query(request.args.to_dict(flat=False)))
    ctx = app_context()
    page = await list_items(ctx.store, query, cursor_codec(ctx.cursor_secret))
    return page.to_json()


@blueprint.get("/items/<item_id>")
@document_response(ItemDetail)
async def get_item(item_id: str) -> dict[str, Any]:
    """One item in full; 404 not_found when there is no such item.

    genres, studios and tags are always arrays; extras (by index) and parts
    (by part number) leave out missing ones; imageDetails are ordered by kind
    and index and carry their kind; ratings are omitted when there are none;
    providerIds are keyed by lowercase provider name. subtitleDownloadable is
    present for movies and episodes only, false with reason no_provider while
    no subtitle provider is installed.
    """
    await require_item_visible(item_id)
    return await item_detail(app_context().store, item_id)
