"""WatchStateActor on a real store (both backends), and the playback sessions that report to it."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import trio

from reelhouse import errors
from reelhouse.actors.playback.messages import EndSession, FindSession, StartSession
from reelhouse.actors.playback.registry import PlaybackRegistry
from reelhouse.actors.playback.session import Progress, SessionTimes
from reelhouse.actors.watch_state import MarkFavorite, MarkPlayed, RecordProgress, WatchStateActor
from reelhouse.runtime import Actor, ChildSpec, RootActor, spawn
from reelhouse.storage import Store
from reelhouse.storage.members import add_user
from reelhouse.storage.watch_state import WatchState, watch_states
from tests.catalog_factory import catalog

from .playback.test_registry import FakeHistory, movie, start_of

LIMIT_S = 20
NOW_MS = 1_800_000_000_000


async def test_marks_reply_the_new_state_and_a_gone_item_is_not_found(store: Store, nursery: trio.Nursery) -> None:
    with trio.fail_after(LIMIT_S):
        async with catalog(store) as cat:
            film = cat.movie(cat.library("Films"), "Arrival")
        who = (await add_user(store, "ana", is_admin=False, password=None)).id
        actor = await spawn(nursery, WatchStateActor(store, wall_ms=lambda: NOW_MS), "watch_state")
        played = await actor.ask(MarkPlayed(who, film))
        favourite = await actor.ask(MarkFavorite(who, film))
        assert favourite == WatchState(film, True, 1, NOW_MS, 0, True) == (await watch_states(store, who, [film]))[film]
        assert played == WatchState(film, True, 1, NOW_MS, 0, False)
        assert await actor.ask(MarkPlayed(who, film, played=False)) == WatchState(film, favorite=True)
        with pytest.raises(errors.NotFound):
            await actor.ask(MarkFavorite(who, "gone"))
        await actor.ask(RecordProgress(who, film, 12_000))  # the actor lives on
        assert (await watch_states(store, who, [film]))[film].position_ms == 12_000


@dataclass(eq=False)
class FakeWatchState(Actor):
    reports: list[RecordProgress] = field(default_factory=list)

    async def handle(self, msg: object) -> object:
        assert isinstance(msg, RecordProgress)
        self.reports.append(msg)
        return None


async def test_a_session_reports_positions_and_counts_one_play_from_ninety_percent(
    nursery: trio.Nursery, autojump_clock: trio.abc.Clock
) -> None:
    fake = FakeWatchState()
    watch = await spawn(nursery, fake, "watch_state")
    history = FakeHistory()
    root = RootActor([ChildSpec("playback", lambda: PlaybackRegistry(history.record, times=SessionTimes(300.0, 10.0),
                                                                       watch=watch))])
    await nursery.start(root.run)
    registry = root.child("playback")
    assert registry is not None
    session_id = await registry.ask(StartSession(start_of(item=movie(duration=1000.0), position=10.0)))
    session = await registry.ask(FindSession(session_id, "dev1"))
    for position in (500.0, 950.0, None):  # no position (a pause): nothing to write
        await session.ask(Progress(position, paused=position is None))
    await registry.ask(EndSession(session_id, "dev1", 990.0, None))
    assert [(r.position_ms, r.finished, r.count_play) for r in fake.reports] == [
        (10_000, False, False), (500_000, False, False), (950_000, True, True), (990_000, True, False),
    ]
    assert {(r.member_id, r.item_id) for r in fake.reports} == {("u1", "movie1")}
    await root.stop(timeout=5)
