"""A probe worker process: reads media info with libavformat for the server.

The server (``actors.scan.probe_pool``) starts a few of these and keeps
them; a malformed file that crashes a C library then takes down one
worker, not the server. Started as ``python -c`` :data:`WORKER_ENTRY`, a
worker imports only this package's ``media`` modules and ``av``.

Protocol, on the worker's stdin and stdout, one length-prefixed frame per
message. Requests (server to worker) are pickled lists of paths; answers
are JSON (:func:`encode_answer`), never pickles: a worker that a file
subverted must not be able to run code in the server, so the server reads
answers as data and checks every field (:func:`decode_answer`). The worker
first answers ``["ready", versions]``; then for each request it answers
every path in order, ``["ok", result]`` or ``["failed", failure, message]``.
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
from collections.abc import Sequence
from typing import Any, BinaryIO

import orjson

from .probe import DynamicRange, MediaStreamInfo, ProbeError, ProbeFailure, ProbeResult, StreamType

WORKER_ENTRY = "from reelhouse.media.probe_worker import main; main()"
PARENT_CHECK_SECONDS = 1.0
_HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 16 * 1024 * 1024
MAX_MESSAGE_CHARS = 500
MAX_VERSIONS, MAX_VERSION_CHARS = 16, 64  # a ready answer's library versions


def frame(body: bytes) -> bytes:
    return _HEADER.pack(len(body)) + body


def encode_request(paths: Sequence[str]) -> bytes:
    return frame(pickle.dumps(list(paths), protocol=pickle.HIGHEST_PROTOCOL))


class FrameDecoder:
    """Frame bodies out of a byte stream read in chunks of any size."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes | bytearray) -> None:
        self._buffer += chunk

    def next_body(self) -> bytes | None:
        """The next complete frame's body, or None until more bytes come.

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
        return body


# -- answers ----------------------------------------------------------------------

_STREAM_FIELDS = MediaStreamInfo.__slots__  # the wire order of a stream's fields


def encode_answer(answer: tuple[str, Any]) -> bytes:
    """A ready, ok or failed answer as a JSON frame (an odd value fails that file)."""
    kind, value = answer
    if kind == "ok":
        result: ProbeResult = value
        streams = [[_plain(getattr(s, f)) for f in _STREAM_FIELDS] for s in result.streams]
        fields = [result.container, result.format_name, result.size, result.bitrate, result.runtime_ticks, streams]
        body = ["ok", fields]
    elif kind == "failed":
        body = ["failed", value[0], value[1][:MAX_MESSAGE_CHARS]]
    else:
        body = [kind, value]
    try:
        return frame(orjson.dumps(body))
    except (TypeError, orjson.JSONEncodeError) as exc:  # e.g. text that is not UTF-8
        return frame(orjson.dumps(["failed", ProbeFailure.UNKNOWN.value, f"unencodable media info: {exc}"]))


def decode_answer(body: bytes) -> tuple[str, Any]:
    """``("ready", versions)``, ``("ok", ProbeResult)`` or ``("failed", (ProbeFailure, message))``.

    Raises ValueError for anything else: the server then treats the
    worker as broken.
    """
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise ValueError("an answer that is not JSON") from exc
    match message:
        case ["ready", dict(versions)] if len(versions) <= MAX_VERSIONS:
            return "ready", {str(k)[:MAX_VERSION_CHARS]: str(v)[:MAX_VERSION_CHARS] for k, v in versions.items()}
        case ["ok", [str(container), str(format_name), size, bitrate, runtime, list(streams)]]:
            size, bitrate, runtime = (_optional(int, n) for n in (size, bitrate, runtime))
            return "ok", ProbeResult(container, format_name, size, bitrate, runtime, tuple(_stream(s) for s in streams))
        case ["failed", str(failure), str(text)] if failure in ProbeFailure._value2member_map_:
            return "failed", (ProbeFailure(failure), text[:MAX_MESSAGE_CHARS])
    raise ValueError("an answer the server does not understand")


assert _STREAM_FIELDS == (
    "index", "type", "codec", "bitrate", "channels", "channel_layout", "sample_rate", "width", "height",
    "language", "title", "is_default", "is_forced", "is_hearing_impaired", "resolution_name",
    "color_transfer", "dynamic_range",
), "the stream wire format follows MediaStreamInfo's fields"  # fmt: skip


def _stream(values: Any) -> MediaStreamInfo:
    if not isinstance(values, list) or len(values) != len(_STREAM_FIELDS):
        raise ValueError("a stream the server does not understand")
    (index, kind, codec, bitrate, channels, layout, sample_rate, width, height,
     language, title, is_default, is_forced, hearing_impaired, tier, transfer, dynamic) = values  # fmt: skip
    return MediaStreamInfo(
        _strict(int, index), StreamType(kind), _strict(str, codec), _optional(int, bitrate),
        _optional(int, channels), _optional(str, layout), _optional(int, sample_rate), _optional(int, width),
        _optional(int, height), _optional(str, language), _optional(str, title), _strict(bool, is_default),
        _strict(bool, is_forced), _strict(bool, hearing_impaired), _optional(str, tier), _optional(str, transfer),
        None if dynamic is None else DynamicRange(dynamic),
    )  # fmt: skip


def _strict(kind: type, value: Any) -> Any:
    # bool is an int in Python, never in an answer
    if type(value) is not kind:
        raise ValueError(f"{value!r} is not a {kind.__name__}")
    return value


def _optional(kind: type, value: Any) -> Any:
    return None if value is None else _strict(kind, value)


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, (StreamType, DynamicRange)) else value


def answer(path: str) -> tuple[str, Any]:
    """One path's answer (never raises for a bad file)."""
    from .probe_av import read_media_info

    try:
        return ("ok", read_media_info(path))
    except ProbeError as exc:
        return ("failed", (exc.failure.value, exc.message))
    except Exception as exc:  # a bug or an odd file: that file's failure, not the worker's
        return ("failed", (ProbeFailure.UNKNOWN.value, f"{type(exc).__name__}: {exc}"))


def main() -> None:
    """Worker process: answer requests until the parent closes our stdin."""
    # The server decides when we stop (and kills us): a Ctrl-C or a SIGTERM
    # sent to the whole process group must not fail the file being probed
    # before the server has stopped its scans.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
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


def _send(stream: BinaryIO, message: tuple[str, Any]) -> None:
    stream.write(encode_answer(message))
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
