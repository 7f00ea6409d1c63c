"""The issue's "done when": the bundled tmdb provider against the local fake TMDB API.

A library of real video files without NFO, created with the bundled
provider configured against the fake, ends with titles, overviews, cast,
posters and ratings in GET /items/{id}, with the queue's progress in GET
/jobs; an ambiguous title ends needsIdentify and identify fixes it; an
NFO's values stay; a 429 pauses the queue and it resumes; an upstream
that dies mid-queue leaves it paused, not a pile of failed items. Both
backends; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import trio

from tests.fakes.tmdb_api import FakeTmdb, fake_tmdb
from tests.fakes.tmdb_catalogue import fixture_catalogue, synthetic_movies, synthetic_title, with_movies
from tests.media_factory import MediaFactory

from .scanning import create_library
from .scrape_support import (
    TmdbServer,
    detail,
    films,
    items_by_name,
    tmdb_server,
    wait_for_job,
    wait_for_states,
    wait_until,
)

CAP_S = 120
SYNTHETIC = 12
# The configuration, up to 8 searches (the queue's workers: 4 slots x 2) and
# the details that follow them: one film at least matches whole, and at most
# half the 12 films' 25 requests are answered, so the queue has work left.
ANSWERED_BEFORE_HOLD = 12


@pytest.fixture
def fake() -> Iterator[FakeTmdb]:
    with fake_tmdb(with_movies(fixture_catalogue(), synthetic_movies(SYNTHETIC))) as running:
        yield running


@pytest.fixture
async def tmdb(nursery: trio.Nursery, database_url: str, tmp_path: Path, fake: FakeTmdb) -> AsyncIterator[TmdbServer]:
    async with tmdb_server(nursery, database_url, tmp_path, fake) as running:
        yield running


async def test_films_without_nfo_end_with_titles_overviews_cast_posters_and_ratings(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "The Matrix (1999)", "Heat (1995)")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root])
            assert library["options"]["metadataProviders"] == ["tmdb"]
            running = await wait_for_job(client, library["id"], kind="scrape")
            items = await wait_for_states(client, library["id"], {"The Matrix": "scraped", "Heat": "scraped"})
            matrix = await detail(client, items["The Matrix"]["id"])
            poster = await client.get(f"/images/items/{matrix['id']}", params={"kind": "primary"})
            job = await wait_for_job(client, library["id"], state="succeeded")
    assert running["cancellable"] is False
    assert matrix["overview"] and matrix["communityRating"] > 0
    assert any(person["kind"] == "Actor" for person in matrix["people"])
    assert matrix["images"].get("primary")
    assert poster.status_code == 200 and poster.headers["content-type"].startswith("image/")
    assert matrix["providerIds"].get("tmdb") == "603"
    assert job["messageCode"] == "scrapeBatchDone" and job["messageParams"]["applied"] == 2


async def test_an_nfo_keeps_its_values_and_the_provider_fills_the_rest(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "Heat (1995)")
    media.text(root / "Heat (1995)" / "Heat (1995).nfo",
               "<movie><title>Heat</title><year>1995</year><plot>My own words.</plot></movie>")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root], options={
                "remoteAllowedHosts": [], "fillMissingFromProvider": True, "metadataProviders": ["tmdb"]})
            items = await wait_for_states(client, library["id"], {"Heat": "scraped"})
            heat = await detail(client, items["Heat"]["id"])
    assert heat["overview"] == "My own words."
    assert heat["people"] and heat["images"].get("primary")


async def test_an_ambiguous_title_needs_identify_and_identify_fixes_it(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "Solaris")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root])
            items = await wait_for_states(client, library["id"], {"Solaris": "needsIdentify"})
            solaris = items["Solaris"]["id"]
            listed = await client.post(f"/items/{solaris}/identify", json={"query": "Solaris"})
            chosen = await client.post(f"/items/{solaris}/identify",
                                       json={"providerId": "tmdb", "providerItemId": "593"})
    assert listed.status_code == 200, listed.text
    assert {"593", "2103"} <= {c["providerItemId"] for c in listed.json()["candidates"]}
    assert chosen.status_code == 200, chosen.text
    identified = chosen.json()
    assert identified["id"] == solaris and identified["scrapeState"] == "identified"
    assert identified["productionYear"] == 1972 and identified["overview"]


async def test_a_429_pauses_the_queue_and_it_resumes(tmdb: TmdbServer, tmp_path: Path, media: MediaFactory) -> None:
    tmdb.fake.rate_limit_next(1, retry_after=3)
    root = films(media, tmp_path / "films", "The Matrix (1999)", "Heat (1995)")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root])
            paused = await wait_for_job(client, library["id"], state="paused")
            await wait_for_states(client, library["id"], {"The Matrix": "scraped", "Heat": "scraped"})
    assert paused["messageCode"] == "rateLimited" and paused["messageParams"]["retryAt"].endswith("Z")


async def test_an_upstream_dying_mid_queue_leaves_it_paused_not_items_failed(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    titles = [synthetic_title(i) for i in range(SYNTHETIC)]
    root = films(media, tmp_path / "films", *(f"{name} ({year})" for name, year in titles))
    # Work is left when it dies, however fast the server scrapes: the fake answers
    # ANSWERED_BEFORE_HOLD API requests, then holds the rest until the test cuts it.
    tmdb.fake.hold_after(ANSWERED_BEFORE_HOLD)
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root])

            async def some_scraped() -> bool:
                items = await items_by_name(client, library["id"])
                return any(item["scrapeState"] == "scraped" for item in items.values())

            await wait_until(some_scraped, "a first item scraped")
            tmdb.fake.go_down()
            paused = await wait_for_job(client, library["id"], state="paused")
            await trio.sleep(1)  # it stays paused; nothing fails meanwhile
            during = [item["scrapeState"] for item in (await items_by_name(client, library["id"])).values()]
            tmdb.fake.come_up()
            await wait_for_states(client, library["id"], {name: "scraped" for name, _year in titles})
            done = await wait_for_job(client, library["id"], state="succeeded")
    assert paused["messageCode"] == "paused" and paused["messageParams"]["code"] == "provider_unavailable"
    assert "failed" not in during and "pending" in during
    assert done["messageParams"]["failed"] == 0 and done["messageParams"]["applied"] == SYNTHETIC
