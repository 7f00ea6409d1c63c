"""POST /items/{id}/refresh and /rescan over real HTTP with real files.

The tests on ``client`` share a server per backend, each with a library of its own (its own
folder); the ones whose probes hang start servers of their own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from ..media_factory import MediaFactory
from .conftest import RunningServer, start_server
from .scanning import create_library, hanging_probe_worker, scan_status, wait_for_phase, wait_for_state
from .shared_server import backend, client, shared_server  # noqa: F401  (fixtures)


@pytest.fixture
def root(tmp_path: Path, media: MediaFactory) -> Path:
    root = tmp_path / "films"
    media.video(root / "Heat (1995)" / "Heat (1995).mkv")
    media.text(root / "Heat (1995)" / "movie.nfo", "<movie><title>Heat</title><year>1995</year></movie>")
    media.video(root / "Alien (1979)" / "Alien (1979).mkv")
    return root


async def item_named(client: httpx.AsyncClient, library_id: str, name: str) -> dict[str, object]:
    page = (await client.get("/items", params={"libraryId": library_id, "limit": 200})).json()
    return next(i for i in page["items"] if i["name"] == name)


async def test_refresh_rereads_the_nfo_now(client: httpx.AsyncClient, root: Path) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [root])
        await wait_for_state(client, library["id"])
        heat = await item_named(client, library["id"], "Heat")
        (root / "Heat (1995)" / "movie.nfo").write_text(
            "<movie><title>Heat</title><year>1995</year><plot>A heist.</plot><genre>Crime</genre></movie>"
        )
        response = await client.post(f"/items/{heat['id']}/refresh", json={"mode": "replaceAll"})
        assert response.status_code == 202 and response.json()["success"] is True
        await wait_for_state(client, library["id"])
        detail = (await client.get(f"/items/{heat['id']}")).json()
    assert detail["overview"] == "A heist."
    assert detail["genres"] == ["Crime"]


async def wait_for_extras(client: httpx.AsyncClient, item_id: str) -> dict[str, Any]:
    """The item's detail once it lists an extra (the rescan has no status to wait for)."""
    while True:
        detail: dict[str, Any] = (await client.get(f"/items/{item_id}")).json()
        if detail.get("extras"):
            return detail
        await trio.sleep(0.05)


async def test_rescan_updates_only_that_items_directory(client: httpx.AsyncClient, root: Path, media: MediaFactory) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [root], options={"remoteAllowedHosts": [], "realtimeMonitor": False})
        await wait_for_state(client, library["id"])
        heat = await item_named(client, library["id"], "Heat")
        media.video(root / "Heat (1995)" / "Heat (1995)-trailer.mkv")
        media.video(root / "Dune (2021)" / "Dune (2021).mkv")  # elsewhere: not part of this rescan
        response = await client.post(f"/items/{heat['id']}/rescan")
        assert response.status_code == 200 and response.json()["success"] is True
        detail = await wait_for_extras(client, str(heat["id"]))
        count = (await client.get(f"/libraries/{library['id']}")).json()["itemCount"]
    assert [e["extraType"] for e in detail.get("extras", [])] == ["Trailer"]
    assert detail["id"] == heat["id"]  # the id survives the rescan
    assert count == 2  # Dune was not scanned


async def test_rescan_leaves_the_library_scan_status_as_it_was(
    client: httpx.AsyncClient, root: Path, media: MediaFactory
) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [root], options={"remoteAllowedHosts": [], "realtimeMonitor": False})
        before = await wait_for_state(client, library["id"])
        heat = await item_named(client, library["id"], "Heat")
        media.video(root / "Heat (1995)" / "Heat (1995)-trailer.mkv")
        assert (await client.post(f"/items/{heat['id']}/rescan")).status_code == 200
        await wait_for_extras(client, str(heat["id"]))
        after = await scan_status(client, library["id"])
        jobs = (await client.get("/jobs")).json()
    assert after == before  # startedAt, finishedAt, counts: the last library scan's
    scan_jobs = [job for job in jobs if job["id"] == f"scan:{library['id']}"]
    assert [job["startedAt"] for job in scan_jobs] == [before["startedAt"]]


async def test_unknown_item_is_404(client: httpx.AsyncClient) -> None:
    with trio.fail_after(30):
        for path in ("/items/nope/refresh", "/items/nope/rescan"):
            response = await client.post(path, json={"mode": "missing"})
            assert response.status_code == 404 and response.json()["code"] == "not_found"


async def test_refresh_needs_a_valid_mode(client: httpx.AsyncClient, root: Path) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [root])
        await wait_for_state(client, library["id"])
        heat = await item_named(client, library["id"], "Heat")
        missing = await client.post(f"/items/{heat['id']}/refresh", json={})
        wrong = await client.post(f"/items/{heat['id']}/refresh", json={"mode": "all"})
    assert missing.status_code == 400 and missing.json()["code"] == "field_required"
    assert wrong.status_code == 400 and wrong.json()["params"]["field"] == "mode"


async def _scanned_then_probing_forever(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, root: Path, media: MediaFactory
) -> tuple[RunningServer, dict[str, Any], dict[str, Any]]:
    """A library scanned once (Heat found), then a server whose probes never answer, with a new file to probe."""
    fast = await start_server(nursery, database_url, tmp_path / "data")
    async with fast.client() as client:
        with trio.fail_after(60):
            library = await create_library(client, "Films", [root], options={"remoteAllowedHosts": [], "realtimeMonitor": False})
            await wait_for_state(client, library["id"])
            heat = await item_named(client, library["id"], "Heat")
    fast.shutdown.set()
    await trio.sleep(0.5)
    media.video(root / "Dune (2021)" / "Dune (2021).mkv")  # a new file: the next scan must probe it
    slow: RunningServer = await start_server(
        nursery, database_url, tmp_path / "data",
        scan={"probe_timeout_seconds": 120, "probe_worker_command": hanging_probe_worker()},
    )
    return slow, library, heat


async def test_refresh_while_a_scan_runs_is_409(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, root: Path, media: MediaFactory
) -> None:
    slow, library, heat = await _scanned_then_probing_forever(nursery, database_url, tmp_path, root, media)
    async with slow.client() as client:
        with trio.fail_after(60):
            await client.post(f"/libraries/{library['id']}/scan", json={"mode": "full", "rewrite": True})
            await wait_for_phase(client, library["id"], "write")
            response = await client.post(f"/items/{heat['id']}/refresh", json={"mode": "missing"})
            await client.post(f"/libraries/{library['id']}/cancel-scan")
    slow.shutdown.set()
    assert response.status_code == 409 and response.json()["code"] == "conflict"


async def test_rescan_while_a_scan_runs_is_accepted_and_leaves_that_scan_reporting(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, root: Path, media: MediaFactory
) -> None:
    slow, library, heat = await _scanned_then_probing_forever(nursery, database_url, tmp_path, root, media)
    async with slow.client() as client:
        with trio.fail_after(60):
            await client.post(f"/libraries/{library['id']}/scan", json={"mode": "full", "rewrite": True})
            running = await wait_for_phase(client, library["id"], "write")
            response = await client.post(f"/items/{heat['id']}/rescan")
            during = await scan_status(client, library["id"])
            await client.post(f"/libraries/{library['id']}/cancel-scan")
    slow.shutdown.set()
    assert response.status_code == 200  # the reference's rescan has no 409: it waits for the scan
    assert during["state"] == "running" and during["startedAt"] == running["startedAt"]
