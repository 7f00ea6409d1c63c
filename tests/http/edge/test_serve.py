"""The edge server alone, with a small ASGI app: what Reelhouse's own routes
cannot show yet (a WebSocket open at shutdown)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
from hypercorn.config import Config

from reelhouse.http.edge import EdgeServer, bind_sockets

from .rawhttp import Reader, connect, request

GRACE_S = 10.0
LIMIT_S = 30


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
    elif scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass
    elif scope["path"] == "/crash":
        raise RuntimeError("the app failed before answering")
    elif scope["path"] in ("/held", "/stream"):
        await _answer_in_two_steps(scope["path"] == "/held", send)
    else:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})


class _Steps:
    """Where the two-step app stands: its head handed to the server, and the gate its body waits on."""

    head_sent = trio.Event()
    body_gate = trio.Event()


async def _answer_in_two_steps(with_length: bool, send: Any) -> None:
    headers = [(b"content-length", b"4")] if with_length else [(b"content-type", b"text/event-stream")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    _Steps.head_sent.set()
    await _Steps.body_gate.wait()
    await send({"type": "http.response.body", "body": b"body"})


def _nothing_to_read(stream: trio.SocketStream) -> bool:
    """Nothing has arrived on ``stream`` yet (a peek that does not wait)."""
    with socket.fromfd(stream.socket.fileno(), socket.AF_INET, socket.SOCK_STREAM) as peek:
        try:
            peek.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK)
        except BlockingIOError:
            return True
    return False


async def _read_to_eof(stream: trio.SocketStream) -> None:
    try:
        while await stream.receive_some(4096):
            pass
    except trio.BrokenResourceError:
        pass


UPGRADE = request(
    "GET", "/ws", "Upgrade: websocket", "Connection: Upgrade",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
)


def _config() -> Config:
    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.graceful_timeout = GRACE_S
    return config


async def test_an_app_that_fails_before_answering_gets_a_500_with_the_json_error_body() -> None:
    config = _config()
    shutdown = trio.Event()
    with trio.fail_after(LIMIT_S):
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(EdgeServer(_app, config, 10).serve, bind_sockets(config), shutdown)
            stream = await connect(binds[0])
            await stream.send_all(request("GET", "/crash"))
            response = await Reader(stream).response()
            shutdown.set()
    assert response.status == 500
    assert response.headers["content-type"] == "application/json"
    assert response.json()["code"] == "internal_error"


async def test_shutdown_closes_open_websockets_and_idle_connections_at_once() -> None:
    config = _config()
    sockets = bind_sockets(config)
    shutdown = trio.Event()
    with trio.fail_after(LIMIT_S):
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(EdgeServer(_app, config, 10).serve, sockets, shutdown)
            websocket = await connect(binds[0])
            await websocket.send_all(UPGRADE)
            upgraded = b""
            while b"\r\n\r\n" not in upgraded:
                upgraded += await websocket.receive_some(4096)
            assert upgraded.startswith(b"HTTP/1.1 101"), upgraded
            idle = await connect(binds[0])
            await idle.send_all(request("GET", "/"))
            assert (await Reader(idle).response()).status == 200
            started = trio.current_time()
            shutdown.set()
        took = trio.current_time() - started
        for stream in (websocket, idle):
            await _read_to_eof(stream)  # closed by the server
    assert took < 1.0  # not the grace: nothing was in flight


@asynccontextmanager
async def _asking(path: str) -> AsyncIterator[trio.SocketStream]:
    """A served edge with ``path`` asked on a new connection (stopped on leaving)."""
    _Steps.head_sent, _Steps.body_gate = trio.Event(), trio.Event()
    config = _config()
    shutdown = trio.Event()
    with trio.fail_after(LIMIT_S):
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(EdgeServer(_app, config, 10).serve, bind_sockets(config), shutdown)
            stream = await connect(binds[0])
            await stream.send_all(request("GET", path))
            yield stream
            shutdown.set()


async def test_a_response_with_a_length_leaves_head_and_body_in_one_write() -> None:
    async with _asking("/held") as stream:
        await _Steps.head_sent.wait()
        held = _nothing_to_read(stream)  # the head waits for the body
        _Steps.body_gate.set()
        first = await stream.receive_some(65536)
    assert held
    assert first.startswith(b"HTTP/1.1 200") and first.endswith(b"\r\n\r\nbody"), first


async def test_a_streamed_response_gets_its_head_before_any_body() -> None:
    async with _asking("/stream") as stream:
        head = b""
        while b"\r\n\r\n" not in head:
            head += await stream.receive_some(65536)  # the body is still held back by the app
        _Steps.body_gate.set()
    assert head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head
