"""Restoring a backup: nothing live is touched until the archive's database has passed every check.

The archive is read under :mod:`.backup_archive`'s rules (fixed entry
names, a checked manifest, every entry streamed within the restore limit)
into a fresh folder ``.reelhouse-restore-*`` beside the database (for
SQLite the same filesystem as the live file, so the last rename is
atomic). Then per backend:

- SQLite (:mod:`.backup_restore_sqlite`): the copy must be an SQLite file
  that passes ``integrity_check`` and records only migrations this build
  knows; this build's migrations run on the copy; then it replaces the live
  file with ``os.replace``, the old one kept as
  ``<name>.before-restore-<time>`` with its -wal/-shm.
- PostgreSQL (:mod:`.backup_restore_pg`): the dump is loaded, checked and
  migrated in one transaction that renames the live schema to a dated name
  (kept).

Run it only under the exclusive server lock (the command line does): the
work folders a killed restore left are removed at the start.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import trio

from ._migrations import load_migrations, migration_failure
from ._open import parse_database_url
from .backup_archive import SERVER_ID, SMALL_ENTRY_MAX_BYTES, BackupArchive, BadBackup, Manifest
from .backup_restore_pg import restore_postgres
from .backup_restore_sqlite import check_candidate, check_versions, one_line, seal, swap_in

WORK_PREFIX = ".reelhouse-restore-"


@dataclass(frozen=True, slots=True)
class Restored:
    manifest: Manifest
    kept: str | None  # where the previous database is kept: a file path or a schema name


async def restore_backup(path: Path, database_url: str, data_dir: Path, *, max_bytes: int,
                         now: datetime | None = None) -> Restored:
    """Replace the database with the backup's; BadBackup (nothing changed) for any archive that is wrong."""
    target = parse_database_url(database_url)
    when = (now or datetime.now(UTC)).astimezone(UTC)
    stamp = f"{when.strftime('%Y%m%dT%H%M%S')}{when.microsecond // 1000:03d}Z"
    known = {migration.version for migration in load_migrations()}
    archive = await trio.to_thread.run_sync(BackupArchive, path, max_bytes)
    with archive:
        manifest = await trio.to_thread.run_sync(archive.manifest, target.backend)
        check_versions({manifest.schema_version} - {0}, known, f"{path.name}'s manifest")
        if target.backend == "sqlite":
            database = Path(target.location)
            with work_folder(database.parent) as work:
                kept: str | None = await _restore_sqlite(archive, manifest, database, work, known, stamp)
        else:
            with work_folder(data_dir) as work:
                kept = await restore_postgres(archive, manifest, target, work, known, stamp)
        if archive.has(SERVER_ID):
            await trio.to_thread.run_sync(_restore_server_id, archive, data_dir)
    return Restored(manifest, kept)


async def _restore_sqlite(archive: BackupArchive, manifest: Manifest, database: Path, work: Path,
                          known: set[int], stamp: str) -> str | None:
    candidate = work / manifest.database
    await trio.to_thread.run_sync(archive.copy, manifest.database, candidate, archive.max_bytes)
    await trio.to_thread.run_sync(check_candidate, candidate, known, manifest.database)
    if (failure := await migration_failure(str(candidate))) is not None:
        raise BadBackup(f"{manifest.database} cannot be migrated ({one_line(failure)}).")
    await trio.to_thread.run_sync(seal, candidate)
    kept = await trio.to_thread.run_sync(swap_in, candidate, database, stamp)
    return None if kept is None else str(kept)


@contextmanager
def work_folder(parent: Path) -> Iterator[Path]:
    """A fresh folder in ``parent``, removed afterwards (and those a killed restore left)."""
    parent.mkdir(parents=True, exist_ok=True)
    for stale in parent.glob(f"{WORK_PREFIX}*"):
        shutil.rmtree(stale, ignore_errors=True)  # refuses a link: only real folders go
    folder = Path(tempfile.mkdtemp(prefix=WORK_PREFIX, dir=parent))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _restore_server_id(archive: BackupArchive, data_dir: Path) -> None:
    """The backup's server id, only where the data directory has none yet."""
    target = data_dir / SERVER_ID
    if target.exists():
        return
    partial = data_dir / f".{SERVER_ID}.restoring"
    partial.unlink(missing_ok=True)
    archive.copy(SERVER_ID, partial, SMALL_ENTRY_MAX_BYTES)
    os.replace(partial, target)
