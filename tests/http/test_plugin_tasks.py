"""Plugin tasks through the schedules endpoints, over a real socket with a real plugin process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import trio

from reelhouse.storage import plugin_catalog
from tests.actors.plugins.factory import make_plugin

from .conftest import RunningServer, start_server
from .test_schedules import wait_for_result

CAP_S = 60
POLL_S = 0.2
TASKS = '''[[tasks]]
name = "sync"
names = { en = "Sync", fr = "Synchroniser" }
descriptions = { en = "Syncs the lists.", fr = "Synchronise les listes." }
'''


@pytest.fixture
async def tasky_server(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> AsyncIterator[RunningServer]:
    data_dir = tmp_path / "data"
    make_plugin(tmp_path / "src", "tasky", extra=TASKS)
    plugin_catalog.install(data_dir, tmp_path / "src" / "tasky")
    for plugin_id, mode in (("grumpy", "badtask"), ("slow", "slowtask")):
        make_plugin(tmp_path / "src", plugin_id, mode, extra=TASKS, timeout=30)
        plugin_catalog.install(data_dir, tmp_path / "src" / plugin_id)
    running = await start_server(nursery, database_url, data_dir, schedule={"reload_poll_seconds": POLL_S})
    yield running
    running.shutdown.set()


async def _schedules(client: httpx.AsyncClient) -> dict[str, dict]:
    response = await client.get("/admin/schedules")
    assert response.status_code == 200, response.text
    return {schedule["task"]: schedule for schedule in response.json()["schedules"]}


async def _wait_for_task(client: httpx.AsyncClient, task: str, *, present: bool) -> dict[str, dict]:
    while True:
        schedules = await _schedules(client)
        if (task in schedules) == present:
            return schedules
        await trio.sleep(0.05)


async def test_an_enabled_plugins_task_is_listed_with_owner_names_and_descriptions(
    tasky_server: RunningServer,
) -> None:
    with trio.fail_after(CAP_S):
        async with tasky_server.client() as client:
            schedules = await _wait_for_task(client, "tasky.sync", present=True)
            task = schedules["tasky.sync"]
            assert task["owner"] == "tasky"
            assert task["names"] == {"en": "Sync", "fr": "Synchroniser"}
            assert task["descriptions"] == {"en": "Syncs the lists.", "fr": "Synchronise les listes."}
            assert task["rules"] == [{"trigger": "manual", "afterScan": False}]
            assert task["isDefault"] is True and task["running"] is False and "nextRunAt" not in task
            assert "library_scan" in schedules  # core tasks stay, plugin tasks come after them
            assert list(schedules)[-1] == "tasky.sync"


async def test_running_a_plugin_task_calls_the_plugin_and_records_success(
    tasky_server: RunningServer, tmp_path: Path,
) -> None:
    with trio.fail_after(CAP_S):
        async with tasky_server.client() as client:
            await _wait_for_task(client, "tasky.sync", present=True)
            response = await client.post("/admin/schedules/tasky.sync/run")
            assert response.status_code == 202, response.text
            assert response.json()["task"] == "tasky.sync"
            schedule = await wait_for_result(client, "tasky.sync")
            assert schedule["lastResult"] == "succeeded" and "lastFinishedAt" in schedule
            assert schedule["lastMessage"] == "ok"
            runs = plugin_catalog.plugins_dir(tasky_server.data_dir) / "tasky" / "task-runs.log"
            assert runs.read_text().splitlines() == ["sync"]


async def test_disabling_the_plugin_removes_its_task_and_its_run_is_then_404(tasky_server: RunningServer) -> None:
    with trio.fail_after(CAP_S):
        async with tasky_server.client() as client:
            await _wait_for_task(client, "tasky.sync", present=True)
            plugin_catalog.update_state(tasky_server.data_dir, "tasky", enabled=False)
            await _wait_for_task(client, "tasky.sync", present=False)
            response = await client.post("/admin/schedules/tasky.sync/run")
            assert response.status_code == 404
            assert response.json()["code"] == "not_found"
            # Enabled again, it returns with the rules it had.
            plugin_catalog.update_state(tasky_server.data_dir, "tasky", enabled=True)
            await _wait_for_task(client, "tasky.sync", present=True)


async def test_a_plugin_error_records_the_run_failed_with_a_code_and_no_secret(tasky_server: RunningServer) -> None:
    with trio.fail_after(CAP_S):
        async with tasky_server.client() as client:
            await _wait_for_task(client, "grumpy.sync", present=True)
            assert (await client.post("/admin/schedules/grumpy.sync/run")).status_code == 202
            schedule = await wait_for_result(client, "grumpy.sync")
            assert schedule["lastResult"] == "failed"
            assert schedule["lastErrorCode"] == "permission_denied"
            assert "grumpy" in schedule["lastMessage"] and "s3cret" not in str(schedule)
            jobs = (await client.get("/jobs")).json()
            assert "s3cret" not in str(jobs)


async def test_cancelling_a_plugin_tasks_run_cancels_the_plugin_call(tasky_server: RunningServer) -> None:
    runs = plugin_catalog.plugins_dir(tasky_server.data_dir) / "slow" / "task-runs.log"
    with trio.fail_after(CAP_S):
        async with tasky_server.client() as client:
            await _wait_for_task(client, "slow.sync", present=True)
            assert (await client.post("/admin/schedules/slow.sync/run")).status_code == 202
            while not runs.exists():  # the call reached the plugin
                await trio.sleep(0.05)
            response = await client.post("/jobs/task:slow.sync/cancel")
            assert response.status_code == 204, response.text
            schedule = await wait_for_result(client, "slow.sync")
            assert schedule["lastResult"] == "cancelled"
            while len(runs.read_text().splitlines()) < 2:  # the plugin got $/cancel and let its work go
                await trio.sleep(0.05)
            assert runs.read_text().splitlines() == ["started sync", "cancelled sync"]
