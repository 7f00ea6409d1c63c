"""The HTTP edge: listening sockets, the accept loop, the connection cap and
the shutdown of connections, around Hypercorn's protocol code.

A serve loop of our own rather than ``hypercorn.trio.serve`` (which we
cannot configure into these): sockets are bound before anything else runs
(a busy port fails start-up before the database is touched); at most
``max_connections`` connections are open, and one beyond is answered 503
with ``Retry-After`` at once and closed (accepting and refusing beats
leaving it in the kernel's backlog, where it waits with no answer), unless
it can take the place of a connection on trial (a share of the cap is kept
for authenticated clients: admission.py); and
shutdown closes idle keep-alive connections and streams (SSE, WebSocket) at
once, gives requests in flight the grace, then cancels what is left.
"""

from __future__ import annotations

import errno
import logging
import resource
import socket
from dataclasses import dataclass, field
from typing import Any

import trio
from hypercorn.app_wrappers import ASGIWrapper
from hypercorn.config import Config
from hypercorn.trio.lifespan import Lifespan
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ASGIFramework
from hypercorn.utils import repr_socket_addr

from ..errors import error_body_bytes
from .connection import MAX_RECV, Connection, close_stream
from .file_send import CLOSE_SECONDS, FileSender, send_threads
from .limits import EdgeLimits

log = logging.getLogger(__name__)

# Descriptors kept for everything but client connections: database files
# and connections, media and image files, ffprobe and parser pipes.
RESERVED_DESCRIPTORS = 100
# Refusals in progress at once (each holds its socket for a moment so the
# 503 is read rather than reset); beyond, a connection is closed at once.
REFUSALS_AT_ONCE = 16
REFUSAL_SECONDS = 0.5
RETRY_AFTER_SECONDS = 1
# accept() failing for want of resources: wait, then try again.
ACCEPT_BACKOFF_SECONDS = 0.1
_CAPACITY_ERRNOS = {errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS}


class BindError(Exception):
    """The address cannot be listened on; the message is one line."""


def bind_sockets(config: Config) -> list[socket.socket]:
    """Bind (not yet listen on) ``config.bind``: before start-up does anything else."""
    try:
        return config.create_sockets().insecure_sockets
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise BindError(f"cannot listen on {', '.join(config.bind)}: {reason.lower()}") from None


def connection_budget(max_connections: int) -> int:
    """``max_connections`` fitted to the descriptor limit, raised if it may be."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = max_connections + RESERVED_DESCRIPTORS
    if soft != resource.RLIM_INFINITY and soft < need:
        soft = need if hard == resource.RLIM_INFINITY else min(need, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    if soft == resource.RLIM_INFINITY or soft >= need:
        return max_connections
    fitted = max(soft - RESERVED_DESCRIPTORS, 1)
    log.warning("http.max_connections %d lowered to %d to fit the descriptor limit %d",
                max_connections, fitted, soft)
    return fitted


def _refusal() -> bytes:
    body = error_body_bytes(
        "service_unavailable",
        "The server has too many open connections; retry shortly.",
        {"retryAfterSeconds": RETRY_AFTER_SECONDS},
    )
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: {RETRY_AFTER_SECONDS}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


@dataclass
class EdgeServer:
    """Serves an ASGI app on bound sockets until ``shutdown`` is set."""

    app: ASGIFramework
    config: Config
    max_connections: int
    limits: EdgeLimits = field(default_factory=EdgeLimits)
    connections: set[Connection] = field(default_factory=set)
    closing: bool = False
    _refusing: int = 0
    _context: WorkerContext = field(default_factory=lambda: WorkerContext(None))
    _send_threads: FileSender | None = None  # the sendfile process, while serving (file_send.py)

    async def serve(
        self, sockets: list[socket.socket], shutdown: trio.Event, task_status: trio.TaskStatus[list[str]]
    ) -> None:
        app = ASGIWrapper(self.app)
        state: dict[str, Any] = {}
        lifespan = Lifespan(app, self.config, state)
        self._send_threads = send_threads()
        try:
            async with trio.open_nursery() as lifespan_nursery:
                await lifespan_nursery.start(lifespan.handle_lifespan)
                await lifespan.wait_for_startup()
                async with trio.open_nursery() as handlers:
                    await self._accept_until(shutdown, sockets, handlers, app, state, task_status)
                    await self._begin_shutdown(handlers)
                await lifespan.wait_for_shutdown()
                lifespan_nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):  # bounded: a process a hung mount holds is killed
                if not await self._send_threads.aclose(CLOSE_SECONDS):
                    log.warning("the sendfile process still busy after %.0f s (a hung mount?); killed",
                                CLOSE_SECONDS)

    async def _accept_until(
        self, shutdown: trio.Event, sockets: list[socket.socket], handlers: trio.Nursery,
        app: ASGIWrapper, state: dict[str, Any], task_status: trio.TaskStatus[list[str]],
    ) -> None:
        listeners = []
        for sock in sockets:
            sock.listen(self.config.backlog)
            listeners.append(trio.SocketListener(trio.socket.from_stdlib_socket(sock)))
        try:
            async with trio.open_nursery() as accepting:
                for listener in listeners:
                    accepting.start_soon(self._accept, listener, handlers, app, state)
                task_status.started([f"http://{repr_socket_addr(s.family, s.getsockname())}" for s in sockets])
                await shutdown.wait()
                accepting.cancel_scope.cancel()
        finally:
            for listener in listeners:
                listener.socket.close()  # no new connections from here on

    async def _begin_shutdown(self, handlers: trio.Nursery) -> None:
        """Idle connections and streams close now; requests in flight get the
        grace (a finished one closes instead of waiting for the next)."""
        self.closing = True
        await self._context.terminated.set()  # hypercorn: recycle no connection
        for connection in list(self.connections):
            if connection.idle or connection.streaming:
                connection.shut_down()
        handlers.cancel_scope.deadline = trio.current_time() + self.config.graceful_timeout

    async def _accept(
        self, listener: trio.SocketListener, handlers: trio.Nursery, app: ASGIWrapper, state: dict[str, Any]
    ) -> None:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                if exc.errno not in _CAPACITY_ERRNOS:
                    raise
                log.error("cannot accept a connection: %s", exc.strerror)
                await trio.sleep(ACCEPT_BACKOFF_SECONDS)
                continue
            on_trial = self._admit()
            if on_trial is None:
                handlers.start_soon(self._refuse, stream)
                continue
            connection = Connection(app, self.config, self._context, state, stream, self, on_trial=on_trial,
                                    send_threads=self._send_threads)
            self.connections.add(connection)  # counted from accept to close
            handlers.start_soon(self._run, connection)

    def _admit(self) -> bool | None:
        """Room for a new connection: whether it is on trial (admission.py);
        None when there is none (refused).  At the cap, the oldest connection
        on trial that has not authenticated is evicted to make room.  One pass
        over the connections per accept: microseconds at the default cap (256)."""
        held = [connection for connection in self.connections if not connection.evicted]
        if len(held) >= self.max_connections:
            on_trial = [c for c in held if c.on_trial and not c.authenticated]
            if not on_trial:
                return None
            oldest = min(on_trial, key=lambda connection: connection.accepted_at)
            oldest.evict()
            held.remove(oldest)
        unauthenticated = sum(not connection.authenticated for connection in held)
        return unauthenticated >= self.limits.unauthenticated_limit(self.max_connections)

    async def _run(self, connection: Connection) -> None:
        try:
            await connection.run()
        except Exception:
            # One connection's failure is logged; the server serves on.
            log.exception("a connection failed")
        finally:
            self.connections.discard(connection)

    async def _refuse(self, stream: trio.SocketStream) -> None:
        if self._refusing >= REFUSALS_AT_ONCE:
            await close_stream(stream)
            return
        self._refusing += 1
        try:
            with trio.move_on_after(REFUSAL_SECONDS):
                await stream.send_all(_REFUSAL)
                await stream.send_eof()
                # Closing with the client's request unread would reset the
                # connection, and the 503 with it: read the head first.
                received = b""
                while b"\r\n\r\n" not in received and len(received) < MAX_RECV:
                    chunk = await stream.receive_some(MAX_RECV)
                    if not chunk:
                        break
                    received += chunk
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        finally:
            self._refusing -= 1
            await close_stream(stream)


_REFUSAL = _refusal()
