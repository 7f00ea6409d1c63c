"""The ContentDirectory tree a television browses, read from the catalogue.

``0`` is the root; its children are the libraries the DLNA member may see
(``lib.<id>``).  A movies library lists its films by title; a shows
library its series by title, a series its seasons (and season-less
episodes) in order, a season its episodes in order; a mixed library lists
films and series by title.  Films and episodes are items whose resource
is the stream at ``/dlna/media/<id>`` and whose poster is a JPEG thumbnail
(``/dlna/art/<id>``).  Every read goes through the native item query scoped
to the member's libraries, so an object outside them is "no such object".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from reelhouse import errors
from reelhouse.media.dlna.didl import MOVIE_CLASS, VIDEO_CLASS, Container, VideoItem
from reelhouse.media.dlna.soap import NO_SUCH_OBJECT, SoapError
from reelhouse.media.video_types import video_content_type
from reelhouse.storage.item_detail import item_detail
from reelhouse.storage.item_query import ItemQuery, list_items
from reelhouse.storage.libraries import LibraryRecord, list_libraries

from ..context import app_context
from ..items import cursor_codec
from ..library_access import scoped_item_query, visible

ROOT = "0"
LIBRARY_PREFIX = "lib."
MAX_PAGE = 100  # RequestedCount 0 ("all") or more is answered with this many; TotalMatches tells the rest
PLAYABLE = ("Movie", "Episode")
LIBRARY_TYPES = {"movies": ("Movie",), "tvshows": ("Series",)}

DidlObject = Container | VideoItem


@dataclass(frozen=True, slots=True)
class Page:
    objects: list[DidlObject]
    total: int


async def metadata(object_id: str, base_url: str) -> DidlObject:
    """The object itself (BrowseMetadata)."""
    if object_id == ROOT:
        return Container(ROOT, "-1", app_context().settings.effective_server_name, len(await _libraries()))
    library = await _library(object_id)
    if library is not None:
        return Container(object_id, ROOT, library.name)
    summary = await _summary(object_id)
    return (await _objects([summary], base_url))[0]


async def children(object_id: str, start: int, count: int, base_url: str) -> Page:
    """A page of the object's children (BrowseDirectChildren) and how many there are."""
    count = MAX_PAGE if count <= 0 else min(count, MAX_PAGE)
    if object_id == ROOT:
        libraries = await _libraries()
        chosen = libraries[start : start + count]
        return Page([Container(LIBRARY_PREFIX + lib.id, ROOT, lib.name) for lib in chosen], len(libraries))
    library = await _library(object_id)
    if library is not None:
        types = LIBRARY_TYPES.get(library.collection_type, ("Movie", "Series"))
        query = ItemQuery(library_id=library.id, recursive=True, types=types, sort="name")
    else:
        parent = await _summary(object_id)
        if parent["type"] not in ("Series", "Season"):
            return Page([], 0)
        types = ("Season", "Episode") if parent["type"] == "Series" else ("Episode",)
        query = ItemQuery(parent_id=object_id, types=types, sort="index")
    summaries, total = await _page(replace(query, missing=False, offset=start, limit=count, include_total=True))
    return Page(await _objects(summaries, base_url), total)


async def _libraries() -> list[LibraryRecord]:
    return [lib for lib in await list_libraries(app_context().store) if visible(lib.id)]


async def _library(object_id: str) -> LibraryRecord | None:
    if not object_id.startswith(LIBRARY_PREFIX):
        return None
    wanted = object_id.removeprefix(LIBRARY_PREFIX)
    found = next((lib for lib in await _libraries() if lib.id == wanted), None)
    if found is None:
        raise SoapError(NO_SUCH_OBJECT, "No such object.")
    return found


async def _summary(object_id: str) -> dict[str, Any]:
    summaries, _ = await _page(ItemQuery(ids=(object_id,), limit=1))
    if not summaries:
        raise SoapError(NO_SUCH_OBJECT, "No such object.")
    return summaries[0]


async def _page(query: ItemQuery) -> tuple[list[dict[str, Any]], int]:
    ctx = app_context()
    try:
        scoped = await scoped_item_query(query)
    except errors.NotFound:
        raise SoapError(NO_SUCH_OBJECT, "No such object.") from None
    page = await list_items(ctx.store, scoped, cursor_codec(ctx.cursor_secret))
    summaries = [item.to_json() for item in page.items]
    return summaries, page.total_count if page.total_count is not None else len(summaries)


async def _objects(summaries: list[dict[str, Any]], base_url: str) -> list[DidlObject]:
    objects: list[DidlObject] = []
    for summary in summaries:
        art = f"{base_url}/dlna/art/{summary['id']}" if summary.get("hasPoster") else None
        parent = summary.get("seasonId") or summary.get("seriesId") or LIBRARY_PREFIX + summary["libraryId"]
        if summary["type"] in PLAYABLE:
            objects.append(await _item(summary, parent, art, base_url))
        else:
            objects.append(Container(summary["id"], parent, summary["name"], album_art_url=art))
    return objects


async def _item(summary: dict[str, Any], parent: str, art: str | None, base_url: str) -> VideoItem:
    """A film or episode with what its detail knows of the primary file (size, resolution, date)."""
    detail = await item_detail(app_context().store, summary["id"])
    source = next((s for s in detail.get("mediaSources", []) if not s.get("missing")), None)
    video: dict[str, Any] = next((s for s in (source or {}).get("streams", []) if s.get("type") == "Video"), {})
    premiere, year = detail.get("premiereDate"), summary.get("productionYear")
    date = premiere[:10] if premiere else (f"{year}-01-01" if year else None)
    return VideoItem(
        id=summary["id"],
        parent_id=parent,
        title=summary["name"],
        upnp_class=MOVIE_CLASS if summary["type"] == "Movie" else VIDEO_CLASS,
        url=f"{base_url}/dlna/media/{summary['id']}" if source is not None else None,
        mime_type=video_content_type(str(source.get("path") or "")) if source is not None else "video/mpeg",
        date=date,
        runtime_ticks=summary.get("runtimeTicks"),
        width=video.get("width"),
        height=video.get("height"),
        size=source.get("size") if source is not None else None,
        album_art_url=art,
    )
