"""A backup restored from the console, over real HTTP on both backends: asked for while the server
runs (its manifest checked at once), done when the server next starts, and said on the page."""

from __future__ import annotations

import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from reelhouse.storage._open import parse_database_url

from ..conftest import RunningServer, start_server
from .console import signed_in


@pytest.fixture
async def kept_schemas_dropped(database_url: str) -> AsyncIterator[None]:
    """PostgreSQL: the schema a restore keeps (``<schema>_before_restore_<time>``) is dropped afterwards."""
    yield
    target = parse_database_url(database_url)
    if target.backend != "postgresql":
        return
    like = f"SELECT nspname FROM pg_namespace WHERE nspname LIKE '{target.schema}_before_restore_%'"
    for kept in await _psql(target.location, like):
        await _psql(target.location, f'DROP SCHEMA "{kept}" CASCADE')


async def _psql(dsn: str, sql: str) -> list[str]:
    done = await trio.run_process(["psql", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql, dsn], capture_stdout=True)
    return done.stdout.decode().split()


@pytest.mark.usefixtures("kept_schemas_dropped")
@pytest.mark.long
async def test_a_restore_asked_from_the_console_is_done_at_the_next_start_and_said_on_the_page(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    with trio.fail_after(240):
        first = await start_server(nursery, database_url, data_dir)
        async with signed_in(first, "Root", admin=True) as root:
            made = (await root.post("/web/admin/backups")).json()["name"]
            await root.post("/web/admin/members", json={"name": "Later"})  # after the backup: gone once restored
            unknown = await root.post("/web/admin/backups/reelhouse-backup-nothing.zip/restore")
            asked = await root.post(f"/web/admin/backups/{made}/restore")
            again = await root.post(f"/web/admin/backups/{made}/restore")
            withdrawn = await root.delete("/web/admin/backups/restore")
            none_left = await root.delete("/web/admin/backups/restore")
            await root.post(f"/web/admin/backups/{made}/restore")
            waiting = (await root.get("/web/admin/backups/list")).json()
        first.shutdown.set()
        await first.stopped.wait()
        second = await start_server(nursery, database_url, data_dir)
        async with signed_in(second, "Root", new=False) as root:
            names = [user["name"] for user in (await root.get("/web/admin/api/users")).json()]
            after = (await root.get("/web/admin/backups/list")).json()
        second.shutdown.set()
    assert unknown.status_code == 404
    assert asked.status_code == 202 and asked.json()["pendingRestore"] == made
    assert again.status_code == 409 and again.json()["code"] == "backup_restore_pending"
    assert (withdrawn.status_code, none_left.status_code) == (204, 404)
    assert waiting["pendingRestore"] == made and waiting["lastRestore"] is None
    assert names == ["Root"]  # the database as it was backed up
    assert after["pendingRestore"] is None
    assert after["lastRestore"]["ok"] is True and after["lastRestore"]["name"] == made, after


async def test_an_archive_that_is_not_a_backup_for_this_database_is_refused_when_asked(
    server: RunningServer,
) -> None:
    with trio.fail_after(60):
        backups = server.data_dir / "backups"
        backups.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(backups / "reelhouse-backup-20260101T000000000Z.zip", "w") as fake:
            fake.writestr("manifest.json", '{"format": 1, "backend": "elsewhere"}')
        async with signed_in(server, "Root", admin=True) as root:
            refused = await root.post("/web/admin/backups/reelhouse-backup-20260101T000000000Z.zip/restore")
            listed = (await root.get("/web/admin/backups/list")).json()
    assert refused.status_code == 400 and refused.json()["params"]["field"] == "name"
    assert listed["pendingRestore"] is None


@pytest.mark.long
async def test_a_restore_that_fails_at_the_start_is_reported_once_and_the_server_starts_on_its_database(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    with trio.fail_after(240):
        first = await start_server(nursery, database_url, data_dir)
        async with signed_in(first, "Root", admin=True) as root:
            made = (await root.post("/web/admin/backups")).json()["name"]
            await root.post("/web/admin/members", json={"name": "Later"})
            asked = await root.post(f"/web/admin/backups/{made}/restore")
        first.shutdown.set()
        await first.stopped.wait()
        (data_dir / "backups" / made).unlink()  # gone before the start that would restore it
        second = await start_server(nursery, database_url, data_dir)
        async with signed_in(second, "Root", new=False) as root:
            names = [user["name"] for user in (await root.get("/web/admin/api/users")).json()]
            after = (await root.get("/web/admin/backups/list")).json()
        second.shutdown.set()
    assert asked.status_code == 202
    assert names == ["Later", "Root"]  # the database it had
    assert after["pendingRestore"] is None  # never tried again at every start
    assert after["lastRestore"]["ok"] is False and "no longer in the backups folder" in after["lastRestore"]["message"]
