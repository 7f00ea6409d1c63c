"""A restored PostgreSQL dump: loaded, checked and migrated in one transaction, the old schema kept.

``psql`` runs, in one transaction (``--single-transaction``, stopping at the first error):

1. the live schema renamed ``<schema>_before_restore_<time>`` (kept); for
   ``public``, our objects moved into a schema of that name instead, the
   extensions left where the whole-database dump names them (pg_trgm),
2. the dump (``database.sql``, bounded like every entry), which creates the
   schema it was made from again, under its own name,
3. a check: that schema has ``schema_migrations``, holding exactly the
   versions the dump's data named (all known to this build: checked before
   psql starts),
4. this build's migrations the dump lacks, each recording itself.

Any error rolls all of it back: the live schema is as it was. Renaming the
live schema, rather than loading into a scratch name, because the dump
names its schema in every statement and its trigger functions keep that
name as their ``search_path``. A dump cut short is refused before it is
loaded (psql would load its first part without an error).

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
from dataclasses import dataclass
from pathlib import Path

import trio

from ._migrations import migration_script
from ._open import DatabaseTarget
from .backup_archive import BackupArchive, BadBackup, Manifest
from .backup_restore_sqlite import check_versions, one_line
from .backups import BackupError, run_tool

# A node heartbeats at most every 60 s ([cluster] heartbeat_seconds): one heard from within this runs.
NODE_HEARD_WITHIN_MS = 90_000
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
    await trio.to_thread.run_sync(_refuse_while_nodes_run, psql, target.location, schema)
    load = _Load(work / manifest.database, work / "before.sql", work / "check.sql", work / "migrate.sql")
    versions = await trio.to_thread.run_sync(copy_dump, archive, manifest.database, load.dump, schema)
    check_versions(set(versions), known_versions, manifest.database)
    exists = await trio.to_thread.run_sync(_psql, psql, target.location,
                                           f"SELECT 1 FROM pg_namespace WHERE nspname = '{schema}'")
    kept = f"{schema}_before_restore_{stamp.lower()}" if exists.strip() else None
    load.write(schema, kept, versions)
    await trio.to_thread.run_sync(load.run, psql, target.location)
    return kept


class _DumpLines:
    """What :func:`copy_dump` notes while the dump streams past, and which lines it keeps."""

    def __init__(self, schema: str) -> None:
        self._copy_versions = re.compile(
            rb'^COPY "?' + schema.encode() + rb'"?\.schema_migrations \(version, name, applied_at\) FROM stdin;$')
        self.key: bytes | None = None
        self.in_header = True
        self.in_versions = False
        self.versions: list[int] = []
        self.tail: deque[bytes] = deque(maxlen=3)

    def keep(self, line: bytes) -> bool:
        match = _RESTRICT.match(line)
        if match and self.in_header and self.key is None and not match.group(1):
            self.key = match.group(2)
            return False
        if match and self.key is not None and match.group(1) and match.group(2) == self.key:
            return False
        text = line.strip()
        if self.in_header and text and not text.startswith(b"--"):
            self.in_header = False
        if self.in_versions and text != b"\\.":
            self.versions.append(_version(text))
        self.in_versions = bool(self._copy_versions.match(text)) or (self.in_versions and text != b"\\.")
        if text:
            self.tail.append(text)
        return True


def copy_dump(archive: BackupArchive, entry: str, target: Path, schema: str) -> list[int]:
    """Stream the dump out without its own ``\\restrict`` pair; the versions its schema_migrations data names.

    A dump cut short is refused here: psql would load its first part (a COPY
    ends at the end of the file) and leave the rest (indexes, constraints,
    triggers) missing without an error; pg_dump's last comment says it is whole.
    """
    seen = _DumpLines(schema)
    with open(target, "xb") as out:
        for line in archive.lines(entry, archive.max_bytes):
            if seen.keep(line):
                out.write(line)
    if _DUMP_COMPLETE not in seen.tail:
        raise BadBackup(f"{entry} is incomplete (it does not end as pg_dump ends a dump); nothing was changed.")
    return sorted(seen.versions)


def _version(row: bytes) -> int:
    try:
        return int(row.split(b"\t", 1)[0])
    except ValueError:
        return -1  # not a version: the check in the transaction refuses it


@dataclass(frozen=True, slots=True)
class _Load:
    """The files psql runs, in order, in one transaction."""

    dump: Path
    before: Path
    check: Path
    migrate: Path

    def write(self, schema: str, kept: str | None, versions: list[int]) -> None:
        lines = [f"\\restrict {secrets.token_hex(24)}"]
        if kept is not None and schema == "public":
            lines.append(f'CREATE SCHEMA "{kept}";')
            lines.append(_MOVE_OUT_OF_PUBLIC.replace("KEPT", kept))
        elif kept is not None:
            lines.append(f'ALTER SCHEMA "{schema}" RENAME TO "{kept}";')
        self.before.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.check.write_text(_check_sql(schema, versions), encoding="utf-8")
        script = migration_script("postgresql", set(versions))
        self.migrate.write_text(f'SET LOCAL search_path TO "{schema}";\n{script}', encoding="utf-8")

    def run(self, psql: str, dsn: str) -> None:
        files = [self.before, self.dump, self.check, self.migrate]
        command = [psql, "--quiet", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--single-transaction",
                   *(arg for path in files for arg in ("-f", str(path))), dsn]
        try:
            run_tool(command, "psql")
        except BackupError as exc:
            found = _PSQL_ERROR.match(str(exc).removeprefix("psql failed: "))
            if found is None or Path(found["file"]) not in files[1:]:
                raise
            did = "cannot be migrated" if Path(found["file"]) == self.migrate else "could not be loaded"
            raise BadBackup(f"{self.dump.name} {did} ({one_line(found['text'])}); nothing was changed.") from None


# public is not renamed: the extensions in it (pg_trgm, whose operator classes
# the dump's search indexes name as public.gin_trgm_ops) would go along, and
# the database's role may not move them (a trusted extension's objects belong
# to the superuser). Our own tables (with their indexes, triggers and owned
# sequences), other sequences, views and functions move to the kept schema;
# what belongs to an extension stays.
_MOVE_OUT_OF_PUBLIC = """DO $reelhouse_move$
DECLARE
  found record;
BEGIN
  FOR found IN
    SELECT c.relname, CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                                     WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END AS kind
    FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                        AND (d.deptype = 'e' OR (c.relkind = 'S' AND d.deptype IN ('a', 'i'))))
  LOOP
    EXECUTE format('ALTER %s public.%I SET SCHEMA %I', found.kind, found.relname, 'KEPT');
  END LOOP;
  FOR found IN
    SELECT p.oid::regprocedure AS routine FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                        AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER ROUTINE %s SET SCHEMA %I', found.routine, 'KEPT');
  END LOOP;
END
$reelhouse_move$;"""


def _check_sql(schema: str, versions: list[int]) -> str:
    listed = ",".join(str(v) for v in versions)
    return f"""DO $reelhouse_check$
BEGIN
  IF to_regclass('"{schema}".schema_migrations') IS NULL THEN
    RAISE EXCEPTION 'it is not a Reelhouse database of schema {schema} (no schema_migrations)';
  END IF;
  IF (SELECT coalesce(array_agg(version ORDER BY version), '{{}}') FROM "{schema}".schema_migrations)
      IS DISTINCT FROM ARRAY[{listed}]::integer[] THEN
    RAISE EXCEPTION 'its schema_migrations does not hold the versions its data names';
  END IF;
END
$reelhouse_check$;
"""


def _refuse_while_nodes_run(psql: str, dsn: str, schema: str) -> None:
    """BackupError while another server (a cluster node) was heard from on this database lately.

    The restore replaces the schema the running nodes read and write; the
    command line's server lock covers this folder's server only. A node
    stopped gracefully leaves the node list; a killed one is heard from no
    more and stops counting after :data:`NODE_HEARD_WITHIN_MS`.
    """
    table = f"{schema}.cluster_nodes"
    if _psql(psql, dsn, f"SELECT to_regclass('{table}') IS NOT NULL").strip() != "t":
        return  # no cluster table yet: nothing ever ran here as a node
    since = f"CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) - {NODE_HEARD_WITHIN_MS}"
    running = _psql(psql, dsn, f"SELECT coalesce(nullif(address, ''), id) FROM {table}"
                               f" WHERE heartbeat_at >= {since} ORDER BY 1")
    if addresses := running.splitlines():
        raise BackupError(f"{len(addresses)} server(s) still run on this database ({', '.join(addresses)}):"
                          " stop every server using it, then restore.")


def _psql(psql: str, dsn: str, sql: str) -> str:
    return run_tool([psql, "-At", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "-c", sql, dsn], "psql")
