"""A restored SQLite database: checked as a candidate file, then swapped in with the old one kept.

Blocking file work: callers run these in a worker thread. The candidate is
a copy in a fresh folder beside the live file (the same filesystem, so the
final ``os.replace`` is atomic). Before it replaces anything it must be an
SQLite file, pass ``PRAGMA integrity_check`` and record only migrations this
build knows; after the caller migrated it, :func:`seal` leaves it one
self-contained file (rollback journal, no WAL beside it). :func:`swap_in`
keeps the live database under a dated name and moves its -wal/-shm with it,
so a stale WAL is never replayed onto the new file.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from .backup_archive import BadBackup

SQLITE_HEADER = b"SQLite format 3\x00"
KEPT_INFIX = ".before-restore-"
SIDE_FILES = ("-wal", "-shm")
CHECKPOINT_TIMEOUT_S = 5.0


def check_candidate(candidate: Path, known_versions: set[int], entry: str) -> None:
    """BadBackup unless ``candidate`` is a sound SQLite Reelhouse database this build can migrate."""
    with open(candidate, "rb") as file:
        if file.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise BadBackup(f"{entry} is not an SQLite database.")
    try:
        conn = sqlite3.connect(candidate, timeout=0)
        try:
            problems = [str(row[0]) for row in conn.execute("PRAGMA integrity_check(1)")]
            if problems != ["ok"]:
                raise BadBackup(f"{entry} is damaged (integrity_check: {one_line(problems[0] if problems else '')}).")
            if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
                            ).fetchone() is None:
                raise BadBackup(f"{entry} is not a Reelhouse database (no schema_migrations).")
            versions = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise BadBackup(f"{entry} is damaged ({one_line(str(exc))}).") from None
    check_versions(versions, known_versions, entry)


def check_versions(versions: Iterable[object], known_versions: set[int], entry: str) -> None:
    unknown = [v for v in versions if not isinstance(v, int) or v not in known_versions]
    if unknown:
        newest = max((v for v in unknown if isinstance(v, int)), default=None)
        raise BadBackup(f"{entry} has schema version {newest if newest is not None else 'unknown'}, which this"
                        f" Reelhouse does not know (it knows up to {max(known_versions, default=0)}).")


def seal(candidate: Path) -> None:
    """One file, written through: the rollback journal (the server turns WAL back on when it opens it)."""
    conn = sqlite3.connect(candidate, timeout=0)
    try:
        mode = conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]
    finally:
        conn.close()
    if str(mode).lower() != "delete" or any(Path(f"{candidate}{s}").exists() for s in SIDE_FILES):
        raise OSError(f"the restored database could not be made one file (journal mode {mode})")
    _fsync(candidate)


def swap_in(candidate: Path, database: Path, stamp: str) -> Path | None:
    """Put ``candidate`` at ``database``; the previous one (if any) stays as a dated file beside it."""
    _checkpoint(database)
    kept = _free_name(database.with_name(f"{database.name}{KEPT_INFIX}{stamp}"))
    had_database = database.exists()
    if had_database:
        _link_or_copy(database, kept)  # the old stays at its name until the new one takes it
    for suffix in SIDE_FILES:  # never leave the old WAL for the new file to replay
        side = Path(f"{database}{suffix}")
        if side.exists():
            os.replace(side, f"{kept}{suffix}")
    os.replace(candidate, database)
    _fsync(database.parent)
    return kept if had_database else None


def one_line(text: str) -> str:
    """``text`` safe for one line of a terminal: control characters shown as escapes, at most 200 characters."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)[:200]


def _checkpoint(database: Path) -> None:
    """Best effort: the old database's WAL folded into its file, so the kept file is whole by itself."""
    if not database.exists():
        return
    try:
        conn = sqlite3.connect(database, timeout=CHECKPOINT_TIMEOUT_S)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("PRAGMA journal_mode=DELETE")
        finally:
            conn.close()
    except sqlite3.Error:
        pass  # damaged or not a database: its -wal/-shm, if any, move with it


def _free_name(path: Path) -> Path:
    candidate, n = path, 1
    while any(Path(f"{candidate}{s}").exists() for s in ("", *SIDE_FILES)):
        candidate, n = path.with_name(f"{path.name}-{n}"), n + 1
    return candidate


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # a filesystem without hard links
        shutil.copy2(source, target)
        _fsync(target)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
