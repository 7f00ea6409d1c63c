"""A byte range of a library file as a response body: confined, chunked, read on file threads.

Shared by the image route (a stored image as it is) and the stream route
(a video's file).  The route finds the file and its size
(:func:`stat_confined`), decides the answer with
:mod:`reelhouse.http.conditional` (:func:`short_answer` for 304, 412 and
416), then opens a :class:`FileRange` and serves :func:`file_chunks`.

Every file call runs on a :class:`~reelhouse.loop.thread_pool.ThreadPool`
within a deadline (:func:`file_call`): a file on a network mount that
stopped answering costs the request a 503 before the body started, or a
body cut short after (the abandoned read keeps its thread until the mount
answers; the pool's size bounds how many can be held so).  At most one
chunk (:data:`READ_CHUNK_BYTES` unless the route asks for another size) is
in memory per response.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from stat import S_ISREG
from typing import Any, BinaryIO, TypeVar

import trio
from quart import Response

from reelhouse.errors import Unavailable
from reelhouse.loop.thread_pool import ThreadPool
from reelhouse.media.containment import Confinement
from reelhouse.storage.confined_files import OutsideRoots, confinement_for, open_confined

from .conditional import NOT_MODIFIED, PRECONDITION_FAILED, RANGE_NOT_SATISFIABLE, Decision
from .errors import error_response
from .zero_copy import FileSlice

log = logging.getLogger(__name__)
T = TypeVar("T")

READ_CHUNK_BYTES = 256 * 1024
RETRY_AFTER_SECONDS = 5


class SourceChanged(Unavailable):
    """The file is not the size it was found with: changed on disk since it was looked at."""

    def __init__(self) -> None:
        super().__init__(
            "The file changed while it was being read.", params={"retryAfterSeconds": RETRY_AFTER_SECONDS}
        )


async def file_call(files: ThreadPool[None], timeout: float, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the file threads within ``timeout`` seconds.

    Past the deadline the call is abandoned (its thread stays blocked until
    the mount answers) and Unavailable is raised, so the request ends
    instead of waiting.
    """
    try:
        with trio.fail_after(timeout):
            return await files.call(fn, *args, abandon_on_cancel=True)
    except trio.TooSlowError:
        raise Unavailable(
            "The file did not answer in time.", params={"retryAfterSeconds": RETRY_AFTER_SECONDS}
        ) from None


def stat_confined(path: Path, roots: tuple[str, ...], data_dir: Path | None) -> tuple[int, float, Confinement]:
    """Size and mtime of the file ``path`` resolves to, and its library's confinement (blocking).

    Raises OutsideRoots when it resolves outside, FileNotFoundError when it
    is gone or not a regular file.  The reader checks the opened file again.
    """
    within = confinement_for(roots, data_dir)
    return (*stat_within(path, within), within)


def stat_within(path: Path, within: Confinement) -> tuple[int, float]:
    """Size and mtime of the regular file ``path`` resolves to, when ``within`` allows it (blocking)."""
    real = os.path.realpath(path)
    if not within.allows(real):
        raise OutsideRoots()
    stat = os.stat(real)
    if not S_ISREG(stat.st_mode):
        raise FileNotFoundError(str(path))
    return stat.st_size, stat.st_mtime


def short_answer(decision: Decision, headers: dict[str, str]) -> Response | None:
    """The answer without a body (304) or with the error body (412, 416); None for 200/206."""
    if decision.status == NOT_MODIFIED:
        return Response(b"", status=NOT_MODIFIED, headers=headers)
    if decision.status == PRECONDITION_FAILED:
        return error_response(412, "bad_request", "A precondition of the request failed.", headers=headers)
    if decision.status == RANGE_NOT_SATISFIABLE:
        assert decision.content_range is not None
        answer_headers = {**headers, "Content-Range": decision.content_range}
        return error_response(416, "bad_request", "The range cannot be satisfied.", headers=answer_headers)
    return None


class FileRange:
    """``length`` bytes of a file from ``start``, read a chunk at a time.

    Its methods block: they run on the file threads, one at a time.  The
    file is closed as soon as the range is read or the file turns out
    shorter, else by :meth:`close`, or by :meth:`close_after_read` (any
    thread) for a read that was abandoned: the read closes the file when it
    returns, so no descriptor waits for a garbage collection.  Chunks are ``chunk_bytes`` long
    (default :data:`READ_CHUNK_BYTES`).  :meth:`open` opens, inspects and reads
    the first chunk in one call: one hop to a thread.
    """

    def __init__(
        self, path: Path, within: Confinement, expected_size: int, start: int, length: int, chunk_bytes: int = 0
    ) -> None:
        self.path = path
        self._chunk_bytes = chunk_bytes or READ_CHUNK_BYTES
        self._within = within
        self._expected_size = expected_size
        self._start = start
        self._remaining = length
        self._file: BinaryIO | None = None
        # Guards _reading and _close_after_read (never held during a read):
        # an abandoned read and the Trio thread agree on who closes the file.
        self._state = threading.Lock()
        self._reading = False
        self._close_after_read = False

    @property
    def is_open(self) -> bool:
        return self._file is not None

    @property
    def start(self) -> int:
        return self._start

    @property
    def length(self) -> int:
        """Bytes of the range not read yet (all of them when the body is sent from the file)."""
        return self._remaining

    def fileno(self) -> int:
        """The descriptor :func:`open_confined` gave (the one a zero-copy body is sent from)."""
        if self._file is None:
            raise ValueError("the file is closed")
        return self._file.fileno()

    def open(
        self, inspect: Callable[[BinaryIO], T], *, with_body: bool = True, read_first: bool = True
    ) -> tuple[T, bytes]:
        """What ``inspect`` tells of the file's head, and the first chunk of the range.

        Without the body (a HEAD request) the file is closed once inspected;
        with ``read_first=False`` (a body sent from the file) it stays open
        and unread, and the chunk is b"".
        Raises SourceChanged when the file is not of the expected size (the
        range and Content-Length were computed from it), OutsideRoots when
        it resolves outside its library, and what ``inspect`` raises.
        """
        self._file = os.fdopen(open_confined(self.path, self._within), "rb")
        try:
            if os.fstat(self._file.fileno()).st_size != self._expected_size:
                raise SourceChanged()
            seen = inspect(self._file)
            if not with_body:
                self.close()
                return seen, b""
            if not read_first:
                return seen, b""
            self._file.seek(self._start)
            return seen, self.read()
        except BaseException:
            self.close()
            raise

    def read(self) -> bytes:
        """The next chunk; b"" once the range is read or the reader was given up."""
        with self._state:
            if self._file is None or self._close_after_read:
                self._close_locked()
                return b""
            file, self._reading = self._file, True
        try:
            chunk = file.read(min(self._chunk_bytes, self._remaining))
        finally:
            with self._state:
                self._reading = False
                given_up = self._close_after_read
        self._remaining -= len(chunk)
        if given_up or not chunk or self._remaining <= 0:
            self.close()  # read, given up, or the file shrank meanwhile: the response ends short
            return b"" if given_up else chunk
        return chunk

    def close_after_read(self) -> None:
        """Give the reader up from any thread: closes the file now unless a
        read holds it, in which case that read closes it as it returns."""
        with self._state:
            self._close_after_read = True
            if not self._reading:
                self._close_locked()

    def close(self) -> None:
        with self._state:
            self._close_locked()

    def _close_locked(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


async def file_chunks(
    reader: FileRange,
    first: bytes,
    files: ThreadPool[None],
    timeout: float,
    on_sent: Callable[[int], None] | None = None,
    on_end: Callable[[], None] | None = None,
) -> AsyncIterator[bytes]:
    """``first``, then the rest of the range from the file threads, each read within ``timeout``.

    Iterated after the handler returned (outside the app context), so it is
    given the threads.  ``on_sent(n)`` is called once each chunk was taken
    by the server, ``on_end()`` once it ends, however.  The file is closed however the iteration ends; when
    a read was abandoned (timed out, or the client left mid-read) that read
    still holds it and closes it as it returns (:meth:`FileRange.close_after_read`).
    A read past ``timeout`` ends the iteration with Unavailable: the
    server cuts the response short (fewer bytes than Content-Length).
    """
    reading = False
    try:
        chunk = first
        while chunk:
            yield chunk
            if on_sent is not None:
                on_sent(len(chunk))
            if not reader.is_open:
                return  # the whole range was read
            reading = True
            chunk = await file_call(files, timeout, reader.read)
            reading = False
    except Unavailable:
        log.warning("a read of %s took over %.0f s (a hung mount?): response cut short", reader.path, timeout)
        raise
    finally:
        if on_end is not None:
            on_end()
        if reading:
            reader.close_after_read()  # never waits: the abandoned read closes the file
        elif reader.is_open:
            with trio.CancelScope(shield=True):
                await files.call(reader.close)


async def file_slices(
    reader: FileRange,
    files: ThreadPool[None],
    slice_bytes: int,
    read_seconds: float,
    on_sent: Callable[[int], None] | None = None,
    on_end: Callable[[], None] | None = None,
) -> AsyncIterator[FileSlice]:
    """The opened range as :class:`~reelhouse.http.zero_copy.FileSlice` items the server sends
    from the file (``reader.open(..., read_first=False)``), ``slice_bytes`` each.

    ``on_sent(n)`` is called by the server as the kernel takes each ``n``
    bytes (:data:`~reelhouse.http.edge.file_send.ON_SENT_KEY`), so a large
    slice counts its bytes as they go; ``on_end()`` once the body ends,
    however; the file is then closed on the file threads.  The server sends
    from duplicates of the descriptor, so closing never waits on a send
    (not even one a hung mount holds).
    """
    offset, end = reader.start, reader.start + reader.length
    try:
        while offset < end:
            count = min(slice_bytes, end - offset)
            yield FileSlice(reader, offset, count, read_seconds, on_sent)
            offset += count
    finally:
        if on_end is not None:
            on_end()
        with trio.CancelScope(shield=True):
            await files.call(reader.close)
