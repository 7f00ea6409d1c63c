"""One request and its response on a connection: Hypercorn's HTTPStream with bodies sent from files.

The scope offers the ASGI ``http.response.zerocopysend`` extension
(file_send.py) when the connection can send files, and a
``http.response.zerocopysend`` message becomes a :class:`FileBody` for
the protocol, which frames it (h11 counts it against Content-Length
without reading it) and hands the span to the connection.  Every other
message is Hypercorn's.  As for a bytes body, nothing is sent for a HEAD
request, a 1xx, 204 or 304.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from hypercorn.protocol.events import Event
from hypercorn.protocol.http_stream import ASGIHTTPState, HTTPStream
from hypercorn.typing import AppWrapper, ASGISendEvent
from hypercorn.utils import suppress_body

from .file_send import ZERO_COPY_EXTENSION, FileSpan


@dataclass(frozen=True)
class FileBody(Event):
    """A piece of the response body to send from a file."""

    span: FileSpan


class ZeroCopyHTTPStream(HTTPStream):
    """HTTPStream that also takes ``http.response.zerocopysend`` messages."""

    def __init__(self, app: AppWrapper, *args: Any) -> None:
        super().__init__(_OfferingZeroCopy(app), *args)

    async def app_send(self, message: ASGISendEvent | None) -> None:
        if message is None or message["type"] != ZERO_COPY_EXTENSION:
            await super().app_send(message)
            return
        if self.state != ASGIHTTPState.RESPONSE:
            await super().app_send(message)  # Hypercorn's error for a message out of turn
            return
        fields: dict[str, Any] = dict(message)
        span = FileSpan.from_message(fields)
        if span.count > 0 and not suppress_body(self.scope["method"], int(self.response["status"])):
            await self.send(FileBody(stream_id=self.stream_id, span=span))
        if not fields.get("more_body", False):
            await self._send_closed()


class _OfferingZeroCopy:
    """The app, called with the extension in its scope."""

    def __init__(self, app: AppWrapper) -> None:
        self._app = app

    async def __call__(self, scope: Any, receive: Any, send: Any, sync_spawn: Callable[..., Any],
                       call_soon: Callable[..., Awaitable[Any]]) -> None:  # fmt: skip
        scope["extensions"][ZERO_COPY_EXTENSION] = {}
        await self._app(scope, receive, send, sync_spawn, call_soon)
