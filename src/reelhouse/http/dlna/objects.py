"""Catalogue items as DIDL-Lite objects: item queries scoped to the DLNA member, and their conversion.

Every read goes through the native item query scoped to the member's
libraries and parental rules (:func:`..library_access.scoped_item_query`),
so an object outside them is "no such object" (701).  Films and episodes
become items whose resource is the stream at ``/dlna/media/<id>`` (with
the DLNA profile where one applies, :mod:`reelhouse.media.dlna.profiles`),
whose poster is a JPEG thumbnail (``/dlna/art/<id>``) and whose external
subtitles are served at ``/dlna/subtitles/<id>/<index>.<ext>``; series
and seasons become containers.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from cachetools import LRUCache
from quart import current_app

from reelhouse import errors
from reelhouse.media.dlna.didl import MOVIE_CLASS, VIDEO_CLASS, Container, Subtitle, VideoItem
from reelhouse.media.dlna.profiles import Format, profile
from reelhouse.media.dlna.soap import NO_SUCH_OBJECT, SoapError
from reelhouse.media.video_types import VIDEO_TYPES, video_content_type
from reelhouse.storage.catalogue_stamp import catalogue_stamp
from reelhouse.storage.item_query import ItemQuery, list_items
from reelhouse.storage.primary_sources import PrimaryFacts, primary_facts

from ..context import app_context
from ..items import cursor_codec
from ..library_access import scoped_item_query
from .remembered import remembered

PLAYABLE = ("Movie", "Episode")
MAX_TOTALS = 1024
_TOTALS_KEY = "reelhouse.dlna.totals"
DidlObject = Container | VideoItem
# External subtitle codecs a television may read, as CaptionInfoEx's type and the res's MIME type.
SUBTITLE_KINDS = {"subrip": ("srt", "text/srt"), "srt": ("srt", "text/srt"), "ass": ("ass", "text/x-ass"),
                  "ssa": ("ass", "text/x-ass"), "webvtt": ("vtt", "text/vtt"), "vtt": ("vtt", "text/vtt")}  # fmt: skip


def no_such_object() -> SoapError:
    return SoapError(NO_SUCH_OBJECT, "No such object.")


async def summary(object_id: str) -> dict[str, Any]:
    """The item summary of ``object_id``; 701 when there is none the member may see."""
    summaries, _ = await page(ItemQuery(ids=(object_id,), limit=1))
    if not summaries:
        raise no_such_object()
    return summaries[0]


async def page(query: ItemQuery) -> tuple[list[dict[str, Any]], int]:
    """The summaries of one page of ``query`` (scoped to the DLNA member) and the total.

    A television pages a container by 50: its total is counted once per
    SystemUpdateID (the count over 5,000 films was a second query per page)."""
    ctx = app_context()
    try:
        scoped = await scoped_item_query(query)
    except errors.NotFound:
        raise no_such_object() from None
    totals: LRUCache[tuple[str, int], int] = _totals()
    key = (scoped.fingerprint(), await catalogue_update_id()) if query.include_total else None
    known = None if key is None else totals.get(key)
    if known is not None:
        scoped = replace(scoped, include_total=False)
    found = await list_items(ctx.store, scoped, cursor_codec(ctx.cursor_secret))
    summaries = [item.to_json() for item in found.items]
    if key is not None and found.total_count is not None:
        totals[key] = found.total_count
    total = known if known is not None else found.total_count
    return summaries, total if total is not None else len(summaries)


async def catalogue_update_id() -> int:
    """SystemUpdateID: moves when the catalogue changes (storage/catalogue_stamp.py), read at most every second."""
    return await remembered("update_id", lambda: catalogue_stamp(app_context().store))


def _totals() -> LRUCache[tuple[str, int], int]:
    """The counts of the containers browsed, by query and SystemUpdateID (this server's)."""
    found: LRUCache[tuple[str, int], int] | None = current_app.extensions.get(_TOTALS_KEY)
    if found is None:
        found = current_app.extensions[_TOTALS_KEY] = LRUCache(MAX_TOTALS)
    return found


async def to_objects(summaries: list[dict[str, Any]], base_url: str, parent: str | None) -> list[DidlObject]:
    """DIDL objects of ``summaries``: their parent is ``parent`` or, when None, their series, season or library.

    The files of the page's films and episodes are read at once (:func:`primary_facts`).
    """
    playable = [found["id"] for found in summaries if found["type"] in PLAYABLE]
    facts = await primary_facts(app_context().store, playable) if playable else {}
    objects: list[DidlObject] = []
    for found in summaries:
        art = f"{base_url}/dlna/art/{found['id']}" if found.get("hasPoster") else None
        parent_id = parent or found.get("seasonId") or found.get("seriesId") or f"lib.{found['libraryId']}"
        if found["type"] in PLAYABLE:
            objects.append(video_item(found, facts.get(found["id"], PrimaryFacts()), parent_id, art, base_url))
        else:
            objects.append(Container(found["id"], parent_id, found["name"], album_art_url=art))
    return objects


def video_item(found: dict[str, Any], facts: PrimaryFacts, parent: str, art: str | None, base_url: str) -> VideoItem:
    """A film or episode with what is known of its primary file (size, resolution, date, subtitles)."""
    source = facts.source
    streams: list[dict[str, Any]] = (source or {}).get("streams", [])
    video = next((s for s in streams if s.get("type") == "Video"), {})
    year = found.get("productionYear")
    path = str((source or {}).get("path") or "")
    extension = os.path.splitext(path)[1].lower()  # PurePath's suffix costs 10x as much, 50 times a page
    return VideoItem(
        id=found["id"],
        parent_id=parent,
        title=found["name"],
        upnp_class=MOVIE_CLASS if found["type"] == "Movie" else VIDEO_CLASS,
        url=f"{base_url}/dlna/media/{found['id']}" if source is not None else None,
        mime_type=(VIDEO_TYPES.get(extension) or video_content_type(path)) if source is not None else "video/mpeg",
        date=facts.premiere_date or (f"{year}-01-01" if year else None),
        runtime_ticks=found.get("runtimeTicks"),
        width=video.get("width"),
        height=video.get("height"),
        size=source.get("size") if source is not None else None,
        album_art_url=art,
        profile=None if source is None else profile_of(source, extension),
        subtitles=tuple(subtitles_of(found["id"], streams, base_url)),
    )


def primary_source(detail: dict[str, Any]) -> dict[str, Any] | None:
    return next((s for s in detail.get("mediaSources", []) if not s.get("missing")), None)


def profile_of(source: dict[str, Any], extension: str) -> str | None:
    """The DLNA profile of the source whose file ends in ``extension`` (".mp4")."""
    streams: list[dict[str, Any]] = source.get("streams", [])
    video = next((s for s in streams if s.get("type") == "Video"), {})
    audio = next((s for s in streams if s.get("type") == "Audio"), {})
    return profile(Format(extension.lstrip("."), video.get("codec"), audio.get("codec"), video.get("width"),
                          video.get("height")))  # fmt: skip


def subtitles_of(item_id: str, streams: list[dict[str, Any]], base_url: str) -> list[Subtitle]:
    """The external text subtitles of the primary file, served at ``/dlna/subtitles/<id>/<index>.<ext>``."""
    found: list[Subtitle] = []
    for stream in streams:
        kind = SUBTITLE_KINDS.get(str(stream.get("codec") or "").lower())
        if stream.get("type") == "Subtitle" and stream.get("isExternal") and kind is not None:
            found.append(Subtitle(f"{base_url}/dlna/subtitles/{item_id}/{stream['index']}.{kind[0]}", *kind))
    return found
