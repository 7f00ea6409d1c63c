"""GET /admin/playback/history over real HTTP on both backends: fields, filters, time zones, paging, retention.

The tests share a server per backend (tests/http/shared_server.py): those that plant records take
``server``, which empties the history first, so each sees its records alone (a module's tests run one
after another in a process, and the catalogue's items have ids of their own). A setting and a restart
take servers of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
import trio

from reelhouse.http.playback_history import day_start_ms
from reelhouse.media.play_record import EndedPlayback
from reelhouse.storage import open_store
from reelhouse.storage._store import now_ms
from reelhouse.storage.play_history import record_playback

from ..catalog_factory import catalog
from ..storage.play_samples import MINUTE_MS, ended
from .conftest import RunningServer, start_server
from .members import add_member, token_for
from .shared_server import backend, client, shared_client, shared_server  # noqa: F401  (fixtures)

PATH = "/admin/playback/history"
TIMEOUT_S = 60.0
DAY_MS = 86_400_000
RECORD_FIELDS = {
    "id", "itemId", "memberId", "member", "device", "deviceId", "player", "kind", "at", "endedAt",
    "durationSec", "watchedSec", "percent", "finished", "sessions",
}  # fmt: skip


@pytest.fixture
async def server(shared_server: RunningServer) -> RunningServer:
    """The module's server with no history: a neighbour's records would show in every list (and merge
    with a session of the same member, item and device within 30 minutes)."""
    async with open_store(shared_server.database_url) as store:
        await store.execute("DELETE FROM play_history_sessions")
        await store.execute("DELETE FROM play_history")
    return shared_server


def at(text: str) -> int:
    """An RFC 3339 instant as epoch ms."""
    return int(datetime.fromisoformat(text).astimezone(UTC).timestamp() * 1000)


def recent(minutes_ago: float, **changes: Any) -> EndedPlayback:
    """A session that started ``minutes_ago`` and lasted 10 minutes."""
    start = now_ms() - int(minutes_ago * MINUTE_MS)
    return ended(started_at_ms=start, ended_at_ms=start + 10 * MINUTE_MS, **changes)


async def plant(server: RunningServer, sessions: Sequence[EndedPlayback]) -> list[str]:
    async with open_store(server.database_url) as store:
        return [await record_playback(store, session) for session in sessions]


async def records(http: httpx.AsyncClient, **params: Any) -> list[dict[str, Any]]:
    response = await http.get(PATH, params=params)
    assert response.status_code == 200, response.text
    return response.json()["records"]


async def item_ids(http: httpx.AsyncClient, **params: Any) -> list[str]:
    return [record["itemId"] for record in await records(http, **params)]


def assert_invalid(response: httpx.Response, field: str) -> None:
    assert response.status_code == 400, response.text
    assert response.json()["params"]["field"] == field


async def test_a_record_carries_every_field_of_the_reference(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        async with open_store(server.database_url) as store, catalog(store) as cat:
            series = cat.series(cat.library("Shows", "tvshows"), "Dark")
            episode = cat.episode(cat.season(series, 1), 4)
        session = recent(30, item_id=episode, kind="episode", title="Dark", episode="S01E04",
                         duration_sec=1000.0, furthest_sec=950.0, watched_sec=900.0)
        (record_id,) = await plant(server, [session])
        (record,) = await records(client)
    assert set(record) == RECORD_FIELDS | {"episode", "title", "ip", "endReason"}  # endReason: outside the reference
    assert record["id"] == record_id and record["endReason"] == "stopped"
    assert (record["itemId"], record["memberId"], record["member"]) == (episode, "member-1", "Ann")
    assert (record["deviceId"], record["device"], record["player"]) == ("device-1", "Living room", "Infuse")
    assert (record["kind"], record["episode"], record["title"]) == ("episode", "S01E04", "Dark")
    assert record["at"].endswith("Z") and at(record["at"]) == session.started_at_ms
    assert at(record["endedAt"]) == session.ended_at_ms
    assert (record["durationSec"], record["watchedSec"], record["percent"]) == (1000.0, 900.0, 95.0)
    assert (record["finished"], record["sessions"], record["ip"]) == (True, 1, "192.0.2.7")


async def test_records_come_newest_first(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        await plant(server, [recent(300, item_id="old"), recent(100, item_id="new"), recent(200, item_id="middle")])
        assert await item_ids(client) == ["new", "middle", "old"]


async def test_sessions_within_30_minutes_show_as_one_record(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        await plant(server, [recent(100, watched_sec=60.0), recent(75, watched_sec=120.0), recent(20)])
        found = await records(client)
    assert [(r["sessions"], r["watchedSec"]) for r in found] == [(1, 1200.0), (2, 180.0)]


async def test_member_filter(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        await plant(server, [recent(10, item_id="ann's"), recent(20, item_id="bob's", member_id="member-2")])
        assert await item_ids(client, memberId="member-2") == ["bob's"]


async def test_client_filter_is_exact_in_any_case(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        await plant(server, [recent(10, item_id="infuse"), recent(20, item_id="pro", player="Infuse Pro"),
                             recent(30, item_id="kodi", player="Kodi")])
        assert await item_ids(client, client="INFUSE") == ["infuse"]
        assert await item_ids(client, client="infuse pro") == ["pro"]


async def test_device_filter(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        await plant(server, [recent(10, item_id="tv"), recent(20, item_id="phone", device_id="device-2")])
        assert await item_ids(client, deviceId="device-2") == ["phone"]


async def _plant_two_seasons(server: RunningServer) -> dict[str, str]:
    async with open_store(server.database_url) as store, catalog(store) as cat:
        shows = cat.library("Shows", "tvshows")
        series = cat.series(shows, "Dark")
        one, two = cat.season(series, 1), cat.season(series, 2)
        ids = {"series": series, "one": one, "two": two, "s1e1": cat.episode(one, 1), "s2e1": cat.episode(two, 1),
               "movie": cat.movie(cat.library("Films", "movies"), "Arrival"), "other": cat.series(shows, "Lost")}
    await plant(server, [
        recent(10, item_id=ids["s1e1"], kind="episode", series_id=series, season_id=one, title="Dark"),
        recent(20, item_id=ids["s2e1"], kind="episode", series_id=series, season_id=two, title="Dark"),
        recent(30, item_id=ids["movie"], title="Arrival"),
    ])
    return ids


async def test_item_filter_of_an_episode_or_a_movie_finds_its_records(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(TIMEOUT_S):
        ids = await _plant_two_seasons(server)
        assert await item_ids(client, itemId=ids["s2e1"]) == [ids["s2e1"]]
        assert await item_ids(client, itemId=ids["movie"]) == [ids["movie"]]


async def test_item_filter_of_a_series_includes_its_episodes(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        ids = await _plant_two_seasons(server)
        assert await item_ids(client, itemId=ids["series"]) == [ids["s1e1"], ids["s2e1"]]
        assert await item_ids(client, itemId=ids["other"]) == []


async def test_item_filter_of_a_season_includes_its_episodes_only(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(TIMEOUT_S):
        ids = await _plant_two_seasons(server)
        assert await item_ids(client, itemId=ids["one"]) == [ids["s1e1"]]
        assert await item_ids(client, itemId=ids["two"]) == [ids["s2e1"]]


async def test_item_deleted_is_set_once_the_item_is_gone_and_its_series_still_finds_it(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(TIMEOUT_S):
        ids = await _plant_two_seasons(server)
        assert all("itemDeleted" not in record for record in await records(client))
        async with open_store(server.database_url) as store:
            await store.execute("DELETE FROM items WHERE id = ?", (ids["series"],))  # its seasons and episodes go too
        deleted = {record["itemId"]: record.get("itemDeleted") for record in await records(client)}
        by_series = await item_ids(client, itemId=ids["series"])
        by_season = await item_ids(client, itemId=ids["two"])
    assert deleted == {ids["s1e1"]: True, ids["s2e1"]: True, ids["movie"]: None}
    assert by_series == [ids["s1e1"], ids["s2e1"]]
    assert by_season == [ids["s2e1"]]


async def test_title_filter_is_contained_in_any_case(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        await plant(server, [recent(10, item_id="dark", title="Dark"), recent(20, item_id="knight", title="The Dark Knight"),
                             recent(30, item_id="arrival", title="Arrival"), recent(40, item_id="pct", title="100% Ärger")])
        assert await item_ids(client, title="dARk") == ["dark", "knight"]
        assert await item_ids(client, title="k kn") == ["knight"]
        assert await item_ids(client, title="% ä") == ["pct"]  # % is literal; Ä folds beyond ASCII
        assert await item_ids(client, title="_") == []


async def _plant_around_may_first(server: RunningServer) -> None:
    await plant(server, [
        ended(item_id="utc-and-tokyo", started_at_ms=at("2026-05-01T10:00:00Z"), ended_at_ms=at("2026-05-01T11:00:00Z")),
        ended(item_id="utc-only", started_at_ms=at("2026-05-01T20:00:00Z"), ended_at_ms=at("2026-05-01T21:00:00Z")),
        ended(item_id="tokyo-only", started_at_ms=at("2026-04-30T16:00:00Z"), ended_at_ms=at("2026-04-30T17:00:00Z")),
        ended(item_id="neither", started_at_ms=at("2026-05-02T16:00:00Z"), ended_at_ms=at("2026-05-02T17:00:00Z")),
    ])


async def test_a_calendar_date_in_tokyo_and_in_utc_selects_different_records(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(TIMEOUT_S):
        await _plant_around_may_first(server)
        in_utc = await item_ids(client, **{"from": "2026-05-01", "to": "2026-05-01"})
        default_zone = await item_ids(client, **{"from": "2026-05-01", "to": "2026-05-01", "tz": "UTC"})
        in_tokyo = await item_ids(client, **{"from": "2026-05-01", "to": "2026-05-01", "tz": "Asia/Tokyo"})
    assert in_utc == default_zone == ["utc-only", "utc-and-tokyo"]
    assert in_tokyo == ["utc-and-tokyo", "tokyo-only"]


async def test_date_times_bound_from_inclusive_and_to_exclusive(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        await _plant_around_may_first(server)
        found = await item_ids(client, **{"from": "2026-05-01T10:00:00Z", "to": "2026-05-01T20:00:00.000Z"})
        with_offset = await item_ids(client, **{"from": "2026-05-01T19:00:00+09:00", "to": "2026-05-02T05:00:01+09:00"})
        open_ended = await item_ids(client, **{"from": "2026-05-01T20:00:00Z"})
    assert found == ["utc-and-tokyo"]
    assert with_offset == ["utc-only", "utc-and-tokyo"]
    assert open_ended == ["neither", "utc-only"]


async def test_a_date_time_read_back_from_a_record_can_be_passed_to_from(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(TIMEOUT_S):
        await _plant_around_may_first(server)
        first = (await records(client))[0]
        assert await item_ids(client, **{"from": first["at"]}) == [first["itemId"]]
        assert await item_ids(client, to=first["at"], limit=1) == ["utc-only"]


@pytest.mark.parametrize("zone", ["UTC+8", "+08:00", "GMT+8", "localtime", "Asia"])
async def test_an_offset_or_non_zone_tz_is_400_naming_tz(
    shared_client: httpx.AsyncClient, zone: str
) -> None:
    with trio.fail_after(TIMEOUT_S):
        assert_invalid(await shared_client.get(PATH, params={"tz": zone, "from": "2026-05-01"}), "tz")


async def test_an_unknown_tz_is_400_naming_tz(shared_client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        assert_invalid(await shared_client.get(PATH, params={"tz": "Nowhere/City"}), "tz")


@pytest.mark.parametrize(("zone", "day", "start"), [
    # Santiago's clocks skip from 00:00 to 01:00: the day starts at the change.
    ("America/Santiago", date(2026, 9, 6), "2026-09-06T04:00:00Z"),
    # Havana's go back from 01:00 to 00:00: the day starts at the first midnight, not the second.
    ("America/Havana", date(2026, 11, 1), "2026-11-01T04:00:00Z"),
    ("Asia/Tokyo", date(2026, 5, 1), "2026-04-30T15:00:00Z"),
])  # fmt: skip
def test_a_calendar_day_starts_at_its_first_local_instant_across_clock_changes(
    zone: str, day: date, start: str
) -> None:
    assert day_start_ms(day, ZoneInfo(zone)) == at(start)


async def test_the_last_calendar_date_as_to_is_400_not_a_server_error(
    shared_client: httpx.AsyncClient
) -> None:
    with trio.fail_after(TIMEOUT_S):
        assert_invalid(await shared_client.get(PATH, params={"to": "9999-12-31", "tz": "America/New_York"}), "to")


@pytest.mark.parametrize("field, value", [
    ("from", "yesterday"), ("from", "2026-02-30"), ("to", "2026-05-01T10:00:00"), ("to", "2026-13-01"),
])  # fmt: skip
async def test_a_malformed_from_or_to_is_400_naming_it(
    shared_client: httpx.AsyncClient, field: str, value: str
) -> None:
    with trio.fail_after(TIMEOUT_S):
        assert_invalid(await shared_client.get(PATH, params={field: value}), field)


async def test_cursor_paging_walks_every_record_once(server: RunningServer, client: httpx.AsyncClient) -> None:
    # 45 records, several starting at the same millisecond: ties go by id.
    with trio.fail_after(TIMEOUT_S):
        start = now_ms() - DAY_MS
        await plant(server, [ended(item_id=f"item-{n}", started_at_ms=start + (n // 3) * 1000,
                                   ended_at_ms=start + (n // 3) * 1000 + 1) for n in range(45)])
        seen: list[str] = []
        pages = 0
        cursor = None
        while True:
            params = {"limit": 20, "memberId": "member-1"} | ({"cursor": cursor} if cursor else {})
            response = await client.get(PATH, params=params)
            assert response.status_code == 200, response.text
            page = response.json()
            seen += [record["id"] for record in page["records"]]
            pages += 1
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        whole = await records(client, limit=200)
    assert pages == 3
    assert seen == [record["id"] for record in whole]
    assert len(set(seen)) == 45
    assert [r["at"] for r in whole] == sorted((r["at"] for r in whole), reverse=True)


async def test_next_cursor_only_when_another_page_exists(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        await plant(server, [recent(n * 20, item_id=f"item-{n}") for n in range(4)])
        exact = (await client.get(PATH, params={"limit": 4})).json()
        more = (await client.get(PATH, params={"limit": 3})).json()
    assert len(exact["records"]) == 4 and "nextCursor" not in exact
    assert len(more["records"]) == 3 and "nextCursor" in more


async def test_a_tampered_cursor_or_one_from_other_filters_is_400(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(TIMEOUT_S):
        await plant(server, [recent(n * 20, item_id=f"item-{n}") for n in range(3)])
        cursor = (await client.get(PATH, params={"limit": 1})).json()["nextCursor"]
        tampered = cursor[:-2] + ("AA" if cursor[-2:] != "AA" else "BB")
        assert_invalid(await client.get(PATH, params={"limit": 1, "cursor": tampered}), "cursor")
        assert_invalid(await client.get(PATH, params={"limit": 1, "cursor": cursor, "title": "x"}), "cursor")
        assert_invalid(await client.get(PATH, params={"cursor": "not-a-cursor"}), "cursor")
        assert (await client.get(PATH, params={"limit": 1, "cursor": cursor})).status_code == 200


async def test_default_limit_is_40_and_out_of_range_is_400(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        start = now_ms() - DAY_MS
        await plant(server, [ended(item_id=f"item-{n}", started_at_ms=start + n * 1000, ended_at_ms=start + n * 1000 + 1)
                             for n in range(45)])
        page = (await client.get(PATH)).json()
        assert len(page["records"]) == 40 and "nextCursor" in page
        assert len(await records(client, limit=200)) == 45
        for value in ("0", "201", "x", "-1"):
            assert_invalid(await client.get(PATH, params={"limit": value}), "limit")


async def test_ip_is_omitted_past_the_retention(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(TIMEOUT_S):
        await plant(server, [recent(89 * 24 * 60, item_id="89 days", ip="192.0.2.1"),
                             recent(91 * 24 * 60, item_id="91 days", ip="192.0.2.2")])
        found = {record["itemId"]: record.get("ip") for record in await records(client)}
    assert found == {"89 days": "192.0.2.1", "91 days": None}


async def test_the_ip_retention_is_a_setting(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> None:
    with trio.fail_after(TIMEOUT_S):
        server = await start_server(nursery, database_url, tmp_path / "data", schedule={"history_ip_retention_days": 2})
        try:
            await plant(server, [recent(24 * 60, item_id="1 day"), recent(3 * 24 * 60, item_id="3 days")])
            async with server.client() as client:
                found = {record["itemId"]: record.get("ip") for record in await records(client)}
        finally:
            server.shutdown.set()
    assert found == {"1 day": "192.0.2.7", "3 days": None}


async def test_a_device_token_is_403(shared_server: RunningServer) -> None:
    with trio.fail_after(TIMEOUT_S):
        await add_member(shared_server, "ann", password="correct horse battery")
        token = await token_for(shared_server, "ann", password="correct horse battery")
        async with shared_server.client(key=token) as player:
            response = await player.get(PATH)
    assert response.status_code == 403, response.text


async def test_the_history_survives_a_restart(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> None:
    with trio.fail_after(TIMEOUT_S):
        first = await start_server(nursery, database_url, tmp_path / "data")
        (record_id,) = await plant(first, [recent(60)])
        first.shutdown.set()
        second = await start_server(nursery, database_url, tmp_path / "data")
        try:
            async with second.client() as client:
                found = await records(client)
        finally:
            second.shutdown.set()
    assert [record["id"] for record in found] == [record_id]
