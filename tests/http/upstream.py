"""A fake remote source for stream tests: a tiny ASGI app on 127.0.0.1 (never leaves the machine).

``/video.mp4`` serves :attr:`Upstream.payload` with single-range support;
``/hop`` redirects to it; ``/escape`` redirects to the same server under
the name ``localhost`` (a host a library listing only ``127.0.0.1:port``
does not allow); ``/stall`` sends half of the payload and then nothing
until :attr:`Upstream.released` is set.  Every request's path and ``Range`` are recorded.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pytest
import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve

_RANGE = re.compile(r"bytes=(\d*)-(\d*)$")


@dataclass
class Upstream:
    payload: bytes
    base: str = ""  # http://127.0.0.1:PORT
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    released: trio.Event = field(default_factory=trio.Event)  # lets /stall finish

    @property
    def host(self) -> str:
        """``127.0.0.1:PORT``, as remoteAllowedHosts lists it."""
        return self.base.removeprefix("http://")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.requests.append((scope["path"], headers.get("range")))
        if scope["path"] == "/hop":
            await _answer(send, 302, [(b"location", b"/video.mp4")])
        elif scope["path"] == "/escape":
            target = self.base.replace("127.0.0.1", "localhost") + "/video.mp4"
            await _answer(send, 302, [(b"location", target.encode())])
        elif scope["path"] == "/stall":  # half the body, then nothing until released
            head = [(b"content-type", b"video/mp4"), (b"content-length", str(len(self.payload)).encode())]
            await send({"type": "http.response.start", "status": 200, "headers": head})
            await send({"type": "http.response.body", "body": self.payload[: len(self.payload) // 2], "more_body": True})
            await self.released.wait()
            await send({"type": "http.response.body", "body": self.payload[len(self.payload) // 2 :]})
        elif scope["path"] == "/video.mp4":
            await self._video(send, headers.get("range"))
        else:
            await _answer(send, 404)

    async def _video(self, send: Any, wanted: str | None) -> None:
        size = len(self.payload)
        kind = [(b"content-type", b"video/mp4"), (b"accept-ranges", b"bytes")]
        match = _RANGE.match(wanted or "")
        if match is None:
            await _answer(send, 200, kind, self.payload)
            return
        first, last = match.groups()
        start = int(first) if first else size - int(last)
        end = int(last) if first and last else size - 1
        content_range = f"bytes {start}-{end}/{size}".encode()
        await _answer(send, 206, [*kind, (b"content-range", content_range)], self.payload[start : end + 1])


async def _answer(send: Any, status: int, headers: list[tuple[bytes, bytes]] | None = None, body: bytes = b"") -> None:
    headers = [*(headers or []), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def start_upstream(nursery: trio.Nursery, payload: bytes) -> tuple[Upstream, trio.Event]:
    upstream = Upstream(payload)
    config = HypercornConfig()
    config.bind = ["127.0.0.1:0"]
    shutdown = trio.Event()
    binds = await nursery.start(partial(hypercorn_serve, upstream, config, shutdown_trigger=shutdown.wait))
    upstream.base = binds[0]
    return upstream, shutdown


@pytest.fixture
async def upstream(nursery: trio.Nursery) -> AsyncIterator[Upstream]:
    served, shutdown = await start_upstream(nursery, bytes(range(256)) * 40)
    yield served
    served.released.set()
    shutdown.set()
