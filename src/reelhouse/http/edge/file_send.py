"""A response body sent from a file by ``os.sendfile``: the ASGI ``http.response.zerocopysend`` extension.

The app (the stream route) sends ``{"type": "http.response.zerocopysend",
"file": f, "offset": o, "count": n, "more_body": ...}`` and the kernel
copies the bytes from the page cache to the socket: no byte passes
through Python.  Measured with benchmarks/stream_load.py: one client went
from about a fifth of a bare ``sendfile`` loop's MiB/s at ten times its
CPU per GiB (every 256 KiB chunk read into bytes on a file thread, handed
to the loop and written through h11) to the figures in that benchmark's
report.

How a span is sent (:func:`send_span`): the loop waits until the socket
can take bytes, then one ``os.sendfile`` on a thread of the edge's pool
moves what the socket's buffer takes (the socket is non-blocking, so only
the file's side can block: a hung mount holds the thread, never the
loop), and again until the span is sent.  Two clocks:

- ``read_seconds``: one ``sendfile`` that does not return in time (a
  network mount that stopped answering) is abandoned and the connection
  cut (:class:`FileStalled`);
- ``stall_seconds``: a client that takes no byte for that long is cut off
  (a paused player with a full buffer asks again with a Range).

The thread works on duplicates of both descriptors, closed when it
returns: an abandoned ``sendfile`` can never write to a socket, or read a
file, that reused the number of one the app or the connection closed
meanwhile.  When one is abandoned the socket is shut down as well, so the
client sees the end at once and the late ``sendfile`` fails on it.
Confinement is the app's: the descriptor sent is the one it opened.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

import trio
from hypercorn.events import Event

from reelhouse.thread_pool import ThreadPool

ZERO_COPY_EXTENSION = "http.response.zerocopysend"
"""The ASGI scope extension (and message type) of a body sent from a file."""
READ_SECONDS_KEY = "reelhouse.read_seconds"
"""Optional message key: seconds one sendfile may take (default :data:`READ_SECONDS`)."""
STALL_SECONDS_KEY = "reelhouse.stall_seconds"
"""Optional message key: a client taking no byte for this long is cut (default: never)."""
READ_SECONDS = 10.0
SEND_THREADS = 8
"""Sendfile calls at once (a hung mount holds one until it answers)."""
CLOSE_SECONDS = 5.0
THREAD_WAIT_SECONDS = 0.02
"""How long a sendfile thread waits for room in a full socket before handing the wait to the loop."""
THREAD_TURN_SECONDS = 0.25
"""At most this long on a thread per call (the read deadline counts it; other streams wait for threads)."""
SEND_NICENESS = 10
"""The sendfile threads' nice value (Linux sets it per thread): the kernel's copying, which is most of
a stream's CPU, takes what the event loop leaves, so requests stay quick while streams run."""
_niced = threading.local()


class FileStalled(Exception):
    """The file did not give its bytes in time (a hung mount): the response is cut short."""


class ClientStalled(Exception):
    """The client took no byte for the stall limit: the response is cut short."""


@dataclass(frozen=True, slots=True)
class FileSpan:
    """``count`` bytes of the open file ``fd`` from ``offset``; h11 sees only its length."""

    fd: int
    offset: int
    count: int
    read_seconds: float = READ_SECONDS
    stall_seconds: float | None = None

    def __len__(self) -> int:
        return self.count

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> FileSpan:
        """The span of a ``http.response.zerocopysend`` message (offset and count are required here)."""
        file = message["file"]
        fd = file if isinstance(file, int) else file.fileno()
        return cls(fd, int(message["offset"]), int(message["count"]),
                   float(message.get(READ_SECONDS_KEY) or READ_SECONDS), message.get(STALL_SECONDS_KEY))


@dataclass(frozen=True, slots=True)
class FileData(Event):
    """The protocol's request to the connection: send ``span`` as it is (its framing went as RawData)."""

    span: FileSpan


def send_threads() -> ThreadPool[None]:
    """The edge's sendfile threads (created inside ``trio.run``; closed with ``aclose``)."""
    return ThreadPool([None] * SEND_THREADS, name="edge-sendfile")


async def send_span(sock: trio.socket.SocketType, span: FileSpan, threads: ThreadPool[None]) -> int:
    """Send ``span`` on ``sock``; the bytes sent (fewer when the file turned out shorter).

    Raises FileStalled or ClientStalled past a limit, OSError when the
    peer is gone; the caller then closes the connection (a body cut short).
    """
    sent = 0
    while sent < span.count:
        with trio.move_on_after(span.stall_seconds if span.stall_seconds is not None else float("inf")) as waiting:
            await sock.wait_writable()
        if waiting.cancelled_caught:
            raise ClientStalled()
        moved = await _sendfile(sock, span, sent, threads)
        if moved == 0:
            return sent  # the file is shorter than it was: the response ends short
        sent += max(moved, 0)
    return sent


async def _sendfile(sock: trio.socket.SocketType, span: FileSpan, sent: int, threads: ThreadPool[None]) -> int:
    """One sendfile from the span's ``sent``-th byte on: what the socket's buffer took."""
    call = _SendfileCall(os.dup(sock.fileno()), os.dup(span.fd), span.offset + sent, span.count - sent)
    try:
        with trio.fail_after(span.read_seconds):
            return await threads.call(call.run, abandon_on_cancel=True)
    except trio.TooSlowError:
        call.give_up(sock)
        raise FileStalled() from None
    except BaseException:
        call.give_up(sock)
        raise


class _SendfileCall:
    """One ``os.sendfile`` on duplicated descriptors, which are closed exactly once:
    by the thread when it ran the call, else by the loop when it gave the call up first."""

    def __init__(self, out_fd: int, in_fd: int, offset: int, count: int) -> None:
        self._fds = (out_fd, in_fd)
        self._offset = offset
        self._count = count
        self._lock = threading.Lock()
        self._state = "queued"  # -> running -> done, or queued -> given up

    def run(self) -> int:
        """On a pool thread."""
        with self._lock:
            if self._state != "queued":
                return 0
            self._state = "running"
        _nice_this_thread()
        try:
            return _send_while_taken(*self._fds, self._offset, self._count)
        finally:
            with self._lock:
                self._state = "done"
                self._close()

    def give_up(self, sock: trio.socket.SocketType) -> None:
        """On the loop: the caller stopped waiting (cancelled, or past the read deadline)."""
        with self._lock:
            if self._state == "queued":
                self._state = "given up"
                self._close()
            elif self._state == "running":
                # It writes on for a moment: end the connection under it now.
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def _close(self) -> None:
        for fd in self._fds:
            os.close(fd)


def _send_while_taken(out_fd: int, in_fd: int, offset: int, count: int) -> int:
    """Sendfile until ``count`` bytes are sent, the file ends, or the socket stays full
    :data:`THREAD_WAIT_SECONDS` (or this call has run :data:`THREAD_TURN_SECONDS`).

    The bytes sent; 0 at the end of the file; -1 when none could be (the
    socket's buffer is full: the loop waits for room).  Waiting here a
    moment for a client that is reading saves a hop back to the loop and
    another to a thread: a loopback client drains the socket in pieces,
    and one hop per piece cost four times the CPU per GiB of a bare
    sendfile loop.
    """
    sent, turn_ends = 0, time.monotonic() + THREAD_TURN_SECONDS
    room = select.poll()
    room.register(out_fd, select.POLLOUT)
    while sent < count:
        try:
            moved = sendfile(out_fd, in_fd, offset + sent, count - sent)
        except BlockingIOError:
            moved = -1
        if moved == 0:
            break  # the end of the file
        if moved > 0:
            sent += moved
            continue
        if time.monotonic() >= turn_ends or not room.poll(THREAD_WAIT_SECONDS * 1000):
            return sent or -1
    return sent


def _nice_this_thread() -> None:
    if getattr(_niced, "done", False):
        return
    _niced.done = True
    with contextlib.suppress(OSError, AttributeError):  # not Linux, or not allowed: the default priority
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), SEND_NICENESS)


def sendfile(out_fd: int, in_fd: int, offset: int, count: int) -> int:
    """``os.sendfile`` (a name of its own so tests can stand in for a mount that hangs)."""
    return os.sendfile(out_fd, in_fd, offset, count)
