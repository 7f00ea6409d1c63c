"""The remote-control WebSocket (GET /sessions/socket) with a real client (trio-websocket), over real HTTP."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
import trio
from trio_websocket import ConnectionClosed, ConnectionRejected, WebSocketConnection, open_websocket_url

from ..sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from .conftest import RunningServer, start_server
from .playback import catalogue_playing, live_sessions, wait_until_sessions

LIMIT_S = 30
# Short enough for a test, long enough for a loaded machine to answer in time.
PING_S = 0.3
PONG_TIMEOUT_S = 2.0


@pytest.fixture
async def server(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> AsyncIterator[RunningServer]:
    running = await start_server(
        nursery, database_url, tmp_path / "data",
        playback={"ping_interval_seconds": PING_S, "pong_timeout_seconds": PONG_TIMEOUT_S},
    )  # fmt: skip
    yield running
    running.shutdown.set()


@asynccontextmanager
async def remote_control(server: RunningServer, token: str) -> AsyncIterator[WebSocketConnection]:
    url = server.api_url.replace("http://", "ws://") + "/sessions/socket"
    headers = [(b"Authorization", f"Bearer {token}".encode())] if token else []
    async with open_websocket_url(url, extra_headers=headers) as socket:
        yield socket


async def next_message(socket: WebSocketConnection, kind: str) -> dict[str, Any]:
    """The next message of ``kind``, answering pings on the way."""
    while True:
        message = json.loads(await socket.get_message())
        if message["type"] == kind:
            return message
        if message["type"] == "ping":
            await socket.send_message(json.dumps({"type": "pong"}))


async def answer_pings(socket: WebSocketConnection) -> None:
    try:
        await next_message(socket, "never sent")
    except ConnectionClosed:
        pass


def stoppable(expected: bool) -> Any:
    return lambda sessions: len(sessions) == 1 and sessions[0]["stoppable"] is expected


async def test_stop_goes_down_the_socket_and_the_session_ends_on_stopped(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(LIMIT_S):
        cat, session_id = await catalogue_playing(server, positionSec=30)
        [before] = await live_sessions(client)
        async with remote_control(server, cat.token) as socket:
            await wait_until_sessions(client, stoppable(True))
            stop = await client.post(f"/admin/playback/sessions/{session_id}/stop")
            assert stop.status_code == 204, stop.text
            assert await next_message(socket, "stop") == {"type": "stop", "sessionId": session_id}
            assert len(await live_sessions(client)) == 1  # live until the player says it stopped
            await socket.send_message(json.dumps({"type": "stopped", "sessionId": session_id, "positionSec": 95}))
            await wait_until_sessions(client, lambda sessions: sessions == [])
        activity = (await client.get("/activity", params={"category": "security"})).json()
        while not (history := (await client.get("/admin/playback/history", params={"itemId": cat.movie})).json()["records"]):
            await trio.sleep(0.02)  # written just after the session left the list
        tokyo_day = datetime.fromisoformat(history[0]["at"]).astimezone(ZoneInfo("Asia/Tokyo")).date().isoformat()
        found_by = {
            name: [r["id"] for r in (await client.get("/admin/playback/history", params=query)).json()["records"]]
            for name, query in {
                "member": {"memberId": cat.member}, "device": {"deviceId": cat.device_id}, "title": {"title": "arriv"},
                "a day in Tokyo": {"from": tokyo_day, "to": tokyo_day, "tz": "Asia/Tokyo"},
            }.items()
        }  # fmt: skip
    assert before["stoppable"] is False  # no socket yet
    [record] = history
    assert found_by == {key: [record["id"]] for key in found_by}
    assert (record["deviceId"], record["player"], record["kind"]) == (cat.device_id, "TestPlayer", "movie")
    assert record["percent"] == pytest.approx(95 / 6000 * 100, abs=0.1)
    stops = [entry for entry in activity["entries"] if entry["action"] == "session.stop"]
    assert [entry["target"].get("id") for entry in stops] == [session_id]


async def test_a_player_that_answers_pings_stays_stoppable(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(LIMIT_S):
        cat, _session_id = await catalogue_playing(server)
        async with remote_control(server, cat.token) as socket, trio.open_nursery() as nursery:
            nursery.start_soon(answer_pings, socket)
            await wait_until_sessions(client, stoppable(True))
            await trio.sleep(PONG_TIMEOUT_S + 3 * PING_S)  # several pings, each answered
            [session] = await live_sessions(client)
            nursery.cancel_scope.cancel()
    assert session["stoppable"] is True


async def test_a_socket_without_pongs_is_closed_and_its_sessions_are_not_stoppable(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(LIMIT_S):
        cat, session_id = await catalogue_playing(server)
        async with remote_control(server, cat.token) as socket:
            await wait_until_sessions(client, stoppable(True))
            assert json.loads(await socket.get_message()) == {"type": "ping"}  # and no pong from here
            with pytest.raises(ConnectionClosed):
                while True:
                    await socket.get_message()
            await wait_until_sessions(client, stoppable(False))
        refused = await client.post(f"/admin/playback/sessions/{session_id}/stop")
    assert refused.status_code == 409


async def test_a_closed_socket_turns_its_sessions_not_stoppable(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(LIMIT_S):
        cat, _session_id = await catalogue_playing(server)
        async with remote_control(server, cat.token):
            await wait_until_sessions(client, stoppable(True))
        [session] = await wait_until_sessions(client, stoppable(False))
    assert session["stoppable"] is False


async def test_the_socket_needs_a_player_token(server: RunningServer) -> None:
    with trio.fail_after(LIMIT_S):
        statuses = {}
        for name, token in (("api key", server.key), ("no token", ""), ("unknown device token", "rhd_nope")):
            with pytest.raises(ConnectionRejected) as rejected:
                async with remote_control(server, token):
                    pass
            statuses[name] = rejected.value.status_code
    assert statuses == {"api key": 403, "no token": 401, "unknown device token": 401}


async def test_a_newer_socket_of_the_device_replaces_the_older(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(LIMIT_S):
        cat, session_id = await catalogue_playing(server)
        async with remote_control(server, cat.token) as older:
            await wait_until_sessions(client, stoppable(True))
            async with remote_control(server, cat.token) as newer:
                with pytest.raises(ConnectionClosed):
                    while True:
                        await older.get_message()
                stop = await client.post(f"/admin/playback/sessions/{session_id}/stop")
                assert stop.status_code == 204, stop.text
                assert await next_message(newer, "stop") == {"type": "stop", "sessionId": session_id}
