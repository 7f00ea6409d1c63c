"""A tiny HTTP server on 127.0.0.1 answering fixed bodies by path (images, non-images, redirects).

``server = await nursery.start(serve_files, {"/poster.jpg": (200, "image/jpeg", data)})``;
``server.url("/poster.jpg")``; ``server.hits`` counts requests per path.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve
from PIL import Image

Answer = tuple[int, str, bytes]  # status, content type (or Location for 3xx), body


def image_bytes(size: tuple[int, int] = (60, 90), fmt: str = "JPEG", color: tuple[int, int, int] = (10, 120, 200)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, fmt)
    return buffer.getvalue()


@dataclass
class FileServer:
    base: str
    answers: dict[str, Answer]
    hits: Counter[str] = field(default_factory=Counter)

    def url(self, path: str) -> str:
        return f"{self.base}{path}"

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = (await receive())["type"]
                await send({"type": f"{message}.complete"})
                if message == "lifespan.shutdown":
                    return
        path = scope["path"]
        self.hits[path] += 1
        status, kind, body = self.answers.get(path, (404, "text/plain", b"missing"))
        header = b"location" if 300 <= status < 400 else b"content-type"
        await send({"type": "http.response.start", "status": status, "headers": [(header, kind.encode())]})
        await send({"type": "http.response.body", "body": body})


async def serve_files(answers: dict[str, Answer], *, task_status: trio.TaskStatus[FileServer]) -> None:
    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    server = FileServer("", answers)
    shutdown = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve, server, config, shutdown_trigger=shutdown.wait))  # type: ignore[arg-type]
        server.base = binds[0]
        task_status.started(server)
