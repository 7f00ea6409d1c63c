"""A member's UserData (played, position, play count, favourite) on this surface, from the watch state.

The one place this surface reads the members' watch state
(``storage/watch_state.py``) and asks its actor for marks
(``actors/watch_state.py``): every route renders ``UserData`` through
:func:`user_data_of`.  An API key has no member: every item reads as
never played and no favourite, as on the native API.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from reelhouse import errors
from reelhouse.actors.watch_state import MarkFavorite, MarkPlayed
from reelhouse.storage import Store
from reelhouse.storage.item_query import ItemPage
from reelhouse.storage.watch_state import (
    CONTAINER_TYPES,
    ListedItems,
    WatchPage,
    WatchState,
    next_up_list,
    resume_list,
    watch_states,
)
from reelhouse.timefmt import rfc3339_ms

from ..asks import ask
from ..context import app_context
from ..library_access import library_scope_of_request, parental_rule_of_request
from ..playback_reports import settle_playback
from .dto_items import user_data_dto

TICKS_PER_MS = 10_000


async def user_data_of(
    store: Store, member_id: str | None, refs: Sequence[tuple[str, str, int | None]],
    known: Mapping[str, WatchState] | None = None,
) -> dict[str, dict[str, Any]]:  # fmt: skip
    """UserData by our item id for each of the items given as (id, type, runtime ticks).

    ``known``: the states already read with the items (the resume and next-up
    lists are read from the watch state itself, a page of movies with its
    rows), not read again; the member's others are read.
    """
    states = dict(known or {})
    missing = [(item_id, kind) for item_id, kind, _ in refs if item_id not in states]
    if member_id and missing:
        # Only series and seasons have a state derived from their episodes.
        containers = [item_id for item_id, kind in missing if kind in CONTAINER_TYPES]
        states.update(await watch_states(store, member_id, [item_id for item_id, _ in missing], containers=containers))
    return {item_id: state_dto(item_id, states.get(item_id), runtime) for item_id, _, runtime in refs}


def own_states(page: ItemPage) -> dict[str, WatchState]:
    """The states of a page read ``with_states`` of the items whose state is their own (not a series'
    or season's, derived from its episodes)."""
    return {
        item.id: WatchState(item.id, *page.own_states[item.id]) if item.id in page.own_states else WatchState(item.id)
        for item in page.items if item.type not in CONTAINER_TYPES
    }  # fmt: skip


def state_dto(item_id: str, state: WatchState | None, runtime_ticks: int | None = None) -> dict[str, Any]:
    if state is None:
        return user_data_dto(item_id, runtime_ticks=runtime_ticks)
    data = user_data_dto(
        item_id, played=state.played, position_ticks=state.position_ms * TICKS_PER_MS, play_count=state.play_count,
        favorite=state.favorite, runtime_ticks=runtime_ticks,
        last_played=rfc3339_ms(state.last_played_ms) if state.last_played_ms is not None else None,
    )  # fmt: skip
    if state.unplayed_count is not None:
        data["UnplayedItemCount"] = state.unplayed_count
    return data


def _library_ids() -> frozenset[str] | None:
    scope = library_scope_of_request()
    return None if scope is None else scope.library_ids


async def resume_page(
    store: Store, member_id: str | None, limit: int, *, start: int = 0, types: Sequence[str] = (),
    parent: str | None = None, library_ids: Collection[str] | None = None,
) -> tuple[WatchPage, int]:  # fmt: skip
    """The member's items in progress, the most recently played first, from the ``start``-th on, with
    their states, the summaries of those the member may see (:class:`ListedItems`) and how many there
    are in all (one trip, one snapshot).  ``types``, ``parent`` (an item) and ``library_ids`` (within
    the member's) narrow it."""
    if member_id is None:
        return WatchPage([], None), 0
    rule = await parental_rule_of_request()
    libraries = _library_ids()
    if library_ids is not None:
        libraries = frozenset(library_ids) if libraries is None else libraries & frozenset(library_ids)
    page = await resume_list(store, member_id, libraries, limit=max(limit, 1), listed=ListedItems(rule),
                             types=types, parent_id=parent, offset=start, counted=True)  # fmt: skip
    total = page.total or 0
    return (page if limit > 0 else WatchPage([], None, total=total)), total


async def next_up_page(store: Store, member_id: str | None, series_id: str | None, limit: int) -> WatchPage:
    """The next unwatched episode of each series in progress (or of ``series_id``), with its state
    and the summaries of those the member may see."""
    if member_id is None or limit <= 0:
        return WatchPage([], None)
    listed = ListedItems(await parental_rule_of_request())
    return await next_up_list(store, member_id, _library_ids(), limit=limit, series_id=series_id, listed=listed)


async def mark(member_id: str | None, item_id: str, *, played: bool | None = None,
               favorite: bool | None = None) -> WatchState:  # fmt: skip
    """Mark ``item_id`` played/unplayed or favourite/not for the member (the WatchStateActor writes it)."""
    if member_id is None:
        raise errors.Forbidden("An API key has no user: marking needs a member's sign-in.")
    actor = app_context().actors.watch_state
    if actor is None:
        raise errors.Unavailable("The watch state is not running.", params={"retryAfterSeconds": 5})
    if played is not None:
        if played:
            await settle_playback(member_id, item_id)  # no live session's later report undoes the mark
        return await ask(actor, MarkPlayed(member_id, item_id, played))
    return await ask(actor, MarkFavorite(member_id, item_id, bool(favorite)))
