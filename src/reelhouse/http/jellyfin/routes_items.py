"""Browsing: views, items, an item, latest, resume, next up, seasons, episodes, search hints, genres.

Each route has Jellyfin's two forms where it has them: the current one
(``/UserViews``, ``/Items``, ``/UserItems/Resume``) and the older one under
``/Users/{userId}/`` that many apps still call.  The user in such a path is
the signed-in member's own (a device token is its member's, whatever the
path says); an API key acts as an administrator, as natively.
"""

from __future__ import annotations

from typing import Any

from quart import Response, request

from reelhouse.storage.genres import genre_names
from reelhouse.storage.item_query import ItemKey, ItemSummary, parse_item_query
from reelhouse.storage.watch_state import WatchPage, WatchState

from ..context import app_context
from ..device_auth import signed_in_member
from ..library_access import library_scope_of_request, parental_rule_of_request
from . import ids
from .catalogue import (
    member_id,
    native_items,
    native_keys,
    native_page,
    native_summaries,
    one_item,
    query_page,
    render_summaries,
    result,
    server_guid,
    summaries_with_names,
    view_dto,
    visible_libraries,
)
from .item_query import (
    KNOWN_TYPES,
    MAX_LIMIT,
    count,
    item_types,
    lowered_args,
    native_query,
    parent_id,
    split,
    translate,
)
from .surface import json, new_blueprint, route
from .user_data import next_up_page, own_states, resume_page

blueprint = new_blueprint("items")
LATEST_DEFAULT = 16
VIDEO_TYPES = ["Movie", "Episode"]
LATEST_TYPES = {"movies": ["Movie"], "tvshows": ["Episode"]}
LATEST_KINDS = {"movie": "Movie", "episode": "Episode", "series": "Episode"}  # Jellyfin's type -> what is read
HINT_FIELDS = ("Id", "Name", "Type", "ProductionYear", "RunTimeTicks", "MediaType", "SeriesId", "SeriesName",
               "IndexNumber", "ParentIndexNumber", "IsFolder")  # fmt: skip


def _args() -> dict[str, str]:
    return lowered_args(request.args.items(multi=True))


@route(blueprint, "/UserViews")
@route(blueprint, "/Users/<user_id>/Views")
async def views(user_id: str | None = None) -> Response:
    libraries = [view_dto(library) for library in await visible_libraries()]
    return json(result(libraries, len(libraries)))


@route(blueprint, "/Library/MediaFolders")
async def media_folders() -> Response:
    libraries = [view_dto(library) for library in await visible_libraries()]
    return json(result(libraries, len(libraries)))


@route(blueprint, "/Items")
@route(blueprint, "/Users/<user_id>/Items")
async def items(user_id: str | None = None) -> Response:
    args = _args()
    libraries = [library.id for library in await visible_libraries()]
    translated = translate(args, libraries)
    if translated.resumable_only:
        return await _resume(args)
    dtos, total = await query_page(translated, args.get("fields"))
    return json(result(dtos, total, translated.start_index))


@route(blueprint, "/Items/<item_id>")
@route(blueprint, "/Users/<user_id>/Items/<item_id>")
async def item(item_id: str, user_id: str | None = None) -> Response:
    return json(await one_item(item_id))


@route(blueprint, "/Items/Latest")
@route(blueprint, "/Users/<user_id>/Items/Latest")
async def latest(user_id: str | None = None) -> Response:
    """The newest movies and series with new episodes (an episode stands for its series), newest first;
    ``IncludeItemTypes`` narrows it to movies or to series (episodes)."""
    args = _args()
    limit = min(count(args, "limit", "Limit", LATEST_DEFAULT), MAX_LIMIT)
    asked = {LATEST_KINDS.get(kind.lower(), "") for kind in split(args.get("includeitemtypes"))}
    kinds = frozenset(asked - {""}) if asked else frozenset(VIDEO_TYPES)
    if limit == 0 or not kinds:
        return json([])
    newest, states = await _newest_videos(args.get("parentid"), limit, kinds)
    shown: dict[str, ItemSummary | None] = {}  # in order: a movie, or a series (or lone episode) to read
    for item in newest:
        key = item.series_id or item.id
        if key not in shown and len(shown) < limit:
            shown[key] = item if isinstance(item, ItemSummary) and not item.series_id else None
    summaries, names = await summaries_with_names([k for k, v in shown.items() if v is None])
    read = {s.id: s for s in summaries}
    found = [v if v is not None else read.get(k) for k, v in shown.items()]
    return json(await render_summaries([s for s in found if s is not None], states=states, known_names=names))


async def _newest_videos(
    parent: str | None, limit: int, kinds: frozenset[str]
) -> tuple[list[ItemSummary | ItemKey], dict[str, WatchState]]:
    """The newest movies and episodes under ``parent`` (a view or an item; None: every view), enough of
    them for ``limit`` entries: ``limit`` movies, four times as many episodes (an episode stands for its
    series, and a series' newest episodes come together).

    One query per library and type, each on the (library, type, date added)
    index, merged: one query over several types or by parentId read every
    video of the library (20-40 ms over 10,000 against 1 ms).  A view's
    episodes are read as keys only (:func:`list_item_keys`): only their series are shown;
    its movies with the member's states of them (the second of the pair returned).
    """
    libraries = await visible_libraries()
    base = {"recursive": ["true"], "sort": ["dateAdded"], "order": ["desc"]}
    library_ids = frozenset(lib.id for lib in libraries)
    episodes = str(min(MAX_LIMIT, limit * 4))
    if parent:
        wanted = parent_id(parent, library_ids)
        if wanted not in library_ids:  # a series, a season, a folder
            types = [kind for kind in VIDEO_TYPES if kind in kinds]
            count = episodes if "Episode" in types else str(limit)
            return list((await native_items(parse_item_query({**base, "parentId": [wanted], "type": types,
                                                               "limit": [count]}))).items), {}  # fmt: skip
        libraries = [lib for lib in libraries if lib.id == wanted]
    found: list[ItemSummary | ItemKey] = []
    states: dict[str, WatchState] = {}
    for library in libraries:
        for kind in [k for k in LATEST_TYPES.get(library.collection_type, VIDEO_TYPES) if k in kinds]:
            count = episodes if kind == "Episode" else str(limit)
            query = parse_item_query({**base, "libraryId": [library.id], "type": [kind], "limit": [count]})
            if kind == "Episode":
                found.extend(await native_keys(query))
            else:
                # A member's own states come with the page; an API key's named user's are read after.
                signed_in = signed_in_member() is not None
                page = await native_items(query, with_states=signed_in)
                found.extend(page.items)
                states.update(own_states(page) if signed_in else {})
    found.sort(key=lambda item: (item.date_created_ms, item.id), reverse=True)
    return found, states


@route(blueprint, "/UserItems/Resume")
@route(blueprint, "/Users/<user_id>/Items/Resume")
async def resume(user_id: str | None = None) -> Response:
    return await _resume(_args())


async def _resume(args: dict[str, str]) -> Response:
    """The member's items in progress, narrowed and paged as ``/Items`` is (``IncludeItemTypes``,
    ``ParentId``: a view or an item, ``StartIndex``, ``Limit``), with the total of them all."""
    start = count(args, "startindex", "StartIndex", 0)
    limit = min(count(args, "limit", "Limit", MAX_LIMIT), MAX_LIMIT)
    params: dict[str, list[str]] = {}
    types = _resume_types(params) if item_types(args, params) else []
    if types == []:  # only types never held, or every one excluded
        return json(result([], 0, start))
    library_ids = frozenset(library.id for library in await visible_libraries())
    parent, libraries = None, None
    if args.get("parentid"):
        wanted = parent_id(args["parentid"], library_ids)
        libraries, parent = (frozenset({wanted}), None) if wanted in library_ids else (None, wanted)
    page, total = await resume_page(app_context().store, member_id(), limit, start=start,
                                    types=types or (), parent=parent, library_ids=libraries)  # fmt: skip
    dtos = await _listed_dtos(page)
    return json(result(dtos, total, start))


def _resume_types(params: dict[str, list[str]]) -> list[str] | None:
    """The native types a resume list keeps: those included (every one when none is) less those excluded;
    an empty list when nothing is left, None for every type."""
    included, excluded = params.get("type"), params.get("excludeType")
    if not excluded:
        return included
    return sorted(frozenset(included or KNOWN_TYPES) - frozenset(excluded))


@route(blueprint, "/Shows/NextUp")
async def next_up() -> Response:
    args = _args()
    limit = min(count(args, "limit", "Limit", MAX_LIMIT), MAX_LIMIT)
    series = ids.item_id(args["seriesid"]) if args.get("seriesid") else None
    return json(await _listed(await next_up_page(app_context().store, member_id(), series, limit)))


async def _listed(page: WatchPage) -> dict[str, Any]:
    """A next-up page as a QueryResult: the items the member may see, in the list's order."""
    dtos = await _listed_dtos(page)
    return result(dtos, len(dtos))


async def _listed_dtos(page: WatchPage) -> list[dict[str, Any]]:
    """A resume or next-up page's items the member may see, in the list's order."""
    states = {state.item_id: state for state in page.states}
    summaries = [page.items[item_id] for item_id in states if item_id in page.items]
    return await render_summaries(summaries, states=states, known_names=page.names)


@route(blueprint, "/Shows/<series_id>/Seasons")
async def seasons(series_id: str) -> Response:
    query = parse_item_query({"parentId": [ids.item_id(series_id)], "type": ["Season"], "sort": ["index"],
                              "limit": [str(MAX_LIMIT)], "includeTotal": ["true"]})  # fmt: skip
    dtos, total = await native_page(query, _args().get("fields"))
    return json(result(dtos, total))


@route(blueprint, "/Shows/<series_id>/Episodes")
async def episodes(series_id: str) -> Response:
    """A series' episodes in order (a season's: ``SeasonId``, or ``Season`` by number), paged by
    ``StartIndex`` and ``Limit``."""
    args = _args()
    start = count(args, "startindex", "StartIndex", 0)
    limit = min(count(args, "limit", "Limit", MAX_LIMIT), MAX_LIMIT)
    number = count(args, "season", "Season", -1) if args.get("season", "").strip() else None
    parent, recursive = ids.item_id(args.get("seasonid") or series_id), not args.get("seasonid")
    if number is not None and recursive:
        found = await _season_numbered(parent, number)
        if found is None:  # no season folder of that number: episodes straight under the series
            return await _episodes_numbered(parent, number, start, limit, args.get("fields"))
        parent, recursive = found, False
    if limit == 0:
        return json(result([], 0, start))
    params: dict[str, list[str]] = {"parentId": [parent], "type": ["Episode"], "sort": ["index"], "limit": [str(limit)],
                                    "offset": [str(start)], "includeTotal": ["true"]}  # fmt: skip
    if recursive:
        params["recursive"] = ["true"]
    dtos, total = await native_page(native_query(params), args.get("fields"))
    return json(result(dtos, total, start))


async def _season_numbered(series: str, number: int) -> str | None:
    """The id of the series' season of that number, if it has one."""
    query = native_query({"parentId": [series], "type": ["Season"], "limit": [str(MAX_LIMIT)]})
    summaries, _ = await native_summaries(query)
    return next((s["id"] for s in summaries if s.get("indexNumber") == number), None)


async def _episodes_numbered(series: str, number: int, start: int, limit: int, fields: str | None) -> Response:
    query = native_query({"parentId": [series], "recursive": ["true"], "type": ["Episode"], "sort": ["index"],
                          "limit": [str(MAX_LIMIT)]})  # fmt: skip
    dtos, _ = await native_page(query, fields)
    kept = [dto for dto in dtos if dto.get("ParentIndexNumber") == number]
    return json(result(kept[start : start + limit], len(kept), start))


@route(blueprint, "/Search/Hints")
async def search_hints() -> Response:
    args = _args()
    term = args.get("searchterm", "").strip()
    if not term:
        return json({"SearchHints": [], "TotalRecordCount": 0})
    libraries = [lib.id for lib in await visible_libraries()]
    translated = translate({**args, "recursive": "true", "searchterm": term}, libraries)
    dtos, total = await query_page(translated, None)
    return json({"SearchHints": [_hint(dto) for dto in dtos], "TotalRecordCount": total})


def _hint(dto: dict[str, Any]) -> dict[str, Any]:
    hint: dict[str, Any] = {key: dto[key] for key in HINT_FIELDS if key in dto}
    hint["ItemId"] = dto["Id"]
    if "Primary" in dto.get("ImageTags", {}):
        hint["PrimaryImageTag"] = dto["ImageTags"]["Primary"]
    return hint


@route(blueprint, "/Genres")
async def genres() -> Response:
    scope = library_scope_of_request()
    libraries = None if scope is None or scope.library_ids is None else sorted(scope.library_ids)
    args = _args()
    if args.get("parentid"):
        wanted = ids.plain_guid(args["parentid"])
        visible = [lib.id for lib in await visible_libraries()]
        libraries = [wanted] if wanted in visible else []
    names = await genre_names(app_context().store, libraries, parental=await parental_rule_of_request())
    server = server_guid()
    items = [{"Name": n, "Id": ids.name_guid("genre", n), "ServerId": server, "Type": "Genre", "IsFolder": True,
              "ImageTags": {}, "BackdropImageTags": []} for n in names]  # fmt: skip
    return json(result(items, len(items)))
