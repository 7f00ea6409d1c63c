"""BaseItemDto: an item as Jellyfin's clients parse it, rendered from our item JSON.

The input is the native API's rendering (``ItemSummary`` from a page, or
``ItemDetail``): one source of truth for what an item is, translated here
into Jellyfin's PascalCase shape.  Ids become GUIDs (:mod:`.ids`); dates
stay RFC 3339 UTC (Jellyfin's clients parse ISO 8601); runtimes are
already ticks (100 ns).  Fields a typed client requires are always
present (``Id``, ``Name``, ``ServerId``, ``Type``, ``IsFolder``,
``ImageTags``, ``BackdropImageTags`` unless ``EnableImages=false``,
``UserData`` unless ``EnableUserData=false``: :mod:`.dto_options`); the
rest only when we know them.  Image tags are signed (:mod:`.image_tags`):
a tag opens its image without a token.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reelhouse.storage.item_query import ItemSummary
from reelhouse.timefmt import rfc3339_ms

from . import ids
from .dto_media import media_source, media_streams
from .image_tags import TagSigner

FOLDER_TYPES = frozenset({"Series", "Season", "Folder", "BoxSet", "CollectionFolder"})
VIDEO_TYPES = frozenset({"Movie", "Episode", "Video"})
# Our image kinds -> Jellyfin's ImageType (backdrops are a list of their own).
IMAGE_TYPES = {"primary": "Primary", "logo": "Logo", "thumb": "Thumb", "banner": "Banner", "art": "Art",
               "disc": "Disc"}  # fmt: skip
PROVIDER_NAMES = {"tmdb": "Tmdb", "imdb": "Imdb", "tvdb": "Tvdb", "tvmaze": "TvMaze",
                  "tmdbcollection": "TmdbCollection"}  # fmt: skip
PERSON_TYPES = {"Actor": "Actor", "Director": "Director", "Writer": "Writer", "Producer": "Producer",
                "GuestStar": "GuestStar", "Composer": "Composer"}  # fmt: skip


def item_dto(item: Mapping[str, Any], server_id: str, user_data: Mapping[str, Any] | None = None,
             names: Mapping[str, str] | None = None, *, tags: TagSigner) -> dict[str, Any]:  # fmt: skip
    """A BaseItemDto of a native ItemSummary or ItemDetail dict.

    ``names`` maps series and season ids to their names, for lists whose
    summaries do not carry them; ``user_data`` is the member's UserData;
    ``tags`` signs the image tags handed out (:mod:`.image_tags`).
    """
    kind = item["type"]
    dto: dict[str, Any] = {
        "Name": item["name"],
        "ServerId": server_id,
        "Id": ids.item_guid(item["id"]),
        "DateCreated": item.get("dateCreated"),
        "SortName": item.get("sortName"),
        "Type": kind,
        "IsFolder": kind in FOLDER_TYPES,
        "ParentId": _parent_guid(item),
        "MediaType": "Video" if kind in VIDEO_TYPES else "Unknown",
        "LocationType": "Virtual" if item.get("missing") else "FileSystem",
        "CanDelete": False,
        "ImageTags": _image_tags(item, tags),
        "BackdropImageTags": _backdrop_tags(item, tags),
    }
    if kind in VIDEO_TYPES:
        dto["VideoType"] = "VideoFile"
    _copy_numbers(item, dto)
    _series_fields(item, dto, names or {})
    if "genres" in item:
        _detail_fields(item, dto, tags)
    if user_data is not None:
        dto["UserData"] = dict(user_data)
    return {key: value for key, value in dto.items() if value is not None}


def summary_dto(summary: ItemSummary, server_id: str, user_data: Mapping[str, Any] | None = None,
                names: Mapping[str, str] | None = None, *, tags: TagSigner) -> dict[str, Any]:  # fmt: skip
    """``item_dto(summary.to_json(), ...)``, built from the summary's fields without the native dict
    between (a list's rows: 8 us an item against 17)."""
    kind = summary.type
    parent = summary.season_id or summary.series_id
    dto: dict[str, Any] = {
        "Name": summary.name,
        "ServerId": server_id,
        "Id": ids.item_guid(summary.id),
        "DateCreated": rfc3339_ms(summary.date_created_ms),
        "SortName": summary.sort_name,
        "Type": kind,
        "IsFolder": kind in FOLDER_TYPES,
    }
    if summary.sort_name is None:  # as item_dto leaves out what is None
        del dto["SortName"]
    if parent:
        dto["ParentId"] = ids.item_guid(parent)
    elif summary.library_id:
        dto["ParentId"] = ids.plain_guid(summary.library_id)
    dto["MediaType"] = "Video" if kind in VIDEO_TYPES else "Unknown"
    dto["LocationType"] = "Virtual" if summary.missing else "FileSystem"
    dto["CanDelete"] = False
    dto["ImageTags"] = {"Primary": tags(summary.id, "primary", 0, summary.image_tag)} if summary.image_tag else {}
    dto["BackdropImageTags"] = []
    if kind in VIDEO_TYPES:
        dto["VideoType"] = "VideoFile"
    for theirs, value in (
        ("IndexNumber", summary.index_number), ("ParentIndexNumber", summary.parent_index_number),
        ("ProductionYear", summary.production_year), ("CommunityRating", summary.community_rating),
        ("RunTimeTicks", summary.runtime_ticks), ("OriginalTitle", summary.original_title),
    ):  # fmt: skip
        if value is not None:
            dto[theirs] = value
    known = names or {}
    if summary.series_id:
        dto["SeriesId"] = ids.item_guid(summary.series_id)
        if known.get(summary.series_id) is not None:
            dto["SeriesName"] = known[summary.series_id]
    if summary.season_id:
        dto["SeasonId"] = ids.item_guid(summary.season_id)
        if known.get(summary.season_id) is not None:
            dto["SeasonName"] = known[summary.season_id]
    if user_data is not None:
        dto["UserData"] = dict(user_data)
    return dto


def _parent_guid(item: Mapping[str, Any]) -> str | None:
    parent = item.get("seasonId") or item.get("seriesId")
    if parent:
        return ids.item_guid(parent)
    library = item.get("libraryId")
    return ids.plain_guid(library) if library else None


def _image_tags(item: Mapping[str, Any], tags: TagSigner) -> dict[str, str]:
    """Each kind's first image (the one its route serves without an index), as a signed tag."""
    images = item.get("images")
    if isinstance(images, Mapping):
        return {IMAGE_TYPES[k]: tags(item["id"], k, 0, v) for k, v in images.items() if k in IMAGE_TYPES}
    tag = item.get("imageTag")
    return {"Primary": tags(item["id"], "primary", 0, tag)} if tag else {}


def _backdrop_tags(item: Mapping[str, Any], tags: TagSigner) -> list[str]:
    details = item.get("imageDetails")
    if not isinstance(details, list):
        return []
    return [tags(item["id"], "backdrop", d.get("index", 0), d["tag"]) for d in details if d.get("kind") == "backdrop"]


def _copy_numbers(item: Mapping[str, Any], dto: dict[str, Any]) -> None:
    for ours, theirs in (
        ("indexNumber", "IndexNumber"), ("parentIndexNumber", "ParentIndexNumber"),
        ("productionYear", "ProductionYear"), ("communityRating", "CommunityRating"),
        ("runtimeTicks", "RunTimeTicks"), ("originalTitle", "OriginalTitle"),
    ):  # fmt: skip
        if item.get(ours) is not None:
            dto[theirs] = item[ours]


def _series_fields(item: Mapping[str, Any], dto: dict[str, Any], names: Mapping[str, str]) -> None:
    series, season = item.get("seriesId"), item.get("seasonId")
    if series:
        dto["SeriesId"] = ids.item_guid(series)
        dto["SeriesName"] = item.get("seriesName") or names.get(series)
    if season:
        dto["SeasonId"] = ids.item_guid(season)
        dto["SeasonName"] = item.get("seasonName") or names.get(season)


def _detail_fields(item: Mapping[str, Any], dto: dict[str, Any], tags: TagSigner) -> None:
    """What only an ItemDetail carries: text, genres, people, providers, media sources."""
    dto["Overview"] = item.get("overview")
    dto["OfficialRating"] = item.get("officialRating")
    dto["PremiereDate"] = item.get("premiereDate")
    dto["EndDate"] = item.get("endDate")
    dto["Taglines"] = [item["tagline"]] if item.get("tagline") else []
    dto["Genres"] = list(item.get("genres", []))
    dto["GenreItems"] = [{"Name": g, "Id": ids.name_guid("genre", g)} for g in item.get("genres", [])]
    dto["Studios"] = [{"Name": s, "Id": ids.name_guid("studio", s)} for s in item.get("studios", [])]
    dto["Tags"] = list(item.get("tags", []))
    dto["People"] = [_person(p, tags) for p in item.get("people", [])]
    providers = item.get("providerIds") or {}
    dto["ProviderIds"] = {PROVIDER_NAMES.get(k, k.capitalize()): v for k, v in providers.items()}
    sources = [s for s in item.get("mediaSources", []) if not s.get("missing")]
    if sources:
        dto["MediaSources"] = [media_source(s, item, tags) for s in sources]
        dto["MediaStreams"] = media_streams(sources[0], tags)


def _person(credit: Mapping[str, Any], tags: TagSigner) -> dict[str, Any]:
    person = {
        "Name": credit["name"],
        "Id": ids.item_guid(credit["id"]),
        "Role": credit.get("role") or "",
        "Type": PERSON_TYPES.get(credit.get("kind", ""), "Unknown"),
    }
    if credit.get("imageTag"):
        person["PrimaryImageTag"] = tags(credit["id"], "primary", 0, credit["imageTag"])
    return person


def user_data_dto(item_id: str, played: bool = False, position_ticks: int = 0, play_count: int = 0,
                  favorite: bool = False, last_played: str | None = None,
                  runtime_ticks: int | None = None) -> dict[str, Any]:  # fmt: skip
    """Jellyfin's UserItemDataDto."""
    data: dict[str, Any] = {
        "PlaybackPositionTicks": position_ticks,
        "PlayCount": play_count,
        "IsFavorite": favorite,
        "Played": played,
        "Key": ids.item_guid(item_id),
        "ItemId": ids.item_guid(item_id),
    }
    if last_played is not None:
        data["LastPlayedDate"] = last_played
    if position_ticks and runtime_ticks:
        data["PlayedPercentage"] = min(100.0, 100.0 * position_ticks / runtime_ticks)
    return data
