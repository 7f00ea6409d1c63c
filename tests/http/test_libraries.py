"""Library endpoints over real HTTP, on both backends; the refused requests share a server per backend."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from ..media_factory import MediaFactory
from .conftest import start_server
from .scanning import create_library, wait_for_state
from .shared_server import backend, shared_client, shared_server  # noqa: F401  (fixtures)


def epoch_ms(rfc3339: str) -> int:
    return round(datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp() * 1000)


async def wait_for_newer_final_state(client: httpx.AsyncClient, library_id: str, started_after: str) -> dict[str, Any]:
    while True:
        status = await wait_for_state(client, library_id)
        if epoch_ms(status["startedAt"]) > epoch_ms(started_after):
            return status
        await trio.sleep(0.05)


@pytest.fixture
def movies_root(tmp_path: Path, media: MediaFactory) -> Path:
    root = tmp_path / "movies"
    media.video(root / "Arrival (2016)" / "Arrival (2016).mkv")
    media.video(root / "Heat (1995).mkv")
    return root


async def test_create_returns_201_with_effective_options_and_scans(client: httpx.AsyncClient, movies_root: Path) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [movies_root])
        assert library["name"] == "Films"
        assert library["paths"] == [str(movies_root)]
        assert library["collectionType"] == "movies"
        options = library["options"]
        assert options["massMissingThreshold"] == 0.2 and options["missingGraceHours"] == 168
        assert options["effectiveReadConcurrency"] >= 1 and options["storage"] == "local"
        assert library["covers"] == {"customPrimary": False, "customThumb": False}
        status = await wait_for_state(client, library["id"])
        assert status["state"] == "completed"
        assert status["added"] == 2
        fetched = (await client.get(f"/libraries/{library['id']}")).json()
    assert fetched["itemCount"] == 2
    assert fetched["lastScannedAt"].endswith("Z")
    assert fetched["scrapePending"] == 0


async def test_last_scanned_at_is_omitted_after_a_restart_until_a_scan_completes(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, movies_root: Path
) -> None:
    with trio.fail_after(90):
        first = await start_server(nursery, database_url, tmp_path / "data")
        async with first.client() as client:
            library = await create_library(client, "Films", [movies_root])
            await wait_for_state(client, library["id"])
            before_restart = (await client.get(f"/libraries/{library['id']}")).json()
        first.shutdown.set()
        second = await start_server(nursery, database_url, tmp_path / "data")
        async with second.client() as client:
            after_restart = (await client.get(f"/libraries/{library['id']}")).json()
            previous = await wait_for_state(client, library["id"])
            assert (await client.post(f"/libraries/{library['id']}/scan", json={"mode": "quick"})).status_code == 200
            rescanned = await wait_for_newer_final_state(client, library["id"], previous["startedAt"])
            after_scan = (await client.get(f"/libraries/{library['id']}")).json()
        second.shutdown.set()
    assert "lastScannedAt" in before_restart
    assert "lastScannedAt" not in after_restart
    assert rescanned["state"] == "completed"
    assert epoch_ms(after_scan["lastScannedAt"]) == epoch_ms(rescanned["finishedAt"])


async def test_scans_suspended_means_no_first_scan(client: httpx.AsyncClient, movies_root: Path) -> None:
    with trio.fail_after(30):
        library = await create_library(client, "Quiet", [movies_root], options={"scansSuspended": True, "remoteAllowedHosts": []})
        await trio.sleep(0.5)
        status = next(s for s in (await client.get("/scans/status")).json() if s["libraryId"] == library["id"])
        fetched = (await client.get(f"/libraries/{library['id']}")).json()
    assert status["state"] == "idle"
    assert fetched["itemCount"] == 0
    assert "lastScannedAt" not in fetched


@pytest.mark.parametrize(
    ("paths", "code", "reason"),
    [
        (["relative/dir"], "path_not_absolute", None),
        (["{tmp}/does-not-exist"], "field_invalid", "not_found"),
        (["{tmp}/a-file"], "field_invalid", "not_directory"),
        ([], "field_invalid", None),
    ],
)
async def test_bad_paths_are_400_naming_the_field_and_create_nothing(
    shared_client: httpx.AsyncClient, tmp_path: Path, paths: list[str], code: str, reason: str | None
) -> None:
    (tmp_path / "a-file").write_text("x")
    body = {"name": "X", "paths": [p.format(tmp=tmp_path) for p in paths], "collectionType": "movies"}
    with trio.fail_after(30):
        response = await shared_client.post("/libraries", json=body)
        listed = (await shared_client.get("/libraries")).json()
    assert response.status_code == 400
    error = response.json()
    assert error["code"] == code and error["params"]["field"] == "paths"
    if reason:
        assert error["params"]["reason"] == reason
    assert listed == []


async def test_overlapping_roots_are_refused(client: httpx.AsyncClient, movies_root: Path) -> None:
    with trio.fail_after(60):
        await create_library(client, "Films", [movies_root])
        for path in (movies_root, movies_root / "Arrival (2016)", movies_root.parent):
            response = await client.post("/libraries", json={"name": "Again", "paths": [str(path)], "collectionType": "movies"})
            assert response.status_code == 400, path
            assert response.json()["params"]["reason"] == "overlaps"
        assert len((await client.get("/libraries")).json()) == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"collectionType": "music"}, "collectionType"),
        ({"options": {"remoteAllowedHosts": [], "excludeKeywords": ["a/b"]}}, "excludeKeywords"),
        ({"options": {"remoteAllowedHosts": [], "readConcurrency": 9}}, "readConcurrency"),
        ({"options": {"remoteAllowedHosts": [], "massMissingThreshold": 2}}, "massMissingThreshold"),
        ({"options": {"scansSuspended": True}}, "remoteAllowedHosts"),
        ({"options": {}}, "remoteAllowedHosts"),
        ({"accessUserIds": ["nobody"]}, "accessUserIds"),
        ({"name": "   "}, "name"),
    ],
)
async def test_invalid_fields_are_400_with_params_field(
    shared_client: httpx.AsyncClient, movies_root: Path, body: dict[str, object], field: str
) -> None:
    request = {"name": "Films", "paths": [str(movies_root)], "collectionType": "movies", **body}
    with trio.fail_after(30):
        response = await shared_client.post("/libraries", json=request)
        listed = (await shared_client.get("/libraries")).json()
    assert response.status_code == 400, response.text
    assert response.json()["params"]["field"] == field
    assert listed == []


async def test_options_without_remote_allowed_hosts_are_field_required_and_create_nothing(
    shared_client: httpx.AsyncClient, movies_root: Path
) -> None:
    request = {"name": "Films", "paths": [str(movies_root)], "collectionType": "movies", "options": {"useNfo": False}}
    with trio.fail_after(30):
        response = await shared_client.post("/libraries", json=request)
        listed = (await shared_client.get("/libraries")).json()
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "field_required"
    assert response.json()["params"] == {"field": "remoteAllowedHosts"}
    assert listed == []


async def test_missing_name_is_field_required(shared_client: httpx.AsyncClient, movies_root: Path) -> None:
    with trio.fail_after(30):
        response = await shared_client.post("/libraries", json={"paths": [str(movies_root)]})
    assert response.status_code == 400
    assert response.json() == {"code": "field_required", "message": response.json()["message"], "params": {"field": "name"}}


async def test_unknown_library_is_404(shared_client: httpx.AsyncClient) -> None:
    with trio.fail_after(30):
        for method, path in (("GET", "/libraries/nope"), ("POST", "/libraries/nope/rescrape"), ("POST", "/libraries/nope/scan")):
            response = await shared_client.request(method, path)
            assert response.status_code == 404, path
            assert response.json()["code"] == "not_found"


async def test_refresh_is_202_and_runs_as_the_library_scan_job(client: httpx.AsyncClient, movies_root: Path) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [movies_root])
        await wait_for_state(client, library["id"])
        bad = await client.post(f"/libraries/{library['id']}/refresh", json={"mode": "sometimes"})
        assert bad.status_code == 400 and bad.json()["params"]["field"] == "mode"
        response = await client.post(f"/libraries/{library['id']}/refresh", json={"mode": "replaceAll"})
        assert response.status_code == 202 and response.json()["success"] is True
        status = await wait_for_state(client, library["id"])
    assert status["state"] == "completed"


async def test_rescrape_reports_counts(client: httpx.AsyncClient, movies_root: Path) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [movies_root])
        await wait_for_state(client, library["id"])
        response = await client.post(f"/libraries/{library['id']}/rescrape")
    assert response.status_code == 200
    assert response.json() == {"queued": 0, "skipped": 0}


async def test_creation_and_scans_are_recorded_for_the_activity_log(server, client: httpx.AsyncClient, movies_root: Path) -> None:  # type: ignore[no-untyped-def]
    from reelhouse.storage import open_store
    from reelhouse.storage.activity import list_activity

    with trio.fail_after(60):
        library = await create_library(client, "Films", [movies_root])
        await wait_for_state(client, library["id"])
        assert (await client.post(f"/libraries/{library['id']}/scan", json={"mode": "quick"})).status_code == 200
        await wait_for_state(client, library["id"])
        async with open_store(server.database_url) as store:
            actions = [(a.action, a.category, a.actor_kind, a.target_id) for a in await list_activity(store, 50)]
    assert ("library.create", "settings", "apiKey", library["id"]) in actions
    assert ("library.scan", "content", "apiKey", library["id"]) in actions


async def test_covers_come_from_an_image_found_at_the_root_else_a_collage_of_posters(
    client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory
) -> None:
    root = tmp_path / "films"
    for n, color in enumerate(("red", "blue")):
        media.video(root / f"Film {n} (200{n})" / f"Film {n} (200{n}).mkv")
        media.image(root / f"Film {n} (200{n})" / "poster.jpg", color=color)
    media.image(root / "fanart.jpg", size=(320, 180))
    with trio.fail_after(60):
        library = await create_library(client, "Films", [root])
        await wait_for_state(client, library["id"])
        covers: dict[str, object] = {}
        while "primary" not in covers:  # chosen right after the scan completes
            covers = (await client.get(f"/libraries/{library['id']}")).json()["covers"]
            await trio.sleep(0.05)
    assert covers["customPrimary"] is False and covers["customThumb"] is False
    assert covers["primarySource"] == "auto" and covers["primaryFinal"] is False
    assert isinstance(covers["primary"], str) and covers["primaryGeneratedAt"].endswith("Z")
    assert covers["thumbSource"] == "scanned" and isinstance(covers["thumb"], str)
    assert "thumbFinal" not in covers and "thumbGeneratedAt" not in covers


# -- roots the server refuses (issue 12, item 7) ---------------------------------------------


async def post_library(client: httpx.AsyncClient, *paths: Path | str) -> httpx.Response:
    body = {"name": "Refused", "paths": [str(p) for p in paths], "collectionType": "movies"}
    with trio.fail_after(30):
        return await client.post("/libraries", json=body)


def assert_refused(response: httpx.Response, code: str, path: Path | str, reason: str) -> None:
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["code"] == code and error["message"], error
    assert error["params"] == {**error["params"], "field": "paths", "path": str(path), "reason": reason}


async def test_root_symlinked_to_another_library_root_is_overlap(
    client: httpx.AsyncClient, movies_root: Path, tmp_path: Path
) -> None:
    """Compared by real path: a link to a root (or into it, or above it) overlaps it."""
    with trio.fail_after(60):
        first = await create_library(client, "Films", [movies_root])
        (tmp_path / "alias").symlink_to(movies_root)
        (tmp_path / "inner").symlink_to(movies_root / "Arrival (2016)")
        (tmp_path / "outer").symlink_to(tmp_path)
        for link in (tmp_path / "alias", tmp_path / "inner", tmp_path / "outer"):
            response = await post_library(client, link)
            assert_refused(response, "field_invalid", link, "overlaps")
            assert response.json()["params"]["libraryId"] == first["id"]
        assert len((await client.get("/libraries")).json()) == 1


async def test_two_roots_of_one_request_naming_the_same_directory_overlap(
    shared_client: httpx.AsyncClient, movies_root: Path, tmp_path: Path
) -> None:
    (tmp_path / "alias").symlink_to(movies_root)
    assert_refused(await post_library(shared_client, movies_root, tmp_path / "alias"), "field_invalid", tmp_path / "alias", "overlaps")


@pytest.mark.parametrize("root", ["/proc", "/proc/self/root", "/sys", "/sys/kernel", "/dev", "/dev/shm", "/"])
async def test_proc_root_refused(shared_client: httpx.AsyncClient, root: str) -> None:
    """/proc, /sys, /dev, anything under them and what holds them (a /proc root walked the whole machine)."""
    if not Path(root).is_dir():
        pytest.skip(f"{root} is not a directory here")
    response = await post_library(shared_client, root)
    assert_refused(response, "library_path_not_allowed", root, "system_directory")
    assert (await shared_client.get("/libraries")).json() == []


async def test_a_symlink_to_proc_is_refused_as_proc(shared_client: httpx.AsyncClient, tmp_path: Path) -> None:
    (tmp_path / "innocent").symlink_to("/proc")
    assert_refused(await post_library(shared_client, tmp_path / "innocent"), "library_path_not_allowed", tmp_path / "innocent", "system_directory")


async def test_data_dir_root_refused(server, client: httpx.AsyncClient, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The server's data directory, anything under it, and a link to it."""
    inside = server.data_dir / "cache"
    inside.mkdir(parents=True, exist_ok=True)
    (tmp_path / "data-link").symlink_to(server.data_dir)
    for root in (server.data_dir, inside, tmp_path / "data-link"):
        assert_refused(await post_library(client, root), "library_path_not_allowed", root, "data_directory")
    assert (await client.get("/libraries")).json() == []


async def test_a_root_holding_the_data_dir_is_accepted_but_the_data_dir_is_never_indexed(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    root = tmp_path / "media"
    media.video(root / "Heat (1995)" / "Heat (1995).mkv")
    data_dir = root / "server-data"
    media.video(data_dir / "Planted (2020)" / "Planted (2020).mkv")
    running = await start_server(nursery, database_url, data_dir)
    try:
        async with running.client() as client:
            with trio.fail_after(60):
                library = await create_library(client, "Films", [root])
                status = await wait_for_state(client, library["id"])
                names = [item["name"] for item in (await client.get("/items", params={"libraryId": library["id"]})).json()["items"]]
        assert status["state"] == "completed" and names == ["Heat"]
    finally:
        running.shutdown.set()
