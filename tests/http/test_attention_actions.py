"""Attention actions over HTTP: bulk work on items by attention state, as attentionAction jobs.

Real server, real provider plugin process (tests/actors/scrape), real video
files; both backends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import trio

from reelhouse.storage import open_store
from tests.actors.scrape.providers import candidate, movie, set_catalogue
from tests.media_factory import MediaFactory

from .conftest import RunningServer
from .scanning import create_library, wait_for_state
from .scrape_support import films, items_by_name, job_matching, server_with_provider, wait_for_states, wait_until

CAP_S = 120
CLEAR: dict[str, Any] = {
    "search": {"movie|Heat": [candidate("949", "Heat", 0.95, 1995)],
               "movie|Ronin": [candidate("8195", "Ronin", 0.95, 1998)]},
    "details": {"movie|949": movie("949", "Heat", 1995), "movie|8195": movie("8195", "Ronin", 1998)},
}
NO_PROVIDERS = {"remoteAllowedHosts": [], "metadataProviders": []}


async def _action(client: httpx.AsyncClient, library_id: str, **body: Any) -> httpx.Response:
    return await client.post(f"/libraries/{library_id}/attention-actions", json=body)


async def test_a_rescrape_action_queues_every_failed_item_and_names_the_scrape_job(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, plugin = await server_with_provider(nursery, database_url, tmp_path, {"down": "unknown"})
    root = films(media, tmp_path / "films", "Heat (1995)", "Ronin (1998)")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root])
            await wait_for_states(client, library["id"], {"Heat": "failed", "Ronin": "failed"})
            set_catalogue(plugin, CLEAR)  # the provider works again
            response = await _action(client, library["id"], action="rescrape")
            job = await job_matching(client, f"attentionAction:{library['id']}", state="succeeded")
            await wait_for_states(client, library["id"], {"Heat": "scraped", "Ronin": "scraped"})
            activity = (await client.get("/activity", params={"action": "library.attention_action"})).json()
    assert response.status_code == 202, response.text
    assert response.json() == {"jobId": f"attentionAction:{library['id']}", "action": "rescrape", "count": 2}
    assert job["kind"] == "attentionAction" and job["messageCode"] == "attentionActionQueued"
    assert job["messageParams"] == {"action": "rescrape", "count": 2, "skipped": 0, "failed": 0}
    assert job["relatedJobId"] == f"scrape:{library['id']}" and job["relatedKind"] == "scrape"
    logged = [entry for entry in activity["entries"] if entry.get("action") == "library.attention_action"]
    assert [entry["details"]["action"] for entry in logged] == ["rescrape"]
    server.shutdown.set()


async def test_drop_missing_removes_only_the_missing_items_now_and_reports_done(
    nursery: trio.Nursery, server: RunningServer, tmp_path: Path, media: MediaFactory
) -> None:
    titles = [f"Film {n} (200{n})" for n in range(6)]  # one of six gone: under the mass-missing safeguard
    root = films(media, tmp_path / "films", *titles)
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root], options=NO_PROVIDERS)
            await wait_for_state(client, library["id"])
            (root / titles[0] / f"{titles[0]}.mkv").unlink()
            assert (await client.post(f"/libraries/{library['id']}/scan", json={"mode": "full"})).status_code < 300
            await wait_until(lambda: _missing(client, library["id"]), "a missing item")
            response = await _action(client, library["id"], action="dropMissing")
            job = await job_matching(client, f"attentionAction:{library['id']}", state="succeeded")
            left = await items_by_name(client, library["id"])
            still_missing = await _missing(client, library["id"])
    assert response.status_code == 202 and response.json()["count"] == 1
    assert job["messageCode"] == "attentionActionDone"
    assert job["messageParams"] == {"action": "dropMissing", "done": 1, "skipped": 0, "failed": 0}
    assert "relatedJobId" not in job
    assert sorted(left) == [f"Film {n}" for n in range(1, 6)] and still_missing == []


async def test_reprobe_hands_the_unprobed_local_files_to_a_local_reprobe_job(
    nursery: trio.Nursery, server: RunningServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "Heat (1995)", "Ronin (1998)")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root], options=NO_PROVIDERS)
            await wait_for_state(client, library["id"])
            heat = (await items_by_name(client, library["id"]))["Heat"]
            async with open_store(server.database_url) as store:  # as if its probe never ran
                await store.execute("UPDATE items SET probe_pending = 1 WHERE id = ?", (heat["id"],))
            unprobed = await _listed(client, library["id"], "unprobed")
            response = await _action(client, library["id"], action="reprobe")
            action = await job_matching(client, f"attentionAction:{library['id']}", state="succeeded")
            reprobe = await job_matching(client, f"localReprobe:{library['id']}", state="succeeded")
            after = await _listed(client, library["id"], "unprobed")
    assert unprobed == [heat["id"]]
    assert response.status_code == 202 and response.json()["count"] == 1
    assert action["messageParams"] == {"action": "reprobe", "count": 1, "skipped": 0, "failed": 0}
    assert action["relatedJobId"] == f"localReprobe:{library['id']}" and action["relatedKind"] == "localReprobe"
    assert reprobe["kind"] == "localReprobe" and reprobe["processed"] == 1 and reprobe["total"] == 1
    assert after == []


async def test_bad_attention_actions_answer_the_reference_error_bodies(
    client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "Heat (1995)")
    with trio.fail_after(CAP_S):
        library = await create_library(client, "Films", [root], options=NO_PROVIDERS)
        unknown = await _action(client, library["id"], action="polish")
        absent = await _action(client, "nope", action="dropMissing")
        no_provider = await _action(client, library["id"], action="reidentify")
        too_many = await _action(client, library["id"], action="dropMissing", itemIds=["x"] * 1001)
    assert unknown.status_code == 400 and unknown.json()["code"] == "field_invalid"
    assert absent.status_code == 404 and absent.json()["code"] == "not_found"
    assert no_provider.status_code == 409 and no_provider.json()["code"] == "library_no_providers"
    assert too_many.status_code == 400


async def _listed(client: httpx.AsyncClient, library_id: str, attention: str) -> list[str]:
    response = await client.get("/items", params={"libraryId": library_id, "attention": attention,
                                                  "recursive": "true"})
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["items"]]


async def _missing(client: httpx.AsyncClient, library_id: str) -> list[str]:
    return await _listed(client, library_id, "missing")
