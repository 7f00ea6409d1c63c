"""apply_match with answers the bundled TMDB plugin's code makes from the fake TMDB (both backends).

The plugin's modules run in-process here (the plugin host is tested with
the plugin): what matters is that a real answer, images from the fake's
image host included, lands in the catalogue.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import trio

from reelhouse.actors.scrape.apply import SeriesMatch
from reelhouse.media.provider_metadata import parse_item, parse_season
from reelhouse.storage.item_detail import item_detail
from tests.fakes.tmdb_api import FakeTmdb, fake_tmdb

from .conftest import World, origins

PLUGIN_DIR = Path(__file__).parents[3] / "src" / "reelhouse" / "bundled_plugins" / "tmdb"


@pytest.fixture(scope="module")
def plugin() -> Iterator[ModuleType]:
    sys.path.insert(0, str(PLUGIN_DIR))
    try:
        yield importlib.import_module("tmdb_items")
    finally:
        sys.path.remove(str(PLUGIN_DIR))


@pytest.fixture
def fake() -> Iterator[FakeTmdb]:
    with fake_tmdb() as running:
        yield running


async def _call(plugin: ModuleType, fake: FakeTmdb, method: str, params: dict[str, Any]) -> Any:
    client = sys.modules["tmdb_client"].TmdbClient(fake.base_url, fake.api_key, on_rate_limited=lambda _s: None)
    try:
        return await trio.to_thread.run_sync(getattr(plugin, method), client, params)
    finally:
        client.close()


async def test_a_movie_from_the_fake_tmdb_gets_its_fields_cast_poster_and_ratings(
    world: World, plugin: ModuleType, fake: FakeTmdb
) -> None:
    library = world.cat.library("Films", "movies")
    movie = world.cat.movie(library, "the matrix 1999")
    await world.cat.flush()
    answer = parse_item(await _call(plugin, fake, "details", {"kind": "movie", "providerItemId": "603", "language": "en"}))
    result = await world.apply(movie, answer, provider_origins=origins(fake.base_url))
    detail = await item_detail(world.store, movie)
    assert (detail["name"], detail["overview"]) == ("The Matrix", "A hacker learns the world he lives in is a simulation.")
    assert detail["people"][0]["role"] == "Neo" and {p["kind"] for p in detail["people"]} >= {"Actor", "Director"}
    assert detail["images"]["primary"] and detail["images"]["backdrop"] and result.images_failed == 0
    assert detail["ratings"][0]["source"] == "tmdb" and detail["communityRating"] == 8.2
    assert detail["providerIds"]["imdb"] == "tt0133093"


async def test_a_series_from_the_fake_tmdb_fills_its_seasons_and_episodes(
    world: World, plugin: ModuleType, fake: FakeTmdb
) -> None:
    library = world.cat.library("Shows", "tvshows")
    series = world.cat.series(library, "breaking bad")
    season = world.cat.season(series, 1)
    pilot = world.cat.episode(season, 1)
    await world.cat.flush()
    show = parse_item(await _call(plugin, fake, "details", {"kind": "series", "providerItemId": "1396", "language": "en"}))
    first = parse_season(await _call(plugin, fake, "season", {"seriesProviderItemId": "1396", "seasonNumber": 1, "language": "en"}))
    await world.apply(series, SeriesMatch(show, {1: first}), provider_origins=origins(fake.base_url))
    assert (await world.row(series))["name"] == "Breaking Bad"
    assert (await world.row(season))["overview"] == "High school chemistry teacher Walter White..."
    detail = await item_detail(world.store, pilot)
    assert detail["name"] == "Pilot" and detail["images"].get("primary")
