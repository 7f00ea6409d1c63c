"""GET /Items' parameters, Genres, the play routes' small relatives (Ping, Capabilities), the history of
a Jellyfin play and who may make the library calls, as issue 27 lists them; over real HTTP on both
backends (Library/Refresh itself: ``test_library_updates.py``, on real folders)."""

from __future__ import annotations

from typing import Any

import httpx
import trio

from reelhouse.http.jellyfin import ids

from ..conftest import RunningServer
from ..members import add_member
from .surface import HALF_WAY_TICKS, PASSWORD, jellyfin, make_shelf, mark_played, names, play_half_way, sign_in

LIMIT_S = 60


async def page(client: httpx.AsyncClient, **params: Any) -> dict[str, Any]:
    answer = await client.get("/Items", params={"Recursive": "true", **params})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


async def test_items_parameters_filter_sort_and_page_as_jellyfins(server: RunningServer) -> None:
    shelf = await make_shelf(server)
    await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, "Ann")) as ann:
        with trio.fail_after(LIMIT_S):
            movies = await names(ann, "/Items", Recursive="true", IncludeItemTypes="Movie", SortBy="SortName",
                                 SortOrder="Descending")  # fmt: skip
            assert movies == ["Sunny", "Gore"]
            tops = await names(ann, "/Items", Recursive="true", ExcludeItemTypes="Episode,Season", SortBy="SortName")
            assert tops == ["Calm", "Gore", "Scary", "Sunny"]
            episodes = await page(ann, IncludeItemTypes="Episode", SortBy="SortName", StartIndex=1, Limit=2)
            assert (episodes["TotalRecordCount"], episodes["StartIndex"]) == (4, 1)
            assert [i["Name"] for i in episodes["Items"]] == ["Calm episode 2", "Scary episode 1"]
            assert await names(ann, "/Items", Recursive="true", Genres="Animation") == ["Calm"]
            assert await names(ann, "/Items", Recursive="true", Years="2001") == ["Gore"]
            assert await names(ann, "/Items", Recursive="true", PersonIds=shelf.actor) == ["Sunny"]
            assert sorted(await names(ann, "/Items", Ids=f"{shelf.gore},{shelf.calm}")) == ["Calm", "Gore"]
            assert await names(ann, "/Items", Recursive="true", SearchTerm="Sunny") == ["Sunny"]
            assert await names(ann, "/Items", ParentId=shelf.films, SortBy="ProductionYear") == ["Gore", "Sunny"]
            assert await names(ann, "/Genres") == ["Animation", "Comedy", "Horror"]
            assert await names(ann, "/Genres", ParentId=shelf.films) == ["Comedy", "Horror"]

            await mark_played(ann, shelf.gore)
            await play_half_way(ann, shelf.calm_episodes[0], "calm-1")
            movie_or_episode = {"IncludeItemTypes": "Movie,Episode", "SortBy": "SortName"}
            assert await names(ann, "/Items", Recursive="true", Filters="IsPlayed", **movie_or_episode) == ["Gore"]
            assert await names(ann, "/Items", Recursive="true", IsPlayed="true", **movie_or_episode) == ["Gore"]
            unplayed = await names(ann, "/Items", Recursive="true", Filters="IsUnplayed", **movie_or_episode)
            assert "Gore" not in unplayed and "Sunny" in unplayed
            resumable = (await page(ann, Filters="IsResumable"))["Items"]
            assert [(i["Name"], i["UserData"]["PlaybackPositionTicks"]) for i in resumable] == [
                ("Calm episode 1", HALF_WAY_TICKS)]  # fmt: skip
            by_play = await names(ann, "/Items", Recursive="true", SortBy="DatePlayed", SortOrder="Descending",
                                  IncludeItemTypes="Movie")  # fmt: skip
            assert by_play == ["Gore", "Sunny"]
            seasons = (await ann.get(f"/Shows/{shelf.calm}/Seasons")).json()["Items"]
            assert [s["IndexNumber"] for s in seasons] == [1] and seasons[0]["SeriesId"] == shelf.calm
            in_season = await names(ann, f"/Shows/{shelf.calm}/Episodes", SeasonId=seasons[0]["Id"])
            assert in_season == ["Calm episode 1", "Calm episode 2"]
            assert await names(ann, f"/Shows/{shelf.calm}/Episodes", Season="1") == in_season
            assert await names(ann, f"/Shows/{shelf.calm}/Episodes", Season="2") == []
            second = (await ann.get(f"/Shows/{shelf.calm}/Episodes", params={"StartIndex": 1, "Limit": 1})).json()
            assert ([i["Name"] for i in second["Items"]], second["TotalRecordCount"]) == (["Calm episode 2"], 2)
            assert set(await names(ann, "/Items/Latest", IncludeItemTypes="Movie")) == {"Gore", "Sunny"}
            assert set(await names(ann, "/Items/Latest", IncludeItemTypes="Series")) == {"Scary", "Calm"}
            assert await names(ann, "/Items/Latest", IncludeItemTypes="Audio") == []


async def test_a_jellyfin_play_pings_and_lands_in_the_native_history(server: RunningServer) -> None:
    shelf = await make_shelf(server)
    await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, "Ann")) as ann, server.client() as native:
        with trio.fail_after(LIMIT_S):
            capabilities = await ann.post("/Sessions/Capabilities/Full", json={"PlayableMediaTypes": ["Video"]})
            assert capabilities.status_code == 204
            report = {"ItemId": shelf.sunny, "PlaySessionId": "history-1", "PositionTicks": 0}
            assert (await ann.post("/Sessions/Playing", json=report)).status_code == 204
            assert (await ann.post("/Sessions/Playing/Ping", params={"playSessionId": "history-1"})).status_code == 204
            live = (await native.get("/admin/playback/sessions")).json()
            assert [(s["itemId"], s["player"]) for s in live] == [(ids.item_id(shelf.sunny), "Surface tests")]
            stopped = await ann.post("/Sessions/Playing/Stopped", json={**report, "PositionTicks": HALF_WAY_TICKS})
            assert stopped.status_code == 204
            while not (records := (await native.get("/admin/playback/history")).json()["records"]):
                await trio.sleep(0.05)
    assert [(r["itemId"], r["player"], r["member"]) for r in records] == [
        (ids.item_id(shelf.sunny), "Surface tests", "Ann")]  # fmt: skip


async def test_library_calls_take_an_api_key_or_an_administrator_and_refuse_a_member(server: RunningServer) -> None:
    shelf = await make_shelf(server)
    await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    await add_member(server, "Root", password=PASSWORD, admin=True)
    async with jellyfin(server, await sign_in(server, "Ann", device_id="ann")) as ann, \
            jellyfin(server, await sign_in(server, "Root", device_id="root")) as root, \
            jellyfin(server, server.key) as key:  # fmt: skip
        with trio.fail_after(LIMIT_S):
            for path in ("/Library/Refresh", "/Library/Media/Updated"):
                assert (await ann.post(path, json={"Updates": []})).status_code == 403, path
            assert (await ann.get("/Library/VirtualFolders")).status_code == 403
            assert (await ann.get("/Sessions")).status_code == 403
            for client in (root, key):
                folders = (await client.get("/Library/VirtualFolders")).json()
                assert {f["Name"] for f in folders} == {"Films", "Shows"}
                assert (await client.get("/Sessions")).status_code == 200
            assert shelf.films in {f["ItemId"] for f in folders}
