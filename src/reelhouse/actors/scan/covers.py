"""A library's covers, chosen again after each completed scan.

For each kind (``primary`` 2:3, ``thumb`` 16:9) the cover is the image found
at the top of one of the library's roots, else an automatic collage of the
newest items' posters (rules: ``media/covers.py``), else none. A collage is
written to ``<covers dir>/<library id>-<kind>.jpg`` and made again only
when the posters it should use change; a found image is hashed again only
when its size or mtime changes. File work runs in worker threads. A
poster that cannot be read is left out; a cover that cannot be made is
omitted, never an error for the scan. Found images and posters are read
only where the containment rule allows (:mod:`reelhouse.media.containment`):
a file resolving outside the library's roots is left out.
"""

from __future__ import annotations

import os
from pathlib import Path

import trio

from reelhouse.media.containment import Confinement
from reelhouse.media.covers import COLLAGE_POSTERS, CoverKind, collage, is_final, scanned_cover
from reelhouse.media.file_names import from_fs, to_fs
from reelhouse.media.local_images import image_tag
from reelhouse.media.renditions import BrokenImage
from reelhouse.storage import Store, now_ms
from reelhouse.storage.confined_files import confinement_for, read_confined, resolves_inside
from reelhouse.storage.covers import COVER_KINDS, Poster, StoredCover, load_covers, newest_posters, save_covers
from reelhouse.storage.libraries import LibraryRecord

COVERS_DIR = "covers"  # under the data directory: automatic library collages
MAX_COVER_BYTES = 50 * 1024 * 1024  # a found image larger than this is not hashed


async def refresh_covers(
    store: Store,
    record: LibraryRecord,
    covers_dir: Path | None,
    limiter: trio.CapacityLimiter,
    *,
    data_dir: Path | None = None,
    regenerate: bool = False,
) -> dict[str, StoredCover]:
    """Choose the library's covers again and store them when they changed.

    ``covers_dir`` None: no collage is made (only found images count).
    ``regenerate``: a collage is made again even when its posters did not change
    (the cover regeneration endpoint).
    ``data_dir``: the server's, fenced off like ``/proc``.
    Raises StoreError when the catalogue cannot be read or written.
    """
    stored = await load_covers(store, record.id)
    posters = await newest_posters(store, record.id, COLLAGE_POSTERS)
    within = await trio.to_thread.run_sync(confinement_for, record.paths, data_dir, limiter=limiter)
    found = await trio.to_thread.run_sync(_found, record.paths, stored, within, limiter=limiter)
    chosen: dict[str, StoredCover] = {}
    for kind in COVER_KINDS:
        previous = stored.get(kind)
        cover = found.get(kind)
        if cover is None and posters and covers_dir is not None:
            target = covers_dir / f"{record.id}-{kind}.jpg"
            cover = await _collage(kind, posters, None if regenerate else previous, target, within, limiter)
        if cover is not None:
            chosen[kind] = cover
    if chosen != stored:
        await save_covers(store, record.id, chosen)
    return chosen


def _found(roots: tuple[str, ...], stored: dict[str, StoredCover], within: Confinement) -> dict[str, StoredCover]:
    """Worker thread: per kind, the first root's top-level image named for it."""
    found: dict[str, StoredCover] = {}
    for root in roots:
        try:
            with os.scandir(to_fs(root)) as entries:  # roots and names as path text, os form at the call
                names = [
                    from_fs(e.name)
                    for e in entries
                    if e.is_file() and (not e.is_symlink() or resolves_inside(e.path, within))
                ]
        except OSError:
            continue
        for kind in COVER_KINDS:
            name = scanned_cover(names, kind) if kind not in found else None
            cover = _hashed(os.path.join(root, name), stored.get(kind), within) if name is not None else None
            if cover is not None:
                found[kind] = cover
    return found


def _hashed(path: str, previous: StoredCover | None, within: Confinement) -> StoredCover | None:
    try:
        stat = os.stat(to_fs(path))
        if stat.st_size > MAX_COVER_BYTES:
            return None
        mtime_ms = stat.st_mtime_ns // 1_000_000
        if (
            previous is not None and previous.source == "scanned" and previous.path == path
            and previous.size == stat.st_size and previous.mtime_ms == mtime_ms
        ):
            return previous
        data = read_confined(to_fs(path), within, MAX_COVER_BYTES)
    except OSError:
        return None
    return StoredCover(image_tag(data), "scanned", path=path, size=stat.st_size, mtime_ms=mtime_ms)


async def _collage(
    kind: CoverKind,
    posters: list[Poster],
    previous: StoredCover | None,
    target: Path,
    within: Confinement,
    limiter: trio.CapacityLimiter,
) -> StoredCover | None:
    tags = tuple(poster.tag for poster in posters)
    if previous is not None and previous.source == "auto" and previous.posters == tags:
        if await trio.to_thread.run_sync(target.is_file, limiter=limiter):
            return previous
    data = await trio.to_thread.run_sync(_write_collage, kind, posters, target, within, limiter=limiter)
    if data is None:
        return None
    return StoredCover(image_tag(data), "auto", posters=tags, final=is_final(len(tags)), generated_at_ms=now_ms())


def _write_collage(kind: CoverKind, posters: list[Poster], target: Path, within: Confinement) -> bytes | None:
    """Worker thread: the collage's bytes, written to ``target`` (atomically); None when none can be made."""
    images: list[bytes] = []
    for poster in posters:
        try:
            images.append(read_confined(to_fs(poster.path), within, MAX_COVER_BYTES)[:MAX_COVER_BYTES])  # path text
        except OSError:
            continue
    if not images:
        return None
    try:
        data = collage(images, kind)
    except BrokenImage:
        return None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        partial.write_bytes(data)
        os.replace(partial, target)
    except OSError:
        return None
    return data
