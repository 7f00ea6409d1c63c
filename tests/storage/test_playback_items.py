"""What a playback session reads about its item and player, on both backends."""

from __future__ import annotations

from reelhouse.storage import Store
from reelhouse.storage.playback_items import playback_item, player_facts, unreadable_items

from ..catalog_factory import catalog

TICKS = 10_000_000


async def test_an_episode_has_its_series_name_label_and_primary_version(store: Store) -> None:
    async with catalog(store) as cat:
        library = cat.library("Shows")
        series = cat.series(library, "Severance")
        season = cat.season(series, 1)
        episode = cat.episode(season, 4, name="The You You Are", runtime_ticks=99 * TICKS)
        cat.source(episode, bitrate=4_500_000, runtime_ticks=3000 * TICKS, position=0)
        cat.source(episode, bitrate=20_000_000, runtime_ticks=3001 * TICKS, position=1)  # a second version
    item = await playback_item(store, episode)
    assert item is not None
    assert (item.kind, item.title, item.episode) == ("episode", "Severance", "S01E04")
    assert (item.series_id, item.season_id, item.library_id) == (series, season, library)
    assert (item.duration_sec, item.bitrate_kbps) == (3000.0, 4500)


async def test_a_movie_without_media_falls_back_to_its_runtime_and_has_no_bitrate(store: Store) -> None:
    async with catalog(store) as cat:
        library = cat.library("Films")
        movie = cat.movie(library, "Arrival", runtime_ticks=6960 * TICKS)
        series = cat.series(library, "Dark")
    item = await playback_item(store, movie)
    assert item is not None
    assert (item.kind, item.title, item.episode, item.series_id) == ("movie", "Arrival", None, None)
    assert (item.duration_sec, item.bitrate_kbps) == (6960.0, None)
    not_playable = await playback_item(store, series)
    assert not_playable is not None and not_playable.kind is None
    assert await playback_item(store, "no-such-item") is None


async def test_gone_and_missing_items_are_unreadable(store: Store) -> None:
    async with catalog(store) as cat:
        library = cat.library("Films")
        kept = cat.movie(library, "Arrival")
        missing = cat.movie(library, "Heat", missing=True)
    assert await unreadable_items(store, [kept, missing, "deleted"]) == {missing, "deleted"}
    assert await unreadable_items(store, []) == set()


async def test_player_facts_of_an_unknown_device_are_empty(store: Store) -> None:
    facts = await player_facts(store, "no-such-device")
    assert (facts.device_name, facts.client) == ("", "")
