"""The on-disk cache of image renditions: bounded in bytes, least recently used out.

A rendition is stored under ``<root>/<2 hex>/<sha256>.<format>``, named by
a hash of its :class:`RenditionKey`: the source image's tag (a content
hash, so a changed image has a new tag and never meets a stale rendition),
the size parameters and the output format.  The root is what
``GET /system/status`` reports as the ``images`` cache.

Recency is the file's modification time: a hit touches it, so the order
survives restarts.  The cache reads the directory once, on first use, then
keeps an in-memory index (name -> size, in recency order); after each
store it deletes the least recently used files until the total is within
``max_bytes`` again.  A budget of 0 disables the cache, and a rendition
larger than the budget is not stored.  Files deleted behind its back are
simply misses.

The most recently used renditions are also kept in memory, up to
``memory_max_bytes`` (:data:`MEMORY_MAX_BYTES` by default) and each at
most :data:`MEMORY_ITEM_MAX_BYTES`: a hit there needs no file thread (a
hand-over to a thread costs more than answering the request otherwise).
Renditions are named by their content, so a remembered one is never stale;
a memory hit counts as a use for the disk order of this process too.

Every file operation runs on one of the given file threads
(:class:`reelhouse.loop.thread_pool.ThreadPool`).  The index is only touched from the Trio thread, between
awaits, so concurrent requests need no lock; a file evicted while another
request reads it is a miss for that request, never a partial read (files
appear by an atomic rename).  Cancellation: a cancelled ``get`` or ``put``
waits for its thread to finish (file operations are short) and raises
Cancelled; a rename that completed stays in the cache.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import trio
from cachetools import LRUCache

from reelhouse.loop.thread_pool import ThreadPool

log = logging.getLogger(__name__)

IMAGE_CACHE_DIR = "cache/images"
"""Where the renditions live, under the data directory."""
KEY_VERSION = "1"
"""Bump when renditions of the same parameters would change (encoder settings)."""
TEMP_SUFFIX = ".tmp"
MEMORY_MAX_BYTES = 32 * 1024 * 1024
MEMORY_ITEM_MAX_BYTES = 1024 * 1024
MAX_TRACKED_SHAPES = 64
MAX_ANNOUNCED = 100_000

# Shared by every ImageCache of this process, per root: renditions another
# instance stored (poster pre-generation writes beside the HTTP edge's
# cache), adopted into each index on its next use with no file I/O, and
# how often each rendition shape (sizes and format) was asked for, so
# pre-generation renders what clients ask for most.
_STORED_ELSEWHERE: dict[Path, list[tuple[str, int]]] = {}
_SHAPES_ASKED: dict[Path, dict[tuple[int | None, int | None, int | None, int | None, str], int]] = {}


def asked_shapes(root: Path) -> list[tuple[tuple[int | None, int | None, int | None, int | None, str], int]]:
    """Rendition shapes (max_width, max_height, fill_width, fill_height, fmt) asked for under ``root``, most first."""
    return sorted(_SHAPES_ASKED.get(root, {}).items(), key=lambda pair: -pair[1])


@dataclass(frozen=True, slots=True)
class RenditionKey:
    """What a rendition is made of; equal keys give identical bytes."""

    tag: str
    max_width: int | None
    max_height: int | None
    fill_width: int | None
    fill_height: int | None
    fmt: str

    def file_name(self) -> str:
        text = "|".join(
            str(part) for part in (KEY_VERSION, self.tag, self.max_width, self.max_height,
                                   self.fill_width, self.fill_height, self.fmt)
        )
        return f"{hashlib.sha256(text.encode()).hexdigest()}.{self.fmt}"


@dataclass(frozen=True, slots=True)
class _Entry:
    path: Path
    mtime_ns: int
    size: int


class ImageCache:
    """Renditions on disk under ``root`` within ``max_bytes`` (see the module doc)."""

    def __init__(
        self, root: Path, max_bytes: int, files: ThreadPool[None], *, memory_max_bytes: int = MEMORY_MAX_BYTES
    ) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self._files = files
        # Renditions by name, weighed in bytes, least recently used out.
        self._memory: LRUCache[str, bytes] = LRUCache(min(memory_max_bytes, max_bytes), getsizeof=len)
        self._index: OrderedDict[str, int] = OrderedDict()  # name -> size, oldest first
        self._total = 0
        self._loaded = False
        self._loading = trio.Lock()
        self._adopted = len(_STORED_ELSEWHERE.get(root, ()))  # this instance's reading position

    @property
    def total_bytes(self) -> int:
        return self._total

    async def get(self, key: RenditionKey) -> bytes | None:
        """The stored rendition, or None (not stored, gone, unreadable)."""
        if self.max_bytes <= 0:
            return None
        await self._load()
        self._count_shape(key)
        name = key.file_name()
        data = self._memory.get(name)
        if data is None:
            self._adopt()
            if name not in self._index:
                return None
            try:
                data = await self._files.call(_read_and_touch, self._path(name))
            except OSError:
                self._forget(name)
                return None
            self._keep_in_memory(name, data)
        if name in self._index:
            self._index.move_to_end(name)
        return data

    async def put(self, key: RenditionKey, data: bytes, *, announce: bool = False) -> None:
        """Store ``data`` for ``key``, then evict down to the budget.

        A failure to write (disk full, permissions) is logged and ignored:
        the cache is an optimisation, the caller has its bytes.
        """
        if self.max_bytes <= 0 or len(data) > self.max_bytes:
            return
        await self._load()
        name = key.file_name()
        try:
            await self._files.call(_write_atomically, self._path(name), data)
        except OSError as exc:
            log.warning("image cache: cannot write %s: %s", name, exc)
            return
        self._forget(name)
        self._index[name] = len(data)
        self._total += len(data)
        self._keep_in_memory(name, data)
        if announce:  # other instances on this root adopt it on their next use
            elsewhere = _STORED_ELSEWHERE.setdefault(self.root, [])
            if len(elsewhere) >= MAX_ANNOUNCED:
                elsewhere.clear()  # bounded memory; older ones are found after a restart
            elsewhere.append((name, len(data)))
        await self._evict(keep=name)

    async def clear(self) -> int:
        """Delete every rendition (on disk and in memory); how many files went.

        Renditions are rendered again on their next request. Other instances
        on this root forget what was announced to them (a miss then reads
        the disk and finds nothing).
        """
        await self._load()
        removed = await self._files.call(_delete_renditions, self.root)
        self._index.clear()
        self._total = 0
        self._memory.clear()
        _STORED_ELSEWHERE.pop(self.root, None)
        self._adopted = 0
        return removed

    def _keep_in_memory(self, name: str, data: bytes) -> None:
        if len(data) <= min(MEMORY_ITEM_MAX_BYTES, self._memory.maxsize) and name not in self._memory:
            self._memory[name] = data

    def contains(self, key: RenditionKey) -> bool:
        """Whether the rendition is stored (as far as the index knows; no I/O)."""
        self._adopt()
        return key.file_name() in self._index

    def _adopt(self) -> None:
        """Take into the index what other instances on this root stored since."""
        elsewhere = _STORED_ELSEWHERE.get(self.root, [])
        if self._adopted > len(elsewhere):
            self._adopted = 0  # the list was cleared
        for name, size in elsewhere[self._adopted :]:
            if name not in self._index:
                self._index[name] = size
                self._total += size
        self._adopted = len(elsewhere)

    def _count_shape(self, key: RenditionKey) -> None:
        shapes = _SHAPES_ASKED.setdefault(self.root, {})
        shape = (key.max_width, key.max_height, key.fill_width, key.fill_height, key.fmt)
        if shape in shapes or len(shapes) < MAX_TRACKED_SHAPES:
            shapes[shape] = shapes.get(shape, 0) + 1

    def _path(self, name: str) -> Path:
        return self.root / name[:2] / name

    def _forget(self, name: str) -> None:
        size = self._index.pop(name, None)
        if size is not None:
            self._total -= size

    async def _evict(self, *, keep: str) -> None:
        victims: list[Path] = []
        for name in list(self._index):
            if self._total <= self.max_bytes:
                break
            if name != keep:
                victims.append(self._path(name))
                self._forget(name)
        if victims:
            await self._files.call(_unlink_all, victims)

    async def _load(self) -> None:
        if self._loaded:
            return
        async with self._loading:
            if self._loaded:
                return
            # Listed and ordered on a file thread; only the index is built here.
            for name, size in await self._files.call(_scan, self.root):
                self._index[name] = size
                self._total += size
            self._loaded = True
            if self._index:
                await self._evict(keep="")


def _read_and_touch(path: Path) -> bytes:
    data = path.read_bytes()
    os.utime(path)  # recency survives restarts
    return data


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f"{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        temp.write_bytes(data)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _unlink_all(paths: list[Path]) -> None:
    for path in paths:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("image cache: cannot delete %s: %s", path, exc)


def _delete_renditions(root: Path) -> int:
    """Every rendition file under ``root`` deleted (temporary ones too); how many."""
    removed = 0
    if not root.is_dir():
        return 0
    for folder in root.iterdir():
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            try:
                path.unlink()
                removed += 1
            except OSError as exc:
                log.warning("image cache: cannot delete %s: %s", path, exc)
    return removed


def _scan(root: Path) -> list[tuple[str, int]]:
    """Every rendition file under ``root`` (name and size), oldest first; leftover temporary files are deleted."""
    entries: list[_Entry] = []
    if not root.is_dir():
        return []
    for folder in root.iterdir():
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            try:
                if path.name.endswith(TEMP_SUFFIX):
                    path.unlink(missing_ok=True)
                    continue
                stat = path.stat()
            except OSError:
                continue
            entries.append(_Entry(path, stat.st_mtime_ns, stat.st_size))
    return [(entry.path.name, entry.size) for entry in sorted(entries, key=lambda e: e.mtime_ns)]
