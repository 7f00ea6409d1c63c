"""Jellyfin's ``/socket``: keep-alives both ways, who may hold one, the paths it answers on, a session
``stoppable`` only while its device's socket is open (over real HTTP, with
trio-websocket), and the silence close on a virtual clock."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
from trio_websocket import ConnectionRejected, WebSocketConnection, open_websocket_url

from reelhouse.actors.playback.messages import SocketGrant, StopCommand
from reelhouse.http.jellyfin import routes_socket

from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from ..conftest import RunningServer
from ..members import add_member
from ..playback import wait_until_sessions
from .surface import PASSWORD, jellyfin, make_shelf, sign_in

LIMIT_S = 60


@asynccontextmanager
async def jellyfin_socket(server: RunningServer, token: str, path: str = "/socket") -> AsyncIterator[WebSocketConnection]:
    url = f"{server.base_url.replace('http://', 'ws://')}{path}?api_key={token}&deviceId=dev-1"
    async with open_websocket_url(url) as socket:
        yield socket


async def receive(socket: WebSocketConnection) -> dict[str, Any]:
    return dict(json.loads(await socket.get_message()))


@pytest.mark.parametrize("path", ["/socket", "/emby/socket", "/SoCkEt", "/EMBY/Socket"])
async def test_the_socket_says_force_keep_alive_and_answers_keep_alive(server: RunningServer, path: str) -> None:
    await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    token = await sign_in(server, "Ann")
    with trio.fail_after(LIMIT_S):
        async with jellyfin_socket(server, token, path) as socket:
            first = await receive(socket)
            assert (first["MessageType"], first["Data"]) == ("ForceKeepAlive", routes_socket.KEEPALIVE_SECONDS)
            await socket.send_message(json.dumps({"MessageType": "SessionsStart", "Data": "0,1500"}))  # ignored
            await socket.send_message(json.dumps({"MessageType": "KeepAlive"}))
            reply = await receive(socket)
            assert reply["MessageType"] == "KeepAlive" and "Data" not in reply and len(reply["MessageId"]) == 32


async def test_an_api_key_or_no_token_holds_no_socket(server: RunningServer) -> None:
    with trio.fail_after(LIMIT_S):
        for token in (server.key, "", "rhd_not-a-token"):
            with pytest.raises(ConnectionRejected) as refused:
                async with jellyfin_socket(server, token):
                    pass
            assert refused.value.status_code == (403 if token == server.key else 401), token


async def test_a_session_is_stoppable_only_while_its_devices_socket_is_open(server: RunningServer) -> None:
    shelf = await make_shelf(server)
    await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    token = await sign_in(server, "Ann")
    async with jellyfin(server, token) as ann, server.client() as native:
        with trio.fail_after(LIMIT_S):
            report = {"ItemId": shelf.sunny, "PlaySessionId": "socket-1", "PositionTicks": 0}
            assert (await ann.post("/Sessions/Playing", json=report)).status_code == 204
            await wait_until_sessions(native, lambda s: len(s) == 1 and s[0]["stoppable"] is False)
            async with jellyfin_socket(server, token) as socket:
                assert (await receive(socket))["MessageType"] == "ForceKeepAlive"
                await wait_until_sessions(native, lambda s: len(s) == 1 and s[0]["stoppable"] is True)
            await wait_until_sessions(native, lambda s: len(s) == 1 and s[0]["stoppable"] is False)
            stop = await native.post(f"/admin/playback/sessions/{(await native.get('/admin/playback/sessions')).json()[0]['id']}/stop")
            assert stop.status_code == 409, stop.text  # nothing to send it down


class FakeWebSocket:
    """Quart's ``websocket`` as :class:`routes_socket._Channel` uses it: what the client sends comes
    from ``client``; what the server sends and its close are kept, with the (virtual) time."""

    def __init__(self) -> None:
        self.client, self._incoming = trio.open_memory_channel[str](10)
        self.sent: list[tuple[float, dict[str, Any]]] = []
        self.closed: tuple[float, int] | None = None

    async def receive(self) -> str:
        return await self._incoming.receive()

    async def send(self, data: str) -> None:
        self.sent.append((trio.current_time(), json.loads(data)))

    async def close(self, code: int) -> None:
        self.closed = (trio.current_time(), code)


async def test_a_silent_socket_is_closed_after_the_timeout_and_a_keep_alive_holds_it_open(
    monkeypatch: pytest.MonkeyPatch, autojump_clock: trio.abc.Clock
) -> None:
    fake = FakeWebSocket()
    monkeypatch.setattr(routes_socket, "websocket", fake)
    _control, control = trio.open_memory_channel[StopCommand](1)
    timeout = routes_socket.KEEPALIVE_SECONDS
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(routes_socket._Channel(SocketGrant(1, control)).run)
        await trio.sleep(timeout / 2)
        await fake.client.send(json.dumps({"MessageType": "KeepAlive"}))
    assert [(at - start, m["MessageType"]) for at, m in fake.sent] == [(0, "ForceKeepAlive"), (timeout / 2, "KeepAlive")]
    assert fake.closed == (start + timeout / 2 + timeout, routes_socket.CLOSE_SILENT)  # silent for the whole timeout after it
