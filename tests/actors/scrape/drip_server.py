"""A slow-drip HTTP server on 127.0.0.1: every request gets a 200 promising a large image, one byte of it, then nothing.

``drip = await nursery.start(serve_drip)``; ``drip.url("/poster.jpg")``;
``await drip.dripping(n)`` waits until ``n`` requests got their byte;
``drip.release`` set closes them (otherwise they hang until the test's
nursery ends). No clock: what it waits on are events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import trio

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: 100000\r\n\r\n"
FIRST_BYTE = b"\xff"


@dataclass
class DripServer:
    base: str = ""
    started: int = 0  # requests that got their one byte
    release: trio.Event = field(default_factory=trio.Event)
    _changed: trio.Event = field(default_factory=trio.Event)

    def url(self, path: str) -> str:
        return f"{self.base}{path}"

    async def dripping(self, count: int) -> None:
        while self.started < count:
            await self._changed.wait()

    def _started(self) -> None:
        self.started += 1
        self._changed.set()
        self._changed = trio.Event()


async def _answer(server: DripServer, stream: trio.SocketStream) -> None:
    async with stream:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = await stream.receive_some(4096)
            if not chunk:
                return
            request += chunk
        await stream.send_all(HEAD + FIRST_BYTE)
        server._started()
        await server.release.wait()


async def serve_drip(*, task_status: trio.TaskStatus[DripServer] = trio.TASK_STATUS_IGNORED) -> None:
    server = DripServer()
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, partial(_answer, server), 0, host="127.0.0.1"))
        server.base = f"http://127.0.0.1:{listeners[0].socket.getsockname()[1]}"
        task_status.started(server)
