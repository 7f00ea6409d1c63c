"""A Browse's or Search's ``SortCriteria`` applied (:mod:`reelhouse.media.dlna.sort` reads them).

Lists the catalogue pages (a view's films, a series' seasons and
episodes, a search) are ordered by the item query itself, so paging stays
one query.  Lists built here (the libraries, the views, years, genres,
folder names) are containers, ordered by title (``dc:title``; a year also
by ``dc:date``).  A list of chosen items (Recently added, a folder's
files) is ordered by one item query over their ids when there are at most
:data:`~reelhouse.storage.item_query.MAX_IDS` of them; a larger folder
keeps its file names' order (reversed for ``-dc:title``).  Without
criteria every list keeps its own order (docs/dlna.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from reelhouse.media.dlna.didl import Container
from reelhouse.media.dlna.sort import Order
from reelhouse.storage.item_query import MAX_IDS, ItemQuery

from .objects import page


def ordered(query: ItemQuery, order: Order | None) -> ItemQuery:
    """``query`` in the order asked for, or as it is without one."""
    return query if order is None else replace(query, sort=order.sort, order=order.order)


def ordered_containers(containers: list[Container], order: Order | None) -> list[Container]:
    """Containers by title (or a year's by its number for ``dc:date``); as they are for another order."""
    if order is None:
        return containers
    if order.sort == "year" and all(c.title.isdigit() for c in containers):
        return sorted(containers, key=lambda c: int(c.title), reverse=order.descending)
    if order.sort == "name":
        return sorted(containers, key=lambda c: c.title.casefold(), reverse=order.descending)
    return containers


async def ordered_ids(ids: Sequence[str], order: Order | None) -> list[str]:
    """``ids`` in the order asked for (those the member may see); as they are without one or past MAX_IDS."""
    if order is None or not ids:
        return list(ids)
    if len(ids) > MAX_IDS:
        return list(reversed(ids)) if order.sort == "name" and order.descending else list(ids)
    summaries, _ = await page(ordered(ItemQuery(ids=tuple(ids), limit=len(ids)), order))
    return [s["id"] for s in summaries]
