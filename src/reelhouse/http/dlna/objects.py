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

import functools
import os
from dataclasses import dataclass, replace
from typing import Any

from cachetools import LRUCache
from quart import current_app

from reelhouse import errors
from reelhouse.media.dlna import didl
from reelhouse.media.dlna.didl import MOVIE_CLASS, VIDEO_CLASS, Container, Subtitle, VideoItem
from reelhouse.media.dlna.profiles import Format, profile
from reelhouse.media.dlna.soap import NO_SUCH_OBJECT, SoapError
from reelhouse.media.video_types import VIDEO_TYPES, video_content_type
from reelhouse.storage.catalogue_stamp import catalogue_stamp
from reelhouse.storage.item_query import ItemFiles, ItemQuery, list_items, list_with_files
from reelhouse.storage.primary_sources import PrimaryFacts, primary_facts

from ..context import app_context
from ..items import cursor_codec
from ..library_access import scoped_item_query
from .remembered import remembered

PLAYABLE = ("Movie", "Episode")
_NONE: dict[str, Any] = {}
MAX_TOTALS = 1024
MAX_POSITIONS = 4096  # a page's end each: a few containers of 5,000 items paged by 50
_TOTALS_KEY = "reelhouse.dlna.totals"
_POSITIONS_KEY = "reelhouse.dlna.positions"
DidlObject = Container | VideoItem | str  # str: an item's DIDL-Lite text (didl.item_text)
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
    """The summaries of one page of ``query`` (scoped to the DLNA member) and the total."""
    ctx = app_context()
    scoped, memo = await _scoped(query), None
    if query.include_total:
        scoped, memo = await _remembered(scoped)
    found = await list_items(ctx.store, scoped, cursor_codec(ctx.cursor_secret))
    summaries = [item.to_json() for item in found.items]
    total = _remember_total(memo, found.total_count)
    return summaries, total if total is not None else len(summaries)


async def page_objects(query: ItemQuery, base_url: str, parent: str | None) -> tuple[list[DidlObject], int]:
    """One page of ``query`` (scoped to the DLNA member) as DIDL objects, and the total.

    One read for the page, its files and (unless known) its count
    (:func:`list_with_files`); the objects' parent is ``parent`` or, when
    None, their series, season or library.  Where an earlier page ended at
    this page's offset (same query and SystemUpdateID), the read starts
    after that page's last item rather than skipping ``offset`` rows."""
    scoped, memo = await _remembered(await _scoped(query))
    positions = _memory(_POSITIONS_KEY, MAX_POSITIONS)
    after = positions.get((memo.key, query.offset)) if query.offset else None
    found = await list_with_files(app_context().store, scoped, after)
    if found.end is not None:
        positions[(memo.key, query.offset + len(found.items))] = found.end
    total = _remember_total(memo, found.total)
    urls = _Urls(base_url)
    objects = [_object(item, parent, urls) for item in found.items]
    return objects, total if total is not None else len(objects)


@dataclass(frozen=True, slots=True)
class _Memo:
    """What is remembered of a scoped query, by ``key`` (its fingerprint and SystemUpdateID): its count if known."""

    key: tuple[str, int]
    total: int | None


async def _scoped(query: ItemQuery) -> ItemQuery:
    """``query`` scoped to the member; 701 for a library or parent outside what the member sees."""
    try:
        return await scoped_item_query(query)
    except errors.NotFound:
        raise no_such_object() from None


async def _remembered(scoped: ItemQuery) -> tuple[ItemQuery, _Memo]:
    """``scoped`` without its count when the count is known, and its memo.

    A television pages a container by 50: its total is counted once per
    SystemUpdateID (the count over 5,000 films was a second scan per page),
    and where each page ended is remembered as long (:func:`page_objects`)."""
    key = (scoped.fingerprint(), await catalogue_update_id())
    known = _memory(_TOTALS_KEY, MAX_TOTALS).get(key) if scoped.include_total else None
    return (scoped if known is None else replace(scoped, include_total=False)), _Memo(key, known)


def _remember_total(memo: _Memo | None, counted: int | None) -> int | None:
    """The count known or ``counted`` (then remembered under the memo's key)."""
    if memo is None or memo.total is not None:
        return counted if memo is None else memo.total
    if counted is not None:
        _memory(_TOTALS_KEY, MAX_TOTALS)[memo.key] = counted
    return counted


async def catalogue_update_id() -> int:
    """SystemUpdateID: moves when the catalogue changes (storage/catalogue_stamp.py), read at most every second."""
    return await remembered("update_id", lambda: catalogue_stamp(app_context().store))


def _memory(name: str, size: int) -> LRUCache[Any, Any]:
    """This server's memory ``name``: counts of the containers browsed, or where their pages ended,
    by query and SystemUpdateID (a new SystemUpdateID makes new keys; the old ones age out)."""
    found: LRUCache[Any, Any] | None = current_app.extensions.get(name)
    if found is None:
        found = current_app.extensions[name] = LRUCache(size)
    return found


async def to_objects(summaries: list[dict[str, Any]], base_url: str, parent: str | None) -> list[DidlObject]:
    """DIDL objects of ``summaries``: their parent is ``parent`` or, when None, their series, season or library.

    The files of the page's films and episodes are read at once (:func:`primary_facts`).
    """
    playable = [found["id"] for found in summaries if found["type"] in PLAYABLE]
    facts = await primary_facts(app_context().store, playable) if playable else {}
    urls = _Urls(base_url)
    return [_object(_item_files(found, facts.get(found["id"])), parent, urls) for found in summaries]


def _item_files(found: dict[str, Any], facts: PrimaryFacts | None) -> ItemFiles:
    item = ItemFiles(found["id"], found["libraryId"], found["type"], found["name"], found.get("productionYear"),
                     found.get("runtimeTicks"), found.get("seasonId"), found.get("seriesId"),
                     bool(found.get("hasPoster")), facts.premiere_date if facts is not None else None)  # fmt: skip
    source = facts.source if facts is not None else None
    if source is not None:
        streams: list[dict[str, Any]] = source["streams"]
        video, audio = _first_video_audio(streams)
        item.path, item.size, item.audio_codec = str(source.get("path") or ""), source.get("size"), audio.get("codec")
        item.video_codec, item.width, item.height = video.get("codec"), video.get("width"), video.get("height")
        item.subtitles = [(s["index"], s.get("codec")) for s in streams
                          if s.get("type") == "Subtitle" and s.get("isExternal")]  # fmt: skip
    return item


class _Urls:
    """A page's URL prefixes, joined once per page rather than per object."""

    __slots__ = ("art", "base", "media")

    def __init__(self, base_url: str) -> None:
        self.base = base_url
        self.media = f"{base_url}/dlna/media/"
        self.art = f"{base_url}/dlna/art/"


def _object(item: ItemFiles, parent: str | None, urls: _Urls) -> DidlObject:
    art = urls.art + item.id if item.has_poster else None
    parent_id = parent or item.season_id or item.series_id or f"lib.{item.library_id}"
    if item.type in PLAYABLE:
        return video_text(item, parent_id, art, urls)
    return Container(item.id, parent_id, item.name, album_art_url=art)


def video_text(item: ItemFiles, parent: str, art: str | None, urls: _Urls) -> str:
    """A film or episode with what is known of its primary file (size, resolution, date, subtitles), as DIDL-Lite
    text straight away: a page builds 50, and an object per item only to be written out cost as much again."""
    upnp_class = MOVIE_CLASS if item.type == "Movie" else VIDEO_CLASS
    year = item.production_year
    date = item.premiere_date or (f"{year}-01-01" if year else None)
    path = item.path
    if path is None:
        return didl.item_text(item.id, parent, item.name, upnp_class, date, art, "")
    extension = os.path.splitext(path)[1].lower()  # PurePath's suffix costs 10x as much, 50 times a page
    width, height = item.width, item.height
    found = [_subtitle(item.id, index, codec, urls.base) for index, codec in item.subtitles] if item.subtitles else ()
    resource = didl.resource_text(
        urls.media + item.id, VIDEO_TYPES.get(extension) or video_content_type(path),
        _profile(extension.lstrip("."), item.video_codec, item.audio_codec, width, height),
        item.size, item.runtime_ticks, width, height, [sub for sub in found if sub is not None] if found else (),
    )  # fmt: skip
    return didl.item_text(item.id, parent, item.name, upnp_class, date, art, resource)


def primary_source(detail: dict[str, Any]) -> dict[str, Any] | None:
    return next((s for s in detail.get("mediaSources", []) if not s.get("missing")), None)


def profile_of(source: dict[str, Any], extension: str) -> str | None:
    """The DLNA profile of the source whose file ends in ``extension`` (".mp4")."""
    video, audio = _first_video_audio(source.get("streams", []))
    return _profile(extension.lstrip("."), video.get("codec"), audio.get("codec"), video.get("width"),
                    video.get("height"))  # fmt: skip


def _first_video_audio(streams: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The file's first video and first audio stream ({} for none), in one pass."""
    video: dict[str, Any] | None = None
    audio: dict[str, Any] | None = None
    for stream in streams:
        kind = stream.get("type")
        if kind == "Video" and video is None:
            video = stream
        elif kind == "Audio" and audio is None:
            audio = stream
        if video is not None and audio is not None:
            break
    return video or _NONE, audio or _NONE


@functools.lru_cache(maxsize=256)  # by the plain values: a page of 50 films has a handful of distinct formats
def _profile(extension: str, video: str | None, audio: str | None, width: int | None, height: int | None) -> str | None:
    return profile(Format(extension, video, audio, width, height))


def subtitles_of(item_id: str, streams: list[dict[str, Any]], base_url: str) -> list[Subtitle]:
    """The external text subtitles of the primary file, served at ``/dlna/subtitles/<id>/<index>.<ext>``."""
    found = (_subtitle(item_id, s["index"], s.get("codec"), base_url) for s in streams
             if s.get("type") == "Subtitle" and s.get("isExternal"))  # fmt: skip
    return [sub for sub in found if sub is not None]


def _subtitle(item_id: str, index: int, codec: str | None, base_url: str) -> Subtitle | None:
    """An external subtitle stream as the DIDL-Lite resource it is served as; None for a format not listed."""
    kind = SUBTITLE_KINDS.get(str(codec or "").lower())
    if kind is None:
        return None
    return Subtitle(f"{base_url}/dlna/subtitles/{item_id}/{index}.{kind[0]}", *kind)
