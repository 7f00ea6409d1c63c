"""Live playback sessions and a real ``reelhouse serve`` process: SIGTERM ends them into history; kill -9 loses only them."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from trio_websocket import ConnectionClosed

from reelhouse.storage import migrate, open_store
from reelhouse.storage.apikeys import create_api_key

from .http.conftest import RunningServer, start_server
from .http.playback import live_sessions, playback_catalogue, start_playing, wait_until_sessions
from .http.test_remote_control import remote_control
from .process import ServerProcess

GRACE_S = 10.0
LIMIT_S = 60.0
_started: list[ServerProcess] = []


@pytest.fixture(autouse=True)
def _no_orphan_servers() -> Iterator[None]:
    yield
    while _started:
        _started.pop().kill()


async def serving_process(nursery: trio.Nursery, data_dir: Path, database_url: str) -> tuple[ServerProcess, RunningServer]:
    """The server as a process, and the same address and a key as a RunningServer for the test helpers."""
    async with open_store(database_url) as store:
        await migrate(store)
        _record, key = await create_api_key(store, "tests")
    process = ServerProcess(data_dir, database_url)
    _started.append(process)
    base = await process.start(nursery)
    return process, RunningServer(base, f"{base}/api/v1", key, database_url, data_dir, trio.Event())


async def test_sigterm_ends_every_live_session_into_history(
    nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    with trio.fail_after(LIMIT_S):
        process, running = await serving_process(nursery, tmp_path / "data", database_url)
        cat = await playback_catalogue(running)
        async with running.client(key=cat.token) as player:
            movie = await start_playing(player, cat.movie, positionSec=120)
            episode = await start_playing(player, cat.episode, positionSec=2900)
        async with running.client() as admin:
            assert {s["id"] for s in await live_sessions(admin)} == {movie, episode}
            async with remote_control(running, cat.token) as socket:  # open through the shutdown
                await wait_until_sessions(admin, lambda sessions: all(s["stoppable"] for s in sessions))
                process.send_signal(signal.SIGTERM)
                with trio.fail_after(GRACE_S + 5):
                    assert await process.wait() == 0, process.log.decode(errors="replace")
                with pytest.raises(ConnectionClosed):
                    await socket.get_message()
        # The history outlives the process: read it through a server started afresh.
        restarted = await start_server(nursery, database_url, tmp_path / "data-again")
        async with restarted.client() as admin:
            records = (await admin.get("/admin/playback/history", params={"memberId": cat.member})).json()["records"]
            assert await live_sessions(admin) == []
        restarted.shutdown.set()
    by_item = {record["itemId"]: record for record in records}
    assert set(by_item) == {cat.movie, cat.episode}
    assert by_item[cat.episode]["episode"] == "S01E04" and by_item[cat.episode]["title"] == "Severance"
    assert by_item[cat.episode]["percent"] == pytest.approx(2900 / 3000 * 100, abs=0.1)
    assert by_item[cat.episode]["finished"] is True and by_item[cat.movie]["finished"] is False
    assert b"Traceback" not in process.log


async def test_after_kill_9_only_the_live_sessions_are_lost_and_the_server_starts_cleanly(
    nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    with trio.fail_after(LIMIT_S):
        process, running = await serving_process(nursery, tmp_path / "data", database_url)
        cat = await playback_catalogue(running)
        async with running.client(key=cat.token) as player:
            finished = await start_playing(player, cat.movie)
            assert (await player.post("/sessions/playing/stopped", json={"sessionId": finished})).status_code == 204
            await start_playing(player, cat.episode)  # live when the process dies
        process.send_signal(signal.SIGKILL)
        await process.wait()
        process, running = await serving_process(nursery, tmp_path / "data", database_url)
        async with running.client() as admin:
            records = (await admin.get("/admin/playback/history")).json()["records"]
            sessions = await live_sessions(admin)
        process.send_signal(signal.SIGTERM)
        with trio.fail_after(GRACE_S + 5):
            assert await process.wait() == 0
    assert [record["itemId"] for record in records] == [cat.movie]
    assert sessions == []
