"""Schedule endpoints over real HTTP, on both backends."""

from __future__ import annotations

from pathlib import Path

import httpx
import trio

from reelhouse.media.schedule import CORE_TASKS
from reelhouse.storage import open_store
from reelhouse.storage.activity import list_activity
from reelhouse.storage.schedules import set_paused

from ..media_factory import MediaFactory
from .conftest import RunningServer, start_server
from .scanning import create_library, wait_for_state

JOB_TIMEOUT_S = 60.0


async def wait_for_job(client: httpx.AsyncClient, job_id: str) -> dict[str, object]:
    with trio.fail_after(JOB_TIMEOUT_S):
        while True:
            jobs = {job["id"]: job for job in (await client.get("/jobs")).json()}
            job = jobs.get(job_id)
            if job is not None and job["state"] in ("succeeded", "failed", "cancelled"):
                return job
            await trio.sleep(0.05)


async def wait_for_result(client: httpx.AsyncClient, task: str) -> dict[str, object]:
    with trio.fail_after(JOB_TIMEOUT_S):
        while True:
            listed = (await client.get("/admin/schedules")).json()
            schedule = next(s for s in listed["schedules"] if s["task"] == task)
            if not schedule["running"] and "lastResult" in schedule:
                return schedule
            await trio.sleep(0.05)


async def test_the_list_shows_the_eight_core_tasks_with_default_rules(client: httpx.AsyncClient) -> None:
    response = await client.get("/admin/schedules")
    assert response.status_code == 200
    listed = response.json()
    assert listed["timeZone"]
    by_task = {s["task"]: s for s in listed["schedules"]}
    # The eight core tasks and nothing else: the bundled hello example is off until enabled.
    assert list(by_task) == list(CORE_TASKS)
    assert list(by_task)[:len(CORE_TASKS)] == list(CORE_TASKS)
    assert by_task["library_scan"]["rules"] == [{"trigger": "interval", "afterScan": False, "everySeconds": 21600}]
    assert by_task["backup"]["rules"] == [{"trigger": "cron", "afterScan": False, "cron": "30 3 * * *"}]
    assert by_task["poster_pregenerate"]["rules"] == [{"trigger": "idle", "afterScan": True}]
    assert by_task["cleanup"]["allowsAfterScan"] is True and by_task["backup"]["allowsAfterScan"] is False
    assert all(s["isDefault"] and not s["paused"] for s in listed["schedules"])
    assert "nextRunAt" in by_task["backup"] and "nextRunAt" not in by_task["scrape"]
    assert "owner" not in by_task["backup"] and "names" not in by_task["backup"]


async def test_run_now_answers_202_running_then_records_the_result(server: RunningServer,
                                                                  client: httpx.AsyncClient) -> None:
    response = await client.post("/admin/schedules/database_maintenance/run")
    assert response.status_code == 202, response.text
    assert response.json()["running"] is True and response.json()["task"] == "database_maintenance"
    job = await wait_for_job(client, "task:database_maintenance")
    schedule = await wait_for_result(client, "database_maintenance")
    assert job["kind"] == "scheduledTask" and job["state"] == "succeeded" and job["trigger"] == "manual"
    assert schedule["lastResult"] == "succeeded" and "lastStartedAt" in schedule
    async with open_store(server.database_url) as store:
        entries = await list_activity(store, 50)
    assert any(e.action == "schedule.run" and e.target_kind == "schedule" and e.target_id == "database_maintenance"
               for e in entries)


async def test_an_unknown_task_is_404_and_a_running_one_409(client: httpx.AsyncClient) -> None:
    missing = await client.post("/admin/schedules/someplugin.task/run")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    first = await client.post("/admin/schedules/library_full_scan/run")
    assert first.status_code == 202
    # With no library the run ends at once; a backup runs long enough only on
    # big data, so the 409 is proven on the scan task while a scan runs (below).


async def test_library_scan_scans_every_library_and_conflicts_while_running(
        server: RunningServer, client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory) -> None:
    root = tmp_path / "films"
    media.video(root / "Heat (1995)" / "Heat (1995).mkv")
    library = await create_library(client, "Films", [root])
    await wait_for_state(client, library["id"])
    started = await client.post("/admin/schedules/library_full_scan/run")
    again = await client.post("/admin/schedules/library_full_scan/run")
    assert started.status_code == 202
    assert again.status_code in (202, 409)  # 409 unless the first run had already ended
    if again.status_code == 409:
        assert again.json()["code"] == "conflict"
    job = await wait_for_job(client, "task:library_full_scan")
    assert job["state"] == "succeeded" and job["processed"] == 1 and job["total"] == 1
    assert job["relatedJobId"] == f"scan:{library['id']}" and job["relatedKind"] == "scan"
    scan_job = next(j for j in (await client.get("/jobs")).json() if j["id"] == f"scan:{library['id']}")
    assert scan_job["trigger"] == "auto"


async def test_poster_pregenerate_renders_the_asked_shape_for_every_poster(
        server: RunningServer, client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory) -> None:
    root = tmp_path / "films"
    for title in ("Heat (1995)", "Arrival (2016)", "Dune (2021)"):
        media.video(root / title / f"{title}.mkv")
    media.image(root / "Heat (1995)" / "poster.jpg")
    media.image(root / "Arrival (2016)" / "poster.jpg")
    async with open_store(server.database_url) as store:  # no automatic run after the scan
        await set_paused(store, "poster_pregenerate", True)
    with trio.fail_after(10):
        while not next(s for s in (await client.get("/admin/schedules")).json()["schedules"]
                       if s["task"] == "poster_pregenerate")["paused"]:
            await trio.sleep(0.1)
    library = await create_library(client, "Films", [root])
    await wait_for_state(client, library["id"])
    items = (await client.get("/items", params={"recursive": "true"})).json()["items"]
    heat = next(i for i in items if i["name"] == "Heat")
    asked = await client.get(f"/images/items/{heat['id']}", params={"maxWidth": 100})
    assert asked.status_code == 200  # a client asked for 100 px wide posters (now cached)
    assert (await client.post("/admin/schedules/poster_pregenerate/run")).status_code == 202
    job = await wait_for_job(client, "task:poster_pregenerate")
    assert job["kind"] == "posterPregenerate" and job["unit"] == "images" and job["state"] == "succeeded"
    assert job["progressCached"] == 1 and job["changed"] == 1 and job["progressNoPoster"] == 1
    assert job["processed"] == 3 and job["progressFailed"] == 0 and "stopReason" not in job


async def test_poster_pregenerate_stops_at_the_cache_budget(
        nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory) -> None:
    root = tmp_path / "films"
    media.video(root / "Heat (1995)" / "Heat (1995).mkv")
    media.image(root / "Heat (1995)" / "poster.jpg", size=(800, 1200))
    server = await start_server(nursery, database_url, tmp_path / "data", image_cache_max_bytes=200)
    async with server.client() as client:
        library = await create_library(client, "Films", [root])
        await wait_for_state(client, library["id"])
        # The completed scan starts it (idle with afterScan), or the run does.
        assert (await client.post("/admin/schedules/poster_pregenerate/run")).status_code in (202, 409)
        job = await wait_for_job(client, "task:poster_pregenerate")
    server.shutdown.set()
    assert job["state"] == "succeeded" and job["stopReason"] == "cacheBudget"
    assert job["stopLimitBytes"] == 200 and job["stopUsedBytes"] == 0


async def test_a_library_with_a_folder_offline_fails_the_scan_task_with_its_id(
        server: RunningServer, client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory) -> None:
    films, extra = tmp_path / "films", tmp_path / "extra"
    media.video(films / "Heat (1995)" / "Heat (1995).mkv")
    media.video(extra / "Dune (2021)" / "Dune (2021).mkv")
    library = await create_library(client, "Films", [films, extra])
    await wait_for_state(client, library["id"])
    for path in sorted(extra.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    extra.rmdir()  # the root is gone: offline
    assert (await client.post("/admin/schedules/library_scan/run")).status_code == 202
    schedule = await wait_for_result(client, "library_scan")
    assert schedule["lastResult"] == "failed"
    assert schedule["lastErrorCode"] == "library_root_unavailable"
    assert schedule["lastErrorLibraries"] == [library["id"]]
