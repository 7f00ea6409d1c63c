"""Parental time rules on a playing session: it is stopped at the daily limit or the window's end.

A fake clock (autojump_clock) and a fake history, as in test_registry.py.
"""

from __future__ import annotations

import pytest
import trio

from reelhouse.actors.playback.messages import AttachSocket, EndSession, PlayLimit, SocketGrant
from reelhouse.media.play_record import PARENTAL_TIME

from .test_registry import LIMIT_S, Playback, playback, report, sessions, start

__all__ = ["playback"]  # the fixture, shared


async def test_a_playing_session_ends_when_the_play_time_left_runs_out(
    playback: Playback, autojump_clock: object
) -> None:
    with trio.fail_after(LIMIT_S):
        began = trio.current_time()
        session_id = await start(playback, limit=PlayLimit(watch_seconds=250.0))
        await trio.sleep(100)
        await report(playback, session_id, 100.0)
        [ended] = await playback.history.wait_for(1)
        live = await sessions(playback)
    assert trio.current_time() - began == pytest.approx(250.0)
    assert ended.session_id == session_id and ended.end_reason == PARENTAL_TIME
    assert ended.watched_sec == pytest.approx(250.0) and live == []


async def test_pauses_do_not_use_up_the_play_time_left(playback: Playback, autojump_clock: object) -> None:
    with trio.fail_after(LIMIT_S):
        began = trio.current_time()
        session_id = await start(playback, limit=PlayLimit(watch_seconds=200.0))
        await trio.sleep(100)
        await report(playback, session_id, 100.0, paused=True)
        for _ in range(5):  # paused for 500 s, still reporting: the limit waits
            await trio.sleep(100)
            await report(playback, session_id, 100.0, paused=True)
        await report(playback, session_id, 100.0, paused=False)
        [ended] = await playback.history.wait_for(1)
    assert trio.current_time() - began == pytest.approx(700.0)
    assert ended.end_reason == PARENTAL_TIME and ended.watched_sec == pytest.approx(200.0)


async def test_the_window_closing_ends_a_paused_session_too_and_the_player_is_told_to_stop(
    playback: Playback, autojump_clock: object
) -> None:
    with trio.fail_after(LIMIT_S):
        began = trio.current_time()
        session_id = await start(playback, paused=True, limit=PlayLimit(watch_seconds=5000.0, wall_seconds=200.0))
        grant = await playback.ref.ask(AttachSocket("dev1"))
        assert isinstance(grant, SocketGrant)
        command = await grant.control.receive()
        command.answer.send_nowait(True)
        [ended] = await playback.history.wait_for(1)
    assert trio.current_time() - began == pytest.approx(200.0)
    assert command.session_id == session_id and ended.end_reason == PARENTAL_TIME


async def test_a_session_stopped_before_its_limit_ends_as_the_player_said(
    playback: Playback, autojump_clock: object
) -> None:
    with trio.fail_after(LIMIT_S):
        session_id = await start(playback, limit=PlayLimit(watch_seconds=250.0))
        await trio.sleep(100)
        await playback.ref.ask(EndSession(session_id, "dev1", 100.0, None))
        await trio.sleep(1000)  # past where the limit would have been
    [ended] = playback.history.records
    assert ended.end_reason == "stopped" and ended.watched_sec == pytest.approx(100.0)
