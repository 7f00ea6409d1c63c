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
can take bytes, then hands the socket and the file to the edge's sendfile
process (:class:`FileSender`, sendfile_worker.py), whose thread moves what
the socket's buffer takes, waits there a moment for more room, and answers
with the count (the socket is non-blocking, so only the file's side can
block: a hung mount holds a thread of that process, never the loop); and
again until the span is sent.  A process and not threads of the server:
each ``sendfile`` return takes the GIL back, and under eight streams the
server's loop waited for the GIL a quarter of its time (sendfile_worker.py
has the figures).  Two clocks:

- ``read_seconds``: a hand-over that is not answered in time (a network
  mount that stopped answering) is abandoned and the connection cut
  (:class:`FileStalled`);
- ``stall_seconds``: a client that takes no byte for that long is cut off
  (a paused player with a full buffer asks again with a Range).

The process gets the descriptors themselves (``SCM_RIGHTS``: the same open
socket and the same open file, the one ``open_confined`` opened) and closes
its copies once it answered: an abandoned send can never write to a
socket, or read a file, that reused the number of one the app or the
connection closed meanwhile.  When one is abandoned the socket is shut
down as well, so the client sees the end at once and the late
``sendfile`` fails on it.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import outcome
import trio
from hypercorn.events import Event

from .sendfile_worker import REPLY, REQUEST

log = logging.getLogger(__name__)

ZERO_COPY_EXTENSION = "http.response.zerocopysend"
"""The ASGI scope extension (and message type) of a body sent from a file."""
READ_SECONDS_KEY = "reelhouse.read_seconds"
"""Optional message key: seconds one sendfile may take (default :data:`READ_SECONDS`)."""
ON_SENT_KEY = "reelhouse.on_sent"
"""Optional message key: ``f(n)``, called on the loop as the kernel takes each ``n`` bytes of the span
(so a body may be sent in large spans and still count its bytes as they go, not once a span is sent)."""
STALL_SECONDS_KEY = "reelhouse.stall_seconds"
"""Optional message key: a client taking no byte for this long is cut (default: never)."""
READ_SECONDS = 10.0
SEND_THREADS = 8
"""Sendfile calls at once, threads of the sendfile process (a hung mount holds one until it answers)."""
CLOSE_SECONDS = 5.0
THREAD_WAIT_SECONDS = 0.02
"""How long a sendfile thread waits for room in a full socket before handing the wait back to the loop."""
THREAD_TURN_SECONDS = 0.25
"""At most this long on a thread per call (the read deadline counts it; other streams wait for threads)."""
SEND_NICENESS = 10
"""The sendfile threads' nice value (Linux sets it per thread): the kernel's copying, which is most of
a stream's CPU, takes what the event loop leaves, so requests stay quick while streams run."""
WORKER = Path(__file__).with_name("sendfile_worker.py")


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
    on_sent: Callable[[int], None] | None = None

    def __len__(self) -> int:
        return self.count

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> FileSpan:
        """The span of a ``http.response.zerocopysend`` message (offset and count are required here)."""
        file = message["file"]
        fd = file if isinstance(file, int) else file.fileno()
        return cls(
            fd,
            int(message["offset"]),
            int(message["count"]),
            float(message.get(READ_SECONDS_KEY) or READ_SECONDS),
            message.get(STALL_SECONDS_KEY),
            message.get(ON_SENT_KEY),
        )


@dataclass(frozen=True, slots=True)
class FileData(Event):
    """The protocol's request to the connection: send ``span`` as it is (its framing went as RawData)."""

    span: FileSpan


def send_threads() -> FileSender:
    """The edge's sendfile process (made in ``trio.run``, started at the first body; stopped by ``aclose``)."""
    return FileSender(SEND_THREADS)


async def send_span(sock: trio.socket.SocketType, span: FileSpan, sender: FileSender) -> int:
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
        moved = await _sendfile(sock, span, sent, sender)
        if moved == 0:
            return sent  # the file is shorter than it was: the response ends short
        if moved > 0:
            sent += moved
            if span.on_sent is not None:
                span.on_sent(moved)
    return sent


async def _sendfile(sock: trio.socket.SocketType, span: FileSpan, sent: int, sender: FileSender) -> int:
    """One turn of the sendfile process from the span's ``sent``-th byte on: what the socket took."""
    try:
        with trio.fail_after(span.read_seconds):
            return await sender.send(sock.fileno(), span.fd, span.offset + sent, span.count - sent)
    except trio.TooSlowError:
        _cut(sock)
        raise FileStalled() from None
    except BaseException:
        _cut(sock)
        raise


def _cut(sock: trio.socket.SocketType) -> None:
    """Given up (cancelled, past the read deadline, or failed): the process may still be writing on
    its copy of the socket, so end the connection under it now."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def hand_over(control: socket.socket, request: bytes, fds: list[int]) -> None:
    """Send one request and its descriptors to the sendfile process (never blocks: raises
    BlockingIOError when its socket is full)."""
    socket.send_fds(control, [request], fds, socket.MSG_DONTWAIT)


class FileSender:
    """The sendfile process (sendfile_worker.py) and the server's side of its socket.

    Requests go from the loop; a thread of this process reads the answers
    and wakes the task that waits for each (one wake-up per turn).  A
    process that died (killed, out of memory) fails the turns it had and is
    replaced at the next one.
    """

    def __init__(self, threads: int) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self._threads = threads
        self._ids = itertools.count(1)
        self._waiting: dict[int, trio.lowlevel.Task] = {}  # touched on the loop thread only
        self._closing = False
        # Started at the first body sent, not with the server: most servers (and every test server
        # that streams nothing) never send one, and a process each cost their start and stop.
        self._process: subprocess.Popen[bytes] | None = None
        self._dead = False
        # Where this user may not run the interpreter (a path it cannot search, a frozen build),
        # connections are not offered the extension and the route reads its file itself.
        self.usable = os.access(sys.executable, os.X_OK) and os.access(WORKER, os.R_OK)

    def _start_first(self) -> None:
        try:
            self._start()
        except OSError as exc:
            self.usable = False  # later connections get bodies read by the route
            log.error("the sendfile process could not be started (%s); file bodies are read instead", exc)
            raise

    def _start(self) -> None:
        self._control, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with child:
            argv = [sys.executable, "-I", str(WORKER), str(child.fileno()), str(SEND_NICENESS), str(self._threads)]
            try:
                self._process = subprocess.Popen(argv, pass_fds=[child.fileno()], stdin=subprocess.DEVNULL)
            except OSError:
                self._control.close()
                raise
        self._dead = False
        self._replies = _start_thread(lambda: self._read_replies(self._control), "edge-sendfile-replies")

    @property
    def pid(self) -> int | None:
        """The process's, once the first body started it."""
        return self._process.pid if self._process is not None else None

    async def send(self, out_fd: int, in_fd: int, offset: int, count: int) -> int:
        """One turn: the bytes sent, 0 at the end of the file, -1 when the socket stayed full.

        A checkpoint.  Raises what the send raised (OSError: the peer is
        gone), or OSError when the process is stopping or died during the
        turn.  Cancelled, the turn is abandoned (its answer is dropped; the
        caller cuts the socket).
        """
        await trio.lowlevel.checkpoint_if_cancelled()
        if self._closing:
            raise OSError("the sendfile process is stopping")
        if self._process is None:
            self._start_first()
        elif self._dead:
            self._replace()
        ident = next(self._ids)
        request = REQUEST.pack(ident, offset, count, THREAD_WAIT_SECONDS, THREAD_TURN_SECONDS)
        replaced = False
        while True:
            try:
                hand_over(self._control, request, [out_fd, in_fd])
                break
            except BlockingIOError:
                await trio.lowlevel.wait_writable(self._control)
            except ConnectionError:  # the process died before its answers' thread told the loop
                if replaced:
                    raise
                self._replace()
                replaced = True
        self._waiting[ident] = trio.lowlevel.current_task()

        def abort(_raise_cancel: Any) -> trio.lowlevel.Abort:
            self._waiting.pop(ident, None)
            return trio.lowlevel.Abort.SUCCEEDED

        moved, error = await trio.lowlevel.wait_task_rescheduled(abort)
        if error:
            raise OSError(error, os.strerror(error))
        return int(moved)

    def _replace(self) -> None:
        """A new process for one that died: the turns it had fail (their bodies are cut short)."""
        assert self._process is not None, "a process is replaced only once it was started"
        self._fail_waiting()
        self._process.poll()  # reaped
        self._control.close()  # its answers' thread ends, if it has not yet
        self._start()
        log.warning("the sendfile process was started again")

    def _fail_waiting(self) -> None:
        failed = OSError("the sendfile process has ended")
        for task in self._waiting.values():
            trio.lowlevel.reschedule(task, outcome.Error(failed))
        self._waiting.clear()

    def _read_replies(self, control: socket.socket) -> None:
        """On a thread: each answer wakes its task on the loop; at the process's end, all."""
        while True:
            try:
                data = control.recv(REPLY.size)
            except OSError:
                data = b""
            if len(data) != REPLY.size:
                break
            try:
                self._token.run_sync_soon(self._answer, *REPLY.unpack(data))
            except trio.RunFinishedError:
                return
        with contextlib.suppress(trio.RunFinishedError):
            self._token.run_sync_soon(self._ended, control)

    def _answer(self, ident: int, moved: int, error: int) -> None:
        task = self._waiting.pop(ident, None)
        if task is not None:
            trio.lowlevel.reschedule(task, outcome.Value((moved, error)))

    def _ended(self, control: socket.socket) -> None:
        """On the loop: the process behind ``control`` ended; the turns it had fail (their bodies
        are cut short)."""
        if control is not self._control or self._dead:
            return  # one replaced already
        if not self._closing and self._process is not None:
            log.error("the sendfile process ended (exit status %s)", self._process.poll())
            self._dead = True
        self._fail_waiting()

    async def aclose(self, timeout: float | None = None) -> bool:
        """Stop the process: True when it ended within ``timeout`` seconds (else it is killed:
        a thread of it held by a hung mount never holds shutdown).  Idempotent."""
        self._closing = True
        if self._process is None:
            return True  # never started: no body was sent
        with contextlib.suppress(OSError):
            self._control.shutdown(socket.SHUT_RDWR)  # it reads the end; the answers' thread too
        try:
            await trio.to_thread.run_sync(self._process.wait, timeout)
            ended = True
        except subprocess.TimeoutExpired:
            self._process.kill()
            await trio.to_thread.run_sync(self._process.wait)
            ended = False
        await trio.to_thread.run_sync(self._replies.join)
        self._control.close()
        return ended


def _start_thread(target: Callable[[], None], name: str) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread
