"""ContentDirectory ``Search``: the criteria (:mod:`reelhouse.media.dlna.search`) as one scoped item query.

The container searched bounds it: the root searches every library the
DLNA member may see, a library (or any of its views) that library, a
series or season what it holds.  Results are by title, paged as Browse is.
"""

from __future__ import annotations

from dataclasses import replace

from reelhouse.media.dlna.search import parse_criteria
from reelhouse.storage.item_query import ItemQuery

from .objects import page, summary, to_objects
from .tree import MAX_PAGE, ROOT, Page, find_node


async def search(container_id: str, criteria: str, start: int, count: int, base_url: str) -> Page:
    """A page of what ``criteria`` matches within ``container_id``, and how many match."""
    match = parse_criteria(criteria)
    query = await _scope(container_id)
    if match is None:
        return Page([], 0)
    query = replace(
        query, types=tuple(sorted(match.types)), q=match.title, genres=() if match.genre is None else (match.genre,),
        year_from=match.year_from, year_to=match.year_to,
    )  # fmt: skip
    count = MAX_PAGE if count <= 0 else min(count, MAX_PAGE)
    summaries, total = await page(replace(query, offset=start, limit=count, include_total=True))
    return Page(await to_objects(summaries, base_url, None), total)


async def _scope(container_id: str) -> ItemQuery:
    base = ItemQuery(recursive=True, sort="name", missing=False)
    if container_id == ROOT:
        return base
    node = await find_node(container_id)
    if node is not None:
        return replace(base, library_id=node.library.id)
    await summary(container_id)  # 701 unless the member may see it
    return replace(base, parent_id=container_id)
