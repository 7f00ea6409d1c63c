"""A library renamed or given other folders from the console, over real HTTP on both backends:
a creation's checks, and new folders scanned at once (what left them missing, what is in them added)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import trio

from ...media_factory import MediaFactory, VideoSpec
from ..conftest import RunningServer
from ..scanning import FINAL_STATES
from .console import activity, signed_in

# A root given up leaves every item of it missing at once (remoteAllowedHosts: required with options).
NO_SAFEGUARD = {"massMissingThreshold": 1, "remoteAllowedHosts": []}


async def test_a_library_is_renamed_and_its_new_folders_scanned_in_place_of_the_old(
    server: RunningServer, media: MediaFactory, tmp_path: Path
) -> None:
    with trio.fail_after(180):
        old, new = tmp_path / "old", tmp_path / "new"
        media.video(old / "Heat (1995)" / "Heat (1995).mp4", VideoSpec(container="mp4"))
        media.video(new / "Arrival (2016)" / "Arrival (2016).mp4", VideoSpec(container="mp4"))
        async with signed_in(server, "Root", admin=True) as root:
            created = await root.post("/web/admin/api/libraries", json={
                "name": "Films", "paths": [str(old)], "collectionType": "movies", "options": NO_SAFEGUARD,
            })  # fmt: skip
            assert created.status_code == 201, created.text
            made = created.json()
            library = f"/web/admin/libraries/{made['id']}"
            await _names_once(root, made["id"], ["Heat"])
            renamed = await root.patch(library, json={"name": "  Movies "})
            moved = await root.patch(library, json={"paths": [str(new)]})
            present = await _names_once(root, made["id"], ["Arrival"])
            missing = await _names(root, made["id"], missing="true")
            listed = (await root.get(f"/web/admin/api/libraries/{made['id']}")).json()
            updates = await activity(root, "library.update")
            arrival = (await root.get("/api/v1/items", params={"libraryId": made["id"]})).json()["items"][0]["id"]
            rescan = await root.post(f"/web/admin/api/items/{arrival}/rescan")  # the item page's Rescan its folder
    assert renamed.status_code == 200 and renamed.json()["name"] == "Movies"
    assert renamed.json()["paths"] == [str(old)]
    assert moved.status_code == 200 and moved.json()["paths"] == [str(new)]
    assert present == ["Arrival"] and missing == ["Heat"]
    assert (listed["name"], listed["paths"]) == ("Movies", [str(new)])
    assert rescan.status_code == 200, rescan.text
    assert [(e["actor"].get("name"), e["details"]["fields"]) for e in updates] == [("Root", ["paths"]), ("Root", ["name"])]


async def test_a_change_is_refused_with_a_creations_codes_and_changes_nothing(
    server: RunningServer, tmp_path: Path
) -> None:
    with trio.fail_after(120):
        for folder in ("films", "series", "elsewhere"):
            (tmp_path / folder).mkdir()
        async with signed_in(server, "Root", admin=True) as root:
            films = await _library(root, "Films", tmp_path / "films")
            await _library(root, "Series", tmp_path / "series")
            at = f"/web/admin/libraries/{films['id']}"
            answers = {
                "overlap": await root.patch(at, json={"paths": [str(tmp_path / "series")]}),
                "data": await root.patch(at, json={"paths": [str(server.data_dir)]}),
                "relative": await root.patch(at, json={"paths": ["films"]}),
                "absent": await root.patch(at, json={"paths": [str(tmp_path / "nowhere")]}),
                "empty": await root.patch(at, json={"paths": []}),
                "unnamed": await root.patch(at, json={"name": "  "}),
                "unknown": await root.patch("/web/admin/libraries/nothing", json={"name": "x"}),
            }
            own = await root.patch(at, json={"paths": [str(tmp_path / "films"), str(tmp_path / "elsewhere")]})
            after = (await root.get(f"/web/admin/api/libraries/{films['id']}")).json()
    codes = {name: (answer.status_code, answer.json()["code"]) for name, answer in answers.items()}
    assert codes == {
        "overlap": (400, "field_invalid"), "data": (400, "library_path_not_allowed"),
        "relative": (400, "path_not_absolute"), "absent": (400, "field_invalid"), "empty": (400, "field_invalid"),
        "unnamed": (400, "field_invalid"), "unknown": (404, "not_found"),
    }  # fmt: skip
    assert answers["overlap"].json()["params"]["reason"] == "overlaps"
    assert own.status_code == 200  # its own old root overlaps nothing
    assert (after["name"], after["paths"]) == ("Films", [str(tmp_path / "films"), str(tmp_path / "elsewhere")])


async def _library(root: httpx.AsyncClient, name: str, folder: Path) -> dict[str, Any]:
    made = await root.post("/web/admin/api/libraries", json={"name": name, "paths": [str(folder)], "collectionType": "movies"})
    assert made.status_code == 201, made.text
    await _scanned(root, made.json()["id"])
    return dict(made.json())


async def _scanned(root: httpx.AsyncClient, library_id: str) -> None:
    while True:
        statuses = (await root.get("/web/admin/api/scans/status")).json()
        if next(s for s in statuses if s["libraryId"] == library_id)["state"] in FINAL_STATES:
            return
        await trio.sleep(0.05)


async def _names(root: httpx.AsyncClient, library_id: str, **query: str) -> list[str]:
    page = (await root.get("/api/v1/items", params={"libraryId": library_id, **query})).json()
    return sorted(item["name"] for item in page["items"])


async def _names_once(root: httpx.AsyncClient, library_id: str, names: list[str]) -> list[str]:
    """The library's items once they are ``names`` (a scan is on its way)."""
    while (found := await _names(root, library_id)) != names:
        await trio.sleep(0.05)
    return found
