"""One item in full (GET /items/{id}): the reference's ItemDetail.

``await item_detail(store, item_id)`` returns a JSON-ready dict, or raises
:class:`NotFound`. Six reads whatever the item: the item (with its series
and season names, poster tag and version count), its extras and parts (with
theirs), its images, its genre/studio/tag/country values, its credits, and
its media sources with their streams. Store errors propagate; cancellation
is the Store's.

Choices (documented on the route):

- ``extras``: non-missing bonus items ordered by index number (items
  without one last), then sort name; ``parts``: non-missing additional
  parts by part number.
- ``imageDetails``: every image ordered by kind (ImageKind order) and
  index, each also carrying its ``kind``; ``images`` holds the first image
  of the primary, backdrop, logo and thumb kinds; ``stills`` the ``still``
  images.
- ``people``: credit order, then name; ``mediaSources``: by position, each
  stream list embedded streams by index, then external ones.
- ``productionLocations``: the item's countries, else the NFO list kept
  in ``extra``. ``ratings``, ``remoteTrailers`` (http and https only),
  ``recognizedTags``, ``attributes`` and the scrape fields of
  ``metadataState`` come from ``extra``; ``metadataState.dateSaved`` is the
  last change. ``subtitleDownloadable`` is false for movies and episodes
  with reason ``no_provider`` (no subtitle provider exists), absent otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from reelhouse.errors import NotFound
from reelhouse.media.probe import resolution_name
from reelhouse.timefmt import rfc3339_ms

from ._store import Row, Store
from .item_query import IMAGE_KINDS, PAGE_EXTRAS, SUMMARY_COLUMNS, summary_of

IMAGE_TAG_KINDS = ("primary", "backdrop", "logo", "thumb")
SUBTITLE_ITEM_TYPES = ("Movie", "Episode")
NO_SUBTITLE_PROVIDER = "no_provider"
DEFAULT_RATING_MAX = 10.0

_ITEM_AND_OWNED = (
    f"SELECT {SUMMARY_COLUMNS}{PAGE_EXTRAS}, i.overview, i.tagline, i.official_rating, i.premiere_date,"
    " i.end_date, i.provider_ids, i.extra, i.date_modified, s.name AS series_name, se.name AS season_name"
    " FROM items i LEFT JOIN items s ON s.id = i.series_id LEFT JOIN items se ON se.id = i.season_id"
    " WHERE i.id = ? OR (i.owner_id = ? AND i.missing = 0)"
    " ORDER BY CASE WHEN i.id = ? THEN 0 ELSE 1 END,"
    " CASE WHEN COALESCE(i.part_number, i.index_number) IS NULL THEN 1 ELSE 0 END,"
    " COALESCE(i.part_number, i.index_number), i.name_key, i.id"
)
"""The item first, then its non-missing extras and parts in index order."""
# Images, values and credits in one statement (a round trip less on
# PostgreSQL), as rows of one shape: kind of row, then its columns.
_RELATED = (
    "SELECT 'image' AS k, kind, tag AS t1, extra AS t2, CAST(NULL AS TEXT) AS t3, CAST(NULL AS TEXT) AS t4,"
    " CAST(idx AS BIGINT) AS n1, CAST(width AS BIGINT) AS n2, CAST(height AS BIGINT) AS n3"
    " FROM images WHERE item_id = ?"
    " UNION ALL SELECT 'value', kind, value, NULL, NULL, NULL, CAST(position AS BIGINT), NULL, NULL"
    " FROM item_values WHERE item_id = ?"
    " UNION ALL SELECT 'credit', c.kind, c.role, p.id, p.name, p.image_tag, CAST(c.sort_order AS BIGINT), NULL, NULL"
    " FROM credits c JOIN people p ON p.id = c.person_id WHERE c.item_id = ?"
)
_SOURCES = (
    "SELECT ms.id AS source_id, ms.path AS source_path, ms.name AS source_name, ms.container, ms.size,"
    " ms.bitrate AS source_bitrate, ms.remote, ms.probe_failure, ms.missing AS source_missing,"
    " st.idx, st.is_external, st.type, st.codec, st.language, st.title, st.width, st.height, st.bitrate,"
    " st.channels, st.channel_layout, st.sample_rate, st.is_default, st.is_forced, st.external_path"
    " FROM media_sources ms LEFT JOIN media_streams st ON st.source_id = ms.id WHERE ms.item_id = ?"
    " ORDER BY ms.position, ms.id, st.is_external, st.idx"
)


async def item_detail(store: Store, item_id: str) -> dict[str, Any]:
    """The ItemDetail JSON of ``item_id``; NotFound when there is no such item."""
    rows, related, sources = await store.fetch_each(
        [
            (_ITEM_AND_OWNED, (item_id, item_id, item_id)),
            (_RELATED, (item_id, item_id, item_id)),
            (_SOURCES, (item_id,)),
        ]
    )
    if not rows or rows[0]["id"] != item_id:
        raise NotFound(f"No item {item_id}.", params={"itemId": item_id})
    item, owned = rows[0], rows[1:]
    images, values, credits = _split_related(related)
    data = summary_of(item).to_json()
    data["extras"] = [summary_of(r).to_json() for r in owned if r["extra_type"] != "AdditionalPart"]
    data["parts"] = [summary_of(r).to_json() for r in owned if r["extra_type"] == "AdditionalPart"]
    data.update(_images_json(images))
    data.update(_values_json(values, _json_object(item["extra"])))
    data["people"] = [_credit_json(credit) for credit in credits]
    data["mediaSources"] = _sources_json(item_id, sources)
    data.update(_fields_json(item))
    return data


def _split_related(rows: Sequence[Row]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """(images, values in order, credits in order) of the :data:`_RELATED` rows."""
    images, values, credits = [], [], []
    for k, kind, t1, t2, t3, t4, n1, n2, n3 in (tuple(row) for row in rows):
        if k == "image":
            images.append({"kind": kind, "tag": t1, "extra": t2, "idx": n1, "width": n2, "height": n3})
        elif k == "value":
            values.append({"kind": kind, "value": t1, "position": n1})
        else:
            credits.append({"kind": kind, "role": t1, "id": t2, "name": t3, "image_tag": t4, "sort_order": n1})
    values.sort(key=lambda v: (v["kind"], v["position"]))
    credits.sort(key=lambda c: (c["sort_order"], c["name"].casefold(), c["id"], c["kind"], c["role"]))
    return images, values, credits


# -- images -------------------------------------------------------------------


def _images_json(rows: Sequence[Row]) -> dict[str, Any]:
    order = {kind: n for n, kind in enumerate(IMAGE_KINDS)}
    ordered = sorted(rows, key=lambda r: (order.get(r["kind"], len(order)), r["kind"], r["idx"]))
    tags: dict[str, str] = {}
    for row in ordered:
        if row["kind"] in IMAGE_TAG_KINDS:
            tags.setdefault(row["kind"], row["tag"])
    stills = [_omit_none({"index": r["idx"], "tag": r["tag"], "width": r["width"], "height": r["height"]})
              for r in ordered if r["kind"] == "still"]  # fmt: skip
    return {"images": tags, "imageDetails": [_image_detail(r) for r in ordered], "stills": stills}


def _image_detail(row: Row) -> dict[str, Any]:
    extra = _json_object(row["extra"])
    crop = _rect(extra.get("crop"))
    hint = _numbers(extra.get("cropHint"), ("aspect", "x", "y"))
    effective = crop or (_hint_rect(hint, row["width"], row["height"]) if hint else None)
    return _omit_none({
        "kind": row["kind"],
        "index": row["idx"],
        "tag": row["tag"],
        "width": row["width"],
        "height": row["height"],
        "crop": crop,
        "cropHint": hint,
        "cropManual": True if extra.get("cropManual") is True else None,
        "effectiveCrop": effective,
        "focus": _numbers(extra.get("focus"), ("x", "y")),
    })  # fmt: skip


def _rect(value: Any) -> dict[str, float] | None:
    return _numbers(value, ("x", "y", "width", "height"))


def _numbers(value: Any, keys: tuple[str, ...]) -> dict[str, float] | None:
    if not isinstance(value, dict):
        return None
    numbers = {k: value.get(k) for k in keys}
    if not all(_is_number(v) for v in numbers.values()):
        return None
    return {k: float(v) for k, v in numbers.items() if _is_number(v)}


def _hint_rect(hint: Mapping[str, float], width: int | None, height: int | None) -> dict[str, float] | None:
    """The crop a hint (target aspect, CSS object-position) selects from a width x height image."""
    if not width or not height or hint["aspect"] <= 0:
        return None
    image_aspect = width / height
    if image_aspect > hint["aspect"]:
        part = hint["aspect"] / image_aspect
        return {"x": (1 - part) * hint["x"], "y": 0.0, "width": part, "height": 1.0}
    part = image_aspect / hint["aspect"]
    return {"x": 0.0, "y": (1 - part) * hint["y"], "width": 1.0, "height": part}


# -- values, people, sources ---------------------------------------------------------


def _values_json(rows: Sequence[Row], extra: Mapping[str, Any]) -> dict[str, Any]:
    values: dict[str, list[str]] = {"genre": [], "studio": [], "tag": [], "country": []}
    for row in rows:
        values.setdefault(row["kind"], []).append(row["value"])
    locations = values["country"] or _strings(extra.get("productionLocations"))
    data: dict[str, Any] = {"genres": values["genre"], "studios": values["studio"], "tags": values["tag"]}
    if locations:
        data["productionLocations"] = locations
    return data


def _credit_json(row: Row) -> dict[str, Any]:
    return _omit_none({
        "id": row["id"], "name": row["name"], "role": row["role"], "order": row["sort_order"],
        "imageTag": row["image_tag"], "kind": row["kind"],
    })  # fmt: skip


def _sources_json(item_id: str, rows: Sequence[Row]) -> list[dict[str, Any]]:
    sources: dict[str, dict[str, Any]] = {}
    for row in rows:
        source = sources.get(row["source_id"])
        if source is None:
            source = sources[row["source_id"]] = _source_json(item_id, row)
        if row["type"] is not None:
            source["streams"].append(_stream_json(row))
    return list(sources.values())


def _source_json(item_id: str, row: Row) -> dict[str, Any]:
    failure = None if row["remote"] else row["probe_failure"]
    return _omit_none({
        "id": row["source_id"], "itemId": item_id, "name": row["source_name"], "path": row["source_path"],
        "container": row["container"], "size": row["size"], "bitrate": row["source_bitrate"],
        "missing": bool(row["source_missing"]), "probeFailure": failure, "streams": [],
    })  # fmt: skip


def _stream_json(row: Row) -> dict[str, Any]:
    is_video = row["type"] == "Video"
    return _omit_none({
        "index": row["idx"], "type": row["type"], "codec": row["codec"], "bitrate": row["bitrate"],
        "channels": row["channels"], "channelLayout": row["channel_layout"], "sampleRate": row["sample_rate"],
        "width": row["width"], "height": row["height"], "language": row["language"], "title": row["title"],
        "externalPath": row["external_path"],
        "resolutionName": resolution_name(row["width"], row["height"]) if is_video else None,
        "isDefault": bool(row["is_default"]), "isExternal": bool(row["is_external"]),
        "isForced": bool(row["is_forced"]),
    })  # fmt: skip


# -- item fields ---------------------------------------------------------------


def _fields_json(item: Row) -> dict[str, Any]:
    extra = _json_object(item["extra"])
    data = _omit_none({
        "overview": item["overview"] or None,
        "tagline": item["tagline"] or None,
        "officialRating": item["official_rating"] or None,
        "premiereDate": _time(item["premiere_date"]),
        "endDate": _time(item["end_date"]),
        "seriesName": item["series_name"],
        "seasonName": item["season_name"],
        "providerIds": {str(k).lower(): str(v) for k, v in _json_object(item["provider_ids"]).items() if v} or None,
        "ratings": _ratings(extra.get("ratings")) or None,
        "remoteTrailers": _trailers(extra.get("remoteTrailers")) or None,
        "recognizedTags": _strings(extra.get("recognizedTags")) or None,
        "attributes": _attributes(extra.get("attributes")) or None,
        "metadataState": _metadata_state(item, extra),
    })  # fmt: skip
    if item["type"] in SUBTITLE_ITEM_TYPES:
        data["subtitleDownloadable"] = False
        data["subtitleDownloadBlockedReason"] = NO_SUBTITLE_PROVIDER
    return data


def _metadata_state(item: Row, extra: Mapping[str, Any]) -> dict[str, Any]:
    scraped_at = extra.get("scrapedAt")
    return _omit_none({
        "lockData": bool(item["lock_data"]),
        "lockedFields": _strings(_json_value(item["locked_fields"])),
        "provider": _string(extra.get("provider")),
        "providerItemId": _string(extra.get("providerItemId")),
        "scrapeError": _string(extra.get("scrapeError")),
        "scrapedAt": _time(scraped_at) if isinstance(scraped_at, int) else None,
        "dateSaved": _time(item["date_modified"]),
    })  # fmt: skip


def _ratings(value: Any) -> list[dict[str, Any]]:
    ratings = []
    for entry in value if isinstance(value, list) else ():
        if not isinstance(entry, dict) or not isinstance(entry.get("source"), str):
            continue
        number, top, votes = entry.get("value"), entry.get("max"), entry.get("votes")
        if not _is_number(number):
            continue
        ratings.append(_omit_none({
            "source": entry["source"].lower(), "value": float(number),
            "max": float(top) if _is_number(top) else DEFAULT_RATING_MAX,
            "votes": int(votes) if _is_number(votes) else None,
        }))  # fmt: skip
    return ratings


def _trailers(value: Any) -> list[dict[str, Any]]:
    trailers = []
    for entry in value if isinstance(value, list) else ():
        url = entry.get("url") if isinstance(entry, dict) else None
        if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
            continue
        trailers.append(_omit_none({
            "url": url, "name": _string(entry.get("name")), "kind": _string(entry.get("kind")),
            "language": _string(entry.get("language")),
            "official": entry["official"] if isinstance(entry.get("official"), bool) else None,
        }))  # fmt: skip
    return trailers


def _attributes(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        value = [{"key": k, "value": v} for k, v in value.items()]
    attributes = [
        _omit_none({"key": str(e["key"]).lower(), "value": str(e["value"]), "label": _string(e.get("label"))})
        for e in (value if isinstance(value, list) else ())
        if isinstance(e, dict) and e.get("key") and e.get("value") is not None
    ]
    return sorted(attributes, key=lambda a: a["key"])


# -- small helpers -------------------------------------------------------------------


def _time(epoch_ms: int | None) -> str | None:
    return None if epoch_ms is None else rfc3339_ms(epoch_ms)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


def _json_value(text: str | None) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _json_object(text: str | None) -> dict[str, Any]:
    value = _json_value(text)
    return value if isinstance(value, dict) else {}


def _omit_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}
