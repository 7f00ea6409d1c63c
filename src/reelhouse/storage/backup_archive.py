"""A backup archive read without trusting it: fixed entry names, bounded sizes, a checked manifest.

An archive may hold only the entries :func:`~reelhouse.storage.backups.create_backup`
writes (:data:`KNOWN_ENTRIES`): any other name (an absolute path,
``../x``, a folder, a duplicate) refuses the whole archive, and no name is
ever taken from the manifest as a path. An entry is copied out by
streaming it and counting the bytes it really inflates to, so a header
that understates its size (a zip bomb) is stopped at the limit, not after
the disk is full. Every way an archive can be wrong is a :class:`BadBackup`
with a one-line message.
"""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from .backups import FORMAT, BackupError

MANIFEST = "manifest.json"
DATABASE_ENTRIES = {"sqlite": "database.sqlite", "postgresql": "database.sql"}
SERVER_ID = "server-id"
KNOWN_ENTRIES = frozenset({MANIFEST, "settings.json", "config.toml", SERVER_ID, *DATABASE_ENTRIES.values()})
# Everything but the database is a few hundred bytes; 1 MiB is generous.
SMALL_ENTRY_MAX_BYTES = 1 << 20
CHUNK_BYTES = 1 << 20
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
# zipfile's ways of saying an entry cannot be read: damaged (CRC, inflate),
# encrypted (RuntimeError), an unsupported compression (NotImplementedError).
_READ_ERRORS = (OSError, EOFError, zlib.error, zipfile.BadZipFile, RuntimeError, NotImplementedError, ValueError)


class BadBackup(BackupError):
    """The archive is not a backup this build can restore; nothing was changed."""


@dataclass(frozen=True, slots=True)
class Manifest:
    backend: str
    database: str  # one of DATABASE_ENTRIES' fixed names
    schema: str | None
    schema_version: int
    created_at: str


class BackupArchive:
    """An opened backup zip whose names were checked; entries are read within ``max_bytes`` in total."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._inflated = 0
        self._per_entry: dict[str, int] = {}
        try:
            self._zip = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile, ValueError) as exc:
            raise BadBackup(f"{path.name} is not a Reelhouse backup"
                            f" (not a readable zip: {type(exc).__name__}).") from None
        try:
            self._check_names()
        except BadBackup:
            self._zip.close()
            raise

    def __enter__(self) -> BackupArchive:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._zip.close()

    def _check_names(self) -> None:
        names = self._zip.namelist()
        unknown = sorted({name for name in names if name not in KNOWN_ENTRIES})
        if unknown:
            raise BadBackup(f"{self.path.name} holds an entry a backup never has: {unknown[0]!r}.")
        if len(set(names)) != len(names):
            raise BadBackup(f"{self.path.name} holds an entry twice.")
        if MANIFEST not in names:
            raise BadBackup(f"{self.path.name} is not a Reelhouse backup (no {MANIFEST}).")
        declared = sum(info.file_size for info in self._zip.infolist())
        if declared > self.max_bytes:
            raise BadBackup(f"{self.path.name} is larger than the restore limit ({self.max_bytes} bytes).")

    def has(self, name: str) -> bool:
        return name in self._zip.namelist()

    def manifest(self, database_backend: str) -> Manifest:
        """The checked manifest; refused unless it is this format, for this backend."""
        try:
            raw = json.loads(b"".join(self.chunks(MANIFEST, SMALL_ENTRY_MAX_BYTES)))
        except (ValueError, UnicodeDecodeError):
            raise BadBackup(f"{self.path.name}: {MANIFEST} is not valid JSON.") from None
        return _parse_manifest(self.path.name, raw, database_backend, self.has)

    def chunks(self, name: str, limit: int) -> Iterator[bytes]:
        """The entry's bytes as they inflate; BadBackup past ``limit`` or the archive's total."""
        with self._open(name) as entry:
            while chunk := self._read(entry.read, CHUNK_BYTES):
                yield self._count(name, chunk, limit)

    def lines(self, name: str, limit: int) -> Iterator[bytes]:
        """The entry cut into lines (a line longer than a chunk comes in pieces), counted as :meth:`chunks`."""
        with self._open(name) as entry:
            while line := self._read(entry.readline, CHUNK_BYTES):
                yield self._count(name, line, limit)

    def copy(self, name: str, target: Path, limit: int) -> None:
        """Stream the entry into a new file ``target``."""
        with open(target, "xb") as out:
            for chunk in self.chunks(name, limit):
                out.write(chunk)

    def _open(self, name: str) -> IO[bytes]:
        if name not in KNOWN_ENTRIES:
            raise ValueError(f"not a backup entry: {name!r}")  # a bug here, never the archive's doing
        try:
            return self._zip.open(name)
        except KeyError:
            raise BadBackup(f"{self.path.name} has no {name}.") from None
        except _READ_ERRORS as exc:
            raise BadBackup(f"{self.path.name}: {name} cannot be read ({type(exc).__name__}).") from None

    def _read(self, read: Any, size: int) -> bytes:
        try:
            return bytes(read(size))
        except _READ_ERRORS as exc:
            raise BadBackup(f"{self.path.name} is damaged ({type(exc).__name__}).") from None

    def _count(self, name: str, data: bytes, limit: int) -> bytes:
        self._inflated += len(data)
        seen = self._per_entry[name] = self._per_entry.get(name, 0) + len(data)
        if seen > limit or self._inflated > self.max_bytes:
            raise BadBackup(f"{self.path.name}: {name} inflates past the restore limit"
                            f" ({min(limit, self.max_bytes)} bytes).")
        return data


def _parse_manifest(archive: str, raw: object, backend: str, has: Any) -> Manifest:
    if not isinstance(raw, dict):
        raise BadBackup(f"{archive}: {MANIFEST} is not a JSON object.")
    if _integer(raw.get("format")) != FORMAT:
        raise BadBackup(f"{archive} has an unknown backup format.")
    if raw.get("backend") not in DATABASE_ENTRIES:
        raise BadBackup(f"{archive} names an unknown database backend.")
    if raw["backend"] != backend:
        raise BadBackup(f"{archive} is a {raw['backend']} backup; the database is {backend}.")
    database = DATABASE_ENTRIES[backend]
    if raw.get("database") != database or not has(database):
        raise BadBackup(f"{archive}: the database must be the entry {database}.")
    version = _integer(raw.get("schemaVersion"))
    if version is None or version < 0:
        raise BadBackup(f"{archive}: {MANIFEST} has no valid schemaVersion.")
    schema = raw.get("schema")
    if schema is not None and not (isinstance(schema, str) and _SCHEMA_NAME.match(schema)):
        raise BadBackup(f"{archive}: {MANIFEST} names an invalid schema.")
    created = raw.get("createdAt")
    if not isinstance(created, str) or not _is_time(created):
        raise BadBackup(f"{archive}: {MANIFEST} has no valid createdAt.")
    return Manifest(backend, database, schema, version, created)


def _integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _is_time(text: str) -> bool:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return text.isprintable() and len(text) <= 64
