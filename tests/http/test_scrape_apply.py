"""The scrape queue applying matches, over HTTP (provider plugin from a catalogue file; both backends)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import trio

from tests.actors.scrape.providers import calls, candidate, movie, set_catalogue
from tests.media_factory import MediaFactory

from .scanning import create_library
from .scrape_support import detail, server_with_provider, wait_for_job, wait_for_states, wait_until

CAP_S = 120

CATALOGUE: dict[str, Any] = {
    "search": {
        "movie|The Matrix": [candidate("603", "The Matrix", 0.97, 1999), candidate("604", "Reloaded", 0.4, 2003)],
        "movie|Heat": [candidate("949", "Heat", 0.90, 1995), candidate("950", "Heat", 0.86, 1986)],
        "movie|Ronin": [candidate("8195", "Ronin", 0.95, 1998)],
        "series|Northern Lights": [candidate("1399", "Northern Lights", 0.93, 2011)],
    },
    "details": {
        "movie|603": movie("603", "The Matrix", 1999),
        "movie|949": movie("949", "Heat", 1995),
        "movie|950": movie("950", "Heat", 1986, overview="The 1986 Heat."),
        "movie|8195": movie("8195", "Ronin", 1998, tagline="Trust no one."),
        "series|1399": {"providerItemId": "1399", "name": "Northern Lights", "overview": "A cold show.",
                        "seasons": [1], "communityRating": 8.1},
    },
    "seasons": {
        "1399|1": {"item": {"providerItemId": "s1", "name": "Season One", "indexNumber": 1},
                   "episodes": [{"providerItemId": "e1", "name": "Pilot", "indexNumber": 1,
                                 "overview": "It begins."},
                                {"providerItemId": "e2", "name": "Second", "indexNumber": 2,
                                 "overview": "It goes on."}]},
    },
}


def with_details(key: str, answer: dict[str, Any]) -> dict[str, Any]:
    """CATALOGUE with the provider's details for ``key`` (``kind|id``) changed."""
    return {**CATALOGUE, "details": {**CATALOGUE["details"], key: answer}}


async def heat_awaiting_identify(client: httpx.AsyncClient, media: MediaFactory,
                                 root: Path) -> tuple[dict[str, Any], str]:
    """A library of Heat, whose two close candidates leave it `needsIdentify`: (library, Heat's id)."""
    media.video(root / "Heat (1995)" / "Heat (1995).mkv")
    library = await create_library(client, "Films", [root])
    items = await wait_for_states(client, library["id"], {"Heat": "needsIdentify"})
    return library, items["Heat"]["id"]


async def test_films_without_nfo_get_title_overview_cast_and_rating_and_the_job_says_so(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, CATALOGUE)
    root = tmp_path / "films"
    media.video(root / "The Matrix (1999)" / "The Matrix (1999).mkv")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root])
            items = await wait_for_states(client, library["id"], {"The Matrix": "scraped"})
            matrix = await detail(client, items["The Matrix"]["id"])
            job = await wait_for_job(client, library["id"], state="succeeded")
    assert matrix["overview"] == "The story of The Matrix."
    assert matrix["communityRating"] == 7.9 and matrix["genres"] == ["Drama"]
    assert [(p["name"], p["kind"], p.get("role")) for p in matrix["people"]] == [("Ann Actor", "Actor", "Lead")]
    assert matrix["metadataState"]["provider"] == "test" and matrix["metadataState"]["providerItemId"] == "603"
    assert job["messageParams"] == {"processed": 1, "applied": 1, "failed": 0, "needsIdentify": 0}
    assert job["processed"] == 1 and job["changed"] == 1
    server.shutdown.set()


async def test_an_item_with_an_nfo_keeps_its_values_and_gets_only_what_it_lacked(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, CATALOGUE)
    root = tmp_path / "films"
    media.video(root / "Ronin (1998)" / "Ronin (1998).mkv")
    media.text(root / "Ronin (1998)" / "Ronin (1998).nfo",
               "<movie><title>Ronin</title><year>1998</year><plot>From the NFO.</plot></movie>")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root], options={
                "remoteAllowedHosts": [], "fillMissingFromProvider": True, "metadataProviders": ["test"]})
            items = await wait_for_states(client, library["id"], {"Ronin": "scraped"})
            ronin = await detail(client, items["Ronin"]["id"])
    assert ronin["overview"] == "From the NFO."  # the NFO's value stays
    assert ronin["tagline"] == "Trust no one."  # what it lacked is filled
    server.shutdown.set()


async def test_a_rescan_of_a_changed_nfo_keeps_the_scrape_record_and_fills_again(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    """Regression: the scan's NFO rewrite replaced items.extra, losing MetadataState's provider and
    scrapedAt, and the fields the provider had filled (the NFO lacks them) until the next refresh."""
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, CATALOGUE)
    root = tmp_path / "films"
    folder = root / "Ronin (1998)"
    media.video(folder / "Ronin (1998).mkv")
    media.text(folder / "Ronin (1998).nfo", "<movie><title>Ronin</title><plot>First plot.</plot></movie>")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root], options={
                "remoteAllowedHosts": [], "fillMissingFromProvider": True, "metadataProviders": ["test"]})
            items = await wait_for_states(client, library["id"], {"Ronin": "scraped"})
            before = (await detail(client, items["Ronin"]["id"]))["metadataState"]
            media.text(folder / "Ronin (1998).nfo", "<movie><title>Ronin</title><plot>Second plot.</plot></movie>")
            response = await client.post(f"/libraries/{library['id']}/scan", json={"mode": "full"})
            assert response.status_code == 200, response.text

            async def rewritten() -> dict[str, Any] | None:
                item = await detail(client, items["Ronin"]["id"])
                refilled = item.get("overview") == "Second plot." and item.get("tagline") == "Trust no one."
                return item if refilled and item["scrapeState"] == "scraped" else None

            after = await wait_until(rewritten, "the NFO's new plot and the provider's tagline again")
    assert before["provider"] == "test" and before["providerItemId"] == "8195" and before["scrapedAt"]
    assert after["metadataState"]["provider"] == "test"
    assert after["metadataState"]["providerItemId"] == "8195"
    assert after["metadataState"]["scrapedAt"] >= before["scrapedAt"]
    server.shutdown.set()


async def test_needs_identify_then_identify_applies_the_chosen_match(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, CATALOGUE)
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library, heat_id = await heat_awaiting_identify(client, media, tmp_path / "films")
            response = await client.post(f"/items/{heat_id}/identify",
                                         json={"providerId": "test", "providerItemId": "949"})
            after = await detail(client, heat_id)
            listed = await client.get("/items", params={"libraryId": library["id"], "attention": "needsIdentify"})
    assert response.status_code == 200, response.text
    identified = response.json()
    assert identified["id"] == heat_id  # items keep their ids
    assert identified["scrapeState"] == "identified" and identified["overview"] == "The story of Heat."
    assert after["metadataState"]["providerItemId"] == "949"
    assert listed.json()["items"] == []
    server.shutdown.set()


async def test_an_identified_item_stays_identified_when_a_refresh_scrapes_it_again(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    """Regression: a replaceAll refresh of an identified item ended `scraped`, as if the queue had
    matched it on its own; the user's match, found again by its id, stays `identified`."""
    server, plugin = await server_with_provider(nursery, database_url, tmp_path, CATALOGUE)
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            _library, heat_id = await heat_awaiting_identify(client, media, tmp_path / "films")
            identify = await client.post(f"/items/{heat_id}/identify",
                                         json={"providerId": "test", "providerItemId": "950"})
            set_catalogue(plugin, with_details("movie|950", movie("950", "Heat", 1986, overview="Rewritten.")))
            refresh = await client.post(f"/items/{heat_id}/refresh", json={"mode": "replaceAll"})

            async def rewritten() -> dict[str, Any] | None:
                item = await detail(client, heat_id)
                return item if item["overview"] == "Rewritten." and item["scrapeState"] != "pending" else None

            after = await wait_until(rewritten, "the identified match applied again")
    assert identify.status_code == 200 and refresh.status_code == 202, (identify.text, refresh.text)
    assert after["scrapeState"] == "identified"
    assert after["metadataState"]["providerItemId"] == "950"  # the user's choice, not the search's top candidate
    assert "identified" not in after["metadataState"]  # the record's flag is the server's own
    server.shutdown.set()


async def test_a_series_is_matched_and_its_episodes_are_filled_from_the_season(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, CATALOGUE)
    root = tmp_path / "shows"
    for episode in (1, 2):
        media.video(root / "Northern Lights" / "Season 1" / f"Northern Lights S01E0{episode}.mkv")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Shows", [root], collectionType="tvshows")
            items = await wait_for_states(client, library["id"], {"Northern Lights": "scraped"})
            # The series is marked scraped in its own transaction, before its episodes are applied.
            await wait_for_job(client, library["id"], state="succeeded")
            series = await detail(client, items["Northern Lights"]["id"])
            episodes = await client.get("/items", params={"parentId": series["id"], "recursive": "true",
                                                          "includeItemTypes": "Episode", "limit": 10})
    assert series["overview"] == "A cold show."
    found = {e.get("indexNumber"): e for e in episodes.json()["items"] if e["type"] == "Episode"}
    assert found[1]["name"] == "Pilot" and found[2]["name"] == "Second"
    server.shutdown.set()


async def test_a_new_episode_of_a_matched_series_is_filled_after_the_next_scan(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, plugin = await server_with_provider(nursery, database_url, tmp_path, CATALOGUE)
    root = tmp_path / "shows"
    show = root / "Northern Lights" / "Season 1"
    media.video(show / "Northern Lights S01E01.mkv")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Shows", [root], collectionType="tvshows")
            await wait_for_states(client, library["id"], {"Northern Lights": "scraped"})
            await wait_for_job(client, library["id"], state="succeeded")
            media.video(show / "Northern Lights S01E02.mkv")
            scan = await client.post(f"/libraries/{library['id']}/scan", json={"mode": "quick"})
            assert scan.status_code in (200, 202), scan.text

            async def second_filled() -> bool:
                listed = await client.get("/items", params={"libraryId": library["id"], "includeItemTypes": "Episode",
                                                            "recursive": "true", "limit": 10})
                return any(e["name"] == "Second" for e in listed.json()["items"])

            await wait_until(second_filled, "the new episode filled")
    searched = [c for c in calls(plugin) if c["method"] == "metadata.search"]
    assert len(searched) == 1  # looked up again by the id it has, not searched
    server.shutdown.set()


async def test_an_item_refresh_replace_all_takes_the_providers_new_values_and_missing_leaves_a_match_alone(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, plugin = await server_with_provider(nursery, database_url, tmp_path, CATALOGUE)
    root = tmp_path / "films"
    media.video(root / "The Matrix (1999)" / "The Matrix (1999).mkv")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [root])
            items = await wait_for_states(client, library["id"], {"The Matrix": "scraped"})
            matrix_id = items["The Matrix"]["id"]
            await wait_for_job(client, library["id"], state="succeeded")
            set_catalogue(plugin, with_details("movie|603", movie("603", "The Matrix", 1999, overview="Rewritten.")))
            before = len(calls(plugin))
            missing = await client.post(f"/items/{matrix_id}/refresh", json={"mode": "missing"})
            await trio.sleep(0.5)
            untouched = len(calls(plugin)) == before
            replaced = await client.post(f"/items/{matrix_id}/refresh", json={"mode": "replaceAll"})

            async def rewritten() -> bool:
                return (await detail(client, matrix_id))["overview"] == "Rewritten."

            await wait_until(rewritten, "the overview replaced")
            activity = (await client.get("/activity", params={"action": "item.refresh"})).json()["entries"]
    assert missing.status_code == 202 and replaced.status_code == 202
    assert untouched  # a scraped item is not queued by a `missing` refresh
    assert [entry["details"].get("queued") for entry in activity if entry["action"] == "item.refresh"] == [1, 0]
    server.shutdown.set()


async def test_a_refresh_queued_before_a_restart_is_applied_with_its_mode_after_it(
    database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    """Regression: a queued refresh's mode was kept in memory, so after a restart a `replaceAll`
    refresh was applied as `missing` and changed nothing the provider had filled."""
    root = tmp_path / "films"
    media.video(root / "The Matrix (1999)" / "The Matrix (1999).mkv")
    rewritten = with_details("movie|603", movie("603", "The Matrix", 1999, overview="Rewritten."))
    with trio.fail_after(CAP_S):
        async with trio.open_nursery() as nursery:
            first, plugin = await server_with_provider(nursery, database_url, tmp_path, CATALOGUE)
            async with first.client() as client:
                library = await create_library(client, "Films", [root])
                items = await wait_for_states(client, library["id"], {"The Matrix": "scraped"})
                matrix_id = items["The Matrix"]["id"]
                await wait_for_job(client, library["id"], state="succeeded")
                set_catalogue(plugin, {**rewritten, "down": "unreachable"})  # the refresh waits, pending
                refresh = await client.post(f"/items/{matrix_id}/refresh", json={"mode": "replaceAll"})
                await wait_for_job(client, library["id"], state="paused")
            first.shutdown.set()
        set_catalogue(plugin, rewritten)
        async with trio.open_nursery() as nursery:
            second, _ = await server_with_provider(nursery, database_url, tmp_path, rewritten)
            async with second.client() as client:

                async def applied() -> dict[str, Any] | None:
                    item = await detail(client, matrix_id)
                    return item if item["scrapeState"] != "pending" else None

                after = await wait_until(applied, "the queued refresh applied after the restart")
            second.shutdown.set()
    assert refresh.status_code == 202, refresh.text
    assert after["scrapeState"] == "scraped" and after["overview"] == "Rewritten."


def _episodes(*names: str, start: int = 1) -> list[dict[str, Any]]:
    return [{"providerItemId": f"k{start + i}", "name": name, "indexNumber": start + i} for i, name in enumerate(names)]


# An anime numbered straight through: 2 episodes in season 1, 2 in season 2.
ANIME: dict[str, Any] = {
    "search": {"series|Paper Kites": [candidate("77", "Paper Kites", 0.95, 2019)]},
    "details": {"series|77": {"providerItemId": "77", "name": "Paper Kites", "seasons": [1, 2]}},
    "seasons": {
        "77|1": {"item": {"providerItemId": "k-s1", "name": "Season 1", "indexNumber": 1},
                 "episodes": _episodes("Folded", "Thread")},
        "77|2": {"item": {"providerItemId": "k-s2", "name": "Season 2", "indexNumber": 2},
                 "episodes": _episodes("Updraft", "Landing")},
    },
}


async def test_absolute_episode_numbers_are_filled_from_the_season_they_fall_in(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server, _plugin = await server_with_provider(nursery, database_url, tmp_path, ANIME)
    root = tmp_path / "anime"
    for number in (1, 3, 9):
        media.video(root / "Paper Kites" / f"[Lantern] Paper Kites - {number:03d} [1080p].mkv")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Anime", [root], collectionType="tvshows")
            items = await wait_for_states(client, library["id"], {"Paper Kites": "scraped"})
            await wait_for_job(client, library["id"], state="succeeded")
            episodes = await client.get("/items", params={"parentId": items["Paper Kites"]["id"],
                                                          "recursive": "true", "includeItemTypes": "Episode"})
    found = {e.get("indexNumber"): e["name"] for e in episodes.json()["items"] if e["type"] == "Episode"}
    # 1 is season 1's first, 3 season 2's first; 9 lies beyond what the provider knows
    assert found == {1: "Folded", 3: "Updraft", 9: "Episode 9"}
    server.shutdown.set()
