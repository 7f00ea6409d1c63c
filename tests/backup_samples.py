"""Backup archives for restore tests: a real one made by create_backup, and hostile ones built with zipfile."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import trio

from reelhouse.storage import migrate, open_store
from reelhouse.storage._migrations import load_migrations
from reelhouse.storage.backups import create_backup

from .catalog_factory import catalog

NEWEST = max(m.version for m in load_migrations())


async def live_database(database_url: str, names: Sequence[str]) -> None:
    """A migrated database with one library of movies called ``names``."""
    async with open_store(database_url) as store:
        await migrate(store)
        async with catalog(store) as cat:
            library = cat.library("Films")
            for name in names:
                cat.movie(library, name)


async def item_names(database_url: str) -> list[str]:
    async with open_store(database_url) as store:
        return sorted(row[0] for row in await store.fetch_all("SELECT name FROM items"))


async def real_backup(database_url: str, data_dir: Path) -> Path:
    """What ``reelhouse backup create`` writes, for the database as it is now."""
    info = await trio.to_thread.run_sync(lambda: create_backup(
        database_url, data_dir, settings={}, config_file=None, keep=100, schema_version=NEWEST))
    return info.path


def entries_of(archive: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(archive) as opened:
        return {name: opened.read(name) for name in opened.namelist()}


def write_archive(path: Path, entries: Mapping[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def changed(source: Path, target: Path, *, drop: Sequence[str] = (), **entries: bytes) -> Path:
    """``source``'s entries with some dropped or replaced (a keyword's ``_`` stands for ``.``)."""
    kept = {name: data for name, data in entries_of(source).items() if name not in drop}
    kept.update({name.replace("_", "."): data for name, data in entries.items()})
    return write_archive(target, kept)


def manifest_of(source: Path, **fields: Any) -> bytes:
    """``source``'s manifest with ``fields`` replaced."""
    manifest = json.loads(entries_of(source)["manifest.json"])
    manifest.update(fields)
    return json.dumps(manifest).encode()
