"""restore_backup on both backends: the backup replaces the live database only once it has been checked, the old one kept."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import trio

from reelhouse.storage import migrate, open_store
from reelhouse.storage._migrations import applied_versions, load_migrations
from reelhouse.storage._open import parse_database_url
from reelhouse.storage.backup_archive import BadBackup
from reelhouse.storage.backup_restore import restore_backup

from ..backup_samples import NEWEST, changed, entries_of, item_names, live_database, real_backup

LIVE = ["Arrival", "Heat"]
LIMIT = 1 << 30
POSTGRESQL = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)


@pytest.fixture
async def good(tmp_path: Path, database_url: str) -> AsyncIterator[Path]:
    """A backup of the database holding Dune; the live database then holds Arrival and Heat instead.

    PostgreSQL: the schemas a restore kept are dropped afterwards (the fixture drops only its own).
    """
    await live_database(database_url, ["Dune"])
    backup = await real_backup(database_url, tmp_path / "data")
    await _replace_live(database_url)
    yield backup
    target = parse_database_url(database_url)
    if target.backend == "postgresql":
        for kept in await _schemas_like(database_url):
            if kept != target.schema:
                await _sql(database_url, f'DROP SCHEMA "{kept}" CASCADE')


async def _replace_live(database_url: str) -> None:
    """The database emptied, then holding Arrival and Heat."""
    await _wipe(database_url)
    await live_database(database_url, LIVE)


async def _wipe(database_url: str) -> None:
    target = parse_database_url(database_url)
    if target.backend == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target.location}{suffix}").unlink(missing_ok=True)
    else:
        await _sql(database_url, f'DROP SCHEMA "{target.schema}" CASCADE')


async def _sql(database_url: str, sql: str) -> list[str]:
    """One value a row (psql: the tests' PostgreSQL is reached the way the restore reaches it)."""
    done = await trio.run_process(["psql", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql,
                                   parse_database_url(database_url).location], capture_stdout=True)
    return done.stdout.decode().splitlines()


async def _schemas_like(database_url: str) -> list[str]:
    schema = parse_database_url(database_url).schema
    rows = await _sql(database_url, f"SELECT nspname FROM pg_namespace WHERE nspname LIKE '{schema}%' ORDER BY 1")
    return rows


def _dump_with(good: Path, tmp_path: Path, extra: bytes) -> Path:
    dump = entries_of(good)["database.sql"]
    return changed(good, tmp_path / "bad.zip", database_sql=dump + b"\n" + extra + b"\n")


async def _restore(archive: Path, database_url: str, tmp_path: Path, limit: int = LIMIT) -> str | None:
    with trio.fail_after(120):
        return (await restore_backup(archive, database_url, tmp_path / "data", max_bytes=limit)).kept


async def _refused(archive: Path, database_url: str, tmp_path: Path, match: str) -> None:
    """PostgreSQL: refused, the live schema as it was and no other schema left."""
    with pytest.raises(BadBackup, match=match):
        await _restore(archive, database_url, tmp_path)
    assert await item_names(database_url) == LIVE
    assert await _schemas_like(database_url) == [parse_database_url(database_url).schema]


async def test_a_backup_replaces_the_live_database_and_the_old_one_is_kept(tmp_path: Path, database_url: str,
                                                                          good: Path) -> None:
    kept = await _restore(good, database_url, tmp_path)
    assert await item_names(database_url) == ["Dune"]
    assert kept is not None
    if database_url.startswith("sqlite"):
        assert await item_names(f"sqlite:///{kept}") == LIVE
    else:
        schema = parse_database_url(database_url).schema
        assert kept.startswith(f"{schema}_before_restore_")
        assert sorted(await _sql(database_url, f'SELECT name FROM "{kept}".items')) == LIVE
        assert await _schemas_like(database_url) == sorted([schema, kept])


async def test_a_backup_from_an_older_schema_is_migrated_as_it_is_restored(tmp_path: Path, database_url: str,
                                                                          good: Path) -> None:
    await _wipe(database_url)
    async with open_store(database_url) as store:
        await migrate(store, up_to=NEWEST - 1)
    older = await real_backup(database_url, tmp_path / "older")
    await _replace_live(database_url)
    await _restore(older, database_url, tmp_path)
    async with open_store(database_url) as store:
        assert await applied_versions(store) == {m.version for m in load_migrations()}
        assert await store.fetch_all("SELECT name FROM items") == []


async def test_a_zip_bomb_is_refused_at_the_limit_on_both_backends(tmp_path: Path, database_url: str,
                                                                   good: Path) -> None:
    name = "database_sqlite" if database_url.startswith("sqlite") else "database_sql"
    bomb = changed(good, tmp_path / "bomb.zip", **{name: bytes(8 << 20)})
    with pytest.raises(BadBackup, match="restore limit"):
        await _restore(bomb, database_url, tmp_path, limit=1 << 20)
    assert await item_names(database_url) == LIVE


@POSTGRESQL
async def test_a_dump_that_fails_halfway_leaves_the_live_schema_as_it_was(tmp_path: Path, database_url: str,
                                                                          good: Path) -> None:
    dump = entries_of(good)["database.sql"]
    truncated = changed(good, tmp_path / "cut.zip", database_sql=dump[: len(dump) * 2 // 3])
    garbage = changed(good, tmp_path / "junk.zip", database_sql=b"this is not SQL;\n")
    complete_garbage = changed(good, tmp_path / "junk2.zip",
                               database_sql=b"this is not SQL;\n-- PostgreSQL database dump complete\n")
    for archive in (truncated, garbage, complete_garbage):
        await _refused(archive, database_url, tmp_path, "nothing was changed")


def _versions_edited(good: Path, tmp_path: Path, database_url: str, edit: Callable[[bytes], bytes]) -> Path:
    """``good`` with the rows of its dump's schema_migrations data (the COPY block) passed through ``edit``."""
    schema = parse_database_url(database_url).schema
    dump = entries_of(good)["database.sql"]
    head, rest = dump.split(f"COPY {schema}.schema_migrations (version, name, applied_at) FROM stdin;\n".encode())
    rows, tail = rest.split(b"\\.\n", 1)
    edited = head + f"COPY {schema}.schema_migrations (version, name, applied_at) FROM stdin;\n".encode()
    return changed(good, tmp_path / "edited.zip", database_sql=edited + edit(rows) + b"\\.\n" + tail)


@POSTGRESQL
async def test_a_dump_from_a_newer_schema_is_refused_before_the_live_schema_changes(
        tmp_path: Path, database_url: str, good: Path) -> None:
    newer = _versions_edited(good, tmp_path, database_url, lambda rows: rows + b"9999\tfuture\t0\n")
    await _refused(newer, database_url, tmp_path, "9999.*does not know")


@POSTGRESQL
async def test_a_dump_whose_versions_differ_from_its_data_is_refused(tmp_path: Path, database_url: str,
                                                                    good: Path) -> None:
    schema = parse_database_url(database_url).schema
    lying = _dump_with(good, tmp_path, f"INSERT INTO {schema}.schema_migrations VALUES (9999, 'future', 0);".encode())
    await _refused(lying, database_url, tmp_path, "does not hold the versions.*nothing was changed")


@POSTGRESQL
async def test_a_dump_cannot_run_a_shell_command(tmp_path: Path, database_url: str, good: Path) -> None:
    marker = tmp_path / "ran"
    hostile = _dump_with(good, tmp_path, f"\\! touch {marker}".encode())
    await _refused(hostile, database_url, tmp_path, "restricted.*nothing was changed")
    assert not marker.exists()


@POSTGRESQL
async def test_a_dump_its_migrations_cannot_run_on_is_refused_before_the_live_schema_changes(
        tmp_path: Path, database_url: str, good: Path) -> None:
    # Its data says the newest migration is missing, but its tables have it: migrating fails in the transaction.
    stuck = _versions_edited(good, tmp_path, database_url,
                             lambda rows: b"".join(r for r in rows.splitlines(keepends=True)
                                                   if not r.startswith(f"{NEWEST}\t".encode())))
    await _refused(stuck, database_url, tmp_path, "cannot be migrated.*nothing was changed")


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_old_databases_wal_moves_with_it_and_is_never_replayed_onto_the_restored_one(
        tmp_path: Path, database_url: str, good: Path) -> None:
    live = Path(parse_database_url(database_url).location)
    crashed = tmp_path / "crashed"  # a copy taken while a writer held rows only in its WAL
    crashed.mkdir()
    conn = sqlite3.connect(live)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE wal_probe (note TEXT)")
    conn.execute("INSERT INTO wal_probe VALUES ('in the WAL only')")
    conn.commit()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{crashed / live.name}{suffix}").write_bytes(Path(f"{live}{suffix}").read_bytes())
    conn.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{live}{suffix}").unlink(missing_ok=True)
        Path(f"{live}{suffix}").write_bytes(Path(f"{crashed / live.name}{suffix}").read_bytes())
    assert Path(f"{live}-wal").stat().st_size > 0
    kept = await _restore(good, database_url, tmp_path)
    assert await item_names(database_url) == ["Dune"]
    assert await item_names(f"sqlite:///{kept}") == LIVE
    assert _probe(kept) == [("in the WAL only",)]
    assert _probe(live) is None  # the old WAL was not replayed onto the new file


def _probe(database: Path | str) -> list[tuple[str]] | None:
    conn = sqlite3.connect(database)
    try:
        return conn.execute("SELECT note FROM wal_probe").fetchall()
    except sqlite3.OperationalError:
        return None
    finally:
        conn.close()
