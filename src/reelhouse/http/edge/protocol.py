"""HTTP/1.1 on one connection: Hypercorn's h11 protocol with our rules.

Hypercorn answers malformed HTTP itself (400, 431 for a head over the
limit), and a request whose app never answered (500), with empty bodies;
here every such answer carries the reference's JSON error body.

A WebSocket upgrade gets our stream (websocket.py: the whole message bounded).
On a connection that can send files, a request gets a stream that takes
bodies sent from files (http_stream.py, file_send.py): h11 frames and
counts the span (``send_with_data_passthrough``: the span stands in for
its bytes) and the connection sends it.

A request body that comes too slowly is answered 408 here (the connection
layer times it: connection.py, limits.py); whatever the app sends after is
dropped.

An early response (the app answered before the request body was read: 401
without a key, 405, an unknown route) goes out with ``Connection: close``,
as does every response once shutdown began, and the answer to a request
refused a connection of the reserve (admission.py).
Hypercorn would otherwise keep reading the body into the finished app's
queue, where nobody takes it: the connection hung, and its next request was
never answered. The connection layer then closes after a bounded lingering
read (connection.py).

A response with a Content-Length has its head held back until its body's
first bytes (or its end) and both leave in one write: Hypercorn writes the
head and the body apart, two system calls and two wake-ups of the client
for every response, where on loopback the send itself was a quarter of a
small request's time on the event loop (py-spy, ``GET /health``).  A body
without a length (server-sent events, chunked streams) gets its head at
once, as before: its client may wait on the head alone.
"""

from __future__ import annotations

from collections.abc import Iterable

import h11
from hypercorn.config import Config
from hypercorn.events import RawData
from hypercorn.protocol.events import Event as StreamEvent
from hypercorn.protocol.events import Request, Response, StreamClosed
from hypercorn.protocol.h11 import STREAM_ID, H11Protocol, H11WSConnection
from hypercorn.protocol.ws_stream import WSStream
from hypercorn.typing import H11SendableEvent

from ..errors import error_body_bytes
from .date_header import server_headers
from .file_send import FileData, FileSpan
from .http_stream import FileBody, ZeroCopyHTTPStream
from .websocket import BoundedWSStream

# Hypercorn's own error responses carry exactly these headers (and no body).
_BARE_ERROR_HEADERS = [(b"content-length", b"0"), (b"connection", b"close")]
# A held head goes out with a body up to this size; a larger body is written after it (no copy of it).
COALESCE_MAX_BYTES = 256 * 1024
_MESSAGES = {
    400: "The request is not valid HTTP/1.1.",
    404: "No such resource.",
    408: "The request body did not arrive in time.",
    500: "The server failed to handle the request.",
}


def protocol_error_body(status: int, head_limit: int) -> bytes:
    """The JSON error body for an error the HTTP layer answers itself."""
    if status == 431:
        message = f"The request line and headers are over the limit of {head_limit} bytes."
        return error_body_bytes("too_large", message, {"maxBytes": head_limit})
    if status >= 500:
        return error_body_bytes("internal_error", _MESSAGES[500])
    code = "not_found" if status == 404 else "bad_request"
    return error_body_bytes(code, _MESSAGES.get(status, _MESSAGES[400]))


class ReelhouseH11Protocol(H11Protocol):
    """H11Protocol with JSON error bodies, early-response close, and a
    ``streaming`` flag (SSE or WebSocket) the shutdown reads."""

    _head_request = False
    _event_stream = False
    _websocket: BoundedWSStream | None = None
    _answered_late_body = False
    close_after_response = False
    zero_copy = False  # the connection sends file spans (set by the connection)
    _held_head = b""  # a Content-Length response's head, until its body's first bytes

    @property
    def streaming(self) -> bool:
        """A long-lived response (server-sent events) or an upgraded WebSocket."""
        return isinstance(self.stream, WSStream) or (self.stream is not None and self._event_stream)

    @property
    def peer_mid_message(self) -> bool:
        """The client may still be sending a request body, or a WebSocket
        message we refused, that we never read."""
        return (self._websocket is not None and self._websocket.overflowed) or self.peer_sending_body

    @property
    def peer_sending_body(self) -> bool:
        """A request body is due from the client (its head arrived, its end not yet)."""
        return isinstance(self.connection, h11.Connection) and self.connection.their_state is h11.SEND_BODY

    def answer_late_body(self) -> bytes:
        """The 408 for a request body that came too slowly, when no response
        has begun (else nothing); from here on the app's output is dropped."""
        self._answered_late_body = True
        if not isinstance(self.connection, h11.Connection) or self.connection.our_state is not h11.SEND_RESPONSE:
            return b""
        body = protocol_error_body(408, self.config.h11_max_incomplete_size)
        return b"".join(self.connection.send(event) or b"" for event in (
            h11.Response(status_code=408, headers=_json_error_headers(body, self.config)),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ))  # fmt: skip

    @property
    def event_stream_ended(self) -> bool:
        """The app ended its server-sent events response itself (its last bytes may not be sent yet)."""
        return (self._event_stream and isinstance(self.connection, h11.Connection)
                and self.connection.our_state in (h11.DONE, h11.MUST_CLOSE))

    def end_of_event_stream(self) -> bytes:
        """The bytes that end a server-sent events response cleanly (the last
        chunk), when one is under way; else nothing. Only an event stream:
        any other response cut short must not look complete."""
        if not (self._event_stream and isinstance(self.connection, h11.Connection)):
            return b""
        if self.connection.our_state is not h11.SEND_BODY:
            return b""
        try:
            return self.connection.send(h11.EndOfMessage()) or b""
        except h11.LocalProtocolError:
            return b""

    async def _create_stream(self, request: h11.Request) -> None:
        self._head_request = request.method.upper() == b"HEAD"
        self._event_stream = False
        if _is_websocket_upgrade(request):
            await self._create_websocket(request)
        elif self.zero_copy:
            await self._create_http_stream(request)
        else:
            await super()._create_stream(request)

    async def _create_http_stream(self, request: h11.Request) -> None:
        """Hypercorn's, with the stream that takes bodies sent from files."""
        self.stream = ZeroCopyHTTPStream(
            self.app, self.config, self.context, self.task_group, self.ssl, self.client, self.server,
            self.stream_send, STREAM_ID,
        )  # fmt: skip
        await self._handle_request(request)

    async def _create_websocket(self, request: h11.Request) -> None:
        """Hypercorn's upgrade, with our WebSocket stream in place of its own."""
        self._websocket = BoundedWSStream(
            self.app, self.config, self.context, self.task_group, self.ssl, self.client, self.server,
            self.stream_send, STREAM_ID,
        )  # fmt: skip
        self.stream = self._websocket
        assert isinstance(self.connection, h11.Connection)
        self.connection = H11WSConnection(self.connection)
        await self._handle_request(request)

    async def _handle_request(self, request: h11.Request) -> None:
        """The request to the new stream (the end of Hypercorn's ``_create_stream``)."""
        assert self.stream is not None
        headers = request.headers.raw_items() if self.config.h11_pass_raw_headers else list(request.headers)
        await self.stream.handle(
            Request(stream_id=STREAM_ID, headers=headers, http_version=request.http_version.decode(),
                    method=request.method.decode("ascii").upper(), raw_path=request.target,
                    state=self.connection_state)
        )  # fmt: skip
        self.keep_alive_requests += 1
        await self.context.mark_request()

    async def stream_send(self, event: StreamEvent) -> None:
        if self._answered_late_body:
            return  # the connection answered 408 and closes
        if isinstance(event, FileBody):
            await self._send_file_body(event.span)
            return
        if isinstance(event, StreamClosed):
            await self._send_held_head()  # an app that failed mid-response: what it framed still goes out
        if isinstance(event, Response) and event.status_code >= 200:
            await self._send_response_head(event)
            return
        await super().stream_send(event)

    async def _send_response_head(self, event: Response) -> None:
        """Hypercorn's final response head, with the server's headers from :mod:`.date_header`
        (the Date formatted once a second) and ``Connection: close`` where this connection ends."""
        if list(event.headers) == _BARE_ERROR_HEADERS:
            await self._send_json_error(event.status_code)
            return
        self._event_stream = _is_event_stream(event.headers)
        headers = list(event.headers)
        if self.peer_mid_message or self.close_after_response or self.context.terminated.is_set():
            headers.append((b"connection", b"close"))
        headers += server_headers(self.config)
        if self.keep_alive_requests >= self.config.keep_alive_max_requests:
            headers.append((b"connection", b"close"))  # Hypercorn's recycling, as Hypercorn writes it
        await self._send_h11_event(h11.Response(headers=headers, status_code=event.status_code))

    async def _send_h11_event(self, event: H11SendableEvent) -> None:
        """Hypercorn's, with a Content-Length response's head held for its body (module doc)."""
        try:
            data = self.connection.send(event)
        except h11.LocalProtocolError:
            if self.connection.their_state != h11.ERROR:
                raise
            return
        if isinstance(event, h11.Response) and _has_length(event.headers):
            self._held_head = data or b""
            return
        if self._held_head:
            head, self._held_head = self._held_head, b""
            if data and len(data) <= COALESCE_MAX_BYTES:
                data = head + data
            else:
                await self.send(RawData(data=head))
        if data:  # nothing to write (the end of a sized body): no trip through the send lock and the scheduler
            await self.send(RawData(data=data))

    async def _send_held_head(self) -> None:
        if self._held_head:
            head, self._held_head = self._held_head, b""
            await self.send(RawData(data=head))

    async def _send_file_body(self, span: FileSpan) -> None:
        """The span as h11 Data: its framing (a chunk's size line, if chunked) as bytes, the span itself as is."""
        await self._send_held_head()
        try:
            pieces = self.connection.send_with_data_passthrough(h11.Data(data=span))  # type: ignore[arg-type,union-attr]
        except h11.LocalProtocolError:
            if self.connection.their_state != h11.ERROR:
                raise
            return
        for piece in pieces or ():
            await self.send(FileData(span) if piece is span else RawData(data=bytes(piece)))

    async def _send_error_response(self, status_code: int) -> None:
        # A request hypercorn could not parse: no method known, so a body.
        self._head_request = False
        await self._send_json_error(status_code)
        await self._send_h11_event(h11.EndOfMessage())

    async def _send_json_error(self, status: int) -> None:
        """The response head and JSON body of an error; the end follows
        (EndBody from the stream, or the caller)."""
        body = protocol_error_body(status, self.config.h11_max_incomplete_size)
        await self._send_h11_event(h11.Response(status_code=status, headers=_json_error_headers(body, self.config)))
        if not self._head_request:
            await self._send_h11_event(h11.Data(data=body))


def _json_error_headers(body: bytes, config: Config) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *server_headers(config),
    ]


def _has_length(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """The response declares its body's length (h11 lower-cases the names)."""
    return any(name == b"content-length" for name, _ in headers)


def _is_websocket_upgrade(request: h11.Request) -> bool:
    """Hypercorn's test for an upgrade to a WebSocket (h11.py, ``_create_stream``)."""
    upgrade, connection = b"", b""
    for name, value in request.headers:  # h11 lower-cases the names
        if name == b"upgrade":
            upgrade = value.strip()
        elif name == b"connection":
            connection = value.strip()
    tokens = {token.strip() for token in connection.lower().split(b",")}
    return b"upgrade" in tokens and upgrade.lower() == b"websocket" and request.method.upper() == b"GET"


def _is_event_stream(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    return any(
        name.lower() == b"content-type" and value.lower().startswith(b"text/event-stream")
        for name, value in headers
    )

