"""Live playback sessions and a real ``reelhouse serve`` process: SIGTERM ends them into history; kill -9 loses only them."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from trio_websocket import ConnectionClosed

from reelhouse.storage import migrate, open_store
from reelhouse.storage.apikeys import create_api_key

from .http.conftest import RunningServer, start_server
from .http.playback import (
    EPISODE_SECONDS,
    POLL_S,
    live_sessions,
    playback_catalogue,
    start_playing,
    wait_until_sessions,
)
from .http.test_playback_history import at
from .http.test_remote_control import remote_control
from .server_process import ServerProcess, clean_environ

GRACE_S = 10.0
LIMIT_S = 60.0
_started: list[ServerProcess] = []


@pytest.fixture(autouse=True)
def _no_orphan_servers() -> Iterator[None]:
    yield
    while _started:
        _started.pop().kill()


async def serving_process(
    nursery: trio.Nursery, data_dir: Path, database_url: str, env: dict[str, str] | None = None
) -> tuple[ServerProcess, RunningServer]:
    """The server as a process, and the same address and a key as a RunningServer for the test helpers."""
    async with open_store(database_url) as store:
        await migrate(store)
        _record, key = await create_api_key(store, "tests")
    process = ServerProcess(data_dir, database_url, env=env)
    _started.append(process)
    base = await process.start(nursery)
    return process, RunningServer(base, f"{base}/api/v1", key, database_url, data_dir, trio.Event(), trio.Event())


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


async def saved_position(database_url: str, session_id: str) -> float | None:
    """The furthest position the server saved for a live session (None before its first save)."""
    async with open_store(database_url) as store:
        state = await store.fetch_value("SELECT state FROM playback_live WHERE session_id = ?", (session_id,))
    return None if state is None else json.loads(state)["furthest_sec"]


async def test_after_kill_9_a_live_session_is_recorded_at_restart_with_its_last_position_as_ended_by_a_crash(
    nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    saving = clean_environ(REELHOUSE_PLAYBACK__SAVE_INTERVAL_SECONDS="0.2")
    with trio.fail_after(LIMIT_S):
        process, running = await serving_process(nursery, tmp_path / "data", database_url, env=saving)
        cat = await playback_catalogue(running)
        async with running.client(key=cat.token) as player:
            finished = await start_playing(player, cat.movie)
            assert (await player.post("/sessions/playing/stopped", json={"sessionId": finished})).status_code == 204
            live = await start_playing(player, cat.episode, positionSec=300)  # live when the process dies
            progress = {"sessionId": live, "positionSec": 1500}
            assert (await player.post("/sessions/playing/progress", json=progress)).status_code == 204
        while await saved_position(database_url, live) != 1500:
            await trio.sleep(POLL_S)
        process.send_signal(signal.SIGKILL)
        await process.wait()
        # On PostgreSQL every server is a cluster node, and the killed one's sessions are taken as left
        # behind once its heartbeat is older than the node expiry (it might be another node's), looking
        # every session_sweep_seconds: both short here.
        quick_expiry = clean_environ(REELHOUSE_CLUSTER__NODE_EXPIRY_SECONDS="3",
                                     REELHOUSE_CLUSTER__HEARTBEAT_SECONDS="0.5",
                                     REELHOUSE_CLUSTER__SESSION_SWEEP_SECONDS="0.5")
        process, running = await serving_process(nursery, tmp_path / "data", database_url, env=quick_expiry)
        async with running.client() as admin:
            while len(records := (await admin.get("/admin/playback/history")).json()["records"]) < 2:
                await trio.sleep(POLL_S)
            sessions = await live_sessions(admin)
        process.send_signal(signal.SIGTERM)
        with trio.fail_after(GRACE_S + 5):
            assert await process.wait() == 0
        left = await saved_position(database_url, live)
    by_item = {record["itemId"]: record for record in records}
    assert [record["itemId"] for record in records] == [cat.episode, cat.movie] and sessions == []
    crashed = by_item[cat.episode]
    assert crashed["endReason"] == "crash" and by_item[cat.movie]["endReason"] == "stopped"
    assert crashed["percent"] == pytest.approx(1500 / EPISODE_SECONDS * 100, abs=0.1)
    assert crashed["sessions"] == 1 and crashed["finished"] is False
    assert at(crashed["endedAt"]) >= at(crashed["at"])
    assert left is None  # recorded once: nothing is left to record at the next start
