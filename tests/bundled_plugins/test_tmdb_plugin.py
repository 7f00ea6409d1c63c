"""The bundled TMDB provider through the real plugin host, against the local fake API."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.actors.plugins import (
    HostConfig,
    ListPlugins,
    PluginCallError,
    PluginHost,
    PluginNotRunning,
    PluginView,
    call_plugin,
)
from reelhouse.media import provider_metadata
from reelhouse.media.durations import MAX_WAIT_SECONDS
from reelhouse.media.plugin_policy import CrashPolicy
from reelhouse.runtime import ActorRef, ChildSpec, RootActor
from reelhouse.storage import plugin_catalog
from reelhouse.timefmt import rfc3339_ms
from tests.actors.plugins.factory import FAST_POLL_SECONDS, host_caught_up, own_processes_under, zombie_children
from tests.fakes.tmdb_api import FakeTmdb, fake_tmdb

from ..tls import shared_tls_context

CAP_S = 30
CONFIDENT = 0.85  # the scrape queue's rule: a score of at least this, leading the next by 0.1


@dataclass
class Tmdb:
    ref: ActorRef
    data_dir: Path
    fake: FakeTmdb

    async def configure(self, **settings: str) -> None:
        plugin_catalog.update_state(self.data_dir, "tmdb", settings=settings)
        await host_caught_up(self.ref, self.data_dir, plugin_catalog.BUNDLED_DIR)

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        return await call_plugin(self.ref, "tmdb", method, params)

    async def view(self) -> PluginView:
        views = await self.ref.ask(ListPlugins(), timeout=10)
        return next(view for view in views if view.entry.id == "tmdb")

    async def search(self, kind: str, name: str, year: int | None = None, language: str = "en"
                     ) -> list[provider_metadata.Candidate]:
        params: dict[str, Any] = {"kind": kind, "name": name, "language": language}
        if year is not None:
            params["year"] = year
        return provider_metadata.parse_candidates(await self.call("metadata.search", params))

    async def details(self, kind: str, provider_item_id: str, language: str = "en") -> provider_metadata.ProviderItem:
        answer = await self.call("metadata.details",
                                 {"kind": kind, "providerItemId": provider_item_id, "language": language})
        return provider_metadata.parse_item(answer)

    async def season(self, series: str, number: int, language: str = "en"
                     ) -> tuple[provider_metadata.ProviderItem, list[provider_metadata.ProviderItem]]:
        answer = await self.call("metadata.season",
                                 {"seriesProviderItemId": series, "seasonNumber": number, "language": language})
        return provider_metadata.parse_season(answer)


@pytest.fixture
def fake() -> Iterator[FakeTmdb]:
    with fake_tmdb() as running:
        yield running


@pytest.fixture
async def unconfigured(tmp_path: Path, fake: FakeTmdb) -> AsyncIterator[Tmdb]:
    data_dir = tmp_path / "data"
    plugin_catalog.plugins_dir(data_dir).mkdir(parents=True)
    config = HostConfig(data_dir=data_dir, server_version="test",
                        policy=CrashPolicy(max_crashes=3, window=60, base=0.05, cap=0.2), idle_seconds=None)
    with trio.fail_after(CAP_S):
        async with trio.open_nursery() as nursery:
            root = RootActor([ChildSpec("plugins", lambda: PluginHost(config, poll_seconds=FAST_POLL_SECONDS))])
            await nursery.start(root.run)
            ref = root.child("plugins")
            assert ref is not None
            yield Tmdb(ref, data_dir, fake)
            await root.stop(timeout=10)
    assert own_processes_under(plugin_catalog.BUNDLED_DIR / "tmdb") == []  # (a parallel worker's are its own)
    assert zombie_children(os.getpid()) == []


@pytest.fixture
async def tmdb(unconfigured: Tmdb) -> Tmdb:
    await unconfigured.configure(apiKey=unconfigured.fake.api_key, baseUrl=unconfigured.fake.base_url)
    return unconfigured


async def test_without_an_api_key_the_plugin_needs_configuration_and_is_not_started(unconfigured: Tmdb) -> None:
    view = await unconfigured.view()
    assert (view.status, view.missing_required) == ("needs_configuration", ("apiKey",))
    assert set(view.entry.manifest.capabilities) == {"metadata.movie", "metadata.series", "metadata.person"}
    with pytest.raises(PluginNotRunning):
        await unconfigured.call("metadata.search", {"kind": "movie", "name": "Heat", "language": "en"})
    assert unconfigured.fake.count() == 0


async def test_an_exact_title_and_year_is_a_confident_candidate(tmdb: Tmdb) -> None:
    candidates = await tmdb.search("movie", "The Matrix", 1999)
    best = candidates[0]
    assert (best.provider_item_id, best.name, best.year) == ("603", "The Matrix", 1999)
    assert best.score >= 0.9
    assert best.image_url is not None and best.image_url.startswith(tmdb.fake.image_base)


async def test_two_films_of_the_same_name_without_a_year_are_both_unconfident(tmdb: Tmdb) -> None:
    candidates = await tmdb.search("movie", "Solaris")
    assert {c.provider_item_id for c in candidates} == {"593", "2103"}
    assert all(c.score < CONFIDENT for c in candidates)
    with_year = await tmdb.search("movie", "Solaris", 2002)
    assert with_year[0].provider_item_id == "2103" and with_year[0].score >= 0.9


async def test_a_year_off_by_one_still_finds_the_title_with_a_lower_score(tmdb: Tmdb) -> None:
    candidates = await tmdb.search("movie", "Heat", 1996)
    assert candidates[0].provider_item_id == "949"
    assert CONFIDENT <= candidates[0].score < 0.9


async def test_movie_details_carry_people_images_ratings_genres_studios_and_ids(tmdb: Tmdb) -> None:
    item = await tmdb.details("movie", "603")
    assert (item.name, item.original_title, item.production_year, item.runtime_minutes) == (
        "The Matrix", "The Matrix", 1999, 136)
    assert item.tagline == "Welcome to the Real World." and item.overview
    assert str(item.premiere_date) == "1999-03-30"
    assert item.community_rating == 8.2 and item.ratings[0].source == "tmdb" and item.ratings[0].votes == 24500
    assert item.official_rating == "R"
    assert item.genres == ("Action", "Science Fiction")
    assert item.studios == ("Warner Bros. Pictures", "Village Roadshow Pictures")
    assert dict(item.provider_ids) == {"tmdb": "603", "imdb": "tt0133093"}
    actors = [(p.name, p.role, p.order) for p in item.people if p.kind == "Actor"]
    assert actors == [("Keanu Reeves", "Neo", 0), ("Laurence Fishburne", "Morpheus", 1), ("Carrie-Anne Moss", "Trinity", 2)]
    crew = {(p.name, p.kind) for p in item.people if p.kind != "Actor"}
    assert crew == {("Lana Wachowski", "Director"), ("Lilly Wachowski", "Director"), ("Lana Wachowski", "Writer"),
                    ("Joel Silver", "Producer"), ("Don Davis", "Composer")}
    keanu = item.people[0]
    assert dict(keanu.provider_ids) == {"tmdb": "6384"} and keanu.image_url == f"{tmdb.fake.image_base}original/keanu-reeves.jpg"
    kinds = [(image.kind, image.url.rsplit("/", 1)[1]) for image in item.images]
    assert kinds[0] == ("primary", "matrix-poster-en.jpg")  # the language asked first
    assert ("backdrop", "matrix-backdrop.jpg") == next(k for k in kinds if k[0] == "backdrop")  # text-free first
    assert ("logo", "matrix-logo.png") in kinds
    assert all(image.url.startswith(tmdb.fake.image_base) and image.width and image.height for image in item.images)


async def test_the_image_urls_are_served_as_real_images(tmdb: Tmdb) -> None:
    item = await tmdb.details("movie", "603")
    async with httpx.AsyncClient(verify=shared_tls_context()) as client:
        poster = await client.get(item.images[0].url)
    assert poster.status_code == 200 and poster.headers["content-type"] == "image/jpeg"
    assert poster.content[:3] == b"\xff\xd8\xff"


async def test_series_details_list_seasons_networks_ratings_and_external_ids(tmdb: Tmdb) -> None:
    candidates = await tmdb.search("series", "Breaking Bad", 2008)
    assert candidates[0].provider_item_id == "1396" and candidates[0].score >= 0.9
    item = await tmdb.details("series", "1396")
    assert (item.name, item.production_year, str(item.premiere_date), str(item.end_date)) == (
        "Breaking Bad", 2008, "2008-01-20", "2013-09-29")
    assert item.seasons == (1, 2) and item.studios == ("AMC",) and item.official_rating == "TV-MA"
    assert dict(item.provider_ids) == {"tmdb": "1396", "imdb": "tt0903747", "tvdb": "81189"}
    assert [(p.name, p.role, p.order) for p in item.people if p.kind == "Actor"] == [
        ("Bryan Cranston", "Walter White", 0), ("Aaron Paul", "Jesse Pinkman", 1)]
    assert {image.kind for image in item.images} == {"primary", "backdrop", "logo"}
    assert item.community_rating == 8.9


async def test_a_season_lists_its_episodes_with_stills_guest_stars_and_crew(tmdb: Tmdb) -> None:
    season, episodes = await tmdb.season("1396", 1)
    assert (season.index_number, season.name) == (1, "Season 1")
    assert season.images[0].kind == "primary"
    assert [(e.index_number, e.name) for e in episodes] == [
        (1, "Pilot"), (2, "Cat's in the Bag..."), (3, "...And the Bag's in the River")]
    pilot = episodes[0]
    assert pilot.images[0].kind == "still" and pilot.images[0].url.endswith("/bb-s1e1.jpg")
    assert ("Max Arciniega", "GuestStar", "Krazy-8") in {(p.name, p.kind, p.role) for p in pilot.people}
    assert {"Director", "Writer"} <= {p.kind for p in pilot.people}
    assert pilot.runtime_minutes == 48 and str(pilot.premiere_date) == "2008-01-21"


async def test_text_missing_in_the_language_is_filled_from_the_original_then_english(tmdb: Tmdb) -> None:
    matrix = await tmdb.details("movie", "603", "zh-CN")
    assert (matrix.name, matrix.overview) == ("黑客帝国", "一名黑客发现他所生活的世界是一个模拟。")
    assert matrix.tagline == "Welcome to the Real World."  # no zh-CN tagline: the original (English) one
    assert matrix.genres == ("动作", "科幻")
    assert matrix.images[0].url.endswith("/matrix-poster-zh.jpg")  # the language's poster first
    assert matrix.official_rating == "PG-13"  # the region of zh-CN
    solaris = await tmdb.details("movie", "593", "zh-CN")
    assert solaris.name == "飞向太空"
    assert solaris.overview is not None and solaris.overview.startswith("Психолог")  # the original language's text


async def test_a_season_in_another_language_fills_missing_episode_text(tmdb: Tmdb) -> None:
    season, episodes = await tmdb.season("1396", 1, "zh-CN")
    assert season.name == "第 1 季" and season.overview == "High school chemistry teacher Walter White..."
    assert [e.name for e in episodes] == ["试播集", "Cat's in the Bag...", "袋子在河里"]
    assert episodes[0].overview == "第1季第1集。" and episodes[1].overview == "Season 1, episode 2: Cat's in the Bag...."


async def test_a_429_is_rate_limited_with_retry_after_and_pauses_the_plugin(tmdb: Tmdb) -> None:
    await tmdb.details("movie", "949")  # configuration fetched: the next request is the one limited
    tmdb.fake.rate_limit_next(1, retry_after=42)
    with pytest.raises(PluginCallError) as failure:
        await tmdb.details("movie", "603")
    assert failure.value.reason == "rate_limited"
    assert failure.value.params["retryAfterSeconds"] == 42
    assert (await tmdb.view()).paused_until_ms is not None  # the rateLimited notification
    assert (await tmdb.details("movie", "603")).name == "The Matrix"  # the limit is over: the call works again


@pytest.mark.parametrize("retry_after", ["99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"])
async def test_an_absurd_upstream_retry_after_pauses_the_plugin_a_day_at_most(tmdb: Tmdb, retry_after: str) -> None:
    await tmdb.details("movie", "949")  # configuration fetched: the next request is the one limited
    tmdb.fake.rate_limit_next(1, retry_after=retry_after)
    with pytest.raises(PluginCallError) as failure:
        await tmdb.details("movie", "603")
    assert failure.value.reason == "rate_limited"
    assert failure.value.params["retryAfterSeconds"] == MAX_WAIT_SECONDS
    paused_until = (await tmdb.view()).paused_until_ms
    assert paused_until is not None and paused_until <= (time.time() + MAX_WAIT_SECONDS) * 1000
    assert rfc3339_ms(paused_until)  # what GET /plugins/installed formats


async def test_an_upstream_refusing_connections_is_unreachable(tmdb: Tmdb) -> None:
    tmdb.fake.go_down()
    with pytest.raises(PluginCallError) as failure:
        await tmdb.search("movie", "Heat")
    assert failure.value.reason == "unreachable"
    tmdb.fake.come_up()
    assert (await tmdb.search("movie", "Heat"))[0].provider_item_id == "949"


async def test_an_upstream_dying_during_a_call_is_unreachable(tmdb: Tmdb) -> None:
    await tmdb.search("movie", "Heat")  # a kept-alive connection to be reset
    tmdb.fake.delay = 5
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_go_down_once_busy, tmdb.fake)
        with pytest.raises(PluginCallError) as failure:
            await tmdb.search("movie", "Heat")
    assert failure.value.reason == "unreachable"


async def _go_down_once_busy(fake: FakeTmdb) -> None:
    while fake.in_flight == 0:
        await trio.sleep(0.01)
    fake.go_down()


async def test_a_wrong_key_is_auth_failed_and_no_key_reaches_an_error_or_the_log(
        tmdb: Tmdb, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "wrong-key-7f3c9a1b2d4e"
    await tmdb.configure(apiKey=wrong, baseUrl=tmdb.fake.base_url)
    with pytest.raises(PluginCallError) as failure:
        await tmdb.search("movie", "Heat")
    assert failure.value.reason == "auth_failed"
    errors = [failure.value]
    tmdb.fake.go_down()
    for method, params in (("metadata.details", {"kind": "movie", "providerItemId": "603", "language": "en"}),
                           ("metadata.season", {"seriesProviderItemId": "1396", "seasonNumber": 1, "language": "en"})):
        with pytest.raises(PluginCallError) as failure:
            await tmdb.call(method, params)
        errors.append(failure.value)
    assert [error.reason for error in errors[1:]] == ["unreachable", "unreachable"]
    for error in errors:
        assert wrong not in f"{error} {error.message} {error.params}"
    assert wrong not in caplog.text and tmdb.fake.api_key not in caplog.text


async def test_calls_overlap_up_to_the_manifests_concurrency(tmdb: Tmdb) -> None:
    await tmdb.search("movie", "Heat")
    tmdb.fake.reset_stats()
    tmdb.fake.hold()
    async with trio.open_nursery() as nursery:
        for name in ("Heat", "Solaris", "The Matrix", "Heat", "Solaris", "The Matrix"):
            nursery.start_soon(tmdb.search, "movie", name)
        while tmdb.fake.in_flight < 4:  # four requests wait at the fake at once
            await trio.sleep(0.02)
        tmdb.fake.release()
    assert tmdb.fake.max_api_concurrency == (await tmdb.view()).entry.manifest.concurrency == 4
    assert tmdb.fake.count("/3/search/movie") == 6


async def test_an_unknown_id_fails_that_call_only(tmdb: Tmdb) -> None:
    with pytest.raises(PluginCallError) as failure:
        await tmdb.details("movie", "424242")
    assert failure.value.reason == "unknown"
    assert (await tmdb.details("movie", "949")).name == "Heat"
