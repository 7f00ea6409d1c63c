"""``reelhouse schedule`` and ``reelhouse backup`` as real processes, beside a running server."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import trio

from .http.conftest import start_server
from .http.scanning import create_library, wait_for_state
from .media_factory import MediaFactory
from .server_process import run_cli


def db_args(data_dir: Path, database_url: str) -> list[str]:
    return ["--data-dir", str(data_dir), "--database", database_url]


@pytest.mark.parametrize("rule,code", [
    (["--cron", "0 0 L * *"], "schedule_cron_invalid"),
    (["--cron", "0 0 * * * 2026"], "schedule_cron_invalid"),
    (["--every", "299"], "schedule_interval_out_of_range"),
    (["--manual", "--window", "25:00-26:00"], "schedule_window_invalid"),
    (["--manual", "--after-scan"], "schedule_trigger_not_allowed"),
])
async def test_an_invalid_rule_prints_its_code_and_exits_2(tmp_path: Path, database_url: str, rule: list[str],
                                                           code: str) -> None:
    done = await run_cli([*db_args(tmp_path / "data", database_url), "schedule", "set", "backup", *rule])
    assert done.returncode == 2 and code.encode() in done.stderr and b"Traceback" not in done.stderr


async def test_an_unknown_task_fails_with_exit_1(tmp_path: Path, database_url: str) -> None:
    done = await run_cli([*db_args(tmp_path / "data", database_url), "schedule", "pause", "plugin.nothing"])
    assert done.returncode == 1 and b"plugin.nothing" in done.stderr


async def schedule_of(client: httpx.AsyncClient, task: str) -> dict[str, object]:
    listed = (await client.get("/admin/schedules")).json()
    return next(s for s in listed["schedules"] if s["task"] == task)


async def test_a_rule_set_from_the_command_line_takes_effect_in_the_running_server(
        nursery: trio.Nursery, tmp_path: Path, database_url: str) -> None:
    data_dir = tmp_path / "data"
    server = await start_server(nursery, database_url, data_dir, schedule={"reload_poll_seconds": 0.2})
    args = db_args(data_dir, database_url)
    async with server.client() as client:
        done = await run_cli([*args, "schedule", "set", "backup", "--cron", "15 1 * * 1-5", "--window", "01:00-02:00"])
        assert done.returncode == 0, done.stderr
        with trio.fail_after(10):
            while (backup := await schedule_of(client, "backup"))["isDefault"]:
                await trio.sleep(0.1)
        assert backup["rules"] == [{"trigger": "cron", "afterScan": False, "cron": "15 1 * * 1-5",
                                    "window": {"startMinute": 60, "endMinute": 120}}]
        assert (await run_cli([*args, "schedule", "pause", "cleanup"])).returncode == 0
        with trio.fail_after(10):
            while not (cleanup := await schedule_of(client, "cleanup"))["paused"]:
                await trio.sleep(0.1)
        assert "nextRunAt" not in cleanup
        assert (await run_cli([*args, "schedule", "reset", "backup"])).returncode == 0
        with trio.fail_after(10):
            while not (await schedule_of(client, "backup"))["isDefault"]:
                await trio.sleep(0.1)
    server.shutdown.set()


async def test_a_backup_made_while_serving_restores_into_a_fresh_data_dir_with_the_same_items(
        tmp_path: Path, media: MediaFactory) -> None:
    root = tmp_path / "films"
    for title in ("Heat (1995)", "Arrival (2016)"):
        media.video(root / title / f"{title}.mkv")
    source_dir, fresh_dir = tmp_path / "data", tmp_path / "fresh"
    source_db = f"sqlite:///{source_dir / 'reelhouse.db'}"
    fresh_db = f"sqlite:///{fresh_dir / 'reelhouse.db'}"
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            server = await start_server(nursery, source_db, source_dir)
            async with server.client() as client:
                library = await create_library(client, "Films", [root])
                await wait_for_state(client, library["id"])
                before = (await client.get("/items", params={"recursive": "true"})).json()
                run = await client.post("/admin/schedules/backup/run")  # the task, while serving
                assert run.status_code == 202
                with trio.fail_after(30):
                    while (job := next((j for j in (await client.get("/jobs")).json()
                                        if j["id"] == "task:backup"), {})).get("state") != "succeeded":
                        assert job.get("state") != "failed", job
                        await trio.sleep(0.05)
                assert job["kind"] == "backup" and job["messageCode"] == "backupDone"
                refused = await run_cli([*db_args(source_dir, source_db), "backup", "restore",
                                         str(next((source_dir / "backups").glob("*.zip")))])
            server.shutdown.set()
        assert refused.returncode == 1 and b"server" in refused.stderr
        listed = await run_cli([*db_args(source_dir, source_db), "backup", "list"])
        [line] = listed.stdout.decode().strip().splitlines()
        backup_file = source_dir / "backups" / line.split("\t")[0]
        restored = await run_cli([*db_args(fresh_dir, fresh_db), "backup", "restore", str(backup_file)])
        assert restored.returncode == 0, restored.stderr
        async with trio.open_nursery() as nursery:
            server = await start_server(nursery, fresh_db, fresh_dir)
            async with server.client() as client:
                after = (await client.get("/items", params={"recursive": "true"})).json()
            server.shutdown.set()
    names = sorted(item["name"] for item in before["items"])
    assert names == ["Arrival", "Heat"]
    assert sorted(item["name"] for item in after["items"]) == names
    assert [i["id"] for i in after["items"]] == [i["id"] for i in before["items"]]


@pytest.mark.long
async def test_backup_create_writes_a_database_copy_and_keeps_the_newest(tmp_path: Path, database_url: str) -> None:
    import zipfile

    data_dir = tmp_path / "data"
    env_args = db_args(data_dir, database_url)
    for _ in range(3):
        done = await run_cli([*env_args, "backup", "create"])
        assert done.returncode == 0, done.stderr
    listed = (await run_cli([*env_args, "backup", "list"])).stdout.decode().strip().splitlines()
    assert len(listed) == 3  # the default keeps 7
    with zipfile.ZipFile(data_dir / "backups" / listed[-1].split("\t")[0]) as archive:
        names = set(archive.namelist())
        manifest = archive.read("manifest.json").decode()
    database = "database.sqlite" if database_url.startswith("sqlite") else "database.sql"
    assert {database, "manifest.json", "settings.json"} <= names and '"schemaVersion"' in manifest


@pytest.mark.long
async def test_backup_restore_into_an_emptied_database_brings_the_items_back(tmp_path: Path,
                                                                             database_url: str) -> None:
    from reelhouse.storage import migrate, open_store
    from reelhouse.storage._open import parse_database_url

    from .catalog_factory import catalog

    data_dir = tmp_path / "data"
    async with open_store(database_url) as store:
        await migrate(store)
        async with catalog(store) as cat:
            library = cat.library("Films")
            for name in ("Heat", "Arrival", "Dune"):
                cat.movie(library, name)
    args = db_args(data_dir, database_url)
    assert (await run_cli([*args, "backup", "create"])).returncode == 0
    [line] = (await run_cli([*args, "backup", "list"])).stdout.decode().strip().splitlines()
    target = parse_database_url(database_url)
    if target.backend == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target.location}{suffix}").unlink(missing_ok=True)
    else:
        await trio.run_process(["psql", "-q", "-c", f'DROP SCHEMA "{target.schema}" CASCADE', target.location],
                               capture_stdout=True)
    restored = await run_cli([*args, "backup", "restore", str(data_dir / "backups" / line.split("\t")[0])])
    assert restored.returncode == 0, restored.stderr
    again = await run_cli([*args, "backup", "restore", str(data_dir / "backups" / line.split("\t")[0])])
    async with open_store(database_url) as store:
        names = sorted(row[0] for row in await store.fetch_all("SELECT name FROM items"))
    assert names == ["Arrival", "Dune", "Heat"]
    # Over a database that is not empty: restored too, the one it replaced kept under a dated name.
    assert again.returncode == 0 and b"kept as" in again.stderr + again.stdout, again.stderr
    if target.backend == "postgresql":
        kept = again.stdout.decode().rsplit("kept as ", 1)[1].strip()
        await trio.run_process(["psql", "-q", "-c", f'DROP SCHEMA "{kept}" CASCADE', target.location],
                               capture_stdout=True, capture_stderr=True)
