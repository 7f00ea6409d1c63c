"""Response bodies sent from files by the server (``os.sendfile``), not copied through Python.

Quart sends each item of a response body as ``http.response.body``; it
has no way to say "these bytes of that file".  A body may therefore
yield :class:`FileSlice` items, and :class:`ZeroCopyBodies` (ASGI
middleware) turns each into the ASGI ``http.response.zerocopysend``
message, which the edge sends from the file's descriptor
(:mod:`reelhouse.http.edge.file_send`).  A route yields slices only when
:func:`offered` says the server takes them (the edge does; the app's
test client does not, and gets bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .edge.file_send import ON_SENT_KEY, READ_SECONDS_KEY, ZERO_COPY_EXTENSION

Message = dict[str, Any]
Send = Callable[[Message], Any]


class HasFileno(Protocol):
    def fileno(self) -> int: ...


@dataclass(frozen=True, slots=True)
class FileSlice:
    """``count`` bytes of ``file`` from ``offset``, each sendfile of them within ``read_seconds``;
    ``on_sent(n)`` is called (on the loop) as the kernel takes each ``n`` of them."""

    file: HasFileno
    offset: int
    count: int
    read_seconds: float
    on_sent: Callable[[int], None] | None = None


def offered(scope: Mapping[str, Any]) -> bool:
    """Whether the server sends bodies from files for this request."""
    return ZERO_COPY_EXTENSION in (scope.get("extensions") or {})


class ZeroCopyBodies:
    """ASGI middleware: a body item that is a :class:`FileSlice` goes as ``http.response.zerocopysend``."""

    def __init__(self, inner: Callable[..., Any]) -> None:
        self._inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Any], send: Send) -> None:
        if scope["type"] != "http" or not offered(scope):
            await self._inner(scope, receive, send)
            return

        async def translated(message: Message) -> None:
            body = message.get("body")
            if message["type"] == "http.response.body" and isinstance(body, FileSlice):
                message = {"type": ZERO_COPY_EXTENSION, "file": body.file, "offset": body.offset,
                           "count": body.count, "more_body": message.get("more_body", False),
                           READ_SECONDS_KEY: body.read_seconds, ON_SENT_KEY: body.on_sent}  # fmt: skip
            await send(message)

        await self._inner(scope, receive, translated)
