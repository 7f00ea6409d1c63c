"""Playback reports from a signed-in player and the admin's view of live sessions, over real HTTP."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import trio

from reelhouse.storage import open_store

from .conftest import RunningServer, start_server
from .members import token_for
from .playback import (
    EPISODE_SECONDS,
    catalogue_playing,
    live_sessions,
    playback_catalogue,
    start_playing,
    wait_until_sessions,
)

LIMIT_S = 30
RFC3339_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


async def test_an_episode_session_shows_every_field(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(LIMIT_S):
        cat = await playback_catalogue(server)
        async with server.client(key=cat.token) as player:
            session_id = await start_playing(player, cat.episode, positionSec=600, delivery="direct_play",
                                             somethingNew="ignored")  # fmt: skip
            answer = await player.post("/sessions/playing/progress",
                                       json={"sessionId": session_id, "positionSec": 750.5, "paused": True})  # fmt: skip
            assert answer.status_code == 204, answer.text
        [session] = await live_sessions(client)
    assert session == {
        "id": session_id, "itemId": cat.episode, "memberId": cat.member, "member": "Ann",
        "device": "Living room", "player": "TestPlayer", "startedAt": session["startedAt"],
        "positionSec": 750.5, "durationSec": EPISODE_SECONDS, "progress": round(750.5 / EPISODE_SECONDS, 4),
        "paused": True, "bandwidthKbps": 0, "stoppable": False, "bitrateKbps": 4500, "episode": "S01E04",
        "seasonId": cat.season, "seriesId": cat.series, "title": "Severance",
    }  # fmt: skip
    assert RFC3339_MS.match(session["startedAt"])


async def test_a_session_whose_item_is_removed_shows_item_deleted_and_no_title(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(LIMIT_S):
        cat, _session_id = await catalogue_playing(server)
        [before] = await live_sessions(client)
        async with open_store(server.database_url) as store:
            await store.execute("DELETE FROM items WHERE id = ?", (cat.movie,))
        [after] = await live_sessions(client)
    assert before["title"] == "Arrival" and "itemDeleted" not in before
    assert after["itemDeleted"] is True and "title" not in after


async def test_stopped_ends_the_session_into_the_history(server: RunningServer, client: httpx.AsyncClient) -> None:
    with trio.fail_after(LIMIT_S):
        cat = await playback_catalogue(server)
        async with server.client(key=cat.token) as player:
            session_id = await start_playing(player, cat.episode, positionSec=2000)
            answer = await player.post("/sessions/playing/stopped", json={"sessionId": session_id, "positionSec": 2850})
            again = await player.post("/sessions/playing/progress", json={"sessionId": session_id})
        assert answer.status_code == 204, answer.text
        assert again.status_code == 404
        assert await live_sessions(client) == []
        [record] = (await client.get("/admin/playback/history", params={"deviceId": cat.device_id})).json()["records"]
    assert (record["itemId"], record["member"], record["device"]) == (cat.episode, "Ann", "Living room")
    assert (record["episode"], record["title"], record["kind"]) == ("S01E04", "Severance", "episode")
    assert record["percent"] == 95.0 and record["finished"] is True and record["sessions"] == 1


async def test_bad_reports_are_400_with_the_error_body_and_change_nothing(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(LIMIT_S):
        cat, session_id = await catalogue_playing(server, positionSec=10)
        before = await live_sessions(client)
        async with server.client(key=cat.token) as player:
            answers = {
                "negative": await player.post("/sessions/playing/progress",
                                              json={"sessionId": session_id, "positionSec": -1, "paused": True}),
                "nan": await player.post("/sessions/playing/progress",
                                         json={"sessionId": session_id, "positionSec": "NaN"}),
                "infinity": await player.post("/sessions/playing/progress",
                                              json={"sessionId": session_id, "positionSec": "Infinity"}),
                "past ten times the duration": await player.post(
                    "/sessions/playing/stopped", json={"sessionId": session_id, "positionSec": 60_001}),
                "past a week": await player.post("/sessions/playing", json={"itemId": cat.movie, "positionSec": 700_000}),
                "unknown delivery": await player.post("/sessions/playing",
                                                      json={"itemId": cat.movie, "delivery": "teleport"}),
                "not playable": await player.post("/sessions/playing", json={"itemId": cat.series}),
            }  # fmt: skip
        after = await live_sessions(client)
        history = (await client.get("/admin/playback/history")).json()["records"]
    assert history == []  # the refused stopped report ended nothing
    for case, answer in answers.items():
        assert answer.status_code == 400, (case, answer.text)
        error = answer.json()
        assert error["code"] == "field_invalid" and error["message"], (case, error)
    assert answers["negative"].json()["params"] == {"field": "positionSec"}
    assert answers["unknown delivery"].json()["params"]["field"] == "delivery"
    assert after == before  # no new session, position and pause unchanged, the session still live


async def test_unknown_sessions_other_devices_and_unseen_items_are_404(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(LIMIT_S):
        cat = await playback_catalogue(server)
        other_token = await token_for(server, "Ann", password="correct horse battery", deviceId="player-2")
        async with server.client(key=cat.token) as player, server.client(key=other_token) as other:
            session_id = await start_playing(player, cat.movie)
            answers = {
                "unseen item": await player.post("/sessions/playing", json={"itemId": cat.hidden_movie}),
                "no such item": await player.post("/sessions/playing", json={"itemId": "nope"}),
                "unknown session": await player.post("/sessions/playing/progress", json={"sessionId": "nope"}),
                "another device's progress": await other.post("/sessions/playing/progress",
                                                              json={"sessionId": session_id, "positionSec": 5}),
                "another device's stop": await other.post("/sessions/playing/stopped", json={"sessionId": session_id}),
            }  # fmt: skip
        [session] = await live_sessions(client)
    for case, answer in answers.items():
        assert answer.status_code == 404, (case, answer.text)
        assert answer.json()["code"] == "not_found"
    assert (session["id"], session["positionSec"]) == (session_id, 0)


async def test_reports_need_a_device_token_and_the_admin_list_an_api_key(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(LIMIT_S):
        cat = await playback_catalogue(server)
        by_key = await client.post("/sessions/playing", json={"itemId": cat.movie})
        async with server.client(key=cat.token) as player:
            by_player = await player.get("/admin/playback/sessions")
            stop_by_player = await player.post("/admin/playback/sessions/x/stop")
    assert by_key.status_code == 403
    assert by_player.status_code == 403 and stop_by_player.status_code == 403


async def test_stop_is_409_without_a_socket_and_404_for_an_unknown_session(
    server: RunningServer, client: httpx.AsyncClient
) -> None:
    with trio.fail_after(LIMIT_S):
        _cat, session_id = await catalogue_playing(server)
        not_stoppable = await client.post(f"/admin/playback/sessions/{session_id}/stop")
        unknown = await client.post("/admin/playback/sessions/nope/stop")
        [session] = await live_sessions(client)
    assert not_stoppable.status_code == 409
    assert not_stoppable.json()["code"] == "session_not_stoppable"
    assert unknown.status_code == 404
    assert session["id"] == session_id and session["stoppable"] is False


async def test_a_session_without_reports_ends_itself_into_the_history(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await start_server(nursery, database_url, tmp_path / "data", playback={"idle_end_seconds": 0.5})
    with trio.fail_after(LIMIT_S):
        cat = await playback_catalogue(server)
        async with server.client() as client:
            async with server.client(key=cat.token) as player:
                session_id = await start_playing(player, cat.movie, positionSec=60)
            await wait_until_sessions(client, lambda sessions: sessions == [])
            while not (records := (await client.get("/admin/playback/history")).json()["records"]):
                await trio.sleep(0.02)
            async with server.client(key=cat.token) as player:
                late = await player.post("/sessions/playing/progress", json={"sessionId": session_id})
    server.shutdown.set()
    [record] = records
    assert (record["itemId"], record["percent"]) == (cat.movie, 1.0)
    assert late.status_code == 404
