"""WatchStateActor: the one writer of each member's watch state (``storage/watch_state.py``).

Commands from the HTTP edge (mark played, favourite) and play reports from
playback sessions (:class:`RecordProgress`, asked by a PlaybackActor) come
here as typed asks; each is written before the reply, in arrival order, so
a player that reads its resume list after a report or a mark sees it.  The
HTTP edge reads the state straight from the store (queries).

Replies: the item's new :class:`WatchState` for a mark; NotFound for an item
(or member) that is gone; 503 Unavailable while the database is down or
full (logged once by the store), the actor living on.  The wall clock
(``last_played_ms``) is injected, so tests can fix it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from reelhouse import errors
from reelhouse.runtime import Actor, Ask, wall_clock_ms
from reelhouse.storage import Store, StoreFull, StoreUnavailable
from reelhouse.storage.watch_state import WatchState, record_progress, set_favorite, set_played, watch_states

WATCH_STATE_MAILBOX_SIZE = 256  # every play report of every live session passes here
STORE_RETRY_SECONDS = 5


@dataclass(frozen=True, slots=True)
class MarkPlayed(Ask[WatchState]):
    """Ask: mark ``item_id`` played (``played=False``: unplayed) for the member; a series or
    season marks each of its episodes. Replies the item's new state."""

    member_id: str
    item_id: str
    played: bool = True


@dataclass(frozen=True, slots=True)
class MarkFavorite(Ask[WatchState]):
    """Ask: mark ``item_id`` a favourite of the member (``favorite=False``: not). Replies its new state."""

    member_id: str
    item_id: str
    favorite: bool = True


@dataclass(frozen=True, slots=True)
class RecordProgress(Ask[None]):
    """Ask: a play report's position. ``finished``: at 90 % or more (played, position cleared);
    ``count_play``: the session's first finished report (one more play)."""

    member_id: str
    item_id: str
    position_ms: int
    finished: bool = False
    count_play: bool = False


class WatchStateActor(Actor):
    def __init__(self, store: Store, *, wall_ms: Callable[[], int] = wall_clock_ms) -> None:
        self._store = store
        self._wall_ms = wall_ms

    async def handle(self, msg: object) -> object:
        try:
            return await self._handle(msg)
        except (StoreUnavailable, StoreFull) as exc:
            raise errors.Unavailable(
                f"The request failed: {exc.summary}.", params={"retryAfterSeconds": STORE_RETRY_SECONDS}
            ) from exc

    async def _handle(self, msg: object) -> object:
        store = self._store
        match msg:
            case MarkPlayed(member_id=member_id, item_id=item_id, played=played):
                await set_played(store, member_id, item_id, played, self._wall_ms())
                return await self._state(member_id, item_id)
            case MarkFavorite(member_id=member_id, item_id=item_id, favorite=favorite):
                await set_favorite(store, member_id, item_id, favorite)
                return await self._state(member_id, item_id)
            case RecordProgress():
                await record_progress(
                    store, msg.member_id, msg.item_id, position_ms=msg.position_ms, finished=msg.finished,
                    count_play=msg.count_play, at_ms=self._wall_ms(),
                )  # fmt: skip
                return None
            case _:
                raise TypeError(f"unexpected message {msg!r}")

    async def _state(self, member_id: str, item_id: str) -> WatchState:
        return (await watch_states(self._store, member_id, [item_id]))[item_id]
