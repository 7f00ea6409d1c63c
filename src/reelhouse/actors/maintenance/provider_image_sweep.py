"""Provider images nothing refers to any more, removed by the cleanup task.

A provider image lives in ``<data_dir>/metadata/<itemId>/`` while an
``images`` row (``source = 'provider'``) names it.  Two things leave files
behind: an item purged from the catalogue (its rows go, its folder stays)
and a replaced image whose removal failed (a crash between the commit and
the unlink).  A file is removed only when no row of its item names it and
it is older than :data:`MIN_AGE_MS`: an apply writes its files before it
commits their rows, so a younger file may be one about to be named.  An
emptied folder of an item that is gone goes too.  Links, as item folders
or inside one, and folders inside one are left alone (the server writes
none of them): a folder is opened without following a link, and its files
are removed through that descriptor.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

import trio

from reelhouse.storage import Store
from reelhouse.storage.stored_images import provider_image_root, provider_images_in_use

MIN_AGE_MS = 3600 * 1000


async def sweep_provider_images(store: Store, data_dir: Path, now_ms: int) -> int:
    """Remove unused provider image files (and gone items' emptied folders); how many files went."""
    root = provider_image_root(data_dir)
    folders = await trio.to_thread.run_sync(_item_folders, root)
    existing, in_use = await provider_images_in_use(store, folders)
    return await trio.to_thread.run_sync(_remove_unused, root, folders, existing, in_use, now_ms)


def _item_folders(root: Path) -> list[str]:
    try:
        with os.scandir(root) as entries:
            return sorted(entry.name for entry in entries if entry.is_dir(follow_symlinks=False))
    except FileNotFoundError:
        return []


def _remove_unused(root: Path, item_ids: Sequence[str], existing: set[str], in_use: set[tuple[str, str]],
                   now_ms: int) -> int:
    removed = 0
    for item_id in item_ids:
        try:
            removed += _sweep_folder(root, item_id, item_id in existing, in_use, now_ms)
        except OSError:
            continue  # removed or written meanwhile, a link now, or not ours to change: next run
    return removed


def _sweep_folder(root: Path, item_id: str, exists: bool, in_use: set[tuple[str, str]], now_ms: int) -> int:
    """One item's folder, opened without following a link (one swapped in after the listing
    is refused), its files removed through that descriptor only."""
    folder = os.open(root / item_id, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        with os.scandir(folder) as entries:
            files = [entry for entry in entries if entry.is_file(follow_symlinks=False)]
        removed = 0
        for entry in files:
            if (item_id, entry.name) not in in_use and _old(entry, now_ms):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.name, dir_fd=folder)
                    removed += 1
        with os.scandir(folder) as entries:
            empty = next(entries, None) is None
    finally:
        os.close(folder)
    if not exists and empty:
        os.rmdir(root / item_id)
    return removed


def _old(entry: os.DirEntry[str], now_ms: int) -> bool:
    return now_ms - entry.stat(follow_symlinks=False).st_mtime * 1000 > MIN_AGE_MS
