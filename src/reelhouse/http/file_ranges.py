"""A byte range of a file in a library, read on the file threads and streamed as a response body.

:class:`FileRange` opens the file confined to its library (a symbolic link
swapped after the scan is not followed out), checks it still has the size
the response's headers were computed from, optionally names its content
type from its first bytes, and reads the range a chunk at a time.
:func:`file_chunks` is the response body: the first chunk, then the rest
from the file threads, each read bounded by
:data:`~reelhouse.http.image_sources.SOURCE_TIMEOUT_SECONDS` (a hung mount
cuts the response short instead of holding it).
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import BinaryIO, Protocol

import trio

from reelhouse.errors import Unavailable
from reelhouse.media.containment import Confinement
from reelhouse.media.local_images import SNIFF_BYTES
from reelhouse.storage.confined_files import open_confined
from reelhouse.thread_pool import ThreadPool

from .image_sources import SOURCE_TIMEOUT_SECONDS, SourceChanged, source_file_call

log = logging.getLogger(__name__)

READ_CHUNK_BYTES = 256 * 1024


class RangeSource(Protocol):
    """The file a range is read from, as it was found on disk."""

    @property
    def path(self) -> Path: ...

    @property
    def within(self) -> Confinement: ...

    @property
    def size(self) -> int: ...


class FileRange:
    """``length`` bytes of a file from ``start``, read a chunk at a time.

    Its methods block: they run on the file threads, one at a time.  The
    file is closed as soon as the range is read or the file turns out
    shorter, else by :meth:`close`.  A small file is opened, sniffed, read
    and closed in one call of :meth:`open`: one hop to a thread.
    ``sniff`` names the content type from the file's first bytes (raising
    what the caller answers when they are not what it serves); without it
    the content type is the caller's and :meth:`open` answers None for it.
    """

    def __init__(
        self, source: RangeSource, start: int, length: int, *, sniff: Callable[[bytes], str] | None = None
    ) -> None:
        self.path = source.path
        self._within = source.within
        self._expected_size = source.size
        self._start = start
        self._remaining = length
        self._sniff = sniff
        self._file: BinaryIO | None = None

    @property
    def is_open(self) -> bool:
        return self._file is not None

    def open(self, *, with_body: bool = True) -> tuple[str | None, bytes]:
        """The file's content type (from its first bytes) and the first chunk of the range.

        Without the body (a HEAD request) the file is closed once sniffed.
        Raises SourceChanged when the file is not of the expected size (the
        range and Content-Length were computed from it), OutsideRoots when
        it resolves outside its library, and what ``sniff`` raises.
        """
        self._file = os.fdopen(open_confined(self.path, self._within), "rb")
        try:
            if os.fstat(self._file.fileno()).st_size != self._expected_size:
                raise SourceChanged()
            content_type = self._sniff(self._file.read(SNIFF_BYTES)) if self._sniff is not None else None
            if not with_body:
                self.close()
                return content_type, b""
            self._file.seek(self._start)
            return content_type, self.read()
        except BaseException:
            self.close()
            raise

    def read(self) -> bytes:
        """The next chunk; b"" once the range is read."""
        if self._file is None:
            return b""
        chunk = self._file.read(min(READ_CHUNK_BYTES, self._remaining))
        self._remaining -= len(chunk)
        if not chunk or self._remaining <= 0:
            self.close()  # read, or the file shrank meanwhile: the response ends short
        return chunk

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


async def file_chunks(reader: FileRange, first: bytes, files: ThreadPool[None]) -> AsyncIterator[bytes]:
    """``first``, then the rest of the range from the file threads.

    Iterated after the handler returned (outside the app context), so it is
    given the threads.  The file is closed however the iteration ends, except
    while a read is abandoned (timed out, or the client left): that read
    still holds the file, which closes when the read returns and drops it.
    """
    reading = False
    try:
        chunk = first
        while chunk:
            yield chunk
            if not reader.is_open:
                return  # the whole range was read
            reading = True
            chunk = await source_file_call(files, reader.read)
            reading = False
    except Unavailable:
        log.warning("a read of %s took over %.0f s (a hung mount?): response cut short", reader.path, SOURCE_TIMEOUT_SECONDS)
        raise
    finally:
        if reader.is_open and not reading:
            with trio.CancelScope(shield=True):
                await files.call(reader.close)
