"""Backups: a consistent copy of the database and the settings, as one zip file.

``<data dir>/backups/reelhouse-backup-<UTC time>.zip`` holds:

- ``database.sqlite`` (SQLite: the online backup API, page by page, so the
  server keeps serving and writing meanwhile and the copy is one
  consistent snapshot) or ``database.sql`` (PostgreSQL: ``pg_dump`` of
  this schema; without ``pg_dump`` the backup fails and says so);
- ``settings.json`` (the effective settings) and ``config.toml`` (the
  configuration file, when there is one); ``server-id``;
- ``manifest.json``: format, backend, schema version, creation time.

Only the newest ``keep`` backups are kept. Restoring
(:mod:`reelhouse.storage.backup_restore`) happens while no server holds the
data directory's lock (:mod:`reelhouse.process.server_lock`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ._open import parse_database_url

BACKUP_DIR = "backups"
PREFIX = "reelhouse-backup-"
FORMAT = 1
# The online backup copies every page in one step: one read transaction, so
# one consistent snapshot. In steps, any write the server makes between two
# of them (a job's progress, a scan) restarts the copy from the first page.
# In WAL mode the long read blocks neither readers nor the writer.
PAGES_PER_STEP = -1
# Deflate's fastest level: most of the size saving for a fraction of the CPU.
COMPRESS_LEVEL = 1
PG_DUMP_TIMEOUT_S = 3600
_TOOL_ERROR = re.compile(r"\b(ERROR|FATAL|error):")


class BackupError(Exception):
    """A backup or restore could not be made; the message says why (safe to show)."""


@dataclass(frozen=True, slots=True)
class BackupInfo:
    path: Path
    size: int
    created_at: datetime


def backup_dir(data_dir: Path) -> Path:
    return data_dir / BACKUP_DIR


def create_backup(database_url: str, data_dir: Path, *, settings: dict[str, Any], config_file: Path | None,
                  keep: int, schema_version: int, now: datetime | None = None) -> BackupInfo:
    """Write one backup (blocking: run it in a worker thread); then keep the newest ``keep``."""
    target = parse_database_url(database_url)
    created = (now or datetime.now(UTC)).astimezone(UTC)
    folder = backup_dir(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{PREFIX}{created.strftime('%Y%m%dT%H%M%S')}{created.microsecond // 1000:03d}Z.zip"
    with tempfile.TemporaryDirectory(dir=folder) as work:
        if target.backend == "sqlite":
            name, dump = "database.sqlite", Path(work) / "database.sqlite"
            try:
                _sqlite_copy(target.location, dump)
            except sqlite3.Error as exc:
                raise BackupError(f"The database could not be copied: {exc}") from None
        else:
            name, dump = "database.sql", Path(work) / "database.sql"
            _pg_dump(target.location, target.schema, dump)
        manifest = {"format": FORMAT, "backend": target.backend, "database": name, "schema": target.schema,
                    "schemaVersion": schema_version, "createdAt": created.isoformat().replace("+00:00", "Z")}
        partial = Path(work) / "backup.zip"
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED,
                             compresslevel=COMPRESS_LEVEL) as archive:
            archive.write(dump, name)
            archive.writestr("manifest.json", json.dumps(manifest, indent=2))
            archive.writestr("settings.json", json.dumps(settings, indent=2, default=str))
            if config_file is not None and config_file.is_file():
                archive.write(config_file, "config.toml")
            if (data_dir / "server-id").is_file():
                archive.write(data_dir / "server-id", "server-id")
        os.replace(partial, final)
    prune_backups(data_dir, keep)
    return BackupInfo(final, final.stat().st_size, created)


def list_backups(data_dir: Path) -> list[BackupInfo]:
    """Backups in ``<data dir>/backups``, oldest first."""
    folder = backup_dir(data_dir)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob(f"{PREFIX}*.zip")):
        stat = path.stat()
        found.append(BackupInfo(path, stat.st_size, datetime.fromtimestamp(stat.st_mtime, UTC)))
    return found


def prune_backups(data_dir: Path, keep: int) -> int:
    backups = list_backups(data_dir)
    old = backups[: max(len(backups) - keep, 0)]
    for info in old:
        info.path.unlink(missing_ok=True)
    return len(old)


def run_tool(command: list[str], name: str) -> str:
    """Run ``pg_dump``/``psql``; BackupError with its first error line when it fails."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PG_DUMP_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise BackupError(f"{name} did not finish in time.") from None
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["no message"]
        first = next((line for line in lines if _TOOL_ERROR.search(line)), lines[0])
        raise BackupError(f"{name} failed: {first}")
    return done.stdout


def _sqlite_copy(source: str, target: Path) -> None:
    """The online backup API: one consistent snapshot, copied a step at a time."""
    src = sqlite3.connect(source, timeout=30)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst, pages=PAGES_PER_STEP)
        finally:
            dst.close()
    finally:
        src.close()


def _pg_dump(dsn: str, schema: str | None, target: Path) -> None:
    executable = shutil.which("pg_dump")
    if executable is None:
        raise BackupError("pg_dump is not installed: a PostgreSQL backup needs it (install postgresql-client).")
    command = [executable, "--no-owner", "--no-privileges", "--file", str(target)]
    if schema:
        command += ["--schema", schema]
    command.append(dsn)
    run_tool(command, "pg_dump")
