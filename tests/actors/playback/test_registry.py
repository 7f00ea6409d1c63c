"""PlaybackRegistry and its PlaybackActors, with a fake recorder and a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
import trio
import trio.lowlevel

from reelhouse import errors
from reelhouse.actors.playback.messages import (
    AttachSocket,
    DetachSocket,
    EndSession,
    FindSession,
    ListSessions,
    SessionStart,
    SessionView,
    SocketGrant,
    StartSession,
    StopSession,
    StreamedBytes,
)
from reelhouse.actors.playback.recording import LiveState
from reelhouse.actors.playback.registry import PlaybackRegistry
from reelhouse.actors.playback.session import PlaybackActor, Progress, SessionTimes
from reelhouse.media.play_record import EndedPlayback
from reelhouse.runtime import ActorRef, ChildSpec, RootActor, spawn
from reelhouse.storage.playback_items import PlaybackItem

START_WALL_MS = 1_800_000_000_000
LIMIT_S = 10_000  # fake seconds: autojump_clock makes them instant


def movie(item_id: str = "movie1", duration: float = 6000.0) -> PlaybackItem:
    return PlaybackItem(item_id, "lib1", "Movie", "movie", "Arrival", None, None, None, duration, 8000)


def start_of(item: PlaybackItem | None = None, device: str = "dev1", **changes: object) -> SessionStart:
    values: dict[str, object] = dict(
        item=item or movie(), member_id="u1", member_name="Ann", device_id=device, device_name="Living room",
        player="TestPlayer", delivery="direct_play", ip="127.0.0.1", position=0.0, paused=False,
    )
    values.update(changes)
    return SessionStart(**values)  # type: ignore[arg-type]


@dataclass
class FakeHistory:
    records: list[EndedPlayback] = field(default_factory=list)
    changed: trio.Event = field(default_factory=trio.Event)

    async def record(self, ended: EndedPlayback) -> str:
        self.records.append(ended)
        self.changed.set()
        self.changed = trio.Event()
        return str(len(self.records))

    async def wait_for(self, count: int) -> list[EndedPlayback]:
        while len(self.records) < count:
            await self.changed.wait()
        return self.records


@dataclass
class Playback:
    root: RootActor
    ref: ActorRef
    history: FakeHistory
    activity: list[bool]


@pytest.fixture
async def playback(nursery: trio.Nursery) -> AsyncIterator[Playback]:
    history, activity = FakeHistory(), []

    async def note(active: bool) -> None:
        activity.append(active)

    registry = lambda: PlaybackRegistry(history.record, times=SessionTimes(300.0, 10.0), activity=note,  # noqa: E731
                                        wall_ms=lambda: START_WALL_MS)
    root = RootActor([ChildSpec("playback", registry)])
    await nursery.start(root.run)
    ref = root.child("playback")
    assert ref is not None
    yield Playback(root, ref, history, activity)
    await root.stop(timeout=5)


async def start(playback: Playback, **changes: object) -> str:
    session_id = await playback.ref.ask(StartSession(start_of(**changes)))  # type: ignore[arg-type]
    assert isinstance(session_id, str)
    return session_id


async def report(playback: Playback, session_id: str, position: float | None, paused: bool | None = None,
                 device: str = "dev1") -> None:  # fmt: skip
    session = await playback.ref.ask(FindSession(session_id, device))
    assert isinstance(session, ActorRef)
    await session.ask(Progress(position, paused))


async def sessions(playback: Playback) -> list[SessionView]:
    views = await playback.ref.ask(ListSessions())
    assert isinstance(views, list)
    return views


async def test_a_session_without_reports_for_five_minutes_ends_itself_into_history(
    playback: Playback, autojump_clock: object
) -> None:
    with trio.fail_after(LIMIT_S):
        session_id = await start(playback)
        await trio.sleep(60)
        await report(playback, session_id, 60.0)
        await trio.sleep(299)
        assert len(await sessions(playback)) == 1  # 4 min 59 s after the last report: still live
        [ended] = await playback.history.wait_for(1)
    assert ended.session_id == session_id
    assert ended.watched_sec == pytest.approx(60.0)  # up to the last report, not the idle end
    assert ended.ended_at_ms == START_WALL_MS + 60_000
    assert await sessions(playback) == []


async def test_reports_keep_a_session_alive(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        session_id = await start(playback)
        for minute in range(1, 16):
            await trio.sleep(240)
            await report(playback, session_id, minute * 240.0)
        assert [view.id for view in await sessions(playback)] == [session_id]
        assert playback.history.records == []


async def test_watched_time_leaves_pauses_out(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        session_id = await start(playback)
        await trio.sleep(100)
        await report(playback, session_id, 100.0, paused=True)
        await trio.sleep(250)
        await report(playback, session_id, 100.0, paused=True)  # still paused: counts nothing
        await trio.sleep(50)
        await report(playback, session_id, 100.0, paused=False)
        await trio.sleep(50)
        await playback.ref.ask(EndSession(session_id, "dev1", 150.0, None))
    [ended] = playback.history.records
    assert ended.watched_sec == pytest.approx(150.0)
    assert ended.furthest_sec == 150.0
    assert ended.ended_at_ms == START_WALL_MS + 450_000


async def test_stopped_writes_the_record_before_it_answers(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        session_id = await start(playback, position=30.0)
        await report(playback, session_id, 5400.0)
        await report(playback, session_id, 100.0)  # sought back: the furthest point stays
        await playback.ref.ask(EndSession(session_id, "dev1", None, None))
        [ended] = playback.history.records
        assert ended.furthest_sec == 5400.0
        assert (ended.member_name, ended.device_name, ended.player, ended.kind) == ("Ann", "Living room", "TestPlayer", "movie")
        with pytest.raises(errors.NotFound):
            await playback.ref.ask(EndSession(session_id, "dev1", None, None))


async def test_a_crashed_session_leaves_the_others_alone(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        doomed, other = await start(playback), await start(playback, device="dev2")
        doomed_ref = await playback.ref.ask(FindSession(doomed, "dev1"))
        assert isinstance(doomed_ref, ActorRef)
        await doomed_ref.tell("a message no session understands")  # crashes it
        while doomed_ref.alive:
            await trio.sleep(0.01)
        await report(playback, other, 42.0, device="dev2")
        [view] = await sessions(playback)
    assert (view.id, view.position) == (other, 42.0)
    with pytest.raises(errors.NotFound):
        await playback.ref.ask(FindSession(doomed, "dev1"))


async def test_a_bad_position_is_refused_and_changes_nothing(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        session_id = await start(playback, position=10.0)
        for bad in (-1.0, float("nan"), float("inf"), 60001.0, 8 * 24 * 3600.0):
            with pytest.raises(errors.Invalid):
                await report(playback, session_id, bad, paused=True)
        [view] = await sessions(playback)
    assert (view.position, view.paused) == (10.0, False)


async def test_another_devices_report_is_not_found(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        session_id = await start(playback)
        with pytest.raises(errors.NotFound):
            await report(playback, session_id, 10.0, device="dev2")
        with pytest.raises(errors.NotFound):
            await playback.ref.ask(EndSession(session_id, "dev2", None, None))
        assert [view.id for view in await sessions(playback)] == [session_id]


async def test_the_same_play_session_id_finds_the_live_session(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        first = await start(playback, play_session_id="p-1")
        again = await start(playback, play_session_id="p-1")
        other_device = await start(playback, play_session_id="p-1", device="dev2")
    assert first == again != other_device


async def test_stop_without_a_socket_is_not_stoppable(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        session_id = await start(playback)
        with pytest.raises(errors.Conflict) as refused:
            await playback.ref.ask(StopSession(session_id))
        with pytest.raises(errors.NotFound):
            await playback.ref.ask(StopSession("no-such-session"))
    assert refused.value.code == "session_not_stoppable"


async def test_stop_goes_down_the_socket_and_the_session_ends_after_the_wait(
    playback: Playback, autojump_clock: object
) -> None:
    with trio.fail_after(LIMIT_S):
        session_id = await start(playback)
        grant = await playback.ref.ask(AttachSocket("dev1"))
        assert isinstance(grant, SocketGrant)
        [view] = await sessions(playback)
        assert view.stoppable
        async with trio.open_nursery() as nursery:
            nursery.start_soon(playback.ref.ask, StopSession(session_id))
            command = await grant.control.receive()
            assert command.session_id == session_id
            command.answer.send_nowait(True)
        stopped_at = trio.current_time()
        [ended] = await playback.history.wait_for(1)
    assert trio.current_time() - stopped_at == pytest.approx(10.0)  # the fake clock: exactly the wait
    assert ended.session_id == session_id


async def test_a_detached_socket_makes_sessions_not_stoppable(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        await start(playback)
        grant = await playback.ref.ask(AttachSocket("dev1"))
        assert isinstance(grant, SocketGrant)
        await playback.ref.ask(DetachSocket("dev1", grant.socket_id))
        [view] = await sessions(playback)
        assert not view.stoppable
        closed = await playback.ref.ask(AttachSocket("dev1"))
        assert isinstance(closed, SocketGrant)
        closed.control.close()  # the socket's task ended without telling: still noticed
        [view] = await sessions(playback)
    assert not view.stoppable


async def test_streamed_bytes_make_the_bandwidth_and_a_redirect_has_none(
    playback: Playback, autojump_clock: object
) -> None:
    with trio.fail_after(LIMIT_S):
        direct = await start(playback)
        redirected = await start(playback, device="dev2", delivery="redirect")
        await trio.sleep(10)
        for device in ("dev1", "dev2"):
            await playback.ref.tell(StreamedBytes(device, "movie1", 10_000_000))
        await playback.ref.tell(StreamedBytes("dev1", "another-item", 10_000_000))  # no session: dropped
        await trio.lowlevel.checkpoint()
        views = {view.id: view for view in await sessions(playback)}
    assert views[direct].bandwidth_kbps == 8000  # 80,000 kbit in 10 s
    assert views[redirected].bandwidth_kbps == 0


async def test_stopping_the_server_ends_every_live_session_into_history(
    nursery: trio.Nursery, autojump_clock: object
) -> None:
    history = FakeHistory()
    root = RootActor([ChildSpec("playback", lambda: PlaybackRegistry(history.record))])
    with trio.fail_after(LIMIT_S):
        await nursery.start(root.run)
        ref = root.child("playback")
        assert ref is not None
        ids = {await ref.ask(StartSession(start_of(device=f"dev{n}"))) for n in range(3)}
        await trio.sleep(30)
        await root.stop(timeout=5)
    assert {ended.session_id for ended in history.records} == ids
    assert all(ended.watched_sec == pytest.approx(30.0) for ended in history.records)


async def test_whether_anyone_plays_is_reported_once_per_change(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        await trio.sleep(1)
        first, second = await start(playback), await start(playback, device="dev2")
        await trio.sleep(1)
        await playback.ref.ask(EndSession(first, "dev1", None, None))
        await playback.ref.ask(EndSession(second, "dev2", None, None))
        await trio.sleep(1)
    assert playback.activity == [False, True, False]  # at start, then once per change


async def test_the_bytes_go_to_the_newest_session_of_the_device_and_item_then_to_the_one_left(
    playback: Playback, autojump_clock: object
) -> None:
    with trio.fail_after(LIMIT_S):
        older = await start(playback)
        newer = await start(playback)
        await trio.sleep(10)
        await playback.ref.tell(StreamedBytes("dev1", "movie1", 10_000_000))
        first = {view.id: view.bandwidth_kbps for view in await sessions(playback)}
        await playback.ref.ask(EndSession(newer, "dev1", None, None))
        while len(await sessions(playback)) > 1:
            await trio.lowlevel.checkpoint()  # the ended session is forgotten as its task ends
        await playback.ref.tell(StreamedBytes("dev1", "movie1", 10_000_000))
        second = {view.id: view.bandwidth_kbps for view in await sessions(playback)}
    assert first == {older: 0, newer: 8000}
    assert second == {older: 8000}


async def test_a_socket_that_fails_to_send_stop_is_409_at_once_and_detached(
    playback: Playback, autojump_clock: object
) -> None:
    outcome: list[BaseException] = []

    async def stop(session_id: str) -> None:
        try:
            await playback.ref.ask(StopSession(session_id))
        except errors.Conflict as refused:
            outcome.append(refused)

    with trio.fail_after(LIMIT_S):
        session_id = await start(playback)
        grant = await playback.ref.ask(AttachSocket("dev1"))
        assert isinstance(grant, SocketGrant)
        asked_at = trio.current_time()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stop, session_id)
            command = await grant.control.receive()
            command.answer.send_nowait(False)  # the socket broke while sending
        [view] = await sessions(playback)
    assert trio.current_time() == asked_at  # no timeout waited out
    assert [getattr(error, "code", None) for error in outcome] == ["session_not_stoppable"]
    assert not view.stoppable


async def test_a_session_that_ends_by_itself_records_itself_with_no_registry_to_hear_it(
    nursery: trio.Nursery, autojump_clock: object
) -> None:
    """Regression: a session ending by itself told its registry, and a registry already stopping
    (its mailbox closed) never heard it: that play was lost from history."""
    history = FakeHistory()
    actor = PlaybackActor("s1", start_of(), SessionTimes(300.0, 10.0), history.record, START_WALL_MS)
    with trio.fail_after(LIMIT_S):
        session = await spawn(nursery, actor, "s1")
        await session.ask(Progress(42.0, None))
        [ended] = await history.wait_for(1)
        while session.alive:
            await trio.sleep(1)
    assert ended.session_id == "s1" and ended.furthest_sec == pytest.approx(42.0)


@dataclass
class FakeLive:
    """Saved states in memory; ``left`` is what a dead process left."""

    left: list[EndedPlayback] = field(default_factory=list)
    saves: list[tuple[float, EndedPlayback]] = field(default_factory=list)

    async def save(self, state: EndedPlayback) -> None:
        self.saves.append((trio.current_time(), state))

    async def left_behind(self) -> list[EndedPlayback]:
        return self.left

    def state(self, interval: float) -> LiveState:
        return LiveState(self.save, self.left_behind, interval)


async def test_a_live_session_saves_its_state_at_start_and_after_reports_at_most_once_an_interval(
    nursery: trio.Nursery, autojump_clock: object
) -> None:
    history, live = FakeHistory(), FakeLive()
    actor = PlaybackActor("s1", start_of(position=30.0), SessionTimes(300.0, 10.0), history.record, START_WALL_MS,
                          live.state(10.0))
    with trio.fail_after(LIMIT_S):
        session = await spawn(nursery, actor, "s1")
        began = trio.current_time()
        await trio.sleep(1)
        await session.ask(Progress(60.0, None))
        await trio.sleep(1)
        await session.ask(Progress(120.0, None))
        await trio.sleep(60)  # no report: nothing new to save
        await session.ask(Progress(130.0, True))
        await trio.sleep(1)
    saved = [(round(at - began), state.furthest_sec, state.end_reason) for at, state in live.saves]
    assert saved == [(0, 30.0, "crash"), (10, 120.0, "crash"), (62, 130.0, "crash")]
    last = live.saves[-1][1]
    assert last.watched_sec == pytest.approx(62.0) and last.ended_at_ms == START_WALL_MS + 62_000


async def test_a_registry_records_the_sessions_a_dead_process_left_before_it_answers(
    nursery: trio.Nursery, autojump_clock: object
) -> None:
    history = FakeHistory()
    left = EndedPlayback("gone", "movie1", "u1", "Ann", "dev1", "Living room", "TestPlayer", "movie", "Arrival",
                         None, None, None, START_WALL_MS, START_WALL_MS + 5000, 6000.0, 5.0, 1500.0, "direct_play",
                         None, end_reason="crash")
    registry = lambda: PlaybackRegistry(history.record, live=FakeLive([left]).state(10.0))  # noqa: E731
    root = RootActor([ChildSpec("playback", registry)])
    with trio.fail_after(LIMIT_S):
        await nursery.start(root.run)
        recorded = list(history.records)
        await root.stop(timeout=5)
    assert recorded == [left]
