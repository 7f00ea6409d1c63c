"""The stored file behind an image request, found in the catalogue and on disk, remembered briefly.

Finding it costs two hand-overs to threads: the ``images`` row, then a
stat of the file (its size and modification time make the ``ETag``,
``Last-Modified`` and ranges).  A source found is remembered by item, kind
and index while both hold:

- the store's :attr:`~reelhouse.storage.Store.generation` has not moved
  since it was read: a scan or refresh that changes an item's images ends a
  write of this server, so the next request reads the catalogue again;
- it was looked at on disk less than :data:`RECHECK_SECONDS` ago: a file
  replaced or deleted behind the catalogue's back shows (new
  ``Last-Modified``, or 404) within that.  Past it one request stats the
  file again while the others are still answered from memory: a hand-over
  to a thread costs the server far more throughput than its CPU time, so
  a popular image must not send every request to one.

Containment (:mod:`reelhouse.media.containment`): the file must resolve
inside a root of its item's library (and outside the fenced directories)
when it is looked at, else it is not found; :class:`SourceImage` carries
that confinement, and the reader checks the opened file again
(:func:`reelhouse.storage.confined_files.open_confined`), so a symbolic
link swapped after the scan or after this lookup is never followed out.

What is not found is not remembered.  At most :data:`MAX_SOURCES` are kept,
the oldest going first.  Stats run on the image file threads within
:data:`SOURCE_TIMEOUT_SECONDS` (a stored image may sit on a network mount
that hangs); past it the request gets 503 with ``Retry-After``.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from stat import S_ISREG
from typing import Any, TypeVar

import trio

from reelhouse.errors import NotFound, Unavailable
from reelhouse.media.containment import Confinement
from reelhouse.media.file_names import to_fs
from reelhouse.storage import Store
from reelhouse.storage.confined_files import OutsideRoots, confinement_for
from reelhouse.thread_pool import ThreadPool

from .conditional import http_date

T = TypeVar("T")
_Wanted = tuple[str, str, int]  # item id, kind, index

RECHECK_SECONDS = 10.0
MAX_SOURCES = 10_000
SOURCE_TIMEOUT_SECONDS = 10.0
"""One stat or read of a stored image (a hung network mount); beyond it the
request gets 503, or a body already under way is cut short."""
RETRY_AFTER_SECONDS = 5


@dataclass(frozen=True, slots=True)
class SourceImage:
    """The stored image a request resolved to, as found on disk."""

    path: Path
    tag: str
    size: int
    modified: datetime
    last_modified: str  # modified as an HTTP date, made once
    roots: tuple[str, ...]  # of the item's library, as stored
    within: Confinement  # where the file may resolve: checked again when it is opened


class SourceChanged(Unavailable):
    """The file is not the size remembered: changed on disk since it was looked at."""

    def __init__(self) -> None:
        super().__init__(
            "The image file changed while it was being read.", params={"retryAfterSeconds": RETRY_AFTER_SECONDS}
        )


@dataclass(frozen=True, slots=True)
class _Found:
    source: SourceImage
    generation: int
    found_at: float


class ImageSources:
    """:meth:`find` with a short memory (see the module doc).  Used from the Trio thread only."""

    def __init__(
        self,
        store: Store,
        files: ThreadPool[None],
        *,
        data_dir: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._files = files
        self._data_dir = data_dir
        self._clock = clock
        self._found: OrderedDict[_Wanted, _Found] = OrderedDict()
        self._rechecking: set[_Wanted] = set()

    async def find(self, item_id: str, kind: str, index: int) -> SourceImage:
        """The item's image of that kind and index.

        Raises NotFound (unknown item, no such image, file gone from disk),
        Unavailable (the file did not answer in time) or StoreError.
        """
        wanted = (item_id, kind, index)
        generation = self._store.generation
        known = self._found.get(wanted)
        if known is None or known.generation != generation:
            return await self._find_anew(wanted, generation)
        if self._clock() - known.found_at < RECHECK_SECONDS or wanted in self._rechecking:
            return known.source
        return await self._recheck(wanted, known)

    def forget(self, item_id: str, kind: str, index: int) -> None:
        """Drop what is remembered of that image (its file turned out changed)."""
        self._found.pop((item_id, kind, index), None)

    async def _find_anew(self, wanted: _Wanted, generation: int) -> SourceImage:
        self._found.pop(wanted, None)
        found_at = self._clock()
        item_id, kind, index = wanted
        rows = await self._store.fetch_all(_IMAGE_AND_ROOTS, (item_id, kind, index))
        if not rows:
            if await self._store.fetch_one("SELECT 1 FROM items WHERE id = ?", (item_id,)) is None:
                raise NotFound("No such item.")
            raise NotFound(f"The item has no {kind} image at index {index}.")
        roots = tuple(row["root"] for row in rows if row["root"] is not None)
        source = await self._on_disk(Path(to_fs(rows[0]["path"])), rows[0]["tag"], roots)  # stored as path text
        self._remember(wanted, source, generation, found_at)
        return source

    async def _recheck(self, wanted: _Wanted, known: _Found) -> SourceImage:
        """The remembered file looked at again; meanwhile others are answered as before."""
        self._rechecking.add(wanted)
        try:
            found_at = self._clock()
            try:
                source = await self._on_disk(known.source.path, known.source.tag, known.source.roots)
            except NotFound:
                self._found.pop(wanted, None)
                raise
            self._remember(wanted, source, known.generation, found_at)
            return source
        finally:
            self._rechecking.discard(wanted)

    async def _on_disk(self, path: Path, tag: str, roots: tuple[str, ...]) -> SourceImage:
        try:
            size, mtime, within = await source_file_call(self._files, _stat, path, roots, self._data_dir)
        except (FileNotFoundError, NotADirectoryError):
            raise NotFound("The image file is missing from disk.") from None
        except OutsideRoots:
            raise NotFound("The image file is not inside the library's folders.") from None
        modified = datetime.fromtimestamp(mtime, UTC)
        return SourceImage(path, tag, size, modified, http_date(modified), roots, within)

    def _remember(self, wanted: _Wanted, source: SourceImage, generation: int, found_at: float) -> None:
        """Keep ``source`` unless a write ended since ``generation`` was read."""
        if self._store.generation != generation:
            return
        self._found[wanted] = _Found(source, generation, found_at)
        self._found.move_to_end(wanted)
        if len(self._found) > MAX_SOURCES:
            self._found.popitem(last=False)


_IMAGE_AND_ROOTS = (
    "SELECT im.path, im.tag, lp.path AS root FROM images im"
    " JOIN items it ON it.id = im.item_id"
    " LEFT JOIN library_paths lp ON lp.library_id = it.library_id"
    " WHERE im.item_id = ? AND im.kind = ? AND im.idx = ?"
)


def _stat(path: Path, roots: tuple[str, ...], data_dir: Path | None) -> tuple[int, float, Confinement]:
    """Size and mtime of the file ``path`` resolves to, and its library's confinement.

    Raises OutsideRoots when it resolves outside, FileNotFoundError when it
    is gone or not a regular file.
    """
    within = confinement_for(roots, data_dir)
    real = os.path.realpath(path)
    if not within.allows(real):
        raise OutsideRoots()
    stat = os.stat(real)
    if not S_ISREG(stat.st_mode):
        raise FileNotFoundError(str(path))
    return stat.st_size, stat.st_mtime, within


async def source_file_call(files: ThreadPool[None], fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the file threads within :data:`SOURCE_TIMEOUT_SECONDS`.

    Past the deadline the call is abandoned (its thread stays blocked until
    the mount answers) and Unavailable is raised, so the request ends
    instead of waiting.
    """
    try:
        with trio.fail_after(SOURCE_TIMEOUT_SECONDS):
            return await files.call(fn, *args, abandon_on_cancel=True)
    except trio.TooSlowError:
        raise Unavailable(
            "The image file did not answer in time.", params={"retryAfterSeconds": RETRY_AFTER_SECONDS}
        ) from None
