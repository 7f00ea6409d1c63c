"""The edge's sendfile process: sends spans of files to sockets, both handed over by the server.

Run by :class:`~reelhouse.http.edge.file_send.FileSender` as ``python -I
sendfile_worker.py FD NICENESS THREADS`` (the standard library only: it
starts in a few milliseconds and imports nothing of the server).  On the
``SOCK_SEQPACKET`` socket ``FD`` each request is one message, ``REQUEST``
(id, offset, count, wait, turn) with the client's socket and the file as
``SCM_RIGHTS`` descriptors (the very open files the server has: the file
is the one ``open_confined`` opened).  One of ``THREADS`` threads sends,
closes both descriptors and answers ``REPLY`` (id, bytes sent or -1 for a
full socket, errno).  At end of file on ``FD`` (the server closed it, or
died) the process exits; a thread held by a hung mount is left to the
exit.

Why a process of its own: each ``sendfile`` return takes the GIL back,
and on the server's threads (thousands a second under eight streams)
that made the event loop wait for the GIL a quarter of its time (``perf
trace``: the loop thread's futex waits went from 37 ms a second idle to
140-420 ms a second) and stretched every request behind it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import socket
import struct
import sys
import threading
import time

REQUEST = struct.Struct("=QQQdd")
"""id, offset, count, seconds to wait for room in a full socket, seconds of one turn."""
REPLY = struct.Struct("=Qqi")
"""id, bytes sent (0 at the end of the file, -1 when the socket stayed full), errno (0: none)."""
Job = tuple[tuple[int, int, int, float, float], list[int]]


def main(argv: list[str]) -> None:
    control = socket.socket(fileno=int(argv[1]))
    jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
    for _ in range(int(argv[3])):
        threading.Thread(target=_work, args=(jobs, control, int(argv[2])), daemon=True).start()
    while True:
        try:
            data, fds, _flags, _address = socket.recv_fds(control, REQUEST.size, 2)
        except OSError:
            return
        if not data:
            return  # the server closed its end (or died)
        if len(data) != REQUEST.size or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            continue  # never sent by the server; its deadline answers for it
        jobs.put((REQUEST.unpack(data), fds))


def _work(jobs: queue.SimpleQueue[Job], control: socket.socket, niceness: int) -> None:
    # Linux sets the nice value per thread: the kernel's copying, most of a stream's CPU, takes
    # what the server's event loop leaves.
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
    while True:
        (ident, offset, count, wait, turn), (out_fd, in_fd) = jobs.get()
        try:
            moved, error = send_while_taken(out_fd, in_fd, offset, count, wait, turn), 0
        except OSError as exc:
            moved, error = -1, exc.errno or 5  # EIO when the error has no number
        finally:
            os.close(out_fd)
            os.close(in_fd)
        try:
            control.send(REPLY.pack(ident, moved, error))
        except OSError:
            return  # the server is gone


def send_while_taken(out_fd: int, in_fd: int, offset: int, count: int, wait: float, turn: float) -> int:
    """Sendfile until ``count`` bytes are sent, the file ends, or the socket stays full ``wait``
    seconds (or this call has run ``turn`` seconds).

    The bytes sent; 0 at the end of the file; -1 when none could be (the
    socket's buffer is full: the server's loop waits for room).  Waiting
    here a moment for a client that is reading saves a round trip to the
    server: a loopback client drains the socket in pieces.
    """
    sent, turn_ends = 0, time.monotonic() + turn
    room = select.poll()
    room.register(out_fd, select.POLLOUT)
    while sent < count:
        try:
            moved = os.sendfile(out_fd, in_fd, offset + sent, count - sent)
        except BlockingIOError:
            moved = -1
        if moved == 0:
            break  # the end of the file
        if moved > 0:
            sent += moved
            continue
        if time.monotonic() >= turn_ends or not room.poll(wait * 1000):
            return sent or -1
    return sent


if __name__ == "__main__":
    main(sys.argv)
