"""The scrape queue over HTTP, with a provider plugin answering from a catalogue file.

Real server, real plugin process, real video files; both backends. The
provider (tests/actors/scrape/provider_program.py) reads its answers per
request, so a test turns its upstream off and on while the queue runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from reelhouse.storage import plugin_catalog
from tests.actors.scrape.providers import calls, candidate, movie, set_catalogue
from tests.media_factory import MediaFactory

from .scanning import create_library, wait_for_state
from .scrape_support import (
    detail,
    films,
    items_by_name,
    scrape_job,
    server_with_provider,
    wait_for_job,
    wait_for_states,
    wait_until,
)

CAP_S = 120

# Heat: two candidates nearly as likely (ambiguous); the others: one clear winner.
AMBIGUOUS: dict[str, Any] = {
    "search": {
        "movie|Heat": [candidate("949", "Heat", 0.90, 1995), candidate("950", "Heat", 0.86, 1986)],
        "movie|Ronin": [candidate("8195", "Ronin", 0.6, 1998)],
        "movie|Crashy": [candidate("77", "Crashy", 0.5, 2001)],
    },
    "details": {"movie|949": movie("949", "Heat", 1995), "movie|950": movie("950", "Heat", 1986)},
}


async def _failed_or_pending(client: Any, library_id: str) -> dict[str, int]:
    items = await items_by_name(client, library_id)
    states = [item["scrapeState"] for item in items.values()]
    return {state: states.count(state) for state in ("failed", "pending", "needsIdentify")}


async def test_an_ambiguous_title_needs_identify_and_identify_lists_the_candidates(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, AMBIGUOUS)
    root = films(media, tmp_path / "films", "Heat (1995)")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root])
            assert library["options"]["metadataProviders"] == ["test"]
            items = await wait_for_states(client, library["id"], {"Heat": "needsIdentify"})
            for name, value in (("attention", "needsIdentify"), ("scrapeState", "needsIdentify"),
                                ("card", "needsIdentify")):
                needing = await client.get("/items", params={"libraryId": library["id"], name: value})
                assert [i["name"] for i in needing.json()["items"]] == ["Heat"], name
            pending = await client.get("/items", params={"libraryId": library["id"], "attention": "scrapePending"})
            assert pending.json()["items"] == []
            response = await client.post(f"/items/{items['Heat']['id']}/identify", json={"query": "Heat"})
            assert response.status_code == 200, response.text
            found = response.json()["candidates"]
            assert [(c["providerId"], c["providerItemId"], c.get("year")) for c in found] == [
                ("test", "949", 1995), ("test", "950", 1986)]
            job = await wait_for_job(client, library["id"], state="succeeded")
    assert job["kind"] == "scrape" and job["cancellable"] is False
    assert job["messageCode"] == "scrapeBatchDone"
    assert job["messageParams"] == {"processed": 1, "applied": 0, "failed": 0, "needsIdentify": 1}
    server.shutdown.set()


async def test_identify_names_a_provider_the_library_cannot_use_400_and_without_providers_409(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, AMBIGUOUS)
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            scraped = await create_library(client, "Films", [films(media, tmp_path / "films", "Heat (1995)")])
            bare = await create_library(client, "Bare", [films(media, tmp_path / "bare", "Ronin (1998)")],
                                        options={"remoteAllowedHosts": [], "metadataProviders": []})
            await wait_for_state(client, bare["id"])
            items = await wait_for_states(client, scraped["id"], {"Heat": "needsIdentify"})
            ghost = await client.post(f"/items/{items['Heat']['id']}/identify",
                                      json={"providerId": "ghost", "providerItemId": "1"})
            ronin = (await items_by_name(client, bare["id"]))["Ronin"]
            none = await client.post(f"/items/{ronin['id']}/identify", json={"query": "Ronin"})
    assert ghost.status_code == 400 and ghost.json()["code"] == "provider_not_installed"
    assert none.status_code == 409 and none.json()["code"] == "library_no_providers"
    assert ronin["scrapeState"] == "none"  # a library without a provider queues nothing
    server.shutdown.set()


async def test_a_rate_limit_pauses_the_queue_until_retry_at_then_it_goes_on(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, {**AMBIGUOUS, "rateLimitOnce": 3})
    root = films(media, tmp_path / "films", "Heat (1995)", "Ronin (1998)")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root])
            paused = await wait_for_job(client, library["id"], state="paused")
            plugins = (await client.get("/plugins/installed")).json()
            await wait_for_states(client, library["id"], {"Heat": "needsIdentify", "Ronin": "needsIdentify"})
    assert paused["messageCode"] == "rateLimited"
    assert paused["messageParams"]["retryAt"].endswith("Z")
    listed = plugins["items"] if isinstance(plugins, dict) else plugins
    plugin = next(p for p in listed if p["id"] == "test")
    assert plugin.get("pausedUntil") and plugin.get("lastErrorCode") == "rate_limited"
    server.shutdown.set()


async def test_an_upstream_that_dies_mid_queue_pauses_it_and_fails_no_item(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    catalogue = {**AMBIGUOUS, "down": "unreachable", "downAfter": 1}
    server, plugin = await server_with_provider(nursery, database_url, tmp_path, catalogue, concurrency=1)
    root = films(media, tmp_path / "films", "Heat (1995)", "Ronin (1998)", "Crashy (2001)")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root])
            paused = await wait_for_job(client, library["id"], state="paused")
            await trio.sleep(1)  # it stays paused: no item is failed meanwhile
            during = await _failed_or_pending(client, library["id"])
            still = await scrape_job(client, library["id"])
            set_catalogue(plugin, AMBIGUOUS)  # the upstream is back
            await wait_for_states(client, library["id"], {n: "needsIdentify" for n in ("Heat", "Ronin", "Crashy")})
    assert paused["messageCode"] == "paused"
    assert paused["messageParams"] == {"code": "provider_unavailable", "reason": "unreachable"}
    assert during["failed"] == 0 and during["pending"] == 2
    assert still is not None and still["state"] == "paused"
    server.shutdown.set()


async def test_a_provider_that_crashes_is_restarted_and_the_queue_goes_on(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, plugin = await server_with_provider(nursery, database_url, tmp_path, {**AMBIGUOUS, "crashOnce": "Crashy"},
                                                concurrency=1)
    root = films(media, tmp_path / "films", "Crashy (2001)", "Heat (1995)", "Ronin (1998)")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root])
            await wait_for_states(client, library["id"], {n: "needsIdentify" for n in ("Heat", "Ronin", "Crashy")})
            plugins = (await client.get("/plugins/installed")).json()
    assert (plugin / "crashed.mark").exists()
    searched = [c["params"]["name"] for c in calls(plugin) if c["method"] == "metadata.search"]
    assert searched.count("Crashy") == 2  # asked again after the restart
    listed = plugins["items"] if isinstance(plugins, dict) else plugins
    assert next(p for p in listed if p["id"] == "test")["status"] != "crash_disabled"
    server.shutdown.set()


async def test_a_library_whose_providers_are_gone_pauses_with_no_provider(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, AMBIGUOUS)
    root = films(media, tmp_path / "films", "Heat (1995)")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root])
            await wait_for_states(client, library["id"], {"Heat": "needsIdentify"})
            plugin_catalog.update_state(server.data_dir, "test", enabled=False)

            async def disabled() -> bool:
                listed = (await client.get("/plugins/installed")).json()
                listed = listed["items"] if isinstance(listed, dict) else listed
                return next(p for p in listed if p["id"] == "test")["status"] == "disabled"

            await wait_until(disabled, "the plugin disabled")
            refresh = await client.post(f"/libraries/{library['id']}/refresh", json={"mode": "replaceAll"})
            job = await wait_for_job(client, library["id"], state="paused")
            items = await items_by_name(client, library["id"])
            listed = (await client.get(f"/libraries/{library['id']}")).json()
    assert refresh.status_code == 202, refresh.text
    assert job["messageCode"] == "noProvider" and job["cancellable"] is False
    assert items["Heat"]["scrapeState"] == "pending"
    assert listed["scrapePending"] == 1
    server.shutdown.set()


async def test_rescrape_queues_the_unmatched_again_and_reports_counts(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, plugin = await server_with_provider(nursery, database_url, tmp_path, AMBIGUOUS)
    root = films(media, tmp_path / "films", "Heat (1995)", "Ronin (1998)")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root])
            await wait_for_states(client, library["id"], {"Heat": "needsIdentify", "Ronin": "needsIdentify"})
            await wait_for_job(client, library["id"], state="succeeded")
            before = len(calls(plugin))
            response = await client.post(f"/libraries/{library['id']}/rescrape")
            await wait_for_job(client, library["id"], state="succeeded")
            await wait_for_states(client, library["id"], {"Heat": "needsIdentify", "Ronin": "needsIdentify"})
            activity = (await client.get("/activity", params={"action": "library.rescrape"})).json()
    assert response.status_code == 200, response.text
    assert response.json() == {"queued": 2, "skipped": 0}
    searched_again = [c for c in calls(plugin)[before:] if c["method"] == "metadata.search"]
    assert len(searched_again) == 2
    assert any(entry.get("action") == "library.rescrape" for entry in activity["entries"])
    server.shutdown.set()


async def test_scrape_requeue_queues_what_was_indexed_before_the_library_scraped(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, plugin = await server_with_provider(nursery, database_url, tmp_path, AMBIGUOUS)
    root = films(media, tmp_path / "films", "Heat (1995)", "Ronin (1998)")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root],
                                           options={"remoteAllowedHosts": [], "autoScrape": False,
                                                    "metadataProviders": ["test"]})
            await wait_for_state(client, library["id"])
            unqueued = await items_by_name(client, library["id"])
            patched = await client.patch(f"/libraries/{library['id']}/options", json={"remoteAllowedHosts": [], "autoScrape": True})
            response = await client.post(f"/libraries/{library['id']}/scrape-requeue")
            await wait_for_states(client, library["id"], {"Heat": "needsIdentify", "Ronin": "needsIdentify"})
    assert {item["scrapeState"] for item in unqueued.values()} == {"none"}
    assert patched.status_code == 200, patched.text
    assert patched.json()["scrapeRequeueSuggested"] is True and patched.json()["scrapeRequeueCount"] == 2
    assert response.status_code == 200 and response.json() == {"queued": 2, "skipped": 0}
    assert any(c["method"] == "metadata.search" for c in calls(plugin))
    server.shutdown.set()


@pytest.mark.parametrize("mode", ["missing", "replaceAll"])
async def test_a_locked_item_is_never_queued_nor_touched(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory, mode: str
) -> None:
    server, plugin = await server_with_provider(nursery, database_url, tmp_path, AMBIGUOUS)
    root = films(media, tmp_path / "films", "Heat (1995)", "Ronin (1998)")
    media.text(root / "Ronin (1998)" / "Ronin (1998).nfo",
               "<movie><title>Ronin</title><plot>Kept as it is.</plot><lockdata>true</lockdata></movie>")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root], options={
                "remoteAllowedHosts": [], "fillMissingFromProvider": True, "metadataProviders": ["test"]})
            items = await wait_for_states(client, library["id"], {"Heat": "needsIdentify"})
            refresh = await client.post(f"/libraries/{library['id']}/refresh", json={"mode": mode})
            await wait_for_job(client, library["id"], state="succeeded")
            ronin = await detail(client, items["Ronin"]["id"])
    assert refresh.status_code == 202
    assert ronin["scrapeState"] == "none" and ronin["overview"] == "Kept as it is."
    assert ronin["metadataState"]["lockData"] is True
    assert not [c for c in calls(plugin) if c["params"].get("name") == "Ronin"]
    server.shutdown.set()


async def test_the_bundled_provider_waiting_for_its_key_is_not_selected_by_default_but_can_be(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, AMBIGUOUS)
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            default = await create_library(client, "Films", [films(media, tmp_path / "a", "Heat (1995)")])
            chosen = await create_library(client, "Chosen", [films(media, tmp_path / "b", "Ronin (1998)")],
                                          options={"remoteAllowedHosts": [], "metadataProviders": ["tmdb"]})
            await wait_for_state(client, chosen["id"])
            job = await wait_for_job(client, chosen["id"], state="paused")
    assert default["options"]["metadataProviders"] == ["test"]  # tmdb needs its apiKey first
    assert chosen["options"]["metadataProviders"] == ["tmdb"]
    assert job["messageCode"] == "noProvider"  # selected, but it cannot run yet
    server.shutdown.set()


# An obfuscated file name with nothing above it to name it: a guess.
GUESSED: dict[str, Any] = {
    "search": {
        "movie|a8f3e9c1d2b4": [candidate("5", "Some Film", 0.99, 2001)],
        "movie|Ronin": [candidate("8195", "Ronin", 0.99, 1998)],
    },
    "details": {"movie|5": movie("5", "Some Film", 2001), "movie|8195": movie("8195", "Ronin", 1998)},
}


async def test_a_name_the_parser_only_guessed_needs_identify_without_a_search(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, plugin = await server_with_provider(nursery, database_url, tmp_path, GUESSED)
    root = films(media, tmp_path / "films", "Ronin (1998)")
    media.video(root / "a8f3e9c1d2b4.mkv")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root])
            await wait_for_states(client, library["id"], {"a8f3e9c1d2b4": "needsIdentify", "Ronin": "scraped"})
            job = await wait_for_job(client, library["id"], state="succeeded")
    searched = [c["params"]["name"] for c in calls(plugin) if c["method"] == "metadata.search"]
    assert searched == ["Ronin"]  # the guess was never matched to the search's first answer
    assert job["messageParams"]["needsIdentify"] == 1
    server.shutdown.set()
