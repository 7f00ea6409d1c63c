"""Writing the watch history: new records, merges within 30 minutes, atomic on both backends."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from reelhouse.storage import Store, migrate, open_store
from reelhouse.storage.maintenance import clear_history_addresses
from reelhouse.storage.play_history import record_playback

from .play_samples import BASE_MS, MINUTE_MS, after, ended

TIMEOUT_S = 30.0


async def _rows(store: Store) -> list[dict[str, Any]]:
    rows = await store.fetch_all("SELECT * FROM play_history ORDER BY started_at, id")
    return [dict(row) for row in rows]


async def test_a_first_session_becomes_a_record(store: Store) -> None:
    session = ended(series_id="series-1", season_id="season-1", kind="episode", episode="S01E04")
    record_id = await record_playback(store, session)
    (row,) = await _rows(store)
    assert str(row["id"]) == record_id
    assert row["sessions"] == 1
    assert (row["started_at"], row["ended_at"]) == (session.started_at_ms, session.ended_at_ms)
    assert (row["user_id"], row["item_id"], row["device_id"]) == ("member-1", "item-1", "device-1")
    assert (row["series_id"], row["season_id"], row["episode"]) == ("series-1", "season-1", "S01E04")
    assert row["percent"] == 20.0 and row["finished"] == 0
    assert row["ip"] == "192.0.2.7"


async def test_a_session_within_30_minutes_merges(store: Store) -> None:
    first = ended(watched_sec=600.0, furthest_sec=3000.0)
    second = after(first, 30, watched_sec=900.0, furthest_sec=1500.0)
    first_id = await record_playback(store, first)
    assert await record_playback(store, second) == first_id
    (row,) = await _rows(store)
    assert row["sessions"] == 2
    assert row["started_at"] == first.started_at_ms
    assert row["ended_at"] == second.ended_at_ms
    assert row["watched_sec"] == 1500.0
    assert row["percent"] == 50.0  # the furthest of the two, not the last
    assert row["furthest_sec"] == 3000.0


async def test_a_session_31_minutes_later_is_a_new_record(store: Store) -> None:
    first = ended()
    first_id = await record_playback(store, first)
    assert await record_playback(store, after(first, 31)) != first_id
    assert [row["sessions"] for row in await _rows(store)] == [1, 1]


@pytest.mark.parametrize("other", [
    {"device_id": "device-2"}, {"item_id": "item-2"}, {"member_id": "member-2"},
], ids=["other device", "other item", "other member"])
async def test_a_session_of_another_device_item_or_member_is_not_merged(store: Store, other: dict[str, str]) -> None:
    first = ended()
    await record_playback(store, first)
    await record_playback(store, after(first, 1, **other))
    assert [row["sessions"] for row in await _rows(store)] == [1, 1]


async def test_the_merge_goes_into_the_latest_record_of_the_key(store: Store) -> None:
    first = ended()
    await record_playback(store, first)
    second = after(first, 40)
    second_id = await record_playback(store, second)
    assert await record_playback(store, after(second, 5)) == second_id
    assert [row["sessions"] for row in await _rows(store)] == [1, 2]


async def test_finished_is_reached_at_90_percent(store: Store) -> None:
    await record_playback(store, ended(item_id="almost", duration_sec=1000.0, furthest_sec=899.0))
    await record_playback(store, ended(item_id="done", duration_sec=1000.0, furthest_sec=900.0))
    finished = {row["item_id"]: row["finished"] for row in await _rows(store)}
    assert finished == {"almost": 0, "done": 1}


async def test_a_merge_recomputes_finished(store: Store) -> None:
    first = ended(duration_sec=1000.0, furthest_sec=500.0)
    await record_playback(store, first)
    await record_playback(store, after(first, 5, duration_sec=1000.0, furthest_sec=950.0))
    (row,) = await _rows(store)
    assert (row["percent"], row["finished"]) == (95.0, 1)


async def test_a_finished_record_stays_finished_after_a_shorter_session(store: Store) -> None:
    first = ended(duration_sec=1000.0, furthest_sec=990.0)
    await record_playback(store, first)
    await record_playback(store, after(first, 5, duration_sec=1000.0, furthest_sec=100.0))
    (row,) = await _rows(store)
    assert (row["percent"], row["finished"]) == (99.0, 1)


async def test_an_unknown_duration_gives_percent_0_and_a_merge_learns_it(store: Store) -> None:
    first = ended(duration_sec=0.0, furthest_sec=500.0)
    await record_playback(store, first)
    assert (await _rows(store))[0]["percent"] == 0.0
    await record_playback(store, after(first, 5, duration_sec=1000.0, furthest_sec=600.0))
    (row,) = await _rows(store)
    assert (row["duration_sec"], row["percent"]) == (1000.0, 60.0)


async def test_recording_a_session_twice_counts_it_once(store: Store) -> None:
    session = ended()
    record_id = await record_playback(store, session)
    assert await record_playback(store, session) == record_id
    (row,) = await _rows(store)
    assert (row["sessions"], row["watched_sec"]) == (1, session.watched_sec)


async def test_recording_a_merged_session_again_counts_it_once(store: Store) -> None:
    first = ended()
    second = after(first, 5)
    record_id = await record_playback(store, first)
    await record_playback(store, second)
    await record_playback(store, after(second, 5))
    assert await record_playback(store, second) == record_id
    (row,) = await _rows(store)
    assert row["sessions"] == 3


async def test_concurrent_ends_of_one_key_merge_into_one_record(store: Store) -> None:
    # Ten sessions of one member, item and device, all within the window of
    # each other, end at once: one record counting ten, none lost.
    sessions = [ended(started_at_ms=BASE_MS + n * MINUTE_MS, ended_at_ms=BASE_MS + (n + 2) * MINUTE_MS,
                      watched_sec=60.0) for n in range(10)]
    ids: list[str] = []

    async def end(session: Any) -> None:
        ids.append(await record_playback(store, session))

    with trio.fail_after(TIMEOUT_S):
        async with trio.open_nursery() as nursery:
            for session in sessions:
                nursery.start_soon(end, session)
    (row,) = await _rows(store)
    assert (row["sessions"], row["watched_sec"]) == (10, 600.0)
    assert set(ids) == {str(row["id"])}


async def test_concurrent_ends_of_one_session_count_once(store: Store) -> None:
    session = ended()
    ids: list[str] = []

    async def end() -> None:
        ids.append(await record_playback(store, session))

    with trio.fail_after(TIMEOUT_S):
        async with trio.open_nursery() as nursery:
            for _ in range(5):
                nursery.start_soon(end)
    (row,) = await _rows(store)
    assert row["sessions"] == 1
    assert ids == [str(row["id"])] * 5


async def test_the_history_survives_a_reopen(database_url: str) -> None:
    first = ended()
    async with open_store(database_url) as store:
        await migrate(store)
        record_id = await record_playback(store, first)
    async with open_store(database_url) as store:
        await migrate(store)
        assert await record_playback(store, after(first, 10)) == record_id
        (row,) = await _rows(store)
        assert row["sessions"] == 2


async def test_the_cleanup_clears_addresses_older_than_the_retention(store: Store) -> None:
    await record_playback(store, ended(item_id="old", started_at_ms=BASE_MS - 10, ended_at_ms=BASE_MS + 1))
    await record_playback(store, ended(item_id="new", started_at_ms=BASE_MS, ended_at_ms=BASE_MS + 1))
    assert await clear_history_addresses(store, before_ms=BASE_MS) == 1
    assert {row["item_id"]: row["ip"] for row in await _rows(store)} == {"old": None, "new": "192.0.2.7"}
