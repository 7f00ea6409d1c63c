"""The scrape queue's SQL on both backends: what gets queued, what is skipped, states and scrapeError."""

from __future__ import annotations

import orjson

from reelhouse.storage import Store
from reelhouse.storage.scrape_queue import (
    FILL,
    Refresh,
    count_pending,
    load_work,
    mark_new_pending,
    pending_batch,
    queue_works,
    season_numbers,
    set_scrape_state,
)

from ..catalog_factory import START_MS, catalog


async def _states(store: Store) -> dict[str, str]:
    return {row[0]: row[1] for row in await store.fetch_all("SELECT name, scrape_state FROM items")}


async def test_a_scan_queues_only_the_new_unlocked_works_without_nfo(store: Store) -> None:
    async with catalog(store) as cat:
        films = cat.library("Films")
        cat.movie(films, "Old", date_created=START_MS - 10_000)
        cat.movie(films, "New")
        cat.movie(films, "With NFO", has_nfo=True)
        cat.movie(films, "Locked", lock_data=True)
        show = cat.series(films, "Show")
        cat.episode(cat.season(show, 1), 1, name="Pilot")
    queued = await mark_new_pending(store, films, created_since_ms=START_MS, with_nfo=False)
    states = await _states(store)
    assert queued == 2 and states["New"] == "pending" and states["Show"] == "pending"
    assert states["Old"] == states["With NFO"] == states["Locked"] == states["Pilot"] == "none"
    assert await mark_new_pending(store, films, created_since_ms=START_MS, with_nfo=True) == 1  # With NFO
    assert await count_pending(store, films) == 3


async def test_a_matched_series_with_a_new_episode_is_queued_again(store: Store) -> None:
    async with catalog(store) as cat:
        films = cat.library("Shows")
        show = cat.series(films, "Show", scrape_state="scraped", date_created=START_MS - 10_000,
                          extra={"provider": "tmdb", "providerItemId": "1399"})
        season = cat.season(show, 2, date_created=START_MS - 10_000)
        cat.episode(season, 5)
    await mark_new_pending(store, films, created_since_ms=START_MS, with_nfo=False)
    (pending,) = await pending_batch(store, films, limit=10)
    assert pending.id == show and pending.provider_ids == {"tmdb": "1399"}
    assert await season_numbers(store, show) == [2]


async def test_requeueing_skips_locked_works_and_reports_both_counts(store: Store) -> None:
    async with catalog(store) as cat:
        films = cat.library("Films")
        failed = cat.movie(films, "Failed", scrape_state="failed")
        cat.movie(films, "Unsure", scrape_state="needsIdentify")
        cat.movie(films, "Locked", scrape_state="failed", lock_data=True)
        cat.movie(films, "Done", scrape_state="scraped")
    ids, skipped = await queue_works(store, films, ("failed", "needsIdentify"))
    assert len(ids) == 2 and failed in ids and skipped == 1
    assert (await _states(store))["Done"] == "scraped"
    only, none_skipped = await queue_works(store, films, ("scraped",), item_ids=[failed])
    assert only == [] and none_skipped == 0


async def test_a_failure_is_kept_as_scrape_error_and_cleared_by_the_next_state(store: Store) -> None:
    async with catalog(store) as cat:
        films = cat.library("Films")
        film = cat.movie(films, "Film", scrape_state="pending", extra={"kept": 1})
    await set_scrape_state(store, film, "failed", error="the provider reported an error (unknown)")
    extra = orjson.loads(await store.fetch_value("SELECT extra FROM items WHERE id = ?", (film,)))
    assert extra == {"kept": 1, "scrapeError": "the provider reported an error (unknown)"}
    await set_scrape_state(store, film, "needsIdentify")
    extra = orjson.loads(await store.fetch_value("SELECT extra FROM items WHERE id = ?", (film,)))
    assert extra == {"kept": 1} and (await _states(store))["Film"] == "needsIdentify"


async def test_identify_works_on_the_series_of_an_episode(store: Store) -> None:
    async with catalog(store) as cat:
        shows = cat.library("Shows")
        show = cat.series(shows, "Show")
        episode = cat.episode(cat.season(show, 1), 1)
    work = await load_work(store, episode)
    assert work is not None and work.id == show and work.type == "Series"


async def test_a_refresh_mode_waits_with_its_item_until_the_item_leaves_the_queue(store: Store) -> None:
    async with catalog(store) as cat:
        films = cat.library("Films")
        replaced = cat.movie(films, "Replaced", scrape_state="scraped")
        filled = cat.movie(films, "Filled", scrape_state="failed")
    await queue_works(store, films, ("scraped",), refresh=Refresh("replaceAll", replace_images=True))
    await queue_works(store, films, ("failed",))
    refreshes = {item.id: item.refresh for item in await pending_batch(store, films, limit=10)}
    assert refreshes == {replaced: Refresh("replaceAll", True), filled: FILL}
    await set_scrape_state(store, replaced, "needsIdentify")
    assert await store.fetch_value("SELECT scrape_refresh FROM items WHERE id = ?", (replaced,)) is None
    assert Refresh.from_stored(Refresh("missing", True).stored()) == Refresh("missing", True)
