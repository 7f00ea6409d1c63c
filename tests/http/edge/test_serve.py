"""The edge server alone, with a small ASGI app: what Reelhouse's own routes
cannot show yet (a WebSocket open at shutdown)."""

from __future__ import annotations

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
    else:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})


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
