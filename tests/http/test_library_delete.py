"""DELETE /libraries/{id} over real HTTP, on both backends: the library and its items go, its files
stay, and database_maintenance runs once (the reference's Schedule text)."""

from __future__ import annotations

from pathlib import Path

import httpx
import trio

from reelhouse.storage import open_store
from reelhouse.storage.activity import list_activity

from ..media_factory import MediaFactory
from .conftest import RunningServer
from .scanning import create_library, wait_for_state
from .test_schedules import wait_for_result

CAP_S = 120


def movies(tmp_path: Path, media: MediaFactory) -> Path:
    root = tmp_path / "movies"
    media.video(root / "Arrival (2016)" / "Arrival (2016).mkv")
    media.video(root / "Heat (1995).mkv")
    return root


async def maintenance(client: httpx.AsyncClient) -> dict[str, object]:
    listed = (await client.get("/admin/schedules")).json()
    return next(s for s in listed["schedules"] if s["task"] == "database_maintenance")


async def test_deleting_a_library_removes_it_and_its_items_keeps_its_files_and_runs_database_maintenance_once(
    server: RunningServer, client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory
) -> None:
    root = movies(tmp_path, media)
    with trio.fail_after(CAP_S):
        library = await create_library(client, "Films", [root])
        await wait_for_state(client, library["id"])
        assert len((await client.get("/items", params={"libraryId": library["id"]})).json()["items"]) == 2
        assert "lastStartedAt" not in await maintenance(client)
        deleted = await client.delete(f"/libraries/{library['id']}")
        gone = await client.get(f"/libraries/{library['id']}")
        listed = (await client.get("/libraries")).json()
        items = (await client.get("/items")).json()["items"]
        ran = await wait_for_result(client, "database_maintenance")
        # Another task run from start to end: the scheduler's loop has looked at every task since.
        assert (await client.post("/admin/schedules/cleanup/run")).status_code == 202
        await wait_for_result(client, "cleanup")
        after = await maintenance(client)
        again = await client.delete(f"/libraries/{library['id']}")
        async with open_store(server.database_url) as store:
            actions = [(a.action, a.category, a.target_id) for a in await list_activity(store, 50)]
    assert deleted.status_code == 204 and deleted.content == b""
    assert gone.status_code == 404 and listed == [] and items == []
    assert (root / "Heat (1995).mkv").is_file() and (root / "Arrival (2016)" / "Arrival (2016).mkv").is_file()
    assert ran["lastResult"] == "succeeded"
    assert after["lastStartedAt"] == ran["lastStartedAt"] and after["running"] is False  # once, not again
    assert again.status_code == 404 and again.json()["code"] == "not_found"
    assert ("library.delete", "deletion", library["id"]) in actions


async def test_deleting_an_unknown_library_is_404_and_runs_no_maintenance(client: httpx.AsyncClient) -> None:
    with trio.fail_after(CAP_S):
        response = await client.delete("/libraries/nope")
        schedule = await maintenance(client)
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert schedule["running"] is False and "lastStartedAt" not in schedule


async def test_deleting_a_library_just_created_leaves_the_other_libraries_and_their_items(
    client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory
) -> None:
    kept_root = tmp_path / "kept"
    media.video(kept_root / "Heat (1995).mkv")
    root = movies(tmp_path, media)
    with trio.fail_after(CAP_S):
        kept = await create_library(client, "Kept", [kept_root])
        await wait_for_state(client, kept["id"])
        library = await create_library(client, "Films", [root])
        deleted = await client.delete(f"/libraries/{library['id']}")
        remaining = [entry["id"] for entry in (await client.get("/libraries")).json()]
        statuses = [status["libraryId"] for status in (await client.get("/scans/status")).json()]
        kept_items = (await client.get("/items", params={"libraryId": kept["id"]})).json()["items"]
    assert deleted.status_code == 204
    assert remaining == [kept["id"]] and statuses == [kept["id"]] and len(kept_items) == 1
