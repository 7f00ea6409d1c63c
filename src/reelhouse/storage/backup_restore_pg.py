"""A restored PostgreSQL dump: loaded and checked in one transaction beside the live schema, the old one kept.

``psql`` runs, in one transaction (``--single-transaction``, stop at the first error):

1. the live schema renamed ``<schema>_before_restore_<time>`` (kept),
2. the dump (``database.sql``, bounded like every entry), which creates the
   schema it was made from again, under its own name,
3. a check: that schema has ``schema_migrations`` and every version in it
   is one this build knows.

Any error rolls all three back: the live schema is as it was. Only then is
the restored schema migrated by this build; if that fails, one transaction
drops it and gives the kept schema its name back. Renaming, not loading
into a scratch name, because the dump names its schema in every statement
and its trigger functions keep that name as their ``search_path``.

``psql`` runs in restricted mode (``\\restrict`` with a key the dump cannot
know): a backslash command in the dump (``\\!`` runs a shell command) is
refused. The dump's own ``\\restrict``/``\\unrestrict`` pair (newer
``pg_dump``) is dropped as it is copied out. The dump is still SQL run with
the configured role's rights: these rules stop a damaged, truncated, foreign
or newer dump, not hostile SQL from someone who could write the backup.
"""

from __future__ import annotations

import re
import secrets
import shutil
from collections import deque
from pathlib import Path

import trio

from ._migrations import migration_failure
from ._open import DatabaseTarget
from .backup_archive import BackupArchive, BadBackup, Manifest
from .backup_restore_sqlite import one_line
from .backups import BackupError, run_tool

_RESTRICT = re.compile(rb"^\\(un)?restrict ([A-Za-z0-9]+)\r?\n?$")
_DUMP_COMPLETE = b"-- PostgreSQL database dump complete"
_PSQL_ERROR = re.compile(r"^psql:(?P<file>.*?):\d+: (?:ERROR|error|FATAL):\s*(?P<text>.*)$")


async def restore_postgres(archive: BackupArchive, manifest: Manifest, target: DatabaseTarget, work: Path,
                           known_versions: set[int], stamp: str) -> str | None:
    """Load the dump in place of the live schema; returns the name the old schema is kept under (if any)."""
    if manifest.schema != target.schema:
        raise BadBackup(f"{archive.path.name} was made from schema {manifest.schema or 'public'};"
                        f" restore it into that schema.")
    psql = shutil.which("psql")
    if psql is None:
        raise BackupError("psql is not installed: restoring a PostgreSQL backup needs it.")
    schema = target.schema or "public"
    dump = work / manifest.database
    await trio.to_thread.run_sync(copy_dump, archive, manifest.database, dump)
    exists = await trio.to_thread.run_sync(_psql, psql, target.location,
                                           f"SELECT 1 FROM pg_namespace WHERE nspname = '{schema}'")
    kept = f"{schema}_before_restore_{stamp.lower()}" if exists.strip() else None
    await trio.to_thread.run_sync(_load, psql, target.location, work, dump, schema, kept, known_versions)
    if (failure := await migration_failure(target.location, schema=target.schema)) is not None:
        await trio.to_thread.run_sync(_put_back, psql, target.location, schema, kept)
        raise BadBackup(f"{manifest.database} cannot be migrated ({one_line(failure)}); the previous schema is back.")
    return kept


def copy_dump(archive: BackupArchive, entry: str, target: Path) -> None:
    """Stream the dump out, without the ``\\restrict`` line of its header and the ``\\unrestrict`` that ends it.

    A dump cut short is refused here: psql would load its first part (a COPY
    ends at the end of the file) and leave the rest (indexes, constraints,
    triggers) missing without an error; pg_dump's last comment says it is whole.
    """
    key: bytes | None = None
    in_header = True
    tail: deque[bytes] = deque(maxlen=3)
    with open(target, "xb") as out:
        for line in archive.lines(entry, archive.max_bytes):
            match = _RESTRICT.match(line)
            if match and in_header and key is None and not match.group(1):
                key = match.group(2)
                continue
            if match and key is not None and match.group(1) and match.group(2) == key:
                continue
            if in_header and line.strip() and not line.startswith(b"--"):
                in_header = False
            if line.strip():
                tail.append(line.strip())
            out.write(line)
    if _DUMP_COMPLETE not in tail:
        raise BadBackup(f"{entry} is incomplete (it does not end as pg_dump ends a dump); nothing was changed.")


def _load(psql: str, dsn: str, work: Path, dump: Path, schema: str, kept: str | None,
          known_versions: set[int]) -> None:
    before, after = work / "before.sql", work / "check.sql"
    lines = [f"\\restrict {secrets.token_hex(24)}"]
    if kept is not None:
        lines.append(f'ALTER SCHEMA "{schema}" RENAME TO "{kept}";')
        if schema == "public":  # a whole-database dump expects public to be there
            lines.append("CREATE SCHEMA public;")
    before.write_text("\n".join(lines) + "\n", encoding="utf-8")
    after.write_text(_check_sql(schema, known_versions), encoding="utf-8")
    command = [psql, "--quiet", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--single-transaction",
               "-f", str(before), "-f", str(dump), "-f", str(after), dsn]
    try:
        run_tool(command, "psql")
    except BackupError as exc:
        found = _PSQL_ERROR.match(str(exc).removeprefix("psql failed: "))
        if found and Path(found["file"]) in (dump, after):
            raise BadBackup(f"{dump.name} could not be loaded ({one_line(found['text'])});"
                            f" nothing was changed.") from None
        raise


def _check_sql(schema: str, known_versions: set[int]) -> str:
    known = ",".join(str(v) for v in sorted(known_versions)) or "0"
    newest = max(known_versions, default=0)
    return f"""DO $reelhouse_check$
BEGIN
  IF to_regclass('"{schema}".schema_migrations') IS NULL THEN
    RAISE EXCEPTION 'it is not a Reelhouse database of schema {schema} (no schema_migrations)';
  END IF;
  IF EXISTS (SELECT 1 FROM "{schema}".schema_migrations WHERE NOT (version = ANY (ARRAY[{known}]))) THEN
    RAISE EXCEPTION 'it has a schema version this Reelhouse does not know (it knows up to {newest})';
  END IF;
END
$reelhouse_check$;
"""


def _put_back(psql: str, dsn: str, schema: str, kept: str | None) -> None:
    commands = ["-c", f'DROP SCHEMA "{schema}" CASCADE']
    if kept is not None:
        commands += ["-c", f'ALTER SCHEMA "{kept}" RENAME TO "{schema}"']
    run_tool([psql, "--quiet", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--single-transaction", *commands, dsn],
             "psql")


def _psql(psql: str, dsn: str, sql: str) -> str:
    return run_tool([psql, "-At", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "-c", sql, dsn], "psql")
