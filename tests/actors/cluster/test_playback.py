"""Playback on a cluster of real server processes: one list, a stop from any node, history written once.

A player reports to node 1 and holds its remote-control socket there; node
0 lists the session, and a stop sent to node 0 goes down that socket.  A
node killed with -9 leaves its live session behind: another node records
it once, ended by a crash, and never records a live node's sessions.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from trio_websocket import WebSocketConnection, open_websocket_url

from reelhouse.storage import open_store
from reelhouse.storage.members import MemberChanges, add_user, update_member

from ...catalog_factory import catalog
from ...tls import shared_tls_context
from .nodes import Cluster, open_cluster, until

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

PASSWORD = "correct horse battery"
TICKS = 10_000_000


async def films_for_ann(database_url: str) -> tuple[str, str]:
    """Two movies Ann may play; their ids."""
    async with open_store(database_url) as store:
        async with catalog(store) as cat:
            library = cat.library("Shows")
            movies = []
            for name in ("Arrival", "Heat"):
                movie = cat.movie(library, name, runtime_ticks=6000 * TICKS)
                cat.media(movie, bitrate=8_000_000, runtime_ticks=6000 * TICKS)
                movies.append(movie)
        await add_user(store, "Ann", is_admin=False, password=PASSWORD)
        await update_member(store, "Ann", MemberChanges(libraries=(library,)))
    return movies[0], movies[1]


async def sign_in(cluster: Cluster, index: int, device: str) -> str:
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{cluster.urls[index]}/api/v1", timeout=30) as anonymous:
        answer = await anonymous.post("/auth/login", json={
            "name": "Ann", "password": PASSWORD, "deviceName": device, "client": "TestPlayer", "deviceId": device})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["token"])


async def play(cluster: Cluster, index: int, token: str, item_id: str) -> str:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{cluster.urls[index]}/api/v1", headers=headers, timeout=30) as player:
        answer = await player.post("/sessions/playing", json={"itemId": item_id, "positionSec": 30})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["sessionId"])


@asynccontextmanager
async def remote_control(cluster: Cluster, index: int, token: str) -> AsyncIterator[WebSocketConnection]:
    url = cluster.urls[index].replace("http://", "ws://") + "/api/v1/sessions/socket"
    async with open_websocket_url(url, extra_headers=[(b"Authorization", f"Bearer {token}".encode())]) as socket:
        yield socket


async def next_message(socket: WebSocketConnection, kind: str) -> dict[str, Any]:
    while True:
        message = json.loads(await socket.get_message())
        if message["type"] == kind:
            return message
        if message["type"] == "ping":
            await socket.send_message(json.dumps({"type": "pong"}))


async def sessions(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    answer = await client.get("/admin/playback/sessions")
    assert answer.status_code == 200, answer.text
    return list(answer.json())


async def history(client: httpx.AsyncClient, item_id: str) -> list[dict[str, Any]]:
    answer = await client.get("/admin/playback/history", params={"itemId": item_id})
    assert answer.status_code == 200, answer.text
    return list(answer.json()["records"])


async def test_a_stop_sent_to_one_node_reaches_the_players_socket_on_another_and_records_once(
    tmp_path: Path, database_url: str
) -> None:
    with trio.fail_after(150):
        async with open_cluster(tmp_path, database_url, 2) as cluster:
            movie, _other = await films_for_ann(database_url)
            token = await sign_in(cluster, 1, "player-1")
            session_id = await play(cluster, 1, token, movie)
            async with cluster.client(0) as first, cluster.client(1) as second:
                async with remote_control(cluster, 1, token) as socket:
                    listed = await until(lambda: _one_stoppable(first, session_id))
                    assert await sessions(second) == listed  # the same list from every node
                    assert (await first.post("/admin/playback/sessions/nope/stop")).status_code == 404
                    stop = await first.post(f"/admin/playback/sessions/{session_id}/stop")
                    assert stop.status_code == 204, stop.text
                    assert await next_message(socket, "stop") == {"type": "stop", "sessionId": session_id}
                    await socket.send_message(json.dumps({"type": "stopped", "sessionId": session_id,
                                                          "positionSec": 95}))
                    await until(lambda: _no_sessions(first))
                records = await until(lambda: history(first, movie))
                assert len(records) == 1
                assert await history(second, movie) == records


async def test_a_killed_nodes_live_session_is_recorded_once_by_another_node(
    tmp_path: Path, database_url: str
) -> None:
    with trio.fail_after(180):
        async with open_cluster(tmp_path, database_url, 3) as cluster:
            movie, other = await films_for_ann(database_url)
            dying = await play(cluster, 2, await sign_in(cluster, 2, "player-2"), movie)
            living = await play(cluster, 1, await sign_in(cluster, 1, "player-1"), other)
            async with cluster.client(0) as first:
                await until(lambda: _listed(first, {dying, living}))
                os.kill(cluster.nodes[2].pid, signal.SIGKILL)
                records = await until(lambda: history(first, movie))
                await until(lambda: _listed(first, {living}))
                assert len(records) == 1 and records[0]["endReason"] == "crash", records
                assert await history(first, other) == []  # the live node's session is nobody else's to record


async def _one_stoppable(client: httpx.AsyncClient, session_id: str) -> list[dict[str, Any]] | None:
    found = await sessions(client)
    ok = len(found) == 1 and found[0]["id"] == session_id and found[0]["stoppable"] is True
    return found if ok else None


async def _no_sessions(client: httpx.AsyncClient) -> bool:
    return await sessions(client) == []


async def _listed(client: httpx.AsyncClient, ids: set[str]) -> bool:
    return {session["id"] for session in await sessions(client)} == ids
