"""``reelhouse backup restore`` as a real process: a hostile or broken archive is one line, exit 2, nothing changed."""

from __future__ import annotations

import sqlite3
import subprocess
import time
import zipfile
from pathlib import Path

import psycopg
import pytest
import trio

from reelhouse.storage import open_store

from .backup_samples import changed, entries_of, item_names, live_database, manifest_of, real_backup, write_archive
from .server_process import clean_environ, run_cli
from .throwaway_postgres import ThrowawayPostgres

LIVE = ["Arrival", "Heat"]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def url(data_dir: Path) -> str:
    return f"sqlite:///{data_dir / 'reelhouse.db'}"


@pytest.fixture
async def good(tmp_path: Path, data_dir: Path, url: str) -> Path:
    """A real backup of a database holding Dune; the live database then holds Arrival and Heat."""
    made_from = f"sqlite:///{tmp_path / 'source.db'}"
    await live_database(made_from, ["Dune"])
    backup = await real_backup(made_from, tmp_path / "source-data")
    await live_database(url, LIVE)
    return backup


async def restore(data_dir: Path, url: str, archive: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    return await run_cli(["--data-dir", str(data_dir), "--database", url, "backup", "restore", str(archive)],
                         env=clean_environ(**env))


async def refused(data_dir: Path, url: str, archive: Path, **env: str) -> str:
    """Restore ``archive``: exit 2, one line, the live database untouched and nothing left behind."""
    done = await restore(data_dir, url, archive, **env)
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr.decode()
    assert await item_names(url) == LIVE
    assert not [p.name for p in data_dir.iterdir() if "restore" in p.name]
    return lines[0]


async def test_restore_refuses_a_file_that_is_not_a_zip(tmp_path: Path, data_dir: Path, url: str,
                                                        good: Path) -> None:
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip at all" * 100)
    assert "not a Reelhouse backup" in await refused(data_dir, url, junk)


async def test_restore_refuses_an_archive_without_a_manifest(tmp_path: Path, data_dir: Path, url: str,
                                                             good: Path) -> None:
    archive = changed(good, tmp_path / "bad.zip", drop=["manifest.json"])
    assert "manifest.json" in await refused(data_dir, url, archive)


@pytest.mark.parametrize("text", [b"{not json", b"[1, 2]", b'"a string"', b"\xff\xfe"])
async def test_restore_refuses_a_manifest_that_is_not_a_json_object(tmp_path: Path, data_dir: Path, url: str,
                                                                     good: Path, text: bytes) -> None:
    archive = changed(good, tmp_path / "bad.zip", manifest_json=text)
    assert "manifest.json" in await refused(data_dir, url, archive)


async def test_restore_refuses_an_unknown_format_or_another_backend(tmp_path: Path, data_dir: Path, url: str,
                                                                    good: Path) -> None:
    for fields, said in (({"format": 2}, "format"), ({"format": "1"}, "format"),
                         ({"backend": "postgresql"}, "postgresql backup"), ({"backend": "mysql"}, "backend")):
        archive = changed(good, tmp_path / "bad.zip", manifest_json=manifest_of(good, **fields))
        assert said in await refused(data_dir, url, archive)


async def test_restore_refuses_an_entry_it_never_writes(tmp_path: Path, data_dir: Path, url: str,
                                                        good: Path) -> None:
    for name in ("notes.txt", "../../escaped.db", "/tmp/absolute.db", "backups/", "database.sqlite/x"):
        archive = write_archive(tmp_path / "bad.zip", {**entries_of(good), name: b"x"})
        assert "never has" in await refused(data_dir, url, archive)
    assert not (tmp_path.parent / "escaped.db").exists()


async def test_restore_never_takes_the_database_path_from_the_manifest(tmp_path: Path, data_dir: Path, url: str,
                                                                      good: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    for named in (str(victim), "../../victim.txt", "../victim.txt", "settings.json"):
        archive = changed(good, tmp_path / "bad.zip", manifest_json=manifest_of(good, database=named))
        assert "database.sqlite" in await refused(data_dir, url, archive)
    assert victim.read_text() == "keep me"


async def test_restore_refuses_a_zip_bomb_past_the_limit(tmp_path: Path, data_dir: Path, url: str,
                                                         good: Path) -> None:
    bomb = changed(good, tmp_path / "bomb.zip", database_sqlite=bytes(8 << 20))  # 8 MiB of zeros: ~8 KiB
    assert bomb.stat().st_size < 100_000
    line = await refused(data_dir, url, bomb, REELHOUSE_SCHEDULE__RESTORE_MAX_BYTES=str(1 << 20))
    assert "restore limit" in line


async def test_restore_refuses_a_manifest_that_inflates_past_its_limit(tmp_path: Path, data_dir: Path, url: str,
                                                                       good: Path) -> None:
    padded = manifest_of(good) + b" " * (2 << 20)  # valid JSON, but 2 MiB: over a small entry's limit
    assert "restore limit" in await refused(data_dir, url, changed(good, tmp_path / "b.zip", manifest_json=padded))


async def test_restore_refuses_an_entry_whose_header_understates_its_size(tmp_path: Path, data_dir: Path,
                                                                          url: str, good: Path) -> None:
    archive = changed(good, tmp_path / "liar.zip", database_sqlite=bytes(4 << 20))
    raw = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as opened:
        info = opened.getinfo("database.sqlite")
    real = (4 << 20).to_bytes(4, "little")
    fake = (4096).to_bytes(4, "little")
    assert raw.count(real) >= 2  # the local header and the central directory both declare it
    archive.write_bytes(bytes(raw).replace(real, fake))
    with zipfile.ZipFile(archive) as opened:
        assert opened.getinfo("database.sqlite").file_size == 4096 != info.file_size
    assert "damaged" in await refused(data_dir, url, archive)


async def test_restore_refuses_a_database_that_is_not_sqlite(tmp_path: Path, data_dir: Path, url: str,
                                                             good: Path) -> None:
    archive = changed(good, tmp_path / "bad.zip", database_sqlite=b"#!/bin/sh\necho not a database\n" * 50)
    assert "not an SQLite database" in await refused(data_dir, url, archive)


async def test_restore_refuses_a_damaged_sqlite_database(tmp_path: Path, data_dir: Path, url: str,
                                                         good: Path) -> None:
    database = bytearray(entries_of(good)["database.sqlite"])
    page = 4096
    for offset in range(2 * page, len(database) - page, page):  # every page but the header's: garbage
        database[offset + 8: offset + 64] = b"\xa5" * 56
    archive = changed(good, tmp_path / "bad.zip", database_sqlite=bytes(database))
    assert "damaged" in await refused(data_dir, url, archive)


def _sqlite_with(tmp_path: Path, good: Path, sql: str) -> bytes:
    path = tmp_path / "edited.db"
    path.unlink(missing_ok=True)
    path.write_bytes(entries_of(good)["database.sqlite"])
    conn = sqlite3.connect(path)
    conn.executescript(sql)
    conn.close()
    return path.read_bytes()


async def test_restore_refuses_a_database_with_a_newer_schema(tmp_path: Path, data_dir: Path, url: str,
                                                              good: Path) -> None:
    newer = _sqlite_with(tmp_path, good, "INSERT INTO schema_migrations VALUES (9999, 'future', 0)")
    archive = changed(good, tmp_path / "bad.zip", database_sqlite=newer)  # the manifest does not say so
    assert "9999" in await refused(data_dir, url, archive)
    claimed = changed(good, tmp_path / "bad.zip", manifest_json=manifest_of(good, schemaVersion=9999))
    assert "9999" in await refused(data_dir, url, claimed)


async def test_restore_refuses_a_database_its_migrations_cannot_run_on(tmp_path: Path, data_dir: Path, url: str,
                                                                       good: Path) -> None:
    # The newest migration adds a column the database already has: it fails on the copy, not on the live file.
    from .backup_samples import NEWEST
    stuck = _sqlite_with(tmp_path, good, f"DELETE FROM schema_migrations WHERE version = {NEWEST}")
    archive = changed(good, tmp_path / "bad.zip", database_sqlite=stuck)
    assert "cannot be migrated" in await refused(data_dir, url, archive)


async def test_restore_keeps_the_previous_database_beside_the_restored_one(data_dir: Path, url: str,
                                                                           good: Path) -> None:
    done = await restore(data_dir, url, good)
    assert done.returncode == 0, done.stderr.decode()
    assert await item_names(url) == ["Dune"]
    [kept] = data_dir.glob("reelhouse.db.before-restore-*Z")
    assert kept.name in done.stdout.decode()
    assert await item_names(f"sqlite:///{kept}") == LIVE
    assert not list(data_dir.glob(".reelhouse-restore-*"))


async def test_restore_takes_a_backups_name_as_backup_list_prints_it(data_dir: Path, url: str, good: Path) -> None:
    listed = data_dir / "backups" / good.name
    listed.parent.mkdir(parents=True)
    good.rename(listed)
    done = await run_cli(["--data-dir", str(data_dir), "--database", url, "backup", "restore", listed.name],
                         env=clean_environ())
    assert done.returncode == 0, done.stderr.decode()
    assert await item_names(url) == ["Dune"]


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_restore_answers_a_dump_cut_short_with_one_line_and_exit_2(tmp_path: Path, database_url: str) -> None:
    await live_database(database_url, ["Dune"])
    backup = await real_backup(database_url, tmp_path / "made")
    dump = entries_of(backup)["database.sql"]
    cut = changed(backup, tmp_path / "cut.zip", database_sql=dump[: len(dump) // 2])
    done = await restore(tmp_path / "data", database_url, cut)
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "incomplete" in lines[0], done.stderr.decode()
    assert await item_names(database_url) == ["Dune"]


async def test_restore_on_postgresql_replaces_the_public_schema_of_a_database_of_its_own(
    tmp_path: Path, throwaway_postgres: ThrowawayPostgres
) -> None:
    # As the README sets a newcomer up: a role that is no superuser owns a database
    # of its own; no schema in the URL, so public, which also holds pg_trgm (the
    # search indexes' operator classes, owned by the superuser).
    def create_role_and_database() -> None:
        with psycopg.connect(throwaway_postgres.url, autocommit=True) as admin:
            admin.execute("CREATE ROLE newcomer LOGIN")
            admin.execute("CREATE DATABASE newcomer OWNER newcomer")

    await trio.to_thread.run_sync(create_role_and_database)
    url = throwaway_postgres.url.replace("root@", "newcomer@").replace("/postgres", "/newcomer")
    await live_database(url, ["Dune"])
    backup = await real_backup(url, tmp_path / "made")
    await live_database(url, ["Heat"])
    done = await restore(tmp_path / "data", url, backup)
    assert done.returncode == 0, done.stderr.decode()
    assert await item_names(url) == ["Dune"]
    kept = done.stdout.decode().rsplit(" ", 1)[-1].strip()
    async with open_store(url) as store:
        homes = await store.fetch_all("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n"
                                      " ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'")
        before = await store.fetch_all(f'SELECT name FROM "{kept}".items ORDER BY name')
    assert [row[0] for row in homes] in (["public"], [])  # [] where contrib is not installed
    assert [row[0] for row in before] == ["Dune", "Heat"]


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_restore_refuses_while_another_server_runs_on_the_postgresql_database(
    tmp_path: Path, database_url: str
) -> None:
    # The server lock covers this folder's server; a cluster node elsewhere would have its schema pulled away.
    await live_database(database_url, ["Dune"])
    backup = await real_backup(database_url, tmp_path / "made")
    async with open_store(database_url) as store:
        await live_database(database_url, ["Arrival"])
        await store.execute(
            "INSERT INTO cluster_nodes (id, address, started_at, heartbeat_at) VALUES (?, ?, ?, ?)",
            ("node-elsewhere", "http://10.0.0.7:8096", 0, int(time.time() * 1000)))  # heard from just now
    done = await restore(tmp_path / "data", database_url, backup)
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1 and "http://10.0.0.7:8096" in lines[0], done.stderr.decode()
    assert await item_names(database_url) == ["Arrival", "Dune"]  # untouched
