"""ContentDirectory ``Search``: the criteria (:mod:`reelhouse.media.dlna.search`) as scoped item queries.

The container searched bounds it: the root searches every library the
DLNA member may see, a library (or any of its views) that library, a
series or season what it holds.  Results are by title (or the
``SortCriteria``' order, :mod:`.ordering`), paged as Browse is.

Criteria that read as one match are one item query, paged by the
catalogue.  An ``or`` of different titles, genres or dates is one query
per branch: each branch's items are read (at most :data:`MAX_FOUND` in
all, by pages of the item query's largest), joined without duplicates,
ordered here as the catalogue would (title, year, season and episode
number, runtime; the file's size and resolution, which the summaries do
not carry, fall back to title) and paged; TotalMatches counts at most
:data:`MAX_FOUND`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from reelhouse.media.dlna.search import Match, parse_criteria
from reelhouse.media.dlna.sort import Order
from reelhouse.storage.item_query import MAX_LIMIT, ItemQuery

from .objects import page, page_objects, summary, to_objects
from .ordering import ordered
from .tree import MAX_PAGE, ROOT, Page, find_node

MAX_FOUND = 2000
SEASON_FACTOR = 1_000_000  # as the catalogue's index sort: season * 1,000,000 + episode
_MISSING = float("inf")


async def search(container_id: str, criteria: str, start: int, count: int, base_url: str,
                 order: Order | None = None) -> Page:  # fmt: skip
    """A page of what ``criteria`` matches within ``container_id``, and how many match."""
    matches = parse_criteria(criteria)
    scope = ordered(await _scope(container_id), order)
    count = MAX_PAGE if count <= 0 else min(count, MAX_PAGE)
    if not matches:
        return Page([], 0)
    if len(matches) == 1:
        query = replace(_matching(scope, matches[0]), offset=start, limit=count, include_total=True)
        objects, total = await page_objects(query, base_url, None)
        return Page(objects, total)
    found: dict[str, dict[str, Any]] = {}
    for match in matches:
        await _read_into(found, _matching(scope, match))
    joined = sorted(found.values(), key=_sort_key(order), reverse=order is not None and order.descending)
    return Page(await to_objects(joined[start : start + count], base_url, None), len(joined))


async def _scope(container_id: str) -> ItemQuery:
    base = ItemQuery(recursive=True, sort="name", missing=False)
    if container_id == ROOT:
        return base
    node = await find_node(container_id)
    if node is not None:
        return replace(base, library_id=node.library.id)
    await summary(container_id)  # 701 unless the member may see it
    return replace(base, parent_id=container_id)


def _matching(scope: ItemQuery, match: Match) -> ItemQuery:
    return replace(
        scope, types=tuple(sorted(match.types)), q=match.title, genres=() if match.genre is None else (match.genre,),
        year_from=match.year_from, year_to=match.year_to,
    )  # fmt: skip


async def _read_into(found: dict[str, dict[str, Any]], query: ItemQuery) -> None:
    """Every item ``query`` matches into ``found`` (by id), until it holds MAX_FOUND."""
    offset = 0
    while len(found) < MAX_FOUND:
        summaries, _ = await page(replace(query, offset=offset, limit=MAX_LIMIT))
        for item in summaries[: MAX_FOUND - len(found)]:
            found.setdefault(item["id"], item)
        if len(summaries) < MAX_LIMIT:
            return
        offset += MAX_LIMIT


def _sort_key(order: Order | None) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """The catalogue's order over item summaries: the value (a missing one last), then the title."""
    sort = "name" if order is None else order.sort
    missing = -_MISSING if order is not None and order.descending else _MISSING

    def value(item: dict[str, Any]) -> float:
        if sort == "year":
            return item.get("productionYear") or missing
        if sort == "runtime":
            return item.get("runtimeTicks") or 0
        if sort == "index":
            number = item.get("indexNumber")
            if number is None or item["type"] != "Episode":
                return number or 0
            return (item.get("parentIndexNumber") or 0) * SEASON_FACTOR + number
        return 0  # by title (and size and resolution, which summaries do not carry)

    return lambda item: (value(item), _name_key(item.get("sortName") or item["name"]), item["id"])


def _name_key(name: str) -> str:
    """Case- and accent-insensitive, as the catalogue's name key."""
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)).casefold()
