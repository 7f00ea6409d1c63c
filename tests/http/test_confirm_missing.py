"""POST /libraries/{id}/confirm-missing over real HTTP, on both backends.

The tests share a server per backend, each with a library of its own (its own folder).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest
import trio

from ..media_factory import MediaFactory
from .scanning import create_library, scan_status, wait_for_state
from .shared_server import backend, client, shared_server  # noqa: F401  (fixtures)

TITLES = ("Alien (1979)", "Arrival (2016)", "Dune (2021)", "Heat (1995)", "Ran (1985)")


@pytest.fixture
def root(tmp_path: Path, media: MediaFactory) -> Path:
    for title in TITLES:
        media.video(tmp_path / "films" / title / f"{title}.mkv")
    return tmp_path / "films"


async def item_count(client: httpx.AsyncClient, library_id: str) -> int:
    return int((await client.get(f"/libraries/{library_id}")).json()["itemCount"])


async def paused_library(client: httpx.AsyncClient, root: Path) -> str:
    """A library whose last scan the safeguard paused: 3 of 5 movies gone (threshold 0.2)."""
    library = await create_library(client, "Films", [root], options={"remoteAllowedHosts": [], "realtimeMonitor": False})
    first = await wait_for_state(client, library["id"])
    for title in TITLES[:3]:
        shutil.rmtree(root / title)
    assert (await client.post(f"/libraries/{library['id']}/scan", json={"mode": "full"})).status_code == 200
    while (status := await wait_for_state(client, library["id"]))["startedAt"] == first["startedAt"]:
        await trio.sleep(0.05)
    assert status["state"] == "completed" and status["massMissingPaused"] is True and status["missing"] == 3
    return str(library["id"])


async def test_confirming_marks_what_the_safeguard_held_back(client: httpx.AsyncClient, root: Path) -> None:
    with trio.fail_after(90):
        library_id = await paused_library(client, root)
        held = await item_count(client, library_id)
        response = await client.post(f"/libraries/{library_id}/confirm-missing")
        confirmed = await item_count(client, library_id)
        status = await scan_status(client, library_id)
        again = await client.post(f"/libraries/{library_id}/confirm-missing")
    assert held == 5  # paused: nothing marked yet
    assert response.status_code == 200 and response.json()["success"] is True
    assert confirmed == 2
    assert "massMissingPaused" not in status and status["state"] == "completed" and status["missing"] == 3
    assert again.status_code == 409 and again.json()["code"] == "conflict"


async def test_a_new_scan_weighs_the_changes_again_so_nothing_waits(
    client: httpx.AsyncClient, root: Path, media: MediaFactory
) -> None:
    """Regression (a race in the test): the new scan may end before the confirm arrives, so the
    disk comes back first; the held set is dropped by the scan, whether it still runs or has ended."""
    with trio.fail_after(90):
        library_id = await paused_library(client, root)
        for title in TITLES[:3]:
            media.video(root / title / f"{title}.mkv")
        assert (await client.post(f"/libraries/{library_id}/scan", json={"mode": "quick"})).status_code == 200
        response = await client.post(f"/libraries/{library_id}/confirm-missing")
        status = await wait_for_state(client, library_id)
        after = await client.post(f"/libraries/{library_id}/confirm-missing")
        count = await item_count(client, library_id)
    assert response.status_code == 409 and response.json()["code"] == "conflict"
    assert after.status_code == 409 and "massMissingPaused" not in status
    assert count == 5


async def test_nothing_to_confirm_is_409_and_an_unknown_library_404(client: httpx.AsyncClient, root: Path) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [root])
        await wait_for_state(client, library["id"])
        nothing = await client.post(f"/libraries/{library['id']}/confirm-missing")
        unknown = await client.post("/libraries/nope/confirm-missing")
    assert nothing.status_code == 409 and nothing.json()["code"] == "conflict"
    assert nothing.json()["params"] == {"libraryId": library["id"]}
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"
