"""One client connection: Hypercorn's TCPServer with our lifecycle.

Why not Hypercorn's own: in 0.18 its keep-alive timer is started from the
app's task right after a response, and quart-trio cancels that task at that
moment (the request's ``http.disconnect``), so the timer never starts and an
idle connection stays open for ever (and holds shutdown for the whole
grace). Here the idle deadline lives on the reader's receive, set without a
checkpoint when the protocol reports idle/busy, so nothing can cancel it.

A request body is timed as the head is (limits.py): only the time spent
waiting on the client counts, with an allowance that grows with the bytes
received; past it the client gets 408 (when no response has started) and
the connection closes.  Each connection is also the app's
:class:`~.admission.Admission` (admission.py): whether it authenticated,
whether it is on trial in the share kept for authenticated clients.

Closing is one cancel scope per connection: idle past the keep-alive, the
protocol asking to close, the peer gone, or shutdown all cancel it. After
an early response (request body unread) the close lingers: our side is shut
for writing and the rest of the body is read and dropped for a bounded time,
so the client gets the response rather than a reset, and no descriptor is
left behind (a hung reader once left sockets in CLOSE-WAIT for good).
"""

from __future__ import annotations

import logging
from math import inf
from typing import Any, Protocol

import trio
from hypercorn.config import Config
from hypercorn.events import Closed, Event, RawData, Updated
from hypercorn.protocol import ProtocolWrapper
from hypercorn.trio.task_group import TaskGroup
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import AppWrapper, ConnectionState
from hypercorn.utils import parse_socket_addr

from .admission import ADMISSION_KEY
from .file_send import ClientStalled, FileData, FileSender, FileSpan, FileStalled, send_span
from .limits import BodyClock, EdgeLimits
from .protocol import ReelhouseH11Protocol

log = logging.getLogger(__name__)

MAX_RECV = 2**16
# After an early response, how long and how much of the unread body is read
# and dropped before the socket closes.
LINGER_SECONDS = 2.0
LINGER_MAX_BYTES = 1024 * 1024
# Time to send the last chunk of an event stream we end.
END_STREAM_SECONDS = 0.5
_GONE = (trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError, OSError)


class EdgeState(Protocol):
    @property
    def closing(self) -> bool: ...

    @property
    def limits(self) -> EdgeLimits: ...


class Connection(TCPServer):
    """Serves one accepted plain-TCP stream until it closes."""

    def __init__(
        self,
        app: AppWrapper,
        config: Config,
        context: WorkerContext,
        state: dict[str, Any],
        stream: trio.SocketStream,
        server: EdgeState,
        *,
        on_trial: bool = False,
        send_threads: FileSender | None = None,
    ) -> None:
        super().__init__(app, config, context, ConnectionState(state), stream)  # type: ignore[arg-type]
        self._server = server
        self._send_threads = send_threads  # for bodies sent from files (file_send.py)
        self.accepted_at = trio.current_time()
        self.on_trial = on_trial  # of the share kept for authenticated clients (admission.py)
        self.authenticated = False
        self.evicted = False
        self._refused = False  # an anonymous request on trial: close once it is answered
        self._body: BodyClock | None = None
        self._scope = trio.CancelScope()
        self._linger_scope = trio.CancelScope()
        self._receive_scope: trio.CancelScope | None = None
        # Idle (no request in flight) since this time; None while busy. A
        # new connection is idle: its first request head must come in time.
        self._idle_since: float | None = trio.current_time()

    @property
    def idle(self) -> bool:
        """No request in flight (between requests, or closing)."""
        return self._idle_since is not None or self._scope.cancel_called

    @property
    def streaming(self) -> bool:
        """Serving server-sent events or an upgraded WebSocket."""
        protocol = self._h11()
        return protocol is not None and protocol.streaming

    def admit_anonymous(self) -> bool:
        if self.on_trial and not self.authenticated:
            self._refused = True
            if (protocol := self._h11()) is not None:
                protocol.close_after_response = True
            return False
        return True

    def mark_authenticated(self) -> None:
        self.authenticated = True

    def evict(self) -> None:
        """Make room for a newer connection (admission.py)."""
        self.evicted = True
        self.close_now()

    def close_now(self) -> None:
        """Stop serving this connection (its app task is cancelled)."""
        self._scope.cancel()
        self._linger_scope.cancel()

    def shut_down(self) -> None:
        """Close for shutdown: an event stream first gets its last chunk, so
        its client sees a finished response (and reconnects later)."""
        if self.streaming and not self._scope.cancel_called:
            self._task_group.spawn(self._end_event_stream)
        else:
            self.close_now()

    async def _end_event_stream(self) -> None:
        protocol = self._h11()
        assert protocol is not None
        ended_by_app = False
        try:
            with trio.move_on_after(END_STREAM_SECONDS):
                # Under the send lock: no chunk of the app's is half sent,
                # and once the end is sent, the cancel below (no checkpoint
                # between) keeps the app from sending more.
                async with self.send_lock:
                    if data := protocol.end_of_event_stream():
                        await self.stream.send_all(data)
                    else:
                        ended_by_app = protocol.event_stream_ended
        except _GONE:
            pass
        finally:
            # The app ended the stream itself (it sees the shutdown too): its
            # last chunk, framed already, may be waiting for the send lock we
            # held. Cancelling now would cut it (a client saw an incomplete
            # chunked body under load); it goes out, the connection turns
            # idle and closes, within the handlers' graceful deadline.
            if not ended_by_app:
                self.close_now()

    async def run(self) -> None:
        try:
            with self._scope:
                await self._serve()
        finally:
            await self._finish()

    async def _serve(self) -> None:
        socket = self.stream.socket
        try:
            client = parse_socket_addr(socket.family, socket.getpeername())
            server = parse_socket_addr(socket.family, socket.getsockname())
            async with TaskGroup() as task_group:
                self._task_group = task_group
                state = ConnectionState({**self.state, ADMISSION_KEY: self})
                args = (self.app, self.config, self.context, task_group, state,
                        False, client, server, self.protocol_send)
                self.protocol = ProtocolWrapper(*args, alpn_protocol="http/1.1")
                self.protocol.protocol = h11 = ReelhouseH11Protocol(*args)
                h11.zero_copy = self._send_threads is not None and self._send_threads.usable
                await self.protocol.initiate()
                await self._read_data()
        except OSError:
            pass  # the peer went away
        except BaseExceptionGroup as group:
            _gone, rest = group.split(OSError)
            if rest is not None:
                raise rest from None

    async def _read_data(self) -> None:
        while True:
            body = self._body_clock()
            with trio.CancelScope(deadline=self._receive_deadline()) as scope:
                self._receive_scope = scope
                waiting_since = trio.current_time()
                try:
                    data = await self.stream.receive_some(MAX_RECV)
                except (trio.ClosedResourceError, trio.BrokenResourceError):
                    data = b""
            self._receive_scope = None
            if body is not None:
                body.count(trio.current_time() - waiting_since, len(data))
            if scope.cancelled_caught:
                if body is not None:
                    await self._answer_late_body()
                break  # idle past the keep-alive timeout, or a body too slow
            await self.protocol.handle(RawData(bytes(data)))
            if not data:
                break
        await self.protocol.handle(Closed())

    def _body_clock(self) -> BodyClock | None:
        """The clock of the request body the client is sending, if it is sending one."""
        protocol = self._h11()
        if protocol is None or not protocol.peer_sending_body:
            self._body = None
        elif self._body is None or self._body.request != protocol.keep_alive_requests:
            self._body = BodyClock(self._server.limits, protocol.keep_alive_requests)
        return self._body

    def _receive_deadline(self) -> float:
        if self._idle_since is not None:
            return self._idle_since + self.config.keep_alive_timeout
        if self._body is not None:
            return trio.current_time() + self._body.remaining()
        return inf

    async def _answer_late_body(self) -> None:
        """408 for a body that came too slowly, unless a response has begun;
        the connection then closes (lingering: the client reads the 408)."""
        protocol = self._h11()
        if protocol is None or not (data := protocol.answer_late_body()):
            return
        with trio.move_on_after(END_STREAM_SECONDS):
            await self._send(data)

    async def protocol_send(self, event: Event) -> None:
        if isinstance(event, RawData):
            await self._send(event.data)
        elif isinstance(event, FileData):
            await self._send_file(event.span)
        elif isinstance(event, Closed):
            self._scope.cancel()  # closes after a linger if a body is unread
        elif isinstance(event, Updated):
            # No checkpoint here: the caller may be a task being cancelled.
            self._idle_since = trio.current_time() if event.idle else None
            if event.idle and (self._server.closing or self._refused):
                self.close_now()
            if self._receive_scope is not None:
                self._receive_scope.deadline = self._receive_deadline()

    async def _send(self, data: bytes) -> None:
        async with self.send_lock:
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.close_now()  # the peer is gone
            except BaseException:
                # Cancelled mid-write: the byte stream may be cut, so this
                # connection cannot carry another response.
                self.close_now()
                raise

    async def _send_file(self, span: FileSpan) -> None:
        """A body's bytes straight from its file (file_send.py); any failure cuts the response
        short, so the connection closes (the client sees fewer bytes than Content-Length)."""
        assert self._send_threads is not None, "the zero-copy extension is offered only with send threads"
        async with self.send_lock:
            try:
                if await send_span(self.stream.socket, span, self._send_threads) < span.count:
                    self.close_now()  # the file shrank meanwhile
            except FileStalled:
                log.warning("a sendfile took over %.0f s (a hung mount?): response cut short", span.read_seconds)
                self.close_now()
            except ClientStalled:
                log.info("a client took no data for %.0f s: response cut short", span.stall_seconds)
                self.close_now()
            except OSError:
                self.close_now()  # the peer is gone
            except BaseException:
                self.close_now()
                raise

    async def _finish(self) -> None:
        try:
            if self._peer_mid_message():
                with self._linger_scope:
                    await self._linger()
        finally:
            await close_stream(self.stream)

    def _peer_mid_message(self) -> bool:
        protocol = self._h11()
        return protocol is not None and protocol.peer_mid_message

    def _h11(self) -> ReelhouseH11Protocol | None:
        """The HTTP/1.1 protocol, once the connection is being served."""
        protocol = getattr(getattr(self, "protocol", None), "protocol", None)
        return protocol if isinstance(protocol, ReelhouseH11Protocol) else None

    async def _linger(self) -> None:
        with trio.move_on_after(LINGER_SECONDS):
            try:
                await self.stream.send_eof()
                dropped = 0
                while dropped < LINGER_MAX_BYTES:
                    data = await self.stream.receive_some(MAX_RECV)
                    if not data:
                        return
                    dropped += len(data)
            except _GONE:
                return


async def close_stream(stream: trio.abc.Stream) -> None:
    # aclose closes the descriptor before its checkpoint: even a cancelled
    # close releases it.
    try:
        await stream.aclose()
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
