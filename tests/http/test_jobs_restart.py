"""Jobs survive a restart: GET /jobs lists them afterwards, on both backends, over HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from reelhouse.storage import migrate, open_store
from reelhouse.storage._store import now_ms
from reelhouse.storage.jobs import save_job

from ..media_factory import MediaFactory
from .conftest import start_server
from .scanning import create_library, wait_for_state


@pytest.fixture
def library_root(tmp_path: Path, media: MediaFactory) -> Path:
    root = tmp_path / "films"
    media.video(root / "Heat (1995)" / "Heat (1995).mkv")
    return root


async def test_a_finished_scan_job_is_listed_after_a_restart(database_url: str, tmp_path: Path,
                                                             library_root: Path) -> None:
    data_dir = tmp_path / "data"
    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            first = await start_server(nursery, database_url, data_dir)
            async with first.client() as client:
                library = await create_library(client, "Films", [library_root])
                await wait_for_state(client, library["id"])
                with trio.fail_after(10):  # the final report reaches the registry just after the status
                    while not any(j["id"] == f"scan:{library['id']}" and j["state"] == "succeeded"
                                  for j in (await client.get("/jobs")).json()):
                        await trio.sleep(0.05)
            first.shutdown.set()
        async with trio.open_nursery() as nursery:
            second = await start_server(nursery, database_url, data_dir)
            async with second.client() as client:
                jobs = (await client.get("/jobs")).json()
                cancel = await client.post(f"/jobs/scan%3A{library['id']}/cancel")
                unknown = await client.post("/jobs/scan%3Anope/cancel")
            second.shutdown.set()
    [job] = [j for j in jobs if j["id"] == f"scan:{library['id']}"]
    assert job["state"] == "succeeded" and job["kind"] == "scan" and job["finishedAt"].endswith("Z")
    assert cancel.status_code == 409 and cancel.json()["code"] == "conflict"
    assert unknown.status_code == 404


async def test_a_job_running_when_the_server_died_is_listed_failed(database_url: str, tmp_path: Path) -> None:
    async with open_store(database_url) as store:
        await migrate(store)
        started = now_ms()
        await save_job(store, {"id": "schedule:backup", "kind": "backup", "title": "Backup", "state": "running",
                               "cancellable": True, "phase": "write", "startedAt": "2026-01-01T00:00:00.000Z"},
                       started_at_ms=started, finished_at_ms=None)
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            server = await start_server(nursery, database_url, tmp_path / "data")
            async with server.client() as client:
                jobs = (await client.get("/jobs")).json()
            server.shutdown.set()
    [job] = [j for j in jobs if j["id"] == "schedule:backup"]
    assert job["state"] == "failed" and job["cancellable"] is False and "phase" not in job
    assert "stopped" in job["message"]
