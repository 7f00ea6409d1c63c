"""Reading the catalogue for the Jellyfin surface: pages, items and views as BaseItemDtos.

Queries go through the native item query (``storage/item_query/``) scoped
to the request's libraries (``http/library_access.py``), so a member sees
here exactly what the native API shows them.  A page is rendered from its
summaries; the fields only an ItemDetail carries (overview, genres,
people, media sources...) are read per item when the client asks for them
with ``Fields``, and for a single item always.

An API key (an administrator, as Jellyfin's own keys) reads the UserData of
the member its path or query names (``/Users/{userId}/Items``, ``userId=``),
and with ``Fields`` also each item's ``Path`` (its primary local file), as
Jellyfin answers an administrator: what an import from this server needs.
A member's sign-in never sees paths.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import trio
from quart import current_app, request

from reelhouse.storage.item_detail import item_detail
from reelhouse.storage.item_query import (
    ItemKey,
    ItemPage,
    ItemQuery,
    ItemSummary,
    list_item_keys,
    list_items,
    parse_item_query,
)
from reelhouse.storage.library_views import LibraryView, RememberedViews
from reelhouse.storage.watch_state import WatchState

from ..context import app_context, request_data_version
from ..device_auth import signed_in_member
from ..items import cursor_codec
from ..library_access import require_item_visible, scoped_item_query, visible
from . import ids
from .dto_items import item_dto, summary_dto
from .dto_options import DtoOptions, dto_options, shape
from .image_tags import tag_signer
from .item_query import MAX_LIMIT, Translated, lowered_args, split
from .user_data import user_data_of

DETAIL_FIELDS = frozenset({
    "overview", "genres", "people", "mediasources", "mediastreams", "providerids", "studios", "taglines",
    "tags", "genreitems", "officialrating", "premieredate", "enddate",
})  # fmt: skip
COLLECTION_TYPES = {"movies": "movies", "tvshows": "tvshows"}
_VIEWS_KEY = "reelhouse.jellyfin.views"


def server_guid() -> str:
    return ids.plain_guid(app_context().server_id)


def member_id() -> str | None:
    member = signed_in_member()
    if member is not None:
        return member.user_id
    named = (request.view_args or {}).get("user_id") or request.args.get("userId") or request.args.get("UserId")
    return ids.plain_guid(named) if isinstance(named, str) and named else None


async def visible_libraries() -> list[LibraryView]:
    return [library for library in await all_libraries() if visible(library.id)]


async def all_libraries() -> tuple[LibraryView, ...]:
    """Every library (most home-screen requests ask: remembered while no write commits, RememberedViews)."""
    store = app_context().store
    remembered = current_app.extensions.get(_VIEWS_KEY)
    if not isinstance(remembered, RememberedViews) or remembered.store is not store:
        remembered = current_app.extensions[_VIEWS_KEY] = RememberedViews(store)
    return await remembered.views(version=request_data_version())


async def all_library_ids() -> list[str]:
    """Every library's id, in id order (a User's grants when the policy says all libraries)."""
    return sorted(library.id for library in await all_libraries())


def wants_detail(fields: str | None) -> bool:
    return any(field.lower() in DETAIL_FIELDS for field in split(fields))


async def query_page(translated: Translated, fields: str | None) -> tuple[list[dict[str, Any]], int]:
    """One page of BaseItemDtos and the total count (the page's length when not counted)."""
    if translated.query is None:
        return [], 0
    return await native_page(translated.query, fields)


async def native_page(query: ItemQuery, fields: str | None) -> tuple[list[dict[str, Any]], int]:
    if wants_detail(fields):
        summaries, total = await native_summaries(query)
        return await render(summaries, detail=True), total
    page = await native_items(query)
    total = page.total_count if page.total_count is not None else (query.offset or 0) + len(page.items)
    return await render_summaries(page.items), total


async def native_summaries(query: ItemQuery) -> tuple[list[dict[str, Any]], int]:
    """One page of native summaries within the request's libraries, and the total (the page's end when not counted)."""
    page = await native_items(query)
    summaries = [item.to_json() for item in page.items]
    total = page.total_count if page.total_count is not None else (query.offset or 0) + len(summaries)
    return summaries, total


async def native_items(query: ItemQuery, *, with_states: bool = False) -> ItemPage:
    """One page of items within the request's libraries, as read (no cursor: this surface pages by offset);
    ``with_states``: with the member's own watch states (:func:`.user_data.own_states`)."""
    ctx = app_context()
    scoped = await scoped_item_query(query)
    return await list_items(ctx.store, scoped, cursor_codec(ctx.cursor_secret), with_cursor=False,
                            with_states=with_states)  # fmt: skip


async def native_keys(query: ItemQuery) -> list[ItemKey]:
    """:func:`native_items`' page as keys (id, series, date added) only."""
    return await list_item_keys(app_context().store, await scoped_item_query(query))


async def render(
    items: Sequence[Mapping[str, Any]], *, detail: bool, states: Mapping[str, WatchState] | None = None,
    known_names: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """BaseItemDtos of native item dicts, with the member's UserData (``states`` when already read)
    and series and season names (``known_names``: those read with the items)."""
    if detail:
        store = app_context().store
        items = [await item_detail(store, item["id"]) for item in items]
    missing = [item.get(key) for item in items for key in ("seriesId", "seasonId")
               if not item.get("seriesName" if key == "seriesId" else "seasonName")]  # fmt: skip
    options = request_dto_options()
    refs = [(item["id"], item.get("type", "Series"), item.get("runtimeTicks")) for item in items]
    names, data = await _names_and_user_data(missing, refs if options.user_data else [], states, known_names)
    server = server_guid()
    tags = tag_signer()
    dtos = [item_dto(item, server, data.get(item["id"]), names, tags=tags) for item in items]
    shape(dtos, options)
    if detail and signed_in_member() is None:
        for item, dto in zip(items, dtos, strict=True):
            _add_path(item, dto)
    return dtos


async def render_summaries(
    summaries: Sequence[ItemSummary], *, states: Mapping[str, WatchState] | None = None,
    known_names: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """:func:`render` of a list's summaries (no detail), straight from their fields."""
    missing = [key for item in summaries for key in (item.series_id, item.season_id)]
    options = request_dto_options()
    refs = [(item.id, item.type, item.runtime_ticks) for item in summaries]
    names, data = await _names_and_user_data(missing, refs if options.user_data else [], states, known_names)
    server = server_guid()
    tags = tag_signer()
    dtos = [summary_dto(item, server, data.get(item.id), names, tags=tags) for item in summaries]
    shape(dtos, options)
    return dtos


def request_dto_options() -> DtoOptions:
    """The request's DtoOptions (``EnableUserData``, ``EnableImages``...: :mod:`.dto_options`)."""
    return dto_options(lowered_args(request.args.items(multi=True)))


async def _names_and_user_data(
    wanted: Sequence[str | None], refs: Sequence[tuple[str, str, int | None]],
    states: Mapping[str, WatchState] | None, known_names: Mapping[str, str] | None,
) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:  # fmt: skip
    """The names of the ``wanted`` series and seasons not in ``known_names``, and the items' UserData:
    two independent reads, side by side."""
    names: dict[str, str] = dict(known_names or {})
    missing = [value for value in wanted if value and value not in names]
    data: dict[str, dict[str, Any]] = {}

    async def read_names() -> None:
        names.update(await names_of(missing))

    async def read_user_data() -> None:
        if refs:
            data.update(await user_data_of(app_context().store, member_id(), refs, states))

    if not missing:
        await read_user_data()
    else:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(read_names)
            nursery.start_soon(read_user_data)
    return names, data


def _add_path(item: Mapping[str, Any], dto: dict[str, Any]) -> None:
    """The primary local file's path (a remote address may carry credentials: never shown)."""
    sources = [s for s in item.get("mediaSources", []) if not s.get("missing")]
    path = sources[0].get("path") if sources else None
    if isinstance(path, str) and path and not path.startswith(("http://", "https://")):
        dto["Path"] = path


async def names_of(wanted: Iterable[str | None]) -> dict[str, str]:
    """The names of items by id (series and seasons of a page), in one query."""
    unique = sorted({value for value in wanted if value})[:MAX_LIMIT]
    if not unique:
        return {}
    ctx = app_context()
    query = parse_item_query({"ids": [",".join(unique)], "limit": [str(MAX_LIMIT)]})
    page = await list_items(ctx.store, query, cursor_codec(ctx.cursor_secret), with_cursor=False)
    return {item.id: item.name for item in page.items}


async def summaries_with_names(item_ids: Sequence[str]) -> tuple[list[ItemSummary], dict[str, str]]:
    """Native summaries of these items the request may see, in the order given, and their series'
    and seasons' names by id (read with them: one trip)."""
    if not item_ids:
        return [], {}
    ctx = app_context()
    query = await scoped_item_query(parse_item_query({"ids": [",".join(item_ids)], "limit": [str(MAX_LIMIT)]}))
    page = await list_items(ctx.store, query, cursor_codec(ctx.cursor_secret), with_cursor=False, with_names=True)
    by_id = {item.id: item for item in page.items}
    return [by_id[i] for i in item_ids if i in by_id], page.names


async def one_item(guid: str) -> dict[str, Any]:
    """The BaseItemDto of an item, or of a view (a library's GUID); 404 as the native API."""
    library = next((lib for lib in await visible_libraries() if lib.id == ids.plain_guid(guid)), None)
    if library is not None:
        return view_dto(library)
    item_id = ids.item_id(guid)
    await require_item_visible(item_id)
    detail = await item_detail(app_context().store, item_id)
    return (await render([detail], detail=False))[0]


def view_dto(library: LibraryView) -> dict[str, Any]:
    """A library as Jellyfin's CollectionFolder (a user view)."""
    dto: dict[str, Any] = {
        "Name": library.name,
        "ServerId": server_guid(),
        "Id": ids.plain_guid(library.id),
        "Type": "CollectionFolder",
        "IsFolder": True,
        "SortName": library.name.casefold(),
        "LocationType": "FileSystem",
        "MediaType": "Unknown",
        "ImageTags": {},
        "BackdropImageTags": [],
        "CanDelete": False,
    }
    if library.collection_type in COLLECTION_TYPES:
        dto["CollectionType"] = COLLECTION_TYPES[library.collection_type]
    return dto


def result(items: list[dict[str, Any]], total: int, start: int = 0) -> dict[str, Any]:
    """Jellyfin's QueryResult."""
    return {"Items": items, "TotalRecordCount": total, "StartIndex": start}
