"""Long-lived responses that the server can cut off (GET /scans/events).

A request whose client stopped reading must not live as long as the
client keeps the connection open.  For the paths given,
:class:`AbortableStreams` hands the app's messages to the server from a
task of its own (one message in flight), a child of the request's own
nursery, and puts a callable under :data:`ABORT_KEY` in the request scope.
Calling it ends the app's request at once and cancels the write that
waits (the edge's writes can be cancelled: the connection then closes,
http/edge/connection.py): the client reads what was sent and then end of
file, and reconnects.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection
from typing import Any

import trio
from quart_trio import QuartTrio

from .edge.file_send import STALL_SECONDS_KEY, ZERO_COPY_EXTENSION

log = logging.getLogger(__name__)

ABORT_KEY = "reelhouse.abort_stream"
"""Request scope key: a callable that cuts the response off (safe from any task)."""

Message = dict[str, Any]
Send = Callable[[Message], Any]


class AbortableStreams:
    """ASGI middleware around a QuartTrio app (install as ``app.asgi_app``)."""

    def __init__(self, app: QuartTrio, paths: Collection[str]) -> None:
        self._inner: Callable[..., Awaitable[None]] = app.asgi_app
        self._paths = frozenset(paths)

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Any], send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in self._paths:
            await self._inner(scope, receive, send)
            return
        abort = trio.CancelScope()
        to_server, from_app = trio.open_memory_channel[Message](0)
        async with trio.open_nursery() as forwarding:
            forwarding.start_soon(_forward, from_app, send)
            async with to_server:
                with abort:
                    await self._inner({**scope, ABORT_KEY: abort.cancel}, receive, to_server.send)
            if abort.cancelled_caught:
                # A write waiting on a client that does not read ends now; otherwise
                # the nursery waits until the response's end reached the server.
                forwarding.cancel_scope.cancel()


async def _forward(messages: trio.MemoryReceiveChannel[Message], send: Send) -> None:
    try:
        async with messages:
            async for message in messages:
                await send(message)  # returns once written, or once the connection is closed
    except Exception:
        # Not into the request (its handler is done with the response): the
        # request's next message fails instead, as the server's error would.
        log.exception("the server refused a message of a stream response")


class StalledWrites:
    """ASGI middleware: a response under one of ``prefixes`` whose client takes no write for ``seconds()`` is cut.

    For the video stream (``GET /videos/{id}/stream``): a film takes hours,
    so the response has no overall time limit, but a client that stopped
    reading (a player paused with its buffer full, or one that went away
    without closing) would hold its task, a chunk and its connection for
    ever.  Each message the app sends must be written within the limit;
    else the write is cancelled (the connection layer closes the
    connection: the client reads what was sent, then end of file, and asks
    again with a Range) and the app's request ends.  A body sent from a
    file (``http.response.zerocopysend``, :mod:`reelhouse.http.zero_copy`)
    is a few MiB a message: the edge times it by progress instead (cut
    once no byte moved for the limit), so the limit travels in the message.
    ``seconds`` is read per request, so a test can shorten it.
    """

    def __init__(self, inner: Callable[..., Any], prefixes: tuple[str, ...], seconds: Callable[[], float]) -> None:
        self._inner = inner
        self._prefixes = prefixes
        self._seconds = seconds

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Any], send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self._prefixes):
            await self._inner(scope, receive, send)
            return
        limit = self._seconds()
        cut = trio.CancelScope()

        async def timed_send(message: Message) -> None:
            if message["type"] == ZERO_COPY_EXTENSION:
                await send({**message, STALL_SECONDS_KEY: limit})
                return
            with trio.move_on_after(limit) as write:
                await send(message)
            if write.cancelled_caught:
                log.info("a client took no data for %.0f s: %s cut short", limit, scope["path"])
                cut.cancel()
                await trio.lowlevel.checkpoint()  # ends the app's request here

        with cut:
            await self._inner(scope, receive, timed_send)
