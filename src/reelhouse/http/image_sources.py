"""The stored file behind an image request, found in the catalogue and on disk, remembered briefly.

Finding it costs two hand-overs to threads: the ``images`` row, then a
stat of the file (its size and modification time make the ``ETag``,
``Last-Modified`` and ranges).  A source found is remembered by item, kind
and index while both hold:

- the store's :meth:`~reelhouse.storage.Store.data_version` has not moved
  since it was read: a scan or refresh that changes an item's images
  commits a write, so the next request reads the catalogue again (any
  write moves it, so during a scan most requests read it again);
- it was looked at on disk less than :data:`RECHECK_SECONDS` ago: a file
  replaced or deleted behind the catalogue's back shows (new
  ``Last-Modified``, or 404) within that.  Past it one request stats the
  file again while the others are still answered from memory: a hand-over
  to a thread costs the server far more throughput than its CPU time, so
  a popular image must not send every request to one.

Containment (:mod:`reelhouse.media.containment`): the file must resolve
inside a root of its item's library (and outside the fenced directories)
when it is looked at, else it is not found; an image a provider gave
(``source = 'provider'``) must instead resolve inside the provider image
store (``<data_dir>/metadata``, :func:`~reelhouse.storage.stored_images.provider_confinement`)
and nowhere else of the data directory; :class:`SourceImage` carries
that confinement, and the reader checks the opened file again
(:func:`reelhouse.storage.confined_files.open_confined`), so a symbolic
link swapped after the scan or after this lookup is never followed out.

What is not found is not remembered.  At most :data:`MAX_SOURCES` are kept,
least recently used out.  Time is ``trio.current_time()``.  Stats run on the image file threads within
:data:`SOURCE_TIMEOUT_SECONDS` (a stored image may sit on a network mount
that hangs); past it the request gets 503 with ``Retry-After``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import trio
from cachetools import LRUCache
from werkzeug.http import http_date

from reelhouse.errors import NotFound
from reelhouse.loop.thread_pool import ThreadPool
from reelhouse.media.containment import Confinement
from reelhouse.media.file_names import to_fs
from reelhouse.storage import Store
from reelhouse.storage.confined_files import OutsideRoots, confinement_for
from reelhouse.storage.stored_images import PROVIDER_SOURCE, find_stored_image, provider_confinement

from .file_body import file_call, stat_within

T = TypeVar("T")
_Wanted = tuple[str, str, int]  # item id, kind, index

RECHECK_SECONDS = 10.0
MAX_SOURCES = 10_000
SOURCE_TIMEOUT_SECONDS = 10.0
"""One stat or read of a stored image (a hung network mount); beyond it the
request gets 503, or a body already under way is cut short."""


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
    provider: bool = False  # a provider image: confined to the provider image store


@dataclass(frozen=True, slots=True)
class _Found:
    source: SourceImage
    data_version: int
    found_at: float


class ImageSources:
    """:meth:`find` with a short memory (see the module doc).  Used from the Trio thread only."""

    def __init__(
        self,
        store: Store,
        files: ThreadPool[None],
        *,
        data_dir: Path | None = None,
    ) -> None:
        self._store = store
        self._files = files
        self._data_dir = data_dir
        self._found: LRUCache[_Wanted, _Found] = LRUCache(MAX_SOURCES)
        self._rechecking: set[_Wanted] = set()

    async def find(self, item_id: str, kind: str, index: int) -> SourceImage:
        """The item's image of that kind and index.

        Raises NotFound (unknown item, no such image, file gone from disk),
        Unavailable (the file did not answer in time) or StoreError.
        """
        wanted = (item_id, kind, index)
        data_version = self._store.data_version()
        known = self._found.get(wanted)
        if known is None or known.data_version != data_version:
            return await self._find_anew(wanted, data_version)
        if trio.current_time() - known.found_at < RECHECK_SECONDS or wanted in self._rechecking:
            return known.source
        return await self._recheck(wanted, known)

    def forget(self, item_id: str, kind: str, index: int) -> None:
        """Drop what is remembered of that image (its file turned out changed)."""
        self._found.pop((item_id, kind, index), None)

    async def _find_anew(self, wanted: _Wanted, data_version: int) -> SourceImage:
        self._found.pop(wanted, None)
        found_at = trio.current_time()
        stored = await find_stored_image(self._store, *wanted)
        provider = stored.source == PROVIDER_SOURCE
        # The path is stored as text: to_fs gives back the name on disk.
        source = await self._on_disk(Path(to_fs(stored.path)), stored.tag, stored.roots, provider)
        self._remember(wanted, source, data_version, found_at)
        return source

    async def _recheck(self, wanted: _Wanted, known: _Found) -> SourceImage:
        """The remembered file looked at again; meanwhile others are answered as before."""
        self._rechecking.add(wanted)
        try:
            found_at = trio.current_time()
            try:
                known_source = known.source
                source = await self._on_disk(
                    known_source.path, known_source.tag, known_source.roots, known_source.provider
                )
            except NotFound:
                self._found.pop(wanted, None)
                raise
            self._remember(wanted, source, known.data_version, found_at)
            return source
        finally:
            self._rechecking.discard(wanted)

    async def _on_disk(self, path: Path, tag: str, roots: tuple[str, ...], provider: bool) -> SourceImage:
        try:
            size, mtime, within = await source_file_call(
                self._files, _stat, path, roots, self._data_dir, provider
            )
        except (FileNotFoundError, NotADirectoryError):
            raise NotFound("The image file is missing from disk.") from None
        except OutsideRoots:
            raise NotFound("The image file is not inside the library's folders.") from None
        modified = datetime.fromtimestamp(mtime, UTC)
        return SourceImage(path, tag, size, modified, http_date(modified), roots, within, provider)

    def _remember(self, wanted: _Wanted, source: SourceImage, data_version: int, found_at: float) -> None:
        """Keep ``source`` unless a write committed since ``data_version`` was read."""
        if self._store.data_version() == data_version:
            self._found[wanted] = _Found(source, data_version, found_at)


def _stat(
    path: Path, roots: tuple[str, ...], data_dir: Path | None, provider: bool
) -> tuple[int, float, Confinement]:
    """Size and mtime of the file ``path`` resolves to, and where it may resolve:
    its library's confinement, or the provider image store for a provider image.

    Raises OutsideRoots when it resolves outside, FileNotFoundError when it
    is gone or not a regular file.
    """
    within = provider_confinement(data_dir) if provider else confinement_for(roots, data_dir)
    return (*stat_within(path, within), within)


async def source_file_call(files: ThreadPool[None], fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the file threads within :data:`SOURCE_TIMEOUT_SECONDS` (:func:`file_call`)."""
    return await file_call(files, SOURCE_TIMEOUT_SECONDS, fn, *args)
