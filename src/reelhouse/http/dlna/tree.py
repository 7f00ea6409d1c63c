"""The ContentDirectory tree a television browses, read from the catalogue.

``0`` is the root; its children are the libraries the DLNA member may see
(``lib.<id>``).  A library's children are views (``lib.<id>.<view>``):

- a movies library: By title, By year (``.year.<YYYY>``: that year's
  films), By genre (``.genre.<name>``), Recently added (the newest
  :data:`RECENT_COUNT` films);
- a shows library: Series (by title; a series lists its seasons and
  season-less episodes in order, a season its episodes in order) and
  Recently added (episodes);
- a mixed library: By title (films and series) and Recently added;
- every library: Folders, as on disk (:mod:`.folders`).

Films and episodes are items (:mod:`.objects`); an object outside the
member's libraries is "no such object".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import quote, unquote

from reelhouse.media.dlna.didl import Container
from reelhouse.media.dlna.sort import Order
from reelhouse.storage.genres import genre_names
from reelhouse.storage.item_query import MAX_IDS, ItemQuery
from reelhouse.storage.item_years import production_years
from reelhouse.storage.libraries import LibraryRecord, list_libraries

from ..context import app_context
from ..library_access import parental_rule_of_request, visible
from .folders import FOLDERS_VIEW, folder_children, folder_parent, folder_title
from .objects import DidlObject, no_such_object, page, page_objects, summary, to_objects
from .ordering import ordered, ordered_containers
from .remembered import remembered

ROOT = "0"
LIBRARY_PREFIX = "lib."
MAX_PAGE = 100  # RequestedCount 0 ("all") or more is answered with this many; TotalMatches tells the rest
RECENT_COUNT = 50
VIEW_TITLES = {"title": "By title", "year": "By year", "genre": "By genre", "recent": "Recently added",
               "series": "Series", FOLDERS_VIEW: "Folders"}  # fmt: skip
VIEWS = {"movies": ("title", "year", "genre", "recent", FOLDERS_VIEW), "tvshows": ("series", "recent", FOLDERS_VIEW)}
MIXED_VIEWS = ("title", "recent", FOLDERS_VIEW)
VALUED_VIEWS = ("year", "genre", FOLDERS_VIEW)
TITLE_TYPES = {"movies": ("Movie",), "tvshows": ("Series",)}
RECENT_TYPES = {"movies": ("Movie",), "tvshows": ("Episode",)}


@dataclass(frozen=True, slots=True)
class Page:
    objects: list[DidlObject]
    total: int


@dataclass(frozen=True, slots=True)
class Node:
    """An object id read: the root, a library (``view`` None), a view, or a year or genre in one."""

    library: LibraryRecord
    view: str | None = None
    value: str | None = None  # the year or genre

    @property
    def id(self) -> str:
        parts = [LIBRARY_PREFIX + self.library.id, self.view, None if self.value is None else quote(self.value)]
        return ".".join(p for p in parts if p is not None)


async def metadata(object_id: str, base_url: str) -> DidlObject:
    """The object itself (BrowseMetadata)."""
    if object_id == ROOT:
        return Container(ROOT, "-1", app_context().settings.effective_server_name, len(await libraries()))
    node = await find_node(object_id)
    if node is None:
        return (await to_objects([await summary(object_id)], base_url, None))[0]
    return _container(node)


async def children(object_id: str, start: int, count: int, base_url: str, order: Order | None = None) -> Page:
    """A page of the object's children (BrowseDirectChildren) and how many there are, in ``order`` if given."""
    count = MAX_PAGE if count <= 0 else min(count, MAX_PAGE)
    if object_id == ROOT:
        return _slice([_container(Node(lib)) for lib in await libraries()], start, count, order)
    node = await find_node(object_id)
    if node is None:
        return await _item_children(object_id, start, count, base_url, order)
    if node.view is None:
        return _slice([_container(Node(node.library, v)) for v in _views(node.library)], start, count, order)
    if node.view == FOLDERS_VIEW:
        objects, total = await folder_children(node.library, node.value, start, count, base_url, order)
        return Page(objects, total)
    if node.view in ("year", "genre") and node.value is None:
        values = await _values(node)
        return _slice([_container(Node(node.library, node.view, v)) for v in values], start, count, order)
    query, limit = _view_query(node)
    if limit < MAX_IDS and order is not None:  # Recently added: the newest, then in the order asked for
        newest, _ = await page(replace(query, limit=limit))
        if not newest:
            return Page([], 0)  # (an empty ids filter would be no filter at all)
        query = ItemQuery(ids=tuple(s["id"] for s in newest))
    query = ordered(query, order)
    count = max(0, min(count, limit - start))
    objects, total = await page_objects(replace(query, offset=start, limit=max(count, 1), include_total=True),
                                        base_url, node.id if query.parent_id is None else None)  # fmt: skip
    return Page(objects[:count], min(total, limit))


async def libraries() -> list[LibraryRecord]:
    """The libraries the DLNA member may see (the list read again at most every second)."""
    every = await remembered("libraries", lambda: list_libraries(app_context().store))
    return [lib for lib in every if visible(lib.id)]


async def find_node(object_id: str) -> Node | None:
    """The library, view, year or genre ``object_id`` names; None for a catalogue item's id."""
    if not object_id.startswith(LIBRARY_PREFIX):
        return None
    library_id, _, rest = object_id.removeprefix(LIBRARY_PREFIX).partition(".")
    library = next((lib for lib in await libraries() if lib.id == library_id), None)
    view, _, value = rest.partition(".")
    if library is None or (view and view not in _views(library)) or (value and view not in VALUED_VIEWS):
        raise no_such_object()
    if view == "year" and value and not value.isdigit():
        raise no_such_object()
    return Node(library, view or None, unquote(value) if value else None)


def library_types(library: LibraryRecord) -> tuple[str, ...]:
    """The item types a library's "by title" view lists."""
    return TITLE_TYPES.get(library.collection_type, ("Movie", "Series"))


def _views(library: LibraryRecord) -> tuple[str, ...]:
    return VIEWS.get(library.collection_type, MIXED_VIEWS)


def _container(node: Node) -> Container:
    if node.view is None:
        return Container(node.id, ROOT, node.library.name)
    if node.view == FOLDERS_VIEW and node.value is not None:
        return Container(node.id, folder_parent(node.library, node.value), folder_title(node.library, node.value))
    parent = Node(node.library, node.view if node.value is not None else None)
    title = node.value if node.value is not None else VIEW_TITLES[node.view]
    return Container(node.id, parent.id, title)


def _slice(containers: list[Container], start: int, count: int, order: Order | None) -> Page:
    chosen: list[DidlObject] = list(ordered_containers(containers, order)[start : start + count])
    return Page(chosen, len(containers))


async def _values(node: Node) -> list[str]:
    """A library's years or genres: only those of items the member's parental rule lets through."""
    store, rule = app_context().store, await parental_rule_of_request()
    if node.view == "year":
        years = await production_years(store, node.library.id, library_types(node.library), rule)
        return [str(y) for y in years]
    return await genre_names(store, [node.library.id], parental=rule)


def _view_query(node: Node) -> tuple[ItemQuery, int]:
    """The item query of a view's (or a year's or genre's) items, and at most how many it shows."""
    library, types = node.library, library_types(node.library)
    query = ItemQuery(library_id=library.id, recursive=True, types=types, sort="name", missing=False)
    if node.view == "recent":
        recent = RECENT_TYPES.get(library.collection_type, ("Movie", "Episode"))
        return replace(query, types=recent, sort="dateAdded", order="desc"), RECENT_COUNT
    if node.view == "year" and node.value is not None:
        return replace(query, years=(int(node.value),)), 2**32
    if node.view == "genre" and node.value is not None:
        return replace(query, genres=(node.value.lower(),)), 2**32
    return query, 2**32


async def _item_children(object_id: str, start: int, count: int, base_url: str, order: Order | None) -> Page:
    parent = await summary(object_id)
    if parent["type"] not in ("Series", "Season"):
        return Page([], 0)
    types = ("Season", "Episode") if parent["type"] == "Series" else ("Episode",)
    query = ordered(ItemQuery(parent_id=object_id, types=types, sort="index", missing=False), order)
    objects, total = await page_objects(replace(query, offset=start, limit=count, include_total=True), base_url, None)
    return Page(objects, total)
