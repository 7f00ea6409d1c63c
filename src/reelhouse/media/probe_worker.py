"""A probe worker process: reads media info with libavformat for the server.

The server (``actors.scan.probe_pool``) starts a few of these and keeps
them; a malformed file that crashes a C library then takes down one
worker, not the server. Started as ``python -c`` :data:`WORKER_ENTRY`, a
worker imports only this package's ``media`` modules and ``av``.

Protocol, on the worker's stdin and stdout: each message is one frame, a
length-prefixed pickle (:func:`encode_frame`, :class:`FrameDecoder`). The
worker first sends ``("ready", versions)``; then for each request (a list
of paths) it answers every path in order, one frame each:
``("ok", ProbeResult)`` or ``("failed", (ProbeFailure value, message))``.
End of input ends the worker. A worker whose parent dies (the server was
killed) exits within a second, even while a read hangs.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import threading
import time
from typing import Any, BinaryIO

WORKER_ENTRY = "from reelhouse.media.probe_worker import main; main()"
PARENT_CHECK_SECONDS = 1.0
_HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 64 * 1024 * 1024


def encode_frame(message: object) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


class FrameDecoder:
    """Frames out of a byte stream read in chunks of any size."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk

    def next_frame(self) -> Any | None:
        """The next complete message, or None until more bytes come.

        Raises ValueError on a frame no worker would send.
        """
        if len(self._buffer) < _HEADER.size:
            return None
        (size,) = _HEADER.unpack_from(self._buffer)
        if size > MAX_FRAME_BYTES:
            raise ValueError(f"a frame of {size} bytes")
        end = _HEADER.size + size
        if len(self._buffer) < end:
            return None
        body = bytes(self._buffer[_HEADER.size : end])
        del self._buffer[:end]
        return pickle.loads(body)


def answer(path: str) -> tuple[str, Any]:
    """One path's answer frame body (never raises for a bad file)."""
    from .probe import ProbeError, ProbeFailure
    from .probe_av import read_media_info

    try:
        return ("ok", read_media_info(path))
    except ProbeError as exc:
        return ("failed", (exc.failure.value, exc.message))
    except Exception as exc:  # a bug or an odd file: that file's failure, not the worker's
        return ("failed", (ProbeFailure.UNKNOWN.value, f"{type(exc).__name__}: {exc}"[:500]))


def main() -> None:
    """Worker process: answer requests until the parent closes our stdin."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides when we stop
    _exit_with_parent(os.getppid())
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not corrupt a frame
    from .probe_av import library_versions, quiet_logging

    quiet_logging()
    _send(answers, ("ready", library_versions()))
    requests = sys.stdin.buffer
    while (paths := _read_request(requests)) is not None:
        for path in paths:
            _send(answers, answer(path))


def _read_request(stream: BinaryIO) -> list[str] | None:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    body = stream.read(_HEADER.unpack(header)[0])
    paths = pickle.loads(body)
    return [str(p) for p in paths]


def _send(stream: BinaryIO, message: object) -> None:
    stream.write(encode_frame(message))
    stream.flush()


def _exit_with_parent(parent: int) -> None:
    """Exit when reparented: the server is gone, whatever this worker is doing.

    A hung read (a dead network mount, a FIFO) never sees the end of its
    input, so a thread watches; libavformat reads without holding the GIL.
    """

    def watch() -> None:
        while True:
            time.sleep(PARENT_CHECK_SECONDS)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
