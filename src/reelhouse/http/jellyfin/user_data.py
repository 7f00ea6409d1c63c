"""A member's UserData (played, position, play count, favourite) for items on this surface.

The one place this surface reads the watch state: every route renders
``UserData`` through :func:`user_data_for`, so the store behind it is
switched here alone.  Until the members' watch state is stored
(``storage/watch_state.py``, issue 27 item 1), every item reads as
never played and no favourite, as for an API key, which has no member.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reelhouse.storage import Store

from .dto_items import user_data_dto


async def user_data_for(
    store: Store, member_id: str | None, items: Iterable[Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """UserData by our item id for each of ``items`` (native item dicts)."""
    del store, member_id  # read once the watch state is stored
    return {item["id"]: user_data_dto(item["id"], runtime_ticks=item.get("runtimeTicks")) for item in items}


async def resume_item_ids(store: Store, member_id: str | None, limit: int) -> list[str]:
    """The member's items in progress, the most recently played first."""
    del store, member_id, limit
    return []


async def next_up_item_ids(store: Store, member_id: str | None, series_id: str | None, limit: int) -> list[str]:
    """The next unwatched episode of each series in progress (or of ``series_id``)."""
    del store, member_id, series_id, limit
    return []
