"""Bad input on the Jellyfin surface is 400 in Jellyfin's error shape, naming what was wrong in the
client's own words, and changes nothing; over real HTTP."""

from __future__ import annotations

from typing import Any

import httpx
import trio

from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from ..conftest import RunningServer
from ..members import add_member
from .surface import PASSWORD, jellyfin, make_shelf, sign_in

LIMIT_S = 60


def assert_refused(answer: httpx.Response, names: str) -> None:
    """400 as Jellyfin's problem details, its detail naming ``names``."""
    assert answer.status_code == 400, (answer.request.url, answer.text)
    assert answer.headers["content-type"].startswith("application/problem+json")
    body = answer.json()
    assert body["status"] == 400 and body["title"] == "Bad Request"
    assert names in body["detail"], (answer.request.url, body)


async def test_malformed_query_parameters_are_400_naming_the_parameter(server: RunningServer) -> None:
    shelf = await make_shelf(server)
    await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, "Ann")) as client:
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("/Items", {"StartIndex": "ten"}, "StartIndex"),
            ("/Items", {"StartIndex": "-1"}, "StartIndex"),
            ("/Items", {"Limit": "-5"}, "Limit"),
            ("/Items", {"Limit": "1e3"}, "Limit"),
            ("/Items", {"Recursive": "yes"}, "Recursive"),
            ("/Items", {"IsPlayed": "maybe"}, "IsPlayed"),
            ("/Items", {"IsFavorite": "1"}, "IsFavorite"),
            ("/Items", {"EnableTotalRecordCount": "nope"}, "EnableTotalRecordCount"),
            ("/Items", {"Years": "nineteen"}, "Years"),
            ("/Items", {"Ids": "not an id!"}, "Ids"),
            ("/Items/Latest", {"Limit": "many"}, "Limit"),
            ("/UserItems/Resume", {"Limit": "x"}, "Limit"),
            ("/Shows/NextUp", {"Limit": "x"}, "Limit"),
            ("/Search/Hints", {"SearchTerm": "gore", "StartIndex": "first"}, "StartIndex"),
            (f"/Shows/{shelf.calm}/Episodes", {"Season": "one"}, "Season"),
            (f"/Shows/{shelf.calm}/Episodes", {"Limit": "all"}, "Limit"),
            (f"/Items/{shelf.gore}/Images/Primary", {"maxWidth": "wide"}, "maxWidth"),
        ]
        with trio.fail_after(LIMIT_S):
            for path, params, named in cases:
                assert_refused(await client.get(path, params=params), named)
            # The same parameters well formed are answered, in any case of their names.
            fine = await client.get("/Items", params={"startindex": "0", "LIMIT": "1", "recursive": "True"})
            assert fine.status_code == 200 and len(fine.json()["Items"]) == 1


async def test_malformed_play_reports_are_400_and_start_no_session(server: RunningServer) -> None:
    shelf = await make_shelf(server)
    await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, "Ann")) as client:
        cases: list[tuple[Any, str]] = [
            ({}, "ItemId"),
            ({"ItemId": 12}, "ItemId"),
            ({"ItemId": shelf.gore, "PositionTicks": "120"}, "PositionTicks"),
            ({"ItemId": shelf.gore, "PositionTicks": True}, "PositionTicks"),
            ({"ItemId": shelf.gore, "PositionTicks": 10**30}, "PositionTicks"),
            ({"ItemId": shelf.gore, "PositionTicks": -10_000_000}, "PositionTicks"),
            ({"ItemId": shelf.gore, "PositionTicks": 10**17}, "PositionTicks"),  # years past the end
            ({"ItemId": shelf.gore, "PlaySessionId": ["a"]}, "PlaySessionId"),
        ]
        with trio.fail_after(LIMIT_S):
            for path in ("/Sessions/Playing", "/Sessions/Playing/Progress"):
                for body, named in cases:
                    assert_refused(await client.post(path, json=body), named)
                answer = await client.post(path, content=b"[not json", headers={"Content-Type": "application/json"})
                assert_refused(answer, "JSON object")
            async with server.client() as native:
                assert (await native.get("/admin/playback/sessions")).json() == []


async def test_malformed_sign_ins_and_media_updates_are_400(server: RunningServer) -> None:
    await add_member(server, "Ann", password=PASSWORD)
    async with jellyfin(server, None) as anonymous, jellyfin(server, server.key) as key:
        with trio.fail_after(LIMIT_S):
            for body, named in (({"Pw": PASSWORD}, "Username"), ({"Username": "Ann", "Pw": 1234}, "Pw"),
                                ({"Username": ["Ann"], "Pw": PASSWORD}, "Username"), ([], "JSON object")):  # fmt: skip
                assert_refused(await anonymous.post("/Users/AuthenticateByName", json=body), named)
            for update, named in (([], "Updates"), ({}, "Updates"), ({"Updates": "/media"}, "Updates"),
                                  ({"Updates": [{"UpdateType": "Created"}]}, "Path"),
                                  ({"Updates": [{"Path": 5}]}, "Path"), ({"Updates": [7]}, "Path")):  # fmt: skip
                assert_refused(await key.post("/Library/Media/Updated", json=update), named)
            assert (await key.post("/Library/Media/Updated", json={"Updates": []})).status_code == 204
