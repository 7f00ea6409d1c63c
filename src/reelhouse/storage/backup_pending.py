"""A restore asked for while a server runs: done when the server next starts.

A running server holds the data directory (:mod:`reelhouse.process.server_lock`),
so no backup may replace its database under it (``reelhouse backup
restore`` refuses).  The web console instead names the archive in
``<data dir>/backups/restore-pending``, once its manifest was checked (an
archive that is not a backup for this database is refused at once).  The
next start, holding the server lock and before the database is opened,
restores it with :func:`reelhouse.storage.backup_restore.restore_backup`
(every check of the command line's restore) and writes the outcome to
``restore-result.json``, which the console shows.

The request is removed before the restore begins: a restore that fails, or
kills the process, is reported once and never retried at every start.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import trio

from ._open import parse_database_url
from .backup_archive import BackupArchive, Manifest
from .backup_restore import restore_backup
from .backup_restore_sqlite import one_line
from .backups import BackupError, backup_dir, list_backups

log = logging.getLogger(__name__)

PENDING_FILE = "restore-pending"
RESULT_FILE = "restore-result.json"


class RestorePending(Exception):
    """Another restore is already waiting for the next start."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


@dataclass(frozen=True, slots=True)
class StagedRestore:
    name: str
    manifest: Manifest


def stage_restore(data_dir: Path, name: str, database_url: str, max_bytes: int) -> StagedRestore:
    """Name the backup ``name`` (one of ``list_backups``) for the next start, its manifest checked first.

    Blocking: run it in a worker thread.  FileNotFoundError for a name that
    is not a backup here; BadBackup for an archive this build or database
    cannot restore; RestorePending while another waits.
    """
    found = {info.path.name: info.path for info in list_backups(data_dir)}
    path = found.get(name)
    if path is None:
        raise FileNotFoundError(name)
    waiting = pending_restore(data_dir)
    if waiting is not None:
        raise RestorePending(waiting)
    with BackupArchive(path, max_bytes) as archive:
        manifest = archive.manifest(parse_database_url(database_url).backend)
    _write_atomically(backup_dir(data_dir) / PENDING_FILE, name)
    return StagedRestore(name, manifest)


def pending_restore(data_dir: Path) -> str | None:
    """The backup waiting for the next start, if any."""
    try:
        return (backup_dir(data_dir) / PENDING_FILE).read_text().strip() or None
    except FileNotFoundError:
        return None


def cancel_restore(data_dir: Path) -> str | None:
    """Withdraw the waiting restore; its name, or None when none waited."""
    name = pending_restore(data_dir)
    (backup_dir(data_dir) / PENDING_FILE).unlink(missing_ok=True)
    return name


def last_restore(data_dir: Path) -> dict[str, Any] | None:
    """What the last start said of its restore: name, ok, at, message (and kept when it succeeded)."""
    try:
        found = json.loads((backup_dir(data_dir) / RESULT_FILE).read_text())
    except (FileNotFoundError, ValueError):
        return None
    return found if isinstance(found, dict) else None


async def restore_if_pending(data_dir: Path, database_url: str, max_bytes: int) -> None:
    """At start, under the server lock and before the database opens: the waiting restore, if any.

    A failure leaves the database as it was; it is logged and reported, and
    the server starts on the database it had.
    """
    name = pending_restore(data_dir)
    if name is None:
        return
    (backup_dir(data_dir) / PENDING_FILE).unlink(missing_ok=True)  # first: never retried at every start
    result: dict[str, Any] = {"name": name, "at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    path = backup_dir(data_dir) / name
    log.info("restoring %s, as asked from the web console", name)
    try:
        if path.name != name or not path.is_file():
            raise BackupError(f"{name} is no longer in the backups folder.")
        restored = await restore_backup(path, database_url, data_dir, max_bytes=max_bytes)
    except (BackupError, OSError) as error:
        message = one_line(str(error))
        log.error("the restore of %s failed; the database is as it was: %s", name, message)
        result.update(ok=False, message=message)
    except Exception:  # a database failure: the same; its words stay in the log (the page shows the result)
        log.exception("the restore of %s failed; the database is as it was", name)
        result.update(ok=False, message="The restore failed; the server's log says why. The database is as it was.")
    else:
        log.info("restored %s (made %s); the previous database is kept as %s", name,
                 restored.manifest.created_at, restored.kept)  # fmt: skip
        result.update(ok=True, message=f"Restored {name} (made {restored.manifest.created_at}).",
                      kept=restored.kept)  # fmt: skip
    await trio.to_thread.run_sync(_write_atomically, backup_dir(data_dir) / RESULT_FILE, json.dumps(result))


def _write_atomically(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    partial.write_text(text)
    os.replace(partial, target)
