"""PATCH /libraries/{id}/options over real HTTP, on both backends.

The tests share a server per backend. The refused updates change nothing, so they
share its one scanned library; the tests whose updates succeed each update a library
of their own (its own folder); the restart has servers of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from ..media_factory import MediaFactory
from .conftest import RunningServer, start_server
from .scanning import create_library, scan_status, wait_for_state
from .shared_server import backend, client, server, shared_client, shared_server  # noqa: F401  (fixtures)

HINTS = ("rescanSuggested", "rescanRewrite", "nfoSyncSuggested", "remoteReadsSuggested", "scrapeRequeueSuggested")


@pytest.fixture
def root(tmp_path: Path, media: MediaFactory) -> Path:
    media.video(tmp_path / "films" / "Heat (1995).mkv")
    return tmp_path / "films"


async def scanned_library(client: httpx.AsyncClient, root: Path) -> dict[str, Any]:
    library = await create_library(client, "Films", [root])
    await wait_for_state(client, library["id"])
    return library


@pytest.fixture(scope="module")
def shared_library(shared_server: RunningServer, tmp_path_factory: pytest.TempPathFactory, media: MediaFactory) -> dict[str, Any]:
    """A scanned library on the module's server, which only refused updates are sent to."""
    films = tmp_path_factory.mktemp("shared-films") / "films"
    media.video(films / "Heat (1995).mkv")
    return trio.run(_scanned_on, shared_server, films)


async def _scanned_on(server: RunningServer, root: Path) -> dict[str, Any]:
    async with server.client() as client:
        with trio.fail_after(60):
            return await scanned_library(client, root)


def hints_of(body: dict[str, Any]) -> dict[str, bool]:
    return {name: body[name] for name in HINTS}


async def test_exclusion_change_is_saved_with_rescan_suggested_and_starts_no_scan(
    client: httpx.AsyncClient, root: Path
) -> None:
    with trio.fail_after(60):
        library = await scanned_library(client, root)
        before = await scan_status(client, library["id"])
        response = await client.patch(
            f"/libraries/{library['id']}/options",
            json={"remoteAllowedHosts": [], "excludeKeywords": [" Sample ", "sample"], "useNfo": None},
        )
        fetched = (await client.get(f"/libraries/{library['id']}")).json()
        listed = (await client.get("/libraries")).json()
        after = await scan_status(client, library["id"])
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["id"] == library["id"] and body["options"]["excludeKeywords"] == ["sample"]
    assert body["options"]["useNfo"] is True  # null keeps the value
    assert hints_of(body) == {**dict.fromkeys(HINTS, False), "rescanSuggested": True}
    assert "scrapeRequeueCount" not in body
    assert fetched["options"]["excludeKeywords"] == ["sample"]
    assert not set(HINTS) & set(fetched)  # hints only in the update's answer
    assert not any(set(HINTS) & set(listed_library) for listed_library in listed)
    assert after == before  # saving never starts a scan


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"externalAudio": False}, {"rescanSuggested", "rescanRewrite"}),
        ({"writeBack": True}, {"nfoSyncSuggested"}),
        ({"remoteAllowedHosts": ["media.example:8096"]}, {"remoteReadsSuggested"}),
        ({"excludeSmallerThanBytes": 1000}, {"rescanSuggested"}),
        ({"massMissingThreshold": 0.5, "missingGraceHours": 0}, set()),
    ],
)
async def test_hints_follow_what_changed(
    client: httpx.AsyncClient, root: Path, change: dict[str, Any], expected: set[str]
) -> None:
    with trio.fail_after(60):
        library = await scanned_library(client, root)
        response = await client.patch(f"/libraries/{library['id']}/options", json={"remoteAllowedHosts": [], **change})
    assert response.status_code == 200, response.text
    assert {name for name, on in hints_of(response.json()).items() if on} == expected


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"excludeKeywords": ["x"]}, 400, "field_required", "remoteAllowedHosts"),
        ({"remoteAllowedHosts": [], "readConcurrency": 9}, 400, "field_invalid", "readConcurrency"),
        ({"remoteAllowedHosts": [], "readConcurrency": 2, "followStorage": ["readConcurrency"]}, 400, "field_invalid", "readConcurrency"),
        ({"remoteAllowedHosts": [], "storage": "tape"}, 400, "field_invalid", "storage"),
        ({"remoteAllowedHosts": ["http://x/"]}, 400, "host_invalid", "remoteAllowedHosts"),
        ({"remoteAllowedHosts": [], "imageSources": ["nope"]}, 400, "image_source_not_installed", "imageSources"),
        ({"remoteAllowedHosts": [], "unratedAge": 18}, 403, "license_required", None),
    ],
)
async def test_invalid_updates_answer_the_references_error_and_change_nothing(
    shared_client: httpx.AsyncClient, shared_library: dict[str, Any], body: dict[str, Any], status: int, code: str,
    field: str | None,
) -> None:
    client, library = shared_client, shared_library
    with trio.fail_after(60):
        response = await client.patch(f"/libraries/{library['id']}/options", json=body)
        fetched = (await client.get(f"/libraries/{library['id']}")).json()
    assert response.status_code == status, response.text
    error = response.json()
    assert error["code"] == code and error["message"]
    if field is not None:
        assert error["params"]["field"] == field
    assert fetched["options"] == library["options"]


async def test_a_body_that_is_not_an_object_is_400_and_an_unknown_library_404(
    shared_client: httpx.AsyncClient, shared_library: dict[str, Any]
) -> None:
    client, library = shared_client, shared_library
    with trio.fail_after(60):
        not_object = await client.patch(f"/libraries/{library['id']}/options", json=["remoteAllowedHosts"])
        not_json = await client.patch(
            f"/libraries/{library['id']}/options", content=b"{", headers={"Content-Type": "application/json"}
        )
        unknown = await client.patch("/libraries/nope/options", json={"remoteAllowedHosts": []})
    assert not_object.status_code == 400 and not_object.json()["code"] == "bad_request"
    assert not_json.status_code == 400
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"


async def test_turning_the_monitor_off_stops_watching_and_survives_a_restart(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, root: Path
) -> None:
    with trio.fail_after(90):
        first = await start_server(nursery, database_url, tmp_path / "data")
        async with first.client() as client:
            library = await scanned_library(client, root)
            watching = (await scan_status(client, library["id"])).get("watch")
            response = await client.patch(
                f"/libraries/{library['id']}/options", json={"remoteAllowedHosts": [], "realtimeMonitor": False}
            )
            stopped = (await scan_status(client, library["id"])).get("watch")
        first.shutdown.set()
        second = await start_server(nursery, database_url, tmp_path / "data")
        async with second.client() as client:
            fetched = (await client.get(f"/libraries/{library['id']}")).json()
            restarted = (await scan_status(client, library["id"])).get("watch")
        second.shutdown.set()
    assert response.status_code == 200 and response.json()["options"]["realtimeMonitor"] is False
    assert watching != "disabled"
    assert stopped == "disabled" and restarted == "disabled"
    assert fetched["options"]["realtimeMonitor"] is False


async def test_the_settings_and_confirmation_endpoints_are_documented(server: RunningServer) -> None:
    async with server.client(key="") as anonymous:
        with trio.fail_after(20):
            document = (await anonymous.get("/openapi.json")).json()
    update = document["paths"]["/api/v1/libraries/{library_id}/options"]["patch"]
    confirm = document["paths"]["/api/v1/libraries/{library_id}/confirm-missing"]["post"]
    assert set(update["responses"]) == {"200", "400", "401", "403", "404", "413", "500", "503"}
    assert "requestBody" in update
    body_schema = update["requestBody"]["content"]["application/json"]["schema"]
    assert body_schema["required"] == ["remoteAllowedHosts"] and "followStorage" in body_schema["properties"]
    assert set(confirm["responses"]) == {"200", "400", "401", "404", "409", "500", "503"}
